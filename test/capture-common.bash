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

# check_mprobe NAME: testdata/capture/mprobe on 4 ranks (communicator 2
# has the world ranks reversed; world rank 0 receives)
check_mprobe() {
	local t=$1 s srcs=""
	ran_ok "$t" 4
	run ev "$t" 0
	assert_line "M id=2 parent=0 creator=MPI_Comm_split size=4 members=3,2,1,0"
	# each message: its probe and its receive name the same message id
	# (req=), the actual source as a world rank, its tag and bytes
	for op in Mprobe Improbe; do
		[ "$(ev "$t" 0 | grep -cE "op=MPI_$op .* comm=2 peer=-2 tag=-1 req=[0-9]+ compl=0:[123]:[123]0:[0-9]+ ")" = "$([ $op = Mprobe ] && echo 2 || echo 1)" ]
	done
	while read -r req s; do
		srcs="$srcs$s "
		assert_line --regexp "op=MPI_(Mprobe|Improbe) .* req=$req compl=0:$s:$((10 * s)):$((4 * s)) "
		if ev "$t" 0 | grep -q "op=MPI_Imrecv .* req=$req "; then
			assert_line --regexp "op=MPI_Imrecv .* comm=2 peer=$s tag=$((10 * s)) count=64 dtype=MPI_INT .* req=$req t="
			assert_line --regexp "op=MPI_Wait .* compl=$req:$s:$((10 * s)):$((4 * s)) "
		else
			assert_line --regexp "op=MPI_Mrecv .* comm=2 peer=$s tag=$((10 * s)) count=64 dtype=MPI_INT .* req=$req compl=0:$s:$((10 * s)):$((4 * s)) "
		fi
	done < <(ev "$t" 0 | grep -E "op=MPI_(Mprobe|Improbe) .* compl=0:[123]:" |
		sed -E 's/.* req=([0-9]+) compl=0:([0-9]+):.*/\1 \2/')
	[ "$(echo $srcs | tr ' ' '\n' | sort | tr '\n' ' ')" = "1 2 3 " ]
	[ "$(nev "$t" 0 "op=MPI_Mrecv ")" = 3 ]
	[ "$(nev "$t" 0 "op=MPI_Imrecv ")" = 1 ]
	# from MPI_PROC_NULL: no message, source -3
	assert_line --regexp "op=MPI_Mprobe .* comm=2 peer=-3 tag=5 req=[0-9]+ compl=0:-3:-1:0 "
	assert_line --regexp "op=MPI_Mrecv .* peer=-3 tag=-1 count=64 .* compl=0:-3:-1:0 "
	# the senders: to world rank 0 over communicator 2
	for s in 1 2 3; do
		[ "$(nev "$t" $s "op=MPI_Send .* comm=2 peer=0 tag=$((10 * s)) count=$s ")" = 1 ]
	done
}

# check_neigh NAME: testdata/capture/neigh on 4 ranks
check_neigh() {
	local t=$1 r
	ran_ok "$t" 4
	for r in 0 1 2 3; do
		run ev "$t" $r
		assert_line "M id=2 parent=0 creator=MPI_Cart_create size=4 members=0,1,2,3 dims=4 periods=1"
		assert_line --regexp "op=MPI_Neighbor_allgather .* comm=2 count=3 dtype=MPI_INT dsize=4 bytes=12 t="
		assert_line --regexp "op=MPI_Neighbor_alltoall .* comm=2 count=2 dtype=MPI_DOUBLE dsize=8 bytes=16 t="
		assert_line --regexp "op=MPI_Neighbor_allgatherv .* comm=2 count=$((1 + r % 2)) dtype=MPI_INT .* rc=$((1 + (r + 1) % 2)),$((1 + (r + 1) % 2)) t="
		assert_line --regexp "op=MPI_Neighbor_alltoallv .* comm=2 count=7 dtype=MPI_INT dsize=4 bytes=28 sc=3,4 rc=4,3 t="
		assert_line --regexp "op=MPI_Neighbor_alltoallw .* comm=2 count=32 dtype=MPI_BYTE dsize=1 bytes=32 sc=16,16 rc=16,16 t="
		assert_line --regexp "op=MPI_Ineighbor_allgather .* comm=2 count=3 .* req=1 t="
		assert_line --regexp "op=MPI_Ineighbor_alltoall .* comm=2 count=2 dtype=MPI_DOUBLE .* req=2 t="
		assert_line --regexp "op=MPI_Waitall .* count=2 compl=1:-1:-1:0,2:-1:-1:0 "
		# the directed ring: one neighbour each way
		assert_line --regexp "op=MPI_Neighbor_alltoall .* comm=3 count=5 dtype=MPI_INT dsize=4 bytes=20 t="
		assert_line --regexp "op=MPI_Ineighbor_alltoallv .* comm=3 count=1 .* req=3 sc=1 rc=1 t="
		assert_line --regexp "op=MPI_Ineighbor_allgatherv .* comm=3 count=1 .* req=4 rc=1 t="
		assert_line --regexp "op=MPI_Ineighbor_alltoallw .* comm=3 count=4 dtype=MPI_BYTE .* req=5 sc=4 rc=4 t="
		assert_line --regexp "op=MPI_Waitall .* count=3 compl=3:-1:-1:0,4:-1:-1:0,5:-1:-1:0 "
	done
}

# check_rma NAME: testdata/capture/rma test on 4 ranks (communicator 2 has the
# world ranks reversed: window rank k is world rank 3-k)
check_rma() {
	local t=$1 w k n pr
	ran_ok "$t" 4
	for w in 0 1 2 3; do
		k=$((3 - w))
		n=$((3 - (k + 1) % 4)) pr=$((3 - (k + 3) % 4))
		run ev "$t" $w
		# the displacement unit as count, the lock type as tag (1 exclusive),
		# a post or start group's world ranks as scounts
		assert_line --regexp "op=MPI_Win_create .* comm=2 count=4 bytes=256 file=0 off=0 t="
		[ "$(nev "$t" $w "op=MPI_Win_fence .* comm=2 file=0 off=0 ")" = 2 ]
		assert_line --regexp "op=MPI_Put .* comm=2 peer=$n count=4 dtype=MPI_INT dsize=4 bytes=16 file=0 off=2 t="
		assert_line --regexp "op=MPI_Get .* comm=2 peer=$pr count=3 dtype=MPI_INT dsize=4 bytes=12 file=0 off=1 t="
		assert_line --regexp "op=MPI_Accumulate .* comm=2 peer=$n count=2 .* redop=MPI_SUM file=0 off=0 t="
		assert_line --regexp "op=MPI_Win_lock .* comm=2 peer=$n tag=1 file=0 off=0 t="
		assert_line --regexp "op=MPI_Fetch_and_op .* peer=$n count=1 dtype=MPI_INT .* redop=MPI_SUM file=0 off=5 t="
		assert_line --regexp "op=MPI_Compare_and_swap .* peer=$n count=1 dtype=MPI_INT .* file=0 off=6 t="
		assert_line --regexp "op=MPI_Get_accumulate .* peer=$n count=2 .* redop=MPI_MAX file=0 off=7 t="
		assert_line --regexp "op=MPI_Rput .* peer=$n count=6 .* bytes=24 req=1 file=0 off=10 t="
		assert_line --regexp "op=MPI_Rget .* peer=$n count=5 .* bytes=20 req=2 file=0 off=20 t="
		assert_line --regexp "op=MPI_Waitall .* count=2 compl=1:-1:-1:0,2:-1:-1:0 "
		assert_line --regexp "op=MPI_Win_flush_local .* comm=2 peer=$n file=0 "
		assert_line --regexp "op=MPI_Win_flush .* comm=2 peer=$n file=0 "
		assert_line --regexp "op=MPI_Win_unlock .* comm=2 peer=$n file=0 "
		assert_line --regexp "op=MPI_Win_lock_all .* comm=2 file=0 "
		assert_line --regexp "op=MPI_Raccumulate .* peer=$pr count=3 .* redop=MPI_REPLACE req=3 file=0 off=30 t="
		# MPI_NO_OP sends nothing: the count is the result's
		assert_line --regexp "op=MPI_Rget_accumulate .* peer=$pr count=2 .* redop=MPI_NO_OP req=4 file=0 off=40 t="
		assert_line --regexp "op=MPI_Waitall .* count=2 compl=3:-1:-1:0,4:-1:-1:0 "
		assert_line --regexp "op=MPI_Win_flush_local_all .* comm=2 file=0 "
		assert_line --regexp "op=MPI_Win_flush_all .* comm=2 file=0 "
		assert_line --regexp "op=MPI_Win_sync .* comm=2 file=0 "
		assert_line --regexp "op=MPI_Win_unlock_all .* comm=2 file=0 "
		assert_line --regexp "op=MPI_Win_post .* comm=2 count=2 file=0 off=0 sc=$n,$pr t="
		assert_line --regexp "op=MPI_Win_start .* comm=2 count=2 file=0 off=0 sc=$n,$pr t="
		assert_line --regexp "op=MPI_Put .* peer=$n count=1 .* file=0 off=50 t="
		assert_line --regexp "op=MPI_Win_complete .* comm=2 file=0 "
		[ "$(nev "$t" $w "op=MPI_Win_wait .* comm=2 file=0 ")" = 1 ]
		# the second epoch: as many Win_test as it took, the last one yes
		[ "$(nev "$t" $w "op=MPI_Win_(post|start) .* comm=2 count=2 file=0 off=0 sc=$n,$pr t=")" = 4 ]
		[ "$(nev "$t" $w "op=MPI_Win_complete .* comm=2 file=0 ")" = 2 ]
		ev "$t" $w | grep '^E op=MPI_Win_test ' | tail -1 | grep -qE " comm=2 count=1 file=0 "
		[ "$(nev "$t" $w "op=MPI_Win_test .* count=1 ")" = 1 ]
		assert_line --regexp "op=MPI_Win_free .* comm=2 file=0 "
		assert_line --regexp "op=MPI_Win_allocate .* comm=2 count=4 bytes=256 file=1 "
		assert_line --regexp "op=MPI_Win_free .* comm=2 file=1 "
		assert_line --regexp "op=MPI_Win_allocate_shared .* comm=1 count=4 bytes=128 file=2 "
		assert_line --regexp "op=MPI_Win_free .* comm=1 file=2 "
		assert_line --regexp "op=MPI_Win_create_dynamic .* comm=2 file=3 "
		assert_line --regexp "op=MPI_Win_free .* comm=2 file=3 "
	done
}

# check_ionb NAME: testdata/capture/ionb on 4 ranks
check_ionb() {
	local t=$1 r
	ran_ok "$t" 4
	for r in 0 1 2 3; do
		run ev "$t" $r
		assert_line --regexp "op=MPI_File_iwrite_at .* count=16 dtype=MPI_INT dsize=4 bytes=64 req=1 file=0 off=$((64 * r)) t="
		assert_line --regexp "op=MPI_File_iread_at .* count=16 .* req=2 file=0 off=$((64 * r)) t="
		assert_line --regexp "op=MPI_Waitall .* count=1 compl=1:-1:-1:0 "
		assert_line --regexp "op=MPI_Waitall .* count=1 compl=2:-1:-1:0 "
		assert_line --regexp "op=MPI_File_iwrite_at_all .* count=8 .* req=3 file=0 off=$((64 * (4 + r))) t="
		assert_line --regexp "op=MPI_File_iread_at_all .* count=8 .* req=4 file=0 off=$((64 * (4 + r))) t="
		assert_line --regexp "op=MPI_File_iread .* count=4 .* req=5 file=0 off=$((64 * r)) t="
		assert_line --regexp "op=MPI_File_iwrite .* count=4 .* req=6 file=0 off=$((64 * r + 16)) t="
		assert_line --regexp "op=MPI_File_iread_all .* count=2 .* req=7 file=0 off=$((64 * r + 32)) t="
		assert_line --regexp "op=MPI_File_iwrite_all .* count=2 .* req=8 file=0 off=$((64 * r + 40)) t="
		for q in 3 4 5 6 7 8; do
			assert_line --regexp "op=MPI_Wait .* compl=$q:-1:-1:0 "
		done
		# ordered accesses: no offset of their own
		assert_line --regexp "op=MPI_File_write_ordered .* count=4 .* bytes=16 file=0 off=0 t="
		assert_line --regexp "op=MPI_File_read_ordered .* count=4 .* bytes=16 file=0 off=0 t="
		assert_line --regexp "op=MPI_File_close .* file=0 off=0 t="
	done
	# the shared file pointer: after the ordered write of 4 x 16 bytes
	run ev "$t" 0
	assert_line --regexp "op=MPI_File_write_shared .* count=2 .* bytes=8 file=0 off=64 t="
	assert_line --regexp "op=MPI_File_read_shared .* count=1 .* bytes=4 file=0 off=64 t="
	assert_line --regexp "op=MPI_File_iread_shared .* count=1 .* req=9 file=0 off=68 t="
	assert_line --regexp "op=MPI_Wait .* compl=9:-1:-1:0 "
	run ev "$t" 1
	assert_line --regexp "op=MPI_File_iwrite_shared .* count=1 .* req=9 file=0 off=72 t="
	[ "$(nev "$t" 2 "op=MPI_File_(read|write|iread|iwrite)_shared ")" = 0 ]
}

# check_intercomm NAME: testdata/capture/intercomm on 4 ranks
check_intercomm() {
	local t=$1 r half
	ran_ok "$t" 4
	for r in 0 1 2 3; do
		half=$([ $((r % 2)) = 0 ] && echo 0,2 || echo 1,3)
		run ev "$t" $r
		assert_line "M id=2 parent=0 creator=MPI_Comm_split size=2 members=$half"
		assert_line "M id=3 parent=2 creator=MPI_Intercomm_create size=2 members=$half"
		assert_line "M id=4 parent=3 creator=MPI_Intercomm_merge size=4 members=0,2,1,3"
		assert_line "M id=5 parent=0 creator=MPI_Comm_dup_with_info size=4 members=0,1,2,3"
		assert_line "M id=6 parent=0 creator=MPI_Dist_graph_create size=4 members=0,1,2,3"
		assert_line --regexp "op=MPI_Intercomm_merge .* comm=3 color=0 key=$((r % 2)) newcomm=4 t="
		assert_line --regexp "op=MPI_Comm_dup_with_info .* comm=0 newcomm=5 t="
		assert_line --regexp "op=MPI_Dist_graph_create .* comm=0 newcomm=6 t="
	done
	# the local leaders name the remote leader as a world rank
	run ev "$t" 0
	assert_line --regexp "op=MPI_Intercomm_create .* comm=2 peer=1 tag=7 root=0 newcomm=3 t="
	assert_line --regexp "op=MPI_Send .* comm=3 peer=3 tag=8 count=4 "
	run ev "$t" 1
	assert_line --regexp "op=MPI_Intercomm_create .* comm=2 peer=0 tag=7 root=1 newcomm=3 t="
	run ev "$t" 3
	assert_line --regexp "op=MPI_Intercomm_create .* comm=2 tag=7 root=1 newcomm=3 t="
	assert_line --regexp "op=MPI_Recv .* comm=3 peer=0 tag=8 .* compl=0:0:8:16 "
}

# check_connect NAME: testdata/capture/connect spawn on 4 ranks
check_connect() {
	local t=$1 r half
	ran_ok "$t" 4
	for r in 0 1 2 3; do
		half=$([ $((r % 2)) = 0 ] && echo 0,2 || echo 1,3)
		run ev "$t" $r
		if [ $((r % 2)) = 0 ]; then
			assert_line --regexp "op=MPI_Comm_accept .* comm=2 root=0 newcomm=3 t="
			assert_line "M id=3 parent=2 creator=MPI_Comm_accept size=2 members=$half"
		else
			assert_line --regexp "op=MPI_Comm_connect .* comm=2 root=1 newcomm=3 t="
			assert_line "M id=3 parent=2 creator=MPI_Comm_connect size=2 members=$half"
		fi
		assert_line --regexp "op=MPI_Comm_disconnect .* comm=3 t="
		# maxprocs is significant at the root only
		if [ $r = 0 ]; then
			assert_line --regexp "op=MPI_Comm_spawn .* comm=0 count=1 root=0 newcomm=4 t="
		else
			assert_line --regexp "op=MPI_Comm_spawn .* comm=0 root=0 newcomm=4 t="
		fi
		assert_line "M id=4 parent=0 creator=MPI_Comm_spawn size=4 members=0,1,2,3"
		assert_line --regexp "op=MPI_Comm_disconnect .* comm=4 t="
	done
	# over the intercommunicators: remote ranks as world ranks; a spawned
	# process has none
	run ev "$t" 0
	assert_line --regexp "op=MPI_Send .* comm=3 peer=1 tag=3 count=2 "
	assert_line --regexp "op=MPI_Send .* comm=4 peer=-1 tag=9 count=1 "
	run ev "$t" 1
	assert_line --regexp "op=MPI_Recv .* comm=3 peer=0 tag=3 .* compl=0:0:3:8 "
}

# check_spawn_sets NAME: the trace sets of testdata/capture/connect spawn
# on 4 ranks, the parent's and the three spawned worlds'
check_spawn_sets() {
	local t=$1 d="$BATS_FILE_TMPDIR/$1" r k n=(14 13 11 11)
	ran_ok "$t" 4
	# a spawned world is not another job: no warning, no job-ID directory
	refute grep -q tracecluster-capture "$BATS_FILE_TMPDIR/$t.out"
	[ "$(cd "$d" && echo *)" = "rank-00000.tcr rank-00001.tcr rank-00002.tcr rank-00003.tcr spawn-1 spawn-2 spawn-3 tracecluster.job" ]
	grep -qx "ranks 4" "$d/tracecluster.job"
	# the parent's files: every event of its ranks, the spawns by both halves too
	for r in 0 1 2 3; do
		run ev "$t" $r
		assert_line --regexp "^H rank=$r size=4 "
		assert_line --regexp "op=MPI_Comm_spawn .* comm=2 (count=1 )?root=$((r % 2)) newcomm=5 t="
		assert_line "M id=5 parent=2 creator=MPI_Comm_spawn size=2 members=$((r % 2)),$((r % 2 + 2))"
		assert_line --regexp "^S events=${n[r]} .* trailer=1 dropped=0 bad_blocks=0 "
	done
	[ "$(nev "$t" 0 "op=MPI_Send .* comm=5 peer=-1 tag=9 count=1 ")" = 1 ]
	[ "$(nev "$t" 1 "op=MPI_Send .* comm=5 peer=-1 tag=9 count=1 ")" = 1 ]
	run tc info "$d"
	assert_success
	assert_line "ranks:       4 present, world size 4"
	assert_line "events:      49"
	# spawn-1 from MPI_COMM_WORLD's spawn, spawn-2 and -3 from the two
	# spawns at once: one rank each, a set of its own
	for k in 1 2 3; do
		[ "$(cd "$d/spawn-$k" && echo *)" = "rank-00000.tcr tracecluster.job" ]
		grep -qx "ranks 1" "$d/spawn-$k/tracecluster.job"
		run "$EV" "$d/spawn-$k/rank-00000.tcr"
		assert_success
		assert_line --regexp "^H rank=0 size=1 .* program=.*/connect$"
		assert_line --regexp "^E op=MPI_Recv .* comm=2 peer=-1 tag=9 count=1 .* compl=0:-1:9:4 "
		assert_line --regexp "^E op=MPI_Comm_disconnect .* comm=2 "
		assert_line --regexp "^S events=4 .* trailer=1 dropped=0 bad_blocks=0 "
		run tc info "$d/spawn-$k"
		assert_success
		assert_line "ranks:       1 present, world size 1"
		assert_line "events:      4"
	done
}

# connect_events NAME RANK: the events of a connect run without call
# sites, times and datatype names (MPI_INT in C, MPI_INTEGER in Fortran);
# the port name's Bcast without its count (MPI_MAX_PORT_NAME differs)
connect_events() {
	ev "$1" "$2" | grep '^E ' | sed -E 's/ (cs|t|d|dtype)=[^ ]*//g' |
		sed -E '/op=MPI_Bcast /s/ (count|bytes)=[^ ]*//g'
}

# check_fconnect C F: the run F of testdata/capture/connect_usempi spawn
# against the run C of connect spawn, both on 4 ranks
check_fconnect() {
	local c=$1 f=$2 d="$BATS_FILE_TMPDIR/$2" r k op sig
	ran_ok "$f" 4
	ran_ok "$c" 4
	for r in 0 1 2 3; do
		diff <(connect_events "$c" $r) <(connect_events "$f" $r)
		diff <(ev "$c" $r | grep '^M ') <(ev "$f" $r | grep '^M ')
		run ev "$f" $r
		for op in accept connect spawn disconnect; do
			[ $op = accept ] && [ $((r % 2)) = 1 ] && continue
			[ $op = connect ] && [ $((r % 2)) = 0 ] && continue
			# every call of the op at a line of the Fortran main program
			for sig in $(ev "$f" $r | grep "^E op=MPI_Comm_$op " | sed -E 's/.* cs=([^ ]*) .*/\1/'); do
				ev "$f" $r | grep "^C id=.* sig=$sig " | tail -1 |
					grep -q " f0=connect_usempi+0x[0-9a-f]*:MAIN__+0x"
			done
		done
	done
	[ "$(nev "$f" 0 "op=MPI_Comm_(accept|spawn|disconnect) ")" = 6 ]
	[ "$(nev "$f" 1 "op=MPI_Comm_(connect|spawn|disconnect) ")" = 6 ]
	# the spawned processes: MPI_ARGV_NULL, then the argument vector
	[ "$(cd "$d" && echo *)" = "rank-00000.tcr rank-00001.tcr rank-00002.tcr rank-00003.tcr spawn-1 spawn-2 spawn-3 tracecluster.job" ]
	"$EV" "$d/spawn-1/rank-00000.tcr" | grep -qE "^H .* program=.*/connect_usempi$"
	for k in 2 3; do
		run "$EV" "$d/spawn-$k/rank-00000.tcr"
		assert_line --regexp "^H rank=0 size=1 .* program=.*/connect_usempi child two words$"
		assert_line --regexp "^E op=MPI_Recv .* comm=2 peer=-1 tag=9 count=1 .* compl=0:-1:9:4 "
	done
}
