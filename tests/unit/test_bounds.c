/*
 * Unit tests of the bound registry: the record checks, the file parser
 * (every key, every kind of error with its line number), formatting and
 * the save/load round trip, matching by library version, the merge of the
 * known bounds built into the library (or SAFECOLL_KNOWN_BOUNDS),
 * SAFECOLL_BOUNDS and API calls with the verbose line naming them, the
 * detectors' fast path sc__bounds_limit, and a smoke test of concurrent
 * readers and a writer.
 *
 * The registry reads its environment once per process, so every test runs
 * in a forked child (forced below, whatever CK_FORK says) and starts from
 * an empty registry: the fixture switches the built-in known bounds and
 * SAFECOLL_BOUNDS off, except in the tests of those variables, which set
 * them before their first registry call. No MPI job is needed: the
 * registry works before MPI_Init.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, mkdtemp */

#include <check.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/resource.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "safecoll.h"

/* The internal side: sc__bounds_limit, sc__bounds_set_library, ... */
#include "bounds.h"
#include "skip.h"

#define NELEMS(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* A library string like MPICH 3.1.3's, and this machine's MPICH 4.0.2. */
#define LIB_MPICH313 "MPICH Version:\t3.1.3\nMPICH Release date:\tWed Oct  8 09:37:19 CDT 2014\n"
#define LIB_MPICH402 "MPICH Version:\t4.0.2\nMPICH Release date:\tThu Apr  7 12:34:45 CDT 2022\n"
#define LIB_OMPI110 "Open MPI v1.10.0, package: Open MPI builder Distribution, ident: 1.10.0"

/* The call failed with `code` and the message contains `what`. */
#define ASSERT_ERROR(rc, code, what)                                                          \
    do {                                                                                      \
        const char *msg_ = safecoll_last_error();                                             \
        ck_assert_int_eq((rc), (code));                                                       \
        ck_assert_msg(strstr(msg_, (what)) != NULL, "message lacks \"%s\": \"%s\"", (what),   \
                      msg_);                                                                  \
    } while (0)

#define ASSERT_OK(rc) ck_assert_msg((rc) == MPI_SUCCESS, "rc %d: %s", (rc), safecoll_last_error())

/* ---- scratch files ---- */

static char scratch[256];

static void make_scratch(void)
{
    snprintf(scratch, sizeof scratch, "%s/safecoll-bounds.XXXXXX",
             getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    ck_assert_ptr_nonnull(mkdtemp(scratch));
}

static void remove_scratch(void)
{
    char cmd[512];

    if (scratch[0] != '\0') {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", scratch);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", scratch);
    }
}

/* The path of `name` in the scratch directory (one static buffer each of a
 * few, so that a test can hold several). */
static const char *path_of(const char *name)
{
    static char bufs[4][512];
    static int next;
    char *b = bufs[next++ % 4];

    snprintf(b, sizeof bufs[0], "%s/%s", scratch, name);
    return b;
}

static const char *write_file_n(const char *name, const char *text, size_t len)
{
    const char *p = path_of(name);
    FILE *fp = fopen(p, "wb");

    ck_assert_ptr_nonnull(fp);
    ck_assert_uint_eq(fwrite(text, 1, len, fp), len);
    ck_assert_int_eq(fclose(fp), 0);
    return p;
}

static const char *write_file(const char *name, const char *text)
{
    return write_file_n(name, text, strlen(text));
}

static int files_in_scratch(void)
{
    char cmd[512];
    FILE *fp;
    int n = -1;

    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", scratch);
    fp = popen(cmd, "r");
    ck_assert_ptr_nonnull(fp);
    ck_assert_int_eq(fscanf(fp, "%d", &n), 1);
    pclose(fp);
    return n;
}

/* Fixture of most tests: no known bounds, no SAFECOLL_BOUNDS, a library
 * string that no record below matches by accident, a scratch directory. */
static void setup_empty(void)
{
    setenv("SAFECOLL_KNOWN_BOUNDS", "", 1);
    setenv("SAFECOLL_BOUNDS", "", 1);
    make_scratch();
}

/* Fixture of the environment tests: only the scratch directory. */
static void setup_env(void)
{
    unsetenv("SAFECOLL_KNOWN_BOUNDS");
    unsetenv("SAFECOLL_BOUNDS");
    make_scratch();
}

static size_t count(void)
{
    size_t n = 12345;

    ASSERT_OK(safecoll_bounds_count(&n));
    return n;
}

static safecoll_bound get(size_t i)
{
    safecoll_bound b;

    ASSERT_OK(safecoll_bounds_get(i, &b));
    return b;
}

static safecoll_bound parse_ok(const char *line)
{
    safecoll_bound b;
    int rc = safecoll_bounds_parse(line, &b);

    ck_assert_msg(rc == MPI_SUCCESS, "'%s': %s", line, safecoll_last_error());
    return b;
}

static safecoll_bound a_record(safecoll_coll coll, safecoll_bound_class cls, MPI_Count bound)
{
    safecoll_bound b;

    ASSERT_OK(safecoll_bound_init(&b));
    b.collective = coll;
    b.cls = cls;
    b.bound = bound;
    return b;
}

/* Field by field: the bytes after a text field's NUL do not count. */
static void assert_same(const safecoll_bound *a, const safecoll_bound *b, long i)
{
    ck_assert_msg(a->collective == b->collective, "record %ld: collective", i);
    ck_assert_msg(a->cls == b->cls, "record %ld: class", i);
    ck_assert_msg(a->bound == b->bound, "record %ld: bound %lld != %lld", i, (long long)a->bound,
                  (long long)b->bound);
    ck_assert_msg(a->s_min == b->s_min && a->s_max == b->s_max, "record %ld: s", i);
    ck_assert_msg(a->p_min == b->p_min && a->p_max == b->p_max, "record %ld: P", i);
    ck_assert_msg(strcmp(a->mpi, b->mpi) == 0, "record %ld: mpi", i);
    ck_assert_msg(a->source == b->source, "record %ld: source", i);
    ck_assert_msg(a->n_s == b->n_s, "record %ld: n_s", i);
    ck_assert_msg(a->delta == b->delta, "record %ld: delta", i);
    ck_assert_msg(strcmp(a->date, b->date) == 0, "record %ld: date", i);
    ck_assert_msg(strcmp(a->note, b->note) == 0, "record %ld: note", i);
    ck_assert_msg(a->kind == b->kind, "record %ld: kind", i);
    ck_assert_msg(a->use == b->use, "record %ld: use", i);
    ck_assert_msg(a->oversubscribed == b->oversubscribed, "record %ld: oversubscribed", i);
    ck_assert_msg(a->nodes == b->nodes, "record %ld: nodes", i);
}

/* xorshift64*: a fixed seed makes a failure reproducible. */
static uint64_t rng_state = 88172645463325252ull;

static uint64_t rng(void)
{
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * UINT64_C(2685821657736338717);
}

static uint64_t below(uint64_t n)
{
    return rng() % n;
}

/* ================================================================ records */

START_TEST(record_init)
{
    safecoll_bound b;

    memset(&b, 0xa5, sizeof b);
    ASSERT_OK(safecoll_bound_init(&b));
    ck_assert_int_eq(b.collective, SAFECOLL_NCOLL);
    ck_assert_int_eq(b.cls, SAFECOLL_NBOUND_CLASS);
    ck_assert_int_eq(b.bound, -1);
    ck_assert_int_eq(b.s_min, 0);
    ck_assert_int_eq(b.s_max, INT_MAX);
    ck_assert_int_eq(b.p_min, 0);
    ck_assert_int_eq(b.p_max, INT_MAX);
    ck_assert_str_eq(b.mpi, "");
    ck_assert_int_eq(b.source, SAFECOLL_BOUND_USER);
    ck_assert_int_eq(b.n_s, 0);
    ck_assert_int_eq(b.delta, 0);
    ck_assert_str_eq(b.date, "");
    ck_assert_str_eq(b.note, "");
    ck_assert_int_eq(b.kind, SAFECOLL_BOUND_CORRECTNESS);
    ck_assert_int_eq(b.use, SAFECOLL_STRATEGY_AUTO);
    ASSERT_ERROR(safecoll_bound_init(NULL), MPI_ERR_ARG, "safecoll_bound_init: b is NULL");
}
END_TEST

START_TEST(record_names)
{
    ck_assert_str_eq(safecoll_bound_class_name(SAFECOLL_BOUND_G_ELEMENTS), "G_elements");
    ck_assert_str_eq(safecoll_bound_class_name(SAFECOLL_BOUND_G_BYTES), "G_bytes");
    ck_assert_str_eq(safecoll_bound_class_name(SAFECOLL_BOUND_X), "X");
    ck_assert_ptr_null(safecoll_bound_class_name(SAFECOLL_NBOUND_CLASS));
    ck_assert_ptr_null(safecoll_bound_class_name((safecoll_bound_class)-1));
    ck_assert_str_eq(safecoll_bound_source_name(SAFECOLL_BOUND_SHIPPED), "shipped");
    ck_assert_str_eq(safecoll_bound_source_name(SAFECOLL_BOUND_TESTED), "tested");
    ck_assert_str_eq(safecoll_bound_source_name(SAFECOLL_BOUND_USER), "user");
    ck_assert_ptr_null(safecoll_bound_source_name(SAFECOLL_NBOUND_SOURCE));
    ck_assert_ptr_null(safecoll_bound_source_name((safecoll_bound_source)-1));
    ck_assert_str_eq(safecoll_bound_kind_name(SAFECOLL_BOUND_CORRECTNESS), "correctness");
    ck_assert_str_eq(safecoll_bound_kind_name(SAFECOLL_BOUND_PERFORMANCE), "performance");
    ck_assert_ptr_null(safecoll_bound_kind_name(SAFECOLL_NBOUND_KIND));
    ck_assert_ptr_null(safecoll_bound_kind_name((safecoll_bound_kind)-1));
    ck_assert_str_eq(safecoll_bound_oversub_name(SAFECOLL_OVERSUB_ANY), "any");
    ck_assert_str_eq(safecoll_bound_oversub_name(SAFECOLL_OVERSUB_NO), "no");
    ck_assert_str_eq(safecoll_bound_oversub_name(SAFECOLL_OVERSUB_YES), "yes");
    ck_assert_ptr_null(safecoll_bound_oversub_name(SAFECOLL_NOVERSUB));
    ck_assert_ptr_null(safecoll_bound_oversub_name((safecoll_bound_oversub)-1));
    ck_assert_str_eq(safecoll_bound_nodes_name(SAFECOLL_NODES_ANY), "any");
    ck_assert_str_eq(safecoll_bound_nodes_name(SAFECOLL_NODES_ONE), "1");
    ck_assert_str_eq(safecoll_bound_nodes_name(SAFECOLL_NODES_MANY), "many");
    ck_assert_ptr_null(safecoll_bound_nodes_name(SAFECOLL_NNODES));
    ck_assert_ptr_null(safecoll_bound_nodes_name((safecoll_bound_nodes)-1));
}
END_TEST

/* ================================================================ parser */

START_TEST(parse_every_key)
{
    safecoll_bound b = parse_ok(
        "collective=reduce_scatter_block class=G_bytes bound=2016Mi s=1-8 P=48- "
        "mpi=\"MPICH Version:\\t3.1.3\\n\" source=tested n_s=42Mi delta=2Mi date=2024-02-29 "
        "note=\"a \\\"quoted\\\" back\\\\slash\"");

    ck_assert_int_eq(b.collective, SAFECOLL_COLL_REDUCE_SCATTER_BLOCK);
    ck_assert_int_eq(b.cls, SAFECOLL_BOUND_G_BYTES);
    ck_assert_int_eq(b.bound, INT64_C(2016) << 20);
    ck_assert_int_eq(b.s_min, 1);
    ck_assert_int_eq(b.s_max, 8);
    ck_assert_int_eq(b.p_min, 48);
    ck_assert_int_eq(b.p_max, INT_MAX);
    ck_assert_str_eq(b.mpi, "MPICH Version:\t3.1.3\n");
    ck_assert_int_eq(b.source, SAFECOLL_BOUND_TESTED);
    ck_assert_int_eq(b.n_s, 42 << 20);
    ck_assert_int_eq(b.delta, 2 << 20);
    ck_assert_str_eq(b.date, "2024-02-29");
    ck_assert_str_eq(b.note, "a \"quoted\" back\\slash");

    /* Every collective but the barriers, by name; every class and source. */
    for (int c = 0; c < SAFECOLL_NCOLL; c++) {
        char line[128];
        safecoll_bound r;
        snprintf(line, sizeof line, "collective=%s class=X bound=1",
                 safecoll_coll_name((safecoll_coll)c));
        if (c == SAFECOLL_COLL_BARRIER || c == SAFECOLL_COLL_IBARRIER) {
            ASSERT_ERROR(safecoll_bounds_parse(line, &r), MPI_ERR_ARG, "moves no data");
        } else {
            r = parse_ok(line);
            ck_assert_int_eq(r.collective, c);
        }
    }
    ck_assert_int_eq(parse_ok("collective=gather class=G_elements bound=1").cls,
                     SAFECOLL_BOUND_G_ELEMENTS);
    ck_assert_int_eq(parse_ok("collective=gather class=X bound=1").cls, SAFECOLL_BOUND_X);
    ck_assert_int_eq(parse_ok("collective=gather class=X bound=1 source=shipped").source,
                     SAFECOLL_BOUND_SHIPPED);
    ck_assert_int_eq(parse_ok("collective=gather class=X bound=1 source=user").source,
                     SAFECOLL_BOUND_USER);

    /* A performance record: kind and use, in any order among the others. */
    b = parse_ok("use=p2p collective=allreduce kind=performance class=G_bytes bound=1Mi s=4 "
                 "P=4 mpi=\"MPICH Version:\\t4.0.2\\n\" source=tested date=2026-11-22 "
                 "note=\"native 3.1x slower than p2p at 2-16 MiB\"");
    ck_assert_int_eq(b.collective, SAFECOLL_COLL_ALLREDUCE);
    ck_assert_int_eq(b.kind, SAFECOLL_BOUND_PERFORMANCE);
    ck_assert_int_eq(b.use, SAFECOLL_STRATEGY_P2P);
    ck_assert_int_eq(b.bound, 1 << 20);
    ck_assert_int_eq(parse_ok("collective=gather class=X bound=1 kind=correctness").kind,
                     SAFECOLL_BOUND_CORRECTNESS);
    /* Every strategy that exists for a collective, but auto and native, is
     * a valid use= of it; the others are refused. */
    for (int c = 0; c < SAFECOLL_NCOLL; c++) {
        if (c == SAFECOLL_COLL_BARRIER || c == SAFECOLL_COLL_IBARRIER)
            continue;
        for (int u = SAFECOLL_STRATEGY_NATIVE + 1; u < SAFECOLL_NSTRATEGY; u++) {
            char line[160];
            safecoll_bound r;
            snprintf(line, sizeof line, "collective=%s kind=performance use=%s class=X bound=1",
                     safecoll_coll_name((safecoll_coll)c),
                     safecoll_strategy_name((safecoll_strategy)u));
            if (safecoll_strategy_applies((safecoll_coll)c, (safecoll_strategy)u) == 1) {
                r = parse_ok(line);
                ck_assert_int_eq(r.use, u);
            } else {
                ASSERT_ERROR(safecoll_bounds_parse(line, &r), MPI_ERR_ARG, "no such strategy");
            }
        }
    }
}
END_TEST

/* The conditions of a performance record (issue 14): every accepted value
 * of both keys, in any order, written back after use=; the defaults are
 * any, which a correctness record may also spell out. */
START_TEST(parse_conditions)
{
    static const struct {
        const char *text;
        safecoll_bound_oversub over;
    } overs[] = {{"", SAFECOLL_OVERSUB_ANY},
                 {" oversubscribed=any", SAFECOLL_OVERSUB_ANY},
                 {" oversubscribed=no", SAFECOLL_OVERSUB_NO},
                 {" oversubscribed=yes", SAFECOLL_OVERSUB_YES},
                 {" oversubscribed=\"yes\"", SAFECOLL_OVERSUB_YES}};
    static const struct {
        const char *text;
        safecoll_bound_nodes nodes;
    } nodes[] = {{"", SAFECOLL_NODES_ANY},
                 {" nodes=any", SAFECOLL_NODES_ANY},
                 {" nodes=1", SAFECOLL_NODES_ONE},
                 {" nodes=many", SAFECOLL_NODES_MANY}};
    char line[256], buf[SAFECOLL_BOUND_LINE_MAX];
    safecoll_bound b;

    for (int o = 0; o < NELEMS(overs); o++)
        for (int n = 0; n < NELEMS(nodes); n++) {
            /* The keys before the others, and after them. */
            for (int order = 0; order < 2; order++) {
                if (order == 0)
                    snprintf(line, sizeof line, "%s%s collective=allgatherv kind=performance "
                             "use=p2p class=G_bytes bound=1",
                             overs[o].text, nodes[n].text);
                else
                    snprintf(line, sizeof line, "collective=allgatherv kind=performance "
                             "use=p2p class=G_bytes bound=1%s%s",
                             overs[o].text, nodes[n].text);
                b = parse_ok(line);
                ck_assert_int_eq(b.oversubscribed, overs[o].over);
                ck_assert_int_eq(b.nodes, nodes[n].nodes);
                ASSERT_OK(safecoll_bounds_format(&b, buf, sizeof buf));
                {
                    safecoll_bound back = parse_ok(buf);
                    assert_same(&b, &back, 0);
                }
            }
        }
    b = parse_ok("collective=allgatherv kind=performance use=p2p class=G_bytes bound=1 "
                 "nodes=1 oversubscribed=yes");
    ASSERT_OK(safecoll_bounds_format(&b, buf, sizeof buf));
    ck_assert_str_eq(buf, "collective=allgatherv kind=performance use=p2p oversubscribed=yes "
                          "nodes=1 class=G_bytes bound=1 source=user");
    /* "any" is the default, so a correctness record may say it. */
    b = parse_ok("collective=gather class=X bound=1 oversubscribed=any nodes=any");
    ck_assert_int_eq(b.oversubscribed, SAFECOLL_OVERSUB_ANY);
    ck_assert_int_eq(b.nodes, SAFECOLL_NODES_ANY);
    ASSERT_OK(safecoll_bound_init(&b));
    ck_assert_int_eq(b.oversubscribed, SAFECOLL_OVERSUB_ANY);
    ck_assert_int_eq(b.nodes, SAFECOLL_NODES_ANY);
}
END_TEST

START_TEST(parse_values)
{
    safecoll_bound b;

    /* Defaults of the optional keys. */
    b = parse_ok("collective=gather class=X bound=0");
    ck_assert_int_eq(b.bound, 0);
    ck_assert_int_eq(b.s_min, 0);
    ck_assert_int_eq(b.s_max, INT_MAX);
    ck_assert_int_eq(b.p_min, 0);
    ck_assert_int_eq(b.p_max, INT_MAX);
    ck_assert_str_eq(b.mpi, "");
    ck_assert_int_eq(b.source, SAFECOLL_BOUND_USER);
    ck_assert_str_eq(b.date, "");

    /* Numbers and suffixes, at the edges of the range. */
    ck_assert_int_eq(parse_ok("collective=gather class=X bound=9223372036854775807").bound,
                     INT64_MAX);
    ck_assert_int_eq(parse_ok("collective=gather class=X bound=8388607Ti").bound,
                     INT64_C(8388607) << 40);
    ck_assert_int_eq(parse_ok("collective=gather class=X bound=1Ki").bound, 1024);
    ck_assert_int_eq(parse_ok("collective=gather class=X bound=3Gi").bound, INT64_C(3) << 30);
    ck_assert_int_eq(parse_ok("collective=gather class=X bound=007").bound, 7);
    ck_assert_int_eq(parse_ok("collective=gather class=X bound=\"12\"").bound, 12);

    /* Ranges. */
    b = parse_ok("collective=gather class=X bound=1 s=any P=any");
    ck_assert(b.s_min == 0 && b.s_max == INT_MAX && b.p_min == 0 && b.p_max == INT_MAX);
    b = parse_ok("collective=gather class=X bound=1 s=4 P=2147483647");
    ck_assert(b.s_min == 4 && b.s_max == 4 && b.p_min == INT_MAX && b.p_max == INT_MAX);
    b = parse_ok("collective=gather class=X bound=1 s=0-0 P=1Ki-2Ki");
    ck_assert(b.s_min == 0 && b.s_max == 0 && b.p_min == 1024 && b.p_max == 2048);
    b = parse_ok("collective=gather class=X bound=1 s=3-3 P=0-");
    ck_assert(b.s_min == 3 && b.s_max == 3 && b.p_min == 0 && b.p_max == INT_MAX);

    /* "*" and "" mean any library and are stored alike. */
    ck_assert_str_eq(parse_ok("collective=gather class=X bound=1 mpi=*").mpi, "");
    ck_assert_str_eq(parse_ok("collective=gather class=X bound=1 mpi=\"*\"").mpi, "");
    ck_assert_str_eq(parse_ok("collective=gather class=X bound=1 mpi=\"\"").mpi, "");
    ck_assert_str_eq(parse_ok("collective=gather class=X bound=1 mpi=\"**\"").mpi, "**");
    ck_assert_str_eq(parse_ok("collective=gather class=X bound=1 mpi=Open_MPI").mpi, "Open_MPI");

    /* Texts: escapes, bytes past ASCII, exactly 255 bytes. */
    ck_assert_str_eq(parse_ok("collective=gather class=X bound=1 note=\"\\t\\n\\\\\\\"\"").note,
                     "\t\n\\\"");
    ck_assert_str_eq(parse_ok("collective=gather class=X bound=1 note=caf\xc3\xa9").note,
                     "caf\xc3\xa9");
    {
        char line[400], want[256];
        memset(want, 'x', 255);
        want[255] = '\0';
        snprintf(line, sizeof line, "collective=gather class=X bound=1 mpi=\"%s\"", want);
        ck_assert_str_eq(parse_ok(line).mpi, want);
    }

    /* Layout: tabs, spaces, order of keys, a trailing comment, line ends. */
    b = parse_ok("\t bound=5\tclass=X   collective=bcast # comment \"unterminated");
    ck_assert(b.bound == 5 && b.collective == SAFECOLL_COLL_BCAST);
    parse_ok("collective=gather class=X bound=1\n");
    parse_ok("collective=gather class=X bound=1\r\n");
    parse_ok("collective=gather class=X bound=1 note=\"#not a comment\"");

    /* Dates: leap years. */
    ck_assert_str_eq(parse_ok("collective=gather class=X bound=1 date=2000-02-29").date,
                     "2000-02-29");
    ck_assert_str_eq(parse_ok("collective=gather class=X bound=1 date=0001-12-31").date,
                     "0001-12-31");
}
END_TEST

/* Each malformed line and the words its message must contain. */
static const struct {
    const char *line;
    const char *what;
} bad_lines[] = {
    {"collective=gather class=X", "missing key 'bound'"},
    {"class=X bound=1", "missing key 'collective'"},
    {"collective=gather bound=1", "missing key 'class'"},
    {"collective=gather class=X bound=1 bund=2", "unknown key 'bund'"},
    {"collective=gather class=X bound=1 p=2", "unknown key 'p' (the process count is 'P')"},
    {"collective=gather class=X bound=1 S=2", "unknown key 'S'"},
    {"collective=gather class=X bound=1 bound=2", "duplicate key 'bound'"},
    {"collective=gather class=X bound=1 note=a note=b", "duplicate key 'note'"},
    {"collective=gather class=X bound=1x", "bound: '1x' is not a number"},
    {"collective=gather class=X bound=1.5", "bound: '1.5' is not a number"},
    {"collective=gather class=X bound=0x10", "bound: '0x10' is not a number"},
    {"collective=gather class=X bound=+1", "bound: '+1' is not a number"},
    {"collective=gather class=X bound=1e3", "bound: '1e3' is not a number"},
    {"collective=gather class=X bound=1K", "bound: '1K' is not a number"},
    {"collective=gather class=X bound=1ki", "bound: '1ki' is not a number"},
    {"collective=gather class=X bound=1Kib", "bound: '1Kib' is not a number"},
    {"collective=gather class=X bound=Ki", "bound: 'Ki' is not a number"},
    {"collective=gather class=X bound=\"\"", "bound: '' is not a number"},
    {"collective=gather class=X bound=\" 1\"", "bound: ' 1' is not a number"},
    {"collective=gather class=X bound=-1", "bound: -1 is negative"},
    {"collective=gather class=X bound=-0", "bound: -0 is negative"},
    {"collective=gather class=X bound=9223372036854775808",
     "bound: 9223372036854775808 is out of range (at most 9223372036854775807)"},
    {"collective=gather class=X bound=99999999999999999999999999",
     "bound: 99999999999999999999999999 is out of range"},
    {"collective=gather class=X bound=8388608Ti", "bound: 8388608Ti is out of range"},
    {"collective=gather class=X bound=1 n_s=-5", "n_s: -5 is negative"},
    {"collective=gather class=X bound=1 delta=abc", "delta: 'abc' is not a number"},
    {"collective=gatherw class=X bound=1", "collective: unknown collective 'gatherw'"},
    {"collective=MPI_Gather class=X bound=1", "collective: unknown collective 'MPI_Gather'"},
    {"collective=barrier class=X bound=1", "collective barrier moves no data"},
    {"collective=ibarrier class=X bound=1", "collective ibarrier moves no data"},
    {"collective=gather class=G bound=1",
     "class: unknown class 'G' (expected G_elements, G_bytes or X)"},
    {"collective=gather class=x bound=1", "class: unknown class 'x'"},
    {"collective=gather class=X bound=1 source=paper",
     "source: unknown source 'paper' (expected shipped, tested or user)"},
    {"collective=gather class=X bound=1 s=2147483648",
     "s: 2147483648 is out of range (at most 2147483647)"},
    {"collective=gather class=X bound=1 P=2Gi", "P: 2Gi is out of range"},
    {"collective=gather class=X bound=1 s=8-1", "s: range 8-1 is empty"},
    {"collective=gather class=X bound=1 s=-1", "s: '-1' is not a range"},
    {"collective=gather class=X bound=1 s=-", "s: '-' is not a range"},
    {"collective=gather class=X bound=1 P=1-x", "P: 'x' is not a number"},
    {"collective=gather class=X bound=1 P=1-2-3", "P: '2-3' is not a number"},
    {"collective=gather class=X bound=1 P=Any", "P: 'Any' is not a number"},
    {"collective=gather class=X bound=1 s=", "s: missing value"},
    {"collective=gather class=X bound=1 s= 1", "s: missing value"},
    {"collective=gather class=X bound=1 date=2023-02-29",
     "date: '2023-02-29' is not a valid date YYYY-MM-DD"},
    {"collective=gather class=X bound=1 date=2024-13-01", "date: '2024-13-01' is not a valid date"},
    {"collective=gather class=X bound=1 date=2024-04-31", "date: '2024-04-31' is not a valid date"},
    {"collective=gather class=X bound=1 date=0000-01-01", "date: '0000-01-01' is not a valid date"},
    {"collective=gather class=X bound=1 date=2024-1-01", "date: '2024-1-01' is not a valid date"},
    {"collective=gather class=X bound=1 date=2024/01/01", "date: '2024/01/01' is not a valid date"},
    {"collective=gather class=X bound=1 date=2024-01-011",
     "date: '2024-01-011' is not a valid date"},
    {"collective=gather class=X bound=1 mpi=\"abc", "mpi: unterminated quoted value"},
    {"collective=gather class=X bound=1 mpi=\"abc\\", "mpi: unterminated quoted value"},
    {"collective=gather class=X bound=1 mpi=\"a\\qb\"",
     "mpi: unknown escape '\\q' (known: \\t \\n \\\\ \\\")"},
    {"collective=gather class=X bound=1 mpi=\"a\\x41\"", "mpi: unknown escape '\\x'"},
    {"collective=gather class=X bound=1 mpi=\"a\"b",
     "mpi: expected a space after the closing quote"},
    {"collective=gather class=X bound=1 mpi=\"a\"#c",
     "mpi: expected a space after the closing quote"},
    {"collective=gather class=X bound=1 note=a\"b",
     "note: '\"' in an unquoted value (quote the value)"},
    {"collective=gather class=X bound=1 note=a\\tb", "note: '\\' in an unquoted value"},
    {"collective=gather class=X bound=1 note=a=b", "note: '=' in an unquoted value"},
    {"collective=gather#x class=X bound=1", "collective: '#' in an unquoted value"},
    {"collective=gather class=X bound=1 junk", "expected key=value, found 'junk'"},
    {"collective=gather class=X bound=1 \"note\"=x", "unknown key '\"note\"'"},
    {"collective=gather class=X bound=1 =5", "expected a key before '='"},
    {"collective=gather class=X bound=1 note=a\x01z", "note: control character 0x01 in value"},
    {"collective=gather class=X bound=1 note=a\x7fz", "note: control character 0x7f in value"},
    {"collective=gather class=X bound=1 note=\"a\tb\"",
     "note: control character 0x09 in value (write \\t or \\n)"},
    {"collective=gather class=X bound=1 note=a\rb", "note: control character 0x0d in value"},
    {"collective=gather class=X bound=1 x\x01y=1", "unknown key 'x\\x01y'"},
    {"collective=allreduce class=G_bytes bound=1 kind=performance",
     "kind=performance needs use=<strategy>"},
    {"collective=allreduce class=G_bytes bound=1 kind=speed",
     "kind: unknown kind 'speed' (expected correctness or performance)"},
    {"collective=allreduce class=G_bytes bound=1 kind=Performance", "kind: unknown kind 'Performance'"},
    {"collective=allreduce class=G_bytes bound=1 kind=", "kind: missing value"},
    {"collective=allreduce class=G_bytes bound=1 use=p2p",
     "use=p2p is given but kind is correctness"},
    {"collective=allreduce class=G_bytes bound=1 kind=correctness use=chunk",
     "use=chunk is given but kind is correctness"},
    {"collective=allreduce class=G_bytes bound=1 kind=performance use=auto",
     "use: 'auto' is not an equivalent"},
    {"collective=allreduce class=G_bytes bound=1 kind=performance use=native",
     "use: 'native' is not an equivalent"},
    {"collective=allreduce class=G_bytes bound=1 kind=performance use=reduce-bcast",
     "use: unknown strategy 'reduce-bcast'"},
    {"collective=allreduce class=G_bytes bound=1 kind=performance use=P2P",
     "use: unknown strategy 'P2P'"},
    {"collective=allreduce class=G_bytes bound=1 kind=performance use=",
     "use: missing value"},
    {"collective=alltoallw class=X bound=1 kind=performance use=bigtype",
     "use=bigtype: no such strategy for alltoallw"},
    {"collective=gather class=X bound=1 kind=performance use=reduce+bcast",
     "use=reduce+bcast: no such strategy for gather"},
    {"collective=allreduce class=X bound=1 kind=performance use=segment",
     "use=segment: no such strategy for allreduce"},
    {"collective=allreduce class=X bound=1 kind=performance kind=performance use=p2p",
     "duplicate key 'kind'"},
    {"collective=allreduce class=X bound=1 kind=performance use=p2p use=chunk",
     "duplicate key 'use'"},
    {"collective=allgatherv class=G_bytes bound=1 kind=performance use=p2p oversubscribed=maybe",
     "oversubscribed: unknown condition 'maybe' (expected yes, no or any)"},
    {"collective=allgatherv class=G_bytes bound=1 kind=performance use=p2p oversubscribed=Yes",
     "oversubscribed: unknown condition 'Yes'"},
    {"collective=allgatherv class=G_bytes bound=1 kind=performance use=p2p oversubscribed=1",
     "oversubscribed: unknown condition '1'"},
    {"collective=allgatherv class=G_bytes bound=1 kind=performance use=p2p oversubscribed=",
     "oversubscribed: missing value"},
    {"collective=allgatherv class=G_bytes bound=1 kind=performance use=p2p nodes=2",
     "nodes: unknown condition '2' (expected 1, many or any)"},
    {"collective=allgatherv class=G_bytes bound=1 kind=performance use=p2p nodes=0",
     "nodes: unknown condition '0'"},
    {"collective=allgatherv class=G_bytes bound=1 kind=performance use=p2p nodes=Many",
     "nodes: unknown condition 'Many'"},
    {"collective=allgatherv class=G_bytes bound=1 kind=performance use=p2p nodes=one",
     "nodes: unknown condition 'one'"},
    {"collective=allgatherv class=G_bytes bound=1 kind=performance use=p2p nodes=",
     "nodes: missing value"},
    {"collective=allgatherv class=G_bytes bound=1 kind=performance use=p2p nodes=1 nodes=1",
     "duplicate key 'nodes'"},
    {"collective=allgatherv class=G_bytes bound=1 kind=performance use=p2p oversubscribed=no "
     "oversubscribed=no",
     "duplicate key 'oversubscribed'"},
    {"collective=allgatherv class=G_bytes bound=1 oversubscribed=yes",
     "oversubscribed=yes is given but kind is correctness (conditions belong to "
     "kind=performance"},
    {"collective=allgatherv class=G_bytes bound=1 kind=correctness oversubscribed=no",
     "oversubscribed=no is given but kind is correctness"},
    {"nodes=many collective=allgatherv class=G_bytes bound=1",
     "nodes=many is given but kind is correctness"},
    {"collective=allgatherv class=G_bytes bound=1 nodes=1", "nodes=1 is given but kind is correctness"},
};

START_TEST(parse_errors)
{
    for (int i = 0; i < NELEMS(bad_lines); i++) {
        safecoll_bound b;
        char want[512];
        int rc;

        memset(&b, 0x5a, sizeof b);
        rc = safecoll_bounds_parse(bad_lines[i].line, &b);
        snprintf(want, sizeof want, "safecoll_bounds_parse: %s", bad_lines[i].what);
        ck_assert_msg(rc == MPI_ERR_ARG, "line %d '%s' was accepted", i, bad_lines[i].line);
        ck_assert_msg(strstr(safecoll_last_error(), want) != NULL,
                      "line %d: message lacks \"%s\": \"%s\"", i, want, safecoll_last_error());
        ck_assert_msg(((unsigned char *)&b)[0] == 0x5a, "line %d: out was written", i);
    }
}
END_TEST

/* The same lines inside a text, after good ones: the message has the name
 * and the line number, and nothing of the text reaches the registry. */
START_TEST(parse_errors_in_text)
{
    for (int i = 0; i < NELEMS(bad_lines); i++) {
        char text[1024], want[512];
        int rc;

        snprintf(text, sizeof text,
                 "collective=bcast class=X bound=1\n# comment\n\n%s\ncollective=bcast class=X "
                 "bound=2\n",
                 bad_lines[i].line);
        rc = safecoll_bounds_load_string(text, "t.bounds");
        snprintf(want, sizeof want, "safecoll_bounds_load_string: t.bounds:4: %s",
                 bad_lines[i].what);
        ck_assert_msg(rc == MPI_ERR_ARG, "line %d '%s' was accepted", i, bad_lines[i].line);
        ck_assert_msg(strstr(safecoll_last_error(), want) != NULL,
                      "line %d: message lacks \"%s\": \"%s\"", i, want, safecoll_last_error());
        ck_assert_uint_eq(count(), 0);
    }
}
END_TEST

START_TEST(parse_api_errors)
{
    safecoll_bound b;

    ASSERT_ERROR(safecoll_bounds_parse(NULL, &b), MPI_ERR_ARG,
                 "safecoll_bounds_parse: line is NULL");
    ASSERT_ERROR(safecoll_bounds_parse("collective=gather class=X bound=1", NULL), MPI_ERR_ARG,
                 "safecoll_bounds_parse: out is NULL");
    ASSERT_ERROR(safecoll_bounds_parse("", &b), MPI_ERR_ARG,
                 "safecoll_bounds_parse: line holds no record (blank or comment)");
    ASSERT_ERROR(safecoll_bounds_parse("  # only a comment", &b), MPI_ERR_ARG, "holds no record");
    ASSERT_ERROR(safecoll_bounds_parse("\n", &b), MPI_ERR_ARG, "holds no record");
    ASSERT_ERROR(safecoll_bounds_parse("collective=gather class=X bound=1\ncollective=gather "
                                       "class=X bound=2",
                                       &b),
                 MPI_ERR_ARG, "safecoll_bounds_parse: line holds more than one line");
    ASSERT_ERROR(safecoll_bounds_parse("collective=gather class=X bound=1\n\n", &b), MPI_ERR_ARG,
                 "more than one line");
}
END_TEST

/* A record line padded with a comment to exactly `len` bytes. */
static void padded_line(char *buf, size_t len)
{
    const char *rec = "collective=gather class=X bound=1 #";
    size_t n = strlen(rec);

    memcpy(buf, rec, n);
    memset(buf + n, 'c', len - n);
    buf[len] = '\0';
}

START_TEST(parse_long_lines)
{
    static char line[2 * SAFECOLL_BOUND_LINE_MAX], text[8 * SAFECOLL_BOUND_LINE_MAX];
    safecoll_bound b;

    /* 4095 bytes is the longest line, with or without "\r\n". */
    padded_line(line, SAFECOLL_BOUND_LINE_MAX - 1);
    parse_ok(line);
    snprintf(text, sizeof text, "%s\r\n%s\n%s", line, line, line);
    ASSERT_OK(safecoll_bounds_load_string(text, "long"));
    ck_assert_uint_eq(count(), 3);

    padded_line(line, SAFECOLL_BOUND_LINE_MAX);
    ASSERT_ERROR(safecoll_bounds_parse(line, &b), MPI_ERR_ARG,
                 "safecoll_bounds_parse: line is longer than 4095 bytes");
    snprintf(text, sizeof text, "# one\n\n%s\n", line);
    ASSERT_ERROR(safecoll_bounds_load_string(text, "long"), MPI_ERR_ARG,
                 "safecoll_bounds_load_string: long:3: line is longer than 4095 bytes");
    /* Far longer, and without a line end. */
    padded_line(line, sizeof line - 1);
    ASSERT_ERROR(safecoll_bounds_load_string(line, "long"), MPI_ERR_ARG,
                 "long:1: line is longer than 4095 bytes");
    /* A quoted value as long as the line: the value is too long, not the line. */
    memset(line, 0, sizeof line);
    strcpy(line, "collective=gather class=X bound=1 note=\"");
    memset(line + strlen(line), 'n', 3000);
    strcat(line, "\"");
    ASSERT_ERROR(safecoll_bounds_parse(line, &b), MPI_ERR_ARG,
                 "note: value is longer than 255 bytes (3000)");
    ck_assert_uint_eq(count(), 3);
}
END_TEST

START_TEST(parse_line_ends_and_blanks)
{
    safecoll_bound b;

    ASSERT_OK(safecoll_bounds_load_string("", "empty"));
    ASSERT_OK(safecoll_bounds_load_string("\n\n  \t\n# only comments\n   # indented\n", "c"));
    ck_assert_uint_eq(count(), 0);
    /* CRLF files are accepted, a final line without its end too. */
    ASSERT_OK(safecoll_bounds_load_string("# dos\r\ncollective=gather class=X bound=1\r\n\r\n"
                                          "collective=gather class=X bound=2",
                                          "dos"));
    ck_assert_uint_eq(count(), 2);
    ck_assert_int_eq(get(1).bound, 2);
    /* A lone CR inside a line is a control character. */
    ASSERT_ERROR(safecoll_bounds_load_string("collective=gather class=X bound=1\r\rx\n", "cr"),
                 MPI_ERR_ARG, "cr:1: bound: control character 0x0d in value");
    ASSERT_ERROR(safecoll_bounds_load_string("\rcollective=gather class=X bound=1\n", "cr"),
                 MPI_ERR_ARG, "cr:1: unknown key '\\x0dcollective'");
    /* Line numbers count every line, blank and comment lines included. */
    ASSERT_ERROR(safecoll_bounds_load_string("\n\n\n\n\n\n\n\n\nbogus\n", "n"), MPI_ERR_ARG,
                 "n:10: expected key=value, found 'bogus'");
    ASSERT_ERROR(safecoll_bounds_load_string("\r\n\r\nbogus", "n"), MPI_ERR_ARG,
                 "n:3: expected key=value");
    /* The default name. */
    ASSERT_ERROR(safecoll_bounds_load_string("bogus", NULL), MPI_ERR_ARG,
                 "safecoll_bounds_load_string: <string>:1: expected key=value");
    ASSERT_ERROR(safecoll_bounds_load_string(NULL, "x"), MPI_ERR_ARG,
                 "safecoll_bounds_load_string: text is NULL");
    ck_assert_uint_eq(count(), 2);
    (void)b;
}
END_TEST

/* Strings stop at NUL; a file may hold one, and it is an error. */
START_TEST(parse_nul_bytes)
{
    static const char text[] = "collective=gather class=X bound=1\n"
                               "collective=gather class=X bound=2 note=a\0b\n"
                               "collective=gather class=X bound=3\n";
    const char *p = write_file_n("nul.bounds", text, sizeof text - 1);
    char want[600];

    snprintf(want, sizeof want, "safecoll_bounds_load: %s:2: NUL byte in line", p);
    ASSERT_ERROR(safecoll_bounds_load(p), MPI_ERR_ARG, want);
    ck_assert_uint_eq(count(), 0);
    /* As a C string the text ends at the NUL: "note=a" then nothing. */
    ASSERT_OK(safecoll_bounds_load_string(text, "nul"));
    ck_assert_uint_eq(count(), 2);
    ck_assert_str_eq(get(1).note, "a");
}
END_TEST

/* ================================================================ format */

START_TEST(format_records)
{
    char buf[SAFECOLL_BOUND_LINE_MAX];
    safecoll_bound b = a_record(SAFECOLL_COLL_SCATTER, SAFECOLL_BOUND_G_BYTES, 2113929216);

    ASSERT_OK(safecoll_bounds_format(&b, buf, sizeof buf));
    ck_assert_str_eq(buf, "collective=scatter class=G_bytes bound=2113929216 source=user");

    b.s_min = 1;
    b.s_max = 8;
    b.p_min = 48;
    strcpy(b.mpi, "MPICH Version:\t3.1.3\n");
    b.source = SAFECOLL_BOUND_SHIPPED;
    b.n_s = 44040192;
    b.delta = 2097152;
    strcpy(b.date, "2016-05-23");
    strcpy(b.note, "say \"hi\" \\ bye");
    ASSERT_OK(safecoll_bounds_format(&b, buf, sizeof buf));
    ck_assert_str_eq(buf, "collective=scatter class=G_bytes bound=2113929216 s=1-8 P=48- "
                          "mpi=\"MPICH Version:\\t3.1.3\\n\" source=shipped n_s=44040192 "
                          "delta=2097152 date=2016-05-23 note=\"say \\\"hi\\\" \\\\ bye\"");

    b = a_record(SAFECOLL_COLL_IALLTOALLW, SAFECOLL_BOUND_X, 0);
    b.s_min = b.s_max = 4;
    b.p_min = 0;
    b.p_max = 7;
    b.source = SAFECOLL_BOUND_TESTED;
    ASSERT_OK(safecoll_bounds_format(&b, buf, sizeof buf));
    ck_assert_str_eq(buf, "collective=ialltoallw class=X bound=0 s=4 P=0-7 source=tested");
    strcpy(b.mpi, "*");
    ASSERT_OK(safecoll_bounds_format(&b, buf, sizeof buf));
    ck_assert_str_eq(buf, "collective=ialltoallw class=X bound=0 s=4 P=0-7 source=tested");

    /* A performance record says so right after the collective. */
    b = a_record(SAFECOLL_COLL_ALLREDUCE, SAFECOLL_BOUND_G_BYTES, 1 << 20);
    b.kind = SAFECOLL_BOUND_PERFORMANCE;
    b.use = SAFECOLL_STRATEGY_CHUNK;
    b.s_min = b.s_max = 4;
    b.p_min = b.p_max = 4;
    strcpy(b.mpi, "MPICH Version:\t4.0.2\n");
    b.source = SAFECOLL_BOUND_TESTED;
    strcpy(b.date, "2026-11-22");
    strcpy(b.note, "native 3.1x slower");
    ASSERT_OK(safecoll_bounds_format(&b, buf, sizeof buf));
    ck_assert_str_eq(buf, "collective=allreduce kind=performance use=chunk class=G_bytes "
                          "bound=1048576 s=4 P=4 mpi=\"MPICH Version:\\t4.0.2\\n\" "
                          "source=tested date=2026-11-22 note=\"native 3.1x slower\"");
    {
        safecoll_bound back = parse_ok(buf);
        assert_same(&b, &back, 0);
    }
}
END_TEST

START_TEST(format_errors)
{
    char buf[SAFECOLL_BOUND_LINE_MAX];
    safecoll_bound b = a_record(SAFECOLL_COLL_GATHER, SAFECOLL_BOUND_X, 5);
    size_t need;

    ASSERT_ERROR(safecoll_bounds_format(NULL, buf, sizeof buf), MPI_ERR_ARG,
                 "safecoll_bounds_format: b is NULL");
    ASSERT_ERROR(safecoll_bounds_format(&b, NULL, 10), MPI_ERR_ARG,
                 "safecoll_bounds_format: buf is NULL");
    ASSERT_ERROR(safecoll_bounds_format(&b, buf, 0), MPI_ERR_ARG,
                 "safecoll_bounds_format: len is 0");
    ASSERT_OK(safecoll_bounds_format(&b, buf, sizeof buf));
    need = strlen(buf) + 1;
    ASSERT_OK(safecoll_bounds_format(&b, buf, need));
    buf[0] = 'x';
    {
        char want[96];
        snprintf(want, sizeof want, "safecoll_bounds_format: len %zu is too small (need %zu)",
                 need - 1, need);
        ASSERT_ERROR(safecoll_bounds_format(&b, buf, need - 1), MPI_ERR_ARG, want);
    }
    ck_assert_str_eq(buf, "");
    b.collective = SAFECOLL_NCOLL;
    ASSERT_ERROR(safecoll_bounds_format(&b, buf, sizeof buf), MPI_ERR_ARG,
                 "safecoll_bounds_format: collective is not set");

    /* The worst case fits SAFECOLL_BOUND_LINE_MAX: every text byte escaped,
     * every number at its longest. */
    b = a_record(SAFECOLL_COLL_REDUCE_SCATTER_BLOCK, SAFECOLL_BOUND_G_ELEMENTS, INT64_MAX);
    b.s_min = b.p_min = INT_MAX - 1;
    b.s_max = b.p_max = INT_MAX - 1;
    b.s_min--;
    b.p_min--;
    b.n_s = b.delta = INT64_MAX;
    b.source = SAFECOLL_BOUND_SHIPPED;
    strcpy(b.date, "2024-01-01");
    memset(b.mpi, '"', sizeof b.mpi - 1);
    memset(b.note, '\\', sizeof b.note - 1);
    ASSERT_OK(safecoll_bounds_format(&b, buf, sizeof buf));
    ck_assert_uint_lt(strlen(buf), SAFECOLL_BOUND_LINE_MAX);
    {
        safecoll_bound back = parse_ok(buf);
        assert_same(&b, &back, 0);
    }
}
END_TEST

/* A random valid record; texts draw from every byte the format allows. */
static void random_text(char *dst, int max)
{
    static const char special[] = "\t\n\\\" #=*";
    int n = (int)below((uint64_t)max + 1);

    if (below(4) == 0)
        n = 0;
    for (int i = 0; i < n; i++) {
        switch (below(4)) {
        case 0: dst[i] = special[below(sizeof special - 1)]; break;
        case 1: dst[i] = (char)(0x80 + below(0x80)); break;
        default: dst[i] = (char)(0x20 + below(0x5f)); break;
        }
    }
    dst[n] = '\0';
}

static MPI_Count random_count(void)
{
    switch (below(6)) {
    case 0: return 0;
    case 1: return INT64_MAX;
    case 2: return (MPI_Count)below(1000);
    case 3: return (MPI_Count)(rng() >> 1);
    case 4: return (MPI_Count)below(UINT64_C(1) << 32);
    default: return (MPI_Count)below(4096) << 20;
    }
}

static void random_range(int *lo, int *hi)
{
    switch (below(4)) {
    case 0: *lo = 0; *hi = INT_MAX; break;
    case 1: *lo = *hi = (int)below(200); break;
    case 2: *lo = (int)below(INT_MAX); *hi = INT_MAX; break;
    default:
        *lo = (int)below(INT_MAX);
        *hi = *lo + (int)below((uint64_t)INT_MAX - (uint64_t)*lo + 1);
        break;
    }
}

static safecoll_bound random_record(void)
{
    static const int days[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    safecoll_bound b;
    int c;

    do
        c = (int)below(SAFECOLL_NCOLL);
    while (c == SAFECOLL_COLL_BARRIER || c == SAFECOLL_COLL_IBARRIER);
    b = a_record((safecoll_coll)c, (safecoll_bound_class)below(SAFECOLL_NBOUND_CLASS),
                 random_count());
    random_range(&b.s_min, &b.s_max);
    random_range(&b.p_min, &b.p_max);
    random_text(b.mpi, SAFECOLL_BOUND_TEXT_MAX - 1);
    if (strcmp(b.mpi, "*") == 0)
        b.mpi[0] = '\0';
    b.source = (safecoll_bound_source)below(SAFECOLL_NBOUND_SOURCE);
    b.n_s = random_count();
    b.delta = random_count();
    if (below(3) != 0) {
        int y = 1 + (int)below(9999), m = 1 + (int)below(12);
        int d = 1 + (int)below((uint64_t)days[m - 1]);
        char date[32];
        snprintf(date, sizeof date, "%04d-%02d-%02d", y, m, d);
        memcpy(b.date, date, sizeof b.date - 1);
    }
    random_text(b.note, SAFECOLL_BOUND_TEXT_MAX - 1);
    /* One record in three is a performance record with a strategy that
     * exists for its collective (every collective here has one). */
    if (below(3) == 0) {
        do
            b.use = (safecoll_strategy)(SAFECOLL_STRATEGY_NATIVE + 1 +
                                        (int)below(SAFECOLL_NSTRATEGY - 2));
        while (safecoll_strategy_applies(b.collective, b.use) != 1);
        b.kind = SAFECOLL_BOUND_PERFORMANCE;
        b.oversubscribed = (safecoll_bound_oversub)below(SAFECOLL_NOVERSUB);
        b.nodes = (safecoll_bound_nodes)below(SAFECOLL_NNODES);
    }
    return b;
}

START_TEST(round_trip_random)
{
    enum { N = 3000 };
    static safecoll_bound recs[N];
    char line[SAFECOLL_BOUND_LINE_MAX];
    const char *path = path_of("saved.bounds");

    for (int i = 0; i < N; i++) {
        recs[i] = random_record();
        /* One line: format, then parse, gives the record back. */
        ASSERT_OK(safecoll_bounds_format(&recs[i], line, sizeof line));
        safecoll_bound back = parse_ok(line);
        assert_same(&recs[i], &back, i);
        ASSERT_OK(safecoll_bounds_add(&recs[i]));
    }
    /* A whole registry: save, clear, load. */
    ASSERT_OK(safecoll_bounds_save(path));
    ASSERT_OK(safecoll_bounds_clear());
    ck_assert_uint_eq(count(), 0);
    ASSERT_OK(safecoll_bounds_load(path));
    ck_assert_uint_eq(count(), N);
    for (int i = 0; i < N; i++) {
        safecoll_bound b = get((size_t)i);
        char origin[600], want[600];
        assert_same(&recs[i], &b, i);
        ASSERT_OK(safecoll_bounds_origin((size_t)i, origin, sizeof origin));
        snprintf(want, sizeof want, "%s:%d", path, i + 3); /* after two comment lines */
        ck_assert_str_eq(origin, want);
    }
    /* Saving what was loaded gives the same file. */
    ASSERT_OK(safecoll_bounds_save(path_of("again.bounds")));
    {
        char cmd[1200];
        snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", path, path_of("again.bounds"));
        ck_assert_int_eq(system(cmd), 0);
    }
}
END_TEST

/* ================================================================ registry API */

START_TEST(add_checks)
{
    safecoll_bound b;

    ASSERT_ERROR(safecoll_bounds_add(NULL), MPI_ERR_ARG, "safecoll_bounds_add: b is NULL");

#define EXPECT_BAD(stmt, what)                                                                \
    do {                                                                                      \
        b = a_record(SAFECOLL_COLL_GATHER, SAFECOLL_BOUND_X, 1);                              \
        stmt;                                                                                 \
        ASSERT_ERROR(safecoll_bounds_add(&b), MPI_ERR_ARG, "safecoll_bounds_add: " what);     \
    } while (0)

    EXPECT_BAD(ASSERT_OK(safecoll_bound_init(&b)), "collective is not set");
    EXPECT_BAD(b.collective = (safecoll_coll)-1, "collective is not set (-1 is not a collective)");
    EXPECT_BAD(b.collective = SAFECOLL_COLL_BARRIER, "collective barrier moves no data");
    EXPECT_BAD(b.collective = SAFECOLL_COLL_IBARRIER, "collective ibarrier moves no data");
    EXPECT_BAD(b.cls = SAFECOLL_NBOUND_CLASS, "class is not set (3 is not a class)");
    EXPECT_BAD(b.cls = (safecoll_bound_class)-1, "class is not set");
    EXPECT_BAD(b.bound = -1, "bound is not set or negative (-1)");
    EXPECT_BAD(b.bound = INT64_MIN, "bound is not set or negative");
    EXPECT_BAD(b.s_min = -1, "s range [-1, 2147483647] is empty or negative");
    EXPECT_BAD((b.s_min = 5, b.s_max = 4), "s range [5, 4] is empty or negative");
    EXPECT_BAD(b.p_min = -3, "P range [-3, 2147483647] is empty or negative");
    EXPECT_BAD((b.p_min = 9, b.p_max = 8), "P range [9, 8]");
    EXPECT_BAD(memset(b.mpi, 'a', sizeof b.mpi), "mpi is not NUL-terminated within 256 bytes");
    EXPECT_BAD(strcpy(b.mpi, "MPICH\r\n"), "mpi contains the control character 0x0d at byte 5");
    EXPECT_BAD(strcpy(b.mpi, "\x1b[0m"), "mpi contains the control character 0x1b at byte 0");
    EXPECT_BAD(strcpy(b.note, "del\x7f"), "note contains the control character 0x7f at byte 3");
    EXPECT_BAD(memset(b.note, 'n', sizeof b.note), "note is not NUL-terminated");
    EXPECT_BAD(b.source = SAFECOLL_NBOUND_SOURCE, "source 3 is not a source");
    EXPECT_BAD(b.n_s = -1, "n_s is negative (-1)");
    EXPECT_BAD(b.delta = -2, "delta is negative (-2)");
    EXPECT_BAD(strcpy(b.date, "2024-02-30"), "date is not empty or a valid YYYY-MM-DD");
    EXPECT_BAD(strcpy(b.date, "yesterday"), "date is not empty or a valid YYYY-MM-DD");
    EXPECT_BAD(memset(b.date, '1', sizeof b.date), "date is not empty or a valid");
    EXPECT_BAD(b.kind = SAFECOLL_NBOUND_KIND, "kind 2 is not a kind");
    EXPECT_BAD(b.kind = (safecoll_bound_kind)-1, "kind -1 is not a kind");
    EXPECT_BAD(b.use = (safecoll_strategy)99, "use 99 is not a strategy");
    EXPECT_BAD(b.use = (safecoll_strategy)-1, "use -1 is not a strategy");
    EXPECT_BAD(b.use = SAFECOLL_STRATEGY_P2P, "use=p2p is given but kind is correctness");
    EXPECT_BAD(b.kind = SAFECOLL_BOUND_PERFORMANCE, "kind=performance needs use=<strategy>");
    EXPECT_BAD((b.kind = SAFECOLL_BOUND_PERFORMANCE, b.use = SAFECOLL_STRATEGY_NATIVE),
               "use=native: a performance record must name another strategy");
    EXPECT_BAD((b.kind = SAFECOLL_BOUND_PERFORMANCE, b.use = SAFECOLL_STRATEGY_REDUCE_BCAST),
               "use=reduce+bcast: no such strategy for gather");
    EXPECT_BAD(b.oversubscribed = SAFECOLL_NOVERSUB, "oversubscribed 3 is not a condition");
    EXPECT_BAD(b.oversubscribed = (safecoll_bound_oversub)-1,
               "oversubscribed -1 is not a condition");
    EXPECT_BAD(b.nodes = SAFECOLL_NNODES, "nodes 3 is not a condition");
    EXPECT_BAD(b.nodes = (safecoll_bound_nodes)-1, "nodes -1 is not a condition");
    EXPECT_BAD(b.oversubscribed = SAFECOLL_OVERSUB_YES, "oversubscribed=yes is given but kind is "
                                                        "correctness");
    EXPECT_BAD(b.nodes = SAFECOLL_NODES_MANY, "nodes=many is given but kind is correctness");
#undef EXPECT_BAD
    ck_assert_uint_eq(count(), 0);

    /* Tabs and newlines are fine; "*" is stored as "". */
    b = a_record(SAFECOLL_COLL_GATHER, SAFECOLL_BOUND_X, 1);
    strcpy(b.mpi, "*");
    strcpy(b.note, "a\tb\nc");
    ASSERT_OK(safecoll_bounds_add(&b));
    ck_assert_str_eq(get(0).mpi, "");
    ck_assert_str_eq(get(0).note, "a\tb\nc");
}
END_TEST

START_TEST(edit_and_query)
{
    char origin[64];
    safecoll_bound b, out;
    unsigned long gen;

    ck_assert_uint_eq(count(), 0);
    for (int i = 0; i < 4; i++) {
        b = a_record(SAFECOLL_COLL_BCAST, SAFECOLL_BOUND_G_ELEMENTS, 100 + i);
        gen = sc__bounds_generation();
        ASSERT_OK(safecoll_bounds_add(&b));
        ck_assert_uint_gt(sc__bounds_generation(), gen);
    }
    ck_assert_uint_eq(count(), 4);
    for (int i = 0; i < 4; i++)
        ck_assert_int_eq(get((size_t)i).bound, 100 + i);

    ASSERT_OK(safecoll_bounds_remove(1));
    ck_assert_uint_eq(count(), 3);
    ck_assert_int_eq(get(0).bound, 100);
    ck_assert_int_eq(get(1).bound, 102);
    ck_assert_int_eq(get(2).bound, 103);
    ASSERT_OK(safecoll_bounds_remove(2));
    ck_assert_int_eq(get(1).bound, 102);
    ck_assert_uint_eq(count(), 2);

    ASSERT_ERROR(safecoll_bounds_remove(2), MPI_ERR_ARG,
                 "safecoll_bounds_remove: index 2 is out of range (2 records)");
    ASSERT_ERROR(safecoll_bounds_remove(SIZE_MAX), MPI_ERR_ARG, "is out of range (2 records)");
    memset(&out, 0x77, sizeof out);
    ASSERT_ERROR(safecoll_bounds_get(2, &out), MPI_ERR_ARG,
                 "safecoll_bounds_get: index 2 is out of range (2 records)");
    ck_assert_int_eq(((unsigned char *)&out)[0], 0x77);
    ASSERT_ERROR(safecoll_bounds_get(0, NULL), MPI_ERR_ARG, "safecoll_bounds_get: out is NULL");
    ASSERT_ERROR(safecoll_bounds_count(NULL), MPI_ERR_ARG, "safecoll_bounds_count: n is NULL");

    /* Origins. */
    ASSERT_OK(safecoll_bounds_origin(0, origin, sizeof origin));
    ck_assert_str_eq(origin, "safecoll_bounds_add");
    ASSERT_OK(safecoll_bounds_load_string("\n\ncollective=gather class=X bound=7\n", "mem"));
    ASSERT_OK(safecoll_bounds_load_string("collective=gather class=X bound=8", NULL));
    ASSERT_OK(safecoll_bounds_origin(2, origin, sizeof origin));
    ck_assert_str_eq(origin, "mem:3");
    ASSERT_OK(safecoll_bounds_origin(3, origin, sizeof origin));
    ck_assert_str_eq(origin, "<string>:1");
    ASSERT_OK(safecoll_bounds_origin(2, origin, 4));
    ck_assert_str_eq(origin, "mem");
    ASSERT_ERROR(safecoll_bounds_origin(4, origin, sizeof origin), MPI_ERR_ARG,
                 "safecoll_bounds_origin: index 4 is out of range (4 records)");
    ASSERT_ERROR(safecoll_bounds_origin(0, NULL, 5), MPI_ERR_ARG,
                 "safecoll_bounds_origin: buf is NULL");
    ASSERT_ERROR(safecoll_bounds_origin(0, origin, 0), MPI_ERR_ARG,
                 "safecoll_bounds_origin: len is 0");

    /* Loading merges: the same text twice gives its records twice. */
    ASSERT_OK(safecoll_bounds_load_string("collective=gather class=X bound=8", NULL));
    ck_assert_uint_eq(count(), 5);

    gen = sc__bounds_generation();
    ASSERT_OK(safecoll_bounds_clear());
    ck_assert_uint_gt(sc__bounds_generation(), gen);
    ck_assert_uint_eq(count(), 0);
    ASSERT_OK(safecoll_bounds_clear());
    ASSERT_ERROR(safecoll_bounds_remove(0), MPI_ERR_ARG, "index 0 is out of range (0 records)");
}
END_TEST

START_TEST(load_files)
{
    const char *good = write_file("good.bounds", "# good\ncollective=gather class=X bound=1\n"
                                                 "collective=scatter class=X bound=2\n");
    const char *bad = write_file("bad.bounds", "collective=gather class=X bound=3\n"
                                               "collective=gather class=X bound=4 bund=1\n");
    char want[700];

    ASSERT_OK(safecoll_bounds_load(good));
    ck_assert_uint_eq(count(), 2);
    snprintf(want, sizeof want, "safecoll_bounds_load: %s:2: unknown key 'bund'", bad);
    ASSERT_ERROR(safecoll_bounds_load(bad), MPI_ERR_ARG, want);
    ck_assert_uint_eq(count(), 2);
    ck_assert_int_eq(get(1).bound, 2);

    ASSERT_ERROR(safecoll_bounds_load(NULL), MPI_ERR_ARG, "safecoll_bounds_load: path is NULL");
    snprintf(want, sizeof want, "safecoll_bounds_load: %s: cannot open: No such file or directory",
             path_of("missing"));
    ASSERT_ERROR(safecoll_bounds_load(path_of("missing")), MPI_ERR_NO_SUCH_FILE, want);
    ASSERT_ERROR(safecoll_bounds_load(path_of("missing/x")), MPI_ERR_NO_SUCH_FILE, "cannot open");
    ASSERT_ERROR(safecoll_bounds_load(""), MPI_ERR_NO_SUCH_FILE, "cannot open");
    snprintf(want, sizeof want, "safecoll_bounds_load: %s: read error: Is a directory", scratch);
    ASSERT_ERROR(safecoll_bounds_load(scratch), MPI_ERR_IO, want);
    ck_assert_uint_eq(count(), 2);
}
END_TEST

/* A file the process may not read is MPI_ERR_ACCESS. */
START_TEST(load_unreadable)
{
    const char *locked;

    if (geteuid() == 0)
        UNIT_SKIP("load_unreadable", "root reads a file of mode 0, so no file is unreadable");
    locked = write_file("locked.bounds", "collective=gather class=X bound=1\n");
    chmod(locked, 0);
    ASSERT_ERROR(safecoll_bounds_load(locked), MPI_ERR_ACCESS, "cannot open: Permission denied");
    ck_assert_uint_eq(count(), 0);
}
END_TEST

START_TEST(load_limits)
{
    /* SAFECOLL_BOUNDS_MAX records in one text are fine, one more is not. */
    const char *line = "collective=gather class=X bound=1\n";
    size_t len = strlen(line);
    char *text = malloc(len * (SAFECOLL_BOUNDS_MAX + 1) + 1);
    safecoll_bound b = a_record(SAFECOLL_COLL_GATHER, SAFECOLL_BOUND_X, 1);
    char want[128];

    ck_assert_ptr_nonnull(text);
    for (size_t i = 0; i <= SAFECOLL_BOUNDS_MAX; i++)
        memcpy(text + i * len, line, len);
    text[len * (SAFECOLL_BOUNDS_MAX + 1)] = '\0';
    snprintf(want, sizeof want, "big:%d: more than %d records", SAFECOLL_BOUNDS_MAX + 1,
             SAFECOLL_BOUNDS_MAX);
    ASSERT_ERROR(safecoll_bounds_load_string(text, "big"), MPI_ERR_ARG, want);
    ck_assert_uint_eq(count(), 0);

    text[len * SAFECOLL_BOUNDS_MAX] = '\0';
    ASSERT_OK(safecoll_bounds_add(&b));
    snprintf(want, sizeof want,
             "safecoll_bounds_load_string: the registry would hold more than %d records",
             SAFECOLL_BOUNDS_MAX);
    ASSERT_ERROR(safecoll_bounds_load_string(text, "big"), MPI_ERR_ARG, want);
    ck_assert_uint_eq(count(), 1);
    ASSERT_OK(safecoll_bounds_clear());
    ASSERT_OK(safecoll_bounds_load_string(text, "big"));
    ck_assert_uint_eq(count(), SAFECOLL_BOUNDS_MAX);
    ASSERT_ERROR(safecoll_bounds_add(&b), MPI_ERR_ARG,
                 "safecoll_bounds_add: the registry would hold more than");
    free(text);
}
END_TEST

START_TEST(save_files)
{
    const char *path = path_of("out.bounds");
    safecoll_bound b = a_record(SAFECOLL_COLL_ALLTOALL, SAFECOLL_BOUND_G_BYTES, 77);
    struct stat st;
    char want[700];
    FILE *fp;
    char first[200];

    /* An empty registry saves comments only, and loads as nothing. */
    ASSERT_OK(safecoll_bounds_save(path));
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_mode & 07777, 0644);
    fp = fopen(path, "r");
    ck_assert_ptr_nonnull(fp);
    ck_assert_ptr_nonnull(fgets(first, sizeof first, fp));
    fclose(fp);
    ck_assert_msg(strncmp(first, "# libsafecoll bound registry", 28) == 0, "%s", first);
    ASSERT_OK(safecoll_bounds_load(path));
    ck_assert_uint_eq(count(), 0);

    /* An existing file is replaced and keeps its mode. */
    ASSERT_OK(safecoll_bounds_add(&b));
    chmod(path, 0600);
    ASSERT_OK(safecoll_bounds_save(path));
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_mode & 07777, 0600);
    ASSERT_OK(safecoll_bounds_load(path));
    ck_assert_uint_eq(count(), 2);
    {
        safecoll_bound back = get(1);
        assert_same(&b, &back, 1);
    }
    ck_assert_int_eq(files_in_scratch(), 1); /* no temporary file left */

    ASSERT_ERROR(safecoll_bounds_save(NULL), MPI_ERR_ARG, "safecoll_bounds_save: path is NULL");
    ASSERT_ERROR(safecoll_bounds_save(""), MPI_ERR_ARG, "safecoll_bounds_save: path is empty");
    snprintf(want, sizeof want,
             "safecoll_bounds_save: %s: cannot create a temporary file: No such file or directory",
             path_of("no/such.bounds"));
    ASSERT_ERROR(safecoll_bounds_save(path_of("no/such.bounds")), MPI_ERR_NO_SUCH_FILE, want);
    /* A directory in the way: the rename fails and the temporary goes. */
    ck_assert_int_eq(mkdir(path_of("dir.bounds"), 0755), 0);
    ASSERT_ERROR(safecoll_bounds_save(path_of("dir.bounds")), MPI_ERR_IO,
                 "cannot rename the temporary file to it");
    ck_assert_int_eq(files_in_scratch(), 2);

    /* A write that fails half way (file size limit of this forked test):
     * the error names the temporary file, which is removed, and the old
     * file stays as it was. */
    {
        struct rlimit lim = {100, 100};
        char before[4096], after[4096];
        size_t nb, na;
        fp = fopen(path, "r");
        nb = fread(before, 1, sizeof before, fp);
        fclose(fp);
        for (int i = 0; i < 10; i++)
            ASSERT_OK(safecoll_bounds_add(&b));
        signal(SIGXFSZ, SIG_IGN);
        ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &lim), 0);
        ASSERT_ERROR(safecoll_bounds_save(path), MPI_ERR_IO, "write error: File too large");
        ck_assert_int_eq(files_in_scratch(), 2);
        fp = fopen(path, "r");
        na = fread(after, 1, sizeof after, fp);
        fclose(fp);
        ck_assert(na == nb && memcmp(before, after, na) == 0);
    }
}
END_TEST

/* ================================================================ match */

START_TEST(match_records)
{
    size_t idx[8], n = 99;

    ASSERT_OK(safecoll_bounds_load_string(
        "collective=gather class=X bound=124Mi s=1 P=48 mpi=\"MPICH Version:\\t3.1.3\\n\"\n"
        "collective=gather class=G_elements bound=100\n"
        "collective=gather class=G_bytes bound=5 s=1-8 P=4- mpi=\"Open MPI v1.10\"\n"
        "collective=scatter class=G_bytes bound=5\n"
        "collective=igather class=G_bytes bound=5\n"
        "collective=gather class=X bound=1 mpi=\"a\\\\b\\\"c\\td\\ne\"\n",
        "m"));

    ASSERT_OK(safecoll_bounds_match(SAFECOLL_COLL_GATHER, 1, 48, LIB_MPICH313, idx, 8, &n));
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(idx[0], 0);
    ck_assert_uint_eq(idx[1], 1);
    /* s and P outside the ranges. */
    ASSERT_OK(safecoll_bounds_match(SAFECOLL_COLL_GATHER, 2, 48, LIB_MPICH313, idx, 8, &n));
    ck_assert_uint_eq(n, 1);
    ASSERT_OK(safecoll_bounds_match(SAFECOLL_COLL_GATHER, 1, 47, LIB_MPICH313, idx, 8, &n));
    ck_assert_uint_eq(n, 1);
    /* The pattern is an exact substring: case, the tab and the newline count. */
    ASSERT_OK(safecoll_bounds_match(SAFECOLL_COLL_GATHER, 1, 48, "MPICH Version:\t3.1.30\n", idx,
                                    8, &n));
    ck_assert_uint_eq(n, 1);
    ASSERT_OK(safecoll_bounds_match(SAFECOLL_COLL_GATHER, 1, 48, "MPICH Version: 3.1.3\n", idx,
                                    8, &n));
    ck_assert_uint_eq(n, 1);
    ASSERT_OK(safecoll_bounds_match(SAFECOLL_COLL_GATHER, 1, 48, "mpich version:\t3.1.3\n", idx,
                                    8, &n));
    ck_assert_uint_eq(n, 1);
    ASSERT_OK(safecoll_bounds_match(SAFECOLL_COLL_GATHER, 1, 48, "xMPICH Version:\t3.1.3\ny", idx,
                                    8, &n));
    ck_assert_uint_eq(n, 2);
    /* Open MPI. */
    ASSERT_OK(safecoll_bounds_match(SAFECOLL_COLL_GATHER, 4, 4, LIB_OMPI110, idx, 8, &n));
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(idx[1], 2);
    ASSERT_OK(safecoll_bounds_match(SAFECOLL_COLL_GATHER, 4, 4, "Open MPI v1.1.5", idx, 8, &n));
    ck_assert_uint_eq(n, 1);
    /* Escapes of the file are the bytes of the library string. */
    ASSERT_OK(safecoll_bounds_match(SAFECOLL_COLL_GATHER, 0, 1, "..a\\b\"c\td\ne..", idx, 8, &n));
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(idx[1], 5);
    ASSERT_OK(safecoll_bounds_match(SAFECOLL_COLL_GATHER, 0, 1, "a\\\\b\\\"c\\td\\ne", idx, 8,
                                    &n));
    ck_assert_uint_eq(n, 1);
    /* An empty library string matches only the records for any library. */
    ASSERT_OK(safecoll_bounds_match(SAFECOLL_COLL_GATHER, 1, 48, "", idx, 8, &n));
    ck_assert_uint_eq(n, 1);
    /* Other collectives, blocking and non-blocking apart. */
    ASSERT_OK(safecoll_bounds_match(SAFECOLL_COLL_SCATTER, 1, 1, "", idx, 8, &n));
    ck_assert(n == 1 && idx[0] == 3);
    ASSERT_OK(safecoll_bounds_match(SAFECOLL_COLL_IGATHER, 1, 1, "", idx, 8, &n));
    ck_assert(n == 1 && idx[0] == 4);
    ASSERT_OK(safecoll_bounds_match(SAFECOLL_COLL_BARRIER, 1, 1, "", idx, 8, &n));
    ck_assert_uint_eq(n, 0);

    /* Fewer slots than matches: n counts them all, only max are written. */
    idx[0] = idx[1] = 999;
    ASSERT_OK(safecoll_bounds_match(SAFECOLL_COLL_GATHER, 1, 48, LIB_MPICH313, idx, 1, &n));
    ck_assert_uint_eq(n, 2);
    ck_assert_uint_eq(idx[0], 0);
    ck_assert_uint_eq(idx[1], 999);
    ASSERT_OK(safecoll_bounds_match(SAFECOLL_COLL_GATHER, 1, 48, LIB_MPICH313, NULL, 0, &n));
    ck_assert_uint_eq(n, 2);

    /* NULL library: the running one (set here so the test does not depend
     * on the MPI installed). */
    ASSERT_OK(sc__bounds_set_library(LIB_OMPI110));
    ASSERT_OK(safecoll_bounds_match(SAFECOLL_COLL_GATHER, 4, 4, NULL, idx, 8, &n));
    ck_assert_uint_eq(n, 2);
    ASSERT_OK(sc__bounds_set_library(LIB_MPICH313));
    ASSERT_OK(safecoll_bounds_match(SAFECOLL_COLL_GATHER, 1, 48, NULL, idx, 8, &n));
    ck_assert_uint_eq(n, 2);

    /* Arguments. */
    ASSERT_ERROR(safecoll_bounds_match((safecoll_coll)-1, 1, 1, "", idx, 8, &n), MPI_ERR_ARG,
                 "safecoll_bounds_match: coll -1 is out of range");
    ASSERT_ERROR(safecoll_bounds_match(SAFECOLL_NCOLL, 1, 1, "", idx, 8, &n), MPI_ERR_ARG,
                 "is out of range");
    ASSERT_ERROR(safecoll_bounds_match(SAFECOLL_COLL_GATHER, -1, 1, "", idx, 8, &n), MPI_ERR_ARG,
                 "safecoll_bounds_match: type_size -1 is negative");
    ASSERT_ERROR(safecoll_bounds_match(SAFECOLL_COLL_GATHER, 1, 0, "", idx, 8, &n), MPI_ERR_ARG,
                 "safecoll_bounds_match: nprocs 0 is not >= 1");
    ASSERT_ERROR(safecoll_bounds_match(SAFECOLL_COLL_GATHER, 1, 1, "", NULL, 3, &n), MPI_ERR_ARG,
                 "safecoll_bounds_match: indices is NULL but max is 3");
    ASSERT_ERROR(safecoll_bounds_match(SAFECOLL_COLL_GATHER, 1, 1, "", idx, 8, NULL), MPI_ERR_ARG,
                 "safecoll_bounds_match: n is NULL");
}
END_TEST

static void limits(safecoll_coll coll, int s, int p, MPI_Count e, MPI_Count b, MPI_Count x);
static int perf_in(safecoll_coll coll, int s, int p, MPI_Count elems, unsigned conds,
                   sc__perf_hit *hit);

/* The routing side of performance records: which record a call of elems
 * elements in messages of msg passes (the greatest bound in bytes). */
static int perf(safecoll_coll coll, int s, int p, MPI_Count elems, MPI_Count msg,
                sc__perf_hit *hit)
{
    memset(hit, 0x5a, sizeof *hit);
    return sc__bounds_perf(coll, s, p, elems, msg, SC_COND_UNKNOWN, hit);
}

START_TEST(perf_routing_index)
{
    sc__perf_hit h;

    ASSERT_OK(sc__bounds_set_library(LIB_MPICH402));
    ck_assert_int_eq(sc__bounds_perf_any(SAFECOLL_COLL_ALLREDUCE), 0);
    ck_assert_int_eq(perf(SAFECOLL_COLL_ALLREDUCE, 4, 4, 1 << 20, 1 << 20, &h), 0);
    ASSERT_OK(safecoll_bounds_load_string(
        "collective=allreduce class=G_bytes bound=1\n"
        "collective=allreduce kind=performance use=p2p class=G_bytes bound=1Ki P=2-8\n"
        "collective=allreduce kind=performance use=chunk class=G_elements bound=1Ki s=4\n"
        "collective=allreduce kind=performance use=p2p class=G_bytes bound=64 mpi=Open\n"
        "collective=gather kind=performance use=allgather class=X bound=10\n",
        "pi"));
    ck_assert_int_eq(sc__bounds_perf_any(SAFECOLL_COLL_ALLREDUCE), 1);
    ck_assert_int_eq(sc__bounds_perf_any(SAFECOLL_COLL_IALLREDUCE), 0);
    ck_assert_int_eq(sc__bounds_perf_any(SAFECOLL_COLL_REDUCE), 0);
    /* At or below every bound: nothing (256 ints = 1 KiB). */
    ck_assert_int_eq(perf(SAFECOLL_COLL_ALLREDUCE, 4, 4, 256, 256, &h), 0);
    /* 257 ints pass the G_bytes record (1028 > 1024), not the G_elements one. */
    ck_assert_int_eq(perf(SAFECOLL_COLL_ALLREDUCE, 4, 4, 257, 257, &h), 1);
    ck_assert(h.use == SAFECOLL_STRATEGY_P2P && h.index == 1 && h.bound == 1024 &&
              h.value == 1028 && h.cls == SAFECOLL_BOUND_G_BYTES);
    /* Past both: the G_elements record lies at 4 KiB, the greater bound. */
    ck_assert_int_eq(perf(SAFECOLL_COLL_ALLREDUCE, 4, 4, 1025, 1025, &h), 1);
    ck_assert(h.use == SAFECOLL_STRATEGY_CHUNK && h.index == 2 && h.value == 1025 &&
              h.cls == SAFECOLL_BOUND_G_ELEMENTS);
    /* s and P ranges. */
    ck_assert_int_eq(perf(SAFECOLL_COLL_ALLREDUCE, 8, 4, 1025, 1025, &h), 1);
    ck_assert(h.use == SAFECOLL_STRATEGY_P2P);
    ck_assert_int_eq(perf(SAFECOLL_COLL_ALLREDUCE, 8, 9, 1025, 1025, &h), 0);
    /* Class X compares the message. */
    ck_assert_int_eq(perf(SAFECOLL_COLL_GATHER, 1, 4, 40, 10, &h), 0);
    ck_assert_int_eq(perf(SAFECOLL_COLL_GATHER, 1, 4, 44, 11, &h), 1);
    ck_assert(h.use == SAFECOLL_STRATEGY_ALLGATHER && h.index == 4 && h.value == 11);
    /* Another library. */
    ASSERT_OK(sc__bounds_set_library("Open MPI v4.1.4"));
    ck_assert_int_eq(perf(SAFECOLL_COLL_ALLREDUCE, 4, 1, 17, 17, &h), 1);
    ck_assert(h.index == 3);
    ASSERT_OK(sc__bounds_set_library(LIB_MPICH402));
    /* Removing and clearing update the index. */
    ASSERT_OK(safecoll_bounds_remove(1));
    ck_assert_int_eq(perf(SAFECOLL_COLL_ALLREDUCE, 4, 4, 257, 257, &h), 0);
    ck_assert_int_eq(perf(SAFECOLL_COLL_ALLREDUCE, 4, 4, 1025, 1025, &h), 1);
    ck_assert(h.index == 1);
    ASSERT_OK(safecoll_bounds_clear());
    ck_assert_int_eq(sc__bounds_perf_any(SAFECOLL_COLL_ALLREDUCE), 0);
    ck_assert_int_eq(perf(SAFECOLL_COLL_ALLREDUCE, 4, 4, 1025, 1025, &h), 0);
}
END_TEST

/* Conditions (issue 14): a record that names them routes only a call whose
 * communicator is in them; with the conditions unknown, a call that passes
 * such a record asks for them (-1). */
static int perf_in(safecoll_coll coll, int s, int p, MPI_Count elems, unsigned conds,
                   sc__perf_hit *hit)
{
    memset(hit, 0x5a, sizeof *hit);
    return sc__bounds_perf(coll, s, p, elems, elems, conds, hit);
}

START_TEST(perf_routing_conditions)
{
    const unsigned over = SC_COND_OVERSUBSCRIBED, many = SC_COND_NODES_MANY;
    sc__perf_hit h;

    ASSERT_OK(sc__bounds_set_library(LIB_MPICH402));
    ASSERT_OK(safecoll_bounds_load_string(
        "collective=allgatherv kind=performance use=p2p class=G_bytes bound=100\n"
        "collective=allgatherv kind=performance use=bigtype oversubscribed=yes nodes=1 "
        "class=G_bytes bound=1000\n"
        "collective=allgatherv kind=performance use=chunk oversubscribed=no class=G_bytes "
        "bound=2000\n"
        "collective=allgatherv kind=performance use=segment nodes=many class=G_bytes "
        "bound=3000\n"
        "collective=gatherv kind=performance use=p2p class=G_bytes bound=100\n",
        "cond"));
    ck_assert_int_eq(sc__bounds_perf_cond_any(SAFECOLL_COLL_ALLGATHERV), 1);
    ck_assert_int_eq(sc__bounds_perf_cond_any(SAFECOLL_COLL_GATHERV), 0);
    ck_assert_int_eq(sc__bounds_perf_cond_any(SAFECOLL_COLL_IALLGATHERV), 0);
    /* Past the unconditional record only: its answer, whatever the
     * conditions, known or not. */
    for (unsigned c = 0; c < 4; c++) {
        ck_assert_int_eq(perf_in(SAFECOLL_COLL_ALLGATHERV, 1, 4, 500, c, &h), 1);
        ck_assert(h.use == SAFECOLL_STRATEGY_P2P && h.index == 0);
    }
    ck_assert_int_eq(perf_in(SAFECOLL_COLL_ALLGATHERV, 1, 4, 500, SC_COND_UNKNOWN, &h), 1);
    /* Past the oversubscribed one-node record: it needs the conditions. */
    ck_assert_int_eq(perf_in(SAFECOLL_COLL_ALLGATHERV, 1, 4, 1500, SC_COND_UNKNOWN, &h), -1);
    ck_assert_int_eq(perf_in(SAFECOLL_COLL_ALLGATHERV, 1, 4, 1500, over, &h), 1);
    ck_assert(h.use == SAFECOLL_STRATEGY_BIGTYPE && h.index == 1);
    ck_assert_int_eq(perf_in(SAFECOLL_COLL_ALLGATHERV, 1, 4, 1500, 0, &h), 1);
    ck_assert(h.use == SAFECOLL_STRATEGY_P2P && h.index == 0);
    ck_assert_int_eq(perf_in(SAFECOLL_COLL_ALLGATHERV, 1, 4, 1500, over | many, &h), 1);
    ck_assert(h.use == SAFECOLL_STRATEGY_P2P && h.index == 0);
    ck_assert_int_eq(perf_in(SAFECOLL_COLL_ALLGATHERV, 1, 4, 1500, many, &h), 1);
    ck_assert(h.use == SAFECOLL_STRATEGY_P2P && h.index == 0);
    /* oversubscribed=no holds on one node and on many. */
    ck_assert_int_eq(perf_in(SAFECOLL_COLL_ALLGATHERV, 1, 4, 2500, 0, &h), 1);
    ck_assert(h.use == SAFECOLL_STRATEGY_CHUNK && h.index == 2);
    ck_assert_int_eq(perf_in(SAFECOLL_COLL_ALLGATHERV, 1, 4, 2500, many, &h), 1);
    ck_assert(h.use == SAFECOLL_STRATEGY_CHUNK);
    ck_assert_int_eq(perf_in(SAFECOLL_COLL_ALLGATHERV, 1, 4, 2500, over, &h), 1);
    ck_assert(h.use == SAFECOLL_STRATEGY_BIGTYPE);
    /* nodes=many holds oversubscribed or not. */
    ck_assert_int_eq(perf_in(SAFECOLL_COLL_ALLGATHERV, 1, 4, 3500, many, &h), 1);
    ck_assert(h.use == SAFECOLL_STRATEGY_SEGMENT && h.index == 3);
    ck_assert_int_eq(perf_in(SAFECOLL_COLL_ALLGATHERV, 1, 4, 3500, many | over, &h), 1);
    ck_assert(h.use == SAFECOLL_STRATEGY_SEGMENT);
    ck_assert_int_eq(perf_in(SAFECOLL_COLL_ALLGATHERV, 1, 4, 3500, 0, &h), 1);
    ck_assert(h.use == SAFECOLL_STRATEGY_CHUNK);
    /* Another collective without conditions never asks. */
    ck_assert_int_eq(perf_in(SAFECOLL_COLL_GATHERV, 1, 4, 3500, SC_COND_UNKNOWN, &h), 1);
    ASSERT_OK(safecoll_bounds_clear());
    ck_assert_int_eq(sc__bounds_perf_cond_any(SAFECOLL_COLL_ALLGATHERV), 0);
}
END_TEST

/* Calls below every record's floor skip the lock (registry.c): the floor
 * is the least of the records' bounds in bytes, with the smallest type
 * size a record covers, and never hides a call a record routes. */
START_TEST(perf_routing_floor)
{
    sc__perf_hit h;

    ASSERT_OK(sc__bounds_set_library(LIB_MPICH402));
    ASSERT_OK(safecoll_bounds_load_string(
        "collective=allreduce kind=performance use=p2p class=G_bytes bound=1Ki\n"
        "collective=allreduce kind=performance use=chunk class=G_elements bound=10 s=4-8\n"
        "collective=gather kind=performance use=allgather class=X bound=10 s=2-8\n"
        "collective=bcast kind=performance use=p2p class=G_elements bound=4611686018427387904 "
        "s=8\n",
        "fl"));
    /* Floor 40 bytes: 11 ints pass the G_elements record, 10 do not. */
    ck_assert_int_eq(perf(SAFECOLL_COLL_ALLREDUCE, 4, 4, 10, 10, &h), 0);
    ck_assert_int_eq(perf(SAFECOLL_COLL_ALLREDUCE, 4, 4, 11, 11, &h), 1);
    ck_assert(h.use == SAFECOLL_STRATEGY_CHUNK && h.value == 11);
    /* 6 doubles (48 bytes) do not pass it: above the floor, below the bound. */
    ck_assert_int_eq(perf(SAFECOLL_COLL_ALLREDUCE, 8, 4, 6, 6, &h), 0);
    /* Class X at s = 2: a message of 11 shorts in a 22-byte buffer. */
    ck_assert_int_eq(perf(SAFECOLL_COLL_GATHER, 2, 4, 11, 11, &h), 1);
    ck_assert_int_eq(perf(SAFECOLL_COLL_GATHER, 2, 4, 40, 10, &h), 0);
    /* A bound whose bytes pass MPI_Count: the floor saturates, the call
     * past it in elements is still routed. */
    ck_assert_int_eq(perf(SAFECOLL_COLL_BCAST, 8, 4, (MPI_Count)1 << 62, 1, &h), 0);
    ck_assert_int_eq(perf(SAFECOLL_COLL_BCAST, 8, 4, ((MPI_Count)1 << 62) + 1, 1, &h), 1);
    ck_assert(h.use == SAFECOLL_STRATEGY_P2P);
    /* The floor follows removals: without the G_elements record it is 1 KiB. */
    ASSERT_OK(safecoll_bounds_remove(1));
    ck_assert_int_eq(perf(SAFECOLL_COLL_ALLREDUCE, 4, 4, 11, 11, &h), 0);
    ck_assert_int_eq(perf(SAFECOLL_COLL_ALLREDUCE, 4, 4, 257, 257, &h), 1);
    ck_assert(h.use == SAFECOLL_STRATEGY_P2P);
    ASSERT_OK(safecoll_bounds_clear());
    ck_assert_int_eq(perf(SAFECOLL_COLL_ALLREDUCE, 4, 4, 1 << 20, 1 << 20, &h), 0);
}
END_TEST

/* Performance records are apart: safecoll_bounds_match and the detectors
 * never see them; safecoll_bounds_match_kind does. */
START_TEST(match_kinds)
{
    size_t idx[8], n = 99;

    ASSERT_OK(sc__bounds_set_library(LIB_MPICH402));
    ASSERT_OK(safecoll_bounds_load_string(
        "collective=allreduce class=G_bytes bound=100\n"
        "collective=allreduce kind=performance use=p2p class=G_bytes bound=10\n"
        "collective=allreduce kind=performance use=chunk class=X bound=5 s=4 mpi=Open\n"
        "collective=allreduce kind=performance use=chunk class=G_elements bound=7 P=2-4\n",
        "k"));
    ASSERT_OK(safecoll_bounds_match(SAFECOLL_COLL_ALLREDUCE, 4, 2, NULL, idx, 8, &n));
    ck_assert(n == 1 && idx[0] == 0);
    ASSERT_OK(safecoll_bounds_match_kind(SAFECOLL_BOUND_CORRECTNESS, SAFECOLL_COLL_ALLREDUCE, 4,
                                         2, NULL, idx, 8, &n));
    ck_assert(n == 1 && idx[0] == 0);
    ASSERT_OK(safecoll_bounds_match_kind(SAFECOLL_BOUND_PERFORMANCE, SAFECOLL_COLL_ALLREDUCE, 4,
                                         2, NULL, idx, 8, &n));
    ck_assert(n == 2 && idx[0] == 1 && idx[1] == 3);
    ASSERT_OK(safecoll_bounds_match_kind(SAFECOLL_BOUND_PERFORMANCE, SAFECOLL_COLL_ALLREDUCE, 4,
                                         8, "Open MPI v4.1.4", idx, 8, &n));
    ck_assert(n == 2 && idx[0] == 1 && idx[1] == 2);
    /* The detectors' index and their explanation hold the correctness record only. */
    limits(SAFECOLL_COLL_ALLREDUCE, 4, 2, -1, 100, -1);
    {
        char buf[SAFECOLL_BOUND_LINE_MAX + 64];
        ck_assert_int_eq(sc__bounds_explain(SAFECOLL_COLL_ALLREDUCE, 4, 2,
                                            SAFECOLL_BOUND_G_BYTES, 50, buf, sizeof buf),
                         0);
        ck_assert_int_eq(sc__bounds_explain(SAFECOLL_COLL_ALLREDUCE, 4, 2, SAFECOLL_BOUND_X, 50,
                                            buf, sizeof buf),
                         0);
    }
    ASSERT_ERROR(safecoll_bounds_match_kind(SAFECOLL_NBOUND_KIND, SAFECOLL_COLL_ALLREDUCE, 4, 2,
                                            NULL, idx, 8, &n),
                 MPI_ERR_ARG, "safecoll_bounds_match_kind: kind 2 is out of range");
    ASSERT_ERROR(safecoll_bounds_match_kind((safecoll_bound_kind)-1, SAFECOLL_COLL_ALLREDUCE, 4,
                                            2, NULL, idx, 8, &n),
                 MPI_ERR_ARG, "kind -1 is out of range");
    ASSERT_ERROR(safecoll_bounds_match_kind(SAFECOLL_BOUND_PERFORMANCE, SAFECOLL_NCOLL, 4, 2,
                                            NULL, idx, 8, &n),
                 MPI_ERR_ARG, "safecoll_bounds_match_kind: coll 34 is out of range");
    ASSERT_ERROR(safecoll_bounds_match_kind(SAFECOLL_BOUND_PERFORMANCE, SAFECOLL_COLL_ALLREDUCE,
                                            4, 2, NULL, idx, 8, NULL),
                 MPI_ERR_ARG, "safecoll_bounds_match_kind: n is NULL");
}
END_TEST

/* ================================================================ limit */

static void limits(safecoll_coll coll, int s, int p, MPI_Count e, MPI_Count b, MPI_Count x)
{
    MPI_Count ge = 7, gb = 7, gx = 7;

    ASSERT_OK(sc__bounds_limit(coll, s, p, &ge, &gb, &gx));
    ck_assert_msg(ge == e && gb == b && gx == x,
                  "%s s=%d P=%d: got %lld %lld %lld, expected %lld %lld %lld",
                  safecoll_coll_name(coll), s, p, (long long)ge, (long long)gb, (long long)gx,
                  (long long)e, (long long)b, (long long)x);
}

START_TEST(limit_tightest)
{
    unsigned long gen;

    ASSERT_OK(sc__bounds_set_library(LIB_MPICH402));
    ASSERT_OK(safecoll_bounds_load_string(
        "collective=gather class=G_elements bound=100\n"
        "collective=gather class=G_elements bound=50 P=8-\n"
        "collective=gather class=G_elements bound=10 mpi=\"Open MPI\"\n"
        "collective=gather class=G_bytes bound=400 s=4\n"
        "collective=gather class=X bound=7 s=1 P=2\n"
        "collective=gather class=X bound=5 s=1-2 P=2-3 mpi=\"MPICH Version:\\t4.0.2\\n\"\n"
        "collective=gather class=X bound=3 s=1-2 P=2-3 mpi=\"MPICH Version:\\t4.0.3\\n\"\n"
        "collective=scatter class=G_elements bound=1\n"
        "collective=igather class=X bound=0\n",
        "lim"));
    limits(SAFECOLL_COLL_GATHER, 1, 2, 100, -1, 5);
    limits(SAFECOLL_COLL_GATHER, 4, 8, 50, 400, -1);
    limits(SAFECOLL_COLL_GATHER, 4, 7, 100, 400, -1);
    limits(SAFECOLL_COLL_GATHER, 2, 3, 100, -1, 5);
    limits(SAFECOLL_COLL_GATHER, 3, 3, 100, -1, -1);
    limits(SAFECOLL_COLL_GATHER, 0, INT_MAX, 50, -1, -1);
    limits(SAFECOLL_COLL_SCATTER, 1, 1, 1, -1, -1);
    limits(SAFECOLL_COLL_IGATHER, 1, 1, -1, -1, 0);
    limits(SAFECOLL_COLL_BCAST, 1, 1, -1, -1, -1);
    ASSERT_OK(sc__bounds_limit(SAFECOLL_COLL_GATHER, 1, 2, NULL, NULL, NULL));
    ASSERT_ERROR(sc__bounds_limit(SAFECOLL_NCOLL, 1, 1, NULL, NULL, NULL), MPI_ERR_ARG,
                 "coll 34 is out of range");

    /* Another library: the Open MPI record applies, the MPICH ones not. */
    gen = sc__bounds_generation();
    ASSERT_OK(sc__bounds_set_library("Open MPI v4.1.4"));
    ck_assert_uint_gt(sc__bounds_generation(), gen);
    limits(SAFECOLL_COLL_GATHER, 1, 2, 10, -1, 7);
    ASSERT_OK(sc__bounds_set_library(LIB_MPICH402));

    /* Changes show at once. */
    ASSERT_OK(safecoll_bounds_remove(0));
    limits(SAFECOLL_COLL_GATHER, 1, 2, -1, -1, 5);
    {
        safecoll_bound b = a_record(SAFECOLL_COLL_GATHER, SAFECOLL_BOUND_X, 4);
        ASSERT_OK(safecoll_bounds_add(&b));
    }
    limits(SAFECOLL_COLL_GATHER, 1, 2, -1, -1, 4);
    limits(SAFECOLL_COLL_GATHER, 9, 9, 50, -1, 4);
    ASSERT_OK(safecoll_bounds_clear());
    limits(SAFECOLL_COLL_GATHER, 1, 2, -1, -1, -1);
}
END_TEST

START_TEST(limit_explain)
{
    char buf[SAFECOLL_BOUND_LINE_MAX + 64];

    ASSERT_OK(sc__bounds_set_library(LIB_MPICH402));
    ASSERT_OK(safecoll_bounds_load_string("collective=gather class=G_bytes bound=100\n"
                                          "collective=gather class=G_bytes bound=50 P=8-\n"
                                          "collective=gather class=G_bytes bound=5 mpi=Open\n",
                                          "ex"));
    ck_assert_int_eq(sc__bounds_explain(SAFECOLL_COLL_GATHER, 1, 8, SAFECOLL_BOUND_G_BYTES, 60,
                                        buf, sizeof buf),
                     1);
    ck_assert_str_eq(buf, "ex:2: collective=gather class=G_bytes bound=50 P=8- source=user");
    ck_assert_int_eq(sc__bounds_explain(SAFECOLL_COLL_GATHER, 1, 4, SAFECOLL_BOUND_G_BYTES, 101,
                                        buf, sizeof buf),
                     1);
    ck_assert_str_eq(buf, "ex:1: collective=gather class=G_bytes bound=100 source=user");
    ck_assert_int_eq(sc__bounds_explain(SAFECOLL_COLL_GATHER, 1, 4, SAFECOLL_BOUND_G_BYTES, 100,
                                        buf, sizeof buf),
                     0);
    ck_assert_str_eq(buf, "");
    ck_assert_int_eq(sc__bounds_explain(SAFECOLL_COLL_GATHER, 1, 8, SAFECOLL_BOUND_X, 1000, buf,
                                        sizeof buf),
                     0);
}
END_TEST

/* ================================================================ the shipped file */

/* data/known-bounds of this source tree, found from this file's path (the
 * tests run from the top of the tree). */
static const char *shipped_path(void)
{
    static char path[512];
    const char *file = __FILE__, *cut = strstr(file, "tests/unit/");

    snprintf(path, sizeof path, "%.*sdata/known-bounds", cut ? (int)(cut - file) : 0, file);
    return path;
}

START_TEST(shipped_file)
{
    size_t n;

    setenv("SAFECOLL_KNOWN_BOUNDS", shipped_path(), 1);
    n = count();
    ck_assert_uint_ge(n, 9);
    for (size_t i = 0; i < n; i++) {
        safecoll_bound b = get(i);
        char origin[600];
        /* A shipped record names its library, so it never fires elsewhere. */
        ck_assert_msg(b.mpi[0] != '\0', "shipped record %zu applies to every library", i);
        ck_assert_int_eq(b.source, SAFECOLL_BOUND_SHIPPED);
        ASSERT_OK(safecoll_bounds_origin(i, origin, sizeof origin));
        ck_assert_msg(strstr(origin, "known-bounds:") != NULL, "%s", origin);
    }

    /* Paper 000 on MPICH 3.1.3: Prob. 13 (scatter, snP > 2016 MB) and
     * Prob. 12 (gather, class X at the measured points, eq. 13 around). */
    ASSERT_OK(sc__bounds_set_library(LIB_MPICH313));
    limits(SAFECOLL_COLL_SCATTER, 1, 48, -1, INT64_C(2016) << 20, -1);
    limits(SAFECOLL_COLL_SCATTER, 8, 2, -1, INT64_C(2016) << 20, -1);
    limits(SAFECOLL_COLL_GATHER, 1, 48, -1, INT64_C(5952) << 20, INT64_C(124) << 20);
    limits(SAFECOLL_COLL_GATHER, 1, 96, -1, INT64_C(5952) << 20, INT64_C(62) << 20);
    limits(SAFECOLL_COLL_GATHER, 2, 48, -1, -1, INT64_C(68) << 20);
    limits(SAFECOLL_COLL_GATHER, 1, 60, -1, INT64_C(5952) << 20, -1);
    limits(SAFECOLL_COLL_GATHER, 1, 47, -1, -1, -1);
    limits(SAFECOLL_COLL_IGATHER, 1, 48, -1, -1, -1);
    limits(SAFECOLL_COLL_GATHERV, 1, 48, -1, -1, -1);

    /* Open MPI 1.7 and 1.10: Prob. 10 and 11, nP > 2016M, any s and P. */
    ASSERT_OK(sc__bounds_set_library(LIB_OMPI110));
    limits(SAFECOLL_COLL_IGATHER, 1, 48, INT64_C(2016) << 20, -1, -1);
    limits(SAFECOLL_COLL_ISCATTER, 8, 1000, INT64_C(2016) << 20, -1, -1);
    limits(SAFECOLL_COLL_GATHER, 1, 48, -1, -1, -1);
    limits(SAFECOLL_COLL_SCATTER, 1, 48, -1, -1, -1);
    ASSERT_OK(sc__bounds_set_library("Open MPI v1.7.3, package: Open MPI"));
    limits(SAFECOLL_COLL_IGATHER, 1, 48, INT64_C(2016) << 20, -1, -1);
    ASSERT_OK(sc__bounds_set_library("Open MPI v1.8.8, package: Open MPI"));
    limits(SAFECOLL_COLL_IGATHER, 1, 48, -1, -1, -1);

    /* MPICH 4.0.2's slow ring MPI_Allgatherv (issue 14): in bytes for any
     * type size, only on an oversubscribed single node; not the i-form. */
    ASSERT_OK(sc__bounds_set_library(LIB_MPICH402));
    {
        const unsigned over = SC_COND_OVERSUBSCRIBED, many = SC_COND_NODES_MANY;
        sc__perf_hit h;
        /* P = 4: 262144 bytes; 65537 ints pass it, 65536 do not. */
        ck_assert_int_eq(perf_in(SAFECOLL_COLL_ALLGATHERV, 4, 4, 65537, over, &h), 1);
        ck_assert(h.use == SAFECOLL_STRATEGY_P2P && h.bound == 262144);
        ck_assert_int_eq(perf_in(SAFECOLL_COLL_ALLGATHERV, 4, 4, 65536, over, &h), 0);
        ck_assert_int_eq(perf_in(SAFECOLL_COLL_ALLGATHERV, 8, 4, 32769, over, &h), 1);
        ck_assert_int_eq(perf_in(SAFECOLL_COLL_ALLGATHERV, 1, 4, 262145, over, &h), 1);
        ck_assert_int_eq(perf_in(SAFECOLL_COLL_ALLGATHERV, 4, 4, 65537, 0, &h), 0);
        ck_assert_int_eq(perf_in(SAFECOLL_COLL_ALLGATHERV, 4, 4, 65537, many, &h), 0);
        ck_assert_int_eq(perf_in(SAFECOLL_COLL_ALLGATHERV, 4, 4, 65537, over | many, &h), 0);
        ck_assert_int_eq(perf_in(SAFECOLL_COLL_ALLGATHERV, 4, 4, 65537, SC_COND_UNKNOWN, &h), -1);
        /* P = 3: 98304 bytes. */
        ck_assert_int_eq(perf_in(SAFECOLL_COLL_ALLGATHERV, 4, 3, 24577, over, &h), 1);
        ck_assert(h.use == SAFECOLL_STRATEGY_P2P && h.bound == 98304);
        ck_assert_int_eq(perf_in(SAFECOLL_COLL_ALLGATHERV, 4, 3, 24576, over, &h), 0);
        /* Not measured: P = 2 and 5, and MPI_Iallgatherv. */
        ck_assert_int_eq(perf_in(SAFECOLL_COLL_ALLGATHERV, 4, 2, 1 << 24, over, &h), 0);
        ck_assert_int_eq(perf_in(SAFECOLL_COLL_ALLGATHERV, 4, 5, 1 << 24, over, &h), 0);
        ck_assert_int_eq(sc__bounds_perf_any(SAFECOLL_COLL_IALLGATHERV), 0);
    }

    /* A library the paper never saw: nothing applies, to any collective. */
    ASSERT_OK(sc__bounds_set_library("SomeMPI 1.0"));
    for (int c = 0; c < SAFECOLL_NCOLL; c++)
        limits((safecoll_coll)c, 1, 48, -1, -1, -1);
}
END_TEST

/* ================================================================ environment */

static const char one_rec[] = "collective=gather class=X bound=1\n";
static const char one_rec_known[] = "collective=gather class=X bound=1 source=shipped\n";

/* After a failed start every function reports the same error. */
static void assert_broken(int code, const char *what)
{
    safecoll_bound b = a_record(SAFECOLL_COLL_GATHER, SAFECOLL_BOUND_X, 1);
    char buf[64];
    size_t n, idx[2];
    MPI_Count lim;

    ASSERT_ERROR(safecoll_bounds_count(&n), code, what);
    ASSERT_ERROR(safecoll_bounds_count(&n), code, what);
    ASSERT_ERROR(safecoll_bounds_get(0, &b), code, what);
    ASSERT_ERROR(safecoll_bounds_origin(0, buf, sizeof buf), code, what);
    ASSERT_ERROR(safecoll_bounds_add(&b), code, what);
    ASSERT_ERROR(safecoll_bounds_remove(0), code, what);
    ASSERT_ERROR(safecoll_bounds_clear(), code, what);
    ASSERT_ERROR(safecoll_bounds_load(path_of("x")), code, what);
    ASSERT_ERROR(safecoll_bounds_load_string(one_rec, NULL), code, what);
    ASSERT_ERROR(safecoll_bounds_save(path_of("x")), code, what);
    ASSERT_ERROR(safecoll_bounds_match(SAFECOLL_COLL_GATHER, 1, 1, "", idx, 2, &n), code, what);
    ASSERT_ERROR(sc__bounds_limit(SAFECOLL_COLL_GATHER, 1, 1, &lim, &lim, &lim), code, what);
    ASSERT_ERROR(sc__bounds_init(), code, what);
    ASSERT_ERROR(sc__bounds_set_library("x"), code, what);
    /* The pure functions still work. */
    ASSERT_OK(safecoll_bounds_format(&b, buf, sizeof buf));
    ASSERT_OK(safecoll_bounds_parse(one_rec, &b));
}

START_TEST(env_merge_order)
{
    char list[1200], origin[600], want[600];
    const char *s, *a, *b2;
    safecoll_bound r = a_record(SAFECOLL_COLL_BCAST, SAFECOLL_BOUND_X, 5);

    s = write_file("shipped", "# shipped\ncollective=gather class=X bound=1 source=shipped\n");
    a = write_file("a.bounds", "collective=gather class=X bound=2\n");
    b2 = write_file("b.bounds",
                    "collective=gather class=X bound=3\n\ncollective=gather class=X bound=4\n");
    setenv("SAFECOLL_KNOWN_BOUNDS", s, 1);
    snprintf(list, sizeof list, "%s:%s", a, b2);
    setenv("SAFECOLL_BOUNDS", list, 1);
    ASSERT_OK(safecoll_bounds_add(&r));
    ck_assert_uint_eq(count(), 5);
    for (int i = 0; i < 5; i++)
        ck_assert_int_eq(get((size_t)i).bound, i + 1);
    snprintf(want, sizeof want, "%s:2", s);
    ASSERT_OK(safecoll_bounds_origin(0, origin, sizeof origin));
    ck_assert_str_eq(origin, want);
    snprintf(want, sizeof want, "%s:1", a);
    ASSERT_OK(safecoll_bounds_origin(1, origin, sizeof origin));
    ck_assert_str_eq(origin, want);
    snprintf(want, sizeof want, "%s:3", b2);
    ASSERT_OK(safecoll_bounds_origin(3, origin, sizeof origin));
    ck_assert_str_eq(origin, want);
    ASSERT_OK(safecoll_bounds_origin(4, origin, sizeof origin));
    ck_assert_str_eq(origin, "safecoll_bounds_add");
    /* The environment is read once: changing it now changes nothing. */
    setenv("SAFECOLL_BOUNDS", "/nonexistent", 1);
    ck_assert_uint_eq(count(), 5);
    /* The API may remove what the environment brought. */
    ASSERT_OK(safecoll_bounds_clear());
    ck_assert_uint_eq(count(), 0);
}
END_TEST

/* The line number of an origin "name:line" whose name is `name`, or -1. */
static long origin_line(const char *origin, const char *name)
{
    size_t len = strlen(name);

    if (strncmp(origin, name, len) != 0 || origin[len] != ':')
        return -1;
    return strtol(origin + len + 1, NULL, 10);
}

START_TEST(env_builtin)
{
    /* Unset: the known bounds built into the library, with no file read
     * and nothing installed (issue 14): record for record the shipped
     * data/known-bounds, named "built-in known-bounds:LINE" after the line
     * of that file. */
    char origin[600], line_a[SAFECOLL_BOUND_LINE_MAX], line_b[SAFECOLL_BOUND_LINE_MAX];
    size_t n = count(), idx[4], k = 99;
    safecoll_bound b;

    ck_assert_uint_ge(n, 9);
    /* MPICH 4.0.2's scatter crash (2^31 bytes at P = 4), through the
     * public API: the record that makes the safe MPI_Scatter avoid it. */
    ASSERT_OK(safecoll_bounds_match(SAFECOLL_COLL_SCATTER, 1, 4, LIB_MPICH402, idx, 4, &k));
    ck_assert_uint_eq(k, 1);
    b = get(idx[0]);
    ck_assert_int_eq(b.cls, SAFECOLL_BOUND_G_BYTES);
    ck_assert_int_eq(b.bound, 2080374784);
    ck_assert_int_eq(b.source, SAFECOLL_BOUND_SHIPPED);
    ASSERT_OK(safecoll_bounds_origin(idx[0], origin, sizeof origin));
    ck_assert_msg(origin_line(origin, "built-in known-bounds") > 0, "%s", origin);
    ASSERT_OK(sc__bounds_set_library(LIB_MPICH402));
    limits(SAFECOLL_COLL_SCATTER, 1, 4, -1, 2080374784, -1);
    limits(SAFECOLL_COLL_ISCATTER, 2, 8, -1, 2080374784, -1);
    limits(SAFECOLL_COLL_SCATTER, 1, 2, -1, -1, -1);

    /* The same records as the file of this tree, in the same order and
     * from the same lines: the build embedded the file as it is. */
    ASSERT_OK(safecoll_bounds_load(shipped_path()));
    ck_assert_uint_eq(count(), 2 * n);
    for (size_t i = 0; i < n; i++) {
        safecoll_bound a = get(i), f = get(n + i);
        char origin_f[600];
        assert_same(&a, &f, (long)i);
        ASSERT_OK(safecoll_bounds_format(&a, line_a, sizeof line_a));
        ASSERT_OK(safecoll_bounds_format(&f, line_b, sizeof line_b));
        ck_assert_str_eq(line_a, line_b);
        ASSERT_OK(safecoll_bounds_origin(i, origin, sizeof origin));
        ASSERT_OK(safecoll_bounds_origin(n + i, origin_f, sizeof origin_f));
        ck_assert_msg(origin_line(origin, "built-in known-bounds") ==
                          origin_line(origin_f, shipped_path()),
                      "record %zu: %s, but the file's is %s", i, origin, origin_f);
    }
}
END_TEST

START_TEST(env_known_replaces)
{
    /* A path replaces the built-in records; SAFECOLL_BOUNDS still adds. */
    setenv("SAFECOLL_KNOWN_BOUNDS", write_file("known", one_rec_known), 1);
    setenv("SAFECOLL_BOUNDS", write_file("a.bounds", "collective=bcast class=X bound=2\n"), 1);
    ck_assert_uint_eq(count(), 2);
    ck_assert_int_eq(get(0).collective, SAFECOLL_COLL_GATHER);
    ck_assert_int_eq(get(1).collective, SAFECOLL_COLL_BCAST);
}
END_TEST

/* What the registry printed on stderr while it loaded (at the first
 * safecoll_bounds_count, which returns `rc`), read back from a scratch
 * file. */
static char *stderr_of_load(int rc)
{
    const char *path = path_of("stderr");
    static char text[8192];
    int saved = dup(2), fd;
    size_t n;
    FILE *fp;

    ck_assert_int_ge(saved, 0);
    fflush(stderr);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_ge(dup2(fd, 2), 0);
    close(fd);
    ck_assert_int_eq(safecoll_bounds_count(&n), rc);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    fp = fopen(path, "r");
    ck_assert_ptr_nonnull(fp);
    n = fread(text, 1, sizeof text - 1, fp);
    fclose(fp);
    text[n] = '\0';
    return text;
}

/* How many records of the registry name the MPI this test runs with. */
static size_t applying(void)
{
    char library[MPI_MAX_LIBRARY_VERSION_STRING + 1];
    size_t n = count(), k = 0;
    int len = 0;

    ck_assert_int_eq(MPI_Get_library_version(library, &len), MPI_SUCCESS);
    library[len] = '\0';
    for (size_t i = 0; i < n; i++)
        k += strstr(library, get(i).mpi) != NULL;
    return k;
}

START_TEST(env_verbose_sources)
{
    /* One line when the registry loads, naming each source with its
     * records and those that apply to this MPI. */
    const char *a = write_file("a.bounds", "collective=bcast class=X bound=2\n"
                                           "collective=gather class=X bound=3 mpi=NoSuchMPI\n");
    char want[1200];
    char *text;
    size_t n;

    setenv("SAFECOLL_VERBOSE", "1", 1);
    setenv("SAFECOLL_BOUNDS", a, 1);
    text = stderr_of_load(MPI_SUCCESS);
    n = count() - 2;
    ck_assert_uint_ge(n, 9);
    snprintf(want, sizeof want,
             "libsafecoll: bounds: built-in known-bounds (%zu records, %zu for this MPI), "
             "SAFECOLL_BOUNDS %s (2 records, 1 for this MPI)\n",
             n, applying() - 1, a);
    ck_assert_str_eq(text, want);
}
END_TEST

START_TEST(env_verbose_known_file)
{
    const char *k = write_file("known", one_rec_known);
    char want[700];

    setenv("SAFECOLL_VERBOSE", "1", 1);
    setenv("SAFECOLL_KNOWN_BOUNDS", k, 1);
    snprintf(want, sizeof want,
             "libsafecoll: bounds: SAFECOLL_KNOWN_BOUNDS %s (1 record, 1 for this MPI)\n", k);
    ck_assert_str_eq(stderr_of_load(MPI_SUCCESS), want);
}
END_TEST

START_TEST(env_verbose_none)
{
    setenv("SAFECOLL_VERBOSE", "1", 1);
    setenv("SAFECOLL_KNOWN_BOUNDS", "", 1);
    ck_assert_str_eq(stderr_of_load(MPI_SUCCESS),
                     "libsafecoll: bounds: no known bounds (SAFECOLL_KNOWN_BOUNDS is empty)\n");
}
END_TEST

START_TEST(env_verbose_off)
{
    /* Not verbose: the registry loads without a word. */
    setenv("SAFECOLL_VERBOSE", "0", 1);
    ck_assert_str_eq(stderr_of_load(MPI_SUCCESS), "");
    ck_assert_uint_ge(count(), 9);
}
END_TEST

START_TEST(env_verbose_error)
{
    char want[700];

    setenv("SAFECOLL_VERBOSE", "1", 1);
    setenv("SAFECOLL_BOUNDS", path_of("missing.bounds"), 1);
    snprintf(want, sizeof want,
             "libsafecoll: bounds: none loaded: SAFECOLL_BOUNDS: %s: cannot open: No such file "
             "or directory\n",
             path_of("missing.bounds"));
    ck_assert_str_eq(stderr_of_load(MPI_ERR_NO_SUCH_FILE), want);
}
END_TEST

START_TEST(env_empty)
{
    setenv("SAFECOLL_KNOWN_BOUNDS", "", 1);
    setenv("SAFECOLL_BOUNDS", "", 1);
    ck_assert_uint_eq(count(), 0);
}
END_TEST

START_TEST(env_bounds_missing)
{
    char want[700];

    setenv("SAFECOLL_KNOWN_BOUNDS", "", 1);
    setenv("SAFECOLL_BOUNDS", path_of("missing.bounds"), 1);
    snprintf(want, sizeof want, "SAFECOLL_BOUNDS: %s: cannot open: No such file or directory",
             path_of("missing.bounds"));
    assert_broken(MPI_ERR_NO_SUCH_FILE, want);
}
END_TEST

START_TEST(env_bounds_malformed)
{
    char list[1200], want[700];
    const char *good = write_file("good.bounds", one_rec);
    const char *bad = write_file("bad.bounds", "# bad\ncollective=gather class=X bound=1 P=0-x\n");

    setenv("SAFECOLL_KNOWN_BOUNDS", "", 1);
    snprintf(list, sizeof list, "%s:%s", good, bad);
    setenv("SAFECOLL_BOUNDS", list, 1);
    snprintf(want, sizeof want, "SAFECOLL_BOUNDS: %s:2: P: 'x' is not a number", bad);
    assert_broken(MPI_ERR_ARG, want);
}
END_TEST

START_TEST(env_bounds_empty_entry)
{
    char list[1200];
    const char *good = write_file("good.bounds", one_rec);

    setenv("SAFECOLL_KNOWN_BOUNDS", "", 1);
    snprintf(list, sizeof list, "%s::%s", good, good);
    setenv("SAFECOLL_BOUNDS", list, 1);
    assert_broken(MPI_ERR_ARG, "SAFECOLL_BOUNDS: entry 2 of '");
}
END_TEST

START_TEST(env_bounds_trailing_colon)
{
    char list[1200];

    setenv("SAFECOLL_KNOWN_BOUNDS", "", 1);
    snprintf(list, sizeof list, "%s:", write_file("good.bounds", one_rec));
    setenv("SAFECOLL_BOUNDS", list, 1);
    assert_broken(MPI_ERR_ARG, "SAFECOLL_BOUNDS: entry 2 of '");
}
END_TEST

START_TEST(env_known_missing)
{
    char want[700];

    setenv("SAFECOLL_KNOWN_BOUNDS", path_of("nope"), 1);
    snprintf(want, sizeof want, "SAFECOLL_KNOWN_BOUNDS: %s: cannot open", path_of("nope"));
    assert_broken(MPI_ERR_NO_SUCH_FILE, want);
}
END_TEST

START_TEST(env_known_malformed)
{
    char want[700];
    const char *bad = write_file("known", "collective=gather class=X bound=1 mpi=\"MPICH\n");

    setenv("SAFECOLL_KNOWN_BOUNDS", bad, 1);
    snprintf(want, sizeof want, "SAFECOLL_KNOWN_BOUNDS: %s:1: mpi: unterminated quoted value",
             bad);
    assert_broken(MPI_ERR_ARG, want);
}
END_TEST

/* ================================================================ threads */

static atomic_int stop_readers;

static void *reader(void *arg)
{
    long bad = 0, loops = 0;

    (void)arg;
    while (!atomic_load(&stop_readers)) {
        MPI_Count e, b, x;
        size_t n, idx[4];
        safecoll_bound r;

        if (sc__bounds_limit(SAFECOLL_COLL_GATHER, 4, 16, &e, &b, &x) != MPI_SUCCESS)
            bad++;
        /* Every record the writer adds has a bound in [1000, 2000). */
        if ((e != -1 && (e < 1000 || e >= 2000)) || b != -1 || (x != -1 && x < 1000))
            bad++;
        if (safecoll_bounds_count(&n) != MPI_SUCCESS ||
            safecoll_bounds_match(SAFECOLL_COLL_GATHER, 4, 16, "", idx, 4, &n) != MPI_SUCCESS)
            bad++;
        /* The record may be gone by now: then the only error is the index. */
        if (safecoll_bounds_get(0, &r) == MPI_SUCCESS && (r.bound < 1000 || r.bound >= 2000))
            bad++;
        loops++;
    }
    return (void *)(bad != 0 ? (intptr_t)-1 : (intptr_t)loops);
}

START_TEST(threads_smoke)
{
    enum { READERS = 3, ROUNDS = 20 };
    pthread_t t[READERS];

    for (int i = 0; i < READERS; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, reader, NULL), 0);
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < 50; i++) {
            safecoll_bound r = a_record(SAFECOLL_COLL_GATHER,
                                        i % 2 ? SAFECOLL_BOUND_G_ELEMENTS : SAFECOLL_BOUND_X,
                                        1000 + (round * 50 + i) % 1000);
            ASSERT_OK(safecoll_bounds_add(&r));
        }
        ASSERT_OK(safecoll_bounds_load_string("collective=gather class=X bound=1500\n"
                                              "collective=scatter class=X bound=1\n",
                                              "t"));
        ASSERT_OK(safecoll_bounds_remove(0));
        if (round % 5 == 4)
            ASSERT_OK(safecoll_bounds_clear());
    }
    atomic_store(&stop_readers, 1);
    for (int i = 0; i < READERS; i++) {
        void *ret;
        ck_assert_int_eq(pthread_join(t[i], &ret), 0);
        ck_assert_msg((intptr_t)ret >= 0, "reader %d saw an inconsistent registry", i);
    }
    ck_assert_uint_eq(count(), 0);
}
END_TEST

/* ================================================================ suite */

static Suite *bounds_suite(void)
{
    Suite *s = suite_create("bounds");
    struct {
        const char *name;
        void (*setup)(void);
        const TTest *tests[12];
    } cases[] = {
        {"record", setup_empty, {record_init, record_names}},
        {"parse",
         setup_empty,
         {parse_every_key, parse_conditions, parse_values, parse_errors, parse_errors_in_text, parse_api_errors,
          parse_long_lines, parse_line_ends_and_blanks, parse_nul_bytes}},
        {"format", setup_empty, {format_records, format_errors, round_trip_random}},
        {"registry",
         setup_empty,
         {add_checks, edit_and_query, load_files, load_unreadable, load_limits, save_files}},
        {"match", setup_empty, {match_records, match_kinds, perf_routing_index, perf_routing_floor,
          perf_routing_conditions}},
        {"limit", setup_empty, {limit_tightest, limit_explain, shipped_file}},
        {"environment",
         setup_env,
         {env_merge_order, env_builtin, env_known_replaces, env_empty, env_bounds_missing,
          env_bounds_malformed, env_bounds_empty_entry, env_bounds_trailing_colon,
          env_known_missing, env_known_malformed}},
        {"verbose",
         setup_env,
         {env_verbose_sources, env_verbose_known_file, env_verbose_none, env_verbose_off,
          env_verbose_error}},
        {"threads", setup_empty, {threads_smoke}},
    };

    for (int c = 0; c < NELEMS(cases); c++) {
        TCase *tc = tcase_create(cases[c].name);
        tcase_set_timeout(tc, 60);
        tcase_add_checked_fixture(tc, cases[c].setup, remove_scratch);
        for (int t = 0; t < 12 && cases[c].tests[t] != NULL; t++)
            tcase_add_test(tc, cases[c].tests[t]);
        suite_add_tcase(s, tc);
    }
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(bounds_suite());
    int failures;

    /* Each test needs a process whose registry has not started yet. */
    srunner_set_fork_status(sr, CK_FORK);
    srunner_run_all(sr, CK_NORMAL);
    failures = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failures ? 1 : 0;
}
