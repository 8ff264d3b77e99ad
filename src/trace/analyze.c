/*
 * The analyzer's entry (safecoll_trace_analyze): the trace loaded and its
 * messages matched, then the broadcast replay of paper 001 and the
 * compositions of broadcasts; patterns.c adds the personalized patterns
 * and the barrier, report.c makes the findings.
 */
#define _GNU_SOURCE 1

#include <stdlib.h>
#include <string.h>

#include "analyze.h"

size_t sc__tr_self_from(const sc__tr_an *a, int r, uint64_t lo)
{
    size_t b = a->self_at[r], e = a->self_at[r + 1];
    while (b < e) {
        size_t mid = b + (e - b) / 2;
        if (a->self[mid].seq < lo)
            b = mid + 1;
        else
            e = mid;
    }
    return b;
}

int sc__tr_bcount(const uint64_t *s, int W)
{
    int n = 0;
    for (int i = 0; i < W; i++)
        n += __builtin_popcountll(s[i]);
    return n;
}

sc__tr_inst *sc__tr_inst_new(sc__tr_an *a, safecoll_trace_kind kind)
{
    sc__tr_inst *in;

    if (a->ninst == a->cap) {
        size_t ncap = a->cap ? 2 * a->cap : 64;
        sc__tr_inst *n = realloc(a->inst, ncap * sizeof *n);
        if (n == NULL)
            return NULL;
        a->inst = n;
        a->cap = ncap;
    }
    in = &a->inst[a->ninst];
    memset(in, 0, sizeof *in);
    if ((in->set = calloc((size_t)a->W, sizeof *in->set)) == NULL)
        return NULL;
    in->kind = kind;
    in->root = -1;
    in->t0 = in->lt0 = INT64_MAX;
    in->t1 = in->lt1 = INT64_MIN;
    a->ninst++;
    return in;
}

void sc__tr_inst_span(sc__tr_inst *in, const sc__tr_msg *m)
{
    if (m->ts < in->t0)
        in->t0 = m->ts;
    if (m->tr > in->t1)
        in->t1 = m->tr;
    if (m->ls < in->lt0)
        in->lt0 = m->ls;
    if (m->lr > in->lt1)
        in->lt1 = m->lr;
}

int sc__tr_inst_site(sc__tr_inst *in, uint32_t site)
{
    if (site == 0)
        return 0;
    /* Grown by powers of two; duplicates are removed at the end. */
    if ((in->nsites & (in->nsites - 1)) == 0) {
        uint32_t *s = realloc(in->sites, (in->nsites ? 2 * (size_t)in->nsites : 4) * sizeof *s);
        if (s == NULL)
            return -1;
        in->sites = s;
    }
    in->sites[in->nsites++] = site;
    return 0;
}

static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

void sc__tr_inst_sites_done(sc__tr_inst *in)
{
    int k = 0;

    qsort(in->sites, (size_t)in->nsites, sizeof *in->sites, cmp_u32);
    for (int i = 0; i < in->nsites; i++)
        if (k == 0 || in->sites[k - 1] != in->sites[i])
            in->sites[k++] = in->sites[i];
    in->nsites = k;
}

int sc__tr_inst_classify(sc__tr_an *a, sc__tr_inst *in)
{
    int n = sc__tr_bcount(in->set, a->W);

    if (n < a->opt.min_ranks)
        return 0;
    in->near = n < a->P && a->opt.near > 0 && a->P - n <= a->opt.near &&
               in->kind == SAFECOLL_TRACE_BCAST;
    return 1;
}

/* ---------------------------------------------------------------- loading */

/* A send or a receive waiting for its partner. */
typedef struct pend {
    int32_t src, dst, tag;
    uint32_t comm;
    uint64_t seq;
    const sc__tr_rec *r;
    int64_t t;
    uint32_t site;
} pend;

static int cmp_pend(const void *x, const void *y)
{
    const pend *a = x, *b = y;
    if (a->src != b->src)
        return a->src < b->src ? -1 : 1;
    if (a->dst != b->dst)
        return a->dst < b->dst ? -1 : 1;
    if (a->comm != b->comm)
        return a->comm < b->comm ? -1 : 1;
    if (a->tag != b->tag)
        return a->tag < b->tag ? -1 : 1;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

static int same_channel(const pend *a, const pend *b)
{
    return a->src == b->src && a->dst == b->dst && a->comm == b->comm && a->tag == b->tag;
}

/* Global site ids: every file's strings interned once, through an open
 * addressing table of ids (sites may be many return addresses). */
typedef struct interner {
    uint32_t *t;
    uint32_t cap;
} interner;

static uint32_t str_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static int intern(sc__tr_an *a, interner *in, const char *s, uint32_t *id)
{
    if (2 * a->nsites >= in->cap) {
        uint32_t ncap = in->cap ? 2 * in->cap : 256;
        uint32_t *t = calloc(ncap, sizeof *t);
        if (t == NULL)
            return -1;
        for (uint32_t i = 1; i < a->nsites; i++) {
            uint32_t j = str_hash(a->sites[i]) & (ncap - 1);
            while (t[j] != 0)
                j = (j + 1) & (ncap - 1);
            t[j] = i;
        }
        free(in->t);
        in->t = t;
        in->cap = ncap;
    }
    uint32_t j = str_hash(s) & (in->cap - 1);
    for (; in->t[j] != 0; j = (j + 1) & (in->cap - 1))
        if (strcmp(a->sites[in->t[j]], s) == 0) {
            *id = in->t[j];
            return 0;
        }
    /* The array doubles when its count reaches a power of two. */
    if ((a->nsites & (a->nsites - 1)) == 0) {
        char **n = realloc(a->sites, 2 * (size_t)a->nsites * sizeof *n);
        if (n == NULL)
            return -1;
        a->sites = n;
    }
    if ((a->sites[a->nsites] = strdup(s)) == NULL)
        return -1;
    in->t[j] = a->nsites;
    *id = a->nsites++;
    return 0;
}

/* Messages from the files: sends and receives of one channel (source,
 * destination, communicator, tag) pair in order, as MPI matches them (no
 * overtaking); a receive whose payload differs from the next send's (its
 * completion recorded out of posting order) takes the next send of the
 * same payload a few positions on. */
static int load(sc__tr_an *a, sc__tr_file *files)
{
    size_t ns = 0, nr = 0, nself = 0, total = 0;
    int64_t origin = INT64_MAX;
    pend *S = NULL, *R = NULL;
    uint32_t **map = NULL;
    unsigned char *taken = NULL;
    interner names = {NULL, 0};
    int rc = MPI_ERR_NO_MEM;

    for (int r = 0; r < a->P; r++) {
        total += files[r].n;
        if (files[r].origin_ns < origin)
            origin = files[r].origin_ns;
    }
    a->events = (long)total;
    S = malloc((total ? total : 1) * sizeof *S);
    R = malloc((total ? total : 1) * sizeof *R);
    a->self = malloc((total ? total : 1) * sizeof *a->self);
    a->self_at = calloc((size_t)a->P + 1, sizeof *a->self_at);
    a->self_used = calloc(total ? total : 1, 1);
    map = calloc((size_t)a->P, sizeof *map);
    a->sites = calloc(1, sizeof *a->sites);
    a->nsites = 1;
    if (!S || !R || !a->self || !a->self_at || !a->self_used || !map || !a->sites)
        goto out;
    for (int r = 0; r < a->P; r++) {
        sc__tr_file *f = &files[r];
        if ((map[r] = calloc(f->nsites ? f->nsites : 1, sizeof **map)) == NULL)
            goto out;
        for (uint32_t i = 1; i < f->nsites; i++)
            if (intern(a, &names, f->sites[i], &map[r][i]) != 0)
                goto out;
        a->self_at[r] = nself;
        for (size_t i = 0; i < f->n; i++) {
            const sc__tr_rec *e = &f->recs[i];
            int64_t t = f->origin_ns - origin + e->t_ns;
            uint32_t site = map[r][e->site];
            if (e->flags & SC_TR_FLAG_LIBRARY)
                continue;
            if (e->kind == SC_TR_SELF) {
                sc__tr_self *s = &a->self[nself++];
                s->rank = r;
                s->elem = e->elem;
                s->crc = e->crc;
                s->sumh = e->sumh;
                s->site = site;
                s->bytes = e->bytes;
                s->seq = e->seq;
                s->t = t;
            } else if (e->kind == SC_TR_SEND) {
                S[ns++] = (pend){r, e->peer, e->tag, e->comm, e->seq, e, t, site};
            } else {
                R[nr++] = (pend){e->peer, r, e->tag, e->comm, e->seq, e, t, site};
            }
        }
    }
    a->self_at[a->P] = nself;
    a->nself = nself;
    qsort(S, ns, sizeof *S, cmp_pend);
    qsort(R, nr, sizeof *R, cmp_pend);
    a->m = malloc((ns < nr ? ns : nr) * sizeof *a->m + 1);
    taken = calloc(ns ? ns : 1, 1);
    if (a->m == NULL || taken == NULL)
        goto out;
    a->nm = 0;
    {
        size_t i = 0, j = 0, matched_r = 0;
        while (i < ns && j < nr) {
            if (!same_channel(&S[i], &R[j])) {
                /* Skip the side whose channel sorts first. */
                pend a1 = S[i], b1 = R[j];
                a1.seq = b1.seq = 0;
                if (cmp_pend(&a1, &b1) < 0)
                    i++;
                else
                    j++;
                continue;
            }
            if (taken[i]) {
                i++;
                continue;
            }
            /* The first untaken send of the channel with this payload,
             * within a window of 16. */
            size_t k = i, pick = (size_t)-1;
            for (int w = 0; k < ns && w < 16 && same_channel(&S[k], &R[j]); k++) {
                if (taken[k])
                    continue;
                w++;
                if (S[k].r->crc == R[j].r->crc && S[k].r->ends == R[j].r->ends &&
                    S[k].r->bytes == R[j].r->bytes) {
                    pick = k;
                    break;
                }
            }
            if (pick == (size_t)-1) {
                j++; /* a receive of a payload no send carries */
                continue;
            }
            taken[pick] = 1;
            sc__tr_msg *m = &a->m[a->nm++];
            memset(m, 0, sizeof *m);
            m->src = S[pick].src;
            m->dst = R[j].dst;
            m->crc = R[j].r->crc;
            m->ends = R[j].r->ends;
            m->sumh = S[pick].r->sumh;
            m->elem = S[pick].r->elem;
            m->bytes = R[j].r->bytes;
            m->sseq = S[pick].seq;
            m->rseq = R[j].seq;
            m->ts = S[pick].t;
            m->tr = R[j].t;
            m->ssite = S[pick].site;
            m->rsite = R[j].site;
            matched_r++;
            j++;
        }
        a->unmatched = (long)(ns + nr - 2 * matched_r);
    }
    rc = MPI_SUCCESS;
out:
    if (map)
        for (int r = 0; r < a->P; r++)
            free(map[r]);
    free(map);
    free(names.t);
    free(S);
    free(R);
    free(taken);
    if (rc != MPI_SUCCESS)
        sc__error(rc, "safecoll_trace_analyze: no memory for the %zu events", total);
    return rc;
}


/* ---------------------------------------------------------------- Lamport */

typedef struct lev {
    uint64_t seq;
    size_t msg;
    int send;
} lev;

static int cmp_lev(const void *x, const void *y)
{
    const lev *a = x, *b = y;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

/* Lamport times of every send and receive: a rank's events count up, a
 * receive comes after its send. A replay in causal order (a rank runs
 * until a receive whose send has not run). */
static int lamport(sc__tr_an *a)
{
    int P = a->P, sp = 0, rc = MPI_ERR_NO_MEM;
    size_t *at = calloc((size_t)P + 1, sizeof *at), *pos = calloc((size_t)P, sizeof *pos);
    size_t *cnt = calloc((size_t)P + 1, sizeof *cnt);
    lev *ev = malloc((2 * a->nm + 1) * sizeof *ev);
    int64_t *clk = calloc((size_t)P, sizeof *clk);
    long *blocked = malloc((size_t)P * sizeof *blocked);
    int *stack = malloc((size_t)P * sizeof *stack);
    unsigned char *sent = calloc(a->nm + 1, 1);

    if (!at || !pos || !cnt || !ev || !clk || !blocked || !stack || !sent)
        goto out;
    for (size_t i = 0; i < a->nm; i++) {
        at[a->m[i].src + 1]++;
        at[a->m[i].dst + 1]++;
    }
    for (int r = 0; r < P; r++)
        at[r + 1] += at[r];
    for (size_t i = 0; i < a->nm; i++) {
        const sc__tr_msg *m = &a->m[i];
        ev[at[m->src] + cnt[m->src]++] = (lev){m->sseq, i, 1};
        ev[at[m->dst] + cnt[m->dst]++] = (lev){m->rseq, i, 0};
    }
    for (int r = 0; r < P; r++) {
        qsort(ev + at[r], at[r + 1] - at[r], sizeof *ev, cmp_lev);
        blocked[r] = -1;
        stack[sp++] = r;
    }
    while (sp > 0) {
        int r = stack[--sp];
        blocked[r] = -1;
        for (; at[r] + pos[r] < at[r + 1]; pos[r]++) {
            const lev *e = &ev[at[r] + pos[r]];
            sc__tr_msg *m = &a->m[e->msg];
            if (e->send) {
                m->ls = ++clk[r];
                sent[e->msg] = 1;
                if (blocked[m->dst] == (long)e->msg) {
                    blocked[m->dst] = -2;
                    stack[sp++] = m->dst;
                }
            } else {
                if (!sent[e->msg]) {
                    blocked[r] = (long)e->msg;
                    break;
                }
                clk[r] = (clk[r] > m->ls ? clk[r] : m->ls) + 1;
                m->lr = clk[r];
            }
        }
    }
    /* A trace whose sends and receives cannot run in any order (a
     * receive before its own send on one rank, say) leaves messages
     * without times: they take their physical order's. */
    for (size_t i = 0; i < a->nm; i++)
        if (!sent[i] || a->m[i].lr == 0) {
            a->m[i].ls = a->m[i].ts;
            a->m[i].lr = a->m[i].tr;
        }
    rc = MPI_SUCCESS;
out:
    free(at);
    free(pos);
    free(cnt);
    free(ev);
    free(clk);
    free(blocked);
    free(stack);
    free(sent);
    return rc;
}

/* ---------------------------------------------------------------- broadcast */


/* The sort key of a message for the rounds: its payload (CRC-32, ends
 * hash, bytes), then its receiver and receipt position (to number the
 * receipts), then its generation; small, so that the sorts move little. */
typedef struct rkey {
    uint32_t crc, ends;
    int64_t bytes;
    int32_t dst;
    uint32_t gen;
    uint64_t rseq;
    size_t i; /* in a->m */
} rkey;

static int cmp_key_payload(const rkey *a, const rkey *b)
{
    if (a->crc != b->crc)
        return a->crc < b->crc ? -1 : 1;
    if (a->ends != b->ends)
        return a->ends < b->ends ? -1 : 1;
    if (a->bytes != b->bytes)
        return a->bytes < b->bytes ? -1 : 1;
    return 0;
}

/* By payload, receiver and receipt order: gives each its generation (the
 * receiver's first, second, ... receipt of the payload). */
static int cmp_by_dst(const void *x, const void *y)
{
    const rkey *a = x, *b = y;
    int c = cmp_key_payload(a, b);
    if (c != 0)
        return c;
    if (a->dst != b->dst)
        return a->dst < b->dst ? -1 : 1;
    return (a->rseq > b->rseq) - (a->rseq < b->rseq);
}

/* By payload and generation: the rounds. */
static int cmp_by_gen(const void *x, const void *y)
{
    const rkey *a = x, *b = y;
    int c = cmp_key_payload(a, b);
    if (c != 0)
        return c;
    if (a->gen != b->gen)
        return a->gen < b->gen ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

/* A round's messages by sender and send position. */
static int cmp_round(const void *x, const void *y)
{
    const sc__tr_msg *a = x, *b = y;
    if (a->src != b->src)
        return a->src < b->src ? -1 : 1;
    return (a->sseq > b->sseq) - (a->sseq < b->sseq);
}

/* The replay of one round, m[0..k): every rank receives at most once.
 * reach(y), for a rank y that received, is the set of ranks its sends
 * after the receipt reach, directly or through the ranks they reach
 * (paper 001's receiver sets, computed backwards from the last
 * receivers); a root candidate owns the payload before any receipt and
 * reaches the union over all its sends. */
typedef struct round {
    sc__tr_an *a;
    sc__tr_msg *m;
    size_t k;
    int *recv_of;     /* rank -> its receipt in the round, -1 */
    size_t *first;    /* rank -> its first send in the round, k: none */
    uint64_t *reach;  /* rank -> bitset (W words) */
    unsigned char *state; /* 0 not done, 1 on the stack, 2 done */
    int *touched;     /* the ranks whose entries were set */
    int ntouched;
} round;

static void reach_of(round *R, int y0)
{
    /* An explicit stack: a chain of P ranks must not recurse P deep. */
    int W = R->a->W;
    int *stack = malloc((R->k + 2) * sizeof *stack);
    size_t *at = malloc((R->k + 2) * sizeof *at);
    int sp = 0;

    if (stack == NULL || at == NULL) {
        free(stack);
        free(at);
        return;
    }
    stack[0] = y0;
    at[0] = R->first[y0];
    R->state[y0] = 1;
    while (sp >= 0) {
        int y = stack[sp];
        size_t i = at[sp];
        uint64_t *ry = R->reach + (size_t)y * W;
        uint64_t after = R->recv_of[y] >= 0 ? R->m[R->recv_of[y]].rseq : 0;
        int has_recv = R->recv_of[y] >= 0 && y != y0;
        int pushed = 0;
        for (; i < R->k && R->m[i].src == y; i++) {
            const sc__tr_msg *mm = &R->m[i];
            if (has_recv && mm->sseq < after)
                continue;
            int z = mm->dst;
            sc__tr_bset(ry, z);
            if (R->state[z] == 0 && R->recv_of[z] >= 0 && R->first[z] < R->k) {
                R->state[z] = 1;
                at[sp] = i + 1;
                stack[++sp] = z;
                at[sp] = R->first[z];
                pushed = 1;
                break;
            }
            if (R->state[z] == 2)
                for (int w = 0; w < W; w++)
                    ry[w] |= R->reach[(size_t)z * W + w];
        }
        if (pushed)
            continue;
        R->state[y] = 2;
        sp--;
        if (sp >= 0) {
            /* Fold the child just finished into its parent. */
            int p = stack[sp];
            for (int w = 0; w < W; w++)
                R->reach[(size_t)p * W + w] |= ry[w];
        }
    }
    free(stack);
    free(at);
}

static int round_replay(round *R)
{
    sc__tr_an *a = R->a;
    int W = a->W, nroots = 0;
    int *roots = malloc((R->k + 1) * sizeof *roots);

    if (roots == NULL)
        return MPI_ERR_NO_MEM;
    R->ntouched = 0;
    for (size_t i = 0; i < R->k; i++) {
        int ends[2] = {R->m[i].src, R->m[i].dst};
        for (int e = 0; e < 2; e++)
            if (!R->state[ends[e]]) {
                R->state[ends[e]] = 1;
                R->touched[R->ntouched++] = ends[e];
            }
    }
    for (size_t i = 0; i < R->k; i++) {
        const sc__tr_msg *m = &R->m[i];
        if (R->first[m->src] == R->k)
            R->first[m->src] = i;
        R->recv_of[m->dst] = (int)i;
    }
    for (int t = 0; t < R->ntouched; t++)
        R->state[R->touched[t]] = 0;
    /* Root candidates: they send before receiving (or never receive). */
    for (int t = 0; t < R->ntouched; t++) {
        int y = R->touched[t];
        if (R->first[y] == R->k)
            continue;
        if (R->recv_of[y] < 0 || R->m[R->recv_of[y]].rseq > R->m[R->first[y]].sseq)
            roots[nroots++] = y;
    }
    for (int c = 0; c < nroots; c++) {
        int r = roots[c];
        /* A fresh replay per candidate: a candidate's reach includes
         * sends another candidate's does not. */
        for (int t = 0; t < R->ntouched; t++) {
            int y = R->touched[t];
            R->state[y] = 0;
            memset(R->reach + (size_t)y * W, 0, (size_t)W * sizeof(uint64_t));
        }
        reach_of(R, r);
        uint64_t *set = R->reach + (size_t)r * W;
        sc__tr_bset(set, r);
        if (sc__tr_bcount(set, W) < a->opt.min_ranks)
            continue;
        sc__tr_inst *in = sc__tr_inst_new(a, SAFECOLL_TRACE_BCAST);
        if (in == NULL) {
            free(roots);
            return MPI_ERR_NO_MEM;
        }
        memcpy(in->set, set, (size_t)W * sizeof *set);
        in->root = r;
        in->bytes = R->m[0].bytes;
        in->value = R->m[0].crc;
        in->alternatives = nroots - 1;
        for (size_t i = 0; i < R->k; i++) {
            const sc__tr_msg *m = &R->m[i];
            if (!sc__tr_bget(set, m->dst) || !sc__tr_bget(set, m->src))
                continue;
            in->nmsgs++;
            sc__tr_inst_span(in, m);
            sc__tr_inst_site(in, m->ssite);
            sc__tr_inst_site(in, m->rsite);
        }
        sc__tr_inst_sites_done(in);
        if (!sc__tr_inst_classify(a, in)) {
            free(in->set);
            free(in->sites);
            a->ninst--;
            continue;
        }
        snprintf(in->detail, sizeof in->detail, "receiver sets (backward replay)");
    }
    for (int t = 0; t < R->ntouched; t++) {
        int y = R->touched[t];
        R->recv_of[y] = -1;
        R->first[y] = (size_t)-1;
        R->state[y] = 0;
    }
    free(roots);
    return MPI_SUCCESS;
}

int sc__tr_bcast(sc__tr_an *a)
{
    rkey *key;
    sc__tr_msg *m = NULL;
    size_t n = 0, cap = 0;
    round R;
    int rc = MPI_SUCCESS;

    /* Empty payloads carry nothing to broadcast (barrier's business). */
    if ((key = malloc((a->nm ? a->nm : 1) * sizeof *key)) == NULL)
        return MPI_ERR_NO_MEM;
    for (size_t i = 0; i < a->nm; i++)
        if (a->m[i].bytes > 0) {
            const sc__tr_msg *x = &a->m[i];
            key[n++] = (rkey){x->crc, x->ends, x->bytes, x->dst, 0, x->rseq, i};
        }
    qsort(key, n, sizeof *key, cmp_by_dst);
    for (size_t i = 0; i < n; i++)
        key[i].gen = (i > 0 && cmp_key_payload(&key[i - 1], &key[i]) == 0 &&
                      key[i - 1].dst == key[i].dst) ? key[i - 1].gen + 1 : 0;
    qsort(key, n, sizeof *key, cmp_by_gen);
    memset(&R, 0, sizeof R);
    R.a = a;
    R.recv_of = malloc((size_t)a->P * sizeof *R.recv_of);
    R.first = malloc((size_t)a->P * sizeof *R.first);
    R.reach = calloc((size_t)a->P * a->W, sizeof *R.reach);
    R.state = calloc((size_t)a->P, 1);
    R.touched = malloc(2 * (size_t)a->P * sizeof *R.touched);
    if (!R.recv_of || !R.first || !R.reach || !R.state || !R.touched) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    for (int r = 0; r < a->P; r++) {
        R.recv_of[r] = -1;
        R.first[r] = (size_t)-1;
    }
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && cmp_key_payload(&key[j], &key[i]) == 0 && key[j].gen == key[i].gen)
            j++;
        /* A round of k messages spans at most k + 1 ranks: the few that
         * may are copied out and replayed. */
        if ((long)(j - i) + 1 >= a->opt.min_ranks) {
            if (j - i > cap) {
                cap = 2 * (j - i);
                sc__tr_msg *nm = realloc(m, cap * sizeof *nm);
                if (nm == NULL) {
                    rc = MPI_ERR_NO_MEM;
                    goto out;
                }
                m = nm;
            }
            for (size_t q = i; q < j; q++) {
                m[q - i] = a->m[key[q].i];
                m[q - i].gen = key[q].gen;
            }
            qsort(m, j - i, sizeof *m, cmp_round);
            R.m = m;
            R.k = j - i;
            /* first[] holds k for "none" in this round. */
            for (size_t q = 0; q < R.k; q++) {
                R.first[m[q].src] = R.k;
                R.first[m[q].dst] = R.k;
            }
            if ((rc = round_replay(&R)) != MPI_SUCCESS)
                goto out;
        }
        i = j;
    }
out:
    free(key);
    free(m);
    free(R.recv_of);
    free(R.first);
    free(R.reach);
    free(R.state);
    free(R.touched);
    return rc;
}

/* ---------------------------------------------------------------- compositions */

static int same_set(const sc__tr_an *a, const sc__tr_inst *x, const sc__tr_inst *y)
{
    return memcmp(x->set, y->set, (size_t)a->W * sizeof *x->set) == 0;
}

/* Merges instances idx[0..n) into a new one of kind (root, bytes). */
static int merge(sc__tr_an *a, const size_t *idx, size_t n, safecoll_trace_kind kind, int root,
                 int64_t bytes, const char *how)
{
    sc__tr_inst *in = sc__tr_inst_new(a, kind);
    if (in == NULL)
        return MPI_ERR_NO_MEM;
    sc__tr_inst *first = &a->inst[idx[0]];
    memcpy(in->set, first->set, (size_t)a->W * sizeof *in->set);
    in->root = root;
    in->bytes = bytes;
    for (size_t i = 0; i < n; i++) {
        sc__tr_inst *x = &a->inst[idx[i]];
        x->used = 1;
        in->nmsgs += x->nmsgs;
        if (x->t0 < in->t0)
            in->t0 = x->t0;
        if (x->t1 > in->t1)
            in->t1 = x->t1;
        if (x->lt0 < in->lt0)
            in->lt0 = x->lt0;
        if (x->lt1 > in->lt1)
            in->lt1 = x->lt1;
        for (int s = 0; s < x->nsites; s++)
            if (sc__tr_inst_site(in, x->sites[s]) != 0)
                return MPI_ERR_NO_MEM;
    }
    sc__tr_inst_sites_done(in);
    sc__tr_inst_classify(a, in);
    snprintf(in->detail, sizeof in->detail, "%s: %zu broadcasts at once over the same ranks",
             how, n);
    return MPI_SUCCESS;
}

static const sc__tr_an *sort_an;
static int by_root;
static int cmp_inst_idx(const void *x, const void *y)
{
    const sc__tr_inst *a = &sort_an->inst[*(const size_t *)x];
    const sc__tr_inst *b = &sort_an->inst[*(const size_t *)y];
    int c = memcmp(a->set, b->set, (size_t)sort_an->W * sizeof *a->set);
    if (c != 0)
        return c;
    if (by_root && a->root != b->root)
        return a->root < b->root ? -1 : 1;
    return (a->lt0 > b->lt0) - (a->lt0 < b->lt0);
}

/* Allgathers: over one rank set, in order of start, groups of one
 * broadcast from each rank, of equal bytes, that all run at once (a
 * repeated root, other bytes or a start after the group's first end
 * begins a new group). */
static int allgathers(sc__tr_an *a, const size_t *idx, size_t n)
{
    size_t *grp = malloc((n ? n : 1) * sizeof *grp), k = 0;
    uint64_t *seen = calloc((size_t)a->W, sizeof *seen);
    int rc = MPI_SUCCESS;

    if (grp == NULL || seen == NULL) {
        free(grp);
        free(seen);
        return MPI_ERR_NO_MEM;
    }
    for (size_t i = 0; i < n && rc == MPI_SUCCESS;) {
        size_t j = i;
        int members = sc__tr_bcount(a->inst[idx[i]].set, a->W);
        int64_t lend = INT64_MAX, tend = INT64_MAX, tstart = INT64_MIN;
        k = 0;
        memset(seen, 0, (size_t)a->W * sizeof *seen);
        for (; j < n && same_set(a, &a->inst[idx[i]], &a->inst[idx[j]]); j++) {
            const sc__tr_inst *x = &a->inst[idx[j]];
            if (k > 0 && (sc__tr_bget(seen, x->root) || x->bytes != a->inst[grp[0]].bytes ||
                          x->lt0 >= lend || x->t0 >= tend || x->t1 <= tstart)) {
                k = 0;
                lend = tend = INT64_MAX;
                tstart = INT64_MIN;
                memset(seen, 0, (size_t)a->W * sizeof *seen);
            }
            grp[k++] = idx[j];
            sc__tr_bset(seen, x->root);
            if (x->lt1 < lend)
                lend = x->lt1;
            if (x->t1 < tend)
                tend = x->t1;
            if (x->t0 > tstart)
                tstart = x->t0;
            if ((long)k == members) {
                /* (merge may move a->inst: no pointers kept across it) */
                rc = merge(a, grp, k, SAFECOLL_TRACE_ALLGATHER, -1, a->inst[grp[0]].bytes,
                           "composition");
                if (rc != MPI_SUCCESS)
                    break;
                k = 0;
                lend = tend = INT64_MAX;
                tstart = INT64_MIN;
                memset(seen, 0, (size_t)a->W * sizeof *seen);
            }
        }
        i = j;
    }
    free(grp);
    free(seen);
    return rc;
}

/* Broadcasts over the same ranks that run at once (their times share a
 * moment, in Lamport time and on the clocks: a loop of broadcasts from
 * a root that receives nothing is concurrent in Lamport time alone, and
 * clocks of different ranks may disagree, causality cannot): one from every rank of equal bytes is an allgather; several
 * from one root, of distinct payloads, are the segments of one broadcast
 * (pipelined, or a scatter and an allgather). Nested broadcasts follow
 * one another and stay apart. */
int sc__tr_compose(sc__tr_an *a)
{
    size_t n = 0, total = a->ninst;
    size_t *idx = malloc((total ? total : 1) * sizeof *idx);
    int rc;

    if (idx == NULL)
        return MPI_ERR_NO_MEM;
    for (size_t i = 0; i < total; i++)
        if (a->inst[i].kind == SAFECOLL_TRACE_BCAST && !a->inst[i].near)
            idx[n++] = i;
    sort_an = a;
    by_root = 0;
    qsort(idx, n, sizeof *idx, cmp_inst_idx);
    if ((rc = allgathers(a, idx, n)) != MPI_SUCCESS)
        goto out;
    /* Segments: what is left, by set and root, in overlapping runs. */
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (!a->inst[idx[i]].used)
            idx[m++] = idx[i];
    by_root = 1;
    qsort(idx, m, sizeof *idx, cmp_inst_idx);
    for (size_t i = 0; i < m;) {
        size_t j = i + 1;
        int64_t end = a->inst[idx[i]].lt1, tend = a->inst[idx[i]].t1;
        int64_t tstart = a->inst[idx[i]].t0, sum = a->inst[idx[i]].bytes;
        while (j < m && same_set(a, &a->inst[idx[i]], &a->inst[idx[j]]) &&
               a->inst[idx[j]].root == a->inst[idx[i]].root && a->inst[idx[j]].lt0 < end &&
               a->inst[idx[j]].t0 < tend && a->inst[idx[j]].t1 > tstart) {
            if (a->inst[idx[j]].lt1 < end)
                end = a->inst[idx[j]].lt1;
            if (a->inst[idx[j]].t1 < tend)
                tend = a->inst[idx[j]].t1;
            if (a->inst[idx[j]].t0 > tstart)
                tstart = a->inst[idx[j]].t0;
            sum += a->inst[idx[j]].bytes;
            j++;
        }
        if (j - i >= 2 &&
            (rc = merge(a, idx + i, j - i, SAFECOLL_TRACE_BCAST, a->inst[idx[i]].root, sum,
                        "segments (pipelined, or scatter+allgather)")) != MPI_SUCCESS)
            goto out;
        i = j;
    }
out:
    free(idx);
    return rc;
}

/* ---------------------------------------------------------------- entry */

int safecoll_trace_options_init(safecoll_trace_options *opt)
{
    if (opt == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_trace_options_init: opt is NULL");
    memset(opt, 0, sizeof *opt);
    opt->min_ranks = 3;
    opt->near = 1;
    return MPI_SUCCESS;
}

static void an_free(sc__tr_an *a)
{
    free(a->m);
    free(a->self);
    free(a->self_at);
    free(a->self_used);
    for (uint32_t i = 1; i < a->nsites; i++)
        free(a->sites[i]);
    free(a->sites);
    for (size_t i = 0; i < a->ninst; i++) {
        free(a->inst[i].set);
        free(a->inst[i].sites);
    }
    free(a->inst);
}

int safecoll_trace_analyze(const char *dir, const safecoll_trace_options *opt,
                           safecoll_trace_report **out)
{
    sc__tr_an a;
    sc__tr_file *files = NULL;
    int rc, P = 0;

    if (out == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_trace_analyze: out is NULL");
    *out = NULL;
    if (dir == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_trace_analyze: dir is NULL");
    memset(&a, 0, sizeof a);
    if (opt != NULL)
        a.opt = *opt;
    else
        safecoll_trace_options_init(&a.opt);
    if (a.opt.min_ranks < 3)
        return sc__error(MPI_ERR_ARG, "safecoll_trace_analyze: min_ranks is %d; a collective "
                         "spans at least 3 ranks", a.opt.min_ranks);
    if (a.opt.near < 0)
        return sc__error(MPI_ERR_ARG, "safecoll_trace_analyze: near is %d, negative",
                         a.opt.near);
    if ((rc = sc__tr_read_dir(dir, &files, &P)) != MPI_SUCCESS)
        return rc;
    a.P = P;
    a.W = (P + 63) / 64;
    rc = load(&a, files);
    for (int r = 0; r < P; r++)
        sc__tr_file_free(&files[r]);
    free(files);
    if (rc == MPI_SUCCESS)
        rc = lamport(&a);
    if (rc == MPI_SUCCESS)
        rc = sc__tr_bcast(&a);
    if (rc == MPI_SUCCESS)
        rc = sc__tr_compose(&a);
    if (rc == MPI_SUCCESS)
        rc = sc__tr_tree(&a);
    if (rc == MPI_SUCCESS)
        rc = sc__tr_fan(&a);
    if (rc == MPI_SUCCESS)
        rc = sc__tr_barrier(&a);
    if (rc == MPI_SUCCESS)
        rc = sc__tr_report_make(&a, out);
    else if (rc == MPI_ERR_NO_MEM)
        sc__error(rc, "safecoll_trace_analyze: no memory for the analysis of %s", dir);
    an_free(&a);
    return rc;
}
