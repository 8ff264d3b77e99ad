#!/usr/bin/env bash
# libsafecoll.so loaded with dlopen() (a language binding, a plugin): the
# library's thread-locals on hot paths are initial-exec TLS, so its whole
# TLS segment must fit the static TLS reserve glibc keeps for dlopen()
# (src/core/thread.c). Checks the segment's size (at most 512 bytes, the
# reserve glibc promises such libraries) and runs tests/dlopen/main.c,
# built without -lsafecoll, under mpiexec.
#
#   tests/check-dlopen.sh LIBDIR        (LIBDIR: where libsafecoll.so is)
set -uo pipefail

. "$(dirname "$0")/lib.sh"
libdir=$(cd "${1:?usage: check-dlopen.sh LIBDIR}" && pwd)
src=$(cd "$(dirname "$0")/dlopen" && pwd)
# shellcheck source=tests/mpi-names.sh
. "$(dirname "${BASH_SOURCE[0]}")/mpi-names.sh"
cc=$MPICC
so=$libdir/libsafecoll.so
lib_mpiexec
lib_scratch dlopen

check "$so exists" test -f "$so"
# The TLS program header's memory size (hex), 0 when there is none.
tls=$(readelf -lW "$so" | awk '$1 == "TLS" { print $6 }')
tls=$((${tls:-0}))
check "the TLS segment is $tls bytes, at most 512" test "$tls" -le 512
check "the loader builds" $cc -std=c11 -Wall -Wextra -Werror -o loader "$src/main.c" -ldl -lpthread
for P in 1 2; do
    # shellcheck disable=SC2086 # MPIEXEC carries its flags
    $MPIEXEC -n $P ./loader "$so" >out.$P 2>&1
    check "P=$P: loaded and called ($(tr '\n' ' ' <out.$P))" grep -qx "dlopen: ok" out.$P
done

echo "  dlopen: $checks checks, $failed failed (TLS segment $tls bytes)"
[ "$failed" -eq 0 ]
