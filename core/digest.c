/* digest.c — SHA-256 via EVP; see digest.h. */
#include "core/digest.h"

#include <openssl/evp.h>

void ts_sha256_init(ts_sha256 *h) {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    h->ctx = ctx;
    h->failed = !ctx || EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) != 1;
}

void ts_sha256_update(ts_sha256 *h, const void *data, size_t len) {
    if (h->failed || len == 0) return;
    if (EVP_DigestUpdate((EVP_MD_CTX *)h->ctx, data, len) != 1) h->failed = true;
}

bool ts_sha256_final(ts_sha256 *h, unsigned char out[TS_SHA256_LEN]) {
    unsigned int n = 0;
    bool ok = !h->failed && EVP_DigestFinal_ex((EVP_MD_CTX *)h->ctx, out, &n) == 1 && n == TS_SHA256_LEN;
    EVP_MD_CTX_free((EVP_MD_CTX *)h->ctx);
    h->ctx = NULL;
    return ok;
}
