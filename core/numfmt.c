/* numfmt.c — shortest round-trip double formatting; see numfmt.h.
 *
 * Finds the fewest significant digits (1..17) whose decimal form parses back to the same
 * double — the definition of "shortest round trip" — then lays the digits out by the
 * ECMAScript rules. Exhaustive over precisions rather than clever (Ryu, Grisu): a dozen
 * snprintf/strtod pairs per number, fast enough for a writer, and obviously correct.
 */
#include "core/numfmt.h"

#include <math.h>
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
    char sci[40];
    int precision;
    for (precision = 1; precision <= 17; precision++) {
        snprintf(sci, sizeof sci, "%.*e", precision - 1, d);
        if (strtod(sci, NULL) == d) break;
    }
    /* sci is "-d.ddde±XX": collect the digits and the exponent. */
    char digits[24];
    int k = 0;
    const char *p = sci;
    bool negative = (*p == '-');
    if (negative) p++;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9') digits[k++] = *p;
    int exponent = atoi(p + 1);
    while (k > 1 && digits[k - 1] == '0') k--; /* shortest form has no trailing zeros */
    digits[k] = '\0';
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
