/* error.c — error record helpers; see error.h. */
#include "core/json/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void ts_error_clear(ts_error *err) {
    if (err) memset(err, 0, sizeof *err);
}

void ts_error_set(ts_error *err, ts_error_code code, const char *fmt, ...) {
    if (!err) return;
    err->code = code;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
}

const char *ts_error_code_name(ts_error_code code) {
    switch (code) {
    case TS_OK: return "ok";
    case TS_ERR_NOMEM: return "out of memory";
    case TS_ERR_INPUT: return "bad input";
    case TS_ERR_IO: return "I/O error";
    case TS_ERR_REFUSED: return "refused";
    }
    return "unknown";
}

void ts_error_format(const ts_error *err, const char *source_name, char *out, size_t out_size) {
    char where[64] = "";
    if (err->line > 0 && err->column > 0)
        snprintf(where, sizeof where, ":%d:%d", err->line, err->column);
    else if (err->line > 0)
        snprintf(where, sizeof where, ":%d", err->line);
    snprintf(out, out_size, "%s%s: %s%s%s", source_name ? source_name : "input", where, err->path,
             err->path[0] ? ": " : "", err->message);
}
