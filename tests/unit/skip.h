/*
 * Skips in the unit tests (tests/README.md). Check has no skip state: a
 * test whose precondition is missing here (running as root, say) prints
 * one line "SKIP: <test>: <reason>" and ends; run-unit.sh counts each such
 * line as a skipped test, taken off the tests Check counted as passed.
 */
#ifndef TESTS_UNIT_SKIP_H
#define TESTS_UNIT_SKIP_H

#include <stdio.h>

/* Ends the test `name` as skipped, saying why (printf arguments). */
#define UNIT_SKIP(name, ...)                                                                       \
    do {                                                                                           \
        printf("SKIP: %s: ", (name));                                                              \
        printf(__VA_ARGS__);                                                                       \
        printf("\n");                                                                              \
        fflush(stdout);                                                                            \
        return;                                                                                    \
    } while (0)

#endif /* TESTS_UNIT_SKIP_H */
