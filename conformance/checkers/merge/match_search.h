/* match_search.h — private to the merge checkers' matching room (matching.c, match_search.c):
 * the state of one decision of ts_match_decide and the depth-first search over it. Not part of
 * the checkers' interface (matching.h).
 *
 * Owns: the search's state (one `search` per decision, on the decider's stack): the answer's
 * signatures, prefix hashes and createdAt instants, the word classes with their live lists and
 * bucket indexes, the tree of states, the frames of the path, the candidates, the failed-state
 * and verification caches, and the budget's meter. matching.c builds the tables (the classes,
 * the hashes) and reads the result; match_search.c walks the states (verification, candidates,
 * run, pairs of a path) and frees the whole state. Everything it allocates is the search's
 * (freed by match_search_free) except the pairs, which are the caller's arena's.
 */
#ifndef TURNSTILE_CONFORMANCE_CHECKERS_MERGE_MATCH_SEARCH_H
#define TURNSTILE_CONFORMANCE_CHECKERS_MERGE_MATCH_SEARCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conformance/checkers/budget.h"
#include "conformance/checkers/merge/contents.h"
#include "conformance/checkers/merge/expect.h"
#include "conformance/checkers/merge/order.h"
#include "conformance/checkers/merge/signature.h"
#include "core/json/arena.h"
#include "core/json/json.h"
#include "core/json/strmap.h"

enum policy { FORWARD, REVERSE, LONGEST };
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

static inline const ts_json *answer_at(const search *s, size_t i) { return &s->answer->u.a.items[i]; }

/* The key of a coarse or exact bucket: a word's hash and its length. */
static inline uint64_t bucket_key(uint64_t word_hash, size_t length) { return ts_hash_then(word_hash, length); }

/* Depth-first search from the root under s->policy; returns the node where every word is placed,
 * or NONE. greedy: follow the first candidate only (no backtracking, nothing remembered); the
 * classes taken are given back before returning. Else the search is metered: it stops (NONE,
 * s->meter.exhausted) when the budget runs out. Out of memory: NONE, s->oom. */
size_t match_search_run(search *s, bool greedy);

/* The pairs of the words placed on the path to node x, in answer order (*pairs, *pair_count:
 * each expected message with its answer position), the answer messages they cover (*reached)
 * and which groups' words they hold (*group_placed, group_count flags); both arrays allocated in
 * arena (ts_decision's fields, matching.h). False out of memory. */
bool match_search_pairs(search *s, ts_arena *arena, size_t x, ts_pair **pairs, size_t *pair_count, size_t *reached,
                        bool **group_placed);

/* Frees everything the search's state holds (not the arena's). */
void match_search_free(search *s);

#endif
