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
! a Session_init and its Session_finalize.
program mpi4_mpifh
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, size, next, prev, k, i
  integer :: req, sreq, rreq, reqs(4), x(64), y(64), parts(1), ses
  integer(kind=MPI_COUNT_KIND) :: cnt
  logical :: flag

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

  call MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, ses, ierr)
  call MPI_Session_finalize(ses, ierr)

  call MPI_Finalize(ierr)
end program mpi4_mpifh
