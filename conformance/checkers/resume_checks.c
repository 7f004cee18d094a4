/* resume_checks.c — the universal resume rules on a recorded history; see resume_checks.h. */
#include "conformance/checkers/resume_checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/checkers/checks.h"
#include "conformance/checkers/resume_expect.h"
#include "conformance/checkers/resume_match.h"
#include "core/json/buf.h"
#include "core/json/codec.h"
#include "core/json/timestamp.h"

enum { MAX_INVOCATIONS = 8 };

/* What was last seen of one X item: its message's id and timestamp, and when. */
typedef struct sighting {
    bool seen;
    ts_str message_id, created_at;
    size_t event;
    size_t made;        /* the last event that produced it again (a model or tool call, a re-sent action) */
} sighting;

typedef struct invocations {
    size_t count;
    long points[MAX_INVOCATIONS];
    long window_end[MAX_INVOCATIONS]; /* the first protocol point after it (0: none yet) */
} invocations;

typedef struct run_judge {
    const ts_scenario *scenario;
    const ts_expected *x;
    ts_arena *arena;
    ts_findings *f;            /* this run's findings */
    long kill_point;           /* 0: an uninterrupted run */
    sighting *assistants, *users, **results;
    invocations **calls;       /* per assistant, per call */
    size_t *model_asks;        /* per k */
    size_t user_total;
    long max_reply;            /* the highest llm index answered so far */
    long in_flight;            /* the scenario action sent and not answered, or -1 */
    long interrupted;          /* the scenario action a kill interrupted, or -1 */
    long effective;            /* the last scenario action known to have taken effect, or -1 */
    bool reading, recovering, judge_recover_status;
    char action[160];          /* the last action sent, for findings */
    ts_str recover_status;
    size_t final_assistants;
    ts_buf final_form;         /* the last read's conversation as U9 compares it (conversation_form) */
    char kill_what[160];
    char crash[200];           /* a power-loss run: its crash state and what it lost ("" a killed process) */
    bool power_loss_claimed;   /* the testee claims power-loss durability: U11 findings are U9's */
    bool stopped;
} run_judge;

/* ------------------------------------------------------------------------ sightings ---- */

static sighting *sighting_of(run_judge *j, ts_item_key key) {
    switch (key.kind) {
    case TS_ITEM_KEY_ASSISTANT: return &j->assistants[key.index];
    case TS_ITEM_KEY_USER: return &j->users[key.index];
    case TS_ITEM_KEY_RESULT: return &j->results[key.index][key.call];
    default: return NULL;
    }
}

/* The same createdAt: the same instant to 100 ns (.NET rewrites "Z" as "+00:00", drops trailing
 * zeros and keeps 7 digits), or the same text when either is no timestamp. */
static bool same_time(ts_str a, ts_str b) {
    ts_instant x, y;
    const char *why;
    if (!ts_instant_parse(a.ptr, a.len, &x, &why) || !ts_instant_parse(b.ptr, b.len, &y, &why)) return ts_str_eq(a, b);
    return x.seconds == y.seconds && x.fraction / 1000000000 == y.fraction / 1000000000;
}

/* U4: what was observed of an item stays, unless the item was made again since. */
static void observe(run_judge *j, const ts_item *item, ts_item_key key, size_t event, const char *where) {
    sighting *s = sighting_of(j, key);
    if (!s) return;
    if (!s->seen) {
        *s = (sighting){true, item->message_id, item->created_at, event, s->made};
        return;
    }
    bool made_again = s->made > s->event;
    char text[120];
    ts_item_describe(item, text, sizeof text);
    if (item->message_id.ptr && s->message_id.ptr && !ts_str_eq(item->message_id, s->message_id) && !made_again)
        ts_findings_add(j->f, "U4", "%s: the messageId of %s changed from \"%.60s\" to \"%.60s\"", where, text,
                        s->message_id.ptr, item->message_id.ptr);
    else if (item->created_at.ptr && s->created_at.ptr && !same_time(item->created_at, s->created_at) && !made_again)
        ts_findings_add(j->f, "U4", "%s: the createdAt of %s changed from \"%.60s\" to \"%.60s\"", where, text,
                        s->created_at.ptr, item->created_at.ptr);
    if (item->message_id.ptr) s->message_id = item->message_id;
    if (item->created_at.ptr) s->created_at = item->created_at;
    s->event = event;
}

static void made(run_judge *j, ts_item_key key, size_t event) {
    sighting *s = sighting_of(j, key);
    if (s) s->made = event;
}

/* The result key of call `call_id` of the latest assistant item (up to `upto`) that asked for it. */
static ts_item_key result_key_of(const ts_expected *x, ts_str call_id, long upto) {
    for (long i = upto < (long)x->assistant_count - 1 ? upto : (long)x->assistant_count - 1; i >= 0; i--)
        for (size_t p = 0; p < x->assistants[i].call_count; p++)
            if (ts_str_eq(x->assistants[i].calls[p].call_id, call_id))
                return (ts_item_key){TS_ITEM_KEY_RESULT, (size_t)i + 1, p};
    return (ts_item_key){TS_ITEM_KEY_NONE, 0, 0};
}

/* The model was asked for answer k (again): answer k is made again, and with it what the engine
 * answers itself from it — the result of each of its calls to a tool the catalogue lacks, which
 * is never invoked, so no tool call marks it made again. Nothing else: a result of a known tool
 * is made again only by its own invocation or a re-sent `complete`. */
static void made_answer(run_judge *j, size_t k, size_t event) {
    made(j, (ts_item_key){TS_ITEM_KEY_ASSISTANT, k, 0}, event);
    const ts_item *asker = &j->x->assistants[k];
    for (size_t p = 0; p < asker->call_count; p++)
        if (!ts_expected_tool(j->scenario, asker->calls[p].name)) made(j, (ts_item_key){TS_ITEM_KEY_RESULT, k + 1, p}, event);
}

/* ----------------------------------------------------------------- observations ---- */

/* An item's place in a conversation's form (U9): its block, then users before results before the
 * assistant item that closes the block, then X's order among them. */
typedef struct form_entry {
    size_t block, rank, index, position;
    const ts_item *item;
    ts_item_key key;
} form_entry;

static int form_entry_compare(const void *a, const void *b) {
    const form_entry *x = a, *y = b;
    if (x->block != y->block) return x->block < y->block ? -1 : 1;
    if (x->rank != y->rank) return x->rank < y->rank ? -1 : 1;
    if (x->index != y->index) return x->index < y->index ? -1 : 1;
    return x->position < y->position ? -1 : x->position > y->position;
}

/* The conversation's form, as crash equivalence (U9) compares it: the X items it holds, block by
 * block, each block's user items in arrival order and its results in call order — so exactly the
 * freedoms U2 and U3 grant are aside (a block's results in any order, its user messages anywhere
 * in it, results in one message or several, a value as JSON or as text holding it, a failed
 * tool's wording, ids and timestamps), and nothing else. An item that stands for no X item (a
 * finding of its own) is kept by its description, in place. */
static bool conversation_form(run_judge *j, const ts_item *items, const ts_item_key *keys, size_t count) {
    form_entry *entries = ts_arena_calloc(j->arena, count + 1, sizeof *entries);
    if (!entries) return false;
    for (size_t i = 0, block = 0; i < count; i++) {
        form_entry *e = &entries[i];
        *e = (form_entry){block, 3, i, i, &items[i], keys[i]};
        if (keys[i].kind == TS_ITEM_KEY_USER) e->rank = 0, e->index = keys[i].index;
        else if (keys[i].kind == TS_ITEM_KEY_RESULT) e->rank = 1, e->index = keys[i].call;
        else if (keys[i].kind == TS_ITEM_KEY_ASSISTANT) e->rank = 2, e->index = keys[i].index;
        block += items[i].kind == TS_ITEM_ASSISTANT;
    }
    qsort(entries, count, sizeof *entries, form_entry_compare);
    ts_buf_reset(&j->final_form);
    for (size_t i = 0; i < count; i++) {
        const form_entry *e = &entries[i];
        char text[400];
        ts_str call = e->key.kind == TS_ITEM_KEY_RESULT ? j->x->assistants[e->key.index - 1].calls[e->key.call].call_id
                                                       : (ts_str){"", 0};
        switch (e->key.kind) {
        case TS_ITEM_KEY_USER:
            ts_item_describe(e->item, text, sizeof text);
            ts_buf_appendf(&j->final_form, "user message %zu (%s)\n", e->key.index, text);
            break;
        case TS_ITEM_KEY_RESULT:
            ts_buf_appendf(&j->final_form, "the result of %.*s (assistant message %zu)\n", (int)(call.len > 60 ? 60 : call.len),
                           call.ptr, e->key.index - 1);
            break;
        case TS_ITEM_KEY_ASSISTANT: ts_buf_appendf(&j->final_form, "assistant message %zu\n", e->key.index); break;
        default:
            ts_item_describe(e->item, text, sizeof text);
            ts_buf_appendf(&j->final_form, "%s (after %zu assistant messages; the scenario has no such item)\n", text, e->block);
        }
    }
    return !j->final_form.failed;
}

/* A conversation the testee showed (a model view or a read): judged against X, then sighted. */
static bool observe_conversation(run_judge *j, const ts_json *messages, ts_match_mode mode, size_t event,
                                 const char *where, size_t *assistants_out) {
    ts_item *items;
    size_t count;
    char why[300];
    if (!ts_resume_items(messages, j->arena, &items, &count, why, sizeof why)) {
        ts_findings_add(j->f, "U2", "%s: the conversation is not ChatMessage JSON: %s", where, why);
        return false;
    }
    ts_item_key *keys = ts_arena_calloc(j->arena, count + 1, sizeof *keys);
    if (!keys || !ts_match_conversation(j->x, items, count, mode, where, keys, j->arena, j->f)) return false;
    for (size_t i = 0; i < count; i++) observe(j, &items[i], keys[i], event, where);
    if (assistants_out) *assistants_out = ts_count_assistants(items, count);
    if (mode != TS_MATCH_VIEW) {
        if (!conversation_form(j, items, keys, count)) return false;
        j->final_assistants = ts_count_assistants(items, count);
        /* Which interrupted action took effect: its user message or its result is in. */
        if (j->judge_recover_status && j->interrupted >= 0) {
            const ts_action *a = &j->x->actions[j->interrupted];
            size_t users = 0;
            bool result = false;
            for (size_t i = 0; i < count; i++) {
                users += items[i].kind == TS_ITEM_USER;
                result |= items[i].kind == TS_ITEM_RESULT && ts_str_eq(items[i].call_id, a->call_id);
            }
            bool took = a->kind == TS_ACTION_USER ? users >= a->users_after : a->kind == TS_ACTION_COMPLETE ? result : true;
            if (took) j->effective = j->interrupted;
        }
    }
    return true;
}

static bool expected_waiting(const run_judge *j) {
    return j->effective >= 0 && j->x->actions[j->effective].waiting_after;
}

/* U8: the status an answer gives is the state the conversation is in. */
static void judge_status(run_judge *j, ts_str status, const char *what) {
    if (!ts_str_eq_cstr(status, "idle") && !ts_str_eq_cstr(status, "waiting")) {
        ts_findings_add(j->f, "U8", "%s: the status must be \"idle\" or \"waiting\", got %s%.40s%s", what,
                        status.ptr ? "\"" : "", status.ptr ? status.ptr : "none", status.ptr ? "\"" : "");
        return;
    }
    bool waiting = expected_waiting(j);
    if (ts_str_eq_cstr(status, "waiting") != waiting)
        ts_findings_add(j->f, "U8", "%s: the testee says \"%.*s\", but %s", what, (int)status.len, status.ptr,
                        waiting ? "here the scenario's run is suspended on a pending tool call, not over"
                                : "here the scenario's turn is over: no tool call is pending");
}

/* ------------------------------------------------------------------------ the events ---- */

static void on_tool(run_judge *j, const ts_json *call, long point, size_t event, const char *where) {
    ts_str name = ts_json_string(ts_json_get(call, "name")), call_id = ts_json_string(ts_json_get(call, "callId"));
    const ts_json *arguments = ts_json_get(call, "arguments");
    ts_item probe = {.kind = TS_ITEM_ASSISTANT, .call_count = 1};
    ts_item_call c = {call_id, name, arguments ? *arguments : ts_json_make_null(), false};
    probe.calls = &c;
    const ts_expected *x = j->x;
    for (long i = j->max_reply < (long)x->assistant_count - 1 ? j->max_reply : (long)x->assistant_count - 1; i >= 0; i--)
        for (size_t p = 0; p < x->assistants[i].call_count; p++) {
            ts_item want = {.kind = TS_ITEM_ASSISTANT, .calls = &x->assistants[i].calls[p], .call_count = 1};
            if (!ts_assistant_matches(&want, &probe)) continue;
            invocations *inv = &j->calls[i][p];
            if (inv->count < MAX_INVOCATIONS) inv->points[inv->count] = point;
            inv->count++;
            made(j, (ts_item_key){TS_ITEM_KEY_RESULT, (size_t)i + 1, p}, event);
            return;
        }
    char text[160];
    ts_check_excerpt(call, text, sizeof text);
    ts_findings_add(j->f, "U2", "%s: the tool was invoked with %s, a call no assistant message made (or with other arguments)",
                    where, text);
}

static void on_send(run_judge *j, const ts_json *ev, size_t event) {
    const ts_json *action = ts_json_get(ev, "send"), *of = ts_json_get(ev, "of");
    ts_check_excerpt(action, j->action, sizeof j->action);
    j->reading = ts_json_get(action, "read") != NULL;
    j->recovering = ts_json_get(action, "recover") != NULL;
    j->in_flight = of && of->kind == TS_JSON_INT && of->u.i >= 0 && (size_t)of->u.i < j->x->action_count ? (long)of->u.i : -1;
    if (j->in_flight < 0) return;
    const ts_action *a = &j->x->actions[j->in_flight];
    if (a->kind == TS_ACTION_USER && a->users_after > 0) made(j, (ts_item_key){TS_ITEM_KEY_USER, a->users_after - 1, 0}, event);
    if (a->kind == TS_ACTION_COMPLETE) made(j, result_key_of(j->x, a->call_id, (long)j->x->assistant_count), event);
}

static void on_answer(run_judge *j, const ts_json *answer, size_t event, bool last) {
    char what[200];
    if (j->reading) {
        snprintf(what, sizeof what, "the read %s", last ? "at the end" : "after the recovery");
        const ts_json *messages = ts_json_get(answer, "messages");
        observe_conversation(j, messages, last ? TS_MATCH_FINAL : TS_MATCH_PREFIX, event, what, NULL);
        if (j->judge_recover_status) { /* the recovery's status, now that the read tells what took effect */
            judge_status(j, j->recover_status, "the answer to the recovery");
            j->judge_recover_status = false;
        }
        judge_status(j, ts_json_string(ts_json_get(answer, "status")), what);
        return;
    }
    if (j->recovering && j->in_flight < 0) { /* after a kill: judged at the read that follows */
        j->recover_status = ts_json_string(ts_json_get(answer, "status"));
        j->judge_recover_status = true;
        return;
    }
    if (j->in_flight >= 0) j->effective = j->in_flight;
    snprintf(what, sizeof what, "the answer to action %ld %s", j->in_flight, j->action);
    judge_status(j, ts_json_string(ts_json_get(answer, "status")), what);
    j->in_flight = -1;
}

/* A protocol point p: the calls invoked before it have their window for U7 closed at p — a kill
 * after their reply and up to the engine's next protocol point, the store operations between
 * included, may re-run them. A commit notice "before" does not close it: the commit it announces
 * is what records the call, so its window runs to that commit's "after" (a kill in the middle of
 * the write that records a call cannot be anything but at-least-once). */
static void close_windows(run_judge *j, const ts_json *ev, long p) {
    if (ts_str_eq_cstr(ts_json_string(ts_json_get(ev, "commit")), "before")) return;
    for (size_t i = 0; i < j->x->assistant_count; i++)
        for (size_t c = 0; c < j->x->assistants[i].call_count; c++) {
            invocations *inv = &j->calls[i][c];
            for (size_t k = 0; k < inv->count && k < MAX_INVOCATIONS; k++)
                if (!inv->window_end[k] && inv->points[k] < p) inv->window_end[k] = p;
        }
}

static void point_what(const ts_json *ev, char *out, size_t size) {
    const ts_json *tool = ts_json_get(ev, "tool"), *store = ts_json_get(ev, "store");
    ts_str commit = ts_json_string(ts_json_get(ev, "commit"));
    if (store) {
        const ts_json *op = ts_json_get(ev, "op");
        ts_str kind = ts_json_string(ts_json_get(op, "op")), path = ts_json_string(ts_json_get(op, "path"));
        snprintf(out, size, "after store operation %lld, %.12s %.80s", store->kind == TS_JSON_INT ? (long long)store->u.i : 0LL,
                 kind.ptr ? kind.ptr : "?", path.ptr ? path.ptr : "");
    } else if (ts_json_get(ev, "model"))
        snprintf(out, size, "a model call, before the reply");
    else if (tool)
        snprintf(out, size, "inside tool call %.40s (%.40s)", ts_json_string(ts_json_get(tool, "callId")).ptr ? ts_json_string(ts_json_get(tool, "callId")).ptr : "?",
                 ts_json_string(ts_json_get(tool, "name")).ptr ? ts_json_string(ts_json_get(tool, "name")).ptr : "?");
    else
        snprintf(out, size, "commit notice \"%.10s\" %.80s", commit.ptr ? commit.ptr : "?",
                 ts_json_string(ts_json_get(ev, "what")).ptr ? ts_json_string(ts_json_get(ev, "what")).ptr : "");
}

static void judge_events(run_judge *j, const ts_json *events, const char *case_rule) {
    const ts_json *last_point = NULL;
    for (size_t e = 0; e < events->u.a.count && !j->stopped; e++) {
        const ts_json *ev = &events->u.a.items[e];
        const ts_json *point = ts_json_get(ev, "point"), *model = ts_json_get(ev, "model");
        const ts_json *answer = ts_json_get(ev, "answer");
        long p = point && point->kind == TS_JSON_INT ? (long)point->u.i : 0;
        if (point) last_point = ev;
        if (point && !ts_json_get(ev, "store")) close_windows(j, ev, p);
        char where[200];
        if (ts_json_get(ev, "send")) {
            on_send(j, ev, e);
        } else if (model) {
            snprintf(where, sizeof where, "the model call at point %ld", p);
            size_t k = 0;
            observe_conversation(j, model, TS_MATCH_VIEW, e, where, &k);
            const ts_json *reply = ts_json_get(ev, "reply");
            if (reply && reply->kind == TS_JSON_INT && reply->u.i > j->max_reply) j->max_reply = (long)reply->u.i;
            if (k < j->x->assistant_count) {
                j->model_asks[k]++;
                made_answer(j, k, e);
            }
        } else if (ts_json_get(ev, "tool")) {
            snprintf(where, sizeof where, "the tool call at point %ld", p);
            on_tool(j, ts_json_get(ev, "tool"), p, e, where);
        } else if (ts_json_get(ev, "killed")) {
            if (last_point) point_what(last_point, j->kill_what, sizeof j->kill_what);
            j->interrupted = j->in_flight;
            j->in_flight = -1;
        } else if (answer) {
            ts_str error = ts_json_string(ts_json_get(answer, "error"));
            if (error.ptr) {
                ts_findings_add(j->f, j->kill_point ? "U9" : case_rule, "the answer to %s: the testee answered error: %.300s",
                                j->action, error.ptr);
                j->stopped = true;
                break;
            }
            bool last = true;
            for (size_t k = e + 1; k < events->u.a.count; k++) last &= ts_json_get(&events->u.a.items[k], "answer") == NULL;
            on_answer(j, answer, e, last);
        } else if (ts_json_get(ev, "outcome")) {
            ts_findings_add(j->f, j->kill_point ? "U9" : case_rule, "the testee %s: %.300s",
                            j->kill_point ? "did not recover" : "drew a harness verdict",
                            ts_json_string(ts_json_get(ev, "detail")).ptr ? ts_json_string(ts_json_get(ev, "detail")).ptr
                                                                         : ts_json_string(ts_json_get(ev, "outcome")).ptr);
            j->stopped = true;
        }
    }
}

/* U6 (runs without a kill) and U7 (killed runs): how often each call ran. */
static void judge_invocations(run_judge *j) {
    const ts_expected *x = j->x;
    for (size_t i = 0; i < x->assistant_count; i++)
        for (size_t p = 0; p < x->assistants[i].call_count; p++) {
            const ts_item_call *c = &x->assistants[i].calls[p];
            const invocations *inv = &j->calls[i][p];
            int id_len = (int)(c->call_id.len > 60 ? 60 : c->call_id.len);
            bool known = ts_expected_tool(j->scenario, c->name) != NULL;
            if (inv->count == 0 && known && j->final_assistants > i && !c->may_wait) {
                ts_findings_add(j->f, "U6", "call %.*s (%.*s) of assistant message %zu was never invoked, yet the "
                                "conversation holds its assistant message", id_len, c->call_id.ptr,
                                (int)(c->name.len > 40 ? 40 : c->name.len), c->name.ptr, i);
                continue;
            }
            if (inv->count <= 1) continue;
            const ts_tool_script *tool = ts_expected_tool(j->scenario, c->name);
            const char *resubmitted = tool && tool->async ? " (its tool is asynchronous: the call was submitted "
                                                            "again while its answer was pending)"
                                                          : "";
            if (!j->kill_point) {
                ts_findings_add(j->f, "U6", "call %.*s of assistant message %zu ran %zu times in a run without a kill%s",
                                id_len, c->call_id.ptr, i, inv->count, resubmitted);
                continue;
            }
            bool allowed = false; /* the kill fell inside it, or before the engine's next protocol point after it */
            for (size_t k = 0; k < inv->count && k < MAX_INVOCATIONS; k++)
                allowed |= j->kill_point >= inv->points[k] && (!inv->window_end[k] || j->kill_point <= inv->window_end[k]);
            if (inv->count > 1 + (size_t)allowed)
                ts_findings_add(j->f, "U7", "at-least-once: call %.*s of assistant message %zu ran %zu times after a "
                                "kill at point %ld (%s)%s", id_len, c->call_id.ptr, i, inv->count, j->kill_point, j->kill_what,
                                resubmitted);
        }
    if (j->kill_point) return;
    for (size_t k = 0; k < x->assistant_count; k++)
        if (j->model_asks[k] > 1)
            ts_findings_add(j->f, "U10", "the model was asked %zu times for answer %zu in a run without a kill",
                            j->model_asks[k], k);
}

/* ------------------------------------------------------------------------ the case ---- */

static bool run_judge_init(run_judge *j, const ts_scenario *scenario, const ts_expected *x, ts_arena *arena,
                           ts_findings *f) {
    memset(j, 0, sizeof *j);
    j->scenario = scenario;
    j->x = x;
    j->arena = arena;
    j->f = f;
    j->max_reply = -1;
    j->in_flight = j->interrupted = j->effective = -1;
    ts_buf_init(&j->final_form);
    size_t n = x->assistant_count;
    j->user_total = ts_expected_users_before(x, n);
    j->assistants = ts_arena_calloc(arena, n + 1, sizeof *j->assistants);
    j->users = ts_arena_calloc(arena, j->user_total + 1, sizeof *j->users);
    j->results = ts_arena_calloc(arena, n + 2, sizeof *j->results);
    j->calls = ts_arena_calloc(arena, n + 1, sizeof *j->calls);
    j->model_asks = ts_arena_calloc(arena, n + 1, sizeof *j->model_asks);
    if (!j->assistants || !j->users || !j->results || !j->calls || !j->model_asks) return false;
    for (size_t i = 0; i < n; i++) {
        j->calls[i] = ts_arena_calloc(arena, x->assistants[i].call_count + 1, sizeof **j->calls);
        j->results[i + 1] = ts_arena_calloc(arena, x->assistants[i].call_count + 1, sizeof **j->results);
        if (!j->calls[i] || !j->results[i + 1]) return false;
    }
    return true;
}

struct ts_resume_judge {
    const ts_scenario *scenario;
    const char *case_rule;
    ts_arena arena;          /* X, and the baseline */
    ts_expected x;
    ts_buf baseline;         /* the uninterrupted run's last read, as U9 compares it (conversation_form) */
    bool has_baseline;
    size_t runs;
    bool power_loss_claimed;
};

void ts_resume_judge_claim(ts_resume_judge *judge, const char *durability) {
    judge->power_loss_claimed = durability && strcmp(durability, "power-loss") == 0;
}

ts_resume_judge *ts_resume_judge_new(const ts_scenario *scenario, const char *case_rule, char *why, size_t why_size) {
    ts_resume_judge *judge = calloc(1, sizeof *judge);
    if (!judge) {
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    judge->scenario = scenario;
    judge->case_rule = case_rule;
    ts_arena_init(&judge->arena);
    ts_buf_init(&judge->baseline);
    if (!ts_expect_resume(scenario, &judge->arena, &judge->x, why, why_size)) {
        ts_resume_judge_free(judge);
        return NULL;
    }
    return judge;
}

void ts_resume_judge_free(ts_resume_judge *judge) {
    if (!judge) return;
    ts_arena_free(&judge->arena);
    ts_buf_free(&judge->baseline);
    free(judge);
}

/* A killed run's findings become U9 findings naming their rule and the kill point, but for
 * U7 (its own, Recommended verdict) and Recommended rules (not judged after a kill). */
static void report_run(const run_judge *j, const ts_findings *local, ts_findings *findings) {
    /* A power loss grades durability (U11), unless the testee claims power-loss durability: then
     * what a crash state loses or breaks is a U9 finding like any kill's. */
    const char *wrap = j->crash[0] && !j->power_loss_claimed ? "U11" : "U9";
    char fault[420];
    if (j->crash[0]) snprintf(fault, sizeof fault, "power loss at point %ld (%s), crash state %s", j->kill_point, j->kill_what, j->crash);
    else snprintf(fault, sizeof fault, "kill at point %ld (%s)", j->kill_point, j->kill_what);
    for (size_t k = 0; k < local->count; k++) {
        const ts_finding *fd = &local->items[k];
        const ts_rule_info *info = ts_rule_find(fd->rule);
        if (j->crash[0] && strcmp(fd->rule, "U7") == 0) /* a tool re-run because its result was not durable */
            ts_findings_add_named(findings, "U11", "U7", "%s: [U7] %s", fault, fd->message);
        else if (!j->kill_point || strcmp(fd->rule, "U7") == 0)
            ts_findings_add_named(findings, fd->rule, fd->named, "%s", fd->message);
        else if (strcmp(fd->rule, "U9") == 0)
            ts_findings_add(findings, wrap, "%s: %s", fault, fd->message);
        else if (info && info->level == TS_LEVEL_REQUIRED)
            ts_findings_add_named(findings, wrap, fd->rule, "%s: [%s] %s", fault, fd->rule, fd->message);
    }
    findings->suppressed += local->suppressed;
}

/* U9: the killed run's final conversation against the uninterrupted run's, form by form
 * (conversation_form): the first item where they part, when they do. */
static void report_difference(const ts_buf *baseline, const ts_buf *form, ts_findings *f) {
    const char *a = baseline->data ? baseline->data : "", *b = form->data ? form->data : "";
    size_t item = 0;
    while (*a || *b) {
        size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
        if (la != lb || memcmp(a, b, la) != 0) {
            char here[220], there[220];
            snprintf(here, sizeof here, "%.*s", (int)(lb > 200 ? 200 : lb), b);
            snprintf(there, sizeof there, "%.*s", (int)(la > 200 ? 200 : la), a);
            ts_findings_add(f, "U9", "the conversation differs from the uninterrupted run's: its item %zu (in the order "
                            "compared: block by block, users, then results in call order) is %s where the "
                            "uninterrupted run's is %s", item, lb ? here : "missing", la ? there : "missing");
            return;
        }
        a += la + (a[la] != '\0');
        b += lb + (b[lb] != '\0');
        item++;
    }
}

bool ts_resume_judge_run(ts_resume_judge *judge, const ts_json *run, ts_findings *findings) {
    const ts_json *events = ts_json_get(run, "events"), *kill = ts_json_get(run, "kill");
    size_t number = judge->runs++;
    if (!events || events->kind != TS_JSON_ARRAY || (kill && kill->kind != TS_JSON_NULL && kill->kind != TS_JSON_INT)) {
        ts_findings_add(findings, judge->case_rule, "history.runs[%zu]: needs an \"events\" array and a \"kill\" point or null",
                        number);
        return true;
    }
    ts_arena arena;
    ts_arena_init(&arena);
    ts_findings local;
    ts_findings_init(&local);
    run_judge j;
    bool ok = run_judge_init(&j, judge->scenario, &judge->x, &arena, &local);
    j.kill_point = kill && kill->kind == TS_JSON_INT ? (long)kill->u.i : 0;
    j.power_loss_claimed = judge->power_loss_claimed;
    const ts_json *crash = ts_json_get(run, "crash");
    if (crash && j.kill_point) {
        ts_str state = ts_json_string(ts_json_get(crash, "state")), description = ts_json_string(ts_json_get(crash, "description"));
        snprintf(j.crash, sizeof j.crash, "%.40s%s%.150s", state.ptr ? state.ptr : "?", description.ptr ? ": " : "",
                 description.ptr ? description.ptr : "");
    }
    if (ok) {
        judge_events(&j, events, judge->case_rule);
        if (!j.stopped) judge_invocations(&j);
        if (!j.stopped && !judge->has_baseline && !j.kill_point) {
            ts_buf_append(&judge->baseline, j.final_form.data ? j.final_form.data : "", j.final_form.len);
            judge->has_baseline = true;
        } else if (!j.stopped && judge->has_baseline && j.kill_point && !ts_findings_has(&local, "U2") &&
                   !ts_findings_has(&local, "U3")) {
            report_difference(&judge->baseline, &j.final_form, &local);
        }
        report_run(&j, &local, findings);
    }
    ts_findings_free(&local);
    ts_buf_free(&j.final_form);
    ts_arena_free(&arena);
    return ok;
}

bool ts_check_resume(const ts_scenario *scenario, const ts_json *history, const char *case_rule,
                     ts_findings *findings) {
    char why[300];
    ts_resume_judge *judge = ts_resume_judge_new(scenario, case_rule, why, sizeof why);
    if (!judge) {
        ts_findings_add(findings, case_rule, "the scenario is no resume case: %s", why);
        return strcmp(why, "out of memory") != 0;
    }
    const ts_json *runs = ts_json_get(history, "runs");
    ts_resume_judge_claim(judge, ts_json_string(ts_json_get(history, "durability")).ptr);
    bool ok = true;
    if (!runs || runs->kind != TS_JSON_ARRAY || runs->u.a.count == 0)
        ts_findings_add(findings, case_rule, "history.runs: must be a non-empty array of runs");
    for (size_t r = 0; ok && runs && runs->kind == TS_JSON_ARRAY && r < runs->u.a.count; r++)
        ok = ts_resume_judge_run(judge, &runs->u.a.items[r], findings);
    ts_resume_judge_free(judge);
    return ok;
}

/* Is `sent` (a send event's action) the scenario's action a? */
static bool sends_action(const ts_json *sent, const ts_action *a) {
    if (a->kind == TS_ACTION_USER) return ts_str_eq(ts_json_string(ts_json_get(sent, "user")), a->text);
    if (a->kind == TS_ACTION_COMPLETE) return ts_str_eq(ts_json_string(ts_json_get(sent, "complete")), a->call_id);
    return ts_json_get(sent, "recover") != NULL; /* a restart: carried out by a recovery */
}

static bool fits_run(const ts_expected *x, const ts_json *run, size_t r, char *why, size_t why_size) {
    const ts_json *events = ts_json_get(run, "events"), *kill = ts_json_get(run, "kill");
    if (!events || events->kind != TS_JSON_ARRAY || events->u.a.count == 0) {
        snprintf(why, why_size, "runs[%zu].events: must be a non-empty array (nothing was recorded)", r);
        return false;
    }
    if (r == 0 && kill && kill->kind != TS_JSON_NULL) {
        snprintf(why, why_size, "runs[0].kill: must be null (the first run is the uninterrupted one)");
        return false;
    }
    for (size_t e = 0; e < events->u.a.count; e++) {
        const ts_json *ev = &events->u.a.items[e], *sent = ts_json_get(ev, "send"), *of = ts_json_get(ev, "of");
        if (!sent || !of) continue;
        char text[160];
        ts_check_excerpt(sent, text, sizeof text);
        if (of->kind != TS_JSON_INT || of->u.i < 0 || (size_t)of->u.i >= x->action_count) {
            snprintf(why, why_size, "runs[%zu].events[%zu]: sends %s as action %s; the scenario has %zu actions", r, e, text,
                     of->kind == TS_JSON_INT ? "beyond them" : "of no number", x->action_count);
            return false;
        }
        if (!sends_action(sent, &x->actions[of->u.i])) {
            snprintf(why, why_size, "runs[%zu].events[%zu]: sends %s as action %lld, which is another action in the scenario",
                     r, e, text, (long long)of->u.i);
            return false;
        }
    }
    return true;
}

bool ts_resume_history_fits(const ts_scenario *scenario, const ts_json *history, char *why, size_t why_size) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_expected x;
    char reason[300];
    bool ok = ts_expect_resume(scenario, &arena, &x, reason, sizeof reason);
    if (!ok) snprintf(why, why_size, "the scenario is no resume case: %s", reason);
    const ts_json *runs = ts_json_get(history, "runs");
    if (ok && (!runs || runs->kind != TS_JSON_ARRAY || runs->u.a.count == 0)) {
        snprintf(why, why_size, "runs: must be a non-empty array of runs");
        ok = false;
    }
    for (size_t r = 0; ok && r < runs->u.a.count; r++) ok = fits_run(&x, &runs->u.a.items[r], r, why, why_size);
    ts_arena_free(&arena);
    return ok;
}
