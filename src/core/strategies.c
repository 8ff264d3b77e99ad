/*
 * Which strategy exists for which collective (safecoll_strategy_applies),
 * as one table of data. It is the contract the rest of the library keeps:
 * the bound parser refuses a performance record whose `use=` is not in it,
 * and the pipeline refuses a forced strategy that is not (on top of the
 * pattern tables of src/avoid/table.c, which hold the executors: the unit
 * test of this table and the MPI suites that force every strategy keep the
 * two in step). It lives in core, not avoid, so that the parser can be
 * built alone (make fuzz).
 */
#include "core.h"

#define BIT(s) (1u << (s))

/* MPI-4's `_c` calls are what largecount runs. */
#if SC_HAVE_MPI4
#define LC BIT(SAFECOLL_STRATEGY_LARGECOUNT)
#else
#define LC 0u
#endif

#define BASE (BIT(SAFECOLL_STRATEGY_AUTO) | BIT(SAFECOLL_STRATEGY_NATIVE))
/* Table X of paper 000, extended (src/avoid/table.c says why each is left
 * out where it is). */
#define ROOTED                                                                                \
    (BASE | LC | BIT(SAFECOLL_STRATEGY_BIGTYPE) | BIT(SAFECOLL_STRATEGY_SEGMENT) |            \
     BIT(SAFECOLL_STRATEGY_CHUNK) | BIT(SAFECOLL_STRATEGY_P2P))
#define ALLTOALL_LIKE                                                                         \
    (BASE | LC | BIT(SAFECOLL_STRATEGY_BIGTYPE) | BIT(SAFECOLL_STRATEGY_CHUNK) |              \
     BIT(SAFECOLL_STRATEGY_P2P))
#define REDUCTION (BASE | LC | BIT(SAFECOLL_STRATEGY_CHUNK) | BIT(SAFECOLL_STRATEGY_P2P))

/* The equivalents of the performance guidelines (paper 003) that are
 * written (src/avoid/equiv*.c); one listed in the table below but not
 * here does not exist yet. All are. */
#define WRITTEN (~0u)

/* Per blocking collective; an i-form has what its blocking form has. */
static const unsigned strategies[SAFECOLL_COLL_IGATHERV] = {
    [SAFECOLL_COLL_GATHERV] = ROOTED | BIT(SAFECOLL_STRATEGY_REGULAR),
    [SAFECOLL_COLL_SCATTERV] = ROOTED | BIT(SAFECOLL_STRATEGY_REGULAR),
    [SAFECOLL_COLL_ALLGATHERV] =
        ROOTED | BIT(SAFECOLL_STRATEGY_GATHER_BCAST) | BIT(SAFECOLL_STRATEGY_REGULAR),
    [SAFECOLL_COLL_ALLTOALLV] = ALLTOALL_LIKE | BIT(SAFECOLL_STRATEGY_REGULAR),
    [SAFECOLL_COLL_BARRIER] = BASE,
    [SAFECOLL_COLL_BCAST] = ALLTOALL_LIKE | BIT(SAFECOLL_STRATEGY_SCATTER_ALLGATHER),
    [SAFECOLL_COLL_GATHER] = ROOTED | BIT(SAFECOLL_STRATEGY_ALLGATHER),
    [SAFECOLL_COLL_SCATTER] = ROOTED | BIT(SAFECOLL_STRATEGY_BCAST),
    [SAFECOLL_COLL_ALLGATHER] =
        ROOTED | BIT(SAFECOLL_STRATEGY_GATHER_BCAST) | BIT(SAFECOLL_STRATEGY_ALLTOALL),
    [SAFECOLL_COLL_ALLTOALL] = ALLTOALL_LIKE,
    [SAFECOLL_COLL_ALLTOALLW] =
        BASE | LC | BIT(SAFECOLL_STRATEGY_CHUNK) | BIT(SAFECOLL_STRATEGY_P2P),
    [SAFECOLL_COLL_REDUCE] = REDUCTION | BIT(SAFECOLL_STRATEGY_ALLREDUCE),
    [SAFECOLL_COLL_ALLREDUCE] =
        REDUCTION | BIT(SAFECOLL_STRATEGY_REDUCE_BCAST) | BIT(SAFECOLL_STRATEGY_RS_ALLGATHER),
    [SAFECOLL_COLL_REDUCE_SCATTER] =
        REDUCTION | BIT(SAFECOLL_STRATEGY_REDUCE_SCATTER) | BIT(SAFECOLL_STRATEGY_ALLREDUCE),
    [SAFECOLL_COLL_REDUCE_SCATTER_BLOCK] =
        REDUCTION | BIT(SAFECOLL_STRATEGY_REDUCE_SCATTER) | BIT(SAFECOLL_STRATEGY_ALLREDUCE),
    [SAFECOLL_COLL_SCAN] = REDUCTION | BIT(SAFECOLL_STRATEGY_EXSCAN_REDUCE_LOCAL),
    [SAFECOLL_COLL_EXSCAN] = REDUCTION,
};

int sc__strategy_exists(safecoll_coll coll, safecoll_strategy s)
{
    const unsigned equivalents = ~(BIT(SAFECOLL_STRATEGY_GATHER_BCAST) - 1);

    return (strategies[sc__blocking(coll)] & (~equivalents | WRITTEN) & BIT(s)) != 0;
}

int safecoll_strategy_applies(safecoll_coll coll, safecoll_strategy strategy)
{
    if ((int)coll < 0 || coll >= SAFECOLL_NCOLL || (int)strategy < 0 ||
        strategy >= SAFECOLL_NSTRATEGY)
        return -1;
    return sc__strategy_exists(coll, strategy);
}
