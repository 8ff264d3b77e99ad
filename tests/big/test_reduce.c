/*
 * safecoll_reduce, safecoll_ireduce, safecoll_allreduce and
 * safecoll_iallreduce at real sizes, 4 ranks: 550,000,000 MPI_INT with
 * MPI_SUM, so s*n = 2,200,000,000 bytes while the count fits in int, past
 * a bound the test registers for the collective, G in bytes. In place, to
 * halve the memory: 2.2 GB per rank, 8.8 GB in all, plus the temporaries
 * (MPICH's reduction of a slice, or p2p's two buffers of n at the root).
 *
 *   test_reduce allreduce   (default) safecoll_allreduce, MPI_IN_PLACE on
 *                           every rank, bound G_bytes > INT_MAX: chunk
 *                           reduces slices of 536,870,911 ints, for which
 *                           MPICH adds about 1 GB per rank (13.2 GB in all).
 *   test_reduce iallreduce  the same through safecoll_iallreduce and
 *                           MPI_Wait, with the bound on iallreduce.
 *   test_reduce reduce      safecoll_reduce to root 2, MPI_IN_PLACE at the
 *                           root, bound G_bytes > 2^29: MPICH's MPI_Reduce
 *                           allocates two temporaries of the message on
 *                           the ranks (19.6 GB in all with slices of
 *                           INT_MAX bytes), so the slices are kept to 512 MiB.
 *   test_reduce ireduce     the same through safecoll_ireduce and MPI_Wait,
 *                           with the bound on ireduce.
 *
 * Rank r contributes (j mod 65521) (r + 1) + r + 1 at element j, so every
 * sum is exact, 10 (j mod 65521) + 10, and tells the ranks apart; 65521
 * is prime, so an element moved by a slice or a block is noticed, and an
 * unwritten one (0) is wrong. The strategy comes from SAFECOLL_STRATEGY.
 */
#include "big.h"

#define PERIOD 65521

/* The call of the mode, in place; `root` matters for the reduce forms. */
static int call(int reduce, int nb, int *buf, int n, int root)
{
    const void *sendbuf = reduce && big_rank != root ? buf : MPI_IN_PLACE;
    void *recvbuf = reduce && big_rank != root ? NULL : buf;
    MPI_Request req;
    int rc;

    if (!nb)
        return reduce ? safecoll_reduce(sendbuf, recvbuf, n, MPI_INT, MPI_SUM, root,
                                        MPI_COMM_WORLD)
                      : safecoll_allreduce(sendbuf, recvbuf, n, MPI_INT, MPI_SUM,
                                           MPI_COMM_WORLD);
    rc = reduce ? safecoll_ireduce(sendbuf, recvbuf, n, MPI_INT, MPI_SUM, root, MPI_COMM_WORLD,
                                   &req)
                : safecoll_iallreduce(sendbuf, recvbuf, n, MPI_INT, MPI_SUM, MPI_COMM_WORLD,
                                      &req);
    return rc != MPI_SUCCESS ? rc : MPI_Wait(&req, MPI_STATUS_IGNORE);
}

int main(int argc, char **argv)
{
    const char *forced = big_init(&argc, &argv);
    const char *mode = argc > 1 ? argv[1] : "allreduce";
    const long long n = 550000000;
    const int root = 2;
    const char *name = NULL;
    int reduce = 0, nb = 0, rc, bad = 0, *buf;
    safecoll_coll coll = SAFECOLL_COLL_ALLREDUCE;
    long long wrong = -1;
    long bound;
    double t;

    if (!big_need_ranks(4))
        return 1;
    static const struct {
        const char *mode, *name;
        safecoll_coll coll;
        int reduce, nb;
    } modes[] = {
        {"allreduce", "allreduce-inplace", SAFECOLL_COLL_ALLREDUCE, 0, 0},
        {"iallreduce", "iallreduce-inplace", SAFECOLL_COLL_IALLREDUCE, 0, 1},
        {"reduce", "reduce-inplace", SAFECOLL_COLL_REDUCE, 1, 0},
        {"ireduce", "ireduce-inplace", SAFECOLL_COLL_IREDUCE, 1, 1},
    };
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (strcmp(mode, modes[i].mode) == 0) {
            name = modes[i].name;
            coll = modes[i].coll;
            reduce = modes[i].reduce;
            nb = modes[i].nb;
        }
    if (name == NULL) {
        if (big_rank == 0)
            printf("test_reduce: unknown mode '%s' (allreduce, iallreduce, reduce or "
                   "ireduce)\n", mode);
        MPI_Finalize();
        return 2;
    }
    bound = big_bound_add(coll, SAFECOLL_BOUND_G_BYTES, reduce ? 1 << 29 : INT_MAX);

    buf = (int *)(void *)big_map((size_t)n * sizeof(int));
    for (long long j = 0, k = 0; j < n; j++, k = k + 1 == PERIOD ? 0 : k + 1)
        buf[j] = (int)k * (big_rank + 1) + big_rank + 1;
    big_phase("prepared");

    BIG_TIMED(t, rc, call(reduce, nb, buf, (int)n, root));
    big_phase("called");

    if (rc == MPI_SUCCESS && (!reduce || big_rank == root))
        for (long long j = 0, k = 0; j < n && wrong < 0; j++, k = k + 1 == PERIOD ? 0 : k + 1)
            if (buf[j] != (int)k * 10 + 10)
                wrong = j;
    if (wrong >= 0) {
        printf("  rank %d: element %lld of %lld is %d, want %d\n", big_rank, wrong, n,
               buf[wrong], (int)(wrong % PERIOD) * 10 + 10);
        bad = 1;
    }
    big_phase("checked");
    bad |= bound < 0 || big_missed_g(coll, rc);
    big_bound_remove(bound);
    return big_finish(name, coll, forced, rc, bad, 0, t);
}
