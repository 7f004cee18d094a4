/* utf8.c — valid UTF-8; see utf8.h. */
#include "core/json/utf8.h"

size_t ts_utf8_sequence(const unsigned char *s, size_t left) {
    unsigned char c = s[0];
    size_t n = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (n == 0 || n > left) return 0;
    for (size_t i = 1; i < n; i++)
        if ((s[i] & 0xC0) != 0x80) return 0;
    if (n == 2 && c < 0xC2) return 0;                                /* overlong */
    if (n == 3 && c == 0xE0 && s[1] < 0xA0) return 0;                /* overlong */
    if (n == 3 && c == 0xED && s[1] >= 0xA0) return 0;               /* a surrogate */
    if (n == 4 && ((c == 0xF0 && s[1] < 0x90) || c > 0xF4 || (c == 0xF4 && s[1] >= 0x90))) return 0;
    return n;
}

void ts_utf8_append_valid(ts_buf *out, const char *s, size_t len) {
    size_t run = 0; /* valid bytes not yet copied, ending at i */
    for (size_t i = 0; i < len;) {
        size_t n = ts_utf8_sequence((const unsigned char *)s + i, len - i);
        if (n) {
            i += n;
            run += n;
            continue;
        }
        ts_buf_append(out, s + i - run, run);
        run = 0;
        ts_buf_append(out, "\xEF\xBF\xBD", 3);
        i++;
    }
    ts_buf_append(out, s + len - run, run);
}
