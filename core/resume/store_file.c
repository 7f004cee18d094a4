/* store_file.c — the journal in two plain files; see store_file.h. */
#define _DEFAULT_SOURCE /* flock, fdatasync */
#include "core/resume/store_file.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/json/codec.h"
#include "core/resume/store_memory.h"

#define HEADER "turnstile journal index 1\n"
enum {
    HEADER_LEN = sizeof HEADER - 1,
    LINE_LEN = 16 + 1 + 8 + 1 + 8 + 1, /* "%016x %08x %08x\n" */
    MAX_RECORD = 1 << 30,
};

typedef struct file_store {
    ts_store base;                /* first: a file_store * is a ts_store * */
    ts_store *memory;             /* decides every write call, holds the journal */
    ts_file_store_options options;
    char dir[4096];
    int dat, idx;                 /* idx holds the owner lock */
    bool broken;                  /* a write call was decided but could not be made durable */
} file_store;

static file_store *self_of(ts_store *s) { return (file_store *)s; }

static uint32_t crc32_of(const void *data, size_t len) {
    const uint8_t *p = data;
    uint32_t crc = 0xffffffffu;
    for (size_t i = 0; i < len; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static bool failed(ts_error *err, const file_store *s, const char *what, const char *file) {
    ts_error_set(err, TS_ERR_IO, "%s %s/%s: %s", what, s->dir, file, strerror(errno));
    return false;
}

static bool write_at(int fd, const void *data, size_t len, off_t offset) {
    const char *p = data;
    while (len) {
        ssize_t n = pwrite(fd, p, len, offset);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        p += n, len -= (size_t)n, offset += n;
    }
    return true;
}

static bool sync_fd(const file_store *s, int fd) { return s->options.no_sync || fdatasync(fd) == 0; }

static off_t size_of(int fd) {
    struct stat st;
    return fstat(fd, &st) == 0 ? st.st_size : -1;
}

/* ---- making the journal durable ---- */

static bool emit_to_buf(void *context, const char *data, size_t len) {
    ts_buf_append(context, data, len);
    return !((ts_buf *)context)->failed;
}

/* Appends the journal as it is now as one record, and its index line (the commit point). */
static bool persist(file_store *s, ts_error *err) {
    ts_arena arena;
    ts_arena_init(&arena);
    ts_journal j;
    ts_buf record;
    ts_buf_init(&record);
    bool ok = ts_store_load(s->memory, &arena, &j, err) && ts_journal_write_json(&j, TS_WRITE_COMPACT, emit_to_buf, &record, err);
    ts_journal_free(&j);
    ts_arena_free(&arena);
    off_t at = size_of(s->dat), line_at = size_of(s->idx);
    char line[LINE_LEN + 1];
    if (ok && (record.failed || record.len > MAX_RECORD || at < 0 || line_at < 0)) {
        ts_error_set(err, TS_ERR_NOMEM, "cannot make a record of the journal (out of memory, or larger than 1 GiB)");
        ok = false;
    }
    if (ok) snprintf(line, sizeof line, "%016" PRIx64 " %08" PRIx32 " %08" PRIx32 "\n", (uint64_t)at, (uint32_t)record.len,
                     crc32_of(record.data, record.len));
    if (!ok) {
    } else if (s->options.index_before_record) {
        ok = (write_at(s->idx, line, LINE_LEN, line_at) && sync_fd(s, s->idx)) || failed(err, s, "writing", "journal.idx");
        ok = ok && ((write_at(s->dat, record.data, record.len, at) && sync_fd(s, s->dat)) || failed(err, s, "writing", "journal.dat"));
    } else if (s->options.unchecked_group_sync) {
        ok = (write_at(s->dat, record.data, record.len, at) && write_at(s->idx, line, LINE_LEN, line_at)) ||
             failed(err, s, "writing", "the journal");
        ok = ok && ((sync_fd(s, s->dat) && sync_fd(s, s->idx)) || failed(err, s, "syncing", "the journal"));
    } else {
        ok = (write_at(s->dat, record.data, record.len, at) && sync_fd(s, s->dat)) || failed(err, s, "writing", "journal.dat");
        ok = ok && ((write_at(s->idx, line, LINE_LEN, line_at) && sync_fd(s, s->idx)) || failed(err, s, "writing", "journal.idx"));
    }
    ts_buf_free(&record);
    if (!ok) s->broken = true; /* decided in memory, not on disk: never let anyone build on it */
    return ok;
}

/* ---- opening ---- */

static bool read_exactly(int fd, void *out, size_t len, off_t offset) {
    char *p = out;
    while (len) {
        ssize_t n = pread(fd, p, len, offset);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return false;
        p += n, len -= (size_t)n, offset += n;
    }
    return true;
}

/* Reads the journal the last complete index line names into the memory store. A torn last
 * line (a crash while it was written) is cut off; a record that does not match its line is
 * damage, and refused (unless the store is the unchecked mutant's). */
static bool load(file_store *s, ts_error *err) {
    off_t idx_size = size_of(s->idx);
    char header[HEADER_LEN];
    if (idx_size < HEADER_LEN || !read_exactly(s->idx, header, HEADER_LEN, 0) || memcmp(header, HEADER, HEADER_LEN) != 0) {
        ts_error_set(err, TS_ERR_INPUT, "%s/journal.idx: not a turnstile journal index", s->dir);
        return false;
    }
    off_t lines = (idx_size - HEADER_LEN) / LINE_LEN, whole = HEADER_LEN + lines * LINE_LEN;
    if (whole != idx_size && (ftruncate(s->idx, whole) != 0 || !sync_fd(s, s->idx)))
        return failed(err, s, "cutting the torn last line of", "journal.idx");
    if (lines == 0) return true; /* nothing committed yet */
    char line[LINE_LEN + 1] = {0};
    uint64_t offset;
    uint32_t len, crc;
    if (!read_exactly(s->idx, line, LINE_LEN, whole - LINE_LEN) ||
        sscanf(line, "%16" SCNx64 " %8" SCNx32 " %8" SCNx32, &offset, &len, &crc) != 3 || len > MAX_RECORD) {
        ts_error_set(err, TS_ERR_INPUT, "%s/journal.idx: line %lld is damaged", s->dir, (long long)lines + 1);
        return false;
    }
    char *record = malloc(len ? len : 1);
    bool ok = record != NULL;
    if (ok && !read_exactly(s->dat, record, len, (off_t)offset)) {
        ts_error_set(err, TS_ERR_INPUT, "%s/journal.dat: the record at byte %" PRIu64 " (%" PRIu32 " bytes) that journal.idx line %lld names is not there",
                     s->dir, offset, len, (long long)lines + 1);
        ok = false;
    }
    if (ok && !s->options.unchecked_group_sync && crc32_of(record, len) != crc) {
        ts_error_set(err, TS_ERR_INPUT, "%s/journal.dat: the record at byte %" PRIu64 " does not match its CRC in journal.idx line %lld",
                     s->dir, offset, (long long)lines + 1);
        ok = false;
    }
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json value;
    ok = ok && ts_codec_parse(&arena, record, len, &value, err) && ts_memory_store_replace(s->memory, &value, err);
    ts_arena_free(&arena);
    free(record);
    return ok;
}

/* A new store: journal.dat, then journal.idx through a synced temporary file and a rename,
 * then the directory synced. */
static bool create(file_store *s, const char *dat_path, const char *idx_path, ts_error *err) {
    char tmp_path[4300];
    snprintf(tmp_path, sizeof tmp_path, "%s.tmp", idx_path);
    s->dat = open(dat_path, O_CREAT | O_RDWR | O_TRUNC | O_CLOEXEC, 0644);
    if (s->dat < 0) return failed(err, s, "creating", "journal.dat");
    int tmp = open(tmp_path, O_CREAT | O_RDWR | O_TRUNC | O_CLOEXEC, 0644);
    if (tmp < 0) return failed(err, s, "creating", "journal.idx.tmp");
    bool ok = (write_at(tmp, HEADER, HEADER_LEN, 0) && sync_fd(s, tmp)) || failed(err, s, "writing", "journal.idx.tmp");
    close(tmp);
    ok = ok && (rename(tmp_path, idx_path) == 0 || failed(err, s, "renaming journal.idx.tmp to", "journal.idx"));
    if (ok && !s->options.no_sync && !s->options.no_directory_sync) {
        int dir = open(s->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        ok = (dir >= 0 && fsync(dir) == 0) || failed(err, s, "syncing the directory of", "journal.idx");
        if (dir >= 0) close(dir);
    }
    return ok && ((s->idx = open(idx_path, O_RDWR | O_CLOEXEC)) >= 0 || failed(err, s, "opening", "journal.idx"));
}

/* ---- the store interface: decided in memory, then made durable ---- */

static bool usable(file_store *s, ts_error *err) {
    if (!s->broken) return true;
    ts_error_set(err, TS_ERR_IO, "%s: a write call could not be made durable; reopen the store", s->dir);
    return false;
}

static bool file_load(ts_store *store, ts_arena *arena, ts_journal *out, ts_error *err) {
    file_store *s = self_of(store);
    if (!usable(s, err)) return ts_journal_init(out), false;
    return ts_store_load(s->memory, arena, out, err);
}

static bool file_begin(ts_store *store, const char *execution_id, ts_error *err) {
    file_store *s = self_of(store);
    ts_arena arena;
    ts_arena_init(&arena);
    ts_journal j;
    bool ok = usable(s, err) && ts_store_load(s->memory, &arena, &j, err);
    bool already = ok && strcmp(j.execution_id, execution_id) == 0;
    if (ok) ts_journal_free(&j);
    ts_arena_free(&arena);
    return ok && ts_store_begin_execution(s->memory, execution_id, err) && (already || persist(s, err));
}

static bool file_commit(ts_store *store, const ts_commit *commit, ts_error *err) {
    file_store *s = self_of(store);
    return usable(s, err) && ts_store_commit(s->memory, commit, err) && persist(s, err);
}

static bool file_signal(ts_store *store, const ts_json *signal, uint64_t events_applied, ts_error *err) {
    file_store *s = self_of(store);
    return usable(s, err) && ts_store_deliver_signal(s->memory, signal, events_applied, err) && persist(s, err);
}

static bool file_complete(ts_store *store, const ts_task *task, uint64_t events_applied, ts_error *err) {
    file_store *s = self_of(store);
    return usable(s, err) && ts_store_complete_task(s->memory, task, events_applied, err) && persist(s, err);
}

static bool file_mark(ts_store *store, uint64_t events_applied, ts_error *err) {
    file_store *s = self_of(store);
    return usable(s, err) && ts_store_mark_event(s->memory, events_applied, err) && persist(s, err);
}

static void file_close(ts_store *store) {
    file_store *s = self_of(store);
    if (s->dat >= 0) close(s->dat);
    if (s->idx >= 0) close(s->idx); /* releases the owner lock */
    ts_store_close(s->memory);
    free(s);
}

static const ts_store_vtable file_vtable = {
    .load = file_load,
    .begin_execution = file_begin,
    .commit = file_commit,
    .deliver_signal = file_signal,
    .complete_task = file_complete,
    .mark_event = file_mark,
    .close = file_close,
};

ts_store *ts_file_store_open(const char *dir, const ts_file_store_options *options, ts_error *err) {
    file_store *s = calloc(1, sizeof *s);
    if (!s || !(s->memory = ts_memory_store_new())) {
        free(s);
        ts_error_set(err, TS_ERR_NOMEM, "out of memory");
        return NULL;
    }
    s->base.vtable = &file_vtable;
    s->dat = s->idx = -1;
    if (options) s->options = *options;
    snprintf(s->dir, sizeof s->dir, "%s", dir);
    char dat_path[4200], idx_path[4200];
    snprintf(dat_path, sizeof dat_path, "%s/journal.dat", dir);
    snprintf(idx_path, sizeof idx_path, "%s/journal.idx", dir);
    bool ok;
    s->idx = open(idx_path, O_RDWR | O_CLOEXEC);
    if (s->idx >= 0) {
        ok = (s->dat = open(dat_path, O_RDWR | O_CLOEXEC)) >= 0 || failed(err, s, "opening", "journal.dat");
        ok = ok && (flock(s->idx, LOCK_EX | LOCK_NB) == 0 || failed(err, s, "locking (another process has the store)", "journal.idx"));
        ok = ok && load(s, err);
    } else if (errno == ENOENT) {
        ok = create(s, dat_path, idx_path, err) &&
             (flock(s->idx, LOCK_EX | LOCK_NB) == 0 || failed(err, s, "locking (another process has the store)", "journal.idx"));
    } else {
        ok = failed(err, s, "opening", "journal.idx");
    }
    if (!ok) {
        file_close(&s->base);
        return NULL;
    }
    return &s->base;
}
