/*
 * safecoll_barrier and safecoll_ibarrier. A barrier carries no data, so no
 * detector can fire and no avoidance applies: the safe version is the
 * native call, counted in the statistics, unless p2p is forced: then the
 * reference barrier of src/avoid/barrier.c runs on the private
 * communicator (the i-form in a coroutine), so that `all=p2p`, the
 * debugging setting, carries every collective. Any other strategy cannot
 * carry it: forced for every collective (`all=chunk`) it leaves the
 * barrier native, with a line in the verbose log; forced for the barrier
 * itself it is refused with a message that says why, so that a
 * configuration that expects avoidance does not pass silently. On an
 * intercommunicator the barrier is always the native call.
 */
#include <stdio.h>
#include <stdlib.h>

#include "avoid.h"
#include "quick.h"
#include "traffic.h"

/* An ibarrier under p2p: the second private duplicate, held until the
 * body ends. */
typedef struct p2p_op {
    MPI_Comm priv;
    sc__comm_ref *ref;
} p2p_op;

static int p2p_body(void *arg)
{
    return sc__barrier_p2p(((p2p_op *)arg)->priv);
}

static void p2p_free(void *arg)
{
    sc__comm_release(((p2p_op *)arg)->ref);
    free(arg);
}

static int run_p2p(MPI_Comm comm, int nb, MPI_Request *request)
{
    p2p_op *op;
    MPI_Comm priv;
    int rc;

    if (!nb)
        return (rc = sc__comm_private(comm, &priv)) == MPI_SUCCESS ? sc__barrier_p2p(priv) : rc;
    if ((op = malloc(sizeof *op)) == NULL)
        return sc__error(MPI_ERR_NO_MEM, "safecoll_ibarrier: out of memory");
    if ((rc = sc__comm_private_nb(comm, &op->priv, &op->ref)) != MPI_SUCCESS) {
        free(op);
        return rc;
    }
    return sc__nb_start(op->priv, p2p_body, op, p2p_free, 0, request);
}

static int __attribute__((noinline))
whole(safecoll_coll coll, const char *fn, MPI_Comm comm, int nb, MPI_Request *request)
{
    safecoll_strategy forced = SAFECOLL_STRATEGY_AUTO;
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
    else if (inter)
        rc = sc__inter_forced(coll, fn, comm);
    else if ((rc = sc__config_init()) == MPI_SUCCESS &&
             (forced = sc__config_forced(coll)) != SAFECOLL_STRATEGY_AUTO &&
             forced != SAFECOLL_STRATEGY_NATIVE && forced != SAFECOLL_STRATEGY_P2P) {
        if (!sc__config_forced_all(coll))
            rc = sc__error(MPI_ERR_UNSUPPORTED_OPERATION,
                           "%s: the forced strategy %s cannot carry a barrier: it moves no "
                           "data, and only native and p2p apply to it",
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
    if (!inter && forced == SAFECOLL_STRATEGY_P2P) {
        if (nb)
            *request = MPI_REQUEST_NULL;
        rc = run_p2p(comm, nb, request);
        sc__stats_count(coll, SAFECOLL_STRATEGY_P2P, 0, rc != MPI_SUCCESS);
        if (rc != MPI_SUCCESS)
            rc = sc__call_errhandler(comm, rc);
        return rc;
    }
    rc = SC_TR_COLL(nb ? request : NULL, MPI_Barrier, MPI_Ibarrier, comm);
    return sc__regular_native_done(coll, rc);
}

/* The quick call (quick.h): a communicator among the last four the
 * thread met, an intracommunicator, the settings read, no checking mode,
 * nothing forced but native: MPI's barrier at once. Else the whole entry,
 * which decides anew. */
SC_QUICK_INLINE int barrier(safecoll_coll coll, const char *fn, MPI_Comm comm, int nb,
                            MPI_Request *request)
{
    int rank, size, rc;

    if ((!nb || request != NULL) && sc__quick_settled(coll, 1) &&
        sc__quick_comm(comm, SC_NO_ROOT, &rank, &size)) {
        if (!nb)
            sc__nb_drain(comm); /* a blocking call: see nb.h */
        rc = SC_TR_COLL(nb ? request : NULL, MPI_Barrier, MPI_Ibarrier, comm);
        sc__stats_count(coll, SAFECOLL_STRATEGY_NATIVE, 0, rc != MPI_SUCCESS);
        return rc;
    }
    return whole(coll, fn, comm, nb, request);
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
