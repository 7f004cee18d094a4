/* timestamp_test.c — ts_instant_parse / ts_instant_compare: accepted createdAt forms, rejections, ordering. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/testing/unit.h"
#include "core/json/timestamp.h"

static bool parse(const char *text, ts_instant *out) {
    const char *why = NULL;
    ts_instant scratch;
    bool ok = ts_instant_parse(text, strlen(text), out ? out : &scratch, &why);
    if (!ok && (why == NULL || why[0] == '\0')) {
        fprintf(stderr, "  \"%s\" rejected without a reason\n", text);
        ts_unit_current_failed = 1;
    }
    return ok;
}

/* Parses both (each must be valid) and compares them. */
static int compare(const char *a, const char *b) {
    ts_instant ia, ib;
    if (!parse(a, &ia) || !parse(b, &ib)) {
        fprintf(stderr, "  compare: \"%s\" or \"%s\" did not parse\n", a, b);
        return 99;
    }
    int ab = ts_instant_compare(ia, ib), ba = ts_instant_compare(ib, ia);
    if (ab != -ba) {
        fprintf(stderr, "  compare(\"%s\", \"%s\") is not antisymmetric\n", a, b);
        return 98;
    }
    return ab;
}

#define CHECK_ACCEPTS(text) CHECK(parse((text), NULL))
#define CHECK_REJECTS(text)                                                                  \
    do {                                                                                     \
        ts_instant out_;                                                                     \
        const char *why_ = NULL;                                                             \
        CHECK(!ts_instant_parse((text), strlen(text), &out_, &why_));                        \
        CHECK(why_ != NULL && why_[0] != '\0');                                              \
    } while (0)

static void utc_spellings_are_equal(void) {
    CHECK(compare("2022-01-01T00:00:00+00:00", "2022-01-01T00:00:00Z") == 0);
    CHECK(compare("2022-01-01T00:00:00Z", "2022-01-01T00:00:00") == 0);
    CHECK(compare("2022-01-01T00:00:00+00:00", "2022-01-01T00:00:00") == 0);
    CHECK(compare("2022-01-01T00:00:00-00:00", "2022-01-01T00:00:00Z") == 0);
}

static void offsets_shift_the_instant(void) {
    CHECK(compare("2022-01-01T01:00:00+01:00", "2022-01-01T00:00:00Z") == 0);
    CHECK(compare("2021-12-31T19:00:00-05:00", "2022-01-01T00:00:00Z") == 0);
    CHECK(compare("2022-01-01T05:45:00+05:45", "2022-01-01T00:00:00+00:00") == 0);
    CHECK(compare("2022-01-01T00:30:00+01:00", "2022-01-01T00:00:00Z") < 0);
    CHECK(compare("2022-01-01T00:00:00Z", "2022-01-01T00:30:00+01:00") > 0);
    CHECK(compare("2022-01-01T23:00:00-01:00", "2022-01-02T00:00:00Z") == 0);
    CHECK(compare("2022-01-01T23:00:00-01:00", "2022-01-01T23:59:59Z") > 0);
    /* extreme offsets across a year boundary */
    CHECK(compare("2023-01-01T23:59:00+23:59", "2023-01-01T00:00:00Z") == 0);
    CHECK(compare("2022-12-31T00:01:00-23:59", "2023-01-01T00:00:00Z") == 0);

    ts_instant i;
    CHECK(parse("2022-01-01T01:00:00+01:00", &i));
    CHECK(i.seconds == 1640995200 && i.fraction == 0);
}

static void fractions(void) {
    CHECK(compare("2022-01-01T00:00:00.5+00:00", "2022-01-01T00:00:00.50+00:00") == 0);
    CHECK(compare("2022-01-01T00:00:00.5Z", "2022-01-01T00:00:00.5000000000000000Z") == 0);
    CHECK(compare("2022-01-01T00:00:00.0Z", "2022-01-01T00:00:00Z") == 0);
    CHECK(compare("2022-01-01T00:00:00.1Z", "2022-01-01T00:00:00.09Z") > 0);
    CHECK(compare("2022-01-01T00:00:00.9999999Z", "2022-01-01T00:00:01Z") < 0);
    CHECK(compare("2022-01-01T00:00:00.0000000000000001Z", "2022-01-01T00:00:00Z") > 0);
    CHECK(compare("2022-01-01T00:00:00.1234567+00:00", "2022-01-01T00:00:00.12345670Z") == 0);

    ts_instant i;
    CHECK(parse("2022-01-01T00:00:00.1234567+00:00", &i)); /* 7 digits, as .NET writes */
    CHECK(i.fraction == 1234567000000000LL);
    CHECK(parse("2022-01-01T00:00:00.1234567890123456+00:00", &i)); /* 16 digits, .NET's max */
    CHECK(i.fraction == 1234567890123456LL);
    CHECK(parse("2022-01-01T00:00:00.9999999999999999Z", &i));
    CHECK(i.fraction == 9999999999999999LL);
    CHECK_REJECTS("2022-01-01T00:00:00.12345678901234567+00:00"); /* 17 digits */
    CHECK_REJECTS("2022-01-01T00:00:00.00000000000000000Z");
    CHECK_REJECTS("2022-01-01T00:00:00.Z");
    CHECK_REJECTS("2022-01-01T00:00:00.+00:00");
    CHECK_REJECTS("2022-01-01T00:00:00.");
    CHECK_REJECTS("2022-01-01T00:00:00,5Z");
    CHECK_REJECTS("2022-01-01T00:00:00.5.5Z");
}

static void calendar_ranges(void) {
    CHECK_ACCEPTS("2024-02-29T00:00:00Z");
    CHECK_ACCEPTS("2000-02-29T00:00:00Z"); /* divisible by 400 */
    CHECK_REJECTS("2023-02-29T00:00:00Z");
    CHECK_REJECTS("1900-02-29T00:00:00Z"); /* divisible by 100 */
    CHECK_REJECTS("2024-02-30T00:00:00Z");
    CHECK_REJECTS("2022-04-31T00:00:00Z");
    CHECK_ACCEPTS("2022-12-31T23:59:59Z");
    CHECK_REJECTS("2022-13-01T00:00:00Z");
    CHECK_REJECTS("2022-00-01T00:00:00Z");
    CHECK_REJECTS("2022-01-00T00:00:00Z");
    CHECK_REJECTS("2022-01-32T00:00:00Z");
    CHECK_REJECTS("0000-01-01T00:00:00Z");
    CHECK_REJECTS("2022-01-01T24:00:00Z");
    CHECK_REJECTS("2022-01-01T00:60:00Z");
    CHECK_REJECTS("2022-01-01T23:59:60Z"); /* no leap seconds */
    CHECK_REJECTS("2022-01-01T00:00:99Z");
}

static void malformed_text(void) {
    CHECK_REJECTS("");
    CHECK_REJECTS("2022");
    CHECK_REJECTS("2022-01-01");
    CHECK_REJECTS("2022-01-01T00:00");      /* missing seconds */
    CHECK_REJECTS("2022-01-01T00:00Z");
    CHECK_REJECTS("2022-01-01t00:00:00Z");  /* lower-case t */
    CHECK_REJECTS("2022-01-01T00:00:00z");  /* lower-case z */
    CHECK_REJECTS("2022-01-01 00:00:00Z");
    CHECK_REJECTS("2022-01-01T00:00:00Zx"); /* trailing garbage */
    CHECK_REJECTS("2022-01-01T00:00:00 ");
    CHECK_REJECTS(" 2022-01-01T00:00:00Z");
    CHECK_REJECTS("2022-01-01T00:00:00+00:00x");
    CHECK_REJECTS("2022-01-01T00:00:00ZZ");
    CHECK_REJECTS("2022-01-01T00:00:00+0000");
    CHECK_REJECTS("2022-01-01T00:00:00+00");
    CHECK_REJECTS("2022-01-01T00:00:00+00:0");
    CHECK_REJECTS("2022-01-01T00:00:00+0a:00");
    CHECK_REJECTS("2022-01-01T00:00:00+24:00");
    CHECK_REJECTS("2022-01-01T00:00:00-24:00");
    CHECK_REJECTS("2022-01-01T00:00:00+01:60");
    CHECK_REJECTS("2022-1-01T00:00:00Z");
    CHECK_REJECTS("22022-01-01T00:00:00Z");
    CHECK_REJECTS("2022-01-01T0:00:00Z");
    CHECK_REJECTS("2022-01-01T00:00:0Z");
    CHECK_REJECTS("2022-01-01T+0:00:00Z");
    CHECK_REJECTS("2022-01-01T00:00:-1Z");
    CHECK_REJECTS("2022/01/01T00:00:00Z");
    CHECK_REJECTS("2022-01-01T00-00-00Z");
    CHECK_REJECTS("\"2022-01-01T00:00:00Z\"");

    /* the length is authoritative: a valid prefix is not enough, bytes past len are ignored */
    ts_instant i;
    const char *text = "2022-01-01T00:00:00Zjunk";
    CHECK(ts_instant_parse(text, 20, &i, NULL));
    CHECK(!ts_instant_parse(text, strlen(text), &i, NULL));
    CHECK(!ts_instant_parse(text, 18, &i, NULL));
    CHECK(!ts_instant_parse(text, 0, &i, NULL)); /* why may be NULL */
    const char embedded_nul[] = "2022-01-01T00:00:00\0Z";
    CHECK(!ts_instant_parse(embedded_nul, sizeof embedded_nul - 1, &i, NULL));
}

static void epoch_and_before(void) {
    ts_instant i;
    CHECK(parse("1970-01-01T00:00:00Z", &i));
    CHECK(i.seconds == 0 && i.fraction == 0);
    CHECK(parse("1970-01-01T00:00:01+00:00", &i));
    CHECK(i.seconds == 1);
    CHECK(parse("1969-12-31T23:59:59Z", &i));
    CHECK(i.seconds == -1 && i.fraction == 0);
    CHECK(parse("1969-12-31T23:59:59.5Z", &i));
    CHECK(i.seconds == -1 && i.fraction == 5000000000000000LL);
    CHECK(parse("0001-01-01T00:00:00+00:00", &i));
    CHECK(i.seconds == -62135596800LL && i.fraction == 0);
    CHECK(parse("1900-01-01T00:00:00Z", &i));
    CHECK(i.seconds == -2208988800LL);
    CHECK(parse("2000-03-01T00:00:00Z", &i));
    CHECK(i.seconds == 951868800LL);
    CHECK(parse("2038-01-19T03:14:08Z", &i)); /* past 32-bit time_t */
    CHECK(i.seconds == 2147483648LL);

    CHECK(compare("0001-01-01T00:00:00+00:00", "1970-01-01T00:00:00Z") < 0);
    CHECK(compare("1969-12-31T23:59:59.5Z", "1969-12-31T23:59:59Z") > 0);
    CHECK(compare("1969-12-31T23:59:59.5Z", "1970-01-01T00:00:00Z") < 0);
    CHECK(compare("1969-12-31T23:59:59.9999999Z", "1970-01-01T00:00:00Z") < 0);
    CHECK(compare("0001-01-01T00:00:00.0000001Z", "0001-01-01T00:00:00Z") > 0);
    CHECK(compare("0001-01-01T01:00:00+01:00", "0001-01-01T00:00:00Z") == 0);
    /* an offset may carry the instant before year 1; it still compares correctly */
    CHECK(compare("0001-01-01T00:00:00+01:00", "0001-01-01T00:00:00Z") < 0);
}

static void far_future(void) {
    ts_instant i;
    CHECK(parse("9999-12-31T23:59:59.9999999+00:00", &i));
    CHECK(i.seconds == 253402300799LL && i.fraction == 9999999000000000LL);
    CHECK(compare("9999-12-31T23:59:59.9999999+00:00", "9999-12-31T23:59:59Z") > 0);
    CHECK(compare("9999-12-31T23:59:59.9999999+00:00", "0001-01-01T00:00:00Z") > 0);
    CHECK(compare("9999-12-31T23:59:59-23:59", "9999-12-31T23:59:59Z") > 0);
}

/* Consecutive seconds across every month boundary of a leap and a common year are ordered. */
static void month_boundaries_are_contiguous(void) {
    static const int years[] = {1999, 2000, 2023, 2024};
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    for (size_t y = 0; y < sizeof years / sizeof years[0]; y++) {
        int year = years[y];
        bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
        for (int m = 1; m <= 12; m++) {
            int last = days[m - 1] + (m == 2 && leap);
            char a[40], b[40];
            snprintf(a, sizeof a, "%04d-%02d-%02dT23:59:59Z", year, m, last);
            if (m == 12)
                snprintf(b, sizeof b, "%04d-01-01T00:00:00Z", year + 1);
            else
                snprintf(b, sizeof b, "%04d-%02d-01T00:00:00Z", year, m + 1);
            ts_instant ia, ib;
            CHECK(parse(a, &ia) && parse(b, &ib));
            CHECK(ib.seconds - ia.seconds == 1);
            snprintf(a, sizeof a, "%04d-%02d-%02dT00:00:00Z", year, m, last + 1);
            CHECK_REJECTS(a);
        }
    }
}

static void compare_is_a_total_order(void) {
    ts_instant a = {10, 5}, b = {10, 6}, c = {11, 0}, d = {-1, 9999999999999999LL}, e = {0, 0};
    CHECK(ts_instant_compare(a, a) == 0);
    CHECK(ts_instant_compare(a, b) == -1);
    CHECK(ts_instant_compare(b, a) == 1);
    CHECK(ts_instant_compare(b, c) == -1);
    CHECK(ts_instant_compare(c, a) == 1);
    CHECK(ts_instant_compare(d, e) == -1);
    CHECK(ts_instant_compare(e, d) == 1);
    ts_instant min = {INT64_MIN, 0}, max = {INT64_MAX, 9999999999999999LL};
    CHECK(ts_instant_compare(min, max) == -1);
    CHECK(ts_instant_compare(max, min) == 1);
}

int main(void) {
    TS_RUN(utc_spellings_are_equal);
    TS_RUN(offsets_shift_the_instant);
    TS_RUN(fractions);
    TS_RUN(calendar_ranges);
    TS_RUN(malformed_text);
    TS_RUN(epoch_and_before);
    TS_RUN(far_future);
    TS_RUN(month_boundaries_are_contiguous);
    TS_RUN(compare_is_a_total_order);
    return ts_unit_finish();
}
