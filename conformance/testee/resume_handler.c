/* resume_handler.c — the reference engine over the certifier's world; see resume_handler.h. */
#include "conformance/testee/resume_handler.h"

#include <stdio.h>
#include <string.h>

#include "core/json/codec.h"
#include "core/resume/engine.h"
#include "core/resume/store_file.h"
#include "core/resume/store_sqlite.h"

/* ---------------------------------------------------------------- ChatMessage JSON ---- */

static ts_json content(ts_arena *arena, const char *type, const char *k1, ts_json v1, const char *k2, ts_json v2,
                       const char *k3, ts_json v3) {
    ts_json_builder b;
    ts_json_builder_init(&b, arena);
    ts_json_builder_add(&b, "$type", ts_json_make_string(ts_str_from(type)));
    if (k1) ts_json_builder_add(&b, k1, v1);
    if (k2) ts_json_builder_add(&b, k2, v2);
    if (k3) ts_json_builder_add(&b, k3, v3);
    ts_json out = ts_json_make_null();
    ts_json_builder_finish(&b, &out);
    return out;
}

/* One journal entry's (role, content) as a ChatMessage; id and timestamp absent when NULL. */
static ts_json chat_message(ts_arena *arena, ts_str role, const ts_json *entry_content, const char *id, ts_str timestamp) {
    const ts_json *calls = ts_json_get(entry_content, "toolCalls");
    size_t call_count = calls && calls->kind == TS_JSON_ARRAY ? calls->u.a.count : 0, n = 0;
    ts_json *items = ts_arena_alloc(arena, (call_count + 2) * sizeof *items);
    if (!items) return ts_json_make_null();
    ts_str text = ts_json_string(ts_json_get(entry_content, "text"));
    bool tool = ts_str_eq_cstr(role, "tool");
    if (text.ptr) items[n++] = content(arena, "text", "text", ts_json_make_string(text), NULL, ts_json_make_null(), NULL, ts_json_make_null());
    for (size_t i = 0; i < call_count; i++) {
        const ts_json *c = &calls->u.a.items[i], *arguments = ts_json_get(c, "arguments");
        items[n++] = content(arena, "functionCall", "callId", *ts_json_get(c, "callId"), "name", *ts_json_get(c, "name"),
                             "arguments", arguments ? *arguments : ts_json_make_null());
    }
    if (tool) {
        const ts_json *result = ts_json_get(entry_content, "result"), *error = ts_json_get(entry_content, "error");
        const ts_json *call_id = ts_json_get(entry_content, "callId");
        items[n++] = content(arena, "functionResult", "callId", call_id ? *call_id : ts_json_make_null(), "result",
                             result ? *result : error ? *error : ts_json_make_null(), NULL, ts_json_make_null());
    }
    ts_json_builder b;
    ts_json_builder_init(&b, arena);
    ts_json_builder_add(&b, "role", ts_json_make_string(role));
    ts_json_builder_add(&b, "contents", (ts_json){TS_JSON_ARRAY, {.a = {items, n}}});
    if (id) ts_json_builder_add(&b, "messageId", ts_json_make_string(ts_str_dup(arena, ts_str_from(id))));
    if (timestamp.ptr) ts_json_builder_add(&b, "createdAt", ts_json_make_string(timestamp));
    ts_json out = ts_json_make_null();
    ts_json_builder_finish(&b, &out);
    return out;
}

/* An assistant ChatMessage from the certifier as the engine's answer {"text", "toolCalls"}. */
static bool answer_of(ts_arena *arena, const ts_json *message, ts_json *out, ts_error *err) {
    const ts_json *contents = ts_json_get(message, "contents");
    if (!message || message->kind != TS_JSON_OBJECT || !contents || contents->kind != TS_JSON_ARRAY) {
        ts_error_set(err, TS_ERR_INPUT, "the model's reply is not a ChatMessage with contents");
        return false;
    }
    ts_buf text;
    ts_buf_init(&text);
    bool has_text = false;
    ts_json *calls = ts_arena_alloc(arena, (contents->u.a.count + 1) * sizeof *calls);
    size_t n = 0;
    for (size_t i = 0; calls && i < contents->u.a.count; i++) {
        const ts_json *c = &contents->u.a.items[i];
        ts_str type = ts_json_string(ts_json_get(c, "$type"));
        if (ts_str_eq_cstr(type, "text") && ts_json_string(ts_json_get(c, "text")).ptr) {
            ts_str t = ts_json_string(ts_json_get(c, "text"));
            ts_buf_append(&text, t.ptr, t.len);
            has_text = true;
        } else if (ts_str_eq_cstr(type, "functionCall")) {
            ts_str call_id = ts_json_string(ts_json_get(c, "callId")), name = ts_json_string(ts_json_get(c, "name"));
            const ts_json *arguments = ts_json_get(c, "arguments");
            if (!ts_str_nonempty(call_id) || !ts_str_nonempty(name) || (arguments && arguments->kind != TS_JSON_OBJECT)) {
                ts_buf_free(&text);
                ts_error_set(err, TS_ERR_INPUT, "the model's reply holds a functionCall without callId, name or object arguments");
                return false;
            }
            ts_json_builder b;
            ts_json_builder_init(&b, arena);
            ts_json_builder_add(&b, "callId", ts_json_make_string(call_id));
            ts_json_builder_add(&b, "name", ts_json_make_string(name));
            ts_json_builder_add(&b, "arguments", arguments ? *arguments : (ts_json){TS_JSON_OBJECT, {.o = {NULL, 0}}});
            ts_json_builder_finish(&b, &calls[n++]);
        }
    }
    ts_json_builder b;
    ts_json_builder_init(&b, arena);
    if (has_text)
        ts_json_builder_add(&b, "text", ts_json_make_string(ts_str_dup(arena, (ts_str){text.data ? text.data : "", text.len})));
    if (n) ts_json_builder_add(&b, "toolCalls", (ts_json){TS_JSON_ARRAY, {.a = {calls, n}}});
    ts_buf_free(&text);
    if (!calls || !ts_json_builder_finish(&b, out)) {
        ts_error_set(err, TS_ERR_NOMEM, "out of memory");
        return false;
    }
    return true;
}

/* ----------------------------------------------------------------- the pipe world ---- */

typedef struct pipe_world {
    ts_world base;
    const ts_testee_config *config;
    ts_str id;
    ts_arena *arena;
    bool ended;             /* an exchange failed: the certifier ended the case */
} pipe_world;

/* Writes one world line and parses the reply into *reply. */
static bool exchange(pipe_world *w, ts_buf *line, ts_json *reply, ts_error *err) {
    ts_buf answer;
    ts_buf_init(&answer);
    bool ok = !w->ended && !line->failed &&
              w->config->exchange(w->config->exchange_context, line->data, line->len, &answer);
    if (!ok) {
        w->ended = true;
        ts_error_set(err, TS_ERR_REFUSED, "the certifier ended the case");
    } else if (!ts_codec_parse(w->arena, answer.data ? answer.data : "", answer.len, reply, err)) {
        ok = false;
    }
    ts_buf_free(&answer);
    ts_buf_free(line);
    return ok;
}

static void line_start(pipe_world *w, ts_buf *line) {
    ts_buf_init(line);
    ts_buf_append_str(line, "{\"id\":");
    ts_codec_write_string(line, w->id);
}

static bool pipe_model(ts_world *world, const ts_json *messages, const char (*ids)[TS_UUID_TEXT], size_t count,
                       uint64_t ordinal, ts_arena *arena, ts_json *answer, ts_error *err) {
    (void)ordinal;
    pipe_world *w = (pipe_world *)world;
    ts_buf line;
    line_start(w, &line);
    ts_buf_append_str(&line, ",\"call\":\"model\",\"messages\":[");
    for (size_t i = 0; i < count; i++) {
        ts_json m = chat_message(w->arena, ts_json_string(ts_json_get(&messages[i], "role")),
                                 ts_json_get(&messages[i], "content"), ids[i],
                                 ts_json_string(ts_json_get(&messages[i], "timestamp")));
        if (i) ts_buf_append_char(&line, ',');
        ts_codec_write(&line, &m, TS_WRITE_COMPACT);
    }
    ts_buf_append_str(&line, "]}");
    ts_json reply;
    if (!exchange(w, &line, &reply, err)) return false;
    ts_str error = ts_json_string(ts_json_get(&reply, "error"));
    if (error.ptr) {
        ts_error_set(err, TS_ERR_REFUSED, "the model failed: %.300s", error.ptr);
        return false;
    }
    return answer_of(arena, ts_json_get(&reply, "reply"), answer, err);
}

static bool pipe_tool(ts_world *world, ts_str name, ts_str call_id, const ts_json *arguments, ts_arena *arena,
                      ts_tool_status *status, ts_json *result, ts_error *err) {
    pipe_world *w = (pipe_world *)world;
    ts_buf line;
    line_start(w, &line);
    ts_buf_append_str(&line, ",\"call\":\"tool\",\"name\":");
    ts_codec_write_string(&line, name);
    ts_buf_append_str(&line, ",\"callId\":");
    ts_codec_write_string(&line, call_id);
    ts_buf_append_str(&line, ",\"arguments\":");
    ts_codec_write(&line, arguments, TS_WRITE_COMPACT);
    ts_buf_append_char(&line, '}');
    ts_json reply;
    if (!exchange(w, &line, &reply, err)) return false;
    const ts_json *r = ts_json_get(&reply, "reply");
    const ts_json *value = ts_json_get(r, "result"), *error = ts_json_get(r, "error"), *pending = ts_json_get(r, "pending");
    if (pending && pending->kind == TS_JSON_TRUE) {
        *status = TS_TOOL_PENDING;
        *result = ts_json_make_null();
    } else if (error) {
        *status = TS_TOOL_FAILED;
        *result = error->kind == TS_JSON_STRING ? *error : ts_json_make_string(ts_str_from("the tool failed"));
    } else if (value) {
        *status = TS_TOOL_DONE;
        *result = *value;
    } else {
        ts_error_set(err, TS_ERR_INPUT, "the tool's reply has none of result, error and pending");
        return false;
    }
    (void)arena; /* the reply lives in the request's arena, which outlives the engine */
    return true;
}

static void pipe_timestamp(ts_world *world, uint64_t n, char out[TS_TIMESTAMP_TEXT]) {
    (void)world;
    ts_scenario wall_clock; /* no clock: the wall clock's time */
    memset(&wall_clock, 0, sizeof wall_clock);
    ts_scenario_timestamp(&wall_clock, n, out);
}

static bool pipe_commit(ts_world *world, bool after, uint64_t number, const char *what, ts_error *err) {
    (void)number;
    pipe_world *w = (pipe_world *)world;
    ts_buf line;
    line_start(w, &line);
    ts_buf_appendf(&line, ",\"commit\":\"%s\",\"what\":", after ? "after" : "before");
    ts_codec_write_string(&line, ts_str_from(what));
    ts_buf_append_char(&line, '}');
    ts_json reply;
    return exchange(w, &line, &reply, err);
}

static const ts_world_vtable pipe_vtable = {pipe_model, pipe_tool, pipe_timestamp, pipe_commit};

/* --------------------------------------------------------------------- the actions ---- */

/* A write of this adapter's own, told to the certifier like a commit. */
#define NOTIFIED(world, what, write) \
    (pipe_commit(&(world)->base, false, 0, what, err) && (write) && pipe_commit(&(world)->base, true, 0, what, err))

/* The pending task of tool call call_id, if the journal has one. */
static const ts_task *pending_task_of_call(const ts_journal *j, ts_str call_id, ts_arena *arena) {
    for (size_t i = 0; i < j->task_count; i++) {
        if (j->tasks[i].status != TS_TASK_PENDING) continue;
        ts_json input;
        ts_error ignored;
        if (ts_codec_parse(arena, j->tasks[i].input.ptr, j->tasks[i].input.len, &input, &ignored) &&
            ts_str_eq(ts_json_string(ts_json_get(&input, "callId")), call_id))
            return &j->tasks[i];
    }
    return NULL;
}

/* Whether the run is suspended on a tool call: phase tools with its current call pending. */
static bool waiting_on_tool(const ts_journal *j, ts_arena *arena) {
    if (!j->has_checkpoint) return false;
    const ts_json *state = &j->checkpoint.state;
    if (!ts_str_eq_cstr(ts_json_string(ts_json_get(state, "phase")), "tools")) return false;
    const ts_json *calls = ts_json_get(state, "pendingToolCalls"), *index = ts_json_get(state, "pendingToolIndex");
    if (!calls || calls->kind != TS_JSON_ARRAY || !index || index->kind != TS_JSON_INT || index->u.i < 0 ||
        (size_t)index->u.i >= calls->u.a.count)
        return false;
    return pending_task_of_call(j, ts_json_string(ts_json_get(&calls->u.a.items[index->u.i], "callId")), arena) != NULL;
}

/* The messages of a path, root first, into out (after `first`: no comma before the first). */
static void write_path(const ts_entry **path, size_t count, ts_arena *arena, ts_buf *out) {
    for (size_t i = 0; i < count; i++) {
        ts_json m = chat_message(arena, ts_str_from(ts_entry_role_name(path[i]->role)), &path[i]->content, path[i]->id,
                                 path[i]->timestamp);
        if (i) ts_buf_append_char(out, ',');
        ts_codec_write(out, &m, TS_WRITE_COMPACT);
    }
}

/* The stored conversation: the transcript, then the user messages still in the inbox. */
static bool read_conversation(const ts_journal *j, ts_arena *arena, ts_buf *out, ts_error *err) {
    const ts_entry **path = NULL;
    size_t count = 0;
    if (j->has_checkpoint && !ts_journal_path(j, j->checkpoint.leaf_id, arena, &path, &count, err)) return false;
    ts_buf_append_char(out, '[');
    write_path(path, count, arena, out);
    bool first = count == 0;
    for (uint64_t k = j->has_checkpoint ? j->checkpoint.signals_consumed : 0; k < j->signal_count; k++) {
        ts_json m = chat_message(arena, ts_str_from("user"), &j->signals[k], NULL, (ts_str){NULL, 0});
        if (!first) ts_buf_append_char(out, ',');
        first = false;
        ts_codec_write(out, &m, TS_WRITE_COMPACT);
    }
    ts_buf_append_char(out, ']');
    return true;
}

/* Every branch the journal keeps (a history read): the path to each entry no other entry
 * continues, the current transcript among them, in commit order of their leaves. */
static bool read_history(const ts_journal *j, ts_arena *arena, ts_buf *out, ts_error *err) {
    bool *continued = ts_arena_calloc(arena, j->entry_count + 1, sizeof *continued);
    if (!continued) return ts_error_set(err, TS_ERR_NOMEM, "out of memory"), false;
    for (size_t i = 0; i < j->entry_count; i++) {
        const ts_entry *parent = j->entries[i].parent_id[0] ? ts_journal_find_entry(j, j->entries[i].parent_id) : NULL;
        if (parent) continued[parent - j->entries] = true;
    }
    ts_buf_append_char(out, '[');
    for (size_t i = 0, written = 0; i < j->entry_count; i++) {
        const ts_entry **path;
        size_t count;
        if (continued[i]) continue;
        if (!ts_journal_path(j, j->entries[i].id, arena, &path, &count, err)) return false;
        ts_buf_append_str(out, written++ ? ",[" : "[");
        write_path(path, count, arena, out);
        ts_buf_append_char(out, ']');
    }
    ts_buf_append_char(out, ']');
    return true;
}

/* Where an edit of user message `at` (edit) or a fork before assistant message `at` begins its
 * branch: an index into the transcript (its length for a fork at the end). False (err: the
 * refusal PROTOCOL.md asks for) when the conversation has no such position: no such user
 * message (or one still queued in the inbox), no such assistant message, or a fork at the end
 * while a call is pending. */
static bool branch_position(const ts_journal *j, ts_arena *arena, bool edit, int64_t at, size_t *position, ts_error *err) {
    const ts_entry **path = NULL;
    size_t count = 0, seen = 0;
    if (j->has_checkpoint && !ts_journal_path(j, j->checkpoint.leaf_id, arena, &path, &count, err)) return false;
    for (size_t i = 0; i < count && at >= 0; i++)
        if (path[i]->role == (edit ? TS_ENTRY_USER : TS_ENTRY_ASSISTANT) && (int64_t)seen++ == at) {
            *position = i;
            return true;
        }
    if (!edit && at == (int64_t)seen && !waiting_on_tool(j, arena)) {
        *position = count;
        return true;
    }
    if (!edit && at == (int64_t)seen)
        ts_error_set(err, TS_ERR_REFUSED, "refused: a fork at the end of the conversation while a tool call is pending");
    else
        ts_error_set(err, TS_ERR_REFUSED, "refused: the conversation has no %s message %lld (it holds %zu)", edit ? "user" : "assistant",
                     (long long)at, seen);
    return false;
}

typedef struct request {
    const char *dir;
    char thread[TS_UUID_TEXT];
    const ts_json *action;
} request;

static bool read_request(const ts_json *r, request *out, ts_error *err) {
    ts_str dir = ts_json_string(ts_json_get(r, "store")), thread = ts_json_string(ts_json_get(r, "thread"));
    out->action = ts_json_get(r, "action");
    if (!ts_str_nonempty(dir)) return ts_error_set(err, TS_ERR_INPUT, "the request has no \"store\" directory"), false;
    if (thread.len != TS_UUID_TEXT - 1 || !ts_uuid_text_valid(thread.ptr))
        return ts_error_set(err, TS_ERR_INPUT, "\"thread\" must be a canonical UUID (lowercase 8-4-4-4-12)"), false;
    if (!out->action || out->action->kind != TS_JSON_OBJECT) return ts_error_set(err, TS_ERR_INPUT, "the request has no \"action\" object"), false;
    out->dir = dir.ptr;
    memcpy(out->thread, thread.ptr, TS_UUID_TEXT - 1);
    out->thread[TS_UUID_TEXT - 1] = '\0';
    return true;
}

/* Runs the engine until it suspends: "idle" or "waiting" in *status. */
static bool run_engine(const ts_testee_config *config, ts_store *store, pipe_world *world, const request *r, ts_str input,
                       const char **status, ts_error *err) {
    const ts_engine_hooks *hooks = config->mutant ? config->mutant->engine : NULL;
    ts_engine_options options = {.hooks = hooks};
    ts_engine *engine = ts_engine_open(store, &world->base, r->thread, input, &options, err);
    if (!engine) return false;
    ts_engine_state state;
    bool ok = ts_engine_run(engine, &state, err);
    if (ok && state == TS_ENGINE_WAITING_SIGNAL && hooks && hooks->after_turn && ts_engine_commits(engine) > 0)
        ok = NOTIFIED(world, hooks->after_turn_what,
                      hooks->after_turn(options.hooks_context, store, ts_engine_journal(engine), world->arena, err));
    *status = state == TS_ENGINE_WAITING_TASK ? "waiting" : "idle";
    ts_engine_close(engine);
    return ok;
}

/* ------------------------------------------------------------- stores and durability ---- */

static ts_durability_bug durability_bug(const ts_testee_config *config) {
    return config->mutant ? config->mutant->durability : TS_DURABLE;
}

static bool acks_before_write(const ts_testee_config *config) {
    return durability_bug(config) == TS_DURABILITY_ACK_BEFORE_WRITE && config->deferred;
}

const char *ts_testee_durability(const ts_testee_config *config) {
    return config->store == TS_RESUME_STORE_FILES || config->synchronous == TS_SQLITE_SYNC_FULL ? "power-loss"
                                                                                                : "process-crash";
}

/* The thread's store in dir, as the configuration (and a mutant's bug) has it. */
static ts_store *open_store(const ts_testee_config *config, const char *dir, ts_error *err) {
    ts_durability_bug bug = durability_bug(config);
    bool files = config->store == TS_RESUME_STORE_FILES || bug == TS_DURABILITY_INDEX_BEFORE_RECORD ||
                 bug == TS_DURABILITY_UNCHECKED_TORN_RECORD || bug == TS_DURABILITY_RENAME_WITHOUT_DIR_SYNC;
    if (files) {
        ts_file_store_options options = {.index_before_record = bug == TS_DURABILITY_INDEX_BEFORE_RECORD,
                                         .unchecked_group_sync = bug == TS_DURABILITY_UNCHECKED_TORN_RECORD,
                                         .no_directory_sync = bug == TS_DURABILITY_RENAME_WITHOUT_DIR_SYNC};
        return ts_file_store_open(dir, &options, err);
    }
    char path[4200];
    snprintf(path, sizeof path, "%s/journal.db", dir);
    ts_sqlite_options options = {.synchronous = bug == TS_DURABILITY_NEVER_FSYNC ? TS_SQLITE_SYNC_OFF
                                                                                  : (ts_sqlite_synchronous)config->synchronous};
    return ts_sqlite_store_open(path, &options, err);
}

static void defer_signal(const ts_testee_config *config, const char *dir, const ts_json *signal, uint64_t events_applied) {
    ts_deferred_write *d = config->deferred;
    snprintf(d->dir, sizeof d->dir, "%s", dir);
    ts_buf_reset(&d->signal);
    ts_codec_write(&d->signal, signal, TS_WRITE_COMPACT);
    d->events_applied = events_applied;
    d->pending = !d->signal.failed;
}

void ts_testee_after_answer(const ts_testee_config *config) {
    ts_deferred_write *d = config->deferred;
    if (!d || !d->pending) return;
    d->pending = false;
    ts_error err;
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json signal;
    ts_store *store = open_store(config, d->dir, &err);
    if (store && ts_codec_parse(&arena, d->signal.data, d->signal.len, &signal, &err))
        ts_store_deliver_signal(store, &signal, d->events_applied, &err);
    ts_store_close(store);
    ts_arena_free(&arena);
}

/* An edit or a fork (PROTOCOL.md `resume`): the engine's own branch, a signal that replaces the
 * transcript from a position on ("branchFrom") and is consumed at once, whatever is pending
 * ("immediate"); then the engine runs on the new branch. The resume-branch-keeps-suffix mutant
 * checks the position as the reference does, then delivers a plain message: no cut. */
static bool branch(const ts_testee_config *config, ts_store *store, pipe_world *world, const request *r,
                   const ts_journal *j, ts_str text, const char **status, ts_error *err) {
    const ts_json *a = r->action, *edit = ts_json_get(a, "edit"), *at = edit ? edit : ts_json_get(a, "fork");
    size_t position = 0;
    if (!at || at->kind != TS_JSON_INT) return ts_error_set(err, TS_ERR_INPUT, "an edit or a fork needs an integer position"), false;
    if (!branch_position(j, world->arena, edit != NULL, at->u.i, &position, err)) return false;
    ts_json_builder b;
    ts_json_builder_init(&b, world->arena);
    ts_json_builder_add(&b, "text", ts_json_make_string(text));
    if (!(config->mutant && config->mutant->branch == TS_BRANCH_KEEPS_SUFFIX)) {
        ts_json_builder_add(&b, "branchFrom", ts_json_make_int((int64_t)position));
        ts_json_builder_add(&b, "immediate", ts_json_make_bool(true));
    }
    ts_json signal;
    return ts_json_builder_finish(&b, &signal) &&
           NOTIFIED(world, "an edit or a fork into the inbox", ts_store_deliver_signal(store, &signal, j->events_applied + 1, err)) &&
           run_engine(config, store, world, r, (ts_str){NULL, 0}, status, err);
}

static bool act(const ts_testee_config *config, ts_store *store, pipe_world *world, const request *r, ts_buf *out,
                ts_error *err) {
    ts_arena *arena = world->arena;
    ts_journal j;
    ts_journal_init(&j);
    bool ok = ts_store_load(store, arena, &j, err);
    const ts_json *a = r->action;
    ts_str user = ts_json_string(ts_json_get(a, "user")), call_id = ts_json_string(ts_json_get(a, "complete"));
    const char *status = "idle";
    if (!ok) {
    } else if (ts_json_get(a, "read")) {
        const ts_json *history = ts_json_get(a, "history");
        ts_buf_appendf(out, ",\"status\":\"%s\",\"messages\":", waiting_on_tool(&j, arena) ? "waiting" : "idle");
        ok = read_conversation(&j, arena, out, err);
        if (ok && history && history->kind == TS_JSON_TRUE) {
            ts_buf_append_str(out, ",\"history\":");
            ok = read_history(&j, arena, out, err);
        }
        status = NULL;
    } else if (user.ptr && (ts_json_get(a, "edit") || ts_json_get(a, "fork"))) {
        ok = branch(config, store, world, r, &j, user, &status, err);
    } else if (user.ptr && !j.has_checkpoint) { /* the first message: the execution's input */
        ok = run_engine(config, store, world, r, user, &status, err);
    } else if (user.ptr) {
        ts_json_builder b;
        ts_json_builder_init(&b, arena);
        ts_json_builder_add(&b, "text", ts_json_make_string(user));
        ts_json signal;
        ok = ts_json_builder_finish(&b, &signal);
        if (ok && acks_before_write(config) && waiting_on_tool(&j, arena)) { /* the mutant: "waiting" now, the write after */
            defer_signal(config, r->dir, &signal, j.events_applied + 1);
            status = "waiting";
        } else {
            ok = ok &&
                 NOTIFIED(world, "a user message into the inbox", ts_store_deliver_signal(store, &signal, j.events_applied + 1, err)) &&
                 run_engine(config, store, world, r, (ts_str){NULL, 0}, &status, err);
        }
    } else if (call_id.ptr) {
        const ts_task *pending = pending_task_of_call(&j, call_id, arena);
        const ts_json *result = ts_json_get(a, "result"), *error = ts_json_get(a, "error");
        if (pending && (result || error)) {
            ts_task done = *pending;
            done.status = error ? TS_TASK_FAILED : TS_TASK_COMPLETED;
            done.result = error ? *error : *result;
            ok = NOTIFIED(world, "a tool result that arrived", ts_store_complete_task(store, &done, j.events_applied + 1, err));
        }
        ok = ok && run_engine(config, store, world, r, (ts_str){NULL, 0}, &status, err);
    } else if (ts_json_get(a, "recover")) {
        ok = run_engine(config, store, world, r, (ts_str){NULL, 0}, &status, err);
    } else {
        ts_error_set(err, TS_ERR_INPUT, "the action is none of user, complete, recover and read");
        ok = false;
    }
    if (ok && status) ts_buf_appendf(out, ",\"status\":\"%s\"", status);
    ts_journal_free(&j);
    return ok;
}

void ts_testee_resume(const ts_testee_config *config, ts_arena *arena, const ts_json *request_json, ts_str id, ts_buf *out) {
    ts_error err;
    ts_error_clear(&err);
    request r;
    pipe_world world = {{&pipe_vtable}, config, id, arena, false};
    ts_buf body;
    ts_buf_init(&body);
    bool ok = false;
    ts_store *store = NULL;
    if (!config->exchange) {
        ts_error_set(&err, TS_ERR_REFUSED, "this testee has no channel for world calls");
    } else if (read_request(request_json, &r, &err)) {
        store = open_store(config, r.dir, &err);
        ok = store && act(config, store, &world, &r, &body, &err);
    }
    ts_store_close(store);
    ts_buf_append_str(out, "{\"id\":");
    ts_codec_write_string(out, id);
    if (ok) {
        ts_buf_append(out, body.data ? body.data : "", body.len);
    } else {
        ts_buf_append_str(out, ",\"error\":");
        ts_codec_write_string(out, ts_str_from(err.message[0] ? err.message : "the action failed"));
    }
    ts_buf_append_char(out, '}');
    ts_buf_free(&body);
}
