/*
 * Traces of hashed point-to-point events (issue 33) and their offline
 * analysis (include/safecoll/trace.h): the file format (file.c, written
 * by the runtime recorder, read by the analyzer), the hashes (hash.c), and
 * the analyzer: matching and replays (analyze.c, patterns.c) and the
 * report (report.c). doc/trace.md describes the format for readers
 * outside the library.
 *
 * The file, one per rank, DIR/trace.<rank>, in the writer's byte order:
 * a header (sc__tc_header, CRC-checked), then blocks, each a block header
 * (sc__tc_block: its type, its number in the file, its payload size and
 * one CRC-32 over the payload and these three) and its payload:
 *   RECS   up to SC_TC_BLOCK_RECS fixed-size records (sc__tc_rec);
 *   SITES  call-site strings, each a uint32 id, a uint32 length and the
 *          bytes (no NUL), padded to 4 bytes;
 *   END    the last block: the file's record and site counts (two
 *          uint64). A file without it was not closed: it is truncated.
 * A site's block comes before the first block of records that names it.
 *
 * Depends on core (errors) and the replay module's CRC-32 (crc.c) only.
 * Its names start sc__tc_ / SC_TC_: the traffic layer's are sc__tr_ /
 * SC_TR_, and the recorder includes both headers.
 */
#ifndef SC_TRACE_H
#define SC_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "core.h"

enum { SC_TC_VERSION = 1, SC_TC_BLOCK_RECS = 1024, SC_TC_SITE_MAX = 1024 };

/* Kinds of record. A send is recorded when posted, a receive when
 * complete (with the matched source, tag and byte count of its status);
 * SELF is safecoll_trace_self(): data a rank keeps (the paper's
 * Send_To_Self), peer = own rank. */
typedef enum sc__tc_kind { SC_TC_SEND = 1, SC_TC_RECV, SC_TC_SELF } sc__tc_kind;

typedef enum sc__tc_block_type { SC_TC_RECS = 1, SC_TC_SITES, SC_TC_END } sc__tc_block_type;

/* Record flags. LIBRARY: a message of the library's own (its strategies,
 * agreement, reference routines on its private communicators), kept in
 * the file but left out of the analysis: those collectives are not the
 * application's to replace. */
enum { SC_TC_FLAG_LIBRARY = 1 };

typedef struct sc__tc_header {
    char magic[8];      /* "SCTRACE" and a NUL */
    uint32_t byteorder; /* 0x01020304 as written */
    uint32_t version;   /* SC_TC_VERSION */
    uint32_t recsize;   /* sizeof(sc__tc_rec) */
    uint32_t blockrecs; /* the most records a block holds */
    int32_t nprocs, rank;
    uint64_t id;        /* the recording: the same in every rank's file */
    int64_t origin_ns;  /* the clock's origin (CLOCK_REALTIME, ns): times count from it */
    uint32_t reserved;
    uint32_t crc;       /* CRC-32 of the bytes above */
} sc__tc_header;

typedef struct sc__tc_rec {
    uint8_t kind;     /* sc__tc_kind */
    uint8_t elem;     /* bytes of a predefined integer element (1, 2, 4, 8), 0: other */
    uint16_t flags;   /* SC_TC_FLAG_* */
    int32_t rank;     /* own rank in MPI_COMM_WORLD */
    int32_t peer;     /* destination (SEND), matched source (RECV), own (SELF), world ranks */
    int32_t tag;
    uint32_t comm;    /* stable communicator id (0: MPI_COMM_WORLD) */
    uint32_t site;    /* call-site id of a SITES block, 0: none */
    uint32_t crc;     /* CRC-32 of the packed payload */
    uint32_t dtype;   /* hash of the datatype signature */
    uint32_t sumh;    /* additive hash of integer elements (elem > 0), sc__tc_sum_hash */
    uint32_t ends;    /* hash of the payload's first and last 8 bytes, sc__tc_ends_hash */
    int64_t bytes;    /* payload bytes */
    int64_t t_ns;     /* time since the header's origin, ns */
    uint64_t seq;     /* the event's number on its rank, from 0 */
} sc__tc_rec;

typedef struct sc__tc_block {
    uint32_t type; /* sc__tc_block_type */
    uint32_t seq;  /* the block's number in the file, from 0 */
    uint32_t size; /* payload bytes */
    uint32_t crc;  /* CRC-32 of the payload, continued over type, seq and size */
} sc__tc_block;

/* ---- hashes (hash.c) ---- */

/* CRC-32 of the concatenation a||b from their CRCs and b's length
 * (zlib's crc32_combine). */
uint32_t sc__tc_crc_concat(uint32_t crc_a, uint32_t crc_b, int64_t len_b);

/* The additive hash of n bytes of integers of elem bytes (1, 2, 4, 8,
 * native byte order): sum over elements i of w(i) * (x_i << (32 - 8 elem))
 * modulo 2^32 (the low 32 bits of 8-byte elements), w(i) a fixed odd
 * weight. Element-wise sums that wrap (MPI_SUM on integer types) map to
 * sums of hashes: h(a + b) = h(a) + h(b). */
uint32_t sc__tc_sum_hash(const void *buf, size_t n, int elem);
/* The CRC-32 of n bytes (sc__rp_crc from 0) and, into *sumh, their
 * sc__tc_sum_hash, in one pass over the bytes. */
uint32_t sc__tc_crc_sum(const void *buf, size_t n, int elem, uint32_t *sumh);

/* A hash of the first and last (up to) 8 bytes of n bytes and of n: with
 * the CRC-32, a 64-bit key for equal payloads, so that the CRC-32
 * collisions of a large trace (about 100 pairs among 10^6 payloads of one
 * size) do not join unrelated messages. O(1), whatever n. */
uint32_t sc__tc_ends_hash(const void *buf, size_t n);
/* The mixing of sc__tc_ends_hash: head holds the first min(n, 8) bytes,
 * tail the bytes from 8 on when n < 16, else the last 8 (both as memcpy'd
 * into a zeroed uint64), for a payload that comes in pieces. */
uint32_t sc__tc_ends_mix(uint64_t head, uint64_t tail, uint64_t n);

/* ---- writer (file.c) ---- */

typedef struct sc__tc_writer sc__tc_writer;

/* Creates DIR (if missing) and DIR/trace.<rank> with its header. */
int sc__tc_writer_open(sc__tc_writer **w, const char *dir, int rank, int nprocs, uint64_t id,
                       int64_t origin_ns);
/* Appends one record (its rank and seq are set here); a full block is
 * written out with one write(2). */
int sc__tc_writer_add(sc__tc_writer *w, sc__tc_rec *r);
/* The same in two steps, without a copy: the slot the next record goes
 * in (a full block written out first; NULL and *rc an error code when
 * that fails), which the caller fills, then its commit. Nothing else of
 * the writer may run in between (naming a site may write a block). */
sc__tc_rec *sc__tc_writer_slot(sc__tc_writer *w, int *rc);
void sc__tc_writer_commit(sc__tc_writer *w);
/* The id of a call-site string (one id per distinct string, from 1),
 * 0 when out of memory. Strings longer than SC_TC_SITE_MAX are cut. */
uint32_t sc__tc_writer_site(sc__tc_writer *w, const char *site);
/* Writes the buffered sites and records out (write(2) only). */
int sc__tc_writer_flush(sc__tc_writer *w);
/* Flushes, writes the END block, closes and frees; NULL is a no-op. */
int sc__tc_writer_close(sc__tc_writer *w);

/* ---- reader (file.c) ---- */

typedef struct sc__tc_file {
    int nprocs, rank;
    uint64_t id;
    int64_t origin_ns;
    sc__tc_rec *recs; /* in the order written */
    size_t n;
    char **sites;     /* by id; sites[0] is NULL */
    uint32_t nsites;  /* ids 1 .. nsites - 1 */
} sc__tc_file;

/* Reads and checks one file whole (header, blocks, CRCs, sequence, kinds,
 * the END block); errors name the file. */
int sc__tc_read(const char *path, sc__tc_file *f);
/* Reads DIR/trace.0 .. DIR/trace.<P-1>, every file of the same recording
 * and job size, each rank's once; *files holds P files. */
int sc__tc_read_dir(const char *dir, sc__tc_file **files, int *nprocs);
void sc__tc_file_free(sc__tc_file *f);

#endif /* SC_TRACE_H */
