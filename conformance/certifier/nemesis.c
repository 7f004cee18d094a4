/* nemesis.c — the faults of a resume case; see nemesis.h. The store's side (the observer's trace,
 * the persistence model, crash states) is conformance/nemesis/fsnemesis.h's. */
#include "conformance/certifier/nemesis.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conformance/nemesis/fsnemesis.h"
#include "core/json/buf.h"
#include "core/json/json_writer.h"

enum { MAX_STATES_PER_POINT = 64 };

/* A point of the uninterrupted run, and where its crash states are in `states`. */
typedef struct point_record {
    long number;
    uint64_t store_op;       /* 0: a protocol point */
    size_t action;
    bool answered;           /* the action's answer came before it (a store operation after the answer) */
    uint64_t changes;        /* store changes applied before a kill there */
    size_t records;          /* the run's model records before a kill there */
} point_record;

typedef struct named_state {
    char name[48];
    uint64_t id;
} named_state;

struct ts_nemesis {
    ts_testee *testee;
    char case_dir[1024];
    ts_nemesis_options options;
    ts_fsnemesis *fs;          /* NULL: not observing */
    ts_kill_plan plan;
    bool recording;            /* the uninterrupted run: its points are kept */
    long next_point;
    long killed_point;         /* the plan's kill happened there (0: not yet) */
    uint64_t changes;
    bool death_seen;           /* a store operation the observer killed at was drained */
    char unmade[300];          /* the plan's power loss could not be made in this run: why ("" made) */
    char run_name[64];         /* the run's store, under the case's directory */
    ts_nemesis_observed observed; /* what the world's latest call said of the run in flight */
    ts_buf crash;              /* the run's power loss: its "crash" object's JSON text ("" none) */
    ts_buf scratch;            /* an event being written */
    ts_buf op_text;            /* a store operation's JSON text */
    ts_buf warnings;
    ts_buf run_warnings;       /* what this run offered, each piece NUL-terminated (ts_nemesis_run_warnings) */
    point_record *points;
    size_t point_count, point_cap;
    long protocol_points, store_points;
    uint64_t store_operations;
};

ts_nemesis *ts_nemesis_new(ts_testee *testee, const char *case_dir, const ts_nemesis_options *options, char *why,
                           size_t why_size) {
    ts_nemesis *n = calloc(1, sizeof *n);
    if (!n) {
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    n->testee = testee;
    snprintf(n->case_dir, sizeof n->case_dir, "%s", case_dir);
    if (options) n->options = *options;
    ts_buf_init(&n->crash);
    ts_buf_init(&n->scratch);
    ts_buf_init(&n->op_text);
    ts_buf_init(&n->warnings);
    ts_buf_init(&n->run_warnings);
    if (n->options.observe) {
        n->fs = ts_fsnemesis_new(case_dir, NULL, why, why_size);
        if (!n->fs || !ts_testee_observe(testee, ts_fsnemesis_root(n->fs), ts_fsnemesis_trace_fd(n->fs))) {
            if (n->fs) snprintf(why, why_size, "this testee cannot be observed (in-process, or not Linux x86-64)");
            ts_nemesis_free(n);
            return NULL;
        }
    }
    n->options.power_loss &= n->fs != NULL;
    return n;
}

void ts_nemesis_free(ts_nemesis *n) {
    if (!n) return;
    if (n->fs) ts_testee_observe(n->testee, NULL, -1);
    ts_fsnemesis_free(n->fs);
    ts_buf_free(&n->crash);
    ts_buf_free(&n->scratch);
    ts_buf_free(&n->op_text);
    ts_buf_free(&n->warnings);
    ts_buf_free(&n->run_warnings);
    free(n->points);
    free(n);
}

bool ts_nemesis_observing(const ts_nemesis *n) { return n->fs != NULL; }
bool ts_nemesis_power_loss(const ts_nemesis *n) { return n->options.power_loss; }

const char *ts_nemesis_warnings(const ts_nemesis *n) { return n->warnings.data ? n->warnings.data : ""; }

void ts_nemesis_merge_warning(ts_buf *warnings, const char *piece) {
    if (*piece && !strstr(warnings->data ? warnings->data : "", piece))
        ts_buf_appendf(warnings, "%s%s", warnings->len ? "; " : "", piece);
}

const ts_buf *ts_nemesis_run_warnings(const ts_nemesis *n) { return &n->run_warnings; }

/* A warning of this run: kept with the case's, and among what this run offered. */
static void offer_warning(ts_nemesis *n, const char *piece) {
    if (!*piece) return;
    ts_nemesis_merge_warning(&n->warnings, piece);
    ts_buf_append(&n->run_warnings, piece, strlen(piece) + 1);
}

bool ts_nemesis_begin_run(ts_nemesis *n, const char *name, const ts_kill_plan *plan, char *store, size_t store_size,
                          char *why, size_t why_size) {
    n->plan = plan ? *plan : (ts_kill_plan){0};
    snprintf(n->run_name, sizeof n->run_name, "%s", name);
    n->recording = n->plan.point == 0;
    n->next_point = 0;
    n->killed_point = 0;
    n->changes = 0;
    n->death_seen = false;
    n->unmade[0] = '\0';
    ts_buf_reset(&n->crash);
    ts_buf_reset(&n->run_warnings);
    if (n->recording) {
        n->point_count = 0;
        n->protocol_points = n->store_points = 0;
        n->store_operations = 0;
    }
    if (!n->fs) { /* no observer: an empty directory is all a run needs */
        snprintf(store, store_size, "%s/%s", n->case_dir, name);
        if (mkdir(store, 0700) != 0) {
            snprintf(why, why_size, "cannot make the store %s: %s", store, strerror(errno));
            return false;
        }
        return true;
    }
    if (!ts_fsnemesis_begin_run(n->fs, name, why, why_size)) return false;
    snprintf(store, store_size, "%s", ts_fsnemesis_store(n->fs));
    if (n->plan.store_op && !ts_testee_arm(n->testee, name, n->plan.store_op, true)) {
        snprintf(why, why_size, "the observer cannot be armed");
        return false;
    }
    return true;
}

/* Keeps a point of the uninterrupted run (its crash states are planned once the run is over). */
static void keep_point(ts_nemesis *n, long number, uint64_t store_op) {
    if (!ts_grow_array((void **)&n->points, &n->point_cap, n->point_count, sizeof *n->points)) return;
    n->points[n->point_count++] = (point_record){number, store_op, n->observed.action, n->observed.answered, n->changes,
                                                 n->fs ? ts_fsnemesis_records(n->fs) : 0};
}

/* The crash states of a power loss at p, named: the strict one everywhere, the single-operation
 * ones just before a sync (where the most is unsynced). Returns how many (at most max). */
static size_t states_at(const ts_nemesis *n, const point_record *p, named_state *out, size_t max) {
    if (!n->options.power_loss) return 0;
    ts_crash_state states[MAX_STATES_PER_POINT];
    bool single = ts_fsnemesis_sync_follows(n->fs, p->records);
    size_t count = ts_fsnemesis_crash_states(n->fs, p->records, single, states, MAX_STATES_PER_POINT);
    ts_buf name;
    ts_buf_init(&name);
    for (size_t i = 0; i < count && i < max; i++) {
        ts_buf_reset(&name);
        ts_crash_state_name(&states[i], &name);
        snprintf(out[i].name, sizeof out[i].name, "%s", name.data ? name.data : "");
        out[i].id = states[i].id;
    }
    ts_buf_free(&name);
    return count < max ? count : max;
}

/* Starts an event in the nemesis' scratch buffer; record_written hands it to the run's record. */
static void event_start(ts_nemesis *n, ts_json_writer *jw) {
    ts_buf_reset(&n->scratch);
    ts_jw_init_buf(jw, &n->scratch, 0);
    ts_jw_begin_object(jw);
}

/* Records the event written (an incomplete one, out of memory, is not recorded). */
static void record_written(ts_nemesis *n, ts_json_writer *jw, const ts_nemesis_observed *observed) {
    ts_jw_end_object(jw);
    if (ts_jw_finish(jw)) observed->record_event(observed->context, n->scratch.data, n->scratch.len);
}

/* One store operation drained from the trace: an event, and a point when it changes the store. */
static void on_operation(void *context, const ts_fsop *op, uint64_t number) {
    ts_nemesis *n = context;
    bool change = number && ts_fsop_mutates(op) && op->result >= 0 && !(op->flags & TS_FSOP_NOT_RUN);
    bool killed_here = op->flags & (TS_FSOP_NOT_RUN | TS_FSOP_KILLED_AFTER);
    if (number) n->store_operations += n->recording;
    long point = 0;
    if (change) {
        n->changes++;
        point = ++n->next_point;
        if (n->recording) n->store_points++, keep_point(n, point, number);
    }
    ts_buf_reset(&n->op_text);
    ts_fsop_to_json(op, &n->op_text);
    ts_json_writer jw;
    event_start(n, &jw);
    ts_jw_field_uint(&jw, "store", (unsigned long)number);
    if (point) ts_jw_field_int(&jw, "point", point);
    ts_jw_key(&jw, "op");
    ts_jw_raw(&jw, n->op_text.data ? n->op_text.data : "", n->op_text.len);
    if (n->op_text.failed) ts_jw_fail(&jw);
    record_written(n, &jw, &n->observed);
    if (killed_here && n->plan.store_op && !n->killed_point) {
        n->death_seen = true;
        n->killed_point = point ? point : n->next_point;
    }
}

static void drain(ts_nemesis *n, const ts_nemesis_observed *observed, uint64_t limit) {
    if (!n->fs) return;
    n->observed = *observed;
    char why[300];
    if (!ts_fsnemesis_drain(n->fs, ts_testee_pid(n->testee), limit, on_operation, n, why, sizeof why)) offer_warning(n, why);
}

bool ts_nemesis_at_line(ts_nemesis *n, const ts_nemesis_observed *observed, bool is_call, long *point) {
    drain(n, observed, ts_testee_stdout_offset(n->testee));
    if (!is_call) return false;
    *point = ++n->next_point;
    n->observed = *observed;
    if (n->recording) n->protocol_points++, keep_point(n, *point, 0);
    if (n->plan.point == *point && !n->plan.store_op && !n->killed_point) {
        n->killed_point = *point;
        return true;
    }
    return false;
}

/* The run's "crash" object: the state, what it did, and the killed-process run it stands beside. */
static void write_crash(ts_nemesis *n, const ts_buf *description) {
    ts_buf_reset(&n->crash);
    ts_json_writer jw;
    ts_jw_init_buf(&jw, &n->crash, 0);
    ts_jw_begin_object(&jw);
    ts_jw_field_string(&jw, "state", n->plan.crash_state);
    ts_jw_key(&jw, "description");
    ts_jw_string_len(&jw, description->data, description->len);
    if (n->plan.killed_as > 0) ts_jw_field_int(&jw, "killedAs", n->plan.killed_as);
    ts_jw_end_object(&jw);
    if (!ts_jw_finish(&jw)) ts_buf_reset(&n->crash);
}

/* The plan's power loss: the crash state written into the store (the testee is gone). */
static void power_loss(ts_nemesis *n, const ts_nemesis_observed *observed) {
    ts_buf description;
    ts_buf_init(&description);
    char why[300];
    ts_json_writer jw;
    if (ts_fsnemesis_power_loss(n->fs, n->plan.crash_state, &description, why, sizeof why)) {
        write_crash(n, &description);
        event_start(n, &jw);
        ts_jw_field_string(&jw, "power-loss", n->plan.crash_state);
        ts_jw_key(&jw, "description");
        ts_jw_string_len(&jw, description.data, description.len);
    } else { /* the run took another course, or the state cannot be written: this run proves nothing */
        snprintf(n->unmade, sizeof n->unmade, "%s", why);
        char ignored[300];
        ts_fsnemesis_restart(n->fs, ignored, sizeof ignored);
        char text[400];
        snprintf(text, sizeof text, "no power loss: %s (this run is not judged)", why);
        event_start(n, &jw);
        ts_jw_field_string(&jw, "note", text);
    }
    record_written(n, &jw, observed);
    ts_buf_free(&description);
}

bool ts_nemesis_after_death(ts_nemesis *n, const ts_nemesis_observed *observed, bool killed_at_line) {
    drain(n, observed, UINT64_MAX);
    bool ours = killed_at_line || n->death_seen;
    if (!ours) return false;
    n->death_seen = false;
    if (!killed_at_line) {
        ts_json_writer jw;
        event_start(n, &jw);
        ts_jw_field_int(&jw, "killed", n->killed_point);
        record_written(n, &jw, observed);
    }
    if (!n->fs) return true;
    char why[300];
    if (n->plan.crash_state[0]) power_loss(n, observed);
    else ts_fsnemesis_restart(n->fs, why, sizeof why); /* a killed process: the store as it left it */
    return true;
}

void ts_nemesis_restarted(ts_nemesis *n, const ts_nemesis_observed *observed) {
    drain(n, observed, UINT64_MAX);
    /* The observer of the stopped process took the arming with it: the next start's is armed
     * for what is left of the count (the run's operations are numbered across its processes). */
    uint64_t done = n->fs ? ts_fsnemesis_operations(n->fs) : 0;
    if (n->plan.store_op && !n->killed_point && n->plan.store_op > done)
        ts_testee_arm(n->testee, n->run_name, n->plan.store_op - done, true);
}

void ts_nemesis_end_run(ts_nemesis *n, const ts_nemesis_observed *observed) {
    drain(n, observed, UINT64_MAX);
    offer_warning(n, n->fs ? ts_fsnemesis_warnings(n->fs) : "");
}

long ts_nemesis_kill_point(const ts_nemesis *n) { return n->killed_point; }

const char *ts_nemesis_unmade(const ts_nemesis *n) { return n->unmade[0] ? n->unmade : NULL; }

void ts_nemesis_describe_run(const ts_nemesis *n, ts_json_writer *out) {
    if (n->crash.len) {
        ts_jw_key(out, "crash");
        ts_jw_raw(out, n->crash.data, n->crash.len);
    }
    if (n->fs) ts_jw_field_uint(out, "storeOperations", (unsigned long)ts_fsnemesis_operations(n->fs));
}

void ts_nemesis_counts(const ts_nemesis *n, long *protocol_points, long *store_points, uint64_t *store_operations) {
    *protocol_points = n->protocol_points;
    *store_points = n->store_points;
    *store_operations = n->store_operations;
}

/* ---- planning the kill runs ---- */

typedef struct identity {
    size_t action;
    bool answered;
    uint64_t what;   /* store changes (a killed process), or the crash state's id */
    bool power;
    long point;      /* the point of the run planned for it */
} identity;

/* The run planned for id's experiment: its identity, or NULL when none is yet. */
static const identity *seen(const identity *ids, size_t count, identity id) {
    for (size_t i = 0; i < count; i++)
        if (ids[i].action == id.action && ids[i].answered == id.answered && ids[i].what == id.what && ids[i].power == id.power)
            return &ids[i];
    return NULL;
}

size_t ts_nemesis_plans(const ts_nemesis *n, bool exact, ts_kill_plan **out, size_t *merged) {
    *merged = 0;
    size_t cap = n->point_count * (1 + MAX_STATES_PER_POINT) + 1, count = 0, id_count = 0;
    ts_kill_plan *plans = calloc(cap, sizeof *plans);
    identity *ids = calloc(cap, sizeof *ids);
    named_state *states = calloc(MAX_STATES_PER_POINT, sizeof *states);
    if (!plans || !ids || !states) {
        free(plans);
        free(ids);
        free(states);
        *out = NULL;
        return 0;
    }
    bool merge = !exact && n->fs; /* without the observer, nothing says two points kill the same */
    for (size_t i = 0; i < n->point_count; i++) {
        const point_record *p = &n->points[i];
        identity id = {p->action, p->answered, p->changes, false, p->number};
        const identity *same = merge ? seen(ids, id_count, id) : NULL;
        long killed_as = same ? same->point : p->number;
        if (same) (*merged)++;
        else ids[id_count++] = id, plans[count++] = (ts_kill_plan){p->number, p->store_op, "", 0};
        size_t state_count = states_at(n, p, states, MAX_STATES_PER_POINT);
        for (size_t k = 0; k < state_count; k++) {
            identity pid = {p->action, p->answered, states[k].id, true, p->number};
            if (!exact && seen(ids, id_count, pid)) {
                (*merged)++;
                continue;
            }
            ids[id_count++] = pid;
            plans[count] = (ts_kill_plan){p->number, p->store_op, "", killed_as};
            snprintf(plans[count++].crash_state, sizeof plans[0].crash_state, "%s", states[k].name);
        }
    }
    free(ids);
    free(states);
    *out = plans;
    return count;
}

bool ts_nemesis_plan_for(const ts_nemesis *n, long point, const char *crash_state, ts_kill_plan *out) {
    named_state states[MAX_STATES_PER_POINT];
    for (size_t i = 0; i < n->point_count; i++) {
        const point_record *p = &n->points[i];
        if (p->number != point) continue;
        *out = (ts_kill_plan){p->number, p->store_op, "", 0};
        if (!crash_state) return true;
        size_t count = states_at(n, p, states, MAX_STATES_PER_POINT);
        for (size_t k = 0; k < count; k++)
            if (!strcmp(states[k].name, crash_state)) {
                snprintf(out->crash_state, sizeof out->crash_state, "%s", crash_state);
                return true;
            }
        return false;
    }
    return false;
}
