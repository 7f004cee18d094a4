/* failure_class.h — whose failure it is: the optional class annotation of an expected-failures
 * entry (gate.h), for the certificates of real engines (issue 24).
 *
 * Owns: parsing and rendering the annotation. An entry's comment may end in
 *     # [free text;] class: KIND WHERE [FINDING] [; KIND WHERE [FINDING]]...
 * KIND is `library-defect` (WHERE: the library's source, PATH:LINE or PATH:LINE-LINE),
 * `documented` (WHERE: the link to the documentation that states the behaviour, http(s)://..., or
 * the documented declaration in the library's shipped source, PATH:LINE) or
 * `integration` (WHERE: the adapter's line, PATH:LINE[-LINE], a choice the application made that has
 * an alternative); FINDING names the finding of the engine's FINDINGS note (F4, say). The quote, the
 * alternative and the argument live in that note; the annotation is what a machine can count.
 * `class:` begins an annotation only at the comment's start or after "; ".
 */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_FAILURE_CLASS_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_FAILURE_CLASS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/json/json_writer.h"

typedef enum ts_failure_kind {
    TS_FAILURE_LIBRARY_DEFECT,
    TS_FAILURE_DOCUMENTED,
    TS_FAILURE_INTEGRATION,
    TS_FAILURE_KIND_COUNT,
} ts_failure_kind;

/* "library-defect", "documented", "integration". */
const char *ts_failure_kind_name(ts_failure_kind kind);

enum { TS_FAILURE_CLASSES_MAX = 8 };

typedef struct ts_failure_class {
    ts_failure_kind kind;
    char *where;   /* heap */
    char *finding; /* heap, or NULL */
} ts_failure_class;

typedef struct ts_failure_classes {
    ts_failure_class items[TS_FAILURE_CLASSES_MAX];
    size_t count; /* 0: the entry carries no annotation */
} ts_failure_classes;

/* Parses the annotation in line (a whole expected-failures line; its comment begins at `hash`, the
 * index of its '#'), into out (empty when there is none). False with "LINE:COLUMN: class: what" in
 * why (column 1-based, of the offending token) when an annotation is there and malformed; out is
 * then empty. */
bool ts_failure_classes_parse(const char *line, size_t hash, int line_number, ts_failure_classes *out, char *why,
                              size_t why_size);
void ts_failure_classes_free(ts_failure_classes *c);

/* Writes the value [{"kind":K,"where":W,"finding":F},...] (F null when none) with w. */
void ts_failure_classes_json(ts_json_writer *w, const ts_failure_classes *c);

#endif
