/*
 * custom_displs: an application's own gather made safe with the public
 * displacement API of libsafecoll, without any safe collective.
 *
 * Rank i sends N chars, which the root keeps at the true offset i * STRIDE
 * of its receive buffer. The application computes its int displacements as
 * i * STRIDE, and for the last rank that product wraps past INT_MAX. The
 * program then repairs the layout step by step, as safecoll_gatherv does
 * inside:
 *
 *   1. safecoll_displs_check     finds the first wrapped entry (detector D);
 *   2. safecoll_displs_recover   gives back the true 64-bit offsets;
 *   3a. safecoll_displs_segments groups the ranks so that offsets rebased to
 *                                each group's first block fit in int: one
 *                                plain MPI_Gatherv per group;
 *   3b. safecoll_displs_gcd      finds g such that, counted in units of a
 *                                contiguous type of g chars, every offset
 *                                fits in int: one plain MPI_Gatherv.
 *
 * The root checks every byte after each gather. The receive buffer is an
 * anonymous MAP_NORESERVE mapping of about 3 GB of which only the blocks
 * are ever written, so the wrap is real while the program needs a few MiB;
 * it runs the same with or without SAFECOLL_DEMO_SMALL, on any number of
 * ranks from 2 up.
 */
/* mpi-procs: 2 3 4 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <safecoll.h>

#define N (1 << 20) /* chars per rank */

/* Byte j of rank r's block; never 0, so an unwritten byte shows. */
static unsigned char pattern(int r, long long j)
{
    return (unsigned char)(1 + (j + 37 * r) % 251);
}

/* `int d = v;` for a product formed in 32-bit int: the low 32 bits as two's
 * complement, computed without signed overflow. */
static int as_int_wraps(long long v)
{
    uint32_t u = (uint32_t)(uint64_t)v;

    return u <= (uint32_t)INT_MAX ? (int)u : (int)(u - 0x80000000u) + INT_MIN;
}

/* Root: are all P blocks right? Then zero them for the next method. */
static int check_and_clear(unsigned char *buf, const MPI_Aint at[], int p)
{
    int ok = 1;

    for (int i = 0; i < p; i++) {
        for (long long j = 0; j < N && ok; j++)
            ok = buf[at[i] + j] == pattern(i, j);
        memset(buf + at[i], 0, N);
    }
    return ok;
}

/* Stops every rank when a call fails. */
static void need(int rc, const char *what)
{
    if (rc != MPI_SUCCESS) {
        fprintf(stderr, "custom_displs: %s failed: %s\n", what, safecoll_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

int main(int argc, char **argv)
{
    int rank, p, ok = 1;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (p < 2) {
        if (rank == 0)
            printf("custom_displs: run it on 2 ranks or more\n");
        MPI_Finalize();
        return 0;
    }

    /* The last block starts 3,000,000,000 chars in, past INT_MAX. */
    const long long stride = 3000000000LL / (p - 1);
    unsigned char *sendbuf = malloc(N), *recvbuf = NULL;
    int *counts = NULL, *displs = NULL;
    MPI_Aint *true_displs = NULL;
    MPI_Count *true_counts = NULL;
    size_t span = (size_t)((p - 1) * stride + N);

    if (sendbuf == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    for (long long j = 0; j < N; j++)
        sendbuf[j] = pattern(rank, j);

    if (rank == 0) {
        void *m = mmap(NULL, span, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        counts = malloc(sizeof(int) * (size_t)p);
        displs = malloc(sizeof(int) * (size_t)p);
        true_displs = malloc(sizeof(MPI_Aint) * (size_t)p);
        true_counts = malloc(sizeof(MPI_Count) * (size_t)p);
        if (m == MAP_FAILED || !counts || !displs || !true_displs || !true_counts)
            MPI_Abort(MPI_COMM_WORLD, 1);
        recvbuf = m;

        /* The application's layout, with the product formed in int. */
        for (int i = 0; i < p; i++) {
            counts[i] = N;
            displs[i] = as_int_wraps(i * stride);
            true_counts[i] = N;
        }
        printf("custom_displs: %d ranks x %d chars, block i at true offset i * %lld\n", p, N,
               stride);
        printf("  int displs (i * %lld in int):", stride);
        for (int i = 0; i < p; i++)
            printf(" %d", displs[i]);
        printf("\n");

        /* 1. Detector D. */
        int bad;
        need(safecoll_displs_check(displs, p, &bad), "safecoll_displs_check");
        printf("  safecoll_displs_check: first wrapped entry: displs[%d]\n", bad);

        /* 2. Recovery. The counts help: blocks of a receive buffer do not
         * overlap, so each block starts after the end of the one before. */
        need(safecoll_displs_recover(displs, counts, p, true_displs),
             "safecoll_displs_recover");
        printf("  safecoll_displs_recover:");
        for (int i = 0; i < p; i++)
            printf(" %lld", (long long)true_displs[i]);
        printf("\n");
    }

    /* 3a. One plain MPI_Gatherv per group of ranks whose offsets, rebased
     * to the group's first block, fit in int. Only the root knows the
     * layout, so it tells the others where the groups start. */
    int nseg = 0, *seg_start = malloc(sizeof(int) * (size_t)(p + 1));
    int *rebased = malloc(sizeof(int) * (size_t)p), *c = malloc(sizeof(int) * (size_t)p);
    if (seg_start == NULL || rebased == NULL || c == NULL)
        MPI_Abort(MPI_COMM_WORLD, 1);
    if (rank == 0) {
        need(safecoll_displs_segments(true_displs, true_counts, p, INT_MAX, &nseg, seg_start,
                                      rebased),
             "safecoll_displs_segments");
        printf("  safecoll_displs_segments: %d groups of ranks:", nseg);
        for (int k = 0; k < nseg; k++)
            printf(" [%d..%d]", seg_start[k], seg_start[k + 1] - 1);
        printf("\n");
    }
    MPI_Bcast(&nseg, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(seg_start, nseg + 1, MPI_INT, 0, MPI_COMM_WORLD);
    for (int k = 0; k < nseg; k++) {
        int s0 = seg_start[k], s1 = seg_start[k + 1];
        int member = rank >= s0 && rank < s1;
        unsigned char *base = NULL;

        if (rank == 0) {
            /* Ranks outside the group take part with empty blocks. */
            for (int i = 0; i < p; i++) {
                c[i] = i >= s0 && i < s1 ? N : 0;
                displs[i] = i >= s0 && i < s1 ? rebased[i] : 0;
            }
            base = recvbuf + true_displs[s0];
        }
        need(MPI_Gatherv(sendbuf, member ? N : 0, MPI_CHAR, base, c, displs, MPI_CHAR, 0,
                         MPI_COMM_WORLD),
             "MPI_Gatherv of a group");
    }
    if (rank == 0) {
        ok = check_and_clear(recvbuf, true_displs, p);
        printf("  gathered by groups (%d MPI_Gatherv calls): %s\n", nseg,
               ok ? "every byte right" : "WRONG DATA");
    }

    /* 3b. One plain MPI_Gatherv in units of g chars, when every offset
     * divided by g fits in int. The senders still send N MPI_CHAR: a
     * contiguous type of g chars has the type signature of g chars. */
    int use_gcd = 0;
    MPI_Datatype unit = MPI_DATATYPE_NULL;
    if (rank == 0) {
        MPI_Count g = 1;
        need(safecoll_displs_gcd(true_displs, true_counts, p, &g), "safecoll_displs_gcd");
        use_gcd = g > 1 && true_displs[p - 1] / g <= INT_MAX;
        printf("  safecoll_displs_gcd: g = %lld, largest offset in units of g: %lld%s\n",
               (long long)g, (long long)(true_displs[p - 1] / g),
               use_gcd ? " (fits in int)" : " (does not fit: skipped)");
        if (use_gcd) {
            for (int i = 0; i < p; i++) {
                c[i] = (int)(N / g);
                displs[i] = (int)(true_displs[i] / g);
            }
            need(MPI_Type_contiguous((int)g, MPI_CHAR, &unit), "MPI_Type_contiguous");
            need(MPI_Type_commit(&unit), "MPI_Type_commit");
        }
    }
    MPI_Bcast(&use_gcd, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (use_gcd) {
        need(MPI_Gatherv(sendbuf, N, MPI_CHAR, recvbuf, c, displs, unit, 0, MPI_COMM_WORLD),
             "MPI_Gatherv in units of g");
        if (rank == 0) {
            int ok_g = check_and_clear(recvbuf, true_displs, p);
            printf("  gathered in units of g (1 MPI_Gatherv call): %s\n",
                   ok_g ? "every byte right" : "WRONG DATA");
            ok = ok && ok_g;
            MPI_Type_free(&unit);
        }
    }

    if (rank == 0) {
        printf("%s\n", ok ? "PASS" : "FAIL");
        munmap(recvbuf, span);
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(sendbuf);
    free(counts);
    free(displs);
    free(true_displs);
    free(true_counts);
    free(seg_start);
    free(rebased);
    free(c);
    MPI_Finalize();
    return ok ? 0 : 1;
}
