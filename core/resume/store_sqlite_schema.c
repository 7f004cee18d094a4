/* store_sqlite_schema.c — the SQLite store's schema, its versions and its statements; see
 * store_sqlite_internal.h. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/resume/store_sqlite_internal.h"

/* Version 2. One row in meta and at most one in checkpoint (id = 1); entries, tasks and signals
 * keep their commit order in seq. JSON columns hold the codec's compact text; a root entry's
 * parent_id is NULL. A task keeps its input as canonical text (input) or, for an LLM task, as
 * the entry its transcript ends at (input_leaf); its result as JSON text (result; "null" while
 * pending) or as the entry of the same commit whose content is that very text (result_entry:
 * an LLM answer is its assistant entry's content). Exactly one of each pair is set. */
#define TASKS_V2_COLUMNS                                                                      \
    "(seq INTEGER PRIMARY KEY,"                                                               \
    " task_id TEXT UNIQUE NOT NULL,"                                                          \
    " key TEXT NOT NULL,"                                                                     \
    " kind TEXT NOT NULL,"                                                                    \
    " input TEXT,"                                                                            \
    " input_leaf TEXT,"                                                                       \
    " status TEXT NOT NULL,"                                                                  \
    " result TEXT,"                                                                           \
    " result_entry TEXT,"                                                                     \
    " CHECK ((input IS NULL) <> (input_leaf IS NULL)),"                                       \
    " CHECK ((result IS NULL) <> (result_entry IS NULL)))"

static const char schema_v2[] =
    "CREATE TABLE meta("
    " id INTEGER PRIMARY KEY CHECK (id = 1),"
    " execution_id TEXT NOT NULL,"
    " events_applied INTEGER NOT NULL);"
    "INSERT INTO meta(id, execution_id, events_applied) VALUES (1, '', 0);"
    "CREATE TABLE entries("
    " seq INTEGER PRIMARY KEY,"
    " entry_id TEXT UNIQUE NOT NULL,"
    " parent_id TEXT,"
    " role TEXT NOT NULL,"
    " content TEXT NOT NULL,"
    " timestamp TEXT NOT NULL);"
    "CREATE TABLE tasks" TASKS_V2_COLUMNS ";"
    "CREATE TABLE signals("
    " seq INTEGER PRIMARY KEY,"
    " content TEXT NOT NULL);"
    "CREATE TABLE checkpoint("
    " id INTEGER PRIMARY KEY CHECK (id = 1),"
    " sequence INTEGER NOT NULL,"
    " leaf_id TEXT NOT NULL,"
    " signals_consumed INTEGER NOT NULL,"
    " state TEXT NOT NULL);";

/* Version 1 kept every input and result inline (input and result NOT NULL): its rows are
 * copied as they are into the version-2 table. */
static const char migrate_v1[] =
    "CREATE TABLE tasks_v2" TASKS_V2_COLUMNS ";"
    "INSERT INTO tasks_v2(seq, task_id, key, kind, input, input_leaf, status, result, result_entry)"
    " SELECT seq, task_id, key, kind, input, NULL, status, result, NULL FROM tasks ORDER BY seq;"
    "DROP TABLE tasks;"
    "ALTER TABLE tasks_v2 RENAME TO tasks;";

static const char *const statement_sql[ST_COUNT] = {
    [ST_BEGIN_READ] = "BEGIN",
    [ST_ROLLBACK] = "ROLLBACK",
    [ST_DATA_VERSION] = "PRAGMA data_version",
    [ST_READ_META] = "SELECT execution_id, events_applied FROM meta WHERE id = 1",
    [ST_READ_ENTRIES] = "SELECT seq, entry_id, parent_id, role, content, timestamp FROM entries ORDER BY seq",
    [ST_READ_TASKS] = ("SELECT seq, task_id, key, kind, input, input_leaf, status, result, result_entry FROM tasks "
                       "ORDER BY seq"),
    [ST_READ_SIGNALS] = "SELECT seq, content FROM signals ORDER BY seq",
    [ST_READ_CHECKPOINT] = "SELECT sequence, leaf_id, signals_consumed, state FROM checkpoint WHERE id = 1",
    [ST_BEGIN_WRITE] = "BEGIN IMMEDIATE",
    [ST_COMMIT] = "COMMIT",
    [ST_SET_EXECUTION] = "UPDATE meta SET execution_id = ?1 WHERE id = 1",
    [ST_SET_EVENTS] = "UPDATE meta SET events_applied = ?1 WHERE id = 1",
    [ST_INSERT_ENTRY] = "INSERT INTO entries(entry_id, parent_id, role, content, timestamp) VALUES (?1, ?2, ?3, ?4, ?5)",
    [ST_INSERT_TASK] = ("INSERT INTO tasks(task_id, key, kind, input, input_leaf, status, result, result_entry) "
                        "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"),
    [ST_UPDATE_TASK] = "UPDATE tasks SET status = ?2, result = ?3, result_entry = ?4 WHERE task_id = ?1",
    [ST_INSERT_SIGNAL] = "INSERT INTO signals(content) VALUES (?1)",
    [ST_SET_CHECKPOINT] = ("INSERT OR REPLACE INTO checkpoint(id, sequence, leaf_id, signals_consumed, state) "
                           "VALUES (1, ?1, ?2, ?3, ?4)"),
};

/* How version 1's tasks table reads as version 2's (a read-only store never migrates). */
static const char read_tasks_v1[] =
    "SELECT seq, task_id, key, kind, input, NULL, status, result, NULL FROM tasks ORDER BY seq";

/* Runs SQL that returns at most one row and reads its first column as an integer (0 for none). */
static bool query_int(sqlite_store *s, const char *sql, int64_t *out, const char *what, ts_error *err) {
    sqlite3_stmt *st = NULL;
    int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
    if (rc == SQLITE_OK) rc = sqlite3_step(st);
    *out = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
    bool ok = rc == SQLITE_ROW || rc == SQLITE_DONE || ts_sqlite_failed(s, err, s->open_op, what, rc);
    sqlite3_finalize(st);
    return ok;
}

static bool exec_sql(sqlite_store *s, const char *sql, const char *what, ts_error *err) {
    int rc = sqlite3_exec(s->db, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK || ts_sqlite_failed(s, err, s->open_op, what, rc);
}

file_kind ts_sqlite_classify(sqlite_store *s, ts_error *err) {
    const char *op = s->open_op;
    int64_t application_id, version, objects;
    if (!query_int(s, "PRAGMA application_id", &application_id, "reading the application_id", err) ||
        !query_int(s, "PRAGMA user_version", &version, "reading the schema version", err))
        return FILE_REFUSED;
    if (application_id == TS_SQLITE_APPLICATION_ID) {
        if (version > TS_SQLITE_SCHEMA_VERSION) {
            ts_error_set(err, "%s: journal schema version %" PRId64 " is newer than this turnstile (%d)", op, version,
                         TS_SQLITE_SCHEMA_VERSION);
            return FILE_REFUSED;
        }
        if (version < 1) {
            ts_error_set(err, "%s: journal schema version %" PRId64 " is not one this turnstile knows (it writes %d)",
                         op, version, TS_SQLITE_SCHEMA_VERSION);
            return FILE_REFUSED;
        }
        s->schema_version = (int)version;
        return FILE_TURNSTILE;
    }
    if (application_id != 0 || version != 0) {
        ts_error_set(err,
                     "%s: not a turnstile journal: application_id 0x%08" PRIx32 " and user_version %" PRId64
                     " (a turnstile journal has application_id 0x%08x)",
                     op, (uint32_t)application_id, version, TS_SQLITE_APPLICATION_ID);
        return FILE_REFUSED;
    }
    if (!query_int(s, "SELECT count(*) FROM sqlite_master", &objects, "reading the schema", err)) return FILE_REFUSED;
    if (objects != 0) {
        ts_error_set(err, "%s: not a turnstile journal: it holds %" PRId64 " tables or indexes and no turnstile application_id",
                     op, objects);
        return FILE_REFUSED;
    }
    return FILE_EMPTY;
}

static bool stamp(sqlite_store *s, ts_error *err) {
    char pragmas[128];
    snprintf(pragmas, sizeof pragmas, "PRAGMA application_id = %d; PRAGMA user_version = %d;",
             TS_SQLITE_APPLICATION_ID, TS_SQLITE_SCHEMA_VERSION);
    return exec_sql(s, pragmas, "stamping the schema", err);
}

bool ts_sqlite_create_schema(sqlite_store *s, ts_error *err) {
    if (!exec_sql(s, schema_v2, "creating the schema", err) || !stamp(s, err)) return false;
    s->schema_version = TS_SQLITE_SCHEMA_VERSION;
    return true;
}

bool ts_sqlite_migrate(sqlite_store *s, ts_error *err) {
    if (!exec_sql(s, migrate_v1, "migrating schema version 1 to 2", err) || !stamp(s, err)) return false;
    s->schema_version = TS_SQLITE_SCHEMA_VERSION;
    return true;
}

bool ts_sqlite_prepare(sqlite_store *s, ts_error *err) {
    int last = s->read_only ? ST_LAST_READ : ST_COUNT - 1;
    for (int i = 0; i <= last; i++) {
        const char *sql = i == ST_READ_TASKS && s->schema_version == 1 ? read_tasks_v1 : statement_sql[i];
        int rc = sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &s->statements[i], NULL);
        if (rc != SQLITE_OK) {
            ts_error_set(err, "%s: not a turnstile journal of schema version %d: %s: %s (SQLite error %d)", s->open_op,
                         s->schema_version, sql, sqlite3_errmsg(s->db), rc);
            return false;
        }
    }
    return true;
}
