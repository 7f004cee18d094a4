/* unit.h — a minimal unit-test harness for turnstile's C tests (header only).
 *
 * Owns: counting checks and printing one summary line that CI systems and people read:
 * "N passed, N failed" (N = test functions). A test is a `static void name(void)`; list them in
 * main with TS_RUN(name) and end with `return ts_unit_finish();`. A failed CHECK prints
 * file:line and the expression, marks the current test failed and continues.
 */
#ifndef TURNSTILE_CORE_TESTING_UNIT_H
#define TURNSTILE_CORE_TESTING_UNIT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int ts_unit_passed, ts_unit_failed, ts_unit_current_failed;
static const char *ts_unit_current;

#define CHECK(cond)                                                                          \
    do {                                                                                     \
        if (!(cond)) {                                                                       \
            fprintf(stderr, "%s:%d: %s: CHECK failed: %s\n", __FILE__, __LINE__,             \
                    ts_unit_current, #cond);                                                 \
            ts_unit_current_failed = 1;                                                      \
        }                                                                                    \
    } while (0)

#define CHECK_STR_EQ(actual, expected)                                                       \
    do {                                                                                     \
        const char *a_ = (actual), *e_ = (expected);                                         \
        if (!a_ || !e_ || strcmp(a_, e_) != 0) {                                             \
            fprintf(stderr, "%s:%d: %s: CHECK_STR_EQ failed: %s\n  got:      %s\n  expected: %s\n", \
                    __FILE__, __LINE__, ts_unit_current, #actual, a_ ? a_ : "(null)",        \
                    e_ ? e_ : "(null)");                                                     \
            ts_unit_current_failed = 1;                                                      \
        }                                                                                    \
    } while (0)

#define TS_RUN(test)                                                                         \
    do {                                                                                     \
        ts_unit_current = #test;                                                             \
        ts_unit_current_failed = 0;                                                          \
        test();                                                                              \
        if (ts_unit_current_failed) {                                                        \
            ts_unit_failed++;                                                                \
            fprintf(stderr, "FAIL %s\n", #test);                                             \
        } else {                                                                             \
            ts_unit_passed++;                                                                \
        }                                                                                    \
    } while (0)

/* Reads a whole file into a malloc'd, NUL-terminated buffer (NULL when it cannot). */
static inline char *ts_unit_read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = size >= 0 ? (char *)malloc((size_t)size + 1) : NULL;
    if (data && fread(data, 1, (size_t)size, f) != (size_t)size) {
        free(data);
        data = NULL;
    }
    fclose(f);
    if (data) {
        data[size] = '\0';
        *len = (size_t)size;
    }
    return data;
}

static inline int ts_unit_finish(void) {
    printf("%d passed, %d failed\n", ts_unit_passed, ts_unit_failed);
    return ts_unit_failed ? 1 : 0;
}

#endif
