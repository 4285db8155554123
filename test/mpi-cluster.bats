#!/usr/bin/env bats
# tracecluster-mpi: the tracecluster command over N MPI processes that read
# shares of the trace set. Every output must be the single-process
# command's, byte for byte (elapsed-time lines aside), for N = 1 to 4 and
# any thread count, on synthetic sets and on sets traced from real MPI
# programs; errors too. Skipped without mpicc.

load helper

B="$TC_ROOT/${TC_BUILD:-build/default}"
TM="$B/tracecluster-mpi"
SHIM="$B/libtracecluster-capture.so"

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
command -v ssh >/dev/null || command -v rsh >/dev/null || export OMPI_MCA_plm=isolated
case "$B" in
*san-*address*) export ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}" ;;
esac

have_mpi() {
	command -v mpirun >/dev/null && [ -x "$TM" ]
}

need_mpi() {
	have_mpi || skip "no MPI (mpicc, mpirun) or tracecluster-mpi not built"
}

setup_file() {
	have_mpi || return 0
	cd "$BATS_FILE_TMPDIR" || return 1
	tracecluster synth -q -p stencil2d -n 64 --iters 12 --jitter 0.3 -o sten
	tracecluster synth -q -p ft -n 16 --iters 6 -o ft
	tracecluster synth -q -p master-worker -n 11 --iters 9 -o mw
	tracecluster synth -q -p phases -n 12 -o ph
	if [ -f "$SHIM" ] && [ -x "$B/testdata/capture/halo2d" ]; then
		timeout 60 mpirun -np 4 -x LD_PRELOAD="$SHIM" -x TRACECLUSTER_DIR="$PWD/halo" \
			"$B/testdata/capture/halo2d" >halo.out 2>&1
		timeout 60 mpirun -np 4 -x LD_PRELOAD="$SHIM" -x TRACECLUSTER_DIR="$PWD/split" \
			"$B/testdata/mpi/split" >split.out 2>&1
	fi
}

# tm N ARGS...: tracecluster-mpi ARGS on N processes
tm() {
	local n=$1
	shift
	timeout 120 mpirun -np "$n" "$TM" "$@"
}

# same N ARGS...: stdout, stderr and status of tracecluster-mpi on N
# processes equal tracecluster's (elapsed-time lines aside); output files
# named after -o are compared by the caller
same() {
	local n=$1 rs rm
	shift
	rs=0
	tracecluster "$@" >s.out 2>s.err || rs=$?
	rm=0
	tm "$n" "$@" >m.out 2>m.err || rm=$?
	grep -v '^time:' s.out >s.cmp || true
	grep -v '^time:' m.out >m.cmp || true
	if ! cmp -s s.cmp m.cmp || [ "$rs" != "$rm" ]; then
		echo "N=$n $*: status $rs vs $rm"
		diff s.cmp m.cmp | head -20
		return 1
	fi
	# mpirun adds its own lines about a failed process: compare ours
	grep '^tracecluster' s.err >s.err.cmp || true
	grep '^tracecluster' m.err >m.err.cmp || true
	diff s.err.cmp m.err.cmp
}

@test "tracecluster-mpi --help works without mpirun" {
	need_mpi
	run "$TM" --help
	assert_success
	assert_output --partial "mpirun -np N tracecluster-mpi"
}

@test "compress: the same global trace for N = 1 to 4 and 1 or 2 threads" {
	need_mpi
	local d=$BATS_FILE_TMPDIR n j
	tracecluster -j1 compress -q "$d/sten" -o ref.tct
	for n in 1 2 3 4; do
		for j in 1 2; do
			tm "$n" -j "$j" compress -q "$d/sten" -o "m$n$j.tct"
			cmp ref.tct "m$n$j.tct"
		done
	done
	same 3 compress "$d/sten" -o m.tct
}

@test "compress: every clustering mode and serialisation the same on 3 processes" {
	need_mpi
	local d=$BATS_FILE_TMPDIR m
	for m in callpath callpath-param reference kfarthest kmedoid dynamic; do
		tracecluster compress -q -m "$m" "$d/ft" -o "s-$m.tct"
		tm 3 compress -q -m "$m" "$d/ft" -o "m-$m.tct"
		cmp "s-$m.tct" "m-$m.tct"
	done
	tracecluster compress -q -m chameleon "$d/ph" -o s-ch.tct
	tm 4 compress -q -m chameleon "$d/ph" -o m-ch.tct
	cmp s-ch.tct m-ch.tct
	tracecluster compress -q --json "$d/mw" -o s.json
	tm 2 compress -q --json "$d/mw" -o m.json
	cmp s.json m.json
}

@test "compress --mode none: merged in the radix tree across processes, the same trace for N = 1 to 5" {
	need_mpi
	local d=$BATS_FILE_TMPDIR n o
	tracecluster -j1 compress -q -m none "$d/sten" -o ref.tct
	run tm 3 -v compress -m none "$d/sten" -o m.tct
	assert_output --partial "64 ranks merged on 3 processes in the radix tree"
	cmp ref.tct m.tct
	for n in 1 2 3 4 5; do
		tm "$n" -j 2 compress -q -m none "$d/sten" -o "m$n.tct"
		cmp ref.tct "m$n.tct"
	done
	# lossy merges (histograms), other timing, every serialisation
	for o in "--precision 80 --bins 4" "--timing rank --json" "--timing none --text"; do
		tracecluster compress -q -m none $o "$d/mw" -o s.out
		tm 3 compress -q -m none $o "$d/mw" -o m.out
		cmp s.out m.out
	done
	# fewer files than processes: empty shares, the root handed to process 0
	tracecluster synth -q -p stencil1d -n 3 --iters 5 -o ring3
	tracecluster compress -q -m none ring3 -o s3.tct
	tm 5 compress -q -m none ring3 -o m3.tct
	cmp s3.tct m3.tct
	# the report but its times
	tracecluster compress -m none --report-json "$d/ft" -o r.tct 2>&1 |
		sed 's/"seconds":{[^}]*}//' >s.rep
	mv r.tct s.tct
	tm 4 compress -m none --report-json "$d/ft" -o r.tct 2>&1 | sed 's/"seconds":{[^}]*}//' >m.rep
	grep -q '"mode":"none"' s.rep
	cmp s.rep m.rep
	cmp s.tct r.tct
}

@test "compress --mode none over MPI: the communicator tables and skews of real programs" {
	need_mpi
	local d=$BATS_FILE_TMPDIR s n
	[ -d "$d/halo" ] && [ -d "$d/split" ] || skip "the capture shim or its test programs are not built"
	for s in halo split; do
		tracecluster compress -q -m none --text "$d/$s" -o "s-$s.tct"
		grep -q '^comm' "s-$s.tct" || [ "$s" = halo ]
		# recorded on one host: the ranks' skews, from the headers the
		# processes read
		grep -q '^skew ' "s-$s.tct"
		for n in 2 3; do
			tm "$n" compress -q -m none --text "$d/$s" -o "m-$s.tct"
			cmp "s-$s.tct" "m-$s.tct"
		done
	done
}

@test "the clustering reductions over MPI: the same clusters and traces for every mode, N = 2 to 4" {
	need_mpi
	local d=$BATS_FILE_TMPDIR m n
	# every reduction of 1 rank or more runs in parts (default: 4096)
	for m in callpath callpath-param reference kfarthest kmedoid dynamic; do
		tracecluster cluster --json -m "$m" "$d/sten" >"s-$m.json"
		tracecluster compress -q -m "$m" "$d/ft" -o "s-$m.tct"
		for n in 2 3 4; do
			timeout 120 mpirun -np "$n" -x TRACECLUSTER_MPI_REDUCE_MIN=1 "$TM" \
				cluster --json -m "$m" "$d/sten" >m.json
			cmp "s-$m.json" m.json
			timeout 120 mpirun -np "$n" -x TRACECLUSTER_MPI_REDUCE_MIN=1 "$TM" \
				compress -q -m "$m" "$d/ft" -o m.tct
			cmp "s-$m.tct" m.tct
		done
	done
	tracecluster compress -q -m chameleon "$d/ph" -o s-ch.tct
	timeout 120 mpirun -np 3 -x TRACECLUSTER_MPI_REDUCE_MIN=1 "$TM" compress -q -m chameleon \
		"$d/ph" -o m-ch.tct
	cmp s-ch.tct m-ch.tct
	# the reductions did run in parts (-v says so); by default not on 64 ranks
	run timeout 120 mpirun -np 3 -x TRACECLUSTER_MPI_REDUCE_MIN=1 "$TM" -v cluster -m kfarthest "$d/sten"
	assert_success
	assert_output --partial "a reduction of 64 ranks on 3 processes"
	run timeout 120 mpirun -np 3 "$TM" -v cluster -m kfarthest "$d/sten"
	refute_output --partial "a reduction of"
}

@test "cluster, signatures, info, accuracy: the same output on 2 and 4 processes" {
	need_mpi
	local d=$BATS_FILE_TMPDIR n
	for n in 2 4; do
		same "$n" cluster --json "$d/sten"
		same "$n" cluster --verify -m callpath-param "$d/ft"
		same "$n" signatures --json "$d/mw"
		same "$n" info --json "$d/ft"
		same "$n" info "$d/sten"
		same "$n" accuracy --mode callpath-param "$d/sten"
		same "$n" accuracy --json --mode kfarthest "$d/ft"
	done
}

@test "heatmap: the same matrix on 3 processes" {
	need_mpi
	local d=$BATS_FILE_TMPDIR
	tracecluster heatmap "$d/sten" -o s.csv
	tm 3 heatmap "$d/sten" -o m.csv
	cmp s.csv m.csv
	tracecluster heatmap --collectives "$d/ft" -o s.svg
	tm 3 heatmap --collectives "$d/ft" -o m.svg
	cmp s.svg m.svg
}

@test "traces of real MPI programs: the same outputs for N = 1 to 4" {
	need_mpi
	local d=$BATS_FILE_TMPDIR n s
	[ -d "$d/halo" ] && [ -d "$d/split" ] || skip "the capture shim or its test programs are not built"
	for s in halo split; do
		tracecluster compress -q "$d/$s" -o "s-$s.tct"
		for n in 1 2 3 4; do
			tm "$n" compress -q "$d/$s" -o "m-$s-$n.tct"
			cmp "s-$s.tct" "m-$s-$n.tct"
			same "$n" cluster --json "$d/$s"
		done
	done
}

@test "a damaged file read by another process: the same one-line error and status" {
	need_mpi
	local d=$BATS_FILE_TMPDIR
	cp -r "$d/sten" bad
	# rank 50 is in the share of process 3 of 4
	corrupt_byte bad/rank-00050.tcr 300
	run tracecluster compress -q bad -o s.tct
	assert_failure
	assert_output --partial "rank-00050.tcr"
	same 4 compress -q bad -o m.tct
	[ ! -e m.tct ]
	# two damaged files in different shares: the lower one is named
	corrupt_byte bad/rank-00010.tcr 300
	same 4 compress -q bad -o m.tct
	grep -q 'rank-00010.tcr' m.err
	same 3 cluster bad
	same 4 compress -q -m none bad -o m.tct
	grep -q 'rank-00010.tcr' m.err
	[ ! -e m.tct ]
	# salvaged: the same warnings, and the same trace
	tracecluster compress -q -m none --salvage bad -o s-salv.tct
	same 4 compress -m none --salvage bad -o m.tct
	grep -q 'salvaged' m.err
	cmp s-salv.tct m.tct
	same 4 info bad
	same 2 info --salvage bad
	# a damaged header, read by the process whose share holds it when
	# the set is opened
	cp -r "$d/sten" badh
	corrupt_byte badh/rank-00050.tcr 3
	run tracecluster info badh
	assert_failure
	assert_output --partial "rank-00050.tcr"
	same 4 info badh
	corrupt_byte badh/rank-00010.tcr 3
	same 4 compress -q badh -o m.tct
	grep -q 'rank-00010.tcr' m.err
	same 3 cluster badh
}

@test "a missing set and a usage error end every process" {
	need_mpi
	same 3 compress -q nowhere -o m.tct
	same 2 compress --no-such-option x
	same 2 no-such-command
}

@test "the man page renders and names every shared command" {
	local page="$TC_ROOT/man/tracecluster-mpi.1" c
	run man --warnings -l -E UTF-8 -Tutf8 "$page"
	assert_success
	refute_output --partial "warning"
	for c in compress cluster signatures heatmap accuracy info; do
		grep -q "$c" "$page"
	done
}
