/*
 * The private communicator. All library traffic (agreement messages,
 * point-to-point strategies, sub-collectives) goes on a duplicate of the
 * caller's communicator, so it can never match the caller's own messages or
 * tags. The duplicate is made at first use and cached on the caller's
 * communicator with an attribute; MPI frees it through the delete callback
 * when the caller frees its communicator.
 */
#include <pthread.h>

#include "core.h"
#include "nb.h"

/* Two duplicates: one for blocking calls, one for the coroutines of
 * non-blocking ones (nb.c), whose traffic starts at times that differ from
 * rank to rank and so must never share a communicator with blocking calls. */
static int keyval[2] = {MPI_KEYVAL_INVALID, MPI_KEYVAL_INVALID};
static int keyval_rc = MPI_SUCCESS;
static pthread_once_t keyval_once = PTHREAD_ONCE_INIT;

static int free_private(MPI_Comm comm, int key, void *value, void *extra)
{
    MPI_Comm priv = (MPI_Comm)(intptr_t)value;

    (void)comm;
    (void)key;
    (void)extra;
    /* The value holds the handle itself; MPI_Comm is an int in MPICH and a
     * pointer in Open MPI, and both fit in a pointer. */
    return MPI_Comm_free(&priv);
}

/* The key is made once per process, on the first safe call (MPI is
 * initialised by then); the first call's result stays for every later one. */
static void create_keyval(void)
{
    keyval_rc = MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_private, &keyval[0], NULL);
    if (keyval_rc == MPI_SUCCESS)
        keyval_rc =
            MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, free_private, &keyval[1], NULL);
}

static int comm_private(MPI_Comm comm, int which, MPI_Comm *priv)
{
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
        *priv = (MPI_Comm)(intptr_t)value;
        return MPI_SUCCESS;
    }
    rc = MPI_Comm_dup(comm, priv);
    if (rc != MPI_SUCCESS)
        return sc__error(rc, "cannot duplicate the communicator");
    MPI_Comm_set_errhandler(*priv, MPI_ERRORS_RETURN);
    rc = MPI_Comm_set_attr(comm, keyval[which], (void *)(intptr_t)*priv);
    if (rc != MPI_SUCCESS) {
        MPI_Comm_free(priv);
        return sc__error(rc, "cannot cache the private communicator");
    }
    return MPI_SUCCESS;
}

int sc__comm_private(MPI_Comm comm, MPI_Comm *priv)
{
    return comm_private(comm, 0, priv);
}

int sc__comm_private_nb(MPI_Comm comm, MPI_Comm *priv)
{
    return comm_private(comm, 1, priv);
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
