#!/usr/bin/env bash
# The generated parts of the Fortran binding (src/fortran/shim.c,
# coll_spec.inc, coll_body.inc) are what src/fortran/gen.py writes, so that
# an edit of one without the other is caught.
#
#   tests/check-fortran-gen.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 "$here/src/fortran/gen.py" "$tmp"
status=0
for f in shim.c coll_spec.inc coll_body.inc; do
    if ! cmp -s "$tmp/$f" "$here/src/fortran/$f"; then
        echo "check-fortran-gen: src/fortran/$f differs from what gen.py writes (run src/fortran/gen.py):"
        diff -u "$here/src/fortran/$f" "$tmp/$f" | head -n 20 | sed 's/^/    /'
        status=1
    fi
done
[ $status -eq 0 ] && echo "check-fortran-gen: shim.c and the .inc files are gen.py's"
exit $status
