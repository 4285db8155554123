#!/usr/bin/env bats
# tracecluster-replay, the replay on real MPI ranks: MPI programs traced
# with the capture shim, their traces (raw sets and global traces in each
# form and mode) replayed, and the replay itself traced and compared with
# the original per event (op, peer, tag, count, communicator, sendrecv's
# receive side) by test/tools/cmp-events.py. Skipped without mpicc.

load helper

B="$TC_ROOT/${TC_BUILD:-build/default}"
SHIM="$B/libtracecluster-capture.so"
RP="$B/tracecluster-replay"
CMP="$TC_ROOT/test/tools/cmp-events.py"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
# one-sided communication through these components (as test/capture.bats)
export OMPI_MCA_osc=sm,pt2pt
command -v ssh >/dev/null || command -v rsh >/dev/null || export OMPI_MCA_plm=isolated

# A sanitizer build's replay is sanitized, the shim never is: ASan's
# runtime is preloaded before the shim, and leak checking is off (Open
# MPI's leaks at MPI_Finalize sit in components it has unloaded by then,
# where no suppression can name them).
PRE=
case "$B" in
*san-*address*)
	PRE="$(${CC:-cc} -print-file-name=libasan.so):"
	export ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
	;;
esac

have_mpi() {
	command -v mpirun >/dev/null && [ -x "$RP" ] && [ -f "$SHIM" ] &&
		[ -x "$B/testdata/mpi/cancel" ] && [ -x "$B/testdata/capture/persist" ]
}

# trace NAME PROG [ARGS]: run PROG on 4 ranks with the shim into
# $BATS_FILE_TMPDIR/NAME
trace() {
	local d="$BATS_FILE_TMPDIR/$1"
	shift
	rm -rf "$d"
	timeout 60 mpirun -np 4 -x LD_PRELOAD="$SHIM" -x TRACECLUSTER_DIR="$d" "$@" \
		>"$d.out" 2>&1
}

setup_file() {
	have_mpi || return 0
	cd "$BATS_FILE_TMPDIR" || return 1
	trace cancel "$B/testdata/mpi/cancel"
	trace split "$B/testdata/mpi/split"
	trace tags "$B/testdata/mpi/tags"
	trace subcomm "$B/testdata/mpi/subcomm"
	trace persist "$B/testdata/capture/persist"
	trace mprobe "$B/testdata/capture/mprobe"
	trace coll "$B/testdata/capture/coll"
	trace anysrc "$B/testdata/capture/anysrc"
	trace halo2d "$B/testdata/capture/halo2d"
	trace phases "$B/testdata/capture/phases"
	trace imbalance2 "$B/testdata/mpi/imbalance" two
	trace topo "$B/testdata/mpi/topo"
	trace graph "$B/testdata/mpi/graph"
	trace intercomm "$B/testdata/capture/intercomm"
	trace neigh "$B/testdata/capture/neigh"
	trace io "$B/testdata/capture/io" "$BATS_FILE_TMPDIR/io.dat"
	trace ionb "$B/testdata/capture/ionb" "$BATS_FILE_TMPDIR/ionb.dat"
	trace rma "$B/testdata/capture/rma"
	trace rmatest "$B/testdata/capture/rma" test
}

need_mpi() {
	have_mpi || skip "no MPI (mpicc, mpirun) or tracecluster-replay not built"
}

# replay_traced OUT ARGS...: run the replay on 4 ranks under the shim,
# its trace into OUT
replay_traced() {
	local out=$1
	shift
	rm -rf "$out"
	timeout 120 mpirun -np 4 -x LD_PRELOAD="$PRE$SHIM" -x TRACECLUSTER_DIR="$out" "$RP" --timeout 30 "$@"
}

# same_events ORIG REPLAYED [OPTION...]: every rank's events equal per
# event (test/tools/cmp-events.py with the options); ORIG a global trace
# (*.tct, expanded per rank) or a trace set of any format tracecluster
# reads; NP ranks (default 4)
same_events() {
	local orig=$1 rep=$2 r
	shift 2
	for r in $(seq 0 $((${NP:-4} - 1))); do
		case $orig in
		*.tct) tc expand --json --rank $r "$orig" >a.jl ;;
		*) tc dump --json --rank $r "$orig" >a.jl ;;
		esac || { echo "rank $r of $orig unreadable"; return 1; }
		tc dump --json "$rep/$(printf 'rank-%05d.tcr' $r)" >b.jl ||
			{ echo "rank $r of $rep unreadable"; return 1; }
		run python3 "$CMP" "$@" a.jl b.jl
		[ "$status" -eq 0 ] || { echo "rank $r: $output"; return 1; }
	done
}

@test "tracecluster-replay --help and usage errors need no mpirun" {
	[ -x "$RP" ] || skip "tracecluster-replay not built (no mpicc)"
	run -0 "$RP" --help
	assert_output --partial "usage: mpirun -np P tracecluster-replay"
	run -2 --separate-stderr "$RP"
	assert_equal "${stderr_lines[0]}" "tracecluster-replay: missing TRACE"
	run -2 --separate-stderr "$RP" --compute fast x.tct
	assert_equal "${stderr_lines[0]}" "tracecluster-replay: --compute: expected cpu, spin or sleep, not fast"
	run -2 --separate-stderr "$RP" --timeout 0 x.tct
	run -0 "$RP" --version
	assert_output --partial "tracecluster-replay "
}

@test "the man page lints and names every --help option" {
	[ -x "$RP" ] || skip "tracecluster-replay not built (no mpicc)"
	command -v groff >/dev/null || skip "groff not installed"
	page="$TC_ROOT/man/tracecluster-replay-mpi.1"
	run -0 groff -man -ww -z "$page"
	assert_output ""
	for opt in $("$RP" --help | grep -o -- '--[a-z][a-z-]*' | sort -u); do
		grep -q -- "$(echo "$opt" | sed 's/-/\\\\-/g')" "$page" ||
			{ echo "$page does not mention $opt"; false; }
	done
}

@test "a raw trace set replayed gives back every rank's events exactly" {
	need_mpi
	for p in cancel split subcomm persist coll anysrc halo2d neigh; do
		run replay_traced "rp-$p" --no-compute "$BATS_FILE_TMPDIR/$p"
		[ "$status" -eq 0 ] || { echo "$p: $output"; false; }
		[[ "$output" == *"0 skipped"* ]] || { echo "$p: $output"; false; }
		same_events "$BATS_FILE_TMPDIR/$p" "rp-$p" || { echo "in $p"; false; }
	done
}

@test "one-sided communication, MPI-IO and intercommunicators replay exactly" {
	need_mpi
	mkdir scratch
	for p in rma io ionb intercomm; do
		[ -f "$BATS_FILE_TMPDIR/$p/rank-00003.tcr" ] || { cat "$BATS_FILE_TMPDIR/$p.out"; false; }
		TMPDIR=$PWD/scratch run replay_traced "rp-$p" --no-compute "$BATS_FILE_TMPDIR/$p"
		[ "$status" -eq 0 ] || { echo "$p: $output"; false; }
		[[ "$output" == *", 0 skipped"* ]] || { echo "$p: $output"; false; }
		same_events "$BATS_FILE_TMPDIR/$p" "rp-$p" || { echo "in $p"; false; }
		# the scratch files of MPI-IO are gone with their directory
		assert_equal "$(ls -A scratch)" ""
	done
	# what the original did, the replay did (not counting on the dump's names)
	tc dump rp-rma/rank-00002.tcr >rma.txt
	for op in MPI_Win_create MPI_Put MPI_Get MPI_Accumulate MPI_Fetch_and_op \
		MPI_Compare_and_swap MPI_Get_accumulate MPI_Rput MPI_Rget MPI_Win_fence \
		MPI_Win_lock MPI_Win_unlock MPI_Win_lock_all MPI_Win_flush MPI_Win_post \
		MPI_Win_start MPI_Win_complete MPI_Win_wait MPI_Win_free MPI_Win_allocate; do
		grep -q " $op " rma.txt || { echo "no $op replayed"; false; }
	done
	tc dump rp-ionb/rank-00001.tcr >ionb.txt
	for op in MPI_File_open MPI_File_iwrite_at MPI_File_iread_all MPI_File_write_ordered \
		MPI_File_iwrite_shared MPI_File_close; do
		grep -q " $op " ionb.txt || { echo "no $op replayed"; false; }
	done
}

# rma_details ORIG REPLAYED: per rank, the lock types, displacement units
# and post/start groups of the one-sided calls are the same (ORIG a trace
# set or a global trace); rma_fields prints them (RMA_SETS=1: a group's
# members sorted)
rma_details() {
	local r f
	for r in 0 1 2 3; do
		f=$(printf 'rank-%05d.tcr' $r)
		if [ -d "$1" ]; then tc dump --json "$1/$f"; else tc expand --json --rank $r "$1"; fi |
			rma_fields >a.rma
		tc dump --json "$2/$f" | rma_fields >b.rma
		grep -q MPI_Win_post a.rma
		diff -u a.rma b.rma || return 1
	done
}

rma_fields() {
	python3 -c '
import json, os, sys
for l in sys.stdin:
    e = json.loads(l)
    if e.get("op") in ("MPI_Win_create", "MPI_Win_allocate", "MPI_Win_allocate_shared",
                       "MPI_Win_lock", "MPI_Win_post", "MPI_Win_start"):
        g = e.get("send_counts")
        if g and os.environ.get("RMA_SETS"):
            g = sorted(g)
        print(e["op"], e.get("count"), e.get("tag"), g)'
}

@test "one-sided calls replay with their recorded lock types, displacement units and groups" {
	need_mpi
	local o="$BATS_FILE_TMPDIR/rma"
	# recorded: an exclusive lock (tag 1), the unit of ints, the groups
	tc dump "$o/rank-00001.tcr" >o.txt
	grep -q " MPI_Win_lock .* tag=1 " o.txt
	grep -q " MPI_Win_create .* count=4 " o.txt
	run replay_traced rp-rma --no-compute "$o"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	rma_details "$o" rp-rma
	# a global trace carries them
	tc compress -q --mode none --text -o rma.tct "$o"
	grep -q '^    scounts ' rma.tct
	run replay_traced rp-rma.tct --no-compute rma.tct
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	rma_details rma.tct rp-rma.tct
	# a trace recorded before them (their lines taken out) replays with a
	# shared lock and the groups it infers
	python3 - rma.tct >old.tct <<'PY'
import re, sys
op = None
for l in open(sys.argv[1]):
    m = re.match(r"(MPI_\w+) ", l)
    if m:
        op = m.group(1)
    elif op in ("MPI_Win_lock", "MPI_Win_create", "MPI_Win_allocate", "MPI_Win_allocate_shared",
                "MPI_Win_post", "MPI_Win_start") and re.match(r"    (tag|scounts|count) ", l):
        if not (op in ("MPI_Win_post", "MPI_Win_start") and l.startswith("    count ")):
            continue
    sys.stdout.write(l)
PY
	! grep -q '^    scounts ' old.tct || false
	run replay_traced rp-old --no-compute old.tct
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	assert_output --partial ", 0 skipped"
	tc dump rp-old/rank-00001.tcr >n.txt
	grep -q " MPI_Win_lock .* tag=2 " n.txt
	grep -q " MPI_Win_create .* count=1 " n.txt
	# the groups it inferred have, here, the recorded members (in rank
	# order: the order of a recorded group is kept only when recorded)
	for r in 0 1 2 3; do
		f=$(printf 'rank-%05d.tcr' $r)
		tc dump --json "$o/$f" | RMA_SETS=1 rma_fields | grep -E '^MPI_Win_(post|start) ' >a.pscw
		tc dump --json "rp-old/$f" | RMA_SETS=1 rma_fields | grep -E '^MPI_Win_(post|start) ' >b.pscw
		[ "$(wc -l <a.pscw)" -eq 2 ]
		diff -u a.pscw b.pscw
	done
}

@test "--compute cpu counts the node's cores as its ranks' cores together, bound to one core each or not" {
	need_mpi
	[ "$(nproc)" -ge 2 ] || skip "one core: two ranks cannot be bound to cores of their own"
	local d="$BATS_TEST_TMPDIR/ring2"
	timeout 60 mpirun -np 2 -x LD_PRELOAD="$SHIM" -x TRACECLUSTER_DIR="$d" \
		"$B/testdata/capture/ring" >/dev/null 2>&1
	# bound, each rank's own mask has one core: the node still has two
	run -0 timeout 60 mpirun -np 2 --bind-to core "$RP" --json --no-compute "$d"
	[[ "$output" == *'"node_cores":2,"node_ranks":2,'* ]] || { echo "$output"; false; }
	run -0 timeout 60 mpirun -np 2 --bind-to none "$RP" --json --no-compute "$d"
	[[ "$output" == *"\"node_cores\":$(nproc),\"node_ranks\":2,"* ]] || { echo "$output"; false; }
	run -0 timeout 60 mpirun -np 2 --bind-to core "$RP" --no-compute "$d"
	assert_line "node:     2 ranks on 2 cores"
}

@test "MPI_Win_test replays: the test that found the epoch complete, the open ones left out" {
	need_mpi
	local o="$BATS_FILE_TMPDIR/rmatest" r f
	[ -f "$o/rank-00003.tcr" ] || { cat "$o.out"; false; }
	# every rank ended its second exposure epoch with tests, the last one
	# finding it complete
	for r in 0 1 2 3; do
		f=$(printf 'rank-%05d.tcr' $r)
		tc dump --json "$o/$f" | python3 -c '
import json, sys
t = [json.loads(l).get("count") for l in sys.stdin if "\"MPI_Win_test\"" in l]
assert t and t[-1] == 1 and t.count(1) == 1, t'
	done
	run replay_traced rp-rmatest --no-compute "$o"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	assert_output --partial ", 0 skipped"
	same_events "$o" rp-rmatest --polls
	tc compress -q --mode none -o rmatest.tct "$o"
	run replay_traced rp-rmatest.tct --no-compute rmatest.tct
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	same_events rmatest.tct rp-rmatest.tct --polls
	# with compute gaps too (the open tests' time is in the gaps)
	run -0 mpirun -np 4 "$RP" rmatest.tct
	assert_output --partial "makespan"
}

@test "global traces of one-sided, MPI-IO and intercommunicator programs replay exactly" {
	need_mpi
	for p in rma ionb intercomm; do
		tc compress -q --mode none -o "$p.tct" "$BATS_FILE_TMPDIR/$p"
		run replay_traced "rp-$p.tct" --no-compute "$p.tct"
		[ "$status" -eq 0 ] || { echo "$p: $output"; false; }
		same_events "$BATS_FILE_TMPDIR/$p" "rp-$p.tct" || { echo "in $p.tct"; false; }
	done
}

@test "neighbourhood collectives on a Cartesian grid, Cart_sub, Comm_idup, Comm_create_group" {
	need_mpi
	run replay_traced rp-topo --no-compute "$BATS_FILE_TMPDIR/topo"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	assert_output --partial ", 0 skipped"
	same_events "$BATS_FILE_TMPDIR/topo" rp-topo
	# the same communicators: sizes, members, creators, grids
	for r in 0 1 2 3; do
		f=$(printf 'rank-%05d.tcr' $r)
		tc dump --comms --no-events "$BATS_FILE_TMPDIR/topo/$f" >a.txt
		tc dump --comms --no-events "rp-topo/$f" >b.txt
		grep -q "creator=MPI_Cart_sub" a.txt
		diff -u a.txt b.txt
	done
	tc dump rp-topo/rank-00002.tcr >topo.txt
	for op in MPI_Neighbor_allgather MPI_Neighbor_alltoallw MPI_Ineighbor_alltoallv \
		MPI_Cart_sub MPI_Comm_idup MPI_Comm_create_group; do
		grep -q " $op " topo.txt || { echo "no $op replayed"; false; }
	done
	# from a global trace in each form: its communicator table gives the
	# same communicators
	tc compress -q --mode none -o topo.tct "$BATS_FILE_TMPDIR/topo"
	tc compress -q --mode none --text -o topo.txt.tct "$BATS_FILE_TMPDIR/topo"
	tc compress -q --mode none --json -o topo.json.tct "$BATS_FILE_TMPDIR/topo"
	for t in topo.tct topo.txt.tct topo.json.tct; do
		run replay_traced "rp-$t" --no-compute "$t"
		[ "$status" -eq 0 ] || { echo "$t: $output"; false; }
		assert_output --partial ", 0 skipped"
		same_events "$BATS_FILE_TMPDIR/topo" "rp-$t"
		for r in 0 1 2 3; do
			f=$(printf 'rank-%05d.tcr' $r)
			tc dump --comms --no-events "$BATS_FILE_TMPDIR/topo/$f" >a.txt
			tc dump --comms --no-events "rp-$t/$f" >b.txt
			diff -u a.txt b.txt
		done
	done
}

@test "MPI-4 calls recorded under MPICH replay through their MPI-3 forms, exactly" {
	need_mpi
	local m="$B/mpich"
	command -v mpirun.mpich >/dev/null && [ -f "$m/libtracecluster-capture.so" ] &&
		[ -x "$m/testdata/mpi/mpi4" ] || skip "no MPICH or MPICH capture shim built (make capture-mpich)"
	rm -rf m4
	timeout 60 mpirun.mpich -launcher fork -np 4 -genv LD_PRELOAD "$m/libtracecluster-capture.so" \
		-genv TRACECLUSTER_DIR "$PWD/m4" "$m/testdata/mpi/mpi4" >m4.out 2>&1 || { cat m4.out; false; }
	# Open MPI 4.1 has no MPI-4: each call replays through its MPI-3 form
	run replay_traced rp-m4 --no-compute m4
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	assert_output --partial ", 0 skipped"
	same_events m4 rp-m4 --mpi3
	# and from its global trace, whose communicator table has the groups
	tc compress -q --mode none -o m4.tct m4
	run replay_traced rp-m4.tct --no-compute m4.tct
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	same_events m4.tct rp-m4.tct --mpi3
	tc dump rp-m4/rank-00001.tcr >m4.txt
	for op in MPI_Iallreduce MPI_Ineighbor_alltoallw MPI_Comm_idup MPI_Comm_create_group \
		MPI_Intercomm_create; do
		grep -q " $op " m4.txt || { echo "no $op replayed"; false; }
	done
	# compared as they are, the two differ from the first MPI-4 call on
	tc dump --json m4/rank-00001.tcr >a.jl
	tc dump --json rp-m4/rank-00001.tcr >b.jl
	run -1 python3 "$CMP" a.jl b.jl
	assert_output --partial "event 1: op 'MPI_Psend_init' in the original"
	# and a replay that left out a partitioned send's Isend would differ
	grep -v '"op":"MPI_Isend","peer":2,' b.jl >c.jl
	run -1 python3 "$CMP" --mpi3 a.jl c.jl
}

# comms_of DIR RANK: the rank's communicator table, the in-neighbours of
# an MPI_Dist_graph_create graph sorted (their order is MPI's choice)
comms_of() {
	tc dump --json --comms --no-events "$1/$(printf 'rank-%05d.tcr' "$2")" | python3 -c '
import json, sys
for l in sys.stdin:
    c = json.loads(l)
    if c.get("record") != "comm":
        continue
    if c["creator"] == "MPI_Dist_graph_create":
        w = c.get("source_weights", [0] * len(c["sources"]))
        p = sorted(zip(c["sources"], w))
        c["sources"] = [s for s, _ in p]
        if "source_weights" in c:
            c["source_weights"] = [x for _, x in p]
    print(json.dumps(c, sort_keys=True))'
}

@test "graph topologies: each rank's neighbours are recorded, the edges agree from both ends" {
	need_mpi
	grep -q '^sent ' "$BATS_FILE_TMPDIR/graph.out"
	for r in 0 1 2 3; do
		echo "{\"record\": \"file\", \"rank\": $r}"
		tc dump --json --comms --no-events "$BATS_FILE_TMPDIR/graph/$(printf 'rank-%05d.tcr' $r)"
	done | python3 -c '
import json, sys
from collections import Counter
outs, ins, seen = {}, {}, Counter()
for l in sys.stdin:
    c = json.loads(l)
    if c.get("record") == "file":
        r = c["rank"]
    if c.get("record") != "comm" or "sources" not in c:
        continue
    k = (c["creator"], c["id"])
    seen[k] += 1
    m = c["members"]
    outs.setdefault(k, Counter()).update((m[r], m[d]) for d in c["destinations"])
    ins.setdefault(k, Counter()).update((m[s], m[r]) for s in c["sources"])
    if c["creator"] == "MPI_Dist_graph_create":
        assert "destination_weights" in c, c
    else:
        assert "destination_weights" not in c, c
creators = sorted(set(k[0] for k in seen))
assert creators == ["MPI_Comm_dup", "MPI_Dist_graph_create", "MPI_Dist_graph_create_adjacent",
                    "MPI_Graph_create"], creators
for k in seen:
    assert seen[k] == 4, (k, seen[k])
    assert outs[k] == ins[k], (k, outs[k], ins[k])
# the adjacent graph: r -> r+1, even r also -> r+2
adj = [k for k in seen if k[0] == "MPI_Dist_graph_create_adjacent"][0]
want = Counter([(r, (r + 1) % 4) for r in range(4)] + [(r, (r + 2) % 4) for r in (0, 2)])
assert outs[adj] == want, outs[adj]
# the one named by other ranks: r -> r-1, and 1 -> 3 named by rank 0
dist = [k for k in seen if k[0] == "MPI_Dist_graph_create"][0]
assert outs[dist] == Counter([(r, (r + 3) % 4) for r in range(4)] + [(1, 3)]), outs[dist]
'
}

@test "heatmap --collectives: graph neighbourhood collectives, bytes per directed pair as sent" {
	need_mpi
	tc heatmap --collectives --metric bytes -f csv -o n.csv "$BATS_FILE_TMPDIR/graph"
	grep '^sent ' "$BATS_FILE_TMPDIR/graph.out" | sort >want
	[ "$(wc -l <want)" -ge 8 ]
	awk -F, 'NR > 1 && $3 != 0 { printf "sent %d %d %d\n", $1, $2, $3 }' n.csv | sort >got
	diff -u want got
	# the clustered trace's matrix takes each rank's own edges
	tc heatmap --collectives --metric bytes -f csv --diff --mode callpath-param \
		-o d.csv "$BATS_FILE_TMPDIR/graph"
	awk -F, 'NR > 1 && $3 != $4 { print "differs: " $0 }' d.csv >bad
	[ ! -s bad ] || { head -n 5 d.csv bad; false; }
	# a global trace read alone, whole and filtered by communicator: its
	# communicator table gives the graphs
	tc compress -q --mode none -o g.tct "$BATS_FILE_TMPDIR/graph"
	tc heatmap --collectives --metric bytes -f csv -o t.csv g.tct
	awk -F, 'NR > 1 && $3 != 0 { printf "sent %d %d %d\n", $1, $2, $3 }' t.csv | sort >got2
	diff -u want got2
	tc heatmap --collectives --comm 4 --metric bytes -f csv -o c4.csv "$BATS_FILE_TMPDIR/graph"
	tc heatmap --collectives --comm 4 --metric bytes -f csv -o t4.csv g.tct
	[ "$(awk -F, 'NR > 1 && $3 != 0' c4.csv | wc -l)" -ge 5 ]
	diff -u c4.csv t4.csv
}

@test "graph topologies replay exactly: the same graphs, neighbourhood collectives on them" {
	need_mpi
	run replay_traced rp-graph --no-compute "$BATS_FILE_TMPDIR/graph"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	assert_output --partial ", 0 skipped"
	same_events "$BATS_FILE_TMPDIR/graph" rp-graph
	for r in 0 1 2 3; do
		comms_of "$BATS_FILE_TMPDIR/graph" $r >a.jl
		comms_of rp-graph $r >b.jl
		grep -q '"sources"' a.jl
		diff -u a.jl b.jl
	done
	tc dump rp-graph/rank-00000.tcr >graph.txt
	for op in MPI_Graph_create MPI_Dist_graph_create MPI_Dist_graph_create_adjacent \
		MPI_Neighbor_alltoallv MPI_Ineighbor_alltoallw MPI_Ineighbor_allgather; do
		grep -q " $op " graph.txt || { echo "no $op replayed"; false; }
	done
	# from its global trace in each form, and clustered: the communicator
	# table keeps each rank's edges
	tc compress -q --mode none -o graph.tct "$BATS_FILE_TMPDIR/graph"
	tc compress -q --mode none --text -o graph.txt.tct "$BATS_FILE_TMPDIR/graph"
	tc compress -q --mode none --json -o graph.json.tct "$BATS_FILE_TMPDIR/graph"
	tc compress -q --mode callpath-param -o graph.cp.tct "$BATS_FILE_TMPDIR/graph"
	grep -q '^comm .* creator=MPI_Graph_create .* graph=1 in=' graph.txt.tct
	grep -q '^comm .* creator=MPI_Dist_graph_create .* graph=3 in=.* weights=' graph.txt.tct
	for t in graph.tct graph.txt.tct graph.json.tct graph.cp.tct; do
		run replay_traced "rp-$t" --no-compute "$t"
		[ "$status" -eq 0 ] || { echo "$t: $output"; false; }
		assert_output --partial ", 0 skipped"
		for r in 0 1 2 3; do
			comms_of "$BATS_FILE_TMPDIR/graph" $r >a.jl
			comms_of "rp-$t" $r >b.jl
			diff -u a.jl b.jl || { echo "in $t"; false; }
		done
	done
	for t in graph.tct graph.txt.tct graph.json.tct; do
		same_events "$BATS_FILE_TMPDIR/graph" "rp-$t" || { echo "in $t"; false; }
	done
}

@test "a global trace's communicator table keeps each rank's graph alike in each form; bad graph entries named" {
	need_mpi
	tc compress -q --mode none --text -o g.tct "$BATS_FILE_TMPDIR/graph"
	tc compress -q --mode none --json -o g.json "$BATS_FILE_TMPDIR/graph"
	python3 - g.tct g.json <<'PY'
import json, sys
text = [dict(w.split("=", 1) for w in l.split()[2:]) for l in open(sys.argv[1])
        if l.startswith("comm ") and " graph=" in l]
js = [c for c in json.load(open(sys.argv[2]))["comms"] if "graph" in c]
assert len(text) == len(js) >= 12, (len(text), len(js))
for t, j in zip(text, js):
    g, n = j["graph"], int(t["in"]) + int(t["out"])
    assert int(t["in"]) == len(g["sources"]) and int(t["out"]) == len(g["destinations"]), (t, j)
    assert t.get("edges", "") == ",".join(map(str, g["sources"] + g["destinations"])), (t, j)
    assert (t["graph"] == "3") == ("source_weights" in g), (t, j)
    if "weights" in t:
        assert t["weights"] == ",".join(map(str, g["source_weights"] + g["destination_weights"])), (t, j)
PY
	# a neighbour outside the communicator, weights missing
	n=$(grep -n -m1 '^comm .* graph=3 ' g.tct | cut -d: -f1)
	sed -E "${n}s/ edges=[0-9]+/ edges=9/" g.tct >bad.tct
	run -1 --separate-stderr tc expand --rank 0 bad.tct
	[[ "$stderr" == "tracecluster: 'bad.tct': line $n: a communicator's graph neighbour is not one of its ranks" ]]
	sed -E "${n}s/ weights=.*//" g.tct >bad2.tct
	run -1 --separate-stderr tc expand --rank 0 bad2.tct
	[[ "$stderr" == *"line $n: comm: expected weights= of in + out numbers" ]]
}

@test "what cannot be replayed is refused before the replay, naming the event" {
	need_mpi
	# a global trace without a communicator table (its lines taken out):
	# a graph's edges are unknown
	tc compress -q --mode none --text -o neigh.tct "$BATS_FILE_TMPDIR/neigh"
	grep -q '^comm .* creator=MPI_Dist_graph_create_adjacent .* graph=' neigh.tct
	grep -v '^comm ' neigh.tct >neigh-old.tct
	run timeout 60 mpirun -np 4 "$RP" --no-compute neigh-old.tct
	[ "$status" -eq 1 ]
	assert_output --regexp 'tracecluster-replay: rank [0-3]: event [0-9]+ \(MPI_Neighbor_alltoall\): cannot be replayed: neighbourhood collective on a graph topology, whose edges are in a communicator table'
	refute_output --partial "makespan:"
	# a global trace written before they kept a communicator table (its
	# lines taken out): Cart_sub's kept dimensions are unknown
	tc compress -q --mode none --text -o topo.tct "$BATS_FILE_TMPDIR/topo"
	grep -q '^comm .* creator=MPI_Cart_sub ' topo.tct
	grep -v '^comm ' topo.tct >old.tct
	run timeout 60 mpirun -np 4 "$RP" --no-compute old.tct
	[ "$status" -eq 1 ]
	assert_output --regexp 'rank [0-3]: event [0-9]+ \(MPI_Cart_sub\): cannot be replayed: .*communicator table'
}

@test "matched probes replay without taking a message early; polls that found nothing aside" {
	need_mpi
	# the program polls with MPI_Improbe: whether a poll finds nothing
	# depends on timing, so those are left out of the comparison; one that
	# would take a message the trace receives later is not issued (counted),
	# and one that took a message arriving just after that check holds it
	# for the call of the trace that takes it (then only the receives
	# compare: that call, a probe, is not issued)
	for i in 1 2 3 4 5; do
		run replay_traced "rp-mprobe$i" --no-compute --json "$BATS_FILE_TMPDIR/mprobe"
		[ "$status" -eq 0 ] || { echo "$output"; false; }
		assert_output --partial '"empty_polls":"guard",'
		if [[ $output == *'"polls_took":0,'* ]]; then
			same_events "$BATS_FILE_TMPDIR/mprobe" "rp-mprobe$i" --polls
		else
			same_events "$BATS_FILE_TMPDIR/mprobe" "rp-mprobe$i" --probes
		fi
	done
}

# poll_trace OUT HOW: the --mode none trace of mprobe, made to poll where a
# message is certainly there: ranks 1-3 send before a barrier, after which
# rank 0 polls with an MPI_Improbe that found nothing (the recorded one
# had not yet been sent), then takes the last message with Mprobe + Mrecv
# (HOW mprobe), MPI_Recv (recv), a persistent receive (persist) or an
# MPI_Sendrecv sending to MPI_PROC_NULL (sendrecv)
poll_trace() {
	tc compress -q --mode none --text -o mp.tct "$BATS_FILE_TMPDIR/mprobe"
	python3 - mp.tct "$1" "$2" <<'PY'
import sys
src, out, how = sys.argv[1:4]
lines = open(src).read().split("\n")
i, j = lines.index("trace"), lines.index("end")
recs = []
for l in lines[i + 1:j]:
    if l.startswith(" "):
        recs[-1].append(l)
    else:
        recs.append([l])
op = lambda r: r[0].split()[0]
send = [r for r in recs if op(r) == "MPI_Send"][0]
recs.remove(send)
recs.insert(2, send)
t = "comp=1000.000/0.000/1000/1000 comm=1000.000/0.000/1000/1000"
# the polls that found nothing: only the one inserted below, so that
# whether a message arrives during a poll cannot change what the replay
# reports; the loop of the recorded polls becomes its last, found one
def last(v):
    if not v.startswith("<"):
        return v
    depth, parts, cur = 0, [], ""
    for ch in v[1:-1]:
        depth += ch in "[<"
        depth -= ch in "]>"
        if ch == "," and depth == 0:
            parts.append(cur)
            cur = ""
        else:
            cur += ch
    return (parts + [cur])[-1].split("*")[0]
k = [n for n, r in enumerate(recs) if op(r) == "loop"]
if k:
    k = k[0]
    assert op(recs[k + 1]) == "}" and "MPI_Improbe" in recs[k][1]
    body = [l.strip().split(" ", 1) for l in recs[k][2:]]
    recs[k:k + 2] = [["MPI_Improbe site=5 ranks=[0] n=1 " + t] +
                     ["    %s %s" % (f, last(v)) for f, v in body]]
k = [n for n, r in enumerate(recs) if op(r) == "MPI_Wait"][0]
assert op(recs[k + 1]) == "MPI_Mprobe" and op(recs[k + 2]) == "MPI_Mrecv"
# the message the Mprobe found: [none:PEER:TAG:BYTES]
compl = [l.split()[1] for l in recs[k + 1] if l.split()[0] == "compl"][0]
_, peer, tag, _ = compl.strip("[]").split(":")
args = ["    comm 2", "    peer " + peer, "    tag " + tag, "    count 64",
        "    dtype MPI_INT", "    dtype_size 4"]
if how == "recv":
    recs[k + 1:k + 3] = [["MPI_Recv site=1 ranks=[0] n=1 " + t] + args + ["    compl " + compl]]
elif how == "persist":
    recs[k + 1:k + 3] = [["MPI_Recv_init site=1 ranks=[0] n=1 " + t] + args + ["    request +1"],
                         ["MPI_Start site=7 ranks=[0] n=1 " + t] + args + ["    request +0"],
                         ["MPI_Wait site=9 ranks=[0] n=1 " + t, "    compl [+0:" + compl[6:]],
                         ["MPI_Request_free site=11 ranks=[0] n=1 " + t, "    request +0"]]
elif how == "sendrecv":
    recs[k + 1:k + 3] = [["MPI_Sendrecv site=1 ranks=[0] n=1 " + t, "    comm 2",
                          "    peer null", "    tag 7", "    rpeer " + peer, "    rtag " + tag,
                          "    count 3", "    dtype MPI_INT", "    dtype_size 4",
                          "    compl " + compl]]
recs[k + 1:k + 1] = [["MPI_Barrier site=6 n=4 " + t, "    comm 0"],
                     ["MPI_Improbe site=5 ranks=[0] n=1 " + t, "    comm 2",
                      "    peer any", "    tag -1"]]
open(out, "w").write("\n".join(lines[:i + 1] + [l for r in recs for l in r] + lines[j:]))
PY
}

# received FILE.jsonl: the messages received (source:tag:bytes), in order
received() {
	python3 -c '
import json, sys
for l in open(sys.argv[1]):
    e = json.loads(l)
    if e.get("record") != "event" or not any(k in e["op"] for k in ("Recv", "Mrecv", "Sendrecv", "Wait")):
        continue
    for c in e.get("completions", []):
        if c.get("source") not in (None, "MPI_PROC_NULL"):
            print("%s:%s:%s" % (c["source"], c["tag"], c["bytes"]))
' "$1"
}

@test "a poll that finds a message the trace's poll did not: not issued, or the message held for the call that takes it" {
	need_mpi
	for how in mprobe recv persist sendrecv; do
		poll_trace "p-$how.tct" "$how"
		tc expand --json --rank 0 "p-$how.tct" >a0.jl
		grep -q '"op":"MPI_Improbe","peer":"MPI_ANY_SOURCE","rank":0,"record":"event".*"tag":-1}$' a0.jl
		# the default: the poll would take the message, so it is not issued
		run replay_traced "rp-g-$how" --no-compute --json "p-$how.tct"
		[ "$status" -eq 0 ] || { echo "$output"; false; }
		assert_output --partial '"empty_polls":"guard",'
		assert_output --partial '"polls_took":0,'
		assert_output --partial '"skipped":1,'
		same_events "p-$how.tct" "rp-g-$how" --polls
		# issued: it takes the message, which the Mprobe, the Recv, the
		# persistent receive or the Sendrecv of the trace then
		# receives (a Recv as an MPI_Mrecv, the start as an
		# MPI_Imrecv, a Sendrecv as MPI_Isend, MPI_Mrecv, MPI_Wait)
		run replay_traced "rp-i-$how" --no-compute --json --empty-polls issue "p-$how.tct"
		[ "$status" -eq 0 ] || { echo "$output"; false; }
		assert_output --partial '"empty_polls":"issue",'
		assert_output --partial '"polls_took":1,'
		tc dump --json "rp-i-$how/rank-00000.tcr" >b.jl
		run received a0.jl
		[ "${#lines[@]}" -eq 3 ]
		want=$output
		IFS=: read -r src tag _ <<<"${lines[2]}"
		grep '"op":"MPI_Improbe","peer":"MPI_ANY_SOURCE"' b.jl | grep -q '"source":'"$src"',"tag":'"$tag"'}'
		run received b.jl
		assert_equal "$output" "$want"
		for r in 1 2 3; do
			f=$(printf 'rank-%05d.tcr' $r)
			tc expand --json --rank $r "p-$how.tct" >a.jl
			tc dump --json "rp-i-$how/$f" >b.jl
			run -0 python3 "$CMP" a.jl b.jl
		done
	done
	# the text report says so
	run -0 timeout 60 mpirun -np 4 "$RP" --no-compute --empty-polls issue p-recv.tct
	assert_output --partial "polls:    1 message taken by polls that found none in the trace"
	run -2 --separate-stderr "$RP" --empty-polls maybe p-recv.tct
	assert_equal "${stderr_lines[0]}" "tracecluster-replay: --empty-polls: expected guard or issue, not maybe"
}

@test "every clustering mode's global trace replays exactly: a member keeps its own tags and split keys, chameleon's too" {
	need_mpi
	# tags: a tag of the sender's cell (NPB BT's), which the signatures
	# do not see; split: colours and keys of each rank's own
	for m in callpath callpath-param chameleon dynamic kfarthest kmedoid reference structural; do
		tc compress -q --mode $m -o "tags.$m.tct" "$BATS_FILE_TMPDIR/tags"
		run replay_traced "rp-tags.$m" --no-compute "tags.$m.tct"
		[ "$status" -eq 0 ] || { echo "$m: $output"; false; }
		same_events "$BATS_FILE_TMPDIR/tags" "rp-tags.$m" || { echo "in $m"; false; }
	done
	tc compress -q --mode chameleon --text -o split.ch.tct "$BATS_FILE_TMPDIR/split"
	run replay_traced rp-split.ch --no-compute split.ch.tct
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	same_events "$BATS_FILE_TMPDIR/split" rp-split.ch
	run -0 tc accuracy --mode chameleon "$BATS_FILE_TMPDIR/tags"
	assert_line --regexp 'TAG 100\.00%  COMM 100\.00%$'
	# --lead-only: the papers' merge, the lead's tags stand for its members'
	run -0 tc accuracy --mode chameleon --lead-only "$BATS_FILE_TMPDIR/tags"
	assert_line --regexp 'TAG [0-9]{1,2}\.[0-9]+%'
	run -0 tc accuracy --mode chameleon --lead-only "$BATS_FILE_TMPDIR/split"
	assert_line --regexp 'COMM [0-9]{1,2}\.[0-9]+%$'
}

@test "--mode none in each serialisation replays exactly as the original" {
	need_mpi
	for p in cancel subcomm persist; do
		tc compress -q --mode none -o "$p.tct" "$BATS_FILE_TMPDIR/$p"
		tc compress -q --mode none --text -o "$p.txt.tct" "$BATS_FILE_TMPDIR/$p"
		tc compress -q --mode none --json -o "$p.json.tct" "$BATS_FILE_TMPDIR/$p"
		for t in "$p.tct" "$p.txt.tct" "$p.json.tct"; do
			run replay_traced "rp-$t" --no-compute "$t"
			[ "$status" -eq 0 ] || { echo "$t: $output"; false; }
			same_events "$BATS_FILE_TMPDIR/$p" "rp-$t" || { echo "in $t"; false; }
		done
	done
}

@test "a clustered trace replays as it expands, and the comparison can fail" {
	need_mpi
	tc compress -q --mode callpath -o h.tct "$BATS_FILE_TMPDIR/halo2d"
	run -0 replay_traced rp-h --no-compute h.tct
	same_events h.tct rp-h
	# the checker sees a difference: rank 1's replay against rank 0's trace
	tc dump --json "$BATS_FILE_TMPDIR/halo2d/rank-00000.tcr" >a.jl
	tc dump --json rp-h/rank-00001.tcr >b.jl
	run -1 python3 "$CMP" a.jl b.jl
	assert_output --partial "event "
}

@test "--any-source any posts wildcard receives as recorded, the default names the match" {
	need_mpi
	wild() {
		tc dump "$1" | grep -c 'MPI_I*[Rr]ecv .*MPI_ANY_SOURCE' || true
	}
	o=$(wild "$BATS_FILE_TMPDIR/anysrc/rank-00000.tcr")
	[ "$o" -gt 0 ]
	run -0 replay_traced rp-any --no-compute --any-source any "$BATS_FILE_TMPDIR/anysrc"
	assert_equal "$(wild rp-any/rank-00000.tcr)" "$o"
	run -0 replay_traced rp-rec --no-compute "$BATS_FILE_TMPDIR/anysrc"
	[ "$(wild rp-rec/rank-00000.tcr)" -lt "$o" ]
}

@test "accuracy --replay mpi reports ACC of real replays beside the simulated one" {
	need_mpi
	run -2 --separate-stderr tc accuracy --mode callpath --replay bogus "$BATS_FILE_TMPDIR/halo2d"
	run -0 --separate-stderr tc accuracy --mode callpath --replay mpi "$BATS_FILE_TMPDIR/halo2d"
	assert_line --partial "replay:     "
	assert_line --regexp "^real replay: t [0-9.]+ s, t' [0-9.]+ s, ACC -?[0-9.]+ \(4 MPI ranks, compute cpu\)$"
	run -0 --separate-stderr tc accuracy --mode callpath --replay mpi --no-compute --json \
		"$BATS_FILE_TMPDIR/halo2d"
	echo "$output" | python3 -c '
import json, sys
r = json.load(sys.stdin)["replay_mpi"]
assert r["compute"] == "none" and r["t_s"] > 0 and r["t_clustered_s"] > 0, r
# the times are printed to the nanosecond: the ACC they give agrees to
# that precision, scaled by how far apart they are
tol = 1e-8 * (1 + r["t_clustered_s"] / r["t_s"])
assert abs(r["acc"] - (1 - abs(r["t_s"] - r["t_clustered_s"]) / r["t_s"])) < tol, r'
	# a launcher that fails: the report as it is, the real replay failed
	run -1 --separate-stderr tc accuracy --mode callpath --replay mpi --mpirun false \
		"$BATS_FILE_TMPDIR/halo2d"
	assert_line --partial "matching:   "
	assert_line "real replay: failed (4 MPI ranks, compute cpu)"
	[[ "$stderr" == *"the replay on MPI ranks"* ]]
}

@test "accuracy --replay mpi: the global trace it replays keeps the files' tracer time, as compress's does" {
	need_mpi
	local d="$BATS_TEST_TMPDIR" ns
	# a launcher that keeps each trace it is given and answers a time
	cat >"$d/fake" <<'SH'
#!/bin/sh
eval "t=\"\${$#}\""
[ -d "$t" ] || cp "$t" "$FAKE_DIR/global.tct"
echo '{"makespan_s": 1}'
SH
	export FAKE_DIR="$d"
	run -0 --separate-stderr tc accuracy --mode callpath --replay mpi \
		--mpirun "sh $d/fake" "$BATS_FILE_TMPDIR/halo2d"
	[ -s "$d/global.tct" ]
	ns=$(tc info --json "$BATS_FILE_TMPDIR/halo2d" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["tracer_ns"])')
	[ "$ns" -gt 0 ]
	run -0 --separate-stderr timeout 60 mpirun -np 4 "$RP" --json --no-compute "$d/global.tct"
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["tracer_cost"] == "recorded" and d["tracer_ns"] == int(sys.argv[1]), d
assert d["tracer_removed_s"] > 0, d' "$ns"
}

@test "accuracy --replay-runs N: each replay N times in turns, ACC of the medians, every run's times" {
	need_mpi
	local d="$BATS_TEST_TMPDIR"
	run -2 --separate-stderr tc accuracy --mode callpath --replay mpi --replay-runs 0 \
		"$BATS_FILE_TMPDIR/halo2d"
	[[ "$stderr" == *"--replay-runs: expected 1 to 1000, got '0'"* ]]
	run -2 --separate-stderr tc accuracy --mode callpath --replay-runs 3 "$BATS_FILE_TMPDIR/halo2d"
	[[ "$stderr" == *"--replay-runs: only with --replay mpi"* ]]
	# a launcher that notes which trace it was given and answers the
	# makespans 3 5 1 4 2 6 in the order it is called
	cat >"$d/fake" <<'SH'
#!/bin/sh
n=$(wc -l <"$FAKE_LOG")
eval "echo \"\${$#}\"" >>"$FAKE_LOG"
set -- 3 5 1 4 2 6
shift "$n"
echo "{\"makespan_s\": $1}"
SH
	export FAKE_LOG="$d/log"
	: >"$FAKE_LOG"
	run -0 --separate-stderr tc accuracy --json --mode callpath --replay mpi --replay-runs 3 \
		--mpirun "sh $d/fake" "$BATS_FILE_TMPDIR/halo2d"
	echo "$output" | python3 -c '
import json, sys
r = json.load(sys.stdin)["replay_mpi"]
assert r["runs"] == 3 and r["runs_t_s"] == [3, 4, 2] and r["runs_t_clustered_s"] == [5, 1, 6], r
assert r["t_s"] == 3 and r["t_clustered_s"] == 5 and abs(r["acc"] - 1 / 3) < 1e-9, r'
	# in turns, the first of each pair alternating: the trace set, the
	# global trace, the global trace, the trace set, the trace set, ...
	[ "$(sed -n '1p;4p;5p' "$FAKE_LOG" | sort -u)" = "$BATS_FILE_TMPDIR/halo2d" ]
	[ "$(sed -n '2p;3p;6p' "$FAKE_LOG" | sort -u | wc -l)" = 1 ]
	[ "$(sed -n '2p' "$FAKE_LOG")" != "$BATS_FILE_TMPDIR/halo2d" ]
	# an even count: the mean of the middle two
	: >"$FAKE_LOG"
	run -0 --separate-stderr tc accuracy --mode callpath --replay mpi --replay-runs 2 \
		--mpirun "sh $d/fake" "$BATS_FILE_TMPDIR/halo2d"
	assert_line "real replay: t 3.500000 s, t' 3.000000 s, ACC 0.8571 (medians of 2 runs each, in turns; 4 MPI ranks, compute cpu)"
	assert_line "             t 3.000000 to 4.000000 s, t' 1.000000 to 5.000000 s"
	[ "$(wc -l <"$FAKE_LOG")" = 4 ]
}

# unnamed TCT [--tags]: the text global trace TCT without the sources its
# completions name (request:source:tag:bytes each), with --tags every tag 0
unnamed() {
	python3 -c '
import re, sys
tags = "--tags" in sys.argv[2:]
for line in open(sys.argv[1]):
    if tags:
        line = re.sub(r"^    tag \d+$", "    tag 0", line)
    if line.startswith("    compl "):
        # each [request:source:tag:bytes,...] list (rank lists have no colon)
        def entries(m):
            out = []
            for c in m.group(1).split(","):
                f = c.split(":")
                if len(f) == 4:
                    f[1] = "none"
                    if tags:
                        f[2] = "0"
                out.append(":".join(f))
            return "[" + ",".join(out) + "]"
        line = re.sub(r"\[([^\]]*)\]", entries, line)
    sys.stdout.write(line)' "$@"
}

@test "wildcards of a trace that keeps neither their sources nor the tags: sources inferred by running the ranks' messages" {
	need_mpi
	[ -x "$B/testdata/mpi/wildtag" ] || skip "testdata/mpi/wildtag not built"
	trace wildtag "$B/testdata/mpi/wildtag"
	tc compress -q --mode none --text -o wt.tct "$BATS_FILE_TMPDIR/wildtag"
	# as a ScalaTrace trace may keep them: no source matched, every tag 0
	unnamed wt.tct --tags >lossy.tct
	[ "$(grep -c '^    peer any$' lossy.tct)" -eq 2 ]
	grep -q '^    compl \[.*:none:0:400' lossy.tct
	[ "$(grep -cE '^    tag [1-9]' lossy.tct)" -eq 0 ]
	# posted as wildcards, the small message (sent before the barrier)
	# takes the large receive and the large one (after it) the small
	run -4 --separate-stderr timeout 60 mpirun -np 4 "$RP" --any-source any --timeout 30 lossy.tct
	[[ "$stderr" == *"MPI_ERR_TRUNCATE"* ]]
	# inferred: each receive its own sender, and the replay is exact
	run -0 --separate-stderr replay_traced rp-wt --json lossy.tct
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["wildcards_inferred"] == 2 and d["wildcards_unnamed"] == 0, d'
	tc dump rp-wt/rank-00000.tcr | grep MPI_Irecv >irecv.txt
	sed -n 1p irecv.txt | grep -q ' peer=1 tag=0 count=100 '
	sed -n 2p irecv.txt | grep -q ' peer=2 tag=0 count=10 '
	same_events lossy.tct rp-wt --inferred
	# without --inferred the checker sees named sources where the trace has none
	tc expand --json --rank 0 lossy.tct >a.jl
	tc dump --json rp-wt/rank-00000.tcr >b.jl
	run -1 python3 "$CMP" a.jl b.jl
	assert_output --partial "peer 'MPI_ANY_SOURCE' in the original, 1 replayed"
	# the text says how many
	run -0 --separate-stderr timeout 60 mpirun -np 4 "$RP" --no-compute lossy.tct
	assert_line "wildcards: 2 receives of a source the trace does not name: 2 given the source inferred from the senders' messages, 0 posted as MPI_ANY_SOURCE"
	# the trace's own (the sources recorded): nothing to infer
	run -0 --separate-stderr timeout 60 mpirun -np 4 "$RP" --json --no-compute wt.tct
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["wildcards_inferred"] == 0 and d["wildcards_unnamed"] == 0, d'
}

@test "wildcards whose messages cannot be told in advance stay wildcards, and the replay says why" {
	need_mpi
	local d
	# the capture shim's traces name every source: nothing to infer, a
	# cancelled wildcard receive included
	tc compress -q --mode none --text -o cancel.tct "$BATS_FILE_TMPDIR/cancel"
	grep -q 'MPI_Cancel' cancel.tct
	for d in cancel.tct "$BATS_FILE_TMPDIR/cancel" "$BATS_FILE_TMPDIR/mprobe"; do
		run -0 --separate-stderr timeout 60 mpirun -np 4 "$RP" --json --no-compute "$d"
		echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["wildcards_inferred"] == 0 and d["wildcards_unnamed"] == 0, d'
		[[ "$stderr" != *"cannot be inferred"* ]] || false
	done
	# without their sources: a cancelled wildcard receive took no message
	# (nothing tells that its cancel failed), nothing to infer or to warn of
	unnamed cancel.tct >cancel-nosrc.tct
	grep -q '^    compl \[+0:none:5:4\]@\[0\]|\[+0:none:5:4\]@\[1-3\]$' cancel-nosrc.tct
	run -0 --separate-stderr timeout 60 mpirun -np 4 "$RP" --json --no-compute cancel-nosrc.tct
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["wildcards_inferred"] == 0 and d["wildcards_unnamed"] == 0, d'
	[[ "$stderr" != *"cannot be inferred"* ]] || false
	# matched probes of a source the trace does not name: the simulation
	# cannot tell their messages, every wildcard stays one
	tc compress -q --mode none --text -o mprobe.tct "$BATS_FILE_TMPDIR/mprobe"
	unnamed mprobe.tct >mprobe-nosrc.tct
	run --separate-stderr timeout 60 mpirun -np 4 "$RP" --json --no-compute --timeout 30 mprobe-nosrc.tct
	[[ "$stderr" == *"warning: the sources of wildcard receives the trace does not name cannot be inferred (rank 0 event "*"MPI_Mprobe"*"a wildcard whose message the simulation cannot follow): posted as MPI_ANY_SOURCE"* ]]
	if [ "$status" -eq 0 ]; then
		echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["wildcards_inferred"] == 0 and d["wildcards_unnamed"] > 0, d'
	fi
}

@test "traces of other tools replay as recorded (ScalaTrace V2 CG, LU with sources inferred, loops; DUMPI; OTF2)" {
	need_mpi
	local d
	d=$(shared_dir) || true
	[ -n "$d" ] && [ -d "$d/external-traces/scalatrace-v2" ] || skip "no ../shared/external-traces"
	local X="$d/external-traces" t np n
	for t in scalatrace-v2/ti/cg/A/8/I/0 scalatrace-v2/ti/lu/A/4/I/0 scalatrace-v2/ti/lu/A/8/I/0 \
		scalatrace-v2/td/lu/A/8/I/0 scalatrace-v2/looplcs/testcase_1/0 dumpi/testtrace.meta \
		otf2/score-p-ping-pong/traces.otf2; do
		np=$(tc info --json "$X/$t" | python3 -c 'import json, sys; print(json.load(sys.stdin)["world_size"])')
		rm -rf rp-x
		run -0 --separate-stderr timeout 300 mpirun -np "$np" -x LD_PRELOAD="$PRE$SHIM" \
			-x TRACECLUSTER_DIR="$PWD/rp-x" "$RP" --json --no-compute --timeout 60 "$X/$t"
		n=$(echo "$output" | python3 -c 'import json, sys; print(json.load(sys.stdin)["wildcards_inferred"])')
		case $t in
		*/lu/*) [ "$n" -gt 0 ] || { echo "$t: no wildcard inferred"; false; } ;;
		*) [ "$n" -eq 0 ] ;;
		esac
		NP=$np same_events "$X/$t" rp-x --mpi3 --inferred || { echo "in $t"; false; }
	done
}

@test "accuracy --replay mpi runs the replay program built against the launcher's MPI" {
	need_mpi
	local d="$BATS_TEST_TMPDIR"
	# launchers that note the program they are given and answer a makespan
	mkdir -p "$d/bin"
	for l in mpirun mpirun.mpich mpiexec.hydra; do
		cat >"$d/bin/$l" <<'SH'
#!/bin/sh
while [ "$1" != -np ]; do shift; done
echo "$3" >>"$FAKE_LOG"
echo '{"makespan_s": 1}'
SH
		chmod +x "$d/bin/$l"
	done
	export FAKE_LOG="$d/log"
	# pr LAUNCHER [OPTIONS...]: the programs the two replays ran
	pr() {
		local l=$1
		shift
		: >"$FAKE_LOG"
		tc accuracy --mode callpath --replay mpi --mpirun "$l" "$@" "$BATS_FILE_TMPDIR/halo2d" \
			>/dev/null
		sort -u "$FAKE_LOG"
	}
	local ompi mpich
	ompi=$(pr "$d/bin/mpirun")
	[ "$ompi" = "$B/tracecluster-replay" ]
	# MPICH's by the launcher's name: in the build tree, in mpich/ (else
	# tracecluster-replay.mpich on PATH, where MPICH's compiler is missing)
	mpich=$(pr "$d/bin/mpirun.mpich")
	if [ -x "$B/mpich/tracecluster-replay" ]; then
		[ "$mpich" = "$B/mpich/tracecluster-replay" ]
	else
		[ "$mpich" = tracecluster-replay.mpich ]
	fi
	[ "$(pr "$d/bin/mpiexec.hydra")" = "$mpich" ]
	# by its name on PATH, and by the option whatever the name
	[ "$(PATH="$d/bin:$PATH" pr "mpirun.mpich -launcher fork")" = "$mpich" ]
	[ "$(pr "$d/bin/mpirun" --mpi mpich)" = "$mpich" ]
	[ "$(pr "$d/bin/mpirun.mpich" --mpi openmpi)" = "$ompi" ]
	[ "$(pr "$d/bin/mpirun.mpich" --mpi auto)" = "$mpich" ]
	run -2 --separate-stderr tc accuracy --replay mpi --mpi lam "$BATS_FILE_TMPDIR/halo2d"
	[[ "$stderr" == *"--mpi: expected auto, openmpi or mpich, got 'lam'"* ]]
}

@test "under MPICH: tracecluster-replay.mpich replays exactly, accuracy runs it, the other MPI's program says why it cannot" {
	need_mpi
	local m="$B/mpich"
	command -v mpirun.mpich >/dev/null && [ -x "$m/tracecluster-replay" ] &&
		[ -f "$m/libtracecluster-capture.so" ] ||
		skip "no MPICH or MPICH replay built (make capture-mpich)"
	# an Open MPI job's trace, replayed under MPICH and traced there
	rm -rf rp-mpich
	run -0 timeout 120 mpirun.mpich -launcher fork -np 4 -genv LD_PRELOAD "$PRE$m/libtracecluster-capture.so" \
		-genv TRACECLUSTER_DIR "$PWD/rp-mpich" "$m/tracecluster-replay" --timeout 30 --no-compute \
		"$BATS_FILE_TMPDIR/halo2d"
	assert_output --partial ", 0 skipped"
	same_events "$BATS_FILE_TMPDIR/halo2d" rp-mpich
	# accuracy picks it by the launcher's name
	run -0 --separate-stderr tc accuracy --json --mode callpath --replay mpi \
		--mpirun "mpirun.mpich -launcher fork" "$BATS_FILE_TMPDIR/halo2d"
	echo "$output" | python3 -c '
import json, sys
r = json.load(sys.stdin)["replay_mpi"]
assert r["t_s"] > 0 and r["t_clustered_s"] > 0, r'
	# Open MPI's program under MPICH's launcher: four jobs of one rank
	run -1 --separate-stderr timeout 120 mpirun.mpich -launcher fork -np 4 "$RP" --no-compute \
		"$BATS_FILE_TMPDIR/halo2d"
	[[ "$stderr" == *"the trace is of 4 ranks, the replay runs on 1"* ]]
	[[ "$stderr" == *"the launcher started 4 processes (PMI_SIZE), but each is an MPI job of its own: this program is built against Open MPI"* ]]
	[[ "$stderr" == *"(an MPICH launcher runs tracecluster-replay.mpich)"* ]]
	# and the other way round
	run -1 --separate-stderr timeout 120 mpirun -np 4 "$m/tracecluster-replay" --no-compute \
		"$BATS_FILE_TMPDIR/halo2d"
	[[ "$stderr" == *"the launcher started 4 processes (OMPI_COMM_WORLD_SIZE), but each is an MPI job of its own: this program is built against MPICH"* ]]
	[[ "$stderr" == *"(an Open MPI launcher runs tracecluster-replay)"* ]]
}

@test "accuracy --lead-only: the papers' merge, its matching below 100% where members differ, its real replay where it pairs up" {
	need_mpi
	# by default members keep their own parameters; lead-only on the
	# periodic ring of phases still matches (peers modulo the world) and
	# replays on MPI ranks
	tc accuracy --json --mode callpath "$BATS_FILE_TMPDIR/phases" >d.json
	run -0 --separate-stderr tc accuracy --json --mode callpath --lead-only --replay mpi \
		"$BATS_FILE_TMPDIR/phases"
	echo "$output" >l.json
	python3 -c '
import json, sys
d, l = (json.load(open(f)) for f in sys.argv[1:])
assert d["lead_only"] is False and l["lead_only"] is True, (d, l)
assert l["match"]["src_pct"] == 100 and l["match"]["dest_pct"] == 100, l["match"]
assert l["bytes"] < d["bytes"], (l["bytes"], d["bytes"])
r = l["replay_mpi"]
assert r["t_s"] > 0 and r["t_clustered_s"] > 0 and "error" not in r, r' d.json l.json
	# halo2d's 2x2 grid: the lead's MPI_PROC_NULL edges stand for its
	# members' neighbours: SRC and DEST below 100%, and the real replay of
	# that trace is refused (its messages do not pair up), the rest reported
	run -0 tc accuracy --mode callpath "$BATS_FILE_TMPDIR/halo2d"
	assert_line --regexp 'SRC 100\.00%  DEST 100\.00%'
	run -0 tc accuracy --mode callpath --lead-only "$BATS_FILE_TMPDIR/halo2d"
	assert_line --regexp '^mode: .*\(timing stats, lead-only\)$'
	assert_line --regexp 'SRC [0-9]\.[0-9]+%|SRC [1-9][0-9]\.[0-9]+%'
	refute_line --regexp 'SRC 100\.00%'
	run -1 --separate-stderr tc accuracy --mode callpath --lead-only --replay mpi \
		"$BATS_FILE_TMPDIR/halo2d"
	assert_line --partial "matching:   "
	assert_line "real replay: failed (4 MPI ranks, compute cpu)"
	# the reason is the replay's own, in the one error line (the
	# launcher's report kept out of the way)
	[[ "$stderr" == *"the replay of the callpath global trace on 4 MPI ranks failed: the trace's messages do not pair up: rank "* ]]
	[[ "$stderr" != *"mpirun detected"* ]]
	run -1 --separate-stderr tc accuracy --json --mode callpath --lead-only --replay mpi \
		"$BATS_FILE_TMPDIR/halo2d"
	echo "$output" | python3 -c '
import json, sys
r = json.load(sys.stdin)["replay_mpi"]
assert "failed: the trace\x27s messages do not pair up: rank " in r["error"] and "t_s" not in r, r'
}

@test "accuracy --replay mpi: the global trace's replay has a watchdog of twenty times the trace set's; a failure is named by the replay's own line" {
	local d="$BATS_TEST_TMPDIR"
	# a launcher that logs its arguments, answers 0.7 s for the trace set
	# and, for the global trace, fails as a replay stuck for good does,
	# amid a launcher's own report
	cat >"$d/fake" <<'SH'
#!/bin/sh
echo "$*" >>"$FAKE_LOG"
eval "last=\"\${$#}\""
if [ "$last" = "$FAKE_SET" ]; then echo '{"makespan_s": 0.7}'; exit 0; fi
echo "tracecluster-replay: warning: the sources of wildcard receives the trace does not name cannot be inferred (rank 2, event 4: MPI_Mprobe); they stay wildcards" >&2
echo "tracecluster-replay: rank 3: 2 events of operations not replayed (first: MPI_Comm_spawn)" >&2
echo "--------------------------------------------------" >&2
echo "tracecluster-replay: rank 1 stuck for 14 s at event 9 (MPI_Wait) waiting for event 7 (MPI_Irecv, comm 0, peer 0, tag 5): aborting" >&2
echo "tracecluster-replay: rank 0 stuck for 14 s at event 9 (MPI_Wait) waiting for event 7 (MPI_Irecv, comm 0, peer 1, tag 6): aborting" >&2
echo "mpirun detected that one or more processes exited with non-zero status" >&2
exit 3
SH
	export FAKE_LOG="$d/log" FAKE_SET="$BATS_FILE_TMPDIR/halo2d"
	: >"$FAKE_LOG"
	run -1 --separate-stderr tc accuracy --mode callpath --replay mpi --mpirun "sh $d/fake" \
		"$BATS_FILE_TMPDIR/halo2d"
	assert_line "real replay: failed (4 MPI ranks, compute cpu)"
	[[ "$stderr" == *"the replay of the callpath global trace on 4 MPI ranks failed: rank 1 stuck for 14 s at event 9 (MPI_Wait) waiting for event 7 (MPI_Irecv, comm 0, peer 0, tag 5): aborting" ]]
	# (not the warning nor the note of a rank that went on before it)
	[[ "$stderr" != *"mpirun detected"* && "$stderr" != *"rank 0 stuck"* && "$stderr" != *"warning"* ]]
	# the trace set's replay: the replay's own watchdog; the global
	# trace's: 20 x 0.7 s = 14 s
	[ "$(wc -l <"$FAKE_LOG")" = 2 ]
	[[ "$(sed -n 1p "$FAKE_LOG")" != *"--timeout"* ]]
	[[ "$(sed -n 2p "$FAKE_LOG")" == *" --timeout 14 "* ]]
	# 10 s at least; with -v the launcher's whole report is shown
	sed -i 's/0\.7/0.01/' "$d/fake"
	: >"$FAKE_LOG"
	run -1 --separate-stderr tc -v accuracy --mode callpath --replay mpi --mpirun "sh $d/fake" \
		"$BATS_FILE_TMPDIR/halo2d"
	[[ "$(sed -n 2p "$FAKE_LOG")" == *" --timeout 10 "* ]]
	[[ "$stderr" == *"mpirun detected"* ]]
}

@test "times per rank, as text and as JSON, with and without compute gaps" {
	need_mpi
	run -0 --separate-stderr timeout 60 mpirun -np 4 "$RP" "$BATS_FILE_TMPDIR/split"
	assert_line --partial "ranks:    4,"
	assert_line --regexp '^makespan: [0-9.]+ s \(recorded [0-9.]+ s, ratio [0-9.]+\)$'
	[ "$(echo "$output" | grep -cE '^ +[0-3] +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+$')" -eq 4 ]
	run -0 --separate-stderr timeout 60 mpirun -np 4 "$RP" --json --compute sleep "$BATS_FILE_TMPDIR/split"
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["schema"] == 1 and d["ranks"] == 4 and d["compute"] == "sleep", d
assert [r["rank"] for r in d["per_rank"]] == [0, 1, 2, 3], d
assert d["makespan_s"] == max(r["time_s"] for r in d["per_rank"]), d
assert d["makespan_s"] > 0 and d["recorded_makespan_s"] > 0, d'
	run -0 --separate-stderr timeout 60 mpirun -np 4 "$RP" --json --no-compute "$BATS_FILE_TMPDIR/split"
	echo "$output" | python3 -c '
import json, sys
assert json.load(sys.stdin)["compute"] == "none"'
}

@test "the replay's own time between its calls is part of the gaps: what none had room for is its overrun" {
	need_mpi
	# no gaps left once a tracer's 100 us per call are taken out: none has
	# room for the replay's bookkeeping of any event
	tc synth -q -o tiny --ranks 4 --pattern stencil1d --iters 50 --compute-ns 1 --jitter 0
	for m in spin cpu sleep; do
		run -0 --separate-stderr timeout 60 mpirun -np 4 "$RP" --json --compute $m --tracer-cost 100000 tiny
		echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["overrun_s"] > 0 and d["compute_s"] < 1e-5, d' ||
			{ echo "mode $m: $output"; false; }
	done
	# gaps of 5 ms: room for all of it, but what follows the last one
	tc synth -q -o long --ranks 4 --pattern stencil1d --iters 10 --compute-ns 5000000 --jitter 0
	run -0 --separate-stderr timeout 60 mpirun -np 4 "$RP" --json --compute spin --tracer-cost none long
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert 0 <= d["overrun_s"] < 4 * 100e-6, d
assert d["compute_s"] > 4 * 9 * 0.005, d'
	run -0 --separate-stderr timeout 60 mpirun -np 4 "$RP" --json --no-compute long
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert "overrun_s" not in d and d["compute_s"] == 0, d'
	run -0 --separate-stderr timeout 60 mpirun -np 4 "$RP" --compute cpu --tracer-cost 100000 tiny
	assert_line --regexp "^gaps: +[0-9.]+ s of CPU time computed over the ranks; [0-9.]+ s of the replay's own time between its calls beyond them\$"
}

@test "compute gaps are replayed: a trace of long gaps takes their time" {
	need_mpi
	tc synth -q -o st --ranks 4 --pattern stencil1d --iters 20 --compute-ns 5000000 --jitter 0
	run -0 --separate-stderr timeout 60 mpirun -np 4 "$RP" --json st
	t=$(echo "$output" | python3 -c 'import json,sys; print(json.load(sys.stdin)["makespan_s"])')
	# without the gaps: the fastest of three (on a loaded machine, four
	# ranks polling on two cores may wait whole time slices for a
	# partner, in one replay as long as the gaps)
	t0=
	for i in 1 2 3; do
		run -0 --separate-stderr timeout 60 mpirun -np 4 "$RP" --json --no-compute st
		t0=$(echo "$output" | python3 -c 'import json,sys; t=json.load(sys.stdin)["makespan_s"]; p=sys.argv[1]; print(min(t, float(p)) if p else t)' "$t0")
	done
	# 20 gaps of 5 ms at least
	python3 -c "import sys; sys.exit(0 if $t >= 0.09 and $t > $t0 else 1)" || { echo "t=$t t0=$t0"; false; }
	# CPU time: a whole core's share takes the gaps' time at least
	run -0 --separate-stderr timeout 60 mpirun -np 4 "$RP" --json --compute cpu --cpu-share 1 st
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["compute"] == "cpu" and d["cpu_share"] == 1, d
assert d["makespan_s"] >= 0.09, d'
	t1=$(echo "$output" | python3 -c 'import json,sys; print(json.load(sys.stdin)["makespan_s"])')
	# shares from the timeline: no constant one; 4 ranks in their gaps
	# at once share the cores, a quarter of one each at least: 25 ms of
	# CPU time, which takes as long at least
	run -0 --separate-stderr timeout 60 mpirun -np 4 "$RP" --json --compute cpu st
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["compute"] == "cpu" and "cpu_share" not in d, d
assert d["makespan_s"] >= 0.024 and d["makespan_s"] > '"$t0"', d'
	run -2 --separate-stderr "$RP" --compute cpu --cpu-share 1.5 st
	assert_equal "${stderr_lines[0]}" "tracecluster-replay: --cpu-share: expected a number in (0, 1], not 1.5"
	# other jobs when recorded: their tasks, or the job's share of the
	# node, given (then a gap had less CPU time than without) or measured
	# now (other_load >= 0, node_share in (0, 1])
	for o in "other-load 1000 other_load" "node-share 0.01 node_share" \
		"other-load now other_load" "node-share now node_share"; do
		set -- $o
		run -0 --separate-stderr timeout 60 mpirun -np 4 "$RP" --json --"$1" "$2" st
		echo "$output" | python3 -c '
import json, sys
d, key, given = json.load(sys.stdin), sys.argv[1], sys.argv[2]
assert d["compute"] == "cpu" and "other_load" in d and "node_share" in d, d
if given == "now":
    assert d[key] >= 0 and d["node_share"] <= 1 and d["node_share"] > 0, d
else:
    assert d[key] == float(given) and d["makespan_s"] < '"$t1"', d' "$3" "$2"
	done
	run -2 --separate-stderr "$RP" --other-load lots st
	assert_equal "${stderr_lines[0]}" "tracecluster-replay: --other-load: expected now or a number >= 0, not lots"
	run -2 --separate-stderr "$RP" --node-share 0 st
	assert_equal "${stderr_lines[0]}" "tracecluster-replay: --node-share: expected now or a number in (0, 1], not 0"
}

@test "lead-only traces: a lead's periodic neighbours wrap around the world; messages that do not pair up are refused, naming one" {
	need_mpi
	# phases' ring: rank 0's left neighbour is +3, which rank 2 of the
	# lead's cluster takes as 5 - 4 = 1; the replay gives back every
	# rank's own events
	tc compress -q --mode callpath --lead-only -o pl.tct "$BATS_FILE_TMPDIR/phases"
	tc expand --rank 2 pl.tct | grep -q 'MPI_Sendrecv .* peer=3 .* rpeer=1 '
	run -0 replay_traced rp-pl --no-compute pl.tct
	same_events "$BATS_FILE_TMPDIR/phases" rp-pl
	# halo2d's 2x2 grid is not periodic: the lead's MPI_PROC_NULL edges
	# replace its members' neighbours, whose messages nobody receives
	tc compress -q --mode callpath --lead-only -o hl.tct "$BATS_FILE_TMPDIR/halo2d"
	run timeout 60 mpirun -np 4 "$RP" --no-compute --timeout 20 hl.tct
	[ "$status" -eq 1 ]
	assert_output --regexp "tracecluster-replay: the trace's messages do not pair up: rank [0-3] sends [0-9]+ messages? of tag -?[0-9]+ to rank [0-3], which receives [0-9]+ of them; the first unreceived: rank [0-3] event [0-9]+ \\(MPI_Isend, comm [0-9]+, peer [0-3], tag -?[0-9]+\\) \\(--force replays it as it is\\)"
	refute_output --partial "stuck for"
	refute_output --partial "makespan:"
	# the event named is the first send of that tag to that rank its
	# receiver has no receive for, and the counts are the trace's
	local m s n t d r ev
	m=$(echo "$output" | sed -n 's/.*rank \([0-3]\) sends \([0-9]*\) messages* of tag \([0-9-]*\) to rank \([0-3]\), which receives \([0-9]*\) .* event \([0-9]*\) .*/\1 \2 \3 \4 \5 \6/p')
	read -r s n t d r ev <<<"$m"
	[ -n "$ev" ] && [ "$n" -gt "$r" ]
	[[ "$output" == *"event $ev (MPI_Isend, comm "*", peer $d, tag $t) (--force"* ]]
	tc expand --rank "$s" hl.tct | grep " MPI_I*send .* peer=$d tag=$t " >snd.txt
	tc expand --rank "$d" hl.tct | grep " MPI_I*recv .* peer=$s tag=$t " >rcv.txt || true
	[ "$(wc -l <snd.txt)" = "$n" ] && [ "$(wc -l <rcv.txt)" = "$r" ]
	[ "$(awk -v k="$r" 'NR == k + 1 { print $1 }' snd.txt)" = "$ev" ]
	# --force: replayed as it is, a warning, and the watchdog stops it
	run timeout 60 mpirun -np 4 "$RP" --no-compute --force --timeout 2 hl.tct
	[ "$status" -ne 0 ] && [ "$status" -ne 124 ]
	assert_output --partial "tracecluster-replay: warning: the trace's messages do not pair up: "
	assert_output --partial "; replayed as it is"
	# a wait names the calls of the requests it waits for
	assert_output --regexp 'rank [0-3] stuck for [0-9]+ s at event [0-9]+ \(MPI_Waitall\) waiting for event [0-9]+ \(MPI_Irecv, comm [0-9]+, peer (MPI_PROC_NULL|[0-3]), tag [0-9]+\)(, event [0-9]+ \(MPI_I(recv|send), [^)]*\)){3} and [0-9]+ more: aborting'
	# more receives than sends, named where they are: phases' sends of
	# ranks 0 and 2 to their right neighbours taken out
	tc compress -q --mode none --text -o ph.tct "$BATS_FILE_TMPDIR/phases"
	awk '/^  MPI_Send / { s = 1 } s && /^      peer / { sub(/peer .*/, "peer null"); s = 0 } { print }' \
		ph.tct >ph-bad.tct
	! cmp -s ph.tct ph-bad.tct || false
	run timeout 60 mpirun -np 4 "$RP" --no-compute --timeout 20 ph-bad.tct
	[ "$status" -eq 1 ]
	assert_output --regexp "rank 1 receives [1-9][0-9]* messages? of tag 2 from rank 0, which sends 0 of them; the first unsent: rank 1 event [0-9]+ \\(MPI_Recv, comm 0, peer 0, tag 2\\)"
	ev=$(echo "$output" | sed -n 's/.*the first unsent: rank 1 event \([0-9]*\) .*/\1/p')
	[ "$(tc expand --rank 1 ph.tct | awk '/ MPI_Recv .* peer=0 tag=2 / { print $1; exit }')" = "$ev" ]
	# wildcard receives whose matches the trace does not name: the totals
	# are compared, a trace that pairs up is replayed
	tc compress -q --mode none --text -o any.tct "$BATS_FILE_TMPDIR/anysrc"
	awk '/^  MPI_Recv / { s = 1 } s && /^      compl / { s = 0; next } { print }' \
		any.tct >any-nc.tct
	[ "$(grep -c compl any.tct)" -gt "$(grep -c compl any-nc.tct)" ]
	run -0 timeout 60 mpirun -np 4 "$RP" --no-compute --timeout 20 any-nc.tct
	awk '/^MPI_Send / && !s { s = 1 } s == 1 && /^    peer / { sub(/-1@\[1\]/, "null@[1]"); s = 2 } { print }' \
		any-nc.tct >any-bad.tct
	! cmp -s any-nc.tct any-bad.tct || false
	run timeout 60 mpirun -np 4 "$RP" --no-compute --timeout 20 any-bad.tct
	[ "$status" -eq 1 ]
	assert_output --regexp "rank 0 receives [0-9]+ messages \\([1-9][0-9]* from any source\\), the ranks send it [0-9]+ \\(--force"
	m=$(echo "$output" | sed -n 's/.*rank 0 receives \([0-9]*\) messages (.*send it \([0-9]*\) .*/\1 \2/p')
	read -r r n <<<"$m"
	[ "$n" -eq $((r - 1)) ]
	# persistent requests: each start sends or receives once, as its init
	# says; rank 3's persistent sends to rank 0 taken out
	tc compress -q --mode none --text -o pe.tct "$BATS_FILE_TMPDIR/persist"
	awk '/^MPI_Send_init / { s = 1 } s && /^    peer / { sub(/-3@\[3\]/, "null@[3]"); s = 0 } { print }' \
		pe.tct >pe-bad.tct
	! cmp -s pe.tct pe-bad.tct || false
	run -0 timeout 60 mpirun -np 4 "$RP" --no-compute --timeout 20 pe.tct
	run timeout 60 mpirun -np 4 "$RP" --no-compute --timeout 20 pe-bad.tct
	[ "$status" -eq 1 ]
	assert_output --regexp "rank 0 receives ([1-9][0-9]*) messages? of tag [0-9]+ from rank 3, which sends 0 of them; the first unsent: rank 0 event ([0-9]+) \\(MPI_Startall\\)"
	n=$(echo "$output" | sed -n 's/.*rank 0 receives \([0-9]*\) message.*/\1/p')
	t=$(echo "$output" | sed -n 's/.* of tag \([0-9]*\) from rank 3.*/\1/p')
	[ "$(tc expand --rank 0 pe.tct | grep -c "MPI_Start .* peer=3 tag=$t \|MPI_Startall .*<3:$t:")" = "$n" ]
}

@test "a lossy lead-only trace that agrees replays as it expands, not as the original ran" {
	need_mpi
	[ -x "$B/testdata/mpi/imbalance" ] || skip "testdata/mpi/imbalance not built"
	# one cluster of two behaviours: the odd ranks' exchange with the rank
	# opposite is lost (accuracy says how much), what is left pairs up
	tc compress -q --mode kfarthest -k 1 --lead-only -o i1.tct "$BATS_FILE_TMPDIR/imbalance2"
	run -0 tc accuracy --json --mode kfarthest -k 1 --lead-only "$BATS_FILE_TMPDIR/imbalance2"
	echo "$output" | python3 -c '
import json, sys
m = json.load(sys.stdin)["match"]
assert m["src_pct"] < 100 and m["events_pct"] < 100, m'
	run -0 replay_traced rp-i1 --no-compute i1.tct
	same_events i1.tct rp-i1
	! same_events "$BATS_FILE_TMPDIR/imbalance2" rp-i1 || false
	# the ranks that behave as the lead does (its parity) are exact
	local lead
	lead=$(tc cluster --mode kfarthest -k 1 --json "$BATS_FILE_TMPDIR/imbalance2" |
		python3 -c 'import json, sys; print(json.load(sys.stdin)["clusters"][0]["lead"])')
	for r in $((lead % 2)) $((lead % 2 + 2)); do
		f=$(printf 'rank-%05d.tcr' $r)
		tc dump --json "$BATS_FILE_TMPDIR/imbalance2/$f" >a.jl
		tc dump --json "rp-i1/$f" >b.jl
		python3 "$CMP" a.jl b.jl
	done
}

@test "collectives on MPI_COMM_WORLD that disagree are refused before the replay, naming the calls" {
	need_mpi
	# lead-only: the members take their lead's v-collective vectors
	tc compress -q --mode callpath --lead-only -o cl.tct "$BATS_FILE_TMPDIR/coll"
	run timeout 60 mpirun -np 4 "$RP" --no-compute --timeout 20 cl.tct
	[ "$status" -eq 1 ]
	assert_output --regexp "tracecluster-replay: the ranks' v-collectives on MPI_COMM_WORLD disagree: at the [0-9]+(st|nd|rd|th) collective, MPI_I?(Alltoall|Allgather|Gather|Scatter)v, rank [0-3] \\(event [0-9]+\\) sends [0-9]+ bytes to rank [0-3] \\(event [0-9]+\\), which receives [0-9]+ \\(--force replays it as it is\\)"
	refute_output --partial "makespan:"
	# the events named are that call at both ranks, and their bytes differ
	local m op s es b d ed r
	m=$(echo "$output" | sed -n 's/.* collective, \(MPI_[A-Za-z]*\), rank \([0-3]\) (event \([0-9]*\)) sends \([0-9]*\) bytes to rank \([0-3]\) (event \([0-9]*\)), which receives \([0-9]*\) .*/\1 \2 \3 \4 \5 \6 \7/p')
	read -r op s es b d ed r <<<"$m"
	[ -n "$r" ] && [ "$b" != "$r" ]
	tc expand --rank "$s" cl.tct | awk -v e="$es" -v o="$op" '$1 == e && $4 == o { f = 1 } END { exit !f }'
	tc expand --rank "$d" cl.tct | awk -v e="$ed" -v o="$op" '$1 == e && $4 == o { f = 1 } END { exit !f }'
	# another count of a uniform collective at one rank: both calls named
	tc compress -q --mode none --text -o c.tct "$BATS_FILE_TMPDIR/coll"
	awk '/^MPI_Bcast / { s = 1 } s && /^    count / { sub(/count .*/, "count 10@[0-2]|12@[3]"); s = 0 } { print }' \
		c.tct >bc.tct
	grep -q '^    count 10@\[0-2\]|12@\[3\]$' bc.tct
	run timeout 60 mpirun -np 4 "$RP" --no-compute --timeout 20 bc.tct
	[ "$status" -eq 1 ]
	assert_output --regexp "the ranks' collectives on MPI_COMM_WORLD disagree at the [0-9]+(st|nd|rd|th): rank 0 event ([0-9]+) \\(MPI_Bcast, comm 0, root [0-3], 40 bytes\\), rank 3 event [0-9]+ \\(MPI_Bcast, comm 0, root [0-3], 48 bytes\\) \\(--force"
	# one rank without a collective the others call (from a trace without
	# times: a node's per-rank time entries would still name the rank)
	tc compress -q --mode none --text --timing none -o cn.tct "$BATS_FILE_TMPDIR/coll"
	sed 's/^MPI_Igatherv \(site=[0-9]*\) n=4 /MPI_Igatherv \1 ranks=[0-2] n=3 /' cn.tct >ng.tct
	! cmp -s cn.tct ng.tct || false
	run timeout 60 mpirun -np 4 "$RP" --no-compute --timeout 20 ng.tct
	[ "$status" -eq 1 ]
	assert_output --regexp "disagree at the [0-9]+(st|nd|rd|th): rank 0 event [0-9]+ \\(MPI_Igatherv, comm 0, root [0-3]\\), rank 3 calls no more \\([0-9]+ in all\\)"
	# the exact trace agrees, and --force replays the one that does not
	run -0 timeout 60 mpirun -np 4 "$RP" --no-compute --timeout 20 c.tct
	run timeout 60 mpirun -np 4 "$RP" --no-compute --force --timeout 5 bc.tct
	assert_output --partial "tracecluster-replay: warning: the ranks' collectives on MPI_COMM_WORLD disagree"
}

@test "a replay that cannot proceed is reported with rank, event and operation" {
	need_mpi
	# the first MPI_Send of the trace gets another tag: its receiver waits forever
	tc compress -q --mode none --text -o c.tct "$BATS_FILE_TMPDIR/cancel"
	awk '/^MPI_Send / { s = 1 } s && /^    tag / { sub(/tag .*/, "tag 4242"); s = 0 } { print }' \
		c.tct >stuck.tct
	! cmp -s c.tct stuck.tct || false
	run timeout 60 mpirun -np 4 "$RP" --no-compute --timeout 2 stuck.tct
	[ "$status" -ne 0 ] && [ "$status" -ne 124 ]
	assert_output --regexp 'tracecluster-replay: rank [0-9]+ stuck for [0-9]+ s at event [0-9]+ (\(MPI_[A-Za-z]+, comm [0-9]+, peer ([0-9]+|MPI_ANY_SOURCE), tag -?[0-9]+\)|\(MPI_(Wait|Test)[a-z]*\) waiting for event [0-9]+ \(MPI_[A-Za-z]+, comm [0-9]+, peer [0-9]+, tag -?[0-9]+\).*): aborting'
	# an MPI error (a receive smaller than its message: the messages pair
	# up, their counts do not) names the rank and event, not MPI's abort
	tc compress -q --mode none --text -o ph.tct "$BATS_FILE_TMPDIR/phases"
	awk '/^  MPI_Recv / { s = 1 } s && /^      count / { sub(/count .*/, "count 8"); s = 0 } { print }' \
		ph.tct >trunc.tct
	! cmp -s ph.tct trunc.tct || false
	run timeout 60 mpirun -np 4 "$RP" --no-compute --timeout 20 trunc.tct
	[ "$status" -eq 4 ]
	assert_output --regexp "tracecluster-replay: rank ([13]) at event ([0-9]+) \(MPI_Recv, comm 0, peer [02], tag 2\): MPI error: .*truncat.* \(a message larger than its receive: the trace's counts disagree between the ranks\)"
	refute_output --partial "MPI_ERRORS_ARE_FATAL"
	refute_output --partial "stuck for"
}

@test "a trace of another world size or a bad file is a one-line error" {
	need_mpi
	run timeout 60 mpirun -np 2 "$RP" "$BATS_FILE_TMPDIR/split"
	[ "$status" -ne 0 ]
	assert_output --partial "the trace is of 4 ranks, the replay runs on 2"
	printf 'tracecluster-tct 1\nworld 2\nbogus\n' >bad.tct
	run timeout 60 mpirun -np 2 "$RP" bad.tct
	[ "$status" -ne 0 ]
	assert_output --partial "bad.tct"
}

@test "replay: the tracer's time per call comes out of the gaps: as recorded in the files and the global trace, none, or given" {
	need_mpi
	cd "$BATS_FILE_TMPDIR"
	local d="$BATS_FILE_TMPDIR/halo2d" ns
	# the shim measured it; the global trace keeps the files' mean
	ns=$(tc info --json "$d" | python3 -c 'import json, sys; print(json.load(sys.stdin)["tracer_ns"])')
	[ "$ns" -gt 0 ]
	tc compress -q --mode none --text -o halo-none.tct "$d"
	grep -qx "tracer_ns $ns" halo-none.tct
	# rj ARGS...: the replay's JSON on 4 ranks
	rj() { timeout 60 mpirun -np 4 "$RP" --json --compute sleep "$@"; }
	# the time taken out of the gaps after each event of each rank but its
	# first and last, as the rank's file has them: NS per gap in all over
	# the gaps after each op (a short gap gives its whole length, the op's
	# longer ones the rest), every gap when they are shorter together;
	# printed with the leeway of 1 ns per gap, and what NS at most from
	# each gap would take
	removed() {
		for f in "$d"/rank-*.tcr; do tc dump --json "$f"; done | python3 -c '
import json, sys
ns = int(sys.argv[1])
ranks = {}
for line in sys.stdin:
    e = json.loads(line)
    if e.get("record") == "event":
        ranks.setdefault(e["rank"], []).append((e["t_start"], e["t_end"], e["op"]))
total = clamped = gaps = 0
for evs in ranks.values():
    per_op = {}
    for i in range(1, len(evs) - 1):
        if evs[i + 1][0] > evs[i][1]:
            per_op.setdefault(evs[i][2], []).append(evs[i + 1][0] - evs[i][1])
    for g in per_op.values():
        total += min(sum(g), ns * len(g))
        clamped += sum(min(x, ns) for x in g)
        gaps += len(g)
print(total, gaps, clamped)' "$1"
	}
	run -0 rj "$d"
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["tracer_cost"] == "recorded" and d["tracer_ns"] > 0 and d["tracer_removed_s"] > 0, d'
	# recorded: after each op's calls the op's mean of the rank's own file
	# (mean: the file's mean after every call), the gaps after an op
	# giving it each in all
	tc info --json "$d" >info.json
	for f in "$d"/rank-*.tcr; do tc dump --json "$f"; done >events.jl
	for m in recorded mean; do
		run -0 rj --tracer-cost $m "$d"
		echo "$output" | python3 -c '
import collections, json, sys
mode = sys.argv[1]
info = json.load(open("info.json"))
files = {f["rank"]: f for f in info["files"]}
ranks = collections.defaultdict(list)
for line in open("events.jl"):
    e = json.loads(line)
    if e.get("record") == "event":
        ranks[e["rank"]].append((e["t_start"], e["t_end"], e["op"]))
total = gaps = 0
for r, evs in ranks.items():
    f = files[r]
    per_op = collections.defaultdict(list)
    for i in range(1, len(evs) - 1):
        gap = evs[i + 1][0] - evs[i][1]
        if gap > 0:
            per_op[evs[i][2]].append(gap)
    for op, g in per_op.items():
        ns = f["tracer_ops"].get(op, f["tracer_ns"]) if mode == "recorded" else f["tracer_ns"]
        total += min(sum(g), ns * len(g))
        gaps += len(g)
d = json.load(sys.stdin)
assert d["tracer_cost"] == mode, d
assert abs(d["tracer_removed_s"] - total * 1e-9) <= (gaps + 4) * 1e-9, (mode, d["tracer_removed_s"], total, gaps, {r: (files[r]["tracer_ns"], files[r]["tracer_ops"]) for r in files})' $m
	done
	run -0 rj halo-none.tct
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["tracer_cost"] == "recorded" and d["tracer_ns"] == float(sys.argv[1]), d' "$ns"
	run -0 rj --tracer-cost none halo-none.tct
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["tracer_cost"] == "none" and d["tracer_ns"] == 0 and d["tracer_removed_s"] == 0, d'
	# given: NS per gap in all, every rank's summed; with NS beyond some
	# gaps, more than NS at most from each (their shortfall comes out of
	# the longer gaps); with a second, every gap whole
	for n in 700 1000000000; do
		run -0 rj --tracer-cost $n "$d"
		echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
want, gaps, clamped = (int(x) * 1e-9 for x in sys.argv[2].split())
assert d["tracer_cost"] == "given" and d["tracer_ns"] == int(sys.argv[1]), d
assert abs(d["tracer_removed_s"] - want) <= gaps + 4e-9, (d["tracer_removed_s"], want)
if int(sys.argv[1]) == 700:
    assert want > clamped and d["tracer_removed_s"] > clamped + 4e-9, (d["tracer_removed_s"], clamped)' \
			"$n" "$(removed $n)"
	done
	# a usage error before MPI starts
	run -2 "$RP" --tracer-cost -1 "$d"
	assert_output --partial "--tracer-cost: expected recorded, mean, none or nanoseconds"
}

@test "the compute asked of each rank's gaps: the recorded gaps in wall time, their CPU time at most" {
	need_mpi
	local d="$BATS_FILE_TMPDIR/halo2d"
	# the gaps the replay passes, per rank: before each event after the
	# first, from the latest end of the events before it
	gaps() {
		for f in "$d"/rank-*.tcr; do tc dump --json "$f"; done | python3 -c '
import json, sys
ranks = {}
for line in sys.stdin:
    e = json.loads(line)
    if e.get("record") == "event":
        ranks.setdefault(e["rank"], []).append((e["t_start"], e["t_end"]))
out = []
for r in sorted(ranks):
    evs, total, end = ranks[r], 0, None
    for i, (s, t) in enumerate(evs):
        if i and s > end:
            total += s - end
        end = t if end is None or t > end else end
    out.append(total)
print(json.dumps(out))'
	}
	local want
	want=$(gaps)
	run -0 --separate-stderr timeout 60 mpirun -np 4 "$RP" --json --compute sleep --tracer-cost none "$d"
	echo "$output" | python3 -c '
import json, sys
d, want = json.load(sys.stdin), json.loads(sys.argv[1])
got = [r["compute_s"] for r in d["per_rank"]]
assert len(got) == 4 and all(w > 0 for w in want), (got, want)
assert all(abs(g - w * 1e-9) <= 1e-9 * 2 for g, w in zip(got, want)), (got, want)
assert abs(d["compute_s"] - sum(got)) <= 1e-9 * 4, d' "$want"
	# the CPU time of the same gaps: a share of each, never more
	run -0 --separate-stderr timeout 60 mpirun -np 4 "$RP" --json --compute cpu --tracer-cost none "$d"
	echo "$output" | python3 -c '
import json, sys
d, want = json.load(sys.stdin), json.loads(sys.argv[1])
got = [r["compute_s"] for r in d["per_rank"]]
assert all(0 < g <= w * 1e-9 + 1e-9 * 2 for g, w in zip(got, want)), (got, want)' "$want"
	run -0 --separate-stderr timeout 60 mpirun -np 4 "$RP" --json --no-compute "$d"
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["compute_s"] == 0 and all(r["compute_s"] == 0 for r in d["per_rank"]), d'
	run -0 --separate-stderr timeout 60 mpirun -np 4 "$RP" --compute sleep --tracer-cost none "$d"
	assert_line --regexp "^gaps: +[0-9.]+ s of wall-clock time computed over the ranks; [0-9.]+ s of the replay's own time between its calls beyond them\$"
	[ "$(echo "$output" | grep -cE '^ +[0-3] +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9]+$')" -eq 4 ]
}

@test "the in-job Chameleon's global trace replays exactly, the job's tracer time per call out of its gaps" {
	need_mpi
	[ -f "$B/libtracecluster-online.so" ] || skip "the in-job clustering plugin is not built"
	cd "$BATS_FILE_TMPDIR"
	rm -rf onl
	timeout 60 mpirun -np 4 -x LD_PRELOAD="$SHIM" -x TRACECLUSTER_DIR="$PWD/onl" \
		-x TRACECLUSTER_ONLINE=chameleon:2 -x TRACECLUSTER_ONLINE_MARKER=MPI_Barrier \
		-x TRACECLUSTER_ONLINE_KEEP=all "$B/testdata/capture/phases" >onl.out 2>&1
	[ -f onl/global.tct ]
	# the lead-only merge of a periodic ring: every rank's own events
	run -0 replay_traced rp-onl --no-compute onl/global.tct
	same_events onl/global.tct rp-onl
	same_events onl rp-onl
	# the job's measured tracer time, as the files' mean (within rounding
	# of the two estimates: the job's sampled calls, the files' means)
	ns=$(tc info --json onl | python3 -c 'import json, sys; print(json.load(sys.stdin)["tracer_ns"])')
	[ "$ns" -gt 0 ]
	run -0 --separate-stderr timeout 60 mpirun -np 4 "$RP" --json --no-compute onl/global.tct
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
ns = int(sys.argv[1])
assert d["tracer_cost"] == "recorded" and abs(d["tracer_ns"] - ns) <= max(2, 0.05 * ns), (d["tracer_ns"], ns)' "$ns"
	# and per op, the files' means weighted by their calls: after each
	# op's calls its mean, in all, out of the trace's gaps
	tc info --json onl >onl-info.json
	for r in 0 1 2 3; do tc expand --json --rank $r onl/global.tct; done >onl-events.jl
	echo "$output" | python3 -c '
import collections, json, sys
ops = json.load(open("onl-info.json"))["tracer_ops"]
assert ops, "no tracer time per op in the files"
ranks = collections.defaultdict(list)
for line in open("onl-events.jl"):
    e = json.loads(line)
    ranks[e["rank"]].append((e["t_start"], e["t_end"], e["op"]))
total = gaps = 0
for evs in ranks.values():
    per_op = collections.defaultdict(list)
    for i in range(1, len(evs) - 1):
        if evs[i + 1][0] > evs[i][1]:
            per_op[evs[i][2]].append(evs[i + 1][0] - evs[i][1])
    for op, g in per_op.items():
        total += min(sum(g), ops[op] * len(g))
        gaps += len(g)
d = json.load(sys.stdin)
assert abs(d["tracer_removed_s"] - total * 1e-9) <= (gaps + 4) * 1e-9, (d["tracer_removed_s"], total)'
}

@test "--compute cpu: a raw trace set's ranks and its global trace's on their files' clock, a trace without skews from the end of MPI_Init" {
	need_mpi
	local d="$BATS_FILE_TMPDIR/halo2d" g="$BATS_TEST_TMPDIR/g.tct" f
	run -0 --separate-stderr timeout 60 mpirun -np 4 "$RP" --json "$d"
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["timeline"] == "files", d
assert d["compute_s"] > 0, d'
	run -0 --separate-stderr timeout 60 mpirun -np 4 "$RP" "$d"
	[[ "$output" == *"ranks on their files' clock"* ]]
	# the global trace keeps when each rank left MPI_Init on the host's
	# clock (its file's start plus its MPI_Init's end, less the first's)
	# and the time during which k ranks were in compute gaps at once on
	# that clock, k = 1, 2, ...
	tc compress -q --mode none --text -o "$g" "$d"
	for f in "$d"/rank-*.tcr; do
		tc dump --json --header "$f"
	done >"$BATS_TEST_TMPDIR/all.jl"
	grep -e '^skew ' -e '^concurrency ' "$g" | python3 -c '
import json, sys
got = {l.split()[0]: [int(x) for x in l.split()[1:]] for l in sys.stdin}
start, evs = {}, {}
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["record"] == "header":
        rank = r["rank"]
        start[rank] = r["start_time_ns"]
        evs[rank] = []
    elif r["record"] == "event":
        evs[rank].append((r["t_start"], r["t_end"]))
left = [start[r] + evs[r][0][1] for r in sorted(start)]
skew = [x - min(left) for x in left]
assert got["skew"] == skew, (got, skew)
first = min(start.values())
edges = []
for rank, ev in evs.items():
    off, prev = start[rank] - first, ev[0][1]
    for a, b in ev[1:]:
        if a > prev:
            edges += [(off + prev, 1), (off + a, -1)]
        prev = max(prev, b)
edges.sort(key=lambda e: (e[0], e[1]))
conc, k = [0] * len(evs), 0
for i, (t, dk) in enumerate(edges):
    if i and k > 0:
        conc[k - 1] += t - edges[i - 1][0]
    k += dk
while conc and not conc[-1]:
    conc.pop()
assert got["concurrency"] == conc, (got, conc)' "$BATS_TEST_TMPDIR/all.jl"
	run -0 --separate-stderr timeout 60 mpirun -np 4 "$RP" --json "$g"
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["timeline"] == "files", d
assert d["concurrency_factor"] > 0, d'
	# the raw set's timeline is the recorded one: nothing to bring it to
	run -0 --separate-stderr timeout 60 mpirun -np 4 "$RP" --json "$d"
	echo "$output" | python3 -c '
import json, sys
assert json.load(sys.stdin)["concurrency_factor"] == 1'
	# the binary and JSON forms keep them too
	tc compress -q --mode none -o "$g.bin" "$d"
	tc compress -q --mode none --json -o "$g.json" "$d"
	for f in "$g.bin" "$g.json"; do
		run -0 --separate-stderr timeout 60 mpirun -np 4 "$RP" --json "$f"
		echo "$output" | python3 -c '
import json, sys
assert json.load(sys.stdin)["timeline"] == "files"'
	done
	# without them (a trace written before they were kept), from the end
	# of each rank's MPI_Init
	grep -v -e '^skew ' -e '^concurrency ' "$g" >"$g.old"
	run -0 --separate-stderr timeout 60 mpirun -np 4 "$RP" --json "$g.old"
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["timeline"] == "init", d'
	# a constant share has no timeline
	run -0 --separate-stderr timeout 60 mpirun -np 4 "$RP" --json --cpu-share 0.5 "$d"
	echo "$output" | python3 -c '
import json, sys
assert "timeline" not in json.load(sys.stdin)'
}
