/* canon.h — RFC 8785 JSON Canonicalization Scheme (JCS) over turnstile's JSON values.
 *
 * Owns: the one byte form of a JSON value that content-derived ids hash (taskid.h). Two values
 * that I-JSON (RFC 7493) reads as equal get the same bytes, and values that differ get
 * different bytes:
 *   - object members sorted by their keys as UTF-16 code units (a key beyond U+FFFF is a
 *     surrogate pair, 0xD800.., so it sorts before U+E000..U+FFFF), no whitespace;
 *   - keys escaped exactly like string values (§3.2.2.2): \" \\ \b \f \n \r \t, \u00xx
 *     (lowercase hex) for the other controls, everything else raw UTF-8;
 *   - numbers as the double they denote, in ECMAScript Number.prototype.toString form
 *     (numfmt.h): 1e20 is "100000000000000000000", 1e21 is "1e+21", -0 is "0". An integer
 *     held exactly as int64 is written as the double nearest to it, as I-JSON reads it:
 *     9007199254740993 becomes 9007199254740992. (codec.h's writer keeps such integers exact
 *     and writes reals from 2^53 on with an exponent; canonical form must not do either.)
 * The canonical form has no trailing newline.
 */
#ifndef TURNSTILE_CORE_CANON_H
#define TURNSTILE_CORE_CANON_H

#include <stdbool.h>
#include <stddef.h>

#include "core/json/arena.h"
#include "core/json/buf.h"
#include "core/json/error.h"
#include "core/json/json.h"

/* Objects and arrays nested deeper than this are refused by ts_canon_write (the parser stops
 * at 2048 already). */
enum { TS_CANON_MAX_DEPTH = 4096 };

/* Appends the canonical form of value to out. Returns true on success. Returns false, leaves
 * out as it was, and fills err (message, and the JSON path in err->path) when the value is not
 * I-JSON — a number that is not finite, a string or key that is not valid UTF-8 (a lone
 * surrogate included), two members with the same key, nesting deeper than
 * TS_CANON_MAX_DEPTH — or when out runs out of memory. Borrows value. */
bool ts_canon_write(ts_buf *out, const ts_json *value, ts_error *err);

/* Parses exactly one JSON value of any kind (whitespace around it allowed) as I-JSON, into the
 * arena; every number becomes a double (TS_JSON_REAL), as JSON.parse reads it. Refused, with
 * err's line and column at the offending token: duplicate keys, lone surrogates (an escaped
 * \ud800 alone, or UTF-8 that encodes one), invalid UTF-8, NaN and Infinity, numbers beyond
 * the double range (1e400), anything that is not JSON. Accepted: integers beyond int64 (read
 * as the nearest double) and numbers that underflow (read as 0). Not supported: a key holding
 * U+0000 (the parser refuses it, with an error). Borrows data; the value lives in the arena. */
bool ts_canon_parse(ts_arena *arena, const char *data, size_t len, ts_json *out, ts_error *err);

/* Both steps: parses data as I-JSON and appends its canonical form to out. Returns false and
 * fills err as the two functions above do (out unchanged). Uses an arena of its own. */
bool ts_canon_text(ts_buf *out, const char *data, size_t len, ts_error *err);

#endif
