/*
 * overflow_gatherv: the overflow libsafecoll exists for, at its real size.
 *
 * Four ranks each send 800,000,000 MPI_CHAR to rank 0. The application
 * computes the receive displacements the usual way, displs[i] = i * n, in
 * int. For i = 3 the true offset 2,400,000,000 is past INT_MAX and the int
 * holds -1,894,967,296. MPICH 4.0.2's MPI_Gatherv takes that value at its
 * word, reads rank 3's block into memory 1.9 GB *before* the receive buffer
 * and dies (process_vm_readv ... Bad address). safecoll_gatherv, called with
 * the very same arguments, detects the wrap, recovers the true offsets and
 * delivers every byte, which rank 0 then checks.
 *
 *   mpiexec -n 4 overflow_gatherv            the safe call (make demo)
 *   mpiexec -n 4 overflow_gatherv --native   the plain MPI_Gatherv: crashes
 *
 * The real run needs about 6.4 GB (0.8 GB per sender, 3.2 GB at the root).
 * With less than 8 GiB available, or with SAFECOLL_DEMO_SMALL=1, it runs the
 * same code on a sparse receive buffer: blocks of 1 MiB at the true offsets
 * i * 1,000,000,000, so the int displacements still really wrap, but only
 * the pages of the blocks are ever touched.
 */
/* mpi-procs: 4 */
#define _DEFAULT_SOURCE /* MAP_ANONYMOUS, MAP_NORESERVE, MADV_HUGEPAGE, nanosleep */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <safecoll.h>

#define FULL_N 800000000LL        /* chars per rank in the real run */
#define SMALL_N (1LL << 20)       /* chars per rank in the small run */
#define SMALL_STRIDE 1000000000LL /* true distance between blocks, small run */
#define MIN_AVAILABLE (8LL << 30) /* below this MemAvailable, run small */
#define GUARD 4096                /* bytes around a sparse block that must stay 0 */

/* ---- the data pattern -------------------------------------------------- */

/* Byte j of rank r's block is 1 + (j + 37 r) mod 251: it depends on the rank
 * and the offset, and is never 0, so memory nobody wrote (which reads 0)
 * fails the check too. Filling and checking copy or compare against ref,
 * one chunk at a time, which runs at memory speed. */
#define PERIOD 251
#define CHUNK ((long long)PERIOD * 4096)
static unsigned char ref[CHUNK + PERIOD];

static const unsigned char *ref_at(long long j, int r)
{
    return ref + (j % PERIOD + 37 * r % PERIOD) % PERIOD;
}

static void fill(unsigned char *p, long long len, int r)
{
    for (long long j = 0; j < len; j += CHUNK)
        memcpy(p + j, ref_at(j, r), (size_t)(len - j < CHUNK ? len - j : CHUNK));
}

/* The offset of the first wrong byte of rank r's block, or -1. */
static long long first_wrong(const unsigned char *p, long long len, int r)
{
    for (long long j = 0; j < len; j += CHUNK) {
        long long c = len - j < CHUNK ? len - j : CHUNK;
        if (memcmp(p + j, ref_at(j, r), (size_t)c) != 0)
            for (long long k = 0; k < c; k++)
                if (p[j + k] != ref_at(j, r)[k])
                    return j + k;
    }
    return -1;
}

/* ---- what the application does ---------------------------------------- */

/* The value `int d = i * n;` leaves in d on a machine with 32-bit int: the
 * low 32 bits of the true product, read as two's complement. Signed
 * overflow is undefined in C, so the same bits are computed through uint32_t
 * and converted back without any implementation-defined step. */
static int as_int_wraps(long long v)
{
    uint32_t u = (uint32_t)(uint64_t)v;

    return u <= (uint32_t)INT_MAX ? (int)u : (int)(u - 0x80000000u) + INT_MIN;
}

/* ---- helpers of the demo ----------------------------------------------- */

/* An anonymous mapping: reads as zeros and, with MAP_NORESERVE, costs memory
 * only for the pages written, which keeps the sparse buffer small. Huge
 * pages make the first touch of gigabytes several times faster. */
static unsigned char *map(size_t bytes)
{
    void *m = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

    if (m == MAP_FAILED) {
        fprintf(stderr, "overflow_gatherv: cannot map %zu bytes\n", bytes);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    madvise(m, bytes, MADV_HUGEPAGE);
    return m;
}

/* MPICH waits by spinning. When ranks outnumber cores, ranks that wait while
 * rank 0 fills or checks gigabytes would take its CPU, so the demo's own
 * waits poll with a 1 ms sleep. */
static void wait_gently(MPI_Request *req)
{
    struct timespec ms = {0, 1000000};
    int done = 0;

    while (MPI_Test(req, &done, MPI_STATUS_IGNORE) == MPI_SUCCESS && !done)
        nanosleep(&ms, NULL);
}

/* MemAvailable of /proc/meminfo in bytes, or -1 when it cannot be read. */
static long long mem_available(void)
{
    FILE *f = fopen("/proc/meminfo", "r");
    char line[256];
    long long kb = -1;

    if (f == NULL)
        return -1;
    while (fgets(line, sizeof line, f) != NULL)
        if (sscanf(line, "MemAvailable: %lld kB", &kb) == 1)
            break;
    fclose(f);
    return kb < 0 ? -1 : kb * 1024;
}

static const char *strategy_that_ran(void)
{
    safecoll_stats st;

    if (safecoll_stats_get(SAFECOLL_COLL_GATHERV, &st) != MPI_SUCCESS)
        return "?";
    for (int s = 0; s < SAFECOLL_NSTRATEGY; s++)
        if (st.by_strategy[s] > 0)
            return safecoll_strategy_name((safecoll_strategy)s);
    return "none";
}

int main(int argc, char **argv)
{
    int rank, p, native = 0, small = 0, ok = 1, wrapped = -1, rc;
    long long n, stride, avail = -1;
    const char *small_env = getenv("SAFECOLL_DEMO_SMALL");
    int forced_small = small_env != NULL && strcmp(small_env, "1") == 0;
    MPI_Request req;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--native") == 0) {
            native = 1;
        } else {
            if (rank == 0)
                fprintf(stderr, "usage: mpiexec -n 4 %s [--native]\n", argv[0]);
            MPI_Finalize();
            return 2;
        }
    }
    if (p < 2) {
        if (rank == 0)
            printf("overflow_gatherv: needs at least 2 ranks (run it with mpiexec -n 4)\n");
        MPI_Finalize();
        return 0;
    }

    /* Real sizes when the machine holds them (and at least 4 ranks make
     * i * 800,000,000 pass INT_MAX), else the sparse small run. Rank 0
     * decides for everyone. */
    if (rank == 0) {
        long long need = 2 * p * FULL_N + (1LL << 30);
        avail = mem_available();
        small = forced_small || p < 4 || avail < (need > MIN_AVAILABLE ? need : MIN_AVAILABLE);
    }
    MPI_Bcast(&small, 1, MPI_INT, 0, MPI_COMM_WORLD);
    n = small ? SMALL_N : FULL_N;
    /* With fewer than 4 ranks the last block moves to 3,000,000,000 so that
     * its displacement still wraps. */
    stride = !small ? FULL_N : p >= 4 ? SMALL_STRIDE : 3000000000LL / (p - 1);

    /* Every rank fills its block. Rank 0 receives P blocks of n chars at the
     * true offsets i * stride, and writes zeros there first, as an
     * application that reuses its buffers would have: MPICH 4.0.2 (UCX, CMA)
     * copies into never-touched pages about 20 times slower on this machine
     * (17 s instead of 0.9 s for 1.6 GB). */
    size_t span = (size_t)((p - 1) * stride + n + (small ? GUARD : 0));
    unsigned char *recvbuf = NULL, *sendbuf = map((size_t)n);
    int *counts = NULL, *displs = NULL;
    for (long long k = 0; k < CHUNK + PERIOD; k++)
        ref[k] = (unsigned char)(1 + k % PERIOD);
    fill(sendbuf, n, rank);
    if (rank == 0) {
        recvbuf = map(span);
        counts = malloc(sizeof(int) * (size_t)p);
        displs = malloc(sizeof(int) * (size_t)p);
        if (counts == NULL || displs == NULL)
            MPI_Abort(MPI_COMM_WORLD, 1);
        for (int i = 0; i < p; i++) {
            long long lo = i * stride - (i > 0 && small ? GUARD : 0);
            memset(recvbuf + lo, 0, (size_t)(i * stride + n + (small ? GUARD : 0) - lo));
        }
        /* This is the application's code: the product is formed in int. */
        for (int i = 0; i < p; i++) {
            counts[i] = (int)n;
            displs[i] = as_int_wraps((long long)i * stride);
            if (wrapped < 0 && displs[i] != (long long)i * stride)
                wrapped = i;
        }

        printf("overflow_gatherv: %d ranks x %lld MPI_CHAR gathered at rank 0 with %s\n", p, n,
               native ? "MPI_Gatherv (--native)" : "safecoll_gatherv");
        if (small)
            printf("  small run (%s): blocks of %lld bytes at true offsets i * %lld in a "
                   "sparse %.2f GB buffer\n",
                   forced_small ? "SAFECOLL_DEMO_SMALL=1"
                   : p < 4      ? "fewer than 4 ranks"
                                : "MemAvailable below 8 GiB",
                   n, stride, span / 1e9);
        else
            printf("  real run: %.2f GB receive buffer at rank 0, MemAvailable %.1f GiB\n",
                   span / 1e9, avail / (double)(1LL << 30));
        printf("  int displs computed as displs[i] = i * %lld:", stride);
        for (int i = 0; i < p; i++)
            printf(" %d", displs[i]);
        printf("\n");
        if (wrapped >= 0)
            printf("  displs[%d] wrapped past INT_MAX: the true offset is %lld\n", wrapped,
                   wrapped * stride);
        if (!native && wrapped >= 0)
            printf("  native MPI_Gatherv would receive rank %d's block at displs[%d] = %d, "
                   "%lld bytes before the buffer -> crash on MPICH 4.0.2 (process_vm_readv "
                   "... Bad address)\n"
                   "  see it: make demo-native, or mpiexec -n %d %s --native\n",
                   wrapped, wrapped, displs[wrapped], -(long long)displs[wrapped], p, argv[0]);
        fflush(stdout);
    }
    MPI_Ibarrier(MPI_COMM_WORLD, &req);
    wait_gently(&req);

    double t0 = MPI_Wtime();
    if (native) {
        if (rank == 0) {
            printf("  calling MPI_Gatherv with these displs now; a crash is the expected "
                   "outcome\n");
            fflush(stdout);
        }
        rc = MPI_Gatherv(sendbuf, (int)n, MPI_CHAR, recvbuf, counts, displs, MPI_CHAR, 0,
                         MPI_COMM_WORLD);
    } else {
        /* The same arguments, renamed call. safecoll_verbose_set(1) makes
         * the library print its decision on stderr; rank 0's stderr joins
         * its stdout so that the line shows up in order under mpiexec. */
        if (rank == 0)
            dup2(STDOUT_FILENO, STDERR_FILENO);
        safecoll_verbose_set(1);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
        rc = safecoll_gatherv(sendbuf, (int)n, MPI_CHAR, recvbuf, counts, displs, MPI_CHAR, 0,
                              MPI_COMM_WORLD);
    }
    double t = MPI_Wtime() - t0;

    if (rank == 0) {
        long long bad_at = -1;
        int bad_rank = -1;
        unsigned long long checked = 0;

        if (native)
            printf("  MPI_Gatherv returned %d after %.2f s (it did not crash)\n", rc, t);
        else
            printf("  safecoll_gatherv returned %d after %.2f s; strategy: %s\n", rc, t,
                   strategy_that_ran());
        if (rc != MPI_SUCCESS && !native)
            printf("  error: %s\n", safecoll_last_error());
        /* Every byte of every block, plus, in the sparse buffer, the bytes
         * just around each block, which nobody may write. */
        for (int i = 0; i < p && bad_rank < 0 && rc == MPI_SUCCESS; i++) {
            unsigned char *blk = recvbuf + i * stride;
            if ((bad_at = first_wrong(blk, n, i)) >= 0)
                bad_rank = i;
            checked += (unsigned long long)n;
            for (long long g = 1; small && g <= GUARD && bad_rank < 0; g++)
                if ((i > 0 && blk[-g] != 0) || blk[n - 1 + g] != 0) {
                    bad_rank = i;
                    bad_at = i > 0 && blk[-g] != 0 ? -g : n - 1 + g;
                }
        }
        ok = rc == MPI_SUCCESS && bad_rank < 0;
        if (bad_rank >= 0)
            printf("  WRONG DATA: rank %d's block, offset %lld\n", bad_rank, bad_at);
        else if (rc == MPI_SUCCESS)
            printf("  rank 0 checked all %llu received bytes%s: every one is right\n", checked,
                   small ? " and the holes around each block" : "");
        printf("%s: %s\n", ok ? "PASS" : "FAIL",
               native ? (ok ? "the native call survived these displs on this MPI"
                            : "the native call gave a wrong result")
               : ok   ? "safecoll_gatherv delivered what the wrapped displs meant"
                      : "safecoll_gatherv did not deliver the data");
        fflush(stdout);
    }
    MPI_Ibcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD, &req);
    wait_gently(&req);

    if (recvbuf != NULL)
        munmap(recvbuf, span);
    munmap(sendbuf, (size_t)n);
    free(counts);
    free(displs);
    MPI_Finalize();
    return ok ? 0 : 1;
}
