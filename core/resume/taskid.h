/* taskid.h — content-derived task names for the resume engine, and the UUID text they use.
 *
 * Owns: how a task is named, byte-compatible with the seed runtime (shared/seeds/003), so that
 * ids that runtime wrote can be checked here:
 *   key = "task:" + lowercase hex of the first 16 bytes of
 *         SHA-256(execution id as its 16 raw bytes ‖ ":" ‖ kind ‖ ":" ‖ canonical JSON of input)
 *   id  = UUIDv5(NAMESPACE_OID, key)      (RFC 9562 §5.5: SHA-1, version 5, variant 10)
 * The same execution, kind and input give the same key and id, on every resume; canonical JSON
 * (canon.h, RFC 8785) is what makes "the same input" independent of member order, number
 * spelling and escapes. Canonical JSON never contains a ':' that could end a kind early and
 * still leave valid JSON after it, so (kind, input) pairs cannot collide through the separator.
 */
#ifndef TURNSTILE_CORE_TASKID_H
#define TURNSTILE_CORE_TASKID_H

#include <stdbool.h>
#include <stddef.h>

#include "core/json/buf.h"
#include "core/json/error.h"
#include "core/json/json.h"

enum {
    TS_UUID_LEN = 16,        /* raw bytes */
    TS_UUID_TEXT_LEN = 36,   /* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", without the NUL */
    TS_TASK_KEY_TEXT_LEN = 37, /* "task:" + 32 hex digits, without the NUL */
};

/* RFC 9562 §6.6 name-space ids, as text for ts_uuid_parse. */
#define TS_UUID_NAMESPACE_DNS "6ba7b810-9dad-11d1-80b4-00c04fd430c8"
#define TS_UUID_NAMESPACE_OID "6ba7b812-9dad-11d1-80b4-00c04fd430c8"

/* Reads the hyphenated 36-character form (hex digits in either case; nothing before or after,
 * no braces, no "urn:uuid:") into out. Returns false (out unchanged) on anything else. Any
 * version and variant are accepted. */
bool ts_uuid_parse(const char *text, unsigned char out[TS_UUID_LEN]);

/* Writes the lowercase hyphenated form, NUL-terminated. */
void ts_uuid_format(const unsigned char uuid[TS_UUID_LEN], char out[TS_UUID_TEXT_LEN + 1]);

/* The name-based UUID of `name` (name_len bytes) in namespace_uuid, version 5 (SHA-1).
 * Returns false only when libcrypto fails. */
bool ts_uuid_v5(const unsigned char namespace_uuid[TS_UUID_LEN], const void *name, size_t name_len,
                unsigned char out[TS_UUID_LEN]);

/* The task key of (execution id, kind, input) where canonical_input is ALREADY the RFC 8785
 * form of the input (ts_canon_write); hashing any other spelling gives another key. exec_id is
 * UUID text as ts_uuid_parse reads it. Writes the NUL-terminated key into out and returns true;
 * returns false and fills err when exec_id is not a UUID or libcrypto fails. Borrows all. */
bool ts_task_key(const char *exec_id, ts_str kind, ts_str canonical_input,
                 char out[TS_TASK_KEY_TEXT_LEN + 1], ts_error *err);

/* Like ts_task_key, canonicalising input first; fails also when input is not I-JSON (err says
 * where, as ts_canon_write does). */
bool ts_task_key_of_json(const char *exec_id, ts_str kind, const ts_json *input,
                         char out[TS_TASK_KEY_TEXT_LEN + 1], ts_error *err);

/* An llm-request task's key grown one message at a time. Its input {"messages": [m1, ..., mk]}
 * has the canonical form `{"messages":[` c(m1) `,` ... `,` c(mk) `]}` (RFC 8785 writes arrays
 * in order, without whitespace), so the key of every transcript along a path is the running
 * hash of its prefix, finished with `]}`: each message is canonicalised and hashed once, not
 * once per later task. The result equals ts_task_key over the whole canonical input, byte for
 * byte (core/tests/taskid_test.c). Owns a libcrypto state: release with
 * ts_transcript_key_free. */
typedef struct ts_transcript_key {
    void *state;      /* ts_sha256 (digest.h), heap */
    size_t messages;  /* how many messages are in */
} ts_transcript_key;

/* Starts the empty transcript of execution exec_id (kind "llm-request"). false with err when
 * exec_id is not a UUID or libcrypto fails (k is then released). */
bool ts_transcript_key_begin(ts_transcript_key *k, const char *exec_id, ts_error *err);
/* Appends one message (the canonical text of {"content", "role", "timestamp"}). */
void ts_transcript_key_add(ts_transcript_key *k, const char *canonical_message, size_t len);
/* Canonicalises message (a ts_json object) into scratch and appends it; false with err when
 * it is not I-JSON. */
bool ts_transcript_key_add_json(ts_transcript_key *k, const ts_json *message, ts_buf *scratch, ts_error *err);
/* dst becomes an independent copy of src (dst must not hold a state). */
bool ts_transcript_key_copy(ts_transcript_key *dst, const ts_transcript_key *src, ts_error *err);
/* The key of the transcript so far; k stays as it is. */
bool ts_transcript_key_finish(const ts_transcript_key *k, char out[TS_TASK_KEY_TEXT_LEN + 1], ts_error *err);
void ts_transcript_key_free(ts_transcript_key *k); /* accepts a released or zeroed one */

/* The task id of a key: UUIDv5(NAMESPACE_OID, the key's bytes), lowercase text, NUL-terminated.
 * Returns false and fills err only when libcrypto fails. */
bool ts_task_id(const char *task_key, char out[TS_UUID_TEXT_LEN + 1], ts_error *err);

#endif
