/* error.h — the one error record every core module fills in.
 *
 * Owns: nothing; a caller-owned struct. Modules report failure with a status (false / NULL /
 * a non-zero code) and describe it here: what kind of failure (a code, chosen by the producer:
 * callers decide by it, never by the message's text), where (line, column, field path) and
 * what (one sentence for people).
 */
#ifndef TURNSTILE_CORE_ERROR_H
#define TURNSTILE_CORE_ERROR_H

#include <stddef.h>

/* What kind of failure, in the manner of SQLite's primary result codes. A caller that must act
 * differently on kinds (an exit status, a retry, a verdict) reads this, never err->message. */
typedef enum ts_error_code {
    TS_OK = 0,          /* no error: a cleared record */
    TS_ERR_NOMEM,       /* memory ran out (SQLITE_NOMEM): nothing is known about the input */
    TS_ERR_INPUT,       /* the input is not valid: its syntax, a field, a limit, a damaged store
                         * (SQLITE_MISMATCH, _TOOBIG, _CORRUPT, _NOTADB) */
    TS_ERR_IO,          /* the system failed us: a file cannot be opened, read, written or synced
                         * (SQLITE_IOERR, _CANTOPEN, _FULL) */
    TS_ERR_REFUSED,     /* valid, but not allowed now: another process owns the store, a result is
                         * already recorded, the store is read-only or unusable after an earlier
                         * failure (SQLITE_BUSY, _CONSTRAINT, _READONLY, _MISUSE) */
} ts_error_code;

typedef struct ts_error {
    ts_error_code code; /* TS_OK until a producer sets one */
    int line;           /* 1-based line in the input; 0 when not about a position */
    int column;         /* 1-based byte column; 0 when unknown */
    char path[160];     /* JSON field path such as "contents[2].callId"; "" when none */
    char message[320];  /* what is wrong, one sentence, no trailing newline */
} ts_error;

/* Clears every field (code TS_OK). Accepts NULL. */
void ts_error_clear(ts_error *err);

/* Sets the code and the message (printf-style) and keeps line/column/path as they are. Every
 * producer names its code. Accepts NULL err. */
void ts_error_set(ts_error *err, ts_error_code code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The code's name: "ok", "out of memory", "bad input", "I/O error" or "refused". Static. */
const char *ts_error_code_name(ts_error_code code);

/* Writes "NAME:LINE:COL: PATH: MESSAGE" (parts that are unknown are left out) into out. */
void ts_error_format(const ts_error *err, const char *source_name, char *out, size_t out_size);

#endif
