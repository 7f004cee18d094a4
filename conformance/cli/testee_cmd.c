/* testee_cmd.c — `turnstile testee`: the reference (or a mutant) speaking the testee protocol
 * on stdin/stdout, so the certifier's pipe can be tried on a known-good program. */
#include <stdlib.h>
#include <string.h>

#include "conformance/cli/cli.h"
#include "conformance/testee/handler.h"
#include "core/resume/store_sqlite.h"

static const char testee_usage[] =
    "usage: turnstile testee [--mutant NAME] [--store sqlite|files] [--synchronous full|normal|off]\n"
    "\n"
    "Answers conformance requests (conformance/PROTOCOL.md) on stdin, one answer line each on\n"
    "stdout, with the reference merger, hosting executor and resume engine (whose model and\n"
    "tools the certifier plays over the same pipe); exits at end of input.\n"
    "\n"
    "  --mutant NAME   answer as a deliberately broken variant reproducing a historic bug\n"
    "  --store KIND    where the resume op keeps a thread: sqlite (a WAL database, the\n"
    "                  default) or files (a record file and a checksummed index, synced)\n"
    "  --synchronous L the SQLite store's fsync level: full (the default: every acknowledged\n"
    "                  action survives a power loss), normal or off (a killed process only);\n"
    "                  hello says which durability the testee claims\n"
    "  --list-mutants  print the mutants and the bugs they reproduce\n"
    "  --help          this text\n";

/* The resume op's world calls: one line out on stdout, one reply line back on stdin. */
static bool stdio_exchange(void *context, const char *line, size_t len, ts_buf *reply) {
    (void)context;
    if (fwrite(line, 1, len, stdout) != len || fputc('\n', stdout) == EOF || fflush(stdout) != 0) return false;
    char *text = NULL;
    size_t cap = 0;
    ssize_t n = getline(&text, &cap, stdin);
    while (n > 0 && (text[n - 1] == '\n' || text[n - 1] == '\r')) n--;
    if (n >= 0) ts_buf_append(reply, text, (size_t)n);
    free(text);
    return n >= 0 && !reply->failed;
}

int ts_cli_testee(int argc, char **argv) {
    const ts_mutant *mutant = NULL;
    ts_resume_store_kind store = TS_RESUME_STORE_SQLITE;
    ts_sqlite_synchronous synchronous = TS_SQLITE_SYNC_FULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            fputs(testee_usage, stdout);
            return TS_EXIT_OK;
        } else if (!strcmp(argv[i], "--list-mutants")) {
            for (size_t k = 0; k < ts_mutant_count; k++) printf("%-28s %s\n", ts_mutants[k].name, ts_mutants[k].bug);
            return TS_EXIT_OK;
        } else if (!strcmp(argv[i], "--mutant") && i + 1 < argc) {
            mutant = ts_mutant_find(argv[++i]);
            if (!mutant) {
                fprintf(stderr, "turnstile testee: no mutant '%s' (see --list-mutants)\n", argv[i]);
                return TS_EXIT_USAGE;
            }
        } else if (!strcmp(argv[i], "--store") && i + 1 < argc && (!strcmp(argv[i + 1], "sqlite") || !strcmp(argv[i + 1], "files"))) {
            store = !strcmp(argv[++i], "files") ? TS_RESUME_STORE_FILES : TS_RESUME_STORE_SQLITE;
        } else if (!strcmp(argv[i], "--synchronous") && i + 1 < argc &&
                   (!strcmp(argv[i + 1], "full") || !strcmp(argv[i + 1], "normal") || !strcmp(argv[i + 1], "off"))) {
            i++;
            synchronous = !strcmp(argv[i], "full") ? TS_SQLITE_SYNC_FULL : !strcmp(argv[i], "normal") ? TS_SQLITE_SYNC_NORMAL : TS_SQLITE_SYNC_OFF;
        } else {
            fprintf(stderr, "turnstile testee: unknown argument '%s' (see turnstile testee --help)\n", argv[i]);
            return TS_EXIT_USAGE;
        }
    }
    ts_deferred_write deferred = {0};
    ts_buf_init(&deferred.signal);
    ts_testee_config config;
    ts_testee_config_init(&config, mutant);
    config.exchange = stdio_exchange;
    config.store = store;
    config.synchronous = (int)synchronous;
    config.deferred = &deferred;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    ts_buf answer;
    ts_buf_init(&answer);
    while ((n = getline(&line, &cap, stdin)) >= 0) {
        while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r')) n--;
        if (n == 0) continue;
        ts_buf_reset(&answer);
        ts_testee_answer(&config, line, (size_t)n, &answer);
        ts_buf_append_char(&answer, '\n');
        if (answer.failed || fwrite(answer.data, 1, answer.len, stdout) != answer.len || fflush(stdout) != 0) break;
        ts_testee_after_answer(&config);
    }
    free(line);
    ts_buf_free(&answer);
    ts_buf_free(&deferred.signal);
    return TS_EXIT_OK;
}
