/* suite.h — the conformance cases as data: every directory under the suite root that holds a
 * MANIFEST.json (conformance/cases/merge, merge-generated, host, ...), or the root itself when
 * it holds one (a directory of fuzzer findings); or the same files compiled into the binary.
 *
 * Owns: reading manifests and case files, building each case's protocol request line, the
 * suite's identity (version and content hash) and the platform tags of each case.
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

/* Platform tags: inputs valid by the SPEC that a platform's standard serializer cannot
 * represent, so a testee on that platform fails them before its merger runs (W3). */
#define TS_TAG_OFFSET_BEYOND_14H "offset-beyond-14h"       /* a createdAt offset beyond ±14:00 */
#define TS_TAG_UNKNOWN_CONTENT_TYPE "unknown-content-type" /* a content "$type" .NET does not know */
enum { TS_CASE_MAX_TAGS = 4 };

typedef struct ts_case {
    const char *id;
    const char *op;            /* "merge", "host", "journal" or "resume" */
    const char **rules;
    size_t rule_count;
    const char *description;
    const char *source;        /* the input file, relative to the suite root */
    ts_stream updates;         /* merge, host: the input, parsed (for the checkers) */
    ts_scenario scenario;      /* journal, resume: the input scenario (for the checkers) */
    long crash_before_commit;  /* journal: > 0 asks the testee to simulate a crash there */
    const char *request;       /* the request line, without newline */
    size_t request_len;
    bool has_expected;
    ts_json expected;          /* the golden answer: a response (merge) or {stream, response} (host) */
    const char *tags[TS_CASE_MAX_TAGS]; /* platform tags (TS_TAG_*), static strings */
    size_t tag_count;
} ts_case;

typedef struct ts_suite {
    ts_arena arena;
    ts_case *cases;
    size_t count;
    char root[512];            /* the directory, or "built-in" */
    char version[64];          /* the root's VERSION file (first line), the built-in's, or "unversioned" */
    char hash[65];             /* SHA-256 (hex) over every case: its manifest entry, input and golden answer */
} ts_suite;

/* One file of a suite compiled into the binary: its path relative to the suite root. */
typedef struct ts_suite_file {
    const char *path;
    const unsigned char *data;
    size_t len;
} ts_suite_file;

typedef struct ts_suite_files {
    const ts_suite_file *files;
    size_t count;
    const char *version;
} ts_suite_files;

/* Loads every manifest directory under root. Returns false with err (path and reason). */
bool ts_suite_load(ts_suite *suite, const char *root, ts_error *err);
/* The same from files held in memory (the built-in suite); suite->root becomes "built-in". */
bool ts_suite_load_files(ts_suite *suite, const ts_suite_files *files, ts_error *err);
void ts_suite_free(ts_suite *suite); /* accepts NULL */

/* Reads the whole file into a malloc'd, NUL-terminated buffer (*len bytes before the NUL), or
 * NULL when it cannot be read (errno: EFBIG when it is longer than TS_SUITE_MAX_FILE_BYTES, a
 * user's file that never ends included). The certifier's one file reader (suites, reports). */
#define TS_SUITE_MAX_FILE_BYTES ((size_t)256 << 20)
char *ts_suite_read_file(const char *path, size_t *len);

/* The suite directory named by $TURNSTILE_SUITE, or NULL: then the built-in suite is used. */
const char *ts_suite_default_root(void);

/* True when case c carries tag. */
bool ts_case_has_tag(const ts_case *c, const char *tag);

#endif
