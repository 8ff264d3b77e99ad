#!/usr/bin/env bash
# Errors say why under MPI's default error handler. Most programs run with
# MPI_ERRORS_ARE_FATAL, which ends the job before the program could call
# safecoll_last_error(); the library writes the precise message to stderr
# first, "libsafecoll: rank R: MESSAGE". tests/fatal/app.c gives it bad
# input on 2 ranks: a malformed SAFECOLL_STRATEGY, a SAFECOLL_BOUNDS file
# that is missing and one with a malformed line, a NULL recvcounts at the
# root of a gatherv and of an igatherv. Each job must fail, no rank get past the call (for
# the gatherv the root: the others may have done their part, doc/guide.md), and
# stderr name libsafecoll with the variable, the file, the line or the
# argument. Under MPI_ERRORS_RETURN nothing is printed (SAFECOLL_VERBOSE=1
# prints it), and MPI_Error_string on the code returned names libsafecoll:
# a skip, with the reason, where this MPI cannot carry a code added to a
# predefined class (MPICH 4.0 reads such a code back with another string).
# tests/fatal/app_f08.f90 (where the Fortran binding is built) passes a
# strided array section to safecoll_bcast: the line names the function and
# the argument, and under MPI_ERRORS_RETURN the class is MPI_ERR_BUFFER
# and nothing is printed.
#
#   tests/check-fatal.sh DIR      (DIR: where app is built)
set -uo pipefail

. "$(dirname "$0")/lib.sh"
dir=$(cd "${1:?usage: check-fatal.sh DIR}" && pwd)
lib_mpiexec
lib_scratch fatal

# run_app NAME CASE ENV...: runs the app's CASE on 2 ranks with ENV set;
# stdout in NAME.out, stderr in NAME.err, the exit status in NAME.rc. APP
# names another program of DIR (app_f08).
run_app() {
    local name=$1 case=$2
    shift 2
    # shellcheck disable=SC2086 # MPIEXEC carries its flags
    env "$@" timeout 120 $MPIEXEC -n 2 "$dir/${APP:-app}" "$case" >"$name.out" 2>"$name.err"
    echo $? >"$name.rc"
}

failed_job() { [ "$(cat "$1.rc")" -ne 0 ] && [ "$(cat "$1.rc")" -ne 124 ]; }
# nobody_survived NAME [RANK]: no "survived" line (of RANK).
nobody_survived() { ! grep -q "rank ${2:-[0-9]*} survived" "$1.out"; }
# said NAME REGEX: a line of NAME's stderr matches REGEX (grep -E).
said() { grep -Eq "$2" "$1.err"; }

show() {
    echo "  $1: exit $(cat "$1.rc")"
    sed 's/^/    out| /' "$1.out" | cut -c1-200 | tail -6
    sed 's/^/    err| /' "$1.err" | cut -c1-200 | tail -8
}

# fatal NAME WHAT REGEX [RANK]: the checks of a job that must end with
# REGEX said, no rank (or not RANK) past the call.
fatal() {
    local name=$1 what=$2 re=$3 who=${4:-}
    local before=$failed
    check "$what: the job fails" failed_job "$name"
    check "$what: ${who:+rank $who: }no rank gets past the call" nobody_survived "$name" "$who"
    check "$what: stderr says '$re'" said "$name" "$re"
    [ "$failed" -eq "$before" ] || show "$name"
}

run_app strategy allreduce SAFECOLL_STRATEGY=bogus
fatal strategy "SAFECOLL_STRATEGY=bogus" \
    "^libsafecoll: rank [01]: SAFECOLL_STRATEGY: entry 'bogus' is not collective=strategy$"

run_app missing allreduce SAFECOLL_BOUNDS="$scratch/none.bounds"
fatal missing "SAFECOLL_BOUNDS names a missing file" \
    "^libsafecoll: rank [01]: SAFECOLL_BOUNDS: .*/none\.bounds: cannot open"

printf '# a bounds file\nthis is not a record\n' >bad.bounds
run_app malformed allreduce SAFECOLL_BOUNDS="$scratch/bad.bounds"
fatal malformed "SAFECOLL_BOUNDS names a malformed file" \
    "^libsafecoll: rank [01]: SAFECOLL_BOUNDS: .*/bad\.bounds:2: "

run_app null null SAFECOLL_STRATEGY=
fatal null "gatherv with a NULL recvcounts at the root" \
    "^libsafecoll: rank 0: .*gatherv.*recvcounts" 0

# The error of an i-call that the agreement finds (SAFECOLL_AGREE=always)
# reaches the caller when MPI_Wait completes its request: printed there.
# Either rank's line will do: the first to abort may end the other.
run_app inull inull SAFECOLL_STRATEGY= SAFECOLL_AGREE=always
fatal inull "igatherv with a NULL recvcounts at the root, SAFECOLL_AGREE=always" \
    "^libsafecoll: rank [01]: safecoll_igatherv: rank 0(: recvcounts is NULL| reported MPI_ERR_ARG)"

# MPI_ERRORS_RETURN: the code, and no line on stderr unless verbose.
run_app codes codes SAFECOLL_STRATEGY=
before=$failed
check "MPI_ERRORS_RETURN: exit 0" [ "$(cat codes.rc)" -eq 0 ]
check "MPI_ERRORS_RETURN: nothing on stderr from the library" \
    bash -c "! grep -q '^libsafecoll:' codes.err"
check "MPI_ERRORS_RETURN: both ranks got an MPI_ERR_BUFFER code" \
    [ "$(grep -Ec '^fatal-app: rank [01] code (ok|unsupported)' codes.out)" -eq 2 ]
if grep -q '^fatal-app: rank 0 code unsupported' codes.out; then
    lib_skip "fatal: MPI_Error_string names libsafecoll" \
        "$(sed -n 's/^fatal-app: rank 0 code unsupported: //p' codes.out)"
else
    check "MPI_ERRORS_RETURN: MPI_Error_string on the code names libsafecoll" \
        [ "$(grep -c '^fatal-app: rank [01] code ok: .*libsafecoll' codes.out)" -eq 2 ]
fi
[ "$failed" -eq "$before" ] || show codes

run_app verbose codes SAFECOLL_STRATEGY= SAFECOLL_VERBOSE=1
check "MPI_ERRORS_RETURN, SAFECOLL_VERBOSE=1: each rank's message on stderr" \
    [ "$(grep -Ec '^libsafecoll: rank [01]: .*sendbuf' verbose.err)" -eq 2 ]
[ "$failed" -eq 0 ] || show verbose

# The Fortran binding refuses a strided array section (MPI_ERR_BUFFER)
# through the same raise point: the line names the function, the argument
# and that it is not contiguous; under MPI_ERRORS_RETURN the class, the
# message in safecoll_last_error, and nothing on stderr.
if [ -x "$dir/app_f08" ]; then
    APP=app_f08 run_app f08 fatal
    fatal f08 "Fortran safecoll_bcast of a strided section" \
        "^libsafecoll: rank [01]: safecoll_bcast: rank [01]: buffer is not contiguous "
    APP=app_f08 run_app f08ret return
    before=$failed
    check "Fortran, MPI_ERRORS_RETURN: exit 0" [ "$(cat f08ret.rc)" -eq 0 ]
    check "Fortran, MPI_ERRORS_RETURN: MPI_ERR_BUFFER and safecoll_last_error naming buffer on both ranks" \
        [ "$(grep -Ec '^fatal-app: rank ([01]) class ok: safecoll_bcast: rank \1: buffer is not contiguous' f08ret.out)" -eq 2 ]
    check "Fortran, MPI_ERRORS_RETURN: nothing on stderr from the library" \
        bash -c "! grep -q '^libsafecoll:' f08ret.err"
    [ "$failed" -eq "$before" ] || show f08ret
else
    lib_skip "fatal: Fortran non-contiguous buffer" "the Fortran binding is not built (no MPI Fortran wrapper)"
fi

echo "  fatal: $checks checks, $failed failed"
[ "$failed" -eq 0 ]
