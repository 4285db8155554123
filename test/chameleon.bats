#!/usr/bin/env bats
# Chameleon (dissertation ch. 5): cluster --mode chameleon and compress
# --mode chameleon on synth trace sets: the state sequence and the
# re-clusterings follow the phase changes of truth.json, a steady pattern
# clusters once and stays in L, the online global trace expands to the
# same events as the offline kfarthest trace, the options, and the same
# output for every thread count.

load helper

setup_file() {
	export PH="$BATS_FILE_TMPDIR/ph"
	tracecluster synth --pattern phases --ranks 8 --phases 4 --iters 6 -o "$PH" >/dev/null
	export ST="$BATS_FILE_TMPDIR/st"
	tracecluster synth --pattern stencil2d --ranks 16 --dims 4x4 --iters 12 -o "$ST" >/dev/null
	export STEADY="$BATS_FILE_TMPDIR/steady"
	tracecluster synth --pattern phases --ranks 6 --phases 1 --iters 10 -o "$STEADY" >/dev/null
}

# expected_states DIR: the states Alg. 6 goes through for truth.json's
# phases (every phase at least 4 steps, one marker call per step): the
# first call AT, the second AT too (the first interval holds MPI_Init),
# then C and L; each later phase starts with L (leaving L merges the
# leads' traces) and re-clusters at its second step
expected_states() {
	python3 - "$1" <<'EOF'
import json, sys
t = json.load(open(sys.argv[1] + "/truth.json"))
out = []
for p in t["phases"]:
    n = p["steps"]
    assert n >= 4
    if p["index"] == 0:
        out += ["AT", "AT", "C"] + ["L"] * (n - 3)
    else:
        out += ["L", "C"] + ["L"] * (n - 2)
print(" ".join(out))
EOF
}

@test "chameleon: phases give the state sequence of Alg. 6 and a re-clustering per phase" {
	run -0 tc cluster --mode chameleon --json "$PH"
	echo "$output" >"$BATS_TEST_TMPDIR/c.json"
	want=$(expected_states "$PH")
	got=$(jq -r '.chameleon.states | join(" ")' "$BATS_TEST_TMPDIR/c.json")
	[ "$got" = "$want" ]
	nphases=$(jq '.phases | length' "$PH/truth.json")
	run -0 jq -r '.chameleon | "\(.reclusterings) \(.in_state.C) \(.calls) \(.marker_calls)"' \
		"$BATS_TEST_TMPDIR/c.json"
	[ "$output" = "$nphases $nphases 24 24" ]
	# the marker is truth.json's
	site=$(jq -r '.marker.callsite' "$PH/truth.json")
	run -0 jq -r '.chameleon.marker | "\(.op) \(.callsite)"' "$BATS_TEST_TMPDIR/c.json"
	[ "$output" = "MPI_Barrier $site" ]
	run -0 jq -r '.chameleon | (.in_state.AT + .in_state.C + .in_state.L) == .calls' \
		"$BATS_TEST_TMPDIR/c.json"
	[ "$output" = true ]
}

@test "chameleon: text report like Table 5.2" {
	run -0 tc cluster --mode chameleon "$PH"
	assert_line --regexp '^marker: +MPI_Barrier at 0x[0-9a-f]{16}, call frequency 1$'
	assert_line --regexp '^calls: +24 marker calls, 24 invocations: C 4, L 18, AT 2$'
	assert_line --regexp '^states: +AT\*2 C L\*4 C L\*5 C L\*5 C L\*4$'
	assert_line --regexp '^clusterings: +4 at markers, 1 at MPI_Finalize; 8 merges into the online trace$'
	assert_line --regexp '^needed: +[0-9]+ of 8 ranks \([0-9.]+%\), [0-9]+ of [0-9]+ events \([0-9.]+%\)$'
}

@test "chameleon: a steady pattern clusters once and then stays in L" {
	run -0 tc cluster --mode chameleon --json "$STEADY"
	run -0 jq -r '.chameleon | "\(.states | join(" ")) \(.reclusterings)"' <<<"$output"
	[ "$output" = "AT AT C L L L L L L L 1" ]
	# stencil2d has no barrier: one Allreduce per timestep is the marker
	run -0 tc cluster --mode chameleon --marker MPI_Allreduce --json "$ST"
	run -0 jq -r '.chameleon | "\(.states | join(" ")) \(.reclusterings) \(.marker.op)"' <<<"$output"
	[ "$output" = "AT AT C L L L L L L L L L 1 MPI_Allreduce" ]
}

@test "chameleon: no barrier in the traces: the marker is found from the loops" {
	# stencil2d's timestep loop: its one collective, the Allreduce
	run -0 tc cluster --mode chameleon --json "$ST"
	run -0 jq -r '.chameleon | "\(.states | join(" ")) \(.reclusterings) \(.marker.op)"' <<<"$output"
	[ "$output" = "AT AT C L L L L L L L L L 1 MPI_Allreduce" ]
	tc cluster --mode chameleon --marker MPI_Allreduce --json "$ST" >named.json
	tc cluster --mode chameleon --marker auto --json "$ST" >auto.json
	tc cluster --mode chameleon --json "$ST" >default.json
	cmp <(jq -S 'del(.options)' named.json) <(jq -S 'del(.options)' auto.json)
	cmp <(jq -S 'del(.options)' named.json) <(jq -S 'del(.options)' default.json)
	# a marker named but never called is still a one-line error
	run -1 --separate-stderr tc cluster --mode chameleon --marker MPI_Barrier "$ST"
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == *"no marker: no MPI_Barrier call"*"--marker"* ]]
	# heatmap --phase needs a named marker
	run -2 --separate-stderr tc heatmap --phase 1 --marker auto "$ST" -o x.csv
	[[ "$stderr" == *"--marker auto is chameleon's"* ]]
}

@test "chameleon: --marker with a call site that is not there fails" {
	run -1 --separate-stderr tc cluster --mode chameleon --marker MPI_Barrier@0x1234 "$PH"
	[[ "$stderr" == *"no MPI_Barrier call at call site 0x0000000000001234"* ]]
	site=$(jq -r '.marker.callsite' "$PH/truth.json")
	run -0 tc cluster --mode chameleon --marker "MPI_Barrier@$site" "$PH"
	assert_line --partial "calls:       24 marker calls"
}

@test "chameleon: bad --marker and --call-frequency are usage errors" {
	run -2 --separate-stderr tc cluster --mode chameleon --marker MPI_Nope "$PH"
	[[ "$stderr" == *"--marker: expected OP[@CALLSITE]"* ]]
	run -2 --separate-stderr tc cluster --mode chameleon --call-frequency 0 "$PH"
	[[ "$stderr" == *"--call-frequency: 0 is out of range"* ]]
	run -2 --separate-stderr tc compress --mode chameleon --marker MPI_Barrier@zz "$PH"
	[[ "$stderr" == *"--marker: expected OP[@CALLSITE]"* ]]
}

@test "chameleon: --call-frequency runs the graph every N marker calls" {
	run -0 tc cluster --mode chameleon --call-frequency 3 --json "$PH"
	run -0 jq -r '.chameleon | "\(.marker_calls) \(.calls) \(.call_frequency)"' <<<"$output"
	[ "$output" = "24 8 3" ]
}

@test "chameleon: the online trace expands to the offline kfarthest trace's events (steady)" {
	tc compress --mode chameleon --marker MPI_Allreduce -o "$BATS_TEST_TMPDIR/ch.tct" "$ST" 2>/dev/null
	tc compress --mode kfarthest -o "$BATS_TEST_TMPDIR/kf.tct" "$ST" 2>/dev/null
	for r in $(seq 0 15); do
		# columns 2 and 3 are rebuilt times (means of different groups)
		tc expand -r "$r" "$BATS_TEST_TMPDIR/ch.tct" | awk '{$2 = $3 = ""; print}' >"$BATS_TEST_TMPDIR/a"
		tc expand -r "$r" "$BATS_TEST_TMPDIR/kf.tct" | awk '{$2 = $3 = ""; print}' >"$BATS_TEST_TMPDIR/b"
		[ -s "$BATS_TEST_TMPDIR/a" ]
		diff -u "$BATS_TEST_TMPDIR/b" "$BATS_TEST_TMPDIR/a"
	done
}

@test "chameleon: with K large enough the online trace gives back every rank's events (phases)" {
	tc compress --mode chameleon -k 64 -o "$BATS_TEST_TMPDIR/ch.tct" "$PH" 2>/dev/null
	tc compress --mode none -o "$BATS_TEST_TMPDIR/none.tct" "$PH" 2>/dev/null
	for r in $(seq 0 7); do
		tc expand -r "$r" "$BATS_TEST_TMPDIR/ch.tct" | awk '{$2 = $3 = ""; print}' >"$BATS_TEST_TMPDIR/a"
		tc expand -r "$r" "$BATS_TEST_TMPDIR/none.tct" | awk '{$2 = $3 = ""; print}' >"$BATS_TEST_TMPDIR/b"
		diff -u "$BATS_TEST_TMPDIR/b" "$BATS_TEST_TMPDIR/a"
	done
}

@test "chameleon: -j1 and -j2 give identical output" {
	tc -j1 cluster --mode chameleon --json "$PH" >"$BATS_TEST_TMPDIR/1.json"
	tc -j2 cluster --mode chameleon --json "$PH" >"$BATS_TEST_TMPDIR/2.json"
	cmp "$BATS_TEST_TMPDIR/1.json" "$BATS_TEST_TMPDIR/2.json"
	tc -j1 cluster --mode chameleon "$PH" >"$BATS_TEST_TMPDIR/1.txt"
	tc -j2 cluster --mode chameleon "$PH" >"$BATS_TEST_TMPDIR/2.txt"
	cmp "$BATS_TEST_TMPDIR/1.txt" "$BATS_TEST_TMPDIR/2.txt"
	tc -j1 compress --mode chameleon -o "$BATS_TEST_TMPDIR/1.tct" "$PH" 2>/dev/null
	tc -j2 compress --mode chameleon -o "$BATS_TEST_TMPDIR/2.tct" "$PH" 2>/dev/null
	cmp "$BATS_TEST_TMPDIR/1.tct" "$BATS_TEST_TMPDIR/2.tct"
}

@test "chameleon: compress reports the states with the online trace" {
	run -0 tc compress --mode chameleon --report-json -o "$BATS_TEST_TMPDIR/ch.tct" "$PH"
	run -0 jq -r '.chameleon | "\(.marker_calls) \(.calls) \(.in_state.C) \(.in_state.L) \(.in_state.AT) \(.reclusterings)"' <<<"$output"
	[ "$output" = "24 24 4 18 2 4" ]
	run -0 tc compress --mode chameleon -o "$BATS_TEST_TMPDIR/ch.tct" "$PH"
	assert_line --regexp '^chameleon: +24 marker calls, 24 invocations: C 4, L 18, AT 2; 8 merges$'
	run -0 tc expand -r 7 "$BATS_TEST_TMPDIR/ch.tct"
}
