! A user's Fortran program (tests/cmake/f08, check-cmake.sh; check-install.sh
! builds it through pkg-config): a safe allreduce and gatherv through the
! module safecoll_f08, one line "safecoll VERSION: P ranks, allreduce S,
! gatherv N ints: ok" on rank 0, exit status 1 on a wrong result.
program app_f08
  use mpi_f08
  use safecoll_f08
  implicit none
  integer :: rank, nprocs, ierror, r, total
  character(len=32) :: version
  integer, allocatable :: counts(:), displs(:), recv(:), send(:)

  call MPI_Init(ierror)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)

  call safecoll_allreduce(rank + 1, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierror)
  if (ierror /= MPI_SUCCESS .or. total /= nprocs * (nprocs + 1) / 2) error stop 1

  ! Rank r sends r + 1 ints of value r, gathered in rank order on rank 0.
  allocate(counts(0:nprocs - 1), displs(0:nprocs - 1), send(rank + 1))
  counts = [(r + 1, r = 0, nprocs - 1)]
  displs(0) = 0
  do r = 1, nprocs - 1
    displs(r) = displs(r - 1) + counts(r - 1)
  end do
  allocate(recv(sum(counts)))
  send = rank
  recv = -1
  call safecoll_gatherv(send, rank + 1, MPI_INTEGER, recv, counts, displs, MPI_INTEGER, 0, &
      MPI_COMM_WORLD, ierror)
  if (ierror /= MPI_SUCCESS) error stop 1
  if (rank == 0) then
    do r = 0, nprocs - 1
      if (any(recv(displs(r) + 1:displs(r) + counts(r)) /= r)) error stop 1
    end do
    call safecoll_version_string(version)
    write (*, '(a, a, a, i0, a, i0, a, i0, a)') 'safecoll ', trim(version), ': ', nprocs, &
        ' ranks, allreduce ', total, ', gatherv ', size(recv), ' ints: ok'
  end if
  call MPI_Finalize(ierror)
end program app_f08
