/*
 * Datatypes for counts that do not fit in int. A count c of type t becomes
 * one element of a type made of q = c / L blocks of L elements plus a
 * remainder of r = c % L elements, L being the int limit; its type signature
 * is exactly c elements of t, so it matches any other description of the
 * same data on the other side of a message.
 */
#include <pthread.h>
#include <stdlib.h>

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

int sc__type_fit_slow(MPI_Count count, MPI_Datatype type, int *n, MPI_Datatype *t, int *owned)
{
    int rc;

    if ((rc = sc__type_count(count, type, t)) != MPI_SUCCESS)
        return rc;
    *n = 1;
    *owned = 1;
    return MPI_SUCCESS;
}

int sc__type_is_named(MPI_Datatype type)
{
    int ni, na, nd, combiner;

    if (MPI_Type_get_envelope(type, &ni, &na, &nd, &combiner) != MPI_SUCCESS)
        return 0;
    return combiner == MPI_COMBINER_NAMED;
}

/* The predefined datatypes of sc__type_predefined (core.h). */
sc__predef_memo sc__predef;
static pthread_once_t predef_once = PTHREAD_ONCE_INIT;

/* Asks MPI once; a type MPI does not take (an optional one it lacks) is
 * left out, and a call with it asks MPI and gets MPI's answer. */
static void predef_fill(void)
{
    const MPI_Datatype types[SC_PREDEF_N] = {
        MPI_DOUBLE, MPI_INT,      MPI_BYTE,      MPI_CHAR,      MPI_FLOAT,    MPI_LONG,
        MPI_LONG_LONG, MPI_UNSIGNED, MPI_UNSIGNED_CHAR, MPI_INT64_T, MPI_INT32_T, MPI_UINT64_T,
        MPI_UINT32_T, MPI_SHORT, MPI_UNSIGNED_LONG, MPI_C_DOUBLE_COMPLEX,
    };

    /* Every slot empty first (MPI_DATATYPE_NULL need not be all zero bits). */
    for (int h = 0; h < SC_PREDEF_SLOTS; h++)
        sc__predef.slot[h].type = MPI_DATATYPE_NULL;

    for (int i = 0; i < SC_PREDEF_N; i++) {
        MPI_Count size;
        MPI_Aint lb, extent;
        if (types[i] == MPI_DATATYPE_NULL || MPI_Type_size_x(types[i], &size) != MPI_SUCCESS ||
            MPI_Type_get_extent(types[i], &lb, &extent) != MPI_SUCCESS || size < 0)
            continue;
        for (unsigned h = sc__predef_hash(types[i]);; h = (h + 1) & (SC_PREDEF_SLOTS - 1)) {
            sc__predef_slot *e = &sc__predef.slot[h];
            if (e->type == types[i])
                break;
            if (e->type == MPI_DATATYPE_NULL) {
                *e = (sc__predef_slot){types[i], size, extent};
                break;
            }
        }
    }
    atomic_store_explicit(&sc__predef.ready, 1, memory_order_release);
}

void sc__type_predefined_fill(void)
{
    pthread_once(&predef_once, predef_fill);
}

int sc__type_contents_get(MPI_Datatype type, sc__type_contents *c)
{
    c->ints = NULL;
    c->aints = NULL;
    c->types = NULL;
    if (MPI_Type_get_envelope(type, &c->ni, &c->na, &c->nd, &c->combiner) != MPI_SUCCESS) {
        c->combiner = -1;
        return 0;
    }
    if (c->combiner == MPI_COMBINER_NAMED || c->nd <= 0)
        return 0;
    c->ints = malloc(sizeof *c->ints * (size_t)(c->ni > 0 ? c->ni : 1));
    c->aints = malloc(sizeof *c->aints * (size_t)(c->na > 0 ? c->na : 1));
    c->types = malloc(sizeof *c->types * (size_t)c->nd);
    if (c->ints == NULL || c->aints == NULL || c->types == NULL ||
        MPI_Type_get_contents(type, c->ni, c->na, c->nd, c->ints, c->aints, c->types) !=
            MPI_SUCCESS) {
        free(c->types);
        c->types = NULL;
        sc__type_contents_free(c);
        return 0;
    }
    return 1;
}

void sc__type_contents_free(sc__type_contents *c)
{
    /* Every old type MPI returns that is not predefined is a new handle. */
    if (c->types != NULL)
        for (int i = 0; i < c->nd; i++)
            if (!sc__type_is_named(c->types[i]))
                MPI_Type_free(&c->types[i]);
    free(c->ints);
    free(c->aints);
    free(c->types);
    c->ints = NULL;
    c->aints = NULL;
    c->types = NULL;
}
