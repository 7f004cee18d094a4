/* merge_cmd.c — `turnstile merge`: a stream of updates in, the merged response out. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/cli/cli.h"
#include "core/json/codec.h"
#include "core/merge/merger.h"
#include "core/merge/model.h"

static const char merge_usage[] =
    "usage: turnstile merge [options] [FILE]\n"
    "\n"
    "Folds one turn's AgentResponseUpdates into an AgentResponse with the reference merger\n"
    "(rules: conformance/SPEC.md section 3) and writes it as JSON on stdout.\n"
    "\n"
    "FILE holds the updates as JSON Lines, or as concatenated or pretty-printed JSON values\n"
    "(each an update object or an array of them). Without FILE, or with '-', stdin is read.\n"
    "\n"
    "options:\n"
    "  --example            merge the bundled example stream (a two-agent handoff)\n"
    "  --pretty             indent the output (default: one line)\n"
    "  --response-id ID     the turn's ResponseId as a hosting executor assigned it;\n"
    "                       updates without a responseId join it (default: the first one seen)\n"
    "  --help               this text\n"
    "\n"
    "exit status: 0 merged; 2 bad input (the error names line, column and field) or bad usage;\n"
    "1 internal failure. Nothing is written on stdout unless the merge succeeded.\n";

int ts_cli_merge(int argc, char **argv) {
    const char *path = NULL;
    bool pretty = false, example = false;
    ts_merge_options options = {.order = NULL};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(merge_usage, stdout);
            return TS_EXIT_OK;
        } else if (strcmp(argv[i], "--pretty") == 0) {
            pretty = true;
        } else if (strcmp(argv[i], "--example") == 0) {
            example = true;
        } else if (strcmp(argv[i], "--response-id") == 0) {
            if (++i == argc || !argv[i][0]) {
                fprintf(stderr, "turnstile merge: --response-id needs a non-empty value\n");
                return TS_EXIT_USAGE;
            }
            options.primary_response_id = ts_str_from(argv[i]);
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "turnstile merge: unknown option '%s' (see turnstile merge --help)\n", argv[i]);
            return TS_EXIT_USAGE;
        } else if (path) {
            fprintf(stderr, "turnstile merge: one input file at most (see turnstile merge --help)\n");
            return TS_EXIT_USAGE;
        } else {
            path = argv[i];
        }
    }
    if (example && path) {
        fprintf(stderr, "turnstile merge: --example takes no FILE\n");
        return TS_EXIT_USAGE;
    }
    char *data = NULL;
    size_t len = 0;
    const char *name = example ? "example" : (!path || strcmp(path, "-") == 0) ? "stdin" : path;
    if (example) {
        data = malloc(ts_cli_example_stream_len + 1);
        if (!data) return TS_EXIT_FAILURE;
        memcpy(data, ts_cli_example_stream, ts_cli_example_stream_len);
        len = ts_cli_example_stream_len;
    } else if (ts_cli_read_file(path, &data, &len) != 0) {
        return TS_EXIT_USAGE;
    }

    int status = TS_EXIT_OK;
    ts_arena arena;
    ts_arena_init(&arena);
    ts_error err;
    ts_error_clear(&err);
    ts_stream stream;
    ts_response response;
    ts_json json;
    ts_buf out;
    ts_buf_init(&out);
    char message[600];
    bool merged = ts_stream_read(&arena, data, len, &stream, &err) &&
                  ts_merge(&arena, stream.updates, stream.count, &options, &response, &err);
    free(data); /* every string the response needs is in the arena now */
    if (!merged) {
        ts_error_format(&err, name, message, sizeof message);
        fprintf(stderr, "turnstile merge: %s\n", message);
        status = strstr(err.message, "out of memory") ? TS_EXIT_FAILURE : TS_EXIT_USAGE;
    } else if (!ts_response_to_json(&response, &arena, &json) ||
               !ts_codec_write(&out, &json, pretty ? TS_WRITE_PRETTY : TS_WRITE_COMPACT)) {
        fprintf(stderr, "turnstile merge: out of memory while writing the response\n");
        status = TS_EXIT_FAILURE;
    } else {
        ts_buf_append_char(&out, '\n');
        if (out.failed || fwrite(out.data, 1, out.len, stdout) != out.len || fflush(stdout) != 0) {
            fprintf(stderr, "turnstile merge: cannot write the response\n");
            status = TS_EXIT_FAILURE;
        }
    }
    ts_buf_free(&out);
    ts_arena_free(&arena);
    return status;
}
