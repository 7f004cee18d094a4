/* gen_cmd.c — `turnstile gen`: the fuzzers' adversarial stream generator for anyone's tests. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conformance/cli/cli.h"
#include "core/json/buf.h"
#include "core/testing/gen.h"

static const char gen_usage[] =
    "usage: turnstile gen [--seed N] [--count K] [--out DIR] [--shape NAME]\n"
    "\n"
    "Writes adversarial AgentResponseUpdate streams (JSON Lines) from the structure-aware\n"
    "generator the fuzz targets use: mixed, equal, missing, far and offset-shifted createdAt;\n"
    "null and foreign responseIds; interleaved agents; reused and missing messageIds; role\n"
    "changes; split function calls; dangling usage and finish reasons; unknown contents;\n"
    "unicode. The same seed always gives the same streams.\n"
    "\n"
    "  --seed N    the seed, a whole number from 0 to 18446744073709551615 (default 1)\n"
    "  --count K   how many streams, 1 to 1000000 (default 1)\n"
    "  --out DIR   write DIR/stream-<seed>-<i>.jsonl; without it, one stream (K=1) to stdout\n"
    "  --shape S   default (the above); lookalike-tagged: response groups of 1-7 identical or\n"
    "              nearly identical messages, mostly without ids or createdAt; partition-tagged:\n"
    "              groups of identical messages shaped like the 3-PARTITION reduction of\n"
    "              conformance/checkers/DESIGN.md. Tagged: every update with content carries\n"
    "              additionalProperties {\"group\": ID}, which reveals its group, so turnstile\n"
    "              check decides an answer to them on a straight path. lookalike and partition\n"
    "              leave the tag out: answers to those may take the checkers' search, and may come\n"
    "              out undecided (turnstile check --help); agent-turn: one multi-agent turn\n"
    "              of handoffs, sub-agents fanned out and interleaved, and regenerated answers\n";

enum { MAX_COUNT = 1000000 };

int ts_cli_gen(int argc, char **argv) {
    unsigned long long seed = 1, count = 1;
    const char *out_dir = NULL;
    ts_gen_shape shape = TS_GEN_DEFAULT;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(gen_usage, stdout);
            return TS_EXIT_OK;
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            if (!ts_cli_parse_whole("gen", "--seed", argv[++i], 0, UINT64_MAX, &seed)) return TS_EXIT_USAGE;
        } else if (!strcmp(argv[i], "--count") && i + 1 < argc) {
            if (!ts_cli_parse_whole("gen", "--count", argv[++i], 1, MAX_COUNT, &count)) return TS_EXIT_USAGE;
        } else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
            out_dir = argv[++i];
        } else if (!strcmp(argv[i], "--shape") && i + 1 < argc) {
            if (!ts_gen_shape_find(argv[++i], &shape)) {
                fprintf(stderr, "turnstile gen: no shape '%s' (default, lookalike, partition, lookalike-tagged, "
                                "partition-tagged)\n",
                        argv[i]);
                return TS_EXIT_USAGE;
            }
        } else {
            fprintf(stderr, "turnstile gen: unknown argument or missing value '%s' (see turnstile gen --help)\n",
                    argv[i]);
            return TS_EXIT_USAGE;
        }
    }
    if (!out_dir && count != 1) {
        fprintf(stderr, "turnstile gen: more than one stream needs --out DIR\n");
        return TS_EXIT_USAGE;
    }
    if (out_dir && mkdir(out_dir, 0777) != 0 && errno != EEXIST) {
        fprintf(stderr, "turnstile gen: cannot create %s: %s\n", out_dir, strerror(errno));
        return TS_EXIT_USAGE;
    }
    ts_buf stream;
    ts_buf_init(&stream);
    for (unsigned long long i = 0; i < count; i++) {
        uint8_t bytes[1024];
        ts_gen_seed_bytes(seed, i, bytes, sizeof bytes);
        ts_buf_reset(&stream);
        ts_gen_stream_shaped(shape, bytes, sizeof bytes, &stream);
        FILE *f = stdout;
        char path[4096];
        if (out_dir) {
            snprintf(path, sizeof path, "%s/stream-%llu-%llu.jsonl", out_dir, seed, i);
            f = fopen(path, "w");
            if (!f) {
                fprintf(stderr, "turnstile gen: cannot write %s: %s\n", path, strerror(errno));
                ts_buf_free(&stream);
                return TS_EXIT_FAILURE;
            }
        }
        if (stream.failed) {
            fprintf(stderr, "turnstile gen: out of memory\n");
            if (out_dir) fclose(f);
            ts_buf_free(&stream);
            return TS_EXIT_FAILURE;
        }
        bool ok = fwrite(stream.data, 1, stream.len, f) == stream.len;
        int error = ok ? 0 : errno;
        if (out_dir && fclose(f) != 0 && ok) ok = false, error = errno;
        if (!ok) { /* standard output's failures are reported at exit (main.c) */
            if (out_dir) fprintf(stderr, "turnstile gen: cannot write %s: %s\n", path, strerror(error));
            ts_buf_free(&stream);
            return TS_EXIT_FAILURE;
        }
    }
    ts_buf_free(&stream);
    return TS_EXIT_OK;
}
