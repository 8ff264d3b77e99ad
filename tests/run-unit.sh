#!/usr/bin/env bash
# Run unit test programs (Check suites, no MPI job), as `make check` does.
#
#   tests/run-unit.sh [--logs DIR] BINARY...
#
# Each program runs with Check's fork mode and a per-test timeout of
# CK_DEFAULT_TIMEOUT (default 60 s), and the whole program under
# `timeout ${SAFECOLL_TEST_TIMEOUT:-300}`.  One line per program: `PASS
# test_x (12 checks)` or `FAIL ...` followed by its output.  The tests of
# a program are counted from Check's "Checks: N, Failures: F, Errors: E"
# line; a program that dies without that line counts as one failure.
# A test that skipped (its precondition is missing here: tests/unit/skip.h)
# printed a line `SKIP: <test>: <reason>`: it counts as skipped, not passed,
# and its reason is shown under the program's line; a program that exits
# 77 counts as one skip.  SAFECOLL_SUMMARY, when set, names a file that
# gets "passed failed skipped label" per program.  Exit status non-zero when
# anything failed, never for a skip.
set -u

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

log_dir=${TMPDIR:-/tmp}/safecoll-logs
while [ $# -gt 0 ]; do
    case $1 in
    --logs) log_dir=$2; shift 2 ;;
    --) shift; break ;;
    -*) echo "run-unit.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
done
mkdir -p "$log_dir" || exit 2
export CK_DEFAULT_TIMEOUT=${CK_DEFAULT_TIMEOUT:-60}
timeout_s=${SAFECOLL_TEST_TIMEOUT:-300}

record() {
    [ -n "${SAFECOLL_SUMMARY:-}" ] && echo "$1 $2 $3 $4" >> "$SAFECOLL_SUMMARY"
    return 0
}

total_p=0 total_f=0 total_s=0
for bin in "$@"; do
    name=$(basename "$bin")
    log=$log_dir/$name.log
    timeout -k 5 "$timeout_s" "$bin" </dev/null >"$log" 2>&1
    rc=$?
    # The reasons of the tests that skipped, once each.
    skips=$(sed -n 's/^SKIP: //p' "$log" | awk '!seen[$0]++')
    nskips=$(printf '%s' "$skips" | grep -c . || true)
    if [ $rc -eq 77 ]; then
        # The whole program skipped.
        echo "SKIP $name"
        printf '%s\n' "${skips:-(exit status 77, no reason printed; log: $log)}" |
            sed 's/^/    skipped: /'
        record 0 0 1 "unit $name"
        total_s=$((total_s + 1))
        continue
    fi
    # "100%: Checks: 12, Failures: 0, Errors: 0", summed over the suites.
    counts=$(sed -n 's/.*Checks: \([0-9]*\), Failures: \([0-9]*\), Errors: \([0-9]*\).*/\1 \2 \3/p' "$log" |
             awk '{ c += $1; f += $2 + $3 } END { if (NR) print c, f }')
    if [ -n "$counts" ]; then
        read -r checks bad <<<"$counts"
        good=$((checks - bad))
    else
        checks=1 good=0 bad=1
        [ $rc -eq 0 ] && good=1 bad=0
    fi
    if [ $rc -ne 0 ] && [ "$bad" -eq 0 ]; then
        bad=1    # it reported success, then crashed or timed out
    fi
    # A test that skipped ended without a failure: Check counted it passed.
    [ "$nskips" -gt "$good" ] && nskips=$good
    good=$((good - nskips))
    if [ "$bad" -eq 0 ]; then
        if [ "$nskips" -gt 0 ]; then
            echo "PASS $name ($good of $checks checks; $nskips skipped)"
            printf '%s\n' "$skips" | sed 's/^/    skipped: /'
        else
            echo "PASS $name ($checks checks)"
        fi
    else
        why="exit $rc"
        [ $rc -eq 124 ] && why="timeout after ${timeout_s}s"
        echo "FAIL $name ($bad of $checks failed, $why, log: $log)"
        sed 's/^/    | /' "$log" | tail -n 60
        # For the summary: why, and Check's failures and errors
        # ("file:line:F:..." / ":E:"), else the log's last lines.
        { echo "FAIL ($bad of $checks failed, $why, log: $log)"
          grep -E ':[0-9]+:[EF]:' "$log" || tail -n 3 "$log"; } | lib_digest "unit $name"
    fi
    record "$good" "$bad" "$nskips" "unit $name"
    total_p=$((total_p + good)) total_f=$((total_f + bad)) total_s=$((total_s + nskips))
done
echo "  (unit: passed $total_p, failed $total_f, skipped $total_s)"
[ $total_f -eq 0 ]
