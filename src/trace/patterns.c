/*
 * The personalized patterns (barrier.c has the barrier):
 *
 *  - a fan-out is a run of one rank's sends of equal bytes to distinct
 *    ranks with distinct payloads (receives may come between); a fan-in
 *    the same of its receives. Fan-outs of every rank of a set at once
 *    are an all-to-all (paper 001: a composition of one-to-all parts). A
 *    fan-out whose rank kept a piece of the same size (a SELF record,
 *    safecoll_trace_self) is a scatter; a fan-in whose rank kept its own
 *    contribution is a gather, or a reduce when the rank then keeps a
 *    result whose hash is the sum (additive hash) or the exclusive or
 *    (CRC-32 is linear) of the contributions'; a reduce whose result the
 *    root then broadcasts is an allreduce.
 */
#include <stdlib.h>
#include <string.h>

#include "analyze.h"
#include "replay.h"

/* ---------------------------------------------------------------- runs */

typedef struct run {
    int owner;
    uint64_t *set;   /* owner and peers */
    int64_t bytes;
    int64_t t0, t1, lt0, lt1; /* physical and Lamport times */
    size_t at, n;    /* its messages: ord[at .. at + n) */
    uint64_t first_seq, last_seq, prev_seq; /* prev_seq: the owner's event before, or 0 */
    int used;
} run;

static const sc__tc_msg *sort_m;
static int cmp_out(const void *x, const void *y)
{
    const sc__tc_msg *a = &sort_m[*(const size_t *)x], *b = &sort_m[*(const size_t *)y];
    if (a->src != b->src)
        return a->src < b->src ? -1 : 1;
    return (a->sseq > b->sseq) - (a->sseq < b->sseq);
}
static int cmp_in(const void *x, const void *y)
{
    const sc__tc_msg *a = &sort_m[*(const size_t *)x], *b = &sort_m[*(const size_t *)y];
    if (a->dst != b->dst)
        return a->dst < b->dst ? -1 : 1;
    return (a->rseq > b->rseq) - (a->rseq < b->rseq);
}
static int cmp_u32(const void *x, const void *y)
{
    uint32_t a = *(const uint32_t *)x, b = *(const uint32_t *)y;
    return (a > b) - (a < b);
}

/* The runs of ord[0..n) (messages by owner and position; out: the owner
 * is the sender). */
static int find_runs(sc__tc_an *a, const size_t *ord, size_t n, int out, run **runs,
                     size_t *nruns)
{
    int *stamp = malloc((size_t)a->P * sizeof *stamp);
    uint32_t *crcs = malloc((size_t)a->P * sizeof *crcs + 4);
    size_t cap = 0;
    int id = 0;

    *runs = NULL;
    *nruns = 0;
    if (stamp == NULL || crcs == NULL)
        goto nomem;
    for (int r = 0; r < a->P; r++)
        stamp[r] = -1;
    for (size_t i = 0; i < n;) {
        const sc__tc_msg *m0 = &a->m[ord[i]];
        int owner = out ? m0->src : m0->dst;
        size_t j = i;
        id++;
        while (j < n) {
            const sc__tc_msg *m = &a->m[ord[j]];
            int o = out ? m->src : m->dst, peer = out ? m->dst : m->src;
            if (o != owner || m->bytes != m0->bytes || stamp[peer] == id || peer == owner)
                break;
            stamp[peer] = id;
            crcs[j - i] = m->crc;
            j++;
        }
        size_t k = j - i;
        if (j == i)
            k = j - i, j = i + 1; /* a message to itself: skipped */
        if ((long)k + 1 >= a->opt.min_ranks && m0->bytes > 0) {
            int distinct = 1;
            qsort(crcs, k, sizeof *crcs, cmp_u32);
            for (size_t q = 1; q < k; q++)
                distinct &= crcs[q] != crcs[q - 1];
            if (distinct) {
                if (*nruns == cap) {
                    cap = cap ? 2 * cap : 64;
                    run *nr = realloc(*runs, cap * sizeof *nr);
                    if (nr == NULL)
                        goto nomem;
                    *runs = nr;
                }
                run *R = &(*runs)[(*nruns)++];
                memset(R, 0, sizeof *R);
                if ((R->set = calloc((size_t)a->W, sizeof *R->set)) == NULL)
                    goto nomem;
                R->owner = owner;
                R->bytes = m0->bytes;
                R->t0 = R->lt0 = INT64_MAX;
                R->t1 = R->lt1 = INT64_MIN;
                R->at = i;
                R->n = k;
                sc__tc_bset(R->set, owner);
                for (size_t q = i; q < i + k; q++) {
                    const sc__tc_msg *m = &a->m[ord[q]];
                    sc__tc_bset(R->set, out ? m->dst : m->src);
                    if (m->ts < R->t0)
                        R->t0 = m->ts;
                    if (m->tr > R->t1)
                        R->t1 = m->tr;
                    if (m->ls < R->lt0)
                        R->lt0 = m->ls;
                    if (m->lr > R->lt1)
                        R->lt1 = m->lr;
                }
                R->first_seq = out ? a->m[ord[i]].sseq : a->m[ord[i]].rseq;
                R->last_seq = out ? a->m[ord[i + k - 1]].sseq : a->m[ord[i + k - 1]].rseq;
                R->prev_seq = 0;
                if (i > 0) {
                    const sc__tc_msg *p = &a->m[ord[i - 1]];
                    if ((out ? p->src : p->dst) == owner)
                        R->prev_seq = (out ? p->sseq : p->rseq) + 1;
                }
            }
        }
        i = j;
    }
    free(stamp);
    free(crcs);
    return MPI_SUCCESS;
nomem:
    free(stamp);
    free(crcs);
    return MPI_ERR_NO_MEM;
}

static void free_runs(run *runs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(runs[i].set);
    free(runs);
}

/* A new instance of kind over the run's set, with its messages. */
static sc__tc_inst *inst_of_runs(sc__tc_an *a, safecoll_trace_kind kind, run *const *rs,
                                 size_t nrs, const size_t *ord)
{
    sc__tc_inst *in = sc__tc_inst_new(a, kind);
    if (in == NULL)
        return NULL;
    memcpy(in->set, rs[0]->set, (size_t)a->W * sizeof *in->set);
    in->bytes = rs[0]->bytes;
    for (size_t q = 0; q < nrs; q++) {
        const run *R = rs[q];
        in->nmsgs += (long)R->n;
        if (R->t0 < in->t0)
            in->t0 = R->t0;
        if (R->t1 > in->t1)
            in->t1 = R->t1;
        if (R->lt0 < in->lt0)
            in->lt0 = R->lt0;
        if (R->lt1 > in->lt1)
            in->lt1 = R->lt1;
        for (size_t i = R->at; i < R->at + R->n; i++) {
            sc__tc_inst_site(in, a->m[ord[i]].ssite);
            sc__tc_inst_site(in, a->m[ord[i]].rsite);
        }
    }
    return in;
}

/* The first SELF record of rank r with seq in [lo, hi] and the bytes
 * (any when negative) that no tree gather or reduce used. */
static const sc__tc_self *self_between(const sc__tc_an *a, int r, uint64_t lo, uint64_t hi,
                                       int64_t bytes)
{
    for (size_t i = sc__tc_self_from(a, r, lo); i < a->self_at[r + 1]; i++) {
        const sc__tc_self *s = &a->self[i];
        if (s->seq > hi)
            break;
        if ((bytes < 0 || s->bytes == bytes) && !a->self_used[i])
            return s;
    }
    return NULL;
}

static const run *sort_runs;
static int W_runs;
static int cmp_run_idx(const void *x, const void *y)
{
    const run *a = &sort_runs[*(const size_t *)x], *b = &sort_runs[*(const size_t *)y];
    int c = memcmp(a->set, b->set, (size_t)W_runs * sizeof *a->set);
    if (c != 0)
        return c;
    if (a->bytes != b->bytes)
        return a->bytes < b->bytes ? -1 : 1;
    return (a->lt0 > b->lt0) - (a->lt0 < b->lt0);
}

/* Fan-outs of every rank of one set at once (in Lamport time): all-to-all. */
static int alltoall(sc__tc_an *a, run *runs, size_t n, const size_t *ord)
{
    size_t *idx = malloc((n ? n : 1) * sizeof *idx);
    run **rs = malloc((n ? n : 1) * sizeof *rs);
    uint64_t *seen = calloc((size_t)a->W, sizeof *seen);
    int rc = MPI_SUCCESS;

    if (!idx || !rs || !seen) {
        rc = MPI_ERR_NO_MEM;
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        idx[i] = i;
    sort_runs = runs;
    W_runs = a->W;
    qsort(idx, n, sizeof *idx, cmp_run_idx);
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        int64_t end = runs[idx[i]].lt1, tend = runs[idx[i]].t1, tstart = runs[idx[i]].t0;
        while (j < n && memcmp(runs[idx[j]].set, runs[idx[i]].set,
                               (size_t)a->W * sizeof *seen) == 0 &&
               runs[idx[j]].bytes == runs[idx[i]].bytes && runs[idx[j]].lt0 < end &&
               runs[idx[j]].t0 < tend && runs[idx[j]].t1 > tstart) {
            if (runs[idx[j]].lt1 < end)
                end = runs[idx[j]].lt1;
            if (runs[idx[j]].t1 < tend)
                tend = runs[idx[j]].t1;
            if (runs[idx[j]].t0 > tstart)
                tstart = runs[idx[j]].t0;
            j++;
        }
        int members = sc__tc_bcount(runs[idx[i]].set, a->W), unique = 1;
        memset(seen, 0, (size_t)a->W * sizeof *seen);
        for (size_t q = i; q < j; q++) {
            unique &= !sc__tc_bget(seen, runs[idx[q]].owner);
            sc__tc_bset(seen, runs[idx[q]].owner);
            rs[q - i] = &runs[idx[q]];
        }
        if (unique && (long)(j - i) == members) {
            sc__tc_inst *in = inst_of_runs(a, SAFECOLL_TRACE_ALLTOALL, rs, j - i, ord);
            if (in == NULL) {
                rc = MPI_ERR_NO_MEM;
                goto out;
            }
            sc__tc_inst_sites_done(in);
            sc__tc_inst_classify(a, in);
            snprintf(in->detail, sizeof in->detail, "composition: a fan-out of distinct pieces "
                     "from each of the %d ranks at once", members);
            for (size_t q = i; q < j; q++)
                runs[idx[q]].used = 1;
        }
        i = j;
    }
out:
    free(idx);
    free(rs);
    free(seen);
    return rc;
}

/* CRC-32 of n zero bytes. */
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

/* A fan-in at a rank that kept its contribution: gather or reduce. */
static int fan_in(sc__tc_an *a, run *R, const size_t *ord)
{
    const sc__tc_self *own = self_between(a, R->owner, R->prev_seq, R->last_seq, R->bytes);
    const sc__tc_self *res = NULL;
    run *rs[1] = {R};

    if (own == NULL)
        return MPI_SUCCESS;
    /* The result: the first record the rank keeps after the run. */
    {
        size_t i = sc__tc_self_from(a, R->owner, R->last_seq + 1);
        if (i < a->self_at[R->owner + 1])
            res = &a->self[i];
    }
    /* The contributions' sum hash, and the CRC of their exclusive or:
     * CRC-32 is affine over GF(2), crc(a ^ b) = crc(a) ^ crc(b) ^ crc(0^n),
     * so an even count of operands needs the zeros' CRC once more. */
    uint32_t sum = own->sumh, x = own->crc;
    long k = (long)R->n + 1;
    for (size_t i = R->at; i < R->at + R->n; i++) {
        sum += a->m[ord[i]].sumh;
        x ^= a->m[ord[i]].crc;
    }
    if (k % 2 == 0)
        x ^= crc_zeros(R->bytes);
    int op = -1;
    if (res != NULL && res->bytes == R->bytes) {
        if (res->elem > 0 && own->elem == res->elem && res->sumh == sum)
            op = 0;
        else if (res->crc == x)
            op = 1;
    }
    sc__tc_inst *in = inst_of_runs(a, op >= 0 ? SAFECOLL_TRACE_REDUCE : SAFECOLL_TRACE_GATHER,
                                   rs, 1, ord);
    if (in == NULL)
        return MPI_ERR_NO_MEM;
    in->root = R->owner;
    sc__tc_inst_site(in, own->site);
    if (op >= 0) {
        /* The result is no contribution of a later reduce at this rank
         * (a reduce repeated: the next one's own piece comes after it). */
        a->self_used[res - a->self] = 1;
        sc__tc_inst_site(in, res->site);
        in->op = op;
        in->elem = res->elem;
        in->value = res->crc;
        snprintf(in->detail, sizeof in->detail, "forward replay: the kept result is the %s of "
                 "the %ld contributions' hashes", op == 0 ? "sum" : "xor", k);
    } else {
        snprintf(in->detail, sizeof in->detail, "forward replay: %ld distinct pieces of %lld "
                 "bytes, the root's own kept", k, (long long)R->bytes);
    }
    sc__tc_inst_sites_done(in);
    sc__tc_inst_classify(a, in);
    return MPI_SUCCESS;
}

/* A reduce whose result the root broadcasts over the same ranks after it:
 * an allreduce. */
static void allreduce(sc__tc_an *a)
{
    for (size_t i = 0; i < a->ninst; i++) {
        sc__tc_inst *rd = &a->inst[i];
        if (rd->kind != SAFECOLL_TRACE_REDUCE || rd->used)
            continue;
        for (size_t j = 0; j < a->ninst; j++) {
            sc__tc_inst *b = &a->inst[j];
            if (b->kind != SAFECOLL_TRACE_BCAST || b->used || b->near || b->root != rd->root ||
                b->value != rd->value || b->bytes != rd->bytes || b->lt0 < rd->lt0 ||
                memcmp(b->set, rd->set, (size_t)a->W * sizeof *b->set) != 0)
                continue;
            b->used = 1;
            rd->kind = SAFECOLL_TRACE_ALLREDUCE;
            rd->nmsgs += b->nmsgs;
            if (b->t1 > rd->t1)
                rd->t1 = b->t1;
            if (b->lt1 > rd->lt1)
                rd->lt1 = b->lt1;
            for (int s = 0; s < b->nsites; s++)
                sc__tc_inst_site(rd, b->sites[s]);
            sc__tc_inst_sites_done(rd);
            snprintf(rd->detail, sizeof rd->detail, "a reduce (forward replay) whose result "
                     "the root then broadcasts");
            break;
        }
    }
}

int sc__tc_fan(sc__tc_an *a)
{
    size_t *ord = malloc((a->nm ? a->nm : 1) * sizeof *ord), n = 0;
    run *runs = NULL;
    size_t nruns = 0;
    int rc;

    if (ord == NULL)
        return MPI_ERR_NO_MEM;
    for (size_t i = 0; i < a->nm; i++)
        if (a->m[i].bytes > 0)
            ord[n++] = i;
    sort_m = a->m;
    /* Fan-outs: all-to-all, then scatter. */
    qsort(ord, n, sizeof *ord, cmp_out);
    if ((rc = find_runs(a, ord, n, 1, &runs, &nruns)) != MPI_SUCCESS)
        goto out;
    if ((rc = alltoall(a, runs, nruns, ord)) != MPI_SUCCESS)
        goto out;
    for (size_t i = 0; i < nruns; i++) {
        run *R = &runs[i];
        if (R->used)
            continue;
        const sc__tc_self *own = self_between(a, R->owner, R->prev_seq, R->last_seq, R->bytes);
        if (own == NULL)
            continue;
        sc__tc_inst *in = inst_of_runs(a, SAFECOLL_TRACE_SCATTER, &R, 1, ord);
        if (in == NULL) {
            rc = MPI_ERR_NO_MEM;
            goto out;
        }
        in->root = R->owner;
        sc__tc_inst_site(in, own->site);
        sc__tc_inst_sites_done(in);
        sc__tc_inst_classify(a, in);
        snprintf(in->detail, sizeof in->detail, "%ld distinct pieces of %lld bytes from the "
                 "root, its own kept", in->nmsgs + 1, (long long)R->bytes);
    }
    free_runs(runs, nruns);
    runs = NULL;
    nruns = 0;
    /* Fan-ins: gather and reduce. */
    qsort(ord, n, sizeof *ord, cmp_in);
    if ((rc = find_runs(a, ord, n, 0, &runs, &nruns)) != MPI_SUCCESS)
        goto out;
    for (size_t i = 0; i < nruns; i++)
        if ((rc = fan_in(a, &runs[i], ord)) != MPI_SUCCESS)
            goto out;
    allreduce(a);
out:
    free_runs(runs, nruns);
    free(ord);
    return rc;
}

