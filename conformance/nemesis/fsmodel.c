/* fsmodel.c — the persistence model and its crash states; see fsmodel.h. */
#include "conformance/nemesis/fsmodel.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/nemesis/fsimage.h"

enum { NEVER = SIZE_MAX };

typedef struct logged {
    ts_fsop op;          /* strings and data owned (below) */
    char *path, *path2;
    uint8_t *data;
    fs_gens gens;        /* the generation of each inode it names, when it ran */
    bool effective;      /* it ran, succeeded and changes what the store holds */
    size_t durable_at;   /* durable in a crash after the first durable_at records; NEVER: not yet */
    bool from_synced, to_synced; /* RENAME: each directory synced since */
} logged;

/* An inode number the history made a file with, and how many times (its newest generation). */
typedef struct numbered {
    ts_inode id;
    uint32_t gen;
} numbered;

struct ts_fsmodel {
    fs_image baseline, current;
    logged *log;
    size_t count, cap;
    numbered *made;      /* the numbers files were made with, each once */
    size_t made_count, made_cap;
    ts_buf escapes;
};

ts_fsmodel *ts_fsmodel_new(const char *root, size_t max_bytes, char *why, size_t why_size) {
    ts_fsmodel *m = calloc(1, sizeof *m);
    if (!m) {
        snprintf(why, why_size, "out of memory");
        return NULL;
    }
    ts_buf_init(&m->escapes);
    if (!fs_image_read(&m->baseline, root, max_bytes, why, why_size)) {
        free(m);
        return NULL;
    }
    if (!fs_image_copy(&m->baseline, &m->current)) {
        snprintf(why, why_size, "out of memory");
        ts_fsmodel_free(m);
        return NULL;
    }
    return m;
}

void ts_fsmodel_free(ts_fsmodel *m) {
    if (!m) return;
    for (size_t i = 0; i < m->count; i++) {
        free(m->log[i].path);
        free(m->log[i].path2);
        free(m->log[i].data);
    }
    free(m->log);
    free(m->made);
    fs_image_free(&m->baseline);
    fs_image_free(&m->current);
    ts_buf_free(&m->escapes);
    free(m);
}

size_t ts_fsmodel_count(const ts_fsmodel *m) { return m->count; }
const ts_fsop *ts_fsmodel_record(const ts_fsmodel *m, size_t i) { return &m->log[i].op; }
const char *ts_fsmodel_escapes(const ts_fsmodel *m) { return m->escapes.data ? m->escapes.data : ""; }

const char *ts_crash_kind_name(ts_crash_kind kind) {
    switch (kind) {
    case TS_CRASH_UNSYNCED_LOST: return "unsynced-lost";
    case TS_CRASH_DROPPED: return "dropped";
    case TS_CRASH_REORDERED: return "reordered";
    case TS_CRASH_TORN: return "torn";
    }
    return "unknown";
}

static bool is_data_op(ts_fsop_kind kind) {
    return kind == TS_FSOP_WRITE || kind == TS_FSOP_TRUNCATE || kind == TS_FSOP_SNAPSHOT;
}

static bool same_inode(ts_inode a, ts_inode b) { return a.dev == b.dev && a.ino == b.ino; }

/* The same file: the same number in the same generation (a reused number is another file). */
static bool same_file(ts_inode a, uint32_t a_gen, ts_inode b, uint32_t b_gen) { return same_inode(a, b) && a_gen == b_gen; }

/* The generation inode id has now: 0 until the history makes a file with its number. */
static uint32_t generation(const ts_fsmodel *m, ts_inode id) {
    for (size_t i = 0; i < m->made_count; i++)
        if (same_inode(m->made[i].id, id)) return m->made[i].gen;
    return 0;
}

/* A file, directory or link was made with number id: from now on id names a new generation.
 * False when out of memory. */
static bool new_generation(ts_fsmodel *m, ts_inode id) {
    for (size_t i = 0; i < m->made_count; i++)
        if (same_inode(m->made[i].id, id)) return ++m->made[i].gen != 0;
    if (!ts_grow_array((void **)&m->made, &m->made_cap, m->made_count, sizeof *m->made)) return false;
    m->made[m->made_count++] = (numbered){id, 1};
    return true;
}

/* What a successful sync (record i) makes durable among the earlier records. */
static void mark_durable(ts_fsmodel *m, size_t i) {
    const ts_fsop *sync = &m->log[i].op;
    uint32_t gen = m->log[i].gens.ino;
    bool all = sync->kind == TS_FSOP_SYNC, dir = (sync->flags & TS_FSOP_IS_DIR) != 0;
    for (size_t j = 0; j < i; j++) {
        logged *l = &m->log[j];
        if (!l->effective || l->durable_at != NEVER) continue;
        const ts_fsop *op = &l->op;
        bool covered = all;
        if (!all && !dir) covered = is_data_op(op->kind) && same_file(op->ino, l->gens.ino, sync->ino, gen);
        if (!all && dir && op->kind == TS_FSOP_RENAME) {
            l->from_synced |= same_file(op->dir, l->gens.dir, sync->ino, gen);
            l->to_synced |= same_file(op->dir2, l->gens.dir2, sync->ino, gen);
            covered = l->from_synced && l->to_synced;
        } else if (!all && dir) {
            covered = !is_data_op(op->kind) && same_file(op->dir, l->gens.dir, sync->ino, gen);
        }
        if (covered) l->durable_at = i + 1;
    }
}

/* An FSYNC that read the file whole: does the model hold what the file held? */
static void check_content(ts_fsmodel *m, const logged *l) {
    const ts_fsop *op = &l->op;
    size_t n = fs_image_find(&m->current, op->ino, l->gens.ino);
    if (n == SIZE_MAX || m->current.nodes[n].type != FS_FILE) return;
    const fs_node *node = &m->current.nodes[n];
    if (node->len == op->size && ts_fsop_hash(node->data, node->len, TS_FSOP_HASH_INIT) == op->hash) return;
    ts_buf_appendf(&m->escapes, "%s%s (at record %zu: the file held %" PRIu64 " bytes, the model %zu)",
                   m->escapes.len ? "; " : "", op->path, m->count, op->size, node->len);
    m->current.nodes[n].len = 0; /* what the file holds is no longer known: say so once */
}

static char *copy_text(const char *s, size_t len) {
    char *c = malloc(len + 1);
    if (c) {
        memcpy(c, s, len);
        c[len] = '\0';
    }
    return c;
}

bool ts_fsmodel_apply(ts_fsmodel *m, const ts_fsop *op) {
    if (op->kind == TS_FSOP_OUTPUT) return true;
    if (m->count == m->cap) {
        size_t cap = m->cap ? 2 * m->cap : 64;
        logged *grown = realloc(m->log, cap * sizeof *grown);
        if (!grown) return false;
        m->log = grown;
        m->cap = cap;
    }
    logged *l = &m->log[m->count];
    memset(l, 0, sizeof *l);
    l->op = *op;
    l->path = copy_text(op->path ? op->path : "", op->path ? strlen(op->path) : 0);
    l->path2 = copy_text(op->path2 ? op->path2 : "", op->path2 ? strlen(op->path2) : 0);
    l->data = op->data_len ? malloc(op->data_len) : NULL;
    if (!l->path || !l->path2 || (op->data_len && !l->data)) {
        free(l->path);
        free(l->path2);
        free(l->data);
        return false;
    }
    if (op->data_len) memcpy(l->data, op->data, op->data_len);
    l->op.path = l->path;
    l->op.path2 = l->path2;
    l->op.data = l->data;
    bool ran = !(op->flags & TS_FSOP_NOT_RUN) && op->result >= 0;
    bool makes = op->kind == TS_FSOP_CREATE || op->kind == TS_FSOP_MKDIR || op->kind == TS_FSOP_SYMLINK;
    if (ran && makes && !new_generation(m, op->ino)) {
        free(l->path);
        free(l->path2);
        free(l->data);
        return false;
    }
    l->gens = (fs_gens){generation(m, op->ino), generation(m, op->dir), generation(m, op->dir2)};
    l->effective = ran && ts_fsop_mutates(op) && op->kind != TS_FSOP_NOTE && !(op->flags & TS_FSOP_DATA_LOST);
    if (ran && (op->flags & TS_FSOP_DATA_LOST))
        ts_buf_appendf(&m->escapes, "%s%s (at record %zu: bytes the observer could not read back)", m->escapes.len ? "; " : "",
                       op->path, m->count + 1);
    l->durable_at = l->effective && (op->flags & TS_FSOP_SYNC_WRITE) ? m->count + 1 : NEVER;
    if (op->kind == TS_FSOP_FSYNC && ran && (op->flags & TS_FSOP_HASHED)) check_content(m, l);
    m->count++;
    if (l->effective) fs_image_apply(&m->current, &l->op, &l->gens, l->op.data_len);
    if ((op->kind == TS_FSOP_FSYNC || op->kind == TS_FSOP_SYNC) && ran) mark_durable(m, m->count - 1);
    return !m->current.failed;
}

/* ---- crash states ---- */

static bool applied(const logged *l, size_t i, size_t end) { return i < end && l->effective; }
static bool durable(const logged *l, size_t end) { return l->durable_at <= end; }

size_t ts_fsmodel_unsynced(const ts_fsmodel *m, size_t end) {
    size_t n = 0;
    for (size_t i = 0; i < end && i < m->count; i++) n += applied(&m->log[i], i, end) && !durable(&m->log[i], end);
    return n;
}

/* Is record i kept by the state (the torn write counts as kept, cut)? */
static bool keeps(const ts_fsmodel *m, const ts_crash_state *s, size_t i) {
    const logged *l = &m->log[i];
    if (!applied(l, i, s->end)) return false;
    if (durable(l, s->end)) return true;
    switch (s->kind) {
    case TS_CRASH_UNSYNCED_LOST: return false;
    case TS_CRASH_DROPPED: return i != s->op;
    case TS_CRASH_TORN: return i <= s->op;
    case TS_CRASH_REORDERED: {
        if (i > s->op) return false;
        if (i == s->op) return true;
        for (size_t j = i + 1; j < s->op; j++) /* the unsynced change right before op is lost */
            if (applied(&m->log[j], j, s->end) && !durable(&m->log[j], s->end)) return true;
        return false;
    }
    }
    return false;
}

static bool is_dir_op(ts_fsop_kind kind) { return kind != TS_FSOP_WRITE && kind != TS_FSOP_TRUNCATE && kind != TS_FSOP_SNAPSHOT; }

/* Journaled file systems (ext4, XFS, btrfs) commit metadata in the order it was made: a crash
 * keeps a prefix of the unsynced directory changes, never a later one without an earlier one. */
static bool keeps_directory_prefix(const ts_fsmodel *m, const ts_crash_state *s) {
    bool lost_one = false;
    for (size_t i = 0; i < s->end && i < m->count; i++) {
        const logged *l = &m->log[i];
        if (!applied(l, i, s->end) || durable(l, s->end) || !is_dir_op(l->op.kind)) continue;
        bool kept = keeps(m, s, i);
        if (kept && lost_one) return false;
        lost_one |= !kept;
    }
    return true;
}

static void finish_state(const ts_fsmodel *m, ts_crash_state *s) {
    uint64_t h = TS_FSOP_HASH_INIT;
    s->lost = 0;
    for (size_t i = 0; i < s->end && i < m->count; i++) {
        if (!applied(&m->log[i], i, s->end)) continue;
        bool kept = keeps(m, s, i), whole = kept && !(s->kind == TS_CRASH_TORN && i == s->op);
        if (kept) h = ts_fsop_hash(&i, sizeof i, h);
        if (!whole) s->lost++;
    }
    if (s->kind == TS_CRASH_TORN) h = ts_fsop_hash(&s->kept, sizeof s->kept, h ^ 0x7472);
    s->id = h;
}

static bool add_state(const ts_fsmodel *m, ts_crash_state s, ts_crash_state *out, size_t max, size_t *n) {
    finish_state(m, &s);
    if (s.lost == 0 || !keeps_directory_prefix(m, &s)) return false;
    for (size_t i = 0; i < *n && i < max; i++)
        if (out[i].id == s.id) return false;
    if (*n < max) out[*n] = s;
    (*n)++;
    return true;
}

/* Is the change ever made durable by a sync of its own file or directory, anywhere in the log?
 * (A sync of everything does not count: it says nothing of what the writer relies on.) */
static bool ever_synced(const ts_fsmodel *m, const logged *l) {
    const ts_fsop *op = &l->op;
    bool data = is_data_op(op->kind);
    for (size_t i = 0; i < m->count; i++) {
        const ts_fsop *s = &m->log[i].op;
        uint32_t gen = m->log[i].gens.ino;
        if (s->kind != TS_FSOP_FSYNC || s->result < 0 || (s->flags & TS_FSOP_NOT_RUN)) continue;
        if (data ? same_file(s->ino, gen, op->ino, l->gens.ino)
                 : same_file(s->ino, gen, op->dir, l->gens.dir) ||
                       (op->kind == TS_FSOP_RENAME && same_file(s->ino, gen, op->dir2, l->gens.dir2)))
            return true;
    }
    return false;
}

size_t ts_fsmodel_crash_states(const ts_fsmodel *m, size_t end, size_t window, size_t block, ts_crash_state *out,
                               size_t max) {
    if (end > m->count) end = m->count;
    size_t n = 0;
    add_state(m, (ts_crash_state){.kind = TS_CRASH_UNSYNCED_LOST, .end = end}, out, max, &n);
    /* dropped and torn first, so that a reordering that keeps what a drop keeps is named by the drop */
    for (int pass = 0; pass < 2; pass++) {
        size_t seen = 0, first_unsynced = NEVER;
        for (size_t i = 0; i < end && first_unsynced == NEVER; i++)
            if (applied(&m->log[i], i, end) && !durable(&m->log[i], end)) first_unsynced = i;
        for (size_t i = end; i-- > 0 && seen < window;) {
            const logged *l = &m->log[i];
            if (!applied(l, i, end) || durable(l, end) || !ever_synced(m, l)) continue;
            seen++;
            if (pass == 1) {
                if (i != first_unsynced)
                    add_state(m, (ts_crash_state){.kind = TS_CRASH_REORDERED, .end = end, .op = i}, out, max, &n);
                continue;
            }
            add_state(m, (ts_crash_state){.kind = TS_CRASH_DROPPED, .end = end, .op = i}, out, max, &n);
            if (l->op.kind == TS_FSOP_WRITE && block) {
                size_t first_boundary = (size_t)((l->op.offset / block + 1) * block - l->op.offset);
                if (first_boundary < l->op.data_len)
                    add_state(m, (ts_crash_state){.kind = TS_CRASH_TORN, .end = end, .op = i, .kept = first_boundary}, out, max, &n);
            }
        }
    }
    return n;
}

bool ts_fsmodel_materialize(const ts_fsmodel *m, const ts_crash_state *s, const char *dir, char *why, size_t why_size) {
    fs_image img;
    if (!fs_image_copy(&m->baseline, &img)) {
        snprintf(why, why_size, "out of memory");
        return false;
    }
    for (size_t i = 0; i < s->end && i < m->count; i++) {
        if (!keeps(m, s, i)) continue;
        size_t len = s->kind == TS_CRASH_TORN && i == s->op ? s->kept : m->log[i].op.data_len;
        fs_image_apply(&img, &m->log[i].op, &m->log[i].gens, len);
    }
    bool ok = fs_image_write(&img, dir, why, why_size);
    fs_image_free(&img);
    return ok;
}

bool ts_fsmodel_clear_dir(const char *dir, char *why, size_t why_size) { return fs_clear_dir(dir, why, why_size); }

void ts_crash_state_name(const ts_crash_state *s, ts_buf *out) {
    if (s->kind == TS_CRASH_UNSYNCED_LOST) ts_buf_append_str(out, "unsynced-lost");
    else ts_buf_appendf(out, "%s:%zu", ts_crash_kind_name(s->kind), s->op + 1);
}

void ts_fsmodel_describe_state(const ts_fsmodel *m, const ts_crash_state *s, ts_buf *out) {
    ts_crash_state_name(s, out);
    if (s->kind != TS_CRASH_UNSYNCED_LOST && s->op < m->count) {
        ts_buf_append_str(out, s->kind == TS_CRASH_DROPPED ? ": lost " : s->kind == TS_CRASH_TORN ? ": torn " : ": kept ahead ");
        ts_fsop_describe(&m->log[s->op].op, out);
        if (s->kind == TS_CRASH_TORN) ts_buf_appendf(out, ", %zu bytes of it kept", s->kept);
    }
    ts_buf_appendf(out, " (%zu unsynced change%s lost", s->lost, s->lost == 1 ? "" : "s");
    size_t shown = 0;
    for (size_t i = 0; i < s->end && i < m->count && shown < 3; i++) {
        const logged *l = &m->log[i];
        if (!applied(l, i, s->end) || keeps(m, s, i) || (s->kind != TS_CRASH_UNSYNCED_LOST && i == s->op)) continue;
        ts_buf_append_str(out, shown++ ? "; " : ": ");
        ts_fsop_describe(&l->op, out);
    }
    if (s->lost > shown + (s->kind != TS_CRASH_UNSYNCED_LOST)) ts_buf_append_str(out, "; ...");
    ts_buf_append_char(out, ')');
}

bool ts_fsmodel_find_state(const ts_fsmodel *m, size_t end, size_t window, size_t block, const char *name,
                           ts_crash_state *out) {
    (void)window; /* a name says which change it is about: no window to search */
    if (end > m->count) end = m->count;
    ts_crash_state s = {.end = end};
    const char *colon = strchr(name, ':');
    if (!colon) {
        if (strcmp(name, "unsynced-lost") != 0) return false;
        s.kind = TS_CRASH_UNSYNCED_LOST;
    } else {
        size_t kind_len = (size_t)(colon - name);
        char *rest;
        unsigned long long number = strtoull(colon + 1, &rest, 10);
        if (*rest || number == 0 || number > end) return false;
        s.op = (size_t)number - 1;
        if (kind_len == 7 && !strncmp(name, "dropped", 7)) s.kind = TS_CRASH_DROPPED;
        else if (kind_len == 9 && !strncmp(name, "reordered", 9)) s.kind = TS_CRASH_REORDERED;
        else if (kind_len == 4 && !strncmp(name, "torn", 4)) s.kind = TS_CRASH_TORN;
        else return false;
        const logged *l = &m->log[s.op];
        if (!applied(l, s.op, end) || durable(l, end)) return false;
        if (s.kind == TS_CRASH_TORN) {
            if (l->op.kind != TS_FSOP_WRITE || !block) return false;
            s.kept = (size_t)((l->op.offset / block + 1) * block - l->op.offset);
            if (s.kept >= l->op.data_len) return false;
        }
    }
    finish_state(m, &s);
    if (s.lost == 0 || !keeps_directory_prefix(m, &s)) return false;
    *out = s;
    return true;
}
