/* resume_stores.h — the store directories of one resume case (conformance/PROTOCOL.md `resume`).
 *
 * Owns: a scratch directory under $TMPDIR (turnstile-resume-XXXXXX) holding one store directory
 * per run of the case. It is registered to be removed at any end of the certifier (supervise.h:
 * after every testee tree is gone), and removed at the end of the case only once the testee is
 * finished and its whole process tree gone, since anything it started may still be writing
 * there (unless it never used it); within remove_tree.h's bounds, a bound reached being the
 * case's "store-limit".
 */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_RESUME_STORES_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_RESUME_STORES_H

#include <stdbool.h>
#include <stddef.h>

#include "conformance/certifier/run_options.h"
#include "conformance/certifier/testee.h"

typedef struct ts_resume_stores {
    char dir[256]; /* the scratch directory (a $TMPDIR longer than 200 bytes is not used: /tmp) */
    bool made;
} ts_resume_stores;

/* Makes the scratch directory; false (errno set) when it cannot. */
bool ts_resume_stores_make(ts_resume_stores *s);

/* Finishes the testee (ts_testee_finish: stdin closed, 2 s, then a kill; its tree cleared, a fork
 * server's and a pooled process's too), then removes the scratch directory. A testee that
 * answered the case "unsupported" (`used` false) never used its store and is not stopped (a
 * merge-only testee keeps running across the suite): the directory is removed now and again at
 * the certifier's end, after the testee, in case something recreated it meanwhile. False when a
 * bound stopped the removal: `left` names the directory left and why. Accepts stores never made. */
bool ts_resume_stores_remove(ts_resume_stores *s, ts_testee *testee, bool used, char *left, size_t left_size);

/* A removal stopped by a bound (left: as above): r becomes the case's error "store-limit", or,
 * when r is an error already, its detail says so as far as it fits (a second store-limit: only
 * the directory, "also left in DIR": with --jobs each worker that played the case has its own). */
void ts_resume_stores_blame(ts_case_result *r, const char *left);

#endif
