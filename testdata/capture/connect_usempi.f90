! connect_usempi.f90 - capture test: dynamic processes, Fortran with use mpi.
!
! The calls of connect.c in the same order: world rank 0 opens a port and
! broadcasts its name; the even world ranks accept (root: their rank 0)
! and the odd ones connect (root: world rank 1) over their halves of
! MPI_COMM_WORLD, world rank 0 sends 2 integers with tag 3 to world rank
! 1 over the new intercommunicator; both disconnect. With an argument,
! MPI_COMM_WORLD then spawns one process of this program with
! MPI_ARGV_NULL (root 0), world rank 0 sends it 1 integer with tag 9, and
! all disconnect; then both halves spawn one process each with the
! arguments "child" and "two words", and their rank 0 sends it 1 integer
! with tag 9. A spawned process receives it from its parent and
! disconnects.
program connect_usempi
  use mpi
  implicit none
  integer :: ierr, r, half, inter, parent, buf(2), st(MPI_STATUS_SIZE)
  integer :: errs(1)
  character(len=MPI_MAX_PORT_NAME) :: port
  character(len=1024) :: cmd
  character(len=16) :: args(3)

  buf = 0
  port = ' '
  call MPI_INIT(ierr)
  call MPI_COMM_GET_PARENT(parent, ierr)
  if (parent /= MPI_COMM_NULL) then
    call MPI_RECV(buf, 1, MPI_INTEGER, 0, 9, parent, st, ierr)
    call MPI_COMM_DISCONNECT(parent, ierr)
    call MPI_FINALIZE(ierr)
    stop
  end if
  call MPI_COMM_RANK(MPI_COMM_WORLD, r, ierr)
  call MPI_COMM_SPLIT(MPI_COMM_WORLD, mod(r, 2), r, half, ierr)
  if (r == 0) call MPI_OPEN_PORT(MPI_INFO_NULL, port, ierr)
  call MPI_BCAST(port, MPI_MAX_PORT_NAME, MPI_CHARACTER, 0, MPI_COMM_WORLD, ierr)
  if (mod(r, 2) == 0) then
    call MPI_COMM_ACCEPT(port, MPI_INFO_NULL, 0, half, inter, ierr)
  else
    call MPI_COMM_CONNECT(port, MPI_INFO_NULL, 0, half, inter, ierr)
  end if
  if (ierr /= MPI_SUCCESS) call MPI_ABORT(MPI_COMM_WORLD, 3, ierr)
  if (r == 0) call MPI_SEND(buf, 2, MPI_INTEGER, 0, 3, inter, ierr)
  if (r == 1) call MPI_RECV(buf, 2, MPI_INTEGER, 0, 3, inter, st, ierr)
  call MPI_COMM_DISCONNECT(inter, ierr)
  if (r == 0) call MPI_CLOSE_PORT(port, ierr)
  if (command_argument_count() > 0) then
    call get_command_argument(0, cmd)
    call MPI_COMM_SPAWN(cmd, MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, inter, &
                        MPI_ERRCODES_IGNORE, ierr)
    if (ierr /= MPI_SUCCESS) call MPI_ABORT(MPI_COMM_WORLD, 4, ierr)
    if (r == 0) call MPI_SEND(buf, 1, MPI_INTEGER, 0, 9, inter, ierr)
    call MPI_COMM_DISCONNECT(inter, ierr)
    args(1) = 'child'
    args(2) = 'two words'
    args(3) = ' '
    errs = -1
    call MPI_COMM_SPAWN(cmd, args, 1, MPI_INFO_NULL, 0, half, inter, errs, ierr)
    if (ierr /= MPI_SUCCESS) call MPI_ABORT(MPI_COMM_WORLD, 5, ierr)
    if (r < 2 .and. errs(1) /= MPI_SUCCESS) call MPI_ABORT(MPI_COMM_WORLD, 6, ierr)
    if (r < 2) call MPI_SEND(buf, 1, MPI_INTEGER, 0, 9, inter, ierr)
    call MPI_COMM_DISCONNECT(inter, ierr)
  end if
  call MPI_COMM_FREE(half, ierr)
  call MPI_FINALIZE(ierr)
end program connect_usempi
