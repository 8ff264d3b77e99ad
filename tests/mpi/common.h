/*
 * Helpers shared by the MPI test suites (tests/mpi/test_*.c). Include this
 * file first: it asks for the POSIX and BSD declarations (mmap's
 * MAP_NORESERVE, dup2, mkstemp) before any system header is read.
 *
 * The suites run under mpiexec with Check in no-fork mode, every rank
 * running the same tests in the same order. A Check assertion that fails on
 * one rank only would leave that rank's test early while the others wait in
 * a collective, so a test never asserts on local data directly: it records
 * local failures in a tc_ctx (TC_CHECK), and tc_end() sums them over
 * MPI_COMM_WORLD and asserts once, on every rank alike. Every local failure
 * is printed at once on stderr with its rank, so each rank's problem shows.
 *
 * What is here:
 *   - failure collection (tc_ctx, TC_CHECK, tc_end), skips (tc_skip) and
 *     the main() helper;
 *   - a byte pattern that never equals the sentinel TC_SENT, for send
 *     buffers, and TC_SENT for receive buffers, so that holes of a layout
 *     that must stay untouched are checked byte for byte;
 *   - test datatypes with an independent description of their type map,
 *     from which the expected buffers are computed without MPI;
 *   - layouts (counts, displacements and the int limit they are meant for)
 *     built so that they exceed the limit, with holes and empty blocks;
 *   - the rules that say which forced strategy must be refused, from the
 *     library's documented contract;
 *   - statistics checks, an error handler that counts its calls, and a
 *     sparse buffer of several GiB that only uses the pages it touches.
 */
#ifndef TC_COMMON_H
#define TC_COMMON_H

#ifndef _DEFAULT_SOURCE
#define _DEFAULT_SOURCE 1
#endif

#include <check.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "safecoll.h"

/* Largest communicator a layout describes; the suites run with P <= 8. */
#define TC_MAXP 64
/* The collectives with safe versions: SAFECOLL_COLL_GATHERV, SCATTERV,
 * ALLGATHERV and ALLTOALLV, the first values of safecoll_coll. */
#define TC_NVCOLL 4
/* The byte a receive buffer starts with; tc_pat() never yields it. */
#define TC_SENT 0xFE
#define TC_NELEMS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ------------------------------------------------------------ ranks */

static inline int tc_rank(MPI_Comm comm)
{
    int r = -1;
    MPI_Comm_rank(comm, &r);
    return r;
}

/* The root after `root` in a test's loop over roots on p ranks: every
 * one up to 4 ranks; beyond, 0, 1, the middle and the last (the others
 * repeat their cases, and on an oversubscribed machine each root of a
 * strategy matrix costs seconds at P = 8). Returns p or more at the end. */
static inline int tc_next_root(int root, int p)
{
    if (p <= 4 || root + 1 >= p)
        return root + 1;
    if (root < 1)
        return 1;
    return root < p / 2 ? p / 2 : p - 1;
}

/* 1 when a strategy matrix on p ranks leaves out the combination whose
 * outer indices (type kind, root, in place or not, ...) sum to `sum`: up
 * to 4 ranks none; beyond, every second one (an odd sum). Every root still
 * runs with every kind and every in-place setting somewhere: P > 4 is there
 * for deeper trees and far roots, while every combination runs in full at
 * P <= 4, and on an oversubscribed machine the full matrix at P = 8 took a
 * minute of CI per suite. */
static inline int tc_thin(int p, int sum)
{
    return p > 4 && (sum & 1);
}

static inline int tc_size(MPI_Comm comm)
{
    int p = 0;
    MPI_Comm_size(comm, &p);
    return p;
}

static inline int tc_world_p(void)
{
    return tc_size(MPI_COMM_WORLD);
}

static inline int tc_class(int code)
{
    int cls = code;
    if (code != MPI_SUCCESS)
        MPI_Error_class(code, &cls);
    return cls;
}

static inline const char *tc_class_name(int cls)
{
    switch (cls) {
    case MPI_SUCCESS: return "MPI_SUCCESS";
    case MPI_ERR_ARG: return "MPI_ERR_ARG";
    case MPI_ERR_COUNT: return "MPI_ERR_COUNT";
    case MPI_ERR_BUFFER: return "MPI_ERR_BUFFER";
    case MPI_ERR_ROOT: return "MPI_ERR_ROOT";
    case MPI_ERR_TYPE: return "MPI_ERR_TYPE";
    case MPI_ERR_COMM: return "MPI_ERR_COMM";
    case MPI_ERR_RANK: return "MPI_ERR_RANK";
    case MPI_ERR_NO_MEM: return "MPI_ERR_NO_MEM";
    case MPI_ERR_TRUNCATE: return "MPI_ERR_TRUNCATE";
    case MPI_ERR_INTERN: return "MPI_ERR_INTERN";
    case MPI_ERR_UNSUPPORTED_OPERATION: return "MPI_ERR_UNSUPPORTED_OPERATION";
    default: return "another class";
    }
}

/* ------------------------------------------------------------ failures */

typedef struct tc_ctx {
    const char *test;
    int rank;
    int failures;
    double start;
    char first[768];
    char skip[256]; /* why the test, or a part of it, did not run ("": it all ran) */
} tc_ctx;

/* Tests of this run that skipped (tc_end of a test with a skip reason), the
 * same count on every rank; tc_main() reads it. */
static int tc_nskipped;

static inline void tc_begin(tc_ctx *t, const char *test)
{
    memset(t, 0, sizeof *t);
    t->test = test;
    t->rank = tc_rank(MPI_COMM_WORLD);
    t->start = MPI_Wtime();
}

static inline void tc_fail(tc_ctx *t, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static inline void tc_fail(tc_ctx *t, const char *file, int line, const char *fmt, ...)
{
    char msg[640];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (t->failures == 0)
        snprintf(t->first, sizeof t->first, "%s:%d: %s", file, line, msg);
    /* Enough to diagnose, not a flood when a whole matrix fails. */
    if (t->failures < 20)
        fprintf(stderr, "[rank %d] %s: %s:%d: %s\n", t->rank, t->test, file, line, msg);
    t->failures++;
}

#define TC_CHECK(t, cond, ...)                                                                     \
    do {                                                                                           \
        if (!(cond))                                                                               \
            tc_fail((t), __FILE__, __LINE__, __VA_ARGS__);                                         \
    } while (0)

/* Marks test t as skipped, wholly or in part: a precondition of what it
 * tests (a process count, a feature of this MPI, an environment, memory) is
 * missing in this run, so it did not test all that its name says. Every rank
 * must make the same decision (the precondition is global, or agreed on,
 * as tc_sparse_all() does). tc_end() then reports the test as skipped,
 * unless it failed: rank 0 prints "SKIP: <test>: <reason>" on stdout and
 * the test counts in tc_nskipped, never as a pass (tests/README.md). */
static inline void tc_skip_note(tc_ctx *t, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static inline void tc_skip_note(tc_ctx *t, const char *fmt, ...)
{
    va_list ap;

    if (t->skip[0] != '\0')
        return; /* the first reason is the one reported */
    va_start(ap, fmt);
    vsnprintf(t->skip, sizeof t->skip, fmt, ap);
    va_end(ap);
}

/* Sums the failures of every rank and asserts once, the same on all ranks;
 * reports the test as skipped when a reason was noted (tc_skip_note()).
 * Must be called by every rank of MPI_COMM_WORLD at the same point. */
static inline void tc_end(tc_ctx *t)
{
    int local[2] = {t->failures, t->failures ? t->rank : INT_MAX}, sum = 0, who = INT_MAX;

    MPI_Allreduce(&local[0], &sum, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(&local[1], &who, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    /* SAFECOLL_TEST_TIMES=1 shows where the time of a suite goes. */
    if (t->rank == 0 && getenv("SAFECOLL_TEST_TIMES") != NULL)
        fprintf(stderr, "time: %s: %.2f s\n", t->test, MPI_Wtime() - t->start);
    ck_assert_msg(sum == 0,
                  "%s: %d failure(s) over all ranks (first failing rank %d); rank %d has %d%s%s",
                  t->test, sum, who, t->rank, t->failures, t->failures ? ", first: " : "",
                  t->first);
    if (t->skip[0] != '\0') {
        tc_nskipped++;
        if (t->rank == 0) {
            printf("SKIP: %s: %s\n", t->test, t->skip);
            fflush(stdout);
        }
    }
}

/* Ends test t as skipped: `if (p < 3) { tc_skip(&t, "..."); return; }`. */
#define tc_skip(t, ...)                                                                            \
    do {                                                                                           \
        tc_skip_note((t), __VA_ARGS__);                                                            \
        tc_end(t);                                                                                 \
    } while (0)

/* The body of main(): MPI_Init, errors returned rather than fatal, the
 * suite in no-fork mode, one exit status for every rank.
 * SAFECOLL_TEST_THREAD=multiple (a `mpi-env:` line of a suite) initialises
 * with MPI_Init_thread(MPI_THREAD_MULTIPLE) instead; an MPI that does not
 * provide it skips the run, any other value fails it.
 *
 * Exit status: 1 when a test failed on any rank; else 77 (skipped, the
 * automake convention run-mpi.sh reads) when every test of the run skipped
 * (tc_skip) or the run could not start; else 0, the skipped tests of a run
 * that passed being counted by run-mpi.sh from their "SKIP: " lines. */
static inline int tc_main(int argc, char **argv, Suite *(*make_suite)(void))
{
    int rank, failed, ran, any = 0, provided = MPI_THREAD_SINGLE;
    const char *thread = getenv("SAFECOLL_TEST_THREAD");
    SRunner *sr;

    if (thread != NULL && strcmp(thread, "multiple") != 0) {
        fprintf(stderr, "SAFECOLL_TEST_THREAD='%s': only 'multiple' is known\n", thread);
        return 2;
    }
    if (thread != NULL) {
        MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
        if (provided != MPI_THREAD_MULTIPLE) {
            if (tc_rank(MPI_COMM_WORLD) == 0)
                printf("SKIP: every test: MPI provides thread level %d, not "
                       "MPI_THREAD_MULTIPLE\n", provided);
            fflush(stdout);
            MPI_Finalize();
            return 77;
        }
    } else {
        MPI_Init(&argc, &argv);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    rank = tc_rank(MPI_COMM_WORLD);
    sr = srunner_create(make_suite());
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, rank == 0 ? CK_NORMAL : CK_SILENT);
    failed = srunner_ntests_failed(sr);
    ran = srunner_ntests_run(sr);
    if (failed > 0 && rank != 0) {
        TestResult **res = srunner_failures(sr);
        for (int i = 0; i < failed; i++)
            fprintf(stderr, "[rank %d] failed: %s: %s\n", rank, tr_tcname(res[i]),
                    tr_msg(res[i]));
        free(res);
    }
    srunner_free(sr);
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MPI_Finalize();
    if (any)
        return 1;
    return ran > 0 && tc_nskipped >= ran ? 77 : 0;
}

/* Adds the tests to a new test case of suite s (no timeout: Check enforces
 * timeouts only in fork mode; run-mpi.sh times out the whole job). */
static inline void tc_add(Suite *s, const char *name, const TTest *const *tests, int n)
{
    TCase *tc = tcase_create(name);
    for (int i = 0; i < n; i++)
        tcase_add_test(tc, tests[i]);
    suite_add_tcase(s, tc);
}

/* ------------------------------------------------------------ bytes */

/* Byte i of the pattern `seed`: in [1, 249], never TC_SENT, and different
 * for different seeds and neighbouring positions, so that data from the
 * wrong rank, the wrong call or the wrong offset shows. */
static inline unsigned char tc_pat(int seed, size_t i)
{
    uint64_t h = (uint64_t)(unsigned)seed * 131u + (uint64_t)i * 7u + (uint64_t)(i >> 8) * 3u;
    return (unsigned char)(1 + h % 249);
}

static inline void tc_fill(void *buf, size_t n, int seed)
{
    unsigned char *b = buf;
    for (size_t i = 0; i < n; i++)
        b[i] = tc_pat(seed, i);
}

/* Index of the first differing byte, or -1. */
static inline long long tc_diff(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;
    for (size_t i = 0; i < n; i++)
        if (x[i] != y[i])
            return (long long)i;
    return -1;
}

static inline void *tc_alloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL) {
        fprintf(stderr, "out of memory (%zu bytes)\n", n);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

static inline void *tc_dup(const void *src, size_t n)
{
    void *p = tc_alloc(n);
    memcpy(p, src, n);
    return p;
}

static inline void *tc_sent(size_t n)
{
    void *p = tc_alloc(n);
    memset(p, TC_SENT, n);
    return p;
}

/* ------------------------------------------------------------ datatypes */

enum {
    TC_CHAR,     /* MPI_CHAR */
    TC_INT,      /* MPI_INT */
    TC_VEC,      /* vector(2, 1, 3, MPI_INT): ints at bytes 0 and 12, extent 16 */
    TC_RESIZED,  /* one int at byte 8, resized to lb 4, extent 16 */
    TC_STRUCT,   /* {int at 0, double at 8, char at 16}, extent from MPI */
    TC_CONTIG4,  /* contiguous(4, MPI_INT): same signature as 4 MPI_INT */
    TC_VEC2,     /* vector(2, 1, 2, MPI_INT) resized to extent 12: size 8 */
    TC_NKIND
};

/* A datatype and its type map as the tests see it: element k of a buffer
 * holds the bytes [k*extent + off[b], k*extent + off[b] + len[b]), in
 * order b = 0..nblk-1 (the order of the type map). */
typedef struct tc_type {
    int kind;
    const char *name;
    MPI_Datatype type;
    MPI_Aint extent;
    int size;
    int nblk;
    int off[3], len[3];
} tc_type;

static inline void tc_type_make(tc_type *t, int kind)
{
    MPI_Datatype tmp;
    MPI_Aint lb;

    memset(t, 0, sizeof *t);
    t->kind = kind;
    switch (kind) {
    case TC_CHAR:
        t->name = "MPI_CHAR";
        t->type = MPI_CHAR;
        t->nblk = 1, t->off[0] = 0, t->len[0] = 1;
        break;
    case TC_INT:
        t->name = "MPI_INT";
        t->type = MPI_INT;
        t->nblk = 1, t->off[0] = 0, t->len[0] = 4;
        break;
    case TC_VEC:
        t->name = "vector(2,1,3,int)";
        MPI_Type_vector(2, 1, 3, MPI_INT, &t->type);
        t->nblk = 2, t->off[0] = 0, t->len[0] = 4, t->off[1] = 12, t->len[1] = 4;
        break;
    case TC_RESIZED: {
        int one = 1;
        MPI_Aint at = 8;
        MPI_Datatype in = MPI_INT;
        t->name = "resized(int@8,lb=4,extent=16)";
        MPI_Type_create_struct(1, &one, &at, &in, &tmp);
        MPI_Type_create_resized(tmp, 4, 16, &t->type);
        MPI_Type_free(&tmp);
        t->nblk = 1, t->off[0] = 8, t->len[0] = 4;
        break;
    }
    case TC_STRUCT: {
        int lens[3] = {1, 1, 1};
        MPI_Aint at[3] = {0, 8, 16};
        MPI_Datatype in[3] = {MPI_INT, MPI_DOUBLE, MPI_CHAR};
        t->name = "struct{int,double,char}";
        MPI_Type_create_struct(3, lens, at, in, &t->type);
        t->nblk = 3;
        t->off[0] = 0, t->len[0] = 4, t->off[1] = 8, t->len[1] = 8, t->off[2] = 16,
        t->len[2] = 1;
        break;
    }
    case TC_CONTIG4:
        t->name = "contiguous(4,int)";
        MPI_Type_contiguous(4, MPI_INT, &t->type);
        t->nblk = 1, t->off[0] = 0, t->len[0] = 16;
        break;
    case TC_VEC2:
        t->name = "vector(2,1,2,int) resized to 12";
        MPI_Type_vector(2, 1, 2, MPI_INT, &tmp);
        MPI_Type_create_resized(tmp, 0, 12, &t->type);
        MPI_Type_free(&tmp);
        t->nblk = 2, t->off[0] = 0, t->len[0] = 4, t->off[1] = 8, t->len[1] = 4;
        break;
    default:
        abort();
    }
    if (kind != TC_CHAR && kind != TC_INT)
        MPI_Type_commit(&t->type);
    MPI_Type_get_extent(t->type, &lb, &t->extent);
    for (int b = 0; b < t->nblk; b++)
        t->size += t->len[b];
}

static inline void tc_type_free(tc_type *t)
{
    if (t->kind != TC_CHAR && t->kind != TC_INT && t->type != MPI_DATATYPE_NULL)
        MPI_Type_free(&t->type);
    t->type = MPI_DATATYPE_NULL;
}

/* Bytes that `count` elements from element `first` occupy, up to the end
 * of the last block (the buffer must be at least this long). */
static inline size_t tc_type_bytes(const tc_type *t, MPI_Aint first, MPI_Count count)
{
    if (count <= 0)
        return 0;
    return (size_t)((first + count - 1) * t->extent + t->off[t->nblk - 1] +
                    t->len[t->nblk - 1]);
}

/* The bytes of `count` elements of buf starting at element `first`, in the
 * order MPI sends them, appended to out. Returns the number of bytes. */
static inline size_t tc_pack(const tc_type *t, const char *buf, MPI_Aint first, MPI_Count count,
                             unsigned char *out)
{
    size_t n = 0;
    for (MPI_Count k = 0; k < count; k++)
        for (int b = 0; b < t->nblk; b++) {
            memcpy(out + n, buf + (first + k) * t->extent + t->off[b], (size_t)t->len[b]);
            n += (size_t)t->len[b];
        }
    return n;
}

/* The inverse of tc_pack: places a stream into `count` elements. */
static inline void tc_unpack(const tc_type *t, char *buf, MPI_Aint first, MPI_Count count,
                             const unsigned char *in)
{
    size_t n = 0;
    for (MPI_Count k = 0; k < count; k++)
        for (int b = 0; b < t->nblk; b++) {
            memcpy(buf + (first + k) * t->extent + t->off[b], in + n, (size_t)t->len[b]);
            n += (size_t)t->len[b];
        }
}

/* ------------------------------------------------------------ layouts */

enum {
    TC_LAY_GCD,   /* counts and displacements multiples of 16: bigtype fits */
    TC_LAY_GCD1,  /* gcd 1, displacements above the limit: bigtype cannot */
    TC_LAY_BIG,   /* some counts above the limit (segment cannot) */
    TC_LAY_SMALL, /* everything small, limit INT_MAX: no trigger */
    TC_LAY_EMPTY, /* every count 0 */
    TC_NLAY
};

/* Counts and displacements of one side of a call, in elements of that
 * side's type, and the int limit the layout is meant to be run with. */
typedef struct tc_layout {
    int kind;
    const char *name;
    int p;
    MPI_Count limit;
    MPI_Count counts[TC_MAXP];
    MPI_Aint displs[TC_MAXP];
    MPI_Aint span; /* elements the buffer needs */
} tc_layout;

/* The int limit of a layout kind on p ranks. It grows with p so that the
 * number of segments and chunk rounds stays small (2 to 5) at every size:
 * each round is a collective, and the suites run oversubscribed. */
static inline MPI_Count tc_kind_limit(int kind, int p)
{
    const MPI_Count m = (p + 2) / 3;
    switch (kind) {
    case TC_LAY_GCD: return 48 * m;
    case TC_LAY_GCD1: return 16 * m;
    case TC_LAY_BIG: return 8 * m;
    case TC_LAY_EMPTY: return 4;
    default: return INT_MAX;
    }
}

/* The count of block i in a layout of a kind; salt varies it between
 * layouts of the same kind (the blocks of different ranks of alltoallv).
 * Each kind has an empty block once there are enough ranks. */
static inline MPI_Count tc_kind_count(int kind, int p, int i, int salt)
{
    const MPI_Count limit = tc_kind_limit(kind, p);
    switch (kind) {
    case TC_LAY_GCD:
        return (p > 1 && (i + salt) % p == 1) ? 0 : 16 * (1 + (i + salt) % 3);
    case TC_LAY_GCD1:
        return (p > 2 && (i + salt) % p == 2) ? 0 : 3 + (5 * i + 2 * salt) % 11;
    case TC_LAY_BIG:
        if (p > 2 && i == 2)
            return 0;
        return i % 3 == 0 ? limit + 1 + (3 * i + salt) % 13 : 1 + (3 * i + salt) % 4;
    case TC_LAY_SMALL:
        return (p > 1 && (i + salt) % p == 1) ? 0 : 1 + (i + 2 * salt) % 5;
    default:
        return 0;
    }
}

/* Places blocks with the given counts one after the other in the order
 * `order` (0: rank order, 1: reverse, 2: odd ranks first), starting at
 * `start`, each followed by a hole of hole + (rank % 3) * hole_step
 * elements. An empty block gets the current position as displacement. */
static inline void tc_layout_place(tc_layout *l, int p, const MPI_Count counts[], MPI_Aint start,
                                   MPI_Aint hole, MPI_Aint hole_step, int order)
{
    MPI_Aint pos = start;

    l->p = p;
    for (int k = 0; k < p; k++) {
        int i = k;
        if (order == 1)
            i = p - 1 - k;
        else if (order == 2)
            i = k < p / 2 ? 2 * k + 1 : 2 * (k - p / 2);
        l->counts[i] = counts[i];
        l->displs[i] = pos;
        if (counts[i] > 0)
            pos += counts[i] + hole + (i % 3) * hole_step;
    }
    l->span = pos;
}

/* A layout of a kind with the given counts (the kind gives the limit, the
 * start, the holes and the name), blocks placed in `order`. */
static inline void tc_layout_from(tc_layout *l, int kind, int p, const MPI_Count counts[],
                                  int order)
{
    memset(l, 0, sizeof *l);
    l->kind = kind;
    l->limit = tc_kind_limit(kind, p);
    /* The first block starts above the limit, so that even one rank
     * triggers (except for the kinds meant not to). */
    switch (kind) {
    case TC_LAY_GCD:
        l->name = "gcd16";
        tc_layout_place(l, p, counts, l->limit + 16, 48, 0, order);
        break;
    case TC_LAY_GCD1:
        l->name = "gcd1";
        tc_layout_place(l, p, counts, l->limit + 1, 9, 4, order);
        break;
    case TC_LAY_BIG:
        l->name = "bigcounts";
        tc_layout_place(l, p, counts, 5, 2, 1, order);
        break;
    case TC_LAY_SMALL:
        l->name = "small";
        tc_layout_place(l, p, counts, 0, 1, 1, order);
        break;
    case TC_LAY_EMPTY:
        l->name = "empty";
        tc_layout_place(l, p, counts, 7, 0, 0, order);
        break;
    default:
        abort();
    }
}

static inline void tc_layout_make(tc_layout *l, int kind, int p, int salt, int order)
{
    MPI_Count c[TC_MAXP];

    for (int i = 0; i < p; i++)
        c[i] = tc_kind_count(kind, p, i, salt);
    tc_layout_from(l, kind, p, c, order);
}

static inline MPI_Count tc_gcd(MPI_Count a, MPI_Count b)
{
    if (a < 0)
        a = -a;
    if (b < 0)
        b = -b;
    while (b != 0) {
        MPI_Count r = a % b;
        a = b;
        b = r;
    }
    return a;
}

/* The gcd of the counts and displacements of the non-empty blocks (1 when
 * there are none): the library ignores the displacement of an empty block. */
static inline MPI_Count tc_layout_gcd(const tc_layout *l)
{
    MPI_Count g = 0;
    for (int i = 0; i < l->p; i++)
        if (l->counts[i] > 0)
            g = tc_gcd(tc_gcd(g, l->counts[i]), l->displs[i]);
    return g ? g : 1;
}

/* Whether a contiguous type of gcd elements makes the layout fit (the
 * type itself is made with an int count, so the gcd must fit too). */
static inline int tc_bigtype_fits(const tc_layout *l, MPI_Count limit)
{
    MPI_Count g = tc_layout_gcd(l);
    if (g > limit)
        return 0;
    for (int i = 0; i < l->p; i++)
        if (l->counts[i] > 0 &&
            (l->counts[i] / g > limit || (l->displs[i] + l->counts[i]) / g > limit))
            return 0;
    return 1;
}

/* Whether a value of a non-empty block exceeds the limit (a trigger). */
static inline int tc_layout_nofit(const tc_layout *l, MPI_Count limit)
{
    for (int i = 0; i < l->p; i++)
        if (l->counts[i] > 0 && (l->counts[i] > limit || l->displs[i] > limit))
            return 1;
    return 0;
}

static inline int tc_layout_count_over(const tc_layout *l, MPI_Count limit)
{
    for (int i = 0; i < l->p; i++)
        if (l->counts[i] > limit)
            return 1;
    return 0;
}

static inline MPI_Count tc_layout_total(const tc_layout *l)
{
    MPI_Count t = 0;
    for (int i = 0; i < l->p; i++)
        t += l->counts[i];
    return t;
}

/* Number of segments the layout needs at a limit (-1 when a count does not
 * fit), through the library's own public splitter: a premise check that a
 * segment run really makes several sub-collectives. */
static inline int tc_layout_nseg(const tc_layout *l, MPI_Count limit)
{
    int nseg = -1, start[TC_MAXP + 1];
    if (safecoll_displs_segments(l->displs, l->counts, l->p, (MPI_Aint)limit, &nseg, start,
                                 NULL) != MPI_SUCCESS)
        return -1;
    return nseg;
}

/* Number of rounds of the chunk strategy at a limit: windows of `limit`
 * elements, each starting at the first element not yet covered that a
 * block holds (holes cost no rounds). */
static inline int tc_layout_nwin(const tc_layout *l, MPI_Count limit)
{
    MPI_Aint pos = 0;
    int have = 0, n = 0;

    for (int i = 0; i < l->p; i++)
        if (l->counts[i] > 0 && (!have || l->displs[i] < pos))
            pos = l->displs[i], have = 1;
    while (have) {
        MPI_Aint end = pos + (MPI_Aint)limit, next = 0;
        n++;
        have = 0;
        for (int i = 0; i < l->p; i++) {
            MPI_Aint e = l->displs[i] + (MPI_Aint)l->counts[i];
            if (l->counts[i] > 0 && e > end) {
                MPI_Aint cand = l->displs[i] > end ? l->displs[i] : end;
                if (!have || cand < next)
                    next = cand;
                have = 1;
            }
        }
        pos = next;
    }
    return n;
}

static inline void tc_layout_int(const tc_layout *l, int counts[], int displs[])
{
    for (int i = 0; i < l->p; i++) {
        counts[i] = (int)l->counts[i];
        displs[i] = (int)l->displs[i];
    }
}

/* Premises of the layouts: a test that would not exercise what it claims
 * fails instead of passing vacuously. */
static inline void tc_check_premises(tc_ctx *t, const tc_layout *l, int p)
{
    if (l->kind == TC_LAY_EMPTY || l->kind == TC_LAY_SMALL)
        return;
    TC_CHECK(t, tc_layout_nofit(l, l->limit), "%s: the layout does not exceed its limit", l->name);
    if (l->kind == TC_LAY_GCD)
        TC_CHECK(t, tc_bigtype_fits(l, l->limit), "%s: bigtype should apply", l->name);
    if (l->kind == TC_LAY_GCD1)
        TC_CHECK(t, !tc_bigtype_fits(l, l->limit), "%s: bigtype should not apply", l->name);
    if (l->kind != TC_LAY_BIG && p >= 3)
        TC_CHECK(t, tc_layout_nseg(l, l->limit) >= 2, "%s: one segment only", l->name);
    if (p >= 3 || l->kind == TC_LAY_BIG)
        TC_CHECK(t, tc_layout_nwin(l, l->limit) >= 2, "%s: one chunk round only", l->name);
    if (l->kind == TC_LAY_BIG)
        TC_CHECK(t, tc_layout_count_over(l, l->limit), "%s: no count above the limit", l->name);
}

/* ------------------------------------------------------------ strategies */

static inline const char *tc_sname(int s)
{
    const char *n = safecoll_strategy_name((safecoll_strategy)s);
    return n ? n : "?";
}

/* Forces a strategy for one collective and sets the int limit, on every
 * rank alike; tc_config_reset() restores the defaults. */
static inline void tc_config(tc_ctx *t, safecoll_coll coll, int strategy, MPI_Count limit)
{
    TC_CHECK(t, safecoll_strategy_set(coll, (safecoll_strategy)strategy) == MPI_SUCCESS,
             "safecoll_strategy_set(%d, %s) failed", (int)coll, tc_sname(strategy));
    TC_CHECK(t, safecoll_int_limit_set(limit) == MPI_SUCCESS,
             "safecoll_int_limit_set(%lld) failed", (long long)limit);
}

static inline void tc_config_reset(void)
{
    safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_AUTO);
    safecoll_int_limit_set(INT_MAX);
}

/* Whether the MPI library has the MPI-4 large-count calls (MPI_Gatherv_c,
 * ...) that the largecount strategy is made of; the library's own test is
 * the same (SC_HAVE_MPI4 in src/core/core.h). */
#if defined(MPI_VERSION) && MPI_VERSION >= 4
#define TC_HAVE_MPI4 1
#else
#define TC_HAVE_MPI4 0
#endif

/* The library's own strategies (auto to p2p): the suites that force every
 * strategy on a collective loop over these. The equivalents of the
 * performance guidelines that follow them in safecoll_strategy have their
 * own suite, test_equiv.c. */
#define TC_NSTRATEGY SAFECOLL_STRATEGY_GATHER_BCAST

/* Whether strategy s cannot exist with this MPI, so that forcing it must be
 * refused (MPI_ERR_UNSUPPORTED_OPERATION) whatever the call: largecount is
 * the MPI-4 `_c` call, which an MPI-3 library (Open MPI 4.1) does not have. */
static inline int tc_missing(int s)
{
    return s == SAFECOLL_STRATEGY_LARGECOUNT && !TC_HAVE_MPI4;
}

/* tc_missing for one call: on an MPI-3 library allgatherv has largecount
 * all the same, as one int call into a compact image of the blocks, when
 * they fill at most the limit in bytes (`bytes_over` 0; src/avoid/
 * allgather.c). */
static inline int tc_missing_in(safecoll_coll coll, int s, int bytes_over)
{
    const int ag = coll == SAFECOLL_COLL_ALLGATHERV || coll == SAFECOLL_COLL_IALLGATHERV;

    return tc_missing(s) && !(ag && !bytes_over);
}

/* Whether blocks of `counts` elements of size `size` fill more than
 * `limit` bytes (an allgatherv's compact form is refused then). */
static inline int tc_bytes_over(const MPI_Count counts[], int p, MPI_Count size,
                                MPI_Count limit)
{
    MPI_Count t = 0;

    for (int i = 0; i < p; i++)
        t += counts[i];
    return size > 0 && t > limit / size;
}

/* What the contract says a call must do. The caller gives the facts of the
 * call (all ranks must give the same), and gets MPI_SUCCESS or the error
 * class every rank must return. */
typedef struct tc_facts {
    safecoll_coll coll;
    int strategy;       /* forced, or SAFECOLL_STRATEGY_AUTO */
    int trigger;        /* a value above the limit, wrapped displacements, or a known bug */
    int known_bug;      /* MPICH 4.0.2's one-process MPI_Allgatherv ignores displs */
    int bigtype_fits;   /* every layout of the call fits once divided by its gcd */
    int count_over;     /* a count above the limit (segment cannot split it) */
    int sizes_differ;   /* non-empty data of different element sizes (chunk cannot) */
    int send_types_differ; /* allgatherv on Open MPI with a block above the limit: bigtype
                              and segment would send it as one element of a bigger type
                              than the other ranks' (see tc_openmpi) */
    int bytes_over;     /* allgatherv's blocks fill more than the limit in bytes
                           (tc_missing_in) */
} tc_facts;

static inline int tc_expect(const tc_facts *f)
{
    switch (f->strategy) {
    case SAFECOLL_STRATEGY_AUTO:
    case SAFECOLL_STRATEGY_P2P:
        return MPI_SUCCESS;
    case SAFECOLL_STRATEGY_NATIVE:
        return f->trigger ? MPI_ERR_UNSUPPORTED_OPERATION : MPI_SUCCESS;
    case SAFECOLL_STRATEGY_LARGECOUNT:
        return tc_missing_in(f->coll, f->strategy, f->bytes_over) || f->known_bug
                   ? MPI_ERR_UNSUPPORTED_OPERATION
                   : MPI_SUCCESS;
    case SAFECOLL_STRATEGY_BIGTYPE:
        return f->known_bug || f->send_types_differ || !f->bigtype_fits
                   ? MPI_ERR_UNSUPPORTED_OPERATION
                   : MPI_SUCCESS;
    case SAFECOLL_STRATEGY_SEGMENT:
        return f->coll == SAFECOLL_COLL_ALLTOALLV || f->known_bug || f->send_types_differ ||
                       f->count_over
                   ? MPI_ERR_UNSUPPORTED_OPERATION
                   : MPI_SUCCESS;
    case SAFECOLL_STRATEGY_CHUNK:
        return f->known_bug || f->sizes_differ ? MPI_ERR_UNSUPPORTED_OPERATION : MPI_SUCCESS;
    default:
        return MPI_ERR_ARG;
    }
}

/* Whether the MPI library is MPICH 4.0.2, whose MPI_Allgatherv on one
 * process ignores displs: the library routes around it (src/coll/known.c)
 * by refusing the strategies that end in that call. */
static inline int tc_mpich402(void)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    if (MPI_Get_library_version(v, &len) != MPI_SUCCESS)
        return 0;
    return strstr(v, "MPICH Version:\t4.0.2\n") != NULL;
}

/* Whether the MPI library is Open MPI, whose MPI_Allgatherv deadlocks when
 * the ranks' send types differ in size (coll/tuned chooses the algorithm
 * from the local send type): the library refuses bigtype and segment for
 * allgatherv there when a rank's block is above the limit, since they would
 * send it as one element of a type of its whole size (src/coll/known.c). */
static inline int tc_openmpi(void)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;
    if (MPI_Get_library_version(v, &len) != MPI_SUCCESS)
        return 0;
    return strncmp(v, "Open MPI v", 10) == 0;
}

/* ------------------------------------------------------------ statistics */

/* ------------------------------------------------------------ bounds */

/* Adds a bound of the registry: `coll`, class `cls`, `bound`, for type
 * sizes s_min..s_max and the MPI library `mpi` (NULL: any). A record the
 * registry refuses fails the test on every rank alike (the registry is
 * per process and every rank adds the same). */
static inline void tc_bound_add(safecoll_coll coll, safecoll_bound_class cls, MPI_Count bound,
                                int s_min, int s_max, const char *mpi)
{
    safecoll_bound b;

    ck_assert_int_eq(safecoll_bound_init(&b), MPI_SUCCESS);
    b.collective = coll;
    b.cls = cls;
    b.bound = bound;
    b.s_min = s_min;
    b.s_max = s_max;
    if (mpi != NULL)
        snprintf(b.mpi, sizeof b.mpi, "%s", mpi);
    ck_assert_msg(safecoll_bounds_add(&b) == MPI_SUCCESS, "safecoll_bounds_add: %s",
                  safecoll_last_error());
}

static inline safecoll_stats tc_stats(safecoll_coll coll)
{
    safecoll_stats s;
    memset(&s, 0, sizeof s);
    safecoll_stats_get(coll, &s);
    return s;
}

/* Whether a call of coll may decide alone (doc/guide.md, "Deciding
 * alone"; src/coll/pipeline.c, may_decide_alone), from the same settings
 * and registry the library reads: then a rank runs largecount when its own
 * layout triggers and native otherwise, or, where a known bug or a record
 * for this process count makes it agree, the agreed strategy. 0 where it
 * surely agrees. */
static inline int tc_decides_alone(safecoll_coll coll)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    size_t n = 0;
    int len = 0;

#if defined(MPI_VERSION) && MPI_VERSION >= 4
    if (coll != SAFECOLL_COLL_GATHERV && coll != SAFECOLL_COLL_SCATTERV &&
        coll != SAFECOLL_COLL_ALLTOALLV && coll != SAFECOLL_COLL_IGATHERV &&
        coll != SAFECOLL_COLL_ISCATTERV && coll != SAFECOLL_COLL_IALLTOALLV &&
        coll != SAFECOLL_COLL_ALLGATHERV && coll != SAFECOLL_COLL_IALLGATHERV &&
        coll != SAFECOLL_COLL_ALLTOALLW && coll != SAFECOLL_COLL_IALLTOALLW)
        return 0;
#else
    /* An MPI-3 library: allgatherv alone, when its blocks fit the limit
     * in bytes (the compact form); a call past it agrees, for which the
     * checks of an auto call that may decide alone hold as well. */
    if (coll != SAFECOLL_COLL_ALLGATHERV && coll != SAFECOLL_COLL_IALLGATHERV)
        return 0;
#endif
    if (safecoll_agree_get() || safecoll_check_get() ||
        safecoll_strategy_get(coll) != SAFECOLL_STRATEGY_AUTO)
        return 0;
    MPI_Get_library_version(version, &len);
    safecoll_bounds_count(&n);
    for (size_t i = 0; i < n; i++) {
        safecoll_bound b;
        if (safecoll_bounds_get(i, &b) != MPI_SUCCESS || b.collective != coll)
            continue;
        if (b.kind == SAFECOLL_BOUND_PERFORMANCE && !safecoll_perf_bounds_get())
            continue;
        /* A record for some process counts only (the shipped performance
         * records) keeps the call agreeing at those counts: alone or not,
         * the weaker check below holds for both. */
        if (b.p_min > 0 || b.p_max < INT_MAX)
            continue;
        if (b.mpi[0] == '\0' || strstr(version, b.mpi) != NULL)
            return 0;
    }
    return 1;
}

/* Checks what one call added to the counters of coll: one call; on success
 * one execution by the forced strategy (or, for auto, by a non-native one
 * exactly when a trigger was expected); on error one error and no
 * execution. wrapped >= 0 also checks triggered_d. */
/* Whether detector D is counted on this rank for a call whose layout
 * wrapped, with strategy forced (or auto). A call forced to p2p skips the
 * agreement (doc/guide.md, "Deciding alone"), so only a rank that holds
 * the wrapped arrays (`holds`: the root of a gatherv or scatterv) counts
 * it; an agreeing call counts it on every rank. (Auto calls that decide
 * alone are told apart inside tc_check_stats.) */
static inline int tc_d_counted(int strategy, int holds)
{
    return holds || strategy != SAFECOLL_STRATEGY_P2P || safecoll_agree_get() ||
           safecoll_check_get();
}

static inline void tc_check_stats(tc_ctx *t, safecoll_coll coll, const safecoll_stats *before,
                                  int strategy, int ok, int trigger, int wrapped,
                                  const char *label)
{
    safecoll_stats a = tc_stats(coll);
    unsigned long long native, other = 0;
    /* Decided alone: only a rank whose own layout triggers leaves native,
     * for largecount, and only it counts detector D. */
    const int alone = strategy == SAFECOLL_STRATEGY_AUTO && trigger && tc_decides_alone(coll);
    const unsigned long long lc = a.by_strategy[SAFECOLL_STRATEGY_LARGECOUNT] -
                                  before->by_strategy[SAFECOLL_STRATEGY_LARGECOUNT];

    TC_CHECK(t, a.calls == before->calls + 1, "%s: stats calls %llu -> %llu, expected +1", label,
             before->calls, a.calls);
    TC_CHECK(t, a.errors == before->errors + (ok ? 0 : 1), "%s: stats errors %llu -> %llu",
             label, before->errors, a.errors);
    if (wrapped >= 0 && ok && alone)
        wrapped = wrapped && a.by_strategy[SAFECOLL_STRATEGY_NATIVE] ==
                                 before->by_strategy[SAFECOLL_STRATEGY_NATIVE];
    if (wrapped >= 0 && ok)
        TC_CHECK(t, a.triggered_d == before->triggered_d + (unsigned)wrapped,
                 "%s: stats triggered_d %llu -> %llu, expected +%d", label,
                 before->triggered_d, a.triggered_d, wrapped);
    native = a.by_strategy[SAFECOLL_STRATEGY_NATIVE] -
             before->by_strategy[SAFECOLL_STRATEGY_NATIVE];
    for (int s = SAFECOLL_STRATEGY_LARGECOUNT; s < SAFECOLL_NSTRATEGY; s++)
        other += a.by_strategy[s] - before->by_strategy[s];
    if (!ok) {
        TC_CHECK(t, native + other == 0, "%s: a refused call was counted as executed", label);
        return;
    }
    if (strategy != SAFECOLL_STRATEGY_AUTO) {
        TC_CHECK(t, a.by_strategy[strategy] == before->by_strategy[strategy] + 1 &&
                        native + other == 1,
                 "%s: forced %s not counted once (by_strategy[%s] %llu -> %llu, total +%llu)",
                 label, tc_sname(strategy), tc_sname(strategy), before->by_strategy[strategy],
                 a.by_strategy[strategy], native + other);
    } else if (alone) {
        /* largecount, or (a known bug every rank sees, such as MPICH
         * 4.0.2's allgatherv on one process) the agreed strategy. */
        TC_CHECK(t, native + other == 1,
                 "%s: auto deciding alone should run one strategy "
                 "(native +%llu, largecount +%llu, others +%llu)",
                 label, native, lc, other - lc);
    } else if (trigger) {
        TC_CHECK(t, native == 0 && other == 1,
                 "%s: auto above the limit should run a non-native strategy once "
                 "(native +%llu, others +%llu)",
                 label, native, other);
    } else {
        TC_CHECK(t, native == 1 && other == 0,
                 "%s: auto without a trigger should run native (native +%llu, others +%llu)",
                 label, native, other);
    }
}

/* The strategy an auto call ran, from the counters (-1 if none). */
static inline int tc_stats_ran(safecoll_coll coll, const safecoll_stats *before)
{
    safecoll_stats a = tc_stats(coll);
    for (int s = 0; s < SAFECOLL_NSTRATEGY; s++)
        if (a.by_strategy[s] != before->by_strategy[s])
            return s;
    return -1;
}

/* ------------------------------------------------------------ error handler */

/* Invocations of tc_counting_handler since the last tc_handler_reset, and
 * the last code it saw. */
static int tc_handler_calls;
static int tc_handler_code;

static inline void tc_counting_handler(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    tc_handler_calls++;
    tc_handler_code = *code;
}

static inline void tc_handler_reset(void)
{
    tc_handler_calls = 0;
    tc_handler_code = MPI_SUCCESS;
}

/* Installs a counting error handler on comm (it returns, as
 * MPI_ERRORS_RETURN does). */
static inline void tc_handler_install(MPI_Comm comm)
{
    MPI_Errhandler eh;
    MPI_Comm_create_errhandler(tc_counting_handler, &eh);
    MPI_Comm_set_errhandler(comm, eh);
    MPI_Errhandler_free(&eh);
}

/* ------------------------------------------------------------ sparse buffers */

/* A buffer of several GiB of which only touched pages take memory. */
typedef struct tc_sparse {
    char *base;
    size_t len;
} tc_sparse;

#define TC_SPARSE_LEN ((size_t)6 << 30) /* 6 GiB */

/* Maps len bytes, or leaves base NULL (and says why on stderr). */
static inline int tc_sparse_map(tc_sparse *s, size_t len)
{
    void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    s->len = len;
    s->base = p == MAP_FAILED ? NULL : p;
    if (s->base == NULL)
        fprintf(stderr, "[rank %d] note: mmap of %zu bytes failed; sparse test skipped\n",
                tc_rank(MPI_COMM_WORLD), len);
    return s->base != NULL;
}

static inline void tc_sparse_unmap(tc_sparse *s)
{
    if (s->base != NULL)
        munmap(s->base, s->len);
    s->base = NULL;
}

/* Whether every rank of comm has its sparse buffer (need: this rank needs one). */
static inline int tc_sparse_all(tc_ctx *t, MPI_Comm comm, const tc_sparse *s, int need)
{
    int ok = !need || s->base != NULL, all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_LAND, comm);
    if (!all)
        tc_skip_note(t, "no sparse buffer of %zu bytes (mmap failed on a rank): the part "
                        "past INT_MAX did not run", s->len ? s->len : (size_t)TC_SPARSE_LEN);
    return all;
}

/* The true byte offset of block i of p in a sparse buffer of 6 GiB: blocks
 * from 1e9 on (3e9 when alone), at most 1.5e9 apart, the last below 5.9e9,
 * so that from the first block past 2^31 on the int displacements wrap. */
static inline int64_t tc_sparse_offset(int i, int p)
{
    int64_t step;
    if (p == 1)
        return INT64_C(3000000000);
    step = (INT64_C(5900000000) - INT64_C(1000000000)) / (p - 1);
    if (step > INT64_C(1500000000))
        step = INT64_C(1500000000);
    return INT64_C(1000000000) + i * step;
}

/* The int a C program gets from (int)v: the low 32 bits read in two's
 * complement (the cut is made on unsigned types, where C defines it). */
static inline int tc_wrap(int64_t v)
{
    return (int)(int32_t)(uint32_t)(uint64_t)v;
}

/* Guard bytes on both sides of each sparse block. */
#define TC_GUARD 64

/* Resets a block of a sparse buffer and its guards to TC_SENT. */
static inline void tc_sparse_clear(char *base, int64_t off, size_t n)
{
    memset(base + off - TC_GUARD, TC_SENT, n + 2 * TC_GUARD);
}

/* Whether the block holds pattern `seed` and its guards TC_SENT. */
static inline int tc_sparse_ok(const char *base, int64_t off, size_t n, int seed)
{
    const unsigned char *b = (const unsigned char *)base + off;
    for (size_t i = 0; i < TC_GUARD; i++)
        if (b[-(ptrdiff_t)TC_GUARD + (ptrdiff_t)i] != TC_SENT || b[n + i] != TC_SENT)
            return 0;
    for (size_t i = 0; i < n; i++)
        if (b[i] != tc_pat(seed, i))
            return 0;
    return 1;
}

/* ------------------------------------------------------------ stderr capture */

/* Redirects stderr to a temporary file until tc_capture_end, which returns
 * what was written (malloc'ed, NUL-terminated). */
typedef struct tc_capture {
    int saved, fd;
    char path[64];
} tc_capture;

static inline int tc_capture_begin(tc_capture *c)
{
    snprintf(c->path, sizeof c->path, "/tmp/safecoll-test-XXXXXX");
    c->fd = mkstemp(c->path);
    if (c->fd < 0)
        return -1;
    fflush(stderr);
    c->saved = dup(2);
    dup2(c->fd, 2);
    return 0;
}

static inline char *tc_capture_end(tc_capture *c)
{
    char *text;
    off_t n;

    fflush(stderr);
    dup2(c->saved, 2);
    close(c->saved);
    n = lseek(c->fd, 0, SEEK_END);
    text = tc_alloc((size_t)(n > 0 ? n : 0) + 1);
    if (n > 0 && pread(c->fd, text, (size_t)n, 0) != n)
        n = 0;
    text[n > 0 ? n : 0] = '\0';
    close(c->fd);
    unlink(c->path);
    return text;
}

#endif /* TC_COMMON_H */
