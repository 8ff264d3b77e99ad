/*
 * The replay log's CRC-32 (src/replay/crc.c, sc__rp_crc): ISA-L's where
 * the build found it, zlib's otherwise. Both must give the bits of zlib's
 * crc32, so that a log written by one build is read by the other: the
 * check value of the CRC-32 catalogue, the empty input, a chain of pieces
 * against the whole, and every length and alignment up to 4 KiB plus a
 * 1 MiB buffer against zlib itself.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "replay.h"

START_TEST(check_value)
{
    ck_assert_uint_eq(sc__rp_crc(0, "123456789", 9), 0xCBF43926u);
    ck_assert_uint_eq(sc__rp_crc(0, NULL, 0), 0u);
    ck_assert_uint_eq(sc__rp_crc(0x12345678u, "", 0), 0x12345678u);
    ck_assert_uint_eq(sc__rp_crc(0x12345678u, NULL, 0), 0x12345678u);
}
END_TEST

START_TEST(same_bits_as_zlib)
{
    enum { BIG = 1 << 20 };
    unsigned char *b = malloc(BIG);
    uint32_t seed = 12345;

    ck_assert_ptr_nonnull(b);
    for (size_t i = 0; i < BIG; i++) {
        seed = seed * 1103515245u + 12345u;
        b[i] = (unsigned char)(seed >> 16);
    }
    for (size_t off = 0; off < 16; off++)
        for (size_t n = 0; n <= 4096; n += (n < 300 ? 1 : 37))
            ck_assert_msg(sc__rp_crc(0, b + off, n) == (uint32_t)crc32(0, b + off, (uInt)n),
                          "offset %zu, %zu bytes", off, n);
    ck_assert_uint_eq(sc__rp_crc(0, b, BIG), (uint32_t)crc32(0, b, BIG));
    /* A chain of pieces is the CRC of the whole. */
    uint32_t c = 0;
    for (size_t at = 0, k = 1; at < BIG; at += k, k = k * 3 + 1)
        c = sc__rp_crc(c, b + at, at + k <= BIG ? k : BIG - at);
    ck_assert_uint_eq(c, (uint32_t)crc32(0, b, BIG));
    free(b);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("crc");
    TCase *tc = tcase_create("crc32");
    SRunner *sr;
    int failures;

    tcase_add_test(tc, check_value);
    tcase_add_test(tc, same_bits_as_zlib);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failures = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failures ? 1 : 0;
}
