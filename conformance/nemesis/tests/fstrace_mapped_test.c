/* fstrace_mapped_test.c — the observer's set of store files mapped shared and writable
 * (fstrace_internal.h): forgetting a number removes every entry of it, including one the
 * removal of an earlier entry swapped into the slot just looked at. */
#include <stdio.h>
#include <stdlib.h>

#include "conformance/nemesis/fstrace_internal.h"

static int failures;
#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                              \
        }                                                                            \
    } while (0)

static void set(ts_fstrace *t, const ts_inode *items, size_t count) {
    for (size_t i = 0; i < count; i++) t->mapped[i] = items[i];
    t->mapped_count = count;
}

int main(void) {
    ts_fstrace *t = calloc(1, sizeof *t);
    if (!t) return 2;
    ts_inode a = {1, 10}, b = {1, 11}, c = {1, 12}, other_dev = {2, 10};

    /* the last entry, swapped into the removed entry's slot, is the same number: removed too */
    set(t, (ts_inode[]){a, b, a}, 3);
    ts_fstrace_forget_mapped(t, a);
    CHECK(t->mapped_count == 1 && !ts_fstrace_is_mapped(t, a) && ts_fstrace_is_mapped(t, b));

    set(t, (ts_inode[]){a, a, a}, 3);
    ts_fstrace_forget_mapped(t, a);
    CHECK(t->mapped_count == 0);

    /* the others stay, whatever slot they end in; a number on another device is another file */
    set(t, (ts_inode[]){b, a, c, other_dev}, 4);
    ts_fstrace_forget_mapped(t, a);
    CHECK(t->mapped_count == 3 && ts_fstrace_is_mapped(t, b) && ts_fstrace_is_mapped(t, c) &&
          ts_fstrace_is_mapped(t, other_dev) && !ts_fstrace_is_mapped(t, a));
    ts_fstrace_forget_mapped(t, (ts_inode){3, 3}); /* not there: nothing changes */
    CHECK(t->mapped_count == 3);
    ts_fstrace_forget_mapped(t, other_dev);
    CHECK(t->mapped_count == 2 && !ts_fstrace_is_mapped(t, other_dev));

    free(t);
    if (failures) fprintf(stderr, "%d failures\n", failures);
    else printf("ok\n");
    return failures ? 1 : 0;
}
