# test/bench/lib.sh - what the make bench scripts share (sourced).
#
# Every figure stands beside a baseline measured in the same run, the two
# interleaved (A B A B ...), as medians with their spread (min-max), and
# every goal ends in PASS or FAIL. BENCH_REPS runs of each (default 5;
# bench-quick: 3). Ratios matter, not absolute times: machines are shared.

reps=${BENCH_REPS:-5}

# now: seconds since the epoch, nanosecond resolution
now() { date +%s.%N; }

# children_cpu FILE: CPU seconds (user + system) of the finished children
# of this shell so far, from the times builtin (run here, not in a
# subshell, whose children would be its own), into FILE. The scripts run
# under bash, whose times reads getrusage to the millisecond; a POSIX sh
# such as dash counts clock ticks (10 ms, 3% of a 0.3 s run).
children_cpu() {
	times >"$1.raw"
	awk 'NR == 2 {
		n = split($1 " " $2, f, " "); s = 0
		for (i = 1; i <= n; i++) { split(f[i], p, "m"); sub(/s$/, "", p[2]); s += p[1] * 60 + p[2] }
		printf "%.6f", s }' "$1.raw" >"$1"
}

# timed NAME CMD...: run CMD (a command or a shell function; output
# discarded); append its wall time to $work/NAME.times and the CPU time
# (user + system, all threads) of the processes it ran to $work/NAME.cpu.
# On a shared machine the CPU time of a one-thread command is the steadier
# measure; both are shown.
timed() {
	n=$1
	shift
	children_cpu "$work/.cpu0"
	s=$(now)
	"$@" >/dev/null 2>&1 || { echo "bench: failed: $*" >&2; return 1; }
	e=$(now)
	children_cpu "$work/.cpu1"
	awk -v s="$s" -v e="$e" 'BEGIN { printf "%.6f\n", e - s }' >>"$work/$n.times"
	awk -v s="$(cat "$work/.cpu0")" -v e="$(cat "$work/.cpu1")" 'BEGIN { printf "%.6f\n", e - s }' \
		>>"$work/$n.cpu"
}

# interleave NAME...: run the shell functions run_NAME in turn (A B C A B
# C ...), $reps rounds, each run's time into $work/NAME.times
interleave() {
	for n in "$@"; do
		: >"$work/$n.times"
		: >"$work/$n.cpu"
	done
	i=0
	while [ $i -lt "$reps" ]; do
		for n in "$@"; do
			timed "$n" "run_$n"
		done
		i=$((i + 1))
	done
}

# once NAME: run run_NAME $reps times alone (no baseline to interleave)
once() {
	interleave "$1"
}

# med NAME [cpu] / spread NAME [cpu]: the median and "min-max" of the wall
# times (or with "cpu" the CPU times) of NAME
med() {
	sort -g "$work/$1.${2:-times}" | awk '{ v[NR] = $1 } END {
		m = (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2; printf "%.4f", m }'
}
spread() {
	sort -g "$work/$1.${2:-times}" | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.4f-%.4f", lo, hi }'
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.3f", a / b }'; }

# pair_ratios A B [cpu]: the ratios A/B of the runs of one round each
# (run i of A against run i of B, interleaved, so that both saw the same
# load), into $work/A-B.ratios; pair_med and pair_spread read them
pair_ratios() {
	paste "$work/$1.${3:-times}" "$work/$2.${3:-times}" |
		awk '{ printf "%.6f\n", $1 / $2 }' >"$work/$1-$2.ratios"
}
pair_med() { pair_ratios "$@" && med "$1-$2" ratios | xargs printf "%.3f"; }
pair_spread() { pair_ratios "$@" && sort -g "$work/$1-$2.ratios" |
	awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.3f-%.3f", lo, hi }'; }
rate() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.0f", a / b }'; }

# row LABEL NAME [EVENTS]: a table line: median wall time and spread, CPU
# time, and events/s of the wall time
row() {
	printf "  %-42s %8s s (%s)  cpu %8s s" "$1" "$(med "$2")" "$(spread "$2")" "$(med "$2" cpu)"
	if [ -n "${3:-}" ]; then
		printf "  %11s ev/s\n" "$(rate "$3" "$(med "$2")")"
	else
		printf "\n"
	fi
}

# goal TEXT VALUE OP TARGET: "goal: TEXT = VALUE (OP TARGET): PASS|FAIL";
# OP is >= or <=
goal() {
	if awk -v v="$2" -v t="$4" -v op="$3" 'BEGIN { exit !(op == ">=" ? v >= t : v <= t) }'; then
		r=PASS
	else
		r=FAIL
	fi
	echo "goal: $1 = $2 ($3 $4): $r"
}

# jf FILE KEY[.KEY]: a value of a JSON document
jf() {
	python3 -c 'import json,sys
d = json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."):
    d = d[k]
print(d)' "$1" "$2"
}

# section TITLE: the wall time of the bench so far is split into
# sections, each from its section call to the next; TITLE "" ends the
# last. section_report WHAT LIMIT prints them, the total and the goal
# that WHAT (make bench) ran within LIMIT seconds.
section() {
	echo "$(now) $1" >>"$work/sections"
}
section_report() {
	section ""
	echo
	echo "== time per section (wall seconds; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg))"
	awk 'NR > 1 { printf "  %-60s %7.1f\n", title, $1 - t } { t = $1; title = substr($0, index($0, " ") + 1) }' \
		"$work/sections"
	total=$(awk 'NR == 1 { s = $1 } { e = $1 } END { printf "%.0f", e - s }' "$work/sections")
	goal "$1 wall time, seconds" "$total" "<=" "$2"
}
