#!/bin/sh
# bench-replay.sh - NPB class S on P ranks: trace each benchmark, compress
# it with --mode none, replay the global trace with tracecluster-replay,
# check that every rank's replayed communication equals the recorded one
# (the replay itself traced with the capture shim, compared per event:
# op, peer, tag, count, communicator), and compare the replay's time with
# the application's, REPS times interleaved, for each compute mode.
#
#   sh test/bench-replay.sh NPBDIR [P] [REPS] [BENCHMARKS]
#
# NPBDIR holds the binaries (NAME.S.x), e.g. built with
#   sh ../shared/bench/npb/build-npb.sh /tmp/npb S "bt cg ft is lu mg sp"
# MODES (environment) lists the --compute modes replayed (default
# "cpu spin sleep"; cpu-now is cpu with --other-load now: the tasks of
# other jobs counted before the replay taken to have competed with the
# application too; cpu-node is cpu with --node-share now: the share of
# the cores the job gets before the replay taken to be the one the
# application had); the first is the one judged. MPIRUN_ARGS are added
# to every mpirun, the application's and the replays' alike (e.g.
# "--mca mpi_yield_when_idle 1"). QUIET=N (environment) waits, before
# each run of the application, until at most N tasks of other jobs are
# runnable (up to QUIET_WAIT seconds, default 600), so that runs are made
# in a shared machine's quiet moments; a run is counted quiet when at
# most N were also after its replays, and the line "quiet runs" says how
# many were.
#
# The application's time is its span to the start of MPI_Finalize (the
# largest over ranks) from the moment all its ranks have left MPI_Init,
# measured untraced (column plain_s, by test/tools/span.c preloaded,
# which starts it at a barrier after MPI_Init), as the replay times
# itself from a barrier after its own setup: the ranks leave MPI_Init
# milliseconds apart in both, and the replay re-enacts what follows. The
# untraced span from each rank's own end of MPI_Init, without the
# barrier, is given beside it (column own_s, with column /own the median
# of the replay's time over it), and the traced one (column app_s, from
# the end of MPI_Init as the trace records it: after the barrier that
# ends the capture shim's setup). The replay takes
# the tracer's own time per call, as the shim measured it, out of the
# gaps (tracecluster-replay --tracer-cost recorded, its default), so its
# time is compared with the untraced application's, as the papers
# compare replays with the application run without instrumentation: a
# run's ratio is its replay's time over its untraced application's time.
# Column /traced is the median of the replay's time over the traced
# application's, and column traced the judged mode's replay traced
# under the shim over the traced application (like against like, both
# paying the tracer's cost). With many more ranks than cores the tracer
# slows the application by more than its time inside the gaps (app_s /
# plain_s): caches cold after each context switch, its writer thread.
# Each run of the application is followed by the replays of its trace, so
# that the two share the machine's state (other jobs on a shared node).
# The table gives the median application and replay times, the median of
# the runs' ratios and every run's ratio, and PASS when the median ratio is
# within 10% of 1 (FAIL otherwise), and the last line counts the
# programs within 10%. Column ci95 is the median ratio's 95% interval
# (bootstrap, 2000 resamples): with many more ranks than cores a run's
# ratio swings by tens of percent (the ranks' turns on the cores), and
# the median of a few runs with it; the last line also counts the
# programs whose whole interval lies within 10%, which more runs (REPS)
# narrow. Column "other" is the median, over the runs, of the
# tasks of other jobs runnable just before the application ran (sampled
# from /proc/loadavg while none of the benchmark's own runs): on a shared
# machine a run beside other jobs' tasks is not the run the replay is
# compared with the next time. The global trace is written in its text
# form. MODES may name cpu-raw: cpu with --tracer-cost none (the traced
# run's gaps as recorded), and cpu-mean: cpu with --tracer-cost mean (the
# tracer's mean over all calls taken out of the gaps after every call,
# not each op's own).
#
# After the table, a line per program compares the time its ranks spend
# outside MPI calls with the judged replay's (test/tools/outside.c
# preloaded into both, 3 runs each interleaved, the medians, over every
# rank): the untraced program's, the compute the replay's gaps asked for,
# and what the replay spent between its calls. The replay's gaps are
# right when the three agree.
#
# Exit status: 0 all exact and every judged ratio within 10%; 1 a run or
# replay failed or a replay differs from its trace; 3 exact, but a judged
# ratio is off by more than 10%.
set -u
NPB=${1:?usage: bench-replay.sh NPBDIR [P] [REPS] [BENCHMARKS]}
# the runs start in a work directory
NPB=$(cd "$NPB" && pwd) || exit 2
P=${2:-16}
REPS=${3:-3}
LIST=${4:-"bt cg ft is lu mg sp"}
MODES=${MODES:-"cpu spin sleep"}
MPIRUN_ARGS=${MPIRUN_ARGS:-}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B="$ROOT/${TC_BUILD:-build/default}"
TC="$B/tracecluster"
RP="$B/tracecluster-replay"
SHIM="$B/libtracecluster-capture.so"
CMP="$ROOT/test/tools/cmp-events.py"
W=$(mktemp -d "${TMPDIR:-/tmp}/bench-replay.XXXXXX")
trap 'rm -rf "$W"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
command -v ssh >/dev/null || command -v rsh >/dev/null || export OMPI_MCA_plm=isolated
for f in "$TC" "$RP" "$SHIM"; do
	[ -e "$f" ] || { echo "bench-replay: $f is missing (make)" >&2; exit 2; }
done
SPAN="$W/libspan.so"
mpicc -shared -fPIC -O2 -o "$SPAN" "$ROOT/test/tools/span.c" -ldl ||
	{ echo "bench-replay: cannot build test/tools/span.c" >&2; exit 2; }
OUTSIDE="$W/liboutside.so"
mpicc -shared -fPIC -O2 -o "$OUTSIDE" "$ROOT/test/tools/outside.c" -ldl ||
	{ echo "bench-replay: cannot build test/tools/outside.c" >&2; exit 2; }

mode_args() {
	case $1 in
	cpu-now) echo "cpu --other-load now" ;;
	cpu-node) echo "cpu --node-share now" ;;
	cpu-raw) echo "cpu --tracer-cost none" ;;
	cpu-mean) echo "cpu --tracer-cost mean" ;;
	*) echo "$1" ;;
	esac
}

median() {
	sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}
# the 95% interval of the median of the values read, by the bootstrap
# (2000 resamples with replacement, a fixed seed: the same values give the
# same interval), as "lo-hi": how far the median of so few noisy runs may
# be from the median of many
ci95() {
	awk 'BEGIN { srand(18) }
	function med(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) {
			t = a[i]
			for (j = i - 1; j >= 1 && a[j] > t; j--)
				a[j + 1] = a[j]
			a[j + 1] = t
		}
		return a[int((n + 1) / 2)]
	}
	{ v[NR] = $1 }
	END {
		if (!NR) { print "-"; exit }
		B = 2000
		for (b = 1; b <= B; b++) {
			for (i = 1; i <= NR; i++)
				x[i] = v[int(rand() * NR) + 1]
			m[b] = med(x, NR)
		}
		med(m, B)
		printf "%.3f-%.3f\n", m[int(B * 0.025) + 1], m[int(B * 0.975)]
	}'
}
jget() {
	python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"
}

QUIET=${QUIET:-}
QUIET_WAIT=${QUIET_WAIT:-600}
status=0
quiet=0
runs_made=0
judged=${MODES%% *}
# until at most QUIET tasks of other jobs are runnable, QUIET_WAIT
# seconds at most
wait_quiet() {
	[ -n "$QUIET" ] || return 0
	waited=0
	while [ "$(others)" -gt "$QUIET" ] && [ $waited -lt "$QUIET_WAIT" ]; do
		sleep 1
		waited=$((waited + 1))
	done
}
# the machine's load before and after: other jobs on a shared machine
# change both times, the application's and the replay's
load() {
	cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown
}
# the tasks of other jobs runnable now: /proc/loadavg's running count,
# less its reader, the median of 5 samples 20 ms apart; read by the shell
# itself, so that no process of a pipeline is running beside it
others() {
	samples=
	for _ in 1 2 3 4 5; do
		read -r _ _ _ r _ </proc/loadavg 2>/dev/null || r=1/0
		samples="$samples ${r%%/*}"
		sleep 0.02
	done
	for v in $samples; do echo $((v > 0 ? v - 1 : 0)); done | median
}
echo "NPB class S, $P ranks on $(nproc) cores (oversubscribed when P > cores), $REPS runs each"
echo "load average before: $(load)"
echo "${MPIRUN_ARGS:+mpirun $MPIRUN_ARGS; }judged: --compute $judged, |ratio - 1| <= 0.10 (ratio: replay / untraced application)"
printf '%-5s %-7s %8s %5s %8s %8s %8s %8s %7s %-11s  %-22s %-4s %7s %7s %-6s %s\n' bench mode \
	events other plain_s own_s app_s replay_s ratio ci95 runs time /own /traced traced exact
pass=0
judgedn=0
cin=0
for b in $LIST; do
	x="$NPB/$b.S.x"
	[ -x "$x" ] || { echo "bench-replay: $x is missing" >&2; status=1; continue; }
	: >"$W/app"
	: >"$W/plain"
	: >"$W/own"
	: >"$W/traced"
	: >"$W/other"
	for m in $MODES; do : >"$W/t.$m"; : >"$W/r.$m"; : >"$W/ro.$m"; : >"$W/rt.$m"; done
	for r in $(seq "$REPS"); do
		d="$W/$b.$r"
		wait_quiet
		o1=$(others)
		echo "$o1" >>"$W/other"
		: >"$W/span"
		# shellcheck disable=SC2086
		(cd "$W" && SPAN_OUT="$W/span" mpirun $MPIRUN_ARGS -np "$P" -x LD_PRELOAD="$SPAN" \
			-x SPAN_OUT "$x" >"$d.plain.out" 2>&1) ||
			{ echo "bench-replay: $b failed untraced (see $d.plain.out)" >&2; status=1; continue 2; }
		cut -d' ' -f1 "$W/span" >>"$W/plain"
		cut -d' ' -f2 "$W/span" >>"$W/own"
		# shellcheck disable=SC2086
		(cd "$W" && "$TC" run -f -o "$d" -- mpirun $MPIRUN_ARGS -np "$P" "$x" >"$d.out" 2>&1) ||
			{ echo "bench-replay: $b failed (see $d.out)" >&2; status=1; continue 2; }
		"$TC" compress -q --mode none --text -o "$d.tct" "$d" ||
			{ echo "bench-replay: compress of $b failed" >&2; status=1; continue 2; }
		for m in $MODES; do
			# shellcheck disable=SC2086
			mpirun $MPIRUN_ARGS -np "$P" "$RP" --json --compute $(mode_args "$m") "$d.tct" \
				>"$d.$m.json" ||
				{ echo "bench-replay: replay of $b failed" >&2; status=1; continue 3; }
			jget makespan_s <"$d.$m.json" >>"$W/t.$m"
			# over the untraced application's time of this run
			jget makespan_s <"$d.$m.json" | awk -v a="$(tail -n 1 "$W/plain")" \
				'{ printf "%.4f\n", (a > 0 ? $1 / a : 0) }' >>"$W/r.$m"
			jget makespan_s <"$d.$m.json" | awk -v a="$(tail -n 1 "$W/own")" \
				'{ printf "%.4f\n", (a > 0 ? $1 / a : 0) }' >>"$W/ro.$m"
			jget ratio <"$d.$m.json" >>"$W/rt.$m"
		done
		jget recorded_makespan_s <"$d.$judged.json" >>"$W/app"
		# the judged replay traced too, its time over the traced application's
		# shellcheck disable=SC2086
		mpirun $MPIRUN_ARGS -np "$P" -x LD_PRELOAD="$SHIM" -x TRACECLUSTER_DIR="$d.tr" \
			"$RP" --json --compute $(mode_args "$judged") "$d.tct" >"$d.tr.json" ||
			{ echo "bench-replay: traced replay of $b failed" >&2; status=1; continue 2; }
		rm -rf "$d.tr"
		jget makespan_s <"$d.tr.json" | awk -v a="$(tail -n 1 "$W/app")" \
			'{ printf "%.3f\n", (a > 0 ? $1 / a : 0) }' >>"$W/traced"
		o2=$(others)
		runs_made=$((runs_made + 1))
		[ -n "$QUIET" ] && [ "$o1" -le "$QUIET" ] && [ "$o2" -le "$QUIET" ] &&
			quiet=$((quiet + 1))
	done
	ev=$(jget events <"$W/$b.1.$judged.json")
	# exactness: the replay of the first trace, traced, per rank and event
	rm -rf "$W/$b.rp"
	mpirun -np "$P" -x LD_PRELOAD="$SHIM" -x TRACECLUSTER_DIR="$W/$b.rp" "$RP" \
		--no-compute "$W/$b.1.tct" >/dev/null 2>&1
	exact=yes
	i=0
	while [ $i -lt "$P" ]; do
		f=$(printf 'rank-%05d.tcr' $i)
		"$TC" dump --json "$W/$b.1/$f" >"$W/a.jl"
		"$TC" dump --json "$W/$b.rp/$f" >"$W/b.jl" 2>/dev/null
		python3 "$CMP" "$W/a.jl" "$W/b.jl" >"$W/cmp.out" ||
			{ exact="no (rank $i: $(cat "$W/cmp.out"))"; status=1; break; }
		i=$((i + 1))
	done
	# the time outside MPI calls, the program's and the replay's
	: >"$W/out.app"
	: >"$W/out.rp"
	: >"$W/out.ask"
	for _ in 1 2 3; do
		rm -f "$W/out.txt"
		# shellcheck disable=SC2086
		(cd "$W" && mpirun $MPIRUN_ARGS -np "$P" -x LD_PRELOAD="$OUTSIDE" \
			-x OUTSIDE_OUT="$W/out.txt" "$x" >/dev/null 2>&1) &&
			cut -d' ' -f1 "$W/out.txt" >>"$W/out.app" ||
			echo "bench-replay: $b failed under test/tools/outside.c" >&2
		rm -f "$W/out.txt"
		# shellcheck disable=SC2086
		mpirun $MPIRUN_ARGS -np "$P" -x LD_PRELOAD="$OUTSIDE" -x OUTSIDE_OUT="$W/out.txt" \
			"$RP" --json --compute $(mode_args "$judged") "$W/$b.1.tct" >"$W/out.json" &&
			cut -d' ' -f1 "$W/out.txt" >>"$W/out.rp" &&
			jget compute_s <"$W/out.json" >>"$W/out.ask" ||
			echo "bench-replay: the replay of $b failed under test/tools/outside.c" >&2
	done
	outside="$(median <"$W/out.app") $(median <"$W/out.ask") $(median <"$W/out.rp")"
	echo "$b $outside" >>"$W/outside"
	app=$(median <"$W/app")
	plain=$(median <"$W/plain")
	other=$(median <"$W/other")
	for m in $MODES; do
		ratio=$(median <"$W/r.$m")
		verdict=$(awk -v r="$ratio" 'BEGIN { print (r >= 0.9 && r <= 1.1) ? "PASS" : "FAIL" }')
		traced=-
		[ "$m" = "$judged" ] && traced=$(median <"$W/traced")
		[ "$m" = "$judged" ] || verdict=-
		[ "$verdict" = FAIL ] && [ $status -eq 0 ] && status=3
		[ "$verdict" = "-" ] || judgedn=$((judgedn + 1))
		[ "$verdict" = PASS ] && pass=$((pass + 1))
		runs=$(awk '{ printf "%s%.3f", (NR > 1 ? "," : ""), $1 }' "$W/r.$m")
		ci=$(ci95 <"$W/r.$m")
		if [ "$verdict" != "-" ] && awk -v c="$ci" 'BEGIN { split(c, x, "-")
			exit !(x[1] >= 0.9 && x[2] <= 1.1) }'; then
			cin=$((cin + 1))
		fi
		printf '%-5s %-7s %8s %5s %8.3f %8.3f %8.3f %8.3f %7.3f %-11s  %-22s %-4s %7.3f %7.3f %-6s %s\n' \
			"$b" "$m" "$ev" "$other" "$plain" "$(median <"$W/own")" "$app" \
			"$(median <"$W/t.$m")" "$ratio" "$ci" "$runs" "$verdict" "$(median <"$W/ro.$m")" \
			"$(median <"$W/rt.$m")" "$traced" "$exact"
	done
done
echo "within 10% (--compute $judged): $pass of $judgedn; their 95% intervals within 10% too: $cin of $judgedn"
echo "time outside MPI calls over the ranks, s (medians of 3): program, asked of the replay's gaps, spent by the replay between its calls"
[ -s "$W/outside" ] && awk '{ printf "%-5s %9.4f %9.4f %9.4f  (asked/program %.3f, replay/program %.3f)\n", $1, $2, $3, $4, ($2 > 0 ? $3 / $2 : 0), ($2 > 0 ? $4 / $2 : 0) }' "$W/outside"
[ -z "$QUIET" ] || echo "quiet runs (at most $QUIET other tasks before and after): $quiet of $runs_made"
echo "load average after: $(load)"
exit $status
