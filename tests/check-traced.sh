#!/usr/bin/env bash
# Hand-written collectives found in real traced programs (issue 33,
# section 4): each scenario of tests/mpi/test_traced.c runs under mpiexec
# with SAFECOLL_TRACE=DIR (the recorder, src/trace/record.c), checks its
# own results, and `safecoll trace analyze DIR --json` must give exactly
# the findings the pattern makes (kind, root, ranks, whole or subset with
# its MPI_Comm_split, near-match and the ranks it misses, bytes,
# occurrences, messages), and none for the negatives (a halo exchange, a
# master-worker queue with wildcard receives, unrelated messages with
# equal payloads, an empty kept piece before sends). Every call site of a
# finding must resolve (addr2line) to a line of the scenario marked
# `site: NAME`, and together to exactly the names expected. Also:
# SAFECOLL_TRACE=region:DIR against DIR, a rank that makes no wrapper call
# (no hang, an empty trace said on stderr, a near-match), and trace files
# of a real run truncated, corrupted, missing or from another run (exit 1,
# the file named).  `make check` runs it (make check-traced).
#
#   tests/check-traced.sh TOOL TEST_TRACED
#
# Prints one line per failed assertion and "traced: N checks, F failed";
# exit status non-zero when anything failed.  KEEP=1 keeps the scratch
# directory.
set -u

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/lib.sh"
bin=${2:?usage: check-traced.sh TOOL TEST_TRACED}
[ -x "$bin" ] || { echo "check-traced: $bin is not built" >&2; exit 2; }
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
src=$(cd "$(dirname "$0")/mpi" && pwd)/test_traced.c
lib_tool check-traced "${1:-}"
lib_mpiexec
lib_scratch traced

have_addr2line=0
if command -v addr2line >/dev/null 2>&1; then
    have_addr2line=1
else
    lib_skip "traced call sites" "addr2line (binutils) is not installed, so no call site is resolved to its source line"
fi

# job P SCENARIO TRACE_SPEC: the scenario under mpiexec with
# SAFECOLL_TRACE=TRACE_SPEC, 60 s at most; its output in run.SCENARIO.
job() {
    # shellcheck disable=SC2086 # MPIEXEC carries its flags
    SAFECOLL_TRACE=$3 timeout -k 5 60 $MPIEXEC -n "$1" "$bin" "$2" >"run.$2" 2>&1 </dev/null
}

# traced P SCENARIO [DIR [SPEC]]: runs the scenario traced into DIR
# (default t.SCENARIO; SAFECOLL_TRACE=SPEC, default DIR) and analyzes it
# into DIR.json; checks that the job passed its own checks and the
# analysis ran. $json is the JSON file.
traced() {
    local p=$1 s=$2 d=${3:-t.$2} st
    rm -rf "$d"
    job "$p" "$s" "${4:-$d}"
    st=$?
    check "$s: the job exits 0, its data checked, no hang (exit $st)" test "$st" -eq 0
    check "$s: no FAIL line in the job's output" test "$(grep -c '^FAIL' "run.$s")" -eq 0
    [ "$st" -eq 0 ] || sed 's/^/    | /' "run.$s" | tail -8
    json=$d.json
    run 0 trace analyze "$d" --json "$json"
    cp "$out" "$d.out"
    expect out "$p ranks, "
    expect out " (0 sends or receives unmatched): "
}

# lines KEY=VALUE...: the lines of $json whose keys have these values
# (a string without its quotes, a number, true, false, null, or an
# array's items without the brackets). One awk for all: forks are dear on
# a loaded machine.
lines() {
    awk -v spec="$(printf '%s\n' "$@")" '
        function val(line, key,   i, s) {
            i = index(line, "\"" key "\":")
            if (i == 0)
                return "\001"
            s = substr(line, i + length(key) + 3)
            if (substr(s, 1, 1) == "\"") {
                s = substr(s, 2)
                return substr(s, 1, index(s, "\"") - 1)
            }
            if (substr(s, 1, 1) == "[")
                return substr(s, 2, index(s, "]") - 2)
            match(s, /^[^,}]*/)
            return substr(s, 1, RLENGTH)
        }
        BEGIN { n = split(spec, kv, "\n") }
        {
            for (k = 1; k <= n; k++) {
                e = index(kv[k], "=")
                if (e > 0 && val($0, substr(kv[k], 1, e - 1)) != substr(kv[k], e + 1))
                    next
            }
            print
        }' "$json"
}

# count LABEL N: $json has N findings.
count() {
    local n
    n=$(wc -l <"$json")
    checks=$((checks + 1))
    if [ "$n" -ne "$2" ]; then
        failed=$((failed + 1))
        echo "FAIL: $1: $n findings, expected $2"
        sed 's/^/    | /' "${json%.json}.out" | head -30
    fi
}

# site_names SITE...: the site names (the comment `site: NAME` of the
# source line) of call sites, sorted, unique, on one line; `?FILE:LINE`
# for a line of no scenario. A site `binary+0xOFFSET` is a return
# address (the call is the byte before, addr2line gives its line); the
# switch header's sites are `FILE:LINE` already.
site_names() {
    local s offs=()
    for s in "$@"; do
        case $s in *+0x*) offs+=("$(printf '0x%x' $((${s##*+} - 1)))") ;; esac
    done
    {
        [ ${#offs[@]} -eq 0 ] || addr2line -e "$bin" "${offs[@]}" 2>/dev/null
        for s in "$@"; do case $s in *+0x*) ;; *) echo "$s" ;; esac; done
    } | sed 's/ (discriminator [0-9]*)$//' |
        awk -v src="$src" '
            BEGIN { while ((getline l < src) > 0) { n++; if (match(l, /site: [a-z0-9-]+/))
                        name[n] = substr(l, RSTART + 6, RLENGTH - 6) } }
            { f = $0; sub(/:[0-9?]*$/, "", f); ln = substr($0, length(f) + 2)
              if (f ~ /\/test_traced\.c$/ && (ln + 0) in name) print name[ln + 0]
              else print "?" $0 }' | sort -u | tr '\n' ' '
}

# finding LABEL KEY=VALUE... [-- SITE_NAME...]: exactly one finding of
# $json has these values, and its call sites resolve to exactly these
# site names (when given and addr2line is there).
finding() {
    local label=$1 kvs=() names=() got line n
    shift
    while [ $# -gt 0 ] && [ "$1" != -- ]; do kvs+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    names=("$@")
    n=$(lines "${kvs[@]}" | wc -l)
    checks=$((checks + 1))
    if [ "$n" -ne 1 ]; then
        failed=$((failed + 1))
        echo "FAIL: $label: $n findings with ${kvs[*]}, expected 1"
        sed 's/^/    | /' "${json%.json}.out" | head -30
        return
    fi
    [ ${#names[@]} -gt 0 ] || return 0
    line=$(lines "${kvs[@]}")
    line=${line##*\"sites\":[}
    # Return addresses need addr2line; the switch header's lines do not.
    case $line in *+0x*) [ $have_addr2line = 1 ] || return 0 ;; esac
    # shellcheck disable=SC2046 # one word per site
    got=$(site_names $(printf '%s\n' "${line%%]*}" | tr -d '"' | tr ',' ' '))
    local want
    want=$(printf '%s\n' "${names[@]}" | sort -u | tr '\n' ' ')
    check "$label: its call sites are the lines of $want(got: $got)" test "$got" = "$want"
}

P=4
all=0,1,2,3

# ---- paper 001, Fig. 6: broadcasts among noise
traced $P fig6a
count "fig6a (a chain among noise)" 1
finding "fig6a: the chain from rank 1, 3 times, the noise left out" kind=bcast root=1 \
    ranks=$all whole=true near=false alternatives=0 bytes=1000 occurrences=3 messages=9 \
    -- 6a-recv 6a-send

traced $P fig6b
count "fig6b (a redundant message)" 2
for r in 0 1; do
    finding "fig6b: rank $r, one of two possible roots" kind=bcast root=$r ranks=$all whole=true \
        near=false alternatives=1 bytes=1000 occurrences=3 messages=12 \
        -- 6b-swap 6b-recv 6b-send
done

traced $P fig6c
count "fig6c (the same broadcast twice)" 1
finding "fig6c: one broadcast of 1000 bytes, twice (not one of 2000 bytes)" kind=bcast root=0 \
    ranks=$all whole=true bytes=1000 occurrences=2 messages=6 -- 6c-recv 6c-send

traced $P fig6d
count "fig6d (a token and the broadcasts of its holders)" $((P + 1))
finding "fig6d: the token from rank 0" kind=bcast root=0 ranks=$all bytes=8 occurrences=1 \
    messages=3 -- 6d-token-send 6d-token-recv
for r in 1 2 3; do
    finding "fig6d: the inner broadcast of rank $r" kind=bcast root=$r ranks=$all bytes=1000 \
        occurrences=1 messages=3 -- 6d-inner-send 6d-inner-recv
done
finding "fig6d: rank 0's own broadcast" kind=bcast root=0 ranks=$all bytes=1000 occurrences=1 \
    messages=3 -- 6d-root-send 6d-root-recv

# ---- broadcasts of other shapes
traced $P binomial
count binomial 1
finding "binomial: from rank 2, 3 times" kind=bcast root=2 ranks=$all whole=true near=false \
    bytes=4096 occurrences=3 messages=9 \
    "call=MPI_Bcast(buf, 4096, MPI_BYTE, 2, MPI_COMM_WORLD)" -- bino-recv bino-send

traced $P pipeline
count pipeline 1
finding "pipeline: 4 segments of 512 bytes are one broadcast of 2048" kind=bcast root=0 \
    ranks=$all bytes=2048 occurrences=3 messages=36 \
    "detail=segments (pipelined, or scatter+allgather): 4 broadcasts at once over the same ranks" \
    -- pipe-recv pipe-send

traced $P scag
count "scag (scatter + ring allgather)" 1
finding "scag: the pieces of rank 3 are one broadcast of P pieces" kind=bcast root=3 \
    ranks=$all bytes=$((P * 256)) occurrences=3 messages=$((3 * (P * P - 1))) \
    "detail=segments (pipelined, or scatter+allgather): $P broadcasts at once over the same ranks" \
    -- scag-scatter scag-ring

# ---- allgather, alltoall, barrier
traced 8 ring
count "ring (allgather of safecoll_sendrecv, P = 8)" 1
finding "ring: an allgather at P = 8" kind=allgather root=-1 ranks=0,1,2,3,4,5,6,7 whole=true \
    bytes=256 occurrences=3 messages=$((3 * 8 * 7)) \
    "call=MPI_Allgather(sendbuf, 256, MPI_BYTE, recvbuf, 256, MPI_BYTE, MPI_COMM_WORLD)" -- ring

traced $P alltoall
count "alltoall (pairwise exchange)" 1
finding "alltoall: pairwise exchange" kind=alltoall root=-1 ranks=$all whole=true bytes=128 \
    occurrences=3 messages=$((3 * P * (P - 1))) -- a2a

traced $P barrier
count "barrier (dissemination)" 1
finding "barrier: dissemination, 3 times" kind=barrier root=-1 ranks=$all whole=true bytes=0 \
    occurrences=3 messages=$((3 * P * 2)) "call=MPI_Barrier(MPI_COMM_WORLD)" -- barrier

# ---- with the data a root keeps (safecoll_trace_self)
traced $P gather
count gather 1
finding "gather: to rank 1, its piece kept" kind=gather root=1 ranks=$all whole=true bytes=512 \
    occurrences=3 messages=9 \
    "call=MPI_Gather(sendbuf, 512, MPI_BYTE, recvbuf, 512, MPI_BYTE, 1, MPI_COMM_WORLD)" \
    -- gather-self gather-recv gather-send

traced $P scatter
count scatter 1
finding "scatter: from rank 2, its piece kept" kind=scatter root=2 ranks=$all whole=true \
    bytes=512 occurrences=3 messages=9 \
    "call=MPI_Scatter(sendbuf, 512, MPI_BYTE, recvbuf, 512, MPI_BYTE, 2, MPI_COMM_WORLD)" \
    -- scatter-self scatter-send scatter-recv

traced $P reduce
count "reduce (integer sum)" 1
finding "reduce: an int sum to rank 0, 3 times" kind=reduce root=0 ranks=$all whole=true \
    bytes=256 occurrences=3 messages=9 \
    "call=MPI_Reduce(sendbuf, recvbuf, 64, MPI_INT32_T, MPI_SUM, 0, MPI_COMM_WORLD)" \
    -- reduce-self reduce-recv reduce-result reduce-send

# ---- over a subset; a near-match
traced 8 subset
count "subset (the even ranks of 8)" 1
finding "subset: over the even ranks, with its split" kind=bcast root=2 ranks=0,2,4,6 \
    whole=false near=false bytes=1000 occurrences=3 messages=9 \
    "call=MPI_Bcast(buf, 1000, MPI_BYTE, 1, comm)" \
    "split=MPI_Comm_split(MPI_COMM_WORLD, rank % 2 == 0 ? 0 : MPI_UNDEFINED, rank, &comm)" \
    -- sub-recv sub-send

traced $P near
count "near (all ranks but the last)" 1
finding "near: a near-match that misses rank 3" kind=bcast near=true root=0 ranks=0,1,2 \
    missing=3 whole=false bytes=1000 occurrences=3 messages=6 -- near-recv near-send

# ---- negatives: no finding
for s in halo master equal; do
    traced $P $s
    count "$s (no collective)" 0
    expect out ": 0 findings"
done
# equal: every message matched, though payloads repeat.
expect out "$P ranks, 36 events, 18 messages (0 sends or receives unmatched): 0 findings"
# An empty kept piece before a fan-out: no scatter, and no crash.
traced $P emptyself
count "emptyself (an empty kept piece, then sends)" 0
expect out "$P ranks, 21 events, 9 messages (0 sends or receives unmatched): 0 findings"

# ---- SAFECOLL_TRACE=region:DIR: only what lies between
# safecoll_trace_start() and safecoll_trace_stop(); with DIR, every message.
traced $P region t.region-only region:t.region-only
count "region:DIR" 1
expect out "$P ranks, 6 events, 3 messages"
finding "region:DIR: only the broadcast from rank 1" kind=bcast root=1 ranks=$all occurrences=1 \
    messages=3 -- region
traced $P region t.region-all
count "DIR with safecoll_trace_start and _stop called: every message, until MPI_Finalize" 3
for r in 0 1 2; do
    finding "DIR: the broadcast from rank $r" kind=bcast root=$r ranks=$all occurrences=1 \
        messages=3 -- region
done

# ---- a rank that makes no wrapper call: no hang; its trace is empty and
# the recorder says so once; the rest is a near-match that misses it.
traced $P idle
check "idle: rank 3's empty trace is said once" \
    test "$(grep -c "libsafecoll: SAFECOLL_TRACE=t.idle: rank 3 made no traced point-to-point call (safecoll_ wrapper or safecoll_trace_self): its trace t.idle/trace.3 is empty" run.idle)" -eq 1
check "idle: the other ranks say nothing" \
    test "$(grep -c "libsafecoll: SAFECOLL_TRACE" run.idle)" -eq 1
count "idle" 1
finding "idle: a near-match that misses the idle rank" kind=bcast near=true root=0 ranks=0,1,2 \
    missing=3 occurrences=3 messages=6 -- near-recv near-send

# ---- a rank that dies of a signal: its trace is closed by the recorder's
# handler, whole (its END block written), and reads as any other.
rm -rf t.crash
job 1 crash t.crash
st=$?
check "crash: the job dies of the signal (exit $st), no hang" test "$st" -ne 0 -a "$st" -ne 124
check "crash: it ran up to the signal" grep -q "^crash: 5 messages to itself, now SIGSEGV" run.crash
run 0 trace analyze t.crash
expect out "1 ranks, 10 events, 5 messages (0 sends or receives unmatched): 0 findings"

# ---- MPI's names under <safecoll/switch.h>: the sites are the source
# lines themselves; the library's own MPI_Bcast, on point-to-point
# messages, is in the trace flagged and left out of the analysis.
SAFECOLL_STRATEGY=all=p2p traced $P mpinames
count "mpinames (MPI_Send and MPI_Recv through the switch header)" 1
finding "mpinames: the binomial broadcast from rank 1, its sites file:line" kind=bcast root=1 \
    ranks=$all whole=true bytes=1000 occurrences=3 messages=9 -- names-recv names-send
check "mpinames: the sites are the switch header's tests/mpi/test_traced.c:LINE" \
    grep -q '"sites":\["tests/mpi/test_traced.c:[0-9]*","tests/mpi/test_traced.c:[0-9]*"\]' "$json"
# The library's messages: records beyond the two of each matched message.
ev=$(sed -n 's/^[0-9]* ranks, \([0-9]*\) events, \([0-9]*\) messages .*/\1 \2/p' t.mpinames.out)
check "mpinames: the library's own messages are in the trace, left out (events, messages: $ev)" \
    test "${ev% *}" -gt $((2 * ${ev#* }))

# ---- trace files of a real run, damaged: exit 1 and the file named
bad() { # bad LABEL TEXT: the analysis of t.bad fails, naming what is wrong
    run 1 trace analyze t.bad
    expect err "$2"
}
rm -rf t.bad && cp -r t.binomial t.bad && truncate -s -8 t.bad/trace.2
bad "truncated" "safecoll: trace analyze: t.bad/trace.2: truncated (its block"
# The first block's payload starts after the 56-byte header and a 16-byte
# block header.
rm -rf t.bad && cp -r t.binomial t.bad &&
    printf '\377' | dd of=t.bad/trace.1 bs=1 seek=80 conv=notrunc status=none
bad "corrupted" "safecoll: trace analyze: t.bad/trace.1: corrupted in block 1"
rm -rf t.bad && cp -r t.binomial t.bad && rm t.bad/trace.3
bad "missing" "safecoll: trace analyze: cannot open t.bad/trace.3"
rm -rf t.bad && cp -r t.binomial t.bad && cp t.fig6a/trace.1 t.bad/trace.1
bad "another run's file" "safecoll: trace analyze: t.bad/trace.1: of recording "

echo "traced: $checks checks, $failed failed"
[ "$failed" -eq 0 ]
