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
#
# `make bench` runs it with SAFECOLL_BENCH_BIN set to the built programs.
# Environment: MPIEXEC (default mpiexec.mpich), MPIEXEC_FLAGS,
# SAFECOLL_BENCH_BIN (default bench/bin), SAFECOLL_BENCH_QUICK=1 for a
# smoke run, SAFECOLL_BENCH_PROCS (default "2 4"), SAFECOLL_BENCH_DEADLINE_V
# and SAFECOLL_BENCH_DEADLINE_WRAP (seconds per run of each program, default
# 60 and 55), SAFECOLL_BENCH_DEADLINE_ALL and SAFECOLL_BENCH_DEADLINE_TRIG
# (bench_all's untriggered and triggered parts, default 90 and 60),
# SAFECOLL_BENCH_DEADLINE_PERF (bench_perf, default 90),
# SAFECOLL_BENCH_DEADLINE_THREAD (bench_all's i-calls on the progress
# thread, P = 2, default 40),
# SAFECOLL_BENCH_TIMEOUT (hard limit per run, default 900),
# SAFECOLL_BENCH_SIZES_OVERSUB (bench_v's sizes when P > cores).
#
# Performance is measured, never judged: a missed target does not make this
# script fail; a benchmark that crashes or gives wrong data does.
set -u -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
bin=${SAFECOLL_BENCH_BIN:-$here/bin}
mpiexec=${MPIEXEC:-mpiexec.mpich}
# Word splitting of the flags is wanted.
read -r -a mpiflags <<< "${MPIEXEC_FLAGS:-}"
procs=${SAFECOLL_BENCH_PROCS:-2 4}
quick=()
[ "${SAFECOLL_BENCH_QUICK:-0}" = 1 ] && quick=(--quick)
out=$here/results-latest.md
limit=${SAFECOLL_BENCH_TIMEOUT:-900}

for prog in bench_v bench_wrap bench_all bench_perf; do
    if [ ! -x "$bin/$prog" ]; then
        echo "bench/run.sh: $bin/$prog is missing; run 'make bench'" >&2
        exit 1
    fi
done

tmp=$(mktemp "${TMPDIR:-/tmp}/safecoll-bench.XXXXXX") || exit 1
trap 'rm -f "$tmp"' EXIT

emit() { printf '%s\n' "$*" | tee -a "$tmp"; }

loadavg() { cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown; }

cpu=$(sed -n 's/^model name[[:space:]]*:[[:space:]]*//p' /proc/cpuinfo 2>/dev/null | head -n1)
mem=$(awk '/^MemTotal/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo 2>/dev/null)
mpiinfo=$("$mpiexec" "${mpiflags[@]}" -n 1 "$bin/bench_v" --info 2>/dev/null | head -n1 |
    tr -s '\t ' '  ')
start=$(date +%s)

emit "## libsafecoll benchmark results"
emit ""
emit "- date: $(date -u '+%Y-%m-%d %H:%M UTC')"
emit "- machine: ${cpu:-unknown CPU}, $(nproc) cores, ${mem:-unknown memory}; $(uname -sr)"
emit "- MPI: ${mpiinfo:-unknown}"
launcher="$mpiexec ${mpiflags[*]:+${mpiflags[*]} }-n P"
emit "- command: \`make bench\` (bench/run.sh: \`$launcher\` for P in $procs${quick:+, --quick})"
emit "- load average at start: $(loadavg)"
emit ""

status=0
run() {
    local np=$1 prog=$2 rc before t
    shift 2
    before=$(loadavg)
    t=$(date +%s)
    timeout "$limit" "$mpiexec" "${mpiflags[@]}" -n "$np" "$bin/$prog" "$@" | tee -a "$tmp"
    rc=$?
    if [ "$rc" -ne 0 ]; then
        emit ""
        emit "**$prog at P = $np failed (exit status $rc)**"
        emit ""
        status=1
    fi
    t=$(( $(date +%s) - t ))
    emit "_$prog, P = $np: load average $before before, $(loadavg) after; $t s._"
    emit ""
}

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

# Performance records: the cost of routing, and of having a record below
# its bound.
dl_perf=${SAFECOLL_BENCH_DEADLINE_PERF:-90}
deadline_perf=()
[ ${#quick[@]} -eq 0 ] && deadline_perf=(--deadline "$dl_perf")
for np in $procs; do
    run "$np" bench_perf "${quick[@]}" "${deadline_perf[@]}"
done

emit "- load average at end: $(loadavg); total run time $(( $(date +%s) - start )) s"

cp "$tmp" "$out.tmp" && mv "$out.tmp" "$out"
exit $status
