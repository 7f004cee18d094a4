/* jsonstream.c — ts_json_stream: a sequence of JSON values read in windows; see codec.h.
 *
 * The buffer holds bytes [base, base + fill) of the input, followed by TS_FAST_PADDING bytes
 * for simdjson. Values are read from `pos` on, by simdjson's document stream over a window that
 * ends just after a line break when there is one (a line break is never inside a string, so no
 * UTF-8 character is cut and every JSON Lines value is whole), and by jansson for what simdjson
 * defers. A deferred value that jansson accepts (nesting beyond simdjson's 1024 levels) leaves
 * the rest of that window to jansson, so that a window is never scanned again value by value.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "core/json/codec.h"
#include "core/json/fastjson.h"
#include "core/json/strict.h"

enum { WINDOW = 1 << 20 };

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

    ts_fast_parser *fast;
    bool in_window, need_more, started, stopped;
    bool borrow;             /* values' strings may point into the parser's memory */
    size_t window_base, window_end;
    size_t strict_until;     /* buf offset before which jansson reads */

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
    /* A buffer no larger than the input needs (one byte more, so that the first read already
     * finds the end): a short input costs a short buffer, and simdjson sizes itself by it. */
    s->window = s->cap = memory && memory_len < WINDOW ? memory_len + 1 : WINDOW;
    s->buf = malloc(s->cap + TS_FAST_PADDING);
    s->fast = ts_fast_parser_new();
    if (!s->buf || !s->fast) {
        ts_json_stream_close(s);
        return NULL;
    }
    memset(s->buf, 0, TS_FAST_PADDING);
    return s;
}

ts_json_stream *ts_json_stream_open_file(FILE *file, size_t max_bytes) { return open_stream(file, NULL, 0, max_bytes); }

ts_json_stream *ts_json_stream_open_memory(const char *data, size_t len) { return open_stream(NULL, data, len, 0); }

void ts_json_stream_close(ts_json_stream *s) {
    if (!s) return;
    ts_fast_parser_free(s->fast);
    free(s->buf);
    free(s);
}

size_t ts_json_stream_bytes_read(const ts_json_stream *s) { return s->bytes_read; }

void ts_json_stream_borrow_strings(ts_json_stream *s) { s->borrow = true; }

bool ts_json_stream_set_window(ts_json_stream *s, size_t bytes) {
    if (s->started || bytes == 0 || bytes > SIZE_MAX / 4) return false;
    char *smaller = realloc(s->buf, bytes + TS_FAST_PADDING);
    if (!smaller) return false;
    memset(smaller, 0, TS_FAST_PADDING);
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
        s->strict_until = s->strict_until > s->pos ? s->strict_until - s->pos : 0;
        s->fill = keep;
        s->pos = 0;
    }
    s->has_value = false;
    if (s->fill == s->cap) {
        if (s->cap > (SIZE_MAX - TS_FAST_PADDING) / 2) return false;
        char *grown = realloc(s->buf, 2 * s->cap + TS_FAST_PADDING);
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
    memset(s->buf + s->fill, 0, TS_FAST_PADDING);
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

static int fail_because(ts_json_stream *s, ts_error *err, const char *what) {
    ts_error_clear(err);
    if (s->over_limit)
        ts_error_set(err, "longer than %zu bytes, the input limit", s->max_bytes);
    else if (s->read_errno)
        ts_error_set(err, "cannot read the input: %s", strerror(s->read_errno));
    else
        ts_error_set(err, "%s", what);
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

/* Where the next window ends: after the last line break of the buffer; with none, after its
 * last ASCII byte (never inside a UTF-8 character); at the end once the input is all read. */
static size_t window_end(const ts_json_stream *s) {
    if (s->eof) return s->fill;
    const char *from = s->buf + s->pos;
    for (const char *p = s->buf + s->fill; p > from; p--)
        if (p[-1] == '\n') return (size_t)(p - s->buf);
    for (const char *p = s->buf + s->fill; p > from; p--)
        if ((unsigned char)p[-1] < 0x80) return (size_t)(p - s->buf);
    return s->fill;
}

static bool is_space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

int ts_json_stream_next(ts_json_stream *s, ts_arena *arena, ts_json *out, int *out_line, ts_error *err) {
    ts_error local;
    if (!err) err = &local;
    s->has_value = false;
    if (s->stopped) return 0;
    if (!s->started) {
        s->started = true;
        do {
            if (!refill(s)) return fail_because(s, err, "out of memory while reading JSON");
        } while (s->fill < 3 && !s->eof);
        if (s->fill >= 3 && memcmp(s->buf, "\xEF\xBB\xBF", 3) == 0) s->pos = s->counted = s->line_start = 3;
    }
    for (;;) {
        if (s->over_limit || s->read_errno) return fail_because(s, err, "");
        if (s->in_window) {
            size_t a, b;
            ts_fast_result r = ts_fast_window_next(s->fast, arena, s->borrow, out, &a, &b);
            if (r == TS_FAST_VALUE) return deliver(s, s->window_base + a, s->window_base + b, out_line);
            s->in_window = false;
            if (r == TS_FAST_NOMEM) return fail_because(s, err, "out of memory while reading JSON");
            if (r == TS_FAST_DEFER) {
                /* The deferred value is the next one after pos (simdjson's own offset is not
                 * meaningful after an error found while indexing the window). */
                s->strict_until = s->window_end;
            } else {
                if (s->window_base + a > s->pos) s->pos = s->window_base + a;
                s->need_more = s->pos < s->window_end; /* an incomplete value at the window's end */
            }
            continue;
        }
        while (s->pos < s->fill && is_space(s->buf[s->pos])) s->pos++;
        if (s->pos == s->fill) {
            if (s->eof) return 0;
            if (!refill(s)) return fail_because(s, err, "out of memory while reading JSON");
            continue;
        }
        if (s->pos < s->strict_until || (s->need_more && s->eof)) {
            ts_strict_outcome outcome;
            if (ts_strict_read(arena, s->buf + s->pos, s->fill - s->pos, TS_STRICT_FIRST_VALUE, out, &outcome, err))
                return deliver(s, s->pos, s->pos + outcome.consumed, out_line);
            if (outcome.out_of_memory) {
                count_lines(s, s->pos);
                err->line = s->line;
                return fail(s, err, SIZE_MAX);
            }
            if (!outcome.ran_out || s->eof) return fail(s, err, s->pos + outcome.error_offset);
            if (!refill(s)) return fail_because(s, err, "out of memory while reading JSON");
            continue;
        }
        if (s->need_more || (!s->eof && s->fill - s->pos < s->window / 2)) {
            s->need_more = false;
            if (!refill(s)) return fail_because(s, err, "out of memory while reading JSON");
            continue;
        }
        s->window_base = s->pos;
        s->window_end = window_end(s);
        ts_fast_result r = ts_fast_window_begin(s->fast, s->buf + s->pos, s->window_end - s->pos);
        if (r == TS_FAST_VALUE)
            s->in_window = true;
        else if (r == TS_FAST_DEFER)
            s->strict_until = s->window_end;
        else if (r == TS_FAST_NOMEM)
            return fail_because(s, err, "out of memory while reading JSON");
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
