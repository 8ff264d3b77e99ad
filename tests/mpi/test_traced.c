/*
 * Hand-written collectives in real traced programs (issue 33, section 4):
 * the scenarios tests/check-traced.sh runs under SAFECOLL_TRACE=DIR and
 * then analyzes with `safecoll trace analyze DIR`. One scenario a job,
 * named by argv[1]; `make check-mpi` does not run this program (the
 * Makefile leaves it out of run-mpi.sh's list), its script does.
 *
 * Every message goes through the safecoll_ point-to-point wrappers and
 * carries real data: distinct pseudo-random bytes per scenario, root,
 * repetition and piece from a fixed seed (gen()), so that two payloads
 * are equal only where the pattern makes them so. Repetitions are apart
 * in time: a plain MPI_Barrier between them, which is not traced (only
 * the wrappers are). Every scenario checks what it received (a "FAIL:"
 * line and exit status 1 otherwise). The lines of the wrapper calls carry
 * a comment `site: NAME`, by which the script finds the source line a
 * finding's call site must resolve to.
 *
 *   fig6a    paper 001, Fig. 6 a: a linear broadcast (a chain from rank 1)
 *            among noise messages, 3 times
 *   fig6b    Fig. 6 b: ranks 0 and 1 hold the same data and exchange it
 *            (the redundant message), then rank 1 starts the chain: two
 *            possible roots, 3 times
 *   fig6c    Fig. 6 c: the same broadcast (same data) twice in a row,
 *            among noise
 *   fig6d    Fig. 6 d: rank 0 passes a token to each other rank in turn;
 *            its holder broadcasts its own data (linearly, rank 0 last);
 *            rank 0 then broadcasts its own
 *   binomial a binomial-tree broadcast from rank 2, 3 times
 *   pipeline a pipelined broadcast from rank 0 along a chain, 4 segments,
 *            3 times
 *   scag     a broadcast from rank 3 made of a scatter and a ring
 *            allgather, 3 times
 *   ring     a ring allgather with safecoll_sendrecv, 3 times
 *   alltoall a pairwise-exchange all-to-all with safecoll_sendrecv, 3 times
 *   barrier  a dissemination barrier of empty messages, 3 times
 *   gather   a linear gather to rank 1, its own piece recorded with
 *            safecoll_trace_self, 3 times
 *   scatter  a linear scatter from rank 2, its own piece recorded, 3 times
 *   reduce   an integer sum to rank 0: its own vector and the result
 *            recorded, 3 times
 *   subset   a binomial broadcast over the even ranks from rank 2 (at
 *            least 6 ranks), the odd ranks exchanging noise, 3 times
 *   near     a linear broadcast from rank 0 over every rank but the last,
 *            which sends noise, 3 times
 *   halo     (no finding) a periodic 1-D halo exchange with a stencil
 *            update, 10 steps
 *   master   (no finding) a master-worker queue: tasks handed out, results
 *            received from MPI_ANY_SOURCE with MPI_ANY_TAG, an empty stop
 *            message to each worker
 *   equal    (no finding) unrelated messages with equal payloads from
 *            different senders at different times, 3 times
 *   emptyself (no finding) rank 0 keeps an empty piece, then sends a
 *            piece to each other rank, 3 times
 *   region   binomial broadcasts from ranks 0, 1 and 2; only the one from
 *            rank 1 lies between safecoll_trace_start() and
 *            safecoll_trace_stop()
 *   idle     a linear broadcast from rank 0 over all ranks but the last,
 *            which makes no wrapper call at all, 3 times
 *   mpinames a binomial broadcast from rank 1 written with MPI's names
 *            under <safecoll/switch.h> (call sites as file:line), 3
 *            times, then the library's own MPI_Bcast (safecoll_bcast)
 */
#define _DEFAULT_SOURCE 1

#include <mpi.h>
#include <safecoll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { REPS = 3, NOISE_BYTES = 40, TAG_DATA = 1, TAG_NOISE = 2, TAG_TOKEN = 3, TAG_STOP = 4 };

static int rank, size, scen, bad;

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    printf("FAIL: rank %d: ", rank);
    vprintf(fmt, ap);
    printf("\n");
    fflush(stdout);
    va_end(ap);
    bad = 1;
}

/* A wrapper's result: anything but MPI_SUCCESS is a failure. */
static void ck(int rc, int line)
{
    if (rc != MPI_SUCCESS)
        fail("the call at line %d returned %d: %s", line, rc, safecoll_last_error());
}
#define CK(call) ck((call), __LINE__)

/* ------------------------------------------------------------ data */

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* The n bytes of piece `piece` of rank `root`'s data in repetition rep of
 * this scenario: equal for equal arguments only. */
static void gen(void *buf, size_t n, int root, int rep, int piece)
{
    uint64_t s = 0x7e57ed5eedull ^ (uint64_t)(scen + 1) << 48 ^ (uint64_t)(root + 1) << 32 ^
                 (uint64_t)(rep + 1) << 20 ^ (uint64_t)(piece + 1);
    unsigned char *p = buf;

    for (size_t i = 0; i < n; i += 8) {
        uint64_t v = splitmix(&s);
        memcpy(p + i, &v, n - i < 8 ? n - i : 8);
    }
}

/* The received buf holds gen(root, rep, piece). */
static void verify(const void *buf, size_t n, int root, int rep, int piece, const char *what)
{
    unsigned char *want = malloc(n ? n : 1);

    if (want == NULL) {
        fail("%s: no memory", what);
        return;
    }
    gen(want, n, root, rep, piece);
    if (memcmp(buf, want, n) != 0)
        fail("%s: repetition %d: piece %d of rank %d's data did not arrive intact", what, rep,
             piece, root);
    free(want);
}

static unsigned char *alloc(size_t n)
{
    unsigned char *p = calloc(n ? n : 1, 1);
    if (p == NULL) {
        fprintf(stderr, "test_traced: no memory\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    return p;
}

/* The end of a repetition: a plain MPI_Barrier, not traced, so that the
 * repetitions do not overlap in time. */
static void apart(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
}

/* ------------------------------------------------------------ noise */

/* Noise (paper 001, Fig. 6, the dashed arrows): one message of
 * NOISE_BYTES of its own data from each rank to the rank two places on,
 * posted in the middle of a pattern. */
typedef struct noise {
    unsigned char out[NOISE_BYTES], in[NOISE_BYTES];
    MPI_Request req[2];
    int rep;
} noise;

static void noise_post(noise *z, int rep)
{
    z->rep = rep;
    gen(z->out, NOISE_BYTES, rank, rep, 1000);
    CK(safecoll_irecv(z->in, NOISE_BYTES, MPI_BYTE, (rank + size - 2) % size, /* site: noise */
                      TAG_NOISE, MPI_COMM_WORLD, &z->req[0]));
    CK(safecoll_isend(z->out, NOISE_BYTES, MPI_BYTE, (rank + 2) % size, TAG_NOISE, /* site: noise */
                      MPI_COMM_WORLD, &z->req[1]));
}

static void noise_wait(noise *z)
{
    CK(safecoll_waitall(2, z->req, MPI_STATUSES_IGNORE)); /* site: noise */
    verify(z->in, NOISE_BYTES, (rank + size - 2) % size, z->rep, 1000, "noise");
}

/* ------------------------------------------------------------ paper 001, Fig. 6 */

enum { B6 = 1000 };

/* Fig. 6 a: a chain from rank 1, noise interleaved. */
static void fig6a(void)
{
    const int root = 1, pos = (rank - root + size) % size;
    unsigned char *x = alloc(B6);
    noise z;

    for (int rep = 0; rep < REPS; rep++) {
        noise_post(&z, rep);
        if (pos == 0)
            gen(x, B6, root, rep, 0);
        else
            CK(safecoll_recv(x, B6, MPI_BYTE, (rank + size - 1) % size, /* site: 6a-recv */
                             TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        if (pos < size - 1)
            CK(safecoll_send(x, B6, MPI_BYTE, (rank + 1) % size, TAG_DATA, /* site: 6a-send */
                             MPI_COMM_WORLD));
        noise_wait(&z);
        verify(x, B6, root, rep, 0, "fig6a");
        apart();
    }
    free(x);
}

/* Fig. 6 b: ranks 0 and 1 both hold the data and exchange it (a
 * redundant message), then rank 1 sends it down the chain 1, 2, ... */
static void fig6b(void)
{
    unsigned char *x = alloc(B6), *y = alloc(B6);
    noise z;

    for (int rep = 0; rep < REPS; rep++) {
        noise_post(&z, rep);
        if (rank <= 1) {
            gen(x, B6, 0, rep, 0);
            CK(safecoll_sendrecv(x, B6, MPI_BYTE, 1 - rank, TAG_DATA, y, B6, /* site: 6b-swap */
                                 MPI_BYTE, 1 - rank, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            verify(y, B6, 0, rep, 0, "fig6b exchange");
        } else {
            CK(safecoll_recv(x, B6, MPI_BYTE, rank - 1, TAG_DATA, /* site: 6b-recv */
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        if (rank >= 1 && rank < size - 1)
            CK(safecoll_send(x, B6, MPI_BYTE, rank + 1, TAG_DATA, /* site: 6b-send */
                             MPI_COMM_WORLD));
        noise_wait(&z);
        verify(x, B6, 0, rep, 0, "fig6b");
        apart();
    }
    free(x);
    free(y);
}

/* Fig. 6 c: the chain from rank 0, the same data twice in a row. */
static void fig6c(void)
{
    unsigned char *x = alloc(B6);
    noise z;

    noise_post(&z, 0);
    for (int twice = 0; twice < 2; twice++) {
        if (rank == 0)
            gen(x, B6, 0, 0, 0);
        else
            CK(safecoll_recv(x, B6, MPI_BYTE, rank - 1, TAG_DATA, /* site: 6c-recv */
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        if (rank < size - 1)
            CK(safecoll_send(x, B6, MPI_BYTE, rank + 1, TAG_DATA, /* site: 6c-send */
                             MPI_COMM_WORLD));
        verify(x, B6, 0, 0, 0, "fig6c");
    }
    noise_wait(&z);
    free(x);
}

enum { TOKEN = 8 };

/* Fig. 6 d: rank 0 hands the token to rank 1, 2, ... in turn; its holder
 * broadcasts its own data to the ranks after it, then those before it,
 * rank 0 last, and rank 0, having received that, hands the token on. At
 * the end rank 0 broadcasts its own data. */
static void fig6d(void)
{
    unsigned char tok[TOKEN], *d = alloc(B6);

    for (int i = 1; i < size; i++) {
        if (rank == 0) {
            gen(tok, TOKEN, 0, 0, 77);
            CK(safecoll_send(tok, TOKEN, MPI_BYTE, i, TAG_TOKEN, /* site: 6d-token-send */
                             MPI_COMM_WORLD));
        } else if (rank == i) {
            CK(safecoll_recv(tok, TOKEN, MPI_BYTE, 0, TAG_TOKEN, /* site: 6d-token-recv */
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            verify(tok, TOKEN, 0, 0, 77, "fig6d token");
        }
        if (rank == i) {
            gen(d, B6, i, 0, 0);
            for (int k = 1; k < size; k++) {
                /* ranks i+1 .. size-1, then 1 .. i-1, then 0 */
                int to = k <= size - 1 - i ? i + k : k == size - 1 ? 0 : k - (size - 1 - i);
                CK(safecoll_send(d, B6, MPI_BYTE, to, TAG_DATA, /* site: 6d-inner-send */
                                 MPI_COMM_WORLD));
            }
        } else {
            CK(safecoll_recv(d, B6, MPI_BYTE, i, TAG_DATA, MPI_COMM_WORLD, /* site: 6d-inner-recv */
                             MPI_STATUS_IGNORE));
            verify(d, B6, i, 0, 0, "fig6d inner broadcast");
        }
    }
    if (rank == 0) {
        gen(d, B6, 0, 0, 0);
        for (int to = 1; to < size; to++)
            CK(safecoll_send(d, B6, MPI_BYTE, to, TAG_DATA, /* site: 6d-root-send */
                             MPI_COMM_WORLD));
    } else {
        CK(safecoll_recv(d, B6, MPI_BYTE, 0, TAG_DATA, MPI_COMM_WORLD, /* site: 6d-root-recv */
                         MPI_STATUS_IGNORE));
        verify(d, B6, 0, 0, 0, "fig6d rank 0's broadcast");
    }
    free(d);
}

/* ------------------------------------------------------------ broadcasts */

enum { BBIN = 4096 };

static void binomial(void)
{
    const int root = 2, rel = (rank - root + size) % size;
    unsigned char *x = alloc(BBIN);

    for (int rep = 0; rep < REPS; rep++) {
        int mask = 1;
        if (rel == 0)
            gen(x, BBIN, root, rep, 0);
        while (mask < size) {
            if (rel & mask) {
                CK(safecoll_recv(x, BBIN, MPI_BYTE, /* site: bino-recv */
                                 (rel - mask + root) % size, TAG_DATA, MPI_COMM_WORLD,
                                 MPI_STATUS_IGNORE));
                break;
            }
            mask <<= 1;
        }
        for (mask >>= 1; mask > 0; mask >>= 1)
            if (rel + mask < size)
                CK(safecoll_send(x, BBIN, MPI_BYTE, /* site: bino-send */
                                 (rel + mask + root) % size, TAG_DATA, MPI_COMM_WORLD));
        verify(x, BBIN, root, rep, 0, "binomial");
        apart();
    }
    free(x);
}

enum { SEGS = 4, SEG = 512 };

/* A chain from rank 0, the buffer in SEGS segments: the root posts them
 * all, an inner rank forwards a segment as soon as it has it, the last
 * rank takes them all at once. */
static void pipeline(void)
{
    unsigned char *x = alloc(SEGS * SEG);
    MPI_Request rr[SEGS], sr[SEGS];

    for (int rep = 0; rep < REPS; rep++) {
        for (int s = 0; s < SEGS; s++) {
            rr[s] = sr[s] = MPI_REQUEST_NULL;
            if (rank == 0)
                gen(x + s * SEG, SEG, 0, rep, s);
            else
                CK(safecoll_irecv(x + s * SEG, SEG, MPI_BYTE, rank - 1, /* site: pipe-recv */
                                  TAG_DATA + s, MPI_COMM_WORLD, &rr[s]));
        }
        if (rank == size - 1)
            CK(safecoll_waitall(SEGS, rr, MPI_STATUSES_IGNORE)); /* site: pipe-recv */
        for (int s = 0; s < SEGS && rank < size - 1; s++) {
            if (rank > 0)
                CK(safecoll_wait(&rr[s], MPI_STATUS_IGNORE)); /* site: pipe-recv */
            CK(safecoll_isend(x + s * SEG, SEG, MPI_BYTE, rank + 1, /* site: pipe-send */
                              TAG_DATA + s, MPI_COMM_WORLD, &sr[s]));
        }
        CK(safecoll_waitall(SEGS, sr, MPI_STATUSES_IGNORE)); /* site: pipe-send */
        for (int s = 0; s < SEGS; s++)
            verify(x + s * SEG, SEG, 0, rep, s, "pipeline");
        apart();
    }
    free(x);
}

enum { PIECE = 256 };

/* Rank 3 sends piece i of its buffer to rank i; a ring allgather of the
 * pieces then gives every rank the whole buffer. */
static void scag(void)
{
    const int root = 3, right = (rank + 1) % size, left = (rank + size - 1) % size;
    unsigned char *x = alloc((size_t)size * PIECE);

    for (int rep = 0; rep < REPS; rep++) {
        if (rank == root) {
            for (int i = 0; i < size; i++)
                gen(x + i * PIECE, PIECE, root, rep, i);
            for (int i = 0; i < size; i++)
                if (i != root)
                    CK(safecoll_send(x + i * PIECE, PIECE, MPI_BYTE, i, /* site: scag-scatter */
                                     TAG_DATA, MPI_COMM_WORLD));
        } else {
            CK(safecoll_recv(x + rank * PIECE, PIECE, MPI_BYTE, root, /* site: scag-scatter */
                             TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        for (int s = 1; s < size; s++) {
            int out = (rank - s + 1 + size) % size, in = (rank - s + size) % size;
            CK(safecoll_sendrecv(x + out * PIECE, PIECE, MPI_BYTE, right, /* site: scag-ring */
                                 TAG_DATA, x + in * PIECE, PIECE, MPI_BYTE, left, TAG_DATA,
                                 MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        for (int i = 0; i < size; i++)
            verify(x + i * PIECE, PIECE, root, rep, i, "scatter+allgather");
        apart();
    }
    free(x);
}

/* ------------------------------------------------------------ other collectives */

static void ring(void)
{
    const int right = (rank + 1) % size, left = (rank + size - 1) % size;
    unsigned char *x = alloc((size_t)size * PIECE);

    for (int rep = 0; rep < REPS; rep++) {
        gen(x + rank * PIECE, PIECE, rank, rep, 0);
        for (int s = 1; s < size; s++) {
            int out = (rank - s + 1 + size) % size, in = (rank - s + size) % size;
            CK(safecoll_sendrecv(x + out * PIECE, PIECE, MPI_BYTE, right, TAG_DATA, /* site: ring */
                                 x + in * PIECE, PIECE, MPI_BYTE, left, TAG_DATA, MPI_COMM_WORLD,
                                 MPI_STATUS_IGNORE));
        }
        for (int i = 0; i < size; i++)
            verify(x + i * PIECE, PIECE, i, rep, 0, "ring allgather");
        apart();
    }
    free(x);
}

enum { A2A = 128 };

/* Step s: send the piece for rank + s, receive the one from rank - s. */
static void alltoall(void)
{
    unsigned char *out = alloc((size_t)size * A2A), *in = alloc((size_t)size * A2A);

    for (int rep = 0; rep < REPS; rep++) {
        for (int d = 0; d < size; d++)
            gen(out + d * A2A, A2A, rank, rep, d);
        memcpy(in + rank * A2A, out + rank * A2A, A2A);
        for (int s = 1; s < size; s++) {
            int to = (rank + s) % size, from = (rank - s + size) % size;
            CK(safecoll_sendrecv(out + to * A2A, A2A, MPI_BYTE, to, TAG_DATA, /* site: a2a */
                                 in + from * A2A, A2A, MPI_BYTE, from, TAG_DATA, MPI_COMM_WORLD,
                                 MPI_STATUS_IGNORE));
        }
        for (int f = 0; f < size; f++)
            verify(in + f * A2A, A2A, f, rep, rank, "alltoall");
        apart();
    }
    free(out);
    free(in);
}

/* Round k: an empty message to rank + 2^k, one from rank - 2^k. */
static void barrier(void)
{
    char dummy = 0;

    for (int rep = 0; rep < REPS; rep++)
        for (int d = 1; d < size; d <<= 1) {
            MPI_Status st;
            int n = -1;
            CK(safecoll_sendrecv(&dummy, 0, MPI_BYTE, (rank + d) % size, /* site: barrier */
                                 TAG_DATA, &dummy, 0, MPI_BYTE, (rank - d + size) % size, TAG_DATA,
                                 MPI_COMM_WORLD, &st));
            MPI_Get_count(&st, MPI_BYTE, &n);
            if (st.MPI_SOURCE != (rank - d + size) % size || n != 0)
                fail("barrier: a message of %d bytes from %d", n, st.MPI_SOURCE);
        }
}

enum { GPIECE = 512 };

static void gather(void)
{
    const int root = 1;
    unsigned char *x = alloc((size_t)size * GPIECE);

    for (int rep = 0; rep < REPS; rep++) {
        gen(x + rank * GPIECE, GPIECE, rank, rep, 0);
        if (rank == root) {
            CK(safecoll_trace_self(x + rank * GPIECE, GPIECE, MPI_BYTE)); /* site: gather-self */
            for (int r = 0; r < size; r++)
                if (r != root)
                    CK(safecoll_recv(x + r * GPIECE, GPIECE, MPI_BYTE, r, /* site: gather-recv */
                                     TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            for (int r = 0; r < size; r++)
                verify(x + r * GPIECE, GPIECE, r, rep, 0, "gather");
        } else {
            CK(safecoll_send(x + rank * GPIECE, GPIECE, MPI_BYTE, root, /* site: gather-send */
                             TAG_DATA, MPI_COMM_WORLD));
        }
        apart();
    }
    free(x);
}

static void scatter(void)
{
    const int root = 2;
    unsigned char *x = alloc((size_t)size * GPIECE);

    for (int rep = 0; rep < REPS; rep++) {
        if (rank == root) {
            for (int r = 0; r < size; r++)
                gen(x + r * GPIECE, GPIECE, root, rep, r);
            CK(safecoll_trace_self(x + rank * GPIECE, GPIECE, MPI_BYTE)); /* site: scatter-self */
            for (int r = 0; r < size; r++)
                if (r != root)
                    CK(safecoll_send(x + r * GPIECE, GPIECE, MPI_BYTE, r, /* site: scatter-send */
                                     TAG_DATA, MPI_COMM_WORLD));
        } else {
            CK(safecoll_recv(x + rank * GPIECE, GPIECE, MPI_BYTE, root, /* site: scatter-recv */
                             TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        verify(x + rank * GPIECE, GPIECE, root, rep, rank, "scatter");
        apart();
    }
    free(x);
}

enum { NSUM = 64 };

/* An integer sum to rank 0: the root records its own vector, receives the
 * others' one by one and adds them (wrapping, as MPI_SUM on int does in
 * practice; computed unsigned), then records the result. */
static void reduce(void)
{
    int v[NSUM], t[NSUM], want[NSUM];

    for (int rep = 0; rep < REPS; rep++) {
        gen(v, sizeof v, rank, rep, 0);
        if (rank == 0) {
            for (int i = 0; i < NSUM; i++)
                want[i] = v[i];
            for (int r = 1; r < size; r++) {
                gen(t, sizeof t, r, rep, 0);
                for (int i = 0; i < NSUM; i++)
                    want[i] = (int)((unsigned)want[i] + (unsigned)t[i]);
            }
            CK(safecoll_trace_self(v, NSUM, MPI_INT)); /* site: reduce-self */
            for (int r = 1; r < size; r++) {
                CK(safecoll_recv(t, NSUM, MPI_INT, r, TAG_DATA, /* site: reduce-recv */
                                 MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                for (int i = 0; i < NSUM; i++)
                    v[i] = (int)((unsigned)v[i] + (unsigned)t[i]);
            }
            CK(safecoll_trace_self(v, NSUM, MPI_INT)); /* site: reduce-result */
            if (memcmp(v, want, sizeof v) != 0)
                fail("reduce: repetition %d: the sum is wrong", rep);
        } else {
            CK(safecoll_send(v, NSUM, MPI_INT, 0, TAG_DATA, /* site: reduce-send */
                             MPI_COMM_WORLD));
        }
        apart();
    }
}

/* A binomial broadcast from rank 2 over the even ranks (rank 1 of them);
 * each odd rank sends noise to the next odd rank. */
static void subset(void)
{
    const int n = (size + 1) / 2, root = 1, me = rank / 2, rel = (me - root + n) % n;
    const int odd = size / 2;
    unsigned char *x = alloc(B6), zin[NOISE_BYTES], zout[NOISE_BYTES];

    for (int rep = 0; rep < REPS; rep++) {
        if (rank % 2 == 0) {
            int mask = 1;
            if (rel == 0)
                gen(x, B6, 2 * root, rep, 0);
            while (mask < n) {
                if (rel & mask) {
                    CK(safecoll_recv(x, B6, MPI_BYTE, /* site: sub-recv */
                                     2 * ((rel - mask + root) % n), TAG_DATA, MPI_COMM_WORLD,
                                     MPI_STATUS_IGNORE));
                    break;
                }
                mask <<= 1;
            }
            for (mask >>= 1; mask > 0; mask >>= 1)
                if (rel + mask < n)
                    CK(safecoll_send(x, B6, MPI_BYTE, /* site: sub-send */
                                     2 * ((rel + mask + root) % n), TAG_DATA, MPI_COMM_WORLD));
            verify(x, B6, 2 * root, rep, 0, "subset");
        } else {
            int o = rank / 2, to = 2 * ((o + 1) % odd) + 1, from = 2 * ((o + odd - 1) % odd) + 1;
            gen(zout, NOISE_BYTES, rank, rep, 1000);
            CK(safecoll_sendrecv(zout, NOISE_BYTES, MPI_BYTE, to, TAG_NOISE, zin, /* site: noise */
                                 NOISE_BYTES, MPI_BYTE, from, TAG_NOISE, MPI_COMM_WORLD,
                                 MPI_STATUS_IGNORE));
            verify(zin, NOISE_BYTES, from, rep, 1000, "subset noise");
        }
        apart();
    }
    free(x);
}

/* A chain from rank 0 over ranks 0 .. size - 2; the last rank sends noise
 * to rank 0 (near), or makes no wrapper call at all (idle). */
static void chain_but_last(int idle)
{
    unsigned char *x = alloc(B6), z[NOISE_BYTES];
    const int last = size - 1;

    for (int rep = 0; rep < REPS; rep++) {
        if (rank == last) {
            if (!idle) {
                gen(z, NOISE_BYTES, rank, rep, 1000);
                CK(safecoll_send(z, NOISE_BYTES, MPI_BYTE, 0, TAG_NOISE, /* site: noise */
                                 MPI_COMM_WORLD));
            }
            apart();
            continue;
        }
        if (rank == 0) {
            gen(x, B6, 0, rep, 0);
            if (!idle) {
                CK(safecoll_recv(z, NOISE_BYTES, MPI_BYTE, last, TAG_NOISE, /* site: noise */
                                 MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                verify(z, NOISE_BYTES, last, rep, 1000, "near noise");
            }
        } else {
            CK(safecoll_recv(x, B6, MPI_BYTE, rank - 1, TAG_DATA, /* site: near-recv */
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        }
        if (rank < last - 1)
            CK(safecoll_send(x, B6, MPI_BYTE, rank + 1, TAG_DATA, /* site: near-send */
                             MPI_COMM_WORLD));
        verify(x, B6, 0, rep, 0, idle ? "idle" : "near");
        apart();
    }
    free(x);
}

static void near(void)
{
    chain_but_last(0);
}

static void idle(void)
{
    chain_but_last(1);
}

/* ------------------------------------------------------------ no finding */

enum { HALO_N = 32, HALO_STEPS = 10 };

/* The whole line of size * HALO_N cells after `steps` updates, computed
 * on every rank alike, so that each checks the halos it receives. */
static void halo_world(double *w, int steps)
{
    const int n = size * HALO_N;
    double *nw = malloc((size_t)n * sizeof *nw);

    if (nw == NULL) {
        fail("halo: no memory");
        return;
    }
    for (int r = 0; r < size; r++)
        for (int i = 0; i < HALO_N; i++) {
            uint64_t u;
            gen(&u, sizeof u, r, 0, i);
            w[r * HALO_N + i] = (double)(u >> 11) / 9007199254740992.0;
        }
    for (int s = 0; s < steps; s++) {
        for (int i = 0; i < n; i++)
            nw[i] = (w[(i + n - 1) % n] + w[i] + w[(i + 1) % n]) / 3.0 + 0.001 * (i % 7);
        memcpy(w, nw, (size_t)n * sizeof *w);
    }
    free(nw);
}

/* A periodic line of cells, HALO_N on each rank with a ghost cell at each
 * end: each step, the ghosts from the neighbours, then a stencil update. */
static void halo(void)
{
    const int n = size * HALO_N, left = (rank + size - 1) % size, right = (rank + 1) % size;
    double u[HALO_N + 2], nu[HALO_N + 2], *w = malloc((size_t)n * sizeof *w);

    if (w == NULL) {
        fail("halo: no memory");
        return;
    }
    halo_world(w, 0);
    memcpy(u + 1, w + rank * HALO_N, HALO_N * sizeof *u);
    for (int s = 0; s < HALO_STEPS; s++) {
        CK(safecoll_sendrecv(&u[1], 1, MPI_DOUBLE, left, TAG_DATA, &u[HALO_N + 1], /* site: halo */
                             1, MPI_DOUBLE, right, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        CK(safecoll_sendrecv(&u[HALO_N], 1, MPI_DOUBLE, right, TAG_DATA, &u[0], 1, /* site: halo */
                             MPI_DOUBLE, left, TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
        halo_world(w, s);
        if (u[0] != w[(rank * HALO_N + n - 1) % n] ||
            u[HALO_N + 1] != w[(rank * HALO_N + HALO_N) % n])
            fail("halo: step %d: a ghost cell is not the neighbour's cell", s);
        for (int i = 1; i <= HALO_N; i++)
            nu[i] = (u[i - 1] + u[i] + u[i + 1]) / 3.0 + 0.001 * ((rank * HALO_N + i - 1) % 7);
        memcpy(u + 1, nu + 1, HALO_N * sizeof *u);
    }
    halo_world(w, HALO_STEPS);
    if (memcmp(u + 1, w + rank * HALO_N, HALO_N * sizeof *u) != 0)
        fail("halo: the cells after %d steps are wrong", HALO_STEPS);
    free(w);
}

enum { TASK = 64, TAG_TASK = 5, TAG_RESULT = 6 };

/* A task: its number, then its data. */
static void task_make(unsigned char *t, int id)
{
    gen(t, TASK, 0, 0, id);
    memcpy(t, &id, sizeof id);
}

/* A task's result: its bytes reversed and inverted, the number kept. */
static void task_do(const unsigned char *t, unsigned char *res)
{
    memcpy(res, t, sizeof(int));
    for (int i = (int)sizeof(int); i < TASK; i++)
        res[i] = (unsigned char)~t[TASK - 1 - i + (int)sizeof(int)];
}

/* Rank 0 hands out 3 tasks per worker, one at a time to whoever returns a
 * result first (MPI_ANY_SOURCE, MPI_ANY_TAG), and ends each worker with
 * an empty stop message. */
static void master(void)
{
    const int ntasks = REPS * (size - 1);
    unsigned char t[TASK], res[TASK], want[TASK];

    if (rank == 0) {
        int *done = calloc((size_t)ntasks, sizeof *done), next = 0, got = 0;
        if (done == NULL) {
            fail("master: no memory");
            return;
        }
        for (int w = 1; w < size; w++) {
            task_make(t, next++);
            CK(safecoll_send(t, TASK, MPI_BYTE, w, TAG_TASK, /* site: master-send */
                             MPI_COMM_WORLD));
        }
        while (got < ntasks) {
            MPI_Status st;
            int id;
            CK(safecoll_recv(res, TASK, MPI_BYTE, MPI_ANY_SOURCE, /* site: master-recv */
                             MPI_ANY_TAG, MPI_COMM_WORLD, &st));
            memcpy(&id, res, sizeof id);
            if (st.MPI_TAG != TAG_RESULT || id < 0 || id >= ntasks || done[id]++) {
                fail("master: an unexpected result (tag %d, task %d)", st.MPI_TAG, id);
                break;
            }
            task_make(t, id);
            task_do(t, want);
            if (memcmp(res, want, TASK) != 0)
                fail("master: task %d's result is wrong", id);
            got++;
            if (next < ntasks) {
                task_make(t, next++);
                CK(safecoll_send(t, TASK, MPI_BYTE, st.MPI_SOURCE, TAG_TASK, /* site: master-send */
                                 MPI_COMM_WORLD));
            } else {
                CK(safecoll_send(NULL, 0, MPI_BYTE, st.MPI_SOURCE, TAG_STOP, /* site: master-stop */
                                 MPI_COMM_WORLD));
            }
        }
        free(done);
    } else {
        for (;;) {
            MPI_Status st;
            int id;
            CK(safecoll_recv(t, TASK, MPI_BYTE, 0, MPI_ANY_TAG, /* site: worker-recv */
                             MPI_COMM_WORLD, &st));
            if (st.MPI_TAG == TAG_STOP)
                break;
            memcpy(&id, t, sizeof id);
            task_make(want, id);
            if (st.MPI_TAG != TAG_TASK || id < 0 || id >= ntasks || memcmp(t, want, TASK) != 0) {
                fail("worker: an unexpected task (tag %d, task %d)", st.MPI_TAG, id);
                break;
            }
            task_do(t, res);
            CK(safecoll_send(res, TASK, MPI_BYTE, 0, TAG_RESULT, /* site: worker-send */
                             MPI_COMM_WORLD));
        }
    }
}

/* Equal payloads in unrelated messages, apart in time: (a) 1 -> 2, then
 * 3 -> 0; (b) 1 -> 2, then 3 -> 1 (the first sender receives the same
 * data later, and keeps it); (c) 0 -> 1, then 2 -> 1. */
static void equal(void)
{
    static const int pairs[3][4] = {{1, 2, 3, 0}, {1, 2, 3, 1}, {0, 1, 2, 1}};
    unsigned char x[B6];

    for (int rep = 0; rep < REPS; rep++)
        for (int c = 0; c < 3; c++) {
            for (int half = 0; half < 2; half++) {
                int from = pairs[c][2 * half], to = pairs[c][2 * half + 1];
                if (rank == from) {
                    gen(x, B6, 0, rep, c);
                    CK(safecoll_send(x, B6, MPI_BYTE, to, TAG_DATA, /* site: equal-send */
                                     MPI_COMM_WORLD));
                } else if (rank == to) {
                    CK(safecoll_recv(x, B6, MPI_BYTE, from, TAG_DATA, /* site: equal-recv */
                                     MPI_COMM_WORLD, MPI_STATUS_IGNORE));
                    verify(x, B6, 0, rep, c, "equal");
                }
                apart();
            }
        }
}

/* Rank 0 keeps an empty piece (safecoll_trace_self with count 0), then
 * sends each other rank a piece of its own: no scatter of equal pieces,
 * and nothing the analysis may divide by. */
static void emptyself(void)
{
    unsigned char x[GPIECE];

    for (int rep = 0; rep < REPS; rep++) {
        if (rank == 0) {
            CK(safecoll_trace_self(x, 0, MPI_BYTE)); /* site: empty-self */
            for (int r = 1; r < size; r++) {
                gen(x, GPIECE, 0, rep, r);
                CK(safecoll_send(x, GPIECE, MPI_BYTE, r, TAG_DATA, /* site: empty-send */
                                 MPI_COMM_WORLD));
            }
        } else {
            CK(safecoll_recv(x, GPIECE, MPI_BYTE, 0, TAG_DATA, /* site: empty-recv */
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            verify(x, GPIECE, 0, rep, rank, "emptyself");
        }
        apart();
    }
}

/* ------------------------------------------------------------ region */

static void bino_from(int root, int rep)
{
    const int rel = (rank - root + size) % size;
    unsigned char *x = alloc(B6);
    int mask = 1;

    if (rel == 0)
        gen(x, B6, root, rep, 0);
    while (mask < size) {
        if (rel & mask) {
            CK(safecoll_recv(x, B6, MPI_BYTE, (rel - mask + root) % size, /* site: region */
                             TAG_DATA, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (rel + mask < size)
            CK(safecoll_send(x, B6, MPI_BYTE, (rel + mask + root) % size, /* site: region */
                             TAG_DATA, MPI_COMM_WORLD));
    verify(x, B6, root, rep, 0, "region");
    free(x);
    apart();
}

static void region(void)
{
    bino_from(0, 0);
    CK(safecoll_trace_start());
    bino_from(1, 0);
    CK(safecoll_trace_stop());
    bino_from(2, 0);
}

/* ------------------------------------------------------------ MPI's names */

/* From here on, MPI's point-to-point names are the wrappers, each posting
 * call naming its own line for the trace, and MPI's collectives are the
 * library's safe ones. */
#include <safecoll/switch.h>

/* A binomial broadcast from rank 1 written with MPI_Send and MPI_Recv, 3
 * times; then an MPI_Bcast, the library's: the script runs this with
 * SAFECOLL_STRATEGY=all=p2p, so that its messages are point-to-point
 * ones, which the trace holds flagged and the analysis leaves out. */
static void mpinames(void)
{
    const int root = 1, rel = (rank - root + size) % size;
    const MPI_Comm w = MPI_COMM_WORLD;
    unsigned char *x = alloc(B6), *y = alloc(B6);

    for (int rep = 0; rep < REPS; rep++) {
        int mask = 1, peer;
        if (rel == 0)
            gen(x, B6, root, rep, 0);
        while (mask < size) {
            if (rel & mask) {
                peer = (rel - mask + root) % size;
                CK(MPI_Recv(x, B6, MPI_BYTE, peer, 1, w, MPI_STATUS_IGNORE)); /* site: names-recv */
                break;
            }
            mask <<= 1;
        }
        for (mask >>= 1; mask > 0; mask >>= 1)
            if (rel + mask < size) {
                peer = (rel + mask + root) % size;
                CK(MPI_Send(x, B6, MPI_BYTE, peer, 1, w)); /* site: names-send */
            }
        verify(x, B6, root, rep, 0, "MPI's names");
        apart();
    }
    if (rank == 0)
        gen(y, B6, 0, 0, 9);
    CK(MPI_Bcast(y, B6, MPI_BYTE, 0, w));
    verify(y, B6, 0, 0, 9, "the library's MPI_Bcast");
    free(x);
    free(y);
}

/* crash (P = 1): five messages to itself, then SIGSEGV: the recorder's
 * handler closes the trace before the default action ends the process,
 * so the trace of a run that crashed is whole and readable. */
static void crash(void)
{
    int x[16], y[16];
    MPI_Request r[2];

    for (int i = 0; i < 5; i++) {
        for (int k = 0; k < 16; k++)
            x[k] = i * 100 + k;
        CK(safecoll_irecv(y, 16, MPI_INT, rank, 3, MPI_COMM_WORLD, &r[0]));
        CK(safecoll_isend(x, 16, MPI_INT, rank, 3, MPI_COMM_WORLD, &r[1]));
        CK(safecoll_waitall(2, r, MPI_STATUSES_IGNORE));
        if (memcmp(x, y, sizeof x) != 0)
            printf("FAIL: crash: message %d to itself arrived wrong\n", i);
    }
    printf("crash: 5 messages to itself, now SIGSEGV\n");
    fflush(stdout);
    raise(SIGSEGV);
}

/* ------------------------------------------------------------ main */

static const struct {
    const char *name;
    void (*run)(void);
    int min_procs;
} scenarios[] = {
    {"fig6a", fig6a, 4},       {"fig6b", fig6b, 4},     {"fig6c", fig6c, 4},
    {"fig6d", fig6d, 4},       {"binomial", binomial, 4}, {"pipeline", pipeline, 4},
    {"scag", scag, 4},         {"ring", ring, 4},       {"alltoall", alltoall, 4},
    {"barrier", barrier, 4},   {"gather", gather, 4},   {"scatter", scatter, 4},
    {"reduce", reduce, 4},     {"subset", subset, 6},   {"near", near, 4},
    {"halo", halo, 4},         {"master", master, 4},   {"equal", equal, 4},
    {"emptyself", emptyself, 4}, {"region", region, 4},   {"idle", idle, 4},
    {"mpinames", mpinames, 4}, {"crash", crash, 1},
};

int main(int argc, char **argv)
{
    const int n = (int)(sizeof scenarios / sizeof scenarios[0]);

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    setvbuf(stdout, NULL, _IOLBF, 0);
    scen = -1;
    for (int i = 0; i < n && argc > 1; i++)
        if (strcmp(argv[1], scenarios[i].name) == 0)
            scen = i;
    if (scen < 0) {
        if (rank == 0) {
            fprintf(stderr, "usage: test_traced SCENARIO (under mpiexec), one of:");
            for (int i = 0; i < n; i++)
                fprintf(stderr, " %s", scenarios[i].name);
            fprintf(stderr, "\n");
        }
        MPI_Finalize();
        return 2;
    }
    if (size < scenarios[scen].min_procs || size > 64) {
        if (rank == 0)
            fprintf(stderr, "test_traced: %s needs %d to 64 processes, not %d\n",
                    scenarios[scen].name, scenarios[scen].min_procs, size);
        MPI_Finalize();
        return 2;
    }
    scenarios[scen].run();
    MPI_Finalize();
    return bad ? 1 : 0;
}
