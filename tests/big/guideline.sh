#!/usr/bin/env bash
# The real guideline run of check-big (issue 5): `safecoll guideline` over
# the collectives of this machine's MPI at P = 2 and 4, MPI_CHAR, up to
# 16 MiB per rank, then a routing check of every record it writes.
#
#   tests/big/guideline.sh TOOL LOGDIR
#
# TOOL is bin/safecoll, LOGDIR where the output goes (the records:
# LOGDIR/guideline-found.bounds, the tables: LOGDIR/guideline.out).  Prints
# `PASS guideline-...` / `FAIL guideline-...` / `INFO ...` lines as run.sh
# does and exits non-zero when an assertion failed.  It asserts only what is
# real, never that a violation exists:
#
# * every job ran (exit 0) and printed its table: one per collective and P,
#   with one row per size;
# * every record written passes `safecoll bounds check`;
# * every record routes: the safe collective, run at the record's first
#   violating size with the record loaded and SAFECOLL_VERBOSE=1, logs a
#   decision that names the record's file and line and runs its `use`.
#
# What it found is listed (INFO lines with the note of each record); ship
# those measured on a quiet machine in data/known-bounds and
# doc/performance.md with the command this script prints.
#
# Environment: SAFECOLL_GUIDELINE_COLLS (default: the collectives that have
# a guideline equivalent), SAFECOLL_GUIDELINE_PROCS (default 2,4),
# SAFECOLL_GUIDELINE_SIZES (default 4Ki,1Mi,16Mi: every size costs time
# in each job, and at P = 4 on 2 cores every call waits for scheduler
# slices whatever its size (4 KiB took 72 ms there under load), so a size
# costs about as much as the largest; the sweep of doc/performance.md used
# steps of 4),
# SAFECOLL_GUIDELINE_OPTS (more options, default "--reps 5 --time 0.05"),
# MPIEXEC; SAFECOLL_GUIDELINE_FAULT, to test this script with a simulated
# slow collective, is given to the jobs as SAFECOLL_PROBE_FAULT.
set -u

tool=${1:?usage: guideline.sh TOOL LOGDIR}
logs=${2:?usage: guideline.sh TOOL LOGDIR}
colls=${SAFECOLL_GUIDELINE_COLLS:-allreduce,bcast,allgather,allgatherv,reduce,gather,scatter,gatherv,scatterv,alltoallv,reduce_scatter_block,reduce_scatter}
procs=${SAFECOLL_GUIDELINE_PROCS:-2,4}
sizes=${SAFECOLL_GUIDELINE_SIZES:-4Ki,1Mi,16Mi}
# --time-limit: a job's default limit follows the plan's budget, which a
# collective taking seconds a call passes (MPICH 4.0.2's ring
# MPI_Allgatherv at P = 4 on 2 cores takes 12 s at 16 MiB unless
# MPIR_CVAR_ALLGATHERV_PIPELINE_MSG_SIZE is raised, as run.sh does for the
# big tests; doc/testing.md): it must be measured, not killed.
opts=${SAFECOLL_GUIDELINE_OPTS:---reps 5 --time 0.05 --time-limit 900}
# shellcheck source=tests/mpi-names.sh
. "$(dirname "${BASH_SOURCE[0]}")/../mpi-names.sh"
export MPIEXEC
# The native calls are timed as the MPI ships them: no record of any file
# may route them (the routing check below sets its own).
export SAFECOLL_KNOWN_BOUNDS= SAFECOLL_BOUNDS=
unset SAFECOLL_PROBE_FAULT SAFECOLL_STRATEGY SAFECOLL_VERBOSE SAFECOLL_PERF_BOUNDS

# shellcheck source=tests/lib.sh
. "$(dirname "$0")/../lib.sh"
lib_big_start guideline "$tool" "$logs"

pass() { echo "PASS guideline-$1"; }
fail() { echo "FAIL guideline-$1"; status=1; }

# shellcheck disable=SC2086 # opts are meant to split
cmd="$tool guideline --coll $colls --procs $procs --type char --sizes $sizes $opts --out $found"
echo "INFO guideline: $cmd"
t0=$(date +%s)
if [ -n "${SAFECOLL_GUIDELINE_FAULT:-}" ]; then
    SAFECOLL_PROBE_FAULT=$SAFECOLL_GUIDELINE_FAULT $cmd >"$out" 2>"$err"
else
    $cmd >"$out" 2>"$err"
fi
st=$?
echo "INFO guideline: $(($(date +%s) - t0)) s"
if [ $st -eq 0 ]; then
    pass "run"
else
    fail "run (exit $st; $(tail -n 3 "$err" | tr '\n' ' '))"
fi

# Every table is there, with a row per size.
nsizes=$(echo "$sizes" | tr ',' '\n' | grep -c .)
for c in ${colls//,/ }; do
    for P in ${procs//,/ }; do
        rows=$(awk -v h="$c P=$P " 'index($0, h) == 1 { on = 1; next }
            on && /^medians/ { exit } on && $1 ~ /^[0-9]+$/ { n++ } END { print n + 0 }' "$out")
        if [ "$rows" -eq "$nsizes" ]; then
            pass "table-$c-P$P"
        else
            fail "table-$c-P$P ($rows rows, expected $nsizes; see $out)"
        fi
    done
done

# Every record loads, and routes its collective at its first violating size.
if [ ! -s "$found" ]; then
    echo "INFO guideline: no violation range: no record (the MPI meets its guidelines at these sizes)"
else
    if "$tool" bounds check "$found" >/dev/null 2>"$logs/guideline-check.err"; then
        pass "records-check ($(grep -c . "$found") records)"
    else
        fail "records-check ($(cat "$logs/guideline-check.err"))"
    fi
    line=0
    while IFS= read -r rec; do
        line=$((line + 1))
        c=$(sed -n 's/^collective=\([a-z_]*\) .*/\1/p' <<<"$rec")
        P=$(sed -n 's/.* P=\([0-9]*\) .*/\1/p' <<<"$rec")
        echo "INFO guideline: record $line: $rec"
        # The first violating size: the smallest of the sweep whose
        # quantity passes the bound (its per-rank bytes, times P for the
        # gather-like collectives).
        bound=$(sed -n 's/.* bound=\([0-9]*\) .*/\1/p' <<<"$rec")
        mult=$P
        case $c in bcast|reduce|allreduce|scan|exscan) mult=1 ;; esac
        first=
        for s in ${sizes//,/ }; do
            b=$(numfmt --from=iec-i "$s")
            if [ $((b * mult)) -gt "$bound" ]; then first=$s; break; fi
        done
        SAFECOLL_BOUNDS=$found SAFECOLL_VERBOSE=1 $MPIEXEC -n "$P" "$tool" guideline --worker \
            --coll "$c" --sizes "$first" --reps 2 --time 0 \
            >"$logs/guideline-route-$line.out" 2>"$logs/guideline-route-$line.err"
        use=$(sed -n 's/.* use=\([^ ]*\) .*/\1/p' <<<"$rec")
        if grep -F "$found:$line" "$logs/guideline-route-$line.err" | grep -qF -- "-> $use"; then
            pass "route-$line ($c P=$P at $first -> $use)"
        else
            fail "route-$line ($c P=$P at $first: no decision names $found:$line and runs $use; see $logs/guideline-route-$line.err)"
        fi
    done <"$found"
fi
exit $status
