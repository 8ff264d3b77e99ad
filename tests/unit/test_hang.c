/*
 * Unit tests of the hang detector's statistics (src/hang/detect.h): the
 * runs test against the slides' example and a brute-force enumeration of
 * every arrangement, the levels, the significance test, the empirical CDF,
 * the random step, the timeout baseline and the detector's state machine
 * on made-up streams of S_out. No MPI job and no thread is needed.
 *
 * The streams come from the detector's own generator with fixed seeds, so
 * every run sees the same samples; where an outcome is a matter of chance
 * (a healthy stream that happens to give a long streak of zeros), the
 * test says how likely it is.
 */
#include <check.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "detect.h"

#define NELEMS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* ------------------------------------------------------------ helpers */

/* One draw from the discrete distribution of S_out: 0 with probability
 * p0, 0.5 with p05, else 1. */
static double draw(uint64_t *state, double p0, double p05)
{
    double u = (double)(sc__hang_rand(state) >> 11) * 0x1.0p-53;

    return u < p0 ? 0.0 : u < p0 + p05 ? 0.5 : 1.0;
}

/* Feeds n samples of that distribution; returns how many feeds said HUNG. */
static int feed_healthy(sc__hang_det *d, uint64_t *state, int n, double p0, double p05)
{
    int hung = 0;

    for (int i = 0; i < n; i++)
        hung += sc__hang_det_feed(d, draw(state, p0, p05)) == SC_HANG_HUNG;
    return hung;
}

/* The number of runs of the low n bits of mask. */
static int runs_of(unsigned mask, int n)
{
    int r = 1;

    for (int i = 1; i < n; i++)
        r += ((mask >> i) & 1u) != ((mask >> (i - 1)) & 1u);
    return r;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* ------------------------------------------------------------ runs region */

START_TEST(region_slides)
{
    int lo = -1, hi = -1;

    /* The slides: 7 '+' and 9 '-' give (4, 14). */
    sc__hang_runs_region(7, 9, &lo, &hi);
    ck_assert_int_eq(lo, 4);
    ck_assert_int_eq(hi, 14);
    /* R's distribution is symmetric in n1 and n2. */
    sc__hang_runs_region(9, 7, &lo, &hi);
    ck_assert_int_eq(lo, 4);
    ck_assert_int_eq(hi, 14);
    /* Worked by hand from the formula: n1 = 4, n2 = 5, C(9, 4) = 126
     * arrangements; P(R = 2) = 2/126 = 0.016 <= 0.025 but P(R <= 3) =
     * (2 + 7)/126 = 0.071, so lo = 2; P(R = 9) = 1/126 = 0.008 but
     * P(R >= 8) = (1 + 8)/126 = 0.071, so hi = 9. */
    sc__hang_runs_region(4, 5, &lo, &hi);
    ck_assert_int_eq(lo, 2);
    ck_assert_int_eq(hi, 9);
}
END_TEST

/* Every arrangement of n1 ones and n2 zeros, for n1 + n2 up to 17,
 * counted with integers: a tail is <= 0.025 iff 40 * count <= total,
 * exactly, so the exact tie of (3, 14) (P(R <= 3) = 1/40) is in. */
START_TEST(region_brute_force)
{
    enum { NMAX = 17 };
    /* counts[n1][r]: arrangements of n1 ones among N with r runs. */
    static long long counts[NMAX + 1][NMAX + 2];

    for (int N = 2; N <= NMAX; N++) {
        memset(counts, 0, sizeof counts);
        for (unsigned mask = 0; mask < (1u << N); mask++)
            counts[__builtin_popcount(mask)][runs_of(mask, N)]++;
        for (int n1 = 1; n1 < N; n1++) {
            int n2 = N - n1, lo = 1, hi = N + 1, got_lo, got_hi;
            long long total = 0, cum = 0;

            for (int r = 1; r <= N; r++)
                total += counts[n1][r];
            for (int r = 1; r <= N; r++) {
                cum += counts[n1][r];
                if (40 * cum <= total)
                    lo = r;
            }
            cum = 0;
            for (int r = N; r >= 1; r--) {
                cum += counts[n1][r];
                if (40 * cum <= total)
                    hi = r;
            }
            /* Past the largest possible R, the upper tail is 0: the
             * region closes at that R plus one. */
            {
                int maxr = N;

                while (maxr > 1 && counts[n1][maxr] == 0)
                    maxr--;
                if (hi > maxr + 1)
                    hi = maxr + 1;
            }
            sc__hang_runs_region(n1, n2, &got_lo, &got_hi);
            ck_assert_msg(got_lo == lo && got_hi == hi,
                          "n1 = %d, n2 = %d: got (%d, %d), enumeration says (%d, %d)", n1, n2,
                          got_lo, got_hi, lo, hi);
        }
    }
    /* The tie itself, named. */
    {
        int lo, hi;

        sc__hang_runs_region(3, 14, &lo, &hi);
        ck_assert_int_eq(lo, 3);
    }
}
END_TEST

START_TEST(region_large)
{
    /* Exact regions computed with rational arithmetic outside this test. */
    static const struct {
        int n1, n2, lo, hi;
    } cases[] = {
        {1000, 1000, 956, 1046}, {300, 700, 394, 448}, {50, 30, 29, 48}, {20, 20, 14, 28},
        {10, 10, 6, 16},         {1, 1, 1, 3},         {1, 10, 1, 4},    {2, 18, 2, 6},
        {100, 3, 4, 8},
    };

    for (int i = 0; i < NELEMS(cases); i++) {
        int lo, hi;

        sc__hang_runs_region(cases[i].n1, cases[i].n2, &lo, &hi);
        ck_assert_msg(lo == cases[i].lo && hi == cases[i].hi, "(%d, %d): got (%d, %d)",
                      cases[i].n1, cases[i].n2, lo, hi);
    }
    /* Far beyond: the region sits around the mean 2 n1 n2 / N + 1 and is
     * symmetric within a run or two. */
    {
        int lo, hi;

        sc__hang_runs_region(100000, 100000, &lo, &hi);
        ck_assert_int_gt(lo, 100001 - 500);
        ck_assert_int_lt(lo, 100001 - 400);
        ck_assert_int_le(abs((100001 - lo) - (hi - 100001)), 2);
    }
}
END_TEST

START_TEST(region_bad)
{
    int lo = -1, hi = -1;

    sc__hang_runs_region(0, 5, &lo, &hi);
    ck_assert_int_eq(lo, 0);
    ck_assert_int_eq(hi, 0);
    lo = hi = -1;
    sc__hang_runs_region(5, -1, &lo, &hi);
    ck_assert_int_eq(lo, 0);
    ck_assert_int_eq(hi, 0);
}
END_TEST

/* ------------------------------------------------------------ runs test */

START_TEST(runs_slides)
{
    /* Mean 0.44375: - - - - - - - - + + + + + - + +, so R = 4, n1 = 7,
     * n2 = 9, region (4, 14): not random. */
    static const double x[] = {0.2, 0.1, 0.1, 0.2, 0.1, 0.1, 0.0, 0.0,
                               0.8, 0.9, 1.0, 0.8, 0.9, 0.1, 0.9, 0.9};
    int R = -1, lo = -1, hi = -1;

    ck_assert_int_eq(sc__hang_runs_test(x, NELEMS(x), &R, &lo, &hi), 0);
    ck_assert_int_eq(R, 4);
    ck_assert_int_eq(lo, 4);
    ck_assert_int_eq(hi, 14);
    /* The outputs are optional. */
    ck_assert_int_eq(sc__hang_runs_test(x, NELEMS(x), NULL, NULL, NULL), 0);
}
END_TEST

START_TEST(runs_alternating)
{
    double x[20];
    int R, lo, hi;

    /* 10 '+' and 10 '-' alternating: R = 20, past the region (6, 16). */
    for (int i = 0; i < 20; i++)
        x[i] = i % 2;
    ck_assert_int_eq(sc__hang_runs_test(x, 20, &R, &lo, &hi), 0);
    ck_assert_int_eq(R, 20);
    ck_assert_int_eq(lo, 6);
    ck_assert_int_eq(hi, 16);
}
END_TEST

START_TEST(runs_random)
{
    /* Mean 0.51: - + + - + + - - + - - + + - - + + - + -, R = 13 with
     * 10 of each sign, inside (6, 16). */
    static const double x[] = {0.3, 0.9, 0.8, 0.1, 0.6, 0.7, 0.2, 0.1, 0.9, 0.4,
                               0.5, 0.8, 0.8, 0.3, 0.3, 0.9, 0.6, 0.2, 0.7, 0.1};
    int R, lo, hi;

    ck_assert_int_eq(sc__hang_runs_test(x, NELEMS(x), &R, &lo, &hi), 1);
    ck_assert_int_eq(R, 13);
    ck_assert_int_eq(lo, 6);
    ck_assert_int_eq(hi, 16);
}
END_TEST

START_TEST(runs_cannot_tell)
{
    static const double constant[] = {0.5, 0.5, 0.5, 0.5, 0.5, 0.5};
    static const double one[] = {0.7};
    int R = -1, lo = -1, hi = -1;

    ck_assert_int_eq(sc__hang_runs_test(constant, NELEMS(constant), &R, &lo, &hi), -1);
    ck_assert_int_eq(R, 0);
    ck_assert_int_eq(lo, 0);
    ck_assert_int_eq(hi, 0);
    ck_assert_int_eq(sc__hang_runs_test(one, 1, &R, NULL, NULL), -1);
    ck_assert_int_eq(R, 0);
    ck_assert_int_eq(sc__hang_runs_test(NULL, 5, &R, NULL, NULL), -1);
    ck_assert_int_eq(sc__hang_runs_test(one, 0, &R, NULL, NULL), -1);
    ck_assert_int_eq(sc__hang_runs_test(one, -3, &R, NULL, NULL), -1);
}
END_TEST

START_TEST(runs_ties_dropped)
{
    /* The mean is 0.2 up to rounding. Dropped, the three 0.2s leave
     * - + and R = 2; taken as '+' or '-' they would give R = 3. */
    static const double x[] = {0.2, 0.1, 0.2, 0.3, 0.2};
    /* Three signs: 0 1 0.5 0 1 (mean 0.5): the 0.5 drops, - + - + is
     * R = 4 with n1 = n2 = 2. */
    static const double y[] = {0.0, 1.0, 0.5, 0.0, 1.0};
    int R, lo, hi;

    ck_assert_int_eq(sc__hang_runs_test(x, NELEMS(x), &R, &lo, &hi), 1);
    ck_assert_int_eq(R, 2);
    ck_assert_int_eq(lo, 1);
    ck_assert_int_eq(hi, 3);
    ck_assert_int_eq(sc__hang_runs_test(y, NELEMS(y), &R, &lo, &hi), 1);
    ck_assert_int_eq(R, 4);
    ck_assert_int_eq(lo, 1);
    ck_assert_int_eq(hi, 5);
}
END_TEST

/* ------------------------------------------------------------ level, k */

START_TEST(level_table)
{
    static const struct {
        int n, has;
        double phat, d;
    } cases[] = {
        {-1, 0, 0, 0},       {0, 0, 0, 0},        {10, 0, 0, 0},       {11, 1, 0.47, 0.3},
        {18, 1, 0.47, 0.3},  {19, 1, 0.27, 0.2},  {41, 1, 0.27, 0.2},  {42, 1, 0.12, 0.1},
        {85, 1, 0.12, 0.1},  {86, 1, 0.06, 0.05}, {1000, 1, 0.06, 0.05}, {INT_MAX, 1, 0.06, 0.05},
    };

    for (int i = 0; i < NELEMS(cases); i++) {
        double phat = -7, d = -7;

        ck_assert_int_eq(sc__hang_level(cases[i].n, &phat, &d), cases[i].has);
        if (cases[i].has) {
            ck_assert_double_eq(phat, cases[i].phat);
            ck_assert_double_eq(d, cases[i].d);
        } else {
            /* Left unset. */
            ck_assert_double_eq(phat, -7);
            ck_assert_double_eq(d, -7);
        }
    }
}
END_TEST

START_TEST(k_values)
{
    /* 0.11^3 = 0.001331 > 0.001 >= 0.11^4 = 0.000146. */
    ck_assert_int_eq(sc__hang_k(0.11, 0.001), 4);
    /* 0.77^26 = 0.00112, 0.77^27 = 0.000863. */
    ck_assert_int_eq(sc__hang_k(0.77, 0.001), 27);
    /* 0.47^9 = 0.00112, 0.47^10 = 0.000526. */
    ck_assert_int_eq(sc__hang_k(0.47, 0.001), 10);
    /* Exact boundaries: 0.1^3 is 0.001 (rounded above it in doubles),
     * 0.5^3 = 0.125 exactly. */
    ck_assert_int_eq(sc__hang_k(0.1, 0.001), 3);
    ck_assert_int_eq(sc__hang_k(0.5, 0.125), 3);
    ck_assert_int_eq(sc__hang_k(0.5, 0.1249), 4);
    /* One suspicion is already rare enough. */
    ck_assert_int_eq(sc__hang_k(0.0005, 0.001), 1);
    ck_assert_int_eq(sc__hang_k(0.001, 0.001), 1);
    ck_assert_int_eq(sc__hang_k(0.0, 0.001), 1);
    ck_assert_int_eq(sc__hang_k(-0.5, 0.001), 1);
    /* No streak is significant. */
    ck_assert_int_eq(sc__hang_k(1.0, 0.001), INT_MAX);
    ck_assert_int_eq(sc__hang_k(1.3, 0.001), INT_MAX);
    ck_assert_int_eq(sc__hang_k(NAN, 0.001), INT_MAX);
    ck_assert_int_eq(sc__hang_k(0.5, 0.0), INT_MAX);
    ck_assert_int_eq(sc__hang_k(0.5, NAN), INT_MAX);
    /* So close to 1 that k would not fit in an int. */
    ck_assert_int_eq(sc__hang_k(1.0 - 1e-15, 1e-300), INT_MAX);
}
END_TEST

/* Against repeated multiplication over a grid of q and alpha. */
START_TEST(k_grid)
{
    static const double alphas[] = {0.1, 0.01, 0.001, 1e-6};

    for (int a = 0; a < NELEMS(alphas); a++)
        for (int i = 1; i < 100; i++) {
            double q = i / 100.0, alpha = alphas[a], pw = 1;
            int want = 0;

            do {
                pw *= q;
                want++;
            } while (pw > alpha * (1 + 1e-9));
            ck_assert_msg(sc__hang_k(q, alpha) == want, "q = %g, alpha = %g: %d, want %d", q,
                          alpha, sc__hang_k(q, alpha), want);
        }
}
END_TEST

/* ------------------------------------------------------------ ECDF */

START_TEST(quantile_ties)
{
    static const double s[] = {0, 0, 0, 0.5, 0.5, 1, 1, 1, 1, 1};
    int n = NELEMS(s);

    /* ceil(p n) - 1: 0.06 -> 0, 0.3 -> 2, 0.31 -> 3, 0.5 -> 4, 0.51 -> 5. */
    ck_assert_double_eq(sc__hang_quantile(s, n, 0.06), 0);
    ck_assert_double_eq(sc__hang_quantile(s, n, 0.3), 0);
    ck_assert_double_eq(sc__hang_quantile(s, n, 0.31), 0.5);
    ck_assert_double_eq(sc__hang_quantile(s, n, 0.5), 0.5);
    ck_assert_double_eq(sc__hang_quantile(s, n, 0.51), 1);
    /* Clamped at both ends. */
    ck_assert_double_eq(sc__hang_quantile(s, n, 0), 0);
    ck_assert_double_eq(sc__hang_quantile(s, n, -1), 0);
    ck_assert_double_eq(sc__hang_quantile(s, n, 1), 1);
    ck_assert_double_eq(sc__hang_quantile(s, n, 2), 1);
    ck_assert(isnan(sc__hang_quantile(s, 0, 0.5)));

    ck_assert_double_eq(sc__hang_ecdf(s, n, -1), 0);
    ck_assert_double_eq(sc__hang_ecdf(s, n, 0), 0.3);
    ck_assert_double_eq(sc__hang_ecdf(s, n, 0.25), 0.3);
    ck_assert_double_eq(sc__hang_ecdf(s, n, 0.5), 0.5);
    ck_assert_double_eq(sc__hang_ecdf(s, n, 0.7), 0.5);
    ck_assert_double_eq(sc__hang_ecdf(s, n, 1), 1);
    ck_assert_double_eq(sc__hang_ecdf(s, n, 5), 1);
    ck_assert_double_eq(sc__hang_ecdf(s, 0, 5), 0);
}
END_TEST

START_TEST(quantile_rounding)
{
    double s[100];

    for (int i = 0; i < 100; i++)
        s[i] = i;
    /* p n is an integer in exact arithmetic; its rounding must not move
     * the index: 0.06 -> 5, 0.07 -> 6, 0.29 -> 28, 0.47 -> 46. */
    ck_assert_double_eq(sc__hang_quantile(s, 100, 0.06), 5);
    ck_assert_double_eq(sc__hang_quantile(s, 100, 0.07), 6);
    ck_assert_double_eq(sc__hang_quantile(s, 100, 0.29), 28);
    ck_assert_double_eq(sc__hang_quantile(s, 100, 0.47), 46);
    ck_assert_double_eq(sc__hang_quantile(s, 100, 0.12), 11);
    /* Not integers: 0.47 * 11 = 5.17 -> 5; 0.06 * 86 = 5.16 -> 5. */
    ck_assert_double_eq(sc__hang_quantile(s, 11, 0.47), 5);
    ck_assert_double_eq(sc__hang_quantile(s, 86, 0.06), 5);
    /* F(F^-1(p)) >= p, and p > F(the value below). */
    for (int n = 1; n <= 100; n++)
        for (int i = 1; i < 100; i++) {
            double p = i / 100.0, v = sc__hang_quantile(s, n, p);

            ck_assert(sc__hang_ecdf(s, n, v) >= p - 1e-12);
            if (v > 0)
                ck_assert(sc__hang_ecdf(s, n, v - 1) < p - 1e-12);
        }
}
END_TEST

/* ------------------------------------------------------------ random step */

START_TEST(rand_stream)
{
    uint64_t a = 0, b = 0, c = 1;

    /* splitmix64's published first outputs from state 0. */
    ck_assert_uint_eq(sc__hang_rand(&a), UINT64_C(0xe220a8397b1dcdaf));
    ck_assert_uint_eq(sc__hang_rand(&a), UINT64_C(0x6e789e6aa1b965f4));
    ck_assert_uint_eq(sc__hang_rand(&a), UINT64_C(0x06c45d188009454f));
    /* Same seed, same stream; another seed, another stream. */
    for (int i = 0; i < 3; i++)
        (void)sc__hang_rand(&b);
    ck_assert_uint_eq(a, b);
    for (int i = 0; i < 1000; i++) {
        uint64_t x = sc__hang_rand(&a);

        ck_assert_uint_eq(x, sc__hang_rand(&b));
        ck_assert_uint_ne(x, sc__hang_rand(&c));
    }
}
END_TEST

START_TEST(step_range)
{
    static const double intervals[] = {0.4, 1.0, 3.0, 400.0, 1e-6};

    for (int j = 0; j < NELEMS(intervals); j++) {
        double I = intervals[j], sum = 0, mean;
        uint64_t s1 = 12345, s2 = 12345;

        for (int i = 0; i < 10000; i++) {
            double x = sc__hang_step(I, &s1);

            ck_assert(x >= I / 2 && x < 1.5 * I);
            ck_assert_double_eq(x, sc__hang_step(I, &s2));
            sum += x;
        }
        mean = sum / 10000;
        /* The mean of 10000 uniforms on [I/2, 3I/2) is within
         * 3.5 sigma = 3.5 I / sqrt(12 * 10000) = 0.01 I of I. */
        ck_assert_msg(fabs(mean - I) <= 0.02 * I, "I = %g: mean %g", I, mean);
    }
    {
        uint64_t s = 1;

        ck_assert_double_eq(sc__hang_step(0, &s), 0);
        ck_assert_double_eq(sc__hang_step(-1, &s), 0);
        ck_assert_double_eq(sc__hang_step(INFINITY, &s), 0);
        ck_assert_double_eq(sc__hang_step(NAN, &s), 0);
    }
}
END_TEST

/* ------------------------------------------------------------ timeout */

START_TEST(timeout_baseline)
{
    int count = 0;

    ck_assert_int_eq(sc__hang_timeout_feed(&count, 0, 3), 0);
    ck_assert_int_eq(sc__hang_timeout_feed(&count, 0, 3), 0);
    ck_assert_int_eq(count, 2);
    /* Anyone outside MPI resets the count. */
    ck_assert_int_eq(sc__hang_timeout_feed(&count, 0.1, 3), 0);
    ck_assert_int_eq(count, 0);
    for (int i = 1; i < 3; i++)
        ck_assert_int_eq(sc__hang_timeout_feed(&count, 0, 3), 0);
    ck_assert_int_eq(sc__hang_timeout_feed(&count, 0, 3), 1);
    ck_assert_int_eq(sc__hang_timeout_feed(&count, -0.0, 3), 1);
    ck_assert_int_eq(count, 4);
    ck_assert_int_eq(sc__hang_timeout_feed(&count, 1, 3), 0);
    ck_assert_int_eq(count, 0);
    /* K <= 1: the first zero is a hang. */
    ck_assert_int_eq(sc__hang_timeout_feed(&count, 0, 1), 1);
}
END_TEST

/* ------------------------------------------------------------ detector */

START_TEST(det_bad_args)
{
    sc__hang_det d, z;

    ck_assert_int_eq(sc__hang_det_init(&d, 0.0, 20), -1);
    ck_assert_int_eq(sc__hang_det_init(&d, -0.1, 20), -1);
    ck_assert_int_eq(sc__hang_det_init(&d, 1.0, 20), -1);
    ck_assert_int_eq(sc__hang_det_init(&d, 1.5, 20), -1);
    ck_assert_int_eq(sc__hang_det_init(&d, NAN, 20), -1);
    ck_assert_int_eq(sc__hang_det_init(&d, 0.001, 1), -1);
    ck_assert_int_eq(sc__hang_det_init(&d, 0.001, 0), -1);
    ck_assert_int_eq(sc__hang_det_init(&d, 0.001, -3), -1);
    ck_assert_int_eq(sc__hang_det_init(NULL, 0.001, 20), -1);
    /* A failed init leaves nothing to free, and freeing is still safe. */
    sc__hang_det_free(&d);
    memset(&z, 0, sizeof z);
    sc__hang_det_free(&z);
    sc__hang_det_free(&z);
    sc__hang_det_free(NULL);
    ck_assert_int_eq(sc__hang_det_init(&d, 0.001, 2), 0);
    sc__hang_det_free(&d);
    sc__hang_det_free(&d);
}
END_TEST

START_TEST(det_building)
{
    sc__hang_det d;
    sc__hang_stats st;

    ck_assert_int_eq(sc__hang_det_init(&d, 0.001, 20), 0);
    sc__hang_det_stats(&d, &st);
    ck_assert_int_eq(st.n, 0);
    ck_assert_int_eq(st.k, 0);
    /* The first 11 samples are judged against 0..10 samples: no level,
     * all accepted, even zeros. */
    for (int i = 0; i < 11; i++) {
        ck_assert_int_eq(sc__hang_det_feed(&d, 0.0), SC_HANG_BUILDING);
        sc__hang_det_stats(&d, &st);
        ck_assert_int_eq(st.n, i);
        ck_assert_int_eq(st.k, 0);
        ck_assert_int_eq(st.streak, 0);
        ck_assert_double_eq(st.phat, 0);
    }
    /* Now n = 11: t = F^-1(0.47) = 0, F(t) = 1, q = 1.3: every zero is a
     * suspicion, none can be significant, so it is accepted rather than
     * held (the model would never grow again). */
    ck_assert_int_eq(sc__hang_det_feed(&d, 0.0), SC_HANG_CALM);
    sc__hang_det_stats(&d, &st);
    ck_assert_int_eq(st.n, 11);
    ck_assert_double_eq(st.phat, 0.47);
    ck_assert_double_eq(st.d, 0.3);
    ck_assert_double_eq(st.t, 0);
    ck_assert_double_eq(st.f_t, 1);
    ck_assert_double_eq_tol(st.q, 1.3, 1e-12);
    ck_assert_int_eq(st.k, INT_MAX);
    ck_assert_int_eq(st.streak, 0);
    ck_assert_int_eq(sc__hang_det_feed(&d, 0.0), SC_HANG_CALM);
    sc__hang_det_stats(&d, &st);
    ck_assert_int_eq(st.n, 12);
    /* A NaN changes nothing and repeats the verdict. */
    ck_assert_int_eq(sc__hang_det_feed(&d, NAN), SC_HANG_CALM);
    ck_assert_int_eq(d.n, 13);
    sc__hang_det_free(&d);
}
END_TEST

/* (a) A healthy stream: S_out is 0 with probability 0.3, 0.5 with 0.4, 1
 * with 0.3. With n >= 86 the threshold is t = 0, F(t) is about 0.3 and
 * q about 0.35. At alpha = 1e-6, k = 14 and a false alarm needs 14 zeros
 * in a row, about 0.7 * 0.3^14 = 3e-8 per sample: over 5 x 2000 samples,
 * a chance of 3e-4. */
START_TEST(det_healthy)
{
    for (uint64_t seed = 1; seed <= 5; seed++) {
        sc__hang_det d;
        uint64_t state = seed;
        sc__hang_stats st;

        ck_assert_int_eq(sc__hang_det_init(&d, 1e-6, 20), 0);
        ck_assert_int_eq(feed_healthy(&d, &state, 2000, 0.3, 0.4), 0);
        sc__hang_det_stats(&d, &st);
        ck_assert_double_eq(st.t, 0);
        ck_assert_int_ge(st.k, 12);
        sc__hang_det_free(&d);
    }
}
END_TEST

/* (a) at the paper's alpha = 0.001: k = 7 and a false alarm is a run of
 * 7 zeros, about 0.7 * 0.3^7 = 1.5e-4 per sample, so 3 in 20000 samples
 * on average: alpha bounds the rate of false alarms per sample, it does
 * not exclude them. More than 12 would have a chance under 1e-4. The
 * samples are independent, so the runs test, whose two tails hold at
 * most 5% together, may call at most about 5% of the 1000 blocks not
 * random (the ties dropped at the mean make it rarer still). */
START_TEST(det_healthy_rate)
{
    sc__hang_det d;
    sc__hang_stats st;
    uint64_t state = 42;
    int episodes = 0, prev_hung = 0, not_random = 0;

    ck_assert_int_eq(sc__hang_det_init(&d, 0.001, 20), 0);
    for (int i = 0; i < 20000; i++) {
        sc__hang_verdict v = sc__hang_det_feed(&d, draw(&state, 0.3, 0.4));
        int hung = v == SC_HANG_HUNG;

        not_random += v == SC_HANG_NOT_RANDOM;

        if (hung) {
            sc__hang_det_stats(&d, &st);
            ck_assert_int_ge(st.streak, st.k);
        }
        episodes += hung && !prev_hung;
        prev_hung = hung;
    }
    sc__hang_det_stats(&d, &st);
    ck_assert_int_eq(st.k, 7);
    ck_assert_int_le(episodes, 12);
    ck_assert_int_gt(not_random, 0);
    ck_assert_int_le(not_random, 50);
    sc__hang_det_free(&d);
}
END_TEST

/* Brings a detector to a model of `n` healthy samples with no streak
 * running: a 1 is never a suspicion while some sample is below 1. */
static void warm_up(sc__hang_det *d, uint64_t seed, int n, double p0, double p05)
{
    uint64_t state = seed;

    ck_assert_int_eq(sc__hang_det_init(d, 0.001, 20), 0);
    ck_assert_int_eq(feed_healthy(d, &state, n, p0, p05), 0);
    ck_assert_int_ne(sc__hang_det_feed(d, 1.0), SC_HANG_HUNG);
    ck_assert_int_ne(sc__hang_det_feed(d, 1.0), SC_HANG_SUSPECT);
}

/* Feeds a constant until HUNG; returns the feeds it took (0 if none in
 * `limit`), checking that the model does not move meanwhile. */
static int feeds_to_hang(sc__hang_det *d, double x, int limit, sc__hang_stats *first)
{
    for (int i = 1; i <= limit; i++) {
        sc__hang_verdict v = sc__hang_det_feed(d, x);
        sc__hang_stats st;

        sc__hang_det_stats(d, &st);
        if (i == 1)
            *first = st;
        /* Suspicions stay out of the model: same n, same k. */
        ck_assert_int_eq(st.n, first->n);
        ck_assert_int_eq(st.k, first->k);
        ck_assert_int_eq(st.streak, i);
        if (v == SC_HANG_HUNG)
            return i;
        ck_assert_int_eq(v, SC_HANG_SUSPECT);
    }
    return 0;
}

/* (b) A hang in MPI after 200 healthy samples: zeros, HUNG after exactly
 * k feeds, and HUNG again on the next. */
START_TEST(det_hang_in_mpi)
{
    sc__hang_det d;
    sc__hang_stats st;
    double phat, dd;
    int took;

    warm_up(&d, 7, 200, 0.3, 0.4);
    took = feeds_to_hang(&d, 0.0, 1000, &st);
    /* The statistics that decided it, recomputed by hand. */
    ck_assert_int_ge(st.n, 86);
    ck_assert_int_eq(sc__hang_level(st.n, &phat, &dd), 1);
    ck_assert_double_eq(st.phat, phat);
    ck_assert_double_eq(st.d, dd);
    ck_assert_double_eq(st.t, 0);
    ck_assert(st.f_t >= st.phat);
    ck_assert(st.f_t > 0.2 && st.f_t < 0.4);
    ck_assert_double_eq(st.q, fmax(st.phat, st.f_t) + st.d);
    ck_assert_int_eq(st.k, sc__hang_k(st.q, 0.001));
    ck_assert(pow(st.q, st.k) <= 0.001 && pow(st.q, st.k - 1) > 0.001);
    ck_assert_int_eq(took, st.k);
    ck_assert_int_eq(sc__hang_det_feed(&d, 0.0), SC_HANG_HUNG);
    /* The program moves again: the streak ends and its samples enter the
     * model (st.k + 1 zeros and the 1). */
    ck_assert_int_ne(sc__hang_det_feed(&d, 1.0), SC_HANG_HUNG);
    (void)sc__hang_det_feed(&d, 1.0);
    sc__hang_det_stats(&d, &st);
    ck_assert_int_eq(st.streak, 0);
    sc__hang_det_free(&d);
}
END_TEST

/* (c) A hang in computation on one of two monitored ranks: S_out stays at
 * 0.5. Whether that is detectable depends on the model. When the ranks
 * are mostly computing (S_out = 1 with 0.75, 0.5 with 0.23, 0 with 0.02),
 * F(0) is about 0.02 < p-hat = 0.06, so t = 0.5: the 0.5s are suspicions
 * with F(t) about 0.25, q about 0.3, and the hang is found. */
START_TEST(det_hang_in_compute)
{
    sc__hang_det d;
    sc__hang_stats st;
    int took;

    warm_up(&d, 11, 300, 0.02, 0.23);
    took = feeds_to_hang(&d, 0.5, 1000, &st);
    ck_assert_double_eq(st.phat, 0.06);
    ck_assert_double_eq(st.t, 0.5);
    ck_assert(st.f_t > 0.15 && st.f_t < 0.35);
    ck_assert_int_eq(st.k, sc__hang_k(st.q, 0.001));
    ck_assert_int_lt(st.k, 10);
    ck_assert_int_eq(took, st.k);
    sc__hang_det_free(&d);
}
END_TEST

/* (c) The same hang where 0 is common (0.3): t = 0, so a constant 0.5 is
 * no suspicion and enters the model, for as long as the zeros make up
 * at least p-hat = 0.06 of it. Once enough 0.5s have pushed F(0) below
 * that, t becomes 0.5 and the 0.5s are suspicions, but with F(t) near 1
 * (only the ones lie above): q is about 0.98 and k in the hundreds. The
 * hang is found, but only after the model has absorbed over a thousand
 * of its samples and then k more: late, as the math says. */
START_TEST(det_hang_in_compute_hidden)
{
    sc__hang_det d;
    sc__hang_stats st;
    int zeros, n0, m, hung_at = 0;

    warm_up(&d, 13, 300, 0.3, 0.4);
    ck_assert_int_eq(sc__hang_det_feed(&d, 0.5), SC_HANG_CALM);
    sc__hang_det_stats(&d, &st);
    ck_assert_double_eq(st.t, 0);
    n0 = st.n;
    zeros = (int)lround(st.f_t * n0);
    /* The first model size n0 + m at which F^-1(0.06) passes the zeros:
     * ceil(0.06 n) > zeros. */
    for (m = 0; (int)ceil(0.06 * (n0 + m) - 1e-9) <= zeros; m++)
        ;
    ck_assert_int_gt(m, 800);
    /* One 0.5 is in already; m - 1 more are still accepted. */
    for (int i = 1; i < m; i++) {
        ck_assert_int_eq(sc__hang_det_feed(&d, 0.5), SC_HANG_CALM);
        sc__hang_det_stats(&d, &st);
        ck_assert_double_eq(st.t, 0);
    }
    for (int i = 1; i <= 5000 && hung_at == 0; i++) {
        sc__hang_verdict v = sc__hang_det_feed(&d, 0.5);

        sc__hang_det_stats(&d, &st);
        ck_assert_int_eq(st.n, n0 + m);
        ck_assert_double_eq(st.t, 0.5);
        ck_assert(st.f_t > 0.9 && st.q < 1);
        ck_assert_int_eq(st.k, sc__hang_k(st.q, 0.001));
        if (v == SC_HANG_HUNG)
            hung_at = i;
        else
            ck_assert_int_eq(v, SC_HANG_SUSPECT);
    }
    ck_assert_int_gt(st.k, 100);
    ck_assert_int_eq(hung_at, st.k);
    sc__hang_det_free(&d);
}
END_TEST

/* (d) A short wait: fewer than k suspicions, then a normal sample. All of
 * them enter the model: n grows by the streak plus one. */
START_TEST(det_short_wait)
{
    sc__hang_det d;
    sc__hang_stats st;
    int n0, k;

    warm_up(&d, 17, 200, 0.3, 0.4);
    ck_assert_int_eq(sc__hang_det_feed(&d, 0.0), SC_HANG_SUSPECT);
    sc__hang_det_stats(&d, &st);
    n0 = st.n;
    k = st.k;
    ck_assert_int_ge(k, 4);
    ck_assert_int_eq(sc__hang_det_feed(&d, 0.0), SC_HANG_SUSPECT);
    ck_assert_int_eq(sc__hang_det_feed(&d, 0.0), SC_HANG_SUSPECT);
    sc__hang_det_stats(&d, &st);
    ck_assert_int_eq(st.streak, 3);
    ck_assert_int_eq(st.n, n0);
    ck_assert_int_ne(sc__hang_det_feed(&d, 0.5), SC_HANG_SUSPECT);
    sc__hang_det_stats(&d, &st);
    ck_assert_int_eq(st.streak, 0);
    ck_assert_int_eq(st.n, n0);
    /* The next sample is judged against the grown model, whose newest
     * samples are the wait's, in order. */
    (void)sc__hang_det_feed(&d, 1.0);
    sc__hang_det_stats(&d, &st);
    ck_assert_int_eq(st.n, n0 + 4);
    ck_assert_double_eq(d.model[d.n - 5], 0.0);
    ck_assert_double_eq(d.model[d.n - 4], 0.0);
    ck_assert_double_eq(d.model[d.n - 3], 0.0);
    ck_assert_double_eq(d.model[d.n - 2], 0.5);
    ck_assert_double_eq(d.model[d.n - 1], 1.0);
    sc__hang_det_free(&d);
}
END_TEST

/* (e) Sampling too fast for the program's phases: 15 samples of 1, then
 * 15 of 0, again and again. Up to sample 20 the threshold is 1 with
 * F(t) = 1, so q > 1 and every sample is accepted; at sample 20 the first
 * block, 15 ones then 5 zeros (R = 2, region (4, 12)), fails the runs
 * test: the caller is told before any HUNG. */
START_TEST(det_not_random)
{
    sc__hang_det d;
    sc__hang_stats st;
    int at = 0;

    ck_assert_int_eq(sc__hang_det_init(&d, 0.001, 20), 0);
    for (int i = 0; i < 300 && at == 0; i++) {
        sc__hang_verdict v = sc__hang_det_feed(&d, (i / 15) % 2 == 0 ? 1.0 : 0.0);

        ck_assert_int_ne(v, SC_HANG_HUNG);
        if (v == SC_HANG_NOT_RANDOM)
            at = i + 1;
    }
    ck_assert_int_eq(at, 20);
    sc__hang_det_stats(&d, &st);
    ck_assert_int_eq(st.runs_R, 2);
    ck_assert_int_eq(st.runs_lo, 4);
    ck_assert_int_eq(st.runs_hi, 12);
    /* The model is kept. */
    ck_assert_int_eq(d.n, 20);
    sc__hang_det_free(&d);
}
END_TEST

/* The runs test runs once per `block` samples entering the model. */
START_TEST(det_runs_every_block)
{
    sc__hang_det d;
    sc__hang_stats st;

    ck_assert_int_eq(sc__hang_det_init(&d, 0.001, 4), 0);
    /* 0 1 0 1 | 0 1 0 1: each block has R = 4 = the most for (2, 2), which
     * no tail of 0.025 can reject (region (1, 5)). Alternating 0 and 1
     * after the first 11 samples keeps t = 0 and the zeros suspicious
     * with q > 1, so stay in the first 11. */
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(sc__hang_det_feed(&d, i % 2), SC_HANG_BUILDING);
    sc__hang_det_stats(&d, &st);
    ck_assert_int_eq(st.runs_R, 0);
    ck_assert_int_eq(sc__hang_det_feed(&d, 1), SC_HANG_BUILDING);
    sc__hang_det_stats(&d, &st);
    ck_assert_int_eq(st.runs_R, 4);
    ck_assert_int_eq(st.runs_lo, 1);
    ck_assert_int_eq(st.runs_hi, 5);
    /* A constant block cannot tell and counts as random. */
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(sc__hang_det_feed(&d, 0.25), SC_HANG_BUILDING);
    sc__hang_det_stats(&d, &st);
    ck_assert_int_eq(st.runs_R, 0);
    ck_assert_int_eq(st.runs_lo, 0);
    sc__hang_det_free(&d);
}
END_TEST

/* The model stops at SC__HANG_MODEL_MAX samples, dropping the oldest, and
 * its sorted copy stays the same multiset. */
START_TEST(det_bounded)
{
    sc__hang_det d;
    sc__hang_stats st;
    uint64_t state = 99;
    double *copy;

    ck_assert_int_eq(sc__hang_det_init(&d, 1e-6, 20), 0);
    for (int i = 0; i < SC__HANG_MODEL_MAX + 1000; i++)
        (void)sc__hang_det_feed(&d, (double)(sc__hang_rand(&state) % 7) / 6.0);
    sc__hang_det_stats(&d, &st);
    ck_assert_int_le(d.n, SC__HANG_MODEL_MAX);
    ck_assert_int_gt(d.n, SC__HANG_MODEL_MAX - 30);
    copy = malloc((size_t)d.n * sizeof *copy);
    ck_assert_ptr_nonnull(copy);
    memcpy(copy, d.model, (size_t)d.n * sizeof *copy);
    qsort(copy, (size_t)d.n, sizeof *copy, cmp_double);
    ck_assert_int_eq(memcmp(copy, d.sorted, (size_t)d.n * sizeof *copy), 0);
    free(copy);
    sc__hang_det_free(&d);
}
END_TEST

/* ------------------------------------------------------------ frozen state */

/* The early hang: 3 healthy samples, then the state freezes at
 * S_out = 0.25. Fed as before, the hang's samples fill the model and its
 * level can never judge them (q >= 1): calm for ever. Fed with the frozen
 * flag, they are held: the model keeps its 4 samples. */
START_TEST(det_frozen_early_hang)
{
    sc__hang_det plain, held;
    const double healthy[] = {0.75, 0.5, 1.0};
    int calm = 0;

    ck_assert_int_eq(sc__hang_det_init(&plain, 0.001, 20), 0);
    ck_assert_int_eq(sc__hang_det_init(&held, 0.001, 20), 0);
    for (int i = 0; i < 3; i++) {
        ck_assert_int_eq(sc__hang_det_feed(&plain, healthy[i]), SC_HANG_BUILDING);
        ck_assert_int_eq(sc__hang_det_feed_frozen(&held, healthy[i], 0), SC_HANG_BUILDING);
    }
    /* The first sample of the hang: the state moved since the last one. */
    ck_assert_int_eq(sc__hang_det_feed_frozen(&held, 0.25, 0), SC_HANG_BUILDING);
    (void)sc__hang_det_feed(&plain, 0.25);
    for (int i = 0; i < 97; i++) {
        sc__hang_verdict v = sc__hang_det_feed(&plain, 0.25);

        calm += v != SC_HANG_SUSPECT && v != SC_HANG_HUNG; /* accepted */
        ck_assert_int_eq(sc__hang_det_feed_frozen(&held, 0.25, 1), SC_HANG_HELD);
    }
    ck_assert_int_eq(calm, 97); /* the failure the frozen flag prevents */
    ck_assert_int_eq(plain.n, 101);
    ck_assert_int_eq(held.n, 4);
    ck_assert_int_eq(held.npend, 97);
    /* The state moves again (a long healthy wait after all): the held
     * samples enter, in order, before the new one (judged against the 4
     * samples the model had: still building). */
    ck_assert_int_eq(sc__hang_det_feed_frozen(&held, 1.0, 0), SC_HANG_BUILDING);
    ck_assert_int_eq(held.n, 102);
    ck_assert_int_eq(held.npend, 0);
    ck_assert_double_eq(held.model[100], 0.25);
    ck_assert_double_eq(held.model[101], 1.0);
    sc__hang_det_free(&plain);
    sc__hang_det_free(&held);
}
END_TEST

/* A frozen suspicion still grows the streak up to a hang; a frozen
 * non-suspicion neither ends nor grows it. */
START_TEST(det_frozen_streak)
{
    sc__hang_det d;
    uint64_t state = 7;
    sc__hang_stats st;

    ck_assert_int_eq(sc__hang_det_init(&d, 0.001, 20), 0);
    /* A model with few zeros: S_out 0 with 0.03, 0.5 with 0.5, else 1. */
    for (int i = 0; i < 200; i++) {
        double u = (double)(sc__hang_rand(&state) >> 11) * 0x1.0p-53;

        (void)sc__hang_det_feed(&d, u < 0.03 ? 0.0 : u < 0.53 ? 0.5 : 1.0);
    }
    ck_assert_int_eq(sc__hang_det_feed_frozen(&d, 0.0, 0), SC_HANG_SUSPECT);
    ck_assert_int_eq(sc__hang_det_feed_frozen(&d, 1.0, 1), SC_HANG_HELD);
    sc__hang_det_stats(&d, &st);
    ck_assert_int_eq(st.streak, 1);
    for (;;) {
        sc__hang_verdict v = sc__hang_det_feed_frozen(&d, 0.0, 1);

        sc__hang_det_stats(&d, &st);
        if (v == SC_HANG_HUNG)
            break;
        ck_assert_int_eq(v, SC_HANG_SUSPECT);
        ck_assert_int_lt(st.streak, st.k);
    }
    ck_assert_int_eq(st.streak, st.k);
    sc__hang_det_free(&d);
}
END_TEST

START_TEST(frozen_limits)
{
    /* B = L max(1 s, 5 I). */
    ck_assert_double_eq_tol(sc__hang_frozen_limit(0.02, 1, 0), 1.0, 1e-12);
    ck_assert_double_eq_tol(sc__hang_frozen_limit(0.4, 1, 0), 2.0, 1e-12);
    ck_assert_double_eq_tol(sc__hang_frozen_limit(0.4, 2.5, 0), 5.0, 1e-12);
    ck_assert_double_eq_tol(sc__hang_frozen_limit(0.02, 0.3, 0), 1.0, 1e-12); /* L >= 1 */
    ck_assert_double_eq_tol(sc__hang_frozen_limit(0.02, NAN, 0), 1.0, 1e-12);
    /* W raises it to 4 W, at most to 4 B. */
    ck_assert_double_eq_tol(sc__hang_frozen_limit(0.02, 1, 0.2), 1.0, 1e-12);
    ck_assert_double_eq_tol(sc__hang_frozen_limit(0.02, 1, 0.5), 2.0, 1e-12);
    ck_assert_double_eq_tol(sc__hang_frozen_limit(0.02, 2, 30), 8.0, 1e-12);
    /* T_s = min(T_f, max(L max(0.5 s, 4 I), 1.5 W)). */
    ck_assert_double_eq_tol(sc__hang_confirm_limit(0.02, 0.02, 1, 0), 0.5, 1e-12);
    ck_assert_double_eq_tol(sc__hang_confirm_limit(0.4, 0.4, 1, 0), 1.6, 1e-12);
    ck_assert_double_eq_tol(sc__hang_confirm_limit(0.16, 0.02, 3, 0), 1.92, 1e-12);
    ck_assert_double_eq_tol(sc__hang_confirm_limit(0.02, 0.02, 1, 1.0), 1.5, 1e-12);
    /* Never above T_f (a doubled I is capped by the frozen rule). */
    ck_assert_double_eq_tol(sc__hang_confirm_limit(3.2, 0.02, 1, 0), 1.0, 1e-12);
}
END_TEST

START_TEST(load_parse)
{
    double avg, now;

    ck_assert_int_eq(sc__hang_load_parse("0.50 0.40 0.30 1/456 789\n", 2, &avg, &now), 0);
    ck_assert_double_eq_tol(avg, 0.25, 1e-12);
    ck_assert_double_eq_tol(now, 0, 1e-12); /* the reader left out */
    ck_assert_int_eq(sc__hang_load_parse("6.00 3.00 1.00 17/456 789\n", 2, &avg, &now), 0);
    ck_assert_double_eq_tol(avg, 3, 1e-12);
    ck_assert_double_eq_tol(now, 8, 1e-12);
    ck_assert_int_eq(sc__hang_load_parse("3.00 1.00 1.00 17/456 789\n", 0, &avg, &now), 0);
    ck_assert_double_eq_tol(avg, 3, 1e-12); /* ncpu below 1 counts as 1 */
    ck_assert_double_eq_tol(now, 16, 1e-12);
    const char *bad[] = {NULL, "", "x 1 1 1/2 3", "-4 1 1 1/2 3", "1 1 1 0/2 3", "1 1 1"};
    for (int i = 0; i < NELEMS(bad); i++) {
        avg = now = 5;
        ck_assert_int_eq(sc__hang_load_parse(bad[i], 2, &avg, &now), -1);
        ck_assert(avg == 0 && now == 0);
    }
}
END_TEST

static Suite *hang_suite(void)
{
    Suite *s = suite_create("hang");
    struct {
        const char *name;
        const TTest *tests[12];
    } cases[] = {
        {"runs_region", {region_slides, region_brute_force, region_large, region_bad}},
        {"runs_test", {runs_slides, runs_alternating, runs_random, runs_cannot_tell,
                       runs_ties_dropped}},
        {"level", {level_table, k_values, k_grid}},
        {"ecdf", {quantile_ties, quantile_rounding}},
        {"random", {rand_stream, step_range}},
        {"timeout", {timeout_baseline}},
        {"detector",
         {det_bad_args, det_building, det_healthy, det_healthy_rate, det_hang_in_mpi,
          det_hang_in_compute, det_hang_in_compute_hidden, det_short_wait, det_not_random,
          det_runs_every_block, det_bounded}},
        {"frozen", {det_frozen_early_hang, det_frozen_streak, frozen_limits, load_parse}},
    };

    for (int c = 0; c < NELEMS(cases); c++) {
        TCase *tc = tcase_create(cases[c].name);

        tcase_set_timeout(tc, 60);
        for (int t = 0; t < 12 && cases[c].tests[t] != NULL; t++)
            tcase_add_test(tc, cases[c].tests[t]);
        suite_add_tcase(s, tc);
    }
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(hang_suite());
    int failures;

    srunner_run_all(sr, CK_NORMAL);
    failures = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failures ? 1 : 0;
}
