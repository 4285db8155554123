! rma_io_usempi.f90 - capture test, Fortran with "use mpi": one-sided
! communication, shared-pointer and ordered MPI-IO on FILE (argument 1),
! a distributed graph. Needs 4 ranks; n is the next rank, p the previous.
!
! Win_allocate of 16 integers (displacement unit 4) over MPI_COMM_WORLD.
! A general active target epoch: Win_post to p, Win_start to n, Put of 2
! integers to n at 0, Win_complete, Win_wait. Win_lock_all: Rput of 3
! integers to n at 4 and Rget of 2 from p at 8, each waited for, Win_flush
! of n, Fetch_and_op (MPI_SUM) on n at 12, Compare_and_swap on n at 13,
! Win_flush_all, Win_unlock_all; Win_free. Dist_graph_create: each rank
! gives the edge from itself to n. On FILE, the ranks in turn:
! File_write_shared of 2 integers, then (the shared pointer back at 0)
! File_read_shared of 2; File_write_ordered and File_read_ordered of 4.
program rma_io_usempi
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, n, p, win, req, grp, gnext, gprev, graph, fh, i
  integer :: buf(16), res(16), one, cmp, srcs(1), degs(1), dsts(1)
  integer(kind=MPI_ADDRESS_KIND) :: wsize, base, disp
  character(len=256) :: path

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  n = mod(rank + 1, nprocs)
  p = mod(rank + nprocs - 1, nprocs)
  buf = rank
  res = 0
  one = 1
  cmp = 0

  wsize = 64
  call MPI_Win_allocate(wsize, 4, MPI_INFO_NULL, MPI_COMM_WORLD, base, win, ierr)
  call MPI_Comm_group(MPI_COMM_WORLD, grp, ierr)
  call MPI_Group_incl(grp, 1, [n], gnext, ierr)
  call MPI_Group_incl(grp, 1, [p], gprev, ierr)
  call MPI_Win_post(gprev, 0, win, ierr)
  call MPI_Win_start(gnext, 0, win, ierr)
  disp = 0
  call MPI_Put(buf, 2, MPI_INTEGER, n, disp, 2, MPI_INTEGER, win, ierr)
  call MPI_Win_complete(win, ierr)
  call MPI_Win_wait(win, ierr)
  call MPI_Group_free(gnext, ierr)
  call MPI_Group_free(gprev, ierr)
  call MPI_Group_free(grp, ierr)

  call MPI_Win_lock_all(0, win, ierr)
  disp = 4
  call MPI_Rput(buf, 3, MPI_INTEGER, n, disp, 3, MPI_INTEGER, win, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  disp = 8
  call MPI_Rget(res, 2, MPI_INTEGER, p, disp, 2, MPI_INTEGER, win, req, ierr)
  call MPI_Wait(req, MPI_STATUS_IGNORE, ierr)
  call MPI_Win_flush(n, win, ierr)
  disp = 12
  call MPI_Fetch_and_op(one, res(4), MPI_INTEGER, n, disp, MPI_SUM, win, ierr)
  disp = 13
  call MPI_Compare_and_swap(one, cmp, res(5), MPI_INTEGER, n, disp, win, ierr)
  call MPI_Win_flush_all(win, ierr)
  call MPI_Win_unlock_all(win, ierr)
  call MPI_Win_free(win, ierr)

  srcs(1) = rank
  degs(1) = 1
  dsts(1) = n
  call MPI_Dist_graph_create(MPI_COMM_WORLD, 1, srcs, degs, dsts, MPI_UNWEIGHTED, &
                             MPI_INFO_NULL, .false., graph, ierr)
  call MPI_Comm_free(graph, ierr)

  call get_command_argument(1, path)
  call MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, &
                     fh, ierr)
  do i = 0, nprocs - 1
    if (i == rank) call MPI_File_write_shared(fh, buf, 2, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do
  call MPI_File_seek_shared(fh, 0_MPI_OFFSET_KIND, MPI_SEEK_SET, ierr)
  do i = 0, nprocs - 1
    if (i == rank) call MPI_File_read_shared(fh, res, 2, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do
  call MPI_File_write_ordered(fh, buf, 4, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call MPI_File_read_ordered(fh, res, 4, MPI_INTEGER, MPI_STATUS_IGNORE, ierr)
  call MPI_File_close(fh, ierr)
  call MPI_Finalize(ierr)
end program rma_io_usempi
