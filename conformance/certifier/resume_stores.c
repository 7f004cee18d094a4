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

bool ts_resume_stores_remove(ts_resume_stores *s, ts_testee *testee, bool used, char *left, size_t left_size) {
    if (left_size) left[0] = '\0';
    if (!s->made) return true;
    if (used) ts_testee_finish(testee); /* its whole tree gone: a fork server's and a pooled process's too */
    ts_remove_result removed;
    bool ok = ts_remove_tree(s->dir, NULL, &removed);
    if (!ok) {
        char why[100];
        ts_remove_describe(&removed, NULL, why, sizeof why);
        snprintf(left, left_size, "the case's stores were left in %s: %s (%zu entries removed)", s->dir, why, removed.entries);
    }
    if (used) ts_child_forget_removal(s->dir); /* else also at the certifier's end, after the testee */
    s->made = false;
    return ok;
}

void ts_resume_stores_blame(ts_case_result *r, const char *left) {
    if (!left || !*left) return;
    const char *dir = strstr(left, "left in ");
    if (r->verdict == TS_VERDICT_ERROR && strcmp(r->outcome, "store-limit") == 0 && dir) {
        /* another player's stores (--jobs): their directory, the reason said once already */
        size_t used = strlen(r->detail), room = sizeof r->detail - used;
        const char *end = strstr(dir, ": ");
        int len = end ? (int)(end - dir - 8) : (int)strlen(dir + 8);
        if (room > 12) snprintf(r->detail + used, room, "; also left in %.*s", len, dir + 8);
    } else if (r->verdict == TS_VERDICT_ERROR) { /* after the error that ended the case, as far as it fits */
        size_t used = strlen(r->detail);
        size_t room = sizeof r->detail - used;
        if (room > 3) snprintf(r->detail + used, room, "; %.*s", (int)(room - 3), left);
    } else {
        r->verdict = TS_VERDICT_ERROR;
        r->outcome = "store-limit";
        snprintf(r->detail, sizeof r->detail, "%s", left);
    }
}
