/* journal_rules.c — the reference profile's checkers J7-J12 (SPEC.md §6); see journal_judge.h. */
#include <string.h>

#include "conformance/checkers/findings.h"
#include "conformance/checkers/journal/journal_judge.h"
#include "core/json/buf.h"
#include "core/json/canon.h"
#include "core/json/codec.h"
#include "core/json/timestamp.h"

/* ---- J7 ---- */

/* Says where the nearest llm-request task's input differs from `want` (a {"messages": [...]}). */
static bool nearest_llm_task(judge *j, const ts_json *want, size_t *task_out, char *where, size_t max) {
    const ts_json *want_messages = ts_json_get(want, "messages");
    size_t best = NO_INDEX, best_equal = 0;
    const ts_json *best_messages = NULL;
    for (size_t i = 0; i < j->answer->task_count; i++) {
        const answer_task *t = &j->answer->tasks[i];
        if (!ts_str_eq_cstr(t->kind, jc_llm_kind)) continue;
        ts_json parsed;
        ts_error err;
        if (!ts_canon_parse(j->arena, t->input.ptr, t->input.len, &parsed, &err)) continue;
        const ts_json *messages = ts_json_get(&parsed, "messages");
        if (!messages || messages->kind != TS_JSON_ARRAY || messages->u.a.count != want_messages->u.a.count) continue;
        size_t equal = 0;
        for (size_t m = 0; m < messages->u.a.count; m++)
            equal += ts_json_equal(&messages->u.a.items[m], &want_messages->u.a.items[m]);
        if (best == NO_INDEX || equal > best_equal) {
            best = i;
            best_equal = equal;
            best_messages = messages;
        }
    }
    if (best == NO_INDEX) return false;
    *task_out = best;
    for (size_t m = 0; m < want_messages->u.a.count; m++) {
        static const char *const fields[] = {"role", "content", "timestamp"};
        for (size_t f = 0; f < 3; f++) {
            const ts_json *w = ts_json_get(&want_messages->u.a.items[m], fields[f]);
            const ts_json *g = ts_json_get(&best_messages->u.a.items[m], fields[f]);
            if (g && ts_json_equal(w, g)) continue;
            char we[EXCERPT], ge[EXCERPT];
            ts_check_excerpt(w, we, sizeof we);
            ts_check_excerpt(g, ge, sizeof ge);
            jc_format(where, max, "messages[%zu].%s: expected %s (the stored entry's), got %s", m, fields[f], we, ge);
            return true;
        }
    }
    jc_format(where, max, "other members of the input");
    return true;
}

void jc_check_llm_inputs(judge *j) {
    const journal_answer *a = j->answer;
    for (size_t i = 0; i < a->entry_count; i++) {
        const answer_entry *e = &a->entries[i];
        if (e->role != TS_ENTRY_ASSISTANT) continue;
        size_t parent = jc_entry_index(j, e->parent_id);
        size_t *path = NULL, count = 0;
        if (e->parent_id.ptr && (parent == NO_INDEX || !jc_answer_path(j, parent, &path, &count))) continue; /* J2 */
        message_view *views = ts_arena_calloc(j->arena, count + 1, sizeof *views);
        ts_json input;
        if (!views) {
            j->out_of_memory = true;
            return;
        }
        for (size_t m = 0; m < count; m++) {
            const answer_entry *p = &a->entries[path[m]];
            views[m] = (message_view){p->role, p->content, p->timestamp};
        }
        if (!jc_llm_input(j->arena, views, count, &input)) {
            j->out_of_memory = true;
            return;
        }
        ts_str canonical;
        char key[TS_TASK_KEY_TEXT_LEN + 1], id[TS_UUID_TEXT_LEN + 1];
        ts_error err;
        naming_status named =
            jc_name_task(j->scenario->execution_id, ts_str_from(jc_llm_kind), &input, j->arena, &canonical, key, id, &err);
        if (named == NAMING_OUT_OF_MEMORY) j->out_of_memory = true;
        if (named != NAMED) continue;
        size_t t = jc_task_index(j, ts_str_from(key));
        if (t != NO_INDEX && ts_str_eq_cstr(a->tasks[t].kind, jc_llm_kind)) continue;
        char content[EXCERPT], where[700];
        ts_check_excerpt(e->content, content, sizeof content);
        size_t nearest;
        if (nearest_llm_task(j, &input, &nearest, where, sizeof where))
            ts_findings_add(j->findings, "J7",
                            "entries[%zu] (assistant %s): no llm-request task has the transcript before it (%zu "
                            "messages, stored timestamps) as input; the nearest, tasks[%zu], differs at %s",
                            i, content, count, nearest, where);
        else
            ts_findings_add(j->findings, "J7",
                            "entries[%zu] (assistant %s): no llm-request task has the transcript before it (%zu "
                            "messages, stored timestamps) as input (expected key %s)",
                            i, content, count, key);
    }
}

/* ---- J8 ---- */

void jc_check_timestamps(judge *j) {
    const journal_answer *a = j->answer;
    if (!j->scenario->has_clock) { /* the wall clock's: nothing to re-derive, but one must be there */
        for (size_t i = 0; i < a->entry_count; i++)
            if (!a->entries[i].timestamp.ptr)
                ts_findings_add(j->findings, "J8", "entries[%zu].timestamp is null: no timestamp was minted", i);
        return;
    }
    for (size_t i = 0; i < a->entry_count; i++) {
        char want[TIMESTAMP_TEXT];
        jc_clock_timestamp(j->scenario, i, want);
        ts_str got = a->entries[i].timestamp;
        if (ts_str_eq_cstr(got, want)) continue;
        char g[EXCERPT];
        ts_check_excerpt_str_or(got, "null", g, sizeof g);
        ts_instant wi, gi;
        bool same_instant = ts_instant_parse(want, strlen(want), &wi, NULL) &&
                            ts_instant_parse(got.ptr, got.len, &gi, NULL) && ts_instant_compare(wi, gi) == 0;
        ts_findings_add(j->findings, "J8",
                        "entries[%zu].timestamp: expected \"%s\" (clock.start + %zu x %lld ms), got %s%s", i, want, i,
                        (long long)j->scenario->clock_step_ms, g,
                        same_instant ? " (the same instant, not written YYYY-MM-DDThh:mm:ss.fffffff+00:00)" : "");
    }
}

/* ---- J9 ---- */

void jc_check_tool_runs(judge *j) {
    const journal_answer *a = j->answer;
    const answer_entry *opener = NULL; /* the assistant entry whose calls are being answered */
    size_t opener_at = 0, next_call = 0, call_count = 0;
    for (size_t p = 0; p < a->transcript_count; p++) {
        const answer_entry *e = &a->transcript[p];
        const ts_json *calls = opener ? ts_json_get(opener->content, "toolCalls") : NULL;
        bool pending = opener && next_call < call_count;
        if (e->role == TS_ENTRY_TOOL) {
            ts_str call_id = ts_json_string(ts_json_get(e->content, "callId"));
            char got[EXCERPT];
            ts_check_excerpt_str_or(call_id, "null", got, sizeof got);
            if (!pending) {
                ts_findings_add(j->findings, "J9",
                                "transcript[%zu]: a tool entry (call %s) that answers no pending tool call", p, got);
                continue;
            }
            ts_str want = ts_json_string(ts_json_get(&calls->u.a.items[next_call], "callId"));
            if (!ts_str_eq(want, call_id)) {
                char w[EXCERPT];
                ts_check_excerpt_str_or(want, "null", w, sizeof w);
                ts_findings_add(
                    j->findings, "J9",
                    "transcript[%zu]: expected the tool entry of call %s (call %zu of %zu of transcript[%zu]), "
                    "got call %s",
                    p, w, next_call + 1, call_count, opener_at, got);
            }
            next_call++;
            continue;
        }
        if (pending) {
            /* An edit may cut a tool run, and a signal consumed at once may come between its
             * entries (the derivation has a user entry here too); nothing else may. */
            bool edit = e->role == TS_ENTRY_USER && j->sim && !j->sim->stuck && p < j->expected_count &&
                        j->sim->entries[j->expected[p]].role == TS_ENTRY_USER;
            if (edit && j->sim->entries[j->expected[p]].origin == FROM_SIGNAL) continue; /* the run goes on after it */
            if (!edit) {
                char g[EXCERPT];
                jc_entry_excerpt(e->role, e->content, g, sizeof g);
                ts_findings_add(j->findings, "J9",
                                "transcript[%zu]: %s comes before the tool entries of calls %zu-%zu of transcript[%zu] "
                                "(%s)",
                                p, g, next_call + 1, call_count, opener_at,
                                e->role == TS_ENTRY_ASSISTANT ? "an LLM task ran while tool calls were pending"
                                                              : "signals wait for pending tool calls");
            }
        }
        opener = NULL;
        if (e->role == TS_ENTRY_ASSISTANT) {
            const ts_json *own = ts_json_get(e->content, "toolCalls");
            if (own && own->kind == TS_JSON_ARRAY && own->u.a.count > 0) {
                opener = e;
                opener_at = p;
                next_call = 0;
                call_count = own->u.a.count;
            }
        }
    }
}

/* ---- J10 ---- */

static bool user_text(ts_entry_role role, const ts_json *content, ts_str *out) {
    if (role != TS_ENTRY_USER) return false;
    *out = ts_json_string(ts_json_get(content, "text"));
    return out->ptr != NULL;
}

static bool is_signal_text(const sim *s, ts_str text) {
    for (size_t i = 0; i < s->signal_count; i++)
        if (ts_str_eq(s->signals[i], text)) return true;
    return false;
}

static ts_str inbox_text(const ts_json *item) {
    return item->kind == TS_JSON_OBJECT ? ts_json_string(ts_json_get(item, "text")) : (ts_str){NULL, 0};
}

/* "["a","b"]" — the delivered signals' texts, for messages. */
static void signal_list(const sim *s, char *out, size_t max) {
    ts_buf buf;
    ts_buf_init(&buf);
    ts_buf_append_char(&buf, '[');
    for (size_t i = 0; i < s->signal_count; i++) {
        if (i) ts_buf_append_char(&buf, ',');
        ts_codec_write_string(&buf, s->signals[i]);
    }
    ts_buf_append_char(&buf, ']');
    jc_format(out, max, "%s", buf.data && !buf.failed ? buf.data : "(out of memory)");
    ts_buf_free(&buf);
}

/* The answer's inbox: every delivered signal, {"text": s}, in delivery order; the edits may be
 * listed among them in arrival order (SPEC §6 leaves it open: the reference lists them), and
 * nothing else. signalsConsumed counts the listed items that have become entries. */
static void check_inbox(judge *j) {
    const journal_answer *a = j->answer;
    const sim *s = j->sim;
    const ts_scenario *sc = j->scenario;
    const ts_json *items = a->signals;
    size_t n = items->u.a.count, m = 0;
    size_t *events = ts_arena_calloc(j->arena, sc->event_count + 1, sizeof *events);
    bool *fits = events ? ts_arena_calloc(j->arena, (sc->event_count + 1) * (n + 1), sizeof *fits) : NULL;
    if (!fits) {
        j->out_of_memory = true;
        return;
    }
    for (size_t e = 0; e < sc->event_count; e++)
        if (sc->events[e].kind == TS_EVENT_SIGNAL || sc->events[e].kind == TS_EVENT_BRANCH) events[m++] = e;
            /* fits[e][i]: events[e..] can be listed as items[i..] */
#define FITS(e, i) fits[(e) * (n + 1) + (i)]
    for (size_t e = m + 1; e-- > 0;) {
        for (size_t i = n + 1; i-- > 0;) {
            if (e == m) {
                FITS(e, i) = i == n;
                continue;
            }
            const ts_event *ev = &sc->events[events[e]];
            bool listed = i < n && ts_str_eq(inbox_text(&items->u.a.items[i]), ev->text) && FITS(e + 1, i + 1);
            FITS(e, i) = listed || (ev->kind == TS_EVENT_BRANCH && FITS(e + 1, i));
        }
    }
    size_t consumed = s->signals_consumed;
    if (!FITS(0, 0)) {
        char want[EXCERPT * 2], got[EXCERPT * 2];
        signal_list(s, want, sizeof want);
        ts_check_excerpt(items, got, sizeof got);
        ts_findings_add(j->findings, "J10",
                        "signals: expected the delivered signals %s as {\"text\": s} in delivery order (edits may be "
                        "listed among them), got %s",
                        want, got);
    } else {
        consumed = 0;
        for (size_t e = 0, i = 0; e < m; e++) {
            const ts_event *ev = &sc->events[events[e]];
            if (i < n && ts_str_eq(inbox_text(&items->u.a.items[i]), ev->text) && FITS(e + 1, i + 1)) {
                consumed += s->applied[events[e]];
                i++;
            }
        }
    }
#undef FITS
    if (a->signals_consumed != consumed)
        ts_findings_add(j->findings, "J10", "checkpoint.signalsConsumed: expected %zu (%s), got %llu", consumed,
                        s->phase == SIM_IDLE ? "every signal listed: the execution is idle"
                                             : "the signals listed that became entries before the pending tool call",
                        (unsigned long long)a->signals_consumed);
}

void jc_check_signals(judge *j) {
    const journal_answer *a = j->answer;
    const sim *s = j->sim;
    check_inbox(j);
    /* Each signal's text: as many user entries as the execution makes with that text. */
    for (size_t i = 0; i < s->signal_count; i++) {
        bool first = true;
        for (size_t k = 0; k < i; k++) first &= !ts_str_eq(s->signals[k], s->signals[i]);
        if (!first) continue;
        size_t want = 0, have = 0;
        ts_str text;
        for (size_t k = 0; k < s->entry_count; k++)
            want += user_text(s->entries[k].role, &s->entries[k].content, &text) && ts_str_eq(text, s->signals[i]);
        for (size_t k = 0; k < a->entry_count; k++)
            have += user_text(a->entries[k].role, a->entries[k].content, &text) && ts_str_eq(text, s->signals[i]);
        if (want != have) {
            char w[EXCERPT];
            ts_check_excerpt_str_or(s->signals[i], "null", w, sizeof w);
            ts_findings_add(j->findings, "J10",
                            "signal %s (signals[%zu]): expected %zu user entr%s with that text, got %zu (%s)", w, i,
                            want, want == 1 ? "y" : "ies", have, have > want ? "doubled" : "lost");
        }
    }
    /* ... in delivery order. */
    size_t ws = 0, gs = 0;
    for (;;) {
        ts_str wt = {NULL, 0}, gt = {NULL, 0};
        while (ws < s->entry_count &&
               !(user_text(s->entries[ws].role, &s->entries[ws].content, &wt) && is_signal_text(s, wt)))
            ws++;
        while (gs < a->entry_count &&
               !(user_text(a->entries[gs].role, a->entries[gs].content, &gt) && is_signal_text(s, gt)))
            gs++;
        if (ws == s->entry_count || gs == a->entry_count) break;
        if (!ts_str_eq(wt, gt)) {
            char w[EXCERPT], g[EXCERPT];
            ts_check_excerpt_str_or(wt, "null", w, sizeof w);
            ts_check_excerpt_str_or(gt, "null", g, sizeof g);
            ts_findings_add(j->findings, "J10",
                            "entries[%zu]: expected the user entry of signal %s (delivery order), got %s", gs, w, g);
            break;
        }
        ws++;
        gs++;
    }
}

/* ---- J11 ---- */

void jc_check_checkpoint(judge *j) {
    const journal_answer *a = j->answer;
    const sim *s = j->sim;
    if (a->transcript_count > 0) {
        ts_str last = a->transcript[a->transcript_count - 1].id;
        if (!ts_str_eq(a->leaf_id, last)) {
            char w[EXCERPT], g[EXCERPT];
            ts_check_excerpt_str_or(last, "null", w, sizeof w);
            ts_check_excerpt_str_or(a->leaf_id, "null", g, sizeof g);
            ts_findings_add(j->findings, "J11", "checkpoint.leafId: expected %s (the last transcript entry), got %s", w,
                            g);
        }
    }
    ts_str phase = ts_json_string(ts_json_get(a->state, "phase"));
    char got[EXCERPT];
    ts_check_excerpt_str_or(phase, "null", got, sizeof got);
    if (s->phase == SIM_IDLE) {
        if (!ts_str_eq_cstr(phase, "idle"))
            ts_findings_add(
                j->findings, "J11",
                "checkpoint.state.phase: expected \"idle\" (the turn is over, waiting for a signal), got %s", got);
        return;
    }
    if (s->phase != SIM_TOOLS || s->waiting_task == NO_INDEX) return; /* the derivation always suspends in one of two */
    const sim_task *t = &s->tasks[s->waiting_task];
    char what[EXCERPT];
    jc_describe_sim_task(t, what, sizeof what);
    if (!ts_str_eq_cstr(phase, "tools")) {
        ts_findings_add(j->findings, "J11", "checkpoint.state.phase: expected \"tools\" (waiting for %s), got %s", what,
                        got);
        return;
    }
    const ts_json *index = ts_json_get(a->state, "pendingToolIndex");
    bool index_ok =
        index && ((index->kind == TS_JSON_INT && index->u.i >= 0 && (uint64_t)index->u.i == s->call_index) ||
                  (index->kind == TS_JSON_REAL && index->u.r == (double)s->call_index));
    if (!index_ok) {
        char g[EXCERPT];
        ts_check_excerpt(index, g, sizeof g);
        ts_findings_add(j->findings, "J11", "checkpoint.state.pendingToolIndex: expected %zu (waiting for %s), got %s",
                        s->call_index, what, g);
    }
    const ts_json *pending = ts_json_get(a->state, "pendingToolCalls");
    bool calls_ok = pending && pending->kind == TS_JSON_ARRAY && pending->u.a.count == s->calls->u.a.count;
    for (size_t i = 0; calls_ok && i < pending->u.a.count; i++) {
        const ts_json *item = &pending->u.a.items[i];
        ts_str want = ts_json_string(ts_json_get(&s->calls->u.a.items[i], "callId"));
        ts_str have = item->kind == TS_JSON_STRING ? item->u.s : ts_json_string(ts_json_get(item, "callId"));
        calls_ok = ts_str_eq(want, have);
    }
    if (!calls_ok) {
        char w[EXCERPT], g[EXCERPT];
        ts_check_excerpt(s->calls, w, sizeof w);
        ts_check_excerpt(pending, g, sizeof g);
        ts_findings_add(
            j->findings, "J11",
            "checkpoint.state.pendingToolCalls: expected the calls of the last assistant entry %s (or their "
            "call ids), got %s",
            w, g);
    }
}

/* ---- J12 ---- */

void jc_check_branches(judge *j) {
    const journal_answer *a = j->answer;
    const sim *s = j->sim;
    if (!s->branched) return;
    if (a->entry_count == s->entry_count) {
        for (size_t k = 0; k < s->entry_count; k++) {
            const sim_entry *e = &s->entries[k];
            const answer_entry *got = &a->entries[k];
            if (e->origin != FROM_BRANCH || got->role != e->role || !jc_content_equal(&e->content, got->content, false))
                continue;
            ts_str want = e->parent == NO_INDEX ? (ts_str){NULL, 0} : a->entries[e->parent].id;
            if (ts_str_eq(want, got->parent_id)) continue;
            char w[EXCERPT], g[EXCERPT], from[64] = "";
            ts_check_excerpt_str_or(want, "null", w, sizeof w);
            ts_check_excerpt_str_or(got->parent_id, "null", g, sizeof g);
            if (e->parent != NO_INDEX) jc_format(from, sizeof from, ", entries[%zu]", e->parent);
            ts_findings_add(j->findings, "J12",
                            "entries[%zu] (the edit of events[%zu], at transcript position %llu): parentId expected %s "
                            "(the transcript's entry K-1%s), got %s",
                            k, e->origin_index, (unsigned long long)j->scenario->events[e->origin_index].branch_at, w,
                            from, g);
        }
    }
    if (!j->path_known) return;
    /* The abandoned branches, kept: entries off the final transcript, in commit order. */
    bool *expected_on_path = ts_arena_calloc(j->arena, s->entry_count + 1, sizeof *expected_on_path);
    if (!expected_on_path) {
        j->out_of_memory = true;
        return;
    }
    for (size_t i = 0; i < j->expected_count; i++) expected_on_path[j->expected[i]] = true;
    size_t ws = 0, gs = 0, want_total = 0, got_total = 0;
    for (size_t i = 0; i < s->entry_count; i++) want_total += !expected_on_path[i];
    for (size_t i = 0; i < a->entry_count; i++) got_total += !j->on_path[i];
    for (;;) {
        while (ws < s->entry_count && expected_on_path[ws]) ws++;
        while (gs < a->entry_count && j->on_path[gs]) gs++;
        if (ws == s->entry_count || gs == a->entry_count) break;
        const sim_entry *e = &s->entries[ws];
        const answer_entry *got = &a->entries[gs];
        if (e->role != got->role || !jc_content_equal(&e->content, got->content, e->error_free)) {
            char w[EXCERPT], g[EXCERPT];
            jc_entry_excerpt(e->role, &e->content, w, sizeof w);
            jc_entry_excerpt(got->role, got->content, g, sizeof g);
            ts_findings_add(j->findings, "J12",
                            "entries[%zu]: expected the abandoned entry %s (kept, unchanged), got %s", gs, w, g);
            return;
        }
        ws++;
        gs++;
    }
    if (want_total != got_total)
        ts_findings_add(j->findings, "J12",
                        "the journal keeps %zu entries off the transcript, expected %zu (the abandoned "
                        "branches, unchanged)",
                        got_total, want_total);
}
