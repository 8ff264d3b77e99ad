/*
 * Internal interface of the probe module: the pieces the in-job probe
 * (probe.c), the search driver (search.c) and the classification
 * (classify.c) share.
 */
#ifndef SC_PROBE_H
#define SC_PROBE_H

#include "core.h"

#define SC_PROBE_COUNT_MAX ((MPI_Count)INT64_MAX)

/* The blocking collective of a non-blocking one the probe supports
 * (SAFECOLL_COLL_IGATHER -> SAFECOLL_COLL_GATHER), else coll itself. An
 * i-form moves the same buffers as its blocking form, so the data, the
 * checks, Table V and the memory estimate are the blocking form's; only
 * the call differs (started, then completed with MPI_Wait). */
safecoll_coll sc__probe_blocking(safecoll_coll coll);

/* The collectives whose global buffer is the message itself (Table V:
 * G_b = s*n): bcast, reduce, allreduce. The others the probe supports
 * have G_b = s*n*P. Their i-forms count as they do. */
int sc__probe_is_bcast_like(safecoll_coll coll);

/* Parses SAFECOLL_PROBE_FAULT. *active is 0 when it is unset or empty.
 * kind: 0 crash, 1 hang, 2 wrong, 3 error, 4 kill; cls: 0 gelem,
 * 1 gbytes, 2 type2, 3 x. MPI_ERR_ARG with a message when malformed. */
typedef struct sc__fault {
    int active;
    int kind;
    int cls;
    MPI_Count bound;
} sc__fault;
enum { SC_FAULT_CRASH, SC_FAULT_HANG, SC_FAULT_WRONG, SC_FAULT_ERROR, SC_FAULT_KILL };
enum { SC_FAULT_GELEM, SC_FAULT_GBYTES, SC_FAULT_TYPE2, SC_FAULT_X };
int sc__fault_parse(const char *spec, sc__fault *out);

/* Whether the fault fires at (coll, n, s, P). */
int sc__fault_fires(const sc__fault *f, safecoll_coll coll, MPI_Count n, int s, int P);

#endif /* SC_PROBE_H */
