/* digest.h — SHA-256 and SHA-1 through OpenSSL's libcrypto, behind one small interface.
 *
 * Owns: the incremental hashing state. Used for content-derived ids (the merger's fallback
 * ResponseId, the resume engine's task keys). SHA-1 is here only because name-based UUIDs
 * (UUIDv5, RFC 9562 §5.5) are defined with it; nothing uses it for security.
 */
#ifndef TURNSTILE_CORE_DIGEST_H
#define TURNSTILE_CORE_DIGEST_H

#include <stdbool.h>
#include <stddef.h>

enum { TS_SHA256_LEN = 32, TS_SHA1_LEN = 20 };

typedef struct ts_sha256 {
    void *ctx; /* EVP_MD_CTX */
    bool failed;
} ts_sha256;

void ts_sha256_init(ts_sha256 *h);                                     /* failure is recorded */
void ts_sha256_update(ts_sha256 *h, const void *data, size_t len);
/* Writes the digest and releases the state; returns false if any step failed. */
bool ts_sha256_final(ts_sha256 *h, unsigned char out[TS_SHA256_LEN]);
/* Makes dst an independent copy of src's state (a prefix hashed once, finished many ways);
 * dst is then released by ts_sha256_final or ts_sha256_discard. A failure is recorded in dst. */
void ts_sha256_copy(ts_sha256 *dst, const ts_sha256 *src);
/* Releases the state without a digest (accepts a released one). */
void ts_sha256_discard(ts_sha256 *h);

/* The same three steps for SHA-1 (for UUIDv5 only). */
typedef struct ts_sha1 {
    void *ctx; /* EVP_MD_CTX */
    bool failed;
} ts_sha1;

void ts_sha1_init(ts_sha1 *h);                                         /* failure is recorded */
void ts_sha1_update(ts_sha1 *h, const void *data, size_t len);
/* Writes the digest and releases the state; returns false if any step failed. */
bool ts_sha1_final(ts_sha1 *h, unsigned char out[TS_SHA1_LEN]);

#endif
