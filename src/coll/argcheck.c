/*
 * The checking mode (argcheck.h): one MPI_Allgather of a fixed-size digest
 * per call on the private communicator, then the same comparisons on every
 * rank over the same gathered digests, so that every rank reaches the same
 * verdict without a further message.
 *
 * A type signature is summarised by a hash that is linear in the number of
 * elements of each predefined type it holds: the hash of a predefined type
 * is a constant made from its name (MPI_Type_get_name, the same text in
 * every process, where handle values need not be), a derived type's hash
 * is the sum of its parts' hashes times their repetitions, and n elements
 * of a type hash to n times its hash. So sendcount x sendtype and
 * recvcount x recvtype hash alike exactly when they hold the same number
 * of elements of each predefined type: what MPI requires, except for the
 * order of the basic types, which this summary cannot see. MPI_BYTE and
 * MPI_PACKED match anything of the same size (MPI_PACKED does by the
 * standard; MPI_BYTE is commonly used so, and a debugging mode should not
 * refuse programs that run): a side that holds one is compared in bytes.
 */
#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "argcheck.h"
#include "nb.h"

/* ---- type signatures ---- */

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

typedef struct sig {
    uint64_t h;     /* linear hash of the element counts per basic type */
    MPI_Count size; /* bytes */
    int untyped;    /* holds MPI_BYTE or MPI_PACKED */
} sig;

static void type_sig(MPI_Datatype t, sig *s, int depth)
{
    sc__type_contents c;

    s->h = 0;
    s->untyped = 0;
    if (MPI_Type_size_x(t, &s->size) != MPI_SUCCESS)
        return;
    if (sc__type_is_named(t)) {
        char name[MPI_MAX_OBJECT_NAME] = "";
        int len = 0;
        uint64_t h = 0xcbf29ce484222325ULL;
        MPI_Type_get_name(t, name, &len);
        for (int i = 0; i < len; i++)
            h = (h ^ (unsigned char)name[i]) * 0x100000001b3ULL;
        s->h = mix(h ^ (uint64_t)s->size);
        s->untyped = t == MPI_BYTE || t == MPI_PACKED;
        return;
    }
    c.combiner = 0;
    if (depth > 64 || !sc__type_contents_get(t, &c)) {
        /* The Fortran parameterised types (no old types), or a type nested
         * too deep: their combiner and size. */
        s->h = mix((uint64_t)c.combiner * 0x100000001b3ULL ^ (uint64_t)s->size);
        return;
    }
    for (int i = 0; i < c.nd; i++) {
        sig o;
        uint64_t reps;
        type_sig(c.types[i], &o, depth + 1);
        if (c.combiner == MPI_COMBINER_STRUCT)
            reps = (uint64_t)c.ints[1 + i];
        else /* one old type, repeated as often as the sizes say */
            reps = o.size > 0 ? (uint64_t)(s->size / o.size) : 0;
        if (c.combiner == MPI_COMBINER_STRUCT || i == 0) {
            s->h += reps * o.h;
            s->untyped |= o.untyped && reps > 0;
        }
    }
    sc__type_contents_free(&c);
}

/* ---- the digest ---- */

typedef struct side_sig {
    long long present; /* significant on this rank */
    long long h, bytes, untyped;
} side_sig;

typedef struct digest {
    long long coll, seq, root, op, err;
    long long global, globalb, global_untyped, has_global;
    side_sig send, recv;
    /* The v-forms and alltoallw: sums over peers of a hash of (peer, the
     * peer's block's signature), and their byte versions: vx what this
     * rank expects of the ranks' one-count sides (the root's arrays, or
     * allgatherv's recvcounts), vo and vi what it sends to and receives
     * from each peer (alltoallv, alltoallw). */
    long long vx, vxb, vo, vob, vi, vib, untyped;
    char msg[200];
} digest;

static void scaled(side_sig *d, MPI_Count n, MPI_Datatype t)
{
    sig s;
    type_sig(t, &s, 0);
    d->present = 1;
    d->h = (long long)((uint64_t)n * s.h);
    d->bytes = (long long)(n * s.size);
    d->untyped = s.untyped;
}

/* 1 when two sides hold different signatures; *bytes_differ says whether
 * the sizes differ too (MPI_ERR_COUNT rather than MPI_ERR_TYPE). */
static int differ(const side_sig *a, const side_sig *b, int *bytes_differ)
{
    *bytes_differ = a->bytes != b->bytes;
    if (*bytes_differ)
        return 1;
    if (a->untyped || b->untyped)
        return 0;
    return a->h != b->h;
}

static int op_id(MPI_Op op)
{
    static const MPI_Op ops[] = {MPI_MAX,  MPI_MIN,  MPI_SUM,  MPI_PROD,   MPI_LAND,
                                 MPI_BAND, MPI_LOR,  MPI_BOR,  MPI_LXOR,   MPI_BXOR,
                                 MPI_MAXLOC, MPI_MINLOC, MPI_REPLACE, MPI_NO_OP};
    if (op == MPI_OP_NULL)
        return 0;
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (op == ops[i])
            return (int)i + 1;
    /* User ops: their handles need not be equal across ranks. */
    return 100;
}

static const char *op_name(long long id)
{
    static const char *names[] = {"MPI_OP_NULL", "MPI_MAX",  "MPI_MIN",    "MPI_SUM",
                                  "MPI_PROD",    "MPI_LAND", "MPI_BAND",   "MPI_LOR",
                                  "MPI_BOR",     "MPI_LXOR", "MPI_BXOR",   "MPI_MAXLOC",
                                  "MPI_MINLOC",  "MPI_REPLACE", "MPI_NO_OP"};
    return id >= 0 && id <= 14 ? names[id] : id == 100 ? "a user-defined op" : "none";
}

/* The per-communicator call number, cached on comm. Every rank numbers
 * the checked calls on comm alike, so a rank that skipped or added a call
 * is told even when the collectives' names match. */
static pthread_once_t seq_once = PTHREAD_ONCE_INIT;
static int seq_keyval = MPI_KEYVAL_INVALID;

static void seq_create(void)
{
    MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN, &seq_keyval, NULL);
}

static long long next_seq(MPI_Comm comm)
{
    void *v;
    int found = 0;
    long long n;

    pthread_once(&seq_once, seq_create);
    if (seq_keyval == MPI_KEYVAL_INVALID)
        return 0;
    if (MPI_Comm_get_attr(comm, seq_keyval, &v, &found) != MPI_SUCCESS || !found)
        v = NULL;
    n = (long long)(intptr_t)v + 1;
    MPI_Comm_set_attr(comm, seq_keyval, (void *)(intptr_t)n);
    return n;
}

static void start(digest *d, safecoll_coll coll, MPI_Comm comm, int root, int rc)
{
    memset(d, 0, sizeof *d);
    d->coll = coll;
    d->seq = next_seq(comm);
    d->root = root;
    const char *bad = sc__check_env_bad();
    if (bad != NULL && rc == MPI_SUCCESS)
        rc = sc__error(MPI_ERR_ARG, "SAFECOLL_CHECK: '%s' is not 0 or 1", bad);
    d->err = rc;
    if (rc != MPI_SUCCESS)
        snprintf(d->msg, sizeof d->msg, "%s", safecoll_last_error());
}

static const char *coll_name(long long c)
{
    return safecoll_coll_name((safecoll_coll)c);
}

static uint64_t peer(int i, uint64_t v)
{
    return mix(v ^ ((uint64_t)(i + 1) * 0xd6e8feb86659fd93ULL));
}

static uint64_t pair(int i, int j, uint64_t v)
{
    return mix(peer(i, v) ^ ((uint64_t)(j + 1) * 0xa0761d6478bd642fULL));
}

/* The comparisons every rank makes over the same digests. */
static int verdict(const digest *all, int p, const char *fn, sc__pattern pattern)
{
    const digest *d0 = &all[0];
    int r, bd;

    for (r = 0; r < p; r++)
        if (all[r].err != MPI_SUCCESS)
            return sc__error((int)all[r].err, "%s: rank %d has a bad argument (checked on "
                             "every rank): %s", fn, r, all[r].msg);
    for (r = 1; r < p; r++)
        if (all[r].coll != d0->coll)
            return sc__error(MPI_ERR_OTHER, "%s: collectives differ: rank 0 calls %s, rank %d "
                             "calls %s", fn, coll_name(d0->coll), r, coll_name(all[r].coll));
    for (r = 1; r < p; r++)
        if (all[r].seq != d0->seq)
            return sc__error(MPI_ERR_OTHER, "%s: ranks 0 and %d are at different calls on "
                             "this communicator (%lld and %lld checked calls)", fn, r,
                             d0->seq, all[r].seq);
    for (r = 1; r < p; r++)
        if (all[r].root != d0->root)
            return sc__error(MPI_ERR_ROOT, "%s: roots differ: rank 0 passes %lld, rank %d "
                             "passes %lld", fn, d0->root, r, all[r].root);
    for (r = 1; r < p; r++)
        if (all[r].op != d0->op)
            return sc__error(MPI_ERR_OP, "%s: ops differ: rank 0 passes %s, rank %d passes %s",
                             fn, op_name(d0->op), r, op_name(all[r].op));
    if (d0->has_global)
        for (r = 1; r < p; r++) {
            side_sig a = {1, d0->global, d0->globalb, d0->global_untyped};
            side_sig b = {1, all[r].global, all[r].globalb, all[r].global_untyped};
            if (differ(&a, &b, &bd))
                return sc__error(bd ? MPI_ERR_COUNT : MPI_ERR_TYPE,
                                 "%s: ranks 0 and %d pass %s (count x datatype%s)", fn, r,
                                 bd ? "data of different sizes" : "different type signatures",
                                 pattern == SC_PATTERN_REDUCE ? ", recvcounts" : "");
        }
    switch (pattern) {
    case SC_PATTERN_GATHER:
    case SC_PATTERN_SCATTER: {
        const int root = (int)d0->root;
        const int gather = pattern == SC_PATTERN_GATHER;
        const side_sig *ref = gather ? &all[root].recv : &all[root].send;
        for (r = 0; r < p; r++) {
            const side_sig *s = gather ? &all[r].send : &all[r].recv;
            if (s->present && differ(s, ref, &bd))
                return sc__error(bd ? MPI_ERR_COUNT : MPI_ERR_TYPE,
                                 "%s: rank %d's %s does not match the root's (rank %d) %s: "
                                 "%s", fn, r, gather ? "sendcount x sendtype"
                                                     : "recvcount x recvtype",
                                 root, gather ? "recvcount x recvtype" : "sendcount x sendtype",
                                 bd ? "sizes differ" : "type signatures differ");
        }
        break;
    }
    case SC_PATTERN_ALLGATHER:
    case SC_PATTERN_ALLTOALL:
        for (r = 1; r < p; r++)
            if (differ(&all[r].recv, &d0->recv, &bd))
                return sc__error(bd ? MPI_ERR_COUNT : MPI_ERR_TYPE,
                                 "%s: ranks 0 and %d pass different recvcount x recvtype (%s)",
                                 fn, r, bd ? "sizes differ" : "type signatures differ");
        for (r = 0; r < p; r++)
            if (all[r].send.present && differ(&all[r].send, &all[r].recv, &bd))
                return sc__error(bd ? MPI_ERR_COUNT : MPI_ERR_TYPE,
                                 "%s: rank %d's sendcount x sendtype does not match "
                                 "recvcount x recvtype (%s)",
                                 fn, r, bd ? "sizes differ" : "type signatures differ");
        break;
    default:
        break;
    }
    return MPI_SUCCESS;
}

static int agree(digest *mine, MPI_Comm comm, const char *fn, sc__pattern pattern)
{
    MPI_Comm priv;
    digest *all;
    int p, rc;

    if ((rc = sc__comm_private(comm, &priv)) != MPI_SUCCESS)
        return rc;
    MPI_Comm_size(priv, &p);
    if ((all = malloc(sizeof *all * (size_t)p)) == NULL)
        return sc__error(MPI_ERR_NO_MEM, "%s: out of memory for the check", fn);
    rc = SC_TR_AGREE_CALL(MPI_Allgather, mine, (int)sizeof *mine, MPI_BYTE, all,
                    (int)sizeof *mine, MPI_BYTE, priv);
    if (rc != MPI_SUCCESS)
        rc = sc__error(rc, "%s: the check's MPI_Allgather failed", fn);
    else
        rc = verdict(all, p, fn, pattern);
    free(all);
    return rc;
}

int sc__check_fail(safecoll_coll coll, const char *fn, MPI_Comm comm, int rc)
{
    digest d;

    start(&d, coll, comm, -1, rc);
    return agree(&d, comm, fn, SC_PATTERN_BCAST);
}

int sc__check_blocks(safecoll_coll coll, sc__pattern pattern, const char *fn, MPI_Comm comm,
                     int root, const void *sendbuf, MPI_Count sendcount, MPI_Datatype sendtype,
                     const void *recvbuf, MPI_Count recvcount, MPI_Datatype recvtype, int rc)
{
    const int rooted = pattern == SC_PATTERN_GATHER || pattern == SC_PATTERN_SCATTER;
    digest d;
    int rank;

    MPI_Comm_rank(comm, &rank);
    start(&d, coll, comm, rooted ? root : -1, rc);
    if (d.err == MPI_SUCCESS) {
        const int is_root = rooted && rank == root;
        /* The sides MPI reads on this rank; in place, a rank's own block
         * is where MPI wants it and is not compared. */
        int s = sendbuf != MPI_IN_PLACE, r = recvbuf != MPI_IN_PLACE;
        if (pattern == SC_PATTERN_GATHER)
            r = r && is_root;
        if (pattern == SC_PATTERN_SCATTER)
            s = s && is_root;
        if (s)
            scaled(&d.send, sendcount, sendtype);
        if (r)
            scaled(&d.recv, recvcount, recvtype);
    }
    return agree(&d, comm, fn, pattern);
}

int sc__check_bcast(safecoll_coll coll, const char *fn, MPI_Comm comm, int root,
                    MPI_Count count, MPI_Datatype type, int rc)
{
    digest d;

    start(&d, coll, comm, root, rc);
    if (d.err == MPI_SUCCESS && root >= 0) {
        side_sig g;
        scaled(&g, count, type);
        d.has_global = 1;
        d.global = g.h;
        d.globalb = g.bytes;
        d.global_untyped = g.untyped;
    }
    return agree(&d, comm, fn, SC_PATTERN_BCAST);
}

int sc__check_reduce(safecoll_coll coll, safecoll_coll kind, const char *fn, MPI_Comm comm,
                     int root, MPI_Count count, const int *irecvcounts,
                     const MPI_Count *crecvcounts, MPI_Datatype type, MPI_Op op, int rc)
{
    digest d;

    start(&d, coll, comm, kind == SAFECOLL_COLL_REDUCE ? root : -1, rc);
    d.op = op_id(op);
    if (d.err == MPI_SUCCESS) {
        side_sig g;
        scaled(&g, 1, type);
        d.has_global = 1;
        d.global_untyped = g.untyped;
        if (kind == SAFECOLL_COLL_REDUCE_SCATTER) {
            /* Every rank must pass the same recvcounts: a sum over ranks of
             * a hash of (rank, its block's signature). */
            int p;
            uint64_t h = 0, b = 0;
            MPI_Comm_size(comm, &p);
            for (int i = 0; i < p; i++) {
                MPI_Count c = irecvcounts != NULL ? irecvcounts[i] : crecvcounts[i];
                h += mix((uint64_t)c * (uint64_t)g.h ^ ((uint64_t)i << 40));
                b += mix((uint64_t)c * (uint64_t)g.bytes ^ ((uint64_t)i << 40));
            }
            d.global = (long long)h;
            d.globalb = (long long)b;
        } else {
            d.global = (long long)((uint64_t)count * (uint64_t)g.h);
            d.globalb = (long long)(count * g.bytes);
        }
    }
    return agree(&d, comm, fn, SC_PATTERN_REDUCE);
}

/* ---- the v-forms and alltoallw ---- */

static MPI_Count count_of(const sc__layout *lay, int i)
{
    return lay->icounts != NULL ? lay->icounts[i] : lay->ccounts[i];
}

static int has_counts(const sc__layout *lay)
{
    return lay->icounts != NULL || lay->ccounts != NULL;
}

/* The signature of peer i's block of a side: alltoallw has a type per
 * peer, the others one type. */
static side_sig block(const sc__call *call, const sc__layout *lay, const MPI_Datatype *types,
                      int i)
{
    side_sig b;
    (void)call;
    scaled(&b, count_of(lay, i), types != NULL ? types[i] : lay->type);
    return b;
}

int sc__check_is_v(safecoll_coll coll)
{
    /* The v column of the collective table (colls.h). */
    switch (sc__blocking(coll)) {
#define SC_IS_V_(S, name, c, v, ...)                                                          \
    case SAFECOLL_COLL_##S:                                                                   \
        return v;
        SC_COLLS(SC_IS_V_)
#undef SC_IS_V_
    default:
        return 0;
    }
}

/* Sums of (peer, signature) over the peers of one side. */
static void side_sums(const sc__call *call, const sc__layout *lay, const MPI_Datatype *types,
                      int skip, int as_sender, long long *h, long long *b, long long *untyped)
{
    uint64_t sh = 0, sb = 0;
    for (int i = 0; i < call->size; i++) {
        side_sig x;
        if (i == skip)
            continue;
        x = block(call, lay, types, i);
        *untyped |= x.untyped;
        if (as_sender < 0) {
            sh += peer(i, (uint64_t)x.h);
            sb += peer(i, (uint64_t)x.bytes);
        } else if (as_sender) {
            sh += pair(call->rank, i, (uint64_t)x.h);
            sb += pair(call->rank, i, (uint64_t)x.bytes);
        } else {
            sh += pair(i, call->rank, (uint64_t)x.h);
            sb += pair(i, call->rank, (uint64_t)x.bytes);
        }
    }
    *h = (long long)sh;
    *b = (long long)sb;
}

/* alltoallv and alltoallw after a mismatch: every rank sends each peer the
 * signature it sends it, and the first pair that differs is named. */
static int pair_mismatch(const sc__call *call, MPI_Comm priv, int untyped)
{
    const int p = call->size, me = call->rank;
    const sc__layout *sl = call->in_place ? &call->rlay : &call->lay;
    const MPI_Datatype *st = call->pattern == SC_PATTERN_ALLTOALLW ? call->w.stypes : NULL;
    const MPI_Datatype *rt = call->pattern == SC_PATTERN_ALLTOALLW ? call->w.rtypes : NULL;
    long long *out = malloc(sizeof *out * 4 * (size_t)p), *in = out + 2 * p, bad = LLONG_MAX,
              first = LLONG_MAX;
    int bytes = 0, i, j;

    if (out == NULL)
        return sc__error(MPI_ERR_NO_MEM, "%s: out of memory for the check", call->fn);
    for (j = 0; j < p; j++) {
        side_sig x = block(call, sl, st, j);
        out[2 * j] = x.h;
        out[2 * j + 1] = x.bytes;
    }
    SC_TR_AGREE_CALL(MPI_Alltoall, out, 2, MPI_LONG_LONG, in, 2, MPI_LONG_LONG, priv);
    for (i = 0; i < p && bad == LLONG_MAX; i++) {
        side_sig x = block(call, &call->rlay, rt, i);
        if (in[2 * i + 1] != x.bytes || (!untyped && in[2 * i] != x.h))
            bad = (long long)i * p + me; /* sender i, receiver me */
    }
    SC_TR_AGREE_CALL(MPI_Allreduce, &bad, &first, 1, MPI_LONG_LONG, MPI_MIN, priv);
    if (first != LLONG_MAX && first % p == me)
        bytes = in[2 * (first / p) + 1] != block(call, &call->rlay, rt, (int)(first / p)).bytes;
    SC_TR_AGREE_CALL(MPI_Bcast, &bytes, 1, MPI_INT,
               first == LLONG_MAX ? 0 : (int)(first % p), priv);
    free(out);
    if (first == LLONG_MAX) /* a hash collision of the sums: no pair differs */
        return MPI_SUCCESS;
    i = (int)(first / p);
    j = (int)(first % p);
    return sc__error(bytes ? MPI_ERR_COUNT : MPI_ERR_TYPE,
                     "%s: rank %d's sendcounts[%d] x %s does not match rank %d's "
                     "recvcounts[%d] x %s (%s)", call->fn, i, j, st ? "sendtypes[]" : "sendtype",
                     j, i, rt ? "recvtypes[]" : "recvtype",
                     bytes ? "sizes differ" : "type signatures differ");
}

int sc__check_v(const sc__call *call)
{
    const int rooted = call->pattern == SC_PATTERN_GATHER || call->pattern == SC_PATTERN_SCATTER;
    const int me = call->rank, p = call->size, root = call->root;
    digest d, *all;
    MPI_Comm priv;
    int rc, untyped = 0;
    uint64_t y = 0, yb = 0;

    start(&d, call->coll, call->comm, rooted ? root : -1, (int)call->ag[SC_AG_ERROR]);
    /* alltoallw's description leaves a NULL buffer to MPI, which fails on
     * that rank only; here it is a bad argument like the others'. */
    if (d.err == MPI_SUCCESS && call->pattern == SC_PATTERN_ALLTOALLW)
        for (int k = call->in_place; k < 2 && d.err == MPI_SUCCESS; k++) {
            const sc__layout *lay = k == 0 ? &call->lay : &call->rlay;
            const MPI_Datatype *t = k == 0 ? call->w.stypes : call->w.rtypes;
            for (int i = 0; lay->buf == NULL && has_counts(lay) && t != NULL && i < p; i++) {
                MPI_Count sz = 0;
                if (count_of(lay, i) > 0 && sc__type_is_named(t[i]) &&
                    MPI_Type_size_x(t[i], &sz) == MPI_SUCCESS && sz > 0) {
                    d.err = sc__error(MPI_ERR_BUFFER, "%s: rank %d: %s is NULL but %s[%d] is "
                                      "%lld", call->fn, me, k == 0 ? "sendbuf" : "recvbuf",
                                      k == 0 ? "sendcounts" : "recvcounts", i,
                                      (long long)count_of(lay, i));
                    snprintf(d.msg, sizeof d.msg, "%s", safecoll_last_error());
                    break;
                }
            }
        }
    if (call->ag[SC_AG_ERROR] != 0 && call->ag[SC_AG_ERROR_RANK] != me + 1)
        d.err = MPI_SUCCESS; /* not this rank's own: its message is not here */
    if (d.err == MPI_SUCCESS) {
        switch (call->pattern) {
        case SC_PATTERN_GATHER:
        case SC_PATTERN_SCATTER:
            /* A rank's one block: what it sends to a gatherv's root, what
             * it receives from a scatterv's. */
            if (!call->in_place)
                scaled(call->pattern == SC_PATTERN_GATHER ? &d.send : &d.recv, call->leaf.count,
                       call->leaf.type);
            if (me == root && has_counts(&call->lay))
                side_sums(call, &call->lay, NULL, call->in_place ? me : -1, -1, &d.vx, &d.vxb,
                          &d.untyped);
            break;
        case SC_PATTERN_ALLGATHER:
            if (!has_counts(&call->lay))
                break;
            if (call->in_place)
                d.send = block(call, &call->lay, NULL, me);
            else
                scaled(&d.send, call->leaf.count, call->leaf.type);
            side_sums(call, &call->lay, NULL, -1, -1, &d.vx, &d.vxb, &d.untyped);
            break;
        default: { /* alltoallv, alltoallw */
            const int w = call->pattern == SC_PATTERN_ALLTOALLW;
            const sc__layout *sl = call->in_place ? &call->rlay : &call->lay;
            if (!has_counts(sl) || !has_counts(&call->rlay))
                break;
            side_sums(call, sl, w ? call->w.stypes : NULL, -1, 1, &d.vo, &d.vob, &d.untyped);
            side_sums(call, &call->rlay, w ? call->w.rtypes : NULL, -1, 0, &d.vi, &d.vib,
                      &d.untyped);
            break;
        }
        }
        d.untyped |= d.send.untyped | d.recv.untyped;
    }
    if ((rc = sc__comm_private(call->comm, &priv)) != MPI_SUCCESS)
        return rc;
    if ((all = malloc(sizeof *all * (size_t)p)) == NULL)
        return sc__error(MPI_ERR_NO_MEM, "%s: out of memory for the check", call->fn);
    rc = SC_TR_AGREE_CALL(MPI_Allgather, &d, (int)sizeof d, MPI_BYTE, all, (int)sizeof d,
                    MPI_BYTE, priv);
    if (rc != MPI_SUCCESS) {
        free(all);
        return sc__error(rc, "%s: the check's MPI_Allgather failed", call->fn);
    }
    /* Errors, the collective, the call number and the root first. */
    if ((rc = verdict(all, p, call->fn, SC_PATTERN_BCAST)) != MPI_SUCCESS ||
        call->ag[SC_AG_ERROR] != 0) {
        free(all);
        /* Errors of other ranks the pipeline's own agreement tells. */
        return rc;
    }
    for (int i = 0; i < p; i++) {
        const side_sig *x = call->pattern == SC_PATTERN_SCATTER ? &all[i].recv : &all[i].send;
        untyped |= (int)all[i].untyped;
        if (x->present) {
            y += peer(i, (uint64_t)x->h);
            yb += peer(i, (uint64_t)x->bytes);
        }
    }
    switch (call->pattern) {
    case SC_PATTERN_GATHER:
    case SC_PATTERN_SCATTER:
        if ((long long)yb != all[root].vxb || (!untyped && (long long)y != all[root].vx)) {
            /* Only the root can tell which rank: it says so. */
            const int g = call->pattern == SC_PATTERN_GATHER;
            int what[2] = {-1, (long long)yb != all[root].vxb};
            if (me == root)
                for (int i = 0; i < p && what[0] < 0; i++) {
                    const side_sig *x = g ? &all[i].send : &all[i].recv;
                    side_sig b;
                    int bd;
                    if (!x->present)
                        continue;
                    b = block(call, &call->lay, NULL, i);
                    if (differ(x, &b, &bd) || (untyped && x->bytes != b.bytes)) {
                        what[0] = i;
                        what[1] = bd;
                    }
                }
            SC_TR_AGREE_CALL(MPI_Bcast, what, 2, MPI_INT, root, priv);
            rc = sc__error(what[1] ? MPI_ERR_COUNT : MPI_ERR_TYPE,
                           "%s: rank %d's %s does not match the root's (rank %d) %s[%d] x %s (%s)",
                           call->fn, what[0], g ? "sendcount x sendtype" : "recvcount x recvtype",
                           root, g ? "recvcounts" : "sendcounts", what[0],
                           g ? "recvtype" : "sendtype",
                           what[1] ? "sizes differ" : "type signatures differ");
        }
        break;
    case SC_PATTERN_ALLGATHER:
        for (int j = 0; j < p; j++)
            if ((long long)yb != all[j].vxb || (!untyped && (long long)y != all[j].vx)) {
                /* Rank j finds the sender and tells. */
                int what[2] = {-1, (long long)yb != all[j].vxb};
                if (me == j)
                    for (int i = 0; i < p && what[0] < 0; i++) {
                        side_sig b = block(call, &call->lay, NULL, i);
                        if (all[i].send.bytes != b.bytes ||
                            (!untyped && all[i].send.h != b.h)) {
                            what[0] = i;
                            what[1] = all[i].send.bytes != b.bytes;
                        }
                    }
                SC_TR_AGREE_CALL(MPI_Bcast, what, 2, MPI_INT, j, priv);
                rc = sc__error(what[1] ? MPI_ERR_COUNT : MPI_ERR_TYPE,
                               "%s: rank %d's sendcount x sendtype does not match rank %d's "
                               "recvcounts[%d] x recvtype (%s)", call->fn, what[0], j, what[0],
                               what[1] ? "sizes differ" : "type signatures differ");
                break;
            }
        break;
    default: {
        uint64_t o = 0, ob = 0, in = 0, ib = 0;
        for (int i = 0; i < p; i++) {
            o += (uint64_t)all[i].vo;
            ob += (uint64_t)all[i].vob;
            in += (uint64_t)all[i].vi;
            ib += (uint64_t)all[i].vib;
        }
        if (ob != ib || (!untyped && o != in))
            rc = pair_mismatch(call, priv, untyped);
        break;
    }
    }
    free(all);
    return rc;
}
