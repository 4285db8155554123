#!/usr/bin/env bats
# tracecluster export: OTF2 archives and Chrome/Perfetto trace JSON, from
# trace sets and from global compressed traces.

load helper

setup_file() {
	cd "$BATS_FILE_TMPDIR"
	tracecluster synth -q -p stencil2d -n 8 --iters 4 -o halo
	tracecluster synth -q -p ft -n 8 --iters 2 -o ft
	tracecluster compress -q -o halo.tct halo
}

setup() {
	H="$BATS_FILE_TMPDIR/halo"
	F="$BATS_FILE_TMPDIR/ft"
	G="$BATS_FILE_TMPDIR/halo.tct"
}

@test "export: --help and usage errors" {
	run -0 tc export --help
	assert_output --partial "usage: tracecluster export"
	run -0 tc help export
	run -2 --separate-stderr tc export -o x "$H"
	[ -z "$output" ]
	[[ "$stderr" == *"--to otf2|chrome is required"* ]]
	run -2 --separate-stderr tc export --to chrome "$H"
	[[ "$stderr" == *"-o OUT is required"* ]]
	run -2 --separate-stderr tc export --to vtf -o x "$H"
	[[ "$stderr" == *"--to: expected otf2 or chrome, got 'vtf'"* ]]
	run -2 --separate-stderr tc export --to otf2 -o - "$H"
	run -0 tc --help
	assert_output --partial "export"
}

@test "export otf2: otf2-print reads the archive: one location per rank, matched requests" {
	command -v otf2-print >/dev/null || skip "no otf2-print"
	run -0 tc export --to otf2 -o out "$H"
	[ -f out/traces.otf2 ] && [ -f out/traces.def ] && [ -d out/traces ]
	run -0 otf2-print -G out/traces.otf2
	assert_output --regexp "LOCATION +7 +Name: \"Master thread\""
	assert_output --partial "\"MPI_COMM_WORLD\""
	otf2-print out/traces.otf2 >events.txt
	python3 - events.txt <<'PY'
import re, sys
from collections import Counter
c = Counter()
reqs = {}
for line in open(sys.argv[1]):
    f = line.split()
    if not f or not f[0].startswith(("MPI_", "ENTER", "LEAVE")):
        continue
    c[f[0]] += 1
    m = re.search(r"Request: (\d+)", line)
    if f[0] in ("MPI_ISEND", "MPI_IRECV_REQUEST"):
        reqs[(f[1], m.group(1))] = f[0]
    elif f[0] in ("MPI_ISEND_COMPLETE", "MPI_IRECV"):
        k = (f[1], m.group(1))
        assert k in reqs, line
        want = "MPI_ISEND" if f[0] == "MPI_ISEND_COMPLETE" else "MPI_IRECV_REQUEST"
        assert reqs.pop(k) == want, line
assert not reqs, reqs
assert c["ENTER"] == c["LEAVE"] > 0
assert c["MPI_ISEND"] == c["MPI_ISEND_COMPLETE"] == c["MPI_IRECV_REQUEST"] == c["MPI_IRECV"] > 0, c
PY
}

@test "export otf2: communicators become OTF2 groups and read back per rank" {
	run -0 tc export --to otf2 -o out "$F"
	if command -v otf2-print >/dev/null; then
		run -0 otf2-print -G out/traces.otf2
		assert_output --regexp "COMM +2 +Name: \"Comm 2\""
		assert_output --regexp "GROUP +3 .*Type: COMM_GROUP"
	fi
	for r in 0 5; do
		tc dump --rank $r "$F" | grep -o "MPI_Alltoall .*comm=[0-9]*" | sed 's/cs=[0-9]* //' >a
		tc dump --rank $r out | grep -o "MPI_Alltoall .*comm=[0-9]*" | sed 's/cs=[0-9]* //' >b
		[ -s a ] && diff a b
	done
}

@test "export otf2: a global trace expands to P ranks" {
	run -0 tc export --to otf2 -o gt "$G"
	run -0 tc info --json gt
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ranks"] == 8 and d["world_size"] == 8, d
' 
	for r in 0 3 7; do
		n=$(tc expand --rank $r "$G" | wc -l)
		m=$(tc dump --rank $r gt | wc -l)
		[ "$n" -eq "$m" ]
		tc expand --rank $r "$G" | awk '{print $4}' >a
		tc dump --rank $r gt | awk '{print $4}' >b
		diff a b
	done
}

@test "export otf2: an existing output is never overwritten" {
	mkdir full && echo keep >full/file
	run -1 --separate-stderr tc export --to otf2 -o full "$H"
	assert_equal "$stderr" "tracecluster: 'full': exists and is not an empty directory"
	[ "$(cat full/file)" = keep ]
	mkdir empty
	run -0 tc export --to otf2 -o empty "$H"
	[ -f empty/traces.otf2 ]
	run ls -d empty.tmp.* full.tmp.*
	[ "$status" -ne 0 ]
	run -1 --separate-stderr tc export --to otf2 -o bad "$BATS_FILE_TMPDIR/nothing"
	[ ! -e bad ]
}

@test "export chrome: Trace Event Format with one track per rank and matched flows" {
	run -0 tc export --to chrome -o h.json "$H"
	run -0 tc info --json "$H"
	echo "$output" >info.json
	python3 - h.json info.json <<'PY'
import json, sys
from collections import Counter, defaultdict
d = json.load(open(sys.argv[1]))
info = json.load(open(sys.argv[2]))
ev = d["traceEvents"]
assert d["displayTimeUnit"] == "ns"
x = [e for e in ev if e["ph"] == "X"]
assert len(x) == info["events"], (len(x), info["events"])
assert Counter(e["name"] for e in x) == Counter(info["ops"]), Counter(e["name"] for e in x)
for e in x:
    assert e["pid"] == e["tid"] and 0 <= e["pid"] < 8
    assert isinstance(e["ts"], (int, float)) and e["dur"] >= 0 and e["cat"] == "mpi"
names = {e["pid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "process_name"}
assert names == {r: "rank %d" % r for r in range(8)}, names
# every send starts a flow that a receive ends, inside both slices
s = {e["id"]: e for e in ev if e["ph"] == "s"}
f = {e["id"]: e for e in ev if e["ph"] == "f"}
assert s and set(s) == set(f), (len(s), len(f))
assert all(e.get("bp") == "e" for e in f.values())
slices = defaultdict(list)
for e in x:
    slices[e["pid"]].append(e)
def inside(p):
    return any(e["ts"] <= p["ts"] <= e["ts"] + e["dur"] for e in slices[p["pid"]])
assert all(inside(p) for p in list(s.values()) + list(f.values()))
sends = [e for e in x if e["name"] == "MPI_Isend"]
assert all("peer" in e["args"] and "tag" in e["args"] and "bytes" in e["args"] for e in sends)
PY
}

@test "export chrome: standard output, global traces, same bytes every time" {
	run -0 tc export --to chrome -o - "$G"
	echo "$output" | python3 -c 'import json, sys; assert json.load(sys.stdin)["traceEvents"]'
	tc export --to chrome -o a.json "$H"
	tc -j4 export --to chrome -o b.json "$H"
	cmp a.json b.json
}
