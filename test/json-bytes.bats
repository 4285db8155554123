#!/usr/bin/env bats
# Strings that are not UTF-8 in JSON output (formats/tct.md, "Bytes that
# are not UTF-8"): a trace whose program name and call-site module path
# hold bytes such as 0xff keeps them in dump --json and in the JSON form
# of the global trace, which expands like the binary form. The trace set
# is a synth one rewritten by test/tools/tcr-rewrite.

load helper

REWRITE="$TC_ROOT/${TC_BUILD:-build/default}/test/tools/tcr-rewrite"

setup_file() {
	local f
	export SET="$BATS_FILE_TMPDIR/bytes"
	# 0xff 0xfe, a Latin-1 e-acute, and the UTF-8 of U+EF80 (an encoded byte's look)
	export PROG=$'/tmp/\xff\xfe/app --name=caf\xe9 \xee\xbe\x80'
	export MOD=$'/opt/m\xff/lib\xc3\xa9app.so'
	tracecluster synth --pattern stencil2d --ranks 4 --iters 3 -o "$BATS_FILE_TMPDIR/st" >/dev/null
	mkdir -p "$SET"
	for f in "$BATS_FILE_TMPDIR"/st/rank-*.tcr; do
		"$REWRITE" "$f" "$SET/${f##*/}" "$PROG" "$MOD" || return 1
	done
}

# The Python decoder of the convention: U+EF80..U+EFFF is one byte.
PYDEC='
import json, os, sys
def load(s):
    # strict JSON: valid UTF-8, no control characters in strings, no NaN
    def bad(c):
        raise ValueError("not JSON: " + c)
    return json.loads(s.decode("utf-8", "strict"), strict=True, parse_constant=bad)
def dec(s):
    return b"".join(bytes([ord(c) - 0xEF00]) if 0xEF80 <= ord(c) <= 0xEFFF
                    else c.encode("utf-8") for c in s)
PROG = os.environb[b"PROG"]
MOD = os.environb[b"MOD"]
'

@test "json bytes: dump --json keeps a program name and module path that are not UTF-8" {
	tc dump --json --header --callsites "$SET/rank-00002.tcr" >d.jsonl
	python3 -c "$PYDEC"'
n = m = 0
for line in open("d.jsonl", "rb"):
    o = load(line)
    if o["record"] == "header":
        assert dec(o["program"]) == PROG, o["program"]
        n += 1
    elif o["record"] == "callsite":
        assert dec(o["frames"][0]["module"]) == MOD, o["frames"][0]
        for f in o["frames"][1:]:
            assert dec(f["module"]) == b"synth-stencil2d"
        m += 1
assert n == 1 and m > 3, (n, m)
'
}

@test "json bytes: compress --json writes the bytes back exactly and expands like the binary form" {
	tc compress -q --mode none --json "$SET" -o g.json
	tc compress -q --mode none "$SET" -o g.tct
	tc dump --json --callsites --no-events "$SET/rank-00000.tcr" >cs.jsonl
	python3 -c "$PYDEC"'
g = load(open("g.json", "rb").read())
raw = {}
for line in open("cs.jsonl", "rb"):
    o = load(line)
    raw[o["signature"]] = [(dec(f["module"]), f["offset"], dec(f["symbol"])) for f in o["frames"]]
assert g["sites"]
for s in g["sites"]:
    fr = [(dec(f["module"]), f["offset"], dec(f["symbol"])) for f in s["frames"]]
    assert fr[0][0] == MOD, fr
    if s["signature"] in raw:
        assert fr == raw[s["signature"]], (fr, raw[s["signature"]])
'
	for r in 0 1 2 3; do
		tc expand --json --rank $r g.json >j$r.jsonl
		tc expand --json --rank $r g.tct >b$r.jsonl
		python3 -c "$PYDEC"'
def ev(p):
    out = []
    for line in open(p, "rb"):
        o = load(line)
        for k in ("t_start", "t_end"):
            o.pop(k, None)
        out.append(o)
    return out
a, b = ev(sys.argv[1]), ev(sys.argv[2])
assert len(a) > 10 and a == b, (len(a), len(b))
' j$r.jsonl b$r.jsonl
	done
}

@test "json bytes: JSON outputs over the trace set are strict JSON; info keeps a path that is not UTF-8" {
	local d=$'set\xff'
	cp -r "$SET" "$d"
	tc info --json "$d" >info.json 2>/dev/null
	tc cluster --json "$d" >cluster.json
	tc signatures --json "$d" >sig.json
	tc align --graph json "$d" >graph.json
	tc compress -q --mode none --report-json "$d" -o g.tct >report.json
	for f in info.json cluster.json sig.json graph.json report.json; do
		python3 -c "$PYDEC"'
load(open(sys.argv[1], "rb").read())
' "$f" || return 1
	done
	python3 -c "$PYDEC"'
o = load(open("info.json", "rb").read())
assert dec(o["input"]) == b"set\xff", o["input"]
assert [dec(f["path"]) for f in o["files"]] == [b"set\xff/rank-%05d.tcr" % r for r in range(4)]
'
}
