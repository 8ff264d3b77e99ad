#!/usr/bin/env bash
# Record and replay (SAFECOLL_REPLAY, include/safecoll/p2p.h) with
# tests/mpi/test_replay.c: native runs in two arrival orders give different
# bits; a run recorded in one order and replayed in the other gives the
# recorded output exactly (sum, master-worker with Waitany, the polled
# master-worker with probes and *some, the combined mode with the safe
# collectives on p2p strategies, 96 receives outstanding at once, and 64 KiB
# messages through every blocking completion, the wrappers no other
# scenario calls (safecoll_isend, _imrecv, _testall, and
# safecoll_replay_flush, checked on disk), payloads from 100 B to
# 70 KiB whose receive buffers are overwritten at once, over several log
# blocks, a ring of MPI_Sendrecv and MPI_Sendrecv_replace from
# MPI_ANY_SOURCE, and persistent receives from MPI_ANY_SOURCE started with
# MPI_Startall and MPI_Start); every scenario checks its own results (each message taken once,
# with its content) and exits 1 when one is wrong; the replay's premise,
# that the native run in the replay's order gives another output than the
# recording, is checked for each scenario, and where this machine did not
# separate the orders the scenario's reordering is a SKIP with its reason,
# not a pass. A rank that sends with the plain MPI_Send, or makes no MPI
# call at all, hangs neither record nor replay, and is named. An altered
# payload is reported at the right call; a bad log ends the job with a
# message naming the file, never a hang.
#
#   tests/check-replay.sh TEST_REPLAY_BINARY
set -uo pipefail

. "$(dirname "$0")/lib.sh"
bin=${1:?usage: check-replay.sh TEST_REPLAY_BINARY}
[ -x "$bin" ] || { echo "check-replay: $bin is not built" >&2; exit 2; }
case $bin in /*) ;; *) bin=$(pwd)/$bin ;; esac
src=$(cd "$(dirname "$0")/mpi" && pwd)/test_replay.c
lib_mpiexec
lib_scratch replay

P=3
# job OUT ENV... -- ARGS: the test program under mpiexec, 60 s at most.
job() {
    local o=$1
    shift
    local envs=()
    while [ "$1" != -- ]; do envs+=("$1"); shift; done
    shift
    # shellcheck disable=SC2086 # MPIEXEC carries its flags
    env "${envs[@]}" timeout -k 5 60 $MPIEXEC -n $P "$bin" "$@" >"$o" 2>&1 </dev/null
}
ok() { # ok LABEL COMMAND...: one check
    checks=$((checks + 1))
    if ! "${@:2}"; then failed=$((failed + 1)); echo "FAIL: $1"; fi
}
outs() { grep -a '^out:\|^ [0-9]' "$1"; }
differ() { ! cmp -s <(outs "$1") <(outs "$2"); }

for s in sum master poll combined many big calls stage ring persist plain; do
    extra=()
    [ $s = combined ] && extra=(SAFECOLL_STRATEGY=all=p2p)
    job rec.$s "${extra[@]}" SAFECOLL_TEST_ORDER=a SAFECOLL_REPLAY=record:log.$s -- $s
    st=$?
    ok "$s: the recording exits 0, its results checked (got $st)" test $st -eq 0
    ok "$s: the recording printed its results" grep -q '^out:' rec.$s
    job rep.$s "${extra[@]}" SAFECOLL_TEST_ORDER=b SAFECOLL_REPLAY=replay:log.$s -- $s
    st=$?
    ok "$s: the replay exits 0, its results checked (got $st)" test $st -eq 0
    ok "$s: the replay gives the recorded output" cmp -s <(outs rec.$s) <(outs rep.$s)
    ok "$s: no error in the recording nor the replay" \
        bash -c '! grep -q "DIVERGED\|FAIL" "$1" "$2"' _ rec.$s rep.$s
    # The premise: natively, the replay's order gives another output than
    # the recording's. Where it does not (the machine's scheduling merged
    # the two orders), the replay above was not put to the test.
    job nat.$s "${extra[@]}" SAFECOLL_TEST_ORDER=b -- $s
    st=$?
    ok "$s: the native run in order b exits 0 (got $st)" test $st -eq 0
    if ! cmp -s <(outs rec.$s) <(outs nat.$s); then
        ok "$s: the replay in order b differs from the native run in order b" \
            differ rep.$s nat.$s
    else
        lib_skip "replay $s reorders" "the native run in order b gave the recorded output of order a here (a loaded machine), so the replay's order was not put to the test"
    fi
done

# A rank that makes no wrapper call: plain, rank 2 sends with the plain
# MPI_Send; idle, rank 2 makes no MPI call at all. Neither hangs (the
# first wrapper call is no collective), and the library names the rank.
no_call="rank 2 made no safecoll_ point-to-point call, so it has no log"
ok "plain: the recording names rank 2, once" test "$(grep -c "$no_call" rec.plain)" -eq 1
ok "plain: no log of rank 2, logs of ranks 0 and 1" \
    test ! -e log.plain/rank-2.screp -a -e log.plain/rank-0.screp -a -e log.plain/rank-1.screp
ok "plain: the replay names the rank without a log, once" \
    test "$(grep -c "replay: log.plain has no log of 1 rank (2): it made no safecoll_" rep.plain)" -eq 1
job rec.idle SAFECOLL_TEST_ORDER=a SAFECOLL_REPLAY=record:log.idle -- idle
st=$?
ok "idle: the recording exits 0 (got $st)" test $st -eq 0
ok "idle: the recording names rank 2, once" test "$(grep -c "$no_call" rec.idle)" -eq 1
job rep.idle SAFECOLL_TEST_ORDER=b SAFECOLL_REPLAY=replay:log.idle -- idle
st=$?
ok "idle: the replay exits 0 (got $st)" test $st -eq 0
ok "idle: the replay gives the recorded output" \
    bash -c 'grep -q "^out:" "$1" && cmp -s <(grep "^out:\|^recv" "$1") <(grep "^out:\|^recv" "$2")' \
    _ rec.idle rep.idle
ok "idle: the replay names the rank without a log" \
    grep -q "replay: log.idle has no log of 1 rank (2)" rep.idle
# Rank 1 had a log, and now makes no wrapper call: said at its exit.
job rep.idle1 SAFECOLL_TEST_ORDER=b SAFECOLL_TEST_PLAIN=1 SAFECOLL_REPLAY=replay:log.idle -- idle
st=$?
ok "idle, rank 1 plain in the replay: exits 0 (got $st)" test $st -eq 0
ok "idle, rank 1 plain in the replay: rank 1's unused log is named" \
    grep -q "rank 1 made no safecoll_ point-to-point call, but the recording did: its log log.idle/rank-1.screp was not replayed" rep.idle1

# An altered payload: rank 2's third message, in rank 0's receive i, its
# call i.
n=$(sed -n 's/^recv \([0-9]*\) from 2 msg 2$/\1/p' rec.sum)
job pert SAFECOLL_TEST_ORDER=b SAFECOLL_TEST_PERTURB=1 SAFECOLL_REPLAY=replay:log.sum -- sum
st=$?
ok "pert: the job fails (exit $st), no hang" test $st -ne 0 -a $st -ne 124 -a $st -ne 137
ok "perturbed: reported on rank 0 at call $n, source 2" \
    grep -q "replay diverged on rank 0 at call $n: .*from source 2 tag 12, CRC-32 .*call site .*test_replay+0x" pert

# The call site resolves to the receive's line of the source.
site=$(sed -n 's/.*call site [^ ]*test_replay+\(0x[0-9a-f]*\).*/\1/p' pert | head -n 1)
line=$(grep -n 'check(MPI_Recv(m, 1, strided' "$src" | cut -d: -f1)
ok "perturbed: a call site offset reported, a receive line found" test -n "$site" -a -n "$line"
if command -v addr2line >/dev/null 2>&1; then
    ok "perturbed: the call site $site is test_replay.c:$line" \
        grep -q "test_replay.c:$line\b" <(addr2line -e "$bin" "$site")
else
    lib_skip "replay call site" "addr2line is not installed"
fi
job pert2 SAFECOLL_TEST_ORDER=b SAFECOLL_TEST_PERTURB=2 SAFECOLL_REPLAY=replay:log.poll -- poll
st=$?
ok "pert2: the job fails (exit $st), no hang" test $st -ne 0 -a $st -ne 124 -a $st -ne 137
ok "perturbed int payload: reported on rank 0, source 2 tag 7" \
    grep -q "replay diverged on rank 0 at call [0-9]*: .*from source 2 tag 7, CRC-32 " pert2

job pert4 SAFECOLL_TEST_ORDER=b SAFECOLL_TEST_PERTURB=4 SAFECOLL_REPLAY=replay:log.poll -- poll
st=$?
ok "pert4: the job fails (exit $st), no hang" test $st -ne 0 -a $st -ne 124 -a $st -ne 137
ok "perturbed 1252-byte payload: reported on rank 0, source 2 tag 7" \
    grep -q "replay diverged on rank 0 at call [0-9]*: .*from source 2 tag 7, CRC-32 " pert4

job pert5 SAFECOLL_TEST_ORDER=b SAFECOLL_TEST_PERTURB=5 SAFECOLL_REPLAY=replay:log.big -- big
st=$?
ok "pert5: the job fails (exit $st), no hang" test $st -ne 0 -a $st -ne 124 -a $st -ne 137
ok "perturbed 64 KiB payload (completed by MPI_Waitsome): reported on rank 0, source 2 tag 30" \
    grep -q "replay diverged on rank 0 at call [0-9]*: .*from source 2 tag 30, CRC-32 " pert5

job pert3 SAFECOLL_TEST_ORDER=b SAFECOLL_TEST_PERTURB=3 SAFECOLL_REPLAY=replay:log.many -- many
st=$?
ok "pert3: the job fails (exit $st), no hang" test $st -ne 0 -a $st -ne 124 -a $st -ne 137
ok "perturbed hole-free derived type: reported on rank 0, source 2 tag 20" \
    grep -q "replay diverged on rank 0 at call [0-9]*: .*from source 2 tag 20, CRC-32 " pert3

# rank 2's 8th phase-B message of the stage scenario, 4 KiB: altered, the
# replay reports it at the completion step that received it, not later.
c=$(sed -n 's/^stage call \([0-9]*\):\(.* \)\?2:7\( .*\)\?$/\1/p' rec.stage)
if [ "${c:-0}" -gt 0 ]; then prev="stage call $((c - 1)):"; else prev="out: stage A"; fi
job pert6 SAFECOLL_TEST_ORDER=b SAFECOLL_TEST_PERTURB=6 SAFECOLL_REPLAY=replay:log.stage -- stage
st=$?
ok "pert6: the job fails (exit $st), no hang" test $st -ne 0 -a $st -ne 124 -a $st -ne 137
ok "perturbed 4 KiB payload (stage): reported on rank 0, source 2 tag 41" \
    grep -q "replay diverged on rank 0 at call [0-9]*: .*from source 2 tag 41, CRC-32 " pert6
ok "perturbed 4 KiB payload (stage): reported at step ${c:-?}, the one that received it" \
    bash -c 'test -n "$1" && sed -n "/^DIVERGED/q; /^stage call \|^out: stage A/p" "$2" |
        tail -n 1 | grep -q "^$3"' _ \
    "$c" pert6 "$prev"

# Bad logs: the rank that finds the fault says why and ends the job
# (MPI_Abort), so no rank waits for it; no hang. A header fault is found by
# every rank that reads the directory, so several may say it before the
# job ends; a fault in the body by its own rank.
bad() { # bad LABEL EXPECTED_TEXT [SCENARIO]
    job bad SAFECOLL_REPLAY=replay:badlog -- "${3:-sum}"
    local st=$?
    ok "$1: the job fails (exit $st), no hang" test $st -ne 0 -a $st -ne 124
    ok "$1: a rank reports it, and that it ends the job" \
        grep -q 'libsafecoll: SAFECOLL_REPLAY.*(MPI_Abort: a rank that cannot record or replay ends the job)' bad
    ok "$1: the message says \"$2\"" grep -q "$2" bad
}
rm -rf badlog && cp -r log.sum badlog && rm badlog/rank-1.screp
bad "missing log" "rank 1: cannot open the log"
rm -rf badlog && cp -r log.sum badlog && truncate -s -7 badlog/rank-2.screp
bad "truncated log" "rank 2: the log .* is truncated"
# The layout (doc/debugging.md): a 304-byte header, then blocks of a
# 16-byte block header and 32-byte records.
rm -rf badlog && cp -r log.sum badlog && truncate -s -32 badlog/rank-0.screp
bad "log cut at a record" "rank 0: the log .* is truncated (its block 1 lacks records)"
rm -rf badlog && cp -r log.sum badlog && truncate -s 304 badlog/rank-0.screp
bad "log cut after its header" "rank 0: the log .* is truncated (no end record after its 0 records)"
rm -rf badlog && cp -r log.sum badlog &&
    printf '\377' | dd of=badlog/rank-0.screp bs=1 seek=332 conv=notrunc status=none
bad "corrupted record" "rank 0: the log .* is corrupted in block 1, records 1-[0-9]* (bad CRC)"
rm -rf badlog && cp -r log.sum badlog &&
    printf '\377' | dd of=badlog/rank-0.screp bs=1 seek=308 conv=notrunc status=none
bad "corrupted block header" "rank 0: the log .* is corrupted at block 1, after record 0"
rm -rf badlog && cp -r log.sum badlog && cp badlog/rank-1.screp badlog/rank-0.screp
bad "another rank's log" "was recorded by rank 1 of 3"
rm -rf badlog && mkdir badlog && P=2 job rec2 SAFECOLL_REPLAY=record:badlog -- sum
cp log.sum/rank-2.screp badlog/
bad "a log of another P" "was recorded by rank [01] of 2"

# Logs of two recordings in one directory (each log carries its
# recording's id): a log left by an earlier recording of a rank that
# makes no wrapper call now (rank 2 of idle, recorded over a copy of
# log.sum), and a log copied in from another recording of the same
# program and P. Every rank that reads the directory names the stale file.
rm -rf badlog && cp -r log.sum badlog
job rec.stale SAFECOLL_TEST_ORDER=a SAFECOLL_REPLAY=record:badlog -- idle
st=$?
ok "stale: the recording over an earlier one exits 0 (got $st)" test $st -eq 0
ok "stale: rank 2's log is the earlier recording's" cmp -s badlog/rank-2.screp log.sum/rank-2.screp
ok "stale: ranks 0 and 1 rewrote theirs" \
    bash -c '! cmp -s badlog/rank-0.screp log.sum/rank-0.screp && ! cmp -s badlog/rank-1.screp log.sum/rank-1.screp'
stale="the logs in badlog are of more than one recording: rank-2.screp is of another recording (.*) than rank-0.screp, rank-1.screp ("
bad "a log left by an earlier recording" "$stale" idle
ok "a log left by an earlier recording: named by a replaying rank (0 or 1)" \
    test "$(grep -c "rank [01]: $stale" bad)" -ge 1
rm -rf badlog && mkdir badlog
job rec.again SAFECOLL_TEST_ORDER=a SAFECOLL_REPLAY=record:badlog -- sum
st=$?
ok "again: a second recording of sum exits 0 (got $st)" test $st -eq 0
job rep.again SAFECOLL_TEST_ORDER=b SAFECOLL_REPLAY=replay:badlog -- sum
st=$?
ok "again: its own replay exits 0 (got $st)" test $st -eq 0
ok "again: its own replay gives its recorded output" cmp -s <(outs rec.again) <(outs rep.again)
cp log.sum/rank-1.screp badlog/
bad "a log copied in from another recording" \
    "the logs in badlog are of more than one recording: rank-1.screp is of another recording (.*) than rank-0.screp, rank-2.screp ("

# A log that cannot be created: said by the rank, and the job ends.
: >afile
job bad SAFECOLL_REPLAY=record:afile/logs -- sum
st=$?
ok "an uncreatable record directory: the job fails (exit $st), no hang" \
    test $st -ne 0 -a $st -ne 124
ok "an uncreatable record directory: a rank says why" \
    grep -q "libsafecoll: SAFECOLL_REPLAY: rank [0-2]: cannot make the directory afile/logs: Not a directory (MPI_Abort" bad

job bad SAFECOLL_REPLAY=sideways -- sum
st=$?
ok "a bad SAFECOLL_REPLAY value: the job fails (exit $st), no hang" test $st -ne 0 -a $st -ne 124
ok "a bad SAFECOLL_REPLAY value: a rank says why" \
    grep -q "libsafecoll: SAFECOLL_REPLAY='sideways': expected record:DIR or replay:DIR" bad

echo "  replay: $checks checks, $failed failed"
[ "$failed" -eq 0 ]
