/* host.c — the hosting executor's rules H1-H5 (PROTOCOL.md); see host.h. */
#include "conformance/checkers/merge/host.h"

#include <stdio.h>

#include "conformance/checkers/merge/checks.h"

ts_check_status ts_check_host(const ts_update *emissions, size_t count, const ts_json *stream, const ts_json *response,
                              bool answer_is_error, const ts_judge_budget *budget, ts_findings *f) {
    ts_str first_id = {NULL, 0};
    bool conflicting = false, all_carry = count > 0;
    for (size_t i = 0; i < count; i++) {
        ts_str id = emissions[i].response_id;
        if (!ts_str_nonempty(id)) {
            all_carry = false;
            continue;
        }
        if (!first_id.ptr) first_id = id;
        else if (!ts_str_eq(first_id, id)) conflicting = true;
    }
    if (answer_is_error) {
        if (!conflicting) ts_findings_add(f, "H3", "the host rejected a turn whose emissions carry no conflicting ids");
        return TS_CHECK_DECIDED;
    }
    if (!stream || stream->kind != TS_JSON_ARRAY) {
        ts_findings_add(f, "H4", "the answer has no \"stream\" array of emitted updates");
        return TS_CHECK_DECIDED;
    }
    ts_arena arena;
    ts_arena_init(&arena);
    ts_stream emitted;
    ts_error err;
    ts_error_clear(&err);
    ts_check_status status = TS_CHECK_DECIDED;
    if (!ts_stream_from_array(&arena, stream, "stream", &emitted, &err)) {
        ts_findings_add(f, "H4", "%s: %s", err.path, err.message);
        goto done;
    }
    ts_str stream_id = {NULL, 0};
    for (size_t i = 0; i < emitted.count; i++) { /* H1 */
        ts_str id = emitted.updates[i].response_id;
        if (!ts_str_nonempty(id)) {
            ts_findings_add(f, "H1", "stream[%zu] carries no responseId", i);
        } else if (!stream_id.ptr) {
            stream_id = id;
        } else if (!ts_str_eq(stream_id, id)) {
            ts_findings_add(f, "H1", "stream[%zu] carries another responseId than stream[0]", i);
        }
    }
    if (all_carry && !conflicting && stream_id.ptr && !ts_str_eq(stream_id, first_id)) /* H2 */
        ts_findings_add(f, "H2", "every emission carries responseId \"%.*s\", but the host replaced it",
                        (int)(first_id.len > 80 ? 80 : first_id.len), first_id.ptr);
    if (emitted.count != count) { /* H4 */
        ts_findings_add(f, "H4", "the agent emitted %zu updates; the host's stream has %zu", count, emitted.count);
    } else {
        for (size_t i = 0; i < count; i++) {
            ts_update want = emissions[i], got = emitted.updates[i];
            want.response_id = got.response_id = (ts_str){NULL, 0};
            want.index = got.index = 0;
            want.line = got.line = 0;
            ts_json wj, gj;
            if (!ts_update_to_json(&want, &arena, &wj) || !ts_update_to_json(&got, &arena, &gj)) {
                status = TS_CHECK_OUT_OF_MEMORY;
                goto done;
            }
            if (!ts_json_equal(&wj, &gj)) {
                char a[240], b[240];
                ts_check_excerpt(&wj, a, sizeof a);
                ts_check_excerpt(&gj, b, sizeof b);
                ts_findings_add(f, "H4", "stream[%zu] is not emission %zu (responseId aside): expected %s, got %s", i, i, a, b);
            }
        }
    }
    if (!response || response->kind != TS_JSON_OBJECT) { /* H5 */
        ts_findings_add(f, "H5", "the answer has no \"response\" object");
        goto done;
    }
    if (stream_id.ptr && !ts_str_eq(ts_json_string(ts_json_get(response, "responseId")), stream_id))
        ts_findings_add(f, "H5", "response.responseId is not the id of the emitted stream");
    status = ts_check_merge(emitted.updates, emitted.count, stream_id, response, budget, f);
done:
    ts_arena_free(&arena);
    return status;
}
