/*
 * The first meeting of a communicator and its node conditions (call.h).
 *
 * The conditions performance records are measured under (whether a node
 * holds more ranks than cores, whether the ranks span nodes) are a
 * property of the communicator: detected once, at the first call that
 * needs them, and cached with an attribute.
 *
 * The first meeting (sc__comm_meet): every safe collective, before it
 * reads a setting, checks once per communicator that all its ranks run
 * with the same settings, and detects the conditions in the same step.
 * The verdict is cached with a second attribute.
 *
 * Both are collective and block, so both first complete the safe i-calls
 * pending on the communicator (sc__nb_drain), as the private communicator
 * does (traffic/comm.c), and their waits move the safe i-calls pending on
 * other communicators (sc__nb_waitall): a peer may wait for one of them
 * before it joins the meeting (issue 31). Both exchange their data on point-to-point alone
 * (sc__tr_lib_MPI_Allgather and _Allreduce, traffic.h), never through an MPI
 * collective: under SAFECOLL_STRATEGY=all=p2p no MPI collective runs at
 * all, and the meeting is the same on every rank whatever its strategy
 * settings, which are what it compares (a rank given all=p2p meets a rank
 * given nothing, and both learn that they differ).
 */
#define _GNU_SOURCE /* sched_getaffinity and the CPU_* macros */

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bounds.h"
#include "call.h"
#include "traffic.h"
#include "nb.h"

/* The cached conditions of a communicator (sc__comm_conditions): the
 * SC_COND_* bits themselves as the attribute's value, nothing to free. A
 * duplicate of the communicator has the same processes, but detecting
 * again is cheap and keeps the copy rule of the private communicator's
 * attributes. */
static int cond_keyval = MPI_KEYVAL_INVALID;
/* The verdict of the first meeting (struct meet_verdict), freed with comm. */
static int meet_keyval = MPI_KEYVAL_INVALID;
static int keyval_rc = MPI_SUCCESS;
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;

static int free_verdict(MPI_Comm comm, int key, void *value, void *extra);

/* The keys are made once per process, on the first safe call (MPI is
 * initialised by then); the first call's result stays for every later one. */
static void create_keyval(void)
{
    keyval_rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN,
                                       &cond_keyval, NULL);
    if (keyval_rc == MPI_SUCCESS)
        keyval_rc =
            MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_verdict, &meet_keyval, NULL);
}

/* Room for the CPU numbers of one node: 1024, glibc's CPU_SETSIZE. */
#define MASK_WORDS (1024 / (8 * (int)sizeof(unsigned long)))
#define WORD_BITS (8 * (int)sizeof(unsigned long))

/* The cores this process may run on, as a bit mask: its affinity mask
 * where the system has one (a launcher that binds ranks to cores shrinks
 * it), else the cores online. */
static void cpu_mask(unsigned long mask[MASK_WORDS])
{
    long online;

    memset(mask, 0, MASK_WORDS * sizeof *mask);
#if defined(__linux__) && defined(CPU_ISSET)
    {
        cpu_set_t set;
        int any = 0;
        if (sched_getaffinity(0, sizeof set, &set) == 0) {
            for (int c = 0; c < CPU_SETSIZE && c < MASK_WORDS * WORD_BITS; c++)
                if (CPU_ISSET(c, &set)) {
                    mask[c / WORD_BITS] |= 1ul << (c % WORD_BITS);
                    any = 1;
                }
            if (any)
                return;
        }
    }
#endif
    online = sysconf(_SC_NPROCESSORS_ONLN);
    if (online < 1)
        online = 1;
    for (long c = 0; c < online && c < MASK_WORDS * WORD_BITS; c++)
        mask[c / WORD_BITS] |= 1ul << (c % WORD_BITS);
}

/* Detects the conditions of the communicator whose private duplicate is
 * priv. The ranks of this communicator on a node (a shared-memory split)
 * are compared with the cores available to them, the union of their
 * affinity masks: ranks bound to distinct cores are not oversubscribed,
 * unbound ranks share the node's cores, ranks bound to one core share
 * that core. Only the communicator's ranks are counted: the job's other
 * ranks on the node cannot be counted without a collective on
 * MPI_COMM_WORLD, which a call on this communicator must not make (they
 * need not be in this call). The flags of all nodes are merged with MAX,
 * so every rank gets the same answer. */
static int detect_conditions(MPI_Comm priv, unsigned *conds)
{
    unsigned long mask[MASK_WORDS], all[MASK_WORDS];
    int size, local = 0, cores = 0, flags[2], any[2] = {0, 0}, rc;
    MPI_Comm node = MPI_COMM_NULL;

    MPI_Comm_size(priv, &size);
    cpu_mask(mask);
    rc = sc__tr_comm_split_type(priv, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    if (rc == MPI_SUCCESS && (rc = MPI_Comm_size(node, &local)) == MPI_SUCCESS)
        rc = sc__tr_lib_MPI_Allreduce(mask, all, MASK_WORDS, MPI_UNSIGNED_LONG, MPI_BOR, node,
                                      sc__nb_waitall);
    if (node != MPI_COMM_NULL)
        sc__tr_comm_free(&node);
    if (rc != MPI_SUCCESS)
        return sc__error(rc, "cannot detect the node conditions of the communicator");
    for (int w = 0; w < MASK_WORDS; w++)
        for (unsigned long x = all[w]; x != 0; x &= x - 1)
            cores++;
    flags[0] = local > cores;
    flags[1] = local < size;
    if ((rc = sc__tr_lib_MPI_Allreduce(flags, any, 2, MPI_INT, MPI_MAX, priv, sc__nb_waitall)) !=
        MPI_SUCCESS)
        return sc__error(rc, "cannot detect the node conditions of the communicator");
    *conds = (any[0] ? SC_COND_OVERSUBSCRIBED : 0) | (any[1] ? SC_COND_NODES_MANY : 0);
    return MPI_SUCCESS;
}

int sc__comm_conditions(MPI_Comm comm, unsigned *conds)
{
    int forced = sc__config_node_conditions(), found, rc;
    MPI_Comm priv;
    void *value;

    if (forced >= 0) {
        *conds = (unsigned)forced;
        return MPI_SUCCESS;
    }
    *conds = SC_COND_UNKNOWN;
    pthread_once(&keyval_once, create_keyval);
    if (keyval_rc != MPI_SUCCESS)
        return sc__error(keyval_rc, "cannot create the attribute key for the node conditions");
    if ((rc = MPI_Comm_get_attr(comm, cond_keyval, &value, &found)) != MPI_SUCCESS)
        return sc__error(rc, "cannot read the node conditions attribute");
    if (found) {
        *conds = (unsigned)(intptr_t)value;
        return MPI_SUCCESS;
    }
    /* The detection is collective and blocks, once per communicator:
     * first the safe i-calls pending on comm, which the other ranks may be
     * waiting for (as in sc__comm_private). An i-call that gets here first
     * thus waits for the earlier ones once. */
    sc__nb_drain(comm);
    if ((rc = sc__comm_private(comm, &priv)) != MPI_SUCCESS ||
        (rc = detect_conditions(priv, conds)) != MPI_SUCCESS)
        return rc;
    if ((rc = MPI_Comm_set_attr(comm, cond_keyval, (void *)(intptr_t)*conds)) != MPI_SUCCESS)
        return sc__error(rc, "cannot cache the node conditions");
    return MPI_SUCCESS;
}

/* ---- the first meeting ---- */

/* A rank's settings, as far as the path of a safe call depends on them:
 * one entry each, compared entry by entry across ranks. MEET_SETUP is the
 * error of a malformed SAFECOLL_* variable or bound source (0: none). */
enum { MEET_SETUP, MEET_STRATEGY, MEET_LIMIT, MEET_PERF, MEET_BOUNDS, MEET_COND, MEET_CHECK, MEET_AGREE, MEET_N };

static const char *const meet_names[MEET_N] = {
    "setup",
    "SAFECOLL_STRATEGY",
    "SAFECOLL_INT_LIMIT",
    "SAFECOLL_PERF_BOUNDS",
    "bound registry",
    "SAFECOLL_NODE_CONDITIONS",
    "SAFECOLL_CHECK",
    "SAFECOLL_AGREE",
};

struct meet_verdict {
    int rc;  /* MPI_SUCCESS, or the error of every safe call on comm */
    int own; /* msg is this rank's own setup message, given as it was */
    int inter, rank, size; /* comm's shape, fixed for its life (good verdicts) */
    char msg[480];
};

/* The memo of the communicators this thread met (call.h, sc__comm_met). */
atomic_ulong sc__meet_epoch = 1;
_Thread_local sc__met_entry sc__met[SC_MET_N] SC_TLS_IE;
static _Thread_local unsigned met_next SC_TLS_IE;

static int free_verdict(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm;
    (void)key;
    (void)extra;
    atomic_fetch_add_explicit(&sc__meet_epoch, 1, memory_order_relaxed);
    free(value);
    return MPI_SUCCESS;
}

/* Kept to 62 bits, as the pipeline's layout hash. */
static long long fold(long long h, long long v)
{
    unsigned long long x = ((unsigned long long)h ^ (unsigned long long)v) * 0xff51afd7ed558ccdull;

    return (long long)((x ^ (x >> 31)) >> 2);
}

/* This rank's settings in d; why gets the message of a failed setup. */
static void digest(long long d[MEET_N], char *why, size_t len)
{
    int rc = sc__config_init();
    long long h = 0;

    if (rc == MPI_SUCCESS)
        rc = sc__bounds_init();
    if (rc != MPI_SUCCESS)
        snprintf(why, len, "%s", safecoll_last_error());
    d[MEET_SETUP] = rc;
    for (int c = 0; c < SAFECOLL_NCOLL; c++)
        h = fold(h, 2LL * sc__config_forced((safecoll_coll)c) +
                        sc__config_forced_all((safecoll_coll)c));
    d[MEET_STRATEGY] = h;
    d[MEET_LIMIT] = sc__config_int_limit();
    d[MEET_PERF] = sc__config_perf_bounds();
    d[MEET_BOUNDS] = (long long)sc__bounds_digest();
    d[MEET_COND] = sc__config_node_conditions();
    /* Checking mode adds a message to every call: on some ranks only, it
     * would meet the others' traffic. Read through the public switch, so
     * that the core needs nothing of the call layer. */
    d[MEET_CHECK] = safecoll_check_get();
    /* Deciding alone on some ranks only would leave the others waiting in
     * the agreement. */
    d[MEET_AGREE] = sc__config_agree_always();
}

/* Appends rank r to a list that names at most 8. */
static void list_add(char *buf, size_t len, int *n, int r)
{
    size_t at = strlen(buf);

    if (*n < 8)
        snprintf(buf + at, len - at, "%s%d", *n > 0 ? "," : "", r);
    else if (*n == 8)
        snprintf(buf + at, len - at, ",...");
    (*n)++;
}

/* The names of the settings in the bits of mask, "; "-separated. */
static void field_names(unsigned mask, char *buf, size_t len)
{
    buf[0] = '\0';
    for (int f = 1; f < MEET_N; f++)
        if (mask & (1u << f)) {
            size_t at = strlen(buf);
            snprintf(buf + at, len - at, "%s%s", at > 0 ? ", " : "", meet_names[f]);
        }
}

/* The verdict on a failed setup somewhere: the largest error code of the
 * failed ranks is every rank's (the same everywhere); a rank that failed
 * keeps its own message. */
static void setup_failed(struct meet_verdict *v, int code, int own, const char *why,
                         const char *where)
{
    v->rc = code;
    if (own) {
        v->own = 1;
        snprintf(v->msg, sizeof v->msg, "%s", why);
    } else {
        snprintf(v->msg, sizeof v->msg,
                 "the library's setup failed on %s with %s (the message there says why), "
                 "so no safe collective runs on this communicator",
                 where, sc__error_class_name(code));
    }
}

/* Judges the settings of the p ranks of an intracommunicator, all[r *
 * MEET_N ...]: every rank reaches the same verdict from the same table. */
static void judge(const long long *all, int p, int me, const char *why, struct meet_verdict *v)
{
    char fail[96] = "", diff[96] = "", names[256];
    unsigned fields = 0;
    int nfail = 0, ndiff = 0, code = MPI_SUCCESS;

    for (int r = 0; r < p; r++)
        if (all[r * MEET_N + MEET_SETUP] != MPI_SUCCESS) {
            list_add(fail, sizeof fail, &nfail, r);
            if (all[r * MEET_N + MEET_SETUP] > code)
                code = (int)all[r * MEET_N + MEET_SETUP];
        }
    if (nfail > 0) {
        char where[128];
        snprintf(where, sizeof where, "rank%s %s", nfail > 1 ? "s" : "", fail);
        setup_failed(v, code, all[me * MEET_N + MEET_SETUP] != MPI_SUCCESS, why, where);
        return;
    }
    for (int r = 1; r < p; r++) {
        unsigned m = 0;
        for (int f = 1; f < MEET_N; f++)
            if (all[r * MEET_N + f] != all[f])
                m |= 1u << f;
        if (m != 0)
            list_add(diff, sizeof diff, &ndiff, r);
        fields |= m;
    }
    if (ndiff == 0)
        return;
    field_names(fields, names, sizeof names);
    v->rc = MPI_ERR_OTHER;
    snprintf(v->msg, sizeof v->msg,
             "the library's settings differ between ranks: rank%s %s differ%s from rank 0 (%s)",
             ndiff > 1 ? "s" : "", diff, ndiff > 1 ? "" : "s", names);
}

/* The same on an intercommunicator, where a collective reaches the other
 * group only: the settings of the remote ranks (first allgather), then
 * what each remote rank found (second): which settings of it differ from
 * some rank of this group, its own setup error, and the largest setup
 * error of this group. A pair of ranks that differ, one per group, marks
 * both, so every rank of each group sees the other's mark; and ranks that
 * differ within one group both differ from any rank of the other. */
static int judge_inter(MPI_Comm priv, const long long d[MEET_N], const char *why,
                       struct meet_verdict *v)
{
    long long *all, *back, mine[3] = {0, d[MEET_SETUP], 0};
    char fail[96] = "", diff[96] = "", names[256];
    unsigned fields = 0;
    int q, nfail = 0, ndiff = 0, code = (int)d[MEET_SETUP], rc;

    MPI_Comm_remote_size(priv, &q);
    all = malloc(sizeof *all * (size_t)q * MEET_N);
    back = malloc(sizeof *back * (size_t)q * 3);
    if (all == NULL || back == NULL) {
        free(all);
        free(back);
        return sc__error(MPI_ERR_NO_MEM, "out of memory for the settings check");
    }
    rc = sc__tr_lib_MPI_Allgather(d, MEET_N, MPI_LONG_LONG, all, MEET_N, MPI_LONG_LONG, priv,
                                  sc__nb_waitall);
    for (int r = 0; rc == MPI_SUCCESS && r < q; r++) {
        for (int f = 1; f < MEET_N; f++)
            if (all[r * MEET_N + f] != d[f])
                mine[0] |= 1 << f;
        if (all[r * MEET_N + MEET_SETUP] > mine[2])
            mine[2] = all[r * MEET_N + MEET_SETUP];
    }
    if (rc == MPI_SUCCESS)
        rc = sc__tr_lib_MPI_Allgather(mine, 3, MPI_LONG_LONG, back, 3, MPI_LONG_LONG, priv, sc__nb_waitall);
    for (int r = 0; rc == MPI_SUCCESS && r < q; r++) {
        if (back[r * 3 + 1] != MPI_SUCCESS)
            list_add(fail, sizeof fail, &nfail, r);
        if (back[r * 3 + 1] > code)
            code = (int)back[r * 3 + 1];
        if (back[r * 3 + 2] > code)
            code = (int)back[r * 3 + 2];
        if (back[r * 3] != 0)
            list_add(diff, sizeof diff, &ndiff, r);
        fields |= (unsigned)back[r * 3];
    }
    free(all);
    free(back);
    if (rc != MPI_SUCCESS)
        return sc__error(rc, "cannot compare the settings of the ranks");
    if (code != MPI_SUCCESS) {
        char where[160];
        if (nfail > 0)
            snprintf(where, sizeof where, "remote rank%s %s of the intercommunicator",
                     nfail > 1 ? "s" : "", fail);
        else
            snprintf(where, sizeof where, "a rank of this group of the intercommunicator");
        setup_failed(v, code, d[MEET_SETUP] != MPI_SUCCESS, why, where);
    } else if (ndiff > 0) {
        field_names(fields, names, sizeof names);
        v->rc = MPI_ERR_OTHER;
        snprintf(v->msg, sizeof v->msg,
                 "the library's settings differ between ranks: remote rank%s %s of the "
                 "intercommunicator differ%s from ranks of this group (%s)",
                 ndiff > 1 ? "s" : "", diff, ndiff > 1 ? "" : "s", names);
    }
    return MPI_SUCCESS;
}

/* The first meeting proper: collective over comm. */
static int meet(MPI_Comm comm, struct meet_verdict *v)
{
    long long d[MEET_N], *all;
    char why[sizeof v->msg] = "";
    MPI_Comm priv;
    unsigned conds;
    int inter, size, rank, rc;

    /* Collective and blocking: first the safe i-calls pending on comm,
     * which the other ranks may be waiting for (as in sc__comm_private). */
    sc__nb_drain(comm);
    if ((rc = sc__comm_private(comm, &priv)) != MPI_SUCCESS)
        return rc;
    digest(d, why, sizeof why);
    MPI_Comm_test_inter(comm, &inter);
    if (inter)
        return judge_inter(priv, d, why, v);
    MPI_Comm_size(comm, &size);
    MPI_Comm_rank(comm, &rank);
    if ((all = malloc(sizeof *all * (size_t)size * MEET_N)) == NULL)
        return sc__error(MPI_ERR_NO_MEM, "out of memory for the settings check");
    rc = sc__tr_lib_MPI_Allgather(d, MEET_N, MPI_LONG_LONG, all, MEET_N, MPI_LONG_LONG, priv,
                                  sc__nb_waitall);
    if (rc == MPI_SUCCESS)
        judge(all, size, rank, why, v);
    free(all);
    if (rc != MPI_SUCCESS)
        return sc__error(rc, "cannot compare the settings of the ranks");
    /* The node conditions, in the same step and on every rank alike (the
     * settings agree, SAFECOLL_NODE_CONDITIONS included), whether or not a
     * record names them: a lookup made later, only where a rank's records
     * need it, hangs the ranks whose records differ. */
    if (v->rc == MPI_SUCCESS)
        rc = sc__comm_conditions(comm, &conds);
    return rc;
}

int sc__comm_meet(MPI_Comm comm, const char *fn)
{
    struct meet_verdict *v;
    void *value;
    int found, rc;

    if (sc__met_find(comm) != NULL)
        return MPI_SUCCESS;
    pthread_once(&keyval_once, create_keyval);
    if (keyval_rc != MPI_SUCCESS)
        return sc__error(keyval_rc, "%s: cannot create the attribute key of the settings check",
                         fn);
    if ((rc = MPI_Comm_get_attr(comm, meet_keyval, &value, &found)) != MPI_SUCCESS)
        return sc__error(rc, "%s: cannot read the settings check attribute", fn);
    if (found) {
        v = value;
    } else {
        if ((v = calloc(1, sizeof *v)) == NULL)
            return sc__error(MPI_ERR_NO_MEM, "%s: out of memory for the settings check", fn);
        /* The shape first: a communicator MPI refuses is no verdict. */
        if ((rc = MPI_Comm_test_inter(comm, &v->inter)) != MPI_SUCCESS ||
            (rc = MPI_Comm_rank(comm, &v->rank)) != MPI_SUCCESS ||
            (rc = MPI_Comm_size(comm, &v->size)) != MPI_SUCCESS ||
            (rc = meet(comm, v)) != MPI_SUCCESS ||
            (rc = MPI_Comm_set_attr(comm, meet_keyval, v)) != MPI_SUCCESS) {
            free(v);
            return sc__error(rc, "%s: the first use of the communicator failed: %s", fn,
                             safecoll_last_error());
        }
    }
    if (v->rc == MPI_SUCCESS) {
        /* The oldest entry makes room (comm is in none: sc__met_find). */
        sc__met_entry *e = &sc__met[met_next++ % SC_MET_N];
        e->inter = v->inter;
        e->rank = v->rank;
        e->size = v->size;
        e->comm = comm;
        e->epoch = atomic_load_explicit(&sc__meet_epoch, memory_order_relaxed);
        return MPI_SUCCESS;
    }
    if (v->own)
        return sc__error(v->rc, "%s", v->msg);
    return sc__error(v->rc, "%s: %s", fn, v->msg);
}
