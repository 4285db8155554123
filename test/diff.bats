#!/usr/bin/env bats
# tracecluster diff: two runs of the same program (same structure, other
# times) and of different programs, rank by rank and lead by lead.

load helper

setup_file() {
	export A="$BATS_FILE_TMPDIR/a" B="$BATS_FILE_TMPDIR/b" W="$BATS_FILE_TMPDIR/w"
	tracecluster synth --pattern stencil2d --ranks 16 --dims 4x4 --iters 4 --seed 1 -o "$A" >/dev/null
	tracecluster synth --pattern stencil2d --ranks 16 --dims 4x4 --iters 4 --seed 2 -o "$B" >/dev/null
	tracecluster synth --pattern wavefront --ranks 16 --dims 4x4 --iters 2 -o "$W" >/dev/null
	export L="$BATS_FILE_TMPDIR/l"
	tracecluster synth --pattern stencil2d --ranks 16 --dims 4x4 --iters 5 --seed 1 -o "$L" >/dev/null
}

@test "diff: two seeds of one pattern have the same structure and other times" {
	run -0 tc diff "$A" "$B"
	assert_line --regexp "^ranks: +16 compared, 16 identical in structure, 0 diverge$"
	assert_line --regexp "^events: +A 544, B 544; 544 matched, 0 mismatched, 0 only in A, 0 only in B; parameters differ in 0$"
	assert_line --regexp "^time B-A: +[-+][0-9.]+ (s|ms|µs|ns) over matched events"
	assert_line "  none: every rank makes the same calls in the same order in both runs"
	# one row per rank, in rank order
	[ "$(echo "$output" | grep -cE '^ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +0 +0 +0 +0 ')" -eq 16 ]
	# five largest differences per rank
	[ "$(echo "$output" | sed -n '/^largest time/,$p' | grep -cE '^ +[0-9]+ +[0-9]+ ')" -eq 80 ]
}

@test "diff --json: per-rank deltas add up to the change of the span" {
	run -0 tc diff --json "$A" "$B"
	echo "$output" >d.json
	python3 - <<'EOF'
import json
d = json.load(open("d.json"))
assert d["schema"] == 1 and d["key"] == "site" and d["leads"] is None
assert [r["rank_a"] for r in d["ranks"]] == list(range(16))
s = d["summary"]
assert s["compared"] == 16 and s["identical"] == 16 and s["diverging"] == 0
for r in d["ranks"]:
    assert r["first_divergence"] is None
    assert r["matched"] == r["events_a"] == r["events_b"]
    assert r["similarity"] == 1.0
    top = r["top"]
    assert len(top) == 5
    assert all(abs(top[i]["delta_ns"]) >= abs(top[i + 1]["delta_ns"]) for i in range(4))
    assert all(t["delta_ns"] != 0 for t in top)
assert s["delta_ns"] == sum(r["delta_ns"] for r in d["ranks"])
EOF
}

@test "diff: different programs diverge at their first event" {
	run -0 tc diff --top 0 "$A" "$W"
	assert_line --regexp "^ranks: +16 compared, 0 identical in structure, 16 diverge$"
	assert_line "  rank 0, column 0:"
	assert_line "    A #0 MPI_Init stencil2d_setup+0x1c"
	assert_line "    B #0 MPI_Init wavefront_setup+0x1c"
	# compared by operation alone they share Init, sends and receives
	run -0 tc diff --key op --top 0 --ranks 0 "$A" "$W"
	assert_line --regexp "^events: +A 26, B [0-9]+; [1-9][0-9]* matched"
}

@test "diff: a run with one more timestep diverges where it starts" {
	run -0 tc diff --ranks 5,0 --events -C 1 "$A" "$L"
	assert_line --regexp "^ranks: +2 compared, 0 identical in structure, 2 diverge$"
	# the extra step: 10 events more in an interior rank
	assert_line --regexp "^ +5 +42 +52 +42 +0 +0 +10 +0 "
	assert_line --regexp "^ +0 +26 +32 +26 +0 +0 +6 +0 "
	assert_output --partial "events of rank 5 (A) and rank 5 (B):"
	assert_output --partial "matching events"
}

@test "diff --leads: compares the leads of matching clusters" {
	run -0 tc diff --leads callpath --top 1 "$A" "$B"
	assert_line --regexp "^leads: +callpath: 9 clusters in A, 9 in B$"
	assert_line --regexp "^leads: +9 compared, 9 identical in structure, 0 diverge$"
	run -0 tc diff --json --leads callpath --top 0 "$A" "$B"
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["leads"] == "callpath"
assert [r["rank_a"] for r in d["ranks"]] == [0, 1, 3, 4, 5, 7, 12, 13, 15]
assert all(r["rank_a"] == r["rank_b"] for r in d["ranks"])'
	run -2 tc diff --leads frobnicate "$A" "$B"
	# structural leads: the corners, edges and the interior, one lead each
	run -0 tc diff --leads structural --top 0 "$A" "$L"
	assert_line --regexp "^leads: +structural: 9 clusters in A, 9 in B$"
	assert_line --regexp "^leads: +9 compared, 0 identical in structure, 9 diverge$"
}

@test "diff: the same output for any thread count, and -o writes a file" {
	tc -j1 diff --json --events "$A" "$L" >j1
	tc -j4 diff --json --events "$A" "$L" >j4
	cmp j1 j4
	tc -j1 diff "$A" "$W" >t1
	tc -j3 diff "$A" "$W" >t3
	cmp t1 t3
	run -0 tc diff -o out.txt "$A" "$B"
	[ -z "$output" ]
	grep -q '^ranks: ' out.txt
	[ "$(ls)" = "$(printf 'j1\nj4\nout.txt\nt1\nt3')" ]
}

@test "diff: usage errors exit 2, bad input exits 1" {
	run -2 tc diff "$A"
	run -2 tc diff "$A" "$B" "$W"
	run -2 tc diff --ranks 1 --leads callpath "$A" "$B"
	run -2 tc diff --top x "$A" "$B"
	run -2 tc diff --key frob "$A" "$B"
	run -1 --separate-stderr tc diff "$A" "$BATS_TEST_TMPDIR/nope"
	[ "${#stderr_lines[@]}" -eq 1 ]
	run -1 --separate-stderr tc diff --ranks 3,99 "$A" "$B"
	[[ "$stderr" == *"rank 99 is not in"* ]]
	cp -r "$B" bad
	truncate -s 200 bad/rank-00003.tcr
	run -1 --separate-stderr tc diff "$A" bad
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == *"rank-00003.tcr"* ]]
}

@test "diff --leads takes the mode's options; they need --leads" {
	run -0 tc diff --leads kfarthest --max-clusters 2 --top 0 "$A" "$B"
	assert_line --regexp "^leads: +kfarthest: 2 clusters in A, 2 in B$"
	run -0 tc diff --leads kfarthest --max-clusters 1 --top 0 "$A" "$B"
	assert_line --regexp "^leads: +kfarthest: 1 cluster in A, 1 in B$"
	run -0 tc diff --leads callpath-param --threshold 0.2 --top 0 "$A" "$B"
	# -k stays --key
	run -0 tc diff -k op --leads kfarthest --max-clusters 2 --top 0 "$A" "$B"
	assert_line --partial "key op"
	run -2 --separate-stderr tc diff --max-clusters 2 "$A" "$B"
	[[ "$stderr" == *"for --leads only"* ]]
	run -2 --separate-stderr tc diff --leads kmedoid --steps triple "$A" "$B"
}

@test "diff text: times in human units" {
	run -0 tc diff --top 1 "$A" "$B"
	assert_line --regexp "^time B-A: +[-+][0-9.]+ (s|ms|µs|ns) over matched events \([-+][0-9.]+ (s|ms|µs|ns) in calls\)"
	assert_line --regexp "^ +0 +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9]+ +[0-9.]+ (s|ms|µs|ns) +[0-9.]+ (s|ms|µs|ns) +[-+][0-9.]+ (s|ms|µs|ns) +-$"
	refute_output --regexp "[0-9]{7,} ns"
}

@test "diff: call sites do not depend on the program's name or path; what differs is named" {
	rw="$TC_ROOT/${TC_BUILD:-build/default}/test/tools/tcr-rewrite"
	[ -x "$rw" ] || skip "test tools not built"
	mkdir renamed lib
	# the innermost frame of every call site in another executable, or in
	# a shared library
	for f in "$A"/rank-*.tcr; do
		"$rw" "$f" "renamed/${f##*/}" "/scratch/copy/app2" /scratch/copy/app2
		"$rw" "$f" "lib/${f##*/}" "/opt/lib/libstencil.so.1" /opt/lib/libstencil.so.1
	done
	run -0 tc diff --top 0 "$A" renamed
	assert_line --regexp "^ranks: +16 compared, 16 identical in structure, 0 diverge$"
	assert_line --regexp "^events: +A 544, B 544; 544 matched, 0 mismatched"
	run -0 tc diff --top 0 --ranks 0 "$A" lib
	assert_line --regexp "^ranks: +1 compared, 0 identical in structure, 1 diverge$"
	# both events print the same: the line after them says what differs
	assert_line "    A #0 MPI_Init stencil2d_setup+0x1c"
	assert_line "    B #0 MPI_Init stencil2d_setup+0x1c"
	assert_line --regexp "^    differ in call-site frame #0: A synth-stencil2d\+0x[0-9a-f]+ \(stencil2d_setup\+0x1c\), B /opt/lib/libstencil.so.1\+0x[0-9a-f]+ \(stencil2d_setup\+0x1c\)$"
	run -0 tc diff --top 0 --ranks 0 --json "$A" lib
	python3 -c '
import json, sys
fd = json.loads(sys.argv[1])["ranks"][0]["first_divergence"]
assert fd["a"]["where"] == fd["b"]["where"] and fd["differs"].startswith("call-site frame #0: A "), fd
' "$output"
	# where the events print differently there is no such line
	run -0 tc diff --top 0 --ranks 0 "$A" "$W"
	refute_line --regexp "^    differ in "
}
