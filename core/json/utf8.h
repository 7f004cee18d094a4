/* utf8.h — valid UTF-8 for text that may hold anything (a testee's output, excerpts quoting it):
 * the length of the character a byte starts, and a copy with every byte that starts no valid
 * character replaced by U+FFFD. Used by the JSON writer (json_writer.h) and the reports.
 *
 * Owns: nothing (pure functions over the caller's bytes).
 */
#ifndef TURNSTILE_CORE_JSON_UTF8_H
#define TURNSTILE_CORE_JSON_UTF8_H

#include <stddef.h>

#include "core/json/buf.h"

/* Length of the valid UTF-8 sequence at s (1-4), or 0 when the byte there starts none (a stray
 * continuation byte, an overlong form, a surrogate, beyond U+10FFFF, or cut off before `left`
 * bytes end). left >= 1. */
size_t ts_utf8_sequence(const unsigned char *s, size_t left);

/* Appends s (len bytes) to out as valid UTF-8: each byte that starts no valid character becomes
 * U+FFFD (EF BF BD), every other byte is copied. Allocation failure marks out->failed. */
void ts_utf8_append_valid(ts_buf *out, const char *s, size_t len);

#endif
