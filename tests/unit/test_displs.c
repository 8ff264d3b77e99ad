/*
 * Unit tests of the displacement module: detector D, recovery, segments and
 * gcd. No MPI job is needed; the functions only use MPI's types.
 *
 * Besides examples at every boundary (INT_MAX, 2^31, 2^32 and its
 * multiples, INT64_MAX), property tests run the functions on many thousands
 * of pseudo-random layouts from a fixed seed, so a failure is reproducible:
 * true 64-bit layouts are truncated to int as C does on a two's complement
 * machine and must be recovered exactly whenever the documented rules
 * allow it.
 */
#include <check.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "safecoll.h"

/* The internal step of recovery, to reach the MPI_Aint overflow boundary
 * without an array of over a billion entries. */
#include "displs.h"

#define TWO31 INT64_C(2147483648)
#define TWO32 INT64_C(4294967296)
#define NELEMS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Sentinels that no function under test would write by chance. */
#define SENT_INT (-12345)
#define SENT_AINT ((MPI_Aint)INT64_C(-7777777777))

/* The call failed with MPI_ERR_ARG and the message starts with the function
 * name and a colon and mentions `what` (the argument, often with its index). */
#define ASSERT_ARG_ERROR(rc, fn, what)                                                             \
    do {                                                                                           \
        const char *msg_ = safecoll_last_error(), *fn_ = (fn);                                     \
        size_t len_ = strlen(fn_);                                                                 \
        ck_assert_int_eq((rc), MPI_ERR_ARG);                                                       \
        ck_assert_msg(strncmp(msg_, fn_, len_) == 0 && msg_[len_] == ':',                          \
                      "message does not start with \"%s:\": \"%s\"", fn_, msg_);                   \
        ck_assert_msg(strstr(msg_, (what)) != NULL, "message lacks \"%s\": \"%s\"", (what), msg_); \
    } while (0)

/* The int an application gets from (int)v on this two's complement
 * machine. The cut to 32 bits is done on unsigned types, where C defines
 * it; only the reading of the bit pattern as int32_t is left to the
 * implementation, and GCC and Clang define it as two's complement. */
static int trunc32(int64_t v)
{
    return (int32_t)(uint32_t)(uint64_t)v;
}

/* xorshift64*: small, fast and the same on every platform. */
static uint64_t rng_state;

static void rng_seed(uint64_t seed)
{
    rng_state = seed ? seed : 1;
}

static uint64_t rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * UINT64_C(2685821657736338717);
}

/* Uniform enough in [0, bound) for bounds far below 2^64. */
static int64_t below(int64_t bound)
{
    return (int64_t)(rng() % (uint64_t)bound);
}

static int64_t between(int64_t lo, int64_t hi)
{
    return lo + below(hi - lo + 1);
}

static void fill_int(int *a, int n, int v)
{
    for (int i = 0; i < n; i++)
        a[i] = v;
}

static void fill_aint(MPI_Aint *a, int n, MPI_Aint v)
{
    for (int i = 0; i < n; i++)
        a[i] = v;
}

/* ------------------------------------------------------------------ */
/* safecoll_displs_check                                              */
/* ------------------------------------------------------------------ */

START_TEST(check_errors)
{
    int d[3] = {0, 1, 2}, bad = SENT_INT;

    ASSERT_ARG_ERROR(safecoll_displs_check(d, -1, &bad), "safecoll_displs_check", "n is negative");
    ASSERT_ARG_ERROR(safecoll_displs_check(d, INT_MIN, &bad), "safecoll_displs_check",
                     "n is negative");
    ASSERT_ARG_ERROR(safecoll_displs_check(NULL, 3, &bad), "safecoll_displs_check",
                     "displs is NULL");
    ASSERT_ARG_ERROR(safecoll_displs_check(d, 3, NULL), "safecoll_displs_check",
                     "first_bad is NULL");
    ASSERT_ARG_ERROR(safecoll_displs_check(NULL, 0, NULL), "safecoll_displs_check",
                     "first_bad is NULL");
    ck_assert_int_eq(bad, SENT_INT);
}
END_TEST

START_TEST(check_small)
{
    int bad = SENT_INT;

    ck_assert_int_eq(safecoll_displs_check(NULL, 0, &bad), MPI_SUCCESS);
    ck_assert_int_eq(bad, -1);

    int one[4] = {0, INT_MAX, -1, INT_MIN};
    int expect[4] = {-1, -1, 0, 0};
    for (int i = 0; i < 4; i++) {
        bad = SENT_INT;
        ck_assert_int_eq(safecoll_displs_check(&one[i], 1, &bad), MPI_SUCCESS);
        ck_assert_int_eq(bad, expect[i]);
    }
}
END_TEST

START_TEST(check_layouts)
{
    int bad;
    /* Equal neighbours (zero counts) and INT_MAX itself are clean. */
    int clean[] = {0, 0, 5, 5, 1000, INT_MAX - 1, INT_MAX, INT_MAX};
    /* The paper's MPI_Gatherv: 4 ranks of 800,000,000 elements. */
    int gatherv[] = {0, 800000000, 1600000000, -1894967296};
    int descent[] = {0, 10, 9, -1};
    int negative[] = {0, 10, -5, 3};
    /* 0, 3e9, 4.3e9 wraps to negative and back to a small positive value;
     * the negative entry gives it away. */
    int back[] = {0, trunc32(3000000000), trunc32(4300000000)};
    /* A step of 2^32 or more can wrap straight to a higher positive value:
     * such a layout looks clean, which is why recovery takes counts. */
    int hidden[] = {0, trunc32(TWO32 + 5)};

    ck_assert_int_eq(safecoll_displs_check(clean, NELEMS(clean), &bad), MPI_SUCCESS);
    ck_assert_int_eq(bad, -1);
    ck_assert_int_eq(safecoll_displs_check(gatherv, 4, &bad), MPI_SUCCESS);
    ck_assert_int_eq(bad, 3);
    ck_assert_int_eq(safecoll_displs_check(gatherv, 3, &bad), MPI_SUCCESS);
    ck_assert_int_eq(bad, -1);
    ck_assert_int_eq(safecoll_displs_check(descent, 4, &bad), MPI_SUCCESS);
    ck_assert_int_eq(bad, 2);
    ck_assert_int_eq(safecoll_displs_check(negative, 4, &bad), MPI_SUCCESS);
    ck_assert_int_eq(bad, 2);
    ck_assert_int_eq(safecoll_displs_check(back, 3, &bad), MPI_SUCCESS);
    ck_assert_int_eq(bad, 1);
    ck_assert_int_eq(back[2], 5032704);
    ck_assert_int_eq(safecoll_displs_check(hidden, 2, &bad), MPI_SUCCESS);
    ck_assert_int_eq(bad, -1);
}
END_TEST

/* ------------------------------------------------------------------ */
/* safecoll_displs_check_blocks                                       */
/* ------------------------------------------------------------------ */

START_TEST(check_blocks_errors)
{
    int d[3] = {0, 10, 20}, k[3] = {10, 10, 10}, bad = SENT_INT;
    int kneg[3] = {10, 10, -1};
    /* displs[1] is corrupted, yet the negative count later still wins. */
    int dbad[3] = {0, -10, 20};
    const char *fn = "safecoll_displs_check_blocks";

    ASSERT_ARG_ERROR(safecoll_displs_check_blocks(d, k, -1, &bad), fn, "n is negative");
    ASSERT_ARG_ERROR(safecoll_displs_check_blocks(NULL, k, 3, &bad), fn, "displs is NULL");
    ASSERT_ARG_ERROR(safecoll_displs_check_blocks(d, NULL, 3, &bad), fn, "counts is NULL");
    ASSERT_ARG_ERROR(safecoll_displs_check_blocks(d, k, 3, NULL), fn, "first_bad is NULL");
    ASSERT_ARG_ERROR(safecoll_displs_check_blocks(NULL, NULL, 0, NULL), fn, "first_bad is NULL");
    ASSERT_ARG_ERROR(safecoll_displs_check_blocks(d, kneg, 3, &bad), fn, "counts[2]");
    ASSERT_ARG_ERROR(safecoll_displs_check_blocks(dbad, kneg, 3, &bad), fn, "counts[2]");
    kneg[0] = INT_MIN;
    ASSERT_ARG_ERROR(safecoll_displs_check_blocks(d, kneg, 3, &bad), fn, "counts[0]");
    ck_assert_int_eq(bad, SENT_INT);

    ck_assert_int_eq(safecoll_displs_check_blocks(NULL, NULL, 0, &bad), MPI_SUCCESS);
    ck_assert_int_eq(bad, -1);
}
END_TEST

START_TEST(check_blocks_layouts)
{
    int bad;
    struct {
        int d[3], k[3], n, bad;
    } cases[] = {
        /* Descending without overlap is valid MPI. */
        {{200, 100, 0}, {100, 100, 100}, 3, -1},
        /* Touching blocks share no element, in either order. */
        {{0, 100, 200}, {100, 100, 100}, 3, -1},
        {{100, 0, 0}, {100, 100, 0}, 3, -1},
        /* Overlap ascending and descending. */
        {{0, 50, 200}, {100, 10, 1}, 3, 1},
        {{100, 50, 0}, {100, 60, 10}, 3, 1},
        /* Same start, both non-empty. */
        {{7, 7, 100}, {1, 1, 1}, 3, 1},
        /* Empty blocks overlap nothing, even at the same start. */
        {{100, 100, 50}, {0, 5, 0}, 3, -1},
        {{50, 10, 150}, {100, 0, 100}, 3, -1},
        /* An empty block inside its neighbour's, on either side. */
        {{0, 50, 100}, {100, 0, 100}, 3, -1},
        /* An empty block takes no part, as in the pipeline: MPI never
         * uses its displacement, so a negative one is not a wrap. */
        {{0, 10, -1}, {10, 10, 0}, 3, -1},
        {{INT_MIN, 0, 0}, {0, 0, 0}, 3, -1},
        {{0, 10, -1}, {10, 10, 1}, 3, 2},
        /* A block is compared with the previous non-empty one, across
         * empty blocks between them. */
        {{0, 500, 40}, {100, 0, 10}, 3, 2},
        {{0, 50, 100}, {100, 0, 10}, 3, -1},
        /* Block ends beyond INT_MAX are computed without overflow. */
        {{0, INT_MAX, 5}, {INT_MAX, INT_MAX, 0}, 3, -1},
        {{INT_MAX, 0, INT_MAX - 1}, {INT_MAX, INT_MAX, 2}, 3, 2},
        {{INT_MAX - 1, INT_MAX, 0}, {2, INT_MAX, 1}, 2, 1},
        /* A wrap of a gather of 3 x 2^31 - 1 elements. */
        {{0, INT_MAX, trunc32(2 * (TWO31 - 1))}, {INT_MAX, INT_MAX, INT_MAX}, 3, 2},
        /* A wrap past 2^32 that lands inside the previous block. */
        {{0, trunc32(TWO32 + 5), 0}, {INT_MAX, 10, 0}, 2, 1},
        /* n = 1. */
        {{INT_MAX, 0, 0}, {INT_MAX, 0, 0}, 1, -1},
        {{-1, 0, 0}, {0, 0, 0}, 1, -1},
        {{-1, 0, 0}, {1, 0, 0}, 1, 0},
    };

    for (int c = 0; c < NELEMS(cases); c++) {
        bad = SENT_INT;
        ck_assert_int_eq(safecoll_displs_check_blocks(cases[c].d, cases[c].k, cases[c].n, &bad),
                         MPI_SUCCESS);
        ck_assert_msg(bad == cases[c].bad, "case %d: first_bad %d, expected %d", c, bad,
                      cases[c].bad);
        /* The MPI_Count variant gives the same answer for the same counts. */
        {
            MPI_Count k64[3] = {cases[c].k[0], cases[c].k[1], cases[c].k[2]};
            bad = SENT_INT;
            ck_assert_int_eq(safecoll_displs_check_blocks_c(cases[c].d, k64, cases[c].n, &bad),
                             MPI_SUCCESS);
            ck_assert_msg(bad == cases[c].bad, "case %d (_c): first_bad %d, expected %d", c,
                          bad, cases[c].bad);
        }
    }
}
END_TEST

/* safecoll_displs_check_blocks_c (issue 15): its errors name it, and a
 * block longer than INT_MAX, which an int count cannot give, is seen to
 * overlap the next start. */
START_TEST(check_blocks_c)
{
    int d[3] = {0, 100, 200}, bad;
    MPI_Count k[3] = {10, 10, 10}, kneg[3] = {10, 10, -1}, big[3] = {TWO32 + 150, 10, 0};
    const char *fn = "safecoll_displs_check_blocks_c";

    ASSERT_ARG_ERROR(safecoll_displs_check_blocks_c(d, k, -1, &bad), fn, "n is negative");
    ASSERT_ARG_ERROR(safecoll_displs_check_blocks_c(NULL, k, 3, &bad), fn, "displs is NULL");
    ASSERT_ARG_ERROR(safecoll_displs_check_blocks_c(d, NULL, 3, &bad), fn, "counts is NULL");
    ASSERT_ARG_ERROR(safecoll_displs_check_blocks_c(d, k, 3, NULL), fn, "first_bad is NULL");
    ASSERT_ARG_ERROR(safecoll_displs_check_blocks_c(d, kneg, 3, &bad), fn, "counts[2]");
    ck_assert_int_eq(safecoll_displs_check_blocks_c(NULL, NULL, 0, &bad), MPI_SUCCESS);
    ck_assert_int_eq(bad, -1);
    ck_assert_int_eq(safecoll_displs_check_blocks_c(d, big, 3, &bad), MPI_SUCCESS);
    ck_assert_int_eq(bad, 1);
}
END_TEST

/* ------------------------------------------------------------------ */
/* safecoll_displs_recover                                            */
/* ------------------------------------------------------------------ */

/* Recover and compare with the expected values; NULL expect means the
 * call must fail with a message naming `what`, leaving out untouched. */
static void expect_recover(const int *d, const int *k, int n, const int64_t *expect,
                           const char *what, int line)
{
    MPI_Aint out[16];
    int rc;

    ck_assert_int_le(n, 16);
    fill_aint(out, 16, SENT_AINT);
    rc = safecoll_displs_recover(d, k, n, out);
    if (expect == NULL) {
        ck_assert_msg(rc == MPI_ERR_ARG, "line %d: rc %d, expected MPI_ERR_ARG", line, rc);
        ASSERT_ARG_ERROR(rc, "safecoll_displs_recover", what);
        for (int i = 0; i < 16; i++)
            ck_assert_msg(out[i] == SENT_AINT, "line %d: out[%d] written on error", line, i);
        return;
    }
    ck_assert_msg(rc == MPI_SUCCESS, "line %d: rc %d: %s", line, rc, safecoll_last_error());
    for (int i = 0; i < n; i++)
        ck_assert_msg(out[i] == expect[i], "line %d: out[%d] = %lld, expected %lld", line, i,
                      (long long)out[i], (long long)expect[i]);
    for (int i = n; i < 16; i++)
        ck_assert_msg(out[i] == SENT_AINT, "line %d: out[%d] written beyond n", line, i);
    /* The MPI_Count variant recovers the same from the same counts. */
    {
        MPI_Count k64[16];
        for (int i = 0; k != NULL && i < n; i++)
            k64[i] = k[i];
        fill_aint(out, 16, SENT_AINT);
        rc = safecoll_displs_recover_c(d, k != NULL ? k64 : NULL, n, out);
        ck_assert_msg(rc == MPI_SUCCESS, "line %d (_c): rc %d: %s", line, rc,
                      safecoll_last_error());
        for (int i = 0; i < n; i++)
            ck_assert_msg(out[i] == expect[i], "line %d (_c): out[%d] = %lld, expected %lld",
                          line, i, (long long)out[i], (long long)expect[i]);
    }
}

/* safecoll_displs_recover_c (issue 15): the errors name it, and a count
 * above INT_MAX, which the int variant cannot take, proves a step of more
 * than 2^32 between two starts. */
START_TEST(recover_c)
{
    int d[3] = {0, 10, 20}, dw[2] = {0, 5};
    MPI_Count k[3] = {10, 10, 10}, kneg[3] = {10, 10, -1}, big[2] = {TWO32 + 10, 1};
    MPI_Aint out[3] = {SENT_AINT, SENT_AINT, SENT_AINT};
    const char *fn = "safecoll_displs_recover_c";

    ASSERT_ARG_ERROR(safecoll_displs_recover_c(d, k, -1, out), fn, "n is negative");
    ASSERT_ARG_ERROR(safecoll_displs_recover_c(NULL, k, 3, out), fn, "displs is NULL");
    ASSERT_ARG_ERROR(safecoll_displs_recover_c(d, k, 3, NULL), fn, "out is NULL");
    ASSERT_ARG_ERROR(safecoll_displs_recover_c(d, kneg, 3, out), fn, "counts[2]");
    d[2] = 5;
    ASSERT_ARG_ERROR(safecoll_displs_recover_c(d, k, 3, out), fn, "descends");
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(out[i], SENT_AINT);
    ck_assert_int_eq(safecoll_displs_recover_c(NULL, NULL, 0, NULL), MPI_SUCCESS);
    ck_assert_int_eq(safecoll_displs_recover_c(dw, big, 2, out), MPI_SUCCESS);
    ck_assert_int_eq(out[0], 0);
    ck_assert_int_eq(out[1], 2 * TWO32 + 5);
}
END_TEST

#define EXPECT_RECOVER(d, k, n, expect) expect_recover(d, k, n, expect, NULL, __LINE__)
#define EXPECT_RECOVER_FAILS(d, k, n, what) expect_recover(d, k, n, NULL, what, __LINE__)

START_TEST(recover_errors)
{
    int d[3] = {0, 10, 20}, k[3] = {10, 10, 10}, kneg[3] = {10, 10, -1};
    MPI_Aint out[3] = {SENT_AINT, SENT_AINT, SENT_AINT};
    const char *fn = "safecoll_displs_recover";

    ASSERT_ARG_ERROR(safecoll_displs_recover(d, k, -1, out), fn, "n is negative");
    ASSERT_ARG_ERROR(safecoll_displs_recover(d, NULL, INT_MIN, out), fn, "n is negative");
    ASSERT_ARG_ERROR(safecoll_displs_recover(NULL, k, 3, out), fn, "displs is NULL");
    ASSERT_ARG_ERROR(safecoll_displs_recover(d, k, 3, NULL), fn, "out is NULL");
    /* The last count takes no part in recovery but is still checked. */
    ASSERT_ARG_ERROR(safecoll_displs_recover(d, kneg, 3, out), fn, "counts[2]");
    kneg[0] = -5;
    ASSERT_ARG_ERROR(safecoll_displs_recover(d, kneg, 3, out), fn, "counts[0]");
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(out[i], SENT_AINT);

    ck_assert_int_eq(safecoll_displs_recover(NULL, NULL, 0, NULL), MPI_SUCCESS);
    ck_assert_int_eq(safecoll_displs_recover(d, k, 0, out), MPI_SUCCESS);
    ck_assert_int_eq(out[0], SENT_AINT);
}
END_TEST

START_TEST(recover_single)
{
    int d[] = {0, 1, INT_MAX, -1, INT_MIN};
    int64_t c[] = {0, 1, INT_MAX, TWO32 - 1, TWO31};
    int k[] = {INT_MAX};

    for (int i = 0; i < NELEMS(d); i++) {
        EXPECT_RECOVER(&d[i], NULL, 1, &c[i]);
        EXPECT_RECOVER(&d[i], k, 1, &c[i]);
    }
}
END_TEST

START_TEST(recover_paper)
{
    /* The MPI_Gatherv of DESIGN.md: 4 ranks of 800,000,000 elements. */
    int d[] = {0, 800000000, 1600000000, -1894967296};
    int k[] = {800000000, 800000000, 800000000, 800000000};
    int64_t c[] = {0, 800000000, 1600000000, 2400000000};

    EXPECT_RECOVER(d, NULL, 4, c);
    EXPECT_RECOVER(d, k, 4, c);
}
END_TEST

START_TEST(recover_boundaries)
{
    /* Steps of exactly 2^31 pass through 2^32 and its multiples. */
    int64_t c[8];
    int d[8], k[8];
    for (int i = 0; i < 8; i++) {
        c[i] = i * TWO31;
        d[i] = trunc32(c[i]);
        k[i] = INT_MAX;
    }
    ck_assert_int_eq(d[1], INT_MIN);
    ck_assert_int_eq(d[2], 0);
    EXPECT_RECOVER(d, NULL, 8, c);
    EXPECT_RECOVER(d, k, 8, c);

    /* INT_MAX to 2^31 is a step of one across the sign. */
    int d2[] = {INT_MAX, INT_MIN, -1, 0, INT_MAX};
    int64_t c2[] = {INT_MAX, TWO31, TWO32 - 1, TWO32, TWO32 + INT_MAX};
    int k2[] = {1, INT_MAX, 1, INT_MAX, 0};
    EXPECT_RECOVER(d2, NULL, 5, c2);
    EXPECT_RECOVER(d2, k2, 5, c2);

    /* Wraps back to positive, twice: 0, 1.5e9, ..., 7.5e9. */
    int64_t c3[6];
    int d3[6], k3[6];
    for (int i = 0; i < 6; i++) {
        c3[i] = i * INT64_C(1500000000);
        d3[i] = trunc32(c3[i]);
        k3[i] = 1500000000;
    }
    ck_assert_int_lt(d3[2], 0);
    ck_assert_int_gt(d3[3], 0);
    ck_assert_int_lt(d3[5], 0);
    EXPECT_RECOVER(d3, NULL, 6, c3);
    EXPECT_RECOVER(d3, k3, 6, c3);

    /* A negative first entry starts in [2^31, 2^32). */
    int d4[] = {-100, -50, 10};
    int64_t c4[] = {TWO32 - 100, TWO32 - 50, TWO32 + 10};
    EXPECT_RECOVER(d4, NULL, 3, c4);
}
END_TEST

START_TEST(recover_counts)
{
    /* Zero counts let equal entries stay equal; a count of one proves a
     * step of exactly 2^32. */
    int d[] = {5, 5, 5};
    int k0[] = {0, 0, 0}, k1[] = {1, 0, 0};
    int64_t same[] = {5, 5, 5}, jump[] = {5, TWO32 + 5, TWO32 + 5};
    EXPECT_RECOVER(d, NULL, 3, same);
    EXPECT_RECOVER(d, k0, 3, same);
    EXPECT_RECOVER(d, k1, 3, jump);

    /* A step of more than 2^32 between two starts, proven by a long block:
     * without counts the layout looks clean. */
    int64_t c[] = {0, TWO32 + 10, 2 * TWO32 + 20, 2 * TWO32 + 20 + INT_MAX};
    int dc[4], kc[] = {INT_MAX, INT_MAX, INT_MAX, 0};
    for (int i = 0; i < 4; i++)
        dc[i] = trunc32(c[i]);
    int64_t naive[] = {0, 10, 20, (int64_t)INT_MAX + 20};
    EXPECT_RECOVER(dc, kc, 4, c);
    EXPECT_RECOVER(dc, NULL, 4, naive);

    /* The largest step counts allow: INT_MAX + 2^32 - 1. */
    int64_t big[] = {0, INT_MAX + TWO32 - 1};
    int db[] = {0, trunc32(big[1])}, kb[] = {INT_MAX, 0};
    EXPECT_RECOVER(db, kb, 2, big);

    /* A count that ends exactly on the next start does not move it. */
    int de[] = {0, INT_MAX}, ke[] = {INT_MAX, 0};
    int64_t ce[] = {0, INT_MAX};
    EXPECT_RECOVER(de, ke, 2, ce);
}
END_TEST

START_TEST(recover_descent)
{
    int pos[] = {0, 10, 9};
    int neg[] = {0, -5, -6};
    int extreme[] = {INT_MAX, 0};
    int kextreme[] = {INT_MAX, 0};
    int kpos[] = {1, 1, 1};
    int cross[] = {100, -5, 3};
    int64_t ccross[] = {100, TWO32 - 5, TWO32 + 3};

    EXPECT_RECOVER_FAILS(pos, NULL, 3, "displs[2]");
    EXPECT_RECOVER_FAILS(neg, NULL, 3, "displs[2]");
    EXPECT_RECOVER_FAILS(pos, kpos, 3, "displs[2]");
    /* Refused as documented even though counts would place displs[1] at
     * 2^32: a same-sign descent is never taken for a wrap. */
    EXPECT_RECOVER_FAILS(extreme, kextreme, 2, "displs[1]");
    EXPECT_RECOVER_FAILS(extreme, NULL, 2, "displs[1]");
    /* A descent across the sign is a wrap. */
    EXPECT_RECOVER(cross, NULL, 3, ccross);
}
END_TEST

START_TEST(recover_next_overflow)
{
    int64_t c = -1;

    /* INT64_MAX is congruent to -1 modulo 2^32. */
    ck_assert_int_eq(sc__displs_next(-1, INT64_MAX, 0, &c), 0);
    ck_assert_int_eq(c, INT64_MAX);
    c = -1;
    ck_assert_int_eq(sc__displs_next(0, INT64_MAX, 0, &c), -1);
    ck_assert_int_eq(sc__displs_next(-1, INT64_MAX, 1, &c), -1);
    ck_assert_int_eq(sc__displs_next(0, INT64_MAX - 5, 10, &c), -1);
    ck_assert_int_eq(sc__displs_next(-1, INT64_MAX - INT_MAX, INT_MAX, &c), 0);
    ck_assert_int_eq(c, INT64_MAX);

    /* lo = INT64_MAX - 2^32 + 1 is a multiple of 2^32: a = -1 reaches
     * exactly INT64_MAX, and from lo + 1 a = 0 would need INT64_MAX + 1. */
    int64_t lo = INT64_MAX - TWO32 + 1;
    c = -1;
    ck_assert_int_eq(sc__displs_next(0, lo, 0, &c), 0);
    ck_assert_int_eq(c, lo);
    ck_assert_int_eq(sc__displs_next(-1, lo, 0, &c), 0);
    ck_assert_int_eq(c, INT64_MAX);
    c = -1;
    ck_assert_int_eq(sc__displs_next(0, lo, 1, &c), -1);
    ck_assert_int_eq(c, -1);

    /* The plain cases of the step itself. */
    ck_assert_int_eq(sc__displs_next(INT_MIN, 0, 0, &c), 0);
    ck_assert_int_eq(c, TWO31);
    ck_assert_int_eq(sc__displs_next(3, TWO32 + 4, 0, &c), 0);
    ck_assert_int_eq(c, 2 * TWO32 + 3);
    ck_assert_int_eq(sc__displs_next(3, TWO32 + 3, 0, &c), 0);
    ck_assert_int_eq(c, TWO32 + 3);
}
END_TEST

/* ------------------------------------------------------------------ */
/* safecoll_displs_believable and sc__displs_resolve (issue 14)       */
/* ------------------------------------------------------------------ */

START_TEST(believable_errors)
{
    MPI_Aint d[3] = {0, 10, 20};
    MPI_Count k[3] = {10, 10, 10}, kneg[3] = {10, 10, -1};
    int bad = SENT_INT;
    const char *fn = "safecoll_displs_believable";

    ASSERT_ARG_ERROR(safecoll_displs_believable(d, k, -1, &bad), fn, "n is negative");
    ASSERT_ARG_ERROR(safecoll_displs_believable(NULL, k, 3, &bad), fn, "displs is NULL");
    ASSERT_ARG_ERROR(safecoll_displs_believable(d, NULL, 3, &bad), fn, "counts is NULL");
    ASSERT_ARG_ERROR(safecoll_displs_believable(d, k, 3, NULL), fn, "first_bad is NULL");
    ASSERT_ARG_ERROR(safecoll_displs_believable(NULL, NULL, 0, NULL), fn, "first_bad is NULL");
    ASSERT_ARG_ERROR(safecoll_displs_believable(d, kneg, 3, &bad), fn, "counts[2]");
    ck_assert_int_eq(bad, SENT_INT);

    ck_assert_int_eq(safecoll_displs_believable(NULL, NULL, 0, &bad), MPI_SUCCESS);
    ck_assert_int_eq(bad, -1);
}
END_TEST

START_TEST(believable_examples)
{
    int bad;
    struct {
        MPI_Aint d[4];
        MPI_Count k[4];
        int n, bad;
    } cases[] = {
        /* MPICH's allgatherv4, {2,1,0,0} at {0,0,0,0}, as recovery reads it:
         * block 1 would start 2^32 - 2 past the end of block 0. */
        {{0, TWO32, 0, 0}, {2, 1, 0, 0}, 4, 1},
        /* The paper's gatherv, recovered: packed, every gap 0. */
        {{0, 800000000, 1600000000, 2400000000}, {800000000, 800000000, 800000000, 800000000},
         4, -1},
        /* Sparse blocks: gaps of 1.5e9, and exactly INT_MAX. */
        {{1000000000, 2500000000, 4000000000, 4000004096 + INT_MAX},
         {4096, 4096, 4096, 4096}, 4, -1},
        /* One more than INT_MAX past the end of the blocks before. */
        {{0, TWO31 + 1, 0, 0}, {1, 1, 0, 0}, 2, 1},
        {{0, TWO31, 0, 0}, {1, 1, 0, 0}, 2, -1},
        /* The first block has nothing before it: at most INT_MAX. */
        {{INT_MAX, 0, 0, 0}, {1, 0, 0, 0}, 1, -1},
        {{TWO31, 0, 0, 0}, {1, 0, 0, 0}, 1, 0},
        {{TWO32 - 1, 0, 0, 0}, {1, 0, 0, 0}, 1, 0},
        /* Empty blocks take no part, wherever they point. */
        {{0, 5 * TWO32, -7, 10}, {10, 0, 0, 10}, 4, -1},
        {{5 * TWO32, 0, 0, 0}, {0, 1, 0, 0}, 2, -1},
        /* The end is the largest end so far: a short block inside a long
         * one does not pull it back. */
        {{0, 0, INT64_C(200) + INT_MAX, 0}, {200, 1, 1, 0}, 3, -1},
        {{0, 0, INT64_C(201) + INT_MAX, 0}, {200, 1, 1, 0}, 3, 2},
        /* Overlaps and descents are recovery's business, not the rule's. */
        {{100, 0, 50, -3}, {10, 10, 100, 1}, 4, -1},
        /* Ends near the top of MPI_Aint saturate instead of overflowing. */
        {{0, INT64_MAX - 10, INT64_MAX, 0}, {INT64_MAX - 10, 100, 1, 0}, 3, -1},
    };

    for (int c = 0; c < NELEMS(cases); c++) {
        bad = SENT_INT;
        ck_assert_int_eq(safecoll_displs_believable(cases[c].d, cases[c].k, cases[c].n, &bad),
                         MPI_SUCCESS);
        ck_assert_msg(bad == cases[c].bad, "case %d: first_bad %d, expected %d", c, bad,
                      cases[c].bad);
    }
}
END_TEST

/* Runs sc__displs_resolve and checks its verdict: rc, *wrapped, *first_bad
 * and, on success, out (expect == NULL: the entries as written). */
static void expect_resolve(const int *d, const MPI_Count *len, int n, int blocks, int rc_expect,
                           int wrapped_expect, int bad_expect, const int64_t *expect, int line)
{
    MPI_Aint out[16];
    int wrapped = SENT_INT, bad = SENT_INT, rc;

    ck_assert_int_le(n, 16);
    fill_aint(out, 16, SENT_AINT);
    rc = sc__displs_resolve(d, len, n, blocks, out, &wrapped, &bad);
    ck_assert_msg(rc == rc_expect, "line %d: rc %d, expected %d (%s)", line, rc, rc_expect,
                  safecoll_last_error());
    if (rc != MPI_SUCCESS) {
        ck_assert_msg(wrapped == 0, "line %d: wrapped %d on error", line, wrapped);
        return;
    }
    ck_assert_msg(wrapped == wrapped_expect && bad == bad_expect,
                  "line %d: wrapped %d first_bad %d, expected %d %d", line, wrapped, bad,
                  wrapped_expect, bad_expect);
    for (int i = 0; i < n; i++)
        ck_assert_msg(out[i] == (expect != NULL ? expect[i] : d[i]),
                      "line %d: out[%d] = %lld, expected %lld", line, i, (long long)out[i],
                      (long long)(expect != NULL ? expect[i] : d[i]));
}

#define RESOLVE_AS_WRITTEN(d, len, n, blocks, bad)                                                 \
    expect_resolve(d, len, n, blocks, MPI_SUCCESS, 0, bad, NULL, __LINE__)
#define RESOLVE_RECOVERS(d, len, n, blocks, bad, expect)                                           \
    expect_resolve(d, len, n, blocks, MPI_SUCCESS, 1, bad, expect, __LINE__)
#define RESOLVE_REFUSES(d, len, n, blocks, what)                                                   \
    do {                                                                                           \
        expect_resolve(d, len, n, blocks, MPI_ERR_ARG, 0, 0, NULL, __LINE__);                      \
        ck_assert_msg(strstr(safecoll_last_error(), (what)) != NULL, "message lacks \"%s\": %s",   \
                      (what), safecoll_last_error());                                              \
    } while (0)

START_TEST(resolve_examples)
{
    /* MPICH's allgatherv4 on 4 ranks: D fires at rank 1 (its block overlaps
     * rank 0's), but 3 ints cannot have wrapped: as written. */
    int d4[] = {0, 0, 0, 0};
    MPI_Count k4[] = {2, 1, 0, 0};
    RESOLVE_AS_WRITTEN(d4, k4, 4, 1, 1);

    /* alltoallw_zeros' blocks of a type of size 0 have length 0: no D,
     * even at a negative displacement. */
    int dz[] = {0, 0, -1};
    MPI_Count kz[] = {0, 0, 0};
    RESOLVE_AS_WRITTEN(dz, kz, 3, 1, -1);
    RESOLVE_AS_WRITTEN(dz, kz, 3, 0, -1);

    /* Equal displacements with data: an overlap on a receive side (not a
     * wrap, as written), nothing at all on a send side. */
    int de[] = {7, 7, 7};
    MPI_Count ke[] = {3, 3, 3};
    RESOLVE_AS_WRITTEN(de, ke, 3, 1, 1);
    RESOLVE_AS_WRITTEN(de, ke, 3, 0, -1);

    /* A small overlapping descent: recovery would refuse it, the rule
     * says it is no wrap, and MPI runs it. */
    int dd[] = {10, 5};
    MPI_Count kd[] = {1, 10};
    RESOLVE_AS_WRITTEN(dd, kd, 2, 1, 1);

    /* The paper's gatherv: counts of 800,000,000 and displs i*n in int. */
    int dp[] = {0, 800000000, 1600000000, -1894967296};
    MPI_Count kp[] = {800000000, 800000000, 800000000, 800000000};
    int64_t cp[] = {0, 800000000, 1600000000, 2400000000};
    RESOLVE_RECOVERS(dp, kp, 4, 1, 3, cp);
    RESOLVE_RECOVERS(dp, kp, 4, 0, 3, cp);

    /* Sparse blocks with gaps (the MPI suites' 6 GiB buffer), an empty
     * rank with a stray displacement among them. */
    int64_t cs[] = {1000000000, 2500000000, 2500000000, 4000000000, 5500000000};
    MPI_Count ks[] = {4096, 4096, 0, 4096, 4096};
    int ds[5];
    for (int i = 0; i < 5; i++)
        ds[i] = trunc32(cs[i]);
    ds[2] = -1;
    /* The empty rank's entry comes back as written. */
    cs[2] = -1;
    RESOLVE_RECOVERS(ds, ks, 5, 1, 1, cs);
    RESOLVE_RECOVERS(ds, ks, 5, 0, 1, cs);

    /* Negative entries no wrap of the counts explains: a block at -1 after
     * one at 0 (it would start 2^32 - 3 past it), a first block at -1, and
     * a send side of one element per block. MPI would write before the
     * buffer: refused. */
    int dn[] = {1, -1};
    MPI_Count kn[] = {1, 1};
    RESOLVE_REFUSES(dn, kn, 2, 1, "displs[1]");
    RESOLVE_REFUSES(dn, kn, 2, 0, "displs[1]");
    int df[] = {-1, 0};
    RESOLVE_REFUSES(df, kn, 2, 1, "displs[0]");
    int dsend[] = {0, INT_MIN};
    MPI_Count ksend[] = {1, 1};
    int64_t csend[] = {0, TWO31};
    RESOLVE_RECOVERS(dsend, ksend, 2, 0, 1, csend);
    dsend[1] = INT_MIN + 1;
    RESOLVE_REFUSES(dsend, ksend, 2, 0, "displs[1]");

    /* A believable wrap that recovery refuses, as documented (a descent
     * within one sign): refused, not run as written. With int counts every
     * believable wrap that D sees only as an overlap of two non-negative
     * ints is such a descent: ascending inside the earlier block, the gap
     * would need that block to hold more than INT_MAX elements. */
    int dr[] = {100, 50};
    MPI_Count kr[] = {INT_MAX, 100};
    RESOLVE_REFUSES(dr, kr, 2, 1, "descends");
}
END_TEST

/* ------------------------------------------------------------------ */
/* safecoll_displs_segments                                           */
/* ------------------------------------------------------------------ */

START_TEST(segments_errors)
{
    MPI_Aint d[3] = {0, 10, 20};
    MPI_Count k[3] = {10, 10, 10}, kbad[3] = {10, 10, -1};
    int nseg = SENT_INT, starts[4], reb[3];
    const char *fn = "safecoll_displs_segments";

    fill_int(starts, 4, SENT_INT);
    fill_int(reb, 3, SENT_INT);
    ASSERT_ARG_ERROR(safecoll_displs_segments(d, k, -1, 100, &nseg, starts, reb), fn,
                     "n is negative");
    ASSERT_ARG_ERROR(safecoll_displs_segments(NULL, k, 3, 100, &nseg, starts, reb), fn,
                     "displs is NULL");
    ASSERT_ARG_ERROR(safecoll_displs_segments(d, k, 3, 100, NULL, starts, reb), fn, "nseg is NULL");
    ASSERT_ARG_ERROR(safecoll_displs_segments(d, k, 3, 100, &nseg, NULL, reb), fn,
                     "seg_start is NULL");
    /* seg_start has n + 1 entries, so it is needed even for n = 0. */
    ASSERT_ARG_ERROR(safecoll_displs_segments(NULL, NULL, 0, 100, &nseg, NULL, NULL), fn,
                     "seg_start is NULL");
    ASSERT_ARG_ERROR(safecoll_displs_segments(d, k, 3, 0, &nseg, starts, reb), fn, "limit");
    ASSERT_ARG_ERROR(safecoll_displs_segments(d, k, 3, -1, &nseg, starts, reb), fn, "limit");
    ASSERT_ARG_ERROR(safecoll_displs_segments(d, k, 3, (MPI_Aint)INT_MAX + 1, &nseg, starts, reb),
                     fn, "limit");
    ASSERT_ARG_ERROR(safecoll_displs_segments(d, NULL, 3, INT64_MIN, &nseg, starts, reb), fn,
                     "limit");
    ASSERT_ARG_ERROR(safecoll_displs_segments(d, kbad, 3, 100, &nseg, starts, reb), fn,
                     "counts[2]");
    kbad[2] = 101;
    ASSERT_ARG_ERROR(safecoll_displs_segments(d, kbad, 3, 100, &nseg, starts, reb), fn,
                     "counts[2]");
    kbad[0] = (MPI_Count)INT_MAX + 1;
    kbad[2] = 0;
    ASSERT_ARG_ERROR(safecoll_displs_segments(d, kbad, 3, INT_MAX, &nseg, starts, reb), fn,
                     "counts[0]");

    ck_assert_int_eq(nseg, SENT_INT);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(starts[i], SENT_INT);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(reb[i], SENT_INT);
}
END_TEST

START_TEST(segments_small)
{
    int nseg = SENT_INT, starts[2] = {SENT_INT, SENT_INT}, reb[1] = {SENT_INT};
    MPI_Aint d[1] = {INT64_MAX};
    MPI_Count k[1] = {1};

    ck_assert_int_eq(safecoll_displs_segments(NULL, NULL, 0, 1, &nseg, starts, NULL), MPI_SUCCESS);
    ck_assert_int_eq(nseg, 0);
    ck_assert_int_eq(starts[0], 0);

    ck_assert_int_eq(safecoll_displs_segments(d, k, 1, 1, &nseg, starts, reb), MPI_SUCCESS);
    ck_assert_int_eq(nseg, 1);
    ck_assert_int_eq(starts[0], 0);
    ck_assert_int_eq(starts[1], 1);
    ck_assert_int_eq(reb[0], 0);
}
END_TEST

/* Run segments and compare with the expected starts (nseg + 1 entries)
 * and rebased values. */
static void expect_segments(const MPI_Aint *d, const MPI_Count *k, int n, MPI_Aint limit,
                            int nseg_expect, const int *starts_expect, const int *reb_expect,
                            int line)
{
    int nseg = SENT_INT, starts[17], reb[16];

    ck_assert_int_le(n, 16);
    fill_int(starts, 17, SENT_INT);
    fill_int(reb, 16, SENT_INT);
    ck_assert_msg(safecoll_displs_segments(d, k, n, limit, &nseg, starts, reb) == MPI_SUCCESS,
                  "line %d: %s", line, safecoll_last_error());
    ck_assert_msg(nseg == nseg_expect, "line %d: nseg %d, expected %d", line, nseg, nseg_expect);
    for (int s = 0; s <= nseg; s++)
        ck_assert_msg(starts[s] == starts_expect[s], "line %d: seg_start[%d] = %d, expected %d",
                      line, s, starts[s], starts_expect[s]);
    for (int i = 0; i < n; i++)
        ck_assert_msg(reb[i] == reb_expect[i], "line %d: rebased[%d] = %d, expected %d", line, i,
                      reb[i], reb_expect[i]);
}

START_TEST(segments_examples)
{
    /* The paper's MPI_Gatherv, recovered, against the int limit. */
    MPI_Aint g[] = {0, 800000000, 1600000000, 2400000000};
    MPI_Count gk[] = {800000000, 800000000, 800000000, 800000000};
    int gs[] = {0, 3, 4}, gr[] = {0, 800000000, 1600000000, 0};
    expect_segments(g, gk, 4, INT_MAX, 2, gs, gr, __LINE__);
    expect_segments(g, NULL, 4, INT_MAX, 2, gs, gr, __LINE__);

    /* A difference of exactly the limit stays; one more starts anew. */
    MPI_Aint b[] = {0, INT_MAX, TWO31, TWO31 + INT_MAX, TWO32 + INT_MAX};
    int bs[] = {0, 2, 4, 5}, br[] = {0, INT_MAX, 0, INT_MAX, 0};
    expect_segments(b, NULL, 5, INT_MAX, 3, bs, br, __LINE__);

    /* Limit 1: equal and adjacent entries group, gaps split. */
    MPI_Aint s[] = {0, 0, 1, 1, 2, 2, 4};
    MPI_Count sk[] = {0, 1, 0, 1, 1, 0, 1};
    int ss[] = {0, 4, 6, 7}, sr[] = {0, 0, 1, 1, 0, 0, 0};
    expect_segments(s, sk, 7, 1, 3, ss, sr, __LINE__);

    /* A descent starts a new segment, even a small one; negative and
     * extreme values are grouped without overflow. */
    MPI_Aint e[] = {100, 50, 60, INT64_MIN, INT64_MIN + 5, INT64_MAX, INT64_MIN, -1, 0};
    int es[] = {0, 1, 3, 5, 6, 7, 9}, er[] = {0, 0, 10, 0, 5, 0, 0, 0, 1};
    expect_segments(e, NULL, 9, 10, 6, es, er, __LINE__);

    /* Multiples of 2^32: every rank on its own. */
    MPI_Aint m[] = {0, TWO32, 2 * TWO32, 3 * TWO32};
    int ms[] = {0, 1, 2, 3, 4}, mr[] = {0, 0, 0, 0};
    expect_segments(m, NULL, 4, INT_MAX, 4, ms, mr, __LINE__);
}
END_TEST

START_TEST(segments_after_recover)
{
    /* 9 ranks of 10^9 elements: each segment holds three ranks. */
    int d[9], k[9];
    MPI_Aint c[9];
    MPI_Count kc[9];
    for (int i = 0; i < 9; i++) {
        d[i] = trunc32(i * INT64_C(1000000000));
        k[i] = 1000000000;
        kc[i] = k[i];
    }
    ck_assert_int_eq(safecoll_displs_recover(d, k, 9, c), MPI_SUCCESS);
    int st[] = {0, 3, 6, 9};
    int r[] = {0, 1000000000, 2000000000, 0, 1000000000, 2000000000, 0, 1000000000, 2000000000};
    expect_segments(c, kc, 9, INT_MAX, 3, st, r, __LINE__);

    int nseg = SENT_INT, starts[10];
    ck_assert_int_eq(safecoll_displs_segments(c, kc, 9, INT_MAX, &nseg, starts, NULL), MPI_SUCCESS);
    ck_assert_int_eq(nseg, 3);
}
END_TEST

/* ------------------------------------------------------------------ */
/* safecoll_displs_gcd                                                */
/* ------------------------------------------------------------------ */

START_TEST(gcd_errors)
{
    MPI_Aint d[2] = {4, 8};
    MPI_Count k[2] = {4, -4}, g = SENT_AINT;
    MPI_Aint dmin[3] = {INT64_MIN, 0, INT64_MIN};
    MPI_Count kzero[3] = {0, 0, 0};
    const char *fn = "safecoll_displs_gcd";

    ASSERT_ARG_ERROR(safecoll_displs_gcd(d, k, -1, &g), fn, "n is negative");
    ASSERT_ARG_ERROR(safecoll_displs_gcd(d, NULL, 2, NULL), fn, "g is NULL");
    ASSERT_ARG_ERROR(safecoll_displs_gcd(NULL, NULL, 0, NULL), fn, "g is NULL");
    ASSERT_ARG_ERROR(safecoll_displs_gcd(NULL, NULL, 2, &g), fn, "both NULL");
    ASSERT_ARG_ERROR(safecoll_displs_gcd(d, k, 2, &g), fn, "counts[1]");
    ASSERT_ARG_ERROR(safecoll_displs_gcd(NULL, k, 2, &g), fn, "counts[1]");
    /* |INT64_MIN| = 2^63 does not fit MPI_Count. */
    ASSERT_ARG_ERROR(safecoll_displs_gcd(dmin, NULL, 3, &g), fn, "displs[0]");
    ASSERT_ARG_ERROR(safecoll_displs_gcd(dmin + 1, kzero, 2, &g), fn, "displs[1]");
    ck_assert_int_eq(g, SENT_AINT);
}
END_TEST

static MPI_Count gcd_of(const MPI_Aint *d, const MPI_Count *k, int n)
{
    MPI_Count g = SENT_AINT;

    ck_assert_msg(safecoll_displs_gcd(d, k, n, &g) == MPI_SUCCESS, "%s", safecoll_last_error());
    return g;
}

START_TEST(gcd_examples)
{
    MPI_Aint d[] = {0, 6, 12};
    MPI_Count k[] = {6, 6, 6};
    MPI_Aint d2[] = {0, 4, 10};
    MPI_Count k2[] = {4, 6, 2};
    MPI_Aint neg[] = {-9, 6};
    MPI_Count k3[] = {10, 15, 0};
    MPI_Aint zeros[] = {0, 0};
    MPI_Count kzeros[] = {0, 0};
    MPI_Aint big[] = {0, 800000000, 1600000000, 2400000000};
    MPI_Count kbig[] = {800000000, 800000000, 800000000, 800000000};
    MPI_Aint mixed[] = {INT64_MIN, 6};
    MPI_Aint top[] = {INT64_MAX};
    MPI_Aint prime[] = {0, 7, 14};
    MPI_Count kprime[] = {7, 7, 6};
    MPI_Aint pow2[] = {TWO32, 3 * TWO32, 0};

    ck_assert_int_eq(gcd_of(NULL, NULL, 0), 0);
    ck_assert_int_eq(gcd_of(d, k, 0), 0);
    ck_assert_int_eq(gcd_of(d, k, 3), 6);
    ck_assert_int_eq(gcd_of(d2, k2, 3), 2);
    ck_assert_int_eq(gcd_of(d2, NULL, 3), 2);
    ck_assert_int_eq(gcd_of(NULL, k2, 2), 2);
    ck_assert_int_eq(gcd_of(neg, NULL, 2), 3);
    ck_assert_int_eq(gcd_of(NULL, k3, 3), 5);
    ck_assert_int_eq(gcd_of(zeros, kzeros, 2), 0);
    ck_assert_int_eq(gcd_of(zeros, NULL, 1), 0);
    ck_assert_int_eq(gcd_of(big, kbig, 4), 800000000);
    ck_assert_int_eq(gcd_of(mixed, NULL, 2), 2);
    ck_assert_int_eq(gcd_of(top, NULL, 1), INT64_MAX);
    ck_assert_int_eq(gcd_of(prime, kprime, 3), 1);
    ck_assert_int_eq(gcd_of(pow2, NULL, 3), TWO32);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Property tests                                                     */
/* ------------------------------------------------------------------ */

enum { MAXN = 48, LAYOUTS = 100000 };

/* Check records every ck_assert for the forked child's report, which costs
 * a system call; the property loops make millions of checks, so they only
 * call into Check when a check fails. */
#define PROP(cond, ...)                                                                            \
    do {                                                                                           \
        if (!(cond))                                                                               \
            ck_abort_msg(__VA_ARGS__);                                                             \
    } while (0)

/* A block length in [0, INT_MAX]: mostly small, some at the very top. */
static int random_count(void)
{
    int64_t r = below(100);

    if (r < 15)
        return 0;
    if (r < 55)
        return (int)below(1000);
    if (r < 80)
        return (int)below(INT64_C(1) << 28);
    if (r < 95)
        return (int)below(TWO31);
    return INT_MAX - (int)below(4);
}

/* A hole between blocks in [0, 2^32): recovery with counts can only
 * bridge holes below 2^32, since it returns the smallest candidate. */
static int64_t random_hole(void)
{
    int64_t r = below(100);

    if (r < 55)
        return 0;
    if (r < 80)
        return below(1000);
    if (r < 93)
        return below(TWO31);
    return below(TWO32);
}

/* Whether two consecutive entries descend within one sign, which recovery
 * refuses. */
static int same_sign_descent(int prev, int cur)
{
    return cur < prev && (cur < 0) == (prev < 0);
}

/* A true non-descending, non-overlapping layout c with counts k, and its
 * truncation a. c[0] is in [0, 2^32), the range a first entry recovers to,
 * and each start is the end of the previous block plus a hole below 2^32.
 * With counts such a layout is recovered exactly unless two consecutive
 * entries of a descend within one sign: the two are then refused, as
 * documented, although the counts would place them right.
 *
 * When recoverable is set, a hole that would cause such a descent is
 * replaced by none. That always works: the step is then the count, below
 * 2^31, and a step of at most 2^31 modulo 2^32 moves an entry by at most
 * half the 32-bit circle, so the entry either ascends within its half or
 * changes sign. The generator therefore yields exactly the layouts the
 * documented rules recover. */
static void random_layout(int n, int recoverable, int64_t *c, int *k, int *a)
{
    int64_t r = below(10);

    c[0] = r < 5 ? 0 : r < 7 ? below(1000) : below(TWO32);
    a[0] = trunc32(c[0]);
    for (int i = 0; i < n; i++)
        k[i] = random_count();
    for (int i = 1; i < n; i++) {
        c[i] = c[i - 1] + k[i - 1] + random_hole();
        a[i] = trunc32(c[i]);
        if (recoverable && same_sign_descent(a[i - 1], a[i])) {
            c[i] = c[i - 1] + k[i - 1];
            a[i] = trunc32(c[i]);
        }
    }
}

/* The first i where a descends within one sign, or -1. */
static int first_descent(const int *a, int n)
{
    for (int i = 1; i < n; i++)
        if (same_sign_descent(a[i - 1], a[i]))
            return i;
    return -1;
}

START_TEST(property_recover)
{
    int64_t c[MAXN];
    int k[MAXN], a[MAXN];
    MPI_Aint out[MAXN];
    char idx[32];
    long exact = 0, refused = 0, wrapped = 0, proven = 0, naive_exact = 0, naive_short = 0,
         detected = 0;

    rng_seed(UINT64_C(0x5afec011d15b1a5e));
    for (int it = 0; it < LAYOUTS; it++) {
        int n = (int)between(1, MAXN), recoverable = below(4) != 0;
        int64_t maxstep = 0;

        random_layout(n, recoverable, c, k, a);
        for (int i = 1; i < n; i++)
            if (c[i] - c[i - 1] > maxstep)
                maxstep = c[i] - c[i - 1];
        int descent = first_descent(a, n);
        PROP(!recoverable || descent < 0, "layout %d: generated a descent at %d", it, descent);
        snprintf(idx, sizeof idx, "displs[%d]", descent);

        /* With counts: exact unless a same-sign descent is refused. */
        fill_aint(out, MAXN, SENT_AINT);
        int rc = safecoll_displs_recover(a, k, n, out);
        if (descent >= 0) {
            PROP(rc == MPI_ERR_ARG && strstr(safecoll_last_error(), idx) != NULL,
                 "layout %d: rc %d, expected a refusal at %s: %s", it, rc, idx,
                 safecoll_last_error());
            PROP(out[0] == SENT_AINT, "layout %d: out written on error", it);
            refused++;
        } else {
            PROP(rc == MPI_SUCCESS, "layout %d: %s", it, safecoll_last_error());
            for (int i = 0; i < n; i++)
                PROP(out[i] == c[i], "layout %d: out[%d] = %lld, true %lld", it, i,
                     (long long)out[i], (long long)c[i]);
            exact++;
            wrapped += c[n - 1] >= TWO31;
            proven += maxstep >= TWO32;
        }

        /* Without counts: exact when every step is below 2^32; otherwise
         * each value is the true one less a multiple of 2^32, and at least
         * one is less. */
        fill_aint(out, MAXN, SENT_AINT);
        rc = safecoll_displs_recover(a, NULL, n, out);
        if (descent >= 0) {
            PROP(rc == MPI_ERR_ARG && strstr(safecoll_last_error(), idx) != NULL,
                 "layout %d: no counts: rc %d, expected a refusal at %s: %s", it, rc, idx,
                 safecoll_last_error());
            PROP(out[0] == SENT_AINT, "layout %d: no counts: out written on error", it);
        } else if (maxstep < TWO32) {
            PROP(rc == MPI_SUCCESS, "layout %d: no counts: %s", it, safecoll_last_error());
            for (int i = 0; i < n; i++)
                PROP(out[i] == c[i], "layout %d: no counts: out[%d] = %lld, true %lld", it, i,
                     (long long)out[i], (long long)c[i]);
            naive_exact++;
        } else {
            int shorter = 0;
            PROP(rc == MPI_SUCCESS, "layout %d: no counts: %s", it, safecoll_last_error());
            for (int i = 0; i < n; i++) {
                PROP(out[i] <= c[i] && (c[i] - out[i]) % TWO32 == 0,
                     "layout %d: no counts: out[%d] = %lld, true %lld", it, i, (long long)out[i],
                     (long long)c[i]);
                shorter |= out[i] < c[i];
            }
            PROP(shorter, "layout %d: a step of 2^32 or more recovered without counts", it);
            naive_short++;
        }

        /* Detector D on layouts whose steps stay below 2^31 flags exactly
         * the first entry at or past 2^31, in both flavours: before it the
         * entries are the true values, and it lands in [2^31, 2^32). The
         * block flavour skips empty blocks, as the pipeline does, so it
         * flags the first non-empty one, when that one lands below 2^32
         * (after an empty first entry past 2^31 it may lie beyond). */
        if (maxstep < TWO31) {
            int first = -1, first_blocks = -1, bad = SENT_INT, bad_blocks = SENT_INT;
            for (int i = 0; i < n && first < 0; i++)
                if (c[i] >= TWO31)
                    first = i;
            for (int i = 0; i < n && first_blocks < 0; i++)
                if (c[i] >= TWO31 && k[i] > 0)
                    first_blocks = i;
            rc = safecoll_displs_check(a, n, &bad);
            PROP(rc == MPI_SUCCESS && bad == first, "layout %d: first_bad %d, expected %d", it, bad,
                 first);
            rc = safecoll_displs_check_blocks(a, k, n, &bad_blocks);
            if (first_blocks >= 0 && c[first_blocks] >= TWO32)
                first_blocks = bad_blocks = SENT_INT;
            PROP(rc == MPI_SUCCESS && bad_blocks == first_blocks,
                 "layout %d: blocks first_bad %d, expected %d", it, bad_blocks, first_blocks);
            detected += first >= 0;
        }
    }
    /* Every branch must have been exercised in earnest. */
    ck_assert_int_gt(exact, LAYOUTS * 3 / 4);
    ck_assert_int_gt(refused, 1000);
    ck_assert_int_gt(wrapped, LAYOUTS / 4);
    ck_assert_int_gt(proven, 1000);
    ck_assert_int_gt(naive_exact, LAYOUTS / 2);
    ck_assert_int_gt(naive_short, 1000);
    ck_assert_int_gt(detected, 1000);
}
END_TEST

START_TEST(property_check_blocks_shuffled)
{
    int d[MAXN], k[MAXN], perm[MAXN], pd[MAXN], pk[MAXN];
    long overlapped = 0;

    rng_seed(UINT64_C(0xb10c5b10c5));
    for (int it = 0; it < LAYOUTS / 4; it++) {
        int n = (int)between(2, MAXN), bad = SENT_INT, rc;
        int64_t at = below(1000);

        /* Disjoint blocks that all end by INT_MAX, in memory order... */
        for (int i = 0; i < n; i++) {
            int64_t room = (INT_MAX - at) / (n - i);
            k[i] = below(4) == 0 ? 0 : (int)below(room / 2 + 1);
            d[i] = (int)at;
            at += k[i] + below(room / 2 + 1);
        }
        /* ...given to the ranks in a random order, which MPI allows. */
        for (int i = 0; i < n; i++)
            perm[i] = i;
        for (int i = n - 1; i > 0; i--) {
            int j = (int)below(i + 1), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        for (int i = 0; i < n; i++) {
            pd[i] = d[perm[i]];
            pk[i] = k[perm[i]];
        }
        rc = safecoll_displs_check_blocks(pd, pk, n, &bad);
        PROP(rc == MPI_SUCCESS && bad == -1, "layout %d: first_bad %d", it, bad);

        /* Moving one rank's start into its predecessor's block is caught
         * at that rank. */
        int j = (int)between(1, n - 1);
        if (pk[j - 1] > 0 && pk[j] > 0) {
            pd[j] = pd[j - 1] + (int)below(pk[j - 1]);
            rc = safecoll_displs_check_blocks(pd, pk, n, &bad);
            PROP(rc == MPI_SUCCESS && bad == j, "layout %d: first_bad %d, expected %d", it, bad, j);
            overlapped++;
        }
    }
    ck_assert_int_gt(overlapped, LAYOUTS / 8);
}
END_TEST

/* A gap an application can hold in an int, in [0, INT_MAX]: mostly none,
 * some small, some up to the very top. */
static int64_t random_int_gap(void)
{
    int64_t r = below(100);

    if (r < 50)
        return 0;
    if (r < 75)
        return below(1000);
    if (r < 95)
        return below(TWO31);
    return INT_MAX - below(4);
}

/* The rule of believable wraps against random layouts (issue 14).
 *
 * Wrapped: true layouts as an application makes them, in rank order, each
 * non-empty block starting an int gap past the end of the one before (the
 * first an int gap past 0), empty blocks with stray displacements, cut to
 * int. A gap that would make two non-empty entries descend within one sign
 * is dropped, as in random_layout(), since recovery refuses those. Every
 * such layout is believable; wherever D fires, on a receive side (with
 * counts) and on a send side (without), the true values come back exactly;
 * where it does not fire (a wrap that hides), the entries come back as
 * written.
 *
 * Small: layouts that never passed INT_MAX (every block ends by then):
 * random starts, so overlapping, equal, permuted and descending blocks,
 * with few or many elements. However D judges them, they come back as
 * written, and wherever safecoll_displs_recover() would have moved an
 * entry, safecoll_displs_believable() rejects what it made of it. */
START_TEST(property_believable)
{
    int64_t c[MAXN];
    int a[MAXN], ki[MAXN];
    MPI_Count k[MAXN];
    MPI_Aint out[MAXN], rec[MAXN], cd[MAXN];
    long fired = 0, hidden = 0, overlapped = 0, rejected = 0;

    rng_seed(UINT64_C(0xbe11e7ab1e));
    for (int it = 0; it < LAYOUTS; it++) {
        const int n = (int)between(1, MAXN);
        int wrapped, bad, rc, prev = -1;
        int64_t end = 0;

        for (int i = 0; i < n; i++) {
            ki[i] = random_count();
            k[i] = ki[i];
            if (k[i] == 0) {
                /* MPI never uses it: anything, often 0 or -1. */
                int64_t r = below(3);
                a[i] = r == 0 ? 0 : r == 1 ? -1 : trunc32((int64_t)rng());
                c[i] = a[i];
                continue;
            }
            c[i] = end + random_int_gap();
            a[i] = trunc32(c[i]);
            if (prev >= 0 && same_sign_descent(a[prev], a[i])) {
                c[i] = end;
                a[i] = trunc32(c[i]);
            }
            PROP(prev < 0 || !same_sign_descent(a[prev], a[i]), "layout %d: descent at %d", it,
                 i);
            end = c[i] + k[i];
            prev = i;
        }
        for (int i = 0; i < n; i++)
            cd[i] = (MPI_Aint)c[i];
        rc = safecoll_displs_believable(cd, k, n, &bad);
        PROP(rc == MPI_SUCCESS && bad == -1, "layout %d: true layout not believable at %d", it,
             bad);
        for (int blocks = 0; blocks < 2; blocks++) {
            rc = sc__displs_resolve(a, k, n, blocks, out, &wrapped, &bad);
            PROP(rc == MPI_SUCCESS, "layout %d, blocks %d: %s", it, blocks,
                 safecoll_last_error());
            PROP(wrapped == (bad >= 0), "layout %d, blocks %d: wrapped %d, first_bad %d", it,
                 blocks, wrapped, bad);
            for (int i = 0; i < n; i++)
                PROP(out[i] == (wrapped && k[i] > 0 ? c[i] : a[i]),
                     "layout %d, blocks %d, %s: out[%d] = %lld, true %lld, int %d", it, blocks,
                     wrapped ? "recovered" : "as written", i, (long long)out[i],
                     (long long)c[i], a[i]);
            if (blocks) {
                fired += wrapped;
                hidden += !wrapped && end > INT_MAX;
            }
        }
    }
    ck_assert_int_gt(fired, LAYOUTS / 4);
    ck_assert_int_gt(hidden, 100);

    rng_seed(UINT64_C(0x5a11b10c5));
    for (int it = 0; it < LAYOUTS; it++) {
        const int n = (int)between(1, MAXN);
        /* Tiny layouts overlap often; wide ones reach up to INT_MAX. */
        const int64_t top = below(2) ? between(1, 64) : between(1, INT_MAX);
        int wrapped, bad, rc, fired_blocks;

        for (int i = 0; i < n; i++) {
            int64_t s = below(top);
            ki[i] = below(5) == 0 ? 0 : (int)below(top - s + 1);
            k[i] = ki[i];
            a[i] = (int)s;
        }
        /* Now and then every block at one start, as alltoallv's zero-size
         * receive types or a broadcast-like layout have them. */
        if (below(8) == 0)
            for (int i = 0; i < n; i++)
                a[i] = a[0];
        for (int blocks = 0; blocks < 2; blocks++) {
            rc = sc__displs_resolve(a, k, n, blocks, out, &wrapped, &bad);
            PROP(rc == MPI_SUCCESS && wrapped == 0,
                 "small layout %d, blocks %d: rc %d wrapped %d (%s)", it, blocks, rc, wrapped,
                 safecoll_last_error());
            for (int i = 0; i < n; i++)
                PROP(out[i] == a[i], "small layout %d, blocks %d: out[%d] = %lld, written %d",
                     it, blocks, i, (long long)out[i], a[i]);
            if (blocks)
                overlapped += bad >= 0;
        }
        /* What plain recovery would make of it, where D fires. */
        rc = safecoll_displs_check_blocks(a, ki, n, &fired_blocks);
        PROP(rc == MPI_SUCCESS, "small layout %d: %s", it, safecoll_last_error());
        if (fired_blocks >= 0 && safecoll_displs_recover(a, ki, n, rec) == MPI_SUCCESS) {
            int moved = 0;
            for (int i = 0; i < n; i++)
                moved |= k[i] > 0 && rec[i] != a[i];
            rc = safecoll_displs_believable(rec, k, n, &bad);
            PROP(rc == MPI_SUCCESS && (bad >= 0) == moved,
                 "small layout %d: recovery moved %d, believable says %d", it, moved, bad);
            rejected += bad >= 0;
        }
    }
    ck_assert_int_gt(overlapped, LAYOUTS / 4);
    ck_assert_int_gt(rejected, LAYOUTS / 20);
}
END_TEST

START_TEST(property_segments)
{
    MPI_Aint d[MAXN];
    MPI_Count k[MAXN];
    int64_t c[MAXN];
    int ki[MAXN], ai[MAXN], starts[MAXN + 1], starts2[MAXN + 1], reb[MAXN];
    long multi = 0;

    rng_seed(UINT64_C(0x5e65e65e6));
    for (int it = 0; it < LAYOUTS; it++) {
        int n = (int)between(1, MAXN), nseg = SENT_INT, nseg2 = SENT_INT;
        int64_t r = below(4);
        MPI_Aint limit = r == 0 ? INT_MAX : r == 1 ? between(1, 1000) : between(1, INT_MAX);
        int with_counts = below(3) != 0;

        /* Mostly layouts as recovery returns them; some arbitrary 64-bit
         * values, descents and negatives included. */
        if (below(4) != 0) {
            random_layout(n, 1, c, ki, ai);
            for (int i = 0; i < n; i++)
                d[i] = (MPI_Aint)c[i];
        } else {
            for (int i = 0; i < n; i++)
                d[i] = below(2) ? (MPI_Aint)(rng() >> 1) - (MPI_Aint)(rng() >> 1)
                                : (MPI_Aint)between(-3000, 3000);
        }
        for (int i = 0; i < n; i++)
            k[i] = below(limit + 1);

        fill_int(reb, MAXN, SENT_INT);
        int rc = safecoll_displs_segments(d, with_counts ? k : NULL, n, limit, &nseg, starts, reb);
        PROP(rc == MPI_SUCCESS, "layout %d: %s", it, safecoll_last_error());
        PROP(nseg >= 1 && nseg <= n && starts[0] == 0 && starts[nseg] == n,
             "layout %d: nseg %d, seg_start[0] %d, seg_start[nseg] %d", it, nseg, starts[0],
             starts[nseg]);
        for (int s = 0; s < nseg; s++) {
            int s0 = starts[s], s1 = starts[s + 1];
            PROP(s0 < s1, "layout %d: empty segment %d", it, s);
            /* Every rank of a segment fits the limit after rebasing... */
            for (int i = s0; i < s1; i++) {
                PROP(d[i] >= d[s0] && (uint64_t)d[i] - (uint64_t)d[s0] <= (uint64_t)limit,
                     "layout %d: rank %d does not fit segment %d", it, i, s);
                PROP(reb[i] == d[i] - d[s0], "layout %d: rebased[%d] = %d", it, i, reb[i]);
            }
            /* ...and the segment could not have taken the next rank. */
            if (s1 < n)
                PROP(d[s1] < d[s0] || (uint64_t)d[s1] - (uint64_t)d[s0] > (uint64_t)limit,
                     "layout %d: segment %d stops before rank %d, which fits", it, s, s1);
        }
        multi += nseg > 1;

        /* rebased is optional and does not change the grouping. */
        rc = safecoll_displs_segments(d, NULL, n, limit, &nseg2, starts2, NULL);
        PROP(rc == MPI_SUCCESS && nseg2 == nseg, "layout %d: nseg %d without rebased, %d with", it,
             nseg2, nseg);
        for (int s = 0; s <= nseg; s++)
            PROP(starts2[s] == starts[s], "layout %d: seg_start[%d] differs without rebased", it,
                 s);
    }
    ck_assert_int_gt(multi, LAYOUTS / 4);
}
END_TEST

START_TEST(property_gcd)
{
    MPI_Aint d[MAXN];
    MPI_Count k[MAXN];

    rng_seed(UINT64_C(0x9cd9cd9cd));
    for (int it = 0; it < LAYOUTS / 4; it++) {
        int n = (int)between(1, MAXN);
        int64_t base = between(1, 1 << 20);
        MPI_Count g = SENT_AINT;

        for (int i = 0; i < n; i++) {
            d[i] = base * between(-(1 << 20), 1 << 20);
            k[i] = base * below(1 << 20);
        }
        int rc = safecoll_displs_gcd(d, k, n, &g);
        PROP(rc == MPI_SUCCESS, "layout %d: %s", it, safecoll_last_error());
        /* g is a multiple of the common factor and divides every entry. */
        PROP(g > 0 && g % base == 0, "layout %d: gcd %lld, factor %lld", it, (long long)g,
             (long long)base);
        for (int i = 0; i < n; i++)
            PROP(d[i] % g == 0 && k[i] % g == 0, "layout %d: gcd %lld does not divide entry %d", it,
                 (long long)g, i);
    }
}
END_TEST

static Suite *displs_suite(void)
{
    Suite *s = suite_create("displs");
    struct {
        const char *name;
        const TTest *tests[8];
    } cases[] = {
        {"check", {check_errors, check_small, check_layouts}},
        {"check_blocks", {check_blocks_errors, check_blocks_layouts, check_blocks_c}},
        {"believable", {believable_errors, believable_examples, resolve_examples}},
        {"recover",
         {recover_errors, recover_single, recover_paper, recover_boundaries, recover_counts,
          recover_descent, recover_next_overflow, recover_c}},
        {"segments", {segments_errors, segments_small, segments_examples, segments_after_recover}},
        {"gcd", {gcd_errors, gcd_examples}},
        {"property",
         {property_recover, property_check_blocks_shuffled, property_believable,
          property_segments, property_gcd}},
    };

    for (int c = 0; c < NELEMS(cases); c++) {
        TCase *tc = tcase_create(cases[c].name);
        tcase_set_timeout(tc, 60);
        for (int t = 0; t < 8 && cases[c].tests[t] != NULL; t++)
            tcase_add_test(tc, cases[c].tests[t]);
        suite_add_tcase(s, tc);
    }
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(displs_suite());
    int failures;

    srunner_run_all(sr, CK_NORMAL);
    failures = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failures ? 1 : 0;
}
