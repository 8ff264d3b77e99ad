/*
 * bench_trace: the cost of the offline analyzer (safecoll_trace_analyze,
 * issue 33 section 3) and how it grows with the trace: synthesizes traces
 * of about N messages with the library's trace writer and times their
 * analysis (reading and checking the files included), one process, no
 * MPI job.
 *
 *   bench/bin/bench_trace [-P RANKS] [N...]     (default -P 64, N = 1e5 3e5 1e6)
 *
 * The trace is a mix an application could make, repeated until N
 * messages: a binomial broadcast of 4 KiB from a rotating root, a halo
 * exchange (each rank to both neighbours, distinct payloads), a pairwise
 * alltoall of 64 B blocks among 16 of the ranks, a linear gather of 256 B
 * to a rotating root that keeps its piece (a SELF record), and a
 * dissemination barrier. Payload CRCs are computed from real buffers (64 bytes hashed,
 * the byte count recorded as is, to keep the generator short). Prints per
 * N: messages, events, the analysis's wall and CPU time (the CPU time is
 * the steadier figure on a shared machine), its rate per CPU second, and
 * the findings. The trace files go to TMPDIR and are removed.
 */
/* bench-link: static */
#define _GNU_SOURCE 1

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <safecoll/trace.h>

#include "replay.h"
#include "trace.h"

static sc__tc_writer **w;
static int64_t clk;
static long nmsg;
/* The ends hash of the last payload() (its caller's record takes it). */
static uint32_t last_ends;

static double now(clockid_t c)
{
    struct timespec ts;
    clock_gettime(c, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void put(int kind, int rank, int peer, uint32_t crc, int64_t bytes, uint32_t site)
{
    sc__tc_rec r;
    memset(&r, 0, sizeof r);
    r.kind = (uint8_t)kind;
    r.peer = peer;
    r.crc = crc;
    r.ends = bytes > 0 ? last_ends : 0;
    r.bytes = bytes;
    clk += 100;
    r.t_ns = clk;
    r.site = site;
    if (sc__tc_writer_add(w[rank], &r) != MPI_SUCCESS) {
        fprintf(stderr, "bench_trace: %s\n", safecoll_last_error());
        exit(1);
    }
}

static uint32_t payload(uint64_t seed)
{
    unsigned char b[64];
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
    for (int i = 0; i < 64; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        b[i] = (unsigned char)x;
    }
    last_ends = sc__tc_ends_hash(b, sizeof b);
    return sc__rp_crc(0, b, sizeof b);
}

static void msg(int s, int d, uint32_t crc, int64_t bytes, uint32_t site)
{
    put(SC_TC_SEND, s, d, crc, bytes, site);
    put(SC_TC_RECV, d, s, crc, bytes, site);
    nmsg++;
}

static void generate(const char *dir, int P, long target)
{
    uint64_t seed = 1;
    uint32_t site = 1;

    w = calloc((size_t)P, sizeof *w);
    for (int r = 0; r < P; r++)
        if (sc__tc_writer_open(&w[r], dir, r, P, 42, 0) != MPI_SUCCESS ||
            sc__tc_writer_site(w[r], "app.c:100") != 1 ||
            sc__tc_writer_site(w[r], "app.c:200") != 2 ||
            sc__tc_writer_site(w[r], "app.c:300") != 3 ||
            sc__tc_writer_site(w[r], "app.c:400") != 4 ||
            sc__tc_writer_site(w[r], "app.c:500") != 5) {
            fprintf(stderr, "bench_trace: %s\n", safecoll_last_error());
            exit(1);
        }
    clk = 0;
    nmsg = 0;
    for (int it = 0; nmsg < target; it++) {
        /* Binomial broadcast from a rotating root. */
        int root = it % P;
        uint32_t X = payload(seed++);
        for (int mask = 1 << 20; mask > 0; mask >>= 1)
            for (int rel = 0; rel < P; rel++) {
                int low = rel == 0 ? 1 << 21 : rel & -rel;
                if (mask < low && rel + mask < P)
                    msg((rel + root) % P, (rel + mask + root) % P, X, 4096, site);
            }
        /* Halo exchange. */
        for (int i = 0; i < P; i++) {
            put(SC_TC_SEND, i, (i + P - 1) % P, payload(seed + 2 * (uint64_t)i), 512, site + 1);
            put(SC_TC_SEND, i, (i + 1) % P, payload(seed + 2 * (uint64_t)i + 1), 512, site + 1);
        }
        for (int i = 0; i < P; i++) {
            int l = (i + P - 1) % P, r = (i + 1) % P;
            put(SC_TC_RECV, i, r, payload(seed + 2 * (uint64_t)r), 512, site + 1);
            put(SC_TC_RECV, i, l, payload(seed + 2 * (uint64_t)l + 1), 512, site + 1);
            nmsg += 2;
        }
        seed += 2 * (uint64_t)P;
        /* Pairwise alltoall among the first 16 ranks. */
        int Q = P < 16 ? P : 16;
        for (int k = 1; k < Q; k++) {
            for (int i = 0; i < Q; i++)
                put(SC_TC_SEND, i, (i + k) % Q, payload(seed + (uint64_t)(Q * i + (i + k) % Q)),
                    64, site + 2);
            for (int i = 0; i < Q; i++) {
                int f = (i + Q - k) % Q;
                put(SC_TC_RECV, i, f, payload(seed + (uint64_t)(Q * f + i)), 64, site + 2);
                nmsg++;
            }
        }
        seed += (uint64_t)(Q * Q);
        /* A linear gather of 256 B to a rotating root, which keeps its
         * own piece (a SELF record). */
        {
            int g = (it * 7) % P;
            sc__tc_rec r;
            memset(&r, 0, sizeof r);
            r.kind = SC_TC_SELF;
            r.peer = g;
            r.crc = payload(seed + (uint64_t)g);
            r.ends = last_ends;
            r.bytes = 256;
            clk += 100;
            r.t_ns = clk;
            r.site = site + 4;
            if (sc__tc_writer_add(w[g], &r) != MPI_SUCCESS)
                exit(1);
            for (int i = 0; i < P; i++)
                if (i != g)
                    msg(i, g, payload(seed + (uint64_t)i), 256, site + 4);
            seed += (uint64_t)P;
        }
        /* Dissemination barrier. */
        for (int k = 1; k < P; k *= 2) {
            for (int i = 0; i < P; i++)
                put(SC_TC_SEND, i, (i + k) % P, 0, 0, site + 3);
            for (int i = 0; i < P; i++) {
                put(SC_TC_RECV, i, (i + P - k) % P, 0, 0, site + 3);
                nmsg++;
            }
        }
    }
    for (int r = 0; r < P; r++)
        if (sc__tc_writer_close(w[r]) != MPI_SUCCESS) {
            fprintf(stderr, "bench_trace: %s\n", safecoll_last_error());
            exit(1);
        }
    free(w);
}

int main(int argc, char **argv)
{
    long sizes[16] = {100000, 300000, 1000000};
    int n = 3, P = 64, first = 1;
    char dir[512], cmd[600];

    if (argc > 2 && strcmp(argv[1], "-P") == 0) {
        P = atoi(argv[2]);
        first = 3;
    }
    if (P < 16 || P > 4096) {
        fprintf(stderr, "bench_trace: -P takes 16 to 4096\n");
        return 2;
    }
    if (argc > first) {
        n = 0;
        for (int i = first; i < argc && n < 16; i++)
            sizes[n++] = atol(argv[i]);
    }
    printf("# bench_trace: P = %d ranks; analysis = read + check + match + replays + report\n",
           P);
    printf("%10s %10s %9s %9s %12s %9s  %s\n", "messages", "events", "seconds", "cpu s",
           "msgs/cpu s", "findings", "kinds");
    for (int i = 0; i < n; i++) {
        snprintf(dir, sizeof dir, "%s/bench_trace.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
        if (mkdtemp(dir) == NULL) {
            perror("mkdtemp");
            return 1;
        }
        generate(dir, P, sizes[i]);
        safecoll_trace_report *rep = NULL;
        double t0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
        int rc = safecoll_trace_analyze(dir, NULL, &rep);
        double t = now(CLOCK_MONOTONIC) - t0, c = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
        if (system(cmd) != 0)
            fprintf(stderr, "bench_trace: cannot remove %s\n", dir);
        if (rc != MPI_SUCCESS) {
            fprintf(stderr, "bench_trace: %s\n", safecoll_last_error());
            return 1;
        }
        long events, msgs;
        safecoll_trace_report_stats(rep, NULL, &events, &msgs, NULL, NULL);
        printf("%10ld %10ld %9.3f %9.3f %12.0f %9d ", msgs, events, t, c, (double)msgs / c,
               safecoll_trace_report_count(rep));
        for (int k = 0; k < safecoll_trace_report_count(rep) && k < 6; k++) {
            const safecoll_trace_finding *f = safecoll_trace_report_finding(rep, k);
            printf(" %s(%ld)", safecoll_trace_kind_name(f->kind), f->occurrences);
        }
        printf("\n");
        fflush(stdout);
        safecoll_trace_report_destroy(rep);
    }
    return 0;
}
