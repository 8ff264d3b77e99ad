! The Fortran binding's refusal of a non-contiguous buffer, for
! tests/check-fatal.sh: safecoll_bcast of a strided array section.
! The first argument names the case:
!
!   fatal   on MPI_COMM_WORLD, under MPI's default handler
!           (MPI_ERRORS_ARE_FATAL): the job must end, the library's line
!           on stderr first;
!   return  on a duplicate with MPI_ERRORS_RETURN: prints "fatal-app: rank
!           R class ok: MESSAGE" when the code's class is MPI_ERR_BUFFER
!           (MESSAGE: safecoll_last_error), else "... class wrong: CLASS".
!
! A rank that gets past the call under the default handler prints
! "fatal-app: rank R survived".
program app_f08
  use mpi_f08
  use safecoll_f08
  implicit none
  integer :: a(10), ierr, rank, cls
  character(len=16) :: what
  character(len=512) :: last
  type(MPI_Comm) :: comm

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call get_command_argument(1, what)
  a = 1
  if (what == 'return') then
    call MPI_Comm_dup(MPI_COMM_WORLD, comm)
    call MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN)
    call safecoll_bcast(a(1:10:2), 5, MPI_INTEGER, 0, comm, ierr)
    call MPI_Error_class(ierr, cls)
    call safecoll_last_error(last)
    if (cls == MPI_ERR_BUFFER) then
      print '(a,i0,2a)', 'fatal-app: rank ', rank, ' class ok: ', trim(last)
    else
      print '(a,i0,a,i0)', 'fatal-app: rank ', rank, ' class wrong: ', cls
    end if
    call MPI_Comm_free(comm)
  else
    call safecoll_bcast(a(1:10:2), 5, MPI_INTEGER, 0, MPI_COMM_WORLD, ierr)
    print '(a,i0,a)', 'fatal-app: rank ', rank, ' survived'
  end if
  call MPI_Finalize(ierr)
end program app_f08
