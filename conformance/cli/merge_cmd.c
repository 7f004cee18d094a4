/* merge_cmd.c — `turnstile merge`: a stream of updates in, the merged response out. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/cli/cli.h"
#include "core/json/codec.h"
#include "core/merge/merger.h"
#include "core/merge/model.h"
#include "core/merge/reader.h"

static const char merge_usage[] =
    "usage: turnstile merge [options] [FILE]\n"
    "\n"
    "Folds one turn's AgentResponseUpdates into an AgentResponse with the reference merger\n"
    "(rules: conformance/SPEC.md section 3) and writes it as JSON on stdout.\n"
    "\n"
    "FILE holds the updates as JSON Lines, or as concatenated or pretty-printed JSON values\n"
    "(each an update object or an array of them). Without FILE, or with '-', stdin is read.\n"
    "The input is read as it comes and each update folded in: memory follows the response,\n"
    "not the input.\n"
    "\n"
    "options:\n"
    "  --example            merge the bundled example stream (a two-agent handoff)\n"
    "  --pretty             indent the output (default: one line)\n"
    "  --response-id ID     the turn's ResponseId as a hosting executor assigned it;\n"
    "                       updates without a responseId join it (default: the first one seen)\n"
    TS_CLI_MAX_INPUT_HELP
    "  --help               this text\n"
    "\n"
    "exit status: 0 merged; 2 bad input (the error names line, column and field) or bad usage;\n"
    "1 internal failure. Nothing is written on stdout unless the merge succeeded.\n";

/* Reads every update from `reader` and folds it into `merger`. A merge failure (a usage sum
 * overflow) is kept while the rest is still read, so that an input error anywhere comes first,
 * as it would if the input were read whole before merging. Returns an exit status and fills err. */
static int fold_all(ts_update_reader *reader, ts_merger *merger, size_t max_input, ts_error *err) {
    ts_error merge_err;
    ts_error_clear(&merge_err);
    bool merge_failed = false;
    size_t count = 0;
    ts_update update;
    int got;
    while ((got = ts_update_reader_next(reader, NULL, &update, err)) == 1) {
        count++;
        if (merge_failed) continue;
        if (!ts_merger_add(merger, &update, &merge_err)) {
            if (merge_err.code == TS_ERR_NOMEM) {
                *err = merge_err;
                return TS_EXIT_FAILURE;
            }
            merge_failed = true;
            ts_update_reader_locate(reader, "", &merge_err); /* the update that overflowed */
        }
    }
    if (got < 0) {
        static const char hint[] = " (--max-input-bytes)";
        size_t len = strlen(err->message);
        if (max_input && err->line == 0 && ts_update_reader_bytes_read(reader) > max_input &&
            len + sizeof hint <= sizeof err->message)
            memcpy(err->message + len, hint, sizeof hint);
        return ts_cli_exit_for(err);
    }
    if (count == 0) {
        ts_error_clear(err);
        ts_error_set(err, TS_ERR_INPUT, "the stream holds no update (an empty input, or only empty arrays)");
        return TS_EXIT_USAGE;
    }
    if (merge_failed) {
        *err = merge_err;
        return TS_EXIT_USAGE;
    }
    return TS_EXIT_OK;
}

int ts_cli_merge(int argc, char **argv) {
    const char *path = NULL;
    bool pretty = false, example = false;
    size_t max_input = TS_CLI_MAX_INPUT_DEFAULT;
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
        } else if (strcmp(argv[i], "--max-input-bytes") == 0) {
            if (++i == argc || !ts_cli_parse_max_input("merge", argv[i], &max_input)) {
                if (i == argc) fprintf(stderr, "turnstile merge: --max-input-bytes needs a value\n");
                return TS_EXIT_USAGE;
            }
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
    const char *name = example ? "example" : (!path || strcmp(path, "-") == 0) ? "stdin" : path;
    FILE *file = NULL;
    if (!example && !(file = ts_cli_open_input(path))) return TS_EXIT_USAGE;

    ts_arena arena;
    ts_arena_init(&arena);
    ts_update_reader *reader = example ? ts_update_reader_open_memory((const char *)ts_cli_example_stream,
                                                                      ts_cli_example_stream_len)
                                       : ts_update_reader_open_file(file, max_input);
    ts_merger *merger = ts_merger_new(&arena, &options, true);
    ts_error err;
    ts_error_clear(&err);
    char message[600];
    int status = reader && merger ? fold_all(reader, merger, max_input, &err) : TS_EXIT_FAILURE;
    ts_update_reader_close(reader);
    if (file && file != stdin) fclose(file);
    if (!reader || !merger) {
        fprintf(stderr, "turnstile merge: out of memory\n");
    } else if (status != TS_EXIT_OK) {
        ts_error_format(&err, name, message, sizeof message);
        fprintf(stderr, "turnstile merge: %s\n", message);
    } else {
        /* The response is written as it is formed; nothing is written unless the merge succeeded. */
        int written = ts_merger_finish_to_file(merger, stdout, pretty ? TS_WRITE_PRETTY : TS_WRITE_COMPACT, "\n", &err);
        if (written == 0 && fflush(stdout) != 0) written = 1;
        if (written < 0) {
            ts_error_format(&err, name, message, sizeof message);
            fprintf(stderr, "turnstile merge: %s\n", message);
            status = ts_cli_exit_for(&err);
        } else if (written > 0) {
            fprintf(stderr, "turnstile merge: cannot write the response\n");
            status = TS_EXIT_FAILURE;
        }
    }
    ts_merger_free(merger);
    ts_arena_free(&arena);
    return status;
}
