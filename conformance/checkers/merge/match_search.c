/* match_search.c — the decider's search over states; see match_search.h, and DESIGN.md §2 and
 * §4 for the argument.
 *
 * A state is the vector of words placed per class; its position is the sum of their lengths.
 * Depth-first search over states, failed states remembered (hashed, compared exactly), metered
 * by the budget (budget.h).
 *
 * Candidates at p: per length a word starting with the answer's signature at p can have, the
 * coarse bucket of the answer's window there (rolling hashes), each verified by
 * ts_judge_message. Buckets of at most EAGER live classes are verified whole; a larger one is
 * entered through the exact-signature lookup, then walked lazily in class order. The set of
 * candidates is exact; only their order is a heuristic, and it reads content alone.
 */
#include "conformance/checkers/merge/match_search.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/checkers/merge/message.h"
#include "conformance/checkers/merge/signature.h"
#include "core/json/strmap.h"

enum { FITS = 1, EXACT = 2, EAGER = 64 };

static const ts_expected_message *word_message(const search *s, size_t group, size_t j) {
    return &s->e->messages[s->w->items[s->w->start[group] + j]];
}

static uint64_t window(const uint64_t *prefix, const search *s, size_t p, size_t length) {
    return prefix[p + length] - prefix[p] * s->power[length];
}

static bool grow(void **items, size_t *cap, size_t need, size_t size) {
    if (need <= *cap) return true;
    size_t cap2 = *cap ? *cap : 64;
    while (cap2 < need) cap2 *= 2;
    void *grown = realloc(*items, cap2 * size);
    if (!grown) return false;
    *items = grown;
    *cap = cap2;
    return true;
}

/* ---------------------------------------------------------------------- verification --- */

/* FITS | EXACT bits for class c's word at answer position p (p + length <= m): FITS when every
 * answer message fits the rep word's message, EXACT when it also renders it exactly. */
static int verify(search *s, size_t c, size_t p) {
    uint64_t tag = (uint64_t)c * (s->m + 1) + p;
    size_t cached;
    /* Until a state fails, the search only moves forward and meets each (class, position) at
     * most once: caching would cost a map entry per answer message for nothing. */
    if (s->revisits && ts_strmap_get(&s->verified, tag, EMPTY, &cached)) return (int)cached;
    if (s->metered) ts_judge_meter_spend(&s->meter, false); /* the clock also covers verification */
    int bits = FITS | EXACT;
    for (size_t j = 0; j < s->cls[c].length && bits; j++) {
        const ts_expected_message *m = word_message(s, s->cls[c].rep, j);
        const ts_json *got = answer_at(s, p + j);
        if (!ts_message_fits(m, got, &s->created[p + j])) bits = 0;
        else if (!ts_signature_renders_exactly(m, got)) bits &= ~EXACT;
    }
    if (s->revisits && !ts_strmap_put(&s->verified, tag, EMPTY, (size_t)bits)) s->oom = true;
    return bits;
}

/* ---------------------------------------------------------------------------- states --- */

static void take(search *s, size_t c) {
    if (--s->cls[c].remaining > 0) return;
    s->next[s->prev[c]] = s->next[c]; /* dancing links: c keeps its own links for the undo */
    s->prev[s->next[c]] = s->prev[c];
    s->live[s->cls[c].sentinel]--;
}

static void give_back(search *s, size_t c) {
    if (s->cls[c].remaining++ > 0) return;
    s->next[s->prev[c]] = c;
    s->prev[s->next[c]] = c;
    s->live[s->cls[c].sentinel]++;
}

/* Nodes a and b hold the same vector: walk both up to their common ancestor, counting. */
static bool same_state(search *s, size_t a, size_t b) {
    if (s->nodes[a].depth != s->nodes[b].depth || s->nodes[a].pos != s->nodes[b].pos) return false;
    size_t n = 0;
    while (a != b) {
        s->tally[s->nodes[a].cls]++;
        s->tally[s->nodes[b].cls]--;
        s->touched[n++] = s->nodes[a].cls;
        s->touched[n++] = s->nodes[b].cls;
        a = s->nodes[a].parent;
        b = s->nodes[b].parent;
    }
    bool same = true;
    for (size_t i = 0; i < n; i++) {
        same &= s->tally[s->touched[i]] == 0;
        s->tally[s->touched[i]] = 0;
    }
    return same;
}

static bool failed_before(search *s, size_t x) {
    size_t head;
    if (!ts_strmap_get(&s->failed, s->nodes[x].hash, EMPTY, &head)) return false;
    for (size_t k = head; k != NONE; k = s->nodes[k].next_failed)
        if (same_state(s, k, x)) return true;
    return false;
}

static void remember_failed(search *s, size_t x) {
    s->revisits = true;
    size_t head = NONE;
    ts_strmap_get(&s->failed, s->nodes[x].hash, EMPTY, &head);
    s->nodes[x].next_failed = head;
    if (!ts_strmap_put(&s->failed, s->nodes[x].hash, EMPTY, x)) s->oom = true;
}

static size_t new_node(search *s, size_t parent, size_t c) {
    if (!grow((void **)&s->nodes, &s->node_cap, s->nnodes + 1, sizeof *s->nodes)) {
        s->oom = true;
        return NONE;
    }
    node *x = &s->nodes[s->nnodes];
    if (parent == NONE) {
        *x = (node){NONE, NONE, 0, 0, 0, NONE};
    } else {
        const node *up = &s->nodes[parent];
        *x = (node){parent, c, up->depth + 1, up->pos + s->cls[c].length, up->hash + ts_hash_mix(c + 0x5EED), NONE};
    }
    return s->nnodes++;
}

/* ------------------------------------------------------------------------ candidates --- */

/* The policy's key of class c: the arrival rank of the group it would place next (FORWARD:
 * the earliest unused group first; REVERSE: the latest first), or its word's length (LONGEST,
 * longest first). Ties go to the earlier class. */
static size_t policy_key(const search *s, size_t c) {
    const word_class *k = &s->cls[c];
    if (s->policy == LONGEST) return NONE - k->length;
    return s->policy == FORWARD ? k->groups[k->group_count - k->remaining] : NONE - k->groups[k->remaining - 1];
}

static void sort_candidates(search *s, size_t *items, size_t n) { /* insertion sort: lists are short */
    for (size_t i = 1; i < n; i++)
        for (size_t k = i; k > 0; k--) {
            size_t a = policy_key(s, items[k - 1]), b = policy_key(s, items[k]);
            if (a < b || (a == b && items[k - 1] < items[k])) break;
            size_t t = items[k];
            items[k] = items[k - 1];
            items[k - 1] = t;
        }
}

static bool add_candidate(search *s, size_t c) {
    if (!grow((void **)&s->cand, &s->cand_cap, s->ncand + 1, sizeof *s->cand)) return false;
    s->cand[s->ncand++] = c;
    return true;
}

/* The coarse bucket of the answer's window of `length` at p, or NONE. */
static size_t bucket_at(const search *s, size_t p, size_t length) {
    size_t sentinel;
    return ts_strmap_get(&s->coarse_buckets, bucket_key(window(s->pc, s, p, length), length), EMPTY, &sentinel)
               ? sentinel
               : NONE;
}

/* Opens a frame at node x: the sorted candidates (small buckets whole, large ones' exact
 * renderings), the lazy walk of large buckets after them. */
static bool open_frame(search *s, size_t x) {
    if (!grow((void **)&s->frames, &s->frame_cap, s->nframes + 1, sizeof *s->frames)) return false;
    size_t p = s->nodes[x].pos, begin = s->ncand;
    frame fr = {x, begin, begin, begin, NONE, 0, NONE, NONE};
    if (p < s->m && ts_strmap_get(&s->runs_by_sig, s->asig[p].coarse, EMPTY, &fr.run)) {
        for (size_t i = 0; i < s->run_len[fr.run]; i++) {
            size_t length = s->lengths[s->runs[fr.run] + i], sentinel, head;
            if (p + length > s->m) break;
            if ((sentinel = bucket_at(s, p, length)) == NONE) continue;
            if (s->live[sentinel] <= EAGER) {
                for (size_t c = s->next[sentinel]; c != sentinel; c = s->next[c])
                    if (s->cls[c].length == length && (verify(s, c, p) & FITS) && !add_candidate(s, c)) return false;
                continue;
            }
            if (!ts_strmap_get(&s->exact_buckets, bucket_key(window(s->px, s, p, length), length), EMPTY, &head)) continue;
            for (size_t c = head; c != NONE; c = s->cls[c].exact_next)
                if (s->cls[c].length == length && s->cls[c].remaining > 0 && (verify(s, c, p) & EXACT) &&
                    !add_candidate(s, c))
                    return false;
        }
    }
    fr.c_end = s->ncand;
    if (fr.c_end > begin) sort_candidates(s, s->cand + begin, fr.c_end - begin);
    s->frames[s->nframes++] = fr;
    return true;
}

/* The frame's next candidate class, or NONE. */
static size_t next_candidate(search *s, frame *fr) {
    if (fr->c_next < fr->c_end) return s->cand[fr->c_next++];
    if (fr->run == NONE) return NONE;
    size_t p = s->nodes[fr->node].pos;
    while (fr->len_i < s->run_len[fr->run]) { /* the large buckets, lazily */
        size_t length = s->lengths[s->runs[fr->run] + fr->len_i];
        if (p + length > s->m) break;
        if (fr->cur == NONE) {
            fr->sentinel = bucket_at(s, p, length);
            if (fr->sentinel == NONE || s->live[fr->sentinel] <= EAGER) { /* none, or taken whole */
                fr->len_i++;
                continue;
            }
            fr->cur = fr->sentinel;
        }
        for (size_t c = s->next[fr->cur]; c != fr->sentinel; c = s->next[c]) {
            fr->cur = c;
            if (s->cls[c].length == length && verify(s, c, p) == FITS) return c;
        }
        fr->len_i++;
        fr->cur = NONE;
    }
    return NONE;
}

/* ------------------------------------------------------------------------ the search --- */

/* Depth-first search from the root under the current policy: see match_search.h. */
size_t match_search_run(search *s, bool greedy) {
    s->metered = !greedy;
    size_t root = new_node(s, NONE, NONE), found = NONE;
    if (root == NONE || !open_frame(s, root)) return s->oom = true, NONE;
    if (s->best == NONE) s->best = root;
    if (!greedy) ts_judge_meter_spend(&s->meter, true);
    while (s->nframes > 0 && !s->oom && !(s->metered && s->meter.exhausted)) {
        frame *fr = &s->frames[s->nframes - 1];
        size_t x = fr->node;
        if (s->nodes[x].pos == s->m) { /* all words placed: the lengths sum to m */
            found = x;
            break;
        }
        size_t c = next_candidate(s, fr);
        if (c != NONE) {
            if (!greedy && !ts_judge_meter_spend(&s->meter, true)) break;
            size_t child = new_node(s, x, c);
            if (child == NONE) break;
            take(s, c);
            if (s->nodes[child].pos > s->nodes[s->best].pos) s->best = child;
            if (!greedy && failed_before(s, child)) {
                give_back(s, c);
                continue;
            }
            if (!open_frame(s, child)) s->oom = true;
            continue;
        }
        if (greedy) break;
        if (s->plausible == UNKNOWN) { /* the first failure: is the answer worth a search at all? */
            s->plausible = ts_signature_some_answer_fits_nothing(s->e, s->esig, s->answer, s->asig) ? REFUSED : PLAUSIBLE;
            if (s->plausible == REFUSED) break;
        }
        remember_failed(s, x); /* every candidate failed: so does this state, however reached */
        s->ncand = fr->c_begin;
        s->nframes--;
        if (s->nodes[x].cls != NONE) give_back(s, s->nodes[x].cls);
    }
    for (; s->nframes > 0; s->nframes--) { /* give back what the path holds (a dive, success, or a spent budget) */
        size_t x = s->frames[s->nframes - 1].node;
        if (s->nodes[x].cls != NONE) give_back(s, s->nodes[x].cls);
    }
    s->ncand = 0;
    s->metered = false;
    return found;
}

/* The pairs of the words placed on the path to node x, in answer order. */
bool match_search_pairs(search *s, ts_arena *arena, size_t x, ts_pair **pairs, size_t *pair_count, size_t *reached,
                        bool **group_placed) {
    size_t depth = s->nodes[x].depth, used = 0;
    size_t *order = malloc((depth + 1) * sizeof *order), *cursor = calloc(s->ncls + 1, sizeof *cursor);
    *pairs = ts_arena_alloc(arena, (s->nodes[x].pos + 1) * sizeof **pairs);
    *group_placed = ts_arena_calloc(arena, s->w->group_count + 1, sizeof **group_placed);
    bool ok = order && cursor && *pairs && *group_placed;
    for (size_t k = x, d = depth; ok && k != NONE && s->nodes[k].cls != NONE; k = s->nodes[k].parent) order[--d] = k;
    for (size_t d = 0; d < depth && ok; d++) {
        const node *at = &s->nodes[order[d]];
        const word_class *c = &s->cls[at->cls];
        size_t g = c->groups[cursor[at->cls]++], from = at->pos - c->length;
        (*group_placed)[g] = true;
        for (size_t j = 0; j < c->length; j++)
            (*pairs)[used++] = (ts_pair){s->w->items[s->w->start[g] + j], from + j};
    }
    *pair_count = used;
    *reached = ok ? s->nodes[x].pos : 0;
    free(order);
    free(cursor);
    return ok;
}

void match_search_free(search *s) {
    if (s->own_created) free(s->created);
    free(s->asig), free(s->pc), free(s->px), free(s->power), free(s->cls), free(s->prev), free(s->next);
    free(s->runs), free(s->run_len), free(s->lengths), free(s->nodes), free(s->frames), free(s->cand), free(s->live);
    free(s->tally), free(s->touched);
    ts_strmap_free(&s->exact_buckets), ts_strmap_free(&s->coarse_buckets), ts_strmap_free(&s->runs_by_sig);
    ts_strmap_free(&s->verified), ts_strmap_free(&s->failed);
}
