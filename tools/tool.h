/*
 * Commands of bin/safecoll that live outside tools/safecoll.c.
 */
#ifndef SAFECOLL_TOOL_H
#define SAFECOLL_TOOL_H

/* `safecoll probe ...`: the in-job worker of a search (an MPI program). */
int tool_probe(int argc, char **argv);

/* `safecoll search ...`: the driver, outside MPI. */
int tool_search(int argc, char **argv);

/* `safecoll guideline ...`: the driver, and with --worker the in-job
 * timing (tools/guideline.c). */
int tool_guideline(int argc, char **argv);

/* `safecoll bisect ... -- CMD...`: which collective makes CMD fail
 * (tools/bisect.c). */
int tool_bisect(int argc, char **argv);

/* Shared option parsing (tools/search.c). */

/* Digits with an optional Ki, Mi, Gi, Ti suffix, in [lo, hi]; 0 or -1. */
int tool_parse_num(const char *s, long long lo, long long hi, long long *out);

/* A positive number of seconds, at most 1e7; 0 or -1. */
int tool_parse_secs(const char *s, double *out);

/* Splits s in place at commas into at most max items; the count, or -1. */
int tool_split_list(char *s, char **items, int max);

#endif /* SAFECOLL_TOOL_H */
