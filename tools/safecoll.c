/*
 * safecoll: the command-line tool of libsafecoll.
 *
 *   safecoll bounds list [--wrap|--no-wrap] [FILE...]
 *   safecoll bounds check FILE...
 *   safecoll bounds add --out FILE key=value...
 *   safecoll search --coll C[,C...] --procs P[,P...] [options]   (tools/search.c)
 *   safecoll probe --coll C --n N [options]                      (tools/search.c)
 *   safecoll guideline --coll C[,C...] --procs P[,P...] --sizes S (tools/guideline.c)
 *   safecoll bisect [options] -- LAUNCHER... APP [ARGS...]       (tools/bisect.c)
 *   safecoll scale --input FILE [options]                        (tools/scale.c)
 *   safecoll trace analyze DIR [options]                         (tools/trace.c)
 *
 * A dispatcher: the first argument names a command, each command is one
 * function with its own --help, and a command with subcommands dispatches
 * again the same way. Add a command by writing its function and a line in
 * `commands` below.
 *
 * Exit status: 0 success, 1 invalid data (a malformed record or file, or a
 * file that cannot be read or written), 2 wrong usage. Only `probe` and
 * `guideline --worker` call MPI_Init: the registry works before it, and
 * `search` and `guideline` run their MPI jobs as separate processes.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <safecoll.h>

#include "tool.h"

enum { EXIT_OK = 0, EXIT_DATA = 1, EXIT_USAGE = 2 };

typedef struct command {
    const char *name;
    const char *args;                  /* its arguments, for the usage text */
    const char *summary;
    int (*run)(int argc, char **argv); /* argv[0] is the command's own name */
} command;

/* The usage text of a command that dispatches: head, the table, foot. */
typedef struct dispatcher {
    const char *what; /* "safecoll", "bounds" */
    const char *head;
    const command *cmds;
    size_t ncmds;
    const char *foot;
} dispatcher;

static const char *progname = "safecoll";

static int is_help(const char *arg)
{
    return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

/* The message of the last library error without its "function: " prefix:
 * for a bad line that leaves "file:line: sentence", the form editors and
 * people read best. */
static const char *library_message(void)
{
    const char *m = safecoll_last_error();
    const char *colon = strstr(m, ": ");

    if (strncmp(m, "safecoll_", 9) == 0 && colon != NULL)
        return colon + 2;
    return m;
}

static int usage_error(const char *usage, const char *fmt, const char *arg)
{
    fprintf(stderr, "%s: ", progname);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n%s", usage);
    return EXIT_USAGE;
}

static void print_usage(FILE *fp, const dispatcher *d)
{
    fputs(d->head, fp);
    fputs("\nCommands:\n", fp);
    for (size_t i = 0; i < d->ncmds; i++) {
        char left[64];
        snprintf(left, sizeof left, "%s %s", d->cmds[i].name, d->cmds[i].args);
        fprintf(fp, "  %-30s %s\n", left, d->cmds[i].summary);
    }
    fputs(d->foot, fp);
}

static int dispatch(const dispatcher *d, int argc, char **argv)
{
    const char *why = "missing command";

    if (argc >= 2 && (is_help(argv[1]) || strcmp(argv[1], "help") == 0)) {
        print_usage(stdout, d);
        return EXIT_OK;
    }
    if (argc >= 2) {
        for (size_t i = 0; i < d->ncmds; i++)
            if (strcmp(argv[1], d->cmds[i].name) == 0)
                return d->cmds[i].run(argc - 1, argv + 1);
        why = "unknown command";
    }
    /* The top-level dispatcher's name is the program's: say it once. */
    if (strcmp(d->what, progname) == 0)
        fprintf(stderr, "%s: %s%s%s%s\n", progname, why, argc >= 2 ? " '" : "",
                argc >= 2 ? argv[1] : "", argc >= 2 ? "'" : "");
    else
        fprintf(stderr, "%s: %s: %s%s%s%s\n", progname, d->what, why, argc >= 2 ? " '" : "",
                argc >= 2 ? argv[1] : "", argc >= 2 ? "'" : "");
    print_usage(stderr, d);
    return EXIT_USAGE;
}

/* ---------------------------------------------------------------- bounds */

/* `check`, `add` and `list FILE...` look at the named files only: neither
 * the built-in known bounds (or the file SAFECOLL_KNOWN_BOUNDS names) nor
 * SAFECOLL_BOUNDS may add records to what they show, nor make them fail.
 * The registry reads both at its first use, so they are switched off
 * before it. */
static void registry_files_only(void)
{
    setenv("SAFECOLL_KNOWN_BOUNDS", "", 1);
    setenv("SAFECOLL_BOUNDS", "", 1);
}

/* Where a word of len characters that does not fit the room left (room > 0)
 * is broken: after its last blank in that room (a quoted value, such as a
 * note, breaks between its words), else after its last '/' (a path), else
 * at the room itself, never between a backslash and what it escapes.  The
 * characters to print before the line ends; *skip is 1 when the break
 * swallows a blank. */
static int fold_point(const char *w, int len, int room, int *skip)
{
    int cut = len < room ? len : room;

    *skip = 0;
    for (int i = cut; i > 0; i--)
        if (i < len && w[i] == ' ') {
            *skip = 1;
            return i;
        }
    for (int i = cut; i > 1; i--)
        if (w[i - 1] == '/')
            return i;
    if (cut > 1 && w[cut - 1] == '\\')
        cut--;
    return cut;
}

/* Prints text from column `indent` on, folded to `width` columns at the
 * blanks outside double quotes, the next lines indented by `indent`; a
 * word longer than a line is broken where fold_point() says, so that the
 * words of a note stay whole. */
static void print_folded(const char *text, int indent, int width)
{
    int room = width - indent > 10 ? width - indent : 10, col = 0;
    const char *p = text;

    while (*p != '\0') {
        const char *w = p;
        int quoted = 0, len;
        /* One word: up to a blank outside quotes; "# origin" is one. */
        if (w[0] == '#' && w[1] == ' ')
            p += strlen(p);
        else
            for (; *p != '\0' && (quoted || *p != ' '); p++) {
                if (*p == '\\' && p[1] != '\0')
                    p++;
                else if (*p == '"')
                    quoted = !quoted;
            }
        len = (int)(p - w);
        if (col > 0 && col + 1 + len > room) {
            printf("\n%*s", indent, "");
            col = 0;
        } else if (col > 0) {
            putchar(' ');
            col++;
        }
        while (len > room - col) {
            int skip, cut = fold_point(w, len, room - col, &skip);
            printf("%.*s\n%*s", cut, w, indent, "");
            w += cut + skip;
            len -= cut + skip;
            col = 0;
        }
        printf("%.*s", len, w);
        col += len;
        while (*p == ' ')
            p++;
    }
    putchar('\n');
}

static int print_registry(int width)
{
    char line[SAFECOLL_BOUND_LINE_MAX], origin[1024];
    safecoll_bound b;
    size_t n;

    if (safecoll_bounds_count(&n) != MPI_SUCCESS) {
        fprintf(stderr, "%s\n", library_message());
        return EXIT_DATA;
    }
    for (size_t i = 0; i < n; i++) {
        if (safecoll_bounds_get(i, &b) != MPI_SUCCESS ||
            safecoll_bounds_format(&b, line, sizeof line) != MPI_SUCCESS ||
            safecoll_bounds_origin(i, origin, sizeof origin) != MPI_SUCCESS) {
            fprintf(stderr, "%s\n", library_message());
            return EXIT_DATA;
        }
        if (width > 0) {
            char text[SAFECOLL_BOUND_LINE_MAX + 1100];
            snprintf(text, sizeof text, "%s # %s", line, origin);
            printf("%4zu  ", i);
            print_folded(text, 6, width);
        } else {
            printf("%4zu  %s  # %s\n", i, line, origin);
        }
    }
    return EXIT_OK;
}

static const char bounds_list_usage[] =
    "usage: safecoll bounds list [--wrap|--no-wrap] [FILE...]\n"
    "\n"
    "Print bound records, one line each: the index, the record in the file\n"
    "format, and where it comes from after '#'.\n"
    "Without FILE: the registry as a program would see it (the known bounds\n"
    "built into the library, or the file SAFECOLL_KNOWN_BOUNDS names instead,\n"
    "then the files of SAFECOLL_BOUNDS). With FILEs: their records only.\n"
    "On a terminal a long record is folded to its width (COLUMNS, else the\n"
    "terminal's) at the blanks between keys, the next lines indented; elsewhere\n"
    "(a pipe, a file) each record stays one line, for scripts.\n"
    "  --wrap      fold even when not on a terminal, to COLUMNS (else 80)\n"
    "  --no-wrap   one line per record even on a terminal\n"
    "Exit status: 0, or 1 when a file is missing or malformed.\n";

static int bounds_list(int argc, char **argv)
{
    int wrap = isatty(1), files = 0;

    for (int i = 1; i < argc; i++) {
        if (is_help(argv[i])) {
            fputs(bounds_list_usage, stdout);
            return EXIT_OK;
        }
        if (strcmp(argv[i], "--wrap") == 0)
            wrap = 1;
        else if (strcmp(argv[i], "--no-wrap") == 0)
            wrap = 0;
        else if (argv[i][0] == '-' && argv[i][1] != '\0')
            return usage_error(bounds_list_usage, "bounds list: unknown option '%s'", argv[i]);
        else
            files++;
    }
    if (files > 0) {
        registry_files_only();
        for (int i = 1; i < argc; i++) {
            if (strcmp(argv[i], "--wrap") == 0 || strcmp(argv[i], "--no-wrap") == 0)
                continue;
            if (safecoll_bounds_load(argv[i]) != MPI_SUCCESS) {
                fprintf(stderr, "%s\n", library_message());
                return EXIT_DATA;
            }
        }
    }
    return print_registry(wrap ? tool_term_width(1) : 0);
}

static const char bounds_check_usage[] =
    "usage: safecoll bounds check FILE...\n"
    "\n"
    "Check bound files as the library reads them. Prints 'FILE: ok: N records'\n"
    "for a good file and 'FILE:LINE: message' on stderr for the first bad\n"
    "line of a bad one.\n"
    "Exit status: 0 when every file is good, 1 otherwise, 2 without FILE.\n";

static int bounds_check(int argc, char **argv)
{
    int status = EXIT_OK;
    size_t n;

    for (int i = 1; i < argc; i++) {
        if (is_help(argv[i])) {
            fputs(bounds_check_usage, stdout);
            return EXIT_OK;
        }
        if (argv[i][0] == '-' && argv[i][1] != '\0')
            return usage_error(bounds_check_usage, "bounds check: unknown option '%s'",
                               argv[i]);
    }
    if (argc < 2)
        return usage_error(bounds_check_usage, "bounds check: %s", "no FILE given");
    registry_files_only();
    for (int i = 1; i < argc; i++) {
        if (safecoll_bounds_clear() != MPI_SUCCESS ||
            safecoll_bounds_load(argv[i]) != MPI_SUCCESS ||
            safecoll_bounds_count(&n) != MPI_SUCCESS) {
            fprintf(stderr, "%s\n", library_message());
            status = EXIT_DATA;
            continue;
        }
        printf("%s: ok: %zu record%s\n", argv[i], n, n == 1 ? "" : "s");
    }
    return status;
}

static const char bounds_add_usage[] =
    "usage: safecoll bounds add --out FILE key=value...\n"
    "\n"
    "Check one record and append it to FILE (created if missing; an existing\n"
    "FILE must be valid). The keys are those of the file format:\n"
    "  collective class bound (required), s P mpi source n_s delta date note;\n"
    "  for a performance record also kind=performance, use=STRATEGY (the\n"
    "  equivalent the calls past the bound take) and the conditions it was\n"
    "  measured under, oversubscribed=yes|no|any and nodes=1|many|any; see\n"
    "  " SAFECOLL_DOCDIR "/bounds-format.md\n"
    "Each argument is one key=value; no quotes are needed, and \\t \\n \\\\ \\\"\n"
    "are read as in a quoted value, e.g.\n"
    "  safecoll bounds add --out my.bounds collective=scatter class=G_elements \\\n"
    "      bound=2147483647 P=3- 'mpi=MPICH Version:\\t4.0.2\\n' source=tested\n"
    "The line written is printed.\n"
    "Exit status: 0, 1 for an invalid record or FILE, 2 for wrong usage.\n";

/* Quotes one value for the file format. Backslash sequences are kept as
 * they are, so that \t written on the command line is a tab as in a file;
 * a bare quote, tab or newline (which a shell can pass) is escaped. */
static int append_pair(char *line, size_t len, size_t *pos, const char *arg)
{
    const char *eq = strchr(arg, '=');
    size_t p = *pos;

#define PUT(c)                  \
    do {                        \
        if (p + 1 >= len)       \
            return -1;          \
        line[p++] = (c);        \
    } while (0)

    if (p > 0)
        PUT(' ');
    for (const char *s = arg; s < eq; s++)
        PUT(*s);
    PUT('=');
    PUT('"');
    for (const char *s = eq + 1; *s != '\0'; s++) {
        if (*s == '\\' && s[1] != '\0') {
            PUT(*s);
            PUT(*++s);
        } else if (*s == '"') {
            PUT('\\');
            PUT('"');
        } else if (*s == '\t') {
            PUT('\\');
            PUT('t');
        } else if (*s == '\n') {
            PUT('\\');
            PUT('n');
        } else {
            PUT(*s);
        }
    }
    PUT('"');
#undef PUT
    line[p] = '\0';
    *pos = p;
    return 0;
}

/* 1 when the file is not empty and its last byte is not a newline. */
static int needs_newline(FILE *fp)
{
    if (fseek(fp, -1, SEEK_END) != 0)
        return 0;
    return getc(fp) != '\n';
}

static int bounds_add(int argc, char **argv)
{
    char line[SAFECOLL_BOUND_LINE_MAX], out_line[SAFECOLL_BOUND_LINE_MAX];
    const char *out = NULL;
    safecoll_bound b;
    size_t pos = 0, n = 0;
    int npairs = 0;
    FILE *fp;

    line[0] = '\0';
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (is_help(a)) {
            fputs(bounds_add_usage, stdout);
            return EXIT_OK;
        } else if (strcmp(a, "--out") == 0) {
            if (++i == argc)
                return usage_error(bounds_add_usage, "bounds add: %s", "--out needs a FILE");
            out = argv[i];
        } else if (strncmp(a, "--out=", 6) == 0) {
            out = a + 6;
        } else if (a[0] == '-') {
            return usage_error(bounds_add_usage, "bounds add: unknown option '%s'", a);
        } else if (strchr(a, '=') == NULL) {
            fprintf(stderr, "%s: bounds add: '%s' is not key=value\n", progname, a);
            return EXIT_DATA;
        } else {
            if (append_pair(line, sizeof line, &pos, a) != 0) {
                fprintf(stderr, "%s: bounds add: the record is longer than %d bytes\n",
                        progname, SAFECOLL_BOUND_LINE_MAX - 1);
                return EXIT_DATA;
            }
            npairs++;
        }
    }
    if (out == NULL || *out == '\0')
        return usage_error(bounds_add_usage, "bounds add: %s", "--out FILE is required");
    if (npairs == 0)
        return usage_error(bounds_add_usage, "bounds add: %s", "no key=value given");

    if (safecoll_bounds_parse(line, &b) != MPI_SUCCESS ||
        safecoll_bounds_format(&b, out_line, sizeof out_line) != MPI_SUCCESS) {
        fprintf(stderr, "%s: bounds add: %s\n", progname, library_message());
        return EXIT_DATA;
    }

    /* Never append to a file the library would refuse: the new line would
     * be lost with the rest of it. */
    registry_files_only();
    if ((fp = fopen(out, "r")) != NULL) {
        fclose(fp);
        if (safecoll_bounds_load(out) != MPI_SUCCESS || safecoll_bounds_count(&n) != MPI_SUCCESS) {
            fprintf(stderr, "%s\n%s: bounds add: %s is not valid; nothing added\n",
                    library_message(), progname, out);
            return EXIT_DATA;
        }
        if (n >= SAFECOLL_BOUNDS_MAX) {
            fprintf(stderr, "%s: bounds add: %s already holds %d records\n", progname, out,
                    SAFECOLL_BOUNDS_MAX);
            return EXIT_DATA;
        }
    }
    if ((fp = fopen(out, "a+")) == NULL) {
        fprintf(stderr, "%s: bounds add: %s: %s\n", progname, out, strerror(errno));
        return EXIT_DATA;
    }
    int nl = needs_newline(fp);
    fseek(fp, 0, SEEK_END);
    fprintf(fp, "%s%s\n", nl ? "\n" : "", out_line);
    if (fclose(fp) != 0) {
        fprintf(stderr, "%s: bounds add: %s: %s\n", progname, out, strerror(errno));
        return EXIT_DATA;
    }
    printf("%s\n", out_line);
    return EXIT_OK;
}

static const command bounds_commands[] = {
    {"list", "[--wrap] [FILE...]", "print the records of the registry or files", bounds_list},
    {"check", "FILE...", "check bound files", bounds_check},
    {"add", "--out FILE key=value...", "check a record and append it to FILE", bounds_add},
};

static const dispatcher bounds_dispatcher = {
    "bounds",
    "usage: safecoll bounds COMMAND [ARGS]\n"
    "\n"
    "The bound registry: sizes at which collectives of an MPI library break.\n",
    bounds_commands,
    sizeof bounds_commands / sizeof *bounds_commands,
    "'safecoll bounds COMMAND --help' tells more. The file format is\n"
    "described in " SAFECOLL_DOCDIR "/bounds-format.md.\n",
};

static int cmd_bounds(int argc, char **argv)
{
    return dispatch(&bounds_dispatcher, argc, argv);
}

/* ---------------------------------------------------------------- trace */

static const command trace_commands[] = {
    {"analyze", "DIR [options]", "find hand-written collectives in a trace",
     tool_trace_analyze},
};

static const dispatcher trace_dispatcher = {
    "trace",
    "usage: safecoll trace COMMAND [ARGS]\n"
    "\n"
    "Traces of point-to-point messages with hashed payloads, one file per rank.\n",
    trace_commands,
    sizeof trace_commands / sizeof *trace_commands,
    "'safecoll trace COMMAND --help' tells more. The file format is described\n"
    "in " SAFECOLL_DOCDIR "/trace.md.\n",
};

static int cmd_trace(int argc, char **argv)
{
    return dispatch(&trace_dispatcher, argc, argv);
}

/* ---------------------------------------------------------------- main */

static const command commands[] = {
    {"bounds", "COMMAND [ARGS]", "list, check and add bound records", cmd_bounds},
    {"search", "--coll C --procs P ...", "find and classify the safe bounds of the MPI", tool_search},
    {"probe", "--coll C --n N ...", "one checked collective (inside an MPI job)", tool_probe},
    {"guideline", "--coll C --procs P ...", "time collectives against their equivalents",
     tool_guideline},
    {"bisect", "[options] -- CMD...", "find the collective that makes CMD fail", tool_bisect},
    {"scale", "--coll C --procs P ...", "measure, fit, validate scaling (paper 003)",
     tool_scale},
    {"trace", "COMMAND [ARGS]", "find hand-written collectives in traces", cmd_trace},
};

static const dispatcher main_dispatcher = {
    "safecoll",
    "usage: safecoll COMMAND [ARGS]\n"
    "       safecoll --version | --help\n",
    commands,
    sizeof commands / sizeof *commands,
    "Long commands (search, guideline, bisect) show progress on stderr: a status\n"
    "line on a terminal, plain lines elsewhere; SAFECOLL_PROGRESS=tty|plain|off\n"
    "chooses.\n"
    "'safecoll COMMAND --help' tells more.\n",
};

int main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
        printf("safecoll (libsafecoll) %s\n", safecoll_version_string());
        return EXIT_OK;
    }
    return dispatch(&main_dispatcher, argc, argv);
}
