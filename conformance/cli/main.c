/* main.c — `turnstile`: dispatches to one subcommand; see cli.h. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "conformance/certifier/builtin_suite.h"
#include "conformance/cli/cli.h"

typedef struct subcommand {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
} subcommand;

static const subcommand subcommands[] = {
    {"merge", ts_cli_merge, "fold a stream of AgentResponseUpdates into an AgentResponse"},
    {"certify", ts_cli_certify, "run the conformance suite against an implementation (or the reference)"},
    {"check", ts_cli_check, "run the conformance checkers on a recorded stream and response"},
    {"testee", ts_cli_testee, "answer conformance requests on stdin/stdout with the reference"},
    {"gen", ts_cli_gen, "write adversarial update streams (the fuzzers' generator)"},
    {"canon", ts_cli_canon, "write a JSON value in its RFC 8785 canonical form (I-JSON input only)"},
    {"taskkey", ts_cli_taskkey, "print the idempotency key and task id of a task (resume engine)"},
    {"report", ts_cli_report, "a compliance table (rule x implementation) from certify reports, Markdown or HTML"},
    {"run", ts_cli_run, "run or resume a scenario with the reference resume engine (SQLite journal)"},
    {"journal", ts_cli_journal, "print a SQLite journal's transcript, entries, tasks and checkpoint as JSON"},
    {"fstrace", ts_cli_fstrace, "run a command under the file-system observer and print its store operations"},
};

/* `turnstile --version`: turnstile's version and commit, the built-in suite's version and hash. */
static int version(void) {
    printf("turnstile %s (commit %s)\n", ts_cli_version, ts_cli_commit);
    ts_suite suite;
    ts_error err;
    if (ts_suite_load_files(&suite, &ts_builtin_suite, &err))
        printf("suite %s (built-in, %zu cases, sha256 %s)\n", suite.version, suite.count, suite.hash);
    else
        printf("suite: the built-in suite does not load: %s: %s\n", err.path, err.message);
    ts_suite_free(&suite);
    return fflush(stdout) == 0 ? TS_EXIT_OK : TS_EXIT_FAILURE;
}

static void usage(FILE *to) {
    fputs("usage: turnstile COMMAND [options]   (turnstile COMMAND --help for each)\n"
          "       turnstile --version\n\n"
          "turnstile is a conformance and fuzzing harness for AI-agent conversation streams.\n\n"
          "commands:\n",
          to);
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
        fprintf(to, "  %-10s %s\n", subcommands[i].name, subcommands[i].summary);
    fputs("\nEvery option takes its value as `--opt value` or `--opt=value`.\n", to);
}

/* A closed standard descriptor would be handed out by the next open() or pipe(): a testee's
 * stdin could then receive what we print. Hold each closed one with /dev/null opened the
 * wrong way round, so that using it fails (and a lost stdout is reported at exit). */
static void hold_closed_standard_descriptors(void) {
    for (int fd = 0; fd <= 2; fd++)
        if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY);
}

/* Every command's output goes through stdout's buffer: flush and close it, and turn a failed
 * write (a full disk, a closed pipe or descriptor) into a message and a non-zero status. */
static int finish_stdout(int status) {
    bool failed = ferror(stdout) != 0;
    int error = 0;
    if (fflush(stdout) != 0) failed = true, error = errno;
    if (fclose(stdout) != 0 && !failed) failed = true, error = errno;
    if (!failed) return status;
    if (error == EBADF) fprintf(stderr, "turnstile: standard output is closed: the output was lost\n");
    else if (error) fprintf(stderr, "turnstile: cannot write standard output: %s\n", strerror(error));
    else fprintf(stderr, "turnstile: writing standard output failed: the output was lost\n");
    return status == TS_EXIT_OK ? TS_EXIT_FAILURE : status;
}

static int dispatch(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return TS_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return TS_EXIT_OK;
    }
    if (strcmp(argv[1], "--version") == 0 || strcmp(argv[1], "version") == 0) return version();
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++) {
        if (strcmp(argv[1], subcommands[i].name) != 0) continue;
        int split_argc;
        char **split = ts_cli_split_equals(argc, argv, &split_argc);
        if (!split) {
            fprintf(stderr, "turnstile: out of memory\n");
            return TS_EXIT_FAILURE;
        }
        int status = subcommands[i].run(split_argc - 1, split + 1);
        ts_cli_free_args(split_argc, split);
        return status;
    }
    fprintf(stderr, "turnstile: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return TS_EXIT_USAGE;
}

int main(int argc, char **argv) {
    hold_closed_standard_descriptors();
    return finish_stdout(dispatch(argc, argv));
}
