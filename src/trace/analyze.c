/*
 * The analyzer's entry (safecoll_trace_analyze) and the instances' helpers:
 * the trace loaded and its messages matched (load.c), then the broadcast
 * replay of paper 001 and its compositions (bcast.c), the trees (tree.c),
 * the personalized patterns and the barrier (patterns.c); report.c makes
 * the findings.
 */
#define _GNU_SOURCE 1

#include <stdlib.h>
#include <string.h>

#include "analyze.h"

size_t sc__tc_self_from(const sc__tc_an *a, int r, uint64_t lo)
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

int sc__tc_bcount(const uint64_t *s, int W)
{
    int n = 0;
    for (int i = 0; i < W; i++)
        n += __builtin_popcountll(s[i]);
    return n;
}

sc__tc_inst *sc__tc_inst_new(sc__tc_an *a, safecoll_trace_kind kind)
{
    sc__tc_inst *in;

    if (a->ninst == a->cap) {
        size_t ncap = a->cap ? 2 * a->cap : 64;
        sc__tc_inst *n = realloc(a->inst, ncap * sizeof *n);
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

void sc__tc_inst_span(sc__tc_inst *in, const sc__tc_msg *m)
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

int sc__tc_inst_site(sc__tc_inst *in, uint32_t site)
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

void sc__tc_inst_sites_done(sc__tc_inst *in)
{
    int k = 0;

    qsort(in->sites, (size_t)in->nsites, sizeof *in->sites, cmp_u32);
    for (int i = 0; i < in->nsites; i++)
        if (k == 0 || in->sites[k - 1] != in->sites[i])
            in->sites[k++] = in->sites[i];
    in->nsites = k;
}

int sc__tc_inst_classify(sc__tc_an *a, sc__tc_inst *in)
{
    int n = sc__tc_bcount(in->set, a->W);

    if (n < a->opt.min_ranks)
        return 0;
    in->near = n < a->P && a->opt.near > 0 && a->P - n <= a->opt.near &&
               in->kind == SAFECOLL_TRACE_BCAST;
    return 1;
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

static void an_free(sc__tc_an *a)
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
    sc__tc_an a;
    sc__tc_file *files = NULL;
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
    if ((rc = sc__tc_read_dir(dir, &files, &P)) != MPI_SUCCESS)
        return rc;
    a.P = P;
    a.W = (P + 63) / 64;
    rc = sc__tc_load(&a, files);
    for (int r = 0; r < P; r++)
        sc__tc_file_free(&files[r]);
    free(files);
    if (rc == MPI_SUCCESS)
        rc = sc__tc_lamport(&a);
    if (rc == MPI_SUCCESS)
        rc = sc__tc_bcast(&a);
    if (rc == MPI_SUCCESS)
        rc = sc__tc_compose(&a);
    if (rc == MPI_SUCCESS)
        rc = sc__tc_tree(&a);
    if (rc == MPI_SUCCESS)
        rc = sc__tc_fan(&a);
    if (rc == MPI_SUCCESS)
        rc = sc__tc_barrier(&a);
    if (rc == MPI_SUCCESS)
        rc = sc__tc_report_make(&a, out);
    else if (rc == MPI_ERR_NO_MEM)
        sc__error(rc, "safecoll_trace_analyze: no memory for the analysis of %s", dir);
    an_free(&a);
    return rc;
}
