/* conservation.c — C1's conservation over a whole response; see conservation.h. */
#include "conformance/checkers/merge/conservation.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/checkers/merge/contents.h"
#include "core/json/strmap.h"
#include "core/merge/model.h"

/* --------------------------------------------------------------------- conservation (C1) --- */

/* One distinct content (up to ts_same_content) and how often each side holds it. */
typedef struct tally {
    const ts_json *content;
    size_t expected, answered;
    size_t first_message; /* the expected message that holds it first, or SIZE_MAX */
    size_t next;          /* the next tally with the same hash, or SIZE_MAX */
} tally;

typedef struct tallies {
    tally *items;
    size_t count, cap;
    ts_strmap by_hash; /* hash -> first tally with that hash */
} tallies;

/* The tally of content c, created when new; SIZE_MAX when memory ran out. */
static size_t tally_of(tallies *t, const ts_json *c, size_t message) {
    uint64_t h = ts_hash_content(c);
    size_t head = SIZE_MAX, at;
    if (ts_strmap_get(&t->by_hash, h, ts_str_from(""), &head))
        for (at = head; at != SIZE_MAX; at = t->items[at].next)
            if (ts_same_content(t->items[at].content, c)) return at;
    if (t->count == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 64;
        tally *grown = realloc(t->items, cap * sizeof *grown);
        if (!grown) return SIZE_MAX;
        t->items = grown;
        t->cap = cap;
    }
    at = t->count++;
    t->items[at] = (tally){c, 0, 0, message, head};
    return ts_strmap_put(&t->by_hash, h, ts_str_from(""), at) ? at : SIZE_MAX;
}

static bool is_textual(const ts_json *c, size_t *text_bytes, size_t *reasoning_bytes) {
    ts_content_kind kind = ts_content_kind_of(c);
    if (kind == TS_CONTENT_TEXT) {
        *text_bytes += ts_content_text(c).len;
        return true;
    }
    if (kind == TS_CONTENT_REASONING) {
        *reasoning_bytes += ts_content_text(c).len;
        return true;
    }
    return false;
}

bool ts_check_conservation(const ts_expectation *e, const ts_json *messages, ts_findings *f) {
    tallies t;
    memset(&t, 0, sizeof t);
    ts_strmap_init(&t.by_hash);
    bool ok = true;
    size_t got_text = 0, got_reasoning = 0, want_text = e->text_bytes, want_reasoning = e->reasoning_bytes;
    for (size_t i = 0; i < e->message_count && ok; i++) {
        const ts_expected_message *m = &e->messages[i];
        for (size_t r = 0; r < m->raw_count && ok; r++) {
            if (m->raw_flags[r] & TS_RAW_TEXTUAL) continue; /* counted by its bytes as the updates came */
            size_t at = tally_of(&t, m->raw[r], i);
            ok = at != SIZE_MAX;
            if (ok) t.items[at].expected++;
        }
    }
    for (size_t i = 0; i < messages->u.a.count && ok; i++) {
        const ts_json *contents = ts_json_get(&messages->u.a.items[i], "contents");
        for (size_t c = 0; contents && c < contents->u.a.count && ok; c++) {
            if (is_textual(&contents->u.a.items[c], &got_text, &got_reasoning)) continue;
            size_t at = tally_of(&t, &contents->u.a.items[c], SIZE_MAX);
            ok = at != SIZE_MAX;
            if (ok) t.items[at].answered++;
        }
    }
    char a[300];
    for (size_t k = 0; k < t.count && ok; k++) { /* missing first, in the order the updates hold them */
        if (t.items[k].expected <= t.items[k].answered) continue;
        ts_check_excerpt(t.items[k].content, a, sizeof a);
        ts_findings_add(f, "C1", "content %s of update #%zu's message is missing from the response", a,
                        e->messages[t.items[k].first_message].first_arrival);
    }
    for (size_t k = 0; k < t.count && ok; k++) {
        if (t.items[k].answered <= t.items[k].expected) continue;
        ts_check_excerpt(t.items[k].content, a, sizeof a);
        ts_findings_add(f, "C1", "content %s is in the response but no update carries it (invented or duplicated)", a);
    }
    if (ok && got_text != want_text)
        ts_findings_add(f, "C1", "the texts total %zu bytes; the updates' text contents total %zu", got_text, want_text);
    if (ok && got_reasoning != want_reasoning)
        ts_findings_add(f, "C1", "the reasoning texts total %zu bytes; the updates' total %zu", got_reasoning,
                        want_reasoning);
    free(t.items);
    ts_strmap_free(&t.by_hash);
    return ok;
}
