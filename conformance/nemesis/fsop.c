/* fsop.c — file-system operation records; see fsop.h. */
#include "conformance/nemesis/fsop.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/json/codec.h"

enum {
    MAGIC = 0x504f5354,          /* "TSOP" */
    HEADER = 4 + 4 + 4 + 4 + 4 + 4 + 8 * 13 + 4 + 4 + 4, /* see put_header */
    MAX_RECORD = 1 << 30,        /* a record longer than this is damage, not data */
};

const char *ts_fsop_kind_name(ts_fsop_kind kind) {
    switch (kind) {
    case TS_FSOP_CREATE: return "create";
    case TS_FSOP_MKDIR: return "mkdir";
    case TS_FSOP_SYMLINK: return "symlink";
    case TS_FSOP_LINK: return "link";
    case TS_FSOP_UNLINK: return "unlink";
    case TS_FSOP_RMDIR: return "rmdir";
    case TS_FSOP_RENAME: return "rename";
    case TS_FSOP_WRITE: return "write";
    case TS_FSOP_TRUNCATE: return "truncate";
    case TS_FSOP_SNAPSHOT: return "snapshot";
    case TS_FSOP_FSYNC: return "fsync";
    case TS_FSOP_SYNC: return "sync";
    case TS_FSOP_OUTPUT: return "output";
    case TS_FSOP_NOTE: return "note";
    }
    return "unknown";
}

bool ts_fsop_mutates(const ts_fsop *op) {
    return op->kind != TS_FSOP_OUTPUT && op->kind != TS_FSOP_NOTE && op->kind != TS_FSOP_FSYNC &&
           op->kind != TS_FSOP_SYNC;
}

bool ts_fsop_is_operation(const ts_fsop *op) {
    return op->kind != TS_FSOP_OUTPUT && op->kind != TS_FSOP_NOTE && !(op->flags & TS_FSOP_AUXILIARY);
}

const char *ts_fsop_leaf(const char *path) {
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

uint64_t ts_fsop_hash(const void *data, size_t len, uint64_t state) {
    const uint8_t *p = data;
    for (size_t i = 0; i < len; i++) {
        state ^= p[i];
        state *= 0x100000001b3ULL;
    }
    return state;
}

/* ---- framing ---- */

static void put32(uint8_t **p, uint32_t v) {
    memcpy(*p, &v, 4);
    *p += 4;
}
static void put64(uint8_t **p, uint64_t v) {
    memcpy(*p, &v, 8);
    *p += 8;
}
static uint32_t get32(const uint8_t **p) {
    uint32_t v;
    memcpy(&v, *p, 4);
    *p += 4;
    return v;
}
static uint64_t get64(const uint8_t **p) {
    uint64_t v;
    memcpy(&v, *p, 8);
    *p += 8;
    return v;
}

bool ts_fsop_encode(const ts_fsop *op, ts_buf *out) {
    const char *path = op->path ? op->path : "", *path2 = op->path2 ? op->path2 : "";
    size_t path_len = strlen(path), path2_len = strlen(path2);
    size_t total = HEADER + path_len + 1 + path2_len + 1 + op->data_len;
    if (total > MAX_RECORD) return false;
    uint8_t header[HEADER], *p = header;
    put32(&p, MAGIC);
    put32(&p, (uint32_t)total);
    put32(&p, (uint32_t)op->kind);
    put32(&p, op->flags);
    put32(&p, (uint32_t)op->syscall);
    put32(&p, (uint32_t)op->tid);
    uint64_t fields[] = {op->seq,     op->stdout_bytes, (uint64_t)op->result, op->dir.dev, op->dir.ino,
                         op->dir2.dev, op->dir2.ino,    op->ino.dev,          op->ino.ino, op->offset,
                         op->size,    op->hash,         (uint64_t)op->data_len};
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) put64(&p, fields[i]);
    put32(&p, (uint32_t)path_len);
    put32(&p, (uint32_t)path2_len);
    put32(&p, (uint32_t)op->pid);
    ts_buf_append(out, (const char *)header, sizeof header);
    ts_buf_append(out, path, path_len + 1);
    ts_buf_append(out, path2, path2_len + 1);
    if (op->data_len) ts_buf_append(out, (const char *)op->data, op->data_len);
    return !out->failed;
}

int ts_fsop_decode(const uint8_t *buf, size_t len, size_t *pos, ts_fsop *op, char *why, size_t why_size) {
    if (len - *pos < 8) return 0;
    const uint8_t *p = buf + *pos;
    uint32_t magic = get32(&p), total = get32(&p);
    if (magic != MAGIC || total < HEADER + 2 || total > MAX_RECORD) {
        snprintf(why, why_size, "no operation record at byte %zu of the trace", *pos);
        return -1;
    }
    if (len - *pos < total) return 0;
    memset(op, 0, sizeof *op);
    op->kind = (ts_fsop_kind)get32(&p);
    op->flags = get32(&p);
    op->syscall = (int32_t)get32(&p);
    op->tid = (int32_t)get32(&p);
    uint64_t *fields[] = {&op->seq,     &op->stdout_bytes, (uint64_t *)&op->result, &op->dir.dev, &op->dir.ino,
                          &op->dir2.dev, &op->dir2.ino,    &op->ino.dev,            &op->ino.ino, &op->offset,
                          &op->size,    &op->hash,         NULL};
    uint64_t data_len = 0;
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) *(fields[i] ? fields[i] : &data_len) = get64(&p);
    uint32_t path_len = get32(&p), path2_len = get32(&p);
    op->pid = (int32_t)get32(&p);
    if ((uint64_t)HEADER + path_len + 1 + path2_len + 1 + data_len != total || p[path_len] != '\0' ||
        p[path_len + 1 + path2_len] != '\0' || op->kind < TS_FSOP_CREATE || op->kind > TS_FSOP_NOTE) {
        snprintf(why, why_size, "a damaged operation record at byte %zu of the trace", *pos);
        return -1;
    }
    op->path = (const char *)p;
    op->path2 = (const char *)p + path_len + 1;
    op->data = p + path_len + 1 + path2_len + 1;
    op->data_len = (size_t)data_len;
    *pos += total;
    return 1;
}

/* ---- for people ---- */

void ts_fsop_describe(const ts_fsop *op, ts_buf *out) {
    const char *path = op->path && *op->path ? op->path : ".";
    if (op->kind == TS_FSOP_NOTE) ts_buf_append_str(out, "note");
    else ts_buf_appendf(out, "%s %s", ts_fsop_kind_name(op->kind), path);
    switch (op->kind) {
    case TS_FSOP_RENAME:
    case TS_FSOP_LINK: ts_buf_appendf(out, " -> %s", op->path2 && *op->path2 ? op->path2 : "."); break;
    case TS_FSOP_WRITE: ts_buf_appendf(out, " @%" PRIu64 "+%zu", op->offset, op->data_len); break;
    case TS_FSOP_TRUNCATE: ts_buf_appendf(out, " to %" PRIu64, op->size); break;
    case TS_FSOP_FSYNC: ts_buf_append_str(out, op->flags & TS_FSOP_DATASYNC ? " (data)" : ""); break;
    case TS_FSOP_NOTE: ts_buf_appendf(out, ": %.*s", (int)op->data_len, (const char *)op->data); break;
    default: break;
    }
    if (op->result < 0) ts_buf_appendf(out, " failed (errno %" PRId64 ")", -op->result);
    if (op->flags & TS_FSOP_NOT_RUN) ts_buf_append_str(out, " [killed before it ran]");
    if (op->flags & TS_FSOP_KILLED_AFTER) ts_buf_append_str(out, " [killed as it returned]");
    if (op->flags & TS_FSOP_DATA_LOST) ts_buf_append_str(out, " [its bytes could not be read back]");
    if (op->kind == TS_FSOP_NOTE || (op->flags & TS_FSOP_AUXILIARY)) ts_buf_appendf(out, " (syscall %d, tid %d)", op->syscall, op->tid);
    else ts_buf_appendf(out, " (#%" PRIu64 ", syscall %d, tid %d)", op->seq, op->syscall, op->tid);
}

void ts_fsop_to_json(const ts_fsop *op, ts_buf *out) {
    ts_buf_append_str(out, "{\"op\":");
    ts_codec_write_string(out, ts_str_from(ts_fsop_kind_name(op->kind)));
    ts_buf_appendf(out, ",\"seq\":%" PRIu64 ",\"path\":", op->seq);
    ts_codec_write_string(out, ts_str_from(op->path ? op->path : ""));
    if (op->kind == TS_FSOP_RENAME || op->kind == TS_FSOP_LINK) {
        ts_buf_append_str(out, ",\"to\":");
        ts_codec_write_string(out, ts_str_from(op->path2 ? op->path2 : ""));
    }
    if (op->kind == TS_FSOP_WRITE) ts_buf_appendf(out, ",\"offset\":%" PRIu64 ",\"length\":%zu", op->offset, op->data_len);
    if (op->kind == TS_FSOP_TRUNCATE) ts_buf_appendf(out, ",\"size\":%" PRIu64, op->size);
    if (op->kind == TS_FSOP_FSYNC && (op->flags & TS_FSOP_DATASYNC)) ts_buf_append_str(out, ",\"data\":true");
    if (op->kind == TS_FSOP_NOTE) {
        ts_buf_append_str(out, ",\"note\":");
        ts_codec_write_string(out, (ts_str){(const char *)op->data, op->data_len});
    }
    if (op->result < 0) ts_buf_appendf(out, ",\"errno\":%" PRId64, -op->result);
    if (op->flags & TS_FSOP_NOT_RUN) ts_buf_append_str(out, ",\"killed\":\"before\"");
    if (op->flags & TS_FSOP_KILLED_AFTER) ts_buf_append_str(out, ",\"killed\":\"after\"");
    ts_buf_appendf(out, ",\"syscall\":%d}", op->syscall);
}
