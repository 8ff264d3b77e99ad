!> \file safecoll_f08.f90
!> \brief libsafecoll for mpi_f08 programs: `use safecoll_f08`.
!>
!> The safe collectives with mpi_f08's argument types (TYPE(MPI_Comm),
!> TYPE(MPI_Datatype), TYPE(MPI_Op), TYPE(MPI_Request), buffers of any type
!> and rank, MPI_IN_PLACE, an optional ierror), each under MPI's name with
!> `safecoll_`: `call safecoll_gatherv(...)`.  A call whose counts are
!> INTEGER(MPI_COUNT_KIND) and displacements INTEGER(MPI_ADDRESS_KIND) is
!> the `_c` form (safecoll_gatherv_c), as in MPI-4's mpi_f08; it works on
!> any MPI >= 3.  Also the registry calls and displacement recovery that
!> take no C structure (see doc/guide.md, "Fortran").
!>
!> Errors: ierror gets the MPI error code, as in mpi_f08; the
!> communicator's error handler is invoked first, as by the C calls, so
!> ierror is seen only under MPI_ERRORS_RETURN.  A buffer that is not
!> contiguous (an array section with a stride) is refused with
!> MPI_ERR_BUFFER.
!>
!> Built into libsafecoll_f08 (with its C half, shim.c, made by gen.py):
!>   mpifort -I<includedir> prog.f90 -lsafecoll_f08 -lsafecoll
module safecoll_f08
  use, intrinsic :: iso_c_binding, only: c_int, c_char, c_ptr, c_size_t, c_null_char, &
      c_f_pointer, c_associated
  use mpi_f08, only: MPI_Datatype, MPI_Op, MPI_Comm, MPI_Request, MPI_IN_PLACE, MPI_BOTTOM, &
      MPI_COUNT_KIND, MPI_ADDRESS_KIND, MPI_SUCCESS
  implicit none
  private

  ! The collectives' public names are in coll_spec.inc, with their
  ! interfaces (generated from the collective table by gen.py).
  public :: safecoll_version, safecoll_version_string, safecoll_last_error
  public :: safecoll_displs_check, safecoll_displs_check_blocks, safecoll_displs_recover, &
      safecoll_displs_believable, safecoll_displs_segments, safecoll_displs_gcd
  public :: safecoll_bounds_load, safecoll_bounds_load_string, safecoll_bounds_save, &
      safecoll_bounds_clear, safecoll_bounds_count, safecoll_bounds_remove, &
      safecoll_bounds_origin, safecoll_perf_bounds_set, safecoll_perf_bounds_get
  public :: safecoll_int_limit_set, safecoll_strategy_parse, safecoll_check_set

  include 'coll_spec.inc'

  !> Displacement recovery with int or MPI_COUNT_KIND block lengths.
  interface safecoll_displs_check_blocks
    module procedure displs_check_blocks_i, displs_check_blocks_c
  end interface safecoll_displs_check_blocks
  interface safecoll_displs_recover
    module procedure displs_recover_i, displs_recover_c
  end interface safecoll_displs_recover

  ! libsafecoll's own C functions that take no MPI handle.
  interface
    function c_version() bind(C, name="safecoll_version") result(v)
      import :: c_int
      integer(c_int) :: v
    end function c_version
    function c_version_string() bind(C, name="safecoll_version_string") result(p)
      import :: c_ptr
      type(c_ptr) :: p
    end function c_version_string
    function c_last_error() bind(C, name="safecoll_last_error") result(p)
      import :: c_ptr
      type(c_ptr) :: p
    end function c_last_error
    function c_strlen(s) bind(C, name="strlen") result(n)
      import :: c_ptr, c_size_t
      type(c_ptr), value :: s
      integer(c_size_t) :: n
    end function c_strlen
    function c_displs_check(displs, n, first_bad) bind(C, name="safecoll_displs_check") result(rc)
      import :: c_int
      integer(c_int), intent(in) :: displs(*)
      integer(c_int), value :: n
      integer(c_int), intent(out) :: first_bad
      integer(c_int) :: rc
    end function c_displs_check
    function c_displs_check_blocks(displs, counts, n, first_bad) &
        bind(C, name="safecoll_displs_check_blocks") result(rc)
      import :: c_int
      integer(c_int), intent(in) :: displs(*), counts(*)
      integer(c_int), value :: n
      integer(c_int), intent(out) :: first_bad
      integer(c_int) :: rc
    end function c_displs_check_blocks
    function c_displs_check_blocks_c(displs, counts, n, first_bad) &
        bind(C, name="safecoll_displs_check_blocks_c") result(rc)
      import :: c_int, MPI_COUNT_KIND
      integer(c_int), intent(in) :: displs(*)
      integer(MPI_COUNT_KIND), intent(in) :: counts(*)
      integer(c_int), value :: n
      integer(c_int), intent(out) :: first_bad
      integer(c_int) :: rc
    end function c_displs_check_blocks_c
    function c_displs_recover(displs, counts, n, out) bind(C, name="safecoll_displs_recover") &
        result(rc)
      import :: c_int, MPI_ADDRESS_KIND
      integer(c_int), intent(in) :: displs(*)
      integer(c_int), intent(in), optional :: counts(*)
      integer(c_int), value :: n
      integer(MPI_ADDRESS_KIND), intent(out) :: out(*)
      integer(c_int) :: rc
    end function c_displs_recover
    function c_displs_recover_c(displs, counts, n, out) &
        bind(C, name="safecoll_displs_recover_c") result(rc)
      import :: c_int, MPI_COUNT_KIND, MPI_ADDRESS_KIND
      integer(c_int), intent(in) :: displs(*)
      integer(MPI_COUNT_KIND), intent(in) :: counts(*)
      integer(c_int), value :: n
      integer(MPI_ADDRESS_KIND), intent(out) :: out(*)
      integer(c_int) :: rc
    end function c_displs_recover_c
    function c_displs_believable(displs, counts, n, first_bad) &
        bind(C, name="safecoll_displs_believable") result(rc)
      import :: c_int, MPI_COUNT_KIND, MPI_ADDRESS_KIND
      integer(MPI_ADDRESS_KIND), intent(in) :: displs(*)
      integer(MPI_COUNT_KIND), intent(in) :: counts(*)
      integer(c_int), value :: n
      integer(c_int), intent(out) :: first_bad
      integer(c_int) :: rc
    end function c_displs_believable
    function c_displs_segments(displs, counts, n, limit, nseg, seg_start, rebased) &
        bind(C, name="safecoll_displs_segments") result(rc)
      import :: c_int, MPI_COUNT_KIND, MPI_ADDRESS_KIND
      integer(MPI_ADDRESS_KIND), intent(in) :: displs(*)
      integer(MPI_COUNT_KIND), intent(in), optional :: counts(*)
      integer(c_int), value :: n
      integer(MPI_ADDRESS_KIND), value :: limit
      integer(c_int), intent(out) :: nseg, seg_start(*)
      integer(c_int), intent(out), optional :: rebased(*)
      integer(c_int) :: rc
    end function c_displs_segments
    function c_displs_gcd(displs, counts, n, g) bind(C, name="safecoll_displs_gcd") result(rc)
      import :: c_int, MPI_COUNT_KIND, MPI_ADDRESS_KIND
      integer(MPI_ADDRESS_KIND), intent(in), optional :: displs(*)
      integer(MPI_COUNT_KIND), intent(in), optional :: counts(*)
      integer(c_int), value :: n
      integer(MPI_COUNT_KIND), intent(out) :: g
      integer(c_int) :: rc
    end function c_displs_gcd
    function c_bounds_load(path) bind(C, name="safecoll_bounds_load") result(rc)
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int) :: rc
    end function c_bounds_load
    function c_bounds_load_string(text, name) bind(C, name="safecoll_bounds_load_string") &
        result(rc)
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: text(*)
      character(kind=c_char), intent(in), optional :: name(*)
      integer(c_int) :: rc
    end function c_bounds_load_string
    function c_bounds_save(path) bind(C, name="safecoll_bounds_save") result(rc)
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: path(*)
      integer(c_int) :: rc
    end function c_bounds_save
    function c_bounds_clear() bind(C, name="safecoll_bounds_clear") result(rc)
      import :: c_int
      integer(c_int) :: rc
    end function c_bounds_clear
    function c_bounds_count(n) bind(C, name="safecoll_bounds_count") result(rc)
      import :: c_int, c_size_t
      integer(c_size_t), intent(out) :: n
      integer(c_int) :: rc
    end function c_bounds_count
    function c_bounds_remove(index) bind(C, name="safecoll_bounds_remove") result(rc)
      import :: c_int, c_size_t
      integer(c_size_t), value :: index
      integer(c_int) :: rc
    end function c_bounds_remove
    function c_bounds_origin(index, buf, len) bind(C, name="safecoll_bounds_origin") result(rc)
      import :: c_int, c_size_t, c_char
      integer(c_size_t), value :: index
      character(kind=c_char), intent(out) :: buf(*)
      integer(c_size_t), value :: len
      integer(c_int) :: rc
    end function c_bounds_origin
    function c_perf_bounds_set(on) bind(C, name="safecoll_perf_bounds_set") result(rc)
      import :: c_int
      integer(c_int), value :: on
      integer(c_int) :: rc
    end function c_perf_bounds_set
    function c_perf_bounds_get() bind(C, name="safecoll_perf_bounds_get") result(on)
      import :: c_int
      integer(c_int) :: on
    end function c_perf_bounds_get
    function c_int_limit_set(limit) bind(C, name="safecoll_int_limit_set") result(rc)
      import :: c_int, MPI_COUNT_KIND
      integer(MPI_COUNT_KIND), value :: limit
      integer(c_int) :: rc
    end function c_int_limit_set
    function c_strategy_parse(spec) bind(C, name="safecoll_strategy_parse") result(rc)
      import :: c_int, c_char
      character(kind=c_char), intent(in) :: spec(*)
      integer(c_int) :: rc
    end function c_strategy_parse
    function c_check_set(on) bind(C, name="safecoll_check_set") result(rc)
      import :: c_int
      integer(c_int), value :: on
      integer(c_int) :: rc
    end function c_check_set
  end interface

contains

  include 'coll_body.inc'

  ! A C string into a Fortran one, cut or padded with blanks.
  subroutine from_c(p, s)
    type(c_ptr), intent(in) :: p
    character(len=*), intent(out) :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    s = ''
    if (.not. c_associated(p)) return
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    do i = 1, min(n, len(s))
      s(i:i) = chars(i)
    end do
  end subroutine from_c

  ! A Fortran string as a NUL-terminated C one.
  pure function to_c(s) result(c)
    character(len=*), intent(in) :: s
    character(kind=c_char, len=len(s) + 1) :: c
    c = s // c_null_char
  end function to_c

  subroutine set(ierror, rc)
    integer, optional, intent(out) :: ierror
    integer(c_int), intent(in) :: rc
    if (present(ierror)) ierror = rc
  end subroutine set

  !> The version of the running library, as safecoll_version().
  integer function safecoll_version()
    safecoll_version = c_version()
  end function safecoll_version

  !> The version as a string, e.g. "0.1.0".
  subroutine safecoll_version_string(version)
    character(len=*), intent(out) :: version
    call from_c(c_version_string(), version)
  end subroutine safecoll_version_string

  !> The message of the last error of libsafecoll in this thread, as
  !> safecoll_last_error(): blank when none.
  subroutine safecoll_last_error(message)
    character(len=*), intent(out) :: message
    call from_c(c_last_error(), message)
  end subroutine safecoll_last_error

  !> Detector D (safecoll_displs_check()); first_bad is the rank, counted
  !> from 0 as in the C call and the messages, of the first corrupted
  !> entry, or -1.
  subroutine safecoll_displs_check(displs, n, first_bad, ierror)
    integer, intent(in) :: displs(*), n
    integer, intent(out) :: first_bad
    integer, optional, intent(out) :: ierror
    call set(ierror, c_displs_check(displs, n, first_bad))
  end subroutine safecoll_displs_check

  subroutine displs_check_blocks_i(displs, counts, n, first_bad, ierror)
    integer, intent(in) :: displs(*), counts(*), n
    integer, intent(out) :: first_bad
    integer, optional, intent(out) :: ierror
    call set(ierror, c_displs_check_blocks(displs, counts, n, first_bad))
  end subroutine displs_check_blocks_i

  subroutine displs_check_blocks_c(displs, counts, n, first_bad, ierror)
    integer, intent(in) :: displs(*), n
    integer(MPI_COUNT_KIND), intent(in) :: counts(*)
    integer, intent(out) :: first_bad
    integer, optional, intent(out) :: ierror
    call set(ierror, c_displs_check_blocks_c(displs, counts, n, first_bad))
  end subroutine displs_check_blocks_c

  subroutine displs_recover_i(displs, counts, n, out, ierror)
    integer, intent(in) :: displs(*), counts(*), n
    integer(MPI_ADDRESS_KIND), intent(out) :: out(*)
    integer, optional, intent(out) :: ierror
    call set(ierror, c_displs_recover(displs, counts, n, out))
  end subroutine displs_recover_i

  subroutine displs_recover_c(displs, counts, n, out, ierror)
    integer, intent(in) :: displs(*), n
    integer(MPI_COUNT_KIND), intent(in) :: counts(*)
    integer(MPI_ADDRESS_KIND), intent(out) :: out(*)
    integer, optional, intent(out) :: ierror
    call set(ierror, c_displs_recover_c(displs, counts, n, out))
  end subroutine displs_recover_c

  !> The believable-wrap rule (safecoll_displs_believable()).
  subroutine safecoll_displs_believable(displs, counts, n, first_bad, ierror)
    integer(MPI_ADDRESS_KIND), intent(in) :: displs(*)
    integer(MPI_COUNT_KIND), intent(in) :: counts(*)
    integer, intent(in) :: n
    integer, intent(out) :: first_bad
    integer, optional, intent(out) :: ierror
    call set(ierror, c_displs_believable(displs, counts, n, first_bad))
  end subroutine safecoll_displs_believable

  !> Segments of a 64-bit layout (safecoll_displs_segments()); seg_start
  !> holds n+1 ranks counted from 0, as in the C call.
  subroutine safecoll_displs_segments(displs, counts, n, limit, nseg, seg_start, rebased, ierror)
    integer(MPI_ADDRESS_KIND), intent(in) :: displs(*)
    integer(MPI_COUNT_KIND), intent(in), optional :: counts(*)
    integer, intent(in) :: n
    integer(MPI_ADDRESS_KIND), intent(in) :: limit
    integer, intent(out) :: nseg, seg_start(*)
    integer, intent(out), optional :: rebased(*)
    integer, optional, intent(out) :: ierror
    call set(ierror, c_displs_segments(displs, counts, n, limit, nseg, seg_start, rebased))
  end subroutine safecoll_displs_segments

  !> The gcd of displacements and counts (safecoll_displs_gcd()).
  subroutine safecoll_displs_gcd(displs, counts, n, g, ierror)
    integer(MPI_ADDRESS_KIND), intent(in), optional :: displs(*)
    integer(MPI_COUNT_KIND), intent(in), optional :: counts(*)
    integer, intent(in) :: n
    integer(MPI_COUNT_KIND), intent(out) :: g
    integer, optional, intent(out) :: ierror
    call set(ierror, c_displs_gcd(displs, counts, n, g))
  end subroutine safecoll_displs_gcd

  !> Add the records of a bound file (safecoll_bounds_load()); trailing
  !> blanks of path are not part of the name.
  subroutine safecoll_bounds_load(path, ierror)
    character(len=*), intent(in) :: path
    integer, optional, intent(out) :: ierror
    call set(ierror, c_bounds_load(to_c(trim(path))))
  end subroutine safecoll_bounds_load

  !> Add the records of a text in the file format (lines ended by
  !> new_line('a')); name is what messages call it.
  subroutine safecoll_bounds_load_string(text, name, ierror)
    character(len=*), intent(in) :: text
    character(len=*), intent(in), optional :: name
    integer, optional, intent(out) :: ierror
    if (present(name)) then
      call set(ierror, c_bounds_load_string(to_c(text), to_c(trim(name))))
    else
      call set(ierror, c_bounds_load_string(to_c(text)))
    end if
  end subroutine safecoll_bounds_load_string

  !> Write every record to a file (safecoll_bounds_save()).
  subroutine safecoll_bounds_save(path, ierror)
    character(len=*), intent(in) :: path
    integer, optional, intent(out) :: ierror
    call set(ierror, c_bounds_save(to_c(trim(path))))
  end subroutine safecoll_bounds_save

  !> Remove every record, the shipped ones included.
  subroutine safecoll_bounds_clear(ierror)
    integer, optional, intent(out) :: ierror
    call set(ierror, c_bounds_clear())
  end subroutine safecoll_bounds_clear

  !> The number of records.
  subroutine safecoll_bounds_count(n, ierror)
    integer, intent(out) :: n
    integer, optional, intent(out) :: ierror
    integer(c_size_t) :: cn
    integer(c_int) :: rc
    cn = 0
    rc = c_bounds_count(cn)
    n = int(cn)
    call set(ierror, rc)
  end subroutine safecoll_bounds_count

  !> Remove record index, counted from 0 as in the C call.
  subroutine safecoll_bounds_remove(index, ierror)
    integer, intent(in) :: index
    integer, optional, intent(out) :: ierror
    if (index < 0) then
      ! size_t cannot hold it: the C call's answer to an index out of range.
      call set(ierror, c_bounds_remove(huge(0_c_size_t)))
    else
      call set(ierror, c_bounds_remove(int(index, c_size_t)))
    end if
  end subroutine safecoll_bounds_remove

  !> Where record index (from 0) came from, e.g. "my.bounds:3".
  subroutine safecoll_bounds_origin(index, origin, ierror)
    integer, intent(in) :: index
    character(len=*), intent(out) :: origin
    integer, optional, intent(out) :: ierror
    character(kind=c_char) :: buf(len(origin) + 1)
    integer(c_int) :: rc
    integer :: i
    origin = ''
    if (index < 0) then
      rc = c_bounds_origin(huge(0_c_size_t), buf, size(buf, kind=c_size_t))
    else
      rc = c_bounds_origin(int(index, c_size_t), buf, size(buf, kind=c_size_t))
    end if
    if (rc == MPI_SUCCESS) then
      do i = 1, len(origin)
        if (buf(i) == c_null_char) exit
        origin(i:i) = buf(i)
      end do
    end if
    call set(ierror, rc)
  end subroutine safecoll_bounds_origin

  !> Let performance records route calls (1) or not (0).
  subroutine safecoll_perf_bounds_set(on, ierror)
    integer, intent(in) :: on
    integer, optional, intent(out) :: ierror
    call set(ierror, c_perf_bounds_set(on))
  end subroutine safecoll_perf_bounds_set

  !> Whether performance records route calls: 1 or 0.
  integer function safecoll_perf_bounds_get()
    safecoll_perf_bounds_get = c_perf_bounds_get()
  end function safecoll_perf_bounds_get

  !> Set the int limit (safecoll_int_limit_set()).
  subroutine safecoll_int_limit_set(limit, ierror)
    integer(MPI_COUNT_KIND), intent(in) :: limit
    integer, optional, intent(out) :: ierror
    call set(ierror, c_int_limit_set(limit))
  end subroutine safecoll_int_limit_set

  !> Force strategies as SAFECOLL_STRATEGY does (safecoll_strategy_parse()).
  subroutine safecoll_strategy_parse(spec, ierror)
    character(len=*), intent(in) :: spec
    integer, optional, intent(out) :: ierror
    call set(ierror, c_strategy_parse(to_c(trim(spec))))
  end subroutine safecoll_strategy_parse

  !> Checking mode on (1) or off (0) (safecoll_check_set()).
  subroutine safecoll_check_set(on, ierror)
    integer, intent(in) :: on
    integer, optional, intent(out) :: ierror
    call set(ierror, c_check_set(on))
  end subroutine safecoll_check_set

end module safecoll_f08
