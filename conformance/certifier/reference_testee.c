/* reference_testee.c — the reference answering in-process behind the testee seam; see
 * reference_testee.h. */
#include "conformance/certifier/reference_testee.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/testee/handler.h"

typedef struct reference_testee {
    ts_testee base; /* first: a reference_testee * is a ts_testee * */
    ts_testee_config config;
} reference_testee;

static reference_testee *reference_of(ts_testee *t) { return (reference_testee *)t; }

static void reference_call(ts_testee *t, const char *request, size_t len, ts_buf *answer, ts_call_result *result) {
    memset(result, 0, sizeof *result);
    ts_buf_reset(answer);
    if (request) ts_testee_answer(&reference_of(t)->config, request, len, answer);
    result->status = TS_CALL_ANSWERED;
}

/* World calls: straight to the caller's line handler. */
typedef struct conversation {
    ts_line_handler on_line;
    void *context;
    bool over; /* killed, or a world line was taken as the answer */
    bool killed;
} conversation;

static bool exchange(void *context, const char *line, size_t len, ts_buf *reply) {
    conversation *c = context;
    if (c->over) return false;
    ts_line_verdict v = c->on_line(c->context, line, len, reply);
    c->over = v != TS_LINE_REPLY;
    c->killed = v == TS_LINE_KILL;
    return !c->over;
}

static void reference_converse(ts_testee *t, const char *request, size_t len, ts_line_handler on_line, void *context,
                               ts_call_result *result) {
    ts_buf line, reply;
    ts_buf_init(&line);
    ts_buf_init(&reply);
    reference_testee *r = reference_of(t);
    conversation c = {on_line, context, false, false};
    r->config.exchange = exchange;
    r->config.exchange_context = &c;
    reference_call(t, request, len, &line, result);
    r->config.exchange = NULL;
    if (c.killed) {
        result->status = TS_CALL_CRASHED;
        result->code = SIGKILL;
    } else if (!c.over) {
        on_line(context, line.data ? line.data : "", line.len, &reply);
    }
    ts_buf_free(&line);
    ts_buf_free(&reply);
}

static ts_testee *reference_copy(const ts_testee *t) {
    return ts_testee_in_process(((const reference_testee *)t)->config.mutant);
}

static void reference_close(ts_testee *t) { free(t); }

/* No process of its own: the process entries stay NULL (testee.h: their neutral answers). */
static const ts_testee_vtable reference_vtable = {
    .call = reference_call,
    .converse = reference_converse,
    .copy = reference_copy,
    .close = reference_close,
};

ts_testee *ts_testee_in_process(const ts_mutant *mutant) {
    reference_testee *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    ts_testee_init_base(&r->base, &reference_vtable);
    ts_testee_config_init(&r->config, mutant);
    snprintf(r->base.description, sizeof r->base.description, "turnstile reference (in-process)%s%s",
             mutant ? ", mutant " : "", mutant ? mutant->name : "");
    return &r->base;
}
