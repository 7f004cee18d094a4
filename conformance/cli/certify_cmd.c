/* certify_cmd.c — `turnstile certify`: run the conformance suite against a testee. */
#include <stdlib.h>
#include <string.h>

#include "conformance/certifier/report.h"
#include "conformance/certifier/run.h"
#include "conformance/certifier/suite.h"
#include "conformance/certifier/testee.h"
#include "conformance/cli/cli.h"

static const char certify_usage[] =
    "usage: turnstile certify [options] --reference\n"
    "       turnstile certify [options] -- COMMAND [ARGS...]\n"
    "\n"
    "Runs the conformance suite against an implementation that speaks conformance/PROTOCOL.md\n"
    "(started once, kept running, restarted if it dies), or against the built-in reference.\n"
    "Each case is judged per rule by the property checkers (invariant conformance) and compared\n"
    "with its golden answer (reference equivalence, reported apart).\n"
    "\n"
    "options:\n"
    "  --reference               certify the built-in reference (in-process)\n"
    "  --mutant NAME             certify a built-in mutant (see turnstile testee --list-mutants)\n"
    "  --suite DIR               case directories (default: $TURNSTILE_SUITE or conformance/cases)\n"
    "  --cases GLOB[,GLOB]       only cases whose id matches (e.g. 'Merge.I2.*')\n"
    "  --rules ID[,ID]           only these rules (e.g. I2,I3), and the cases that exercise them\n"
    "  --report-json FILE        write a JSON report\n"
    "  --junit FILE              write JUnit XML (default under bazel test: $XML_OUTPUT_FILE)\n"
    "  --expected-failures FILE  exit 0 when the failing cases are exactly those listed; exit 1\n"
    "                            on a new failure, an unexpected pass or a stale entry\n"
    "  --write-expected-failures FILE   write this run's failing cases as such a list\n"
    "  --timeout SECONDS         per answer (default 5)\n"
    "  --max-answer-bytes N      per answer (default 16777216)\n"
    "  --no-repeat               do not send every case a second time (determinism, D1)\n"
    "  --kill-points all|none|N  resume cases: after the uninterrupted run, kill the testee at\n"
    "                            every point of it, at none, or at the first N (default all)\n"
    "  --kill-settle MS          resume cases: before a kill, wait until the testee has been silent\n"
    "                            MS milliseconds (for testees whose world calls run concurrently)\n"
    "  --verbose                 list passing and skipped cases too\n"
    "  --print-requests          print the request line of every selected case (as the testee\n"
    "                            would read it) and exit: no testee runs\n"
    "  --help                    this text\n"
    "\n"
    "exit status: 0 all selected cases pass (or match --expected-failures); 1 failures;\n"
    "2 bad usage or an unreadable suite. The last line of output is 'N passed, N failed, N skipped'.\n";

static size_t split_commas(char *list, const char **out, size_t max) {
    size_t n = 0;
    for (char *tok = strtok(list, ","); tok && n < max; tok = strtok(NULL, ",")) out[n++] = tok;
    return n;
}

int ts_cli_certify(int argc, char **argv) {
    bool reference = false, repeat = true, verbose = false, print_requests = false;
    const char *mutant_name = NULL, *suite_root = ts_suite_default_root(), *json_path = NULL, *junit_path = NULL;
    const char *expected_path = NULL, *write_expected = NULL;
    const char *rules[64], *globs[64];
    long kill_points = 0;
    size_t rule_count = 0, glob_count = 0;
    ts_testee_options testee_options = {5.0, (size_t)16 << 20, 20, 0};
    char **command = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        bool has_value = i + 1 < argc;
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(certify_usage, stdout);
            return TS_EXIT_OK;
        } else if (!strcmp(a, "--")) {
            command = argv + i + 1;
            break;
        } else if (!strcmp(a, "--reference")) {
            reference = true;
        } else if (!strcmp(a, "--no-repeat")) {
            repeat = false;
        } else if (!strcmp(a, "--verbose")) {
            verbose = true;
        } else if (!strcmp(a, "--print-requests")) {
            print_requests = true;
        } else if (!has_value) {
            fprintf(stderr, "turnstile certify: unknown option or missing value: '%s' (see --help)\n", a);
            return TS_EXIT_USAGE;
        } else if (!strcmp(a, "--mutant")) {
            mutant_name = argv[++i];
        } else if (!strcmp(a, "--suite")) {
            suite_root = argv[++i];
        } else if (!strcmp(a, "--cases")) {
            glob_count += split_commas(argv[++i], globs + glob_count, 64 - glob_count);
        } else if (!strcmp(a, "--rules")) {
            size_t first = rule_count;
            rule_count += split_commas(argv[++i], rules + rule_count, 64 - rule_count);
            for (size_t k = first; k < rule_count; k++) {
                if (!ts_rule_find(rules[k])) {
                    fprintf(stderr, "turnstile certify: no rule '%s' (rules: see conformance/SPEC.md)\n", rules[k]);
                    return TS_EXIT_USAGE;
                }
            }
        } else if (!strcmp(a, "--report-json")) {
            json_path = argv[++i];
        } else if (!strcmp(a, "--junit")) {
            junit_path = argv[++i];
        } else if (!strcmp(a, "--expected-failures")) {
            expected_path = argv[++i];
        } else if (!strcmp(a, "--write-expected-failures")) {
            write_expected = argv[++i];
        } else if (!strcmp(a, "--timeout")) {
            testee_options.timeout_seconds = atof(argv[++i]);
            if (testee_options.timeout_seconds <= 0) {
                fprintf(stderr, "turnstile certify: --timeout needs a positive number of seconds\n");
                return TS_EXIT_USAGE;
            }
        } else if (!strcmp(a, "--kill-points")) {
            const char *v = argv[++i];
            char *end = NULL;
            kill_points = !strcmp(v, "all") ? 0 : !strcmp(v, "none") ? -1 : strtol(v, &end, 10);
            if (end && (*end || kill_points < 1)) {
                fprintf(stderr, "turnstile certify: --kill-points takes all, none or a positive number\n");
                return TS_EXIT_USAGE;
            }
        } else if (!strcmp(a, "--kill-settle")) {
            testee_options.kill_settle_seconds = atof(argv[++i]) / 1000.0;
            if (testee_options.kill_settle_seconds <= 0) {
                fprintf(stderr, "turnstile certify: --kill-settle needs a positive number of milliseconds\n");
                return TS_EXIT_USAGE;
            }
        } else if (!strcmp(a, "--max-answer-bytes")) {
            testee_options.max_answer_bytes = (size_t)strtoull(argv[++i], NULL, 10);
        } else {
            fprintf(stderr, "turnstile certify: unknown option '%s' (see --help)\n", a);
            return TS_EXIT_USAGE;
        }
    }
    int chosen = reference + (mutant_name != NULL) + (command && command[0]);
    if (print_requests) {
        ts_suite suite;
        ts_error err;
        if (!ts_suite_load(&suite, suite_root, &err)) {
            fprintf(stderr, "turnstile certify: %s: %s\n", err.path, err.message);
            ts_suite_free(&suite);
            return TS_EXIT_USAGE;
        }
        ts_run_options selection = {rule_count ? rules : NULL, rule_count, glob_count ? globs : NULL, glob_count, false, 0};
        for (size_t i = 0; i < suite.count; i++) {
            if (ts_run_case_selected(&selection, &suite.cases[i])) {
                fwrite(suite.cases[i].request, 1, suite.cases[i].request_len, stdout);
                fputc('\n', stdout);
            }
        }
        ts_suite_free(&suite);
        return fflush(stdout) == 0 ? TS_EXIT_OK : TS_EXIT_FAILURE;
    }
    if (chosen != 1) {
        fprintf(stderr, "turnstile certify: name one testee: --reference, --mutant NAME, or -- COMMAND ARGS...\n");
        return TS_EXIT_USAGE;
    }
    const ts_mutant *mutant = NULL;
    if (mutant_name && !(mutant = ts_mutant_find(mutant_name))) {
        fprintf(stderr, "turnstile certify: no mutant '%s' (see turnstile testee --list-mutants)\n", mutant_name);
        return TS_EXIT_USAGE;
    }
    ts_suite suite;
    ts_error err;
    if (!ts_suite_load(&suite, suite_root, &err)) {
        fprintf(stderr, "turnstile certify: %s: %s\n", err.path, err.message);
        ts_suite_free(&suite);
        return TS_EXIT_USAGE;
    }
    char why[300] = "";
    ts_testee *testee = command ? ts_testee_spawn(command, &testee_options, why, sizeof why) : ts_testee_in_process(mutant);
    if (!testee) {
        fprintf(stderr, "turnstile certify: %s\n", why[0] ? why : "out of memory");
        ts_suite_free(&suite);
        return TS_EXIT_USAGE;
    }
    ts_run_options options = {rule_count ? rules : NULL, rule_count, glob_count ? globs : NULL, glob_count, repeat,
                              kill_points};
    ts_certification result;
    int status = TS_EXIT_OK;
    if (!ts_certify(&suite, testee, &options, &result)) {
        fprintf(stderr, "turnstile certify: out of memory\n");
        status = TS_EXIT_FAILURE;
    } else {
        /* The replay prefix names the testee the same way this run did. */
        char replay[1024];
        size_t used = (size_t)snprintf(replay, sizeof replay, "turnstile certify");
        if (strcmp(suite_root, "conformance/cases") != 0)
            used += (size_t)snprintf(replay + used, sizeof replay - used, " --suite %s", suite_root);
        if (reference) snprintf(replay + used, sizeof replay - used, " --reference");
        else if (mutant) snprintf(replay + used, sizeof replay - used, " --mutant %s", mutant->name);
        else {
            used += (size_t)snprintf(replay + used, sizeof replay - used, " --");
            for (char **c = command; *c && used < sizeof replay; c++)
                used += (size_t)snprintf(replay + used, sizeof replay - used, " %s", *c);
        }
        if (!junit_path && getenv("XML_OUTPUT_FILE") && *getenv("XML_OUTPUT_FILE")) junit_path = getenv("XML_OUTPUT_FILE");
        size_t passed, failed, skipped, errors;
        ts_certification_counts(&result, &passed, &failed, &skipped, &errors);
        if (expected_path) {
            ts_expected_failures expected;
            if (!ts_expected_failures_load(expected_path, &expected)) {
                status = TS_EXIT_USAGE;
            } else {
                char rewrite[1200];
                snprintf(rewrite, sizeof rewrite, "%.900s --write-expected-failures %s", replay, expected_path);
                ts_report_text(stdout, &result, replay, verbose);
                status = ts_expected_failures_match(&expected, &result, stdout, rewrite) ? TS_EXIT_OK : TS_EXIT_FAILURE;
                ts_expected_failures_free(&expected);
            }
        } else {
            ts_report_text(stdout, &result, replay, verbose);
            status = failed ? TS_EXIT_FAILURE : TS_EXIT_OK;
        }
        if (json_path && !ts_report_json(json_path, &result, suite_root)) {
            fprintf(stderr, "turnstile certify: cannot write %s\n", json_path);
            status = TS_EXIT_FAILURE;
        }
        if (junit_path && !ts_report_junit(junit_path, &result)) {
            fprintf(stderr, "turnstile certify: cannot write %s\n", junit_path);
            status = TS_EXIT_FAILURE;
        }
        if (write_expected && !ts_expected_failures_write(write_expected, &result)) {
            fprintf(stderr, "turnstile certify: cannot write %s\n", write_expected);
            status = TS_EXIT_FAILURE;
        }
        fflush(stdout);
    }
    ts_certification_free(&result);
    ts_testee_close(testee);
    ts_suite_free(&suite);
    return status;
}
