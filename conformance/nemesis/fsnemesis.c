/* fsnemesis.c — the file-system nemesis of one resume case; see fsnemesis.h. */
#define _GNU_SOURCE /* memmem */
#include "conformance/nemesis/fsnemesis.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


struct ts_fsnemesis {
    ts_fsnemesis_options options;
    char root[PATH_MAX];
    char store[PATH_MAX + 64];
    char name[64];           /* the run's store, relative to the root */
    int trace_fd;
    uint64_t read_pos;       /* bytes of the trace file read into pending */
    uint8_t *pending;        /* read, not yet taken */
    size_t pending_len, pending_cap, pending_pos;
    ts_fsmodel *model;
    uint64_t operations;     /* the run's store operations so far */
    ts_buf warnings;
};

ts_fsnemesis *ts_fsnemesis_new(const char *case_dir, const ts_fsnemesis_options *options, char *why, size_t why_size) {
    ts_fsnemesis *n = calloc(1, sizeof *n);
    if (!n) {
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    if (options) n->options = *options;
    if (!n->options.window) n->options.window = 8;
    if (!n->options.block) n->options.block = 4096;
    if (!n->options.max_store_bytes) n->options.max_store_bytes = (size_t)256 << 20;
    snprintf(n->root, sizeof n->root, "%s", case_dir);
    ts_buf_init(&n->warnings);
    char path[PATH_MAX + 16];
    snprintf(path, sizeof path, "%s/trace", case_dir);
    n->trace_fd = open(path, O_CREAT | O_RDWR | O_APPEND | O_TRUNC | O_CLOEXEC, 0600);
    if (n->trace_fd < 0) {
        snprintf(why, why_size, "cannot make the trace file %s: %s", path, strerror(errno));
        free(n);
        return NULL;
    }
    return n;
}

void ts_fsnemesis_free(ts_fsnemesis *n) {
    if (!n) return;
    close(n->trace_fd);
    free(n->pending);
    ts_fsmodel_free(n->model);
    ts_buf_free(&n->warnings);
    free(n);
}

const char *ts_fsnemesis_root(const ts_fsnemesis *n) { return n->root; }
int ts_fsnemesis_trace_fd(const ts_fsnemesis *n) { return n->trace_fd; }
const char *ts_fsnemesis_store(const ts_fsnemesis *n) { return n->store; }
uint64_t ts_fsnemesis_operations(const ts_fsnemesis *n) { return n->operations; }
size_t ts_fsnemesis_records(const ts_fsnemesis *n) { return n->model ? ts_fsmodel_count(n->model) : 0; }
const ts_fsmodel *ts_fsnemesis_model(const ts_fsnemesis *n) { return n->model; }

const char *ts_fsnemesis_warnings(const ts_fsnemesis *n) {
    if (n->model && *ts_fsmodel_escapes(n->model)) {
        ts_buf *w = (ts_buf *)&n->warnings;
        if (!w->data || !strstr(w->data, "escaped the observer"))
            ts_buf_appendf(w, "%swrites that escaped the observer: %s", w->len ? "; " : "", ts_fsmodel_escapes(n->model));
    }
    return n->warnings.data ? n->warnings.data : "";
}

/* The model starts again from what the store holds now. */
static bool rebase(ts_fsnemesis *n, char *why, size_t why_size) {
    ts_fsmodel_free(n->model);
    n->model = ts_fsmodel_new(n->store, n->options.max_store_bytes, why, why_size);
    return n->model != NULL;
}

/* Reads what the trace file gained since the last read. */
static bool read_more(ts_fsnemesis *n, char *why, size_t why_size) {
    for (;;) {
        if (n->pending_pos > 0 && n->pending_pos == n->pending_len) n->pending_pos = n->pending_len = 0;
        if (n->pending_cap - n->pending_len < 65536) {
            if (n->pending_pos) { /* drop what was taken */
                memmove(n->pending, n->pending + n->pending_pos, n->pending_len - n->pending_pos);
                n->pending_len -= n->pending_pos;
                n->pending_pos = 0;
            }
            size_t cap = n->pending_cap ? 2 * n->pending_cap : 1 << 20;
            uint8_t *grown = realloc(n->pending, cap);
            if (!grown) {
                snprintf(why, why_size, "out of memory reading the trace");
                return false;
            }
            n->pending = grown;
            n->pending_cap = cap;
        }
        ssize_t got = pread(n->trace_fd, n->pending + n->pending_len, n->pending_cap - n->pending_len, (off_t)n->read_pos);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) {
            snprintf(why, why_size, "cannot read the trace: %s", strerror(errno));
            return false;
        }
        if (got == 0) return true;
        n->pending_len += (size_t)got;
        n->read_pos += (uint64_t)got;
    }
}

/* Is the record the run's (under its store), or a sync of everything? */
static bool in_run(const ts_fsnemesis *n, const ts_fsop *op) {
    if (op->kind == TS_FSOP_SYNC || op->kind == TS_FSOP_NOTE || op->kind == TS_FSOP_OUTPUT) return true;
    size_t len = strlen(n->name);
    const char *paths[2] = {op->path, op->path2};
    for (int i = 0; i < 2; i++)
        if (paths[i] && strncmp(paths[i], n->name, len) == 0 && (paths[i][len] == '\0' || paths[i][len] == '/')) return true;
    return false;
}

bool ts_fsnemesis_drain(ts_fsnemesis *n, pid_t pid, uint64_t stdout_limit, ts_fsnemesis_each each, void *context,
                        char *why, size_t why_size) {
    if (!read_more(n, why, why_size)) return false;
    for (;;) {
        size_t pos = n->pending_pos;
        ts_fsop op;
        int got = ts_fsop_decode(n->pending, n->pending_len, &pos, &op, why, why_size);
        if (got < 0) return false;
        if (got == 0) return true;
        if (op.pid == pid && op.stdout_bytes >= stdout_limit && op.kind != TS_FSOP_NOTE) return true; /* after that line */
        n->pending_pos = pos;
        if (!n->model || !in_run(n, &op)) continue;
        uint64_t number = 0;
        if (!ts_fsop_is_operation(&op) && op.kind != TS_FSOP_SNAPSHOT) {
            const char *text = (const char *)op.data;
            size_t len = op.data_len, prefix = strlen(n->name);
            if (len > prefix && !strncmp(text, n->name, prefix) && text[prefix] == '/') text += prefix + 1, len -= prefix + 1;
            if (len && (!n->warnings.data || !memmem(n->warnings.data, n->warnings.len, text, len)))
                ts_buf_appendf(&n->warnings, "%s%.*s", n->warnings.len ? "; " : "", (int)len, text);
        } else {
            if (ts_fsop_is_operation(&op)) number = ++n->operations;
            if (!ts_fsmodel_apply(n->model, &op)) {
                snprintf(why, why_size, "out of memory in the persistence model");
                return false;
            }
        }
        if (each) each(context, &op, number);
    }
}

bool ts_fsnemesis_begin_run(ts_fsnemesis *n, const char *name, char *why, size_t why_size) {
    if (!read_more(n, why, why_size)) return false;
    n->pending_pos = n->pending_len = 0; /* an earlier run's records: not this run's */
    snprintf(n->name, sizeof n->name, "%s", name);
    snprintf(n->store, sizeof n->store, "%s/%s", n->root, name);
    n->operations = 0;
    ts_buf_reset(&n->warnings);
    if (mkdir(n->store, 0700) != 0 && errno != EEXIST) {
        snprintf(why, why_size, "cannot make the store %s: %s", n->store, strerror(errno));
        return false;
    }
    return ts_fsmodel_clear_dir(n->store, why, why_size) && rebase(n, why, why_size);
}

size_t ts_fsnemesis_crash_states(const ts_fsnemesis *n, size_t end, bool single_operation, ts_crash_state *out,
                                 size_t max) {
    if (!n->model) return 0;
    return ts_fsmodel_crash_states(n->model, end, single_operation ? n->options.window : 0, n->options.block, out, max);
}

bool ts_fsnemesis_sync_follows(const ts_fsnemesis *n, size_t end) {
    for (size_t i = end; n->model && i < ts_fsmodel_count(n->model); i++) {
        const ts_fsop *op = ts_fsmodel_record(n->model, i);
        if (!ts_fsop_is_operation(op)) continue;
        return op->kind == TS_FSOP_FSYNC || op->kind == TS_FSOP_SYNC;
    }
    return false;
}

bool ts_fsnemesis_power_loss(ts_fsnemesis *n, const char *state, ts_buf *description, char *why, size_t why_size) {
    ts_crash_state s;
    if (!n->model || !ts_fsmodel_find_state(n->model, ts_fsmodel_count(n->model), n->options.window, n->options.block,
                                            state, &s)) {
        snprintf(why, why_size, "no crash state %s at this point", state);
        return false;
    }
    ts_fsmodel_describe_state(n->model, &s, description);
    return ts_fsmodel_materialize(n->model, &s, n->store, why, why_size) && rebase(n, why, why_size);
}

bool ts_fsnemesis_restart(ts_fsnemesis *n, char *why, size_t why_size) { return rebase(n, why, why_size); }
