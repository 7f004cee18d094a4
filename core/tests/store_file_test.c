/* store_file_test.c — the SQLite store and its file (issue 13 items 1, 6, 15, 16, 17).
 *
 *   owner lock      a second owner fails (OWNER_FAIL) or waits (OWNER_WAIT, told through
 *                   on_wait) before reading or writing anything; a closed owner frees the file;
 *   read-only       a reader creates nothing (no file, no schema in a 0-byte file, no -wal or
 *                   -shm), changes no byte, works in a read-only directory (as another user
 *                   when the test runs as root), reads a journal a writer has open, refuses
 *                   every write, and reads a version-1 file without migrating it;
 *   regular files   /dev/null, a symlink to it, a directory and a FIFO are refused, and
 *                   nothing is created next to them; a symlink to a journal works;
 *   damage          one table of attacks on the rows of a real journal — invalid UTF-8, not
 *                   JSON, an impossible timestamp, a task id that is not UUIDv5 of its key, a
 *                   key that is not its input's, an entry changed under a later LLM task, counts
 *                   at INT64_MAX, more signals consumed than delivered, an abandoned entry whose
 *                   parent is gone, a cycle... — each refused by the reader and the writer with
 *                   the row or item named, the file unchanged; then random byte flips: every
 *                   outcome is a refusal or a journal whose JSON form is valid;
 *   migration       a version-1 file (inputs inline) is read as it is, migrated in one
 *                   transaction when opened for writing, and reads back the same.
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>

#include "core/testing/unit.h"
#include "core/tests/store_fixtures.h"

static ts_store *open_with(const char *path, const ts_sqlite_options *options, ts_error *err) {
    ts_error_clear(err);
    return ts_sqlite_store_open(path, options, err);
}

static const ts_sqlite_options read_only = {.read_only = true};

static bool exists(const char *path) {
    struct stat st;
    return lstat(path, &st) == 0;
}

static bool side_file_exists(const char *path, const char *suffix) {
    char file[700];
    snprintf(file, sizeof file, "%s%s", path, suffix);
    return exists(file);
}

static bool copy_file(const char *from, const char *to) {
    size_t len = 0;
    char *data = file_bytes(from, &len);
    FILE *f = data ? fopen(to, "wb") : NULL;
    bool ok = f && fwrite(data, 1, len, f) == len;
    if (f) ok = fclose(f) == 0 && ok;
    free(data);
    if (!ok) failf("cannot copy %s to %s", from, to);
    return ok;
}

/* The names in a directory, sorted, one per line (malloc'd). */
static char *listing(const char *dir) {
    struct dirent **names = NULL;
    int n = scandir(dir, &names, NULL, alphasort);
    ts_buf out;
    ts_buf_init(&out);
    for (int i = 0; i < n; i++) {
        ts_buf_appendf(&out, "%s\n", names[i]->d_name);
        free(names[i]);
    }
    free(names);
    ts_buf_append_char(&out, '\0');
    return out.data;
}

/* ------------------------------------------------------------------ a real journal ------- */

/* Six entries in a chain, two LLM tasks kept as leaves (their results kept as their assistant
 * entries), a tool task completed by an event, two signals, four checkpoints, four events:
 *   entries rows 1-6, tasks rows 1 (llm), 2 (weather), 3 (llm), signals rows 1-2. */
static void build_journal(const char *path) {
    remove_db(path);
    ts_store *store = open_sqlite(path, NULL);
    if (!store) return;
    ts_arena a;
    ts_arena_init(&a);
    ts_error err;
    ts_error_clear(&err);
    ts_entry e[6] = {
        make_entry(&a, 1, 0, TS_ENTRY_USER, "{\"text\":\"Weather in Oslo?\"}", "2026-05-13T10:00:00.0000000+00:00"),
        make_entry(&a, 2, 1, TS_ENTRY_ASSISTANT,
                   "{\"text\":\"\",\"toolCalls\":[{\"callId\":\"c1\",\"name\":\"weather\",\"arguments\":{\"city\":\"Oslo\"}}]}",
                   "2026-05-13T10:00:01.0000000+00:00"),
        make_entry(&a, 3, 2, TS_ENTRY_TOOL, "{\"callId\":\"c1\",\"name\":\"weather\",\"result\":{\"celsius\":21.5}}",
                   "2026-05-13T10:00:02.0000000+00:00"),
        make_entry(&a, 4, 3, TS_ENTRY_USER, "{\"text\":\"And Bergen?\"}", "2026-05-13T10:00:03.0000000+00:00"),
        make_entry(&a, 5, 4, TS_ENTRY_USER, "{\"text\":\"Thanks \xc3\xa9\xf0\x9f\x8e\x89\"}",
                   "2026-05-13T10:00:04.0000000+00:00"),
        make_entry(&a, 6, 5, TS_ENTRY_ASSISTANT, "{\"text\":\"21.5 \xc2\xb0""C; Bergen: rain.\"}",
                   "2026-05-13T10:00:05.0000000+00:00"),
    };
    ts_task llm1 = make_llm_task_at(&a, e, 1, TS_TASK_COMPLETED, "{}");
    llm1.result = e[1].content;
    ts_task tools[2] = {llm1, make_task(&a, "weather", "{\"arguments\":{\"city\":\"Oslo\"},\"callId\":\"c1\"}",
                                         TS_TASK_PENDING, "null")};
    ts_task weather_done = tools[1];
    weather_done.status = TS_TASK_COMPLETED;
    weather_done.result = json_of(&a, "{\"celsius\":21.5}");
    ts_task llm2 = make_llm_task_at(&a, e, 5, TS_TASK_COMPLETED, "{}");
    llm2.result = e[5].content;
    ts_checkpoint cp1 = make_checkpoint(&a, 1, 1, 0, "{\"phase\":\"llm\"}");
    ts_checkpoint cp2 = make_checkpoint(&a, 2, 2, 0, "{\"phase\":\"tools\",\"pendingToolIndex\":0}");
    ts_checkpoint cp3 = make_checkpoint(&a, 3, 5, 2, "{\"phase\":\"llm\"}");
    ts_checkpoint cp4 = make_checkpoint(&a, 4, 6, 2, "{\"phase\":\"idle\"}");
    ts_json s1 = json_of(&a, "{\"text\":\"And Bergen?\"}"), s2 = json_of(&a, "{\"text\":\"Thanks\"}");
    bool ok = ts_store_begin_execution(store, EXECUTION_ID, &err) && commit_of(store, e, 1, NULL, 0, &cp1, &err) &&
              commit_of(store, e + 1, 1, tools, 2, &cp2, &err) &&
              ts_store_complete_task(store, &weather_done, 1, &err) && ts_store_deliver_signal(store, &s1, 2, &err) &&
              ts_store_deliver_signal(store, &s2, 3, &err) && commit_of(store, e + 2, 3, NULL, 0, &cp3, &err) &&
              commit_of(store, e + 5, 1, &llm2, 1, &cp4, &err) && ts_store_mark_event(store, 4, &err);
    if (!ok) failf("building the journal: %s", err.message);
    ts_store_close(store);
    ts_arena_free(&a);
}

/* The journal's JSON text as a reader gives it (malloc'd; "" and a failure when refused). */
static char *read_text(const char *path) {
    ts_error err;
    ts_store *store = open_with(path, &read_only, &err);
    if (!store) {
        failf("read-only open of %s: %s", path, err.message);
        return calloc(1, 1);
    }
    char *text = journal_text_checked(store);
    ts_store_close(store);
    return text;
}

/* --------------------------------------------------------------------- owner lock -------- */

static void count_wait(void *context, const char *path) {
    (void)path;
    ++*(int *)context;
}

static void owner_lock(void) {
    char path[600];
    db_path("owner", path, sizeof path);
    build_journal(path);
    ts_error err;
    ts_sqlite_options fail = {.owner = TS_SQLITE_OWNER_FAIL};
    ts_store *first = open_with(path, &fail, &err);
    CHECK(first != NULL);
    size_t len_before = 0, len_after = 0;
    char *before = file_bytes(path, &len_before);
    ts_store *second = open_with(path, &fail, &err);
    CHECK(second == NULL && strstr(err.message, "another process owns this journal"));
    ts_store_close(second);
    char *after = file_bytes(path, &len_after);
    CHECK(before && after && len_before == len_after && memcmp(before, after, len_before) == 0);
    free(before);
    free(after);
    /* A store that does not ask to own the file still opens (and its writes stay conditional). */
    ts_store *shared = open_with(path, NULL, &err);
    CHECK(shared != NULL);
    ts_store_close(shared);
    ts_store_close(first);
    second = open_with(path, &fail, &err);
    CHECK(second != NULL);
    ts_store_close(second);

    /* OWNER_WAIT: a child owns the file for a while; the parent is told, waits, then opens. */
    int ready[2];
    CHECK(pipe(ready) == 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        close(ready[0]);
        ts_store *owner = ts_sqlite_store_open(path, &fail, &err);
        char byte = owner ? 1 : 0;
        if (write(ready[1], &byte, 1) != 1) _exit(3);
        struct timespec nap = {0, 300 * 1000 * 1000};
        nanosleep(&nap, NULL);
        ts_store_close(owner);
        _exit(owner ? 0 : 2);
    }
    close(ready[1]);
    char byte = 0;
    CHECK(read(ready[0], &byte, 1) == 1 && byte == 1);
    close(ready[0]);
    int waited = 0;
    ts_sqlite_options wait = {.owner = TS_SQLITE_OWNER_WAIT, .on_wait = count_wait, .on_wait_context = &waited};
    ts_store *waiter = open_with(path, &wait, &err);
    CHECK(waiter != NULL);
    CHECK(waited == 1);
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    ts_store_close(waiter);
    remove_db(path);
}

/* ---------------------------------------------------------------------- read-only -------- */

static void read_only_creates_nothing(void) {
    char path[700], dir[600];
    snprintf(dir, sizeof dir, "%s/ro", temp_dir);
    CHECK(mkdir(dir, 0755) == 0);
    snprintf(path, sizeof path, "%s/j.db", dir);
    ts_error err;

    /* No file: refused, none created. */
    CHECK(!open_with(path, &read_only, &err) && strstr(err.message, "no such journal"));
    CHECK(!exists(path));

    /* A 0-byte file: refused, still 0 bytes, no side files. */
    FILE *f = fopen(path, "wb");
    if (f) fclose(f);
    CHECK(!open_with(path, &read_only, &err) && strstr(err.message, "an empty file"));
    struct stat st;
    CHECK(stat(path, &st) == 0 && st.st_size == 0);
    CHECK(!side_file_exists(path, "-wal") && !side_file_exists(path, "-shm") && !side_file_exists(path, "-journal"));
    unlink(path);

    /* A journal: read, and nothing in the directory changes, not a byte of the file. */
    build_journal(path);
    char *names_before = listing(dir);
    size_t len_before = 0, len_after = 0;
    char *bytes_before = file_bytes(path, &len_before);
    struct stat st_before;
    CHECK(stat(path, &st_before) == 0);
    ts_store *reader = open_with(path, &read_only, &err);
    CHECK(reader != NULL);
    char *text = reader ? journal_text_checked(reader) : NULL;
    CHECK(text && strstr(text, "\"eventsApplied\":4"));
    if (reader) {
        ts_json signal = ts_json_make_null();
        CHECK(!ts_store_deliver_signal(reader, &signal, 5, &err) && strstr(err.message, "read-only"));
        CHECK(!ts_store_begin_execution(reader, EXECUTION_ID, &err) && strstr(err.message, "read-only"));
        CHECK(!ts_store_mark_event(reader, 5, &err) && strstr(err.message, "read-only"));
    }
    char *names_during = listing(dir);
    CHECK_STR_EQ(names_during, names_before);
    ts_store_close(reader);
    char *names_after = listing(dir);
    char *bytes_after = file_bytes(path, &len_after);
    CHECK_STR_EQ(names_after, names_before);
    CHECK(bytes_before && bytes_after && len_before == len_after && memcmp(bytes_before, bytes_after, len_before) == 0);
    CHECK(stat(path, &st) == 0 && st.st_mtim.tv_sec == st_before.st_mtim.tv_sec &&
          st.st_mtim.tv_nsec == st_before.st_mtim.tv_nsec);

    /* A writer has it open (its -wal exists): the reader reads what the writer committed. */
    ts_store *writer = open_sqlite(path, NULL);
    ts_arena a;
    ts_arena_init(&a);
    ts_json late = json_of(&a, "{\"text\":\"late\"}");
    CHECK(writer && ts_store_deliver_signal(writer, &late, 5, &err));
    CHECK(side_file_exists(path, "-wal"));
    char *with_writer = read_text(path);
    CHECK(strstr(with_writer, "{\"text\":\"late\"}") && strstr(with_writer, "\"eventsApplied\":5"));
    CHECK(writer && ts_store_mark_event(writer, 6, &err)); /* the writer goes on as before */
    ts_store_close(writer);
    ts_arena_free(&a);
    free(with_writer);
    free(text);
    free(names_before);
    free(names_during);
    free(names_after);
    free(bytes_before);
    free(bytes_after);
    remove_db(path);
    rmdir(dir);
}

/* In a directory nobody may write to (as user nobody when the test runs as root, who may write
 * anywhere), a reader still reads. */
static void read_only_directory(void) {
    char dir[] = "/tmp/turnstile-ro-dir.XXXXXX";
    if (!mkdtemp(dir)) {
        failf("mkdtemp: %s", strerror(errno));
        return;
    }
    char path[600];
    snprintf(path, sizeof path, "%s/j.db", dir);
    build_journal(path);
    char *expected = read_text(path);
    chmod(path, 0644);
    CHECK(chmod(dir, 0555) == 0);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0)) _exit(77);
        if (access(dir, W_OK) == 0) _exit(78); /* the directory is writable after all */
        ts_error err;
        ts_error_clear(&err);
        ts_store *store = ts_sqlite_store_open(path, &read_only, &err);
        if (!store) {
            fprintf(stderr, "read-only directory: %s\n", err.message);
            _exit(2);
        }
        char *text = journal_text(store, &err);
        ts_store_close(store);
        _exit(text && strcmp(text, expected) == 0 ? 0 : 3);
    }
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status));
    if (WIFEXITED(status) && (WEXITSTATUS(status) == 77 || WEXITSTATUS(status) == 78))
        printf("read_only_directory: skipped (cannot drop privileges or the directory stays writable)\n");
    else
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK(!side_file_exists(path, "-wal") && !side_file_exists(path, "-shm"));
    chmod(dir, 0755);
    remove_db(path);
    rmdir(dir);
    free(expected);
}

/* ------------------------------------------------------------------- regular files ------- */

static void regular_files_only(void) {
    ts_error err;
    ts_store *store = open_with("/dev/null", NULL, &err);
    CHECK(!store && strstr(err.message, "a character device, not a regular file"));
    CHECK(!exists("/dev/null-journal") && !exists("/dev/null-wal") && !exists("/dev/null-shm"));
    store = open_with("/dev/null", &read_only, &err);
    CHECK(!store && strstr(err.message, "not a regular file"));

    char link[600], target[600], fifo[600];
    snprintf(link, sizeof link, "%s/null-link.db", temp_dir);
    CHECK(symlink("/dev/null", link) == 0);
    store = open_with(link, NULL, &err);
    CHECK(!store && strstr(err.message, "a character device, not a regular file"));
    CHECK(!side_file_exists(link, "-journal") && !side_file_exists(link, "-wal"));
    CHECK(!exists("/dev/null-journal") && !exists("/dev/null-wal"));
    unlink(link);

    store = open_with(temp_dir, NULL, &err);
    CHECK(!store && strstr(err.message, "a directory"));

    snprintf(fifo, sizeof fifo, "%s/fifo.db", temp_dir);
    CHECK(mkfifo(fifo, 0600) == 0);
    store = open_with(fifo, NULL, &err); /* must not block waiting for a writer */
    CHECK(!store && strstr(err.message, "a FIFO"));
    store = open_with(fifo, &read_only, &err);
    CHECK(!store && strstr(err.message, "a FIFO"));
    unlink(fifo);

    /* A symlink to a journal is the journal. */
    db_path("target", target, sizeof target);
    build_journal(target);
    CHECK(symlink(target, link) == 0);
    char *via_link = read_text(link), *direct = read_text(target);
    CHECK_STR_EQ(via_link, direct);
    store = open_with(link, NULL, &err);
    CHECK(store != NULL);
    ts_store_close(store);
    free(via_link);
    free(direct);
    unlink(link);
    remove_db(target);
}

/* -------------------------------------------------------------------------- damage ------- */

typedef struct attack {
    const char *name;
    const char *sql;
    const char *refusal; /* a part of the error both openings must give */
} attack;

/* The log rows of build_journal: 1 entry 1 (checkpoint 1); 2 entry 2, 3 task llm1 (its input
 * the leaf 1, its result held by entry 2), 4 task weather (pending; checkpoint 2); 5 its result
 * (events 1); 6, 7 signals (events 2, 3); 8-10 entries 3-5 (checkpoint 3 on 10); 11 entry 6,
 * 12 task llm2 (checkpoint 4); 13 an event (events 4). */
static const attack attacks[] = {
    {"content: invalid UTF-8", "UPDATE log SET body = CAST(X'7B2274657874223A2261FF227D' AS TEXT) WHERE seq = 9",
     "load: log row 9 is not JSON"},
    {"content: not JSON", "UPDATE log SET body = '{\"text\":' WHERE seq = 2", "load: log row 2 is not JSON"},
    {"content: not an object", "UPDATE log SET body = '[1]' WHERE seq = 2", "log row 2 is not a JSON object"},
    {"signal: not JSON", "UPDATE log SET body = 'nul' WHERE seq = 7", "load: log row 7 is not JSON"},
    {"timestamp: impossible date", "UPDATE log SET timestamp = '2026-02-30T10:00:00Z' WHERE seq = 8",
     "load: log row 8: entry 00000003-0000-4000-8000-000000000003: timestamp \"2026-02-30T10:00:00Z\" is not an RFC 3339"},
    {"timestamp: not one", "UPDATE log SET timestamp = 'yesterday' WHERE seq = 1", "log row 1: entry"},
    {"entry id: not canonical", "UPDATE log SET id = '0000000A-0000-4000-8000-00000000000A' WHERE seq = 11",
     "load: log row 11: entry id \"0000000A-0000-4000-8000-00000000000A\" is not a canonical UUID"},
    {"role: unknown", "UPDATE log SET name = 'system' WHERE seq = 2", "load: log row 2: needs an entry id, a role"},
    {"kind: unknown", "UPDATE log SET kind = 'bogus' WHERE seq = 13", "load: log row 13: kind \"bogus\" is not entry"},
    {"task id: not UUIDv5 of its key", "UPDATE log SET id = '00000001-0000-4000-8000-000000000001' WHERE seq = 4",
     "load: log row 4: task 00000001-0000-4000-8000-000000000001: its id is not UUIDv5 of its key"},
    {"task key: not its input's", "UPDATE log SET body = '{\"arguments\":{\"city\":\"Bergen\"},\"callId\":\"c1\"}' WHERE seq = 4",
     "is not the key of its kind and input"},
    {"task kind: invalid UTF-8", "UPDATE log SET name = CAST(X'77FF' AS TEXT) WHERE seq = 4", "is not valid UTF-8"},
    {"task: an input and a leaf", "UPDATE log SET body = '{}' WHERE seq = 3", "load: log row 3: task"},
    {"task: no input at all", "UPDATE log SET parent = NULL WHERE seq = 12", "needs a UUID, a key"},
    {"task: a leaf that is not an entry", "UPDATE log SET parent = '00000099-0000-4000-8000-000000000099' WHERE seq = 12",
     "its input ends at entry 00000099-0000-4000-8000-000000000099, which is not in the journal"},
    {"task: a result held by no entry", "UPDATE log SET holder = '00000099-0000-4000-8000-000000000099' WHERE seq = 12",
     "load: log row 12: its result is the content of entry 00000099"},
    {"task: pending with a result", "UPDATE log SET result = '7' WHERE seq = 4", "a pending task has no result"},
    {"task: completed twice", "UPDATE log SET id = (SELECT id FROM log WHERE seq = 3) WHERE seq = 5",
     "load: log row 5: completes task"},
    {"an entry changed under a later LLM task", "UPDATE log SET body = '{\"text\":\"And Paris?\"}' WHERE seq = 9",
     "tasks[2] (task "},
    {"a timestamp changed under a later LLM task",
     "UPDATE log SET timestamp = '2026-05-13T10:00:03.0000001+00:00' WHERE seq = 9", "is not the key of its input"},
    {"a lost row", "DELETE FROM log WHERE seq = 9", "is not an earlier entry"},
    {"eventsApplied at INT64_MAX", "UPDATE log SET events = 9223372036854775807 WHERE seq = 13",
     "eventsApplied 9223372036854775807: not between the 2 signals"},
    {"eventsApplied below the signals", "UPDATE log SET events = NULL WHERE seq IN (5, 6, 7); UPDATE log SET events = 1 WHERE seq = 13",
     "eventsApplied 1: not between the 2 signals"},
    {"events going back", "UPDATE log SET events = 1 WHERE seq = 6", "load: log row 6: events 1 after 1"},
    {"events negative", "UPDATE log SET events = -1 WHERE seq = 13", "load: log row 13 is not a non-negative integer"},
    {"checkpoint sequence at INT64_MAX",
     "UPDATE log SET cp_sequence = cp_sequence + 9223372036854775803 WHERE cp_sequence IS NOT NULL",
     "checkpoint: sequence 9223372036854775807 is not between 1 and 9007199254740991"},
    {"checkpoint sequence 0", "UPDATE log SET cp_sequence = cp_sequence - 1 WHERE cp_sequence IS NOT NULL",
     "checkpoint sequence 0"},
    {"a commit's checkpoint lost", "UPDATE log SET cp_sequence = NULL WHERE seq = 10",
     "load: log row 12: checkpoint sequence 4 after 2"},
    {"more signals consumed than delivered", "UPDATE log SET cp_consumed = 3 WHERE seq = 12",
     "checkpoint: 3 signals consumed, but the inbox holds 2"},
    {"checkpoint leaf unknown", "UPDATE log SET cp_leaf = '00000099-0000-4000-8000-000000000099' WHERE seq = 12",
     "load: log row 12: checkpoint leaf 00000099-0000-4000-8000-000000000099 is not an entry"},
    {"checkpoint state not an object", "UPDATE log SET cp_state = '7' WHERE seq = 12",
     "log row 12: the checkpoint state is not a JSON object"},
    {"an abandoned entry whose parent is gone",
     "INSERT INTO log(kind, id, parent, name, body, timestamp) VALUES ('entry', '00000007-0000-4000-8000-000000000007', "
     "'00000098-0000-4000-8000-000000000098', 'user', '{\"text\":\"x\"}', '2026-05-13T10:00:06Z')",
     "entries[6] (entry 00000007-0000-4000-8000-000000000007): parent 00000098-0000-4000-8000-000000000098 is not an "
     "earlier entry"},
    {"a parent cycle", "UPDATE log SET parent = '00000006-0000-4000-8000-000000000006' WHERE seq = 1",
     "entries[0] (entry 00000001-0000-4000-8000-000000000001): parent 00000006-0000-4000-8000-000000000006 is not an "
     "earlier entry"},
    {"execution id not canonical", "UPDATE meta SET execution_id = '0000000A-0000-4000-8000-000000000001'",
     "load: meta.execution_id \"0000000A-0000-4000-8000-000000000001\" is not a canonical UUID"},
    {"no execution id but entries", "UPDATE meta SET execution_id = ''", "load: log row 1: an entry, but no execution id"},
};

/* Both openings refuse with the attack's words, and neither changes the file. */
static void expect_refused_by_both(const char *path, const attack *a) {
    static const ts_sqlite_options *const modes[] = {&read_only, NULL};
    for (int m = 0; m < 2; m++) {
        size_t len_before = 0, len_after = 0;
        char *before = file_bytes(path, &len_before);
        ts_error err;
        ts_store *store = open_with(path, modes[m], &err);
        if (store) {
            failf("%s (%s): opened; expected a refusal saying \"%s\"", a->name, m ? "writer" : "reader", a->refusal);
            ts_store_close(store);
        } else if (!strstr(err.message, a->refusal)) {
            failf("%s (%s): refused with \"%s\"; expected \"%s\"", a->name, m ? "writer" : "reader", err.message,
                  a->refusal);
        }
        char *after = file_bytes(path, &len_after);
        if (!before || !after || len_before != len_after || memcmp(before, after, len_before) != 0)
            failf("%s (%s): a refused open changed the file", a->name, m ? "writer" : "reader");
        free(before);
        free(after);
    }
}

static void damaged_rows_refused(void) {
    char pristine[600], path[600];
    db_path("pristine", pristine, sizeof pristine);
    db_path("damaged", path, sizeof path);
    build_journal(pristine);
    char *original = read_text(pristine);
    CHECK(strstr(original, "\"input\":\"{\\\"messages\\\":[{\\\"content\\\":{\\\"text\\\":\\\"Weather in Oslo?\\\"}"));
    printf("%-44s %s\n", "attack", "refusal");
    for (size_t i = 0; i < sizeof attacks / sizeof attacks[0]; i++) {
        remove_db(path);
        if (!copy_file(pristine, path) || !raw_exec(path, attacks[i].sql)) continue;
        expect_refused_by_both(path, &attacks[i]);
        ts_error err;
        ts_store *store = open_with(path, &read_only, &err);
        printf("%-44s %s\n", attacks[i].name, store ? "(opened!)" : err.message);
        ts_store_close(store);
    }
    remove_db(path);
    remove_db(pristine);
    free(original);
}

/* Random byte flips anywhere in a journal file: each copy is refused, or it loads into a journal
 * whose JSON form is valid JSON (UTF-8 included) that loads again to the same bytes. */
static void random_byte_flips(void) {
    char pristine[600], path[600];
    db_path("flip-pristine", pristine, sizeof pristine);
    db_path("flip", path, sizeof path);
    build_journal(pristine);
    size_t len = 0;
    char *bytes = file_bytes(pristine, &len);
    char *original = read_text(pristine);
    uint64_t state = 0x9e3779b97f4a7c15u;
    int refused = 0, same = 0, different = 0;
    enum { COPIES = 400 };
    for (int i = 0; bytes && i < COPIES; i++) {
        char *copy = malloc(len);
        memcpy(copy, bytes, len);
        int flips = 1 + i % 3;
        for (int k = 0; k < flips; k++) {
            state ^= state << 13, state ^= state >> 7, state ^= state << 17;
            copy[state % len] ^= (char)(1u << (state >> 40) % 8);
        }
        remove_db(path);
        FILE *f = fopen(path, "wb");
        if (f) {
            fwrite(copy, 1, len, f);
            fclose(f);
        }
        free(copy);
        for (int m = 0; m < 2; m++) { /* the reader, then the writer (which may recover a header) */
            ts_error err;
            ts_store *store = open_with(path, m == 0 ? &read_only : NULL, &err);
            char *text = store ? journal_text(store, &err) : NULL;
            ts_store_close(store);
            if (!text) {
                refused += m == 0;
                continue;
            }
            ts_arena a;
            ts_arena_init(&a);
            ts_json parsed;
            ts_buf again;
            ts_buf_init(&again);
            bool valid = ts_codec_parse(&a, text, strlen(text), &parsed, &err) &&
                         ts_codec_write(&again, &parsed, TS_WRITE_COMPACT) && again.len == strlen(text) &&
                         memcmp(again.data, text, again.len) == 0;
            if (!valid) failf("copy %d: the journal loaded, but its JSON form is not valid: %.300s", i, text);
            if (m == 0) {
                if (strcmp(text, original) == 0) same++;
                else different++;
            }
            ts_buf_free(&again);
            ts_arena_free(&a);
            free(text);
        }
    }
    printf("%d copies with 1-3 flipped bits: %d refused, %d read as the original, %d read differently (valid JSON)\n",
           COPIES, refused, same, different);
    CHECK(refused > 0);
    free(bytes);
    free(original);
    remove_db(path);
    remove_db(pristine);
}

/* ------------------------------------------------------------------------- migration ----- */

/* Version 1's schema, as turnstile wrote it before inputs were kept as leaves. */
static const char schema_v1[] =
    "PRAGMA journal_mode = WAL;"
    "CREATE TABLE meta(id INTEGER PRIMARY KEY CHECK (id = 1), execution_id TEXT NOT NULL, events_applied INTEGER NOT NULL);"
    "CREATE TABLE entries(seq INTEGER PRIMARY KEY, entry_id TEXT UNIQUE NOT NULL, parent_id TEXT, role TEXT NOT NULL,"
    " content TEXT NOT NULL, timestamp TEXT NOT NULL);"
    "CREATE TABLE tasks(seq INTEGER PRIMARY KEY, task_id TEXT UNIQUE NOT NULL, key TEXT NOT NULL, kind TEXT NOT NULL,"
    " input TEXT NOT NULL, status TEXT NOT NULL, result TEXT NOT NULL);"
    "CREATE TABLE signals(seq INTEGER PRIMARY KEY, content TEXT NOT NULL);"
    "CREATE TABLE checkpoint(id INTEGER PRIMARY KEY CHECK (id = 1), sequence INTEGER NOT NULL, leaf_id TEXT NOT NULL,"
    " signals_consumed INTEGER NOT NULL, state TEXT NOT NULL);"
    "PRAGMA application_id = 1414747185; PRAGMA user_version = 1;";

static int64_t user_version(const char *path) {
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    int64_t version = -1;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
        sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
        version = sqlite3_column_int64(st, 0);
    sqlite3_finalize(st);
    sqlite3_close(db);
    return version;
}

static void version_1_migrated(void) {
    char path[600];
    db_path("v1", path, sizeof path);
    remove_db(path);
    ts_arena a;
    ts_arena_init(&a);
    ts_entry e[2] = {make_entry(&a, 1, 0, TS_ENTRY_USER, "{\"text\":\"hi\"}", "2026-05-13T10:00:00.0000000+00:00"),
                     make_entry(&a, 2, 1, TS_ENTRY_ASSISTANT, "{\"text\":\"hello\"}", "2026-05-13T10:00:01.0000000+00:00")};
    ts_task llm = make_llm_task_at(&a, e, 1, TS_TASK_COMPLETED, "{\"text\":\"hello\"}");
    ts_journal j;
    ts_journal_init(&j);
    ts_journal_add_entry(&j, &a, &e[0]);
    ts_str input = {NULL, 0};
    ts_error err;
    ts_error_clear(&err);
    CHECK(ts_task_input_text(&j, &llm, &a, &input, &err));
    ts_journal_free(&j);
    /* The rows version 1 wrote: the input inline, the result again. */
    ts_buf sql;
    ts_buf_init(&sql);
    ts_buf_appendf(&sql, "%s", schema_v1);
    ts_buf_appendf(&sql,
                   "INSERT INTO meta VALUES (1, '%s', 0);"
                   "INSERT INTO entries(entry_id, parent_id, role, content, timestamp) VALUES"
                   " ('%s', NULL, 'user', '{\"text\":\"hi\"}', '2026-05-13T10:00:00.0000000+00:00'),"
                   " ('%s', '%s', 'assistant', '{\"text\":\"hello\"}', '2026-05-13T10:00:01.0000000+00:00');"
                   "INSERT INTO tasks(task_id, key, kind, input, status, result) VALUES ('%s', '%s', 'llm-request', '",
                   EXECUTION_ID, e[0].id, e[1].id, e[0].id, llm.id, llm.key);
    for (size_t i = 0; i < input.len; i++) ts_buf_append(&sql, input.ptr + i, 1 + (input.ptr[i] == '\''));
    ts_buf_appendf(&sql, "', 'completed', '{\"text\":\"hello\"}');"
                         "INSERT INTO checkpoint VALUES (1, 1, '%s', 0, '{\"phase\":\"idle\"}');",
                   e[1].id);
    ts_buf_append_char(&sql, '\0');
    CHECK(raw_exec(path, sql.data));
    CHECK(user_version(path) == 1);

    /* Read as it is, and not migrated by a reader. */
    char *v1_text = read_text(path);
    CHECK(strstr(v1_text, "\"kind\":\"llm-request\",\"input\":\"{\\\"messages\\\":[{\\\"content\\\":{\\\"text\\\":\\\"hi\\\"}"));
    CHECK(user_version(path) == 1);

    /* Migrated by a writer, in one transaction; the journal reads back the same, and takes new
     * commits in the new form. */
    ts_store *store = open_sqlite(path, NULL);
    CHECK(store != NULL);
    CHECK(user_version(path) == TS_SQLITE_SCHEMA_VERSION);
    char *v2_text = store ? journal_text_checked(store) : NULL;
    CHECK_STR_EQ(v2_text, v1_text);
    ts_entry more[2] = {make_entry(&a, 3, 2, TS_ENTRY_USER, "{\"text\":\"again\"}", "2026-05-13T10:00:02.0000000+00:00"),
                        make_entry(&a, 4, 3, TS_ENTRY_ASSISTANT, "{\"text\":\"yes\"}", "2026-05-13T10:00:03.0000000+00:00")};
    ts_entry path3[3] = {e[0], e[1], more[0]};
    ts_task llm2 = make_llm_task_at(&a, path3, 3, TS_TASK_COMPLETED, "{}");
    llm2.result = more[1].content;
    ts_checkpoint cp = make_checkpoint(&a, 2, 4, 0, "{\"phase\":\"idle\"}");
    CHECK(store && commit_of(store, more, 2, &llm2, 1, &cp, &err));
    ts_store_close(store);
    char *after = read_text(path);
    CHECK(strstr(after, "{\\\"content\\\":{\\\"text\\\":\\\"again\\\"}"));
    free(v1_text);
    free(v2_text);
    free(after);
    ts_buf_free(&sql);
    ts_arena_free(&a);
    remove_db(path);
}

int main(void) {
    signal(SIGPIPE, SIG_IGN);
    const char *base = getenv("TEST_TMPDIR");
    snprintf(temp_dir, sizeof temp_dir, "%s/store_file_test.XXXXXX", base && base[0] ? base : "/tmp");
    if (!mkdtemp(temp_dir)) {
        fprintf(stderr, "store_file_test: mkdtemp %s: %s\n", temp_dir, strerror(errno));
        return 1;
    }
    TS_RUN(owner_lock);
    TS_RUN(read_only_creates_nothing);
    TS_RUN(read_only_directory);
    TS_RUN(regular_files_only);
    TS_RUN(damaged_rows_refused);
    TS_RUN(random_byte_flips);
    TS_RUN(version_1_migrated);
    remove_temp_dir();
    sqlite3_shutdown();
    return ts_unit_finish();
}
