/* merge_bytes.c — fuzz target: raw bytes as a stream -> parser -> merger -> every checker.
 *
 * The parser must never crash; an input it rejects must carry an error message (and is not
 * merged); an accepted one must merge (or be rejected cleanly, e.g. a usage sum overflow), and
 * the reference's answer must satisfy every Required rule of SPEC.md.
 */
#include <stdint.h>
#include <stdlib.h>

#include "core/json/codec.h"
#include "core/merge/merger.h"
#include "core/merge/model.h"
#include "fuzz/oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_error err;
    ts_error_clear(&err);
    ts_stream stream;
    const char *text = (const char *)data;
    if (!ts_stream_read(&arena, text, size, &stream, &err)) {
        if (!err.message[0]) ts_oracle_fail("an input was rejected without an error message", text, size);
        if (err.code != TS_ERR_INPUT && err.code != TS_ERR_NOMEM) /* callers choose exits by the code */
            ts_oracle_fail("an input was rejected without the code of bad input", text, size);
        ts_arena_free(&arena);
        return 0;
    }
    ts_buf response;
    ts_buf_init(&response);
    ts_error_clear(&err);
    if (ts_oracle_merge_text(stream.updates, stream.count, NULL, &response, &err)) {
        ts_oracle_check(stream.updates, stream.count, response.data, response.len, text, size);
    } else if (!err.message[0] || err.code == TS_OK) {
        ts_oracle_fail("a stream was refused by the merger without an error message and code", text, size);
    }
    ts_buf_free(&response);
    ts_arena_free(&arena);
    return 0;
}
