/*
 * Error messages. Codes belong to the standard MPI error classes so that
 * callers can use MPI_Error_class; the sentence that explains a code is
 * kept per thread, because MPI offers no way to attach a per-call text to
 * a code. Once MPI runs, the codes a wrapper raises are the library's own,
 * added to those classes with MPI_Add_error_code, so that MPI_Error_string
 * and MPI's fatal handler name libsafecoll; and before a handler that ends
 * the job runs, the precise message goes to stderr, where a dead job can
 * still say why.
 */
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "core.h"

/* The code of this thread's last sc__error, until an error handler is
 * invoked with it: an error raised with that code is the library's (its
 * message is this thread's), any other is MPI's own, passed on as is. */
static _Thread_local int pending_code;
/* 1 when the pending message was already written to stderr. */
static _Thread_local int pending_printed;

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
    pending_code = code;
    pending_printed = 0;
    /* A non-blocking operation may move between threads (the progress
     * thread, the callers' tests and waits): its message travels with it
     * and is handed to the thread that completes its request. */
    if (op_message != NULL && op_message != m)
        snprintf(op_message, SC_ERROR_MESSAGE, "%s", m);
    return code;
}

void sc__error_printed(void)
{
    pending_printed = 1;
}

/* The classes whose library errors get a code of their own: those the
 * library raises (the file classes: a bounds file it cannot read).
 * MPI_ERR_IN_STATUS and MPI_ERR_PENDING keep their meaning (look in the
 * statuses) and are never replaced. */
#define SC_REGISTERED(X)                                                                        \
    X(MPI_ERR_ARG) X(MPI_ERR_BUFFER) X(MPI_ERR_COUNT) X(MPI_ERR_TYPE) X(MPI_ERR_ROOT)            \
    X(MPI_ERR_OP) X(MPI_ERR_COMM) X(MPI_ERR_RANK) X(MPI_ERR_TAG) X(MPI_ERR_REQUEST)              \
    X(MPI_ERR_NO_MEM) X(MPI_ERR_OTHER) X(MPI_ERR_INTERN) X(MPI_ERR_TRUNCATE)                     \
    X(MPI_ERR_NOT_SAME) X(MPI_ERR_UNSUPPORTED_OPERATION) X(MPI_ERR_NO_SUCH_FILE)                 \
    X(MPI_ERR_ACCESS) X(MPI_ERR_IO)

#define SC_REG_CLASS(c) c,
static const int reg_class[] = {SC_REGISTERED(SC_REG_CLASS)};
#undef SC_REG_CLASS
enum { SC_NREG = sizeof reg_class / sizeof reg_class[0] };
static int reg_code[SC_NREG];
static int reg_ok;
static pthread_once_t reg_once = PTHREAD_ONCE_INIT;

/* Adds one code per class and its string. The codes are used only when
 * every one reads back as written: MPICH 4.0 builds a code added to a
 * predefined class as the class plus an index in bits 8 and up, without
 * its mark of a dynamic code (which only a dynamic class carries), so
 * MPI_Error_string decodes it as one of MPICH's own codes: the class's
 * text and an unrelated message from MPICH's table, never the string
 * added (doc/guide.md, "Why MPICH 4.0 cannot name the library"). There
 * the library's errors stay the bare classes, and only the stderr line
 * names the library. A class of the library's own would be named, but
 * MPI_Error_class would no longer give the standard class callers
 * compare with, so none is added. The check is the same on every rank
 * of a job. */
static void register_codes(void)
{
    char want[160], got[MPI_MAX_ERROR_STRING];
    int len, cls;

    for (int i = 0; i < SC_NREG; i++) {
        if (MPI_Add_error_code(reg_class[i], &reg_code[i]) != MPI_SUCCESS)
            return;
        snprintf(want, sizeof want,
                 "libsafecoll: %s; the reason is in safecoll_last_error() and, "
                 "under a fatal error handler, on stderr",
                 sc__error_class_name(reg_class[i]));
        if (MPI_Add_error_string(reg_code[i], want) != MPI_SUCCESS)
            return;
        got[0] = '\0';
        if (MPI_Error_string(reg_code[i], got, &len) != MPI_SUCCESS || strcmp(got, want) != 0)
            return;
        if (MPI_Error_class(reg_code[i], &cls) != MPI_SUCCESS || cls != reg_class[i] ||
            reg_code[i] == reg_class[i])
            return;
    }
    reg_ok = 1;
}

/* The code a library error of class rc is raised and returned with. */
static int public_code(int rc)
{
    int inited = 0, finalized = 0;

    MPI_Initialized(&inited);
    MPI_Finalized(&finalized);
    if (!inited || finalized)
        return rc;
    pthread_once(&reg_once, register_codes);
    if (!reg_ok)
        return rc;
    for (int i = 0; i < SC_NREG; i++)
        if (reg_class[i] == rc)
            return reg_code[i];
    return rc;
}

/* 1 when comm's error handler ends the job (MPI_ERRORS_ARE_FATAL,
 * MPI_ERRORS_ABORT) or cannot be told: the message must reach stderr
 * before it runs. MPI_ERRORS_RETURN and a user's handler get the code. */
static int ends_job(MPI_Comm comm)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;
    int fatal = 1;

    if (MPI_Comm_get_errhandler(comm, &eh) != MPI_SUCCESS || eh == MPI_ERRHANDLER_NULL)
        return 1;
    if (eh != MPI_ERRORS_ARE_FATAL
#ifdef MPI_ERRORS_ABORT
        && eh != MPI_ERRORS_ABORT
#endif
    )
        fatal = 0;
    MPI_Errhandler_free(&eh);
    return fatal;
}

/* One write(2) per line, so that the lines of ranks sharing a terminal do
 * not interleave, and nothing waits in a stdio buffer when MPI aborts. */
static void print_message(void)
{
    char line[SC_ERROR_MESSAGE + 64];
    int rank = -1, inited = 0, finalized = 0, n;

    MPI_Initialized(&inited);
    MPI_Finalized(&finalized);
    if (inited && !finalized)
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank >= 0)
        n = snprintf(line, sizeof line, "libsafecoll: rank %d: %s\n", rank,
                     safecoll_last_error());
    else
        n = snprintf(line, sizeof line, "libsafecoll: %s\n", safecoll_last_error());
    if (n < 0)
        return;
    if ((size_t)n >= sizeof line)
        n = (int)sizeof line - 1;
    fflush(stderr);
    for (ssize_t done = 0, w; done < n; done += w)
        if ((w = write(STDERR_FILENO, line + done, (size_t)(n - done))) <= 0)
            break;
}

/* MPI raises the error of a completed generalized request on
 * MPI_COMM_SELF (MPI-4) or MPI_COMM_WORLD (MPI-3.1, and MPICH 4.0, whose
 * MPI_Wait raises it there): printed when either ends the job, so that
 * the message is never lost. */
void sc__error_at_completion(int rc)
{
    if (rc != pending_code || pending_printed)
        return;
    int ends = ends_job(MPI_COMM_WORLD) || ends_job(MPI_COMM_SELF);
    if (ends || sc__config_verbose())
        print_message();
    if (ends)
        sc__sleep(SC_ABORT_GRACE);
    pending_printed = 1;
}

/* MPI's rule for an error that has no communicator to be raised on (a
 * null or invalid one) changed with MPI-4.0 (section 2.8, "Error
 * Handling"): MPI-4 raises it on MPI_COMM_SELF, MPI-3.1 and earlier on
 * MPI_COMM_WORLD. The version asked is the running library's, whose rule
 * the native calls follow (Open MPI 4.1 is MPI-3.1: MPI_COMM_WORLD).
 * MPICH 4.0.x says MPI-4.0 but still raises native errors on
 * MPI_COMM_WORLD (fixed in later MPICH); the library follows the standard
 * there, as doc/guide.md says. */
int sc__call_errhandler(MPI_Comm comm, int rc)
{
    int version = 0, subversion = 0;
    int ours = rc != MPI_SUCCESS && rc == pending_code;

    if (comm == MPI_COMM_NULL || rc == MPI_ERR_COMM) {
        MPI_Get_version(&version, &subversion);
        comm = version >= 4 ? MPI_COMM_SELF : MPI_COMM_WORLD;
    }
    if (ours) {
        int ends = !pending_printed && ends_job(comm);
        if (ends || (!pending_printed && sc__config_verbose()))
            print_message();
        if (ends)
            sc__sleep(SC_ABORT_GRACE);
        pending_code = MPI_SUCCESS;
        rc = public_code(rc);
    }
    MPI_Comm_call_errhandler(comm, rc);
    return rc;
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

/* 1 for a predefined error class other than MPI_SUCCESS (no MPI call:
 * MPI_Error_class on a bad code would raise an error of its own). */
static int predefined_class(int c)
{
#define SC_CLASS_IS(x)                                                                          \
    case x:                                                                                    \
        return c != MPI_SUCCESS;
    switch (c) {
        SC_ERROR_CLASSES(SC_CLASS_IS)
#ifdef MPI_ERR_SESSION
        SC_CLASS_IS(MPI_ERR_SESSION)
#endif
#ifdef MPI_ERR_PROC_ABORTED
        SC_CLASS_IS(MPI_ERR_PROC_ABORTED)
#endif
#ifdef MPI_ERR_VALUE_TOO_LARGE
        SC_CLASS_IS(MPI_ERR_VALUE_TOO_LARGE)
#endif
    default:
        return 0;
    }
#undef SC_CLASS_IS
}

int safecoll_error_raise(MPI_Comm comm, int errclass, const char *message)
{
    int rc;

    if (message == NULL)
        rc = sc__error(MPI_ERR_ARG, "safecoll_error_raise: message is NULL (class %d)",
                       errclass);
    else if (!predefined_class(errclass))
        rc = sc__error(MPI_ERR_ARG, "safecoll_error_raise: %d is no predefined MPI error class "
                       "(message: %s)", errclass, message);
    else
        rc = sc__error(errclass, "%s", message);
    return sc__call_errhandler(comm, rc);
}
