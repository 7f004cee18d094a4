/* buf.c — growable byte buffer; see buf.h. */
#include "core/json/buf.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool ts_grow_array(void **items, size_t *cap, size_t count, size_t size) {
    if (count < *cap) return true;
    size_t next = *cap ? 2 * *cap : 16;
    void *grown = realloc(*items, next * size);
    if (!grown) return false;
    *items = grown;
    *cap = next;
    return true;
}

void ts_buf_init(ts_buf *buf) {
    buf->data = NULL;
    buf->len = 0;
    buf->cap = 0;
    buf->failed = false;
}

void ts_buf_free(ts_buf *buf) {
    if (!buf) return;
    free(buf->data);
    ts_buf_init(buf);
}

void ts_buf_reset(ts_buf *buf) {
    buf->len = 0;
    buf->failed = false;
    if (buf->data) buf->data[0] = '\0';
}

static bool reserve(ts_buf *buf, size_t extra) {
    if (buf->failed) return false;
    if (extra > SIZE_MAX - buf->len - 1) {
        buf->failed = true;
        return false;
    }
    size_t need = buf->len + extra + 1;
    if (need <= buf->cap) return true;
    size_t cap = buf->cap ? buf->cap : 256;
    while (cap < need) cap = cap > SIZE_MAX / 2 ? need : cap * 2;
    char *grown = realloc(buf->data, cap);
    if (!grown) {
        buf->failed = true;
        return false;
    }
    buf->data = grown;
    buf->cap = cap;
    return true;
}

void ts_buf_append(ts_buf *buf, const void *bytes, size_t len) {
    if (!reserve(buf, len)) return;
    if (len) memcpy(buf->data + buf->len, bytes, len);
    buf->len += len;
    buf->data[buf->len] = '\0';
}

void ts_buf_append_str(ts_buf *buf, const char *s) { ts_buf_append(buf, s, strlen(s)); }

void ts_buf_appendf(ts_buf *buf, const char *fmt, ...) {
    char tmp[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    ts_buf_append(buf, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}
