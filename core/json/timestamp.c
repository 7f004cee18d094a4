/* timestamp.c — createdAt parsing and comparison; see timestamp.h. */
#include "core/json/timestamp.h"

static bool digits(const char *s, size_t n, int *out) {
    int v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

static bool is_leap(int y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

static int days_in_month(int y, int m) {
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && is_leap(y) ? 29 : days[m - 1];
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar (H. Hinnant's algorithm). */
static int64_t days_from_civil(int64_t y, int m, int d) {
    y -= m <= 2;
    const int64_t era = (y >= 0 ? y : y - 399) / 400;
    const int64_t yoe = y - era * 400;
    const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

bool ts_instant_parse(const char *s, size_t len, ts_instant *out, const char **why) {
    const char *reason = "not of the form YYYY-MM-DDThh:mm:ss[.fraction](Z|+hh:mm|-hh:mm)";
    int year, month, day, hour, minute, second;
    if (len < 19 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' ||
        !digits(s, 4, &year) || !digits(s + 5, 2, &month) || !digits(s + 8, 2, &day) ||
        !digits(s + 11, 2, &hour) || !digits(s + 14, 2, &minute) || !digits(s + 17, 2, &second))
        goto fail;
    if (year < 1 || month < 1 || month > 12 || day < 1 || day > days_in_month(year, month) ||
        hour > 23 || minute > 59 || second > 59) {
        reason = "a date or time field is out of range";
        goto fail;
    }
    size_t i = 19;
    int64_t fraction = 0;
    if (i < len && s[i] == '.') {
        i++;
        size_t start = i;
        while (i < len && s[i] >= '0' && s[i] <= '9') {
            if (i - start >= 16) {
                reason = "more than 16 fraction digits";
                goto fail;
            }
            fraction = fraction * 10 + (s[i] - '0');
            i++;
        }
        if (i == start) goto fail;
        for (size_t pad = i - start; pad < 16; pad++) fraction *= 10;
    }
    int offset_minutes = 0;
    if (i == len) {
        /* no offset: read as UTC */
    } else if (s[i] == 'Z' && i + 1 == len) {
        /* UTC */
    } else if ((s[i] == '+' || s[i] == '-') && i + 6 == len && s[i + 3] == ':') {
        int oh, om;
        if (!digits(s + i + 1, 2, &oh) || !digits(s + i + 4, 2, &om)) goto fail;
        if (oh > 23 || om > 59) {
            reason = "the UTC offset is out of range";
            goto fail;
        }
        offset_minutes = (oh * 60 + om) * (s[i] == '-' ? -1 : 1);
    } else {
        goto fail;
    }
    int64_t days = days_from_civil(year, month, day);
    out->seconds = days * 86400 + hour * 3600 + minute * 60 + second - (int64_t)offset_minutes * 60;
    out->fraction = fraction;
    return true;
fail:
    if (why) *why = reason;
    return false;
}

int ts_instant_compare(ts_instant a, ts_instant b) {
    if (a.seconds != b.seconds) return a.seconds < b.seconds ? -1 : 1;
    if (a.fraction != b.fraction) return a.fraction < b.fraction ? -1 : 1;
    return 0;
}
