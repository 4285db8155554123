#!/bin/sh
# bench-replay.sh - NPB class S on P ranks: trace each benchmark, compress
# it with --mode none, replay the global trace with tracecluster-replay,
# check that every rank's replayed communication equals the recorded one
# (the replay itself traced with the capture shim, compared per event:
# op, peer, tag, count, communicator), and compare the replay's time with
# the application's, REPS times interleaved, for each compute mode. The
# global trace is written in its text form: the binary form of some traces
# with --timing stats is refused by its own reader (time entry counts),
# which is not what this measures.
#
#   sh test/bench-replay.sh NPBDIR [P] [REPS] [BENCHMARKS]
#
# NPBDIR holds the binaries (NAME.S.x), e.g. built with
#   sh ../shared/bench/npb/build-npb.sh /tmp/npb S "bt cg ft is lu mg sp"
# The application's time is its span from MPI_Init to MPI_Finalize as
# traced (the largest over ranks), the same span the replay re-enacts.
# Each run of the application is followed by the replays of its trace, so
# that the two share the machine's state (other jobs on a shared node);
# times are medians of REPS runs, a ratio the median of the runs' ratios
# (replay time / application time). Prints a table; exit status 1 when a
# replay differs from its trace.
set -u
NPB=${1:?usage: bench-replay.sh NPBDIR [P] [REPS] [BENCHMARKS]}
P=${2:-16}
REPS=${3:-3}
LIST=${4:-"bt cg ft is lu mg sp"}
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

median() {
	sort -n | awk '{ v[NR] = $1 } END { if (NR) print v[int((NR + 1) / 2)] }'
}
jget() {
	python3 -c 'import json,sys; print(json.load(sys.stdin)[sys.argv[1]])' "$1"
}

status=0
echo "NPB class S, $P ranks on $(nproc) cores (oversubscribed when P > cores), median of $REPS"
printf '%-5s %8s %8s %8s %7s %8s %7s %s\n' bench events app_s spin_s ratio sleep_s ratio exact
for b in $LIST; do
	x="$NPB/$b.S.x"
	[ -x "$x" ] || { echo "bench-replay: $x is missing" >&2; status=1; continue; }
	: >"$W/app" ; : >"$W/spin" ; : >"$W/sleep" ; : >"$W/rspin" ; : >"$W/rsleep"
	for r in $(seq "$REPS"); do
		d="$W/$b.$r"
		(cd "$W" && "$TC" run -f -o "$d" -- mpirun -np "$P" "$x" >"$d.out" 2>&1) ||
			{ echo "bench-replay: $b failed (see $d.out)" >&2; status=1; continue 2; }
		"$TC" compress -q --mode none --text -o "$d.tct" "$d" ||
			{ echo "bench-replay: compress of $b failed" >&2; status=1; continue 2; }
		for m in spin sleep; do
			mpirun -np "$P" "$RP" --json --compute $m "$d.tct" >"$d.$m.json" ||
				{ echo "bench-replay: replay of $b failed" >&2; status=1; continue 3; }
			jget makespan_s <"$d.$m.json" >>"$W/$m"
		done
		app=$(jget recorded_makespan_s <"$d.spin.json")
		echo "$app" >>"$W/app"
		for m in spin sleep; do
			echo "$(jget makespan_s <"$d.$m.json") $app" | awk '{ print $1 / $2 }' >>"$W/r$m"
		done
	done
	ev=$(jget events <"$W/$b.1.spin.json")
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
	app=$(median <"$W/app"); spin=$(median <"$W/spin"); slp=$(median <"$W/sleep")
	printf '%-5s %8s %8.3f %8.3f %7.3f %8.3f %7.3f %s\n' "$b" "$ev" "$app" "$spin" \
		"$(median <"$W/rspin")" "$slp" "$(median <"$W/rsleep")" "$exact"
done
exit $status
