/* options.c — what every subcommand shares about its command line: `--opt=value` spelled as
 * `--opt value`, words quoted for the shell (the commands turnstile prints), the program's own
 * name as the user can type it, and turnstile's version. See cli.h. */
#define _XOPEN_SOURCE 700 /* realpath */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conformance/cli/cli.h"

#ifndef TURNSTILE_COMMIT
#define TURNSTILE_COMMIT "unknown"
#endif

const char ts_cli_version[] = "0.4.0";
const char ts_cli_commit[] = TURNSTILE_COMMIT;

char **ts_cli_split_equals(int argc, char **argv, int *new_argc) {
    char **out = calloc((size_t)argc * 2 + 1, sizeof *out);
    if (!out) return NULL;
    int n = 0;
    bool options_end = false;
    for (int i = 0; i < argc; i++) {
        char *a = argv[i];
        char *eq = !options_end && i > 0 && a[0] == '-' && a[1] == '-' && a[2] ? strchr(a, '=') : NULL;
        if (!options_end && strcmp(a, "--") == 0) options_end = true;
        if (eq) {
            out[n++] = strndup(a, (size_t)(eq - a));
            out[n++] = strdup(eq + 1);
        } else {
            out[n++] = strdup(a);
        }
        if (!out[n - 1]) {
            ts_cli_free_args(n, out);
            return NULL;
        }
    }
    *new_argc = n;
    return out;
}

void ts_cli_free_args(int argc, char **argv) {
    if (!argv) return;
    for (int i = 0; i < argc; i++) free(argv[i]);
    free(argv);
}

void ts_cli_shell_quote(ts_buf *out, const char *word) {
    bool plain = *word != '\0';
    for (const char *p = word; *p && plain; p++)
        plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./:=@%+,", *p) != NULL;
    if (plain) {
        ts_buf_append_str(out, word);
        return;
    }
    ts_buf_append_char(out, '\'');
    for (const char *p = word; *p; p++) {
        if (*p == '\'') ts_buf_append_str(out, "'\\''");
        else ts_buf_append_char(out, *p);
    }
    ts_buf_append_char(out, '\'');
}

void ts_cli_program(const char *argv0, ts_buf *out) {
    const char *override = getenv("TURNSTILE_PROGRAM"); /* set by wrappers such as ci/turnstile.sh */
    if (override && *override) {
        ts_cli_shell_quote(out, override);
        return;
    }
    if (argv0 && strchr(argv0, '/')) {
        char *absolute = realpath(argv0, NULL);
        ts_cli_shell_quote(out, absolute ? absolute : argv0);
        free(absolute);
        return;
    }
    ts_cli_shell_quote(out, argv0 && *argv0 ? argv0 : "turnstile");
}
