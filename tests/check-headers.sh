#!/usr/bin/env bash
# The runtime header does not bring in the testing toolkit.
#
#   MPICC=mpicc.mpich tests/check-headers.sh
#
# <safecoll.h> is what an application includes; the toolkit headers
# (safecoll/probe.h, safecoll/guideline.h, safecoll/scale.h: a probe, a
# driver that launches mpiexec jobs, the guideline timing, the scaling
# models) are included explicitly by the
# programs that test the installed MPI.  This script checks, with the C
# compiler of the MPI:
#   1. a program that includes only <safecoll.h> sees none of the names the
#      toolkit headers declare (functions, types, enum values, macros), and
#      a use of a toolkit function there does not compile;
#   2. each toolkit header compiles on its own (it includes <safecoll.h>),
#      and the same use compiles with it: the check of 1. fails for the
#      right reason;
#   3. MPI's ignore constants pass to the point-to-point wrappers without a
#      warning at -O2 (a status array declared as `MPI_Status x[]` made gcc
#      warn, -Wstringop-overflow, on MPI_STATUSES_IGNORE).
set -uo pipefail

# shellcheck source=tests/mpi-names.sh
. "$(dirname "${BASH_SOURCE[0]}")/mpi-names.sh"
here=$(cd "$(dirname "$0")/.." && pwd)
inc=$here/include
toolkit=(safecoll/probe.h safecoll/guideline.h safecoll/scale.h safecoll/trace.h)
cflags=(-std=c11 -Wall -Wextra -Werror -I"$inc")

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
status=0
fail() { echo "check-headers: $*"; status=1; }

# The names the toolkit headers declare: functions, typedef names, enum
# values and macros (not the include guards).
names=$(
    for h in "${toolkit[@]}"; do
        sed -n -e 's/^SAFECOLL_API[^(]*[^a-z0-9_]\(safecoll_[a-z0-9_]*\)(.*/\1/p' \
               -e 's/^} *\(safecoll_[a-z0-9_]*\);.*/\1/p' \
               -e 's/^ *\(SAFECOLL_[A-Z0-9_]*\) *[=,].*/\1/p' \
               -e 's/^#define *\(SAFECOLL_[A-Z0-9_]*\).*/\1/p' "$inc/$h"
    done | grep -vE '^SAFECOLL_(PROBE|GUIDELINE|SCALE|TRACE)_H$' | sort -u)
count=$(printf '%s\n' "$names" | grep -c . || true)
if [ "$count" -lt 10 ]; then
    fail "found only $count names in the toolkit headers (the patterns no longer match them)"
fi

# 1. What <safecoll.h> alone declares and defines.
printf '#include <safecoll.h>\nint main(void) { return 0; }\n' > "$tmp/runtime.c"
if ! "$MPICC" "${cflags[@]}" -E "$tmp/runtime.c" > "$tmp/runtime.i" 2> "$tmp/err" ||
   ! "$MPICC" "${cflags[@]}" -E -dM "$tmp/runtime.c" > "$tmp/runtime.dm" 2>> "$tmp/err"; then
    fail "<safecoll.h> does not preprocess:"; sed 's/^/    /' "$tmp/err"
fi
seen=$(printf '%s\n' "$names" | while read -r n; do
    if grep -qw -- "$n" "$tmp/runtime.i" || grep -qE "^#define $n( |$)" "$tmp/runtime.dm"; then
        echo "$n"
    fi
done)
if [ -n "$seen" ]; then
    fail "<safecoll.h> alone declares toolkit names:"; printf '%s\n' "$seen" | sed 's/^/    /'
fi

use='int main(void) { return safecoll_probe_supported(SAFECOLL_COLL_GATHER) +
                          safecoll_guideline_supported(SAFECOLL_COLL_GATHER); }'
printf '#include <safecoll.h>\n%s\n' "$use" > "$tmp/use_runtime.c"
if "$MPICC" "${cflags[@]}" -fsyntax-only "$tmp/use_runtime.c" > "$tmp/err" 2>&1; then
    fail "a use of safecoll_probe_supported() compiles with only <safecoll.h>"
fi

# 2. Each toolkit header on its own, and both for the use.
for h in "${toolkit[@]}"; do
    printf '#include <%s>\nint main(void) { return 0; }\n' "$h" > "$tmp/alone.c"
    if ! "$MPICC" "${cflags[@]}" -fsyntax-only "$tmp/alone.c" > "$tmp/err" 2>&1; then
        fail "<$h> does not compile on its own:"; sed 's/^/    /' "$tmp/err"
    fi
done
printf '#include <safecoll/probe.h>\n#include <safecoll/guideline.h>\n%s\n' "$use" \
    > "$tmp/use_toolkit.c"
if ! "$MPICC" "${cflags[@]}" -fsyntax-only "$tmp/use_toolkit.c" > "$tmp/err" 2>&1; then
    fail "the same use does not compile with the toolkit headers:"; sed 's/^/    /' "$tmp/err"
fi

# 3. The ignore constants, as MPI's own calls take them.
cat > "$tmp/ignore.c" <<'EOF'
#include <safecoll.h>
int f(int n, MPI_Request *r, int *idx);
int f(int n, MPI_Request *r, int *idx)
{
    int flag, out;
    return safecoll_waitall(n, r, MPI_STATUSES_IGNORE) +
           safecoll_testall(n, r, &flag, MPI_STATUSES_IGNORE) +
           safecoll_waitsome(n, r, &out, idx, MPI_STATUSES_IGNORE) +
           safecoll_testsome(n, r, &out, idx, MPI_STATUSES_IGNORE) +
           safecoll_wait(r, MPI_STATUS_IGNORE) + safecoll_test(r, &flag, MPI_STATUS_IGNORE);
}
EOF
if ! "$MPICC" "${cflags[@]}" -O2 -c "$tmp/ignore.c" -o "$tmp/ignore.o" > "$tmp/err" 2>&1; then
    fail "MPI_STATUSES_IGNORE / MPI_STATUS_IGNORE to the wrappers does not compile cleanly:"
    sed 's/^/    /' "$tmp/err"
fi

[ $status -eq 0 ] &&
    echo "  <safecoll.h> declares none of the $count toolkit names; ${toolkit[*]} compile on their own"
exit $status
