/* fstrace_cmd.c — `turnstile fstrace`: a command run under the file-system observer, its store
 * operations printed one per line (what the certifier sees of a resume testee's disk). */
#define _DEFAULT_SOURCE /* realpath, mkstemp */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "conformance/cli/cli.h"
#include "conformance/nemesis/fsop.h"
#include "conformance/nemesis/fstrace.h"

static const char fstrace_usage[] =
    "usage: turnstile fstrace --store DIR [--kill-at N [--after]] [--json] [--out FILE] -- COMMAND [ARG...]\n"
    "\n"
    "Runs COMMAND under turnstile's file-system observer (ptrace + seccomp, no help from the\n"
    "command) and prints every operation it and its threads and children make on the files\n"
    "under DIR: creates, writes (with offset and length), truncates, renames, links, unlinks,\n"
    "directory changes and syncs, numbered as the certifier numbers them. io_uring and Linux AIO\n"
    "are refused (ENOSYS). --kill-at N kills the command's process group before operation N runs\n"
    "(--after: as it returns), as the certifier's file-system nemesis does. --json prints one JSON\n"
    "object per operation instead; --out FILE writes the operations there rather than on stdout\n"
    "(so that COMMAND can be a testee the certifier talks to on stdout).\n"
    "\n"
    "exit status: the command's (128+N when it was killed by signal N); 2 bad usage; 3 it could\n"
    "not be run traced (not Linux x86-64, or the kernel refused ptrace or seccomp).\n";

static void print_trace(int fd, bool json, FILE *to) {
    ts_buf bytes, line;
    ts_buf_init(&bytes);
    ts_buf_init(&line);
    char chunk[65536];
    ssize_t n;
    lseek(fd, 0, SEEK_SET);
    while ((n = read(fd, chunk, sizeof chunk)) > 0) ts_buf_append(&bytes, chunk, (size_t)n);
    size_t pos = 0;
    ts_fsop op;
    char why[200];
    int got;
    while ((got = ts_fsop_decode((const uint8_t *)bytes.data, bytes.len, &pos, &op, why, sizeof why)) == 1) {
        ts_buf_reset(&line);
        if (json) ts_fsop_to_json(&op, &line);
        else ts_fsop_describe(&op, &line);
        fprintf(to, "%.*s\n", (int)line.len, line.data);
    }
    if (got < 0) fprintf(stderr, "turnstile fstrace: %s\n", why);
    ts_buf_free(&bytes);
    ts_buf_free(&line);
}

int ts_cli_fstrace(int argc, char **argv) {
    const char *store = NULL, *out_path = NULL;
    unsigned long long kill_at = 0;
    bool after = false, json = false;
    int i = 1;
    for (; i < argc && strcmp(argv[i], "--") != 0; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(fstrace_usage, stdout);
            return TS_EXIT_OK;
        } else if (!strcmp(argv[i], "--store") && i + 1 < argc) {
            store = argv[++i];
        } else if (!strcmp(argv[i], "--kill-at") && i + 1 < argc) {
            if (!ts_cli_parse_whole("fstrace", "--kill-at", argv[++i], 1, ULLONG_MAX, &kill_at)) return TS_EXIT_USAGE;
        } else if (!strcmp(argv[i], "--after")) {
            after = true;
        } else if (!strcmp(argv[i], "--out") && i + 1 < argc) {
            out_path = argv[++i];
        } else if (!strcmp(argv[i], "--json")) {
            json = true;
        } else {
            fprintf(stderr, "turnstile fstrace: unknown option '%s' (see turnstile fstrace --help)\n", argv[i]);
            return TS_EXIT_USAGE;
        }
    }
    if (!store || i + 1 >= argc) {
        fprintf(stderr, "turnstile fstrace: needs --store DIR and -- COMMAND (see turnstile fstrace --help)\n");
        return TS_EXIT_USAGE;
    }
    ts_fstrace_config config = {.kill_seq = kill_at, .kill_after = after};
    if (!realpath(store, config.root)) {
        fprintf(stderr, "turnstile fstrace: %s: %s\n", store, strerror(errno));
        return TS_EXIT_USAGE;
    }
    char trace_path[] = "/tmp/turnstile-fstrace-XXXXXX";
    config.trace_fd = mkstemp(trace_path);
    if (config.trace_fd < 0) {
        fprintf(stderr, "turnstile fstrace: cannot make a trace file: %s\n", strerror(errno));
        return TS_EXIT_HARNESS;
    }
    unlink(trace_path);
    int status = 0;
    char why[300];
    fflush(stdout);
    if (!ts_fstrace_run(argv + i + 1, &config, &status, why, sizeof why)) {
        fprintf(stderr, "turnstile fstrace: %s\n", why);
        close(config.trace_fd);
        return TS_EXIT_HARNESS;
    }
    FILE *to = out_path ? fopen(out_path, "w") : stdout;
    if (!to) {
        fprintf(stderr, "turnstile fstrace: %s: %s\n", out_path, strerror(errno));
        close(config.trace_fd);
        return TS_EXIT_FAILURE;
    }
    print_trace(config.trace_fd, json, to);
    if (to != stdout) fclose(to);
    close(config.trace_fd);
    return WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WEXITSTATUS(status);
}
