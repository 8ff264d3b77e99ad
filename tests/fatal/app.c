/*
 * A program that gives the library bad input, for tests/check-fatal.sh.
 * argv[1] names the case:
 *
 *   allreduce  one safecoll_allreduce under MPI's default error handler
 *              (MPI_ERRORS_ARE_FATAL): the bad input is in the environment
 *              (SAFECOLL_STRATEGY, SAFECOLL_BOUNDS);
 *   null       safecoll_gatherv with a NULL recvcounts at the root, under
 *              the default handler;
 *   inull      the same with safecoll_igatherv and MPI_Wait;
 *   codes      safecoll_allreduce with a NULL sendbuf under
 *              MPI_ERRORS_RETURN: the code returned is in MPI_ERR_BUFFER and
 *              MPI_Error_string names libsafecoll.
 *
 * A rank that gets past the call prints "fatal-app: rank R survived" (in
 * the null case a rank other than the root may: on MPICH 4 its part of an
 * irregular collective decides alone, doc/guide.md); the
 * codes case prints "fatal-app: rank R code ok", "... code unsupported:
 * WHY" (this MPI cannot carry a code added to a predefined class, checked
 * here apart from the library) or "... code wrong: WHAT".
 */
#include <stdio.h>
#include <string.h>

#include <safecoll.h>

/* 1 when this MPI reads back a code added to a predefined class with its
 * class and string, as the library needs to name itself in
 * MPI_Error_string; else 0 and *why says what it did instead. */
static int mpi_carries_codes(char *why, size_t len)
{
    char got[MPI_MAX_ERROR_STRING];
    const char *want = "fatal-app probe string";
    int code, cls, n;

    if (MPI_Add_error_code(MPI_ERR_OTHER, &code) != MPI_SUCCESS ||
        MPI_Add_error_string(code, want) != MPI_SUCCESS) {
        snprintf(why, len, "MPI_Add_error_code or MPI_Add_error_string failed");
        return 0;
    }
    MPI_Error_string(code, got, &n);
    MPI_Error_class(code, &cls);
    if (strcmp(got, want) != 0 || cls != MPI_ERR_OTHER) {
        for (char *c = got; *c != '\0'; c++)
            if (*c == '\n')
                *c = ' ';
        int dcls, dcode, dlen;
        char dgot[MPI_MAX_ERROR_STRING] = "";
        /* The same with a class of the program's own: MPICH 4.0 names
         * that one, but its class is no standard one (doc/guide.md, "Why
         * MPICH 4.0 cannot name the library"). */
        if (MPI_Add_error_class(&dcls) == MPI_SUCCESS &&
            MPI_Add_error_code(dcls, &dcode) == MPI_SUCCESS &&
            MPI_Add_error_string(dcode, want) == MPI_SUCCESS)
            MPI_Error_string(dcode, dgot, &dlen);
        snprintf(why, len,
                 "a code added to MPI_ERR_OTHER reads back as class %d, string '%.80s'; "
                 "one added to a class of its own %s", cls, got,
                 strcmp(dgot, want) == 0 ? "reads back right, but that class is no standard one"
                                         : "does not read back either");
        return 0;
    }
    return 1;
}

static int codes(int me)
{
    char s[MPI_MAX_ERROR_STRING], why[400];
    int y = 0, cls = -1, len, rc;

    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    rc = safecoll_allreduce(NULL, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    MPI_Error_class(rc, &cls);
    s[0] = '\0';
    MPI_Error_string(rc, s, &len);
    if (cls != MPI_ERR_BUFFER)
        printf("fatal-app: rank %d code wrong: class %d, not MPI_ERR_BUFFER (%d)\n", me, cls,
               MPI_ERR_BUFFER);
    else if (strstr(s, "libsafecoll") != NULL)
        printf("fatal-app: rank %d code ok: '%s'\n", me, s);
    else if (!mpi_carries_codes(why, sizeof why))
        printf("fatal-app: rank %d code unsupported: %s\n", me, why);
    else
        printf("fatal-app: rank %d code wrong: MPI_Error_string says '%s'\n", me, s);
    return 0;
}

int main(int argc, char **argv)
{
    int me, p, x = 1, y = 0;
    int counts[64], displs[64], out[64];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &p);
    if (argc < 2 || p > 64) {
        fprintf(stderr, "usage: app allreduce|null|codes (at most 64 ranks)\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    if (strcmp(argv[1], "codes") == 0) {
        codes(me);
    } else if (strcmp(argv[1], "null") == 0) {
        for (int i = 0; i < p; i++) {
            counts[i] = 1;
            displs[i] = i;
        }
        safecoll_gatherv(&x, 1, MPI_INT, out, me == 0 ? NULL : counts, displs, MPI_INT, 0,
                         MPI_COMM_WORLD);
        printf("fatal-app: rank %d survived\n", me);
    } else if (strcmp(argv[1], "inull") == 0) {
        MPI_Request req;
        for (int i = 0; i < p; i++) {
            counts[i] = 1;
            displs[i] = i;
        }
        safecoll_igatherv(&x, 1, MPI_INT, out, me == 0 ? NULL : counts, displs, MPI_INT, 0,
                          MPI_COMM_WORLD, &req);
        MPI_Wait(&req, MPI_STATUS_IGNORE);
        printf("fatal-app: rank %d survived\n", me);
    } else {
        safecoll_allreduce(&x, &y, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
        printf("fatal-app: rank %d survived\n", me);
    }
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
