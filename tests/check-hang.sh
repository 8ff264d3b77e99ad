#!/usr/bin/env bash
# Real hangs caught by the hang monitor, the job ended by its abort action:
# examples/hang_detect.c in each of its scenarios, the report written to a
# file through the %r pattern and read here. "early" hangs before the
# monitor has a model: the frozen-state rule must find it.
#
#   tests/check-hang.sh EXAMPLE_BINARY
#
# Each scenario: the job's exit status is SAFECOLL_HANG_EXIT (70), the
# report names the verdict and, for a compute-side hang, the suspect rank,
# and says where every rank was. MPIEXEC as in the other scripts.
set -uo pipefail

. "$(dirname "$0")/lib.sh"
bin=${1:?usage: check-hang.sh EXAMPLE_BINARY}
[ -x "$bin" ] || { echo "check-hang: $bin is not built" >&2; exit 2; }
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
lib_mpiexec
lib_scratch hang

P=3
last=$((P - 1))
# has TEXT: the last report contains TEXT (a fixed string).
has() {
    checks=$((checks + 1))
    if ! grep -qF -- "$1" report.0; then
        failed=$((failed + 1))
        echo "FAIL: $scenario: the report lacks \"$1\":"
        sed 's/^/    | /' report.0 "$out" | tail -20
    fi
}

for scenario in compute spin deadlock skip early; do
    rm -f report.*
    checks=$((checks + 1))
    # shellcheck disable=SC2086 # MPIEXEC carries its flags
    SAFECOLL_DEMO_SMALL=1 SAFECOLL_HANG_REPORT="$scratch/report.%r" timeout -k 5 240 \
        $MPIEXEC -n $P "$bin" "$scenario" >"$out" 2>&1 </dev/null
    got=$?
    if [ "$got" -ne 70 ]; then
        failed=$((failed + 1))
        echo "FAIL: $scenario: exit $got, expected 70"
        sed 's/^/    | /' "$out" | tail -20
        continue
    fi
    if [ ! -s report.0 ]; then
        failed=$((failed + 1)) checks=$((checks + 1))
        echo "FAIL: $scenario: no report in report.0"
        continue
    fi
    has "libsafecoll: hang detected"
    has "suspicions in a row (q^k <= alpha = 0.001)"
    case $scenario in
    compute | spin | early)
        [ "$scenario" = early ] && has "rule: frozen state; no rank changed state for"
        has "verdict: compute-side hang: 1 rank outside MPI while $last wait inside: suspect rank $last"
        has "rank $last: outside MPI"
        for r in $(seq 0 $((last - 1))); do has "rank $r: inside MPI, in safecoll_allreduce"; done
        ;;
    deadlock)
        has "verdict: communication deadlock: all $P ranks asked wait inside MPI"
        for r in $(seq 0 $last); do
            has "rank $r: inside MPI, in MPI_Recv(&x, 1, MPI_INT, (rank + 1) % size, 7"
        done
        has "at examples/hang_detect.c:"
        ;;
    skip)
        has "verdict: communication deadlock: all $P ranks asked wait inside MPI"
        has "rank $last: inside MPI, in safecoll_allreduce"
        has "rank 0: inside MPI, in safecoll_barrier"
        ;;
    esac
    echo "  $scenario: exit 70, $(sed -n 's/^  verdict: //p' report.0)"
done

echo "  hang: $checks checks, $failed failed"
[ "$failed" -eq 0 ]
