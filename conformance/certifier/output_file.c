/* output_file.c — outputs written whole or not at all; see output_file.h. */
#define _GNU_SOURCE /* realpath with NULL */
#include "conformance/certifier/output_file.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conformance/certifier/supervise.h"

static void clear(ts_output_file *o) { memset(o, 0, sizeof *o); }

/* "DIR/.NAME.tmp-XXXXXX" beside target (heap), or NULL. */
static char *temp_name(const char *target) {
    const char *slash = strrchr(target, '/');
    size_t dir_len = slash ? (size_t)(slash - target) + 1 : 0;
    size_t size = strlen(target) + 16;
    char *temp = malloc(size);
    if (temp) snprintf(temp, size, "%.*s.%s.tmp-XXXXXX", (int)dir_len, target, target + dir_len);
    return temp;
}

bool ts_output_open(ts_output_file *o, const char *path, char *why, size_t why_size) {
    clear(o);
    if (strcmp(path, "-") == 0) {
        o->stream = stdout;
        return true;
    }
    struct stat st;
    if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) o->path = realpath(path, NULL); /* the file it names */
    if (!o->path) o->path = strdup(path);
    bool exists = o->path && stat(o->path, &st) == 0;
    if (o->path && exists && S_ISDIR(st.st_mode)) {
        snprintf(why, why_size, "%s: a directory", path);
    } else if (o->path && exists && !S_ISREG(st.st_mode)) { /* a device or a FIFO: nothing to keep whole */
        if ((o->stream = fopen(o->path, "w"))) return true;
        snprintf(why, why_size, "%s: %s", path, strerror(errno));
    } else if (o->path && (o->temp = temp_name(o->path))) {
        int fd = mkstemp(o->temp);
        if (fd >= 0) {
            mode_t mask = umask(0);
            umask(mask);
            fchmod(fd, exists ? st.st_mode & 07777 : 0666 & ~mask);
            ts_child_remove_at_end(o->temp); /* until it is renamed */
            if ((o->stream = fdopen(fd, "w"))) return true;
            close(fd);
            unlink(o->temp);
            ts_child_forget_removal(o->temp);
        }
        snprintf(why, why_size, "%s: cannot write it (%s)", path, strerror(errno));
    } else {
        snprintf(why, why_size, "%s: out of memory", path);
    }
    free(o->path);
    free(o->temp);
    clear(o);
    return false;
}

bool ts_output_commit(ts_output_file *o, char *why, size_t why_size) {
    if (!o->stream) return true;
    bool ok = fflush(o->stream) == 0 && !ferror(o->stream);
    if (o->temp) ok = ok && fsync(fileno(o->stream)) == 0;
    int saved = errno;
    if (o->stream != stdout && fclose(o->stream) != 0 && ok) ok = false, saved = errno;
    if (ok && o->temp && rename(o->temp, o->path) != 0) ok = false, saved = errno;
    if (!ok) snprintf(why, why_size, "%s: %s", o->path ? o->path : "standard output", strerror(saved));
    if (!ok && o->temp) unlink(o->temp);
    if (o->temp) ts_child_forget_removal(o->temp);
    free(o->path);
    free(o->temp);
    clear(o);
    return ok;
}

void ts_output_discard(ts_output_file *o) {
    if (o->stream && o->stream != stdout) fclose(o->stream);
    if (o->temp) {
        unlink(o->temp);
        ts_child_forget_removal(o->temp);
    }
    free(o->path);
    free(o->temp);
    clear(o);
}
