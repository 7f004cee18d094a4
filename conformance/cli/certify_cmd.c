/* certify_cmd.c — `turnstile certify`: run the conformance suite against a testee. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "conformance/certifier/builtin_suite.h"
#include "conformance/certifier/gate.h"
#include "conformance/certifier/output_file.h"
#include "conformance/certifier/reference_testee.h"
#include "conformance/certifier/report.h"
#include "conformance/certifier/run.h"
#include "conformance/certifier/suite.h"
#include "conformance/certifier/supervise.h"
#include "conformance/certifier/testee.h"
#include "conformance/cli/certify_live.h"
#include "conformance/cli/cli.h"

static const char certify_usage[] =
    "usage: turnstile certify [options] --reference\n"
    "       turnstile certify [options] -- COMMAND [ARGS...]\n"
    "\n"
    "Runs the conformance suite against an implementation that speaks conformance/PROTOCOL.md\n"
    "(started once, kept running, restarted if it dies), or against the built-in reference.\n"
    "Each case is judged per rule by the property checkers (invariant conformance) and compared\n"
    "with its golden answer (reference equivalence, reported apart). Options come before `--`;\n"
    "everything after it is the testee's command. `--opt=value` is the same as `--opt value`.\n"
    "\n"
    "options:\n"
    "  --reference               certify the built-in reference (in-process)\n"
    "  --mutant NAME             certify a built-in mutant (see turnstile testee --list-mutants)\n"
    "  --suite DIR               case directories (default: $TURNSTILE_SUITE, else the suite built\n"
    "                            into this binary; turnstile --version names it)\n"
    "  --cases GLOB[,GLOB]       only cases whose id matches (e.g. 'Merge.I2.*'); a pattern that\n"
    "                            matches no case is an error\n"
    "  --rules ID[,ID]           only these rules (e.g. I2,I3), and the cases that exercise them\n"
    "  --platform NAME           set apart the cases whose input NAME's standard serializer cannot\n"
    "                            represent (dotnet: createdAt offsets beyond +-14:00, unknown\n"
    "                            content $type): reported on their own, counted in no verdict\n"
    "  --report-json FILE        write the JSON report (a certificate); '-' is stdout, and the\n"
    "                            text report then goes to stderr\n"
    "  --junit FILE              write JUnit XML (default under bazel test: $XML_OUTPUT_FILE)\n"
    "  --expected-failures FILE  gate on a list of known failures, one 'CASE RULE' per line\n"
    "                            (patterns; RULE '*' is any rule): exit 0 when the run fails exactly\n"
    "                            those; exit 1 on a new failure, an unexpected pass or a stale entry.\n"
    "                            Known failures are reported as expected (JUnit <skipped>)\n"
    "  --write-expected-failures FILE   write this run's failures as such a list ('-': stdout);\n"
    "                            an existing FILE is edited in place: entries that now pass go,\n"
    "                            new failures are added, comments, order and patterns stay\n"
    "  --timeout SECONDS         per answer, from when the testee has read the request (default 5;\n"
    "                            at most 3600)\n"
    "  --start-timeout SECONDS   per start, until the testee has read its first request (default 60;\n"
    "                            at most 3600): a slow start is timed apart from an answer\n"
    "  --case-timeout SECONDS    per case, kill runs included (default 600; at most 86400): a case\n"
    "                            still running then ends as 'case-timeout'\n"
    "  --max-answer-bytes N      per line the testee writes (default 16777216)\n"
    "  --max-points-per-action N resume cases: world calls and commit notices one action may\n"
    "                            write (default 1000); more ends the case as 'point-limit'\n"
    "  --no-repeat               do not send every case a second time (determinism, D1)\n"
    "  --kill-points all|none|N  resume cases: after the uninterrupted run, kill the testee at\n"
    "                            every point of it, at none, or at the first N (default all)\n"
    "  --kill-at P               resume cases: kill only at point P (one kill run a report names)\n"
    "  --kill-settle MS          resume cases: before a kill, wait until the testee has been silent\n"
    "                            MS milliseconds (for testees whose world calls run concurrently);\n"
    "                            0: never. Without it, kills settle on their own in the cases\n"
    "                            where pipelined world calls were seen (the report names them)\n"
    "  --nemesis KIND            resume cases: protocol (kills at world calls and commit notices),\n"
    "                            store (also after every change the testee makes to its store, seen\n"
    "                            by the file-system observer) or power-loss (also the crash states a\n"
    "                            power loss leaves: the default; a testee that cannot be observed,\n"
    "                            such as the in-process reference, gets protocol points)\n"
    "  --crash-state NAME        with --kill-at: the power-loss state to write there (a report names\n"
    "                            it: unsynced-lost, dropped:N, reordered:N, torn:N)\n"
    "  --exact-points            one kill run per point and crash state: none merged as the same\n"
    "                            experiment (the same action, answer and store changes)\n"
    "  --jobs N                  resume cases: play runs on N testees at once, each in a worker\n"
    "                            process of its own (default: the number of cores; 1: one testee).\n"
    "                            The report is the one --jobs 1 gives\n"
    "  --warm auto|fork|pool|off how a resume run restarts the testee: fork (a fork server forks a\n"
    "                            fresh instance: for testees whose hello says \"fork\": true), pool\n"
    "                            (the next process is started while the current one works), off (a\n"
    "                            new process each time); auto (the default) is fork for a testee\n"
    "                            whose hello says \"fork\": true, pool for any other\n"
    "  --shard K/N               run only the cases dealt to shard K of N (every Nth resume case and\n"
    "                            every Nth other case, from the Kth); turnstile report --merge joins\n"
    "                            the N shards' --report-json files into one certificate\n"
    "  --judge-states N          judging budget per answer: search states beyond one per response\n"
    "                            group (default 1000000; 0: no limit)\n"
    "  --judge-seconds S         judging budget per answer: CPU seconds of that search (default 10;\n"
    "                            0: no limit). An answer not decided within it is 'undecided':\n"
    "                            neither passed nor failed, reported and counted on its own\n"
    "  --verbose                 list passing, skipped, expected and set-apart cases too\n"
    "  --progress / --no-progress   show progress on stderr (default: when stderr is a terminal\n"
    "                            and $CI is not set)\n"
    "  --print-requests          print the request line of every selected case (as the testee\n"
    "                            would read it) and exit: no testee runs\n"
    "  --help                    this text\n"
    "\n"
    "Reports and the list are written to a temporary file beside FILE and renamed when complete:\n"
    "an interrupted or failed run leaves FILE as it was.\n"
    "\n"
    "exit status: 0 all selected cases pass (or match --expected-failures); 1 failures;\n"
    "2 bad usage or an unreadable suite; 3 the testee could not be started (a harness failure,\n"
    "no verdict); 4 no failure, but some answers undecided within the judging budget. The last\n"
    "line of output is 'N passed, N failed, N skipped' (', N undecided' when there are any).\n";

typedef struct certify_args {
    bool reference, repeat, verbose, print_requests;
    int progress; /* -1: decide by the terminal */
    const char *mutant_name, *suite_root, *json_path, *junit_path, *expected_path, *write_expected, *platform;
    const char *timeout_text, *max_answer_text, *kill_points_text, *kill_settle_text, *kill_at_text;
    const char *case_timeout_text, *max_points_text, *start_timeout_text, *jobs_text, *warm_text, *shard_text;
    int jobs, warm, shard_index, shard_count;
    double case_timeout;   /* 0: the default */
    long max_points;       /* 0: the default */
    const char *judge_states_text, *judge_seconds_text;
    ts_judge_budget budget;
    long kill_points; /* 0 all, -1 none, N the first N */
    long kill_at;     /* > 0: only this kill point */
    int nemesis;      /* TS_NEMESIS_* */
    const char *nemesis_text, *crash_state;
    bool exact_points;
    const char *cases_text[64], *rules_text[64]; /* as given, for the commands printed */
    size_t cases_given, rules_given;
    const char *rules[64], *globs[64];
    size_t rule_count, glob_count;
    ts_testee_options testee_options;
    char **command;
    char *owned[128];   /* copies strtok splits (heap) */
    size_t owned_count;
} certify_args;

/* A copy of s that a is responsible for freeing, or NULL. */
static char *own_copy(certify_args *a, const char *s) {
    if (a->owned_count == sizeof a->owned / sizeof *a->owned) return NULL;
    char *copy = strdup(s);
    if (copy) a->owned[a->owned_count++] = copy;
    return copy;
}

static size_t split_commas(char *list, const char **out, size_t max) {
    size_t n = 0;
    for (char *tok = strtok(list, ","); tok && n < max; tok = strtok(NULL, ",")) out[n++] = tok;
    return n;
}

static int usage_error(const char *fmt, const char *value) {
    fputs("turnstile certify: ", stderr);
    fprintf(stderr, fmt, value);
    fputs(" (see turnstile certify --help)\n", stderr);
    return TS_EXIT_USAGE;
}

/* Parses argv into a; returns -1 to go on, else the exit status. */
static int parse(int argc, char **argv, certify_args *a) {
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        bool has_value = i + 1 < argc;
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            fputs(certify_usage, stdout);
            return TS_EXIT_OK;
        } else if (!strcmp(o, "--")) {
            a->command = argv + i + 1;
            break;
        } else if (!strcmp(o, "--reference")) {
            a->reference = true;
        } else if (!strcmp(o, "--no-repeat")) {
            a->repeat = false;
        } else if (!strcmp(o, "--verbose")) {
            a->verbose = true;
        } else if (!strcmp(o, "--progress")) {
            a->progress = 1;
        } else if (!strcmp(o, "--no-progress")) {
            a->progress = 0;
        } else if (!strcmp(o, "--print-requests")) {
            a->print_requests = true;
        } else if (!strcmp(o, "--exact-points")) {
            a->exact_points = true;
        } else if (o[0] != '-') {
            return usage_error("'%s' is not an option: the testee's command goes after '--'", o);
        } else if (!has_value) {
            return usage_error("unknown option or missing value: '%s'", o);
        } else if (!strcmp(o, "--mutant")) {
            a->mutant_name = argv[++i];
        } else if (!strcmp(o, "--suite")) {
            a->suite_root = argv[++i];
        } else if (!strcmp(o, "--platform")) {
            a->platform = argv[++i];
            if (!ts_run_platform_known(a->platform)) return usage_error("no platform '%s' (known: dotnet)", a->platform);
        } else if (!strcmp(o, "--cases")) {
            if (a->cases_given < 64) a->cases_text[a->cases_given++] = argv[i + 1];
            char *work = own_copy(a, argv[++i]); /* strtok writes; the text is kept for printed commands */
            if (!work) return usage_error("%s", "too many --cases");
            a->glob_count += split_commas(work, a->globs + a->glob_count, 64 - a->glob_count);
        } else if (!strcmp(o, "--rules")) {
            if (a->rules_given < 64) a->rules_text[a->rules_given++] = argv[i + 1];
            char *work = own_copy(a, argv[++i]);
            if (!work) return usage_error("%s", "too many --rules");
            size_t first = a->rule_count;
            a->rule_count += split_commas(work, a->rules + a->rule_count, 64 - a->rule_count);
            for (size_t k = first; k < a->rule_count; k++)
                if (!ts_rule_find(a->rules[k])) return usage_error("no rule '%s' (rules: see conformance/SPEC.md)", a->rules[k]);
        } else if (!strcmp(o, "--report-json")) {
            a->json_path = argv[++i];
        } else if (!strcmp(o, "--junit")) {
            a->junit_path = argv[++i];
        } else if (!strcmp(o, "--expected-failures")) {
            a->expected_path = argv[++i];
        } else if (!strcmp(o, "--write-expected-failures")) {
            a->write_expected = argv[++i];
        } else if (!strcmp(o, "--timeout")) {
            a->timeout_text = argv[++i];
            char *end;
            double t = strtod(a->timeout_text, &end);
            if (end == a->timeout_text || *end || !isfinite(t) || t <= 0 || t > 3600)
                return usage_error("--timeout needs a number of seconds above 0 and at most 3600, not '%s'", a->timeout_text);
            a->testee_options.timeout_seconds = t;
        } else if (!strcmp(o, "--start-timeout")) {
            a->start_timeout_text = argv[++i];
            double t;
            if (!ts_cli_parse_real("certify", "--start-timeout", a->start_timeout_text, 0.001, 3600, &t)) return TS_EXIT_USAGE;
            a->testee_options.start_timeout_seconds = t;
        } else if (!strcmp(o, "--jobs")) {
            unsigned long long n = 0;
            a->jobs_text = argv[++i];
            if (!ts_cli_parse_whole("certify", "--jobs", a->jobs_text, 1, 64, &n)) return TS_EXIT_USAGE;
            a->jobs = (int)n;
        } else if (!strcmp(o, "--warm")) {
            const char *v = a->warm_text = argv[++i];
            if (!strcmp(v, "auto")) a->warm = TS_RUN_WARM_AUTO;
            else if (!strcmp(v, "fork")) a->warm = TS_WARM_FORK;
            else if (!strcmp(v, "pool")) a->warm = TS_WARM_POOL;
            else if (!strcmp(v, "off")) a->warm = TS_WARM_OFF;
            else return usage_error("--warm takes auto, fork, pool or off, not '%s'", v);
        } else if (!strcmp(o, "--shard")) {
            const char *v = a->shard_text = argv[++i];
            int k = 0, n = 0, used = 0;
            if (sscanf(v, "%d/%d%n", &k, &n, &used) != 2 || v[used] || n < 1 || n > 1000 || k < 1 || k > n)
                return usage_error("--shard takes K/N with 1 <= K <= N <= 1000, not '%s'", v);
            a->shard_index = k;
            a->shard_count = n;
        } else if (!strcmp(o, "--case-timeout")) {
            a->case_timeout_text = argv[++i];
            if (!ts_cli_parse_real("certify", "--case-timeout", a->case_timeout_text, 0, 86400, &a->case_timeout))
                return TS_EXIT_USAGE;
        } else if (!strcmp(o, "--max-points-per-action")) {
            unsigned long long n = 0;
            a->max_points_text = argv[++i];
            if (!ts_cli_parse_whole("certify", "--max-points-per-action", a->max_points_text, 1, 1000000, &n))
                return TS_EXIT_USAGE;
            a->max_points = (long)n;
        } else if (!strcmp(o, "--kill-points")) {
            const char *v = a->kill_points_text = argv[++i];
            unsigned long long n = 0;
            if (!strcmp(v, "all")) a->kill_points = 0;
            else if (!strcmp(v, "none")) a->kill_points = -1;
            else if (ts_cli_parse_whole("certify", "--kill-points", v, 1, 1000000, &n)) a->kill_points = (long)n;
            else return TS_EXIT_USAGE;
        } else if (!strcmp(o, "--kill-at")) {
            unsigned long long n = 0;
            a->kill_at_text = argv[++i];
            if (!ts_cli_parse_whole("certify", "--kill-at", a->kill_at_text, 1, 1000000, &n)) return TS_EXIT_USAGE;
            a->kill_at = (long)n;
        } else if (!strcmp(o, "--nemesis")) {
            const char *v = a->nemesis_text = argv[++i];
            if (!strcmp(v, "protocol")) a->nemesis = TS_NEMESIS_PROTOCOL;
            else if (!strcmp(v, "store")) a->nemesis = TS_NEMESIS_STORE;
            else if (!strcmp(v, "power-loss")) a->nemesis = TS_NEMESIS_POWER_LOSS;
            else return usage_error("--nemesis takes protocol, store or power-loss, not '%s'", v);
        } else if (!strcmp(o, "--crash-state")) {
            a->crash_state = argv[++i];
        } else if (!strcmp(o, "--kill-settle")) {
            double ms;
            a->kill_settle_text = argv[++i];
            if (!strcmp(a->kill_settle_text, "0")) ms = -1; /* never settle, not even where pipelining is seen */
            else if (!ts_cli_parse_real("certify", "--kill-settle", a->kill_settle_text, 0, 60000, &ms)) return TS_EXIT_USAGE;
            a->testee_options.kill_settle_seconds = ms > 0 ? ms / 1000.0 : -1;
        } else if (!strcmp(o, "--judge-states")) {
            a->judge_states_text = argv[++i];
            if (!ts_cli_parse_judge_states("certify", a->judge_states_text, &a->budget)) return TS_EXIT_USAGE;
        } else if (!strcmp(o, "--judge-seconds")) {
            a->judge_seconds_text = argv[++i];
            if (!ts_cli_parse_judge_seconds("certify", a->judge_seconds_text, &a->budget)) return TS_EXIT_USAGE;
        } else if (!strcmp(o, "--max-answer-bytes")) {
            a->max_answer_text = argv[++i];
            char *end;
            unsigned long long n = strtoull(a->max_answer_text, &end, 10);
            if (end == a->max_answer_text || *end || a->max_answer_text[0] == '-' || n < 64 || n > ((unsigned long long)1 << 32))
                return usage_error("--max-answer-bytes needs a whole number from 64 to 4294967296, not '%s'", a->max_answer_text);
            a->testee_options.max_answer_bytes = (size_t)n;
        } else {
            return usage_error("unknown option '%s'", o);
        }
    }
    return -1;
}

/* The words of the commands this run prints (replay, rewrite the list): options before the
 * case selection, the testee command after it; each quoted for the shell. */
static void printed_commands(const certify_args *a, const char *argv0, const ts_suite *suite, ts_buf *before, ts_buf *after) {
    ts_cli_program(argv0, before);
    ts_buf_append_str(before, " certify");
    if (strcmp(suite->root, "built-in") != 0) {
        ts_buf_append_str(before, " --suite ");
        ts_cli_shell_quote(before, suite->root);
    }
    if (a->platform) ts_buf_append_str(before, " --platform "), ts_cli_shell_quote(before, a->platform);
    if (a->timeout_text) ts_buf_append_str(before, " --timeout "), ts_cli_shell_quote(before, a->timeout_text);
    if (a->max_answer_text) ts_buf_append_str(before, " --max-answer-bytes "), ts_cli_shell_quote(before, a->max_answer_text);
    if (a->case_timeout_text) ts_buf_append_str(before, " --case-timeout "), ts_cli_shell_quote(before, a->case_timeout_text);
    if (a->max_points_text)
        ts_buf_append_str(before, " --max-points-per-action "), ts_cli_shell_quote(before, a->max_points_text);
    if (!a->repeat) ts_buf_append_str(before, " --no-repeat");
    if (a->kill_points_text) ts_buf_append_str(before, " --kill-points "), ts_cli_shell_quote(before, a->kill_points_text);
    if (a->kill_at_text) ts_buf_append_str(before, " --kill-at "), ts_cli_shell_quote(before, a->kill_at_text);
    if (a->kill_settle_text) ts_buf_append_str(before, " --kill-settle "), ts_cli_shell_quote(before, a->kill_settle_text);
    if (a->start_timeout_text) ts_buf_append_str(before, " --start-timeout "), ts_cli_shell_quote(before, a->start_timeout_text);
    if (a->warm_text) ts_buf_append_str(before, " --warm "), ts_cli_shell_quote(before, a->warm_text);
    if (a->nemesis_text) ts_buf_append_str(before, " --nemesis "), ts_cli_shell_quote(before, a->nemesis_text);
    if (a->exact_points) ts_buf_append_str(before, " --exact-points");
    if (a->judge_states_text) ts_buf_append_str(before, " --judge-states "), ts_cli_shell_quote(before, a->judge_states_text);
    if (a->judge_seconds_text) ts_buf_append_str(before, " --judge-seconds "), ts_cli_shell_quote(before, a->judge_seconds_text);
    if (a->reference) ts_buf_append_str(before, " --reference");
    if (a->mutant_name) ts_buf_append_str(before, " --mutant "), ts_cli_shell_quote(before, a->mutant_name);
    ts_buf_append_str(after, "");
    if (a->command) {
        ts_buf_append_str(after, " --");
        for (char **w = a->command; *w; w++) {
            ts_buf_append_char(after, ' ');
            ts_cli_shell_quote(after, *w);
        }
    }
}

/* Every --cases pattern must match a case of the suite, and the selection must not be empty. */
static bool selection_valid(const certify_args *a, const ts_suite *suite, const ts_run_options *selection) {
    for (size_t g = 0; g < a->glob_count; g++) {
        ts_run_options one = {.case_globs = &a->globs[g], .glob_count = 1};
        bool any = false;
        for (size_t i = 0; i < suite->count && !any; i++) any = ts_run_case_selected(&one, &suite->cases[i]);
        if (!any) {
            fprintf(stderr, "turnstile certify: --cases '%s' matches no case of the suite (%s, %zu cases)\n", a->globs[g],
                    suite->root, suite->count);
            return false;
        }
    }
    size_t selected = 0;
    for (size_t i = 0; i < suite->count; i++) selected += ts_run_case_selected(selection, &suite->cases[i]);
    if (!selected) {
        fprintf(stderr, "turnstile certify: no case is both in --cases and exercises a rule of --rules\n");
        return false;
    }
    return true;
}

/* The run's outputs, named now and written after the run: each opened before the testee starts
 * (an unwritable path fails first), as a temporary file renamed into place once complete. */
typedef struct outputs {
    ts_output_file json, junit, list;
    ts_expected_failures list_base; /* the list --write-expected-failures edits in place (empty: a new one) */
} outputs;

static bool open_output(ts_output_file *o, const char *path, const char *option) {
    char why[600];
    if (!path || ts_output_open(o, path, why, sizeof why)) return true;
    fprintf(stderr, "turnstile certify: %s %s\n", option, why);
    return false;
}

/* The list --write-expected-failures FILE edits: FILE as it is when it is a regular file; for
 * '-', the --expected-failures list. false (a usage error) when it is not a list. */
static bool load_list_base(const certify_args *a, ts_expected_failures *base) {
    memset(base, 0, sizeof *base);
    const char *from = strcmp(a->write_expected, "-") == 0 ? a->expected_path : a->write_expected;
    struct stat st;
    if (!from || stat(from, &st) != 0 || !S_ISREG(st.st_mode)) return true;
    char why[600];
    if (ts_expected_failures_load(from, base, why, sizeof why)) return true;
    fprintf(stderr, "turnstile certify: --write-expected-failures edits the list in place: %s (remove the file to "
                    "write a new list)\n", why);
    return false;
}

static bool open_outputs(const certify_args *a, outputs *o) {
    memset(o, 0, sizeof *o);
    return (!a->write_expected || load_list_base(a, &o->list_base)) &&
           open_output(&o->json, a->json_path, "--report-json") && open_output(&o->junit, a->junit_path, "--junit") &&
           open_output(&o->list, a->write_expected, "--write-expected-failures");
}

/* Moves a complete output into place; false (said on stderr) when it cannot be. */
static bool commit_output(ts_output_file *o) {
    char why[600];
    if (ts_output_commit(o, why, sizeof why)) return true;
    fprintf(stderr, "turnstile certify: cannot write %s\n", why);
    return false;
}

static void discard_outputs(outputs *o) {
    ts_output_discard(&o->json);
    ts_output_discard(&o->junit);
    ts_output_discard(&o->list);
    ts_expected_failures_free(&o->list_base);
}


static int load_suite(const certify_args *a, ts_suite *suite) {
    ts_error err;
    bool ok = a->suite_root ? ts_suite_load(suite, a->suite_root, &err) : ts_suite_load_files(suite, &ts_builtin_suite, &err);
    if (!ok) fprintf(stderr, "turnstile certify: %s: %s\n", err.path, err.message);
    return ok ? -1 : TS_EXIT_USAGE;
}

static int print_requests(const ts_suite *suite, const ts_run_options *selection) {
    const ts_case **cases = calloc(suite->count ? suite->count : 1, sizeof *cases);
    if (!cases) return TS_EXIT_FAILURE;
    size_t n = ts_run_shard_cases(suite, selection, cases, NULL);
    for (size_t i = 0; i < n; i++) {
        fwrite(cases[i]->request, 1, cases[i]->request_len, stdout);
        fputc('\n', stdout);
    }
    free(cases);
    return fflush(stdout) == 0 ? TS_EXIT_OK : TS_EXIT_FAILURE;
}

/* After the run: the gate, the reports, the exit status. The text report's blocks were streamed
 * (live); its summary comes now. An interrupted run writes its partial certificate and no list. */
static int report(const certify_args *a, ts_certification *result, ts_report_context ctx, ts_certify_live *live, outputs *o,
                  const ts_expected_failures *expected) {
    ts_gate_counts gate;
    char *gate_text = NULL;
    size_t gate_len = 0;
    bool gate_ok = true;
    if (expected) {
        ts_buf rewrite;
        ts_buf_init(&rewrite);
        ts_buf_append_str(&rewrite, ctx.replay_before);
        for (size_t k = 0; k < a->cases_given; k++) ts_buf_append_str(&rewrite, " --cases "), ts_cli_shell_quote(&rewrite, a->cases_text[k]);
        for (size_t k = 0; k < a->rules_given; k++) ts_buf_append_str(&rewrite, " --rules "), ts_cli_shell_quote(&rewrite, a->rules_text[k]);
        ts_buf_append_str(&rewrite, " --write-expected-failures ");
        ts_cli_shell_quote(&rewrite, a->expected_path);
        ts_buf_append_str(&rewrite, ctx.replay_after);
        FILE *mem = open_memstream(&gate_text, &gate_len);
        gate_ok = ts_gate_apply(expected, result, mem ? mem : stdout, rewrite.data ? rewrite.data : "", &gate);
        if (mem) fclose(mem);
        ts_buf_free(&rewrite);
        ctx.gate = &gate;
        ctx.gate_text = gate_text;
        ctx.expected = expected;
    }
    ts_certify_live_finish(live, result, &ctx);
    int status;
    if (result->interrupted) {
        fprintf(stderr, "turnstile certify: interrupted by signal %d: partial certificate (incomplete)\n", result->interrupted);
        status = 128 + result->interrupted;
    } else if (result->harness_failure[0]) {
        fprintf(stderr, "turnstile certify: %s: no verdict (exit 3)\n", result->harness_failure);
        status = TS_EXIT_HARNESS;
    } else if (expected) {
        status = gate_ok ? TS_EXIT_OK : TS_EXIT_FAILURE;
    } else {
        status = ts_report_conformant(result) ? TS_EXIT_OK : TS_EXIT_FAILURE;
    }
    if (status == TS_EXIT_OK && ts_certification_undecided(result)) status = TS_EXIT_UNDECIDED; /* no verdict on those */
    bool ok = true;
    if (o->json.stream) ok &= ts_report_json(o->json.stream, result, &ctx) && commit_output(&o->json);
    if (o->junit.stream) ok &= ts_report_junit(o->junit.stream, result, &ctx) && commit_output(&o->junit);
    if (o->list.stream && (result->harness_failure[0] || result->interrupted)) { /* no verdict: the list is left as it was */
        fprintf(stderr, "turnstile certify: %s not written: the run has no verdict\n", a->write_expected);
    } else if (o->list.stream) {
        ok &= ts_expected_failures_write(o->list.stream, result, &o->list_base) && commit_output(&o->list);
    }
    if (!ok && status == TS_EXIT_OK) status = TS_EXIT_FAILURE;
    if (fflush(stdout) != 0) status = status == TS_EXIT_OK ? TS_EXIT_FAILURE : status;
    discard_outputs(o); /* whatever was not committed */
    free(gate_text);
    return status;
}

static int certify(int argc, char **argv, certify_args *args);

int ts_cli_certify(int argc, char **argv) {
    certify_args a;
    memset(&a, 0, sizeof a);
    int status = certify(argc, argv, &a);
    for (size_t i = 0; i < a.owned_count; i++) free(a.owned[i]);
    return status;
}

/* The options' defaults, before the command line is read. */
static void set_defaults(certify_args *a) {
    a->repeat = true;
    a->progress = -1;
    a->nemesis = TS_NEMESIS_POWER_LOSS;
    a->suite_root = ts_suite_default_root();
    a->testee_options = (ts_testee_options){5.0, (size_t)16 << 20, 20, 0, 60.0};
    a->warm = TS_RUN_WARM_AUTO;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    a->jobs = cores > 64 ? 64 : cores < 1 ? 1 : (int)cores;
}

/* The run against testee, its reports written; the exit status. A signal deferred meanwhile
 * ends the process by that signal once the partial answer is written. */
static int run_and_report(certify_args *a, const char *argv0, const ts_suite *suite, ts_testee *testee,
                          ts_run_options *options, outputs *out, ts_expected_failures *expected) {
    int status;
    ts_buf before, after;
    ts_buf_init(&before);
    ts_buf_init(&after);
    printed_commands(a, argv0, suite, &before, &after);
    ts_report_context ctx = {before.data ? before.data : "turnstile certify", after.data ? after.data : "", NULL, NULL,
                             a->expected_path, NULL};
    ts_certify_live live = {.text = out->json.stream == stdout || out->junit.stream == stdout || out->list.stream == stdout
                                        ? stderr : stdout,
                            .progress = a->progress == 1 || (a->progress == -1 && isatty(STDERR_FILENO) &&
                                                             !(getenv("CI") && *getenv("CI"))),
                            .verbose = a->verbose, .ctx = &ctx, .expected = a->expected_path ? expected : NULL};
    options->progress = ts_certify_live_progress;
    options->decided = ts_certify_live_decided;
    options->progress_context = &live;
    ts_child_defer_signals(); /* a CI timeout's SIGTERM leaves a partial certificate */
    ts_certification result;
    result.turnstile_version = ts_cli_version;
    result.turnstile_commit = ts_cli_commit;
    if (!ts_certify(suite, testee, options, &result)) {
        fprintf(stderr, "turnstile certify: out of memory\n");
        status = TS_EXIT_FAILURE;
    } else {
        status = report(a, &result, ctx, &live, out, a->expected_path ? expected : NULL);
    }
    ts_certification_free(&result);
    ts_testee_close(testee);
    ts_buf_free(&before);
    ts_buf_free(&after);
    int sig = ts_child_interrupted();
    if (sig) { /* the partial answer is written: end as the signal would have */
        fflush(NULL);
        ts_child_end_by_signal(sig);
    }
    return status;
}

static int certify(int argc, char **argv, certify_args *a) {
    set_defaults(a);
    int status = parse(argc, argv, a);
    if (status >= 0) return status;
    ts_run_options options = {a->rule_count ? a->rules : NULL, a->rule_count, a->glob_count ? a->globs : NULL, a->glob_count,
                              a->repeat, a->platform, NULL, NULL, NULL, a->kill_points, a->kill_at, a->case_timeout, a->max_points,
                              a->nemesis, a->crash_state, a->exact_points, NULL, a->warm, a->jobs, a->shard_index,
                              a->shard_count, 0, a->budget};
    int chosen = a->reference + (a->mutant_name != NULL) + (a->command && a->command[0]);
    if (!a->print_requests && chosen != 1)
        return usage_error("%s", "name one testee: --reference, --mutant NAME, or -- COMMAND ARGS...");
    const ts_mutant *mutant = NULL;
    if (a->mutant_name && !(mutant = ts_mutant_find(a->mutant_name)))
        return usage_error("no mutant '%s' (see turnstile testee --list-mutants)", a->mutant_name);
    int outputs_to_stdout = (a->json_path && !strcmp(a->json_path, "-")) + (a->junit_path && !strcmp(a->junit_path, "-")) +
                            (a->write_expected && !strcmp(a->write_expected, "-"));
    if (outputs_to_stdout > 1) return usage_error("%s", "only one of --report-json, --junit, --write-expected-failures may be '-'");
    ts_suite suite;
    if ((status = load_suite(a, &suite)) >= 0) {
        ts_suite_free(&suite);
        return status;
    }
    if (!selection_valid(a, &suite, &options)) {
        ts_suite_free(&suite);
        return TS_EXIT_USAGE;
    }
    if (a->print_requests) {
        status = print_requests(&suite, &options);
        ts_suite_free(&suite);
        return status;
    }
    /* Everything that can be wrong with the command line is found before the testee runs. */
    ts_expected_failures expected;
    memset(&expected, 0, sizeof expected);
    char why[600] = "";
    if (a->expected_path && !ts_expected_failures_load(a->expected_path, &expected, why, sizeof why)) {
        fprintf(stderr, "turnstile certify: %s\n", why);
        ts_suite_free(&suite);
        return TS_EXIT_USAGE;
    }
    if (!a->junit_path && getenv("XML_OUTPUT_FILE") && *getenv("XML_OUTPUT_FILE")) a->junit_path = getenv("XML_OUTPUT_FILE");
    outputs out;
    bool outputs_ok = open_outputs(a, &out);
    ts_testee *testee = NULL;
    if (outputs_ok) {
        why[0] = '\0';
        testee = a->command ? ts_testee_spawn(a->command, &a->testee_options, why, sizeof why) : ts_testee_in_process(mutant);
        if (!testee) fprintf(stderr, "turnstile certify: %s: no verdict (exit 3)\n", why[0] ? why : "out of memory");
    }
    status = !outputs_ok ? TS_EXIT_USAGE : !testee ? TS_EXIT_HARNESS : TS_EXIT_OK;
    if (testee) status = run_and_report(a, argv[-1], &suite, testee, &options, &out, &expected);
    discard_outputs(&out); /* not written (no run): each destination stays as it was */
    ts_expected_failures_free(&expected);
    ts_suite_free(&suite);
    return status;
}
