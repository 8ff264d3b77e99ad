# shellcheck shell=bash
# Sourced by the scripts that name an MPI wrapper: the defaults of MPICC,
# MPICXX and MPIEXEC, picked as the Makefile picks them.  Debian's MPICH
# names (mpicc.mpich, ...) when they are on PATH; else the plain names when
# they are (an MPI from environment modules or Spack); else the Debian
# names, which `make deps` installs.  A value already set is kept.
mpi_name() {
    if command -v "$1" >/dev/null 2>&1 || ! command -v "$2" >/dev/null 2>&1; then
        echo "$1"
    else
        echo "$2"
    fi
}
MPICC=${MPICC:-$(mpi_name mpicc.mpich mpicc)}
MPICXX=${MPICXX:-$(mpi_name mpicxx.mpich mpicxx)}
MPIEXEC=${MPIEXEC:-$(mpi_name mpiexec.mpich mpiexec)}
