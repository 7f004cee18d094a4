/* resume_expect.c — a resume case's actions and expected conversation; conversations as
 * items; see resume_expect.h. */
#include "conformance/checkers/resume/resume_expect.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "conformance/checkers/findings.h"
#include "core/json/codec.h"


/* ------------------------------------------------------------------ the simulation ---- */

typedef struct pending_call {
    ts_str call_id;
    size_t turn;        /* the assistant item that asked for it */
} pending_call;

/* The epoch being built, with the capacities of its growable arrays. */
typedef struct building {
    ts_epoch e;
    size_t assistant_cap, block_cap, user_cap;
    size_t *block_caps;
} building;

typedef struct sim {
    const ts_scenario *scenario;
    ts_arena *arena;
    ts_expected *x;
    building cur;
    size_t action_cap, epoch_cap;
    pending_call *pending;
    size_t pending_count, pending_cap;
    size_t next_answer;
    bool failed;
} sim;

static ts_block *open_block(sim *s) { return &s->cur.e.blocks[s->cur.e.assistant_count]; }

static void add_item(sim *s, ts_item item) {
    ts_block *b = open_block(s);
    size_t *cap = &s->cur.block_caps[s->cur.e.assistant_count];
    ts_item *items = ts_arena_grow_array(s->arena, b->items, cap, b->count, sizeof *items);
    if (!items) {
        s->failed = true;
        return;
    }
    b->items = items;
    b->items[b->count++] = item;
}

static bool add_block(sim *s) {
    building *c = &s->cur;
    size_t n = c->e.assistant_count; /* the new open block's index: blocks[0..n] are needed */
    size_t old = c->block_cap;
    ts_block *blocks = ts_arena_grow_array(s->arena, c->e.blocks, &c->block_cap, n, sizeof *blocks);
    size_t *caps = blocks && old != c->block_cap
                       ? (c->block_caps ? ts_arena_grow(s->arena, c->block_caps, old * sizeof *caps, c->block_cap * sizeof *caps)
                                        : ts_arena_alloc(s->arena, c->block_cap * sizeof *caps))
                       : c->block_caps;
    if (!blocks || !caps) return false;
    c->e.blocks = blocks;
    c->block_caps = caps;
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

/* llm[g] as an assistant item (its calls in arena). */
static bool answer_item(sim *s, size_t g, ts_item *out) {
    const ts_json *answer = &s->scenario->llm[g];
    *out = (ts_item){.kind = TS_ITEM_ASSISTANT, .text = ts_json_string(ts_json_get(answer, "text"))};
    const ts_json *calls = ts_json_get(answer, "toolCalls");
    size_t n = calls && calls->kind == TS_JSON_ARRAY ? calls->u.a.count : 0;
    ts_item_call *list = ts_arena_calloc(s->arena, n + 1, sizeof *list);
    if (!list) return false;
    for (size_t i = 0; i < n; i++) {
        const ts_json *c = &calls->u.a.items[i];
        list[i].call_id = ts_json_string(ts_json_get(c, "callId"));
        list[i].name = ts_json_string(ts_json_get(c, "name"));
        const ts_json *arguments = ts_json_get(c, "arguments");
        list[i].arguments = arguments ? *arguments : ts_json_make_null();
    }
    out->calls = list;
    out->call_count = n;
    return true;
}

/* Appends answer g to the epoch being built. */
static bool add_assistant(sim *s, size_t g) {
    building *c = &s->cur;
    size_t cap = c->assistant_cap;
    ts_item *assistants = ts_arena_grow_array(s->arena, c->e.assistants, &c->assistant_cap, c->e.assistant_count, sizeof *assistants);
    size_t *answer_of = assistants && cap != c->assistant_cap
                            ? (c->e.answer_of ? ts_arena_grow(s->arena, c->e.answer_of, cap * sizeof *answer_of,
                                                              c->assistant_cap * sizeof *answer_of)
                                              : ts_arena_alloc(s->arena, c->assistant_cap * sizeof *answer_of))
                            : c->e.answer_of;
    if (!assistants || !answer_of) return false;
    c->e.assistants = assistants;
    c->e.answer_of = answer_of;
    answer_of[c->e.assistant_count] = g;
    assistants[c->e.assistant_count++] = s->x->answers[g];
    return add_block(s);
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
        size_t g = s->next_answer++;
        if (!answer_item(s, g, &s->x->answers[g])) {
            s->failed = true;
            return;
        }
        s->x->answers_used = s->next_answer;
        size_t turn = s->cur.e.assistant_count;
        if (!add_assistant(s, g)) {
            s->failed = true;
            return;
        }
        const ts_item *a = &s->x->answers[g];
        for (size_t i = 0; i < a->call_count; i++) {
            const ts_tool_script *tool = ts_scenario_tool(sc, a->calls[i].name);
            if (tool && tool->async) {
                pending_call *p = ts_arena_grow_array(s->arena, s->pending, &s->pending_cap, s->pending_count, sizeof *p);
                if (!p) {
                    s->failed = true;
                    return;
                }
                s->pending = p;
                s->pending[s->pending_count++] = (pending_call){a->calls[i].call_id, turn};
            } else {
                add_item(s, result_item(a->calls[i].call_id, tool));
            }
        }
        if (s->pending_count || a->call_count == 0) return;
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
    ts_action *actions = ts_arena_grow_array(s->arena, s->x->actions, &s->action_cap, s->x->action_count, sizeof *actions);
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

/* The user item of the action in flight (the last one added), in the open block. */
static void add_user(sim *s, ts_str text) {
    building *c = &s->cur;
    size_t *user_of = ts_arena_grow_array(s->arena, c->e.user_of, &c->user_cap, c->e.user_count, sizeof *user_of);
    if (!user_of) {
        s->failed = true;
        return;
    }
    c->e.user_of = user_of;
    user_of[c->e.user_count++] = s->x->action_count - 1;
    add_item(s, (ts_item){.kind = TS_ITEM_USER, .text = text});
}

static void user_arrives(sim *s, ts_str text) {
    ts_action *a = add_action(s, TS_ACTION_USER);
    if (!a) return;
    a->text = text;
    add_user(s, text);
    if (s->pending_count == 0) run_loop(s);
}

/* Whether a complete action is one every engine reads the same way: the call is pending, and
 * no async call asked before it by the same assistant item still is (an engine may run one
 * answer's calls one at a time, and not have invoked this one yet). */
static bool completes_in_order(const sim *s, ts_str call_id) {
    for (size_t i = 0; i < s->pending_count; i++) {
        if (!ts_str_eq(s->pending[i].call_id, call_id)) continue;
        const ts_item *asker = &s->cur.e.assistants[s->pending[i].turn];
        for (size_t p = 0; p < asker->call_count && !ts_str_eq(asker->calls[p].call_id, call_id); p++)
            for (size_t k = 0; k < s->pending_count; k++)
                if (ts_str_eq(s->pending[k].call_id, asker->calls[p].call_id)) return false;
        return true;
    }
    return false;
}

/* Was call_id pending when a branch abandoned it? */
static bool abandoned_while_pending(const sim *s, ts_str call_id) {
    for (size_t g = 0; g < s->x->answers_used; g++)
        for (size_t p = 0; p < s->x->answers[g].call_count; p++)
            if (s->x->pending_abandoned[g][p] && ts_str_eq(s->x->answers[g].calls[p].call_id, call_id)) return true;
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
    a->abandoned = true; /* checked by the caller: abandoned while pending */
}

/* ------------------------------------------------------------------------ branches ---- */

/* Copies `count` items into a new block of the epoch being built (its index: blocks so far). */
static bool copy_block(sim *s, size_t b, const ts_item *items, size_t count) {
    building *c = &s->cur;
    c->block_caps[b] = count;
    c->e.blocks[b].count = count;
    c->e.blocks[b].items = count ? ts_arena_alloc(s->arena, count * sizeof *items) : NULL;
    if (count && !c->e.blocks[b].items) return false;
    if (count) memcpy(c->e.blocks[b].items, items, count * sizeof *items);
    return true;
}

/* Closes the epoch built so far into x->epochs and starts the next from its first `assistants`
 * assistant items, its blocks before them, and `kept` items of the block after (its users among
 * them kept too): the new epoch's open block is that one. */
static bool open_epoch(sim *s, size_t assistants, size_t kept) {
    ts_expected *x = s->x;
    ts_epoch *epochs = ts_arena_grow_array(s->arena, x->epochs, &s->epoch_cap, x->epoch_count, sizeof *epochs);
    if (!epochs) return false;
    x->epochs = epochs;
    const ts_epoch old = s->cur.e;
    epochs[x->epoch_count++] = old;
    memset(&s->cur, 0, sizeof s->cur);
    s->cur.e.opened_by = x->action_count - 1;
    s->cur.e.kept_assistants = assistants;
    s->cur.block_caps = NULL;
    if (!add_block(s)) return false;
    for (size_t i = 0; i < assistants; i++)
        if (!copy_block(s, i, old.blocks[i].items, old.blocks[i].count) || !add_assistant(s, old.answer_of[i])) return false;
    if (!copy_block(s, assistants, old.blocks[assistants].items, kept)) return false;
    size_t users = 0;
    for (size_t b = 0; b <= assistants; b++)
        for (size_t i = 0; i < (b < assistants ? old.blocks[b].count : kept); i++) users += old.blocks[b].items[i].kind == TS_ITEM_USER;
    for (size_t o = 0; o < users; o++) {
        size_t *user_of = ts_arena_grow_array(s->arena, s->cur.e.user_of, &s->cur.user_cap, s->cur.e.user_count, sizeof *user_of);
        if (!user_of) return false;
        s->cur.e.user_of = user_of;
        user_of[s->cur.e.user_count++] = old.user_of[o];
    }
    /* what the old epoch held beyond the prefix is abandoned */
    size_t by = x->action_count - 1;
    for (size_t i = assistants; i < old.assistant_count; i++) x->answer_abandoned_by[old.answer_of[i]] = by;
    for (size_t o = users; o < old.user_count; o++) x->user_abandoned_by[old.user_of[o]] = by;
    for (size_t i = 0; i < s->pending_count; i++) {
        size_t g = old.answer_of[s->pending[i].turn];
        for (size_t p = 0; p < x->answers[g].call_count; p++)
            if (ts_str_eq(x->answers[g].calls[p].call_id, s->pending[i].call_id)) x->pending_abandoned[g][p] = true;
    }
    s->pending_count = 0;
    return true;
}

/* An edit of user message `at` or a fork at assistant message `at`: refused when the
 * conversation has no such position; no case when the edited message arrived behind tool calls. */
static bool branch_arrives(sim *s, const ts_event *ev, size_t index, char *why, size_t why_size) {
    ts_action *a = add_action(s, ev->kind == TS_EVENT_EDIT ? TS_ACTION_EDIT : TS_ACTION_FORK);
    if (!a) return true;
    a->text = ev->text;
    a->answers_before = s->next_answer;
    a->at = ev->branch_at > SIZE_MAX / 2 ? SIZE_MAX / 2 : (size_t)ev->branch_at;
    const ts_epoch *e = &s->cur.e;
    size_t assistants = a->at, kept = 0;
    if (a->kind == TS_ACTION_EDIT) {
        a->refused = a->at >= e->user_count;
        if (a->refused) return true;
        size_t o = 0;
        for (assistants = 0; assistants <= e->assistant_count; assistants++) {
            const ts_block *b = &e->blocks[assistants];
            for (kept = 0; kept < b->count && !(b->items[kept].kind == TS_ITEM_USER && o++ == a->at); kept++) {}
            if (kept < b->count) break;
        }
        if (assistants > 0 && e->assistants[assistants - 1].call_count > 0) {
            snprintf(why, why_size, "events[%zu]: edits user message %zu, which arrived behind the tool calls of assistant "
                     "message %zu: where the branch begins (before or after their results) is the engine's choice",
                     index, a->at, assistants - 1);
            return false;
        }
    } else {
        a->refused = a->at > e->assistant_count || (a->at == e->assistant_count && s->pending_count > 0);
        if (a->refused) return true;
        kept = e->blocks[a->at].count;
    }
    if (!open_epoch(s, assistants, kept)) {
        s->failed = true;
        return true;
    }
    add_user(s, ev->text);
    run_loop(s);
    return true;
}

/* The state the last action leaves: a call pending or not, how many user items, which epoch. */
static void settle(sim *s) {
    if (!s->x->action_count) return;
    ts_action *a = &s->x->actions[s->x->action_count - 1];
    a->waiting_after = s->pending_count > 0;
    a->users_after = s->cur.e.user_count;
    a->epoch_after = s->x->epoch_count; /* the epoch being built is the next to be closed */
}

/* In a case that branches, items are told apart by their content: user texts, answers and call
 * ids must be distinct. */
static bool distinct(const ts_scenario *sc, const ts_expected *x, char *why, size_t why_size) {
    for (size_t a = 0; a < x->action_count; a++)
        for (size_t b = a + 1; b < x->action_count; b++)
            if (x->actions[a].text.ptr && x->actions[b].text.ptr && ts_str_eq(x->actions[a].text, x->actions[b].text)) {
                snprintf(why, why_size, "actions %zu and %zu send the same user message: in a case that branches every "
                         "user message's text must be unique", a, b);
                return false;
            }
    for (size_t g = 0; g < x->answers_used; g++)
        for (size_t h = g + 1; h < x->answers_used; h++)
            if (ts_assistant_matches(&x->answers[g], &x->answers[h])) {
                snprintf(why, why_size, "llm[%zu] and llm[%zu] are alike: in a case that branches every answer used must be "
                         "unique", g, h);
                return false;
            }
    for (size_t g = 0; g < sc->llm_count; g++)
        for (size_t h = g; h < sc->llm_count; h++) {
            const ts_json *c = ts_json_get(&sc->llm[g], "toolCalls"), *d = ts_json_get(&sc->llm[h], "toolCalls");
            for (size_t i = 0; c && c->kind == TS_JSON_ARRAY && i < c->u.a.count; i++)
                for (size_t k = g == h ? i + 1 : 0; d && d->kind == TS_JSON_ARRAY && k < d->u.a.count; k++)
                    if (ts_str_eq(ts_json_string(ts_json_get(&c->u.a.items[i], "callId")),
                                  ts_json_string(ts_json_get(&d->u.a.items[k], "callId")))) {
                        snprintf(why, why_size, "llm[%zu] and llm[%zu] share a call id: in a case that branches every call "
                                 "id must be unique", g, h);
                        return false;
                    }
        }
    return true;
}

static bool prepare(const ts_scenario *scenario, ts_arena *arena, ts_expected *out) {
    size_t n = scenario->llm_count + 1;
    out->answers = ts_arena_calloc(arena, n, sizeof *out->answers);
    out->answer_abandoned_by = ts_arena_alloc(arena, n * sizeof *out->answer_abandoned_by);
    out->pending_abandoned = ts_arena_calloc(arena, n, sizeof *out->pending_abandoned);
    out->user_abandoned_by = ts_arena_alloc(arena, (scenario->event_count + 1) * sizeof *out->user_abandoned_by);
    out->tools = ts_arena_alloc(arena, (scenario->tool_count + 1) * sizeof *out->tools);
    if (!out->answers || !out->answer_abandoned_by || !out->pending_abandoned || !out->user_abandoned_by || !out->tools)
        return false;
    for (size_t g = 0; g < n; g++) {
        out->answer_abandoned_by[g] = TS_NOT_ABANDONED;
        const ts_json *calls = g < scenario->llm_count ? ts_json_get(&scenario->llm[g], "toolCalls") : NULL;
        out->pending_abandoned[g] = ts_arena_calloc(arena, (calls && calls->kind == TS_JSON_ARRAY ? calls->u.a.count : 0) + 1,
                                                    sizeof **out->pending_abandoned);
        if (!out->pending_abandoned[g]) return false;
    }
    for (size_t a = 0; a <= scenario->event_count; a++) out->user_abandoned_by[a] = TS_NOT_ABANDONED;
    for (size_t i = 0; i < scenario->tool_count; i++) {
        out->tools[i] = ts_str_dup(arena, scenario->tools[i].name).ptr;
        if (!out->tools[i]) return false;
    }
    out->tool_count = scenario->tool_count;
    for (size_t i = 0; i < scenario->event_count; i++)
        out->branches |= scenario->events[i].kind == TS_EVENT_EDIT || scenario->events[i].kind == TS_EVENT_FORK;
    return true;
}

/* Calls asked after one still pending at the end: a one-at-a-time engine has not reached them. */
static void mark_may_wait(sim *s) {
    ts_expected *out = s->x;
    for (size_t p = 0, waiting = 0; out->assistant_count && p < out->assistants[out->assistant_count - 1].call_count; p++) {
        ts_item_call *c = (ts_item_call *)&out->assistants[out->assistant_count - 1].calls[p];
        c->may_wait = waiting > 0;
        for (size_t k = 0; k < s->pending_count; k++) waiting += ts_str_eq(s->pending[k].call_id, c->call_id);
        const ts_block *last = &out->blocks[out->assistant_count];
        for (size_t i = 0; c->may_wait && i < last->count; i++)
            if (last->items[i].kind == TS_ITEM_RESULT && ts_str_eq(last->items[i].call_id, c->call_id))
                last->items[i].optional = true;
    }
}

static bool run_events(sim *s, char *why, size_t why_size) {
    const ts_scenario *scenario = s->scenario;
    for (size_t i = 0; i < scenario->event_count && !s->failed; i++) {
        const ts_event *ev = &scenario->events[i];
        if (ev->kind == TS_EVENT_BRANCH) {
            snprintf(why, why_size, "events[%zu]: a branch (the reference profile's edit) is not part of resume cases: "
                     "edit or fork instead", i);
            return false;
        }
        if (ev->kind == TS_EVENT_COMPLETE && !completes_in_order(s, ev->call_id) && !abandoned_while_pending(s, ev->call_id)) {
            snprintf(why, why_size, "events[%zu]: completes %.*s, which is not pending then, or before an async call "
                     "the same answer asked for earlier (engines may run one answer's calls one at a time)", i,
                     (int)(ev->call_id.len > 60 ? 60 : ev->call_id.len), ev->call_id.ptr);
            return false;
        }
        if (ev->kind == TS_EVENT_SIGNAL) user_arrives(s, ev->text);
        else if (ev->kind == TS_EVENT_COMPLETE) complete_arrives(s, ev->call_id);
        else if (ev->kind == TS_EVENT_RESTART) add_action(s, TS_ACTION_RESTART);
        else if (!branch_arrives(s, ev, i, why, why_size)) return false;
        settle(s);
    }
    return true;
}

bool ts_expect_resume(const ts_scenario *scenario, ts_arena *arena, ts_expected *out, char *why, size_t why_size) {
    memset(out, 0, sizeof *out);
    sim s = {.scenario = scenario, .arena = arena, .x = out};
    if (!prepare(scenario, arena, out) || !add_block(&s)) goto oom;
    add_action(&s, TS_ACTION_USER);
    if (!s.failed) {
        out->actions[0].text = scenario->input;
        add_user(&s, scenario->input);
        run_loop(&s);
    }
    settle(&s);
    if (!run_events(&s, why, why_size)) return false;
    if (s.failed) goto oom;
    /* the epoch being built is the last: close it */
    ts_epoch *epochs = ts_arena_grow_array(arena, out->epochs, &s.epoch_cap, out->epoch_count, sizeof *epochs);
    if (!epochs) goto oom;
    out->epochs = epochs;
    epochs[out->epoch_count++] = s.cur.e;
    out->assistants = s.cur.e.assistants;
    out->assistant_count = s.cur.e.assistant_count;
    out->blocks = s.cur.e.blocks;
    mark_may_wait(&s);
    if (out->overrun) {
        snprintf(why, why_size, "llm: the loop needs more than the %zu scripted model answers", scenario->llm_count);
        return false;
    }
    return !out->branches || distinct(scenario, out, why, why_size);
oom:
    snprintf(why, why_size, "out of memory");
    return false;
}

const ts_epoch *ts_expected_epoch(const ts_expected *x, size_t epoch) {
    return &x->epochs[epoch < x->epoch_count ? epoch : x->epoch_count - 1];
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
