#!/usr/bin/env bats
# The capture shim built against MPICH ($BUILD/mpich/, when mpicc.mpich is
# installed beside Open MPI: apt-get install mpich libmpich-dev): the C
# test programs, built with mpicc.mpich, run under MPICH's launcher
# (mpirun.mpich, hydra) with the MPICH shim preloaded, and their traces
# checked the same way test/capture.bats checks the Open MPI runs.

load helper
load capture-common

B="$TC_ROOT/${TC_BUILD:-build/default}"
SHIM="$B/mpich/libtracecluster-capture.so"
TP="$B/mpich/testdata/capture"
EV="$B/test/capture/tcr-events"

have_mpich() {
	command -v mpicc.mpich >/dev/null && command -v mpirun.mpich >/dev/null &&
		[ -f "$SHIM" ] && [ -x "$EV" ] && [ -x "$TP/ring" ]
}

# trace NAME NP PROGRAM ARGS...: run with the MPICH shim into
# $BATS_FILE_TMPDIR/NAME; output in NAME.out, exit status in NAME.rc (a
# failed run fails the tests that read it, not setup_file)
trace() {
	local name=$1 np=$2 d="$BATS_FILE_TMPDIR/$1" rc=0
	shift 2
	rm -rf "$d"
	timeout 60 mpirun.mpich -launcher fork -np "$np" -genv LD_PRELOAD "$SHIM" \
		-genv TRACECLUSTER_DIR "$d" "$@" >"$d.out" 2>&1 || rc=$?
	echo $rc >"$d.rc"
}

setup_file() {
	have_mpich || return 0
	cd "$BATS_FILE_TMPDIR" || return 1
	trace ring 4 "$TP/ring" 5
	trace halo 4 "$TP/halo2d" 3 16
	trace coll 4 "$TP/coll"
	trace anysrc 4 "$TP/anysrc"
	trace mprobe 4 "$TP/mprobe"
	trace neigh 4 "$TP/neigh"
	trace rma 4 "$TP/rma" test
	trace ionb 4 "$TP/ionb" "$BATS_FILE_TMPDIR/ionb.dat"
	trace intercomm 4 "$TP/intercomm"
	trace large 4 "$TP/large" "$BATS_FILE_TMPDIR/large.dat"
	trace mpi4 4 "$B/mpich/testdata/mpi/mpi4"
	trace connect 4 "$TP/connect" spawn
	[ ! -x "$TP/mpi4_mpifh" ] || trace mpi4f 4 "$TP/mpi4_mpifh"
	[ ! -x "$TP/connect_usempi" ] || trace fconnect 4 "$TP/connect_usempi" spawn
}

setup() {
	have_mpich || skip "no MPICH (mpicc.mpich, mpirun.mpich) or MPICH capture shim built"
}

@test "capture-mpich: the shim is linked against MPICH, the program too" {
	run ldd "$SHIM"
	assert_output --partial libmpich
	refute_output --partial libmpi.so
	run ldd "$TP/ring"
	assert_output --partial libmpich
}

@test "capture-mpich: C ring records every call with peers, tags, counts and bytes" {
	check_ring ring
	run ev ring 2
	assert_line --partial "H rank=2 size=4 depth=8 clock=CLOCK_MONOTONIC writer=tracecluster-capture "
	assert_line "M id=0 parent=0 creator=- size=4 members=0,1,2,3"
	assert_line "M id=1 parent=0 creator=- size=1 members=2"
	# call sites symbolised, equal on every rank
	assert_line --regexp "^C id=.* f0=ring\+0x[0-9a-f]+:step_a\+0x"
	for r in 1 2 3; do
		diff <(ev ring 0 | grep '^E' | awk '{print $2, $3}') <(ev ring $r | grep '^E' | awk '{print $2, $3}')
	done
}

@test "capture-mpich: 2D halo exchange (Isend/Irecv/Waitall) on 2x2 ranks: PROC_NULL edges, completions" {
	check_halo halo 2
}

@test "capture-mpich: collectives and v-variants: roots, counts, vectors, reduction ops, requests" {
	check_coll coll
}

@test "capture-mpich: ANY_SOURCE receives, probes and Iprobe record the actual source" {
	check_anysrc anysrc
}

@test "capture-mpich: Mprobe/Improbe and Mrecv/Imrecv: actual sources as world ranks, linked by message id" {
	check_mprobe mprobe
}

@test "capture-mpich: neighbourhood collectives, blocking and nonblocking: counts per neighbour" {
	check_neigh neigh
}

@test "capture-mpich: one-sided: windows, Put/Get/accumulates with targets as world ranks, synchronisation" {
	check_rma rma
}

@test "capture-mpich: nonblocking, shared-pointer and ordered MPI-IO with offsets and requests" {
	check_ionb ionb
}

@test "capture-mpich: intercommunicators, merge, dup_with_info, dist_graph_create" {
	check_intercomm intercomm
}

@test "capture-mpich: MPI-4 large-count (_c) functions recorded as their base operations" {
	local w k n pr
	ran_ok large 4
	refute grep -q "no large-count" "$BATS_FILE_TMPDIR/large.out"
	# communicator 2 has the world ranks reversed: rank k is world rank 3-k
	for w in 0 1 2 3; do
		k=$((3 - w))
		n=$((3 - (k + 1) % 4)) pr=$((3 - (k + 3) % 4))
		run ev large $w
		assert_line --regexp "op=MPI_Isend .* comm=2 peer=$n tag=4 count=5 dtype=MPI_INT dsize=4 bytes=20 req=1 t="
		assert_line --regexp "op=MPI_Recv .* comm=2 peer=$pr tag=4 count=5 .* compl=0:$pr:4:20 "
		assert_line --regexp "op=MPI_Irecv .* comm=2 peer=$n tag=6 count=3 dtype=MPI_DOUBLE .* req=2 t="
		assert_line --regexp "op=MPI_Send .* comm=2 peer=$pr tag=6 count=3 dtype=MPI_DOUBLE "
		assert_line --regexp "op=MPI_Wait .* compl=2:$n:6:24 "
		assert_line --regexp "op=MPI_Bcast .* comm=2 count=7 dtype=MPI_INT .* root=2 t="
		assert_line --regexp "op=MPI_Allreduce .* comm=2 count=2 dtype=MPI_DOUBLE .* redop=MPI_SUM t="
		assert_line --regexp "op=MPI_Reduce .* comm=2 count=1 dtype=MPI_INT .* redop=MPI_MAX root=3 t="
		assert_line --regexp "op=MPI_Allgather .* comm=2 count=1 dtype=MPI_INT "
		assert_line --regexp "op=MPI_Alltoall .* comm=2 count=2 dtype=MPI_INT "
		assert_line --regexp "op=MPI_Iallreduce .* comm=2 count=4 .* req=3 t="
		assert_line --regexp "op=MPI_Put .* comm=2 peer=$n count=4 dtype=MPI_INT .* file=0 off=3 t="
		assert_line --regexp "op=MPI_Win_create .* comm=2 .*file=0 "
		assert_line --regexp "op=MPI_Sendrecv .* comm=2 peer=$n tag=11 rpeer=$pr rtag=11 count=2 dtype=MPI_INT .* compl=0:$pr:11:8 "
		assert_line --regexp "op=MPI_Sendrecv_replace .* comm=2 peer=$n tag=12 rpeer=$pr rtag=12 count=3 .* compl=0:$pr:12:12 "
		assert_line --regexp "op=MPI_Isendrecv .* comm=2 peer=$n tag=13 rpeer=$pr rtag=13 count=4 .* req=[0-9]+ t="
		assert_line --regexp "op=MPI_Isendrecv_replace .* comm=2 peer=$n tag=14 rpeer=$pr rtag=14 count=5 .* req=[0-9]+ t="
		assert_line --regexp "op=MPI_Mrecv .* comm=2 peer=$pr tag=15 count=6 dtype=MPI_INT .* compl=0:$pr:15:24 "
		assert_line --regexp "op=MPI_Imrecv .* comm=2 peer=$pr tag=16 count=7 dtype=MPI_INT .* req=[0-9]+ t="
		assert_line --regexp "op=MPI_Allreduce_init .* comm=2 count=3 dtype=MPI_DOUBLE .* redop=MPI_SUM req=[0-9]+ t="
		assert_line --regexp "op=MPI_Bcast_init .* comm=2 count=9 dtype=MPI_INT .* root=1 req=[0-9]+ t="
		assert_line --regexp "op=MPI_Gather_init .* comm=2 count=2 dtype=MPI_INT .* root=0 req=[0-9]+ t="
		[ "$(nev large $w "op=MPI_Start .* comm=2 count=9 dtype=MPI_INT ")" = 2 ]
		assert_line --regexp "op=MPI_File_write_at .* count=4 dtype=MPI_INT .* file=0 off=$((64 * k)) t="
		assert_line --regexp "op=MPI_File_read_at .* count=4 dtype=MPI_INT .* file=0 off=$((64 * k)) t="
		assert_line --regexp "op=MPI_File_iwrite_at .* count=2 dtype=MPI_INT .* req=[0-9]+ file=0 off=$((64 * k + 16)) t="
		[ "$(nev large $w "op=MPI_Session_init ")" = 1 ]
		[ "$(nev large $w "op=MPI_Session_finalize ")" = 1 ]
		# in their order, just before MPI_Finalize
		[ "$(ev large $w | grep '^E ' | tail -n 3 | cut -d' ' -f2 | tr '\n' ' ')" = \
			"op=MPI_Session_init op=MPI_Session_finalize op=MPI_Finalize " ]
	done
}

@test "capture-mpich: every other large-count (_c) function the shim defines is called by large and recorded as its int form" {
	command -v nm >/dev/null || skip "no nm"
	local w k n pr op q c ops missing h
	ran_ok large 4
	# the _c functions that main() of large calls without their int forms
	# (checked one by one by the test above)
	local alone="Isend Recv Irecv Send Bcast Allreduce Reduce Allgather Alltoall Iallreduce
		Win_create Put Sendrecv Sendrecv_replace Isendrecv Isendrecv_replace Mrecv Imrecv
		Allreduce_init Bcast_init Gather_init File_write_at File_read_at File_iwrite_at"
	nm -D --defined-only "$SHIM" | awk '$3 ~ /^MPI_[A-Za-z_]+_c$/ { print $3 }' | sort -u >exported
	nm -D --undefined-only "$TP/large" | awk '{ sub(/@.*/, "", $2); print $2 }' | sort -u >called
	[ "$(wc -l <exported)" -ge 100 ]
	# every one the shim defines is called by the program
	missing=$(comm -23 exported called)
	[ -z "$missing" ] || { echo "not called by large:" $missing; return 1; }
	for op in $alone; do
		grep -qx "MPI_${op}_c" exported || { echo "$op: no MPI_${op}_c in the shim"; return 1; }
	done
	ops=$(sed -E 's/^MPI_//; s/_c$//' exported | grep -vxF -f <(printf '%s\n' $alone))
	[ "$(echo $ops | wc -w)" = $(($(wc -l <exported) - $(echo $alone | wc -w))) ]
	for w in 0 1 2 3; do
		# rank k of communicator 2, whose ranks are the world's reversed
		k=$((3 - w)) n=$((3 - (k + 1) % 4)) pr=$((3 - (k + 3) % 4))
		for op in $ops; do
			# the int calls, then the _c forms in the same order: the same
			# events but for call site and request id (and a new window's id)
			ev large $w | grep "^E op=MPI_$op " | sed -E 's/ (cs|req)=[0-9a-f]+//g; s/ t=.*//' |
				sed -E '/op=MPI_Win_allocate/s/ file=[0-9]+//' >pair
			h=$(($(wc -l <pair) / 2))
			[ "$h" -ge 1 ] && [ $((2 * h)) = "$(wc -l <pair)" ] ||
				{ echo "rank $w: $op not in pairs"; cat pair; return 1; }
			diff <(head -n $h pair) <(tail -n $h pair) || { echo "rank $w: $op"; return 1; }
		done
		# with the counts of the calls
		c="$((k + 1)),$((k + 2)),$((k + 3)),$((k + 4))"
		[ "$(nev large $w "op=MPI_Alltoallv .* comm=2 count=$((4 * k + 10)) dtype=MPI_INT .* sc=$c rc=$c t=")" = 2 ]
		[ "$(nev large $w "op=MPI_Alltoallw_init .* count=$((16 * k + 40)) dtype=MPI_BYTE .* sc=$((4 * k + 4)),$((4 * k + 8)),")" = 2 ]
		[ "$(nev large $w "op=MPI_Igatherv .* comm=2 count=$((k + 1)) dtype=MPI_INT .* root=2 ")" = 2 ]
		[ "$(nev large $w "op=MPI_Scatterv_init .* comm=2 count=$((k + 1)) .* root=1 ")" = 2 ]
		[ "$(nev large $w "op=MPI_Gatherv .* rc=1,2,3,4")" = $((k == 1 ? 2 : 0)) ]
		[ "$(nev large $w "op=MPI_Scatterv .* sc=1,2,3,4")" = $((k == 2 ? 2 : 0)) ]
		[ "$(nev large $w "op=MPI_Ireduce_scatter .* count=10 .* redop=MPI_SUM .* rc=1,2,3,4")" = 2 ]
		[ "$(nev large $w "op=MPI_Neighbor_alltoallv .* count=3 dtype=MPI_INT .* sc=1,2 rc=2,1")" = 2 ]
		[ "$(nev large $w "op=MPI_Ineighbor_alltoallw .* count=12 dtype=MPI_BYTE .* sc=4,8 rc=8,4")" = 2 ]
		[ "$(nev large $w "op=MPI_Neighbor_allgatherv_init .* count=2 .* rc=2,2")" = 2 ]
		[ "$(nev large $w "op=MPI_Get_accumulate .* comm=2 peer=$n count=2 .* redop=MPI_MAX file=1 off=9 ")" = 2 ]
		[ "$(nev large $w "op=MPI_Rget_accumulate .* peer=$n count=4 .* redop=MPI_NO_OP req=[0-9]+ file=1 off=20 ")" = 2 ]
		# the _c forms' requests: started and completed like the others'
		q=$(ev large $w | grep '^E op=MPI_Alltoallw_init ' | tail -1 | sed -E 's/.* req=([0-9]+) .*/\1/')
		[ "$(nev large $w "op=MPI_Start .* req=$q ")" = 1 ]
		[ "$(nev large $w "op=MPI_Wait .* compl=$q:-1:-1:0 ")" = 1 ]
		q=$(ev large $w | grep '^E op=MPI_Raccumulate ' | tail -1 | sed -E 's/.* req=([0-9]+) .*/\1/')
		[ "$(nev large $w "op=MPI_Wait .* compl=$q:")" = 1 ]
		# pairs() and fpairs(): the peers, counts and offsets of the calls
		[ "$(nev large $w "op=MPI_Rsend .* comm=2 peer=$n tag=23 count=4 dtype=MPI_INT ")" = 2 ]
		[ "$(nev large $w "op=MPI_Ibsend .* comm=2 peer=$n tag=24 count=5 .* req=[0-9]+ t=")" = 2 ]
		[ "$(nev large $w "op=MPI_Recv_init .* comm=2 peer=$pr tag=30 count=11 .* req=[0-9]+ t=")" = 2 ]
		[ "$(nev large $w "op=MPI_Ssend_init .* comm=2 peer=$n tag=29 count=10 .* req=[0-9]+ t=")" = 2 ]
		[ "$(nev large $w "op=MPI_Scatter .* comm=2 count=3 dtype=MPI_INT .* root=1 t=")" = 2 ]
		[ "$(nev large $w "op=MPI_Ireduce .* comm=2 count=7 .* redop=MPI_SUM root=1 req=")" = 2 ]
		[ "$(nev large $w "op=MPI_Reduce_scatter_block_init .* count=3 .* redop=MPI_SUM req=")" = 2 ]
		[ "$(nev large $w "op=MPI_Get .* comm=2 peer=$n count=2 dtype=MPI_INT .* file=2 off=4 t=")" = 2 ]
		[ "$(nev large $w "op=MPI_Rget .* comm=2 peer=$n count=3 .* req=[0-9]+ file=2 off=8 t=")" = 2 ]
		[ "$(nev large $w "op=MPI_Win_allocate .* comm=2 count=4 bytes=64 file=[34] ")" = 2 ]
		[ "$(nev large $w "op=MPI_Win_allocate_shared .* comm=2 count=8 bytes=32 file=[56] ")" = 2 ]
		[ "$(nev large $w "op=MPI_File_write .* count=3 dtype=MPI_INT .* file=0 off=$((512 + 64 * k)) t=")" = 2 ]
		[ "$(nev large $w "op=MPI_File_iread_all .* count=3 .* req=[0-9]+ file=0 off=$((512 + 64 * k)) t=")" = 2 ]
		[ "$(nev large $w "op=MPI_File_iread_at_all .* count=6 .* req=[0-9]+ file=0 off=$((1024 + 64 * k)) t=")" = 2 ]
		# the shared file pointer: the ranks in turn, 20 bytes each
		[ "$(nev large $w "op=MPI_File_write_shared .* count=2 .* file=0 off=$((2048 + 20 * k)) t=")" = 2 ]
		[ "$(nev large $w "op=MPI_File_iread_shared .* count=3 .* file=0 off=$((2056 + 20 * k)) t=")" = 2 ]
		[ "$(nev large $w "op=MPI_File_write_ordered .* count=4 .* file=0 off=0 t=")" = 2 ]
	done
}

# needs_dynproc NAME: skip when the run NAME met an MPICH whose network
# module has no dynamic processes: Debian's MPICH 4.0 is built for ch4:ucx
# only, where MPI_Open_port fails, and so MPI_Comm_spawn, which opens a
# port for its children to connect to, whatever the launcher
needs_dynproc() {
	if grep -q "MPIDI_UCX_get_local_upids.*not supported with ucx netmod" "$BATS_FILE_TMPDIR/$1.out"; then
		skip "MPICH's ch4:ucx netmod has no dynamic processes: MPI_Open_port and MPI_Comm_spawn fail in MPIDI_UCX_get_local_upids"
	fi
}

@test "capture-mpich: Comm_accept/connect, Comm_spawn and Comm_disconnect: roots, new intercommunicators" {
	needs_dynproc connect
	check_connect connect
}

@test "capture-mpich: each world started by Comm_spawn writes its own trace set in DIR/spawn-N, the parent's stays whole" {
	needs_dynproc connect
	check_spawn_sets connect
}

@test "capture-mpich: the MPICH build of connect_usempi (use mpi) calls the dynamic-process bindings the shim defines" {
	[ -x "$TP/connect_usempi" ] || skip "no MPICH Fortran compiler (mpif90.mpich)"
	command -v nm >/dev/null || skip "no nm"
	local f
	nm -D --undefined-only "$TP/connect_usempi" | awk '{ print $2 }' >called
	nm -D --defined-only "$SHIM" | awk '{ print $3 }' >defined
	# MPICH's mpi module declares the mpif.h routines: the program calls
	# the lower-case, underscored names, and the shim must define them
	for f in mpi_comm_accept_ mpi_comm_connect_ mpi_comm_spawn_ mpi_comm_disconnect_ \
		mpi_open_port_ mpi_comm_get_parent_; do
		grep -qx "$f" called || { echo "connect_usempi does not call $f"; return 1; }
	done
	for f in mpi_comm_accept_ mpi_comm_connect_ mpi_comm_spawn_ mpi_comm_disconnect_; do
		grep -qx "$f" defined || { echo "the MPICH shim does not define $f"; return 1; }
	done
}

@test "capture-mpich: Fortran (use mpi) Comm_accept/connect and Comm_spawn record the events of the C program, at the Fortran call sites" {
	[ -x "$TP/connect_usempi" ] || skip "no MPICH Fortran compiler (mpif90.mpich)"
	# compared with the C program's run, which needs them too: an MPICH
	# without them may end the Fortran run before it says so (killed by
	# the timeout on a loaded machine, no output)
	needs_dynproc connect
	needs_dynproc fconnect
	check_fconnect connect fconnect
}

@test "capture-mpich: the traces read back with tracecluster dump --json" {
	ran_ok coll 4
	run tc dump --json --rank 1 "$BATS_FILE_TMPDIR/coll"
	assert_success
	assert_line --regexp '"op":"MPI_Bcast".*"rank":1,.*"root":1,'
	assert_line --regexp '"count":40,.*"datatype":"MPI_BYTE".*"op":"MPI_Alltoallw".*"recv_counts":\[8,8,8,8\],"send_counts":\[4,8,12,16\]'
}

@test "run: the shim for the job's MPI, from the launcher's name or the program's libraries" {
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	OMPI_TP="$B/testdata/capture"
	[ -x "$OMPI_TP/ring" ] || skip "no Open MPI test programs"
	# Hydra's launcher: the MPICH shim, and a trace from every rank
	run -0 --separate-stderr tc -v run -f -o m1 -- mpirun.mpich -launcher fork -np 2 "$TP/ring" 2
	[ "${stderr_lines[0]}" = "tracecluster run: MPI mpich, shim $(realpath "$SHIM")" ]
	[ "$(ls m1/rank-*.tcr | wc -l)" = 2 ]
	run -0 tc info m1
	# no launcher to tell: the program's DT_NEEDED libraries decide
	run -0 --separate-stderr tc -v run -f -o m2 -- env "$TP/ring" 1
	[ "${stderr_lines[0]}" = "tracecluster run: MPI mpich, shim $(realpath "$SHIM")" ]
	run -0 --separate-stderr tc -v run -f -o m3 -- env "$OMPI_TP/ring" 1
	[ "${stderr_lines[0]}" = "tracecluster run: MPI openmpi, shim $(realpath "$B/libtracecluster-capture.so")" ]
	# --mpi overrides; a bad value is a usage error
	run -0 --separate-stderr tc -v run -f -o m4 --mpi openmpi -- true
	[[ ${stderr_lines[0]} == "tracecluster run: MPI openmpi, shim "* ]]
	run -2 tc run --mpi lam -- true
}

# req_of NAME RANK PATTERN: the request id of the one event matching PATTERN
req_of() {
	local l
	l=$(ev "$1" "$2" | grep '^E ' | grep -E -- "$3") || true
	[ -n "$l" ] && [ "$(echo "$l" | wc -l)" = 1 ] ||
		{ echo "rank $2: not one event matches $3" >&2; ev "$1" "$2" | grep -E "^E" | head -4 >&2; return 1; }
	echo "$l" | sed -E 's/.* req=([0-9]+) .*/\1/'
}

@test "capture-mpich: MPI-4 partitioned communication: inits, Pready forms and Parrived linked to their request" {
	ran_ok mpi4 4
	for r in 0 1 2 3; do
		next=$(((r + 1) % 4)) prev=$(((r + 3) % 4))
		s=$(req_of mpi4 $r "op=MPI_Psend_init .* comm=0 peer=$next tag=5 count=32 dtype=MPI_INT dsize=4 bytes=128 req=[0-9]+ file=0 off=4 ")
		v=$(req_of mpi4 $r "op=MPI_Precv_init .* comm=0 peer=$prev tag=5 count=32 dtype=MPI_INT dsize=4 bytes=128 req=[0-9]+ file=0 off=4 ")
		[ "$s" != "$v" ]
		[ "$(nev mpi4 $r "op=MPI_Start .* peer=$next tag=5 count=32 .* req=$s ")" = 1 ]
		[ "$(nev mpi4 $r "op=MPI_Start .* peer=$prev tag=5 count=32 .* req=$v ")" = 1 ]
		[ "$(nev mpi4 $r "op=MPI_Pready .* peer=$next tag=5 count=1 req=$s file=0 off=0 ")" = 1 ]
		[ "$(nev mpi4 $r "op=MPI_Pready_range .* peer=$next tag=5 count=2 req=$s file=0 off=1 ")" = 1 ]
		[ "$(nev mpi4 $r "op=MPI_Pready_list .* peer=$next tag=5 count=1 req=$s file=0 off=3 ")" = 1 ]
		[ "$(nev mpi4 $r "op=MPI_Parrived ")" = 1 ]
		[ "$(nev mpi4 $r "op=MPI_Parrived .* peer=$prev tag=5 count=1 req=$v file=0 off=0 ")" = 1 ]
		[ "$(nev mpi4 $r "op=MPI_Wait .* compl=$s:-1:-1:0 ")" = 1 ]
		[ "$(nev mpi4 $r "op=MPI_Wait .* compl=$v:$prev:5:128 ")" = 1 ]
		[ "$(nev mpi4 $r "op=MPI_Request_free .* req=($s|$v) ")" = 2 ]
	done
}

@test "capture-mpich: MPI-4 persistent collectives: each init, its two Starts with its parameters, its Waits" {
	ran_ok mpi4 4
	for r in 0 1 2 3; do
		# op, then what its init and its starts record
		while read -r op params; do
			q=$(req_of mpi4 $r "op=MPI_${op}_init .*$params.* req=[0-9]+ ") || { echo "rank $r $op"; return 1; }
			[ "$(nev mpi4 $r "op=MPI_Start .* req=$q ")" = 2 ]
			[ "$(nev mpi4 $r "op=MPI_Wait .* compl=$q:-1:-1:0 ")" = 2 ]
			[ "$(nev mpi4 $r "op=MPI_Request_free .* req=$q ")" = 1 ]
		done <<-'EOF'
			Barrier comm=0
			Bcast comm=0 count=3 dtype=MPI_INT .* root=1
			Reduce comm=0 count=2 .* redop=MPI_SUM root=2
			Allreduce comm=0 count=4 .* redop=MPI_MAX
			Reduce_scatter comm=0 count=4 .* redop=MPI_SUM
			Reduce_scatter_block comm=0 count=1 .* redop=MPI_SUM
			Scan comm=0 count=2
			Exscan comm=0 count=2
			Gather comm=0 count=1 .* root=0
			Gatherv comm=0 count=1 .* root=3
			Scatterv comm=0 count=1 .* root=2
			Allgather comm=0 count=1
			Allgatherv comm=0 count=1
			Alltoall comm=0 count=1
			Alltoallv comm=0 count=4
			Alltoallw comm=0 count=16 dtype=MPI_BYTE
			Neighbor_allgather comm=2 count=2
			Neighbor_allgatherv comm=2 count=1
			Neighbor_alltoall comm=2 count=2
			Neighbor_alltoallv comm=2 count=2
			Neighbor_alltoallw comm=2 count=8
		EOF
		# a start carries the collective's communicator and count, no peer
		q=$(req_of mpi4 $r "op=MPI_Allreduce_init ")
		[ "$(nev mpi4 $r "op=MPI_Start .* comm=0 count=4 dtype=MPI_INT dsize=4 bytes=16 req=$q ")" = 2 ]
		[ "$(nev mpi4 $r "op=MPI_Start .* peer=.* req=$q ")" = 0 ]
	done
}

@test "capture-mpich: MPI-4 Isendrecv(_replace), Comm_idup_with_info, communicators from groups, _c calls" {
	ran_ok mpi4 4
	for r in 0 1 2 3; do
		next=$(((r + 1) % 4)) prev=$(((r + 3) % 4))
		q=$(req_of mpi4 $r "op=MPI_Isendrecv .* comm=0 peer=$next tag=7 rpeer=$prev rtag=7 count=4 dtype=MPI_INT dsize=4 bytes=16 req=[0-9]+ ")
		[ "$(nev mpi4 $r "op=MPI_Wait .* compl=$q:-1:-1:0 ")" = 1 ]
		q=$(req_of mpi4 $r "op=MPI_Isendrecv_replace .* comm=0 peer=$prev tag=8 rpeer=$next rtag=8 count=2 .* req=[0-9]+ ")
		[ "$(nev mpi4 $r "op=MPI_Wait .* compl=$q:-1:-1:0 ")" = 1 ]
		q=$(req_of mpi4 $r "op=MPI_Comm_idup_with_info .* comm=0 req=[0-9]+ ")
		[ "$(nev mpi4 $r "op=MPI_Wait .* compl=$q:-1:-1:0 ")" = 1 ]
		c=$(ev mpi4 $r | grep 'op=MPI_Comm_create_from_group ' | sed -E 's/.* newcomm=([0-9]+) .*/\1/')
		[ -n "$c" ] && [ "$(nev mpi4 $r "op=MPI_Allreduce .* comm=$c count=1 ")" = 1 ]
		c=$(ev mpi4 $r | grep 'op=MPI_Intercomm_create_from_groups .* peer=0 root=0 ' |
			sed -E 's/.* newcomm=([0-9]+) .*/\1/')
		[ -n "$c" ] && [ "$(nev mpi4 $r "op=MPI_Barrier .* comm=$c ")" = 1 ]
		if ((r % 2 == 0)); then
			[ "$(nev mpi4 $r "op=MPI_Send .* comm=0 peer=$next tag=10 count=3 ")" = 1 ]
		else
			[ "$(nev mpi4 $r "op=MPI_Recv .* comm=0 peer=$prev tag=10 count=3 .* compl=0:$prev:10:12 ")" = 1 ]
		fi
		[ "$(nev mpi4 $r "op=MPI_Allreduce .* comm=0 count=2 ")" = 1 ]
		ev mpi4 $r | tail -1 | grep -q "^S .* trailer=1 dropped=0 bad_blocks=0"
	done
}

@test "capture-mpich: Fortran (mpif.h) MPI-4 calls: Isendrecv(_replace), persistent collectives, partitioned" {
	[ -x "$TP/mpi4_mpifh" ] || skip "no MPICH Fortran compiler (mpif90.mpich)"
	local r next prev q s v op
	ran_ok mpi4f 4
	for r in 0 1 2 3; do
		next=$(((r + 1) % 4)) prev=$(((r + 3) % 4))
		q=$(req_of mpi4f $r "op=MPI_Isendrecv .* comm=0 peer=$next tag=7 rpeer=$prev rtag=7 count=4 dtype=MPI_INTEGER dsize=4 bytes=16 req=[0-9]+ ")
		[ "$(nev mpi4f $r "op=MPI_Wait .* compl=$q:-1:-1:0 ")" = 1 ]
		q=$(req_of mpi4f $r "op=MPI_Isendrecv_replace .* comm=0 peer=$prev tag=8 rpeer=$next rtag=8 count=2 .* req=[0-9]+ ")
		[ "$(nev mpi4f $r "op=MPI_Wait .* compl=$q:-1:-1:0 ")" = 1 ]
		for op in "Barrier_init .* comm=0 " "Bcast_init .* comm=0 count=5 dtype=MPI_INTEGER .* root=1 " \
			"Allreduce_init .* comm=0 count=3 .* redop=MPI_SUM " "Allgather_init .* comm=0 count=1 "; do
			q=$(req_of mpi4f $r "op=MPI_$op.*req=[0-9]+ ") || { echo "rank $r: no $op"; return 1; }
			[ "$(nev mpi4f $r "op=MPI_Start .* req=$q ")" = 2 ]
			[ "$(nev mpi4f $r "op=MPI_Request_free .* req=$q ")" = 1 ]
		done
		s=$(req_of mpi4f $r "op=MPI_Psend_init .* comm=0 peer=$next tag=5 count=32 dtype=MPI_INTEGER dsize=4 bytes=128 req=[0-9]+ file=0 off=4 ")
		v=$(req_of mpi4f $r "op=MPI_Precv_init .* comm=0 peer=$prev tag=5 count=32 .* req=[0-9]+ file=0 off=4 ")
		[ "$(nev mpi4f $r "op=MPI_Pready .* peer=$next tag=5 count=1 req=$s file=0 off=0 ")" = 1 ]
		[ "$(nev mpi4f $r "op=MPI_Pready_range .* peer=$next tag=5 count=2 req=$s file=0 off=1 ")" = 1 ]
		[ "$(nev mpi4f $r "op=MPI_Pready_list .* peer=$next tag=5 count=1 req=$s file=0 off=3 ")" = 1 ]
		[ "$(nev mpi4f $r "op=MPI_Parrived .* peer=$prev tag=5 count=1 req=$v file=0 off=3 ")" -ge 1 ]
		[ "$(nev mpi4f $r "op=MPI_Wait .* compl=$v:$prev:5:128 ")" = 1 ]
		[ "$(nev mpi4f $r "op=MPI_Session_init ")" = 1 ]
		[ "$(nev mpi4f $r "op=MPI_Session_finalize ")" = 1 ]
	done
}

@test "capture-mpich: Fortran (mpif.h) persistent v- and w-collectives and MPI-4 communicator constructors" {
	[ -x "$TP/mpi4_mpifh" ] || skip "no MPICH Fortran compiler (mpif90.mpich)"
	local r q op params c
	ran_ok mpi4f 4
	for r in 0 1 2 3; do
		# op, then what its init records
		while read -r op params; do
			q=$(req_of mpi4f $r "op=MPI_${op}_init .*$params.* req=[0-9]+ ") || { echo "rank $r $op"; return 1; }
			[ "$(nev mpi4f $r "op=MPI_Start .* req=$q ")" = 1 ]
			[ "$(nev mpi4f $r "op=MPI_Wait .* compl=$q:-1:-1:0 ")" = 1 ]
			[ "$(nev mpi4f $r "op=MPI_Request_free .* req=$q ")" = 1 ]
		done <<-EOF
			Gatherv comm=0 count=$((r + 1)) dtype=MPI_INTEGER .* root=3
			Scatterv comm=0 count=$((r + 1)) dtype=MPI_INTEGER .* root=2
			Allgatherv comm=0 count=$((r + 1)) dtype=MPI_INTEGER
			Alltoallv comm=0 count=8 dtype=MPI_INTEGER
			Alltoallw comm=0 count=16 dtype=MPI_BYTE
			Reduce_scatter comm=0 count=10 dtype=MPI_INTEGER .* redop=MPI_SUM
			Neighbor_allgatherv comm=[0-9]+ count=2 dtype=MPI_INTEGER
			Neighbor_alltoallv comm=[0-9]+ count=3 dtype=MPI_INTEGER
			Neighbor_alltoallw comm=[0-9]+ count=12 dtype=MPI_BYTE
		EOF
		# and their per-peer counts (the roots': Gatherv's and Scatterv's)
		[ "$(nev mpi4f $r "op=MPI_Gatherv_init .* rc=1,2,3,4 ")" = $((r == 3)) ]
		[ "$(nev mpi4f $r "op=MPI_Scatterv_init .* sc=1,2,3,4 ")" = $((r == 2)) ]
		while read -r op params; do
			[ "$(nev mpi4f $r "op=MPI_${op}_init .* $params ")" = 1 ] || { echo "rank $r $op"; return 1; }
		done <<-EOF
			Allgatherv rc=1,2,3,4
			Alltoallv sc=2,2,2,2 rc=2,2,2,2
			Alltoallw sc=4,4,4,4 rc=4,4,4,4
			Reduce_scatter rc=1,2,3,4
			Neighbor_allgatherv rc=2,2
			Neighbor_alltoallv sc=1,2 rc=2,1
			Neighbor_alltoallw sc=4,8 rc=8,4
		EOF
		q=$(req_of mpi4f $r "op=MPI_Comm_idup_with_info .* comm=0 req=[0-9]+ ")
		[ "$(nev mpi4f $r "op=MPI_Wait .* compl=$q:-1:-1:0 ")" = 1 ]
		c=$(ev mpi4f $r | grep 'op=MPI_Comm_create_from_group ' | sed -E 's/.* newcomm=([0-9]+) .*/\1/')
		[ -n "$c" ] && [ "$(nev mpi4f $r "op=MPI_Allreduce .* comm=$c count=1 ")" = 1 ]
		c=$(ev mpi4f $r | grep 'op=MPI_Intercomm_create_from_groups .* peer=[0-9]+ root=0 ' |
			sed -E 's/.* newcomm=([0-9]+) .*/\1/')
		[ -n "$c" ] && [ "$(nev mpi4f $r "op=MPI_Barrier .* comm=$c ")" = 1 ]
		# each recorded once, by the shim's Fortran binding: its call site is
		# the program's (through MPICH's binding, it would be libmpichfort)
		for op in Gatherv_init Alltoallw_init Neighbor_alltoallw_init Comm_idup_with_info \
			Comm_create_from_group Intercomm_create_from_groups; do
			[ "$(nev mpi4f $r "op=MPI_$op ")" = 1 ]
			c=$(ev mpi4f $r | grep "^E op=MPI_$op " | sed -E 's/.* cs=([0-9a-f]+) .*/\1/')
			ev mpi4f $r | grep "^C .* sig=$c " | grep -q " f0=mpi4_mpifh+" ||
				{ echo "rank $r: $op"; ev mpi4f $r | grep "^C .* sig=$c "; return 1; }
		done
	done
}

@test "capture-mpich: the MPI-4 trace dumps by op name, round-trips exactly through compress --mode none, replays" {
	ran_ok mpi4 4
	run -0 tc dump --rank 1 "$BATS_FILE_TMPDIR/mpi4"
	assert_output --partial MPI_Psend_init
	assert_output --partial MPI_Neighbor_alltoallw_init
	assert_output --partial MPI_Intercomm_create_from_groups
	run -0 tc compress -q --mode none "$BATS_FILE_TMPDIR/mpi4" -o m4.tct
	for r in 0 1 2 3; do
		tc dump --json --rank $r "$BATS_FILE_TMPDIR/mpi4" | sed -E 's/"(callsite_id|t_start|t_end)":[0-9]+,?//g' >d$r
		tc expand --json --rank $r m4.tct | sed -E 's/"(callsite_id|t_start|t_end)":[0-9]+,?//g' >e$r
		[ "$(grep -c '"op":"MPI_Pready_range"' d$r)" = 1 ]
		diff d$r e$r
	done
	# the simulated replay takes every new op: no deadlock, nothing unmatched
	run -0 tc replay --json "$BATS_FILE_TMPDIR/mpi4"
	python3 -c 'import json, sys
d = json.loads(sys.argv[1])
assert not d["deadlock"] and d["unmatched_sends"] == 0 and d["forced"] == 0, d
assert d["collectives"] >= 21, d' "$output"
	run -0 tc replay --json m4.tct
}

@test "make install: both shims and both replays, found by the installed run and accuracy for a LIBDIR of its own; pkg-config links with an rpath" {
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	local p="$BATS_FILE_TMPDIR/inst"
	rm -rf "$p"
	make -s -C "$TC_ROOT" install PREFIX="$p" LIBDIR="$p/lib64" >/dev/null
	[ -f "$p/lib64/libtracecluster-capture.so" ]
	[ -f "$p/lib64/tracecluster/mpich/libtracecluster-capture.so" ]
	run -0 --separate-stderr "$p/bin/tracecluster" -v run -f -o i1 -- mpirun.mpich -launcher fork -np 2 "$TP/ring" 1
	[ "${stderr_lines[0]}" = "tracecluster run: MPI mpich, shim $p/lib64/tracecluster/mpich/libtracecluster-capture.so" ]
	[ "$(ls i1/rank-*.tcr | wc -l)" = 2 ]
	# the replay built against MPICH, which the installed accuracy runs
	# under MPICH's launcher
	[ -x "$p/bin/tracecluster-replay.mpich" ] && [ -x "$p/bin/tracecluster-replay" ]
	# its man page is the replay's, under its own name too
	[ "$(readlink "$p/share/man/man1/tracecluster-replay.mpich.1")" = tracecluster-replay-mpi.1 ]
	[ -f "$p/share/man/man1/tracecluster-replay-mpi.1" ]
	# a sanitizer build's replay is sanitized: leak checking off, as in
	# test/replay-mpi.bats (MPICH's own allocations left at MPI_Finalize)
	case "$B" in
	*san-*address*) export ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" ;;
	esac
	run -0 --separate-stderr "$p/bin/tracecluster" accuracy --json --mode callpath --replay mpi \
		--mpirun "mpirun.mpich -launcher fork" i1
	echo "$output" | python3 -c '
import json, sys
r = json.load(sys.stdin)["replay_mpi"]
assert r["t_s"] > 0 and r["t_clustered_s"] > 0, r'
	run -0 env PKG_CONFIG_PATH="$p/lib64/pkgconfig" pkg-config --libs tracecluster-capture-mpich
	assert_output --partial "-Wl,-rpath,$p/lib64/tracecluster/mpich -ltracecluster-capture"
	run -0 env PKG_CONFIG_PATH="$p/lib64/pkgconfig" pkg-config --cflags tracecluster-capture-mpich
	assert_output --partial "mpich"
	# a program linked against the MPICH shim finds it through the rpath
	mpicc.mpich -o linked "$TC_ROOT/testdata/capture/ring.c" \
		$(PKG_CONFIG_PATH="$p/lib64/pkgconfig" pkg-config --cflags --libs tracecluster-capture-mpich)
	TRACECLUSTER_DIR="$BATS_FILE_TMPDIR/i2" run -0 mpirun.mpich -launcher fork -np 2 ./linked 1
	[ "$(ls "$BATS_FILE_TMPDIR"/i2/rank-*.tcr | wc -l)" = 2 ]
	make -s -C "$TC_ROOT" uninstall PREFIX="$p" LIBDIR="$p/lib64" >/dev/null
	[ ! -e "$p/lib64/tracecluster" ] && [ ! -e "$p/bin/tracecluster-replay.mpich" ]
	[ ! -L "$p/share/man/man1/tracecluster-replay.mpich.1" ]
}
