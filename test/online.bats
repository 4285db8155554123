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

# online OUT NP PROG [ARG | ENV=VALUE]...: PROG ARGS on NP ranks under the shim
online() {
	local out=$1 np=$2 prog=$3 args=() pargs=() kv
	shift 3
	for kv in "$@"; do
		case $kv in
		*=*) args+=(-x "$kv") ;;
		*) pargs+=("$kv") ;;
		esac
	done
	rm -rf "$out"
	timeout 60 mpirun -np "$np" -x LD_PRELOAD="$SHIM" -x TRACECLUSTER_DIR="$PWD/$out" \
		"${args[@]}" "$prog" "${pargs[@]}" >"$out.out" 2>"$out.err"
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
	# the shim's time per call in the gaps, from the raw files' trailers,
	# is in both
	tc compress -q -m kfarthest -k 2 --lead-only --text k2 -o off.txt
	grep -Eq '^tracer_ns [1-9][0-9]*$' off.txt
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

@test "online: the clustering reductions run over the job's ranks, the same global trace" {
	need_mpi
	local m k
	# every reduction of 1 rank or more runs in parts over the ranks
	for m in kfarthest:2 kmedoid:3 dynamic; do
		online red 6 "$B/testdata/capture/halo2d" TRACECLUSTER_ONLINE=$m \
			TRACECLUSTER_ONLINE_KEEP=all TRACECLUSTER_ONLINE_REDUCE_MIN=1
		[ "$(jf red/online.json reductions_in_parts)" -ge 1 ]
		k=()
		case $m in *:*) k=(-k "${m#*:}") ;; esac
		tc compress -q -m "${m%%:*}" "${k[@]}" --lead-only red -o off.tct
		cmp off.tct red/global.tct
	done
	# by default not on 6 ranks
	online red 6 "$B/testdata/capture/halo2d" TRACECLUSTER_ONLINE=kfarthest:2
	[ "$(jf red/online.json reductions_in_parts)" = 0 ]
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
	! grep -q tracecluster-online q.err || false
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

# same_events A B NP: every rank expands from the two global traces to the
# same events (ops, parameters, requests), times left out
same_events() {
	local r
	for ((r = 0; r < $3; r++)); do
		tc expand --rank $r "$1" | awk '{$1 = $2 = $3 = ""; print}' >a.ev
		tc expand --rank $r "$2" | awk '{$1 = $2 = $3 = ""; print}' >b.ev
		[ -s a.ev ] && cmp a.ev b.ev || return 1
	done
}

# jm FILE KEY SUBKEY: a value of a JSON document's object
jm() {
	python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))[sys.argv[2]][sys.argv[3]])' "$1" "$2" "$3"
}

@test "online chameleon: the offline mode's states and global trace, phase by phase" {
	need_mpi
	P="$B/testdata/capture/phases"
	[ -x "$P" ] || skip "testdata/capture/phases not built"
	online ca 6 "$P" TRACECLUSTER_ONLINE=chameleon:2 TRACECLUSTER_ONLINE_KEEP=all \
		TRACECLUSTER_ONLINE_MARKER=MPI_Barrier
	[ "$(ls ca/rank-*.tcr | wc -l)" = 6 ]
	[ "$(jm ca/online.json marker calls)" = 24 ]
	[ "$(jm ca/online.json marker found)" = given ]
	[ "$(jf ca/online.json events_not_written)" = 0 ]
	# three phases: clustered in each (C), the leads alone in between (L)
	[ "$(jm ca/online.json in_state C)" = 3 ]
	[ "$(jm ca/online.json in_state L)" -ge 15 ]
	tc compress -m chameleon -k 2 --marker MPI_Barrier --lead-only ca -o off.tct >off.txt
	grep -q "24 marker calls, 24 invocations: C 3, L $(jm ca/online.json in_state L), AT 2" off.txt
	# the offline mode reads the same events back from the same files: the
	# same partial traces, clusterings and merges (the job's merge is the
	# leads', compress --lead-only's); only the timing statistics differ
	# (the job's own times here, the loaded traces' there)
	same_events off.tct ca/global.tct 6
	# a mutation the comparison must see: one count of the same global
	# trace changed (another K would not do: in phases every member's
	# events are its lead's, whichever rank leads it)
	tc compress -q -m chameleon -k 2 --marker MPI_Barrier --lead-only --text ca -o k2.tct
	sed '0,/^ *count 32$/s//      count 33/' k2.tct >mut.tct
	! cmp -s k2.tct mut.tct || false
	same_events k2.tct ca/global.tct 6
	! same_events mut.tct ca/global.tct 6 || false
	# a Barrier paused by MPI_Pcontrol is no marker call, as offline
	online rg 4 "$B/testdata/capture/ring" TRACECLUSTER_ONLINE=chameleon \
		TRACECLUSTER_ONLINE_MARKER=MPI_Barrier TRACECLUSTER_ONLINE_KEEP=all
	[ "$(jm rg/online.json marker calls)" = 1 ]
	tc compress -q -m chameleon --marker MPI_Barrier --lead-only rg -o offrg.tct
	same_events offrg.tct rg/global.tct 4
}

@test "online chameleon: ranks that lead no cluster stop writing in L" {
	need_mpi
	P="$B/testdata/capture/phases"
	[ -x "$P" ] || skip "testdata/capture/phases not built"
	online all 6 "$P" TRACECLUSTER_ONLINE=chameleon:2 TRACECLUSTER_ONLINE_KEEP=all \
		TRACECLUSTER_ONLINE_MARKER=MPI_Barrier
	online ld 6 "$P" TRACECLUSTER_ONLINE=chameleon:2 TRACECLUSTER_ONLINE_MARKER=MPI_Barrier
	# the same global trace whether or not the non-leads wrote (when not,
	# both runs' reports: their states, clusterings and merges)
	same_events all/global.tct ld/global.tct 6 ||
		{ cat all/online.json ld/online.json; false; }
	nw=$(jf ld/online.json events_not_written)
	[ "$nw" -gt 0 ]
	[ "$nw" -lt "$(jf ld/online.json events)" ]
	[ "$(jf ld/online.json raw_bytes_written)" -lt "$(jf all/online.json raw_bytes_written)" ]
	# KEEP=leads: the files of the ranks whose events are in the trace
	[ "$(ls ld/rank-*.tcr | wc -l)" = "$(jf ld/online.json needed)" ]
	[ "$(jf ld/online.json needed)" -lt 6 ]
	online no 6 "$P" TRACECLUSTER_ONLINE=chameleon:2 TRACECLUSTER_ONLINE_KEEP=none \
		TRACECLUSTER_ONLINE_MARKER=MPI_Barrier
	[ -s no/global.tct ]
	[ "$(ls no/rank-*.tcr 2>/dev/null | wc -l)" = 0 ]
}

@test "online chameleon: the marker found in the job, agreed over MPI" {
	need_mpi
	P="$B/testdata/capture/phases"
	[ -x "$P" ] || skip "testdata/capture/phases not built"
	online au 4 "$P" TRACECLUSTER_ONLINE=chameleon:2 TRACECLUSTER_ONLINE_KEEP=all
	[ "$(jm au/online.json marker found)" = auto ]
	[ "$(jm au/online.json marker op)" = MPI_Barrier ]
	site=$(jm au/online.json marker site)
	calls=$(jm au/online.json marker calls)
	# agreed at the 4th collective: the calls after it
	[ "$calls" -ge 18 ]
	[ "$calls" -lt 24 ]
	# the loop the ranks ran by the 4th collective is the first phase's,
	# whose Barrier is every timestep's: named at that call site it is
	# taken from the start, and the offline mode agrees event for event
	online st 4 "$P" TRACECLUSTER_ONLINE=chameleon:2 TRACECLUSTER_ONLINE_KEEP=all \
		TRACECLUSTER_ONLINE_MARKER="MPI_Barrier@$site"
	[ "$(jm st/online.json marker calls)" = 24 ]
	tc compress -q -m chameleon -k 2 --marker "MPI_Barrier@$site" st -o offst.tct
	same_events offst.tct st/global.tct 4
}

@test "online chameleon: disagreement, a bad marker or K leave whole raw files, no hang" {
	need_mpi
	P="$B/testdata/capture/phases"
	[ -x "$P" ] || skip "testdata/capture/phases not built"
	online a0 4 "$P" TRACECLUSTER_ONLINE=chameleon:2 TRACECLUSTER_ONLINE_KEEP=all
	site=$(jm a0/online.json marker site)
	# rank 0 calls the marker's op from another call site
	online sk 4 "$P" 8 skew TRACECLUSTER_ONLINE=chameleon:2 \
		TRACECLUSTER_ONLINE_MARKER="MPI_Barrier@$site" || true
	[ "$(ls sk/rank-*.tcr | wc -l)" = 4 ]
	[ ! -e sk/global.tct ]
	grep -q "ranks disagree on a call of the marker MPI_Barrier" sk.err
	# every event written: as many as the run that agreed
	ev=$(tc info sk | sed -n 's/^events: *//p')
	[ -n "$ev" ]
	[ "$ev" = "$(tc info a0 | sed -n 's/^events: *//p')" ]
	tc compress -q sk -o x.tct
	online bm 4 "$P" TRACECLUSTER_ONLINE=chameleon TRACECLUSTER_ONLINE_MARKER=MPI_Send
	[ "$(ls bm/rank-*.tcr | wc -l)" = 4 ]
	grep -q "a blocking collective" bm.err
	online bk 4 "$P" TRACECLUSTER_ONLINE=chameleon:0
	[ "$(ls bk/rank-*.tcr | wc -l)" = 4 ]
	[ ! -e bk/global.tct ]
	run tc run --marker auto -- true
	assert_failure 2
	run tc run --online chameleon --marker MPI_Send -- true
	assert_failure 2
	assert_output --partial "blocking collective"
}

@test "online chameleon: a rank whose file fails in MPI_Init: no clustering in the job, no hang" {
	need_mpi
	local fail="$B/testdata/capture/libfailalloc.so" r
	[ -f "$fail" ] || skip "libfailalloc.so not built"
	# rank 1's first allocation in the shim (opening its file) fails: the
	# others, tracing, vote on the in-job clustering with it and wait for
	# it at the end of MPI_Init
	rm -rf fa
	run --separate-stderr timeout 60 mpirun -np 4 -x LD_PRELOAD="$fail:$SHIM" \
		-x TRACECLUSTER_DIR="$PWD/fa" -x TC_FAILALLOC=1 -x TC_FAILALLOC_RANKS=1 \
		-x TRACECLUSTER_ONLINE=chameleon -x TRACECLUSTER_ONLINE_KEEP=all \
		"$B/testdata/capture/ring" 5
	assert_success
	[[ "$stderr" == *"rank 1: out of memory"* ]]
	[[ "$stderr" == *"TRACECLUSTER_ONLINE=chameleon: not every rank traces; no clustering in the job"* ]]
	[ ! -e fa/rank-00001.tcr ]
	[ ! -e fa/global.tct ]
	for r in 0 2 3; do
		"$B/test/capture/tcr-events" "fa/rank-0000$r.tcr" | tail -1 |
			grep -q "^S events=[1-9][0-9]* .* trailer=1 dropped=0 bad_blocks=0 "
	done
}

@test "out of memory in the in-job clustering: the job and every raw file are unharmed" {
	need_mpi
	local fail="$B/testdata/capture/libfailalloc.so" spec prog np mode total r n d
	[ -f "$fail" ] || skip "libfailalloc.so not built"
	# oom NAME NP PROG MODE [ENV=VALUE]...: PROG under the shim, the plugin's
	# allocations counted or failed by libfailalloc.so
	oom() {
		local name=$1 np=$2 prog=$3 mode=$4 args=() kv
		shift 4
		for kv in "$@"; do args+=(-x "$kv"); done
		rm -rf "$name"
		timeout 120 mpirun -np "$np" -x LD_PRELOAD="$fail:$SHIM" -x TRACECLUSTER_DIR="$PWD/$name" \
			-x TRACECLUSTER_ONLINE="$mode" -x TC_FAILALLOC_MODULE=libtracecluster-online \
			"${args[@]}" "$prog" >"$name.out" 2>"$name.err"
	}
	for spec in "4 ring callpath-param" "6 phases chameleon:2"; do
		read -r np prog mode <<<"$spec"
		prog="$B/testdata/capture/$prog"
		oom count "$np" "$prog" "$mode" TC_FAILALLOC_COUNT="$PWD/cnt"
		[ -s count/global.tct ]
		for r in 0 2; do
			total=$(cat "cnt.$r")
			[ "$total" -gt 10 ]
			# the first allocation, one in the middle, the last
			for n in 1 $((total / 2)) "$total"; do
				d=f$r-$n
				run oom "$d" "$np" "$prog" "$mode" TC_FAILALLOC="$n" TC_FAILALLOC_RANKS="$r"
				assert_success
				diff count.out "$d.out"
				# either the plugin gave up, said why, and every rank's raw
				# file stays; or the failure did not stop it (a late
				# allocation it can do without) and the global trace is whole
				if [ -e "$d/global.tct" ]; then
					tc expand --rank 0 "$d/global.tct" | grep -q MPI_
				else
					grep -q "tracecluster-online: rank $r: out of memory" "$d.err"
					[ "$(ls "$d"/rank-*.tcr | wc -l)" = "$np" ]
					tc info "$d" >/dev/null
				fi
			done
		done
	done
}
