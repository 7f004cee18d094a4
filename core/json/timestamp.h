/* timestamp.h — createdAt values: parsing the forms .NET writes and reads, and comparing them
 * as instants.
 *
 * Owns: the meaning of a createdAt string. Accepted: YYYY-MM-DDThh:mm:ss, an optional
 * fraction of 1 to 16 digits, then "Z", "+hh:mm" or "-hh:mm" (System.Text.Json writes
 * "+00:00" and up to 7 digits; it reads up to 16). No offset at all is read as UTC (.NET would
 * use the reading machine's zone, which would make the result depend on the machine). Lower-case
 * "t"/"z", seconds of 60 and out-of-range fields are rejected, as .NET rejects them. The text is
 * never rewritten: the model keeps the original string and compares the instant.
 */
#ifndef TURNSTILE_CORE_TIMESTAMP_H
#define TURNSTILE_CORE_TIMESTAMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ts_instant {
    int64_t seconds;  /* since 1970-01-01T00:00:00Z, may be negative */
    int64_t fraction; /* [0, 10^16): the fraction of a second in units of 10^-16 s */
} ts_instant;

/* Parses text; returns false (and a reason in `why`, a static string) when it is not a
 * valid createdAt. */
bool ts_instant_parse(const char *text, size_t len, ts_instant *out, const char **why);

/* -1, 0 or 1 as a is before, at, or after b. */
int ts_instant_compare(ts_instant a, ts_instant b);

#endif
