/* table.h — a compliance table across implementations, in the manner of Bowtie's: rule ×
 * implementation, each cell pass, fail or skipped, each failure linked to the case that shows
 * it and a one-line reason.
 *
 * Owns: reading any number of certify JSON reports (`turnstile certify --report-json`, format
 * "turnstile-certification" version 1) and rendering them as Markdown or as one self-contained
 * HTML page. Presentation only: verdicts are the reports'.
 */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_TABLE_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "conformance/certifier/gate.h"
#include "core/json/arena.h"
#include "core/json/error.h"
#include "core/json/json.h"

typedef struct ts_table_column {
    const char *name;      /* the report file's base name without ".json" */
    const char *testee;    /* the testee's own name (hello), else its command */
    const ts_json *report; /* the parsed report */
    ts_expected_failures classes; /* --classes: an expected-failures list whose entries carry classes
                                   * (failure_class.h); empty when none */
} ts_table_column;

typedef struct ts_table {
    ts_arena arena;
    ts_table_column *columns;
    size_t count;
} ts_table;

/* Reads the reports at paths, and for report i the class list at class_paths[i] (NULL: none;
 * class_paths may be NULL). false with err (naming the file and the field, or FILE:LINE:COLUMN of
 * a list) when one cannot be read or is not a turnstile certification report or a list. A
 * finding's class is its own ("class" in the report, from certify --expected-failures), else the
 * list's entry covering its case and rule. */
bool ts_table_load(ts_table *table, const char *const *paths, const char *const *class_paths, size_t count, ts_error *err);
void ts_table_free(ts_table *table);

/* Renders the table and, per implementation, its failures (case id, rule, reason); where classes
 * are known, each failing cell's cases by class and, per implementation, its failing cases by
 * class (a case with failures of two classes counts in both). */
bool ts_table_markdown(FILE *out, const ts_table *table);
bool ts_table_html(FILE *out, const ts_table *table);

#endif
