/* world.c — the world of a resume case; see world.h. */
#include "conformance/certifier/world.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/certifier/nemesis.h"
#include "conformance/protocol/conversation.h"
#include "core/json/codec.h"
#include "core/json/json_writer.h"

/* A run's recorded history (every line the testee wrote, with its reply) beyond this many bytes
 * ends the case ("history-limit"): memory stays bounded whatever the testee writes. */
static const size_t max_history_bytes = (size_t)64 << 20;

struct ts_case_world {
    const ts_case *c;
    ts_arena case_arena;        /* the actions */
    ts_scenario_action *actions;
    size_t action_count;
    long max_points;
    double deadline;
    unsigned branch;            /* what the testee's hello says it supports (TS_BRANCH_*) */
    /* the run in flight */
    ts_testee *testee;
    ts_nemesis *nemesis;
    const char *store;          /* the run's store, which each request names (the caller's) */
    ts_arena arena;             /* parsed lines of this run */
    ts_buf events;              /* the run's events: a JSON array, open until the run ends */
    ts_json_writer history;     /* writes events */
    size_t action;              /* the action in flight */
    long action_lines;          /* its world calls and commit notices so far */
    bool answered;              /* its answer came */
    bool killed;                /* the nemesis killed the testee during the action in flight */
    const ts_json *answer;      /* the last answer (parsed), or NULL */
    char protocol[300];         /* a protocol error seen in a line, or "" */
    ts_case_run_outcome *run;
    ts_case_pipelining pipelining; /* over every run of the case so far */
    bool unsettled_kill;        /* this run: the nemesis killed at a point without settling first */
};

ts_case_world *ts_case_world_new(const ts_case *c, char *why, size_t why_size) {
    ts_case_world *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    w->c = c;
    w->max_points = 1000;
    ts_arena_init(&w->case_arena);
    ts_arena_init(&w->arena);
    ts_buf_init(&w->events);
    ts_error err;
    if (!ts_scenario_actions(&c->scenario, &w->case_arena, &w->actions, &w->action_count, &err)) {
        snprintf(why, why_size, "%s", err.message);
        ts_case_world_free(w);
        return NULL;
    }
    for (size_t i = 0; i < w->action_count; i++)
        if (w->actions[i].kind == TS_SCENARIO_BRANCH) {
            snprintf(why, why_size, "events: a branch (the reference profile's edit) is not an action of the resume op: "
                     "edit or fork instead");
            ts_case_world_free(w);
            return NULL;
        }
    return w;
}

void ts_case_world_free(ts_case_world *w) {
    if (!w) return;
    ts_arena_free(&w->case_arena);
    ts_arena_free(&w->arena);
    ts_buf_free(&w->events);
    free(w);
}

unsigned ts_case_world_needs_branch(const ts_case_world *w) {
    unsigned kinds = 0;
    for (size_t i = 0; i < w->action_count; i++)
        kinds |= w->actions[i].kind == TS_SCENARIO_EDIT ? TS_BRANCH_EDIT : w->actions[i].kind == TS_SCENARIO_FORK ? TS_BRANCH_FORK : 0;
    return kinds;
}

void ts_case_world_set_branch(ts_case_world *w, unsigned supported) { w->branch = supported; }

bool ts_case_world_needs_async(const ts_case_world *w) {
    for (size_t i = 0; i < w->action_count; i++)
        if (w->actions[i].kind == TS_SCENARIO_COMPLETE) return true;
    for (size_t i = 0; i < w->c->scenario.tool_count; i++)
        if (w->c->scenario.tools[i].async) return true;
    return false;
}

void ts_case_world_set_bounds(ts_case_world *w, long max_points_per_action, double deadline) {
    w->max_points = max_points_per_action;
    w->deadline = deadline;
}

/* Appends one event (a JSON object's text) to the run's record. */
static void record_event(void *context, const char *json, size_t len) {
    ts_case_world *w = context;
    ts_jw_raw(&w->history, json, len);
}

/* An event of one member whose value is a string: {"restart":"kill"}. */
static void event_string(ts_case_world *w, const char *key, const char *value) {
    ts_jw_begin_object(&w->history);
    ts_jw_field_string(&w->history, key, value);
    ts_jw_end_object(&w->history);
}

/* The bytes of the events recorded so far (the array's opening bracket not counted). */
static size_t history_bytes(const ts_case_world *w) { return w->events.len ? w->events.len - 1 : 0; }

/* What the nemesis is shown of the run in flight at each call (nemesis.h): it decides from that,
 * never from the world itself. */
static ts_nemesis_observed observed(ts_case_world *w) {
    return (ts_nemesis_observed){w->action, w->answered, record_event, w};
}

static ts_line_verdict on_line(void *context, const char *line, size_t len, ts_buf *reply);

/* The silence a kill waits for once the case was seen pipelining: three times its slowest step,
 * between TS_TESTEE_AUTO_SETTLE_MIN and 5 s. */
static double settle_quiet(const ts_case_pipelining *p) {
    double quiet = 3 * p->slowest_step_seconds;
    return quiet < TS_TESTEE_AUTO_SETTLE_MIN ? TS_TESTEE_AUTO_SETTLE_MIN : quiet > 5 ? 5 : quiet;
}

void ts_case_world_pipelining(const ts_case_world *w, ts_case_pipelining *out) {
    *out = w->pipelining;
    out->kill_settle_ms = w->pipelining.lines ? (long)(settle_quiet(&w->pipelining) * 100 + 0.999) * 10 : 0;
}

bool ts_case_world_unsettled_kill(const ts_case_world *w) { return w->unsettled_kill; }

/* One request's conversation, settled before a kill once the case has been seen pipelining. */
static void converse(ts_case_world *w, const ts_buf *request, ts_call_result *result) {
    ts_testee_set_auto_settle(w->testee, w->pipelining.lines ? settle_quiet(&w->pipelining) : 0);
    ts_testee_converse(w->testee, request->data, request->len, on_line, w, result);
    ts_testee_set_auto_settle(w->testee, 0);
    w->pipelining.lines += result->pipelined_lines;
    if (result->slowest_step_seconds > w->pipelining.slowest_step_seconds)
        w->pipelining.slowest_step_seconds = result->slowest_step_seconds;
    if (w->killed && result->status == TS_CALL_CRASHED) {
        w->pipelining.settled_kills += result->settled_kill;
        w->unsettled_kill = !result->settled_kill;
    }
}

/* A bound of the case was reached: the run stops here, and so does the case. */
static ts_line_verdict reach_limit(ts_case_world *w, const char *limit, const char *detail) {
    w->run->limit = limit;
    snprintf(w->run->detail, sizeof w->run->detail, "%s", detail);
    return TS_LINE_KILL;
}

static bool past_deadline(const ts_case_world *w) { return w->deadline > 0 && ts_testee_clock() >= w->deadline; }

/* ------------------------------------------------------------------------- replies ---- */

/* A member whose value is a string of the scenario or of a line (a ts_str). */
static void field_str(ts_json_writer *out, const char *key, ts_str value) {
    ts_jw_key(out, key);
    ts_jw_string_len(out, value.ptr, value.len);
}

/* llm[k] as an assistant ChatMessage. */
static void scripted_message(ts_json_writer *out, const ts_json *answer) {
    ts_jw_begin_object(out);
    ts_jw_field_string(out, "role", "assistant");
    ts_jw_key(out, "contents");
    ts_jw_begin_array(out);
    ts_str text = ts_json_string(ts_json_get(answer, "text"));
    if (text.ptr) {
        ts_jw_begin_object(out);
        ts_jw_field_string(out, "$type", "text");
        field_str(out, "text", text);
        ts_jw_end_object(out);
    }
    const ts_json *calls = ts_json_get(answer, "toolCalls");
    for (size_t i = 0; calls && calls->kind == TS_JSON_ARRAY && i < calls->u.a.count; i++) {
        const ts_json *c = &calls->u.a.items[i];
        ts_jw_begin_object(out);
        ts_jw_field_string(out, "$type", "functionCall");
        field_str(out, "callId", ts_json_string(ts_json_get(c, "callId")));
        field_str(out, "name", ts_json_string(ts_json_get(c, "name")));
        ts_jw_key(out, "arguments");
        ts_jw_json(out, ts_json_get(c, "arguments"));
        ts_jw_end_object(out);
    }
    ts_jw_end_array(out);
    ts_jw_end_object(out);
}

/* A reply to a world call starts {"id": the case's, and ends with reply_end. */
static void reply_start(ts_case_world *w, ts_json_writer *out, ts_buf *reply) {
    ts_jw_init_buf(out, reply, 0);
    ts_jw_begin_object(out);
    ts_jw_field_string(out, "id", w->c->id);
}

/* An incomplete reply (out of memory) is marked failed in the reply's buffer. */
static void reply_end(ts_json_writer *out, ts_buf *reply) {
    ts_jw_end_object(out);
    if (!ts_jw_finish(out)) reply->failed = true;
}

/* Which scripted answer a view asks for: llm[k], k the assistant messages it shows — or, once a
 * branch (an edit or a fork) was sent, when the view holds its message (the latest such branch):
 * llm[b + j], b the answers the scenario used before that branch, j the assistant messages after
 * its message. The world follows the scenario, not the engine: a view of the abandoned branch
 * gets what it would have got without the branch. */
static size_t scripted_answer_index(const ts_case_world *w, const ts_item *items, size_t count) {
    for (size_t a = w->action + 1; a-- > 0;) {
        const ts_scenario_action *branch = &w->actions[a];
        if ((branch->kind != TS_SCENARIO_EDIT && branch->kind != TS_SCENARIO_FORK) || branch->refused) continue;
        for (size_t i = 0; i < count; i++)
            if (items[i].kind == TS_ITEM_USER && ts_str_eq(items[i].text, branch->text))
                return branch->answers_before + ts_count_assistants(items + i, count - i);
    }
    return ts_count_assistants(items, count);
}

/* A model call: llm[k] (scripted_answer_index); past the script, an error. The event records k
 * as its "reply" (null for an error). */
static void answer_model(ts_case_world *w, const ts_json *messages, ts_buf *reply) {
    ts_item *items;
    size_t count, k = 0;
    char why[300];
    ts_json_writer out;
    reply_start(w, &out, reply);
    bool read = ts_resume_items(messages, &w->arena, &items, &count, why, sizeof why);
    if (read) k = scripted_answer_index(w, items, count);
    if (read && k >= w->c->scenario.llm_count)
        snprintf(why, sizeof why, "the scenario scripts %zu model answers; this conversation asks for answer %zu",
                 w->c->scenario.llm_count, k + 1);
    if (read && k < w->c->scenario.llm_count) {
        ts_jw_key(&out, "reply");
        scripted_message(&out, &w->c->scenario.llm[k]);
        ts_jw_field_uint(&w->history, "reply", k);
    } else {
        ts_jw_field_string(&out, "error", why);
        ts_jw_key(&w->history, "reply");
        ts_jw_null(&w->history);
    }
    reply_end(&out, reply);
}

/* A tool call's reply: its script's result, error, or pending; a tool the scenario lacks fails. */
static void tool_reply(ts_json_writer *out, const ts_tool_script *tool, ts_str name) {
    ts_jw_begin_object(out);
    if (!tool) {
        char message[200];
        snprintf(message, sizeof message, "no tool named \"%.*s\"", (int)(name.len > 120 ? 120 : name.len), name.ptr);
        ts_jw_field_string(out, "error", message);
    } else if (tool->async) {
        ts_jw_field_bool(out, "pending", true);
    } else {
        ts_jw_key(out, tool->failed ? "error" : "result");
        ts_jw_json(out, &tool->result);
    }
    ts_jw_end_object(out);
}

/* A tool call: the reply, and the same as the event's "reply". */
static void answer_tool(ts_case_world *w, ts_str name, ts_buf *reply) {
    const ts_tool_script *tool = ts_scenario_tool(&w->c->scenario, name);
    ts_json_writer out;
    reply_start(w, &out, reply);
    ts_jw_key(&out, "reply");
    tool_reply(&out, tool, name);
    reply_end(&out, reply);
    ts_jw_key(&w->history, "reply");
    tool_reply(&w->history, tool, name);
}

/* Records a world call as point p (the event is left open for its reply). */
static void record_call(ts_case_world *w, long p, const ts_json *v, const ts_json *messages, ts_str call, ts_str commit) {
    ts_json_writer *h = &w->history;
    ts_jw_begin_object(h);
    ts_jw_field_int(h, "point", p);
    if (ts_testee_line_pipelined(w->testee)) ts_jw_field_bool(h, "pipelined", true);
    if (ts_str_eq_cstr(call, "model")) {
        ts_jw_key(h, "model");
        ts_jw_json(h, messages);
    } else if (ts_str_eq_cstr(call, "tool")) {
        ts_jw_key(h, "tool");
        ts_jw_begin_object(h);
        field_str(h, "name", ts_json_string(ts_json_get(v, "name")));
        field_str(h, "callId", ts_json_string(ts_json_get(v, "callId")));
        ts_jw_key(h, "arguments");
        ts_jw_json(h, ts_json_get(v, "arguments")); /* none: null */
        ts_jw_end_object(h);
    } else {
        field_str(h, "commit", commit);
        field_str(h, "what", ts_json_string(ts_json_get(v, "what")));
    }
}

/* A commit notice's reply. */
static void acknowledge(ts_case_world *w, ts_buf *reply) {
    ts_json_writer out;
    reply_start(w, &out, reply);
    ts_jw_field_bool(&out, "ack", true);
    reply_end(&out, reply);
}

/* Every line the testee writes during an action: a world call (a point), or the answer. */
static ts_line_verdict on_line(void *context, const char *line, size_t len, ts_buf *reply) {
    ts_case_world *w = context;
    ts_json v;
    ts_error err;
    if (!ts_codec_parse(&w->arena, line, len, &v, &err) || v.kind != TS_JSON_OBJECT) {
        snprintf(w->protocol, sizeof w->protocol, "a line that is not a JSON object: %.200s", err.message);
        return TS_LINE_KILL;
    }
    ts_str id = ts_json_string(ts_json_get(&v, "id")), call = ts_json_string(ts_json_get(&v, "call"));
    ts_str commit = ts_json_string(ts_json_get(&v, "commit"));
    if (!ts_str_eq_cstr(id, w->c->id)) {
        snprintf(w->protocol, sizeof w->protocol, "a line without this case's \"id\": %.200s", line);
        return TS_LINE_KILL;
    }
    bool is_call = call.ptr || commit.ptr;
    long point = 0;
    ts_nemesis_observed seen = observed(w);
    bool kill = ts_nemesis_at_line(w->nemesis, &seen, is_call, &point); /* the store's operations before it first */
    if (!is_call) { /* the answer */
        ts_jw_begin_object(&w->history);
        ts_jw_key(&w->history, "answer");
        ts_jw_json(&w->history, &v);
        ts_jw_end_object(&w->history);
        w->answer = ts_arena_alloc(&w->arena, sizeof v);
        if (w->answer) *(ts_json *)w->answer = v;
        w->answered = true;
        return TS_LINE_ANSWER;
    }
    const ts_json *messages = ts_json_get(&v, "messages");
    bool model = ts_str_eq_cstr(call, "model"), tool = ts_str_eq_cstr(call, "tool");
    if ((call.ptr && !model && !tool) || (model && !messages) ||
        (commit.ptr && !ts_str_eq_cstr(commit, "before") && !ts_str_eq_cstr(commit, "after"))) {
        snprintf(w->protocol, sizeof w->protocol, "an unknown world call: %.200s", line);
        return TS_LINE_KILL;
    }
    char why[200];
    if (past_deadline(w)) return reach_limit(w, "case-timeout", "the case reached its deadline (--case-timeout)");
    if (++w->action_lines > w->max_points) {
        snprintf(why, sizeof why, "the testee wrote more than %ld world calls and commit notices during one action "
                 "(--max-points-per-action)", w->max_points);
        return reach_limit(w, "point-limit", why);
    }
    if (history_bytes(w) > max_history_bytes) {
        snprintf(why, sizeof why, "the run's recorded history passed %zu bytes", max_history_bytes);
        return reach_limit(w, "history-limit", why);
    }
    record_call(w, point, &v, messages, call, commit);
    if (kill) {
        ts_jw_end_object(&w->history);
        ts_jw_begin_object(&w->history);
        ts_jw_field_int(&w->history, "killed", point);
        ts_jw_end_object(&w->history);
        w->killed = true;
        return TS_LINE_KILL;
    }
    if (model) answer_model(w, messages, reply);
    else if (tool) answer_tool(w, ts_json_string(ts_json_get(&v, "name")), reply);
    else acknowledge(w, reply);
    ts_jw_end_object(&w->history);
    return TS_LINE_REPLY;
}

/* ------------------------------------------------------------------------- actions ---- */

/* A request of the resume op (PROTOCOL.md): the case's id, the run's store, the thread, the tool
 * catalogue, and the action (its JSON text). */
static void write_request(const ts_case_world *w, const char *action, size_t action_len, ts_buf *request) {
    const ts_scenario *s = &w->c->scenario;
    ts_json_writer out;
    ts_jw_init_buf(&out, request, 0);
    ts_jw_begin_object(&out);
    ts_jw_field_string(&out, "id", w->c->id);
    ts_jw_field_string(&out, "op", "resume");
    ts_jw_field_string(&out, "store", w->store);
    ts_jw_field_string(&out, "thread", s->execution_id);
    ts_jw_key(&out, "tools");
    ts_jw_begin_array(&out);
    for (size_t i = 0; i < s->tool_count; i++) {
        ts_jw_begin_object(&out);
        field_str(&out, "name", s->tools[i].name);
        ts_jw_field_string(&out, "description", "a tool the certifier plays");
        ts_jw_key(&out, "parameters");
        ts_jw_begin_object(&out);
        ts_jw_field_string(&out, "type", "object");
        ts_jw_end_object(&out);
        ts_jw_end_object(&out);
    }
    ts_jw_end_array(&out);
    ts_jw_key(&out, "action");
    ts_jw_raw(&out, action, action_len);
    ts_jw_end_object(&out);
    if (!ts_jw_finish(&out)) request->failed = true;
}

/* Sends one action (its JSON text) and records it; false when the run cannot go on. A death
 * the nemesis caused (a kill at a point, an armed store operation) is a kill, not an outcome. */
static bool send(ts_case_world *w, const ts_buf *action, long of, int attempt) {
    const char *text = action->data ? action->data : "";
    ts_jw_begin_object(&w->history);
    ts_jw_key(&w->history, "send");
    ts_jw_raw(&w->history, text, action->len);
    if (of >= 0) {
        ts_jw_field_int(&w->history, "of", of);
        ts_jw_field_int(&w->history, "attempt", attempt);
    }
    ts_jw_end_object(&w->history);
    ts_buf request;
    ts_buf_init(&request);
    write_request(w, text, action->len, &request);
    w->answer = NULL;
    w->protocol[0] = '\0';
    w->action_lines = 0;
    w->answered = false;
    w->killed = false;
    ts_call_result result;
    if (past_deadline(w)) {
        reach_limit(w, "case-timeout", "the case reached its deadline (--case-timeout)");
        memset(&result, 0, sizeof result);
        result.status = TS_CALL_CASE_TIMEOUT;
    } else {
        converse(w, &request, &result);
    }
    ts_buf_free(&request);
    ts_case_run_outcome *run = w->run;
    bool died = result.status == TS_CALL_CRASHED || result.status == TS_CALL_EXITED;
    ts_nemesis_observed seen = observed(w);
    if (!run->limit && !w->protocol[0] && (w->killed || died) && ts_nemesis_after_death(w->nemesis, &seen, w->killed)) {
        w->killed = true;
        event_string(w, "restart", "kill");
        return true;
    }
    if (result.status == TS_CALL_ANSWERED && !w->protocol[0] && w->answer && !run->limit) return true;
    if (result.status == TS_CALL_CASE_TIMEOUT && !run->limit)
        reach_limit(w, "case-timeout", "the case reached its deadline (--case-timeout) waiting for a line");
    if (result.status == TS_CALL_TIMEOUT && result.loaded && !run->limit) /* the host starved it: no verdict (load_probe.h) */
        reach_limit(w, "overloaded", result.detail);
    run->outcome = run->limit ? run->limit : w->protocol[0] ? "protocol-error" : ts_call_status_name(result.status);
    if (!run->limit) snprintf(run->detail, sizeof run->detail, "%s", w->protocol[0] ? w->protocol : result.detail);
    if (result.status == TS_CALL_ANSWERED && !w->protocol[0] && !run->limit)
        snprintf(run->detail, sizeof run->detail, "an answer that is no object");
    ts_jw_begin_object(&w->history);
    ts_jw_field_string(&w->history, "outcome", run->outcome);
    ts_jw_field_string(&w->history, "detail", run->detail);
    ts_jw_end_object(&w->history);
    if (w->protocol[0]) ts_testee_stop(w->testee); /* out of step: start it afresh */
    run->aborted = true;
    return false;
}

/* A scenario action's JSON text: {"user":...}, {"edit"|"fork": n, "user":...}, {"complete":...}. */
static void action_text(const ts_scenario_action *a, ts_buf *out) {
    ts_buf_reset(out);
    ts_json_writer jw;
    ts_jw_init_buf(&jw, out, 0);
    ts_jw_begin_object(&jw);
    if (a->kind == TS_SCENARIO_EDIT || a->kind == TS_SCENARIO_FORK)
        ts_jw_field_uint(&jw, a->kind == TS_SCENARIO_EDIT ? "edit" : "fork", (unsigned long long)a->branch_at);
    if (a->kind == TS_SCENARIO_USER || a->kind == TS_SCENARIO_EDIT || a->kind == TS_SCENARIO_FORK) {
        field_str(&jw, "user", a->text);
    } else {
        field_str(&jw, "complete", a->call_id);
        ts_jw_key(&jw, a->failed ? "error" : "result");
        ts_jw_json(&jw, &a->result);
    }
    ts_jw_end_object(&jw);
    if (!ts_jw_finish(&jw)) out->failed = true;
}

/* Sends one of the op's own actions (none of the scenario's): {"read":true} or {"recover":true},
 * with "history":true a read of every branch. */
static bool send_op(ts_case_world *w, const char *op, bool history, long of, int attempt) {
    ts_buf text;
    ts_buf_init(&text);
    ts_json_writer jw;
    ts_jw_init_buf(&jw, &text, 0);
    ts_jw_begin_object(&jw);
    ts_jw_field_bool(&jw, op, true);
    if (history) ts_jw_field_bool(&jw, "history", true);
    ts_jw_end_object(&jw);
    if (!ts_jw_finish(&jw)) text.failed = true;
    bool sent = send(w, &text, of, attempt);
    ts_buf_free(&text);
    return sent;
}

/* After a kill: did the interrupted action take effect (its user message, its result, in the
 * stored conversation)? Reads it to find out: a user action took effect when the read holds at
 * least as many user messages as the branch held before it, and one more (the same text may be
 * sent twice), a complete when the read holds its call's result, an edit or a fork when the read
 * holds its message (a case that branches has distinct texts). */
static bool took_effect(ts_case_world *w, const ts_scenario_action *a) {
    if (!send_op(w, "read", false, -1, 0)) return true;
    ts_item *items;
    size_t count, users = 0;
    char why[300];
    if (!ts_resume_items(ts_json_get(w->answer, "messages"), &w->arena, &items, &count, why, sizeof why)) return true;
    bool result = false, text = false;
    for (size_t i = 0; i < count; i++) {
        users += items[i].kind == TS_ITEM_USER;
        text |= items[i].kind == TS_ITEM_USER && ts_str_eq(items[i].text, a->text);
        result |= items[i].kind == TS_ITEM_RESULT && ts_str_eq(items[i].call_id, a->call_id);
    }
    return a->kind == TS_SCENARIO_USER ? users >= a->users_before + 1 : a->kind == TS_SCENARIO_COMPLETE ? result : text;
}

static bool answered_unsupported(const ts_case_world *w) {
    const ts_json *u = ts_json_get(w->answer, "unsupported");
    return u && u->kind == TS_JSON_TRUE;
}

static void begin(ts_case_world *w, ts_testee *testee, ts_nemesis *nemesis, const char *store, ts_case_run_outcome *run) {
    memset(run, 0, sizeof *run);
    w->unsettled_kill = false;
    w->testee = testee;
    w->nemesis = nemesis;
    w->run = run;
    w->store = store;
    ts_buf_reset(&w->events);
    ts_jw_init_buf(&w->history, &w->events, 0);
    ts_jw_begin_array(&w->history);
    ts_arena_free(&w->arena);
    ts_arena_init(&w->arena);
}

/* A read at the end (history: of every branch); killed while it read (a store operation of the
 * read's): recover, and read again. */
static void final_read(ts_case_world *w, bool history) {
    if (send_op(w, "read", history, -1, 0) && w->killed && send_op(w, "recover", false, -1, 0))
        send_op(w, "read", history, -1, 0);
}

/* The run's JSON: {"kill": the point or null, the nemesis' faults, "events": [...]}. */
static void write_run(ts_case_world *w, ts_buf *out) {
    ts_jw_end_array(&w->history);
    bool recorded = ts_jw_finish(&w->history);
    ts_buf_reset(out);
    ts_json_writer jw;
    ts_jw_init_buf(&jw, out, 0);
    ts_jw_begin_object(&jw);
    long kill = ts_nemesis_kill_point(w->nemesis);
    ts_jw_key(&jw, "kill");
    if (kill) ts_jw_int(&jw, kill);
    else ts_jw_null(&jw);
    ts_nemesis_describe_run(w->nemesis, &jw);
    ts_jw_key(&jw, "events");
    ts_jw_raw(&jw, w->events.data ? w->events.data : "[]", w->events.data ? w->events.len : 2);
    ts_jw_end_object(&jw);
    if (!ts_jw_finish(&jw) || !recorded) out->failed = true;
}

void ts_case_world_run_case(ts_case_world *w, ts_testee *testee, ts_nemesis *nemesis, const char *store, ts_buf *out,
                       ts_case_run_outcome *run) {
    begin(w, testee, nemesis, store, run);
    ts_buf action;
    ts_buf_init(&action);
    for (size_t i = 0; i < w->action_count && !run->aborted; i++) {
        const ts_scenario_action *a = &w->actions[i];
        w->action = i;
        if (a->kind == TS_SCENARIO_RESTART) {
            ts_testee_stop(w->testee);
            ts_nemesis_observed seen = observed(w);
            ts_nemesis_restarted(nemesis, &seen);
            event_string(w, "restart", "clean");
            send_op(w, "recover", false, (long)i, 1);
        } else {
            action_text(a, &action);
            if (send(w, &action, (long)i, 1) && i == 0 && answered_unsupported(w)) {
                run->unsupported = true;
                break;
            }
        }
        if (w->killed && !run->aborted) { /* restart, recover, and retry what did not take */
            bool took = !send_op(w, "recover", false, -1, 0) || took_effect(w, a);
            if (!took && !run->aborted && a->kind != TS_SCENARIO_RESTART) {
                action_text(a, &action);
                send(w, &action, (long)i, 2);
            }
        }
    }
    if (!run->aborted && !run->unsupported) final_read(w, false);
    if (!run->aborted && !run->unsupported && ts_case_world_needs_branch(w) && (w->branch & TS_BRANCH_HISTORY))
        final_read(w, true); /* U13: every branch the engine keeps */
    ts_nemesis_observed seen = observed(w);
    ts_nemesis_end_run(nemesis, &seen);
    write_run(w, out);
    ts_buf_free(&action);
}
