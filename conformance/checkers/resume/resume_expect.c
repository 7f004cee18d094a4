/* resume_expect.c — a resume case's actions and expected conversation; conversations as
 * items; see resume_expect.h. */
#include "conformance/checkers/resume/resume_expect.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "conformance/checkers/findings.h"
#include "core/json/codec.h"

/* A growable array in an arena: items of `size` bytes. */
static void *grow(ts_arena *arena, void *items, size_t *cap, size_t count, size_t size) {
    if (count < *cap) return items;
    size_t next = *cap ? *cap * 2 : 8;
    void *grown = items ? ts_arena_grow(arena, items, *cap * size, next * size) : ts_arena_alloc(arena, next * size);
    if (grown) *cap = next;
    return grown;
}

/* ------------------------------------------------------------------ the simulation ---- */

typedef struct pending_call {
    ts_str call_id;
    size_t turn;        /* the assistant item that asked for it */
} pending_call;

typedef struct sim {
    const ts_scenario *scenario;
    ts_arena *arena;
    ts_expected *x;
    size_t assistant_cap, block_cap, action_cap;
    size_t *block_caps;
    pending_call *pending;
    size_t pending_count, pending_cap;
    size_t next_answer, users;
    bool failed;
} sim;

static ts_block *open_block(sim *s) { return &s->x->blocks[s->x->assistant_count]; }

static void add_item(sim *s, ts_item item) {
    ts_block *b = open_block(s);
    size_t *cap = &s->block_caps[s->x->assistant_count];
    ts_item *items = grow(s->arena, b->items, cap, b->count, sizeof *items);
    if (!items) {
        s->failed = true;
        return;
    }
    b->items = items;
    b->items[b->count++] = item;
}

static bool add_block(sim *s) {
    size_t n = s->x->assistant_count; /* the new open block's index: blocks[0..n] are needed */
    size_t old = s->block_cap;
    ts_block *blocks = grow(s->arena, s->x->blocks, &s->block_cap, n, sizeof *blocks);
    size_t *caps = blocks && old != s->block_cap
                       ? (s->block_caps ? ts_arena_grow(s->arena, s->block_caps, old * sizeof *caps, s->block_cap * sizeof *caps)
                                        : ts_arena_alloc(s->arena, s->block_cap * sizeof *caps))
                       : s->block_caps;
    if (!blocks || !caps) return false;
    s->x->blocks = blocks;
    s->block_caps = caps;
    memset(&blocks[n], 0, sizeof *blocks);
    caps[n] = 0;
    return true;
}

const ts_tool_script *ts_expected_tool(const ts_scenario *scenario, ts_str name) {
    return ts_scenario_tool(scenario, name);
}

static ts_item result_item(ts_str call_id, const ts_tool_script *tool) {
    ts_item item = {.kind = TS_ITEM_RESULT, .call_id = call_id, .value = ts_json_make_null()};
    item.value_free = !tool || tool->failed;
    if (tool && !tool->failed) item.value = tool->result;
    return item;
}

/* Runs the loop from the open block: model answers until one asks for nothing or leaves a
 * call pending. */
static void run_loop(sim *s) {
    const ts_scenario *sc = s->scenario;
    for (;;) {
        if (s->next_answer >= sc->llm_count) {
            s->x->overrun = true;
            return;
        }
        const ts_json *answer = &sc->llm[s->next_answer++];
        ts_item a = {.kind = TS_ITEM_ASSISTANT, .text = ts_json_string(ts_json_get(answer, "text"))};
        const ts_json *calls = ts_json_get(answer, "toolCalls");
        size_t n = calls && calls->kind == TS_JSON_ARRAY ? calls->u.a.count : 0;
        ts_item_call *list = ts_arena_calloc(s->arena, n + 1, sizeof *list);
        if (!list) {
            s->failed = true;
            return;
        }
        for (size_t i = 0; i < n; i++) {
            const ts_json *c = &calls->u.a.items[i];
            list[i].call_id = ts_json_string(ts_json_get(c, "callId"));
            list[i].name = ts_json_string(ts_json_get(c, "name"));
            const ts_json *arguments = ts_json_get(c, "arguments");
            list[i].arguments = arguments ? *arguments : ts_json_make_null();
        }
        a.calls = list;
        a.call_count = n;
        ts_item *assistants = grow(s->arena, s->x->assistants, &s->assistant_cap, s->x->assistant_count,
                                   sizeof *assistants);
        if (!assistants) {
            s->failed = true;
            return;
        }
        s->x->assistants = assistants;
        size_t turn = s->x->assistant_count;
        assistants[s->x->assistant_count++] = a;
        if (!add_block(s)) {
            s->failed = true;
            return;
        }
        for (size_t i = 0; i < n; i++) {
            const ts_tool_script *tool = ts_scenario_tool(sc, list[i].name);
            if (tool && tool->async) {
                pending_call *p = grow(s->arena, s->pending, &s->pending_cap, s->pending_count, sizeof *p);
                if (!p) {
                    s->failed = true;
                    return;
                }
                s->pending = p;
                s->pending[s->pending_count++] = (pending_call){list[i].call_id, turn};
            } else {
                add_item(s, result_item(list[i].call_id, tool));
            }
        }
        if (s->pending_count || n == 0) return;
    }
}

/* The tool script for a call id, by the name the scripted model gave it. */
static const ts_tool_script *tool_of_call(const ts_scenario *sc, ts_str call_id) {
    for (size_t k = 0; k < sc->llm_count; k++) {
        const ts_json *calls = ts_json_get(&sc->llm[k], "toolCalls");
        for (size_t i = 0; calls && calls->kind == TS_JSON_ARRAY && i < calls->u.a.count; i++)
            if (ts_str_eq(ts_json_string(ts_json_get(&calls->u.a.items[i], "callId")), call_id))
                return ts_scenario_tool(sc, ts_json_string(ts_json_get(&calls->u.a.items[i], "name")));
    }
    return NULL;
}

static ts_action *add_action(sim *s, ts_action_kind kind) {
    ts_action *actions = grow(s->arena, s->x->actions, &s->action_cap, s->x->action_count, sizeof *actions);
    if (!actions) {
        s->failed = true;
        return NULL;
    }
    s->x->actions = actions;
    ts_action *a = &actions[s->x->action_count++];
    memset(a, 0, sizeof *a);
    a->kind = kind;
    return a;
}

static void user_arrives(sim *s, ts_str text) {
    ts_action *a = add_action(s, TS_ACTION_USER);
    if (!a) return;
    a->text = text;
    add_item(s, (ts_item){.kind = TS_ITEM_USER, .text = text});
    s->users++;
    if (s->pending_count == 0) run_loop(s);
}

/* Whether a complete action is one every engine reads the same way: the call is pending, and
 * no async call asked before it by the same assistant item still is (an engine may run one
 * answer's calls one at a time, and not have invoked this one yet). */
static bool completes_in_order(const sim *s, ts_str call_id) {
    for (size_t i = 0; i < s->pending_count; i++) {
        if (!ts_str_eq(s->pending[i].call_id, call_id)) continue;
        const ts_item *asker = &s->x->assistants[s->pending[i].turn];
        for (size_t p = 0; p < asker->call_count && !ts_str_eq(asker->calls[p].call_id, call_id); p++)
            for (size_t k = 0; k < s->pending_count; k++)
                if (ts_str_eq(s->pending[k].call_id, asker->calls[p].call_id)) return false;
        return true;
    }
    return false;
}

static void complete_arrives(sim *s, ts_str call_id) {
    ts_action *a = add_action(s, TS_ACTION_COMPLETE);
    if (!a) return;
    a->call_id = call_id;
    const ts_tool_script *tool = tool_of_call(s->scenario, call_id);
    a->failed = !tool || tool->failed;
    a->result = tool ? tool->result : ts_json_make_string(ts_str_from("no such call"));
    for (size_t i = 0; i < s->pending_count; i++) {
        if (!ts_str_eq(s->pending[i].call_id, call_id)) continue;
        s->pending[i] = s->pending[--s->pending_count];
        ts_tool_script done = tool ? *tool : (ts_tool_script){0};
        done.async = false;
        add_item(s, result_item(call_id, tool ? &done : NULL));
        if (s->pending_count == 0) run_loop(s);
        return;
    }
}

/* The state the last action leaves: a call pending or not, and how many user items. */
static void settle(sim *s) {
    if (!s->x->action_count) return;
    s->x->actions[s->x->action_count - 1].waiting_after = s->pending_count > 0;
    s->x->actions[s->x->action_count - 1].users_after = s->users;
}

bool ts_expect_resume(const ts_scenario *scenario, ts_arena *arena, ts_expected *out, char *why, size_t why_size) {
    memset(out, 0, sizeof *out);
    sim s = {.scenario = scenario, .arena = arena, .x = out};
    for (size_t i = 0; i < scenario->event_count; i++)
        if (scenario->events[i].kind == TS_EVENT_BRANCH) {
            snprintf(why, why_size, "events[%zu]: a branch (an edit) is not part of resume cases", i);
            return false;
        }
    out->tools = ts_arena_alloc(arena, (scenario->tool_count + 1) * sizeof *out->tools);
    if (!out->tools || !add_block(&s)) goto oom;
    for (size_t i = 0; i < scenario->tool_count; i++) {
        out->tools[i] = ts_str_dup(arena, scenario->tools[i].name).ptr;
        if (!out->tools[i]) goto oom;
    }
    out->tool_count = scenario->tool_count;
    user_arrives(&s, scenario->input);
    settle(&s);
    for (size_t i = 0; i < scenario->event_count && !s.failed; i++) {
        const ts_event *ev = &scenario->events[i];
        if (ev->kind == TS_EVENT_COMPLETE && !completes_in_order(&s, ev->call_id)) {
            snprintf(why, why_size, "events[%zu]: completes %.*s, which is not pending then, or before an async call "
                     "the same answer asked for earlier (engines may run one answer's calls one at a time)", i,
                     (int)(ev->call_id.len > 60 ? 60 : ev->call_id.len), ev->call_id.ptr);
            return false;
        }
        if (ev->kind == TS_EVENT_SIGNAL) user_arrives(&s, ev->text);
        else if (ev->kind == TS_EVENT_COMPLETE) complete_arrives(&s, ev->call_id);
        else add_action(&s, TS_ACTION_RESTART);
        settle(&s);
    }
    if (s.failed) goto oom;
    /* Calls asked after one still pending at the end: a one-at-a-time engine has not reached them. */
    for (size_t p = 0, waiting = 0; out->assistant_count && p < out->assistants[out->assistant_count - 1].call_count; p++) {
        ts_item_call *c = (ts_item_call *)&out->assistants[out->assistant_count - 1].calls[p];
        c->may_wait = waiting > 0;
        for (size_t k = 0; k < s.pending_count; k++) waiting += ts_str_eq(s.pending[k].call_id, c->call_id);
        const ts_block *last = &out->blocks[out->assistant_count];
        for (size_t i = 0; c->may_wait && i < last->count; i++)
            if (last->items[i].kind == TS_ITEM_RESULT && ts_str_eq(last->items[i].call_id, c->call_id))
                last->items[i].optional = true;
    }
    if (out->overrun) {
        snprintf(why, why_size, "llm: the loop needs more than the %zu scripted model answers", scenario->llm_count);
        return false;
    }
    return true;
oom:
    snprintf(why, why_size, "out of memory");
    return false;
}

/* ------------------------------------------------------------------------ comparing ---- */

bool ts_result_matches(const ts_json *expected, const ts_json *got, ts_arena *arena) {
    if (ts_json_equal(expected, got)) return true;
    if (got->kind != TS_JSON_STRING) return false;
    if (expected->kind == TS_JSON_STRING) return ts_str_eq(expected->u.s, got->u.s);
    ts_json parsed;
    ts_error err;
    return ts_codec_parse_any(arena, got->u.s.ptr, got->u.s.len, &parsed, &err) && ts_json_equal(expected, &parsed);
}

static bool empty_arguments(const ts_json *v) {
    return v->kind == TS_JSON_NULL || (v->kind == TS_JSON_OBJECT && v->u.o.count == 0);
}

bool ts_assistant_matches(const ts_item *expected, const ts_item *got) {
    ts_str a = expected->text.ptr ? expected->text : ts_str_from(""), b = got->text.ptr ? got->text : ts_str_from("");
    if (!ts_str_eq(a, b) || expected->call_count != got->call_count) return false;
    for (size_t i = 0; i < expected->call_count; i++) {
        const ts_item_call *x = &expected->calls[i], *y = &got->calls[i];
        if (!ts_str_eq(x->call_id, y->call_id) || !ts_str_eq(x->name, y->name)) return false;
        bool both_empty = empty_arguments(&x->arguments) && empty_arguments(&y->arguments);
        if (!both_empty && !ts_json_equal(&x->arguments, &y->arguments)) return false;
    }
    return true;
}

static void excerpt(ts_str s, char *out, size_t size) {
    ts_json v = ts_json_make_string(s.ptr ? s : ts_str_from(""));
    ts_check_excerpt(&v, out, size);
}

void ts_item_describe(const ts_item *item, char *out, size_t size) {
    char text[80], value[80];
    switch (item->kind) {
    case TS_ITEM_USER:
        excerpt(item->text, text, sizeof text);
        snprintf(out, size, "user %s", text);
        break;
    case TS_ITEM_ASSISTANT: {
        excerpt(item->text, text, sizeof text);
        size_t used = (size_t)snprintf(out, size, "assistant %s", text);
        for (size_t i = 0; i < item->call_count && used < size; i++)
            used += (size_t)snprintf(out + used, size - used, "%s %.*s %.*s", i ? "," : " calling",
                                     (int)(item->calls[i].call_id.len > 40 ? 40 : item->calls[i].call_id.len),
                                     item->calls[i].call_id.ptr, (int)(item->calls[i].name.len > 40 ? 40 : item->calls[i].name.len),
                                     item->calls[i].name.ptr);
        break;
    }
    case TS_ITEM_RESULT:
        ts_check_excerpt(&item->value, value, sizeof value);
        snprintf(out, size, "result of %.*s: %s", (int)(item->call_id.len > 40 ? 40 : item->call_id.len),
                 item->call_id.ptr ? item->call_id.ptr : "", item->value_free ? "(any)" : value);
        break;
    }
}
