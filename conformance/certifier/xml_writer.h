/* xml_writer.h — a streaming XML 1.0 writer for the JUnit report: elements, attributes and
 * escaped text in the caller's order; the writer closes start tags, ends elements and escapes.
 *
 * Owns: its element stack (up to TS_XML_WRITER_MAX_DEPTH names, the caller's strings, which must
 * outlive the element) and, writing to a FILE, a buffer of what is not yet written (written out
 * whenever 64 KiB have gathered). Not
 * the sink: the caller's ts_buf or FILE stays the caller's (a FILE is flushed, never closed).
 *
 * Text and attribute values: any bytes, made valid UTF-8 first (U+FFFD, core/json/utf8.h); then
 * < > & " as entities, newline as &#10; and tab as &#9; (so an attribute keeps them), every other
 * control below U+0020 and U+FFFE, U+FFFF (not characters in XML 1.0) as &#xfffd;. ' and DEL
 * are written as they are. The same in text as in attributes (what the JUnit report did by hand).
 *
 * Errors: sticky. A failing write to the FILE, memory that runs out, an attribute after an
 * element's content, an end with no element open, or nesting beyond the limit fail the writer;
 * later calls do nothing and ts_xw_finish returns false. No global state.
 */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_XML_WRITER_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_XML_WRITER_H

#include <stdbool.h>
#include <stdio.h>

#include "core/json/buf.h"

enum { TS_XML_WRITER_MAX_DEPTH = 16 };

typedef struct ts_xml_writer {
    ts_buf *out;      /* the caller's buffer, or &pending when writing to file */
    ts_buf pending;
    FILE *file;       /* NULL: the buffer sink */
    bool failed;
    bool in_start;    /* the innermost element's start tag is open (attributes may follow) */
    bool in_attr;     /* an attribute value is open (ts_xw_attr_begin) */
    int depth;
    const char *names[TS_XML_WRITER_MAX_DEPTH];
} ts_xml_writer;

void ts_xw_init_buf(ts_xml_writer *w, ts_buf *out);
void ts_xw_init_file(ts_xml_writer *w, FILE *file);
/* Writes what is pending (and fflush), frees the writer's buffer; true when everything was
 * written and every element ended. Call once, also after a failure. */
bool ts_xw_finish(ts_xml_writer *w);
bool ts_xw_failed(const ts_xml_writer *w);

/* <?xml version="1.0" encoding="UTF-8"?> and a newline. */
void ts_xw_declaration(ts_xml_writer *w);

/* `<name`: a new element inside the current one; its attributes may follow. */
void ts_xw_begin(ts_xml_writer *w, const char *name);
/* An attribute of the element just begun: ` name="value"` (value escaped; NULL is ""). */
void ts_xw_attr(ts_xml_writer *w, const char *name, const char *value);
/* The same with a printf-formatted value (formats longer than 4 KiB are cut). */
void ts_xw_attrf(ts_xml_writer *w, const char *name, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* An attribute value written in parts, each escaped on its own: begin, any number of parts,
 * end. Nothing else may come between. */
void ts_xw_attr_begin(ts_xml_writer *w, const char *name);
void ts_xw_attr_part(ts_xml_writer *w, const char *value);
void ts_xw_attr_end(ts_xml_writer *w);

/* Escaped text inside the current element (NULL or "" writes none, but still makes the element
 * one with content: it ends as </name>, never />). */
void ts_xw_text(ts_xml_writer *w, const char *text);
/* A newline between elements, written as it is (layout, not text that needs escaping). */
void ts_xw_newline(ts_xml_writer *w);

/* Ends the current element: `/>` when nothing came after its attributes, else `</name>`. */
void ts_xw_end(ts_xml_writer *w);

#endif
