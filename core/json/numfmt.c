/* numfmt.c — shortest round-trip double formatting; see numfmt.h.
 *
 * Finds the fewest significant digits (1..17) whose decimal form parses back to the same
 * double — the definition of "shortest round trip" — then lays the digits out by the
 * ECMAScript rules. Exhaustive over lengths rather than clever (Ryu, Grisu): at most 17
 * snprintf and 51 strtod calls per number, fast enough for a writer, and obviously correct.
 */
#include "core/json/numfmt.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t ts_format_double(double d, char out[TS_NUMFMT_MAX]) {
    if (isnan(d) || isinf(d)) {
        out[0] = '\0';
        return 0;
    }
    if (d == 0) {
        strcpy(out, "0");
        return 1;
    }
    /* For each length k = 1..17, the candidate is the correctly rounded k-digit decimal s
     * (glibc rounds exactly, ties to even, so s is the closest k-digit decimal, as ECMAScript
     * asks). Where the doubles around d are unevenly spaced (powers of two), s can miss d's
     * rounding interval while s+1 or s-1 hits it; then that neighbour is the shortest form.
     * At most one of them can: the interval is convex and s lies between them. */
    bool negative = d < 0;
    double magnitude = negative ? -d : d;
    uint64_t best_digits = 0;
    int best_exponent = 0, k;
    bool found = false;
    for (k = 1; k <= 17 && !found; k++) {
        char sci[40];
        snprintf(sci, sizeof sci, "%.*e", k - 1, magnitude);
        uint64_t s = 0;
        const char *p = sci;
        for (; *p && *p != 'e'; p++)
            if (*p >= '0' && *p <= '9') s = s * 10 + (uint64_t)(*p - '0');
        int scale = atoi(p + 1) - k + 1; /* magnitude ~ s × 10^scale */
        static const int deltas[] = {0, -1, 1};
        for (int i = 0; i < 3 && !found; i++) {
            if (deltas[i] == -1 && s == 0) continue;
            uint64_t candidate = s + (uint64_t)(int64_t)deltas[i];
            char text[48];
            snprintf(text, sizeof text, "%llue%d", (unsigned long long)candidate, scale);
            if (strtod(text, NULL) != magnitude) continue;
            found = true;
            best_digits = candidate;
            best_exponent = scale; /* value = best_digits × 10^best_exponent */
        }
    }
    /* Lay out: digits of best_digits (a neighbour may have one digit more, e.g. 99 + 1). */
    char digits[24];
    int count = snprintf(digits, sizeof digits, "%llu", (unsigned long long)best_digits);
    int exponent = best_exponent + count - 1;
    int k_digits = count;
    while (k_digits > 1 && digits[k_digits - 1] == '0') k_digits--; /* no trailing zeros */
    digits[k_digits] = '\0';
    k = k_digits;
    int n = exponent + 1; /* value = 0.digits × 10^n */

    char *o = out;
    if (negative) *o++ = '-';
    if (k <= n && n <= 21) {
        memcpy(o, digits, (size_t)k);
        o += k;
        for (int i = 0; i < n - k; i++) *o++ = '0';
    } else if (0 < n && n <= 21) {
        memcpy(o, digits, (size_t)n);
        o += n;
        *o++ = '.';
        memcpy(o, digits + n, (size_t)(k - n));
        o += k - n;
    } else if (-6 < n && n <= 0) {
        *o++ = '0';
        *o++ = '.';
        for (int i = 0; i < -n; i++) *o++ = '0';
        memcpy(o, digits, (size_t)k);
        o += k;
    } else {
        *o++ = digits[0];
        if (k > 1) {
            *o++ = '.';
            memcpy(o, digits + 1, (size_t)(k - 1));
            o += k - 1;
        }
        o += sprintf(o, "e%c%d", n - 1 >= 0 ? '+' : '-', abs(n - 1));
    }
    *o = '\0';
    return (size_t)(o - out);
}
