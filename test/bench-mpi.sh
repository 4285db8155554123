#!/bin/sh
# make bench, tracecluster-mpi: the speed-up of sharing the reading of a
# 16,384-rank synthetic set over N = 1, 2, 4 processes against the
# single-process command (interleaved, one thread per process), and the
# peak memory of each process, with the first process's projected to
# 1,048,576 ranks from measured points (it holds every rank's compressed
# trace). Sourced settings: test/bench/lib.sh. Skipped without the MPI
# program.
set -eu
top=$(cd "$(dirname "$0")/.." && pwd)
build=${TC_BUILD:-build/default}
tc="$top/bin/tracecluster"
tm="$top/$build/tracecluster-mpi"
quick=${BENCH_QUICK:-0}
work="$top/build/bench"
mkdir -p "$work"
. "$top/test/bench/lib.sh"

echo
echo "== tracecluster-mpi: compress shared over N processes (issue 17), one thread each"
if [ ! -x "$tm" ] || ! command -v mpirun >/dev/null 2>&1; then
	echo "(tracecluster-mpi not built: no MPI here)"
	exit 0
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_rmaps_base_oversubscribe=1
command -v ssh >/dev/null || command -v rsh >/dev/null || export OMPI_MCA_plm=isolated

P=16384 I=200
[ "$quick" = 1 ] && P=2048 I=50
set_p="$work/stencil2d-$P-$I"
[ -f "$set_p/truth.json" ] ||
	"$tc" synth --pattern stencil2d --ranks "$P" --iters "$I" --force -o "$set_p" >/dev/null
echo "   stencil2d P=$P, $I steps; $(nproc) cores here, so N = 4 runs oversubscribed"
run_s1() { "$tc" -j1 compress -q "$set_p" -o "$work/mpi-s.tct"; }
run_m1() { mpirun -np 1 "$tm" -j1 compress -q "$set_p" -o "$work/mpi-m1.tct"; }
run_m2() { mpirun -np 2 "$tm" -j1 compress -q "$set_p" -o "$work/mpi-m2.tct"; }
run_m4() { mpirun -np 4 "$tm" -j1 compress -q "$set_p" -o "$work/mpi-m4.tct"; }
interleave s1 m1 m2 m4
row "tracecluster -j1 compress (baseline)" s1
row "mpirun -np 1 tracecluster-mpi -j1" m1
row "mpirun -np 2 tracecluster-mpi -j1" m2
row "mpirun -np 4 tracecluster-mpi -j1" m4
same=yes
for n in 1 2 4; do cmp -s "$work/mpi-s.tct" "$work/mpi-m$n.tct" || same=no; done
echo "global traces byte-identical to the single process: $same"
echo "speed-up (wall) N=1: $(ratio "$(med s1)" "$(med m1)")  N=2: $(ratio "$(med s1)" "$(med m2)")  N=4: $(ratio "$(med s1)" "$(med m4)")"

# --mode none: every rank's trace merged, in the radix tree across the
# processes (each merges its share's subtrees); only N = 4 beside the
# single process, on 50 steps, to keep make bench short
set_n="$work/stencil2d-$P-50"
[ -f "$set_n/truth.json" ] ||
	"$tc" synth --pattern stencil2d --ranks "$P" --iters 50 --force -o "$set_n" >/dev/null
run_sn() { "$tc" -j1 compress -q -m none "$set_n" -o "$work/mpi-sn.tct"; }
run_m4n() { mpirun -np 4 "$tm" -j1 compress -q -m none "$set_n" -o "$work/mpi-m4n.tct"; }
interleave sn m4n
row "tracecluster -j1 compress -m none (baseline)" sn
row "mpirun -np 4 tracecluster-mpi -j1 compress -m none" m4n
same=yes
cmp -s "$work/mpi-sn.tct" "$work/mpi-m4n.tct" || same=no
echo "--mode none (50 steps), merged across the processes: byte-identical: $same;" \
	"speed-up (wall) N=4: $(ratio "$(med sn)" "$(med m4n)")"
rm -f "$work"/rss.*
/usr/bin/time -f %M -o "$work/rss.single" "$tc" -j1 compress -q -m none "$set_n" \
	-o "$work/mpi-sn.tct" >/dev/null 2>&1
mpirun -np 4 sh -c '/usr/bin/time -f %M -o "$0/rss.$OMPI_COMM_WORLD_RANK" "$@"' \
	"$work" "$tm" -j1 compress -q -m none "$set_n" -o "$work/mpi-m4n.tct" >/dev/null 2>&1
echo "--mode none peak memory (KB): one process $(tail -1 "$work/rss.single");" \
	"N=4: $(for r in 0 1 2 3; do tail -1 "$work/rss.$r"; done | tr '\n' ' ')"

# rss N P: peak resident KB of each of N processes compressing stencil2d P
rss() {
	s="$work/stencil2d-$2-$I"
	[ -f "$s/truth.json" ] ||
		"$tc" synth --pattern stencil2d --ranks "$2" --iters "$I" --force -o "$s" >/dev/null
	rm -f "$work"/rss.*
	mpirun -np "$1" sh -c '/usr/bin/time -f %M -o "$0/rss.$OMPI_COMM_WORLD_RANK" "$@"' \
		"$work" "$tm" -j1 compress -q "$s" -o "$work/mpi-rss.tct" >/dev/null 2>&1
	for r in $(seq 0 $(($1 - 1))); do tail -1 "$work/rss.$r"; done | tr '\n' ' '
}
p1=$((P / 4)) p2=$P
m1=$(rss 4 "$p1") m2=$(rss 4 "$p2")
echo "peak memory per process (KB), N=4: P=$p1: $m1"
echo "                                   P=$p2: $m2"
first1=${m1%% *} first2=${m2%% *}
proj=$(awk -v a="$first1" -v b="$first2" -v p="$p1" -v q="$p2" 'BEGIN {
	s = (b - a) / (q - p); printf "%.0f", (a + s * (1048576 - p)) / 1024 }')
echo "first process, linear in P through those points, at 1,048,576 ranks: $proj MB"
goal "tracecluster-mpi first process at 1,048,576 ranks (projected MB)" "$proj" "<=" 4096
