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

#include "core/json/arena.h"
#include "core/json/error.h"
#include "core/json/json.h"

typedef struct ts_table_column {
    const char *name;      /* the report file's base name without ".json" */
    const char *testee;    /* the testee's own name (hello), else its command */
    const ts_json *report; /* the parsed report */
} ts_table_column;

typedef struct ts_table {
    ts_arena arena;
    ts_table_column *columns;
    size_t count;
} ts_table;

/* Reads the reports at paths. false with err (naming the file and the field) when one cannot
 * be read or is not a turnstile certification report. */
bool ts_table_load(ts_table *table, const char *const *paths, size_t count, ts_error *err);
void ts_table_free(ts_table *table);

/* Renders the table and, per implementation, its failures (case id, rule, reason). */
bool ts_table_markdown(FILE *out, const ts_table *table);
bool ts_table_html(FILE *out, const ts_table *table);

#endif
