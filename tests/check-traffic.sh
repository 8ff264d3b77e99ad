#!/usr/bin/env bash
# Every MPI operation of the library's runtime goes through the traffic
# layer (src/traffic/traffic.h): no file of src/ outside it calls MPI's
# point-to-point, collective, completion or communicator-making functions
# directly.
#
#   tests/check-traffic.sh [SRC_DIR]
#
# Exempt: src/traffic/ itself; src/probe/, the testing toolkit, whose
# in-job probe measures the MPI library itself; and the files in EXEMPT
# below (none today).  Comments and string literals are left out
# (gcc -fpreprocessed strips comments without expanding macros).  A
# function name passed to a macro (SC_COLL(MPI_Gatherv, MPI_Igatherv, ...),
# SC_TR_CALL(kind, MPI_Gather, ...)) is not a call: the macro makes it in
# the traffic layer.
set -euo pipefail

src=${1:-src}
# Files allowed to call MPI directly besides traffic/ and probe/: none.
EXEMPT=''

# The i-forms are MPI_I + the lower-case name (MPI_Igatherv).
calls='P?MPI_(Send|Ssend|Rsend|Bsend|Recv|Sendrecv|Sendrecv_replace|Isendrecv|Isendrecv_replace'
calls+='|Mrecv|Imrecv|Probe|Mprobe|Isend|Issend|Irsend|Ibsend|Irecv|Improbe|Iprobe'
calls+='|(I?)([Gg]atherv?|[Ss]catterv?|[Aa]llgatherv?|[Aa]lltoall[vw]?|[Bb]cast|[Rr]educe'
calls+='|[Aa]llreduce|[Rr]educe_scatter|[Rr]educe_scatter_block|[Ss]can|[Ee]xscan|[Bb]arrier'
calls+='|[Nn]eighbor_[a-z]+)'
calls+='|Wait|Waitall|Waitany|Waitsome|Test|Testall|Testany|Testsome|Request_free|Cancel'
calls+='|Start|Startall'
# The communicator calls the library makes (MPI_Comm_dup, ...) go through
# it too: they are collective, and the hooks must see them.
calls+='|Comm_dup|Comm_idup|Comm_split|Comm_split_type|Comm_create|Comm_free|Intercomm_create'
calls+='|Intercomm_merge)(_c)?[[:space:]]*\('

status=0
n=0
for f in $(cd "$src" && find . -name '*.[ch]' | sed 's|^\./||' | sort); do
    case "$f" in traffic/* | probe/*) continue ;; esac
    case " $EXEMPT " in *" $f "*) continue ;; esac
    n=$((n + 1))
    hits=$(gcc -fpreprocessed -dD -E -P -x c "$src/$f" 2>/dev/null |
           sed -E 's/"([^"\\]|\\.)*"/""/g' | grep -E "(^|[^A-Za-z0-9_])$calls" || true)
    if [ -n "$hits" ]; then
        echo "check-traffic: $src/$f calls MPI directly (use src/traffic/traffic.h):"
        printf '%s\n' "$hits" | sed 's/^/    /'
        status=1
    fi
done
if [ "$n" -eq 0 ]; then
    echo "check-traffic: no sources under $src" >&2
    exit 1
fi
[ "$status" -eq 0 ] && echo "check-traffic: $n files, no direct MPI operation outside src/traffic/"
exit $status
