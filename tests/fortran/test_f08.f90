! The mpi_f08 binding (module safecoll_f08) under mpiexec: results checked
! for the collectives, int and MPI_COUNT_KIND forms through one generic
! name, MPI_IN_PLACE, i-forms completed by MPI_Wait, errors returned
! through ierror, displacement recovery and the registry.
! Runs at 1, 2 and 4 ranks (make check-fortran).
program test_f08
  use mpi_f08
  use safecoll_f08
  implicit none
  integer :: rank, nprocs, ierr, nfail, total
  type(MPI_Comm) :: comm

  call MPI_Init(ierr)
  ! Errors come back through ierror, not as an abort.
  call MPI_Comm_dup(MPI_COMM_WORLD, comm)
  call MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN)
  call MPI_Comm_rank(comm, rank)
  call MPI_Comm_size(comm, nprocs)
  nfail = 0

  call test_gatherv()
  call test_gatherv_in_place()
  call test_allgatherv()
  call test_alltoallv()
  call test_alltoallw()
  call test_bcast()
  call test_allreduce()
  call test_scan()
  call test_igatherv()
  call test_iallreduce_in_place()
  call test_large_count()
  call test_ialltoallv_large_count()
  call test_bottom()
  call test_error()
  call test_not_contiguous()
  call test_displs()
  call test_registry()

  call MPI_Allreduce(nfail, total, 1, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD)
  call MPI_Comm_free(comm)
  if (rank == 0) then
    if (total == 0) then
      print '(a,i0,a)', 'test_f08: all tests passed on ', nprocs, ' ranks'
    else
      print '(a,i0,a)', 'test_f08: ', total, ' check(s) failed'
    end if
  end if
  call MPI_Finalize()
  if (total /= 0) error stop 1

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (.not. ok) then
      nfail = nfail + 1
      print '(a,i0,2a)', 'FAIL: rank ', rank, ': ', what
    end if
  end subroutine check

  ! Exact equality of doubles (the values here are exact in binary).
  elemental logical function same(a, b)
    real(8), intent(in) :: a, b
    same = .not. (a < b .or. a > b)
  end function same

  subroutine check_rc(ierror, what)
    integer, intent(in) :: ierror
    character(len=*), intent(in) :: what
    character(len=MPI_MAX_ERROR_STRING) :: msg
    integer :: len
    if (ierror /= MPI_SUCCESS) then
      call MPI_Error_string(ierror, msg, len)
      call check(.false., what // ' returned ' // msg(1:len))
    end if
  end subroutine check_rc

  ! Rank r sends r+1 integers 100*r+i to the last rank, at displacement
  ! (sum of the counts before) + r: a gap of one element before each block,
  ! which must stay untouched.
  subroutine test_gatherv()
    integer :: counts(0:nprocs-1), displs(0:nprocs-1), r, i, root, ierror
    integer, allocatable :: sendbuf(:), recvbuf(:)
    root = nprocs - 1
    do r = 0, nprocs - 1
      counts(r) = r + 1
      displs(r) = r * (r + 1) / 2 + r
    end do
    allocate(sendbuf(rank + 1), recvbuf(displs(nprocs-1) + counts(nprocs-1)))
    sendbuf = [(100 * rank + i, i = 1, rank + 1)]
    recvbuf = -1
    call safecoll_gatherv(sendbuf, rank + 1, MPI_INTEGER, recvbuf, counts, displs, MPI_INTEGER, &
        root, comm, ierror)
    call check_rc(ierror, 'safecoll_gatherv')
    if (rank == root) then
      do r = 0, nprocs - 1
        call check(all(recvbuf(displs(r)+1:displs(r)+counts(r)) == [(100*r + i, i = 1, r + 1)]), &
            'gatherv: a block is wrong')
        if (r > 0) call check(recvbuf(displs(r)) == -1, 'gatherv: a gap was written')
      end do
    end if
  end subroutine test_gatherv

  ! The root's block is already in place (MPI_IN_PLACE as sendbuf).
  subroutine test_gatherv_in_place()
    integer :: counts(0:nprocs-1), displs(0:nprocs-1), r, ierror
    real(8) :: mine(2), recvbuf(2, 0:nprocs-1)
    counts = 2
    displs = [(2 * r, r = 0, nprocs - 1)]
    mine = [real(rank, 8), -real(rank, 8)]
    recvbuf = 99
    if (rank == 0) then
      recvbuf(:, 0) = mine
      call safecoll_gatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, recvbuf, counts, displs, &
          MPI_DOUBLE_PRECISION, 0, comm, ierror)
    else
      call safecoll_gatherv(mine, 2, MPI_DOUBLE_PRECISION, recvbuf, counts, displs, &
          MPI_DOUBLE_PRECISION, 0, comm, ierror)
    end if
    call check_rc(ierror, 'safecoll_gatherv (MPI_IN_PLACE)')
    if (rank == 0) then
      do r = 0, nprocs - 1
        call check(all(same(recvbuf(:, r), [real(r, 8), -real(r, 8)])), &
            'gatherv in place: wrong')
      end do
    end if
  end subroutine test_gatherv_in_place

  subroutine test_allgatherv()
    integer :: counts(0:nprocs-1), displs(0:nprocs-1), r, i, ierror
    integer, allocatable :: recvbuf(:)
    do r = 0, nprocs - 1
      counts(r) = r + 1
      displs(r) = r * (r + 1) / 2
    end do
    allocate(recvbuf(sum(counts)))
    recvbuf = -1
    call safecoll_allgatherv([(7 * rank + i, i = 1, rank + 1)], rank + 1, MPI_INTEGER, recvbuf, &
        counts, displs, MPI_INTEGER, comm, ierror)
    call check_rc(ierror, 'safecoll_allgatherv')
    do r = 0, nprocs - 1
      call check(all(recvbuf(displs(r)+1:displs(r)+counts(r)) == [(7*r + i, i = 1, r + 1)]), &
          'allgatherv: a block is wrong')
    end do
  end subroutine test_allgatherv

  ! Rank r sends j+1 integers 1000*r+j to rank j.
  subroutine test_alltoallv()
    integer :: scounts(0:nprocs-1), sdispls(0:nprocs-1), rcounts(0:nprocs-1), &
        rdispls(0:nprocs-1), j, ierror
    integer, allocatable :: sendbuf(:), recvbuf(:)
    do j = 0, nprocs - 1
      scounts(j) = j + 1
      sdispls(j) = j * (j + 1) / 2
      rcounts(j) = rank + 1
      rdispls(j) = j * (rank + 1)
    end do
    allocate(sendbuf(sum(scounts)), recvbuf(sum(rcounts)))
    do j = 0, nprocs - 1
      sendbuf(sdispls(j)+1:sdispls(j)+scounts(j)) = 1000 * rank + j
    end do
    recvbuf = -1
    call safecoll_alltoallv(sendbuf, scounts, sdispls, MPI_INTEGER, recvbuf, rcounts, rdispls, &
        MPI_INTEGER, comm, ierror)
    call check_rc(ierror, 'safecoll_alltoallv')
    do j = 0, nprocs - 1
      call check(all(recvbuf(rdispls(j)+1:rdispls(j)+rcounts(j)) == 1000 * j + rank), &
          'alltoallv: a block is wrong')
    end do
  end subroutine test_alltoallv

  ! One integer to each rank, a datatype a peer, byte displacements.
  subroutine test_alltoallw()
    integer :: counts(0:nprocs-1), displs(0:nprocs-1), j, ierror
    type(MPI_Datatype) :: types(0:nprocs-1)
    integer :: sendbuf(0:nprocs-1), recvbuf(0:nprocs-1)
    counts = 1
    displs = [(4 * j, j = 0, nprocs - 1)]
    types = MPI_INTEGER
    sendbuf = [(10 * rank + j, j = 0, nprocs - 1)]
    recvbuf = -1
    call safecoll_alltoallw(sendbuf, counts, displs, types, recvbuf, counts, displs, types, &
        comm, ierror)
    call check_rc(ierror, 'safecoll_alltoallw')
    call check(all(recvbuf == [(10 * j + rank, j = 0, nprocs - 1)]), 'alltoallw: wrong')
  end subroutine test_alltoallw

  ! A rank-2 buffer, from the last rank.
  subroutine test_bcast()
    real(8) :: a(3, 4)
    integer :: i, j, ierror
    a = -1
    if (rank == nprocs - 1) a = reshape([(real(i, 8) / 4, i = 1, 12)], [3, 4])
    call safecoll_bcast(a, 12, MPI_DOUBLE_PRECISION, nprocs - 1, comm, ierror)
    call check_rc(ierror, 'safecoll_bcast')
    do j = 1, 4
      do i = 1, 3
        call check(same(a(i, j), real(i + 3 * (j - 1), 8) / 4), 'bcast: wrong')
      end do
    end do
  end subroutine test_bcast

  subroutine test_allreduce()
    integer :: v(3), s(3), ierror
    v = [rank, 1, 2 * rank]
    call safecoll_allreduce(v, s, 3, MPI_INTEGER, MPI_SUM, comm, ierror)
    call check_rc(ierror, 'safecoll_allreduce')
    call check(all(s == [nprocs * (nprocs - 1) / 2, nprocs, nprocs * (nprocs - 1)]), &
        'allreduce: wrong sum')
    call safecoll_allreduce(MPI_IN_PLACE, v, 3, MPI_INTEGER, MPI_MAX, comm, ierror)
    call check_rc(ierror, 'safecoll_allreduce (MPI_IN_PLACE)')
    call check(all(v == [nprocs - 1, 1, 2 * (nprocs - 1)]), 'allreduce in place: wrong max')
  end subroutine test_allreduce

  subroutine test_scan()
    integer :: s, ierror
    call safecoll_scan(rank + 1, s, 1, MPI_INTEGER, MPI_SUM, comm, ierror)
    call check_rc(ierror, 'safecoll_scan')
    call check(s == (rank + 1) * (rank + 2) / 2, 'scan: wrong')
  end subroutine test_scan

  ! The arrays stay alive and untouched until MPI_Wait, as MPI requires.
  subroutine test_igatherv()
    integer, asynchronous :: counts(0:nprocs-1), displs(0:nprocs-1)
    integer, asynchronous :: sendbuf(2), recvbuf(2 * nprocs)
    type(MPI_Request) :: req
    integer :: r, ierror
    counts = 2
    displs = [(2 * r, r = 0, nprocs - 1)]
    sendbuf = [rank, rank * rank]
    recvbuf = -1
    call safecoll_igatherv(sendbuf, 2, MPI_INTEGER, recvbuf, counts, displs, MPI_INTEGER, 0, &
        comm, req, ierror)
    call check_rc(ierror, 'safecoll_igatherv')
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierror)
    call check_rc(ierror, 'MPI_Wait (igatherv)')
    if (rank == 0) call check(all(recvbuf == [(r / 2, (r / 2) ** 2, r = 0, 2 * nprocs - 1, 2)]), &
        'igatherv: wrong')
    call safecoll_ibarrier(comm, req, ierror)
    call check_rc(ierror, 'safecoll_ibarrier')
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierror)
    call check_rc(ierror, 'MPI_Wait (ibarrier)')
  end subroutine test_igatherv

  subroutine test_iallreduce_in_place()
    real(8), asynchronous :: v(4)
    type(MPI_Request) :: req
    integer :: ierror
    v = real(rank + 1, 8)
    call safecoll_iallreduce(MPI_IN_PLACE, v, 4, MPI_DOUBLE_PRECISION, MPI_SUM, comm, req, ierror)
    call check_rc(ierror, 'safecoll_iallreduce')
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierror)
    call check_rc(ierror, 'MPI_Wait (iallreduce)')
    call check(all(same(v, real(nprocs * (nprocs + 1) / 2, 8))), 'iallreduce in place: wrong')
  end subroutine test_iallreduce_in_place

  ! The `_c` forms, chosen by the kinds of the counts.  With the int limit
  ! shrunk to 3 elements, blocks of r+1 > 3 elements run an avoidance, the
  ! code that carries counts past INT_MAX.
  subroutine test_large_count()
    integer(MPI_COUNT_KIND) :: counts(0:nprocs-1), n
    integer(MPI_ADDRESS_KIND) :: displs(0:nprocs-1)
    integer :: r, i, ierror
    integer, allocatable :: recvbuf(:)
    integer(MPI_COUNT_KIND), parameter :: big = 3
    call safecoll_int_limit_set(big, ierror)
    call check_rc(ierror, 'safecoll_int_limit_set')
    do r = 0, nprocs - 1
      counts(r) = r + 2
      displs(r) = int(r, MPI_ADDRESS_KIND) * (r + 3) / 2
    end do
    allocate(recvbuf(displs(nprocs-1) + counts(nprocs-1)))
    recvbuf = -1
    n = rank + 2
    call safecoll_allgatherv([(rank * 10 + i, i = 1, rank + 2)], n, MPI_INTEGER, recvbuf, &
        counts, displs, MPI_INTEGER, comm, ierror)
    call check_rc(ierror, 'safecoll_allgatherv (MPI_COUNT_KIND)')
    do r = 0, nprocs - 1
      call check(all(recvbuf(displs(r)+1:displs(r)+counts(r)) == [(r * 10 + i, i = 1, r + 2)]), &
          'allgatherv_c: a block is wrong')
    end do
    n = 5
    call safecoll_allreduce(MPI_IN_PLACE, recvbuf, n, MPI_INTEGER, MPI_MIN, comm, ierror)
    call check_rc(ierror, 'safecoll_allreduce (MPI_COUNT_KIND)')
    call check(recvbuf(1) == 1, 'allreduce_c: wrong')
    call safecoll_int_limit_set(int(huge(0), MPI_COUNT_KIND), ierror)
    call check_rc(ierror, 'safecoll_int_limit_set (reset)')
  end subroutine test_large_count

  ! An i-form with MPI_COUNT_KIND counts: rank r sends j+1 integers to j.
  subroutine test_ialltoallv_large_count()
    integer(MPI_COUNT_KIND), asynchronous :: scounts(0:nprocs-1), rcounts(0:nprocs-1)
    integer(MPI_ADDRESS_KIND), asynchronous :: sdispls(0:nprocs-1), rdispls(0:nprocs-1)
    integer, allocatable, asynchronous :: sendbuf(:), recvbuf(:)
    type(MPI_Request) :: req
    integer :: j, ierror
    do j = 0, nprocs - 1
      scounts(j) = j + 1
      sdispls(j) = j * (j + 1) / 2
      rcounts(j) = rank + 1
      rdispls(j) = j * (rank + 1)
    end do
    allocate(sendbuf(sum(scounts)), recvbuf(sum(rcounts)))
    do j = 0, nprocs - 1
      sendbuf(sdispls(j)+1:sdispls(j)+scounts(j)) = 1000 * rank + j
    end do
    recvbuf = -1
    call safecoll_ialltoallv(sendbuf, scounts, sdispls, MPI_INTEGER, recvbuf, rcounts, rdispls, &
        MPI_INTEGER, comm, req, ierror)
    call check_rc(ierror, 'safecoll_ialltoallv (MPI_COUNT_KIND)')
    call MPI_Wait(req, MPI_STATUS_IGNORE, ierror)
    call check_rc(ierror, 'MPI_Wait (ialltoallv_c)')
    do j = 0, nprocs - 1
      call check(all(recvbuf(rdispls(j)+1:rdispls(j)+rcounts(j)) == 1000 * j + rank), &
          'ialltoallv_c: a block is wrong')
    end do
  end subroutine test_ialltoallv_large_count

  ! MPI_BOTTOM with a datatype of absolute addresses.
  subroutine test_bottom()
    integer, target :: a(4)
    integer(MPI_ADDRESS_KIND) :: addr
    type(MPI_Datatype) :: t
    integer :: ierror
    a = -1
    if (rank == 0) a = [4, 3, 2, 1]
    call MPI_Get_address(a, addr)
    call MPI_Type_create_hindexed(1, [4], [addr], MPI_INTEGER, t)
    call MPI_Type_commit(t)
    call safecoll_bcast(MPI_BOTTOM, 1, t, 0, comm, ierror)
    call MPI_F_sync_reg(a)
    call check_rc(ierror, 'safecoll_bcast (MPI_BOTTOM)')
    call check(all(a == [4, 3, 2, 1]), 'bcast from MPI_BOTTOM: wrong')
    call MPI_Type_free(t)
  end subroutine test_bottom

  ! A negative count on every rank: MPI_ERR_COUNT through ierror, on
  ! every rank, with safecoll_last_error() naming it.
  subroutine test_error()
    integer :: counts(0:nprocs-1), displs(0:nprocs-1), recvbuf(1), ierror, cls, len
    character(len=MPI_MAX_ERROR_STRING) :: msg
    character(len=256) :: last
    counts = 0
    counts(0) = -5
    displs = 0
    ierror = MPI_SUCCESS
    call safecoll_allgatherv(recvbuf, counts(rank), MPI_INTEGER, recvbuf, counts, displs, &
        MPI_INTEGER, comm, ierror)
    call check(ierror /= MPI_SUCCESS, 'allgatherv with a negative count succeeded')
    if (ierror /= MPI_SUCCESS) then
      call MPI_Error_class(ierror, cls)
      call check(cls == MPI_ERR_COUNT, 'negative count: not MPI_ERR_COUNT')
      call MPI_Error_string(ierror, msg, len)
      call check(len > 0, 'negative count: no MPI_Error_string')
      call safecoll_last_error(last)
      call check(index(last, 'negative') > 0, 'negative count: safecoll_last_error says ' // &
          trim(last))
      if (rank == 0) print '(4a)', 'error as expected: ', msg(1:len), '; ', trim(last)
    end if
  end subroutine test_error

  ! A strided section is refused, not read wrong, and
  ! safecoll_last_error() names the argument (recvbuf of a gatherv
  ! too, whose sendbuf is contiguous).
  subroutine test_not_contiguous()
    integer :: a(10), ierror, cls, counts(1), displs(1)
    character(len=512) :: last
    a = 1
    call safecoll_bcast(a(1:10:2), 5, MPI_INTEGER, 0, comm, ierror)
    call check(ierror /= MPI_SUCCESS, 'bcast of a strided section succeeded')
    call MPI_Error_class(ierror, cls)
    call check(cls == MPI_ERR_BUFFER, 'strided section: not MPI_ERR_BUFFER')
    call safecoll_last_error(last)
    call check(index(last, 'safecoll_bcast: rank ') == 1 .and. &
        index(last, ': buffer is not contiguous') > 0, &
        'strided section: safecoll_last_error says ' // trim(last))
    counts = 1
    displs = 0
    call safecoll_gatherv(a(1:1), 1, MPI_INTEGER, a(1:10:2), counts, displs, &
        MPI_INTEGER, 0, comm, ierror)
    call MPI_Error_class(ierror, cls)
    call check(cls == MPI_ERR_BUFFER, 'strided recvbuf: not MPI_ERR_BUFFER')
    call safecoll_last_error(last)
    call check(index(last, 'safecoll_gatherv: rank ') == 1 .and. &
        index(last, ': recvbuf is not contiguous') > 0, &
        'strided recvbuf: safecoll_last_error says ' // trim(last))
  end subroutine test_not_contiguous

  ! Detector D, recovery and the gcd on a wrapped layout: true
  ! displacements 0, 2^31 - 8, 2^31 + 8, the last wrapped to an int.
  subroutine test_displs()
    integer :: displs(3), bad, ierror
    integer(MPI_ADDRESS_KIND) :: out(3)
    integer(MPI_COUNT_KIND) :: g, counts(3)
    displs = [0, 2147483640, -2147483640]
    call safecoll_displs_check(displs, 3, bad, ierror)
    call check_rc(ierror, 'safecoll_displs_check')
    call check(bad == 2, 'displs_check: first bad is not rank 2')
    counts = [8_MPI_COUNT_KIND, 8_MPI_COUNT_KIND, 8_MPI_COUNT_KIND]
    call safecoll_displs_recover(displs, counts, 3, out, ierror)
    call check_rc(ierror, 'safecoll_displs_recover')
    call check(all(out == [0_MPI_ADDRESS_KIND, 2147483640_MPI_ADDRESS_KIND, &
        2147483656_MPI_ADDRESS_KIND]), 'displs_recover: wrong')
    call safecoll_displs_gcd(out, counts, 3, g, ierror)
    call check_rc(ierror, 'safecoll_displs_gcd')
    call check(g == 8, 'displs_gcd: wrong')
    call safecoll_displs_check(displs, -1, bad, ierror)
    call check(ierror == MPI_ERR_ARG, 'displs_check with n = -1: not MPI_ERR_ARG')
  end subroutine test_displs

  ! A record for an MPI that does not exist: added, found, removed.
  subroutine test_registry()
    integer :: n0, n1, ierror
    character(len=64) :: origin
    call safecoll_bounds_count(n0, ierror)
    call check_rc(ierror, 'safecoll_bounds_count')
    call safecoll_bounds_load_string('collective=gatherv class=G_bytes bound=1Ti ' // &
        'mpi="no such MPI" note="Fortran test"' // new_line('a'), 'fortran', ierror)
    call check_rc(ierror, 'safecoll_bounds_load_string')
    call safecoll_bounds_count(n1)
    call check(n1 == n0 + 1, 'bounds_load_string: no record added')
    call safecoll_bounds_origin(n1 - 1, origin, ierror)
    call check_rc(ierror, 'safecoll_bounds_origin')
    call check(origin == 'fortran:1', 'bounds_origin: ' // trim(origin))
    call safecoll_bounds_remove(n1 - 1, ierror)
    call check_rc(ierror, 'safecoll_bounds_remove')
    call safecoll_bounds_count(n1)
    call check(n1 == n0, 'bounds_remove: not removed')
    call safecoll_bounds_load_string('collective=gatherv bund=1', 'bad', ierror)
    call check(ierror == MPI_ERR_ARG, 'bounds_load_string of a bad line: not MPI_ERR_ARG')
    call safecoll_bounds_remove(-1, ierror)
    call check(ierror == MPI_ERR_ARG, 'bounds_remove(-1): not MPI_ERR_ARG')
  end subroutine test_registry

end program test_f08
