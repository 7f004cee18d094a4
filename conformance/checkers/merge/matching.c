/* matching.c — the exact decider; see matching.h, and DESIGN.md §2 and §4 for the argument.
 *
 * Classes: group words that every message of this answer fits alike (signature.h's view), used
 * as many times as they have groups, numbered by content (never by arrival: the search is then
 * the same for every arrival order). The search over states of placed words is match_search.c's
 * (match_search.h); this file builds its tables (the classes, their live lists and bucket
 * indexes, the answer's rolling hashes) and runs it: longest words first, metered by the budget
 * (budget.h). Only for an answer decided invalid, greedy dives in arrival order look for a
 * deeper split.
 */
#include "conformance/checkers/merge/matching.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/checkers/merge/contents.h"
#include "conformance/checkers/merge/match_search.h"
#include "conformance/checkers/merge/message.h"
#include "conformance/checkers/merge/signature.h"
#include "core/json/strmap.h"

static const uint64_t BASE = 0x9E3779B97F4A7C15ULL | 1;

/* --------------------------------------------------------------------------- classes --- */

static bool same_view_word(const search *s, const ts_view *view, const ts_signature *esig, size_t g, size_t h,
                           size_t length) {
    for (size_t j = 0; j < length; j++) {
        size_t a = s->w->items[s->w->start[g] + j], b = s->w->items[s->w->start[h] + j];
        if (esig[a].coarse != esig[b].coarse || !ts_view_same(view, esig[a].coarse, &s->e->messages[a], &s->e->messages[b]))
            return false;
    }
    return true;
}

/* Lengths per first signature, for the bucket lookups. */
typedef struct sig_length {
    uint64_t sig;
    size_t length;
} sig_length;

static int compare_sig_length(const void *pa, const void *pb) {
    const sig_length *a = pa, *b = pb;
    if (a->sig != b->sig) return a->sig < b->sig ? -1 : 1;
    return a->length < b->length ? -1 : a->length > b->length;
}

/* Classes in content order: by the view hash of their word, then (only for words whose hashes
 * collide) by the first arrival of their first group. */
static int compare_class(const void *pa, const void *pb) {
    const word_class *a = pa, *b = pb;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return a->rep < b->rep ? -1 : a->rep > b->rep;
}

/* Groups into classes by view (a map from the view hash of a word to its classes, verified),
 * then the classes renumbered in content order; class_of[g] is group g's class (NONE for an
 * empty word). Fills coarse_of and exact_of with each group's bucket keys. */
static bool group_classes(search *s, const ts_signature *esig, const ts_view *view, size_t *class_of, uint64_t *coarse_of,
                          uint64_t *exact_of) {
    const ts_group_words *w = s->w;
    size_t groups = w->group_count;
    size_t *view_next = malloc((groups + 1) * sizeof *view_next), *rank = malloc((groups + 1) * sizeof *rank);
    ts_strmap by_view;
    ts_strmap_init(&by_view);
    bool ok = view_next && rank;
    for (size_t g = 0; g < groups && ok; g++) {
        size_t length = w->start[g + 1] - w->start[g];
        class_of[g] = NONE;
        if (length == 0) continue;
        uint64_t exact = 0, coarse = 0, seen = 0;
        for (size_t j = 0; j < length; j++) {
            size_t k = w->items[w->start[g] + j];
            exact = exact * BASE + esig[k].exact;
            coarse = coarse * BASE + esig[k].coarse;
            seen = seen * BASE + ts_view_hash(view, esig[k].coarse, &s->e->messages[k]);
        }
        coarse_of[g] = bucket_key(coarse, length);
        exact_of[g] = bucket_key(exact, length);
        uint64_t key = bucket_key(seen, length);
        size_t head, c = NONE, last = NONE;
        if (ts_strmap_get(&by_view, key, EMPTY, &head))
            for (size_t k = head; k != NONE && c == NONE; k = view_next[k]) {
                last = k;
                if (s->cls[k].length == length && same_view_word(s, view, esig, s->cls[k].rep, g, length)) c = k;
            }
        if (c == NONE) {
            c = s->ncls++;
            s->cls[c] = (word_class){key, length, g, NULL, 0, 0, esig[w->items[w->start[g]]].coarse, NONE, NONE};
            view_next[c] = NONE;
            if (last == NONE) ok = ts_strmap_put(&by_view, key, EMPTY, c);
            else view_next[last] = c;
        }
        class_of[g] = c;
        s->cls[c].group_count++;
    }
    if (ok) { /* content order: rank[old number] = new number */
        for (size_t c = 0; c < s->ncls; c++) s->cls[c].exact_next = c; /* the old number, carried through the sort */
        qsort(s->cls, s->ncls, sizeof *s->cls, compare_class);
        for (size_t c = 0; c < s->ncls; c++) {
            rank[s->cls[c].exact_next] = c;
            s->cls[c].exact_next = NONE;
        }
        for (size_t g = 0; g < groups; g++)
            if (class_of[g] != NONE) class_of[g] = rank[class_of[g]];
    }
    ts_strmap_free(&by_view);
    free(view_next);
    free(rank);
    return ok;
}

/* Appends class c to its coarse bucket's live list and to the exact-signature chain of its
 * rep word (both in class order). */
static bool index_class(search *s, size_t c, uint64_t coarse, uint64_t exact) {
    word_class *k = &s->cls[c];
    size_t sentinel, head;
    bool ok = true;
    if (!ts_strmap_get(&s->coarse_buckets, coarse, EMPTY, &sentinel)) {
        sentinel = s->ncls + s->nsentinels++;
        s->prev[sentinel] = s->next[sentinel] = sentinel;
        ok = ts_strmap_put(&s->coarse_buckets, coarse, EMPTY, sentinel);
    }
    k->sentinel = sentinel;
    s->live[sentinel]++;
    s->next[c] = sentinel;
    s->prev[c] = s->prev[sentinel];
    s->next[s->prev[sentinel]] = c;
    s->prev[sentinel] = c;
    if (ts_strmap_get(&s->exact_buckets, exact, EMPTY, &head)) {
        while (s->cls[head].exact_next != NONE) head = s->cls[head].exact_next;
        s->cls[head].exact_next = c;
        return ok;
    }
    return ok && ts_strmap_put(&s->exact_buckets, exact, EMPTY, c);
}

/* The classes (group_classes), each class's groups in arrival order, the live lists, the
 * exact-signature index of rep words, and the lengths per first signature. */
static bool build_classes(search *s, ts_arena *arena, const ts_signature *esig, const ts_view *view) {
    size_t groups = s->w->group_count;
    size_t *class_of = malloc((groups + 1) * sizeof *class_of);
    uint64_t *coarse_of = malloc((groups + 1) * sizeof *coarse_of), *exact_of = malloc((groups + 1) * sizeof *exact_of);
    s->cls = calloc(groups + 1, sizeof *s->cls);
    bool ok = class_of && coarse_of && exact_of && s->cls && group_classes(s, esig, view, class_of, coarse_of, exact_of);
    s->prev = malloc((2 * s->ncls + 1) * sizeof *s->prev);
    s->next = malloc((2 * s->ncls + 1) * sizeof *s->next);
    s->live = calloc(2 * s->ncls + 1, sizeof *s->live);
    sig_length *pairs = malloc((s->ncls + 1) * sizeof *pairs);
    ok = ok && s->prev && s->next && s->live && pairs;
    for (size_t c = 0; c < s->ncls && ok; c++) {
        s->cls[c].groups = ts_arena_alloc(arena, s->cls[c].group_count * sizeof *s->cls[c].groups);
        ok = s->cls[c].groups != NULL;
    }
    for (size_t g = 0; g < groups && ok; g++)
        if (class_of[g] != NONE) s->cls[class_of[g]].groups[s->cls[class_of[g]].remaining++] = g;
    for (size_t c = 0; c < s->ncls && ok; c++) ok = index_class(s, c, coarse_of[s->cls[c].rep], exact_of[s->cls[c].rep]);
    for (size_t c = 0; c < s->ncls && ok; c++) pairs[c] = (sig_length){s->cls[c].first_coarse, s->cls[c].length};
    if (ok) qsort(pairs, s->ncls, sizeof *pairs, compare_sig_length);
    s->lengths = malloc((s->ncls + 1) * sizeof *s->lengths);
    s->runs = malloc((s->ncls + 1) * sizeof *s->runs);
    s->run_len = malloc((s->ncls + 1) * sizeof *s->run_len);
    ok = ok && s->lengths && s->runs && s->run_len;
    size_t nl = 0, nr = 0;
    for (size_t i = 0; i < s->ncls && ok; i++) {
        if (i == 0 || pairs[i].sig != pairs[i - 1].sig) {
            s->runs[nr] = nl;
            s->run_len[nr] = 0;
            ok = ts_strmap_put(&s->runs_by_sig, pairs[i].sig, EMPTY, nr++);
        } else if (pairs[i].length == pairs[i - 1].length) {
            continue;
        }
        s->lengths[nl++] = pairs[i].length;
        s->run_len[nr - 1]++;
    }
    free(class_of);
    free(coarse_of);
    free(exact_of);
    free(pairs);
    return ok;
}

/* The search's tables: each message's signature (esig for the expected ones: *visible counts
 * those not omitted), the answer's prefix hashes and createdAt instants, and its view. False out
 * of memory. */
static bool prepare_search(search *s, const ts_created_at *created, ts_signature *esig, size_t *visible,
                           ts_view **view) {
    const ts_expectation *e = s->e;
    s->asig = malloc((s->m + 1) * sizeof *s->asig);
    s->created = (ts_created_at *)created;
    if (!created && (s->created = malloc((s->m + 1) * sizeof *s->created))) {
        s->own_created = true;
        for (size_t i = 0; i < s->m; i++)
            s->created[i] = ts_created_at_of(ts_json_string(ts_json_get(answer_at(s, i), "createdAt")));
    }
    s->pc = malloc((s->m + 1) * sizeof *s->pc);
    s->px = malloc((s->m + 1) * sizeof *s->px);
    s->power = malloc((s->m + 1) * sizeof *s->power);
    s->tally = calloc(s->w->group_count + 1, sizeof *s->tally);
    s->touched = malloc((2 * s->w->group_count + 1) * sizeof *s->touched);
    if (!(s->asig && s->created && s->pc && s->px && s->power && s->tally && s->touched)) return false;
    for (size_t k = 0; k < e->message_count; k++) {
        if (e->messages[k].omitted) continue;
        esig[k] = ts_signature_expected(&e->messages[k]);
        ++*visible;
    }
    s->pc[0] = s->px[0] = 0;
    s->power[0] = 1;
    for (size_t i = 0; i < s->m; i++) {
        s->asig[i] = ts_signature_answer(answer_at(s, i), &s->created[i]);
        s->pc[i + 1] = s->pc[i] * BASE + s->asig[i].coarse;
        s->px[i + 1] = s->px[i] * BASE + s->asig[i].exact;
        s->power[i + 1] = s->power[i] * BASE;
    }
    bool kept_fields = false; /* only then does the view need the answer's kept fields per signature */
    for (size_t k = 0; k < e->message_count && !kept_fields; k++) kept_fields = e->messages[k].extras.count > 0;
    *view = ts_view_new(s->answer, s->asig, kept_fields);
    return *view != NULL;
}

/* The exhaustive search, canonical and metered, longest words first (fewer, larger pieces: it
 * finds tilings of look-alike words far sooner than shorter first; any order is exact). An answer
 * known bad (a count that differs, or, asked when the first state fails, a message that fits
 * nothing) is not searched further. For a rejected answer, greedy dives in the two usual group
 * orders (and, when nothing was searched, longest first) look for the deepest split the
 * diagnostics read against: the first node to reach the deepest position, the dives' before the
 * search's. False out of memory. */
static bool search_and_dive(search *s, ts_arena *arena, size_t visible, const ts_judge_budget *budget,
                            ts_decision *out) {
    s->plausible = s->m == visible ? UNKNOWN : REFUSED;
    size_t done = NONE, searched = NONE;
    ts_judge_meter_start(&s->meter, budget, s->w->group_count + 1);
    if (s->plausible != REFUSED) {
        s->policy = LONGEST;
        done = match_search_run(s, false);
        searched = s->best;
        s->best = NONE;
    }
    if (done == NONE && s->plausible == UNKNOWN && !s->oom) /* the budget ran out before any state failed */
        s->plausible = ts_signature_some_answer_fits_nothing(s->e, s->esig, s->answer, s->asig) ? REFUSED : PLAUSIBLE;
    bool plausible = done != NONE || s->plausible == PLAUSIBLE; /* a complete split fits every message */
    if (!plausible) searched = NONE; /* a refused answer is read against the dives alone */
    out->undecided = plausible && done == NONE && s->meter.exhausted && !s->oom;
    out->states = (size_t)s->meter.spent;
    if (done == NONE && !out->undecided && !s->oom) {
        s->revisits = true; /* three dives over the same positions */
        s->policy = FORWARD;
        match_search_run(s, true);
        s->policy = REVERSE;
        if (!s->oom) match_search_run(s, true);
        s->policy = LONGEST;
        if (!plausible && !s->oom) match_search_run(s, true);
        if (searched != NONE && s->nodes[searched].pos > s->nodes[s->best].pos) s->best = searched;
    } else if (done == NONE && searched != NONE) {
        s->best = searched;
    }
    out->valid = plausible && done != NONE;
    return !s->oom && match_search_pairs(s, arena, out->valid ? done : s->best, &out->pairs, &out->pair_count,
                                            &out->reached, &out->group_placed);
}

bool ts_match_decide(ts_arena *arena, const ts_expectation *e, const ts_group_words *words, const ts_json *messages,
                     const ts_created_at *created, const ts_judge_budget *budget, ts_decision *out) {
    memset(out, 0, sizeof *out);
    search s;
    memset(&s, 0, sizeof s);
    s.e = e;
    s.w = words;
    s.answer = messages;
    s.m = messages->u.a.count;
    s.best = NONE;
    ts_strmap_init(&s.exact_buckets), ts_strmap_init(&s.coarse_buckets), ts_strmap_init(&s.runs_by_sig);
    ts_strmap_init(&s.verified), ts_strmap_init(&s.failed);
    ts_signature *esig = malloc((e->message_count + 1) * sizeof *esig);
    ts_view *view = NULL;
    size_t visible = 0;
    bool ok = esig && prepare_search(&s, created, esig, &visible, &view) && build_classes(&s, arena, esig, view);
    if (ok) {
        s.esig = esig;
        ok = search_and_dive(&s, arena, visible, budget, out);
    }
    ts_view_free(view);
    free(esig);
    match_search_free(&s);
    return ok;
}
