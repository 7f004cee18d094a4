/* commit.h — the rules every commit to a journal must keep, decided in one place so that every
 * store accepts and refuses the same commits (conformance/SPEC.md section 6, J1 and J6).
 *
 * Owns: deciding a commit against the journal as it stands, and applying a decided commit to an
 * in-memory journal. This is the reference's own logic, not vocabulary: the checkers never link
 * it (they share only journal.h, the shape of what a journal holds).
 */
#ifndef TURNSTILE_CORE_RESUME_COMMIT_H
#define TURNSTILE_CORE_RESUME_COMMIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/json/arena.h"
#include "core/json/error.h"
#include "core/resume/journal.h"

/* --------------------------------------------------------------------------- commits ----- */

/* One atomic batch: everything in it becomes durable together or not at all. */
typedef struct ts_commit {
    const ts_entry *entries;
    size_t entry_count;
    const ts_task *tasks;       /* new tasks, or a pending task's completion */
    size_t task_count;
    const ts_checkpoint *checkpoint; /* NULL leaves the checkpoint as it is */
} ts_commit;

/* The rules one item keeps wherever it comes from, a commit or a row read back (a damaged
 * file is refused by the same rules that decided what was written):
 *   entry: canonical UUID id and parent id (or none), a role, an object content, an RFC 3339
 *          timestamp (timestamp.h);
 *   task:  canonical UUID id that is UUIDv5 of its key (taskid.h), a key "task:" + 32
 *          lowercase hex, a kind in valid UTF-8; an inline input in valid UTF-8 whose key is
 *          the key (execution id, kind, input) — or an input_leaf (llm-request tasks only,
 *          whose key is checked against the transcript by ts_journal_check_loaded); a pending
 *          task's result is null. */
bool ts_entry_check(const ts_entry *entry, ts_error *err);
bool ts_task_check(const char *execution_id, const ts_task *task, ts_error *err);

/* Decides a commit against the journal as it stands, without changing it; every store calls
 * this first, so all stores accept and refuse the same commits. Refused, with a named error:
 *   - an entry or task that breaks ts_entry_check / ts_task_check,
 *   - an entry whose id exists with different content (an identical one is a no-op),
 *   - an entry whose parent is neither in the journal nor earlier in the batch,
 *   - a task whose id exists with a different key, kind or input (a conflict), or that would
 *     change a completed or failed task (a recorded result is final), or whose input_leaf is
 *     not an entry,
 *   - a checkpoint whose sequence is not the current one + 1 (or beyond TS_JOURNAL_MAX_COUNT),
 *     whose leaf is unknown, or that consumes more signals than the inbox holds or fewer than
 *     before.
 * On success *new_entries / *new_tasks tell which items are not already recorded. */
bool ts_commit_check(const ts_journal *journal, const ts_commit *commit, bool *new_entries, bool *new_tasks,
                     ts_error *err);

/* The outside world's writes, decided the same way for every store:
 * begin: a new store takes a canonical UUID; the same id again is a no-op (*already = true);
 * another id is refused. completion: the task must be pending in the journal, the new status
 * completed or failed, and key, kind and input the recorded ones (else a conflict). */
bool ts_journal_check_begin(const ts_journal *journal, const char *execution_id, bool *already, ts_error *err);
bool ts_journal_check_completion(const ts_journal *journal, const ts_task *task, ts_error *err);

/* Every write of the outside world applies one event: it is accepted only when it records
 * events_applied = the journal's + 1. A write computed from an older state (another writer
 * applied that event meanwhile) is refused before anything is written. Refused too: a signal
 * before the execution began. */
bool ts_journal_check_event(const ts_journal *journal, uint64_t events_applied, ts_error *err);

/* Everything a journal read back from storage must hold, beyond each item's own rules (which
 * its reader applies to every row, ts_entry_check and ts_task_check, naming the row): an
 * execution id (or, without one, nothing else); entry and task ids unique; every parent an
 * earlier entry (so no cycle, and no abandoned entry hangs from nothing); every input_leaf an
 * entry, and every such task's key the key of that transcript (hashed in one pass over the
 * tree); a checkpoint with sequence 1..TS_JOURNAL_MAX_COUNT, a known leaf (or none), an object
 * state, and no more signals consumed than delivered; eventsApplied at most
 * TS_JOURNAL_MAX_COUNT and at least the number of signals (each signal is one event). The
 * error names the item ("tasks[3] (task ID): ..."). Linear in the journal's size. */
bool ts_journal_check_loaded(const ts_journal *journal, ts_error *err);

/* Applies a checked commit to an in-memory journal, copying what it keeps into arena. */
bool ts_commit_apply(ts_journal *journal, ts_arena *arena, const ts_commit *commit, const bool *new_entries,
                     const bool *new_tasks, ts_error *err);

#endif
