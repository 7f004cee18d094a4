/* resume_stores.c — a resume case's store directories; see resume_stores.h. */
#include "conformance/certifier/resume_stores.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/certifier/remove_tree.h"
#include "conformance/certifier/supervise.h"

bool ts_resume_stores_make(ts_resume_stores *s) {
    const char *tmp = getenv("TMPDIR");
    if (!tmp || !*tmp || strlen(tmp) > 200) tmp = "/tmp"; /* a name reports can show whole */
    snprintf(s->dir, sizeof s->dir, "%s/turnstile-resume-XXXXXX", tmp);
    s->made = mkdtemp(s->dir) != NULL;
    if (s->made) ts_child_remove_at_end(s->dir);
    return s->made;
}

void ts_resume_stores_remove(ts_resume_stores *s, ts_testee *testee, ts_case_result *r) {
    if (!s->made) return;
    bool used = r->verdict != TS_VERDICT_SKIPPED; /* else it answered "unsupported" at once */
    if (used) ts_testee_stop(testee);
    ts_remove_result removed;
    if (!ts_remove_tree(s->dir, NULL, &removed)) {
        char why[100], what[sizeof r->detail];
        ts_remove_describe(&removed, NULL, why, sizeof why);
        int n = snprintf(what, sizeof what, "the case's stores were left in %s: %s (%zu entries removed)", s->dir, why,
                         removed.entries);
        if (n > 0 && r->verdict == TS_VERDICT_ERROR) { /* after the error that ended the case, as far as it fits */
            size_t used = strlen(r->detail);
            size_t room = sizeof r->detail - used;
            if (room > 3) snprintf(r->detail + used, room, "; %.*s", (int)(room - 3), what);
        } else {
            r->verdict = TS_VERDICT_ERROR;
            r->outcome = "store-limit";
            memcpy(r->detail, what, sizeof what);
        }
    }
    if (used) ts_child_forget_removal(s->dir); /* else also at the certifier's end, after the testee */
    s->made = false;
}
