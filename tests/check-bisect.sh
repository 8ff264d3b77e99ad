#!/usr/bin/env bash
# `safecoll bisect` against a small application (tests/bisect/app.c) with
# a bug injected through its own MPI_Allreduce: the bisection names the
# collective, or says that nothing is to bisect or that the collective
# layer is not to blame. The application is built against the shared
# library (the bisections) and the static one (the fault bites through the
# native path there too, and not through p2p).
#
#   tests/check-bisect.sh TOOL LIBDIR        (MPICC, MPIEXEC as elsewhere)
set -uo pipefail

. "$(dirname "$0")/lib.sh"
lib_tool bisect "${1:-}"
libdir=$(cd "${2:?usage: check-bisect.sh TOOL LIBDIR}" && pwd)
src=$(cd "$(dirname "$0")/bisect" && pwd)
inc=$(cd "$(dirname "$0")/../include" && pwd)
lib_mpiexec
lib_probe_jobs
MPICC=${MPICC:-mpicc}
lib_scratch bisect
P=3

flags=(-std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -I"$inc")
check "the application (shared)" $MPICC "${flags[@]}" -o app "$src/app.c" \
    -L"$libdir" -lsafecoll -Wl,-rpath,"$libdir"
check "the application (static)" $MPICC "${flags[@]}" -o app-static "$src/app.c" \
    "$libdir/libsafecoll.a" ${SAFECOLL_LIBS_PRIVATE:--lpthread -lz -lm}
[ -x app ] || { echo "  bisect: $checks checks, $failed failed"; exit 1; }
# shellcheck disable=SC2206 # MPIEXEC carries its flags
launch=($MPIEXEC -n $P)

verdict() { grep '^verdict: ' "$out"; }

# The fault is where the test says, in both builds: native fails, p2p passes.
for a in app app-static; do
    [ -x $a ] || continue
    check "$a: the injected fault bites natively" \
        bash -c '! BISECT_FAULT=allreduce "$@" >/dev/null 2>&1' _ "${launch[@]}" ./$a
    check "$a: and not with every collective on p2p" bash -c \
        'BISECT_FAULT=allreduce SAFECOLL_STRATEGY=all=p2p "$@" >/dev/null 2>&1' _ "${launch[@]}" ./$a
done

# (a) One faulty collective: named, after the two first runs and a halving.
BISECT_FAULT=allreduce run 0 bisect --logs logs-a --timeout 60 -- "${launch[@]}" ./app
check "(a) the verdict names allreduce alone: $(verdict)" \
    grep -q '^verdict: allreduce: the run fails with it native' "$out"
check "(a) run 1 failed, run 2 (all=p2p) passed" \
    bash -c 'grep -Eq "^ +1 .* exit 1 " "$1" && grep -Eq "^ +2 +none \(all=p2p\) +pass " "$1"' _ "$out"
check "(a) the candidates are the 4 collectives called: no run names another" \
    bash -c '! grep -Eq "^ +[0-9]+ +[a-z_,]*(scatter|reduce_scatter|scan|igather)" "$1"' _ "$out"
check "(a) 6 runs at most (2 + 2 halvings of 4)" bash -c '! grep -Eq "^ +7 " "$1"' _ "$out"
check "(a) each run's output kept" test -s logs-a/run-1.log -a -s logs-a/run-3.log
check "(a) run 1's log holds the application's complaint" \
    grep -q 'wrong allreduce' logs-a/run-1.log
check "(a) progress lines on stderr" grep -q '^run 3 of ~[0-9]*: native ' "$err"

# (b) A bug outside the collectives.
BISECT_FAULT=app run 4 bisect --timeout 60 --logs logs-b -- "${launch[@]}" ./app
check "(b) the verdict: not the collective layer" \
    grep -q '^verdict: not the collective layer' "$out"
check "(b) two runs only" bash -c '! grep -Eq "^ +3 " "$1"' _ "$out"

# (c) No bug.
run 3 bisect --logs logs-c -- "${launch[@]}" ./app
check "(c) the verdict: no failure to bisect" grep -q '^verdict: no failure to bisect' "$out"

# --repeat: a passing configuration runs N times, a failing one stops at
# its first failure.
BISECT_FAULT=app run 4 bisect --repeat 2 --logs logs-r -- "${launch[@]}" ./app
check "--repeat 2: run 1 failed at its first try" grep -Eq '^ +1 .* exit 1 \(try 1\) ' "$out"
BISECT_FAULT= run 3 bisect --repeat 2 --logs logs-r2 -- "${launch[@]}" ./app
check "--repeat 2: run 1 passed twice" grep -Eq '^ +1 .* pass x2 ' "$out"

# (d) A wrong result that only the output shows, judged by --check.
BISECT_FAULT=allreduce BISECT_QUIET=1 run 3 bisect --logs logs-d0 -- "${launch[@]}" ./app
check "(d) without --check the quiet failure is not seen" \
    grep -q '^verdict: no failure to bisect' "$out"
BISECT_FAULT=allreduce BISECT_QUIET=1 run 0 bisect --logs logs-d \
    --check '! grep -q WRONG && test -s "$SAFECOLL_BISECT_LOG"' -- "${launch[@]}" ./app
check "(d) with --check: allreduce named: $(verdict)" grep -q '^verdict: allreduce:' "$out"
check "(d) the failed runs say check" grep -Eq '^ +1 .* check 1 ' "$out"
run 1 bisect --logs logs-d2 --check 'no-such-command-here' -- "${launch[@]}" ./app
check "(d) a --check that cannot run stops the bisection" \
    grep -q 'the --check command could not run' "$err"

# (e) Two collectives that fail only together: the smallest failing set.
BISECT_FAULT=pair run 0 bisect --logs logs-e -- "${launch[@]}" ./app
check "(e) bcast and allreduce named together: $(verdict)" \
    grep -q '^verdict: bcast,allreduce together' "$out"
check "(e) no set run twice" \
    bash -c '[ "$(awk "/^ +[0-9]+ /{print \$2}" "$1" | sort | uniq -d)" = "" ]' _ "$out"

# (f) A hang: the time limit ends the run, which counts as failed. The
# candidates are given, so that only one run waits for the limit.
BISECT_FAULT=hang run 0 bisect --logs logs-f --timeout 8 --colls allreduce \
    -- "${launch[@]}" ./app
check "(f) run 1 ended by the time limit" grep -Eq '^ +1 .* time limit ' "$out"
check "(f) allreduce named: $(verdict)" grep -q '^verdict: allreduce:' "$out"

# (g) Wrong usage: exit 2 and the usage text; a command that does not run: 1.
run 2 bisect
run 2 bisect --timeout
run 2 bisect --timeout 0 -- true
run 2 bisect --repeat x -- true
run 2 bisect --colls nosuchcoll -- true
run 2 bisect --frobnicate 1 -- true
run 2 bisect -- 
check "usage text on a usage error" grep -q '^usage: safecoll bisect' "$err"
run 1 bisect --logs logs-g -- ./no-such-program
check "a command that cannot run is named" grep -q 'no-such-program' "$err"
run 0 bisect --help
check "--help names the exit statuses" grep -q '3 no failure to bisect' "$out"

echo "  bisect: $checks checks, $failed failed"
[ "$failed" -eq 0 ]
