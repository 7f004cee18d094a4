/* store_memory.c — the in-memory store; see store_memory.h. */
#include "core/resume/store_memory.h"

#include <stdlib.h>
#include <string.h>

typedef struct memory_store {
    ts_store base; /* first: a memory_store * is a ts_store * */
    ts_arena arena;
    ts_journal journal;
    uint64_t writes;
    uint64_t fail_at; /* 0: never */
    bool broken;      /* a commit ran out of memory half-applied: every later call is refused */
} memory_store;

static memory_store *self_of(ts_store *store) { return (memory_store *)store; }

/* Counts a write call; true when this one must fail (or the store is broken). */
static bool injected_failure(memory_store *s, ts_error *err) {
    if (s->broken) {
        ts_error_set(err, TS_ERR_NOMEM, "the store ran out of memory in the middle of a commit; reopen it");
        return true;
    }
    s->writes++;
    if (s->fail_at && s->writes == s->fail_at) {
        ts_error_set(err, TS_ERR_IO, "injected I/O error at write %llu", (unsigned long long)s->writes);
        return true;
    }
    return false;
}

static bool memory_load(ts_store *store, ts_arena *arena, ts_journal *out, ts_error *err) {
    if (self_of(store)->broken) {
        ts_journal_init(out);
        ts_error_set(err, TS_ERR_NOMEM, "the store ran out of memory in the middle of a commit; reopen it");
        return false;
    }
    ts_journal_init(out);
    if (ts_journal_copy(&self_of(store)->journal, arena, out)) return true;
    ts_error_set(err, TS_ERR_NOMEM, "out of memory while loading the journal");
    return false;
}

static bool memory_begin_execution(ts_store *store, const char *execution_id, ts_error *err) {
    memory_store *s = self_of(store);
    bool already;
    if (!ts_journal_check_begin(&s->journal, execution_id, &already, err)) return false;
    if (already) return true;
    if (injected_failure(s, err)) return false;
    memcpy(s->journal.execution_id, execution_id, TS_UUID_TEXT);
    return true;
}

static bool memory_commit(ts_store *store, const ts_commit *commit, ts_error *err) {
    memory_store *s = self_of(store);
    bool *fresh = calloc(commit->entry_count + commit->task_count + 1, sizeof *fresh);
    if (!fresh) {
        ts_error_set(err, TS_ERR_NOMEM, "out of memory");
        return false;
    }
    bool ok = ts_commit_check(&s->journal, commit, fresh, fresh + commit->entry_count, err) &&
              !injected_failure(s, err);
    if (ok && !ts_commit_apply(&s->journal, &s->arena, commit, fresh, fresh + commit->entry_count, err)) {
        s->broken = true; /* possibly half-applied: never let anyone read or extend it */
        ok = false;
    }
    free(fresh);
    return ok;
}

static bool memory_deliver_signal(ts_store *store, const ts_json *signal, uint64_t events_applied, ts_error *err) {
    memory_store *s = self_of(store);
    if (!ts_journal_check_event(&s->journal, events_applied, err) || injected_failure(s, err)) return false;
    if (!ts_journal_add_signal(&s->journal, &s->arena, signal)) {
        ts_error_set(err, TS_ERR_NOMEM, "out of memory");
        return false;
    }
    s->journal.events_applied = events_applied;
    return true;
}

static bool memory_complete_task(ts_store *store, const ts_task *task, uint64_t events_applied, ts_error *err) {
    memory_store *s = self_of(store);
    if (!ts_journal_check_event(&s->journal, events_applied, err) ||
        !ts_journal_check_completion(&s->journal, task, err))
        return false;
    ts_task *existing = ts_journal_find_task(&s->journal, task->id);
    ts_json result;
    if (injected_failure(s, err)) return false;
    if (!ts_json_clone(&s->arena, &task->result, &result)) {
        ts_error_set(err, TS_ERR_NOMEM, "out of memory");
        return false;
    }
    existing->status = task->status;
    existing->result = result;
    s->journal.events_applied = events_applied;
    return true;
}

static bool memory_mark_event(ts_store *store, uint64_t events_applied, ts_error *err) {
    memory_store *s = self_of(store);
    if (!ts_journal_check_event(&s->journal, events_applied, err) || injected_failure(s, err)) return false;
    s->journal.events_applied = events_applied;
    return true;
}

static void memory_close(ts_store *store) {
    memory_store *s = self_of(store);
    ts_journal_free(&s->journal);
    ts_arena_free(&s->arena);
    free(s);
}

static const ts_store_vtable memory_vtable = {
    .load = memory_load,
    .begin_execution = memory_begin_execution,
    .commit = memory_commit,
    .deliver_signal = memory_deliver_signal,
    .complete_task = memory_complete_task,
    .mark_event = memory_mark_event,
    .close = memory_close,
};

ts_store *ts_memory_store_new(void) {
    memory_store *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->base.vtable = &memory_vtable;
    ts_arena_init(&s->arena);
    ts_journal_init(&s->journal);
    return &s->base;
}

void ts_memory_store_fail_write_at(ts_store *store, uint64_t n) {
    memory_store *s = self_of(store);
    s->fail_at = n ? s->writes + n : 0;
}

bool ts_memory_store_replace(ts_store *store, const ts_json *journal_json, ts_error *err) {
    memory_store *s = self_of(store);
    ts_arena arena;
    ts_journal journal;
    ts_arena_init(&arena);
    ts_journal_init(&journal);
    ts_json copy; /* the journal borrows strings from the value: it lives in the store's arena */
    if (!ts_json_clone(&arena, journal_json, &copy)) {
        ts_arena_free(&arena);
        ts_error_set(err, TS_ERR_NOMEM, "out of memory");
        return false;
    }
    if (!ts_journal_from_json(&copy, &arena, &journal, err)) {
        ts_journal_free(&journal);
        ts_arena_free(&arena);
        return false;
    }
    ts_journal_free(&s->journal);
    ts_arena_free(&s->arena);
    s->arena = arena;
    s->journal = journal;
    s->broken = false;
    return true;
}

uint64_t ts_memory_store_writes(const ts_store *store) { return ((const memory_store *)store)->writes; }
