#!/usr/bin/env bats
# In-job clustering (TRACECLUSTER_ONLINE): at MPI_Finalize the ranks of a
# real MPI program compute their signatures, rank 0 clusters them and
# merges the leads' traces into DIR/global.tct, and the raw files the mode
# does not need go. The global trace must be the one tracecluster compress
# --lead-only makes from the same raw files; a bad setting or a missing
# plugin must leave the raw files and never fail the job. Skipped without
# mpicc.

load helper

B="$TC_ROOT/${TC_BUILD:-build/default}"
SHIM="$B/libtracecluster-capture.so"
PLUGIN="$B/libtracecluster-online.so"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
command -v ssh >/dev/null || command -v rsh >/dev/null || export OMPI_MCA_plm=isolated

need_mpi() {
	command -v mpirun >/dev/null && [ -f "$SHIM" ] && [ -f "$PLUGIN" ] &&
		[ -x "$B/testdata/capture/halo2d" ] ||
		skip "no MPI, or the shim, the plugin or the test programs are not built"
}

# jf FILE KEY: a value of a JSON document
jf() {
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]])' "$1" "$2"
}

# online OUT NP PROG ENV=VALUE...: PROG on NP ranks under the shim
online() {
	local out=$1 np=$2 prog=$3 args=() kv
	shift 3
	for kv in "$@"; do
		args+=(-x "$kv")
	done
	rm -rf "$out"
	timeout 60 mpirun -np "$np" -x LD_PRELOAD="$SHIM" -x TRACECLUSTER_DIR="$PWD/$out" \
		"${args[@]}" "$prog" >"$out.out" 2>"$out.err"
}

@test "online kfarthest: the global trace compress --lead-only makes, raw files kept" {
	need_mpi
	online k2 4 "$B/testdata/capture/halo2d" TRACECLUSTER_ONLINE=kfarthest:2 \
		TRACECLUSTER_ONLINE_KEEP=all
	[ "$(ls k2/rank-*.tcr | wc -l)" = 4 ]
	[ -s k2/global.tct ]
	grep -q 'tracecluster-online: rank 0: kfarthest: 2 clusters' k2.err
	[ "$(jf k2/online.json mode)" = kfarthest ]
	[ "$(jf k2/online.json clusters)" = 2 ]
	[ "$(jf k2/online.json bytes)" = "$(wc -c <k2/global.tct)" ]
	tc compress -q -m kfarthest -k 2 --lead-only k2 -o off.tct
	cmp off.tct k2/global.tct
	# every rank expands from it
	for r in 0 1 2 3; do
		tc expand --rank $r k2/global.tct | grep -q MPI_Isend
	done
}

@test "online callpath-param: only the leads' raw files stay, one per cluster" {
	need_mpi
	online cp 6 "$B/testdata/capture/halo2d" TRACECLUSTER_ONLINE=callpath-param
	n=$(jf cp/online.json clusters)
	[ "$n" -ge 1 ]
	[ "$n" -lt 6 ]
	[ "$(ls cp/rank-*.tcr | wc -l)" = "$n" ]
	[ "$(jf cp/online.json kept)" = leads ]
	# the files kept are the leads': each one's rank expands from the
	# global trace to the events of its own file
	for f in cp/rank-*.tcr; do
		r=$((10#$(basename "$f" .tcr | cut -d- -f2)))
		tc expand --rank $r cp/global.tct | grep -c 'MPI_' >a.n
		tc dump "$f" | grep -c 'MPI_' >b.n
		cmp a.n b.n
	done
}

@test "online on a program with split communicators: equal to compress --lead-only" {
	need_mpi
	[ -x "$B/testdata/mpi/split" ] || skip "testdata/mpi/split not built"
	online sp 4 "$B/testdata/mpi/split" TRACECLUSTER_ONLINE=kmedoid:2 TRACECLUSTER_ONLINE_KEEP=all
	tc compress -q -m kmedoid -k 2 --lead-only sp -o off.tct
	cmp off.tct sp/global.tct
	online none 4 "$B/testdata/mpi/split" TRACECLUSTER_ONLINE=callpath TRACECLUSTER_ONLINE_KEEP=none
	[ -s none/global.tct ]
	[ "$(ls none/rank-*.tcr 2>/dev/null | wc -l)" = 0 ]
}

@test "a bad setting or a missing plugin keeps every raw file and the job's status" {
	need_mpi
	online bad 4 "$B/testdata/capture/halo2d" TRACECLUSTER_ONLINE=nosuchmode
	[ "$(ls bad/rank-*.tcr | wc -l)" = 4 ]
	[ ! -e bad/global.tct ]
	grep -q "TRACECLUSTER_ONLINE='nosuchmode'" bad.err
	online badk 4 "$B/testdata/capture/halo2d" TRACECLUSTER_ONLINE=kfarthest:0
	[ "$(ls badk/rank-*.tcr | wc -l)" = 4 ]
	online nolib 4 "$B/testdata/capture/halo2d" TRACECLUSTER_ONLINE=callpath \
		TRACECLUSTER_ONLINE_LIB=/nonexistent/libtracecluster-online.so
	[ "$(ls nolib/rank-*.tcr | wc -l)" = 4 ]
	grep -q "cannot load /nonexistent/libtracecluster-online.so" nolib.err
	# the raw files are whole: the offline tools read them
	tc compress -q nolib -o x.tct
}

@test "TRACECLUSTER_QUIET keeps the report line off standard error" {
	need_mpi
	online q 4 "$B/testdata/capture/halo2d" TRACECLUSTER_ONLINE=callpath TRACECLUSTER_QUIET=1
	[ -s q/global.tct ]
	! grep -q tracecluster-online q.err
}

@test "tracecluster run --online and --keep set the in-job clustering" {
	need_mpi
	run tc run --online nosuch -- true
	assert_failure 2
	assert_output --partial "--online: expected MODE[:K]"
	run tc run --keep all -- true
	assert_failure 2
	run tc run --online kfarthest:0 -- true
	assert_failure 2
	tc run -q --online kfarthest:2 --keep all -o ro -- mpirun -np 4 "$B/testdata/capture/halo2d" >ro.out 2>&1
	[ "$(jf ro/online.json clusters)" = 2 ]
	[ "$(jf ro/online.json kept)" = all ]
	[ "$(ls ro/rank-*.tcr | wc -l)" = 4 ]
	tc compress -q -m kfarthest -k 2 --lead-only ro -o off.tct
	cmp off.tct ro/global.tct
}
