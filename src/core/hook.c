/*
 * The native-call hook (core.h): a registration, so that what the testing
 * toolkit injects into the safe collectives (src/probe/fault.c) reaches
 * them without the production path including the toolkit.
 */
#include "core.h"

sc__native_hook_fn _Atomic sc__native_hook;

void sc__native_hook_set(sc__native_hook_fn fn)
{
    atomic_store(&sc__native_hook, fn);
}
