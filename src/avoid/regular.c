/*
 * Strategies of the triggered regular allgather and alltoall (blocking and
 * `i`; gather and scatter run the v-form, see src/coll/blocks.c, though the
 * code here is written for all four). Their entries describe them as
 * the v-call they are (n elements per rank at displacement i*n), so that
 * detection, the agreement, statistics and logs are the v-pipeline's, and
 * set call->regular; the pipeline then takes the executors here. Those that
 * can keep the regular MPI call do, since MPI libraries tune the regular
 * call better than its v-form (MPICH 4.0.2's MPI_Alltoallv takes 1.6-1.9
 * times as long as MPI_Alltoall on the same bytes at P = 2, MPI_Allgatherv
 * 1.7-1.8 times MPI_Allgather's; doc/performance.md):
 *
 *   native      the regular int call
 *   largecount  MPI-4's regular `_c` call (MPI_Alltoall_c, ...)
 *   bigtype     the regular call with one element per block, of a
 *               contiguous type of the whole block (paper W2 with g = n)
 *   chunk       rounds of the regular call, each
 *               moving the same piece of every block: count 1 of a type of
 *               the piece whose extent is a whole block, so that the blocks
 *               of the round stand at their stride from each other (an
 *               alltoall runs the v-form's chunk: see own_chunk)
 *
 * Every other strategy (segment: rank ranges, which a regular call cannot
 * express; p2p; whatever else the pattern's table holds) runs the
 * v-pattern's executor on the v-description: sc__run asks
 * sc__regular_exec first, and the pattern's table when it has nothing.
 */
#include "avoid.h"
#include "nb.h"

/* One side of the call in MPI's argument order: `blocks` sides hold one
 * block of n elements per rank (the root buffer, both buffers of
 * alltoall, allgather's receive buffer), the others one block. */
typedef struct reg_side {
    char *buf; /* MPI_IN_PLACE when the call is in place on this side */
    MPI_Count n;
    MPI_Datatype type;
    MPI_Aint extent;
    int blocks;
    int significant; /* the root side of gather and scatter at a leaf is not */
} reg_side;

static int is_root(const sc__call *call)
{
    return call->root < 0 || call->rank == call->root;
}

/* The count of a layout of a regular call: every entry is the same. */
static MPI_Count block_count(const sc__layout *lay)
{
    return lay->ccounts != NULL ? lay->ccounts[0] : 0;
}

static void side_of_layout(const sc__call *call, const sc__layout *lay, reg_side *s)
{
    s->buf = lay->buf;
    s->n = is_root(call) ? block_count(lay) : 0;
    s->type = lay->type;
    s->extent = lay->extent;
    s->blocks = 1;
    s->significant = is_root(call);
}

static void side_of_leaf(const sc__call *call, reg_side *s)
{
    s->buf = call->in_place && is_root(call) ? (char *)MPI_IN_PLACE : call->leaf.buf;
    s->n = call->leaf.count;
    s->type = call->leaf.type;
    s->extent = call->leaf.extent;
    s->blocks = 0;
    s->significant = 1;
}

/* The send and receive sides of the call. */
static void sides(const sc__call *call, reg_side *s, reg_side *r)
{
    switch (call->pattern) {
    case SC_PATTERN_GATHER:
    case SC_PATTERN_ALLGATHER:
        side_of_leaf(call, s);
        side_of_layout(call, &call->lay, r);
        break;
    case SC_PATTERN_SCATTER:
        side_of_layout(call, &call->lay, s);
        side_of_leaf(call, r);
        break;
    default:
        side_of_layout(call, &call->rlay, r);
        if (call->in_place) {
            *s = *r;
            s->buf = (char *)MPI_IN_PLACE;
        } else {
            side_of_layout(call, &call->lay, s);
        }
        break;
    }
}

/* The regular int call of the pattern. */
static int reg_int(const sc__call *call, const void *sb, int sn, MPI_Datatype st, void *rb,
                   int rn, MPI_Datatype rt, MPI_Comm comm)
{
    switch (call->pattern) {
    case SC_PATTERN_GATHER:
        return SC_COLL(MPI_Gather, MPI_Igather, sb, sn, st, rb, rn, rt, call->root, comm);
    case SC_PATTERN_SCATTER:
        return SC_COLL(MPI_Scatter, MPI_Iscatter, sb, sn, st, rb, rn, rt, call->root, comm);
    case SC_PATTERN_ALLGATHER:
        return SC_COLL(MPI_Allgather, MPI_Iallgather, sb, sn, st, rb, rn, rt, comm);
    default:
        return SC_COLL(MPI_Alltoall, MPI_Ialltoall, sb, sn, st, rb, rn, rt, comm);
    }
}

static int reg_native(sc__call *call)
{
    reg_side s, r;
    MPI_Datatype st, rt;
    int sn = 0, rn = 0, so = 0, ro = 0, rc = MPI_SUCCESS;

    sides(call, &s, &r);
    st = s.type, rt = r.type;
    if (s.buf != MPI_IN_PLACE && s.significant)
        rc = sc__type_fit(s.n, s.type, &sn, &st, &so);
    if (rc == MPI_SUCCESS && r.buf != MPI_IN_PLACE && r.significant)
        rc = sc__type_fit(r.n, r.type, &rn, &rt, &ro);
    if (rc == MPI_SUCCESS)
        rc = reg_int(call, s.buf, sn, st, r.buf, rn, rt, call->comm);
    if (so)
        MPI_Type_free(&st);
    if (ro)
        MPI_Type_free(&rt);
    return rc;
}

#if SC_HAVE_MPI4
static int reg_largecount(sc__call *call)
{
    reg_side s, r;
    MPI_Comm comm = call->priv;

    sides(call, &s, &r);
    switch (call->pattern) {
    case SC_PATTERN_GATHER:
        return SC_COLL(MPI_Gather_c, MPI_Igather_c, s.buf, s.n, s.type, r.buf, r.n, r.type,
                       call->root, comm);
    case SC_PATTERN_SCATTER:
        return SC_COLL(MPI_Scatter_c, MPI_Iscatter_c, s.buf, s.n, s.type, r.buf, r.n, r.type,
                       call->root, comm);
    case SC_PATTERN_ALLGATHER:
        return SC_COLL(MPI_Allgather_c, MPI_Iallgather_c, s.buf, s.n, s.type, r.buf, r.n, r.type,
                       comm);
    default:
        return SC_COLL(MPI_Alltoall_c, MPI_Ialltoall_c, s.buf, s.n, s.type, r.buf, r.n, r.type,
                       comm);
    }
}
#endif

/* A committed type of n elements of `type`, contiguous, whatever n: past
 * the int limit, blocks of the limit and a remainder (types.c). */
static int whole_type(MPI_Count n, MPI_Datatype type, MPI_Datatype *out)
{
    int rc;

    if (n > sc__config_int_limit())
        return sc__type_count(n, type, out);
    if ((rc = MPI_Type_contiguous((int)n, type, out)) != MPI_SUCCESS)
        return rc;
    return MPI_Type_commit(out);
}

/* bigtype: each block of a side becomes one element of a type of n
 * elements. Every side of every rank describes the same n elements, so the
 * signatures still match; an empty side keeps its count of 0. */
static int reg_bigtype(sc__call *call)
{
    reg_side s, r;
    reg_side *side[2] = {&s, &r};
    MPI_Datatype t[2] = {MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};
    int n[2] = {0, 0}, rc = MPI_SUCCESS;

    sides(call, &s, &r);
    for (int k = 0; k < 2 && rc == MPI_SUCCESS; k++) {
        reg_side *x = side[k];
        if (x->buf == MPI_IN_PLACE || !x->significant || x->n == 0) {
            t[k] = x->type;
            continue;
        }
        if ((rc = whole_type(x->n, x->type, &t[k])) == MPI_SUCCESS)
            n[k] = 1;
    }
    if (rc == MPI_SUCCESS)
        rc = reg_int(call, s.buf, n[0], t[0], r.buf, n[1], t[1], call->priv);
    for (int k = 0; k < 2; k++)
        if (n[k] == 1)
            MPI_Type_free(&t[k]);
    return rc;
}

/* The largest piece of a block chunk moves in one round. Under a bound on
 * the global buffer a round carries a piece of every block, so the pieces
 * share the limit; otherwise each piece only has to fit in it. */
static MPI_Count reg_piece(const sc__call *call)
{
    MPI_Count w = call->limit;

    if (call->ag[SC_AG_G_ELEMENTS] || call->ag[SC_AG_G_BYTES])
        w = w / call->size > 0 ? w / call->size : 1;
    return w;
}

/* The count of this rank's blocks: every significant side holds the same
 * number of elements (chunk runs only when every element has the same
 * size, and MPI makes the two ends of each message match). */
static MPI_Count reg_count(const sc__call *call)
{
    reg_side s, r;

    sides(call, &s, &r);
    if (r.buf != MPI_IN_PLACE && r.significant)
        return r.n;
    return s.buf != MPI_IN_PLACE && s.significant ? s.n : 0;
}

/* One side of round `round`: the piece [off, off + len) of its block(s),
 * where the blocks of a `blocks` side are one element of a type whose
 * extent is the block's. */
static int round_side(const reg_side *x, MPI_Count off, MPI_Count len, void **buf, int *count,
                      MPI_Datatype *type, int *owned)
{
    MPI_Datatype piece;
    MPI_Aint lb, ext;
    int rc;

    *owned = 0;
    *count = 0;
    *type = x->type;
    *buf = x->buf;
    if (x->buf == MPI_IN_PLACE || !x->significant)
        return MPI_SUCCESS;
    if (len <= 0)
        return MPI_SUCCESS;
    *buf = x->buf + off * x->extent;
    if (!x->blocks) {
        *count = (int)len;
        return MPI_SUCCESS;
    }
    if ((rc = MPI_Type_contiguous((int)len, x->type, &piece)) != MPI_SUCCESS)
        return rc;
    if ((rc = MPI_Type_get_extent(piece, &lb, &ext)) == MPI_SUCCESS &&
        (rc = MPI_Type_create_resized(piece, lb, (MPI_Aint)x->n * x->extent, type)) ==
            MPI_SUCCESS &&
        (rc = MPI_Type_commit(type)) == MPI_SUCCESS) {
        *count = 1;
        *owned = 1;
    }
    MPI_Type_free(&piece);
    return rc;
}

static int reg_chunk(sc__call *call)
{
    const MPI_Count w = reg_piece(call), n = reg_count(call);
    MPI_Count rounds = (n + w - 1) / w;
    reg_side s, r;
    int rc = MPI_SUCCESS;

    /* All ranks run the same rounds: the agreed number, which a rank that
     * planned with a larger limit may have counted short. */
    if (call->ag[SC_AG_ROUNDS] > rounds)
        rounds = call->ag[SC_AG_ROUNDS];
    sides(call, &s, &r);
    for (MPI_Count k = 0; k < rounds && rc == MPI_SUCCESS; k++) {
        const MPI_Count off = k * w, len = n - off < w ? n - off : w;
        MPI_Datatype st, rt;
        void *sb, *rb;
        int sn, rn, so, ro;

        rc = round_side(&s, off, len, &sb, &sn, &st, &so);
        if (rc == MPI_SUCCESS && (rc = round_side(&r, off, len, &rb, &rn, &rt, &ro)) ==
                                     MPI_SUCCESS) {
            /* In place, MPI takes the piece from the receive side. */
            rc = reg_int(call, sb, sn, st, rb, rn, rt, call->priv);
            if (ro)
                MPI_Type_free(&rt);
        }
        if (so)
            MPI_Type_free(&st);
    }
    return rc;
}

/* Whether chunk runs the rounds here, or the v-form's: a known MPI bug
 * (known.c), or an alltoall. An alltoall round here would move its pieces
 * through resized types, which MPICH 4.0.2 packs, and its own piece with
 * them; the v-form's chunk (MPI_Alltoallw rounds, alltoall.c) keeps the
 * own block out of the rounds and copies it beside them. At 1 MiB blocks
 * and P = 2 the rounds here took 1.6-1.7x MPI_Alltoall's time and the
 * v-form's 1.05-1.10x; past 1 MiB the v-form's chunk was the faster one
 * already (the forced chunk of the big tests: 56-92 s here at multi-GB
 * blocks against 1.5-15 s; doc/performance.md). Every rank decides alike:
 * what known.c tests is the same on all of them. */
static int own_chunk(const sc__call *call)
{
    if (sc__known_regular_chunk_extent(call))
        return 0;
    return call->pattern != SC_PATTERN_ALLTOALL;
}

/* After the pattern's own planning (segment, p2p and any other strategy
 * run the v-executors on the v-description): bigtype needs no gcd, and
 * chunk's rounds are pieces of one block. */
int sc__regular_feasible(sc__call *call)
{
    const MPI_Count w = reg_piece(call), n = reg_count(call);

    /* bigtype's global buffer is P elements, which a bound in elements
     * may still not allow; G in bytes rules it out anyway (pipeline.c). */
    call->ag[SC_AG_NOFIT + SAFECOLL_STRATEGY_BIGTYPE] =
        call->ag[SC_AG_G_ELEMENTS] && call->size > call->limit;
    /* The v-form's chunk counts its own rounds (windows). */
    if (own_chunk(call))
        call->ag[SC_AG_ROUNDS] = (n + w - 1) / w;
    return MPI_SUCCESS;
}

sc__exec_fn sc__regular_exec(const sc__call *call)
{
    switch (call->strategy) {
    case SAFECOLL_STRATEGY_NATIVE: return reg_native;
#if SC_HAVE_MPI4
    case SAFECOLL_STRATEGY_LARGECOUNT: return reg_largecount;
#endif
    case SAFECOLL_STRATEGY_BIGTYPE: return reg_bigtype;
    case SAFECOLL_STRATEGY_CHUNK:
        return own_chunk(call) ? reg_chunk : NULL;
    default: return NULL;
    }
}
