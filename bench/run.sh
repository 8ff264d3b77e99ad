#!/usr/bin/env bash
# bench/run.sh - run libsafecoll's benchmarks and write one markdown report
# to stdout and to bench/results-latest.md.
#
#   bench_v     untriggered overhead of the four safe collectives, P = 2, 4
#   bench_wrap  gatherv with int displacements wrapped past INT_MAX, one row
#               per strategy against MPI_Gatherv_c and memcpy, P = 2, 4
#   bench_all   every safe collective (and ibcast, igather, iallreduce,
#               igatherv) untriggered against the MPI call, then each
#               strategy on the triggered path against the MPI call on the
#               same bytes, P = 2, 4
#   bench_perf  allreduce, bcast, allgather with a performance record in
#               place: auto (routed) against the record's equivalent above
#               the bound, against the MPI call at and below it, P = 2, 4
#   bench_hang  the hang monitor: its overhead on collective-heavy loops and
#               its hot path, P = 2, 4; then hangs injected (compute,
#               deadlock) and a hang-free run (none), many runs each at
#               P = 4: accuracy, false positives and detection delay of
#               ParaStack beside the paper's timeout baseline (K = 5, 10).
#               Written to bench/results-hang.md, not results-latest.md.
#   bench_p2p   the point-to-point wrappers with nothing on (no replay, no
#               hang monitor, no subscriber of the traffic layer's event
#               stream) against MPI's calls: ping-pong and exchange at 8 B
#               and 64 KiB, P = 2; then again with the trace recorder on
#               (bench_p2p --trace, SAFECOLL_TRACE=region:DIR)
#   bench_scale fitting and validating 20 functions x 10 process counts x 5
#               repetitions (safecoll/scale.h), no MPI job: median and
#               slowest of 21 rounds against the 1 s target; then a
#               `safecoll scale` run of the Table 1 collectives at 1-8
#               ranks against its 2-minute target, with its confidence
#   bench_debug the debugging modes (issue 19): native, the reference
#               routines (all=p2p), record, replay and both together on
#               reduce, alltoall+allreduce and a point-to-point workload,
#               as ratios to native beside paper 002's, P = 2, 4. It is a
#               driver: run directly, it launches its own mpiexec jobs.
#
# `make bench` runs it with SAFECOLL_BENCH_BIN set to the built programs.
# Environment: MPIEXEC (default mpiexec.mpich, else mpiexec on PATH), MPIEXEC_FLAGS,
# SAFECOLL_BENCH_TOOL (the safecoll tool, default bin/safecoll),
# SAFECOLL_BENCH_BIN (default bench/bin), SAFECOLL_BENCH_QUICK=1 for a
# smoke run, SAFECOLL_BENCH_PROCS (default "2 4"), SAFECOLL_BENCH_DEADLINE_V
# and SAFECOLL_BENCH_DEADLINE_WRAP (seconds per run of each program, default
# 60 and 55), SAFECOLL_BENCH_DEADLINE_ALL and SAFECOLL_BENCH_DEADLINE_TRIG
# (bench_all's untriggered and triggered parts, default 90 and 60),
# SAFECOLL_BENCH_DEADLINE_PERF (bench_perf, default 90),
# SAFECOLL_BENCH_DEBUG_ROUNDS (bench_debug's rounds, default 3),
# SAFECOLL_BENCH_DEADLINE_THREAD (bench_all's i-calls on the progress
# thread, P = 2, default 40),
# SAFECOLL_BENCH_TIMEOUT (hard limit per run, default 900),
# SAFECOLL_BENCH_SIZES_OVERSUB (bench_v's sizes when P > cores),
# SAFECOLL_BENCH_ONLY=hang (the hang part alone), and for bench_hang
# SAFECOLL_BENCH_HANG_RUNS (runs per scenario, default 20, quick 3),
# SAFECOLL_BENCH_HANG_PROCS (default 4), SAFECOLL_BENCH_HANG_INTERVAL (the
# initial I, default 0.05 s), SAFECOLL_BENCH_HANG_HEALTHY and
# SAFECOLL_BENCH_HANG_SECONDS (the healthy phase and the longest hang,
# default 3 and 10 s, quick 2 and 5).
#
# Performance is measured, never judged: a missed target does not make this
# script fail; a benchmark that crashes or gives wrong data does.
set -u -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
bin=${SAFECOLL_BENCH_BIN:-$here/bin}
# shellcheck source=tests/mpi-names.sh
. "$here/../tests/mpi-names.sh"
mpiexec=$MPIEXEC
# Word splitting of the flags is wanted.
read -r -a mpiflags <<< "${MPIEXEC_FLAGS:-}"
procs=${SAFECOLL_BENCH_PROCS:-2 4}
quick=()
[ "${SAFECOLL_BENCH_QUICK:-0}" = 1 ] && quick=(--quick)
out=$here/results-latest.md
limit=${SAFECOLL_BENCH_TIMEOUT:-900}

only=${SAFECOLL_BENCH_ONLY:-}
case $only in
    '') progs="bench_v bench_wrap bench_all bench_nb bench_perf bench_debug bench_p2p bench_scale bench_hang" ;;
    hang) progs="bench_v bench_hang" ;;
    *) echo "bench/run.sh: SAFECOLL_BENCH_ONLY is 'hang' or unset, not '$only'" >&2; exit 1 ;;
esac
for prog in $progs; do
    if [ ! -x "$bin/$prog" ]; then
        echo "bench/run.sh: $bin/$prog is missing; run 'make bench'" >&2
        exit 1
    fi
done

tmp=$(mktemp "${TMPDIR:-/tmp}/safecoll-bench.XXXXXX") || exit 1
tmph=$(mktemp "${TMPDIR:-/tmp}/safecoll-bench-hang.XXXXXX") || exit 1
trap 'rm -f "$tmp" "$tmph" "$tmph".*' EXIT

# emit_to FILE TEXT...: to stdout and to the report being written.
emit_to() { local f=$1; shift; printf '%s\n' "$*" | tee -a "$f"; }
emit() { emit_to "$tmp" "$@"; }

loadavg() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown; }

cpu=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n1)
mem=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo 2>/dev/null)
mpiinfo=$("$mpiexec" "${mpiflags[@]}" -n 1 "$bin/bench_v" --info 2>/dev/null | head -n1 |
    tr -s '\t ' '  ')
start=$(date +%s)

launcher="$mpiexec ${mpiflags[*]:+${mpiflags[*]} }-n P"
# conditions FILE TITLE: the head of a report.
conditions() {
    emit_to "$1" "## $2"
    emit_to "$1" ""
    emit_to "$1" "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
    emit_to "$1" "- machine: ${cpu:-unknown CPU}, $(nproc) cores, ${mem:-unknown memory}; $(uname -sr)"
    emit_to "$1" "- MPI: ${mpiinfo:-unknown}"
    emit_to "$1" "- command: \`${only:+SAFECOLL_BENCH_ONLY=$only }make bench\` (bench/run.sh: \`$launcher\` for P in $procs${quick:+, --quick})"
    emit_to "$1" "- load average at start: $(loadavg)"
    emit_to "$1" ""
}

status=0
# run_into FILE NP PROG ARGS...: one program run, its output to stdout and
# to FILE; a failure is reported in FILE and makes this script fail.
run_into() {
    local f=$1 np=$2 prog=$3 rc before t
    shift 3
    before=$(loadavg)
    t=$(date +%s)
    timeout "$limit" "$mpiexec" "${mpiflags[@]}" -n "$np" "$bin/$prog" "$@" | tee -a "$f"
    rc=$?
    if [ "$rc" -ne 0 ]; then
        emit_to "$f" ""
        emit_to "$f" "**$prog at P = $np failed (exit status $rc)**"
        emit_to "$f" ""
        status=1
    fi
    t=$(( $(date +%s) - t ))
    emit_to "$f" "_$prog, P = $np: load average $before before, $(loadavg) after; $t s._"
    emit_to "$f" ""
}
run() { run_into "$tmp" "$@"; }

# Every benchmark but the hang monitor's, into results-latest.md (not
# indented, to keep it as it was); SAFECOLL_BENCH_ONLY=hang skips it.
if [ -z "$only" ]; then
conditions "$tmp" "libsafecoll benchmark results"

# Deadlines in seconds per program run, so that the whole report takes
# under 10 minutes even on a busy machine: a program skips the sizes it has
# no time left for and says so in its table.
dl_v=${SAFECOLL_BENCH_DEADLINE_V:-60}
dl_wrap=${SAFECOLL_BENCH_DEADLINE_WRAP:-55}
dl_all=${SAFECOLL_BENCH_DEADLINE_ALL:-90}
dl_trig=${SAFECOLL_BENCH_DEADLINE_TRIG:-60}
if [ ${#quick[@]} -gt 0 ]; then
    deadline_v=(); deadline_wrap=(); deadline_all=()
else
    deadline_v=(--deadline "$dl_v"); deadline_wrap=(--deadline "$dl_wrap")
    deadline_all=(--deadline "$dl_all" --trig-deadline "$dl_trig")
fi

# When P exceeds the cores every synchronization can cost a scheduler time
# slice (milliseconds), so a repetition takes ~1000x longer than on a core
# each; a coarser grid of sizes keeps the sizes that matter in the deadline.
cores=$(nproc)
coarse=${SAFECOLL_BENCH_SIZES_OVERSUB:-8,1K,64K,256K,1M,4M,16M,64M}
for np in $procs; do
    sizes=()
    [ "$np" -gt "$cores" ] && [ ${#quick[@]} -eq 0 ] && sizes=(--sizes "$coarse")
    run "$np" bench_v "${quick[@]}" "${deadline_v[@]}" "${sizes[@]}"
done
# For the same reason the wrapped case starts at 16 MiB blocks there.
for np in $procs; do
    sizes=()
    [ "$np" -gt "$cores" ] && [ ${#quick[@]} -eq 0 ] && sizes=(--min-mib 16)
    run "$np" bench_wrap "${quick[@]}" "${deadline_wrap[@]}" "${sizes[@]}"
done

# The point-to-point wrappers off against MPI's calls, P = 2 (two ranks
# exchange; more would only wait).
run 2 bench_p2p "${quick[@]}"
# The same with the trace recorder on (issue 33: 1.3x at 8 B, 1.05x from
# 64 KiB), its files in a scratch directory removed after.
trace_dir=$(mktemp -d "${TMPDIR:-/tmp}/safecoll-bench-trace.XXXXXX")
SAFECOLL_TRACE=region:$trace_dir run 2 bench_p2p --trace "${quick[@]}"
rm -rf "$trace_dir"

# Every collective, untriggered and triggered. At P > cores the times are
# scheduler slices (see bench_v); the program keeps its deadlines.
for np in $procs; do
    [ "$np" -gt "$cores" ] && emit "_P = $np exceeds the $cores cores: oversubscribed, every synchronization can cost a scheduler slice; read these as noise-bound._" && emit ""
    run "$np" bench_all "${quick[@]}" "${deadline_all[@]}"
done

# The safe i-calls on the library's progress thread (the way they run on
# Open MPI 4.1, forced here with SAFECOLL_NB_THREAD=1), P = 2: what the
# hand-off between threads costs a call.
dl_thr=${SAFECOLL_BENCH_DEADLINE_THREAD:-40}
deadline_thr=()
[ ${#quick[@]} -eq 0 ] && deadline_thr=(--deadline "$dl_thr")
emit "_The non-blocking safe calls on the progress thread (SAFECOLL_NB_THREAD=1, MPI_THREAD_MULTIPLE):_"
emit ""
SAFECOLL_NB_THREAD=1 run 2 bench_all --thread --only untriggered --ops ibcast,igather,iallreduce,igatherv \
    --sizes 8,1K,64K,1M "${quick[@]}" "${deadline_thr[@]}"

# Many safe i-calls in flight, completed in per-rank orders (issue 31):
# MPI's own i-calls against the safe ones, by default and under all=p2p.
emit "_Many non-blocking calls in flight (bench_nb: the stress of tests/mpi/nb_stress.h; a time is one stress of the calls shown; targets: default/native 1.0, p2p/native at most 1.5):_"
emit ""
"$mpiexec" "${mpiflags[@]}" -n 1 "$bin/bench_nb" --header | tee -a "$tmp"
for np in $procs; do
    run "$np" bench_nb "${quick[@]}"
done

# Performance records: the cost of routing, and of having a record below
# its bound.
dl_perf=${SAFECOLL_BENCH_DEADLINE_PERF:-90}
deadline_perf=()
[ ${#quick[@]} -eq 0 ] && deadline_perf=(--deadline "$dl_perf")
for np in $procs; do
    run "$np" bench_perf "${quick[@]}" "${deadline_perf[@]}"
done

# The debugging modes: bench_debug is a driver, not an MPI program; it
# launches native, record and replay jobs itself, in alternation.
dbg_rounds=(--rounds "${SAFECOLL_BENCH_DEBUG_ROUNDS:-3}")
[ ${#quick[@]} -gt 0 ] && dbg_rounds=()
for np in $procs; do
    before=$(loadavg)
    t=$(date +%s)
    MPIEXEC=$mpiexec MPIEXEC_FLAGS=${MPIEXEC_FLAGS:-} timeout "$limit" "$bin/bench_debug" \
        --np "$np" "${dbg_rounds[@]}" "${quick[@]}" | tee -a "$tmp"
    rc=$?
    if [ "$rc" -ne 0 ]; then
        emit ""
        emit "**bench_debug at P = $np failed (exit status $rc)**"
        emit ""
        status=1
    fi
    emit "_bench_debug, P = $np: load average $before before, $(loadavg) after; $(( $(date +%s) - t )) s._"
    emit ""
done

# Scalability validation (issue 34): no MPI job, the fit and validation
# of synthetic points alone.
emit "### bench_scale: fitting and validating 20 functions x 10 p x 5 repetitions"
emit ""
before=$(loadavg)
timeout "$limit" "$bin/bench_scale" | tee -a "$tmp"
rc=$?
if [ "$rc" -ne 0 ]; then
    emit "**bench_scale failed (exit status $rc)**"
    status=1
fi
emit ""
emit "_bench_scale: load average $before before, $(loadavg) after._"
emit ""

# The measured run of issue 34's target: `safecoll scale` of the Table 1
# collectives at 1-8 ranks (quick: 1, 2, 4), in under 2 minutes with its
# confidence stated: the wall time, and how many of its measurements
# reached the 5% interval (run/measure.txt).
emit "### safecoll scale: the Table 1 collectives, measured and modelled"
emit ""
sprocs=1,2,4,6,8 sopts=()
[ ${#quick[@]} -gt 0 ] && sprocs=1,2,4 sopts=(--min-points 3)
sdir=$(mktemp -d)
before=$(loadavg)
t=$(date +%s.%N)
MPIEXEC="$mpiexec${MPIEXEC_FLAGS:+ $MPIEXEC_FLAGS}" SAFECOLL_PROGRESS=off timeout "$limit" \
    "${SAFECOLL_BENCH_TOOL:-$here/../bin/safecoll}" scale --coll barrier,bcast,reduce,allreduce,gather,allgather,alltoall \
    --procs "$sprocs" "${sopts[@]}" --size 800 --budget 0.1 --comms 8 --expect table1 \
    --out "$sdir/run" \
    >"$sdir/out.txt" 2>"$sdir/err.txt"
rc=$?
secs=$(awk -v a="$t" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }')
if [ "$rc" -ne 0 ]; then
    emit "**safecoll scale failed (exit status $rc)**: $(tail -n 2 "$sdir/err.txt" | tr '\n' ' ')"
    status=1
else
    emit '```'
    cat "$sdir/out.txt" >> "$tmp"
    emit '```'
    conf=$(grep -oE 'ci=[0-9.]+%' "$sdir/run/measure.txt" |
        awk -F'[=%]' '{ n++; if ($2 + 0 <= 5) k++ } END { printf "%d of %d", k, n }')
    verdict=met
    [ "$secs" -ge 120 ] && verdict=missed
    emit ""
    emit "P = $sprocs: **$secs s** (target 120 s: $verdict); measurements within the 5% interval: $conf."
fi
rm -rf "$sdir"
emit ""
emit "_safecoll scale: load average $before before, $(loadavg) after._"
emit ""

emit "_The hang monitor (bench_hang) follows; its report goes to bench/results-hang.md._"
emit ""
emit "- load average at end: $(loadavg); total run time $(( $(date +%s) - start )) s"

cp "$tmp" "$out.tmp" && mv "$out.tmp" "$out"
fi # SAFECOLL_BENCH_ONLY

# ---------------------------------------------------------------- hang detection
# The hang monitor (issue 18), in its own report. Overhead at I = 400 ms
# on two collective-heavy loops, and the hot path, at each P. Then, at one
# P, many runs of each scenario, each run in the same job one after the
# other: ParaStack and the timeout baseline judge the same samples (see
# bench/bench_hang.c). The rows of the four scenarios make one table;
# "early" hangs 1 s after the start, before the model can judge.
hang_start=$(date +%s)
hang_out=$here/results-hang.md
hang_np=${SAFECOLL_BENCH_HANG_PROCS:-4}
hang_i=${SAFECOLL_BENCH_HANG_INTERVAL:-0.05}
if [ ${#quick[@]} -gt 0 ]; then
    hang_runs=${SAFECOLL_BENCH_HANG_RUNS:-3}
    hang_h=${SAFECOLL_BENCH_HANG_HEALTHY:-2}
    hang_d=${SAFECOLL_BENCH_HANG_SECONDS:-5}
else
    hang_runs=${SAFECOLL_BENCH_HANG_RUNS:-20}
    hang_h=${SAFECOLL_BENCH_HANG_HEALTHY:-3}
    hang_d=${SAFECOLL_BENCH_HANG_SECONDS:-10}
fi
conditions "$tmph" "libsafecoll hang detection results"
emit_to "$tmph" "### Overhead of the monitor"
emit_to "$tmph" ""
for np in $procs; do
    run_into "$tmph" "$np" bench_hang --overhead "${quick[@]}"
done

emit_to "$tmph" "### Hangs found: ParaStack with the frozen-state rule beside the timeout baseline, P = $hang_np"
emit_to "$tmph" ""
emit_to "$tmph" "$hang_runs runs per scenario; healthy phase $hang_h s; a hang lasts at most $hang_d s; I = $hang_i s at start; alpha 0.001. AC: runs whose first alarm came during the hang; FP: runs with an alarm before it (in \"none\": at all); D, S: mean and standard deviation of the delay from the injection to the alarm, over the detected runs. The baseline (a hang after K samples in a row with S_out <= 0) judges the very samples ParaStack does: random steps of mean I, I doubled when ParaStack's runs test asks; the paper's baseline samples at a fixed I. Targets: AC 1.00, FP 0.00, median delay <= 5 s."
emit_to "$tmph" ""
for sc in compute early deadlock none; do
    : > "$tmph.$sc"
    run_into "$tmph.$sc" "$hang_np" bench_hang --scenario "$sc" --runs "$hang_runs" \
        --interval "$hang_i" --healthy "$hang_h" --hang "$hang_d" --no-header \
        --runs-file "$bin/hang-$sc.tsv"
done
emit_to "$tmph" "| scenario | detector | AC | FP | D (mean s) | S (std s) | median delay (s) | runs |"
emit_to "$tmph" "|---|---|---:|---:|---:|---:|---:|---:|"
for sc in compute early deadlock none; do
    grep '^| ' "$tmph.$sc" | tee -a "$tmph"
done
emit_to "$tmph" ""
for sc in compute early deadlock none; do
    grep -v '^| ' "$tmph.$sc" | grep -v '^$' | while IFS= read -r line; do
        emit_to "$tmph" "$line"
        emit_to "$tmph" ""
    done
done
top=$(cd "$here/.." && pwd)
emit_to "$tmph" "_Per run: ${bin#"$top"/}/hang-{compute,deadlock,none}.tsv._"
emit_to "$tmph" ""
emit_to "$tmph" "- load average at end: $(loadavg); hang part run time $(( $(date +%s) - hang_start )) s"

cp "$tmph" "$hang_out.tmp" && mv "$hang_out.tmp" "$hang_out"
exit $status
