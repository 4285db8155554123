#!/usr/bin/env bats
# Real MPI programs (testdata/mpi/), each the pattern of a real code that
# an analysis must get right, traced with the capture shim and checked
# through the commands that read the traces: accuracy and cluster --verify
# on communicator splits (NPB FT), replay and accuracy on cancelled
# wildcard receives (HPCC), heatmap --collectives on communicators other
# than MPI_COMM_WORLD (Quantum ESPRESSO), the K modes on ranks that differ
# in timing alone (NPB EP), diff on a copy of a binary under another name,
# and the split of the replay-time error between operations and compute
# times on a load-imbalanced code (LULESH).
#
# setup_file runs every program once; the tests read the trace sets.

load helper

B="$TC_ROOT/${TC_BUILD:-build/default}"
SHIM="$B/libtracecluster-capture.so"
TP="$B/testdata/mpi"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
# a container without ssh: launch locally only
command -v ssh >/dev/null || command -v rsh >/dev/null || export OMPI_MCA_plm=isolated

have_mpi() {
	command -v mpirun >/dev/null && [ -f "$SHIM" ] && [ -x "$TP/subcomm" ]
}

# trace_as NAME NP PROG [ARG...]: run PROG on NP ranks with the shim into
# $BATS_FILE_TMPDIR/NAME; output in NAME.out, exit status in NAME.rc
trace_as() {
	local d="$BATS_FILE_TMPDIR/$1" np=$2
	shift 2
	rm -rf "$d"
	timeout 60 mpirun -np "$np" -x LD_PRELOAD="$SHIM" -x TRACECLUSTER_DIR="$d" "$@" \
		>"$d.out" 2>&1
	echo $? >"$d.rc"
}

# trace NAME NP: run $TP/NAME
trace() {
	trace_as "$1" "$2" "$TP/$1"
}

setup_file() {
	have_mpi || return 0
	cd "$BATS_FILE_TMPDIR" || return 1
	trace split 4
	trace tags 6
	trace cancel 4
	trace subcomm 4
	trace imbalance 4
	trace_as imbalance2 4 "$TP/imbalance" two
	trace_as jitter 8 "$TP/jitter"
	trace_as roles 8 "$TP/jitter" roles
	# the same binary under another name in another directory
	mkdir -p "$BATS_FILE_TMPDIR/copy"
	cp "$TP/jitter" "$BATS_FILE_TMPDIR/copy/jitter-copy"
	trace_as jitter4 4 "$TP/jitter"
	trace_as copy4 4 "$BATS_FILE_TMPDIR/copy/jitter-copy"
}

setup() {
	have_mpi || skip "no MPI or capture shim built (mpicc not found)"
}

# traced NAME [NP]: the run exited 0 and left NP (default 4) rank files;
# echoes the directory
traced() {
	local d="$BATS_FILE_TMPDIR/$1"
	[ "$(cat "$d.rc")" = 0 ] || { cat "$d.out" >&2; return 1; }
	[ "$(ls "$d"/rank-*.tcr | wc -l)" = "${2:-4}" ] || return 1
	echo "$d"
}

# nclusters JSON: the number of clusters of a cluster --json document
nclusters() {
	python3 -c 'import json, sys; print(len(json.loads(sys.argv[1])["clusters"]))' "$1"
}

# match_of JSON KEY: one matching percentage of an accuracy document
match_of() {
	python3 -c 'import json, sys
d = json.loads(sys.argv[1])
print(d.get("accuracy", d)["match"][sys.argv[2] + "_pct"])' "$1" "$2"
}

@test "accuracy: the colour and key of Comm_split are matched (COMM)" {
	d=$(traced split)
	# every rank splits with its own colour and key from the same call
	# sites: one call-path cluster, its lead standing for the others
	run -0 tc compress --mode callpath --lead-only --accuracy --report-json -o l.tct "$d"
	# ranks 1-3 get rank 0's (0, 0) and (0, 0): 2 of 8 splits match
	[ "$(match_of "$output" comm)" = 25.0 ]
	[ "$(match_of "$output" count)" = 100.0 ]
	run -0 tc compress --mode callpath --accuracy --report-json -o d.tct "$d"
	[ "$(match_of "$output" comm)" = 100.0 ]
	run -0 tc compress --mode callpath --lead-only --accuracy -o l.tct "$d"
	assert_line --regexp '^accuracy: .*  TAG 100.00%  COMM 25.00%, replay ACC'
	for m in callpath callpath-param kmedoid reference; do
		run -0 tc accuracy --mode "$m" --json "$d"
		[ "$(match_of "$output" comm)" = 100.0 ]
	done
	run -0 tc accuracy --mode callpath "$d"
	assert_line --regexp '^matching: .*  TAG 100.00%  COMM 100.00%$'
	run -0 tc compare --modes callpath,reference --csv --no-time "$d"
	assert_line --index 0 --partial ",tag_pct,comm_pct,acc,"
}

@test "accuracy: rank-dependent message tags are kept (NPB BT's WEST + jp + kp*NCELLS)" {
	local d m r
	d=$(traced tags 6)
	# the tags differ by rank where the peers' signatures do not
	for m in callpath callpath-param kfarthest; do
		run -0 tc accuracy --mode "$m" --json "$d"
		[ "$(match_of "$output" tag)" = 100.0 ]
	done
	# the papers' merge, a lead's tags standing for its members', loses them
	run -0 tc compress --mode callpath-param --lead-only --accuracy --report-json -o l.tct "$d"
	awk -v t="$(match_of "$output" tag)" 'BEGIN { exit !(t < 100) }'
	# each rank's sends expand from the global trace with its own tags
	run -0 tc compress --mode callpath-param -o t.tct "$d"
	for r in 0 4 5; do
		diff <(tc expand --rank $r t.tct | grep -o 'MPI_Isend .* tag=[0-9]*' | sed 's/cs=[0-9]* //') \
			<(tc dump "$d/rank-0000$r.tcr" | grep -o 'MPI_Isend .* tag=[0-9]*' | sed 's/cs=[0-9]* //')
	done
	[ "$(tc expand --rank 4 t.tct | grep -c 'MPI_Isend .* tag=1065')" = 5 ]
}

@test "cluster --verify: counts members whose split colour or key differ from their lead's" {
	d=$(traced split)
	run -0 tc cluster --mode callpath --verify --json "$d"
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
[c] = d["clusters"]
assert c["verify"]["differ"]["comm"] == 3 and c["verify"]["differ"]["callpath"] == 0, c
' "$output"
	run -0 tc cluster --mode callpath --verify "$d"
	assert_line --regexp "^  verify: +4 distinct sequences; .* 3 at all, 3 in split colour/key$"
	run -0 tc cluster --mode reference --verify --json "$d"
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert all(c["verify"]["differ"]["comm"] == 0 for c in d["clusters"]), d
' "$output"
}

@test "replay: a cancelled MPI_ANY_SOURCE receive completes at its wait" {
	d=$(traced cancel)
	run -0 --separate-stderr tc replay "$d"
	refute_output --partial deadlock
	[ -z "$stderr" ]
	assert_line --regexp '^ranks: +4, [0-9]+ events, 16 messages, 1 collectives$'
	run -0 tc replay --json "$d"
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert not d["deadlock"] and d["unmatched_sends"] == 0, d
' "$output"
	for m in callpath-param callpath; do
		run -0 tc accuracy --mode "$m" --json "$d"
		python3 -c '
import json, sys
d = json.loads(sys.argv[1])
r = d["replay"]
assert not r["stalled"] and r["forced"] == 0, d
assert all(v == 100.0 for v in d["match"].values()), d
' "$output"
	done
}

@test "heatmap --collectives: collectives on dup, split and Cartesian communicators" {
	d=$(traced subcomm)
	# on 4 ranks: Bcast of 400 bytes from rank 1 on a dup of world;
	# halves {2,0} and {3,1} (split by parity, key -rank): Allreduce of 80
	# bytes (one exchange), Bcast of 16 bytes from sub-rank 0 (ranks 2
	# and 3), a Send of 8 bytes each way; Alltoall of 4 bytes on a
	# Cartesian copy of world
	tc heatmap --collectives --metric bytes -f csv -o hm.csv "$d"
	cat >want.csv <<'CSV'
src,dst,bytes
0,1,4
0,2,92
0,3,4
1,0,404
1,2,404
1,3,492
2,0,108
2,1,4
2,3,4
3,0,4
3,1,108
3,2,4
CSV
	diff -u want.csv hm.csv
	# without collectives: the point-to-point messages alone
	tc heatmap --metric bytes -f csv -o p2p.csv "$d"
	printf 'src,dst,bytes\n0,2,8\n1,3,8\n2,0,8\n3,1,8\n' | diff -u - p2p.csv
	# a clustered trace of the set maps them as well: no difference
	tc heatmap --collectives --metric bytes --diff --mode callpath-param -f csv -o diff.csv "$d"
	[ "$(wc -l <diff.csv)" = 13 ]
	awk -F, 'NR > 1 && $5 != 0 { exit 1 }' diff.csv
	# a global trace keeps the communicators' members: the same map, quietly
	tc compress -q --mode callpath "$d" -o g.tct
	run -0 --separate-stderr tc heatmap --collectives --metric bytes -f csv -o g.csv g.tct
	[ -z "$stderr" ]
	diff -u want.csv g.csv
	# the papers' lead-only trace has none: what it cannot map it says
	tc compress -q --mode callpath --lead-only "$d" -o l.tct
	run -0 --separate-stderr tc heatmap --collectives --metric bytes -f csv -o l.csv l.tct
	[[ "$stderr" == *"'l.tct': 16 collectives on communicators other than MPI_COMM_WORLD left out"* ]]
}

@test "accuracy: the replay-time error is split between the operations and the compute times" {
	d=$(traced imbalance)
	# one behaviour, rank r computing (r + 1) ms a step: one call-path
	# cluster whose lead's times stand for every rank
	run -0 tc accuracy --mode callpath --json "$d"
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["clusters"] == 1 and all(v == 100.0 for v in d["match"].values()), d
r, e = d["replay"], d["error"]
# the communication alone and the operations with each rank own times
# are exact: all of the error comes from the times the trace keeps
assert d["compute_gaps"] and d["acc_comm"] == 1.0 and d["acc_own_times"] == 1.0, d
assert r["t_comm"] == r["t_comm_clustered"] and r["t_own_times"] == r["t"], r
assert e["operations"] == 0.0 and e["times"] > 0.3, e
assert abs(d["acc"] + e["times"] - 1) < 1e-9, d
' "$output"
	run -0 tc accuracy --mode callpath "$d"
	assert_line --regexp '^            communication only: t .*, ACC 100.00%$'
	assert_line --regexp "^            with each rank's own compute times: t' .*, ACC 100.00%$"
	assert_line --regexp '^            error: 0.00% from the clustered operations, [3-9][0-9].[0-9]{2}% from the compute times the trace keeps \(leads. times, timing stats\)$'
	# without compute gaps there is one figure, the communication's
	run -0 tc accuracy --mode callpath --no-compute --json "$d"
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert not d["compute_gaps"] and d["acc"] == d["acc_comm"] == 1.0, d
' "$output"
	run -0 tc accuracy --mode callpath --no-compute "$d"
	assert_line --regexp '^replay: .*ACC 100.00% \(communication only: no compute gaps\)$'
	refute_line --partial 'error:'
	run -0 tc compare --modes callpath,reference --csv --no-time "$d"
	assert_line --index 0 --partial ",comm_pct,acc,acc_comm,acc_own_times,"
}

@test "accuracy: a lead standing for another behaviour shows as error of the operations" {
	d=$(traced imbalance2)
	# odd ranks also exchange with the rank opposite: two behaviours, one
	# cluster (-k 1); the lead-only merge gives every member its lead's
	# operations and peers
	run -0 tc compress --mode kfarthest -k 1 --lead-only --accuracy --report-json -o l.tct "$d"
	python3 -c '
import json, sys
a = json.loads(sys.argv[1])["accuracy"]
assert a["match"]["src_pct"] < 100 and a["acc_comm"] < 1, a
assert a["error"]["operations"] > 0 and a["acc_own_times"] < 1, a
' "$output"
	run -0 tc compress --mode kfarthest -k 1 --lead-only --accuracy -o l.tct "$d"
	assert_line --regexp '^accuracy: .*, replay ACC [0-9.]+% \(communication only [0-9.]+%, own compute times [0-9.]+%\)'
	# the default merge keeps every member's operations
	run -0 tc compress --mode kfarthest -k 1 --accuracy --report-json -o d.tct "$d"
	python3 -c '
import json, sys
a = json.loads(sys.argv[1])["accuracy"]
assert a["acc_comm"] == 1.0 and a["error"]["operations"] == 0.0, a
' "$output"
	# a call-path clustering holds the two behaviours apart; the lead-only
	# merge of each is exact, the ring's wrap-around included (a lead's
	# relative peers taken modulo the world)
	run -0 tc compress --mode callpath --lead-only --accuracy --report-json -o c.tct "$d"
	python3 -c '
import json, sys
a = json.loads(sys.argv[1])["accuracy"]
assert all(v == 100.0 for v in a["match"].values()), a
assert a["acc_comm"] == 1.0 and a["error"]["operations"] == 0.0, a
' "$output"
}

@test "K modes: ranks that differ in timing alone are one cluster, K is a bound" {
	d=$(traced jitter 8)
	# 8 ranks, the same collectives, random compute time between them:
	# only COMP and COMM differ, by noise
	run -0 tc signatures "$d"
	assert_line --regexp '^distinct: +1 call-path, 1 call-path\+parameter, 1 reference$'
	assert_line --regexp '^format: +0x180 comp comm$'
	for m in kfarthest kmedoid; do
		for steps in single double; do
			run -0 tc cluster --mode "$m" --steps "$steps" -k 4 --json "$d"
			[ "$(nclusters "$output")" = 1 ] || { echo "$m $steps: $output"; false; }
		done
		run -0 tc cluster --mode "$m" "$d"
		assert_line --regexp '^clusters: +1$'
		assert_line --regexp '^options: +k 9, single step, manhattan distance, timing noise 0.5'
		# timing compared exactly, as the papers do: K clusters
		run -0 tc cluster --mode "$m" -k 4 --noise 0 --json "$d"
		[ "$(nclusters "$output")" = 4 ]
	done
	# the other commands take --noise too
	run -0 tc compare --modes kfarthest:k=4:noise=0,0.5 --json --no-time "$d"
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert [(m["options"]["noise"], m["clusters"]) for m in d["modes"]] == [(0, 4), (0.5, 1)], d
' "$output"
	run -0 tc accuracy --mode kfarthest -k 4 "$d"
	assert_line --regexp "^mode: +kfarthest: 1 cluster, 1 lead"
}

@test "K modes: two genuinely different behaviours and timing noise are two clusters" {
	d=$(traced roles 8)
	# even ranks send then receive, odd ranks receive then send
	for m in kfarthest kmedoid; do
		for steps in single double; do
			run -0 tc cluster --mode "$m" --steps "$steps" -k 4 --json "$d"
			python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert [c["ranks"] for c in d["clusters"]] == [[0, 2, 4, 6], [1, 3, 5, 7]], sys.argv[2]
' "$output" "$m $steps"
		done
	done
	run -0 tc cluster --mode kfarthest -k 1 --json "$d"
	[ "$(nclusters "$output")" = 1 ]
}

@test "diff: a copy of the binary under another name and directory matches every event" {
	a=$(traced jitter4)
	b=$(traced copy4)
	# the call sites were recorded with the two file names
	tc dump --callsites --no-events "$a/rank-00000.tcr" | grep -q '/jitter+0x'
	tc dump --callsites --no-events "$b/rank-00000.tcr" | grep -q '/copy/jitter-copy+0x'
	run -0 tc diff --top 0 "$a" "$b"
	assert_line --regexp '^ranks: +4 compared, 4 identical in structure, 0 diverge$'
	assert_line --regexp '^events: +A ([0-9]+), B \1; \1 matched, 0 mismatched, 0 only in A, 0 only in B; parameters differ in 0$'
	assert_line "  none: every rank makes the same calls in the same order in both runs"
	for key in function op; do
		run -0 tc diff --key "$key" --json "$a" "$b"
		python3 -c '
import json, sys
s = json.loads(sys.argv[1])["summary"]
assert s["identical"] == 4 and s["mismatched"] == s["only_a"] == s["only_b"] == 0, s
assert s["matched"] == s["events_a"] == s["events_b"] > 0, s
' "$output"
	done
}

@test "diff: a different program or behaviour is still different" {
	a=$(traced jitter4)
	# another program: its calls come from other places, MPI_Init on
	run -0 tc diff --top 0 "$a" "$(traced subcomm)"
	assert_line --regexp '^ranks: +4 compared, 0 identical in structure, 4 diverge$'
	assert_line "  rank 0, column 0:"
	assert_line --regexp '^    A #0 MPI_Init main\+0x[0-9a-f]+$'
	# the same binary in its other role: the ranks' calls differ
	run -0 tc diff --top 0 --json "$a" "$(traced roles 8)"
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
s = d["summary"]
assert s["compared"] == 4 and s["identical"] == 0, s
for r in d["ranks"]:
    fd = r["first_divergence"]
    assert fd is not None and fd["differs"], r
' "$output"
}

@test "replay (simulated): matched probes, one-sided, neighbourhood collectives, intercommunicators" {
	local p d cap="$B/testdata/capture"
	[ -x "$cap/mprobe" ] || skip "the capture test programs are not built"
	for p in mprobe neigh intercomm; do
		trace_as "$p" 4 "$cap/$p"
	done
	# Open MPI 4.1's default one-sided component needs RDMA hardware
	(export OMPI_MCA_osc=sm,pt2pt; trace_as rma 4 "$cap/rma")
	for p in mprobe rma neigh intercomm; do
		d=$(traced "$p")
		run -0 tc replay --json "$d"
		python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert not d["deadlock"] and not d["blocked"], d
assert d["forced"] == 0 and d["unmatched_sends"] == 0, d
assert d["events"] > 20 and d["messages"] + d["collectives"] > 0, d
' "$output"
	done
}
