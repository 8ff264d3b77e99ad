/*
 * The shared pipeline: describe (helpers for the entry points), detect,
 * agree, execute. See pipeline.h for the overview.
 */
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avoid.h"
#include "nb.h"
#include "bounds.h"
#include "displs.h"
#include "argcheck.h"
#include "pipeline.h"

/* The order in which the automatic choice tries strategies: cheapest first.
 * largecount and bigtype keep one collective call; segment and chunk make a
 * few; p2p makes P messages at the root. */
static const safecoll_strategy cost_order[] = {
    SAFECOLL_STRATEGY_LARGECOUNT, SAFECOLL_STRATEGY_BIGTYPE, SAFECOLL_STRATEGY_SEGMENT,
    SAFECOLL_STRATEGY_CHUNK, SAFECOLL_STRATEGY_P2P,
};

/* A regular allgather's chunk is rounds of the regular call (regular.c),
 * while its segment is the v-form, which MPI runs slower: chunk comes first
 * (MPICH 4.0.2, allgather at 1 MiB, P = 2: chunk 1.0-1.1x of the native
 * call, segment 1.8x when its sub-collectives ran one after the other;
 * with them in flight together, allgather.c, segment is 1.0-1.05x there
 * too, and chunk stays first: rounds of the call MPI tunes, where segment
 * has not been measured past P = 2; doc/performance.md). */
static const safecoll_strategy cost_order_regular[] = {
    SAFECOLL_STRATEGY_LARGECOUNT, SAFECOLL_STRATEGY_BIGTYPE, SAFECOLL_STRATEGY_CHUNK,
    SAFECOLL_STRATEGY_SEGMENT, SAFECOLL_STRATEGY_P2P,
};

/* reduce_scatter(_block)'s chunk is rounds of the call on a slice of every
 * block, a strided type MPI packs, while its p2p is the spread fold, one
 * message of each rank's piece of a block to the block's owner: p2p comes
 * first (MPICH 4.0.2, P = 2 and 4, 1 and 16 MiB: chunk 1.42-1.89x of the
 * native call, p2p 0.54-1.02x; doc/performance.md). allreduce and reduce
 * take it at P = 2 (red_p2p_first, below); scan, exscan, and allreduce and
 * reduce at any other P, keep chunk first, rounds of MPI's own call on
 * contiguous slices, whose algorithm MPI chooses for the machine. */
static const safecoll_strategy cost_order_p2p_first[] = {
    SAFECOLL_STRATEGY_LARGECOUNT, SAFECOLL_STRATEGY_BIGTYPE, SAFECOLL_STRATEGY_SEGMENT,
    SAFECOLL_STRATEGY_P2P, SAFECOLL_STRATEGY_CHUNK,
};

/* allreduce and reduce take the same order at P = 2, and only there. Their
 * chunk is rounds of MPI's own call on contiguous slices, each round
 * paying the call's latency; their p2p, the spread fold, is at P = 2 one
 * message of half the vector each way, a fold of two slices, and one
 * message of the folded half each way (reduce: to the root): the messages
 * of MPI's own reduce-scatter and allgather at P = 2, without the rounds
 * (MPICH 4.0.2, P = 2, quiet, under a bound at 3/4 of the vector: 1 MiB
 * allreduce chunk 1.14x of the native call, p2p 0.84-0.86x; reduce chunk
 * 0.93x, p2p 0.60x; doc/performance.md). Past P = 2 the spread fold makes
 * 2(P-1) messages a rank (reduce: P-1 and one) where MPI's algorithms make
 * about 2 log2 P, every rank sending to every other; no run on a machine
 * with a core a rank has measured it there (this one has 2 cores), so
 * chunk, MPI's algorithm for the machine, stays first. At P = 2 the fold
 * itself is v0 op v1, the one MPI computes (a commutative op may take the
 * operands the other way round). */
static int red_p2p_first(const sc__call *call)
{
    if (call->pattern != SC_PATTERN_REDUCE)
        return 0;
    if (sc__red_facts(call->red.kind) & SC_RED_SCATTERS)
        return 1;
    return call->size == 2 && !(sc__red_facts(call->red.kind) & (SC_RED_UPTO | SC_RED_BELOW));
}

int sc__begin(sc__call *call, safecoll_coll coll, const char *fn, int large, MPI_Comm comm,
              int root)
{
    int inter, rc, setup;

    /* The fields a reduction alone reads, and the reason of a skipped
     * forced strategy, are cleared only where they are read (call.h). */
    memset(call, 0, offsetof(sc__call, red));
    call->coll = coll;
    call->pattern = sc__coll_pattern(coll);
    if (call->pattern == SC_PATTERN_REDUCE)
        memset(&call->red, 0, sizeof call->red);
    call->fn = fn;
    call->large = large;
    call->comm = comm;
    call->root = root;
    call->priv = MPI_COMM_NULL;
    call->strategy = SAFECOLL_STRATEGY_NATIVE;
    call->lay.bad_index = call->rlay.bad_index = -1;
    call->conds = SC_COND_UNKNOWN;

    /* A malformed SAFECOLL_* variable or bound file may be seen on some
     * ranks only (a file readable on one node), so it is kept for the
     * agreement, like bad input; the errors below are the same on every
     * rank (same communicator, same root), so each rank returns at once. */
    if ((setup = sc__config_init()) == MPI_SUCCESS)
        setup = sc__bounds_init();
    call->limit = sc__config_int_limit();
    call->forced = sc__config_forced(coll);
    call->forced_all = call->forced != SAFECOLL_STRATEGY_AUTO && sc__config_forced_all(coll);
    /* The common call: comm among the last four this thread met (meet.c's memo). */
    if (sc__comm_met(comm, &inter, &call->rank, &call->size) && !inter)
        goto met;
    if (comm == MPI_COMM_NULL)
        return sc__error(MPI_ERR_COMM, "%s: comm is MPI_COMM_NULL", fn);
    if (MPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS)
        return sc__error(MPI_ERR_COMM, "%s: comm is not a valid communicator", fn);
    /* The entry runs an intercommunicator call itself (inter.c), once
     * comm is met (below). */
    if (inter)
        return (rc = sc__comm_meet(comm, fn)) == MPI_SUCCESS ? SC_INTER : rc;
    MPI_Comm_rank(comm, &call->rank);
    MPI_Comm_size(comm, &call->size);
    /* Every rank of comm meets it first (meet.c): the settings agree, the
     * setup succeeded everywhere, and the node conditions are known. A bad
     * root comes after, since its checking-mode agreement (argcheck.c) is
     * a message on the private communicator that must not meet another
     * rank's first meeting. */
    if ((rc = sc__comm_meet(comm, fn)) != MPI_SUCCESS)
        return rc;
met:
    if ((call->pattern == SC_PATTERN_GATHER || call->pattern == SC_PATTERN_SCATTER) &&
        (root < 0 || root >= call->size))
        return sc__error(MPI_ERR_ROOT, "%s: root %d is not a rank of a communicator of size %d",
                         fn, root, call->size);
    /* The private duplicate, which the first meeting made, is looked up
     * when the call needs it (sc__run): a call that decides alone never
     * does. */
    /* A performance record measured under node conditions applies only
     * where they hold: they are read here, because detect's lookups differ
     * from rank to rank (a root and its leaves) and the coroutine of an
     * i-call cannot make a blocking collective. The first meeting
     * detected them, so this is an attribute look-up, never a collective;
     * a failure is kept for the agreement and leaves such records out. */
    if (setup == MPI_SUCCESS && sc__config_perf_bounds() && sc__bounds_perf_cond_any(coll))
        sc__note_error(call, sc__comm_conditions(comm, &call->conds));
    if (setup != MPI_SUCCESS) {
        /* Its message was recorded by the failing init; keep it. */
        sc__note_error(call, setup);
    }
    return MPI_SUCCESS;
}

int sc__begin_i(sc__call *call, safecoll_coll coll, const char *fn, int large,
                MPI_Comm comm, int root, MPI_Request *request)
{
    int rc;

    if (request != NULL)
        *request = MPI_REQUEST_NULL;
    rc = sc__begin(call, coll, fn, large, comm, root);
    if ((rc == MPI_SUCCESS || rc == SC_INTER) && request == NULL)
        rc = sc__error(MPI_ERR_REQUEST, "%s: request is NULL", fn);
    call->request = request;
    return rc;
}

/* The layouts' arrays: the int or the _c ones, as the entry got them. */
static void v_arrays(sc__layout *lay, int large, const int *ic, const int *id,
                     const MPI_Count *cc, const MPI_Aint *cd)
{
    if (large) {
        lay->ccounts = cc;
        lay->cdispls = cd;
    } else {
        lay->icounts = ic;
        lay->idispls = id;
    }
}

int sc__v_entry(sc__inter *in, int large, sc__v_describe *describe)
{
    sc__call call;
    int rc;

    in->pattern = sc__coll_pattern(in->coll);
    rc = sc__blocking(in->coll) == in->coll
             ? sc__begin(&call, in->coll, in->fn, large, in->comm, in->root)
             : sc__begin_i(&call, in->coll, in->fn, large, in->comm, in->root, in->request);
    if (rc == SC_INTER)
        return sc__inter_v(in);
    if (rc != MPI_SUCCESS)
        return sc__fail_early(&call, rc);
    if (in->pattern == SC_PATTERN_GATHER || in->pattern == SC_PATTERN_ALLGATHER) {
        v_arrays(&call.lay, large, in->irc, in->ird, in->crc, in->crd);
    } else {
        v_arrays(&call.lay, large, in->isc, in->isd, in->csc, in->csd);
        v_arrays(&call.rlay, large, in->irc, in->ird, in->crc, in->crd);
    }
    describe(&call, in);
    return sc__run(&call);
}

static void note_size(sc__call *call, int size)
{
    if (size > call->ag[SC_AG_SIZE_MAX])
        call->ag[SC_AG_SIZE_MAX] = size;
    if (-size > call->ag[SC_AG_SIZE_NEG])
        call->ag[SC_AG_SIZE_NEG] = -size;
}

/* Detectors G and X (paper 000, Table VIII) for one side of the call that
 * holds a global buffer: its size in elements (the sum of the counts, which
 * is n*P for a regular collective, Table V) and in bytes, and its largest
 * message, against the tightest bounds the registry holds for this
 * collective, type size and process count. When one fires, the working
 * limit shrinks to the bound, so that segments, windows and big types are
 * sized to stay under it. */
static void detect_bounds(sc__call *call, const sc__layout *lay)
{
    MPI_Count me, mb, mm, lim = call->limit;
    const int s = lay->type_size > 0 ? lay->type_size : 1;
    const MPI_Count bytes = lay->total * s;
    const struct {
        int slot, bit;
        safecoll_bound_class cls;
        MPI_Count *bound, value;
    } tests[] = {
        {SC_AG_G_ELEMENTS, SC_PASS_G_ELEMENTS, SAFECOLL_BOUND_G_ELEMENTS, &me, lay->total},
        {SC_AG_G_BYTES, SC_PASS_G_BYTES, SAFECOLL_BOUND_G_BYTES, &mb, bytes},
        {SC_AG_X, SC_PASS_X, SAFECOLL_BOUND_X, &mm, lay->max_count},
    };
    int passed;

    if (lay->total == 0 ||
        sc__bounds_limit(call->coll, lay->type_size, call->size, &me, &mb, &mm) != MPI_SUCCESS)
        return;
    passed = sc__bounds_passed(lay->total, bytes, lay->max_count, me, mb, mm);
    for (size_t i = 0; i < sizeof tests / sizeof tests[0]; i++) {
        MPI_Count bound = *tests[i].bound;
        if (!(passed & tests[i].bit))
            continue;
        call->ag[tests[i].slot] = 1;
        if (!call->bound_fired) {
            call->bound_fired = 1;
            call->bound_cls = tests[i].cls;
            call->bound_value = tests[i].value;
            call->bound_limit = bound;
            call->bound_size = lay->type_size;
        }
    }
    if (!call->bound_fired)
        return;
    if (me != SC_BOUNDS_NONE && me < lim)
        lim = me;
    if (mb != SC_BOUNDS_NONE && mb / s < lim)
        lim = mb / s;
    if (mm != SC_BOUNDS_NONE && mm < lim)
        lim = mm;
    call->limit = lim > 0 ? lim : 1;
}

/* The pattern's planning; a regular call (allgather or alltoall as its
 * v-form) then plans what its own executors need. */
static int feasible(sc__call *call, const sc__pattern_ops *ops)
{
    int rc = ops->feasible(call);

    if (rc == MPI_SUCCESS && call->regular)
        rc = sc__regular_feasible(call);
    return rc;
}

/* The executor of the chosen strategy: a regular call's own where it has
 * one (regular.c), else the pattern's. */
static sc__exec_fn executor(const sc__call *call, const sc__pattern_ops *ops)
{
    sc__exec_fn f = call->regular ? sc__regular_exec(call) : NULL;

    return f != NULL ? f : ops->exec[call->strategy];
}

/* Performance records (issue 5): the record whose bound this side of the
 * call passes, with the quantities detect_bounds compares. */
static void detect_perf(sc__call *call, const sc__layout *lay)
{
    if (call->perf_fired || lay->total == 0)
        return;
    /* -1 (a record names conditions not looked up: the registry changed
     * since sc__begin) routes nothing. */
    call->perf_fired = sc__bounds_perf(call->coll, lay->type_size > 0 ? lay->type_size : 1,
                                       call->size, lay->total, lay->max_count, call->conds,
                                       &call->perf) > 0;
}

/* Whether this rank's own arrays trigger: a count or displacement past the
 * limit, or displacements wrapped past INT_MAX (found by describe). */
static int own_layout_triggers(const sc__call *call)
{
    return call->lay.nofit || call->rlay.nofit || call->lay.wrapped || call->rlay.wrapped;
}

/* Step 2, detect: triggers are known from describe; here this rank works
 * out which strategies it could run when one is needed or forced. */
static void detect(sc__call *call, const sc__pattern_ops *ops, safecoll_strategy forced)
{
    int trig = own_layout_triggers(call);
    unsigned broken = 0;

    /* After an error the arrays may be missing: nothing more to look at. */
    if (!call->ag[SC_AG_ERROR]) {
        broken = sc__known_bugs(call, &call->known);
        detect_bounds(call, &call->lay);
        detect_bounds(call, &call->rlay);
        call->perf_possible = sc__config_perf_bounds() && sc__bounds_perf_any(call->coll);
        if (call->perf_possible) {
            detect_perf(call, &call->lay);
            detect_perf(call, &call->rlay);
        }
    }
    trig = trig || broken != 0 || call->bound_fired;
    call->ag[SC_AG_LIMIT_MAX] = call->limit;
    call->ag[SC_AG_LIMIT_NEG] = -call->limit;
    call->ag[SC_AG_HASH_MAX] = call->lay.hash;
    call->ag[SC_AG_HASH_NEG] = -call->lay.hash;
    /* Whether it is forced for all collectives is part of what must agree. */
    call->ag[SC_AG_FORCED_MAX] = 2 * (long long)forced + call->forced_all;
    call->ag[SC_AG_FORCED_NEG] = -(2 * (long long)forced + call->forced_all);

    call->ag[SC_AG_TRIGGER] = trig;
    call->ag[SC_AG_WRAPPED] = call->lay.wrapped || call->rlay.wrapped;
    /* chunk cuts blocks at element boundaries on both sides of every
     * message, so it needs one element size for all non-empty data. */
    call->ag[SC_AG_SIZE_MAX] = 0;
    call->ag[SC_AG_SIZE_NEG] = -(long long)INT_MAX;
    if (call->leaf.count > 0 && !call->in_place)
        note_size(call, call->leaf.type_size);
    if (call->lay.total > 0)
        note_size(call, call->lay.type_size);
    if (call->rlay.total > 0)
        note_size(call, call->rlay.type_size);
    if (call->ag[SC_AG_ERROR] != 0)
        return;
    call->ag[SC_AG_PERF] = call->perf_fired ? call->perf.use : 0;
    /* Every rank says which equivalents it cannot run whenever one may be
     * chosen: a rank whose own quantity passes no bound (a leaf of a
     * rooted call) may still be routed by another's. */
    if (call->perf_possible || forced >= SAFECOLL_STRATEGY_GATHER_BCAST)
        sc__note_error(call, call->pattern == SC_PATTERN_REDUCE ? sc__equiv_red_feasible(call)
                                                                : sc__equiv_feasible(call));
    /* The native call cannot carry what does not fit in int. */
    call->ag[SC_AG_NOFIT + SAFECOLL_STRATEGY_NATIVE] = trig;
    if (!trig && (forced == SAFECOLL_STRATEGY_AUTO || forced == SAFECOLL_STRATEGY_NATIVE))
        return;
    sc__note_error(call, feasible(call, ops));
    for (int s = 0; s < SAFECOLL_NSTRATEGY; s++)
        if (broken & (1u << s))
            call->ag[SC_AG_NOFIT + s] = 1;
    /* No record says that the large-count call is free of the bound, and a
     * big type leaves the number of bytes as it is. */
    if (call->bound_fired)
        call->ag[SC_AG_NOFIT + SAFECOLL_STRATEGY_LARGECOUNT] = 1;
    if (call->ag[SC_AG_G_BYTES])
        call->ag[SC_AG_NOFIT + SAFECOLL_STRATEGY_BIGTYPE] = 1;
}

/* Step 3, agree: one allreduce; afterwards every rank holds the same vector
 * and therefore takes the same decision. */
static int agree(sc__call *call)
{
    long long in[SC_AG_LEN];
    int rc;

    memcpy(in, call->ag, sizeof in);
    rc = SC_AGREE(MPI_Allreduce, MPI_Iallreduce, in, call->ag, SC_AG_LEN, MPI_LONG_LONG, MPI_MAX,
                  call->priv);
    if (rc != MPI_SUCCESS)
        return sc__error(rc, "%s: rank %d: the agreement message failed", call->fn,
                         call->rank);
    return MPI_SUCCESS;
}

/* Why the forced strategy s, which the agreement marked as unable to run,
 * cannot carry this call, from what the agreement holds. */
static void forced_reason(const sc__call *call, safecoll_strategy s, char *why, size_t len)
{
    const long long *ag = call->ag;

    if (call->known != NULL)
        snprintf(why, len, "it would hit a known MPI bug: %s", call->known);
    else if (s == SAFECOLL_STRATEGY_NATIVE)
        snprintf(why, len, "counts or displacements do not fit in int (or a registry bound "
                           "fired)");
    else if (s == SAFECOLL_STRATEGY_CHUNK && ag[SC_AG_SIZE_MAX] > 0 &&
             ag[SC_AG_SIZE_MAX] != -ag[SC_AG_SIZE_NEG])
        snprintf(why, len,
                 "the datatypes of the call have elements of different sizes (%lld and %lld "
                 "bytes), and chunk cuts every message at element boundaries of both sides",
                 -ag[SC_AG_SIZE_NEG], ag[SC_AG_SIZE_MAX]);
    else if (ag[SC_AG_LIMIT_MAX] != -ag[SC_AG_LIMIT_NEG] && call->root < 0 &&
             (s == SAFECOLL_STRATEGY_BIGTYPE || s == SAFECOLL_STRATEGY_SEGMENT ||
              s == SAFECOLL_STRATEGY_CHUNK))
        snprintf(why, len, "the ranks plan with different limits");
    else if (call->pattern == SC_PATTERN_ALLGATHER && ag[SC_AG_HASH_MAX] != -ag[SC_AG_HASH_NEG] &&
             (s == SAFECOLL_STRATEGY_SEGMENT || s == SAFECOLL_STRATEGY_CHUNK))
        snprintf(why, len, "the ranks hold different displacements");
    else if (s == SAFECOLL_STRATEGY_LARGECOUNT && call->bound_fired)
        snprintf(why, len, "a registry bound fired, which no record says the large-count call "
                           "is free of");
    else if (s == SAFECOLL_STRATEGY_BIGTYPE && ag[SC_AG_G_BYTES])
        snprintf(why, len, "a bound in bytes fired, which a bigger datatype does not change");
    else
        snprintf(why, len, "its layout or datatypes do not allow it on some rank (e.g. no "
                           "common unit of the blocks, a block or window above the limit)");
}

static int decide(sc__call *call, const sc__pattern_ops *ops, safecoll_strategy forced)
{
    const long long *ag = call->ag;

    if (ag[SC_AG_ERROR] != 0) {
        int who = (int)ag[SC_AG_ERROR_RANK] - 1;
        /* A rank that found an error itself keeps its own message. */
        if (!call->own_error)
            sc__error((int)ag[SC_AG_ERROR], "%s: rank %d reported %s (its message says why)",
                      call->fn, who, sc__error_class_name((int)ag[SC_AG_ERROR]));
        return (int)ag[SC_AG_ERROR];
    }
    /* A strategy forced through the API on some ranks only would make the
     * ranks run different code: refuse it on every rank. */
    if (ag[SC_AG_FORCED_MAX] != -ag[SC_AG_FORCED_NEG])
        return sc__error(MPI_ERR_ARG,
                         "%s: the ranks force different strategies (%s on some, %s on others)",
                         call->fn,
                         safecoll_strategy_name((safecoll_strategy)(-ag[SC_AG_FORCED_NEG] / 2)),
                         safecoll_strategy_name((safecoll_strategy)(ag[SC_AG_FORCED_MAX] / 2)));
    if (ag[SC_AG_SIZE_MAX] > 0 && ag[SC_AG_SIZE_MAX] != -ag[SC_AG_SIZE_NEG])
        call->ag[SC_AG_NOFIT + SAFECOLL_STRATEGY_CHUNK] = 1;
    /* Every rank cuts with the smallest working limit. In a rooted
     * collective the root planned with it (the leaves hold no buffer to
     * bound); elsewhere ranks planned with their own, so a disagreement
     * rules out the strategies whose plans depend on it. */
    call->limit = -ag[SC_AG_LIMIT_NEG];
    /* allgatherv's displacements belong to each rank; segments and windows
     * are planned from them, so they need every rank to hold the same. */
    if (call->pattern == SC_PATTERN_ALLGATHER && ag[SC_AG_HASH_MAX] != -ag[SC_AG_HASH_NEG]) {
        call->ag[SC_AG_NOFIT + SAFECOLL_STRATEGY_SEGMENT] = 1;
        call->ag[SC_AG_NOFIT + SAFECOLL_STRATEGY_CHUNK] = 1;
    }
    if (ag[SC_AG_LIMIT_MAX] != -ag[SC_AG_LIMIT_NEG] && call->root < 0) {
        call->ag[SC_AG_NOFIT + SAFECOLL_STRATEGY_BIGTYPE] = 1;
        call->ag[SC_AG_NOFIT + SAFECOLL_STRATEGY_SEGMENT] = 1;
        call->ag[SC_AG_NOFIT + SAFECOLL_STRATEGY_CHUNK] = 1;
    }
    if (forced != SAFECOLL_STRATEGY_AUTO) {
        char why[200] = "";
        if (ops->exec[forced] == NULL || !sc__strategy_exists(call->coll, forced))
            snprintf(why, sizeof why, "it does not apply to this collective");
        else if (ag[SC_AG_NOFIT + forced])
            forced_reason(call, forced, why, sizeof why);
        if (why[0] == '\0') {
            call->strategy = forced;
            return MPI_SUCCESS;
        }
        if (!call->forced_all)
            return sc__error(MPI_ERR_UNSUPPORTED_OPERATION,
                             "%s: the forced strategy %s cannot carry this call: %s", call->fn,
                             safecoll_strategy_name(forced), why);
        /* Forced for every collective (`all=`, a debugging setting): the
         * calls it cannot express take the automatic choice, native when
         * nothing fired, and the verbose log says so. */
        call->forced_skipped = forced;
        snprintf(call->forced_why, sizeof call->forced_why, "%s", why);
    }
    if (!ag[SC_AG_TRIGGER]) {
        /* No correctness trigger: a performance record may route the call
         * to its equivalent, when every rank can run it. */
        const long long s = ag[SC_AG_PERF];
        call->strategy = SAFECOLL_STRATEGY_NATIVE;
        if (s > SAFECOLL_STRATEGY_NATIVE && s < SAFECOLL_NSTRATEGY) {
            if (ops->exec[s] != NULL && sc__strategy_exists(call->coll, (safecoll_strategy)s) &&
                !ag[SC_AG_NOFIT + s]) {
                call->strategy = (safecoll_strategy)s;
                call->perf_routed = 1;
            } else {
                call->perf_refused = (safecoll_strategy)s;
            }
        }
        return MPI_SUCCESS;
    }
    for (size_t i = 0; i < sizeof cost_order / sizeof cost_order[0]; i++) {
        safecoll_strategy s =
            call->regular && call->pattern == SC_PATTERN_ALLGATHER ? cost_order_regular[i]
            : red_p2p_first(call) ? cost_order_p2p_first[i]
                                  : cost_order[i];
        if (ops->exec[s] != NULL && !ag[SC_AG_NOFIT + s]) {
            call->strategy = s;
            return MPI_SUCCESS;
        }
    }
    return sc__error(MPI_ERR_INTERN, "%s: no strategy can carry this call", call->fn);
}

/* A rank that saw no trigger of its own skipped planning; when another
 * rank's trigger chose a strategy other than native, it plans now, against
 * a copy so that the agreed vector stays as agreed. Its own layout fits the
 * limit, so every strategy the others allowed is open to it as well. In a
 * rooted collective only the root plans, and a root always has seen the
 * trigger itself (leaves never raise one). */
static int plan_late(sc__call *call, const sc__pattern_ops *ops)
{
    long long saved[SC_AG_LEN];
    int rc;

    /* The equivalents plan nothing. */
    if (call->strategy == SAFECOLL_STRATEGY_NATIVE || call->plan != NULL ||
        call->strategy >= SAFECOLL_STRATEGY_GATHER_BCAST ||
        (call->root >= 0 && call->rank != call->root))
        return MPI_SUCCESS;
    memcpy(saved, call->ag, sizeof saved);
    rc = feasible(call, ops);
    memcpy(call->ag, saved, sizeof saved);
    return rc;
}

/* Abbreviates an explanation (a record's origin and its line) to at most
 * max bytes, deliberately: at a space outside quoted text, followed by
 * " ...", so that the log never shows a word or a quoted note cut in the
 * middle (issue 15: "class=G_bytes bou)"). */
static void clip_words(char *s, size_t max)
{
    size_t cut = 0;
    int quoted = 0;

    if (strlen(s) <= max)
        return;
    for (size_t i = 0; s[i] != '\0' && i + 4 <= max; i++) {
        if (s[i] == '\\' && quoted && s[i + 1] != '\0')
            i++;
        else if (s[i] == '"')
            quoted = !quoted;
        else if (s[i] == ' ' && !quoted)
            cut = i;
    }
    snprintf(s + cut, max + 1 - cut, "%s...", cut > 0 ? " " : "");
}

/* The explanations are cut to this many bytes (clip_words); the printf
 * precisions that repeat it only tell the compiler so. */
#define SC_LOG_EXPLAIN 200

static void log_decision(const sc__call *call)
{
    int logger = call->root >= 0 ? call->root : 0;
    char why[512] = "forced";

    if (call->rank != logger && !call->alone)
        return;
    if (call->forced_skipped != SAFECOLL_STRATEGY_AUTO)
        fprintf(stderr, "libsafecoll: %s on %d ranks: %s, forced for all collectives, cannot "
                        "carry this call (%s) -> automatic choice\n",
                call->fn, call->size, safecoll_strategy_name(call->forced_skipped),
                call->forced_why);
    if (call->forced_skipped != SAFECOLL_STRATEGY_AUTO &&
        call->strategy == SAFECOLL_STRATEGY_NATIVE)
        return;
    if (call->ag[SC_AG_WRAPPED]) {
        const sc__layout *w = call->lay.wrapped ? &call->lay : &call->rlay;
        if (w->wrapped && w->bad_index >= 0)
            snprintf(why, sizeof why, "class D: displs[%d] wrapped past INT_MAX", w->bad_index);
        else
            snprintf(why, sizeof why, "class D: displacements wrapped past INT_MAX");
    } else if (call->bound_fired) {
        static const char *const what[] = {"G: global buffer in elements", "G: global buffer in bytes",
                                           "X: message of"};
        char origin[SAFECOLL_BOUND_LINE_MAX + 512];
        sc__bounds_explain(call->coll, call->bound_size, call->size, call->bound_cls,
                           call->bound_value, origin, sizeof origin);
        clip_words(origin, SC_LOG_EXPLAIN);
        snprintf(why, sizeof why, "class %s %lld > bound %lld (%.*s)",
                 what[call->bound_cls == SAFECOLL_BOUND_G_ELEMENTS ? 0
                      : call->bound_cls == SAFECOLL_BOUND_G_BYTES  ? 1
                                                                    : 2],
                 (long long)call->bound_value, (long long)call->bound_limit, SC_LOG_EXPLAIN,
                 origin);
    } else if (call->known != NULL) {
        snprintf(why, sizeof why, "known MPI bug: %s", call->known);
    } else if (call->perf_routed || call->perf_refused) {
        static const char *const what[] = {"G: global buffer in elements",
                                           "G: global buffer in bytes", "X: message of"};
        char origin[SAFECOLL_BOUND_LINE_MAX + 512] = "another rank's record";
        if (call->perf_fired)
            safecoll_bounds_origin(call->perf.index, origin, sizeof origin);
        clip_words(origin, SC_LOG_EXPLAIN);
        if (call->perf_fired)
            snprintf(why, sizeof why,
                     "performance record %zu (%.*s): class %s %lld > bound %lld, use=%s%s",
                     call->perf.index, SC_LOG_EXPLAIN, origin, what[call->perf.cls],
                     (long long)call->perf.value, (long long)call->perf.bound,
                     safecoll_strategy_name(call->perf.use),
                     call->perf_refused ? " cannot carry this call" : "");
        else
            snprintf(why, sizeof why, "performance record of another rank, use=%s%s",
                     safecoll_strategy_name(call->perf_refused ? call->perf_refused
                                                               : call->strategy),
                     call->perf_refused ? " cannot carry this call" : "");
    } else if (call->ag[SC_AG_G_ELEMENTS] || call->ag[SC_AG_G_BYTES] || call->ag[SC_AG_X]) {
        /* The bound fired on another rank only: the working limit agreed
         * is that bound, not an int limit (issue 15: "above the int limit
         * 4" for a registered bound of 4). */
        snprintf(why, sizeof why, "class %s: a registry bound fired on another rank",
                 call->ag[SC_AG_X] && !call->ag[SC_AG_G_ELEMENTS] && !call->ag[SC_AG_G_BYTES]
                     ? "X"
                     : "G");
    } else if (call->ag[SC_AG_TRIGGER]) {
        const MPI_Count limit = sc__config_int_limit();
        const int mine = call->lay.nofit || call->rlay.nofit;

        if (limit == INT_MAX)
            snprintf(why, sizeof why, "%s above INT_MAX",
                     mine ? "counts or displacements" : "another rank has counts or displacements");
        else
            snprintf(why, sizeof why,
                     "%s above the int limit %lld (SAFECOLL_INT_LIMIT or "
                     "safecoll_int_limit_set)",
                     mine ? "counts or displacements" : "another rank has counts or displacements",
                     (long long)limit);
    }
    if (call->alone)
        fprintf(stderr, "libsafecoll: %s on %d ranks: rank %d: %s -> %s, decided alone (the "
                        "other ranks run the int call)\n",
                call->fn, call->size, call->rank, why, safecoll_strategy_name(call->strategy));
    else
        fprintf(stderr, "libsafecoll: %s on %d ranks: %s -> %s\n", call->fn, call->size, why,
                safecoll_strategy_name(call->strategy));
}

/* sc__fail_early without the checking mode's agreement of a bad root. */
static int fail_early(sc__call *call, int rc);

/* Deciding alone (issue 17). The agreement can change what a blocking
 * call does only through what the ranks cannot know of each other. Every
 * rank knows without a message (from settings the first meeting compared,
 * the registry and the MPI library) whether a strategy is forced, whether
 * a record of the collective could fire and whether the library has a
 * known bug of its pattern. When none can, the only trigger left is a
 * rank's own layout (class D, or a count or displacement past the limit),
 * and on an MPI-4 library the _c form of the same collective carries any
 * layout: MPI matches a collective's messages by type signature, and the
 * int and _c forms of one collective on different ranks form one
 * collective call (tests/mpi/test_alone.c checks it on every rank mix).
 * So the rank whose layout triggers runs the _c call and the others the
 * int call, on the caller's communicator, with no agreement at all. Only
 * gatherv, scatterv, allgatherv, alltoallv and alltoallw, blocking and
 * i-forms; on an MPI-3 library only an allgatherv whose blocks fit the
 * limit in bytes, whose triggered rank runs the compact form instead of
 * the _c call (avoid/allgather.c). A known bug of the library whose condition every rank sees
 * alike (MPICH 4.0.2's allgatherv on one process or with a count past
 * INT_MAX, its ialltoallw in place) makes every rank agree, and so does
 * one that MPI's call would meet on the caller's communicator only
 * (sc__known_alone: MPICH 4.0.2's ialltoallv and ialltoallw on one
 * process). A bug whose condition only some ranks see keeps every call of
 * its pattern agreeing when it breaks native or largecount, the only
 * strategies a call that decides alone runs (sc__known_local). */
static int may_decide_alone(const sc__call *call)
{
#if SC_HAVE_MPI4
    const int pattern = call->pattern == SC_PATTERN_GATHER ||
                        call->pattern == SC_PATTERN_SCATTER ||
                        call->pattern == SC_PATTERN_ALLTOALL ||
                        call->pattern == SC_PATTERN_ALLGATHER ||
                        call->pattern == SC_PATTERN_ALLTOALLW;
#else
    /* An MPI-3 library has no _c form. allgatherv's largecount there is
     * the compact form (avoid/allgather.c), which runs on each rank's own
     * layout when the blocks fit the limit in bytes, a fact of the counts
     * every rank holds alike (sc__ag_compact_fits). The other patterns
     * have no avoidance of one rank alone there, so they agree. */
    const int pattern = call->pattern == SC_PATTERN_ALLGATHER &&
                        (call->ag[SC_AG_ERROR] != 0 || sc__ag_compact_fits(call));
#endif
    return !call->regular && !call->direct && !call->nb && pattern &&
           sc__alone_allowed(call->coll, call->size, call->forced) &&
           !sc__known_local(call->pattern) && !sc__known_alone(call) &&
           /* A bug whose condition every rank sees alike (known.c): all
            * agree. After an error the arrays may be missing; the error is
            * this rank's alone. */
           (call->ag[SC_AG_ERROR] != 0 || !sc__known_global(call));
}

/* What a call that decided alone runs, from its own layout alone: native,
 * or largecount where the layout triggers, whose 64-bit view is made here
 * when `view` (a layout that cannot be recovered fails now, before any MPI
 * call). Returns the call's error, or the view's. */
static int alone_begin(sc__call *call, int view)
{
    const int trig = own_layout_triggers(call);
    int rc = (int)call->ag[SC_AG_ERROR];

    call->alone = 1;
    call->strategy = trig ? SAFECOLL_STRATEGY_LARGECOUNT : SAFECOLL_STRATEGY_NATIVE;
    if (rc != MPI_SUCCESS)
        return rc;
    call->ag[SC_AG_TRIGGER] = trig;
    call->ag[SC_AG_WRAPPED] = call->lay.wrapped || call->rlay.wrapped;
    if (!trig)
        return MPI_SUCCESS;
    const int two_sided =
        call->pattern == SC_PATTERN_ALLTOALL || call->pattern == SC_PATTERN_ALLTOALLW;
    if (view && (!two_sided || !call->in_place))
        rc = sc__layout_view(call, &call->lay);
    if (view && rc == MPI_SUCCESS && two_sided)
        rc = sc__layout_view(call, &call->rlay);
    if (rc == MPI_SUCCESS && sc__config_verbose())
        log_decision(call);
    return rc;
}

/* Whether MPI raised the error of a call that decided alone on the
 * caller's communicator: the native call's and, on an MPI-4 library, the
 * _c call's are MPI's own there; the compact form of an MPI-3 library
 * (avoid/allgather.c) says which of its errors are (errh_done). */
static int alone_raised(const sc__call *call)
{
    return call->strategy == SAFECOLL_STRATEGY_NATIVE || SC_HAVE_MPI4 || call->errh_done;
}

/* The end of a call that decided alone: counted, freed unless `owns` is 0
 * (the engine's copy owns its memory), and an error not raised by MPI
 * itself raised on the caller's communicator. */
static int alone_end(sc__call *call, int rc, int mpi_raised, int owns)
{
    sc__stats_count(call->coll, call->strategy, call->ag[SC_AG_WRAPPED] ? SC_TRIG_D : 0,
                    rc != MPI_SUCCESS);
    if (owns)
        sc__call_free(call);
    if (rc != MPI_SUCCESS && !mpi_raised)
        rc = sc__call_errhandler(call->comm, rc);
    return rc;
}

/* The rank of an i-call that decided alone whose posted arrays include
 * the call's own (alone_keeps): MPI's request is waited for by an
 * operation of the engine, whose request the caller gets, and the call is
 * freed after. */
typedef struct alone_wait {
    sc__call call;
    MPI_Request inner;
} alone_wait;

static int alone_wait_body(void *arg)
{
    alone_wait *w = arg;
    const sc__pattern_ops *ops = sc__patterns[w->call.pattern];
    int rc = sc__nb_waitall(1, &w->inner);

    return rc == MPI_SUCCESS && ops->post_done != NULL ? ops->post_done(&w->call) : rc;
}

static void alone_wait_free(void *arg)
{
    sc__call_free(&((alone_wait *)arg)->call);
    free(arg);
}

/* Whether the arrays an i-call that decided alone posts include memory
 * of the call's own, which MPI reads until the request completes: the
 * 64-bit view alone_begin made (`view`, on a rank whose int layout
 * triggers), or what the pattern's post makes for MPI (ops->post_keeps:
 * alltoallw's copy of a type array with MPI_BYTE for MPI_DATATYPE_NULL).
 * The caller's own arrays are the caller's to keep, as with MPI. Asked
 * only of a call without an error (its arrays may be missing). */
static int alone_keeps(const sc__call *call, const sc__pattern_ops *ops, int view)
{
    return (view && call->strategy == SAFECOLL_STRATEGY_LARGECOUNT) ||
           (ops->post_keeps != NULL && ops->post_keeps(call));
}

/* An i-call that decided alone: MPI's own i-call on the caller's
 * communicator, posted now, as the caller would have posted it; its
 * request is the caller's. Every rank posts at the call, in call order,
 * so calls on one communicator match as MPI's do. A rank whose posted
 * arrays include the call's own (alone_keeps: the 64-bit view of a
 * triggered int layout, for the _c call, or a copy the pattern's post
 * makes) must keep them until MPI is done with them, so that rank alone
 * hands the request to the engine (which posts nothing) and the call is
 * freed when it completes. */
static int run_alone_i(sc__call *call, const sc__pattern_ops *ops)
{
    /* A _c call posts the caller's own 64-bit arrays: no view. */
    const int view = !call->large;
    int rc = alone_begin(call, view);
    alone_wait *w = NULL;

    /* The engine orders its operations by a key: the blocking calls'
     * duplicate, which the first meeting made (no collective here). */
    if (rc == MPI_SUCCESS && alone_keeps(call, ops, view) &&
        (rc = sc__comm_private(call->comm, &call->priv)) == MPI_SUCCESS &&
        (w = malloc(sizeof *w)) == NULL)
        rc = sc__error(MPI_ERR_NO_MEM, "%s: rank %d: out of memory", call->fn, call->rank);
    if (rc != MPI_SUCCESS)
        return alone_end(call, rc, 0, 1);
    if (w == NULL) {
        /* MPI's request goes to the caller (traffic.h, sc__tr_posted). */
        rc = sc__tr_posted(ops->post(call, call->request), call->request);
        return alone_end(call, rc, alone_raised(call), 1);
    }
    /* The engine's copy owns the call's memory from here on, what the
     * post makes in it included (the engine frees it also when it cannot
     * start). */
    w->call = *call;
    w->inner = MPI_REQUEST_NULL;
    if ((rc = ops->post(&w->call, &w->inner)) != MPI_SUCCESS) {
        const int raised = alone_raised(&w->call);

        alone_wait_free(w);
        return alone_end(call, rc, raised, 0);
    }
    rc = sc__nb_start(w->call.priv, alone_wait_body, w, alone_wait_free, 0, call->request);
    return alone_end(call, rc, 0, 0);
}

/* A call that decided alone: native, or largecount on a rank whose own
 * layout triggers. An error this rank found is its own: the others cannot
 * hear of it without the agreement they skipped (the guide, "Deciding
 * alone"). */
static int run_alone(sc__call *call, const sc__pattern_ops *ops)
{
    int rc = alone_begin(call, 1);

    if (rc != MPI_SUCCESS)
        return alone_end(call, rc, 0, 1);
    if (call->strategy == SAFECOLL_STRATEGY_NATIVE)
        SC_NATIVE_HOOK(call->coll, call->lay.max_count * call->lay.type_size);
    /* Both strategies run on the caller's communicator, where MPI raises
     * its own failures. */
    rc = ops->exec[call->strategy](call);
    return alone_end(call, rc, alone_raised(call), 1);
}

/* The reference routines without the agreement (issue 19). A call forced
 * to p2p runs p2p whatever it holds: the strategy carries every layout
 * and count (its 64-bit messages), no known bug or registry record
 * changes that, and it reads nothing agreed (the working limit is a
 * setting the first meeting compared). So the agreement could only carry
 * an error of one rank to the others, which the regular collectives and
 * the calls that decide alone leave to that rank as well (the guide,
 * "Deciding alone"). Every rank knows without a message that the call is
 * forced (settings alike, compared at the first meeting), so all skip the
 * agreement together. SAFECOLL_AGREE=always and checking mode keep it,
 * and with it the error on every rank. */
static int reference_alone(const sc__call *call, const sc__pattern_ops *ops)
{
    return call->forced == SAFECOLL_STRATEGY_P2P && !call->direct &&
           ops->exec[SAFECOLL_STRATEGY_P2P] != NULL &&
           sc__strategy_exists(call->coll, SAFECOLL_STRATEGY_P2P) &&
           !sc__config_agree_always() && !SC_CHECK_ON();
}

int sc__run(sc__call *call)
{
    const sc__pattern_ops *ops = sc__patterns[call->pattern];
    safecoll_strategy forced = call->forced;
    int rc;

    /* Checking mode (argcheck.h): a blocking v-form or alltoallw is
     * checked here, an i-form by sc__run_nb when it is called. */
    if (!call->nb && call->request == NULL && SC_CHECK_ON() && sc__check_is_v(call->coll) &&
        (rc = sc__check_v(call)) != MPI_SUCCESS)
        return fail_early(call, rc);
    if (call->request != NULL && !call->nb && ops->post != NULL && may_decide_alone(call))
        return run_alone_i(call, ops);
    if (call->request != NULL && !call->nb)
        return sc__run_nb(call, call->request);
    if (!call->nb)
        sc__nb_drain(call->comm);
    if (may_decide_alone(call))
        return run_alone(call, ops);
    /* An i-call's body has the engine's duplicate already. */
    if (call->priv == MPI_COMM_NULL &&
        (rc = sc__comm_private(call->comm, &call->priv)) != MPI_SUCCESS)
        return fail_early(call, rc);
    detect(call, ops, forced);
    /* A direct call's vector is every rank's already (pipeline.h), and a
     * call on the reference routines needs none (reference_alone); an
     * error only this rank found cannot be told to the others without the
     * agreement, which they skip, so it is returned as it is. */
    call->reference = reference_alone(call, ops);
    rc = call->direct || call->reference ? (int)call->ag[SC_AG_ERROR] : agree(call);
    if (rc == MPI_SUCCESS && (rc = decide(call, ops, forced)) == MPI_SUCCESS) {
        if (sc__config_verbose() &&
            (call->strategy != SAFECOLL_STRATEGY_NATIVE || call->perf_refused ||
             call->forced_skipped != SAFECOLL_STRATEGY_AUTO))
            log_decision(call);
        rc = plan_late(call, ops);
        if (rc == MPI_SUCCESS && call->strategy == SAFECOLL_STRATEGY_NATIVE)
            SC_NATIVE_HOOK(call->coll, call->lay.max_count * call->lay.type_size);
        if (rc == MPI_SUCCESS)
            rc = executor(call, ops)(call);
        /* The native call ran on the caller's communicator, where MPI has
         * already invoked the error handler. */
        if (call->strategy == SAFECOLL_STRATEGY_NATIVE) {
            sc__stats_count(call->coll, call->strategy, 0, rc != MPI_SUCCESS);
            sc__call_free(call);
            return rc;
        }
    }
    sc__stats_count(call->coll, call->strategy,
                    (call->ag[SC_AG_WRAPPED] ? SC_TRIG_D : 0) |
                        (call->ag[SC_AG_G_ELEMENTS] || call->ag[SC_AG_G_BYTES] ? SC_TRIG_G : 0) |
                        (call->ag[SC_AG_X] ? SC_TRIG_X : 0) |
                        (call->perf_routed ? SC_TRIG_PERF : 0),
                    rc != MPI_SUCCESS);
    sc__call_free(call);
    /* A non-blocking call reports through its request instead; an
     * equivalent that failed in MPI on the caller's communicator has been
     * reported there already. */
    if (rc != MPI_SUCCESS && !call->nb && !call->errh_done)
        rc = sc__call_errhandler(call->comm, rc);
    return rc;
}

static int run_body(void *arg)
{
    sc__call *call = arg;
    int rc = sc__run(call);

    /* Every MPI call of the body has completed. */
    sc__nb_release(call);
    return rc;
}

/* The copies of calls that sc__run_nb hands to the engine are kept for
 * the next ones: a descriptor is 1.3 KiB, past malloc's per-thread cache,
 * and its malloc and free took the allocator's slow path on every call
 * (bench_nb under all=p2p). Freed on any thread (the engine's, MPI's
 * free callback), hence the lock. */
enum { COPY_POOL = 64 };
static pthread_mutex_t copy_lock = PTHREAD_MUTEX_INITIALIZER;
static sc__call *copies[COPY_POOL];
static int ncopies;

static sc__call *copy_get(void)
{
    sc__call *c = NULL;

    pthread_mutex_lock(&copy_lock);
    if (ncopies > 0)
        c = copies[--ncopies];
    pthread_mutex_unlock(&copy_lock);
    return c != NULL ? c : malloc(sizeof *c);
}

static void copy_put(sc__call *c)
{
    pthread_mutex_lock(&copy_lock);
    if (ncopies < COPY_POOL) {
        copies[ncopies++] = c;
        c = NULL;
    }
    pthread_mutex_unlock(&copy_lock);
    free(c);
}

/* When the request is freed; the body may not have run (an error
 * starting it). */
static void free_body(void *arg)
{
    sc__nb_release(arg);
    copy_put(arg);
}

int sc__run_nb(sc__call *call, MPI_Request *request)
{
    sc__call *copy;
    sc__comm_ref *ref = NULL;
    MPI_Comm user = call->comm;
    int rc, complete;

    if (request == NULL) {
        rc = sc__error(MPI_ERR_REQUEST, "%s: rank %d: request is NULL", call->fn, call->rank);
        return sc__fail_early(call, rc);
    }
    *request = MPI_REQUEST_NULL;
    if (SC_CHECK_ON() && sc__check_is_v(call->coll) && (rc = sc__check_v(call)) != MPI_SUCCESS)
        return fail_early(call, rc);
    if ((copy = copy_get()) == NULL) {
        rc = sc__error(MPI_ERR_NO_MEM, "%s: rank %d: out of memory", call->fn, call->rank);
        return sc__fail_early(call, rc);
    }
    *copy = *call;
    if ((rc = sc__comm_private_nb(user, &copy->priv, &ref)) != MPI_SUCCESS) {
        copy_put(copy);
        return sc__fail_early(call, rc);
    }
    /* The caller may free its datatypes, op and communicator once this
     * returns (nbhold.c). A user-defined op cannot be held: a reduction
     * with one ends before this returns instead, its types and op used
     * by then. */
    complete = call->pattern == SC_PATTERN_REDUCE && !call->red.predefined_op;
    if ((rc = sc__nb_hold(copy, ref, !complete)) != MPI_SUCCESS) {
        sc__comm_release(ref);
        copy_put(copy);
        return sc__fail_early(call, rc);
    }
    /* Everything the coroutine sends, the native call included, goes on
     * the second duplicate: its traffic starts at times that differ from
     * rank to rank, and so must not share a communicator with the caller's
     * or the blocking calls' collectives. */
    copy->comm = copy->priv;
    copy->nb = 1;
    rc = sc__nb_start(copy->priv, run_body, copy, free_body, complete, request);
    if (rc != MPI_SUCCESS)
        rc = sc__call_errhandler(user, rc);
    return rc;
}

/* Errors found before the call could be described on every rank alike. */
int sc__fail_early(sc__call *call, int rc)
{
    /* A bad root of a v-form, found by sc__begin: in checking mode every
     * rank's (the others are in sc__check_v). */
    if (rc == MPI_ERR_ROOT && SC_CHECK_ON() && sc__check_is_v(call->coll))
        rc = sc__check_fail(call->coll, call->fn, call->comm, rc);
    return fail_early(call, rc);
}

static int fail_early(sc__call *call, int rc)
{
    sc__stats_count(call->coll, SAFECOLL_STRATEGY_AUTO, 0, 1);
    sc__call_free(call);
    return sc__call_errhandler(call->comm, rc);
}
