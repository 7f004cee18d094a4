/* store_sqlite_schema.c — the SQLite store's schema, its versions and its statements; see
 * store_sqlite_internal.h. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/resume/store_sqlite_internal.h"

/* Version 2: the journal is one append-only log, in commit order. A commit appends one row per
 * new entry and per new or completed task, and its checkpoint rides on its last row, so the
 * engine's smallest step (an entry and a checkpoint) is one INSERT into one b-tree — what raw
 * SQLite pays for a one-row transaction — and nothing is ever updated in place. No index on
 * the random ids: the commit rules keep them unique (against the mirror), the load checks it.
 *
 *   kind        columns
 *   entry       id, parent (NULL for a root), name (the role), body (the content, JSON),
 *               timestamp
 *   task        id, key, name (the kind), body (the input's canonical text) or parent (the
 *               entry the input's transcript ends at, LLM tasks), status, result (JSON) or
 *               holder (the entry of the same commit whose content is the result)
 *   result      id (a pending task), status, result or holder: its completion
 *   signal      body (JSON)
 *   event       (an event with no other effect, e.g. a restart)
 *   checkpoint  (a commit of a checkpoint alone)
 * A signal, result or event row written by the outside world carries events (events_applied
 * after it). The last row of a commit with a checkpoint carries cp_sequence, cp_leaf,
 * cp_consumed and cp_state (JSON): the journal's checkpoint is the last such row's. The views
 * entries, tasks, signals and checkpoints show the log by kind, for people reading the file. */
#define LOG_TABLE                                                                                             \
    "CREATE TABLE log("                                                                                       \
    " seq INTEGER PRIMARY KEY,"                                                                               \
    " kind TEXT NOT NULL,"                                                                                    \
    " id TEXT, parent TEXT, name TEXT, key TEXT, status TEXT, body TEXT, result TEXT, holder TEXT, timestamp TEXT," \
    " events INTEGER,"                                                                                        \
    " cp_sequence INTEGER, cp_leaf TEXT, cp_consumed INTEGER, cp_state TEXT);"
#define LOG_VIEWS                                                                                             \
    "CREATE VIEW entries AS SELECT seq, id AS entry_id, parent AS parent_id, name AS role, body AS content, timestamp" \
    " FROM log WHERE kind = 'entry';"                                                                         \
    "CREATE VIEW tasks AS SELECT seq, kind AS row, id AS task_id, key, name AS kind, body AS input, parent AS input_leaf," \
    " status, result, holder AS result_entry FROM log WHERE kind IN ('task', 'result');"                      \
    "CREATE VIEW signals AS SELECT seq, body AS content, events FROM log WHERE kind = 'signal';"               \
    "CREATE VIEW checkpoints AS SELECT seq, cp_sequence AS sequence, cp_leaf AS leaf_id, cp_consumed AS signals_consumed," \
    " cp_state AS state FROM log WHERE cp_sequence IS NOT NULL;"

static const char schema_v2[] =
    "CREATE TABLE meta("
    " id INTEGER PRIMARY KEY CHECK (id = 1),"
    " execution_id TEXT NOT NULL);"
    "INSERT INTO meta(id, execution_id) VALUES (1, '');"
    LOG_TABLE
    LOG_VIEWS;

/* Version 1 kept a table per kind, every input and result inline, one checkpoint row updated in
 * place and events_applied in meta. Its rows become log rows in order (entries, tasks with
 * their final status, signals), then one event row carrying events_applied and the checkpoint. */
static const char migrate_v1[] =
    LOG_TABLE
    "INSERT INTO log(kind, id, parent, name, body, timestamp)"
    " SELECT 'entry', entry_id, parent_id, role, content, timestamp FROM entries ORDER BY seq;"
    "INSERT INTO log(kind, id, key, name, body, status, result)"
    " SELECT 'task', task_id, key, kind, input, status, result FROM tasks ORDER BY seq;"
    "INSERT INTO log(kind, body) SELECT 'signal', content FROM signals ORDER BY seq;"
    "INSERT INTO log(kind, events, cp_sequence, cp_leaf, cp_consumed, cp_state)"
    " SELECT CASE WHEN m.events_applied > 0 THEN 'event' ELSE 'checkpoint' END, NULLIF(m.events_applied, 0),"
    " c.sequence, c.leaf_id, c.signals_consumed, c.state"
    " FROM meta AS m LEFT JOIN checkpoint AS c ON c.id = 1"
    " WHERE m.events_applied > 0 OR c.id IS NOT NULL;"
    "CREATE TABLE meta_v2(id INTEGER PRIMARY KEY CHECK (id = 1), execution_id TEXT NOT NULL);"
    "INSERT INTO meta_v2(id, execution_id) SELECT id, execution_id FROM meta;"
    "DROP TABLE entries; DROP TABLE tasks; DROP TABLE signals; DROP TABLE checkpoint; DROP TABLE meta;"
    "ALTER TABLE meta_v2 RENAME TO meta;"
    LOG_VIEWS;

static const char *const statement_sql[ST_COUNT] = {
    [ST_BEGIN_READ] = "BEGIN",
    [ST_ROLLBACK] = "ROLLBACK",
    [ST_DATA_VERSION] = "PRAGMA data_version",
    [ST_READ_META] = "SELECT execution_id FROM meta WHERE id = 1",
    [ST_READ_LOG] = ("SELECT seq, kind, id, parent, name, key, status, body, result, holder, timestamp, events, "
                     "cp_sequence, cp_leaf, cp_consumed, cp_state FROM log ORDER BY seq"),
    [ST_BEGIN_WRITE] = "BEGIN IMMEDIATE",
    [ST_COMMIT] = "COMMIT",
    [ST_SET_EXECUTION] = "UPDATE meta SET execution_id = ?1 WHERE id = 1",
    [ST_APPEND] = ("INSERT INTO log(kind, id, parent, name, key, status, body, result, holder, timestamp, events, "
                   "cp_sequence, cp_leaf, cp_consumed, cp_state) "
                   "VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)"),
};

/* Version 1's statements, for a reader that does not migrate (store_sqlite_read.c, read_v1). */
static const char *const v1_sql[ST_V1_COUNT] = {
    [ST_V1_META] = "SELECT execution_id, events_applied FROM meta WHERE id = 1",
    [ST_V1_ENTRIES] = "SELECT seq, entry_id, parent_id, role, content, timestamp FROM entries ORDER BY seq",
    [ST_V1_TASKS] = "SELECT seq, task_id, key, kind, input, NULL, status, result, NULL FROM tasks ORDER BY seq",
    [ST_V1_SIGNALS] = "SELECT seq, content FROM signals ORDER BY seq",
    [ST_V1_CHECKPOINT] = "SELECT sequence, leaf_id, signals_consumed, state FROM checkpoint WHERE id = 1",
};

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
            ts_error_set(err, TS_ERR_INPUT, "%s: journal schema version %" PRId64 " is newer than this turnstile (%d)", op, version,
                         TS_SQLITE_SCHEMA_VERSION);
            return FILE_REFUSED;
        }
        if (version < 1) {
            ts_error_set(err, TS_ERR_INPUT, "%s: journal schema version %" PRId64 " is not one this turnstile knows (it writes %d)",
                         op, version, TS_SQLITE_SCHEMA_VERSION);
            return FILE_REFUSED;
        }
        s->schema_version = (int)version;
        return FILE_TURNSTILE;
    }
    if (application_id != 0 || version != 0) {
        ts_error_set(err, TS_ERR_INPUT,
                     "%s: not a turnstile journal: application_id 0x%08" PRIx32 " and user_version %" PRId64
                     " (a turnstile journal has application_id 0x%08x)",
                     op, (uint32_t)application_id, version, TS_SQLITE_APPLICATION_ID);
        return FILE_REFUSED;
    }
    if (!query_int(s, "SELECT count(*) FROM sqlite_master", &objects, "reading the schema", err)) return FILE_REFUSED;
    if (objects != 0) {
        ts_error_set(err, TS_ERR_INPUT, "%s: not a turnstile journal: it holds %" PRId64 " tables or indexes and no turnstile application_id",
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

static bool prepare_one(sqlite_store *s, const char *sql, sqlite3_stmt **out, ts_error *err) {
    int rc = sqlite3_prepare_v3(s->db, sql, -1, SQLITE_PREPARE_PERSISTENT, out, NULL);
    if (rc == SQLITE_OK) return true;
    ts_error_set(err, TS_ERR_IO, "%s: not a turnstile journal of schema version %d: %s: %s (SQLite error %d)", s->open_op,
                 s->schema_version, sql, sqlite3_errmsg(s->db), rc);
    return false;
}

bool ts_sqlite_prepare(sqlite_store *s, ts_error *err) {
    if (s->schema_version == 1) { /* read as it is: a writer has migrated it by now */
        for (int i = 0; i < ST_V1_COUNT; i++)
            if (!prepare_one(s, v1_sql[i], &s->v1_statements[i], err)) return false;
        return prepare_one(s, statement_sql[ST_BEGIN_READ], &s->statements[ST_BEGIN_READ], err) &&
               prepare_one(s, statement_sql[ST_ROLLBACK], &s->statements[ST_ROLLBACK], err) &&
               prepare_one(s, statement_sql[ST_DATA_VERSION], &s->statements[ST_DATA_VERSION], err);
    }
    int last = s->read_only ? ST_LAST_READ : ST_COUNT - 1;
    for (int i = 0; i <= last; i++)
        if (!prepare_one(s, statement_sql[i], &s->statements[i], err)) return false;
    return true;
}
