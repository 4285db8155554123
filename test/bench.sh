#!/bin/sh
# make bench: figures and ratios against baselines measured in the same run.
# Medians of BENCH_REPS runs (default 5). Ratios matter, not absolute times:
# the machines are shared and noisy.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${TC_BUILD:-build/default}
tc="$top/bin/tracecluster"
reps=${BENCH_REPS:-5}
work="$top/build/bench"
mkdir -p "$work"

# median of the wall times (seconds) of running "$@" $reps times
median_time() {
	i=0
	: >"$work/times"
	while [ $i -lt "$reps" ]; do
		s=$(date +%s.%N)
		"$@" >/dev/null
		e=$(date +%s.%N)
		awk -v s="$s" -v e="$e" 'BEGIN { printf "%.6f\n", e - s }' >>"$work/times"
		i=$((i + 1))
	done
	sort -n "$work/times" | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.4f\n", m }'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }
rate() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", a / b }'; }

echo "== read throughput: P=1024 stencil2d, >= 10^7 events"
set1024="$work/stencil2d-1024"
if [ ! -f "$set1024/truth.json" ]; then
	"$tc" synth --pattern stencil2d --ranks 1024 --iters 1100 --force -o "$set1024" >/dev/null
fi
events=$("$tc" info --json "$set1024" | grep -o '"events":[0-9]*' | head -1 | cut -d: -f2)
echo "events: $events"
"$build/test/bench/gzpayload" "$work/payload.gz" "$set1024"/rank-*.tcr 2>/dev/null
echo "compressed payload bytes: $(stat -c %s "$work/payload.gz")"

t_zcat=$(median_time zcat "$work/payload.gz")
t_j1=$(median_time "$tc" -j1 info "$set1024")
t_j2=$(median_time "$tc" -j2 info "$set1024")
printf "%-34s %10s %16s\n" "reader" "median s" "events/s"
printf "%-34s %10s %16s\n" "zcat (baseline, 1 thread)" "$t_zcat" "$(rate "$events" "$t_zcat")"
printf "%-34s %10s %16s\n" "tracecluster info -j1" "$t_j1" "$(rate "$events" "$t_j1")"
printf "%-34s %10s %16s\n" "tracecluster info -j2" "$t_j2" "$(rate "$events" "$t_j2")"
echo "ratio -j1 throughput / zcat throughput: $(ratio "$t_zcat" "$t_j1")  (goal >= 0.5)"
echo "ratio -j2 throughput / zcat throughput: $(ratio "$t_zcat" "$t_j2")"
echo "speed-up -j1 -> -j2: $(ratio "$t_j1" "$t_j2")"

echo
echo "== load + loop compression + signatures: P=4096 stencil2d (issue 4, item 6)"
set4096="$work/stencil2d-4096"
if [ ! -f "$set4096/truth.json" ]; then
	"$tc" synth --pattern stencil2d --ranks 4096 --iters 250 --force -o "$set4096" >/dev/null
fi
events4096=$("$tc" info --json "$set4096" | grep -o '"events":[0-9]*' | head -1 | cut -d: -f2)
"$tc" signatures "$set4096" | sed -n 's/^\(events\|distinct\): */\1: /p'
t_read=$(median_time "$tc" -j1 info "$set4096")
t_sig1=$(median_time "$tc" -j1 signatures "$set4096")
t_sig2=$(median_time "$tc" -j2 signatures "$set4096")
printf "%-34s %10s %16s\n" "command" "median s" "events/s"
printf "%-34s %10s %16s\n" "tracecluster info -j1 (read only)" "$t_read" "$(rate "$events4096" "$t_read")"
printf "%-34s %10s %16s\n" "tracecluster signatures -j1" "$t_sig1" "$(rate "$events4096" "$t_sig1")"
printf "%-34s %10s %16s\n" "tracecluster signatures -j2" "$t_sig2" "$(rate "$events4096" "$t_sig2")"
echo "ratio signatures -j1 time / read time: $(ratio "$t_sig1" "$t_read")  (the cost of compression and signatures)"
echo "speed-up signatures -j1 -> -j2: $(ratio "$t_sig1" "$t_sig2")"

echo
echo "== align: two ranks of 10^5 events each (issue 8): time and peak memory"
# alignbench generates an edge and an interior rank of stencil2d (ranks 1
# and 5, 8 and 10 events per timestep) in memory and aligns them once;
# "align KiB" is the growth of the peak resident size during the alignment
# (getrusage). The full-matrix engine is the quadratic baseline.
ab="$build/test/bench/alignbench"
printf "%-34s %16s %10s %12s %12s\n" "engine" "events" "seconds" "align KiB" "peak KiB"
for spec in "lcs 10000" "lcs 100000" "nw 10000" "full 10000"; do
	set -- $spec
	line=$("$ab" --engine "$1" --events "$2")
	ev=$(echo "$line" | sed -n 's/.*events=\([0-9,]*\).*/\1/p')
	sec=$(echo "$line" | sed -n 's/.*seconds=\([0-9.]*\).*/\1/p')
	peak=$(echo "$line" | sed -n 's/.*peak_kib=\([0-9]*\).*/\1/p')
	base=$(echo "$line" | sed -n 's/.*base_kib=\([0-9]*\).*/\1/p')
	printf "%-34s %16s %10s %12s %12s\n" "$1 ($(test "$1" = full && echo quadratic || echo Hirschberg))" \
		"$ev" "$sec" "$((peak - base))" "$peak"
	eval "mem_$1_$2=$((peak - base)) sec_$1_$2=$sec"
done
echo "memory lcs 10^5 / lcs 10^4: $(ratio "$mem_lcs_100000" "$mem_lcs_10000")  (linear: ~10; quadratic would be ~100)"
echo "memory full 10^4 / lcs 10^4: $(ratio "$mem_full_10000" "$mem_lcs_10000")"
echo "time lcs 10^5 / lcs 10^4: $(ratio "$sec_lcs_100000" "$sec_lcs_10000")  (quadratic time: ~100)"
echo "time nw 10^4 / lcs 10^4: $(ratio "$sec_nw_10000" "$sec_lcs_10000")  (64 columns per word)"

# the whole command on a trace set whose ranks have 10^5 events
setal="$work/stencil2d-align"
if [ ! -f "$setal/truth.json" ]; then
	"$tc" synth --pattern stencil2d --ranks 16 --dims 4x4 --iters 10000 --force -o "$setal" >/dev/null
fi
t_al=$(median_time "$tc" align --ranks 1,5 "$setal")
if [ -x /usr/bin/time ]; then
	kib=$(/usr/bin/time -f %M "$tc" align --ranks 1,5 "$setal" 2>&1 >/dev/null | tail -1)
else
	kib="(no /usr/bin/time)"
fi
echo "tracecluster align --ranks 1,5 (80002 and 100002 events, text output): median ${t_al} s, peak ${kib} KiB"

echo
echo "== clustering: P = 1,048,576 synthetic signature sets (issue 4, item 6)"
# signature sets of a 1024x1024 2D stencil made in memory (test/bench/clusterbench.c);
# the baseline is a plain qsort of the same P records in the same run
"$build/test/bench/clusterbench" -P 1048576 -r "$reps" -j 2
echo "goal: kfarthest -k 9 and callpath-param <= 2 s each with -j2 (2 cores)"

echo
echo "== global compressed trace (issue 5): size against P, stencil2d"
# The same run (100 timesteps) at every P; the .tct is written by
# tracecluster compress (default mode callpath-param, and --mode none, the
# ScalaTrace baseline without clustering) and compared with gzip -9 and
# xz -9 of the raw files of that run.
# json_field FILE KEY[.KEY]: a number from a --report-json document
json_field() {
	python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    d = d[k]
print(d)' "$1" "$2"
}
have_xz=0
command -v xz >/dev/null 2>&1 && have_xz=1
if [ "$have_xz" = 1 ]; then
	printf "%6s %10s %11s %12s %11s %11s\n" "P" "tct bytes" "none bytes" "raw bytes" "gzip -9" "xz -9"
else
	printf "%6s %10s %11s %12s %11s\n" "P" "tct bytes" "none bytes" "raw bytes" "gzip -9"
	echo "(xz not installed: no xz -9 column)"
fi
size64=""
for P in 64 256 1024 4096; do
	set_p="$work/gtrace-stencil2d-$P"
	if [ ! -f "$set_p/truth.json" ]; then
		"$tc" synth --pattern stencil2d --ranks "$P" --iters 100 --force -o "$set_p" >/dev/null
	fi
	"$tc" compress --report-json "$set_p" -o "$work/gtrace-$P.tct" >"$work/gtrace-$P.json"
	"$tc" compress --report-json --mode none "$set_p" -o "$work/gtrace-$P-none.tct" >"$work/gtrace-$P-none.json"
	b=$(json_field "$work/gtrace-$P.json" bytes)
	nb=$(json_field "$work/gtrace-$P-none.json" bytes)
	raw=$(cat "$set_p"/rank-*.tcr | wc -c)
	g9=$(cat "$set_p"/rank-*.tcr | gzip -9 -c | wc -c)
	if [ "$have_xz" = 1 ]; then
		x9=$(cat "$set_p"/rank-*.tcr | xz -9 -c -T1 | wc -c)
		printf "%6s %10s %11s %12s %11s %11s\n" "$P" "$b" "$nb" "$raw" "$g9" "$x9"
	else
		printf "%6s %10s %11s %12s %11s\n" "$P" "$b" "$nb" "$raw" "$g9"
	fi
	[ -n "$size64" ] || size64=$b
	size_last=$b
	g9_last=$g9
done
echo "growth of the global trace 64 -> 4096 ranks: $(ratio "$size_last" "$size64")x  (goal <= 1.2)"
echo "gzip -9 of the raw files / global trace at 4096 ranks: $(ratio "$g9_last" "$size_last")x"

echo
echo "== compress time: clustering vs --mode none, P=1024 stencil2d"
# Medians over BENCH_REPS runs of the phases the report times; the papers
# compare the inter-node compression (merge) step, which clustering
# replaces by clustering + a merge of the leads only (dissertation §3.6.1).
set_c="$work/gtrace-stencil2d-1024"
median_field() { # median_field KEY CMD...: median of a --report-json number
	key=$1
	shift
	i=0
	: >"$work/times"
	while [ $i -lt "$reps" ]; do
		"$@" >"$work/report.json"
		json_field "$work/report.json" "$key" >>"$work/times"
		i=$((i + 1))
	done
	sort -g "$work/times" | awk '{ v[NR] = $1 } END { m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.6f\n", m }'
}
printf "%-26s %12s %12s %12s %12s\n" "mode" "cluster s" "merge s" "cl+merge s" "total s"
for m in none callpath callpath-param reference; do
	c=$(median_field seconds.cluster "$tc" compress --report-json --mode "$m" "$set_c" -o "$work/gtrace-t.tct")
	g=$(median_field seconds.merge "$tc" compress --report-json --mode "$m" "$set_c" -o "$work/gtrace-t.tct")
	t=$(median_field seconds.total "$tc" compress --report-json --mode "$m" "$set_c" -o "$work/gtrace-t.tct")
	cm=$(awk -v a="$c" -v b="$g" 'BEGIN { printf "%.6f", a + b }')
	printf "%-26s %12s %12s %12s %12s\n" "$m" "$c" "$g" "$cm" "$t"
	eval "cm_$(echo "$m" | tr '-' '_')=$cm"
done
echo "ratio merge time none / (cluster + merge) callpath: $(ratio "$cm_none" "$cm_callpath")x  (goal >= 10)"
echo "ratio merge time none / (cluster + merge) callpath-param: $(ratio "$cm_none" "$cm_callpath_param")x"
echo "ratio merge time none / (cluster + merge) reference: $(ratio "$cm_none" "$cm_reference")x"

# the global trace against the peers (issue 12)
sh "$top/test/bench-gtrace.sh"
sh "$top/test/bench-otf2.sh"

# the capture shim: per-call overhead and bytes per event (lib/capture/)
sh "$top/test/bench-capture.sh"
