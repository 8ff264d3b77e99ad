/*
 * safecoll_barrier and safecoll_ibarrier. A barrier carries no data, so no
 * detector can fire and no avoidance applies: the safe version is the
 * native call, counted in the statistics. No strategy but native can carry
 * it: a strategy forced for every collective (`all=p2p`, the debugging
 * setting) leaves the barrier native, with a line in the verbose log; one
 * forced for the barrier itself is refused with a message that says why,
 * so that a configuration that expects avoidance does not pass silently.
 * On an intercommunicator too the barrier is the native call.
 */
#include <stdio.h>

#include "argcheck.h"
#include "nb.h"
#include "pipeline.h"
#include "traffic.h"

static int barrier(safecoll_coll coll, const char *fn, MPI_Comm comm, int nb,
                   MPI_Request *request)
{
    safecoll_strategy forced;
    int rank, size, rc, inter;

    rc = sc__regular_begin(coll, fn, comm, SC_NO_ROOT, &rank, &size);
    inter = rc == SC_INTER;
    if (inter) {
        if (!nb)
            sc__nb_drain(comm); /* a blocking call: see nb.h */
        MPI_Comm_rank(comm, &rank);
        rc = MPI_SUCCESS;
    } else if (rc != MPI_SUCCESS) {
        return rc;
    }
    if (nb && request == NULL)
        rc = sc__error(MPI_ERR_REQUEST, "%s: rank %d: request is NULL", fn, rank);
    else if ((rc = sc__config_init()) == MPI_SUCCESS &&
             (forced = sc__config_forced(coll)) != SAFECOLL_STRATEGY_AUTO &&
             forced != SAFECOLL_STRATEGY_NATIVE) {
        if (!sc__config_forced_all(coll))
            rc = sc__error(MPI_ERR_UNSUPPORTED_OPERATION,
                           "%s: the forced strategy %s cannot carry a barrier: it moves no "
                           "data, and only native applies to it",
                           fn, safecoll_strategy_name(forced));
        else if (sc__config_verbose() && rank == 0)
            fprintf(stderr,
                    "libsafecoll: %s: %s, forced for all collectives, does not apply to a "
                    "barrier -> native\n",
                    fn, safecoll_strategy_name(forced));
    }
    if (!inter && SC_CHECK_ON())
        rc = sc__check_bcast(coll, fn, comm, -1, 0, MPI_DATATYPE_NULL, rc);
    if (rc != MPI_SUCCESS)
        return sc__regular_fail(coll, comm, rc);
    rc = SC_TR_COLL(nb ? request : NULL, MPI_Barrier, MPI_Ibarrier, comm);
    return sc__regular_native_done(coll, rc);
}

int safecoll_barrier(MPI_Comm comm)
{
    return SC_TR_REGION("safecoll_barrier",
        barrier(SAFECOLL_COLL_BARRIER, "safecoll_barrier", comm, 0, NULL));
}

int safecoll_ibarrier(MPI_Comm comm, MPI_Request *request)
{
    return SC_TR_REGION("safecoll_ibarrier",
        barrier(SAFECOLL_COLL_IBARRIER, "safecoll_ibarrier", comm, 1, request));
}
