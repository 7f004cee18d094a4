/* journal_checks.c — the reference profile's checkers (SPEC.md §6, J1-J12): J1-J6 and the
 * entry point; see journal_checks.h.
 *
 * Four modules: reading the answer (journal_answer.c; a malformed one is reported under J2),
 * deriving the expected execution from the scenario (journal_sim.c), and one function per rule
 * comparing the two (J1-J6 here, J7-J12 in journal_rules.c), both over the judge's helpers
 * (journal_judge.c). Which readings' findings fail is findings.h's policy. Nothing here calls
 * core/resume/engine.h or a store.
 */
#include "conformance/checkers/journal/journal_checks.h"

#include <stdio.h>
#include <string.h>

#include "conformance/checkers/journal/journal_judge.h"
#include "core/json/buf.h"
#include "core/json/canon.h"

/* ---- J1 ---- */

static bool uuid_v4_text(ts_str s) {
    if (s.len != 36) return false;
    for (size_t i = 0; i < 36; i++) {
        char c = s.ptr[i];
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? c != '-' : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    }
    return s.ptr[14] == '4' && strchr("89ab", s.ptr[19]) != NULL;
}

/* The positions of a UUIDv4's 30 wholly random hex digits (not the dashes, the version digit
 * or the variant digit). */
static bool random_digit(size_t i) { return i != 8 && i != 13 && i != 14 && i != 18 && i != 19 && i != 23; }

/* "Version 4 (random)", judged statistically: among 30 random hex digits, 20 or more zeros has
 * odds below 1e-16, and two ids agreeing on 24 or more positions below 1e-22, so a finding is
 * a counter or a clock, never bad luck. Only consecutive entries are compared (what a counter
 * makes alike), which keeps this linear. */
static void check_randomness(judge *j, size_t i) {
    const journal_answer *a = j->answer;
    ts_str id = a->entries[i].id;
    size_t zeros = 0;
    for (size_t k = 0; k < 36; k++) zeros += random_digit(k) && id.ptr[k] == '0';
    char text[EXCERPT];
    ts_check_excerpt_str_or(id, "null", text, sizeof text);
    if (zeros >= 20) {
        ts_findings_add(
            j->findings, "J1",
            "entries[%zu].entryId %s has %zu zeros among its 30 random hex digits: not a random (version 4) "
            "UUID (a counter?)",
            i, text, zeros);
        return;
    }
    if (i == 0 || !uuid_v4_text(a->entries[i - 1].id) || ts_str_eq(a->entries[i - 1].id, id)) return;
    size_t same = 0;
    for (size_t k = 0; k < 36; k++) same += random_digit(k) && id.ptr[k] == a->entries[i - 1].id.ptr[k];
    if (same >= 24) {
        char previous[EXCERPT];
        ts_check_excerpt_str_or(a->entries[i - 1].id, "null", previous, sizeof previous);
        ts_findings_add(
            j->findings, "J1",
            "entries[%zu].entryId %s and entries[%zu].entryId %s agree on %zu of their 30 random hex digits: "
            "not independent random (version 4) UUIDs (a counter?)",
            i - 1, previous, i, text, same);
    }
}

static void check_entry_ids(judge *j) {
    const journal_answer *a = j->answer;
    for (size_t i = 0; i < a->entry_count; i++) {
        char id[EXCERPT];
        ts_check_excerpt_str_or(a->entries[i].id, "null", id, sizeof id);
        if (!uuid_v4_text(a->entries[i].id))
            ts_findings_add(j->findings, "J1",
                            "entries[%zu].entryId %s is not a canonical version-4 UUID (lowercase 8-4-4-4-12 hex, "
                            "version digit 4, variant digit 8, 9, a or b)",
                            i, id);
        else
            check_randomness(j, i);
        size_t first = jc_entry_index(j, a->entries[i].id);
        if (first != i) {
            char e1[EXCERPT], e2[EXCERPT];
            jc_entry_excerpt(a->entries[first].role, a->entries[first].content, e1, sizeof e1);
            jc_entry_excerpt(a->entries[i].role, a->entries[i].content, e2, sizeof e2);
            ts_findings_add(j->findings, "J1", "entries[%zu] (%s) and entries[%zu] (%s) share the entry id %s", first,
                            e1, i, e2, id);
        }
    }
}

/* ---- J2 ---- */

static void check_tree(judge *j) {
    const journal_answer *a = j->answer;
    if (!ts_str_eq(a->execution_id, ts_str_from(j->scenario->execution_id))) {
        char got[EXCERPT];
        ts_check_excerpt_str_or(a->execution_id, "null", got, sizeof got);
        ts_findings_add(j->findings, "J2", "executionId: expected \"%s\" (the scenario's), got %s",
                        j->scenario->execution_id, got);
    }
    bool parents_known = true;
    for (size_t i = 0; i < a->entry_count; i++) {
        if (a->entries[i].parent_id.ptr && jc_entry_index(j, a->entries[i].parent_id) == NO_INDEX) {
            char got[EXCERPT];
            ts_check_excerpt_str_or(a->entries[i].parent_id, "null", got, sizeof got);
            ts_findings_add(j->findings, "J2", "entries[%zu].parentId %s names no entry of the journal", i, got);
            parents_known = false;
        }
    }
    /* Cycles, in linear time: walk up from each entry not yet known to reach a root. */
    enum { UNSEEN, ON_THIS_WALK, REACHES_ROOT };
    unsigned char *seen = parents_known ? ts_arena_calloc(j->arena, a->entry_count + 1, 1) : NULL;
    if (parents_known && !seen) {
        j->out_of_memory = true;
        return;
    }
    for (size_t i = 0; parents_known && i < a->entry_count; i++) {
        size_t at = i;
        while (at != NO_INDEX && seen[at] == UNSEEN) {
            seen[at] = ON_THIS_WALK;
            at = jc_entry_index(j, a->entries[at].parent_id);
        }
        if (at != NO_INDEX && seen[at] == ON_THIS_WALK) {
            ts_findings_add(j->findings, "J2",
                            "entries[%zu]: following parentId from it never reaches a root (the parents form a cycle)",
                            i);
            parents_known = false;
        }
        for (at = i; at != NO_INDEX && seen[at] == ON_THIS_WALK; at = jc_entry_index(j, a->entries[at].parent_id))
            seen[at] = REACHES_ROOT;
    }
    j->on_path = ts_arena_calloc(j->arena, a->entry_count + 1, sizeof *j->on_path);
    if (!j->on_path) {
        j->out_of_memory = true;
        return;
    }
    if (!a->leaf_id.ptr) {
        j->path_known = true; /* an empty path */
    } else {
        size_t leaf = jc_entry_index(j, a->leaf_id);
        char got[EXCERPT];
        ts_check_excerpt_str_or(a->leaf_id, "null", got, sizeof got);
        if (leaf == NO_INDEX)
            ts_findings_add(j->findings, "J2", "checkpoint.leafId %s names no entry of the journal", got);
        else if (parents_known)
            j->path_known = jc_answer_path(j, leaf, &j->path, &j->path_count);
    }
    if (!j->path_known) return;
    for (size_t i = 0; i < j->path_count; i++) j->on_path[j->path[i]] = true;
    size_t n = a->transcript_count < j->path_count ? a->transcript_count : j->path_count;
    for (size_t i = 0; i < n; i++) {
        const answer_entry *want = &a->entries[j->path[i]];
        if (!ts_json_equal(a->transcript[i].json, want->json)) {
            char w[EXCERPT], g[EXCERPT];
            ts_check_excerpt(want->json, w, sizeof w);
            ts_check_excerpt(a->transcript[i].json, g, sizeof g);
            ts_findings_add(j->findings, "J2",
                            "transcript[%zu]: expected entries[%zu] %s (the path from the root to the checkpoint's "
                            "leaf), got %s",
                            i, j->path[i], w, g);
        }
    }
    if (a->transcript_count != j->path_count)
        ts_findings_add(
            j->findings, "J2",
            "transcript has %zu entries; the path from the root to the checkpoint's leaf in \"entries\" has "
            "%zu",
            a->transcript_count, j->path_count);
}

/* ---- J3 ---- */

static void check_transcript(judge *j) {
    const journal_answer *a = j->answer;
    const sim *s = j->sim;
    size_t n = a->transcript_count < j->expected_count ? a->transcript_count : j->expected_count;
    for (size_t i = 0; i < n; i++) {
        const sim_entry *want = &s->entries[j->expected[i]];
        const answer_entry *got = &a->transcript[i];
        if (want->role == got->role && jc_content_equal(&want->content, got->content, want->error_free)) continue;
        char w[EXCERPT], g[EXCERPT];
        jc_entry_excerpt(want->role, &want->content, w, sizeof w);
        jc_entry_excerpt(got->role, got->content, g, sizeof g);
        ts_findings_add(j->findings, "J3", "transcript[%zu]: expected %s, got %s", i, w, g);
    }
    if (a->transcript_count < j->expected_count) {
        char w[EXCERPT];
        const sim_entry *missing = &s->entries[j->expected[a->transcript_count]];
        jc_entry_excerpt(missing->role, &missing->content, w, sizeof w);
        ts_findings_add(j->findings, "J3", "transcript has %zu entries, expected %zu: transcript[%zu] should be %s",
                        a->transcript_count, j->expected_count, a->transcript_count, w);
    } else if (a->transcript_count > j->expected_count) {
        char g[EXCERPT];
        const answer_entry *extra = &a->transcript[j->expected_count];
        jc_entry_excerpt(extra->role, extra->content, g, sizeof g);
        ts_findings_add(j->findings, "J3",
                        "transcript has %zu entries, expected %zu: transcript[%zu] is %s, one too many",
                        a->transcript_count, j->expected_count, j->expected_count, g);
    }
}

/* ---- J4 ---- */

static void role_counts_text(const size_t counts[3], char *out, size_t max) {
    jc_format(out, max, "%zu (%zu user, %zu assistant, %zu tool)", counts[0] + counts[1] + counts[2], counts[0],
                counts[1], counts[2]);
}

static void check_entry_counts(judge *j) {
    const journal_answer *a = j->answer;
    const sim *s = j->sim;
    size_t want[3] = {0, 0, 0}, got[3] = {0, 0, 0};
    for (size_t i = 0; i < s->entry_count; i++) want[s->entries[i].role]++;
    for (size_t i = 0; i < a->entry_count; i++) got[a->entries[i].role]++;
    if (memcmp(want, got, sizeof want) != 0) {
        char w[120], g[120];
        role_counts_text(want, w, sizeof w);
        role_counts_text(got, g, sizeof g);
        ts_findings_add(j->findings, "J4", "entries: expected %s, abandoned branches included; got %s", w, g);
        return;
    }
    for (size_t i = 0; i < a->entry_count; i++) {
        const sim_entry *e = &s->entries[i];
        if (e->role == a->entries[i].role && jc_content_equal(&e->content, a->entries[i].content, e->error_free)) continue;
        char w[EXCERPT], g[EXCERPT];
        jc_entry_excerpt(e->role, &e->content, w, sizeof w);
        jc_entry_excerpt(a->entries[i].role, a->entries[i].content, g, sizeof g);
        ts_findings_add(j->findings, "J4", "entries[%zu] (in commit order): expected %s, got %s", i, w, g);
    }
}

/* ---- J5 ---- */

static void check_task_names(judge *j) {
    const journal_answer *a = j->answer;
    for (size_t i = 0; i < a->task_count; i++) {
        const answer_task *t = &a->tasks[i];
        ts_json parsed;
        ts_error err;
        ts_error_clear(&err);
        ts_str canonical = t->input;
        if (!ts_canon_parse(j->arena, t->input.ptr, t->input.len, &parsed, &err)) {
            ts_findings_add(j->findings, "J5", "tasks[%zu].input is not I-JSON text (line %d, column %d: %s)", i,
                            err.line, err.column, err.message);
        } else {
            ts_buf buf;
            ts_buf_init(&buf);
            if (!ts_canon_write(&buf, &parsed, &err)) {
                ts_findings_add(j->findings, "J5", "tasks[%zu].input cannot be canonicalised: %s", i, err.message);
            } else if (buf.len != t->input.len || memcmp(buf.data, t->input.ptr, buf.len) != 0) {
                char w[EXCERPT], g[EXCERPT];
                ts_check_excerpt_str_or((ts_str){buf.data, buf.len}, "null", w, sizeof w);
                ts_check_excerpt_str_or(t->input, "null", g, sizeof g);
                ts_findings_add(j->findings, "J5",
                                "tasks[%zu].input is not in RFC 8785 canonical form: expected %s, got %s", i, w, g);
                char *copy = ts_arena_strndup(j->arena, buf.data, buf.len);
                if (copy)
                    canonical = (ts_str){copy, buf.len};
                else
                    j->out_of_memory = true;
            }
            if (buf.failed) j->out_of_memory = true;
            ts_buf_free(&buf);
        }
        char key[TS_TASK_KEY_TEXT_LEN + 1], id[TS_UUID_TEXT_LEN + 1];
        if (!ts_task_key(j->scenario->execution_id, t->kind, canonical, key, &err)) continue;
        if (!ts_str_eq_cstr(t->key, key)) {
            char g[EXCERPT], kind[EXCERPT];
            ts_check_excerpt_str_or(t->key, "null", g, sizeof g);
            ts_check_excerpt_str_or(t->kind, "null", kind, sizeof kind);
            ts_findings_add(j->findings, "J5",
                            "tasks[%zu].key: expected \"%s\" (SHA-256 of execution %s, kind %s and the canonical "
                            "input), got %s",
                            i, key, j->scenario->execution_id, kind, g);
        }
        if (t->key.len == TS_TASK_KEY_TEXT_LEN && !memchr(t->key.ptr, '\0', t->key.len)) {
            char given[TS_TASK_KEY_TEXT_LEN + 1];
            memcpy(given, t->key.ptr, t->key.len);
            given[t->key.len] = '\0';
            if (ts_task_id(given, id, &err) && !ts_str_eq_cstr(t->id, id)) {
                char g[EXCERPT];
                ts_check_excerpt_str_or(t->id, "null", g, sizeof g);
                ts_findings_add(j->findings, "J5",
                                "tasks[%zu].taskId: expected \"%s\" (UUIDv5 of its key \"%s\"), got %s", i, id, given,
                                g);
            }
        }
    }
}

/* ---- J6 ---- */

/* The answer task (not yet matched) that stands for sim task t under another name: for a tool
 * call, the task of that kind whose input names the same call id; for an LLM task, the one
 * whose input is the same value. NO_INDEX when none. */
static size_t misnamed_task(judge *j, const sim_task *t, const bool *matched) {
    for (size_t i = 0; i < j->answer->task_count; i++) {
        const answer_task *at = &j->answer->tasks[i];
        if (matched[i] || !ts_str_eq(at->kind, t->kind)) continue;
        ts_json parsed;
        ts_error err;
        if (!ts_canon_parse(j->arena, at->input.ptr, at->input.len, &parsed, &err)) continue;
        if (t->llm_answer != NO_INDEX ? ts_json_equal(&parsed, &t->input)
                                      : ts_str_eq(ts_json_string(ts_json_get(&parsed, "callId")), t->call_id))
            return i;
    }
    return NO_INDEX;
}

/* J6: no two of the answer's tasks share a task id. */
static void check_task_ids_unique(judge *j) {
    const journal_answer *a = j->answer;
    ts_strmap by_id;
    ts_strmap_init(&by_id);
    for (size_t i = 0; i < a->task_count; i++) {
        size_t first;
        if (ts_strmap_get(&by_id, 0, a->tasks[i].id, &first)) {
            char id[EXCERPT];
            ts_check_excerpt_str_or(a->tasks[i].id, "null", id, sizeof id);
            ts_findings_add(j->findings, "J6",
                            "tasks[%zu] and tasks[%zu] share the task id %s: a task is recorded once", first, i, id);
        } else if (!ts_strmap_put(&by_id, 0, a->tasks[i].id, i)) {
            j->out_of_memory = true;
        }
    }
    ts_strmap_free(&by_id);
}

/* J6: the answer's task got (tasks[i]), matched to sim task t (described as what), has t's status
 * and result. */
static void check_task_state(judge *j, const sim_task *t, const answer_task *got, size_t i, const char *what) {
    bool status_ok = got->status == t->status || (t->status_open && got->status == TS_TASK_PENDING);
    if (!status_ok) {
        ts_findings_add(j->findings, "J6", "tasks[%zu] (%s): status expected %s%s, got %s", i, what,
                        ts_task_status_name(t->status), t->status_open ? " or pending (an edit abandoned it)" : "",
                        ts_task_status_name(got->status));
        return;
    }
    const ts_json null_value = ts_json_make_null();
    const ts_json *want = got->status == TS_TASK_PENDING ? &null_value : &t->result;
    bool same = got->status == TS_TASK_PENDING ? ts_json_equal(&got->result, want)
                : t->error_free ? got->result.kind == TS_JSON_STRING
                                : jc_content_equal(want, &got->result, false);
    if (!same) {
        char w[EXCERPT], g[EXCERPT];
        ts_check_excerpt(want, w, sizeof w);
        ts_check_excerpt(&got->result, g, sizeof g);
        ts_findings_add(j->findings, "J6", "tasks[%zu] (%s, %s): result expected %s, got %s", i, what,
                        ts_task_status_name(got->status), w, g);
    }
}

static void check_tasks(judge *j) {
    const journal_answer *a = j->answer;
    const sim *s = j->sim;
    bool *matched = ts_arena_calloc(j->arena, a->task_count + 1, sizeof *matched);
    if (!matched) {
        j->out_of_memory = true;
        return;
    }
    check_task_ids_unique(j);
    for (size_t k = 0; k < s->task_count; k++) {
        const sim_task *t = &s->tasks[k];
        char what[EXCERPT];
        jc_describe_sim_task(t, what, sizeof what);
        size_t i = jc_task_index(j, ts_str_from(t->key));
        if (i != NO_INDEX && matched[i]) i = NO_INDEX;
        if (i == NO_INDEX) {
            i = misnamed_task(j, t, matched);
            if (i != NO_INDEX) {
                char w[EXCERPT], g[EXCERPT];
                ts_check_excerpt_str_or(t->canonical, "null", w, sizeof w);
                ts_check_excerpt_str_or(a->tasks[i].input, "null", g, sizeof g);
                ts_findings_add(j->findings, "J5",
                                "tasks[%zu] is %s but is not named by its content: input expected %s (key %s), got %s",
                                i, what, w, t->key, g);
            }
        }
        if (i == NO_INDEX) {
            char input[EXCERPT];
            ts_check_excerpt_str_or(t->canonical, "null", input, sizeof input);
            ts_findings_add(j->findings, "J6",
                            "no task of tasks is %s: expected kind \"%.*s\", taskId %s, key %s, input %s", what,
                            (int)t->kind.len, t->kind.ptr, t->id, t->key, input);
            continue;
        }
        matched[i] = true;
        check_task_state(j, t, &a->tasks[i], i, what);
    }
    for (size_t i = 0; i < a->task_count; i++) {
        if (matched[i]) continue;
        char kind[EXCERPT], key[EXCERPT];
        ts_check_excerpt_str_or(a->tasks[i].kind, "null", kind, sizeof kind);
        ts_check_excerpt_str_or(a->tasks[i].key, "null", key, sizeof key);
        ts_findings_add(
            j->findings, "J6",
            "tasks[%zu] (kind %s, key %s, status %s) is not a task of the scenario's execution (run twice, or "
            "named from another input)",
            i, kind, key, ts_task_status_name(a->tasks[i].status));
    }
}

/* ------------------------------------------------------------------------ the entry ---- */

/* Every check, for one derivation (one reading of SPEC §6.1), into j->findings. */
static void judge_all(judge *j) {
    sim *s = j->sim;
    if (!s->out_of_memory && !s->stuck) j->expected = jc_sim_path(s, s->leaf, &j->expected_count);
    check_entry_ids(j);
    check_tree(j);
    if (s->stuck) ts_findings_add(j->findings, "J3", "the scenario cannot be run to its end: %s", s->stuck_why);
    bool derived = !s->stuck && !s->out_of_memory && !j->out_of_memory;
    if (derived) {
        check_transcript(j);
        check_entry_counts(j);
    }
    check_task_names(j);
    if (derived) check_tasks(j);
    jc_check_llm_inputs(j);
    jc_check_timestamps(j);
    jc_check_tool_runs(j);
    if (derived) {
        jc_check_signals(j);
        jc_check_checkpoint(j);
        jc_check_branches(j);
    }
}

/* Index maps of the answer (first occurrence of each entry id and task key). */
static bool index_answer(const journal_answer *a, ts_strmap *entry_by_id, ts_strmap *task_by_key) {
    size_t first;
    for (size_t i = 0; i < a->entry_count; i++)
        if (!ts_strmap_get(entry_by_id, 0, a->entries[i].id, &first) &&
            !ts_strmap_put(entry_by_id, 0, a->entries[i].id, i))
            return false;
    for (size_t i = 0; i < a->task_count; i++)
        if (!ts_strmap_get(task_by_key, 0, a->tasks[i].key, &first) &&
            !ts_strmap_put(task_by_key, 0, a->tasks[i].key, i))
            return false;
    return true;
}

bool ts_check_journal(const ts_scenario *scenario, const ts_json *journal_answer_json, ts_findings *findings) {
    ts_arena arena;
    ts_arena_init(&arena);
    journal_answer answer;
    char why[600];
    if (!jc_read_answer(journal_answer_json, &arena, &answer, why, sizeof why)) {
        if (why[0]) ts_findings_add(findings, "J2", "the journal answer is malformed: %s", why);
        ts_arena_free(&arena);
        return why[0] != '\0';
    }
    ts_strmap entry_by_id, task_by_key;
    ts_strmap_init(&entry_by_id);
    ts_strmap_init(&task_by_key);
    bool ok = index_answer(&answer, &entry_by_id, &task_by_key);
    /* Judge under each reading SPEC allows; keep the verdict of the one the answer fits best. */
    ts_findings verdicts[READING_COUNT];
    size_t best = 0;
    bool readings_differ = false;
    for (size_t r = 0; r < READING_COUNT; r++) ts_findings_init(&verdicts[r]);
    for (size_t r = 0; ok && r < READING_COUNT && (r == 0 || readings_differ); r++) {
        sim s;
        memset(&s, 0, sizeof s);
        s.scenario = scenario;
        s.answer = &answer;
        s.arena = &arena;
        s.reading = (sim_reading)r;
        jc_sim_execute(&s);
        readings_differ |= s.event_while_pending;
        judge j;
        memset(&j, 0, sizeof j);
        j.scenario = scenario;
        j.answer = &answer;
        j.sim = &s;
        j.entry_by_id = entry_by_id;
        j.task_by_key = task_by_key;
        j.findings = &verdicts[r];
        j.arena = &arena;
        judge_all(&j);
        ok = !s.out_of_memory && !j.out_of_memory;
        size_t have = ts_findings_failing(&verdicts[r]), had = ts_findings_failing(&verdicts[best]);
        if (r > 0 && (have < had || (have == had && verdicts[r].count < verdicts[best].count))) best = r;
    }
    for (size_t i = 0; i < verdicts[best].count; i++)
        ts_findings_add(findings, verdicts[best].items[i].rule, "%s", verdicts[best].items[i].message);
    findings->suppressed += verdicts[best].suppressed;
    for (size_t r = 0; r < READING_COUNT; r++) ts_findings_free(&verdicts[r]);
    ts_strmap_free(&entry_by_id);
    ts_strmap_free(&task_by_key);
    ts_arena_free(&arena);
    return ok;
}

bool ts_check_journal_after_crash(const ts_scenario *scenario, const ts_json *journal_answer_json,
                                  long crash_before_commit, ts_findings *findings) {
    ts_findings local;
    ts_findings_init(&local);
    bool ok = ts_check_journal(scenario, journal_answer_json, &local);
    for (size_t i = 0; i < local.count; i++) {
        if (ts_rule_fails(local.items[i].rule) && strcmp(local.items[i].rule, "J13") != 0)
            ts_findings_add_named(findings, "J13", local.items[i].rule, "after a crash before commit %ld: [%s] %s",
                                  crash_before_commit, local.items[i].rule, local.items[i].message);
        else
            ts_findings_add(findings, local.items[i].rule, "%s", local.items[i].message);
    }
    findings->suppressed += local.suppressed;
    ts_findings_free(&local);
    return ok;
}

bool ts_journal_json_renumbered(const ts_json *journal, ts_arena *arena, ts_json *out) {
    if (!ts_journal_json_without_ids(journal, arena, out)) return false;
    const ts_json *tasks = ts_json_get(out, "tasks");
    if (!tasks || tasks->kind != TS_JSON_ARRAY) return true;
    for (size_t i = 0; i < tasks->u.a.count; i++) {
        ts_json *t = &tasks->u.a.items[i];
        if (t->kind != TS_JSON_OBJECT) continue;
        char number[32];
        snprintf(number, sizeof number, "#t%zu", i);
        ts_str text = ts_str_dup(arena, ts_str_from(number));
        if (!text.ptr) return false;
        for (size_t m = 0; m < t->u.o.count; m++)
            if (ts_str_eq_cstr(t->u.o.members[m].key, "taskId") || ts_str_eq_cstr(t->u.o.members[m].key, "key"))
                t->u.o.members[m].value = ts_json_make_string(text);
    }
    return true;
}
