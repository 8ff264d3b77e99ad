#!/usr/bin/env bash
# Record and replay (SAFECOLL_REPLAY, include/safecoll/p2p.h) with
# tests/mpi/test_replay.c: native runs in two arrival orders give different
# bits; a run recorded in one order and replayed in the other gives the
# recorded output exactly (sum, master-worker with Waitany, the polled
# master-worker with probes and *some, the combined mode with the safe
# collectives on p2p strategies, 96 receives outstanding at once, and 64 KiB
# messages through every blocking completion, and payloads from 100 B to
# 70 KiB whose receive buffers are overwritten at once, over several log
# blocks); an altered payload is reported at the right call; bad logs are
# an error on every rank, never a hang.
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

# Native: the two orders give different bits.
job nat.a SAFECOLL_TEST_ORDER=a -- sum
job nat.b SAFECOLL_TEST_ORDER=b -- sum
ok "native sums differ between the orders ($(outs nat.a) / $(outs nat.b))" \
    bash -c '! cmp -s <(grep "^out:" nat.a) <(grep "^out:" nat.b)'

for s in sum master poll combined many big stage; do
    extra=()
    [ $s = combined ] && extra=(SAFECOLL_STRATEGY=all=p2p)
    job rec.$s "${extra[@]}" SAFECOLL_TEST_ORDER=a SAFECOLL_REPLAY=record:log.$s -- $s
    ok "$s: the recording ran (exit $?)" grep -q '^out:' rec.$s
    job rep.$s "${extra[@]}" SAFECOLL_TEST_ORDER=b SAFECOLL_REPLAY=replay:log.$s -- $s
    st=$?
    ok "$s: the replay exits 0 (got $st)" test $st -eq 0
    ok "$s: the replay gives the recorded output" cmp -s <(outs rec.$s) <(outs rep.$s)
    ok "$s: no error in the recording nor the replay" bash -c '! grep -q DIVERGED "$1" "$2"' _ \
        rec.$s rep.$s
    [ $s = sum ] && ok "sum: the replay differs from the native run in its order" \
        bash -c '! cmp -s <(grep "^out:" rep.sum) <(grep "^out:" nat.b)'
done

# An altered payload: rank 2's third message, in rank 0's receive i, its
# call i + 1 (the program's first call is an iprobe).
n=$(sed -n 's/^recv \([0-9]*\) from 2 msg 2$/\1/p' rec.sum)
n=$((n + 1))
job pert SAFECOLL_TEST_ORDER=b SAFECOLL_TEST_PERTURB=1 SAFECOLL_REPLAY=replay:log.sum -- sum
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
ok "perturbed int payload: reported on rank 0, source 2 tag 7" \
    grep -q "replay diverged on rank 0 at call [0-9]*: .*from source 2 tag 7, CRC-32 " pert2

job pert4 SAFECOLL_TEST_ORDER=b SAFECOLL_TEST_PERTURB=4 SAFECOLL_REPLAY=replay:log.poll -- poll
ok "perturbed 1252-byte payload: reported on rank 0, source 2 tag 7" \
    grep -q "replay diverged on rank 0 at call [0-9]*: .*from source 2 tag 7, CRC-32 " pert4

job pert5 SAFECOLL_TEST_ORDER=b SAFECOLL_TEST_PERTURB=5 SAFECOLL_REPLAY=replay:log.big -- big
ok "perturbed 64 KiB payload (completed by MPI_Waitsome): reported on rank 0, source 2 tag 30" \
    grep -q "replay diverged on rank 0 at call [0-9]*: .*from source 2 tag 30, CRC-32 " pert5

job pert3 SAFECOLL_TEST_ORDER=b SAFECOLL_TEST_PERTURB=3 SAFECOLL_REPLAY=replay:log.many -- many
ok "perturbed hole-free derived type: reported on rank 0, source 2 tag 20" \
    grep -q "replay diverged on rank 0 at call [0-9]*: .*from source 2 tag 20, CRC-32 " pert3

# rank 2's 8th phase-B message of the stage scenario, 4 KiB: altered, the
# replay reports it at the completion step that received it, not later.
c=$(sed -n 's/^stage call \([0-9]*\):\(.* \)\?2:7\( .*\)\?$/\1/p' rec.stage)
if [ "${c:-0}" -gt 0 ]; then prev="stage call $((c - 1)):"; else prev="out: stage A"; fi
job pert6 SAFECOLL_TEST_ORDER=b SAFECOLL_TEST_PERTURB=6 SAFECOLL_REPLAY=replay:log.stage -- stage
ok "perturbed 4 KiB payload (stage): reported on rank 0, source 2 tag 41" \
    grep -q "replay diverged on rank 0 at call [0-9]*: .*from source 2 tag 41, CRC-32 " pert6
ok "perturbed 4 KiB payload (stage): reported at step ${c:-?}, the one that received it" \
    bash -c 'test -n "$1" && sed -n "/^DIVERGED/q; /^stage call \|^out: stage A/p" "$2" |
        tail -n 1 | grep -q "^$3"' _ \
    "$c" pert6 "$prev"

# Bad logs: an error on every rank, no hang.
bad() { # bad LABEL EXPECTED_TEXT
    job bad SAFECOLL_REPLAY=replay:badlog -- sum
    local st=$?
    ok "$1: the job fails (exit $st), no hang" test $st -ne 0 -a $st -ne 124
    ok "$1: every rank reports it" test "$(grep -c 'libsafecoll: SAFECOLL_REPLAY' bad)" -eq $P
    ok "$1: the message says \"$2\"" grep -q "$2" bad
}
rm -rf badlog && cp -r log.sum badlog && rm badlog/rank-1.screp
bad "missing log" "rank 1: cannot open the log"
rm -rf badlog && cp -r log.sum badlog && truncate -s -7 badlog/rank-2.screp
bad "truncated log" "rank 2: the log .* is truncated"
# The layout (doc/debugging.md): a 292-byte header, then blocks of a
# 16-byte block header and 32-byte records.
rm -rf badlog && cp -r log.sum badlog && truncate -s -32 badlog/rank-0.screp
bad "log cut at a record" "rank 0: the log .* is truncated (its block 1 lacks records)"
rm -rf badlog && cp -r log.sum badlog && truncate -s 292 badlog/rank-0.screp
bad "log cut after its header" "rank 0: the log .* is truncated (no end record after its 0 records)"
rm -rf badlog && cp -r log.sum badlog &&
    printf '\377' | dd of=badlog/rank-0.screp bs=1 seek=320 conv=notrunc status=none
bad "corrupted record" "rank 0: the log .* is corrupted in block 1, records 1-[0-9]* (bad CRC)"
rm -rf badlog && cp -r log.sum badlog &&
    printf '\377' | dd of=badlog/rank-0.screp bs=1 seek=296 conv=notrunc status=none
bad "corrupted block header" "rank 0: the log .* is corrupted at block 1, after record 0"
rm -rf badlog && cp -r log.sum badlog && cp badlog/rank-1.screp badlog/rank-0.screp
bad "another rank's log" "was recorded by rank 1 of 3"
rm -rf badlog && mkdir badlog && P=2 job rec2 SAFECOLL_REPLAY=record:badlog -- sum
cp log.sum/rank-2.screp badlog/
bad "a log of another P" "was recorded by rank 0 of 2"

job bad SAFECOLL_REPLAY=sideways -- sum
ok "a bad SAFECOLL_REPLAY value: the job fails, every rank says why" \
    test "$(grep -c "libsafecoll: SAFECOLL_REPLAY='sideways': expected record:DIR or replay:DIR" bad)" -eq $P

echo "  replay: $checks checks, $failed failed"
[ "$failed" -eq 0 ]
