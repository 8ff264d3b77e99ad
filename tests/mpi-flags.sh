# shellcheck shell=bash
# Sourced by the scripts that start MPI jobs (run-mpi.sh, check-install.sh):
# the launcher flags the MPI of $MPIEXEC needs on this machine.
#
# Open MPI refuses to run as root and to start more ranks than cores unless
# told; MPICH needs nothing.  Only when MPIEXEC_FLAGS is unset (the Makefile
# exports it only when it was given): then it becomes --oversubscribe for
# Open MPI, OMPI_MCA_mpi_yield_when_idle=1 and OMPI_MCA_pml=ob1 are exported
# (below), and as root the two allow-run-as-root variables are exported.
# A set MPIEXEC_FLAGS, even empty, is used as it is.
# shellcheck source=tests/mpi-names.sh
. "$(dirname "${BASH_SOURCE[0]}")/mpi-names.sh"
if [ -z "${MPIEXEC_FLAGS+set}" ]; then
    MPIEXEC_FLAGS=
    if "$MPIEXEC" --version 2>/dev/null | grep -qi 'open mpi\|openrte'; then
        MPIEXEC_FLAGS=--oversubscribe
        # Ranks that wait yield the core, as Open MPI does by itself only
        # once there are more ranks than cores: at P = 2 on 2 cores it
        # spins, and a rank's progress thread (SAFECOLL_NB_THREAD) or the
        # other rank waits for a scheduler slice. test_nb_stress took
        # 10-38 s at P = 2 against 1-2 s at P = 3, and 0.8-1.1 s with
        # this. It changes how a rank waits, not what MPI does; a value
        # already set is kept.
        export OMPI_MCA_mpi_yield_when_idle=${OMPI_MCA_mpi_yield_when_idle:-1}
        # ob1, the point-to-point layer Open MPI picks on one node with no
        # high-speed network, named so that MPI_Init does not first open
        # the cm layer and its PSM and PSM2 transports (Debian's
        # openmpi-mca-params.conf leaves them in) only to find no device:
        # a probe job took 0.55 s against 0.25 s with it, and the Open MPI
        # pass starts several hundred jobs. The same layer runs either
        # way; a value already set is kept.
        export OMPI_MCA_pml=${OMPI_MCA_pml:-ob1}
        if [ "$(id -u)" = 0 ]; then
            export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
        fi
    fi
fi
