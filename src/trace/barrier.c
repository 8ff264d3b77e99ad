/*
 * The barrier: an all-to-all of empty messages (paper 001). The empty
 * messages are replayed in causal order, each carrying what its sender
 * knows of who has arrived; a rank completes an episode when it knows of
 * every rank's arrival, and an episode every rank completes is a
 * barrier. A message from a rank already in the next episode releases a
 * rank still in the current one (a linear barrier's release). Each set of
 * ranks that empty messages connect is replayed apart: a barrier over a
 * subset is found with that subset.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

/* ---------------------------------------------------------------- barrier */

typedef struct ev {
    uint64_t seq;
    size_t msg;
    int send;
} ev;

static int cmp_ev(const void *x, const void *y)
{
    const ev *a = x, *b = y;
    return (a->seq > b->seq) - (a->seq < b->seq);
}

typedef struct episode {
    int done;
    int64_t t0, t1;
    long nmsgs;
} episode;

/* The replay of the empty messages zlist[0..nz) among the ranks of comp
 * (csize of them, and no message leaves them). */
static int barrier_in(sc__tc_an *a, const size_t *zlist, size_t nz, const uint64_t *comp,
                      int csize)
{
    int P = a->P, W = a->W, rc = MPI_ERR_NO_MEM;
    size_t *cnt = NULL, *at = NULL, *pos = NULL, *zidx = NULL;
    ev *evs = NULL;
    int *ep = NULL, *done = NULL, *stack = NULL;
    long *blocked = NULL;
    int64_t *start = NULL;
    uint64_t *K = NULL, *mK = NULL;
    int *me = NULL;
    unsigned char *sent = NULL;
    episode *E = NULL;
    int nE = 0, capE = 0;

    zidx = malloc(nz * sizeof *zidx);
    cnt = calloc((size_t)P + 1, sizeof *cnt);
    at = calloc((size_t)P + 1, sizeof *at);
    pos = calloc((size_t)P, sizeof *pos);
    evs = malloc(2 * nz * sizeof *evs);
    ep = calloc((size_t)P, sizeof *ep);
    done = calloc((size_t)P, sizeof *done);
    stack = malloc((size_t)P * sizeof *stack);
    blocked = malloc((size_t)P * sizeof *blocked);
    start = malloc((size_t)P * sizeof *start);
    K = calloc((size_t)P * W, sizeof *K);
    mK = calloc(nz * (size_t)W, sizeof *mK);
    me = calloc(nz, sizeof *me);
    sent = calloc(nz, 1);
    if (!zidx || !cnt || !at || !pos || !evs || !ep || !done || !stack || !blocked || !start ||
        !K || !mK || !me || !sent)
        goto out;
    for (size_t z = 0; z < nz; z++) {
        zidx[z] = zlist[z];
        cnt[a->m[zlist[z]].src]++;
        cnt[a->m[zlist[z]].dst]++;
    }
    for (int r = 0; r < P; r++)
        at[r + 1] = at[r] + cnt[r];
    memset(cnt, 0, ((size_t)P + 1) * sizeof *cnt);
    for (size_t z = 0; z < nz; z++) {
        const sc__tc_msg *m = &a->m[zidx[z]];
        evs[at[m->src] + cnt[m->src]++] = (ev){m->sseq, z, 1};
        evs[at[m->dst] + cnt[m->dst]++] = (ev){m->rseq, z, 0};
    }
    int sp = 0;
    for (int r = 0; r < P; r++) {
        qsort(evs + at[r], at[r + 1] - at[r], sizeof *evs, cmp_ev);
        blocked[r] = -1;
        start[r] = -1;
        stack[sp++] = r;
    }
    /* The replay: a rank runs until a receive whose send has not run. */
    while (sp > 0) {
        int r = stack[--sp];
        blocked[r] = -1;
        while (at[r] + pos[r] < at[r + 1]) {
            const ev *e = &evs[at[r] + pos[r]];
            const sc__tc_msg *m = &a->m[zidx[e->msg]];
            uint64_t *Kr = K + (size_t)r * W;
            if (e->send) {
                if (done[r]) {
                    ep[r]++;
                    done[r] = 0;
                    memset(Kr, 0, (size_t)W * sizeof *Kr);
                    start[r] = -1;
                }
                if (start[r] < 0)
                    start[r] = m->ts;
                me[e->msg] = ep[r];
                memcpy(mK + e->msg * W, Kr, (size_t)W * sizeof *Kr);
                sc__tc_bset(mK + e->msg * W, r);
                sent[e->msg] = 1;
                if (blocked[m->dst] == (long)e->msg)
                    stack[sp++] = m->dst, blocked[m->dst] = -2;
            } else {
                if (!sent[e->msg]) {
                    blocked[r] = (long)e->msg;
                    break;
                }
                int es = me[e->msg], complete = 0;
                if (!done[r] && start[r] < 0)
                    start[r] = m->tr;
                if (!done[r] && es == ep[r]) {
                    for (int w = 0; w < W; w++)
                        Kr[w] |= mK[e->msg * W + w];
                    sc__tc_bset(Kr, r);
                    complete = sc__tc_bcount(Kr, W) == csize;
                } else if (!done[r] && es == ep[r] + 1) {
                    /* A release: the sender completed our episode; the
                     * message belongs to it. */
                    complete = 1;
                    me[e->msg] = ep[r];
                } else if (done[r] && es == ep[r] + 1) {
                    ep[r]++;
                    done[r] = 0;
                    memcpy(Kr, mK + e->msg * W, (size_t)W * sizeof *Kr);
                    sc__tc_bset(Kr, r);
                    start[r] = m->tr;
                    complete = sc__tc_bcount(Kr, W) == csize;
                }
                if (complete) {
                    done[r] = 1;
                    while (ep[r] >= nE) {
                        if (nE == capE) {
                            capE = capE ? 2 * capE : 16;
                            episode *nw = realloc(E, (size_t)capE * sizeof *nw);
                            if (nw == NULL)
                                goto out;
                            E = nw;
                        }
                        E[nE++] = (episode){0, INT64_MAX, INT64_MIN, 0};
                    }
                    episode *x = &E[ep[r]];
                    x->done++;
                    if (start[r] < x->t0)
                        x->t0 = start[r];
                    if (m->tr > x->t1)
                        x->t1 = m->tr;
                }
            }
            pos[r]++;
        }
    }
    /* Every rank completed the episode: a barrier. */
    int *inst_of = malloc(((size_t)nE + 1) * sizeof *inst_of);
    if (inst_of == NULL)
        goto out;
    for (int e = 0; e < nE; e++) {
        inst_of[e] = -1;
        if (E[e].done != csize)
            continue;
        sc__tc_inst *in = sc__tc_inst_new(a, SAFECOLL_TRACE_BARRIER);
        if (in == NULL) {
            free(inst_of);
            goto out;
        }
        memcpy(in->set, comp, (size_t)W * sizeof *comp);
        in->t0 = E[e].t0;
        in->t1 = E[e].t1;
        inst_of[e] = (int)(a->ninst - 1);
    }
    for (size_t z = 0; z < nz; z++) {
        int e = me[z];
        if (!sent[z] || e >= nE || inst_of[e] < 0)
            continue;
        sc__tc_inst *in = &a->inst[inst_of[e]];
        in->nmsgs++;
        sc__tc_inst_site(in, a->m[zidx[z]].ssite);
        sc__tc_inst_site(in, a->m[zidx[z]].rsite);
    }
    for (int e = 0; e < nE; e++)
        if (inst_of[e] >= 0) {
            sc__tc_inst *in = &a->inst[inst_of[e]];
            sc__tc_inst_sites_done(in);
            sc__tc_inst_classify(a, in);
            snprintf(in->detail, sizeof in->detail, "an all-to-all of empty messages: every "
                     "rank hears of every rank's arrival");
        }
    free(inst_of);
    rc = MPI_SUCCESS;
out:
    free(zidx);
    free(cnt);
    free(at);
    free(pos);
    free(evs);
    free(ep);
    free(done);
    free(stack);
    free(blocked);
    free(start);
    free(K);
    free(mK);
    free(me);
    free(sent);
    free(E);
    return rc;
}

/* Union-find over ranks. */
static int find(int *up, int r)
{
    while (up[r] != r)
        r = up[r] = up[up[r]];
    return r;
}

/* The empty messages split into the sets of ranks they connect; each set
 * of at least min_ranks ranks is replayed on its own, so that a barrier
 * over a subset is found with that subset. */
int sc__tc_barrier(sc__tc_an *a)
{
    int P = a->P, W = a->W, rc = MPI_SUCCESS;
    int *up = malloc((size_t)P * sizeof *up), *size = calloc((size_t)P, sizeof *size);
    size_t *z = malloc((a->nm + 1) * sizeof *z), *cat = calloc((size_t)P + 1, sizeof *cat);
    size_t *fill = calloc((size_t)P, sizeof *fill), nz = 0;
    uint64_t *comp = calloc((size_t)W, sizeof *comp);

    if (!up || !size || !z || !cat || !fill || !comp) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    for (int r = 0; r < P; r++)
        up[r] = r;
    for (size_t i = 0; i < a->nm; i++)
        if (a->m[i].bytes == 0) {
            int x = find(up, a->m[i].src), y = find(up, a->m[i].dst);
            if (x != y)
                up[x] = y;
            nz++;
        }
    if (nz == 0)
        goto out;
    for (int r = 0; r < P; r++)
        size[find(up, r)]++;
    /* The messages by the root of their set. */
    for (size_t i = 0; i < a->nm; i++)
        if (a->m[i].bytes == 0)
            cat[find(up, a->m[i].src) + 1]++;
    for (int r = 0; r < P; r++)
        cat[r + 1] += cat[r];
    for (size_t i = 0; i < a->nm; i++)
        if (a->m[i].bytes == 0) {
            int c = find(up, a->m[i].src);
            z[cat[c] + fill[c]++] = i;
        }
    for (int c = 0; c < P && rc == MPI_SUCCESS; c++) {
        if (up[c] != c || size[c] < a->opt.min_ranks || cat[c + 1] == cat[c])
            continue;
        memset(comp, 0, (size_t)W * sizeof *comp);
        for (int r = 0; r < P; r++)
            if (find(up, r) == c)
                sc__tc_bset(comp, r);
        rc = barrier_in(a, z + cat[c], cat[c + 1] - cat[c], comp, size[c]);
    }
out:
    free(up);
    free(size);
    free(z);
    free(cat);
    free(fill);
    free(comp);
    return rc;
}
