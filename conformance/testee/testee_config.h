/* testee_config.h — how the reference runs as a testee: the configuration both halves of its
 * handler read (handler.h for every op, resume_handler.h for the resume op).
 *
 * Owns: ts_testee_config (the mutant, the store, the world exchange, a deferred write) and its
 * initialisation. Below both handlers, so neither includes the other's header for its types.
 */
#ifndef TURNSTILE_CONFORMANCE_TESTEE_TESTEE_CONFIG_H
#define TURNSTILE_CONFORMANCE_TESTEE_TESTEE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conformance/testee/mutants.h"
#include "core/json/buf.h"

/* How the `resume` op's world calls reach the certifier: writes `line` (one JSON object, no
 * newline) and reads the reply line into reply. false: no reply comes (the input ended, or the
 * certifier ended the case); the action must stop at once. */
typedef bool (*ts_world_exchange)(void *context, const char *line, size_t len, ts_buf *reply);

/* Where the resume op keeps a thread: SQLite (the default) or the file store. */
typedef enum ts_resume_store_kind { TS_RESUME_STORE_SQLITE = 0, TS_RESUME_STORE_FILES } ts_resume_store_kind;

/* A write the resume-acks-before-write mutant leaves until its answer is out: the message it
 * queued (whose answer said "waiting"), delivered by ts_testee_after_answer. */
typedef struct ts_deferred_write {
    bool pending;
    char dir[4096];
    ts_buf signal;            /* the signal's JSON text */
    uint64_t events_applied;
} ts_deferred_write;

typedef struct ts_testee_config {
    const ts_mutant *mutant;  /* NULL: the reference */
    char now[40];             /* "now" for the created-at-overwritten mutant, fixed per process */
    ts_world_exchange exchange; /* NULL: the resume op is answered with an error */
    void *exchange_context;
    ts_resume_store_kind store;
    int synchronous;          /* the SQLite store's ts_sqlite_synchronous (default FULL) */
    ts_deferred_write *deferred; /* NULL: no write is ever left for after the answer */
    bool can_fork;            /* hello says "fork": true (a fork server's instance; PROTOCOL.md) */
} ts_testee_config;

/* Initialises config for the reference, or for a mutant (NULL name: the reference): the
 * SQLite store with synchronous FULL, nothing deferred. */
void ts_testee_config_init(ts_testee_config *config, const ts_mutant *mutant);

#endif
