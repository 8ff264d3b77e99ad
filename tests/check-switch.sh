#!/usr/bin/env bash
# The switch header (include/safecoll/switch.h): an unmodified two-file MPI
# program (tests/switch/) built as it is and again with the header forced
# in (-include mpi.h -include safecoll/switch.h) gives the same output,
# and the switched binary calls the safe collectives, not MPI's, except
# the one taken as a function pointer.
#
#   tests/check-switch.sh LIBDIR        (LIBDIR: where libsafecoll.so is)
set -uo pipefail

. "$(dirname "$0")/lib.sh"
libdir=$(cd "${1:?usage: check-switch.sh LIBDIR}" && pwd)
src=$(cd "$(dirname "$0")/switch" && pwd)
inc=$(cd "$(dirname "$0")/../include" && pwd)
# shellcheck source=tests/mpi-names.sh
. "$(dirname "${BASH_SOURCE[0]}")/mpi-names.sh"
cc=$MPICC
lib_mpiexec
lib_scratch switch

check "the plain build" $cc -std=c11 -Wall -Wextra -Werror -o native "$src/main.c" "$src/part.c"
check "the switched build" $cc -std=c11 -Wall -Wextra -Werror -I"$inc" -include mpi.h \
    -include safecoll/switch.h -o switched "$src/main.c" "$src/part.c" \
    -L"$libdir" -lsafecoll -Wl,-rpath,"$libdir"
for P in 1 3 4; do
    # shellcheck disable=SC2086 # MPIEXEC carries its flags
    $MPIEXEC -n $P ./native >native.$P 2>&1
    # shellcheck disable=SC2086
    $MPIEXEC -n $P ./switched >switched.$P 2>&1
    check "P=$P: the same output (native: $(cat native.$P); switched: $(cat switched.$P))" \
        cmp -s native.$P switched.$P
    check "P=$P: a checksum printed" grep -q "^switch-app: P=$P checksum" native.$P
done
syms=$(nm -u switched | awk '{print $NF}')
for f in safecoll_gatherv safecoll_alltoallv safecoll_allreduce safecoll_ibcast safecoll_reduce \
         safecoll_barrier MPI_Allreduce safecoll_wait; do
    check "the switched binary calls $f" grep -qx "$f" <<<"$syms"
done
for f in MPI_Gatherv MPI_Alltoallv MPI_Ibcast MPI_Reduce MPI_Barrier MPI_Wait; do
    check "the switched binary does not call $f" bash -c "! grep -qx $f <<<\"\$1\"" _ "$syms"
done

echo "  switch: $checks checks, $failed failed"
[ "$failed" -eq 0 ]
