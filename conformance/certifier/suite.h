/* suite.h — the conformance cases as data: every directory under the suite root that holds a
 * MANIFEST.json (conformance/cases/merge, merge-generated, host, ...).
 *
 * Owns: reading manifests and case files, and building each case's protocol request line.
 * A manifest is {"cases":[{"id","rules":[...],"description","input","expected"?, "op"?}]};
 * "op" defaults to "merge". A journal case's input is a scenario (core/resume/scenario.h) and it may
 * carry "crashBeforeCommit": k. A resume case's input is a scenario too (without edits), and
 * its request is the first of many (conformance/certifier/resume_run.h). Ids are unique
 * across the whole suite.
 */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_SUITE_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_SUITE_H

#include <stdbool.h>
#include <stddef.h>

#include "core/json/arena.h"
#include "core/json/error.h"
#include "core/json/json.h"
#include "core/merge/model.h"
#include "core/resume/scenario.h"

typedef struct ts_case {
    const char *id;
    const char *op;            /* "merge", "host", "journal" or "resume" */
    const char **rules;
    size_t rule_count;
    const char *description;
    const char *source;        /* path of the input file */
    ts_stream updates;         /* merge, host: the input, parsed (for the checkers) */
    ts_scenario scenario;      /* journal, resume: the input scenario (for the checkers) */
    long crash_before_commit;  /* journal: > 0 asks the testee to simulate a crash there */
    const char *request;       /* the request line, without newline */
    size_t request_len;
    bool has_expected;
    ts_json expected;          /* the golden answer: a response (merge) or {stream, response} (host) */
} ts_case;

typedef struct ts_suite {
    ts_arena arena;
    ts_case *cases;
    size_t count;
    char root[512];
} ts_suite;

/* Loads every manifest directory under root. Returns false with err (path and reason). */
bool ts_suite_load(ts_suite *suite, const char *root, ts_error *err);
void ts_suite_free(ts_suite *suite); /* accepts NULL */

/* Reads the whole file into a malloc'd, NUL-terminated buffer (*len bytes before the NUL), or
 * NULL when it cannot be read. The certifier's one file reader (suites, reports). */
char *ts_suite_read_file(const char *path, size_t *len);

/* The suite root to use when none is given: $TURNSTILE_SUITE, else ./conformance/cases. */
const char *ts_suite_default_root(void);

#endif
