/* io.c — opening and reading the CLI's inputs, within a bound; see cli.h. */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conformance/cli/cli.h"

bool ts_cli_parse_max_input(const char *command, const char *text, size_t *out) {
    const char *p = text;
    uint64_t value = 0;
    bool digits = false;
    for (; *p >= '0' && *p <= '9'; p++, digits = true) {
        if (value > (UINT64_MAX - 9) / 10) break;
        value = value * 10 + (uint64_t)(*p - '0');
    }
    unsigned shift = 0;
    if (*p == 'K' || *p == 'k') shift = 10, p++;
    else if (*p == 'M' || *p == 'm') shift = 20, p++;
    else if (*p == 'G' || *p == 'g') shift = 30, p++;
    if (!digits || *p || value > (SIZE_MAX >> shift)) {
        fprintf(stderr, "turnstile %s: --max-input-bytes takes a size in bytes (e.g. 1000000, 512K, 256M, 2G), not '%s'\n",
                command, text);
        return false;
    }
    *out = (size_t)(value << shift);
    return true;
}

FILE *ts_cli_open_input(const char *path) {
    if (!path || strcmp(path, "-") == 0) return stdin;
    FILE *f = fopen(path, "rb");
    struct stat st;
    if (f && fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
        fclose(f);
        f = NULL;
        errno = EISDIR;
    }
    if (!f) fprintf(stderr, "turnstile: %s: %s\n", path, strerror(errno));
    return f;
}

int ts_cli_read_input(const char *path, size_t max_bytes, char **data, size_t *len) {
    bool use_stdin = !path || strcmp(path, "-") == 0;
    const char *name = use_stdin ? "stdin" : path;
    FILE *f = ts_cli_open_input(path);
    if (!f) return 1;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    bool too_long = false;
    int read_errno = 0;
    while (buf) {
        if (n + 1 >= cap) {
            char *grown = cap <= SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
            if (!grown) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = grown;
            cap *= 2;
        }
        size_t want = cap - n - 1;
        if (max_bytes && want > max_bytes - n + 1) want = max_bytes - n + 1; /* one byte past the bound */
        errno = 0;
        size_t got = fread(buf + n, 1, want, f);
        n += got;
        if (max_bytes && n > max_bytes) {
            too_long = true;
            break;
        }
        if (got < want) {
            if (ferror(f)) read_errno = errno ? errno : EIO;
            break;
        }
    }
    if (!use_stdin) fclose(f);
    if (!buf || too_long || read_errno) {
        if (!buf)
            fprintf(stderr, "turnstile: %s: out of memory\n", name);
        else if (too_long)
            fprintf(stderr, "turnstile: %s: longer than %zu bytes, the input limit (--max-input-bytes)\n", name, max_bytes);
        else
            fprintf(stderr, "turnstile: %s: %s\n", name, strerror(read_errno));
        free(buf);
        return 1;
    }
    buf[n] = '\0';
    *data = buf;
    *len = n;
    return 0;
}

int ts_cli_exit_for(const ts_error *err) {
    switch (err->code) {
    case TS_ERR_INPUT:
    case TS_ERR_IO: return TS_EXIT_USAGE;
    case TS_OK: /* a failure that set no code is a bug of ours, never the user's input */
    case TS_ERR_NOMEM:
    case TS_ERR_REFUSED: break;
    }
    return TS_EXIT_FAILURE;
}
