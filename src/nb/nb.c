/* Placeholder engine: runs the body at once (replaced below in this session). */
#include <stdlib.h>

#include "nb.h"

int sc__nb_active(void) { return 0; }
MPI_Request *sc__nb_slot(void) { return NULL; }
int sc__nb_finish(int rc) { return rc; }
int sc__nb_overlaps(void) { return 0; }
int sc__nb_waitall(int n, MPI_Request reqs[]) { (void)n; (void)reqs; return MPI_ERR_INTERN; }

static int q_fn(void *s, MPI_Status *st) { (void)s; MPI_Status_set_elements(st, MPI_BYTE, 0); MPI_Status_set_cancelled(st, 0); return MPI_SUCCESS; }
static int f_fn(void *s) { (void)s; return MPI_SUCCESS; }
static int c_fn(void *s, int c) { (void)s; (void)c; return MPI_SUCCESS; }

int sc__nb_start(MPI_Comm comm, int (*body)(void *arg), void *arg, void (*free_arg)(void *arg),
                 MPI_Request *request)
{
    int rc = body(arg);
    (void)comm;
    if (free_arg)
        free_arg(arg);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = MPI_Grequest_start(q_fn, f_fn, c_fn, NULL, request);
    if (rc == MPI_SUCCESS)
        rc = MPI_Grequest_complete(*request);
    return rc;
}
