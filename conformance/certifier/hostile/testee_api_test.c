/* testee_api_test.c — the child-process testee through testee.h alone: calls, kill and
 * restart, liveness, second answers, a death between two requests while something holds
 * stdout, a closed stdout, a testee that cannot start, option checks, and no process left
 * behind (each testee here carries a marker in its environment; /proc is searched for it). */
#define _GNU_SOURCE /* setenv */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "conformance/certifier/reference_testee.h"
#include "conformance/certifier/testee.h"

static int failures;
#define CHECK(cond)                                                                  \
    do {                                                                             \
        if (!(cond)) {                                                               \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                              \
        }                                                                            \
    } while (0)

static char marker[64];

/* Live (not zombie) processes whose environment holds marker. */
static int marked_processes(void) {
    DIR *proc = opendir("/proc");
    if (!proc) return -1;
    int count = 0;
    struct dirent *e;
    while ((e = readdir(proc))) {
        char path[300], state = 0, buf[65536];
        if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f) continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        char *close_paren = strrchr(buf, ')');
        if (close_paren && close_paren[1]) state = close_paren[2];
        if (state == 'Z' || state == 'X' || state == 0) continue;
        snprintf(path, sizeof path, "/proc/%s/environ", e->d_name);
        if (!(f = fopen(path, "r"))) continue;
        n = fread(buf, 1, sizeof buf, f);
        fclose(f);
        for (size_t i = 0; i + strlen(marker) <= n; i++)
            if ((i == 0 || buf[i - 1] == '\0') && memcmp(buf + i, marker, strlen(marker)) == 0) count++;
    }
    closedir(proc);
    return count;
}

static double now_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The number of marked processes once it is within [at_least, at_most], or the last count seen
 * when it is not within `seconds` (which a CHECK then reports). /proc lags the processes: a
 * background child between fork and exec, or a killed one not yet a zombie, is counted wrongly
 * for a moment, and a loaded machine stretches the moment. */
static int marked_processes_within(int at_least, int at_most, double seconds) {
    double deadline = now_seconds() + seconds;
    int n;
    while (((n = marked_processes()) < at_least || n > at_most) && now_seconds() < deadline) {
        struct timespec pause = {0, 20 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    return n;
}
#define SETTLE_SECONDS 60.0

static ts_testee *spawn_sh(const char *script, double timeout) {
    char *argv[] = {"sh", "-c", (char *)script, NULL};
    ts_testee_options options = {timeout, 0, 0, 0, 0};
    char why[300] = "";
    ts_testee *t = ts_testee_spawn(argv, &options, why, sizeof why);
    if (!t) fprintf(stderr, "spawn failed: %s\n", why);
    return t;
}

static ts_call_status call(ts_testee *t, const char *request, ts_buf *answer, ts_call_result *result) {
    ts_testee_call(t, request, strlen(request), answer, result);
    return result->status;
}

static const char echo[] = "setsid sleep 100000 </dev/null >/dev/null 2>&1 & "
                           "while IFS= read -r line; do printf '%s\\n' \"$line\"; done";
static const char twice[] = "while IFS= read -r line; do printf '%s\\n%s\\n' \"$line\" \"$line\"; done";

int main(void) {
    char name[48];
    snprintf(name, sizeof name, "TS_API_TEST_%ld", (long)getpid());
    snprintf(marker, sizeof marker, "%s=", name);
    setenv(name, "1", 1); /* inherited by every testee started below */
    ts_buf answer;
    ts_buf_init(&answer);
    ts_call_result r;
    const char a[] = "{\"id\":\"A\",\"op\":\"merge\"}", b[] = "{\"id\":\"B\",\"op\":\"merge\"}";

    /* Options out of range are refused. */
    char *argv[] = {"true", NULL}, why[300];
    double bad_timeouts[] = {NAN, INFINITY, -1, 86401};
    for (size_t i = 0; i < sizeof bad_timeouts / sizeof bad_timeouts[0]; i++) {
        ts_testee_options options = {bad_timeouts[i], 0, 0, 0, 0};
        why[0] = '\0';
        CHECK(ts_testee_spawn(argv, &options, why, sizeof why) == NULL && strstr(why, "timeout"));
    }

    /* Calls, kill, liveness, restart; the setsid grandchild goes with the testee. */
    ts_testee *t = spawn_sh(echo, 10);
    CHECK(t != NULL);
    if (t) {
        CHECK(call(t, a, &answer, &r) == TS_CALL_ANSWERED && answer.len == strlen(a));
        CHECK(ts_testee_alive(t) && ts_testee_pid(t) > 0);
        CHECK(marked_processes_within(2, 1000, SETTLE_SECONDS) >= 2);
        ts_testee_kill(t);
        CHECK(!ts_testee_alive(t) && ts_testee_pid(t) == -1);
        CHECK(marked_processes_within(0, 0, SETTLE_SECONDS) == 0);
        CHECK(call(t, b, &answer, &r) == TS_CALL_ANSWERED && strstr(answer.data, "\"B\""));
        CHECK(ts_testee_restarts(t) == 1 && ts_testee_failure(t) == NULL);
        ts_testee_close(t);
        CHECK(marked_processes_within(0, 0, SETTLE_SECONDS) == 0);
    }

    /* Second answers count for the request whose id they carry, the last one included. */
    t = spawn_sh(twice, 10);
    if (t) {
        CHECK(call(t, a, &answer, &r) == TS_CALL_ANSWERED && strstr(answer.data, "\"A\""));
        CHECK(call(t, b, &answer, &r) == TS_CALL_ANSWERED && strstr(answer.data, "\"B\""));
        ts_testee_finish(t);
        CHECK(ts_testee_extra_answers(t, "A") == 1 && ts_testee_extra_answers(t, "B") == 1);
        ts_testee_close(t);
    }

    /* Dies between two requests while a background child holds its stdout: the next request
     * finds it dead at once, with its exit status, not after the timeout. */
    t = spawn_sh("IFS= read -r line; printf '%s\\n' \"$line\"; sleep 100000 & exit 3", 30);
    if (t) {
        CHECK(call(t, a, &answer, &r) == TS_CALL_ANSWERED);
        double start = now_seconds();
        call(t, b, &answer, &r);
        CHECK(r.status == TS_CALL_EXITED && r.code == 3);
        CHECK(now_seconds() - start < 10);
        ts_testee_close(t);
        CHECK(marked_processes_within(0, 0, SETTLE_SECONDS) == 0);
    }

    /* Closes stdout and keeps running: said so, not "killed by signal 9". */
    t = spawn_sh("exec 1>&-; sleep 100000", 30);
    if (t) {
        CHECK(call(t, a, &answer, &r) == TS_CALL_STDOUT_CLOSED && strstr(r.detail, "closed its stdout"));
        ts_testee_close(t);
        CHECK(marked_processes_within(0, 0, SETTLE_SECONDS) == 0);
    }

    /* Cannot start: three starts without a line, then unavailable with the reason. */
    t = spawn_sh("echo oops >&2; exit 3", 10);
    if (t) {
        for (int i = 0; i < 3; i++) {
            call(t, a, &answer, &r);
            CHECK(r.status == TS_CALL_EXITED && r.code == 3);
        }
        CHECK(call(t, a, &answer, &r) == TS_CALL_UNAVAILABLE);
        CHECK(ts_testee_failure(t) && strstr(ts_testee_failure(t), "never answered") &&
              strstr(ts_testee_failure(t), "oops"));
        ts_testee_close(t);
    }

    /* In-process: always alive, no pid, no second answers. */
    t = ts_testee_in_process(NULL);
    CHECK(t && ts_testee_alive(t) && ts_testee_pid(t) == -1 && ts_testee_extra_answers(t, "A") == 0);
    ts_testee_close(t);

    ts_buf_free(&answer);
    CHECK(marked_processes_within(0, 0, SETTLE_SECONDS) == 0);
    printf("%s\n", failures ? "FAILED" : "ok");
    return failures ? 1 : 0;
}
