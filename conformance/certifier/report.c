/* report.c — the text report and what the reports share; see report.h (report_json.c writes the
 * JSON certificate, report_junit.c the JUnit XML). */
#include "conformance/certifier/report.h"

#include <stdlib.h>
#include <string.h>

#include "conformance/certifier/pipelining_report.h"
#include "conformance/certifier/report_internal.h"
#include "core/json/buf.h"
#include "core/json/codec.h"
#include "core/json/utf8.h"

static bool failing(const ts_case_result *r) { return r->verdict == TS_VERDICT_FAIL || r->verdict == TS_VERDICT_ERROR; }

/* Does a resume case branch (an edit or a fork)? The branch rules U12-U15 are judged on those. */
static bool case_branches(const ts_case *c) {
    for (size_t i = 0; i < c->scenario.event_count; i++)
        if (c->scenario.events[i].kind == TS_EVENT_EDIT || c->scenario.events[i].kind == TS_EVENT_FORK) return true;
    return false;
}

/* The run's verdict, as the reports name it (report.h): a run with no failure but undecided
 * cases has no verdict of conformance (never a pass), and no failure either. */
const char *ts_report_verdict(const ts_certification *c) {
    if (c->harness_failure[0]) return "not certified";
    if (c->interrupted) return "incomplete";
    if (!ts_report_conformant(c)) return "not conformant";
    return ts_certification_undecided(c) ? "undecided" : "conformant";
}

/* Which cases a rule is judged on: host rules (H) on host cases, the resume engine's (J) on
 * journal cases, the universal ones (U) on resume cases (U12-U15 on those that branch), D1 on
 * every case, the merge rules on merge and host cases (a host's answer holds a merged response). */
static bool rule_applies(const char *rule, const ts_case *c) {
    const char *op = c->op;
    if (rule[0] == 'H') return strcmp(op, "host") == 0;
    if (rule[0] == 'J') return strcmp(op, "journal") == 0;
    if (rule[0] == 'U' && strlen(rule) == 3 && rule[1] == '1' && rule[2] >= '2' && rule[2] <= '5')
        return strcmp(op, "resume") == 0 && case_branches(c);
    if (rule[0] == 'U') return strcmp(op, "resume") == 0;
    if (strcmp(op, "resume") == 0) return false; /* the certifier's own runs: no D1, no merge rules */
    if (strcmp(rule, "D1") == 0) return true;
    return strcmp(op, "journal") != 0;
}

void ts_report_rule_counts(const ts_certification *c, const char *rule, size_t *passed, size_t *failed, size_t *skipped) {
    *passed = *failed = *skipped = 0;
    for (size_t i = 0; i < c->count; i++) {
        const ts_case_result *r = &c->results[i];
        if (r->apart || !rule_applies(rule, r->c)) continue;
        if (r->verdict == TS_VERDICT_SKIPPED || r->verdict == TS_VERDICT_ERROR || r->verdict == TS_VERDICT_UNDECIDED) (*skipped)++;
        else if (ts_findings_has(&r->findings, rule)) (*failed)++;
        else (*passed)++;
    }
}

/* A rule passes a level's count when some case judged it and none failed it. */
void ts_report_level_counts(const ts_certification *c, ts_level level, size_t *passed, size_t *judged) {
    *passed = *judged = 0;
    for (size_t k = 0; k < ts_rule_count; k++) {
        if (ts_rules[k].level != level || !ts_run_rule_selected(c->options, ts_rules[k].id)) continue;
        size_t p, f, s;
        ts_report_rule_counts(c, ts_rules[k].id, &p, &f, &s);
        if (p + f == 0) continue;
        (*judged)++;
        *passed += f == 0;
    }
}

bool ts_report_conformant(const ts_certification *c) {
    size_t passed, failed, skipped, errors;
    ts_certification_counts(c, &passed, &failed, &skipped, &errors);
    return failed == 0 && !c->harness_failure[0] && !c->interrupted;
}

/* ------------------------------------------------------------------------------ text ------- */

void ts_report_clean_text(ts_buf *out, const char *s, size_t len, bool keep_newlines) {
    ts_buf valid;
    ts_buf_init(&valid);
    ts_utf8_append_valid(&valid, s ? s : "", s ? len : 0);
    const unsigned char *p = (const unsigned char *)(valid.data ? valid.data : "");
    for (size_t i = 0; i < valid.len;) {
        size_t n = ts_utf8_sequence(p + i, valid.len - i);
        unsigned c = p[i];
        unsigned second = n > 1 ? p[i + 1] : 0, third = n > 2 ? p[i + 2] : 0;
        if ((c < 0x20 && c != '\t' && !(c == '\n' && keep_newlines)) || c == 0x7f)
            ts_buf_appendf(out, "\\x%02x", c);
        else if (c == 0xC2 && second >= 0x80 && second <= 0x9F) /* C1 controls: CSI, OSC, ... */
            ts_buf_appendf(out, "\\u%04x", second);
        else if (c == 0xE2 && ((second == 0x80 && third >= 0xAA && third <= 0xAE) || (second == 0x81 && third >= 0xA6 && third <= 0xA9)))
            ts_buf_appendf(out, "\\u%04x", 0x2000 + ((second & 0x3F) << 6) + (third & 0x3F)); /* bidirectional overrides */
        else
            ts_buf_append(out, (const char *)p + i, n);
        i += n;
    }
    ts_buf_free(&valid);
}

/* A resume case that failed in a kill run: the command that replays its first failing kill run
 * (--kill-at, and --crash-state for a power loss), from the history's failingKillPoints. */
static void print_kill_replay(FILE *out, const ts_case_result *r, const ts_report_context *ctx) {
    if (!r->answer || strcmp(r->c->op, "resume") != 0) return;
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json history;
    ts_error err;
    if (ts_codec_parse(&arena, r->answer, strlen(r->answer), &history, &err)) {
        const ts_json *points = ts_json_get(&history, "failingKillPoints");
        const ts_json *first = points && points->kind == TS_JSON_ARRAY && points->u.a.count ? &points->u.a.items[0] : NULL;
        const ts_json *point = ts_json_get(first, "point");
        ts_str state = ts_json_string(ts_json_get(first, "crashState"));
        if (point && point->kind == TS_JSON_INT) {
            fprintf(out, "      replay its first failing kill run: %s --kill-at %lld", ctx->replay_before, (long long)point->u.i);
            if (state.ptr) fprintf(out, " --crash-state %.*s", (int)state.len, state.ptr);
            fprintf(out, " --cases %s%s\n", r->c->id, ctx->replay_after);
        }
    }
    ts_arena_free(&arena);
}

/* Text from the testee (or that quotes it) on a terminal: no control character, escape or
 * override reaches it; newlines only where the layout has them (keep_newlines). */
static void put_clean(FILE *out, const char *s, bool keep_newlines) {
    ts_buf clean;
    ts_buf_init(&clean);
    ts_report_clean_text(&clean, s, s ? strlen(s) : 0, keep_newlines);
    if (clean.len) fwrite(clean.data, 1, clean.len, out);
    ts_buf_free(&clean);
}


/* The durability a certification's resume cases show (SPEC §6.4): "none" when some case breaks
 * U9, "process-crash" when one breaks U11 (other than by a tool re-run, U11 naming U7: that grades
 * the tools, not what survives of the answered actions) or ran without power loss, "power-loss" otherwise;
 * NULL when no resume case was judged. Sums their points into the counts given. */
const char *ts_report_durability(const ts_certification *c, const char **nemesis, long counts[5]) {
    bool any = false, u9 = false, u11 = false, all_power = true;
    *nemesis = NULL;
    for (int k = 0; k < 5; k++) counts[k] = 0;
    for (size_t i = 0; i < c->count; i++) {
        const ts_case_result *r = &c->results[i];
        if (strcmp(r->c->op, "resume") != 0 || r->apart || r->verdict == TS_VERDICT_SKIPPED || !r->answer) continue;
        any = true;
        for (size_t k = 0; k < r->findings.count; k++) {
            u9 |= strcmp(r->findings.items[k].rule, "U9") == 0;
            const ts_finding *f = &r->findings.items[k];
            u11 |= strcmp(f->rule, "U11") == 0 && !(f->named && strcmp(f->named, "U7") == 0);
        }
        ts_arena arena;
        ts_arena_init(&arena);
        ts_json h;
        ts_error err;
        if (ts_codec_parse(&arena, r->answer, strlen(r->answer), &h, &err)) {
            ts_str kind = ts_json_string(ts_json_get(&h, "nemesis"));
            all_power &= ts_str_eq_cstr(kind, "power-loss");
            if (!*nemesis || !ts_str_eq_cstr(kind, *nemesis))
                *nemesis = ts_str_eq_cstr(kind, "power-loss") ? "power-loss" : ts_str_eq_cstr(kind, "store") ? "store" : "protocol";
            const ts_json *p = ts_json_get(&h, "points");
            const char *keys[5] = {"protocol", "store", "killRuns", "merged", "powerLossNotMade"};
            for (int k = 0; k < 5; k++) {
                const ts_json *v = ts_json_get(p, keys[k]);
                counts[k] += v && v->kind == TS_JSON_INT ? (long)v->u.i : 0;
            }
        }
        ts_arena_free(&arena);
    }
    if (!any) return NULL;
    /* power-loss only when crash states were judged: store points and kill runs (a store on a
     * server, or --kill-points none, shows none) */
    bool crash_states = counts[1] > 0 && counts[2] > 0;
    return u9 ? "none" : (u11 || !all_power || !crash_states) ? "process-crash" : "power-loss";
}

void ts_report_text_header(FILE *out, const ts_certification *c) {
    fputs("turnstile certify: ", out);
    put_clean(out, c->testee, false);
    if (c->testee_name) {
        fputs(" (", out);
        put_clean(out, c->testee_name, false);
        if (c->testee_version) fputc(' ', out);
        put_clean(out, c->testee_version, false);
        fputc(')', out);
    }
    fprintf(out, "\nturnstile %s (commit %s), suite %s (%s, sha256 %.16s), %s\n", c->turnstile_version ? c->turnstile_version : "?",
            c->turnstile_commit ? c->turnstile_commit : "unknown", c->suite ? c->suite->version : "?",
            c->suite ? c->suite->root : "?", c->suite ? c->suite->hash : "", c->date);
    if (c->options && c->options->shard_count > 1)
        fprintf(out, "shard %d of %d (turnstile report --merge joins the shards' JSON reports)\n", c->options->shard_index,
                c->options->shard_count);
}

bool ts_report_text_case(FILE *out, const ts_certification *c, const ts_case_result *r, bool expected,
                         const ts_report_context *ctx, bool verbose) {
    (void)c;
    bool warn = r->verdict == TS_VERDICT_PASS && r->findings.count > 0;
    if (r->apart && !verbose) return false;
    if (expected && !verbose) return false;
    if (r->verdict == TS_VERDICT_PASS && !warn && !verbose) return false;
    if (r->verdict == TS_VERDICT_SKIPPED && !verbose) return false;
    bool undecided = r->verdict == TS_VERDICT_UNDECIDED;
    const char *label = r->apart ? "APART" : expected ? "XFAIL" : warn ? "WARN" : r->verdict == TS_VERDICT_FAIL ? "FAIL"
                        : r->verdict == TS_VERDICT_ERROR ? "ERROR" : r->verdict == TS_VERDICT_SKIPPED ? "SKIP"
                        : undecided ? "UNDECIDED" : "PASS";
    fprintf(out, "%-5s %s", label, r->c->id);
    if (r->apart) fprintf(out, "  (%s: %s)", r->apart, ts_verdict_name(r->verdict));
    if (r->verdict == TS_VERDICT_ERROR || r->verdict == TS_VERDICT_SKIPPED) {
        fprintf(out, "  %s: ", r->outcome);
        put_clean(out, r->detail, false);
    }
    if (undecided) {
        fputs("  ", out);
        put_clean(out, r->detail, false);
    }
    fputc('\n', out);
    for (size_t k = 0; k < r->findings.count; k++) {
        const ts_rule_info *info = ts_rule_find(r->findings.items[k].rule);
        fprintf(out, "      [%s%s] ", r->findings.items[k].rule, info && info->level == TS_LEVEL_RECOMMENDED ? ", recommended" : "");
        put_clean(out, r->findings.items[k].message, false);
        fputc('\n', out);
    }
    if (r->findings.suppressed) fprintf(out, "      (%zu more findings)\n", r->findings.suppressed);
    if (r->stderr_tail && *r->stderr_tail) {
        const char *tail = r->stderr_tail;
        size_t len = strlen(tail);
        if (len > 600) tail += len - 600;
        fputs("      testee stderr (end): ", out);
        put_clean(out, tail, true);
        if (tail[strlen(tail) - 1] != '\n') fputc('\n', out);
    }
    if ((failing(r) || undecided) && !r->apart && !expected && ctx) {
        fprintf(out, "      replay: %s --cases %s%s\n", ctx->replay_before, r->c->id, ctx->replay_after);
        print_kill_replay(out, r, ctx);
    }
    return true;
}

/* The run's costs and, interrupted, what it left undone. */
static void text_run_lines(FILE *out, const ts_certification *c) {
    if (c->execs || c->forked)
        fprintf(out, "testee processes: %ld started (%ld of them taken from the pool), %ld forked by a fork server\n", c->execs,
                c->pooled, c->forked);
    if (c->interrupted) {
        fprintf(out, "interrupted by signal %d: %zu cases decided, %zu in flight (", c->interrupted, c->count, c->in_flight_count);
        for (size_t i = 0; i < c->in_flight_count; i++) fprintf(out, "%s%s", i ? ", " : "", c->in_flight[i]->id);
        fprintf(out, "), %zu not run\n", c->not_run);
    }
}

/* The rule table: every selected rule some case that ran is judged on. */
static void text_rule_table(FILE *out, const ts_certification *c) {
    fprintf(out, "\nrule  level        passed  failed  skipped  what\n");
    for (size_t k = 0; k < ts_rule_count; k++) {
        const ts_rule_info *info = &ts_rules[k];
        if (!ts_run_rule_selected(c->options, info->id)) continue;
        size_t p, f, s;
        ts_report_rule_counts(c, info->id, &p, &f, &s);
        bool applies = false; /* only rules some case that ran is judged on */
        for (size_t i = 0; i < c->count && !applies; i++) applies = !c->results[i].apart && rule_applies(info->id, c->results[i].c);
        if (!applies) continue;
        fprintf(out, "%-5s %-12s %6zu  %6zu  %7zu  %s\n", info->id,
                info->level == TS_LEVEL_REQUIRED ? "Required" : "Recommended", p, f, s, info->title);
    }
}

/* The cases --platform set apart, or (without it) how many a .NET testee could not represent;
 * then reference equivalence, where a golden answer can mean something. */
static void text_notes(FILE *out, const ts_certification *c, size_t apart) {
    if (apart) {
        size_t apart_failed = 0;
        for (size_t i = 0; i < c->count; i++) apart_failed += c->results[i].apart && failing(&c->results[i]);
        fprintf(out, "\nset apart (--platform %s): %zu cases whose input the platform's standard serializer cannot represent\n"
                     "(%s, %s); %zu of them fail. They count in no figure above (--verbose lists them).\n",
                c->options->platform, apart, TS_TAG_OFFSET_BEYOND_14H, TS_TAG_UNKNOWN_CONTENT_TYPE, apart_failed);
    } else if (!c->options->platform) {
        size_t tagged = 0;
        for (size_t i = 0; i < c->count; i++) tagged += c->results[i].c->tag_count > 0;
        if (tagged)
            fprintf(out, "\n%zu cases use inputs .NET's standard serializer cannot represent (%s, %s): a .NET testee "
                         "fails them before its merger runs; --platform dotnet reports them apart.\n",
                    tagged, TS_TAG_OFFSET_BEYOND_14H, TS_TAG_UNKNOWN_CONTENT_TYPE);
    }
    size_t equal = 0, judged = 0;
    for (size_t i = 0; i < c->count; i++) {
        if (c->results[i].equivalent < 0 || c->results[i].apart) continue;
        judged++;
        equal += c->results[i].equivalent == 1;
    }
    if (judged) /* only where a golden answer can mean something */
        fprintf(out, "\nreference equivalence: %zu of %zu answers equal the golden answer\n", equal, judged);
}

/* "verdict: ...": the run's, with the levels' rule counts and the cases that pass. */
static void text_verdict(FILE *out, const ts_certification *c, const ts_report_context *ctx, size_t apart, size_t expected) {
    size_t passed, failed, skipped, errors;
    ts_certification_counts(c, &passed, &failed, &skipped, &errors);
    size_t req_pass, req_all, rec_pass, rec_all;
    ts_report_level_counts(c, TS_LEVEL_REQUIRED, &req_pass, &req_all);
    ts_report_level_counts(c, TS_LEVEL_RECOMMENDED, &rec_pass, &rec_all);
    size_t undecided = ts_certification_undecided(c);
    if (c->harness_failure[0]) {
        fprintf(out, "verdict: NOT CERTIFIED: the run stopped: %s\n", c->harness_failure);
        return;
    }
    fprintf(out, "verdict: %s: Required rules %zu of %zu pass, Recommended %zu of %zu; cases %zu of %zu pass",
            c->interrupted ? "INCOMPLETE (no verdict: the run was interrupted)" : !ts_report_conformant(c) ? "NOT CONFORMANT"
            : undecided ? "UNDECIDED" : "CONFORMANT", req_pass, req_all,
            rec_pass, rec_all, passed, c->count - apart - skipped);
    if (undecided) fprintf(out, ", %zu undecided within the judging budget (neither passed nor failed)", undecided);
    fprintf(out, ctx && ctx->gate ? " (%zu fail as expected)\n" : "\n", expected);
}

/* "durability: ...": the level the resume cases show, the testee's claim, the nemesis's points. */
static void text_durability(FILE *out, const ts_certification *c) {
    const char *nemesis;
    long points[5];
    const char *level = ts_report_durability(c, &nemesis, points);
    if (!level || c->harness_failure[0]) return;
    fprintf(out, "durability: %s", level);
    if (c->testee_durability) {
        fputs(" (claimed: ", out);
        put_clean(out, c->testee_durability, false);
        fputc(')', out);
    }
    fprintf(out, "; nemesis %s: %ld protocol and %ld store points, %ld kill runs (%ld merged as the same experiment)",
            nemesis, points[0], points[1], points[2], points[3]);
    if (points[4]) fprintf(out, ", %ld power losses not made", points[4]);
    fputc('\n', out);
}

/* The gate's counts and the closing line "N passed, N failed, N skipped". */
static void text_closing(FILE *out, const ts_certification *c, const ts_report_context *ctx) {
    size_t passed, failed, skipped, errors;
    ts_certification_counts(c, &passed, &failed, &skipped, &errors);
    if (ctx && ctx->gate_text && *ctx->gate_text) fputs(ctx->gate_text, out);
    if (ctx && ctx->gate) {
        const ts_gate_counts *g = ctx->gate;
        fprintf(out, "gate: %zu expected failures, %zu new failures, %zu unexpected passes, %zu stale entries\n", g->expected,
                g->new_failures, g->unexpected_passes, g->stale);
        /* The closing line counts what the gate decides: expected failures are skipped (as in
         * the JUnit report), and every unexpected pass or stale entry is a failure. */
        fprintf(out, "%zu passed, %zu failed, %zu skipped", passed, g->new_failures + g->unexpected_passes + g->stale,
                skipped + g->expected);
    } else {
        fprintf(out, "%zu passed, %zu failed, %zu skipped", passed, failed, skipped);
    }
    size_t undecided = ts_certification_undecided(c);
    if (undecided) fprintf(out, ", %zu undecided", undecided);
    fputc('\n', out);
}

void ts_report_text_summary(FILE *out, const ts_certification *c, const ts_report_context *ctx) {
    size_t apart = 0, expected = 0;
    for (size_t i = 0; i < c->count; i++) {
        apart += c->results[i].apart != NULL;
        expected += c->results[i].expected;
    }
    text_rule_table(out, c);
    text_notes(out, c, apart);
    size_t passed, failed, skipped, errors;
    ts_certification_counts(c, &passed, &failed, &skipped, &errors);
    double rate = c->seconds > 0 ? (double)c->count / c->seconds : 0.0; /* a kill sweep runs below 1 case/s */
    fprintf(out, "%zu cases in %.2f s (%.*f cases/s), %d testee restarts, %zu harness errors\n", c->count, c->seconds,
            rate < 10 ? 2 : 0, rate, c->restarts, errors);
    text_run_lines(out, c);
    text_verdict(out, c, ctx, apart, expected);
    text_durability(out, c);
    if (!c->harness_failure[0]) ts_pipelining_report_text(out, c);
    text_closing(out, c, ctx);
}

void ts_report_text(FILE *out, const ts_certification *c, const ts_report_context *ctx, bool verbose) {
    ts_report_text_header(out, c);
    for (size_t i = 0; i < c->count; i++) ts_report_text_case(out, c, &c->results[i], c->results[i].expected, ctx, verbose);
    ts_report_text_summary(out, c, ctx);
}

/* The testee's command for a certificate: absolute paths (build and temp directories) are
 * cut to their last component. */
void ts_report_portable_command(ts_buf *b, const char *command) {
    const char *p = command;
    while (*p) {
        const char *end = p + strcspn(p, " ");
        const char *word = p;
        if (*word == '/') {
            const char *last = word;
            for (const char *q = word; q < end; q++)
                if (*q == '/') last = q + 1;
            word = last;
        }
        ts_buf_append(b, word, (size_t)(end - word));
        p = end;
        while (*p == ' ') ts_buf_append_char(b, *p++);
    }
}
