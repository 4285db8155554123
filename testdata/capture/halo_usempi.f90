! halo_usempi.f90 - capture test, Fortran with "use mpi".
!
! 2D halo exchange on a non-periodic Cartesian grid (Cart_create,
! Cart_shift): ITERS (default 5) rounds of 4 Irecv + 4 Isend of N=32
! double precision values (tag 10 + direction) and Waitall with a status
! array, then an Allreduce. Finishes with a Waitany/Testsome pair.
program halo_usempi
  use mpi
  implicit none
  integer :: ierr, nprocs, rank, grid, it, d, iters, idx, outc
  integer :: dims(2), nb(0:3), req(8), sts(MPI_STATUS_SIZE, 8), r2(2), ind(2)
  logical :: periods(2)
  double precision :: sbuf(32, 0:3), rbuf(32, 0:3), s, t
  integer, parameter :: n = 32

  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  dims = 0
  periods = .false.
  call MPI_Dims_create(nprocs, 2, dims, ierr)
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, periods, .false., grid, ierr)
  call MPI_Comm_rank(grid, rank, ierr)
  call MPI_Cart_shift(grid, 0, 1, nb(0), nb(1), ierr)
  call MPI_Cart_shift(grid, 1, 1, nb(2), nb(3), ierr)
  iters = 5
  sbuf = rank
  do it = 1, iters
    do d = 0, 3
      call MPI_Irecv(rbuf(1, d), n, MPI_DOUBLE_PRECISION, nb(d), 10 + ieor(d, 1), grid, &
                     req(d + 1), ierr)
    end do
    do d = 0, 3
      call MPI_Isend(sbuf(1, d), n, MPI_DOUBLE_PRECISION, nb(d), 10 + d, grid, req(d + 5), ierr)
    end do
    call MPI_Waitall(8, req, sts, ierr)
    do d = 0, 3
      if (nb(d) /= MPI_PROC_NULL) then
        if (sts(MPI_SOURCE, d + 1) /= nb(d)) call MPI_Abort(MPI_COMM_WORLD, 5, ierr)
      end if
    end do
    s = 1
    call MPI_Allreduce(s, t, 1, MPI_DOUBLE_PRECISION, MPI_SUM, grid, ierr)
  end do
  call MPI_Irecv(rbuf, 4, MPI_DOUBLE_PRECISION, MPI_ANY_SOURCE, 99, MPI_COMM_WORLD, r2(1), ierr)
  call MPI_Isend(sbuf, 4, MPI_DOUBLE_PRECISION, mod(rank + 1, nprocs), 99, MPI_COMM_WORLD, &
                 r2(2), ierr)
  call MPI_Waitany(2, r2, idx, MPI_STATUS_IGNORE, ierr)
  outc = 0
  do while (outc /= MPI_UNDEFINED)
    call MPI_Testsome(2, r2, outc, ind, MPI_STATUSES_IGNORE, ierr)
  end do
  call MPI_Comm_free(grid, ierr)
  call MPI_Finalize(ierr)
end program halo_usempi
