/* io.c — reading whole inputs for the CLI; see cli.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/cli/cli.h"

int ts_cli_read_file(const char *path, char **data, size_t *len) {
    bool use_stdin = !path || strcmp(path, "-") == 0;
    FILE *f = use_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "turnstile: %s: %s\n", path, strerror(errno));
        return 1;
    }
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 >= cap) {
            char *grown = realloc(buf, cap * 2);
            if (!grown) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
            cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) break;
    }
    int failed = !buf || ferror(f);
    if (!use_stdin) fclose(f);
    if (failed) {
        fprintf(stderr, "turnstile: %s: %s\n", use_stdin ? "stdin" : path, buf ? "read error" : "out of memory");
        free(buf);
        return 1;
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return 0;
}
