# shellcheck shell=bash
# Helpers shared by the tool's test scripts (check-cli.sh, check-search.sh,
# check-guideline.sh, big/search.sh, big/guideline.sh) and the runners
# (run-mpi.sh, run-unit.sh: lib_digest), sourced by them:
#
#   . "$(dirname "$0")/lib.sh"        (big/: "$(dirname "$0")/../lib.sh")
#
# Only what those scripts really do alike lives here, so that a fix to the
# way a check is counted or a failure shown is made once.

lib_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

# lib_skip LABEL REASON: a part of a script that did not run here (a
# program it needs is missing, or it was switched off): "SKIP: LABEL:
# REASON" on stdout, and "0 0 1 LABEL (REASON)" in SAFECOLL_SUMMARY when set,
# so that `make check` counts the part as skipped, not within the step's
# pass (tests/README.md, "Skips").
lib_skip() {
    echo "  SKIP: $1: $2"
    if [ -n "${SAFECOLL_SUMMARY:-}" ]; then echo "0 0 1 $1 ($2)" >> "$SAFECOLL_SUMMARY"; fi
    return 0
}

# ... | lib_digest LABEL: the lines read (at most 15, leading blanks taken
# off) go to SAFECOLL_DIGEST when set, as "LABEL<tab>LINE": `make check`
# prints them under LABEL's "failed:" line in its summary, so that the end
# of a CI log says why LABEL failed.  LABEL is the one written to
# SAFECOLL_SUMMARY.
lib_digest() {
    if [ -n "${SAFECOLL_DIGEST:-}" ]; then
        head -n 15 | awk -v k="$1" '{ sub(/^[ \t]+/, ""); print k "\t" $0 }' >> "$SAFECOLL_DIGEST"
    else
        cat >/dev/null
    fi
}

# SAFECOLL_CHECK_SECOND_MPI: 1 in the second MPI's pass (`make
# check-openmpi` sets it), 0 or unset otherwise; nothing else is accepted.
case ${SAFECOLL_CHECK_SECOND_MPI:-0} in
0 | 1) ;;
*)
    echo "SAFECOLL_CHECK_SECOND_MPI='$SAFECOLL_CHECK_SECOND_MPI': 0 or 1" >&2
    exit 2
    ;;
esac

# lib_mpi_independent LABEL [REASON]: status 0, with LABEL reported skipped
# (REASON, by default "MPI-independent, checked in the MPICH pass"), in the
# second MPI's pass; else status 1, and the case runs:
#
#   if ! lib_mpi_independent "search: class X"; then ...; fi
#
# For a case of the tool's own logic (a classification, its options, a
# record's format), whose outcome no MPI changes: `make check` has run it
# under MPICH, and the Open MPI pass, where a job costs about a second of
# launcher, keeps the cases that exercise the MPI itself (its launcher, how
# it ends a crashed, killed or hung job, real timings).
lib_mpi_independent() {
    [ "${SAFECOLL_CHECK_SECOND_MPI:-0}" = 1 ] || return 1
    lib_skip "$1" "${2:-MPI-independent, checked in the MPICH pass}"
}

# lib_probe_jobs: for scripts whose jobs are the tool's probes and
# guideline workers or bisect's application (tests/bisect/app.c), which
# end on their own (a crash, a hang's timer, an exit status) and handle no
# SIGTERM.  Open MPI's mpirun, when a rank ends abnormally, stops the
# job's other ranks with SIGCONT, SIGTERM and SIGKILL, sleeping
# odls_base_sigkill_timeout (1 s) before each of the last two: 1-2 s more
# for every job that fails, of which a search or a bisection runs several
# (check-search's crashed probe: 2.5 s, 1.1 s with 0).  Set to 0, the
# ranks get the three signals at once (MPICH's mpiexec does not wait
# either).  Not for jobs of the library whose SIGTERM handler writes
# something (SAFECOLL_REPLAY's record mode flushes its logs).  Other MPIs
# ignore the variable; a value already set is kept.
lib_probe_jobs() {
    export OMPI_MCA_odls_base_sigkill_timeout=${OMPI_MCA_odls_base_sigkill_timeout:-0}
}

# lib_tool NAME [TOOL]: $tool, made absolute (the scripts cd to a scratch
# directory), or exit 2 with "NAME: TOOL is not built" when it is missing.
lib_tool() {
    tool=${2:-bin/safecoll}
    [ -x "$tool" ] || { echo "$1: $tool is not built (run make)" >&2; exit 2; }
    case $tool in /*) ;; *) tool=$(pwd)/$tool ;; esac
}

# lib_mpiexec: MPIEXEC (default: mpi-names.sh) with the flags the MPI needs
# here (mpi-flags.sh: Open MPI's --oversubscribe and allow-run-as-root).
# The tool's default launcher is "$MPIEXEC -n {P}", split at blanks, so the
# flags travel in MPIEXEC.
lib_mpiexec() {
    # shellcheck source=tests/mpi-names.sh
    . "$lib_dir/mpi-names.sh"
    export MPIEXEC
    # shellcheck source=tests/mpi-flags.sh
    . "$lib_dir/mpi-flags.sh"
    if [ -n "$MPIEXEC_FLAGS" ]; then
        MPIEXEC="$MPIEXEC $MPIEXEC_FLAGS"
    fi
}

# lib_scratch NAME: a scratch directory ($scratch, removed at exit unless
# KEEP=1), made the current one; $out and $err for the outputs of `run`,
# and the counters $checks and $failed at 0.
lib_scratch() {
    scratch=$(mktemp -d "${TMPDIR:-/tmp}/safecoll-$1.XXXXXX") || exit 2
    trap '[ "${KEEP:-0}" = 1 ] || rm -rf "$scratch"' EXIT
    cd "$scratch" || exit 2
    checks=0 failed=0
    out=$scratch/out err=$scratch/err
}

# run EXPECTED_STATUS ARGS...: runs `$tool ARGS...` with its output in $out
# and $err; a failed check when its exit status is not the expected one.
run() {
    local want=$1 got
    shift
    checks=$((checks + 1))
    "$tool" "$@" >"$out" 2>"$err"
    got=$?
    if [ "$got" -ne "$want" ]; then
        failed=$((failed + 1))
        echo "FAIL: safecoll $*: exit $got, expected $want"
        sed 's/^/    out| /' "$out" | tail -12
        sed 's/^/    err| /' "$err" | tail -5
    fi
}

# check DESCRIPTION COMMAND...: one check, failed (DESCRIPTION printed)
# when COMMAND exits non-zero.
check() {
    local what=$1
    shift
    checks=$((checks + 1))
    if ! "$@"; then failed=$((failed + 1)); echo "FAIL: $what"; fi
}

# expect out|err TEXT: the last run printed TEXT (a fixed string) there.
expect() {
    local where=$1 text=$2 file=$out
    [ "$where" = err ] && file=$err
    checks=$((checks + 1))
    if ! grep -qF -- "$text" "$file"; then
        failed=$((failed + 1))
        echo "FAIL: std$where lacks \"$text\":"
        sed 's/^/    | /' "$file" | tail -12
    fi
}

# lib_big_start NAME TOOL LOGDIR (big/*.sh): "FAIL NAME-mpich" and exit 1
# when TOOL is not built; else LOGDIR made, $found (LOGDIR/NAME-found.bounds,
# emptied), $out and $err (LOGDIR/NAME.out, .err) and $status at 0.
lib_big_start() {
    if [ ! -x "$2" ]; then
        echo "FAIL $1-mpich ($2 is not built: run make first)"
        exit 1
    fi
    mkdir -p "$3" || exit 2
    found=$3/$1-found.bounds
    out=$3/$1.out err=$3/$1.err
    rm -f "$found"
    status=0
}
