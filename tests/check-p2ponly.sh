#!/usr/bin/env bash
# The reference mode takes MPI's collectives out of the picture: with
# SAFECOLL_STRATEGY=all=p2p every safe collective, blocking and started,
# runs without one MPI collective call, the first meeting of the
# communicator, the agreement (SAFECOLL_AGREE=always) and the checking mode
# (SAFECOLL_CHECK=1) included, and so does record and replay
# (SAFECOLL_REPLAY), whose first wrapper call starts the mode alone.
# tests/p2ponly/app.c makes every safe collective once each way, and a
# wildcard exchange through the point-to-point wrappers, with the PMPI
# counting library tests/p2ponly/count.c preloaded, which prints each rank's count of MPI
# collective calls at MPI_Finalize; every count must be 0. The same
# program without all=p2p must count some on every rank, or the counter
# proves nothing. The communicator constructors the library makes
# (MPI_Comm_dup, MPI_Comm_split_type) are counted apart and not asserted:
# MPI has no point-to-point way to make a communicator.
#
#   tests/check-p2ponly.sh DIR      (DIR: where count.so and app are built)
set -uo pipefail

. "$(dirname "$0")/lib.sh"
dir=$(cd "${1:?usage: check-p2ponly.sh DIR}" && pwd)
lib_mpiexec
lib_scratch p2ponly

# run_app NAME P ENV...: runs the app on P ranks with the counter preloaded
# and ENV set, its output in NAME.
run_app() {
    local name=$1 p=$2
    shift 2
    # shellcheck disable=SC2086 # MPIEXEC carries its flags
    env "$@" LD_PRELOAD="$dir/count.so" timeout 120 $MPIEXEC -n "$p" "$dir/app" >"$name" 2>&1
}

# counted NAME P OP: every one of the P ranks reported its count, and each
# count satisfies `test COUNT OP 0`.
counted() {
    local name=$1 p=$2 op=$3
    [ "$(grep -c '^p2ponly-count: rank [0-9]* collectives ' "$name")" -eq "$p" ] || return 1
    awk -v op="$op" '/^p2ponly-count:/ { n = $5 + 0; if ((op == "-eq" && n != 0) ||
        (op == "-gt" && n <= 0)) bad = 1 } END { exit bad }' "$name"
}

show() { sed 's/^/    | /' "$1" | cut -c1-200; }

for P in 1 2 3; do
    run_app p2p.$P $P SAFECOLL_STRATEGY=all=p2p
    check "P=$P all=p2p: every collective right" grep -qx "p2ponly-app: P=$P ok" p2p.$P
    check "P=$P all=p2p: no MPI collective on any rank" counted p2p.$P $P -eq
done
run_app checked 3 SAFECOLL_STRATEGY=all=p2p SAFECOLL_CHECK=1 SAFECOLL_AGREE=always
check "P=3 all=p2p, checking mode and agreement: every collective right" \
    grep -qx "p2ponly-app: P=3 ok" checked
check "P=3 all=p2p, checking mode and agreement: no MPI collective" counted checked 3 -eq
# Record and replay start at each rank's first wrapper call, alone.
run_app rec 3 SAFECOLL_STRATEGY=all=p2p SAFECOLL_REPLAY=record:log
check "P=3 all=p2p, recording: every collective right" grep -qx "p2ponly-app: P=3 ok" rec
check "P=3 all=p2p, recording: no MPI collective" counted rec 3 -eq
run_app rep 3 SAFECOLL_STRATEGY=all=p2p SAFECOLL_REPLAY=replay:log
check "P=3 all=p2p, replay: every collective right" grep -qx "p2ponly-app: P=3 ok" rep
check "P=3 all=p2p, replay: no MPI collective" counted rep 3 -eq
run_app native 2 SAFECOLL_STRATEGY=
check "P=2 default strategies: every collective right" grep -qx "p2ponly-app: P=2 ok" native
check "P=2 default strategies: MPI collectives counted on every rank (the counter works)" \
    counted native 2 -gt
if [ "$failed" -gt 0 ]; then
    for f in p2p.1 p2p.2 p2p.3 checked rec rep native; do echo "  $f:"; show $f; done
fi
echo "  p2ponly: $checks checks, $failed failed"
[ "$failed" -eq 0 ]
