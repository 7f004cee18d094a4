/* cli.h — the turnstile command line: one dispatcher, one function per subcommand.
 *
 * Owns: argument parsing, reading input files, writing results and mapping outcomes to exit
 * codes (0 success, 1 failures found — certify, check — or an internal failure such as out of
 * memory or a failed write, standard output included, 2 bad input or bad usage, 3 a harness
 * failure: certify's testee could not be started or never answered, so nothing was judged).
 * Semantics live in core/ (and later conformance/, fuzz/); nothing here decides what a merge
 * means.
 */
#ifndef TURNSTILE_CONFORMANCE_CLI_CLI_H
#define TURNSTILE_CONFORMANCE_CLI_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

enum { TS_EXIT_OK = 0, TS_EXIT_FAILURE = 1, TS_EXIT_USAGE = 2, TS_EXIT_HARNESS = 3 };

/* Strict numeric option values: the whole text, finite, within [min, max]. On failure they
 * print "turnstile COMMAND: OPTION needs ..., not 'TEXT'" to stderr and return false. */
bool ts_cli_parse_whole(const char *command, const char *option, const char *text, unsigned long long min,
                        unsigned long long max, unsigned long long *out);
bool ts_cli_parse_real(const char *command, const char *option, const char *text, double min_exclusive, double max,
                       double *out);

/* Reads all of path ("-" or NULL for stdin) into a malloc'd buffer (*data, NUL-terminated).
 * Returns 0, or prints "turnstile: PATH: reason" to stderr and returns non-zero. */
int ts_cli_read_file(const char *path, char **data, size_t *len);

/* The bundled example stream (conformance/examples/handoff.jsonl), compiled in. */
extern const unsigned char ts_cli_example_stream[];
extern const size_t ts_cli_example_stream_len;

int ts_cli_merge(int argc, char **argv);
int ts_cli_certify(int argc, char **argv);
int ts_cli_check(int argc, char **argv);
int ts_cli_testee(int argc, char **argv);
int ts_cli_gen(int argc, char **argv);
int ts_cli_canon(int argc, char **argv);
int ts_cli_taskkey(int argc, char **argv);
int ts_cli_run(int argc, char **argv);
int ts_cli_journal(int argc, char **argv);
int ts_cli_report(int argc, char **argv);

#endif
