/* journal.c — the journal model and the inputs of its LLM tasks; see journal.h (the JSON form
 * is journal_json.c). */
#include "core/resume/journal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json/assert.h"
#include "core/json/buf.h"
#include "core/json/canon.h"

static const char *const role_names[] = {"user", "assistant", "tool"};
static const char *const status_names[] = {"pending", "completed", "failed"};

const char *ts_entry_role_name(ts_entry_role role) {
    return (unsigned)role < sizeof role_names / sizeof role_names[0] ? role_names[role] : "?";
}

bool ts_entry_role_parse(ts_str name, ts_entry_role *out) {
    for (size_t i = 0; i < sizeof role_names / sizeof role_names[0]; i++)
        if (ts_str_eq_cstr(name, role_names[i])) {
            *out = (ts_entry_role)i;
            return true;
        }
    return false;
}

const char *ts_task_status_name(ts_task_status status) {
    return (unsigned)status < sizeof status_names / sizeof status_names[0] ? status_names[status] : "?";
}

bool ts_task_status_parse(ts_str name, ts_task_status *out) {
    for (size_t i = 0; i < sizeof status_names / sizeof status_names[0]; i++)
        if (ts_str_eq_cstr(name, status_names[i])) {
            *out = (ts_task_status)i;
            return true;
        }
    return false;
}

bool ts_entry_same(const ts_entry *a, const ts_entry *b) {
    return strcmp(a->id, b->id) == 0 && strcmp(a->parent_id, b->parent_id) == 0 && a->role == b->role &&
           ts_str_eq(a->timestamp, b->timestamp) && ts_json_equal(&a->content, &b->content);
}

bool ts_uuid_text_valid(const char *s) {
    /* 8-4-4-4-12: a dash at 8, 13, 18 and 23, lowercase hex elsewhere, and the NUL at 36. */
    static const unsigned char lower_hex[256] = {
        ['0'] = 1, ['1'] = 1, ['2'] = 1, ['3'] = 1, ['4'] = 1, ['5'] = 1, ['6'] = 1, ['7'] = 1,
        ['8'] = 1, ['9'] = 1, ['a'] = 1, ['b'] = 1, ['c'] = 1, ['d'] = 1, ['e'] = 1, ['f'] = 1,
    };
    const unsigned char *u = (const unsigned char *)s;
    for (int i = 0; i < 36; i++) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? u[i] != '-' : !lower_hex[u[i]]) return false; /* a NUL stops here too */
    }
    return u[36] == '\0';
}

/* ------------------------------------------------------------------ the journal itself --- */

/* --------------------------------------------------------------------- the id index ---- */

/* The 16 bytes of canonical UUID text, as two words; false for any other text. */
static bool uuid_words(const char *id, uint64_t *hi, uint64_t *lo) {
    static const signed char nibble[256] = {
        ['0'] = 1, ['1'] = 2, ['2'] = 3, ['3'] = 4, ['4'] = 5, ['5'] = 6, ['6'] = 7, ['7'] = 8,
        ['8'] = 9, ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
    }; /* the value + 1; 0: not a lowercase hex digit */
    uint64_t words[2] = {0, 0};
    int digits = 0;
    for (int i = 0; i < 36; i++) {
        unsigned char c = (unsigned char)id[i];
        if (i == 8 || i == 13 || i == 18 || i == 23) {
            if (c != '-') return false;
            continue;
        }
        if (!nibble[c]) return false; /* a NUL ends short text here */
        words[digits / 16] = words[digits / 16] << 4 | (uint64_t)(nibble[c] - 1);
        digits++;
    }
    if (id[36] != '\0') return false;
    *hi = words[0];
    *lo = words[1];
    return true;
}

static size_t slot_of(const ts_id_index *index, uint64_t hi, uint64_t lo) {
    uint64_t h = (hi ^ (lo * 0x9E3779B97F4A7C15ULL)) * 0xBF58476D1CE4E5B9ULL;
    size_t mask = index->capacity - 1;
    size_t i = (size_t)(h >> 32) & mask;
    while (index->slots[3 * i + 2] && (index->slots[3 * i] != hi || index->slots[3 * i + 1] != lo)) i = (i + 1) & mask;
    return i;
}

static bool index_grow(ts_id_index *index) {
    size_t capacity = index->capacity ? 2 * index->capacity : 64;
    uint64_t *slots = calloc(3 * capacity, sizeof *slots);
    if (!slots) return false;
    ts_id_index old = *index;
    index->slots = slots;
    index->capacity = capacity;
    for (size_t i = 0; i < old.capacity; i++) {
        if (!old.slots[3 * i + 2]) continue;
        size_t at = slot_of(index, old.slots[3 * i], old.slots[3 * i + 1]);
        memcpy(&index->slots[3 * at], &old.slots[3 * i], 3 * sizeof *slots);
    }
    free(old.slots);
    return true;
}

/* Inserts or overwrites id -> position; `stable` is a copy of id that lives as long as the
 * journal (the string map borrows its keys). */
static bool index_put(ts_id_index *index, const char *id, ts_str stable, size_t position) {
    uint64_t hi, lo;
    if (!uuid_words(id, &hi, &lo)) return stable.ptr && ts_strmap_put(&index->other, 0, stable, position);
    if ((index->count + 1) * 2 > index->capacity && !index_grow(index)) return false;
    size_t at = slot_of(index, hi, lo);
    if (!index->slots[3 * at + 2]) index->count++;
    index->slots[3 * at] = hi;
    index->slots[3 * at + 1] = lo;
    index->slots[3 * at + 2] = (uint64_t)position + 1;
    return true;
}

static bool index_get(const ts_id_index *index, const char *id, size_t *position) {
    uint64_t hi, lo;
    if (!uuid_words(id, &hi, &lo)) return ts_strmap_get(&index->other, 0, ts_str_from(id), position);
    if (index->capacity == 0) return false;
    size_t at = slot_of(index, hi, lo);
    if (!index->slots[3 * at + 2]) return false;
    *position = (size_t)index->slots[3 * at + 2] - 1;
    return true;
}

static void index_free(ts_id_index *index) {
    free(index->slots);
    ts_strmap_free(&index->other);
    memset(index, 0, sizeof *index);
}

void ts_journal_init(ts_journal *journal) {
    memset(journal, 0, sizeof *journal);
    ts_strmap_init(&journal->entry_index.other);
    ts_strmap_init(&journal->task_index.other);
}

void ts_journal_free(ts_journal *journal) {
    if (!journal) return;
    index_free(&journal->entry_index);
    index_free(&journal->task_index);
}

/* Makes room for one more item in an arena array that doubles as it grows. */
static bool reserve(ts_arena *arena, void **items, size_t count, size_t *cap, size_t item_size) {
    if (count < *cap) return true;
    size_t cap_new = *cap ? 2 * *cap : 16;
    void *grown = *items ? ts_arena_grow(arena, *items, *cap * item_size, cap_new * item_size)
                         : ts_arena_alloc(arena, cap_new * item_size);
    if (!grown) return false;
    *items = grown;
    *cap = cap_new;
    return true;
}

static bool copy_entry(ts_arena *arena, const ts_entry *src, ts_entry *dst) {
    *dst = *src;
    dst->timestamp = ts_str_dup(arena, src->timestamp);
    return (!src->timestamp.ptr || dst->timestamp.ptr) && ts_json_clone(arena, &src->content, &dst->content);
}

static bool copy_task(ts_arena *arena, const ts_task *src, ts_task *dst) {
    *dst = *src;
    dst->kind = ts_str_dup(arena, src->kind);
    dst->input = ts_str_dup(arena, src->input);
    return dst->kind.ptr && (dst->input.ptr || !src->input.ptr) && ts_json_clone(arena, &src->result, &dst->result);
}

/* Appends one entry (copied into arena, or taken as it is) and indexes its id. */
static bool append_entry(ts_journal *journal, ts_arena *arena, const ts_entry *entry, bool copy) {
    if (!reserve(arena, (void **)&journal->entries, journal->entry_count, &journal->entry_cap, sizeof(ts_entry)))
        return false;
    ts_entry *slot = &journal->entries[journal->entry_count];
    if (copy && !copy_entry(arena, entry, slot)) return false;
    if (!copy) *slot = *entry;
    /* A non-canonical id goes to the string map, which borrows its key: growing the array
     * may move the id, so the key is a stable copy of its own. */
    ts_str key = ts_uuid_text_valid(slot->id) ? (ts_str){NULL, 0} : ts_str_dup(arena, ts_str_from(slot->id));
    if (!index_put(&journal->entry_index, slot->id, key, journal->entry_count)) return false;
    journal->entry_count++;
    return true;
}

static bool append_task(ts_journal *journal, ts_arena *arena, const ts_task *task, bool copy) {
    if (!reserve(arena, (void **)&journal->tasks, journal->task_count, &journal->task_cap, sizeof(ts_task)))
        return false;
    ts_task *slot = &journal->tasks[journal->task_count];
    if (copy && !copy_task(arena, task, slot)) return false;
    if (!copy) *slot = *task;
    ts_str key = ts_uuid_text_valid(slot->id) ? (ts_str){NULL, 0} : ts_str_dup(arena, ts_str_from(slot->id));
    if (!index_put(&journal->task_index, slot->id, key, journal->task_count)) return false;
    journal->task_count++;
    return true;
}

static bool append_signal(ts_journal *journal, ts_arena *arena, const ts_json *signal, bool copy) {
    if (!reserve(arena, (void **)&journal->signals, journal->signal_count, &journal->signal_cap, sizeof(ts_json)))
        return false;
    ts_json *slot = &journal->signals[journal->signal_count];
    if (copy && !ts_json_clone(arena, signal, slot)) return false;
    if (!copy) *slot = *signal;
    journal->signal_count++;
    return true;
}

bool ts_journal_add_entry(ts_journal *journal, ts_arena *arena, const ts_entry *entry) {
    return append_entry(journal, arena, entry, true);
}
bool ts_journal_add_task(ts_journal *journal, ts_arena *arena, const ts_task *task) {
    return append_task(journal, arena, task, true);
}
bool ts_journal_add_signal(ts_journal *journal, ts_arena *arena, const ts_json *signal) {
    return append_signal(journal, arena, signal, true);
}
size_t ts_journal_distinct_entry_ids(const ts_journal *journal) {
    return journal->entry_index.count + journal->entry_index.other.count;
}

bool ts_journal_adopt_entry(ts_journal *journal, ts_arena *arena, const ts_entry *entry) {
    return append_entry(journal, arena, entry, false);
}
bool ts_journal_adopt_task(ts_journal *journal, ts_arena *arena, const ts_task *task) {
    return append_task(journal, arena, task, false);
}
bool ts_journal_adopt_signal(ts_journal *journal, ts_arena *arena, const ts_json *signal) {
    return append_signal(journal, arena, signal, false);
}

/* dst (empty) becomes a copy of src: the same slots, the same positions. */
static bool index_copy(const ts_id_index *src, ts_id_index *dst, ts_arena *arena) {
    if (src->capacity) {
        dst->slots = malloc(3 * src->capacity * sizeof *dst->slots);
        if (!dst->slots) return false;
        memcpy(dst->slots, src->slots, 3 * src->capacity * sizeof *dst->slots);
    }
    dst->capacity = src->capacity;
    dst->count = src->count;
    for (size_t i = 0; i < src->other.count; i++) { /* the rare ids that are not UUIDs */
        const ts_strmap_entry *entry = &src->other.entries[i];
        ts_str key = ts_str_dup(arena, entry->key);
        if (!key.ptr || !ts_strmap_put(&dst->other, entry->tag, key, entry->value)) return false;
    }
    return true;
}

/* A copy of count items of size bytes in arena (NULL, and true, for none). */
static bool copy_array(ts_arena *arena, const void *items, size_t count, size_t size, void **out, size_t *cap) {
    *out = NULL;
    *cap = count;
    if (!count) return true;
    *out = ts_arena_alloc(arena, count * size);
    if (!*out) return false;
    memcpy(*out, items, count * size);
    return true;
}

bool ts_journal_copy(const ts_journal *src, ts_arena *arena, ts_journal *dst) {
    memcpy(dst->execution_id, src->execution_id, sizeof dst->execution_id);
    dst->events_applied = src->events_applied;
    dst->has_checkpoint = src->has_checkpoint;
    dst->checkpoint = src->checkpoint;
    if (src->has_checkpoint && !ts_json_clone(arena, &src->checkpoint.state, &dst->checkpoint.state)) return false;
    if (!copy_array(arena, src->entries, src->entry_count, sizeof *src->entries, (void **)&dst->entries, &dst->entry_cap) ||
        !copy_array(arena, src->tasks, src->task_count, sizeof *src->tasks, (void **)&dst->tasks, &dst->task_cap) ||
        !copy_array(arena, src->signals, src->signal_count, sizeof *src->signals, (void **)&dst->signals,
                    &dst->signal_cap))
        return false;
    dst->entry_count = src->entry_count;
    dst->task_count = src->task_count;
    dst->signal_count = src->signal_count;
    for (size_t i = 0; i < src->entry_count; i++)
        if (!copy_entry(arena, &src->entries[i], &dst->entries[i])) return false;
    for (size_t i = 0; i < src->task_count; i++)
        if (!copy_task(arena, &src->tasks[i], &dst->tasks[i])) return false;
    for (size_t i = 0; i < src->signal_count; i++)
        if (!ts_json_clone(arena, &src->signals[i], &dst->signals[i])) return false;
    return index_copy(&src->entry_index, &dst->entry_index, arena) && index_copy(&src->task_index, &dst->task_index, arena);
}

const ts_entry *ts_journal_find_entry(const ts_journal *journal, const char *id) {
    size_t index;
    if (!id[0] || !index_get(&journal->entry_index, id, &index)) return NULL;
    TS_ASSERT(index < journal->entry_count && strcmp(journal->entries[index].id, id) == 0);
    return &journal->entries[index];
}

ts_task *ts_journal_find_task(const ts_journal *journal, const char *id) {
    size_t index;
    if (!id[0] || !index_get(&journal->task_index, id, &index)) return NULL;
    TS_ASSERT(index < journal->task_count && strcmp(journal->tasks[index].id, id) == 0);
    return &journal->tasks[index];
}

/* The entry after which `entry` comes (its parent), or NULL: the entry just before it in commit
 * order is the parent of most entries, and is looked at first. */
static const ts_entry *parent_of(const ts_journal *journal, const ts_entry *entry) {
    if (!entry->parent_id[0]) return NULL;
    if (entry > journal->entries && strcmp(entry[-1].id, entry->parent_id) == 0) return entry - 1;
    return ts_journal_find_entry(journal, entry->parent_id);
}

bool ts_journal_path(const ts_journal *journal, const char *leaf_id, ts_arena *arena, const ts_entry ***out,
                     size_t *out_count, ts_error *err) {
    *out = NULL;
    *out_count = 0;
    size_t depth = 0;
    const ts_entry *leaf = leaf_id[0] ? ts_journal_find_entry(journal, leaf_id) : NULL;
    if (leaf_id[0] && !leaf) {
        ts_error_set(err, TS_ERR_INPUT, "entry %s is on the visible path but not in the journal", leaf_id);
        return false;
    }
    for (const ts_entry *entry = leaf; entry;) {
        if (++depth > journal->entry_count) {
            ts_error_set(err, TS_ERR_INPUT, "the parents of entry %s form a cycle", leaf_id);
            return false;
        }
        const ts_entry *parent = parent_of(journal, entry);
        if (entry->parent_id[0] && !parent) {
            ts_error_set(err, TS_ERR_INPUT, "entry %s is on the visible path but not in the journal", entry->parent_id);
            return false;
        }
        entry = parent;
    }
    const ts_entry **path = ts_arena_alloc(arena, (depth ? depth : 1) * sizeof *path);
    if (!path) {
        ts_error_set(err, TS_ERR_NOMEM, "out of memory");
        return false;
    }
    size_t i = depth;
    for (const ts_entry *entry = leaf; entry; entry = parent_of(journal, entry)) {
        TS_ASSERT(i > 0); /* the walk above counted this path */
        path[--i] = entry;
    }
    TS_ASSERT(i == 0 && (depth == 0 || !path[0]->parent_id[0]));
    for (size_t k = 1; k < depth; k++) TS_ASSERT(strcmp(path[k]->parent_id, path[k - 1]->id) == 0);
    *out = path;
    *out_count = depth;
    return true;
}

/* ----------------------------------------------------------------- LLM task inputs ------- */

bool ts_llm_message(const ts_entry *entry, ts_str timestamp, ts_arena *arena, ts_json *out) {
    ts_json_builder b;
    ts_json_builder_init(&b, arena);
    ts_json_builder_add(&b, "role", ts_json_make_string(ts_str_from(ts_entry_role_name(entry->role))));
    ts_json_builder_add(&b, "content", entry->content);
    ts_json_builder_add(&b, "timestamp", ts_json_make_string(timestamp));
    return ts_json_builder_finish(&b, out);
}

bool ts_llm_message_canon(ts_buf *out, ts_str role, const ts_json *content, ts_str timestamp, ts_error *err) {
    ts_json role_value = ts_json_make_string(role), timestamp_value = ts_json_make_string(timestamp);
    ts_buf_append_str(out, "{\"content\":");
    if (!ts_canon_write(out, content, err)) return false;
    ts_buf_append_str(out, ",\"role\":");
    if (!ts_canon_write(out, &role_value, err)) return false;
    ts_buf_append_str(out, ",\"timestamp\":");
    if (!ts_canon_write(out, &timestamp_value, err)) return false;
    ts_buf_append_char(out, '}');
    if (out->failed) ts_error_set(err, TS_ERR_NOMEM, "out of memory");
    return !out->failed;
}

bool ts_journal_llm_input(const ts_journal *journal, const char *leaf, ts_arena *arena, ts_json *out, ts_error *err) {
    const ts_entry **path;
    size_t count;
    if (!ts_journal_path(journal, leaf, arena, &path, &count, err)) return false;
    ts_json *messages = ts_arena_alloc(arena, (count ? count : 1) * sizeof *messages);
    bool ok = messages != NULL;
    for (size_t i = 0; ok && i < count; i++) ok = ts_llm_message(path[i], path[i]->timestamp, arena, &messages[i]);
    ts_json_builder b;
    ts_json_builder_init(&b, arena);
    ts_json_builder_add(&b, "messages", (ts_json){TS_JSON_ARRAY, {.a = {messages, count}}});
    if (!ok || !ts_json_builder_finish(&b, out)) {
        ts_error_set(err, TS_ERR_NOMEM, "out of memory");
        return false;
    }
    return true;
}

bool ts_task_input_text(const ts_journal *journal, const ts_task *task, ts_arena *arena, ts_str *out,
                        ts_error *err) {
    if (!task->input_leaf[0]) {
        *out = task->input;
        return true;
    }
    ts_json input;
    if (!ts_journal_llm_input(journal, task->input_leaf, arena, &input, err)) return false;
    ts_buf text;
    ts_buf_init(&text);
    bool ok = ts_canon_write(&text, &input, err);
    *out = ok ? ts_str_dup(arena, (ts_str){text.data ? text.data : "", text.len}) : (ts_str){NULL, 0};
    ts_buf_free(&text);
    if (ok && !out->ptr) ts_error_set(err, TS_ERR_NOMEM, "out of memory");
    return ok && out->ptr;
}

