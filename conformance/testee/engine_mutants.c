/* engine_mutants.c — the resume engine's historic bugs (seeds 002 and 003), each built from the
 * engine's hooks (core/resume/engine.h: ts_engine_hooks); see mutants.h. The engine names none
 * of them: what is a bug here is, to it, only another choice at a seam. */
#include "conformance/testee/mutants.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uuid/uuid.h>

#include "core/json/codec.h"

/* ------------------------------------------------------------ seed 003 bug 1: counter ids ---- */

/* Entry ids from a counter that starts at 0 in every engine, so a resumed engine mints the
 * ids of entries it already wrote. */
static void counter_entry_id(void *context, uint64_t minted, char out[TS_UUID_TEXT]) {
    (void)context;
    snprintf(out, TS_UUID_TEXT, "00000000-0000-4000-8000-%012llx", (unsigned long long)minted);
}

/* The seed's server deduplicated entries by id: an entry whose id is already taken is
 * silently dropped, and the message with it. */
static void drop_colliding_entries(void *context, const ts_journal *journal, ts_entry *entries, size_t *count) {
    (void)context;
    size_t kept = 0;
    for (size_t i = 0; i < *count; i++)
        if (!ts_journal_find_entry(journal, entries[i].id)) entries[kept++] = entries[i];
    *count = kept;
}

const ts_engine_hooks ts_engine_counter_ids = {
    .mint_entry_id = counter_entry_id,
    .filter_entries = drop_colliding_entries,
    .rebuild_at_every_event = true,
};

/* -------------------------------------------------- seed 003 bug 2: timestamps on load ---- */

/* Rebuilt messages take the clock's time, not their entries': the transcript, and with it
 * every LLM task's key, changes on each resume. */
static void clock_on_load(void *context, ts_world *world, uint64_t clock_ordinal, const ts_entry *entry,
                          char out[TS_TIMESTAMP_TEXT]) {
    (void)context;
    (void)entry;
    world->vtable->timestamp(world, clock_ordinal, out);
}

const ts_engine_hooks ts_engine_timestamps_on_load = {
    .timestamp_on_load = clock_on_load,
    .rebuild_at_every_event = true,
};

/* ----------------------------------------------------- seed 003 bug 3: restart the loop ---- */

/* A resumed ReAct loop ignores the pending tool calls it stopped in and asks the LLM again. */
static ts_str restart_the_loop(void *context, ts_str phase) {
    (void)context;
    return ts_str_eq_cstr(phase, "tools") ? ts_str_from("llm") : phase;
}

const ts_engine_hooks ts_engine_restart_loop = {
    .resumed_phase = restart_the_loop,
    .rebuild_at_every_event = true,
};

/* ------------------------------------------------------- seed 002: both layers persist ---- */

/* After a turn, the protocol adapter appends the turn's assistant and tool messages again,
 * rebuilt from its events, with ids of its own, and moves the checkpoint's leaf to the copies. */
static bool persist_turn_again(void *context, ts_store *store, const ts_journal *j, ts_arena *arena, ts_error *err) {
    (void)context;
    const ts_entry **path;
    size_t count;
    if (!ts_journal_path(j, j->checkpoint.leaf_id, arena, &path, &count, err)) return false;
    size_t start = count;
    while (start > 0 && path[start - 1]->role != TS_ENTRY_USER) start--;
    if (start == count) return true;
    ts_entry *copies = ts_arena_alloc(arena, (count - start) * sizeof *copies);
    if (!copies) return ts_error_set(err, TS_ERR_NOMEM, "out of memory"), false;
    const char *parent = j->checkpoint.leaf_id;
    for (size_t i = start; i < count; i++) {
        ts_entry *c = &copies[i - start];
        *c = *path[i];
        uuid_t id;
        uuid_generate_random(id);
        uuid_unparse_lower(id, c->id);
        snprintf(c->parent_id, sizeof c->parent_id, "%s", parent);
        parent = c->id;
    }
    ts_checkpoint cp = j->checkpoint;
    cp.sequence++;
    snprintf(cp.leaf_id, sizeof cp.leaf_id, "%s", parent);
    ts_commit commit = {copies, count - start, NULL, 0, &cp};
    return ts_store_commit(store, &commit, err);
}

const ts_engine_hooks ts_engine_both_layers_persist = {
    .after_turn = persist_turn_again,
    .after_turn_what = "the turn, persisted again by the adapter",
    .rebuild_at_every_event = true,
};

/* --------------------------------------------------- seed 003: unescaped canonical keys ---- */

/* The seed's canonicaliser (shared/seeds/003): members sorted by key bytes, keys written
 * without escaping, so {"a\":1,\"b": 2} and {"a":1,"b":2} collide. */
static bool seed_canonical(ts_buf *out, const ts_json *v) {
    if (v->kind == TS_JSON_ARRAY) {
        ts_buf_append_char(out, '[');
        for (size_t i = 0; i < v->u.a.count; i++) {
            if (i) ts_buf_append_char(out, ',');
            if (!seed_canonical(out, &v->u.a.items[i])) return false;
        }
        ts_buf_append_char(out, ']');
        return true;
    }
    if (v->kind != TS_JSON_OBJECT) return ts_codec_write(out, v, TS_WRITE_COMPACT);
    size_t n = v->u.o.count;
    const ts_member **sorted = malloc((n + 1) * sizeof *sorted);
    if (!sorted) return false;
    for (size_t i = 0; i < n; i++) sorted[i] = &v->u.o.members[i];
    for (size_t i = 1; i < n; i++) /* insertion sort by raw key bytes */
        for (size_t j = i; j > 0; j--) {
            ts_str a = sorted[j - 1]->key, b = sorted[j]->key;
            size_t common = a.len < b.len ? a.len : b.len;
            int c = memcmp(a.ptr, b.ptr, common);
            if (c < 0 || (c == 0 && a.len <= b.len)) break;
            const ts_member *t = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = t;
        }
    ts_buf_append_char(out, '{');
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        if (i) ts_buf_append_char(out, ',');
        ts_buf_append_char(out, '"');
        ts_buf_append(out, sorted[i]->key.ptr, sorted[i]->key.len);
        ts_buf_append_str(out, "\":");
        ok = seed_canonical(out, &sorted[i]->value);
    }
    ts_buf_append_char(out, '}');
    free(sorted);
    return ok;
}

static bool seed_canonical_input(void *context, ts_buf *out, const ts_json *input, ts_error *err) {
    (void)context;
    (void)err; /* the engine words the failure */
    return seed_canonical(out, input);
}

const ts_engine_hooks ts_engine_unescaped_keys = {
    .canonical_input = seed_canonical_input,
    .rebuild_at_every_event = true,
};

/* --------------------------------------------- the signal cursor outside the commit ---- */

const ts_engine_hooks ts_engine_signal_outside_commit = {
    .cursor_before_signals = true,
    .rebuild_at_every_event = true,
};
