#!/usr/bin/env bats
# tracecluster compare: mode options, sweeps, failing modes, the JSON and
# CSV conventions, progress.

load helper

setup_file() {
	export SETS="$BATS_FILE_TMPDIR/sets"
	mkdir -p "$SETS"
	# stencil2d has no MPI_Barrier; phases has one
	tracecluster synth --pattern stencil2d --ranks 16 --iters 3 -o "$SETS/st" >/dev/null
	tracecluster synth --pattern phases --ranks 8 --iters 3 -o "$SETS/ph" >/dev/null
}

@test "compare -k LIST: one row per K, labelled MODE:k=K" {
	run -0 --separate-stderr tc compare --modes kfarthest -k 2,4,8 --no-time "$SETS/st"
	assert_line --regexp '^kfarthest:k=2 +2 +0 +2 '
	assert_line --regexp '^kfarthest:k=4 +4 +0 +4 '
	assert_line --regexp '^kfarthest:k=8 +8 +0 +8 '
	[ "$(grep -c '^kfarthest' <<<"$output")" -eq 3 ]
	# the same with the list in --modes, and --max-clusters
	run -0 tc compare --modes kfarthest:k=2,4,8 --no-time --json "$SETS/st"
	a=$output
	run -0 tc compare --modes kfarthest --max-clusters 2,4,8 --no-time --json "$SETS/st"
	[ "$output" = "$a" ]
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["schema"] == 2 and d["input"].endswith("/st"), d
assert [m["label"] for m in d["modes"]] == ["kfarthest:k=2", "kfarthest:k=4", "kfarthest:k=8"]
assert [m["options"]["k"] for m in d["modes"]] == [2, 4, 8]
assert [m["clusters"] for m in d["modes"]] == [2, 4, 8]
' "$a"
}

@test "compare: per-mode option lists and command-line lists combine" {
	run -0 tc compare --modes kfarthest:k=2,4,callpath-param:threshold=0.01,0.1,callpath \
		--no-time --json "$SETS/st"
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert [m["label"] for m in d["modes"]] == ["kfarthest:k=2", "kfarthest:k=4",
    "callpath-param:threshold=0.01", "callpath-param:threshold=0.1", "callpath"], d
assert [m["options"].get("threshold") for m in d["modes"]][2:4] == [0.01, 0.1]
assert d["modes"][4]["options"] == {}
' "$output"
	# --threshold sweeps callpath-param and leaves kmedoid alone; two lists
	# make every combination
	run -0 tc compare --modes callpath-param,kmedoid --threshold 0.01,0.05,0.1 \
		-k 2,3 --seed 5 --no-time --json "$SETS/st"
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert [m["label"] for m in d["modes"]] == ["callpath-param:threshold=0.01",
    "callpath-param:threshold=0.05", "callpath-param:threshold=0.1",
    "kmedoid:k=2:seed=5", "kmedoid:k=3:seed=5"], [m["label"] for m in d["modes"]]
assert d["modes"][4]["options"] == {"k": 3, "seed": 5, "steps": "single",
                                    "distance": "manhattan", "noise": 0.5}, d["modes"][4]
' "$output"
}

@test "compare: a failing mode keeps its row with the error, the others are shown" {
	# stencil2d calls no MPI_Barrier: a marker named so fails
	run -1 --separate-stderr tc compare --modes callpath,chameleon:marker=MPI_Barrier,kfarthest \
		--no-time "$SETS/st"
	assert_line --regexp '^callpath +9 '
	assert_line --regexp '^chameleon:marker=MPI_Barrier +error: no marker: no MPI_Barrier'
	assert_line --regexp '^kfarthest +9 '
	[[ "$stderr" == *"compare: chameleon:marker=MPI_Barrier failed: no marker"* ]]
	[[ "$stderr" == *"1 of 3 modes failed"* ]]
	run -1 --separate-stderr tc compare --modes callpath,chameleon:marker=MPI_Barrier --no-time \
		--json "$SETS/st"
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
ok, bad = d["modes"]
assert "error" not in ok and ok["clusters"] == 9, ok
assert "MPI_Barrier" in bad["error"] and "clusters" not in bad, bad
' "$output"
	run -1 --separate-stderr tc compare --modes callpath,chameleon:marker=MPI_Barrier --no-time \
		--csv "$SETS/st"
	python3 -c '
import csv, io, sys
rows = list(csv.DictReader(io.StringIO(sys.argv[1])))
assert rows[0]["error"] == "" and rows[0]["clusters"] == "9", rows[0]
assert "MPI_Barrier" in rows[1]["error"] and rows[1]["clusters"] == "", rows[1]
assert len(rows[0]) == len(rows[1])
' "$output"
}

@test "compare and accuracy: chameleon with another marker on an app without MPI_Barrier" {
	run -0 tc compare --modes chameleon --marker MPI_Allreduce --no-time "$SETS/st"
	assert_line --regexp '^chameleon:marker=MPI_Allreduce +[0-9]+ '
	run -0 tc compare --modes callpath,chameleon:marker=MPI_Allreduce:call-frequency=2 \
		--no-time "$SETS/st"
	assert_line --regexp '^chameleon:marker=MPI_Allreduce:call-frequency=2 +[0-9]+ '
	run -0 tc accuracy --mode chameleon --marker MPI_Allreduce --json "$SETS/st"
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["options"]["marker"] == "MPI_Allreduce" and d["options"]["call_frequency"] == 1, d
' "$output"
	# with a barrier the default marker works
	run -0 tc compare --modes chameleon --no-time "$SETS/ph"
}

@test "compare: bad mode options are usage errors" {
	run -2 --separate-stderr tc compare --modes kfarthest:threshold=0.1 "$SETS/st"
	[[ "$stderr" == *"mode kfarthest takes no threshold"* ]]
	run -2 --separate-stderr tc compare --modes kfarthest:colour=1 "$SETS/st"
	[[ "$stderr" == *"unknown option 'colour' of kfarthest"* ]]
	run -2 --separate-stderr tc compare --modes kfarthest:k "$SETS/st"
	run -2 --separate-stderr tc compare --modes kfarthest -k 2,0 "$SETS/st"
	[[ "$stderr" == *"-k: 0 is out of range"* ]]
	run -2 --separate-stderr tc compare --modes kfarthest -k 2, "$SETS/st"
	run -2 --separate-stderr tc compare --modes callpath-param --threshold 1.5 "$SETS/st"
	run -2 --separate-stderr tc compare --modes kmedoid --steps triple "$SETS/st"
	run -2 --separate-stderr tc compare --modes chameleon --marker 'MPI_Nothing@x' "$SETS/st"
	run -2 --separate-stderr tc compare --modes nosuch:k=2 "$SETS/st"
}

@test "compare CSV: unambiguous columns, the JSON keys, percentages *_pct and fraction acc" {
	run -0 tc compare --modes callpath,kfarthest --csv --no-time "$SETS/st"
	csv=$output
	run -0 tc compare --modes callpath,kfarthest --json --no-time "$SETS/st"
	python3 -c '
import csv, io, json, sys
rows = list(csv.DictReader(io.StringIO(sys.argv[1])))
d = json.loads(sys.argv[2])
head = sys.argv[1].splitlines()[0].split(",")
assert len(head) == len(set(head)), head
assert head == ["label", "mode", "clusters", "main_clusters", "leads", "bytes",
    "space_per_process", "count_pct", "loop_pct", "events_pct", "src_pct", "dest_pct",
    "tag_pct", "comm_pct", "acc", "acc_comm", "acc_own_times", "replay_t_clustered", "heatmap_l1", "heatmap_max",
    "error"], head
for r, m in zip(rows, d["modes"]):
    assert r["label"] == m["label"] and int(r["clusters"]) == m["clusters"]
    for k, v in m["match"].items():
        assert k.endswith("_pct") and abs(float(r[k]) - v) < 0.006, (k, r, m)
    for k in ("acc", "acc_comm", "acc_own_times"):
        assert 0 <= m[k] <= 1 and abs(float(r[k]) - m[k]) < 1e-6, (k, r, m)
' "$csv" "$output"
}

@test "compare text: the replay time in human units" {
	run -0 tc compare --modes callpath --no-time "$SETS/st"
	assert_line --index 0 --regexp '^trace set .*: 16 ranks, replay t [0-9.]+ (s|ms|µs|ns), '
}

@test "compare --progress into a file: whole lines with rate and ETA, no carriage return" {
	TRACECLUSTER_PROGRESS_DELAY=0 tc --progress compare --modes callpath,kfarthest:k=2 \
		--no-time "$SETS/st" >out.txt 2>err.txt
	! grep -q $'\r' err.txt || false
	grep -q '^reading: 0/16 (0%), ' err.txt
	grep -q '^reading: 16/16, done in 0:0[0-9]$' err.txt
	grep -q '^original: replay, events: ' err.txt
	grep -q '^kfarthest:k=2 (2 of 2): matching, ranks: 0/16 (0%), [0-9.]*/s, ETA ' err.txt
	grep -q '^kfarthest:k=2 (2 of 2): clustering and merging: done in ' err.txt
	# the table is the same without progress
	tc --no-progress compare --modes callpath,kfarthest:k=2 --no-time "$SETS/st" >plain.txt
	cmp out.txt plain.txt
	# not a terminal and no --progress: nothing
	TRACECLUSTER_PROGRESS_DELAY=0 tc compare --modes callpath --no-time "$SETS/st" \
		>/dev/null 2>quiet.txt
	[ ! -s quiet.txt ]
}
