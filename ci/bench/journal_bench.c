/* journal_bench.c — the journal stores' commit throughput and resume time, each beside its floor
 * (run ci/bench/journal_bench.sh, which adds the peers that are other programs).
 *
 * usage: journal_bench commits DIR normal|full COMMITS RUNS
 *        journal_bench resume DIR ENTRIES RUNS
 *
 * commits: a fresh journal in DIR, one execution, then COMMITS commits, each one entry (a child
 * of the previous one, ~200 bytes of content, a 7-digit-fraction timestamp) and a checkpoint —
 * the engine's smallest durable step, one transaction. Beside it, in the same run and on the
 * same disk, the floor: raw SQLite, one INSERT of the same bytes per transaction (a prepared
 * statement, WAL, the same synchronous setting) — and the memory store (the commit rules and
 * the copy alone, no I/O). Each line: the median of RUNS fresh runs, wall and CPU seconds.
 *
 * resume: two journals of ENTRIES entries, each measured RUNS times (median):
 *   - entries only (built in commits of 1,000): ts_sqlite_store_open + ts_store_load, as an
 *     engine pays to read it, every row checked; its floor is the codec parsing the content
 *     column alone;
 *   - an engine's journal: ENTRIES/2 simple turns driven by the reference engine (a signal, a
 *     user entry, an LLM task kept as its leaf, an assistant entry), then ts_sqlite_store_open +
 *     ts_engine_open — the load, every row and every task key checked against its transcript,
 *     and the conversation rebuilt with its running key: the whole resume.
 * Prints tab-separated lines "name<TAB>count<TAB>wall<TAB>cpu<TAB>extra" for the script to
 * tabulate; exits non-zero if any call fails. A benchmark: no thresholds.
 */
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/json/buf.h"
#include "core/json/codec.h"
#include "core/resume/engine.h"
#include "core/resume/store.h"
#include "core/resume/store_memory.h"
#include "core/resume/store_sqlite.h"

static const char EXECUTION_ID[] = "00000000-0000-4000-8000-0000000000be";

static double clock_seconds(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Wall time, and this process's CPU time (user + system). */
typedef struct timing {
    double wall, cpu;
} timing;

static timing timing_now(void) {
    return (timing){clock_seconds(CLOCK_MONOTONIC), clock_seconds(CLOCK_PROCESS_CPUTIME_ID)};
}

static timing timing_since(timing start) {
    timing end = timing_now();
    return (timing){end.wall - start.wall, end.cpu - start.cpu};
}

static int by_wall(const void *a, const void *b) {
    double x = ((const timing *)a)->wall, y = ((const timing *)b)->wall;
    return x < y ? -1 : x > y;
}

/* The run with the median wall time (its CPU time with it). */
static timing median(timing *runs, int count) {
    qsort(runs, (size_t)count, sizeof *runs, by_wall);
    return runs[count / 2];
}

static void die(const char *what, const ts_error *err) {
    fprintf(stderr, "journal_bench: %s: %s\n", what, err ? err->message : "");
    exit(1);
}

static void uuid_of(uint64_t n, char out[TS_UUID_TEXT]) {
    snprintf(out, TS_UUID_TEXT, "%08" PRIx32 "-0000-4000-8000-%012" PRIx64, (uint32_t)(n >> 16), n & 0xffffffffffffu);
}

static int content_text(uint64_t i, char *out, size_t size) {
    return snprintf(out, size,
                    "{\"text\":\"Turn %" PRIu64 ": the forecast for Oslo is 21.5 \xc2\xb0""C with light wind from the "
                    "south-west; Bergen expects rain after noon, as usual.\",\"usage\":{\"in\":%" PRIu64 ",\"out\":42}}",
                    i, i * 7 % 1000);
}

/* Entry number i (1-based) and a checkpoint whose leaf it is. */
typedef struct bench_item {
    ts_arena arena;
    ts_entry entry;
    ts_checkpoint checkpoint;
} bench_item;

static void make_item(bench_item *item, uint64_t i) {
    ts_arena_free(&item->arena);
    char text[512];
    content_text(i, text, sizeof text);
    ts_error err;
    ts_error_clear(&err);
    memset(&item->entry, 0, sizeof item->entry);
    uuid_of(i, item->entry.id);
    if (i > 1) uuid_of(i - 1, item->entry.parent_id);
    item->entry.role = i % 2 ? TS_ENTRY_USER : TS_ENTRY_ASSISTANT;
    if (!ts_codec_parse(&item->arena, text, strlen(text), &item->entry.content, &err)) die("content", &err);
    char timestamp[64];
    snprintf(timestamp, sizeof timestamp, "2026-05-13T%02" PRIu64 ":%02" PRIu64 ":%02" PRIu64 ".%07" PRIu64 "+00:00",
             i / 3600 % 24, i / 60 % 60, i % 60, i * 7919 % 10000000);
    item->entry.timestamp = ts_str_dup(&item->arena, ts_str_from(timestamp));
    memset(&item->checkpoint, 0, sizeof item->checkpoint);
    uuid_of(i, item->checkpoint.leaf_id);
    char state[128];
    snprintf(state, sizeof state, "{\"phase\":\"llm\",\"pending\":[],\"next\":%" PRIu64 "}", i);
    if (!ts_codec_parse(&item->arena, state, strlen(state), &item->checkpoint.state, &err)) die("state", &err);
}

static void remove_db(const char *path) {
    static const char *const suffixes[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        char file[1100];
        snprintf(file, sizeof file, "%s%s", path, suffixes[i]);
        unlink(file);
    }
}

static ts_store *open_fresh(const char *path, ts_sqlite_synchronous synchronous) {
    remove_db(path);
    ts_sqlite_options options = {.synchronous = synchronous};
    ts_error err;
    ts_error_clear(&err);
    ts_store *store = ts_sqlite_store_open(path, &options, &err);
    if (!store) die("open", &err);
    return store;
}

/* ----------------------------------------------------------------------- commits -------- */

/* COMMITS commits of one entry + checkpoint each (the values built beforehand, as an engine
 * holds them); returns the time the commits took. */
static timing time_commits(ts_store *store, uint64_t commits) {
    ts_error err;
    ts_error_clear(&err);
    if (!ts_store_begin_execution(store, EXECUTION_ID, &err)) die("begin_execution", &err);
    bench_item *items = calloc(commits, sizeof *items);
    if (!items) die("out of memory", NULL);
    for (uint64_t i = 0; i < commits; i++) {
        make_item(&items[i], i + 1);
        items[i].checkpoint.sequence = i + 1;
    }
    timing start = timing_now();
    for (uint64_t i = 0; i < commits; i++) {
        ts_commit commit = {&items[i].entry, 1, NULL, 0, &items[i].checkpoint};
        if (!ts_store_commit(store, &commit, &err)) die("commit", &err);
    }
    timing took = timing_since(start);
    for (uint64_t i = 0; i < commits; i++) ts_arena_free(&items[i].arena);
    free(items);
    return took;
}

static void sql_or_die(sqlite3 *db, int rc, const char *what) {
    if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW) {
        fprintf(stderr, "journal_bench: raw SQLite: %s: %s\n", what, sqlite3_errmsg(db));
        exit(1);
    }
}

/* The floor: raw SQLite, one INSERT of an entry's bytes (id, parent, content, timestamp) per
 * transaction, prepared once, WAL, the given synchronous setting. */
static timing time_raw_inserts(const char *path, bool full, uint64_t commits) {
    remove_db(path);
    sqlite3 *db = NULL;
    sql_or_die(db, sqlite3_open(path, &db), "open");
    char pragmas[128];
    snprintf(pragmas, sizeof pragmas, "PRAGMA journal_mode = WAL; PRAGMA synchronous = %s;", full ? "FULL" : "NORMAL");
    sql_or_die(db, sqlite3_exec(db, pragmas, NULL, NULL, NULL), "pragmas");
    sql_or_die(db, sqlite3_exec(db, "CREATE TABLE t(seq INTEGER PRIMARY KEY, id TEXT, parent TEXT, content TEXT, ts TEXT)",
                                NULL, NULL, NULL),
               "create");
    sqlite3_stmt *begin, *insert, *commit;
    sql_or_die(db, sqlite3_prepare_v2(db, "BEGIN IMMEDIATE", -1, &begin, NULL), "prepare");
    sql_or_die(db, sqlite3_prepare_v2(db, "INSERT INTO t(id, parent, content, ts) VALUES (?1, ?2, ?3, ?4)", -1, &insert, NULL),
               "prepare");
    sql_or_die(db, sqlite3_prepare_v2(db, "COMMIT", -1, &commit, NULL), "prepare");
    timing start = timing_now();
    for (uint64_t i = 1; i <= commits; i++) {
        char id[TS_UUID_TEXT], parent[TS_UUID_TEXT], text[512], ts[64];
        uuid_of(i, id);
        uuid_of(i - 1, parent);
        int len = content_text(i, text, sizeof text);
        snprintf(ts, sizeof ts, "2026-05-13T10:00:00.%07" PRIu64 "+00:00", i % 10000000);
        sql_or_die(db, sqlite3_step(begin), "BEGIN");
        sqlite3_reset(begin);
        sqlite3_bind_text(insert, 1, id, -1, SQLITE_STATIC);
        sqlite3_bind_text(insert, 2, parent, -1, SQLITE_STATIC);
        sqlite3_bind_text(insert, 3, text, len, SQLITE_STATIC);
        sqlite3_bind_text(insert, 4, ts, -1, SQLITE_STATIC);
        sql_or_die(db, sqlite3_step(insert), "INSERT");
        sqlite3_reset(insert);
        sql_or_die(db, sqlite3_step(commit), "COMMIT");
        sqlite3_reset(commit);
    }
    timing took = timing_since(start);
    sqlite3_finalize(begin);
    sqlite3_finalize(insert);
    sqlite3_finalize(commit);
    sqlite3_close(db);
    return took;
}

static void report(const char *name, uint64_t count, timing t, double extra) {
    printf("%s\t%" PRIu64 "\t%.6f\t%.6f\t%.3f\n", name, count, t.wall, t.cpu, extra);
    fflush(stdout);
}

static void bench_commits(const char *dir, bool full, uint64_t commits, int runs) {
    char path[1024];
    timing *ours = calloc((size_t)runs, sizeof *ours), *raw = calloc((size_t)runs, sizeof *raw);
    timing *memory = calloc((size_t)runs, sizeof *memory);
    if (!ours || !raw || !memory) die("out of memory", NULL);
    for (int r = 0; r < runs; r++) { /* interleaved, so a noisy moment hurts both alike */
        snprintf(path, sizeof path, "%s/commits.db", dir);
        ts_store *store = open_fresh(path, full ? TS_SQLITE_SYNC_FULL : TS_SQLITE_SYNC_NORMAL);
        ours[r] = time_commits(store, commits);
        ts_store_close(store);
        snprintf(path, sizeof path, "%s/raw.db", dir);
        raw[r] = time_raw_inserts(path, full, commits);
        store = ts_memory_store_new();
        if (!store) die("out of memory", NULL);
        memory[r] = time_commits(store, commits);
        ts_store_close(store);
    }
    const char *sync = full ? "full" : "normal";
    char name[64];
    timing m = median(ours, runs);
    snprintf(name, sizeof name, "commits.turnstile.%s", sync);
    report(name, commits, m, commits / m.wall);
    m = median(raw, runs);
    snprintf(name, sizeof name, "commits.raw.%s", sync);
    report(name, commits, m, commits / m.wall);
    m = median(memory, runs);
    report("commits.memory", commits, m, commits / m.wall);
    remove_db(path);
    free(ours);
    free(raw);
    free(memory);
}

/* ------------------------------------------------------------------------ resume -------- */

/* Builds a journal of `entries` entries in commits of 1,000 (each with a checkpoint). */
static void build_entries_journal(ts_store *store, uint64_t entries) {
    ts_error err;
    ts_error_clear(&err);
    if (!ts_store_begin_execution(store, EXECUTION_ID, &err)) die("begin_execution", &err);
    enum { BATCH = 1000 };
    bench_item *items = calloc(BATCH, sizeof *items);
    ts_entry *batch = calloc(BATCH, sizeof *batch);
    if (!items || !batch) die("out of memory", NULL);
    uint64_t sequence = 0;
    for (uint64_t first = 1; first <= entries; first += BATCH) {
        size_t n = 0;
        for (uint64_t i = first; i <= entries && n < BATCH; i++, n++) {
            make_item(&items[n], i);
            batch[n] = items[n].entry;
        }
        ts_checkpoint cp = items[n - 1].checkpoint;
        cp.sequence = ++sequence;
        ts_commit commit = {batch, n, NULL, 0, &cp};
        if (!ts_store_commit(store, &commit, &err)) die("commit", &err);
    }
    for (size_t i = 0; i < BATCH; i++) ts_arena_free(&items[i].arena);
    free(items);
    free(batch);
}

static timing time_open_and_load(const char *path, uint64_t entries) {
    ts_error err;
    ts_error_clear(&err);
    timing start = timing_now();
    ts_store *store = ts_sqlite_store_open(path, NULL, &err);
    if (!store) die("reopen", &err);
    ts_arena arena;
    ts_arena_init(&arena);
    ts_journal journal;
    if (!ts_store_load(store, &arena, &journal, &err)) die("load", &err);
    timing took = timing_since(start);
    if (journal.entry_count != entries || !journal.has_checkpoint) die("load: the journal is not the one built", NULL);
    ts_journal_free(&journal);
    ts_arena_free(&arena);
    ts_store_close(store);
    return took;
}

/* The floor under a resume: reading the entries' content column and parsing each value with the
 * codec, nothing else. *megabytes gets the JSON size. */
static timing time_content_parse(const char *path, double *megabytes) {
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK || /* as the store */
        sqlite3_prepare_v2(db, "SELECT content FROM entries ORDER BY seq", -1, &st, NULL) != SQLITE_OK)
        die(db ? sqlite3_errmsg(db) : "sqlite3_open", NULL);
    ts_arena arena;
    ts_arena_init(&arena);
    size_t bytes = 0;
    timing start = timing_now();
    while (sqlite3_step(st) == SQLITE_ROW) {
        const char *text = (const char *)sqlite3_column_text(st, 0);
        int len = sqlite3_column_bytes(st, 0);
        ts_json value;
        ts_error err;
        ts_error_clear(&err);
        if (!ts_codec_parse_any(&arena, text, (size_t)len, &value, &err)) die("content", &err);
        bytes += (size_t)len;
    }
    timing took = timing_since(start);
    ts_arena_free(&arena);
    sqlite3_finalize(st);
    sqlite3_close(db);
    *megabytes = (double)bytes / 1e6;
    return took;
}

/* A scenario of `turns` simple turns: the input, then turns - 1 signals, an answer for each. */
static void turns_scenario(uint64_t turns, ts_arena *arena, ts_scenario *out) {
    ts_buf text;
    ts_buf_init(&text);
    ts_buf_appendf(&text, "{\"executionId\":\"%s\",\"clock\":{\"start\":\"2026-05-13T10:00:00Z\",\"stepMs\":1000},"
                          "\"input\":\"message 0\",\"llm\":[", EXECUTION_ID);
    char content[512];
    for (uint64_t i = 0; i < turns; i++) {
        content_text(i, content, sizeof content);
        ts_buf_appendf(&text, "%s%s", i ? "," : "", content);
    }
    ts_buf_append_str(&text, "],\"events\":[");
    for (uint64_t i = 1; i < turns; i++) ts_buf_appendf(&text, "%s{\"signal\":\"message %" PRIu64 "\"}", i > 1 ? "," : "", i);
    ts_buf_append_str(&text, "]}");
    ts_json doc;
    ts_error err;
    ts_error_clear(&err);
    char *copy = ts_arena_alloc(arena, text.len + 1);
    if (!copy || text.failed) die("out of memory", NULL);
    memcpy(copy, text.data, text.len + 1);
    if (!ts_codec_parse(arena, copy, text.len, &doc, &err) || !ts_scenario_from_json(&doc, arena, out, &err))
        die("scenario", &err);
    ts_buf_free(&text);
}

static timing time_engine_resume(const char *path, const ts_scenario *scenario, uint64_t entries) {
    ts_error err;
    ts_error_clear(&err);
    ts_scenario_world world;
    ts_scenario_world_init(&world, scenario);
    timing start = timing_now();
    ts_store *store = ts_sqlite_store_open(path, NULL, &err);
    if (!store) die("reopen", &err);
    ts_engine *engine = ts_engine_open(store, &world.base, scenario->execution_id, scenario->input, NULL, &err);
    if (!engine) die("engine", &err);
    timing took = timing_since(start);
    if (ts_engine_journal(engine)->entry_count != entries) die("resume: the journal is not the one built", NULL);
    ts_engine_close(engine);
    ts_store_close(store);
    return took;
}

static void bench_resume(const char *dir, uint64_t entries, int runs) {
    char path[1024];
    snprintf(path, sizeof path, "%s/resume.db", dir);
    ts_store *store = open_fresh(path, TS_SQLITE_SYNC_NORMAL);
    build_entries_journal(store, entries);
    ts_store_close(store);
    struct stat st;
    double file_mb = stat(path, &st) == 0 ? (double)st.st_size / 1e6 : 0, content_mb = 0;
    timing *load = calloc((size_t)runs, sizeof *load), *parse = calloc((size_t)runs, sizeof *parse);
    if (!load || !parse) die("out of memory", NULL);
    for (int r = 0; r < runs; r++) {
        load[r] = time_open_and_load(path, entries);
        parse[r] = time_content_parse(path, &content_mb);
    }
    report("resume.entries.load", entries, median(load, runs), file_mb);
    report("resume.entries.parse_floor", entries, median(parse, runs), content_mb);

    /* An engine's journal: entries/2 simple turns (each a user and an assistant entry). */
    ts_arena arena;
    ts_arena_init(&arena);
    ts_scenario scenario;
    turns_scenario(entries / 2, &arena, &scenario);
    snprintf(path, sizeof path, "%s/engine.db", dir);
    store = open_fresh(path, TS_SQLITE_SYNC_NORMAL);
    ts_error err;
    ts_error_clear(&err);
    ts_engine_state state;
    timing start = timing_now();
    if (!ts_engine_drive(store, &scenario, NULL, &state, NULL, &err)) die("drive", &err);
    timing built = timing_since(start);
    ts_store_close(store);
    file_mb = stat(path, &st) == 0 ? (double)st.st_size / 1e6 : 0;
    report("resume.engine.build", entries / 2, built, file_mb);
    for (int r = 0; r < runs; r++) load[r] = time_engine_resume(path, &scenario, entries / 2 * 2);
    report("resume.engine.open", entries / 2 * 2, median(load, runs), file_mb);
    ts_arena_free(&arena);
    remove_db(path);
    snprintf(path, sizeof path, "%s/resume.db", dir);
    remove_db(path);
    free(load);
    free(parse);
}

static uint64_t parse_count(const char *text) {
    char *end;
    unsigned long long n = strtoull(text, &end, 10);
    if (*end || n == 0) {
        fprintf(stderr, "journal_bench: not a positive count: %s\n", text);
        exit(2);
    }
    return n;
}

int main(int argc, char **argv) {
    if (argc == 6 && strcmp(argv[1], "commits") == 0 && (!strcmp(argv[3], "normal") || !strcmp(argv[3], "full"))) {
        bench_commits(argv[2], strcmp(argv[3], "full") == 0, parse_count(argv[4]), (int)parse_count(argv[5]));
        return 0;
    }
    if (argc == 5 && strcmp(argv[1], "resume") == 0) {
        bench_resume(argv[2], parse_count(argv[3]), (int)parse_count(argv[4]));
        return 0;
    }
    if (argc == 4 && strcmp(argv[1], "load") == 0) { /* open + load an existing journal, RUNS times */
        timing *runs = calloc(parse_count(argv[3]), sizeof *runs);
        int count = (int)parse_count(argv[3]);
        uint64_t entries = 0;
        for (int r = 0; r < count; r++) {
            ts_error err;
            ts_error_clear(&err);
            timing start = timing_now();
            ts_store *store = ts_sqlite_store_open(argv[2], NULL, &err);
            ts_arena arena;
            ts_arena_init(&arena);
            ts_journal journal;
            if (!store || !ts_store_load(store, &arena, &journal, &err)) die("load", &err);
            runs[r] = timing_since(start);
            entries = journal.entry_count;
            ts_journal_free(&journal);
            ts_arena_free(&arena);
            ts_store_close(store);
        }
        report("load", entries, median(runs, count), 0);
        free(runs);
        return 0;
    }
    fprintf(stderr, "usage: journal_bench commits DIR normal|full COMMITS RUNS\n"
                    "       journal_bench resume DIR ENTRIES RUNS\n"
                    "       journal_bench load FILE RUNS\n");
    return 2;
}
