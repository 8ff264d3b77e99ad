/* Run-time version, so a program can tell which library it was loaded with. */
#include "core.h"

#define SC_STR2(x) #x
#define SC_STR(x) SC_STR2(x)

int safecoll_version(void)
{
    return SAFECOLL_VERSION_NUMBER;
}

const char *safecoll_version_string(void)
{
    return SC_STR(SAFECOLL_VERSION_MAJOR) "." SC_STR(SAFECOLL_VERSION_MINOR) "." SC_STR(
        SAFECOLL_VERSION_PATCH);
}
