#!/usr/bin/env bats
# tracecluster replay, accuracy, compare and topology.

load helper

setup_file() {
	export SETS="$BATS_FILE_TMPDIR/sets"
	mkdir -p "$SETS"
	for spec in stencil2d:9 mg:16 ft:8 master-worker:6 phases:8 wavefront:9; do
		tracecluster synth --pattern "${spec%:*}" --ranks "${spec#*:}" --iters 3 \
			-o "$SETS/${spec%:*}" >/dev/null
	done
}

@test "replay prints per-rank times and the makespan, deterministic" {
	run -0 tc replay "$SETS/stencil2d"
	assert_line --regexp '^makespan: [0-9.]+ (s|ms|µs|ns) \([0-9.]+ s\)$'
	assert_line --regexp '^ +8 +[0-9.]+$'
	tc -j1 replay --json "$SETS/mg" > a.json
	tc -j2 replay --json "$SETS/mg" > b.json
	cmp a.json b.json
	python3 -c 'import json,sys; d=json.load(open("a.json")); assert d["schema"]==1 and not d["deadlock"] and len(d["per_rank"])==16 and d["makespan_s"]>0'
}

@test "replay of every pattern completes without deadlock or unmatched sends" {
	for p in stencil2d mg ft master-worker phases wavefront; do
		run -0 tc replay --json "$SETS/$p"
		python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert not d["deadlock"] and d["unmatched_sends"]==0, sys.argv[1]' "$output"
	done
}

@test "replay model options change the time; a global trace replays" {
	a=$(tc replay --json --no-compute "$SETS/stencil2d" | python3 -c 'import json,sys; print(json.load(sys.stdin)["makespan_s"])')
	b=$(tc replay --json --no-compute --latency 10 "$SETS/stencil2d" | python3 -c 'import json,sys; print(json.load(sys.stdin)["makespan_s"])')
	python3 -c "assert $b > $a"
	tc compress --mode reference -o st.tct "$SETS/stencil2d" >/dev/null
	c=$(tc replay --json --no-compute st.tct | python3 -c 'import json,sys; print(json.load(sys.stdin)["makespan_s"])')
	[ "$a" = "$c" ]
	run -2 --separate-stderr tc replay --latency -1 "$SETS/stencil2d"
}

@test "a deadlocked trace is reported, not waited on" {
	# rank 1 of a 2-rank ring with its send removed never feeds rank 0's receive
	tc synth --pattern stencil1d --ranks 2 --iters 1 -o two >/dev/null
	rm two/rank-00001.tcr
	run -1 --separate-stderr tc replay "two/rank-00000.tcr"
	assert_output --partial 'deadlock: 1 rank blocked'
	[[ "$stderr" == *"blocked"* ]]
	run -0 tc replay --lenient --json "two/rank-00000.tcr"
	python3 -c 'import json,sys; d=json.loads(sys.argv[1]); assert d["deadlock"] and d["forced"] >= 1 and d["makespan_s"] > 0' "$output"
}

@test "reference: 100% matching and ACC 100% (communication replay)" {
	for p in stencil2d mg ft phases; do
		run -0 tc accuracy --mode reference --no-compute --json "$SETS/$p"
		python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["acc"] == 1.0, d
for k in ("count", "loop", "events", "src", "dest", "tag", "comm"):
    assert d["match"][k + "_pct"] == 100.0, (k, d)
assert d["heatmap_diff"]["l1"] == 0
assert d["space_per_process"] > 0
' "$output"
	done
	run -0 tc accuracy --mode reference "$SETS/stencil2d"
	assert_line --regexp '^matching: +COUNT 100.00%  LOOP 100.00%  #EVENTS 100.00%  SRC 100.00%  DEST 100.00%  TAG 100.00%  COMM 100.00%$'
}

@test "reference: ACC 100% with compute gaps (times kept per rank set)" {
	# the west receive is the first event of an iteration on the first
	# column (after the compute phase) and the second elsewhere: its
	# compute time must not be one mean over both (issue 6)
	tracecluster synth --pattern stencil2d --ranks 9 --iters 20 -o st9 >/dev/null
	tracecluster synth --pattern is --ranks 8 --iters 20 --jitter 0 -o is8 >/dev/null
	for d in st9 is8; do
		run -0 tc accuracy --mode reference --json "$d"
		python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["acc"] >= 0.999, d
' "$output"
	done
	tc compress --mode reference --timing rank --text -o st9.tct st9 >/dev/null
	grep -q '^  MPI_Irecv site=[0-9]* ranks=[^ ]* n=120 comp=[^ ]*\*60@' st9.tct
	a=$(tc replay --json st9 | python3 -c 'import json,sys; print(json.load(sys.stdin)["makespan_s"])')
	b=$(tc replay --json st9.tct | python3 -c 'import json,sys; print(json.load(sys.stdin)["makespan_s"])')
	python3 -c "assert abs($b - $a) <= 0.001 * $a, ($a, $b)"
}

@test "accuracy JSON keys; -j1 equals -j2" {
	tc -j1 accuracy --mode kfarthest --json "$SETS/mg" > a.json
	tc -j2 accuracy --mode kfarthest --json "$SETS/mg" > b.json
	cmp a.json b.json
	python3 -c '
import json
d = json.load(open("a.json"))
for k in ("acc", "match", "space_per_process", "schema"):
    assert k in d, k
assert set(d["match"]) == {"count_pct", "loop_pct", "events_pct", "src_pct", "dest_pct",
                          "tag_pct", "comm_pct"}
assert 0 <= d["acc"] <= 1
'
	run -2 --separate-stderr tc accuracy "$SETS/mg"
	run -2 --separate-stderr tc accuracy --mode nosuch "$SETS/mg"
	run -2 --separate-stderr tc accuracy --mode reference --timing exact "$SETS/mg"
	[[ "$stderr" == *"--timing: expected stats, rank or none"* ]]
}

@test "accuracy --timing: each choice's bytes and replay accuracy" {
	for t in rank stats none; do
		tc accuracy --mode reference --timing "$t" --json "$SETS/mg" >"$t.json"
	done
	python3 - <<'PY'
import json
d = {t: json.load(open(t + ".json")) for t in ("rank", "stats", "none")}
for t, x in d.items():
    assert x["timing"] == t and x["match"]["count_pct"] == 100, x
# fewer bytes for less timing; no times replay as nothing but the network
assert d["none"]["bytes"] < d["stats"]["bytes"] <= d["rank"]["bytes"], d
assert d["rank"]["acc"] >= 0.99 and d["none"]["acc"] < d["stats"]["acc"], d
PY
}

@test "compare: one row per mode, JSON and CSV" {
	run -0 tc compare --modes callpath,callpath-param,reference,kfarthest "$SETS/mg"
	assert_line --regexp '^mode +clusters +main +leads +bytes'
	assert_line --regexp '^kfarthest '
	tc -j1 compare --modes reference,kmedoid --json --no-time "$SETS/mg" > a.json
	tc -j2 compare --modes reference,kmedoid --json --no-time "$SETS/mg" > b.json
	cmp a.json b.json
	python3 -c '
import json
d = json.load(open("a.json"))
assert d["schema"] == 2 and [m["mode"] for m in d["modes"]] == ["reference", "kmedoid"]
for m in d["modes"]:
    for k in ("mode", "clusters", "leads", "bytes", "acc", "match", "space_per_process"):
        assert k in m, k
'
	run -0 tc compare --modes reference --csv --no-compute "$SETS/stencil2d"
	assert_line --index 0 --partial 'label,mode,clusters,main_clusters,leads,bytes'
	assert_line --index 1 --regexp '^reference,reference,9,0,9,[0-9]+,[0-9.]+,100.00,100.00,100.00,100.00,100.00,100.00,100.00,1.000000,1.000000,1.000000,[0-9.e-]+,0,0,'
	run -2 --separate-stderr tc compare "$SETS/mg"
	run -2 --separate-stderr tc compare --modes a,b "$SETS/mg"
	run -2 --separate-stderr tc compare --modes reference --json --csv "$SETS/mg"
}

@test "topology: a grid coloured by cluster, as PDF, SVG, PNG or CSV" {
	run -0 tc topology --mode callpath --dims 3x3 -o t.svg "$SETS/stencil2d"
	python3 -c 'import xml.etree.ElementTree as E; E.parse("t.svg")'
	grep -q '<title>stencil2d: callpath, ' t.svg
	run -0 tc topology --mode callpath --dims 3x3 -o t.csv "$SETS/stencil2d"
	assert_equal "$(head -1 t.csv)" "rank,column,row,cluster,lead"
	grep -qx '4,1,1,[0-9]*,[01]' t.csv
	[ "$(awk -F, 'NR > 1 && $5 == 1' t.csv | wc -l)" -ge 1 ]
	run -0 tc topology --mode callpath -o t.pdf "$SETS/stencil2d"
	head -c 5 t.pdf | grep -q '^%PDF-'
	run -0 tc topology --mode callpath -o t.png "$SETS/stencil2d"
	head -c 4 t.png | grep -q 'PNG'
	run -2 --separate-stderr tc topology --mode callpath --dims 2x2 -o x.svg "$SETS/stencil2d"
	run -2 --separate-stderr tc topology --mode callpath --dims 3 -o x.svg "$SETS/stencil2d"
	run -2 --separate-stderr tc topology --mode callpath -o x.jpg "$SETS/stencil2d"
	run -2 --separate-stderr tc topology --mode callpath --width 3 -o x.pdf "$SETS/stencil2d"
	[ ! -e x.svg ] && [ ! -e x.jpg ] && [ ! -e x.pdf ]
}

@test "topology: without a Cartesian communicator the grid is near square, and the figure says so" {
	# columns x rows for P ranks: factors close to square, else ceil(sqrt(P)) across
	for spec in 4:2x2 12:4x3 64:8x8 7:3x3 1024:32x32 2048:64x32; do
		p=${spec%:*} want=${spec#*:}
		tc synth --pattern stencil1d --ranks $p --iters 1 -o s$p >/dev/null
		tc topology --mode callpath -o s$p.csv s$p
		cols=$(awk -F, 'NR > 1 && $2 + 1 > c { c = $2 + 1 } END { print c }' s$p.csv)
		rows=$(awk -F, 'NR > 1 && $3 + 1 > r { r = $3 + 1 } END { print r }' s$p.csv)
		[ "${cols}x${rows}" = "$want" ] || { echo "$p: ${cols}x${rows}, not $want"; false; }
		# row-major
		awk -F, -v c=$cols 'NR > 1 && ($2 != $1 % c || $3 != int($1 / c)) { exit 1 }' s$p.csv
	done
	tc topology --mode callpath -o s64.pdf s64
	PYTHONIOENCODING=utf-8 python3 "$TC_ROOT/test/tools/pdftext.py" s64.pdf |
		grep -q ' 64 ranks on a 8 × 8 grid (near square; no Cartesian communicator recorded)$'
	tc topology --mode callpath --dims 16x4 -o d.pdf s64
	PYTHONIOENCODING=utf-8 python3 "$TC_ROOT/test/tools/pdftext.py" d.pdf |
		grep -q ' 64 ranks on a 16 × 4 grid (--dims)$'
	run -0 --separate-stderr tc -v topology --mode callpath -o s1024.png s1024
	[[ "$stderr" == *"1024 ranks on a 32 x 32 grid (near square"* ]]
}

@test "accuracy takes the mode's options and names them; human units, singulars" {
	run -0 tc accuracy --mode kmedoid -k 3 --seed 7 --distance euclidean --json "$SETS/stencil2d"
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["schema"] == 2 and d["input"] == sys.argv[2]
assert d["options"] == {"k": 3, "seed": 7, "distance": "euclidean", "steps": "single",
                        "noise": 0.5}, d
assert d["clusters"] == 3 and 0 <= d["acc"] <= 1
assert all(k.endswith("_pct") for k in d["match"])
' "$output" "$SETS/stencil2d"
	run -0 tc accuracy --mode kfarthest -k 1 "$SETS/stencil2d"
	assert_line --regexp "^mode: +kfarthest: 1 cluster, 1 lead, global trace [0-9]+ bytes"
	assert_line "options:    k=1 steps=single distance=manhattan noise=0.5"
	assert_line --regexp "^replay: +t [0-9.]+ (s|ms|µs|ns), t' [0-9.]+ (s|ms|µs|ns), ACC "
	run -0 tc accuracy --mode callpath-param --threshold 0.3 --json "$SETS/stencil2d"
	python3 -c 'import json, sys; assert json.loads(sys.argv[1])["options"] == {"threshold": 0.3}' "$output"
	run -2 --separate-stderr tc accuracy --mode kfarthest -k 0 "$SETS/stencil2d"
	run -2 --separate-stderr tc accuracy --mode chameleon --call-frequency 0 "$SETS/stencil2d"
}

@test "topology and heatmap --diff take the mode's options" {
	run -0 tc topology --mode kfarthest -k 2 --dims 3x3 -o t2.svg "$SETS/stencil2d"
	grep -q ': kfarthest, 2 clusters' t2.svg
	run -0 tc topology --mode kfarthest -k 1 -o t1.svg "$SETS/stencil2d"
	grep -q ': kfarthest, 1 cluster</title>' t1.svg
	run -0 tc heatmap --diff --mode kfarthest -k 2 -f csv -o d.csv "$SETS/mg"
	head -1 d.csv | grep -qx 'src,dst,original_messages,clustered_messages,difference_messages'
	run -0 tc heatmap --diff --mode chameleon --marker MPI_Allreduce -o d.svg "$SETS/stencil2d"
	run -2 --separate-stderr tc heatmap -k 2 -o x.svg "$SETS/mg"
	[[ "$stderr" == *"for --diff only"* ]]
	run -2 --separate-stderr tc topology --mode kmedoid --seed x -o x.svg "$SETS/mg"
}

@test "replay and accuracy --progress into a file: lines, not redraws" {
	TRACECLUSTER_PROGRESS_DELAY=0 tc --progress replay "$SETS/mg" >/dev/null 2>r.txt
	! grep -q $'\r' r.txt || false
	grep -q '^reading: 16/16, done in ' r.txt
	grep -q '^replay, events: 0/[0-9]* (0%), ' r.txt
	TRACECLUSTER_PROGRESS_DELAY=0 tc accuracy --progress --mode callpath "$SETS/mg" \
		>/dev/null 2>a.txt
	grep -q '^callpath: matching, ranks: 16/16, done in ' a.txt
	grep -q '^callpath: replay (clustered), events: ' a.txt
	TRACECLUSTER_PROGRESS_DELAY=0 tc heatmap --progress -o h.svg "$SETS/mg" 2>h.txt
	grep -q '^matrix, ranks: 16/16, done in ' h.txt
}
