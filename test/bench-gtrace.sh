#!/bin/sh
# make bench, global trace section: bytes of the global trace of real MPI
# programs beside the peers' bytes on the same work (../shared/bench/peers.md:
# Pilgrim, ScalaTrace), the halo exchange of testdata at 100, 1,000 and
# 10,000 iterations, how far --timing stats moves each rank's compute time
# (what a replay spends) beside --timing rank, growth with P on synthetic
# stencils, and compress time end to end against the text form with
# per-rank-set times (what compress wrote before the binary form),
# interleaved. Each goal gets PASS or FAIL.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
tc="$top/bin/tracecluster"
reps=${BENCH_REPS:-5}
work="$top/build/bench"
peers="$top/../shared/bench/peers.md"
npbsh="$top/../shared/bench/npb/build-npb.sh"
mkdir -p "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1

jf() { # jf FILE KEY[.KEY]
	python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    d = d[k]
print(d)' "$1" "$2"
}
pf() { if awk -v a="$1" -v b="$2" 'BEGIN { exit !(a <= b) }'; then echo PASS; else echo FAIL; fi; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
# peer BENCH COLUMN: a number of the NPB table of peers.md (2 Pilgrim, 3 ScalaTrace)
peer() {
	awk -F'|' -v b="$1" -v c="$2" '$2 ~ "^ *"b" *$" { gsub(/[ ,]/, "", $(c + 1)); print $(c + 1); exit }' "$peers"
}

echo "== global trace bytes: NPB 3.4 class S, 16 ranks, against Pilgrim (issue 12)"
if [ ! -f "$peers" ] || [ ! -f "$npbsh" ] || ! command -v mpif90 >/dev/null 2>&1; then
	echo "(skipped: needs ../shared/bench and mpif90)"
else
	npb="$work/npb"
	[ -x "$npb/sp.S.x" ] || sh "$npbsh" "$npb" S "bt cg ft is lu mg sp" >/dev/null
	printf "%-4s %9s %9s %9s %9s %9s %8s %8s %8s %7s\n" bench raw default none Pilgrim ScalaTr \
		def/Pil none/Pil match% ACC%
	: >"$work/npb-ratios"
	for b in cg lu mg ft is bt sp; do
		d="$work/npb-$b"
		if [ ! -f "$d/rank-00015.tcr" ]; then
			(cd "$npb" && "$tc" run -f -o "$d" -- mpirun --oversubscribe -np 16 "./$b.S.x" >/dev/null 2>&1)
		fi
		"$tc" compress --report-json "$d" -o "$work/npb-$b.tct" >"$work/npb-$b.json"
		"$tc" compress --report-json --mode none "$d" -o "$work/npb-$b-none.tct" >"$work/npb-$b-none.json"
		"$tc" accuracy --mode callpath-param --json "$d" >"$work/npb-$b-acc.json"
		def=$(jf "$work/npb-$b.json" bytes)
		raw=$(jf "$work/npb-$b.json" input_bytes)
		none=$(jf "$work/npb-$b-none.json" bytes)
		pil=$(peer "$b" 2)
		st=$(peer "$b" 3)
		match=$(python3 -c 'import json,sys
m = json.load(open(sys.argv[1]))["match"]
print("%.2f" % min(m[k + "_pct"] for k in ("count", "loop", "events", "src", "dest", "tag", "comm")))' "$work/npb-$b-acc.json")
		acc=$(python3 -c 'import json,sys; print("%.1f" % (100 * json.load(open(sys.argv[1]))["acc"]))' "$work/npb-$b-acc.json")
		printf "%-4s %9s %9s %9s %9s %9s %8s %8s %8s %7s\n" "$b" "$raw" "$def" "$none" "$pil" "$st" \
			"$(ratio "$def" "$pil")" "$(ratio "$none" "$pil")" "$match" "$acc"
		echo "$b $def $none $pil $raw $match" >>"$work/npb-ratios"
	done
	python3 - "$work/npb-ratios" <<'PY'
import math, sys
rows = [l.split() for l in open(sys.argv[1])]
def gm(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))
d = [int(r[1]) / int(r[3]) for r in rows]
n = [int(r[2]) / int(r[3]) for r in rows]
ok = lambda c: "PASS" if c else "FAIL"
print("default <= Pilgrim on each: max %.3f  %s" % (max(d), ok(max(d) <= 1)))
print("default geometric mean / Pilgrim: %.3f (goal <= 0.5)  %s" % (gm(d), ok(gm(d) <= 0.5)))
print("default matching COUNT/LOOP/#EVENTS/SRC/DEST/TAG/COMM: min %.2f%% (goal >= 99)  %s"
      % (min(float(r[5]) for r in rows), ok(min(float(r[5]) for r in rows) >= 99)))
print("lossless --mode none <= 2x Pilgrim on each: max %.3f  %s" % (max(n), ok(max(n) <= 2)))
print("lossless geometric mean / Pilgrim: %.3f (goal <= 1)  %s" % (gm(n), ok(gm(n) <= 1)))
big = [r[0] for r in rows if int(r[1]) >= int(r[4]) or int(r[2]) >= int(r[4])]
print("never larger than the raw input: %s" % ("PASS" if not big else "FAIL " + " ".join(big)))
PY
	echo "replay accuracy (ACC) of each --timing choice, callpath-param:"
	printf "  %-4s %14s %14s %14s\n" bench "stats B/ACC%" "rank B/ACC%" "none B/ACC%"
	for b in cg lu mg ft is bt sp; do
		line=""
		for t in stats rank none; do
			"$tc" accuracy --mode callpath-param --timing "$t" --json "$work/npb-$b" >"$work/acc.json"
			line="$line $(python3 -c 'import json,sys; d = json.load(open(sys.argv[1])); print("%7d/%5.1f" % (d["bytes"], 100 * d["acc"]))' "$work/acc.json")"
		done
		printf "  %-4s %s\n" "$b" "$line"
	done
	# what a replay spends: each rank's total compute time, as the global
	# trace gives it back against the raw files (--mode none, so that the
	# times are the only difference), --timing stats beside --timing rank
	echo "largest change of a rank's compute time, % of its span (--mode none; figures, no goal):"
	printf "  %-4s %12s %12s\n" bench "stats %/rank" "rank %/rank"
	for b in cg lu mg ft is bt sp; do
		line=""
		for t in stats rank; do
			"$tc" compress -q --mode none --timing "$t" "$work/npb-$b" -o "$work/moved.tct"
			m=$(python3 "$top/test/tools/compute-moved.py" "$tc" "$work/npb-$b" "$work/moved.tct")
			line="$line $(printf "%8s/%-3s" "${m% *}" "${m#* }")"
		done
		printf "  %-4s %s\n" "$b" "$line"
	done
fi

echo
echo "== global trace bytes: 2D halo, 16 ranks (testdata/capture/halo2d.c), goal <= Pilgrim's 2,764"
if command -v mpicc >/dev/null 2>&1; then
	mpicc -O2 -g -o "$work/halo2d" "$top/testdata/capture/halo2d.c"
	for it in 100 1000 10000; do
		d="$work/halo-$it"
		"$tc" run -f -o "$d" -- mpirun --oversubscribe -np 16 "$work/halo2d" "$it" >/dev/null 2>&1
		"$tc" compress --report-json "$d" -o "$work/halo-$it.tct" >"$work/halo-$it.json"
		b=$(jf "$work/halo-$it.json" bytes)
		printf "iterations %6s: %6s bytes (raw %9s), %s of Pilgrim  %s\n" "$it" "$b" \
			"$(jf "$work/halo-$it.json" input_bytes)" "$(ratio "$b" 2764)" "$(pf "$b" 2764)"
	done
else
	echo "(skipped: no mpicc)"
fi

echo
echo "== global trace growth: synthetic stencil2d, 64 -> 4096 ranks (goal <= 1.2x)"
for P in 64 4096; do
	s="$work/gtrace-stencil2d-$P"
	[ -f "$s/truth.json" ] || "$tc" synth --pattern stencil2d --ranks "$P" --iters 100 --force -o "$s" >/dev/null
	"$tc" compress --report-json "$s" -o "$work/grow-$P.tct" >"$work/grow-$P.json"
done
b64=$(jf "$work/grow-64.json" bytes)
b4k=$(jf "$work/grow-4096.json" bytes)
echo "64 ranks $b64 bytes, 4096 ranks $b4k bytes: $(ratio "$b4k" "$b64")x  $(pf "$(ratio "$b4k" "$b64")" 1.2)"

echo
echo "== compress end to end, P=4096 stencil2d: default vs the text form with per-rank-set times"
s="$work/gtrace-stencil2d-4096"
: >"$work/ta"
: >"$work/tb"
i=0
while [ $i -lt "$reps" ]; do
	for v in a b; do
		st=$(date +%s.%N)
		if [ $v = a ]; then
			"$tc" compress -q "$s" -o "$work/e2e.tct"
		else
			"$tc" compress -q --text --timing rank --lead-only "$s" -o "$work/e2e.txt"
		fi
		en=$(date +%s.%N)
		awk -v s="$st" -v e="$en" 'BEGIN { printf "%.6f\n", e - s }' >>"$work/t$v"
	done
	i=$((i + 1))
done
med() { sort -n "$1" | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.4f", m }'; }
ma=$(med "$work/ta")
mb=$(med "$work/tb")
echo "default $ma s, text/rank/lead-only $mb s (medians of $reps, interleaved): $(ratio "$ma" "$mb")x  $(pf "$(ratio "$ma" "$mb")" 1.05)"

echo
echo "== memory of the default compress and cluster, synthetic stencil2d, 65,536 ranks"
echo "   (goals: <= 150 MB, <= 2 KB per rank; beside: tracecluster info on the same set)"
# peak RSS in KB of a command, its output discarded
rss() { python3 -c 'import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$@"; }
s="$work/gtrace-stencil2d-65536"
[ -f "$s/truth.json" ] || "$tc" synth --pattern stencil2d --ranks 65536 --force -q -o "$s"
s4="$work/mem-stencil2d-4096"
[ -f "$s4/truth.json" ] || "$tc" synth --pattern stencil2d --ranks 4096 --force -q -o "$s4"
base=$(rss "$tc" info "$s")
for cmd in compress cluster; do
	if [ $cmd = compress ]; then
		k=$(rss "$tc" compress -q "$s" -o "$work/mem.tct")
		k4=$(rss "$tc" compress -q "$s4" -o "$work/mem4.tct")
	else
		k=$(rss "$tc" cluster "$s")
		k4=$(rss "$tc" cluster "$s4")
	fi
	per=$(awk -v a="$k" -v b="$k4" 'BEGIN { printf "%.0f", (a - b) * 1024 / (65536 - 4096) }')
	printf "%-8s %6.1f MB (info %5.1f MB: %sx)  %s;  %5s bytes per rank (4096 -> 65,536)  %s\n" \
		"$cmd" "$(awk -v k="$k" 'BEGIN { print k / 1024 }')" "$(awk -v k="$base" 'BEGIN { print k / 1024 }')" \
		"$(ratio "$k" "$base")" "$(pf "$k" 153600)" "$per" "$(pf "$per" 2048)"
done
