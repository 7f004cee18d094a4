/* resume_checks.c — the universal resume rules on a recorded history; see resume_checks.h. The
 * events of a run, statuses (U8) and invocations (U6, U7, U10, U14) are judged here, the
 * conversations it shows in resume_observe.c (resume_judge.h). */
#include "conformance/checkers/resume/resume_checks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/checkers/findings.h"
#include "conformance/checkers/resume/resume_judge.h"
#include "core/json/buf.h"
#include "core/json/codec.h"

/* The result identity of call `call_id` in the latest answer (up to `upto`) that asked for it. */
static ident result_of_call(const ts_expected *x, ts_str call_id, long upto) {
    for (long g = upto < (long)x->answers_used - 1 ? upto : (long)x->answers_used - 1; g >= 0; g--)
        for (size_t p = 0; p < x->answers[g].call_count; p++)
            if (ts_str_eq(x->answers[g].calls[p].call_id, call_id)) return (ident){IDENT_RESULT, (size_t)g, p};
    return (ident){IDENT_NONE, 0, 0};
}

/* The model was asked for answer g (again): answer g is made again, and with it what the engine
 * answers itself from it — the result of each of its calls to a tool the catalogue lacks, which
 * is never invoked, so no tool call marks it made again. Nothing else: a result of a known tool
 * is made again only by its own invocation or a re-sent `complete`. */
static void made_answer(run_judge *j, size_t g, size_t event) {
    rj_made(j, (ident){IDENT_ASSISTANT, g, 0}, event);
    const ts_item *asker = &j->x->answers[g];
    for (size_t p = 0; p < asker->call_count; p++)
        if (!ts_expected_tool(j->scenario, asker->calls[p].name)) rj_made(j, (ident){IDENT_RESULT, g, p}, event);
}

static bool expected_waiting(const run_judge *j) {
    return j->effective >= 0 && j->x->actions[j->effective].waiting_after;
}

/* U8: the status an answer gives is the state the conversation is in. */
static void judge_status(run_judge *j, ts_str status, const char *what) {
    if (!ts_str_eq_cstr(status, "idle") && !ts_str_eq_cstr(status, "waiting")) {
        ts_findings_add(j->f, "U8", "%s: the status must be \"idle\" or \"waiting\", got %s%.40s%s", what,
                        status.ptr ? "\"" : "", status.ptr ? status.ptr : "none", status.ptr ? "\"" : "");
        return;
    }
    bool waiting = expected_waiting(j);
    if (ts_str_eq_cstr(status, "waiting") != waiting)
        ts_findings_add(j->f, "U8", "%s: the testee says \"%.*s\", but %s", what, (int)status.len, status.ptr,
                        waiting ? "here the scenario's run is suspended on a pending tool call, not over"
                                : "here the scenario's turn is over: no tool call is pending");
}

/* ------------------------------------------------------------------------ the events ---- */

void rj_count_invocation(run_judge *j, ident call, long point) {
    invocations *inv = &j->calls[call.id][call.call];
    if (inv->count < MAX_INVOCATIONS) inv->points[inv->count] = point;
    inv->count++;
}

static void report_rerun(run_judge *j, ident call, long branch) {
    const ts_item_call *c = &j->x->answers[call.id].calls[call.call];
    ts_findings_add(j->f, "U14", "call %.*s of model answer %zu, made before the %s of action %ld, ran again after it: a "
                    "branch re-runs nothing of the old one", (int)(c->call_id.len > 60 ? 60 : c->call_id.len), c->call_id.ptr,
                    call.id, j->x->actions[branch].kind == TS_ACTION_EDIT ? "edit" : "fork", branch);
}

void rj_settle_tentative(run_judge *j, bool branch_took) {
    for (size_t i = 0; i < j->tentative_count; i++) {
        if (branch_took) report_rerun(j, j->tentative[i], j->last_branch);
        else rj_count_invocation(j, j->tentative[i], j->tentative_points[i]);
    }
    j->tentative_count = 0;
}

/* A tool invocation: the call it stands for (by call id, name and arguments, in the answers given
 * so far); after a branch, a call made before it must not run again (U14) — judged once the read
 * tells whether an interrupted branch took effect. */
static void on_tool(run_judge *j, const ts_json *call, long point, size_t event, const char *where) {
    ts_str name = ts_json_string(ts_json_get(call, "name")), call_id = ts_json_string(ts_json_get(call, "callId"));
    const ts_json *arguments = ts_json_get(call, "arguments");
    ts_item probe = {.kind = TS_ITEM_ASSISTANT, .call_count = 1};
    ts_item_call c = {call_id, name, arguments ? *arguments : ts_json_make_null(), false};
    probe.calls = &c;
    const ts_expected *x = j->x;
    for (long g = j->max_reply < (long)x->answers_used - 1 ? j->max_reply : (long)x->answers_used - 1; g >= 0; g--)
        for (size_t p = 0; p < x->answers[g].call_count; p++) {
            ts_item want = {.kind = TS_ITEM_ASSISTANT, .calls = &x->answers[g].calls[p], .call_count = 1};
            if (!ts_assistant_matches(&want, &probe)) continue;
            ident id = {IDENT_RESULT, (size_t)g, p};
            rj_made(j, id, event);
            long branch = j->last_branch;
            if (branch < 0 || (size_t)g >= x->actions[branch].answers_before) {
                rj_count_invocation(j, id, point);
            } else if (rj_branch_undecided(j) == branch && j->in_flight != branch) {
                if (j->tentative_count < MAX_TENTATIVE) { /* interrupted: did the branch take effect? */
                    j->tentative[j->tentative_count] = id;
                    j->tentative_points[j->tentative_count++] = point;
                }
            } else {
                report_rerun(j, id, branch);
            }
            return;
        }
    char text[160];
    ts_check_excerpt(call, text, sizeof text);
    ts_findings_add(j->f, "U2", "%s: the tool was invoked with %s, a call no assistant message made (or with other arguments)",
                    where, text);
}

static void on_send(run_judge *j, const ts_json *ev, size_t event) {
    const ts_json *action = ts_json_get(ev, "send"), *of = ts_json_get(ev, "of");
    const ts_json *history = ts_json_get(action, "history");
    ts_check_excerpt(action, j->action, sizeof j->action);
    j->reading = ts_json_get(action, "read") != NULL;
    j->history_read = j->reading && history && history->kind == TS_JSON_TRUE;
    j->recovering = ts_json_get(action, "recover") != NULL;
    j->in_flight = of && of->kind == TS_JSON_INT && of->u.i >= 0 && (size_t)of->u.i < j->x->action_count ? (long)of->u.i : -1;
    if (j->in_flight < 0) return;
    const ts_action *a = &j->x->actions[j->in_flight];
    if (a->kind == TS_ACTION_USER || a->kind == TS_ACTION_EDIT || a->kind == TS_ACTION_FORK)
        rj_made(j, (ident){IDENT_USER, (size_t)j->in_flight, 0}, event);
    if ((a->kind == TS_ACTION_EDIT || a->kind == TS_ACTION_FORK) && !a->refused) j->last_branch = j->in_flight;
    if (a->kind == TS_ACTION_COMPLETE) rj_made(j, result_of_call(j->x, a->call_id, (long)j->x->answers_used), event);
}

static void on_answer(run_judge *j, const ts_json *answer, size_t event, bool last) {
    char what[200];
    if (j->reading) {
        snprintf(what, sizeof what, "the %s %s", j->history_read ? "history read" : "read",
                 last ? "at the end" : j->history_read ? "after the last read" : "after the recovery");
        if (j->history_read) rj_judge_history(j, answer, what);
        else rj_observe_conversation(j, ts_json_get(answer, "messages"), last ? TS_MATCH_FINAL : TS_MATCH_PREFIX, event, what,
                                     NULL);
        if (j->judge_recover_status) { /* the recovery's status, now that the read tells what took effect */
            judge_status(j, j->recover_status, "the answer to the recovery");
            j->judge_recover_status = false;
        }
        judge_status(j, ts_json_string(ts_json_get(answer, "status")), what);
        return;
    }
    if (j->recovering && j->in_flight < 0) { /* after a kill: judged at the read that follows */
        j->recover_status = ts_json_string(ts_json_get(answer, "status"));
        j->judge_recover_status = true;
        return;
    }
    snprintf(what, sizeof what, "the answer to action %ld %s", j->in_flight, j->action);
    if (j->in_flight >= 0 && j->x->actions[j->in_flight].refused)
        ts_findings_add(j->f, "U12", "%s: the conversation has no such position, so the engine must refuse it (an \"error\" "
                        "answer), not carry it out", what);
    if (j->in_flight >= 0) j->effective = j->in_flight;
    judge_status(j, ts_json_string(ts_json_get(answer, "status")), what);
    j->in_flight = -1;
}

/* A protocol point p: the calls invoked before it have their window for U7 closed at p — a kill
 * after their reply and up to the engine's next protocol point, the store operations between
 * included, may re-run them. A commit notice "before" does not close it: the commit it announces
 * is what records the call, so its window runs to that commit's "after" (a kill in the middle of
 * the write that records a call cannot be anything but at-least-once). Nor does a pipelined line
 * (written before the engine read the reply to the line before it): it cannot depend on a reply
 * it had not read, so the engine's next point after the reply is a later one (a false alarm on
 * pipelined engines otherwise: every kill after a reply was outside the window). */
static void close_windows(run_judge *j, const ts_json *ev, long p) {
    if (ts_str_eq_cstr(ts_json_string(ts_json_get(ev, "commit")), "before")) return;
    const ts_json *pipelined = ts_json_get(ev, "pipelined");
    if (pipelined && pipelined->kind == TS_JSON_TRUE) return;
    for (size_t g = 0; g < j->x->answers_used; g++)
        for (size_t c = 0; c < j->x->answers[g].call_count; c++) {
            invocations *inv = &j->calls[g][c];
            for (size_t k = 0; k < inv->count && k < MAX_INVOCATIONS; k++)
                if (!inv->window_end[k] && inv->points[k] < p) inv->window_end[k] = p;
        }
}

static void point_what(const ts_json *ev, char *out, size_t size) {
    const ts_json *tool = ts_json_get(ev, "tool"), *store = ts_json_get(ev, "store");
    ts_str commit = ts_json_string(ts_json_get(ev, "commit"));
    if (store) {
        const ts_json *op = ts_json_get(ev, "op");
        ts_str kind = ts_json_string(ts_json_get(op, "op")), path = ts_json_string(ts_json_get(op, "path"));
        snprintf(out, size, "after store operation %lld, %.12s %.80s", store->kind == TS_JSON_INT ? (long long)store->u.i : 0LL,
                 kind.ptr ? kind.ptr : "?", path.ptr ? path.ptr : "");
    } else if (ts_json_get(ev, "model"))
        snprintf(out, size, "a model call, before the reply");
    else if (tool)
        snprintf(out, size, "inside tool call %.40s (%.40s)", ts_json_string(ts_json_get(tool, "callId")).ptr ? ts_json_string(ts_json_get(tool, "callId")).ptr : "?",
                 ts_json_string(ts_json_get(tool, "name")).ptr ? ts_json_string(ts_json_get(tool, "name")).ptr : "?");
    else
        snprintf(out, size, "commit notice \"%.10s\" %.80s", commit.ptr ? commit.ptr : "?",
                 ts_json_string(ts_json_get(ev, "what")).ptr ? ts_json_string(ts_json_get(ev, "what")).ptr : "");
}

/* The event that answers the run's last read: the last answer, unless only history reads follow
 * it; (size_t)-1 when that answer is no read's. */
static size_t final_read_of(const ts_json *events) {
    bool skipping_history = true;
    for (size_t e = events->u.a.count; e-- > 0;) {
        if (!ts_json_get(&events->u.a.items[e], "answer")) continue;
        const ts_json *sent = NULL;
        for (size_t k = e; k-- > 0 && !sent;) sent = ts_json_get(&events->u.a.items[k], "send");
        const ts_json *history = ts_json_get(sent, "history");
        if (skipping_history && ts_json_get(sent, "read") && history && history->kind == TS_JSON_TRUE) continue;
        skipping_history = false;
        return ts_json_get(sent, "read") ? e : (size_t)-1;
    }
    return (size_t)-1;
}

static void judge_events(run_judge *j, const ts_json *events, const char *case_rule) {
    const ts_json *last_point = NULL;
    size_t final_read = final_read_of(events);
    for (size_t e = 0; e < events->u.a.count && !j->stopped; e++) {
        const ts_json *ev = &events->u.a.items[e];
        const ts_json *point = ts_json_get(ev, "point"), *model = ts_json_get(ev, "model");
        const ts_json *answer = ts_json_get(ev, "answer");
        long p = point && point->kind == TS_JSON_INT ? (long)point->u.i : 0;
        if (point) last_point = ev;
        if (point && !ts_json_get(ev, "store")) close_windows(j, ev, p);
        char where[200];
        if (ts_json_get(ev, "send")) {
            on_send(j, ev, e);
        } else if (model) {
            snprintf(where, sizeof where, "the model call at point %ld", p);
            long asked = -1;
            rj_observe_conversation(j, model, TS_MATCH_VIEW, e, where, &asked);
            const ts_json *reply = ts_json_get(ev, "reply");
            if (reply && reply->kind == TS_JSON_INT && reply->u.i > j->max_reply) j->max_reply = (long)reply->u.i;
            if (asked >= 0) {
                j->model_asks[asked]++;
                made_answer(j, (size_t)asked, e);
            }
        } else if (ts_json_get(ev, "tool")) {
            snprintf(where, sizeof where, "the tool call at point %ld", p);
            on_tool(j, ts_json_get(ev, "tool"), p, e, where);
        } else if (ts_json_get(ev, "killed")) {
            if (last_point) point_what(last_point, j->kill_what, sizeof j->kill_what);
            j->interrupted = j->in_flight;
            j->in_flight = -1;
        } else if (answer) {
            ts_str error = ts_json_string(ts_json_get(answer, "error"));
            const ts_action *a = !j->reading && j->in_flight >= 0 ? &j->x->actions[j->in_flight] : NULL;
            if (error.ptr && a && (a->refused || a->abandoned)) { /* a refusal the rules ask for, or allow */
                j->effective = j->in_flight;
                j->in_flight = -1;
                continue;
            }
            if (error.ptr) {
                ts_findings_add(j->f, j->kill_point ? "U9" : case_rule, "the answer to %s: the testee answered error: %.300s",
                                j->action, error.ptr);
                j->stopped = true;
                break;
            }
            on_answer(j, answer, e, e == final_read);
        } else if (ts_json_get(ev, "outcome")) {
            ts_findings_add(j->f, j->kill_point ? "U9" : case_rule, "the testee %s: %.300s",
                            j->kill_point ? "did not recover" : "drew a harness verdict",
                            ts_json_string(ts_json_get(ev, "detail")).ptr ? ts_json_string(ts_json_get(ev, "detail")).ptr
                                                                         : ts_json_string(ts_json_get(ev, "outcome")).ptr);
            j->stopped = true;
        }
    }
}

/* U6 (runs without a kill) and U7 (killed runs): how often each call ran. */
static bool rerun_seen(const ts_resume_judge *judge, long point, size_t assistant, size_t call);
static void rerun_note(ts_resume_judge *judge, long point, size_t assistant, size_t call);

static void judge_invocations(run_judge *j) {
    const ts_expected *x = j->x;
    const char *answer = x->branches ? "model answer" : "assistant message"; /* the same when nothing branches */
    for (size_t g = 0; g < x->answers_used; g++)
        for (size_t p = 0; p < x->answers[g].call_count; p++) {
            const ts_item_call *c = &x->answers[g].calls[p];
            const invocations *inv = &j->calls[g][p];
            int id_len = (int)(c->call_id.len > 60 ? 60 : c->call_id.len);
            bool known = ts_expected_tool(j->scenario, c->name) != NULL;
            if (inv->count == 0 && known && j->held[g] && !c->may_wait) {
                ts_findings_add(j->f, "U6", "call %.*s (%.*s) of %s %zu was never invoked, yet the "
                                "conversation holds its assistant message", id_len, c->call_id.ptr,
                                (int)(c->name.len > 40 ? 40 : c->name.len), c->name.ptr, answer, g);
                continue;
            }
            if (inv->count <= 1) continue;
            const ts_tool_script *tool = ts_expected_tool(j->scenario, c->name);
            const char *resubmitted = tool && tool->async ? " (its tool is asynchronous: the call was submitted "
                                                            "again while its answer was pending)"
                                                          : "";
            if (!j->kill_point) {
                ts_findings_add(j->f, "U6", "call %.*s of %s %zu ran %zu times in a run without a kill%s",
                                id_len, c->call_id.ptr, answer, g, inv->count, resubmitted);
                continue;
            }
            bool allowed = false; /* the kill fell inside it, or before the engine's next protocol point after it */
            for (size_t k = 0; k < inv->count && k < MAX_INVOCATIONS; k++)
                allowed |= j->kill_point >= inv->points[k] && (!inv->window_end[k] || j->kill_point <= inv->window_end[k]);
            if (inv->count <= 1 + (size_t)allowed) continue;
            /* A power loss re-ran it as the kill alone did: the engine's at-least-once, reported
             * with that kill, not a result that was not durable (U11). */
            if (j->crash[0] && rerun_seen(j->owner, j->killed_as, g, p)) continue;
            if (!j->crash[0]) rerun_note(j->owner, j->kill_point, g, p);
            ts_findings_add(j->f, "U7", "at-least-once: call %.*s of %s %zu ran %zu times after a "
                            "kill at point %ld (%s)%s", id_len, c->call_id.ptr, answer, g, inv->count, j->kill_point,
                            j->kill_what, resubmitted);
        }
    if (j->kill_point) return;
    for (size_t g = 0; g < x->answers_used; g++)
        if (j->model_asks[g] > 1)
            ts_findings_add(j->f, "U10", "the model was asked %zu times for answer %zu in a run without a kill",
                            j->model_asks[g], g);
}

/* ------------------------------------------------------------------------ the case ---- */

static bool run_judge_init(run_judge *j, const ts_scenario *scenario, const ts_expected *x, ts_arena *arena,
                           ts_findings *f) {
    memset(j, 0, sizeof *j);
    j->scenario = scenario;
    j->x = x;
    j->arena = arena;
    j->f = f;
    j->max_reply = -1;
    j->in_flight = j->interrupted = j->effective = j->last_branch = -1;
    ts_buf_init(&j->final_form);
    ts_strmap_init(&j->ids);
    size_t n = x->answers_used;
    j->assistants = ts_arena_calloc(arena, n + 1, sizeof *j->assistants);
    j->users = ts_arena_calloc(arena, x->action_count + 1, sizeof *j->users);
    j->results = ts_arena_calloc(arena, n + 1, sizeof *j->results);
    j->calls = ts_arena_calloc(arena, n + 1, sizeof *j->calls);
    j->model_asks = ts_arena_calloc(arena, n + 1, sizeof *j->model_asks);
    j->held = ts_arena_calloc(arena, n + 1, sizeof *j->held);
    if (!j->assistants || !j->users || !j->results || !j->calls || !j->model_asks || !j->held) return false;
    for (size_t g = 0; g < n; g++) {
        j->calls[g] = ts_arena_calloc(arena, x->answers[g].call_count + 1, sizeof **j->calls);
        j->results[g] = ts_arena_calloc(arena, x->answers[g].call_count + 1, sizeof **j->results);
        if (!j->calls[g] || !j->results[g]) return false;
    }
    return true;
}

struct ts_resume_judge {
    const ts_scenario *scenario;
    const char *case_rule;
    ts_arena arena;          /* X, and the baseline */
    ts_expected x;
    ts_buf baseline;         /* the uninterrupted run's last read, as U9 compares it (conversation_form) */
    bool has_baseline;
    size_t runs;
    bool power_loss_claimed;
    struct rerun { long point; size_t assistant, call; } *reruns; /* U7 re-runs of killed-process runs */
    size_t rerun_count, rerun_cap;
};

static bool rerun_seen(const ts_resume_judge *judge, long point, size_t assistant, size_t call) {
    for (size_t k = 0; judge && point > 0 && k < judge->rerun_count; k++)
        if (judge->reruns[k].point == point && judge->reruns[k].assistant == assistant && judge->reruns[k].call == call)
            return true;
    return false;
}

/* Out of memory: not noted, and a power loss at that point reports the re-run as U11 (over-reports). */
static void rerun_note(ts_resume_judge *judge, long point, size_t assistant, size_t call) {
    if (!judge || rerun_seen(judge, point, assistant, call)) return;
    if (judge->rerun_count == judge->rerun_cap) {
        size_t cap = judge->rerun_cap ? judge->rerun_cap * 2 : 16;
        struct rerun *grown = realloc(judge->reruns, cap * sizeof *grown);
        if (!grown) return;
        judge->reruns = grown, judge->rerun_cap = cap;
    }
    judge->reruns[judge->rerun_count++] = (struct rerun){point, assistant, call};
}

void ts_resume_judge_claim(ts_resume_judge *judge, const char *durability) {
    judge->power_loss_claimed = durability && strcmp(durability, "power-loss") == 0;
}

ts_resume_judge *ts_resume_judge_new(const ts_scenario *scenario, const char *case_rule, char *why, size_t why_size) {
    ts_resume_judge *judge = calloc(1, sizeof *judge);
    if (!judge) {
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    judge->scenario = scenario;
    judge->case_rule = case_rule;
    ts_arena_init(&judge->arena);
    ts_buf_init(&judge->baseline);
    if (!ts_expect_resume(scenario, &judge->arena, &judge->x, why, why_size)) {
        ts_resume_judge_free(judge);
        return NULL;
    }
    return judge;
}

void ts_resume_judge_free(ts_resume_judge *judge) {
    if (!judge) return;
    ts_arena_free(&judge->arena);
    ts_buf_free(&judge->baseline);
    free(judge->reruns);
    free(judge);
}

/* The crash state's description as a finding quotes it: without the observer's thread ids
 * (", tid 4711"), which differ from run to run of the same experiment (a fork server's instances
 * and a cold start's processes get other ids), so that a finding reads the same in every run and
 * its cut falls at the same place; cut to out_size - 1 bytes. */
static void without_thread_ids(ts_str description, char *out, size_t out_size) {
    static const char tid[] = ", tid ";
    size_t n = 0, i = 0;
    while (description.ptr && i < description.len && n + 1 < out_size) {
        if (description.len - i > sizeof tid - 1 && memcmp(description.ptr + i, tid, sizeof tid - 1) == 0 &&
            description.ptr[i + sizeof tid - 1] >= '0' && description.ptr[i + sizeof tid - 1] <= '9') {
            i += sizeof tid - 1;
            while (i < description.len && description.ptr[i] >= '0' && description.ptr[i] <= '9') i++;
            continue;
        }
        out[n++] = description.ptr[i++];
    }
    out[n] = '\0';
}

/* A killed run's findings become U9 findings naming their rule and the kill point, but for
 * U7 (its own, Recommended verdict) and Recommended rules (not judged after a kill). */
static void report_run(const run_judge *j, const ts_findings *local, ts_findings *findings) {
    /* A power loss grades durability (U11), unless the testee claims power-loss durability: then
     * what a crash state loses or breaks is a U9 finding like any kill's. */
    const char *wrap = j->crash[0] && !j->power_loss_claimed ? "U11" : "U9";
    char fault[420];
    if (j->crash[0]) snprintf(fault, sizeof fault, "power loss at point %ld (%s), crash state %s", j->kill_point, j->kill_what, j->crash);
    else snprintf(fault, sizeof fault, "kill at point %ld (%s)", j->kill_point, j->kill_what);
    for (size_t k = 0; k < local->count; k++) {
        const ts_finding *fd = &local->items[k];
        const ts_rule_info *info = ts_rule_find(fd->rule);
        if (j->crash[0] && strcmp(fd->rule, "U7") == 0) /* a tool re-run because its result was not durable */
            ts_findings_add_named(findings, "U11", "U7", "%s: [U7] %s", fault, fd->message);
        else if (!j->kill_point || strcmp(fd->rule, "U7") == 0)
            ts_findings_add_named(findings, fd->rule, fd->named, "%s", fd->message);
        else if (strcmp(fd->rule, "U9") == 0)
            ts_findings_add(findings, wrap, "%s: %s", fault, fd->message);
        else if (info && info->level == TS_LEVEL_REQUIRED)
            ts_findings_add_named(findings, wrap, fd->rule, "%s: [%s] %s", fault, fd->rule, fd->message);
    }
    findings->suppressed += local->suppressed;
}

/* U9: the killed run's final conversation against the uninterrupted run's, form by form
 * (conversation_form): the first item where they part, when they do. */
static void report_difference(const ts_buf *baseline, const ts_buf *form, ts_findings *f) {
    const char *a = baseline->data ? baseline->data : "", *b = form->data ? form->data : "";
    size_t item = 0;
    while (*a || *b) {
        size_t la = strcspn(a, "\n"), lb = strcspn(b, "\n");
        if (la != lb || memcmp(a, b, la) != 0) {
            char here[220], there[220];
            snprintf(here, sizeof here, "%.*s", (int)(lb > 200 ? 200 : lb), b);
            snprintf(there, sizeof there, "%.*s", (int)(la > 200 ? 200 : la), a);
            ts_findings_add(f, "U9", "the conversation differs from the uninterrupted run's: its item %zu (in the order "
                            "compared: block by block, users, then results in call order) is %s where the "
                            "uninterrupted run's is %s", item, lb ? here : "missing", la ? there : "missing");
            return;
        }
        a += la + (a[la] != '\0');
        b += lb + (b[lb] != '\0');
        item++;
    }
}

bool ts_resume_judge_run(ts_resume_judge *judge, const ts_json *run, ts_findings *findings) {
    const ts_json *events = ts_json_get(run, "events"), *kill = ts_json_get(run, "kill");
    size_t number = judge->runs++;
    if (!events || events->kind != TS_JSON_ARRAY || (kill && kill->kind != TS_JSON_NULL && kill->kind != TS_JSON_INT)) {
        ts_findings_add(findings, judge->case_rule, "history.runs[%zu]: needs an \"events\" array and a \"kill\" point or null",
                        number);
        return true;
    }
    ts_arena arena;
    ts_arena_init(&arena);
    ts_findings local;
    ts_findings_init(&local);
    run_judge j;
    bool ok = run_judge_init(&j, judge->scenario, &judge->x, &arena, &local);
    j.kill_point = kill && kill->kind == TS_JSON_INT ? (long)kill->u.i : 0;
    j.power_loss_claimed = judge->power_loss_claimed;
    j.owner = judge;
    const ts_json *crash = ts_json_get(run, "crash");
    if (crash && j.kill_point) {
        const ts_json *as = ts_json_get(crash, "killedAs");
        j.killed_as = as && as->kind == TS_JSON_INT ? (long)as->u.i : 0;
        ts_str state = ts_json_string(ts_json_get(crash, "state")), description = ts_json_string(ts_json_get(crash, "description"));
        char steady[151];
        without_thread_ids(description, steady, sizeof steady);
        snprintf(j.crash, sizeof j.crash, "%.40s%s%s", state.ptr ? state.ptr : "?", description.ptr ? ": " : "", steady);
    }
    if (ok) {
        judge_events(&j, events, judge->case_rule);
        if (!j.stopped) judge_invocations(&j);
        if (!j.stopped && !judge->has_baseline && !j.kill_point) {
            ts_buf_append(&judge->baseline, j.final_form.data ? j.final_form.data : "", j.final_form.len);
            judge->has_baseline = true;
        } else if (!j.stopped && judge->has_baseline && j.kill_point && !ts_findings_has(&local, "U2") &&
                   !ts_findings_has(&local, "U3")) {
            report_difference(&judge->baseline, &j.final_form, &local);
        }
        report_run(&j, &local, findings);
    }
    ts_findings_free(&local);
    ts_buf_free(&j.final_form);
    ts_strmap_free(&j.ids);
    ts_arena_free(&arena);
    return ok;
}

bool ts_check_resume(const ts_scenario *scenario, const ts_json *history, const char *case_rule,
                     ts_findings *findings) {
    char why[300];
    ts_resume_judge *judge = ts_resume_judge_new(scenario, case_rule, why, sizeof why);
    if (!judge) {
        ts_findings_add(findings, case_rule, "the scenario is no resume case: %s", why);
        return strcmp(why, "out of memory") != 0;
    }
    const ts_json *runs = ts_json_get(history, "runs");
    ts_resume_judge_claim(judge, ts_json_string(ts_json_get(history, "durability")).ptr);
    bool ok = true;
    if (!runs || runs->kind != TS_JSON_ARRAY || runs->u.a.count == 0)
        ts_findings_add(findings, case_rule, "history.runs: must be a non-empty array of runs");
    for (size_t r = 0; ok && runs && runs->kind == TS_JSON_ARRAY && r < runs->u.a.count; r++)
        ok = ts_resume_judge_run(judge, &runs->u.a.items[r], findings);
    ts_resume_judge_free(judge);
    return ok;
}

/* Is `sent` (a send event's action) the scenario's action a? */
static bool sends_action(const ts_json *sent, const ts_action *a) {
    bool edit = ts_json_get(sent, "edit") != NULL, fork = ts_json_get(sent, "fork") != NULL;
    if (a->kind == TS_ACTION_USER || a->kind == TS_ACTION_EDIT || a->kind == TS_ACTION_FORK)
        return ts_str_eq(ts_json_string(ts_json_get(sent, "user")), a->text) && edit == (a->kind == TS_ACTION_EDIT) &&
               fork == (a->kind == TS_ACTION_FORK);
    if (a->kind == TS_ACTION_COMPLETE) return ts_str_eq(ts_json_string(ts_json_get(sent, "complete")), a->call_id);
    return ts_json_get(sent, "recover") != NULL; /* a restart: carried out by a recovery */
}

static bool fits_run(const ts_expected *x, const ts_json *run, size_t r, char *why, size_t why_size) {
    const ts_json *events = ts_json_get(run, "events"), *kill = ts_json_get(run, "kill");
    if (!events || events->kind != TS_JSON_ARRAY || events->u.a.count == 0) {
        snprintf(why, why_size, "runs[%zu].events: must be a non-empty array (nothing was recorded)", r);
        return false;
    }
    if (r == 0 && kill && kill->kind != TS_JSON_NULL) {
        snprintf(why, why_size, "runs[0].kill: must be null (the first run is the uninterrupted one)");
        return false;
    }
    for (size_t e = 0; e < events->u.a.count; e++) {
        const ts_json *ev = &events->u.a.items[e], *sent = ts_json_get(ev, "send"), *of = ts_json_get(ev, "of");
        if (!sent || !of) continue;
        char text[160];
        ts_check_excerpt(sent, text, sizeof text);
        if (of->kind != TS_JSON_INT || of->u.i < 0 || (size_t)of->u.i >= x->action_count) {
            snprintf(why, why_size, "runs[%zu].events[%zu]: sends %s as action %s; the scenario has %zu actions", r, e, text,
                     of->kind == TS_JSON_INT ? "beyond them" : "of no number", x->action_count);
            return false;
        }
        if (!sends_action(sent, &x->actions[of->u.i])) {
            snprintf(why, why_size, "runs[%zu].events[%zu]: sends %s as action %lld, which is another action in the scenario",
                     r, e, text, (long long)of->u.i);
            return false;
        }
    }
    return true;
}

bool ts_resume_history_fits(const ts_scenario *scenario, const ts_json *history, char *why, size_t why_size) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_expected x;
    char reason[300];
    bool ok = ts_expect_resume(scenario, &arena, &x, reason, sizeof reason);
    if (!ok) snprintf(why, why_size, "the scenario is no resume case: %s", reason);
    const ts_json *runs = ts_json_get(history, "runs");
    if (ok && (!runs || runs->kind != TS_JSON_ARRAY || runs->u.a.count == 0)) {
        snprintf(why, why_size, "runs: must be a non-empty array of runs");
        ok = false;
    }
    for (size_t r = 0; ok && r < runs->u.a.count; r++) ok = fits_run(&x, &runs->u.a.items[r], r, why, why_size);
    ts_arena_free(&arena);
    return ok;
}
