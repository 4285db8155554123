#!/usr/bin/env bats
# tracecluster synth: synthetic trace sets with known ground truth.

load helper

PATTERNS="stencil1d stencil2d stencil3d wavefront cg ft mg is master-worker phases"

# groups of a truth section as "label:r,r,r" lines
groups() {
	jq -r ".$2.groups[] | \"\(.label):\(.ranks | map(tostring) | join(\",\"))\"" "$1/truth.json"
}

@test "synth --list names every pattern with a summary" {
	run -0 tc synth --list
	for p in $PATTERNS; do
		assert_line --regexp "^$p +[a-zA-Z0-9]"
	done
	[ "${#lines[@]}" -eq 10 ]
}

@test "synth: every pattern writes P files and truth.json, and info sees P ranks" {
	for p in $PATTERNS; do
		run -0 tc synth --pattern "$p" --ranks 8 --iters 2 -o "$p" -q
		[ "$(ls "$p" | grep -c '^rank-[0-9]\{5\}\.tcr$')" -eq 8 ] || { echo "$p: files"; ls "$p"; false; }
		[ -f "$p/truth.json" ]
		[ -z "$(ls "$p" | grep tmp)" ]
		run -0 tc info --json "$p"
		echo "$output" | jq -e '.ranks == 8 and .world_size == 8 and (.files | length) == 8
			and .missing == [] and .duplicates == [] and .events > 0' >/dev/null ||
			{ echo "$p: $output"; false; }
		jq -e --arg p "$p" '.schema == 1 and .pattern == $p and .ranks == 8
			and .peer_encoding == "relative" and .count_threshold == 0.05
			and ([.callpath.groups[].ranks[]] | sort) == [range(8)]
			and ([.callpath_param.groups[].ranks[]] | sort) == [range(8)]' \
			"$p/truth.json" >/dev/null || { echo "$p: bad truth"; cat "$p/truth.json"; false; }
	done
}

@test "synth: a 4x4 stencil2d has 9 call-path groups: corners, edges, interior" {
	run -0 tc synth --pattern stencil2d --ranks 16 --dims 4x4 -o st
	run -0 groups st callpath
	assert_output "corner-nw:0
edge-n:1,2
corner-ne:3
edge-w:4,8
interior:5,6,9,10
edge-e:7,11
corner-sw:12
edge-s:13,14
corner-se:15"
	jq -e '.dims == [4,4] and .callpath_param.count == 9' st/truth.json
}

@test "synth: is has exactly 3 call-path groups: first, middle, last" {
	run -0 tc synth --pattern is --ranks 9 --iters 2 -o is
	run -0 groups is callpath
	assert_output "first:0
middle:1,2,3,4,5,6,7
last:8"
}

@test "synth: wavefront has 9 groups, cg 2, master-worker 2 (every rank its own by parameters)" {
	tc synth -p wavefront -n 16 --iters 1 -o wf -q
	jq -e '.callpath.count == 9' wf/truth.json
	tc synth -p cg -n 16 --iters 1 -o cg -q
	jq -e '.callpath.count == 2 and .callpath_param.count == 16' cg/truth.json
	run -0 groups cg callpath
	assert_line "diagonal:0,5,10,15"
	tc synth -p master-worker -n 5 --iters 2 -o mw -q
	jq -e '.callpath.count == 2 and .callpath_param.count == 5' mw/truth.json
}

@test "synth: phases truth has per-phase groups and the barrier marker call site" {
	tc synth -p phases -n 5 --phases 4 --iters 3 -o ph -q
	jq -e '(.phases | length) == 4 and .phases[1].first_step == 3 and .phases[1].steps == 3
		and .phases[1].callpath.count == 1 and .phases[2].callpath.count == 2
		and .phases[3].kind == "halo" and .callpath.count == 3
		and .marker.op == "MPI_Barrier"' ph/truth.json
	marker=$(jq -r .marker.callsite ph/truth.json)
	# every timestep ends with MPI_Barrier at that one call site
	n=$(tc dump --json ph/rank-00002.tcr | jq -r 'select(.op == "MPI_Barrier") | .callsite' | sort | uniq -c)
	[ "$(echo "$n" | wc -l)" -eq 1 ]
	[[ "$n" == *" 12 $marker" ]] || { echo "$n / $marker"; false; }
}

@test "synth: -j1 and -j2 give byte-identical files" {
	for p in stencil3d is master-worker mg; do
		tc synth -j1 -p "$p" -n 12 --iters 3 --count-jitter 0.03 -o "a-$p" -q
		tc synth -j2 -p "$p" -n 12 --iters 3 --count-jitter 0.03 -o "b-$p" -q
		for f in "a-$p"/*; do
			cmp "$f" "b-$p/$(basename "$f")"
		done
	done
}

@test "synth: --seed changes times and counts but not the truth" {
	tc synth -p is -n 6 --iters 2 --count-jitter 0.04 --seed 1 -o s1 -q
	tc synth -p is -n 6 --iters 2 --count-jitter 0.04 --seed 2 -o s2 -q
	a=$(jq -c '{callpath, callpath_param}' s1/truth.json)
	b=$(jq -c '{callpath, callpath_param}' s2/truth.json)
	[ "$a" = "$b" ]
	[ "$(jq .options.seed s2/truth.json)" = 2 ]
	run -1 cmp -s s1/rank-00003.tcr s2/rank-00003.tcr
	t1=$(tc dump --json s1/rank-00003.tcr | jq -c '[.op, .callsite, .t_end]')
	t2=$(tc dump --json s2/rank-00003.tcr | jq -c '[.op, .callsite, .t_end]')
	[ "$t1" != "$t2" ]
	# the same calls at the same sites
	[ "$(echo "$t1" | jq -c '.[0:2]')" = "$(echo "$t2" | jq -c '.[0:2]')" ]
}

@test "synth: every message sent is received with the same tag and bytes" {
	for p in stencil2d wavefront cg mg is master-worker phases; do
		tc synth -p "$p" -n 8 --iters 2 --count-jitter 0.03 -o "m-$p" -q
		for f in "m-$p"/rank-*.tcr; do tc dump --json "$f"; done | python3 -c '
import json, sys
from collections import Counter
sent, recv = Counter(), Counter()
for line in sys.stdin:
    e = json.loads(line)
    op = e.get("op")
    if op in ("MPI_Send", "MPI_Isend"):
        sent[(e["rank"], e["peer"], e["tag"], e["bytes"])] += 1
    elif op in ("MPI_Recv", "MPI_Irecv"):
        src = e["peer"]
        if src == "MPI_ANY_SOURCE":
            src = e["completions"][0]["source"]
        recv[(src, e["rank"], e["tag"], e["bytes"])] += 1
assert sent and sent == recv, (sum(sent.values()), sum(recv.values()))
' || { echo "$p: unmatched messages"; false; }
	done
}

@test "synth: file header and events" {
	tc synth -p ft -n 4 --iters 2 -o ft -q
	run -0 tc dump --json --header --no-events ft/rank-00003.tcr
	echo "$output" | jq -e 'select(.record == "header") | .rank == 3 and .world_size == 4
		and .job_id == "synth" and .host == "synth" and .clock == "synthetic"
		and .writer == "tracecluster-synth 0.1.0" and (.program | startswith("ft: "))'
	run -0 tc dump --json ft/rank-00003.tcr
	[ "$(echo "${lines[0]}" | jq -r .op)" = MPI_Init ]
	[ "$(echo "${lines[-1]}" | jq -r .op)" = MPI_Finalize ]
	[ "$(echo "$output" | jq -r 'select(.op == "MPI_Comm_split") | .op' | wc -l)" -eq 2 ]
	run -0 tc dump --comms --no-events ft/rank-00003.tcr
	assert_output --partial "creator=MPI_Comm_split"
	# the same start time for every rank, and for the same seed
	a=$(tc dump --json --header --no-events ft/rank-00000.tcr | jq .start_time_ns)
	b=$(tc dump --json --header --no-events ft/rank-00003.tcr | jq .start_time_ns)
	[ "$a" = "$b" ]
}

@test "synth --json: one-line summary agrees with info" {
	run -0 tc synth -p stencil1d -n 5 --iters 2 -o js --json
	[ "${#lines[@]}" -eq 1 ]
	echo "$output" | jq -e '.schema == 2 and .pattern == "stencil1d" and .ranks == 5 and .output == "js"'
	ev=$(echo "$output" | jq .events)
	by=$(echo "$output" | jq .bytes)
	run -0 tc info --json js
	[ "$(echo "$output" | jq .events)" = "$ev" ]
	[ "$(echo "$output" | jq .bytes)" = "$by" ]
}

@test "synth: --level 0 stores blocks, larger than the default" {
	tc synth -p stencil2d -n 4 --iters 20 -o z1 -q
	tc synth -p stencil2d -n 4 --iters 20 --level 0 -o z0 -q
	[ "$(stat -c %s z0/rank-00000.tcr)" -gt "$(stat -c %s z1/rank-00000.tcr)" ]
	run -0 tc info z0
}

@test "synth: an existing trace set needs --force, which replaces it" {
	tc synth -p stencil1d -n 6 --iters 1 -o d -q
	before=$(md5sum d/rank-00000.tcr)
	run -1 --separate-stderr tc synth -p stencil1d -n 3 --iters 1 -o d
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "$stderr" == *"'d': already holds a trace set (use --force to replace it)"* ]]
	[ "$(md5sum d/rank-00000.tcr)" = "$before" ]
	touch d/notes.txt d/rank-00001.tcr.tmp.999
	run -0 tc synth -p stencil1d -n 3 --iters 1 -o d --force -q
	[ "$(ls d | grep -c '\.tcr$')" -eq 3 ]
	[ -f d/notes.txt ]
	[ ! -e d/rank-00001.tcr.tmp.999 ]
	jq -e '.ranks == 3' d/truth.json
	run -0 tc info d
}

@test "synth: a missing directory is created, with parents" {
	run -0 tc synth -p stencil1d -n 2 --iters 1 -o new/deep/dir -q
	[ -f new/deep/dir/rank-00001.tcr ]
	[ -f new/deep/dir/truth.json ]
}

@test "synth: usage errors exit 2 with one message" {
	run -2 --separate-stderr tc synth -p nope -n 4 -o x
	assert_equal "${stderr_lines[0]}" "tracecluster synth: unknown pattern 'nope' (see --list)"
	run -2 --separate-stderr tc synth -p stencil1d -n 0 -o x
	[[ "${stderr_lines[0]}" == *"--ranks: 0 is out of range"* ]]
	run -2 --separate-stderr tc synth -p stencil1d -n 1048577 -o x
	[[ "${stderr_lines[0]}" == *"--ranks: 1048577 is out of range"* ]]
	run -2 tc synth -p stencil1d -n -3 -o x
	run -2 tc synth -p stencil1d -n four -o x
	run -2 --separate-stderr tc synth -p cg -n 6 -o x
	[[ "${stderr_lines[0]}" == *"pattern 'cg' needs a power-of-two rank count, not 6"* ]]
	run -2 --separate-stderr tc synth -p stencil2d -n 12 --dims 5x3 -o x
	[[ "${stderr_lines[0]}" == *"product 15 is not the rank count 12"* ]]
	run -2 tc synth -p stencil2d -n 12 --dims 4x3x1x1 -o x
	run -2 tc synth -p stencil2d -n 12 --dims 4y3 -o x
	run -2 tc synth -p master-worker -n 1 -o x
	run -2 tc synth -p stencil1d -n 4 --jitter 2 -o x
	run -2 tc synth -p stencil1d -n 4 --count-jitter 0.7 -o x
	run -2 tc synth -p stencil1d -n 4 --phases 2 -o x
	run -2 tc synth -p stencil1d -n 4 --level 10 -o x
	run -2 tc synth -n 4 -o x
	run -2 tc synth -p stencil1d -o x
	run -2 tc synth -p stencil1d -n 4
	run -2 tc synth -p stencil1d -n 4 -o x extra
	run -2 tc synth --bogus
	[ ! -e x ]
}

@test "synth: an unwritable directory fails with exit 1" {
	touch plain
	run -1 --separate-stderr tc synth -p stencil1d -n 2 -o plain/sub
	[ "${#stderr_lines[@]}" -eq 1 ]
	[[ "${stderr_lines[0]}" == "tracecluster: cannot create directory 'plain/sub': Not a directory" ]]
	run -1 --separate-stderr tc synth -p stencil1d -n 2 -o plain
	[[ "${stderr_lines[0]}" == *"'plain': not a directory"* ]]
}

@test "synth: count jitter stays below the COUNT threshold" {
	tc synth -p stencil1d -n 3 --iters 20 --msg-bytes 8000 --count-jitter 0.04 -o cj -q
	tc dump --json cj/rank-00001.tcr | jq -r 'select(.op == "MPI_Isend") | .count' | sort -n | uniq > counts
	[ "$(head -1 counts)" -ge 1000 ]
	[ "$(tail -1 counts)" -lt 1040 ]
	[ "$(wc -l < counts)" -gt 3 ]
	run -0 --separate-stderr tc synth -p stencil1d -n 3 --count-jitter 0.06 -o cj2
	[[ "$stderr" == *"not below the 5% COUNT threshold"* ]]
}
