#!/usr/bin/env bats
# OTF2 archives (Score-P traces) read through the OTF2 library behind the
# same commands as raw files: the real Score-P trace of
# ../shared/external-traces when that directory exists (those tests skip
# otherwise), and archives tracecluster export writes itself.

load helper

external() {
	local d
	d=$(shared_dir) || true
	[ -n "$d" ] && [ -d "$d/external-traces/otf2" ] || skip "no ../shared/external-traces/otf2"
	PP="$d/external-traces/otf2/score-p-ping-pong"
}

# One archive written from a synthetic set (nonblocking halo exchange).
written() {
	tc synth -q -p "${2:-stencil2d}" -n 8 --iters 3 -o "$1"
	tc export --to otf2 -o "$1.otf2" "$1"
}

# ---- the real Score-P trace ----------------------------------------------------

@test "external: info reads the Score-P ping-pong as a trace set of 2 ranks" {
	external
	run -0 tc info --json "$PP"
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ranks"] == 2 and d["world_size"] == 2 and d["missing"] == [], d
assert d["events"] == 36, d["events"]
assert d["ops"] == {"MPI_Init": 2, "MPI_Finalize": 2, "MPI_Send": 16, "MPI_Recv": 16}, d["ops"]
assert d["writers"] == ["Score-P 7.1"], d["writers"]
# 16K, 32K, ..., 2M each way, counted by the sends and the receives
assert d["message_bytes"] == 4 * sum(16384 << k for k in range(8)), d["message_bytes"]
assert all(f["host"] == "quartz10" for f in d["files"])
'
	# the anchor file names the same set
	run -0 tc info "$PP/traces.otf2"
	assert_output --partial "2 present, world size 2"
}

@test "external: times are the clock ticks over the timer resolution, in ns" {
	external
	run -0 tc dump --json --rank 0 "$PP"
	# MPI_Init entered 725053 ticks after the global offset, at 2095197216 ticks/s
	echo "$output" | head -1 | python3 -c '
import json, sys
e = json.loads(sys.stdin.read())
assert e["op"] == "MPI_Init" and e["t_start"] == 725053 * 10**9 // 2095197216, e
'
}

@test "external: dump agrees with otf2-print record by record" {
	external
	command -v otf2-print >/dev/null || skip "no otf2-print"
	for r in 0 1; do
		tc dump --json --rank $r "$PP" >ours.jsonl
		otf2-print -L $r "$PP/traces.otf2" >theirs.txt
		python3 - ours.jsonl theirs.txt <<'PY'
import json, re, sys
ours = [json.loads(l) for l in open(sys.argv[1])]
p2p = [e for e in ours if e["op"] in ("MPI_Send", "MPI_Recv")]
theirs = []
for line in open(sys.argv[2]):
    m = re.match(r"(MPI_SEND|MPI_RECV)\s+\d+\s+\d+\s+(Receiver|Sender): (\d+).*Tag: (\d+), Length: (\d+)", line)
    if m:
        theirs.append(("MPI_Send" if m.group(1) == "MPI_SEND" else "MPI_Recv",
                       int(m.group(3)), int(m.group(4)), int(m.group(5))))
assert len(theirs) == 16, theirs
assert [(e["op"], e["peer"], e["tag"], e["bytes"]) for e in p2p] == theirs, (p2p, theirs)
assert all(e["comm"] == 0 for e in p2p)
PY
	done
}

@test "external: every command runs on the Score-P trace" {
	external
	run -0 tc signatures --json "$PP"
	echo "$output" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert len(d["ranks"]) == 2 and d["distinct"]["callpath"] == 2, d["distinct"]
'
	run -0 tc cluster --mode callpath "$PP"
	run -0 tc compress -o pp.tct "$PP"
	run -0 tc expand --rank 1 pp.tct
	assert_output --partial "MPI_Recv"
	run -0 tc heatmap -o pp.csv "$PP"
	run -0 tc accuracy --mode callpath "$PP"
	assert_output --regexp "SRC 100.00%"
	run -0 tc replay "$PP"
	assert_output --partial "16 messages"
	run -0 tc export --to chrome -o pp.json "$PP"
	run -0 tc export --to otf2 -o pp.otf2 "$PP"
	run -0 tc info pp.otf2
	assert_output --partial "events:      36"
}

# ---- archives written by tracecluster export ----------------------------------------

@test "otf2: an exported set reads back with the same op, peer, tag, bytes and communicator per rank" {
	for p in stencil2d ft is master-worker; do
		written $p $p
		tc dump --json --rank 0 $p >/dev/null
		python3 - $p <<'PY'
import json, subprocess, sys
p = sys.argv[1]
def dump(path, r):
    out = subprocess.run(["tracecluster", "dump", "--json", "--rank", str(r), path],
                         check=True, capture_output=True, text=True).stdout
    return [json.loads(l) for l in out.splitlines()]
for r in range(8):
    a, b = dump(p, r), dump(p + ".otf2", r)
    assert len(a) == len(b), (p, r, len(a), len(b))
    for x, y in zip(a, b):
        assert x["op"] == y["op"], (p, r, x, y)
        # OTF2 keeps bytes, not counts and datatypes
        assert x.get("bytes") == y.get("bytes"), (p, r, x, y)
        assert x.get("tag") == y.get("tag"), (p, r, x, y)
        assert x.get("comm") == y.get("comm"), (p, r, x, y)
        assert x.get("root") == y.get("root"), (p, r, x, y)
        assert x["t_start"] == y["t_start"] and x["t_end"] == y["t_end"], (p, r, x, y)
        # a wildcard receive is recorded with the rank that sent
        if x.get("peer") != "MPI_ANY_SOURCE":
            assert x.get("peer") == y.get("peer"), (p, r, x, y)
        assert [c.get("source") for c in x.get("completions", [])] == \
               [c.get("source") for c in y.get("completions", [])], (p, r, x, y)
PY
	done
}

@test "otf2: clustering an exported set finds the same clusters as the raw set" {
	written s stencil2d
	tc cluster --json --mode callpath s | python3 -c '
import json, sys; print(len(json.load(sys.stdin)["clusters"]))' >raw.n
	tc cluster --json --mode callpath s.otf2 | python3 -c '
import json, sys; print(len(json.load(sys.stdin)["clusters"]))' >otf2.n
	run cat raw.n otf2.n
	[ "$(cat raw.n)" = "$(cat otf2.n)" ]
	run -0 tc compress -o s.tct s.otf2
	run -0 tc accuracy --mode callpath s.otf2
	assert_output --regexp "SRC 100.00%"
}

@test "otf2: --format otf2 and detection in a directory" {
	written s
	run -0 tc info --format otf2 s.otf2
	run -0 tc info --format otf2 s.otf2/traces.otf2
	run -1 --separate-stderr tc info --format otf2 s
	assert_equal "$stderr" "tracecluster: 's': no OTF2 anchor file (*.otf2) in directory"
	cp s.otf2/traces.otf2 s.otf2/other.otf2
	run -1 --separate-stderr tc info s.otf2
	assert_equal "$stderr" "tracecluster: 's.otf2': 2 OTF2 anchor files (*.otf2) in directory: give one of them"
}

@test "otf2: damaged archives give a one-line error naming the archive" {
	written s
	cp -r s.otf2 a && printf '\003BOTF2 not really' >a/traces.otf2
	run -1 --separate-stderr tc info a
	[ "${#lines[@]}" -eq 0 ]
	[[ "$stderr" == "tracecluster: 'a/traces.otf2': "* ]]
	[ "$(echo "$stderr" | wc -l)" -eq 1 ]
	cp -r s.otf2 b && rm b/traces.def
	run -1 --separate-stderr tc info b
	[[ "$stderr" == "tracecluster: 'b/traces.otf2': "* ]]
	cp -r s.otf2 c && head -c 40 s.otf2/traces/3.evt >c/traces/3.evt
	run -1 --separate-stderr tc signatures c
	[[ "$stderr" == "tracecluster: 'c/traces.otf2': "* ]]
	[ "$(echo "$stderr" | wc -l)" -eq 1 ]
	cp -r s.otf2 d && rm d/traces/5.evt
	run -1 --separate-stderr tc dump --rank 5 d/traces.otf2
	[[ "$stderr" == "tracecluster: 'd/traces.otf2': "* ]]
}

@test "otf2: flipped bytes in every file of an archive never crash" {
	written s
	# the library sizes one allocation from the anchor: under ASan a huge
	# request must fail like malloc does, not abort
	export ASAN_OPTIONS="allocator_may_return_null=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
	for f in traces.otf2 traces.def traces/3.def traces/3.evt; do
		sz=$(stat -c %s "s.otf2/$f")
		for i in $(seq 1 12); do
			off=$(( (i * 7919) % sz ))
			rm -rf m && cp -r s.otf2 m
			corrupt_byte "m/$f" "$off"
			run --separate-stderr tc signatures m
			[ "$status" -le 1 ] || { echo "$f@$off: status $status"; false; }
			[ "$(printf '%s' "$stderr" | grep -c .)" -le 1 ] || { echo "$f@$off: $stderr"; false; }
		done
	done
}
