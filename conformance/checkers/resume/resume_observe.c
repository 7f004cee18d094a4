/* resume_observe.c — what the testee showed of its conversation (model views and reads), judged
 * against the epoch of X it belongs to: U1-U3 and U5 by the matcher (resume_match.h), U4 (nothing
 * observed changes), the form U9 compares, and the branch rules U12, U13 and U15; see
 * resume_judge.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/checkers/findings.h"
#include "conformance/checkers/resume/resume_judge.h"
#include "core/json/timestamp.h"

/* ------------------------------------------------------------------------ sightings ---- */

sighting *rj_sighting(run_judge *j, ident id) {
    switch (id.kind) {
    case IDENT_ASSISTANT: return &j->assistants[id.id];
    case IDENT_USER: return &j->users[id.id];
    case IDENT_RESULT: return &j->results[id.id][id.call];
    default: return NULL;
    }
}

void rj_made(run_judge *j, ident id, size_t event) {
    sighting *s = rj_sighting(j, id);
    if (s) s->made = event;
}

/* The identity an item of epoch ep stands for, by the key the matcher gave it. */
static ident ident_of(const ts_epoch *ep, ts_item_key key) {
    switch (key.kind) {
    case TS_ITEM_KEY_ASSISTANT: return (ident){IDENT_ASSISTANT, ep->answer_of[key.index], 0};
    case TS_ITEM_KEY_USER: return (ident){IDENT_USER, ep->user_of[key.index], 0};
    case TS_ITEM_KEY_RESULT: return (ident){IDENT_RESULT, ep->answer_of[key.index - 1], key.call};
    default: return (ident){IDENT_NONE, 0, 0};
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
static void observe(run_judge *j, const ts_item *item, ident id, size_t event, const char *where) {
    sighting *s = rj_sighting(j, id);
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

/* ----------------------------------------------------------------------- U9's form ---- */

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
static bool conversation_form(run_judge *j, const ts_epoch *ep, const ts_item *items, const ts_item_key *keys,
                              size_t count) {
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
        ts_str call = e->key.kind == TS_ITEM_KEY_RESULT ? ep->assistants[e->key.index - 1].calls[e->key.call].call_id
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

/* ------------------------------------------------------------------------- epochs ---- */

size_t rj_epoch_done(const run_judge *j) { return j->effective >= 0 ? j->x->actions[j->effective].epoch_after : 0; }

static bool opens_epoch(const ts_action *a) {
    return (a->kind == TS_ACTION_EDIT || a->kind == TS_ACTION_FORK) && !a->refused;
}

long rj_branch_undecided(const run_judge *j) {
    if (j->in_flight >= 0 && opens_epoch(&j->x->actions[j->in_flight])) return j->in_flight;
    if (j->in_flight < 0 && j->interrupted >= 0 && j->interrupted > j->effective && opens_epoch(&j->x->actions[j->interrupted]))
        return j->interrupted;
    return -1;
}

static bool holds_user_text(const ts_item *items, size_t count, ts_str text) {
    for (size_t i = 0; i < count; i++)
        if (items[i].kind == TS_ITEM_USER && ts_str_eq(items[i].text, text)) return true;
    return false;
}

/* The epoch an observation is judged against: the final read, the last; otherwise the epoch the
 * conversation is known to be in, or the one a branch in flight (or interrupted and undecided)
 * opens when the observation holds its message. */
static size_t epoch_of(const run_judge *j, const ts_item *items, size_t count, ts_match_mode mode) {
    if (mode == TS_MATCH_FINAL) return j->x->epoch_count - 1;
    long branch = rj_branch_undecided(j);
    if (branch >= 0 && holds_user_text(items, count, j->x->actions[branch].text)) return j->x->actions[branch].epoch_after;
    return rj_epoch_done(j);
}

/* --------------------------------------------------------------- U12, U15: abandoned ---- */

/* The identity an observed item stands for by its content alone (a case that branches has
 * distinct texts, answers and call ids: resume_expect.h), or IDENT_NONE. */
static ident ident_by_content(const ts_expected *x, const ts_item *item) {
    if (item->kind == TS_ITEM_USER) {
        for (size_t a = 0; a < x->action_count; a++)
            if (x->actions[a].kind != TS_ACTION_COMPLETE && x->actions[a].kind != TS_ACTION_RESTART &&
                ts_str_eq(x->actions[a].text, item->text))
                return (ident){IDENT_USER, a, 0};
    } else if (item->kind == TS_ITEM_ASSISTANT) {
        for (size_t g = 0; g < x->answers_used; g++)
            if (ts_assistant_matches(&x->answers[g], item)) return (ident){IDENT_ASSISTANT, g, 0};
    } else {
        for (size_t g = 0; g < x->answers_used; g++)
            for (size_t p = 0; p < x->answers[g].call_count; p++)
                if (ts_str_eq(x->answers[g].calls[p].call_id, item->call_id)) return (ident){IDENT_RESULT, g, p};
    }
    return (ident){IDENT_NONE, 0, 0};
}

/* Whether identity id was abandoned by a branch no later than the one that opened epoch ep (or,
 * for a user message, is a refused edit's or fork's, sent by now). */
static bool abandoned_for(const run_judge *j, const ts_epoch *ep, ident id, bool *pending) {
    const ts_expected *x = j->x;
    *pending = false;
    if (id.kind == IDENT_USER) {
        const ts_action *a = &x->actions[id.id];
        if (a->refused) return true;
        return x->user_abandoned_by[id.id] != TS_NOT_ABANDONED && x->user_abandoned_by[id.id] <= ep->opened_by;
    }
    if (id.kind == IDENT_NONE || x->answer_abandoned_by[id.id] == TS_NOT_ABANDONED ||
        x->answer_abandoned_by[id.id] > ep->opened_by)
        return false;
    *pending = id.kind == IDENT_RESULT && x->pending_abandoned[id.id][id.call];
    return true;
}

/* U12/U15: the items of an observation that belong to a branch abandoned by now (the old branch's
 * answers, results and queued messages, a refused edit's message: U12; the result of a call that
 * was pending when its branch was abandoned: U15) are reported and left out of the matching, so
 * that each fault is named once. Returns how many items are kept (compacted in place). */
static size_t drop_abandoned(run_judge *j, const ts_epoch *ep, ts_item *items, size_t count, const char *where) {
    size_t kept = 0;
    char text[200];
    for (size_t i = 0; i < count; i++) {
        ident id = ident_by_content(j->x, &items[i]);
        bool pending = false;
        if (!abandoned_for(j, ep, id, &pending)) {
            items[kept++] = items[i];
            continue;
        }
        ts_item_describe(&items[i], text, sizeof text);
        if (pending)
            ts_findings_add(j->f, "U15", "%s: message %zu holds the %s, a call that was pending when a branch abandoned it: "
                            "it was completed into the new branch", where, items[i].message, text);
        else if (id.kind == IDENT_USER && j->x->actions[id.id].refused)
            ts_findings_add(j->f, "U12", "%s: message %zu is the %s of action %zu, an edit or fork the engine had to "
                            "refuse (no such position)", where, items[i].message, text, id.id);
        else
            ts_findings_add(j->f, "U12", "%s: message %zu holds the %s, which belongs to the branch action %zu abandoned",
                            where, items[i].message, text,
                            id.kind == IDENT_USER ? j->x->user_abandoned_by[id.id] : j->x->answer_abandoned_by[id.id]);
    }
    return kept;
}

/* ----------------------------------------------------------------- U13: ids across branches ---- */

/* The user message an edit replaced (the identity at its position in the epoch before it), or
 * TS_NOT_ABANDONED when action a is no edit that took effect. */
static size_t replaced_by_edit(const ts_expected *x, size_t a) {
    if (x->actions[a].kind != TS_ACTION_EDIT) return TS_NOT_ABANDONED;
    for (size_t e = 1; e < x->epoch_count; e++)
        if (x->epochs[e].opened_by == a && x->actions[a].at < x->epochs[e - 1].user_count)
            return x->epochs[e - 1].user_of[x->actions[a].at];
    return TS_NOT_ABANDONED;
}

/* May two user messages share an id? Only when one replaced the other by a chain of edits (an
 * engine may edit a message in place, keeping its id), in whichever order they are seen. */
static bool edit_keeps_id(const ts_expected *x, ident a, ident b) {
    if (a.kind != IDENT_USER || b.kind != IDENT_USER) return false;
    for (int turn = 0; turn < 2; turn++) {
        size_t later = turn ? a.id : b.id, earlier = turn ? b.id : a.id;
        for (size_t k = 0; k <= x->action_count && later != TS_NOT_ABANDONED; k++) {
            later = replaced_by_edit(x, later);
            if (later == earlier) return true;
        }
    }
    return false;
}

/* U13: a messageId seen on one user or assistant message is never seen on another. */
static void check_id_reuse(run_judge *j, const ts_item *item, ident id, const char *where) {
    if (!j->x->branches || !item->message_id.ptr || item->message_id.len == 0 ||
        (id.kind != IDENT_USER && id.kind != IDENT_ASSISTANT))
        return;
    size_t code = id.kind == IDENT_USER ? 2 * id.id : 2 * id.id + 1, before;
    if (!ts_strmap_get(&j->ids, 0, item->message_id, &before)) {
        ts_strmap_put(&j->ids, 0, item->message_id, code);
        return;
    }
    if (before == code) return;
    ident earlier = {before % 2 ? IDENT_ASSISTANT : IDENT_USER, before / 2, 0};
    if (edit_keeps_id(j->x, earlier, id)) {
        ts_strmap_put(&j->ids, 0, item->message_id, code);
        return;
    }
    char text[160];
    ts_item_describe(item, text, sizeof text);
    ts_findings_add(j->f, "U13", "%s: the %s carries messageId \"%.60s\", which was seen on %s %zu", where, text,
                    item->message_id.ptr, earlier.kind == IDENT_USER ? "the user message of action" : "model answer",
                    earlier.id);
}

/* --------------------------------------------------------------------- observing ---- */

/* U2, U3 and U5 findings on an observation of a branch's epoch are U12's ("the conversation is not
 * the branch's"), naming the rule; on the first epoch they keep their own. */
static void take_match_findings(run_judge *j, const ts_findings *local, bool branched) {
    for (size_t k = 0; k < local->count; k++) {
        const ts_finding *fd = &local->items[k];
        bool relabel = branched && (!strcmp(fd->rule, "U2") || !strcmp(fd->rule, "U3") || !strcmp(fd->rule, "U5"));
        if (relabel) ts_findings_add_named(j->f, "U12", fd->rule, "[%s] %s", fd->rule, fd->message);
        else ts_findings_add_named(j->f, fd->rule, fd->named, "%s", fd->message);
    }
    j->f->suppressed += local->suppressed;
}

/* Which interrupted action took effect: its user message (or its branch's), or its result, is in. */
static void decide_interrupted(run_judge *j, const ts_item *items, size_t count) {
    const ts_action *a = &j->x->actions[j->interrupted];
    size_t users = 0;
    bool result = false;
    for (size_t i = 0; i < count; i++) {
        users += items[i].kind == TS_ITEM_USER;
        result |= items[i].kind == TS_ITEM_RESULT && ts_str_eq(items[i].call_id, a->call_id);
    }
    bool took = a->kind == TS_ACTION_USER ? users >= a->users_after
              : a->kind == TS_ACTION_COMPLETE ? result
              : opens_epoch(a) ? holds_user_text(items, count, a->text)
              : a->kind == TS_ACTION_RESTART;
    if (opens_epoch(a)) rj_settle_tentative(j, took);
    if (took) j->effective = j->interrupted;
}

bool rj_observe_conversation(run_judge *j, const ts_json *messages, ts_match_mode mode, size_t event, const char *where,
                             long *asked) {
    ts_item *items;
    size_t count;
    char why[300];
    if (asked) *asked = -1;
    if (!ts_resume_items(messages, j->arena, &items, &count, why, sizeof why)) {
        ts_findings_add(j->f, "U2", "%s: the conversation is not ChatMessage JSON: %s", where, why);
        return false;
    }
    size_t e = epoch_of(j, items, count, mode);
    const ts_epoch *ep = ts_expected_epoch(j->x, e);
    long branch = rj_branch_undecided(j);
    if (mode == TS_MATCH_VIEW && branch >= 0 && j->in_flight == branch && !holds_user_text(items, count, j->x->actions[branch].text))
        ts_findings_add(j->f, "U12", "%s: while it carried out the %s of action %ld, the engine asked the model about a "
                        "conversation without its message", where, j->x->actions[branch].kind == TS_ACTION_EDIT ? "edit" : "fork",
                        branch);
    if (j->x->branches) count = drop_abandoned(j, ep, items, count, where);
    ts_item_key *keys = ts_arena_calloc(j->arena, count + 1, sizeof *keys);
    ts_findings local;
    ts_findings_init(&local);
    bool ok = keys && ts_match_conversation(ep, items, count, mode, where, keys, j->arena, &local);
    take_match_findings(j, &local, e > 0);
    ts_findings_free(&local);
    if (!ok) return false;
    for (size_t i = 0; i < count; i++) {
        ident id = ident_of(ep, keys[i]);
        check_id_reuse(j, &items[i], id, where);
        observe(j, &items[i], id, event, where);
    }
    size_t shown = ts_count_assistants(items, count);
    if (asked && shown < ep->assistant_count) *asked = (long)ep->answer_of[shown];
    if (mode == TS_MATCH_VIEW) return true;
    if (!conversation_form(j, ep, items, keys, count)) return false;
    memset(j->held, 0, j->x->answers_used * sizeof *j->held);
    for (size_t i = 0; i < shown && i < ep->assistant_count; i++) j->held[ep->answer_of[i]] = true;
    if (j->judge_recover_status && j->interrupted >= 0) decide_interrupted(j, items, count);
    return true;
}

/* ---------------------------------------------------------------- U13: the history ---- */

/* Does some message of the history stand for identity id as it was last seen? */
static bool history_holds(run_judge *j, const ts_json *history, ident id) {
    const sighting *s = rj_sighting(j, id);
    for (size_t c = 0; c < history->u.a.count; c++) {
        ts_item *items;
        size_t count;
        char why[300];
        if (!ts_resume_items(&history->u.a.items[c], j->arena, &items, &count, why, sizeof why)) continue;
        for (size_t i = 0; i < count; i++) {
            ident found = ident_by_content(j->x, &items[i]);
            if (found.kind != id.kind || found.id != id.id || found.call != id.call) continue;
            bool same_id = !items[i].message_id.ptr || !s->message_id.ptr || ts_str_eq(items[i].message_id, s->message_id);
            bool same = !items[i].created_at.ptr || !s->created_at.ptr || same_time(items[i].created_at, s->created_at);
            if (same_id && same) return true;
        }
    }
    return false;
}

static void require_in_history(run_judge *j, const ts_json *history, ident id, const char *what, const char *where) {
    const sighting *s = rj_sighting(j, id);
    if (!s || !s->seen || history_holds(j, history, id)) return;
    ts_findings_add(j->f, "U13", "%s: %s, seen on a branch abandoned since%s%.60s%s, is not in the history as it was seen",
                    where, what, s->message_id.ptr ? " as messageId \"" : "", s->message_id.ptr ? s->message_id.ptr : "",
                    s->message_id.ptr ? "\"" : "");
}

/* The ids of every message of the history, against every id seen (check_id_reuse). */
static void check_history_ids(run_judge *j, const ts_json *history, const char *where) {
    for (size_t c = 0; c < history->u.a.count; c++) {
        ts_item *items;
        size_t count;
        char why[300];
        if (!ts_resume_items(&history->u.a.items[c], j->arena, &items, &count, why, sizeof why)) {
            ts_findings_add(j->f, "U13", "%s: history[%zu] is not a conversation of ChatMessage JSON: %s", where, c, why);
            continue;
        }
        for (size_t i = 0; i < count; i++) check_id_reuse(j, &items[i], ident_by_content(j->x, &items[i]), where);
    }
}

void rj_judge_history(run_judge *j, const ts_json *answer, const char *where) {
    const ts_json *history = ts_json_get(answer, "history");
    if (!history || history->kind != TS_JSON_ARRAY) {
        ts_findings_add(j->f, "U13", "%s: the answer has no \"history\" array (the testee's hello lists \"history\")", where);
        return;
    }
    check_history_ids(j, history, where);
    const ts_expected *x = j->x;
    const ts_epoch *last = ts_expected_epoch(x, x->epoch_count - 1);
    char what[160];
    for (size_t a = 0; a < x->action_count; a++) {
        if (x->user_abandoned_by[a] == TS_NOT_ABANDONED || x->user_abandoned_by[a] > last->opened_by) continue;
        ts_item probe = {.kind = TS_ITEM_USER, .text = x->actions[a].text};
        ts_item_describe(&probe, what, sizeof what);
        require_in_history(j, history, (ident){IDENT_USER, a, 0}, what, where);
    }
    for (size_t g = 0; g < x->answers_used; g++) {
        if (x->answer_abandoned_by[g] == TS_NOT_ABANDONED) continue;
        snprintf(what, sizeof what, "model answer %zu", g);
        require_in_history(j, history, (ident){IDENT_ASSISTANT, g, 0}, what, where);
        for (size_t p = 0; p < x->answers[g].call_count; p++) {
            snprintf(what, sizeof what, "the result of call %.60s", x->answers[g].calls[p].call_id.ptr);
            require_in_history(j, history, (ident){IDENT_RESULT, g, p}, what, where);
        }
    }
}
