/*
 * What the quick calls (quick.h) keep out of line: sc__alone_allowed, the
 * pipeline's test of whether a call may decide alone, which they have
 * inline, and the v-forms' int entry past its quick call.
 */
#include "quick.h"

int sc__alone_allowed(safecoll_coll coll, int size, safecoll_strategy forced)
{
    return sc__quick_alone(coll, size, forced);
}

int sc__v_int_whole(safecoll_coll coll, const char *fn, SC_VQ_ARGS, MPI_Request *request,
                    sc__v_describe *describe)
{
    sc__inter in = {.coll = coll, .fn = fn, .comm = comm, .root = root, .sbuf = sbuf,
                    .scount = scount, .stype = stype, .rbuf = rbuf, .rcount = rcount,
                    .rtype = rtype, .isc = isc, .isd = isd, .irc = irc, .ird = ird,
                    .stypes = stypes, .rtypes = rtypes, .request = request};

    return sc__v_entry(&in, 0, describe);
}
