/*
 * Error messages. Codes are standard MPI error classes so that callers can
 * use MPI_Error_class; the sentence that explains a code is kept per thread,
 * because MPI offers no portable way to attach text to a predefined class.
 */
#include <stdarg.h>
#include <stdio.h>

#include "core.h"
#include "nb.h"

static _Thread_local char last_message[512];

int sc__error(int code, const char *fmt, ...)
{
    va_list ap;
    char *op_message;

    va_start(ap, fmt);
    vsnprintf(last_message, sizeof last_message, fmt, ap);
    va_end(ap);
    /* A non-blocking operation may move between threads (the progress
     * thread, the callers' tests and waits): its message travels with it
     * and is handed to the thread that completes its request. */
    if ((op_message = sc__nb_message()) != NULL)
        snprintf(op_message, SC_NB_MESSAGE, "%s", last_message);
    return code;
}

const char *safecoll_last_error(void)
{
    return last_message;
}

const char *sc__error_class_name(int code)
{
    int cls = code;

    /* MPI_Error_class is callable before MPI_Init only from MPI-4 on; the
     * library's own codes are already classes, so fall back to the code. */
    int inited = 0, finalized = 0;
    MPI_Initialized(&inited);
    MPI_Finalized(&finalized);
    if (inited && !finalized)
        MPI_Error_class(code, &cls);

    switch (cls) {
    case MPI_SUCCESS: return "MPI_SUCCESS";
    case MPI_ERR_ARG: return "MPI_ERR_ARG";
    case MPI_ERR_COUNT: return "MPI_ERR_COUNT";
    case MPI_ERR_BUFFER: return "MPI_ERR_BUFFER";
    case MPI_ERR_ROOT: return "MPI_ERR_ROOT";
    case MPI_ERR_TYPE: return "MPI_ERR_TYPE";
    case MPI_ERR_COMM: return "MPI_ERR_COMM";
    case MPI_ERR_NO_MEM: return "MPI_ERR_NO_MEM";
    case MPI_ERR_TRUNCATE: return "MPI_ERR_TRUNCATE";
    case MPI_ERR_UNSUPPORTED_OPERATION: return "MPI_ERR_UNSUPPORTED_OPERATION";
    case MPI_ERR_INTERN: return "MPI_ERR_INTERN";
    default: return "MPI_ERR_OTHER";
    }
}
