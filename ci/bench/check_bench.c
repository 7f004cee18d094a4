/* check_bench.c — the in-process driver of ci/bench/check_bench.sh: the merge checkers' cost
 * beside the reference merge's, on the same parsed stream, in the same process.
 *
 * usage: check_bench STREAM.jsonl [ANSWER.json|-] [RUNS] [MERGE_RUNS] [JUDGE_STATES]
 *
 * Reads and parses the stream once. Then, RUNS times (default 5) each:
 *   merge  ts_merge + ts_response_to_json   (the peer: what `turnstile merge` does after parsing)
 *   check  ts_check_merge on the answer      (ANSWER, or the reference's own answer when absent)
 * (the merge MERGE_RUNS times, default RUNS; 0 skips it and prints nan, for a quick run; the
 * check under the judging budget's defaults, or JUDGE_STATES states, 0: no limit on states)
 * and prints one line of key=value: the medians of wall and CPU time (CLOCK_MONOTONIC,
 * CLOCK_PROCESS_CPUTIME_ID) of each, the findings of the last check (every answer given here is
 * valid, so 0), and the search states the decider visited (ts_match_decide, run once more on
 * its own), and whether the budget ran out (undecided=1). Exit 0 when the answer passed, 1 when
 * a check found anything, 2 on bad input, 4 when it was undecided.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "conformance/checkers/merge/checks.h"
#include "conformance/checkers/merge/expect.h"
#include "conformance/checkers/merge/matching.h"
#include "conformance/checkers/merge/order.h"
#include "core/json/codec.h"
#include "core/merge/merger.h"
#include "core/merge/model.h"

enum { MAX_RUNS = 99 };

static char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 20, n = 0;
    char *data = malloc(cap);
    while (data) {
        n += fread(data + n, 1, cap - n, f);
        if (n < cap) break;
        char *grown = realloc(data, cap *= 2);
        if (!grown) free(data);
        data = grown;
    }
    fclose(f);
    *len = n;
    return data;
}

static double seconds(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int compare_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

static double median(double *v, int n) {
    qsort(v, (size_t)n, sizeof *v, compare_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv) {
    if (argc < 2 || argc > 6) {
        fprintf(stderr, "usage: check_bench STREAM.jsonl [ANSWER.json|-] [RUNS] [MERGE_RUNS] [JUDGE_STATES]\n");
        return 2;
    }
    ts_judge_budget budget = {0, 0};
    if (argc >= 6) budget.states = strtoull(argv[5], NULL, 10) ? strtoull(argv[5], NULL, 10) : TS_JUDGE_UNLIMITED_STATES;
    int runs = argc >= 4 ? atoi(argv[3]) : 5;
    if (runs < 1 || runs > MAX_RUNS) runs = 5;
    int merge_runs = argc >= 5 ? atoi(argv[4]) : runs;
    if (merge_runs < 0 || merge_runs > runs) merge_runs = runs;
    ts_arena arena;
    ts_arena_init(&arena);
    ts_error err;
    ts_error_clear(&err);
    size_t len;
    char *text = read_file(argv[1], &len);
    ts_stream stream;
    if (!text || !ts_stream_read(&arena, text, len, &stream, &err)) {
        fprintf(stderr, "check_bench: %s: %s\n", argv[1], text ? err.message : "cannot read");
        return 2;
    }
    ts_json answer;
    if (argc < 3 || strcmp(argv[2], "-") == 0) { /* the reference's own answer */
        ts_response response;
        if (!ts_merge(&arena, stream.updates, stream.count, NULL, &response, &err) ||
            !ts_response_to_json(&response, &arena, &answer)) {
            fprintf(stderr, "check_bench: the reference cannot merge the stream: %s\n", err.message);
            return 2;
        }
    } else {
        char *answer_text = read_file(argv[2], &len);
        if (!answer_text || !ts_codec_parse(&arena, answer_text, len, &answer, &err)) {
            fprintf(stderr, "check_bench: %s: %s\n", argv[2], answer_text ? err.message : "cannot read");
            return 2;
        }
        free(answer_text);
    }
    double merge_wall[MAX_RUNS], merge_cpu[MAX_RUNS], check_wall[MAX_RUNS], check_cpu[MAX_RUNS];
    size_t findings = 0;
    bool undecided = false;
    for (int r = 0; r < runs; r++) {
        ts_arena scratch;
        ts_arena_init(&scratch);
        ts_response response;
        ts_json merged;
        double w = seconds(CLOCK_MONOTONIC), c = seconds(CLOCK_PROCESS_CPUTIME_ID);
        if (r < merge_runs && (!ts_merge(&scratch, stream.updates, stream.count, NULL, &response, &err) ||
                               !ts_response_to_json(&response, &scratch, &merged))) {
            fprintf(stderr, "check_bench: the reference cannot merge the stream: %s\n", err.message);
            return 2;
        }
        merge_wall[r] = seconds(CLOCK_MONOTONIC) - w;
        merge_cpu[r] = seconds(CLOCK_PROCESS_CPUTIME_ID) - c;
        if (r >= merge_runs) merge_wall[r] = merge_cpu[r] = 0;
        ts_arena_free(&scratch);
        ts_findings f;
        ts_findings_init(&f);
        w = seconds(CLOCK_MONOTONIC);
        c = seconds(CLOCK_PROCESS_CPUTIME_ID);
        ts_check_status checked = ts_check_merge(stream.updates, stream.count, (ts_str){NULL, 0}, &answer, &budget, &f);
        if (!checked) {
            fprintf(stderr, "check_bench: out of memory while checking\n");
            return 2;
        }
        undecided = checked == TS_CHECK_UNDECIDED;
        check_wall[r] = seconds(CLOCK_MONOTONIC) - w;
        check_cpu[r] = seconds(CLOCK_PROCESS_CPUTIME_ID) - c;
        findings = f.count + f.suppressed;
        for (size_t i = 0; r == runs - 1 && i < f.count && i < 5; i++)
            fprintf(stderr, "[%s] %s\n", f.items[i].rule, f.items[i].message);
        ts_findings_free(&f);
    }
    /* the decider's states, measured apart from the timed runs */
    size_t states = 0;
    if (answer.kind == TS_JSON_OBJECT && ts_json_get(&answer, "messages")) {
        ts_arena scratch;
        ts_arena_init(&scratch);
        ts_expectation e;
        ts_group_words words;
        ts_decision d;
        if (ts_expect_merge(&scratch, stream.updates, stream.count, (ts_str){NULL, 0}, NULL, &e) &&
            ts_order_words(&scratch, &e, &words) &&
            ts_match_decide(&scratch, &e, &words, ts_json_get(&answer, "messages"), NULL, &budget, &d))
            states = d.states;
        ts_arena_free(&scratch);
    }
    printf("updates=%zu merge_wall=%.4f merge_cpu=%.4f check_wall=%.4f check_cpu=%.4f findings=%zu states=%zu "
           "undecided=%d\n",
           stream.count, merge_runs ? median(merge_wall, merge_runs) : NAN, merge_runs ? median(merge_cpu, merge_runs) : NAN,
           median(check_wall, runs), median(check_cpu, runs), findings, states, undecided);
    free(text);
    ts_arena_free(&arena);
    return findings ? 1 : undecided ? 4 : 0;
}
