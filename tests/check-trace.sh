#!/usr/bin/env bash
# `safecoll trace analyze` on a synthetic trace: the sample that the unit
# test program writes with the library's own trace writer
# (SAFECOLL_TRACE_SYNTH=DIR tests/bin/unit/test_trace): a binomial
# broadcast twice, a ring allgather, a pairwise alltoall, a broadcast over
# the even ranks and a near miss, among noise.  Checks the table, the JSON
# lines, the exit codes of bad usage and of a corrupted file.  `make check`
# runs it (make check-trace).
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
