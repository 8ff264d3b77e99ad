! The Fortran binding past 2^31 (make check-big; tests/big/run.sh runs it
! on 2 ranks, about 4.6 GB): no small bound registered, no shrunk int
! limit, real sizes, every byte checked at the root.
!   1. safecoll_gatherv with int counts: 2 x 1.2e9 bytes, the root's block
!      MPI_IN_PLACE, 2.4e9 bytes (> INT_MAX) received at the root;
!   2. safecoll_gatherv with INTEGER(MPI_COUNT_KIND) counts (the `_c`
!      form): 2.2e9 bytes (> INT_MAX) in one block from rank 1.
! Prints "fortran-gatherv: ok ..." when both are right.
program f08_gatherv
  use, intrinsic :: iso_fortran_env, only: int8, int64
  use mpi_f08
  use safecoll_f08
  implicit none
  integer(int64), parameter :: n = 1200000000_int64, m = 2200000000_int64
  integer :: rank, nprocs, ierror, bad, total, counts(0:1), displs(0:1)
  integer(MPI_COUNT_KIND) :: ccounts(0:1), ccount
  integer(MPI_ADDRESS_KIND) :: cdispls(0:1)
  integer(int8), allocatable :: buf(:)
  integer(int8) :: unused(1)
  integer(int64) :: k
  real(8) :: t0, t1, t2

  call MPI_Init(ierror)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN)
  if (nprocs /= 2) then
    if (rank == 0) print '(a)', 'fortran-gatherv: needs 2 ranks'
    call MPI_Finalize()
    error stop 2
  end if
  bad = 0

  ! 1. int counts; the root holds the whole receive buffer, rank 1 its
  ! block (and later the _c block).
  if (rank == 0) then
    allocate(buf(2 * n))
    do k = 1, n
      buf(k) = pattern(k - 1)
    end do
    buf(n+1:) = 0
  else
    allocate(buf(m))
    do k = 1, n
      buf(k) = pattern(n + k - 1)
    end do
  end if
  counts = int(n)
  displs = [0, int(n)]
  t0 = MPI_Wtime()
  if (rank == 0) then
    call safecoll_gatherv(MPI_IN_PLACE, 0, MPI_BYTE, buf, counts, displs, MPI_BYTE, 0, &
        MPI_COMM_WORLD, ierror)
  else
    call safecoll_gatherv(buf, int(n), MPI_BYTE, unused, counts, displs, MPI_BYTE, 0, &
        MPI_COMM_WORLD, ierror)
  end if
  t1 = MPI_Wtime()
  call report(ierror, 'safecoll_gatherv (int counts)')
  if (rank == 0 .and. ierror == MPI_SUCCESS) then
    do k = 1, 2 * n
      if (buf(k) /= pattern(k - 1)) then
        print '(a,i0)', 'fortran-gatherv: int counts: wrong byte at ', k - 1
        bad = bad + 1
        exit
      end if
    end do
  end if

  ! 2. MPI_COUNT_KIND counts: one block of m > INT_MAX bytes from rank 1.
  if (rank == 1) then
    do k = 1, m
      buf(k) = pattern(k + 5)
    end do
  else
    buf = 0
  end if
  ccounts = [0_MPI_COUNT_KIND, m]
  cdispls = 0
  ccount = m
  t2 = MPI_Wtime()
  if (rank == 0) then
    call safecoll_gatherv(MPI_IN_PLACE, 0_MPI_COUNT_KIND, MPI_BYTE, buf, ccounts, cdispls, &
        MPI_BYTE, 0, MPI_COMM_WORLD, ierror)
  else
    call safecoll_gatherv(buf, ccount, MPI_BYTE, unused, ccounts, cdispls, MPI_BYTE, 0, &
        MPI_COMM_WORLD, ierror)
  end if
  t2 = MPI_Wtime() - t2
  call report(ierror, 'safecoll_gatherv (MPI_COUNT_KIND counts)')
  if (rank == 0 .and. ierror == MPI_SUCCESS) then
    do k = 1, m
      if (buf(k) /= pattern(k + 5)) then
        print '(a,i0)', 'fortran-gatherv: MPI_COUNT_KIND counts: wrong byte at ', k - 1
        bad = bad + 1
        exit
      end if
    end do
    do k = m + 1, 2 * n
      if (buf(k) /= 0) then
        print '(a,i0)', 'fortran-gatherv: MPI_COUNT_KIND counts: byte written past the block at ', &
            k - 1
        bad = bad + 1
        exit
      end if
    end do
  end if

  call MPI_Allreduce(bad, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  if (rank == 0 .and. total == 0) print '(a,f0.2,a,f0.2,a)', &
      'fortran-gatherv: ok int=', t1 - t0, 's c=', t2, 's'
  call MPI_Finalize()
  if (total /= 0) error stop 1

contains

  ! The byte at receive position k (from 0): a block put anywhere else is
  ! seen, since neither n nor the shifts are multiples of 251.
  elemental integer(int8) function pattern(k)
    integer(int64), intent(in) :: k
    pattern = int(mod(k, 251_int64) - 125, int8)
  end function pattern

  subroutine report(rc, what)
    integer, intent(in) :: rc
    character(len=*), intent(in) :: what
    character(len=MPI_MAX_ERROR_STRING) :: msg
    character(len=512) :: last
    integer :: len
    if (rc /= MPI_SUCCESS) then
      call MPI_Error_string(rc, msg, len)
      call safecoll_last_error(last)
      print '(a,i0,5a)', 'fortran-gatherv: rank ', rank, ': ', what, ' returned ', msg(1:len), &
          ': ' // trim(last)
      bad = bad + 1
    end if
  end subroutine report

end program f08_gatherv
