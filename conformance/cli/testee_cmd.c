/* testee_cmd.c — `turnstile testee`: the reference (or a mutant) speaking the testee protocol
 * on stdin/stdout, so the certifier's pipe can be tried on a known-good program. */
#include <stdlib.h>
#include <string.h>

#include "conformance/cli/cli.h"
#include "conformance/testee/fork_server.h"
#include "conformance/testee/handler.h"
#include "conformance/testee/resume_handler.h"
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
    "  --help          this text\n"
    "\n"
    "With TURNSTILE_FORK_SERVER=FD in its environment it is a fork server (PROTOCOL.md): it forks\n"
    "a fresh testee for each start the certifier asks for on socket FD (hello says \"fork\": true).\n";

/* One line of stdin into line (reset first; its newline and a \r before it dropped), at most
 * TS_CLI_MAX_INPUT_DEFAULT bytes: past them *too_long, at once, the rest of the line unread
 * (skip_line). false at end of input. */
static bool read_line(ts_buf *line, bool *too_long) {
    ts_buf_reset(line);
    *too_long = false;
    int ch;
    bool any = false;
    while ((ch = getc_unlocked(stdin)) != EOF) {
        any = true;
        if (ch == '\n') break;
        if (line->len >= TS_CLI_MAX_INPUT_DEFAULT) {
            *too_long = true;
            ts_buf_reset(line);
            return true;
        }
        ts_buf_append_char(line, (char)ch);
    }
    while (line->len && line->data[line->len - 1] == '\r') line->len--;
    return any;
}

/* Reads to the end of the line (or of the input). */
static void skip_line(void) {
    int ch;
    while ((ch = getc_unlocked(stdin)) != EOF && ch != '\n') {
    }
}

/* The resume op's world calls: one line out on stdout, one reply line back on stdin. */
static bool stdio_exchange(void *context, const char *line, size_t len, ts_buf *reply) {
    (void)context;
    if (fwrite(line, 1, len, stdout) != len || fputc('\n', stdout) == EOF || fflush(stdout) != 0) return false;
    bool too_long;
    return read_line(reply, &too_long) && !too_long && !reply->failed;
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
    ts_fork_serve(); /* a fork server (PROTOCOL.md): returns in each instance, which starts here */
    ts_deferred_write deferred = {0};
    ts_buf_init(&deferred.signal);
    ts_testee_config config;
    ts_testee_config_init(&config, mutant);
    config.can_fork = true;
    config.exchange = stdio_exchange;
    config.store = store;
    config.synchronous = (int)synchronous;
    config.deferred = &deferred;
    ts_buf line, answer;
    ts_buf_init(&line);
    ts_buf_init(&answer);
    bool too_long;
    while (read_line(&line, &too_long)) {
        if (!line.len && !too_long) continue;
        ts_buf_reset(&answer);
        if (too_long) /* no id can be read from it: answered as such, and the next line is read */
            ts_buf_appendf(&answer, "{\"id\":null,\"error\":\"a request line longer than %zu bytes\"}",
                           (size_t)TS_CLI_MAX_INPUT_DEFAULT);
        else
            ts_testee_answer(&config, line.data, line.len, &answer);
        ts_buf_append_char(&answer, '\n');
        if (answer.failed || fwrite(answer.data, 1, answer.len, stdout) != answer.len || fflush(stdout) != 0) break;
        if (too_long) skip_line();
        ts_testee_after_answer(&config);
    }
    ts_buf_free(&line);
    ts_buf_free(&answer);
    ts_buf_free(&deferred.signal);
    return TS_EXIT_OK;
}
