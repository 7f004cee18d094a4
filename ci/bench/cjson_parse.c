/* cjson_parse.c — the cJSON parse-only peer of `turnstile merge` for ci/bench/merge_bench.sh.
 *
 * Reads a JSON Lines file whole into memory, as jansson_parse does, then parses each non-blank
 * line with cJSON_ParseWithLength, checks it is an object, frees it with cJSON_Delete and counts
 * it. cJSON (Debian's libcjson-dev) builds a malloc'd tree per value, as jansson does, and does
 * not check duplicate keys or lone surrogates: it is measured, not used.
 *
 * usage: cjson_parse FILE     prints "<updates>\n"; exit 0 ok, 2 bad input or usage, 1 I/O.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "ci/bench/read_all.h"

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: cjson_parse FILE\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        fprintf(stderr, "cjson_parse: cannot open %s\n", argv[1]);
        return 1;
    }
    char *data = NULL;
    size_t len = 0;
    int read_failed = bench_read_all(f, &data, &len);
    fclose(f);
    if (read_failed) {
        fprintf(stderr, "cjson_parse: cannot read %s\n", argv[1]);
        return 1;
    }
    unsigned long long updates = 0, line = 0;
    int status = 0;
    for (size_t pos = 0; pos < len && status == 0;) {
        const char *start = data + pos;
        const char *nl = memchr(start, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - start) : len - pos;
        pos += n + (nl ? 1 : 0);
        line++;
        size_t blank = 0;
        while (blank < n && (start[blank] == ' ' || start[blank] == '\t' || start[blank] == '\r')) blank++;
        if (blank == n) continue;
        cJSON *root = cJSON_ParseWithLength(start, n);
        if (!root || !cJSON_IsObject(root)) {
            fprintf(stderr, "cjson_parse: %s:%llu: not a JSON object\n", argv[1], line);
            status = 2;
        } else {
            updates++;
        }
        cJSON_Delete(root);
    }
    free(data);
    if (status == 0) {
        printf("%llu\n", updates);
        if (fflush(stdout) != 0) status = 1;
    }
    return status;
}
