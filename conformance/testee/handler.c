/* handler.c — the reference as a testee; see handler.h. */
#include "conformance/testee/handler.h"
#include "conformance/testee/resume_handler.h"

#include <stdio.h>
#include <string.h>

#include "core/json/codec.h"
#include "core/resume/engine.h"
#include "core/merge/host.h"
#include "core/merge/merger.h"
#include "core/resume/store_memory.h"

static void answer_error(ts_buf *out, ts_str id, const char *message) {
    ts_buf_append_str(out, "{\"id\":");
    ts_codec_write_string(out, id.ptr ? id : ts_str_from(""));
    ts_buf_append_str(out, ",\"error\":");
    ts_codec_write_string(out, ts_str_from(message));
    ts_buf_append_char(out, '}');
}

static void answer_with(ts_buf *out, ts_str id, const char *key, const ts_json *value, const char *key2,
                        const ts_json *value2) {
    ts_buf_append_str(out, "{\"id\":");
    ts_codec_write_string(out, id);
    ts_buf_appendf(out, ",\"%s\":", key);
    ts_codec_write(out, value, TS_WRITE_COMPACT);
    if (key2) {
        ts_buf_appendf(out, ",\"%s\":", key2);
        ts_codec_write(out, value2, TS_WRITE_COMPACT);
    }
    ts_buf_append_char(out, '}');
}

/* dangling-metadata-dropped: the dangling updates lose finishReason, agentId and usage. */
static bool drop_dangling_metadata(ts_arena *arena, ts_stream *stream) {
    for (size_t i = 0; i < stream->count; i++) {
        ts_update *u = &stream->updates[i];
        if (ts_str_nonempty(u->response_id)) continue;
        u->finish_reason = u->agent_id = (ts_str){NULL, 0};
        ts_json *kept = ts_arena_alloc(arena, (u->contents->u.a.count + 1) * sizeof *kept);
        ts_json *array = ts_arena_alloc(arena, sizeof *array);
        if (!kept || !array) return false;
        size_t n = 0;
        for (size_t c = 0; c < u->contents->u.a.count; c++)
            if (!ts_str_eq_cstr(ts_content_type(&u->contents->u.a.items[c]), "usage")) kept[n++] = u->contents->u.a.items[c];
        *array = (ts_json){TS_JSON_ARRAY, {.a = {kept, n}}};
        u->contents = array;
    }
    return true;
}

/* created-at-overwritten: MessageMerger's `message.CreatedAt = m.CreatedAt ?? DateTimeOffset.UtcNow`. */
static void overwrite_created_at(const ts_testee_config *config, ts_response *response) {
    ts_str value = response->created_at.ptr ? response->created_at : ts_str_from(config->now);
    ts_instant at;
    ts_instant_parse(value.ptr, value.len, &at, NULL);
    for (size_t i = 0; i < response->message_count; i++) {
        response->messages[i].created_at = value;
        response->messages[i].has_created_at = true;
        response->messages[i].created_at_instant = at;
    }
}

/* journal: runs the scenario on a fresh in-memory store (restart events rebuild the engine
 * from it) and answers with the journal. "crashBeforeCommit": k simulates a process death
 * just before the k-th commit, followed by a resume. */
static void handle_journal(const ts_testee_config *config, ts_arena *arena, const ts_json *request, ts_str id,
                           ts_buf *out) {
    ts_error err;
    ts_error_clear(&err);
    char message[600];
    const ts_json *scenario_json = ts_json_get(request, "scenario");
    const ts_json *crash = ts_json_get(request, "crashBeforeCommit");
    ts_scenario scenario;
    if (!scenario_json) {
        answer_error(out, id, "the request has no \"scenario\" object");
        return;
    }
    if (!ts_scenario_from_json(scenario_json, arena, &scenario, &err)) {
        snprintf(message, sizeof message, "scenario.%s: %s", err.path, err.message);
        answer_error(out, id, message);
        return;
    }
    if (crash && (crash->kind != TS_JSON_INT || crash->u.i < 0)) {
        answer_error(out, id, "\"crashBeforeCommit\" must be a non-negative integer");
        return;
    }
    ts_engine_options options = {.hooks = config->mutant ? config->mutant->engine : NULL,
                                 .crash_before_commit = crash ? (uint64_t)crash->u.i : 0};
    ts_store *store = ts_memory_store_new();
    ts_engine_state state;
    ts_journal journal;
    ts_journal_init(&journal);
    ts_json value;
    if (!store) {
        answer_error(out, id, "out of memory");
    } else if (!ts_engine_drive(store, &scenario, &options, &state, NULL, &err) ||
               !ts_store_load(store, arena, &journal, &err) || !ts_journal_to_json(&journal, arena, &value, &err)) {
        answer_error(out, id, err.message);
    } else {
        answer_with(out, id, "journal", &value, NULL, NULL);
    }
    ts_journal_free(&journal);
    ts_store_close(store);
}

/* hello: the reference's name (or the mutant's), the ops it answers and what it can do. */
static void answer_hello(const ts_testee_config *config, ts_arena *arena, ts_str id, ts_buf *out) {
    const ts_mutant *mutant = config->mutant;
    ts_json_builder hello;
    ts_json_builder_init(&hello, arena);
    ts_json list[4] = {ts_json_make_string(ts_str_from("merge")), ts_json_make_string(ts_str_from("host")),
                       ts_json_make_string(ts_str_from("journal")), ts_json_make_string(ts_str_from("resume"))};
    ts_json ops_array = {TS_JSON_ARRAY, {.a = {list, 4}}};
    char name[96];
    snprintf(name, sizeof name, "turnstile-%s%s", mutant ? "mutant-" : "reference", mutant ? mutant->name : "");
    ts_json_builder_add(&hello, "name", ts_json_make_string(ts_str_dup(arena, ts_str_from(name))));
    ts_json_builder_add(&hello, "version", ts_json_make_string(ts_str_from("1")));
    ts_json_builder_add(&hello, "ops", ops_array);
    ts_json_builder_add(&hello, "async", ts_json_make_bool(true)); /* resume: tools may answer later */
    ts_json branch[3] = {ts_json_make_string(ts_str_from("edit")), ts_json_make_string(ts_str_from("fork")),
                         ts_json_make_string(ts_str_from("history"))};
    ts_json_builder_add(&hello, "branch", (ts_json){TS_JSON_ARRAY, {.a = {branch, 3}}}); /* resume: edit, fork, read every branch */
    ts_json_builder_add(&hello, "durability", ts_json_make_string(ts_str_from(ts_testee_durability(config))));
    if (config->can_fork) ts_json_builder_add(&hello, "fork", ts_json_make_bool(true)); /* PROTOCOL.md, fork servers */
    ts_json value;
    if (ts_json_builder_finish(&hello, &value)) answer_with(out, id, "hello", &value, NULL, NULL);
    else answer_error(out, id, "out of memory");
}

/* merge: the merged response of the stream. */
static void answer_merge(const ts_testee_config *config, ts_arena *arena, const ts_stream *stream,
                         const ts_merge_options *options, ts_str id, ts_buf *out) {
    ts_error err;
    ts_error_clear(&err);
    char message[600];
    ts_response response;
    ts_json response_json;
    if (!ts_merge(arena, stream->updates, stream->count, options, &response, &err)) {
        ts_error_format(&err, "request", message, sizeof message);
        answer_error(out, id, message);
        return;
    }
    if (config->mutant && config->mutant->overwrite_created_at) overwrite_created_at(config, &response);
    if (!ts_response_to_json(&response, arena, &response_json)) {
        answer_error(out, id, "out of memory");
        return;
    }
    answer_with(out, id, "response", &response_json, NULL, NULL);
}

/* The drop-dangling-metadata mutant's host: its response is the merge of what it emitted,
 * the response ids and the dangling metadata lost. NULL, or the error to answer when that
 * cannot be made (static text). */
static const char *merge_host_stream_lossily(ts_arena *arena, ts_host_turn *turn, ts_merge_options *options) {
    ts_error err;
    ts_error_clear(&err);
    ts_stream lossy = {ts_arena_alloc(arena, (turn->count ? turn->count : 1) * sizeof *turn->stream), turn->count};
    if (!lossy.updates) return "out of memory";
    memcpy(lossy.updates, turn->stream, turn->count * sizeof *turn->stream);
    for (size_t i = 0; i < lossy.count; i++) lossy.updates[i].response_id = (ts_str){NULL, 0};
    options->primary_response_id = turn->response_id;
    if (!drop_dangling_metadata(arena, &lossy) ||
        !ts_merge(arena, lossy.updates, lossy.count, options, &turn->response, &err))
        return "cannot merge";
    return NULL;
}

/* host: the stream the host emitted from the agent's emissions, and its response. */
static void answer_host(const ts_testee_config *config, ts_arena *arena, const ts_stream *stream,
                        ts_merge_options *options, ts_str id, ts_buf *out) {
    const ts_mutant *mutant = config->mutant;
    ts_error err;
    ts_error_clear(&err);
    char message[600];
    ts_host_turn turn;
    if (!ts_host_run(arena, stream->updates, stream->count, !(mutant && mutant->no_host_response_id), options, &turn,
                     &err)) {
        ts_error_format(&err, "request", message, sizeof message);
        answer_error(out, id, message);
        return;
    }
    const char *lossy_error = mutant && mutant->drop_dangling_metadata ? merge_host_stream_lossily(arena, &turn, options) : NULL;
    if (lossy_error) {
        answer_error(out, id, lossy_error);
        return;
    }
    if (mutant && mutant->overwrite_created_at) overwrite_created_at(config, &turn.response);
    ts_json *items = ts_arena_alloc(arena, (turn.count ? turn.count : 1) * sizeof *items);
    bool ok = items != NULL;
    for (size_t i = 0; ok && i < turn.count; i++) ok = ts_update_to_json(&turn.stream[i], arena, &items[i]);
    ts_json stream_json = (ts_json){TS_JSON_ARRAY, {.a = {items, turn.count}}}, response_json;
    if (!ok || !ts_response_to_json(&turn.response, arena, &response_json)) {
        answer_error(out, id, "out of memory");
        return;
    }
    answer_with(out, id, "stream", &stream_json, "response", &response_json);
}

/* merge and host: the request's stream ("updates" or "emissions") read, then answered. */
static void answer_stream_op(const ts_testee_config *config, ts_arena *arena, const ts_json *request, ts_str id,
                             bool is_merge, ts_buf *out) {
    const ts_mutant *mutant = config->mutant;
    ts_error err;
    ts_error_clear(&err);
    char message[600];
    const char *field = is_merge ? "updates" : "emissions";
    const ts_json *array = ts_json_get(request, field);
    ts_stream stream;
    if (!array) {
        snprintf(message, sizeof message, "the request has no \"%s\" array", field);
        answer_error(out, id, message);
        return;
    }
    if (!ts_stream_from_array(arena, array, field, &stream, &err)) {
        ts_error_format(&err, "request", message, sizeof message);
        answer_error(out, id, message);
        return;
    }
    /* The dangling-metadata bug is the merger's: the host's stream stays intact (answer_host). */
    if (mutant && mutant->drop_dangling_metadata && is_merge && !drop_dangling_metadata(arena, &stream)) {
        answer_error(out, id, "out of memory");
        return;
    }
    ts_merge_options options = {.order = mutant ? mutant->order : NULL};
    options.primary_response_id = ts_json_string(ts_json_get(request, "responseId"));
    if (is_merge) answer_merge(config, arena, &stream, &options, id, out);
    else answer_host(config, arena, &stream, &options, id, out);
}

static void handle(const ts_testee_config *config, ts_arena *arena, const ts_json *request, ts_buf *out) {
    ts_str id = ts_json_string(ts_json_get(request, "id"));
    ts_str op = ts_json_string(ts_json_get(request, "op"));
    if (!id.ptr) {
        answer_error(out, id, "the request has no string \"id\"");
        return;
    }
    if (ts_str_eq_cstr(op, "hello")) {
        answer_hello(config, arena, id, out);
    } else if (ts_str_eq_cstr(op, "journal")) {
        handle_journal(config, arena, request, id, out);
    } else if (ts_str_eq_cstr(op, "resume")) {
        ts_testee_resume(config, arena, request, id, out);
    } else if (ts_str_eq_cstr(op, "merge") || ts_str_eq_cstr(op, "host")) {
        answer_stream_op(config, arena, request, id, ts_str_eq_cstr(op, "merge"), out);
    } else {
        ts_buf_append_str(out, "{\"id\":");
        ts_codec_write_string(out, id);
        ts_buf_append_str(out, ",\"unsupported\":true}");
    }
}

void ts_testee_answer(const ts_testee_config *config, const char *line, size_t len, ts_buf *answer) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json request = ts_json_make_null();
    ts_error err;
    ts_error_clear(&err);
    if (!ts_codec_parse(&arena, line, len, &request, &err)) {
        char message[600];
        ts_error_format(&err, "request", message, sizeof message);
        answer_error(answer, (ts_str){NULL, 0}, message);
    } else if (request.kind != TS_JSON_OBJECT) {
        answer_error(answer, (ts_str){NULL, 0}, "the request is not a JSON object");
    } else {
        handle(config, &arena, &request, answer);
    }
    ts_arena_free(&arena);
}
