/* replay_main.c — runs a fuzz target's LLVMFuzzerTestOneInput over files, without a fuzzing
 * engine: the regression test that replays corpora/<target>/ on every `bazel test`, and the way
 * to reproduce a crash from its file (cJSON's fuzz_main.c, in the same spirit).
 *
 * usage: <target> FILE_OR_DIRECTORY...   (directories are read one level deep, in sorted order;
 *        names starting with '.' or "README" are skipped, so a directory can explain itself)
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static int replay_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return 1;
    }
    size_t cap = 4096, len = 0;
    uint8_t *data = malloc(cap);
    size_t n;
    while (data && (n = fread(data + len, 1, cap - len, f)) > 0) {
        len += n;
        if (len == cap) {
            uint8_t *grown = realloc(data, cap * 2);
            if (!grown) break;
            data = grown;
            cap *= 2;
        }
    }
    fclose(f);
    if (!data) return 1;
    /* An exactly-sized copy, so that ASan catches any read past the input. */
    uint8_t *exact = malloc(len ? len : 1);
    if (!exact) {
        free(data);
        return 1;
    }
    memcpy(exact, data, len);
    free(data);
    LLVMFuzzerTestOneInput(exact, len);
    free(exact);
    return 0;
}

static int compare_names(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

int main(int argc, char **argv) {
    size_t replayed = 0;
    int failures = 0;
    for (int i = 1; i < argc; i++) {
        struct stat st;
        if (stat(argv[i], &st) != 0) {
            fprintf(stderr, "replay: no such file or directory: %s\n", argv[i]);
            return 1;
        }
        if (!S_ISDIR(st.st_mode)) {
            failures += replay_file(argv[i]);
            replayed++;
            continue;
        }
        DIR *d = opendir(argv[i]);
        if (!d) return 1;
        char **names = NULL;
        size_t count = 0, cap = 0;
        struct dirent *e;
        while ((e = readdir(d))) {
            if (e->d_name[0] == '.' || strncmp(e->d_name, "README", 6) == 0) continue;
            if (count == cap) {
                cap = cap ? cap * 2 : 64;
                char **grown = realloc(names, cap * sizeof *names);
                if (!grown) break;
                names = grown;
            }
            names[count++] = strdup(e->d_name);
        }
        closedir(d);
        if (count) qsort(names, count, sizeof *names, compare_names); /* names is NULL when empty */
        for (size_t k = 0; k < count; k++) {
            char path[4096];
            snprintf(path, sizeof path, "%s/%s", argv[i], names[k]);
            if (stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
                failures += replay_file(path);
                replayed++;
            }
            free(names[k]);
        }
        free(names);
    }
    printf("%zu inputs replayed, %d unreadable\n", replayed, failures);
    return failures ? 1 : 0;
}
