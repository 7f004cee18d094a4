/* matching.c — the exact decider; see matching.h, and DESIGN.md §2 and §4 for the argument.
 *
 * Classes: group words that every message of this answer fits alike (signature.h's view), used
 * as many times as they have groups, numbered by content (never by arrival: the search is then
 * the same for every arrival order). A state is the vector of words placed per class; its
 * position is the sum of their lengths. Depth-first search over states, longest words first,
 * failed states remembered (hashed, compared exactly), metered by the budget (budget.h). Only
 * for an answer decided invalid, greedy dives in arrival order look for a deeper split.
 *
 * Candidates at p: per length a word starting with the answer's signature at p can have, the
 * coarse bucket of the answer's window there (rolling hashes), each verified by
 * ts_judge_message. Buckets of at most EAGER live classes are verified whole; a larger one is
 * entered through the exact-signature lookup, then walked lazily in class order. The set of
 * candidates is exact; only their order is a heuristic, and it reads content alone.
 */
#include "conformance/checkers/merge/matching.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/checkers/merge/contents.h"
#include "conformance/checkers/merge/message.h"
#include "conformance/checkers/merge/signature.h"
#include "core/json/strmap.h"

enum { FITS = 1, EXACT = 2, EAGER = 64 };
enum policy { FORWARD, REVERSE, LONGEST };
static const uint64_t BASE = 0x9E3779B97F4A7C15ULL | 1;
#define NONE SIZE_MAX
#define EMPTY ((ts_str){"", 0})

typedef struct word_class {
    uint64_t key;          /* the view hash of its word: what numbers the classes */
    size_t length, rep;    /* rep: its first group, whose word stands for the class */
    size_t *groups, group_count, remaining;
    uint64_t first_coarse; /* coarse signature of the word's first message */
    size_t exact_next;     /* next class whose rep word has the same exact bucket key */
    size_t sentinel;       /* its coarse bucket's live list */
} word_class;

typedef struct node {
    size_t parent, cls, depth, pos;
    uint64_t hash;         /* sum of per-class constants over the placed words: a hash of the vector */
    size_t next_failed;    /* the next failed node with the same hash */
} node;

typedef struct frame {
    size_t node;
    size_t c_begin, c_end, c_next;    /* sorted candidates in s->cand */
    size_t run, len_i;                /* lazy walk: the lengths run of the first signature, the length */
    size_t sentinel, cur;             /* lazy walk: the live list being walked and the place in it */
} frame;

typedef struct search {
    const ts_expectation *e;
    const ts_group_words *w;
    const ts_json *answer;
    size_t m;
    ts_signature *asig;
    ts_created_at *created;           /* each answer message's createdAt, read once */
    bool own_created;                 /* this search read them (and frees them) */
    uint64_t *pc, *px, *power;        /* prefix hashes of coarse and exact signatures; BASE^k */
    word_class *cls;
    size_t ncls, nsentinels;
    size_t *prev, *next, *live;       /* live lists (classes with words left) per coarse bucket; sizes */
    size_t *runs, *run_len, *lengths; /* per first signature: its distinct word lengths, ascending */
    ts_strmap exact_buckets, coarse_buckets, runs_by_sig, verified, failed;
    node *nodes;
    size_t nnodes, node_cap;
    frame *frames;
    size_t nframes, frame_cap;
    size_t *cand, ncand, cand_cap;
    long *tally;                      /* scratch for comparing two states, zero between uses */
    size_t *touched;
    size_t best;                      /* the first node reaching the deepest position */
    enum policy policy;
    bool metered;                     /* the exhaustive search: work is counted against the budget */
    bool revisits;                    /* a state has failed: positions may be met again, so fits are cached */
    enum { UNKNOWN, PLAUSIBLE, REFUSED } plausible; /* some answer message fits no expected one: REFUSED */
    const ts_signature *esig;
    ts_judge_meter meter;
    bool oom;
} search;

static const ts_json *answer_at(const search *s, size_t i) { return &s->answer->u.a.items[i]; }

static const ts_expected_message *word_message(const search *s, size_t group, size_t j) {
    return &s->e->messages[s->w->items[s->w->start[group] + j]];
}

static uint64_t bucket_key(uint64_t word_hash, size_t length) { return ts_hash_then(word_hash, length); }

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

/* Depth-first search from the root under the current policy; returns the node where every
 * word is placed, or NONE. greedy: follow the first candidate only (no backtracking, nothing
 * remembered); the classes taken are given back before returning. Else the search is metered:
 * it stops (NONE, s->meter.exhausted) when the budget runs out. */
static size_t run_search(search *s, bool greedy) {
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
static bool path_pairs(search *s, ts_arena *arena, size_t x, ts_decision *out) {
    size_t depth = s->nodes[x].depth, used = 0;
    size_t *order = malloc((depth + 1) * sizeof *order), *cursor = calloc(s->ncls + 1, sizeof *cursor);
    out->pairs = ts_arena_alloc(arena, (s->nodes[x].pos + 1) * sizeof *out->pairs);
    out->group_placed = ts_arena_calloc(arena, s->w->group_count + 1, sizeof *out->group_placed);
    bool ok = order && cursor && out->pairs && out->group_placed;
    for (size_t k = x, d = depth; ok && k != NONE && s->nodes[k].cls != NONE; k = s->nodes[k].parent) order[--d] = k;
    for (size_t d = 0; d < depth && ok; d++) {
        const node *at = &s->nodes[order[d]];
        const word_class *c = &s->cls[at->cls];
        size_t g = c->groups[cursor[at->cls]++], from = at->pos - c->length;
        out->group_placed[g] = true;
        for (size_t j = 0; j < c->length; j++)
            out->pairs[used++] = (ts_pair){s->w->items[s->w->start[g] + j], from + j};
    }
    out->pair_count = used;
    out->reached = ok ? s->nodes[x].pos : 0;
    free(order);
    free(cursor);
    return ok;
}

static void free_search(search *s) {
    if (s->own_created) free(s->created);
    free(s->asig), free(s->pc), free(s->px), free(s->power), free(s->cls), free(s->prev), free(s->next);
    free(s->runs), free(s->run_len), free(s->lengths), free(s->nodes), free(s->frames), free(s->cand), free(s->live);
    free(s->tally), free(s->touched);
    ts_strmap_free(&s->exact_buckets), ts_strmap_free(&s->coarse_buckets), ts_strmap_free(&s->runs_by_sig);
    ts_strmap_free(&s->verified), ts_strmap_free(&s->failed);
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
        done = run_search(s, false);
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
        run_search(s, true);
        s->policy = REVERSE;
        if (!s->oom) run_search(s, true);
        s->policy = LONGEST;
        if (!plausible && !s->oom) run_search(s, true);
        if (searched != NONE && s->nodes[searched].pos > s->nodes[s->best].pos) s->best = searched;
    } else if (done == NONE && searched != NONE) {
        s->best = searched;
    }
    out->valid = plausible && done != NONE;
    return !s->oom && path_pairs(s, arena, out->valid ? done : s->best, out);
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
    free_search(&s);
    return ok;
}
