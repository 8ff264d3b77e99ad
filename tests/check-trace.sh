#!/usr/bin/env bash
# `safecoll trace analyze` on a synthetic trace: the sample that the unit
# test program writes with the library's own trace writer
# (SAFECOLL_TRACE_SYNTH=DIR tests/bin/unit/test_trace): a binomial
# broadcast twice, a ring allgather, a pairwise alltoall, a broadcast over
# the even ranks and a near miss, among noise.  Checks the table, the JSON
# lines, the exit codes of bad usage and of a corrupted file; then the
# measuring step (--measure): real MPI jobs (MPIEXEC) that time the
# replacing calls, and launchers that crash, hang or log what they were
# asked.  SAFECOLL_TEST_TRACE_MEASURE=0 skips the jobs.  `make check` runs
# it (make check-trace).
#
#   tests/check-trace.sh bin/safecoll tests/bin/unit/test_trace
#
# Prints one line per failed assertion and "trace: N checks, F failed";
# exit status non-zero when anything failed.  KEEP=1 keeps the scratch
# directory.
set -u

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
gen=${2:?usage: check-trace.sh TOOL TEST_TRACE}
case $gen in /*) ;; *) gen=$(pwd)/$gen ;; esac
lib_tool check-trace "${1:-}"
lib_scratch trace

# expect out|err TEXT: the last run's stdout or stderr holds TEXT.
expect() {
    local file=$out
    [ "$1" = err ] && file=$err
    checks=$((checks + 1))
    if ! grep -qF -- "$2" "$file"; then
        failed=$((failed + 1))
        echo "FAIL: $1 lacks: $2"
        sed 's/^/    | /' "$file" | head -20
    fi
}

SAFECOLL_TRACE_SYNTH=$scratch/t "$gen" || { echo "FAIL: the sample trace was not written"; exit 1; }

run 0 trace analyze t --json t.json
expect out "8 ranks, 286 events, 143 messages (0 sends or receives unmatched): 5 findings"
expect out "traced time 0.000285 s (first event to last)"
# The table, ranked by time: the allgather and the alltoall took longest.
expect out "  1  allgather     -  all 8             64      1  0.000111    38.9  yes"
expect out "  1  allgather     -  all 8             64      1"
expect out "  2  alltoall      -  all 8             32      1"
expect out "  3  bcast         3  all 8           4096      2"
expect out "bcast         0  0-6              100      1"
expect out "bcast         2  0,2,4,6          200      1"
expect out "replace with: MPI_Bcast(buf, 4096, MPI_BYTE, 3, MPI_COMM_WORLD)"
expect out "replace with: MPI_Bcast(buf, 200, MPI_BYTE, 1, comm)"
expect out "where MPI_Comm_split(MPI_COMM_WORLD, rank % 2 == 0 ? 0 : MPI_UNDEFINED, rank, &comm)"
expect out "near-match, not a match: it misses rank 7 of the job"
expect out "   at a2a.c:9"

# One JSON object a line, one per finding, in the table's order.
check "t.json has 5 lines" test "$(wc -l < t.json)" -eq 5
check "t.json line 1 is the allgather" \
    grep -q '^{"kind":"allgather","near":false,"root":-1,' <(sed -n 1p t.json)
check "t.json has the repeated broadcast" \
    grep -qF '"kind":"bcast","near":false,"root":3,"alternatives":0,"ranks":[0,1,2,3,4,5,6,7],"missing":[],"whole":true,"bytes":4096,"occurrences":2,"messages":14,' t.json
check "t.json has the near-match with its missing rank" \
    grep -qF '"near":true,"root":0,"alternatives":0,"ranks":[0,1,2,3,4,5,6],"missing":[7]' t.json
check "t.json has the split of the subset" \
    grep -qF '"split":"MPI_Comm_split(MPI_COMM_WORLD, rank % 2 == 0 ? 0 : MPI_UNDEFINED, rank, &comm)"' t.json
check "t.json says the replacement was not measured" \
    test "$(grep -c '"replace_seconds":null' t.json)" -eq 5
if command -v python3 >/dev/null 2>&1; then
    check "every line of t.json is a JSON object" \
        python3 -c 'import json,sys; [json.loads(l) for l in open(sys.argv[1])]' t.json
fi

# --near 0: the near miss is a broadcast over ranks 0-6.
run 0 trace analyze t --near 0
expect out "bcast         0  0-6              100      1  "
expect out "rank >= 0 && rank <= 6 ? 0 : MPI_UNDEFINED"
# --min-ranks 5: the subset of 4 is left out.
run 0 trace analyze t --min-ranks 5
expect out ": 4 findings"

# Usage errors.
run 2 trace analyze
expect err "missing DIR"
run 2 trace analyze t --min-ranks 2
expect err "--min-ranks takes a number of at least 3"
run 2 trace analyze t --bogus
expect err "unknown option: --bogus"
run 2 trace frobnicate
expect err "unknown command 'frobnicate'"
run 0 trace analyze --help
expect out "usage: safecoll trace analyze DIR [options]"

# --- The measuring step (--measure): one MPI job per replacing call, here
# five (the allgather, the alltoall and two broadcasts at P = 8, the
# subset's broadcast at P = 4), short ones (--budget 0.05). Every finding
# gets a measured time, a gain, and the note of where it was measured.
if [ "${SAFECOLL_TEST_TRACE_MEASURE:-1}" = 0 ]; then
    lib_skip trace-measure "SAFECOLL_TEST_TRACE_MEASURE=0"
else
    lib_mpiexec
    export TMPDIR=$scratch
    unset SAFECOLL_PROBE_FAULT SAFECOLL_STRATEGY
    started=$SECONDS
    run 0 trace analyze t --measure --budget 0.05 --json m.json
    echo "  the measured table ($((SECONDS - started)) s; times shown, not asserted):"
    sed -n '/^  #/,/^$/p' "$out" | sed 's/^/    | /'
    expect out "replacing calls timed here in 5 jobs (0 without a measurement): 5 of 5 findings measured"
    expect out "  #  kind       root  ranks          bytes  times   seconds %traced  match     replace      gain"
    expect out "measured here with 8 processes on 1 node (host $(hostname)"
    expect out "measured here with 4 processes on 1 node (host $(hostname)"
    if [ "$(getconf _NPROCESSORS_ONLN)" -lt 8 ]; then
        expect out "cores: oversubscribed), root 3"
    fi
    expect out "   estimated gain: "
    expect err "measure: bcast P=4 200 bytes: "
    check "measured: every row of the table has a replacement time and a gain" \
        test "$(awk '/^  #/ { on = 1; next } on && NF == 0 { exit }
                     on && $(NF - 1) + 0 > 0 && $NF ~ /^-?[0-9]+\.[0-9]+$/ { n++ } END { print n + 0 }' "$out")" -eq 5
    check "measured: no finding left unmeasured" test "$(grep -c 'not measured' "$out")" -eq 0
    check "m.json has a measured time and a gain on every line" \
        test "$(grep -cE '"replace_seconds":[0-9.e+-]+,"gain_seconds":-?[0-9.e+-]+,"measure_procs":(8|4),"measure_note":"the median of ' m.json)" -eq 5
    if command -v python3 >/dev/null 2>&1; then
        check "m.json: replace > 0, gain = seconds - replace, ranked by gain" python3 -c '
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
assert len(rows) == 5, rows
for r in rows:
    assert r["replace_seconds"] > 0, r
    assert abs(r["gain_seconds"] - (r["seconds"] - r["replace_seconds"])) < 1e-9, r
    assert r["measure_procs"] == (8 if r["whole"] or r["near"] else len(r["ranks"])), r
gains = [r["gain_seconds"] for r in rows]
assert gains == sorted(gains, reverse=True), gains' m.json
    fi

    # A launcher that crashes (P = 8) and one that hangs (P = 4, killed at
    # the time limit): findings without a measurement, each with its
    # reason, and the analysis still exits 0.
    # shellcheck disable=SC2016 # the script's own variables
    {
        echo '#!/bin/sh'
        echo 'p=$1; shift'
        echo '[ "$p" = 8 ] && kill -SEGV $$'
        echo '[ "$p" = 4 ] && exec sleep 60'
        echo "exec $MPIEXEC -n \"\$p\" \"\$@\""
    } > bad.sh
    chmod +x bad.sh
    started=$SECONDS
    run 0 trace analyze t --measure --launcher "$scratch/bad.sh {P}" --time-limit 2 --json bad.json
    check "a hung job costs its time limit, not more (took $((SECONDS - started)) s)" \
        test $((SECONDS - started)) -lt 15
    expect out "replacing calls timed here in 5 jobs (5 without a measurement): 0 of 5 findings measured"
    expect out "  1  allgather     -  all 8             64      1  0.000111    38.9  yes              -         -"
    expect out "   replacement time: not measured: the job failed (launcher signal 11)"
    expect out "   replacement time: not measured: the job was killed after its time limit of 2 s"
    expect err "measure: bcast P=4 200 bytes: not measured: the job was killed after its time limit of 2 s"
    expect err "measure: allgather P=8 64 bytes: not measured: the job failed (launcher signal 11)"
    check "bad.json: no time and no gain on any line, a reason on each" \
        test "$(grep -c '"replace_seconds":null,"gain_seconds":null,"measure_procs":null,"measure_note":"the job ' bad.json)" -eq 5

    # --max-procs: a job starts at most that many processes; the roots of
    # the P = 8 findings are taken modulo them (here 3 stays 3, 0 stays 0).
    # shellcheck disable=SC2016 # the script's own variables
    {
        echo '#!/bin/sh'
        echo 'echo "$*" >> "$(dirname "$0")/jobs.log"; exit 3'
    } > log.sh
    chmod +x log.sh
    run 0 trace analyze t --measure --max-procs 4 --launcher "$scratch/log.sh {P}"
    check "--max-procs 4: five jobs, each of 4 processes" \
        test "$(grep -c '^4 .* trace analyze --worker --kind [a-z]* --procs 4 ' jobs.log)" -eq 5
    check "--max-procs 4: the broadcast from rank 3 at its root" \
        grep -q -- '--kind bcast --procs 4 --bytes 4096 --type byte --op none --roots 3 ' jobs.log
    expect out "   replacement time: not measured: the job failed (launcher exit status 3)"

    # Options of the measuring step: bad values, and without --measure.
    run 2 trace analyze t --measure --time-limit 0
    expect err "--time-limit takes a positive number of seconds: 0"
    run 2 trace analyze t --measure --time-limit soon
    expect err "--time-limit takes a positive number of seconds: soon"
    run 2 trace analyze t --measure --max-procs 0
    expect err "--max-procs takes a number of at least 1: 0"
    run 2 trace analyze t --measure --budget -1
    expect err "--budget takes a positive number of seconds: -1"
    run 2 trace analyze t --measure --launcher ' '
    expect err "--launcher is empty"
    run 2 trace analyze t --measure --launcher
    expect err "missing value after: --launcher"
    run 2 trace analyze t --launcher 'mpiexec -n {P}'
    expect err "this option is for --measure: --launcher"
    run 2 trace analyze t --time-limit 5
    expect err "this option is for --measure: --time-limit"
    # The job's own mode refuses what the driver would never write.
    run 2 trace analyze --worker --kind bcast --procs 4 --bytes 8 --roots 4 --report r
    expect err "--roots is not a list of ranks below --procs (-1: none)"
    run 2 trace analyze t --worker
    expect err "--worker comes first"
fi

# Bad data: a JSON file that cannot be written, a missing directory, a
# corrupted file named in the message.
run 1 trace analyze t --json /nonexistent/dir/x.json
expect err "cannot write /nonexistent/dir/x.json"
run 1 trace analyze nowhere
expect err "cannot open the directory nowhere"
printf 'XXXX' | dd of=t/trace.5 bs=1 seek=200 conv=notrunc status=none
run 1 trace analyze t
expect err "t/trace.5: corrupted in block"

echo "trace: $checks checks, $failed failed"
[ "$failed" -eq 0 ]
