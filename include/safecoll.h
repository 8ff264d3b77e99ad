/**
 * \file safecoll.h
 * \brief Umbrella header of libsafecoll: include this one file.
 *
 * libsafecoll keeps MPI collective communication correct when scale breaks
 * it. Each safe collective takes exactly the parameters of the MPI function
 * it replaces (`safecoll_gatherv` for `MPI_Gatherv`), detects the known
 * triggers of scaling problems, agrees on them across ranks and runs an
 * avoidance that gives the result the intended call would.
 *
 * \section errors Error convention
 * Every function that can fail returns an MPI error code: `MPI_SUCCESS`, or
 * a code of a standard MPI error class (`MPI_ERR_ARG`, `MPI_ERR_COUNT`,
 * `MPI_ERR_BUFFER`, `MPI_ERR_ROOT`, `MPI_ERR_TYPE`, `MPI_ERR_COMM`,
 * `MPI_ERR_NO_MEM`, `MPI_ERR_UNSUPPORTED_OPERATION`, `MPI_ERR_OTHER`):
 * compare `MPI_Error_class` of it with the class, as for MPI's own codes.
 * The safe collectives also invoke the communicator's error handler
 * exactly once, as MPI would, with the library's own code of the class
 * where the MPI carries one (added with `MPI_Add_error_code`, so that
 * `MPI_Error_string` names libsafecoll). A sentence naming the argument
 * and the rank is kept per thread and returned by safecoll_last_error();
 * when the handler ends the job (`MPI_ERRORS_ARE_FATAL`,
 * `MPI_ERRORS_ABORT`), or with `SAFECOLL_VERBOSE=1`, it is first written
 * to stderr as "libsafecoll: rank R: sentence".
 *
 * \section runtime What this header includes
 * The runtime, what an application calls: the version and errors (here),
 * displacement recovery (safecoll/displs.h), configuration and statistics
 * (safecoll/config.h), the safe collectives (safecoll/coll.h) and the bound
 * registry (safecoll/bounds.h), which an application loads and queries at
 * run time (`SAFECOLL_BOUNDS`, performance records).
 *
 * Not included: the testing toolkit, which tests the installed MPI rather
 * than protecting a call. safecoll/probe.h (the in-job probe, and the
 * search, a driver that launches `mpiexec` jobs) and safecoll/guideline.h
 * (the performance guideline test) are included explicitly by the
 * programs that use them, as the `safecoll` command-line tool does:
 * \code
 * #include <safecoll/probe.h>      // includes <safecoll.h>
 * #include <safecoll/guideline.h>  // includes <safecoll.h>
 * \endcode
 * The functions of both are in the same library, libsafecoll.
 */
#ifndef SAFECOLL_H
#define SAFECOLL_H

#include <mpi.h>

/** \defgroup version Version
 *  \brief Compile-time and run-time version of libsafecoll.
 *  Same major version means same ABI.
 *  @{ */
/** Major version: changes when the ABI breaks. */
#define SAFECOLL_VERSION_MAJOR 0
/** Minor version: new features, ABI compatible. */
#define SAFECOLL_VERSION_MINOR 1
/** Patch version: fixes only. */
#define SAFECOLL_VERSION_PATCH 0
/** The version as one comparable number: major*10000 + minor*100 + patch. */
#define SAFECOLL_VERSION_NUMBER \
    (SAFECOLL_VERSION_MAJOR * 10000 + SAFECOLL_VERSION_MINOR * 100 + SAFECOLL_VERSION_PATCH)
/** @} */

/** \cond INTERNAL */
#if defined(SAFECOLL_BUILDING) && defined(__GNUC__)
#define SAFECOLL_API __attribute__((visibility("default")))
#else
#define SAFECOLL_API
#endif
/** \endcond */

#ifdef __cplusplus
extern "C" {
#endif

/** \addtogroup version
 *  @{ */
/**
 * \brief The version of the library the program runs with.
 * \return SAFECOLL_VERSION_NUMBER of the linked library.
 */
SAFECOLL_API int safecoll_version(void);

/**
 * \brief The version of the running library as a string, e.g. "0.1.0".
 * \return A static string; never NULL.
 */
SAFECOLL_API const char *safecoll_version_string(void);
/** @} */

/** \defgroup errors Errors
 *  \brief How libsafecoll reports what went wrong.
 *  @{ */
/**
 * \brief The message of the last error libsafecoll reported in this thread.
 *
 * The message names the function, the argument and the rank, e.g.
 * "safecoll_gatherv: rank 0: recvcounts[3] is negative (-5)". It stays until
 * the next error in the same thread.
 * \return A thread-local string; "" when no error has happened yet.
 */
SAFECOLL_API const char *safecoll_last_error(void);

/**
 * \brief Raise an error as the library's own calls do, with your message.
 *
 * For code built on libsafecoll that finds an error the wrappers would
 * report the same way: a language binding (the Fortran binding refuses a
 * non-contiguous buffer with it), or a collective of your own written with
 * the recovery API. The message becomes this thread's
 * safecoll_last_error(); when comm's error handler ends the job
 * (`MPI_ERRORS_ARE_FATAL`, `MPI_ERRORS_ABORT`) it is first written to
 * stderr as `libsafecoll: rank R: MESSAGE` (R: the rank in
 * `MPI_COMM_WORLD`), as under `SAFECOLL_VERBOSE=1` whatever the handler;
 * then comm's error handler is called with the code, as MPI would.
 * \param[in] comm     the communicator whose handler is called;
 *                     `MPI_COMM_NULL`: the one the MPI standard of the
 *                     running library names (doc/guide.md, "Errors")
 * \param[in] errclass a predefined MPI error class, e.g. MPI_ERR_BUFFER
 * \param[in] message  the sentence, best naming the function, the rank and
 *                     the argument: "my_gather: rank 2: sendbuf is NULL"
 * \return The code raised, of class errclass: the library's own code of
 *         that class where the MPI carries one, else errclass itself
 *         (compare with MPI_Error_class). A NULL message or an errclass
 *         that is no predefined error class raises MPI_ERR_ARG instead,
 *         its message naming the mistake.
 * \note The handler is called when it returns (`MPI_ERRORS_RETURN`, a
 *       handler of your own), so the caller returns the code without
 *       calling the handler again.
 */
SAFECOLL_API int safecoll_error_raise(MPI_Comm comm, int errclass, const char *message);
/** @} */

#ifdef __cplusplus
}
#endif

#include "safecoll/displs.h"
#include "safecoll/config.h"
#include "safecoll/coll.h"
#include "safecoll/bounds.h"
#include "safecoll/hang.h"
#include "safecoll/p2p.h"
/* Not safecoll/probe.h nor safecoll/guideline.h: the testing toolkit is
 * included explicitly by the programs that use it (see above). */

#endif /* SAFECOLL_H */
