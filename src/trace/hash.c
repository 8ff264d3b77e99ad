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

#include "trace.h"

uint32_t sc__tc_crc_concat(uint32_t crc_a, uint32_t crc_b, int64_t len_b)
{
    return (uint32_t)crc32_combine(crc_a, crc_b, (z_off_t)len_b);
}

/* The weight of element i: odd (so that it keeps every bit of the
 * element), and mixed so that moving elements changes the hash. */
static uint32_t weight(uint64_t i)
{
    uint64_t z = i + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (uint32_t)(z ^ (z >> 31)) | 1u;
}

uint32_t sc__tc_sum_hash(const void *buf, size_t n, int elem)
{
    const unsigned char *p = buf;
    uint32_t h = 0;
    size_t k = elem > 0 ? n / (size_t)elem : 0;

    for (size_t i = 0; i < k; i++) {
        uint32_t x;
        switch (elem) {
        case 1: x = (uint32_t)p[i] << 24; break;
        case 2: { uint16_t v; memcpy(&v, p + 2 * i, 2); x = (uint32_t)v << 16; break; }
        case 4: { uint32_t v; memcpy(&v, p + 4 * i, 4); x = v; break; }
        default: { uint64_t v; memcpy(&v, p + 8 * i, 8); x = (uint32_t)v; break; }
        }
        h += weight(i) * x;
    }
    return h;
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
