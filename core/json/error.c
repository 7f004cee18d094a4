/* error.c — error record helpers; see error.h. */
#include "core/json/error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void ts_error_clear(ts_error *err) {
    if (err) memset(err, 0, sizeof *err);
}

void ts_error_set(ts_error *err, const char *fmt, ...) {
    if (!err) return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
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
