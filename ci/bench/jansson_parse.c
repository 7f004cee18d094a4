/* jansson_parse.c — the parse-only peer of `turnstile merge` for ci/bench/merge_bench.sh.
 *
 * Reads a JSON Lines file (or stdin) whole into memory, as `turnstile merge` does, then parses
 * each non-blank line with jansson's json_loadb under the flags turnstile's codec uses
 * (JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL), checks it is an object, frees it with json_decref
 * and counts it. No model, no merge, no output but the count: this is the floor under
 * turnstile's merge, which parses with the same library before doing anything else.
 *
 * usage: jansson_parse [FILE|-]   prints "<updates>\n"; exit 0 ok, 2 bad input or usage, 1 I/O.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "ci/bench/read_all.h"

static int blank(const char *p, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t' && p[i] != '\r') return 0;
    return 1;
}

int main(int argc, char **argv) {
    if (argc > 2) {
        fprintf(stderr, "usage: jansson_parse [FILE|-]\n");
        return 2;
    }
    const char *path = argc == 2 ? argv[1] : "-";
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "jansson_parse: cannot open %s: %s\n", path, strerror(errno));
        return 2;
    }
    char *data = NULL;
    size_t len = 0;
    int rc = bench_read_all(f, &data, &len);
    if (f != stdin) fclose(f);
    if (rc != 0) {
        fprintf(stderr, "jansson_parse: cannot read %s\n", path);
        return 1;
    }

    const size_t flags = JSON_REJECT_DUPLICATES | JSON_ALLOW_NUL;
    unsigned long long updates = 0, line = 0;
    size_t pos = 0;
    int status = 0;
    while (pos < len) {
        const char *start = data + pos;
        const char *nl = memchr(start, '\n', len - pos);
        size_t n = nl ? (size_t)(nl - start) : len - pos;
        pos += n + (nl ? 1 : 0);
        line++;
        if (blank(start, n)) continue;
        json_error_t jerr;
        json_t *root = json_loadb(start, n, flags, &jerr);
        if (!root) {
            fprintf(stderr, "jansson_parse: %s:%llu:%d: %s\n", path, line, jerr.column, jerr.text);
            status = 2;
            break;
        }
        int is_object = json_is_object(root);
        json_decref(root);
        if (!is_object) {
            fprintf(stderr, "jansson_parse: %s:%llu: not a JSON object\n", path, line);
            status = 2;
            break;
        }
        updates++;
    }
    free(data);
    if (status == 0) {
        printf("%llu\n", updates);
        if (fflush(stdout) != 0) status = 1;
    }
    return status;
}
