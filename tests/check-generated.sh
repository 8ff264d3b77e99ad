#!/usr/bin/env bash
# The parts written from the collective table (issue 32, section 5): the
# collective mappings of include/safecoll/switch.h (src/core/gen.py) and
# the Fortran binding's shim.c, coll_spec.inc and coll_body.inc
# (src/fortran/gen.py) are what the generators write from src/core/colls.h
# and include/safecoll/coll.h (and the point-to-point mappings from
# include/safecoll/p2p.h); and a collective added there, one row and
# its declarations, reaches them with no other edit (a wrapper added to
# p2p.h, its mapping): in a scratch copy a
# made-up neighbor_allgather is added, the --check calls then fail, and
# after the generators run it is mapped by switch.h (which still
# compiles) and bound in Fortran.
#
#   tests/check-generated.sh
set -uo pipefail

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
here=$(cd "$(dirname "$0")/.." && pwd)
checks=0 failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

check "switch.h's mappings are what src/core/gen.py writes" \
    python3 -B "$here/src/core/gen.py" --check
check "the Fortran binding is what src/fortran/gen.py writes" "$here/tests/check-fortran-gen.sh"

# The scratch tree: the table, the declarations, the generators and their
# outputs.
mkdir -p "$tmp/src/core" "$tmp/src/fortran"
cp -r "$here/include" "$tmp/"
cp "$here/src/core/colls.h" "$here/src/core/colls.py" "$here/src/core/gen.py" "$tmp/src/core/"
cp "$here/src/fortran/gen.py" "$here/src/fortran/shim.c" "$here/src/fortran/coll_spec.inc" \
    "$here/src/fortran/coll_body.inc" "$tmp/src/fortran/"
# The row, after exscan's, and the declarations, before the end of coll.h.
python3 - "$tmp" <<'PY'
import sys
root = sys.argv[1]
p = root + '/src/core/colls.h'
s = open(p).read()
last = '(Exscan, ALLREDUCE, 1, 1, 1, 1, BELOW))'
assert last in s, 'exscan is no longer the last row'
s = s.replace(last, last + ' \\\n  X(NEIGHBOR_ALLGATHER, neighbor_allgather, 1, 0, ALLGATHER, '
              'SC_SET_BASE, (0, 0, 0, 0, 0), (Neighbor_allgather, ALL, 1, 1, P, P, NONE))')
open(p, 'w').write(s)
p = root + '/include/safecoll/coll.h'
s = open(p).read()
decl = ''
for i in ('', 'i'):
    for c, t in (('', 'int'), ('_c', 'MPI_Count')):
        decl += ('SAFECOLL_API int safecoll_%sneighbor_allgather%s(const void *sendbuf, '
                 '%s sendcount, MPI_Datatype sendtype, void *recvbuf, %s recvcount, '
                 'MPI_Datatype recvtype, '
                 'MPI_Comm comm%s);\n' % (i, c, t, t, ', MPI_Request *request' if i else ''))
k = s.rindex('#endif')
open(p, 'w').write(s[:k] + decl + s[k:])
# A point-to-point wrapper added to p2p.h: mapped with no other edit.
p = root + '/include/safecoll/p2p.h'
s = open(p).read()
k = s.index('SAFECOLL_API int safecoll_replay_flush')
open(p, 'w').write(s[:k] + 'SAFECOLL_API int safecoll_irsend(const void *buf, int count, '
                   'MPI_Datatype datatype, int dest, int tag, MPI_Comm comm, '
                   'MPI_Request *request);\n' + s[k:])
PY
check "with a new row, switch.h is found stale" \
    bash -c "! python3 -B '$tmp/src/core/gen.py' --check >/dev/null"
mkdir -p "$tmp/out"
check "with a new row, the Fortran binding is found stale" \
    bash -c "python3 -B '$tmp/src/fortran/gen.py' '$tmp/out' &&
             ! cmp -s '$tmp/out/coll_body.inc' '$here/src/fortran/coll_body.inc'"
check "src/core/gen.py writes the new row" python3 -B "$tmp/src/core/gen.py"
check "src/fortran/gen.py writes the new row" python3 -B "$tmp/src/fortran/gen.py"
sw=$tmp/include/safecoll/switch.h
for m in MPI_Neighbor_allgather MPI_Neighbor_allgather_c MPI_Ineighbor_allgather \
         MPI_Ineighbor_allgather_c; do
    safe=safecoll_${m#MPI_}
    safe=${safe,,}
    check "switch.h maps $m to $safe" grep -qx "#define $m(...) $safe(__VA_ARGS__)" "$sw"
done
check "switch.h maps MPI_Irsend, a wrapper added to p2p.h, to safecoll_irsend, its line named" \
    grep -qx "#define MPI_Irsend(...) (SAFECOLL_TRACE_HERE(), safecoll_irsend(__VA_ARGS__))" "$sw"
check "switch.h maps MPI_Wait to safecoll_wait without a line (it posts nothing)" \
    grep -qx "#define MPI_Wait(...) safecoll_wait(__VA_ARGS__)" "$sw"
check "switch.h maps no MPI name to safecoll_trace_start, _stop, _self or _site" \
    bash -c "! grep -q 'safecoll_trace_[a-z]*(__VA_ARGS__)' '$sw'"
check "switch.h maps no MPI name to safecoll_replay_flush" \
    bash -c "! grep -q 'safecoll_replay_flush(__VA_ARGS__)' '$sw'"
check "the regenerated switch.h passes its own check" python3 -B "$tmp/src/core/gen.py" --check
for f in safecoll_neighbor_allgather_f08 safecoll_neighbor_allgather_c_f08 \
         safecoll_ineighbor_allgather_f08 safecoll_ineighbor_allgather_c_f08; do
    check "coll_body.inc defines $f" grep -q "^subroutine $f(sendbuf, sendcount" \
        "$tmp/src/fortran/coll_body.inc"
done
check "coll_spec.inc makes safecoll_neighbor_allgather and its i-form public" \
    bash -c "sed -n '/^public ::/,/^\$/p' '$tmp/src/fortran/coll_spec.inc' | tr -d '&\n' |
             grep -Eq 'safecoll_neighbor_allgather, +safecoll_ineighbor_allgather'"
check "coll_spec.inc names the generic safecoll_ineighbor_allgather" \
    grep -qx "interface safecoll_ineighbor_allgather" "$tmp/src/fortran/coll_spec.inc"
check "shim.c calls safecoll_neighbor_allgather_c" \
    grep -q "return safecoll_neighbor_allgather_c(b_sendbuf, sendcount" "$tmp/src/fortran/shim.c"
# The regenerated header still compiles: every mapping names a declared call.
cc=${MPICC:-}
if [ -z "$cc" ]; then
    # shellcheck source=tests/mpi-names.sh
    . "$here/tests/mpi-names.sh"
    cc=$MPICC
fi
if command -v "${cc%% *}" >/dev/null 2>&1; then
    cat >"$tmp/use.c" <<'C'
#include <mpi.h>
#include <safecoll/switch.h>
int use(void *s, void *r, MPI_Request *q)
{
    return MPI_Neighbor_allgather(s, 1, MPI_INT, r, 1, MPI_INT, MPI_COMM_WORLD) +
           MPI_Ineighbor_allgather_c(s, 1, MPI_INT, r, 1, MPI_INT, MPI_COMM_WORLD, q) +
           MPI_Irsend(s, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, q);
}
C
    # shellcheck disable=SC2086 # MPICC may carry flags
    check "a call of the new collective through switch.h compiles" \
        $cc -std=c11 -Wall -Wextra -Werror -fsyntax-only -I"$tmp/include" "$tmp/use.c"
else
    lib_skip generated-compile "no MPI C compiler $cc"
fi

echo "  generated: $checks checks, $failed failed"
[ "$failed" -eq 0 ]
