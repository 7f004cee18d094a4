/* commit.c — the commit rules every store applies, and what a journal read back must hold; see
 * commit.h. */
#include "core/resume/commit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json/assert.h"
#include "core/json/buf.h"
#include "core/json/canon.h"
#include "core/json/timestamp.h"
#include "core/resume/taskid.h"

/* ---------------------------------------------------------------------- one item --------- */

/* Valid UTF-8 (no lone surrogate), as RFC 8785 requires of every string it writes. */
static bool utf8_valid(ts_str text) {
    ts_buf out;
    ts_buf_init(&out);
    ts_error ignored;
    ts_error_clear(&ignored);
    ts_json value = ts_json_make_string(text.ptr ? text : ts_str_from(""));
    bool ok = ts_canon_write(&out, &value, &ignored);
    ts_buf_free(&out);
    return ok;
}

bool ts_entry_check(const ts_entry *e, ts_error *err) {
    if (!ts_uuid_text_valid(e->id)) {
        ts_error_set(err, TS_ERR_INPUT, "entry id \"%.40s\" is not a canonical UUID", e->id);
        return false;
    }
    if (e->parent_id[0] && !ts_uuid_text_valid(e->parent_id)) {
        ts_error_set(err, TS_ERR_INPUT, "entry %s: parent id \"%.40s\" is not a canonical UUID", e->id, e->parent_id);
        return false;
    }
    if ((unsigned)e->role > TS_ENTRY_TOOL || e->content.kind != TS_JSON_OBJECT || !ts_str_nonempty(e->timestamp)) {
        ts_error_set(err, TS_ERR_INPUT, "entry %s: needs a role, an object content and a timestamp", e->id);
        return false;
    }
    ts_instant instant;
    const char *why = NULL;
    if (!ts_instant_parse(e->timestamp.ptr, e->timestamp.len, &instant, &why)) {
        ts_error_set(err, TS_ERR_INPUT, "entry %s: timestamp \"%.*s\" is not an RFC 3339 timestamp (%s)", e->id,
                     (int)(e->timestamp.len > 60 ? 60 : e->timestamp.len), e->timestamp.ptr, why ? why : "malformed");
        return false;
    }
    return true;
}

static bool key_text_valid(const char *key) {
    if (strncmp(key, "task:", 5) != 0 || strlen(key) != TS_TASK_KEY_TEXT_LEN) return false;
    for (size_t i = 5; i < TS_TASK_KEY_TEXT_LEN; i++)
        if (!((key[i] >= '0' && key[i] <= '9') || (key[i] >= 'a' && key[i] <= 'f'))) return false;
    return true;
}

bool ts_task_check(const char *execution_id, const ts_task *t, ts_error *err) {
    bool by_leaf = t->input_leaf[0] != '\0';
    if (!ts_uuid_text_valid(t->id) || !key_text_valid(t->key) || !ts_str_nonempty(t->kind) ||
        by_leaf == ts_str_present(t->input) || (unsigned)t->status > TS_TASK_FAILED) {
        ts_error_set(err, TS_ERR_INPUT, "task \"%.40s\": needs a UUID, a key (task: and 32 lowercase hex digits), a kind, one input "
                          "and a status", t->id);
        return false;
    }
    if (!utf8_valid(t->kind) || (!by_leaf && !utf8_valid(t->input))) {
        ts_error_set(err, TS_ERR_INPUT, "task %s: its kind or input is not valid UTF-8", t->id);
        return false;
    }
    if (by_leaf && (!ts_str_eq_cstr(t->kind, TS_LLM_TASK_KIND) || !ts_uuid_text_valid(t->input_leaf))) {
        ts_error_set(err, TS_ERR_INPUT, "task %s: only an llm-request task keeps its input as a transcript leaf (a canonical UUID)",
                     t->id);
        return false;
    }
    if (t->status == TS_TASK_PENDING && t->result.kind != TS_JSON_NULL) {
        ts_error_set(err, TS_ERR_INPUT, "task %s: a pending task has no result (null)", t->id);
        return false;
    }
    char id[TS_UUID_TEXT], key[TS_TASK_KEY_TEXT_LEN + 1];
    if (!ts_task_id(t->key, id, err)) return false;
    if (strcmp(id, t->id) != 0) {
        ts_error_set(err, TS_ERR_INPUT, "task %s: its id is not UUIDv5 of its key %s (that is %s)", t->id, t->key, id);
        return false;
    }
    if (by_leaf) return true;
    if (!ts_task_key(execution_id, t->kind, t->input, key, err)) return false;
    if (strcmp(key, t->key) != 0) {
        ts_error_set(err, TS_ERR_INPUT, "task %s: its key %s is not the key of its kind and input (that is %s)", t->id, t->key, key);
        return false;
    }
    return true;
}

/* ------------------------------------------------------------------------- commits ------- */

static const ts_entry *batch_entry(const ts_commit *commit, size_t before, const char *id) {
    for (size_t i = 0; i < before; i++)
        if (strcmp(commit->entries[i].id, id) == 0) return &commit->entries[i];
    return NULL;
}

/* The input of an llm-request task whose leaf may be an entry of the batch: the transcript is
 * followed through the batch and the journal (the rare case of a conflict check). */
static bool input_text_in_commit(const ts_journal *journal, const ts_commit *commit, const ts_task *task,
                                 ts_arena *arena, ts_str *out, ts_error *err) {
    if (!task->input_leaf[0] || ts_journal_find_entry(journal, task->input_leaf))
        return ts_task_input_text(journal, task, arena, out, err);
    ts_journal view; /* the journal's entries plus the batch's, in a scratch copy */
    ts_journal_init(&view);
    bool ok = true;
    for (size_t i = 0; ok && i < journal->entry_count; i++) ok = ts_journal_add_entry(&view, arena, &journal->entries[i]);
    for (size_t i = 0; ok && i < commit->entry_count; i++)
        if (!ts_journal_find_entry(&view, commit->entries[i].id)) ok = ts_journal_add_entry(&view, arena, &commit->entries[i]);
    if (!ok) ts_error_set(err, TS_ERR_NOMEM, "out of memory");
    ok = ok && ts_task_input_text(&view, task, arena, out, err);
    ts_journal_free(&view);
    return ok;
}

/* Whether two tasks of one id have the same input, whatever form each keeps it in. */
static bool same_input(const ts_journal *journal, const ts_commit *commit, const ts_task *recorded,
                       const ts_task *task, bool *same, ts_error *err) {
    if (!recorded->input_leaf[0] && !task->input_leaf[0]) {
        *same = ts_str_eq(recorded->input, task->input);
        return true;
    }
    if (strcmp(recorded->input_leaf, task->input_leaf) == 0) {
        *same = true;
        return true;
    }
    ts_arena arena;
    ts_arena_init(&arena);
    ts_str a, b;
    ts_commit none = {NULL, 0, NULL, 0, NULL};
    bool ok = ts_task_input_text(journal, recorded, &arena, &a, err) &&
              input_text_in_commit(journal, commit ? commit : &none, task, &arena, &b, err);
    if (ok) *same = ts_str_eq(a, b);
    ts_arena_free(&arena);
    return ok;
}

static bool check_entry(const ts_journal *journal, const ts_commit *commit, size_t i, bool *is_new, ts_error *err) {
    const ts_entry *e = &commit->entries[i];
    if (!ts_entry_check(e, err)) return false;
    const ts_entry *existing = ts_journal_find_entry(journal, e->id);
    if (!existing) existing = batch_entry(commit, i, e->id);
    if (existing) {
        if (!ts_entry_same(existing, e)) {
            ts_error_set(err, TS_ERR_REFUSED, "entry %s already exists with different content: an entry id is never reused", e->id);
            return false;
        }
        *is_new = false;
        return true;
    }
    if (e->parent_id[0] && !ts_journal_find_entry(journal, e->parent_id) && !batch_entry(commit, i, e->parent_id)) {
        ts_error_set(err, TS_ERR_INPUT, "entry %s: parent %s is not in the journal", e->id, e->parent_id);
        return false;
    }
    *is_new = true;
    return true;
}

static bool check_task(const ts_journal *journal, const ts_commit *commit, size_t i, bool *is_new, ts_error *err) {
    const ts_task *t = &commit->tasks[i];
    if (!ts_task_check(journal->execution_id, t, err)) return false;
    for (size_t k = 0; k < i; k++)
        if (strcmp(commit->tasks[k].id, t->id) == 0) {
            ts_error_set(err, TS_ERR_INPUT, "task %s appears twice in one commit", t->id);
            return false;
        }
    if (t->input_leaf[0] && !ts_journal_find_entry(journal, t->input_leaf) &&
        !batch_entry(commit, commit->entry_count, t->input_leaf)) {
        ts_error_set(err, TS_ERR_INPUT, "task %s: its input ends at entry %s, which is not in the journal", t->id, t->input_leaf);
        return false;
    }
    const ts_task *existing = ts_journal_find_task(journal, t->id);
    if (!existing) {
        *is_new = true;
        return true;
    }
    bool same = false;
    if (strcmp(existing->key, t->key) == 0 && ts_str_eq(existing->kind, t->kind) &&
        !same_input(journal, commit, existing, t, &same, err))
        return false;
    if (!same) {
        ts_error_set(err, TS_ERR_REFUSED, "task %s: conflict: the same task id with a different key, kind or input", t->id);
        return false;
    }
    if (existing->status == t->status && ts_json_equal(&existing->result, &t->result)) {
        *is_new = false; /* recorded already: a no-op */
        return true;
    }
    if (existing->status != TS_TASK_PENDING) {
        ts_error_set(err, TS_ERR_REFUSED, "task %s already has a recorded %s: a result is never replaced", t->id,
                     ts_task_status_name(existing->status));
        return false;
    }
    if (t->status == TS_TASK_PENDING) {
        ts_error_set(err, TS_ERR_REFUSED, "task %s: a pending task cannot be recorded again with another result", t->id);
        return false;
    }
    *is_new = true; /* pending -> completed / failed */
    return true;
}

bool ts_commit_check(const ts_journal *journal, const ts_commit *commit, bool *new_entries, bool *new_tasks,
                     ts_error *err) {
    if (!journal->execution_id[0]) {
        ts_error_set(err, TS_ERR_REFUSED, "commit before the execution began");
        return false;
    }
    for (size_t i = 0; i < commit->entry_count; i++)
        if (!check_entry(journal, commit, i, &new_entries[i], err)) return false;
    for (size_t i = 0; i < commit->task_count; i++)
        if (!check_task(journal, commit, i, &new_tasks[i], err)) return false;
    const ts_checkpoint *cp = commit->checkpoint;
    if (!cp) return true;
    uint64_t expected = journal->has_checkpoint ? journal->checkpoint.sequence + 1 : 1;
    if (expected > TS_JOURNAL_MAX_COUNT) {
        ts_error_set(err, TS_ERR_REFUSED, "checkpoint sequence %llu: the journal holds the most commits it can (%llu)",
                     (unsigned long long)expected, (unsigned long long)TS_JOURNAL_MAX_COUNT);
        return false;
    }
    if (cp->sequence != expected) {
        ts_error_set(err, TS_ERR_REFUSED, "checkpoint sequence %llu, expected %llu: a commit was lost or repeated",
                     (unsigned long long)cp->sequence, (unsigned long long)expected);
        return false;
    }
    if (cp->leaf_id[0] && !ts_journal_find_entry(journal, cp->leaf_id) &&
        !batch_entry(commit, commit->entry_count, cp->leaf_id)) {
        ts_error_set(err, TS_ERR_INPUT, "checkpoint leaf %s is not an entry", cp->leaf_id);
        return false;
    }
    uint64_t consumed_before = journal->has_checkpoint ? journal->checkpoint.signals_consumed : 0;
    if (cp->signals_consumed > journal->signal_count || cp->signals_consumed < consumed_before) {
        ts_error_set(err, TS_ERR_INPUT, "checkpoint consumes %llu signals; the inbox holds %zu and %llu were consumed before",
                     (unsigned long long)cp->signals_consumed, journal->signal_count,
                     (unsigned long long)consumed_before);
        return false;
    }
    if (cp->state.kind != TS_JSON_OBJECT) {
        ts_error_set(err, TS_ERR_INPUT, "checkpoint state must be an object");
        return false;
    }
    return true;
}

bool ts_journal_check_begin(const ts_journal *journal, const char *execution_id, bool *already, ts_error *err) {
    *already = false;
    if (journal->execution_id[0]) {
        if (strcmp(journal->execution_id, execution_id) == 0) {
            *already = true;
            return true;
        }
        ts_error_set(err, TS_ERR_REFUSED, "the store holds execution %s, not %s", journal->execution_id, execution_id);
        return false;
    }
    if (!ts_uuid_text_valid(execution_id)) {
        ts_error_set(err, TS_ERR_INPUT, "execution id \"%.40s\" is not a canonical UUID", execution_id);
        return false;
    }
    return true;
}

bool ts_journal_check_completion(const ts_journal *journal, const ts_task *task, ts_error *err) {
    const ts_task *existing = ts_journal_find_task(journal, task->id);
    if (!existing || existing->status != TS_TASK_PENDING || task->status == TS_TASK_PENDING) {
        ts_error_set(err, TS_ERR_REFUSED, "task %s is %s: only a pending task can be completed", task->id,
                     existing ? ts_task_status_name(existing->status) : "unknown");
        return false;
    }
    bool same = false;
    if (strcmp(existing->key, task->key) == 0 && ts_str_eq(existing->kind, task->kind) &&
        !same_input(journal, NULL, existing, task, &same, err))
        return false;
    if (!same) {
        ts_error_set(err, TS_ERR_REFUSED, "task %s: conflict: the same task id with a different key, kind or input", task->id);
        return false;
    }
    return true;
}

bool ts_journal_check_event(const ts_journal *journal, uint64_t events_applied, ts_error *err) {
    if (!journal->execution_id[0]) {
        ts_error_set(err, TS_ERR_REFUSED, "an event before the execution began");
        return false;
    }
    if (journal->events_applied >= TS_JOURNAL_MAX_COUNT || events_applied != journal->events_applied + 1) {
        ts_error_set(err, TS_ERR_INPUT,
                     "event %llu: the journal has applied %llu events, so the next is %llu: this write was computed "
                     "from another state of the journal (another writer applied it?)",
                     (unsigned long long)events_applied, (unsigned long long)journal->events_applied,
                     (unsigned long long)journal->events_applied + 1);
        return false;
    }
    return true;
}

#if TS_DEBUG
/* What a checked commit leaves in the journal it was applied to (commit.h): every entry of the
 * commit recorded, each a root or the child of a recorded entry; every task recorded under the
 * UUIDv5 of its key; the checkpoint one sequence further, its leaf an entry (or none), its
 * signal cursor no further than the inbox. */
static bool commit_applied(const ts_journal *j, const ts_commit *commit, uint64_t sequence_before) {
    for (size_t i = 0; i < commit->entry_count; i++) {
        const ts_entry *e = ts_journal_find_entry(j, commit->entries[i].id);
        if (!e || (e->parent_id[0] && !ts_journal_find_entry(j, e->parent_id))) return false;
    }
    for (size_t i = 0; i < commit->task_count; i++) {
        const ts_task *t = ts_journal_find_task(j, commit->tasks[i].id);
        char id[TS_UUID_TEXT_LEN + 1];
        ts_error ignored;
        ts_error_clear(&ignored);
        if (!t || !ts_task_id(t->key, id, &ignored) || strcmp(id, t->id) != 0) return false;
    }
    const ts_checkpoint *cp = &j->checkpoint;
    return !commit->checkpoint ||
           (j->has_checkpoint && cp->sequence == sequence_before + 1 &&
            (!cp->leaf_id[0] || ts_journal_find_entry(j, cp->leaf_id)) && cp->signals_consumed <= j->signal_count);
}
#endif

bool ts_commit_apply(ts_journal *journal, ts_arena *arena, const ts_commit *commit, const bool *new_entries,
                     const bool *new_tasks, ts_error *err) {
#if TS_DEBUG
    uint64_t sequence_before = journal->has_checkpoint ? journal->checkpoint.sequence : 0;
#endif
    for (size_t i = 0; i < commit->entry_count; i++)
        if (new_entries[i] && !ts_journal_add_entry(journal, arena, &commit->entries[i])) goto oom;
    for (size_t i = 0; i < commit->task_count; i++) {
        if (!new_tasks[i]) continue;
        ts_task *existing = ts_journal_find_task(journal, commit->tasks[i].id);
        if (existing) {
            ts_json result;
            if (!ts_json_clone(arena, &commit->tasks[i].result, &result)) goto oom;
            existing->status = commit->tasks[i].status;
            existing->result = result;
        } else if (!ts_journal_add_task(journal, arena, &commit->tasks[i])) {
            goto oom;
        }
    }
    if (commit->checkpoint) {
        ts_checkpoint cp = *commit->checkpoint;
        if (!ts_json_clone(arena, &commit->checkpoint->state, &cp.state)) goto oom;
        journal->checkpoint = cp;
        journal->has_checkpoint = true;
    }
    TS_ASSERT(commit_applied(journal, commit, sequence_before));
    return true;
oom:
    ts_error_set(err, TS_ERR_NOMEM, "out of memory while applying a commit");
    return false;
}

/* ------------------------------------------------------------- a journal read back ------- */

/* The keys of the tasks that keep their input as a leaf, checked in one pass over the entries
 * in commit order (parents first): each entry's transcript hash is its parent's, plus its own
 * message; a hash is kept only while a later child or task still needs it, and the last user
 * takes it over instead of copying it, so a linear transcript costs one running hash. */
typedef struct leaf_walk {
    const ts_journal *journal;
    size_t *uses;                /* per entry: children + tasks still to come */
    size_t *parent;              /* per entry: its parent's index, or SIZE_MAX */
    size_t *task_start, *task_list; /* per entry: the tasks whose input ends there */
    ts_transcript_key *prefix;   /* per entry: its transcript's hash, while uses > 0 */
    ts_buf canonical;
} leaf_walk;

static bool walk_entry(leaf_walk *w, size_t i, ts_error *err) {
    const ts_journal *j = w->journal;
    size_t p = w->parent[i];
    if (w->uses[i] == 0) { /* nothing needs this transcript: release the parent's use */
        if (p != SIZE_MAX && --w->uses[p] == 0) ts_transcript_key_free(&w->prefix[p]);
        return true;
    }
    if (p == SIZE_MAX) {
        if (!ts_transcript_key_begin(&w->prefix[i], j->execution_id, err)) return false;
    } else if (--w->uses[p] == 0) {
        w->prefix[i] = w->prefix[p]; /* the last user takes the running hash over */
        w->prefix[p].state = NULL;
    } else if (!ts_transcript_key_copy(&w->prefix[i], &w->prefix[p], err)) {
        return false;
    }
    const ts_entry *e = &j->entries[i];
    ts_buf_reset(&w->canonical);
    if (!ts_llm_message_canon(&w->canonical, ts_str_from(ts_entry_role_name(e->role)), &e->content, e->timestamp, err)) {
        char why[200];
        snprintf(why, sizeof why, "%.*s", (int)sizeof why - 1, err->message);
        ts_error_set(err, TS_ERR_INPUT, "entries[%zu] (entry %s): its message is not I-JSON: %s", i, e->id, why);
        return false;
    }
    ts_transcript_key_add(&w->prefix[i], w->canonical.data, w->canonical.len);
    for (size_t k = w->task_start[i]; k < w->task_start[i + 1]; k++) {
        const ts_task *t = &j->tasks[w->task_list[k]];
        char key[TS_TASK_KEY_TEXT_LEN + 1];
        if (!ts_transcript_key_finish(&w->prefix[i], key, err)) return false;
        if (strcmp(key, t->key) != 0) {
            ts_error_set(err, TS_ERR_INPUT,
                         "tasks[%zu] (task %s): its key %s is not the key of its input, the transcript ending at "
                         "entry %s (that is %s)",
                         w->task_list[k], t->id, t->key, t->input_leaf, key);
            return false;
        }
        w->uses[i]--;
    }
    if (w->uses[i] == 0) ts_transcript_key_free(&w->prefix[i]);
    return true;
}

/* parents: each entry's parent's index (SIZE_MAX: a root), from ts_journal_check_loaded. */
static bool check_leaf_keys(const ts_journal *j, size_t *parents, ts_error *err) {
    size_t n = j->entry_count, by_leaf = 0;
    for (size_t t = 0; t < j->task_count; t++) by_leaf += j->tasks[t].input_leaf[0] != '\0';
    if (by_leaf == 0) return true;
    leaf_walk w = {j, calloc(n + 1, sizeof(size_t)), parents, calloc(n + 2, sizeof(size_t)),
                   calloc(by_leaf + 1, sizeof(size_t)), calloc(n + 1, sizeof(ts_transcript_key)), {0}};
    ts_buf_init(&w.canonical);
    bool ok = w.uses && w.task_start && w.task_list && w.prefix;
    for (size_t i = 0; ok && i < n; i++)
        if (parents[i] != SIZE_MAX) w.uses[parents[i]]++;
    /* The tasks per leaf: counted, summed into offsets, then placed with a cursor per leaf. */
    size_t *cursor = ok ? calloc(n + 1, sizeof *cursor) : NULL;
    ok = ok && cursor;
    for (size_t t = 0; ok && t < j->task_count; t++) {
        const ts_entry *leaf = ts_journal_find_entry(j, j->tasks[t].input_leaf);
        if (leaf) w.task_start[leaf - j->entries + 1]++;
    }
    for (size_t i = 0; ok && i < n; i++) w.task_start[i + 1] += w.task_start[i];
    for (size_t t = 0; ok && t < j->task_count; t++) {
        const ts_entry *leaf = ts_journal_find_entry(j, j->tasks[t].input_leaf);
        if (!leaf) continue;
        size_t i = (size_t)(leaf - j->entries);
        w.task_list[w.task_start[i] + cursor[i]++] = t;
        w.uses[i]++;
    }
    free(cursor);
    if (!ok) ts_error_set(err, TS_ERR_NOMEM, "out of memory");
    for (size_t i = 0; ok && i < n; i++) ok = walk_entry(&w, i, err);
    for (size_t i = 0; w.prefix && i < n; i++) ts_transcript_key_free(&w.prefix[i]);
    free(w.uses);
    free(w.task_start);
    free(w.task_list);
    free(w.prefix);
    ts_buf_free(&w.canonical);
    return ok;
}

static bool check_rest(const ts_journal *j, ts_error *err);

bool ts_journal_check_loaded(const ts_journal *j, ts_error *err) {
    if (!j->execution_id[0]) {
        if (j->entry_count || j->task_count || j->signal_count || j->has_checkpoint || j->events_applied) {
            ts_error_set(err, TS_ERR_INPUT, "the journal holds entries, tasks, signals or events but no execution id");
            return false;
        }
        return true;
    }
    if (!ts_uuid_text_valid(j->execution_id)) {
        ts_error_set(err, TS_ERR_INPUT, "execution id \"%.40s\" is not a canonical UUID", j->execution_id);
        return false;
    }
    size_t *parents = malloc((j->entry_count + 1) * sizeof *parents);
    if (!parents) {
        ts_error_set(err, TS_ERR_NOMEM, "out of memory");
        return false;
    }
    /* Every id went into the index, which counts the distinct ones: as many as there are entries
     * means no id appears twice (each entry is the one its id finds), without a lookup each;
     * else the lookups below name the first one that does. */
    bool distinct = ts_journal_distinct_entry_ids(j) == j->entry_count;
    for (size_t i = 0; i < j->entry_count; i++) {
        const ts_entry *e = &j->entries[i];
        if (!distinct && ts_journal_find_entry(j, e->id) != e) { /* the index keeps the last of two */
            ts_error_set(err, TS_ERR_INPUT, "entries[%zu] (entry %s): the id appears twice", i, e->id);
            free(parents);
            return false;
        }
        const ts_entry *parent = i > 0 && strcmp(e[-1].id, e->parent_id) == 0 ? e - 1 /* most are */
                                                                              : ts_journal_find_entry(j, e->parent_id);
        if (e->parent_id[0] && (!parent || parent >= e)) {
            ts_error_set(err, TS_ERR_INPUT, "entries[%zu] (entry %s): parent %s is not an earlier entry of the journal", i, e->id,
                         e->parent_id);
            free(parents);
            return false;
        }
        parents[i] = parent ? (size_t)(parent - j->entries) : SIZE_MAX;
    }
    bool ok = check_rest(j, err) && check_leaf_keys(j, parents, err);
    free(parents);
    return ok;
}

/* Tasks, the checkpoint and the counts (ts_journal_check_loaded, after the entries). */
static bool check_rest(const ts_journal *j, ts_error *err) {
    for (size_t i = 0; i < j->task_count; i++) {
        const ts_task *t = &j->tasks[i];
        if (ts_journal_find_task(j, t->id) != t) {
            ts_error_set(err, TS_ERR_INPUT, "tasks[%zu] (task %s): the id appears twice", i, t->id);
            return false;
        }
        if (t->input_leaf[0] && !ts_journal_find_entry(j, t->input_leaf)) {
            ts_error_set(err, TS_ERR_INPUT, "tasks[%zu] (task %s): its input ends at entry %s, which is not in the journal", i,
                         t->id, t->input_leaf);
            return false;
        }
    }
    if (j->has_checkpoint) {
        const ts_checkpoint *cp = &j->checkpoint;
        if (cp->sequence < 1 || cp->sequence > TS_JOURNAL_MAX_COUNT) {
            ts_error_set(err, TS_ERR_INPUT, "checkpoint: sequence %llu is not between 1 and %llu", (unsigned long long)cp->sequence,
                         (unsigned long long)TS_JOURNAL_MAX_COUNT);
            return false;
        }
        if (cp->leaf_id[0] && !ts_journal_find_entry(j, cp->leaf_id)) {
            ts_error_set(err, TS_ERR_INPUT, "checkpoint: leaf %.40s is not an entry", cp->leaf_id);
            return false;
        }
        if (cp->signals_consumed > j->signal_count) {
            ts_error_set(err, TS_ERR_INPUT, "checkpoint: %llu signals consumed, but the inbox holds %zu",
                         (unsigned long long)cp->signals_consumed, j->signal_count);
            return false;
        }
        if (cp->state.kind != TS_JSON_OBJECT) {
            ts_error_set(err, TS_ERR_INPUT, "checkpoint: the state is not an object");
            return false;
        }
    }
    if (j->events_applied > TS_JOURNAL_MAX_COUNT || j->events_applied < j->signal_count) {
        ts_error_set(err, TS_ERR_INPUT, "eventsApplied %llu: not between the %zu signals delivered (one event each) and %llu",
                     (unsigned long long)j->events_applied, j->signal_count, (unsigned long long)TS_JOURNAL_MAX_COUNT);
        return false;
    }
    return true;
}
