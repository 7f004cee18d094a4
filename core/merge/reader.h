/* reader.h — AgentResponseUpdates read from JSON text one at a time (the model's streaming side).
 *
 * Owns: a ts_json_stream over the input and, when the caller gives no arena, the memory of the
 * update it returned last. The text is what ts_stream_read accepts (JSON Lines, concatenated
 * or pretty-printed values, each an update object or an array of them), read in windows
 * through the codec's fast path: `turnstile merge` folds each update into the merger and lets
 * it go, so memory follows the answer, not the input. Errors name line, column and field:
 * a field the model rejects is pointed at where it stands in the text.
 */
#ifndef TURNSTILE_CORE_MERGE_READER_H
#define TURNSTILE_CORE_MERGE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/json/arena.h"
#include "core/json/error.h"
#include "core/merge/model.h"

typedef struct ts_update_reader ts_update_reader;

/* Reads `file` to its end (not closed by the reader), at most max_bytes (0: no bound). */
ts_update_reader *ts_update_reader_open_file(FILE *file, size_t max_bytes);

/* Reads data[0..len), borrowed until the reader is closed. */
ts_update_reader *ts_update_reader_open_memory(const char *data, size_t len);

void ts_update_reader_close(ts_update_reader *reader); /* accepts NULL */

/* 1 and the next update (index = its arrival position), 0 at the end, -1 on an error (err:
 * line, column, field path). The update lives in `arena`, or, when arena is NULL, in the
 * reader's own memory until the next call (its strings are then not NUL-terminated: read
 * them by their length). */
int ts_update_reader_next(ts_update_reader *reader, ts_arena *arena, ts_update *out, ts_error *err);

/* Points err (line, column) at `path` ("" for the update itself, "contents[1]") inside the
 * update returned last. False, err unchanged, when it cannot. */
bool ts_update_reader_locate(const ts_update_reader *reader, const char *path, ts_error *err);

/* Input bytes read so far. */
size_t ts_update_reader_bytes_read(const ts_update_reader *reader);

#endif
