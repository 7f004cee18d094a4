/* differential.c — fuzz target: generator -> a third-party testee over the certifier's pipe
 * protocol -> every conformance checker on its answer.
 *
 * The first input byte chooses the op: odd bytes send the stream as a hosting executor's
 * `host` request (the emissions of one turn; PROTOCOL.md H1-H5), even ones as `merge`.
 * The testee is the command in $TURNSTILE_TESTEE (run with /bin/sh -c, kept running across
 * inputs, restarted if it dies), or the built-in mutant named by $TURNSTILE_TESTEE_MUTANT, or
 * by default the reference itself. A violated Required rule — or a crash, hang, garbage or a
 * rejected (valid) stream — is a finding: the stream is minimised by delta reduction (drop
 * updates, then contents, while the same rule still fails), written as a ready-to-add
 * conformance case (<id>.input.jsonl, <id>.expected.json with the reference's answer, and its
 * entry in MANIFEST.json, updated under a lock) into $TURNSTILE_FINDINGS_DIR (default "."), so
 * `turnstile certify --suite DIR -- COMMAND` replays every finding with no hand editing; and the
 * target aborts so the engine records the crash.
 *
 * Rules a team already knows it breaks do not stop the run:
 *   $TURNSTILE_EXPECTED_FAILURES=FILE  every rule an entry of that expected-failures list names
 *                                      (gate.h; its rule pattern, whatever its case) is ignored
 *   $TURNSTILE_RULES=I2,O3             only these rules count
 *   $TURNSTILE_SKIP_RULES=O1,O3        these rules do not count
 * An answer is a finding when it violates a Required rule that still counts (the first such).
 *   $TURNSTILE_KEEP_GOING=1            write each finding and go on instead of aborting, so one
 *                                      run collects many cases
 */
#include <fnmatch.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/certifier/gate.h"
#include "conformance/certifier/suite.h"
#include "conformance/checkers/merge/checks.h"
#include "conformance/checkers/merge/host.h"
#include "core/json/codec.h"
#include "core/merge/host.h"
#include "core/merge/merger.h"
#include "fuzz/finding_case.h"
#include "fuzz/fuzz_testee.h"
#include "core/testing/gen.h"
#include "fuzz/oracle.h"

static ts_expected_failures known; /* $TURNSTILE_EXPECTED_FAILURES, read once */
static bool known_loaded;

/* Does a violation of rule count as a finding (not a rule the team knows it breaks)? */
static bool rule_counts(const char *rule) {
    if (!known_loaded) {
        known_loaded = true;
        const char *path = getenv("TURNSTILE_EXPECTED_FAILURES");
        char why[600];
        if (path && *path && !ts_expected_failures_load(path, &known, why, sizeof why)) ts_oracle_fail(why, NULL, 0);
    }
    const char *only = getenv("TURNSTILE_RULES");
    if (only && *only && !ts_finding_rule_listed(only, rule, strlen(rule))) return false;
    if (ts_finding_rule_listed(getenv("TURNSTILE_SKIP_RULES"), rule, strlen(rule))) return false;
    for (size_t i = 0; i < known.count; i++)
        if (fnmatch(known.entries[i].rule_pattern, rule, 0) == 0) return false;
    return true;
}

typedef struct verdict {
    const char *rule;   /* the first Required rule violated, or a harness outcome; NULL: fine */
    char message[600];
} verdict;

static bool host_op; /* this input's op (set per input) */

/* Is `response` exactly the reference's answer to the stream (the same value, members in the
 * same order, numbers of the same kind)? Then every checker's verdict on it is its verdict on
 * the reference's answer, which merge_structured and the golden cases hold to no Required
 * finding: the exact decision runs only for an answer that differs, which is every answer a
 * mutant gets wrong, so no finding is lost. */
static bool is_reference_answer(ts_arena *arena, const ts_stream *stream, const ts_json *response) {
    ts_response reference;
    ts_json json;
    ts_error err;
    return response && ts_merge(arena, stream->updates, stream->count, NULL, &reference, &err) &&
           ts_response_to_json(&reference, arena, &json) && ts_json_identical(&json, response);
}

/* Sends updates[0..n) (JSON values) to the testee and judges its answer. */
static void ask(const ts_json *values, size_t n, verdict *v) {
    v->rule = NULL;
    v->message[0] = '\0';
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json array = {TS_JSON_ARRAY, {.a = {(ts_json *)values, n}}};
    ts_stream stream;
    ts_error err;
    if (!ts_stream_from_array(&arena, &array, "updates", &stream, &err)) ts_oracle_fail("a generated update is invalid", NULL, 0);
    ts_buf request, answer;
    ts_buf_init(&request);
    ts_buf_init(&answer);
    ts_buf_append_str(&request, host_op ? "{\"id\":\"fuzz\",\"op\":\"host\",\"emissions\":"
                                        : "{\"id\":\"fuzz\",\"op\":\"merge\",\"updates\":");
    ts_codec_write(&request, &array, TS_WRITE_COMPACT);
    ts_buf_append_char(&request, '}');
    ts_call_result call;
    ts_testee_call(ts_fuzz_testee(5.0), request.data, request.len, &answer, &call);
    ts_json reply;
    if (call.status != TS_CALL_ANSWERED) {
        if (!rule_counts("W3")) goto done;
        v->rule = "harness";
        snprintf(v->message, sizeof v->message, "%s: %s", ts_call_status_name(call.status), call.detail);
    } else if (!ts_codec_parse(&arena, answer.data ? answer.data : "", answer.len, &reply, &err) ||
               !ts_str_eq_cstr(ts_json_string(ts_json_get(&reply, "id")), "fuzz")) {
        if (!rule_counts("W3")) goto done;
        v->rule = "harness";
        snprintf(v->message, sizeof v->message, "protocol error: %.200s", answer.data ? answer.data : "");
    } else if (ts_json_get(&reply, "unsupported")) {
        /* nothing to compare */
    } else if (host_op) {
        ts_findings findings;
        ts_findings_init(&findings);
        ts_check_host(stream.updates, stream.count, ts_json_get(&reply, "stream"), ts_json_get(&reply, "response"),
                      ts_json_get(&reply, "error") != NULL, NULL, &findings); /* undecided: the findings of the rest */
        for (size_t i = 0; i < findings.count && !v->rule; i++) {
            const ts_rule_info *info = ts_rule_find(findings.items[i].rule);
            if (!ts_rule_fails(findings.items[i].rule) || !rule_counts(info ? info->id : "H4")) continue;
            v->rule = info ? info->id : "H4";
            snprintf(v->message, sizeof v->message, "%s", findings.items[i].message);
        }
        ts_findings_free(&findings);
    } else if (ts_json_get(&reply, "error")) {
        if (!rule_counts("W3")) goto done;
        v->rule = "W3";
        snprintf(v->message, sizeof v->message, "the testee rejected a valid stream: %.400s",
                 ts_json_string(ts_json_get(&reply, "error")).ptr ? ts_json_string(ts_json_get(&reply, "error")).ptr : "");
    } else if (is_reference_answer(&arena, &stream, ts_json_get(&reply, "response"))) {
        /* the reference's answer: nothing the checkers would not say of the reference */
    } else {
        ts_findings findings;
        ts_findings_init(&findings);
        ts_check_merge(stream.updates, stream.count, (ts_str){NULL, 0}, ts_json_get(&reply, "response"), NULL,
                       &findings); /* undecided: the findings of the rest */
        for (size_t i = 0; i < findings.count && !v->rule; i++) {
            const ts_rule_info *info = ts_rule_find(findings.items[i].rule);
            if (!ts_rule_fails(findings.items[i].rule) || !rule_counts(info ? info->id : "W7")) continue;
            v->rule = info ? info->id : "W7";
            snprintf(v->message, sizeof v->message, "%s", findings.items[i].message);
        }
        ts_findings_free(&findings);
    }
done:
    ts_buf_free(&request);
    ts_buf_free(&answer);
    ts_arena_free(&arena);
}

static bool same_failure(const ts_json *values, size_t n, const char *rule) {
    verdict v;
    ask(values, n, &v);
    return v.rule && strcmp(v.rule, rule) == 0;
}

/* Delta reduction: drop updates, then single contents, while the same rule keeps failing. */
static size_t minimise(ts_arena *arena, ts_json *values, size_t n, const char *rule) {
    for (int pass = 0, changed = 1; changed && pass < 4; pass++) {
        changed = 0;
        for (size_t i = n; i-- > 0 && n > 1;) {
            ts_json removed = values[i];
            memmove(values + i, values + i + 1, (n - i - 1) * sizeof *values);
            if (same_failure(values, n - 1, rule)) {
                n--;
                changed = 1;
            } else {
                memmove(values + i + 1, values + i, (n - i - 1) * sizeof *values);
                values[i] = removed;
            }
        }
    }
    for (size_t i = 0; i < n; i++) { /* then contents, one at a time */
        ts_member *members = values[i].u.o.members;
        for (size_t k = 0; k < values[i].u.o.count; k++) {
            if (!ts_str_eq_cstr(members[k].key, "contents") || members[k].value.kind != TS_JSON_ARRAY) continue;
            ts_json original = members[k].value;
            for (size_t c = original.u.a.count; c-- > 0;) {
                ts_json current = members[k].value;
                ts_json *fewer = ts_arena_alloc(arena, (current.u.a.count + 1) * sizeof *fewer);
                if (!fewer) return n;
                size_t m = 0;
                for (size_t j = 0; j < current.u.a.count; j++)
                    if (j != c) fewer[m++] = current.u.a.items[j];
                members[k].value = (ts_json){TS_JSON_ARRAY, {.a = {fewer, m}}};
                if (!same_failure(values, n, rule)) members[k].value = current;
            }
        }
    }
    return n;
}

static void write_case(const ts_json *values, size_t n, const verdict *v) {
    const char *dir = getenv("TURNSTILE_FINDINGS_DIR");
    if (!dir || !*dir) dir = ".";
    ts_buf input, expected;
    ts_buf_init(&input);
    ts_buf_init(&expected);
    for (size_t i = 0; i < n; i++) {
        ts_codec_write(&input, &values[i], TS_WRITE_COMPACT);
        ts_buf_append_char(&input, '\n');
    }
    uint32_t hash = 2166136261u;
    for (size_t i = 0; i < input.len; i++) hash = (hash ^ (unsigned char)input.data[i]) * 16777619u;
    char id[96], path[1024];
    snprintf(id, sizeof id, "%s.%s.fuzz_%08x", host_op ? "Host" : "Merge", strcmp(v->rule, "harness") == 0 ? "W3" : v->rule,
             hash);
    ts_arena arena;
    ts_arena_init(&arena);
    ts_stream stream;
    ts_error err;
    ts_response response;
    ts_json json;
    ts_host_turn turn;
    if (!ts_stream_read(&arena, input.data, input.len, &stream, &err)) {
        /* cannot happen: the generator's updates */
    } else if (!host_op) {
        if (ts_merge(&arena, stream.updates, stream.count, NULL, &response, &err) &&
            ts_response_to_json(&response, &arena, &json))
            ts_codec_write(&expected, &json, TS_WRITE_PRETTY);
    } else if (ts_host_run(&arena, stream.updates, stream.count, true, NULL, &turn, &err)) {
        /* a host case's golden answer is {"stream": [...], "response": {...}} */
        ts_json *items = ts_arena_alloc(&arena, (turn.count + 1) * sizeof *items);
        ts_json_builder b;
        ts_json_builder_init(&b, &arena);
        bool ok = items != NULL;
        for (size_t i = 0; ok && i < turn.count; i++) ok = ts_update_to_json(&turn.stream[i], &arena, &items[i]);
        if (ok && ts_response_to_json(&turn.response, &arena, &json)) {
            ts_json_builder_add(&b, "stream", (ts_json){TS_JSON_ARRAY, {.a = {items, turn.count}}});
            ts_json_builder_add(&b, "response", json);
            ts_json whole;
            if (ts_json_builder_finish(&b, &whole)) ts_codec_write(&expected, &whole, TS_WRITE_PRETTY);
        }
    }
    ts_arena_free(&arena);
    FILE *f;
    snprintf(path, sizeof path, "%s/%s.input.jsonl", dir, id);
    if ((f = fopen(path, "w"))) {
        fwrite(input.data, 1, input.len, f);
        fclose(f);
    }
    snprintf(path, sizeof path, "%s/%s.expected.json", dir, id);
    if ((f = fopen(path, "w"))) {
        fprintf(f, "%s\n", expected.data ? expected.data : "");
        fclose(f);
    }
    ts_buf entry;
    ts_buf_init(&entry);
    ts_buf_appendf(&entry, "{\"id\":\"%s\",\"op\":\"%s\",\"rules\":[\"%s\"],\"description\":", id,
                   host_op ? "host" : "merge", strcmp(v->rule, "harness") == 0 ? "W3" : v->rule);
    char description[800];
    snprintf(description, sizeof description, "Found by the differential fuzzer (%zu updates after minimising): %s", n,
             v->message);
    ts_codec_write_string(&entry, ts_str_from(description));
    ts_buf_appendf(&entry, ",\"input\":\"%s.input.jsonl\",\"expected\":\"%s.expected.json\"}", id, id);
    if (!ts_finding_manifest_add(dir, id, &entry)) fprintf(stderr, "==turnstile== could not update %s/MANIFEST.json\n", dir);
    ts_buf_free(&entry);
    fprintf(stderr,
            "==turnstile== minimised to %zu updates; conformance case %s written to %s (replay every finding: "
            "turnstile certify --suite %s -- COMMAND)\n",
            n, id, dir, dir);
    ts_buf_free(&input);
    ts_buf_free(&expected);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    host_op = size > 0 && (data[0] & 1);
    if (size > 0) {
        data++;
        size--;
    }
    /* The generator's values as they are (the same as its text read back), without writing and
     * reading the text: that is only needed for a finding. */
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json generated;
    if (!ts_gen_updates(&arena, data, size, &generated)) ts_oracle_fail("out of memory", NULL, 0);
    ts_json *values = generated.u.a.items;
    size_t n = generated.u.a.count < TS_GEN_MAX_UPDATES ? generated.u.a.count : TS_GEN_MAX_UPDATES;
    verdict v;
    ask(values, n, &v);
    if (v.rule) {
        fprintf(stderr, "\n==turnstile== the testee fails %s: %s\n", v.rule, v.message);
        ts_buf text;
        ts_buf_init(&text);
        ts_gen_stream(data, size, &text);
        n = minimise(&arena, values, n, v.rule);
        write_case(values, n, &v);
        const char *keep_going = getenv("TURNSTILE_KEEP_GOING");
        if (!(keep_going && *keep_going && strcmp(keep_going, "0") != 0))
            ts_oracle_fail("the testee disagrees with the conformance checkers", text.data, text.len);
        ts_buf_free(&text);
    }
    ts_arena_free(&arena);
    return 0;
}
