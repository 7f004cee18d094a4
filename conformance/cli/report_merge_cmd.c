/* report_merge_cmd.c — `turnstile report --merge`: the N shard reports of one certification
 * (certify --shard K/N --report-json) joined into one certificate: the text report on stdout,
 * and the JSON report and JUnit a single run would have written (shard_merge.h). */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/certifier/builtin_suite.h"
#include "conformance/certifier/output_file.h"
#include "conformance/certifier/report.h"
#include "conformance/certifier/shard_merge.h"
#include "conformance/certifier/suite.h"
#include "conformance/cli/cli.h"

static const char merge_usage[] =
    "usage: turnstile report --merge SHARD.json... [--suite DIR] [--report-json FILE] [--junit FILE]\n"
    "\n"
    "Joins the JSON reports of the N shards of one certification (turnstile certify --shard K/N\n"
    "--report-json FILE, K = 1..N) into one certificate: its text report on stdout, and with\n"
    "--report-json / --junit the JSON report and JUnit a single run would have written (the same\n"
    "verdict, counts, rule table and test cases). It refuses shards of different suites, testees,\n"
    "turnstile versions or selections, a shard given twice or missing, and an interrupted shard.\n"
    "--suite DIR: the suite the shards were certified with, when it is not the built-in one.\n"
    "\n"
    "exit status: as certify's: 0 conformant, 1 not conformant, 3 a shard stopped on a harness\n"
    "failure, 4 undecided; 2 bad usage or shards that are not one run's.\n";

typedef struct merge_args {
    const char **paths;
    size_t count;
    const char *suite_root, *json_path, *junit_path;
} merge_args;

static int usage_error(const char *text, const char *value) {
    fprintf(stderr, "turnstile report --merge: %s%s (see turnstile report --merge --help)\n", text, value);
    return TS_EXIT_USAGE;
}

static int parse(int argc, char **argv, merge_args *a) {
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        bool has_value = i + 1 < argc;
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            fputs(merge_usage, stdout);
            return TS_EXIT_OK;
        } else if (!strcmp(o, "--merge")) {
            continue;
        } else if (!strcmp(o, "--suite") && has_value) {
            a->suite_root = argv[++i];
        } else if (!strcmp(o, "--report-json") && has_value) {
            a->json_path = argv[++i];
        } else if (!strcmp(o, "--junit") && has_value) {
            a->junit_path = argv[++i];
        } else if (o[0] == '-') {
            return usage_error("unknown option or missing value: ", o);
        } else {
            a->paths[a->count++] = o;
        }
    }
    return a->count ? -1 : usage_error("give the shards' JSON reports", "");
}

/* Writes one report through a temporary file (output_file.h). */
static bool write_report(const char *path, const ts_certification *c, const ts_report_context *ctx, bool junit) {
    if (!path) return true;
    ts_output_file o;
    char why[300];
    bool ok = ts_output_open(&o, path, why, sizeof why) &&
              (junit ? ts_report_junit(o.stream, c, ctx) : ts_report_json(o.stream, c, ctx)) && ts_output_commit(&o, why, sizeof why);
    if (!ok) {
        ts_output_discard(&o);
        fprintf(stderr, "turnstile report --merge: cannot write %s\n", path);
    }
    return ok;
}

static int merge(const merge_args *a) {
    ts_suite suite;
    ts_error err;
    ts_error_clear(&err);
    bool loaded = a->suite_root ? ts_suite_load(&suite, a->suite_root, &err) : ts_suite_load_files(&suite, &ts_builtin_suite, &err);
    if (!loaded) return usage_error("cannot load the suite: ", err.message);
    ts_shard_merge m;
    ts_certification c;
    char why[600];
    if (!ts_shard_merge_reports(&suite, a->paths, a->count, &m, &c, why, sizeof why)) {
        ts_suite_free(&suite);
        return usage_error("", why);
    }
    ts_buf after;
    ts_buf_init(&after);
    ts_buf_append_str(&after, " -- ");
    ts_buf_append_str(&after, c.testee);
    ts_report_context ctx = {"turnstile certify", after.data, NULL, NULL, NULL, NULL};
    ts_report_text(stdout, &c, &ctx, false);
    bool ok = write_report(a->json_path, &c, &ctx, false) && write_report(a->junit_path, &c, &ctx, true);
    int status = !ok ? TS_EXIT_FAILURE
                 : c.harness_failure[0] ? TS_EXIT_HARNESS
                 : !ts_report_conformant(&c) ? TS_EXIT_FAILURE
                 : ts_certification_undecided(&c) ? TS_EXIT_UNDECIDED : TS_EXIT_OK;
    if (fflush(stdout) != 0) status = TS_EXIT_FAILURE;
    ts_buf_free(&after);
    ts_certification_free(&c);
    ts_suite_free(&suite);
    return status;
}

int ts_cli_report_merge(int argc, char **argv) {
    merge_args a = {calloc((size_t)argc + 1, sizeof(char *)), 0, NULL, NULL, NULL};
    if (!a.paths) return TS_EXIT_FAILURE;
    int status = parse(argc, argv, &a);
    if (status < 0) status = merge(&a);
    free(a.paths);
    return status;
}
