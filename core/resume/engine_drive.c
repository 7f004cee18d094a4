/* engine_drive.c — the scenario driver of the resume engine; see engine.h (ts_engine_drive) and
 * engine_internal.h.
 *
 * The outside world's events are written to the store (each write conditional on the events
 * applied so far: store.h) and then told to the running engine, whose mirror follows without
 * reading the journal again: a run costs time in proportion to its steps, not to the square
 * of its length. A restart event, a simulated crash and a write of the after_turn hook
 * rebuild the engine from the store, as a new process would; the hook rebuild_at_every_event
 * rebuilds it at every event (engine.h), as many frameworks resume an execution for every
 * event that wakes it.
 */
#include <string.h>

#include "core/resume/engine_internal.h"

static bool oom(ts_error *err) {
    ts_error_set(err, TS_ERR_NOMEM, "out of memory");
    return false;
}

/* The scripted result of a pending tool task, by the tool's name (the task's kind). */
static bool complete_event(ts_store *store, ts_engine *engine, const ts_scenario *scenario, const ts_event *ev,
                           uint64_t number, ts_arena *arena, ts_error *err) {
    const ts_task *pending = ts_engine_pending_task_of_call(engine, ev->call_id, arena);
    if (!pending) { /* nothing is waiting for it */
        if (!ts_store_mark_event(store, number, err)) return false;
        ts_engine_note_event(engine, number);
        return true;
    }
    ts_task done = *pending;
    const ts_tool_script *tool = ts_scenario_tool(scenario, pending->kind);
    done.status = tool && !tool->failed ? TS_TASK_COMPLETED : TS_TASK_FAILED;
    done.result = tool ? tool->result : ts_json_make_string(ts_str_from("no such tool"));
    return ts_store_complete_task(store, &done, number, err) && ts_engine_note_completion(engine, &done, number, err);
}

/* Applies scenario event number `next` (0-based) to the store and tells the engine. */
static bool apply_event(ts_store *store, ts_engine *engine, const ts_scenario *scenario, uint64_t next,
                        ts_arena *scratch, ts_error *err) {
    const ts_event *ev = &scenario->events[next];
    switch (ev->kind) {
    case TS_EVENT_SIGNAL:
    case TS_EVENT_BRANCH: {
        ts_json_builder b;
        ts_json_builder_init(&b, scratch);
        ts_json_builder_add(&b, "text", ts_json_make_string(ev->text));
        if (ev->kind == TS_EVENT_BRANCH) ts_json_builder_add(&b, "branchFrom", ts_json_make_int((int64_t)ev->branch_at));
        ts_json signal;
        if (!ts_json_builder_finish(&b, &signal)) return oom(err);
        return ts_store_deliver_signal(store, &signal, next + 1, err) &&
               ts_engine_note_signal(engine, &signal, next + 1, err);
    }
    case TS_EVENT_COMPLETE: return complete_event(store, engine, scenario, ev, next + 1, scratch, err);
    case TS_EVENT_RESTART:
        if (!ts_store_mark_event(store, next + 1, err)) return false;
        ts_engine_note_event(engine, next + 1);
        return true;
    case TS_EVENT_EDIT:
    case TS_EVENT_FORK:
        ts_error_set(err, TS_ERR_INPUT, "events[%llu]: an %s is an action of the universal tier (op resume, SPEC 6.4); the reference "
                     "profile's edit is {\"branch\": K, \"text\": ...}", (unsigned long long)next,
                     ev->kind == TS_EVENT_EDIT ? "edit" : "fork");
        return false;
    }
    ts_error_set(err, TS_ERR_INPUT, "event %llu has an unknown kind", (unsigned long long)next);
    return false;
}

bool ts_engine_drive(ts_store *store, const ts_scenario *scenario, const ts_engine_options *options,
                     ts_engine_state *out, uint64_t *commits_out, ts_error *err) {
    ts_engine_options run_options = options ? *options : (ts_engine_options){0};
    static const ts_engine_hooks reference = {0};
    const ts_engine_hooks *hooks = run_options.hooks ? run_options.hooks : &reference;
    uint64_t commits = 0;
    bool ok = false;
    ts_arena scratch;
    ts_arena_init(&scratch);
    ts_scenario_world world;
    ts_scenario_world_init(&world, scenario);
    ts_engine *engine = NULL;
    for (;;) {
        if (!engine) {
            if (run_options.crash_before_commit && run_options.crash_before_commit <= commits)
                run_options.crash_before_commit = 0; /* one crash per drive */
            ts_engine_options these = run_options;
            if (these.crash_before_commit) these.crash_before_commit -= commits;
            engine = ts_engine_open(store, &world.base, scenario->execution_id, scenario->input, &these, err);
            if (!engine) goto done;
        }
        uint64_t before = ts_engine_commits(engine);
        ts_engine_state state;
        bool ran = ts_engine_run(engine, &state, err);
        commits += ts_engine_commits(engine) - before;
        if (!ran) goto done;
        if (state == TS_ENGINE_CRASHED && run_options.stop_at_crash) {
            *out = state;
            ok = true;
            goto done;
        }
        if (state == TS_ENGINE_CRASHED) {
            run_options.crash_before_commit = 0;
            ts_engine_close(engine);
            engine = NULL;
            continue;
        }
        if (state == TS_ENGINE_WAITING_SIGNAL && hooks->after_turn && ts_engine_commits(engine) > before) {
            if (!hooks->after_turn(run_options.hooks_context, store, ts_engine_journal(engine), &scratch, err)) goto done;
            commits++;
            ts_engine_close(engine); /* its mirror is behind the store now */
            engine = NULL;
            continue;
        }
        uint64_t next = ts_engine_journal(engine)->events_applied;
        if (next > scenario->event_count) { /* never skip events without a word */
            ts_error_set(err, TS_ERR_INPUT,
                         "the journal has applied %llu events, but the scenario has %zu: it is another scenario's "
                         "journal, or a damaged one",
                         (unsigned long long)next, scenario->event_count);
            goto done;
        }
        if (next == scenario->event_count) {
            *out = state;
            ok = true;
            goto done;
        }
        ts_arena_free(&scratch);
        if (!apply_event(store, engine, scenario, next, &scratch, err)) goto done;
        if (scenario->events[next].kind == TS_EVENT_RESTART || hooks->rebuild_at_every_event) {
            ts_engine_close(engine); /* a restart: rebuilt from the store */
            engine = NULL;
        }
    }
done:
    ts_engine_close(engine);
    ts_arena_free(&scratch);
    if (commits_out) *commits_out = commits;
    return ok;
}
