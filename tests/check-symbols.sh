#!/usr/bin/env bash
# Only safecoll_* symbols may leave the library.
#
#   tests/check-symbols.sh [lib/libsafecoll.so.X.Y.Z [lib/libsafecoll.a]]
#
# Shared library: every defined dynamic symbol (`nm -D --defined-only`) must
# start with safecoll_, and there must be at least one.  Static library:
# every global symbol must start with safecoll_ or the internal prefix sc__,
# so that linking libsafecoll.a into an application cannot clash with the
# application's names.
set -euo pipefail

so=${1:-}
if [ -z "$so" ]; then
    for f in lib/libsafecoll.so.*.*.*; do [ -f "$f" ] && so=$f; done
fi
ar=${2:-$(dirname "${so:-lib/x}")/libsafecoll.a}
if [ -z "$so" ] || [ ! -f "$so" ]; then
    echo "check-symbols: no shared library (run make)" >&2
    exit 1
fi

status=0
# Linker-made markers that every shared object has, not ours to name.
linker='^(_init|_fini|_edata|_end|__bss_start)$'
syms=$(nm -D --defined-only "$so" | awk 'NF >= 3 { print $2, $3 }')
total=$(printf '%s\n' "$syms" | awk '$2 ~ /^safecoll_/' | grep -c . || true)
bad=$(printf '%s\n' "$syms" | awk -v re="$linker" 'NF == 2 && $2 !~ /^safecoll_/ && $2 !~ re')
if [ -n "$bad" ]; then
    echo "check-symbols: $so exports symbols without the safecoll_ prefix:"
    printf '%s\n' "$bad" | sed 's/^/    /'
    status=1
fi
if [ "$total" -eq 0 ]; then
    echo "check-symbols: $so exports no safecoll_ symbol"
    status=1
fi

if [ -f "$ar" ]; then
    bad=$(nm -g --defined-only "$ar" 2>/dev/null |
          awk 'NF >= 3 && $3 !~ /^(safecoll_|sc__)/ { print "    " $2, $3 }')
    if [ -n "$bad" ]; then
        echo "check-symbols: $ar defines global symbols outside safecoll_/sc__:"
        printf '%s\n' "$bad"
        status=1
    fi
fi

[ $status -eq 0 ] && echo "  $total safecoll_ symbols exported by $(basename "$so"), no others"
exit $status
