/*
 * The point-to-point wrappers (include/safecoll/p2p.h; the later ones in
 * more.c) and record / replay (SAFECOLL_REPLAY). Off, a wrapper is one
 * branch and the traffic layer's call. Record and replay: see replay.h
 * for the log; here the state.
 *
 *  - Every wrapper call of the rank has a number (sc__rp_ncall, from 1).
 *  - The receives come from the traffic layer's event stream, to which
 *    record and replay subscribe (the application's messages): the
 *    wrapper that posts a receive gives the stream its call number (the
 *    event's note), and the stream, which follows the request, reports
 *    its completion with the status, the buffer and that number, whatever
 *    wrapper completes it. The subscriber (on_event) writes (record) or
 *    checks (replay) the RECV record, whose `post` is that number. The
 *    hang monitor and other subscribers see the same events.
 *  - Record keeps the RECV records of a call's completions until the call
 *    has written its own record (a test's flag, an *any index, a *some
 *    list), so that the log has them in the order a replay meets them:
 *    a replayed call takes its own record first, to learn what to
 *    complete, then completes it.
 *  - What stays here, outside the stream: replay binds a wildcard receive
 *    before it is posted (the RECV record with that post number, `posts`,
 *    sorted, gives the source and tag), which no event can do since the
 *    post has not happened; and the calls' own outcomes (tests, probes,
 *    indices), which are no messages. Other records are taken in order
 *    (`pos`): the call number and kind must be those logged, else the run
 *    has diverged.
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

int sc__rp_mode = SC_RP_UNKNOWN;
static int world_rank = -1;
uint32_t sc__rp_ncall;
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

/* The subscription to the traffic layer's event stream (record, replay),
 * the RECV records of the current call's completions that wait for the
 * call's own record (record), the first error an event raised in the
 * current call, and the call's name and site for a divergence. */
static int sub_slot = -1;
static sc__rp_rec *queue;
size_t sc__rp_nqueue;
static size_t capqueue;
int sc__rp_ev_rc = MPI_SUCCESS;
const char *sc__rp_cur_fn = "safecoll";
const void *sc__rp_cur_site;

/* ------------------------------------------------------------ call sites */

void sc__rp_site_str(const void *site, char *out, size_t n)
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
    sc__rp_site_str(site, where, sizeof where);
    sc__error(MPI_ERR_OTHER, "%s: replay diverged on rank %d at call %u: %s; call site %s", fn,
              world_rank, (unsigned)sc__rp_ncall, what, where);
    fprintf(stderr, "libsafecoll: %s\n", safecoll_last_error());
    fflush(stderr);
    sc__error_printed();
    sc__rp_mode = SC_RP_OFF;
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
    if (sc__rp_mode == SC_RP_RECORD)
        sc__rp_log_flush(0);
    else if (sc__rp_mode == SC_RP_REPLAY && pos + 1 < nrecs)
        fprintf(stderr, "libsafecoll: replay: rank %d reached MPI_Finalize after %u calls with "
                "%zu records of the log not replayed (the log continues at call %u)\n",
                world_rank, (unsigned)sc__rp_ncall, nrecs - 1 - pos, (unsigned)recs[pos].call);
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
        sc__rp_mode = SC_RP_RECORD;
        return sc__rp_log_create(spec + 7, nprocs, world_rank);
    }
    if (strncmp(spec, "replay:", 7) == 0 && spec[7] != '\0') {
        int rc;
        sc__rp_mode = SC_RP_REPLAY;
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
    sc__rp_mode = SC_RP_BROKEN;
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

static void on_event(const sc__tr_event *ev, void *data);

static void init(void)
{
    const char *spec = sc__env("SAFECOLL_REPLAY");
    int nprocs = 0, rc, key = MPI_KEYVAL_INVALID;

    if (spec == NULL) {
        sc__rp_mode = SC_RP_OFF;
        return;
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    rc = open_log(spec, nprocs);
    if (rc == MPI_SUCCESS && sc__rp_mode == SC_RP_REPLAY)
        rc = check_peers(spec + 7, nprocs);
    if (rc != MPI_SUCCESS) {
        fatal(rc);
        return;
    }
    /* The receives' completions come from the traffic layer's event
     * stream, as every subscriber's do; record and replay read no send
     * and no POSTED event, so the stream spends nothing on them unless
     * another subscriber (the trace recorder) reads them. */
    if ((sub_slot = sc__tr_subscribe(on_event, NULL, SC_TR_WANT_APP | SC_TR_NO_SENDS | SC_TR_NO_POSTS)) < 0) {
        fatal(sc__error(MPI_ERR_INTERN, "SAFECOLL_REPLAY: the traffic layer's %d event "
                        "subscribers are all taken", (int)SC_TR_NSUB));
        return;
    }
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &key, NULL) == MPI_SUCCESS) {
        MPI_Comm_set_attr(MPI_COMM_SELF, key, NULL);
        MPI_Comm_free_keyval(&key);
    }
    if (sc__rp_mode == SC_RP_RECORD) {
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

/* The first of vars[] set to a number in the environment, or -1. */
static int env_number(const char *const *vars, size_t n)
{
    long long r;

    for (size_t i = 0; i < n; i++) {
        const char *v = getenv(vars[i]);
        if (v != NULL && sc__parse_long(v, 0, 1LL << 30, &r) == 0)
            return (int)r;
    }
    return -1;
}

int sc__rp_launcher_rank(void)
{
    static const char *const vars[] = {"PMI_RANK", "OMPI_COMM_WORLD_RANK", "PMIX_RANK",
                                       "MV2_COMM_WORLD_RANK", "SLURM_PROCID"};
    return env_number(vars, sizeof vars / sizeof vars[0]);
}

int sc__rp_launcher_size(void)
{
    static const char *const vars[] = {"PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE",
                                       "MV2_COMM_WORLD_SIZE", "SLURM_NTASKS"};
    return env_number(vars, sizeof vars / sizeof vars[0]);
}

/* At exit of an MPI process that made no wrapper call with
 * SAFECOLL_REPLAY set: said on stderr, since no log stands for it
 * (record), or its log was not used (replay). */
static void no_call_check(void)
{
    const char *spec = sc__env("SAFECOLL_REPLAY");
    int inited = 0, r;
    char who[32];

    if (sc__rp_mode != SC_RP_UNKNOWN || spec == NULL || MPI_Initialized(&inited) != MPI_SUCCESS ||
        !inited)
        return;
    r = sc__rp_launcher_rank();
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

int sc__rp_enter_slow(MPI_Comm comm, int *rc, const char *fn, const void *site)
{
    if (sc__rp_mode == SC_RP_UNKNOWN)
        init();
    if (sc__rp_mode == SC_RP_OFF)
        return 1;
    if (sc__rp_mode == SC_RP_BROKEN) {
        sc__error(init_rc, "%s", init_msg);
        *rc = sc__call_errhandler(comm, init_rc);
        return -1;
    }
    sc__rp_ncall++;
    sc__rp_cur_fn = fn;
    sc__rp_cur_site = site;
    return 0;
}

int safecoll_replay_flush(void)
{
    if (sc__rp_mode != SC_RP_RECORD)
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

/* CRC-32 of the `bytes` bytes a receive of `type` put at buf, computed once
 * over the received bytes (sc__rp_payload_walk, crc.c). */
static void crc_piece(void *ctx, const void *p, size_t n)
{
    uint32_t *crc = ctx;
    *crc = sc__rp_crc(*crc, p, n);
}

static int payload_crc(const void *buf, MPI_Datatype type, int64_t bytes, uint32_t *crc)
{
    *crc = 0;
    /* The common case, a common predefined type without holes, without
     * the walk's indirect call. */
    if (bytes > 0 && sc__rp_type_flat(type)) {
        *crc = sc__rp_crc(0, buf, (size_t)bytes);
        return MPI_SUCCESS;
    }
    return sc__rp_payload_walk(buf, type, bytes, crc_piece, crc);
}

/* ------------------------------------------------------------ the log */

static int put(sc__rp_rec r)
{
    r.call = sc__rp_ncall;
    return sc__rp_log_put(&r);
}

/* Replay: the next record, which must be of `kind` at this call. */
static int take(int kind, const sc__rp_rec **r, MPI_Comm comm, const char *fn, const void *site)
{
    if (pos >= nrecs || recs[pos].kind == SC_RP_END)
        return diverge(comm, fn, site, "the program makes %s, but the log ends here (at call %u)",
                       kind_name(kind), pos < nrecs ? (unsigned)recs[pos].call : 0u);
    if (recs[pos].kind != kind || recs[pos].call != sc__rp_ncall)
        return diverge(comm, fn, site, "the program makes %s, the log has %s at call %u",
                       kind_name(kind), kind_name(recs[pos].kind), (unsigned)recs[pos].call);
    *r = &recs[pos++];
    return MPI_SUCCESS;
}

/* The RECV record of the receive posted at call `post`, or NULL. */
static const sc__rp_rec *by_post(uint32_t post)
{
    static size_t cur; /* where the last search ended */
    size_t lo = 0, hi = nposts;

    /* The post numbers a replay asks for mostly grow call by call, so the
     * answer is usually at or just after the last one: looked at first,
     * before a binary search over the whole log (as many probes as the
     * log has RECV records' bits). Either way the first entry of at least
     * post, as the binary search alone finds it. */
    if (cur < nposts && (cur == 0 || posts[cur - 1].post < post)) {
        if (posts[cur].post >= post)
            hi = lo = cur;
        else if (cur + 1 < nposts && posts[cur + 1].post >= post)
            hi = lo = cur + 1;
        else
            lo = cur + 1;
    }

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (posts[mid].post < post)
            lo = mid + 1;
        else
            hi = mid;
    }
    cur = lo;
    return lo < nposts && posts[lo].post == post ? &recs[posts[lo].at] : NULL;
}

int sc__rp_force_now(int *src, int *tag, MPI_Comm comm)
{
    const sc__rp_rec *r;

    if (sc__rp_mode != SC_RP_REPLAY || !(*src == MPI_ANY_SOURCE || *tag == MPI_ANY_TAG))
        return MPI_SUCCESS;
    if (pos >= nrecs || recs[pos].kind != SC_RP_RECV || recs[pos].call != sc__rp_ncall)
        return take(SC_RP_RECV, &r, comm, sc__rp_cur_fn, sc__rp_cur_site);
    r = &recs[pos];
    *src = *src == MPI_ANY_SOURCE ? r->a : *src;
    *tag = *tag == MPI_ANY_TAG ? r->b : *tag;
    return MPI_SUCCESS;
}

void sc__rp_force_post(uint32_t post, int *src, int *tag)
{
    const sc__rp_rec *r;

    if (sc__rp_mode != SC_RP_REPLAY || !(*src == MPI_ANY_SOURCE || *tag == MPI_ANY_TAG))
        return;
    /* Never completed in the recording (cancelled, freed, or left at the
     * end): posted as given. */
    if ((r = by_post(post)) != NULL) {
        *src = *src == MPI_ANY_SOURCE ? r->a : *src;
        *tag = *tag == MPI_ANY_TAG ? r->b : *tag;
    }
}

/* ------------------------------------------------------------ the event stream */

/* Record: a RECV record kept for the end of the call (sc__rp_finish). */
static int enqueue(sc__rp_rec r)
{
    if (sc__rp_nqueue == capqueue) {
        size_t cap = capqueue ? 2 * capqueue : 16;
        sc__rp_rec *q = realloc(queue, cap * sizeof *q);
        if (q == NULL)
            return sc__error(MPI_ERR_NO_MEM, "SAFECOLL_REPLAY: out of memory for records");
        queue = q;
        capqueue = cap;
    }
    queue[sc__rp_nqueue++] = r;
    return MPI_SUCCESS;
}

/* A completed receive of the application (the stream's COMPLETED event):
 * its RECV record kept (record) or checked (replay). The post number is
 * the event's note, which the wrapper that posted gave the stream. */
static int received(const sc__tr_event *ev)
{
    const sc__rp_rec *r;
    const int64_t bytes = (int64_t)ev->bytes;
    uint32_t crc;
    int rc;

    if ((rc = payload_crc(ev->buf, ev->type, bytes, &crc)) != MPI_SUCCESS)
        return rc;
    if (sc__rp_mode == SC_RP_RECORD)
        return enqueue((sc__rp_rec){.kind = SC_RP_RECV, .a = ev->peer, .b = ev->tag,
                                    .post = ev->note, .crc = crc, .bytes = bytes});
    if ((rc = take(SC_RP_RECV, &r, ev->comm, sc__rp_cur_fn, sc__rp_cur_site)) != MPI_SUCCESS)
        return rc;
    if (r->post != ev->note || r->a != ev->peer || r->b != ev->tag || r->bytes != bytes ||
        r->crc != crc)
        return diverge(ev->comm, sc__rp_cur_fn, sc__rp_cur_site,
                       "the receive posted at call %u got %lld bytes from source %d tag %d, "
                       "CRC-32 0x%08x; the log has the receive posted at call %u, %lld bytes "
                       "from source %d tag %d, CRC-32 0x%08x",
                       (unsigned)ev->note, (long long)bytes, ev->peer, ev->tag, (unsigned)crc,
                       (unsigned)r->post, (long long)r->bytes, (int)r->a, (int)r->b,
                       (unsigned)r->crc);
    return MPI_SUCCESS;
}

/* The subscriber: the application's completed receives, while recording
 * or replaying. Sends need no record (their match is the receiver's),
 * and posts none (a wildcard is bound before its post, in the wrapper). */
static void on_event(const sc__tr_event *ev, void *data)
{
    int rc;

    (void)data;
    if (ev->kind != SC_TR_COMPLETED || ev->dir != SC_TR_RECV || ev->note == 0 ||
        (sc__rp_mode != SC_RP_RECORD && sc__rp_mode != SC_RP_REPLAY))
        return;
    if ((rc = received(ev)) != MPI_SUCCESS && sc__rp_ev_rc == MPI_SUCCESS)
        sc__rp_ev_rc = rc;
}

int sc__rp_finish_slow(int rc)
{
    for (size_t i = 0; i < sc__rp_nqueue; i++)
        if (rc == MPI_SUCCESS && sc__rp_mode == SC_RP_RECORD)
            rc = put(queue[i]);
    sc__rp_nqueue = 0;
    if (sc__rp_ev_rc != MPI_SUCCESS) {
        if (rc == MPI_SUCCESS)
            rc = sc__rp_ev_rc;
        sc__rp_ev_rc = MPI_SUCCESS;
    }
    return rc;
}

/* A probe's outcome (flag, status): written or checked. */
static int probed(int flag, const MPI_Status *st, MPI_Comm comm, const char *fn,
                  const void *site, const sc__rp_rec *r)
{
    int64_t bytes = flag ? (int64_t)sc__status_bytes(st) : 0;
    int src = flag ? st->MPI_SOURCE : 0, tag = flag ? st->MPI_TAG : 0;

    if (sc__rp_mode == SC_RP_RECORD)
        return put((sc__rp_rec){.kind = SC_RP_PROBE, .flag = (uint8_t)flag, .a = src, .b = tag,
                                .bytes = bytes});
    if (r->a != src || r->b != tag || r->bytes != bytes)
        return diverge(comm, fn, site,
                       "the probe found %lld bytes from source %d tag %d; the log has %lld "
                       "bytes from source %d tag %d",
                       (long long)bytes, src, tag, (long long)r->bytes, (int)r->a, (int)r->b);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ wrappers */

#define ST(st, local) ((st) == MPI_STATUS_IGNORE ? &(local) : (st))
#define SITE() SC_RP_SITE()
#define N sc__rp_ncall
#define WRAP SC_RP_WRAP

int safecoll_send(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                  MPI_Comm comm)
{
    WRAP(safecoll_send, comm,
         sc__tr_app_send(SC_TR_OP_SEND, buf, count, datatype, dest, tag, comm, SITE(), 0),
         sc__tr_app_send(SC_TR_OP_SEND, buf, count, datatype, dest, tag, comm, SITE(), N));
}

int safecoll_isend(const void *buf, int count, MPI_Datatype datatype, int dest, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    WRAP(safecoll_isend, comm,
         sc__tr_app_isend(SC_TR_OP_ISEND, buf, count, datatype, dest, tag, comm, request, SITE(),
                          0),
         sc__tr_app_isend(SC_TR_OP_ISEND, buf, count, datatype, dest, tag, comm, request, SITE(),
                          N));
}

static int recv_rr(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm,
                   MPI_Status *status, const void *site)
{
    int rc = sc__rp_force_now(&src, &tag, comm);

    return rc != MPI_SUCCESS ? rc
                             : sc__tr_app_recv(buf, count, type, src, tag, comm, status, site, N);
}

int safecoll_recv(void *buf, int count, MPI_Datatype datatype, int source, int tag, MPI_Comm comm,
                  MPI_Status *status)
{
    WRAP(safecoll_recv, comm,
         sc__tr_app_recv(buf, count, datatype, source, tag, comm, status, SITE(), 0),
         recv_rr(buf, count, datatype, source, tag, comm, status, SITE()));
}

static int irecv_rr(void *buf, int count, MPI_Datatype type, int src, int tag, MPI_Comm comm,
                    MPI_Request *req, const void *site)
{
    sc__rp_force_post(N, &src, &tag);
    return sc__tr_app_irecv(SC_TR_OP_IRECV, buf, count, type, src, tag, comm, req, site, N);
}

int safecoll_irecv(void *buf, int count, MPI_Datatype datatype, int source, int tag,
                   MPI_Comm comm, MPI_Request *request)
{
    WRAP(safecoll_irecv, comm,
         sc__tr_app_irecv(SC_TR_OP_IRECV, buf, count, datatype, source, tag, comm, request,
                          SITE(), 0),
         irecv_rr(buf, count, datatype, source, tag, comm, request, SITE()));
}

/* The probes: kind 0 probe, 1 iprobe, 2 mprobe, 3 improbe. */
static int probe_rr(int kind, int src, int tag, MPI_Comm comm, int *flag, MPI_Message *msg,
                    MPI_Status *status, const char *fn, const void *site)
{
    MPI_Status local;
    MPI_Status *st = ST(status, local);
    const sc__rp_rec *r = NULL;
    int rc, f = 1;

    if (sc__rp_mode == SC_RP_REPLAY) {
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
    WRAP(safecoll_probe, comm, sc__tr_probe(source, tag, comm, status),
         probe_rr(0, source, tag, comm, NULL, NULL, status, "safecoll_probe", SITE()));
}

int safecoll_iprobe(int source, int tag, MPI_Comm comm, int *flag, MPI_Status *status)
{
    WRAP(safecoll_iprobe, comm, sc__tr_iprobe(source, tag, comm, flag, status),
         probe_rr(1, source, tag, comm, flag, NULL, status, "safecoll_iprobe", SITE()));
}

int safecoll_mprobe(int source, int tag, MPI_Comm comm, MPI_Message *message, MPI_Status *status)
{
    WRAP(safecoll_mprobe, comm, sc__tr_mprobe(source, tag, comm, message, status),
         probe_rr(2, source, tag, comm, NULL, message, status, "safecoll_mprobe", SITE()));
}

int safecoll_improbe(int source, int tag, MPI_Comm comm, int *flag, MPI_Message *message,
                     MPI_Status *status)
{
    WRAP(safecoll_improbe, comm, sc__tr_improbe(source, tag, comm, flag, message, status),
         probe_rr(3, source, tag, comm, flag, message, status, "safecoll_improbe", SITE()));
}

int safecoll_mrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                   MPI_Status *status)
{
    WRAP(safecoll_mrecv, MPI_COMM_NULL,
         sc__tr_app_mrecv(buf, count, datatype, message, status, SITE(), 0),
         sc__tr_app_mrecv(buf, count, datatype, message, status, SITE(), N));
}

int safecoll_imrecv(void *buf, int count, MPI_Datatype datatype, MPI_Message *message,
                    MPI_Request *request)
{
    WRAP(safecoll_imrecv, MPI_COMM_NULL,
         sc__tr_app_imrecv(buf, count, datatype, message, request, SITE(), 0),
         sc__tr_app_imrecv(buf, count, datatype, message, request, SITE(), N));
}

/* ------------------------------------------------------------ completions */

/* The completions below report each followed receive they complete to
 * the event stream, whose subscriber (on_event) writes or checks its RECV
 * record; what stays here is the record of what the call itself returned
 * (a test's flag, an index) and, in replay, making the call return the
 * logged one: a replay completes the logged request with a wait. */

static int wait_one(MPI_Request *req, MPI_Status *st, const void *site)
{
    return sc__tr_app_complete(SC_TR_WAIT, 1, req, NULL, NULL, NULL, st, site);
}

int safecoll_wait(MPI_Request *request, MPI_Status *status)
{
    WRAP(safecoll_wait, MPI_COMM_NULL,
         sc__tr_app_complete(SC_TR_WAIT, 1, request, NULL, NULL, NULL, status, SITE()),
         wait_one(request, status, SITE()));
}

/* waitall (test = 0) or testall (test = 1). */
static int all_rr(int test, int n, MPI_Request reqs[], int *flag, MPI_Status *statuses,
                  const char *fn, const void *site)
{
    const sc__rp_rec *r;
    int rc, f = 1;

    if (test && sc__rp_mode == SC_RP_REPLAY) {
        if ((rc = take(SC_RP_TEST, &r, MPI_COMM_NULL, fn, site)) != MPI_SUCCESS)
            return rc;
        *flag = r->flag;
        if (!r->flag)
            return MPI_SUCCESS;
        test = 0; /* replayed: wait for all */
    }
    rc = sc__tr_app_complete(test ? SC_TR_TESTALL : SC_TR_WAITALL, n, reqs, NULL, &f, NULL,
                             statuses, site);
    if (rc == MPI_SUCCESS && test) {
        *flag = f;
        if (sc__rp_mode == SC_RP_RECORD)
            rc = put((sc__rp_rec){.kind = SC_RP_TEST, .flag = (uint8_t)f});
    }
    return rc;
}

int safecoll_waitall(int count, MPI_Request requests[], MPI_Status *statuses)
{
    WRAP(safecoll_waitall, MPI_COMM_NULL,
         sc__tr_app_complete(SC_TR_WAITALL, count, requests, NULL, NULL, NULL, statuses, SITE()),
         all_rr(0, count, requests, NULL, statuses, "safecoll_waitall", SITE()));
}

int safecoll_testall(int count, MPI_Request requests[], int *flag, MPI_Status *statuses)
{
    WRAP(safecoll_testall, MPI_COMM_NULL,
         sc__tr_app_complete(SC_TR_TESTALL, count, requests, NULL, flag, NULL, statuses, SITE()),
         all_rr(1, count, requests, flag, statuses, "safecoll_testall", SITE()));
}

static int test_rr(MPI_Request *req, int *flag, MPI_Status *status, const void *site)
{
    const sc__rp_rec *r;
    int rc;

    if (sc__rp_mode == SC_RP_REPLAY) {
        if ((rc = take(SC_RP_TEST, &r, MPI_COMM_NULL, "safecoll_test", site)) != MPI_SUCCESS)
            return rc;
        *flag = r->flag;
        return r->flag ? wait_one(req, status, site) : MPI_SUCCESS;
    }
    if ((rc = sc__tr_app_complete(SC_TR_TEST, 1, req, NULL, flag, NULL, status, site)) ==
        MPI_SUCCESS)
        rc = put((sc__rp_rec){.kind = SC_RP_TEST, .flag = (uint8_t)*flag});
    return rc;
}

int safecoll_test(MPI_Request *request, int *flag, MPI_Status *status)
{
    WRAP(safecoll_test, MPI_COMM_NULL,
         sc__tr_app_complete(SC_TR_TEST, 1, request, NULL, flag, NULL, status, SITE()),
         test_rr(request, flag, status, SITE()));
}

/* waitany (test = 0) or testany (test = 1). */
static int any_rr(int test, int n, MPI_Request reqs[], int *index, int *flag, MPI_Status *status,
                  const char *fn, const void *site)
{
    const sc__tr_cop cop = test ? SC_TR_TESTANY : SC_TR_WAITANY;
    const sc__rp_rec *r;
    int rc, f = 1;

    if (sc__rp_mode == SC_RP_REPLAY) {
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
            return sc__tr_app_complete(cop, n, reqs, index, &f, NULL, status, site);
        }
        if (r->a < 0 || r->a >= n || reqs[r->a] == MPI_REQUEST_NULL)
            return diverge(MPI_COMM_NULL, fn, site,
                           "the log completes request %d of %d, which is not active here",
                           (int)r->a, n);
        *index = r->a;
        return wait_one(&reqs[r->a], status, site);
    }
    rc = sc__tr_app_complete(cop, n, reqs, index, &f, NULL, status, site);
    if (rc == MPI_SUCCESS)
        rc = put((sc__rp_rec){.kind = SC_RP_ANY, .flag = (uint8_t)f,
                              .a = f ? *index : MPI_UNDEFINED});
    if (test)
        *flag = f;
    return rc;
}

int safecoll_waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    WRAP(safecoll_waitany, MPI_COMM_NULL,
         sc__tr_app_complete(SC_TR_WAITANY, count, requests, index, NULL, NULL, status, SITE()),
         any_rr(0, count, requests, index, NULL, status, "safecoll_waitany", SITE()));
}

int safecoll_testany(int count, MPI_Request requests[], int *index, int *flag,
                     MPI_Status *status)
{
    WRAP(safecoll_testany, MPI_COMM_NULL,
         sc__tr_app_complete(SC_TR_TESTANY, count, requests, index, flag, NULL, status, SITE()),
         any_rr(1, count, requests, index, flag, status, "safecoll_testany", SITE()));
}

/* waitsome (test = 0) or testsome (test = 1). */
static int some_rr(int test, int n, MPI_Request reqs[], int *outcount, int indices[],
                   MPI_Status *statuses, const char *fn, const void *site)
{
    const sc__tr_cop cop = test ? SC_TR_TESTSOME : SC_TR_WAITSOME;
    const sc__rp_rec *r;
    int rc;

    if (sc__rp_mode == SC_RP_REPLAY) {
        if ((rc = take(SC_RP_SOME, &r, MPI_COMM_NULL, fn, site)) != MPI_SUCCESS)
            return rc;
        if (r->a == MPI_UNDEFINED)
            return sc__tr_app_complete(cop, n, reqs, outcount, NULL, indices, statuses, site);
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
            if ((rc = wait_one(&reqs[indices[k]],
                               statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[k],
                               site)) != MPI_SUCCESS)
                return rc;
        return MPI_SUCCESS;
    }
    rc = sc__tr_app_complete(cop, n, reqs, outcount, NULL, indices, statuses, site);
    if (rc == MPI_SUCCESS)
        rc = put((sc__rp_rec){.kind = SC_RP_SOME, .a = *outcount});
    for (int k = 0; rc == MPI_SUCCESS && *outcount != MPI_UNDEFINED && k < *outcount; k++)
        rc = put((sc__rp_rec){.kind = SC_RP_INDEX, .a = indices[k]});
    return rc;
}

int safecoll_waitsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                      MPI_Status *statuses)
{
    WRAP(safecoll_waitsome, MPI_COMM_NULL,
         sc__tr_app_complete(SC_TR_WAITSOME, incount, requests, outcount, NULL, indices,
                             statuses, SITE()),
         some_rr(0, incount, requests, outcount, indices, statuses, "safecoll_waitsome",
                 SITE()));
}

int safecoll_testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                      MPI_Status *statuses)
{
    WRAP(safecoll_testsome, MPI_COMM_NULL,
         sc__tr_app_complete(SC_TR_TESTSOME, incount, requests, outcount, NULL, indices,
                             statuses, SITE()),
         some_rr(1, incount, requests, outcount, indices, statuses, "safecoll_testsome",
                 SITE()));
}
