/*
 * The report of an analysis: instances of one kind, root, rank set,
 * bytes, near-match and call sites become one finding with its
 * occurrences; findings are ranked by the time they took; the human table
 * and one JSON object per finding.
 */
#define _GNU_SOURCE 1

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze.h"

static const char *const kind_names[SAFECOLL_TRACE_NKINDS] = {
    "bcast", "scatter", "gather", "allgather", "alltoall", "barrier", "reduce", "allreduce"};

const char *safecoll_trace_kind_name(safecoll_trace_kind kind)
{
    return (int)kind >= 0 && kind < SAFECOLL_TRACE_NKINDS ? kind_names[kind] : "?";
}

static const sc__tc_an *sort_a;
static int cmp_sig(const void *x, const void *y)
{
    const sc__tc_inst *a = &sort_a->inst[*(const size_t *)x];
    const sc__tc_inst *b = &sort_a->inst[*(const size_t *)y];
    int c;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    if (a->near != b->near)
        return a->near < b->near ? -1 : 1;
    if (a->root != b->root)
        return a->root < b->root ? -1 : 1;
    if (a->bytes != b->bytes)
        return a->bytes < b->bytes ? -1 : 1;
    if (a->op != b->op)
        return a->op < b->op ? -1 : 1;
    if ((c = memcmp(a->set, b->set, (size_t)sort_a->W * sizeof *a->set)) != 0)
        return c;
    if (a->nsites != b->nsites)
        return a->nsites < b->nsites ? -1 : 1;
    if (a->nsites > 0 &&
        (c = memcmp(a->sites, b->sites, (size_t)a->nsites * sizeof *a->sites)) != 0)
        return c;
    return (a->t0 > b->t0) - (a->t0 < b->t0);
}

/* The time a replacement could save: measured, the gain; else the
 * pattern's whole time, the most it could be. */
static double savable(const safecoll_trace_finding *f)
{
    return f->measured ? f->gain_seconds : f->seconds;
}

static int cmp_finding(const void *x, const void *y)
{
    const safecoll_trace_finding *a = &((const sc__tc_fnd *)x)->f;
    const safecoll_trace_finding *b = &((const sc__tc_fnd *)y)->f;
    if (savable(a) != savable(b))
        return savable(a) > savable(b) ? -1 : 1;
    if (a->seconds != b->seconds)
        return a->seconds > b->seconds ? -1 : 1;
    if (a->kind != b->kind)
        return a->kind < b->kind ? -1 : 1;
    return (a->root > b->root) - (a->root < b->root);
}

/* The MPI datatype of integer elements of elem bytes. */
static const char *int_type(int elem)
{
    switch (elem) {
    case 1: return "MPI_INT8_T";
    case 2: return "MPI_INT16_T";
    case 4: return "MPI_INT32_T";
    default: return "MPI_INT64_T";
    }
}

/* The ranks of the set: a contiguous range, every s-th rank, or a list;
 * the color argument of MPI_Comm_split that selects them. */
static char *split_of(const int *ranks, int n)
{
    char *s = NULL;
    int contiguous = 1, stride = n > 1 ? ranks[1] - ranks[0] : 1, regular = n > 1;
    size_t len = 0;
    FILE *fp;

    for (int i = 1; i < n; i++) {
        contiguous &= ranks[i] == ranks[i - 1] + 1;
        regular &= ranks[i] - ranks[i - 1] == stride;
    }
    if ((fp = open_memstream(&s, &len)) == NULL)
        return NULL;
    fprintf(fp, "MPI_Comm_split(MPI_COMM_WORLD, ");
    if (contiguous)
        fprintf(fp, "rank >= %d && rank <= %d", ranks[0], ranks[n - 1]);
    else if (regular && ranks[0] < stride && stride > 1)
        fprintf(fp, "rank %% %d == %d", stride, ranks[0]);
    else {
        fprintf(fp, "rank is one of {");
        for (int i = 0; i < n; i++)
            fprintf(fp, "%s%d", i ? "," : "", ranks[i]);
        fprintf(fp, "}");
    }
    fprintf(fp, " ? 0 : MPI_UNDEFINED, rank, &comm)");
    fclose(fp);
    return s;
}

static int index_in(const int *ranks, int n, int r)
{
    for (int i = 0; i < n; i++)
        if (ranks[i] == r)
            return i;
    return -1;
}

/* The replacing call; a near-match's is the call over the whole job it
 * nearly is. */
static char *call_of(const safecoll_trace_finding *f, int op, int elem)
{
    char *s = NULL;
    size_t len = 0;
    FILE *fp = open_memstream(&s, &len);
    int world = f->whole || f->near;
    const char *comm = world ? "MPI_COMM_WORLD" : "comm";
    int root = world ? f->root : index_in(f->ranks, f->nranks, f->root);
    long long b = (long long)f->bytes;

    if (fp == NULL)
        return NULL;
    switch (f->kind) {
    case SAFECOLL_TRACE_BCAST:
        fprintf(fp, "MPI_Bcast(buf, %lld, MPI_BYTE, %d, %s)", b, root, comm);
        break;
    case SAFECOLL_TRACE_SCATTER:
        fprintf(fp, "MPI_Scatter(sendbuf, %lld, MPI_BYTE, recvbuf, %lld, MPI_BYTE, %d, %s)", b,
                b, root, comm);
        break;
    case SAFECOLL_TRACE_GATHER:
        fprintf(fp, "MPI_Gather(sendbuf, %lld, MPI_BYTE, recvbuf, %lld, MPI_BYTE, %d, %s)", b,
                b, root, comm);
        break;
    case SAFECOLL_TRACE_ALLGATHER:
        fprintf(fp, "MPI_Allgather(sendbuf, %lld, MPI_BYTE, recvbuf, %lld, MPI_BYTE, %s)", b, b,
                comm);
        break;
    case SAFECOLL_TRACE_ALLTOALL:
        fprintf(fp, "MPI_Alltoall(sendbuf, %lld, MPI_BYTE, recvbuf, %lld, MPI_BYTE, %s)", b, b,
                comm);
        break;
    case SAFECOLL_TRACE_BARRIER:
        fprintf(fp, "MPI_Barrier(%s)", comm);
        break;
    case SAFECOLL_TRACE_REDUCE:
    case SAFECOLL_TRACE_ALLREDUCE: {
        int e = elem > 0 ? elem : 1;
        const char *type = op == 0 ? int_type(e) : "MPI_BYTE";
        long long n = op == 0 ? b / e : b;
        if (f->kind == SAFECOLL_TRACE_REDUCE)
            fprintf(fp, "MPI_Reduce(sendbuf, recvbuf, %lld, %s, %s, %d, %s)", n, type,
                    op == 0 ? "MPI_SUM" : "MPI_BXOR", root, comm);
        else
            fprintf(fp, "MPI_Allreduce(sendbuf, recvbuf, %lld, %s, %s, %s)", n, type,
                    op == 0 ? "MPI_SUM" : "MPI_BXOR", comm);
        break;
    }
    default:
        break;
    }
    fclose(fp);
    return s;
}

void safecoll_trace_report_destroy(safecoll_trace_report *rep)
{
    if (rep == NULL)
        return;
    for (int i = 0; i < rep->n; i++) {
        safecoll_trace_finding *f = &rep->f[i].f;
        free((void *)f->ranks);
        free((void *)f->missing);
        free((void *)f->call);
        free((void *)f->split);
        free((void *)f->detail);
        free((void *)f->sites);
        free((void *)f->measure_note);
    }
    free(rep->f);
    for (uint32_t i = 1; i < rep->nsites; i++)
        free(rep->sites[i]);
    free(rep->sites);
    free(rep);
}

/* Fills f from the instances idx[0..n) of one signature. */
static int fill(const sc__tc_an *a, safecoll_trace_report *rep, sc__tc_fnd *x,
                const size_t *idx, size_t n)
{
    const sc__tc_inst *in = &a->inst[idx[0]];
    safecoll_trace_finding *f = &x->f;
    int k = sc__tc_bcount(in->set, a->W), *ranks, *missing;

    ranks = malloc(((size_t)k + 1) * sizeof *ranks);
    missing = malloc(((size_t)(a->P - k) + 1) * sizeof *missing);
    if (ranks == NULL || missing == NULL) {
        free(ranks);
        free(missing);
        return -1;
    }
    k = 0;
    int nm = 0;
    for (int r = 0; r < a->P; r++) {
        if (sc__tc_bget(in->set, r))
            ranks[k++] = r;
        else
            missing[nm++] = r;
    }
    f->kind = in->kind;
    f->near = in->near;
    f->root = in->root;
    f->alternatives = in->alternatives;
    f->ranks = ranks;
    f->nranks = k;
    f->whole = k == a->P;
    f->missing = missing;
    f->nmissing = in->near ? nm : 0;
    f->bytes = in->bytes;
    f->occurrences = (long)n;
    f->replace_seconds = -1.0;
    for (size_t i = 0; i < n; i++) {
        const sc__tc_inst *x = &a->inst[idx[i]];
        f->messages += x->nmsgs;
        if (x->t1 > x->t0)
            f->seconds += (double)(x->t1 - x->t0) * 1e-9;
    }
    x->op = in->kind == SAFECOLL_TRACE_REDUCE || in->kind == SAFECOLL_TRACE_ALLREDUCE ? in->op
                                                                                      : -1;
    x->elem = x->op >= 0 ? in->elem : 0;
    f->call = call_of(f, in->op, in->elem);
    f->split = f->whole || f->near ? NULL : split_of(ranks, k);
    if (in->near) {
        char *d = NULL;
        size_t len = 0;
        FILE *fp = open_memstream(&d, &len);
        if (fp != NULL) {
            fprintf(fp, "near-match, not a match: it misses rank%s ", nm > 1 ? "s" : "");
            for (int i = 0; i < nm; i++)
                fprintf(fp, "%s%d", i ? "," : "", missing[i]);
            fprintf(fp, " of the job; %s", in->detail);
            fclose(fp);
        }
        f->detail = d;
    } else {
        f->detail = strdup(in->detail);
    }
    const char **sites = malloc(((size_t)in->nsites + 1) * sizeof *sites);
    if (sites != NULL)
        for (int i = 0; i < in->nsites; i++)
            sites[i] = rep->sites[in->sites[i]];
    f->sites = sites;
    f->nsites = sites ? in->nsites : 0;
    if (f->call == NULL || f->detail == NULL || sites == NULL ||
        (!f->whole && !f->near && f->split == NULL))
        return -1;
    return 0;
}

int sc__tc_report_make(sc__tc_an *a, safecoll_trace_report **out)
{
    safecoll_trace_report *rep = calloc(1, sizeof *rep);
    size_t *idx = malloc((a->ninst ? a->ninst : 1) * sizeof *idx), n = 0;

    if (rep == NULL || idx == NULL)
        goto nomem;
    rep->nprocs = a->P;
    rep->events = a->events;
    rep->messages = (long)a->nm;
    rep->unmatched = a->unmatched;
    rep->traced = a->t_last > a->t_first ? (double)(a->t_last - a->t_first) * 1e-9 : 0.0;
    rep->jobs = -1;
    /* The site strings move to the report. */
    rep->sites = a->sites;
    rep->nsites = a->nsites;
    a->sites = NULL;
    a->nsites = 0;
    for (size_t i = 0; i < a->ninst; i++)
        if (!a->inst[i].used)
            idx[n++] = i;
    sort_a = a;
    qsort(idx, n, sizeof *idx, cmp_sig);
    rep->f = calloc(n ? n : 1, sizeof *rep->f);
    if (rep->f == NULL)
        goto nomem;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n) {
            const sc__tc_inst *x = &a->inst[idx[i]], *y = &a->inst[idx[j]];
            if (x->kind != y->kind || x->near != y->near || x->root != y->root ||
                x->bytes != y->bytes || x->op != y->op || x->nsites != y->nsites ||
                memcmp(x->set, y->set, (size_t)a->W * sizeof *x->set) != 0 ||
                (x->nsites > 0 &&
                 memcmp(x->sites, y->sites, (size_t)x->nsites * sizeof *x->sites) != 0))
                break;
            j++;
        }
        if (fill(a, rep, &rep->f[rep->n++], idx + i, j - i) != 0)
            goto nomem;
        i = j;
    }
    sc__tc_report_rank(rep);
    free(idx);
    *out = rep;
    return MPI_SUCCESS;
nomem:
    free(idx);
    safecoll_trace_report_destroy(rep);
    return sc__error(MPI_ERR_NO_MEM, "safecoll_trace_analyze: no memory for the report");
}

void sc__tc_report_rank(safecoll_trace_report *rep)
{
    qsort(rep->f, (size_t)rep->n, sizeof *rep->f, cmp_finding);
}

int safecoll_trace_report_count(const safecoll_trace_report *rep)
{
    return rep ? rep->n : -1;
}

const safecoll_trace_finding *safecoll_trace_report_finding(const safecoll_trace_report *rep,
                                                            int i)
{
    return rep && i >= 0 && i < rep->n ? &rep->f[i].f : NULL;
}

int safecoll_trace_report_stats(const safecoll_trace_report *rep, int *nprocs, long *events,
                                long *messages, long *unmatched, double *traced)
{
    if (rep == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_trace_report_stats: rep is NULL");
    if (nprocs)
        *nprocs = rep->nprocs;
    if (events)
        *events = rep->events;
    if (messages)
        *messages = rep->messages;
    if (unmatched)
        *unmatched = rep->unmatched;
    if (traced)
        *traced = rep->traced;
    return MPI_SUCCESS;
}

/* "0-3,6" style rank lists. */
static void print_ranks(FILE *fp, const int *r, int n)
{
    for (int i = 0; i < n;) {
        int j = i;
        while (j + 1 < n && r[j + 1] == r[j] + 1)
            j++;
        fprintf(fp, "%s%d", i ? "," : "", r[i]);
        if (j > i)
            fprintf(fp, "%s%d", j == i + 1 ? "," : "-", r[j]);
        i = j + 1;
    }
}

int safecoll_trace_report_print(const safecoll_trace_report *rep, FILE *fp)
{
    int measured = rep != NULL && rep->jobs >= 0;

    if (rep == NULL || fp == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_trace_report_print: %s is NULL",
                         rep == NULL ? "rep" : "fp");
    fprintf(fp, "%d ranks, %ld events, %ld messages (%ld sends or receives unmatched): "
            "%d finding%s\n", rep->nprocs, rep->events, rep->messages, rep->unmatched, rep->n,
            rep->n == 1 ? "" : "s");
    fprintf(fp, "traced time %.6f s (first event to last); %%traced: a finding's share of it\n",
            rep->traced);
    if (measured)
        fprintf(fp, "replacing calls timed here in %d job%s (%d without a measurement): %d of "
                "%d findings measured;\nreplace: the call's median time x times; gain: seconds "
                "- replace, the ranking's key when measured\n", rep->jobs,
                rep->jobs == 1 ? "" : "s", rep->jobs_failed, rep->nmeasured, rep->n);
    if (rep->n > 0) {
        fprintf(fp, "\n  #  kind       root  ranks          bytes  times   seconds %%traced  "
                "match%s\n", measured ? "     replace      gain" : "");
        for (int i = 0; i < rep->n; i++) {
            const safecoll_trace_finding *f = &rep->f[i].f;
            char ranks[64], root[16];
            FILE *m = fmemopen(ranks, sizeof ranks, "w");
            if (m != NULL) {
                setvbuf(m, NULL, _IONBF, 0);
                if (f->whole)
                    fprintf(m, "all %d", f->nranks);
                else
                    print_ranks(m, f->ranks, f->nranks);
                fclose(m);
            }
            ranks[sizeof ranks - 1] = '\0';
            if (strlen(ranks) > 12)
                strcpy(ranks + 9, "...");
            snprintf(root, sizeof root, "%d", f->root);
            fprintf(fp, "%3d  %-9s %5s  %-12s %7lld %6ld %9.6f %7.1f  %-*s", i + 1,
                    safecoll_trace_kind_name(f->kind), f->root >= 0 ? root : "-", ranks,
                    (long long)f->bytes, f->occurrences, f->seconds,
                    rep->traced > 0 ? 100.0 * f->seconds / rep->traced : 0.0, measured ? 6 : 0,
                    f->near ? "near" : f->whole ? "yes" : "subset");
            if (measured && f->measured)
                fprintf(fp, " %11.6f %9.6f", f->replace_seconds, f->gain_seconds);
            else if (measured)
                fprintf(fp, " %11s %9s", "-", "-");
            fputc('\n', fp);
        }
    }
    for (int i = 0; i < rep->n; i++) {
        const safecoll_trace_finding *f = &rep->f[i].f;
        fprintf(fp, "\n#%d %s%s", i + 1, f->near ? "near-match of a " : "",
                safecoll_trace_kind_name(f->kind));
        if (f->root >= 0)
            fprintf(fp, " from rank %d", f->root);
        fprintf(fp, " over ranks ");
        print_ranks(fp, f->ranks, f->nranks);
        fprintf(fp, ", %lld bytes, %ld time%s, %ld messages, %.6f s\n", (long long)f->bytes,
                f->occurrences, f->occurrences == 1 ? "" : "s", f->messages, f->seconds);
        fprintf(fp, "   found by: %s\n", f->detail);
        if (f->alternatives > 0)
            fprintf(fp, "   the same messages allow %d other root%s (reported too)\n",
                    f->alternatives, f->alternatives == 1 ? "" : "s");
        fprintf(fp, "   %s: %s\n", f->near ? "were it complete" : "replace with", f->call);
        if (f->split)
            fprintf(fp, "   where %s\n", f->split);
        if (f->measured) {
            fprintf(fp, "   replacement time: %.6f s (%ld x %.6f s: %s)\n", f->replace_seconds,
                    f->occurrences, f->replace_seconds / (double)f->occurrences,
                    f->measure_note ? f->measure_note : "measured");
            fprintf(fp, "   estimated gain: %.6f s", f->gain_seconds);
            if (f->seconds > 0 && f->gain_seconds >= 0)
                fprintf(fp, " (%.0f%% of its time)\n", 100 * f->gain_seconds / f->seconds);
            else
                fprintf(fp, " (the MPI call took longer here)\n");
        } else if (f->measure_note != NULL) {
            fprintf(fp, "   replacement time: not measured: %s\n", f->measure_note);
        } else {
            fprintf(fp, "   replacement time: not measured\n");
        }
        for (int s = 0; s < f->nsites; s++)
            fprintf(fp, "   at %s\n", f->sites[s]);
    }
    return ferror(fp) ? sc__error(MPI_ERR_FILE, "safecoll_trace_report_print: write error")
                      : MPI_SUCCESS;
}

static void json_str(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(fp, "\\%c", c);
        else if (c < 0x20)
            fprintf(fp, "\\u%04x", c);
        else
            fputc(c, fp);
    }
    fputc('"', fp);
}

static void json_ints(FILE *fp, const int *v, int n)
{
    fputc('[', fp);
    for (int i = 0; i < n; i++)
        fprintf(fp, "%s%d", i ? "," : "", v[i]);
    fputc(']', fp);
}

int safecoll_trace_report_json(const safecoll_trace_report *rep, FILE *fp)
{
    if (rep == NULL || fp == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_trace_report_json: %s is NULL",
                         rep == NULL ? "rep" : "fp");
    for (int i = 0; i < rep->n; i++) {
        const safecoll_trace_finding *f = &rep->f[i].f;
        fprintf(fp, "{\"kind\":\"%s\",\"near\":%s,\"root\":%d,\"alternatives\":%d,\"ranks\":",
                safecoll_trace_kind_name(f->kind), f->near ? "true" : "false", f->root,
                f->alternatives);
        json_ints(fp, f->ranks, f->nranks);
        fprintf(fp, ",\"missing\":");
        json_ints(fp, f->missing, f->nmissing);
        fprintf(fp, ",\"whole\":%s,\"bytes\":%lld,\"occurrences\":%ld,\"messages\":%ld,"
                "\"seconds\":%.9g,\"replace_seconds\":", f->whole ? "true" : "false",
                (long long)f->bytes, f->occurrences, f->messages, f->seconds);
        if (f->measured)
            fprintf(fp, "%.9g,\"gain_seconds\":%.9g,\"measure_procs\":%d", f->replace_seconds,
                    f->gain_seconds, f->measure_procs);
        else
            fprintf(fp, "null,\"gain_seconds\":null,\"measure_procs\":null");
        fprintf(fp, ",\"measure_note\":");
        if (f->measure_note)
            json_str(fp, f->measure_note);
        else
            fprintf(fp, "null");
        fprintf(fp, ",\"call\":");
        json_str(fp, f->call);
        fprintf(fp, ",\"split\":");
        if (f->split)
            json_str(fp, f->split);
        else
            fprintf(fp, "null");
        fprintf(fp, ",\"detail\":");
        json_str(fp, f->detail);
        fprintf(fp, ",\"sites\":[");
        for (int s = 0; s < f->nsites; s++) {
            if (s)
                fputc(',', fp);
            json_str(fp, f->sites[s]);
        }
        fprintf(fp, "]}\n");
    }
    return ferror(fp) ? sc__error(MPI_ERR_FILE, "safecoll_trace_report_json: write error")
                      : MPI_SUCCESS;
}
