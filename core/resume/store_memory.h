/* store_memory.h — a store that keeps its journal in memory: for tests, fuzzing and the
 * crash loops, where "the process died" means "drop the engine, keep the store".
 *
 * Owns: one journal and the arena it lives in. Commits are decided by ts_commit_check and
 * applied whole, as store.h requires. It can inject a failure at the N-th write call (a commit,
 * a signal, a task completion or an event mark), which then changes nothing and returns an
 * error, as a disk that refuses a write would.
 */
#ifndef TURNSTILE_CORE_STORE_MEMORY_H
#define TURNSTILE_CORE_STORE_MEMORY_H

#include <stdint.h>

#include "core/resume/store.h"

/* A new, empty store (heap), or NULL when out of memory. Release it with ts_store_close. */
ts_store *ts_memory_store_new(void);

/* Makes the write call number n (1-based, counted from now) fail; 0 turns injection off. */
void ts_memory_store_fail_write_at(ts_store *store, uint64_t n);

/* Replaces the store's journal with the one journal_json holds (ts_journal_to_json's form, as
 * a store that keeps it elsewhere reads it back). False (err) when it is no journal; the
 * store is then unchanged. */
bool ts_memory_store_replace(ts_store *store, const ts_json *journal_json, ts_error *err);

/* How many write calls the store has seen (failed ones included). */
uint64_t ts_memory_store_writes(const ts_store *store);

#endif
