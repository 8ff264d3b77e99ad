/*
 * The point-to-point wrappers of include/safecoll/p2p.h that came after
 * the first ones (p2p.c): MPI_Sendrecv and _replace, the synchronous,
 * buffered and ready sends, persistent requests and MPI_Request_free.
 * They report to the traffic layer's event stream like the others, and
 * record and replay them through p2p.c's state (replay.h):
 *
 *  - a sendrecv's receive is a receive posted and completed by one call:
 *    recorded at its completion like safecoll_recv's, and in replay its
 *    wildcard source or tag is bound before the call to the logged one;
 *  - the sends need no record: their match is the receiver's;
 *  - a persistent receive is posted by each start of it, so a start is
 *    what counts as its post: safecoll_startall counts one call per
 *    request (call numbers first, first + 1, ...), so that each start has
 *    a post number of its own. In replay a persistent receive with a
 *    wildcard is bound at each start: MPI fixes a persistent request's
 *    source at its init, so the inactive request is freed and made again
 *    with the logged source (*request then holds the new handle: a copy
 *    of the old handle kept elsewhere by the program is no longer valid).
 *    The next start binds again, from the receive as the program made it.
 */
#include <stdlib.h>
#include <string.h>

#include "replay.h"
#include "safecoll/p2p.h"

#define SITE() SC_RP_SITE()
#define N sc__rp_ncall
#define WRAP SC_RP_WRAP
#define WILD(src, tag) ((src) == MPI_ANY_SOURCE || (tag) == MPI_ANY_TAG)

/* ------------------------------------------------------------ sendrecv */

static int sendrecv_rr(const void *sb, int sn, MPI_Datatype st, int dest, int stag, void *rb,
                       int rn, MPI_Datatype rt, int src, int rtag, MPI_Comm comm,
                       MPI_Status *status, int replace, const void *site)
{
    int rc = sc__rp_force_now(&src, &rtag, comm);

    return rc != MPI_SUCCESS ? rc
                             : sc__tr_sendrecv_any(sb, sn, st, dest, stag, rb, rn, rt, src, rtag,
                                                   comm, status, replace, 1, site, N);
}

int safecoll_sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest,
                      int sendtag, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                      int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    WRAP(safecoll_sendrecv, comm,
         sc__tr_sendrecv_any(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                             recvtype, source, recvtag, comm, status, 0, 1, SITE(), 0),
         sendrecv_rr(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount, recvtype,
                     source, recvtag, comm, status, 0, SITE()));
}

int safecoll_sendrecv_replace(void *buf, int count, MPI_Datatype datatype, int dest, int sendtag,
                              int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    WRAP(safecoll_sendrecv_replace, comm,
         sc__tr_sendrecv_any(buf, count, datatype, dest, sendtag, NULL, 0, MPI_DATATYPE_NULL,
                             source, recvtag, comm, status, 1, 1, SITE(), 0),
         sendrecv_rr(buf, count, datatype, dest, sendtag, NULL, 0, MPI_DATATYPE_NULL, source,
                     recvtag, comm, status, 1, SITE()));
}

/* ------------------------------------------------------------ sends */

int safecoll_ssend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm)
{
    WRAP(safecoll_ssend, comm,
         sc__tr_app_send(SC_TR_OP_SSEND, buf, count, datatype, dest, tag, comm, SITE(), 0),
         sc__tr_app_send(SC_TR_OP_SSEND, buf, count, datatype, dest, tag, comm, SITE(), N));
}

int safecoll_bsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm)
{
    WRAP(safecoll_bsend, comm,
         sc__tr_app_send(SC_TR_OP_BSEND, buf, count, datatype, dest, tag, comm, SITE(), 0),
         sc__tr_app_send(SC_TR_OP_BSEND, buf, count, datatype, dest, tag, comm, SITE(), N));
}

int safecoll_rsend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm)
{
    WRAP(safecoll_rsend, comm,
         sc__tr_app_send(SC_TR_OP_RSEND, buf, count, datatype, dest, tag, comm, SITE(), 0),
         sc__tr_app_send(SC_TR_OP_RSEND, buf, count, datatype, dest, tag, comm, SITE(), N));
}

int safecoll_issend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                    MPI_Comm comm, MPI_Request *request)
{
    WRAP(safecoll_issend, comm,
         sc__tr_app_isend(SC_TR_OP_ISSEND, buf, count, datatype, dest, tag, comm, request,
                          SITE(), 0),
         sc__tr_app_isend(SC_TR_OP_ISSEND, buf, count, datatype, dest, tag, comm, request,
                          SITE(), N));
}

/* ------------------------------------------------------------ persistent requests */

/* Replay: the persistent receives made with a wildcard, as the program
 * made them (a short list: programs make few), and what the request now
 * holds was made with. */
typedef struct pers {
    MPI_Request req;
    void *buf;
    int count;
    MPI_Datatype type;
    int src, tag;             /* as the program gave them */
    int bound_src, bound_tag; /* as the request was last made */
    MPI_Comm comm;
} pers;

static pers *plist;
static size_t npers, cappers;

static pers *pers_find(MPI_Request req)
{
    for (size_t i = 0; i < npers; i++)
        if (plist[i].req == req)
            return &plist[i];
    return NULL;
}

static void pers_drop(MPI_Request req)
{
    pers *p = req != MPI_REQUEST_NULL ? pers_find(req) : NULL;

    if (p != NULL)
        *p = plist[--npers];
}

int safecoll_send_init(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                       MPI_Comm comm, MPI_Request *request)
{
    WRAP(safecoll_send_init, comm,
         sc__tr_app_isend(SC_TR_OP_SEND_INIT, buf, count, datatype, dest, tag, comm, request,
                          SITE(), 0),
         sc__tr_app_isend(SC_TR_OP_SEND_INIT, buf, count, datatype, dest, tag, comm, request,
                          SITE(), N));
}

static int recv_init_rr(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm,
                        MPI_Request *req, const void *site)
{
    int rc = sc__tr_app_irecv(SC_TR_OP_RECV_INIT, buf, count, type, src, tag, comm, req, site, N);

    if (rc != MPI_SUCCESS || sc__rp_mode != SC_RP_REPLAY || !WILD(src, tag))
        return rc;
    if (npers == cappers) {
        size_t cap = cappers ? 2 * cappers : 8;
        pers *p = realloc(plist, cap * sizeof *p);
        if (p == NULL)
            return sc__error(MPI_ERR_NO_MEM, "safecoll_recv_init: out of memory");
        plist = p;
        cappers = cap;
    }
    plist[npers++] = (pers){*req, buf, count, type, src, tag, src, tag, comm};
    return MPI_SUCCESS;
}

int safecoll_recv_init(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                       MPI_Comm comm, MPI_Request *request)
{
    WRAP(safecoll_recv_init, comm,
         sc__tr_app_irecv(SC_TR_OP_RECV_INIT, buf, count, datatype, source, tag, comm, request,
                          SITE(), 0),
         recv_init_rr(buf, count, datatype, source, tag, comm, request, SITE()));
}

/* Replay: the persistent wildcard receive p, to be started as the post of
 * call `post`, made again with the source and tag the log gives it (or
 * as the program made it, when the recording never completed that start). */
static int rebind(pers *p, MPI_Request *req, uint32_t post, const void *site)
{
    int src = p->src, tag = p->tag, rc;

    sc__rp_force_post(post, &src, &tag);
    if (src == p->bound_src && tag == p->bound_tag)
        return MPI_SUCCESS;
    if ((rc = sc__tr_request_free_at(req, 1, site)) != MPI_SUCCESS)
        return rc;
    rc = sc__tr_app_irecv(SC_TR_OP_RECV_INIT, p->buf, p->count, p->type, src, tag, p->comm, req,
                          site, post);
    p->req = rc == MPI_SUCCESS ? *req : MPI_REQUEST_NULL;
    p->bound_src = src;
    p->bound_tag = tag;
    return rc;
}

static int startall_rr(int n, MPI_Request reqs[], const void *site)
{
    const uint32_t first = N;
    int rc = MPI_SUCCESS;

    /* One call number per request (the first is the call's own). */
    if (n > 1)
        N += (uint32_t)(n - 1);
    for (int i = 0; i < n && npers > 0 && rc == MPI_SUCCESS; i++) {
        pers *p = pers_find(reqs[i]);
        if (p != NULL)
            rc = rebind(p, &reqs[i], first + (uint32_t)i, site);
    }
    return rc != MPI_SUCCESS ? rc : sc__tr_app_startall(n, reqs, site, first);
}

int safecoll_start(MPI_Request *request)
{
    WRAP(safecoll_start, MPI_COMM_NULL, sc__tr_app_startall(1, request, SITE(), 0),
         startall_rr(1, request, SITE()));
}

int safecoll_startall(int count, MPI_Request array_of_requests[])
{
    WRAP(safecoll_startall, MPI_COMM_NULL,
         sc__tr_app_startall(count, array_of_requests, SITE(), 0),
         startall_rr(count, array_of_requests, SITE()));
}

static int free_rr(MPI_Request *req, const void *site)
{
    const MPI_Request h = *req;
    int rc = sc__tr_request_free_at(req, 1, site);

    if (rc == MPI_SUCCESS && npers > 0)
        pers_drop(h);
    return rc;
}

int safecoll_request_free(MPI_Request *request)
{
    WRAP(safecoll_request_free, MPI_COMM_NULL, sc__tr_request_free_at(request, 1, SITE()),
         free_rr(request, SITE()));
}
