! mpi4_mpifh.f90 - capture test: the Fortran (mpif.h) bindings of MPI-4 calls,
! built with MPICH only (Open MPI 4 has no MPI-4); mpif.h, as MPICH 4.0's
! `use mpi` module declares MPI_Parrived's flag an INTEGER.
!
! On 4 ranks, a ring: Isendrecv of 4 integers to the next rank (tag 7)
! from the previous one, Isendrecv_replace of 2 (tag 8) the other way;
! the persistent Barrier_init, Bcast_init (5 integers, root 1),
! Allreduce_init (3 integers, MPI_SUM) and Allgather_init (1 integer),
! each started and waited for twice, then freed; a partitioned send of
! 4 partitions of 8 integers to the next rank (tag 5), made ready by
! Pready, Pready_range and Pready_list, its receive polled by Parrived;
! the persistent v- and w-collectives, each started, waited for and freed
! once: Gatherv_init (rank r sends r+1 integers, root rank 3 receives i+1
! from rank i), Scatterv_init (root rank 2, the same counts),
! Allgatherv_init (the same), Alltoallv_init (2 integers to each rank),
! Alltoallw_init (1 integer to each), Reduce_scatter_init (i+1 integers to
! rank i, MPI_SUM), and on a periodic ring Neighbor_allgatherv_init (2
! integers to each neighbour), Neighbor_alltoallv_init and
! Neighbor_alltoallw_init (1 integer to the left, 2 to the right); the
! communicator constructors Comm_idup_with_info (and its Wait),
! Comm_create_from_group of the world's group (an Allreduce of 1 integer on
! it) and Intercomm_create_from_groups between the even and the odd ranks
! (a Barrier on it); a Session_init and its Session_finalize.
program mpi4_mpifh
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, size, next, prev, k, i
  integer :: req, sreq, rreq, reqs(4), x(64), y(64), parts(1), ses
  integer :: vreqs(9), c1(4), c2(4), d8(4), d32(4), ty(4), nc(2), ns(2), nr(2), nd(2)
  integer :: ring, dims(1), wgroup, egroup, ogroup, dup, fromg, inter, even(2), odd(2)
  integer(kind=MPI_ADDRESS_KIND) :: na(2)
  integer(kind=MPI_COUNT_KIND) :: cnt
  logical :: flag, periods(1)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, size, ierr)
  next = mod(rank + 1, size)
  prev = mod(rank + size - 1, size)
  x = rank
  y = 0

  call MPI_Isendrecv(x, 4, MPI_INTEGER, next, 7, y, 4, MPI_INTEGER, prev, 7, &
       MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Isendrecv_replace(x, 2, MPI_INTEGER, prev, 8, next, 8, MPI_COMM_WORLD, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)

  call MPI_Barrier_init(MPI_COMM_WORLD, MPI_INFO_NULL, reqs(1), ierr)
  call MPI_Bcast_init(x, 5, MPI_INTEGER, 1, MPI_COMM_WORLD, MPI_INFO_NULL, reqs(2), ierr)
  call MPI_Allreduce_init(x, y, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, MPI_INFO_NULL, &
       reqs(3), ierr)
  call MPI_Allgather_init(x, 1, MPI_INTEGER, y, 1, MPI_INTEGER, MPI_COMM_WORLD, &
       MPI_INFO_NULL, reqs(4), ierr)
  do k = 1, 4
     do i = 1, 2
        call MPI_Start(reqs(k), ierr)
        call MPI_Wait(reqs(k), MPI_STATUS_IGNORE, ierr)
     end do
     call MPI_Request_free(reqs(k), ierr)
  end do

  cnt = 8
  call MPI_Psend_init(x, 4, cnt, MPI_INTEGER, next, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &
       sreq, ierr)
  call MPI_Precv_init(y, 4, cnt, MPI_INTEGER, prev, 5, MPI_COMM_WORLD, MPI_INFO_NULL, &
       rreq, ierr)
  call MPI_Start(rreq, ierr)
  call MPI_Start(sreq, ierr)
  call MPI_Pready(0, sreq, ierr)
  call MPI_Pready_range(1, 2, sreq, ierr)
  parts(1) = 3
  call MPI_Pready_list(1, parts, sreq, ierr)
  flag = .false.
  do while (.not. flag)
     call MPI_Parrived(rreq, 3, flag, ierr)
  end do
  call MPI_Wait(sreq, MPI_STATUS_IGNORE, ierr)
  call MPI_Wait(rreq, MPI_STATUS_IGNORE, ierr)
  call MPI_Request_free(sreq, ierr)
  call MPI_Request_free(rreq, ierr)

  do i = 1, 4
     c1(i) = i
     c2(i) = 2
     d8(i) = 8 * (i - 1)
     d32(i) = 32 * (i - 1)
     ty(i) = MPI_INTEGER
  end do
  nc = (/ 2, 2 /)
  ns = (/ 1, 2 /)
  nr = (/ 2, 1 /)
  nd = (/ 0, 8 /)
  na = (/ 0_MPI_ADDRESS_KIND, 32_MPI_ADDRESS_KIND /)
  dims(1) = size
  periods(1) = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .false., ring, ierr)
  call MPI_Gatherv_init(x, rank + 1, MPI_INTEGER, y, c1, d8, MPI_INTEGER, 3, &
       MPI_COMM_WORLD, MPI_INFO_NULL, vreqs(1), ierr)
  call MPI_Scatterv_init(x, c1, d8, MPI_INTEGER, y, rank + 1, MPI_INTEGER, 2, &
       MPI_COMM_WORLD, MPI_INFO_NULL, vreqs(2), ierr)
  call MPI_Allgatherv_init(x, rank + 1, MPI_INTEGER, y, c1, d8, MPI_INTEGER, &
       MPI_COMM_WORLD, MPI_INFO_NULL, vreqs(3), ierr)
  call MPI_Alltoallv_init(x, c2, d8, MPI_INTEGER, y, c2, d8, MPI_INTEGER, &
       MPI_COMM_WORLD, MPI_INFO_NULL, vreqs(4), ierr)
  call MPI_Alltoallw_init(x, c2 / 2, d32, ty, y, c2 / 2, d32, ty, &
       MPI_COMM_WORLD, MPI_INFO_NULL, vreqs(5), ierr)
  call MPI_Reduce_scatter_init(x, y, c1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, &
       MPI_INFO_NULL, vreqs(6), ierr)
  call MPI_Neighbor_allgatherv_init(x, 2, MPI_INTEGER, y, nc, nd, MPI_INTEGER, ring, &
       MPI_INFO_NULL, vreqs(7), ierr)
  call MPI_Neighbor_alltoallv_init(x, ns, nd, MPI_INTEGER, y, nr, nd, MPI_INTEGER, ring, &
       MPI_INFO_NULL, vreqs(8), ierr)
  call MPI_Neighbor_alltoallw_init(x, ns, na, ty, y, nr, na, ty, ring, &
       MPI_INFO_NULL, vreqs(9), ierr)
  do k = 1, 9
     call MPI_Start(vreqs(k), ierr)
     call MPI_Wait(vreqs(k), MPI_STATUS_IGNORE, ierr)
     call MPI_Request_free(vreqs(k), ierr)
  end do
  call MPI_Comm_free(ring, ierr)

  call MPI_Comm_idup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, dup, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_group(MPI_COMM_WORLD, wgroup, ierr)
  call MPI_Comm_create_from_group(wgroup, 'tracecluster.test', MPI_INFO_NULL, &
       MPI_ERRORS_RETURN, fromg, ierr)
  call MPI_Allreduce(x, y, 1, MPI_INTEGER, MPI_SUM, fromg, ierr)
  call MPI_Comm_free(fromg, ierr)
  even = (/ 0, 2 /)
  odd = (/ 1, 3 /)
  call MPI_Group_incl(wgroup, 2, even, egroup, ierr)
  call MPI_Group_incl(wgroup, 2, odd, ogroup, ierr)
  if (mod(rank, 2) == 0) then
     call MPI_Intercomm_create_from_groups(egroup, 0, ogroup, 0, 'tracecluster.inter', &
          MPI_INFO_NULL, MPI_ERRORS_RETURN, inter, ierr)
  else
     call MPI_Intercomm_create_from_groups(ogroup, 0, egroup, 0, 'tracecluster.inter', &
          MPI_INFO_NULL, MPI_ERRORS_RETURN, inter, ierr)
  end if
  call MPI_Barrier(inter, ierr)
  call MPI_Comm_free(inter, ierr)
  call MPI_Group_free(egroup, ierr)
  call MPI_Group_free(ogroup, ierr)
  call MPI_Group_free(wgroup, ierr)

  call MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, ses, ierr)
  call MPI_Session_finalize(ses, ierr)

  call MPI_Finalize(ierr)
end program mpi4_mpifh
