/* run_cmd.c — `turnstile run` (run or resume a scenario against a SQLite journal) and
 * `turnstile journal` (print a journal's visible transcript and the rest of it as JSON). */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "conformance/cli/cli.h"
#include "core/json/codec.h"
#include "core/resume/engine.h"
#include "core/resume/store_sqlite.h"

static const char run_usage[] =
    "usage: turnstile run SCENARIO --db FILE [--sync full|normal] [--crash-before-commit K]\n"
    "\n"
    "Runs the scenario (conformance/SPEC.md section 6.1: input, scripted LLM answers and tools,\n"
    "clock, events) with the reference resume engine against the SQLite journal FILE, created\n"
    "when absent. A journal that already holds a run of this scenario is resumed: the events it\n"
    "has applied are not applied again, and the engine continues from its last checkpoint. Prints\n"
    "one line: where the execution stopped and how many commits this run made.\n"
    "\n"
    "One run owns a journal at a time: a second `turnstile run` on the same FILE says so on\n"
    "stderr and waits, before reading or writing anything, until the first has finished (60 s at\n"
    "most; --wait-owner); then it resumes what the first left (nothing, when the first reached the\n"
    "last event). Past the wait it exits 1 naming the owner's pid (and whether it is stopped).\n"
    "FILE must be a regular file (or a symlink to one) on a local file system.\n"
    "A scenario may hold at most 1,000,000 steps (events, LLM answers and scripted tool calls)\n"
    "and (1 + restarts + branches) x steps at most 100,000,000 (core/resume/scenario.h).\n"
    "\n"
    "options:\n"
    "  --db FILE                 the journal (SQLite, WAL mode); required\n"
    "  --sync full|normal        SQLite synchronous setting (default full: a commit survives power loss)\n"
    "  --crash-before-commit K   stop as if the process died just before commit K (then run again)\n"
    "  --wait-owner SECONDS      how long to wait for another run that owns FILE (default 60;\n"
    "                            0: fail at once)\n"
    "  --max-input-bytes N       refuse a SCENARIO longer than N bytes (K, M, G; default 256M; 0: none)\n"
    "  --help                    this text\n"
    "\n"
    "exit status: 0 the run reached its last event (or the simulated crash); 2 bad usage or a\n"
    "scenario that is not valid (the error names the field); 1 a storage or engine failure\n"
    "(the error says which; the journal is left as its last complete commit).\n";

static const char journal_usage[] =
    "usage: turnstile journal --db FILE [--pretty] [--transcript] [--numbered-ids]\n"
    "\n"
    "Prints the journal in FILE as JSON (conformance/PROTOCOL.md, op journal): executionId, the\n"
    "visible transcript (root to the last checkpoint's leaf), every entry, tasks (each LLM\n"
    "task's input is its transcript, in canonical form), signals, the checkpoint and\n"
    "eventsApplied. --transcript prints the transcript alone. --numbered-ids replaces every\n"
    "entry id by its position, \"#0\", \"#1\"... (entry ids are random: two runs of one scenario\n"
    "compare equal this way).\n"
    "\n"
    "It only reads: nothing is written or created (no schema in an empty file, no -wal or -shm\n"
    "files), and it works in a read-only directory and while a run is writing FILE. Every row is\n"
    "checked as it is read (UTF-8, JSON, ids, task keys, the journal's invariants). A journal a\n"
    "run is creating (empty so far) is read again for up to 2 s, then refused as empty, never as\n"
    "\"not a turnstile journal\".\n"
    "\n"
    "exit status: 0 printed; 2 bad usage or no such journal; 1 the journal cannot be read\n"
    "(an empty file, a newer schema, another application's database, a damaged row: the error\n"
    "says which).\n";

static bool file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

static bool emit_stdout(void *context, const char *data, size_t len) {
    (void)context;
    return fwrite(data, 1, len, stdout) == len;
}

static int print_value(const ts_json *value, bool pretty, const char *command) {
    ts_buf out;
    ts_buf_init(&out);
    bool ok = ts_codec_write(&out, value, pretty ? TS_WRITE_PRETTY : TS_WRITE_COMPACT);
    ts_buf_append_char(&out, '\n');
    ok = ok && !out.failed && fwrite(out.data, 1, out.len, stdout) == out.len && fflush(stdout) == 0;
    ts_buf_free(&out);
    if (!ok) fprintf(stderr, "turnstile %s: cannot write the journal\n", command);
    return ok ? TS_EXIT_OK : TS_EXIT_FAILURE;
}

static void say_waiting(void *context, const char *path) {
    const ts_sqlite_options *o = context;
    fprintf(stderr, "turnstile run: %s: another process is running this journal; waiting for it to finish (%.3g s at most)\n",
            path, o->owner_wait_seconds);
}

/* `turnstile run`'s command line. */
typedef struct run_args {
    const char *scenario_path, *db;
    ts_sqlite_options sqlite_options;
    ts_engine_options options;
    size_t max_input;
    const char *wait_text;
    double wait_owner;
} run_args;

/* Reads the command line into a (defaults first). -1 to go on, else the exit status (help
 * printed, or a usage error said). */
static int parse_run_args(int argc, char **argv, run_args *a) {
    *a = (run_args){.max_input = TS_CLI_MAX_INPUT_DEFAULT, .wait_owner = 60};
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(run_usage, stdout);
            return TS_EXIT_OK;
        } else if (strcmp(argv[i], "--db") == 0 && i + 1 < argc) {
            a->db = argv[++i];
        } else if (strcmp(argv[i], "--sync") == 0 && i + 1 < argc) {
            const char *mode = argv[++i];
            if (strcmp(mode, "full") == 0) a->sqlite_options.synchronous = TS_SQLITE_SYNC_FULL;
            else if (strcmp(mode, "normal") == 0) a->sqlite_options.synchronous = TS_SQLITE_SYNC_NORMAL;
            else {
                fprintf(stderr, "turnstile run: --sync takes full or normal, not '%s'\n", mode);
                return TS_EXIT_USAGE;
            }
        } else if (strcmp(argv[i], "--crash-before-commit") == 0 && i + 1 < argc) {
            unsigned long long k;
            if (!ts_cli_parse_whole("run", "--crash-before-commit", argv[++i], 1, UINT32_MAX, &k)) return TS_EXIT_USAGE;
            a->options.crash_before_commit = k;
            a->options.stop_at_crash = true;
        } else if (strcmp(argv[i], "--max-input-bytes") == 0 && i + 1 < argc) {
            if (!ts_cli_parse_max_input("run", argv[++i], &a->max_input)) return TS_EXIT_USAGE;
        } else if (strcmp(argv[i], "--wait-owner") == 0 && i + 1 < argc) {
            a->wait_text = argv[++i];
            if (strcmp(a->wait_text, "0") != 0 &&
                !ts_cli_parse_real("run", "--wait-owner", a->wait_text, 0, 1e9, &a->wait_owner))
                return TS_EXIT_USAGE;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "turnstile run: unknown option or missing value '%s' (see turnstile run --help)\n", argv[i]);
            return TS_EXIT_USAGE;
        } else if (a->scenario_path) {
            fprintf(stderr, "turnstile run: one scenario at most (see turnstile run --help)\n");
            return TS_EXIT_USAGE;
        } else {
            a->scenario_path = argv[i];
        }
    }
    if (!a->scenario_path || !a->db) {
        fprintf(stderr, "turnstile run: a SCENARIO and --db FILE are required (see turnstile run --help)\n");
        return TS_EXIT_USAGE;
    }
    return -1;
}

int ts_cli_run(int argc, char **argv) {
    run_args a;
    int parsed = parse_run_args(argc, argv, &a);
    if (parsed >= 0) return parsed;
    const char *scenario_path = a.scenario_path, *db = a.db, *wait_text = a.wait_text;
    ts_sqlite_options sqlite_options = a.sqlite_options;
    char *data = NULL;
    size_t len = 0;
    if (ts_cli_read_input(scenario_path, a.max_input, &data, &len) != 0) return TS_EXIT_USAGE;
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json doc;
    ts_scenario scenario;
    ts_error err;
    ts_error_clear(&err);
    int status = TS_EXIT_OK;
    ts_store *store = NULL;
    char message[700];
    if (!ts_codec_parse(&arena, data, len, &doc, &err) || !ts_scenario_from_json(&doc, &arena, &scenario, &err)) {
        if (err.line == 0) ts_codec_locate(data, len, err.path, &err); /* a field error: where it stands */
        ts_error_format(&err, scenario_path, message, sizeof message);
        fprintf(stderr, "turnstile run: %s\n", message);
        status = TS_EXIT_USAGE;
        goto done;
    }
    bool fail_at_once = wait_text && strcmp(wait_text, "0") == 0;
    sqlite_options.owner = fail_at_once ? TS_SQLITE_OWNER_FAIL : TS_SQLITE_OWNER_WAIT; /* one run owns a journal at a time */
    sqlite_options.on_wait = say_waiting;
    sqlite_options.on_wait_context = &sqlite_options;
    sqlite_options.owner_wait_seconds = a.wait_owner;
    store = ts_sqlite_store_open(db, &sqlite_options, &err);
    if (!store) {
        fprintf(stderr, "turnstile run: %s: %s\n", db, err.message);
        status = TS_EXIT_FAILURE;
        goto done;
    }
    ts_engine_state state;
    uint64_t commits = 0;
    if (!ts_engine_drive(store, &scenario, &a.options, &state, &commits, &err)) {
        fprintf(stderr, "turnstile run: %s: %s (after %llu commits)\n", db, err.message, (unsigned long long)commits);
        status = TS_EXIT_FAILURE;
        goto done;
    }
    printf("%s: %s after %llu commit%s\n", db,
           state == TS_ENGINE_CRASHED        ? "stopped by the simulated crash (run again to resume)"
           : state == TS_ENGINE_WAITING_TASK ? "suspended, waiting for a tool's result"
                                             : "suspended, waiting for a signal",
           (unsigned long long)commits, commits == 1 ? "" : "s");
done:
    ts_store_close(store);
    ts_arena_free(&arena);
    free(data);
    return status;
}

/* The visible transcript alone: the path's entries (no task inputs are written out). */
static int print_transcript(const ts_journal *journal, bool pretty, bool numbered) {
    ts_arena arena;
    ts_arena_init(&arena);
    const ts_entry **path = NULL;
    size_t count = 0;
    ts_error err;
    ts_error_clear(&err);
    int status = TS_EXIT_FAILURE;
    ts_json *items = NULL;
    if (journal->has_checkpoint && !ts_journal_path(journal, journal->checkpoint.leaf_id, &arena, &path, &count, &err)) {
        fprintf(stderr, "turnstile journal: %s\n", err.message);
    } else if (!(items = ts_arena_alloc(&arena, (count ? count : 1) * sizeof *items))) {
        fprintf(stderr, "turnstile journal: out of memory\n");
    } else {
        bool ok = true;
        for (size_t i = 0; i < count && ok; i++) ok = ts_entry_to_json(path[i], &arena, &items[i]);
        ts_json transcript = {TS_JSON_ARRAY, {.a = {items, count}}}, shown = transcript;
        if (numbered) { /* numbered by position in the transcript: the ids' order in "entries" is not here */
            ts_json_builder b;
            ts_json_builder_init(&b, &arena);
            ts_json_builder_add(&b, "entries", transcript);
            ts_json wrapper, renumbered;
            ok = ok && ts_json_builder_finish(&b, &wrapper) &&
                 ts_journal_json_without_ids(&wrapper, &arena, &renumbered);
            if (ok) shown = *ts_json_get(&renumbered, "entries");
        }
        if (ok) status = print_value(&shown, pretty, "journal");
        else fprintf(stderr, "turnstile journal: out of memory\n");
    }
    ts_arena_free(&arena);
    return status;
}

int ts_cli_journal(int argc, char **argv) {
    const char *db = NULL;
    bool pretty = false, transcript_only = false, numbered = false;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(journal_usage, stdout);
            return TS_EXIT_OK;
        } else if (strcmp(argv[i], "--db") == 0 && i + 1 < argc) {
            db = argv[++i];
        } else if (strcmp(argv[i], "--pretty") == 0) {
            pretty = true;
        } else if (strcmp(argv[i], "--transcript") == 0) {
            transcript_only = true;
        } else if (strcmp(argv[i], "--numbered-ids") == 0) {
            numbered = true;
        } else {
            fprintf(stderr, "turnstile journal: unknown argument '%s' (see turnstile journal --help)\n", argv[i]);
            return TS_EXIT_USAGE;
        }
    }
    if (!db) {
        fprintf(stderr, "turnstile journal: --db FILE is required (see turnstile journal --help)\n");
        return TS_EXIT_USAGE;
    }
    if (!file_exists(db)) {
        fprintf(stderr, "turnstile journal: %s: no such journal\n", db);
        return TS_EXIT_USAGE;
    }
    ts_error err;
    ts_error_clear(&err);
    ts_sqlite_options options = {.read_only = true, .creation_wait_seconds = 2};
    ts_store *store = ts_sqlite_store_open(db, &options, &err);
    if (!store) {
        fprintf(stderr, "turnstile journal: %s: %s\n", db, err.message);
        return TS_EXIT_FAILURE;
    }
    ts_arena arena;
    ts_arena_init(&arena);
    ts_journal journal;
    ts_journal_init(&journal);
    int status = TS_EXIT_OK;
    if (!ts_store_load(store, &arena, &journal, &err)) {
        fprintf(stderr, "turnstile journal: %s: %s\n", db, err.message);
        status = TS_EXIT_FAILURE;
    } else if (transcript_only) {
        status = print_transcript(&journal, pretty, numbered);
    } else if (numbered) { /* the whole form, renumbered: built in memory */
        ts_json value, renumbered;
        if (!ts_journal_to_json(&journal, &arena, &value, &err) ||
            !ts_journal_json_without_ids(&value, &arena, &renumbered)) {
            fprintf(stderr, "turnstile journal: %s: %s\n", db, err.message[0] ? err.message : "out of memory");
            status = TS_EXIT_FAILURE;
        } else {
            status = print_value(&renumbered, pretty, "journal");
        }
    } else { /* streamed: memory stays bounded by the largest task, not the form */
        bool ok = ts_journal_write_json(&journal, pretty ? TS_WRITE_PRETTY : TS_WRITE_COMPACT, emit_stdout, NULL, &err) &&
                  fputc('\n', stdout) != EOF && fflush(stdout) == 0;
        if (!ok) {
            fprintf(stderr, "turnstile journal: %s: %s\n", db, err.message[0] ? err.message : "cannot write the journal");
            status = TS_EXIT_FAILURE;
        }
    }
    ts_journal_free(&journal);
    ts_arena_free(&arena);
    ts_store_close(store);
    return status;
}
