! ring_mpifh.f90 - capture test, Fortran with mpif.h.
!
! ITERS (default 5) rounds of: Isend 16 integers (tag 1) to rank+1,
! Recv from rank-1 with a status, Wait with MPI_STATUS_IGNORE; then an
! Allreduce with MPI_IN_PLACE, an Irecv/Isend pair (tag 2) completed by
! Waitall with MPI_STATUSES_IGNORE, and a Bcast from rank 1.
program ring_mpifh
  implicit none
  include 'mpif.h'
  integer :: ierr, rank, nprocs, nxt, prv, it, iters, req, reqs(2)
  integer :: sbuf(16), rbuf(16), st(MPI_STATUS_SIZE), total(3)
  character(len=16) :: arg

  call MPI_INIT(ierr)
  call MPI_COMM_RANK(MPI_COMM_WORLD, rank, ierr)
  call MPI_COMM_SIZE(MPI_COMM_WORLD, nprocs, ierr)
  iters = 5
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    read (arg, *) iters
  end if
  nxt = mod(rank + 1, nprocs)
  prv = mod(rank + nprocs - 1, nprocs)
  sbuf = rank
  do it = 1, iters
    call MPI_ISEND(sbuf, 16, MPI_INTEGER, nxt, 1, MPI_COMM_WORLD, req, ierr)
    call MPI_RECV(rbuf, 16, MPI_INTEGER, prv, 1, MPI_COMM_WORLD, st, ierr)
    if (st(MPI_SOURCE) /= prv .or. rbuf(1) /= prv) call MPI_ABORT(MPI_COMM_WORLD, 3, ierr)
    call MPI_WAIT(req, MPI_STATUS_IGNORE, ierr)
  end do
  total = 1
  call MPI_ALLREDUCE(MPI_IN_PLACE, total, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (total(1) /= nprocs) call MPI_ABORT(MPI_COMM_WORLD, 4, ierr)
  call MPI_IRECV(rbuf, 8, MPI_INTEGER, prv, 2, MPI_COMM_WORLD, reqs(1), ierr)
  call MPI_ISEND(sbuf, 8, MPI_INTEGER, nxt, 2, MPI_COMM_WORLD, reqs(2), ierr)
  call MPI_WAITALL(2, reqs, MPI_STATUSES_IGNORE, ierr)
  call MPI_BCAST(sbuf, 4, MPI_INTEGER, 1, MPI_COMM_WORLD, ierr)
  call MPI_FINALIZE(ierr)
end program ring_mpifh
