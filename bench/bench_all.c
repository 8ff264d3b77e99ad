/*
 * bench_all: every safe collective against the MPI call, untriggered and
 * triggered.
 *
 * Part 1, untriggered overhead. For every collective (barrier, bcast,
 * gather, scatter, allgather, alltoall, the six reductions, the four
 * v-collectives, alltoallw) and a few non-blocking forms timed from start
 * to the return of MPI_Wait (ibcast, igather, iallreduce, igatherv,
 * ialltoallw), the
 * safecoll call against the MPI call with the same arguments, interleaved
 * (see bench.h). The size m is the bytes of one block: what one rank sends
 * to (or receives from) each peer the pattern involves, i.e. gather: each
 * rank sends m; alltoall: m to every rank; bcast: a buffer of m; the
 * reductions: m bytes of MPI_DOUBLE (m/8 elements, MPI_SUM) per rank,
 * reduce_scatter(_block): m bytes of the result per rank. MPI_BYTE for the
 * rest, root 0, counts m and displacements rank * m for the v-forms.
 *
 * The regular collectives and the reductions decide alone, without a
 * message, that nothing triggers, and then are the MPI call: their target
 * is a ratio <= 1.02 from 64 KiB up. So do the v-collectives and
 * alltoallw on an MPI-4 library where no record of them applies
 * (agrees_now); elsewhere they agree with one small MPI_Allreduce per
 * call: their target stays the 1.05 of bench_v.
 *
 * Part 2, triggered path. Each collective is made to pass a bound of the
 * registry: a G_bytes record (safecoll_bounds_add()) at 3/4 of the call's
 * global buffer, so that it is avoided as a real MPI bug would make it be.
 * Each strategy that applies is then forced in turn (safecoll_strategy_set())
 * and timed, interleaved, against the MPI call on the same bytes (which
 * knows nothing of the bound and is the "default" the paper compares with)
 * and against the MPI-4 `_c` call. Under a bound at 3/4 of the buffer,
 * chunk runs 2 rounds, segment 2 sub-collectives (P = 2: one per rank),
 * bigtype one call with a type of m bytes. A strategy the library refuses
 * for the call (MPI_ERR_UNSUPPORTED_OPERATION on every rank) gets a row
 * saying so. Before timing, each variant's result is compared with MPI's
 * on every rank that has one; a difference aborts the benchmark.
 *
 * Prints markdown on rank 0.
 *
 * usage: bench_all [--sizes 8,64K,1M,16M] [--trig-sizes 1M,16M] [--budget MS]
 *                  [--deadline SECONDS] [--trig-deadline SECONDS]
 *                  [--only untriggered|triggered] [--ops igatherv,ibcast]
 *                  [--trig-ops alltoall,allgather] [--thread] [--check] [--quick]
 *
 * --check adds to part 1 a third variant, the safe call in checking mode
 * (safecoll_check_set(1): one MPI_Allgather of the arguments' digest on
 * every call), and its ratio to the MPI call.
 *
 * --ops limits part 1 to the named collectives; --thread initialises MPI
 * with MPI_THREAD_MULTIPLE, so that (where MPI has no extended generalized
 * requests, or with SAFECOLL_NB_THREAD=1) the safe i-calls run on the
 * library's progress thread: run.sh times that path this way.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>

#include <safecoll.h>

#include "bench.h"

#define TARGET_FROM (64LL << 10)
#define TARGET_FAST 1.02  /* no agreement: the MPI call itself */
#define TARGET_AGREE 1.05 /* one agreement allreduce per call */
#define MAXSIZES 16

/* ------------------------------------------------------------ the calls */

enum op {
    OP_BARRIER,
    OP_BCAST,
    OP_GATHER,
    OP_SCATTER,
    OP_ALLGATHER,
    OP_ALLTOALL,
    OP_REDUCE,
    OP_ALLREDUCE,
    OP_REDUCE_SCATTER,
    OP_REDUCE_SCATTER_BLOCK,
    OP_SCAN,
    OP_EXSCAN,
    OP_GATHERV,
    OP_SCATTERV,
    OP_ALLGATHERV,
    OP_ALLTOALLV,
    OP_ALLTOALLW,
    OP_IBCAST,
    OP_IGATHER,
    OP_IALLREDUCE,
    OP_IGATHERV,
    OP_IALLTOALLW,
    NOP
};

typedef struct op_info {
    const char *name;
    safecoll_coll coll;
    int agrees;    /* the untriggered call runs the agreement */
    int reduction; /* MPI_DOUBLE and MPI_SUM, m / 8 elements */
    int root_only; /* the result is defined on the root only */
    int global_p;  /* the global buffer (bound class G) is P blocks, else 1 */
} op_info;

static const op_info ops[NOP] = {
    [OP_BARRIER] = {"barrier", SAFECOLL_COLL_BARRIER, 0, 0, 0, 0},
    [OP_BCAST] = {"bcast", SAFECOLL_COLL_BCAST, 0, 0, 0, 0},
    [OP_GATHER] = {"gather", SAFECOLL_COLL_GATHER, 0, 0, 1, 1},
    [OP_SCATTER] = {"scatter", SAFECOLL_COLL_SCATTER, 0, 0, 0, 1},
    [OP_ALLGATHER] = {"allgather", SAFECOLL_COLL_ALLGATHER, 0, 0, 0, 1},
    [OP_ALLTOALL] = {"alltoall", SAFECOLL_COLL_ALLTOALL, 0, 0, 0, 1},
    [OP_REDUCE] = {"reduce", SAFECOLL_COLL_REDUCE, 0, 1, 1, 0},
    [OP_ALLREDUCE] = {"allreduce", SAFECOLL_COLL_ALLREDUCE, 0, 1, 0, 0},
    [OP_REDUCE_SCATTER] = {"reduce_scatter", SAFECOLL_COLL_REDUCE_SCATTER, 0, 1, 0, 1},
    [OP_REDUCE_SCATTER_BLOCK] = {"reduce_scatter_block", SAFECOLL_COLL_REDUCE_SCATTER_BLOCK, 0,
                                 1, 0, 1},
    [OP_SCAN] = {"scan", SAFECOLL_COLL_SCAN, 0, 1, 0, 0},
    [OP_EXSCAN] = {"exscan", SAFECOLL_COLL_EXSCAN, 0, 1, 0, 0},
    [OP_GATHERV] = {"gatherv", SAFECOLL_COLL_GATHERV, 1, 0, 1, 1},
    [OP_SCATTERV] = {"scatterv", SAFECOLL_COLL_SCATTERV, 1, 0, 0, 1},
    [OP_ALLGATHERV] = {"allgatherv", SAFECOLL_COLL_ALLGATHERV, 1, 0, 0, 1},
    [OP_ALLTOALLV] = {"alltoallv", SAFECOLL_COLL_ALLTOALLV, 1, 0, 0, 1},
    [OP_ALLTOALLW] = {"alltoallw", SAFECOLL_COLL_ALLTOALLW, 1, 0, 0, 1},
    [OP_IBCAST] = {"ibcast", SAFECOLL_COLL_IBCAST, 0, 0, 0, 0},
    [OP_IGATHER] = {"igather", SAFECOLL_COLL_IGATHER, 0, 0, 1, 1},
    [OP_IALLREDUCE] = {"iallreduce", SAFECOLL_COLL_IALLREDUCE, 0, 1, 0, 0},
    [OP_IGATHERV] = {"igatherv", SAFECOLL_COLL_IGATHERV, 1, 0, 1, 1},
    [OP_IALLTOALLW] = {"ialltoallw", SAFECOLL_COLL_IALLTOALLW, 1, 0, 0, 1},
};

/* How a variant calls: the MPI call, MPI's `_c` call, or safecoll's. */
enum impl { IMPL_MPI, IMPL_MPI_C, IMPL_SAFE };

typedef struct ctx {
    MPI_Comm comm;
    int rank, size;
    enum op op;
    long long m; /* bytes of one block */
    char *sbuf, *rbuf, *expect;
    int *counts, *displs;
    MPI_Count *ccounts;
    MPI_Aint *cdispls;
    MPI_Datatype *types;
    /* Part 2: the impl and strategy of each variant. */
    int nvar;
    enum impl impl[BENCH_MAXVAR];
    safecoll_strategy strat[BENCH_MAXVAR];
    int mode[BENCH_MAXVAR]; /* enum trig_mode */
    safecoll_bound bound;   /* the bound that triggers the call */
    int bound_on;           /* whether it is in the registry, at bound_index */
    size_t bound_index;
    MPI_Count limit;        /* the int limit of MODE_LIMIT */
    MPI_Count limit_block;  /* the int limit of MODE_BLOCK */
} ctx;

#define ROOT 0

static int wait_rc(int rc, MPI_Request *req)
{
    return rc != MPI_SUCCESS ? rc : MPI_Wait(req, MPI_STATUS_IGNORE);
}

/* One call of op by impl on c's buffers. */
static int call(const ctx *c, enum impl impl)
{
    const int m = (int)c->m, n = (int)(c->m / 8);
    const MPI_Count cm = c->m, cn = c->m / 8;
    void *bbuf = c->rank == ROOT ? c->sbuf : c->rbuf;
    MPI_Comm w = c->comm;
    MPI_Request req;

#if defined(MPI_VERSION) && MPI_VERSION >= 4
    if (impl == IMPL_MPI_C) {
        switch (c->op) {
        case OP_BCAST: return MPI_Bcast_c(bbuf, cm, MPI_BYTE, ROOT, w);
        case OP_GATHER:
            return MPI_Gather_c(c->sbuf, cm, MPI_BYTE, c->rbuf, cm, MPI_BYTE, ROOT, w);
        case OP_SCATTER:
            return MPI_Scatter_c(c->sbuf, cm, MPI_BYTE, c->rbuf, cm, MPI_BYTE, ROOT, w);
        case OP_ALLGATHER:
            return MPI_Allgather_c(c->sbuf, cm, MPI_BYTE, c->rbuf, cm, MPI_BYTE, w);
        case OP_ALLTOALL:
            return MPI_Alltoall_c(c->sbuf, cm, MPI_BYTE, c->rbuf, cm, MPI_BYTE, w);
        case OP_REDUCE:
            return MPI_Reduce_c(c->sbuf, c->rbuf, cn, MPI_DOUBLE, MPI_SUM, ROOT, w);
        case OP_ALLREDUCE:
            return MPI_Allreduce_c(c->sbuf, c->rbuf, cn, MPI_DOUBLE, MPI_SUM, w);
        case OP_REDUCE_SCATTER:
            return MPI_Reduce_scatter_c(c->sbuf, c->rbuf, c->ccounts, MPI_DOUBLE, MPI_SUM, w);
        case OP_REDUCE_SCATTER_BLOCK:
            return MPI_Reduce_scatter_block_c(c->sbuf, c->rbuf, cn, MPI_DOUBLE, MPI_SUM, w);
        case OP_SCAN: return MPI_Scan_c(c->sbuf, c->rbuf, cn, MPI_DOUBLE, MPI_SUM, w);
        case OP_EXSCAN: return MPI_Exscan_c(c->sbuf, c->rbuf, cn, MPI_DOUBLE, MPI_SUM, w);
        case OP_GATHERV:
            return MPI_Gatherv_c(c->sbuf, cm, MPI_BYTE, c->rbuf, c->ccounts, c->cdispls,
                                 MPI_BYTE, ROOT, w);
        case OP_SCATTERV:
            return MPI_Scatterv_c(c->sbuf, c->ccounts, c->cdispls, MPI_BYTE, c->rbuf, cm,
                                  MPI_BYTE, ROOT, w);
        case OP_ALLGATHERV:
            return MPI_Allgatherv_c(c->sbuf, cm, MPI_BYTE, c->rbuf, c->ccounts, c->cdispls,
                                    MPI_BYTE, w);
        case OP_ALLTOALLV:
            return MPI_Alltoallv_c(c->sbuf, c->ccounts, c->cdispls, MPI_BYTE, c->rbuf,
                                   c->ccounts, c->cdispls, MPI_BYTE, w);
        case OP_ALLTOALLW:
            return MPI_Alltoallw_c(c->sbuf, c->ccounts, c->cdispls, c->types, c->rbuf,
                                   c->ccounts, c->cdispls, c->types, w);
        default: return MPI_ERR_OTHER;
        }
    }
#else
    (void)cm;
    (void)cn;
#endif
    if (impl == IMPL_MPI) {
        switch (c->op) {
        case OP_BARRIER: return MPI_Barrier(w);
        case OP_BCAST: return MPI_Bcast(bbuf, m, MPI_BYTE, ROOT, w);
        case OP_GATHER: return MPI_Gather(c->sbuf, m, MPI_BYTE, c->rbuf, m, MPI_BYTE, ROOT, w);
        case OP_SCATTER:
            return MPI_Scatter(c->sbuf, m, MPI_BYTE, c->rbuf, m, MPI_BYTE, ROOT, w);
        case OP_ALLGATHER: return MPI_Allgather(c->sbuf, m, MPI_BYTE, c->rbuf, m, MPI_BYTE, w);
        case OP_ALLTOALL: return MPI_Alltoall(c->sbuf, m, MPI_BYTE, c->rbuf, m, MPI_BYTE, w);
        case OP_REDUCE: return MPI_Reduce(c->sbuf, c->rbuf, n, MPI_DOUBLE, MPI_SUM, ROOT, w);
        case OP_ALLREDUCE: return MPI_Allreduce(c->sbuf, c->rbuf, n, MPI_DOUBLE, MPI_SUM, w);
        case OP_REDUCE_SCATTER:
            return MPI_Reduce_scatter(c->sbuf, c->rbuf, c->counts, MPI_DOUBLE, MPI_SUM, w);
        case OP_REDUCE_SCATTER_BLOCK:
            return MPI_Reduce_scatter_block(c->sbuf, c->rbuf, n, MPI_DOUBLE, MPI_SUM, w);
        case OP_SCAN: return MPI_Scan(c->sbuf, c->rbuf, n, MPI_DOUBLE, MPI_SUM, w);
        case OP_EXSCAN: return MPI_Exscan(c->sbuf, c->rbuf, n, MPI_DOUBLE, MPI_SUM, w);
        case OP_GATHERV:
            return MPI_Gatherv(c->sbuf, m, MPI_BYTE, c->rbuf, c->counts, c->displs, MPI_BYTE,
                               ROOT, w);
        case OP_SCATTERV:
            return MPI_Scatterv(c->sbuf, c->counts, c->displs, MPI_BYTE, c->rbuf, m, MPI_BYTE,
                                ROOT, w);
        case OP_ALLGATHERV:
            return MPI_Allgatherv(c->sbuf, m, MPI_BYTE, c->rbuf, c->counts, c->displs,
                                  MPI_BYTE, w);
        case OP_ALLTOALLV:
            return MPI_Alltoallv(c->sbuf, c->counts, c->displs, MPI_BYTE, c->rbuf, c->counts,
                                 c->displs, MPI_BYTE, w);
        case OP_ALLTOALLW:
            return MPI_Alltoallw(c->sbuf, c->counts, c->displs, c->types, c->rbuf, c->counts,
                                 c->displs, c->types, w);
        case OP_IBCAST: return wait_rc(MPI_Ibcast(bbuf, m, MPI_BYTE, ROOT, w, &req), &req);
        case OP_IGATHER:
            return wait_rc(MPI_Igather(c->sbuf, m, MPI_BYTE, c->rbuf, m, MPI_BYTE, ROOT, w, &req),
                           &req);
        case OP_IALLREDUCE:
            return wait_rc(MPI_Iallreduce(c->sbuf, c->rbuf, n, MPI_DOUBLE, MPI_SUM, w, &req),
                           &req);
        case OP_IGATHERV:
            return wait_rc(MPI_Igatherv(c->sbuf, m, MPI_BYTE, c->rbuf, c->counts, c->displs,
                                        MPI_BYTE, ROOT, w, &req),
                           &req);
        case OP_IALLTOALLW:
            return wait_rc(MPI_Ialltoallw(c->sbuf, c->counts, c->displs, c->types, c->rbuf,
                                          c->counts, c->displs, c->types, w, &req),
                           &req);
        default: return MPI_ERR_OTHER;
        }
    }
    switch (c->op) {
    case OP_BARRIER: return safecoll_barrier(w);
    case OP_BCAST: return safecoll_bcast(bbuf, m, MPI_BYTE, ROOT, w);
    case OP_GATHER:
        return safecoll_gather(c->sbuf, m, MPI_BYTE, c->rbuf, m, MPI_BYTE, ROOT, w);
    case OP_SCATTER:
        return safecoll_scatter(c->sbuf, m, MPI_BYTE, c->rbuf, m, MPI_BYTE, ROOT, w);
    case OP_ALLGATHER: return safecoll_allgather(c->sbuf, m, MPI_BYTE, c->rbuf, m, MPI_BYTE, w);
    case OP_ALLTOALL: return safecoll_alltoall(c->sbuf, m, MPI_BYTE, c->rbuf, m, MPI_BYTE, w);
    case OP_REDUCE: return safecoll_reduce(c->sbuf, c->rbuf, n, MPI_DOUBLE, MPI_SUM, ROOT, w);
    case OP_ALLREDUCE: return safecoll_allreduce(c->sbuf, c->rbuf, n, MPI_DOUBLE, MPI_SUM, w);
    case OP_REDUCE_SCATTER:
        return safecoll_reduce_scatter(c->sbuf, c->rbuf, c->counts, MPI_DOUBLE, MPI_SUM, w);
    case OP_REDUCE_SCATTER_BLOCK:
        return safecoll_reduce_scatter_block(c->sbuf, c->rbuf, n, MPI_DOUBLE, MPI_SUM, w);
    case OP_SCAN: return safecoll_scan(c->sbuf, c->rbuf, n, MPI_DOUBLE, MPI_SUM, w);
    case OP_EXSCAN: return safecoll_exscan(c->sbuf, c->rbuf, n, MPI_DOUBLE, MPI_SUM, w);
    case OP_GATHERV:
        return safecoll_gatherv(c->sbuf, m, MPI_BYTE, c->rbuf, c->counts, c->displs, MPI_BYTE,
                                ROOT, w);
    case OP_SCATTERV:
        return safecoll_scatterv(c->sbuf, c->counts, c->displs, MPI_BYTE, c->rbuf, m, MPI_BYTE,
                                 ROOT, w);
    case OP_ALLGATHERV:
        return safecoll_allgatherv(c->sbuf, m, MPI_BYTE, c->rbuf, c->counts, c->displs,
                                   MPI_BYTE, w);
    case OP_ALLTOALLV:
        return safecoll_alltoallv(c->sbuf, c->counts, c->displs, MPI_BYTE, c->rbuf, c->counts,
                                  c->displs, MPI_BYTE, w);
    case OP_ALLTOALLW:
        return safecoll_alltoallw(c->sbuf, c->counts, c->displs, c->types, c->rbuf, c->counts,
                                  c->displs, c->types, w);
    case OP_IBCAST: return wait_rc(safecoll_ibcast(bbuf, m, MPI_BYTE, ROOT, w, &req), &req);
    case OP_IGATHER:
        return wait_rc(
            safecoll_igather(c->sbuf, m, MPI_BYTE, c->rbuf, m, MPI_BYTE, ROOT, w, &req), &req);
    case OP_IALLREDUCE:
        return wait_rc(safecoll_iallreduce(c->sbuf, c->rbuf, n, MPI_DOUBLE, MPI_SUM, w, &req),
                       &req);
    case OP_IGATHERV:
        return wait_rc(safecoll_igatherv(c->sbuf, m, MPI_BYTE, c->rbuf, c->counts, c->displs,
                                         MPI_BYTE, ROOT, w, &req),
                       &req);
    case OP_IALLTOALLW:
        return wait_rc(safecoll_ialltoallw(c->sbuf, c->counts, c->displs, c->types, c->rbuf,
                                           c->counts, c->displs, c->types, w, &req),
                       &req);
    default: return MPI_ERR_OTHER;
    }
}

/* Bytes of the result on this rank (0: none to check). */
static size_t result_bytes(const ctx *c)
{
    const op_info *o = &ops[c->op];
    const size_t m = (size_t)c->m, p = (size_t)c->size;

    if (o->root_only && c->rank != ROOT)
        return 0;
    switch (c->op) {
    case OP_BARRIER: return 0;
    case OP_BCAST:
    case OP_IBCAST: return c->rank == ROOT ? 0 : m;
    case OP_EXSCAN: return c->rank == 0 ? 0 : m;
    case OP_SCATTER:
    case OP_SCATTERV:
    case OP_REDUCE:
    case OP_ALLREDUCE:
    case OP_IALLREDUCE:
    case OP_REDUCE_SCATTER:
    case OP_REDUCE_SCATTER_BLOCK:
    case OP_SCAN: return m;
    default: return p * m;
    }
}

/* The send data: bytes of a pattern that differs by rank and position, or
 * small integers as doubles for the reductions, whose sums are exact in
 * any order of evaluation. */
static void fill(const ctx *c, size_t bytes)
{
    if (ops[c->op].reduction) {
        double *d = (double *)c->sbuf;
        for (size_t i = 0; i < bytes / sizeof *d; i++)
            d[i] = (double)((i * 7 + (size_t)c->rank * 3) % 101);
    } else {
        for (size_t i = 0; i < bytes; i++)
            c->sbuf[i] = (char)(i * 31 + (size_t)c->rank * 17 + (i >> 12));
    }
}

/* The arrays of the v-forms and of reduce_scatter for block size m. */
static void set_size(ctx *c, long long m)
{
    c->m = m;
    for (int i = 0; i < c->size; i++) {
        c->counts[i] = ops[c->op].reduction ? (int)(m / 8) : (int)m;
        c->displs[i] = (int)(i * m);
        c->ccounts[i] = c->counts[i];
        c->cdispls[i] = (MPI_Aint)(i * m);
    }
}

/* ------------------------------------------------------------ helpers */

static int parse_sizes(const char *arg, long long sizes[], int cap)
{
    const char *p = arg;
    int n = 0;

    while (*p != '\0') {
        char *end;
        long long v = strtoll(p, &end, 10);

        if (end == p || v <= 0 || n == cap)
            return -1;
        if (*end == 'K')
            v <<= 10, end++;
        else if (*end == 'M')
            v <<= 20, end++;
        if ((*end != ',' && *end != '\0') || (n > 0 && v <= sizes[n - 1]) || v % 8 != 0)
            return -1;
        sizes[n++] = v;
        p = *end == ',' ? end + 1 : end;
    }
    return n;
}

static long long parse_ll(const char *s, const char *opt)
{
    char *end;
    long long v = strtoll(s, &end, 10);

    if (*s == '\0' || *end != '\0' || v <= 0) {
        fprintf(stderr, "bench_all: %s needs a positive integer, not '%s'\n", opt, s);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return v;
}

static void reps_for(long long m, int *min_reps, int *max_reps)
{
    if (m <= (64LL << 10)) {
        *min_reps = 101;
        *max_reps = 2001;
    } else if (m <= (1LL << 20)) {
        *min_reps = 31;
        *max_reps = 501;
    } else {
        *min_reps = 7;
        *max_reps = 41;
    }
}

/* ------------------------------------------------------------ part 1 */

/* --check: part 1 also times the safe call in checking mode. */
static int with_check;

static int run_untriggered(int var, void *arg)
{
    int rc;

    if (var < 2)
        return call(arg, var == 0 ? IMPL_MPI : IMPL_SAFE);
    safecoll_check_set(1);
    rc = call(arg, IMPL_SAFE);
    safecoll_check_set(0);
    return rc;
}

typedef struct tally {
    int met, judged;
    double worst;
} tally;

/* Whether the untriggered call agrees on this run: an irregular one
 * decides alone on an MPI-4 library (doc/guide.md, "Deciding alone")
 * unless SAFECOLL_AGREE=always or a registry record of it applies at this
 * process count. */
static int agrees_now(const op_info *o, int p)
{
    if (!o->agrees)
        return 0;
#if defined(MPI_VERSION) && MPI_VERSION >= 4
    size_t n = 0;

    if (safecoll_agree_get() || safecoll_check_get())
        return 1;
    safecoll_bounds_match_kind(SAFECOLL_BOUND_CORRECTNESS, o->coll, 1, p, NULL, NULL, 0, &n);
    if (n == 0 && safecoll_perf_bounds_get())
        safecoll_bounds_match_kind(SAFECOLL_BOUND_PERFORMANCE, o->coll, 1, p, NULL, NULL, 0, &n);
    return n > 0;
#else
    (void)p;
    return 1;
#endif
}

/* Part 1's collectives (--ops; all by default). */
static int op_on[NOP];

static void untriggered(ctx *c, const long long *sizes, int nsizes, double budget,
                        double deadline)
{
    tally fast = {0, 0, 0.0}, agree = {0, 0, 0.0};
    double t0 = MPI_Wtime();
    int ncells = 0, done = 0;
    safecoll_stats st;

    int nsel = 0;

    for (int k = 0; k < NOP; k++) {
        ncells += op_on[k] * (k == OP_BARRIER ? 1 : nsizes);
        nsel += op_on[k];
    }
    if (c->rank == 0) {
        int level = MPI_THREAD_SINGLE;

        MPI_Query_thread(&level);
        printf("### Untriggered overhead, %s, P = %d%s\n\n",
               nsel == NOP ? "all collectives" : "selected collectives", c->size,
               level == MPI_THREAD_MULTIPLE ? ", MPI_THREAD_MULTIPLE" : "");
        printf("m = bytes of one block (gather: each rank sends m; alltoall: m to every rank; "
               "bcast: m; reductions: m bytes of MPI_DOUBLE, MPI_SUM; reduce_scatter: m of "
               "result per rank), MPI_BYTE otherwise, root 0. i-forms are timed from the start "
               "to the return of MPI_Wait. `agree`: the safe call runs the agreement allreduce "
               "even untriggered (v-collectives, alltoallw). Times are medians over `reps` "
               "interleaved repetitions of the max over ranks; `ratio` = safecoll / MPI of the "
               "medians; `p25-p75` = spread of the per-repetition ratios; `min ratio` = ratio "
               "of the fastest repetitions. Target from 64 KiB up: %.2f without agreement, "
               "%.2f with it.\n\n",
               TARGET_FAST, TARGET_AGREE);
        if (with_check)
            printf("`check`: the safe call in checking mode (safecoll_check_set(1)); `check "
                   "ratio` = its median / MPI's.\n\n");
        printf("| collective | agree | m | reps | MPI | safecoll | ratio | p25-p75 | min ratio "
               "| safe - MPI | target |%s\n", with_check ? " check | check ratio |" : "");
        printf("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|%s\n",
               with_check ? "---:|---:|" : "");
        fflush(stdout);
    }
    safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_AUTO);
    safecoll_stats_reset();
    for (int k = 0; k < NOP; k++) {
        const op_info *o = &ops[k];
        const int agrees = agrees_now(o, c->size);
        const double target = agrees ? TARGET_AGREE : TARGET_FAST;
        tally *t = agrees ? &agree : &fast;

        if (!op_on[k])
            continue;
        c->op = (enum op)k;
        for (int s = 0; s < (k == OP_BARRIER ? 1 : nsizes); s++) {
            const long long m = k == OP_BARRIER ? 0 : sizes[s];
            double left = deadline - bench_elapsed(c->comm, t0), share, tm, ts, ratio;
            int min_reps, max_reps, judged;
            char b1[32], b2[32], b3[32], b4[32];
            bench_result res;

            share = left / (ncells - done++);
            if (share <= 0) {
                if (c->rank == 0)
                    printf("| %s | %s | %s | | skipped: out of time | | | | | | |\n", o->name,
                           agrees ? "yes" : "no", bench_size_str(m, b1, sizeof b1));
                continue;
            }
            set_size(c, m);
            fill(c, (size_t)(c->size * m));
            reps_for(m, &min_reps, &max_reps);
            res = bench_run(c->comm, with_check ? 3 : 2, run_untriggered, NULL, NULL, c, 3, min_reps, max_reps,
                            budget < share ? budget : share, 2 * share);
            tm = bench_med(&res, 0);
            ts = bench_med(&res, 1);
            ratio = ts / tm;
            judged = m >= TARGET_FROM;
            if (judged) {
                t->judged++;
                t->met += ratio <= target;
                t->worst = ratio > t->worst ? ratio : t->worst;
            }
            if (c->rank == 0) {
                printf("| %s | %s | %s | %d | %s | %s | %.3f | %.2f-%.2f | %.3f | %s%s | %s |",
                       o->name, agrees ? "yes" : "no",
                       k == OP_BARRIER ? "-" : bench_size_str(m, b1, sizeof b1), res.reps,
                       bench_time_str(tm, b2, sizeof b2), bench_time_str(ts, b3, sizeof b3),
                       ratio, bench_ratio_quantile(&res, 1, 0, 0.25),
                       bench_ratio_quantile(&res, 1, 0, 0.75),
                       bench_min(&res, 1) / bench_min(&res, 0), ts < tm ? "-" : "",
                       bench_time_str(fabs(ts - tm), b4, sizeof b4),
                       !judged ? "-" : ratio <= target ? "met" : "**missed**");
                if (with_check)
                    printf(" %s | %.3f |", bench_time_str(bench_med(&res, 2), b2, sizeof b2),
                           bench_med(&res, 2) / tm);
                printf("\n");
                fflush(stdout);
            }
            bench_result_free(&res);
        }
    }
    if (c->rank == 0) {
        printf("\n");
        if (safecoll_stats_get(SAFECOLL_COLL_ALL, &st) == MPI_SUCCESS)
            printf("- rank 0 made %llu safe calls: %llu ran the native MPI call, %llu an "
                   "avoidance, %llu returned an error\n",
                   st.calls, st.by_strategy[SAFECOLL_STRATEGY_NATIVE],
                   st.calls - st.by_strategy[SAFECOLL_STRATEGY_NATIVE] - st.errors, st.errors);
        printf("- no agreement, P = %d, from 64 KiB up: target %.2f met in %d of %d cells; "
               "worst ratio %.3f\n",
               c->size, TARGET_FAST, fast.met, fast.judged, fast.worst);
        printf("- with agreement, P = %d, from 64 KiB up: target %.2f met in %d of %d cells; "
               "worst ratio %.3f\n\n",
               c->size, TARGET_AGREE, agree.met, agree.judged, agree.worst);
        fflush(stdout);
    }
}

/* ------------------------------------------------------------ part 2 */

static const enum op trig_ops[] = {
    OP_BCAST,          OP_GATHER,     OP_SCATTER, OP_ALLGATHER,  OP_ALLTOALL,
    OP_REDUCE,         OP_ALLREDUCE,  OP_REDUCE_SCATTER_BLOCK,  OP_SCAN,
    OP_GATHERV,        OP_ALLGATHERV, OP_ALLTOALLV, OP_ALLTOALLW,
};
enum { NTRIG = sizeof trig_ops / sizeof trig_ops[0] };

/* The collectives of part 2 to run (--trig-ops): all by default. */
static int trig_on[NTRIG];

/* Parses a comma-separated list of collective names into on[]: on[k] for
 * the collective ops[list[k]] (list NULL: ops[k]), k < n. Returns 0 on a
 * name that is not one of them. */
static int parse_names(const char *arg, int *on, int n, const enum op *list)
{
    char buf[512];

    memset(on, 0, sizeof *on * (size_t)n);
    snprintf(buf, sizeof buf, "%s", arg);
    for (char *t = strtok(buf, ","); t != NULL; t = strtok(NULL, ",")) {
        int found = 0;
        for (int k = 0; k < n; k++)
            if (strcmp(t, ops[list != NULL ? (int)list[k] : k].name) == 0)
                on[k] = found = 1;
        if (!found)
            return 0;
    }
    return 1;
}

/* The safe variants of part 2: a strategy, and how the call is made to
 * trigger. Under a bound of the registry the large-count call is refused
 * (no record says the `_c` call is free of the bound), so largecount is
 * timed with the int limit shrunk instead, to half a message: the way a
 * count past INT_MAX triggers. Segment needs every block to fit with room
 * to spare under a bound (the library plans segments of at most the bound
 * less the largest block), which an even layout of P = 2 blocks cannot
 * give; it is timed with the int limit at one block instead: the blocks
 * fit, the displacements and the buffer do not (paper W1-A's case). */
enum trig_mode { MODE_BOUND, MODE_LIMIT, MODE_BLOCK };

static const struct {
    safecoll_strategy strat;
    enum trig_mode mode;
} trig_vars[] = {
    {SAFECOLL_STRATEGY_AUTO, MODE_BOUND},    {SAFECOLL_STRATEGY_AUTO, MODE_LIMIT},
    {SAFECOLL_STRATEGY_LARGECOUNT, MODE_LIMIT}, {SAFECOLL_STRATEGY_BIGTYPE, MODE_BOUND},
    {SAFECOLL_STRATEGY_SEGMENT, MODE_BLOCK}, {SAFECOLL_STRATEGY_CHUNK, MODE_BOUND},
    {SAFECOLL_STRATEGY_P2P, MODE_BOUND},
};
enum { NTVAR = sizeof trig_vars / sizeof trig_vars[0] };

/* Puts the bound in the registry or takes it out, and sets the int limit,
 * as variant var needs. */
static int set_mode(ctx *c, int var)
{
    const int bound = c->impl[var] == IMPL_SAFE && c->mode[var] == MODE_BOUND;
    const int limit = c->impl[var] == IMPL_SAFE && c->mode[var] != MODE_BOUND;
    size_t n;
    int rc;

    if (bound && !c->bound_on) {
        if ((rc = safecoll_bounds_add(&c->bound)) != MPI_SUCCESS ||
            (rc = safecoll_bounds_count(&n)) != MPI_SUCCESS)
            return rc;
        c->bound_index = n - 1;
        c->bound_on = 1;
    } else if (!bound && c->bound_on) {
        if ((rc = safecoll_bounds_remove(c->bound_index)) != MPI_SUCCESS)
            return rc;
        c->bound_on = 0;
    }
    return safecoll_int_limit_set(!limit                       ? INT_MAX
                                  : c->mode[var] == MODE_LIMIT ? c->limit
                                                               : c->limit_block);
}

static int prep_triggered(int var, void *arg)
{
    ctx *c = arg;
    int rc = set_mode(c, var);

    if (rc != MPI_SUCCESS)
        return rc;
    return safecoll_strategy_set(ops[c->op].coll, c->impl[var] == IMPL_SAFE
                                                      ? c->strat[var]
                                                      : SAFECOLL_STRATEGY_AUTO);
}

static int run_triggered(int var, void *arg)
{
    const ctx *c = arg;
    return call(c, c->impl[var]);
}

/* Calls variant v once and compares its result with c->expect on every
 * rank; returns MPI_SUCCESS, the call's error (the same on every rank: a
 * triggered call agrees on its errors), or aborts on wrong data. */
static int trial(ctx *c, int v, size_t rbytes)
{
    int rc, bad, anybad;

    memset(c->rbuf, 0x5a, rbytes ? rbytes : 1);
    prep_triggered(v, c);
    rc = call(c, c->impl[v]);
    bad = rc == MPI_SUCCESS && rbytes > 0 && memcmp(c->rbuf, c->expect, rbytes) != 0;
    MPI_Allreduce(&bad, &anybad, 1, MPI_INT, MPI_MAX, c->comm);
    if (anybad) {
        if (c->rank == 0)
            fprintf(stderr, "bench_all: %s with %s gave a result that differs from MPI's\n",
                    ops[c->op].name,
                    c->impl[v] == IMPL_SAFE ? safecoll_strategy_name(c->strat[v]) : "MPI _c");
        MPI_Abort(c->comm, 3);
    }
    return rc;
}

/* Ratio summaries of part 2: per strategy, the ratios to the MPI call. */
typedef struct strat_sum {
    int n;
    double lo, hi, logsum;
} strat_sum;

static const char *mode_name(int mode)
{
    return mode == MODE_BOUND ? "bound" : mode == MODE_LIMIT ? "int limit" : "block limit";
}

static const char *var_label(const ctx *c, int v, int ran_auto[2], char *buf, size_t len)
{
    const char *how = mode_name(c->mode[v]);

    if (c->impl[v] == IMPL_MPI)
        return "MPI (reference)";
    if (c->impl[v] == IMPL_MPI_C)
        return "MPI `_c`";
    if (c->strat[v] == SAFECOLL_STRATEGY_AUTO) {
        int r = ran_auto[c->mode[v] == MODE_BOUND ? 0 : 1];
        snprintf(buf, len, "auto, %s (ran %s)", how,
                 r >= 0 ? safecoll_strategy_name((safecoll_strategy)r) : "?");
    } else
        snprintf(buf, len, "%s, %s", safecoll_strategy_name(c->strat[v]), how);
    return buf;
}

static void triggered_one(ctx *c, long long m, double budget, double hard,
                          strat_sum sums[NTVAR])
{
    const op_info *o = &ops[c->op];
    const size_t rbytes = result_bytes(c);
    const int esize = o->reduction ? 8 : 1;
    const long long global = o->global_p ? c->size * m : m;
    int refused[NTVAR] = {0}, tidx[BENCH_MAXVAR], ran_auto[2] = {-1, -1}, rc, v0;
    bench_result res;
    char b1[32], b2[32], b3[32], lab[64];

    set_size(c, m);
    fill(c, (size_t)(c->size * m));
    /* The bound: the global buffer, in elements, passes it by a third. The
     * int limit: half of one message, in elements. */
    safecoll_bound_init(&c->bound);
    c->bound.collective = o->coll;
    c->bound.cls = SAFECOLL_BOUND_G_ELEMENTS;
    c->bound.bound = global / esize * 3 / 4;
    snprintf(c->bound.note, sizeof c->bound.note, "bench_all: forces the triggered path");
    c->bound_on = 0;
    c->limit = m / esize / 2 > 0 ? m / esize / 2 : 1;
    c->limit_block = m / esize;

    c->nvar = 0;
    c->impl[c->nvar] = IMPL_MPI, tidx[c->nvar++] = -1;
#if defined(MPI_VERSION) && MPI_VERSION >= 4
    c->impl[c->nvar] = IMPL_MPI_C, tidx[c->nvar++] = -1;
#endif
    v0 = c->nvar;
    /* The expected result, by MPI. */
    memset(c->rbuf, 0x5a, rbytes ? rbytes : 1);
    if ((rc = call(c, IMPL_MPI)) != MPI_SUCCESS)
        bench_die("the reference MPI call", rc);
    memcpy(c->expect, c->rbuf, rbytes);
    for (int t = 0; t < NTVAR; t++) {
        int v = c->nvar;
        safecoll_stats before, after;

        c->impl[v] = IMPL_SAFE;
        c->strat[v] = trig_vars[t].strat;
        c->mode[v] = trig_vars[t].mode;
        safecoll_stats_get(o->coll, &before);
        rc = trial(c, v, rbytes);
        safecoll_stats_get(o->coll, &after);
        if (c->strat[v] == SAFECOLL_STRATEGY_AUTO)
            for (int k = 0; k < SAFECOLL_NSTRATEGY; k++)
                if (after.by_strategy[k] > before.by_strategy[k])
                    ran_auto[c->mode[v] == MODE_BOUND ? 0 : 1] = k;
        if (rc == MPI_SUCCESS)
            tidx[c->nvar++] = t;
        else
            refused[t] = 1;
    }
    if (v0 == 2 && trial(c, 1, rbytes) != MPI_SUCCESS)
        bench_die("the MPI _c call", MPI_ERR_OTHER);

    res = bench_run(c->comm, c->nvar, run_triggered, prep_triggered, NULL, c, 1, 5, 41, budget,
                    hard);
    c->impl[0] = IMPL_MPI;
    if ((rc = prep_triggered(0, c)) != MPI_SUCCESS) /* bound out, limit INT_MAX */
        bench_die("restoring the configuration", rc);

    if (c->rank == 0) {
        const double tn = bench_med(&res, 0);
        for (int v = 0; v < c->nvar; v++) {
            const double tv = bench_med(&res, v), r = tv / tn;

            printf("| %s | %s | %s | %s | %d | %s | %.3f | %.2f-%.2f | %.3f |\n", o->name,
                   bench_size_str(m, b1, sizeof b1), bench_size_str(global, b2, sizeof b2),
                   var_label(c, v, ran_auto, lab, sizeof lab), res.reps,
                   bench_time_str(tv, b3, sizeof b3), r,
                   v == 0 ? 1.0 : bench_ratio_quantile(&res, v, 0, 0.25),
                   v == 0 ? 1.0 : bench_ratio_quantile(&res, v, 0, 0.75),
                   bench_min(&res, v) / bench_min(&res, 0));
            if (tidx[v] >= 0) {
                strat_sum *ss = &sums[tidx[v]];
                ss->lo = ss->n == 0 || r < ss->lo ? r : ss->lo;
                ss->hi = ss->n == 0 || r > ss->hi ? r : ss->hi;
                ss->logsum += log(r);
                ss->n++;
            }
        }
        for (int t = 0; t < NTVAR; t++)
            if (refused[t])
                printf("| %s | %s | %s | %s, %s | | refused: does not apply | | | |\n",
                       o->name, bench_size_str(m, b1, sizeof b1),
                       bench_size_str(global, b2, sizeof b2),
                       safecoll_strategy_name(trig_vars[t].strat), mode_name(trig_vars[t].mode));
        fflush(stdout);
    }
    bench_result_free(&res);
}

static void triggered(ctx *c, const long long *sizes, int nsizes, double budget,
                      double deadline)
{
    strat_sum sums[NTVAR];
    double t0 = MPI_Wtime();
    int ncells = 0, done = 0;

    for (int k = 0; k < NTRIG; k++)
        ncells += trig_on[k] * nsizes;

    memset(sums, 0, sizeof sums);
    if (c->rank == 0) {
        printf("### Triggered path: each strategy against the MPI call, P = %d\n\n", c->size);
        printf("Each call is made to take the triggered path as a real MPI bug or a count "
               "past INT_MAX would make it. `bound`: a G_elements record at 3/4 of the call's "
               "global buffer is in the registry (safecoll_bounds_add()), so chunk runs 2 "
               "rounds, bigtype one call with a type of one block. `int limit`: the int limit "
               "is shrunk to half a message (safecoll_int_limit_set()); only there does "
               "largecount apply (under a bound the `_c` call is refused: no record says it is "
               "free of the bound). `block limit`: the int limit is one block, so blocks fit "
               "but displacements and the buffer do not; segment runs there (P = 2: one "
               "sub-collective per rank; P = 4: ranks 0-2 and 3), since under a bound it needs "
               "room for a block below the bound that an even layout cannot give. "
               "Each strategy is forced in turn (safecoll_strategy_set()); `auto` is the "
               "library's own choice. `MPI (reference)` is the plain MPI call on the same "
               "bytes, untouched by bound and limit: the paper's \"default\". `vs MPI` = ratio "
               "of the medians to it, `p25-p75` its per-repetition spread, `min vs MPI` the "
               "ratio of the fastest repetitions. Every variant's result was compared with "
               "MPI's before timing.\n\n");
        printf("| collective | m | global | variant | reps | time | vs MPI | p25-p75 | "
               "min vs MPI |\n");
        printf("|---|---:|---:|---|---:|---:|---:|---:|---:|\n");
        fflush(stdout);
    }
    for (int s = 0; s < nsizes; s++) {
        for (int k = 0; k < NTRIG; k++) {
            double left = deadline - bench_elapsed(c->comm, t0), share;
            char b1[32];

            if (!trig_on[k])
                continue;
            c->op = trig_ops[k];
            share = left / (ncells - done++);
            if (share <= 0) {
                if (c->rank == 0)
                    printf("| %s | %s | | skipped: out of time | | | | | |\n",
                           ops[c->op].name, bench_size_str(sizes[s], b1, sizeof b1));
                continue;
            }
            triggered_one(c, sizes[s], budget < share ? budget : share, 2 * share, sums);
        }
    }
    if (c->rank == 0) {
        printf("\n");
        for (int t = 0; t < NTVAR; t++) {
            const strat_sum *ss = &sums[t];
            if (ss->n > 0)
                printf("- %s under the %s, P = %d: vs MPI %.2f-%.2f over %d cells, geometric "
                       "mean %.2f\n",
                       safecoll_strategy_name(trig_vars[t].strat), mode_name(trig_vars[t].mode),
                       c->size, ss->lo,
                       ss->hi, ss->n, exp(ss->logsum / ss->n));
        }
        printf("\n");
        fflush(stdout);
    }
}

/* ------------------------------------------------------------ main */

int main(int argc, char **argv)
{
    long long sizes[MAXSIZES] = {8, 64LL << 10, 1LL << 20, 16LL << 20};
    long long tsizes[MAXSIZES] = {1LL << 20, 16LL << 20};
    int nsizes = 4, ntsizes = 2, part1 = 1, part2 = 1;
    double budget = 0.25, deadline = 90.0, tdeadline = 60.0;
    long long maxm = 0;
    ctx c;

    for (int k = 0; k < NTRIG; k++)
        trig_on[k] = 1;
    for (int k = 0; k < NOP; k++)
        op_on[k] = 1;
    /* --thread: MPI_THREAD_MULTIPLE, under which the safe i-calls run on
     * the library's progress thread where MPI has no extended generalized
     * requests (or with SAFECOLL_NB_THREAD=1). Looked for before MPI is
     * initialised. */
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--thread") == 0) {
            int provided;
            MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
            break;
        }
    {
        int inited = 0;
        MPI_Initialized(&inited);
        if (!inited)
            MPI_Init(&argc, &argv);
    }
    memset(&c, 0, sizeof c);
    c.comm = MPI_COMM_WORLD;
    MPI_Comm_rank(c.comm, &c.rank);
    MPI_Comm_size(c.comm, &c.size);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--sizes") == 0 && i + 1 < argc) {
            if ((nsizes = parse_sizes(argv[++i], sizes, MAXSIZES)) <= 0)
                goto usage;
        } else if (strcmp(argv[i], "--trig-sizes") == 0 && i + 1 < argc) {
            if ((ntsizes = parse_sizes(argv[++i], tsizes, MAXSIZES)) <= 0)
                goto usage;
        } else if (strcmp(argv[i], "--budget") == 0 && i + 1 < argc)
            budget = (double)parse_ll(argv[++i], "--budget") / 1000.0;
        else if (strcmp(argv[i], "--deadline") == 0 && i + 1 < argc)
            deadline = (double)parse_ll(argv[++i], "--deadline");
        else if (strcmp(argv[i], "--trig-deadline") == 0 && i + 1 < argc)
            tdeadline = (double)parse_ll(argv[++i], "--trig-deadline");
        else if (strcmp(argv[i], "--only") == 0 && i + 1 < argc) {
            i++;
            part1 = strcmp(argv[i], "untriggered") == 0;
            part2 = strcmp(argv[i], "triggered") == 0;
            if (!part1 && !part2)
                goto usage;
        } else if (strcmp(argv[i], "--trig-ops") == 0 && i + 1 < argc) {
            if (!parse_names(argv[++i], trig_on, NTRIG, trig_ops))
                goto usage;
        } else if (strcmp(argv[i], "--ops") == 0 && i + 1 < argc) {
            if (!parse_names(argv[++i], op_on, NOP, NULL))
                goto usage;
        } else if (strcmp(argv[i], "--thread") == 0) {
            /* handled before MPI_Init */
        } else if (strcmp(argv[i], "--check") == 0) {
            with_check = 1;
        } else if (strcmp(argv[i], "--quick") == 0) {
            sizes[0] = 8, sizes[1] = 64LL << 10, nsizes = 2;
            tsizes[0] = 64LL << 10, ntsizes = 1;
            budget = 0.02, deadline = 10.0, tdeadline = 10.0;
        } else
            goto usage;
    }
    for (int s = 0; s < nsizes; s++)
        maxm = sizes[s] > maxm ? sizes[s] : maxm;
    for (int s = 0; s < ntsizes; s++)
        maxm = tsizes[s] > maxm ? tsizes[s] : maxm;
    if (maxm * c.size > INT_MAX) {
        if (c.rank == 0)
            fprintf(stderr, "bench_all: %lld bytes x %d ranks does not fit in int\n", maxm,
                    c.size);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    /* Refused strategies come back as error codes, not aborts. */
    MPI_Comm_set_errhandler(c.comm, MPI_ERRORS_RETURN);
    c.sbuf = bench_alloc((size_t)(maxm * c.size));
    c.rbuf = bench_alloc((size_t)(maxm * c.size));
    c.expect = bench_alloc((size_t)(maxm * c.size));
    c.counts = bench_alloc(sizeof(int) * (size_t)c.size);
    c.displs = bench_alloc(sizeof(int) * (size_t)c.size);
    c.ccounts = bench_alloc(sizeof(MPI_Count) * (size_t)c.size);
    c.cdispls = bench_alloc(sizeof(MPI_Aint) * (size_t)c.size);
    c.types = bench_alloc(sizeof(MPI_Datatype) * (size_t)c.size);
    for (int i = 0; i < c.size; i++)
        c.types[i] = MPI_BYTE;
    memset(c.rbuf, 0, (size_t)(maxm * c.size));

    if (part1)
        untriggered(&c, sizes, nsizes, budget, deadline);
    if (part2)
        triggered(&c, tsizes, ntsizes, budget, tdeadline);

    free(c.sbuf), free(c.rbuf), free(c.expect);
    free(c.counts), free(c.displs), free(c.ccounts), free(c.cdispls), free(c.types);
    MPI_Finalize();
    return 0;

usage:
    if (c.rank == 0)
        fprintf(stderr, "usage: bench_all [--sizes LIST] [--trig-sizes LIST] [--budget MS] "
                        "[--deadline SECONDS] [--trig-deadline SECONDS] "
                        "[--only untriggered|triggered] [--ops NAMES] [--trig-ops NAMES] "
                        "[--thread] [--check] [--quick]\n"
                        "LIST: ascending multiples of 8 like 8,64K,1M,16M; NAMES: part 1's "
                        "or part 2's collectives, like igatherv,ibcast or alltoall,allgather; "
                        "--thread: MPI_Init_thread(MPI_THREAD_MULTIPLE)\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
    return 2;
}
