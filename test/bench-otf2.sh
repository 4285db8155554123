#!/bin/sh
# make bench, OTF2 section: reading an OTF2 archive against the OTF2
# library's own otf2-print over the same files, interleaved (ABAB),
# medians; and exporting a 1,024-rank synthetic set. Each goal gets PASS
# or FAIL.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
tc="$top/bin/tracecluster"
reps=${BENCH_REPS:-5}
work="$top/build/bench"
mkdir -p "$work"

echo "== OTF2: read throughput against otf2-print, export of 1,024 ranks"
if ! command -v otf2-print >/dev/null 2>&1 || ! "$tc" export --help >/dev/null 2>&1; then
	echo "(skipped: needs otf2-print and tracecluster export)"
	exit 0
fi
med() { sort -n "$1" | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.4f", m }'; }
pf() { if awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; then echo PASS; else echo FAIL; fi; }
secs() { # secs FILE COMMAND...: append the wall time of COMMAND to FILE
	f=$1
	shift
	s=$(date +%s.%N)
	"$@" >/dev/null 2>&1
	e=$(date +%s.%N)
	awk -v s="$s" -v e="$e" 'BEGIN { printf "%.6f\n", e - s }' >>"$f"
}

set64="$work/otf2-stencil2d-64"
arch="$work/otf2-stencil2d-64.otf2"
[ -f "$set64/truth.json" ] || "$tc" synth --pattern stencil2d --ranks 64 --iters 2000 --force -q -o "$set64"
if [ ! -f "$arch/traces.otf2" ]; then
	rm -rf "$arch"
	"$tc" export --to otf2 -o "$arch" "$set64" >/dev/null
fi
events=$("$tc" info --json "$arch" | python3 -c 'import json, sys; print(json.load(sys.stdin)["events"])')
: >"$work/otf2-a"
: >"$work/otf2-b"
i=0
while [ $i -lt "$reps" ]; do
	secs "$work/otf2-a" "$tc" -j1 info "$arch"
	secs "$work/otf2-b" otf2-print "$arch/traces.otf2"
	i=$((i + 1))
done
ta=$(med "$work/otf2-a")
tb=$(med "$work/otf2-b")
thr=$(awk -v a="$ta" -v b="$tb" 'BEGIN { printf "%.2f", b / a }')
printf "%s events: tracecluster -j1 info %s s, otf2-print %s s (medians of %s, interleaved)\n" \
	"$events" "$ta" "$tb" "$reps"
echo "read throughput / otf2-print's: ${thr}x  (goal >= 0.5)  $(pf "$thr" 0.5)"

set1k="$work/otf2-stencil2d-1024"
[ -f "$set1k/truth.json" ] || "$tc" synth --pattern stencil2d --ranks 1024 --force -q -o "$set1k"
: >"$work/otf2-e"
i=0
while [ $i -lt "$reps" ]; do
	rm -rf "$work/otf2-export-1024"
	secs "$work/otf2-e" "$tc" export --to otf2 -o "$work/otf2-export-1024" "$set1k"
	i=$((i + 1))
done
te=$(med "$work/otf2-e")
echo "export --to otf2 of 1,024 synthetic ranks: $te s (median of $reps; goal: seconds, <= 10 s)  $(pf 10 "$te")"
