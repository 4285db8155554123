#!/usr/bin/env bats
# tracecluster heatmap: communication matrices as CSV and as figures (PDF,
# SVG, PNG); per communicator, time window and phase; message sizes.

load helper

setup_file() {
	export SETS="$BATS_FILE_TMPDIR/sets"
	mkdir -p "$SETS"
	tracecluster synth --pattern stencil2d --ranks 9 --iters 4 -o "$SETS/st9" >/dev/null
	tracecluster synth --pattern stencil1d --ranks 5 --iters 3 -o "$SETS/st1" >/dev/null
	tracecluster synth --pattern mg --ranks 16 --iters 2 -o "$SETS/mg" >/dev/null
	tracecluster synth --pattern ft --ranks 8 --iters 2 -o "$SETS/ft" >/dev/null
	tracecluster synth --pattern phases --ranks 8 --iters 2 -o "$SETS/ph" >/dev/null
}

# pdf_text FILE: "page W H", then "X Y TEXT" for each text on the page
pdf_text() {
	PYTHONIOENCODING=utf-8 python3 "$TC_ROOT/test/tools/pdftext.py" "$1"
}

# png_size FILE: "W H" from IHDR
png_size() {
	python3 -c 'import struct, sys; d = open(sys.argv[1], "rb").read(); print(*struct.unpack(">II", d[16:24]))' "$1"
}

# dump_events DIR: every event of every rank as JSON lines, each with the
# run-relative start "t" (ns) and the rank's communicators under "comms"
dump_events() {
	for f in "$1"/rank-*.tcr; do
		tc dump --json --header --comms "$f"
	done | python3 -c '
import json, sys
recs = [json.loads(l) for l in sys.stdin]
t0 = min(r["start_time_ns"] for r in recs if r["record"] == "header")
start, comms = 0, {}
for r in recs:
    if r["record"] == "header":
        start, comms = r["start_time_ns"] - t0, {}
    elif r["record"] == "comm":
        comms[r["id"]] = r["members"]
    elif r["record"] == "event":
        r["t"] = start + r["t_start"]
        r["comms"] = comms
        print(json.dumps(r))
'
}

# png_ok FILE: signature, chunk CRCs, IHDR, IDAT inflates to h rows of 1 + 3w bytes
png_ok() {
	python3 - "$1" <<'PY'
import struct, sys, zlib
d = open(sys.argv[1], 'rb').read()
assert d[:8] == b'\x89PNG\r\n\x1a\n', 'signature'
off, chunks, idat = 8, [], b''
while off < len(d):
    n, = struct.unpack('>I', d[off:off + 4])
    t = d[off + 4:off + 8]
    body = d[off + 8:off + 8 + n]
    crc, = struct.unpack('>I', d[off + 8 + n:off + 12 + n])
    assert zlib.crc32(t + body) & 0xffffffff == crc, 'crc of %r' % t
    chunks.append(t)
    if t == b'IHDR':
        w, h, depth, ctype = struct.unpack('>IIBB', body[:10])
    if t == b'IDAT':
        idat += body
    off += 12 + n
assert chunks[0] == b'IHDR' and chunks[-1] == b'IEND' and b'IDAT' in chunks
raw = zlib.decompress(idat)
assert depth == 8 and ctype == 2 and len(raw) == h * (1 + 3 * w), 'size'
print(w, h)
PY
}

svg_ok() {
	python3 -c 'import sys, xml.etree.ElementTree as E; r = E.parse(sys.argv[1]).getroot(); assert r.tag.endswith("svg"); print(len(list(r.iter())))' "$1"
}

@test "heatmap CSV of a 3x3 stencil has exactly the 24 neighbour cells" {
	run -0 tc heatmap -o st.csv "$SETS/st9"
	# every rank sends once per iteration to each grid neighbour (non-periodic)
	python3 - > want.csv <<'PY'
print("src,dst,messages")
for r in range(9):
    x, y = r % 3, r // 3
    out = sorted(((y + dy) * 3 + x + dx) for dx, dy in ((0, -1), (-1, 0), (1, 0), (0, 1))
                 if 0 <= x + dx < 3 and 0 <= y + dy < 3)
    for d in out:
        print("%d,%d,4" % (r, d))
PY
	diff -u want.csv st.csv
	[ "$(tail -n +2 st.csv | wc -l)" -eq 24 ]
}

@test "heatmap CSV of a stencil1d line, bytes metric" {
	run -0 tc heatmap --metric bytes --format csv -o - "$SETS/st1"
	assert_line --index 0 "src,dst,bytes"
	[ "${#lines[@]}" -eq 9 ]
	assert_line --index 1 --regexp '^0,1,[0-9]+$'
	refute_line --regexp '^0,2,'
	refute_line --regexp '^4,[0-3],0$'
}

@test "collectives add their point-to-point equivalents" {
	run -0 tc heatmap -o a.csv "$SETS/ft"
	run -0 tc heatmap --collectives -o b.csv "$SETS/ft"
	[ "$(wc -l < b.csv)" -gt "$(wc -l < a.csv)" ]
}

@test "PDF, SVG and PNG of one drawing: axes, colour bar with its unit, title; valid files" {
	run -0 tc heatmap --title 'st & 9' -o st.pdf "$SETS/st9"
	head -c 5 st.pdf | grep -q '^%PDF-'
	run -0 pdf_text st.pdf
	assert_line --regexp '^[0-9]+ [0-9]+ st & 9$'
	assert_line --regexp '^[0-9]+ [0-9]+ receiver rank$'
	assert_line --regexp '^[0-9]+ [0-9]+ sender rank$'
	assert_line --regexp '^[0-9]+ [0-9]+ messages$'
	run -0 tc heatmap --title 'st & 9' -o st.svg "$SETS/st9"
	run -0 svg_ok st.svg
	grep -q '<title>st &amp; 9</title>' st.svg
	run -0 tc heatmap -o st.png "$SETS/st9"
	run -0 png_ok st.png
	run -0 tc heatmap --diff --mode kfarthest -o d.png "$SETS/mg"
	run -0 png_ok d.png
	run -0 tc heatmap --diff --mode kfarthest -o d.svg "$SETS/mg"
	run -0 svg_ok d.svg
	run -0 tc heatmap --diff --mode kfarthest -o d.pdf "$SETS/mg"
	run -0 pdf_text d.pdf
	assert_line --regexp '^[0-9]+ [0-9]+ clustered \(kfarthest\)$'
	assert_line --regexp '^[0-9]+ [0-9]+ clustered − original$'
}

@test "large P is binned and stays small" {
	tc synth --pattern stencil1d --ranks 1024 --iters 1 -o big >/dev/null
	run -0 tc heatmap -o big.svg big
	run -0 svg_ok big.svg
	[ "$(wc -c < big.svg)" -lt 2000000 ]
	run -0 tc heatmap -o big.pdf big
	run -0 pdf_text big.pdf
	assert_line --regexp '^[0-9]+ [0-9]+ receiver rank \(bins of 4\)$'
	run -0 tc heatmap --max-cells 128 -o big.pdf big
	run -0 pdf_text big.pdf
	assert_line --regexp '^[0-9]+ [0-9]+ sender rank \(bins of 8\)$'
	run -0 tc heatmap -o big.png big
	run -0 png_ok big.png
}

@test "rank labels are round, thinned and apart at 4 to 4096 ranks, one panel and three" {
	for n in 4 64 1024 4096; do
		tc synth --pattern stencil1d --ranks $n --iters 1 -o s$n >/dev/null
		tc heatmap -o s$n.pdf s$n
		tc heatmap --diff --mode reference -o d$n.pdf s$n
		for f in s$n.pdf d$n.pdf; do
			pdf_text $f > $f.txt
			python3 - $n $f.txt <<'PY'
import sys
n, lines = int(sys.argv[1]), open(sys.argv[2], encoding="utf-8").read().split("\n")
_, w, h = lines[0].split()
items = [l.split(" ", 2) for l in lines[1:] if l]
# the receiver labels: numbers sharing the baseline of the first "0"
# under the matrix, left of the first panel's right edge
ys = [int(y) for x, y, t in items if t == "0"]
base = max(ys)
xs = sorted((int(x), int(t)) for x, y, t in items if int(y) == base and t.isdigit())
first = [v for x, v in xs]
first = first[:first.index(0, 1)] if 0 in first[1:] else first
step = first[1] - first[0] if len(first) > 1 else n
assert first[0] == 0 and all(b - a == step for a, b in zip(first, first[1:])), first
m = step
while m % 10 == 0:
    m //= 10
assert m in (1, 2, 5), step
assert 2 <= len(first) <= 12 or n <= 4, first
# 0.64 em per digit at 8 pt: no two labels touch
pos = [x for x, v in xs][:len(first)]
width = 0.64 * 8 * len(str(first[-1]))
assert all(b - a >= width for a, b in zip(pos, pos[1:])), (pos, width)
PY
		done
	done
}

@test "--diff CSV: clustered equals original for reference" {
	run -0 tc heatmap --diff --mode reference -o d.csv "$SETS/mg"
	head -1 d.csv | grep -qx "src,dst,original_messages,clustered_messages,difference_messages"
	run -0 awk -F, 'NR > 1 && $5 != 0' d.csv
	assert_output ""
}

@test "a global trace gives the same matrix as its trace set" {
	tc compress --mode reference -o mg.tct "$SETS/mg" >/dev/null
	run -0 tc heatmap -o a.csv "$SETS/mg"
	run -0 tc heatmap -o b.csv mg.tct
	diff -u a.csv b.csv
}

@test "output identical for -j1 and -j2; /dev/null written in place" {
	tc -j1 heatmap --collectives -o a.svg "$SETS/ft"
	tc -j2 heatmap --collectives -o b.svg "$SETS/ft"
	cmp a.svg b.svg
	run -0 tc heatmap -o /dev/null "$SETS/st9"
	[ -c /dev/null ]
	run -0 tc heatmap -f csv -o out "$SETS/st9"
	ls out
	run -0 find . -name '*.tmp.*'
	assert_output ""
}

@test "usage errors" {
	run -2 --separate-stderr tc heatmap "$SETS/st9"
	run -2 --separate-stderr tc heatmap --metric volume -o x "$SETS/st9"
	run -2 --separate-stderr tc heatmap --diff -o x "$SETS/st9"
	run -2 --separate-stderr tc heatmap --format gif -o x "$SETS/st9"
	run -1 --separate-stderr tc heatmap -o x nonexistent
	[ ! -e x ]
}

@test "heatmap: the format from --format or the extension; a name of another image format is refused" {
	tc heatmap -o a.pdf "$SETS/st9"
	head -c 5 a.pdf | grep -q '^%PDF-'
	tc heatmap -o a.PNG "$SETS/st9"
	head -c 8 a.PNG | od -An -c | grep -q 'P   N   G'
	tc heatmap -o a.svg "$SETS/st9"
	grep -q '<svg' a.svg
	tc heatmap -o a "$SETS/st9"
	grep -q '<svg' a
	tc heatmap -o a.csv "$SETS/st9"
	head -1 a.csv | grep -qx 'src,dst,messages'
	# --format says what to write whatever the name
	tc heatmap --format pdf -o plot.svg "$SETS/st9"
	head -c 5 plot.svg | grep -q '^%PDF-'
	for f in out.JPG out.eps out.gif; do
		run -2 tc heatmap -o "$f" "$SETS/st9"
		assert_output --partial "'$f': heatmap writes pdf, svg, png, csv or json"
		[ ! -e "$f" ]
	done
	run -2 tc heatmap --format json -o x.json "$SETS/st9"
	assert_output --partial "--histogram"
	run -2 tc heatmap -o x.json "$SETS/st9"
	run -2 tc heatmap --format eps -o x "$SETS/st9"
	run -2 tc heatmap --scale cubic -o x.pdf "$SETS/st9"
	for l in 3.3 3.3furlong -2in 0cm; do
		run -2 tc heatmap --width $l -o x.pdf "$SETS/st9"
	done
	run -2 tc heatmap --font-size 0 -o x.pdf "$SETS/st9"
	run -2 tc heatmap --dpi 5 -o x.png "$SETS/st9"
	run -2 tc heatmap --width 100in --dpi 300 -o x.png "$SETS/st9"
	[ ! -e x.pdf ] && [ ! -e x.png ] && [ ! -e x ]
}

@test "heatmap: page size from --width and --height; PNG pixels from them and --dpi" {
	tc heatmap --width 8.5cm --height 6cm -o a.pdf "$SETS/st9"
	run -0 pdf_text a.pdf
	assert_line --index 0 'page 240.945 170.079'
	tc heatmap --width 240pt -o b.pdf "$SETS/st9"
	pdf_text b.pdf | head -1 | grep -q '^page 240 '
	tc heatmap -o c.png "$SETS/st9"
	# 3.3 in at 300 dpi
	png_size c.png | grep -q '^990 '
	tc heatmap --width 2in --height 1.5in --dpi 100 -o d.png "$SETS/st9"
	[ "$(png_size d.png)" = "200 150" ]
	# pixels are pixels: 96 dpi unless --dpi says otherwise
	tc heatmap --width 600px --height 400px -o e.png "$SETS/st9"
	[ "$(png_size e.png)" = "600 400" ]
	python3 -c 'import struct, sys; d = open(sys.argv[1], "rb").read(); i = d.index(b"pHYs"); assert struct.unpack(">IIB", d[i + 4:i + 13]) == (3780, 3780, 1)' e.png
	tc heatmap --width 600px --dpi 300 -o f.png "$SETS/st9"
	png_size f.png | grep -q '^600 '
	tc heatmap --width 85mm --height 60mm -o g.svg "$SETS/st9"
	grep -q 'width="240.944882pt" height="170.07874pt"' g.svg
	# text keeps its size in points: 10 pt labels on the same page
	tc heatmap --font-size 10 --width 8.5cm --height 6cm -o h.pdf "$SETS/st9"
	pdf_text h.pdf | head -1 | grep -qx 'page 240.945 170.079'
	! cmp -s a.pdf h.pdf || false
}

@test "heatmap: colour-bar ticks are round numbers in the unit, whole for counts; a zero difference draws no bar" {
	tc heatmap --metric bytes -o b.pdf "$SETS/st9"
	tc heatmap -o c.pdf "$SETS/st9"
	tc heatmap --diff --mode reference -o d.pdf "$SETS/st9"
	pdf_text b.pdf > b.txt
	pdf_text c.pdf > c.txt
	pdf_text d.pdf > d.txt
	python3 - <<'PY'
def items(path):
    return [l.split(" ", 2) for l in open(path, encoding="utf-8").read().split("\n")[1:] if l]
def bar(path, unit):
    """the numbers right of the colour bar: left-aligned at one x, right of the matrix"""
    it = items(path)
    ux = max(int(x) for x, y, t in it if t == unit)
    cand = {}
    for x, y, t in it:
        try:
            v = float(t)
        except ValueError:
            continue
        if int(x) < ux:
            cand.setdefault(int(x), []).append(v)
    x = max(cand)
    return sorted(cand[x])
# 4 x 8192 bytes = 32 KiB: in KiB, every 5
assert bar("b.txt", "bytes (KiB)") == [0, 5, 10, 15, 20, 25, 30], bar("b.txt", "bytes (KiB)")
assert bar("c.txt", "messages") == [0, 1, 2, 3, 4], bar("c.txt", "messages")
d = [t for x, y, t in items("d.txt")]
assert d.count("no difference") == 1 and d.count("messages") == 1, d
PY
}

@test "heatmap: --scale log: decades on the bar, the label says so, empty cells stay white" {
	tc heatmap --scale log --metric bytes --collectives -o l.pdf "$SETS/mg"
	run -0 pdf_text l.pdf
	assert_line --regexp '^[0-9]+ [0-9]+ bytes \(log scale\)$'
	assert_line --regexp '^[0-9]+ [0-9]+ 10³$'
	assert_line --regexp '^[0-9]+ [0-9]+ 10⁴$'
	refute_line --regexp '^[0-9]+ [0-9]+ 5000$'
	tc heatmap --scale log -o c.pdf "$SETS/st9"
	run -0 pdf_text c.pdf
	assert_line --regexp '^[0-9]+ [0-9]+ messages \(log scale\)$'
	assert_line --regexp '^2[0-9]+ [0-9]+ 10$'
	tc heatmap --scale log --width 90pt --height 90pt --dpi 72 --title '' -o c.png "$SETS/st9"
	run -0 png_ok c.png
	tc heatmap --scale log --diff --mode reference -o d.svg "$SETS/st9"
	run -0 svg_ok d.svg
}

@test "heatmap: the default title is the set's name and the metric; one panel has no subtitle" {
	mkdir -p runs && cp -r "$SETS/st9" runs/
	tc heatmap --metric bytes -o t.pdf ./runs/st9/
	pdf_text t.pdf > t.txt
	sed -n 2p t.txt | grep -q ' st9: bytes$'
	! grep -q ' original$' t.txt || false
	tc heatmap --metric bytes -o t.svg ./runs/st9/
	grep -q '<title>st9: bytes</title>' t.svg
	tc heatmap --diff --mode reference -o d.pdf "$SETS/st9"
	pdf_text d.pdf | grep -q ' original$'
	tc heatmap --title '' -o n.pdf "$SETS/st9"
	! pdf_text n.pdf | grep -q 'st9' || false
}

@test "heatmap --comm: one communicator's traffic, in world ranks, exactly" {
	dump_events "$SETS/ft" > ev.json
	# ft's communicator 2 is its row communicators (MPI_Comm_split): each
	# Alltoall on it sends to the other members of the rank's own row
	python3 - > want.csv <<'PY'
import json
from collections import Counter
c = Counter()
for l in open("ev.json"):
    e = json.loads(l)
    if e["comm"] == 2 and e["op"] == "MPI_Alltoall":
        for m in e["comms"]["2"]:
            if m != e["rank"]:
                c[e["rank"], m] += 1
print("src,dst,messages")
for (s, d), v in sorted(c.items()):
    print("%d,%d,%d" % (s, d, v))
PY
	[ "$(wc -l < want.csv)" -gt 2 ]
	tc heatmap --collectives --comm 2 -o got.csv "$SETS/ft"
	diff -u want.csv got.csv
	# the world communicator holds all of a stencil's traffic; an unused id none
	tc heatmap -o all.csv "$SETS/st9"
	tc heatmap --comm 0 -o w.csv "$SETS/st9"
	diff -u all.csv w.csv
	tc heatmap --comm 7 -o none.csv "$SETS/st9"
	[ "$(cat none.csv)" = "src,dst,messages" ]
	tc heatmap --collectives --comm 2 -o c2.pdf "$SETS/ft"
	pdf_text c2.pdf | grep -q 'ft: count (with collectives), communicator 2$'
}

@test "heatmap --window: the calls that start in the window, seconds from the start of the run, exactly" {
	dump_events "$SETS/st9" > ev.json
	for w in 0.0001:0.0003 0.0002:0.0004 0:0.00016 0.0003:; do
		python3 - $w > want.csv <<'PY'
import json, sys
from collections import Counter
a, b = sys.argv[1].split(":")
t0, t1 = float(a) * 1e9, float(b) * 1e9 if b else float("inf")
c = Counter()
for l in open("ev.json"):
    e = json.loads(l)
    if e["op"] in ("MPI_Isend", "MPI_Send") and t0 <= e["t"] < t1:
        c[e["rank"], e["peer"]] += e["bytes"]
print("src,dst,bytes")
for (s, d), v in sorted(c.items()):
    print("%d,%d,%d" % (s, d, v))
PY
		tc heatmap --metric bytes --window $w -o got.csv "$SETS/st9"
		diff -u want.csv got.csv
	done
	# four steps of 24 messages: a window of part of the run has some of them
	n=$(tail -n +2 got.csv | wc -l)
	[ "$n" -gt 0 ] && [ "$n" -le 24 ]
	tc heatmap --window 5: -o late.csv "$SETS/st9"
	[ "$(cat late.csv)" = "src,dst,messages" ]
	run -2 tc heatmap --window 2:1 -o x.csv "$SETS/st9"
	run -2 tc heatmap --window 1 -o x.csv "$SETS/st9"
	run -2 tc heatmap --window -1:2 -o x.csv "$SETS/st9"
	# a global trace: its expanded times
	tc compress --mode reference -o st9.tct "$SETS/st9" >/dev/null
	tc heatmap --window 0: -o g.csv st9.tct
	tc heatmap -o all.csv "$SETS/st9"
	diff -u all.csv g.csv
}

@test "heatmap --phase: the calls between marker calls, as chameleon cuts them, exactly" {
	dump_events "$SETS/ph" > ev.json
	# 6 barriers, 2 allreduces per rank
	for m in MPI_Barrier MPI_Allreduce; do
		for k in 0 1 2 $([ $m = MPI_Barrier ] && echo 4 6); do
			python3 - $m $k > want.csv <<'PY'
import json, sys
from collections import Counter
marker, k = sys.argv[1], int(sys.argv[2])
seen, c = {}, Counter()
for l in open("ev.json"):
    e = json.loads(l)
    r = e["rank"]
    if seen.get(r, 0) == k and e["op"] in ("MPI_Isend", "MPI_Send"):
        c[r, e["peer"]] += 1
    if e["op"] == marker:
        seen[r] = seen.get(r, 0) + 1
print("src,dst,messages")
for (s, d), v in sorted(c.items()):
    print("%d,%d,%d" % (s, d, v))
PY
			tc heatmap --phase $k --marker $m -o got.csv "$SETS/ph"
			diff -u want.csv got.csv
		done
	done
	# the default marker is MPI_Barrier
	tc heatmap --phase 1 -o a.csv "$SETS/ph"
	tc heatmap --phase 1 --marker MPI_Barrier -o b.csv "$SETS/ph"
	diff -u a.csv b.csv
	run -2 --separate-stderr tc heatmap --phase 99 -o x.csv "$SETS/ph"
	[[ "$stderr" == *"the phases are 0 to"* ]]
	run -2 --separate-stderr tc heatmap --phase 0 --marker MPI_Scan -o x.csv "$SETS/ph"
	run -2 --separate-stderr tc heatmap --marker MPI_Barrier -o x.csv "$SETS/ph"
	[ ! -e x.csv ]
	# with --diff, both panels cut alike
	tc heatmap --phase 0 --diff --mode reference -o d.csv "$SETS/ph"
	run -0 awk -F, 'NR > 1 && $5 != 0' d.csv
	assert_output ""
	[ "$(wc -l < d.csv)" -gt 1 ]
}

@test "heatmap --histogram: message sizes in powers of two, counts and bytes exactly" {
	dump_events "$SETS/mg" > ev.json
	python3 - > want.csv <<'PY'
import json
from collections import Counter
n, b = Counter(), Counter()
for l in open("ev.json"):
    e = json.loads(l)
    if e["op"] in ("MPI_Isend", "MPI_Send", "MPI_Sendrecv"):
        k = e["bytes"].bit_length()
        n[k] += 1
        b[k] += e["bytes"]
print("size_min,size_max,messages,bytes")
for k in range(min(n), max(n) + 1):
    lo, hi = (0, 0) if k == 0 else (1 << (k - 1), (1 << k) - 1)
    print("%d,%d,%d,%d" % (lo, hi, n[k], b[k]))
PY
	tc heatmap --histogram -o h.csv "$SETS/mg"
	head -1 h.csv | grep -qx 'size_min,size_max,messages,bytes,time_us'
	cut -d, -f1-4 h.csv | diff -u want.csv -
	tc heatmap --histogram -o h.json "$SETS/mg"
	python3 - <<'PY'
import csv, json
j = json.load(open("h.json"))
rows = list(csv.DictReader(open("want.csv")))
assert j["schema"] == 1
assert [(b["size_min"], b["messages"], b["bytes"]) for b in j["bins"]] == \
    [(int(r["size_min"]), int(r["messages"]), int(r["bytes"])) for r in rows]
assert j["messages"] == sum(int(r["messages"]) for r in rows)
PY
	# collectives add their messages; the figure in each format
	tc heatmap --histogram --collectives -o c.csv "$SETS/mg"
	[ "$(awk -F, 'NR > 1 { s += $3 } END { print s }' c.csv)" -gt "$(awk -F, 'NR > 1 { s += $3 } END { print s }' h.csv)" ]
	tc heatmap --histogram --metric bytes --scale log -o h.pdf "$SETS/mg"
	run -0 pdf_text h.pdf
	assert_line --regexp '^[0-9]+ [0-9]+ message size$'
	assert_line --regexp '^[0-9]+ [0-9]+ bytes \(log scale\)$'
	assert_line --regexp '^[0-9]+ [0-9]+ mg: message sizes$'
	assert_line --regexp '^[0-9]+ [0-9]+ [0-9]+ KiB$'
	tc heatmap --histogram -o h.png "$SETS/mg"
	run -0 png_ok h.png
	tc heatmap --histogram -o h.svg "$SETS/mg"
	run -0 svg_ok h.svg
	# filters apply; --diff does not
	tc heatmap --histogram --phase 0 -o p.csv "$SETS/ph"
	[ "$(wc -l < p.csv)" -ge 2 ]
	run -2 tc heatmap --histogram --diff --mode reference -o x.csv "$SETS/mg"
}
