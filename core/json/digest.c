/* digest.c — SHA-256 and SHA-1 via EVP; see digest.h. Both wrap the same three EVP steps. */
#include "core/json/digest.h"

#include <openssl/evp.h>

static void *evp_init(const EVP_MD *md, bool *failed) {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    *failed = !ctx || EVP_DigestInit_ex(ctx, md, NULL) != 1;
    return ctx;
}

static void evp_update(void *ctx, bool *failed, const void *data, size_t len) {
    if (*failed || len == 0) return;
    if (EVP_DigestUpdate((EVP_MD_CTX *)ctx, data, len) != 1) *failed = true;
}

/* Finishes into out (want bytes) and frees ctx. */
static bool evp_final(void **ctx, bool failed, unsigned char *out, unsigned int want) {
    unsigned int n = 0;
    bool ok = !failed && EVP_DigestFinal_ex((EVP_MD_CTX *)*ctx, out, &n) == 1 && n == want;
    EVP_MD_CTX_free((EVP_MD_CTX *)*ctx);
    *ctx = NULL;
    return ok;
}

void ts_sha256_init(ts_sha256 *h) { h->ctx = evp_init(EVP_sha256(), &h->failed); }

void ts_sha256_update(ts_sha256 *h, const void *data, size_t len) { evp_update(h->ctx, &h->failed, data, len); }

bool ts_sha256_final(ts_sha256 *h, unsigned char out[TS_SHA256_LEN]) {
    return evp_final(&h->ctx, h->failed, out, TS_SHA256_LEN);
}

void ts_sha256_copy(ts_sha256 *dst, const ts_sha256 *src) {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    dst->failed = src->failed || !ctx || !src->ctx || EVP_MD_CTX_copy_ex(ctx, (const EVP_MD_CTX *)src->ctx) != 1;
    dst->ctx = ctx;
}

void ts_sha256_discard(ts_sha256 *h) {
    EVP_MD_CTX_free((EVP_MD_CTX *)h->ctx);
    h->ctx = NULL;
}

void ts_sha1_init(ts_sha1 *h) { h->ctx = evp_init(EVP_sha1(), &h->failed); }

void ts_sha1_update(ts_sha1 *h, const void *data, size_t len) { evp_update(h->ctx, &h->failed, data, len); }

bool ts_sha1_final(ts_sha1 *h, unsigned char out[TS_SHA1_LEN]) {
    return evp_final(&h->ctx, h->failed, out, TS_SHA1_LEN);
}
