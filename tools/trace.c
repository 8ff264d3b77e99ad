/*
 * safecoll trace analyze DIR: the hand-written collectives of a recorded
 * trace (include/safecoll/trace.h), offline, in this one process: the
 * table on stdout, one JSON object per finding to --json FILE.
 */
#define _POSIX_C_SOURCE 200809L

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <safecoll.h>
#include <safecoll/trace.h>

#include "tool.h"

enum { EXIT_OK = 0, EXIT_DATA = 1, EXIT_USAGE = 2 };

static const char analyze_usage[] =
    "usage: safecoll trace analyze DIR [options]\n"
    "\n"
    "Find the collectives an application wrote with point-to-point messages\n"
    "in the trace files DIR/trace.0 ... DIR/trace.<P-1> (paper 001): broadcasts\n"
    "of any shape, allgathers, all-to-alls and barriers, and with the data a\n"
    "root keeps (safecoll_trace_self) scatters, gathers and integer sum or xor\n"
    "reductions; over all ranks or a subset (with the MPI_Comm_split that makes\n"
    "its communicator). A broadcast that misses a few ranks is a near-match.\n"
    "The table ranks the findings by the time they took in the trace.\n"
    "\n"
    "Options:\n"
    "  --json FILE       also write one JSON object per finding, one a line\n"
    "  --min-ranks K     the fewest ranks of a collective (default 3, at least 3)\n"
    "  --near K          a broadcast missing at most K ranks of the job is a\n"
    "                    near-match (default 1; 0: none)\n"
    "  --top N           show the first N findings only (default all)\n"
    "Exit status: 0 analyzed (findings or not), 1 a trace file is missing,\n"
    "unreadable, truncated or corrupted, or files of two recordings, or FILE\n"
    "could not be written, 2 wrong usage.\n"
    "The file format and the method: " SAFECOLL_DOCDIR "/trace.md.\n";

static int usage(const char *what, const char *arg)
{
    fprintf(stderr, "safecoll: trace analyze: %s%s%s\n%s", what, arg ? ": " : "",
            arg ? arg : "", analyze_usage);
    return EXIT_USAGE;
}

int tool_trace_analyze(int argc, char **argv)
{
    const char *dir = NULL, *json = NULL;
    safecoll_trace_options opt;
    safecoll_trace_report *rep = NULL;
    long long v;
    int rc;

    safecoll_trace_options_init(&opt);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            fputs(analyze_usage, stdout);
            return EXIT_OK;
        }
        if (strcmp(a, "--json") == 0 || strcmp(a, "--min-ranks") == 0 ||
            strcmp(a, "--near") == 0) {
            if (i + 1 >= argc)
                return usage("missing value after", a);
            const char *val = argv[++i];
            if (strcmp(a, "--json") == 0) {
                json = val;
            } else if (strcmp(a, "--min-ranks") == 0) {
                if (tool_parse_num(val, 3, 1 << 30, &v) != 0)
                    return usage("--min-ranks takes a number of at least 3", val);
                opt.min_ranks = (int)v;
            } else {
                if (tool_parse_num(val, 0, 1 << 30, &v) != 0)
                    return usage("--near takes a number of at least 0", val);
                opt.near = (int)v;
            }
            continue;
        }
        if (a[0] == '-' && a[1] != '\0')
            return usage("unknown option", a);
        if (dir != NULL)
            return usage("more than one DIR", a);
        dir = a;
    }
    if (dir == NULL)
        return usage("missing DIR", NULL);
    if ((rc = safecoll_trace_analyze(dir, &opt, &rep)) != MPI_SUCCESS) {
        const char *m = safecoll_last_error();
        fprintf(stderr, "safecoll: trace analyze: %s\n",
                strncmp(m, "trace: ", 7) == 0 ? m + 7 : m);
        return rc == MPI_ERR_ARG ? EXIT_USAGE : EXIT_DATA;
    }
    if (json != NULL) {
        FILE *fp = fopen(json, "w");
        if (fp == NULL || safecoll_trace_report_json(rep, fp) != MPI_SUCCESS ||
            fclose(fp) != 0) {
            fprintf(stderr, "safecoll: trace analyze: cannot write %s: %s\n", json,
                    strerror(errno));
            safecoll_trace_report_destroy(rep);
            return EXIT_DATA;
        }
    }
    safecoll_trace_report_print(rep, stdout);
    safecoll_trace_report_destroy(rep);
    return EXIT_OK;
}
