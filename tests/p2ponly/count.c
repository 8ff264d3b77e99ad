/*
 * A PMPI counting library for tests/check-p2ponly.sh: preloaded
 * (LD_PRELOAD) into an MPI program, it counts every call of an MPI
 * collective operation, blocking and started (and their _c forms on
 * MPI 4), each passed on to MPI through its PMPI_ name, and prints the
 * counts of each rank at MPI_Finalize:
 *
 *   p2ponly-count: rank R collectives N comm K [names of those called]
 *
 * N counts the collective operations; K the communicator constructors
 * and MPI_Comm_free, which have no point-to-point form and are counted
 * apart. The test asserts N on every rank.
 */
#include <mpi.h>
#include <stdio.h>
#include <string.h>

static long long ncoll, ncomm;
static char seen[1024];

/* Adds name to the list of operations seen (once each, while room lasts). */
static void saw(const char *name)
{
    char key[64];
    size_t at = strlen(seen);

    snprintf(key, sizeof key, " %s ", name);
    if (strstr(seen, key) == NULL && at + strlen(name) + 2 < sizeof seen)
        snprintf(seen + at, sizeof seen - at, at == 0 ? " %s " : "%s ", name);
}

/* One collective: counts, then calls PMPI_name. */
#define COLL(name, params, args)                                                               \
    int MPI_##name params                                                                      \
    {                                                                                          \
        ncoll++;                                                                               \
        saw("MPI_" #name);                                                                     \
        return PMPI_##name args;                                                               \
    }
#define COMM(name, params, args)                                                               \
    int MPI_##name params                                                                      \
    {                                                                                          \
        ncomm++;                                                                               \
        return PMPI_##name args;                                                               \
    }

#define CB const void *sb
#define RB void *rb
#define T MPI_Datatype

/* The blocking and i-forms of one collective with count type N and
 * displacement type D: the i-form is the blocking one plus a request. */
#define WITH_REQ(...) (__VA_ARGS__, MPI_Request *rq)
#define WITH_RQ(...) (__VA_ARGS__, rq)
#define BOTH(name, iname, params, args)                                                        \
    COLL(name, params, args)                                                                   \
    COLL(iname, WITH_REQ params, WITH_RQ args)

#define FAMILY(S, N, D)                                                                        \
    BOTH(Bcast##S, Ibcast##S, (void *b, N n, T t, int root, MPI_Comm c), (b, n, t, root, c))   \
    BOTH(Gather##S, Igather##S, (CB, N sn, T st, RB, N rn, T rt, int root, MPI_Comm c),        \
         (sb, sn, st, rb, rn, rt, root, c))                                                    \
    BOTH(Scatter##S, Iscatter##S, (CB, N sn, T st, RB, N rn, T rt, int root, MPI_Comm c),      \
         (sb, sn, st, rb, rn, rt, root, c))                                                    \
    BOTH(Allgather##S, Iallgather##S, (CB, N sn, T st, RB, N rn, T rt, MPI_Comm c),            \
         (sb, sn, st, rb, rn, rt, c))                                                          \
    BOTH(Alltoall##S, Ialltoall##S, (CB, N sn, T st, RB, N rn, T rt, MPI_Comm c),              \
         (sb, sn, st, rb, rn, rt, c))                                                          \
    BOTH(Gatherv##S, Igatherv##S,                                                              \
         (CB, N sn, T st, RB, const N rn[], const D d[], T rt, int root, MPI_Comm c),          \
         (sb, sn, st, rb, rn, d, rt, root, c))                                                 \
    BOTH(Scatterv##S, Iscatterv##S,                                                            \
         (CB, const N sn[], const D d[], T st, RB, N rn, T rt, int root, MPI_Comm c),          \
         (sb, sn, d, st, rb, rn, rt, root, c))                                                 \
    BOTH(Allgatherv##S, Iallgatherv##S,                                                        \
         (CB, N sn, T st, RB, const N rn[], const D d[], T rt, MPI_Comm c),                    \
         (sb, sn, st, rb, rn, d, rt, c))                                                       \
    BOTH(Alltoallv##S, Ialltoallv##S,                                                          \
         (CB, const N sn[], const D sd[], T st, RB, const N rn[], const D rd[], T rt,          \
          MPI_Comm c),                                                                         \
         (sb, sn, sd, st, rb, rn, rd, rt, c))                                                  \
    BOTH(Alltoallw##S, Ialltoallw##S,                                                          \
         (CB, const N sn[], const D sd[], const T st[], RB, const N rn[], const D rd[],        \
          const T rt[], MPI_Comm c),                                                           \
         (sb, sn, sd, st, rb, rn, rd, rt, c))                                                  \
    BOTH(Reduce##S, Ireduce##S, (CB, RB, N n, T t, MPI_Op op, int root, MPI_Comm c),           \
         (sb, rb, n, t, op, root, c))                                                          \
    BOTH(Allreduce##S, Iallreduce##S, (CB, RB, N n, T t, MPI_Op op, MPI_Comm c),               \
         (sb, rb, n, t, op, c))                                                                \
    BOTH(Reduce_scatter##S, Ireduce_scatter##S,                                                \
         (CB, RB, const N rn[], T t, MPI_Op op, MPI_Comm c), (sb, rb, rn, t, op, c))           \
    BOTH(Reduce_scatter_block##S, Ireduce_scatter_block##S,                                    \
         (CB, RB, N n, T t, MPI_Op op, MPI_Comm c), (sb, rb, n, t, op, c))                     \
    BOTH(Scan##S, Iscan##S, (CB, RB, N n, T t, MPI_Op op, MPI_Comm c), (sb, rb, n, t, op, c))  \
    BOTH(Exscan##S, Iexscan##S, (CB, RB, N n, T t, MPI_Op op, MPI_Comm c),                     \
         (sb, rb, n, t, op, c))

FAMILY(, int, int)
#if MPI_VERSION >= 4
FAMILY(_c, MPI_Count, MPI_Aint)
#endif
COLL(Barrier, (MPI_Comm c), (c))
COLL(Ibarrier, (MPI_Comm c, MPI_Request *rq), (c, rq))

COMM(Comm_dup, (MPI_Comm c, MPI_Comm *n), (c, n))
COMM(Comm_split_type, (MPI_Comm c, int k, int key, MPI_Info i, MPI_Comm *n), (c, k, key, i, n))
COMM(Comm_split, (MPI_Comm c, int color, int key, MPI_Comm *n), (c, color, key, n))
COMM(Comm_create, (MPI_Comm c, MPI_Group g, MPI_Comm *n), (c, g, n))
COMM(Comm_free, (MPI_Comm *c), (c))

int MPI_Finalize(void)
{
    int rank = -1;

    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    printf("p2ponly-count: rank %d collectives %lld comm %lld [%s]\n", rank, ncoll, ncomm, seen);
    fflush(stdout);
    return PMPI_Finalize();
}
