/*
 * The trigger of the regular collectives (everything but the v-forms and
 * alltoallw). Their inputs are global: MPI requires every rank to pass the
 * same count (or the same type signature) and root, so each rank can
 * evaluate the int limit and the registry's bounds itself, and all ranks
 * reach the same answer without a message. Counts are compared in basic
 * elements (bytes over the size of the basic type the datatype is built
 * of), the one unit that does not depend on how a rank describes its data.
 * Only a triggered call (rare, and large) pays for the agreement and a
 * strategy; every other call is the native call after a few comparisons.
 */
#include <stdlib.h>

#include "bounds.h"
#include "pipeline.h"

/* The size of the basic type a datatype is built of, read through its
 * envelope; 1 (bytes) when it mixes basic types of different sizes. */
static int basic_size(MPI_Datatype type, int depth)
{
    int ni, na, nd, comb, size = 0;
    int *ints = NULL;
    MPI_Aint *aints = NULL;
    MPI_Datatype *types = NULL;

    if (MPI_Type_get_envelope(type, &ni, &na, &nd, &comb) != MPI_SUCCESS)
        return 1;
    if (comb == MPI_COMBINER_NAMED) {
        MPI_Type_size(type, &size);
        return size > 0 ? size : 1;
    }
    if (depth > 32 || nd <= 0)
        return 1;
    ints = malloc(sizeof *ints * (size_t)(ni > 0 ? ni : 1));
    aints = malloc(sizeof *aints * (size_t)(na > 0 ? na : 1));
    types = malloc(sizeof *types * (size_t)nd);
    if (ints != NULL && aints != NULL && types != NULL &&
        MPI_Type_get_contents(type, ni, na, nd, ints, aints, types) == MPI_SUCCESS) {
        for (int i = 0; i < nd; i++) {
            int s = basic_size(types[i], depth + 1), c, t, u;
            /* Every type returned that is not predefined is a new handle. */
            if (MPI_Type_get_envelope(types[i], &c, &t, &u, &comb) == MPI_SUCCESS &&
                comb != MPI_COMBINER_NAMED)
                MPI_Type_free(&types[i]);
            if (size == 0)
                size = s;
            else if (size != s)
                size = 1;
        }
    }
    free(ints);
    free(aints);
    free(types);
    return size > 0 ? size : 1;
}

int sc__basic_size(MPI_Datatype type)
{
    return basic_size(type, 0);
}

int sc__regular_triggered(safecoll_coll coll, MPI_Count bytes_per_msg, MPI_Count global_msgs,
                          MPI_Datatype type, int nprocs)
{
    MPI_Count n, me, mb, mm;
    int s;

    if (sc__config_forced(coll) != SAFECOLL_STRATEGY_AUTO)
        return 1;
    if (bytes_per_msg == 0)
        return 0;
    /* The cheap cases first: a predefined type is its own basic type. */
    s = sc__basic_size(type);
    n = bytes_per_msg / s;
    if (n > sc__config_int_limit())
        return 1;
    if (sc__bounds_limit(coll, s, nprocs, &me, &mb, &mm) != MPI_SUCCESS)
        return 0;
    if (me != SC_BOUNDS_NONE && n * global_msgs > me)
        return 1;
    if (mb != SC_BOUNDS_NONE && bytes_per_msg * global_msgs > mb)
        return 1;
    if (mm != SC_BOUNDS_NONE && n > mm)
        return 1;
    return 0;
}
