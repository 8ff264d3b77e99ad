/*
 * The traffic layer's hooks (src/traffic/traffic.h): off by default; the
 * observer sees every message of a point-to-point strategy with its peer,
 * tag, count and direction; the timer counts the operations per kind; the
 * "inside MPI" mark is set while MPI runs (seen from a user-defined
 * reduction, which MPI calls from inside the collective) and cleared
 * after.
 */
/* mpi-procs: 2 3 4 */
/* mpi-link: static */
#include "common.h"

#include "avoid.h"
#include "traffic.h"

enum { MAXMSG = 64 };

typedef struct seen {
    int n;
    sc__tr_msg msg[MAXMSG];
} seen;

static void observe(const sc__tr_msg *m, void *data)
{
    seen *s = data;

    if (s->n < MAXMSG)
        s->msg[s->n] = *m;
    s->n++;
}

START_TEST(off_by_default)
{
    tc_ctx t;

    tc_begin(&t, "off_by_default");
    TC_CHECK(&t, atomic_load(&sc__tr_hooks) == 0, "hooks are on before any registration: %u",
             atomic_load(&sc__tr_hooks));
    TC_CHECK(&t, atomic_load(&sc__tr_mark_self()->depth) == 0, "the mark is set outside MPI");
    tc_end(&t);
}
END_TEST

/* A forced p2p gatherv: each rank but the root sends its block to the
 * root; the root receives P - 1 blocks and copies its own as a message to
 * itself. */
START_TEST(observer_sees_p2p_gatherv)
{
    const int p = tc_world_p(), me = tc_rank(MPI_COMM_WORLD);
    int counts[TC_MAXP], displs[TC_MAXP], sb[TC_MAXP], rb[TC_MAXP * TC_MAXP], total = 0, rc;
    const int root = p - 1;
    double secs[SC_TR_NKIND];
    long long ops[SC_TR_NKIND];
    seen s;
    tc_ctx t;

    tc_begin(&t, "observer_sees_p2p_gatherv");
    for (int i = 0; i < p; i++) {
        counts[i] = i + 1;
        displs[i] = total;
        total += counts[i];
    }
    for (int i = 0; i < counts[me]; i++)
        sb[i] = 100 * me + i;
    memset(&s, 0, sizeof s);
    /* The first meeting of MPI_COMM_WORLD before the observer: its
     * messages are point-to-point too (on the library's own tag), and
     * this test counts the strategy's alone. */
    ck_assert_int_eq(safecoll_barrier(MPI_COMM_WORLD), MPI_SUCCESS);
    ck_assert_int_eq(safecoll_strategy_set(SAFECOLL_COLL_GATHERV, SAFECOLL_STRATEGY_P2P),
                     MPI_SUCCESS);
    sc__tr_observe(observe, &s);
    sc__tr_timer(1);
    rc = safecoll_gatherv(sb, counts[me], MPI_INT, rb, counts, displs, MPI_INT, root,
                          MPI_COMM_WORLD);
    sc__tr_times(secs, ops);
    sc__tr_timer(0);
    sc__tr_observe(NULL, NULL);
    safecoll_strategy_set(SAFECOLL_COLL_GATHERV, SAFECOLL_STRATEGY_AUTO);
    TC_CHECK(&t, rc == MPI_SUCCESS, "gatherv failed: %s", safecoll_last_error());
    TC_CHECK(&t, atomic_load(&sc__tr_hooks) == 0, "hooks still on: %u",
             atomic_load(&sc__tr_hooks));

    if (me == root) {
        int from[TC_MAXP] = {0}, self_send = 0, self_recv = 0;
        for (int k = 0; k < s.n && k < MAXMSG; k++) {
            const sc__tr_msg *m = &s.msg[k];
            TC_CHECK(&t, m->tag == SC_TAG_P2P, "message %d: tag %#x", k, m->tag);
            TC_CHECK(&t, m->type == MPI_INT, "message %d: not MPI_INT", k);
            TC_CHECK(&t, m->peer >= 0 && m->peer < p, "message %d: peer %d", k, m->peer);
            if (m->peer < 0 || m->peer >= p)
                continue;
            TC_CHECK(&t, m->count == counts[m->peer], "message %d from %d: count %lld, not %d", k,
                     m->peer, (long long)m->count, counts[m->peer]);
            if (m->peer == root)
                *(m->dir == SC_TR_SEND ? &self_send : &self_recv) += 1;
            else if (m->dir == SC_TR_RECV)
                from[m->peer]++;
            else
                TC_CHECK(&t, 0, "the root sends to %d", m->peer);
            if (m->dir == SC_TR_RECV)
                TC_CHECK(&t, m->buf == rb + displs[m->peer], "receive from %d: buffer off",
                         m->peer);
        }
        TC_CHECK(&t, s.n == p + 1, "the root saw %d messages, not %d", s.n, p + 1);
        for (int i = 0; i < p; i++)
            if (i != root)
                TC_CHECK(&t, from[i] == 1, "%d receive(s) from %d", from[i], i);
        TC_CHECK(&t, self_send == 1 && self_recv == 1, "own block: %d send(s), %d receive(s)",
                 self_send, self_recv);
        for (int i = 0; i < total; i++) {
            int r = 0;
            while (r + 1 < p && displs[r + 1] <= i)
                r++;
            if (rb[i] != 100 * r + (i - displs[r])) {
                TC_CHECK(&t, 0, "element %d is %d", i, rb[i]);
                break;
            }
        }
    } else {
        TC_CHECK(&t, s.n == 1, "rank %d saw %d messages, not 1", me, s.n);
        if (s.n == 1) {
            TC_CHECK(&t, s.msg[0].dir == SC_TR_SEND && s.msg[0].peer == root,
                     "not a send to the root");
            TC_CHECK(&t, s.msg[0].count == counts[me], "count %lld, not %d",
                     (long long)s.msg[0].count, counts[me]);
            TC_CHECK(&t, s.msg[0].buf == sb, "the send buffer is not the caller's");
        }
    }
    /* The timer counted the posts and at least one completion. */
    TC_CHECK(&t, ops[SC_TR_P2P] == (me == root ? p + 1 : 1), "%lld point-to-point operations",
             ops[SC_TR_P2P]);
    TC_CHECK(&t, ops[SC_TR_COMPLETE] >= 1, "no completion timed");
    for (int k = 0; k < SC_TR_NKIND; k++)
        TC_CHECK(&t, secs[k] >= 0 && secs[k] < 60, "kind %d: %g s", k, secs[k]);
    tc_end(&t);
}
END_TEST

/* The kinds of operation one forced p2p call issues, with the agreement
 * on (always) or left to the library (auto): blocking gatherv, a reduce
 * (a regular collective, described into the pipeline) and an igatherv. */
static void count_kinds(int agree_always, long long kinds[SC_TR_NKIND])
{
    const int p = tc_world_p(), me = tc_rank(MPI_COMM_WORLD);
    int counts[TC_MAXP], displs[TC_MAXP], sb[2] = {me, me}, rb[2 * TC_MAXP], x = me + 1, sum = 0;
    double secs[SC_TR_NKIND];
    MPI_Request req;

    for (int i = 0; i < p; i++) {
        counts[i] = 2;
        displs[i] = 2 * i;
    }
    safecoll_agree_set(agree_always);
    safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_P2P);
    sc__tr_timer(1);
    ck_assert_int_eq(safecoll_gatherv(sb, 2, MPI_INT, rb, counts, displs, MPI_INT, 0,
                                      MPI_COMM_WORLD),
                     MPI_SUCCESS);
    ck_assert_int_eq(safecoll_reduce(&x, &sum, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD),
                     MPI_SUCCESS);
    ck_assert_int_eq(safecoll_igatherv(sb, 2, MPI_INT, rb, counts, displs, MPI_INT, 0,
                                       MPI_COMM_WORLD, &req),
                     MPI_SUCCESS);
    ck_assert_int_eq(MPI_Wait(&req, MPI_STATUS_IGNORE), MPI_SUCCESS);
    sc__tr_times(secs, kinds);
    sc__tr_timer(0);
    safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_AUTO);
    safecoll_agree_set(0);
    if (me == 0) {
        ck_assert_int_eq(sum, p * (p + 1) / 2);
        for (int i = 0; i < 2 * p; i++)
            ck_assert_int_eq(rb[i], i / 2);
    }
}

/* The reference routines (a forced p2p) need no agreement: every rank
 * knows the call is forced. The agreement's message is counted as the
 * library's own (SC_TR_AGREE), and SAFECOLL_AGREE=always keeps it. */
START_TEST(reference_without_agreement)
{
    const int p = tc_world_p(), me = tc_rank(MPI_COMM_WORLD);
    long long alone[SC_TR_NKIND], agreed[SC_TR_NKIND];
    tc_ctx t;

    tc_begin(&t, "reference_without_agreement");
    /* The first meeting of MPI_COMM_WORLD is behind us after this. */
    ck_assert_int_eq(safecoll_barrier(MPI_COMM_WORLD), MPI_SUCCESS);
    count_kinds(0, alone);
    count_kinds(1, agreed);
    TC_CHECK(&t, alone[SC_TR_AGREE] == 0, "auto: %lld agreement operations", alone[SC_TR_AGREE]);
    TC_CHECK(&t, alone[SC_TR_NATIVE] == 0, "auto: %lld native operations", alone[SC_TR_NATIVE]);
    TC_CHECK(&t, agreed[SC_TR_AGREE] >= 3, "always: %lld agreement operations, not 3 or more",
             agreed[SC_TR_AGREE]);
    /* The same point-to-point messages either way: the root receives
     * P - 1 blocks of each call and copies its own, a leaf sends one. */
    TC_CHECK(&t, alone[SC_TR_P2P] == agreed[SC_TR_P2P], "p2p operations: %lld alone, %lld agreed",
             alone[SC_TR_P2P], agreed[SC_TR_P2P]);
    TC_CHECK(&t, me != 0 || alone[SC_TR_P2P] >= 2 * (p + 1) + (p - 1),
             "the root posted %lld p2p operations", alone[SC_TR_P2P]);
    tc_end(&t);
}
END_TEST

/* Under the reference mode the first meeting of a communicator makes no
 * native collective: its messages are the library's own (SC_TR_AGREE),
 * and its communicator calls (the private duplicate, the node split and
 * its free) go through the traffic layer as SC_TR_COMM. */
START_TEST(meeting_on_p2p)
{
    const int p = tc_world_p();
    long long ops[SC_TR_NKIND];
    MPI_Comm comm;
    tc_ctx t;
    int rc;

    tc_begin(&t, "meeting_on_p2p");
    ck_assert_int_eq(MPI_Comm_dup(MPI_COMM_WORLD, &comm), MPI_SUCCESS);
    safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_P2P);
    sc__tr_timer(1);
    rc = safecoll_barrier(comm);
    sc__tr_times(NULL, ops);
    sc__tr_timer(0);
    safecoll_strategy_set(SAFECOLL_COLL_ALL, SAFECOLL_STRATEGY_AUTO);
    MPI_Comm_free(&comm);
    TC_CHECK(&t, rc == MPI_SUCCESS, "barrier failed: %s", safecoll_last_error());
    TC_CHECK(&t, ops[SC_TR_NATIVE] == 0, "%lld native collectives", ops[SC_TR_NATIVE]);
    TC_CHECK(&t, ops[SC_TR_COMM] == 3, "%lld communicator calls, not 3 (dup, split, free)",
             ops[SC_TR_COMM]);
    /* The settings go up and down a tree: one message at least each way. */
    TC_CHECK(&t, p == 1 || ops[SC_TR_AGREE] >= 2, "%lld messages of the library's own",
             ops[SC_TR_AGREE]);
    tc_end(&t);
}
END_TEST

/* Inside MPI: what a user-defined op sees of its thread's mark. */
static int op_calls, op_depth_ok, op_name_ok;

static void sum_op(void *in, void *inout, int *len, MPI_Datatype *type)
{
    const sc__tr_mark *m = sc__tr_mark_self();

    (void)type;
    op_calls++;
    if (atomic_load(&m->depth) >= 1)
        op_depth_ok++;
    if (atomic_load(&m->what) != NULL && strcmp(atomic_load(&m->what), "MPI_Allreduce") == 0 &&
        atomic_load(&m->kind) == SC_TR_NATIVE)
        op_name_ok++;
    for (int i = 0; i < *len; i++)
        ((int *)inout)[i] += ((int *)in)[i];
}

START_TEST(mark_inside_mpi)
{
    const int p = tc_world_p(), me = tc_rank(MPI_COMM_WORLD);
    int in[4], out[4], calls = 0, rc;
    MPI_Op op;
    tc_ctx t;

    tc_begin(&t, "mark_inside_mpi");
    MPI_Op_create(sum_op, 1, &op);
    for (int i = 0; i < 4; i++)
        in[i] = me + i;

    /* Off: the mark stays 0 even inside MPI. */
    op_calls = op_depth_ok = op_name_ok = 0;
    rc = safecoll_allreduce(in, out, 4, MPI_INT, op, MPI_COMM_WORLD);
    TC_CHECK(&t, rc == MPI_SUCCESS, "allreduce failed: %s", safecoll_last_error());
    TC_CHECK(&t, op_depth_ok == 0, "the mark is set while off");

    /* On: set in every call of the op, cleared after. */
    op_calls = op_depth_ok = op_name_ok = 0;
    sc__tr_mark_enable(1);
    rc = safecoll_allreduce(in, out, 4, MPI_INT, op, MPI_COMM_WORLD);
    TC_CHECK(&t, atomic_load(&sc__tr_mark_self()->depth) == 0, "the mark stays set after MPI");
    sc__tr_mark_enable(0);
    TC_CHECK(&t, rc == MPI_SUCCESS, "allreduce failed: %s", safecoll_last_error());
    TC_CHECK(&t, op_depth_ok == op_calls, "%d of %d op calls saw the mark", op_depth_ok,
             op_calls);
    TC_CHECK(&t, op_name_ok == op_calls, "%d of %d op calls saw MPI_Allreduce", op_name_ok,
             op_calls);
    for (int i = 0; i < 4; i++)
        TC_CHECK(&t, out[i] == p * (p - 1) / 2 + p * i, "element %d is %d", i, out[i]);
    /* Some rank combined data (which ones is MPI's choice). */
    MPI_Allreduce(&op_calls, &calls, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    TC_CHECK(&t, p == 1 || calls > 0, "no rank called the op");
    MPI_Op_free(&op);
    tc_end(&t);
}
END_TEST

static Suite *make_suite(void)
{
    const TTest *const tests[] = {off_by_default, observer_sees_p2p_gatherv,
                                  reference_without_agreement, meeting_on_p2p,
                                  mark_inside_mpi};
    Suite *s = suite_create("traffic");

    tc_add(s, "hooks", tests, TC_NELEMS(tests));
    return s;
}

int main(int argc, char **argv)
{
    return tc_main(argc, argv, make_suite);
}
