/*
 * The CRC-32 of the replay log (ISO 3309, the polynomial of zlib and gzip):
 * ISA-L's crc32_gzip_refl where the build found it (SC_HAVE_ISAL,
 * Makefile), which gives the bits of zlib's crc32 several times faster
 * (folding with carry-less multiplication), else zlib's crc32. Record and
 * replay compute one per received payload on the application's critical
 * path (4 KiB took 0.32 us with ISA-L on the 2-core test machine).
 *
 * Also the one write loop of the replay logs and the trace files.
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <unistd.h>
#if SC_HAVE_ISAL
#include <isa-l/crc.h>
#else
#include <zlib.h>
#endif

#include "replay.h"

uint32_t sc__rp_crc(uint32_t crc, const void *p, size_t n)
{
#if SC_HAVE_ISAL
    return n == 0 ? crc : crc32_gzip_refl(crc, (const unsigned char *)p, (uint64_t)n);
#else
    const unsigned char *c = p;
    uLong v = crc;

    while (n > 0) {
        uInt k = n > (1u << 30) ? (1u << 30) : (uInt)n;
        v = crc32(v, c, k);
        c += k;
        n -= k;
    }
    return (uint32_t)v;
#endif
}

int sc__rp_write_all(int fd, const void *p, size_t n)
{
    const char *c = p;

    while (n > 0) {
        ssize_t w = write(fd, c, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        c += w;
        n -= (size_t)w;
    }
    return 0;
}
