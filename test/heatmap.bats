#!/usr/bin/env bats
# tracecluster heatmap: communication matrices as CSV, SVG and PNG.

load helper

setup_file() {
	export SETS="$BATS_FILE_TMPDIR/sets"
	mkdir -p "$SETS"
	tracecluster synth --pattern stencil2d --ranks 9 --iters 4 -o "$SETS/st9" >/dev/null
	tracecluster synth --pattern stencil1d --ranks 5 --iters 3 -o "$SETS/st1" >/dev/null
	tracecluster synth --pattern mg --ranks 16 --iters 2 -o "$SETS/mg" >/dev/null
	tracecluster synth --pattern ft --ranks 8 --iters 2 -o "$SETS/ft" >/dev/null
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

@test "SVG parses as XML, has axes, colour bar and title; PNG chunks and CRCs are valid" {
	run -0 tc heatmap --title 'st & 9' -o st.svg "$SETS/st9"
	run -0 svg_ok st.svg
	grep -q 'receiver rank' st.svg
	grep -q 'sender rank' st.svg
	grep -q 'messages' st.svg
	grep -q 'st &amp; 9' st.svg
	run -0 tc heatmap -o st.png "$SETS/st9"
	run -0 png_ok st.png
	run -0 tc heatmap --diff --mode kfarthest -o d.png "$SETS/mg"
	run -0 png_ok d.png
	run -0 tc heatmap --diff --mode kfarthest -o d.svg "$SETS/mg"
	run -0 svg_ok d.svg
	grep -q 'clustered - original' d.svg
}

@test "large P is binned and stays small" {
	tc synth --pattern stencil1d --ranks 1024 --iters 1 -o big >/dev/null
	run -0 tc heatmap -o big.svg big
	run -0 svg_ok big.svg
	grep -q '8 ranks per bin' big.svg
	[ "$(wc -c < big.svg)" -lt 2000000 ]
	run -0 tc heatmap -o big.png big
	run -0 png_ok big.png
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

@test "heatmap: an output named for an image format it does not write is refused, not filled with SVG" {
	for f in out.pdf out.JPG out.eps; do
		run -2 tc heatmap -o "$f" "$SETS/st9"
		assert_output --partial "'$f': heatmap writes svg, png or csv"
		[ ! -e "$f" ]
	done
	# --format says what to write whatever the name
	run -0 tc heatmap --format svg -o plot.pdf "$SETS/st9"
	grep -q "<svg" plot.pdf
}

@test "heatmap: colour-bar ticks are round numbers, whole for counts; a zero difference draws no bar" {
	tc heatmap --metric bytes -o b.svg "$SETS/st9"
	tc heatmap -o c.svg "$SETS/st9"
	tc heatmap --diff --mode reference -o d.svg "$SETS/st9"
	python3 - <<'PY'
import xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
def panels(path):
    root = ET.parse(path).getroot()
    return [g for g in root.iter(ns + "g") if g.get("class") == "panel"]
def bar_ticks(g, unit):
    # the numbers right of the colour bar: after the bar's outline, before its unit
    texts = [t.text for t in g.iter(ns + "text")]
    i = texts.index(unit)
    nums = []
    for t in reversed(texts[:i]):
        try:
            nums.append(float(t))
        except (TypeError, ValueError):
            break
    return sorted(nums)
b = bar_ticks(panels("b.svg")[0], "bytes")
assert b == [0, 10000, 20000, 30000], b
c = bar_ticks(panels("c.svg")[0], "messages")
assert c and all(v == int(v) for v in c) and c[0] == 0, c
d = panels("d.svg")
zero = [g for g in d if any(t.text == "no difference" for t in g.iter(ns + "text"))]
assert len(zero) == 1, len(zero)
assert not any(t.text == "messages" for t in zero[0].iter(ns + "text"))
PY
}

@test "heatmap: the default title is the set's name and the metric; one panel has no subtitle" {
	mkdir -p runs && cp -r "$SETS/st9" runs/
	tc heatmap --metric bytes -o t.svg ./runs/st9/
	python3 - <<'PY'
import xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse("t.svg").getroot()
assert root.find(ns + "title").text == "st9: bytes", root.find(ns + "title").text
texts = [t.text for t in root.iter(ns + "text")]
assert "original" not in texts, texts[:5]
PY
	tc heatmap --diff --mode reference -o d.svg "$SETS/st9"
	grep -q '>original<' d.svg
}
