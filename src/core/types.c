/*
 * Datatypes for counts that do not fit in int. A count c of type t becomes
 * one element of a type made of q = c / L blocks of L elements plus a
 * remainder of r = c % L elements, L being the int limit; its type signature
 * is exactly c elements of t, so it matches any other description of the
 * same data on the other side of a message.
 */
#include "core.h"

int sc__type_count(MPI_Count count, MPI_Datatype type, MPI_Datatype *out)
{
    MPI_Count limit = sc__config_int_limit();
    MPI_Count q = count / limit, r = count % limit;
    MPI_Datatype block, blocks, parts[2];
    MPI_Aint lb, extent;
    int lens[2] = {1, 1}, rc;
    MPI_Aint displs[2];

    /* Blocks of the limit, at most INT_MAX of them: the limit may be shrunk
     * for tests, but the count of blocks is an int all the same. */
    if (q > INT_MAX)
        return sc__error(MPI_ERR_COUNT, "count %lld is too large even in blocks of %lld",
                         (long long)count, (long long)limit);
    if ((rc = MPI_Type_get_extent(type, &lb, &extent)) != MPI_SUCCESS)
        return rc;
    if ((rc = MPI_Type_contiguous((int)limit, type, &block)) != MPI_SUCCESS)
        return rc;
    rc = MPI_Type_contiguous((int)q, block, &blocks);
    MPI_Type_free(&block);
    if (rc != MPI_SUCCESS)
        return rc;
    if (r == 0) {
        *out = blocks;
    } else {
        parts[0] = blocks;
        parts[1] = type;
        lens[1] = (int)r;
        displs[0] = 0;
        displs[1] = (MPI_Aint)(q * limit) * extent;
        rc = MPI_Type_create_struct(2, lens, displs, parts, out);
        MPI_Type_free(&blocks);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_Type_commit(out);
}

int sc__type_fit(MPI_Count count, MPI_Datatype type, int *n, MPI_Datatype *t, int *owned)
{
    int rc;

    if (count <= sc__config_int_limit()) {
        *n = (int)count;
        *t = type;
        *owned = 0;
        return MPI_SUCCESS;
    }
    if ((rc = sc__type_count(count, type, t)) != MPI_SUCCESS)
        return rc;
    *n = 1;
    *owned = 1;
    return MPI_SUCCESS;
}
