/*
 * The greatest common divisor of a layout (paper 000, workaround W2): with
 * a contiguous datatype of g elements every count and displacement shrinks
 * by g, which may bring a layout that overflows int back into range.
 */
#include <stdint.h>

#include "core.h"
#include "displs.h"

uint64_t sc__gcd(uint64_t a, uint64_t b)
{
    while (b != 0) {
        uint64_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

/* |v| in unsigned arithmetic, where |INT64_MIN| = 2^63 still fits. */
static uint64_t magnitude(int64_t v)
{
    return v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
}

int safecoll_displs_gcd(const MPI_Aint displs[], const MPI_Count counts[], int n, MPI_Count *g)
{
    uint64_t r = 0;

    if (n < 0)
        return sc__error(MPI_ERR_ARG, "safecoll_displs_gcd: n is negative (%d)", n);
    if (g == NULL)
        return sc__error(MPI_ERR_ARG, "safecoll_displs_gcd: g is NULL");
    if (displs == NULL && counts == NULL && n > 0)
        return sc__error(MPI_ERR_ARG,
                         "safecoll_displs_gcd: displs and counts are both NULL but n is %d", n);
    for (int i = 0; counts != NULL && i < n; i++)
        if (counts[i] < 0)
            return sc__error(MPI_ERR_ARG, "safecoll_displs_gcd: counts[%d] is negative (%lld)",
                             i, (long long)counts[i]);

    /* gcd(0, x) = x, so zero entries drop out without a special case. */
    for (int i = 0; i < n; i++) {
        if (displs != NULL)
            r = sc__gcd(r, magnitude(displs[i]));
        if (counts != NULL)
            r = sc__gcd(r, (uint64_t)counts[i]);
    }
    /* Only 2^63 exceeds MPI_Count, and only when every non-zero entry is
     * a displacement equal to INT64_MIN; name the first such entry. */
    if (r > (uint64_t)INT64_MAX) {
        int i = 0;
        while (displs[i] == 0)
            i++;
        return sc__error(MPI_ERR_ARG,
                         "safecoll_displs_gcd: displs[%d] is %lld and every other entry is 0 "
                         "or the same, so the gcd 2^63 does not fit in MPI_Count",
                         i, (long long)displs[i]);
    }
    *g = (MPI_Count)r;
    return MPI_SUCCESS;
}
