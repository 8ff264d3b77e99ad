#!/usr/bin/env bash
# Run MPI programs under mpiexec, one job at a time, as `make check` does.
#
#   tests/run-mpi.sh [--src DIR] [--default-procs "N..."] [--logs DIR] BINARY...
#
# The process counts of a program come from a line of its source
# DIR/<name>.c (default DIR: tests/mpi):
#
#   /* mpi-procs: 1 2 3 4 8 */      run once per count
#   /* mpi-env: VAR=value ... */    (any number of lines) run the whole list
#                                   again with these variables set; the plain
#                                   run without extra variables always comes
#                                   first.  Values cannot contain spaces.
#   /* mpi-env-procs: 2 4 */        the counts of the mpi-env runs, where
#                                   they need not repeat every mpi-procs
#                                   count (default: the mpi-procs counts)
#   /* mpi-timeout: S */            a run of this program gets at least S
#                                   seconds, whatever SAFECOLL_TEST_TIMEOUT
#                                   says (a test that runs a fixed time)
#   /* mpi-exit: N */               the exit status of a passing run (default
#                                   0), for a program that ends its job on
#                                   purpose (examples/hang_detect.c)
#
# A source without an mpi-procs line runs with --default-procs (default: 4).
# Each run prints one line: `PASS test_x -n 4 (3.1 s)`, `FAIL ...` or
# `SKIP ...`, with the run's wall time, and the list closes with the time of
# all runs (where CI's time goes)
# (exit status 77: the run tested nothing, every test of it skipped).  A
# test that skipped says why in a line `SKIP: <test>: <reason>` of the
# run's output (tests/mpi/common.h, tc_skip); those lines are shown under
# the run's PASS or SKIP line.  The output of a run goes to a log file,
# printed only when the run fails.  The exit status is non-zero when any run
# failed, never for a skip.
#
# Counts: a run that passed counts 1 passed, and each test of it that
# skipped 1 skipped (never passed); a run that exited 77 counts 1 skipped;
# a run that failed counts 1 failed.
#
# Environment:
#   MPIEXEC                mpiexec to use (default: mpiexec.mpich, else mpiexec on PATH)
#   MPIEXEC_FLAGS          extra flags before -n (when unset: none for MPICH;
#                          --oversubscribe for Open MPI, and as root the
#                          allow-run-as-root variables are set: mpi-flags.sh)
#   SAFECOLL_TEST_TIMEOUT  seconds per run (default 300); a run that exceeds
#                          it is killed and fails
#   SAFECOLL_SUMMARY       file to which "passed failed skipped label" is added
set -u

src_dir=tests/mpi
default_procs=4
log_dir=${TMPDIR:-/tmp}/safecoll-logs
while [ $# -gt 0 ]; do
    case $1 in
    --src) src_dir=$2; shift 2 ;;
    --default-procs) default_procs=$2; shift 2 ;;
    --logs) log_dir=$2; shift 2 ;;
    --) shift; break ;;
    -*) echo "run-mpi.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
done

# shellcheck source=tests/mpi-names.sh
. "$(dirname "${BASH_SOURCE[0]}")/mpi-names.sh"
timeout_s=${SAFECOLL_TEST_TIMEOUT:-300}
mkdir -p "$log_dir" || exit 2

# Open MPI needs --oversubscribe and, as root, two variables (see there).
# shellcheck source=tests/mpi-flags.sh
. "$(dirname "$0")/mpi-flags.sh"
# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"

# The value of the comment lines `/* KEY: value */` of a source, one a line.
header_lines() {
    sed -n "s|^[[:space:]]*/\*[[:space:]]*$1:[[:space:]]*\(.*[^[:space:]]\)[[:space:]]*\*/[[:space:]]*\$|\1|p" "$2"
}

passed=0 failed=0 skipped=0
start_all=$(date +%s%N)
# Seconds since $1 (date +%s%N), one decimal.
since() { awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }
for bin in "$@"; do
    name=$(basename "$bin")
    src=$src_dir/$name.c
    procs=$default_procs
    env_procs=
    min_timeout=
    run_timeout=$timeout_s
    envs=()
    want=0
    if [ -f "$src" ]; then
        line=$(header_lines mpi-procs "$src" | head -n 1)
        [ -n "$line" ] && procs=$line
        line=$(header_lines mpi-exit "$src" | head -n 1)
        [ -n "$line" ] && want=$line
        min_timeout=$(header_lines mpi-timeout "$src" | head -n 1)
        while IFS= read -r e; do envs+=("$e"); done < <(header_lines mpi-env "$src")
        line=$(header_lines mpi-env-procs "$src" | head -n 1)
        [ -n "$line" ] && env_procs=$line
    fi
    # Strict: a malformed header is a failure, not a silently skipped run.
    bad=
    case $min_timeout in
    '') ;;
    *[!0-9]*) bad="mpi-timeout: '$min_timeout'" ;;
    *) [ "$min_timeout" -gt "$run_timeout" ] && run_timeout=$min_timeout ;;
    esac
    for n in $procs; do
        case $n in ''|*[!0-9]*|0) bad="mpi-procs: '$procs'" ;; esac
    done
    for n in $env_procs; do
        case $n in ''|*[!0-9]*|0) bad="mpi-env-procs: '$env_procs'" ;; esac
    done
    for e in "${envs[@]+"${envs[@]}"}"; do
        for kv in $e; do
            [[ $kv =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || bad="mpi-env: '$e'"
        done
    done
    case $want in ''|*[!0-9]*) bad="mpi-exit: '$want'" ;; esac
    if [ ! -x "$bin" ]; then bad="no executable $bin"; fi
    if [ -n "$bad" ]; then
        echo "FAIL $name ($bad)"
        failed=$((failed + 1))
        [ -n "${SAFECOLL_SUMMARY:-}" ] && echo "0 1 0 $name ($bad)" >> "$SAFECOLL_SUMMARY"
        continue
    fi

    for e in "" "${envs[@]+"${envs[@]}"}"; do
        tag=
        [ -n "$e" ] && tag=".$(printf '%s' "$e" | tr -c 'A-Za-z0-9_=.\n-' '_' | tr '=' '-')"
        # A long environment (a list of forced strategies) keeps a file
        # name the file system takes: its start and a checksum of it.
        [ ${#tag} -gt 120 ] && tag="${tag:0:100}.$(printf '%s' "$e" | cksum | cut -d' ' -f1)"
        counts=$procs
        [ -n "$e" ] && [ -n "$env_procs" ] && counts=$env_procs
        for n in $counts; do
            log=$log_dir/$name.n$n$tag.log
            label="$name -n $n${e:+ [$e]}"
            t0=$(date +%s%N)
            # shellcheck disable=SC2086 # word splitting of $e and the flags is intended
            env CK_FORK=no $e timeout -k 5 "$run_timeout" \
                "$MPIEXEC" $MPIEXEC_FLAGS -n "$n" "$bin" </dev/null >"$log" 2>&1
            rc=$?
            secs=$(since "$t0")
            # A run that ends with its expected status passed; one that
            # should have ended otherwise but exited 0 failed.
            if [ "$want" -ne 0 ]; then
                if [ $rc -eq "$want" ]; then rc=0; elif [ $rc -eq 0 ]; then rc=1; fi
            fi
            # The reasons of the tests that skipped, once each.
            skips=$(sed -n 's/^SKIP: //p' "$log" | awk '!seen[$0]++')
            nskips=$(printf '%s' "$skips" | grep -c . || true)
            if [ $rc -eq 0 ]; then
                if [ "$nskips" -gt 0 ]; then
                    echo "PASS $label (${secs} s; $nskips test(s) skipped)"
                    printf '%s\n' "$skips" | sed 's/^/    skipped: /'
                else
                    echo "PASS $label (${secs} s)"
                fi
                passed=$((passed + 1))
                skipped=$((skipped + nskips))
            elif [ $rc -eq 77 ]; then
                echo "SKIP $label (${secs} s)"
                if [ "$nskips" -gt 0 ]; then
                    printf '%s\n' "$skips" | sed 's/^/    skipped: /'
                else
                    echo "    skipped: (exit status 77, no reason printed; log: $log)"
                fi
                skipped=$((skipped + 1))
            else
                why="exit $rc"
                [ $rc -eq 124 ] && why="timeout after ${run_timeout}s"
                [ $rc -eq 137 ] && why="killed (timeout or out of memory)"
                echo "FAIL $label ($why, ${secs} s, log: $log)"
                sed 's/^/    | /' "$log" | tail -n 60
                failed=$((failed + 1))
                [ -n "${SAFECOLL_SUMMARY:-}" ] &&
                    echo "0 1 0 $label" >> "$SAFECOLL_SUMMARY"
                # For the summary: why, and the failed assertions of the
                # log (tests/mpi/common.h, tc_fail: "[rank R] test:
                # file:line: message"), else its last lines.
                { echo "FAIL ($why, ${secs} s, log: $log)"
                  grep -E '^\[rank [0-9]+\] ([^ ]+: [^ ]+:[0-9]+: |failed: )' "$log" ||
                      tail -n 3 "$log"; } | lib_digest "$label"
            fi
        done
    done
done

[ -n "${SAFECOLL_SUMMARY:-}" ] &&
    echo "$passed 0 $skipped run-mpi ($src_dir)" >> "$SAFECOLL_SUMMARY"
echo "  ($src_dir: passed $passed, failed $failed, skipped $skipped; $(since "$start_all") s)"
[ $failed -eq 0 ]
