/*
 * Record's deferred payload CRCs. A completed receive's bytes are copied
 * here and its RECV record goes into the log's buffer with the CRC still
 * to compute; the CRC is computed later, where the rank would otherwise
 * wait in MPI (p2p.c), and always before the record's block is written
 * (log.c), so a block on disk never holds a pending CRC and the format is
 * unchanged. A copy costs a fraction of a CRC-32, and the receive buffer
 * is the application's again as soon as the wrapper returns.
 *
 * The staging area is bounded (STAGE_BYTES) and filled from its start;
 * it is empty again after every drain. A payload that does not fit, or
 * one larger than SC_RP_STAGE_MAX, is not staged: the caller computes its
 * CRC at once, as before. The pending entries are at most one per record
 * of the block being filled (SC_RP_BLOCK_RECS), since that block's write
 * drains them. A drain computes CRCs only (no allocation, no system
 * call), so it may run in the fatal-signal handler's flush.
 */
#include <stdlib.h>
#include <string.h>

#include "replay.h"

enum { STAGE_BYTES = 2 * 1024 * 1024 };

typedef struct pending {
    uint32_t *crc; /* the record's crc field in the log's block buffer */
    size_t at, n;  /* the copied payload in the staging area */
} pending;

static char *area;
static size_t used;
static pending ents[SC_RP_BLOCK_RECS];
static volatile size_t nents;

int sc__rp_stage_init(void)
{
    if (area == NULL && (area = malloc(STAGE_BYTES)) == NULL)
        return -1;
    /* Touched now, not during the recorded run (a first touch of a page
     * costs microseconds in a virtual machine). */
    memset(area, 0, STAGE_BYTES);
    used = 0;
    nents = 0;
    return 0;
}

size_t sc__rp_stage_pending(void)
{
    return nents;
}

int sc__rp_stage_put(const void *p, size_t n, uint32_t *crc)
{
    size_t k = nents;

    if (area == NULL || n > SC_RP_STAGE_MAX || n > STAGE_BYTES - used || k == SC_RP_BLOCK_RECS)
        return -1;
    memcpy(area + used, p, n);
    ents[k] = (pending){crc, used, n};
    used += n;
    /* Counted last: a signal handler's drain sees only whole entries. */
    nents = k + 1;
    return 0;
}

void sc__rp_stage_drain(void)
{
    size_t n = nents;

    for (size_t i = 0; i < n; i++)
        *ents[i].crc = sc__rp_crc(0, area + ents[i].at, ents[i].n);
    nents = 0;
    used = 0;
}
