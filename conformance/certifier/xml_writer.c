/* xml_writer.c — the streaming XML writer; see xml_writer.h. */
#include "conformance/certifier/xml_writer.h"

#include <stdarg.h>
#include <string.h>

#include "core/json/utf8.h"

enum { FLUSH_AT = 64 * 1024 };

static void start(ts_xml_writer *w) {
    w->failed = w->in_start = w->in_attr = false;
    w->depth = 0;
    ts_buf_init(&w->pending);
}

void ts_xw_init_buf(ts_xml_writer *w, ts_buf *out) {
    start(w);
    w->out = out;
    w->file = NULL;
}

void ts_xw_init_file(ts_xml_writer *w, FILE *file) {
    start(w);
    w->out = &w->pending;
    w->file = file;
}

bool ts_xw_failed(const ts_xml_writer *w) { return w->failed || w->out->failed; }

static void drain(ts_xml_writer *w, bool all) {
    if (!w->file || w->failed || (!all && w->pending.len < FLUSH_AT)) return;
    if (w->pending.failed || (w->pending.len && fwrite(w->pending.data, 1, w->pending.len, w->file) != w->pending.len))
        w->failed = true;
    ts_buf_reset(&w->pending);
}

bool ts_xw_finish(ts_xml_writer *w) {
    drain(w, true);
    if (w->file && !w->failed && (fflush(w->file) != 0 || ferror(w->file))) w->failed = true;
    bool ok = !ts_xw_failed(w) && w->depth == 0 && !w->in_attr;
    ts_buf_free(&w->pending);
    w->failed = !ok;
    return ok;
}

/* Appends raw (valid UTF-8 made of it first) escaped for text and attribute values alike. */
static void escaped(ts_xml_writer *w, const char *raw) {
    ts_buf clean;
    ts_buf_init(&clean);
    ts_utf8_append_valid(&clean, raw ? raw : "", raw ? strlen(raw) : 0);
    if (clean.failed) w->failed = true;
    ts_buf *b = w->out;
    for (const char *s = clean.data; s && *s; s++) {
        unsigned char ch = (unsigned char)*s;
        if (ch == 0xEF && (unsigned char)s[1] == 0xBF && ((unsigned char)s[2] == 0xBE || (unsigned char)s[2] == 0xBF)) {
            ts_buf_append_str(b, "&#xfffd;"); /* U+FFFE, U+FFFF: not characters in XML 1.0 */
            s += 2;
        } else if (ch == '<') ts_buf_append_str(b, "&lt;");
        else if (ch == '>') ts_buf_append_str(b, "&gt;");
        else if (ch == '&') ts_buf_append_str(b, "&amp;");
        else if (ch == '"') ts_buf_append_str(b, "&quot;");
        else if (ch == '\n') ts_buf_append_str(b, "&#10;");
        else if (ch == '\t') ts_buf_append_str(b, "&#9;");
        else if (ch < 0x20) ts_buf_append_str(b, "&#xfffd;"); /* not allowed in XML 1.0 */
        else ts_buf_append_char(b, (char)ch);
    }
    ts_buf_free(&clean);
    drain(w, false);
}

/* Before content of the current element: closes its start tag. */
static bool content(ts_xml_writer *w) {
    if (ts_xw_failed(w)) return false;
    if (w->in_attr) {
        w->failed = true;
        return false;
    }
    if (w->in_start) ts_buf_append_char(w->out, '>');
    w->in_start = false;
    return true;
}

void ts_xw_declaration(ts_xml_writer *w) {
    if (content(w)) ts_buf_append_str(w->out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
}

void ts_xw_begin(ts_xml_writer *w, const char *name) {
    if (!content(w)) return;
    if (w->depth >= TS_XML_WRITER_MAX_DEPTH) {
        w->failed = true;
        return;
    }
    ts_buf_append_char(w->out, '<');
    ts_buf_append_str(w->out, name);
    w->names[w->depth++] = name;
    w->in_start = true;
}

void ts_xw_attr_begin(ts_xml_writer *w, const char *name) {
    if (ts_xw_failed(w)) return;
    if (!w->in_start || w->in_attr) {
        w->failed = true;
        return;
    }
    ts_buf_append_char(w->out, ' ');
    ts_buf_append_str(w->out, name);
    ts_buf_append_str(w->out, "=\"");
    w->in_attr = true;
}

void ts_xw_attr_part(ts_xml_writer *w, const char *value) {
    if (ts_xw_failed(w)) return;
    if (!w->in_attr) w->failed = true;
    else escaped(w, value);
}

void ts_xw_attr_end(ts_xml_writer *w) {
    if (ts_xw_failed(w)) return;
    if (!w->in_attr) w->failed = true;
    else ts_buf_append_char(w->out, '"');
    w->in_attr = false;
}

void ts_xw_attr(ts_xml_writer *w, const char *name, const char *value) {
    ts_xw_attr_begin(w, name);
    ts_xw_attr_part(w, value);
    ts_xw_attr_end(w);
}

void ts_xw_attrf(ts_xml_writer *w, const char *name, const char *fmt, ...) {
    char value[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(value, sizeof value, fmt, ap);
    va_end(ap);
    if (n < 0) value[0] = '\0';
    ts_xw_attr(w, name, value);
}

void ts_xw_text(ts_xml_writer *w, const char *text) {
    if (content(w)) escaped(w, text);
}

void ts_xw_newline(ts_xml_writer *w) {
    if (content(w)) ts_buf_append_char(w->out, '\n');
}

void ts_xw_end(ts_xml_writer *w) {
    if (ts_xw_failed(w)) return;
    if (w->depth == 0 || w->in_attr) {
        w->failed = true;
        return;
    }
    const char *name = w->names[--w->depth];
    if (w->in_start) {
        ts_buf_append_str(w->out, "/>");
    } else {
        ts_buf_append_str(w->out, "</");
        ts_buf_append_str(w->out, name);
        ts_buf_append_char(w->out, '>');
    }
    w->in_start = false;
    drain(w, false);
}
