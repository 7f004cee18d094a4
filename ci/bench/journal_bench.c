/* journal_bench.c — how fast the stores commit and resume (run ci/bench/journal_bench.sh).
 *
 * usage: journal_bench DIR COMMITS_FULL COMMITS_NORMAL RESUME_ENTRIES
 *
 * Commit throughput: a fresh journal in DIR, one execution, then COMMITS commits, each one entry
 * (a child of the previous one, ~200 bytes of content, a 7-digit-fraction timestamp) and a
 * checkpoint (sequence + 1, leaf = that entry) — the engine's smallest durable step. Measured for
 * SQLite at synchronous=FULL and NORMAL and for the memory store (its peer: the cost of
 * ts_commit_check and the copy alone, no I/O).
 * Resume: a journal of RESUME_ENTRIES entries (built in commits of 1,000 at NORMAL), closed; then
 * ts_sqlite_store_open + ts_store_load into a fresh arena, best of 3 — what an engine pays to
 * resume. Its peers: the floor under it (reading the content column and parsing each value with
 * the codec, nothing else), and the memory store's load (a copy) of the same journal.
 * Prints a table; exits non-zero if any store call fails. A benchmark: no thresholds.
 */
#include <inttypes.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/json/codec.h"
#include "core/resume/store.h"
#include "core/resume/store_memory.h"
#include "core/resume/store_sqlite.h"

static const char EXECUTION_ID[] = "00000000-0000-4000-8000-0000000000be";

static double clock_seconds(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Wall time, and this process's CPU time (user + system): on a busy machine the CPU figure is
 * the steadier one; the wall figure includes I/O waits (fsync) and waiting for a CPU. */
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

static double now(void) { return clock_seconds(CLOCK_MONOTONIC); }

static void die(const char *what, const ts_error *err) {
    fprintf(stderr, "journal_bench: %s: %s\n", what, err ? err->message : "");
    exit(1);
}

static void uuid_of(uint64_t n, char out[TS_UUID_TEXT]) {
    snprintf(out, TS_UUID_TEXT, "%08" PRIx32 "-0000-4000-8000-%012" PRIx64, (uint32_t)(n >> 16), n & 0xffffffffffffu);
}

/* Entry number i (1-based) and, in *cp, a checkpoint whose leaf it is. */
typedef struct bench_item {
    ts_arena arena;
    ts_entry entry;
    ts_checkpoint checkpoint;
} bench_item;

static void make_item(bench_item *item, uint64_t i) {
    ts_arena_free(&item->arena);
    char text[512];
    snprintf(text, sizeof text,
             "{\"text\":\"Turn %" PRIu64 ": the forecast for Oslo is 21.5 \xc2\xb0""C with light wind from the "
             "south-west; Bergen expects rain after noon, as usual.\",\"usage\":{\"in\":%" PRIu64 ",\"out\":42}}",
             i, i * 7 % 1000);
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

/* COMMITS commits of one entry + checkpoint each; returns the time they took. */
static timing time_commits(ts_store *store, uint64_t commits) {
    ts_error err;
    ts_error_clear(&err);
    if (!ts_store_begin_execution(store, EXECUTION_ID, &err)) die("begin_execution", &err);
    bench_item item;
    ts_arena_init(&item.arena);
    timing start = timing_now();
    for (uint64_t i = 1; i <= commits; i++) {
        make_item(&item, i);
        item.checkpoint.sequence = i;
        ts_commit commit = {&item.entry, 1, NULL, 0, &item.checkpoint};
        if (!ts_store_commit(store, &commit, &err)) die("commit", &err);
    }
    timing took = timing_since(start);
    ts_arena_free(&item.arena);
    return took;
}

/* Builds a journal of `entries` entries in commits of 1,000 (each with a checkpoint). */
static void build_journal(ts_store *store, uint64_t entries) {
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

static void load_and_check(ts_store *store, uint64_t entries) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_journal journal;
    ts_error err;
    ts_error_clear(&err);
    if (!ts_store_load(store, &arena, &journal, &err)) die("load", &err);
    if (journal.entry_count != entries || !journal.has_checkpoint) die("load: the journal is not the one built", NULL);
    ts_journal_free(&journal);
    ts_arena_free(&arena);
}

/* The floor under a resume: reading the entries' content column and parsing each value with the
 * codec (ts_codec_parse_any), nothing else. Returns its time; *megabytes gets the JSON size. */
static timing time_content_parse(const char *path, double *megabytes) {
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
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

static ts_store *open_fresh(const char *dir, const char *name, ts_sqlite_synchronous synchronous, char *path,
                            size_t size) {
    snprintf(path, size, "%s/%s.db", dir, name);
    static const char *const suffixes[] = {"", "-wal", "-shm"};
    for (int i = 0; i < 3; i++) {
        char file[1100];
        snprintf(file, sizeof file, "%s%s", path, suffixes[i]);
        unlink(file);
    }
    ts_sqlite_options options = {.synchronous = synchronous};
    ts_error err;
    ts_error_clear(&err);
    ts_store *store = ts_sqlite_store_open(path, &options, &err);
    if (!store) die("open", &err);
    return store;
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

static void commit_row(const char *store, const char *synchronous, uint64_t commits, timing t) {
    printf("%-8s %-12s %9" PRIu64 " %9.3f %9.3f %11.0f\n", store, synchronous, commits, t.wall, t.cpu, commits / t.wall);
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: journal_bench DIR COMMITS_FULL COMMITS_NORMAL RESUME_ENTRIES\n");
        return 2;
    }
    const char *dir = argv[1];
    uint64_t commits_full = parse_count(argv[2]), commits_normal = parse_count(argv[3]);
    uint64_t resume_entries = parse_count(argv[4]);
    char path[1024];

    printf("SQLite %s; each commit = 1 entry + 1 checkpoint, one transaction\n\n", sqlite3_libversion());
    printf("%-8s %-12s %9s %9s %9s %11s\n", "store", "synchronous", "commits", "wall s", "CPU s", "commits/s");
    ts_store *store = open_fresh(dir, "full", TS_SQLITE_SYNC_FULL, path, sizeof path);
    commit_row("sqlite", "FULL", commits_full, time_commits(store, commits_full));
    ts_store_close(store);
    store = open_fresh(dir, "normal", TS_SQLITE_SYNC_NORMAL, path, sizeof path);
    commit_row("sqlite", "NORMAL", commits_normal, time_commits(store, commits_normal));
    ts_store_close(store);
    store = ts_memory_store_new();
    if (!store) die("out of memory", NULL);
    commit_row("memory", "-", commits_normal, time_commits(store, commits_normal));
    ts_store_close(store);

    /* Resume. */
    store = open_fresh(dir, "resume", TS_SQLITE_SYNC_NORMAL, path, sizeof path);
    double start = now();
    build_journal(store, resume_entries);
    double build_seconds = now() - start;
    ts_store_close(store);
    struct stat st;
    double megabytes = stat(path, &st) == 0 ? (double)st.st_size / 1e6 : 0;
    timing best = {0, 0};
    for (int run = 0; run < 3; run++) {
        ts_error err;
        ts_error_clear(&err);
        timing start = timing_now();
        store = ts_sqlite_store_open(path, NULL, &err);
        if (!store) die("reopen", &err);
        load_and_check(store, resume_entries);
        timing took = timing_since(start);
        ts_store_close(store);
        if (run == 0 || took.wall < best.wall) best = took;
    }
    double content_megabytes = 0;
    timing parse_best = {0, 0};
    for (int run = 0; run < 3; run++) {
        timing took = time_content_parse(path, &content_megabytes);
        if (run == 0 || took.wall < parse_best.wall) parse_best = took;
    }
    ts_store *memory = ts_memory_store_new();
    if (!memory) die("out of memory", NULL);
    build_journal(memory, resume_entries);
    timing memory_best = {0, 0};
    for (int run = 0; run < 3; run++) {
        timing start = timing_now();
        load_and_check(memory, resume_entries);
        timing took = timing_since(start);
        if (run == 0 || took.wall < memory_best.wall) memory_best = took;
    }
    ts_store_close(memory);

    printf("\n%-8s %9s %9s %9s %9s %11s\n", "resume", "entries", "file MB", "wall s", "CPU s", "entries/s");
    printf("%-8s %9" PRIu64 " %9.1f %9.3f %9.3f %11.0f   (open + load)\n", "sqlite", resume_entries, megabytes, best.wall,
           best.cpu, resume_entries / best.wall);
    printf("%-8s %9" PRIu64 " %9s %9.3f %9.3f %11.0f   (floor: codec-parse the %.1f MB of content JSON alone)\n",
           "parse", resume_entries, "-", parse_best.wall, parse_best.cpu, resume_entries / parse_best.wall,
           content_megabytes);
    printf("%-8s %9" PRIu64 " %9s %9.3f %9.3f %11.0f   (load: a copy)\n", "memory", resume_entries, "-",
           memory_best.wall, memory_best.cpu, resume_entries / memory_best.wall);
    printf("\n(the %" PRIu64 "-entry journal was built in %.2f s at NORMAL, in commits of 1,000; best wall time of 3 resumes)\n",
           resume_entries, build_seconds);
    return 0;
}
