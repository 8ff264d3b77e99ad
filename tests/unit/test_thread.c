/*
 * Unit tests of the per-thread blocks (src/core/thread.c,
 * sc__thread_block) and of what lives in them: each thread's block is its
 * own, zeroed at first use and kept across calls; the last error message
 * is per thread. Under `make sanitize` (LeakSanitizer on for unit tests)
 * a block not freed at thread exit fails the run: the threads here exit
 * with both blocks made. No MPI job.
 */
#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "safecoll.h"

#include "core.h" /* sc__thread_block, sc__error */

enum { NTHREAD = 8, SIZE = 64 };

typedef struct seen {
    int index;
    unsigned char *block;
    int zeroed, kept, message_ok;
} seen;

static void *worker(void *arg)
{
    seen *s = arg;
    char want[64];
    unsigned char *b = sc__thread_block(SC_TBLOCK_MEMO, SIZE);

    s->block = b;
    s->zeroed = b != NULL;
    for (int i = 0; b != NULL && i < SIZE; i++)
        s->zeroed &= b[i] == 0;
    if (b != NULL)
        memset(b, s->index + 1, SIZE);
    s->kept = b != NULL && sc__thread_block(SC_TBLOCK_MEMO, SIZE) == b && b[SIZE - 1] == s->index + 1;
    snprintf(want, sizeof want, "thread %d failed", s->index);
    s->message_ok = sc__error(MPI_ERR_ARG, "thread %d failed", s->index) == MPI_ERR_ARG &&
                    strcmp(safecoll_last_error(), want) == 0;
    return NULL;
}

START_TEST(blocks_per_thread)
{
    pthread_t t[NTHREAD];
    seen s[NTHREAD];
    unsigned char *mine = sc__thread_block(SC_TBLOCK_MEMO, SIZE);

    ck_assert_ptr_nonnull(mine);
    memset(mine, 0xAB, SIZE);
    sc__error(MPI_ERR_OTHER, "main thread");
    for (int i = 0; i < NTHREAD; i++) {
        s[i] = (seen){.index = i};
        ck_assert_int_eq(pthread_create(&t[i], NULL, worker, &s[i]), 0);
    }
    for (int i = 0; i < NTHREAD; i++) {
        ck_assert_int_eq(pthread_join(t[i], NULL), 0);
        ck_assert_msg(s[i].zeroed, "thread %d: block missing or not zeroed", i);
        ck_assert_msg(s[i].kept, "thread %d: block not kept across calls", i);
        ck_assert_msg(s[i].message_ok, "thread %d: last error not its own", i);
        ck_assert_ptr_ne(s[i].block, mine);
    }
    /* The main thread's block and message are untouched by the others. */
    ck_assert_ptr_eq(sc__thread_block(SC_TBLOCK_MEMO, SIZE), mine);
    for (int i = 0; i < SIZE; i++)
        ck_assert_int_eq(mine[i], 0xAB);
    ck_assert_str_eq(safecoll_last_error(), "main thread");
}
END_TEST

/* A thread that never made a block reads an empty message, and making one
 * block leaves the others unmade until asked. */
static void *fresh(void *arg)
{
    int *ok = arg;

    *ok = strcmp(safecoll_last_error(), "") == 0 &&
          sc__thread_block(SC_TBLOCK_ERROR, SC_ERROR_MESSAGE) != NULL;
    return NULL;
}

START_TEST(empty_message)
{
    pthread_t t;
    int ok = 0;

    ck_assert_int_eq(pthread_create(&t, NULL, fresh, &ok), 0);
    ck_assert_int_eq(pthread_join(t, NULL), 0);
    ck_assert(ok);
}
END_TEST

static Suite *thread_suite(void)
{
    Suite *s = suite_create("thread");
    TCase *tc = tcase_create("blocks");

    tcase_add_test(tc, blocks_per_thread);
    tcase_add_test(tc, empty_message);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(thread_suite());
    int failures;

    srunner_run_all(sr, CK_NORMAL);
    failures = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failures == 0 ? 0 : 1;
}
