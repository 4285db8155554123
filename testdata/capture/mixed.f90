! mixed.f90 - capture test: a Fortran program that calls MPI itself and
! through a C library (mixed_lib.c). Each MPI call must be recorded once:
! per iteration two sends to rank+1 (tag 1 from Fortran, tag 2 from C)
! and two receives from rank-1 (tag 1 in Fortran, tag 2 in C).
program mixed
  use mpi
  use iso_c_binding
  implicit none
  interface
    subroutine c_exchange(nxt, prv) bind(C, name="c_exchange")
      import :: c_int
      integer(c_int), value :: nxt, prv
    end subroutine
  end interface
  integer :: ierr, rank, nprocs, nxt, prv, it, buf(4), rbuf(4)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  nxt = mod(rank + 1, nprocs)
  prv = mod(rank + nprocs - 1, nprocs)
  buf = rank
  do it = 1, 3
    if (mod(rank, 2) == 0) then
      call MPI_Send(buf, 4, MPI_INTEGER, nxt, 1, MPI_COMM_WORLD, ierr)
      call MPI_Recv(rbuf, 4, MPI_INTEGER, prv, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
    else
      call MPI_Recv(rbuf, 4, MPI_INTEGER, prv, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE, ierr)
      call MPI_Send(buf, 4, MPI_INTEGER, nxt, 1, MPI_COMM_WORLD, ierr)
    end if
    call c_exchange(nxt, prv)
  end do
  call MPI_Finalize(ierr)
end program mixed
