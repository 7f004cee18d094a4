/* store.h — where a journal lives: one interface, two stores (SQLite on disk, store_sqlite.h;
 * memory, for tests and fuzzing, store_memory.h), so the engine never knows which.
 *
 * Owns: the durability contract. A commit is all or nothing: entries, tasks, the signal
 * cursor and the checkpoint of one ts_commit become durable together, or the store is left
 * exactly as it was and the call returns false with the reason. Every store decides a commit
 * with ts_commit_check (journal.h), so they accept and refuse the same commits. No store
 * swallows an error: a failure to persist is always returned to the caller. A write that
 * returned false is not visible to this store, and retrying it here is safe; after a crash,
 * though, a write whose final sync failed may be found applied (the old state or the new,
 * never a mix) — which is why an engine re-reads the journal when it restarts.
 *
 * The outside world (the scenario driver: a user sending a signal, a tool's result arriving)
 * writes through deliver_signal and complete_task; each of those also records how many
 * scenario events have been applied, in the same transaction, so a driver that is killed and
 * restarted applies every event exactly once. Each such write applies the next event and is
 * conditional on it (ts_journal_check_event): events_applied must be the stored count + 1, so
 * two drivers computing the same event from the same state cannot both apply it; the second
 * is refused before it writes anything.
 */
#ifndef TURNSTILE_CORE_STORE_H
#define TURNSTILE_CORE_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "core/resume/commit.h"

typedef struct ts_store ts_store;

typedef struct ts_store_vtable {
    /* The journal as stored, copied into arena. A store with no execution yet loads a journal
     * with an empty execution_id and nothing else. `out` is always initialised, also on
     * failure: the caller releases it with ts_journal_free. */
    bool (*load)(ts_store *store, ts_arena *arena, ts_journal *out, ts_error *err);
    /* Records the execution id of a new store; a store that already holds another execution
     * refuses (named error); the same id again is a no-op. */
    bool (*begin_execution)(ts_store *store, const char *execution_id, ts_error *err);
    /* One atomic batch (see above). */
    bool (*commit)(ts_store *store, const ts_commit *commit, ts_error *err);
    /* Appends a signal to the inbox and sets events_applied, atomically. */
    bool (*deliver_signal)(ts_store *store, const ts_json *signal, uint64_t events_applied, ts_error *err);
    /* Records a pending task's result (status completed or failed) and sets events_applied,
     * atomically. Refused when the task is unknown or no longer pending. */
    bool (*complete_task)(ts_store *store, const ts_task *task, uint64_t events_applied, ts_error *err);
    /* Sets events_applied alone (an event with no effect on the journal, such as a restart). */
    bool (*mark_event)(ts_store *store, uint64_t events_applied, ts_error *err);
    /* Releases the store (closes files); accepts a store whose open failed halfway. */
    void (*close)(ts_store *store);
} ts_store_vtable;

/* Every store struct begins with this member, so a pointer to it is a ts_store *. */
struct ts_store {
    const ts_store_vtable *vtable;
};

static inline bool ts_store_load(ts_store *s, ts_arena *arena, ts_journal *out, ts_error *err) {
    return s->vtable->load(s, arena, out, err);
}
static inline bool ts_store_begin_execution(ts_store *s, const char *execution_id, ts_error *err) {
    return s->vtable->begin_execution(s, execution_id, err);
}
static inline bool ts_store_commit(ts_store *s, const ts_commit *commit, ts_error *err) {
    return s->vtable->commit(s, commit, err);
}
static inline bool ts_store_deliver_signal(ts_store *s, const ts_json *signal, uint64_t events_applied,
                                           ts_error *err) {
    return s->vtable->deliver_signal(s, signal, events_applied, err);
}
static inline bool ts_store_complete_task(ts_store *s, const ts_task *task, uint64_t events_applied,
                                          ts_error *err) {
    return s->vtable->complete_task(s, task, events_applied, err);
}
static inline bool ts_store_mark_event(ts_store *s, uint64_t events_applied, ts_error *err) {
    return s->vtable->mark_event(s, events_applied, err);
}
static inline void ts_store_close(ts_store *s) {
    if (s) s->vtable->close(s);
}

#endif
