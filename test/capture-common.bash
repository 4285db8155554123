# Shared by test/capture.bats and test/capture-mpich.bats: read back the
# traces of runs made by setup_file into $BATS_FILE_TMPDIR/NAME with the
# checker $EV (test/capture/tcr-events). Load after helper.

# ev NAME RANK: the records of one rank file of a traced run
ev() {
	"$EV" "$BATS_FILE_TMPDIR/$1/rank-$(printf %05d "$2").tcr"
}

# ran_ok NAME NP: the run exited 0 and wrote NP rank files
ran_ok() {
	local rc
	rc=$(cat "$BATS_FILE_TMPDIR/$1.rc")
	[ "$rc" = 0 ] || { echo "run $1 exited $rc:"; cat "$BATS_FILE_TMPDIR/$1.out"; false; }
	[ "$(ls "$BATS_FILE_TMPDIR/$1"/rank-*.tcr | wc -l)" = "$2" ]
}

# nev NAME RANK PATTERN: number of event lines matching the extended regexp
nev() {
	ev "$1" "$2" | grep '^E ' | grep -cE -- "$3" || true
}

# check_ring NAME: testdata/capture/ring 5 on 4 ranks
check_ring() {
	local t=$1
	ran_ok "$t" 4
	for r in 0 1 2 3; do
		next=$(((r + 1) % 4)) prev=$(((r + 3) % 4))
		run ev "$t" $r
		assert_success
		[ "$(nev "$t" $r "op=MPI_Isend .* peer=$next tag=1 count=16 dtype=MPI_INT dsize=4 bytes=64 ")" = 5 ]
		[ "$(nev "$t" $r "op=MPI_Isend .* peer=$next tag=2 count=8 dtype=MPI_DOUBLE dsize=8 bytes=64 ")" = 5 ]
		[ "$(nev "$t" $r "op=MPI_Recv .* peer=$prev tag=1 .* compl=0:$prev:1:64 ")" = 5 ]
		[ "$(nev "$t" $r "op=MPI_Recv .* peer=$prev tag=2 .* compl=0:$prev:2:64 ")" = 5 ]
		[ "$(nev "$t" $r "op=MPI_Wait ")" = 10 ]
		[ "$(nev "$t" $r "op=MPI_Sendrecv .* peer=$next tag=3 rpeer=$prev rtag=3 count=4 .* compl=0:$prev:3:16 ")" = 1 ]
		[ "$(nev "$t" $r "op=MPI_(Init|Barrier|Finalize) ")" = 3 ]
		[ "$(nev "$t" $r "op=MPI_Pcontrol .* count=0 ")" = 1 ]
		[ "$(nev "$t" $r "op=MPI_Pcontrol .* count=1 ")" = 1 ]
		[ "$(ev "$t" $r | grep -c '^E ')" = 36 ]
		# each Wait completes the request of the Isend just before it
		ev "$t" $r | awk '/op=MPI_Isend/ { match($0, /req=[0-9]+/); req = substr($0, RSTART + 4, RLENGTH - 4) }
			/op=MPI_Wait / { if ($0 !~ "compl=" req ":-1:-1:0 ") { print "bad wait: " $0; exit 1 } }'
		ev "$t" $r | tail -1 | grep -q "^S events=36 .* trailer=1 dropped=0 bad_blocks=0"
	done
}

# check_halo NAME G: testdata/capture/halo2d 3 16 on a G x G grid (G*G ranks)
check_halo() {
	local t=$1 g=$2 r x y w e s n members
	ran_ok "$t" $((g * g))
	grep -q "dims ${g}x$g" "$BATS_FILE_TMPDIR/$t.out"
	# rank r = g*x + y on a non-periodic g x g grid
	for ((r = 0; r < g * g; r++)); do
		x=$((r / g)) y=$((r % g))
		w=$([ $x -gt 0 ] && echo $((r - g)) || echo -3)
		e=$([ $x -lt $((g - 1)) ] && echo $((r + g)) || echo -3)
		s=$([ $y -gt 0 ] && echo $((r - 1)) || echo -3)
		n=$([ $y -lt $((g - 1)) ] && echo $((r + 1)) || echo -3)
		[ "$(nev "$t" $r "op=MPI_Isend .* comm=2 peer=$w tag=10 count=16 dtype=MPI_DOUBLE dsize=8 bytes=128 ")" = 3 ]
		[ "$(nev "$t" $r "op=MPI_Isend .* comm=2 peer=$e tag=11 count=16 ")" = 3 ]
		[ "$(nev "$t" $r "op=MPI_Isend .* comm=2 peer=$s tag=12 count=16 ")" = 3 ]
		[ "$(nev "$t" $r "op=MPI_Isend .* comm=2 peer=$n tag=13 count=16 ")" = 3 ]
		[ "$(nev "$t" $r "op=MPI_Irecv .* comm=2 peer=$w tag=11 ")" = 3 ]
		[ "$(nev "$t" $r "op=MPI_Waitall .* count=8 compl=")" = 3 ]
		[ "$(nev "$t" $r "op=MPI_Allreduce .* comm=2 count=1 dtype=MPI_DOUBLE .* redop=MPI_SUM")" = 3 ]
		# every Waitall lists 8 requests: the receives from west, east,
		# south, north, then the sends; a receive from a real neighbour
		# gives its world rank, tag and 128 bytes, from PROC_NULL -3:-1:0
		ev "$t" $r | grep 'op=MPI_Waitall' | awk -v nb="$w $e $s $n" '{
			match($0, /compl=[^ ]*/); k = split(substr($0, RSTART + 6, RLENGTH - 6), c, ",")
			if (k != 8) { print "bad count: " $0; exit 1 }
			split(nb, p, " "); split("11 10 13 12", tg, " ")
			for (i = 1; i <= 8; i++) {
				split(c[i], f, ":")
				if (i > 4) want = "-1:-1:0"
				else if (p[i] >= 0) want = p[i] ":" tg[i] ":128"
				else want = "-3:-1:0"
				if (f[2] ":" f[3] ":" f[4] != want) { print "bad completion " i ": " $0; exit 1 }
			}
		}'
	done
	members=$(seq -s, 0 $((g * g - 1)))
	run ev "$t" 0
	assert_line "M id=2 parent=0 creator=MPI_Cart_create size=$((g * g)) members=$members dims=${g}x$g periods=0"
}

# check_coll NAME: testdata/capture/coll on 4 ranks
check_coll() {
	local t=$1
	ran_ok "$t" 4
	for r in 0 1 2 3; do
		run ev "$t" $r
		assert_line --regexp "op=MPI_Bcast .* comm=0 count=10 dtype=MPI_INT dsize=4 bytes=40 root=1 "
		assert_line --regexp "op=MPI_Reduce .* count=5 dtype=MPI_DOUBLE .* redop=MPI_SUM root=2 "
		assert_line --regexp "op=MPI_Allreduce .* count=3 dtype=MPI_INT .* redop=MPI_MAX "
		assert_line --regexp "op=MPI_Allreduce .* count=3 dtype=MPI_INT .* redop=MPI_SUM "
		assert_line --regexp "op=MPI_Gather .* count=2 .* root=0 "
		assert_line --regexp "op=MPI_Scatter .* count=4 .* root=3 "
		assert_line --regexp "op=MPI_Allgather .* count=1 "
		assert_line --regexp "op=MPI_Allgatherv .* count=$((r + 1)) .* rc=1,2,3,4 "
		assert_line --regexp "op=MPI_Alltoall .* count=2 "
		assert_line --regexp "op=MPI_Alltoallv .* count=10 .* sc=1,2,3,4 rc=$((r + 1)),$((r + 1)),$((r + 1)),$((r + 1)) "
		assert_line --regexp "op=MPI_Alltoallw .* count=40 dtype=MPI_BYTE dsize=1 bytes=40 sc=4,8,12,16 "
		assert_line --regexp "op=MPI_Reduce_scatter .* count=10 .* redop=MPI_SUM rc=1,2,3,4 "
		assert_line --regexp "op=MPI_Reduce_scatter_block .* count=2 .* redop=MPI_MIN "
		assert_line --regexp "op=MPI_Scan .* redop=MPI_PROD "
		assert_line --regexp "op=MPI_Exscan .* redop=MPI_SUM "
		assert_line --regexp "op=MPI_Barrier .* comm=0 "
		assert_line --regexp "op=MPI_Ibcast .* count=7 .* root=2 req=1 "
		assert_line --regexp "op=MPI_Iallreduce .* redop=MPI_MAX req=2 "
		assert_line --regexp "op=MPI_Ialltoallv .* req=3 sc=1,2,3,4 "
		assert_line --regexp "op=MPI_Ibarrier .* req=4 "
		assert_line --regexp "op=MPI_Igatherv .* count=$((r + 1)) .* root=1 req=5"
		assert_line --regexp "op=MPI_Waitall .* count=5 compl=1:-1:-1:0,2:-1:-1:0,3:-1:-1:0,4:-1:-1:0,5:-1:-1:0 "
		# counts vectors only where they are significant: Gatherv at
		# its root 0, Scatterv at its root 3, Igatherv at root 1
		if [ $r = 0 ]; then assert_line --regexp "op=MPI_Gatherv .* count=1 .* root=0 rc=1,2,3,4 "; fi
		if [ $r != 0 ]; then assert_line --regexp "op=MPI_Gatherv .* count=$((r + 1)) .* root=0 t="; fi
		if [ $r = 3 ]; then assert_line --regexp "op=MPI_Scatterv .* count=4 .* root=3 sc=1,2,3,4 "; fi
		if [ $r != 3 ]; then assert_line --regexp "op=MPI_Scatterv .* count=$((r + 1)) .* root=3 t="; fi
		if [ $r = 1 ]; then assert_line --regexp "op=MPI_Igatherv .* req=5 rc=1,2,3,4 "; fi
	done
}

# check_anysrc NAME: testdata/capture/anysrc on 4 ranks
check_anysrc() {
	local t=$1
	ran_ok "$t" 4
	run ev "$t" 0
	[ "$(nev "$t" 0 "op=MPI_Recv .* peer=-2 tag=-1 count=64 ")" = 3 ]
	for s in 1 2 3; do
		[ "$(nev "$t" 0 "op=MPI_Recv .* peer=-2 tag=-1 .* compl=0:$s:$((10 * s)):$((4 * s)) ")" = 1 ]
		[ "$(nev "$t" 0 "op=MPI_Recv .* peer=$s tag=$((10 * s)) count=$s .* compl=0:$s:$((10 * s)):$((4 * s)) ")" = 1 ]
		[ "$(nev "$t" 0 "op=MPI_(Probe|Iprobe) .* peer=-2 tag=-1 compl=0:$s:$((10 * s)):$((4 * s)) ")" = 1 ]
	done
	[ "$(ev "$t" 0 | grep 'op=MPI_Waitall .* count=3 ' | grep -o 'compl=[^ ]*' | sed 's/compl=//' | tr ',' '\n' | cut -d: -f2- | sort | tr '\n' ' ')" = "1:10:4 2:20:8 3:30:12 " ]
	for s in 1 2 3; do
		[ "$(nev "$t" $s "op=MPI_Send .* peer=0 tag=$((10 * s)) count=$s ")" = 3 ]
	done
}
