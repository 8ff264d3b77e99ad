/*
 * The private communicator. All library traffic (agreement messages,
 * point-to-point strategies, sub-collectives) goes on a duplicate of the
 * caller's communicator, so it can never match the caller's own messages or
 * tags. The duplicate is made at first use and cached on the caller's
 * communicator with an attribute; MPI calls the delete callback when the
 * caller frees its communicator.
 *
 * MPI lets the caller free its communicator while a non-blocking call on
 * it is pending, and the safe one goes on making calls on the duplicate
 * after that (nb.c). So each duplicate is reference-counted: the attribute
 * holds one reference, every pending non-blocking safe call another
 * (sc__comm_private_nb), and the duplicate is freed when the last one is
 * released, by the delete callback or at the end of the last call.
 *
 * The conditions performance records are measured under (whether a node
 * holds more ranks than cores, whether the ranks span nodes) are a
 * property of the communicator too: detected once, at the first call
 * that needs them, and cached with a third attribute.
 */
#define _GNU_SOURCE /* sched_getaffinity and the CPU_* macros */

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core.h"
#include "nb.h"

struct sc__comm_ref {
    MPI_Comm comm;
    atomic_int refs;
};

/* Two duplicates: one for blocking calls, one for the coroutines of
 * non-blocking ones (nb.c), whose traffic starts at times that differ from
 * rank to rank and so must never share a communicator with blocking calls. */
static int keyval[2] = {MPI_KEYVAL_INVALID, MPI_KEYVAL_INVALID};
/* The cached conditions of a communicator (sc__comm_conditions): the
 * SC_COND_* bits themselves as the attribute's value, nothing to free. A
 * duplicate of the communicator has the same processes, but detecting
 * again is cheap and keeps the copy rule of the other attributes. */
static int cond_keyval = MPI_KEYVAL_INVALID;
static int keyval_rc = MPI_SUCCESS;
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;

int sc__comm_release(sc__comm_ref *ref)
{
    int rc;

    if (ref == NULL || atomic_fetch_sub(&ref->refs, 1) != 1)
        return MPI_SUCCESS;
    rc = MPI_Comm_free(&ref->comm);
    free(ref);
    return rc;
}

static int free_private(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm;
    (void)key;
    (void)extra;
    /* The attribute's reference; a pending non-blocking call may hold
     * another, and then frees the duplicate when it ends. */
    return sc__comm_release(value);
}

/* The key is made once per process, on the first safe call (MPI is
 * initialised by then); the first call's result stays for every later one. */
static void create_keyval(void)
{
    keyval_rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_private, &keyval[0], NULL);
    if (keyval_rc == MPI_SUCCESS)
        keyval_rc =
            MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_private, &keyval[1], NULL);
    if (keyval_rc == MPI_SUCCESS)
        keyval_rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, MPI_COMM_NULL_DELETE_FN,
                                           &cond_keyval, NULL);
}

/* The duplicate `which` of comm, made if there is none yet; *ref, when
 * ref is not NULL, gets a reference the caller releases. */
static int comm_private(MPI_Comm comm, int which, MPI_Comm *priv, sc__comm_ref **ref)
{
    sc__comm_ref *r;
    void *value;
    int found, rc;

    pthread_once(&keyval_once, create_keyval);
    rc = keyval_rc;
    if (rc != MPI_SUCCESS)
        return sc__error(rc, "cannot create the attribute key for the private communicator");

    rc = MPI_Comm_get_attr(comm, keyval[which], &value, &found);
    if (rc != MPI_SUCCESS)
        return sc__error(rc, "cannot read the private communicator attribute");
    if (found) {
        r = value;
    } else {
        /* MPI_Comm_dup is collective and blocks: safe i-calls this rank
         * has pending on comm may be what the other ranks wait for before
         * they join it, and nothing moves them while it blocks (nb.h). */
        sc__nb_drain(comm);
        if ((r = malloc(sizeof *r)) == NULL)
            return sc__error(MPI_ERR_NO_MEM, "out of memory for the private communicator");
        rc = MPI_Comm_dup(comm, &r->comm);
        if (rc != MPI_SUCCESS) {
            free(r);
            return sc__error(rc, "cannot duplicate the communicator");
        }
        MPI_Comm_set_errhandler(r->comm, MPI_ERRORS_RETURN);
        atomic_init(&r->refs, 1);
        rc = MPI_Comm_set_attr(comm, keyval[which], r);
        if (rc != MPI_SUCCESS) {
            MPI_Comm_free(&r->comm);
            free(r);
            return sc__error(rc, "cannot cache the private communicator");
        }
    }
    *priv = r->comm;
    if (ref != NULL) {
        atomic_fetch_add(&r->refs, 1);
        *ref = r;
    }
    return MPI_SUCCESS;
}

int sc__comm_private(MPI_Comm comm, MPI_Comm *priv)
{
    return comm_private(comm, 0, priv, NULL);
}

int sc__comm_private_nb(MPI_Comm comm, MPI_Comm *priv, sc__comm_ref **ref)
{
    return comm_private(comm, 1, priv, ref);
}

MPI_Comm sc__comm_private_nb_find(MPI_Comm comm)
{
    void *value;
    int found = 0;

    /* Quietly: the last error message stays the caller's. */
    pthread_once(&keyval_once, create_keyval);
    if (keyval_rc != MPI_SUCCESS ||
        MPI_Comm_get_attr(comm, keyval[1], &value, &found) != MPI_SUCCESS || !found)
        return MPI_COMM_NULL;
    return ((sc__comm_ref *)value)->comm;
}

/* ---- conditions ---- */

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
    rc = MPI_Comm_split_type(priv, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    if (rc == MPI_SUCCESS && (rc = MPI_Comm_size(node, &local)) == MPI_SUCCESS)
        rc = MPI_Allreduce(mask, all, MASK_WORDS, MPI_UNSIGNED_LONG, MPI_BOR, node);
    if (node != MPI_COMM_NULL)
        MPI_Comm_free(&node);
    if (rc != MPI_SUCCESS)
        return sc__error(rc, "cannot detect the node conditions of the communicator");
    for (int w = 0; w < MASK_WORDS; w++)
        for (unsigned long x = all[w]; x != 0; x &= x - 1)
            cores++;
    flags[0] = local > cores;
    flags[1] = local < size;
    if ((rc = MPI_Allreduce(flags, any, 2, MPI_INT, MPI_MAX, priv)) != MPI_SUCCESS)
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
     * waiting for (as in comm_private). An i-call that gets here first
     * thus waits for the earlier ones once. */
    sc__nb_drain(comm);
    if ((rc = sc__comm_private(comm, &priv)) != MPI_SUCCESS ||
        (rc = detect_conditions(priv, conds)) != MPI_SUCCESS)
        return rc;
    if ((rc = MPI_Comm_set_attr(comm, cond_keyval, (void *)(intptr_t)*conds)) != MPI_SUCCESS)
        return sc__error(rc, "cannot cache the node conditions");
    return MPI_SUCCESS;
}

/* MPICH declares MPI_Waitall's status array with an access attribute, and
 * GCC 12 then takes the MPI_STATUSES_IGNORE sentinel for a zero-sized
 * array. The call is correct, so the warning is silenced here, in one place. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif
int sc__waitall(int n, MPI_Request reqs[])
{
    if (sc__nb_active())
        return sc__nb_waitall(n, reqs);
    return MPI_Waitall(n, reqs, MPI_STATUSES_IGNORE);
}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
