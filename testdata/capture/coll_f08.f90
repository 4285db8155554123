! coll_f08.f90 - capture test, Fortran with "use mpi_f08".
!
! Bcast (root 1), Allreduce with MPI_IN_PLACE, Reduce (root 2), Gatherv
! to root 0 (rank r sends r+1 integers), Scatterv from root 3, Alltoallv,
! Comm_split by parity, a wildcard Recv at rank 0 (every other rank sends
! it r integers with tag 10*r), persistent requests (Send_init/Recv_init
! with Startall/Waitall, twice), an Iallreduce + Wait, a 2x2 Cart_create
! periodic in the first dimension, and MPI-IO: every rank writes 4
! integers at byte 16*rank of "f08io.dat" (a blank-padded Fortran string);
! ierror is left out in some calls (it is optional in mpi_f08).
program coll_f08
  use mpi_f08
  implicit none
  integer :: rank, nprocs, i, ierr, n
  integer, allocatable :: a(:), b(:), cnt(:), dsp(:), rcnt(:), rdsp(:)
  integer :: v(3)
  type(MPI_Comm) :: sub
  type(MPI_Status) :: st
  type(MPI_Request) :: pr(2), rq
  type(MPI_Comm) :: cart
  type(MPI_File) :: fh
  character(len=32) :: fname
  integer(kind=MPI_OFFSET_KIND) :: off

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  allocate(a(1024), b(1024), cnt(nprocs), dsp(nprocs), rcnt(nprocs), rdsp(nprocs))
  a = 0
  b = 0
  n = 0
  do i = 1, nprocs
    cnt(i) = i
    dsp(i) = n
    n = n + i
    rcnt(i) = rank + 1
    rdsp(i) = (i - 1) * (rank + 1)
  end do

  call MPI_Bcast(a, 10, MPI_INTEGER, 1, MPI_COMM_WORLD, ierr)
  v = 1
  call MPI_Allreduce(MPI_IN_PLACE, v, 3, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (v(1) /= nprocs) call MPI_Abort(MPI_COMM_WORLD, 6)
  call MPI_Reduce(a, b, 5, MPI_INTEGER, MPI_MAX, 2, MPI_COMM_WORLD)
  call MPI_Gatherv(a, rank + 1, MPI_INTEGER, b, cnt, dsp, MPI_INTEGER, 0, MPI_COMM_WORLD)
  call MPI_Scatterv(a, cnt, dsp, MPI_INTEGER, b, rank + 1, MPI_INTEGER, 3, MPI_COMM_WORLD)
  call MPI_Alltoallv(a, cnt, dsp, MPI_INTEGER, b, rcnt, rdsp, MPI_INTEGER, MPI_COMM_WORLD)

  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, sub)
  call MPI_Barrier(sub)

  if (rank == 0) then
    do i = 1, nprocs - 1
      call MPI_Recv(b, 64, MPI_INTEGER, MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, st)
      if (st%MPI_TAG /= 10 * st%MPI_SOURCE) call MPI_Abort(MPI_COMM_WORLD, 7)
    end do
  else
    call MPI_Send(a, rank, MPI_INTEGER, 0, 10 * rank, MPI_COMM_WORLD)
  end if
  call MPI_Barrier(MPI_COMM_WORLD)

  call MPI_Recv_init(b, 6, MPI_INTEGER, mod(rank + nprocs - 1, nprocs), 5, MPI_COMM_WORLD, pr(1))
  call MPI_Send_init(a, 6, MPI_INTEGER, mod(rank + 1, nprocs), 5, MPI_COMM_WORLD, pr(2))
  do i = 1, 2
    call MPI_Startall(2, pr)
    call MPI_Waitall(2, pr, MPI_STATUSES_IGNORE)
  end do
  call MPI_Request_free(pr(1))
  call MPI_Request_free(pr(2))

  call MPI_Iallreduce(a, b, 4, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, rq)
  call MPI_Wait(rq, MPI_STATUS_IGNORE)
  call MPI_Cart_create(MPI_COMM_WORLD, 2, [2, 2], [.true., .false.], .false., cart)
  call MPI_Comm_free(cart)

  fname = 'f08io.dat'
  call MPI_File_open(MPI_COMM_WORLD, fname, MPI_MODE_CREATE + MPI_MODE_WRONLY, MPI_INFO_NULL, fh)
  off = 16 * rank
  a(1:4) = rank
  call MPI_File_write_at(fh, off, a, 4, MPI_INTEGER, MPI_STATUS_IGNORE)
  call MPI_File_close(fh)
  call MPI_Comm_free(sub)
  call MPI_Finalize()
end program coll_f08
