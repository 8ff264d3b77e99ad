/*
 * The CRC-32 of the replay log (ISO 3309, the polynomial of zlib and gzip):
 * the bits of zlib's crc32, computed two ways.
 *
 *  - base: ISA-L's crc32_gzip_refl where the build found it (SC_HAVE_ISAL,
 *    Makefile), else zlib's crc32.
 *  - fold: on x86-64 with AVX2 and VPCLMULQDQ (checked at run time), from
 *    SC_RP_FOLD_MIN bytes on. Record and replay compute one CRC per
 *    received payload on the application's critical path (a 4 KiB payload
 *    took 0.42 us with ISA-L's 128-bit folding on the 2-core test machine,
 *    a Zen 3, about as much as the message's own latency), so the wider
 *    instructions matter there.
 *
 * How fold works. A reflected CRC is the remainder of the message
 * polynomial; 16 message bytes loaded little-endian are 128 coefficients,
 * bit j of the register the coefficient of x^(127-j). A block a(x) followed
 * by D more bits of message counts as a(x) x^D mod P; writing a = H x^64 +
 * L (H: the low 64 bits of the register), a x^D = H x^(64+D) + L x^D, and
 * each half times the 32-bit remainder of its power is a product of at most
 * 96 bits: one carry-less multiplication (which shifts by one coefficient
 * in this bit order, hence the powers 64+D-1 and D-1 below). The folded
 * block xored into the block D bits later leaves the CRC unchanged. Eight
 * blocks of 16 bytes (four 256-bit registers) are folded by D = 1024 bits
 * per step; at the end they are folded into one block, which is handed with
 * the last bytes to the base CRC. 10 bytes per TSC cycle on the Zen 3 of
 * the test machine, twice ISA-L's 128-bit folding from 1 KiB on; eight
 * registers in flight were no faster (the multiplier's throughput is the
 * limit, not its latency).
 */
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#if SC_HAVE_ISAL
#include <isa-l/crc.h>
#else
#include <zlib.h>
#endif

#include "replay.h"

uint32_t sc__rp_crc_base(uint32_t crc, const void *p, size_t n)
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

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define FOLD_TARGET __attribute__((target("avx2,pclmul,vpclmulqdq")))

/* {x^(64+D-1) mod P, x^(D-1) mod P}, each bit-reflected into the top 32
 * bits of a 64-bit word (coefficient d at bit 63-d), for the fold
 * distances D used below; tests/unit/test_crc.c checks the result against
 * zlib. */
enum { K128, K256, K512, K768, K1024 };
static const uint64_t fold_k[][2] = {
    /* D =  128 */ {0x65673b4600000000u, 0x9ba54c6f00000000u},
    /* D =  256 */ {0x9570d49500000000u, 0x01b5fd1d00000000u},
    /* D =  512 */ {0x653d982200000000u, 0xcad38e8f00000000u},
    /* D =  768 */ {0x759fc69d00000000u, 0x101a233100000000u},
    /* D = 1024 */ {0x7d657a1000000000u, 0x7406fa9500000000u},
};

FOLD_TARGET static inline __m256i k256(int d)
{
    return _mm256_set_epi64x((long long)fold_k[d][1], (long long)fold_k[d][0],
                             (long long)fold_k[d][1], (long long)fold_k[d][0]);
}

/* Both 128-bit blocks of a folded forward by the distance of k. */
FOLD_TARGET static inline __m256i fold2(__m256i a, __m256i k)
{
    return _mm256_xor_si256(_mm256_clmulepi64_epi128(a, k, 0x00),
                            _mm256_clmulepi64_epi128(a, k, 0x11));
}

FOLD_TARGET static inline __m128i fold1(__m128i a, __m128i k)
{
    return _mm_xor_si128(_mm_clmulepi64_si128(a, k, 0x00), _mm_clmulepi64_si128(a, k, 0x11));
}

FOLD_TARGET static uint32_t crc_fold(uint32_t crc, const unsigned char *p, size_t n)
{
    const __m256i k1024 = k256(K1024);
    const __m128i k128 = _mm_set_epi64x((long long)fold_k[K128][1], (long long)fold_k[K128][0]);
    __m256i a0 = _mm256_loadu_si256((const __m256i *)p);
    __m256i a1 = _mm256_loadu_si256((const __m256i *)(p + 32));
    __m256i a2 = _mm256_loadu_si256((const __m256i *)(p + 64));
    __m256i a3 = _mm256_loadu_si256((const __m256i *)(p + 96));
    __m128i x;
    unsigned char last[32];

    /* zlib's pre-inversion, as the first 32 bits of the message. */
    a0 = _mm256_xor_si256(a0, _mm256_set_epi64x(0, 0, 0, (long long)(uint32_t)~crc));
    p += 128;
    n -= 128;
    for (; n >= 128; p += 128, n -= 128) {
        a0 = _mm256_xor_si256(fold2(a0, k1024), _mm256_loadu_si256((const __m256i *)p));
        a1 = _mm256_xor_si256(fold2(a1, k1024), _mm256_loadu_si256((const __m256i *)(p + 32)));
        a2 = _mm256_xor_si256(fold2(a2, k1024), _mm256_loadu_si256((const __m256i *)(p + 64)));
        a3 = _mm256_xor_si256(fold2(a3, k1024), _mm256_loadu_si256((const __m256i *)(p + 96)));
    }
    /* Eight blocks into two (a3's), then into one. */
    a3 = _mm256_xor_si256(a3, fold2(a2, k256(K256)));
    a3 = _mm256_xor_si256(a3, fold2(a1, k256(K512)));
    a3 = _mm256_xor_si256(a3, fold2(a0, k256(K768)));
    x = _mm_xor_si128(_mm256_extracti128_si256(a3, 1), fold1(_mm256_castsi256_si128(a3), k128));
    for (; n >= 16; p += 16, n -= 16)
        x = _mm_xor_si128(fold1(x, k128), _mm_loadu_si128((const __m128i *)p));
    /* The block then the last n < 16 bytes, as a message of their own
     * (the pre-inversion is in the block already): zlib's CRC of that
     * message from 0xFFFFFFFF, whose inversions cancel, is the result. */
    _mm_storeu_si128((__m128i *)last, x);
    memcpy(last + 16, p, n);
    return sc__rp_crc_base(0xFFFFFFFFu, last, 16 + n);
}

/* 1 when this CPU has what crc_fold needs (AVX2 and VPCLMULQDQ; the
 * compiler's check includes the OS's support of the AVX state). */
static int fold_ok(void)
{
    static atomic_int known = -1; /* -1: not yet; two threads would store the same */
    int ok = atomic_load_explicit(&known, memory_order_relaxed);

    if (ok < 0) {
        __builtin_cpu_init();
        ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("vpclmulqdq");
        atomic_store_explicit(&known, ok, memory_order_relaxed);
    }
    return ok;
}
#endif

int sc__rp_crc_fold(uint32_t crc, const void *p, size_t n, uint32_t *out)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    if (!fold_ok())
        return 0;
    *out = n >= 128 ? crc_fold(crc, p, n) : sc__rp_crc_base(crc, p, n);
    return 1;
#else
    (void)crc;
    (void)p;
    (void)n;
    (void)out;
    return 0;
#endif
}

uint32_t sc__rp_crc(uint32_t crc, const void *p, size_t n)
{
    uint32_t c;

    if (n >= SC_RP_FOLD_MIN && sc__rp_crc_fold(crc, p, n, &c))
        return c;
    return sc__rp_crc_base(crc, p, n);
}
