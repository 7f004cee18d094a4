/* diagnose.c — explaining an answer the decider rejected; see ts_match_diagnose in matching.h.
 *
 * The verdict is already taken (matching.c); this only chooses which answer message to read as
 * which expected message so that the findings name the rule and the message a person would:
 * the deepest split into whole group words stands, and the rest is paired by messageId and C1
 * normal form (preferring a pair that fits, then one in the group of the previous pair), then
 * by messageId alone. Near-linear: hash chains in arrival order with cursors, and at most
 * SCAN candidates looked at per answer message.
 */
#include "conformance/checkers/merge/matching.h"

#include <stdlib.h>
#include <string.h>

#include "conformance/checkers/findings.h"
#include "conformance/checkers/merge/contents.h"
#include "conformance/checkers/merge/message.h"
#include "core/json/strmap.h"

enum { SCAN = 16 };
#define NONE SIZE_MAX

typedef struct chains {
    ts_strmap by_key;  /* key -> chain */
    size_t *head, *cursor, *next, count;
} chains;

typedef struct leftovers {
    const ts_expectation *e;
    ts_json **norm;     /* expected messages' contents in C1 normal form */
    size_t *norm_count;
    bool *paired_expected;
    chains by_form, by_id;
} leftovers;

static uint64_t key_of(ts_str id, const ts_json *norm, size_t norm_count) {
    uint64_t h = id.ptr ? ts_hash_bytes(id.ptr, id.len, 7) : 0x1D1E55;
    return norm ? ts_hash_then(h, ts_hash_contents(norm, norm_count)) : h;
}

static bool chains_init(chains *c, size_t n) {
    ts_strmap_init(&c->by_key);
    c->head = malloc((n + 1) * sizeof *c->head);
    c->cursor = malloc((n + 1) * sizeof *c->cursor);
    c->next = malloc((n + 1) * sizeof *c->next);
    c->count = 0;
    return c->head && c->cursor && c->next;
}

static void chains_free(chains *c) {
    ts_strmap_free(&c->by_key);
    free(c->head), free(c->cursor), free(c->next);
}

/* Appends expected message k under key (chains keep arrival order: k only grows). */
static bool chains_add(chains *c, uint64_t key, size_t k, size_t *tail) {
    size_t id;
    c->next[k] = NONE;
    if (ts_strmap_get(&c->by_key, key, ts_str_from(""), &id)) {
        c->next[tail[id]] = k;
        tail[id] = k;
        return true;
    }
    id = c->count++;
    c->head[id] = c->cursor[id] = tail[id] = k;
    return ts_strmap_put(&c->by_key, key, ts_str_from(""), id);
}

static bool form_matches(const leftovers *l, size_t k, ts_str id, const ts_json *norm, size_t norm_count) {
    return ts_str_eq(l->e->messages[k].message_id, id) &&
           (!norm || ts_same_contents(l->norm[k], l->norm_count[k], norm, norm_count));
}

/* The expected message to read answer message got as, from the chain of key, or NONE. */
static size_t pick(leftovers *l, chains *c, uint64_t key, ts_str id, const ts_json *norm, size_t norm_count,
                   const ts_json *got, size_t previous_group) {
    size_t chain;
    if (!ts_strmap_get(&c->by_key, key, ts_str_from(""), &chain)) return NONE;
    while (c->cursor[chain] != NONE && l->paired_expected[c->cursor[chain]]) c->cursor[chain] = c->next[c->cursor[chain]];
    size_t first = NONE, beside = NONE, seen = 0;
    for (size_t k = c->cursor[chain]; k != NONE && seen < SCAN; k = c->next[k]) {
        if (l->paired_expected[k] || !form_matches(l, k, id, norm, norm_count)) continue;
        seen++;
        if (got && ts_judge_message(NULL, &l->e->messages[k], got, NULL)) return k;
        if (first == NONE) first = k;
        if (beside == NONE && l->e->messages[k].group == previous_group) beside = k;
    }
    return beside != NONE ? beside : first;
}

static int compare_pairs(const void *pa, const void *pb) {
    const ts_pair *a = pa, *b = pb;
    return a->answer < b->answer ? -1 : a->answer > b->answer;
}

/* Pairs the answer's messages the decision left unpaired with the expected ones it left, in two
 * passes (0: the same id and contents; 1: the same id alone), each answer message read beside the
 * group of the one before it; adds the pairs to pairs[*np...]. False out of memory. */
static bool pair_leftovers(ts_arena *arena, leftovers *l, const ts_json *messages, ts_pair *pairs, size_t *np,
                           bool *paired_answer, size_t *group_of) {
    size_t m = messages->u.a.count;
    bool ok = true;
    for (int pass = 0; ok && pass < 2; pass++) {
        size_t previous_group = NONE;
        for (size_t i = 0; ok && i < m; i++) {
            if (paired_answer[i]) {
                previous_group = group_of[i];
                continue;
            }
            const ts_json *got = &messages->u.a.items[i];
            ts_str id = ts_message_id_of(got);
            if (pass == 1 && !id.ptr) continue;
            ts_json *norm = NULL;
            size_t norm_count = 0, k;
            if (pass == 0) {
                const ts_json *contents = ts_json_get(got, "contents");
                ok = ts_contents_normalize(arena, contents->u.a.items, contents->u.a.count, &norm, &norm_count);
                k = pick(l, &l->by_form, key_of(id, norm, norm_count), id, norm, norm_count, got, previous_group);
            } else {
                k = pick(l, &l->by_id, key_of(id, NULL, 0), id, NULL, 0, NULL, previous_group);
            }
            if (!ok || k == NONE) continue;
            pairs[(*np)++] = (ts_pair){k, i};
            l->paired_expected[k] = paired_answer[i] = true;
            previous_group = group_of[i] = l->e->messages[k].group;
        }
    }
    return ok;
}

bool ts_match_diagnose(ts_arena *arena, const ts_expectation *e, const ts_group_words *words, const ts_json *messages,
                       const ts_decision *d, ts_findings *f) {
    size_t before = f->count + f->suppressed, m = messages->u.a.count, n = e->message_count;
    leftovers l;
    memset(&l, 0, sizeof l);
    l.e = e;
    l.norm = ts_arena_calloc(arena, n + 1, sizeof *l.norm);
    l.norm_count = ts_arena_calloc(arena, n + 1, sizeof *l.norm_count);
    l.paired_expected = ts_arena_calloc(arena, n + 1, sizeof *l.paired_expected);
    ts_pair *pairs = ts_arena_alloc(arena, (m + 1) * sizeof *pairs);
    bool *paired_answer = ts_arena_calloc(arena, m + 1, sizeof *paired_answer);
    size_t *group_of = ts_arena_alloc(arena, (m + 1) * sizeof *group_of); /* the paired answer's group */
    size_t *tail_form = malloc((n + 1) * sizeof *tail_form), *tail_id = malloc((n + 1) * sizeof *tail_id);
    bool chained = chains_init(&l.by_form, n);
    chained = chains_init(&l.by_id, n) && chained; /* both, so that both can be freed */
    bool ok = l.norm && l.norm_count && l.paired_expected && pairs && paired_answer && group_of && tail_form && tail_id &&
              chained;
    size_t np = 0;
    for (size_t k = 0; ok && k < d->pair_count; k++) {
        pairs[np++] = d->pairs[k];
        l.paired_expected[d->pairs[k].expected] = true;
        paired_answer[d->pairs[k].answer] = true;
        group_of[d->pairs[k].answer] = e->messages[d->pairs[k].expected].group;
    }
    for (size_t k = 0; ok && k < n; k++) {
        const ts_expected_message *x = &e->messages[k];
        if (x->omitted || l.paired_expected[k]) continue;
        ts_json *raw = ts_arena_alloc(arena, (x->raw_count + 1) * sizeof *raw);
        ok = raw != NULL;
        for (size_t r = 0; ok && r < x->raw_count; r++) raw[r] = *x->raw[r];
        ok = ok && ts_contents_normalize(arena, raw, x->raw_count, &l.norm[k], &l.norm_count[k]) &&
             chains_add(&l.by_form, key_of(x->message_id, l.norm[k], l.norm_count[k]), k, tail_form) &&
             (!x->message_id.ptr || chains_add(&l.by_id, key_of(x->message_id, NULL, 0), k, tail_id));
    }
    ok = ok && pair_leftovers(arena, &l, messages, pairs, &np, paired_answer, group_of);
    char a[300];
    for (size_t i = 0; ok && i < m; i++) {
        if (paired_answer[i]) continue;
        ts_check_excerpt(&messages->u.a.items[i], a, sizeof a);
        ts_findings_add(f, "M", "messages[%zu] is no message the updates form: %s", i, a);
    }
    for (size_t k = 0; ok && k < n; k++) {
        if (e->messages[k].omitted || l.paired_expected[k]) continue;
        ts_expect_describe(&e->messages[k], a, sizeof a);
        ts_findings_add(f, "M", "%s is missing from the answer (or formed from other updates)", a);
    }
    if (ok) qsort(pairs, np, sizeof *pairs, compare_pairs);
    for (size_t k = 0; ok && k < np; k++)
        ts_judge_message(arena, &e->messages[pairs[k].expected], &messages->u.a.items[pairs[k].answer], f);
    ok = ok && ts_check_order(e, words, pairs, np, f);
    if (ok && f->count + f->suppressed == before) /* by DESIGN.md this cannot happen; say it rather than pass */
        ts_findings_add(f, "I3", "no arrangement of whole response groups fits the answer's messages; the deepest "
                        "one found covers messages[0..%zu) of %zu", d->reached, m);
    chains_free(&l.by_form);
    chains_free(&l.by_id);
    free(tail_form);
    free(tail_id);
    return ok;
}
