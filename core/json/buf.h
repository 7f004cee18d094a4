/* buf.h — a growable byte buffer (in the manner of Redis's sds, without the hidden header).
 *
 * Owns: its heap block. Writers append; on allocation failure the buffer records `failed` and
 * ignores further appends, so a sequence of appends is checked once at the end.
 */
#ifndef TURNSTILE_CORE_BUF_H
#define TURNSTILE_CORE_BUF_H

#include <stdbool.h>
#include <stddef.h>

typedef struct ts_buf {
    char *data;    /* NUL-terminated when non-NULL */
    size_t len;
    size_t cap;
    bool failed;   /* an allocation failed; contents are incomplete */
} ts_buf;

void ts_buf_init(ts_buf *buf);

/* A growable heap array: *items (NULL at first, the caller's to free) with room for *cap items of
 * `size` bytes, `count` used. When full it doubles the room (16 at first); false when out of
 * memory, *items and *cap unchanged. */
bool ts_grow_array(void **items, size_t *cap, size_t count, size_t size);
void ts_buf_free(ts_buf *buf);              /* accepts NULL */
void ts_buf_reset(ts_buf *buf);             /* len = 0, keeps capacity, clears `failed` */
void ts_buf_append(ts_buf *buf, const void *bytes, size_t len);
void ts_buf_append_str(ts_buf *buf, const char *s);
static inline void ts_buf_append_char(ts_buf *buf, char c) {
    if (buf->len + 2 <= buf->cap && !buf->failed) { /* room for c and the NUL: the common case */
        buf->data[buf->len++] = c;
        buf->data[buf->len] = '\0';
    } else {
        ts_buf_append(buf, &c, 1);
    }
}
/* printf-style append; formats longer than 4 KiB are truncated. */
void ts_buf_appendf(ts_buf *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
