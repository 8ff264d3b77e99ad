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
 * Making a duplicate is collective and blocks, so the safe i-calls pending
 * on the communicator are completed first, and those on other
 * communicators move while it waits, through the hooks the non-blocking
 * engine registers (sc__comm_set_drain): the traffic layer knows nothing
 * of that engine.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "traffic.h"

struct sc__comm_ref {
    MPI_Comm comm;
    atomic_int refs;
};

/* Two duplicates: one for blocking calls, one for the coroutines of
 * non-blocking ones (nb.c), whose traffic starts at times that differ from
 * rank to rank and so must never share a communicator with blocking calls. */
static int keyval[2] = {MPI_KEYVAL_INVALID, MPI_KEYVAL_INVALID};
static int keyval_rc = MPI_SUCCESS;
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;
/* Completes the safe i-calls pending on a communicator (nb.c registers
 * it when it starts its first one: until then none can be pending). */
static void (*_Atomic drain_hook)(MPI_Comm comm);
/* Waits for a request while moving the engine's operations (nb.c's
 * sc__nb_wait, registered with the drain hook). */
static int (*_Atomic wait_hook)(MPI_Request *request);

void sc__comm_set_drain(void (*drain)(MPI_Comm comm), int (*wait)(MPI_Request *request))
{
    atomic_store(&wait_hook, wait);
    atomic_store(&drain_hook, drain);
}

/* MPI_Comm_dup as MPI_Comm_idup and a wait, on every rank alike (MPI does
 * not let a blocking collective match a non-blocking one): once the
 * non-blocking engine has run, its wait, which moves the safe i-calls this
 * rank has pending meanwhile. A safe i-call's first step on a communicator
 * may make the duplicate while other safe i-calls of this rank are
 * pending, and a peer may need one of them to move before it joins the
 * duplication. */
static int dup_moving(MPI_Comm comm, MPI_Comm *out)
{
    int (*wait)(MPI_Request *) = atomic_load(&wait_hook);
    MPI_Request req;
    int rc;

    if ((rc = SC_TR_CALL(SC_TR_COMM, MPI_Comm_idup, comm, out, &req)) != MPI_SUCCESS)
        return rc;
    return wait != NULL ? wait(&req) : sc__tr_wait(&req);
}

int sc__comm_release(sc__comm_ref *ref)
{
    int rc;

    if (ref == NULL || atomic_fetch_sub(&ref->refs, 1) != 1)
        return MPI_SUCCESS;
    rc = sc__tr_comm_free(&ref->comm);
    free(ref);
    return rc;
}

/* A thread's memo of the duplicates it looked up last, so that a safe
 * i-call, which looks up the second duplicate every time it starts, pays a
 * few compares instead of MPI_Comm_get_attr (in MPICH 4.0.2 about 170
 * instructions, a twentieth of a small call's start under all=p2p). Every
 * attribute's delete callback bumps the epoch, which makes every memo
 * stale: MPI may give a freed communicator's handle to a new one. The
 * entry's reference is the attribute's, held until that callback. */
enum { PRIV_N = 4 };
/* 32 bits: with Open MPI's pointer handles a 64-bit epoch made an entry
 * 32 bytes and the library's TLS 520 bytes, past the 512 that
 * check-dlopen allows (a library loaded with dlopen gets its initial-exec
 * TLS from glibc's small static surplus). A stale entry would pass only
 * if exactly a multiple of 2^32 delete callbacks ran between its
 * memo_add and a look-up. */
static atomic_uint priv_epoch = 1;
struct priv_entry {
    sc__comm_ref *ref;
    MPI_Comm comm;
    int which;
    unsigned epoch;
};
static _Thread_local struct priv_entry priv_memo[PRIV_N] SC_TLS_IE;
static _Thread_local unsigned priv_next SC_TLS_IE;

static sc__comm_ref *memo_find(MPI_Comm comm, int which)
{
    const unsigned epoch = atomic_load_explicit(&priv_epoch, memory_order_acquire);

    for (int i = 0; i < PRIV_N; i++)
        if (priv_memo[i].comm == comm && priv_memo[i].which == which &&
            priv_memo[i].epoch == epoch)
            return priv_memo[i].ref;
    return NULL;
}

/* r, just read from comm's attribute (or set there), with the epoch read
 * before the look-up, so that a delete callback in between leaves the
 * entry stale. */
static void memo_add(MPI_Comm comm, int which, sc__comm_ref *r, unsigned epoch)
{
    struct priv_entry *e = &priv_memo[priv_next++ % PRIV_N];

    e->comm = comm;
    e->which = which;
    e->ref = r;
    e->epoch = epoch;
}

static int free_private(MPI_Comm comm, int key, void *value, void *extra)
{
    (void)comm;
    (void)key;
    (void)extra;
    atomic_fetch_add_explicit(&priv_epoch, 1, memory_order_release);
    /* The attribute's reference; a pending non-blocking call may hold
     * another, and then frees the duplicate when it ends. */
    return sc__comm_release(value);
}

/* The keys are made once per process, on the first safe call (MPI is
 * initialised by then); the first call's result stays for every later one. */
static void create_keyval(void)
{
    keyval_rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_private, &keyval[0], NULL);
    if (keyval_rc == MPI_SUCCESS)
        keyval_rc =
            MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_private, &keyval[1], NULL);
}

/* The duplicate `which` of comm, made if there is none yet; *ref, when
 * ref is not NULL, gets a reference the caller releases. */
static int comm_private(MPI_Comm comm, int which, MPI_Comm *priv, sc__comm_ref **ref)
{
    sc__comm_ref *r = memo_find(comm, which);
    unsigned epoch;
    void *value;
    int found, rc;

    if (r != NULL)
        goto done;
    epoch = atomic_load_explicit(&priv_epoch, memory_order_acquire);
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
        void (*drain)(MPI_Comm) = atomic_load(&drain_hook);
        if (drain != NULL)
            drain(comm);
        if ((r = malloc(sizeof *r)) == NULL)
            return sc__error(MPI_ERR_NO_MEM, "out of memory for the private communicator");
        rc = dup_moving(comm, &r->comm);
        if (rc != MPI_SUCCESS) {
            free(r);
            return sc__error(rc, "cannot duplicate the communicator");
        }
        MPI_Comm_set_errhandler(r->comm, MPI_ERRORS_RETURN);
        atomic_init(&r->refs, 1);
        rc = MPI_Comm_set_attr(comm, keyval[which], r);
        if (rc != MPI_SUCCESS) {
            sc__tr_comm_free(&r->comm);
            free(r);
            return sc__error(rc, "cannot cache the private communicator");
        }
    }
    memo_add(comm, which, r, epoch);
done:
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
    const sc__comm_ref *r = memo_find(comm, 1);
    void *value;
    int found = 0;

    if (r != NULL)
        return r->comm;
    /* Quietly: the last error message stays the caller's. */
    pthread_once(&keyval_once, create_keyval);
    if (keyval_rc != MPI_SUCCESS ||
        MPI_Comm_get_attr(comm, keyval[1], &value, &found) != MPI_SUCCESS || !found)
        return MPI_COMM_NULL;
    return ((sc__comm_ref *)value)->comm;
}
