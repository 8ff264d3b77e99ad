#!/usr/bin/env bash
# The `make check-big` tests: the safe collectives at real sizes past 2^31,
# every byte verified.  See tests/big/README.md for what each configuration
# allocates and how long it takes.
#
#   tests/big/run.sh [--list]
#
# It builds nothing (`make check-big` builds tests/big/*.c into
# tests/bin/big/ first) and runs each configuration alone, one after the
# other, under `$MPIEXEC $MPIEXEC_FLAGS -n 4` (or the count a configuration
# names) with a timeout.  One line per
# configuration, `PASS name (...)` or `FAIL name (...)` (the log follows a
# failure), and last a line `N passed, M failed`; the exit status is
# non-zero when anything failed or could not run.
#
# Environment:
#   SAFECOLL_BIG_BIN      the programs (default: tests/bin/big next to this
#                         script's tests/ folder)
#   SAFECOLL_BIG_LOGS     where the logs go (default: $SAFECOLL_BIG_BIN/logs)
#   SAFECOLL_BIG_TIMEOUT  seconds per run (default 600)
#   SAFECOLL_BIG_ONLY     an extended regular expression: run only the
#                         configurations whose name matches it
#   SAFECOLL_BIG_ALL=1    also force the strategy that a configuration's
#                         automatic run already ran (listed, not run, by
#                         default: the same code on the same bytes)
#   MPIEXEC, MPIEXEC_FLAGS
#
# Memory: a run starts only when MemAvailable exceeds what it needs (listed
# below, in GB) by 1 GiB; the script waits up to 2 minutes for that, then
# counts the run as skipped, which fails the whole check: a test that could
# not run has not passed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
bin=${SAFECOLL_BIG_BIN:-$here/../bin/big}
logs=${SAFECOLL_BIG_LOGS:-$bin/logs}
timeout_s=${SAFECOLL_BIG_TIMEOUT:-600}
only=${SAFECOLL_BIG_ONLY:-}
# shellcheck source=tests/mpi-names.sh
. "$(dirname "${BASH_SOURCE[0]}")/../mpi-names.sh"
MPIEXEC_FLAGS=${MPIEXEC_FLAGS:-}

# MPICH's ring MPI_Allgatherv pipelines in pieces of 32 KiB.  With 4 ranks
# on 2 cores, all spinning, every piece waits for a scheduler time slice:
# 4 x 16 MiB took 35-44 s here instead of 0.1 s.  Bigger pieces change the
# speed, not the data, so they are the default here unless already set.
export MPIR_CVAR_ALLGATHERV_PIPELINE_MSG_SIZE=${MPIR_CVAR_ALLGATHERV_PIPELINE_MSG_SIZE:-1073741824}

# name  program[@processes, default 4]  mode  GB-needed  strategies
# A strategy written s:bare runs without the built-in records
# (SAFECOLL_KNOWN_BOUNDS=): scatter's MPICH 4.0.2 record is of class
# G_bytes, which bigtype (the same bytes in one call) does not avoid, so
# with it all=bigtype rightly falls back to segment; bare, the strategy
# itself is what runs past 2^31.
configs=(
    "gatherv-dense         test_gatherv    dense    6.5  auto largecount bigtype segment chunk p2p"
    "igatherv-dense        test_gatherv    idense   6.5  auto largecount bigtype segment chunk p2p"
    "scatterv-dense        test_scatterv   dense    6.5  auto largecount bigtype segment chunk p2p"
    "allgatherv-dense      test_allgatherv dense   14.5  auto largecount bigtype segment chunk p2p"
    "allgatherv-inplace-sparse test_allgatherv inplace 1.2 auto largecount bigtype segment chunk p2p"
    "alltoallv-sparse      test_alltoallv  sparse   2.3  auto largecount bigtype chunk p2p"
    "gatherv_c-bigcount    test_gatherv    c        5.0  auto bigtype chunk p2p"
    "scatterv_c-bigcount   test_scatterv   c        5.0  auto bigtype chunk p2p"
    "allgatherv_c-bigcount test_allgatherv c       12.5  auto bigtype chunk p2p"
    "alltoallv_c-sparse-bigcount test_alltoallv c   6.6  auto bigtype chunk p2p"
    "gather-dense          test_gather     dense     4.9  auto bigtype segment chunk p2p"
    "igather-dense         test_gather     idense    4.9  auto chunk"
    "scatter-dense         test_scatter    dense     4.9  auto bigtype:bare segment chunk p2p"
    "iscatter-dense        test_scatter    idense    4.9  auto chunk"
    "allgather-dense       test_allgather  dense    12.1  auto bigtype segment chunk p2p"
    "iallgather-inplace    test_allgather  iinplace  9.7  auto chunk"
    "alltoall-inplace      test_alltoall   inplace  11.1  auto bigtype chunk p2p"
    "ialltoall-inplace     test_alltoall   iinplace 11.1  auto chunk"
    "bcast-int             test_bcast      int       9.7  auto chunk p2p"
    "ibcast-int            test_bcast      iint      9.7  auto chunk"
    "bcast_c-bigcount      test_bcast      c         8.9  auto largecount bigtype chunk p2p"
    "allgather_c-bigcount  test_regular_c@2 allgather 12.9 auto bigtype chunk"
    "alltoall_c-bigcount   test_regular_c@2 alltoall  12.9 auto bigtype chunk"
    "reduce-inplace        test_reduce     reduce   13.3  auto chunk p2p"
    "ireduce-inplace       test_reduce     ireduce  12.1  auto chunk"
    "allreduce-inplace     test_reduce     allreduce 13.3  auto chunk p2p"
    "iallreduce-inplace    test_reduce     iallreduce 13.2  auto chunk"
)

if [ "${1:-}" = --list ]; then
    echo "native-gatherv-wrapped (6.5 GB; expected to crash)"
    echo "native-gather (5.5 GB; recorded, works on MPICH 4.0.2)"
    echo "native-allreduce (13 GB; recorded, works on MPICH 4.0.2)"
    echo "native-reduce-inplace (0.1 GB; crashes on MPICH 4.0.2)"
    echo "native-allgather_c (12.9 GB; must work: the largecount strategy of a regular allgather calls it)"
    echo "native-alltoall_c (12.9 GB; must work: the largecount strategy of a regular alltoall calls it)"
    echo "search-mpich (14 GB; safecoll search of scatter, allgather (and SAFECOLL_SEARCH_ICOLLS, e.g. iscatter) at P=4 char, then the safe collective at the failures; tests/big/search.sh)"
    echo "fortran-gatherv (5.5 GB; the mpi_f08 binding: safecoll_gatherv of 2.4e9 bytes with int counts and 2.2e9 with MPI_COUNT_KIND counts on 2 ranks; tests/big/f08_gatherv.f90)"
    echo "guideline-mpich (2 GB; safecoll guideline of 12 collectives at P=2,4 char up to 16 MiB per rank, then the routing of each record; tests/big/guideline.sh)"
    for c in "${configs[@]}"; do
        read -r name prog mode gb strategies <<< "$c"
        np=4
        [[ $prog == *@* ]] && np=${prog#*@} && prog=${prog%@*}
        for s in $strategies; do
            bare=
            [[ $s == *:bare ]] && s=${s%:bare} && bare=", no built-in records"
            echo "$name-$s ($gb GB; $prog $mode on $np ranks, SAFECOLL_STRATEGY=all=$s$bare)"
        done
    done
    exit 0
fi

mkdir -p "$logs" || exit 2
passed=0 failed=0 skipped=0
start_all=$(date +%s.%N)

selected() { [ -z "$only" ] || [[ $1 =~ $only ]]; }

# Waits until MemAvailable exceeds $1 GB plus 1 GiB, for up to 2 minutes.
memory_for() {
    local need_kb avail_kb tries=0
    need_kb=$(awk -v gb="$1" 'BEGIN { printf "%d", gb * 1e6 + 1048576 }')
    while :; do
        avail_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
        [ "$avail_kb" -ge "$need_kb" ] && return 0
        if [ $tries -ge 24 ]; then
            mem_short="needs $1 GB + 1 GiB, MemAvailable $((avail_kb / 1048576)) GiB"
            return 1
        fi
        tries=$((tries + 1))
        sleep 5
    done
}

# Runs one job: sets rc, secs and log.
run_job() {
    local t0 t1
    log=$logs/$1.log
    shift
    t0=$(date +%s.%N)
    # shellcheck disable=SC2086 # the flags are meant to split
    timeout -k 10 "$timeout_s" "$@" </dev/null >"$log" 2>&1
    rc=$?
    t1=$(date +%s.%N)
    secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
}

why_failed() {
    case $1 in
    124) echo "timeout after ${timeout_s}s" ;;
    137) echo "killed (timeout or out of memory)" ;;
    *) echo "exit $1" ;;
    esac
}

# The native MPI call, once per size of interest, as a record of what this
# MPI does there: a crash, an error or wrong data count as a pass (that is
# what the library avoids); a correct result is reported as INFO, not
# failed, since a working MPI is good news.
#   run_native name program GB MPI-function what
run_native() {
    local name=$1 prog=$2 gb=$3 fn=$4 what=$5 evidence how
    selected "$name" || return 0
    if ! memory_for "$gb"; then
        echo "SKIP $name ($mem_short)"
        skipped=$((skipped + 1))
        return 0
    fi
    # shellcheck disable=SC2086
    run_job "$name" "$MPIEXEC" $MPIEXEC_FLAGS -n 4 "$bin/$prog"
    if ! grep -q "^calling $fn" "$log"; then
        echo "FAIL $name (it did not get to the call: $(why_failed $rc), log: $log)"
        sed 's/^/    | /' "$log" | tail -n 30
        failed=$((failed + 1))
    elif [ $rc -ne 0 ]; then
        evidence=$(grep -m1 "^$fn returned" "$log" ||
                   grep -m1 -o 'process_vm_readv.*' "$log" ||
                   grep -m1 -i 'error\|fatal\|signal' "$log" || why_failed $rc)
        how=crashed
        grep -q "^$fn returned" "$log" && how=failed
        echo "PASS $name (${secs}s)"
        echo "     native $what: $how: $evidence"
        passed=$((passed + 1))
    else
        echo "INFO $name (${secs}s): $what did NOT fail on this MPI:" \
             "$(grep -m1 "^$fn returned" "$log") $(grep -m1 "^rss=" "$log")"
    fi
}

# MPI_Gatherv with wrapped int displs crashes MPICH 4.0.2: the bug the
# library avoids.  MPI_Gather at n*P > INT_MAX and MPI_Allreduce at s*n >
# INT_MAX bytes are recorded, and MPI_Reduce with MPI_IN_PLACE at a root
# other than 0, which crashes MPICH 4.0.2 from 2049 bytes on.
run_native native-gatherv-wrapped native_gatherv 6.5 MPI_Gatherv \
    "MPI_Gatherv with wrapped displs (displs[3] = -1894967296)"
run_native native-gather native_gather 5.5 MPI_Gather \
    "MPI_Gather of 4 x 600M chars (n*P > INT_MAX)"
run_native native-allreduce native_allreduce 13 MPI_Allreduce \
    "MPI_Allreduce of 537M ints in place (s*n > INT_MAX bytes)"
run_native native-reduce-inplace native_reduce 0.1 MPI_Reduce \
    "MPI_Reduce of 1M ints, MPI_IN_PLACE at root 2"

# The regular MPI-4 `_c` calls past INT_MAX, which the largecount strategy
# of a triggered regular allgather and alltoall calls directly
# (src/avoid/regular.c) because src/coll/known.c has no entry for them: here
# a failure is a FAIL, and the fix is an entry in known.c.
#   run_native_ok name mode GB MPI-function
run_native_ok() {
    local name=$1 mode=$2 gb=$3 fn=$4
    selected "$name" || return 0
    if ! memory_for "$gb"; then
        echo "SKIP $name ($mem_short)"
        skipped=$((skipped + 1))
        return 0
    fi
    # shellcheck disable=SC2086
    run_job "$name" "$MPIEXEC" $MPIEXEC_FLAGS -n 2 "$bin/native_regular_c" "$mode"
    if [ $rc -eq 0 ] && grep -q "^$fn returned 0; every block is right" "$log"; then
        echo "PASS $name (${secs}s; $(grep -m1 "^$fn returned" "$log") $(grep -m1 "^rss=" "$log"))"
        passed=$((passed + 1))
    else
        echo "FAIL $name ($(why_failed $rc), ${secs}s, log: $log): $fn past INT_MAX does" \
             "not work here; src/coll/known.c needs an entry for it"
        sed 's/^/    | /' "$log" | tail -n 30
        failed=$((failed + 1))
    fi
}
run_native_ok native-allgather_c allgather 12.9 MPI_Allgather_c
run_native_ok native-alltoall_c alltoall 12.9 MPI_Alltoall_c

# The real search of issue 4 (tests/big/search.sh): safecoll search of the
# native collectives at P = 4, MPI_CHAR, up to 12 GiB of buffers, and the
# effectiveness check of what it finds.  One PASS/FAIL line per assertion.
if selected search-mpich; then
    if ! memory_for 14; then
        echo "SKIP search-mpich ($mem_short)"
        skipped=$((skipped + 1))
    else
        t0=$(date +%s)
        "$here/search.sh" "$here/../../bin/safecoll" "$logs/search" >"$logs/search-mpich.log" 2>&1
        st=$?
        cat "$logs/search-mpich.log"
        n_pass=$(grep -c '^PASS ' "$logs/search-mpich.log")
        n_fail=$(grep -c '^FAIL ' "$logs/search-mpich.log")
        passed=$((passed + n_pass))
        failed=$((failed + n_fail))
        if [ $st -ne 0 ] && [ "$n_fail" -eq 0 ]; then
            echo "FAIL search-mpich (exit $st; log: $logs/search-mpich.log)"
            failed=$((failed + 1))
        fi
        echo "     search-mpich: $(($(date +%s) - t0)) s in all"
    fi
fi

# The real guideline run of issue 5 (tests/big/guideline.sh): safecoll
# guideline over the collectives at P = 2 and 4 up to 16 MiB per rank, and
# the routing of every record it writes. It asserts that the runs complete
# and the records work, not that a violation exists.
if selected guideline-mpich; then
    if ! memory_for 2; then
        echo "SKIP guideline-mpich ($mem_short)"
        skipped=$((skipped + 1))
    else
        t0=$(date +%s)
        "$here/guideline.sh" "$here/../../bin/safecoll" "$logs/guideline" \
            >"$logs/guideline-mpich.log" 2>&1
        st=$?
        cat "$logs/guideline-mpich.log"
        n_pass=$(grep -c '^PASS ' "$logs/guideline-mpich.log")
        n_fail=$(grep -c '^FAIL ' "$logs/guideline-mpich.log")
        passed=$((passed + n_pass))
        failed=$((failed + n_fail))
        if [ $st -ne 0 ] && [ "$n_fail" -eq 0 ]; then
            echo "FAIL guideline-mpich (exit $st; log: $logs/guideline-mpich.log)"
            failed=$((failed + 1))
        fi
        echo "     guideline-mpich: $(($(date +%s) - t0)) s in all"
    fi
fi

# The Fortran binding (tests/big/f08_gatherv.f90): safecoll_gatherv from
# mpi_f08 with int and MPI_COUNT_KIND counts past INT_MAX bytes, on 2 ranks.
# Not built where the MPI has no Fortran wrapper: then a note, not a run.
if selected fortran-gatherv; then
    if [ ! -x "$bin/f08_gatherv" ]; then
        echo "INFO fortran-gatherv: not built (no MPI Fortran wrapper); not run"
    elif ! memory_for 5.5; then
        echo "SKIP fortran-gatherv ($mem_short)"
        skipped=$((skipped + 1))
    else
        # shellcheck disable=SC2086
        run_job fortran-gatherv "$MPIEXEC" $MPIEXEC_FLAGS -n 2 "$bin/f08_gatherv"
        verdict=$(grep -m1 '^fortran-gatherv: ok ' "$log")
        if [ $rc -eq 0 ] && [ -n "$verdict" ]; then
            echo "PASS fortran-gatherv (${secs}s; ${verdict#fortran-gatherv: ok })"
            passed=$((passed + 1))
        else
            echo "FAIL fortran-gatherv ($(why_failed $rc), ${secs}s, log: $log)"
            sed 's/^/    | /' "$log" | tail -n 30
            failed=$((failed + 1))
        fi
    fi
fi

for c in "${configs[@]}"; do
    read -r name prog mode gb strategies <<< "$c"
    np=4
    [[ $prog == *@* ]] && np=${prog#*@} && prog=${prog%@*}
    auto_ran=
    for s in $strategies; do
        known=(SAFECOLL_KNOWN_BOUNDS="${SAFECOLL_KNOWN_BOUNDS-}")
        [ -n "${SAFECOLL_KNOWN_BOUNDS+set}" ] || known=()
        bare=0
        [[ $s == *:bare ]] && s=${s%:bare} && known=(SAFECOLL_KNOWN_BOUNDS=) && bare=1
        label=$name-$s
        selected "$label" || continue
        # The strategy the automatic choice ran, on the same data and with
        # the same records, has just passed: forcing it again would run the
        # same code on the same bytes (only the choice is skipped), so it is
        # listed, not run. SAFECOLL_BIG_ALL=1 runs it anyway.
        if [ "$s" = "$auto_ran" ] && [ $bare = 0 ] && [ "${SAFECOLL_BIG_ALL:-0}" != 1 ]; then
            echo "INFO $label: not run again: $name-auto ran $s and passed (SAFECOLL_BIG_ALL=1 runs it)"
            continue
        fi
        if ! memory_for "$gb"; then
            echo "SKIP $label ($mem_short)"
            skipped=$((skipped + 1))
            continue
        fi
        # shellcheck disable=SC2086
        run_job "$label" env "${known[@]}" SAFECOLL_STRATEGY="all=$s" \
            "$MPIEXEC" $MPIEXEC_FLAGS -n "$np" "$bin/$prog" "$mode"
        # The program's own verdict line, e.g. "gatherv-dense auto: ok ran=largecount
        # D=1 call=0.40s total=10.8s rss=6.48GB".
        verdict=$(grep -m1 "^$name $s: " "$log")
        if [ $rc -eq 0 ] && [[ $verdict == "$name $s: ok "* ]]; then
            echo "PASS $label (${secs}s; ${verdict#"$name $s: ok "})"
            passed=$((passed + 1))
            if [ "$s" = auto ] && [[ $verdict =~ \ ran=([a-z0-9_+]+) ]]; then
                auto_ran=${BASH_REMATCH[1]}
            fi
        else
            echo "FAIL $label ($(why_failed $rc), ${secs}s, log: $log)"
            sed 's/^/    | /' "$log" | tail -n 30
            failed=$((failed + 1))
        fi
    done
done

total=$(awk -v a="$start_all" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
echo "check-big: ${total}s in all"
[ $skipped -gt 0 ] && echo "$skipped skipped (not enough memory; counted as not passed)"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ] && [ $skipped -eq 0 ]
