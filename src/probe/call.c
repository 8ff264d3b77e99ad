/*
 * The testing toolkit's calls of a collective (probe.c, guideline.c):
 * MPI's own or the safe one, blocking or started, generated from the call
 * column of the collective table (src/core/colls.h). A new row is called
 * with no code here unless its parameter list is a new shape.
 */
#include "probe.h"

/* The argument list of each shape, in the order of the call: f is the
 * function, a the sc__probe_args, R empty for a blocking call and SC_REQ_
 * (the trailing request) for a started one. */
#define SC_REQ_ , req
#define SC_SHAPE_GATHERV(f, a, R)                                                             \
    f((a)->sbuf, (a)->n, (a)->type, (a)->rbuf, (a)->counts, (a)->displs, (a)->type, (a)->root, \
      (a)->comm R)
#define SC_SHAPE_SCATTERV(f, a, R)                                                            \
    f((a)->sbuf, (a)->counts, (a)->displs, (a)->type, (a)->rbuf, (a)->n, (a)->type, (a)->root, \
      (a)->comm R)
#define SC_SHAPE_ALLGATHERV(f, a, R)                                                          \
    f((a)->sbuf, (a)->n, (a)->type, (a)->rbuf, (a)->counts, (a)->displs, (a)->type,          \
      (a)->comm R)
#define SC_SHAPE_ALLTOALLV(f, a, R)                                                           \
    f((a)->sbuf, (a)->counts, (a)->displs, (a)->type, (a)->rbuf, (a)->counts, (a)->displs,   \
      (a)->type, (a)->comm R)
#define SC_SHAPE_BARRIER(f, a, R) f((a)->comm R)
#define SC_SHAPE_BCAST(f, a, R) f((a)->rbuf, (a)->n, (a)->type, (a)->root, (a)->comm R)
/* gather, scatter */
#define SC_SHAPE_ROOTED(f, a, R)                                                              \
    f((a)->sbuf, (a)->n, (a)->type, (a)->rbuf, (a)->n, (a)->type, (a)->root, (a)->comm R)
/* allgather, alltoall */
#define SC_SHAPE_ALL(f, a, R)                                                                 \
    f((a)->sbuf, (a)->n, (a)->type, (a)->rbuf, (a)->n, (a)->type, (a)->comm R)
/* A type per peer: the toolkit has no arrays of types, and does not probe it. */
#define SC_SHAPE_ALLTOALLW(f, a, R) ((void)(f), MPI_ERR_INTERN)
#define SC_SHAPE_REDUCE(f, a, R)                                                              \
    f((a)->sbuf, (a)->rbuf, (a)->n, (a)->rtype, (a)->op, (a)->root, (a)->comm R)
/* allreduce, reduce_scatter_block, scan, exscan */
#define SC_SHAPE_ALLREDUCE(f, a, R)                                                           \
    f((a)->sbuf, (a)->rbuf, (a)->n, (a)->rtype, (a)->op, (a)->comm R)
#define SC_SHAPE_REDUCE_SCATTER(f, a, R)                                                      \
    f((a)->sbuf, (a)->rbuf, (a)->counts, (a)->rtype, (a)->op, (a)->comm R)

#define SC_CALL_(...) SC_CALL_ROW_(__VA_ARGS__)
#define SC_CALL_ROW_(S, name, Name, shape, ...)                                               \
    case SAFECOLL_COLL_##S:                                                                   \
        return safe ? SC_SHAPE_##shape(safecoll_##name, a, ) : SC_SHAPE_##shape(MPI_##Name, a, ); \
    case SAFECOLL_COLL_I##S:                                                                  \
        return safe ? SC_SHAPE_##shape(safecoll_i##name, a, SC_REQ_)                          \
                    : SC_SHAPE_##shape(MPI_I##name, a, SC_REQ_);
#define SC_CALL_X_(S, name, c, v, pattern, set, tv, call) SC_CALL_(S, name, SC_COLLS_ARGS call)

int sc__probe_call(safecoll_coll coll, int safe, const sc__probe_args *a, MPI_Request *req)
{
    switch (coll) {
        SC_COLLS(SC_CALL_X_)
    default:
        return MPI_ERR_INTERN;
    }
}
