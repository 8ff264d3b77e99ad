/*
 * The point-to-point wrappers (include/safecoll/p2p.h) and record / replay
 * (SAFECOLL_REPLAY). Off, a wrapper is one branch and the traffic layer's
 * call. Record and replay: see replay.h for the log; here the state.
 *
 *  - Every wrapper call of the rank has a number (ncall, from 1).
 *  - A receive posted with safecoll_irecv / safecoll_imrecv is followed by
 *    its request handle (hash table `ents`, O(1) per look-up) until a
 *    safecoll_ completion
 *    completes it; the completion writes (record) or checks (replay) its
 *    RECV record, whose `post` is the call number of the post.
 *  - Replay binds a wildcard receive at its post: the RECV record with that
 *    post number (`posts`, sorted) gives the source and tag. Other records
 *    are taken in order (`pos`): the call number and kind must be those
 *    logged, else the run has diverged.
 *
 * Each rank starts its mode alone, at its first wrapper call, with no
 * message: a rank that makes no wrapper call (plain MPI_Send, or no
 * point-to-point at all) must not leave the others waiting in an agreement
 * it never joins. Record creates the rank's log; replay reads it whole and
 * checks its peers' log headers (P, rank, program, and the recording id
 * that all logs of one recording share, recid.c), so that a log of
 * another run is found on every rank that reads it. A fault found there
 * cannot be agreed on without a message, so it ends the job (stderr, then
 * MPI_Abort): no rank waits for a rank that stopped. A rank that makes no
 * wrapper call is told so at exit (a constructor arms the check), and a
 * replay names the ranks the recording has no log of.
 */
#define _GNU_SOURCE 1

#include <dlfcn.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "replay.h"
#include "safecoll/p2p.h"
#include "traffic.h"

enum { RP_UNKNOWN, RP_OFF, RP_RECORD, RP_REPLAY, RP_BROKEN };

static int mode = RP_UNKNOWN;
static int world_rank = -1;
static uint32_t ncall;
static int init_rc = MPI_SUCCESS;
static char init_msg[SC_ERROR_MESSAGE];

/* Replay: the records, the next one, the RECV records by post number. */
static sc__rp_rec *recs;
static size_t nrecs, pos;
typedef struct post_ix {
    uint32_t post;
    size_t at;
} post_ix;
static post_ix *posts;
static size_t nposts;
/* Replay: the header of this rank's log (its recording id). */
static sc__rp_header own_header;

/* The followed receive requests: an open-addressing hash table on the
 * handle (linear probing, MPI_REQUEST_NULL marks a free slot, at most half
 * full), grown by doubling, so a post and a completion cost a look-up and
 * no allocation. */
typedef struct ent {
    MPI_Request req;
    void *buf;
    MPI_Datatype type;
    MPI_Comm comm;
    uint32_t post;
} ent;
static ent *ents;
static size_t nents, capents;

/* Scratch of the completions (the handles before the call, the statuses
 * the caller ignores), grown and kept: no allocation per call. */
static MPI_Request *scr_req;
static MPI_Status *scr_st;
static size_t cap_req, cap_st;

/* The off mode's one branch. */
#define OFF() (!SC_TR_UNLIKELY(mode != RP_OFF))

/* ------------------------------------------------------------ call sites */

static void site_str(const void *site, char *out, size_t n)
{
    Dl_info di;

    if (site != NULL && dladdr(site, &di) != 0 && di.dli_fname != NULL) {
        uintptr_t at = (uintptr_t)site - 1;
        if (di.dli_sname != NULL)
            snprintf(out, n, "%s+0x%lx (%s+0x%lx)", di.dli_fname,
                     (unsigned long)(at - (uintptr_t)di.dli_fbase), di.dli_sname,
                     (unsigned long)(at - (uintptr_t)di.dli_saddr));
        else
            snprintf(out, n, "%s+0x%lx", di.dli_fname,
                     (unsigned long)(at - (uintptr_t)di.dli_fbase));
    } else {
        snprintf(out, n, "%p", site);
    }
}

/* The first divergence: reported, raised, and the rank passes through
 * from now on. */
static int diverge(MPI_Comm comm, const char *fn, const void *site, const char *fmt, ...)
    SC_PRINTF(4, 5) SC_COLD;
static int diverge(MPI_Comm comm, const char *fn, const void *site, const char *fmt, ...)
{
    char what[320], where[256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    site_str(site, where, sizeof where);
    sc__error(MPI_ERR_OTHER, "%s: replay diverged on rank %d at call %u: %s; call site %s", fn,
              world_rank, (unsigned)ncall, what, where);
    fprintf(stderr, "libsafecoll: %s\n", safecoll_last_error());
    fflush(stderr);
    sc__error_printed();
    mode = RP_OFF;
    return sc__call_errhandler(comm, MPI_ERR_OTHER);
}

/* ------------------------------------------------------------ set-up */

static void at_exit(void)
{
    sc__rp_log_flush(1);
}

static void on_signal(int sig)
{
    sc__rp_log_flush(1);
    signal(sig, SIG_DFL);
    raise(sig);
}

static int at_finalize(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm;
    (void)key;
    (void)value;
    (void)extra;
    if (mode == RP_RECORD)
        sc__rp_log_flush(0);
    else if (mode == RP_REPLAY && pos + 1 < nrecs)
        fprintf(stderr, "libsafecoll: replay: rank %d reached MPI_Finalize after %u calls with "
                "%zu records of the log not replayed (the log continues at call %u)\n",
                world_rank, (unsigned)ncall, nrecs - 1 - pos, (unsigned)recs[pos].call);
    return MPI_SUCCESS;
}

static int post_cmp(const void *a, const void *b)
{
    const post_ix *x = a, *y = b;
    return x->post < y->post ? -1 : x->post > y->post;
}

static int open_log(const char *spec, int nprocs)
{
    if (strncmp(spec, "record:", 7) == 0 && spec[7] != '\0') {
        mode = RP_RECORD;
        return sc__rp_log_create(spec + 7, nprocs, world_rank);
    }
    if (strncmp(spec, "replay:", 7) == 0 && spec[7] != '\0') {
        int rc;
        mode = RP_REPLAY;
        if ((rc = sc__rp_log_load(spec + 7, nprocs, world_rank, &recs, &nrecs,
                                  &own_header)) != MPI_SUCCESS)
            return rc;
        for (size_t i = 0; i < nrecs; i++)
            nposts += recs[i].kind == SC_RP_RECV;
        posts = malloc((nposts > 0 ? nposts : 1) * sizeof *posts);
        if (posts == NULL)
            return sc__error(MPI_ERR_NO_MEM, "SAFECOLL_REPLAY: out of memory");
        nposts = 0;
        for (size_t i = 0; i < nrecs; i++)
            if (recs[i].kind == SC_RP_RECV)
                posts[nposts++] = (post_ix){recs[i].post, i};
        qsort(posts, nposts, sizeof *posts, post_cmp);
        return MPI_SUCCESS;
    }
    return sc__error(MPI_ERR_ARG, "SAFECOLL_REPLAY='%s': expected record:DIR or replay:DIR", spec);
}

/* A set-up fault on this rank: said on stderr, then the job ends, since
 * the other ranks cannot learn it without a message and would wait for
 * this one. */
static void fatal(int rc)
{
    snprintf(init_msg, sizeof init_msg, "%s", safecoll_last_error());
    fprintf(stderr, "libsafecoll: %s (MPI_Abort: a rank that cannot record or replay ends the "
            "job)\n", init_msg);
    fflush(stderr);
    sc__rp_log_flush(-1);
    init_rc = rc;
    mode = RP_BROKEN;
    sc__sleep(SC_ABORT_GRACE);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* Appends ", rank-R.screp" (the first without the comma) to list, up to
 * 6 names, then ", ...": the names in the directory, which the message
 * names once, so that it fits SC_ERROR_MESSAGE. */
static void name_log(char *list, size_t n, int *count, int r)
{
    size_t at = strlen(list);

    if (++*count <= 6)
        snprintf(list + at, n - at, "%srank-%d.screp", at > 0 ? ", " : "", r);
    else if (*count == 7)
        snprintf(list + at, n - at, ", ...");
}

/* Replay: the logs of one recording share its id (recid.c). With logs of
 * more than one, the files of the id that most logs have (the lowest
 * rank's, on a tie) are this recording's and the others are named: every
 * rank reads the same headers, so every rank says the same. has[r]: rank
 * r has a log, of the recording id[r] from the source src[r]. */
static int check_recording(const char *dir, int nprocs, const int *has, const uint64_t *id,
                           const uint32_t *src)
{
    char odd[128] = "", main_list[128] = "";
    int best = -1, best_n = 0, nodd = 0, nmain = 0;

    for (int r = 0; r < nprocs; r++) {
        int n = 0;
        if (!has[r] || (best >= 0 && id[r] == id[best] && src[r] == src[best]))
            continue;
        for (int q = r; q < nprocs; q++)
            n += has[q] && id[q] == id[r] && src[q] == src[r];
        if (n > best_n) {
            best = r;
            best_n = n;
        }
    }
    if (best < 0)
        return MPI_SUCCESS;
    for (int r = 0; r < nprocs; r++) {
        if (!has[r])
            continue;
        if (id[r] == id[best] && src[r] == src[best])
            name_log(main_list, sizeof main_list, &nmain, r);
        else
            name_log(odd, sizeof odd, &nodd, r);
    }
    if (nodd == 0)
        return MPI_SUCCESS;
    {
        int o = -1;
        for (int r = 0; r < nprocs && o < 0; r++)
            if (has[r] && (id[r] != id[best] || src[r] != src[best]))
                o = r;
        return sc__error(MPI_ERR_BAD_FILE, "SAFECOLL_REPLAY: rank %d: the logs in %s are of "
                         "more than one recording: %s %s of another recording (%s %016llx) "
                         "than %s (%s %016llx), left by an earlier run or copied in; record "
                         "again into an empty directory", world_rank, dir, odd,
                         nodd > 1 ? "are" : "is", sc__rp_job_source(src[o]),
                         (unsigned long long)id[o], main_list, sc__rp_job_source(src[best]),
                         (unsigned long long)id[best]);
    }
}

/* Replay: every peer's log header checked (a log of another run or size
 * is found by every rank that reads the directory, and so is a log of
 * another recording, check_recording); the ranks without a log named
 * once, by the lowest rank that has one. */
static int check_peers(const char *dir, int nprocs)
{
    char list[160] = "";
    int nmissing = 0, lowest = world_rank, rc = MPI_SUCCESS;
    int *has = calloc((size_t)nprocs, sizeof *has);
    uint64_t *id = calloc((size_t)nprocs, sizeof *id);
    uint32_t *src = calloc((size_t)nprocs, sizeof *src);

    if (has == NULL || id == NULL || src == NULL) {
        rc = sc__error(MPI_ERR_NO_MEM, "SAFECOLL_REPLAY: out of memory");
        goto out;
    }
    for (int r = 0; r < nprocs; r++) {
        sc__rp_header h;
        int missing;
        if (r == world_rank) {
            h = own_header;
            missing = 0;
        } else if ((rc = sc__rp_log_peek(dir, nprocs, r, &missing, &h)) != MPI_SUCCESS) {
            char why[SC_ERROR_MESSAGE];
            snprintf(why, sizeof why, "%s", safecoll_last_error());
            rc = sc__error(rc, "%s (found by rank %d)", why, world_rank);
            goto out;
        }
        if (!missing) {
            has[r] = 1;
            id[r] = h.recording;
            src[r] = h.jobsource;
            lowest = r < lowest ? r : lowest;
            continue;
        }
        if (nmissing++ < 8) {
            size_t at = strlen(list);
            snprintf(list + at, sizeof list - at, "%s%d", at > 0 ? ", " : "", r);
        }
    }
    if ((rc = check_recording(dir, nprocs, has, id, src)) != MPI_SUCCESS)
        goto out;
    if (nmissing > 0 && lowest == world_rank) {
        fprintf(stderr, "libsafecoll: replay: %s has no log of %d rank%s (%s%s): %s no "
                "safecoll_ point-to-point call when recorded (or the file was removed), so "
                "none of %s receives is replayed or checked\n",
                dir, nmissing, nmissing > 1 ? "s" : "", list, nmissing > 8 ? ", ..." : "",
                nmissing > 1 ? "they made" : "it made", nmissing > 1 ? "their" : "its");
        fflush(stderr);
    }
out:
    free(has);
    free(id);
    free(src);
    return rc;
}

static void init(void)
{
    const char *spec = sc__env("SAFECOLL_REPLAY");
    int nprocs = 0, rc, key = MPI_KEYVAL_INVALID;

    if (spec == NULL) {
        mode = RP_OFF;
        return;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    rc = open_log(spec, nprocs);
    if (rc == MPI_SUCCESS && mode == RP_REPLAY)
        rc = check_peers(spec + 7, nprocs);
    if (rc != MPI_SUCCESS) {
        fatal(rc);
        return;
    }
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &key, NULL) == MPI_SUCCESS) {
        MPI_Comm_set_attr(MPI_COMM_SELF, key, NULL);
        MPI_Comm_free_keyval(&key);
    }
    if (mode == RP_RECORD) {
        static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT};
        atexit(at_exit);
        for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
            struct sigaction old, sa;
            if (sigaction(sigs[i], NULL, &old) != 0 || old.sa_handler != SIG_DFL ||
                (old.sa_flags & SA_SIGINFO))
                continue; /* the application's handler stays */
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = on_signal;
            sigemptyset(&sa.sa_mask);
            sigaction(sigs[i], &sa, NULL);
        }
    }
}

/* The rank number of this process as its launcher gave it (MPI is
 * finalized by the time the exit check runs), or -1. */
static int launcher_rank(void)
{
    static const char *const vars[] = {"PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK",
                                       "MV2_COMM_WORLD_RANK", "SLURM_PROCID"};
    long long r;

    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        if (v != NULL && sc__parse_long(v, 0, 1LL << 30, &r) == 0)
            return (int)r;
    }
    return -1;
}

/* At exit of an MPI process that made no wrapper call with
 * SAFECOLL_REPLAY set: said on stderr, since no log stands for it
 * (record), or its log was not used (replay). */
static void no_call_check(void)
{
    const char *spec = sc__env("SAFECOLL_REPLAY");
    int inited = 0, r;
    char who[32];

    if (mode != RP_UNKNOWN || spec == NULL || MPI_Initialized(&inited) != MPI_SUCCESS || !inited)
        return;
    r = launcher_rank();
    if (r >= 0)
        snprintf(who, sizeof who, "rank %d", r);
    else
        snprintf(who, sizeof who, "process %ld", (long)getpid());
    if (strncmp(spec, "record:", 7) == 0) {
        fprintf(stderr, "libsafecoll: SAFECOLL_REPLAY=%s: %s made no safecoll_ point-to-point "
                "call, so it has no log: its receives are not recorded\n", spec, who);
    } else if (strncmp(spec, "replay:", 7) == 0 && r >= 0) {
        char path[4096];
        struct stat sb;
        snprintf(path, sizeof path, "%s/rank-%d.screp", spec + 7, r);
        if (stat(path, &sb) == 0)
            fprintf(stderr, "libsafecoll: SAFECOLL_REPLAY=%s: %s made no safecoll_ "
                    "point-to-point call, but the recording did: its log %s was not "
                    "replayed\n", spec, who, path);
    }
    fflush(stderr);
}

/* Arms no_call_check in every process that loads the library with
 * SAFECOLL_REPLAY set: a rank that never reaches a wrapper has no other
 * moment at which the library runs. */
__attribute__((constructor)) static void arm_no_call_check(void)
{
    if (sc__env("SAFECOLL_REPLAY") != NULL)
        atexit(no_call_check);
}

/* Entry of a wrapper call outside off mode: 1 to pass through, 0 to
 * record or replay (the call counted), -1 for a broken set-up (*rc). */
static int enter(MPI_Comm comm, int *rc)
{
    if (mode == RP_UNKNOWN)
        init();
    if (mode == RP_OFF)
        return 1;
    if (mode == RP_BROKEN) {
        sc__error(init_rc, "%s", init_msg);
        *rc = sc__call_errhandler(comm, init_rc);
        return -1;
    }
    ncall++;
    return 0;
}

int safecoll_replay_flush(void)
{
    if (mode != RP_RECORD)
        return MPI_SUCCESS;
    if (sc__rp_log_flush(-1) != MPI_SUCCESS)
        return sc__error(MPI_ERR_FILE, "safecoll_replay_flush: cannot write the record log");
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ payloads */

static const char *kind_name(int k)
{
    static const char *const names[] = {"?",          "a receive", "a probe", "a test",
                                        "an *any completion", "a *some completion",
                                        "an index",   "the end of the log"};
    return k >= 0 && k <= SC_RP_END ? names[k] : "?";
}

static int64_t status_bytes(const MPI_Status *st)
{
    MPI_Count b = 0;
    MPI_Get_elements_x(st, MPI_BYTE, &b);
    return (int64_t)b;
}

/* A common predefined type whose elements lie back to back (size =
 * extent): its payload's CRC needs no MPI query. sc__type_predefined
 * (core/types.c) knows their size and extent; MPI_DOUBLE_INT and the
 * other padded pair types are not among them and take the general path. */
static int is_flat(MPI_Datatype type)
{
    MPI_Count size;
    MPI_Aint extent;

    return sc__type_predefined(type, &size, &extent) && size > 0 && size == extent;
}

/* CRC-32 of the `bytes` bytes a receive of `type` put at buf, computed once
 * over the received bytes: directly on the buffer for a common predefined
 * type (is_flat, no MPI query) and for any other type without holes
 * (size = true extent, and for more than one element extent = size), else
 * over the whole elements packed with MPI_Pack through a kept 64 KiB
 * scratch (a partial last element is left out). */
static int payload_crc(const void *buf, MPI_Datatype type, int64_t bytes, uint32_t *crc)
{
    static char *tmp;
    static size_t tmpsize;
    int tsize, psize;
    MPI_Aint lb, extent, tlb, textent;
    int64_t nel;

    *crc = 0;
    if (bytes <= 0)
        return MPI_SUCCESS;
    if (is_flat(type)) {
        *crc = sc__rp_crc(0, buf, (size_t)bytes);
        return MPI_SUCCESS;
    }
    MPI_Type_size(type, &tsize);
    MPI_Type_get_extent(type, &lb, &extent);
    MPI_Type_get_true_extent(type, &tlb, &textent);
    if (tsize > 0 && textent == tsize && (bytes <= tsize || extent == tsize)) {
        *crc = sc__rp_crc(0, (const char *)buf + tlb, (size_t)bytes);
        return MPI_SUCCESS;
    }
    MPI_Pack_size(1, type, MPI_COMM_SELF, &psize);
    if (tsize <= 0 || psize <= 0)
        return MPI_SUCCESS;
    nel = bytes / tsize;
    int per = psize >= 65536 ? 1 : 65536 / psize;
    if ((size_t)per * (size_t)psize > tmpsize) {
        char *t = realloc(tmp, (size_t)per * (size_t)psize);
        if (t == NULL)
            return sc__error(MPI_ERR_NO_MEM, "SAFECOLL_REPLAY: no memory to pack a payload");
        tmp = t;
        tmpsize = (size_t)per * (size_t)psize;
    }
    for (int64_t i = 0; i < nel; i += per) {
        int m = (int)(nel - i < per ? nel - i : per), at = 0;
        const void *from = (const void *)((uintptr_t)buf + (uintptr_t)(i * (int64_t)extent));
        int rc = MPI_Pack(from, m, type, tmp, per * psize, &at, MPI_COMM_SELF);
        if (rc != MPI_SUCCESS)
            return rc;
        *crc = sc__rp_crc(*crc, tmp, (size_t)at);
    }
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ the log */

static int put(sc__rp_rec r)
{
    r.call = ncall;
    return sc__rp_log_put(&r);
}

/* Replay: the next record, which must be of `kind` at this call. */
static int take(int kind, const sc__rp_rec **r, MPI_Comm comm, const char *fn, const void *site)
{
    if (pos >= nrecs || recs[pos].kind == SC_RP_END)
        return diverge(comm, fn, site, "the program makes %s, but the log ends here (at call %u)",
                       kind_name(kind), pos < nrecs ? (unsigned)recs[pos].call : 0u);
    if (recs[pos].kind != kind || recs[pos].call != ncall)
        return diverge(comm, fn, site, "the program makes %s, the log has %s at call %u",
                       kind_name(kind), kind_name(recs[pos].kind), (unsigned)recs[pos].call);
    *r = &recs[pos++];
    return MPI_SUCCESS;
}

/* The RECV record of the receive posted at call `post`, or NULL. */
static const sc__rp_rec *by_post(uint32_t post)
{
    size_t lo = 0, hi = nposts;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (posts[mid].post < post)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < nposts && posts[lo].post == post ? &recs[posts[lo].at] : NULL;
}

/* A completed receive of buf / type posted at call `post`: its RECV record
 * written (record) or checked (replay). */
static int received(const MPI_Status *st, const void *buf, MPI_Datatype type, uint32_t post,
                    MPI_Comm comm, const char *fn, const void *site)
{
    const sc__rp_rec *r;
    int64_t bytes = status_bytes(st);
    uint32_t crc;
    int rc;

    if ((rc = payload_crc(buf, type, bytes, &crc)) != MPI_SUCCESS)
        return rc;
    if (mode == RP_RECORD)
        return put((sc__rp_rec){.kind = SC_RP_RECV, .a = st->MPI_SOURCE, .b = st->MPI_TAG,
                                .post = post, .crc = crc, .bytes = bytes});
    if ((rc = take(SC_RP_RECV, &r, comm, fn, site)) != MPI_SUCCESS)
        return rc;
    if (r->post != post || r->a != st->MPI_SOURCE || r->b != st->MPI_TAG || r->bytes != bytes ||
        r->crc != crc)
        return diverge(comm, fn, site,
                       "the receive posted at call %u got %lld bytes from source %d tag %d, "
                       "CRC-32 0x%08x; the log has the receive posted at call %u, %lld bytes "
                       "from source %d tag %d, CRC-32 0x%08x",
                       (unsigned)post, (long long)bytes, st->MPI_SOURCE, st->MPI_TAG,
                       (unsigned)crc, (unsigned)r->post, (long long)r->bytes, (int)r->a,
                       (int)r->b, (unsigned)r->crc);
    return MPI_SUCCESS;
}

/* A probe's outcome (flag, status): written or checked. */
static int probed(int flag, const MPI_Status *st, MPI_Comm comm, const char *fn,
                  const void *site, const sc__rp_rec *r)
{
    int64_t bytes = flag ? status_bytes(st) : 0;
    int src = flag ? st->MPI_SOURCE : 0, tag = flag ? st->MPI_TAG : 0;

    if (mode == RP_RECORD)
        return put((sc__rp_rec){.kind = SC_RP_PROBE, .flag = (uint8_t)flag, .a = src, .b = tag,
                                .bytes = bytes});
    if (r->a != src || r->b != tag || r->bytes != bytes)
        return diverge(comm, fn, site,
                       "the probe found %lld bytes from source %d tag %d; the log has %lld "
                       "bytes from source %d tag %d",
                       (long long)bytes, src, tag, (long long)r->bytes, (int)r->a, (int)r->b);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ requests */

static size_t slot_of(MPI_Request req)
{
    uint64_t v = 0;

    memcpy(&v, &req, sizeof req < sizeof v ? sizeof req : sizeof v);
    v ^= v >> 29;
    v *= 0x9e3779b97f4a7c15u;
    return (size_t)(v >> 32) & (capents - 1);
}

/* The slot of req, or of the free slot where it would go. */
static size_t find(MPI_Request req)
{
    size_t i = slot_of(req);

    while (ents[i].req != MPI_REQUEST_NULL && ents[i].req != req)
        i = (i + 1) & (capents - 1);
    return i;
}

static int grow(void)
{
    size_t old = capents, cap = old ? 2 * old : 64;
    ent *prev = ents, *e = malloc(cap * sizeof *e);

    if (e == NULL)
        return sc__error(MPI_ERR_NO_MEM, "SAFECOLL_REPLAY: out of memory for requests");
    for (size_t i = 0; i < cap; i++)
        e[i].req = MPI_REQUEST_NULL;
    ents = e;
    capents = cap;
    for (size_t i = 0; i < old; i++)
        if (prev[i].req != MPI_REQUEST_NULL)
            ents[find(prev[i].req)] = prev[i];
    free(prev);
    return MPI_SUCCESS;
}

static int follow(MPI_Request req, void *buf, MPI_Datatype type, MPI_Comm comm, uint32_t post)
{
    size_t i;
    int rc;

    if (req == MPI_REQUEST_NULL)
        return MPI_SUCCESS;
    if (2 * (nents + 1) > capents && (rc = grow()) != MPI_SUCCESS)
        return rc;
    i = find(req);
    nents += ents[i].req == MPI_REQUEST_NULL;
    ents[i] = (ent){req, buf, type, comm, post};
    return MPI_SUCCESS;
}

/* The followed receive of req, taken out of the table (found = 0: none). */
static ent unfollow(MPI_Request req, int *found)
{
    ent e = {0};
    size_t i, j;

    *found = 0;
    if (req == MPI_REQUEST_NULL || nents == 0)
        return e;
    i = find(req);
    if (ents[i].req == MPI_REQUEST_NULL)
        return e;
    e = ents[i];
    *found = 1;
    nents--;
    /* Backward-shift deletion: the entries after the hole that probed past
     * it move into it, so no tombstones are needed. */
    for (j = (i + 1) & (capents - 1); ents[j].req != MPI_REQUEST_NULL;
         j = (j + 1) & (capents - 1)) {
        size_t home = slot_of(ents[j].req);
        if (((j - home) & (capents - 1)) >= ((j - i) & (capents - 1))) {
            ents[i] = ents[j];
            i = j;
        }
    }
    ents[i].req = MPI_REQUEST_NULL;
    return e;
}

/* Grows *buf to at least m elements of `size` bytes; 0 when out of memory
 * (*buf is kept). */
static int grow_scratch(void **buf, size_t *cap, size_t m, size_t size)
{
    void *b;

    if (m <= *cap)
        return 1;
    if ((b = realloc(*buf, m * size)) == NULL)
        return 0;
    *buf = b;
    *cap = m;
    return 1;
}

/* The handles reqs[0..n) copied to scratch (they become MPI_REQUEST_NULL
 * when a completion frees them), and when sts is MPI_STATUSES_IGNORE
 * scratch statuses for them; NULL when out of memory. */
static MPI_Request *save_reqs(int n, const MPI_Request reqs[], MPI_Status **sts)
{
    size_t m = n > 0 ? (size_t)n : 1;

    if (!grow_scratch((void **)&scr_req, &cap_req, m, sizeof *scr_req))
        return NULL;
    if (sts != NULL && *sts == MPI_STATUSES_IGNORE) {
        if (!grow_scratch((void **)&scr_st, &cap_st, m, sizeof *scr_st))
            return NULL;
        *sts = scr_st;
    }
    if (n > 0)
        memcpy(scr_req, reqs, (size_t)n * sizeof *reqs);
    return scr_req;
}

/* After a completion call that failed: the followed receives it freed are
 * forgotten (their handles may come back for other requests). */
static void forget_freed(int n, const MPI_Request saved[], const MPI_Request reqs[])
{
    int found;

    for (int i = 0; i < n && nents > 0; i++)
        if (saved[i] != MPI_REQUEST_NULL && reqs[i] == MPI_REQUEST_NULL)
            unfollow(saved[i], &found);
}

/* ------------------------------------------------------------ wrappers */

#define ST(st, local) ((st) == MPI_STATUS_IGNORE ? &(local) : (st))
#define SITE() __builtin_return_address(0)
#define WILD(src, tag) ((src) == MPI_ANY_SOURCE || (tag) == MPI_ANY_TAG)

int safecoll_send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm)
{
    int rc = MPI_SUCCESS;

    if (OFF() || enter(comm, &rc) > 0)
        return sc__tr_send(buf, count, datatype, dest, tag, comm);
    return rc != MPI_SUCCESS ? rc
                             : SC_TR_REGION("safecoll_send",
                                            sc__tr_send(buf, count, datatype, dest, tag, comm));
}

int safecoll_isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    int rc = MPI_SUCCESS;

    if (OFF() || enter(comm, &rc) > 0)
        return sc__tr_isend(buf, count, datatype, dest, tag, comm, request);
    return rc != MPI_SUCCESS ? rc : sc__tr_isend(buf, count, datatype, dest, tag, comm, request);
}

static int recv_rr(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm,
                   MPI_Status *status, const void *site)
{
    MPI_Status local;
    MPI_Status *st = ST(status, local);
    const sc__rp_rec *r;
    int rc;

    if (mode == RP_REPLAY && WILD(src, tag)) {
        if (pos >= nrecs || recs[pos].kind != SC_RP_RECV || recs[pos].call != ncall)
            return take(SC_RP_RECV, &r, comm, "safecoll_recv", site);
        r = &recs[pos];
        src = src == MPI_ANY_SOURCE ? r->a : src;
        tag = tag == MPI_ANY_TAG ? r->b : tag;
    }
    if ((rc = sc__tr_recv_st(buf, count, type, src, tag, comm, st)) != MPI_SUCCESS)
        return rc;
    return received(st, buf, type, ncall, comm, "safecoll_recv", site);
}

int safecoll_recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                  MPI_Status *status)
{
    int rc = MPI_SUCCESS;

    if (OFF() || enter(comm, &rc) > 0)
        return sc__tr_recv_st(buf, count, datatype, source, tag, comm, status);
    return rc != MPI_SUCCESS ? rc
                             : SC_TR_REGION("safecoll_recv",
                                            recv_rr(buf, count, datatype, source, tag, comm,
                                                    status, SITE()));
}

int safecoll_irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    int rc = MPI_SUCCESS;

    if (OFF() || enter(comm, &rc) > 0)
        return sc__tr_irecv(buf, count, datatype, source, tag, comm, request);
    if (rc != MPI_SUCCESS)
        return rc;
    if (mode == RP_REPLAY && WILD(source, tag)) {
        /* Never completed in the recording (cancelled, or left at the
         * end): posted as given. */
        const sc__rp_rec *r = by_post(ncall);
        if (r != NULL) {
            source = source == MPI_ANY_SOURCE ? r->a : source;
            tag = tag == MPI_ANY_TAG ? r->b : tag;
        }
    }
    if ((rc = sc__tr_irecv(buf, count, datatype, source, tag, comm, request)) != MPI_SUCCESS)
        return rc;
    return follow(*request, buf, datatype, comm, ncall);
}

/* The probes: kind 0 probe, 1 iprobe, 2 mprobe, 3 improbe. */
static int probe_rr(int kind, int src, int tag, MPI_Comm comm, int *flag, MPI_Message *msg,
                    MPI_Status *status, const char *fn, const void *site)
{
    MPI_Status local;
    MPI_Status *st = ST(status, local);
    const sc__rp_rec *r = NULL;
    int rc, f = 1;

    if (mode == RP_REPLAY) {
        if ((rc = take(SC_RP_PROBE, &r, comm, fn, site)) != MPI_SUCCESS)
            return rc;
        if (!r->flag) {
            if (kind == 0 || kind == 2)
                return diverge(comm, fn, site, "a blocking probe; the log has a failed iprobe");
            *flag = 0;
            if (kind == 3)
                *msg = MPI_MESSAGE_NULL;
            return MPI_SUCCESS;
        }
        src = src == MPI_ANY_SOURCE ? r->a : src;
        tag = tag == MPI_ANY_TAG ? r->b : tag;
        rc = kind < 2 ? sc__tr_probe(src, tag, comm, st) : sc__tr_mprobe(src, tag, comm, msg, st);
    } else {
        switch (kind) {
        case 0:
            rc = sc__tr_probe(src, tag, comm, st);
            break;
        case 1:
            rc = sc__tr_iprobe(src, tag, comm, &f, st);
            break;
        case 2:
            rc = sc__tr_mprobe(src, tag, comm, msg, st);
            break;
        default:
            rc = sc__tr_improbe(src, tag, comm, &f, msg, st);
            break;
        }
    }
    if (rc != MPI_SUCCESS)
        return rc;
    if (kind == 1 || kind == 3)
        *flag = f;
    return probed(f, st, comm, fn, site, r);
}

int safecoll_probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    int rc = MPI_SUCCESS;

    if (OFF() || enter(comm, &rc) > 0)
        return sc__tr_probe(source, tag, comm, status);
    return rc != MPI_SUCCESS ? rc
                             : SC_TR_REGION("safecoll_probe",
                                            probe_rr(0, source, tag, comm, NULL, NULL, status,
                                                     "safecoll_probe", SITE()));
}

int safecoll_iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    int rc = MPI_SUCCESS;

    if (OFF() || enter(comm, &rc) > 0)
        return sc__tr_iprobe(source, tag, comm, flag, status);
    return rc != MPI_SUCCESS ? rc
                             : SC_TR_REGION("safecoll_iprobe",
                                            probe_rr(1, source, tag, comm, flag, NULL, status,
                                                     "safecoll_iprobe", SITE()));
}

int safecoll_mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    int rc = MPI_SUCCESS;

    if (OFF() || enter(comm, &rc) > 0)
        return sc__tr_mprobe(source, tag, comm, message, status);
    return rc != MPI_SUCCESS ? rc
                             : SC_TR_REGION("safecoll_mprobe",
                                            probe_rr(2, source, tag, comm, NULL, message, status,
                                                     "safecoll_mprobe", SITE()));
}

int safecoll_improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                     MPI_Status *status)
{
    int rc = MPI_SUCCESS;

    if (OFF() || enter(comm, &rc) > 0)
        return sc__tr_improbe(source, tag, comm, flag, message, status);
    return rc != MPI_SUCCESS ? rc
                             : SC_TR_REGION("safecoll_improbe",
                                            probe_rr(3, source, tag, comm, flag, message, status,
                                                     "safecoll_improbe", SITE()));
}

static int mrecv_rr(void *buf, int count, MPI_Datatype type, MPI_Message *msg,
                    MPI_Status *status, const void *site)
{
    MPI_Status local;
    MPI_Status *st = ST(status, local);
    int rc = sc__tr_mrecv(buf, count, type, msg, st);

    return rc != MPI_SUCCESS ? rc
                             : received(st, buf, type, ncall, MPI_COMM_NULL, "safecoll_mrecv", site);
}

int safecoll_mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                   MPI_Status *status)
{
    int rc = MPI_SUCCESS;

    if (OFF() || enter(MPI_COMM_NULL, &rc) > 0)
        return sc__tr_mrecv(buf, count, datatype, message, status);
    return rc != MPI_SUCCESS ? rc
                             : SC_TR_REGION("safecoll_mrecv",
                                            mrecv_rr(buf, count, datatype, message, status,
                                                     SITE()));
}

int safecoll_imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                    MPI_Request *request)
{
    int rc = MPI_SUCCESS;

    if (OFF() || enter(MPI_COMM_NULL, &rc) > 0)
        return sc__tr_imrecv(buf, count, datatype, message, request);
    if (rc != MPI_SUCCESS)
        return rc;
    if ((rc = sc__tr_imrecv(buf, count, datatype, message, request)) != MPI_SUCCESS)
        return rc;
    return follow(*request, buf, datatype, MPI_COMM_NULL, ncall);
}

/* ------------------------------------------------------------ completions */

/* Waits for reqs[i] (replay: a logged completion) and checks / writes its
 * receive. */
static int wait_one(MPI_Request *req, MPI_Status *st, const char *fn, const void *site)
{
    int found, rc;
    ent e = unfollow(*req, &found);

    if ((rc = sc__tr_wait_st(req, st)) != MPI_SUCCESS)
        return rc;
    return found ? received(st, e.buf, e.type, e.post, e.comm, fn, site) : MPI_SUCCESS;
}

static int wait_rr(MPI_Request *req, MPI_Status *status, const void *site)
{
    MPI_Status local;

    return wait_one(req, ST(status, local), "safecoll_wait", site);
}

int safecoll_wait(MPI_Request *request, MPI_Status *status)
{
    int rc = MPI_SUCCESS;

    if (OFF() || enter(MPI_COMM_NULL, &rc) > 0)
        return sc__tr_wait_st(request, status);
    return rc != MPI_SUCCESS ? rc
                             : SC_TR_REGION("safecoll_wait", wait_rr(request, status, SITE()));
}

/* waitall (test = 0) or testall (test = 1). */
static int all_rr(int test, int n, MPI_Request reqs[], int *flag, MPI_Status *statuses,
                  const char *fn, const void *site)
{
    MPI_Status *sts = statuses;
    MPI_Request *saved;
    int rc, f = 1;
    const sc__rp_rec *r;

    if (test && mode == RP_REPLAY) {
        if ((rc = take(SC_RP_TEST, &r, MPI_COMM_NULL, fn, site)) != MPI_SUCCESS)
            return rc;
        if (!r->flag) {
            *flag = 0;
            return MPI_SUCCESS;
        }
        test = 2; /* replayed: wait for all */
    }
    if ((saved = save_reqs(n, reqs, &sts)) == NULL)
        return sc__error(MPI_ERR_NO_MEM, "%s: out of memory for %d requests", fn, n);
    rc = test == 1 ? sc__tr_testall_st(n, reqs, &f, sts) : sc__tr_waitall_st(n, reqs, sts);
    if (rc == MPI_SUCCESS && test == 1 && mode == RP_RECORD)
        rc = put((sc__rp_rec){.kind = SC_RP_TEST, .flag = (uint8_t)f});
    if (rc != MPI_SUCCESS) {
        forget_freed(n, saved, reqs);
    } else if (f) {
        for (int i = 0; i < n && nents > 0; i++) {
            int found;
            ent e = unfollow(saved[i], &found);
            if (found && rc == MPI_SUCCESS)
                rc = received(&sts[i], e.buf, e.type, e.post, e.comm, fn, site);
        }
    }
    if (test)
        *flag = f;
    return rc;
}

int safecoll_waitall(int count, MPI_Request requests[], MPI_Status *statuses)
{
    int rc = MPI_SUCCESS;

    if (OFF() || enter(MPI_COMM_NULL, &rc) > 0)
        return sc__tr_waitall_st(count, requests, statuses);
    return rc != MPI_SUCCESS ? rc
                             : SC_TR_REGION("safecoll_waitall",
                                            all_rr(0, count, requests, NULL, statuses,
                                                   "safecoll_waitall", SITE()));
}

int safecoll_testall(int count, MPI_Request requests[], int *flag, MPI_Status *statuses)
{
    int rc = MPI_SUCCESS;

    if (OFF() || enter(MPI_COMM_NULL, &rc) > 0)
        return sc__tr_testall_st(count, requests, flag, statuses);
    return rc != MPI_SUCCESS ? rc
                             : SC_TR_REGION("safecoll_testall",
                                            all_rr(1, count, requests, flag, statuses,
                                                   "safecoll_testall", SITE()));
}

static int test_rr(MPI_Request *req, int *flag, MPI_Status *status, const void *site)
{
    MPI_Status local;
    MPI_Status *st = ST(status, local);
    MPI_Request h = *req;
    const sc__rp_rec *r;
    int found, rc;
    ent e;

    if (mode == RP_REPLAY) {
        if ((rc = take(SC_RP_TEST, &r, MPI_COMM_NULL, "safecoll_test", site)) != MPI_SUCCESS)
            return rc;
        *flag = r->flag;
        return r->flag ? wait_one(req, st, "safecoll_test", site) : MPI_SUCCESS;
    }
    if ((rc = sc__tr_test_st(req, flag, st)) == MPI_SUCCESS)
        rc = put((sc__rp_rec){.kind = SC_RP_TEST, .flag = (uint8_t)*flag});
    if (rc != MPI_SUCCESS)
        forget_freed(1, &h, req);
    else if (*flag) {
        e = unfollow(h, &found);
        if (found)
            rc = received(st, e.buf, e.type, e.post, e.comm, "safecoll_test", site);
    }
    return rc;
}

int safecoll_test(MPI_Request *request, int *flag, MPI_Status *status)
{
    int rc = MPI_SUCCESS;

    if (OFF() || enter(MPI_COMM_NULL, &rc) > 0)
        return sc__tr_test_st(request, flag, status);
    return rc != MPI_SUCCESS ? rc
                             : SC_TR_REGION("safecoll_test",
                                            test_rr(request, flag, status, SITE()));
}

/* waitany (test = 0) or testany (test = 1). */
static int any_rr(int test, int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status,
                  const char *fn, const void *site)
{
    MPI_Status local;
    MPI_Status *st = ST(status, local);
    const sc__rp_rec *r;
    MPI_Request *saved;
    int rc, f = 1;

    if (mode == RP_REPLAY) {
        if ((rc = take(SC_RP_ANY, &r, MPI_COMM_NULL, fn, site)) != MPI_SUCCESS)
            return rc;
        if (test)
            *flag = r->flag;
        if (!r->flag) {
            *index = MPI_UNDEFINED;
            return MPI_SUCCESS;
        }
        if (r->a == MPI_UNDEFINED) {
            /* No active request in the recording either. */
            *index = MPI_UNDEFINED;
            return test ? sc__tr_testany(n, reqs, index, &f, st) : sc__tr_waitany(n, reqs, index, st);
        }
        if (r->a < 0 || r->a >= n || reqs[r->a] == MPI_REQUEST_NULL)
            return diverge(MPI_COMM_NULL, fn, site,
                           "the log completes request %d of %d, which is not active here",
                           (int)r->a, n);
        *index = r->a;
        return wait_one(&reqs[r->a], st, fn, site);
    }
    if ((saved = save_reqs(n, reqs, NULL)) == NULL)
        return sc__error(MPI_ERR_NO_MEM, "%s: out of memory for %d requests", fn, n);
    rc = test ? sc__tr_testany(n, reqs, index, &f, st) : sc__tr_waitany(n, reqs, index, st);
    if (rc == MPI_SUCCESS)
        rc = put((sc__rp_rec){.kind = SC_RP_ANY, .flag = (uint8_t)f,
                              .a = f ? *index : MPI_UNDEFINED});
    if (rc != MPI_SUCCESS) {
        forget_freed(n, saved, reqs);
    } else if (f && *index != MPI_UNDEFINED) {
        int found;
        ent e = unfollow(saved[*index], &found);
        if (found)
            rc = received(st, e.buf, e.type, e.post, e.comm, fn, site);
    }
    if (test)
        *flag = f;
    return rc;
}

int safecoll_waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    int rc = MPI_SUCCESS;

    if (OFF() || enter(MPI_COMM_NULL, &rc) > 0)
        return sc__tr_waitany(count, requests, index, status);
    return rc != MPI_SUCCESS ? rc
                             : SC_TR_REGION("safecoll_waitany",
                                            any_rr(0, count, requests, index, NULL, status,
                                                   "safecoll_waitany", SITE()));
}

int safecoll_testany(int count, MPI_Request requests[], int *index, int *flag,
                     MPI_Status *status)
{
    int rc = MPI_SUCCESS;

    if (OFF() || enter(MPI_COMM_NULL, &rc) > 0)
        return sc__tr_testany(count, requests, index, flag, status);
    return rc != MPI_SUCCESS ? rc
                             : SC_TR_REGION("safecoll_testany",
                                            any_rr(1, count, requests, index, flag, status,
                                                   "safecoll_testany", SITE()));
}

/* waitsome (test = 0) or testsome (test = 1). */
static int some_rr(int test, int n, MPI_Request reqs[], int *outcount, int indices[],
                   MPI_Status *statuses, const char *fn, const void *site)
{
    MPI_Status *sts = statuses;
    MPI_Request *saved;
    const sc__rp_rec *r;
    int rc;

    if ((saved = save_reqs(n, reqs, &sts)) == NULL)
        return sc__error(MPI_ERR_NO_MEM, "%s: out of memory for %d requests", fn, n);
    if (mode == RP_REPLAY) {
        if ((rc = take(SC_RP_SOME, &r, MPI_COMM_NULL, fn, site)) != MPI_SUCCESS)
            return rc;
        if (r->a == MPI_UNDEFINED)
            return test ? sc__tr_testsome(n, reqs, outcount, indices, sts)
                        : sc__tr_waitsome(n, reqs, outcount, indices, sts);
        *outcount = r->a;
        for (int k = 0; k < *outcount; k++) {
            if ((rc = take(SC_RP_INDEX, &r, MPI_COMM_NULL, fn, site)) != MPI_SUCCESS)
                return rc;
            if (r->a < 0 || r->a >= n || reqs[r->a] == MPI_REQUEST_NULL)
                return diverge(MPI_COMM_NULL, fn, site,
                               "the log completes request %d of %d, which is not active here",
                               (int)r->a, n);
            indices[k] = r->a;
        }
        for (int k = 0; k < *outcount; k++)
            if ((rc = sc__tr_wait_st(&reqs[indices[k]], &sts[k])) != MPI_SUCCESS) {
                forget_freed(n, saved, reqs);
                return rc;
            }
    } else {
        rc = test ? sc__tr_testsome(n, reqs, outcount, indices, sts)
                  : sc__tr_waitsome(n, reqs, outcount, indices, sts);
        if (rc == MPI_SUCCESS)
            rc = put((sc__rp_rec){.kind = SC_RP_SOME, .a = *outcount});
        for (int k = 0; rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED && k < *outcount; k++)
            rc = put((sc__rp_rec){.kind = SC_RP_INDEX, .a = indices[k]});
        if (rc != MPI_SUCCESS) {
            forget_freed(n, saved, reqs);
            return rc;
        }
    }
    for (int k = 0; *outcount != MPI_UNDEFINED && k < *outcount; k++) {
        int found;
        ent e = unfollow(saved[indices[k]], &found);
        if (found && rc == MPI_SUCCESS)
            rc = received(&sts[k], e.buf, e.type, e.post, e.comm, fn, site);
    }
    return rc;
}

int safecoll_waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                      MPI_Status *statuses)
{
    int rc = MPI_SUCCESS;

    if (OFF() || enter(MPI_COMM_NULL, &rc) > 0)
        return sc__tr_waitsome(incount, requests, outcount, indices, statuses);
    return rc != MPI_SUCCESS ? rc
                             : SC_TR_REGION("safecoll_waitsome",
                                            some_rr(0, incount, requests, outcount, indices,
                                                    statuses, "safecoll_waitsome", SITE()));
}

int safecoll_testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                      MPI_Status *statuses)
{
    int rc = MPI_SUCCESS;

    if (OFF() || enter(MPI_COMM_NULL, &rc) > 0)
        return sc__tr_testsome(incount, requests, outcount, indices, statuses);
    return rc != MPI_SUCCESS ? rc
                             : SC_TR_REGION("safecoll_testsome",
                                            some_rr(1, incount, requests, outcount, indices,
                                                    statuses, "safecoll_testsome", SITE()));
}
