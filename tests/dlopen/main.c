/*
 * Loads libsafecoll.so with dlopen() after MPI_Init, as a language binding
 * or a plugin would, and calls it: a safe allreduce, an error and its
 * message (from a thread of its own too, whose per-thread state is freed
 * when it exits), and the hang monitor's marks. Prints "dlopen: ok".
 *
 *   main LIBSAFECOLL_SO        (built without -lsafecoll; tests/check-dlopen.sh)
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <mpi.h>

typedef int (*allreduce_fn)(const void *, void *, int, MPI_Datatype, MPI_Op, MPI_Comm);
typedef const char *(*last_error_fn)(void);
typedef int (*hang_start_fn)(MPI_Comm, const void *);
typedef int (*hang_stop_fn)(MPI_Comm);

static allreduce_fn allreduce;
static last_error_fn last_error;

/* The class of an error code: the library's codes are its own where the
 * MPI can name them (Open MPI), added to the standard classes. */
static int err_class(int rc)
{
    int cls;
    return MPI_Error_class(rc, &cls) == MPI_SUCCESS ? cls : rc;
}

static void *fail_in_thread(void *arg)
{
    double x = 1, y = 0;
    int *ok = arg;

    /* A negative count: MPI_ERR_COUNT (the library's own check), with a
     * message in this thread's state. */
    *ok = err_class(allreduce(&x, &y, -1, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF)) == MPI_ERR_COUNT &&
          strstr(last_error(), "count") != NULL;
    return NULL;
}

static void *sym(void *lib, const char *name)
{
    void *p = dlsym(lib, name);

    if (p == NULL)
        fprintf(stderr, "dlopen: no symbol %s: %s\n", name, dlerror());
    return p;
}

int main(int argc, char **argv)
{
    double one = 1, sum = 0;
    int rank, size, ok = 1, thread_ok = 0;
    void *lib;
    hang_start_fn hang_start;
    hang_stop_fn hang_stop;
    pthread_t t;

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc != 2 || (lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL)) == NULL) {
        fprintf(stderr, "dlopen: %s\n", argc != 2 ? "usage: main LIBSAFECOLL_SO" : dlerror());
        MPI_Abort(MPI_COMM_WORLD, 1);
        return 1;
    }
    allreduce = (allreduce_fn)sym(lib, "safecoll_allreduce");
    last_error = (last_error_fn)sym(lib, "safecoll_last_error");
    hang_start = (hang_start_fn)sym(lib, "safecoll_hang_start");
    hang_stop = (hang_stop_fn)sym(lib, "safecoll_hang_stop");
    if (!allreduce || !last_error || !hang_start || !hang_stop)
        MPI_Abort(MPI_COMM_WORLD, 1);

    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    ok &= allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS &&
          sum == size;
    /* An error and its message on this thread, then on another. */
    ok &= err_class(allreduce(&one, &sum, -1, MPI_DOUBLE, MPI_SUM, MPI_COMM_SELF)) ==
              MPI_ERR_COUNT &&
          strstr(last_error(), "count") != NULL;
    ok &= pthread_create(&t, NULL, fail_in_thread, &thread_ok) == 0 &&
          pthread_join(t, NULL) == 0 && thread_ok;
    /* The marks (initial-exec thread-locals) with a monitor running. */
    ok &= hang_start(MPI_COMM_WORLD, NULL) == MPI_SUCCESS;
    for (int i = 0; ok && i < 100; i++)
        ok &= allreduce(&one, &sum, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD) == MPI_SUCCESS &&
              sum == size;
    ok &= hang_stop(MPI_COMM_WORLD) == MPI_SUCCESS;

    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (rank == 0)
        printf("dlopen: %s\n", ok ? "ok" : "FAILED");
    MPI_Finalize();
    return ok ? 0 : 1;
}
