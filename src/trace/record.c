/*
 * The trace recorder (issue 33, section 2): SAFECOLL_TRACE=DIR writes every
 * point-to-point message of the traffic layer's event stream to
 * DIR/trace.<rank> (trace.h), for the offline analyzer (analyze.c).
 *
 * It is one subscriber of the stream (traffic.h), beside record and replay
 * and the hang monitor, so the three run together. It subscribes when the
 * library is loaded with SAFECOLL_TRACE set, before any message, so that
 * the stream follows every request from its post. What it writes:
 *  - a send when posted, with its destination, tag and payload hashes;
 *  - a receive when completed, with the matched source, tag and byte count
 *    of its status and the hashes of what arrived;
 *  - safecoll_trace_self(): the data a rank keeps (paper 001's
 *    Send_To_Self), so that scatters, gathers and reductions are found.
 * Each with the communicator's stable id, peers as ranks of
 * MPI_COMM_WORLD, the datatype's signature hash, the time and the call
 * site. The library's own messages (its strategies and agreement on its
 * private communicators) are written flagged: the analyzer leaves them
 * out, since they are not the application's to replace.
 *
 * No message of its own, ever: a rank opens its file at its first recorded
 * event (MPI is then initialized), with the recording id every rank of the
 * job computes alone (the replay log's, recid.c), so that a rank that
 * makes no wrapper call hangs nothing. It closes the file at MPI_Finalize
 * (an attribute of MPI_COMM_SELF), at exit() and on a fatal signal; a rank
 * that recorded nothing writes an empty trace at exit and says so.
 *
 * Times: CLOCK_REALTIME (the event stream's clock, src/traffic/clock.c),
 * so that the ranks of one node share a clock; each
 * file stores its origin and the analyzer aligns the files on it. Across
 * nodes the times are as good as the nodes' clock synchronisation
 * (doc/trace.md).
 *
 * Threads: events come on any thread (the application's, the non-blocking
 * engine's progress thread); one mutex guards the writer, the site map and
 * the communicator memo.
 */
#define _GNU_SOURCE 1

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "replay.h"
#include "safecoll/p2p.h"
#include "trace.h"
#include "traffic.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static char *dir;         /* NULL: SAFECOLL_TRACE unset or bad, the recorder is off */
static int region;        /* SAFECOLL_TRACE=region:DIR: only between start and stop */
static atomic_int on;     /* recording now */
static sc__tc_writer *w;  /* open from the first recorded event to the close */
static int state;         /* 0 not opened, 1 open, 2 closed, 3 broken (said once) */
static int world_rank = -1;
static int comm_key = MPI_KEYVAL_INVALID;

/* ------------------------------------------------------------ time */

static int64_t now_ns(void)
{
    struct timespec t;

    clock_gettime(CLOCK_REALTIME, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static int64_t origin;

/* ------------------------------------------------------------ call sites */

/* Return addresses to site ids: open addressing, at most half full. */
typedef struct site_ent {
    const void *pc;
    uint32_t id;
} site_ent;

static site_ent *sites;
static size_t nsites, capsites;

static size_t pc_slot(const void *pc, size_t cap)
{
    uint64_t v = (uint64_t)(uintptr_t)pc;

    v ^= v >> 31;
    v *= 0x9e3779b97f4a7c15ull;
    return (size_t)(v >> 20) & (cap - 1);
}

/* The id of a site seen for the first time (site_id). */
static __attribute__((noinline)) uint32_t site_new(const void *pc, int is_text)
{
    char text[512];
    uint32_t id;

    if (2 * (nsites + 1) > capsites) {
        size_t cap = capsites ? 2 * capsites : 64;
        site_ent *t = calloc(cap, sizeof *t);
        if (t == NULL)
            return 0;
        for (size_t i = 0; i < capsites; i++)
            if (sites[i].pc != NULL) {
                size_t j = pc_slot(sites[i].pc, cap);
                while (t[j].pc != NULL)
                    j = (j + 1) & (cap - 1);
                t[j] = sites[i];
            }
        free(sites);
        sites = t;
        capsites = cap;
    }
    /* A line the switch header named is its own text; the literal's
     * address is its key (no return address is in read-only data). */
    if (is_text)
        snprintf(text, sizeof text, "%s", (const char *)pc);
    else
        sc__rp_site_str(pc, text, sizeof text);
    if ((id = sc__tc_writer_site(w, text)) == 0)
        return 0;
    size_t j = pc_slot(pc, capsites);
    while (sites[j].pc != NULL)
        j = (j + 1) & (capsites - 1);
    sites[j] = (site_ent){pc, id};
    nsites++;
    return id;
}

/* The id of a call site (lock held): a lookup, but for a site's first
 * event, which names it to the writer. */
static inline uint32_t site_id(const void *pc, int is_text)
{
    if (pc == NULL)
        return 0;
    if (capsites > 0)
        for (size_t i = pc_slot(pc, capsites); sites[i].pc != NULL; i = (i + 1) & (capsites - 1))
            if (sites[i].pc == pc)
                return sites[i].id;
    return site_new(pc, is_text);
}

/* ------------------------------------------------------------ communicators */

/* What the recorder keeps of a communicator (an attribute): its stable id
 * and the MPI_COMM_WORLD ranks of the group its peers are in (the remote
 * group of an intercommunicator). */
typedef struct comm_info {
    uint32_t id;
    int n;
    int world[];
} comm_info;

/* The last communicator other than MPI_COMM_WORLD that comm_of answered
 * (lock held): one compare instead of MPI_Comm_get_attr per message. The
 * attribute's delete callback forgets it, so a freed handle that MPI
 * gives again to another communicator is never taken for the old one. */
static MPI_Comm last_comm = MPI_COMM_NULL;
static comm_info *last_info;

static int comm_info_free(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm;
    (void)key;
    (void)extra;
    /* Never called with the lock held: comm_of sets the attribute only
     * where it has none, and the recorder frees no communicator. */
    pthread_mutex_lock(&lock);
    if (last_info == value) {
        last_comm = MPI_COMM_NULL;
        last_info = NULL;
    }
    pthread_mutex_unlock(&lock);
    free(value);
    return MPI_SUCCESS;
}

static uint32_t fnv32(uint32_t h, const void *p, size_t n)
{
    const unsigned char *c = p;

    for (size_t i = 0; i < n; i++) {
        h ^= c[i];
        h *= 16777619u;
    }
    return h;
}

/* The world ranks of g into out[0 .. n-1] (-1 for a process outside
 * MPI_COMM_WORLD); the hash of that list. */
static uint32_t group_world(MPI_Group g, int n, int *out)
{
    MPI_Group wg;
    int *ix = malloc(sizeof *ix * (size_t)(n > 0 ? n : 1));
    uint32_t h = 2166136261u;

    if (ix == NULL)
        return 0;
    for (int i = 0; i < n; i++)
        ix[i] = i;
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    MPI_Group_translate_ranks(g, n, ix, wg, out);
    MPI_Group_free(&wg);
    for (int i = 0; i < n; i++) {
        if (out[i] == MPI_UNDEFINED)
            out[i] = -1;
        h = fnv32(h, &out[i], sizeof out[i]);
    }
    free(ix);
    return h;
}

/* The id of comm: 0 for MPI_COMM_WORLD; else a hash of its group's world
 * ranks, the same on every member without a message (for an
 * intercommunicator, of both groups, in an order both sides see alike).
 * Communicators of one group share an id (MPI_Comm_dup's): doc/trace.md. */
static const comm_info *comm_of(MPI_Comm comm)
{
    static comm_info world_info = {0, 0};
    comm_info *ci = NULL;
    MPI_Group g, lg;
    int flag = 0, inter = 0, n = 0, ln = 0;
    uint32_t h, hl;

    if (comm == MPI_COMM_WORLD || comm == MPI_COMM_NULL)
        return &world_info;
    if (comm == last_comm)
        return last_info;
    if (comm_key == MPI_KEYVAL_INVALID &&
        MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, comm_info_free, &comm_key, NULL) !=
            MPI_SUCCESS)
        return NULL;
    if (MPI_Comm_get_attr(comm, comm_key, &ci, &flag) == MPI_SUCCESS && flag) {
        last_comm = comm;
        last_info = ci;
        return ci;
    }
    MPI_Comm_test_inter(comm, &inter);
    if (inter)
        MPI_Comm_remote_group(comm, &g);
    else
        MPI_Comm_group(comm, &g);
    MPI_Group_size(g, &n);
    if ((ci = malloc(sizeof *ci + sizeof(int) * (size_t)n)) == NULL) {
        MPI_Group_free(&g);
        return NULL;
    }
    ci->n = n;
    h = group_world(g, n, ci->world);
    MPI_Group_free(&g);
    if (inter) {
        int *tmp;
        MPI_Comm_group(comm, &lg);
        MPI_Group_size(lg, &ln);
        tmp = malloc(sizeof *tmp * (size_t)(ln > 0 ? ln : 1));
        hl = tmp != NULL ? group_world(lg, ln, tmp) : 0;
        free(tmp);
        MPI_Group_free(&lg);
        /* Both sides hash the two groups in the same order. */
        uint32_t pair[2] = {h < hl ? h : hl, h < hl ? hl : h};
        h = fnv32(0x811c9dc5u ^ 0x5a5a5a5au, pair, sizeof pair);
    }
    ci->id = h != 0 ? h : 1;
    if (MPI_Comm_set_attr(comm, comm_key, ci) != MPI_SUCCESS) {
        free(ci);
        return NULL;
    }
    last_comm = comm;
    last_info = ci;
    return ci;
}

/* ------------------------------------------------------------ datatypes */

/* The signature hash of a datatype: a polynomial hash of its sequence of
 * predefined types, which MPI's type matching compares. It composes: the
 * hash of a concatenation follows from its parts' (cat), so a derived
 * type's follows from its old types' and counts without flattening it. */
typedef struct sig {
    uint64_t h, pw; /* sum of x_i B^(len-1-i); B^len */
} sig;

static const uint64_t sig_base = 0x100000001b3ull;

static sig cat(sig a, sig b)
{
    return (sig){a.h * b.pw + b.h, a.pw * b.pw};
}

static sig rep(sig a, uint64_t n)
{
    sig r = {0, 1};

    for (; n > 0; n >>= 1) {
        if (n & 1)
            r = cat(r, a);
        a = cat(a, a);
    }
    return r;
}

static sig sig_of(MPI_Datatype type, int depth)
{
    char name[MPI_MAX_OBJECT_NAME];
    int len = 0, size = 0;
    sc__type_contents c;
    sig s = {0, 1};

    if (depth > 16 || !sc__type_contents_get(type, &c)) {
        /* A predefined type (by its name), or past the depth: its size. */
        if (depth <= 16 && c.combiner == MPI_COMBINER_NAMED &&
            MPI_Type_get_name(type, name, &len) == MPI_SUCCESS)
            return (sig){fnv32(2166136261u, name, (size_t)len) | 1u, sig_base};
        MPI_Type_size(type, &size);
        return (sig){(uint64_t)size * 0x9e3779b97f4a7c15ull | 1u, sig_base};
    }
    switch (c.combiner) {
    case MPI_COMBINER_DUP:
    case MPI_COMBINER_RESIZED:
        s = sig_of(c.types[0], depth + 1);
        break;
    case MPI_COMBINER_CONTIGUOUS:
        s = rep(sig_of(c.types[0], depth + 1), (uint64_t)c.ints[0]);
        break;
    case MPI_COMBINER_VECTOR:
    case MPI_COMBINER_HVECTOR:
        s = rep(sig_of(c.types[0], depth + 1), (uint64_t)c.ints[0] * (uint64_t)c.ints[1]);
        break;
    case MPI_COMBINER_INDEXED_BLOCK:
    case MPI_COMBINER_HINDEXED_BLOCK:
        s = rep(sig_of(c.types[0], depth + 1), (uint64_t)c.ints[0] * (uint64_t)c.ints[1]);
        break;
    case MPI_COMBINER_INDEXED:
    case MPI_COMBINER_HINDEXED: {
        uint64_t k = 0;
        for (int i = 0; i < c.ints[0]; i++)
            k += (uint64_t)c.ints[1 + i];
        s = rep(sig_of(c.types[0], depth + 1), k);
        break;
    }
    case MPI_COMBINER_STRUCT:
        for (int i = 0; i < c.ints[0]; i++)
            s = cat(s, rep(sig_of(c.types[i], depth + 1), (uint64_t)c.ints[1 + i]));
        break;
    case MPI_COMBINER_SUBARRAY: {
        uint64_t k = 1;
        for (int i = 0; i < c.ints[0]; i++)
            k *= (uint64_t)c.ints[1 + c.ints[0] + i];
        s = rep(sig_of(c.types[0], depth + 1), k);
        break;
    }
    default: {
        /* Others (darray, the large-count forms): the elements of the old
         * type the size holds, a signature for types of one old type. */
        int osize = 0;
        MPI_Type_size(type, &size);
        MPI_Type_size(c.types[0], &osize);
        s = rep(sig_of(c.types[0], depth + 1), osize > 0 ? (uint64_t)(size / osize) : 0);
        break;
    }
    }
    sc__type_contents_free(&c);
    return s;
}

/* Bytes of a predefined integer element (MPI_SUM and the bitwise
 * reductions apply), 0 for any other type. MPI_BYTE is none: MPI sums no
 * bytes, and its payloads are the large opaque ones. */
static int int_elem(MPI_Datatype t)
{
    if (t == MPI_INT || t == MPI_UNSIGNED || t == MPI_INT32_T || t == MPI_UINT32_T)
        return 4;
    if (t == MPI_LONG || t == MPI_UNSIGNED_LONG)
        return (int)sizeof(long);
    if (t == MPI_LONG_LONG || t == MPI_UNSIGNED_LONG_LONG || t == MPI_INT64_T ||
        t == MPI_UINT64_T)
        return 8;
    if (t == MPI_SHORT || t == MPI_UNSIGNED_SHORT || t == MPI_INT16_T || t == MPI_UINT16_T)
        return 2;
    if (t == MPI_SIGNED_CHAR || t == MPI_UNSIGNED_CHAR || t == MPI_INT8_T || t == MPI_UINT8_T)
        return 1;
    return 0;
}

/* What a record says of its datatype: the signature hash and the integer
 * element's bytes. Kept for predefined types (a predefined handle names
 * one type for the life of MPI; a derived handle may be freed and reused,
 * so none is kept), the last one used first. */
enum { NPREDEF = 32 };
typedef struct type_facts {
    MPI_Datatype type;
    uint32_t h;
    uint8_t elem;
    uint8_t flat; /* sc__rp_type_flat: its payload is the buffer's bytes */
} type_facts;
static type_facts predef[NPREDEF];
static int npredef;

/* Sets r's dtype and elem; returns whether type is flat. */
static int facts_of(MPI_Datatype type, sc__tc_rec *r)
{
    type_facts f;
    sig s;

    for (int i = 0; i < npredef; i++)
        if (predef[i].type == type) {
            if (i > 0) {
                f = predef[i];
                predef[i] = predef[0];
                predef[0] = f;
            }
            r->dtype = predef[0].h;
            r->elem = predef[0].elem;
            return predef[0].flat;
        }
    s = sig_of(type, 0);
    f = (type_facts){type, (uint32_t)(s.h ^ (s.h >> 32)), (uint8_t)int_elem(type),
                     (uint8_t)(sc__rp_type_flat(type) != 0)};
    if (npredef < NPREDEF && sc__type_is_named(type))
        predef[npredef++] = f;
    r->dtype = f.h;
    r->elem = f.elem;
    return f.flat;
}

/* ------------------------------------------------------------ payloads */

/* The hashes of a payload that comes in pieces (a type with holes). */
typedef struct hashes {
    uint32_t crc;
    uint64_t n;
    unsigned char first[16], last[8];
} hashes;

static void hash_piece(void *ctx, const void *p, size_t n)
{
    hashes *h = ctx;
    const unsigned char *c = p;

    h->crc = sc__rp_crc(h->crc, p, n);
    if (h->n < 16) {
        size_t k = 16 - h->n < n ? 16 - h->n : n;
        memcpy(h->first + h->n, c, k);
    }
    if (n >= 8) {
        memcpy(h->last, c + n - 8, 8);
    } else {
        memmove(h->last, h->last + n, 8 - n);
        memcpy(h->last + 8 - n, c, n);
    }
    h->n += n;
}

/* Fills r's crc, ends and sumh from `bytes` bytes of type at buf (flat:
 * sc__rp_type_flat(type), from facts_of). */
static int hash_payload(sc__tc_rec *r, const void *buf, MPI_Datatype type, int flat,
                        int64_t bytes)
{
    hashes h;
    uint64_t head = 0, tail = 0;
    int rc;

    if (bytes <= 0)
        return MPI_SUCCESS;
    if (flat) {
        /* One pass over the bytes: the CRC and the additive hash go
         * through the payload together, a cache-sized piece at a time
         * (hash.c), so that a large payload is read from memory once. */
        if (r->elem > 0)
            r->crc = sc__tc_crc_sum(buf, (size_t)bytes, r->elem, &r->sumh);
        else
            r->crc = sc__rp_crc(0, buf, (size_t)bytes);
        r->ends = sc__tc_ends_hash(buf, (size_t)bytes);
        return MPI_SUCCESS;
    }
    memset(&h, 0, sizeof h);
    if ((rc = sc__rp_payload_walk(buf, type, bytes, hash_piece, &h)) != MPI_SUCCESS)
        return rc;
    r->crc = h.crc;
    memcpy(&head, h.first, h.n < 8 ? h.n : 8);
    if (h.n > 8) {
        if (h.n < 16)
            memcpy(&tail, h.first + 8, h.n - 8);
        else
            memcpy(&tail, h.last, 8);
    }
    r->ends = sc__tc_ends_mix(head, tail, h.n);
    return MPI_SUCCESS;
}

/* ------------------------------------------------------------ the file */

static void say(int rc)
{
    (void)rc;
    fprintf(stderr, "libsafecoll: SAFECOLL_TRACE: %s; this rank records no more\n",
            safecoll_last_error());
    fflush(stderr);
}

static int at_finalize(MPI_Comm comm, int key, void *value, void *extra);
static void on_signal(int sig);

static struct sigaction old_actions[NSIG];

/* Opens this rank's file (lock held, MPI initialized): 1 when open. */
static int open_file(void)
{
    static const int sigs[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT};
    int nprocs = 0, key = MPI_KEYVAL_INVALID, rc, fin = 0;
    uint64_t id = 0;

    if (state != 0)
        return state == 1;
    if (MPI_Finalized(&fin) != MPI_SUCCESS || fin)
        return 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nprocs);
    sc__rp_job_id(&id);
    if ((rc = sc__tc_writer_open(&w, dir, world_rank, nprocs, id, origin)) != MPI_SUCCESS) {
        state = 3;
        say(rc);
        return 0;
    }
    state = 1;
    if (MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, at_finalize, &key, NULL) == MPI_SUCCESS) {
        MPI_Comm_set_attr(MPI_COMM_SELF, key, NULL);
        MPI_Comm_free_keyval(&key);
    }
    /* A fatal signal closes the file, then goes to the handler it found
     * (record and replay's, the application's, or the default). */
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
        struct sigaction sa;
        if (sigaction(sigs[i], NULL, &old_actions[sigs[i]]) != 0 ||
            old_actions[sigs[i]].sa_handler == SIG_IGN)
            continue;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(sigs[i], &sa, NULL);
    }
    return 1;
}

/* Closes the file (lock held). */
static void close_file(void)
{
    int rc;

    if (state != 1)
        return;
    state = 2;
    atomic_store(&on, 0);
    if ((rc = sc__tc_writer_close(w)) != MPI_SUCCESS)
        say(rc);
    w = NULL;
}

static void on_signal(int sig)
{
    /* The lock may be held by the interrupted thread: the file is closed
     * without it, as the replay log is (write(2) only). */
    if (state == 1) {
        state = 2;
        sc__tc_writer_close(w);
    }
    sigaction(sig, &old_actions[sig], NULL);
    raise(sig);
}

static int at_finalize(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm;
    (void)key;
    (void)value;
    (void)extra;
    pthread_mutex_lock(&lock);
    close_file();
    pthread_mutex_unlock(&lock);
    return MPI_SUCCESS;
}

/* At exit: the file closed if MPI_Finalize did not; a rank of an MPI job
 * that recorded nothing writes an empty trace, so that the directory has
 * every rank's file, and says why it is empty. */
static void at_exit(void)
{
    int inited = 0, r, n;
    uint64_t id = 0;
    sc__tc_writer *e = NULL;

    pthread_mutex_lock(&lock);
    close_file();
    if (state == 0 && MPI_Initialized(&inited) == MPI_SUCCESS && inited &&
        (r = sc__rp_launcher_rank()) >= 0 && (n = sc__rp_launcher_size()) > r) {
        state = 2;
        sc__rp_job_id(&id);
        if (sc__tc_writer_open(&e, dir, r, n, id, now_ns()) == MPI_SUCCESS &&
            sc__tc_writer_close(e) == MPI_SUCCESS)
            fprintf(stderr, "libsafecoll: SAFECOLL_TRACE=%s%s: rank %d made no traced "
                    "point-to-point call (safecoll_ wrapper or safecoll_trace_self)%s: its "
                    "trace %s/trace.%d is empty\n", region ? "region:" : "", dir, r,
                    region ? " between safecoll_trace_start and safecoll_trace_stop" : "", dir,
                    r);
        else
            say(MPI_ERR_FILE);
        fflush(stderr);
    }
    pthread_mutex_unlock(&lock);
}

/* ------------------------------------------------------------ recording */

/* The next record of the file (lock held), zeroed but for its call site,
 * for the caller to fill and hand to add(); NULL when nothing is recorded.
 * Records are built in the writer's buffer: one built on the stack, then
 * copied, stalled the copy's wide loads on the narrow stores before them. */
static sc__tc_rec *next_rec(const void *pc, int is_text)
{
    sc__tc_rec *r;
    uint32_t site;
    int rc;

    if (state != 1 && !open_file())
        return NULL;
    /* The site first: naming a new one may write out the records' block. */
    site = site_id(pc, is_text);
    if ((r = sc__tc_writer_slot(w, &rc)) == NULL) {
        say(rc);
        close_file();
        return NULL;
    }
    memset(r, 0, sizeof *r);
    r->site = site;
    return r;
}

/* Completes r (next_rec's, its kind, flags, peer, tag, comm and bytes
 * set) with the time t (CLOCK_REALTIME ns), its type's facts and the
 * hashes of its payload at buf, and writes it (lock held). */
static void add(sc__tc_rec *r, int64_t t, const void *buf, MPI_Datatype type)
{
    int rc;

    r->t_ns = t - origin;
    if ((rc = hash_payload(r, buf, type, facts_of(type, r), r->bytes)) != MPI_SUCCESS) {
        say(rc);
        close_file();
        return;
    }
    sc__tc_writer_commit(w);
}

/* Records the event ev (on_event's). */
static __attribute__((noinline)) void record(const sc__tr_event *ev)
{
    const comm_info *ci;
    sc__tc_rec *r;
    const int peer = ev->peer;
    const int text = ev->app && ev->site_text != NULL;

    pthread_mutex_lock(&lock);
    if ((ci = comm_of(ev->comm)) != NULL &&
        (r = next_rec(text ? (const void *)ev->site_text : ev->app ? ev->site : NULL, text)) !=
            NULL) {
        r->kind = ev->dir == SC_TR_SEND ? SC_TC_SEND : SC_TC_RECV;
        r->flags = ev->app ? 0 : SC_TC_FLAG_LIBRARY;
        r->tag = ev->tag;
        r->bytes = (int64_t)ev->bytes;
        r->comm = ci->id;
        r->peer = ci->n == 0 ? peer : peer < ci->n ? ci->world[peer] : -1;
        add(r, ev->time_ns, ev->buf, ev->type);
    }
    pthread_mutex_unlock(&lock);
}

/* The subscriber: sends when posted, receives when completed. The other
 * half of the events (and all of them outside a region) go back at once,
 * without the frame of record(). */
static void on_event(const sc__tr_event *ev, void *data)
{
    (void)data;
    if (!atomic_load_explicit(&on, memory_order_relaxed))
        return;
    if (ev->dir == SC_TR_SEND ? ev->kind != SC_TR_POSTED : ev->kind != SC_TR_COMPLETED)
        return;
    if (ev->peer < 0) /* MPI_PROC_NULL, or a receive that matched none */
        return;
    record(ev);
}

__attribute__((constructor)) static void trace_init(void)
{
    const char *spec = sc__env("SAFECOLL_TRACE");

    if (spec == NULL)
        return;
    if (strncmp(spec, "region:", 7) == 0) {
        region = 1;
        spec += 7;
    }
    if (spec[0] == '\0') {
        fprintf(stderr, "libsafecoll: SAFECOLL_TRACE='%s': expected DIR or region:DIR; "
                "nothing is traced\n", sc__env("SAFECOLL_TRACE"));
        return;
    }
    if ((dir = strdup(spec)) == NULL)
        return;
    if (sc__tr_subscribe(on_event, NULL,
                         SC_TR_WANT_ALL | SC_TR_WANT_TIME | SC_TR_NO_SEND_DONE |
                             SC_TR_NO_RECV_POSTS) < 0) {
        fprintf(stderr, "libsafecoll: SAFECOLL_TRACE: the traffic layer's %d event "
                "subscribers are all taken; nothing is traced\n", (int)SC_TR_NSUB);
        free(dir);
        dir = NULL;
        return;
    }
    /* The times' origin: before any event, whose time the stream takes
     * before the file exists. */
    origin = now_ns();
    atomic_store(&on, !region);
    safecoll_trace_sites = 1;
    atexit(at_exit);
}

/* ------------------------------------------------------------ the API */

int safecoll_trace_sites;

void safecoll_trace_site(const char *site)
{
    if (safecoll_trace_sites)
        sc__tr_site_pending = site;
}

int safecoll_trace_start(void)
{
    /* Under SAFECOLL_TRACE=DIR everything is recorded anyway. */
    if (dir != NULL && region)
        atomic_store(&on, 1);
    return MPI_SUCCESS;
}

int safecoll_trace_stop(void)
{
    int rc = MPI_SUCCESS;

    if (dir == NULL)
        return MPI_SUCCESS;
    if (region)
        atomic_store(&on, 0);
    pthread_mutex_lock(&lock);
    if (state == 1 && (rc = sc__tc_writer_flush(w)) != MPI_SUCCESS) {
        say(rc);
        close_file();
    }
    pthread_mutex_unlock(&lock);
    return rc == MPI_SUCCESS ? MPI_SUCCESS
                             : sc__call_errhandler(MPI_COMM_WORLD, MPI_ERR_FILE);
}

int safecoll_trace_self(const void *buf, int count, MPI_Datatype datatype)
{
    sc__tc_rec *r;
    int size = 0, rc;

    if (count < 0)
        rc = sc__error(MPI_ERR_COUNT, "safecoll_trace_self: count %d is negative", count);
    else if (datatype == MPI_DATATYPE_NULL)
        rc = sc__error(MPI_ERR_TYPE, "safecoll_trace_self: the datatype is MPI_DATATYPE_NULL");
    else if (buf == NULL && count > 0)
        rc = sc__error(MPI_ERR_BUFFER, "safecoll_trace_self: buf is NULL with count %d", count);
    else if ((rc = MPI_Type_size(datatype, &size)) != MPI_SUCCESS)
        rc = sc__error(MPI_ERR_TYPE, "safecoll_trace_self: the datatype is not valid");
    if (rc != MPI_SUCCESS)
        return sc__call_errhandler(MPI_COMM_WORLD, rc);
    if (dir == NULL || !atomic_load_explicit(&on, memory_order_relaxed))
        return MPI_SUCCESS;
    const int64_t t = sc__tr_clock_ns();
    pthread_mutex_lock(&lock);
    if ((r = next_rec(__builtin_return_address(0), 0)) != NULL) {
        r->kind = SC_TC_SELF;
        r->bytes = (int64_t)count * size;
        r->peer = world_rank;
        add(r, t, buf, datatype);
    }
    pthread_mutex_unlock(&lock);
    return MPI_SUCCESS;
}
