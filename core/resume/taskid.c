/* taskid.c — task keys and task ids; see taskid.h.
 *
 * The seed (shared/seeds/003, sdk-rust context_impl.rs) computes the same thing as:
 *     Sha256(agent_execution_id.as_bytes() ‖ b":" ‖ kind ‖ b":" ‖ canonical_json_string(input))
 *     key = format!("task:{}", hex::encode(&hash[..16]))
 *     id  = Uuid::new_v5(&Uuid::NAMESPACE_OID, key.as_bytes())
 * where Uuid::as_bytes is the 16 raw bytes, not the text. Its canonical_json_string differs
 * from RFC 8785 (keys unescaped and sorted by UTF-8 bytes, numbers as serde_json prints them);
 * for inputs with plain ASCII keys and small integers, such as {"a":1}, both give the same
 * bytes, hence the same keys (core/tests/taskid_test.c pins one).
 */
#include "core/resume/taskid.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uuid/uuid.h>

#include "core/json/buf.h"
#include "core/json/canon.h"
#include "core/json/digest.h"

bool ts_uuid_parse(const char *text, unsigned char out[TS_UUID_LEN]) {
    if (!text || strlen(text) != TS_UUID_TEXT_LEN) return false;
    uuid_t parsed;
    if (uuid_parse(text, parsed) != 0) return false;
    memcpy(out, parsed, TS_UUID_LEN);
    return true;
}

void ts_uuid_format(const unsigned char uuid[TS_UUID_LEN], char out[TS_UUID_TEXT_LEN + 1]) {
    uuid_t copy;
    memcpy(copy, uuid, TS_UUID_LEN);
    uuid_unparse_lower(copy, out);
}

bool ts_uuid_v5(const unsigned char namespace_uuid[TS_UUID_LEN], const void *name, size_t name_len,
                unsigned char out[TS_UUID_LEN]) {
    unsigned char hash[TS_SHA1_LEN];
    ts_sha1 h;
    ts_sha1_init(&h);
    ts_sha1_update(&h, namespace_uuid, TS_UUID_LEN);
    ts_sha1_update(&h, name, name_len);
    if (!ts_sha1_final(&h, hash)) return false;
    memcpy(out, hash, TS_UUID_LEN);
    out[6] = (unsigned char)((out[6] & 0x0F) | 0x50); /* version 5 */
    out[8] = (unsigned char)((out[8] & 0x3F) | 0x80); /* variant 10 (RFC 4122 / 9562) */
    return true;
}

/* Starts SHA-256(exec id's 16 bytes ‖ ":" ‖ kind ‖ ":"), the part of every key before the input. */
static bool key_begin(ts_sha256 *h, const char *exec_id, ts_str kind, ts_error *err) {
    unsigned char exec_bytes[TS_UUID_LEN];
    if (!ts_uuid_parse(exec_id, exec_bytes)) {
        ts_error_clear(err);
        ts_error_set(err, TS_ERR_INPUT, "execution id '%.40s' is not a UUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)",
                     exec_id ? exec_id : "");
        return false;
    }
    ts_sha256_init(h);
    ts_sha256_update(h, exec_bytes, sizeof exec_bytes);
    ts_sha256_update(h, ":", 1);
    ts_sha256_update(h, kind.ptr, kind.len);
    ts_sha256_update(h, ":", 1);
    return true;
}

/* Finishes h (releasing it) into "task:" + the hex of the first 16 bytes. */
static bool key_finish(ts_sha256 *h, char out[TS_TASK_KEY_TEXT_LEN + 1], ts_error *err) {
    unsigned char hash[TS_SHA256_LEN];
    if (!ts_sha256_final(h, hash)) {
        ts_error_clear(err);
        ts_error_set(err, TS_ERR_IO, "SHA-256 failed (libcrypto)");
        return false;
    }
    static const char hex[] = "0123456789abcdef";
    memcpy(out, "task:", 5);
    for (size_t i = 0; i < 16; i++) {
        out[5 + 2 * i] = hex[hash[i] >> 4];
        out[5 + 2 * i + 1] = hex[hash[i] & 15];
    }
    out[TS_TASK_KEY_TEXT_LEN] = '\0';
    return true;
}

bool ts_task_key(const char *exec_id, ts_str kind, ts_str canonical_input,
                 char out[TS_TASK_KEY_TEXT_LEN + 1], ts_error *err) {
    ts_sha256 h;
    if (!key_begin(&h, exec_id, kind, err)) return false;
    ts_sha256_update(&h, canonical_input.ptr, canonical_input.len);
    return key_finish(&h, out, err);
}

/* ------------------------------------------------------------- transcript keys ------------ */

static const char transcript_open[] = "{\"messages\":[", transcript_close[] = "]}";

bool ts_transcript_key_begin(ts_transcript_key *k, const char *exec_id, ts_error *err) {
    k->messages = 0;
    k->state = malloc(sizeof(ts_sha256));
    if (!k->state) {
        ts_error_set(err, TS_ERR_NOMEM, "out of memory");
        return false;
    }
    ts_sha256 *h = k->state;
    if (!key_begin(h, exec_id, ts_str_from("llm-request"), err)) {
        free(k->state);
        k->state = NULL;
        return false;
    }
    ts_sha256_update(h, transcript_open, sizeof transcript_open - 1);
    return true;
}

void ts_transcript_key_add(ts_transcript_key *k, const char *canonical_message, size_t len) {
    if (!k->state) return;
    if (k->messages++) ts_sha256_update(k->state, ",", 1);
    ts_sha256_update(k->state, canonical_message, len);
}

bool ts_transcript_key_add_json(ts_transcript_key *k, const ts_json *message, ts_buf *scratch, ts_error *err) {
    ts_buf_reset(scratch);
    if (!ts_canon_write(scratch, message, err)) return false;
    ts_transcript_key_add(k, scratch->data ? scratch->data : "", scratch->len);
    return true;
}

bool ts_transcript_key_copy(ts_transcript_key *dst, const ts_transcript_key *src, ts_error *err) {
    dst->messages = src->messages;
    dst->state = src->state ? malloc(sizeof(ts_sha256)) : NULL;
    if (!dst->state) {
        if (src->state) ts_error_set(err, TS_ERR_NOMEM, "out of memory");
        else ts_error_set(err, TS_ERR_REFUSED, "copy of a released transcript key");
        return false;
    }
    ts_sha256_copy(dst->state, src->state);
    return true;
}

bool ts_transcript_key_finish(const ts_transcript_key *k, char out[TS_TASK_KEY_TEXT_LEN + 1], ts_error *err) {
    if (!k->state) {
        ts_error_set(err, TS_ERR_REFUSED, "the key of a released transcript");
        return false;
    }
    ts_sha256 h;
    ts_sha256_copy(&h, k->state);
    ts_sha256_update(&h, transcript_close, sizeof transcript_close - 1);
    return key_finish(&h, out, err);
}

void ts_transcript_key_free(ts_transcript_key *k) {
    if (!k || !k->state) return;
    ts_sha256_discard(k->state);
    free(k->state);
    k->state = NULL;
}

bool ts_task_key_of_json(const char *exec_id, ts_str kind, const ts_json *input,
                         char out[TS_TASK_KEY_TEXT_LEN + 1], ts_error *err) {
    ts_buf canonical;
    ts_buf_init(&canonical);
    bool ok = ts_canon_write(&canonical, input, err) &&
              ts_task_key(exec_id, kind, (ts_str){canonical.data ? canonical.data : "", canonical.len}, out, err);
    ts_buf_free(&canonical);
    return ok;
}

bool ts_task_id(const char *task_key, char out[TS_UUID_TEXT_LEN + 1], ts_error *err) {
    unsigned char namespace_oid[TS_UUID_LEN], id[TS_UUID_LEN];
    if (!ts_uuid_parse(TS_UUID_NAMESPACE_OID, namespace_oid) ||
        !ts_uuid_v5(namespace_oid, task_key, strlen(task_key), id)) {
        ts_error_clear(err);
        ts_error_set(err, TS_ERR_IO, "SHA-1 failed (libcrypto)");
        return false;
    }
    ts_uuid_format(id, out);
    return true;
}
