#!/usr/bin/env bats
# The capture shim (lib/capture/, libtracecluster-capture(3)): real MPI
# runs of the programs in testdata/capture/ with the shim preloaded, each
# checked against what the program did. The traces are read back with
# test/capture/tcr-events (one line per record, see its header comment).
#
# setup_file runs every program once; the tests check the files.

load helper
load capture-common

B="$TC_ROOT/${TC_BUILD:-build/default}"
SHIM="$B/libtracecluster-capture.so"
TP="$B/testdata/capture"
EV="$B/test/capture/tcr-events"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
# a container without ssh: launch locally only
command -v ssh >/dev/null || command -v rsh >/dev/null || export OMPI_MCA_plm=isolated

have_mpi() {
	command -v mpirun >/dev/null && [ -f "$SHIM" ] && [ -x "$EV" ] && [ -x "$TP/ring" ]
}

# trace NAME NP PROGRAM ARGS...: run with the shim into $BATS_FILE_TMPDIR/NAME;
# output in NAME.out, exit status in NAME.rc
trace() {
	local name=$1 np=$2 d="$BATS_FILE_TMPDIR/$1"
	shift 2
	rm -rf "$d"
	timeout 60 mpirun -np "$np" -x LD_PRELOAD="$SHIM" -x TRACECLUSTER_DIR="$d" "$@" \
		>"$d.out" 2>&1
	echo $? >"$d.rc"
}

setup_file() {
	have_mpi || return 0
	cd "$BATS_FILE_TMPDIR" || return 1
	trace ring 4 "$TP/ring" 5
	trace halo 9 "$TP/halo2d" 3 16
	trace coll 4 "$TP/coll"
	trace split 4 "$TP/split"
	trace persist 4 "$TP/persist"
	trace anysrc 4 "$TP/anysrc"
	trace io 4 "$TP/io" "$BATS_FILE_TMPDIR/io.dat"
	trace mt 4 "$TP/mt" 100
	trace mprobe 4 "$TP/mprobe"
	trace neigh 4 "$TP/neigh"
	# Open MPI 4.1's default one-sided component needs RDMA hardware
	(export OMPI_MCA_osc=sm,pt2pt; trace rma 4 "$TP/rma" test)
	trace ionb 4 "$TP/ionb" "$BATS_FILE_TMPDIR/ionb.dat"
	trace intercomm 4 "$TP/intercomm"
	trace connect 4 "$TP/connect" spawn
	# small blocks, so that the parent writes many while its children live
	trace fork 4 -x TRACECLUSTER_BUFFER=4096 "$TP/fork" 2000
	trace fork_unthreaded 4 -x TRACECLUSTER_BUFFER=4096 -x TRACECLUSTER_THREAD=0 "$TP/fork" 2000
	if [ -x "$TP/ring_mpifh" ]; then
		trace fring 4 "$TP/ring_mpifh" 4
		trace fhalo 4 "$TP/halo_usempi"
		trace f08 4 "$TP/coll_f08"
		trace mixed 4 "$TP/mixed"
		(export OMPI_MCA_osc=sm,pt2pt
		 trace fmpi3 4 "$TP/mpi3_usempi" "$BATS_FILE_TMPDIR/fmpi3.dat")
		trace fconnect 4 "$TP/connect_usempi" spawn
		(export OMPI_MCA_osc=sm,pt2pt
		 trace frmaio 4 "$TP/rma_io_usempi" "$BATS_FILE_TMPDIR/frmaio.dat")
	fi
}

setup() {
	have_mpi || skip "no MPI or capture shim built (mpicc not found)"
}

@test "capture: C ring records every call with peers, tags, counts and bytes" {
	check_ring ring
}

@test "capture: two call sites of one function differ, one call site is equal on every rank" {
	ran_ok ring 4
	sig() { ev ring "$1" | grep "op=MPI_Isend .* tag=$2 " | awk '{print $3}' | sort -u; }
	a=$(sig 0 1) b=$(sig 0 2)
	[ "$(echo "$a" | wc -l)" = 1 ] && [ "$(echo "$b" | wc -l)" = 1 ]
	[ "$a" != "$b" ]
	for r in 1 2 3; do
		[ "$(sig $r 1)" = "$a" ]
		[ "$(sig $r 2)" = "$b" ]
		# the whole sequence of ops and call sites is the same
		diff <(ev ring 0 | grep '^E' | awk '{print $2, $3}') <(ev ring $r | grep '^E' | awk '{print $2, $3}')
	done
	# call sites are symbolised at finalize: module + offset + function
	ev ring 0 | grep "^C id=.* sig=${a#cs=} " | tail -1 | grep -q "f0=ring+0x[0-9a-f]*:step_a+0x"
	ev ring 0 | grep "^C id=.* sig=${b#cs=} " | tail -1 | grep -q "f1=ring+0x[0-9a-f]*:main+0x"
}

@test "capture: the cached CFI stack walker records the same call sites as libunwind and backtrace" {
	ran_ok ring 4
	sites() { # the symbolised call-site records of a run, without file-local ids
		for f in "$1"/rank-*.tcr; do "$EV" "$f" | grep '^C .*:main+' | sed 's/^C id=[0-9]* //'; done | sort -u
	}
	for u in libunwind backtrace; do
		TRACECLUSTER_UNWIND=$u run mpirun -np 4 -x LD_PRELOAD="$SHIM" -x TRACECLUSTER_UNWIND \
			-x TRACECLUSTER_DIR="$BATS_TEST_TMPDIR/$u" "$TP/ring" 5
		assert_success
		diff <(sites "$BATS_FILE_TMPDIR/ring") <(sites "$BATS_TEST_TMPDIR/$u")
	done
	[ -x "$TP/coll_f08" ] || return 0
	TRACECLUSTER_UNWIND=libunwind run mpirun -np 4 -x LD_PRELOAD="$SHIM" -x TRACECLUSTER_UNWIND \
		-x TRACECLUSTER_DIR="$BATS_TEST_TMPDIR/f08" "$TP/coll_f08"
	assert_success
	diff <(sites "$BATS_FILE_TMPDIR/f08") <(sites "$BATS_TEST_TMPDIR/f08")
}

@test "capture: file header names rank, world, clock, writer and program" {
	ran_ok ring 4
	run ev ring 2
	assert_line --partial "H rank=2 size=4 depth=8 clock=CLOCK_MONOTONIC writer=tracecluster-capture "
	assert_line --regexp "^H .* program=.*/ring 5$"
	assert_line "M id=0 parent=0 creator=- size=4 members=0,1,2,3"
	assert_line "M id=1 parent=0 creator=- size=1 members=2"
}

@test "capture: the ranks leave MPI_Init together however long the shim's setup takes on one" {
	local d="$BATS_TEST_TMPDIR" slow="$TP/libslowstart.so"
	[ -f "$slow" ]
	# rank 1's setup 800 ms longer than the others'
	run --separate-stderr timeout 60 mpirun -np 4 -x LD_PRELOAD="$slow:$SHIM" \
		-x TRACECLUSTER_DIR="$d/t" -x TC_SLOWSTART_MS=800 -x TC_SLOWSTART_RANKS=1 "$TP/ring" 5
	assert_success
	# rank 1 alone was slowed
	[ "$(grep -c '^slowstart: ' <<<"$stderr")" = 1 ]
	[[ "$stderr" == *"slowstart: rank 1: 800 ms"* ]]
	# each rank's end of MPI_Init on the wall clock: its file's start
	# (the wall clock at its time 0) plus the Init event's end
	for r in 0 1 2 3; do
		"$EV" "$d/t/rank-0000$r.tcr" | awk '
			/^H / { for (i = 1; i <= NF; i++) if ($i ~ /^start=/) s = substr($i, 7) }
			/^E op=MPI_Init / { for (i = 1; i <= NF; i++) if ($i ~ /^[td]=/) e += substr($i, 3) }
			END { printf "%.0f %.0f\n", (s + e) / 1e6, e / 1e6 }'
	done >"$d/ends"
	cat "$d/ends"
	# in MPI_Init 800 ms longer on rank 1, as long on the others, which
	# waited for it; they leave within a fraction of that of each other
	awk '{ if (NR == 1 || $1 < lo) lo = $1; if ($1 > hi) hi = $1; if ($2 < 800) short++ }
		END { exit !(hi - lo < 300 && !short) }' "$d/ends"
}

@test "capture: the trailer gives the shim's own time per call in the compute gaps; tracecluster info reports it" {
	local r
	ran_ok halo 9
	# measured after the recorded end of each op's first 16 calls and a
	# sample of the later ones: a mean of a few hundred ns to a few us,
	# never 0
	for r in 0 4 8; do
		ev halo $r | tail -1 | grep -Eq " tracer_ns=[1-9][0-9]*$"
	done
	run tc info --json "$BATS_FILE_TMPDIR/halo"
	assert_success
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
per = [(f["tracer_ns"], f["events"]) for f in d["files"]]
assert len(per) == 9 and all(0 < v < 10**9 for v, _ in per), per
# the summary is the mean over the calls
mean = sum(v * n for v, n in per) / sum(n for _, n in per)
assert abs(d["tracer_ns"] - mean) <= 1, (d["tracer_ns"], per)
'
	run tc info "$BATS_FILE_TMPDIR/halo"
	assert_line --regexp "^tracer: +[0-9]+ ns per call in the compute gaps \\(mean over the calls\\)$"
	assert_line --regexp "^op +calls +% +tracer ns$"
	assert_line --regexp "^MPI_Waitall +[0-9]+ +[0-9.]+% +[1-9][0-9]*$"
}

@test "capture: the trailer gives the shim's time per call after each op's calls; its mean is theirs weighted by the calls" {
	local r
	ran_ok halo 9
	tc info --json "$BATS_FILE_TMPDIR/halo" >"$BATS_TEST_TMPDIR/info.json"
	for r in 0 4 8; do
		tc dump --json "$BATS_FILE_TMPDIR/halo/rank-0000$r.tcr" >"$BATS_TEST_TMPDIR/$r.jl"
	done
	tc compress -q --mode none --text -o "$BATS_TEST_TMPDIR/g.tct" "$BATS_FILE_TMPDIR/halo"
	python3 - "$BATS_TEST_TMPDIR" <<'PY'
import collections, json, sys
t = sys.argv[1]
d = json.load(open(t + "/info.json"))
# every op recorded was measured: its first calls are
assert set(d["tracer_ops"]) == set(d["ops"]), (d["tracer_ops"], d["ops"])
assert all(0 < v < 10**9 for v in d["tracer_ops"].values()), d["tracer_ops"]
# a file's mean is its ops' weighted by their calls, its events of each
for r in (0, 4, 8):
    f = next(f for f in d["files"] if f["rank"] == r)
    n = collections.Counter(json.loads(l)["op"] for l in open("%s/%d.jl" % (t, r))
                            if '"record":"event"' in l)
    assert set(f["tracer_ops"]) == set(n), (f["tracer_ops"], n)
    mean = sum(f["tracer_ops"][o] * n[o] for o in n) / sum(n.values())
    assert abs(f["tracer_ns"] - mean) <= 1, (r, f["tracer_ns"], mean)
# the global trace: every op once, with the calls of every rank
ops = [l.split() for l in open(t + "/g.tct") if l.startswith("tracer_op ")]
assert sorted(o[1] for o in ops) == sorted(d["ops"]), ops
for _, op, ns, calls in ops:
    assert int(calls) == d["ops"][op], (op, calls, d["ops"][op])
    assert abs(int(ns) - d["tracer_ops"][op]) <= 1, (op, ns, d["tracer_ops"][op])
PY
}

@test "capture: 2D halo exchange on 9 ranks: neighbours as world ranks, PROC_NULL edges, completions" {
	check_halo halo 3
}

@test "capture: collectives and v-variants: roots, counts, vectors, reduction ops, requests" {
	check_coll coll
}

@test "capture: communicator split, dup, create, split_type and Cartesian records" {
	ran_ok split 4
	for r in 0 1 2 3; do
		other=$(((r + 2) % 4)) par=$((r % 2))
		run ev split $r
		# key -rank: sub-rank 0 is the higher world rank of each parity
		if [ $r -lt 2 ]; then members="$other,$r"; else members="$r,$other"; fi
		assert_line "M id=2 parent=0 creator=MPI_Comm_split size=2 members=$members"
		assert_line "M id=3 parent=2 creator=MPI_Comm_dup size=2 members=$members"
		assert_line --regexp "op=MPI_Comm_split .* comm=0 color=$par key=$((-r)) newcomm=2 "
		assert_line --regexp "op=MPI_Send .* comm=2 peer=$other tag=42 count=1 "
		assert_line --regexp "op=MPI_Recv .* comm=2 peer=$other tag=42 .* compl=0:$other:42:4 "
		assert_line --regexp "op=MPI_Allreduce .* comm=2 "
		assert_line --regexp "op=MPI_Comm_dup .* comm=2 newcomm=3 "
		assert_line --regexp "op=MPI_Barrier .* comm=3 "
		assert_line --regexp "^M id=[0-9]+ parent=0 creator=MPI_Comm_split_type size=4 members=0,1,2,3$"
		assert_line --regexp "^M id=[0-9]+ parent=0 creator=MPI_Cart_create size=4 members=0,1,2,3 dims=2x2 periods=1$"
		assert_line --regexp "op=MPI_Comm_split_type .* comm=0 color=[0-9]+ key=$r newcomm="
		assert_line --regexp "op=MPI_Comm_free .* comm=3 "
		assert_line --regexp "op=MPI_Comm_free .* comm=2 "
		if [ $r = 3 ]; then
			assert_line --regexp "op=MPI_Comm_create cs=[0-9a-f]+ comm=0 t="
			refute_line --regexp "op=MPI_Bcast"
		else
			assert_line "M id=4 parent=0 creator=MPI_Comm_create size=3 members=0,1,2"
			assert_line --regexp "op=MPI_Comm_create .* comm=0 newcomm=4 "
			assert_line --regexp "op=MPI_Bcast .* comm=4 .* root=2 "
		fi
	done
}

@test "capture: persistent requests and every completion call link request ids" {
	ran_ok persist 4
	for r in 0 3; do
		next=$(((r + 1) % 4)) prev=$(((r + 3) % 4))
		run ev persist $r
		assert_line --regexp "op=MPI_Recv_init .* peer=$prev tag=5 count=6 .* req=1 "
		assert_line --regexp "op=MPI_Send_init .* peer=$next tag=5 count=6 .* req=2 "
		[ "$(nev persist $r "op=MPI_Startall .* count=2 compl=1:$prev:5:24,2:$next:5:24 ")" = 3 ]
		[ "$(nev persist $r "op=MPI_Waitall .* count=2 compl=1:$prev:5:24,2:-1:-1:0 ")" = 3 ]
		assert_line --regexp "op=MPI_Start .* peer=$prev tag=5 count=6 .* req=1 "
		assert_line --regexp "op=MPI_Start .* peer=$next tag=5 count=6 .* req=2 "
		assert_line --regexp "op=MPI_Wait .* compl=1:$prev:5:24 "
		assert_line --regexp "op=MPI_Wait .* compl=2:-1:-1:0 "
		assert_line --regexp "op=MPI_Request_free .* req=1 "
		assert_line --regexp "op=MPI_Request_free .* req=2 "
		# Irecv 3/Isend 4 by Testany + Waitsome, 5/6 by Testall, 7/8 by Waitany + Test
		[ "$(ev persist $r | grep -E 'op=MPI_(Testany|Waitsome) ' | grep -o 'compl=[^ ]*' | tr ',' '\n' | sed 's/compl=//' | sort | tr '\n' ' ')" = "3:$prev:6:24 4:-1:-1:0 " ]
		assert_line --regexp "op=MPI_Testall .* count=2 compl=5:$prev:7:24,6:-1:-1:0 "
		[ "$(ev persist $r | grep -E 'op=MPI_(Waitany|Test) ' | grep -o 'compl=[^ ]*' | sed 's/compl=//' | sort | tr '\n' ' ')" = "7:$prev:8:24 8:-1:-1:0 " ]
		# a poll that completed nothing lists no completions
		refute_line --regexp "compl= "
	done
}

@test "capture: ANY_SOURCE receives, probes and Iprobe record the actual source" {
	check_anysrc anysrc
}

@test "capture: MPI-IO opens, reads, writes and closes with offsets and counts" {
	ran_ok io 4
	r=2
	run ev io $r
	assert_line --regexp "op=MPI_File_open .* comm=0 file=0 off=0 "
	assert_line --regexp "op=MPI_File_write_at .* count=16 dtype=MPI_INT dsize=4 bytes=64 file=0 off=$((64 * r)) "
	assert_line --regexp "op=MPI_File_write_at_all .* count=16 .* file=0 off=$((64 * (4 + r))) "
	assert_line --regexp "op=MPI_File_read_at .* count=16 .* off=$((64 * r)) "
	assert_line --regexp "op=MPI_File_read_at_all .* count=16 .* off=$((64 * r)) "
	assert_line --regexp "op=MPI_File_read .* count=8 .* bytes=32 file=0 off=$((64 * r)) "
	assert_line --regexp "op=MPI_File_read_all .* count=8 .* off=$((64 * r + 32)) "
	assert_line --regexp "op=MPI_File_write .* count=4 .* off=$((64 * r + 64)) "
	assert_line --regexp "op=MPI_File_write_all .* count=4 .* off=$((64 * r + 80)) "
	assert_line --regexp "op=MPI_File_close .* file=0 "
}

@test "capture: Mprobe/Improbe and Mrecv/Imrecv: actual sources as world ranks, linked by message id" {
	check_mprobe mprobe
}

@test "capture: neighbourhood collectives, blocking and nonblocking: counts per neighbour" {
	check_neigh neigh
}

@test "heatmap --collectives: neighbourhood collectives go to each rank's neighbours, Cartesian and graph" {
	ran_ok neigh 4
	run -0 tc heatmap --collectives --metric bytes -f csv -o "$BATS_TEST_TMPDIR/n.csv" "$BATS_FILE_TMPDIR/neigh"
	# rank r's left neighbour gets the first block of each call, its right
	# one the second: allgather 12, alltoall 16, allgatherv 4 (8 from odd
	# ranks), alltoallv 12 | 16, alltoallw 16, the nonblocking allgather
	# and alltoall 12 and 16; the directed graph ring's calls go to its
	# one out-neighbour, the right one: alltoall 20, the nonblocking
	# alltoallv, allgatherv and alltoallw 4 each
	for r in 0 1 2 3; do
		g=$((4 * (1 + r % 2)))
		printf '%d,%d,%d\n' $r $(((r + 3) % 4)) $((84 + g)) $r $(((r + 1) % 4)) $((88 + g + 32))
	done | sort >"$BATS_TEST_TMPDIR/want"
	awk -F, 'NR > 1 && $3 != 0 { printf "%d,%d,%d\n", $1, $2, $3 }' "$BATS_TEST_TMPDIR/n.csv" | sort >"$BATS_TEST_TMPDIR/got"
	diff "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/got"
}

@test "capture: one-sided: windows, Put/Get/accumulates with targets as world ranks, synchronisation" {
	check_rma rma
}

@test "heatmap: one-sided transfers count, puts towards the target and gets from it" {
	ran_ok rma 4
	run -0 tc heatmap --metric bytes -f csv -o "$BATS_TEST_TMPDIR/rma.csv" "$BATS_FILE_TMPDIR/rma"
	# the bytes each rank's put-side and get-side calls moved, from its records
	for w in 0 1 2 3; do ev rma $w; done | awk '
		/^E op=MPI_(Put|Accumulate|Rput|Raccumulate) / { p += b() }
		/^E op=MPI_(Get|Rget) / { g += b() }
		/^E op=MPI_(Get_accumulate|Rget_accumulate|Fetch_and_op|Compare_and_swap) / { p += b(); g += b() }
		function b(   i) { for (i = 1; i <= NF; i++) if ($i ~ /^bytes=/) return substr($i, 7); return 0 }
		END { print p + g }' >"$BATS_TEST_TMPDIR/want"
	total=$(awk -F, 'NR > 1 { s += $3 } END { print s }' "$BATS_TEST_TMPDIR/rma.csv")
	[ "$total" -gt 0 ]
	[ "$total" = "$(cat "$BATS_TEST_TMPDIR/want")" ]
	# world rank 1's next over the reversed communicator is world rank 0:
	# its put (16) and accumulate (8) at least go 1 -> 0, its get (12)
	# comes 2 -> 1
	awk -F, '$1 == 1 && $2 == 0 && $3 >= 24 { a = 1 } $1 == 2 && $2 == 1 && $3 >= 12 { b = 1 }
		END { exit !(a && b) }' "$BATS_TEST_TMPDIR/rma.csv"
}

@test "capture: nonblocking, shared-pointer and ordered MPI-IO with offsets and requests" {
	check_ionb ionb
}

@test "capture: intercommunicators, merge, dup_with_info, dist_graph_create" {
	check_intercomm intercomm
}

@test "capture: Comm_accept/connect, Comm_spawn and Comm_disconnect: roots, new intercommunicators" {
	check_connect connect
}

@test "capture: each world started by Comm_spawn writes its own trace set in DIR/spawn-N, the parent's stays whole" {
	check_spawn_sets connect
}

@test "capture: a rank that forks keeps its trace exact: children that exit(), run system() or take SIGTERM write nothing" {
	local t r
	for t in fork fork_unthreaded; do
		ran_ok $t 4
		! grep tracecluster-capture "$BATS_FILE_TMPDIR/$t.out" || false
		for r in 0 1 2 3; do
			grep -qx "rank $r: exit 3, system 0, signal 15" "$BATS_FILE_TMPDIR/$t.out"
			[ "$(nev $t $r "op=MPI_Sendrecv .* peer=$(((r + 1) % 4)) tag=1 rpeer=$(((r + 3) % 4)) rtag=1 count=4 .* compl=0:$(((r + 3) % 4)):1:16 ")" = 2000 ]
			[ "$(nev $t $r "op=MPI_(Init|Barrier|Finalize) ")" = 3 ]
			# the child's MPI_Pcontrol(1) is neither recorded nor resumes anything
			[ "$(nev $t $r "op=MPI_Pcontrol ")" = 0 ]
			ev $t $r | tail -1 | grep -q "^S events=2003 blocks=[0-9]* trailer=1 dropped=0 bad_blocks=0 "
			# and tracecluster reads them all
			tc dump "$BATS_FILE_TMPDIR/$t/rank-0000$r.tcr" | grep -c Sendrecv | grep -qx 2000
		done
	done
}

@test "capture: MPI_THREAD_MULTIPLE: four threads' calls all recorded, none twice" {
	ran_ok mt 4
	grep -q multiple "$BATS_FILE_TMPDIR/mt.out" || skip "MPI_THREAD_MULTIPLE not granted"
	for r in 0 1 2 3; do
		next=$(((r + 1) % 4)) prev=$(((r + 3) % 4))
		run ev mt $r
		assert_line --regexp "op=MPI_Init_thread .* count=3 "
		for t in 0 1 2 3; do
			[ "$(nev mt $r "op=MPI_Sendrecv .* peer=$next tag=$t rpeer=$prev rtag=$t count=4 .* compl=0:$prev:$t:16 ")" = 100 ]
		done
		ev mt $r | tail -1 | grep -q "^S events=403 .* trailer=1 dropped=0 bad_blocks=0"
	done
}

@test "capture: Fortran mpif.h: Init, ring, MPI_IN_PLACE and STATUS(ES)_IGNORE" {
	[ -x "$TP/ring_mpifh" ] || skip "no Fortran MPI compiler"
	ran_ok fring 4
	for r in 0 1 2 3; do
		next=$(((r + 1) % 4)) prev=$(((r + 3) % 4))
		run ev fring $r
		assert_line --regexp "op=MPI_Init "
		assert_line --regexp "op=MPI_Finalize "
		[ "$(nev fring $r "op=MPI_Isend .* peer=$next tag=1 count=16 dtype=MPI_INTEGER dsize=4 bytes=64 ")" = 4 ]
		[ "$(nev fring $r "op=MPI_Recv .* peer=$prev tag=1 .* compl=0:$prev:1:64 ")" = 4 ]
		[ "$(nev fring $r "op=MPI_Wait .* compl=[0-9]+:-1:-1:0 ")" = 4 ]
		assert_line --regexp "op=MPI_Allreduce .* count=3 dtype=MPI_INTEGER .* redop=MPI_SUM "
		assert_line --regexp "op=MPI_Waitall .* count=2 compl=[0-9]+:$prev:2:32,[0-9]+:-1:-1:0 "
		assert_line --regexp "op=MPI_Bcast .* count=4 .* root=1 "
		[ "$(ev fring $r | grep -c "^E ")" = 19 ]
	done
	# one call site, one signature on every rank
	for r in 1 2 3; do
		diff <(ev fring 0 | grep '^E' | awk '{print $2, $3}') <(ev fring $r | grep '^E' | awk '{print $2, $3}')
	done
}

@test "capture: Fortran use mpi: Cartesian halo with status arrays, Waitany, Testsome" {
	[ -x "$TP/halo_usempi" ] || skip "no Fortran MPI compiler"
	ran_ok fhalo 4
	for r in 0 3; do
		run ev fhalo $r
		assert_line --regexp "op=MPI_Cart_create .* comm=0 count=2 newcomm=2 "
		assert_line "M id=2 parent=0 creator=MPI_Cart_create size=4 members=0,1,2,3 dims=2x2 periods=0"
		[ "$(nev fhalo $r "op=MPI_Isend .* comm=2 peer=(-3|[0-3]) tag=1[0-3] count=32 dtype=MPI_DOUBLE_PRECISION dsize=8 bytes=256 ")" = 20 ]
		[ "$(nev fhalo $r "op=MPI_Isend .* peer=-3 ")" = 10 ]
		[ "$(nev fhalo $r "op=MPI_Waitall .* count=8 ")" = 5 ]
		assert_line --regexp "op=MPI_Waitany .* count=2 compl="
		assert_line --regexp "op=MPI_Testsome .* count=2 "
		assert_line --regexp "op=MPI_Comm_free .* comm=2 "
	done
	# rank 0 = (0,0): neighbours east 2 and north 1
	[ "$(nev fhalo 0 "op=MPI_Isend .* peer=2 tag=11 ")" = 5 ]
	[ "$(nev fhalo 0 "op=MPI_Isend .* peer=1 tag=13 ")" = 5 ]
	[ "$(ev fhalo 0 | grep 'op=MPI_Waitall' | grep -c 'compl=[0-9]*:-3:-1:0,[0-9]*:2:10:256,[0-9]*:-3:-1:0,[0-9]*:1:12:256,')" = 5 ]
}

@test "capture: Fortran use mpi_f08: collectives, split, ANY_SOURCE, persistent requests" {
	[ -x "$TP/coll_f08" ] || skip "no Fortran MPI compiler"
	ran_ok f08 4
	run ev f08 0
	assert_line --regexp "op=MPI_Init "
	assert_line --regexp "op=MPI_Bcast .* count=10 dtype=MPI_INTEGER .* root=1 "
	assert_line --regexp "op=MPI_Allreduce .* count=3 .* redop=MPI_SUM "
	assert_line --regexp "op=MPI_Reduce .* count=5 .* redop=MPI_MAX root=2 "
	assert_line --regexp "op=MPI_Gatherv .* count=1 .* root=0 rc=1,2,3,4 "
	assert_line --regexp "op=MPI_Alltoallv .* count=10 .* sc=1,2,3,4 rc=1,1,1,1 "
	assert_line --regexp "op=MPI_Comm_split .* color=0 key=0 newcomm=2 "
	assert_line "M id=2 parent=0 creator=MPI_Comm_split size=2 members=0,2"
	for s in 1 2 3; do
		assert_line --regexp "op=MPI_Recv .* peer=-2 tag=-1 count=64 .* compl=0:$s:$((10 * s)):$((4 * s)) "
	done
	assert_line --regexp "op=MPI_Recv_init .* peer=3 tag=5 count=6 .* req=1 "
	assert_line --regexp "op=MPI_Send_init .* peer=1 tag=5 count=6 .* req=2 "
	[ "$(nev f08 0 "op=MPI_Startall .* compl=1:3:5:24,2:1:5:24 ")" = 2 ]
	[ "$(nev f08 0 "op=MPI_Waitall .* compl=1:3:5:24,2:-1:-1:0 ")" = 2 ]
	assert_line --regexp "op=MPI_Iallreduce .* req=3 "
	assert_line --regexp "op=MPI_Wait .* compl=3:-1:-1:0 "
	assert_line --regexp "op=MPI_Finalize "
	assert_line --regexp "^M id=3 parent=0 creator=MPI_Cart_create size=4 members=0,1,2,3 dims=2x2 periods=1$"
	run ev f08 3
	assert_line --regexp "op=MPI_Scatterv .* count=4 .* root=3 sc=1,2,3,4 "
	assert_line --regexp "op=MPI_Send .* peer=0 tag=30 count=3 "
	assert_line --regexp "op=MPI_File_open .* comm=0 file=0 off=0 "
	assert_line --regexp "op=MPI_File_write_at .* count=4 dtype=MPI_INTEGER dsize=4 bytes=16 file=0 off=48 "
	assert_line --regexp "op=MPI_File_close .* file=0 "
	# the blank-padded Fortran file name was trimmed
	[ "$(stat -c %s "$BATS_FILE_TMPDIR/f08io.dat")" = 64 ]
}

@test "capture: Fortran Comm_accept/connect and Comm_spawn record the events of the C program, at the Fortran call sites" {
	[ -x "$TP/connect_usempi" ] || skip "no Fortran compiler"
	check_fconnect connect fconnect
}

@test "capture: Fortran use mpi: PSCW, lock_all epochs, atomics, Win_allocate, Dist_graph_create, shared and ordered MPI-IO" {
	[ -x "$TP/rma_io_usempi" ] || skip "no Fortran compiler"
	local r n p op c
	ran_ok frmaio 4
	for r in 0 1 2 3; do
		n=$(((r + 1) % 4)) p=$(((r + 3) % 4))
		run ev frmaio $r
		assert_line --regexp "op=MPI_Win_allocate .* comm=0 count=4 bytes=64 file=0 off=0 t="
		assert_line --regexp "op=MPI_Win_post .* comm=0 count=1 file=0 off=0 sc=$p t="
		assert_line --regexp "op=MPI_Win_start .* comm=0 count=1 file=0 off=0 sc=$n t="
		assert_line --regexp "op=MPI_Put .* comm=0 peer=$n count=2 dtype=MPI_INTEGER dsize=4 bytes=8 file=0 off=0 t="
		assert_line --regexp "op=MPI_Win_complete .* comm=0 file=0 "
		assert_line --regexp "op=MPI_Win_wait .* comm=0 file=0 "
		assert_line --regexp "op=MPI_Win_lock_all .* comm=0 file=0 "
		assert_line --regexp "op=MPI_Rput .* comm=0 peer=$n count=3 dtype=MPI_INTEGER .* req=1 file=0 off=4 t="
		assert_line --regexp "op=MPI_Rget .* comm=0 peer=$p count=2 dtype=MPI_INTEGER .* req=2 file=0 off=8 t="
		assert_line --regexp "op=MPI_Win_flush .* comm=0 peer=$n file=0 "
		assert_line --regexp "op=MPI_Fetch_and_op .* comm=0 peer=$n count=1 dtype=MPI_INTEGER .* redop=MPI_SUM file=0 off=12 t="
		assert_line --regexp "op=MPI_Compare_and_swap .* comm=0 peer=$n count=1 dtype=MPI_INTEGER .* file=0 off=13 t="
		assert_line --regexp "op=MPI_Win_flush_all .* comm=0 file=0 "
		assert_line --regexp "op=MPI_Win_unlock_all .* comm=0 file=0 "
		assert_line --regexp "op=MPI_Win_free .* comm=0 file=0 "
		assert_line "M id=2 parent=0 creator=MPI_Dist_graph_create size=4 members=0,1,2,3"
		assert_line --regexp "op=MPI_Dist_graph_create .* comm=0 newcomm=2 t="
		# the shared pointer: the ranks in turn, 8 bytes each
		assert_line --regexp "op=MPI_File_write_shared .* count=2 dtype=MPI_INTEGER dsize=4 bytes=8 file=0 off=$((8 * r)) t="
		assert_line --regexp "op=MPI_File_read_shared .* count=2 dtype=MPI_INTEGER .* file=0 off=$((8 * r)) t="
		assert_line --regexp "op=MPI_File_write_ordered .* count=4 dtype=MPI_INTEGER dsize=4 bytes=16 file=0 off=0 t="
		assert_line --regexp "op=MPI_File_read_ordered .* count=4 dtype=MPI_INTEGER .* file=0 off=0 t="
		# each once, at a call site in the Fortran program
		for op in Win_allocate Win_post Win_start Put Win_complete Win_wait Win_lock_all Rput Rget \
			Win_flush Fetch_and_op Compare_and_swap Win_flush_all Win_unlock_all Win_free \
			Dist_graph_create File_write_shared File_read_shared File_write_ordered File_read_ordered; do
			[ "$(nev frmaio $r "op=MPI_$op ")" = 1 ] || { echo "rank $r: $op"; return 1; }
			c=$(ev frmaio $r | grep "^E op=MPI_$op " | sed -E 's/.* cs=([0-9a-f]+) .*/\1/')
			ev frmaio $r | grep "^C .* sig=$c " | tail -1 | grep -q " f0=rma_io_usempi+0x[0-9a-f]*:MAIN__+0x" ||
				{ echo "rank $r: $op"; ev frmaio $r | grep "^C .* sig=$c "; return 1; }
		done
	done
	# and by name in the dump
	run -0 tc dump --rank 2 "$BATS_FILE_TMPDIR/frmaio"
	for op in Win_post Win_start Win_complete Win_wait Win_lock_all Win_flush Rput Rget \
		Fetch_and_op Compare_and_swap Win_allocate Dist_graph_create File_write_shared \
		File_read_shared File_write_ordered File_read_ordered; do
		assert_output --partial "MPI_$op"
	done
}

@test "capture: Fortran use mpi: matched probes, neighbourhood collectives, one-sided, MPI-IO requests, intercommunicators" {
	[ -x "$TP/mpi3_usempi" ] || skip "no Fortran compiler"
	ran_ok fmpi3 4
	run ev fmpi3 0
	# each message once, linked by its id, the source and tag as sent
	for s in 1 2 3; do
		assert_line --regexp "op=MPI_(Mprobe|Improbe) .* comm=0 peer=-2 tag=-1 req=[0-9]+ compl=0:$s:$s:$((8 * s)) "
		assert_line --regexp "op=MPI_(Mrecv|Imrecv) .* comm=0 peer=$s tag=$s count=64 dtype=MPI_INTEGER "
	done
	req=$(ev fmpi3 0 | grep 'op=MPI_Improbe .* compl=' | sed -E 's/.* req=([0-9]+) .*/\1/')
	assert_line --regexp "op=MPI_Imrecv .* req=$req t="
	assert_line --regexp "op=MPI_Wait .* compl=$req:[123]:[123]:[0-9]+ "
	# (an Improbe that found nothing takes no message)
	[ "$(nev fmpi3 0 "op=MPI_(Mprobe|Improbe) .* req=")" = 3 ]
	[ "$(nev fmpi3 0 "op=MPI_(Mrecv|Imrecv) ")" = 3 ]
	for r in 0 1 2 3; do
		n=$(((r + 1) % 4)) p=$(((r + 3) % 4))
		run ev fmpi3 $r
		assert_line --regexp "op=MPI_Neighbor_alltoall .* comm=2 count=3 dtype=MPI_INTEGER dsize=4 bytes=12 t="
		assert_line --regexp "op=MPI_Ineighbor_allgatherv .* comm=2 count=2 .* req=[0-9]+ rc=2,2 t="
		assert_line --regexp "op=MPI_Win_create .* comm=0 count=4 bytes=64 file=0 off=0 t="
		[ "$(nev fmpi3 $r "op=MPI_Win_fence .* comm=0 file=0 ")" = 2 ]
		assert_line --regexp "op=MPI_Put .* comm=0 peer=$n count=4 dtype=MPI_INTEGER .* file=0 off=2 t="
		assert_line --regexp "op=MPI_Get .* comm=0 peer=$p count=2 .* file=0 off=1 t="
		assert_line --regexp "op=MPI_Win_lock .* peer=$n tag=1 file=0 "
		assert_line --regexp "op=MPI_Accumulate .* peer=$n count=1 .* redop=MPI_SUM file=0 off=0 t="
		assert_line --regexp "op=MPI_Win_unlock .* peer=$n file=0 "
		assert_line --regexp "op=MPI_Win_free .* file=0 "
		assert_line --regexp "op=MPI_File_iwrite_at .* count=8 .* req=[0-9]+ file=0 off=$((32 * r)) t="
		assert_line --regexp "op=MPI_File_iread_at .* count=8 .* req=[0-9]+ file=0 off=$((32 * r)) t="
		assert_line --regexp "op=MPI_Intercomm_create .* comm=3 .*tag=5 root=$((r % 2)) newcomm=4 t="
		assert_line --regexp "op=MPI_Intercomm_merge .* comm=4 color=0 key=$((r % 2)) newcomm=5 t="
		assert_line --regexp "op=MPI_Comm_dup_with_info .* comm=0 newcomm=6 t="
		assert_line "M id=5 parent=4 creator=MPI_Intercomm_merge size=4 members=0,2,1,3"
	done
}

@test "capture: Fortran calling C calling MPI: each call recorded once" {
	[ -x "$TP/mixed" ] || skip "no Fortran MPI compiler"
	ran_ok mixed 4
	for r in 0 1 2 3; do
		next=$(((r + 1) % 4)) prev=$(((r + 3) % 4))
		[ "$(nev mixed $r "op=MPI_Send .* peer=$next tag=1 count=4 dtype=MPI_INTEGER ")" = 3 ]
		[ "$(nev mixed $r "op=MPI_Send .* peer=$next tag=2 count=4 dtype=MPI_INT ")" = 3 ]
		[ "$(nev mixed $r "op=MPI_Recv .* peer=$prev ")" = 6 ]
		[ "$(ev mixed $r | grep -c '^E ')" = 14 ]
	done
	# the C sends are inside c_exchange, the Fortran ones are not
	s=$(ev mixed 0 | grep 'op=MPI_Send .* tag=2 ' | awk '{print $3}' | sort -u)
	ev mixed 0 | grep "^C .*sig=${s#cs=} " | tail -1 | grep -q "f0=mixed+0x[0-9a-f]*:c_exchange+"
}

# summary NAME [-s] FILE: the S line (and the first Isend) of a big trace
summary() {
	"$EV" "$@" | grep -E -m1 '^E op=MPI_Isend '
	"$EV" "$@" | tail -1
}

# wait until FILE is over BYTES bytes (at most 10 s)
wait_size() {
	for i in $(seq 100); do
		[ "$(stat -c %s "$1" 2>/dev/null || echo 0)" -gt "$2" ] && return 0
		sleep 0.1
	done
	return 1
}

@test "capture: SIGKILL leaves the file readable up to its last block, SIGTERM flushes it whole" {
	d="$BATS_TEST_TMPDIR"
	mkdir -p "$d/pids"
	TRACECLUSTER_BUFFER=4096 timeout 60 mpirun -np 2 -x LD_PRELOAD="$SHIM" -x TRACECLUSTER_DIR="$d/tr" \
		-x TRACECLUSTER_BUFFER "$TP/ring" 0 "$d/pids" >"$d/out" 2>&1 &
	wait_size "$d/tr/rank-00001.tcr" 20000
	wait_size "$d/pids/pid-1" 0
	kill -KILL "$(cat "$d/pids/pid-1")"
	wait || true
	# rank 1 was killed: no trailer, every complete block readable
	run "$EV" "$d/tr/rank-00001.tcr"
	assert_failure
	[[ "$output" == *"file ends without a trailer block"* ]]
	run summary -s "$d/tr/rank-00001.tcr"
	assert_line --regexp "^S events=[0-9]{3,} .* trailer=0 "
	assert_line --regexp "^E op=MPI_Isend .* tag=1 "
	# rank 0 got SIGTERM from mpirun: flushed and closed
	run summary "$d/tr/rank-00000.tcr"
	assert_line --regexp "^S events=[0-9]{3,} .* trailer=1 dropped=0 bad_blocks=0 "
}

@test "capture: killing the whole job or one rank loses at most about the last second of each rank (12 trials)" {
	d="$BATS_TEST_TMPDIR"
	for trial in $(seq 12); do
		t="$d/t$trial"
		mkdir -p "$t/pids"
		mpirun --oversubscribe -np 4 -x LD_PRELOAD="$SHIM" -x TRACECLUSTER_DIR="$t/tr" \
			"$TP/ring" 0 "$t/pids" >"$t/out" 2>&1 &
		job=$!
		for r in 0 1 2 3; do wait_size "$t/pids/pid-$r" 0; done
		sleep "$(awk -v s="$trial" 'BEGIN { srand(s); printf "%.2f", 1.2 + 1.5 * rand() }')"
		kt=$(date +%s%N)
		if ((trial % 2)); then
			# the whole job at once, as a scheduler at the time limit
			kill -KILL $(cat "$t"/pids/pid-*) "$job" 2>/dev/null || true
		else
			# one rank: mpirun tears the others down
			kill -KILL "$(cat "$t/pids/pid-$((trial / 2 % 4))")"
		fi
		wait "$job" || true
		for r in 0 1 2 3; do
			# every block whole, and the last event ended at most
			# TRACECLUSTER_FLUSH_MS (1 s) and the time to write it
			# before the kill
			"$EV" -s "$t/tr/rank-0000$r.tcr" 2>/dev/null | awk -v k="$kt" -v n="trial $trial rank $r" '
				/^H / { for (i = 1; i <= NF; i++) if ($i ~ /^start=/) start = substr($i, 7) }
				/^E / { ne++; for (i = 1; i <= NF; i++) { if ($i ~ /^t=/) t = substr($i, 3); if ($i ~ /^d=/) dd = substr($i, 3) } }
				/^S / { s = $0 }
				END {
					lost = (k - (start + t + dd)) / 1e9
					printf "%s: %d events, %.2f s lost; %s\n", n, ne, lost, s
					exit !(ne >= 100 && lost <= 1.6 && s ~ / bad_blocks=0 /) }'
		done
	done
}

@test "capture: SIGTERM to a rank writes what it recorded and a trailer" {
	d="$BATS_TEST_TMPDIR"
	mkdir -p "$d/pids"
	timeout 60 mpirun -np 2 -x LD_PRELOAD="$SHIM" -x TRACECLUSTER_DIR="$d/tr" \
		"$TP/ring" 0 "$d/pids" >"$d/out" 2>&1 &
	wait_size "$d/pids/pid-0" 0
	wait_size "$d/tr/rank-00000.tcr" 20000
	kill -TERM "$(cat "$d/pids/pid-0")"
	wait || true
	run summary "$d/tr/rank-00000.tcr"
	assert_line --regexp "^S events=[0-9]{3,} .* trailer=1 dropped=0 bad_blocks=0 "
	assert_line --regexp "^E op=MPI_Isend .* tag=1 "
}

@test "capture: an unwritable directory gives one warning and the job goes on" {
	run --separate-stderr mpirun -np 4 -x LD_PRELOAD="$SHIM" -x TRACECLUSTER_DIR=/dev/null/trace "$TP/ring" 2
	assert_success
	[ "$(grep -c tracecluster-capture <<<"$stderr")" = 1 ]
	[[ "$stderr" == *"cannot create directory '/dev/null/trace': Not a directory (4 of 4 ranks); tracing disabled"* ]]
}

@test "capture: a directory holding another job's trace is never written into; symlinks are not followed" {
	d="$BATS_TEST_TMPDIR/taken"
	mkdir -p "$d"
	echo precious >"$d/victim"
	ln -s "$d/victim" "$d/rank-00001.tcr"
	run --separate-stderr mpirun -np 2 -x LD_PRELOAD="$SHIM" -x TRACECLUSTER_DIR="$d" "$TP/ring" 2
	assert_success
	[ "$(grep -c tracecluster-capture <<<"$stderr")" = 1 ]
	[[ "$stderr" == *"'$d' holds another job's traces; this job writes to '$d/"* ]]
	[ "$(cat "$d/victim")" = precious ]
	sub=$(sed -n "s|.*this job writes to '\(.*\)'.*|\1|p" <<<"$stderr")
	[ -f "$sub/tracecluster.job" ] && [ -f "$sub/rank-00001.tcr" ]
	grep -q "^ranks 2$" "$sub/tracecluster.job"
	# a second job into the same directory: a directory of its own again
	run --separate-stderr mpirun -np 2 -x LD_PRELOAD="$SHIM" -x TRACECLUSTER_DIR="$sub" "$TP/ring" 1
	assert_success
	[[ "$stderr" == *"'$sub' holds another job's traces; this job writes to '$sub/"* ]]
	run "$EV" "$sub/rank-00000.tcr"
	assert_success
	[ "$(grep -c '^E op=MPI_Isend' <<<"$output")" = 4 ]
}

@test "capture: a full disk keeps what fits on every rank, one warning per rank, the job goes on" {
	d="$BATS_TEST_TMPDIR/full"
	mkdir -p "$d"
	# a 200 KiB file system for 8 ranks (where mounting is allowed)
	if mkdir -p "$d/fs" && mount -t tmpfs -o size=200k tmpfs "$d/fs" 2>/dev/null; then
		run --separate-stderr timeout 120 mpirun --oversubscribe -np 8 -x LD_PRELOAD="$SHIM" \
			-x TRACECLUSTER_DIR="$d/fs/tr" "$TP/halo2d" 20000
		status_run=$status
		for r in 0 1 2 3 4 5 6 7; do
			"$EV" -s "$d/fs/tr/rank-0000$r.tcr" 2>/dev/null | tail -1 >"$d/s$r" || true
		done
		umount "$d/fs"
		[ "$status_run" = 0 ]
		[ "$(grep -c 'No space left on device; tracing stopped' <<<"$stderr")" = 8 ]
		for r in 0 1 2 3 4 5 6 7; do
			grep -qE "^S events=[0-9]{4,} .* bad_blocks=0 " "$d/s$r"
		done
	fi
	# during the run: a 32 KiB file size limit (EFBIG) after the first blocks
	run --separate-stderr mpirun -np 2 --mca btl self,tcp -x LD_PRELOAD="$SHIM" \
		-x TRACECLUSTER_DIR="$d/limit" -x TRACECLUSTER_BUFFER=4096 \
		sh -c "trap '' XFSZ; ulimit -f 64; exec '$TP/ring' 5000"
	assert_success
	[ "$(grep -c 'tracing stopped' <<<"$stderr")" = 2 ]
	[[ "$stderr" == *"rank 1: cannot write '$d/limit/rank-00001.tcr': File too large; tracing stopped"* ]]
	run summary -s "$d/limit/rank-00000.tcr"
	assert_line --regexp "^S events=[0-9]{3,} "
}

@test "capture: out of memory in the shim stops tracing on that rank with one warning; the job, and what was written, are unharmed" {
	local d="$BATS_TEST_TMPDIR" fail="$TP/libfailalloc.so" th n r t k total full
	[ -f "$fail" ] && [ -x "$TP/grow" ]
	# grow NAME [MPIRUN-OPTIONS]: testdata/capture/grow 40 on 4 ranks under the
	# shim and libfailalloc.so, each rank's exit status printed after its output
	# no timer flushes: the allocations then come in the same order
	# however loaded the machine is, so the Nth is the same call
	grow() {
		local name=$1
		shift
		timeout 120 mpirun -np 4 -x LD_PRELOAD="$fail:$SHIM" -x TRACECLUSTER_DIR="$d/$name" \
			-x TRACECLUSTER_FLUSH_MS=0 "$@" \
			sh -c '"$0" 40; echo "rank exit $?"' "$TP/grow" >"$d/$name.out" 2>"$d/$name.err"
	}
	# the records of rank $2 of run $1 without their times
	evs() { "$EV" "$d/$1/rank-0000$2.tcr" | grep '^E ' | sed 's/ t=.*//'; }
	# the application alone: its output and exit statuses
	timeout 120 mpirun -np 4 sh -c '"$0" 40; echo "rank exit $?"' "$TP/grow" 2>/dev/null | sort >"$d/plain"
	[ "$(grep -c '^rank exit 3$' "$d/plain")" = 4 ]
	[ "$(grep -c '^rank [0-3]: received [0-9]*, sum 3120$' "$d/plain")" = 4 ]
	for th in 1 0; do
		# traced, counting the shim's allocations (as many on every rank)
		grow ref$th -x TRACECLUSTER_THREAD=$th -x TC_FAILALLOC_COUNT="$d/count$th"
		diff "$d/plain" <(sort "$d/ref$th.out")
		! grep tracecluster-capture "$d/ref$th.err" || false
		total=$(cat "$d/count$th.0")
		[ "$total" -gt 100 ]
		for r in 0 1 2 3; do
			# when not, where the shim allocated differently (offsets in it)
			[ "$(cat "$d/count$th.$r")" = "$total" ] ||
				{ diff "$d/count$th.0.sites" "$d/count$th.$r.sites"; false; }
			"$EV" "$d/ref$th/rank-0000$r.tcr" | tail -1 | grep -q "^S events=5244 .* trailer=1 dropped=0 bad_blocks=0 "
		done
		# ranks 1 and 2 run out: at the first allocation (opening the
		# file in MPI_Init), in the middle of the run (the tables
		# growing, or the writer's buffers), at the last one (symbols in
		# MPI_Finalize)
		for n in 1 $((total / 2)) $total; do
			t=fail$th-$n
			grow $t -x TRACECLUSTER_THREAD=$th -x TC_FAILALLOC=$n -x TC_FAILALLOC_RANKS=1,2
			# the application's output and exit statuses are its own
			diff "$d/plain" <(sort "$d/$t.out")
			# one warning for each of them, and no other
			[ "$(grep -c tracecluster-capture "$d/$t.err")" = 2 ]
			for r in 1 2; do
				grep -qx "tracecluster-capture: rank $r: out of memory (allocating [0-9]* bytes); tracing stopped" "$d/$t.err"
			done
			for r in 0 3; do
				diff <(evs ref$th $r) <(evs $t $r)
				"$EV" "$d/$t/rank-0000$r.tcr" | tail -1 | grep -q "^S events=5244 .* trailer=1 dropped=0 bad_blocks=0 "
			done
			# their files: none (no memory to open one), or whole
			# with a trailer, recording the same calls as far as they go
			for r in 1 2; do
				if [ "$n" = 1 ]; then
					[ ! -e "$d/$t/rank-0000$r.tcr" ]
					continue
				fi
				run "$EV" "$d/$t/rank-0000$r.tcr"
				assert_success
				assert_line --regexp "^S events=[0-9]+ .* trailer=1 dropped=[0-9]+ bad_blocks=0 "
				full=$(evs $t $r)
				k=$(grep -c . <<<"$full" || true)
				diff <(evs ref$th $r | head -n "$k") <(printf '%s' "$full${full:+$'\n'}")
				run tc info "$d/$t"
				assert_success
			done
			if [ "$n" = "$total" ]; then
				# only the symbols were lost: every event is there
				[ "$(evs $t 1 | wc -l)" = 5244 ]
			fi
		done
	done
	# Fortran: arrays the bindings cannot convert without memory go to the
	# MPI library's own binding; the job runs as without the shim
	if [ -x "$TP/halo_usempi" ]; then
		run --separate-stderr timeout 60 mpirun -np 4 -x LD_PRELOAD="$fail:$SHIM" \
			-x TRACECLUSTER_DIR="$d/fortran" -x TC_FAILALLOC=1 -x TC_FAILALLOC_COUNT="$d/fcount" \
			"$TP/halo_usempi"
		assert_success
		[ "$(grep -c 'tracecluster-capture: rank [0-3]: out of memory' <<<"$stderr")" = 4 ]
		[ ! -e "$d/fortran/rank-00000.tcr" ]
		# the Waitall, Waitany and Testsome conversions were refused too
		[ "$(cat "$d/fcount.0")" -gt 3 ]
	fi
}

@test "capture: TRACECLUSTER_STACK_DEPTH and TRACECLUSTER_BUFFER are honoured, bad values warned about" {
	d="$BATS_TEST_TMPDIR"
	TRACECLUSTER_STACK_DEPTH=2 TRACECLUSTER_BUFFER=8K run mpirun -np 2 -x LD_PRELOAD="$SHIM" \
		-x TRACECLUSTER_DIR="$d/a" -x TRACECLUSTER_STACK_DEPTH -x TRACECLUSTER_BUFFER "$TP/ring" 300
	assert_success
	run "$EV" "$d/a/rank-00000.tcr"
	assert_line --regexp "^H rank=0 size=2 depth=2 "
	refute_line --regexp "^C .* n=[3-9] "
	assert_line --regexp "^C .* n=2 f0=ring\+0x[0-9a-f]+:step_a\+0x[0-9a-f]+ f1=ring\+0x[0-9a-f]+:main\+"
	# 8 KiB blocks: several event blocks for 1800 events
	assert_line --regexp "^S events=1806 blocks=([5-9]|[1-9][0-9]+) "
	TRACECLUSTER_STACK_DEPTH=0 run mpirun -np 2 -x LD_PRELOAD="$SHIM" -x TRACECLUSTER_DIR="$d/b" \
		-x TRACECLUSTER_STACK_DEPTH "$TP/ring" 3
	assert_success
	run "$EV" "$d/b/rank-00001.tcr"
	refute_line --regexp "^C "
	assert_line --regexp "op=MPI_Isend cs=- "
	TRACECLUSTER_STACK_DEPTH=99 run --separate-stderr mpirun -np 2 -x LD_PRELOAD="$SHIM" \
		-x TRACECLUSTER_DIR="$d/c" -x TRACECLUSTER_STACK_DEPTH "$TP/ring" 1
	assert_success
	[[ "$stderr" == *"ignoring TRACECLUSTER_STACK_DEPTH='99' (expected 0..32)"* ]]
	run "$EV" "$d/c/rank-00000.tcr"
	assert_line --regexp "^H rank=0 size=2 depth=8 "
}

# isend_durations FILE: "N R K": the Isends of a rank file, how many of them
# last as long as the Isend before them, and how many durations differ
isend_durations() {
	"$EV" "$1" | awk '/^E op=MPI_Isend / { d = $NF; n++; if (d == prev) r++; prev = d; seen[d] = 1 }
		END { for (k in seen) u++; print n, r + 0, u + 0 }'
}

@test "capture: calls that cannot block are timed by one clock read, TRACECLUSTER_DURATIONS=all times every call" {
	local n r u
	d="$BATS_TEST_TMPDIR"
	# the default: an Isend takes the duration estimated from the few
	# Isends timed in full, one in 64 drawn at random
	run mpirun -np 2 -x LD_PRELOAD="$SHIM" -x TRACECLUSTER_DIR="$d/a" "$TP/ring" 200
	assert_success
	read -r n r u < <(isend_durations "$d/a/rank-00000.tcr")
	[ "$n" = 400 ]
	[ $((r * 10)) -ge $((n * 9)) ] || { echo "$r of $n Isends as long as the one before"; false; }
	run "$EV" "$d/a/rank-00000.tcr"
	refute_line --regexp "op=MPI_Isend .* d=0$"
	# a blocking receive is timed in full
	[ "$("$EV" "$d/a/rank-00000.tcr" | grep 'op=MPI_Recv ' | awk '{ print $NF }' | sort -u | wc -l)" -ge 3 ]
	TRACECLUSTER_DURATIONS=all run mpirun -np 2 -x LD_PRELOAD="$SHIM" -x TRACECLUSTER_DIR="$d/b" \
		-x TRACECLUSTER_DURATIONS "$TP/ring" 200
	assert_success
	read -r n r u < <(isend_durations "$d/b/rank-00000.tcr")
	[ "$n" = 400 ] && [ "$u" -ge 3 ]
	TRACECLUSTER_DURATIONS=some run --separate-stderr mpirun -np 2 -x LD_PRELOAD="$SHIM" \
		-x TRACECLUSTER_DIR="$d/c" -x TRACECLUSTER_DURATIONS "$TP/ring" 200
	assert_success
	[[ "$stderr" == *"ignoring TRACECLUSTER_DURATIONS='some' (expected blocking or all)"* ]]
	read -r n r u < <(isend_durations "$d/c/rank-00000.tcr")
	[ $((r * 10)) -ge $((n * 9)) ]
}

@test "capture: default directory, and MPI_Pcontrol(0) pauses recording" {
	cd "$BATS_TEST_TMPDIR"
	run mpirun -np 2 -x LD_PRELOAD="$SHIM" "$TP/ring" 1
	assert_success
	[ -f tracecluster-trace/rank-00000.tcr ] && [ -f tracecluster-trace/rank-00001.tcr ]
	run "$EV" tracecluster-trace/rank-00001.tcr
	# Pcontrol(0), Barrier (not recorded), Pcontrol(1), Barrier
	[ "$(grep -E '^E op=MPI_(Pcontrol|Barrier|Finalize) ' <<<"$output" | awk '{print $2}' | tr '\n' ' ')" = \
		"op=MPI_Pcontrol op=MPI_Pcontrol op=MPI_Barrier op=MPI_Finalize " ]
}

@test "capture: static archive and pkg-config file for link-time use" {
	command -v mpicc >/dev/null || skip "no mpicc"
	pc="$B/tracecluster-capture.pc"
	[ -f "$B/libtracecluster-capture.a" ] && [ -f "$pc" ]
	grep -q '^Libs: -L${libdir} -Wl,-rpath,${libdir} -ltracecluster-capture$' "$pc"
	grep -q '^Cflags:' "$pc"
	grep -q '^Libs.private: .*-ldeflate' "$pc"
	cd "$BATS_TEST_TMPDIR"
	# whole archive before -lmpi: the wrappers take the MPI_ names
	run mpicc -O2 -o ring-static "$TC_ROOT/testdata/capture/ring.c" \
		-Wl,--whole-archive "$B/libtracecluster-capture.a" -Wl,--no-whole-archive -ldeflate -ldl -pthread
	assert_success
	run mpirun -np 2 -x TRACECLUSTER_DIR="$PWD/st" ./ring-static 2
	assert_success
	run "$EV" st/rank-00001.tcr
	assert_success
	[ "$(grep -c 'op=MPI_Isend .* tag=1 ' <<<"$output")" = 2 ]
	assert_line --regexp "^C .* f0=ring-static\+0x[0-9a-f]+:step_a\+"
}

@test "capture: tracecluster run -o DIR -- mpirun ... traces the ranks and passes the exit status" {
	tc run --help >/dev/null 2>&1 || skip "the run command is not in this build"
	cd "$BATS_TEST_TMPDIR"
	run tc run -o out -d 4 -- mpirun -np 2 "$TP/ring" 2
	assert_success
	run "$EV" out/rank-00001.tcr
	assert_success
	assert_line --regexp "^H rank=1 size=2 depth=4 "
	# existing rank files are kept unless --force
	run --separate-stderr tc run -o out -- mpirun -np 2 "$TP/ring" 1
	assert_failure 1
	[[ "$stderr" == *"already holds another job's trace (3 files; use --force to replace it)"* ]]
	run tc run -f -o out -- mpirun -np 2 "$TP/ring" 1
	assert_success
	run tc run -o out2 -- sh -c 'exit 3'
	assert_failure 3
	run tc run
	assert_failure 2
}

@test "capture: tracecluster run passes the shim's variables as -x options when the mpirun line has -x options" {
	tc run --help >/dev/null 2>&1 || skip "the run command is not in this build"
	cd "$BATS_TEST_TMPDIR"
	# Open MPI's mpirun refuses -x beside OMPI_MCA_mca_base_env_list
	TC_PROBE=1 run tc run -o out -d 3 -- mpirun -np 2 -x TC_PROBE "$TP/ring" 2
	assert_success
	run "$EV" out/rank-00001.tcr
	assert_success
	assert_line --regexp "^H rank=1 size=2 depth=3 "
	# what the launcher is given, told by a launcher of Open MPI's name
	mkdir bin
	printf '#!/bin/sh\necho "env_list=${OMPI_MCA_mca_base_env_list:-}"\necho "args=$*"\n' >bin/orterun
	chmod +x bin/orterun
	TRACECLUSTER_FLUSH_MS=50 run tc run -f -o out -d 3 -- "$PWD/bin/orterun" -np 2 -x FOO ./app -x
	assert_success
	assert_line "env_list="
	[[ "$output" == *"args=-x LD_PRELOAD -x "* ]]
	for v in TRACECLUSTER_DIR TRACECLUSTER_STACK_DEPTH TRACECLUSTER_FLUSH_MS; do
		[[ "$output" == *" -x $v "* ]] || false
	done
	[[ "$output" == *" -np 2 -x FOO ./app -x" ]]
	# after a wrapper: the options go after the launcher's name
	run tc run -f -o out -- env A=1 "$PWD/bin/orterun" -np 2 -x FOO ./app
	assert_success
	assert_line "env_list="
	assert_line --regexp "^args=-x LD_PRELOAD -x .* -np 2 -x FOO ./app$"
	# without -x: the list names them, the line is the user's
	TRACECLUSTER_FLUSH_MS=50 run tc run -f -o out -- "$PWD/bin/orterun" -np 2 ./app
	assert_success
	assert_line "args=-np 2 ./app"
	assert_line --regexp "^env_list=(.*;)?LD_PRELOAD;"
	[[ "$output" == *";TRACECLUSTER_FLUSH_MS"* && "$output" == *";TRACECLUSTER_DIR"* ]]
}

# the functions a shim defines in C (defined and exported, named MPI_ and a
# capitalised word), sorted
c_functions() {
	nm -D --defined-only "$1" | awk '$2 == "T" && $3 ~ /^MPI_[A-Z][a-z]/ { print $3 }' | sort -u
}

@test "the man page's recorded calls are the functions the shims define, none listed as not recorded" {
	[ -f "$SHIM" ] || skip "no capture shim built (no mpicc)"
	command -v nm >/dev/null || skip "no nm"
	local page="$TC_ROOT/man/libtracecluster-capture.3" mpich="$B/mpich/libtracecluster-capture.so"
	{ c_functions "$SHIM"; [ ! -f "$mpich" ] || c_functions "$mpich"; } | sort -u >defined
	[ "$(wc -l <defined)" -gt 150 ]
	awk '/^\.SH RECORDED CALLS/ { f = 1 } /^\.SS Not recorded/ { f = 0 } f' "$page" |
		grep -oE 'MPI_[A-Z][a-z][A-Za-z0-9_]*' | sort -u >recorded
	awk '/^\.SS Not recorded/ { f = 1; next } /^\.S[SH] / { f = 0 } f' "$page" |
		grep -oE 'MPI_[A-Z][a-z][A-Za-z0-9_]*' | sort -u >unrecorded
	[ -s recorded ] && [ -s unrecorded ]
	# every function defined is listed as recorded
	comm -23 defined recorded >missing
	[ ! -s missing ] || { echo "defined, not in RECORDED CALLS:"; cat missing; false; }
	# nothing listed as not recorded is defined
	comm -12 defined unrecorded >wrong
	[ ! -s wrong ] || { echo "defined, yet listed as not recorded:"; cat wrong; false; }
	# with both shims, every function listed as recorded is defined by one
	# (the neighbour queries are named as what the record holds)
	if [ -f "$mpich" ]; then
		comm -13 defined recorded | grep -vxE 'MPI_(Dist_graph|Graph)_neighbors' >extra || true
		[ ! -s extra ] || { echo "in RECORDED CALLS, defined by no shim:"; cat extra; false; }
	fi
	# every Fortran binding is one of a function defined in C
	for so in "$SHIM" "$mpich"; do
		[ ! -f "$so" ] || nm -D --defined-only "$so" |
			awk '$2 == "T" && $3 ~ /^mpi_[a-z0-9_]*[a-z0-9]_$/ && $3 !~ /_f08_$/ { print $3 }'
	done | sed -E 's/^mpi_(.)(.*)_$/\1 \2/' | awk '{ print "MPI_" toupper($1) $2 }' | sort -u >fortran
	[ -s fortran ]
	comm -23 fortran defined >fonly
	[ ! -s fonly ] || { echo "Fortran bindings without a C function:"; cat fonly; false; }
}
