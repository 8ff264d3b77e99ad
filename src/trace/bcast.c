/*
 * Broadcasts: paper 001's backward replay with receiver sets, round by
 * round of one payload, and the compositions of broadcasts that run at
 * once (allgather; the segments of one broadcast).
 */
#define _GNU_SOURCE 1

#include <stdlib.h>
#include <string.h>

#include "analyze.h"

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
    const sc__tc_msg *a = x, *b = y;
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
    sc__tc_an *a;
    sc__tc_msg *m;
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
            const sc__tc_msg *mm = &R->m[i];
            if (has_recv && mm->sseq < after)
                continue;
            int z = mm->dst;
            sc__tc_bset(ry, z);
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
    sc__tc_an *a = R->a;
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
        const sc__tc_msg *m = &R->m[i];
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
        sc__tc_bset(set, r);
        if (sc__tc_bcount(set, W) < a->opt.min_ranks)
            continue;
        sc__tc_inst *in = sc__tc_inst_new(a, SAFECOLL_TRACE_BCAST);
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
            const sc__tc_msg *m = &R->m[i];
            if (!sc__tc_bget(set, m->dst) || !sc__tc_bget(set, m->src))
                continue;
            in->nmsgs++;
            sc__tc_inst_span(in, m);
            sc__tc_inst_site(in, m->ssite);
            sc__tc_inst_site(in, m->rsite);
        }
        sc__tc_inst_sites_done(in);
        if (!sc__tc_inst_classify(a, in)) {
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

int sc__tc_bcast(sc__tc_an *a)
{
    rkey *key;
    sc__tc_msg *m = NULL;
    size_t n = 0, cap = 0;
    round R;
    int rc = MPI_SUCCESS;

    /* Empty payloads carry nothing to broadcast (barrier's business). */
    if ((key = malloc((a->nm ? a->nm : 1) * sizeof *key)) == NULL)
        return MPI_ERR_NO_MEM;
    for (size_t i = 0; i < a->nm; i++)
        if (a->m[i].bytes > 0) {
            const sc__tc_msg *x = &a->m[i];
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
                sc__tc_msg *nm = realloc(m, cap * sizeof *nm);
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

static int same_set(const sc__tc_an *a, const sc__tc_inst *x, const sc__tc_inst *y)
{
    return memcmp(x->set, y->set, (size_t)a->W * sizeof *x->set) == 0;
}

/* Merges instances idx[0..n) into a new one of kind (root, bytes). */
static int merge(sc__tc_an *a, const size_t *idx, size_t n, safecoll_trace_kind kind, int root,
                 int64_t bytes, const char *how)
{
    sc__tc_inst *in = sc__tc_inst_new(a, kind);
    if (in == NULL)
        return MPI_ERR_NO_MEM;
    sc__tc_inst *first = &a->inst[idx[0]];
    memcpy(in->set, first->set, (size_t)a->W * sizeof *in->set);
    in->root = root;
    in->bytes = bytes;
    for (size_t i = 0; i < n; i++) {
        sc__tc_inst *x = &a->inst[idx[i]];
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
            if (sc__tc_inst_site(in, x->sites[s]) != 0)
                return MPI_ERR_NO_MEM;
    }
    sc__tc_inst_sites_done(in);
    sc__tc_inst_classify(a, in);
    snprintf(in->detail, sizeof in->detail, "%s: %zu broadcasts at once over the same ranks",
             how, n);
    return MPI_SUCCESS;
}

/* Whether instance x carries the payload of one of idx[0..n) (the CRC-32
 * and the bytes of a broadcast's data). */
static int payload_in(const sc__tc_an *a, const size_t *idx, size_t n, const sc__tc_inst *x)
{
    for (size_t i = 0; i < n; i++)
        if (a->inst[idx[i]].value == x->value && a->inst[idx[i]].bytes == x->bytes)
            return 1;
    return 0;
}

static const sc__tc_an *sort_an;
static int by_root;
static int cmp_inst_idx(const void *x, const void *y)
{
    const sc__tc_inst *a = &sort_an->inst[*(const size_t *)x];
    const sc__tc_inst *b = &sort_an->inst[*(const size_t *)y];
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
static int allgathers(sc__tc_an *a, const size_t *idx, size_t n)
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
        int members = sc__tc_bcount(a->inst[idx[i]].set, a->W);
        int64_t lend = INT64_MAX, tend = INT64_MAX, tstart = INT64_MIN;
        k = 0;
        memset(seen, 0, (size_t)a->W * sizeof *seen);
        for (; j < n && same_set(a, &a->inst[idx[i]], &a->inst[idx[j]]); j++) {
            const sc__tc_inst *x = &a->inst[idx[j]];
            if (k > 0 && (sc__tc_bget(seen, x->root) || x->bytes != a->inst[grp[0]].bytes ||
                          x->lt0 >= lend || x->t0 >= tend || x->t1 <= tstart)) {
                k = 0;
                lend = tend = INT64_MAX;
                tstart = INT64_MIN;
                memset(seen, 0, (size_t)a->W * sizeof *seen);
            }
            grp[k++] = idx[j];
            sc__tc_bset(seen, x->root);
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
int sc__tc_compose(sc__tc_an *a)
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
    /* Segments: what is left, by set and root, in overlapping runs, of
     * distinct payloads: the same data sent again at once (paper 001,
     * Fig. 6 c) is the broadcast repeated, not a second segment. */
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
               a->inst[idx[j]].t0 < tend && a->inst[idx[j]].t1 > tstart &&
               !payload_in(a, idx + i, j - i, &a->inst[idx[j]])) {
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

