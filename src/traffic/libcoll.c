/*
 * The library's own small collectives on point-to-point alone (traffic.h).
 *
 * The first meeting of a communicator (src/call/meet.c) uses them always:
 * it is then the same on every rank whatever strategies each rank was
 * given, which is what it compares. The other collectives the library
 * makes on its own account (the agreement, the checking mode, the plans
 * of some strategies) use them when every collective is forced to the
 * point-to-point strategy (SAFECOLL_STRATEGY=all=p2p, sc__config_p2p_only),
 * so that the reference mode makes no MPI collective call at all.
 *
 * On an intracommunicator allgather and allreduce go up a binomial tree
 * to rank 0 and back down (2 ceil(log2 P) rounds), bcast down one rooted
 * at the root, scatter and alltoall directly. On an intercommunicator
 * each rank exchanges its block with every remote rank, and the roots are
 * MPI's (MPI_ROOT, MPI_PROC_NULL, a remote rank). Every transfer is posted
 * and completed through `wait` (sc__tr_waitall when NULL), so that the
 * non-blocking engine's coroutines yield while they wait (sc__nb_waitall).
 */
#include <stdlib.h>
#include <string.h>

#include "traffic.h"

/* The bytes of n elements of type (contiguous, predefined). */
static size_t block_bytes(int n, MPI_Datatype type)
{
    MPI_Aint lb, extent;

    if (MPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS)
        return 0;
    return (size_t)n * (size_t)extent;
}

/* A post of the library's own messages: marked SC_TR_AGREE. */
static int post(int send, const void *buf, int n, MPI_Datatype type, int peer, MPI_Comm comm,
                MPI_Request *req)
{
    const int tag = SC_TR_TAG_LIBCOLL;

    if (send)
        return SC_TR_P2P_CALL(MPI_Isend(buf, n, type, peer, tag, comm, req), SC_TR_OP_ISEND,
                              .buf = buf, .count = n, .type = type, .peer = peer, .tag = tag,
                              .comm = comm, .req = req, .kind = SC_TR_AGREE);
    return SC_TR_P2P_CALL(MPI_Irecv((void *)buf, n, type, peer, tag, comm, req), SC_TR_OP_IRECV,
                          .buf = buf, .count = n, .type = type, .peer = peer, .tag = tag,
                          .comm = comm, .req = req, .kind = SC_TR_AGREE);
}

/* One message to (send) or from peer on the library's tag, completed. */
static int xfer(int send, const void *buf, int n, MPI_Datatype type, int peer, MPI_Comm comm,
                sc__tr_wait_fn wait)
{
    MPI_Request req = MPI_REQUEST_NULL;
    int rc = post(send, buf, n, type, peer, comm, &req);

    if (rc != MPI_SUCCESS)
        return rc;
    return wait != NULL ? wait(1, &req) : sc__tr_waitall(1, &req);
}

/* buf down the binomial tree of p ranks rooted at virtual rank 0, where
 * virtual rank v is rank (v + root) % p: from the parent (v less its
 * lowest set bit), then to each child v + m for m below that bit. */
static int tree_down(void *buf, int count, MPI_Datatype type, int root, int rank, int p,
                     MPI_Comm comm, sc__tr_wait_fn wait)
{
    const int v = (rank - root + p) % p;
    int low = 1, rc = MPI_SUCCESS;

    while (low < p && !(v & low))
        low <<= 1;
    if (v != 0)
        rc = xfer(0, buf, count, type, (v - low + root) % p, comm, wait);
    for (int m = low >> 1; rc == MPI_SUCCESS && m > 0; m >>= 1)
        if (v + m < p)
            rc = xfer(1, buf, count, type, (v + m + root) % p, comm, wait);
    return rc;
}

/* Posts a send of sb to (rb NULL: no receive) and a receive into rb from
 * each peer j in [0, n) but skip, block j of sb (stride sbytes, 0: the
 * same block to all) and of rb (stride rbytes); completes them all. */
static int exchange(const void *sb, int sn, MPI_Datatype st, size_t sbytes, void *rb, int rn,
                    MPI_Datatype rt, size_t rbytes, int n, int skip, MPI_Comm comm,
                    sc__tr_wait_fn wait)
{
    MPI_Request *reqs = malloc(sizeof *reqs * 2 * (size_t)(n > 0 ? n : 1));
    int k = 0, rc = MPI_SUCCESS;

    if (reqs == NULL)
        return MPI_ERR_NO_MEM;
    for (int j = 0; rc == MPI_SUCCESS && j < n; j++) {
        if (j == skip)
            continue;
        if (rb != NULL)
            rc = post(0, (char *)rb + (size_t)j * rbytes, rn, rt, j, comm, &reqs[k++]);
        if (rc == MPI_SUCCESS && sb != NULL)
            rc = post(1, (const char *)sb + (size_t)j * sbytes, sn, st, j, comm, &reqs[k++]);
    }
    /* What was posted completes, even after a failed post: the peers
     * match it. */
    {
        int wrc = wait != NULL ? wait(k, reqs) : sc__tr_waitall(k, reqs);
        if (rc == MPI_SUCCESS)
            rc = wrc;
    }
    free(reqs);
    return rc;
}

/* The shape of comm: intercommunicator or not, rank, size (the remote
 * group's on an intercommunicator). */
static int shape(MPI_Comm comm, int *inter, int *rank, int *p)
{
    int rc = MPI_Comm_test_inter(comm, inter);

    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_rank(comm, rank);
    if (rc == MPI_SUCCESS)
        rc = *inter ? MPI_Comm_remote_size(comm, p) : MPI_Comm_size(comm, p);
    return rc;
}

int sc__tr_lib_MPI_Allgather(const void *sb, int sn, MPI_Datatype st, void *rb, int rn,
                             MPI_Datatype rt, MPI_Comm comm, sc__tr_wait_fn wait)
{
    const size_t bytes = block_bytes(rn, rt);
    int inter, rank, p, rc = shape(comm, &inter, &rank, &p);

    if (rc != MPI_SUCCESS)
        return rc;
    if (inter)
        return exchange(sb, sn, st, 0, rb, rn, rt, bytes, p, -1, comm, wait);
    memcpy((char *)rb + (size_t)rank * bytes, sb, bytes);
    /* Up the tree: in round m a rank whose bit m is set sends the blocks
     * it holds, rank .. rank + m - 1 (those below p), to rank - m, which
     * appends them to its own. */
    for (int m = 1; rc == MPI_SUCCESS && m < p; m <<= 1) {
        if (rank & m) {
            int have = rank + m < p ? m : p - rank;
            rc = xfer(1, (char *)rb + (size_t)rank * bytes, have * rn, rt, rank - m, comm, wait);
            break;
        }
        if (rank + m < p) {
            int get = rank + 2 * m <= p ? m : p - rank - m;
            rc = xfer(0, (char *)rb + (size_t)(rank + m) * bytes, get * rn, rt, rank + m, comm,
                      wait);
        }
    }
    if (rc == MPI_SUCCESS)
        rc = tree_down(rb, p * rn, rt, 0, rank, p, comm, wait);
    return rc;
}

int sc__tr_lib_MPI_Allreduce(const void *sb, void *rb, int n, MPI_Datatype type, MPI_Op op,
                             MPI_Comm comm, sc__tr_wait_fn wait)
{
    const size_t bytes = block_bytes(n, type);
    int inter, rank, p, rc = shape(comm, &inter, &rank, &p);
    char *tmp;

    if (rc != MPI_SUCCESS)
        return rc;
    if ((tmp = malloc(bytes * (size_t)(inter ? p : 1) + 1)) == NULL)
        return MPI_ERR_NO_MEM;
    if (inter) {
        /* The remote group's blocks, reduced in rank order. */
        rc = exchange(sb, n, type, 0, tmp, n, type, bytes, p, -1, comm, wait);
        if (rc == MPI_SUCCESS && p > 0)
            memcpy(rb, tmp, bytes);
        for (int j = 1; rc == MPI_SUCCESS && j < p; j++)
            rc = MPI_Reduce_local(tmp + (size_t)j * bytes, rb, n, type, op);
        free(tmp);
        return rc;
    }
    memcpy(rb, sb, bytes);
    /* Up the tree as in the allgather, each child's partial result
     * reduced into this rank's (the operation commutes). */
    for (int m = 1; rc == MPI_SUCCESS && m < p; m <<= 1) {
        if (rank & m) {
            rc = xfer(1, rb, n, type, rank - m, comm, wait);
            break;
        }
        if (rank + m < p && (rc = xfer(0, tmp, n, type, rank + m, comm, wait)) == MPI_SUCCESS)
            rc = MPI_Reduce_local(tmp, rb, n, type, op);
    }
    free(tmp);
    if (rc == MPI_SUCCESS)
        rc = tree_down(rb, n, type, 0, rank, p, comm, wait);
    return rc;
}

int sc__tr_lib_MPI_Bcast(void *buf, int n, MPI_Datatype type, int root, MPI_Comm comm,
                         sc__tr_wait_fn wait)
{
    int inter, rank, p, rc = shape(comm, &inter, &rank, &p);

    if (rc != MPI_SUCCESS || (inter && root == MPI_PROC_NULL))
        return rc;
    if (inter && root == MPI_ROOT)
        return exchange(buf, n, type, 0, NULL, 0, type, 0, p, -1, comm, wait);
    if (inter)
        return xfer(0, buf, n, type, root, comm, wait);
    return tree_down(buf, n, type, root, rank, p, comm, wait);
}

int sc__tr_lib_MPI_Scatter(const void *sb, int sn, MPI_Datatype st, void *rb, int rn,
                           MPI_Datatype rt, int root, MPI_Comm comm, sc__tr_wait_fn wait)
{
    int inter, rank, p, rc = shape(comm, &inter, &rank, &p);

    if (rc != MPI_SUCCESS || (inter && root == MPI_PROC_NULL))
        return rc;
    if ((inter && root == MPI_ROOT) || (!inter && rank == root)) {
        if (!inter)
            memcpy(rb, (const char *)sb + (size_t)rank * block_bytes(sn, st),
                   block_bytes(rn, rt));
        return exchange(sb, sn, st, block_bytes(sn, st), NULL, 0, rt, 0, p, inter ? -1 : rank,
                        comm, wait);
    }
    return xfer(0, rb, rn, rt, root, comm, wait);
}

int sc__tr_lib_MPI_Alltoall(const void *sb, int sn, MPI_Datatype st, void *rb, int rn,
                            MPI_Datatype rt, MPI_Comm comm, sc__tr_wait_fn wait)
{
    const size_t sbytes = block_bytes(sn, st), rbytes = block_bytes(rn, rt);
    int inter, rank, p, rc = shape(comm, &inter, &rank, &p);

    if (rc != MPI_SUCCESS)
        return rc;
    if (!inter)
        memcpy((char *)rb + (size_t)rank * rbytes, (const char *)sb + (size_t)rank * sbytes,
               rbytes);
    return exchange(sb, sn, st, sbytes, rb, rn, rt, rbytes, p, inter ? -1 : rank, comm, wait);
}
