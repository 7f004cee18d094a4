/* resume_run.c — the world and the nemesis of resume cases; see resume_run.h. */
#include "conformance/certifier/resume_run.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conformance/certifier/resume_stores.h"
#include "conformance/checkers/checks.h"
#include "conformance/checkers/resume_checks.h"
#include "conformance/checkers/resume_expect.h"
#include "conformance/checkers/resume_match.h"
#include "core/json/codec.h"

enum { KEPT_FAILING_RUNS = 3 };

/* A run's recorded history (every line the testee wrote, with its reply) beyond this many bytes
 * ends the case ("history-limit"): memory stays bounded whatever the testee writes. */
static const size_t max_history_bytes = (size_t)64 << 20;

/* One run in flight: the world's state and the events recorded so far. */
typedef struct world {
    const ts_case *c;
    const ts_expected *x;
    ts_testee *testee;
    const char *prefix;        /* the request up to "action": {"id","op","store","thread","tools", */
    ts_arena arena;            /* parsed lines of this run */
    ts_buf events;             /* the run's events, comma-separated */
    long point;                /* world points so far */
    long kill_at;              /* 0: none */
    bool killed;               /* the kill happened */
    bool aborted;              /* a harness outcome ended the run */
    const ts_json *answer;     /* the last answer (parsed), or NULL */
    char protocol[300];        /* a protocol error seen in a line, or "" */
    const char *outcome;       /* the harness verdict that aborted the run */
    char detail[400];
    /* The case's bounds (ts_run_options): the first one reached ends the case (limit). */
    long action_points;        /* points of the action in flight */
    long max_points;
    double deadline;           /* ts_testee_clock seconds; 0: none */
    const char *limit;         /* "point-limit", "case-timeout", "history-limit" once reached, else NULL */
    char limit_detail[300];
} world;

/* A bound of the case was reached: the run stops here, and so does the case. */
static ts_line_verdict reach_limit(world *w, const char *limit, const char *detail) {
    w->limit = limit;
    snprintf(w->limit_detail, sizeof w->limit_detail, "%s", detail);
    return TS_LINE_KILL;
}

static bool past_deadline(const world *w) { return w->deadline > 0 && ts_testee_clock() >= w->deadline; }

static void event(world *w, const char *fmt_start) {
    if (w->events.len) ts_buf_append_char(&w->events, ',');
    ts_buf_append_str(&w->events, fmt_start);
}

/* ------------------------------------------------------------------------- replies ---- */

/* llm[k] as an assistant ChatMessage. */
static void scripted_message(ts_buf *out, const ts_json *answer) {
    ts_buf_append_str(out, "{\"role\":\"assistant\",\"contents\":[");
    ts_str text = ts_json_string(ts_json_get(answer, "text"));
    bool first = true;
    if (text.ptr) {
        ts_buf_append_str(out, "{\"$type\":\"text\",\"text\":");
        ts_codec_write_string(out, text);
        ts_buf_append_char(out, '}');
        first = false;
    }
    const ts_json *calls = ts_json_get(answer, "toolCalls");
    for (size_t i = 0; calls && calls->kind == TS_JSON_ARRAY && i < calls->u.a.count; i++) {
        const ts_json *c = &calls->u.a.items[i];
        ts_buf_append_str(out, first ? "{\"$type\":\"functionCall\",\"callId\":" : ",{\"$type\":\"functionCall\",\"callId\":");
        ts_codec_write_string(out, ts_json_string(ts_json_get(c, "callId")));
        ts_buf_append_str(out, ",\"name\":");
        ts_codec_write_string(out, ts_json_string(ts_json_get(c, "name")));
        ts_buf_append_str(out, ",\"arguments\":");
        ts_codec_write(out, ts_json_get(c, "arguments"), TS_WRITE_COMPACT);
        ts_buf_append_char(out, '}');
        first = false;
    }
    ts_buf_append_str(out, "]}");
}

static void reply_start(world *w, ts_buf *reply) {
    ts_buf_append_str(reply, "{\"id\":");
    ts_codec_write_string(reply, ts_str_from(w->c->id));
}

/* A model call: llm[k], k the assistant messages it shows; past the script, an error. */
static void answer_model(world *w, const ts_json *messages, ts_buf *reply) {
    ts_item *items;
    size_t count;
    char why[300];
    reply_start(w, reply);
    if (!ts_resume_items(messages, &w->arena, &items, &count, why, sizeof why)) {
        ts_buf_append_str(reply, ",\"error\":");
        ts_codec_write_string(reply, ts_str_from(why));
        ts_buf_append_char(reply, '}');
        ts_buf_append_str(&w->events, ",\"reply\":null");
        return;
    }
    size_t k = ts_count_assistants(items, count);
    if (k >= w->c->scenario.llm_count) {
        ts_buf_appendf(reply, ",\"error\":\"the scenario scripts %zu model answers; this conversation holds %zu "
                              "assistant messages\"}", w->c->scenario.llm_count, k);
        ts_buf_append_str(&w->events, ",\"reply\":null");
        return;
    }
    ts_buf_append_str(reply, ",\"reply\":");
    scripted_message(reply, &w->c->scenario.llm[k]);
    ts_buf_append_char(reply, '}');
    ts_buf_appendf(&w->events, ",\"reply\":%zu", k);
}

/* A tool call: its script's result, error, or pending; a tool the scenario lacks fails. */
static void answer_tool(world *w, ts_str name, ts_buf *reply) {
    const ts_tool_script *tool = ts_scenario_tool(&w->c->scenario, name);
    ts_buf body;
    ts_buf_init(&body);
    if (!tool) {
        char message[200];
        snprintf(message, sizeof message, "no tool named \"%.*s\"", (int)(name.len > 120 ? 120 : name.len), name.ptr);
        ts_buf_append_str(&body, "{\"error\":");
        ts_codec_write_string(&body, ts_str_from(message));
        ts_buf_append_char(&body, '}');
    } else if (tool->async) {
        ts_buf_append_str(&body, "{\"pending\":true}");
    } else {
        ts_buf_append_str(&body, tool->failed ? "{\"error\":" : "{\"result\":");
        ts_codec_write(&body, &tool->result, TS_WRITE_COMPACT);
        ts_buf_append_char(&body, '}');
    }
    reply_start(w, reply);
    ts_buf_append_str(reply, ",\"reply\":");
    ts_buf_append(reply, body.data, body.len);
    ts_buf_append_char(reply, '}');
    ts_buf_append_str(&w->events, ",\"reply\":");
    ts_buf_append(&w->events, body.data, body.len);
    ts_buf_free(&body);
}

/* Every line the testee writes during an action: a world call (a point), or the answer. */
static ts_line_verdict on_line(void *context, const char *line, size_t len, ts_buf *reply) {
    world *w = context;
    ts_json v;
    ts_error err;
    if (!ts_codec_parse(&w->arena, line, len, &v, &err) || v.kind != TS_JSON_OBJECT) {
        snprintf(w->protocol, sizeof w->protocol, "a line that is not a JSON object: %.200s", err.message);
        return TS_LINE_KILL;
    }
    ts_str id = ts_json_string(ts_json_get(&v, "id")), call = ts_json_string(ts_json_get(&v, "call"));
    ts_str commit = ts_json_string(ts_json_get(&v, "commit"));
    if (!ts_str_eq_cstr(id, w->c->id)) {
        snprintf(w->protocol, sizeof w->protocol, "a line without this case's \"id\": %.200s", line);
        return TS_LINE_KILL;
    }
    if (!call.ptr && !commit.ptr) { /* the answer */
        event(w, "{\"answer\":");
        ts_codec_write(&w->events, &v, TS_WRITE_COMPACT);
        ts_buf_append_char(&w->events, '}');
        w->answer = ts_arena_alloc(&w->arena, sizeof v);
        if (w->answer) *(ts_json *)w->answer = v;
        return TS_LINE_ANSWER;
    }
    const ts_json *messages = ts_json_get(&v, "messages");
    bool model = ts_str_eq_cstr(call, "model"), tool = ts_str_eq_cstr(call, "tool");
    if ((call.ptr && !model && !tool) || (model && !messages) ||
        (commit.ptr && !ts_str_eq_cstr(commit, "before") && !ts_str_eq_cstr(commit, "after"))) {
        snprintf(w->protocol, sizeof w->protocol, "an unknown world call: %.200s", line);
        return TS_LINE_KILL;
    }
    char why[200];
    if (past_deadline(w)) return reach_limit(w, "case-timeout", "the case reached its deadline (--case-timeout)");
    if (++w->action_points > w->max_points) {
        snprintf(why, sizeof why, "the testee wrote more than %ld world calls and commit notices during one action "
                 "(--max-points-per-action)", w->max_points);
        return reach_limit(w, "point-limit", why);
    }
    if (w->events.len > max_history_bytes) {
        snprintf(why, sizeof why, "the run's recorded history passed %zu bytes", max_history_bytes);
        return reach_limit(w, "history-limit", why);
    }
    w->point++;
    ts_buf_appendf(&w->events, "%s{\"point\":%ld", w->events.len ? "," : "", w->point);
    if (model) {
        ts_buf_append_str(&w->events, ",\"model\":");
        ts_codec_write(&w->events, messages, TS_WRITE_COMPACT);
    } else if (tool) {
        ts_buf_append_str(&w->events, ",\"tool\":{\"name\":");
        ts_codec_write_string(&w->events, ts_json_string(ts_json_get(&v, "name")));
        ts_buf_append_str(&w->events, ",\"callId\":");
        ts_codec_write_string(&w->events, ts_json_string(ts_json_get(&v, "callId")));
        const ts_json *arguments = ts_json_get(&v, "arguments");
        ts_buf_append_str(&w->events, ",\"arguments\":");
        ts_json none = ts_json_make_null();
        ts_codec_write(&w->events, arguments ? arguments : &none, TS_WRITE_COMPACT);
        ts_buf_append_char(&w->events, '}');
    } else {
        ts_buf_appendf(&w->events, ",\"commit\":\"%.*s\",\"what\":", (int)commit.len, commit.ptr);
        ts_codec_write_string(&w->events, ts_json_string(ts_json_get(&v, "what")));
    }
    if (w->point == w->kill_at) {
        ts_buf_appendf(&w->events, "},{\"killed\":%ld}", w->point);
        w->killed = true;
        return TS_LINE_KILL;
    }
    if (model) {
        answer_model(w, messages, reply);
    } else if (tool) {
        answer_tool(w, ts_json_string(ts_json_get(&v, "name")), reply);
    } else {
        reply_start(w, reply);
        ts_buf_append_str(reply, ",\"ack\":true}");
    }
    ts_buf_append_char(&w->events, '}');
    return TS_LINE_REPLY;
}

/* ------------------------------------------------------------------------- actions ---- */

/* Sends one action (its JSON text) and records it; false when the run cannot go on. */
static bool send(world *w, const char *action, long of, int attempt) {
    ts_buf_appendf(&w->events, "%s{\"send\":%s", w->events.len ? "," : "", action);
    if (of >= 0) ts_buf_appendf(&w->events, ",\"of\":%ld,\"attempt\":%d", of, attempt);
    ts_buf_append_char(&w->events, '}');
    ts_buf request;
    ts_buf_init(&request);
    ts_buf_appendf(&request, "%s\"action\":%s}", w->prefix, action);
    w->answer = NULL;
    w->protocol[0] = '\0';
    w->action_points = 0;
    bool killed_before = w->killed;
    ts_call_result result;
    if (past_deadline(w)) {
        reach_limit(w, "case-timeout", "the case reached its deadline (--case-timeout)");
        memset(&result, 0, sizeof result);
        result.status = TS_CALL_CASE_TIMEOUT;
    } else {
        ts_testee_converse(w->testee, request.data, request.len, on_line, w, &result);
    }
    ts_buf_free(&request);
    if (w->killed && !killed_before) {
        event(w, "{\"restart\":\"kill\"}");
        return true;
    }
    if (result.status == TS_CALL_ANSWERED && !w->protocol[0] && w->answer && !w->limit) return true;
    if (result.status == TS_CALL_CASE_TIMEOUT && !w->limit)
        reach_limit(w, "case-timeout", "the case reached its deadline (--case-timeout) waiting for a line");
    w->outcome = w->limit ? w->limit : w->protocol[0] ? "protocol-error" : ts_call_status_name(result.status);
    snprintf(w->detail, sizeof w->detail, "%s", w->limit ? w->limit_detail : w->protocol[0] ? w->protocol : result.detail);
    if (result.status == TS_CALL_ANSWERED && !w->protocol[0] && !w->limit)
        snprintf(w->detail, sizeof w->detail, "an answer that is no object");
    event(w, "{\"outcome\":");
    ts_codec_write_string(&w->events, ts_str_from(w->outcome));
    ts_buf_append_str(&w->events, ",\"detail\":");
    ts_codec_write_string(&w->events, ts_str_from(w->detail));
    ts_buf_append_char(&w->events, '}');
    if (w->protocol[0]) ts_testee_stop(w->testee); /* out of step: start it afresh */
    w->aborted = true;
    return false;
}

static void action_text(const ts_action *a, ts_buf *out) {
    ts_buf_reset(out);
    if (a->kind == TS_ACTION_USER) {
        ts_buf_append_str(out, "{\"user\":");
        ts_codec_write_string(out, a->text);
    } else {
        ts_buf_append_str(out, "{\"complete\":");
        ts_codec_write_string(out, a->call_id);
        ts_buf_append_str(out, a->failed ? ",\"error\":" : ",\"result\":");
        ts_codec_write(out, &a->result, TS_WRITE_COMPACT);
    }
    ts_buf_append_char(out, '}');
}

/* After a kill: did the interrupted action take effect (its user message, its result, in the
 * stored conversation)? Reads it to find out. */
static bool took_effect(world *w, const ts_action *a) {
    if (!send(w, "{\"read\":true}", -1, 0)) return true;
    ts_item *items;
    size_t count, users = 0;
    char why[300];
    if (!ts_resume_items(ts_json_get(w->answer, "messages"), &w->arena, &items, &count, why, sizeof why)) return true;
    bool result = false;
    for (size_t i = 0; i < count; i++) {
        users += items[i].kind == TS_ITEM_USER;
        result |= items[i].kind == TS_ITEM_RESULT && ts_str_eq(items[i].call_id, a->call_id);
    }
    return a->kind == TS_ACTION_USER ? users >= a->users_after : result;
}

static bool answered_unsupported(const world *w) {
    const ts_json *u = ts_json_get(w->answer, "unsupported");
    return u && u->kind == TS_JSON_TRUE;
}

/* One run from an empty store; kill_at > 0 kills the testee at that point. Returns the run's
 * JSON text ({"kill", "events"}) in out; *points counts its points. */
static void run_once(world *w, const char *store, long kill_at, ts_buf *out, long *points, bool *unsupported) {
    ts_buf_reset(&w->events);
    ts_arena_free(&w->arena);
    ts_arena_init(&w->arena);
    w->point = 0;
    w->kill_at = kill_at;
    w->killed = w->aborted = false;
    *unsupported = false;
    ts_buf prefix, action;
    ts_buf_init(&prefix);
    ts_buf_init(&action);
    ts_buf_append_str(&prefix, "{\"id\":");
    ts_codec_write_string(&prefix, ts_str_from(w->c->id));
    ts_buf_append_str(&prefix, ",\"op\":\"resume\",\"store\":");
    ts_codec_write_string(&prefix, ts_str_from(store));
    ts_buf_appendf(&prefix, ",\"thread\":\"%s\",\"tools\":[", w->c->scenario.execution_id);
    for (size_t i = 0; i < w->x->tool_count; i++) {
        ts_buf_append_str(&prefix, i ? ",{\"name\":" : "{\"name\":");
        ts_codec_write_string(&prefix, ts_str_from(w->x->tools[i]));
        ts_buf_append_str(&prefix, ",\"description\":\"a tool the certifier plays\",\"parameters\":{\"type\":\"object\"}}");
    }
    ts_buf_append_str(&prefix, "],");
    w->prefix = prefix.data;
    for (size_t i = 0; i < w->x->action_count && !w->aborted; i++) {
        const ts_action *a = &w->x->actions[i];
        bool was_killed = w->killed;
        if (a->kind == TS_ACTION_RESTART) {
            ts_testee_stop(w->testee);
            event(w, "{\"restart\":\"clean\"}");
            send(w, "{\"recover\":true}", (long)i, 1);
        } else {
            action_text(a, &action);
            if (send(w, action.data, (long)i, 1) && i == 0 && answered_unsupported(w)) {
                *unsupported = true;
                break;
            }
        }
        if (w->killed && !was_killed && !w->aborted) { /* restart, recover, and retry what did not take */
            bool took = !send(w, "{\"recover\":true}", -1, 0) || took_effect(w, a);
            if (!took && !w->aborted && a->kind != TS_ACTION_RESTART) {
                action_text(a, &action);
                send(w, action.data, (long)i, 2);
            }
        }
    }
    if (!w->aborted && !*unsupported) send(w, "{\"read\":true}", -1, 0);
    ts_buf_reset(out);
    if (kill_at) ts_buf_appendf(out, "{\"kill\":%ld,\"events\":[", kill_at);
    else ts_buf_append_str(out, "{\"kill\":null,\"events\":[");
    ts_buf_append(out, w->events.data ? w->events.data : "", w->events.len);
    ts_buf_append_str(out, "]}");
    *points = w->point;
    ts_buf_free(&prefix);
    ts_buf_free(&action);
}

/* ------------------------------------------------------------------------- the case ---- */

static bool needs_async(const ts_expected *x, const ts_scenario *s) {
    for (size_t i = 0; i < x->assistant_count; i++)
        for (size_t p = 0; p < x->assistants[i].call_count; p++) {
            const ts_tool_script *t = ts_scenario_tool(s, x->assistants[i].calls[p].name);
            if (t && t->async) return true;
        }
    return false;
}

static void keep_selected(const ts_findings *all, const ts_run_options *options, ts_findings *out) {
    for (size_t i = 0; i < all->count; i++)
        if (ts_run_rule_selected(options, all->items[i].rule))
            ts_findings_add_named(out, all->items[i].rule, all->items[i].named, "%s", all->items[i].message);
    out->suppressed += all->suppressed;
}

static bool judge_text(ts_resume_judge *judge, const ts_buf *run, ts_findings *findings) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json value;
    ts_error err;
    bool ok = ts_codec_parse(&arena, run->data, run->len, &value, &err) && ts_resume_judge_run(judge, &value, findings);
    ts_arena_free(&arena);
    return ok;
}

/* The case's history as it is recorded: its runs, and a summary of the kill runs. */
typedef struct case_history {
    ts_buf text;           /* {"format"..., "runs":[ so far */
    ts_buf failing_points; /* [{"point":P,"rules":[...]}...]: every failing kill run, with the rules it broke */
    long kept, omitted, passing, runs;
} case_history;

/* One failing kill run in the history's summary: its point and the rules its findings break (a U9
 * finding's named rule rather than U9 itself; of the findings the judge kept). */
static void append_failing_point(ts_buf *out, long point, const ts_findings *local) {
    ts_buf_appendf(out, "%s{\"point\":%ld,\"rules\":[", out->len ? "," : "", point);
    for (size_t k = 0, written = 0; k < local->count; k++) {
        bool seen = false;
        for (size_t i = 0; i < k; i++) seen |= local->items[i].named == local->items[k].named;
        if (!seen) ts_buf_appendf(out, "%s\"%s\"", written++ ? "," : "", local->items[k].named);
    }
    ts_buf_append_str(out, "]}");
}

/* The kill runs at points first..last, each from an empty store of its own, judged into all; the
 * failing ones kept in h (the first KEPT_FAILING_RUNS). Stops at a bound of the case (w->limit),
 * whose run is neither judged nor kept: the case ends there. */
static void kill_sweep(world *w, ts_resume_judge *judge, const char *dir, long first, long last, case_history *h,
                       ts_findings *all) {
    char store[1100];
    ts_buf run;
    ts_buf_init(&run);
    for (long p = first; p <= last && !w->limit; p++) {
        snprintf(store, sizeof store, "%s/kill-%ld", dir, p);
        mkdir(store, 0700);
        long points = 0;
        bool unsupported = false;
        run_once(w, store, p, &run, &points, &unsupported);
        if (w->limit) break;
        h->runs++;
        ts_findings local;
        ts_findings_init(&local);
        judge_text(judge, &run, &local);
        if (local.count && h->kept < KEPT_FAILING_RUNS) {
            ts_buf_append_char(&h->text, ',');
            ts_buf_append(&h->text, run.data, run.len);
            h->kept++;
        } else if (local.count) {
            h->omitted++;
        } else {
            h->passing++;
        }
        if (local.count) append_failing_point(&h->failing_points, p, &local);
        for (size_t k = 0; k < local.count; k++)
            ts_findings_add_named(all, local.items[k].rule, local.items[k].named, "%s", local.items[k].message);
        all->suppressed += local.suppressed;
        ts_findings_free(&local);
    }
    ts_buf_free(&run);
}

/* The kill points to sweep after an uninterrupted run of `points` points: first..*last (none when
 * *last < first). false when --kill-at names a point the case does not have (detail says so). */
static bool sweep_range(const ts_run_options *options, long points, long *first, long *last, char *detail, size_t size) {
    *first = 1;
    *last = options->kill_points < 0 ? 0 : options->kill_points == 0 || options->kill_points > points ? points
                                                                                                     : options->kill_points;
    if (options->kill_at <= 0) return true;
    *first = *last = options->kill_at;
    if (options->kill_at <= points) return true;
    snprintf(detail, size, "--kill-at %ld: the uninterrupted run has %ld point%s%s; no kill run was made", options->kill_at,
             points, points == 1 ? "" : "s", points ? " (world calls and commit notices, numbered from 1)" : "");
    return false;
}

/* The case's own rule, charged with an error answer: its first Required one (U9 when none). */
static const char *case_rule_of(const ts_case *c) {
    const char *rule = "U9";
    for (size_t i = c->rule_count; i-- > 0;) {
        const ts_rule_info *info = ts_rule_find(c->rules[i]);
        if (info && info->level == TS_LEVEL_REQUIRED) rule = info->id;
    }
    return rule;
}

static void verdict_from_findings(ts_case_result *r) {
    if (r->verdict == TS_VERDICT_ERROR) return;
    r->verdict = TS_VERDICT_PASS;
    for (size_t i = 0; i < r->findings.count; i++) {
        const ts_rule_info *info = ts_rule_find(r->findings.items[i].rule);
        if (!info || info->level == TS_LEVEL_REQUIRED) r->verdict = TS_VERDICT_FAIL;
    }
}

/* The uninterrupted run, then the kill sweep, judged into r; the history kept as r->answer. */
static void run_and_sweep(world *w, ts_resume_judge *judge, const char *dir, const ts_run_options *options,
                          ts_case_result *r) {
    char store[1100];
    long points = 0;
    bool unsupported = false;
    ts_buf run;
    ts_buf_init(&run);
    case_history h = {.kept = 0};
    ts_buf_init(&h.text);
    ts_buf_init(&h.failing_points);
    ts_findings all;
    ts_findings_init(&all);
    snprintf(store, sizeof store, "%s/run", dir);
    mkdir(store, 0700);
    run_once(w, store, 0, &run, &points, &unsupported);
    if (unsupported) {
        r->verdict = TS_VERDICT_SKIPPED;
        r->outcome = "unsupported";
        snprintf(r->detail, sizeof r->detail, "the testee does not implement op \"resume\"");
        goto done;
    }
    ts_buf_append_str(&h.text, "{\"format\":\"turnstile-resume-history\",\"version\":1,\"case\":");
    ts_codec_write_string(&h.text, ts_str_from(w->c->id));
    ts_buf_append_str(&h.text, ",\"runs\":[");
    ts_buf_append(&h.text, run.data, run.len);
    if (w->aborted) { /* the uninterrupted run drew a harness verdict: an error of the case */
        r->verdict = TS_VERDICT_ERROR;
        r->outcome = w->outcome;
        snprintf(r->detail, sizeof r->detail, "in the uninterrupted run: %.360s", w->detail);
    }
    judge_text(judge, &run, &all);
    long first = 1, last = 0;
    if (!w->aborted && !sweep_range(options, points, &first, &last, r->detail, sizeof r->detail)) {
        r->verdict = TS_VERDICT_ERROR;
        r->outcome = "no-such-kill-point";
    } else if (!w->aborted) {
        kill_sweep(w, judge, dir, first, last, &h, &all);
    }
    if (w->limit && r->verdict != TS_VERDICT_ERROR) {
        r->verdict = TS_VERDICT_ERROR;
        r->outcome = w->limit;
        snprintf(r->detail, sizeof r->detail, "in the kill run at point %ld (of %ld; %ld kill runs done before it): %.250s",
                 first + h.runs, last, h.runs, w->limit_detail);
    }
    ts_buf_appendf(&h.text, "],\"killPoints\":%ld,\"passingRunsOmitted\":%ld,\"failingRunsOmitted\":%ld,"
                            "\"failingKillPoints\":[", h.runs, h.passing, h.omitted);
    ts_buf_append(&h.text, h.failing_points.data, h.failing_points.len);
    ts_buf_append_str(&h.text, "]}");
    r->answer = h.text.failed ? NULL : strdup(h.text.data);
    keep_selected(&all, options, &r->findings);
    verdict_from_findings(r);
done:
    ts_findings_free(&all);
    ts_buf_free(&run);
    ts_buf_free(&h.text);
    ts_buf_free(&h.failing_points);
}

void ts_resume_run_case(const ts_case *c, ts_testee *testee, const ts_run_options *options, bool async,
                        ts_case_result *r) {
    r->outcome = "answered";
    r->equivalent = -1; /* no golden answer: the scenario is the expectation */
    ts_arena arena;
    ts_arena_init(&arena);
    ts_expected x;
    char why[300];
    ts_resume_stores stores = {.made = false};
    ts_resume_judge *judge = NULL;
    world w = {.c = c, .x = &x, .testee = testee};
    ts_arena_init(&w.arena);
    ts_buf_init(&w.events);
    w.max_points = options->max_points_per_action > 0 ? options->max_points_per_action : TS_RUN_MAX_POINTS;
    double own_deadline = ts_testee_deadline(testee) > 0 || ts_run_case_timeout(options) <= 0
                              ? 0 : ts_testee_clock() + ts_run_case_timeout(options); /* called on its own */
    if (own_deadline > 0) ts_testee_set_deadline(testee, own_deadline);
    w.deadline = ts_testee_deadline(testee);
    if (!ts_expect_resume(&c->scenario, &arena, &x, why, sizeof why) ||
        !(judge = ts_resume_judge_new(&c->scenario, case_rule_of(c), why, sizeof why))) {
        r->verdict = TS_VERDICT_ERROR;
        r->outcome = "bad-case";
        snprintf(r->detail, sizeof r->detail, "the scenario is no resume case: %s", why);
    } else if (!async && needs_async(&x, &c->scenario)) {
        r->verdict = TS_VERDICT_SKIPPED;
        r->outcome = "unsupported";
        snprintf(r->detail, sizeof r->detail, "the case needs an asynchronous tool; the testee's hello says \"async\": false");
    } else if (!ts_resume_stores_make(&stores)) {
        r->verdict = TS_VERDICT_ERROR;
        r->outcome = "unavailable";
        snprintf(r->detail, sizeof r->detail, "cannot create a store directory: %s", strerror(errno));
    } else {
        run_and_sweep(&w, judge, stores.dir, options, r);
    }
    ts_resume_stores_remove(&stores, testee, r);
    if (own_deadline > 0) ts_testee_set_deadline(testee, 0);
    ts_resume_judge_free(judge);
    ts_buf_free(&w.events);
    ts_arena_free(&w.arena);
    ts_arena_free(&arena);
}
