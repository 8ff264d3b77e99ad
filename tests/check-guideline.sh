#!/usr/bin/env bash
# `safecoll guideline` against simulated performance bugs (SAFECOLL_PROBE_FAULT)
# at tiny sizes: (a) a native allreduce made slow above 2 KiB is found at the
# right size, recorded, the record passes `bounds check`, and with it loaded
# the safe allreduce routes away (its `auto` time is no longer slow, the
# verbose log names the record); (a2) a slow phase that covers only the
# first measurement makes no record, thanks to the recheck, and one
# without it; (a3) a slow phase over a variant's calibration calls only
# does not make its times slow; (b) random jitter over honest collectives
# gives no record (three seeds; SAFECOLL_TEST_GUIDELINE_JITTER=0 skips
# it); (c) bad options, an empty sweep, a failing
# launcher and a malformed fault give clear messages and exit codes; (d) the
# shipped performance records route the safe allgatherv where they say.
# `make check` runs it.
#
#   tests/check-guideline.sh [bin/safecoll]
#
# The injected delays (SAFECOLL_TEST_GUIDELINE_DELAY, default 300ms) are far
# above what a 1-8 KiB collective takes, even on a loaded machine, and no
# assertion depends on the machine being quiet: the injected sizes must be
# found, sizes far from them must not, and the one size next to the
# injection may go either way (found). Prints one line per
# failed assertion and "guideline: N checks, F failed".  In the second
# MPI's pass (SAFECOLL_CHECK_SECOND_MPI=1, `make check-openmpi`) (a2), (a3),
# (b), the routing by the records and the malformed faults, the tool's own
# logic, are skips (lib_mpi_independent): (a), the real timings on that
# MPI, runs, and so do (c)'s time limit and launcher and (d).
set -u

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
lib_tool check-guideline "${1:-}"
lib_mpiexec
lib_probe_jobs
export SAFECOLL_KNOWN_BOUNDS= SAFECOLL_BOUNDS=
unset SAFECOLL_PROBE_FAULT SAFECOLL_STRATEGY SAFECOLL_VERBOSE

delay=${SAFECOLL_TEST_GUIDELINE_DELAY:-300ms}
# The delay in microseconds, for comparisons with the table.
case $delay in
*ms) delay_us=$(( ${delay%ms} * 1000 )) ;;
*us) delay_us=${delay%us} ;;
*) echo "check-guideline: SAFECOLL_TEST_GUIDELINE_DELAY must end in ms or us" >&2; exit 2 ;;
esac

lib_scratch guideline
export TMPDIR=$scratch
# Tiny sizes, a few repetitions, no time budget beyond them. Each job gets
# 900 s, as in (b): under a load average of 17-20 the job the plan gave
# 212 s was killed at P = 2 before it measured anything.
fast=(--sizes 1Ki-8Ki --reps 7 --time 0 --time-limit 900)

refuse() {
    local text=$1
    checks=$((checks + 1))
    if grep -qF -- "$text" "$out"; then
        failed=$((failed + 1))
        echo "FAIL: stdout has \"$text\":"
        sed 's/^/    | /' "$out" | tail -12
    fi
}

# verdicts P SIZE...: the rows of the table of allreduce at P whose verdict
# is a confirmed violation are exactly SIZE... (e.g. "4 KiB").
verdicts() {
    local P=$1 got want
    shift
    want=$(printf '%s\n' "$@")
    got=$(awk -v h="allreduce P=$P " 'index($0, h) == 1 { on = 1; next }
        on && /^medians/ { on = 0 }
        on && /VIOLATION/ { print $1, $2 }' "$out")
    checks=$((checks + 1))
    if [ "$got" != "$want" ]; then
        failed=$((failed + 1))
        echo "FAIL: allreduce P=$P: violations at [$(echo $got)], expected [$(echo $want)]"
        sed 's/^/    | /' "$out" | head -30
    fi
}

# found P: the table of allreduce at P (slow fault above 2 KiB) has the
# injected sizes, 4 and 8 KiB, as confirmed violations, and not 1 KiB, two
# sizes below the injection. 2 KiB, the neighbour of the first injected
# size, may go either way: a violation is confirmed by a run of two sizes,
# so the real noise of a loaded machine at that one size joins the injected
# run (issue 15: "violations at [2 KiB 4 KiB 8 KiB], expected [4 KiB 8
# KiB]"). Nothing else depends on the machine being quiet.
found() {
    local P=$1 got
    got=$(awk -v h="allreduce P=$P " 'index($0, h) == 1 { on = 1; next }
        on && /^medians/ { on = 0 }
        on && /VIOLATION/ { print $1, $2 }' "$out" | tr '\n' ' ')
    checks=$((checks + 1))
    case " $got" in
    *" 4 KiB 8 KiB "*) ;;
    *)
        failed=$((failed + 1))
        echo "FAIL: allreduce P=$P: violations at [$got], expected 4 KiB and 8 KiB among them"
        sed 's/^/    | /' "$out" | head -30 ;;
    esac
    checks=$((checks + 1))
    case " $got" in
    *" 1 KiB "*)
        failed=$((failed + 1))
        echo "FAIL: allreduce P=$P: violations at [$got], 1 KiB is far below the injection"
        sed 's/^/    | /' "$out" | head -30 ;;
    esac
}

# expect_bound P: a record of allreduce at P whose bound is the last good
# size: 2048, or 1024 when the noise at 2 KiB joined the run (found).
expect_bound() {
    checks=$((checks + 1))
    if ! grep -qE " class=G_bytes bound=(2048|1024) s=1 P=$1 " "$out"; then
        failed=$((failed + 1))
        echo "FAIL: no record of allreduce P=$1 with bound 2048 (or 1024):"
        sed 's/^/    | /' "$out" | tail -12
    fi
}

# auto_fast P BYTES...: the fastest repetition of `auto` at BYTES per rank
# (the "data" lines) is below half the injected delay, which every native
# call there pays: the safe collective no longer makes the slow call. The
# fastest, not the median, so that a loaded machine's descheduling cannot
# fail it.
auto_fast() {
    local P=$1 bytes v
    shift
    for bytes in "$@"; do
        v=$(awk -v p="P=$P" -v b="bytes=$bytes" '$1 == "data" && $3 == p && $4 == b &&
            $5 == "auto" { sub(/^min=/, "", $9); print $9 * 1e6 }' "$out")
        checks=$((checks + 1))
        if ! awk -v v="${v:-x}" -v d="$delay_us" 'BEGIN { exit !(v ~ /^[0-9.]+$/ && v < d / 2) }'; then
            failed=$((failed + 1))
            echo "FAIL: allreduce P=$P at $bytes bytes: auto took at least ${v:-?} us, not below $((delay_us / 2))"
            sed 's/^/    | /' "$out" | head -30
        fi
    done
}

# --- (a) a slow native allreduce above 2 KiB per rank, at P = 2 and 4
slow="kind=slow,coll=allreduce,above=2Ki,delay=$delay"
# (`auto` is not timed here: without records it is the slow native call.)
# The default factor (2): under a heavy load (load average 17 on 2 cores)
# the equivalents themselves took 100-200 ms at P = 4, against 450 ms for
# the delayed native call, so a larger factor would lose the injected
# sizes; the rule for the neighbour (found) is what absorbs the noise.
SAFECOLL_PROBE_FAULT=$slow run 0 guideline --coll allreduce --procs 2,4 "${fast[@]}" \
    --no-auto --out found.bounds
found 2
found 4
# The last good size is 2 KiB (1 KiB if noise joined it); allreduce's
# G_bytes is s*n.
expect out "collective=allreduce kind=performance use="
expect_bound 2
expect_bound 4
# Each record carries the conditions it was measured under (one node; at
# P = 4 oversubscribed when the machine has fewer than 4 processors).
expect out " nodes=1 class=G_bytes bound="
if [ "$(getconf _NPROCESSORS_ONLN)" -lt 4 ]; then
    checks=$((checks + 1))
    grep -qE " oversubscribed=yes nodes=1 class=G_bytes bound=(2048|1024) s=1 P=4 " "$out" || {
        failed=$((failed + 1)); echo "FAIL: the P = 4 record is not marked oversubscribed"; }
fi
expect out "2 records appended to found.bounds"
run 0 bounds check found.bounds; expect out "found.bounds: ok: 2 records"

# With the records loaded, auto routes away from the slow native call: its
# time at 4 and 8 KiB is far below the delay, and the decision log names
# the record (the worker runs straight under mpiexec to show its log).
# Only 4 and 8 KiB are swept: they are the sizes asserted; 1 and 2 KiB,
# which no record covers and no fault slows, told nothing and cost a third
# of the time (the P = 4 job on 2 cores at a load average of 6: 73 s with
# them, 49 s without).
if ! lib_mpi_independent "guideline: auto routes by the records" \
    "MPI-independent (a record's routing), checked in the MPICH pass; the equivalents' times on this MPI are (a)'s"; then
    for P in 2 4; do
        checks=$((checks + 1))
        SAFECOLL_BOUNDS=found.bounds SAFECOLL_VERBOSE=1 SAFECOLL_PROBE_FAULT=$slow \
            $MPIEXEC -n $P "$tool" guideline --worker --coll allreduce "${fast[@]}" --sizes 4Ki-8Ki \
            >"$out" 2>"$err" ||
            { failed=$((failed + 1)); echo "FAIL: guideline --worker P=$P with the records"; }
        auto_fast $P 4096 8192
        expect err "found.bounds:"
    done
fi

# --- (a2) a slow phase that passes: the same fault on the first 22 calls
# of each rank only, which are exactly the native calls of the first
# measurement at 4 and 8 KiB (1 warm-up, 3 calibration and 7 timed calls
# at each; a late start adds one, leaving a fast call among the seven,
# which does not move the median). The first measurement finds the range;
# the recheck measures 4 and 8 KiB again, finds native fine and makes no
# record. Without the recheck the same slow phase makes one.
if ! lib_mpi_independent "guideline: a slow phase cleared by the recheck"; then
    slow_phase="$slow,calls=22"
    # (The range may hold 2 KiB too, its neighbour, or more sizes when the
    # machine's noise joined them (1-4 KiB was seen at a load of 20 on 2
    # cores): what is asserted is that the 4 and 8 KiB phase was measured again
    # and no range confirmed, see found.)
    SAFECOLL_PROBE_FAULT=$slow_phase run 0 guideline --coll allreduce --procs 2 "${fast[@]}" \
        --no-auto --out phase.bounds
    checks=$((checks + 1))
    grep -qE "recheck: [2-9] sizes of [1-9] ranges? measured again \(shown above\): 0 ranges confirmed" "$out" || {
        failed=$((failed + 1)); echo "FAIL: the recheck did not clear the slow phase:"
        sed 's/^/    | /' "$out" | tail -12; }
    expect out "0 records"
    refuse "collective="
    verdicts 2
    checks=$((checks + 1))
    [ -s phase.bounds ] && { failed=$((failed + 1)); echo "FAIL: a passing slow phase made records:"; cat phase.bounds; }
    SAFECOLL_PROBE_FAULT=$slow_phase run 0 guideline --coll allreduce --procs 2 "${fast[@]}" \
        --no-auto --no-recheck
    found 2
    expect_bound 2
    refuse "recheck:"
    refuse "data allreduce P=2"   # the data lines only with --verbose or --raw
fi

# --- (a3) a slow phase that covers only the calibration: the fault on the
# first 4 native calls at 4 KiB (1 warm-up and 3 calibration calls), 20 ms
# each, so that native's first windows are 40 ms long. Before the fix its
# repetitions, each after a sleep of most of a window, took 60-80 us
# against 5 us for the equivalents (12-13x, verdict "slower"). The batch
# that only calibrated is dropped (the data line counts its repetitions)
# and the verdict at 4 KiB is "ok"; the factor 10 keeps the machine's real
# noise at one size from failing it. One batch is dropped, once: 1 to 7
# repetitions (7 timed calls, less any late start).
if ! lib_mpi_independent "guideline: a slow calibration at 4 KiB"; then
    SAFECOLL_PROBE_FAULT=kind=slow,coll=allreduce,above=2Ki,delay=20ms,calls=4 run 0 guideline \
        --coll allreduce --procs 2 "${fast[@]}" --no-auto --no-recheck --factor 10 --verbose \
        --raw raw.data
    check "--raw FILE holds the data lines --verbose prints" \
        cmp -s <(grep '^data ' "$out") raw.data
    dropped=$(awk '$1 == "data" && $3 == "P=2" && $4 == "bytes=4096" && $5 == "native" {
        for (i = 6; i <= NF; i++) if ($i ~ /^dropped=/) { sub(/^dropped=/, "", $i); print $i } }' "$out")
    # Its premise is that the repetitions, once the window is short, are
    # fast: under more than one runnable task per core beside the job's two
    # ranks, a rank that slept in a window of the slow calibration wakes a
    # scheduler slice late (4 KiB native took 8-16 ms a repetition at a load
    # of 8.5 on 2 cores, so the median itself asked for long windows and no
    # batch was dropped). There the case is not judged: a skip with the load.
    # The load is read after the job, which it covers. The load average
    # lags a burst of other work, so the job's own times say it too: a
    # native median at 4 KiB above 1 ms is scheduler slices (the injected
    # delay covers only the calibration calls, and the defect this case
    # guards against made the repetitions 60-80 us, not milliseconds; a
    # run at a load of 3.4-4 measured 10 ms with no batch dropped).
    load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0)
    others=$(awk -v l="$load" 'BEGIN { o = l - 2; printf "%.2f", (o > 0 ? o : 0) }')
    native4k=$(awk '$1 == "data" && $3 == "P=2" && $4 == "bytes=4096" && $5 == "native" {
        for (i = 6; i <= NF; i++) if ($i ~ /^median=/) { sub(/^median=/, "", $i); print $i } }' "$out")
    if { ! [ "${dropped:-0}" -ge 1 ] 2>/dev/null || [ "$dropped" -gt 7 ] ||
         ! grep -qE '^ +4 KiB .* ok$' "$out"; } &&
       { awk -v o="$others" -v c="$(nproc)" 'BEGIN { exit !(o > c) }' ||
         awk -v m="${native4k:-0}" 'BEGIN { exit !(m > 0.001) }'; }; then
        lib_skip "guideline: a slow calibration at 4 KiB" \
            "not judged at load $load ($others beside its 2 ranks on $(nproc) CPUs), native's median at 4 KiB ${native4k:-?} s (scheduler slices above 0.001 s): dropped ${dropped:-?}"
    else
        checks=$((checks + 1))
        if ! [ "${dropped:-0}" -ge 1 ] 2>/dev/null || [ "$dropped" -gt 7 ]; then
            failed=$((failed + 1))
            echo "FAIL: a slow calibration at 4 KiB: native dropped ${dropped:-?} repetitions, expected 1 to 7"
            sed 's/^/    | /' "$out" | head -30
        fi
        checks=$((checks + 1))
        if ! grep -qE '^ +4 KiB .* ok$' "$out"; then
            failed=$((failed + 1))
            echo "FAIL: a slow calibration at 4 KiB: the verdict there is not ok"
            sed 's/^/    | /' "$out" | head -12
        fi
    fi
fi

# --- (b) jitter: a random delay on 5% of the timed calls of every variant,
# over an honest allreduce and bcast: the medians and the confirmation at
# neighbouring sizes keep it from making a record. The factor is 10: a
# jittered median would be hundreds of times the real one, so the test
# still fails if the jitter got through, but the real noise of a loaded
# machine at these sizes does not reach it at two neighbouring sizes.
# The false records it once made came from the measurement's bias (a
# window calibrated on one descheduled call and a late wake-up counted into
# the time; CHANGELOG, Fixes), now fixed: 7 cases of this part under load
# averages of 10-19 made no record, but 2 of them exceeded the job time
# limit the plan gave them (212 s), so each job here gets 900 s. About
# 100 s on a quiet machine; SAFECOLL_TEST_GUIDELINE_JITTER=0 skips it.
if lib_mpi_independent "guideline: jitter makes no record"; then
    :
elif [ "${SAFECOLL_TEST_GUIDELINE_JITTER:-1}" = 1 ]; then
    for case in "1 2 allreduce" "2 2 bcast" "3 4 allreduce"; do
        set -- $case
        SAFECOLL_PROBE_FAULT=kind=jitter,delay=$delay,fraction=0.05,seed=$1 "$tool" guideline \
            --coll $3 --procs $2 --sizes 1Ki-8Ki --reps 9 --time 0 --factor 10 \
            --time-limit 900 --out jitter.bounds >"$out" 2>"$err"
        got=$?
        # A job that outlives its 900 s on a machine with more than two
        # runnable tasks per core (15 on 2 cores once, beside other test
        # suites) measured nothing: inconclusive, a skip. On a machine
        # less busy a time-out is a failure like any other exit. The load
        # that decides is the other processes': the load average less the
        # job's own P ranks, which a hung job keeps busy (MPI polls), so
        # that a hang at P = 4 on 2 cores does not make the load that
        # excuses it.
        load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0)
        others=$(awk -v l="$load" -v p="$2" 'BEGIN { o = l - p; printf "%.2f", (o > 0 ? o : 0) }')
        if [ "$got" -ne 0 ] && grep -qF "killed after the time limit" "$err" &&
            awk -v o="$others" -v c="$(nproc)" 'BEGIN { exit !(o > 2 * c) }'; then
            lib_skip "guideline: jitter, $3 P=$2" \
                "the job timed out at load $load ($others beside its $2 ranks)"
            continue
        fi
        checks=$((checks + 1))
        if [ "$got" -ne 0 ]; then
            failed=$((failed + 1)); echo "FAIL: jitter guideline of $3 at P=$2: exit $got"
            sed 's/^/    out| /' "$out" | tail -12; sed 's/^/    err| /' "$err" | tail -5
        fi
        expect out "jitter fault: "
        refuse "collective="
        expect out "0 records"
    done
    checks=$((checks + 1))
    [ -s jitter.bounds ] && { failed=$((failed + 1)); echo "FAIL: jitter made records:"; cat jitter.bounds; }
else
    lib_skip "guideline: jitter makes no record" "SAFECOLL_TEST_GUIDELINE_JITTER=0"
fi

# --- (c) options, empty sweeps, launcher failures, malformed faults
run 2 guideline --coll allreduce --procs 2;             expect err "--coll, --procs and --sizes are required"
run 2 guideline --coll barrier --procs 2 --sizes 1Ki;   expect err "unknown or unsupported collective"
run 2 guideline --coll allreduce --procs 2 --sizes 16Ki-1Ki; expect err "empty sweep"
run 2 guideline --coll allreduce --procs 2 --sizes 4Ki,1Ki;  expect err "--sizes must increase"
run 2 guideline --coll allreduce --procs 2 --sizes 1K;  expect err "--sizes is not LO-HI"
run 2 guideline --coll allreduce --procs 2 --sizes "$(seq -s, 1 65)"; expect err "more than 64 sizes"
run 2 guideline --coll allreduce --procs 2 --sizes 1Ki --type int8; expect err "unknown type"
run 2 guideline --coll allreduce --procs 2 --sizes 2 --type int; expect err "below the type size"
run 2 guideline --coll allreduce --procs 2 --sizes 1Ki --factor 1; expect err "--factor is not a number above 1"
run 2 guideline --coll allreduce --procs 2 --sizes 1Ki --reps 0;  expect err "not a repetition count"
run 2 guideline --coll allreduce --procs 2 --sizes 1Ki --reps 9 --reps-max 3; expect err "--reps-max is below --reps"
run 2 guideline --coll allreduce --procs 0 --sizes 1Ki;  expect err "not a process count"
run 2 guideline --coll allreduce --procs 2 --sizes 1Ki --bogus 1; expect err "unknown option: --bogus"
run 0 guideline --help;                                   expect out "usage: safecoll guideline"
run 0 guideline --coll allreduce,bcast --procs 2,4 --sizes 1Ki-16Mi --dry-run
expect out "allreduce P=4 type=char: 15 sizes (1 KiB .. 16 MiB per rank)"
expect out "bcast P=2 type=char"
run 1 guideline --coll allreduce --procs 2 --sizes 1Ki --launcher 'no-such-launcher -n {P}'
expect err "allreduce P=2: the job failed (launcher exit status 127): cannot run the launcher 'no-such-launcher'"
# (The workers parse the fault: a job each.)
if ! lib_mpi_independent "guideline: malformed faults"; then
    SAFECOLL_PROBE_FAULT=kind=slow,delay=1ms run 1 guideline --coll allreduce --procs 2 --sizes 1Ki
    expect err "SAFECOLL_PROBE_FAULT: missing key 'coll'"
    SAFECOLL_PROBE_FAULT=kind=jitter,delay=1ms,class=gelem run 1 guideline --coll allreduce --procs 2 --sizes 1Ki
    expect err "kind=jitter takes no class or bound"
    SAFECOLL_PROBE_FAULT=kind=jitter,delay=1ms,calls=3 run 1 guideline --coll allreduce --procs 2 --sizes 1Ki
    expect err "kind=jitter takes no calls"
    SAFECOLL_PROBE_FAULT=kind=slow,coll=allreduce,delay=1ms,calls=0 run 1 guideline --coll allreduce --procs 2 --sizes 1Ki
    expect err "calls '0' is not a count of at least 1"
    SAFECOLL_PROBE_FAULT=kind=crash,class=gelem,bound=4,calls=2 run 1 guideline --coll allreduce --procs 2 --sizes 1Ki
    expect err "kind=crash takes class and bound only"
fi
SAFECOLL_PROBE_FAULT=kind=slow,coll=allreduce,above=0,delay=5s run 1 guideline --coll allreduce \
    --procs 2 --sizes 1Ki --time-limit 1
expect err "allreduce P=2: killed after the time limit of 1 s"
run 1 guideline --coll allreduce --procs 2 --sizes 1Ki --out /nonexistent/dir/x.bounds
expect err "/nonexistent/dir/x.bounds"
run 2 guideline --worker --coll allreduce,bcast --sizes 1Ki; expect err "--worker takes one collective"

# --- (d) the shipped performance records (data/known-bounds): on MPICH
# 4.0.2, the safe MPI_Allgatherv at P = 3 and 4 on an oversubscribed node
# (fewer processors than ranks, as on the 2-core machine they were measured
# on; or SAFECOLL_NODE_CONDITIONS says so) runs p2p past each record's
# bound, in chars and in ints, and the native call at or below it, at
# P = 2, and where the node is not oversubscribed; the verbose log names
# the record by its line. On any other library no record applies.
shipped=$lib_dir/../data/known-bounds
mpich402=0
if $MPIEXEC --version 2>&1 | grep -q HYDRA &&
    mpichversion 2>/dev/null | grep -q "^MPICH Version:[[:space:]]*4\.0\.2$"; then
    mpich402=1
fi
# safe_allgatherv P N STRATEGY [TYPE [CONDITIONS]]: the safe allgatherv of N
# elements of TYPE (char) per rank ran STRATEGY with the shipped records
# loaded, under SAFECOLL_NODE_CONDITIONS=CONDITIONS (detected when empty).
safe_allgatherv() {
    checks=$((checks + 1))
    SAFECOLL_KNOWN_BOUNDS=$shipped SAFECOLL_VERBOSE=1 \
        SAFECOLL_NODE_CONDITIONS=${5:-detect} $MPIEXEC -n "$1" "$tool" probe --safe \
        --coll allgatherv --n "$2" --type "${4:-char}" >"$out" 2>"$err"
    if ! grep -q "^safe: .*ran $3\$" "$out"; then
        failed=$((failed + 1))
        echo "FAIL: shipped records: allgatherv P=$1 n=$2 type=${4:-char} conditions=${5:-detect} did not run $3"
        sed 's/^/    | /' "$out" "$err" | tail -8
    fi
}
over="oversubscribed=yes,nodes=1"
if [ $mpich402 = 1 ]; then
    for P in 3 4; do
        line=$(grep -n "^collective=allgatherv kind=performance .* P=$P " "$shipped" | cut -d: -f1)
        bound=$(grep "^collective=allgatherv kind=performance .* P=$P " "$shipped" |
            sed 's/.* bound=\([0-9]*\) .*/\1/')
        # G_bytes is n*P chars (4*n*P in ints): the largest n at the bound,
        # and one more.
        safe_allgatherv $P $((bound / P)) native char "$over"
        safe_allgatherv $P $((bound / P + 1)) p2p char "$over"
        expect err "known-bounds:$line): class G: global buffer in bytes $(((bound / P + 1) * P)) > bound $bound, use=p2p -> p2p"
        safe_allgatherv $P $((bound / P / 4)) native int "$over"
        safe_allgatherv $P $((bound / P / 4 + 1)) p2p int "$over"
        # A node with a core per rank, or several nodes: not where the
        # records were measured.
        safe_allgatherv $P $((bound / P + 1)) native char "oversubscribed=no,nodes=1"
        safe_allgatherv $P $((bound / P + 1)) native char "oversubscribed=yes,nodes=many"
        # Detected: this machine, if it has fewer processors than ranks.
        if [ "$(getconf _NPROCESSORS_ONLN)" -lt $P ]; then
            safe_allgatherv $P $((bound / P + 1)) p2p
        fi
    done
    safe_allgatherv 2 1048576 native
    safe_allgatherv 2 1048576 native char "$over"
else
    safe_allgatherv 4 131072 native
    safe_allgatherv 4 131072 native char "$over"
fi

echo "  guideline: $checks checks, $failed failed"
[ "$failed" -eq 0 ]
