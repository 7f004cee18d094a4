/* order.c — group words and the order findings; see order.h. */
#include "conformance/checkers/merge/order.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---------------------------------------------------------------------- the O3 order --- */

typedef struct stamped {
    ts_instant at;
    size_t arrival;
    size_t message;
} stamped;

static int compare_stamped(const void *pa, const void *pb) { /* O1, then O2 */
    const stamped *a = pa, *b = pb;
    int c = ts_instant_compare(a->at, b->at);
    if (c) return c;
    return a->arrival < b->arrival ? -1 : a->arrival > b->arrival;
}

typedef struct order_key {
    long rank;     /* the timestamped message's rank, or the untimestamped one's anchor's (-1: none) */
    int untimed;
    size_t arrival;
    size_t message;
} order_key;

static int compare_order_key(const void *pa, const void *pb) {
    const order_key *a = pa, *b = pb;
    if (a->rank != b->rank) return a->rank < b->rank ? -1 : 1;
    if (a->untimed != b->untimed) return a->untimed - b->untimed;
    return a->arrival < b->arrival ? -1 : a->arrival > b->arrival;
}

/* One group's word: members[0..n) are its visible messages in arrival order; writes the O3
 * order into out, by the key of SPEC §3.3's proof. scratch_* hold n entries. */
static void group_word(const ts_expectation *e, const size_t *members, size_t n, stamped *scratch_t, long *rank_of,
                       order_key *keys, size_t *out) {
    size_t t = 0;
    for (size_t i = 0; i < n; i++) {
        const ts_expected_message *m = &e->messages[members[i]];
        if (m->has_created_at) scratch_t[t++] = (stamped){m->created_at, m->first_arrival, i};
    }
    qsort(scratch_t, t, sizeof *scratch_t, compare_stamped);
    for (size_t r = 0; r < t; r++) rank_of[scratch_t[r].message] = (long)r;
    long anchor = -1;
    for (size_t i = 0; i < n; i++) {
        const ts_expected_message *m = &e->messages[members[i]];
        if (m->has_created_at) {
            keys[i] = (order_key){rank_of[i], 0, m->first_arrival, members[i]};
        } else {
            if (i > 0 && e->messages[members[i - 1]].has_created_at && rank_of[i - 1] > anchor) anchor = rank_of[i - 1];
            keys[i] = (order_key){anchor, 1, m->first_arrival, members[i]};
        }
    }
    qsort(keys, n, sizeof *keys, compare_order_key);
    for (size_t i = 0; i < n; i++) out[i] = keys[i].message;
}

bool ts_order_words(ts_arena *arena, const ts_expectation *e, ts_group_words *out) {
    size_t groups = e->group_count, n = e->message_count;
    out->group_count = groups;
    out->start = ts_arena_calloc(arena, groups + 1, sizeof *out->start);
    out->items = ts_arena_alloc(arena, (n + 1) * sizeof *out->items);
    size_t *members = malloc((n + 1) * sizeof *members), *fill = calloc(groups + 1, sizeof *fill);
    stamped *scratch_t = malloc((n + 1) * sizeof *scratch_t);
    long *rank_of = malloc((n + 1) * sizeof *rank_of);
    order_key *keys = malloc((n + 1) * sizeof *keys);
    bool ok = out->start && out->items && members && fill && scratch_t && rank_of && keys;
    if (ok) {
        /* counting sort by group, keeping arrival order (messages are in first-arrival order) */
        for (size_t i = 0; i < n; i++)
            if (!e->messages[i].omitted) out->start[e->messages[i].group + 1]++;
        for (size_t g = 0; g < groups; g++) out->start[g + 1] += out->start[g];
        for (size_t i = 0; i < n; i++) {
            size_t g = e->messages[i].group;
            if (!e->messages[i].omitted) members[out->start[g] + fill[g]++] = i;
        }
        for (size_t g = 0; g < groups; g++) {
            size_t from = out->start[g], count = out->start[g + 1] - from;
            group_word(e, members + from, count, scratch_t, rank_of, keys, out->items + from);
        }
    }
    free(members);
    free(fill);
    free(scratch_t);
    free(rank_of);
    free(keys);
    return ok;
}

/* ----------------------------------------------------------------------- the findings --- */

static void report_pair(ts_findings *f, const char *rule, const char *format, const ts_expected_message *a,
                        const ts_expected_message *b) {
    char x[120], y[120];
    ts_expect_describe(a, x, sizeof x);
    ts_expect_describe(b, y, sizeof y);
    ts_findings_add(f, rule, format, x, y);
}

bool ts_check_order(const ts_expectation *e, const ts_group_words *words, const ts_pair *pairs, size_t n,
                    ts_findings *f) {
    size_t groups = e->group_count, count = e->message_count;
    size_t *position = malloc((count + 1) * sizeof *position);
    size_t *last_timed = malloc((groups + 1) * sizeof *last_timed), *last_untimed = malloc((groups + 1) * sizeof *last_untimed);
    size_t *previous = malloc((count + 1) * sizeof *previous), *cursor = calloc(groups + 1, sizeof *cursor);
    bool *left = calloc(groups + 1, sizeof *left), *differs = calloc(groups + 1, sizeof *differs);
    if (!position || !last_timed || !last_untimed || !previous || !cursor || !left || !differs) {
        free(position), free(last_timed), free(last_untimed), free(previous), free(cursor), free(left), free(differs);
        return false;
    }
    char a[120];
    for (size_t i = 0; i < count; i++) position[i] = SIZE_MAX;
    for (size_t k = 0; k < n; k++) position[pairs[k].expected] = k;
    for (size_t g = 0; g < groups; g++) last_timed[g] = last_untimed[g] = SIZE_MAX;
    /* I2.b's predecessor: the group's visible message that arrived last before it */
    for (size_t i = 0; i < count; i++) {
        const ts_expected_message *m = &e->messages[i];
        previous[i] = last_timed[m->group];
        if (!m->omitted) last_timed[m->group] = i;
    }
    for (size_t g = 0; g < groups; g++) last_timed[g] = SIZE_MAX;
    for (size_t k = 0; k < n; k++) {
        size_t x = pairs[k].expected;
        const ts_expected_message *mx = &e->messages[x];
        size_t g = mx->group;
        if (k > 0 && e->messages[pairs[k - 1].expected].group != g) left[e->messages[pairs[k - 1].expected].group] = true;
        if (left[g]) { /* I3 */
            ts_expect_describe(mx, a, sizeof a);
            ts_findings_add(f, "I3", "%s comes after messages of another response group although its group "
                            "appeared before them (answer position %zu)", a, pairs[k].answer);
            left[g] = false; /* report each return once */
        }
        /* O1, O2, I2.a: a sequence is in order exactly when every adjacent pair is */
        if (mx->has_created_at) {
            size_t y = last_timed[g];
            if (y != SIZE_MAX) {
                const ts_expected_message *my = &e->messages[y];
                int c = ts_instant_compare(my->created_at, mx->created_at);
                if (c > 0)
                    report_pair(f, "O1", "%s has an earlier createdAt than %s but comes after it", mx, my);
                else if (c == 0 && my->first_arrival > mx->first_arrival)
                    report_pair(f, "O2", "%s and %s have the same createdAt; the first to arrive must come first", mx, my);
            }
            last_timed[g] = x;
        } else {
            size_t y = last_untimed[g];
            if (y != SIZE_MAX && e->messages[y].first_arrival > mx->first_arrival)
                report_pair(f, "I2", "untimestamped %s arrived before untimestamped %s but comes after it", mx,
                            &e->messages[y]);
            last_untimed[g] = x;
            size_t p = previous[x]; /* I2.b */
            if (p != SIZE_MAX && position[p] != SIZE_MAX && position[p] > k)
                report_pair(f, "I2", "untimestamped %s must come after %s, the message it arrived after", mx,
                            &e->messages[p]);
        }
        /* O3: the group's messages in the answer, in exactly its word's order (the word's
         * messages the answer lacks are skipped: they are reported as missing) */
        size_t end = words->start[g + 1], *w = &cursor[g];
        while (words->start[g] + *w < end && position[words->items[words->start[g] + *w]] == SIZE_MAX) (*w)++;
        if (words->start[g] + *w == end || words->items[words->start[g] + *w] != x) differs[g] = true;
        (*w)++;
    }
    for (size_t g = 0; g < groups; g++) {
        if (!differs[g]) continue;
        ts_expect_describe(&e->messages[words->items[words->start[g]]], a, sizeof a);
        ts_findings_add(f, "O3", "the response group that begins with %s is not in earliest-placement order", a);
    }
    free(position), free(last_timed), free(last_untimed), free(previous), free(cursor), free(left), free(differs);
    return true;
}
