! mpi3_usempi.f90 - capture test, Fortran with "use mpi": matched probes,
! neighbourhood collectives, one-sided, nonblocking MPI-IO on FILE
! (argument 1) and intercommunicators. Needs 4 ranks.
!
! World ranks 1..3 send 2*w integers with tag w to world rank 0, which
! takes them with Mprobe + Mrecv (twice) and Improbe + Imrecv + Wait. On a
! periodic 1D Cartesian communicator: Neighbor_alltoall of 3 integers and
! Ineighbor_allgatherv (2 from each neighbour) + Wait. A window of 16
! integers over MPI_COMM_WORLD: fence, Put of 4 to the next rank at
! displacement 2, Get of 2 from the previous one at 1, fence, Win_lock
! (exclusive) / Accumulate (MPI_SUM, 1) / Win_unlock on the next rank,
! Win_free. File_iwrite_at and File_iread_at of 8 integers at byte offset
! 32*rank, one Waitall. Intercomm_create between even and odd world ranks
! (tag 5), Intercomm_merge, Comm_dup_with_info.
program mpi3_usempi
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, msg, st(MPI_STATUS_SIZE), req, reqs(2)
  integer :: cart, win, fh, half, inter, merged, dup
  integer :: buf(64), rbuf(64), rc(2), dsp(2), dims(1)
  logical :: periods(1), flag
  integer(kind=MPI_ADDRESS_KIND) :: wsize, disp
  integer(kind=MPI_OFFSET_KIND) :: off
  character(len=256) :: path

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  buf = rank

  if (rank == 0) then
    call MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, msg, st, ierr)
    call MPI_Mrecv(rbuf, 64, MPI_INTEGER, msg, st, ierr)
    flag = .false.
    do while (.not. flag)
      call MPI_Improbe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, flag, msg, st, ierr)
    end do
    call MPI_Imrecv(rbuf, 64, MPI_INTEGER, msg, req, ierr)
    call MPI_Wait(req, st, ierr)
    call MPI_Mprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, msg, MPI_STATUS_IGNORE, ierr)
    call MPI_Mrecv(rbuf, 64, MPI_INTEGER, msg, MPI_STATUS_IGNORE, ierr)
  else
    call MPI_Send(buf, 2 * rank, MPI_INTEGER, 0, rank, MPI_COMM_WORLD, ierr)
  end if

  dims(1) = nprocs
  periods(1) = .true.
  call MPI_Cart_create(MPI_COMM_WORLD, 1, dims, periods, .false., cart, ierr)
  call MPI_Neighbor_alltoall(buf, 3, MPI_INTEGER, rbuf, 3, MPI_INTEGER, cart, ierr)
  rc = 2
  dsp(1) = 0
  dsp(2) = 2
  call MPI_Ineighbor_allgatherv(buf, 2, MPI_INTEGER, rbuf, rc, dsp, MPI_INTEGER, cart, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)

  wsize = 64
  call MPI_Win_create(rbuf, wsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, win, ierr)
  call MPI_Win_fence(0, win, ierr)
  disp = 2
  call MPI_Put(buf, 4, MPI_INTEGER, mod(rank + 1, nprocs), disp, 4, MPI_INTEGER, win, ierr)
  disp = 1
  call MPI_Get(buf(9), 2, MPI_INTEGER, mod(rank + nprocs - 1, nprocs), disp, 2, MPI_INTEGER, &
               win, ierr)
  call MPI_Win_fence(0, win, ierr)
  call MPI_Win_lock(MPI_LOCK_EXCLUSIVE, mod(rank + 1, nprocs), 0, win, ierr)
  disp = 0
  call MPI_Accumulate(buf, 1, MPI_INTEGER, mod(rank + 1, nprocs), disp, 1, MPI_INTEGER, &
                      MPI_SUM, win, ierr)
  call MPI_Win_unlock(mod(rank + 1, nprocs), win, ierr)
  call MPI_Win_free(win, ierr)

  call get_command_argument(1, path)
  call MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, &
                     fh, ierr)
  off = 32 * rank
  call MPI_File_iwrite_at(fh, off, buf, 8, MPI_INTEGER, reqs(1), ierr)
  call MPI_Wait(reqs(1), MPI_STATUS_IGNORE, ierr)
  call MPI_File_iread_at(fh, off, rbuf, 8, MPI_INTEGER, reqs(2), ierr)
  call MPI_Waitall(1, reqs(2:2), MPI_STATUSES_IGNORE, ierr)
  call MPI_File_close(fh, ierr)

  call MPI_Comm_split(MPI_COMM_WORLD, mod(rank, 2), rank, half, ierr)
  call MPI_Intercomm_create(half, 0, MPI_COMM_WORLD, 1 - mod(rank, 2), 5, inter, ierr)
  call MPI_Intercomm_merge(inter, mod(rank, 2) == 1, merged, ierr)
  call MPI_Comm_dup_with_info(MPI_COMM_WORLD, MPI_INFO_NULL, dup, ierr)
  call MPI_Comm_free(dup, ierr)
  call MPI_Comm_free(merged, ierr)
  call MPI_Comm_free(inter, ierr)
  call MPI_Comm_free(half, ierr)
  call MPI_Comm_free(cart, ierr)
  call MPI_Finalize(ierr)
end program mpi3_usempi
