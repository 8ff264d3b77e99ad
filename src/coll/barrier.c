/*
 * safecoll_barrier and safecoll_ibarrier. A barrier carries no data, so no
 * detector can fire and no avoidance applies: the safe version is the
 * native call, counted in the statistics. A forced strategy other than
 * native is refused, so that a configuration that expects avoidance does
 * not pass silently.
 */
#include "pipeline.h"

static int barrier(safecoll_coll coll, const char *fn, MPI_Comm comm, int nb,
                   MPI_Request *request)
{
    safecoll_strategy forced;
    int rank, size, rc;

    if ((rc = sc__regular_begin(coll, fn, comm, SC_NO_ROOT, &rank, &size)) != MPI_SUCCESS)
        return rc;
    if (nb && request == NULL)
        rc = sc__error(MPI_ERR_REQUEST, "%s: rank %d: request is NULL", fn, rank);
    else if ((rc = sc__config_init()) == MPI_SUCCESS &&
             (forced = sc__config_forced(coll)) != SAFECOLL_STRATEGY_AUTO &&
             forced != SAFECOLL_STRATEGY_NATIVE)
        rc = sc__error(MPI_ERR_UNSUPPORTED_OPERATION,
                       "%s: the forced strategy %s does not apply to this collective", fn,
                       safecoll_strategy_name(forced));
    if (rc != MPI_SUCCESS)
        return sc__regular_fail(coll, comm, rc);
    rc = nb ? MPI_Ibarrier(comm, request) : MPI_Barrier(comm);
    return sc__regular_native_done(coll, rc);
}

int safecoll_barrier(MPI_Comm comm)
{
    return barrier(SAFECOLL_COLL_BARRIER, "safecoll_barrier", comm, 0, NULL);
}

int safecoll_ibarrier(MPI_Comm comm, MPI_Request *request)
{
    return barrier(SAFECOLL_COLL_IBARRIER, "safecoll_ibarrier", comm, 1, request);
}
