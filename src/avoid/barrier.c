/*
 * The reference barrier of the p2p strategy: a gather to rank 0 of empty
 * messages, then a release from rank 0, on the private communicator. Rank
 * 0 receives from 1, 2, ..., P-1 in that order (no wildcard), then sends
 * to them in the same order, so every run makes the same messages in the
 * same order; no rank leaves before every rank has entered, since rank 0
 * releases only after it heard from all. 2(P-1) messages, the last rank
 * out after about 2(P-1) message latencies: a debugging reference, not a
 * fast barrier. The same code carries safecoll_ibarrier in a coroutine
 * (SC_SEND and SC_RECV yield there).
 */
#include "avoid.h"
#include "nb.h"

/* Its own tag, so a barrier's empty messages never match another
 * strategy's (all p2p traffic is on the private communicators). */
#define SC_TAG_BARRIER (SC_TAG_P2P + 0x30)

int sc__barrier_p2p(MPI_Comm priv)
{
    int rank, size, rc;

    if ((rc = MPI_Comm_rank(priv, &rank)) != MPI_SUCCESS ||
        (rc = MPI_Comm_size(priv, &size)) != MPI_SUCCESS)
        return rc;
    if (rank != 0) {
        if ((rc = SC_SEND(NULL, 0, MPI_BYTE, 0, SC_TAG_BARRIER, priv)) != MPI_SUCCESS)
            return rc;
        return SC_RECV(NULL, 0, MPI_BYTE, 0, SC_TAG_BARRIER, priv);
    }
    for (int i = 1; i < size && rc == MPI_SUCCESS; i++)
        rc = SC_RECV(NULL, 0, MPI_BYTE, i, SC_TAG_BARRIER, priv);
    for (int i = 1; i < size && rc == MPI_SUCCESS; i++)
        rc = SC_SEND(NULL, 0, MPI_BYTE, i, SC_TAG_BARRIER, priv);
    return rc;
}
