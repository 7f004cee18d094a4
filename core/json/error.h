/* error.h — the one error record every core module fills in.
 *
 * Owns: nothing; a caller-owned struct. Modules report failure with a status (false / NULL /
 * a non-zero code) and describe it here: where (line, column, field path) and what.
 */
#ifndef TURNSTILE_CORE_ERROR_H
#define TURNSTILE_CORE_ERROR_H

#include <stddef.h>

typedef struct ts_error {
    int line;           /* 1-based line in the input; 0 when not about a position */
    int column;         /* 1-based byte column; 0 when unknown */
    char path[160];     /* JSON field path such as "contents[2].callId"; "" when none */
    char message[320];  /* what is wrong, one sentence, no trailing newline */
} ts_error;

/* Clears every field. Accepts NULL. */
void ts_error_clear(ts_error *err);

/* Sets message (printf-style) and keeps line/column/path as they are. Accepts NULL err. */
void ts_error_set(ts_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Writes "NAME:LINE:COL: PATH: MESSAGE" (parts that are unknown are left out) into out. */
void ts_error_format(const ts_error *err, const char *source_name, char *out, size_t out_size);

#endif
