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
# $BATS_FILE_TMPDIR/NAME; output in NAME.out, exit status in NAME.rc
trace() {
	local name=$1 np=$2 d="$BATS_FILE_TMPDIR/$1"
	shift 2
	rm -rf "$d"
	timeout 60 mpirun.mpich -launcher fork -np "$np" -genv LD_PRELOAD "$SHIM" \
		-genv TRACECLUSTER_DIR "$d" "$@" >"$d.out" 2>&1
	echo $? >"$d.rc"
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
	trace rma 4 "$TP/rma"
	trace ionb 4 "$TP/ionb" "$BATS_FILE_TMPDIR/ionb.dat"
	trace intercomm 4 "$TP/intercomm"
	trace large 4 "$TP/large"
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
	done
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

@test "make install: both shims, found by the installed run for a LIBDIR of its own; pkg-config links with an rpath" {
	export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
	local p="$BATS_FILE_TMPDIR/inst"
	rm -rf "$p"
	make -s -C "$TC_ROOT" install PREFIX="$p" LIBDIR="$p/lib64" >/dev/null
	[ -f "$p/lib64/libtracecluster-capture.so" ]
	[ -f "$p/lib64/tracecluster/mpich/libtracecluster-capture.so" ]
	run -0 --separate-stderr "$p/bin/tracecluster" -v run -f -o i1 -- mpirun.mpich -launcher fork -np 2 "$TP/ring" 1
	[ "${stderr_lines[0]}" = "tracecluster run: MPI mpich, shim $p/lib64/tracecluster/mpich/libtracecluster-capture.so" ]
	[ "$(ls i1/rank-*.tcr | wc -l)" = 2 ]
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
	[ ! -e "$p/lib64/tracecluster" ]
}
