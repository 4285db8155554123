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
