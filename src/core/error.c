/*
 * Error messages. Codes are standard MPI error classes so that callers can
 * use MPI_Error_class; the sentence that explains a code is kept per thread,
 * because MPI offers no portable way to attach text to a predefined class.
 */
#include <stdarg.h>
#include <stdio.h>

#include "core.h"

/* The buffer of the operation this thread runs now (sc__error_bind). The
 * thread's last message is a per-thread block (core.h, sc__thread_block),
 * made at the thread's first message. */
static _Thread_local char *op_message;

void sc__error_bind(char *buf)
{
    op_message = buf;
}

int sc__error(int code, const char *fmt, ...)
{
    char *m = sc__thread_block(SC_TBLOCK_ERROR, SC_ERROR_MESSAGE);
    va_list ap;

    /* Out of memory for the thread's block: the operation's buffer still
     * gets the message. */
    if (m == NULL)
        m = op_message;
    if (m != NULL) {
        va_start(ap, fmt);
        vsnprintf(m, SC_ERROR_MESSAGE, fmt, ap);
        va_end(ap);
    }
    /* A non-blocking operation may move between threads (the progress
     * thread, the callers' tests and waits): its message travels with it
     * and is handed to the thread that completes its request. */
    if (op_message != NULL && op_message != m)
        snprintf(op_message, SC_ERROR_MESSAGE, "%s", m);
    return code;
}

/* MPI's rule for an error that has no communicator to be raised on (a
 * null or invalid one) changed with MPI-4.0 (section 2.8, "Error
 * Handling"): MPI-4 raises it on MPI_COMM_SELF, MPI-3.1 and earlier on
 * MPI_COMM_WORLD. The version asked is the running library's, whose rule
 * the native calls follow (Open MPI 4.1 is MPI-3.1: MPI_COMM_WORLD).
 * MPICH 4.0.x says MPI-4.0 but still raises native errors on
 * MPI_COMM_WORLD (fixed in later MPICH); the library follows the standard
 * there, as doc/guide.md says. */
void sc__call_errhandler(MPI_Comm comm, int rc)
{
    int version = 0, subversion = 0;

    if (comm == MPI_COMM_NULL || rc == MPI_ERR_COMM) {
        MPI_Get_version(&version, &subversion);
        comm = version >= 4 ? MPI_COMM_SELF : MPI_COMM_WORLD;
    }
    MPI_Comm_call_errhandler(comm, rc);
}

const char *safecoll_last_error(void)
{
    const char *m = sc__thread_block(SC_TBLOCK_ERROR, SC_ERROR_MESSAGE);

    return m != NULL ? m : "libsafecoll: out of memory for this thread's error message";
}

/* Every error class of MPI-3.1, and those MPI-4 added where the headers
 * have them: a message must name the class the call returns, whatever
 * part of the library or of MPI produced it. */
#define SC_ERROR_CLASSES(X)                                                                     \
    X(MPI_SUCCESS) X(MPI_ERR_BUFFER) X(MPI_ERR_COUNT) X(MPI_ERR_TYPE) X(MPI_ERR_TAG)             \
    X(MPI_ERR_COMM) X(MPI_ERR_RANK) X(MPI_ERR_REQUEST) X(MPI_ERR_ROOT) X(MPI_ERR_GROUP)          \
    X(MPI_ERR_OP) X(MPI_ERR_TOPOLOGY) X(MPI_ERR_DIMS) X(MPI_ERR_ARG) X(MPI_ERR_UNKNOWN)          \
    X(MPI_ERR_TRUNCATE) X(MPI_ERR_OTHER) X(MPI_ERR_INTERN) X(MPI_ERR_IN_STATUS)                  \
    X(MPI_ERR_PENDING) X(MPI_ERR_KEYVAL) X(MPI_ERR_NO_MEM) X(MPI_ERR_BASE)                       \
    X(MPI_ERR_INFO_KEY) X(MPI_ERR_INFO_VALUE) X(MPI_ERR_INFO_NOKEY) X(MPI_ERR_SPAWN)             \
    X(MPI_ERR_PORT) X(MPI_ERR_SERVICE) X(MPI_ERR_NAME) X(MPI_ERR_WIN) X(MPI_ERR_SIZE)            \
    X(MPI_ERR_DISP) X(MPI_ERR_INFO) X(MPI_ERR_LOCKTYPE) X(MPI_ERR_ASSERT)                        \
    X(MPI_ERR_RMA_CONFLICT) X(MPI_ERR_RMA_SYNC) X(MPI_ERR_RMA_RANGE) X(MPI_ERR_RMA_ATTACH)       \
    X(MPI_ERR_RMA_SHARED) X(MPI_ERR_RMA_FLAVOR) X(MPI_ERR_FILE) X(MPI_ERR_NOT_SAME)              \
    X(MPI_ERR_AMODE) X(MPI_ERR_UNSUPPORTED_DATAREP) X(MPI_ERR_UNSUPPORTED_OPERATION)             \
    X(MPI_ERR_NO_SUCH_FILE) X(MPI_ERR_FILE_EXISTS) X(MPI_ERR_BAD_FILE) X(MPI_ERR_ACCESS)         \
    X(MPI_ERR_NO_SPACE) X(MPI_ERR_QUOTA) X(MPI_ERR_READ_ONLY) X(MPI_ERR_FILE_IN_USE)             \
    X(MPI_ERR_DUP_DATAREP) X(MPI_ERR_CONVERSION) X(MPI_ERR_IO)

const char *sc__error_class_name(int code)
{
    static _Thread_local char other[48];
    int cls = code;

    /* MPI_Error_class is callable before MPI_Init only from MPI-4 on; the
     * library's own codes are already classes, so fall back to the code. */
    int inited = 0, finalized = 0;
    MPI_Initialized(&inited);
    MPI_Finalized(&finalized);
    if (inited && !finalized)
        MPI_Error_class(code, &cls);

#define SC_CLASS_CASE(c)                                                                        \
    case c:                                                                                    \
        return #c;
    switch (cls) {
        SC_ERROR_CLASSES(SC_CLASS_CASE)
#ifdef MPI_ERR_SESSION
        SC_CLASS_CASE(MPI_ERR_SESSION)
#endif
#ifdef MPI_ERR_PROC_ABORTED
        SC_CLASS_CASE(MPI_ERR_PROC_ABORTED)
#endif
#ifdef MPI_ERR_VALUE_TOO_LARGE
        SC_CLASS_CASE(MPI_ERR_VALUE_TOO_LARGE)
#endif
    default:
        break;
    }
#undef SC_CLASS_CASE
    /* A class added with MPI_Add_error_class: its number, not a name that
     * would be another class's. */
    snprintf(other, sizeof other, "error class %d", cls);
    return other;
}
