/* order.c — the reference order of a response's messages (SPEC §3.3: I3, O1..O3); see merger.h.
 *
 * Linear but for one sort: messages are bucketed by response group in one counting pass (I3),
 * then each group's timestamped messages are sorted by (instant, arrival) and its untimestamped
 * ones placed by a single merge. Every scratch array is allocated once, for all groups.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/json/assert.h"
#include "core/merge/merger.h"

typedef struct timed {
    ts_instant at;
    size_t arrival;
    size_t member; /* position in the group's members[] */
} timed;

static int compare_timed(const void *pa, const void *pb) {
    const timed *a = pa, *b = pb;
    int c = ts_instant_compare(a->at, b->at);
    if (c) return c;                                               /* O1: earlier instant first */
    return a->arrival < b->arrival ? -1 : a->arrival > b->arrival; /* O2: then arrival */
}

typedef struct scratch {
    timed *stamped;
    long *place;    /* by position in members[]: a timestamped item's rank, an untimestamped
                     * one's anchor (each item is one or the other, so they share the array) */
} scratch;

/* Orders one group: members[0..n) are item indices in first-arrival order; writes them in
 * SPEC order to out[]. Timestamped items are sorted by (instant, arrival). Each untimestamped
 * item goes right after its anchor: the latest (in sorted order) timestamped item that
 * immediately preceded, in arrival, it or an earlier untimestamped item of the group; with no
 * anchor it goes first. Anchors never decrease along arrival, so placement is a single merge. */
static void order_one_group(const ts_order_item *items, const size_t *members, size_t n, const scratch *s,
                            size_t *out) {
    size_t stamped_count = 0;
    for (size_t i = 0; i < n; i++) {
        const ts_order_item *m = &items[members[i]];
        if (!m->has_created_at) continue;
        s->stamped[stamped_count].at = m->created_at;
        s->stamped[stamped_count].arrival = m->first_arrival;
        s->stamped[stamped_count].member = i;
        stamped_count++;
    }
    if (stamped_count > 1) qsort(s->stamped, stamped_count, sizeof *s->stamped, compare_timed);
    for (size_t r = 0; r < stamped_count; r++) s->place[s->stamped[r].member] = (long)r;

    long current = -1;
    for (size_t i = 0; i < n; i++) {
        if (items[members[i]].has_created_at) continue;
        if (i > 0 && items[members[i - 1]].has_created_at && s->place[i - 1] > current) current = s->place[i - 1];
        s->place[i] = current;
    }
    size_t written = 0, next_untimed = 0;
    for (long r = -1; r < (long)stamped_count; r++) {
        if (r >= 0) out[written++] = members[s->stamped[r].member];
        for (; next_untimed < n; next_untimed++) {
            if (items[members[next_untimed]].has_created_at) continue;
            if (s->place[next_untimed] != r) break;
            out[written++] = members[next_untimed];
        }
    }
    TS_ASSERT(written == n); /* anchors never decrease, so the single merge placed every one */
}

typedef struct keyed {
    size_t group, index;
} keyed;

static int compare_keyed(const void *pa, const void *pb) {
    const keyed *a = pa, *b = pb;
    if (a->group != b->group) return a->group < b->group ? -1 : 1;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* members[] gets the item indices grouped by group number, each group in item order; starts[g]
 * (g in 0..groups] delimits group g. Group numbers are dense from the merger (a counting sort);
 * a swapped-in caller may use any numbers, which are then sorted. */
static size_t group_items(const ts_order_item *items, size_t count, size_t *members, size_t **starts_out) {
    size_t groups = 0;
    for (size_t i = 0; i < count; i++)
        if (items[i].group >= groups) groups = items[i].group + 1;
    if (groups <= 2 * count + 1) {
        size_t *starts = calloc(groups + 1, sizeof *starts);
        if (!starts) return SIZE_MAX;
        for (size_t i = 0; i < count; i++) starts[items[i].group + 1]++;
        for (size_t g = 0; g < groups; g++) starts[g + 1] += starts[g];
        /* starts[g] serves as group g's fill position, then is moved back to where g starts. */
        for (size_t i = 0; i < count; i++) members[starts[items[i].group]++] = i;
        for (size_t g = groups; g > 0; g--) starts[g] = starts[g - 1];
        starts[0] = 0;
        *starts_out = starts;
        return groups;
    }
    /* Sparse group numbers (a swapped-in caller's): sorted by (group, index). */
    keyed *sorted = malloc((count ? count : 1) * sizeof *sorted);
    if (!sorted) return SIZE_MAX;
    for (size_t i = 0; i < count; i++) sorted[i] = (keyed){items[i].group, i};
    qsort(sorted, count, sizeof *sorted, compare_keyed);
    for (size_t i = 0; i < count; i++) members[i] = sorted[i].index;
    free(sorted);
    size_t distinct = 0;
    for (size_t i = 0; i < count; i++)
        if (i == 0 || items[members[i]].group != items[members[i - 1]].group) distinct++;
    size_t *starts = malloc((distinct + 1) * sizeof *starts);
    if (!starts) return SIZE_MAX;
    size_t g = 0;
    for (size_t i = 0; i < count; i++)
        if (i == 0 || items[members[i]].group != items[members[i - 1]].group) starts[g++] = i;
    starts[distinct] = count;
    *starts_out = starts;
    return distinct;
}

#if TS_DEBUG
/* SPEC §3.3 on the order written, each clause in one pass: a permutation; group numbers never
 * decrease (I3, each group contiguous; G1, the merger numbers groups by first arrival); inside
 * a group, timestamped messages by (instant, arrival) (O1, O2), untimestamped ones by arrival
 * (I2.a), each after the message of its group that arrived just before it (I2.b). O3 is this
 * code's own choice among such orders; the checkers test it. True when it cannot allocate. */
static bool is_spec_order(const ts_order_item *items, size_t count, const size_t *order) {
    size_t *position = malloc((count ? count : 1) * sizeof *position);
    if (!position) return true;
    bool ok = true;
    for (size_t i = 0; i < count; i++) position[i] = SIZE_MAX;
    for (size_t k = 0; ok && k < count; k++) {
        ok = order[k] < count && position[order[k]] == SIZE_MAX;
        if (ok) position[order[k]] = k;
    }
    size_t timed = SIZE_MAX, untimed = SIZE_MAX; /* the group's last of each kind so far */
    for (size_t k = 0; ok && k < count; k++) {
        const ts_order_item *x = &items[order[k]];
        if (k > 0 && items[order[k - 1]].group != x->group) {
            ok = items[order[k - 1]].group < x->group;
            timed = untimed = SIZE_MAX;
        }
        if (ok && x->has_created_at && timed != SIZE_MAX) {
            int c = ts_instant_compare(items[timed].created_at, x->created_at);
            ok = c < 0 || (c == 0 && items[timed].first_arrival <= x->first_arrival);
        } else if (ok && !x->has_created_at && untimed != SIZE_MAX) {
            ok = untimed < order[k]; /* items[] come in arrival order */
        }
        *(x->has_created_at ? &timed : &untimed) = order[k];
    }
    /* I2.b: the message before u in its group is the last one of the group met so far in
     * items[] (dense group numbers only, as the merger's are). */
    size_t groups = 0;
    for (size_t i = 0; i < count; i++)
        if (items[i].group >= groups) groups = items[i].group + 1;
    size_t *last = ok && groups <= 2 * count + 1 ? malloc((groups ? groups : 1) * sizeof *last) : NULL;
    for (size_t g = 0; last && g < groups; g++) last[g] = SIZE_MAX;
    for (size_t i = 0; last && ok && i < count; i++) {
        size_t *before = &last[items[i].group];
        ok = items[i].has_created_at || *before == SIZE_MAX || position[*before] < position[i];
        *before = i;
    }
    free(last);
    free(position);
    return ok;
}
#endif

/* The items are grouped straight into order[] (I3: each group contiguous, in first-arrival
 * order), which is already each group's order when none of its items has a createdAt; a group
 * with one is copied out and ordered back. The scratch is touched only for such groups. */
bool ts_merge_order_reference(const ts_order_item *items, size_t count, size_t *order, void *context) {
    (void)context;
    size_t n = count ? count : 1;
    size_t *members = malloc(n * sizeof *members), *starts = NULL;
    scratch s = {malloc(n * sizeof *s.stamped), malloc(n * sizeof *s.place)};
    size_t groups = members && s.stamped && s.place ? group_items(items, count, order, &starts) : SIZE_MAX;
    for (size_t g = 0; groups != SIZE_MAX && g < groups; g++) {
        size_t *slice = order + starts[g], len = starts[g + 1] - starts[g];
        bool stamped = false;
        for (size_t i = 0; i < len && !stamped; i++) stamped = items[slice[i]].has_created_at;
        if (!stamped) continue;
        memcpy(members, slice, len * sizeof *slice);
        order_one_group(items, members, len, &s, slice);
    }
    free(members);
    free(starts);
    free(s.stamped);
    free(s.place);
    TS_ASSERT(groups == SIZE_MAX || is_spec_order(items, count, order));
    return groups != SIZE_MAX;
}
