/* oracle.c — the fuzz targets' assertions; see oracle.h. */
#include "fuzz/oracle.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/checkers/merge/checks.h"
#include "core/json/codec.h"

void ts_oracle_fail(const char *what, const char *stream, size_t stream_len) {
    fprintf(stderr, "\n==turnstile== %s\n", what);
    if (stream) fprintf(stderr, "==turnstile== stream:\n%.*s\n", (int)(stream_len > 20000 ? 20000 : stream_len), stream);
    fflush(stderr);
    abort();
}

bool ts_oracle_has_required(const ts_findings *findings) { return ts_findings_fail(findings); }

bool ts_oracle_merge_text(const ts_update *updates, size_t count, const ts_merge_options *options, ts_buf *out,
                          ts_error *err) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_response response;
    ts_json json;
    bool ok = ts_merge(&arena, updates, count, options, &response, err);
    if (ok && (!ts_response_to_json(&response, &arena, &json) || !ts_codec_write(out, &json, TS_WRITE_COMPACT)))
        ts_oracle_fail("the merged response could not be written", NULL, 0);
    ts_arena_free(&arena);
    return ok;
}

bool ts_oracle_merge_json(ts_arena *arena, const ts_update *updates, size_t count, const ts_merge_options *options,
                          ts_json *out, ts_error *err) {
    ts_response response;
    if (!ts_merge(arena, updates, count, options, &response, err)) return false;
    if (!ts_response_to_json(&response, arena, out)) ts_oracle_fail("out of memory", NULL, 0);
    return true;
}

bool ts_oracle_check_json(const ts_update *updates, size_t count, const ts_json *answer) {
    ts_findings findings;
    ts_findings_init(&findings);
    /* Undecided (the judging budget ran out) is no finding: the other rules' findings stand. */
    if (!ts_check_merge(updates, count, (ts_str){NULL, 0}, answer, NULL, &findings)) ts_oracle_fail("out of memory", NULL, 0);
    bool ok = !ts_oracle_has_required(&findings);
    if (!ok) {
        for (size_t i = 0; i < findings.count; i++)
            fprintf(stderr, "==turnstile== [%s] %s\n", findings.items[i].rule, findings.items[i].message);
        ts_buf text;
        ts_buf_init(&text);
        ts_codec_write(&text, answer, TS_WRITE_COMPACT);
        fprintf(stderr, "==turnstile== response: %.*s\n", (int)(text.len > 20000 ? 20000 : text.len), text.data);
        ts_buf_free(&text);
    }
    ts_findings_free(&findings);
    return ok;
}

bool ts_oracle_identical(const ts_json *a, const ts_json *b) { return ts_json_identical(a, b); }

void ts_oracle_check(const ts_update *updates, size_t count, const char *response_text, size_t response_len,
                     const char *stream, size_t stream_len) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json answer;
    ts_error err;
    if (!ts_codec_parse(&arena, response_text, response_len, &answer, &err))
        ts_oracle_fail("turnstile cannot read its own output back", stream, stream_len);
    if (!ts_oracle_check_json(updates, count, &answer))
        ts_oracle_fail("a conformance checker rejects the reference's answer", stream, stream_len);
    ts_arena_free(&arena);
}
