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

/* Decides a commit against the journal as it stands, without changing it; every store calls
 * this first, so all stores accept and refuse the same commits. Refused, with a named error:
 *   - an entry whose id exists with different content (an identical one is a no-op),
 *   - an entry whose parent is neither in the journal nor earlier in the batch,
 *   - a task whose id exists with a different key, kind or input (a conflict), or that would
 *     change a completed or failed task (a recorded result is final),
 *   - a checkpoint whose sequence is not the current one + 1, whose leaf is unknown, or that
 *     consumes more signals than the inbox holds or fewer than before.
 * On success *new_entries / *new_tasks tell which items are not already recorded. */
bool ts_commit_check(const ts_journal *journal, const ts_commit *commit, bool *new_entries, bool *new_tasks,
                     ts_error *err);

/* The outside world's writes, decided the same way for every store:
 * begin: a new store takes a canonical UUID; the same id again is a no-op (*already = true);
 * another id is refused. completion: the task must be pending in the journal, the new status
 * completed or failed, and key, kind and input the recorded ones (else a conflict). */
bool ts_journal_check_begin(const ts_journal *journal, const char *execution_id, bool *already, ts_error *err);
bool ts_journal_check_completion(const ts_journal *journal, const ts_task *task, ts_error *err);

/* Applies a checked commit to an in-memory journal, copying what it keeps into arena. */
bool ts_commit_apply(ts_journal *journal, ts_arena *arena, const ts_commit *commit, const bool *new_entries,
                     const bool *new_tasks, ts_error *err);

#endif
