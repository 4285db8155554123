#!/usr/bin/env bats
# Other tools' traces: ScalaTrace V2 global traces and SST DUMPI, behind
# the same commands as raw files. Small fixtures of both formats live in
# testdata/; the real traces of ../shared/external-traces are used when
# that directory exists (the tests skip otherwise).

load helper

setup() {
	FX="$TC_ROOT/testdata"
	ST="$FX/scalatrace/chain4.st"
	DU="$FX/dumpi/ring"
}

external() {
	local d
	d=$(shared_dir) || true
	[ -n "$d" ] && [ -d "$d/external-traces" ] || skip "no ../shared/external-traces"
	X="$d/external-traces"
}

# ---- ScalaTrace fixtures ---------------------------------------------------

@test "scalatrace: info expands a global trace into one stream per rank" {
	run -0 tc info --json "$ST"
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ranks"] == 4 and d["world_size"] == 4, d
assert [f["rank"] for f in d["files"]] == [0, 1, 2, 3]
assert all(f["path"].endswith("chain4.st") for f in d["files"])
assert [f["events"] for f in d["files"]] == [18, 28, 28, 18]
assert d["events"] == 92
assert d["ops"]["MPI_Isend"] == 30 and d["ops"]["MPI_Waitall"] == 20
assert d["writers"] == ["scalatrace-v2"]
assert sum(f["bytes"] for f in d["files"]) == d["bytes"]
'
}

@test "scalatrace: relative end-points become world ranks" {
	for r in 0 1 2 3; do
		tc dump --json --rank $r "$ST" | python3 -c '
import json, sys
r = int(sys.argv[1])
sends = {o["peer"] for o in map(json.loads, sys.stdin) if o["op"] == "MPI_Isend"}
want = {0: {1}, 1: {0, 2}, 2: {1, 3}, 3: {2}}[r]
assert sends == want, (r, sends)
' $r
	done
}

@test "scalatrace: loops are unrolled and compute gaps come from the histogram means" {
	run -0 tc dump --json --rank 0 "$ST"
	[ "${#lines[@]}" -eq 18 ]
	echo "$output" | python3 -c '
import json, sys
ev = [json.loads(l) for l in sys.stdin]
assert ev[0]["op"] == "MPI_Init" and ev[-1]["op"] == "MPI_Finalize"
# 10 us after MPI_Init (COMP keyed by its signature), lasting 2 us (COMM)
assert (ev[1]["t_start"], ev[1]["t_end"]) == (10000, 12000), ev[1]
# the waitall completes the two requests made in its iteration
w = ev[3]
assert w["op"] == "MPI_Waitall"
assert [c["request"] for c in w["completions"]] == [ev[1]["request"], ev[2]["request"]]
assert w["completions"][1]["source"] == 1
assert all(ev[i]["t_start"] >= ev[i - 1]["t_end"] for i in range(1, len(ev)))
'
}

@test "scalatrace: a directory holding one global trace is that trace" {
	mkdir -p d
	cp "$ST" d/0
	run -0 tc info d
	assert_output --partial "4 present, world size 4"
	run -0 tc signatures d
	assert_output --partial "3 call-path"
}

@test "scalatrace: signatures tell the chain's ends from its middle" {
	run -0 tc signatures --json "$ST"
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
cp = [r["callpath"] for r in d["ranks"]]
assert d["distinct"]["callpath"] == 3, d["distinct"]
assert cp[1] == cp[2] and len({cp[0], cp[1], cp[3]}) == 3, cp
'
}

@test "scalatrace: output is the same for -j1 and -j4" {
	tc -j1 info --json "$ST" >a.json
	tc -j4 info --json "$ST" >b.json
	cmp a.json b.json
	tc -j1 signatures "$ST" >a.txt
	tc -j4 signatures "$ST" >b.txt
	cmp a.txt b.txt
}

@test "scalatrace: malformed traces give one error line naming the line, exit 1" {
	for f in bad-ranklist:"line 1: bad ranklist" \
		 bad-param-ranklist:"line 7: bad ranklist: depth marker -40" \
		 truncated:"line 8: truncated: the file ends inside a line" \
		 unterminated:"line 5: truncated: the last event is not ended by a blank line" \
		 loop-overrun:"line 4: rank 0: loop body runs past the end" \
		 bad-sequence:"line 5: EVENT7 out of sequence"; do
		name=${f%%:*}
		want=${f#*:}
		for cmd in info signatures "dump --rank 0"; do
			run -1 --separate-stderr tc $cmd "$FX/scalatrace/$name.st"
			[ "${#stderr_lines[@]}" -eq 1 ] || { echo "$name/$cmd: $stderr"; false; }
			[[ "$stderr" == "tracecluster: '"*"$name.st': $want"* ]] ||
				{ echo "$name/$cmd: $stderr"; false; }
		done
	done
}

@test "scalatrace: --salvage keeps the events before the damage and warns" {
	run -0 --separate-stderr tc info --salvage "$FX/scalatrace/truncated.st"
	[ "${#stderr_lines[@]}" -eq 4 ]
	[[ "${stderr_lines[0]}" == *"truncated.st': salvaged 1 events"*"line 8: truncated: the file ends inside a line" ]]
	assert_output --partial "4 present, world size 4"
	assert_output --partial "(salvaged)"
	run -0 --separate-stderr tc dump --salvage --rank 1 "$FX/scalatrace/loop-overrun.st"
	assert_output --partial "MPI_Init"
	[[ "$stderr" == *"rank 1: loop body runs past the end of the trace"* ]]
}

@test "--format overrides detection and names an unknown format as a usage error" {
	run -0 tc info --format scalatrace "$ST"
	run -1 --separate-stderr tc info --format dumpi "$ST"
	[[ "$stderr" == *"bad magic (not a DUMPI trace)"* ]]
	run -1 --separate-stderr tc info --format raw "$ST"
	[[ "$stderr" == *"bad magic"* ]]
	run -1 --separate-stderr tc signatures --format scalatrace "$DU"
	[[ "$stderr" == *"no ScalaTrace trace"* ]]
	run -1 --separate-stderr tc dump --format scalatrace "$DU/ring-0000.bin"
	[[ "$stderr" == *"ring-0000.bin': byte 8: binary data (a NUL byte) in a text trace" ]]
	run -1 --separate-stderr tc dump --format scalatrace "$DU/ring.meta"
	[[ "$stderr" == *"ring.meta': line 1: expected 'RANKS:' to start an event" ]]
	for c in info dump signatures; do
		run -2 --separate-stderr tc $c --format vtf "$ST"
		[[ "$stderr" == *"--format: expected raw, scalatrace, dumpi or otf2, got 'vtf'"* ]]
	done
	run -1 --separate-stderr tc info --format otf2 "$ST"
	[[ "$stderr" == *"chain4.st': not a readable OTF2 archive"* ]]
}

@test "dump --rank picks a stream of a global trace, a DUMPI .meta file or directory" {
	run -0 tc dump --header --rank 3 "$ST"
	assert_line --index 0 "format:      scalatrace"
	assert_line --index 1 "rank:        3 of 4"
	run -0 tc dump --header --rank 1 "$DU"
	assert_line --index 1 "rank:        1 of 2"
	run -0 tc dump --json --header --rank 1 "$DU/ring.meta"
	[[ "${lines[0]}" == *'"format":"dumpi"'* ]]
	[[ "${lines[0]}" == *'"rank":1'* ]]
	run -1 --separate-stderr tc dump --rank 7 "$DU"
	[[ "$stderr" == *"no rank 7 in this trace"* ]]
	run -1 --separate-stderr tc dump --rank 9 "$ST"
	[[ "$stderr" == *"no rank 9 in this trace (world size 4)"* ]]
	run -2 tc dump "$DU"
}

# ---- DUMPI fixtures --------------------------------------------------------------

@test "dumpi: the .meta file names the rank files (directory, .meta, one .bin)" {
	for p in "$DU" "$DU/ring.meta"; do
		run -0 tc info --json "$p"
		echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ranks"] == 2 and d["world_size"] == 2 and d["missing"] == []
assert [f["events"] for f in d["files"]] == [17, 17]
assert d["writers"] == ["dumpi 1.0.0"]
assert d["callsites"] == 2
assert d["files"][0]["host"] == "fixture-host"
'
	done
	# one rank file is a set of one: rank 0 is missing
	run -1 tc info "$DU/ring-0001.bin"
	assert_output --partial "1 present, world size 2"
	assert_line --partial "rank 0 missing (world size 2)"
}

@test "dumpi: dump maps functions, handles, statuses and times" {
	run -0 tc dump --json --callsites --comms "$DU/ring-0000.bin"
	echo "$output" | python3 -c '
import json, sys
recs = [json.loads(l) for l in sys.stdin]
ev = [r for r in recs if r["record"] == "event"]
sites = [r for r in recs if r["record"] == "callsite"]
comms = [r for r in recs if r["record"] == "comm"]
assert [e["op"] for e in ev[:4]] == ["MPI_Init", "MPI_Irecv", "MPI_Isend", "MPI_Waitall"]
irecv, isend, wait = ev[1], ev[2], ev[3]
assert (irecv["peer"], irecv["tag"], irecv["count"], irecv["datatype"]) == (1, 5, 8, "MPI_INT")
assert irecv["t_start"] == 1025000 and irecv["t_end"] == 1027000
assert [c["request"] for c in wait["completions"]] == [irecv["request"], isend["request"]]
assert wait["completions"][0]["source"] == 1 and wait["completions"][0]["bytes"] == 32
assert wait["completions"][1]["source"] is None
ar = [e for e in ev if e["op"] == "MPI_Allreduce"][0]
assert ar["redop"] == "MPI_SUM" and ar["datatype"] == "MPI_DOUBLE"
split = [e for e in ev if e["op"] == "MPI_Comm_split"][0]
assert split["color"] == 0 and split["newcomm"] == 4
assert comms and comms[0]["creator"] == "MPI_Comm_split"
bc = [e for e in ev if e["op"] == "MPI_Bcast"][0]
assert bc["comm"] == 4 and bc["root"] == 0
send = [e for e in ev if e["op"] == "MPI_Send"][0]
assert send["datatype"] == "derived" and send["bytes"] == 16
recv = [e for e in ev if e["op"] == "MPI_Recv"][0]
assert recv["peer"] == "MPI_ANY_SOURCE" and recv["completions"][0]["source"] == 1
assert [f["symbol"] for f in sites[1]["frames"]] == ["exchange", "main"]
assert irecv["callsite"] == sites[1]["signature"]
'
}

@test "dumpi: damaged files give one error line with the byte offset, exit 1" {
	for f in badmagic:"bad-0000.bin': byte 0: bad magic (not a DUMPI trace)" \
		 truncated:"trunc-0000.bin': byte 791: no DUMPI index record at the end" \
		 absurd:"absurd-0000.bin': byte 82: absurd array length 2147483647" \
		 badmeta:"x.meta': line 2: bad numprocs 'abc'"; do
		name=${f%%:*}
		want=${f#*:}
		run -1 --separate-stderr tc info "$FX/dumpi/$name"
		[ "${#stderr_lines[@]}" -eq 1 ] || { echo "$name: $stderr"; false; }
		[[ "$stderr" == *"$want"* ]] || { echo "$name: $stderr"; false; }
	done
}

@test "dumpi: --salvage keeps the records before the cut and warns" {
	run -0 --separate-stderr tc info --salvage "$FX/dumpi/truncated"
	[[ "$stderr" == *"trunc-0000.bin': salvaged 8 events"*"truncated MPI_Isend record"* ]]
	assert_output --partial "(salvaged)"
}

@test "dumpi: the old record layout (0.6.1) still reads" {
	run -0 tc dump "$FX/dumpi/old/old-0000.bin"
	[ "${#lines[@]}" -eq 5 ]
	assert_line --index 1 --partial "peer=MPI_ANY_SOURCE"
	assert_line --index 2 --partial "done=[1<0:-1:12B]"
}

# ---- the real traces of ../shared ---------------------------------------------------

@test "external: info reads every ScalaTrace and DUMPI trace" {
	external
	for d in "$X"/scalatrace-v2/t[id]/*/*/*/I "$X"/scalatrace-v2/looplcs/testcase_* "$X/dumpi"; do
		run -0 tc info "$d"
		assert_output --regexp "missing: +none"
		assert_output --partial "MPI_Init"
	done
	run -0 tc info "$X/scalatrace-v2/ti/lu/A/8/I/0"
	assert_output --partial "8 present, world size 8"
}

@test "external: NPB CG gives one call-path signature at 4 and 8 ranks" {
	external
	for t in ti/cg/A/4 ti/cg/A/8 ti/cg/B/4; do
		run -0 tc signatures --json "$X/scalatrace-v2/$t/I/0"
		echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["distinct"]["callpath"] == 1, (sys.argv[1], d["distinct"])
' $t
	done
}

@test "external: NPB LU call paths follow the stencil's corners and edges" {
	external
	for v in ti td; do
		# 2x2: four corners, each its own sweep directions
		run -0 tc signatures --json "$X/scalatrace-v2/$v/lu/A/4/I/0"
		echo "$output" | python3 -c '
import json, sys
cp = [r["callpath"] for r in json.load(sys.stdin)["ranks"]]
assert len(cp) == 4 and len(set(cp)) == 4, cp
'
		# 2x4: corners 0 3 4 7 differ; the inner columns pair up by row
		run -0 tc signatures --json "$X/scalatrace-v2/$v/lu/A/8/I/0"
		echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
cp = [r["callpath"] for r in d["ranks"]]
assert d["distinct"]["callpath"] == 6, d["distinct"]
assert cp[1] == cp[2] and cp[5] == cp[6] and cp[1] != cp[5]
assert len({cp[0], cp[3], cp[4], cp[7], cp[1], cp[5]}) == 6
'
	done
}

@test "external: DUMPI test trace rank 0 agrees with dumpi2ascii field by field" {
	external
	tc dump --json "$X/dumpi/testtrace-0000.bin" >ours.jsonl
	python3 - "$X/dumpi/testtrace-0000.txt" ours.jsonl <<'PY'
import json, re, sys
txt, ours = open(sys.argv[1]).read(), [json.loads(l) for l in open(sys.argv[2])]
calls, cur = [], None
for line in txt.splitlines():
    m = re.match(r"(MPI_\w+) (entering|returning) at walltime (\d+)\.(\d+)", line)
    if m:
        t = int(m.group(3)) * 10**9 + int(m.group(4))
        if m.group(2) == "entering":
            cur = {"op": m.group(1), "t0": t, "args": {}}
        else:
            cur["t1"] = t
            calls.append(cur)
        continue
    m = re.match(r"\S+ (\w+)=(\[?[-\w]+\]?)", line)
    if cur is not None and m:
        cur["args"][m.group(1)] = m.group(2).strip("[]")
start = int(re.search(r"walltime (\d+)\.", txt).group(1)) * 10**9
mapped = [c for c in calls if c["op"] not in ("MPI_Comm_rank", "MPI_Comm_size")]
assert [c["op"] for c in mapped] == [e["op"] for e in ours], ([c["op"] for c in mapped], [e["op"] for e in ours])
dt = {"9": "MPI_INT"}
reqs = {}
for c, e in zip(mapped, ours):
    a = c["args"]
    assert e["t_start"] == c["t0"] - start and e["t_end"] == c["t1"] - start, (c, e)
    assert e["comm"] == (0 if a.get("comm", "2") == "2" else int(a["comm"])), (c, e)
    if "count" in a:
        assert e["count"] == int(a["count"]) and e["datatype"] == dt[a["datatype"]], (c, e)
    if "dest" in a:
        assert e["peer"] == int(a["dest"]) and e["tag"] == int(a["tag"]), (c, e)
    if "source" in a:
        assert e["peer"] == int(a["source"]) and e["tag"] == int(a["tag"]), (c, e)
    if "op" in a:
        assert e["redop"] == "MPI_SUM" and a["op"] == "3", (c, e)
    if c["op"] == "MPI_Isend":
        reqs[a["request"]] = e["request"]
    if c["op"] == "MPI_Wait":
        assert [x["request"] for x in e["completions"]] == [reqs[a["request"]]], (c, e)
PY
}
