/*
 * Unit tests of the trace file format (src/trace/file.c) and the offline
 * analyzer of hand-written collectives (include/safecoll/trace.h), on
 * traces synthesized here with the library's own writer. Every payload is
 * a real byte buffer hashed with the library's CRC-32 (and the additive
 * hash for integers), so that the analyzer's compositions of hashes meet
 * honest hashes. Events are written in an order a real run could produce
 * (a receive after its send, a forward after its receive), with a clock
 * that advances 1 us per event.
 *
 * Cases: paper 001's Fig. 6 (a)-(d); binomial, pipelined and
 * scatter+allgather broadcasts; a ring allgather of Sendrecv steps; a
 * pairwise alltoall; a dissemination barrier; gather, scatter and a sum
 * reduce with kept-data records; a broadcast over half the ranks; a near
 * miss; negatives (halo exchange, master-worker with wildcard receives,
 * equal payloads from different roots at different times) that must give
 * no finding; bad files (truncated, corrupted, wrong version, two job
 * sizes, two recordings) with their errors.
 *
 * With SAFECOLL_TRACE_SYNTH=DIR set, the program writes a sample trace to
 * DIR instead of testing (tests/check-trace.sh runs the CLI on it).
 */
#define _GNU_SOURCE 1

#include <check.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <safecoll/trace.h>

#include "measure.h"
#include "replay.h"
#include "trace.h"
#include "traffic.h"

#define ASSERT_OK(rc) ck_assert_msg((rc) == MPI_SUCCESS, "rc %d: %s", (rc), safecoll_last_error())

/* Writing the sample for the CLI check runs outside Check: an error ends
 * the program with its message. */
static int synth_mode;
#define WRITE_OK(rc)                                                                          \
    do {                                                                                      \
        int rc_ = (rc);                                                                       \
        if (synth_mode && rc_ != MPI_SUCCESS) {                                               \
            fprintf(stderr, "test_trace: %s\n", safecoll_last_error());                        \
            exit(1);                                                                          \
        }                                                                                     \
        if (!synth_mode)                                                                      \
            ASSERT_OK(rc_);                                                                   \
    } while (0)

enum { MAXP = 100 };

/* ---------------------------------------------------------------- synthesis */

typedef struct syn {
    sc__tc_writer *w[MAXP];
    int P;
    int64_t t;
} syn;

static char scratch[256];

static void mkscratch(void)
{
    snprintf(scratch, sizeof scratch, "%s/sc-trace.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(scratch));
}

static void syn_open_in(syn *s, const char *dir, int P, uint64_t id)
{
    s->P = P;
    s->t = 0;
    for (int r = 0; r < P; r++)
        WRITE_OK(sc__tc_writer_open(&s->w[r], dir, r, P, id, 1000000000ll));
}

static void syn_open(syn *s, int P)
{
    mkscratch();
    syn_open_in(s, scratch, P, 0x5eed0001ull);
}

static void syn_close(syn *s)
{
    for (int r = 0; r < s->P; r++)
        ASSERT_OK(sc__tc_writer_close(s->w[r]));
}

/* One event of rank `rank`: the payload's CRC-32 (and additive hash for
 * integer elements of elem bytes) computed from the bytes. */
static void ev(syn *s, int kind, int rank, int peer, const void *buf, size_t len, int elem,
               const char *site)
{
    sc__tc_rec r;
    memset(&r, 0, sizeof r);
    r.kind = (uint8_t)kind;
    r.peer = peer;
    r.tag = 7;
    r.elem = (uint8_t)elem;
    r.crc = sc__rp_crc(0, buf, len);
    r.sumh = elem ? sc__tc_sum_hash(buf, len, elem) : 0;
    r.ends = sc__tc_ends_hash(buf, len);
    r.dtype = (uint32_t)elem;
    r.bytes = (int64_t)len;
    s->t += 1000;
    r.t_ns = s->t;
    r.site = site ? sc__tc_writer_site(s->w[rank], site) : 0;
    WRITE_OK(sc__tc_writer_add(s->w[rank], &r));
}

static void SEND(syn *s, int src, int dst, const void *b, size_t n, const char *site)
{
    ev(s, SC_TC_SEND, src, dst, b, n, 0, site);
}
static void RECV(syn *s, int dst, int src, const void *b, size_t n, const char *site)
{
    ev(s, SC_TC_RECV, dst, src, b, n, 0, site);
}
static void MSG(syn *s, int src, int dst, const void *b, size_t n, const char *site)
{
    SEND(s, src, dst, b, n, site);
    RECV(s, dst, src, b, n, site);
}

/* A buffer of len bytes from a seed (never all zero). */
static unsigned char *pat(unsigned char *buf, size_t len, uint32_t seed)
{
    uint32_t x = seed * 2654435761u + 12345u;
    for (size_t i = 0; i < len; i++) {
        x = x * 1103515245u + 12345u;
        buf[i] = (unsigned char)(x >> 16);
    }
    return buf;
}

static safecoll_trace_report *analyze(void)
{
    safecoll_trace_report *rep = NULL;
    ASSERT_OK(safecoll_trace_analyze(scratch, NULL, &rep));
    ck_assert_ptr_nonnull(rep);
    return rep;
}

static void dump(const safecoll_trace_report *rep)
{
    safecoll_trace_report_print(rep, stdout);
    fflush(stdout);
}

/* The finding of kind and root (root -2: any), or NULL. */
static const safecoll_trace_finding *find(const safecoll_trace_report *rep,
                                          safecoll_trace_kind kind, int root)
{
    for (int i = 0; i < safecoll_trace_report_count(rep); i++) {
        const safecoll_trace_finding *f = safecoll_trace_report_finding(rep, i);
        if (f->kind == kind && (root == -2 || f->root == root))
            return f;
    }
    return NULL;
}

/* Exactly one finding, of kind and root, a whole match. */
static const safecoll_trace_finding *only(const safecoll_trace_report *rep,
                                          safecoll_trace_kind kind, int root)
{
    if (safecoll_trace_report_count(rep) != 1)
        dump(rep);
    ck_assert_int_eq(safecoll_trace_report_count(rep), 1);
    const safecoll_trace_finding *f = safecoll_trace_report_finding(rep, 0);
    ck_assert_str_eq(safecoll_trace_kind_name(f->kind), safecoll_trace_kind_name(kind));
    ck_assert_int_eq(f->root, root);
    ck_assert_int_eq(f->near, 0);
    return f;
}

static void rmscratch(void)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch);
    ck_assert_int_eq(system(cmd), 0);
}

/* ---------------------------------------------------------------- format */

START_TEST(format_round_trip)
{
    syn s;
    sc__tc_file f;
    char path[512];
    unsigned char b[100];
    int n = 3000; /* three blocks */

    syn_open(&s, 2);
    for (int i = 0; i < n; i++) {
        char site[32];
        snprintf(site, sizeof site, "app.c:%d", 10 + i % 5);
        ev(&s, i % 3 == 2 ? SC_TC_SELF : SC_TC_SEND, 1, i % 3 == 2 ? 1 : 0, pat(b, 100, i),
           (size_t)(i % 100), i % 3 == 2 ? 4 : 0, site);
    }
    syn_close(&s);
    snprintf(path, sizeof path, "%s/trace.1", scratch);
    ASSERT_OK(sc__tc_read(path, &f));
    ck_assert_int_eq((int)f.n, n);
    ck_assert_int_eq(f.nprocs, 2);
    ck_assert_int_eq(f.rank, 1);
    ck_assert_uint_eq(f.id, 0x5eed0001ull);
    ck_assert_uint_eq(f.nsites, 6); /* ids 1..5 */
    for (int i = 0; i < n; i++) {
        const sc__tc_rec *r = &f.recs[i];
        char site[32];
        snprintf(site, sizeof site, "app.c:%d", 10 + i % 5);
        ck_assert_uint_eq(r->seq, (uint64_t)i);
        ck_assert_int_eq(r->kind, i % 3 == 2 ? SC_TC_SELF : SC_TC_SEND);
        ck_assert_int_eq(r->bytes, i % 100);
        ck_assert_uint_eq(r->crc, sc__rp_crc(0, pat(b, 100, i), (size_t)(i % 100)));
        ck_assert_str_eq(f.sites[r->site], site);
    }
    sc__tc_file_free(&f);
    rmscratch();
}
END_TEST

/* The CRC-32 of pieces composes to the CRC of their concatenation; the
 * additive hash of an element-wise sum is the sum of hashes. */
START_TEST(hashes_compose)
{
    unsigned char a[300], b[77], ab[377];
    int32_t x[16], y[16], z[16];

    pat(a, sizeof a, 1);
    pat(b, sizeof b, 2);
    memcpy(ab, a, sizeof a);
    memcpy(ab + sizeof a, b, sizeof b);
    ck_assert_uint_eq(sc__tc_crc_concat(sc__rp_crc(0, a, sizeof a), sc__rp_crc(0, b, sizeof b),
                                        sizeof b),
                      sc__rp_crc(0, ab, sizeof ab));
    for (int i = 0; i < 16; i++) {
        x[i] = INT32_MAX - i;
        y[i] = 1000 * i + 3;
        z[i] = (int32_t)((uint32_t)x[i] + (uint32_t)y[i]);
    }
    ck_assert_uint_eq(sc__tc_sum_hash(x, sizeof x, 4) + sc__tc_sum_hash(y, sizeof y, 4),
                      sc__tc_sum_hash(z, sizeof z, 4));
    /* Moving elements changes it. */
    int32_t w[16];
    memcpy(w, x, sizeof w);
    w[0] = x[1];
    w[1] = x[0];
    ck_assert_uint_ne(sc__tc_sum_hash(w, sizeof w, 4), sc__tc_sum_hash(x, sizeof x, 4));
}
END_TEST


/* The recorder's one pass over a payload gives the CRC-32 and the additive
 * hash of the two separate passes, for every element size, at sizes
 * around its pieces' (8 KiB) and with a partial last element. */
START_TEST(crc_and_sum_in_one_pass)
{
    static const size_t sizes[] = {0, 1, 7, 8, 8191, 8192, 8193, 3 * 8192 + 5, 65536, 65539};
    static const int elems[] = {0, 1, 2, 4, 8};
    static uint64_t store[65539 / 8 + 1];
    unsigned char *buf = (unsigned char *)store;

    pat(buf, 65539, 3);
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        for (size_t e = 0; e < sizeof elems / sizeof elems[0]; e++) {
            uint32_t sumh = 1;
            const uint32_t crc = sc__tc_crc_sum(buf, sizes[i], elems[e], &sumh);
            ck_assert_uint_eq(crc, sc__rp_crc(0, buf, sizes[i]));
            ck_assert_uint_eq(sumh, sc__tc_sum_hash(buf, sizes[i], elems[e]));
        }
    /* The additive hash itself is that of traces written before (values of
     * version 0.1.0's sc__tc_sum_hash). */
    for (int i = 0; i < 20000; i++)
        buf[i] = (unsigned char)(i * 131 + 7);
    ck_assert_uint_eq(sc__tc_sum_hash(buf, 20000, 2), 0xc5f00000u);
    ck_assert_uint_eq(sc__tc_sum_hash(buf, 20000, 4), 0xf12e4e30u);
    ck_assert_uint_eq(sc__tc_sum_hash(buf, 19997, 8), 0x421a00c7u);
}
END_TEST


/* Matching: two receives of one channel completed in the other order than
 * posted (Irecv, Irecv, Waitall) still pair with their sends by payload;
 * a receive of a payload no send carries and a send nobody receives stay
 * unmatched. */
START_TEST(matching_out_of_order)
{
    syn s;
    unsigned char A[32], B[32], C[32], D[32];

    syn_open(&s, 3);
    pat(A, 32, 1);
    pat(B, 32, 2);
    pat(C, 32, 3);
    pat(D, 32, 4);
    SEND(&s, 0, 1, A, 32, "m.c:1");
    SEND(&s, 0, 1, B, 32, "m.c:1");
    RECV(&s, 1, 0, B, 32, "m.c:2");
    RECV(&s, 1, 0, A, 32, "m.c:2");
    RECV(&s, 2, 0, C, 32, "m.c:3"); /* never sent */
    SEND(&s, 0, 2, D, 32, "m.c:4"); /* never received */
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    long events, msgs, unmatched;
    ASSERT_OK(safecoll_trace_report_stats(rep, NULL, &events, &msgs, &unmatched, NULL));
    ck_assert_int_eq(events, 6);
    ck_assert_int_eq(msgs, 2);
    ck_assert_int_eq(unmatched, 2);
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST


/* Thousands of channels (100 ranks, random pairs and tags): every message
 * matched, whatever the channel table's growth. */
START_TEST(matching_many_channels)
{
    syn s;
    unsigned char b[16];
    uint32_t x = 777;

    mkscratch();
    s.P = 100;
    s.t = 0;
    for (int r = 0; r < 100; r++)
        ASSERT_OK(sc__tc_writer_open(&s.w[r], scratch, r, 100, 9, 0));
    for (int i = 0; i < 5000; i++) {
        x = x * 1103515245u + 12345u;
        int src = (int)((x >> 4) % 100), dst = (int)((x >> 12) % 99);
        dst = dst >= src ? dst + 1 : dst;
        sc__tc_rec r;
        memset(&r, 0, sizeof r);
        pat(b, sizeof b, (uint32_t)i);
        r.crc = sc__rp_crc(0, b, sizeof b);
        r.ends = sc__tc_ends_hash(b, sizeof b);
        r.bytes = sizeof b;
        r.tag = (int32_t)((x >> 24) % 3);
        r.kind = SC_TC_SEND;
        r.peer = dst;
        r.t_ns = (s.t += 1000);
        ASSERT_OK(sc__tc_writer_add(s.w[src], &r));
        r.kind = SC_TC_RECV;
        r.peer = src;
        r.t_ns = (s.t += 1000);
        ASSERT_OK(sc__tc_writer_add(s.w[dst], &r));
    }
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    long msgs, unmatched;
    ASSERT_OK(safecoll_trace_report_stats(rep, NULL, NULL, &msgs, &unmatched, NULL));
    ck_assert_int_eq(msgs, 5000);
    ck_assert_int_eq(unmatched, 0);
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST

/* ---------------------------------------------------------------- Fig. 6 */

/* (a) A linear broadcast 0 -> 1 -> 2 -> 3 among noise. */
START_TEST(fig6a_linear_with_noise)
{
    syn s;
    unsigned char X[256], n1[256], n2[64], n3[256];

    syn_open(&s, 4);
    pat(X, sizeof X, 42);
    MSG(&s, 3, 0, pat(n1, sizeof n1, 1), sizeof n1, "noise.c:1");
    MSG(&s, 0, 1, X, sizeof X, "bcast.c:10");
    MSG(&s, 2, 1, pat(n2, sizeof n2, 2), sizeof n2, "noise.c:2");
    MSG(&s, 1, 2, X, sizeof X, "bcast.c:20");
    MSG(&s, 0, 3, pat(n3, sizeof n3, 3), sizeof n3, "noise.c:3");
    MSG(&s, 2, 3, X, sizeof X, "bcast.c:20");
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    const safecoll_trace_finding *f = only(rep, SAFECOLL_TRACE_BCAST, 0);
    ck_assert_int_eq(f->whole, 1);
    ck_assert_int_eq(f->nranks, 4);
    ck_assert_int_eq(f->bytes, 256);
    ck_assert_int_eq(f->messages, 3);
    ck_assert_int_eq(f->occurrences, 1);
    ck_assert_int_eq(f->nsites, 2);
    ck_assert_str_eq(f->sites[0], "bcast.c:10");
    ck_assert_str_eq(f->sites[1], "bcast.c:20");
    ck_assert_str_eq(f->call, "MPI_Bcast(buf, 256, MPI_BYTE, 0, MPI_COMM_WORLD)");
    ck_assert_ptr_null(f->split);
    ck_assert_double_gt(f->seconds, 0);
    /* 12 events 1 us apart: 11 us traced; the broadcast from its first
     * send (event 3) to its last receive (event 12): 9 us. */
    double traced;
    ASSERT_OK(safecoll_trace_report_stats(rep, NULL, NULL, NULL, NULL, &traced));
    ck_assert_double_eq_tol(traced, 11e-6, 1e-12);
    ck_assert_double_eq_tol(f->seconds, 9e-6, 1e-12);
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST

/* (b) A redundant message: 0 and 1 both own X and exchange it (as
 * Sendrecv: both send, then both receive), then 1 -> 2 -> 3. Either could
 * be the root: both reported. */
START_TEST(fig6b_two_roots)
{
    syn s;
    unsigned char X[128];

    syn_open(&s, 4);
    pat(X, sizeof X, 7);
    SEND(&s, 0, 1, X, sizeof X, "x.c:1");
    SEND(&s, 1, 0, X, sizeof X, "x.c:1");
    RECV(&s, 0, 1, X, sizeof X, "x.c:1");
    RECV(&s, 1, 0, X, sizeof X, "x.c:1");
    MSG(&s, 1, 2, X, sizeof X, "x.c:2");
    MSG(&s, 2, 3, X, sizeof X, "x.c:2");
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    if (safecoll_trace_report_count(rep) != 2)
        dump(rep);
    ck_assert_int_eq(safecoll_trace_report_count(rep), 2);
    const safecoll_trace_finding *f0 = find(rep, SAFECOLL_TRACE_BCAST, 0);
    const safecoll_trace_finding *f1 = find(rep, SAFECOLL_TRACE_BCAST, 1);
    ck_assert_ptr_nonnull(f0);
    ck_assert_ptr_nonnull(f1);
    ck_assert_int_eq(f0->whole, 1);
    ck_assert_int_eq(f1->whole, 1);
    ck_assert_int_eq(f0->alternatives, 1);
    ck_assert_int_eq(f1->alternatives, 1);
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST

/* (c) The same broadcast (same payload, same code) twice: one finding,
 * two occurrences. */
START_TEST(fig6c_repeated)
{
    syn s;
    unsigned char X[64];

    syn_open(&s, 4);
    pat(X, sizeof X, 9);
    for (int rep = 0; rep < 2; rep++)
        for (int r = 0; r < 3; r++)
            MSG(&s, r, r + 1, X, sizeof X, "chain.c:5");
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    const safecoll_trace_finding *f = only(rep, SAFECOLL_TRACE_BCAST, 0);
    ck_assert_int_eq(f->occurrences, 2);
    ck_assert_int_eq(f->messages, 6);
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST

/* (d) Nested: rank 0 broadcasts its Y, then passes a token to each rank in
 * turn, whose owner broadcasts its own Y. The outer (token) broadcast and
 * each inner one are reported; the inner ones follow one another, so they
 * are not an allgather. */
START_TEST(fig6d_nested)
{
    syn s;
    unsigned char T[8], Y[4][96];

    syn_open(&s, 4);
    pat(T, sizeof T, 100);
    for (int k = 0; k < 4; k++) {
        pat(Y[k], sizeof Y[k], 200 + k);
        if (k > 0)
            MSG(&s, 0, k, T, sizeof T, "token.c:3");
        for (int r = 0; r < 4; r++)
            if (r != k)
                MSG(&s, k, r, Y[k], sizeof Y[k], "inner.c:9");
    }
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    if (safecoll_trace_report_count(rep) != 5)
        dump(rep);
    ck_assert_int_eq(safecoll_trace_report_count(rep), 5);
    for (int k = 0; k < 4; k++) {
        int found = 0;
        for (int i = 0; i < 5; i++) {
            const safecoll_trace_finding *f = safecoll_trace_report_finding(rep, i);
            ck_assert_int_eq(f->kind, SAFECOLL_TRACE_BCAST);
            ck_assert_int_eq(f->whole, 1);
            found += f->root == k && f->bytes == 96;
        }
        ck_assert_int_eq(found, 1);
    }
    const safecoll_trace_finding *t = NULL;
    for (int i = 0; i < 5; i++)
        if (safecoll_trace_report_finding(rep, i)->bytes == 8)
            t = safecoll_trace_report_finding(rep, i);
    ck_assert_ptr_nonnull(t);
    ck_assert_int_eq(t->root, 0);
    ck_assert_int_eq(t->nsites, 1);
    ck_assert_str_eq(t->sites[0], "token.c:3");
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST

/* ---------------------------------------------------------------- broadcasts */

/* MPICH's binomial tree from root over P ranks (relative ranks). */
static void binomial(syn *s, int P, int root, const unsigned char *X, size_t n,
                     const int *map)
{
    /* Parents first: a rank sends after its receipt. Rank order by the
     * level at which each receives (relative rank's lowest set bit). */
    for (int mask = 1 << 20; mask > 0; mask >>= 1)
        for (int rel = 0; rel < P; rel++) {
            /* rel sends to rel + mask when mask is below rel's lowest bit. */
            int low = rel == 0 ? 1 << 21 : rel & -rel;
            if (mask < low && rel + mask < P) {
                int from = (rel + root) % P, to = (rel + mask + root) % P;
                MSG(s, map ? map[from] : from, map ? map[to] : to, X, n, "tree.c:42");
            }
        }
}

START_TEST(binomial_bcast)
{
    syn s;
    unsigned char X[4096];

    syn_open(&s, 8);
    binomial(&s, 8, 3, pat(X, sizeof X, 5), sizeof X, NULL);
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    const safecoll_trace_finding *f = only(rep, SAFECOLL_TRACE_BCAST, 3);
    ck_assert_int_eq(f->whole, 1);
    ck_assert_int_eq(f->messages, 7);
    ck_assert_int_eq(f->bytes, 4096);
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST

/* A chain 0 -> 1 -> ... -> 7 of 4 segments, each forwarded as it comes:
 * one broadcast of the whole buffer. */
START_TEST(pipelined_bcast)
{
    syn s;
    enum { SEG = 4, SB = 512 };
    unsigned char X[SEG][SB];

    syn_open(&s, 8);
    for (int g = 0; g < SEG; g++)
        pat(X[g], SB, 300 + g);
    for (int step = 0; step < SEG + 8 - 2; step++)
        for (int i = 0; i < 7; i++) {
            int g = step - i;
            if (g >= 0 && g < SEG)
                MSG(&s, i, i + 1, X[g], SB, "pipe.c:17");
        }
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    const safecoll_trace_finding *f = only(rep, SAFECOLL_TRACE_BCAST, 0);
    ck_assert_int_eq(f->bytes, SEG * SB);
    ck_assert_int_eq(f->messages, SEG * 7);
    ck_assert_int_eq(f->occurrences, 1);
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST

/* A ring allgather of P blocks, each step a Sendrecv (both sends posted,
 * then both receives complete). blocks[j] starts at rank owner(j). */
static void ring(syn *s, int P, unsigned char (*blk)[64], const char *site)
{
    for (int k = 0; k < P - 1; k++) {
        for (int j = 0; j < P; j++)
            SEND(s, j, (j + 1) % P, blk[((j - k) % P + P) % P], 64, site);
        for (int j = 0; j < P; j++)
            RECV(s, j, (j + P - 1) % P, blk[((j - 1 - k) % P + P) % P], 64, site);
    }
}

START_TEST(scatter_allgather_bcast)
{
    syn s;
    unsigned char blk[8][64];

    syn_open(&s, 8);
    for (int j = 0; j < 8; j++)
        pat(blk[j], 64, 400 + j);
    for (int j = 1; j < 8; j++)
        MSG(&s, 0, j, blk[j], 64, "sa.c:1");
    ring(&s, 8, blk, "sa.c:2");
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    const safecoll_trace_finding *f = only(rep, SAFECOLL_TRACE_BCAST, 0);
    ck_assert_int_eq(f->bytes, 8 * 64);
    ck_assert_int_eq(f->whole, 1);
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST

START_TEST(ring_allgather)
{
    syn s;
    unsigned char blk[8][64];

    syn_open(&s, 8);
    for (int j = 0; j < 8; j++)
        pat(blk[j], 64, 500 + j);
    ring(&s, 8, blk, "ring.c:30");
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    const safecoll_trace_finding *f = only(rep, SAFECOLL_TRACE_ALLGATHER, -1);
    ck_assert_int_eq(f->bytes, 64);
    ck_assert_int_eq(f->whole, 1);
    ck_assert_int_eq(f->messages, 8 * 7);
    ck_assert_str_eq(f->call,
                     "MPI_Allgather(sendbuf, 64, MPI_BYTE, recvbuf, 64, MPI_BYTE, MPI_COMM_WORLD)");
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST

START_TEST(pairwise_alltoall)
{
    syn s;
    unsigned char b[32];

    syn_open(&s, 8);
    for (int k = 1; k < 8; k++) {
        for (int i = 0; i < 8; i++)
            SEND(&s, i, (i + k) % 8, pat(b, 32, 1000 + 8 * i + (i + k) % 8), 32, "a2a.c:8");
        for (int i = 0; i < 8; i++) {
            int from = (i + 8 - k) % 8;
            RECV(&s, i, from, pat(b, 32, 1000 + 8 * from + i), 32, "a2a.c:9");
        }
    }
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    const safecoll_trace_finding *f = only(rep, SAFECOLL_TRACE_ALLTOALL, -1);
    ck_assert_int_eq(f->bytes, 32);
    ck_assert_int_eq(f->messages, 56);
    ck_assert_int_eq(f->nsites, 2);
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST

START_TEST(dissemination_barrier)
{
    syn s;

    syn_open(&s, 8);
    for (int rep = 0; rep < 2; rep++)
        for (int k = 1; k < 8; k *= 2) {
            for (int i = 0; i < 8; i++)
                SEND(&s, i, (i + k) % 8, "", 0, "bar.c:4");
            for (int i = 0; i < 8; i++)
                RECV(&s, i, (i + 8 - k) % 8, "", 0, "bar.c:5");
        }
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    const safecoll_trace_finding *f = only(rep, SAFECOLL_TRACE_BARRIER, -1);
    ck_assert_int_eq(f->occurrences, 2);
    ck_assert_int_eq(f->messages, 2 * 3 * 8);
    ck_assert_str_eq(f->call, "MPI_Barrier(MPI_COMM_WORLD)");
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST


/* A dissemination barrier among the even ranks of 8 (a subset). */
START_TEST(barrier_over_subset)
{
    syn s;

    syn_open(&s, 8);
    for (int k = 1; k < 4; k *= 2) {
        for (int i = 0; i < 4; i++)
            SEND(&s, 2 * i, 2 * ((i + k) % 4), "", 0, "sub.c:4");
        for (int i = 0; i < 4; i++)
            RECV(&s, 2 * i, 2 * ((i + 4 - k) % 4), "", 0, "sub.c:5");
    }
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    const safecoll_trace_finding *f = only(rep, SAFECOLL_TRACE_BARRIER, -1);
    ck_assert_int_eq(f->whole, 0);
    ck_assert_int_eq(f->nranks, 4);
    ck_assert_str_eq(f->call, "MPI_Barrier(comm)");
    ck_assert_str_eq(f->split, "MPI_Comm_split(MPI_COMM_WORLD, rank % 2 == 0 ? 0 : "
                               "MPI_UNDEFINED, rank, &comm)");
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST

/* ---------------------------------------------------------------- with kept data */

START_TEST(gather_with_self)
{
    syn s;
    unsigned char b[8][48];

    syn_open(&s, 8);
    for (int i = 0; i < 8; i++)
        pat(b[i], 48, 600 + i);
    ev(&s, SC_TC_SELF, 2, 2, b[2], 48, 0, "gather.c:11");
    for (int i = 0; i < 8; i++)
        if (i != 2)
            MSG(&s, i, 2, b[i], 48, "gather.c:12");
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    const safecoll_trace_finding *f = only(rep, SAFECOLL_TRACE_GATHER, 2);
    ck_assert_int_eq(f->bytes, 48);
    ck_assert_int_eq(f->whole, 1);
    ck_assert_int_eq(f->nsites, 2);
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST

START_TEST(gather_needs_self)
{
    syn s;
    unsigned char b[8][48];

    syn_open(&s, 8);
    for (int i = 0; i < 8; i++)
        if (i != 2)
            MSG(&s, i, 2, pat(b[i], 48, 600 + i), 48, "gather.c:12");
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    ck_assert_int_eq(safecoll_trace_report_count(rep), 0);
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST

START_TEST(scatter_with_self)
{
    syn s;
    unsigned char b[8][40];

    syn_open(&s, 8);
    for (int i = 0; i < 8; i++)
        pat(b[i], 40, 700 + i);
    ev(&s, SC_TC_SELF, 5, 5, b[5], 40, 0, "scatter.c:3");
    for (int i = 0; i < 8; i++)
        if (i != 5)
            MSG(&s, 5, i, b[i], 40, "scatter.c:4");
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    const safecoll_trace_finding *f = only(rep, SAFECOLL_TRACE_SCATTER, 5);
    ck_assert_str_eq(f->call,
                     "MPI_Scatter(sendbuf, 40, MPI_BYTE, recvbuf, 40, MPI_BYTE, 5, MPI_COMM_WORLD)");
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST

START_TEST(sum_reduce_with_self)
{
    syn s;
    int32_t v[8][16], sum[16];

    syn_open(&s, 8);
    memset(sum, 0, sizeof sum);
    for (int i = 0; i < 8; i++)
        for (int e = 0; e < 16; e++) {
            v[i][e] = (int32_t)(i * 1000003 + e * 7919 - 50000);
            sum[e] = (int32_t)((uint32_t)sum[e] + (uint32_t)v[i][e]);
        }
    ev(&s, SC_TC_SELF, 0, 0, v[0], sizeof v[0], 4, "reduce.c:20");
    for (int i = 1; i < 8; i++) {
        ev(&s, SC_TC_SEND, i, 0, v[i], sizeof v[i], 4, "reduce.c:21");
        ev(&s, SC_TC_RECV, 0, i, v[i], sizeof v[i], 4, "reduce.c:22");
    }
    ev(&s, SC_TC_SELF, 0, 0, sum, sizeof sum, 4, "reduce.c:25");
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    const safecoll_trace_finding *f = only(rep, SAFECOLL_TRACE_REDUCE, 0);
    ck_assert_str_eq(f->call, "MPI_Reduce(sendbuf, recvbuf, 16, MPI_INT32_T, MPI_SUM, 0, "
                              "MPI_COMM_WORLD)");
    ck_assert_int_eq(f->nsites, 4);
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST

/* A wrong result (one element off) is no reduce: a gather at most. */
START_TEST(reduce_wrong_result)
{
    syn s;
    int32_t v[8][16], sum[16];

    syn_open(&s, 8);
    memset(sum, 0, sizeof sum);
    for (int i = 0; i < 8; i++)
        for (int e = 0; e < 16; e++) {
            v[i][e] = i * 31 + e;
            sum[e] += v[i][e];
        }
    sum[3]++;
    ev(&s, SC_TC_SELF, 0, 0, v[0], sizeof v[0], 4, "reduce.c:20");
    for (int i = 1; i < 8; i++) {
        ev(&s, SC_TC_SEND, i, 0, v[i], sizeof v[i], 4, "reduce.c:21");
        ev(&s, SC_TC_RECV, 0, i, v[i], sizeof v[i], 4, "reduce.c:22");
    }
    ev(&s, SC_TC_SELF, 0, 0, sum, sizeof sum, 4, "reduce.c:25");
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    ck_assert_ptr_null(find(rep, SAFECOLL_TRACE_REDUCE, -2));
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST


/* A sum reduce to 0 whose result 0 then broadcasts (binomial): allreduce. */
START_TEST(allreduce_reduce_then_bcast)
{
    syn s;
    int64_t v[8][8], sum[8];

    syn_open(&s, 8);
    memset(sum, 0, sizeof sum);
    for (int i = 0; i < 8; i++)
        for (int e = 0; e < 8; e++) {
            v[i][e] = (int64_t)i * 123456789012ll - e;
            sum[e] += v[i][e];
        }
    ev(&s, SC_TC_SELF, 0, 0, v[0], sizeof v[0], 8, "allred.c:1");
    for (int i = 1; i < 8; i++) {
        ev(&s, SC_TC_SEND, i, 0, v[i], sizeof v[i], 8, "allred.c:2");
        ev(&s, SC_TC_RECV, 0, i, v[i], sizeof v[i], 8, "allred.c:3");
    }
    ev(&s, SC_TC_SELF, 0, 0, sum, sizeof sum, 8, "allred.c:4");
    binomial(&s, 8, 0, (const unsigned char *)sum, sizeof sum, NULL);
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    const safecoll_trace_finding *f = only(rep, SAFECOLL_TRACE_ALLREDUCE, 0);
    ck_assert_str_eq(f->call, "MPI_Allreduce(sendbuf, recvbuf, 8, MPI_INT64_T, MPI_SUM, "
                              "MPI_COMM_WORLD)");
    ck_assert_int_eq(f->messages, 14);
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST

/* An exclusive-or reduce of bytes (even and odd operand counts). */
START_TEST(bxor_reduce)
{
    for (int P = 5; P <= 6; P++) {
        syn s;
        unsigned char v[8][37], x[37];

        syn_open(&s, P);
        memset(x, 0, sizeof x);
        for (int i = 0; i < P; i++) {
            pat(v[i], sizeof v[i], 900 + i);
            for (int e = 0; e < 37; e++)
                x[e] ^= v[i][e];
        }
        ev(&s, SC_TC_SELF, 1, 1, v[1], sizeof v[1], 0, "xor.c:1");
        for (int i = 0; i < P; i++)
            if (i != 1)
                MSG(&s, i, 1, v[i], sizeof v[i], "xor.c:2");
        ev(&s, SC_TC_SELF, 1, 1, x, sizeof x, 0, "xor.c:3");
        syn_close(&s);
        safecoll_trace_report *rep = analyze();
        const safecoll_trace_finding *f = only(rep, SAFECOLL_TRACE_REDUCE, 1);
        ck_assert_ptr_nonnull(strstr(f->call, "MPI_BXOR"));
        safecoll_trace_report_destroy(rep);
        rmscratch();
    }
}
END_TEST

/* A linear barrier: every rank tells rank 0, which then releases each. */
START_TEST(linear_barrier)
{
    syn s;

    syn_open(&s, 6);
    for (int rep = 0; rep < 3; rep++) {
        for (int i = 1; i < 6; i++)
            MSG(&s, i, 0, "", 0, "lin.c:1");
        for (int i = 1; i < 6; i++)
            MSG(&s, 0, i, "", 0, "lin.c:2");
    }
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    const safecoll_trace_finding *f = only(rep, SAFECOLL_TRACE_BARRIER, -1);
    ck_assert_int_eq(f->occurrences, 3);
    ck_assert_int_eq(f->messages, 30);
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST

/* More ranks than one word of a rank set: a binomial broadcast at P = 100
 * and one over ranks 64-99. */
START_TEST(many_ranks)
{
    syn s;
    unsigned char X[300], Y[300];
    int upper[36];

    for (int i = 0; i < 36; i++)
        upper[i] = 64 + i;
    mkscratch();
    s.P = 100;
    s.t = 0;
    for (int r = 0; r < 100; r++)
        ASSERT_OK(sc__tc_writer_open(&s.w[r], scratch, r, 100, 3, 0));
    binomial(&s, 100, 70, pat(X, sizeof X, 1), sizeof X, NULL);
    binomial(&s, 36, 5, pat(Y, sizeof Y, 2), sizeof Y, upper);
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    if (safecoll_trace_report_count(rep) != 2)
        dump(rep);
    ck_assert_int_eq(safecoll_trace_report_count(rep), 2);
    const safecoll_trace_finding *f = find(rep, SAFECOLL_TRACE_BCAST, 70);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(f->whole, 1);
    ck_assert_int_eq(f->messages, 99);
    f = find(rep, SAFECOLL_TRACE_BCAST, 69);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(f->nranks, 36);
    ck_assert_str_eq(f->split, "MPI_Comm_split(MPI_COMM_WORLD, rank >= 64 && rank <= 99 ? 0 : "
                               "MPI_UNDEFINED, rank, &comm)");
    ck_assert_str_eq(f->call, "MPI_Bcast(buf, 300, MPI_BYTE, 5, comm)");
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST


/* A binomial gather to 0 of 8 pieces of 24 bytes: every rank keeps its
 * piece first (safecoll_trace_self), an inner rank forwards its piece and
 * its children's chunks as one message. Verified at the root by the
 * result (the whole receive buffer) kept there. */
START_TEST(tree_gather)
{
    syn s;
    enum { P = 8, B = 24 };
    unsigned char piece[P][B], whole[P * B];

    syn_open(&s, P);
    for (int r = 0; r < P; r++) {
        pat(piece[r], B, 1500 + r);
        memcpy(whole + r * B, piece[r], B);
        ev(&s, SC_TC_SELF, r, r, piece[r], B, 0, "tgather.c:1");
    }
    for (int mask = 1; mask < P; mask *= 2)
        for (int rel = mask; rel < P; rel += 2 * mask) {
            int size = mask < P - rel ? mask : P - rel;
            MSG(&s, rel, rel - mask, whole + rel * B, (size_t)size * B, "tgather.c:2");
        }
    ev(&s, SC_TC_SELF, 0, 0, whole, sizeof whole, 0, "tgather.c:3");
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    const safecoll_trace_finding *f = only(rep, SAFECOLL_TRACE_GATHER, 0);
    ck_assert_int_eq(f->whole, 1);
    ck_assert_int_eq(f->bytes, B);
    ck_assert_int_eq(f->messages, P - 1);
    ck_assert_int_eq(f->nsites, 3);
    ck_assert_ptr_nonnull(strstr(f->detail, "inner ranks"));
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST

/* A binomial sum reduce of int16 vectors to 0: inner ranks send partial
 * sums; the root keeps its contribution and the result. */
START_TEST(tree_sum_reduce)
{
    syn s;
    enum { P = 8, N = 10 };
    int16_t v[P][N], part[P][N];

    syn_open(&s, P);
    for (int r = 0; r < P; r++) {
        for (int e = 0; e < N; e++)
            v[r][e] = part[r][e] = (int16_t)(r * 4099 + e * 37 - 9000);
        ev(&s, SC_TC_SELF, r, r, v[r], sizeof v[r], 2, "treduce.c:1");
    }
    for (int mask = 1; mask < P; mask *= 2)
        for (int rel = mask; rel < P; rel += 2 * mask) {
            ev(&s, SC_TC_SEND, rel, rel - mask, part[rel], sizeof part[rel], 2, "treduce.c:2");
            ev(&s, SC_TC_RECV, rel - mask, rel, part[rel], sizeof part[rel], 2, "treduce.c:2");
            for (int e = 0; e < N; e++)
                part[rel - mask][e] = (int16_t)(uint16_t)((uint16_t)part[rel - mask][e] +
                                                          (uint16_t)part[rel][e]);
        }
    ev(&s, SC_TC_SELF, 0, 0, part[0], sizeof part[0], 2, "treduce.c:3");
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    const safecoll_trace_finding *f = only(rep, SAFECOLL_TRACE_REDUCE, 0);
    ck_assert_int_eq(f->whole, 1);
    ck_assert_int_eq(f->messages, P - 1);
    ck_assert_str_eq(f->call, "MPI_Reduce(sendbuf, recvbuf, 10, MPI_INT16_T, MPI_SUM, 0, "
                              "MPI_COMM_WORLD)");
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST


/* A binomial scatter from 0 of 8 pieces of 24 bytes (MPICH's order: the
 * largest subtree first): the root keeps piece 0, an inner rank keeps its
 * piece from the chunk it received and forwards the rest (paper Fig. 5 b). */
START_TEST(tree_scatter)
{
    syn s;
    enum { P = 8, B = 24 };
    unsigned char whole[P * B];

    syn_open(&s, P);
    pat(whole, sizeof whole, 1600);
    ev(&s, SC_TC_SELF, 0, 0, whole, B, 0, "tscatter.c:1");
    for (int mask = P / 2; mask > 0; mask /= 2)
        for (int rel = 0; rel < P; rel += 2 * mask)
            if (rel + mask < P) {
                int to = rel + mask, size = mask < P - to ? mask : P - to;
                MSG(&s, rel, to, whole + to * B, (size_t)size * B, "tscatter.c:2");
                if (mask > 1)
                    ev(&s, SC_TC_SELF, to, to, whole + to * B, B, 0, "tscatter.c:3");
            }
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    const safecoll_trace_finding *f = only(rep, SAFECOLL_TRACE_SCATTER, 0);
    ck_assert_int_eq(f->whole, 1);
    ck_assert_int_eq(f->bytes, B);
    ck_assert_int_eq(f->messages, P - 1);
    ck_assert_ptr_nonnull(strstr(f->detail, "inner ranks"));
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST

/* ---------------------------------------------------------------- subsets */

START_TEST(bcast_over_half)
{
    syn s;
    unsigned char X[200], N[200];
    int even[4] = {0, 2, 4, 6};

    syn_open(&s, 8);
    /* A binomial tree over the even ranks from rank 2 (relative rank 1),
     * and unrelated traffic on the odd ones. */
    binomial(&s, 4, 1, pat(X, sizeof X, 77), sizeof X, even);
    MSG(&s, 1, 3, pat(N, sizeof N, 78), sizeof N, "odd.c:1");
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    const safecoll_trace_finding *f = only(rep, SAFECOLL_TRACE_BCAST, 2);
    ck_assert_int_eq(f->whole, 0);
    ck_assert_int_eq(f->nranks, 4);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(f->ranks[i], 2 * i);
    ck_assert_ptr_nonnull(f->split);
    ck_assert_str_eq(f->split, "MPI_Comm_split(MPI_COMM_WORLD, rank % 2 == 0 ? 0 : "
                               "MPI_UNDEFINED, rank, &comm)");
    /* Rank 2 is rank 1 of the new communicator. */
    ck_assert_str_eq(f->call, "MPI_Bcast(buf, 200, MPI_BYTE, 1, comm)");
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST

/* A broadcast that misses rank 7 of 8: a near-match, never a match. */
START_TEST(near_match)
{
    syn s;
    unsigned char X[100];

    syn_open(&s, 8);
    pat(X, sizeof X, 88);
    for (int i = 1; i < 7; i++)
        MSG(&s, 0, i, X, sizeof X, "near.c:2");
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    ck_assert_int_eq(safecoll_trace_report_count(rep), 1);
    const safecoll_trace_finding *f = safecoll_trace_report_finding(rep, 0);
    ck_assert_int_eq(f->near, 1);
    ck_assert_int_eq(f->kind, SAFECOLL_TRACE_BCAST);
    ck_assert_int_eq(f->nmissing, 1);
    ck_assert_int_eq(f->missing[0], 7);
    ck_assert_ptr_nonnull(strstr(f->detail, "near-match"));
    safecoll_trace_report_destroy(rep);
    /* With near = 0 it is a broadcast over ranks 0-6. */
    safecoll_trace_options o;
    ASSERT_OK(safecoll_trace_options_init(&o));
    o.near = 0;
    ASSERT_OK(safecoll_trace_analyze(scratch, &o, &rep));
    ck_assert_int_eq(safecoll_trace_report_count(rep), 1);
    f = safecoll_trace_report_finding(rep, 0);
    ck_assert_int_eq(f->near, 0);
    ck_assert_int_eq(f->whole, 0);
    ck_assert_str_eq(f->split, "MPI_Comm_split(MPI_COMM_WORLD, rank >= 0 && rank <= 6 ? 0 : "
                               "MPI_UNDEFINED, rank, &comm)");
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST

/* ---------------------------------------------------------------- negatives */

START_TEST(no_finding_halo)
{
    syn s;
    unsigned char L[128], R[128];

    syn_open(&s, 8);
    for (int it = 0; it < 3; it++) {
        for (int i = 0; i < 8; i++) {
            SEND(&s, i, (i + 7) % 8, pat(L, 128, 10000 + 100 * it + i), 128, "halo.c:1");
            SEND(&s, i, (i + 1) % 8, pat(R, 128, 20000 + 100 * it + i), 128, "halo.c:2");
        }
        for (int i = 0; i < 8; i++) {
            RECV(&s, i, (i + 1) % 8, pat(L, 128, 10000 + 100 * it + (i + 1) % 8), 128,
                 "halo.c:3");
            RECV(&s, i, (i + 7) % 8, pat(R, 128, 20000 + 100 * it + (i + 7) % 8), 128,
                 "halo.c:4");
        }
    }
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    if (safecoll_trace_report_count(rep) != 0)
        dump(rep);
    ck_assert_int_eq(safecoll_trace_report_count(rep), 0);
    long msgs, unmatched;
    ASSERT_OK(safecoll_trace_report_stats(rep, NULL, NULL, &msgs, &unmatched, NULL));
    ck_assert_int_eq(msgs, 48);
    ck_assert_int_eq(unmatched, 0);
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST

/* Master 0 hands out 20 tasks to 7 workers; results come back in the
 * order workers finish (wildcard receives); then an empty stop each. */
START_TEST(no_finding_master_worker)
{
    syn s;
    unsigned char t[16], res[16];
    int next = 0, busy[8] = {0};
    uint32_t x = 1;

    syn_open(&s, 8);
    for (int w = 1; w < 8; w++, next++) {
        MSG(&s, 0, w, pat(t, 16, 3000 + next), 16, "master.c:10");
        busy[w] = next;
    }
    for (int done = 0; done < 20; done++) {
        x = x * 1103515245u + 12345u;
        int w = 1 + (int)((x >> 16) % 7);
        while (busy[w] < 0)
            w = w % 7 + 1;
        MSG(&s, w, 0, pat(res, 16, 5000 + busy[w]), 16, "worker.c:20");
        if (next < 20) {
            MSG(&s, 0, w, pat(t, 16, 3000 + next), 16, "master.c:10");
            busy[w] = next++;
        } else {
            busy[w] = -1;
        }
        if (done >= 20 - 7)
            continue;
    }
    for (int w = 1; w < 8; w++)
        MSG(&s, 0, w, "", 0, "master.c:30");
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    if (safecoll_trace_report_count(rep) != 0)
        dump(rep);
    ck_assert_int_eq(safecoll_trace_report_count(rep), 0);
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST

/* Equal payloads from two roots at two times: 0 -> 1, later 2 -> 3 (and
 * 3 -> 0 of another payload between): no broadcast. */
START_TEST(no_finding_equal_payloads)
{
    syn s;
    unsigned char X[64], N[64];

    syn_open(&s, 4);
    pat(X, sizeof X, 999);
    MSG(&s, 0, 1, X, sizeof X, "a.c:1");
    MSG(&s, 3, 0, pat(N, sizeof N, 5), sizeof N, "a.c:2");
    MSG(&s, 2, 3, X, sizeof X, "b.c:1");
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    if (safecoll_trace_report_count(rep) != 0)
        dump(rep);
    ck_assert_int_eq(safecoll_trace_report_count(rep), 0);
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST


/* Random traffic among 8 ranks (2000 messages of distinct payloads,
 * sizes from a few classes, wildcard-like arrival order): no finding. */
START_TEST(no_finding_random_traffic)
{
    syn s;
    unsigned char b[256];
    uint32_t x = 12345;
    static const size_t sizes[] = {8, 64, 256};

    syn_open(&s, 8);
    for (int i = 0; i < 2000; i++) {
        x = x * 1103515245u + 12345u;
        int src = (int)((x >> 8) % 8), dst = (int)((x >> 16) % 7);
        dst = dst >= src ? dst + 1 : dst;
        size_t n = sizes[(x >> 24) % 3];
        MSG(&s, src, dst, pat(b, n, 70000 + i), n, "rand.c:1");
    }
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    if (safecoll_trace_report_count(rep) != 0)
        dump(rep);
    ck_assert_int_eq(safecoll_trace_report_count(rep), 0);
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST


/* The library's own messages (flag LIBRARY) are left out: a broadcast of
 * them is no finding. */
START_TEST(library_messages_left_out)
{
    syn s;
    unsigned char X[64];

    syn_open(&s, 4);
    pat(X, sizeof X, 31);
    for (int r = 1; r < 4; r++)
        for (int side = 0; side < 2; side++) {
            sc__tc_rec m;
            memset(&m, 0, sizeof m);
            m.kind = side == 0 ? SC_TC_SEND : SC_TC_RECV;
            m.peer = side == 0 ? r : 0;
            m.flags = SC_TC_FLAG_LIBRARY;
            m.crc = sc__rp_crc(0, X, sizeof X);
            m.ends = sc__tc_ends_hash(X, sizeof X);
            m.bytes = sizeof X;
            m.t_ns = (s.t += 1000);
            ASSERT_OK(sc__tc_writer_add(s.w[side == 0 ? 0 : r], &m));
        }
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    ck_assert_int_eq(safecoll_trace_report_count(rep), 0);
    long events, msgs;
    ASSERT_OK(safecoll_trace_report_stats(rep, NULL, &events, &msgs, NULL, NULL));
    ck_assert_int_eq(events, 6);
    ck_assert_int_eq(msgs, 0);
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST

/* ---------------------------------------------------------------- bad files */

/* A 2-rank trace in dir (id), 100 events a rank. */
static void small_trace(const char *dir, int P, uint64_t id)
{
    syn s;
    unsigned char b[32];
    syn_open_in(&s, dir, P, id);
    for (int i = 0; i < 100; i++)
        MSG(&s, i % P, (i + 1) % P, pat(b, 32, i), 32, "bad.c:1");
    syn_close(&s);
}

static void expect_error(int code, const char *what)
{
    safecoll_trace_report *rep = (safecoll_trace_report *)&rep;
    int rc = safecoll_trace_analyze(scratch, NULL, &rep);
    ck_assert_msg(rc == code, "rc %d, expected %d: %s", rc, code, safecoll_last_error());
    ck_assert_ptr_null(rep);
    ck_assert_msg(strstr(safecoll_last_error(), what) != NULL, "message lacks \"%s\": \"%s\"",
                  what, safecoll_last_error());
}

static void patch(const char *file, long off, const void *bytes, size_t n)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", scratch, file);
    int fd = open(path, O_WRONLY);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(pwrite(fd, bytes, n, off), (ssize_t)n);
    close(fd);
}

START_TEST(bad_truncated)
{
    char path[512];
    struct stat sb;

    mkscratch();
    small_trace(scratch, 2, 1);
    snprintf(path, sizeof path, "%s/trace.1", scratch);
    ck_assert_int_eq(stat(path, &sb), 0);
    ck_assert_int_eq(truncate(path, sb.st_size - 40), 0);
    expect_error(MPI_ERR_BAD_FILE, "trace.1: truncated");
    ck_assert_int_eq(truncate(path, 20), 0);
    expect_error(MPI_ERR_BAD_FILE, "trace.1: truncated (no complete header)");
    rmscratch();
}
END_TEST

START_TEST(bad_corrupted_block)
{
    mkscratch();
    small_trace(scratch, 2, 1);
    unsigned char x = 0x5a;
    /* A byte inside the first block's records. */
    patch("trace.0", (long)(sizeof(sc__tc_header) + 2 * sizeof(sc__tc_block) + 100 + 70), &x, 1);
    expect_error(MPI_ERR_BAD_FILE, "bad CRC");
    expect_error(MPI_ERR_BAD_FILE, "trace.0");
    rmscratch();
}
END_TEST

START_TEST(bad_version)
{
    mkscratch();
    small_trace(scratch, 2, 1);
    uint32_t v = SC_TC_VERSION + 1;
    patch("trace.1", (long)offsetof(sc__tc_header, version), &v, sizeof v);
    expect_error(MPI_ERR_BAD_FILE, "trace.1: trace format version 2");
    rmscratch();
}
END_TEST

START_TEST(bad_mixed_sizes)
{
    char other[512], cmd[1200];

    mkscratch();
    small_trace(scratch, 2, 1);
    snprintf(other, sizeof other, "%s/three", scratch);
    small_trace(other, 3, 1);
    snprintf(cmd, sizeof cmd, "cp '%s/trace.1' '%s/trace.1'", other, scratch);
    ck_assert_int_eq(system(cmd), 0);
    expect_error(MPI_ERR_BAD_FILE, "trace.1: recorded in a job of 3 processes");
    /* A rank beyond the job left behind. */
    small_trace(scratch, 2, 1);
    snprintf(cmd, sizeof cmd, "cp '%s/trace.2' '%s/trace.2'", other, scratch);
    ck_assert_int_eq(system(cmd), 0);
    expect_error(MPI_ERR_BAD_FILE, "trace.2: a rank beyond the job of 2 processes");
    rmscratch();
}
END_TEST

START_TEST(bad_mixed_ids)
{
    char other[512], cmd[1200];

    mkscratch();
    small_trace(scratch, 2, 1);
    snprintf(other, sizeof other, "%s/two", scratch);
    small_trace(other, 2, 2);
    snprintf(cmd, sizeof cmd, "cp '%s/trace.1' '%s/trace.1'", other, scratch);
    ck_assert_int_eq(system(cmd), 0);
    expect_error(MPI_ERR_BAD_FILE, "trace.1: of recording 0000000000000002");
    rmscratch();
}
END_TEST

START_TEST(bad_missing_and_args)
{
    safecoll_trace_report *rep = NULL;
    safecoll_trace_options o;

    mkscratch();
    small_trace(scratch, 2, 1);
    char path[512];
    snprintf(path, sizeof path, "%s/trace.1", scratch);
    ck_assert_int_eq(unlink(path), 0);
    expect_error(MPI_ERR_NO_SUCH_FILE, "trace.1");
    ck_assert_int_eq(safecoll_trace_analyze(NULL, NULL, &rep), MPI_ERR_ARG);
    ck_assert_int_eq(safecoll_trace_analyze(scratch, NULL, NULL), MPI_ERR_ARG);
    ck_assert_int_eq(safecoll_trace_options_init(NULL), MPI_ERR_ARG);
    ASSERT_OK(safecoll_trace_options_init(&o));
    ck_assert_int_eq(o.min_ranks, 3);
    ck_assert_int_eq(o.near, 1);
    o.min_ranks = 2;
    ck_assert_int_eq(safecoll_trace_analyze(scratch, &o, &rep), MPI_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(safecoll_last_error(), "min_ranks"));
    o.min_ranks = 3;
    o.near = -1;
    ck_assert_int_eq(safecoll_trace_analyze(scratch, &o, &rep), MPI_ERR_ARG);
    ck_assert_int_eq(safecoll_trace_report_count(NULL), -1);
    ck_assert_ptr_null(safecoll_trace_report_finding(NULL, 0));
    ck_assert_int_eq(safecoll_trace_report_print(NULL, stdout), MPI_ERR_ARG);
    ck_assert_int_eq(safecoll_trace_report_json(NULL, stdout), MPI_ERR_ARG);
    ck_assert_str_eq(safecoll_trace_kind_name(SAFECOLL_TRACE_NKINDS), "?");
    safecoll_trace_report_destroy(NULL);
    rmscratch();
}
END_TEST


START_TEST(bad_blocks_and_writer_args)
{
    sc__tc_writer *w = (sc__tc_writer *)&w;
    char path[512];
    sc__tc_file f;

    ck_assert_int_eq(sc__tc_writer_open(&w, NULL, 0, 1, 0, 0), MPI_ERR_ARG);
    ck_assert_ptr_null(w);
    ck_assert_int_eq(sc__tc_writer_open(&w, "/tmp", 2, 2, 0, 0), MPI_ERR_ARG);
    ck_assert_int_eq(sc__tc_writer_open(&w, "/tmp", -1, 2, 0, 0), MPI_ERR_ARG);
    ck_assert_int_eq(sc__tc_writer_open(&w, "/dev/null/x", 0, 1, 0, 0), MPI_ERR_FILE);
    ck_assert_ptr_nonnull(strstr(safecoll_last_error(), "cannot make the directory"));
    ASSERT_OK(sc__tc_writer_close(NULL));

    mkscratch();
    small_trace(scratch, 2, 1);
    snprintf(path, sizeof path, "%s/trace.0", scratch);
    /* A block header's sequence number changed. */
    uint32_t bad_seq = 7;
    patch("trace.0", (long)(sizeof(sc__tc_header) + offsetof(sc__tc_block, seq)), &bad_seq,
          sizeof bad_seq);
    ck_assert_int_eq(sc__tc_read(path, &f), MPI_ERR_BAD_FILE);
    ck_assert_ptr_nonnull(strstr(safecoll_last_error(), "a bad block header"));
    /* Bytes after the end block. */
    small_trace(scratch, 2, 1);
    int fd = open(path, O_WRONLY | O_APPEND);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "junkjunkjunkjunkjunk", 20), 20);
    close(fd);
    ck_assert_int_eq(sc__tc_read(path, &f), MPI_ERR_BAD_FILE);
    ck_assert_ptr_nonnull(strstr(safecoll_last_error(), "after its end block"));
    /* Not a trace at all. */
    fd = open(path, O_WRONLY | O_TRUNC);
    ck_assert_int_ge(fd, 0);
    char junk[100];
    memset(junk, 'x', sizeof junk);
    ck_assert_int_eq(write(fd, junk, sizeof junk), (ssize_t)sizeof junk);
    close(fd);
    ck_assert_int_eq(sc__tc_read(path, &f), MPI_ERR_BAD_FILE);
    ck_assert_ptr_nonnull(strstr(safecoll_last_error(), "not a libsafecoll trace file"));
    /* A corrupted header (its CRC). */
    small_trace(scratch, 2, 1);
    int32_t r = 1;
    patch("trace.0", (long)offsetof(sc__tc_header, rank), &r, sizeof r);
    ck_assert_int_eq(sc__tc_read(path, &f), MPI_ERR_BAD_FILE);
    ck_assert_ptr_nonnull(strstr(safecoll_last_error(), "header is corrupted (bad CRC)"));
    rmscratch();
}
END_TEST

/* Call sites with quotes and backslashes come out escaped in the JSON. */
START_TEST(json_escapes)
{
    syn s;
    unsigned char X[16];
    char *text = NULL;
    size_t len = 0;

    syn_open(&s, 3);
    pat(X, sizeof X, 3);
    MSG(&s, 0, 1, X, sizeof X, "dir\\a \"b\".c:1");
    MSG(&s, 1, 2, X, sizeof X, "dir\\a \"b\".c:1");
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    FILE *fp = open_memstream(&text, &len);
    ASSERT_OK(safecoll_trace_report_json(rep, fp));
    fclose(fp);
    ck_assert_ptr_nonnull(strstr(text, "\"sites\":[\"dir\\\\a \\\"b\\\".c:1\"]}\n"));
    ck_assert_int_eq(text[len - 1], '\n');
    free(text);
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST

/* ---------------------------------------------------------------- sample */

/* The sample trace of tests/check-trace.sh: a binomial broadcast from 3
 * (twice), a ring allgather, a pairwise alltoall, a broadcast over the
 * even ranks and a near miss, among halo noise. */
static int write_sample(const char *dir)
{
    syn s;
    unsigned char X[4096], blk[8][64], b[32], Y[200], Z[100], L[128];
    int even[4] = {0, 2, 4, 6};

    syn_open_in(&s, dir, 8, 0xabcdef12ull);
    for (int it = 0; it < 2; it++)
        binomial(&s, 8, 3, pat(X, sizeof X, 5 + it), sizeof X, NULL);
    for (int i = 0; i < 8; i++)
        MSG(&s, i, (i + 1) % 8, pat(L, 128, 10000 + i), 128, "halo.c:1");
    for (int j = 0; j < 8; j++)
        pat(blk[j], 64, 500 + j);
    ring(&s, 8, blk, "ring.c:30");
    for (int k = 1; k < 8; k++) {
        for (int i = 0; i < 8; i++)
            SEND(&s, i, (i + k) % 8, pat(b, 32, 1000 + 8 * i + (i + k) % 8), 32, "a2a.c:8");
        for (int i = 0; i < 8; i++) {
            int from = (i + 8 - k) % 8;
            RECV(&s, i, from, pat(b, 32, 1000 + 8 * from + i), 32, "a2a.c:9");
        }
    }
    binomial(&s, 4, 1, pat(Y, sizeof Y, 77), sizeof Y, even);
    pat(Z, sizeof Z, 88);
    for (int i = 1; i < 7; i++)
        MSG(&s, 0, i, Z, sizeof Z, "near.c:2");
    for (int r = 0; r < 8; r++)
        if (sc__tc_writer_close(s.w[r]) != MPI_SUCCESS)
            return 1;
    return 0;
}

/* ---------------------------------------------------------------- measuring */

/* A trace whose findings the measuring step groups: binomial broadcasts
 * of 128 bytes from ranks 0 and 5 over all 8 ranks (one call, two roots),
 * one over the odd ranks from rank 5 (4 processes, root 2 there), and an
 * integer sum reduced at rank 0 (16 int32). */
static safecoll_trace_report *measure_trace(void)
{
    syn s;
    unsigned char X[128], Y[128], Z[128];
    int32_t v[8][16], sum[16];
    int odd[4] = {1, 3, 5, 7};

    syn_open(&s, 8);
    binomial(&s, 8, 0, pat(X, sizeof X, 31), sizeof X, NULL);
    binomial(&s, 8, 5, pat(Y, sizeof Y, 32), sizeof Y, NULL);
    binomial(&s, 4, 2, pat(Z, sizeof Z, 33), sizeof Z, odd);
    memset(sum, 0, sizeof sum);
    for (int i = 0; i < 8; i++)
        for (int e = 0; e < 16; e++) {
            v[i][e] = (int32_t)(i * 7001 + e * 13 - 900);
            sum[e] = (int32_t)((uint32_t)sum[e] + (uint32_t)v[i][e]);
        }
    ev(&s, SC_TC_SELF, 0, 0, v[0], sizeof v[0], 4, "sum.c:1");
    for (int i = 1; i < 8; i++) {
        ev(&s, SC_TC_SEND, i, 0, v[i], sizeof v[i], 4, "sum.c:2");
        ev(&s, SC_TC_RECV, 0, i, v[i], sizeof v[i], 4, "sum.c:3");
    }
    ev(&s, SC_TC_SELF, 0, 0, sum, sizeof sum, 4, "sum.c:4");
    syn_close(&s);
    safecoll_trace_report *rep = analyze();
    if (safecoll_trace_report_count(rep) != 4)
        dump(rep);
    ck_assert_int_eq(safecoll_trace_report_count(rep), 4);
    return rep;
}

/* The job of kind with nprocs processes and bytes, or NULL. */
static const sc__tc_job *job_of(const sc__tc_job *J, int n, safecoll_trace_kind kind,
                                int nprocs, int64_t bytes)
{
    for (int k = 0; k < n; k++)
        if (J[k].kind == kind && J[k].nprocs == nprocs && J[k].bytes == bytes)
            return &J[k];
    return NULL;
}

/* Every finding of the report is in exactly one job, at the root that
 * sc__tc_measure_procs gives it. */
static void check_plan(const safecoll_trace_report *rep, const sc__tc_job *J, int n,
                       int max_procs)
{
    for (int i = 0; i < rep->n; i++) {
        int seen = 0;
        for (int k = 0; k < n; k++)
            for (int m = 0; m < J[k].nfind; m++)
                if (J[k].find[m] == i) {
                    int root, P = sc__tc_measure_procs(&rep->f[i], rep->nprocs, max_procs, &root);
                    seen++;
                    ck_assert_int_eq(J[k].nprocs, P);
                    ck_assert_int_eq(J[k].roots[J[k].at[m]], root);
                    ck_assert_int_eq(J[k].kind, rep->f[i].f.kind);
                    ck_assert_int_eq(J[k].bytes, rep->f[i].f.bytes);
                }
        ck_assert_int_eq(seen, 1);
    }
}

/* One job per replacing call: the two whole broadcasts share one (two
 * roots); the subset's is apart (4 processes) until the jobs are capped
 * at 4 processes, when the three broadcasts share one with roots 0, 1 (5
 * modulo 4) and 2. */
START_TEST(measure_plan_groups)
{
    safecoll_trace_report *rep = measure_trace();
    sc__tc_job *J;
    const sc__tc_job *j;
    int n;

    ASSERT_OK(sc__tc_measure_plan(rep, 0, &J, &n));
    ck_assert_int_eq(n, 3);
    check_plan(rep, J, n, 0);
    ck_assert_ptr_nonnull(j = job_of(J, n, SAFECOLL_TRACE_BCAST, 8, 128));
    ck_assert_int_eq(j->nroots, 2);
    ck_assert_int_eq(j->roots[0], 0);
    ck_assert_int_eq(j->roots[1], 5);
    ck_assert_int_eq(j->nfind, 2);
    ck_assert_int_eq(j->op, -1);
    ck_assert_int_eq(j->elem, 0);
    ck_assert_ptr_nonnull(j = job_of(J, n, SAFECOLL_TRACE_BCAST, 4, 128));
    ck_assert_int_eq(j->nroots, 1);
    ck_assert_int_eq(j->roots[0], 2);
    ck_assert_ptr_nonnull(j = job_of(J, n, SAFECOLL_TRACE_REDUCE, 8, 64));
    ck_assert_int_eq(j->op, 0);
    ck_assert_int_eq(j->elem, 4);
    ck_assert_int_eq(j->nroots, 1);
    ck_assert_int_eq(j->roots[0], 0);
    sc__tc_jobs_free(J, n);

    ASSERT_OK(sc__tc_measure_plan(rep, 4, &J, &n));
    ck_assert_int_eq(n, 2);
    check_plan(rep, J, n, 4);
    ck_assert_ptr_nonnull(j = job_of(J, n, SAFECOLL_TRACE_BCAST, 4, 128));
    ck_assert_int_eq(j->nroots, 3);
    for (int r = 0; r < 3; r++)
        ck_assert_int_eq(j->roots[r], r);
    ck_assert_int_eq(j->nfind, 3);
    ck_assert_ptr_nonnull(job_of(J, n, SAFECOLL_TRACE_REDUCE, 4, 64));
    sc__tc_jobs_free(J, n);

    /* A near-match is timed as the call over the whole job it nearly is;
     * a finding too large for an int count is in no job. */
    sc__tc_fnd x;
    int ranks[7] = {0, 1, 2, 3, 4, 5, 6}, root;
    memset(&x, 0, sizeof x);
    x.f.kind = SAFECOLL_TRACE_BCAST;
    x.f.near = 1;
    x.f.root = 6;
    x.f.nranks = 7;
    x.f.ranks = ranks;
    x.f.bytes = 100;
    x.op = -1;
    ck_assert_int_eq(sc__tc_measure_procs(&x, 8, 0, &root), 8);
    ck_assert_int_eq(root, 6);
    ck_assert_int_eq(sc__tc_measure_procs(&x, 8, 4, &root), 4);
    ck_assert_int_eq(root, 2);
    ck_assert_ptr_null(sc__tc_unmeasurable(&x));
    x.f.bytes = (int64_t)INT32_MAX + 1;
    ck_assert_ptr_nonnull(sc__tc_unmeasurable(&x));
    ck_assert_ptr_nonnull(strstr(sc__tc_unmeasurable(&x), "int count"));
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST

/* Splits s at blanks in place into argv (at most max words). */
static int words(char *s, char **argv, int max)
{
    int n = 0;
    for (char *t = strtok(s, " "); t != NULL && n < max; t = strtok(NULL, " "))
        argv[n++] = t;
    return n;
}

/* The job's words, as the driver writes them, parse back to the same job;
 * wrong words are refused with a message naming them. */
START_TEST(measure_job_args)
{
    int roots[3] = {0, 2, 5};
    sc__tc_job job = {SAFECOLL_TRACE_REDUCE, 8, 4096, 4, 0, 3, roots, 0, NULL, NULL}, back;
    sc__scale_opts o = {7, 70, 2, 0.25, 0.05, 1}, ob;
    char buf[1024], *argv[64];
    const char *report;
    int argc;

    ck_assert_int_eq(sc__tc_job_args(&job, &o, "/tmp/x/report", buf, sizeof buf), 0);
    ck_assert_str_eq(buf, "--kind reduce --procs 8 --bytes 4096 --type int32 --op sum --roots "
                          "0,2,5 --reps-min 7 --reps-max 70 --budget 0.25 --report /tmp/x/report");
    ck_assert_int_eq(sc__tc_job_args(&job, &o, "/tmp/x/report", buf, 40), -1);
    ck_assert_int_eq(sc__tc_job_args(&job, &o, "/tmp/x/report", buf, sizeof buf), 0);
    argc = words(buf, argv, 64);
    ASSERT_OK(sc__tc_job_parse(argc, argv, &back, &ob, &report));
    ck_assert_int_eq(back.kind, SAFECOLL_TRACE_REDUCE);
    ck_assert_int_eq(back.nprocs, 8);
    ck_assert_int_eq(back.bytes, 4096);
    ck_assert_int_eq(back.elem, 4);
    ck_assert_int_eq(back.op, 0);
    ck_assert_int_eq(back.nroots, 3);
    for (int r = 0; r < 3; r++)
        ck_assert_int_eq(back.roots[r], roots[r]);
    ck_assert_int_eq(ob.reps_min, 7);
    ck_assert_int_eq(ob.reps_max, 70);
    ck_assert(ob.budget == 0.25);
    ck_assert_int_eq(ob.fallback, 1);
    ck_assert_str_eq(report, "/tmp/x/report");
    free(back.roots);

    /* A rootless kind: root -1, bytes and no operation. */
    char ok[] = "--kind alltoall --procs 3 --bytes 32 --roots -1 --report r";
    argc = words(ok, argv, 64);
    ASSERT_OK(sc__tc_job_parse(argc, argv, &back, &ob, &report));
    ck_assert_int_eq(back.op, -1);
    ck_assert_int_eq(back.elem, 0);
    ck_assert_int_eq(back.roots[0], -1);
    ck_assert_int_eq(ob.reps_min, 10);
    free(back.roots);

    static const char *const bad[][2] = {
        {"--kind bcast --procs 4 --bytes 8 --roots 0 --report", "missing value after: --report"},
        {"--kind scan --procs 4 --bytes 8 --roots 0 --report r",
         "--kind is not a kind of finding: scan"},
        {"--kind bcast --procs 0 --bytes 8 --roots 0 --report r",
         "--procs is not a number of processes: 0"},
        {"--kind bcast --procs 4 --bytes -8 --roots 0 --report r",
         "--bytes is not a number in [0, INT_MAX]: -8"},
        {"--kind bcast --procs 4 --bytes 2147483648 --roots 0 --report r",
         "--bytes is not a number in [0, INT_MAX]: 2147483648"},
        {"--kind bcast --procs 4 --bytes 8 --type int128 --roots 0 --report r",
         "--type is not byte, int8, int16, int32 or int64: int128"},
        {"--kind reduce --procs 4 --bytes 8 --op max --roots 0 --report r",
         "--op is not none, sum or bxor: max"},
        {"--kind bcast --procs 4 --bytes 8 --op sum --roots 0 --report r",
         "--op is for reduce and allreduce, and they need it"},
        {"--kind allreduce --procs 4 --bytes 8 --roots -1 --report r",
         "--op is for reduce and allreduce, and they need it"},
        {"--kind reduce --procs 4 --bytes 8 --type int32 --op bxor --roots 0 --report r",
         "--op bxor runs on --type byte"},
        {"--kind reduce --procs 4 --bytes 10 --type int32 --op sum --roots 0 --report r",
         "--bytes is not a multiple of the type's size"},
        {"--kind bcast --procs 4 --bytes 8 --roots 0,4 --report r",
         "--roots is not a list of ranks below --procs (-1: none)"},
        {"--kind bcast --procs 4 --bytes 8 --roots 0,x --report r",
         "--roots is not a list of ranks below --procs (-1: none)"},
        {"--kind bcast --procs 4 --bytes 8 --roots 0", "--kind, --procs, --bytes, --roots and "
                                                       "--report are required"},
        {"--kind bcast --procs 4 --bytes 8 --roots 0 --report r --reps-min 1 --reps-max 3",
         "--reps-min is not a number in [2, 100000]: 1"},
        {"--kind bcast --procs 4 --bytes 8 --roots 0 --report r --reps-min 9 --reps-max 3",
         "--reps-max is below --reps-min"},
        {"--kind bcast --procs 4 --bytes 8 --roots 0 --report r --budget 0",
         "--budget is not a positive number of seconds: 0"},
        {"--kind bcast --procs 4 --bytes 8 --roots 0 --report r --frob 1",
         "unknown option: --frob"},
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        char text[256];
        snprintf(text, sizeof text, "%s", bad[k][0]);
        argc = words(text, argv, 64);
        ck_assert_int_eq(sc__tc_job_parse(argc, argv, &back, &ob, &report), MPI_ERR_ARG);
        ck_assert_msg(strstr(safecoll_last_error(), bad[k][1]) != NULL, "%s: %s", bad[k][0],
                      safecoll_last_error());
        free(back.roots);
    }
}
END_TEST

/* A job's report read back: where it ran, a value per root, a failed call;
 * anything else is malformed. */
START_TEST(measure_report_read)
{
    int roots[2] = {1, 3};
    sc__tc_job job = {SAFECOLL_TRACE_BCAST, 4, 64, 0, -1, 2, roots, 0, NULL, NULL};
    sc__tc_where w;
    sc__tc_timing t[2];
    char good[] = "where node-7 2 3 2\nvalue 3 12 4 2 0.000125\nfailed 1 MPI_ERR_OTHER: boom\n";
    FILE *fp = fmemopen(good, strlen(good), "r");

    ck_assert_int_eq(sc__tc_job_read(fp, &job, &w, t), 0);
    fclose(fp);
    ck_assert_int_eq(w.have, 1);
    ck_assert_str_eq(w.host, "node-7");
    ck_assert_int_eq(w.nodes, 2);
    ck_assert_int_eq(w.ppn, 3);
    ck_assert_int_eq(w.cores, 2);
    ck_assert_int_eq(t[1].have, 1);
    ck_assert_int_eq(t[1].reps, 12);
    ck_assert_int_eq(t[1].late, 4);
    ck_assert_int_eq(t[1].barrier, 2);
    ck_assert(t[1].median == 0.000125);
    ck_assert_int_eq(t[0].have, -1);
    ck_assert_str_eq(t[0].failed, "MPI_ERR_OTHER: boom");

    static const char *const bad[] = {
        "value 2 12 0 0 0.1\n",        /* a root not of the job */
        "value 3 12 0 0\n",            /* a field short */
        "value 3 12 0 0 0.1 9\n",      /* a field more */
        "value 3 0 0 0 0.1\n",         /* no repetition */
        "value 3 5 0 0 -1\n",          /* a negative time */
        "where h 0 1 1\n",             /* no node */
        "timing 3 5 0 0 0.1\n",        /* an unknown record */
    };
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        fp = fmemopen((void *)bad[k], strlen(bad[k]), "r");
        ck_assert_msg(sc__tc_job_read(fp, &job, &w, t) == -1, "accepted: %s", bad[k]);
        fclose(fp);
    }
    /* Nothing at all: no value, no failure (the driver says so). */
    fp = fmemopen((void *)"", 0, "r");
    if (fp != NULL) {
        ck_assert_int_eq(sc__tc_job_read(fp, &job, &w, t), 0);
        ck_assert_int_eq(t[0].have, 0);
        ck_assert_int_eq(w.have, 0);
        fclose(fp);
    }
}
END_TEST

/* A launcher script in the scratch directory: `sh` code run with the
 * process count in $p and the job's words after it. */
static void launcher(const char *name, const char *body)
{
    char path[512];
    FILE *fp;

    snprintf(path, sizeof path, "%s/%s", scratch, name);
    ck_assert_ptr_nonnull(fp = fopen(path, "w"));
    fprintf(fp, "#!/bin/sh\np=$1; shift\nkind=; rep=; roots=\n"
                "while [ $# -gt 1 ]; do case $1 in --kind) kind=$2;; --report) rep=$2;; "
                "--roots) roots=$2;; esac; shift; done\n%s\n", body);
    ck_assert_int_eq(fclose(fp), 0);
    ck_assert_int_eq(chmod(path, 0755), 0);
}

static int events_seen;
static void count_events(const safecoll_trace_measure_event *ev, void *arg)
{
    (void)arg;
    ck_assert_int_eq(ev->jobs, 5);
    ck_assert(ev->job >= 0 && ev->job < 5);
    events_seen++;
}

/* The whole step with launchers that stand in for MPI: one that writes
 * a report (every call 250 us on a fake node), so that every finding is
 * measured and the ranking follows the gain; one whose reports say a call
 * failed or cannot be read; one that fails. */
START_TEST(measure_with_fake_jobs)
{
    safecoll_trace_measure_options o;
    safecoll_trace_report *rep;
    char lpath[600], *text = NULL;
    size_t len = 0;
    FILE *fp;

    mkscratch();
    ck_assert_int_eq(write_sample(scratch), 0);
    rep = analyze();
    ck_assert_int_eq(safecoll_trace_report_count(rep), 5);
    launcher("ok.sh", "echo \"where fake 1 $p 2\" > \"$rep\"\n"
                      "for r in $(echo \"$roots\" | tr , ' '); do\n"
                      "  echo \"value $r 10 3 1 0.00025\" >> \"$rep\"\ndone");
    ASSERT_OK(safecoll_trace_measure_options_init(&o));
    snprintf(lpath, sizeof lpath, "%s/ok.sh {P}", scratch);
    o.worker_cmd = "/nonexistent/safecoll";
    o.launcher = lpath;
    o.workdir = scratch;
    o.progress = count_events;
    events_seen = 0;
    ASSERT_OK(safecoll_trace_measure(rep, &o));
    ck_assert_int_eq(events_seen, 10);
    double last = 1e9;
    for (int i = 0; i < 5; i++) {
        const safecoll_trace_finding *f = safecoll_trace_report_finding(rep, i);
        ck_assert_int_eq(f->measured, 1);
        ck_assert_int_eq(f->measure_procs, f->whole || f->near ? 8 : f->nranks);
        ck_assert_double_eq_tol(f->replace_seconds, 0.00025 * (double)f->occurrences, 1e-12);
        ck_assert_double_eq_tol(f->gain_seconds, f->seconds - f->replace_seconds, 1e-12);
        ck_assert(f->gain_seconds <= last);
        last = f->gain_seconds;
        ck_assert_ptr_nonnull(strstr(f->measure_note, "the median of 10 calls (1 started after "
                                                      "a barrier"));
        ck_assert_ptr_nonnull(strstr(f->measure_note, " on 1 node (host fake, 2 cores: "
                                                      "oversubscribed)"));
    }
    /* By the gain: the allgather and the alltoall lose least (a tie,
     * broken by kind), the broadcast of 4 KiB, twice, most. */
    ck_assert_int_eq(safecoll_trace_report_finding(rep, 0)->kind, SAFECOLL_TRACE_ALLGATHER);
    ck_assert_int_eq(safecoll_trace_report_finding(rep, 1)->kind, SAFECOLL_TRACE_ALLTOALL);
    ck_assert_int_eq(safecoll_trace_report_finding(rep, 4)->bytes, 4096);
    const safecoll_trace_finding *f = safecoll_trace_report_finding(rep, 2);
    ck_assert_int_eq(f->near, 1);
    ck_assert_str_eq(f->measure_note, "the median of 10 calls (1 started after a barrier: the "
                                      "synchronized starts came late), measured here with 8 "
                                      "processes on 1 node (host fake, 2 cores: oversubscribed), "
                                      "root 0");
    f = find(rep, SAFECOLL_TRACE_BCAST, 2);
    ck_assert_ptr_nonnull(strstr(f->measure_note, "measured here with 4 processes"));
    ck_assert_ptr_nonnull(strstr(f->measure_note, "root 1"));
    fp = open_memstream(&text, &len);
    ASSERT_OK(safecoll_trace_report_print(rep, fp));
    fclose(fp);
    ck_assert_ptr_nonnull(strstr(text, "replacing calls timed here in 5 jobs (0 without a "
                                       "measurement): 5 of 5 findings measured"));
    ck_assert_ptr_nonnull(strstr(text, "  match     replace      gain\n"));
    ck_assert_ptr_nonnull(strstr(text, "  3  bcast         0  0-6              100      1  "
                                       "0.000011     3.9  near      0.000250 -0.000239\n"));
    ck_assert_ptr_nonnull(strstr(text, "   replacement time: 0.000500 s (2 x 0.000250 s: the "
                                       "median of 10 calls"));
    ck_assert_ptr_nonnull(strstr(text, "   estimated gain: -0.000474 s (the MPI call took "
                                       "longer here)\n"));
    free(text);
    text = NULL;
    fp = open_memstream(&text, &len);
    ASSERT_OK(safecoll_trace_report_json(rep, fp));
    fclose(fp);
    ck_assert_ptr_nonnull(strstr(text, "\"seconds\":1.1e-05,\"replace_seconds\":0.00025,"
                                       "\"gain_seconds\":-0.000239,\"measure_procs\":8,"
                                       "\"measure_note\":\"the median of 10 calls"));
    ck_assert_ptr_null(strstr(text, "null,\"gain"));
    free(text);

    /* Calls that failed, reports that cannot be read, a launcher that
     * fails: no measurement, each with its reason; the ranking by the
     * pattern's time again. */
    launcher("mixed.sh", "case $kind in\n"
                         "  allgather) echo \"failed -1 MPI_ERR_OTHER: boom\" > \"$rep\";;\n"
                         "  alltoall) echo \"value -1 ten\" > \"$rep\";;\n"
                         "  *) exit 3;;\nesac");
    snprintf(lpath, sizeof lpath, "%s/mixed.sh {P}", scratch);
    o.progress = NULL;
    ASSERT_OK(safecoll_trace_measure(rep, &o));
    for (int i = 0; i < 5; i++) {
        f = safecoll_trace_report_finding(rep, i);
        ck_assert_int_eq(f->measured, 0);
        ck_assert(f->replace_seconds < 0);
        ck_assert(f->gain_seconds == 0);
        ck_assert_int_eq(f->measure_procs, 0);
        ck_assert_ptr_nonnull(f->measure_note);
    }
    ck_assert_str_eq(safecoll_trace_report_finding(rep, 0)->measure_note,
                     "the call failed: MPI_ERR_OTHER: boom");
    ck_assert_str_eq(safecoll_trace_report_finding(rep, 1)->measure_note,
                     "the job's report is malformed");
    ck_assert_str_eq(safecoll_trace_report_finding(rep, 2)->measure_note,
                     "the job failed (launcher exit status 3)");
    text = NULL;
    fp = open_memstream(&text, &len);
    ASSERT_OK(safecoll_trace_report_print(rep, fp));
    fclose(fp);
    ck_assert_ptr_nonnull(strstr(text, "in 5 jobs (5 without a measurement): 0 of 5 findings "
                                       "measured"));
    ck_assert_ptr_nonnull(strstr(text, "  1  allgather     -  all 8             64      1  "
                                       "0.000111    38.9  yes              -         -\n"));
    ck_assert_ptr_nonnull(strstr(text, "   replacement time: not measured: the call failed: "
                                       "MPI_ERR_OTHER: boom\n"));
    free(text);
    text = NULL;
    fp = open_memstream(&text, &len);
    ASSERT_OK(safecoll_trace_report_json(rep, fp));
    fclose(fp);
    ck_assert_ptr_nonnull(strstr(text, "\"replace_seconds\":null,\"gain_seconds\":null,"
                                       "\"measure_procs\":null,\"measure_note\":\"the job failed "
                                       "(launcher exit status 3)\""));
    free(text);
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST

/* The measuring step's arguments, each refused with its message. */
START_TEST(measure_bad_args)
{
    safecoll_trace_measure_options o;
    safecoll_trace_report *rep;

    mkscratch();
    ck_assert_int_eq(write_sample(scratch), 0);
    rep = analyze();
    ck_assert_int_eq(safecoll_trace_measure_options_init(NULL), MPI_ERR_ARG);
    ASSERT_OK(safecoll_trace_measure_options_init(&o));
    ck_assert_int_eq(o.reps_min, 10);
    ck_assert_int_eq(o.reps_max, 200);
    ck_assert(o.budget == 0.5);
    ck_assert(o.time_limit == 0);
    ck_assert_int_eq(o.max_procs, 0);
    ck_assert_ptr_null(o.worker_cmd);
    ck_assert_int_eq(safecoll_trace_measure(NULL, &o), MPI_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(safecoll_last_error(), "rep is NULL"));
    ck_assert_int_eq(safecoll_trace_measure(rep, NULL), MPI_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(safecoll_last_error(), "opt is NULL"));
    ck_assert_int_eq(safecoll_trace_measure(rep, &o), MPI_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(safecoll_last_error(), "worker_cmd is not set"));
    o.worker_cmd = "/nonexistent/safecoll";
    safecoll_trace_measure_options b = o;
    b.launcher = "  ";
    ck_assert_int_eq(safecoll_trace_measure(rep, &b), MPI_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(safecoll_last_error(), "the launcher is empty"));
    b = o;
    b.time_limit = -1;
    ck_assert_int_eq(safecoll_trace_measure(rep, &b), MPI_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(safecoll_last_error(), "time_limit -1 is not in [0, 1e7]"));
    b = o;
    b.max_procs = -2;
    ck_assert_int_eq(safecoll_trace_measure(rep, &b), MPI_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(safecoll_last_error(), "max_procs -2 is negative"));
    b = o;
    b.reps_min = 1;
    ck_assert_int_eq(safecoll_trace_measure(rep, &b), MPI_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(safecoll_last_error(), "reps_min 1 is not in [2, 100000]"));
    b = o;
    b.reps_max = 9;
    ck_assert_int_eq(safecoll_trace_measure(rep, &b), MPI_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(safecoll_last_error(), "reps_max 9 is not in [reps_min"));
    b = o;
    b.budget = 0;
    ck_assert_int_eq(safecoll_trace_measure(rep, &b), MPI_ERR_ARG);
    ck_assert_ptr_nonnull(strstr(safecoll_last_error(), "budget 0 is not a positive number"));
    /* Refused before anything ran: the report is as the analysis left it. */
    ck_assert_ptr_null(safecoll_trace_report_finding(rep, 0)->measure_note);
    safecoll_trace_report_destroy(rep);
    rmscratch();
}
END_TEST

/* ---------------------------------------------------------------- clock */

static int64_t system_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* How far the event clock strays outside a pair of system-clock reads
 * around it: the model's error (src/traffic/clock.c bounds it well under
 * a microsecond after its first millisecond) plus nothing of the time a
 * preempted thread loses, which lies inside the bracket. */
enum { CLOCK_TOL_NS = 10000 };

typedef struct clock_run {
    int64_t worst; /* ns outside the bracket, the largest */
    long reads;
} clock_run;

/* Reads the event clock between two system-clock reads for 400 ms (many
 * recalibrations: one a millisecond), with a pause now and then so that
 * the model runs past its millisecond and must take a new sample. */
static void *clock_reads(void *arg)
{
    clock_run *c = arg;
    const int64_t end = system_ns() + 400000000;
    int64_t before;

    c->worst = 0;
    c->reads = 0;
    while ((before = system_ns()) < end) {
        const int64_t t = sc__tr_clock_ns(), after = system_ns();
        const int64_t out = t < before ? before - t : t > after ? t - after : 0;
        if (out > c->worst)
            c->worst = out;
        if (++c->reads % 4096 == 0)
            usleep(1500);
    }
    return NULL;
}

/* The events' clock (the time-stamp counter between calibrations) tells
 * CLOCK_REALTIME's time, on two threads at once. */
START_TEST(event_clock_is_the_system_clock)
{
    clock_run runs[2];
    pthread_t th;

    ck_assert_int_eq(pthread_create(&th, NULL, clock_reads, &runs[1]), 0);
    clock_reads(&runs[0]);
    ck_assert_int_eq(pthread_join(th, NULL), 0);
    for (int i = 0; i < 2; i++) {
        ck_assert_msg(runs[i].reads > 1000, "thread %d: %ld reads", i, runs[i].reads);
        ck_assert_msg(runs[i].worst <= CLOCK_TOL_NS,
                      "thread %d: the event clock strayed %lld ns from the system clock", i,
                      (long long)runs[i].worst);
    }
}
END_TEST

int main(void)
{
    const char *synth = getenv("SAFECOLL_TRACE_SYNTH");
    if (synth != NULL && *synth != '\0') {
        synth_mode = 1;
        return write_sample(synth);
    }

    Suite *s = suite_create("trace");
    TCase *fmt = tcase_create("format");
    TCase *fig = tcase_create("fig6");
    TCase *pat_ = tcase_create("patterns");
    TCase *neg = tcase_create("negatives");
    TCase *bad = tcase_create("bad files");
    TCase *meas = tcase_create("measuring");
    SRunner *sr;
    int failures;

    tcase_add_test(fmt, format_round_trip);
    tcase_add_test(fmt, event_clock_is_the_system_clock);
    tcase_add_test(fmt, hashes_compose);
    tcase_add_test(fmt, crc_and_sum_in_one_pass);
    tcase_add_test(fmt, matching_out_of_order);
    tcase_add_test(fmt, matching_many_channels);
    tcase_add_test(fig, fig6a_linear_with_noise);
    tcase_add_test(fig, fig6b_two_roots);
    tcase_add_test(fig, fig6c_repeated);
    tcase_add_test(fig, fig6d_nested);
    tcase_add_test(pat_, binomial_bcast);
    tcase_add_test(pat_, pipelined_bcast);
    tcase_add_test(pat_, scatter_allgather_bcast);
    tcase_add_test(pat_, ring_allgather);
    tcase_add_test(pat_, pairwise_alltoall);
    tcase_add_test(pat_, dissemination_barrier);
    tcase_add_test(pat_, barrier_over_subset);
    tcase_add_test(pat_, gather_with_self);
    tcase_add_test(pat_, gather_needs_self);
    tcase_add_test(pat_, scatter_with_self);
    tcase_add_test(pat_, sum_reduce_with_self);
    tcase_add_test(pat_, reduce_wrong_result);
    tcase_add_test(pat_, allreduce_reduce_then_bcast);
    tcase_add_test(pat_, bxor_reduce);
    tcase_add_test(pat_, linear_barrier);
    tcase_add_test(pat_, many_ranks);
    tcase_add_test(pat_, tree_gather);
    tcase_add_test(pat_, tree_sum_reduce);
    tcase_add_test(pat_, tree_scatter);
    tcase_add_test(pat_, bcast_over_half);
    tcase_add_test(pat_, near_match);
    tcase_add_test(neg, no_finding_halo);
    tcase_add_test(neg, no_finding_master_worker);
    tcase_add_test(neg, no_finding_equal_payloads);
    tcase_add_test(neg, no_finding_random_traffic);
    tcase_add_test(neg, library_messages_left_out);
    tcase_add_test(bad, bad_truncated);
    tcase_add_test(bad, bad_corrupted_block);
    tcase_add_test(bad, bad_version);
    tcase_add_test(bad, bad_mixed_sizes);
    tcase_add_test(bad, bad_mixed_ids);
    tcase_add_test(bad, bad_missing_and_args);
    tcase_add_test(bad, bad_blocks_and_writer_args);
    tcase_add_test(fmt, json_escapes);
    tcase_add_test(meas, measure_plan_groups);
    tcase_add_test(meas, measure_job_args);
    tcase_add_test(meas, measure_report_read);
    tcase_add_test(meas, measure_with_fake_jobs);
    tcase_add_test(meas, measure_bad_args);
    suite_add_tcase(s, fmt);
    suite_add_tcase(s, fig);
    suite_add_tcase(s, pat_);
    suite_add_tcase(s, neg);
    suite_add_tcase(s, bad);
    suite_add_tcase(s, meas);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failures = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failures ? 1 : 0;
}
