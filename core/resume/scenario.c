/* scenario.c — reading a scenario and answering for its scripted world; see scenario.h. */
#include "core/resume/scenario.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/json/assert.h"
#include "core/json/timestamp.h"

static bool fail(ts_error *err, ts_error_code code, const char *path, const char *what) {
    snprintf(err->path, sizeof err->path, "%s", path);
    ts_error_set(err, code, "%s", what);
    return false;
}

/* An LLM answer: {"text": string, "toolCalls": [{"callId", "name", "arguments": object}]}. */
static bool check_answer(const ts_json *answer, size_t index, ts_error *err) {
    char path[96];
    snprintf(path, sizeof path, "llm[%zu]", index);
    if (answer->kind != TS_JSON_OBJECT) return fail(err, TS_ERR_INPUT, path, "an LLM answer must be an object");
    const ts_json *text = ts_json_get(answer, "text");
    if (text && text->kind != TS_JSON_STRING) {
        snprintf(path, sizeof path, "llm[%zu].text", index);
        return fail(err, TS_ERR_INPUT, path, "must be a string");
    }
    const ts_json *calls = ts_json_get(answer, "toolCalls");
    if (!calls || calls->kind == TS_JSON_NULL) return true;
    if (calls->kind != TS_JSON_ARRAY) {
        snprintf(path, sizeof path, "llm[%zu].toolCalls", index);
        return fail(err, TS_ERR_INPUT, path, "must be an array");
    }
    for (size_t i = 0; i < calls->u.a.count; i++) {
        const ts_json *call = &calls->u.a.items[i];
        const char *fields[] = {"callId", "name", "arguments"};
        for (int f = 0; f < 3; f++) {
            const ts_json *v = call->kind == TS_JSON_OBJECT ? ts_json_get(call, fields[f]) : NULL;
            bool ok = v && (f < 2 ? v->kind == TS_JSON_STRING && v->u.s.len > 0 : v->kind == TS_JSON_OBJECT);
            if (!ok) {
                snprintf(path, sizeof path, "llm[%zu].toolCalls[%zu].%s", index, i, fields[f]);
                return fail(err, TS_ERR_INPUT, path, f < 2 ? "must be a non-empty string" : "must be an object");
            }
        }
    }
    return true;
}

static bool read_clock(const ts_json *clock, ts_scenario *out, ts_error *err) {
    if (clock->kind != TS_JSON_OBJECT) return fail(err, TS_ERR_INPUT, "clock", "must be an object");
    const ts_json *start = ts_json_get(clock, "start"), *step = ts_json_get(clock, "stepMs");
    ts_instant instant;
    const char *why = NULL;
    if (!start || start->kind != TS_JSON_STRING || !ts_instant_parse(start->u.s.ptr, start->u.s.len, &instant, &why))
        return fail(err, TS_ERR_INPUT, "clock.start", why ? why : "must be an RFC 3339 timestamp");
    if (!step || step->kind != TS_JSON_INT || step->u.i < 0 || step->u.i > 86400000)
        return fail(err, TS_ERR_INPUT, "clock.stepMs", "must be an integer from 0 to 86400000");
    if (instant.seconds < 0 || instant.seconds > 253402300799LL - 86400LL * 365 * 100)
        return fail(err, TS_ERR_INPUT, "clock.start", "must be between 1970 and 9899");
    out->has_clock = true;
    out->clock_start_seconds = instant.seconds;
    out->clock_start_ticks = instant.fraction / 1000000000LL; /* 10^-16 s -> 10^-7 s */
    out->clock_step_ms = step->u.i;
    return true;
}

static bool read_tools(const ts_json *tools, ts_arena *arena, ts_scenario *out, ts_error *err) {
    if (tools->kind != TS_JSON_OBJECT) return fail(err, TS_ERR_INPUT, "tools", "must be an object of tool name -> script");
    out->tools = ts_arena_calloc(arena, tools->u.o.count + 1, sizeof *out->tools);
    if (!out->tools) return fail(err, TS_ERR_NOMEM, "tools", "out of memory");
    char path[160];
    for (size_t i = 0; i < tools->u.o.count; i++) {
        const ts_member *m = &tools->u.o.members[i];
        ts_tool_script *t = &out->tools[out->tool_count++];
        snprintf(path, sizeof path, "tools.%.*s", (int)(m->key.len > 100 ? 100 : m->key.len), m->key.ptr);
        if (m->value.kind != TS_JSON_OBJECT) return fail(err, TS_ERR_INPUT, path, "a tool script must be an object");
        const ts_json *result = ts_json_get(&m->value, "result"), *error = ts_json_get(&m->value, "error");
        const ts_json *async = ts_json_get(&m->value, "async");
        if ((result != NULL) == (error != NULL)) return fail(err, TS_ERR_INPUT, path, "needs exactly one of \"result\" and \"error\"");
        if (error && error->kind != TS_JSON_STRING) return fail(err, TS_ERR_INPUT, path, "\"error\" must be a string");
        if (async && async->kind != TS_JSON_TRUE && async->kind != TS_JSON_FALSE)
            return fail(err, TS_ERR_INPUT, path, "\"async\" must be true or false");
        t->name = m->key;
        t->failed = error != NULL;
        t->result = error ? *error : *result;
        t->async = async && async->kind == TS_JSON_TRUE;
    }
    return true;
}

static bool read_events(const ts_json *events, ts_arena *arena, ts_scenario *out, ts_error *err) {
    if (events->kind != TS_JSON_ARRAY) return fail(err, TS_ERR_INPUT, "events", "must be an array");
    out->events = ts_arena_calloc(arena, events->u.a.count + 1, sizeof *out->events);
    if (!out->events) return fail(err, TS_ERR_NOMEM, "events", "out of memory");
    char path[64];
    for (size_t i = 0; i < events->u.a.count; i++) {
        const ts_json *e = &events->u.a.items[i];
        ts_event *ev = &out->events[out->event_count++];
        snprintf(path, sizeof path, "events[%zu]", i);
        if (e->kind != TS_JSON_OBJECT || e->u.o.count == 0)
            return fail(err, TS_ERR_INPUT, path, "an event must be an object: signal, branch, edit, fork, complete or restart");
        const ts_json *signal = ts_json_get(e, "signal"), *branch = ts_json_get(e, "branch");
        const ts_json *complete = ts_json_get(e, "complete"), *restart = ts_json_get(e, "restart");
        const ts_json *edit = ts_json_get(e, "edit"), *fork = ts_json_get(e, "fork");
        if ((signal != NULL) + (branch != NULL) + (complete != NULL) + (restart != NULL) + (edit != NULL) +
                (fork != NULL) != 1)
            return fail(err, TS_ERR_INPUT, path, "an event has exactly one of signal, branch, edit, fork, complete and restart");
        if (signal) {
            if (signal->kind != TS_JSON_STRING) return fail(err, TS_ERR_INPUT, path, "\"signal\" must be a string");
            ev->kind = TS_EVENT_SIGNAL;
            ev->text = signal->u.s;
        } else if (branch || edit || fork) {
            const ts_json *at = branch ? branch : edit ? edit : fork, *text = ts_json_get(e, "text");
            if (at->kind != TS_JSON_INT || at->u.i < 0)
                return fail(err, TS_ERR_INPUT, path, branch ? "\"branch\" must be a transcript index (an integer >= 0)"
                                       : edit ? "\"edit\" must be a user message's index (an integer >= 0)"
                                              : "\"fork\" must be an assistant message's index (an integer >= 0)");
            if (!text || text->kind != TS_JSON_STRING)
                return fail(err, TS_ERR_INPUT, path, "a branch, an edit or a fork needs a \"text\" string");
            ev->kind = branch ? TS_EVENT_BRANCH : edit ? TS_EVENT_EDIT : TS_EVENT_FORK;
            ev->branch_at = (uint64_t)at->u.i;
            ev->text = text->u.s;
        } else if (complete) {
            if (complete->kind != TS_JSON_STRING || complete->u.s.len == 0)
                return fail(err, TS_ERR_INPUT, path, "\"complete\" must name a tool call id");
            ev->kind = TS_EVENT_COMPLETE;
            ev->call_id = complete->u.s;
        } else {
            if (restart->kind != TS_JSON_TRUE) return fail(err, TS_ERR_INPUT, path, "\"restart\" must be true");
            ev->kind = TS_EVENT_RESTART;
        }
    }
    return true;
}

/* The cost cap (scenario.h). */
static bool check_cost(const ts_scenario *s, ts_error *err) {
    uint64_t steps = s->event_count + s->llm_count, rebuilds = 0;
    for (size_t i = 0; i < s->llm_count; i++) {
        const ts_json *calls = ts_json_get(&s->llm[i], "toolCalls");
        if (calls && calls->kind == TS_JSON_ARRAY) steps += calls->u.a.count;
    }
    for (size_t i = 0; i < s->event_count; i++)
        rebuilds += s->events[i].kind == TS_EVENT_RESTART || s->events[i].kind == TS_EVENT_BRANCH ||
                    s->events[i].kind == TS_EVENT_EDIT || s->events[i].kind == TS_EVENT_FORK;
    if (steps <= TS_SCENARIO_MAX_STEPS && (1 + rebuilds) * steps <= TS_SCENARIO_MAX_WORK) return true;
    char what[300];
    snprintf(what, sizeof what,
             "the scenario is too large: %llu steps (events, LLM answers and their tool calls) and %llu restarts and "
             "branches; the limits are %llu steps and (1 + restarts + branches) x steps <= %llu (core/resume/scenario.h)",
             (unsigned long long)steps, (unsigned long long)rebuilds, TS_SCENARIO_MAX_STEPS, TS_SCENARIO_MAX_WORK);
    return fail(err, TS_ERR_INPUT, "events", what);
}

bool ts_scenario_from_json(const ts_json *value, ts_arena *arena, ts_scenario *out, ts_error *err) {
    memset(out, 0, sizeof *out);
    if (value->kind != TS_JSON_OBJECT) return fail(err, TS_ERR_INPUT, "", "a scenario must be an object");
    const ts_json *id = ts_json_get(value, "executionId"), *input = ts_json_get(value, "input");
    if (!id || id->kind != TS_JSON_STRING || id->u.s.len != TS_UUID_TEXT - 1 || !ts_uuid_text_valid(id->u.s.ptr))
        return fail(err, TS_ERR_INPUT, "executionId", "must be a canonical UUID (lowercase 8-4-4-4-12)");
    memcpy(out->execution_id, id->u.s.ptr, 36);
    if (!input || input->kind != TS_JSON_STRING) return fail(err, TS_ERR_INPUT, "input", "must be a string (the first user message)");
    out->input = input->u.s;
    const ts_json *clock = ts_json_get(value, "clock");
    if (clock && !read_clock(clock, out, err)) return false;
    const ts_json *llm = ts_json_get(value, "llm");
    if (!llm || llm->kind != TS_JSON_ARRAY) return fail(err, TS_ERR_INPUT, "llm", "must be an array of answers");
    for (size_t i = 0; i < llm->u.a.count; i++)
        if (!check_answer(&llm->u.a.items[i], i, err)) return false;
    out->llm = llm->u.a.items;
    out->llm_count = llm->u.a.count;
    const ts_json *tools = ts_json_get(value, "tools");
    if (tools && !read_tools(tools, arena, out, err)) return false;
    const ts_json *events = ts_json_get(value, "events");
    if (events && !read_events(events, arena, out, err)) return false;
    static const char *const known[] = {"executionId", "clock", "input", "llm", "tools", "events", "name", "description"};
    for (size_t i = 0; i < value->u.o.count; i++) {
        bool found = false;
        for (size_t k = 0; k < sizeof known / sizeof known[0]; k++) found |= ts_str_eq_cstr(value->u.o.members[i].key, known[k]);
        if (!found) {
            char path[120];
            snprintf(path, sizeof path, "%.*s", (int)(value->u.o.members[i].key.len > 100 ? 100 : value->u.o.members[i].key.len),
                     value->u.o.members[i].key.ptr);
            return fail(err, TS_ERR_INPUT, path, "is not a scenario field (executionId, clock, input, llm, tools, events)");
        }
    }
    return check_cost(out, err);
}

const ts_tool_script *ts_scenario_tool(const ts_scenario *scenario, ts_str name) {
    for (size_t i = 0; i < scenario->tool_count; i++)
        if (ts_str_eq(scenario->tools[i].name, name)) return &scenario->tools[i];
    return NULL;
}

/* The tool llm's toolCalls name for call_id, or an empty string when no answer asks for it. */
static ts_str tool_of_call(const ts_scenario *scenario, ts_str call_id) {
    for (size_t i = 0; i < scenario->llm_count; i++) {
        const ts_json *calls = ts_json_get(&scenario->llm[i], "toolCalls");
        for (size_t k = 0; calls && calls->kind == TS_JSON_ARRAY && k < calls->u.a.count; k++)
            if (ts_str_eq(ts_json_string(ts_json_get(&calls->u.a.items[k], "callId")), call_id))
                return ts_json_string(ts_json_get(&calls->u.a.items[k], "name"));
    }
    return (ts_str){NULL, 0};
}

/* What a client counts of the conversation while it sends the actions (ts_scenario_action):
 * SPEC §6.1's loop on the current branch — the model answers in order, a synchronous tool's
 * result at once, an asynchronous call pending until its `complete` — and §6.4's branches: an
 * edit of user message K keeps the assistant messages before it, a fork at N the first N. */
typedef struct played_call {
    ts_str call_id;
    size_t answer;          /* the llm answer that asked for it */
} played_call;

typedef struct client_count {
    const ts_scenario *scenario;
    size_t answers;         /* model answers used, over every branch */
    size_t *answer_at;      /* answer_at[i]: the llm answer assistant message i of this branch is */
    size_t *users_at;       /* users_at[i]: user messages before assistant message i */
    size_t assistants, users;
    played_call *pending;   /* async calls asked for and not completed */
    size_t pending_count;
    played_call *abandoned; /* calls a branch abandoned while they were pending */
    size_t abandoned_count;
    bool overrun;           /* the loop asked for more answers than llm holds */
} client_count;

static const ts_json *tool_calls_of(const ts_scenario *scenario, size_t answer) {
    const ts_json *calls = ts_json_get(&scenario->llm[answer], "toolCalls");
    return calls && calls->kind == TS_JSON_ARRAY ? calls : NULL;
}

/* false: out of memory. Every answer is used once at most, so no more calls than llm asks for
 * are ever pending or abandoned. */
static bool count_init(client_count *c, const ts_scenario *scenario, ts_arena *arena) {
    size_t calls = 0;
    for (size_t k = 0; k < scenario->llm_count; k++) {
        const ts_json *asked = tool_calls_of(scenario, k);
        calls += asked ? asked->u.a.count : 0;
    }
    *c = (client_count){.scenario = scenario, .users = 1};
    c->answer_at = ts_arena_calloc(arena, scenario->llm_count + 1, sizeof *c->answer_at);
    c->users_at = ts_arena_calloc(arena, scenario->llm_count + 1, sizeof *c->users_at);
    c->pending = ts_arena_calloc(arena, calls + 1, sizeof *c->pending);
    c->abandoned = ts_arena_calloc(arena, calls + 1, sizeof *c->abandoned);
    return c->answer_at && c->users_at && c->pending && c->abandoned;
}

/* The loop from a user message or the last result: the model answers until an answer asks for
 * nothing or leaves an async call pending (a synchronous call's result follows at once). */
static void count_loop(client_count *c) {
    const ts_scenario *sc = c->scenario;
    while (c->pending_count == 0) {
        if (c->answers >= sc->llm_count) {
            c->overrun = true;
            return;
        }
        size_t g = c->answers++;
        const ts_json *calls = tool_calls_of(sc, g);
        c->answer_at[c->assistants] = g;
        c->users_at[c->assistants++] = c->users;
        size_t n = calls ? calls->u.a.count : 0;
        for (size_t i = 0; i < n; i++) {
            const ts_tool_script *tool = ts_scenario_tool(sc, ts_json_string(ts_json_get(&calls->u.a.items[i], "name")));
            if (tool && tool->async)
                c->pending[c->pending_count++] = (played_call){ts_json_string(ts_json_get(&calls->u.a.items[i], "callId")), g};
        }
        if (n == 0) return; /* the turn is over */
    }
}

/* The index of call_id among the pending calls, or pending_count when it is not pending. */
static size_t pending_index(const client_count *c, ts_str call_id) {
    size_t i = 0;
    while (i < c->pending_count && !ts_str_eq(c->pending[i].call_id, call_id)) i++;
    return i;
}

static void count_complete(client_count *c, ts_str call_id) {
    size_t at = pending_index(c, call_id);
    if (at == c->pending_count) return; /* not pending (abandoned by a branch, or a stray) */
    c->pending[at] = c->pending[--c->pending_count];
    if (c->pending_count == 0) count_loop(c);
}

/* The assistant messages before user message `at` of this branch. */
static size_t assistants_before_user(const client_count *c, size_t at) {
    size_t kept = 0;
    while (kept < c->assistants && c->users_at[kept] <= at) kept++;
    return kept;
}

/* An edit or a fork: refused when the conversation has no such position; else the branch keeps
 * its prefix, abandons what is pending, takes the new message and runs. */
static void count_branch(client_count *c, ts_scenario_action *a) {
    a->answers_before = c->answers;
    size_t at = a->branch_at > SIZE_MAX / 2 ? SIZE_MAX / 2 : (size_t)a->branch_at;
    if (a->kind == TS_SCENARIO_EDIT) {
        a->refused = at >= c->users;
        if (a->refused) return;
        c->assistants = assistants_before_user(c, at);
        c->users = at;
    } else {
        a->refused = at > c->assistants || (at == c->assistants && c->pending_count > 0);
        if (a->refused) return;
        if (at < c->assistants) c->users = c->users_at[at];
        c->assistants = at;
    }
    for (size_t i = 0; i < c->pending_count; i++) c->abandoned[c->abandoned_count++] = c->pending[i];
    c->pending_count = 0;
    c->users++;
    count_loop(c);
}

static ts_scenario_action complete_action(const ts_scenario *scenario, const ts_event *e, size_t i, ts_error *err) {
    const ts_tool_script *tool = ts_scenario_tool(scenario, tool_of_call(scenario, e->call_id));
    if (!tool) {
        ts_error_set(err, TS_ERR_INPUT, "events[%zu].complete: no llm answer calls a scripted tool with call id \"%.*s\"", i,
                     (int)(e->call_id.len > 60 ? 60 : e->call_id.len), e->call_id.ptr ? e->call_id.ptr : "");
        return (ts_scenario_action){.kind = TS_SCENARIO_RESTART};
    }
    return (ts_scenario_action){.kind = TS_SCENARIO_COMPLETE, .call_id = e->call_id, .failed = tool->failed,
                                .result = tool->result};
}

static ts_scenario_action_kind action_kind(ts_event_kind kind) {
    return kind == TS_EVENT_BRANCH ? TS_SCENARIO_BRANCH : kind == TS_EVENT_EDIT ? TS_SCENARIO_EDIT : TS_SCENARIO_FORK;
}

bool ts_scenario_actions(const ts_scenario *scenario, ts_arena *arena, ts_scenario_action **out, size_t *count,
                         ts_error *err) {
    ts_scenario_action *actions = ts_arena_calloc(arena, scenario->event_count + 1, sizeof *actions);
    client_count c;
    if (!count_init(&c, scenario, arena) || !actions) return ts_error_set(err, TS_ERR_NOMEM, "out of memory"), false;
    size_t n = 0;
    actions[n++] = (ts_scenario_action){.kind = TS_SCENARIO_USER, .text = scenario->input};
    count_loop(&c);
    for (size_t i = 0; i < scenario->event_count; i++) {
        const ts_event *e = &scenario->events[i];
        ts_scenario_action *a = &actions[n++];
        if (e->kind == TS_EVENT_SIGNAL) {
            *a = (ts_scenario_action){.kind = TS_SCENARIO_USER, .text = e->text, .users_before = c.users++};
            if (c.pending_count == 0) count_loop(&c);
        } else if (e->kind == TS_EVENT_BRANCH || e->kind == TS_EVENT_EDIT || e->kind == TS_EVENT_FORK) {
            *a = (ts_scenario_action){.kind = action_kind(e->kind), .text = e->text, .branch_at = e->branch_at};
            if (e->kind != TS_EVENT_BRANCH) count_branch(&c, a);
        } else if (e->kind == TS_EVENT_RESTART) {
            *a = (ts_scenario_action){.kind = TS_SCENARIO_RESTART};
        } else {
            *a = complete_action(scenario, e, i, err);
            if (a->kind != TS_SCENARIO_COMPLETE) return false;
            count_complete(&c, e->call_id);
        }
    }
    *out = actions;
    *count = n;
    return true;
}

/* ------------------------------------------------ playing the scenario as a resume case ---- */

/* A complete every engine reads the same way: its call is pending, and no async call asked
 * before it by the same answer still is (an engine may run one answer's calls one at a time). */
static bool completes_in_order(const client_count *c, ts_str call_id) {
    size_t at = pending_index(c, call_id);
    if (at == c->pending_count) return false;
    const ts_json *calls = tool_calls_of(c->scenario, c->pending[at].answer);
    for (size_t k = 0; calls && k < calls->u.a.count; k++) {
        ts_str before = ts_json_string(ts_json_get(&calls->u.a.items[k], "callId"));
        if (ts_str_eq(before, call_id)) break;
        if (pending_index(c, before) < c->pending_count) return false;
    }
    return true;
}

static bool abandoned_while_pending(const client_count *c, ts_str call_id) {
    for (size_t i = 0; i < c->abandoned_count; i++)
        if (ts_str_eq(c->abandoned[i].call_id, call_id)) return true;
    return false;
}

/* An edit that plays the same way for every engine: not of a user message that arrived behind
 * an assistant message's tool calls (whether the branch begins before or after their results
 * is the engine's choice). A refused edit (no such message) plays: nothing happens. */
static bool edit_plays(const client_count *c, const ts_event *ev, size_t index, ts_error *err) {
    size_t at = ev->branch_at > SIZE_MAX / 2 ? SIZE_MAX / 2 : (size_t)ev->branch_at;
    if (at >= c->users) return true;
    size_t kept = assistants_before_user(c, at);
    const ts_json *calls = kept ? tool_calls_of(c->scenario, c->answer_at[kept - 1]) : NULL;
    if (!calls || calls->u.a.count == 0) return true;
    ts_error_set(err, TS_ERR_INPUT, "events[%zu]: edits user message %zu, which arrived behind the tool calls of assistant "
                 "message %zu: where the branch begins (before or after their results) is the engine's choice",
                 index, at, kept - 1);
    return false;
}

static bool event_plays(client_count *c, const ts_event *ev, size_t i, ts_error *err) {
    if (ev->kind == TS_EVENT_BRANCH) {
        ts_error_set(err, TS_ERR_INPUT, "events[%zu]: a branch (the reference profile's edit) is not part of resume cases: "
                     "edit or fork instead", i);
        return false;
    }
    if (ev->kind == TS_EVENT_COMPLETE && !completes_in_order(c, ev->call_id) && !abandoned_while_pending(c, ev->call_id)) {
        ts_error_set(err, TS_ERR_INPUT, "events[%zu]: completes %.*s, which is not pending then, or before an async call the same "
                     "answer asked for earlier (engines may run one answer's calls one at a time)", i,
                     (int)(ev->call_id.len > 60 ? 60 : ev->call_id.len), ev->call_id.ptr);
        return false;
    }
    if (ev->kind == TS_EVENT_EDIT && !edit_plays(c, ev, i, err)) return false;
    if (ev->kind == TS_EVENT_SIGNAL) {
        c->users++;
        if (c->pending_count == 0) count_loop(c);
    } else if (ev->kind == TS_EVENT_COMPLETE) {
        count_complete(c, ev->call_id);
    } else if (ev->kind == TS_EVENT_EDIT || ev->kind == TS_EVENT_FORK) {
        ts_scenario_action a = {.kind = action_kind(ev->kind), .branch_at = ev->branch_at};
        count_branch(c, &a);
    }
    return true;
}

static bool no_arguments(const ts_json *v) {
    return !v || v->kind == TS_JSON_NULL || (v->kind == TS_JSON_OBJECT && v->u.o.count == 0);
}

/* Two answers the judge cannot tell apart: the same text, calls (ids, names) and arguments. */
static bool answers_alike(const ts_scenario *sc, size_t g, size_t h) {
    ts_str a = ts_json_string(ts_json_get(&sc->llm[g], "text")), b = ts_json_string(ts_json_get(&sc->llm[h], "text"));
    if (!ts_str_eq(a.ptr ? a : ts_str_from(""), b.ptr ? b : ts_str_from(""))) return false;
    const ts_json *c = tool_calls_of(sc, g), *d = tool_calls_of(sc, h);
    size_t n = c ? c->u.a.count : 0;
    if (n != (d ? d->u.a.count : 0)) return false;
    ts_json null = ts_json_make_null();
    for (size_t i = 0; i < n; i++) {
        const ts_json *x = &c->u.a.items[i], *y = &d->u.a.items[i];
        if (!ts_str_eq(ts_json_string(ts_json_get(x, "callId")), ts_json_string(ts_json_get(y, "callId"))) ||
            !ts_str_eq(ts_json_string(ts_json_get(x, "name")), ts_json_string(ts_json_get(y, "name"))))
            return false;
        const ts_json *p = ts_json_get(x, "arguments"), *q = ts_json_get(y, "arguments");
        if (!(no_arguments(p) && no_arguments(q)) && !ts_json_equal(p ? p : &null, q ? q : &null)) return false;
    }
    return true;
}

/* The text action `a` sends (0: the input, a > 0: events[a - 1]), or {NULL, 0}. */
static ts_str action_text(const ts_scenario *sc, size_t a) {
    if (a == 0) return sc->input;
    const ts_event *e = &sc->events[a - 1];
    return e->kind == TS_EVENT_SIGNAL || e->kind == TS_EVENT_EDIT || e->kind == TS_EVENT_FORK ? e->text : (ts_str){NULL, 0};
}

/* In a case that branches, items are followed by their content: user texts, the answers used
 * and call ids must be distinct. */
static bool distinct(const ts_scenario *sc, size_t answers_used, ts_error *err) {
    for (size_t a = 0; a <= sc->event_count; a++)
        for (size_t b = a + 1; b <= sc->event_count; b++) {
            ts_str s = action_text(sc, a), t = action_text(sc, b);
            if (s.ptr && t.ptr && ts_str_eq(s, t))
                return ts_error_set(err, TS_ERR_INPUT, "actions %zu and %zu send the same user message: in a case that "
                                    "branches every user message's text must be unique", a, b), false;
        }
    for (size_t g = 0; g < answers_used; g++)
        for (size_t h = g + 1; h < answers_used; h++)
            if (answers_alike(sc, g, h))
                return ts_error_set(err, TS_ERR_INPUT, "llm[%zu] and llm[%zu] are alike: in a case that branches every "
                                    "answer used must be unique", g, h), false;
    for (size_t g = 0; g < sc->llm_count; g++)
        for (size_t h = g; h < sc->llm_count; h++) {
            const ts_json *c = tool_calls_of(sc, g), *d = tool_calls_of(sc, h);
            for (size_t i = 0; c && i < c->u.a.count; i++)
                for (size_t k = g == h ? i + 1 : 0; d && k < d->u.a.count; k++)
                    if (ts_str_eq(ts_json_string(ts_json_get(&c->u.a.items[i], "callId")),
                                  ts_json_string(ts_json_get(&d->u.a.items[k], "callId"))))
                        return ts_error_set(err, TS_ERR_INPUT, "llm[%zu] and llm[%zu] share a call id: in a case that "
                                            "branches every call id must be unique", g, h), false;
        }
    return true;
}

bool ts_scenario_check_resume(const ts_scenario *scenario, ts_arena *arena, ts_error *err) {
    client_count c;
    if (!count_init(&c, scenario, arena)) return ts_error_set(err, TS_ERR_NOMEM, "out of memory"), false;
    count_loop(&c); /* the input */
    bool branches = false;
    for (size_t i = 0; i < scenario->event_count; i++) {
        branches |= scenario->events[i].kind == TS_EVENT_EDIT || scenario->events[i].kind == TS_EVENT_FORK;
        if (!event_plays(&c, &scenario->events[i], i, err)) return false;
    }
    if (c.overrun) {
        ts_error_set(err, TS_ERR_INPUT, "llm: the loop needs more than the %zu scripted model answers", scenario->llm_count);
        return false;
    }
    return !branches || distinct(scenario, c.answers, err);
}

/* Days since 1970-01-01 -> civil date (proleptic Gregorian; H. Hinnant's algorithm). */
static void civil_from_days(int64_t z, int64_t *y, unsigned *m, unsigned *d) {
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    unsigned doe = (unsigned)(z - era * 146097);
    unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t year = (int64_t)yoe + era * 400;
    unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    unsigned mp = (5 * doy + 2) / 153;
    *d = doy - (153 * mp + 2) / 5 + 1;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = year + (*m <= 2);
}

void ts_scenario_timestamp(const ts_scenario *scenario, uint64_t n, char out[TS_TIMESTAMP_TEXT]) {
    int64_t seconds, ticks; /* ticks: 100 ns, as .NET counts */
    if (scenario->has_clock) {
        int64_t step_ticks = (int64_t)n * scenario->clock_step_ms * 10000; /* n < 2^40 entries */
        int64_t all_ticks = scenario->clock_start_ticks + step_ticks % 10000000;
        seconds = scenario->clock_start_seconds + step_ticks / 10000000 + all_ticks / 10000000;
        ticks = all_ticks % 10000000;
    } else {
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        seconds = now.tv_sec;
        ticks = now.tv_nsec / 100;
    }
    int64_t days = seconds / 86400, rest = seconds % 86400, year;
    unsigned month, day;
    civil_from_days(days, &year, &month, &day);
    snprintf(out, TS_TIMESTAMP_TEXT, "%04d-%02u-%02uT%02d:%02d:%02d.%07d+00:00", (int)year, month % 13, day % 32,
             (int)(rest / 3600), (int)(rest / 60 % 60), (int)(rest % 60), (int)(ticks % 10000000));
}

/* ------------------------------------------------------------------ the scripted world ---- */

static bool scripted_model(ts_world *world, const ts_json *messages, const char (*ids)[TS_UUID_TEXT], size_t count,
                           uint64_t ordinal, ts_arena *arena, ts_json *answer, ts_error *err) {
    (void)messages, (void)ids, (void)count, (void)arena;
    const ts_scenario *s = ((ts_scenario_world *)world)->scenario;
    if (ordinal >= s->llm_count) {
        ts_error_set(err, TS_ERR_INPUT, "the scenario scripts %zu LLM answers and the engine asked for answer %llu", s->llm_count,
                     (unsigned long long)ordinal + 1);
        return false;
    }
    *answer = s->llm[ordinal];
    return true;
}

static bool scripted_tool(ts_world *world, ts_str name, ts_str call_id, const ts_json *arguments, ts_arena *arena,
                          ts_tool_status *status, ts_json *result, ts_error *err) {
    (void)call_id, (void)arguments;
    const ts_tool_script *tool = ts_scenario_tool(((ts_scenario_world *)world)->scenario, name);
    if (!tool) {
        char message[200];
        snprintf(message, sizeof message, "no tool named \"%.*s\"", (int)(name.len > 120 ? 120 : name.len),
                 name.ptr ? name.ptr : "");
        *status = TS_TOOL_FAILED;
        *result = ts_json_make_string(ts_str_dup(arena, ts_str_from(message)));
        if (!result->u.s.ptr) {
            ts_error_set(err, TS_ERR_NOMEM, "out of memory");
            return false;
        }
        return true;
    }
    *status = tool->async ? TS_TOOL_PENDING : tool->failed ? TS_TOOL_FAILED : TS_TOOL_DONE;
    *result = tool->async ? ts_json_make_null() : tool->result;
    return true;
}

static void scripted_timestamp(ts_world *world, uint64_t n, char out[TS_TIMESTAMP_TEXT]) {
    ts_scenario_timestamp(((ts_scenario_world *)world)->scenario, n, out);
}

static const ts_world_vtable scripted_vtable = {scripted_model, scripted_tool, scripted_timestamp, NULL};

void ts_scenario_world_init(ts_scenario_world *world, const ts_scenario *scenario) {
    world->base.vtable = &scripted_vtable;
    world->scenario = scenario;
}
