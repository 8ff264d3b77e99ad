#!/usr/bin/env bash
# Install into a scratch DESTDIR, build a program out of the tree with
# nothing but `pkg-config safecoll`, run it, uninstall, and check that
# nothing installed stays behind.  Then check that the known bounds are in
# the library itself (issue 14): a program linked from the build tree, and
# one built against an installed tree moved elsewhere (without its
# share/safecoll/known-bounds), both find the shipped records, and say so
# in verbose mode.  The CMake package is installed and removed here too;
# check-cmake.sh builds with it; so are the man pages (check-man.sh renders
# them), the documents and the examples in share/doc/safecoll.
#
#   tests/check-install.sh          (run from the top of the tree; `make check`
#                                    does it)
# Environment: MAKE, MPICC, MPIEXEC, MPIEXEC_FLAGS, PKG_CONFIG, MPIFORT and
# SAFECOLL_FORTRAN=1 (the Fortran binding was built: check its install and
# safecoll_f08.pc), SAFECOLL_MAN3=1 (the per-function man pages were made),
# SAFECOLL_TEST_TIMEOUT, SAFECOLL_BUILD_LIB (the build tree's lib/, default
# ./lib; `make check` gives that of its BUILDDIR); KEEP=1 keeps the scratch
# directory.
set -euo pipefail

MAKE=${MAKE:-make}
# shellcheck source=tests/mpi-names.sh
. "$(dirname "${BASH_SOURCE[0]}")/mpi-names.sh"
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
timeout_s=${SAFECOLL_TEST_TIMEOUT:-300}
top=$(pwd)
build_lib=${SAFECOLL_BUILD_LIB:-$top/lib}
# Open MPI needs --oversubscribe and, as root, two variables.
# shellcheck source=tests/mpi-flags.sh
. "$top/tests/mpi-flags.sh"

prefix=/usr/local
scratch=$(mktemp -d "${TMPDIR:-/tmp}/safecoll-install.XXXXXX")
root=$scratch/root
cleanup() { [ "${KEEP:-0}" = 1 ] || rm -rf "$scratch"; }
trap cleanup EXIT

step() { echo "  - $*"; }
fail() { echo "check-install: $*" >&2; exit 1; }

# Every directory is given explicitly, so that settings of the calling make
# (e.g. `make check libdir=...`) cannot move the files this test looks for.
dirs=("PREFIX=$prefix" "prefix=$prefix" "exec_prefix=$prefix"
      "bindir=$prefix/bin" "libdir=$prefix/lib" "includedir=$prefix/include"
      "pkgconfigdir=$prefix/lib/pkgconfig" "cmakedir=$prefix/lib/cmake"
      "datadir=$prefix/share" "mandir=$prefix/share/man" "docdir=$prefix/share/doc/safecoll")

step "make install DESTDIR=$root PREFIX=$prefix"
$MAKE --no-print-directory install DESTDIR="$root" "${dirs[@]}" >"$scratch/install.log" 2>&1 ||
    { cat "$scratch/install.log"; fail "make install failed"; }

version=$(sed -n 's/^#define[[:space:]]*SAFECOLL_VERSION_\(MAJOR\|MINOR\|PATCH\)[[:space:]]*\([0-9]*\).*/\2/p' \
          include/safecoll.h | paste -sd.)
major=${version%%.*}
lib=$root$prefix/lib
inc=$root$prefix/include
expect=("$inc/safecoll.h" "$lib/libsafecoll.a" "$lib/libsafecoll.so.$version"
        "$lib/libsafecoll.so.$major" "$lib/libsafecoll.so" "$lib/pkgconfig/safecoll.pc"
        "$lib/cmake/safecoll/safecollConfig.cmake" "$lib/cmake/safecoll/safecollConfigVersion.cmake"
        "$root$prefix/bin/safecoll" "$root$prefix/share/safecoll/known-bounds"
        "$root$prefix/share/man/man1/safecoll.1" "$root$prefix/share/man/man3/libsafecoll.3")
for h in include/safecoll/*.h; do expect+=("$inc/safecoll/$(basename "$h")"); done
docdir=$root$prefix/share/doc/safecoll
for d in README.md CHANGELOG LICENSE doc/*.md; do
    [ "$d" = doc/mainpage.md ] || expect+=("$docdir/$(basename "$d")")
done
for e in examples/*.c; do expect+=("$docdir/examples/$(basename "$e")"); done
for f in "${expect[@]}"; do
    [ -e "$f" ] || fail "not installed: ${f#"$root"}"
done
[ "$(readlink "$lib/libsafecoll.so.$major")" = "libsafecoll.so.$version" ] ||
    fail "libsafecoll.so.$major does not point to libsafecoll.so.$version"
[ "$(readlink "$lib/libsafecoll.so")" = "libsafecoll.so.$major" ] ||
    fail "libsafecoll.so does not point to libsafecoll.so.$major"
step "installed ${#expect[@]} files (version $version)"
# The pages name where the guide went, and the installed README's links
# lead to the documents beside it.
grep -qF "$prefix/share/doc/safecoll/guide.md" "$root$prefix/share/man/man3/libsafecoll.3" ||
    fail "libsafecoll.3 does not name $prefix/share/doc/safecoll/guide.md"
grep -q '\\-\\-help' "$root$prefix/share/man/man1/safecoll.1" ||
    fail "safecoll.1 does not hold the --help texts"
# The tool's help names the installed bounds-format.md, which is there.
"$root$prefix/bin/safecoll" bounds --help | grep -qF "$prefix/share/doc/safecoll/bounds-format.md" ||
    fail "safecoll bounds --help does not name $prefix/share/doc/safecoll/bounds-format.md"
[ -s "$docdir/bounds-format.md" ] || fail "bounds-format.md, named by the tool's help, is not installed"
grep -q '](doc/' "$docdir/README.md" && fail "the installed README.md links into doc/"
grep -q '](guide.md)' "$docdir/README.md" || fail "the installed README.md does not link guide.md"
if command -v man >/dev/null 2>&1; then
    for p in "1 safecoll" "3 libsafecoll"; do
        # shellcheck disable=SC2086 # section and name
        MANPATH=$root$prefix/share/man man -w $p >/dev/null 2>&1 ||
            fail "man -w $p does not find the page under MANPATH=$prefix/share/man"
    done
    step "man finds safecoll(1) and libsafecoll(3) under ${root#"$scratch"}$prefix/share/man"
fi
# One page per exported function, where they were made (doxygen, python3).
if [ "${SAFECOLL_MAN3:-}" = 1 ]; then
    n=0
    for f in $(nm -D --defined-only "$lib/libsafecoll.so.$version" |
               awk '$2 == "T" && $3 ~ /^safecoll_/ { print $3 }'); do
        [ -s "$root$prefix/share/man/man3/$f.3" ] || fail "no man page installed for $f"
        n=$((n + 1))
    done
    [ "$n" -ge 100 ] || fail "only $n exported functions found"
    if command -v man >/dev/null 2>&1; then
        MANPATH=$root$prefix/share/man man -w safecoll_gatherv >/dev/null 2>&1 ||
            fail "man -w safecoll_gatherv does not find its page under MANPATH=$prefix/share/man"
        MANPATH=$root$prefix/share/man man safecoll_gatherv 2>/dev/null | grep -q 'MPI_Gatherv' ||
            fail "man safecoll_gatherv does not show the page of safecoll_gatherv"
    fi
    step "installed a man page per exported function ($n), man safecoll_gatherv finds its page"
else
    echo "  SKIP: man3: the per-function pages were not made (doxygen or python3 missing)"
fi

# The .pc holds the real prefix (/usr/local); PKG_CONFIG_SYSROOT_DIR makes
# pkg-config put the DESTDIR in front of its -I and -L paths, so nothing
# of the DESTDIR leaks into the installed file.
grep -q "$root" "$lib/pkgconfig/safecoll.pc" && fail "safecoll.pc contains the DESTDIR"
export PKG_CONFIG_PATH=$lib/pkgconfig PKG_CONFIG_SYSROOT_DIR=$root
pc_version=$($PKG_CONFIG --modversion safecoll)
[ "$pc_version" = "$version" ] || fail "pkg-config says version $pc_version, header $version"
cflags=$($PKG_CONFIG --cflags safecoll)
libs=$($PKG_CONFIG --libs safecoll)
static_libs=$($PKG_CONFIG --static --libs safecoll)
step "pkg-config --cflags --libs safecoll: $cflags $libs"
case " $cflags " in *" -I$inc "*) ;; *) fail "--cflags does not point into the DESTDIR: $cflags" ;; esac
case " $libs " in *" -L$lib "*) ;; *) fail "--libs does not point into the DESTDIR: $libs" ;; esac

# The program: the example of custom displacements, else the first example,
# else a few lines of our own.  It is copied out of the tree so that no
# relative include can reach the sources.
app=$scratch/app
mkdir -p "$app"
src=examples/custom_displs.c
if [ ! -f "$src" ]; then
    src=
    for f in examples/*.c; do [ -f "$f" ] && { src=$f; break; }; done
fi
if [ -n "$src" ]; then
    cp "$src" "$app/main.c"
else
    src="(built-in program)"
    cat > "$app/main.c" <<'EOC'
#include <stdio.h>
#include <safecoll.h>
int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int ok = safecoll_version() == SAFECOLL_VERSION_NUMBER;
    printf("libsafecoll %s\n", safecoll_version_string());
    MPI_Finalize();
    return ok ? 0 : 1;
}
EOC
fi
cd "$app"
step "build $src out of tree (shared and static)"
# shellcheck disable=SC2086 # the flags are meant to split
$MPICC -std=c11 -Wall -Wextra -Werror $cflags -o app-shared main.c $libs -lm ||
    fail "out-of-tree build against the shared library failed"
# Static: the archive, plus what Libs.private says it needs.
static_libs=${static_libs//-lsafecoll/$lib/libsafecoll.a}
# shellcheck disable=SC2086
$MPICC -std=c11 -Wall -Wextra -Werror $cflags -o app-static main.c $static_libs -lm ||
    fail "out-of-tree build against the static library failed (Libs.private?)"

needed=$(readelf -d app-shared | sed -n 's/.*(NEEDED).*\[\(libsafecoll[^]]*\)\].*/\1/p')
[ "$needed" = "libsafecoll.so.$major" ] || fail "app needs '$needed', not the soname libsafecoll.so.$major"
resolved=$(LD_LIBRARY_PATH=$lib ldd ./app-shared | awk '$1 ~ /^libsafecoll/ { print $3 }')
[ "$resolved" = "$lib/libsafecoll.so.$major" ] || fail "libsafecoll resolves to '$resolved'"

run() {
    # shellcheck disable=SC2086
    SAFECOLL_DEMO_SMALL=1 timeout -k 5 "$timeout_s" \
        "$MPIEXEC" $MPIEXEC_FLAGS -n 2 "$@" </dev/null >"$scratch/run.log" 2>&1 ||
        { sed 's/^/    | /' "$scratch/run.log"; fail "$* failed under $MPIEXEC -n 2"; }
}
step "run both under $MPIEXEC -n 2 (LD_LIBRARY_PATH=${lib#"$root"} in DESTDIR)"
LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} run ./app-shared
run ./app-static
# The Fortran binding, where `make` built it (SAFECOLL_FORTRAN=1: an MPI
# Fortran wrapper, MPIFORT, was found): the module and both libraries are
# installed, and the Fortran test builds against them alone and passes.
if [ "${SAFECOLL_FORTRAN:-}" = 1 ]; then
    for f in "$inc/safecoll_f08.mod" "$lib/libsafecoll_f08.a" "$lib/libsafecoll_f08.so.$version" \
             "$lib/libsafecoll_f08.so.$major" "$lib/libsafecoll_f08.so" \
             "$lib/pkgconfig/safecoll_f08.pc"; do
        [ -e "$f" ] || fail "not installed: ${f#"$root"}"
    done
    grep -q "$root" "$lib/pkgconfig/safecoll_f08.pc" && fail "safecoll_f08.pc contains the DESTDIR"
    f_version=$($PKG_CONFIG --modversion safecoll_f08) || fail "pkg-config does not find safecoll_f08"
    [ "$f_version" = "$version" ] || fail "pkg-config says safecoll_f08 $f_version, header $version"
    f_cflags=$($PKG_CONFIG --cflags safecoll_f08)
    f_libs=$($PKG_CONFIG --libs safecoll_f08)
    case " $f_cflags " in *" -I$inc "*) ;; *) fail "safecoll_f08 --cflags has not the module's directory: $f_cflags" ;; esac
    case " $f_libs " in *" -lsafecoll_f08 "*"-lsafecoll "*) ;;
        *) fail "safecoll_f08 --libs lacks -lsafecoll_f08 -lsafecoll (in this order): $f_libs" ;; esac
    # The test of the binding and a user's small program, built with nothing
    # but what pkg-config says.
    cp "$top/tests/fortran/test_f08.f90" "$app/main_f08.f90"
    cp "$top/tests/cmake/f08/app.f90" "$app/small_f08.f90"
    step "build tests/fortran/test_f08.f90 and tests/cmake/f08/app.f90 out of tree: $MPIFORT \$(pkg-config --cflags --libs safecoll_f08)"
    # shellcheck disable=SC2086 # the flags are meant to split
    "$MPIFORT" $f_cflags -o app-f08 main_f08.f90 $f_libs || fail "out-of-tree Fortran build failed"
    # shellcheck disable=SC2086
    "$MPIFORT" $f_cflags -o small-f08 small_f08.f90 $f_libs || fail "out-of-tree Fortran build failed"
    step "run them under $MPIEXEC -n 2"
    LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} run ./app-f08
    LD_LIBRARY_PATH=$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} run ./small-f08
    grep -qxF "safecoll $version: 2 ranks, allreduce 3, gatherv 3 ints: ok" "$scratch/run.log" ||
        { sed 's/^/    | /' "$scratch/run.log"; fail "small-f08: not the expected line"; }
else
    echo "  SKIP: fortran: the binding was not built (no MPI Fortran wrapper $MPIFORT)"
    [ ! -e "$lib/pkgconfig/safecoll_f08.pc" ] || fail "safecoll_f08.pc installed without the binding"
fi
cd "$top"

step "make uninstall"
$MAKE --no-print-directory uninstall DESTDIR="$root" "${dirs[@]}" >"$scratch/uninstall.log" 2>&1 ||
    { cat "$scratch/uninstall.log"; fail "make uninstall failed"; }
left=$(find "$root" ! -type d)
[ -z "$left" ] || fail "left behind after uninstall:"$'\n'"$left"
[ ! -e "$inc/safecoll" ] || fail "${inc#"$root"}/safecoll still exists after uninstall"
[ ! -e "$lib/cmake/safecoll" ] || fail "${lib#"$root"}/cmake/safecoll still exists after uninstall"
[ ! -e "$docdir" ] || fail "${docdir#"$root"} still exists after uninstall"
step "nothing left but empty standard directories:" \
     "$(cd "$root" && find . -mindepth 1 -type d | sed 's|^\.||' | sort | paste -sd' ')"

# ---- the known bounds without an install step (issue 14)
# A program that lists what the registry holds: the number of records and
# the shipped MPICH 4.0.2 scatter record, through the public API only (the
# library string is given, so the answer is the same under any MPI).
n_known=$(grep -c '^collective=' data/known-bounds)
cat > "$app/bounds.c" <<'EOC'
#include <stdio.h>
#include <safecoll.h>
int main(int argc, char **argv)
{
    size_t n = 0, idx[4], k = 0;
    safecoll_bound b;
    int ok;

    MPI_Init(&argc, &argv);
    ok = safecoll_bounds_count(&n) == MPI_SUCCESS &&
         safecoll_bounds_match(SAFECOLL_COLL_SCATTER, 1, 4, "MPICH Version:\t4.0.2\n", idx, 4,
                               &k) == MPI_SUCCESS &&
         k == 1 && safecoll_bounds_get(idx[0], &b) == MPI_SUCCESS;
    if (ok)
        printf("records %zu; MPICH 4.0.2 scatter: bound %lld, source %s\n", n, (long long)b.bound,
               safecoll_bound_source_name(b.source));
    else
        printf("records %zu; MPICH 4.0.2 scatter: %zu records (%s)\n", n, k,
               safecoll_last_error());
    MPI_Finalize();
    return ok ? 0 : 1;
}
EOC

# check_bounds LABEL PROGRAM: runs it under -n 2 with SAFECOLL_VERBOSE=1 and
# no SAFECOLL_KNOWN_BOUNDS; each rank must find the n_known built-in records,
# and rank 0 say so.
check_bounds() {
    local label=$1 lines
    shift
    # shellcheck disable=SC2086
    env -u SAFECOLL_KNOWN_BOUNDS -u SAFECOLL_BOUNDS SAFECOLL_VERBOSE=1 timeout -k 5 "$timeout_s" \
        "$MPIEXEC" $MPIEXEC_FLAGS -n 2 "$@" </dev/null >"$scratch/bounds.log" 2>&1 ||
        { sed 's/^/    | /' "$scratch/bounds.log"; fail "$label: $* failed under $MPIEXEC -n 2"; }
    lines=$(grep -c "^records $n_known; MPICH 4.0.2 scatter: bound 2080374784, source shipped\$" \
            "$scratch/bounds.log" || true)
    [ "$lines" = 2 ] ||
        { sed 's/^/    | /' "$scratch/bounds.log"; fail "$label: the built-in records are not in the registry"; }
    # One line, from rank 0: the registry starts after MPI_Init here.
    lines=$(grep -c "^libsafecoll: bounds: built-in known-bounds ($n_known records, [0-9]* for this MPI)\$" \
            "$scratch/bounds.log" || true)
    [ "$lines" = 1 ] ||
        { sed 's/^/    | /' "$scratch/bounds.log"; fail "$label: not one verbose line naming the built-in records"; }
    step "$label: $n_known built-in records, verbose: $(grep -m1 '^libsafecoll: bounds:' "$scratch/bounds.log")"
}

# From the build tree: lib/ linked directly, nothing installed.
cd "$app"
$MPICC -std=c11 -Wall -Wextra -Werror -I"$top/include" -o bounds-tree bounds.c \
    -L"$build_lib" -lsafecoll -Wl,-rpath,"$build_lib" || fail "build against $build_lib failed"
check_bounds "build tree (shared)" ./bounds-tree
$MPICC -std=c11 -Wall -Wextra -Werror -I"$top/include" -o bounds-tree-static bounds.c \
    "$build_lib/libsafecoll.a" ${SAFECOLL_LIBS_PRIVATE:--lpthread -lz -lm} || fail "build against $build_lib/libsafecoll.a failed"
check_bounds "build tree (static)" ./bounds-tree-static

# Installed with DESTDIR, then moved: no path the build knew of leads to it
# any more, and the reference copy of the known bounds is removed too.
cd "$top"
root2=$scratch/root2 moved=$scratch/elsewhere/safecoll
step "make install DESTDIR=$root2, then moved to $moved"
$MAKE --no-print-directory install DESTDIR="$root2" "${dirs[@]}" >"$scratch/install2.log" 2>&1 ||
    { cat "$scratch/install2.log"; fail "make install failed"; }
mkdir -p "$(dirname "$moved")"
mv "$root2$prefix" "$moved"
rm -rf "$root2"
rm "$moved/share/safecoll/known-bounds"
unset PKG_CONFIG_SYSROOT_DIR
export PKG_CONFIG_PATH=$moved/lib/pkgconfig
cflags=$($PKG_CONFIG --define-variable=prefix="$moved" --cflags safecoll)
libs=$($PKG_CONFIG --define-variable=prefix="$moved" --libs safecoll)
case " $libs " in *" -L$moved/lib "*) ;; *) fail "--libs does not point into the moved tree: $libs" ;; esac
cd "$app"
# shellcheck disable=SC2086
$MPICC -std=c11 -Wall -Wextra -Werror $cflags -o bounds-moved bounds.c $libs \
    -Wl,-rpath,"$moved/lib" || fail "build against the moved tree failed"
resolved=$(ldd ./bounds-moved | awk '$1 ~ /^libsafecoll/ { print $3 }')
[ "$resolved" = "$moved/lib/libsafecoll.so.$major" ] || fail "libsafecoll resolves to '$resolved'"
check_bounds "moved install" ./bounds-moved
# The installed tool sees them too.
env -u SAFECOLL_KNOWN_BOUNDS -u SAFECOLL_BOUNDS "$moved/bin/safecoll" bounds list \
    >"$scratch/list.log" 2>&1 || { cat "$scratch/list.log"; fail "moved bin/safecoll bounds list failed"; }
lines=$(grep -c '  # built-in known-bounds:[0-9]*$' "$scratch/list.log" || true)
[ "$lines" = "$n_known" ] || { cat "$scratch/list.log"; fail "moved bin/safecoll lists $lines built-in records, not $n_known"; }
step "moved install: bin/safecoll bounds list shows the $n_known built-in records"
cd "$top"
