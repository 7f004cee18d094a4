/* check_cmd.c — `turnstile check`: the property checkers on a recorded stream and response. */
#include <stdlib.h>
#include <string.h>

#include "conformance/checkers/checks.h"
#include "conformance/cli/cli.h"
#include "core/json/codec.h"
#include "core/merge/model.h"

static const char check_usage[] =
    "usage: turnstile check --stream S.jsonl --response R.json [--response-id ID]\n"
    "       turnstile check --host --stream EMISSIONS.jsonl --response ANSWER.json\n"
    "\n"
    "Runs every conformance checker (conformance/SPEC.md rules) on a recorded pair: the\n"
    "updates a merger received and the response it produced — e.g. captured production traffic.\n"
    "No testee runs. With --host, S holds the agent's emissions and R the host's answer\n"
    "{\"stream\": [...], \"response\": {...}} (PROTOCOL.md host rules).\n"
    "\n"
    "  --response-id ID   the turn's id as the host named it (I1)\n"
    "  --max-input-bytes N  refuse an input longer than N bytes (K, M, G; default 256M; 0: none)\n"
    "\n"
    "exit status: 0 no Required rule violated; 1 violations (listed on stdout); 2 bad input.\n";

int ts_cli_check(int argc, char **argv) {
    const char *stream_path = NULL, *response_path = NULL, *response_id = NULL;
    bool host = false;
    size_t max_input = TS_CLI_MAX_INPUT_DEFAULT;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(check_usage, stdout);
            return TS_EXIT_OK;
        } else if (!strcmp(argv[i], "--host")) {
            host = true;
        } else if (!strcmp(argv[i], "--stream") && i + 1 < argc) {
            stream_path = argv[++i];
        } else if (!strcmp(argv[i], "--response") && i + 1 < argc) {
            response_path = argv[++i];
        } else if (!strcmp(argv[i], "--response-id") && i + 1 < argc) {
            response_id = argv[++i];
        } else if (!strcmp(argv[i], "--max-input-bytes") && i + 1 < argc) {
            if (!ts_cli_parse_max_input("check", argv[++i], &max_input)) return TS_EXIT_USAGE;
        } else {
            fprintf(stderr, "turnstile check: unknown argument '%s' (see turnstile check --help)\n", argv[i]);
            return TS_EXIT_USAGE;
        }
    }
    if (!stream_path || !response_path) {
        fprintf(stderr, "turnstile check: --stream and --response are both required\n");
        return TS_EXIT_USAGE;
    }
    char *stream_text = NULL, *response_text = NULL;
    size_t stream_len, response_len;
    if (ts_cli_read_input(stream_path, max_input, &stream_text, &stream_len) ||
        ts_cli_read_input(response_path, max_input, &response_text, &response_len)) {
        free(stream_text);
        return TS_EXIT_USAGE;
    }
    ts_arena arena;
    ts_arena_init(&arena);
    ts_error err;
    ts_error_clear(&err);
    ts_stream stream;
    ts_json answer;
    int status = TS_EXIT_OK;
    char message[700];
    if (!ts_stream_read(&arena, stream_text, stream_len, &stream, &err)) {
        ts_error_format(&err, stream_path, message, sizeof message);
        fprintf(stderr, "turnstile check: %s\n", message);
        status = TS_EXIT_USAGE;
    } else if (!ts_codec_parse(&arena, response_text, response_len, &answer, &err)) {
        ts_error_format(&err, response_path, message, sizeof message);
        fprintf(stderr, "turnstile check: %s\n", message);
        status = TS_EXIT_USAGE;
    } else {
        ts_findings findings;
        ts_findings_init(&findings);
        bool ok = host ? ts_check_host(stream.updates, stream.count, ts_json_get(&answer, "stream"),
                                       ts_json_get(&answer, "response"), false, &findings)
                       : ts_check_merge(stream.updates, stream.count, ts_str_from(response_id), &answer, &findings);
        size_t required = 0;
        for (size_t i = 0; i < findings.count; i++) {
            const ts_rule_info *info = ts_rule_find(findings.items[i].rule);
            bool is_required = !info || info->level == TS_LEVEL_REQUIRED;
            required += is_required;
            printf("[%s%s] %s\n", findings.items[i].rule, is_required ? "" : ", recommended", findings.items[i].message);
        }
        if (findings.suppressed) printf("(%zu more findings)\n", findings.suppressed);
        printf("%s: %zu violation%s of Required rules, %zu of Recommended ones\n", required ? "FAIL" : "PASS", required,
               required == 1 ? "" : "s", findings.count - required);
        status = !ok ? TS_EXIT_FAILURE : required ? TS_EXIT_FAILURE : TS_EXIT_OK;
        ts_findings_free(&findings);
    }
    ts_arena_free(&arena);
    free(stream_text);
    free(response_text);
    return status;
}
