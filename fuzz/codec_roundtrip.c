/* codec_roundtrip.c — fuzz target: the JSON codec keeps what it reads.
 *
 * parse -> write -> parse gives an equal value; writing is idempotent (the second write is
 * byte-identical to the first); the pretty form reads back equal too; and the stream reader
 * never crashes on the same bytes.
 */
#include <stdint.h>
#include <string.h>

#include "core/json/codec.h"
#include "fuzz/oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    const char *text = (const char *)data;
    ts_arena arena;
    ts_arena_init(&arena);
    ts_error err;
    ts_json first, second, pretty;
    if (ts_codec_parse_any(&arena, text, size, &first, &err)) {
        ts_buf a, b, p;
        ts_buf_init(&a);
        ts_buf_init(&b);
        ts_buf_init(&p);
        if (!ts_codec_write(&a, &first, TS_WRITE_COMPACT) || !ts_codec_write(&p, &first, TS_WRITE_PRETTY))
            ts_oracle_fail("a parsed value could not be written", text, size);
        if (!ts_codec_parse_any(&arena, a.data, a.len, &second, &err))
            ts_oracle_fail("the codec cannot read its own output", a.data, a.len);
        if (!ts_json_equal(&first, &second)) ts_oracle_fail("parse -> write -> parse changed the value", text, size);
        if (!ts_codec_write(&b, &second, TS_WRITE_COMPACT) || a.len != b.len || memcmp(a.data, b.data, a.len) != 0)
            ts_oracle_fail("writing is not idempotent", text, size);
        if (!ts_codec_parse_any(&arena, p.data, p.len, &pretty, &err) || !ts_json_equal(&first, &pretty))
            ts_oracle_fail("the pretty form does not read back equal", text, size);
        ts_buf_free(&a);
        ts_buf_free(&b);
        ts_buf_free(&p);
    }
    ts_value_reader reader;
    ts_value_reader_init(&reader, text, size);
    ts_json value;
    int line;
    while (ts_value_reader_next(&reader, &arena, &value, &line, &err) == 1) {
    }
    ts_arena_free(&arena);
    return 0;
}
