#!/usr/bin/env bash
# The default MPI wrappers, without building anything: the Makefile (`make
# print-mpi`, `make -n deps`) and tests/mpi-names.sh run with a PATH that
# holds only fake wrappers (and the few tools parsing the Makefile needs).
#
#   modules:  mpicc, mpicxx, mpiexec only   -> those, and deps installs no mpich
#   Debian:   the .mpich names as well      -> the .mpich names, with mpich
#   nothing:  no wrapper at all             -> the .mpich names (deps installs them)
#   explicit: MPICC=... on the command line or in the environment wins
#
#   tests/check-mpi-names.sh       (from the top of the tree; make check-mpi-names)
#
# Environment: MAKE.  Prints one line per failed assertion and
# "mpi-names: N checks, F failed"; exit status non-zero when anything failed.
set -uo pipefail

make_bin=$(command -v "${MAKE:-make}") || { echo "mpi-names: no make" >&2; exit 2; }
bash_bin=$(command -v bash)
top=$(pwd)
scratch=$(mktemp -d "${TMPDIR:-/tmp}/safecoll-mpinames.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
checks=0
failed=0

# fakes DIR NAME...: DIR with an executable script for each NAME, and the
# tools the Makefile's parse and these checks run.
fakes() {
    local dir=$1 t
    shift
    mkdir -p "$dir"
    for t in sed grep printf env; do ln -sf "$(type -P "$t")" "$dir/$t"; done
    for t in "$@"; do printf '#!/bin/sh\necho "fake %s"\n' "$t" > "$dir/$t"; chmod +x "$dir/$t"; done
}
fakes "$scratch/none"
fakes "$scratch/modules" mpicc mpicxx mpiexec
fakes "$scratch/debian" mpicc mpicxx mpiexec mpicc.mpich mpicxx.mpich mpiexec.mpich

# with_path DIR CMD...: CMD with PATH=DIR and nothing of a calling make (its
# variables travel in MAKEFLAGS and the environment).
with_path() {
    local dir=$1
    shift
    env -u MAKEFLAGS -u MAKEOVERRIDES -u MFLAGS -u MAKELEVEL -u MPICC -u MPICXX -u MPIEXEC \
        -u SAFECOLL_NO_DEPS PATH="$dir" "$@"
}

# expect WHAT GOT WANT
expect() {
    checks=$((checks + 1))
    if [ "$2" != "$3" ]; then
        failed=$((failed + 1))
        echo "FAIL: $1: got '$2', expected '$3'"
    fi
}

# case LABEL DIR CC CXX EXEC DEPS [MAKE ARGS...]
case_() {
    local label=$1 dir=$2 cc=$3 cxx=$4 exec=$5 deps=$6 out
    shift 6
    out=$(with_path "$dir" "$make_bin" -s --no-print-directory -C "$top" "$@" print-mpi 2>&1)
    expect "$label: make print-mpi" "$(printf '%s\n' "$out" | paste -sd' ')" \
        "MPICC=$cc MPICXX=$cxx MPIEXEC=$exec MPI_DEPS_PKGS=$deps"
}

case_ "modules" "$scratch/modules" mpicc mpicxx mpiexec ""
case_ "debian" "$scratch/debian" mpicc.mpich mpicxx.mpich mpiexec.mpich "mpich libmpich-dev"
case_ "nothing" "$scratch/none" mpicc.mpich mpicxx.mpich mpiexec.mpich "mpich libmpich-dev"
case_ "modules, MPICC= given" "$scratch/modules" /opt/mpi/bin/mpicc mpicxx mpiexec "" \
    MPICC=/opt/mpi/bin/mpicc
case_ "debian, MPICC=mpicc given" "$scratch/debian" mpicc mpicxx.mpich mpiexec.mpich \
    "mpich libmpich-dev" MPICC=mpicc
out=$(with_path "$scratch/debian" env MPIEXEC=mpiexec.openmpi "$make_bin" -s --no-print-directory \
      -C "$top" print-mpi | sed -n 's/^MPIEXEC=//p')
expect "debian, MPIEXEC in the environment" "$out" mpiexec.openmpi

# What `make deps` would run: no mpich with the modules' MPI, and it says so.
deps_plan() {
    with_path "$1" "$make_bin" -n --no-print-directory -C "$top" deps 2>&1
}
plan=$(deps_plan "$scratch/modules")
expect "modules: make -n deps names mpich" "$(printf '%s\n' "$plan" | grep -c 'for p in .*mpich')" 0
expect "modules: make -n deps says why" \
    "$(printf '%s\n' "$plan" | grep -c 'mpicc and mpiexec from PATH.*not installing mpich')" 1
plan=$(deps_plan "$scratch/debian")
expect "debian: make -n deps names mpich libmpich-dev" \
    "$(printf '%s\n' "$plan" | grep -c 'for p in .* mpich libmpich-dev ')" 1

# The scripts' defaults (tests/mpi-names.sh), the same way.
# shellcheck disable=SC2016 # expanded by the inner bash
names() {
    with_path "$1" "$bash_bin" -c '. tests/mpi-names.sh && echo "$MPICC $MPICXX $MPIEXEC"'
}
expect "modules: tests/mpi-names.sh" "$(names "$scratch/modules")" "mpicc mpicxx mpiexec"
expect "debian: tests/mpi-names.sh" "$(names "$scratch/debian")" "mpicc.mpich mpicxx.mpich mpiexec.mpich"
expect "nothing: tests/mpi-names.sh" "$(names "$scratch/none")" "mpicc.mpich mpicxx.mpich mpiexec.mpich"
# shellcheck disable=SC2016 # expanded by the inner bash
expect "modules, MPICC given: tests/mpi-names.sh" \
    "$(with_path "$scratch/modules" env MPICC=/x/mpicc "$bash_bin" -c '. tests/mpi-names.sh && echo "$MPICC"')" \
    /x/mpicc

echo "mpi-names: $checks checks, $failed failed"
[ "$failed" -eq 0 ]
