/*
 * The trace file (format in trace.h, doc/trace.md): a writer that buffers
 * records and call sites into CRC-checked blocks, each one write(2), and a
 * reader that checks everything and names the file in each error.
 */
#define _GNU_SOURCE 1

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay.h"
#include "trace.h"

_Static_assert(sizeof(sc__tc_header) == 56, "a trace header is 56 bytes");
_Static_assert(sizeof(sc__tc_rec) == 64, "a trace record is 64 bytes");
_Static_assert(sizeof(sc__tc_block) == 16, "a block header is 16 bytes");

enum { SITE_BUF = 16 * 1024 };

struct sc__tc_writer {
    int fd, rank;
    char path[4096];
    uint32_t nblocks;
    uint64_t nrecs, seq;
    size_t nbuf;
    /* A record is 64 bytes: aligned, each one fills one cache line. */
    _Alignas(64) sc__tc_rec buf[SC_TC_BLOCK_RECS];
    /* Sites not yet written, as they go in a SITES block. */
    unsigned char sites[SITE_BUF];
    size_t nsites_buf;
    /* Every site so far, for one id per string: open addressing on a
     * power-of-two table of ids into `names`. */
    char **names;
    uint32_t nnames, cap;
    uint32_t *table;
    uint32_t tcap;
};

static uint32_t block_crc(const sc__tc_block *h, const void *payload, size_t n)
{
    return sc__rp_crc(sc__rp_crc(0, payload, n), h, offsetof(sc__tc_block, crc));
}

static int write_block(sc__tc_writer *w, uint32_t type, const void *payload, size_t n)
{
    sc__tc_block h = {type, w->nblocks, (uint32_t)n, 0};

    h.crc = block_crc(&h, payload, n);
    w->nblocks++;
    if (sc__rp_write_all(w->fd, &h, sizeof h) != 0 || sc__rp_write_all(w->fd, payload, n) != 0)
        return sc__error(MPI_ERR_FILE, "trace: rank %d: cannot write %s: %s", w->rank, w->path,
                         strerror(errno));
    return MPI_SUCCESS;
}

int sc__tc_writer_open(sc__tc_writer **out, const char *dir, int rank, int nprocs, uint64_t id,
                       int64_t origin_ns)
{
    sc__tc_writer *w;
    sc__tc_header h;

    *out = NULL;
    if (dir == NULL || rank < 0 || nprocs < 1 || rank >= nprocs)
        return sc__error(MPI_ERR_ARG, "trace: bad arguments (dir %s, rank %d of %d)",
                         dir ? dir : "NULL", rank, nprocs);
    if (sc__rp_mkdirs(dir) != 0)
        return sc__error(MPI_ERR_FILE, "trace: rank %d: cannot make the directory %s: %s", rank,
                         dir, strerror(errno));
    /* sizeof *w is a multiple of its alignment, 64 (buf). */
    if ((w = aligned_alloc(_Alignof(sc__tc_writer), sizeof *w)) == NULL)
        return sc__error(MPI_ERR_NO_MEM, "trace: rank %d: no memory for the writer", rank);
    memset(w, 0, sizeof *w);
    w->rank = rank;
    snprintf(w->path, sizeof w->path, "%s/trace.%d", dir, rank);
    w->fd = open(w->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (w->fd < 0) {
        int rc = sc__error(MPI_ERR_FILE, "trace: rank %d: cannot create %s: %s", rank, w->path,
                           strerror(errno));
        free(w);
        return rc;
    }
    memset(&h, 0, sizeof h);
    memcpy(h.magic, "SCTRACE", 8);
    h.byteorder = 0x01020304u;
    h.version = SC_TC_VERSION;
    h.recsize = sizeof(sc__tc_rec);
    h.blockrecs = SC_TC_BLOCK_RECS;
    h.nprocs = nprocs;
    h.rank = rank;
    h.id = id;
    h.origin_ns = origin_ns;
    h.crc = sc__rp_crc(0, &h, offsetof(sc__tc_header, crc));
    if (sc__rp_write_all(w->fd, &h, sizeof h) != 0) {
        int rc = sc__error(MPI_ERR_FILE, "trace: rank %d: cannot write %s: %s", rank, w->path,
                           strerror(errno));
        close(w->fd);
        free(w);
        return rc;
    }
    *out = w;
    return MPI_SUCCESS;
}

int sc__tc_writer_flush(sc__tc_writer *w)
{
    int rc = MPI_SUCCESS;

    if (w == NULL)
        return MPI_SUCCESS;
    /* Sites first: a reader meets every site before the records naming it. */
    if (w->nsites_buf > 0) {
        rc = write_block(w, SC_TC_SITES, w->sites, w->nsites_buf);
        w->nsites_buf = 0;
    }
    if (rc == MPI_SUCCESS && w->nbuf > 0)
        rc = write_block(w, SC_TC_RECS, w->buf, w->nbuf * sizeof w->buf[0]);
    w->nbuf = 0;
    return rc;
}

sc__tc_rec *sc__tc_writer_slot(sc__tc_writer *w, int *rc)
{
    *rc = MPI_SUCCESS;
    if (w->nbuf == SC_TC_BLOCK_RECS && (*rc = sc__tc_writer_flush(w)) != MPI_SUCCESS)
        return NULL;
    return &w->buf[w->nbuf];
}

void sc__tc_writer_commit(sc__tc_writer *w)
{
    sc__tc_rec *r = &w->buf[w->nbuf++];

    r->rank = w->rank;
    r->seq = w->seq++;
    w->nrecs++;
}

int sc__tc_writer_add(sc__tc_writer *w, sc__tc_rec *r)
{
    int rc;
    sc__tc_rec *s = sc__tc_writer_slot(w, &rc);

    if (s == NULL)
        return rc;
    *s = *r;
    sc__tc_writer_commit(w);
    r->rank = s->rank;
    r->seq = s->seq;
    return MPI_SUCCESS;
}

static uint32_t str_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

/* Puts id into the table (grown to keep it at most half full). */
static int table_put(sc__tc_writer *w, uint32_t id)
{
    if (2 * (w->nnames + 1) > w->tcap) {
        uint32_t ncap = w->tcap ? 2 * w->tcap : 64;
        uint32_t *t = calloc(ncap, sizeof *t);
        if (t == NULL)
            return -1;
        for (uint32_t i = 0; i < w->tcap; i++)
            if (w->table[i] != 0) {
                uint32_t j = str_hash(w->names[w->table[i]]) & (ncap - 1);
                while (t[j] != 0)
                    j = (j + 1) & (ncap - 1);
                t[j] = w->table[i];
            }
        free(w->table);
        w->table = t;
        w->tcap = ncap;
    }
    uint32_t j = str_hash(w->names[id]) & (w->tcap - 1);
    while (w->table[j] != 0)
        j = (j + 1) & (w->tcap - 1);
    w->table[j] = id;
    return 0;
}

uint32_t sc__tc_writer_site(sc__tc_writer *w, const char *site)
{
    char cut[SC_TC_SITE_MAX + 1];
    size_t len = strlen(site);

    if (len > SC_TC_SITE_MAX) {
        memcpy(cut, site, SC_TC_SITE_MAX);
        cut[SC_TC_SITE_MAX] = '\0';
        site = cut;
        len = SC_TC_SITE_MAX;
    }
    if (w->tcap > 0) {
        uint32_t j = str_hash(site) & (w->tcap - 1);
        for (; w->table[j] != 0; j = (j + 1) & (w->tcap - 1))
            if (strcmp(w->names[w->table[j]], site) == 0)
                return w->table[j];
    }
    if (w->nnames + 2 > w->cap) {
        uint32_t ncap = w->cap ? 2 * w->cap : 64;
        char **n = realloc(w->names, ncap * sizeof *n);
        if (n == NULL)
            return 0;
        w->names = n;
        w->cap = ncap;
        if (w->nnames == 0)
            w->names[w->nnames++] = NULL; /* id 0: no site */
    }
    uint32_t id = w->nnames;
    if ((w->names[id] = strdup(site)) == NULL)
        return 0;
    w->nnames++;
    if (table_put(w, id) != 0)
        return 0;
    /* The entry: id, length, bytes padded to 4. */
    size_t need = 8 + ((len + 3) & ~(size_t)3);
    if (w->nsites_buf + need > SITE_BUF && sc__tc_writer_flush(w) != MPI_SUCCESS)
        return 0;
    uint32_t hdr[2] = {id, (uint32_t)len};
    memcpy(w->sites + w->nsites_buf, hdr, 8);
    memset(w->sites + w->nsites_buf + 8, 0, need - 8);
    memcpy(w->sites + w->nsites_buf + 8, site, len);
    w->nsites_buf += need;
    return id;
}

int sc__tc_writer_close(sc__tc_writer *w)
{
    int rc;

    if (w == NULL)
        return MPI_SUCCESS;
    rc = sc__tc_writer_flush(w);
    if (rc == MPI_SUCCESS) {
        uint64_t end[2] = {w->nrecs, w->nnames > 0 ? w->nnames - 1 : 0};
        rc = write_block(w, SC_TC_END, end, sizeof end);
    }
    if (close(w->fd) != 0 && rc == MPI_SUCCESS)
        rc = sc__error(MPI_ERR_FILE, "trace: rank %d: cannot close %s: %s", w->rank, w->path,
                       strerror(errno));
    for (uint32_t i = 1; i < w->nnames; i++)
        free(w->names[i]);
    free(w->names);
    free(w->table);
    free(w);
    return rc;
}

/* ---------------------------------------------------------------- reader */

void sc__tc_file_free(sc__tc_file *f)
{
    if (f == NULL)
        return;
    free(f->recs);
    for (uint32_t i = 0; i < f->nsites; i++)
        free(f->sites[i]);
    free(f->sites);
    memset(f, 0, sizeof *f);
}

static int bad(const char *path, const char *what)
{
    return sc__error(MPI_ERR_BAD_FILE, "trace: %s: %s", path, what);
}

/* Reads the whole file into a buffer (*size bytes). */
static int slurp(const char *path, unsigned char **out, size_t *size)
{
    struct stat sb;
    unsigned char *raw;
    size_t got = 0;
    int f = open(path, O_RDONLY | O_CLOEXEC);

    *out = NULL;
    if (f < 0)
        return sc__error(errno == ENOENT ? MPI_ERR_NO_SUCH_FILE : MPI_ERR_FILE,
                         "trace: cannot open %s: %s", path, strerror(errno));
    if (fstat(f, &sb) != 0) {
        close(f);
        return sc__error(MPI_ERR_FILE, "trace: cannot read %s: %s", path, strerror(errno));
    }
    if ((raw = malloc(sb.st_size > 0 ? (size_t)sb.st_size : 1)) == NULL) {
        close(f);
        return sc__error(MPI_ERR_NO_MEM, "trace: no memory for the %lld bytes of %s",
                         (long long)sb.st_size, path);
    }
    while (got < (size_t)sb.st_size) {
        ssize_t g = read(f, raw + got, (size_t)sb.st_size - got);
        if (g < 0 && errno == EINTR)
            continue;
        if (g <= 0)
            break;
        got += (size_t)g;
    }
    close(f);
    if (got != (size_t)sb.st_size) {
        free(raw);
        return sc__error(MPI_ERR_FILE, "trace: cannot read %s", path);
    }
    *out = raw;
    *size = got;
    return MPI_SUCCESS;
}

/* The entries of a SITES block into f->sites. */
static int read_sites(const char *path, const unsigned char *p, size_t n, sc__tc_file *f,
                      size_t block)
{
    char msg[128];

    for (size_t at = 0; at < n;) {
        uint32_t hdr[2];
        if (n - at < 8)
            goto corrupt;
        memcpy(hdr, p + at, 8);
        size_t need = 8 + (((size_t)hdr[1] + 3) & ~(size_t)3);
        if (hdr[1] > SC_TC_SITE_MAX || n - at < need || hdr[0] != f->nsites + (f->nsites == 0))
            goto corrupt;
        if (f->nsites == 0) {
            if ((f->sites = calloc(2, sizeof *f->sites)) == NULL)
                return sc__error(MPI_ERR_NO_MEM, "trace: no memory for the sites of %s", path);
            f->nsites = 1;
        } else if ((f->nsites & (f->nsites - 1)) == 0) {
            char **s = realloc(f->sites, 2 * (size_t)f->nsites * sizeof *s);
            if (s == NULL)
                return sc__error(MPI_ERR_NO_MEM, "trace: no memory for the sites of %s", path);
            f->sites = s;
        }
        if ((f->sites[f->nsites] = strndup((const char *)p + at + 8, hdr[1])) == NULL)
            return sc__error(MPI_ERR_NO_MEM, "trace: no memory for the sites of %s", path);
        f->nsites++;
        at += need;
    }
    return MPI_SUCCESS;
corrupt:
    snprintf(msg, sizeof msg, "corrupted call-site table in block %zu", block + 1);
    return bad(path, msg);
}

int sc__tc_read(const char *path, sc__tc_file *f)
{
    unsigned char *raw;
    size_t size = 0, at, k = 0, cap = 0;
    sc__tc_header h;
    char msg[256];
    int rc, ended = 0;

    memset(f, 0, sizeof *f);
    if ((rc = slurp(path, &raw, &size)) != MPI_SUCCESS)
        return rc;
    if (size < sizeof h) {
        rc = bad(path, "truncated (no complete header)");
        goto out;
    }
    memcpy(&h, raw, sizeof h);
    if (memcmp(h.magic, "SCTRACE", 8) != 0) {
        rc = bad(path, "not a libsafecoll trace file");
        goto out;
    }
    if (h.byteorder != 0x01020304u || h.version != SC_TC_VERSION ||
        h.recsize != sizeof(sc__tc_rec)) {
        snprintf(msg, sizeof msg, "trace format version %u (or another byte order); this "
                 "library reads version %d", (unsigned)h.version, SC_TC_VERSION);
        rc = bad(path, msg);
        goto out;
    }
    if (h.crc != sc__rp_crc(0, &h, offsetof(sc__tc_header, crc))) {
        rc = bad(path, "the header is corrupted (bad CRC)");
        goto out;
    }
    if (h.nprocs < 1 || h.rank < 0 || h.rank >= h.nprocs || h.blockrecs == 0 ||
        h.blockrecs > (1u << 20)) {
        rc = bad(path, "the header is corrupted (bad rank, job size or block size)");
        goto out;
    }
    f->nprocs = h.nprocs;
    f->rank = h.rank;
    f->id = h.id;
    f->origin_ns = h.origin_ns;
    at = sizeof h;
    for (size_t seq = 0; at < size; seq++) {
        sc__tc_block b;
        if (ended) {
            snprintf(msg, sizeof msg, "corrupted (%zu bytes after its end block)", size - at);
            rc = bad(path, msg);
            goto out;
        }
        if (size - at < sizeof b) {
            snprintf(msg, sizeof msg, "truncated (a partial block header after %zu records)", k);
            rc = bad(path, msg);
            goto out;
        }
        memcpy(&b, raw + at, sizeof b);
        at += sizeof b;
        if (b.seq != seq || b.type < SC_TC_RECS || b.type > SC_TC_END ||
            (b.type == SC_TC_RECS && (b.size == 0 || b.size % sizeof(sc__tc_rec) != 0 ||
                                      b.size / sizeof(sc__tc_rec) > h.blockrecs)) ||
            (b.type == SC_TC_END && b.size != 16)) {
            snprintf(msg, sizeof msg, "corrupted at block %zu, after record %zu (a bad block "
                     "header)", seq + 1, k);
            rc = bad(path, msg);
            goto out;
        }
        if (size - at < b.size) {
            snprintf(msg, sizeof msg, "truncated (its block %zu is incomplete)", seq + 1);
            rc = bad(path, msg);
            goto out;
        }
        if (b.crc != block_crc(&b, raw + at, b.size)) {
            snprintf(msg, sizeof msg, "corrupted in block %zu, after record %zu (bad CRC)",
                     seq + 1, k);
            rc = bad(path, msg);
            goto out;
        }
        if (b.type == SC_TC_RECS) {
            size_t nr = b.size / sizeof(sc__tc_rec);
            if (k + nr > cap) {
                size_t ncap = cap ? 2 * cap : 1024;
                while (ncap < k + nr)
                    ncap *= 2;
                sc__tc_rec *r = realloc(f->recs, ncap * sizeof *r);
                if (r == NULL) {
                    rc = sc__error(MPI_ERR_NO_MEM, "trace: no memory for the records of %s",
                                   path);
                    goto out;
                }
                f->recs = r;
                cap = ncap;
            }
            memcpy(f->recs + k, raw + at, b.size);
            for (size_t i = k; i < k + nr; i++) {
                const sc__tc_rec *r = &f->recs[i];
                if (r->kind < SC_TC_SEND || r->kind > SC_TC_SELF || r->rank != h.rank ||
                    (r->flags & ~SC_TC_FLAG_LIBRARY) != 0 ||
                    r->peer < 0 || r->peer >= h.nprocs || r->bytes < 0 || r->seq != i ||
                    r->site >= (f->nsites ? f->nsites : 1) ||
                    (r->elem != 0 && r->elem != 1 && r->elem != 2 && r->elem != 4 &&
                     r->elem != 8)) {
                    snprintf(msg, sizeof msg, "corrupted at record %zu (kind %d, rank %d, peer "
                             "%d, site %u)", i + 1, (int)r->kind, (int)r->rank, (int)r->peer,
                             (unsigned)r->site);
                    rc = bad(path, msg);
                    goto out;
                }
            }
            k += nr;
        } else if (b.type == SC_TC_SITES) {
            if ((rc = read_sites(path, raw + at, b.size, f, seq)) != MPI_SUCCESS)
                goto out;
        } else {
            uint64_t end[2];
            memcpy(end, raw + at, sizeof end);
            if (end[0] != k || end[1] != (f->nsites ? f->nsites - 1 : 0)) {
                snprintf(msg, sizeof msg, "corrupted (its end block counts %llu records, the "
                         "file holds %zu)", (unsigned long long)end[0], k);
                rc = bad(path, msg);
                goto out;
            }
            ended = 1;
        }
        at += b.size;
    }
    if (!ended) {
        snprintf(msg, sizeof msg, "truncated (no end block after its %zu records: the "
                 "recording did not finish)", k);
        rc = bad(path, msg);
        goto out;
    }
    f->n = k;
out:
    free(raw);
    if (rc != MPI_SUCCESS)
        sc__tc_file_free(f);
    return rc;
}

int sc__tc_read_dir(const char *dir, sc__tc_file **out, int *nprocs)
{
    char path[4096];
    sc__tc_file *files = NULL, first;
    DIR *d;
    struct dirent *e;
    int rc, P;

    *out = NULL;
    *nprocs = 0;
    if ((d = opendir(dir)) == NULL)
        return sc__error(errno == ENOENT ? MPI_ERR_NO_SUCH_FILE : MPI_ERR_FILE,
                         "trace: cannot open the directory %s: %s", dir, strerror(errno));
    closedir(d);
    snprintf(path, sizeof path, "%s/trace.0", dir);
    if ((rc = sc__tc_read(path, &first)) != MPI_SUCCESS)
        return rc;
    P = first.nprocs;
    if ((files = calloc((size_t)P, sizeof *files)) == NULL) {
        sc__tc_file_free(&first);
        return sc__error(MPI_ERR_NO_MEM, "trace: no memory for %d files", P);
    }
    files[0] = first;
    for (int r = 1; r < P; r++) {
        snprintf(path, sizeof path, "%s/trace.%d", dir, r);
        if ((rc = sc__tc_read(path, &files[r])) != MPI_SUCCESS)
            goto fail;
        if (files[r].nprocs != P) {
            rc = sc__error(MPI_ERR_BAD_FILE, "trace: %s: recorded in a job of %d processes, but "
                           "%s/trace.0 in one of %d: files of two recordings", path,
                           files[r].nprocs, dir, P);
            goto fail;
        }
        if (files[r].id != files[0].id) {
            rc = sc__error(MPI_ERR_BAD_FILE, "trace: %s: of recording %016llx, but %s/trace.0 "
                           "of recording %016llx: files of two recordings", path,
                           (unsigned long long)files[r].id, dir,
                           (unsigned long long)files[0].id);
            goto fail;
        }
        if (files[r].rank != r) {
            rc = sc__error(MPI_ERR_BAD_FILE, "trace: %s: holds the events of rank %d", path,
                           files[r].rank);
            goto fail;
        }
    }
    if (files[0].rank != 0) {
        rc = sc__error(MPI_ERR_BAD_FILE, "trace: %s/trace.0: holds the events of rank %d", dir,
                       files[0].rank);
        goto fail;
    }
    /* A file of a larger job left in the directory. */
    if ((d = opendir(dir)) != NULL) {
        while ((e = readdir(d)) != NULL) {
            char *end;
            if (strncmp(e->d_name, "trace.", 6) != 0 || e->d_name[6] == '\0')
                continue;
            long r = strtol(e->d_name + 6, &end, 10);
            if (*end == '\0' && r >= P) {
                rc = sc__error(MPI_ERR_BAD_FILE, "trace: %s/%s: a rank beyond the job of %d "
                               "processes of %s/trace.0: files of two recordings", dir,
                               e->d_name, P, dir);
                closedir(d);
                goto fail;
            }
        }
        closedir(d);
    }
    *out = files;
    *nprocs = P;
    return MPI_SUCCESS;
fail:
    for (int r = 0; r < P; r++)
        sc__tc_file_free(&files[r]);
    free(files);
    return rc;
}
