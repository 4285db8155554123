#!/bin/sh
# Capture shim overhead (make bench): time added per call by
# libtracecluster-capture.so on tight loops of Irecv+Isend+Waitall and of
# Allreduce (testdata/capture/bench.c), each run without and with the shim
# alternately in the same session, medians of BENCH_REPS runs; then bytes
# per event on disk for those loops and for a regular 2D stencil (halo2d).
# Goals (issue 19): <= 150 ns added per call (p2p and Allreduce) at stack
# depth 8 in CPU time of the calling thread, <= 200 ns all-in (CPU time of
# the whole process: the writer thread included), <= 4 bytes per event for
# a regular stencil loop; each printed with PASS or FAIL.
#
#  1. CPU time of the calling thread per call, one rank talking to itself:
#     what the shim costs the application's thread, whatever else runs on
#     the machine (the writer thread's work is reported apart).
#  2. Wall time per call, two ranks: what the job sees, including the
#     writer threads' compression on the same CPUs when every CPU is busy.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=$top/${TC_BUILD:-build/default}
shim=$build/libtracecluster-capture.so
bench=$build/testdata/capture/bench
halo=$build/testdata/capture/halo2d
tcr=$build/test/capture/tcr-events
. "$top/test/bench/lib.sh"
if [ "${BENCH_QUICK:-0}" = 1 ]; then iters=${BENCH_ITERS:-20000}; else iters=${BENCH_ITERS:-50000}; fi
work=$top/build/bench/capture

if [ ! -f "$shim" ] || [ ! -x "$bench" ] || ! command -v mpirun >/dev/null; then
	echo "== capture shim: not built (no mpicc) or no mpirun; skipped"
	exit 0
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
command -v ssh >/dev/null || command -v rsh >/dev/null || export OMPI_MCA_plm=isolated
mkdir -p "$work"
rm -f "$work"/*.times

median() { sort -n "$1" | awk '{ v[NR] = $1 } END { printf "%.0f", (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
minus() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%+.0f", a - b }'; }

# run NP LABEL [VAR=VALUE...]: one bench run on NP ranks with the shim
# configured by the variables (LABEL none: without the shim)
run() {
	np=$1 label=$2
	shift 2
	if [ "$label" = none ]; then
		out=$(mpirun -np "$np" "$bench" "$iters")
	else
		rm -rf "$work/trace-$label"
		out=$(env "$@" mpirun -np "$np" -x LD_PRELOAD="$shim" -x TRACECLUSTER_DIR="$work/trace-$label" \
			-x TRACECLUSTER_STACK_DEPTH -x TRACECLUSTER_UNWIND -x TRACECLUSTER_THREAD \
			-x TRACECLUSTER_COMPRESS "$bench" "$iters" 2>/dev/null)
	fi
	for k in p2p_call_ns p2p_call_cpu_ns p2p_call_allcpu_ns allreduce_call_ns \
		allreduce_call_cpu_ns allreduce_call_allcpu_ns slice_ns; do
		echo "$out" | awk -v k=$k '$1 == k { print $2 }' >>"$work/$np-$label.$k.times"
	done
}

D8="TRACECLUSTER_STACK_DEPTH=8 TRACECLUSTER_UNWIND=cfi TRACECLUSTER_THREAD=1 TRACECLUSTER_COMPRESS=1"

# show NP KEY LABEL DESCRIPTION: one line of medians against the baseline
show() {
	np=$1 k1=$2 k2=$3 label=$4 what=$5
	p=$(median "$work/$np-$label.$k1.times")
	a=$(median "$work/$np-$label.$k2.times")
	p0=$(median "$work/$np-none.$k1.times")
	a0=$(median "$work/$np-none.$k2.times")
	if [ "$label" = none ]; then
		printf "  %-46s %8s %8s\n" "$what" "$p" "$a"
	else
		printf "  %-46s %8s %8s   added %5s %5s\n" "$what" "$p" "$a" "$(minus "$p" "$p0")" "$(minus "$a" "$a0")"
	fi
}

echo "== capture shim: per-call overhead ($(nproc) CPUs), $iters iterations x 5 rounds, median of $reps runs"
echo "   (each configuration's runs interleaved with the others', the run without the shim first)"
i=0
while [ $i -lt "$reps" ]; do
	run 1 none
	run 1 cfi $D8
	if [ "${BENCH_QUICK:-0}" != 1 ]; then
		run 1 libunwind $D8 TRACECLUSTER_UNWIND=libunwind
		run 1 d1 $D8 TRACECLUSTER_STACK_DEPTH=1
	fi
	run 2 none
	run 2 cfi $D8
	if [ "${BENCH_QUICK:-0}" != 1 ]; then
		run 2 store $D8 TRACECLUSTER_COMPRESS=0
		run 2 sync $D8 TRACECLUSTER_THREAD=0
	fi
	i=$((i + 1))
done
echo "1. CPU time of the calling thread, ns per call (1 rank, to itself)"
printf "  %-46s %8s %8s\n" "" "p2p" "Allred."
show 1 p2p_call_cpu_ns allreduce_call_cpu_ns none "no shim"
show 1 p2p_call_cpu_ns allreduce_call_cpu_ns cfi "shim, depth 8 (default: CFI walker)"
if [ "${BENCH_QUICK:-0}" != 1 ]; then
	show 1 p2p_call_cpu_ns allreduce_call_cpu_ns libunwind "shim, depth 8, libunwind walker"
	show 1 p2p_call_cpu_ns allreduce_call_cpu_ns d1 "shim, depth 1 (no stack walk)"
fi
echo "   CPU time of the whole process, ns per call (1 rank; the writer thread included)"
show 1 p2p_call_allcpu_ns allreduce_call_allcpu_ns none "no shim"
show 1 p2p_call_allcpu_ns allreduce_call_allcpu_ns cfi "shim, depth 8"
echo "2. wall time, ns per call (2 ranks)"
printf "  %-46s %8s %8s\n" "" "p2p" "Allred."
show 2 p2p_call_ns allreduce_call_ns none "no shim"
show 2 p2p_call_ns allreduce_call_ns cfi "shim, depth 8 (default)"
if [ "${BENCH_QUICK:-0}" != 1 ]; then
	show 2 p2p_call_ns allreduce_call_ns store "shim, depth 8, blocks not compressed"
	show 2 p2p_call_ns allreduce_call_ns sync "shim, depth 8, no writer thread"
fi
echo "3. the program's compute between calls: ns per compute slice (16 KiB summed) between"
echo "   4 x Irecv+Isend+Waitall, wall time of the slice alone (1 rank): the tracer's indirect cost,"
echo "   which no per-call figure in a trace holds (a figure, no goal)"
for l in none cfi; do
	s=$(median "$work/1-$l.slice_ns.times")
	if [ $l = none ]; then
		printf "  %-46s %8s\n" "no shim" "$s"
	else
		printf "  %-46s %8s   added %5s (%s)\n" "shim, depth 8" "$s" \
			"$(minus "$s" "$(median "$work/1-none.slice_ns.times")")" \
			"$(awk -v a="$s" -v b="$(median "$work/1-none.slice_ns.times")" \
				'BEGIN { printf "%+.1f%%", 100 * (a - b) / b }')"
	fi
done
added() { # added NP KEY LABEL: median with the shim minus median without
	awk -v a="$(median "$work/$1-$3.$2.times")" -v b="$(median "$work/$1-none.$2.times")" \
		'BEGIN { printf "%.0f", a - b }'
}
goal "ns added per p2p call, CPU of the calling thread, depth 8" "$(added 1 p2p_call_cpu_ns cfi)" "<=" 150
goal "ns added per Allreduce, CPU of the calling thread, depth 8" "$(added 1 allreduce_call_cpu_ns cfi)" "<=" 150
goal "ns added per p2p call, CPU of the process (writer included)" "$(added 1 p2p_call_allcpu_ns cfi)" "<=" 200
goal "ns added per Allreduce, CPU of the process (writer included)" "$(added 1 allreduce_call_allcpu_ns cfi)" "<=" 200
# the writer's share of an event: what the process spends beyond the
# calling thread; at most 100 ns keeps up with 10 M events/s per rank
wr=$(awk -v a="$(added 1 p2p_call_allcpu_ns cfi)" -v b="$(added 1 p2p_call_cpu_ns cfi)" \
	'BEGIN { printf "%.0f", a - b }')
goal "writer thread ns per event (process CPU minus the calling thread's; 10 M events/s)" \
	"$wr" "<=" 100

# bytes_per_event DIR: total events and bytes of the rank files in DIR
bytes_per_event() {
	for f in "$1"/rank-*.tcr; do "$tcr" "$f" | tail -1; done |
		awk '{ for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] += kv[2] } }
			END { printf "%.2f bytes/event (%d events, %d bytes)", v["file_bytes"] / v["events"], v["events"], v["file_bytes"] }'
}
echo "bytes on disk, bench loops (2 ranks, depth 8): $(bytes_per_event "$work/trace-cfi")"
[ -d "$work/trace-store" ] &&
	echo "bytes on disk, bench loops, blocks not compressed: $(bytes_per_event "$work/trace-store")"
rm -rf "$work/trace-halo"
mpirun -np 4 --oversubscribe -x LD_PRELOAD="$shim" -x TRACECLUSTER_DIR="$work/trace-halo" \
	"$halo" 5000 32 >/dev/null
echo "bytes on disk, 2D stencil (halo2d, 4 ranks, 5000 steps): $(bytes_per_event "$work/trace-halo")"
bpe=$(bytes_per_event "$work/trace-halo" | cut -d' ' -f1)
goal "bytes per event on disk, regular 2D stencil loop" "$bpe" "<=" 4

# the writer's compression of a block (libdeflate, level 1) against
# zlib's own at the same level, over the same decoded event blocks (test/
# bench/payload deflate: CPU time, median of alternate rounds)
payload=$build/test/bench/payload
if [ -x "$payload" ]; then
	echo "block compression at level 1, CPU ns per input byte and bytes out (same event blocks):"
	for d in cfi halo; do
		l=$("$payload" deflate "$work/trace-$d"/rank-*.tcr 2>/dev/null | grep '^deflate ')
		[ -n "$l" ] || { echo "  $d: payload deflate failed"; continue; }
		kv() { echo "$l" | tr ' ' '\n' | awk -F= -v k="$1" '$1 == k { print $2 }'; }
		printf "  %-34s zlib %6s ns/B %9s B   libdeflate (the writer) %6s ns/B %9s B\n" \
			"$([ $d = cfi ] && echo "bench loops, 2 ranks" || echo "2D stencil, 4 ranks")" \
			"$(kv zlib1_ns_per_byte)" "$(kv zlib1_bytes)" "$(kv libdeflate1_ns_per_byte)" \
			"$(kv libdeflate1_bytes)"
		[ $d = halo ] && goal "the writer's block compression CPU over zlib's at level 1, 2D stencil" \
			"$(awk -v a="$(kv libdeflate1_ns_per_byte)" -v b="$(kv zlib1_ns_per_byte)" \
				'BEGIN { printf "%.2f", a / b }')" "<=" 1
	done
fi
