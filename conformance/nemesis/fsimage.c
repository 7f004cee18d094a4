/* fsimage.c — a store's directory tree in memory; see fsimage.h. */
#define _GNU_SOURCE
#include "conformance/nemesis/fsimage.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/json/buf.h"

enum { MAX_DEPTH = 256 }; /* deeper trees are refused, read or written */

void fs_image_init(fs_image *img) {
    memset(img, 0, sizeof *img);
    img->root = SIZE_MAX;
}

void fs_image_free(fs_image *img) {
    if (!img) return;
    for (size_t i = 0; i < img->node_count; i++) free(img->nodes[i].data);
    for (size_t i = 0; i < img->entry_count; i++) free(img->entries[i].name);
    free(img->nodes);
    free(img->entries);
    fs_image_init(img);
}

static size_t node_new(fs_image *img, fs_node_type type, ts_inode id, uint32_t gen) {
    if (!ts_grow_array((void **)&img->nodes, &img->node_cap, img->node_count, sizeof *img->nodes)) {
        img->failed = true;
        return SIZE_MAX;
    }
    img->nodes[img->node_count] = (fs_node){.id = id, .gen = gen, .type = type};
    return img->node_count++;
}

static bool set_data(fs_image *img, size_t n, size_t len) {
    fs_node *node = &img->nodes[n];
    if (len > node->cap) {
        size_t cap = node->cap ? node->cap : 64;
        while (cap < len) cap = cap > SIZE_MAX / 2 ? len : 2 * cap;
        uint8_t *grown = realloc(node->data, cap);
        if (!grown) {
            img->failed = true;
            return false;
        }
        node->data = grown;
        node->cap = cap;
    }
    if (len > node->len) memset(node->data + node->len, 0, len - node->len);
    node->len = len;
    return true;
}

bool fs_image_copy(const fs_image *from, fs_image *to) {
    fs_image_init(to);
    to->root = from->root;
    to->nodes = calloc(from->node_count ? from->node_count : 1, sizeof *to->nodes);
    to->entries = calloc(from->entry_count ? from->entry_count : 1, sizeof *to->entries);
    if (!to->nodes || !to->entries) goto fail;
    to->node_cap = from->node_count ? from->node_count : 1;
    to->entry_cap = from->entry_count ? from->entry_count : 1;
    for (size_t i = 0; i < from->node_count; i++, to->node_count++) {
        to->nodes[i] = from->nodes[i];
        to->nodes[i].data = NULL;
        to->nodes[i].cap = to->nodes[i].len = 0;
        if (from->nodes[i].len && (!set_data(to, i, from->nodes[i].len))) goto fail;
        if (from->nodes[i].len) memcpy(to->nodes[i].data, from->nodes[i].data, from->nodes[i].len);
    }
    for (size_t i = 0; i < from->entry_count; i++, to->entry_count++) {
        to->entries[i] = from->entries[i];
        if (!(to->entries[i].name = strdup(from->entries[i].name))) goto fail;
    }
    return true;
fail:
    fs_image_free(to);
    return false;
}

size_t fs_image_find(const fs_image *img, ts_inode id, uint32_t gen) {
    for (size_t i = img->node_count; i-- > 0;)
        if (img->nodes[i].id.ino == id.ino && img->nodes[i].id.dev == id.dev && img->nodes[i].gen == gen) return i;
    return SIZE_MAX;
}

static size_t entry_find(const fs_image *img, size_t dir, const char *name) {
    for (size_t i = 0; i < img->entry_count; i++)
        if (img->entries[i].dir == dir && strcmp(img->entries[i].name, name) == 0) return i;
    return SIZE_MAX;
}

static void entry_remove(fs_image *img, size_t dir, const char *name) {
    size_t e = entry_find(img, dir, name);
    if (e == SIZE_MAX) return;
    free(img->entries[e].name);
    img->entries[e] = img->entries[--img->entry_count];
}

static void entry_set(fs_image *img, size_t dir, const char *name, size_t node) {
    size_t e = entry_find(img, dir, name);
    if (e != SIZE_MAX) {
        img->entries[e].node = node;
        return;
    }
    char *copy = strdup(name);
    if (!copy || !ts_grow_array((void **)&img->entries, &img->entry_cap, img->entry_count, sizeof *img->entries)) {
        free(copy);
        img->failed = true;
        return;
    }
    img->entries[img->entry_count++] = (fs_entry){dir, node, copy};
}

/* The directory node for inode id, or SIZE_MAX when the image has none (its making was lost). */
static size_t dir_of(const fs_image *img, ts_inode id, uint32_t gen) {
    size_t d = fs_image_find(img, id, gen);
    return d != SIZE_MAX && img->nodes[d].type == FS_DIR ? d : SIZE_MAX;
}

/* The file node for inode id; one is made (nameless) when the image has none. */
static size_t file_of(fs_image *img, ts_inode id, uint32_t gen) {
    size_t n = fs_image_find(img, id, gen);
    return n != SIZE_MAX ? n : node_new(img, FS_FILE, id, gen);
}

static void apply_rename(fs_image *img, const ts_fsop *op, const fs_gens *gens) {
    size_t from = dir_of(img, op->dir, gens->dir), to = dir_of(img, op->dir2, gens->dir2);
    const char *from_name = ts_fsop_leaf(op->path), *to_name = ts_fsop_leaf(op->path2);
    if (op->flags & TS_FSOP_EXCHANGE) {
        size_t a = from == SIZE_MAX ? SIZE_MAX : entry_find(img, from, from_name);
        size_t b = to == SIZE_MAX ? SIZE_MAX : entry_find(img, to, to_name);
        if (a == SIZE_MAX || b == SIZE_MAX) return;
        size_t node = img->entries[a].node;
        img->entries[a].node = img->entries[b].node;
        img->entries[b].node = node;
        return;
    }
    size_t e = from == SIZE_MAX ? SIZE_MAX : entry_find(img, from, from_name);
    size_t node = e != SIZE_MAX ? img->entries[e].node : fs_image_find(img, op->ino, gens->ino);
    if (from != SIZE_MAX) entry_remove(img, from, from_name);
    if (to != SIZE_MAX && node != SIZE_MAX) entry_set(img, to, to_name, node);
}

void fs_image_apply(fs_image *img, const ts_fsop *op, const fs_gens *gens, size_t data_len) {
    size_t dir, n;
    switch (op->kind) {
    case TS_FSOP_CREATE:
    case TS_FSOP_MKDIR:
    case TS_FSOP_SYMLINK:
        if ((dir = dir_of(img, op->dir, gens->dir)) == SIZE_MAX) return;
        n = node_new(img, op->kind == TS_FSOP_MKDIR ? FS_DIR : op->kind == TS_FSOP_SYMLINK ? FS_SYMLINK : FS_FILE, op->ino,
                     gens->ino);
        if (n == SIZE_MAX) return;
        if (op->kind == TS_FSOP_SYMLINK && set_data(img, n, strlen(op->path2)))
            memcpy(img->nodes[n].data, op->path2, strlen(op->path2));
        entry_set(img, dir, ts_fsop_leaf(op->path), n);
        return;
    case TS_FSOP_LINK:
        if ((dir = dir_of(img, op->dir, gens->dir)) == SIZE_MAX || (n = file_of(img, op->ino, gens->ino)) == SIZE_MAX) return;
        entry_set(img, dir, ts_fsop_leaf(op->path), n);
        return;
    case TS_FSOP_UNLINK:
    case TS_FSOP_RMDIR:
        if ((dir = dir_of(img, op->dir, gens->dir)) != SIZE_MAX) entry_remove(img, dir, ts_fsop_leaf(op->path));
        return;
    case TS_FSOP_RENAME: apply_rename(img, op, gens); return;
    case TS_FSOP_WRITE:
        if ((n = file_of(img, op->ino, gens->ino)) == SIZE_MAX || img->nodes[n].type != FS_FILE) return;
        if (op->offset + data_len > img->nodes[n].len && !set_data(img, n, (size_t)op->offset + data_len)) return;
        if (data_len) memcpy(img->nodes[n].data + op->offset, op->data, data_len);
        return;
    case TS_FSOP_TRUNCATE:
        if ((n = file_of(img, op->ino, gens->ino)) != SIZE_MAX && img->nodes[n].type == FS_FILE) set_data(img, n, (size_t)op->size);
        return;
    case TS_FSOP_SNAPSHOT:
        if ((n = file_of(img, op->ino, gens->ino)) == SIZE_MAX || img->nodes[n].type != FS_FILE) return;
        img->nodes[n].len = 0;
        if (set_data(img, n, op->data_len) && op->data_len) memcpy(img->nodes[n].data, op->data, op->data_len);
        return;
    default: return;
    }
}

/* ---- reading and writing real directories (iteratively, never through a link) ---- */

typedef struct walk_item {
    char *path;
    size_t node;  /* the image's directory node (reading, writing); SIZE_MAX: clear pass */
    int depth;
    bool revisit; /* clearing: its children are gone, remove it now */
} walk_item;

typedef struct walk {
    walk_item *items;
    size_t count, cap;
} walk;

static bool push(walk *w, const char *path, size_t node, int depth, bool revisit) {
    char *copy = strdup(path);
    if (!copy || !ts_grow_array((void **)&w->items, &w->cap, w->count, sizeof *w->items)) {
        free(copy);
        return false;
    }
    w->items[w->count++] = (walk_item){copy, node, depth, revisit};
    return true;
}

static void walk_free(walk *w) {
    for (size_t i = 0; i < w->count; i++) free(w->items[i].path);
    free(w->items);
}

static bool read_file(fs_image *img, size_t n, const char *path, size_t *budget) {
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || (size_t)st.st_size > *budget || !set_data(img, n, (size_t)st.st_size)) {
        if (fd >= 0) close(fd);
        return false;
    }
    size_t have = 0;
    ssize_t got;
    while (have < img->nodes[n].len && (got = read(fd, img->nodes[n].data + have, img->nodes[n].len - have)) > 0)
        have += (size_t)got;
    close(fd);
    img->nodes[n].len = have;
    *budget -= have;
    return true;
}

bool fs_image_read(fs_image *img, const char *root, size_t max_bytes, char *why, size_t why_size) {
    fs_image_init(img);
    struct stat st;
    if (lstat(root, &st) != 0 || !S_ISDIR(st.st_mode)) {
        snprintf(why, why_size, "%s: not a directory", root);
        return false;
    }
    img->root = node_new(img, FS_DIR, (ts_inode){st.st_dev, st.st_ino}, 0);
    walk w = {0};
    bool ok = img->root != SIZE_MAX && push(&w, root, img->root, 0, false);
    size_t budget = max_bytes;
    while (ok && w.count) {
        walk_item item = w.items[--w.count];
        DIR *d = opendir(item.path);
        struct dirent *e;
        while (ok && d && (e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char path[PATH_MAX];
            if (snprintf(path, sizeof path, "%s/%s", item.path, e->d_name) >= (int)sizeof path || lstat(path, &st) != 0) continue;
            fs_node_type type = S_ISDIR(st.st_mode) ? FS_DIR : S_ISLNK(st.st_mode) ? FS_SYMLINK : FS_FILE;
            if (!S_ISDIR(st.st_mode) && !S_ISLNK(st.st_mode) && !S_ISREG(st.st_mode)) continue;
            size_t n = fs_image_find(img, (ts_inode){st.st_dev, st.st_ino}, 0); /* a hard link: the same node */
            if (n == SIZE_MAX || type != FS_FILE) {
                n = node_new(img, type, (ts_inode){st.st_dev, st.st_ino}, 0);
                if (n == SIZE_MAX) ok = false;
                else if (type == FS_FILE && !read_file(img, n, path, &budget)) {
                    snprintf(why, why_size, "%s: cannot be read whole (or the store holds more than %zu bytes)", path, max_bytes);
                    ok = false;
                } else if (type == FS_SYMLINK) {
                    char target[PATH_MAX];
                    ssize_t len = readlink(path, target, sizeof target);
                    if (len > 0 && set_data(img, n, (size_t)len)) memcpy(img->nodes[n].data, target, (size_t)len);
                } else if (type == FS_DIR) {
                    if (item.depth + 1 > MAX_DEPTH) {
                        snprintf(why, why_size, "%s: the store is nested deeper than %d directories", path, MAX_DEPTH);
                        ok = false;
                    } else {
                        ok = push(&w, path, n, item.depth + 1, false);
                    }
                }
            }
            if (ok) entry_set(img, item.node, e->d_name, n);
        }
        if (d) closedir(d);
        free(item.path);
    }
    walk_free(&w);
    if (ok && img->failed) snprintf(why, why_size, "out of memory reading %s", root);
    if (!ok || img->failed) {
        fs_image_free(img);
        return false;
    }
    return true;
}

bool fs_clear_dir(const char *dir, char *why, size_t why_size) {
    /* Depth first, post-order: a directory is pushed back (to be removed) before its
     * subdirectories, which the stack then clears first. */
    walk w = {0};
    bool ok = push(&w, dir, SIZE_MAX, 0, false);
    while (ok && w.count) {
        walk_item item = w.items[--w.count];
        if (item.revisit) {
            if (rmdir(item.path) != 0 && errno != ENOENT) {
                snprintf(why, why_size, "cannot remove %s: %s", item.path, strerror(errno));
                ok = false;
            }
            free(item.path);
            continue;
        }
        DIR *d = opendir(item.path);
        if (!d) {
            snprintf(why, why_size, "cannot read %s: %s", item.path, strerror(errno));
            free(item.path);
            ok = false;
            break;
        }
        if (item.depth > 0) ok = push(&w, item.path, SIZE_MAX, item.depth, true); /* removed once emptied */
        struct dirent *e;
        while (ok && (e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            char path[PATH_MAX];
            struct stat st;
            if (snprintf(path, sizeof path, "%s/%s", item.path, e->d_name) >= (int)sizeof path) {
                snprintf(why, why_size, "%s/...: a path too long to clear", item.path);
                ok = false;
            } else if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
                ok = item.depth < 4 * MAX_DEPTH && push(&w, path, SIZE_MAX, item.depth + 1, false);
                if (!ok) snprintf(why, why_size, "%s: nested too deep to clear", path);
            } else if (unlink(path) != 0 && errno != ENOENT) {
                snprintf(why, why_size, "cannot remove %s: %s", path, strerror(errno));
                ok = false;
            }
        }
        closedir(d);
        free(item.path);
    }
    walk_free(&w);
    return ok;
}

static bool write_file(const fs_node *node, const char *path) {
    int fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0644);
    if (fd < 0) return false;
    size_t done = 0;
    while (done < node->len) {
        ssize_t n = write(fd, node->data + done, node->len - done);
        if (n <= 0) break;
        done += (size_t)n;
    }
    return close(fd) == 0 && done == node->len;
}

bool fs_image_write(const fs_image *img, const char *dir, char *why, size_t why_size) {
    if (img->failed || img->root == SIZE_MAX) {
        snprintf(why, why_size, "the image of the store is incomplete (out of memory)");
        return false;
    }
    if (!fs_clear_dir(dir, why, why_size)) return false;
    char **written = calloc(img->node_count ? img->node_count : 1, sizeof *written); /* a file's first path: hard links */
    walk w = {0};
    bool ok = written && push(&w, dir, img->root, 0, false);
    while (ok && w.count) {
        walk_item item = w.items[--w.count];
        for (size_t i = 0; ok && i < img->entry_count; i++) {
            const fs_entry *e = &img->entries[i];
            if (e->dir != item.node) continue;
            const fs_node *node = &img->nodes[e->node];
            char path[PATH_MAX];
            if (snprintf(path, sizeof path, "%s/%s", item.path, e->name) >= (int)sizeof path) continue;
            if (node->type == FS_DIR) {
                ok = item.depth < MAX_DEPTH && e->node != item.node && mkdir(path, 0755) == 0 &&
                     push(&w, path, e->node, item.depth + 1, false);
            } else if (node->type == FS_SYMLINK) {
                char target[PATH_MAX];
                size_t len = node->len < sizeof target - 1 ? node->len : sizeof target - 1;
                memcpy(target, node->data, len);
                target[len] = '\0';
                ok = symlink(target, path) == 0;
            } else if (written[e->node]) {
                ok = link(written[e->node], path) == 0;
            } else {
                ok = write_file(node, path) && (written[e->node] = strdup(path)) != NULL;
            }
            if (!ok) snprintf(why, why_size, "cannot write %s: %s", path, errno ? strerror(errno) : "nested too deep");
        }
        free(item.path);
    }
    for (size_t i = 0; written && i < img->node_count; i++) free(written[i]);
    free(written);
    walk_free(&w);
    return ok;
}
