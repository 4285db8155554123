#!/usr/bin/env bats
# tracecluster align: pairwise and multiple alignment, the merged call
# graph and the structural similarity on synth patterns with known groups.

load helper

setup_file() {
	export SET="$BATS_FILE_TMPDIR/st"
	tracecluster synth --pattern stencil2d --ranks 16 --dims 4x4 --iters 4 -o "$SET" >/dev/null
	export MW="$BATS_FILE_TMPDIR/mw"
	tracecluster synth --pattern master-worker --ranks 6 --iters 4 -o "$MW" >/dev/null
	export S3="$BATS_FILE_TMPDIR/s3"
	tracecluster synth --pattern stencil3d --ranks 27 --dims 3x3x3 --iters 2 -o "$S3" >/dev/null
}

# the structural groups equal the truth.json call-path groups
check_groups() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
truth = json.load(open(sys.argv[1] + "/truth.json"))
sim = json.load(open(sys.argv[2]))
want = sorted(g["ranks"] for g in truth["callpath"]["groups"])
got = sorted(g["ranks"] for g in sim["groups"])
assert got == want, (got, want)
EOF
}

@test "align: two interior ranks of a 2D stencil agree column by column" {
	run -0 tc align --ranks 5,6 "$SET"
	assert_line --regexp "^events: +rank 5: 42, rank 6: 42$"
	assert_line --regexp "^columns: +42: 42 matched, 0 mismatched, 0 only in rank 5, 0 only in rank 6$"
	assert_line --regexp "^similarity: +1\.0000 "
	# peers are shown relative to each rank and as world ranks
	assert_output --partial "peer=-1(4)"
	assert_output --partial "peer=-1(5)"
}

@test "align: a corner against an interior rank: gaps where the corner has no neighbour" {
	run -0 tc align --ranks 0,5 "$SET"
	assert_line --regexp "^columns: +42: 26 matched, 0 mismatched, 0 only in rank 0, 16 only in rank 5$"
	# every gap is an exchange with a neighbour the corner lacks
	[ "$(echo "$output" | grep -c ' > ')" -eq 16 ]
	echo "$output" | grep ' > ' | grep -v -q -E 'exchange_(west|north)' && false
	# the rows are in column order with the markers of the kinds
	assert_line --regexp "^ +0 = +0 MPI_Init +stencil2d_setup\+0x1c += +0 MPI_Init"
}

@test "align --json: columns consume both sequences in order" {
	run -0 tc align --json --ranks 0,5 "$SET"
	echo "$output" >al.json
	python3 - <<'EOF'
import json
d = json.load(open("al.json"))
assert d["schema"] == 2 and d["ranks"] == [0, 5] and d["key"] == "site"
assert d["scores"] == {"match": 1, "mismatch": -2, "gap": -1}
i = j = 0
for c in d["columns"]:
    if c["kind"] != "only_b":
        assert c["a"] == i; i += 1
    else:
        assert c["a"] is None
    if c["kind"] != "only_a":
        assert c["b"] == j; j += 1
ea, eb = d["events_a"], d["events_b"]
assert i == len(ea) == d["events"][0] and j == len(eb) == d["events"][1]
for c in d["columns"]:
    if c["kind"] == "match":
        x, y = ea[c["a"]], eb[c["b"]]
        assert x["op"] == y["op"] and x["where"] == y["where"]
assert d["matches"] == 26 and d["only"] == [0, 16]
assert abs(d["similarity"] - 26 / 42) < 1e-9
assert d["score"] == 26 - 16
EOF
}

@test "align: every engine gives the same score; --context elides matching runs" {
	for e in lcs nw full; do
		run -0 tc align --engine "$e" --ranks 1,15 "$SET"
		echo "$output" | grep '^score:' >>"scores"
	done
	[ "$(sort -u scores | wc -l)" -eq 1 ]
	run -0 tc align --ranks 0,5 -C 0 "$SET"
	assert_output --partial "... 1 matching columns"
	run -0 tc align --scores 2,-1,-2 --engine nw --ranks 0,5 "$SET"
	assert_line --regexp "^method: +key site, scores 2,-1,-2, engine nw$"
	run -2 --separate-stderr tc align --scores 2,-1,-2 --engine lcs --ranks 0,5 "$SET"
	[[ "$stderr" == *"--engine lcs needs mismatch <= 2 gap"* ]]
}

@test "align --key: function and op keys" {
	run -0 tc align --key op --ranks 0,5 "$SET"
	assert_line --regexp "^method: +key op,"
	# by operation alone, every Irecv and Isend of the corner finds one
	assert_line --regexp "^columns: +42: 26 matched,"
	run -0 tc align --key function --ranks 5,6 "$SET"
	assert_line --regexp "^similarity: +1\.0000 "
}

@test "align: progressive multiple alignment of four ranks" {
	run -0 tc align --ranks 0,1,5,15 "$SET"
	assert_line --regexp "^method: +progressive, key site, scores 1,-2,-1$"
	# Init, 4 x (Waitall, Allreduce), Finalize are common to all
	assert_line --regexp "^columns: +42: 10 conserved, 32 with gaps, 0 mixed; identity 0\.2381$"
	assert_line --regexp "^work: +3 pairwise alignments"
	assert_line --regexp "^  s0 +MPI_Init +stencil2d_setup\+0x1c$"
	assert_line --regexp "^ +col +0 +1 +5 +15$"
}

@test "align --json: a block whose rows hold each rank's events in order" {
	for h in "" --hierarchical; do
		run -0 tc align --json $h --ranks 0,3,5-7,15 "$SET"
		echo "$output" >msa.json
		python3 - <<'EOF'
import json
d = json.load(open("msa.json"))
assert [r["rank"] for r in d["rows"]] == [0, 3, 5, 6, 7, 15]
n = d["columns_total"]
for r in d["rows"]:
    cells = [c for c in r["cells"] if c is not None]
    assert cells == list(range(r["events"])), r["rank"]
    assert len(r["cells"]) == n and len(r["symbols"]) == n
for c in range(n):
    col = [r["symbols"][c] for r in d["rows"] if r["symbols"][c] is not None]
    assert col, "empty column"
    if d["method"] == "hierarchical":
        assert len(set(col)) == 1, "a hierarchical column holds one symbol"
st = d["stats"]
assert st["conserved"] + st["gapped"] + (st["mixed"] if False else 0) >= n - st["mixed"]
EOF
	done
}

@test "align --hierarchical: splits along the call tree and aligns less" {
	run -0 tc align --ranks 0,1,5,15 "$SET"
	cells_p=$(echo "$output" | sed -n 's/^work: .* over \([0-9]*\) cells$/\1/p')
	run -0 tc align --hierarchical --ranks 0,1,5,15 "$SET"
	assert_line --regexp "^method: +hierarchical \(along the call tree\)"
	assert_line --regexp "^columns: +42: 10 conserved, 32 with gaps, 0 mixed"
	cells_h=$(echo "$output" | sed -n 's/^work: .* over \([0-9]*\) cells$/\1/p')
	[ "$cells_h" -lt "$cells_p" ]
	# two ranks with --hierarchical give a block too
	run -0 tc align --hierarchical --ranks 0,5 "$SET"
	assert_line --regexp "^multiple alignment of 2 ranks"
}

@test "align --cluster: the ranks of one cluster of a clustering mode" {
	run -0 tc align --cluster 4 --mode callpath "$SET"
	# cluster 4 of the call-path clustering is the interior, ranks 5 6 9 10
	assert_line --regexp "^multiple alignment of 4 ranks"
	assert_line --regexp "^ +col +5 +6 +9 +10$"
	assert_line --regexp "^columns: +42: 42 conserved, 0 with gaps, 0 mixed; identity 1\.0000$"
	run -2 --separate-stderr tc align --cluster 99 --mode callpath "$SET"
	[[ "$stderr" == *"--cluster 99: mode callpath made 9 clusters (0 to 8)"* ]]
	run -2 tc align --cluster 1 --mode frobnicate "$SET"
	# the default mode is structural: its cluster 4 is the interior too
	run -0 tc align --cluster 4 "$SET"
	assert_line --regexp "^ +col +5 +6 +9 +10$"
}

@test "cluster --mode structural: the groups of the concept lattice as clusters" {
	run -0 tc cluster --mode structural --json "$SET"
	echo "$output" >cl.json
	run -0 tc align --similarity json -o sim.json "$SET"
	python3 - <<'EOF'
import json
cl = json.load(open("cl.json"))
sim = json.load(open("sim.json"))
assert cl["mode"] == "structural"
assert [c["ranks"] for c in cl["clusters"]] == [g["ranks"] for g in sim["groups"]]
assert [c["lead"] for c in cl["clusters"]] == [g["lead"] for g in sim["groups"]]
EOF
	check_groups "$SET" sim.json
	run -0 tc cluster --mode structural "$MW"
	assert_line --regexp "^clusters: +2$"
}

@test "align --graph: merged call graph as DOT, SVG and JSON, written atomically" {
	run -0 tc align --graph dot -o g.dot "$SET"
	[ -z "$output" ]
	grep -q '^digraph merged_call_graph {$' g.dot
	grep -q 'stencil2d_exchange_west\\n12/16 processes, 96 events\\ngap: 0,4,8,12' g.dot
	grep -q 'stencil2d_halo_exchange\\n16/16 processes' g.dot
	run -0 tc align --graph svg -o g.svg "$SET"
	python3 -c 'import xml.etree.ElementTree as E; r = E.parse("g.svg").getroot(); assert r.tag.endswith("svg")'
	grep -q '<title>stencil2d_exchange_north: 12 of 16 processes' g.svg
	run -0 tc align --graph json --ranks 0,5 "$SET"
	echo "$output" >g.json
	python3 - <<'EOF'
import json
d = json.load(open("g.json"))
assert d["processes"] == 2 and d["ranks"] == [0, 5]
west = [n for n in d["nodes"] if n["name"] == "stencil2d_exchange_west"]
assert len(west) == 1 and west[0]["processes"] == 1 and west[0]["gaps"] == "0"
assert west[0]["ranks"] == "5"
EOF
	# nothing but the outputs is left behind
	[ "$(ls | sort | tr '\n' ' ')" = "g.dot g.json g.svg " ]
}

@test "align --similarity: the structural groups are the corner, edge and interior roles" {
	run -0 tc align --similarity json -o sim.json "$SET"
	check_groups "$SET" sim.json
	python3 - <<'EOF'
import json
d = json.load(open("sim.json"))
assert d["schema"] == 1 and d["processes"] == 16
m, cls = d["matrix"], d["class_of"]
for i in range(16):
    assert m[cls[i]][cls[i]] == 1.0
# a corner and the opposite corner share fewer pairs than neighbours do
assert m[cls[0]][cls[15]] < m[cls[0]][cls[1]] < 1.0
# the lattice holds each group's pair set as the intent of its concept
objs = {tuple(c["objects"]) for c in d["lattice"]["concepts"] if c["objects"]}
assert objs == {tuple(g["ranks"]) for g in d["groups"]}
EOF
	run -0 tc align --similarity csv "$SET"
	[ "${#lines[@]}" -eq 17 ]
	assert_line --index 0 "rank,0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15"
	assert_line --index 6 --regexp "^5,.*,1\.000000,1\.000000,.*"
	run -0 tc align --similarity json "$MW"
	echo "$output" >mw.json
	check_groups "$MW" mw.json
	run -0 tc align --similarity json "$S3"
	echo "$output" >s3.json
	check_groups "$S3" s3.json
	# --threshold joins groups
	run -0 tc align --similarity json --threshold 0.5 "$SET"
	echo "$output" | python3 -c 'import json,sys; assert len(json.load(sys.stdin)["groups"]) == 1'
}

@test "align: output is the same for any thread count" {
	for a in "--ranks 0,5" "--ranks 0-15" "--ranks 0-15 --hierarchical" "--graph svg" \
		"--similarity json" "--json --ranks 3,12"; do
		tc -j1 align $a "$SET" >j1
		tc -j4 align $a "$SET" >j4
		cmp j1 j4
	done
}

@test "align: usage errors exit 2, bad input exits 1 with one line" {
	run -2 --separate-stderr tc align "$SET"
	[[ "$stderr" == *"which ranks? give --ranks or --cluster"* ]]
	run -2 tc align --ranks 5 "$SET"
	run -2 tc align --ranks 1,x "$SET"
	run -2 --separate-stderr tc align --ranks 1,1 "$SET"
	[[ "$stderr" == *"rank 1 given twice"* ]]
	run -2 tc align --ranks 3-1 "$SET"
	run -2 tc align --scores 1,2 --ranks 0,1 "$SET"
	run -2 tc align --key frob --ranks 0,1 "$SET"
	run -2 tc align --engine frob --ranks 0,1 "$SET"
	run -2 tc align --graph png "$SET"
	run -2 tc align --similarity xml "$SET"
	run -2 tc align --ranks 0,1 --cluster 1 "$SET"
	run -2 tc align --ranks 0,1
	run -1 --separate-stderr tc align --ranks 0,99 "$SET"
	[[ "$stderr" == *"no file for rank 99"* ]]
	run -1 --separate-stderr tc align --max-events 10 --ranks 0,1 "$SET"
	[[ "$stderr" == *"rank 0 has more than 10 events (see --max-events)"* ]]
	run -1 --separate-stderr tc align --ranks 0,1 "$BATS_TEST_TMPDIR/nope"
	[ "${#stderr_lines[@]}" -eq 1 ]
	cp -r "$SET" bad
	truncate -s 100 bad/rank-00001.tcr
	run -1 --separate-stderr tc align --ranks 0,1 bad
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == *"rank-00001.tcr"* ]]
	# an output file that cannot be written leaves nothing behind
	run -1 tc align --ranks 0,1 -o "$BATS_TEST_TMPDIR/no/such/dir/x" "$SET"
}

@test "align --cluster takes the mode's options as long options; they need --cluster" {
	run -0 tc align --cluster 1 --mode kfarthest --max-clusters 2 --json "$SET"
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["schema"] == 2 and d["input"] == sys.argv[2]
' "$output" "$SET"
	n=$(tc cluster --csv --mode kfarthest -k 2 "$SET" | awk -F, 'NR > 1 && $2 == 1' | wc -l)
	run -0 tc align --cluster 1 --mode kfarthest --max-clusters 2 "$SET"
	assert_line --regexp "^multiple alignment of $n ranks? of "
	run -2 --separate-stderr tc align --cluster 2 --mode kfarthest --max-clusters 2 "$SET"
	[[ "$stderr" == *"made 2 clusters (0 to 1)"* ]]
	run -2 --separate-stderr tc align --ranks 0,1 --max-clusters 2 "$SET"
	[[ "$stderr" == *"for --cluster only"* ]]
	# -k is still --key, --threshold the structural one
	run -0 tc align -k op --cluster 1 --mode kfarthest --max-clusters 2 "$SET"
	c=$(tc cluster --csv --mode callpath-param --threshold 0.2 "$SET" | awk -F, '$1 == 5 {print $2}')
	run -0 tc align --cluster "$c" --mode callpath-param --count-threshold 0.2 "$SET"
	run -0 tc align --similarity json --threshold 0.5 "$SET"
}
