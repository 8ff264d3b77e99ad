/*
 * The CRC-32 of the replay log (ISO 3309, the polynomial of zlib and gzip):
 * ISA-L's crc32_gzip_refl where the build found it (SC_HAVE_ISAL,
 * Makefile), which gives the bits of zlib's crc32 several times faster
 * (folding with carry-less multiplication), else zlib's crc32. Record and
 * replay compute one per received payload on the application's critical
 * path (4 KiB took 0.32 us with ISA-L on the 2-core test machine).
 * Below 16 bytes zlib's is the faster of the two (8 B: 6.8 ns against
 * ISA-L's 21 ns, whose folding loop has a fixed cost; 16 B: 17.6 against
 * 14.5), and the trace recorder hashes every small message on the
 * application's path.
 *
 * Also the one write loop of the replay logs and the trace files, and the
 * one walk over a payload's packed bytes that both hash (record, replay,
 * the trace recorder).
 */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#if SC_HAVE_ISAL
#include <isa-l/crc.h>
#endif
#include <zlib.h>

#include "replay.h"

uint32_t sc__rp_crc(uint32_t crc, const void *p, size_t n)
{
#if SC_HAVE_ISAL
    if (n < 16) /* zlib's crc32 gives 0 for a NULL buffer, whatever crc */
        return n == 0 ? crc : (uint32_t)crc32(crc, p, (uInt)n);
    return crc32_gzip_refl(crc, (const unsigned char *)p, (uint64_t)n);
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

int sc__rp_mkdirs(const char *dir)
{
    char path[4096];
    size_t n = strlen(dir);

    if (n == 0 || n >= sizeof path) {
        errno = n == 0 ? ENOENT : ENAMETOOLONG;
        return -1;
    }
    memcpy(path, dir, n + 1);
    /* Each parent in turn, then the directory itself. */
    for (char *c = path + 1; *c != '\0'; c++) {
        if (*c != '/')
            continue;
        *c = '\0';
        if (mkdir(path, 0777) != 0 && errno != EEXIST)
            return -1;
        *c = '/';
    }
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return -1;
    return 0;
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

int sc__rp_payload_walk(const void *buf, MPI_Datatype type, int64_t bytes, sc__rp_piece_fn fn,
                        void *ctx)
{
    int tsize, psize;
    MPI_Aint lb, extent, tlb, textent;
    int64_t nel;

    if (bytes <= 0)
        return MPI_SUCCESS;
    if (sc__rp_type_flat(type)) {
        fn(ctx, buf, (size_t)bytes);
        return MPI_SUCCESS;
    }
    MPI_Type_size(type, &tsize);
    MPI_Type_get_extent(type, &lb, &extent);
    MPI_Type_get_true_extent(type, &tlb, &textent);
    if (tsize > 0 && textent == tsize && (bytes <= tsize || extent == tsize)) {
        fn(ctx, (const char *)buf + tlb, (size_t)bytes);
        return MPI_SUCCESS;
    }
    MPI_Pack_size(1, type, MPI_COMM_SELF, &psize);
    if (tsize <= 0 || psize <= 0)
        return MPI_SUCCESS;
    nel = bytes / tsize;
    int per = psize >= 65536 ? 1 : 65536 / psize;
    /* A scratch of the call's own: the trace recorder and replay may hash
     * at once on two threads, and a thread-local one would grow the
     * library's TLS, which dlopen'ed MPI tools limit (check-dlopen). */
    char *tmp = malloc((size_t)per * (size_t)psize);
    int rc = MPI_SUCCESS;
    if (tmp == NULL)
        return sc__error(MPI_ERR_NO_MEM, "no memory to pack a payload for its hash");
    for (int64_t i = 0; i < nel && rc == MPI_SUCCESS; i += per) {
        int m = (int)(nel - i < per ? nel - i : per), at = 0;
        const void *from = (const void *)((uintptr_t)buf + (uintptr_t)(i * (int64_t)extent));
        if ((rc = MPI_Pack(from, m, type, tmp, per * psize, &at, MPI_COMM_SELF)) == MPI_SUCCESS)
            fn(ctx, tmp, (size_t)at);
    }
    free(tmp);
    return rc;
}
