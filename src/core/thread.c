/*
 * Per-thread blocks on the heap (core.h, sc__thread_block).
 *
 * Why not plain _Thread_local arrays: the hot thread-locals (the traffic
 * layer's mark, the stats tally, the meeting memo) are initial-exec TLS,
 * one load at a fixed offset from the thread pointer. A shared library
 * with any initial-exec TLS must fit its whole TLS segment into the small
 * static TLS reserve glibc keeps for dlopen() (about 1.6 KiB for all such
 * libraries together), or dlopen() fails with "cannot allocate memory in
 * static TLS block". So the large per-thread state lives here, reached
 * through one small pointer, and the segment stays a few hundred bytes
 * (tests/check-symbols.sh checks both).
 */
#include <pthread.h>
#include <stdlib.h>

#include "core.h"

static pthread_key_t key;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static int key_ok;
/* This thread's blocks; the key holds the same array, so that the blocks
 * are freed when the thread exits. */
static _Thread_local void **mine SC_TLS_IE;

static void free_blocks(void *arg)
{
    void **b = arg;

    for (int i = 0; i < SC_NTBLOCK; i++)
        free(b[i]);
    free(b);
    mine = NULL;
}

static void make_key(void)
{
    key_ok = pthread_key_create(&key, free_blocks) == 0;
}

void *sc__thread_block(sc__tblock which, size_t size)
{
    if (mine == NULL) {
        void **b;

        pthread_once(&key_once, make_key);
        if (!key_ok || (b = calloc(SC_NTBLOCK, sizeof *b)) == NULL)
            return NULL;
        if (pthread_setspecific(key, b) != 0) {
            free(b);
            return NULL;
        }
        mine = b;
    }
    if (mine[which] == NULL)
        mine[which] = calloc(1, size);
    return mine[which];
}
