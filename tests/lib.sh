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
