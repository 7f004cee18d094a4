/* fsimage.h — private to the persistence model (fsmodel.c): a directory tree held in memory,
 * the image of a store. Owns: its nodes (directories, files and symbolic links, each with the
 * real inode it stands for and that inode number's generation), their names, applying one
 * observed operation to it, reading one from a real directory and writing one out. Not part of
 * the nemesis' interface.
 *
 * Generations: a file system reuses a freed inode number (ext4 at once, tmpfs never), so a
 * number alone does not name one file across a history. The model counts, per number, the
 * files the history made with it (fsmodel.c); a node is the file (number, generation), and an
 * operation names each inode with the generation it had when the operation ran. */
#ifndef TURNSTILE_CONFORMANCE_NEMESIS_FSIMAGE_H
#define TURNSTILE_CONFORMANCE_NEMESIS_FSIMAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conformance/nemesis/fsop.h"

typedef enum fs_node_type { FS_FILE, FS_DIR, FS_SYMLINK } fs_node_type;

typedef struct fs_node {
    ts_inode id;       /* the real inode it stands for ({0,0}: none known) */
    uint32_t gen;      /* which of the files made with that number (0: one already there) */
    fs_node_type type;
    uint8_t *data;     /* a file's content, a link's target */
    size_t len, cap;
} fs_node;

typedef struct fs_entry {
    size_t dir, node;  /* node indexes */
    char *name;
} fs_entry;

typedef struct fs_image {
    fs_node *nodes;
    size_t node_count, node_cap;
    fs_entry *entries;
    size_t entry_count, entry_cap;
    size_t root;
    bool failed;       /* out of memory at some point: the image is not to be trusted */
} fs_image;

void fs_image_init(fs_image *img);
void fs_image_free(fs_image *img);
bool fs_image_copy(const fs_image *from, fs_image *to); /* to: uninitialised */

/* The generation of each inode an operation names (its ino, dir and dir2) when it ran. */
typedef struct fs_gens {
    uint32_t ino, dir, dir2;
} fs_gens;

/* The node that stands for inode id in generation gen, or SIZE_MAX. */
size_t fs_image_find(const fs_image *img, ts_inode id, uint32_t gen);

/* Applies one operation that ran, its inodes in generations gens; `data_len` of a WRITE may be
 * cut short (a torn write). A data operation on a generation the image has no node for (its
 * making was lost) lands in a nameless node of its own, never in another file with the same
 * number. */
void fs_image_apply(fs_image *img, const ts_fsop *op, const fs_gens *gens, size_t data_len);

/* Reads the tree under root into a fresh image (at most max_bytes of content). */
bool fs_image_read(fs_image *img, const char *root, size_t max_bytes, char *why, size_t why_size);

/* Empties dir (dir stays) and writes the image under it. */
bool fs_image_write(const fs_image *img, const char *dir, char *why, size_t why_size);

/* Removes everything under dir, never following a link, depth first with a bounded stack. */
bool fs_clear_dir(const char *dir, char *why, size_t why_size);

#endif
