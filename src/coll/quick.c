/*
 * sc__alone_allowed: the pipeline's test of whether a call may decide
 * alone, shared with the quick calls (quick.h), which have it inline.
 */
#include "quick.h"

int sc__alone_allowed(safecoll_coll coll, int size, safecoll_strategy forced)
{
    return sc__quick_alone(coll, size, forced);
}
