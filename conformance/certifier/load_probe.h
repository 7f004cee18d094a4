/* load_probe.h — telling a hung testee from a starved one, from outside (issue 23: load must
 * not decide a verdict).
 *
 * Owns: one measurement of a process group over a short window, from /proc: how long its tasks
 * ran, how long they were runnable and waited for a CPU (schedstat), and how often they were
 * blocked in the kernel (state D, most often the disk). A testee that did not answer in time
 * while it mostly waited for a CPU or the disk was starved by the host, not hung: its timeout is
 * no verdict on it. A testee that slept, or ran with the CPU to itself, is judged as before.
 */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_LOAD_PROBE_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_LOAD_PROBE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Watches the processes of group for `seconds` (they must not be waited for meanwhile). True
 * when they were starved: runnable and waiting for a CPU longer than they ran and at least a
 * tenth of the window; or runnable (state R) in most samples while they ran less than half the
 * window (the kernel counts a wait only when the task gets a CPU, so one that got none shows
 * none); or blocked in the kernel in most samples. detail says what was seen ("ran 12 ms,
 * waited 230 ms for a CPU, was runnable in 5 and blocked in the kernel in 0 of 5 samples").
 * False (and detail "") when nothing could be read. */
bool ts_load_probe(pid_t group, double seconds, char *detail, size_t size);

#endif
