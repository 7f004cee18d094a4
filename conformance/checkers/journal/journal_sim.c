/* journal_sim.c — the scripted world of SPEC.md §6.1, derived; see journal_sim.h. */
#include "conformance/checkers/journal/journal_sim.h"

#include <string.h>
#include <time.h>

#include "core/json/buf.h"

/* items with room for one more (the same block, or a grown copy); NULL when memory ran out. */
static void *sim_grow(sim *s, void *items, size_t *cap, size_t count, size_t size) {
    if (items && count < *cap) return items;
    size_t grown = *cap ? *cap * 2 : 16;
    void *p =
        items ? ts_arena_grow(s->arena, items, *cap * size, grown * size) : ts_arena_alloc(s->arena, grown * size);
    if (!p) {
        s->out_of_memory = true;
        return NULL;
    }
    *cap = grown;
    return p;
}

void jc_clock_timestamp(const ts_scenario *scenario, uint64_t k, char out[TIMESTAMP_TEXT]) {
    /* in 100 ns ticks since the start's whole second: exact for any k a journal can hold */
    int64_t ticks = scenario->clock_start_ticks + (int64_t)k * scenario->clock_step_ms * 10000;
    time_t seconds = (time_t)(scenario->clock_start_seconds + ticks / 10000000);
    struct tm utc;
    memset(&utc, 0, sizeof utc);
    gmtime_r(&seconds, &utc);
    jc_format(out, TIMESTAMP_TEXT, "%04d-%02d-%02dT%02d:%02d:%02d.%07d+00:00", utc.tm_year + 1900, utc.tm_mon + 1,
                utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec, (int)(ticks % 10000000));
}

/* The timestamp entry k carries: the clock's, or without a clock the answer's own (the wall
 * clock cannot be re-derived; LLM inputs are then checked against the stored timestamps). */
static ts_str sim_timestamp(sim *s, size_t k) {
    char text[TIMESTAMP_TEXT];
    if (s->scenario->has_clock)
        jc_clock_timestamp(s->scenario, k, text);
    else if (k < s->answer->entry_count)
        return s->answer->entries[k].timestamp;
    else
        jc_format(text, sizeof text, "(no timestamp: entries[%zu] is missing)", k);
    char *copy = ts_arena_strndup(s->arena, text, strlen(text));
    if (!copy) s->out_of_memory = true;
    return (ts_str){copy ? copy : "", copy ? strlen(copy) : 0};
}

/* The answer's own form of entry k's content when it is the same content (SPEC's choices:
 * toolCalls [] or none, an unknown tool's wording), so that LLM inputs hash what was stored. */
static ts_json adopt(const sim *s, size_t k, ts_entry_role role, ts_json content, bool error_free) {
    if (k >= s->answer->entry_count || s->answer->entries[k].role != role) return content;
    const ts_json *stored = s->answer->entries[k].content;
    return jc_content_equal(&content, stored, error_free) ? *stored : content;
}

static size_t sim_append_free(sim *s, ts_entry_role role, ts_json content, size_t parent, sim_origin origin,
                              size_t origin_index, bool error_free);

static size_t sim_append(sim *s, ts_entry_role role, ts_json content, size_t parent, sim_origin origin,
                         size_t origin_index) {
    return sim_append_free(s, role, content, parent, origin, origin_index, false);
}

static size_t sim_append_free(sim *s, ts_entry_role role, ts_json content, size_t parent, sim_origin origin,
                              size_t origin_index, bool error_free) {
    sim_entry *entries = sim_grow(s, s->entries, &s->entry_cap, s->entry_count, sizeof *s->entries);
    if (!entries) return NO_INDEX;
    s->entries = entries;
    size_t k = s->entry_count;
    sim_entry *e = &s->entries[k];
    memset(e, 0, sizeof *e);
    e->role = role;
    e->content = adopt(s, k, role, content, error_free);
    e->error_free = error_free;
    e->parent = parent;
    e->origin = origin;
    e->origin_index = origin_index;
    e->timestamp = sim_timestamp(s, k);
    s->entry_count++;
    s->leaf = k;
    return k;
}

static ts_json text_content(sim *s, ts_str text) {
    ts_json_builder b;
    ts_json_builder_init(&b, s->arena);
    ts_json_builder_add(&b, "text", ts_json_make_string(text));
    ts_json out = ts_json_make_null();
    if (!ts_json_builder_finish(&b, &out)) s->out_of_memory = true;
    return out;
}

size_t *jc_sim_path(sim *s, size_t leaf, size_t *count) {
    size_t n = 0;
    for (size_t at = leaf; at != NO_INDEX; at = s->entries[at].parent) n++;
    size_t *path = ts_arena_calloc(s->arena, n + 1, sizeof *path);
    if (!path) {
        s->out_of_memory = true;
        *count = 0;
        return NULL;
    }
    size_t i = n;
    for (size_t at = leaf; at != NO_INDEX; at = s->entries[at].parent) path[--i] = at;
    *count = n;
    return path;
}

static size_t sim_find_task(const sim *s, const char *key) {
    for (size_t i = 0; i < s->task_count; i++)
        if (strcmp(s->tasks[i].key, key) == 0) return i;
    return NO_INDEX;
}

/* The task (kind, input): the recorded one with that name, or a new one (its status and result
 * then set by the caller; *created says which). NO_INDEX when the scenario cannot name it. */
static size_t sim_task_for(sim *s, ts_str kind, const ts_json *input, bool *created) {
    sim_task t;
    memset(&t, 0, sizeof t);
    ts_error err;
    naming_status named = jc_name_task(s->scenario->execution_id, kind, input, s->arena, &t.canonical, t.key, t.id, &err);
    if (named == NAMING_OUT_OF_MEMORY) s->out_of_memory = true;
    if (named != NAMED) {
        if (named == NAMING_FAILED) {
            s->stuck = true;
            jc_format(s->stuck_why, sizeof s->stuck_why, "a %.*s task's input cannot be named: %s%s%s", (int)kind.len,
                        kind.ptr, err.path, err.path[0] ? ": " : "", err.message);
        }
        return NO_INDEX;
    }
    size_t found = sim_find_task(s, t.key);
    *created = found == NO_INDEX;
    if (found != NO_INDEX) return found;
    sim_task *tasks = sim_grow(s, s->tasks, &s->task_cap, s->task_count, sizeof *s->tasks);
    if (!tasks) return NO_INDEX;
    s->tasks = tasks;
    t.kind = kind;
    t.input = *input;
    t.result = ts_json_make_null();
    t.llm_answer = NO_INDEX;
    s->tasks[s->task_count] = t;
    return s->task_count++;
}

/* An edit: a user entry replacing transcript position `at` (an index into the transcript as it
 * is now); its parent is the transcript's entry at-1, none when at = 0, the leaf when at is at
 * or beyond the end. */
static void sim_apply_edit(sim *s, size_t event_index) {
    const ts_event *e = &s->scenario->events[event_index];
    size_t count;
    size_t *path = jc_sim_path(s, s->leaf, &count);
    if (!path) return;
    size_t k = e->branch_at < count ? (size_t)e->branch_at : count;
    sim_append(s, TS_ENTRY_USER, text_content(s, e->text), k == 0 ? NO_INDEX : path[k - 1], FROM_BRANCH, event_index);
    s->applied[event_index] = true;
    s->branched = true;
}

/* The inbox, waiting while idle or about to run an LLM task: one user entry each, in order. */
static void sim_consume_inbox(sim *s) {
    for (; s->inbox_consumed < s->inbox_count && !s->out_of_memory; s->inbox_consumed++) {
        size_t event = s->inbox[s->inbox_consumed];
        if (s->scenario->events[event].kind == TS_EVENT_BRANCH) {
            sim_apply_edit(s, event);
            continue;
        }
        sim_append(s, TS_ENTRY_USER, text_content(s, s->scenario->events[event].text), s->leaf, FROM_SIGNAL,
                   s->signals_consumed++);
        s->applied[event] = true;
    }
    s->phase = SIM_LLM;
}

/* One LLM task on the transcript so far, and its answer as an assistant entry. */
static void sim_llm_step(sim *s) {
    size_t count;
    size_t *path = jc_sim_path(s, s->leaf, &count);
    message_view *views = ts_arena_calloc(s->arena, count + 1, sizeof *views);
    ts_json input;
    if (!path || !views) {
        s->out_of_memory = true;
        return;
    }
    for (size_t i = 0; i < count; i++) {
        const sim_entry *e = &s->entries[path[i]];
        views[i] = (message_view){e->role, &e->content, e->timestamp};
    }
    if (!jc_llm_input(s->arena, views, count, &input)) {
        s->out_of_memory = true;
        return;
    }
    bool created = false;
    size_t t = sim_task_for(s, ts_str_from(jc_llm_kind), &input, &created);
    if (t == NO_INDEX) return;
    if (created) {
        if (s->llm_used >= s->scenario->llm_count) {
            s->stuck = true;
            jc_format(s->stuck_why, sizeof s->stuck_why,
                        "LLM task %zu needs llm[%zu], and the scenario scripts %zu answers (the testee should answer "
                        "with an error)",
                        s->llm_used, s->llm_used, s->scenario->llm_count);
            s->task_count--; /* never recorded */
            return;
        }
        s->tasks[t].status = TS_TASK_COMPLETED;
        s->tasks[t].result = s->scenario->llm[s->llm_used];
        s->tasks[t].llm_answer = s->llm_used++;
    }
    size_t k = sim_append(s, TS_ENTRY_ASSISTANT, s->tasks[t].result, s->leaf, FROM_LLM, t);
    if (k == NO_INDEX) return;
    const ts_json *calls = ts_json_get(&s->entries[k].content, "toolCalls");
    if (calls && calls->kind == TS_JSON_ARRAY && calls->u.a.count > 0) {
        s->phase = SIM_TOOLS;
        s->calls = calls;
        s->call_index = 0;
    } else {
        s->phase = SIM_IDLE;
    }
}

/* The next pending tool call: its entry, or false when the execution suspends on it. */
static bool sim_tool_step(sim *s) {
    const ts_json *call = &s->calls->u.a.items[s->call_index];
    ts_str call_id = ts_json_string(ts_json_get(call, "callId"));
    ts_str name = ts_json_string(ts_json_get(call, "name"));
    ts_json input;
    if (!jc_tool_input(s->arena, call_id, ts_json_get(call, "arguments"), &input)) {
        s->out_of_memory = true;
        return false;
    }
    bool created = false;
    size_t t = sim_task_for(s, name, &input, &created);
    if (t == NO_INDEX) return false;
    sim_task *task = &s->tasks[t];
    if (created) {
        task->call_id = call_id;
        const ts_tool_script *script = ts_scenario_tool(s->scenario, name);
        if (!script) {
            ts_buf message;
            ts_buf_init(&message);
            ts_buf_appendf(&message, "no tool named \"%.*s\"", (int)name.len, name.ptr);
            char *copy = message.data ? ts_arena_strndup(s->arena, message.data, message.len) : NULL;
            size_t len = message.len;
            ts_buf_free(&message);
            if (!copy) {
                s->out_of_memory = true;
                return false;
            }
            task->status = TS_TASK_FAILED;
            task->result = ts_json_make_string((ts_str){copy, len});
            task->error_free = true;
        } else if (script->async) {
            task->status = TS_TASK_PENDING;
        } else {
            task->status = script->failed ? TS_TASK_FAILED : TS_TASK_COMPLETED;
            task->result = script->result;
        }
    }
    if (task->status == TS_TASK_PENDING) {
        s->waiting_task = t;
        return false;
    }
    s->waiting_task = NO_INDEX;
    ts_json_builder b;
    ts_json_builder_init(&b, s->arena);
    ts_json_builder_add(&b, "callId", ts_json_make_string(call_id));
    ts_json_builder_add(&b, "name", ts_json_make_string(name));
    ts_json_builder_add(&b, task->status == TS_TASK_FAILED ? "error" : "result", task->result);
    ts_json content;
    if (!ts_json_builder_finish(&b, &content)) {
        s->out_of_memory = true;
        return false;
    }
    size_t k = sim_append_free(s, TS_ENTRY_TOOL, content, s->leaf, FROM_TOOL, t, task->error_free);
    if (k == NO_INDEX) return false;
    const ts_json *wording = ts_json_get(&s->entries[k].content, "error");
    if (task->error_free && wording) task->result = *wording; /* the engine's wording, from now on */
    if (++s->call_index == s->calls->u.a.count) s->phase = SIM_LLM;
    return true;
}

/* The loop of SPEC §6.1, until the execution suspends. */
static void sim_run(sim *s) {
    while (!s->stuck && !s->out_of_memory) {
        if (s->phase != SIM_TOOLS && s->inbox_consumed < s->inbox_count)
            sim_consume_inbox(s);
        else if (s->phase == SIM_IDLE)
            return;
        else if (s->phase == SIM_LLM)
            sim_llm_step(s);
        else if (!sim_tool_step(s))
            return;
    }
}

static void sim_complete(sim *s, ts_str call_id) {
    for (size_t i = 0; i < s->task_count; i++) {
        sim_task *t = &s->tasks[i];
        if (t->status != TS_TASK_PENDING || !ts_str_eq(t->call_id, call_id)) continue;
        const ts_tool_script *script = ts_scenario_tool(s->scenario, t->kind);
        if (!script) continue;
        t->status = script->failed ? TS_TASK_FAILED : TS_TASK_COMPLETED;
        t->result = script->result;
    }
}

/* An edit event, under the reading being derived. */
static void sim_edit_arrives(sim *s, size_t event_index) {
    bool pending = s->phase == SIM_TOOLS;
    s->event_while_pending |= pending;
    if (s->reading & EDITS_QUEUED) {
        s->inbox[s->inbox_count++] = event_index;
        return;
    }
    if (pending && s->waiting_task != NO_INDEX) s->tasks[s->waiting_task].status_open = true;
    s->waiting_task = NO_INDEX;
    s->calls = NULL;
    sim_apply_edit(s, event_index);
    s->phase = SIM_LLM;
}

void jc_sim_execute(sim *s) {
    s->leaf = NO_INDEX;
    s->waiting_task = NO_INDEX;
    size_t n = s->scenario->event_count;
    s->signals = ts_arena_calloc(s->arena, n + 1, sizeof *s->signals);
    s->inbox = ts_arena_calloc(s->arena, n + 1, sizeof *s->inbox);
    s->applied = ts_arena_calloc(s->arena, n + 1, sizeof *s->applied);
    if (!s->signals || !s->inbox || !s->applied) {
        s->out_of_memory = true;
        return;
    }
    sim_append(s, TS_ENTRY_USER, text_content(s, s->scenario->input), NO_INDEX, FROM_INPUT, 0);
    s->phase = SIM_LLM;
    sim_run(s);
    for (size_t i = 0; i < n && !s->stuck && !s->out_of_memory; i++) {
        const ts_event *e = &s->scenario->events[i];
        switch (e->kind) {
        case TS_EVENT_SIGNAL:
            s->signals[s->signal_count++] = e->text;
            s->event_while_pending |= s->phase == SIM_TOOLS;
            if ((s->reading & SIGNALS_AT_ONCE) && s->phase == SIM_TOOLS && s->inbox_consumed == s->inbox_count) {
                sim_append(s, TS_ENTRY_USER, text_content(s, e->text), s->leaf, FROM_SIGNAL, s->signals_consumed++);
                s->applied[i] = true;
            } else {
                s->inbox[s->inbox_count++] = i;
            }
            break;
        case TS_EVENT_BRANCH: sim_edit_arrives(s, i); break;
        case TS_EVENT_COMPLETE: sim_complete(s, e->call_id); break;
        case TS_EVENT_RESTART: break; /* the execution continues from its journal: nothing changes */
        case TS_EVENT_EDIT:
        case TS_EVENT_FORK:
            s->stuck = true;
            jc_format(s->stuck_why, sizeof s->stuck_why, "events[%zu]: an edit or a fork is an action of the universal "
                      "tier (op resume); the reference profile's edit is a branch event", i);
            break;
        }
        sim_run(s);
    }
}
