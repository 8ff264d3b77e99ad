/*
 * The analyzer's inner state (include/safecoll/trace.h is its public
 * side): the matched messages and kept-data records of a whole trace, and
 * the instances the replays find (one per occurrence), which report.c
 * groups into findings.
 *
 *   analyze.c   the entry and the instances' helpers
 *   load.c      loading, message matching, Lamport times
 *   bcast.c     the broadcast replay and the compositions of broadcasts
 *               (allgather, segmented broadcasts)
 *   tree.c      the forward replay: gathers and reductions through inner ranks
 *   patterns.c  personalized fan-out and fan-in (all-to-all, scatter,
 *               gather, reduce, allreduce)
 *   barrier.c   the barrier's knowledge replay
 *   report.c    instances to findings, the ranking, text and JSON
 *   measure.c   the measuring step: the replacing calls timed in MPI jobs
 *               (measure.h; the job's side in src/probe/trace_job.c)
 */
#ifndef SC_TRACE_ANALYZE_H
#define SC_TRACE_ANALYZE_H

#include <stddef.h>
#include <stdint.h>

#include <safecoll/trace.h>

#include "trace.h"

/* A matched message: the send of src and the receive of dst. */
typedef struct sc__tc_msg {
    int32_t src, dst;
    uint32_t crc, sumh, ends;
    int64_t bytes;
    uint64_t sseq, rseq; /* positions in src's and dst's records */
    int64_t ts, tr;      /* send posted, receive completed (ns, common origin) */
    int64_t ls, lr;      /* the same as Lamport times: causal, whatever the clocks */
    uint32_t ssite, rsite; /* global site ids, 0: none */
    uint32_t gen;        /* the receipt's number of this payload on dst, from 0 */
    uint8_t elem;
    uint8_t used;        /* consumed by a composition */
} sc__tc_msg;

/* Data a rank keeps (safecoll_trace_self). */
typedef struct sc__tc_self {
    int32_t rank;
    uint8_t elem;
    uint32_t crc, sumh, site;
    int64_t bytes;
    uint64_t seq;
    int64_t t;
} sc__tc_self;

/* One occurrence of a pattern. */
typedef struct sc__tc_inst {
    safecoll_trace_kind kind;
    int near, root, alternatives;
    uint64_t *set;       /* the ranks, a bitset of W words */
    int64_t bytes;
    int64_t t0, t1;      /* first send posted, last receive completed (ns) */
    int64_t lt0, lt1;    /* the same in Lamport time: whether two run at once */
    long nmsgs;
    uint32_t *sites;     /* global site ids, sorted, unique */
    int nsites;
    uint32_t value;      /* bcast: the payload's CRC; reduce: the result's */
    int op;              /* reduce: 0 sum, 1 bxor */
    int elem;
    int used;            /* merged into a composition */
    char detail[160];
} sc__tc_inst;

typedef struct sc__tc_an {
    int P, W;            /* ranks; words of a rank bitset */
    safecoll_trace_options opt;
    sc__tc_msg *m;
    size_t nm;
    sc__tc_self *self;   /* by rank, then seq */
    size_t nself;
    size_t *self_at;     /* rank r's kept data: self[self_at[r] .. self_at[r+1]) */
    unsigned char *self_used; /* kept data a tree gather or reduce used */
    char **sites;        /* global site strings by id, [0] NULL */
    uint32_t nsites;
    sc__tc_inst *inst;
    size_t ninst, cap;
    long events, unmatched;
    int64_t t_first, t_last; /* the first and last event's times (ns) */
} sc__tc_an;

/* Bitsets of ranks. */
static inline void sc__tc_bset(uint64_t *s, int r)
{
    s[r >> 6] |= 1ull << (r & 63);
}
static inline int sc__tc_bget(const uint64_t *s, int r)
{
    return (int)((s[r >> 6] >> (r & 63)) & 1u);
}
int sc__tc_bcount(const uint64_t *s, int W);
/* The index of rank r's first kept-data record at position lo or later
 * (self_at[r + 1] when none): a binary search. */
size_t sc__tc_self_from(const sc__tc_an *a, int r, uint64_t lo);

/* Widens the instance's times (both clocks) to message m's. */
void sc__tc_inst_span(sc__tc_inst *in, const sc__tc_msg *m);

/* A new instance with an empty rank set (NULL when out of memory). */
sc__tc_inst *sc__tc_inst_new(sc__tc_an *a, safecoll_trace_kind kind);
/* Adds the sites of message m to the instance's site list (kept unique
 * at the end by sc__tc_inst_sites_done). */
int sc__tc_inst_site(sc__tc_inst *in, uint32_t site);
void sc__tc_inst_sites_done(sc__tc_inst *in);
/* Sets near/whole from the instance's rank set against P and opt.near;
 * returns 0 when the set is too small to report (fewer than min_ranks). */
int sc__tc_inst_classify(sc__tc_an *a, sc__tc_inst *in);

/* tree.c */
int sc__tc_tree(sc__tc_an *a);

/* patterns.c */
int sc__tc_fan(sc__tc_an *a);

/* barrier.c */
int sc__tc_barrier(sc__tc_an *a);

/* load.c: the messages, kept data and sites of the files (which stay the
 * caller's); then their Lamport times. */
int sc__tc_load(sc__tc_an *a, sc__tc_file *files);
int sc__tc_lamport(sc__tc_an *a);

/* bcast.c */
int sc__tc_bcast(sc__tc_an *a);
int sc__tc_compose(sc__tc_an *a);

/* A finding and what the measuring step needs that the public struct
 * does not hold. The public view comes first: safecoll_trace_report_finding
 * hands out a pointer to it. */
typedef struct sc__tc_fnd {
    safecoll_trace_finding f;
    int op;   /* reductions: 0 MPI_SUM, 1 MPI_BXOR; -1 other kinds */
    int elem; /* reductions: the element's bytes (1, 2, 4, 8; 0 bytes), which
               * MPI_SUM's integer type follows (MPI_BXOR runs on MPI_BYTE) */
} sc__tc_fnd;

struct safecoll_trace_report {
    int nprocs;
    long events, messages, unmatched;
    double traced; /* seconds from the first event to the last */
    sc__tc_fnd *f;
    int n;
    char **sites;  /* the global site strings, by id */
    uint32_t nsites;
    /* The measuring step (measure.c): its jobs, those that gave no
     * measurement, and the findings measured; jobs is -1 before it ran. */
    int jobs, jobs_failed, nmeasured;
};

/* report.c: the findings of the instances; frees nothing of a. */
int sc__tc_report_make(sc__tc_an *a, safecoll_trace_report **out);
/* Ranks the findings by the time that could be saved: gain_seconds when
 * measured, else seconds; ties by kind and root. */
void sc__tc_report_rank(safecoll_trace_report *rep);

#endif /* SC_TRACE_ANALYZE_H */
