/* pipelining_report.c — pipelined world calls in the reports; see pipelining_report.h. */
#include "conformance/certifier/pipelining_report.h"

#include <stdlib.h>
#include <string.h>

#include "core/json/codec.h"

enum { NAMED_CASES = 8 }; /* the text names this many cases, then counts the rest */

/* What the histories of c say: how many resume cases pipelined, the largest --kill-settle one
 * needs, the kill runs settled and not. */
typedef struct pipelining_totals {
    size_t cases;
    long kill_settle_ms, settled, unsettled;
} pipelining_totals;

/* r's history's "pipelining" member (parsed into arena), or NULL. */
static const ts_json *case_pipelining(const ts_case_result *r, ts_arena *arena) {
    if (strcmp(r->c->op, "resume") != 0 || !r->answer) return NULL;
    ts_json *history = ts_arena_alloc(arena, sizeof *history);
    ts_error err;
    if (!history || !ts_codec_parse(arena, r->answer, strlen(r->answer), history, &err)) return NULL;
    const ts_json *p = ts_json_get(history, "pipelining");
    return p && p->kind == TS_JSON_OBJECT ? p : NULL;
}

static long member(const ts_json *p, const char *name) {
    const ts_json *v = ts_json_get(p, name);
    return v && v->kind == TS_JSON_INT ? (long)v->u.i : 0;
}

/* Walks c's cases; for each that pipelined, adds to totals and calls each_case (when not NULL). */
static void gather(const ts_certification *c, pipelining_totals *totals, void (*each_case)(void *, const char *), void *context) {
    memset(totals, 0, sizeof *totals);
    for (size_t i = 0; i < c->count; i++) {
        ts_arena arena;
        ts_arena_init(&arena);
        const ts_json *p = case_pipelining(&c->results[i], &arena);
        if (p) {
            totals->cases++;
            long ms = member(p, "killSettleMs");
            if (ms > totals->kill_settle_ms) totals->kill_settle_ms = ms;
            totals->settled += member(p, "settledKillRuns");
            totals->unsettled += member(p, "unsettledKillRuns");
            if (each_case) each_case(context, c->results[i].c->id);
        }
        ts_arena_free(&arena);
    }
}

typedef struct text_names {
    ts_buf text;
    size_t named;
} text_names;

static void name_in_text(void *context, const char *id) {
    text_names *t = context;
    if (t->named < NAMED_CASES) ts_buf_appendf(&t->text, "%s%s", t->named ? ", " : " ", id);
    t->named++;
}

void ts_pipelining_report_text(FILE *out, const ts_certification *c) {
    pipelining_totals totals;
    text_names names = {.named = 0};
    ts_buf_init(&names.text);
    gather(c, &totals, name_in_text, &names);
    if (totals.cases) {
        fprintf(out, "pipelining: the testee wrote world calls before it read the reply to the last (PROTOCOL.md) in %zu "
                     "case%s:%s", totals.cases, totals.cases == 1 ? "" : "s", names.text.data ? names.text.data : "");
        if (names.named > NAMED_CASES) fprintf(out, " and %zu more", names.named - NAMED_CASES);
        fprintf(out, "; it needs --kill-settle %ld; %ld kill%s waited for it to settle", totals.kill_settle_ms,
                totals.settled, totals.settled == 1 ? "" : "s");
        if (totals.unsettled)
            fprintf(out, ", %ld did not (killed before pipelining was seen, or --kill-settle 0): a U7 finding of theirs may be the kill's timing, not the engine's",
                    totals.unsettled);
        fputc('\n', out);
    }
    ts_buf_free(&names.text);
}

/* The ids of the cases that pipelined, borrowed from the certification. */
typedef struct json_names {
    const char **ids;
    size_t count, cap;
    bool failed;
} json_names;

static void name_in_json(void *context, const char *id) {
    json_names *n = context;
    if (!ts_grow_array((void **)&n->ids, &n->cap, n->count, sizeof *n->ids)) n->failed = true;
    else n->ids[n->count++] = id;
}

void ts_pipelining_report_json(ts_json_writer *w, const ts_certification *c) {
    pipelining_totals totals;
    json_names names = {NULL, 0, 0, false};
    gather(c, &totals, name_in_json, &names);
    if (totals.cases) {
        ts_jw_key(w, "pipelining");
        ts_jw_begin_object(w);
        ts_jw_key(w, "cases");
        ts_jw_begin_array(w);
        for (size_t i = 0; i < names.count; i++) ts_jw_string(w, names.ids[i]);
        if (names.failed) ts_jw_fail(w); /* out of memory: a case would be missing */
        ts_jw_end_array(w);
        ts_jw_field_int(w, "killSettleMs", totals.kill_settle_ms);
        ts_jw_field_int(w, "settledKillRuns", totals.settled);
        ts_jw_field_int(w, "unsettledKillRuns", totals.unsettled);
        ts_jw_end_object(w);
    }
    free(names.ids);
}
