#!/bin/bash
# make bench, in-job clustering (TRACECLUSTER_ONLINE): what a job leaves on
# disk with and without clustering at MPI_Finalize, and the time the
# clustering adds to MPI_Finalize, on the halo exchange of testdata and on
# NPB 3.4 class S at 16 ranks (the NPB binaries of test/bench-gtrace.sh).
# The time is the plugin's own (online.json: from its start on rank 0 to
# the last rank done), beside ScalaTrace's merge on this machine (15-25
# ms at 16 ranks, ../shared/bench/peers.md). bench-quick: the halo only.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/${TC_BUILD:-build/default}
reps=${BENCH_REPS:-3}
quick=${BENCH_QUICK:-0}
work="$top/build/bench"
shim=$build/libtracecluster-capture.so
mkdir -p "$work"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1

echo
echo "== in-job clustering at MPI_Finalize (issue 17): bytes left and time added, 16 ranks"
if [ ! -f "$build/libtracecluster-online.so" ] || [ ! -f "$shim" ] || ! command -v mpirun >/dev/null 2>&1; then
	echo "(no MPI here: the shim and its plugin are not built)"
	exit 0
fi
jf() { python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"; }
sum_bytes() { cat "$@" 2>/dev/null | wc -c; }

# job NAME DIR PROG ARGS...: PROG on 16 ranks under the shim into DIR
# (TRACECLUSTER_ONLINE etc. as exported by the caller)
job() {
	n=$1 d=$2
	shift 2
	rm -rf "$d"
	(cd "$(dirname "$1")" && timeout 300 mpirun -np 16 -x LD_PRELOAD="$shim" -x TRACECLUSTER_DIR="$d" \
		${ON:+-x TRACECLUSTER_ONLINE="$ON" -x TRACECLUSTER_ONLINE_KEEP="$KEEP" -x TRACECLUSTER_QUIET=1} \
		${MARKER:+-x TRACECLUSTER_ONLINE_MARKER="$MARKER"} \
		"$@" >/dev/null 2>"$d.err") || echo "bench: $n failed" >&2
}

progs="halo:$build/testdata/capture/halo2d"
if [ "$quick" != 1 ]; then
	for b in bt cg ft is lu mg sp; do
		[ -x "$work/npb/$b.S.x" ] && progs="$progs $b:$work/npb/$b.S.x"
	done
fi
# Each round of a program runs it plain (its raw bytes, and the wall time
# Chameleon's is set against), with callpath-param at MPI_Finalize, then
# with Chameleon: the plain and Chameleon runs interleaved.
: >"$work/online-secs"
: >"$work/cham-fin"
: >"$work/online-rows"
: >"$work/cham-rows"
now() { date +%s.%N; }
med() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
for p in $progs; do
	name=${p%%:*} prog=${p#*:}
	: >"$work/online-$name.secs"
	: >"$work/cham-$name.plain"
	: >"$work/cham-$name.on"
	: >"$work/cham-$name.fin"
	: >"$work/cham-$name.mk"
	i=0
	while [ $i -lt "$reps" ]; do
		t0=$(now)
		ON= KEEP= job "$name" "$work/ch-$name-raw" "$prog"
		t1=$(now)
		ON=callpath-param KEEP=leads job "$name" "$work/on-$name" "$prog"
		jf "$work/on-$name/online.json" seconds >>"$work/online-$name.secs"
		t2=$(now)
		ON=chameleon KEEP=leads job "$name" "$work/ch-$name" "$prog"
		t3=$(now)
		awk -v a="$t0" -v b="$t1" 'BEGIN { print b - a }' >>"$work/cham-$name.plain"
		awk -v a="$t2" -v b="$t3" 'BEGIN { print b - a }' >>"$work/cham-$name.on"
		jf "$work/ch-$name/online.json" seconds_at_finalize >>"$work/cham-$name.fin"
		jf "$work/ch-$name/online.json" seconds_at_markers >>"$work/cham-$name.mk"
		i=$((i + 1))
	done
	raw=$(sum_bytes "$work/ch-$name-raw"/rank-*.tcr)

	left=$(sum_bytes "$work/on-$name"/rank-*.tcr "$work/on-$name/global.tct")
	gt=$(sum_bytes "$work/on-$name/global.tct")
	cl=$(jf "$work/on-$name/online.json" clusters)
	sec=$(med <"$work/online-$name.secs")
	echo "$sec" >>"$work/online-secs"
	printf "  %-6s %12s %14s %10s %12s %10s %s (%s)\n" "$name" "$raw" "$left" "$gt" \
		"$(awk -v a="$left" -v b="$raw" 'BEGIN { printf "%.3f", a / b }')" "$cl" "$sec" \
		"$(sort -g "$work/online-$name.secs" | tr '\n' ' ' | sed 's/ $//')" >>"$work/online-rows"

	o="$work/ch-$name/online.json"
	wr=$(jf "$o" raw_bytes_written)
	mk=$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); m = d["marker"]; s = d["in_state"]; print("%s(%d) %d/%d" % (m["op"].replace("MPI_", "") or "none", m["calls"], s["C"], s["L"]))' "$o")
	fin=$(med <"$work/cham-$name.fin")
	echo "$fin" >>"$work/cham-fin"
	printf "  %-6s %10s %10s %7s %7s %-22s %8s %9s %9s %8s %8s\n" "$name" "$raw" "$wr" \
		"$(awk -v a="$wr" -v b="$raw" 'BEGIN { printf "%.3f", a / b }')" \
		"$(sum_bytes "$work/ch-$name/global.tct")" "${mk% *}" "${mk##* }" \
		"$(med <"$work/cham-$name.mk")" "$fin" \
		"$(med <"$work/cham-$name.plain" | xargs printf '%.2f')" \
		"$(med <"$work/cham-$name.on" | xargs printf '%.2f')" >>"$work/cham-rows"
done

printf "  %-6s %12s %14s %10s %12s %10s %s\n" program "raw bytes" "leads' raw+gt" "global" "left/raw" "clusters" "seconds (median of $reps)"
cat "$work/online-rows"
med=$(med <"$work/online-secs")
echo "(raw bytes: the job without TRACECLUSTER_ONLINE; with TRACECLUSTER_ONLINE=callpath-param the job"
echo " writes the same raw files while it runs, then keeps the leads' and the global trace; KEEP=none"
echo " leaves the global trace alone)"
if awk -v m="$med" 'BEGIN { exit !(m <= 0.025) }'; then r=PASS; else r=FAIL; fi
echo "goal: in-job clustering time at MPI_Finalize, 16 ranks, median over programs = $med s (<= 0.025, ScalaTrace's merge): $r"

echo
echo "== Chameleon in the job (TRACECLUSTER_ONLINE=chameleon, marker found in the job), 16 ranks"
echo "   written: bytes of raw files the job wrote (non-leads stop writing in L); job: mpirun's wall"
echo "   time without / with it, interleaved, medians of $reps"
printf "  %-6s %10s %10s %7s %7s %-22s %8s %9s %9s %8s %8s\n" program "raw" "written" "w/raw" "global" \
	"marker (calls)" "C/L" "markers s" "finalize s" "job s" "job+ s"
cat "$work/cham-rows"
echo "(markers s: the time the ranks spent at marker calls, the slowest rank; finalize s: the last"
echo " clustering, the merge and writing at MPI_Finalize; a program without a blocking collective"
echo " over all ranks in its timestep loop has no marker: one clustering at MPI_Finalize)"
fm=$(med <"$work/cham-fin")
if awk -v m="$fm" 'BEGIN { exit !(m <= 0.025) }'; then r=PASS; else r=FAIL; fi
echo "goal: Chameleon's time at MPI_Finalize, 16 ranks, median over programs = $fm s (<= 0.025, ScalaTrace's merge): $r"
