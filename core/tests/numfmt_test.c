/* numfmt_test.c — ts_format_double: RFC 8785 / ECMAScript Number::toString forms, shortest round trip.
 *
 * The random sweeps check a tenth of their doubles here (a unit test on a loaded machine); built
 * with TS_LONG_SWEEPS (//core/tests:numfmt_long_test, run by //ci:long_tests) they check all. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json/numfmt.h"
#include "core/testing/unit.h"

#ifdef TS_LONG_SWEEPS
#define SWEEP(n) (n)
#else
#define SWEEP(n) ((n) / 10)
#endif

static double from_bits(uint64_t bits) {
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static uint64_t xorshift64(uint64_t *state) {
    uint64_t x = *state;
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return *state = x;
}

/* Formats d and checks the result against `want`, its length and its NUL terminator. */
#define EXPECT_FORMAT(d, want)                                                               \
    do {                                                                                     \
        char out_[TS_NUMFMT_MAX];                                                            \
        memset(out_, 'X', sizeof out_);                                                      \
        size_t n_ = ts_format_double((d), out_);                                             \
        CHECK(n_ > 0 && n_ < TS_NUMFMT_MAX);                                                 \
        CHECK(memchr(out_, '\0', sizeof out_) != NULL);                                      \
        if (memchr(out_, '\0', sizeof out_)) {                                               \
            CHECK(n_ == strlen(out_));                                                       \
            CHECK_STR_EQ(out_, (want));                                                      \
        }                                                                                    \
    } while (0)

/* ---- an independent oracle: exact decimal expansion + neighbour search -------------------- */

/* The ECMAScript layout of digits s (k of them, no trailing zeros) times 10^(n-k). */
static void es_layout(bool negative, const char *s, int k, int n, char *out) {
    char *o = out;
    if (negative) *o++ = '-';
    if (k <= n && n <= 21) {
        o += sprintf(o, "%.*s", k, s);
        for (int i = k; i < n; i++) *o++ = '0';
    } else if (0 < n && n <= 21) {
        o += sprintf(o, "%.*s.%.*s", n, s, k - n, s + n);
    } else if (-6 < n && n <= 0) {
        o += sprintf(o, "0.");
        for (int i = 0; i < -n; i++) *o++ = '0';
        o += sprintf(o, "%.*s", k, s);
    } else {
        o += sprintf(o, "%c", s[0]);
        if (k > 1) o += sprintf(o, ".%.*s", k - 1, s + 1);
        o += sprintf(o, "e%c%d", n - 1 >= 0 ? '+' : '-', abs(n - 1));
    }
    *o = '\0';
}

/* Does the decimal 0.s × 10^n (k digits) read back as exactly x? */
static bool reads_back(const char *s, int k, int n, double x) {
    char text[64];
    snprintf(text, sizeof text, "0.%.*se%d", k, s, n);
    return strtod(text, NULL) == x;
}

/* The k-digit decimals nearest d are the truncation of d's exact expansion and the next one
 * up. If either reads back as d, writes the ECMAScript form of the one to use (the nearer,
 * then the even one) into out and returns true. */
static bool candidate_at(double d, int k, char *out) {
    double x = fabs(d);
    /* 41 correctly rounded digits settle everything about the first 17 unless digits 18..41
     * are all 0 or all 9 (then rounding may hide the exact tail); only then print all of them
     * (every double's exact expansion has at most 767 significant digits). */
    static char exact[1024];
    snprintf(exact, sizeof exact, "%.40e", x);
    if (strspn(exact + 18, "0") >= 23 || strspn(exact + 18, "9") >= 23)
        snprintf(exact, sizeof exact, "%.800e", x);
    static char all[820];
    int count = 0;
    const char *p = exact;
    for (; *p != 'e'; p++)
        if (*p != '.') all[count++] = *p;
    int exp10 = atoi(p + 1);

    char lo[24], hi[24];
    memcpy(lo, all, (size_t)k);
    int n_lo = exp10 + 1, n_hi = n_lo;
    bool rest_zero = true, rest_above_half = false, rest_is_half = false;
    for (int i = k; i < count; i++)
        if (all[i] != '0') rest_zero = false;
    if (!rest_zero) {
        int first = all[k] - '0';
        bool tail_zero = true;
        for (int i = k + 1; i < count; i++)
            if (all[i] != '0') tail_zero = false;
        rest_above_half = first > 5 || (first == 5 && !tail_zero);
        rest_is_half = first == 5 && tail_zero;
    }
    memcpy(hi, lo, (size_t)k);
    int i = k - 1;
    while (i >= 0 && hi[i] == '9') hi[i--] = '0';
    if (i >= 0) {
        hi[i]++;
    } else { /* 99..9 + 1 = 100..0, one more power of ten */
        hi[0] = '1';
        n_hi++;
    }
    bool lo_ok = rest_zero || reads_back(lo, k, n_lo, x);
    bool hi_ok = !rest_zero && reads_back(hi, k, n_hi, x);
    if (!lo_ok && !hi_ok) return false;
    bool take_hi = hi_ok && (!lo_ok || rest_above_half || (rest_is_half && (lo[k - 1] - '0') % 2 == 1));
    const char *s = take_hi ? hi : lo;
    int digits = k;
    while (digits > 1 && s[digits - 1] == '0') digits--;
    es_layout(d < 0, s, digits, take_hi ? n_hi : n_lo, out);
    return true;
}

/* ECMAScript Number::toString by definition: the fewest digits k such that some k-digit
 * decimal reads back as d; of two such decimals, the nearer (then the even one). */
static void oracle_format(double d, char *out) {
    if (d == 0) {
        strcpy(out, "0");
        return;
    }
    for (int k = 1; k <= 17; k++)
        if (candidate_at(d, k, out)) return;
    strcpy(out, "(oracle failed)");
}

/* Significant digits of a formatted number: mantissa digits without leading/trailing zeros. */
static int significant_digits(const char *text) {
    char digs[40];
    int k = 0;
    for (const char *p = text; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9') digs[k++] = *p;
    int start = 0;
    while (start < k && digs[start] == '0') start++;
    while (k > start && digs[k - 1] == '0') k--;
    return k - start;
}

/* The properties every output must have, beyond matching the oracle. */
static int check_properties(double d, const char *label) {
    char out[TS_NUMFMT_MAX];
    size_t n = ts_format_double(d, out);
    if (n == 0 || n != strlen(out)) {
        fprintf(stderr, "  %s %a: bad length %zu\n", label, d, n);
        return 1;
    }
    char *end;
    double back = strtod(out, &end);
    if (*end != '\0' || back != d) {
        fprintf(stderr, "  %s %a: \"%s\" does not read back\n", label, d, out);
        return 1;
    }
    /* no more digits than needed: one digit fewer, rounded, must not read back */
    int k = significant_digits(out);
    if (k > 1) {
        char shorter[64];
        snprintf(shorter, sizeof shorter, "%.*e", k - 2, d);
        if (strtod(shorter, NULL) == d) {
            fprintf(stderr, "  %s %a: \"%s\" is longer than \"%s\"\n", label, d, out, shorter);
            return 1;
        }
    }
    /* no superfluous characters: no "+" outside exponents, no trailing '.', no leading zeros */
    if (out[n - 1] == '.' || strstr(out, ".e") || strstr(out, "e+0") || strstr(out, "e-0") ||
        strchr(out, 'E') || (out[0] == '0' && out[1] != '\0' && out[1] != '.')) {
        fprintf(stderr, "  %s %a: \"%s\" is not in ECMAScript form\n", label, d, out);
        return 1;
    }
    /* the oracle's verdict, cheaply: nothing with k-1 digits reads back (so nothing shorter
     * does either: append a zero), and out is the k-digit decimal the oracle would pick */
    char want[64];
    if (d == 0) {
        strcpy(want, "0");
    } else if (k > 1 && candidate_at(d, k - 1, want)) {
        fprintf(stderr, "  %s %a: got \"%s\", expected \"%s\"\n", label, d, out, want);
        return 1;
    } else if (!candidate_at(d, k, want)) {
        strcpy(want, "(no candidate)");
    }
    if (strcmp(out, want) != 0) {
        fprintf(stderr, "  %s %a: got \"%s\", expected \"%s\"\n", label, d, out, want);
        return 1;
    }
    return 0;
}

/* ---- tests -------------------------------------------------------------------------------- */

/* RFC 8785 Appendix B: IEEE 754 bit patterns and their canonical JSON number text. */
static void rfc8785_appendix_b(void) {
    static const struct {
        uint64_t bits;
        const char *text;
    } vectors[] = {
        {0x0000000000000000ULL, "0"},
        {0x8000000000000000ULL, "0"},
        {0x0000000000000001ULL, "5e-324"},
        {0x8000000000000001ULL, "-5e-324"},
        {0x7fefffffffffffffULL, "1.7976931348623157e+308"},
        {0xffefffffffffffffULL, "-1.7976931348623157e+308"},
        {0x4340000000000000ULL, "9007199254740992"},
        {0xc340000000000000ULL, "-9007199254740992"},
        {0x4430000000000000ULL, "295147905179352830000"},
        {0x44b52d02c7e14af5ULL, "9.999999999999997e+22"},
        {0x44b52d02c7e14af6ULL, "1e+23"},
        {0x44b52d02c7e14af7ULL, "1.0000000000000001e+23"},
        {0x444b1ae4d6e2ef4eULL, "999999999999999700000"},
        {0x444b1ae4d6e2ef4fULL, "999999999999999900000"},
        {0x444b1ae4d6e2ef50ULL, "1e+21"},
        {0x3eb0c6f7a0b5ed8cULL, "9.999999999999997e-7"},
        {0x3eb0c6f7a0b5ed8dULL, "0.000001"},
        {0x41b3de4355555553ULL, "333333333.3333332"},
        {0x41b3de4355555554ULL, "333333333.33333325"},
        {0x41b3de4355555555ULL, "333333333.3333333"},
        {0x41b3de4355555556ULL, "333333333.3333334"},
        {0x41b3de4355555557ULL, "333333333.33333343"},
        {0xbecbf647612f3696ULL, "-0.0000033333333333333333"},
        {0x43143ff3c1cb0959ULL, "1424953923781206.2"},
    };
    for (size_t i = 0; i < sizeof vectors / sizeof vectors[0]; i++)
        EXPECT_FORMAT(from_bits(vectors[i].bits), vectors[i].text);
}

static void zero_and_sign(void) {
    EXPECT_FORMAT(0.0, "0");
    EXPECT_FORMAT(-0.0, "0");
    EXPECT_FORMAT(1.0, "1");
    EXPECT_FORMAT(-1.0, "-1");
    EXPECT_FORMAT(-1.5, "-1.5");
    EXPECT_FORMAT(-0.1, "-0.1");
    EXPECT_FORMAT(-1e21, "-1e+21");
    EXPECT_FORMAT(-1e-7, "-1e-7");
}

/* Integers print without exponent up to 21 digits, fractions down to 1e-6. */
static void layout_boundaries(void) {
    EXPECT_FORMAT(0.1, "0.1");
    EXPECT_FORMAT(0.5, "0.5");
    EXPECT_FORMAT(123.456, "123.456");
    EXPECT_FORMAT(100.0, "100");
    EXPECT_FORMAT(1e20, "100000000000000000000");
    EXPECT_FORMAT(1e21, "1e+21");
    EXPECT_FORMAT(1.5e21, "1.5e+21");
    EXPECT_FORMAT(123456789012345680000.0, "123456789012345680000");
    EXPECT_FORMAT(9223372036854775807.0, "9223372036854776000");
    EXPECT_FORMAT(1e-6, "0.000001");
    EXPECT_FORMAT(0.000001, "0.000001");
    EXPECT_FORMAT(1.234e-6, "0.000001234");
    EXPECT_FORMAT(1e-7, "1e-7");
    EXPECT_FORMAT(1.234e-7, "1.234e-7");
    EXPECT_FORMAT(0.00001, "0.00001");
    EXPECT_FORMAT(1e300, "1e+300");
    EXPECT_FORMAT(1.5e300, "1.5e+300");
    EXPECT_FORMAT(1e-300, "1e-300");
    EXPECT_FORMAT(12345.6789e-300, "1.23456789e-296");
    EXPECT_FORMAT(5e-324, "5e-324");
    EXPECT_FORMAT(2.2250738585072014e-308, "2.2250738585072014e-308"); /* DBL_MIN */
    EXPECT_FORMAT(1.7976931348623157e308, "1.7976931348623157e+308");
    EXPECT_FORMAT(9007199254740992.0, "9007199254740992");
    EXPECT_FORMAT(9007199254740993.0, "9007199254740992"); /* not representable: rounds to 2^53 */
    EXPECT_FORMAT(333333333.3333333, "333333333.3333333");
    EXPECT_FORMAT(1.0 / 3.0, "0.3333333333333333");
    EXPECT_FORMAT(2.0 / 3.0, "0.6666666666666666");
    EXPECT_FORMAT(0.1 + 0.2, "0.30000000000000004");
    EXPECT_FORMAT(1.1, "1.1");
    EXPECT_FORMAT(4.35, "4.35");
    EXPECT_FORMAT(0.5, "0.5");
    EXPECT_FORMAT(0.25, "0.25");
    EXPECT_FORMAT(1024.0, "1024");
    EXPECT_FORMAT(4294967296.0, "4294967296");
}

static void non_finite_is_refused(void) {
    char out[TS_NUMFMT_MAX];
    CHECK(ts_format_double(NAN, out) == 0);
    CHECK(ts_format_double(-NAN, out) == 0);
    CHECK(ts_format_double(INFINITY, out) == 0);
    CHECK(ts_format_double(-INFINITY, out) == 0);
    CHECK(ts_format_double(from_bits(0x7ff0000000000001ULL), out) == 0); /* signalling NaN */
    CHECK(ts_format_double(from_bits(0xfff8000000000000ULL), out) == 0);
}

/* The oracle itself agrees with the hand-checked vectors, so its verdicts below mean something. */
static void oracle_self_check(void) {
    static const struct {
        double d;
        const char *text;
    } known[] = {
        {5e-324, "5e-324"},         {1e21, "1e+21"},
        {1e-7, "1e-7"},             {0.000001, "0.000001"},
        {123.456, "123.456"},       {-1.5, "-1.5"},
        {1e23, "1e+23"},            {0.1 + 0.2, "0.30000000000000004"},
        {9.999999999999997e+22, "9.999999999999997e+22"},
        {1.7976931348623157e308, "1.7976931348623157e+308"},
        {0x1p-24, "5.960464477539063e-8"}, /* V8: 2**-24 */
        {0x1p89, "6.189700196426902e+26"}, /* V8: 2**89 */
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++) {
        char out[64];
        oracle_format(known[i].d, out);
        CHECK_STR_EQ(out, known[i].text);
    }
}

/* 200000 doubles from raw random bit patterns (every exponent equally likely; a tenth unless long). */
static void random_bit_patterns_round_trip(void) {
    uint64_t state = 0x9E3779B97F4A7C15ULL;
    int tested = 0, failures = 0;
    while (tested < SWEEP(200000)) {
        double d = from_bits(xorshift64(&state));
        if (isnan(d) || isinf(d)) continue;
        tested++;
        if (check_properties(d, "random bits") && ++failures > 20) break;
    }
    CHECK(failures == 0);
}

/* Doubles near everyday magnitudes (1e-9 .. 1e24), where the fixed-point layouts apply. */
static void random_everyday_magnitudes(void) {
    uint64_t state = 0x2545F4914F6CDD1DULL;
    int failures = 0;
    for (int i = 0; i < SWEEP(60000) && failures <= 20; i++) {
        uint64_t r = xorshift64(&state);
        int exp2 = (int)(r >> 56) % 110 - 30; /* 2^-30 .. 2^79 */
        double mantissa = (double)(r & ((1ULL << 52) - 1)) / (double)(1ULL << 52) + 1.0;
        double d = ldexp(mantissa, exp2) * ((r >> 55) & 1 ? -1 : 1);
        failures += check_properties(d, "everyday");
    }
    /* short decimals such as prices and ratios: j / 10^p */
    for (int p = 0; p <= 9 && failures <= 20; p++)
        for (int j = -1000; j <= 1000; j += 7) failures += check_properties(j / pow(10, p), "decimal");
    /* integers that are exact doubles, up to 2^53 and just past 1e21 */
    for (int i = 0; i < SWEEP(20000) && failures <= 20; i++) {
        uint64_t r = xorshift64(&state);
        failures += check_properties((double)(r >> 11), "integer");
        failures += check_properties((double)(r >> (i % 64)), "integer");
    }
    CHECK(failures == 0);
}

/* Powers of ten are the layout switch points: 1e-7 / 1e-6 and 1e20 / 1e21. */
static void powers_of_ten(void) {
    int failures = 0;
    for (int e = -323; e <= 308; e++) {
        char text[32], want[32];
        snprintf(text, sizeof text, "1e%d", e);
        double d = strtod(text, NULL);
        failures += check_properties(d, "power of ten");
        if (e >= 21 || e <= -7) {
            snprintf(want, sizeof want, "1e%s%d", e >= 0 ? "+" : "", e);
        } else if (e >= 0) {
            snprintf(want, sizeof want, "1%.*s", e, "000000000000000000000");
        } else {
            snprintf(want, sizeof want, "0.%.*s1", -e - 1, "000000");
        }
        EXPECT_FORMAT(d, want);
    }
    CHECK(failures == 0);
}

/* Subnormals and the smallest normals, where the interval around a double is widest. */
static void subnormals(void) {
    int failures = 0;
    for (uint64_t m = 1; m < SWEEP(5000); m++) failures += check_properties(from_bits(m), "subnormal");
    uint64_t state = 0xD1B54A32D192ED03ULL;
    for (int i = 0; i < SWEEP(5000); i++)
        failures += check_properties(from_bits(xorshift64(&state) & 0x000FFFFFFFFFFFFFULL), "subnormal");
    for (uint64_t m = 0x0010000000000000ULL - 100; m < 0x0010000000000000ULL + 100; m++)
        failures += check_properties(from_bits(m), "normal boundary");
    CHECK(failures == 0);
}

/* Powers of two have a lower neighbour twice as close as the upper one; a formatter that only
 * tries the correctly rounded candidate at each length misses the shortest form for 92 of
 * them (found by this test; numfmt.c now tries the neighbouring candidates too). */
static void powers_of_two_are_shortest(void) {
    EXPECT_FORMAT(0x1p-24, "5.960464477539063e-8"); 
    EXPECT_FORMAT(0x1p-44, "5.684341886080802e-14");
    EXPECT_FORMAT(0x1p89, "6.189700196426902e+26");
    EXPECT_FORMAT(-0x1p122, "-5.316911983139664e+36");
    int failures = 0;
    for (int e = -1074; e <= 1023; e++) {
        failures += check_properties(ldexp(1.0, e), "power of two");
        failures += check_properties(-ldexp(1.0, e), "power of two");
    }
    fprintf(stderr, "  %d of 4196 signed powers of two are not in shortest form\n", failures);
    CHECK(failures == 0);
}

int main(void) {
    TS_RUN(rfc8785_appendix_b);
    TS_RUN(zero_and_sign);
    TS_RUN(layout_boundaries);
    TS_RUN(non_finite_is_refused);
    TS_RUN(oracle_self_check);
    TS_RUN(random_bit_patterns_round_trip);
    TS_RUN(random_everyday_magnitudes);
    TS_RUN(powers_of_ten);
    TS_RUN(subnormals);
    TS_RUN(powers_of_two_are_shortest);
    return ts_unit_finish();
}
