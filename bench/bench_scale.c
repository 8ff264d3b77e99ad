/*
 * bench_scale: the cost of scalability validation (issue 34's target):
 * fitting and validating 20 functions x 10 process counts x 5 repetitions
 * in under 1 s. No MPI job: the points are synthetic (a known term per
 * function, 2% noise), fed through safecoll_scale_add() as measured or
 * read points are; each round times create, add, analyze (with the
 * expectation's search space, and with Extra-P's default space) and the
 * table. Prints the median and the slowest of the rounds.
 *
 *   bench/bin/bench_scale [ROUNDS]   (default 21)
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <safecoll/scale.h>

enum { FUNCS = 20, PROCS = 10, REPS = 5 };

static double now(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* One round: the seconds of the whole validation, or -1. */
static double round_once(safecoll_scale_space space, unsigned *seed)
{
    static const char *const expect[] = {"log p", "p", "p log p", "sqrt p", "1"};
    static const double term[][2] = {{0, 1}, {1, 0}, {1, 1}, {0.5, 0}, {0.25, 1}};
    safecoll_scale_opts o;
    safecoll_scale *s;
    double t0 = now();
    char name[32];

    if (safecoll_scale_create(&s) != MPI_SUCCESS)
        return -1;
    for (int f = 0; f < FUNCS; f++) {
        snprintf(name, sizeof name, "f%02d", f);
        for (int k = 0; k < PROCS; k++) {
            double p = 2 << k, t = pow(p, term[f % 5][0]) * pow(log2(p), term[f % 5][1]);
            for (int r = 0; r < REPS; r++) {
                double noise = 1 + 0.02 * ((double)rand_r(seed) / RAND_MAX - 0.5);
                if (safecoll_scale_add(s, name, "time", p, (1e-6 + 1e-7 * t) * noise) != MPI_SUCCESS)
                    return -1;
            }
        }
        if (safecoll_scale_expect(s, name, expect[f % 5], NULL) != MPI_SUCCESS)
            return -1;
    }
    safecoll_scale_opts_init(&o);
    o.space = space;
    FILE *null = fopen("/dev/null", "w");
    if (null == NULL || safecoll_scale_analyze(s, &o) != MPI_SUCCESS ||
        safecoll_scale_write_table(s, null) != MPI_SUCCESS)
        return -1;
    fclose(null);
    safecoll_scale_destroy(s);
    return now() - t0;
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 21;
    unsigned seed = 1;
    static const struct {
        safecoll_scale_space space;
        const char *name;
    } spaces[] = {{SAFECOLL_SCALE_SPACE_EXPECT, "expectation's (section 2.3)"},
                  {SAFECOLL_SCALE_SPACE_EXTRAP, "Extra-P's defaults"}};

    if (rounds < 1 || rounds > 10000) {
        fprintf(stderr, "usage: bench_scale [ROUNDS in 1..10000]\n");
        return 2;
    }
    printf("| search space | functions x p x repetitions | median | slowest | target |\n"
           "|---|---|---|---|---|\n");
    for (int k = 0; k < 2; k++) {
        double *t = malloc((size_t)rounds * sizeof *t);
        if (t == NULL)
            return 1;
        for (int r = 0; r < rounds; r++)
            if ((t[r] = round_once(spaces[k].space, &seed)) < 0) {
                fprintf(stderr, "bench_scale: %s\n", safecoll_last_error());
                return 1;
            }
        qsort(t, (size_t)rounds, sizeof *t, by_value);
        printf("| %s | %d x %d x %d | %.2f ms | %.2f ms | < 1000 ms: %s |\n", spaces[k].name, FUNCS,
               PROCS, REPS, 1e3 * t[rounds / 2], 1e3 * t[rounds - 1],
               t[rounds / 2] < 1 ? "met" : "missed");
        free(t);
    }
    return 0;
}
