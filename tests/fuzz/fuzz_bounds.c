/*
 * libFuzzer target of the bound-file parser (`make fuzz`).
 *
 * Each input is a bound file: it is loaded with
 * safecoll_bounds_load_string (a NUL-terminated copy, since the API takes a
 * C string) and the registry is cleared again, so inputs do not pile up.
 * Besides crashes, leaks and undefined behaviour (ASan, UBSan), properties
 * are checked on every input the parser accepts; a violation aborts, and
 * libFuzzer keeps the input:
 * - each record, formatted and parsed again, comes back unchanged;
 * - each record whose library pattern matches the (fixed) library string
 *   is found by safecoll_bounds_match_kind for its kind, and for a
 *   correctness record the detectors' fast path sc__bounds_limit returns a
 *   limit no larger than its bound.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "safecoll.h"

#include "bounds.h"

/* A fixed library string, so that runs do not depend on the MPI installed. */
static const char library[] = "MPICH Version:\t4.0.2\nMPICH Release date:\tThu Apr  7 2022\n";

/* A record that applies to the library must be seen by match and limit at
 * the smallest s and P of its ranges. */
static void check_applies(const safecoll_bound *b, size_t index)
{
    MPI_Count lim[SAFECOLL_NBOUND_CLASS];
    int p = b->p_min > 0 ? b->p_min : 1;
    size_t n = 0;

    if (p > b->p_max || !sc__bound_library_matches(b, library))
        return; /* it can never apply here */
    /* Each kind is matched on its own; the detectors' limits are those of
     * the correctness records only (performance records route calls,
     * sc__bounds_perf, and never shrink a limit). */
    if (safecoll_bounds_match_kind(b->kind, b->collective, b->s_min, p, library, NULL, 0, &n) !=
            MPI_SUCCESS ||
        n == 0 ||
        (b->kind == SAFECOLL_BOUND_CORRECTNESS &&
         (sc__bounds_limit(b->collective, b->s_min, p, &lim[0], &lim[1], &lim[2]) !=
              MPI_SUCCESS ||
          lim[b->cls] < 0 || lim[b->cls] > b->bound))) {
        fprintf(stderr, "record %zu (bound %lld) not seen by match (%zu) or limit\n", index,
                (long long)b->bound, n);
        abort();
    }
}

static void same_or_abort(const safecoll_bound *a, const safecoll_bound *b, const char *line)
{
    if (a->collective != b->collective || a->cls != b->cls || a->bound != b->bound ||
        a->s_min != b->s_min || a->s_max != b->s_max || a->p_min != b->p_min ||
        a->p_max != b->p_max || strcmp(a->mpi, b->mpi) != 0 || a->source != b->source ||
        a->n_s != b->n_s || a->delta != b->delta || strcmp(a->date, b->date) != 0 ||
        strcmp(a->note, b->note) != 0) {
        fprintf(stderr, "round trip changed the record of line: %s\n", line);
        abort();
    }
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    /* Only the input may reach the registry. */
    setenv("SAFECOLL_KNOWN_BOUNDS", "", 1);
    setenv("SAFECOLL_BOUNDS", "", 1);
    if (sc__bounds_set_library(library) != MPI_SUCCESS)
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static char line[SAFECOLL_BOUND_LINE_MAX];
    char *text = malloc(size + 1);
    size_t n = 0;

    if (text == NULL)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';

    if (safecoll_bounds_load_string(text, "fuzz") == MPI_SUCCESS) {
        if (safecoll_bounds_count(&n) != MPI_SUCCESS)
            abort();
        for (size_t i = 0; i < n; i++) {
            safecoll_bound b, again;
            if (safecoll_bounds_get(i, &b) != MPI_SUCCESS ||
                safecoll_bounds_format(&b, line, sizeof line) != MPI_SUCCESS ||
                safecoll_bounds_parse(line, &again) != MPI_SUCCESS) {
                fprintf(stderr, "accepted record %zu does not format and parse: %s\n", i,
                        safecoll_last_error());
                abort();
            }
            same_or_abort(&b, &again, line);
            check_applies(&b, i);
        }
    }
    /* The single-line parser on the first line of the input, too. */
    {
        safecoll_bound b, again;
        char *nl = strchr(text, '\n');
        if (nl != NULL)
            nl[1] = '\0';
        if (safecoll_bounds_parse(text, &b) == MPI_SUCCESS) {
            if (safecoll_bounds_format(&b, line, sizeof line) != MPI_SUCCESS ||
                safecoll_bounds_parse(line, &again) != MPI_SUCCESS)
                abort();
            same_or_abort(&b, &again, line);
        }
    }
    if (safecoll_bounds_clear() != MPI_SUCCESS)
        abort();
    free(text);
    return 0;
}
