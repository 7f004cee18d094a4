/* load_probe.c — a starved testee or a hung one; see load_probe.h. Linux /proc. */
#define _DEFAULT_SOURCE
#include "conformance/certifier/load_probe.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "conformance/certifier/supervise_internal.h"

enum { SAMPLES = 5, MAX_PROCESSES = 256 };

typedef struct usage {
    unsigned long long run_ns, wait_ns; /* schedstat: on a CPU, runnable and waiting for one */
    int tasks, blocked, runnable;       /* tasks seen, and those in state D and in state R */
} usage;

/* Adds the schedstat and state of every task of process pid. */
static void add_process(pid_t pid, usage *u) {
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/task", (long)pid);
    DIR *dir = opendir(path);
    if (!dir) return;
    struct dirent *e;
    while ((e = readdir(dir))) {
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        char file[320], buf[512];
        snprintf(file, sizeof file, "/proc/%ld/task/%s/schedstat", (long)pid, e->d_name);
        FILE *f = fopen(file, "r");
        unsigned long long run = 0, wait = 0;
        if (f && fscanf(f, "%llu %llu", &run, &wait) == 2) u->run_ns += run, u->wait_ns += wait, u->tasks++;
        if (f) fclose(f);
        snprintf(file, sizeof file, "/proc/%ld/task/%s/stat", (long)pid, e->d_name);
        f = fopen(file, "r");
        if (f && fgets(buf, sizeof buf, f)) {
            const char *p = strrchr(buf, ')'); /* "pid (comm) S ..." */
            if (p && p[1] == ' ' && p[2] == 'D') u->blocked++;
            if (p && p[1] == ' ' && p[2] == 'R') u->runnable++;
        }
        if (f) fclose(f);
    }
    closedir(dir);
}

/* The usage of every process of group (its members found by their process group). */
static usage measure(pid_t group) {
    usage u = {0, 0, 0, 0, 0};
    DIR *proc = opendir("/proc");
    if (!proc) return u;
    struct dirent *e;
    int seen = 0;
    while ((e = readdir(proc)) && seen < MAX_PROCESSES) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        pid_t parent, pgrp;
        if (*end || pid <= 0 || !ts_child_read_stat((pid_t)pid, &parent, &pgrp) || pgrp != group) continue;
        add_process((pid_t)pid, &u);
        seen++;
    }
    closedir(proc);
    return u;
}

bool ts_load_probe(pid_t group, double seconds, char *detail, size_t size) {
    if (size) detail[0] = '\0';
    if (group <= 0) return false;
    usage first = measure(group), last = first;
    if (!first.tasks) return false;
    int blocked_samples = 0, runnable_samples = 0;
    struct timespec pause = {(time_t)(seconds / SAMPLES), (long)((seconds / SAMPLES - (double)(time_t)(seconds / SAMPLES)) * 1e9)};
    for (int i = 0; i < SAMPLES; i++) {
        nanosleep(&pause, NULL);
        last = measure(group);
        blocked_samples += last.blocked > 0;
        runnable_samples += last.runnable > 0;
    }
    unsigned long long run = last.run_ns > first.run_ns ? last.run_ns - first.run_ns : 0;
    unsigned long long wait = last.wait_ns > first.wait_ns ? last.wait_ns - first.wait_ns : 0;
    snprintf(detail, size, "over %.0f ms it ran %.0f ms, waited %.0f ms for a CPU, was runnable in %d and blocked in the "
             "kernel in %d of %d samples", seconds * 1e3, (double)run / 1e6, (double)wait / 1e6, runnable_samples,
             blocked_samples, SAMPLES);
    /* A task's wait is counted when it gets a CPU: one that got none in the window shows no wait,
     * but it was runnable (state R) whenever it was sampled, and ran little. */
    bool wanted_a_cpu = runnable_samples * 2 > SAMPLES && (double)run < 0.5 * seconds * 1e9;
    return (wait > run && (double)wait >= 0.1 * seconds * 1e9) || wanted_a_cpu || blocked_samples * 2 > SAMPLES;
}
