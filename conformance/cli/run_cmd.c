/* run_cmd.c — `turnstile run` (run or resume a scenario against a SQLite journal) and
 * `turnstile journal` (print a journal's visible transcript and the rest of it as JSON). */
#include <stdbool.h>
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
    "options:\n"
    "  --db FILE                 the journal (SQLite, WAL mode); required\n"
    "  --sync full|normal        SQLite synchronous setting (default full: a commit survives power loss)\n"
    "  --crash-before-commit K   stop as if the process died just before commit K (then run again)\n"
    "  --max-input-bytes N       refuse a SCENARIO longer than N bytes (K, M, G; default 256M; 0: none)\n"
    "  --help                    this text\n"
    "\n"
    "exit status: 0 the run reached its last event (or the simulated crash); 2 bad usage or a\n"
    "scenario that is not valid (the error names the field); 1 a storage or engine failure\n"
    "(the error says which; the journal is left as its last complete commit).\n";

static const char journal_usage[] =
    "usage: turnstile journal --db FILE [--pretty] [--transcript]\n"
    "\n"
    "Prints the journal in FILE as JSON (conformance/PROTOCOL.md, op journal): executionId, the\n"
    "visible transcript (root to the last checkpoint's leaf), every entry, tasks, signals, the\n"
    "checkpoint and eventsApplied. --transcript prints the transcript alone.\n"
    "\n"
    "exit status: 0 printed; 2 bad usage or no such journal; 1 the journal cannot be read\n"
    "(a newer schema, another application's database, corrupt rows: the error says which).\n";

static bool file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
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

int ts_cli_run(int argc, char **argv) {
    const char *scenario_path = NULL, *db = NULL;
    ts_sqlite_options sqlite_options = {0};
    ts_engine_options options = {0};
    size_t max_input = TS_CLI_MAX_INPUT_DEFAULT;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(run_usage, stdout);
            return TS_EXIT_OK;
        } else if (strcmp(argv[i], "--db") == 0 && i + 1 < argc) {
            db = argv[++i];
        } else if (strcmp(argv[i], "--sync") == 0 && i + 1 < argc) {
            const char *mode = argv[++i];
            if (strcmp(mode, "full") == 0) sqlite_options.synchronous = TS_SQLITE_SYNC_FULL;
            else if (strcmp(mode, "normal") == 0) sqlite_options.synchronous = TS_SQLITE_SYNC_NORMAL;
            else {
                fprintf(stderr, "turnstile run: --sync takes full or normal, not '%s'\n", mode);
                return TS_EXIT_USAGE;
            }
        } else if (strcmp(argv[i], "--crash-before-commit") == 0 && i + 1 < argc) {
            char *end;
            unsigned long long k = strtoull(argv[++i], &end, 10);
            if (*end || k == 0) {
                fprintf(stderr, "turnstile run: --crash-before-commit takes a positive integer\n");
                return TS_EXIT_USAGE;
            }
            options.crash_before_commit = k;
            options.stop_at_crash = true;
        } else if (strcmp(argv[i], "--max-input-bytes") == 0 && i + 1 < argc) {
            if (!ts_cli_parse_max_input("run", argv[++i], &max_input)) return TS_EXIT_USAGE;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            fprintf(stderr, "turnstile run: unknown option or missing value '%s' (see turnstile run --help)\n", argv[i]);
            return TS_EXIT_USAGE;
        } else if (scenario_path) {
            fprintf(stderr, "turnstile run: one scenario at most (see turnstile run --help)\n");
            return TS_EXIT_USAGE;
        } else {
            scenario_path = argv[i];
        }
    }
    if (!scenario_path || !db) {
        fprintf(stderr, "turnstile run: a SCENARIO and --db FILE are required (see turnstile run --help)\n");
        return TS_EXIT_USAGE;
    }
    char *data = NULL;
    size_t len = 0;
    if (ts_cli_read_input(scenario_path, max_input, &data, &len) != 0) return TS_EXIT_USAGE;
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
    store = ts_sqlite_store_open(db, &sqlite_options, &err);
    if (!store) {
        fprintf(stderr, "turnstile run: %s: %s\n", db, err.message);
        status = TS_EXIT_FAILURE;
        goto done;
    }
    ts_engine_state state;
    uint64_t commits = 0;
    if (!ts_engine_drive(store, &scenario, &options, &state, &commits, &err)) {
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

int ts_cli_journal(int argc, char **argv) {
    const char *db = NULL;
    bool pretty = false, transcript_only = false;
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
        } else {
            fprintf(stderr, "turnstile journal: unknown argument '%s' (see turnstile journal --help)\n", argv[i]);
            return TS_EXIT_USAGE;
        }
    }
    if (!db) {
        fprintf(stderr, "turnstile journal: --db FILE is required (see turnstile journal --help)\n");
        return TS_EXIT_USAGE;
    }
    if (!file_exists(db)) { /* opening would create an empty journal */
        fprintf(stderr, "turnstile journal: %s: no such journal\n", db);
        return TS_EXIT_USAGE;
    }
    ts_error err;
    ts_error_clear(&err);
    ts_store *store = ts_sqlite_store_open(db, NULL, &err);
    if (!store) {
        fprintf(stderr, "turnstile journal: %s: %s\n", db, err.message);
        return TS_EXIT_FAILURE;
    }
    ts_arena arena;
    ts_arena_init(&arena);
    ts_journal journal;
    ts_journal_init(&journal);
    ts_json value;
    int status;
    if (!ts_store_load(store, &arena, &journal, &err) || !ts_journal_to_json(&journal, &arena, &value, &err)) {
        fprintf(stderr, "turnstile journal: %s: %s\n", db, err.message);
        status = TS_EXIT_FAILURE;
    } else {
        const ts_json *transcript = ts_json_get(&value, "transcript");
        status = print_value(transcript_only ? transcript : &value, pretty, "journal");
    }
    ts_journal_free(&journal);
    ts_arena_free(&arena);
    ts_store_close(store);
    return status;
}
