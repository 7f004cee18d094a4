/* gen_partition.c — the generator's partition shape (TS_GEN_PARTITION, see gen.h).
 *
 * conformance/checkers/DESIGN.md §4's reduction from 3-PARTITION, at fuzzing size and shuffled:
 * m triples of sizes x (B/4 < x < B/2, each triple summing to B), each size a response group of
 * x identical id-less messages ("a", consecutive ones kept apart by an empty update of another
 * role, a message of its own that M6 leaves out), and m groups of one other message ("b").
 * Sometimes the sizes are drawn freely instead (no partition behind them), sometimes the bins
 * are wide (B up to 40, many ways to fill one). The groups arrive in a random order, one after
 * another or interleaved; now and then one group has no responseId and joins the primary one.
 * Whatever order an answer puts these groups in, deciding that it is one is the hard part of
 * matching: the shape the checkers' search is fuzzed on.
 *
 * Tagged (TS_GEN_PARTITION_TAGGED): every update that carries content also carries
 * "additionalProperties": {"group": ID}, a value that reveals which group each message came
 * from, so that no two groups look alike and the decision is a straight path (the Elle way: a
 * generated workload whose values reveal the order is cheap to check).
 */
#include <stdio.h>
#include <string.h>

#include "core/testing/bytes.h"
#include "core/testing/gen.h"
#include "core/testing/gen_emit.h"

enum { MAX_TRIPLES = 8, MAX_GROUPS = 4 * MAX_TRIPLES };

typedef struct partition_group {
    int size;             /* messages */
    bool separator;       /* a "b" group */
    char response_id[8]; /* "" : dangling */
    char tag[8];
    int next_update;      /* emission state: 2k the k-th message, 2k+1 the empty one after it */
} partition_group;

typedef struct partition_style {
    const char *role, *other_role; /* the messages' role, the empty separators' */
    bool tagged;
} partition_style;

/* The next update of g (false when g is done). */
static bool partition_update(ts_emitter *out, partition_group *g, const partition_style *st) {
    int step = g->next_update;
    if (step >= 2 * g->size - 1) return false;
    g->next_update++;
    bool empty = step % 2 == 1;
    ts_emit_begin(out, true);
    if (g->response_id[0]) {
        ts_emit_key(out, "responseId");
        ts_emit_string(out, ts_str_from(g->response_id));
    }
    ts_emit_key(out, "role");
    ts_emit_string(out, ts_str_from(empty ? st->other_role : st->role));
    if (st->tagged && !empty) {
        ts_emit_key(out, "additionalProperties");
        ts_emit_begin(out, true);
        ts_emit_key(out, "group");
        ts_emit_string(out, ts_str_from(g->tag));
        ts_emit_end(out);
    }
    ts_emit_key(out, "contents");
    ts_emit_begin(out, false);
    if (!empty) {
        ts_emit_begin(out, true);
        ts_emit_key(out, "$type");
        ts_emit_string(out, ts_str_from("text"));
        ts_emit_key(out, "text");
        ts_emit_string(out, ts_str_from(g->separator ? "b" : "a"));
        ts_emit_end(out);
    }
    ts_emit_end(out);
    ts_emit_end(out);
    return true;
}

/* The sizes of m triples summing to B each, every size strictly between B/4 and B/2 (B >= 7
 * leaves room for one), or drawn freely from 1..B when free. Returns how many sizes. */
static int partition_sizes(ts_bytes *in, int m, int B, bool free_sizes, int *sizes) {
    int n = 0, lo = B / 4 + 1, hi = (B - 1) / 2; /* B/4 < x < B/2 */
    for (int t = 0; t < m; t++) {
        if (free_sizes) {
            for (int k = 0; k < 3; k++) sizes[n++] = 1 + (int)ts_bytes_below(in, (uint32_t)B);
            continue;
        }
        int a = lo + (int)ts_bytes_below(in, (uint32_t)(hi - lo + 1)), b = lo, c = B - a - b;
        for (int tries = 0; tries < 4 * B && !(c >= lo && c <= hi); tries++) { /* walk b until c fits */
            b = b < hi ? b + 1 : lo;
            c = B - a - b;
        }
        if (!(c >= lo && c <= hi)) a = b = lo, c = B - 2 * lo; /* B >= 7 makes (lo, lo, B - 2lo) one */
        sizes[n++] = a, sizes[n++] = b, sizes[n++] = c;
    }
    return n;
}

size_t ts_gen_partition(const uint8_t *data, size_t size, bool tagged, ts_emitter *out) {
    ts_bytes in;
    ts_bytes_init(&in, data, size);
    int m = 1 + (int)ts_bytes_below(&in, MAX_TRIPLES);
    bool wide = ts_bytes_chance(&in, 30), free_sizes = ts_bytes_chance(&in, 20);
    int max_b = (TS_GEN_PARTITION_MAX_UPDATES / 2) / m; /* 2mB updates at most */
    if (max_b > (wide ? 40 : 16)) max_b = wide ? 40 : 16;
    if (max_b < 7) max_b = 7;
    int B = 7 + (int)ts_bytes_below(&in, (uint32_t)(max_b - 6));
    int sizes[3 * MAX_TRIPLES];
    int n = partition_sizes(&in, m, B, free_sizes, sizes);
    partition_group groups[MAX_GROUPS];
    memset(groups, 0, sizeof groups);
    int count = 0;
    for (int i = 0; i < n; i++) groups[count++].size = sizes[i];
    for (int t = 0; t < m; t++) groups[count++] = (partition_group){1, true, "", "", 0};
    for (int i = count - 1; i > 0; i--) { /* arrival: shuffled */
        int k = (int)ts_bytes_below(&in, (uint32_t)(i + 1));
        partition_group swap = groups[i];
        groups[i] = groups[k];
        groups[k] = swap;
    }
    int dangling = ts_bytes_chance(&in, 10) ? (int)ts_bytes_below(&in, (uint32_t)count) : -1;
    for (int i = 0; i < count; i++) {
        snprintf(groups[i].tag, sizeof groups[i].tag, "p%d", i);
        if (i != dangling) snprintf(groups[i].response_id, sizeof groups[i].response_id, "p%d", i);
    }
    bool assistant = ts_bytes_chance(&in, 30), interleave = ts_bytes_chance(&in, 40);
    partition_style style = {assistant ? "assistant" : "user", assistant ? "user" : "assistant", tagged};
    size_t emitted = 0;
    int current = 0, open = count;
    while (open > 0 && emitted < TS_GEN_PARTITION_MAX_UPDATES) {
        if (interleave) current = (int)ts_bytes_below(&in, (uint32_t)count);
        while (groups[current].next_update >= 2 * groups[current].size - 1) current = (current + 1) % count;
        partition_update(out, &groups[current], &style);
        emitted++;
        if (groups[current].next_update >= 2 * groups[current].size - 1) open--;
    }
    return emitted;
}
