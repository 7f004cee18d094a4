/* c-minimal — a turnstile testee kit in C11.
 *
 * Speaks the testee protocol (conformance/PROTOCOL.md): one JSON request per line on stdin, one
 * JSON answer per line on stdout. JSON is read and written with turnstile's core library
 * (core/json/codec.h); your merge function sees JSON values (core/json/json.h) and returns one. To certify
 * your own merger, copy this directory, change the three lines marked below, add your library to
 * `deps` in BUILD.bazel and run:
 *     bazel build //conformance/testees/c-minimal:testee
 *     turnstile certify -- bazel-bin/conformance/testees/c-minimal/testee
 * Linux/POSIX: getline needs _POSIX_C_SOURCE=200809L (the project's .bazelrc defines it for every
 * target) and the %[A-Z...] range in sscanf is a POSIX-libc feature (glibc, musl, BSD).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json/codec.h"
#include "core/merge/merger.h"
#include "core/merge/model.h"

/* ---- THE PART YOU REPLACE -------------------------------------------------------------------
 * One turn's `updates` (the request's "updates": a JSON array of AgentResponseUpdate objects in
 * arrival order; an empty array when the request has none) -> *response, an AgentResponse object
 * in the SPEC W7 shape, allocated in `arena` (freed once the answer is written). `response_id`
 * is the turn's id when the request names one (ptr NULL otherwise). Return false with a message
 * in `error` to answer {"error": ...}. The kit plugs in turnstile's reference merger (ts_merge),
 * so as shipped it is conformant; yours converts the JSON to its own types and back. */
static bool kit_merge(ts_arena *arena, const ts_json *updates, ts_str response_id, ts_json *response, char *error,
                      size_t error_size) {
    ts_error err = {.message = "out of memory"};
    ts_merge_options options = {.primary_response_id = response_id}; /* other options: the defaults */
    ts_stream stream;
    ts_response merged;
    if (ts_stream_from_array(arena, updates, "updates", &stream, &err) &&
        ts_merge(arena, stream.updates, stream.count, &options, &merged, &err) &&
        ts_response_to_json(&merged, arena, response))
        return true;
    ts_error_format(&err, "request", error, error_size);
    return false;
}

/* ---- THE THREE LINES YOU CHANGE ------------------------------------------------------------ */
#define TESTEE_NAME "c-minimal" /* 1. your implementation's name (shown in the report header) */
#define TESTEE_VERSION "0.1.0"  /* 2. its version */
#define TESTEE_MERGE kit_merge  /* 3. your merge function, with kit_merge's signature */

/* ---- protocol plumbing: no need to touch ---------------------------------------------------- */

/* Appends the answer line to one request line to out; nothing when there is no id to answer to. */
static void answer(ts_arena *arena, const char *line, size_t len, ts_buf *out) {
    static const ts_json none = {.kind = TS_JSON_ARRAY}; /* "updates" missing: an empty array */
    ts_json req, response;
    ts_error err = {.line = 0};
    char close = 0, id_text[128], error[600] = "";
    bool ok = ts_codec_parse(arena, line, len, &req, &err);
    const ts_json *request = ok ? &req : NULL, *updates = ts_json_get(request, "updates");
    ts_str id = ts_json_string(ts_json_get(request, "id")), op = ts_json_string(ts_json_get(request, "op"));
    const char *at = ok ? NULL : strstr(line, "\"id\""); /* not JSON: answer if an id can still be found */
    if (at && sscanf(at, "\"id\" : \"%127[A-Za-z0-9_.$]%c", id_text, &close) == 2 && close == '"')
        id = ts_str_from(id_text);
    if (!ts_str_present(id)) return;
    ts_buf_append_str(out, "{\"id\":");
    ts_codec_write_string(out, id);
    if (!ok) {
        ts_error_format(&err, "request", error, sizeof error);
    } else if (ts_str_eq_cstr(op, "hello")) {
        ts_buf_append_str(out, ",\"hello\":{\"name\":\"" TESTEE_NAME "\",\"version\":\"" TESTEE_VERSION "\","
                               "\"ops\":[\"merge\"]}");
    } else if (!ts_str_eq_cstr(op, "merge")) {
        ts_buf_append_str(out, ",\"unsupported\":true");
    } else if ((ok = TESTEE_MERGE(arena, updates ? updates : &none, ts_json_string(ts_json_get(request, "responseId")),
                                  &response, error, sizeof error))) {
        ts_buf_append_str(out, ",\"response\":");
        ts_codec_write(out, &response, TS_WRITE_COMPACT);
    }
    if (!ok) {
        ts_buf_append_str(out, ",\"error\":");
        ts_codec_write_string(out, ts_str_from(error[0] ? error : "the merge failed"));
    }
    ts_buf_append_str(out, "}\n");
}

int main(void) {
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    while ((len = getline(&line, &cap, stdin)) != -1) { /* one request per line; EOF ends the loop */
        ts_arena arena;
        ts_buf out;
        ts_arena_init(&arena);
        ts_buf_init(&out);
        answer(&arena, line, (size_t)len, &out); /* blank or id-less lines get no answer */
        if (!out.failed && out.len > 0 && (fwrite(out.data, 1, out.len, stdout) != out.len || fflush(stdout) != 0))
            return 1; /* stdout is gone: the certifier has stopped listening */
        ts_buf_free(&out);
        ts_arena_free(&arena);
    }
    free(line);
    return 0;
}
