/* canon_cmd.c — `turnstile canon`: one JSON value in, its RFC 8785 canonical form out. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/cli/cli.h"
#include "core/json/canon.h"

static const char canon_usage[] =
    "usage: turnstile canon [--no-newline] [--max-input-bytes N] [FILE]\n"
    "\n"
    "Reads one JSON value as I-JSON (RFC 7493) and writes its canonical form (RFC 8785, JCS) on\n"
    "stdout: members sorted by their keys' UTF-16 code units, no whitespace, strings and keys\n"
    "escaped alike and minimally, every number as the double it denotes in ECMAScript form\n"
    "(1e20 -> 100000000000000000000, 9007199254740993 -> 9007199254740992, -0 -> 0). These are\n"
    "the bytes a task key hashes (turnstile taskkey).\n"
    "\n"
    "Like every turnstile command, the output ends with a newline, which is not part of the\n"
    "canonical form; --no-newline writes the canonical bytes alone (to hash them, say).\n"
    "Without FILE, or with '-', stdin is read.\n"
    "\n"
    "Refused: duplicate keys, lone surrogates, invalid UTF-8, NaN and Infinity, numbers beyond\n"
    "the double range, anything that is not one JSON value. Integers beyond int64 are accepted\n"
    "(as doubles, as JSON.parse reads them). Keys holding U+0000 are not supported.\n"
    "\n"
    "options:\n"
    "  --no-newline         no newline after the canonical form\n"
    TS_CLI_MAX_INPUT_HELP
    "  --help               this text\n"
    "\n"
    "exit status: 0 written; 2 input that is not I-JSON (the error names line and column) or\n"
    "bad usage; 1 internal failure. Nothing is written on stdout unless the input was I-JSON.\n";

int ts_cli_canon(int argc, char **argv) {
    const char *path = NULL;
    bool newline = true;
    size_t max_input = TS_CLI_MAX_INPUT_DEFAULT;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(canon_usage, stdout);
            return TS_EXIT_OK;
        } else if (strcmp(argv[i], "--no-newline") == 0) {
            newline = false;
        } else if (strcmp(argv[i], "--max-input-bytes") == 0) {
            if (++i == argc) {
                fprintf(stderr, "turnstile canon: --max-input-bytes needs a value\n");
                return TS_EXIT_USAGE;
            }
            if (!ts_cli_parse_max_input("canon", argv[i], &max_input)) return TS_EXIT_USAGE;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "turnstile canon: unknown option '%s' (see turnstile canon --help)\n", argv[i]);
            return TS_EXIT_USAGE;
        } else if (path) {
            fprintf(stderr, "turnstile canon: one input file at most (see turnstile canon --help)\n");
            return TS_EXIT_USAGE;
        } else {
            path = argv[i];
        }
    }
    char *data = NULL;
    size_t len = 0;
    if (ts_cli_read_input(path, max_input, &data, &len) != 0) return TS_EXIT_USAGE;
    const char *name = (!path || strcmp(path, "-") == 0) ? "stdin" : path;

    int status = TS_EXIT_OK;
    ts_buf out;
    ts_buf_init(&out);
    ts_error err;
    ts_error_clear(&err);
    if (!ts_canon_text(&out, data, len, &err)) {
        char message[600];
        ts_error_format(&err, name, message, sizeof message);
        fprintf(stderr, "turnstile canon: %s\n", message);
        status = ts_cli_exit_for(&err);
    } else {
        if (newline) ts_buf_append_char(&out, '\n');
        if (out.failed || fwrite(out.data, 1, out.len, stdout) != out.len || fflush(stdout) != 0) {
            fprintf(stderr, "turnstile canon: cannot write the canonical form\n");
            status = TS_EXIT_FAILURE;
        }
    }
    free(data);
    ts_buf_free(&out);
    return status;
}
