/*
 * safecoll_alltoallw, safecoll_alltoallw_c and their non-blocking forms.
 *
 * alltoallw gives every peer its own datatype and takes displacements in
 * bytes. The describe step therefore cannot use sc__layout_init, which
 * knows one type per side: it fills call->lay (send side) and call->rlay
 * (receive side) with the counts and byte displacements, as layouts of
 * MPI_BYTE whose totals are the bytes of the side, and keeps the types and
 * their sizes and extents in call->w. That makes the rest of the pipeline
 * (agreement, registry bounds on the global buffer in bytes, statistics,
 * logging) work unchanged.
 *
 * Detector D on the int API: a negative byte displacement of a block that
 * holds data (a count above 0 of a type of size above 0) is a wrap.
 * Recovery (sc__layout_view, without counts since byte lengths of blocks of
 * different types cannot be compared with int counts) succeeds when the
 * non-empty blocks are in non-descending order of address in rank order,
 * consecutive blocks start less than 4 GiB apart and the wrap is
 * believable: no block starts more than INT_MAX bytes past the end (count
 * times the larger of extent and size) of the blocks before it
 * (safecoll_displs_believable). Otherwise the call fails with MPI_ERR_ARG
 * on every rank. The _c API takes its 64-bit displacements as they are,
 * negative ones included.
 */
#include <stdlib.h>

#include "quick.h"
#include "traffic.h"

/* Validates one side and fills its layout: counts, byte displacements,
 * "does not fit", detector D, and the size and extent of each non-empty
 * block's type. The names are the MPI argument names, for messages. */
static int describe_side(sc__call *call, sc__layout *lay, const void *buf,
                         const MPI_Datatype *types, MPI_Count *size, MPI_Aint *ext,
                         const char *countsname, const char *displsname,
                         const char *typesname)
{
    const int p = call->size;
    const MPI_Count limit = call->limit;
    MPI_Count total = 0;
    int rc = MPI_SUCCESS;

    lay->buf = (char *)buf;
    lay->type = MPI_BYTE;
    lay->extent = 1;
    lay->type_size = 1;
    lay->displsname = displsname;
    /* Blocks of different types cannot be checked for overlap in int
     * units, so every side recovers as a send side does (see above). */
    lay->overlap_ok = 1;
    if ((lay->icounts == NULL && lay->ccounts == NULL) ||
        (lay->idispls == NULL && lay->cdispls == NULL) || types == NULL) {
        const char *what = (lay->icounts == NULL && lay->ccounts == NULL) ? countsname
                           : types == NULL                                ? typesname
                                                                          : displsname;
        rc = sc__error(MPI_ERR_ARG, "%s: rank %d: %s is NULL", call->fn, call->rank, what);
        goto out;
    }
    for (int i = 0; i < p; i++) {
        const MPI_Count c = lay->icounts != NULL ? lay->icounts[i] : lay->ccounts[i];
        const MPI_Aint d = lay->icounts != NULL ? lay->idispls[i] : lay->cdispls[i];
        MPI_Aint lb;
        MPI_Count sz;

        size[i] = 0;
        ext[i] = 0;
        if (c < 0) {
            rc = sc__error(MPI_ERR_COUNT, "%s: rank %d: %s[%d] is negative (%lld)", call->fn,
                           call->rank, countsname, i, (long long)c);
            goto out;
        }
        /* The type of an empty block is not looked at, as in MPI. */
        if (c == 0)
            continue;
        if (types[i] == MPI_DATATYPE_NULL) {
            rc = sc__error(MPI_ERR_TYPE,
                           "%s: rank %d: %s[%d] is MPI_DATATYPE_NULL but %s[%d] is %lld",
                           call->fn, call->rank, typesname, i, countsname, i, (long long)c);
            goto out;
        }
        if (MPI_Type_get_extent(types[i], &lb, &ext[i]) != MPI_SUCCESS ||
            MPI_Type_size_x(types[i], &sz) != MPI_SUCCESS || sz < 0) {
            rc = sc__error(MPI_ERR_TYPE, "%s: rank %d: %s[%d] is not a valid datatype",
                           call->fn, call->rank, typesname, i);
            goto out;
        }
        if (sz > 0 && c > (MPI_Count)(INT64_MAX / 2) / sz) {
            rc = sc__error(MPI_ERR_COUNT,
                           "%s: rank %d: %s[%d] (%lld) times its type's size overflows",
                           call->fn, call->rank, countsname, i, (long long)c);
            goto out;
        }
        size[i] = sz;
        total += c * sz;
        if (c * sz > lay->max_count)
            lay->max_count = c * sz;
        /* A block of a type of size 0 holds no data: MPI never uses its
         * displacement, so it cannot have wrapped. */
        if (lay->icounts != NULL && d < 0 && sz > 0 && !lay->wrapped) {
            lay->wrapped = 1;
            lay->bad_index = i;
        }
        if (c > limit || d > limit || (lay->icounts == NULL && d < -limit - 1))
            lay->nofit = 1;
    }
    lay->total = total;
    if (lay->wrapped)
        rc = sc__layout_view(call, lay);
out:
    sc__note_error(call, rc);
    return rc;
}

/* Fills the call from the arguments; errors are kept for the agreement. */
static void describe(sc__call *call, const void *sendbuf, const MPI_Datatype sendtypes[],
                     void *recvbuf, const MPI_Datatype recvtypes[])
{
    const size_t p = (size_t)call->size;
    char *mem = sc__scratch(call, p * 2 * (sizeof(MPI_Count) + sizeof(MPI_Aint)));

    if (mem == NULL) {
        sc__note_error(call, sc__error(MPI_ERR_NO_MEM, "%s: rank %d: out of memory",
                                       call->fn, call->rank));
        return;
    }
    call->w.stypes = sendtypes;
    call->w.rtypes = recvtypes;
    call->w.ssize = (MPI_Count *)mem;
    call->w.rsize = call->w.ssize + p;
    call->w.sext = (MPI_Aint *)(call->w.rsize + p);
    call->w.rext = call->w.sext + p;
    if (sendbuf == MPI_IN_PLACE) {
        /* The send side is the receive side; its arrays are ignored. */
        call->in_place = 1;
        call->w.stypes = recvtypes;
    } else {
        describe_side(call, &call->lay, sendbuf, sendtypes, call->w.ssize, call->w.sext,
                      "sendcounts", "sdispls", "sendtypes");
    }
    describe_side(call, &call->rlay, recvbuf, recvtypes, call->w.rsize, call->w.rext,
                  "recvcounts", "rdispls", "recvtypes");
}

/* The non-blocking forms describe the call here too, on the caller's arrays
 * (MPI requires them to stay valid until the request completes) and on
 * scratch owned by the call. sc__run then posts MPI's own i-call where the
 * call decides alone, or hands the call to sc__run_nb, which copies it. */
static void describe_in(sc__call *call, const sc__inter *in)
{
    describe(call, in->sbuf, in->stypes, in->rbuf, in->rtypes);
}

int safecoll_alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                       const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                       const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    return SC_TR_REGION("safecoll_alltoallw",
                        sc__v_int(SAFECOLL_COLL_ALLTOALLW, "safecoll_alltoallw", sendbuf, 0,
                                  sendcounts, sdispls, MPI_DATATYPE_NULL, sendtypes, recvbuf, 0,
                                  recvcounts, rdispls, MPI_DATATYPE_NULL, recvtypes, -1, comm, NULL,
                                  describe_in));
}

int safecoll_alltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                         const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                         const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                         const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    sc__inter in = {.coll = SAFECOLL_COLL_ALLTOALLW, .fn = "safecoll_alltoallw_c", .comm = comm,
                    .root = -1, .sbuf = sendbuf, .stypes = sendtypes, .rbuf = recvbuf,
                    .rtypes = recvtypes, .csc = sendcounts, .csd = sdispls, .crc = recvcounts,
                    .crd = rdispls};

    return SC_TR_REGION(in.fn, sc__v_entry(&in, 1, describe_in));
}

int safecoll_ialltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                        const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                        const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm,
                        MPI_Request *request)
{
    return SC_TR_REGION("safecoll_ialltoallw",
                        sc__v_int(SAFECOLL_COLL_IALLTOALLW, "safecoll_ialltoallw", sendbuf, 0,
                                  sendcounts, sdispls, MPI_DATATYPE_NULL, sendtypes, recvbuf, 0,
                                  recvcounts, rdispls, MPI_DATATYPE_NULL, recvtypes, -1, comm,
                                  request, describe_in));
}

int safecoll_ialltoallw_c(const void *sendbuf, const MPI_Count sendcounts[],
                          const MPI_Aint sdispls[], const MPI_Datatype sendtypes[], void *recvbuf,
                          const MPI_Count recvcounts[], const MPI_Aint rdispls[],
                          const MPI_Datatype recvtypes[], MPI_Comm comm, MPI_Request *request)
{
    sc__inter in = {.coll = SAFECOLL_COLL_IALLTOALLW, .fn = "safecoll_ialltoallw_c", .comm = comm,
                    .root = -1, .sbuf = sendbuf, .stypes = sendtypes, .rbuf = recvbuf,
                    .rtypes = recvtypes, .csc = sendcounts, .csd = sdispls, .crc = recvcounts,
                    .crd = rdispls, .request = request};

    return SC_TR_REGION(in.fn, sc__v_entry(&in, 1, describe_in));
}
