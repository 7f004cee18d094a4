/* main.c — `turnstile`: dispatches to one subcommand; see cli.h. */
#include <string.h>

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
};

static void usage(FILE *to) {
    fputs("usage: turnstile COMMAND [options]   (turnstile COMMAND --help for each)\n\n"
          "turnstile is a conformance and fuzzing harness for AI-agent conversation streams.\n\n"
          "commands:\n",
          to);
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
        fprintf(to, "  %-10s %s\n", subcommands[i].name, subcommands[i].summary);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        usage(stderr);
        return TS_EXIT_USAGE;
    }
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "help") == 0) {
        usage(stdout);
        return TS_EXIT_OK;
    }
    for (size_t i = 0; i < sizeof subcommands / sizeof subcommands[0]; i++)
        if (strcmp(argv[1], subcommands[i].name) == 0) return subcommands[i].run(argc - 1, argv + 1);
    fprintf(stderr, "turnstile: unknown command '%s'\n\n", argv[1]);
    usage(stderr);
    return TS_EXIT_USAGE;
}
