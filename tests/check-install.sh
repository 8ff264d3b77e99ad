#!/usr/bin/env bash
# Install into a scratch DESTDIR, build a program out of the tree with
# nothing but `pkg-config safecoll`, run it, uninstall, and check that
# nothing installed stays behind.
#
#   tests/check-install.sh          (run from the top of the tree; `make check`
#                                    does it)
# Environment: MAKE, MPICC, MPIEXEC, MPIEXEC_FLAGS, PKG_CONFIG,
# SAFECOLL_TEST_TIMEOUT; KEEP=1 keeps the scratch directory.
set -euo pipefail

MAKE=${MAKE:-make}
MPICC=${MPICC:-mpicc.mpich}
MPIEXEC=${MPIEXEC:-mpiexec.mpich}
PKG_CONFIG=${PKG_CONFIG:-pkg-config}
timeout_s=${SAFECOLL_TEST_TIMEOUT:-300}
top=$(pwd)
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
dirs=("DESTDIR=$root" "PREFIX=$prefix" "prefix=$prefix" "exec_prefix=$prefix"
      "bindir=$prefix/bin" "libdir=$prefix/lib" "includedir=$prefix/include"
      "pkgconfigdir=$prefix/lib/pkgconfig")

step "make install DESTDIR=$root PREFIX=$prefix"
$MAKE --no-print-directory install "${dirs[@]}" >"$scratch/install.log" 2>&1 ||
    { cat "$scratch/install.log"; fail "make install failed"; }

version=$(sed -n 's/^#define[[:space:]]*SAFECOLL_VERSION_\(MAJOR\|MINOR\|PATCH\)[[:space:]]*\([0-9]*\).*/\2/p' \
          include/safecoll.h | paste -sd.)
major=${version%%.*}
lib=$root$prefix/lib
inc=$root$prefix/include
expect=("$inc/safecoll.h" "$lib/libsafecoll.a" "$lib/libsafecoll.so.$version"
        "$lib/libsafecoll.so.$major" "$lib/libsafecoll.so" "$lib/pkgconfig/safecoll.pc")
for h in include/safecoll/*.h; do expect+=("$inc/safecoll/$(basename "$h")"); done
for f in "${expect[@]}"; do
    [ -e "$f" ] || fail "not installed: ${f#"$root"}"
done
[ "$(readlink "$lib/libsafecoll.so.$major")" = "libsafecoll.so.$version" ] ||
    fail "libsafecoll.so.$major does not point to libsafecoll.so.$version"
[ "$(readlink "$lib/libsafecoll.so")" = "libsafecoll.so.$major" ] ||
    fail "libsafecoll.so does not point to libsafecoll.so.$major"
step "installed ${#expect[@]} files (version $version)"

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
cd "$top"

step "make uninstall"
$MAKE --no-print-directory uninstall "${dirs[@]}" >"$scratch/uninstall.log" 2>&1 ||
    { cat "$scratch/uninstall.log"; fail "make uninstall failed"; }
left=$(find "$root" ! -type d)
[ -z "$left" ] || fail "left behind after uninstall:"$'\n'"$left"
[ ! -e "$inc/safecoll" ] || fail "${inc#"$root"}/safecoll still exists after uninstall"
step "nothing left but empty standard directories:" \
     "$(cd "$root" && find . -mindepth 1 -type d | sed 's|^\.||' | sort | paste -sd' ')"
