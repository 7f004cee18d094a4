/* commit.c — the commit rules every store applies; see commit.h. */
#include "core/resume/commit.h"

#include <string.h>

/* ------------------------------------------------------------------------- commits ------- */

static const ts_entry *batch_entry(const ts_commit *commit, size_t before, const char *id) {
    for (size_t i = 0; i < before; i++)
        if (strcmp(commit->entries[i].id, id) == 0) return &commit->entries[i];
    return NULL;
}

static bool check_entry(const ts_journal *journal, const ts_commit *commit, size_t i, bool *is_new, ts_error *err) {
    const ts_entry *e = &commit->entries[i];
    if (!ts_uuid_text_valid(e->id)) {
        ts_error_set(err, "entry id \"%s\" is not a canonical UUID", e->id);
        return false;
    }
    if (e->parent_id[0] && !ts_uuid_text_valid(e->parent_id)) {
        ts_error_set(err, "entry %s: parent id \"%s\" is not a canonical UUID", e->id, e->parent_id);
        return false;
    }
    if ((unsigned)e->role > TS_ENTRY_TOOL || e->content.kind != TS_JSON_OBJECT || !ts_str_nonempty(e->timestamp)) {
        ts_error_set(err, "entry %s: needs a role, an object content and a timestamp", e->id);
        return false;
    }
    const ts_entry *existing = ts_journal_find_entry(journal, e->id);
    if (!existing) existing = batch_entry(commit, i, e->id);
    if (existing) {
        if (!ts_entry_same(existing, e)) {
            ts_error_set(err, "entry %s already exists with different content: an entry id is never reused", e->id);
            return false;
        }
        *is_new = false;
        return true;
    }
    if (e->parent_id[0] && !ts_journal_find_entry(journal, e->parent_id) && !batch_entry(commit, i, e->parent_id)) {
        ts_error_set(err, "entry %s: parent %s is not in the journal", e->id, e->parent_id);
        return false;
    }
    *is_new = true;
    return true;
}

static bool check_task(const ts_journal *journal, const ts_commit *commit, size_t i, bool *is_new, ts_error *err) {
    const ts_task *t = &commit->tasks[i];
    if (!ts_uuid_text_valid(t->id) || strncmp(t->key, "task:", 5) != 0 || !ts_str_nonempty(t->kind) ||
        !ts_str_present(t->input) || (unsigned)t->status > TS_TASK_FAILED) {
        ts_error_set(err, "task \"%s\": needs a UUID, a task: key, a kind, an input and a status", t->id);
        return false;
    }
    for (size_t k = 0; k < i; k++)
        if (strcmp(commit->tasks[k].id, t->id) == 0) {
            ts_error_set(err, "task %s appears twice in one commit", t->id);
            return false;
        }
    const ts_task *existing = ts_journal_find_task(journal, t->id);
    if (!existing) {
        *is_new = true;
        return true;
    }
    if (strcmp(existing->key, t->key) != 0 || !ts_str_eq(existing->kind, t->kind) ||
        !ts_str_eq(existing->input, t->input)) {
        ts_error_set(err, "task %s: conflict: the same task id with a different key, kind or input", t->id);
        return false;
    }
    if (existing->status == t->status && ts_json_equal(&existing->result, &t->result)) {
        *is_new = false; /* recorded already: a no-op */
        return true;
    }
    if (existing->status != TS_TASK_PENDING) {
        ts_error_set(err, "task %s already has a recorded %s: a result is never replaced", t->id,
                     ts_task_status_name(existing->status));
        return false;
    }
    if (t->status == TS_TASK_PENDING) {
        ts_error_set(err, "task %s: a pending task cannot be recorded again with another result", t->id);
        return false;
    }
    *is_new = true; /* pending -> completed / failed */
    return true;
}

bool ts_commit_check(const ts_journal *journal, const ts_commit *commit, bool *new_entries, bool *new_tasks,
                     ts_error *err) {
    if (!journal->execution_id[0]) {
        ts_error_set(err, "commit before the execution began");
        return false;
    }
    for (size_t i = 0; i < commit->entry_count; i++)
        if (!check_entry(journal, commit, i, &new_entries[i], err)) return false;
    for (size_t i = 0; i < commit->task_count; i++)
        if (!check_task(journal, commit, i, &new_tasks[i], err)) return false;
    const ts_checkpoint *cp = commit->checkpoint;
    if (!cp) return true;
    uint64_t expected = journal->has_checkpoint ? journal->checkpoint.sequence + 1 : 1;
    if (cp->sequence != expected) {
        ts_error_set(err, "checkpoint sequence %llu, expected %llu: a commit was lost or repeated",
                     (unsigned long long)cp->sequence, (unsigned long long)expected);
        return false;
    }
    if (cp->leaf_id[0] && !ts_journal_find_entry(journal, cp->leaf_id) &&
        !batch_entry(commit, commit->entry_count, cp->leaf_id)) {
        ts_error_set(err, "checkpoint leaf %s is not an entry", cp->leaf_id);
        return false;
    }
    uint64_t consumed_before = journal->has_checkpoint ? journal->checkpoint.signals_consumed : 0;
    if (cp->signals_consumed > journal->signal_count || cp->signals_consumed < consumed_before) {
        ts_error_set(err, "checkpoint consumes %llu signals; the inbox holds %zu and %llu were consumed before",
                     (unsigned long long)cp->signals_consumed, journal->signal_count,
                     (unsigned long long)consumed_before);
        return false;
    }
    if (cp->state.kind != TS_JSON_OBJECT) {
        ts_error_set(err, "checkpoint state must be an object");
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
        ts_error_set(err, "the store holds execution %s, not %s", journal->execution_id, execution_id);
        return false;
    }
    if (!ts_uuid_text_valid(execution_id)) {
        ts_error_set(err, "execution id \"%.40s\" is not a canonical UUID", execution_id);
        return false;
    }
    return true;
}

bool ts_journal_check_completion(const ts_journal *journal, const ts_task *task, ts_error *err) {
    const ts_task *existing = ts_journal_find_task(journal, task->id);
    if (!existing || existing->status != TS_TASK_PENDING || task->status == TS_TASK_PENDING) {
        ts_error_set(err, "task %s is %s: only a pending task can be completed", task->id,
                     existing ? ts_task_status_name(existing->status) : "unknown");
        return false;
    }
    if (strcmp(existing->key, task->key) != 0 || !ts_str_eq(existing->kind, task->kind) ||
        !ts_str_eq(existing->input, task->input)) {
        ts_error_set(err, "task %s: conflict: the same task id with a different key, kind or input", task->id);
        return false;
    }
    return true;
}

bool ts_commit_apply(ts_journal *journal, ts_arena *arena, const ts_commit *commit, const bool *new_entries,
                     const bool *new_tasks, ts_error *err) {
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
    return true;
oom:
    ts_error_set(err, "out of memory while applying a commit");
    return false;
}

