#!/usr/bin/env bash
# The CMake package (issue 20): install into a scratch DESTDIR, configure
# and build the project of tests/cmake/ out of the tree with nothing but
# find_package(safecoll CONFIG), run its programs (the shared and the static
# target) under mpiexec, and check the version rules, the MPI the package
# points FindMPI to, an install whose directories lie outside the prefix,
# and that uninstall removes the package.  Where the Fortran binding was
# built (SAFECOLL_FORTRAN=1), the Fortran project of tests/cmake/f08/ too,
# through safecoll::safecoll_f08, and an unknown component must fail.  The
# sibling of check-install.sh, which does the same for pkg-config.
#
#   tests/check-cmake.sh            (run from the top of the tree; `make check`
#                                    and `make check-cmake` do it)
# Environment: MAKE, MPICC, MPIEXEC, MPIEXEC_FLAGS, CMAKE, SAFECOLL_TEST_TIMEOUT,
# MPIFORT and SAFECOLL_FORTRAN (1: the Fortran binding was built);
# KEEP=1 keeps the scratch directory.
set -euo pipefail

MAKE=${MAKE:-make}
# shellcheck source=tests/mpi-names.sh
. "$(dirname "${BASH_SOURCE[0]}")/mpi-names.sh"
CMAKE=${CMAKE:-cmake}
timeout_s=${SAFECOLL_TEST_TIMEOUT:-300}
top=$(pwd)
project=$top/tests/cmake
# lib_skip (lib.sh) counts a part that cannot run here as skipped.
# shellcheck source=tests/lib.sh
. "$top/tests/lib.sh"
# Open MPI needs --oversubscribe and, as root, two variables.
# shellcheck source=tests/mpi-flags.sh
. "$top/tests/mpi-flags.sh"

prefix=/usr/local
scratch=$(mktemp -d "${TMPDIR:-/tmp}/safecoll-cmake.XXXXXX")
root=$scratch/root
cleanup() { [ "${KEEP:-0}" = 1 ] || rm -rf "$scratch"; }
trap cleanup EXIT

step() { echo "  - $*"; }
fail() { echo "check-cmake: $*" >&2; exit 1; }
show() { sed 's/^/    | /' "$1"; }

command -v "$CMAKE" >/dev/null 2>&1 || fail "$CMAKE is not installed"
# The wrapper the library is built with, as the package records it.
wrapper=$(command -v "$MPICC") || fail "$MPICC is not installed"

# Every directory is given explicitly, as in check-install.sh, so that
# settings of the calling make cannot move the files this test looks for.
dirs=("PREFIX=$prefix" "prefix=$prefix" "exec_prefix=$prefix"
      "bindir=$prefix/bin" "libdir=$prefix/lib" "includedir=$prefix/include"
      "pkgconfigdir=$prefix/lib/pkgconfig" "cmakedir=$prefix/lib/cmake"
      "datadir=$prefix/share")

step "make install DESTDIR=$root PREFIX=$prefix"
$MAKE --no-print-directory install DESTDIR="$root" "${dirs[@]}" >"$scratch/install.log" 2>&1 ||
    { cat "$scratch/install.log"; fail "make install failed"; }

version=$(sed -n 's/^#define[[:space:]]*SAFECOLL_VERSION_\(MAJOR\|MINOR\|PATCH\)[[:space:]]*\([0-9]*\).*/\2/p' \
          include/safecoll.h | paste -sd.)
major=${version%%.*} minor=${version#*.}
minor=${minor%%.*}
pkg=$root$prefix/lib/cmake/safecoll
for f in "$pkg/safecollConfig.cmake" "$pkg/safecollConfigVersion.cmake"; do
    [ -f "$f" ] || fail "not installed: ${f#"$root"}"
done
# Relocatable: the prefix comes from the file's own place, so neither the
# DESTDIR nor the prefix is written in it.
grep -q "$root" "$pkg/safecollConfig.cmake" && fail "safecollConfig.cmake contains the DESTDIR"
# shellcheck disable=SC2016 # CMake's ${...}, not the shell's
for line in 'get_filename_component(_safecoll_prefix "${CMAKE_CURRENT_LIST_DIR}/../../.." ABSOLUTE)' \
            'set(_safecoll_libdir "${_safecoll_prefix}/lib")' \
            'set(_safecoll_includedir "${_safecoll_prefix}/include")'; do
    grep -qxF "$line" "$pkg/safecollConfig.cmake" ||
        fail "safecollConfig.cmake does not find its directories from its own place: no '$line'"
done
step "installed ${pkg#"$root"}/safecollConfig.cmake and safecollConfigVersion.cmake"

# configure NAME ARGS...: a fresh build directory $scratch/NAME of the
# project, configured against the DESTDIR tree; the output in
# $scratch/NAME.log, the status returned.
configure() {
    local name=$1
    shift
    rm -rf "${scratch:?}/$name"
    timeout -k 5 "$timeout_s" "$CMAKE" -S "${source:-$project}" -B "$scratch/$name" "$@" \
        </dev/null >"$scratch/$name.log" 2>&1
}

# ---- the project against the MPI the library was built with
step "cmake -DCMAKE_PREFIX_PATH=${root}$prefix -DMPI_C_COMPILER=$MPICC"
configure build -DCMAKE_PREFIX_PATH="$root$prefix" -DMPI_C_COMPILER="$MPICC" ||
    { show "$scratch/build.log"; fail "configure failed"; }
grep -q "^-- safecoll $version in $pkg\$" "$scratch/build.log" ||
    { show "$scratch/build.log"; fail "find_package did not find safecoll $version in ${pkg#"$root"}"; }
if grep -q 'CMake Warning' "$scratch/build.log"; then
    show "$scratch/build.log"; fail "configure warned"
fi
step "build app-shared and app-static (-Wall -Wextra -Werror)"
timeout -k 5 "$timeout_s" "$CMAKE" --build "$scratch/build" >"$scratch/make.log" 2>&1 ||
    { show "$scratch/make.log"; fail "build failed"; }

app=$scratch/build
needed=$(readelf -d "$app/app-shared" | sed -n 's/.*(NEEDED).*\[\(libsafecoll[^]]*\)\].*/\1/p')
[ "$needed" = "libsafecoll.so.$major" ] || fail "app-shared needs '$needed', not the soname libsafecoll.so.$major"
# CMake gives the program a run path to the imported library: no
# LD_LIBRARY_PATH.
resolved=$(ldd "$app/app-shared" | awk '$1 ~ /^libsafecoll/ { print $3 }')
[ "$resolved" = "$root$prefix/lib/libsafecoll.so.$major" ] ||
    fail "app-shared finds libsafecoll at '$resolved'"
needed=$(readelf -d "$app/app-static" | sed -n 's/.*(NEEDED).*\[\(libsafecoll[^]]*\)\].*/\1/p')
[ -z "$needed" ] || fail "app-static needs $needed"

# run PROGRAM P: under $MPIEXEC -n P, exit 0 and the one line of a right
# result.
run() {
    local p=$2 expect
    expect="safecoll $version: $p ranks, allreduce $((p * (p + 1) / 2)), gatherv $((p * (p + 1) / 2)) ints: ok"
    # shellcheck disable=SC2086 # the flags are meant to split
    timeout -k 5 "$timeout_s" "$MPIEXEC" $MPIEXEC_FLAGS -n "$p" "$1" </dev/null \
        >"$scratch/run.log" 2>&1 || { show "$scratch/run.log"; fail "$1 failed under $MPIEXEC -n $p"; }
    grep -qxF "$expect" "$scratch/run.log" || { show "$scratch/run.log"; fail "$1: not '$expect'"; }
}
step "run both under $MPIEXEC -n 3"
run "$app/app-shared" 3
run "$app/app-static" 3

# ---- versions: same major and not later is compatible; a range (CMake
# >= 3.19) when it holds this version and its lower end has this major.
accept=("$major.$minor" "$major.0")
refuse=("$major.$((minor + 1))" 99 "$((major + 1)).0")
cmake_version=$("$CMAKE" --version | sed -n '1s/^[^0-9]*\([0-9]*\.[0-9]*\).*/\1/p')
if [ "$(printf '%s\n' 3.19 "$cmake_version" | sort -V | head -n 1)" = 3.19 ]; then
    accept+=("$major.0...$major.$((minor + 5))" "$version...<$((major + 1))")
    refuse+=("$major.0...<$version" "$major.$((minor + 1))...$((major + 1)).0")
else
    lib_skip "cmake: version ranges" "$CMAKE $cmake_version is older than 3.19"
fi
step "find_package(safecoll VERSION): ${accept[*]} accepted; ${refuse[*]} refused"
for want in "${accept[@]}"; do
    configure want -DCMAKE_PREFIX_PATH="$root$prefix" -DMPI_C_COMPILER="$MPICC" -DSAFECOLL_WANT="$want" ||
        { show "$scratch/want.log"; fail "find_package(safecoll $want) failed"; }
done
for want in "${refuse[@]}"; do
    if configure want -DCMAKE_PREFIX_PATH="$root$prefix" -DSAFECOLL_WANT="$want"; then
        show "$scratch/want.log"; fail "find_package(safecoll $want) accepted version $version"
    fi
    if ! grep -q "compatible with requested version \(range \)\{0,1\}\"$want\"" "$scratch/want.log" ||
       ! grep -q "version: $version" "$scratch/want.log"; then
        show "$scratch/want.log"; fail "find_package(safecoll $want) failed for another reason"
    fi
done

# ---- the MPI: the wrapper the library was built with unless told
# otherwise (on Debian the plain mpicc may be another MPI's).
step "without MPI_C_COMPILER, FindMPI gets $wrapper"
(unset MPI_HOME; configure hint -DCMAKE_PREFIX_PATH="$root$prefix") ||
    { show "$scratch/hint.log"; fail "configure failed"; }
grep -qxF -- "-- MPI_C_COMPILER $wrapper" "$scratch/hint.log" ||
    { show "$scratch/hint.log"; fail "FindMPI did not get $wrapper"; }
other=
for w in mpicc.mpich mpicc.openmpi; do
    w=$(command -v "$w" || true)
    if [ -n "$w" ] && [ "$(readlink -f "$w")" != "$(readlink -f "$wrapper")" ]; then other=$w; fi
done
if [ -n "$other" ]; then
    step "-DMPI_C_COMPILER=$other (another MPI) warns"
    configure other -DCMAKE_PREFIX_PATH="$root$prefix" -DMPI_C_COMPILER="$other" ||
        { show "$scratch/other.log"; fail "configure failed"; }
    grep -q "libsafecoll was built with the MPI of $wrapper" "$scratch/other.log" ||
        { show "$scratch/other.log"; fail "no warning about the other MPI"; }
else
    lib_skip "cmake: the warning for another MPI" "no second MPI wrapper (mpicc.mpich, mpicc.openmpi)"
fi

# ---- directories outside the prefix are written as they are
step "make install PREFIX=$scratch/p libdir=$scratch/lib64 (no DESTDIR)"
out=("PREFIX=$scratch/p" "prefix=$scratch/p" "exec_prefix=$scratch/p" "bindir=$scratch/p/bin"
     "libdir=$scratch/lib64" "includedir=$scratch/p/include" "pkgconfigdir=$scratch/lib64/pkgconfig"
     "cmakedir=$scratch/lib64/cmake" "datadir=$scratch/p/share")
$MAKE --no-print-directory install "${out[@]}" >"$scratch/install2.log" 2>&1 ||
    { cat "$scratch/install2.log"; fail "make install failed"; }
configure outside -Dsafecoll_DIR="$scratch/lib64/cmake/safecoll" -DMPI_C_COMPILER="$MPICC" ||
    { show "$scratch/outside.log"; fail "configure failed"; }
timeout -k 5 "$timeout_s" "$CMAKE" --build "$scratch/outside" --target app-shared \
    >"$scratch/make2.log" 2>&1 || { show "$scratch/make2.log"; fail "build failed"; }
resolved=$(ldd "$scratch/outside/app-shared" | awk '$1 ~ /^libsafecoll/ { print $3 }')
[ "$resolved" = "$scratch/lib64/libsafecoll.so.$major" ] || fail "app-shared finds libsafecoll at '$resolved'"
run "$scratch/outside/app-shared" 2

# ---- the Fortran binding: safecoll::safecoll_f08, FindMPI pointed to the
# MPI Fortran wrapper the binding was built with (no MPI_Fortran_COMPILER
# given), and a component the package has not refused
if [ "${SAFECOLL_FORTRAN:-}" = 1 ]; then
    fwrapper=$(command -v "$MPIFORT") || fail "$MPIFORT is not installed"
    step "tests/cmake/f08: find_package(safecoll COMPONENTS f08), safecoll::safecoll_f08"
    source=$project/f08 configure f08 -DCMAKE_PREFIX_PATH="$root$prefix" -DMPI_C_COMPILER="$MPICC" ||
        { show "$scratch/f08.log"; fail "configure of the Fortran project failed"; }
    grep -q "^-- safecoll $version in $pkg, f08: TRUE\$" "$scratch/f08.log" ||
        { show "$scratch/f08.log"; fail "find_package did not find safecoll $version with f08"; }
    grep -q "^MPI_Fortran_COMPILER:FILEPATH=$fwrapper\$" "$scratch/f08/CMakeCache.txt" ||
        { grep MPI_Fortran_COMPILER "$scratch/f08/CMakeCache.txt"; fail "FindMPI did not get $fwrapper"; }
    if grep -q 'CMake Warning' "$scratch/f08.log"; then show "$scratch/f08.log"; fail "configure warned"; fi
    timeout -k 5 "$timeout_s" "$CMAKE" --build "$scratch/f08" >"$scratch/make-f08.log" 2>&1 ||
        { show "$scratch/make-f08.log"; fail "build of the Fortran project failed"; }
    needed=$(readelf -d "$scratch/f08/app-f08" | sed -n 's/.*(NEEDED).*\[\(libsafecoll_f08[^]]*\)\].*/\1/p')
    [ "$needed" = "libsafecoll_f08.so.$major" ] || fail "app-f08 needs '$needed', not libsafecoll_f08.so.$major"
    step "run app-f08 under $MPIEXEC -n 3"
    timeout -k 5 "$timeout_s" "$MPIEXEC" $MPIEXEC_FLAGS -n 3 "$scratch/f08/app-f08" </dev/null \
        >"$scratch/run.log" 2>&1 || { show "$scratch/run.log"; fail "app-f08 failed under $MPIEXEC -n 3"; }
    grep -qxF "safecoll $version: 3 ranks, allreduce 6, gatherv 6 ints: ok" "$scratch/run.log" ||
        { show "$scratch/run.log"; fail "app-f08: not the expected line"; }
    step "find_package(safecoll COMPONENTS f77) fails and says why"
    if source=$project/f08 configure f77 -DCMAKE_PREFIX_PATH="$root$prefix" -DMPI_C_COMPILER="$MPICC" \
            -DSAFECOLL_COMPONENT=f77; then
        show "$scratch/f77.log"; fail "find_package(safecoll COMPONENTS f77) succeeded"
    fi
    grep -q "has no component 'f77'" "$scratch/f77.log" ||
        { show "$scratch/f77.log"; fail "find_package(safecoll COMPONENTS f77) failed for another reason"; }
else
    lib_skip "cmake: safecoll::safecoll_f08" "the Fortran binding was not built (no MPI Fortran wrapper $MPIFORT)"
fi

# ---- uninstall
step "make uninstall"
$MAKE --no-print-directory uninstall DESTDIR="$root" "${dirs[@]}" >"$scratch/uninstall.log" 2>&1 ||
    { cat "$scratch/uninstall.log"; fail "make uninstall failed"; }
[ ! -e "$pkg" ] || fail "${pkg#"$root"} still exists after uninstall"
$MAKE --no-print-directory uninstall "${out[@]}" >"$scratch/uninstall2.log" 2>&1 ||
    { cat "$scratch/uninstall2.log"; fail "make uninstall failed"; }
[ ! -e "$scratch/lib64/cmake/safecoll" ] || fail "$scratch/lib64/cmake/safecoll still exists after uninstall"
