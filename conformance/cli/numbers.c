/* numbers.c — strict parsing of numeric option values; see cli.h. strtoull alone accepts
 * "-1" (as 2^64-1), "" and overflow (as ULLONG_MAX), and atof accepts "nan" and "inf". */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>

#include "conformance/cli/cli.h"

bool ts_cli_parse_whole(const char *command, const char *option, const char *text, unsigned long long min,
                        unsigned long long max, unsigned long long *out) {
    bool ok = isdigit((unsigned char)text[0]) != 0;
    char *end = NULL;
    errno = 0;
    unsigned long long value = ok ? strtoull(text, &end, 10) : 0;
    ok = ok && !*end && errno == 0 && value >= min && value <= max;
    if (!ok) {
        fprintf(stderr, "turnstile %s: %s needs a whole number from %llu to %llu, not '%s'\n", command, option, min, max,
                text);
        return false;
    }
    *out = value;
    return true;
}

bool ts_cli_parse_real(const char *command, const char *option, const char *text, double min_exclusive, double max,
                       double *out) {
    char *end = NULL;
    errno = 0;
    double value = text[0] && !isspace((unsigned char)text[0]) ? strtod(text, &end) : NAN;
    bool ok = end && !*end && errno == 0 && isfinite(value) && value > min_exclusive && value <= max;
    if (!ok) {
        fprintf(stderr, "turnstile %s: %s needs a number above %g and at most %g, not '%s'\n", command, option,
                min_exclusive, max, text);
        return false;
    }
    *out = value;
    return true;
}

bool ts_cli_parse_judge_states(const char *command, const char *text, ts_judge_budget *budget) {
    unsigned long long n;
    if (!ts_cli_parse_whole(command, "--judge-states", text, 0, 1000000000000ULL, &n)) return false;
    budget->states = n ? n : TS_JUDGE_UNLIMITED_STATES;
    return true;
}

bool ts_cli_parse_judge_seconds(const char *command, const char *text, ts_judge_budget *budget) {
    char *end = NULL;
    errno = 0;
    double value = text[0] && !isspace((unsigned char)text[0]) && text[0] != '-' ? strtod(text, &end) : NAN;
    if (!end || *end || errno != 0 || !isfinite(value) || value < 0 || value > 1e9) {
        fprintf(stderr, "turnstile %s: --judge-seconds needs a number from 0 (no limit) to 1e9, not '%s'\n", command, text);
        return false;
    }
    budget->seconds = value > 0 ? value : TS_JUDGE_UNLIMITED_SECONDS;
    return true;
}
