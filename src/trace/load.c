/*
 * Loading a trace for the analysis: every rank's records into matched
 * messages and kept-data records, call sites interned once, and the
 * Lamport times of the messages.
 */
#define _GNU_SOURCE 1

#include <stdlib.h>
#include <string.h>

#include "analyze.h"

/* ---------------------------------------------------------------- loading */

/* A send or a receive waiting for its partner. */
typedef struct pend {
    int32_t src, dst, tag;
    uint32_t comm;
    uint64_t seq;
    const sc__tc_rec *r;
    int64_t t;
    uint32_t site;
} pend;

/* A channel's sends: the head and tail of their list. */
typedef struct channel {
    int32_t src, dst, tag;
    uint32_t comm;
    size_t head, tail; /* (size_t)-1: no send left */
    int used;          /* 0: a free slot (a list that empties keeps its slot) */
} channel;

static uint64_t chan_hash(int32_t src, int32_t dst, int32_t tag, uint32_t comm)
{
    uint64_t h = ((uint64_t)(uint32_t)src << 32 | (uint32_t)dst) * 0x9e3779b97f4a7c15ull;
    h ^= ((uint64_t)comm << 32 | (uint32_t)tag) * 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 29);
}

/* The slot of p's channel in the table of cap (a power of two) slots:
 * its own, or the free one where it goes. */
static channel *chan_of(channel *t, size_t cap, const pend *p)
{
    size_t j = (size_t)chan_hash(p->src, p->dst, p->tag, p->comm) & (cap - 1);
    while (t[j].used && !(t[j].src == p->src && t[j].dst == p->dst && t[j].tag == p->tag &&
                          t[j].comm == p->comm))
        j = (j + 1) & (cap - 1);
    return &t[j];
}

/* The table twice as large, its channels moved over. */
static channel *chan_grow(channel *t, size_t *cap)
{
    size_t ncap = *cap * 2;
    channel *n = malloc(ncap * sizeof *n);
    if (n == NULL)
        return NULL;
    for (size_t c = 0; c < ncap; c++)
        n[c].used = 0;
    for (size_t c = 0; c < *cap; c++)
        if (t[c].used) {
            size_t j = (size_t)chan_hash(t[c].src, t[c].dst, t[c].tag, t[c].comm) & (ncap - 1);
            while (n[j].used)
                j = (j + 1) & (ncap - 1);
            n[j] = t[c];
        }
    free(t);
    *cap = ncap;
    return n;
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

static int intern(sc__tc_an *a, interner *in, const char *s, uint32_t *id)
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
 * overtaking), through a hash table of channels (no sort); a receive
 * whose payload differs from the next send's (its completion recorded out
 * of posting order) takes the next send of the same payload a few
 * positions on. */
int sc__tc_load(sc__tc_an *a, sc__tc_file *files)
{
    size_t ns = 0, nr = 0, nself = 0, total = 0;
    int64_t origin = INT64_MAX;
    pend *S = NULL, *R = NULL;
    uint32_t **map = NULL;
    unsigned char *taken = NULL;
    size_t *next = NULL, cap, nchan = 0;
    channel *chan = NULL;
    interner names = {NULL, 0};
    int rc = MPI_ERR_NO_MEM;

    for (int r = 0; r < a->P; r++) {
        total += files[r].n;
        if (files[r].origin_ns < origin)
            origin = files[r].origin_ns;
    }
    a->events = (long)total;
    a->t_first = INT64_MAX;
    a->t_last = INT64_MIN;
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
        sc__tc_file *f = &files[r];
        if ((map[r] = calloc(f->nsites ? f->nsites : 1, sizeof **map)) == NULL)
            goto out;
        for (uint32_t i = 1; i < f->nsites; i++)
            if (intern(a, &names, f->sites[i], &map[r][i]) != 0)
                goto out;
        a->self_at[r] = nself;
        for (size_t i = 0; i < f->n; i++) {
            const sc__tc_rec *e = &f->recs[i];
            int64_t t = f->origin_ns - origin + e->t_ns;
            uint32_t site = map[r][e->site];
            if (t < a->t_first)
                a->t_first = t;
            if (t > a->t_last)
                a->t_last = t;
            if (e->flags & SC_TC_FLAG_LIBRARY)
                continue;
            if (e->kind == SC_TC_SELF) {
                sc__tc_self *s = &a->self[nself++];
                s->rank = r;
                s->elem = e->elem;
                s->crc = e->crc;
                s->sumh = e->sumh;
                s->site = site;
                s->bytes = e->bytes;
                s->seq = e->seq;
                s->t = t;
            } else if (e->kind == SC_TC_SEND) {
                S[ns++] = (pend){r, e->peer, e->tag, e->comm, e->seq, e, t, site};
            } else {
                R[nr++] = (pend){e->peer, r, e->tag, e->comm, e->seq, e, t, site};
            }
        }
    }
    a->self_at[a->P] = nself;
    a->nself = nself;
    a->m = malloc((ns < nr ? ns : nr) * sizeof *a->m + 1);
    taken = calloc(ns ? ns : 1, 1);
    next = malloc((ns ? ns : 1) * sizeof *next);
    cap = 1024;
    chan = malloc(cap * sizeof *chan);
    if (a->m == NULL || taken == NULL || next == NULL || chan == NULL)
        goto out;
    /* Each channel's sends, in order (a channel's sends are one rank's,
     * read in its order): a list through next[] from the channel's head. */
    for (size_t c = 0; c < cap; c++) {
        chan[c].used = 0;
        chan[c].head = chan[c].tail = (size_t)-1;
    }
    for (size_t i = 0; i < ns; i++) {
        channel *c = chan_of(chan, cap, &S[i]);
        next[i] = (size_t)-1;
        if (!c->used) {
            /* At most half full. */
            if (2 * (nchan + 1) > cap) {
                channel *g = chan_grow(chan, &cap);
                if (g == NULL)
                    goto out;
                chan = g;
                c = chan_of(chan, cap, &S[i]);
            }
            nchan++;
            c->used = 1;
            c->src = S[i].src;
            c->dst = S[i].dst;
            c->tag = S[i].tag;
            c->comm = S[i].comm;
            c->head = c->tail = i;
        } else {
            next[c->tail] = i;
            c->tail = i;
        }
    }
    a->nm = 0;
    {
        size_t matched_r = 0;
        for (size_t j = 0; j < nr; j++) {
            channel *c = chan_of(chan, cap, &R[j]);
            size_t pick = (size_t)-1;
            int w = 0;
            /* Taken sends at the head leave the list; then the first
             * untaken send of this payload within a window of 16. */
            while (c->head != (size_t)-1 && taken[c->head])
                c->head = next[c->head];
            for (size_t k = c->head; k != (size_t)-1 && w < 16; k = next[k]) {
                if (taken[k])
                    continue;
                w++;
                if (S[k].r->crc == R[j].r->crc && S[k].r->ends == R[j].r->ends &&
                    S[k].r->bytes == R[j].r->bytes) {
                    pick = k;
                    break;
                }
            }
            if (pick == (size_t)-1)
                continue; /* a receive of a payload no send carries */
            taken[pick] = 1;
            sc__tc_msg *m = &a->m[a->nm++];
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
    free(next);
    free(chan);
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
int sc__tc_lamport(sc__tc_an *a)
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
        const sc__tc_msg *m = &a->m[i];
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
            sc__tc_msg *m = &a->m[e->msg];
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

