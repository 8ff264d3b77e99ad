/*
 * The progress thread of the non-blocking engine (worker.c), for MPI
 * libraries without extended generalized requests. It knows nothing of
 * the engine: sc__nb_worker_start hands it the two functions it drives
 * (nb.c's sc__nb_pending and sc__nb_pass), so the engine calls the thread
 * and never the other way round.
 */
#ifndef SC_NB_WORKER_H
#define SC_NB_WORKER_H

#include "core.h"

/* 1 when the progress thread can carry operations now: MPI is initialised,
 * not finalised (nor finalising), provides MPI_THREAD_MULTIPLE, and the
 * thread did not fail to start. */
int sc__nb_worker_usable(void);

/* Starts the progress thread unless it runs already (and arranges for it
 * to be joined at MPI_Finalize). While any operation is pending
 * (pending() > 0) it calls pass(), which returns 1 when an operation
 * moved, and backs off otherwise. MPI_SUCCESS or an error code. */
int sc__nb_worker_start(int (*pending)(void), int (*pass)(void));

/* Tells the progress thread that an operation was added. */
void sc__nb_worker_wake(void);

#endif /* SC_NB_WORKER_H */
