/* jsonstream.c — ts_json_stream: a sequence of JSON values read in windows; see codec.h.
 *
 * The buffer holds bytes [base, base + fill) of the input. Values are read from `pos` on, one at
 * a time, by the scanner (scan.h) straight into the arena; a value the buffer cuts short is read
 * again once more input is in, and a value the scanner defers is read by jansson (strict.h),
 * which accepts it or names the error.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/json/codec.h"
#include "core/json/fastjson.h"
#include "core/json/scan.h"
#include "core/json/strict.h"

enum { WINDOW = 1 << 20, REFILL_BELOW = 1 << 12 };

struct ts_json_stream {
    FILE *file;              /* the source: a file, or */
    const char *memory;      /* a buffer */
    size_t memory_len, memory_pos;
    size_t max_bytes;        /* 0: no bound */
    size_t bytes_read;
    bool eof, over_limit;
    int read_errno;          /* a read failed: its errno */

    char *buf;
    size_t window;           /* bytes read at a time (the buffer grows past it for a large value) */
    size_t cap, fill, pos;
    size_t base;             /* input offset of buf[0] */

    size_t counted;          /* buf offset up to which line breaks are counted */
    int line;                /* line of buf[counted] */
    size_t line_start;       /* input offset where that line starts */

    ts_scanner scanner;
    bool need_more, started, stopped;

    bool has_value;          /* the last value returned, for ts_json_stream_locate */
    size_t value_start, value_end;
    int value_line, value_column;
};

static ts_json_stream *open_stream(FILE *file, const char *memory, size_t memory_len, size_t max_bytes) {
    ts_json_stream *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->file = file;
    s->memory = memory;
    s->memory_len = memory_len;
    s->max_bytes = max_bytes;
    s->line = 1;
    ts_scanner_init(&s->scanner);
    /* A buffer no larger than the input needs (one byte more, so that the first read already
     * finds the end): a short input costs a short buffer. */
    s->window = s->cap = memory && memory_len < WINDOW ? memory_len + 1 : WINDOW;
    s->buf = malloc(s->cap);
    if (!s->buf) {
        ts_json_stream_close(s);
        return NULL;
    }
    return s;
}

ts_json_stream *ts_json_stream_open_file(FILE *file, size_t max_bytes) { return open_stream(file, NULL, 0, max_bytes); }

ts_json_stream *ts_json_stream_open_memory(const char *data, size_t len) { return open_stream(NULL, data, len, 0); }

void ts_json_stream_close(ts_json_stream *s) {
    if (!s) return;
    ts_scanner_free(&s->scanner);
    free(s->buf);
    free(s);
}

size_t ts_json_stream_bytes_read(const ts_json_stream *s) { return s->bytes_read; }

void ts_json_stream_borrow_strings(ts_json_stream *s) { s->scanner.borrow = true; }

bool ts_json_stream_set_window(ts_json_stream *s, size_t bytes) {
    if (s->started || bytes == 0 || bytes > SIZE_MAX / 4) return false;
    char *smaller = realloc(s->buf, bytes);
    if (!smaller) return false;
    s->buf = smaller;
    s->window = s->cap = bytes;
    return true;
}

/* Counts line breaks up to buf offset `to` (never backwards). */
static void count_lines(ts_json_stream *s, size_t to) {
    const char *p = s->buf + s->counted, *end = s->buf + to;
    while (p < end && (p = memchr(p, '\n', (size_t)(end - p)))) {
        s->line++;
        s->line_start = s->base + (size_t)(++p - s->buf);
    }
    if (to > s->counted) s->counted = to;
}

/* Keeps [pos, fill), grows the buffer when that fills it, and reads what fits after it. */
static bool refill(ts_json_stream *s) {
    count_lines(s, s->pos);
    size_t keep = s->fill - s->pos;
    if (s->pos) {
        memmove(s->buf, s->buf + s->pos, keep);
        s->base += s->pos;
        s->counted -= s->pos;
        s->fill = keep;
        s->pos = 0;
    }
    s->has_value = false;
    if (s->fill == s->cap) {
        if (s->cap > SIZE_MAX / 2) return false;
        char *grown = realloc(s->buf, 2 * s->cap);
        if (!grown) return false;
        s->buf = grown;
        s->cap *= 2;
    }
    size_t want = s->cap - s->fill, got;
    if (s->max_bytes && s->max_bytes - s->bytes_read + 1 < want) want = s->max_bytes - s->bytes_read + 1;
    if (s->file) {
        errno = 0;
        got = fread(s->buf + s->fill, 1, want, s->file);
        if (got < want && ferror(s->file)) s->read_errno = errno ? errno : EIO;
    } else {
        got = s->memory_len - s->memory_pos < want ? s->memory_len - s->memory_pos : want;
        if (got) memcpy(s->buf + s->fill, s->memory + s->memory_pos, got);
        s->memory_pos += got;
    }
    s->fill += got;
    s->bytes_read += got;
    if (got < want) s->eof = true;
    if (s->max_bytes && s->bytes_read > s->max_bytes) s->over_limit = s->eof = true;
    return true;
}

static int fail(ts_json_stream *s, ts_error *err, size_t at) {
    s->stopped = true;
    s->has_value = false;
    if (err && at != SIZE_MAX) {
        count_lines(s, at);
        err->line = s->line;
        err->column = (int)(s->base + at - s->line_start) + 1;
    }
    return -1;
}

static int fail_because(ts_json_stream *s, ts_error *err, ts_error_code code, const char *what) {
    ts_error_clear(err);
    if (s->over_limit)
        ts_error_set(err, TS_ERR_INPUT, "longer than %zu bytes, the input limit", s->max_bytes);
    else if (s->read_errno)
        ts_error_set(err, TS_ERR_IO, "cannot read the input: %s", strerror(s->read_errno));
    else
        ts_error_set(err, code, "%s", what);
    return fail(s, err, SIZE_MAX);
}

static int deliver(ts_json_stream *s, size_t start, size_t end, int *out_line) {
    count_lines(s, start);
    s->pos = end;
    s->has_value = true;
    s->value_start = start;
    s->value_end = end;
    s->value_line = s->line;
    s->value_column = (int)(s->base + start - s->line_start) + 1;
    if (out_line) *out_line = s->line;
    return 1;
}

static bool is_space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

/* The value at pos through the strict path: 1 read, -1 an error, 0 more input is needed. */
static int read_strict(ts_json_stream *s, ts_arena *arena, ts_json *out, int *out_line, ts_error *err) {
    ts_strict_outcome outcome;
    if (ts_strict_read(arena, s->buf + s->pos, s->fill - s->pos, TS_STRICT_FIRST_VALUE, out, &outcome, err))
        return deliver(s, s->pos, s->pos + outcome.consumed, out_line);
    if (outcome.out_of_memory) {
        count_lines(s, s->pos);
        err->line = s->line;
        return fail(s, err, SIZE_MAX);
    }
    if (!outcome.ran_out || s->eof) return fail(s, err, s->pos + outcome.error_offset);
    s->need_more = true;
    return 0;
}

int ts_json_stream_next(ts_json_stream *s, ts_arena *arena, ts_json *out, int *out_line, ts_error *err) {
    ts_error local;
    if (!err) err = &local;
    s->has_value = false;
    if (s->stopped) return 0;
    if (!s->started) {
        s->started = true;
        do {
            if (!refill(s)) return fail_because(s, err, TS_ERR_NOMEM, "out of memory while reading JSON");
        } while (s->fill < 3 && !s->eof);
        if (s->fill >= 3 && memcmp(s->buf, "\xEF\xBB\xBF", 3) == 0) s->pos = s->counted = s->line_start = 3;
    }
    for (;;) {
        if (s->over_limit || s->read_errno) return fail_because(s, err, TS_ERR_INPUT, "");
        while (s->pos < s->fill && is_space(s->buf[s->pos])) s->pos++;
        /* Read on when the rest is short (a value cut there is read again whole after): moving
         * a few KiB to the front costs little, half a window each time would not. */
        size_t low = s->window / 2 < REFILL_BELOW ? s->window / 2 : REFILL_BELOW;
        if (s->need_more || (!s->eof && (s->pos == s->fill || s->fill - s->pos < low))) {
            s->need_more = false;
            if (!refill(s)) return fail_because(s, err, TS_ERR_NOMEM, "out of memory while reading JSON");
            continue;
        }
        if (s->pos == s->fill) return 0; /* the input is all read */
        size_t end;
        switch (ts_scan_value(&s->scanner, arena, s->buf + s->pos, s->fill - s->pos, s->eof, false, &end, out)) {
        case TS_SCAN_VALUE: return deliver(s, s->pos, s->pos + end, out_line);
        case TS_SCAN_INCOMPLETE: s->need_more = true; continue;
        case TS_SCAN_NOMEM: return fail_because(s, err, TS_ERR_NOMEM, "out of memory while reading JSON");
        case TS_SCAN_DEFER:
            if (!s->eof && !ts_scan_complete(s->buf + s->pos, s->fill - s->pos)) {
                s->need_more = true; /* jansson judges the whole value, as when it is all in */
                continue;
            }
            break;
        }
        int got = read_strict(s, arena, out, out_line, err);
        if (got) return got;
    }
}

/* Appends the JSON Pointer (RFC 6901) of a turnstile field path ("a.b[2].c", "[3].d") to
 * pointer, one reference token per step; returns the number of steps, or -1 when it is too long. */
static int path_to_pointer(const char *path, char *pointer, size_t size, size_t *ends, int max_steps) {
    size_t n = 0;
    int steps = 0;
    for (const char *p = path; *p;) {
        if (*p == '.') p++;
        const char *end = *p == '[' ? strchr(p, ']') : p + strcspn(p, ".[");
        if (!end || steps == max_steps || n + 1 >= size) return -1;
        const char *from = *p == '[' ? p + 1 : p;
        pointer[n++] = '/';
        for (const char *c = from; c < end; c++) {
            if (n + 2 >= size) return -1;
            if (*c == '~' || *c == '/') {
                pointer[n++] = '~';
                pointer[n++] = *c == '~' ? '0' : '1';
            } else {
                pointer[n++] = *c;
            }
        }
        ends[steps++] = n;
        p = *end == ']' ? end + 1 : end;
    }
    pointer[n] = '\0';
    return steps;
}

/* The offset in doc[0..len) of the value `path` names, or of its nearest enclosing value. */
static bool locate_path(const char *doc, size_t len, const char *path, size_t *offset) {
    enum { MAX_STEPS = 64 };
    char pointer[512];
    size_t ends[MAX_STEPS];
    int steps = path_to_pointer(path, pointer, sizeof pointer, ends, MAX_STEPS);
    for (int k = steps; k >= 0; k--) {
        pointer[k ? ends[k - 1] : 0] = '\0';
        if (ts_fast_locate(doc, len, pointer, offset)) return true;
    }
    return false;
}

bool ts_json_stream_locate(const ts_json_stream *s, const char *path, ts_error *err) {
    size_t offset;
    if (!s->has_value || !err ||
        !locate_path(s->buf + s->value_start, s->value_end - s->value_start, path, &offset))
        return false;
    ts_strict_position(s->buf, s->value_start, s->value_line, s->value_column, s->value_start + offset, &err->line,
                       &err->column);
    return true;
}

bool ts_codec_locate(const char *data, size_t len, const char *path, ts_error *err) {
    size_t offset;
    if (!err || !locate_path(data, len, path, &offset)) return false;
    ts_strict_position(data, 0, 1, 1, offset, &err->line, &err->column);
    return true;
}
