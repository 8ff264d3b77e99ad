/*
 * Commands of bin/safecoll that live outside tools/safecoll.c.
 */
#ifndef SAFECOLL_TOOL_H
#define SAFECOLL_TOOL_H

/* Where `make install` puts the documents the help texts name (the
 * Makefile's docdir, passed by the compiler), so that the help points at
 * the installed bounds-format.md and testing.md, not at the source tree. */
#ifndef SAFECOLL_DOCDIR
#define SAFECOLL_DOCDIR "/usr/local/share/doc/safecoll"
#endif

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

/* `safecoll scale ...`: scalability validation of measured points
 * (tools/scale.c). */
int tool_scale(int argc, char **argv);
/* `safecoll trace analyze DIR ...`: the hand-written collectives of a
 * trace, offline (tools/trace.c). */
int tool_trace_analyze(int argc, char **argv);

/* Shared option parsing (tools/search.c). */

/* Digits with an optional Ki, Mi, Gi, Ti suffix, in [lo, hi]; 0 or -1. */
int tool_parse_num(const char *s, long long lo, long long hi, long long *out);

/* A positive number of seconds, at most 1e7; 0 or -1. */
int tool_parse_secs(const char *s, double *out);

/* Splits s in place at commas into at most max items; the count, or -1. */
int tool_split_list(char *s, char **items, int max);

/* Progress of a long command on stderr (tools/progress.c): on a terminal
 * one status line rewritten in place, "WHAT: K/N (DETAIL), elapsed 0:12,
 * left ~0:30" (the time left from the mean time per step so far, "?"
 * without a total); elsewhere plain lines, at most one every 10 s;
 * SAFECOLL_PROGRESS=tty|plain|off overrides the choice. TERM=dumb: no
 * escape sequences (spaces erase the old line). */
enum { TOOL_PROGRESS_OFF, TOOL_PROGRESS_PLAIN, TOOL_PROGRESS_TTY };

typedef struct tool_progress {
    int mode;           /* TOOL_PROGRESS_* */
    int dumb;           /* TERM=dumb */
    int width;          /* of the terminal */
    char what[64];
    int total;          /* steps; 0 unknown */
    int approx;         /* total is an estimate ("~N"), raised when passed */
    int done;
    double t0, last_plain;
    size_t shown;       /* characters of the status line on the screen */
    char detail[512];
} tool_progress;

/* The mode from SAFECOLL_PROGRESS, else tty when stderr is a terminal. */
int tool_progress_mode(void);

/* The width of the terminal on fd: COLUMNS, else TIOCGWINSZ, else 80. */
int tool_term_width(int fd);

void tool_progress_start(tool_progress *p, const char *what, int total, int approx);

/* done steps of the total are finished; DETAIL what runs now. */
void tool_progress_step(tool_progress *p, int done, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A line kept on stderr (a result), above the status line (not when off). */
void tool_progress_line(tool_progress *p, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Erases the status line (before other output on the terminal). */
void tool_progress_clear(tool_progress *p);

void tool_progress_end(tool_progress *p);

#endif /* SAFECOLL_TOOL_H */
