/* bytes.h — reading fuzzer input as a stream of choices (in the manner of libFuzzer's
 * FuzzedDataProvider), portable and deterministic.
 *
 * Owns: turning raw bytes into integers, booleans and ranges with fixed-width little-endian
 * decoding (never a host-dependent cast of the buffer). When the bytes run out every integer
 * read returns 0 and every chance is false, so any input, including the empty one, decodes to
 * something small.
 */
#ifndef TURNSTILE_CORE_TESTING_BYTES_H
#define TURNSTILE_CORE_TESTING_BYTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct ts_bytes {
    const uint8_t *data;
    size_t size;
    size_t pos;
} ts_bytes;

static inline void ts_bytes_init(ts_bytes *b, const uint8_t *data, size_t size) {
    b->data = data;
    b->size = size;
    b->pos = 0;
}

static inline uint8_t ts_bytes_u8(ts_bytes *b) { return b->pos < b->size ? b->data[b->pos++] : 0; }

static inline uint16_t ts_bytes_u16(ts_bytes *b) {
    uint16_t lo = ts_bytes_u8(b);
    return (uint16_t)(lo | (uint16_t)ts_bytes_u8(b) << 8);
}

static inline uint32_t ts_bytes_u32(ts_bytes *b) {
    uint32_t lo = ts_bytes_u16(b);
    return lo | (uint32_t)ts_bytes_u16(b) << 16;
}

/* A value in [0, n) (n >= 1), from as few bytes as n needs. */
static inline uint32_t ts_bytes_below(ts_bytes *b, uint32_t n) {
    if (n <= 1) return 0;
    if (n <= 256) return ts_bytes_u8(b) % n;
    if (n <= 65536) return ts_bytes_u16(b) % n;
    return ts_bytes_u32(b) % n;
}

/* True with probability about percent/100; false once the bytes run out, so a short input
 * decodes to a lean structure (as libFuzzer's FuzzedDataProvider::ConsumeBool does). */
static inline bool ts_bytes_chance(ts_bytes *b, unsigned percent) {
    return b->pos < b->size && ts_bytes_u8(b) % 100 < percent;
}

static inline bool ts_bytes_exhausted(const ts_bytes *b) { return b->pos >= b->size; }

#endif
