/*
 * Describing a call (call.h): the checks of each side, detector D and
 * "does not fit" in the same pass over the arrays, and the memory the
 * call owns.
 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include <stdlib.h>
#include <sys/mman.h>

#include "call.h"
#include "displs.h"

/* Records the first local error of the call; the agreement step makes it
 * every rank's error. */
void sc__note_error(sc__call *call, int code)
{
    if (code != MPI_SUCCESS && call->ag[SC_AG_ERROR] == 0) {
        call->own_error = 1;
        call->ag[SC_AG_ERROR] = code;
        call->ag[SC_AG_ERROR_RANK] = call->rank + 1;
    }
}

int sc__side_check_all(const char *fn, int rank, sc__side *s, unsigned flags)
{
    s->bytes = 0;
    if (s->buf == MPI_IN_PLACE) {
        switch (flags & SC_IN_PLACE_MASK) {
        case SC_IN_PLACE_OK:
            return MPI_SUCCESS;
        case SC_IN_PLACE_ROOT:
            return sc__error(MPI_ERR_BUFFER, "%s: rank %d: MPI_IN_PLACE is valid only at the root",
                             fn, rank);
        case SC_IN_PLACE_INTER:
            return sc__error(MPI_ERR_BUFFER,
                             "%s: rank %d: %s cannot be MPI_IN_PLACE on an intercommunicator", fn,
                             rank, s->bufname);
        default:
            return sc__error(MPI_ERR_BUFFER, "%s: rank %d: %s cannot be MPI_IN_PLACE", fn, rank,
                             s->bufname);
        }
    }
    if (flags & SC_SIDE_IGNORED)
        return MPI_SUCCESS;
    if (s->count < 0)
        return sc__error(MPI_ERR_COUNT, "%s: rank %d: %s is negative (%lld)", fn, rank,
                         s->countname, (long long)s->count);
    if (!(flags & SC_SIDE_TYPE_KNOWN)) {
        MPI_Aint lb;
        if (s->type == MPI_DATATYPE_NULL)
            return sc__error(MPI_ERR_TYPE, "%s: rank %d: %s is MPI_DATATYPE_NULL", fn, rank,
                             s->typename_);
        /* The common predefined types cost a compare (types.c). */
        if (sc__type_predefined(s->type, &s->size, &s->extent))
            ;
        else if (MPI_Type_size_x(s->type, &s->size) != MPI_SUCCESS || s->size < 0 ||
                 ((flags & SC_SIDE_EXTENT) &&
                  MPI_Type_get_extent(s->type, &lb, &s->extent) != MPI_SUCCESS))
            return sc__error(MPI_ERR_TYPE, "%s: rank %d: %s is not a valid datatype", fn, rank,
                             s->typename_);
    }
    /* Two factors that fit in int cannot overflow: the common call pays
     * no division. */
    if ((s->count > INT_MAX || s->size > INT_MAX) && s->size > 0 &&
        s->count > SC_SIDE_BYTES_MAX / s->size)
        return (flags & SC_SIDE_SUM)
                   ? sc__error(MPI_ERR_COUNT,
                               "%s: rank %d: %s holds %lld elements, whose size in bytes "
                               "overflows",
                               fn, rank, s->countname, (long long)s->count)
                   : sc__error(MPI_ERR_COUNT,
                               "%s: rank %d: %s (%lld) times its type's size overflows", fn,
                               rank, s->countname, (long long)s->count);
    s->bytes = s->count * s->size;
    /* A derived type may address absolute memory from MPI_BOTTOM (NULL);
     * a predefined one cannot. */
    if (s->buf == NULL && s->bytes > 0 && !(flags & SC_SIDE_NOBUF) &&
        sc__type_is_named(s->type))
        return (flags & SC_SIDE_SUM)
                   ? sc__error(MPI_ERR_BUFFER, "%s: rank %d: %s is NULL but %s holds %lld elements",
                               fn, rank, s->bufname, s->countname, (long long)s->count)
                   : sc__error(MPI_ERR_BUFFER, "%s: rank %d: %s is NULL but %s is %lld", fn, rank,
                               s->bufname, s->countname, (long long)s->count);
    return MPI_SUCCESS;
}

int sc__leaf_init(sc__call *call, sc__leaf *leaf, const void *buf, MPI_Count count,
                  MPI_Datatype type, const char *bufname, const char *countname,
                  const char *typename_, unsigned in_place)
{
    sc__side s = {buf, count, type, bufname, countname, typename_, 0, 0, 0};
    int rc;

    if (buf == MPI_IN_PLACE && (in_place & SC_IN_PLACE_MASK) == SC_IN_PLACE_OK) {
        /* This rank's block is in the layout's buffer already; count and
         * datatype are not significant, as in MPI. */
        call->in_place = 1;
        leaf->type = call->lay.type;
        return MPI_SUCCESS;
    }
    leaf->buf = (char *)buf;
    leaf->count = count;
    leaf->type = type;
    rc = sc__side_check(call->fn, call->rank, &s, in_place | SC_SIDE_EXTENT);
    leaf->extent = s.extent;
    leaf->type_size = s.size > INT_MAX ? INT_MAX : (int)s.size;
    /* A leaf count past the limit needs no strategy of its own: every
     * strategy, the native one included, sends it as one element of a type
     * of that many elements (sc__type_fit), which matches any description
     * of the same data at the root. Only a rootless collective, whose leaf
     * count is also one of the layout's counts, is triggered by it. */
    if (count > call->limit && call->root < 0)
        call->lay.nofit = 1;
    sc__note_error(call, rc);
    return rc;
}

/* A hash of the layout, folded block by block. It goes into the
 * agreement so that ranks can tell whether they all hold the same layout,
 * and is kept to 62 bits so that its negation cannot overflow. */
static long long mix(long long h, int i, long long c, long long d)
{
    unsigned long long x = (unsigned long long)h ^ ((unsigned long long)i * 0x9e3779b97f4a7c15ull);

    x = (x ^ (unsigned long long)c) * 0xff51afd7ed558ccdull;
    x = (x ^ (unsigned long long)d) * 0xc4ceb9fe1a85ec53ull;
    return (long long)((x ^ (x >> 29)) >> 2);
}

/* One pass over the arrays: validation, detector D and "does not fit". */
int sc__layout_init(sc__call *call, sc__layout *lay, const void *buf, MPI_Datatype type,
                    const char *bufname, const char *countsname, const char *displsname,
                    const char *typename_)
{
    const int p = call->size;
    const MPI_Count limit = call->limit;
    /* Only allgatherv's ranks may hold different layouts (its displacements
     * are each rank's own), so only there is the layout hashed. */
    const int hash = call->pattern == SC_PATTERN_ALLGATHER;
    MPI_Count total = 0;
    sc__side side = {buf, 0, type, bufname, countsname, typename_, 0, 0, 0};
    int rc;

    lay->buf = (char *)buf;
    lay->type = type;
    lay->displsname = displsname;
    /* The datatype first (its size decides which blocks hold data); the
     * buffer once the counts are summed. */
    if ((rc = sc__side_check(call->fn, call->rank, &side,
                             SC_IN_PLACE_NEVER | SC_SIDE_NOBUF | SC_SIDE_EXTENT)) != MPI_SUCCESS)
        goto out;
    lay->extent = side.extent;
    lay->type_size = side.size > INT_MAX ? INT_MAX : (int)side.size;
    if ((lay->icounts == NULL && lay->ccounts == NULL) ||
        (lay->idispls == NULL && lay->cdispls == NULL)) {
        rc = sc__error(MPI_ERR_ARG, "%s: rank %d: %s is NULL", call->fn, call->rank,
                       (lay->icounts == NULL && lay->ccounts == NULL) ? countsname
                                                                      : displsname);
        goto out;
    }
    if (lay->icounts != NULL) {
        sc__displs_d dstate = SC_DISPLS_D_INIT;
        for (int i = 0; i < p; i++) {
            int c = lay->icounts[i], d = lay->idispls[i];
            if (c < 0) {
                rc = sc__error(MPI_ERR_COUNT, "%s: rank %d: %s[%d] is negative (%d)", call->fn,
                               call->rank, countsname, i, c);
                goto out;
            }
            total += c;
            if (c > lay->max_count)
                lay->max_count = c;
            /* The displacement of an empty block is never used, so it can
             * neither be a wrap nor fail to fit. */
            if (c == 0)
                continue;
            /* Detector D (displs.h): a negative entry, or on a receive side
             * a block overlapping the previous non-empty one. Whether a
             * wrap is believable is sc__layout_view's question. Blocks of
             * a type of size 0 hold no data, whatever their counts: they
             * can neither overlap nor have wrapped. */
            if (!lay->wrapped && lay->type_size > 0 &&
                sc__displs_d_step(&dstate, d, c, !lay->overlap_ok)) {
                lay->wrapped = 1;
                lay->bad_index = i;
            }
            if (c > limit || d > limit)
                lay->nofit = 1;
            if (hash)
                lay->hash = mix(lay->hash, i, c, d);
        }
    } else {
        for (int i = 0; i < p; i++) {
            MPI_Count c = lay->ccounts[i];
            MPI_Aint d = lay->cdispls[i];
            if (c < 0) {
                rc = sc__error(MPI_ERR_COUNT, "%s: rank %d: %s[%d] is negative (%lld)",
                               call->fn, call->rank, countsname, i, (long long)c);
                goto out;
            }
            /* Saturated: a sum past the bytes a side can hold is an
             * error below. */
            total = c > LLONG_MAX - total ? LLONG_MAX : total + c;
            if (c > lay->max_count)
                lay->max_count = c;
            if (c == 0)
                continue;
            if (c > limit || d > limit || d < -limit - 1)
                lay->nofit = 1;
            if (hash)
                lay->hash = mix(lay->hash, i, c, d);
        }
    }
    lay->total = total;
    side.count = total;
    if ((rc = sc__side_check(call->fn, call->rank, &side, SC_SIDE_TYPE_KNOWN | SC_SIDE_SUM)) !=
        MPI_SUCCESS)
        ;
    else if (lay->wrapped)
        rc = sc__layout_view(call, lay);
out:
    sc__note_error(call, rc);
    return rc;
}

/* Hands memory to the call, which frees it when it ends. Returns mem, or
 * NULL (after freeing it) when mem is NULL or every slot is taken. */
void *sc__scratch_adopt(sc__call *call, void *mem)
{
    for (size_t i = 0; mem != NULL && i < sizeof call->scratch / sizeof call->scratch[0]; i++) {
        if (call->scratch[i] == NULL) {
            call->scratch[i] = mem;
            return mem;
        }
    }
    free(mem);
    return NULL;
}

void *sc__scratch(sc__call *call, size_t bytes)
{
    return sc__scratch_adopt(call, malloc(bytes ? bytes : 1));
}

void *sc__scratch_map(sc__call *call, size_t bytes)
{
    void *mem = sc__scratch(call, bytes);

    if (mem != NULL || call->mapped != NULL)
        return mem;
    mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
               -1, 0);
    if (mem == MAP_FAILED)
        return NULL;
    call->mapped = mem;
    call->mapped_len = bytes;
    return mem;
}

void sc__call_free(sc__call *call)
{
    sc__layout *lays[2] = {&call->lay, &call->rlay};

    for (int k = 0; k < 2; k++) {
        if (lays[k]->owned_counts)
            free(lays[k]->counts);
        if (lays[k]->owned_displs)
            free(lays[k]->displs);
    }
    if (call->mapped != NULL)
        munmap(call->mapped, call->mapped_len);
    /* Slots are filled in order and never emptied (sc__scratch_adopt). */
    for (size_t i = 0; i < sizeof call->scratch / sizeof call->scratch[0] && call->scratch[i];
         i++)
        free(call->scratch[i]);
}

int sc__regular_fail(safecoll_coll coll, MPI_Comm comm, int rc)
{
    sc__stats_count(coll, SAFECOLL_STRATEGY_AUTO, 0, 1);
    return sc__call_errhandler(comm, rc);
}

int sc__regular_native_done(safecoll_coll coll, int rc)
{
    sc__stats_count(coll, SAFECOLL_STRATEGY_NATIVE, 0, rc != MPI_SUCCESS);
    return rc;
}

