#!/usr/bin/env bats
# tracecluster signatures: per-rank signatures over the loop-compressed
# event sequences, and every way the input can be bad.

load helper

setup_file() {
	export SET="$BATS_FILE_TMPDIR/st"
	tracecluster synth --pattern stencil2d --ranks 16 --dims 4x4 --iters 6 -o "$SET" >/dev/null
}

setup() {
	cp -r "$SET" "$BATS_TEST_TMPDIR/set"
	S="$BATS_TEST_TMPDIR/set"
}

# ranks in one truth.json call-path group have one call-path signature,
# and different groups have different ones
check_truth() {
	python3 - "$1" "$2" <<'EOF'
import json, sys
truth = json.load(open(sys.argv[1] + "/truth.json"))
sig = json.load(open(sys.argv[2]))
by_rank = {r["rank"]: r for r in sig["ranks"]}
seen = {}
for g in truth["callpath"]["groups"]:
    sigs = {by_rank[r]["callpath"] for r in g["ranks"]}
    assert len(sigs) == 1, (g["label"], sigs)
    s = sigs.pop()
    assert s not in seen, ("two groups share a signature", g["label"], seen.get(s))
    seen[s] = g["label"]
assert sig["distinct"]["callpath"] == truth["callpath"]["count"], sig["distinct"]
EOF
}

@test "signatures: text table of a 4x4 stencil has 9 distinct call paths" {
	run -0 tc signatures "$S"
	assert_line --regexp "^ranks: +16 \(world size 16\)$"
	assert_line --regexp "^distinct: +9 call-path, 9 call-path\+parameter, 9 reference$"
	assert_line --regexp "^format: +0x[0-9a-f]{3} callpath"
	assert_line --regexp "^ +rank +callpath +param +reference +events +nodes +count +src +dest +key +color +tag +comp_ns +comm_ns +loop +types$"
	# one row per rank, in rank order
	[ "$(echo "$output" | grep -cE '^ +[0-9]+ 0x[0-9a-f]{16} ')" -eq 16 ]
	echo "$output" | grep -E '^ +[0-9]+ 0x' | awk '{ print $1 }' | tr '\n' ' ' |
		grep -qx '0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 '
}

@test "signatures --json: schema, ranks and the truth.json call-path groups" {
	run -0 tc signatures --json "$S"
	echo "$output" >sig.json
	python3 - <<'EOF'
import json
d = json.load(open("sig.json"))
assert d["schema"] == 2
assert d["world_size"] == 16
assert [r["rank"] for r in d["ranks"]] == list(range(16))
assert len({r["callpath"] for r in d["ranks"]}) == 9
names = ["callpath", "count", "src", "dest", "key", "color", "tag", "comp", "comm",
         "loop", "types"]
for r in d["ranks"]:
    assert sorted(r["acurdion"]) == sorted(names)
    assert r["acurdion"]["callpath"] == r["callpath"]
    for k in ("callpath", "param", "reference"):
        assert r[k].startswith("0x") and len(r[k]) == 18
    assert r["events"] > r["compressed"]["event_nodes"] > 0
    assert r["compressed"]["loops"] >= 1
# interior ranks of a 4x4 grid: four neighbours, relative offsets -4 -1 +1 +4
inner = [r for r in d["ranks"] if r["rank"] in (5, 6, 9, 10)]
assert len({(r["callpath"], r["param"], r["reference"]) for r in inner}) == 1
assert all(r["acurdion"]["src"] == 0 and r["acurdion"]["dest"] == 0 for r in inner)
assert d["distinct"] == {"callpath": 9, "callpath_param": 9, "reference": 9}
assert "callpath" in d["format"]["signatures"]
assert "key" not in d["format"]["signatures"]
EOF
	check_truth "$S" sig.json
}

@test "signatures: every synth pattern's call-path groups match truth.json" {
	for spec in stencil1d:6 stencil3d:27 wavefront:16 cg:16 ft:16 mg:16 is:16 \
		master-worker:8 phases:16; do
		p=${spec%:*}
		n=${spec#*:}
		tc synth --pattern "$p" --ranks "$n" --iters 4 -q -o "$p"
		tc signatures --json "$p" >"$p.json"
		check_truth "$p" "$p.json" || { echo "pattern $p"; return 1; }
	done
}

@test "signatures: call-path groups survive message sizes that vary per step" {
	tc synth --pattern stencil2d --ranks 16 --iters 8 --count-jitter 0.05 -q -o cj
	run -0 tc signatures --json cj
	echo "$output" >cj.json
	check_truth cj cj.json
	python3 - <<'EOF'
import json
d = json.load(open("cj.json"))
assert d["match"] == "callsite"
# the halo loop folds by call site; the sizes are kept per occurrence
assert all(r["compressed"]["loops"] >= 1 for r in d["ranks"])
assert all(r["compressed"]["varying"] >= 1 for r in d["ranks"])
# every rank sent other sizes: the references all differ
assert d["distinct"]["reference"] == 16
EOF
	# matching whole parameters folds nothing here
	run -0 tc signatures --json --match params cj
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["match"] == "params"
assert all(r["compressed"]["loops"] == 0 for r in d["ranks"])
'
}

@test "signatures --match params: the same signatures on a set without variation" {
	tc signatures --json --match params "$S" >p.json
	tc signatures --json "$S" >c.json
	check_truth "$S" p.json
	python3 - <<'EOF'
import json
p, c = json.load(open("p.json")), json.load(open("c.json"))
for x, y in zip(p["ranks"], c["ranks"]):
    for k in ("callpath", "param", "reference", "acurdion", "events"):
        assert x[k] == y[k], (x["rank"], k)
EOF
}

@test "signatures: output is identical for -j1 and -j2" {
	tc -j1 signatures --json "$S" >a.json
	tc -j2 signatures --json "$S" >b.json
	cmp a.json b.json
	tc signatures -j1 "$S" >a.txt
	tc signatures -j2 "$S" >b.txt
	cmp a.txt b.txt
	tc signatures -j 3 "$S" >c.txt
	cmp a.txt c.txt
}

@test "signatures: event counts agree with info" {
	n=$(tc info --json "$S" | python3 -c 'import json,sys; print(json.load(sys.stdin)["events"])')
	run -0 tc signatures --json "$S"
	echo "$output" | python3 -c "
import json, sys
d = json.load(sys.stdin)
assert d['events'] == $n == sum(r['events'] for r in d['ranks'])
"
}

@test "signatures --window: a window shorter than the loop body folds nothing" {
	run -0 tc signatures --json --window 4 "$S"
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["window"] == 4
assert all(r["compressed"]["loops"] == 0 for r in d["ranks"])
assert all(r["compressed"]["event_nodes"] == r["events"] for r in d["ranks"])
assert d["distinct"]["callpath"] == 9
'
	run -0 tc signatures --json "$S"
	[[ "$output" == *'"window":256'* ]]
}

@test "signatures: a single file is a set of one" {
	run -0 tc signatures "$S/rank-00005.tcr"
	assert_line --regexp "^ranks: +1 \(world size 16\)$"
	assert_line --regexp "^format: +0x000 \(all ranks alike\)$"
}

@test "signatures: empty directory is an error" {
	mkdir empty
	run -1 --separate-stderr tc signatures empty
	assert_equal "$stderr" "tracecluster: 'empty': no trace files (*.tcr) in directory"
	assert_equal "$output" ""
}

@test "signatures: nonexistent directory is an error" {
	run -1 --separate-stderr tc signatures nowhere
	assert_equal "$stderr" "tracecluster: cannot open 'nowhere': No such file or directory"
}

@test "signatures: a corrupt block names file and offset, prints nothing" {
	f="$S/rank-00009.tcr"
	corrupt_byte "$f" 60
	run -1 --separate-stderr tc signatures "$S"
	[[ "$stderr" =~ ^tracecluster:\ \'$f\':\ byte\ [0-9]+:\ block\ checksum\ mismatch$ ]]
	assert_equal "$output" ""
	run -1 --separate-stderr tc signatures --json -j2 "$S"
	[[ "$stderr" =~ block\ checksum\ mismatch$ ]]
	assert_equal "$output" ""
}

@test "signatures: truncated file fails; --salvage warns and goes on" {
	f="$S/rank-00002.tcr"
	size=$(stat -c %s "$f")
	truncate -s $((size - 10)) "$f"
	run -1 --separate-stderr tc signatures "$S"
	[[ "$stderr" =~ ^tracecluster:\ \'$f\':\ byte\ [0-9]+:\ truncated ]]
	run -0 --separate-stderr tc signatures --salvage "$S"
	[[ "$stderr" == *"warning: '$f': salvaged"* ]]
	assert_line --regexp "^ranks: +16 "
}

@test "signatures: not a trace file" {
	printf 'this is not a trace file at all' >"$S/rank-00002.tcr"
	run -1 --separate-stderr tc signatures "$S"
	assert_equal "$stderr" "tracecluster: '$S/rank-00002.tcr': byte 0: not a tracecluster raw trace (bad magic)"
}

@test "signatures: a missing rank fails" {
	rm "$S/rank-00007.tcr"
	run -1 --separate-stderr tc signatures "$S"
	assert_equal "$stderr" "tracecluster: '$S': rank 7 missing (world size 16)"
	assert_equal "$output" ""
}

@test "signatures: usage errors exit 2, --help exits 0" {
	run -2 --separate-stderr tc signatures
	[[ "$stderr" == *"missing DIR"* ]]
	run -2 --separate-stderr tc signatures --bogus "$S"
	[[ "$stderr" == *"unknown option"* ]]
	run -2 --separate-stderr tc signatures "$S" "$S"
	[[ "$stderr" == *"too many arguments"* ]]
	run -2 --separate-stderr tc signatures --window
	[[ "$stderr" == *"'--window' needs a value"* ]]
	run -2 --separate-stderr tc signatures --window 0 "$S"
	[[ "$stderr" == *"out of range"* ]]
	run -2 --separate-stderr tc signatures --window x "$S"
	run -2 --separate-stderr tc signatures --match exact "$S"
	[[ "$stderr" == *"--match: expected params or callsite, got 'exact'"* ]]
	run -2 tc signatures -j x "$S"
	run -0 tc signatures --help
	assert_line --partial "usage: tracecluster signatures"
	run -0 tc help signatures
	assert_line --partial "--window N"
}

@test "signatures: every --help option is in the man page" {
	man="$TC_ROOT/man/tracecluster-signatures.1"
	[ -f "$man" ]
	for opt in $(tc signatures --help | grep -oE -- '--[a-z][a-z-]*' | sort -u); do
		grep -qF -- "${opt//-/\\-}" "$man" || { echo "missing $opt"; return 1; }
	done
}
