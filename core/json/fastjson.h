/* fastjson.h — simdjson (C++, Debian's libsimdjson-dev) behind a C interface, for one question
 * of the error path: where in a document a field stands. Internal to core/json: only jsonstream.c
 * includes it.
 *
 * Owns: nothing past a call.
 */
#ifndef TURNSTILE_CORE_FASTJSON_H
#define TURNSTILE_CORE_FASTJSON_H

#ifdef __cplusplus
extern "C" {
#endif

#include <stdbool.h>
#include <stddef.h>

/* The byte offset, inside doc[0..len) (one valid JSON document, no padding needed), of the value
 * at the JSON Pointer (RFC 6901) `pointer`. Returns false when there is no such value. */
bool ts_fast_locate(const char *doc, size_t len, const char *pointer, size_t *offset);

#ifdef __cplusplus
}
#endif

#endif
