/* read_all.h — the parse-only peers' whole-file read (ci/bench/jansson_parse.c, cjson_parse.c,
 * parse_model.c): each reads its input whole into memory first, as a tree-building parser needs.
 * Owns nothing: the buffer returned is the caller's to free. */
#ifndef TURNSTILE_CI_BENCH_READ_ALL_H
#define TURNSTILE_CI_BENCH_READ_ALL_H

#include <stdio.h>
#include <stdlib.h>

/* All of f in a malloc'd buffer (*out, *out_len). Returns 0, or -1 when memory or a read fails. */
static inline int bench_read_all(FILE *f, char **out, size_t *out_len) {
    size_t cap = 1 << 20, len = 0;
    char *data = malloc(cap);
    if (!data) return -1;
    for (;;) {
        if (len == cap) {
            char *grown = cap > ((size_t)-1) / 2 ? NULL : realloc(data, cap * 2);
            if (!grown) {
                free(data);
                return -1;
            }
            data = grown;
            cap *= 2;
        }
        size_t got = fread(data + len, 1, cap - len, f);
        len += got;
        if (got == 0) break;
    }
    if (ferror(f)) {
        free(data);
        return -1;
    }
    *out = data;
    *out_len = len;
    return 0;
}

#endif
