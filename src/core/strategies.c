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

/* MPI-4's `_c` calls are what largecount runs: where a collective has one
 * (the c column of colls.h). On an MPI-3 library allgatherv's largecount
 * is one int call into a compact image of the blocks (avoid/allgather.c). */
#define LC(S, c)                                                                               \
    ((c) && (SC_HAVE_MPI4 || SAFECOLL_COLL_##S == SAFECOLL_COLL_ALLGATHERV)                     \
         ? BIT(SAFECOLL_STRATEGY_LARGECOUNT)                                                   \
         : 0u)

/* The equivalents of the performance guidelines (paper 003) that are
 * written (src/avoid/equiv*.c); one listed in the table but not here does
 * not exist yet. All are. */
#define WRITTEN (~0u)

/* Per collective, from the collective table (colls.h); an i-form has what
 * its blocking form has. */
#define SC_STRATEGIES_(S, name, c, v, pattern, set, ...) [SAFECOLL_COLL_##S] = (set) | LC(S, c),
static const unsigned strategies[SAFECOLL_NCOLL] = {SC_COLLS(SC_STRATEGIES_)};
#undef SC_STRATEGIES_

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
