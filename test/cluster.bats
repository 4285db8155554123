#!/usr/bin/env bats
# tracecluster cluster: every mode on synth trace sets with known ground
# truth, the output forms, determinism across thread counts, and every way
# the input and the options can be bad.

load helper

setup_file() {
	export SET="$BATS_FILE_TMPDIR/st"
	tracecluster synth --pattern stencil2d --ranks 16 --dims 4x4 --iters 6 -o "$SET" >/dev/null
	export CG="$BATS_FILE_TMPDIR/cg"
	tracecluster synth --pattern cg --ranks 16 --iters 4 -o "$CG" >/dev/null
}

setup() {
	S="$SET"
}

# check_truth DIR JSON KEY: the clusters of JSON are truth.json's KEY
# groups, in the same order (by first rank), each led by its start rank;
# the ranklist (ScalaTrace encoding) and the ranges say the same ranks
check_truth() {
	python3 - "$1" "$2" "$3" <<'EOF'
import json, sys
truth = json.load(open(sys.argv[1] + "/truth.json"))
d = json.load(open(sys.argv[2]))
want = [g["ranks"] for g in truth[sys.argv[3]]["groups"]]
got = [c["ranks"] for c in d["clusters"]]
assert got == want, (sys.argv[1], sys.argv[3], len(want), len(got), want, got)
for c in d["clusters"]:
    assert c["lead"] == c["ranks"][0], c
EOF
}

# check_forms JSON: ids, sizes, sorted ranks, ranklists and ranges agree,
# and the clusters partition the ranks
check_forms() {
	python3 - "$1" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
def decode(v):
    n, pos, out = v[0], 1, []
    for _ in range(n):
        dim, start = -v[pos], v[pos + 1]
        assert dim >= 1
        pairs = [(v[pos + 2 + 2 * k], v[pos + 3 + 2 * k]) for k in range(dim)]
        pos += 2 + 2 * dim
        idx = [0] * dim
        def rec(k, base):
            if k == dim:
                out.append(base)
                return
            for i in range(pairs[k][0]):
                rec(k + 1, base + i * pairs[k][1])
        rec(0, start)
    assert pos == len(v)
    return sorted(out)
def ranges(r):
    parts, i = [], 0
    while i < len(r):
        j = i
        while j + 1 < len(r) and r[j + 1] == r[j] + 1:
            j += 1
        parts.append(str(r[i]) if i == j else "%d-%d" % (r[i], r[j]))
        i = j + 1
    return ",".join(parts)
seen = []
for i, c in enumerate(d["clusters"]):
    assert c["id"] == i
    assert c["size"] == len(c["ranks"]) > 0
    assert c["ranks"] == sorted(c["ranks"])
    assert decode(c["ranklist"]) == c["ranks"], (c["ranklist"], c["ranks"])
    assert c["ranges"] == ranges(c["ranks"])
    assert c["lead"] in c["ranks"]
    seen += c["ranks"]
assert sorted(seen) == list(range(d["ranks"])), "not a partition"
firsts = [c["ranks"][0] for c in d["clusters"]]
assert firsts == sorted(firsts)
if "main_clusters" in d:
    for m in d["main_clusters"]:
        assert decode(m["ranklist"]) == m["ranks"]
        members = sorted(r for s in m["subclusters"] for r in d["clusters"][s]["ranks"])
        assert members == m["ranks"]
        for s in m["subclusters"]:
            assert d["clusters"][s]["main"] == m["id"]
EOF
}

@test "cluster --list-modes names every mode and its paper section" {
	run -0 tc cluster --list-modes
	for m in callpath callpath-param dynamic kfarthest kmedoid reference; do
		assert_line --regexp "^$m +"
	done
	assert_output --partial "§3.4"
	assert_output --partial "Alg. 5"
	assert_output --partial "§4.4.6"
}

@test "cluster callpath: a 4x4 non-periodic stencil has 9 clusters" {
	run -0 tc cluster --mode callpath "$S"
	assert_line --regexp "^mode: +callpath \("
	assert_line --regexp "^clusters: +9$"
	assert_line "cluster 4: lead 5, 4 ranks"
	assert_line --regexp "^  ranks: +5-6,9-10$"
	assert_line --regexp "^  ranklist: +1 -2 5 2 4 2 1$"
	assert_line --regexp "^  ranks: +4,8$"
	assert_line --regexp "^  ranklist: +1 -1 4 2 4$"
	assert_line --regexp "^  signature: +callpath 0x[0-9a-f]{16}$"
	[ "$(echo "$output" | grep -c '^cluster ')" -eq 9 ]
}

@test "cluster --json: schema, forms, main and sub clusters" {
	tc cluster --json "$S" >cp.json
	check_forms cp.json
	python3 - <<'EOF'
import json
d = json.load(open("cp.json"))
assert d["schema"] == 2 and d["mode"] == "callpath-param"
assert d["ranks"] == 16 and d["world_size"] == 16
assert d["options"]["threshold"] == 0.05
assert len(d["clusters"]) == 9 and len(d["main_clusters"]) == 9
assert d["refinement"] == {"added": 0, "done": True}
assert d["filtering"]["applied"] is False and d["filtering"]["limit"] == 8
c = d["clusters"][4]
assert c["ranks"] == [5, 6, 9, 10] and c["ranklist"] == [1, -2, 5, 2, 4, 2, 1]
assert c["ranges"] == "5-6,9-10"
s = c["signatures"]
assert set(s) == {"callpath", "param", "reference", "count_mean", "acurdion"}
assert s["acurdion"]["src"] == 0 and s["acurdion"]["callpath"] == s["callpath"]
EOF
}

@test "cluster: callpath and callpath-param recover every synth pattern's truth" {
	for spec in stencil1d:6 stencil2d:16 stencil3d:27 wavefront:16 cg:16 ft:16 mg:16 is:16 \
		master-worker:8 phases:16 cg:32 mg:64; do
		p=${spec%:*}
		n=${spec#*:}
		tc synth --pattern "$p" --ranks "$n" --iters 4 -q -o "$p$n"
		tc cluster --json --mode callpath "$p$n" >a.json
		check_truth "$p$n" a.json callpath || { echo "callpath $spec"; return 1; }
		check_forms a.json
		tc cluster --json --mode callpath-param "$p$n" >b.json
		check_truth "$p$n" b.json callpath_param || { echo "callpath-param $spec"; return 1; }
		check_forms b.json
	done
	[ "$(tc cluster --json --mode callpath is16 | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["clusters"]))')" -eq 3 ]
}

@test "cluster: the truth survives message counts that vary by 3% (the 5% filter)" {
	for spec in stencil2d:16 stencil3d:27 wavefront:16 cg:16 mg:16 is:16 master-worker:8 \
		phases:16 ft:16; do
		p=${spec%:*}
		n=${spec#*:}
		tc synth --pattern "$p" --ranks "$n" --iters 4 --count-jitter 0.03 -q -o "$p"
		tc cluster --json --mode callpath "$p" >a.json
		check_truth "$p" a.json callpath || { echo "callpath $spec"; return 1; }
		tc cluster --json --mode callpath-param "$p" >b.json
		check_truth "$p" b.json callpath_param || { echo "callpath-param $spec"; return 1; }
	done
	# a threshold below the jitter splits what the filter joined
	tc cluster --json --mode callpath-param --threshold 0.001 stencil2d >c.json
	python3 -c 'import json; d = json.load(open("c.json")); assert len(d["clusters"]) > 9'
}

@test "cluster callpath-param: exact comparison tells CG's transpose partners apart" {
	run -0 tc cluster --json "$CG"
	echo "$output" >r.json
	check_truth "$CG" r.json callpath_param
	python3 - <<'EOF'
import json
d = json.load(open("r.json"))
assert len(d["clusters"]) == 16 and len(d["main_clusters"]) == 2
assert d["refinement"]["done"] and d["refinement"]["added"] == 7
f = d["filtering"]
# 16 sub-clusters > P/2 = 8: merged on what varies, one group per main
assert f["applied"] and f["limit"] == 8
assert "dest" in f["parameters"] and "src" in f["parameters"]
assert [g["ranks"] for g in f["groups"]] == [m["ranks"] for m in d["main_clusters"]]
assert sorted(s for g in f["groups"] for s in g["subclusters"]) == list(range(16))
EOF
	# the averaged parameter signature alone (the papers' algorithm)
	run -0 tc cluster --json --no-refine "$CG"
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["refinement"] == {"added": 0, "done": False}
assert 2 < len(d["clusters"]) < 16
'
	run -0 tc cluster "$CG"
	assert_line --regexp "^refinement: +exact comparison of members added 7 clusters$"
	assert_line --regexp "^filtering: +applied: 16 sub-clusters > P/2 = 8; merged on .*dest.*: 2 groups$"
	assert_line --regexp "^filtered group 1 \(main 1\): lead 1, 12 ranks$"
}

@test "cluster --verify: no collisions where the signatures are exact" {
	for m in callpath callpath-param reference dynamic; do
		run -0 tc cluster --json --verify --mode "$m" "$CG"
		echo "$output" | python3 -c "
import json, sys
d = json.load(sys.stdin)
assert d['verify']['collisions'] == 0, d['verify']
for c in d['clusters']:
    v = c['verify']
    assert v['collisions'] == 0
    assert v['differ']['callpath'] == 0
    assert v['sequences'] >= 1
lvl = {'callpath': 'callpath', 'callpath-param': 'param', 'reference': 'exact',
       'dynamic': 'callpath'}['$m']
assert d['verify']['level'] == lvl
"
	done
	run -0 tc cluster --verify "$S"
	assert_line --regexp "^verify: +0 signature collisions \(members that differ from their lead at level param\)$"
	assert_line --regexp "^  verify: +1 distinct sequence; differ from the lead: 0 in call sites, 0 in parameters, 0 at all, 0 in split colour/key$"
	# K modes merge behaviours on purpose: verify counts what they merged
	run -0 tc cluster --json --verify --mode kfarthest -k 2 "$S"
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["verify"]["level"] == "none" and d["verify"]["collisions"] == 0
assert sum(c["verify"]["differ"]["callpath"] for c in d["clusters"]) > 0
# the 9 distinct sequences of a 4x4 stencil, some in both clusters
assert 9 <= sum(c["verify"]["sequences"] for c in d["clusters"]) <= 16
'
}

@test "cluster reference: one cluster per exact sequence" {
	run -0 tc cluster --json --mode reference "$S"
	echo "$output" >ref.json
	check_truth "$S" ref.json callpath_param
	tc synth --pattern stencil2d --ranks 16 --iters 4 --count-jitter 0.05 -q -o cj
	run -0 tc cluster --json --mode reference cj
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert len(d["clusters"]) == 16, len(d["clusters"])
assert d["refinement"]["done"]
'
}

@test "cluster dynamic: call path, then SRC and DEST" {
	run -0 tc cluster --json --mode dynamic "$CG"
	echo "$output" >dyn.json
	check_forms dyn.json
	python3 - "$CG" <<'EOF'
import json, sys
truth = json.load(open(sys.argv[1] + "/truth.json"))
d = json.load(open("dyn.json"))
assert [m["ranks"] for m in d["main_clusters"]] == [g["ranks"] for g in truth["callpath"]["groups"]]
for c in d["clusters"]:
    a = c["signatures"]["acurdion"]
    assert c["main"] in range(len(d["main_clusters"]))
assert len(d["clusters"]) >= len(d["main_clusters"])
EOF
}

@test "cluster K modes: K clusters, fewer only when fewer ranks behave differently" {
	for m in kfarthest kmedoid; do
		for steps in single double; do
			for k in 1 2 5 9 12 16 30; do
				for noise in 0 0.5; do
					run -0 tc cluster --json --mode "$m" --steps "$steps" -k "$k" \
						--noise "$noise" "$S"
					echo "$output" >k.json
					check_forms k.json
					python3 - "$k" "$noise" <<'EOF'
import json, sys
k, noise = int(sys.argv[1]), float(sys.argv[2])
d = json.load(open("k.json"))
# synth gives every rank its own compute and call times: 16 behaviours
# when timing compares exactly; with timing within the noise alike, the 9
# call paths of a 4x4 stencil (corners, edges, interior) remain
want = min(k, 9 if noise else 16)
assert len(d["clusters"]) == want, (k, noise, len(d["clusters"]))
assert d["options"]["k"] == k and d["options"]["noise"] == noise
assert "callpath" in d["format"]["signatures"]
EOF
				done
			done
		done
	done
}

@test "cluster K modes: K >= the call paths covers every call path, one per cluster" {
	for m in kfarthest kmedoid; do
		for args in "" "--steps double" "--distance euclidean" "--seed 7"; do
			run -0 tc cluster --json --mode "$m" -k 9 $args "$S"
			echo "$output" >k.json
			python3 - "$S" <<'EOF'
import json, sys
truth = json.load(open(sys.argv[1] + "/truth.json"))
d = json.load(open("k.json"))
groups = [g["ranks"] for g in truth["callpath"]["groups"]]
got = [c["ranks"] for c in d["clusters"]]
assert sorted(got) == sorted(groups), got
for c in d["clusters"]:
    assert c["lead"] in c["ranks"]
EOF
		done
	done
	# fewer clusters than call paths: each still a union of call-path groups
	run -0 tc cluster --json --mode kfarthest -k 4 "$S"
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert len(d["clusters"]) == 4
'
}

@test "cluster: output is identical for -j1 and -j2" {
	for m in callpath callpath-param reference kfarthest kmedoid dynamic; do
		for set in "$S" "$CG"; do
			tc -j1 cluster --json --verify --mode "$m" "$set" >a.json
			tc -j2 cluster --json --verify --mode "$m" "$set" >b.json
			cmp a.json b.json || { echo "$m $set"; return 1; }
			tc cluster -j1 --mode "$m" --steps double "$set" >a.txt
			tc cluster -j2 --mode "$m" --steps double "$set" >b.txt
			cmp a.txt b.txt || { echo "$m $set (text)"; return 1; }
		done
	done
}

@test "cluster: a single file is a set of one" {
	run -0 tc cluster "$S/rank-00005.tcr"
	assert_line --regexp "^ranks: +1 \(world size 16\)$"
	assert_line --regexp "^clusters: +1 in 1 main cluster$"
	assert_line "cluster 0 (main 0): lead 5, 1 rank"
	assert_line --regexp "^  ranklist: +1 -1 5 1 0$"
}

@test "cluster: bad trace sets are errors, nothing is printed" {
	mkdir empty
	run -1 --separate-stderr tc cluster empty
	assert_equal "$stderr" "tracecluster: 'empty': no trace files (*.tcr) in directory"
	assert_equal "$output" ""
	run -1 --separate-stderr tc cluster nowhere
	assert_equal "$stderr" "tracecluster: cannot open 'nowhere': No such file or directory"
	cp -r "$S" broken
	corrupt_byte broken/rank-00009.tcr 60
	run -1 --separate-stderr tc cluster --mode kfarthest broken
	[[ "$stderr" =~ ^tracecluster:\ \'broken/rank-00009.tcr\':\ byte\ [0-9]+:\ block\ checksum\ mismatch$ ]]
	assert_equal "$output" ""
	cp -r "$S" partial
	rm partial/rank-00007.tcr
	run -1 --separate-stderr tc cluster partial
	assert_equal "$stderr" "tracecluster: 'partial': rank 7 missing (world size 16)"
}

@test "cluster: usage errors exit 2, --help exits 0" {
	run -2 --separate-stderr tc cluster
	[[ "$stderr" == *"missing DIR"* ]]
	run -2 --separate-stderr tc cluster "$S" "$S"
	[[ "$stderr" == *"too many arguments"* ]]
	run -2 --separate-stderr tc cluster --mode nonesuch "$S"
	[[ "$stderr" == *"--mode: unknown mode 'nonesuch' (see --list-modes)"* ]]
	run -2 --separate-stderr tc cluster -k 0 "$S"
	[[ "$stderr" == *"-k: 0 is out of range (1 to 4096)"* ]]
	run -2 --separate-stderr tc cluster -k 5000 "$S"
	run -2 --separate-stderr tc cluster -k x "$S"
	run -2 --separate-stderr tc cluster --steps triple "$S"
	[[ "$stderr" == *"--steps: expected single or double, got 'triple'"* ]]
	run -2 --separate-stderr tc cluster --distance cosine "$S"
	[[ "$stderr" == *"--distance: expected manhattan or euclidean, got 'cosine'"* ]]
	run -2 --separate-stderr tc cluster --threshold 1.5 "$S"
	[[ "$stderr" == *"--threshold: 1.5 is out of range"* ]]
	run -2 --separate-stderr tc cluster --threshold -0.1 "$S"
	run -2 --separate-stderr tc cluster --threshold abc "$S"
	run -2 --separate-stderr tc cluster --seed -3 "$S"
	run -2 --separate-stderr tc cluster --match exact "$S"
	run -2 --separate-stderr tc cluster --window 0 "$S"
	run -2 --separate-stderr tc cluster --list-modes "$S"
	run -2 --separate-stderr tc cluster --bogus "$S"
	[[ "$stderr" == *"unknown option"* ]]
	run -2 --separate-stderr tc cluster --mode
	[[ "$stderr" == *"'--mode' needs a value"* ]]
	run -0 tc cluster --help
	assert_line --partial "usage: tracecluster cluster"
	run -0 tc help cluster
	assert_line --partial "--list-modes"
}

@test "cluster: every --help option is in the man page" {
	man="$TC_ROOT/man/tracecluster-cluster.1"
	[ -f "$man" ]
	for opt in $(tc cluster --help | grep -oE -- '--[a-z][a-z-]*' | sort -u); do
		grep -qF -- "${opt//-/\\-}" "$man" || { echo "missing $opt"; return 1; }
	done
	grep -qF -- '\-k' "$man"
	command -v groff >/dev/null || skip "groff not installed"
	run -0 groff -man -ww -z "$man"
	assert_output ""
}

@test "cluster --csv: rank,cluster,lead, one row per rank, as --json has them" {
	run -0 tc cluster --csv --mode kfarthest -k 3 "$SET"
	assert_line --index 0 "rank,cluster,lead"
	[ "${#lines[@]}" -eq 17 ]
	csv=$output
	run -0 tc cluster --json --mode kfarthest --max-clusters 3 "$SET"
	python3 -c '
import csv, io, json, sys
rows = list(csv.DictReader(io.StringIO(sys.argv[1])))
d = json.loads(sys.argv[2])
assert d["schema"] == 2 and d["input"] == sys.argv[3], d["input"]
assert [int(r["rank"]) for r in rows] == list(range(16))
want = {r: (c["id"], c["lead"]) for c in d["clusters"] for r in c["ranks"]}
assert all(want[int(r["rank"])] == (int(r["cluster"]), int(r["lead"])) for r in rows)
assert len(d["clusters"]) == 3
' "$csv" "$output" "$SET"
	run -2 --separate-stderr tc cluster --csv --json "$SET"
}

@test "cluster --noise: the timing tolerance of the K modes, 0 to 1" {
	run -0 tc cluster --mode kfarthest --noise 0.25 "$SET"
	assert_line --regexp "^options: +k 9, single step, manhattan distance, timing noise 0.25$"
	run -0 tc cluster --mode kmedoid --noise 1 "$SET"
	assert_line --regexp "^options: +k 9, single step, manhattan distance, timing noise 1, seed 1$"
	run -0 tc cluster --mode kfarthest --json "$SET"
	python3 -c 'import json, sys; assert json.loads(sys.argv[1])["options"]["noise"] == 0.5' "$output"
	for bad in -0.1 1.5 x; do
		run -2 --separate-stderr tc cluster --mode kfarthest --noise "$bad" "$SET"
		[[ "$stderr" == *"--noise"* ]]
		run -2 --separate-stderr tc compress --mode kfarthest --noise "$bad" -o x.tct "$SET"
		[[ "$stderr" == *"--noise"* ]]
	done
	# compress takes it too: timing noise alone adds no lead
	run -0 --separate-stderr tc compress --mode kfarthest -k 12 --noise 0 --report-json \
		-o a.tct "$SET"
	python3 -c 'import json, sys; assert json.loads(sys.argv[1])["leads"] == 12' "$output"
	run -0 --separate-stderr tc compress --mode kfarthest -k 12 --report-json -o b.tct "$SET"
	python3 -c 'import json, sys; assert json.loads(sys.argv[1])["leads"] == 9' "$output"
}

@test "cluster: --count-threshold is --threshold, --max-clusters is -k" {
	a=$(tc cluster --json --threshold 0.2 "$SET")
	b=$(tc cluster --json --count-threshold 0.2 "$SET")
	[ "$a" = "$b" ]
	a=$(tc cluster --json --mode kmedoid -k 4 --seed 3 "$SET")
	b=$(tc cluster --json --mode kmedoid --max-clusters 4 --seed 3 "$SET")
	[ "$a" = "$b" ]
	run -2 --separate-stderr tc cluster --max-clusters 0 "$SET"
	[[ "$stderr" == *"out of range"* ]]
}
