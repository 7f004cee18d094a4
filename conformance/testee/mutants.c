/* mutants.c — the historic bugs, as ordering functions and flags, and the table of them all;
 * see mutants.h (the resume engine's hooks are in engine_mutants.c). */
#include "conformance/testee/mutants.h"

#include <stdlib.h>
#include <string.h>

/* Indices of items, grouped by group in first-arrival order (each group's items in arrival
 * order). Returns the number of groups; starts[g]..starts[g+1] delimit group g in out[]. */
static size_t by_group(const ts_order_item *items, size_t count, size_t *out, size_t *starts) {
    size_t groups = 0, written = 0;
    for (size_t i = 0; i < count; i++)
        if (items[i].group + 1 > groups) groups = items[i].group + 1;
    for (size_t g = 0; g < groups; g++) {
        starts[g] = written;
        for (size_t i = 0; i < count; i++)
            if (items[i].group == g) out[written++] = i;
    }
    starts[groups] = written;
    return groups;
}

/* Before PR #5825: CompareByDateTimeOffset put a null CreatedAt after every value
 * (stable: equal keys keep arrival order). */
static int null_last_compare(const ts_order_item *a, const ts_order_item *b) {
    if (a->has_created_at != b->has_created_at) return a->has_created_at ? -1 : 1;
    if (a->has_created_at) {
        int c = ts_instant_compare(a->created_at, b->created_at);
        if (c) return c;
    }
    return a->first_arrival < b->first_arrival ? -1 : a->first_arrival > b->first_arrival;
}

/* PR #5825: "if either is null or they are equal, compare indices; else compare times" — not
 * a strict weak order. List<T>.Sort uses insertion sort below 17 elements, as here. */
static int comparer_5825(const ts_order_item *a, const ts_order_item *b) {
    if (!a->has_created_at || !b->has_created_at || ts_instant_compare(a->created_at, b->created_at) == 0)
        return a->first_arrival < b->first_arrival ? -1 : a->first_arrival > b->first_arrival;
    return ts_instant_compare(a->created_at, b->created_at);
}

static void swap_if_greater(const ts_order_item *items, size_t *keys, size_t i, size_t j,
                            int (*compare)(const ts_order_item *, const ts_order_item *)) {
    if (i != j && compare(&items[keys[i]], &items[keys[j]]) > 0) {
        size_t t = keys[i];
        keys[i] = keys[j];
        keys[j] = t;
    }
}

/* ArraySortHelper<T>.IntrospectiveSort for partitions of up to 16 elements: a compare-and-swap
 * network for 2 and 3, insertion sort otherwise (larger partitions, which .NET quick-sorts
 * first, are insertion-sorted here too: the comparer's flaw shows either way). */
static void dotnet_sort(const ts_order_item *items, size_t *keys, size_t n,
                        int (*compare)(const ts_order_item *, const ts_order_item *)) {
    if (n == 2) {
        swap_if_greater(items, keys, 0, 1, compare);
        return;
    }
    if (n == 3) {
        swap_if_greater(items, keys, 0, 1, compare);
        swap_if_greater(items, keys, 0, 2, compare);
        swap_if_greater(items, keys, 1, 2, compare);
        return;
    }
    for (size_t i = 0; i + 1 < n; i++) {
        size_t t = keys[i + 1];
        size_t j = i + 1;
        while (j > 0 && compare(&items[t], &items[keys[j - 1]]) < 0) {
            keys[j] = keys[j - 1];
            j--;
        }
        keys[j] = t;
    }
}

static bool sort_within_groups(const ts_order_item *items, size_t count, size_t *order,
                               int (*compare)(const ts_order_item *, const ts_order_item *)) {
    size_t *starts = malloc((count + 2) * sizeof *starts);
    if (!starts) return false;
    size_t groups = by_group(items, count, order, starts);
    for (size_t g = 0; g < groups; g++) dotnet_sort(items, order + starts[g], starts[g + 1] - starts[g], compare);
    free(starts);
    return true;
}

static bool order_null_last(const ts_order_item *items, size_t count, size_t *order, void *context) {
    (void)context;
    return sort_within_groups(items, count, order, null_last_compare);
}

static bool order_5825(const ts_order_item *items, size_t count, size_t *order, void *context) {
    (void)context;
    return sort_within_groups(items, count, order, comparer_5825);
}

/* Interleaving agents: one timeline across every ResponseId, as if there were one group. */
static bool order_across_groups(const ts_order_item *items, size_t count, size_t *order, void *context) {
    ts_order_item *flat = malloc((count ? count : 1) * sizeof *flat);
    if (!flat) return false;
    memcpy(flat, items, count * sizeof *flat);
    for (size_t i = 0; i < count; i++) flat[i].group = 0;
    bool ok = ts_merge_order_reference(flat, count, order, context);
    free(flat);
    return ok;
}

/* MessageMerger's noIds list: keyed messages first, then the id-less ones. */
static bool order_keyed_first(const ts_order_item *items, size_t count, size_t *order, void *context) {
    size_t *reference = malloc((count ? count : 1) * sizeof *reference);
    if (!reference || !ts_merge_order_reference(items, count, reference, context)) {
        free(reference);
        return false;
    }
    size_t written = 0, start = 0;
    while (start < count) { /* per group: the reference keeps groups contiguous */
        size_t end = start;
        while (end < count && items[reference[end]].group == items[reference[start]].group) end++;
        for (size_t k = start; k < end; k++)
            if (items[reference[k]].keyed) order[written++] = reference[k];
        for (size_t k = start; k < end; k++)
            if (!items[reference[k]].keyed) order[written++] = reference[k];
        start = end;
    }
    free(reference);
    return true;
}

const ts_mutant ts_mutants[] = {
    {"null-created-at-last", "pre-#5825 MessageMerger: a null CreatedAt sorts after every value", "O3,I2,O1,O2",
     order_null_last, false, false, false, NULL, TS_DURABLE, TS_BRANCH_AS_REFERENCE},
    {"comparer-5825", "PR #5825's comparer: index when either CreatedAt is null, time otherwise (not transitive)",
     "O1,O2,I2,O3", order_5825, false, false, false, NULL, TS_DURABLE, TS_BRANCH_AS_REFERENCE},
    {"timestamps-across-responses", "messages of all ResponseIds sorted on one timeline (agents interleave)",
     "I3,I2,O3", order_across_groups, false, false, false, NULL, TS_DURABLE, TS_BRANCH_AS_REFERENCE},
    {"dangling-metadata-dropped", "seed edge case 6: FinishReason, Usage, AgentId of ResponseId=null updates lost",
     "R1,R2,R3", NULL, true, false, false, NULL, TS_DURABLE, TS_BRANCH_AS_REFERENCE},
    {"created-at-overwritten", "seed edge case 5: every message gets the response's CreatedAt, or now", "K1", NULL,
     false, true, false, NULL, TS_DURABLE, TS_BRANCH_AS_REFERENCE},
    {"keyed-before-unkeyed", "seed edge case 4: MessageId=null updates appended after the keyed messages",
     "I2,O1,O2,O3", order_keyed_first, false, false, false, NULL, TS_DURABLE, TS_BRANCH_AS_REFERENCE},
    {"no-host-response-id", "seed invariant 1: the host does not assign a ResponseId when the agent gives none", "H1",
     NULL, false, false, true, NULL, TS_DURABLE, TS_BRANCH_AS_REFERENCE},
    /* The resume engine's historic bugs (seeds 002 and 003), on the journal op (J rules) and on the
     * resume op (U rules, with the certifier playing the world and killing the process). */
    {"counter-entry-ids", "seed 003 bug 1: entry ids from a counter that restarts on resume; a collision drops the entry",
     "J1,U3,J2,J3,J4,J6,J7,J8,J9,J10,J11,J12,J13,U1,U2,U4,U5,U6,U8,U9,U10", NULL, false, false, false, &ts_engine_counter_ids, TS_DURABLE, TS_BRANCH_AS_REFERENCE},
    {"timestamps-regenerated-on-load", "seed 003 bug 2: rebuilt messages take the clock's time, so task ids change",
     "J7,U4,J3,J4,J6,J8,J13,U9", NULL, false, false, false, &ts_engine_timestamps_on_load, TS_DURABLE, TS_BRANCH_AS_REFERENCE},
    {"resume-restarts-loop", "seed 003 bug 3: a resumed ReAct loop asks the LLM again instead of finishing its tools",
     "J9,U5,J3,J4,J6,J7,J8,J10,J11,J12,J13,U2,U3,U6,U8,U9,U10", NULL, false, false, false, &ts_engine_restart_loop, TS_DURABLE, TS_BRANCH_AS_REFERENCE},
    {"both-layers-persist", "seed 002: the core agent and the protocol adapter both persist the turn",
     "J4,U2,J3,J6,J7,J8,J9,J11,J12,J13,U3,U4,U6,U9,U10", NULL, false, false, false, &ts_engine_both_layers_persist, TS_DURABLE, TS_BRANCH_AS_REFERENCE},
    {"unescaped-canonical-keys", "seed 003's canonical JSON: keys unescaped, so distinct inputs collide",
     "J5,U6,J6,J7,U9", NULL, false, false, false, &ts_engine_unescaped_keys, TS_DURABLE, TS_BRANCH_AS_REFERENCE},
    {"signal-consumed-outside-commit", "the signal cursor advances in a commit of its own: a crash loses the signal",
     "J13,U9,J10,J3,J4,J6,J7,J8,J11,J12", NULL, false, false, false, &ts_engine_signal_outside_commit, TS_DURABLE, TS_BRANCH_AS_REFERENCE},
    /* Crash-consistency bugs of the resume op's store (issue 22): invisible to kills at protocol
     * points, caught only by the file-system nemesis. */
    {"resume-acks-before-write", "answers \"waiting\" for a message queued behind a pending tool, then writes it: a crash in between loses an acknowledged message",
     "U3,U9", NULL, false, false, false, NULL, TS_DURABILITY_ACK_BEFORE_WRITE, TS_BRANCH_AS_REFERENCE},
    {"resume-never-fsyncs", "claims power-loss durability, never fsyncs (SQLite synchronous OFF)", "U9,U2,U3,U4,U5,U6,U7,U8",
     NULL, false, false, false, NULL, TS_DURABILITY_NEVER_FSYNC, TS_BRANCH_AS_REFERENCE},
    {"resume-index-before-record", "file store: writes a commit's index line before the record it names",
     "U9,U2,U3,U4,U5,U6,U7,U8", NULL, false, false, false, NULL, TS_DURABILITY_INDEX_BEFORE_RECORD, TS_BRANCH_AS_REFERENCE},
    {"resume-unchecked-torn-record", "file store: syncs a record and its index line together and reads records without their checksum",
     "U11,U2,U3,U4,U5,U6,U8", NULL, false, false, false, NULL, TS_DURABILITY_UNCHECKED_TORN_RECORD, TS_BRANCH_AS_REFERENCE},
    {"resume-rename-without-dir-sync", "file store: names its files by a rename and never fsyncs the directory",
     "U11,U2,U3,U4,U5,U6,U8", NULL, false, false, false, NULL, TS_DURABILITY_RENAME_WITHOUT_DIR_SYNC, TS_BRANCH_AS_REFERENCE},
    /* A branch bug of the resume op's adapter (issue 27): caught by the universal branch rules. */
    {"resume-branch-keeps-suffix", "an edit or fork appends its message to the old conversation: the abandoned answers and results leak into the branch",
     "U12,U3,U5,U8,U9,U14,U15", NULL, false, false, false, NULL, TS_DURABLE, TS_BRANCH_KEEPS_SUFFIX},
};
const size_t ts_mutant_count = sizeof ts_mutants / sizeof ts_mutants[0];

const ts_mutant *ts_mutant_find(const char *name) {
    for (size_t i = 0; i < ts_mutant_count; i++)
        if (strcmp(ts_mutants[i].name, name) == 0) return &ts_mutants[i];
    return NULL;
}
