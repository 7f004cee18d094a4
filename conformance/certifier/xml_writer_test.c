/* xml_writer_test.c — the JUnit report's XML writer (xml_writer.h): elements, attributes, text
 * and their escaping (the special characters, controls XML 1.0 forbids, U+FFFE/U+FFFF, invalid
 * UTF-8), empty and non-empty elements, misuse and a failing FILE reported to the caller. */
#include <stdio.h>
#include <string.h>

#include "conformance/certifier/xml_writer.h"
#include "core/testing/unit.h"

/* The text s escaped as an attribute value and as element text. */
static void expect_escaped(const char *s, const char *want) {
    ts_buf b;
    ts_buf_init(&b);
    ts_xml_writer w;
    ts_xw_init_buf(&w, &b);
    ts_xw_begin(&w, "e");
    ts_xw_attr(&w, "a", s);
    ts_xw_text(&w, s);
    ts_xw_end(&w);
    CHECK(ts_xw_finish(&w));
    ts_buf want_doc;
    ts_buf_init(&want_doc);
    ts_buf_appendf(&want_doc, "<e a=\"%s\">%s</e>", want, want);
    CHECK_STR_EQ(b.data, want_doc.data);
    ts_buf_free(&want_doc);
    ts_buf_free(&b);
}

static void escapes_special_characters(void) {
    expect_escaped("<a href=\"x\">&amp;</a> 'q'", "&lt;a href=&quot;x&quot;&gt;&amp;amp;&lt;/a&gt; 'q'");
    expect_escaped("line\nnext\ttab", "line&#10;next&#9;tab");
    expect_escaped("\x01\x08\x0b\x0c\r\x1f|\x7f", "&#xfffd;&#xfffd;&#xfffd;&#xfffd;&#xfffd;&#xfffd;|\x7f");
    expect_escaped("\xEF\xBF\xBE\xEF\xBF\xBF\xEF\xBF\xBD", "&#xfffd;&#xfffd;\xEF\xBF\xBD"); /* U+FFFE, U+FFFF; U+FFFD stays */
    expect_escaped("caf\xC3\xA9 \xF0\x9F\x98\x80", "caf\xC3\xA9 \xF0\x9F\x98\x80");
    expect_escaped("a\xFF" "b\xC0\xAF", "a\xEF\xBF\xBD" "b\xEF\xBF\xBD\xEF\xBF\xBD"); /* invalid UTF-8 */
    expect_escaped("", "");
    expect_escaped(NULL, "");
}

static void writes_a_document(void) {
    ts_buf b;
    ts_buf_init(&b);
    ts_xml_writer w;
    ts_xw_init_buf(&w, &b);
    ts_xw_declaration(&w);
    ts_xw_begin(&w, "suite");
    ts_xw_attrf(&w, "tests", "%d", 3);
    ts_xw_attrf(&w, "time", "%.3f", 0.5);
    ts_xw_newline(&w);
    ts_xw_begin(&w, "case"); /* no content: self-closed */
    ts_xw_attr(&w, "name", "a");
    ts_xw_end(&w);
    ts_xw_begin(&w, "case"); /* empty text: a pair */
    ts_xw_attr(&w, "name", "b");
    ts_xw_text(&w, "");
    ts_xw_end(&w);
    ts_xw_begin(&w, "case");
    ts_xw_attr_begin(&w, "message");
    ts_xw_attr_part(&w, "set apart (");
    ts_xw_attr_part(&w, "a<b");
    ts_xw_attr_part(&w, ")");
    ts_xw_attr_end(&w);
    ts_xw_begin(&w, "failure");
    ts_xw_text(&w, "[U9] x & y");
    ts_xw_newline(&w);
    ts_xw_end(&w);
    ts_xw_end(&w);
    ts_xw_newline(&w);
    ts_xw_end(&w);
    ts_xw_newline(&w);
    CHECK(ts_xw_finish(&w));
    CHECK_STR_EQ(b.data, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<suite tests=\"3\" time=\"0.500\">\n"
                         "<case name=\"a\"/><case name=\"b\"></case><case message=\"set apart (a&lt;b)\">"
                         "<failure>[U9] x &amp; y\n</failure></case>\n</suite>\n");
    ts_buf_free(&b);
}

static void misuse_fails(void) {
    ts_buf b;
    ts_buf_init(&b);
    ts_xml_writer w;
    ts_xw_init_buf(&w, &b); /* an attribute after content */
    ts_xw_begin(&w, "e");
    ts_xw_text(&w, "t");
    ts_xw_attr(&w, "a", "v");
    CHECK(ts_xw_failed(&w));
    CHECK(!ts_xw_finish(&w));
    ts_xw_init_buf(&w, &b); /* an end with nothing open */
    ts_xw_end(&w);
    CHECK(!ts_xw_finish(&w));
    ts_xw_init_buf(&w, &b); /* left open */
    ts_xw_begin(&w, "e");
    CHECK(!ts_xw_finish(&w));
    ts_xw_init_buf(&w, &b); /* text inside an open attribute */
    ts_xw_begin(&w, "e");
    ts_xw_attr_begin(&w, "a");
    ts_xw_text(&w, "t");
    CHECK(!ts_xw_finish(&w));
    ts_xw_init_buf(&w, &b); /* too deep */
    for (int i = 0; i <= TS_XML_WRITER_MAX_DEPTH; i++) ts_xw_begin(&w, "e");
    CHECK(!ts_xw_finish(&w));
    ts_buf_free(&b);
}

static void writes_to_a_file(void) {
    FILE *f = tmpfile();
    CHECK(f != NULL);
    if (f) {
        ts_xml_writer w;
        ts_xw_init_file(&w, f);
        ts_xw_begin(&w, "r");
        for (int i = 0; i < 20000; i++) ts_xw_text(&w, "a&b"); /* past one drain */
        ts_xw_end(&w);
        CHECK(ts_xw_finish(&w));
        CHECK(ftell(f) == (long)(strlen("<r>") + 20000 * strlen("a&amp;b") + strlen("</r>")));
        fclose(f);
    }
    FILE *full = fopen("/dev/full", "w");
    if (full) {
        ts_xml_writer w;
        ts_xw_init_file(&w, full);
        ts_xw_begin(&w, "r");
        ts_xw_end(&w);
        CHECK(!ts_xw_finish(&w));
        fclose(full);
    }
}

int main(void) {
    TS_RUN(escapes_special_characters);
    TS_RUN(writes_a_document);
    TS_RUN(misuse_fails);
    TS_RUN(writes_to_a_file);
    return ts_unit_finish();
}
