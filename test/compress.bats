#!/usr/bin/env bats
# tracecluster compress and expand: the global compressed trace (.tct).
#
# What must round-trip (formats/tct.md, "Exactness"): with --mode none or
# --mode reference at 100% precision, `expand --rank R` gives back every
# event of rank R in order with the same op, call site (stack signature)
# and every parameter, i.e. the same `dump --json` objects once the keys
# that depend on the file (callsite_id: a file-local number) and the times
# (t_start, t_end: rebuilt from the mean compute and call times the trace
# keeps) are left out.

load helper

PATTERNS="stencil1d:6 stencil2d:16 stencil3d:27 wavefront:16 cg:16 ft:16 mg:16 is:16 master-worker:8 phases:16"

setup_file() {
	export SETS="$BATS_FILE_TMPDIR/sets"
	mkdir -p "$SETS"
	for spec in $PATTERNS; do
		tracecluster synth --pattern "${spec%:*}" --ranks "${spec#*:}" --iters 4 \
			-o "$SETS/${spec%:*}" >/dev/null
	done
	tracecluster synth --pattern stencil2d --ranks 16 --iters 6 --count-jitter 0.04 \
		-o "$SETS/jitter" >/dev/null
}

# same_events DIR TRACE RANKS: dump of every rank equals its expansion
same_events() {
	local dir=$1 trace=$2 n=$3 r
	mkdir -p ev
	for ((r = 0; r < n; r++)); do
		tracecluster dump --json --rank "$r" "$dir" >"ev/d$r" || return 1
		tracecluster expand --json --rank "$r" "$trace" >"ev/e$r" || return 1
	done
	python3 - "$n" <<'PY'
import json, sys
n = int(sys.argv[1])
def load(p):
    out = []
    for line in open(p):
        o = json.loads(line)
        assert o["record"] == "event"
        for k in ("callsite_id", "t_start", "t_end"):
            o.pop(k, None)
        out.append(o)
    return out
for r in range(n):
    a, b = load("ev/d%d" % r), load("ev/e%d" % r)
    assert len(a) == len(b), (r, len(a), len(b))
    for i, (x, y) in enumerate(zip(a, b)):
        assert x == y, (r, i, x, y)
PY
}

@test "compress --mode none: every synth pattern expands back exactly, every rank" {
	for spec in $PATTERNS; do
		p=${spec%:*} n=${spec#*:}
		run -0 tc compress --mode none "$SETS/$p" -o "$p.tct"
		same_events "$SETS/$p" "$p.tct" "$n" || { echo "pattern $p"; return 1; }
	done
}

@test "compress --mode reference: every synth pattern expands back exactly, every rank" {
	for spec in $PATTERNS; do
		p=${spec%:*} n=${spec#*:}
		run -0 tc compress --mode reference "$SETS/$p" -o "$p.tct"
		same_events "$SETS/$p" "$p.tct" "$n" || { echo "pattern $p"; return 1; }
	done
}

@test "compress: the JSON form expands to the same events as the text form" {
	for p in cg mg master-worker; do
		tc compress -q --mode none --json "$SETS/$p" -o "$p.json"
		head -c 1 "$p.json" | grep -q '{'
		python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['format'] == 'tracecluster-tct' and d['schema'] == 1" "$p.json"
	done
	same_events "$SETS/cg" cg.json 16
	same_events "$SETS/master-worker" master-worker.json 8
}

@test "compress: imported DUMPI and ScalaTrace traces expand back exactly" {
	local dumpi="$TC_ROOT/testdata/dumpi/ring" st="$TC_ROOT/testdata/scalatrace/chain4.st"
	[ -d "$dumpi" ] || skip "no DUMPI fixture"
	run -0 tc compress --mode none "$dumpi" -o ring.tct
	same_events "$dumpi" ring.tct 2
	[ -f "$st" ] || skip "no ScalaTrace fixture"
	run -0 tc compress --mode reference "$st" -o chain.tct
	same_events "$st" chain.tct 4
}

@test "compress: the report, and the text form's header and structure" {
	run -0 tc compress --mode callpath --text "$SETS/stencil2d" -o st.tct
	assert_line --regexp "^global trace: st.tct \(text, timing stats\)$"
	assert_line --regexp "^mode: +callpath, variant default, precision 100%$"
	assert_line --regexp "^ranks: +16 of 16, 9 lead traces merged"
	assert_line --regexp "^size: +[0-9]+ bytes from [0-9]+ bytes of input: [0-9.]+x smaller$"
	assert_line --regexp "^time: +[0-9.]+ s \(load [0-9.]+, cluster [0-9.]+, merge [0-9.]+, write [0-9.]+\)$"
	size=$(stat -c %s st.tct)
	echo "$output" | grep -q "^size: *$size bytes"
	run -0 head -3 st.tct
	assert_line --index 0 "tracecluster-tct 1"
	assert_line --index 1 "world 16"
	assert_line --index 2 "ranks [0-15]"
	# one loop over the timesteps; the interior's neighbours as one 2-D ranklist
	grep -q '^loop 4 {$' st.tct
	grep -q '^  MPI_Irecv site=[0-9]* ranks=\[1-3x4+4\] ' st.tct
	grep -q '^end$' st.tct
	run -0 tc compress --mode callpath --text --report-json "$SETS/stencil2d" -o st2.tct
	echo "$output" | python3 -c '
import json, sys, os
d = json.load(sys.stdin)
assert d["schema"] == 2 and d["mode"] == "callpath" and d["leads"] == 9
assert d["form"] == "text" and d["timing"] == "stats"
inp = sum(os.path.getsize(os.path.join(sys.argv[1], f)) for f in os.listdir(sys.argv[1]) if f.endswith(".tcr"))
assert d["ranks"] == 16 and d["bytes"] == os.path.getsize("st2.tct") and d["input_bytes"] == inp
assert abs(d["ratio"] - inp / d["bytes"]) < 1e-9
for k in ("load", "cluster", "merge", "write", "total"):
    assert d["seconds"][k] >= 0
' "$SETS/stencil2d"
	cmp st.tct st2.tct
}

@test "compress: output is the same bytes for -j1 and -j4, every mode tried" {
	for m in none callpath callpath-param reference kfarthest; do
		tc -j1 compress -q --mode "$m" "$SETS/mg" -o a.tct
		tc -j4 compress -q --mode "$m" "$SETS/mg" -o b.tct
		cmp a.tct b.tct
		tc -j1 compress -q --mode "$m" --json "$SETS/phases" -o a.json
		tc -j4 compress -q --mode "$m" --json "$SETS/phases" -o b.json
		cmp a.json b.json
	done
}

@test "compress: the trace of a stencil hardly grows from 64 to 4096 ranks" {
	# time statistics are kept per rank set, but sets whose means agree
	# are joined: the trace stays about the size of its leads
	for p in 64 4096; do
		tracecluster synth --pattern stencil2d --ranks $p --iters 3 -o s$p >/dev/null
		tc compress --mode callpath-param -o s$p.tct s$p >/dev/null
	done
	a=$(wc -c <s64.tct)
	b=$(wc -c <s4096.tct)
	python3 -c "assert $b <= 1.2 * $a, ($a, $b)"
}

@test "compress: to standard output, the report goes to standard error" {
	run -0 --separate-stderr tc compress --mode none --text "$SETS/stencil1d"
	assert_line --index 0 "tracecluster-tct 1"
	[[ "$stderr" == *"global trace: standard output"* ]]
	run -0 --separate-stderr tc compress -q --mode none "$SETS/stencil1d" -o -
	[ -z "$stderr" ]
}

@test "compress --variant filtering gives the same trace where structures agree" {
	tc compress -q --mode callpath-param --text "$SETS/cg" -o d.tct
	run -0 tc compress --mode callpath-param --text --variant filtering "$SETS/cg" -o f.tct
	assert_line --partial "variant filtering"
	diff <(grep -v '^variant ' d.tct) <(grep -v '^variant ' f.tct)
	grep -q '^variant "filtering"$' f.tct
}

@test "compress --precision: mismatching counts go into balanced histograms" {
	tc compress -q --mode none --text "$SETS/jitter" -o exact.tct
	run -0 tc compress --mode none --text --precision 90 --bins 4 "$SETS/jitter" -o h.tct
	assert_line --regexp "^nodes: .*, [1-9][0-9]* histograms$"
	grep -q '^precision 90$' h.tct
	grep -q '^bins 4$' h.tct
	grep -Eq '^ +count hist ranks=\[[^]]*\] n=[0-9]+ min=[0-9]+@[0-9]+ max=[0-9]+@[0-9]+ bins=' h.tct
	[ "$(stat -c %s h.tct)" -lt "$(stat -c %s exact.tct)" ]
	# at most --bins bins of about equal counts, adding up to n
	grep -E '^ +count hist' h.tct | python3 -c '
import re, sys
for line in sys.stdin:
    n = int(re.search(r" n=(\d+)", line).group(1))
    bins = re.search(r"bins=(\S+)", line).group(1).split(",")
    counts = [int(b.split(":")[1]) for b in bins]
    assert 1 <= len(bins) <= 4 and sum(counts) == n, line
    assert max(counts) <= 2 * n / len(bins) + 1, line
'
	# lossy, but the expansion keeps every event and every other parameter
	same_events_count() {
		python3 - <<'PY'
import json
a = [json.loads(l) for l in open("d.jsonl")]
b = [json.loads(l) for l in open("e.jsonl")]
assert len(a) == len(b)
for x, y in zip(a, b):
    for k in ("op", "callsite", "peer", "tag", "datatype"):
        assert x.get(k) == y.get(k), (k, x, y)
    if x["op"] in ("MPI_Isend", "MPI_Irecv"):
        assert abs(x["count"] - y["count"]) <= 0.1 * x["count"], (x, y)
PY
	}
	tc dump --json --rank 5 "$SETS/jitter" >d.jsonl
	tc expand --json --rank 5 h.tct >e.jsonl
	same_events_count
	# at 0% every mismatch goes into a histogram: no count vectors left
	run -0 tc compress --mode none --text --precision 0 "$SETS/jitter" -o zero.tct
	grep -Eq '^ +count hist ' zero.tct
	! grep -Eq '^ +count (<|[0-9]+@)' zero.tct || false
	# peers drawn from a histogram of several ranks' relative peers wrap
	# around the world as every relative peer does: each one a rank of it
	run -0 tc compress --mode none --text --precision 0 "$SETS/master-worker" -o mw0.tct
	grep -Eq '^ +r?peer hist ' mw0.tct
	for r in $(seq 0 7); do tc expand --json --rank "$r" mw0.tct; done | python3 -c '
import json, sys
n = 0
for line in sys.stdin:
    e = json.loads(line)
    for k in ("peer", "rpeer"):
        p = e.get(k)
        if isinstance(p, int):
            assert 0 <= p < 8, e
            n += 1
assert n > 0'
}

@test "compress: usage errors exit 2" {
	run -2 --separate-stderr tc compress
	[[ "$stderr" == *"missing DIR"* ]]
	run -2 --separate-stderr tc compress --mode nosuch "$SETS/is"
	[[ "$stderr" == *"unknown mode 'nosuch'"* ]]
	run -2 --separate-stderr tc compress --precision 101 "$SETS/is"
	[[ "$stderr" == *"--precision"* ]]
	run -2 --separate-stderr tc compress --precision x "$SETS/is"
	run -2 --separate-stderr tc compress --variant fast "$SETS/is"
	[[ "$stderr" == *"--variant"* ]]
	run -2 --separate-stderr tc compress --bins 0 "$SETS/is"
	run -2 --separate-stderr tc compress --timing exact "$SETS/is"
	[[ "$stderr" == *"--timing: expected stats, rank or none, got 'exact'"* ]]
	run -2 --separate-stderr tc compress --bogus "$SETS/is"
	run -2 --separate-stderr tc compress "$SETS/is" "$SETS/cg"
}

@test "compress: failures exit 1 and leave nothing behind" {
	run -1 --separate-stderr tc compress --mode none "$BATS_TEST_TMPDIR/nosuch" -o x.tct
	[[ "$stderr" == tracecluster:* ]]
	[ ! -e x.tct ]
	run -1 --separate-stderr tc compress --mode none "$SETS/is" -o "$BATS_TEST_TMPDIR/no/dir/x.tct"
	[[ "$stderr" == *"cannot create"* ]]
	cp -r "$SETS/is" broken
	rm broken/rank-00003.tcr
	echo keep >old.tct
	run -1 --separate-stderr tc compress --mode none broken -o old.tct
	[[ "$stderr" == *"3"* ]]
	[ "$(cat old.tct)" = keep ]
	[ -z "$(ls | grep '\.tmp\.')" ]
	# a device is written in place, never replaced
	run -0 tc compress -q --mode none "$SETS/is" -o /dev/null
	[ -c /dev/null ]
}

@test "expand: text lines in the shapes of dump, --limit, standard input" {
	tc compress -q --mode none "$SETS/stencil2d" -o st.tct
	run -0 tc expand --rank 5 st.tct
	assert_line --index 0 --partial "MPI_Init"
	assert_line --index $((${#lines[@]} - 1)) --partial "MPI_Finalize"
	# the same columns as dump, call-site ids aside
	diff <(tc dump --rank 5 "$SETS/stencil2d" | awk '{ $2 = $3 = ""; gsub(/ cs=[0-9]+/, ""); print }') \
		<(tc expand --rank 5 st.tct | awk '{ $2 = $3 = ""; gsub(/ cs=[0-9]+/, ""); print }')
	run -0 tc expand --rank 5 --limit 3 st.tct
	[ "${#lines[@]}" -eq 3 ]
	run -0 bash -c "tracecluster expand --json --rank 0 - <st.tct | head -1"
	assert_output --partial '"record":"event"'
	# times never go backwards
	tc expand --json --rank 7 st.tct | python3 -c '
import json, sys
last = 0
for line in sys.stdin:
    o = json.loads(line)
    assert o["t_start"] >= last and o["t_end"] >= o["t_start"]
    last = o["t_end"]
'
}

@test "expand: errors name the file and the line" {
	tc compress -q --mode none --text "$SETS/stencil1d" -o st.tct
	run -2 --separate-stderr tc expand st.tct
	[[ "$stderr" == *"--rank"* ]]
	run -1 --separate-stderr tc expand --rank 6 st.tct
	[[ "$stderr" == *"rank 6 is not in the trace"* ]]
	head -20 st.tct >trunc.tct
	run -1 --separate-stderr tc expand --rank 0 trunc.tct
	[[ "$stderr" == "tracecluster: 'trunc.tct': line 21: truncated: missing 'end'" ]]
	sed 's/^world 6$/world 0/' st.tct >bad.tct
	run -1 --separate-stderr tc expand --rank 0 bad.tct
	[[ "$stderr" == "tracecluster: 'bad.tct': line 2: bad world size" ]]
	sed 's/^tracecluster-tct 1$/tracecluster-tct 7/' st.tct >new.tct
	run -1 --separate-stderr tc expand --rank 0 new.tct
	[[ "$stderr" == *"line 1: format version 7 is not supported"* ]]
	printf '{"format": "tracecluster-tct", "version": 1, "world_size": 2,' >bad.json
	run -1 --separate-stderr tc expand --rank 0 bad.json
	[[ "$stderr" == "tracecluster: 'bad.json': line 1: "* ]]
	run -1 --separate-stderr tc expand --rank 0 nosuch.tct
	[[ "$stderr" == *"cannot open 'nosuch.tct'"* ]]
	head -c 3000 /dev/urandom >noise.tct
	run -1 --separate-stderr tc expand --rank 0 noise.tct
	[[ "$stderr" == "tracecluster: 'noise.tct': "* ]]
	[ "${#stderr_lines[@]}" -eq 1 ]
}

@test "compress: every rank's communicators in one table, alike in each form; bad entries named" {
	tc compress -q --mode none --text "$SETS/ft" -o ft.tct
	# FT's row and column communicators: an entry for each group of ranks
	# that recorded the same one
	grep -qx 'comm 3 ranks=\[1-13/4\] parent=0 creator=MPI_Comm_split size=4 members=1,5,9,13' ft.tct
	grep -qx 'comm 2 ranks=\[0-3\] parent=0 creator=MPI_Comm_split size=4' ft.tct
	[ "$(grep -c '^comm ' ft.tct)" -eq 8 ]
	tc compress -q --mode none --json "$SETS/ft" -o ft.json
	python3 - ft.tct ft.json <<'PY'
import json, re, sys
text = [l.split() for l in open(sys.argv[1]) if l.startswith("comm ")]
js = json.load(open(sys.argv[2]))["comms"]
assert len(text) == len(js) == 8, (len(text), len(js))
for t, j in zip(text, js):
    kv = dict(w.split("=", 1) for w in t[2:])
    assert int(t[1]) == j["id"] and kv["creator"] == j["creator"], (t, j)
    assert int(kv["size"]) == j["size"] and int(kv["parent"]) == j["parent"], (t, j)
    assert kv.get("members") == (",".join(map(str, j["members"])) if "members" in j else None), (t, j)
PY
	# a trace written before the table reads as it did
	grep -v '^comm ' ft.tct >old.tct
	cmp <(tc expand --json --rank 5 ft.tct) <(tc expand --json --rank 5 old.tct)
	# bad entries: one line naming the file and the line
	n=$(grep -n -m1 '^comm 3 ' ft.tct | cut -d: -f1)
	sed 's/members=1,5,9,13$/members=1,5,99,13/' ft.tct >bad.tct
	run -1 --separate-stderr tc expand --rank 0 bad.tct
	[[ "$stderr" == "tracecluster: 'bad.tct': line $((n + 1)): a communicator's member is not a rank of the world" ]]
	sed 's/^comm 2 ranks=\[0-3\] parent=0 creator=MPI_Comm_split /comm 2 ranks=[0-3] parent=0 /' ft.tct >bad2.tct
	run -1 --separate-stderr tc expand --rank 0 bad2.tct
	[[ "$stderr" == *"line $((n - 1)): comm: expected creator=OPERATION or -" ]]
	sed 's/size=4 members=1,5,9,13$/size=4 members=1,5,9/' ft.tct >bad3.tct
	run -1 --separate-stderr tc expand --rank 0 bad3.tct
	[[ "$stderr" == *"line $((n + 1)): comm: expected members= of its size" ]]
}

@test "compress and expand answer --help" {
	run -0 tc compress --help
	assert_line --index 0 --partial "usage: tracecluster compress"
	run -0 tc help expand
	assert_line --index 0 --partial "usage: tracecluster expand"
}

# same_expansions TRACE_A TRACE_B RANKS: every rank's expansion is the
# same; times may drift by up to 1 ns per event (the binary form keeps
# whole nanoseconds where the text form keeps three decimals) and, under
# --timing stats, by 0.4% (the means of its time entries: 8-bit mantissas)
same_expansions() {
	local a=$1 b=$2 n=$3 r
	for ((r = 0; r < n; r++)); do
		tracecluster expand --rank "$r" "$a" >xa || return 1
		tracecluster expand --rank "$r" "$b" >xb || return 1
		python3 - xa xb <<'PY' || return 1
import sys
a = [l.split() for l in open(sys.argv[1])]
b = [l.split() for l in open(sys.argv[2])]
assert len(a) == len(b), (len(a), len(b))
for i, (x, y) in enumerate(zip(a, b)):
    assert x[3:] == y[3:], (x, y)
    assert abs(int(x[1]) - int(y[1])) <= 2 * (i + 1) + 0.004 * int(y[1]), (x, y)
PY
	done
}

@test "compress: the binary form is the default and holds what the text form holds" {
	for spec in stencil2d:16 cg:16 mg:16 master-worker:8 phases:16 jitter:16; do
		d=${spec%:*} n=${spec#*:}
		for t in stats rank none; do
			tc compress -q --mode none --timing "$t" "$SETS/$d" -o b.tct
			tc compress -q --mode none --timing "$t" --text "$SETS/$d" -o t.tct
			head -c 5 b.tct | od -An -c | grep -q 'T   C   T   B'
			same_expansions b.tct t.tct "$n"
		done
		# a histogram trace (below 100% precision) too
		tc compress -q --mode none --precision 80 --bins 4 "$SETS/$d" -o b.tct
		tc compress -q --mode none --precision 80 --bins 4 --json "$SETS/$d" -o j.tct
		same_expansions b.tct j.tct "$n"
	done
	# every parameter of every rank comes back from the binary form
	tc compress -q --mode none "$SETS/cg" -o cg.tct
	same_events "$SETS/cg" cg.tct 16
}

@test "compress: a clustered trace keeps every member's parameters; --lead-only does not" {
	# FT's ranks split MPI_COMM_WORLD with their own colours: one
	# call-path cluster whose members differ from the lead in a value the
	# signatures do not see
	tc compress -q "$SETS/ft" -o ft.tct
	same_events "$SETS/ft" ft.tct 16
	tc compress -q --lead-only "$SETS/ft" -o lead.tct
	! same_events "$SETS/ft" lead.tct 16 || false
	# members keep their lead's times: the trace barely grows
	[ "$(stat -c %s ft.tct)" -le $(( $(stat -c %s lead.tct) * 3 / 2 )) ]
}

@test "compress: the binary trace is never larger than the raw input, and far smaller than the text" {
	for spec in $PATTERNS jitter:16; do
		d=${spec%:*}
		for m in none callpath-param; do
			run -0 tc compress --mode "$m" --report-json "$SETS/$d" -o b.tct
			python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["form"] == "binary" and d["bytes"] < d["input_bytes"], d
' "$output"
		done
		tc compress -q --mode none --text --timing rank "$SETS/$d" -o t.tct
		tc compress -q --mode none --timing rank "$SETS/$d" -o b.tct
		[ "$(stat -c %s b.tct)" -lt "$(stat -c %s t.tct)" ]
	done
}

@test "expand: a damaged binary trace is an error naming the file and where" {
	tc compress -q --mode none "$SETS/stencil2d" -o st.tct
	size=$(stat -c %s st.tct)
	head -c $((size - 7)) st.tct >trunc.tct
	run -1 --separate-stderr tc expand --rank 0 trunc.tct
	[[ "$stderr" == "tracecluster: 'trunc.tct': byte 1"*": truncated compressed body" ]]
	head -c 12 st.tct >short.tct
	run -1 --separate-stderr tc expand --rank 0 short.tct
	[[ "$stderr" == "tracecluster: 'short.tct': "*"truncated header" ]]
	cp st.tct flip.tct
	corrupt_byte flip.tct $((size - 20))
	run -1 --separate-stderr tc expand --rank 0 flip.tct
	[[ "$stderr" == "tracecluster: 'flip.tct': byte "*": "*@(corrupt compressed body|checksum mismatch: the trace is damaged|truncated compressed body) ]]
	cp st.tct ver.tct
	printf '\007' | dd of=ver.tct bs=1 seek=8 conv=notrunc status=none
	run -1 --separate-stderr tc expand --rank 0 ver.tct
	[[ "$stderr" == *"'ver.tct': byte 8: binary global trace version 7 is not supported"* ]]
	cp st.tct codec.tct
	printf '\011' | dd of=codec.tct bs=1 seek=9 conv=notrunc status=none
	run -1 --separate-stderr tc expand --rank 0 codec.tct
	[[ "$stderr" == *"'codec.tct': byte "*": unknown compression" ]]
	cat st.tct st.tct >twice.tct
	run -1 --separate-stderr tc expand --rank 0 twice.tct
	[[ "$stderr" == *"'twice.tct': byte "*": data after the compressed body" ]]
	# to a pipe, the binary form is written as to a file
	tc compress -q --mode none "$SETS/stencil2d" | cmp - st.tct
}

@test "compress: ranks with equal traces share one in memory, and a lead keeps its own times" {
	# a 5x5 grid: kmedoid's one lead, with times compared exactly, is rank
	# 19, on the right side, whose trace equals rank 9's but for its times;
	# the trace built must carry rank 19's own times, as a compress of rank
	# 19 alone does
	tracecluster synth --pattern stencil2d --ranks 25 --dims 5x5 --iters 4 --jitter 0.2 -o g >/dev/null
	run -0 tc cluster --mode kmedoid -k 1 --noise 0 --json g
	python3 -c 'import json, sys; assert [c["lead"] for c in json.loads(sys.argv[1])["clusters"]] == [19]' "$output"
	tc compress -q --mode kmedoid -k 1 --noise 0 --lead-only --timing rank -o k.tct g
	tc compress -q --mode none --timing rank -o own19.tct g/rank-00019.tcr
	tc compress -q --mode none --timing rank -o own9.tct g/rank-00009.tcr
	tc expand --rank 19 k.tct >k19
	tc expand --rank 19 own19.tct >o19
	tc expand --rank 9 own9.tct >o9
	cmp k19 o19
	# rank 9's times differ: the check can fail
	! cmp -s <(cut -c1-30 o9) <(cut -c1-30 o19) || false
	# any thread count, every mode that keeps the traces
	for m in callpath-param kfarthest structural reference; do
		tc -j1 compress -q --mode "$m" -o a.tct g
		tc -j3 compress -q --mode "$m" -o b.tct g
		cmp a.tct b.tct
	done
}

@test "compress --accuracy: one line with the numbers tracecluster accuracy gives" {
	for t in stats rank; do
		run -0 tc compress --accuracy --timing "$t" -o t.tct "$SETS/jitter"
		line=$(grep '^accuracy:' <<<"$output")
		run -0 tc accuracy --mode callpath-param --timing "$t" --json "$SETS/jitter"
		python3 - "$line" "$output" <<'PY'
import json, re, sys
line, acc = sys.argv[1], json.loads(sys.argv[2])
got = dict(re.findall(r"(#?[A-Z]+) ([0-9.]+)%", line))
for k, j in (("COUNT", "count"), ("LOOP", "loop"), ("#EVENTS", "events"), ("SRC", "src"),
             ("DEST", "dest"), ("TAG", "tag"), ("COMM", "comm")):
    assert abs(float(got[k]) - acc["match"][j + "_pct"]) < 0.006, (k, got, acc["match"])
assert abs(float(got["ACC"]) - 100 * acc["acc"]) < 0.006, (got, acc["acc"])
m = re.search(r"\(communication only ([0-9.]+)%, own compute times ([0-9.]+)%\)", line)
assert abs(float(m[1]) - 100 * acc["acc_comm"]) < 0.006, (line, acc)
assert abs(float(m[2]) - 100 * acc["acc_own_times"]) < 0.006, (line, acc)
PY
	done
	run -0 tc compress --accuracy --mode none --report-json -o n.tct "$SETS/ft"
	python3 -c '
import json, sys
a = json.loads(sys.argv[1])["accuracy"]
assert all(v == 100 for v in a["match"].values()), a
assert 0 <= a["acc"] <= 1 and not a["replay"]["stalled"], a
assert a["acc_comm"] == 1 and a["acc_own_times"] == 1 and a["error"]["operations"] == 0, a
' "$output"
	run -1 tc compress --accuracy -o x.tct n.tct
	assert_output --partial "n.tct"
}

@test "compress: the output replaces a symlink planted at its name, never its target, and leaves no temporary file" {
	echo precious >victim
	ln -s victim out.tct
	tc compress -q -o out.tct "$SETS/stencil2d"
	[ "$(cat victim)" = precious ]
	[ ! -L out.tct ]
	run -0 tc expand --rank 3 --limit 1 out.tct
	[ "$(stat -c %a out.tct)" = 644 ]
	[ -z "$(ls | grep '\.tmp\.')" ]
	# a failed write leaves nothing behind either
	mkdir ro && chmod 555 ro
	if ! touch ro/probe 2>/dev/null; then
		run -1 tc compress -q -o ro/x.tct "$SETS/stencil2d"
		[ -z "$(ls ro)" ]
	fi
}
