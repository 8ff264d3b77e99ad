/*
 * The record/replay log file (format in replay.h): written through a
 * bounded buffer, read back whole and checked.
 */
#define _GNU_SOURCE 1

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay.h"

_Static_assert(sizeof(sc__rp_rec) == 32, "a log record is 32 bytes");
_Static_assert(sizeof(sc__rp_block) == 16, "a block header is 16 bytes");
_Static_assert(sizeof(sc__rp_header) == 304 && offsetof(sc__rp_header, crc) == 300,
               "a log header is 304 bytes, its CRC last (doc/debugging.md)");
_Static_assert(SC_RP_BLOCK_RECS * sizeof(sc__rp_rec) == 64 * 1024, "a block is 64 KiB");

enum { NBUF = SC_RP_BLOCK_RECS };

/* The block being filled: its header, then its records, written out with
 * one write(2) (one CRC-32 over the block, none per record). */
typedef struct block_buf {
    sc__rp_block h;
    sc__rp_rec r[NBUF];
} block_buf;
_Static_assert(offsetof(block_buf, r) == sizeof(sc__rp_block), "records follow the block header");

static int fd = -1;
static block_buf blk;
static volatile size_t nbuf;
static uint32_t nblocks, last_call;

void sc__rp_program(char out[SC_RP_PROGRAM])
{
    memset(out, 0, SC_RP_PROGRAM);
    ssize_t n = readlink("/proc/self/exe", out, SC_RP_PROGRAM - 1);
    if (n <= 0)
        snprintf(out, SC_RP_PROGRAM, "(unknown)");
    else
        out[n] = '\0';
}

/* The CRC of a block: its n records, then its nrec and seq. */
static uint32_t block_crc(const sc__rp_block *h, const sc__rp_rec *r, size_t n)
{
    return sc__rp_crc(sc__rp_crc(0, r, n * sizeof *r), h, offsetof(sc__rp_block, crc));
}

int sc__rp_log_create(const char *dir, int nprocs, int rank)
{
    char path[4096];
    sc__rp_header h;

    if (sc__rp_mkdirs(dir) != 0)
        return sc__error(MPI_ERR_FILE, "SAFECOLL_REPLAY: rank %d: cannot make the directory %s: %s",
                         rank, dir, strerror(errno));
    snprintf(path, sizeof path, "%s/rank-%d.screp", dir, rank);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (fd < 0)
        return sc__error(MPI_ERR_FILE, "SAFECOLL_REPLAY: rank %d: cannot create %s: %s", rank,
                         path, strerror(errno));
    memset(&h, 0, sizeof h);
    memcpy(h.magic, "SCREPLAY", 8);
    h.version = SC_RP_VERSION;
    h.recsize = sizeof(sc__rp_rec);
    h.nprocs = nprocs;
    h.rank = rank;
    h.byteorder = 0x01020304u;
    h.blockrecs = SC_RP_BLOCK_RECS;
    sc__rp_program(h.program);
    h.jobsource = sc__rp_job_id(&h.recording);
    h.crc = sc__rp_crc(0, &h, offsetof(sc__rp_header, crc));
    if (sc__rp_write_all(fd, &h, sizeof h) != 0) {
        close(fd);
        fd = -1;
        return sc__error(MPI_ERR_FILE, "SAFECOLL_REPLAY: rank %d: cannot write %s: %s", rank,
                         path, strerror(errno));
    }
    /* The buffer's pages touched now, not one by one in the first 2048
     * records (the first touch of a page costs microseconds in a
     * virtual machine). */
    memset(&blk, 0, sizeof blk);
    nbuf = 0;
    nblocks = 0;
    return MPI_SUCCESS;
}

/* Writes the records of the buffer out as one block (async-signal-safe). */
static int write_block(void)
{
    size_t n = nbuf;
    int bad;

    if (n == 0)
        return 0;
    blk.h.nrec = (uint32_t)n;
    blk.h.seq = nblocks;
    blk.h.pad = 0;
    blk.h.crc = block_crc(&blk.h, blk.r, n);
    bad = sc__rp_write_all(fd, &blk, sizeof blk.h + n * sizeof blk.r[0]);
    nblocks++;
    nbuf = 0;
    return bad;
}

int sc__rp_log_flush(int end)
{
    int bad = 0;

    if (fd < 0)
        return MPI_SUCCESS;
    if (end >= 0) {
        sc__rp_rec *r;
        if (nbuf == NBUF)
            bad |= write_block();
        r = &blk.r[nbuf];
        memset(r, 0, sizeof *r);
        r->kind = SC_RP_END;
        r->flag = (uint8_t)end;
        r->call = last_call;
        nbuf++;
    }
    bad |= write_block();
    if (end >= 0) {
        close(fd);
        fd = -1;
    }
    return bad ? MPI_ERR_FILE : MPI_SUCCESS;
}

int sc__rp_log_put(const sc__rp_rec *r)
{
    if (fd < 0)
        return MPI_SUCCESS;
    last_call = r->call;
    if (nbuf == NBUF && write_block() != 0)
        return sc__error(MPI_ERR_FILE, "SAFECOLL_REPLAY: cannot write the record log: %s",
                         strerror(errno));
    blk.r[nbuf] = *r;
    nbuf = nbuf + 1;
    return MPI_SUCCESS;
}

/* Reads and checks the header of the log f (path, st_size bytes) of the
 * rank `rank` of `nprocs`: MPI_SUCCESS or an error naming the file. */
static int read_header(int f, const char *path, size_t size, int nprocs, int rank,
                       sc__rp_header *h)
{
    char program[SC_RP_PROGRAM];

    if (size < sizeof *h || read(f, h, sizeof *h) != (ssize_t)sizeof *h)
        return sc__error(MPI_ERR_BAD_FILE, "SAFECOLL_REPLAY: rank %d: the log %s is truncated "
                         "(no complete header)", rank, path);
    if (memcmp(h->magic, "SCREPLAY", 8) != 0)
        return sc__error(MPI_ERR_BAD_FILE, "SAFECOLL_REPLAY: rank %d: %s is not a libsafecoll "
                         "record log", rank, path);
    if (h->byteorder != 0x01020304u || h->version != SC_RP_VERSION ||
        h->recsize != sizeof(sc__rp_rec))
        return sc__error(MPI_ERR_BAD_FILE, "SAFECOLL_REPLAY: rank %d: the log %s is of version "
                         "%u (or another byte order); this library reads version %d", rank,
                         path, (unsigned)h->version, SC_RP_VERSION);
    if (h->crc != sc__rp_crc(0, h, offsetof(sc__rp_header, crc)))
        return sc__error(MPI_ERR_BAD_FILE, "SAFECOLL_REPLAY: rank %d: the header of the log %s "
                         "is corrupted (bad CRC)", rank, path);
    if (h->nprocs != nprocs || h->rank != rank)
        return sc__error(MPI_ERR_BAD_FILE, "SAFECOLL_REPLAY: rank %d: the log %s was recorded "
                         "by rank %d of %d processes; this run has %d", rank, path,
                         (int)h->rank, (int)h->nprocs, nprocs);
    h->program[SC_RP_PROGRAM - 1] = '\0';
    sc__rp_program(program);
    if (strcmp(program, h->program) != 0)
        return sc__error(MPI_ERR_BAD_FILE, "SAFECOLL_REPLAY: rank %d: the log %s was recorded "
                         "by the program %s; this is %s", rank, path, h->program, program);
    return MPI_SUCCESS;
}

int sc__rp_log_peek(const char *dir, int nprocs, int rank, int *missing, sc__rp_header *h)
{
    char path[4096];
    struct stat sb;
    int f, rc;

    *missing = 0;
    snprintf(path, sizeof path, "%s/rank-%d.screp", dir, rank);
    f = open(path, O_RDONLY | O_CLOEXEC);
    if (f < 0 && errno == ENOENT) {
        *missing = 1;
        return MPI_SUCCESS;
    }
    if (f < 0)
        return sc__error(MPI_ERR_FILE, "SAFECOLL_REPLAY: rank %d: cannot open the log %s: %s",
                         rank, path, strerror(errno));
    if (fstat(f, &sb) != 0)
        rc = sc__error(MPI_ERR_FILE, "SAFECOLL_REPLAY: rank %d: cannot read %s: %s", rank, path,
                       strerror(errno));
    else
        rc = read_header(f, path, (size_t)sb.st_size, nprocs, rank, h);
    close(f);
    return rc;
}

int sc__rp_log_load(const char *dir, int nprocs, int rank, sc__rp_rec **recs, size_t *n,
                    sc__rp_header *hout)
{
    char path[4096];
    sc__rp_header h;
    struct stat sb;
    sc__rp_rec *r = NULL;
    char *raw = NULL;
    size_t k, rest;
    int f, rc = MPI_SUCCESS;

    *recs = NULL;
    *n = 0;
    snprintf(path, sizeof path, "%s/rank-%d.screp", dir, rank);
    f = open(path, O_RDONLY | O_CLOEXEC);
    if (f < 0) {
        int e = errno;
        return sc__error(e == ENOENT ? MPI_ERR_NO_SUCH_FILE : MPI_ERR_FILE,
                         "SAFECOLL_REPLAY: rank %d: cannot open the log %s: %s%s", rank, path,
                         strerror(e),
                         e == ENOENT ? " (the rank made no safecoll_ point-to-point call "
                                           "when recorded, or the file was removed)" : "");
    }
    if (fstat(f, &sb) != 0) {
        rc = sc__error(MPI_ERR_FILE, "SAFECOLL_REPLAY: rank %d: cannot read %s: %s", rank, path,
                       strerror(errno));
        goto out;
    }
    if ((rc = read_header(f, path, (size_t)sb.st_size, nprocs, rank, &h)) != MPI_SUCCESS)
        goto out;
    rest = (size_t)sb.st_size - sizeof h;
    raw = malloc(rest > 0 ? rest : 1);
    r = malloc((rest / sizeof *r > 0 ? rest / sizeof *r : 1) * sizeof *r);
    if (raw == NULL || r == NULL) {
        rc = sc__error(MPI_ERR_NO_MEM, "SAFECOLL_REPLAY: rank %d: no memory for the %zu bytes "
                       "of %s", rank, rest, path);
        goto out;
    }
    {
        size_t got = 0;
        while (got < rest) {
            ssize_t g = read(f, raw + got, rest - got);
            if (g < 0 && errno == EINTR)
                continue;
            if (g <= 0)
                break;
            got += (size_t)g;
        }
        if (got != rest) {
            rc = sc__error(MPI_ERR_BAD_FILE, "SAFECOLL_REPLAY: rank %d: cannot read %s", rank,
                           path);
            goto out;
        }
    }
    /* The blocks, each checked whole, their records gathered into r. */
    k = 0;
    for (size_t at = 0, seq = 0; at < rest; seq++) {
        sc__rp_block b;
        if (rest - at < sizeof b) {
            rc = sc__error(MPI_ERR_BAD_FILE, "SAFECOLL_REPLAY: rank %d: the log %s is truncated "
                           "(a partial block header after its %zu records)", rank, path, k);
            goto out;
        }
        memcpy(&b, raw + at, sizeof b);
        at += sizeof b;
        if (b.nrec == 0 || b.nrec > h.blockrecs || b.seq != seq) {
            rc = sc__error(MPI_ERR_BAD_FILE, "SAFECOLL_REPLAY: rank %d: the log %s is corrupted "
                           "at block %zu, after record %zu (a bad block header)", rank, path,
                           seq + 1, k);
            goto out;
        }
        if (rest - at < (size_t)b.nrec * sizeof *r) {
            rc = sc__error(MPI_ERR_BAD_FILE, "SAFECOLL_REPLAY: rank %d: the log %s is truncated "
                           "(its block %zu lacks records)", rank, path, seq + 1);
            goto out;
        }
        memcpy(r + k, raw + at, (size_t)b.nrec * sizeof *r);
        at += (size_t)b.nrec * sizeof *r;
        if (b.crc != block_crc(&b, r + k, b.nrec)) {
            rc = sc__error(MPI_ERR_BAD_FILE, "SAFECOLL_REPLAY: rank %d: the log %s is corrupted "
                           "in block %zu, records %zu-%zu (bad CRC)", rank, path, seq + 1,
                           k + 1, k + b.nrec);
            goto out;
        }
        for (size_t i = k; i < k + b.nrec; i++)
            if (r[i].kind < SC_RP_RECV || r[i].kind > SC_RP_END ||
                (r[i].kind == SC_RP_END && i + 1 != k + b.nrec)) {
                rc = sc__error(MPI_ERR_BAD_FILE, "SAFECOLL_REPLAY: rank %d: the log %s is "
                               "corrupted at record %zu (bad kind %d)", rank, path, i + 1,
                               (int)r[i].kind);
                goto out;
            }
        k += b.nrec;
        if (r[k - 1].kind == SC_RP_END && at < rest) {
            rc = sc__error(MPI_ERR_BAD_FILE, "SAFECOLL_REPLAY: rank %d: the log %s is corrupted "
                           "(%zu bytes after its end record)", rank, path, rest - at);
            goto out;
        }
    }
    if (k == 0 || r[k - 1].kind != SC_RP_END) {
        rc = sc__error(MPI_ERR_BAD_FILE, "SAFECOLL_REPLAY: rank %d: the log %s is truncated "
                       "(no end record after its %zu records)", rank, path, k);
        goto out;
    }
    *recs = r;
    *n = k;
    *hout = h;
    r = NULL;
out:
    free(raw);
    free(r);
    close(f);
    return rc;
}
