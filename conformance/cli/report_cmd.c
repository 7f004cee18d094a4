/* report_cmd.c — `turnstile report`: a compliance table (rule × implementation) from any set
 * of certify JSON reports, as Markdown or one self-contained HTML page. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/certifier/table.h"
#include "conformance/cli/cli.h"

static const char report_usage[] =
    "usage: turnstile report REPORT.json [--classes LIST]... [--markdown | --html] [--out FILE]\n"
    "\n"
    "Renders a compliance table from certify reports (turnstile certify --report-json FILE): one\n"
    "row per rule, one column per report (named after its file), each cell pass, fail (N), skipped\n"
    "or not judged, each failure linked to a list giving, per implementation and rule, a case that\n"
    "shows it and a one-line reason. --markdown (the default) writes GitHub Markdown; --html one\n"
    "self-contained page. Written on stdout, or to FILE. --classes LIST (after a report) says whose\n"
    "failure each of that report's failures is: an expected-failures list whose entries end in\n"
    "'# class: library-defect|documented|integration WHERE [FINDING]' (a finding's own class in the\n"
    "report comes first); each failing cell and each implementation then counts its cases by class.\n"
    "\n"
    "exit status: 0 written; 2 bad usage or a file that is not a certify report; 1 a write failed.\n";

int ts_cli_report(int argc, char **argv) {
    bool html = false;
    const char *out_path = NULL;
    const char **paths = calloc((size_t)argc + 1, sizeof *paths), **class_paths = calloc((size_t)argc + 1, sizeof *class_paths);
    size_t count = 0;
    if (!paths || !class_paths) {
        free(paths);
        free(class_paths);
        return TS_EXIT_FAILURE;
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(report_usage, stdout);
            free(paths);
            free(class_paths);
            return TS_EXIT_OK;
        } else if (strcmp(argv[i], "--markdown") == 0) {
            html = false;
        } else if (strcmp(argv[i], "--html") == 0) {
            html = true;
        } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            out_path = argv[++i];
        } else if (strcmp(argv[i], "--classes") == 0 && i + 1 < argc && count > 0 && !class_paths[count - 1]) {
            class_paths[count - 1] = argv[++i];
        } else if (argv[i][0] == '-') {
            fprintf(stderr, "turnstile report: unknown option or missing value '%s'%s (see turnstile report --help)\n", argv[i],
                    strcmp(argv[i], "--classes") == 0 ? ", or --classes not after a report of its own" : "");
            free(paths);
            free(class_paths);
            return TS_EXIT_USAGE;
        } else {
            paths[count++] = argv[i];
        }
    }
    if (count == 0) {
        fprintf(stderr, "turnstile report: give at least one certify report (see turnstile report --help)\n");
        free(paths);
        free(class_paths);
        return TS_EXIT_USAGE;
    }
    ts_table table;
    ts_error err;
    ts_error_clear(&err);
    int status = TS_EXIT_OK;
    if (!ts_table_load(&table, paths, class_paths, count, &err)) {
        fprintf(stderr, "turnstile report: %s%s%s%s\n", err.message, err.path[0] ? " (field " : "", err.path,
                err.path[0] ? ")" : "");
        status = TS_EXIT_USAGE;
    } else {
        FILE *out = out_path ? fopen(out_path, "w") : stdout;
        if (!out) {
            fprintf(stderr, "turnstile report: cannot write %s\n", out_path);
            status = TS_EXIT_FAILURE;
        } else {
            bool ok = html ? ts_table_html(out, &table) : ts_table_markdown(out, &table);
            ok = (out_path ? fclose(out) == 0 : fflush(out) == 0) && ok;
            if (!ok) {
                fprintf(stderr, "turnstile report: cannot write the table\n");
                status = TS_EXIT_FAILURE;
            }
        }
    }
    ts_table_free(&table);
    free(paths);
    free(class_paths);
    return status;
}
