/* load_probe_test.c — telling a starved testee from a hung one (load_probe.h, issue 23: load must
 * not decide a verdict). A process group that sleeps (a hung testee: it waits for nothing the host
 * withholds) is not starved; a group that wants a CPU it cannot get (a busy testee pinned to one
 * CPU at nice 19 beside three spinners at nice 0 on the same CPU) is starved, and the detail says
 * how long it waited; a group that does not exist is no measurement. Each result holds on a loaded
 * host too: more load only starves the spinner more, and a sleeper waits for no CPU. */
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET */
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conformance/certifier/load_probe.h"
#include "core/testing/unit.h"

enum { SPINNERS = 3 };

/* A child in a process group of its own that sleeps, or spins on cpu at nice `nice_value`;
 * returned once it is in its group and about to sleep or spin (on a loaded host a child can wait
 * long for its first slice: a sleeper still on its way to pause() is not asleep yet). */
static pid_t start_child(bool spin, int cpu, int nice_value) {
    int ready[2];
    if (pipe(ready) != 0) return -1;
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        close(ready[0]);
        if (write(ready[1], "r", 1) != 1) _exit(1);
        close(ready[1]);
        if (spin) {
            cpu_set_t set;
            CPU_ZERO(&set);
            CPU_SET(cpu, &set);
            sched_setaffinity(0, sizeof set, &set);
            setpriority(PRIO_PROCESS, 0, nice_value);
            for (volatile unsigned long n = 0;; n++) {}
        }
        for (;;) pause();
    }
    close(ready[1]);
    char byte;
    if (pid > 0) {
        setpgid(pid, pid); /* either side may get there first */
        if (read(ready[0], &byte, 1) != 1) pid = -1;
    }
    close(ready[0]);
    return pid;
}

static void stop_child(pid_t pid) {
    if (pid <= 0) return;
    kill(-pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

/* The CPU this process may run on first: the spinners share it. */
static int first_cpu(void) {
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) != 0) return 0;
    for (int cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &set)) return cpu;
    return 0;
}

static void a_sleeping_group_is_not_starved(void) {
    pid_t sleeper = start_child(false, 0, 0);
    CHECK(sleeper > 0);
    usleep(200 * 1000); /* asleep in pause() */
    char detail[200];
    CHECK(!ts_load_probe(sleeper, 0.5, detail, sizeof detail));
    CHECK(strstr(detail, "waited") != NULL); /* it measured: the group was there */
    stop_child(sleeper);
}

static void a_group_that_waits_for_a_cpu_is_starved(void) {
    int cpu = first_cpu();
    pid_t spinners[SPINNERS], probed;
    for (int i = 0; i < SPINNERS; i++) {
        spinners[i] = start_child(true, cpu, 0);
        CHECK(spinners[i] > 0);
    }
    probed = start_child(true, cpu, 19);
    CHECK(probed > 0);
    usleep(200 * 1000);
    char detail[200];
    bool starved = ts_load_probe(probed, 0.5, detail, sizeof detail);
    CHECK(starved);
    if (!starved) fprintf(stderr, "  the probe saw: %s\n", detail);
    CHECK(strstr(detail, "for a CPU") != NULL);
    stop_child(probed);
    for (int i = 0; i < SPINNERS; i++) stop_child(spinners[i]);
}

static void no_group_is_no_measurement(void) {
    pid_t gone = start_child(false, 0, 0);
    stop_child(gone); /* reaped: its group is empty */
    char detail[200] = "untouched";
    CHECK(!ts_load_probe(gone, 0.1, detail, sizeof detail));
    CHECK_STR_EQ(detail, "");
    CHECK(!ts_load_probe(0, 0.1, detail, sizeof detail));
}

int main(void) {
    TS_RUN(a_sleeping_group_is_not_starved);
    TS_RUN(a_group_that_waits_for_a_cpu_is_starved);
    TS_RUN(no_group_is_no_measurement);
    return ts_unit_finish();
}
