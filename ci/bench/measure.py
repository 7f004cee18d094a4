#!/usr/bin/env python3
"""measure.py — runs a command R times; prints "<median wall s> <median CPU s> <peak RSS KiB>".

Used by ci/bench/merge_bench.sh. Each run is started with posix_spawn (stdin and stdout on
/dev/null, stderr kept in a temporary file) and reaped with os.wait4, whose rusage gives the
child's CPU time (user + system) and ru_maxrss: the same kernel counters GNU time's %U, %S and
%M print, so no `time` package is needed. Wall time is time.perf_counter() around spawn..reap.
The medians of the runs' wall and CPU times are reported (on a shared machine the CPU time is
the steadier of the two), with the highest peak RSS seen. Any run that exits non-zero or is
killed by a signal makes this script exit 1 after showing that run's stderr.

usage: measure.py RUNS COMMAND [ARG...]
"""
import os
import statistics
import sys
import tempfile
import time


def main():
    if len(sys.argv) < 3 or not sys.argv[1].isdigit() or int(sys.argv[1]) < 1:
        sys.exit("usage: measure.py RUNS COMMAND [ARG...]")
    runs, command = int(sys.argv[1]), sys.argv[2:]
    walls, cpus, peak_kib = [], [], 0
    with tempfile.TemporaryFile() as errors:
        for run in range(1, runs + 1):
            errors.seek(0)
            errors.truncate()
            actions = [
                (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
                (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
                (os.POSIX_SPAWN_DUP2, errors.fileno(), 2),
            ]
            start = time.perf_counter()
            try:
                pid = os.posix_spawnp(command[0], command, os.environ, file_actions=actions)
            except OSError as e:
                sys.exit("measure.py: cannot run %s: %s" % (command[0], e.strerror))
            _, status, usage = os.wait4(pid, 0)
            walls.append(time.perf_counter() - start)
            cpus.append(usage.ru_utime + usage.ru_stime)
            code = os.waitstatus_to_exitcode(status)
            if code != 0:
                errors.seek(0)
                sys.stderr.write(errors.read().decode("utf-8", "replace"))
                how = "exit status %d" % code if code > 0 else "signal %d" % -code
                sys.exit("measure.py: run %d of %s failed (%s)" % (run, " ".join(command), how))
            peak_kib = max(peak_kib, usage.ru_maxrss)  # KiB on Linux
    print("%.6f %.6f %d" % (statistics.median(walls), statistics.median(cpus), peak_kib))


if __name__ == "__main__":
    main()
