/* certify_live.c — certify's progress line and streamed text report; see certify_live.h. */
#include "conformance/cli/certify_live.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void clear_line(ts_certify_live *l) {
    if (!l->shown) return;
    fputs("\r\033[K", stderr);
    fflush(stderr);
    l->shown = false;
}

static void duration(double seconds, char *out, size_t size) {
    long s = (long)(seconds + 0.5);
    if (s >= 3600) snprintf(out, size, "%ldh%02ldm", s / 3600, s / 60 % 60);
    else if (s >= 60) snprintf(out, size, "%ldm%02lds", s / 60, s % 60);
    else snprintf(out, size, "%lds", s);
}

/* The time left, from what done cases cost: resume cases and the others apart (a resume case's
 * sweep costs hundreds of runs); negative when it cannot be told yet. */
static double estimate(const ts_certification *run, double elapsed) {
    double spent = 0, plain_cost = 0, resume_cost = 0;
    size_t plain_done = 0, resume_done = 0, plain_left = 0, resume_left = 0;
    for (size_t i = 0; i < run->count; i++) {
        const ts_case_result *r = &run->results[i];
        bool resume = strcmp(r->c->op, "resume") == 0, done = r->state >= TS_CASE_ANSWERED;
        if (done) spent += r->seconds;
        if (resume) done ? (resume_done++, resume_cost += r->seconds) : resume_left++;
        else done ? (plain_done++, plain_cost += r->seconds) : plain_left++;
    }
    if ((resume_left && !resume_done) || spent <= 0) return -1;
    double left = (plain_done ? plain_cost / (double)plain_done : 0) * (double)plain_left +
                  (resume_done ? resume_cost / (double)resume_done : 0) * (double)resume_left;
    return elapsed * left / spent; /* elapsed/spent: how many cases ran at once */
}

static void draw(ts_certify_live *l, const ts_certification *run) {
    size_t done = 0, passed = 0, failed = 0;
    const char *current = NULL;
    for (size_t i = 0; i < run->count; i++) {
        const ts_case_result *r = &run->results[i];
        if (r->state == TS_CASE_STARTED && !current) current = r->c->id;
        if (r->state < TS_CASE_ANSWERED) continue;
        done++;
        if (r->apart) continue;
        passed += r->verdict == TS_VERDICT_PASS;
        failed += r->verdict == TS_VERDICT_FAIL || r->verdict == TS_VERDICT_ERROR;
    }
    double elapsed = now() - l->start, left = estimate(run, elapsed);
    char took[32], rest[32] = "estimating";
    duration(elapsed, took, sizeof took);
    if (left >= 0) duration(left, rest, sizeof rest);
    fprintf(stderr, "\r\033[K[%zu/%zu] %zu passed, %zu failed | %s elapsed, %s%s left | %.40s", done, run->count, passed, failed,
            took, left >= 0 ? "~" : "", rest, current ? current : "");
    fflush(stderr);
    l->shown = true;
    l->drawn = now();
}

static void header(ts_certify_live *l, const ts_certification *run) {
    if (l->header) return;
    l->header = true;
    l->start = now();
    clear_line(l);
    ts_report_text_header(l->text, run);
    fflush(l->text);
}

void ts_certify_live_progress(void *context, const ts_certification *run) {
    ts_certify_live *l = context;
    header(l, run);
    if (l->progress && now() - l->drawn >= 0.2) draw(l, run);
}

/* What a block showed: its verdict, outcome's first letter and whether it was expected. */
static unsigned char shown_as(const ts_case_result *r, bool expected) {
    return (unsigned char)(1 + (int)r->verdict * 2 + expected);
}

void ts_certify_live_decided(void *context, const ts_certification *run, const ts_case_result *r) {
    ts_certify_live *l = context;
    (void)r;
    header(l, run);
    if (!l->printed && !(l->printed = calloc(run->suite->count ? run->suite->count : 1, 1))) return;
    bool any = false;
    for (; l->frontier < run->count && run->results[l->frontier].state == TS_CASE_DECIDED; l->frontier++) {
        const ts_case_result *next = &run->results[l->frontier];
        bool expected = ts_gate_case_expected(l->expected, next);
        if (!any) clear_line(l);
        if (ts_report_text_case(l->text, run, next, expected, l->ctx, l->verbose)) any = true;
        l->printed[next->c - run->suite->cases] = shown_as(next, expected);
    }
    if (any) fflush(l->text);
    if (l->progress) draw(l, run);
}

void ts_certify_live_finish(ts_certify_live *l, const ts_certification *run, const ts_report_context *ctx) {
    clear_line(l);
    header(l, run);
    for (size_t i = 0; i < run->count; i++) {
        const ts_case_result *r = &run->results[i];
        unsigned char was = l->printed ? l->printed[r->c - run->suite->cases] : 0;
        if (was != shown_as(r, r->expected)) ts_report_text_case(l->text, run, r, r->expected, ctx, l->verbose);
    }
    ts_report_text_summary(l->text, run, ctx);
    free(l->printed);
    l->printed = NULL;
}
