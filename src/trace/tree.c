/*
 * Gathers and reductions through inner ranks: the forward replay of paper
 * 001. The messages (and kept-data records) run in causal order; when a
 * rank that kept its own piece (a SELF record) sends a message whose hash
 * is the composition of that piece and what it received since (their
 * concatenation, CRC-32 by crc32_combine; the sum of their additive
 * hashes; the exclusive or of their CRCs), the message carries the
 * union of what those pieces covered. A rank that kept its piece,
 * received at least one such composed message, and then keeps a result
 * that composes (or ends without forwarding) is the root of a tree gather
 * or reduce over everything it received. The linear forms, without
 * composed messages, are patterns.c's fan-ins.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "replay.h"

enum { OP_NONE = 0, OP_CAT, OP_SUM, OP_XOR, OP_SCATTER };

typedef struct tev {
    uint64_t seq;
    size_t i;  /* message or self index */
    int what;  /* 0 send, 1 receive, 2 self */
} tev;

static int cmp_tev(const void *x, const void *y)
{
    const tev *a = x, *b = y;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

typedef struct tree {
    sc__tc_an *a;
    unsigned char *op;   /* per message: OP_* when composed */
    size_t *cstart, *cn; /* per composed message: its parts in parts[] */
    size_t *parts;
    size_t nparts, cparts;
    int *own;            /* per rank: its kept piece (self index), -1 */
    size_t **recv;       /* per rank: receipts since its piece */
    size_t *nrecv, *crecv;
    /* The scatter pass: sends by sender and position, rank r's from
     * out[out_at[r]]; the bytes a root's chunks and piece add up to. */
    size_t *out, *out_at;
    unsigned char *st;   /* per message: 0 unknown, 1 open, 2 a piece, 3 split */
    int64_t total;
} tree;

static uint32_t crc_zeros(int64_t n)
{
    static const unsigned char z[4096];
    uint32_t c = 0;
    while (n > 0) {
        size_t k = n > (int64_t)sizeof z ? sizeof z : (size_t)n;
        c = sc__rp_crc(c, z, k);
        n -= (int64_t)k;
    }
    return c;
}

/* The composition op of the piece own and the messages r[0..n) that has
 * hash crc (sumh) and bytes; OP_NONE if none. */
static int compose(const sc__tc_an *a, const sc__tc_self *own, const size_t *r, size_t n,
                   uint32_t crc, uint32_t sumh, int64_t bytes)
{
    int64_t total = own->bytes;
    uint32_t s = own->sumh, x = own->crc;
    int same = 1;

    for (size_t i = 0; i < n; i++) {
        const sc__tc_msg *m = &a->m[r[i]];
        total += m->bytes;
        s += m->sumh;
        x ^= m->crc;
        same &= m->bytes == own->bytes;
    }
    /* The concatenation's CRC only when the bytes add up. */
    if (total == bytes) {
        uint32_t c = own->crc;
        for (size_t i = 0; i < n; i++)
            c = sc__tc_crc_concat(c, a->m[r[i]].crc, a->m[r[i]].bytes);
        if (c == crc)
            return OP_CAT;
    }
    if (same && bytes == own->bytes) {
        if (own->elem > 0 && s == sumh)
            return OP_SUM;
        if ((n + 1) % 2 == 0)
            x ^= crc_zeros(bytes);
        if (x == crc)
            return OP_XOR;
    }
    return OP_NONE;
}

static int add_parts(tree *T, size_t m, const size_t *r, size_t n)
{
    if (T->nparts + n > T->cparts) {
        size_t nc = T->cparts ? 2 * T->cparts : 1024;
        while (nc < T->nparts + n)
            nc *= 2;
        size_t *p = realloc(T->parts, nc * sizeof *p);
        if (p == NULL)
            return -1;
        T->parts = p;
        T->cparts = nc;
    }
    memcpy(T->parts + T->nparts, r, n * sizeof *r);
    T->cstart[m] = T->nparts;
    T->cn[m] = n;
    T->nparts += n;
    return 0;
}

/* An instance rooted at y over its piece and the received r[0..n) (and
 * what they composed, walked down), with the result kept (res, or NULL). */
static int emit(tree *T, int y, const sc__tc_self *own, const size_t *r, size_t n, int op,
                const sc__tc_self *res)
{
    sc__tc_an *a = T->a;
    sc__tc_inst *in = sc__tc_inst_new(a, op == OP_SCATTER ? SAFECOLL_TRACE_SCATTER
                                         : op == OP_SUM || op == OP_XOR ? SAFECOLL_TRACE_REDUCE
                                                                        : SAFECOLL_TRACE_GATHER);
    size_t *stack = malloc((a->nm + 1) * sizeof *stack), sp = 0;

    if (in == NULL || stack == NULL) {
        free(stack);
        return MPI_ERR_NO_MEM;
    }
    in->root = y;
    sc__tc_bset(in->set, y);
    for (size_t i = 0; i < n && sp < a->nm; i++)
        stack[sp++] = r[i];
    while (sp > 0) {
        size_t m = stack[--sp];
        const sc__tc_msg *mm = &a->m[m];
        sc__tc_bset(in->set, op == OP_SCATTER ? mm->dst : mm->src);
        in->nmsgs++;
        sc__tc_inst_span(in, mm);
        sc__tc_inst_site(in, mm->ssite);
        sc__tc_inst_site(in, mm->rsite);
        if (T->op[m] != OP_NONE)
            for (size_t k = 0; k < T->cn[m] && sp < a->nm; k++)
                stack[sp++] = T->parts[T->cstart[m] + k];
    }
    free(stack);
    sc__tc_inst_site(in, own->site);
    int k = sc__tc_bcount(in->set, a->W);
    if (op == OP_SUM || op == OP_XOR) {
        in->bytes = own->bytes;
        in->op = op == OP_SUM ? 0 : 1;
        in->elem = own->elem;
        in->value = res != NULL ? res->crc : 0;
        if (res != NULL)
            sc__tc_inst_site(in, res->site);
        snprintf(in->detail, sizeof in->detail, "forward replay through inner ranks: each "
                 "forwarded partial result is the %s of what it combined%s",
                 op == OP_SUM ? "sum" : "xor", res != NULL ? "; the root's result too" : "");
    } else if (op == OP_SCATTER) {
        in->bytes = own->bytes;
        snprintf(in->detail, sizeof in->detail, "backward replay through inner ranks: each "
                 "chunk an inner rank received is its kept piece and the chunks it forwards");
    } else {
        in->bytes = own->bytes;
        if (res != NULL)
            sc__tc_inst_site(in, res->site);
        snprintf(in->detail, sizeof in->detail, "forward replay through inner ranks: each "
                 "forwarded chunk is the concatenation of what it gathered%s",
                 res != NULL ? "; the root's result too" : "");
    }
    sc__tc_inst_sites_done(in);
    /* A gather's pieces are equal: the bytes of all must be k pieces. */
    if (!sc__tc_inst_classify(a, in) ||
        (op == OP_CAT && res != NULL && res->bytes != (int64_t)k * own->bytes) ||
        (op == OP_SCATTER && in->bytes * k != T->total)) {
        free(in->set);
        free(in->sites);
        a->ninst--;
    }
    return MPI_SUCCESS;
}

/* y's receipts since its piece include a composed message: its end as a
 * root, with or without a kept result. */
static int finish(tree *T, int y, const sc__tc_self *res)
{
    sc__tc_an *a = T->a;
    int composed = 0, rc = MPI_SUCCESS;
    const sc__tc_self *own;

    if (T->own[y] < 0 || T->nrecv[y] == 0)
        return MPI_SUCCESS;
    for (size_t i = 0; i < T->nrecv[y]; i++)
        composed |= T->op[T->recv[y][i]] != OP_NONE;
    own = &a->self[T->own[y]];
    if (composed) {
        /* A kept result that composes verifies the root; without one,
         * the kind follows the composed messages received. */
        int op = OP_NONE;
        if (res != NULL)
            op = compose(a, own, T->recv[y], T->nrecv[y], res->crc, res->sumh, res->bytes);
        if (op == OP_NONE) {
            res = NULL;
            op = OP_CAT;
            for (size_t i = 0; i < T->nrecv[y]; i++)
                if (T->op[T->recv[y][i]] == OP_SUM || T->op[T->recv[y][i]] == OP_XOR)
                    op = T->op[T->recv[y][i]];
        }
        rc = emit(T, y, own, T->recv[y], T->nrecv[y], op, res);
        /* Kept data used here is not a linear fan-in's. */
        if (res != NULL)
            a->self_used[res - a->self] = 1;
        a->self_used[T->own[y]] = 1;
    }
    T->own[y] = -1;
    T->nrecv[y] = 0;
    return rc;
}


/* ---------------------------------------------------------------- scatter */

static const sc__tc_msg *sort_m;
static int cmp_out(const void *x, const void *y)
{
    const sc__tc_msg *a = &sort_m[*(const size_t *)x], *b = &sort_m[*(const size_t *)y];
    if (a->src != b->src)
        return a->src < b->src ? -1 : 1;
    return (a->sseq > b->sseq) - (a->sseq < b->sseq);
}

/* The first kept piece of rank r after position seq not used yet. */
static const sc__tc_self *self_after(const sc__tc_an *a, int r, uint64_t seq)
{
    for (size_t i = sc__tc_self_from(a, r, seq + 1); i < a->self_at[r + 1]; i++)
        if (!a->self_used[i])
            return &a->self[i];
    return NULL;
}

/* The index in T->out of rank r's first send after position seq. */
static size_t send_after(const tree *T, int r, uint64_t seq)
{
    size_t lo = T->out_at[r], hi = T->out_at[r + 1];
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (T->a->m[T->out[mid]].sseq <= seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Whether the piece own and the messages out[k..k+n) concatenate to crc,
 * in send order or in its reverse (a binomial tree sends its largest
 * subtree, the last ranks, first). */
static int splits(const tree *T, const sc__tc_self *own, size_t k, size_t n, uint32_t crc)
{
    for (int rev = 0; rev < 2; rev++) {
        uint32_t c = own->crc;
        for (size_t i = 0; i < n; i++) {
            const sc__tc_msg *m = &T->a->m[T->out[rev ? k + n - 1 - i : k + i]];
            c = sc__tc_crc_concat(c, m->crc, m->bytes);
        }
        if (c == crc)
            return 1;
    }
    return 0;
}

/* Message m's receiver: a leaf keeps it; an inner rank keeps a piece and
 * forwards the rest, which must concatenate back to m. */
static int cover(tree *T, size_t m, int depth)
{
    sc__tc_an *a = T->a;
    const sc__tc_msg *mm = &a->m[m];
    const sc__tc_self *own;

    if (T->st[m] != 0)
        return MPI_SUCCESS;
    T->st[m] = 2;
    if (depth > 64 || (own = self_after(a, mm->dst, mm->rseq)) == NULL || own->bytes >= mm->bytes)
        return MPI_SUCCESS;
    size_t k = send_after(T, mm->dst, own->seq), n = 0;
    int64_t cum = 0;
    while (k + n < T->out_at[mm->dst + 1] && cum < mm->bytes - own->bytes)
        cum += a->m[T->out[k + n++]].bytes;
    if (n == 0 || cum != mm->bytes - own->bytes || !splits(T, own, k, n, mm->crc))
        return MPI_SUCCESS;
    T->st[m] = 3;
    a->self_used[own - a->self] = 1;
    if (add_parts(T, m, T->out + k, n) != 0)
        return MPI_ERR_NO_MEM;
    T->op[m] = OP_SCATTER;
    for (size_t i = 0; i < n; i++) {
        int rc = cover(T, T->out[k + i], depth + 1);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* Roots: a rank that kept a piece and then sends chunks, to distinct
 * ranks, at least one of them split further on. */
static int scatter(tree *T)
{
    sc__tc_an *a = T->a;
    size_t n = 0;
    int rc;

    T->out = malloc((a->nm + 1) * sizeof *T->out);
    T->out_at = calloc((size_t)a->P + 1, sizeof *T->out_at);
    T->st = calloc(a->nm + 1, 1);
    if (!T->out || !T->out_at || !T->st)
        return MPI_ERR_NO_MEM;
    for (size_t i = 0; i < a->nm; i++)
        if (a->m[i].bytes > 0) {
            T->out[n++] = i;
            T->out_at[a->m[i].src + 1]++;
        }
    for (int r = 0; r < a->P; r++)
        T->out_at[r + 1] += T->out_at[r];
    sort_m = a->m;
    qsort(T->out, n, sizeof *T->out, cmp_out);
    /* Inner ranks first, so that their pieces are not taken for roots'. */
    for (size_t i = 0; i < n; i++)
        if (a->self_at[a->m[T->out[i]].dst + 1] > a->self_at[a->m[T->out[i]].dst] &&
            (rc = cover(T, T->out[i], 0)) != MPI_SUCCESS)
            return rc;
    for (size_t i = 0; i < a->nself; i++) {
        const sc__tc_self *own = &a->self[i];
        /* An empty piece (safecoll_trace_self with count 0) roots no
         * scatter: the chunks are counted in pieces of its size. */
        if (a->self_used[i] || own->bytes <= 0)
            continue;
        size_t k = send_after(T, own->rank, own->seq), j = k;
        int split = 0;
        uint64_t *seen = calloc((size_t)a->W, sizeof *seen);
        if (seen == NULL)
            return MPI_ERR_NO_MEM;
        T->total = own->bytes;
        while (j < T->out_at[own->rank + 1]) {
            const sc__tc_msg *m = &a->m[T->out[j]];
            if (sc__tc_bget(seen, m->dst) || m->bytes % own->bytes != 0)
                break;
            sc__tc_bset(seen, m->dst);
            split |= T->st[T->out[j]] == 3;
            T->total += m->bytes;
            j++;
        }
        free(seen);
        if (!split)
            continue;
        if ((rc = emit(T, own->rank, own, T->out + k, j - k, OP_SCATTER, NULL)) != MPI_SUCCESS)
            return rc;
        a->self_used[i] = 1;
    }
    return MPI_SUCCESS;
}

int sc__tc_tree(sc__tc_an *a)
{
    int P = a->P, rc = MPI_ERR_NO_MEM, sp = 0;
    size_t *cnt = NULL, *at = NULL, *pos = NULL;
    tev *evs = NULL;
    unsigned char *sent = NULL;
    long *blocked = NULL;
    int *stack = NULL;
    tree T;

    memset(&T, 0, sizeof T);
    T.a = a;
    if (a->nself == 0)
        return MPI_SUCCESS;
    cnt = calloc((size_t)P + 1, sizeof *cnt);
    at = calloc((size_t)P + 1, sizeof *at);
    pos = calloc((size_t)P, sizeof *pos);
    evs = malloc((2 * a->nm + a->nself + 1) * sizeof *evs);
    sent = calloc(a->nm + 1, 1);
    blocked = malloc((size_t)P * sizeof *blocked);
    stack = malloc((size_t)P * sizeof *stack);
    T.op = calloc(a->nm + 1, 1);
    T.cstart = calloc(a->nm + 1, sizeof *T.cstart);
    T.cn = calloc(a->nm + 1, sizeof *T.cn);
    T.own = malloc((size_t)P * sizeof *T.own);
    T.recv = calloc((size_t)P, sizeof *T.recv);
    T.nrecv = calloc((size_t)P, sizeof *T.nrecv);
    T.crecv = calloc((size_t)P, sizeof *T.crecv);
    if (!cnt || !at || !pos || !evs || !sent || !blocked || !stack || !T.op || !T.cstart ||
        !T.cn || !T.own || !T.recv || !T.nrecv || !T.crecv)
        goto out;
    for (size_t i = 0; i < a->nm; i++)
        if (a->m[i].bytes > 0) {
            cnt[a->m[i].src]++;
            cnt[a->m[i].dst]++;
        }
    for (size_t i = 0; i < a->nself; i++)
        cnt[a->self[i].rank]++;
    for (int r = 0; r < P; r++)
        at[r + 1] = at[r] + cnt[r];
    memset(cnt, 0, ((size_t)P + 1) * sizeof *cnt);
    for (size_t i = 0; i < a->nm; i++)
        if (a->m[i].bytes > 0) {
            const sc__tc_msg *m = &a->m[i];
            evs[at[m->src] + cnt[m->src]++] = (tev){m->sseq, i, 0};
            evs[at[m->dst] + cnt[m->dst]++] = (tev){m->rseq, i, 1};
        }
    for (size_t i = 0; i < a->nself; i++) {
        int r = a->self[i].rank;
        evs[at[r] + cnt[r]++] = (tev){a->self[i].seq, i, 2};
    }
    for (int r = 0; r < P; r++) {
        qsort(evs + at[r], at[r + 1] - at[r], sizeof *evs, cmp_tev);
        blocked[r] = -1;
        T.own[r] = -1;
        stack[sp++] = r;
    }
    while (sp > 0) {
        int y = stack[--sp];
        blocked[y] = -1;
        while (at[y] + pos[y] < at[y + 1]) {
            const tev *e = &evs[at[y] + pos[y]];
            if (e->what == 0) {
                const sc__tc_msg *m = &a->m[e->i];
                if (T.own[y] >= 0 && T.nrecv[y] > 0) {
                    int op = compose(a, &a->self[T.own[y]], T.recv[y], T.nrecv[y], m->crc,
                                     m->sumh, m->bytes);
                    if (op != OP_NONE) {
                        if (add_parts(&T, e->i, T.recv[y], T.nrecv[y]) != 0)
                            goto out;
                        T.op[e->i] = (unsigned char)op;
                        a->self_used[T.own[y]] = 1;
                        T.own[y] = -1;
                        T.nrecv[y] = 0;
                    }
                }
                sent[e->i] = 1;
                if (blocked[m->dst] == (long)e->i)
                    stack[sp++] = m->dst, blocked[m->dst] = -2;
            } else if (e->what == 1) {
                if (!sent[e->i]) {
                    blocked[y] = (long)e->i;
                    break;
                }
                if (T.own[y] >= 0 && T.nrecv[y] >= (size_t)P) {
                    /* More receipts than ranks since the piece was kept:
                     * no gather or reduce through this rank. */
                    T.own[y] = -1;
                    T.nrecv[y] = 0;
                }
                if (T.own[y] >= 0) {
                    if (T.nrecv[y] == T.crecv[y]) {
                        size_t nc = T.crecv[y] ? 2 * T.crecv[y] : 8;
                        size_t *r = realloc(T.recv[y], nc * sizeof *r);
                        if (r == NULL)
                            goto out;
                        T.recv[y] = r;
                        T.crecv[y] = nc;
                    }
                    T.recv[y][T.nrecv[y]++] = e->i;
                }
            } else {
                if ((rc = finish(&T, y, &a->self[e->i])) != MPI_SUCCESS)
                    goto out;
                rc = MPI_ERR_NO_MEM;
                if (!a->self_used[e->i])
                    T.own[y] = (int)e->i;
            }
            pos[y]++;
        }
        if (at[y] + pos[y] == at[y + 1] && (rc = finish(&T, y, NULL)) != MPI_SUCCESS)
            goto out;
        rc = MPI_ERR_NO_MEM;
    }
    /* The pieces the gathers used are out of the scatters' way. */
    memset(T.op, 0, a->nm + 1);
    T.nparts = 0;
    rc = scatter(&T);
out:
    if (T.recv)
        for (int r = 0; r < P; r++)
            free(T.recv[r]);
    free(T.recv);
    free(T.nrecv);
    free(T.crecv);
    free(T.own);
    free(T.op);
    free(T.cstart);
    free(T.cn);
    free(T.parts);
    free(T.out);
    free(T.out_at);
    free(T.st);
    free(cnt);
    free(at);
    free(pos);
    free(evs);
    free(sent);
    free(blocked);
    free(stack);
    return rc;
}
