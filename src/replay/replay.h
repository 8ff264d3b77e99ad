/*
 * Record and replay of the application's point-to-point traffic
 * (SAFECOLL_REPLAY; public side include/safecoll/p2p.h): the log file
 * (log.c) and the wrappers with their state (p2p.c, which calls log.c and
 * not the other way round).
 *
 * The log, one file per rank, DIR/rank-<r>.screp, made by the rank alone at
 * its first wrapper call (a rank that makes none has no log), native byte
 * order:
 * a header (sc__rp_header) then blocks, each a block header
 * (sc__rp_block: its record count, its sequence number and one CRC-32
 * over its records and these two) and that many fixed-size records
 * (sc__rp_rec). A block is one write(2) of the bounded buffer, so the
 * writer computes one CRC per 64 KiB, not one per record. The last record
 * is an END (written at MPI_Finalize, exit() or a fatal signal). Records
 * come in the order of the events on the rank; `call` is the rank's
 * wrapper call number (every safecoll_ point-to-point call counts, from
 * 1).
 *
 * The wrappers' state lives in p2p.c, which makes the wrappers of the
 * calls MPI-3 had from the start of record and replay; more.c makes the
 * others (sendrecv, the synchronous, buffered and ready sends, persistent
 * requests, request free) through the functions of p2p.c declared at the
 * end of this header.
 *
 * Depends on core and traffic (src/traffic/traffic.h) only; nothing below
 * includes it.
 */
#ifndef SC_REPLAY_H
#define SC_REPLAY_H

#include <stddef.h>
#include <stdint.h>

#include "core.h"
#include "traffic.h"

enum { SC_RP_VERSION = 3, SC_RP_PROGRAM = 256, SC_RP_BLOCK_RECS = 2048 };

typedef enum sc__rp_kind {
    SC_RP_RECV = 1, /* a completed receive: a source, b tag, bytes, crc, post */
    SC_RP_PROBE,    /* a probe of any form: flag, a source, b tag, bytes */
    SC_RP_TEST,     /* test / testall: flag */
    SC_RP_ANY,      /* waitany / testany: flag, a index (MPI_UNDEFINED: none) */
    SC_RP_SOME,     /* waitsome / testsome: a outcount; INDEX records follow */
    SC_RP_INDEX,    /* one index of a SOME: a */
    SC_RP_END       /* the end: flag 0 at MPI_Finalize, 1 at exit or a signal */
} sc__rp_kind;

typedef struct sc__rp_header {
    char magic[8];   /* "SCREPLAY" */
    uint32_t version;
    uint32_t recsize; /* sizeof(sc__rp_rec) */
    int32_t nprocs, rank;
    uint32_t byteorder; /* 0x01020304 as written */
    uint32_t blockrecs; /* the most records a block holds, SC_RP_BLOCK_RECS */
    char program[SC_RP_PROGRAM]; /* /proc/self/exe (or argv[0]), NUL-padded */
    uint64_t recording;          /* the recording id (recid.c), shared by its logs */
    uint32_t jobsource;          /* where it came from, sc__rp_job_source */
    uint32_t crc;                /* CRC-32 of the bytes above */
} sc__rp_header;

/* The sources of the recording id (recid.c), in the header's jobsource. */
enum {
    SC_RP_JOB_NONE = 0, /* no launcher identity found: id 0, logs not compared */
    SC_RP_JOB_PMIX,     /* PMIX_NAMESPACE and Open MPI's job id and key */
    SC_RP_JOB_HYDRA,    /* the control port and pgid of MPICH's hydra proxies */
    SC_RP_JOB_SLURM     /* SLURM_JOB_ID and SLURM_STEP_ID */
};

/* The recording id of this process's job, computed alone from what the
 * launcher gives every rank alike (recid.c): *id, and the source it came
 * from (SC_RP_JOB_NONE and *id 0 when none was found). */
uint32_t sc__rp_job_id(uint64_t *id);
/* The name of a source, for messages. */
const char *sc__rp_job_source(uint32_t source);

typedef struct sc__rp_rec {
    uint8_t kind, flag;
    uint16_t pad;
    uint32_t call;
    int32_t a, b;
    uint32_t post; /* RECV: the call number that posted the receive */
    uint32_t crc;  /* RECV: CRC-32 of the payload */
    int64_t bytes;
} sc__rp_rec;

typedef struct sc__rp_block {
    uint32_t nrec; /* records in the block, 1 to blockrecs */
    uint32_t seq;  /* the block's number in the file, from 0 */
    uint32_t crc;  /* CRC-32 of the records, continued over nrec and seq */
    uint32_t pad;
} sc__rp_block;

/* CRC-32 (zlib's bits) of n bytes, continuing crc (crc.c): ISA-L's where
 * the build found it, else zlib's. */
uint32_t sc__rp_crc(uint32_t crc, const void *p, size_t n);

/* write(2) of all n bytes of p to fd, again after EINTR; 0, or -1 with
 * errno set. Async-signal-safe (the logs are flushed from a fatal
 * signal's handler). Shared by the replay logs and the trace files. */
int sc__rp_write_all(int fd, const void *p, size_t n);

/* mkdir -p dir: its missing parents and itself (mode 0777 before the
 * umask); 0, or -1 with errno set. Shared by the logs and the traces. */
int sc__rp_mkdirs(const char *dir);

/* 1 when type is a common predefined type whose elements lie back to back
 * (no MPI query needed to read its bytes): sc__type_predefined (core's
 * memo) knows their size and extent; MPI_DOUBLE_INT and the other padded
 * pair types are not among them and take the general path. Inline: record
 * and replay ask it for every received message. */
static inline int sc__rp_type_flat(MPI_Datatype type)
{
    MPI_Count size = 0;
    MPI_Aint extent = 0;

    return sc__type_predefined(type, &size, &extent) && size > 0 && size == extent;
}

typedef void (*sc__rp_piece_fn)(void *ctx, const void *p, size_t n);

/* The payload of `bytes` bytes of `type` at buf as MPI packs it, given to
 * fn in order, piece by piece: the buffer itself for a type without holes
 * (a common predefined type without any MPI query), else whole elements
 * packed with MPI_Pack through a 64 KiB scratch of the call (a partial last
 * element is left out). MPI_SUCCESS, MPI_ERR_NO_MEM, or MPI_Pack's error. */
int sc__rp_payload_walk(const void *buf, MPI_Datatype type, int64_t bytes, sc__rp_piece_fn fn,
                        void *ctx);

/* A call site (a return address) as text: "binary+0xOFFSET (symbol+0xOFF)"
 * where dladdr finds it, else the address. */
void sc__rp_site_str(const void *site, char *out, size_t n);

/* The rank and size of this process's job as its launcher gave them in
 * the environment (PMI, Open MPI, PMIx, MVAPICH, Slurm), usable after
 * MPI_Finalize; -1 when not found. */
int sc__rp_launcher_rank(void);
int sc__rp_launcher_size(void);

/* This program's identity for the header: /proc/self/exe, NUL-padded. */
void sc__rp_program(char out[SC_RP_PROGRAM]);

/* Record: opens DIR/rank-<rank>.screp (DIR made if missing) and writes the
 * header. MPI_SUCCESS or an error with its message. */
int sc__rp_log_create(const char *dir, int nprocs, int rank);
/* Appends one record to the buffer of SC_RP_BLOCK_RECS records (64 KiB),
 * written out as one block when full. */
int sc__rp_log_put(const sc__rp_rec *r);
/* Writes the buffer out as a block; with end >= 0 an END record (flag end)
 * first and the file closed. Async-signal-safe when called from a handler
 * (write(2) only). */
int sc__rp_log_flush(int end);

/* Replay: reads and checks DIR/rank-<rank>.screp whole (header, P, rank,
 * program, every block's CRC and sequence, every record's kind, the END).
 * On success *recs / *n hold the records (freed by the caller) and *h the
 * header. */
int sc__rp_log_load(const char *dir, int nprocs, int rank, sc__rp_rec **recs, size_t *n,
                    sc__rp_header *h);
/* Replay: checks the header only of the log of `rank` (P, rank, program,
 * version, CRC) into *h, as a rank does for its peers' logs. *missing = 1
 * (and MPI_SUCCESS) when the file does not exist: that rank made no
 * wrapper call when recorded. */
int sc__rp_log_peek(const char *dir, int nprocs, int rank, int *missing, sc__rp_header *h);

/* ------------------------------------------------------------ the wrappers (p2p.c) */

/* The rank's mode: decided at its first wrapper call. */
enum { SC_RP_UNKNOWN, SC_RP_OFF, SC_RP_RECORD, SC_RP_REPLAY, SC_RP_BROKEN };
extern int sc__rp_mode;
/* The number of the current wrapper call (record, replay), from 1. */
extern uint32_t sc__rp_ncall;

/* The off mode's one branch. */
#define SC_RP_OFF() (!SC_TR_UNLIKELY(sc__rp_mode != SC_RP_OFF))

/* The call site of a wrapper: its return address (expanded in the
 * wrapper itself). */
#define SC_RP_SITE() __builtin_return_address(0)

/* The body of the wrapper fn: `off` (the traffic layer's call) when the
 * rank passes through, else `rr` (recording or replaying, counted as one
 * call) marked as a region for the hang monitor and ended by
 * sc__rp_finish. `comm` takes a broken set-up's error. */
#define SC_RP_WRAP(fn, comm, off, rr)                                                          \
    do {                                                                                       \
        int rc_ = MPI_SUCCESS;                                                                 \
        if (SC_RP_OFF() || sc__rp_enter((comm), &rc_, #fn, SC_RP_SITE()) > 0)                  \
            return (off);                                                                      \
        return rc_ != MPI_SUCCESS ? rc_ : sc__rp_finish(SC_TR_REGION(#fn, (rr)));              \
    } while (0)

/* The current call's name and site (for a divergence), the RECV records
 * of its completions waiting for its own record (record), and the first
 * error an event raised in it (p2p.c). */
extern const char *sc__rp_cur_fn;
extern const void *sc__rp_cur_site;
extern size_t sc__rp_nqueue;
extern int sc__rp_ev_rc;

/* Entry of a wrapper call fn from site outside off mode: 1 to pass
 * through, 0 to record or replay (the call counted), -1 for a broken
 * set-up (*rc, raised on comm). Inline for a rank that records or
 * replays; the first call (which starts the mode) and a broken set-up go
 * to sc__rp_enter_slow. */
int sc__rp_enter_slow(MPI_Comm comm, int *rc, const char *fn, const void *site);
static inline int sc__rp_enter(MPI_Comm comm, int *rc, const char *fn, const void *site)
{
    if (sc__rp_mode == SC_RP_RECORD || sc__rp_mode == SC_RP_REPLAY) {
        sc__rp_ncall++;
        sc__rp_cur_fn = fn;
        sc__rp_cur_site = site;
        return 0;
    }
    return sc__rp_enter_slow(comm, rc, fn, site);
}

/* The end of a recorded or replayed call that returned rc: the RECV
 * records of its completions written after its own record; rc, or the
 * first error one of its completions raised. Inline when the call has
 * neither (a send, a post). */
int sc__rp_finish_slow(int rc);
static inline int sc__rp_finish(int rc)
{
    return sc__rp_nqueue == 0 && sc__rp_ev_rc == MPI_SUCCESS ? rc : sc__rp_finish_slow(rc);
}

/* Replay: the source and tag the log gives the receive the current call
 * posts and completes at once (a blocking receive, a sendrecv), in place
 * of a wildcard in *src, *tag. MPI_SUCCESS, or the divergence when the
 * next record is not that receive. */
int sc__rp_force_now(int *src, int *tag, MPI_Comm comm);

/* Replay: the same for a receive posted by call `post` and completed
 * later (left as given when the recording never completed it). */
void sc__rp_force_post(uint32_t post, int *src, int *tag);

#endif /* SC_REPLAY_H */
