/* resume_match.c — one observed conversation against X; see resume_match.h. */
#include "conformance/checkers/resume/resume_match.h"

#include <stdio.h>
#include <string.h>

#include "core/json/strmap.h"

size_t ts_expected_users_before(const ts_epoch *x, size_t assistant) {
    size_t n = 0;
    for (size_t b = 0; b <= assistant && b <= x->assistant_count; b++)
        for (size_t i = 0; i < x->blocks[b].count; i++) n += x->blocks[b].items[i].kind == TS_ITEM_USER;
    return n;
}

/* U1: no two messages of one observation share a non-empty messageId. One pass with a map from
 * id to the first message that holds it: a read of n messages costs O(n), not O(n^2). false:
 * out of memory. */
static bool check_ids(const ts_item *items, size_t count, const char *where, ts_findings *f) {
    ts_strmap first;
    ts_strmap_init(&first);
    bool ok = true;
    for (size_t i = 0; i < count && ok; i++) {
        if (!items[i].message_id.ptr || (i && items[i - 1].message == items[i].message)) continue;
        size_t holder;
        if (!ts_strmap_get(&first, 0, items[i].message_id, &holder)) {
            ok = ts_strmap_put(&first, 0, items[i].message_id, items[i].message);
        } else if (holder != items[i].message) {
            ts_findings_add(f, "U1", "%s: messages %zu and %zu share messageId \"%.60s\"", where, holder, items[i].message,
                            items[i].message_id.ptr);
            break;
        }
    }
    ts_strmap_free(&first);
    return ok;
}

typedef struct matcher {
    const ts_epoch *x;
    const ts_item *items;
    size_t count;
    ts_item_key *keys;
    ts_arena *arena;
    ts_findings *f;
    const char *where;
    size_t *starts;     /* observed: index of the first item of block b (count + 1 slots per block) */
    size_t *ends;
    bool *user_used;    /* X users matched, by ordinal */
    /* How often each user text occurs (check_user_counts): in the observation up to the compared
     * blocks, in X up to them, and in all of X. */
    ts_strmap observed_texts, expected_texts, sent_texts;
} matcher;

static size_t user_ordinal_start(const ts_epoch *x, size_t block) {
    return block ? ts_expected_users_before(x, block - 1) : 0;
}

/* Users of observed block b against X's block b: matched in order, text by text. */
static void match_users(matcher *m, size_t b) {
    const ts_block *xb = &m->x->blocks[b];
    size_t ordinal = user_ordinal_start(m->x, b), next = 0;
    for (size_t i = m->starts[b]; i < m->ends[b]; i++) {
        if (m->items[i].kind != TS_ITEM_USER) continue;
        size_t o = ordinal;
        for (size_t k = 0; k < xb->count; k++) {
            if (xb->items[k].kind != TS_ITEM_USER) continue;
            if (k >= next && !m->user_used[o] && ts_str_eq(xb->items[k].text, m->items[i].text)) {
                m->user_used[o] = true;
                if (m->keys) m->keys[i] = (ts_item_key){TS_ITEM_KEY_USER, o, 0};
                next = k + 1;
                break;
            }
            o++;
        }
    }
}

/* Results of observed block b (b >= 1) against the calls of assistant b - 1. */
static void match_results(matcher *m, size_t b, bool complete, ts_match_mode mode) {
    const ts_item *asker = &m->x->assistants[b - 1];
    const ts_block *xb = &m->x->blocks[b];
    size_t calls = asker->call_count;
    size_t *seen = ts_arena_calloc(m->arena, calls + 1, sizeof *seen);
    if (!seen) return;
    char text[200];
    for (size_t i = m->starts[b]; i < m->ends[b]; i++) {
        const ts_item *r = &m->items[i];
        if (r->kind != TS_ITEM_RESULT) continue;
        size_t p = 0;
        while (p < calls && !ts_str_eq(asker->calls[p].call_id, r->call_id)) p++;
        const ts_item *want = NULL;
        for (size_t k = 0; p < calls && k < xb->count && !want; k++)
            if (xb->items[k].kind == TS_ITEM_RESULT && ts_str_eq(xb->items[k].call_id, r->call_id)) want = &xb->items[k];
        if (p == calls || !want) {
            ts_item_describe(r, text, sizeof text);
            ts_findings_add(m->f, "U2", "%s: message %zu holds a %s, but %s", m->where, r->message, text,
                            p == calls ? "the assistant message before it did not ask for that call"
                                       : "that call's tool has not answered (it is pending)");
            continue;
        }
        if (seen[p]++ == 0 && m->keys) m->keys[i] = (ts_item_key){TS_ITEM_KEY_RESULT, b, p};
        if (!want->value_free && !ts_result_matches(&want->value, &r->value, m->arena)) {
            char expected[200];
            ts_item_describe(want, expected, sizeof expected);
            ts_item_describe(r, text, sizeof text);
            ts_findings_add(m->f, "U2", "%s: message %zu: the tool's result was altered: expected %s, got %s", m->where,
                            r->message, expected, text);
        }
    }
    for (size_t p = 0; p < calls; p++) {
        bool expected = false;
        for (size_t k = 0; k < xb->count; k++)
            expected |= xb->items[k].kind == TS_ITEM_RESULT && !xb->items[k].optional &&
                        ts_str_eq(xb->items[k].call_id, asker->calls[p].call_id);
        const char *id = asker->calls[p].call_id.ptr;
        int id_len = (int)(asker->calls[p].call_id.len > 60 ? 60 : asker->calls[p].call_id.len);
        if (seen[p] > 1)
            ts_findings_add(m->f, "U5", "%s: call %.*s of assistant message %zu has %zu results, not one", m->where, id_len,
                            id, b - 1, seen[p]);
        if (!expected || seen[p] || !complete) continue;
        if (mode == TS_MATCH_VIEW)
            ts_findings_add(m->f, "U5", "%s: the model was called while call %.*s (of assistant message %zu) had no result",
                            m->where, id_len, id, b - 1);
        else if (b < m->x->assistant_count)
            ts_findings_add(m->f, "U5", "%s: call %.*s of assistant message %zu has no result before the next assistant message",
                            m->where, id_len, id, b - 1);
        else
            ts_findings_add(m->f, "U2", "%s: the result of call %.*s is missing", m->where, id_len, id);
    }
}

/* Counts the user texts of items[0..end) into m->observed_texts, and X's up to block `last` and in
 * all its blocks into m->expected_texts and m->sent_texts. false: out of memory. */
static bool count_user_texts(matcher *m, size_t end, size_t last) {
    bool ok = true;
    size_t n;
    for (size_t j = 0; j < end && ok; j++) {
        if (m->items[j].kind != TS_ITEM_USER) continue;
        if (!ts_strmap_get(&m->observed_texts, 0, m->items[j].text, &n)) n = 0;
        ok = ts_strmap_put(&m->observed_texts, 0, m->items[j].text, n + 1);
    }
    for (size_t b = 0; b <= m->x->assistant_count && ok; b++)
        for (size_t k = 0; k < m->x->blocks[b].count && ok; k++) {
            const ts_item *u = &m->x->blocks[b].items[k];
            if (u->kind != TS_ITEM_USER) continue;
            if (!ts_strmap_get(&m->sent_texts, 0, u->text, &n)) n = 0;
            ok = ts_strmap_put(&m->sent_texts, 0, u->text, n + 1);
            if (!ok || b > last) continue;
            if (!ts_strmap_get(&m->expected_texts, 0, u->text, &n)) n = 0;
            ok = ts_strmap_put(&m->expected_texts, 0, u->text, n + 1);
        }
    return ok;
}

static size_t text_count(const ts_strmap *map, ts_str text) {
    size_t n;
    return ts_strmap_get(map, 0, text, &n) ? n : 0;
}

/* U3 (a user message doubled or lost) and U2 (one out of place), over the compared blocks. A text
 * seen more often than X holds it up to these blocks, but not more often than X holds it at all, is
 * early, not doubled: it was sent, and belongs after a later assistant message. The fault is then
 * what is missing before it (a lost message), or, when nothing is, its place. */
static bool check_user_counts(matcher *m, size_t last_block, bool last_complete) {
    size_t end = m->ends[last_block];
    if (!count_user_texts(m, end, last_block)) return false;
    const ts_item *early = NULL;
    size_t early_block = 0;
    char text[120];
    for (size_t i = 0; i < end; i++) {
        if (m->items[i].kind != TS_ITEM_USER) continue;
        size_t seen = text_count(&m->observed_texts, m->items[i].text), here = text_count(&m->expected_texts, m->items[i].text);
        if (seen <= here) continue;
        size_t sent = text_count(&m->sent_texts, m->items[i].text);
        if (seen <= sent) {
            if (!early) early = &m->items[i], early_block = ts_count_assistants(m->items, i);
            continue;
        }
        ts_item_describe(&m->items[i], text, sizeof text);
        ts_findings_add(m->f, "U3", "%s: %s appears %zu times; it was sent %zu time%s", m->where, text, seen, sent,
                        sent == 1 ? "" : "s");
        return true;
    }
    for (size_t b = 0, o = 0; b <= last_block; b++) {
        for (size_t k = 0; k < m->x->blocks[b].count; k++) {
            const ts_item *u = &m->x->blocks[b].items[k];
            if (u->kind != TS_ITEM_USER) continue;
            bool used = m->user_used[o++];
            if (used || !(b < last_block || last_complete)) continue;
            ts_item_describe(u, text, sizeof text);
            if (text_count(&m->observed_texts, u->text) < text_count(&m->expected_texts, u->text))
                ts_findings_add(m->f, "U3", "%s: %s is lost (it was sent before assistant message %zu)", m->where, text, b);
            else
                ts_findings_add(m->f, "U2", "%s: %s is out of place (it belongs before assistant message %zu)", m->where,
                                text, b);
            return true;
        }
    }
    if (early) {
        ts_item_describe(early, text, sizeof text);
        ts_findings_add(m->f, "U2", "%s: %s comes before assistant message %zu; the scenario has it after a later one",
                        m->where, text, early_block);
    }
    return true;
}

bool ts_match_conversation(const ts_epoch *x, const ts_item *items, size_t count, ts_match_mode mode,
                           const char *where, ts_item_key *keys, ts_arena *arena, ts_findings *findings) {
    if (keys)
        for (size_t i = 0; i < count; i++) keys[i] = (ts_item_key){TS_ITEM_KEY_NONE, 0, 0};
    if (!check_ids(items, count, where, findings)) return false;
    size_t m = ts_count_assistants(items, count), n = x->assistant_count;
    matcher mt = {x, items, count, keys, arena, findings, where, NULL, NULL, NULL, {0}, {0}, {0}};
    mt.starts = ts_arena_calloc(arena, m + 2, sizeof *mt.starts);
    mt.ends = ts_arena_calloc(arena, m + 2, sizeof *mt.ends);
    mt.user_used = ts_arena_calloc(arena, ts_expected_users_before(x, n) + 1, sizeof *mt.user_used);
    if (!mt.starts || !mt.ends || !mt.user_used) return false;
    const ts_item **observed_assistants = ts_arena_calloc(arena, m + 1, sizeof *observed_assistants);
    if (!observed_assistants) return false;
    for (size_t i = 0, b = 0; i < count; i++) { /* block boundaries */
        if (items[i].kind == TS_ITEM_ASSISTANT) {
            mt.ends[b] = i;
            observed_assistants[b] = &items[i];
            if (keys && b < n) keys[i] = (ts_item_key){TS_ITEM_KEY_ASSISTANT, b, 0};
            mt.starts[++b] = i + 1;
        }
    }
    mt.ends[m] = count;
    /* Assistant items: the same as X's, in order; compare blocks up to the first that is not. */
    size_t limit = m < n ? m : n;
    char text[200], expected[200];
    for (size_t i = 0; i < limit; i++) {
        if (ts_assistant_matches(&x->assistants[i], observed_assistants[i])) continue;
        ts_item_describe(&x->assistants[i], expected, sizeof expected);
        ts_item_describe(observed_assistants[i], text, sizeof text);
        ts_findings_add(findings, "U2", "%s: assistant message %zu (message %zu) is not the scenario's: expected %s, got %s",
                        where, i, observed_assistants[i]->message, expected, text);
        if (keys)
            for (size_t k = observed_assistants[i]->message; k < count; k++) keys[k] = (ts_item_key){TS_ITEM_KEY_NONE, 0, 0};
        limit = i;
        break;
    }
    if (mode == TS_MATCH_VIEW && m >= n)
        ts_findings_add(findings, "U2", "%s: the model was asked for answer %zu; the scenario's conversation has %zu "
                        "assistant messages, and the next is not due", where, m + 1, n);
    else if (mode != TS_MATCH_VIEW && m > n)
        ts_findings_add(findings, "U2", "%s: %zu assistant messages; the scenario's conversation has %zu (a turn persisted twice?)",
                        where, m, n);
    else if (mode == TS_MATCH_FINAL && m < n)
        ts_findings_add(findings, "U2", "%s: the conversation stops after %zu of its %zu assistant messages", where, m, n);
    bool last_complete = mode == TS_MATCH_VIEW || (mode == TS_MATCH_FINAL && m == n);
    if (limit < (m < n ? m : n)) last_complete = false; /* an assistant differs: compare no further than it */
    for (size_t b = 0; b <= limit; b++) {
        bool complete = b < limit || last_complete;
        match_users(&mt, b);
        if (b > 0) match_results(&mt, b, complete, mode);
        else
            for (size_t i = mt.starts[0]; i < mt.ends[0]; i++)
                if (items[i].kind == TS_ITEM_RESULT) {
                    ts_item_describe(&items[i], text, sizeof text);
                    ts_findings_add(findings, "U2", "%s: message %zu holds a %s before any assistant message", where,
                                    items[i].message, text);
                }
    }
    ts_strmap_init(&mt.observed_texts);
    ts_strmap_init(&mt.expected_texts);
    ts_strmap_init(&mt.sent_texts);
    bool ok = check_user_counts(&mt, limit, last_complete);
    ts_strmap_free(&mt.observed_texts);
    ts_strmap_free(&mt.expected_texts);
    ts_strmap_free(&mt.sent_texts);
    return ok;
}
