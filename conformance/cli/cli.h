/* cli.h — the turnstile command line: one dispatcher, one function per subcommand.
 *
 * Owns: argument parsing, reading input files, writing results and mapping outcomes to exit
 * codes (0 success, 1 failures found — certify, check — or an internal failure such as out of
 * memory or a failed write, standard output included, 2 bad input or bad usage, 3 a harness
 * failure: certify's testee could not be started or never answered, or check's checkers ran
 * out of memory, so nothing was judged; 4 undecided: certify and check found no failure, but
 * judging ran out of its budget before deciding an answer, so there is no verdict on it).
 * Semantics live in core/ (and later conformance/, fuzz/); nothing here decides what a merge
 * means.
 */
#ifndef TURNSTILE_CONFORMANCE_CLI_CLI_H
#define TURNSTILE_CONFORMANCE_CLI_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "conformance/checkers/budget.h"
#include "core/json/buf.h"
#include "core/json/error.h"

/* 3: the harness could not do its job (certify: the testee could not be started or kept
 * running; check: the checkers ran out of memory), distinct from a verdict (1) and from bad
 * usage (2). 4: no failure, but some answer was not decided within the judging budget. */
enum { TS_EXIT_OK = 0, TS_EXIT_FAILURE = 1, TS_EXIT_USAGE = 2, TS_EXIT_HARNESS = 3, TS_EXIT_UNDECIDED = 4 };

/* io.c. The exit status of a command that failed reading its input, chosen by the error's code
 * (never its text): bad input, or input that cannot be read, is TS_EXIT_USAGE (2); memory that
 * ran out, or anything refused, is TS_EXIT_FAILURE (1), an internal failure. */
int ts_cli_exit_for(const ts_error *err);

/* numbers.c. Strict numeric option values: the whole text, finite, within [min, max]. On
 * failure they print "turnstile COMMAND: OPTION needs ..., not 'TEXT'" to stderr and return
 * false. */
bool ts_cli_parse_whole(const char *command, const char *option, const char *text, unsigned long long min,
                        unsigned long long max, unsigned long long *out);
bool ts_cli_parse_real(const char *command, const char *option, const char *text, double min_exclusive, double max,
                       double *out);

/* --judge-states N and --judge-seconds S (check, certify) into budget; 0 is no limit. Print
 * the error and return false when the value is not one. */
bool ts_cli_parse_judge_states(const char *command, const char *text, ts_judge_budget *budget);
bool ts_cli_parse_judge_seconds(const char *command, const char *text, ts_judge_budget *budget);

/* What a command reads from one input at most unless --max-input-bytes says otherwise: 256 MiB.
 * `merge` streams (its memory follows the answer); the other commands hold the input whole. */
#define TS_CLI_MAX_INPUT_DEFAULT ((size_t)256 << 20)

/* The --max-input-bytes line every reading command's --help shows. */
#define TS_CLI_MAX_INPUT_HELP                                                                   \
    "  --max-input-bytes N  refuse an input longer than N bytes (K, M, G: binary multiples;\n" \
    "                       default 256M; 0: no bound)\n"

/* Parses --max-input-bytes' value: digits with an optional K, M or G (2^10, 2^20, 2^30).
 * Prints the error and returns false when it is not one. */
bool ts_cli_parse_max_input(const char *command, const char *text, size_t *out);

/* Opens path ("-" or NULL: stdin) for reading; a directory is refused with its reason. Prints
 * "turnstile: PATH: reason" and returns NULL on failure. */
FILE *ts_cli_open_input(const char *path);

/* Reads all of path ("-" or NULL for stdin), at most max_bytes (0: no bound), into a malloc'd
 * buffer (*data, NUL-terminated). Returns 0, or prints "turnstile: PATH: reason" to stderr and
 * returns non-zero. */
int ts_cli_read_input(const char *path, size_t max_bytes, char **data, size_t *len);

/* options.c. turnstile's version, and the commit it was built from ("unknown" unless the build
 * defines TURNSTILE_COMMIT, as ci/release.sh does). */
extern const char ts_cli_version[];
extern const char ts_cli_commit[];

/* A copy of argv (heap, free with ts_cli_free_args) in which every `--opt=value` before a
 * lone `--` is split into `--opt` `value`, so each subcommand accepts both spellings. */
char **ts_cli_split_equals(int argc, char **argv, int *new_argc);
void ts_cli_free_args(int argc, char **argv);

/* Appends word to out quoted for a POSIX shell (as is when it needs no quoting). */
void ts_cli_shell_quote(ts_buf *out, const char *word);

/* Appends how the user can run this turnstile again (quoted): $TURNSTILE_PROGRAM when a wrapper
 * set it, argv0 made absolute when it holds a '/', else argv0 as found on PATH. */
void ts_cli_program(const char *argv0, ts_buf *out);

/* The bundled example stream (conformance/examples/handoff.jsonl), compiled in. */
extern const unsigned char ts_cli_example_stream[];
extern const size_t ts_cli_example_stream_len;

/* Each subcommand gets argv[0] = its name; argv[-1] is the program's own argv[0]. */
int ts_cli_merge(int argc, char **argv);
int ts_cli_certify(int argc, char **argv);
int ts_cli_check(int argc, char **argv);
int ts_cli_testee(int argc, char **argv);
int ts_cli_gen(int argc, char **argv);
int ts_cli_canon(int argc, char **argv);
int ts_cli_fstrace(int argc, char **argv);
int ts_cli_taskkey(int argc, char **argv);
int ts_cli_run(int argc, char **argv);
int ts_cli_journal(int argc, char **argv);
int ts_cli_report(int argc, char **argv);

#endif
