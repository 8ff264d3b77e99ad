/*
 * The hashes of traced payloads: CRC-32 (the replay log's, src/replay/
 * crc.c), which composes under concatenation, and an additive hash of
 * integer elements, which composes under element-wise sums (paper 001,
 * section 3: hashes with homomorphic properties).
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <zlib.h>

#include "replay.h"
#include "trace.h"

uint32_t sc__tc_crc_concat(uint32_t crc_a, uint32_t crc_b, int64_t len_b)
{
    return (uint32_t)crc32_combine(crc_a, crc_b, (z_off_t)len_b);
}

/* The weight of element i is w(i) = (2i + 1) K mod 2^32, K odd: odd, so
 * that it keeps every bit of the element, and different for every i
 * below 2^31, so that moving elements changes the hash. A weight linear
 * in i keeps the loop free of a per-element mixing function (the
 * compiler vectorizes it): the recorder hashes every integer payload on
 * the application's path, 64 KiB of ints in a few microseconds. */
enum { SUM_K = 0x9e3779b1u };

#define SUM_LOOP(T, SHIFT)                                                                      \
    do {                                                                                       \
        const T *x = (const T *)buf;                                                           \
        for (size_t i = 0; i < k; i++)                                                         \
            h += (2 * (uint32_t)(i0 + i) + 1) * ((uint32_t)x[i] << (SHIFT));                   \
    } while (0)

/* The sum over the k elements at buf, of the numbers i0 .. i0 + k - 1, of
 * w(i) / K times the element: the hash of a payload is the sum of its
 * pieces' (each piece starting where the previous one ended), times K. */
static uint32_t sum_from(const void *buf, size_t k, int elem, size_t i0)
{
    uint32_t h = 0;

    /* The element types read are those of the buffer (a predefined integer
     * type's, whose alignment MPI's own reduction assumes too). */
    switch (elem) {
    case 1:
        SUM_LOOP(uint8_t, 24);
        break;
    case 2:
        SUM_LOOP(uint16_t, 16);
        break;
    case 4:
        SUM_LOOP(uint32_t, 0);
        break;
    case 8:
        SUM_LOOP(uint64_t, 0);
        break;
    default:
        break;
    }
    return h;
}

uint32_t sc__tc_sum_hash(const void *buf, size_t n, int elem)
{
    return elem > 0 ? sum_from(buf, n / (size_t)elem, elem, 0) * SUM_K : 0;
}

/* The piece of sc__tc_crc_sum: small enough that the additive hash reads
 * it from the first-level cache the CRC has just read it into, a multiple
 * of every element size. */
enum { PIECE = 8 * 1024 };

uint32_t sc__tc_crc_sum(const void *buf, size_t n, int elem, uint32_t *sumh)
{
    const unsigned char *p = buf;
    uint32_t crc = 0, h = 0;

    /* Every piece but the last holds whole elements; the last one's
     * partial element, if any, is the one sc__tc_sum_hash leaves out. */
    for (size_t at = 0; at < n; at += PIECE) {
        const size_t m = n - at < PIECE ? n - at : PIECE;
        crc = sc__rp_crc(crc, p + at, m);
        if (elem > 0)
            h += sum_from(p + at, m / (size_t)elem, elem, at / (size_t)elem);
    }
    *sumh = h * SUM_K;
    return crc;
}

uint32_t sc__tc_ends_mix(uint64_t head, uint64_t tail, uint64_t n)
{
    uint64_t z = head * 0x9e3779b97f4a7c15ull ^
                 (tail + 0x632be59bd9b4e019ull) * 0xbf58476d1ce4e5b9ull ^ n * 0x94d049bb133111ebull;
    z ^= z >> 31;
    z *= 0xd6e8feb86659fd93ull;
    z ^= z >> 32;
    return (uint32_t)z;
}

uint32_t sc__tc_ends_hash(const void *buf, size_t n)
{
    const unsigned char *p = buf;
    uint64_t head = 0, tail = 0;

    memcpy(&head, p, n < 8 ? n : 8);
    if (n > 8)
        memcpy(&tail, p + n - (n < 16 ? n - 8 : 8), n < 16 ? n - 8 : 8);
    return sc__tc_ends_mix(head, tail, (uint64_t)n);
}
