/* finding_case.c — a differential target's finding as a conformance case; see finding_case.h. */
#include "fuzz/finding_case.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "conformance/certifier/suite.h"
#include "core/json/codec.h"

/* Adds entry (a manifest case object, one line) to dir/MANIFEST.json unless a case of that id is
 * there; under an fcntl lock, replaced by rename, so parallel fuzzing jobs (-fork, -jobs) and a
 * crash mid-write never leave a broken manifest. */
bool ts_finding_manifest_add(const char *dir, const char *id, const ts_buf *entry) {
    char path[1024], lock_path[1024], tmp_path[1100];
    snprintf(path, sizeof path, "%s/MANIFEST.json", dir);
    snprintf(lock_path, sizeof lock_path, "%s/.MANIFEST.lock", dir);
    snprintf(tmp_path, sizeof tmp_path, "%s/.MANIFEST.json.%ld", dir, (long)getpid());
    int lock = open(lock_path, O_RDWR | O_CREAT, 0644);
    if (lock < 0) return false;
    struct flock whole = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
    if (fcntl(lock, F_SETLKW, &whole) != 0) {
        close(lock);
        return false;
    }
    ts_arena arena;
    ts_arena_init(&arena);
    ts_buf out;
    ts_buf_init(&out);
    ts_buf_append_str(&out, "{\"cases\":[\n");
    size_t len = 0, count = 0;
    char *old = ts_suite_read_file(path, &len);
    ts_json manifest;
    ts_error err;
    bool present = false;
    if (old && ts_codec_parse(&arena, old, len, &manifest, &err)) {
        const ts_json *cases = ts_json_get(&manifest, "cases");
        for (size_t i = 0; cases && cases->kind == TS_JSON_ARRAY && i < cases->u.a.count; i++) {
            present |= ts_str_eq_cstr(ts_json_string(ts_json_get(&cases->u.a.items[i], "id")), id);
            if (count++) ts_buf_append_str(&out, ",\n");
            ts_codec_write(&out, &cases->u.a.items[i], TS_WRITE_COMPACT);
        }
    }
    free(old);
    if (!present) {
        if (count) ts_buf_append_str(&out, ",\n");
        ts_buf_append(&out, entry->data, entry->len);
    }
    ts_buf_append_str(&out, "\n]}\n");
    bool ok = present;
    if (!present && !out.failed) {
        FILE *f = fopen(tmp_path, "w");
        ok = f && fwrite(out.data, 1, out.len, f) == out.len;
        if (f && fclose(f) != 0) ok = false;
        ok = ok && rename(tmp_path, path) == 0;
        if (!ok) remove(tmp_path);
    }
    ts_buf_free(&out);
    ts_arena_free(&arena);
    close(lock); /* releases the lock */
    return ok;
}

bool ts_finding_rule_listed(const char *list, const char *rule, size_t n) {
    if (!list) return false;
    for (const char *p = list; *p;) {
        size_t len = strcspn(p, ", ");
        if (len == n && strncmp(p, rule, n) == 0) return true;
        p += len;
        p += strspn(p, ", ");
    }
    return false;
}
