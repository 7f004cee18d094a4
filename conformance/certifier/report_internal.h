/* report_internal.h — private to report.c and report_junit.c: what the reports share. Not part
 * of the certifier's interface (that is report.h). */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_REPORT_INTERNAL_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_REPORT_INTERNAL_H

#include <stddef.h>

#include "core/json/buf.h"

/* Appends s (len bytes) to out as valid UTF-8: each byte that starts no valid character becomes
 * U+FFFD. Testee output and excerpts may hold anything. */
void ts_report_valid_utf8(const char *s, size_t len, ts_buf *out);

/* Appends the testee's command as certificates carry it: absolute paths (build and temp
 * directories) cut to their last component, so a certificate and a merge of shards agree. */
void ts_report_portable_command(ts_buf *b, const char *command);

#endif
