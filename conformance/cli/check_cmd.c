/* check_cmd.c — `turnstile check`: the property checkers on a recorded stream and response. */
#include <stdlib.h>
#include <string.h>

#include "conformance/certifier/report.h"
#include "conformance/checkers/merge/checks.h"
#include "conformance/checkers/merge/host.h"
#include "conformance/checkers/resume/resume_checks.h"
#include "conformance/cli/cli.h"
#include "core/json/codec.h"
#include "core/merge/model.h"
#include "core/merge/reader.h"

static const char check_usage[] =
    "usage: turnstile check --stream S.jsonl --response R.json [--response-id ID]\n"
    "       turnstile check --host --stream EMISSIONS.jsonl --response ANSWER.json\n"
    "       turnstile check --scenario S.json --history H.json [--case ID] [--rule RULE]\n"
    "\n"
    "Runs every conformance checker (conformance/SPEC.md rules) on a recorded pair: the\n"
    "updates a merger received and the response it produced — e.g. captured production traffic.\n"
    "No testee runs. With --host, S holds the agent's emissions and R the host's answer\n"
    "{\"stream\": [...], \"response\": {...}} (PROTOCOL.md host rules).\n"
    "With --history, H is the recorded history of a resume case (the \"history\" of a case in\n"
    "a certify --report-json report; give the report and --case ID, or the history alone), judged\n"
    "again against its scenario S by the universal resume rules (SPEC.md section 6.4): a\n"
    "failure replays without the testee.\n"
    "\n"
    "  --response-id ID   the turn's id as the host named it (I1)\n"
    "  --rule RULE        the case's own rule, charged with error answers (default U2)\n"
    "  --max-input-bytes N  refuse an input longer than N bytes (K, M, G; default 256M; 0: none)\n"
    "  --judge-states N   judging budget: search states beyond one per response group (default\n"
    "                     1000000; 0: no limit)\n"
    "  --judge-seconds S  judging budget: CPU seconds of that search (default 10; 0: no limit)\n"
    "\n"
    "Deciding whether a response's messages are an allowed arrangement of the response groups\n"
    "is NP-complete in general (conformance/checkers/DESIGN.md): when the search for one runs out\n"
    "of its budget the verdict is UNDECIDED, neither a pass nor a failure.\n"
    "\n"
    "exit status: 0 no Required rule violated; 1 violations (listed on stdout); 2 bad input;\n"
    "3 no verdict: the checkers ran out of memory; 4 undecided: no violation found, but judging\n"
    "ran out of its budget before the messages were decided. The last line says which.\n";

/* Prints the findings and the verdict line (it names the exit status's meaning); the exit
 * status. A violation found is a failure even when the judging budget ran out (undecided). */
static int print_findings(const ts_findings *findings, ts_check_status status, const ts_judge_budget *budget) {
    if (status == TS_CHECK_OUT_OF_MEMORY || findings->out_of_memory) {
        fprintf(stderr, "turnstile check: out of memory while checking: no verdict (exit 3)\n");
        printf("NO VERDICT: the checkers ran out of memory\n");
        return TS_EXIT_HARNESS;
    }
    size_t required = 0;
    for (size_t i = 0; i < findings->count; i++) {
        bool is_required = ts_rule_fails(findings->items[i].rule);
        required += is_required;
        ts_buf message; /* findings quote what a testee wrote: no escape reaches the terminal */
        ts_buf_init(&message);
        ts_report_clean_text(&message, findings->items[i].message, strlen(findings->items[i].message), false);
        printf("[%s%s] %.*s\n", findings->items[i].rule, is_required ? "" : ", recommended", (int)message.len,
               message.data ? message.data : "");
        ts_buf_free(&message);
    }
    if (findings->suppressed) printf("(%zu more findings)\n", findings->suppressed);
    bool undecided = status == TS_CHECK_UNDECIDED;
    if (undecided) {
        char why[300];
        ts_judge_budget_describe(budget, why, sizeof why);
        printf("%s\n", why);
    }
    const char *verdict = required ? "FAIL" : undecided ? "UNDECIDED" : "PASS";
    printf("%s: %zu violation%s of Required rules, %zu of Recommended ones%s\n", verdict, required,
           required == 1 ? "" : "s", findings->count - required,
           undecided ? "; the messages' arrangement not decided" : "");
    if (fflush(stdout) != 0) return TS_EXIT_FAILURE;
    return required ? TS_EXIT_FAILURE : undecided ? TS_EXIT_UNDECIDED : TS_EXIT_OK;
}

/* --history: a resume case's recorded history, judged again. */
static int check_history(const char *scenario_path, const char *history_path, const char *case_id, const char *rule,
                         size_t max_input) {
    char *scenario_text = NULL, *history_text = NULL;
    size_t scenario_len, history_len;
    if (ts_cli_read_input(scenario_path, max_input, &scenario_text, &scenario_len) ||
        ts_cli_read_input(history_path, max_input, &history_text, &history_len)) {
        free(scenario_text);
        return TS_EXIT_USAGE;
    }
    ts_arena arena;
    ts_arena_init(&arena);
    ts_error err;
    ts_error_clear(&err);
    ts_json scenario_json, history;
    ts_scenario scenario;
    char message[700];
    int status = TS_EXIT_USAGE;
    if (!ts_codec_parse(&arena, scenario_text, scenario_len, &scenario_json, &err) ||
        !ts_scenario_from_json(&scenario_json, &arena, &scenario, &err)) {
        ts_error_format(&err, scenario_path, message, sizeof message);
        fprintf(stderr, "turnstile check: %s\n", message);
    } else if (!ts_codec_parse(&arena, history_text, history_len, &history, &err)) {
        ts_error_format(&err, history_path, message, sizeof message);
        fprintf(stderr, "turnstile check: %s\n", message);
    } else {
        const ts_json *h = &history, *cases = ts_json_get(&history, "cases");
        for (size_t i = 0; cases && cases->kind == TS_JSON_ARRAY && i < cases->u.a.count; i++) /* a report */
            if (case_id && ts_str_eq_cstr(ts_json_string(ts_json_get(&cases->u.a.items[i], "id")), case_id))
                h = ts_json_get(&cases->u.a.items[i], "history");
        if (h && ts_json_get(h, "history")) h = ts_json_get(h, "history"); /* a report's case */
        ts_str recorded = ts_json_string(ts_json_get(h, "case"));
        if (!h || !ts_json_get(h, "runs")) {
            fprintf(stderr, "turnstile check: %s: no resume history%s%s (give a history, or a report and --case ID)\n",
                    history_path, case_id ? " for case " : "", case_id ? case_id : "");
        } else if (case_id && recorded.ptr && !ts_str_eq_cstr(recorded, case_id)) {
            fprintf(stderr, "turnstile check: %s: the history of case %.*s, not of %s\n", history_path,
                    (int)(recorded.len > 200 ? 200 : recorded.len), recorded.ptr, case_id);
        } else if (!ts_resume_history_fits(&scenario, h, message, sizeof message)) {
            fprintf(stderr, "turnstile check: %s: not a history of the scenario %s: %s\n", history_path, scenario_path,
                    message);
        } else {
            ts_findings findings;
            ts_findings_init(&findings);
            bool ok = ts_check_resume(&scenario, h, rule, &findings);
            status = print_findings(&findings, ok ? TS_CHECK_DECIDED : TS_CHECK_OUT_OF_MEMORY, NULL);
            ts_findings_free(&findings);
        }
    }
    ts_arena_free(&arena);
    free(scenario_text);
    free(history_text);
    return status;
}

/* Folds the updates of path ("-": stdin), read in windows, into check. TS_EXIT_OK, or prints the
 * error as reading the file whole would name it (line, column and field; an input over the bound;
 * an empty stream) and returns the exit status. */
static int feed_stream(const char *path, size_t max_input, ts_merge_check *check) {
    const char *name = path ? path : "-";
    FILE *file = ts_cli_open_input(path);
    if (!file) return TS_EXIT_USAGE;
    ts_update_reader *reader = ts_update_reader_open_file(file, max_input);
    ts_error err;
    ts_error_clear(&err);
    ts_update update;
    size_t count = 0;
    int got = reader ? 0 : -1, status = TS_EXIT_OK;
    bool fed = true;
    while (reader && fed && (got = ts_update_reader_next(reader, NULL, &update, &err)) == 1) {
        count++;
        fed = ts_check_merge_add(check, &update);
    }
    bool over_bound = got < 0 && reader && max_input && err.line == 0 && ts_update_reader_bytes_read(reader) > max_input;
    ts_update_reader_close(reader);
    if (file != stdin) fclose(file);
    char message[700];
    if (!reader || !fed || (got < 0 && err.code == TS_ERR_NOMEM)) {
        fprintf(stderr, "turnstile check: %s: out of memory\n", name);
        status = TS_EXIT_FAILURE;
    } else if (over_bound) {
        fprintf(stderr, "turnstile: %s: longer than %zu bytes, the input limit (--max-input-bytes)\n", name, max_input);
        status = TS_EXIT_USAGE;
    } else if (got < 0 || count == 0) {
        if (count == 0 && got == 0) {
            ts_error_clear(&err);
            ts_error_set(&err, TS_ERR_INPUT, "the stream holds no update (an empty input, or only empty arrays)");
        }
        ts_error_format(&err, name, message, sizeof message);
        fprintf(stderr, "turnstile check: %s\n", message);
        status = TS_EXIT_USAGE;
    }
    return status;
}

/* --host: the agent's emissions and the host's answer {stream, response}, both held whole. */
static int check_host(const char *stream_path, const char *response_path, size_t max_input, const ts_judge_budget *budget) {
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
        ts_check_status checked = ts_check_host(stream.updates, stream.count, ts_json_get(&answer, "stream"),
                                                ts_json_get(&answer, "response"), false, budget, &findings);
        status = print_findings(&findings, checked, budget);
        ts_findings_free(&findings);
    }
    ts_arena_free(&arena);
    free(stream_text);
    free(response_text);
    return status;
}

/* The merge check: the response first (its values are what the stream is searched for: I1,
 * R3, R4), then the stream, read in windows and folded into the check: never held whole. */
static int check_merge_files(const char *stream_path, const char *response_path, const char *response_id,
                             size_t max_input, const ts_judge_budget *budget) {
    char *response_text = NULL;
    size_t response_len;
    if (ts_cli_read_input(response_path, max_input, &response_text, &response_len)) return TS_EXIT_USAGE;
    ts_arena arena;
    ts_arena_init(&arena);
    ts_error err;
    ts_error_clear(&err);
    ts_json answer;
    int status = TS_EXIT_OK;
    char message[700];
    bool parsed = ts_codec_parse(&arena, response_text, response_len, &answer, &err);
    free(response_text); /* the parsed answer holds copies of its strings */
    if (!parsed) {
        ts_error_format(&err, response_path, message, sizeof message);
        fprintf(stderr, "turnstile check: %s\n", message);
        status = TS_EXIT_USAGE;
    } else {
        ts_merge_check *check = ts_check_merge_begin(ts_str_from(response_id), &answer);
        status = check ? feed_stream(stream_path, max_input, check) : TS_EXIT_FAILURE;
        if (!check) fprintf(stderr, "turnstile check: out of memory\n");
        if (status == TS_EXIT_OK) {
            ts_findings findings;
            ts_findings_init(&findings);
            ts_check_status checked = ts_check_merge_finish(check, budget, &findings);
            status = print_findings(&findings, checked, budget);
            ts_findings_free(&findings);
        } else {
            ts_check_merge_abandon(check);
        }
    }
    ts_arena_free(&arena);
    return status;
}

int ts_cli_check(int argc, char **argv) {
    const char *stream_path = NULL, *response_path = NULL, *response_id = NULL;
    const char *scenario_path = NULL, *history_path = NULL, *case_id = NULL, *rule = "U2";
    bool host = false;
    size_t max_input = TS_CLI_MAX_INPUT_DEFAULT;
    ts_judge_budget budget = {0, 0};
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
        } else if (!strcmp(argv[i], "--judge-states") && i + 1 < argc) {
            if (!ts_cli_parse_judge_states("check", argv[++i], &budget)) return TS_EXIT_USAGE;
        } else if (!strcmp(argv[i], "--judge-seconds") && i + 1 < argc) {
            if (!ts_cli_parse_judge_seconds("check", argv[++i], &budget)) return TS_EXIT_USAGE;
        } else if (!strcmp(argv[i], "--scenario") && i + 1 < argc) {
            scenario_path = argv[++i];
        } else if (!strcmp(argv[i], "--history") && i + 1 < argc) {
            history_path = argv[++i];
        } else if (!strcmp(argv[i], "--case") && i + 1 < argc) {
            case_id = argv[++i];
        } else if (!strcmp(argv[i], "--rule") && i + 1 < argc) {
            rule = argv[++i];
            if (!ts_rule_find(rule)) {
                fprintf(stderr, "turnstile check: no rule '%s' (rules: see conformance/SPEC.md)\n", rule);
                return TS_EXIT_USAGE;
            }
        } else {
            fprintf(stderr, "turnstile check: unknown argument '%s' (see turnstile check --help)\n", argv[i]);
            return TS_EXIT_USAGE;
        }
    }
    if (scenario_path || history_path) {
        if (!scenario_path || !history_path) {
            fprintf(stderr, "turnstile check: --scenario and --history go together\n");
            return TS_EXIT_USAGE;
        }
        return check_history(scenario_path, history_path, case_id, rule, max_input);
    }
    if (!stream_path || !response_path) {
        fprintf(stderr, "turnstile check: --stream and --response are both required\n");
        return TS_EXIT_USAGE;
    }
    if (host) return check_host(stream_path, response_path, max_input, &budget);
    return check_merge_files(stream_path, response_path, response_id, max_input, &budget);
}
