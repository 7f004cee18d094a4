/* resume_scenarios.c — fuzz target: scenario generator -> reference resume engine (in-memory
 * store) -> the journal checkers (SPEC §6) as oracle, plus the engine's metamorphic relations:
 *   - a crash before commit k, then a resume, ends in the uninterrupted run's journal (entry
 *     ids aside) — J13;
 *   - an I/O error at store write n fails the drive with that error and changes nothing
 *     half-way: driving again ends in the same journal — J13;
 *   - the journal survives its JSON form byte for byte (J8), and the streamed JSON form
 *     (ts_journal_write_json, both styles) is that form's bytes;
 *   - the journal passes the checks a store applies when it reads one back
 *     (ts_journal_check_loaded: every LLM task kept as its leaf has its transcript's key).
 * The first two bytes choose k and n (0: none); the rest is the scenario. The comparisons need
 * the scenario's clock (a wall clock makes every run differ).
 *
 * $TURNSTILE_TESTEE_MUTANT names a built-in engine mutant (turnstile testee --list-mutants:
 * counter-entry-ids, timestamps-regenerated-on-load, resume-restarts-loop, both-layers-persist,
 * unescaped-canonical-keys, signal-consumed-outside-commit): the same oracle then finds that
 * engine's bug, reported as "==turnstile== the testee fails RULE" (ci/fuzz_mutants.sh times it).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/checkers/journal/journal_checks.h"
#include "conformance/testee/mutants.h"
#include "core/json/codec.h"
#include "core/resume/commit.h"
#include "core/resume/engine.h"
#include "core/resume/store_memory.h"
#include "fuzz/oracle.h"
#include "fuzz/scenario_gen.h"

/* The engine's hooks (NULL: the reference), read once from the environment (a fuzzer's entry
 * point state). */
static const ts_engine_hooks *engine_hooks;
static bool engine_hooks_read;

static const ts_engine_hooks *the_hooks(void) {
    if (engine_hooks_read) return engine_hooks;
    engine_hooks_read = true;
    const char *name = getenv("TURNSTILE_TESTEE_MUTANT");
    if (!name || !*name) return engine_hooks = NULL;
    const ts_mutant *mutant = ts_mutant_find(name);
    if (!mutant || !mutant->engine) ts_oracle_fail("TURNSTILE_TESTEE_MUTANT names no resume-engine mutant", NULL, 0);
    return engine_hooks = mutant->engine;
}

/* Reports the rule the engine breaks (the line ci/fuzz_mutants.sh reads), then fails. */
static _Noreturn void fail(const char *rule, const char *what, const ts_json *scenario, const char *detail) {
    ts_buf text;
    ts_buf_init(&text);
    ts_codec_write(&text, scenario, TS_WRITE_COMPACT);
    fprintf(stderr, "==turnstile== the testee fails %s\n", rule);
    if (detail) fprintf(stderr, "==turnstile== %s\n", detail);
    ts_oracle_fail(what, text.data, text.len);
}

/* Drives on a fresh store (with a crash before commit `crash` and a write failure at `fault`,
 * 0 for none) and returns the journal's JSON with entry ids numbered, and its journal (in
 * arena; the caller frees it). */
static bool drive(ts_arena *arena, const ts_scenario *scenario, uint64_t crash, uint64_t fault, ts_json *journal_out,
                  ts_json *plain_out, ts_journal *journal, ts_error *err) {
    ts_journal_init(journal);
    ts_store *store = ts_memory_store_new();
    if (!store) return false;
    ts_engine_options options = {.hooks = the_hooks(), .crash_before_commit = crash};
    ts_engine_state state;
    if (fault) ts_memory_store_fail_write_at(store, fault);
    bool ok = ts_engine_drive(store, scenario, &options, &state, NULL, err);
    if (!ok && fault) { /* the injected failure: it must say so, then a retry finishes */
        if (err->code != TS_ERR_IO) {
            ts_store_close(store);
            return false;
        }
        ts_error_clear(err);
        ok = ts_engine_drive(store, scenario, &options, &state, NULL, err);
    }
    ts_json value;
    ok = ok && ts_store_load(store, arena, journal, err) && ts_journal_to_json(journal, arena, &value, err) &&
         ts_journal_json_without_ids(&value, arena, journal_out);
    if (ok && plain_out) *plain_out = value;
    ts_store_close(store);
    return ok;
}

static bool append_bytes(void *context, const char *data, size_t len) {
    ts_buf_append((ts_buf *)context, data, len);
    return !((ts_buf *)context)->failed;
}

/* The streamed JSON form is the tree's, byte for byte, in both styles. */
static void check_streamed_form(const ts_journal *journal, const ts_json *plain, const ts_json *doc) {
    for (int style = 0; style < 2; style++) {
        ts_buf tree, streamed;
        ts_buf_init(&tree);
        ts_buf_init(&streamed);
        ts_error err;
        ts_error_clear(&err);
        bool same = ts_codec_write(&tree, plain, (ts_write_style)style) &&
                    ts_journal_write_json(journal, (ts_write_style)style, append_bytes, &streamed, &err) &&
                    tree.len == streamed.len && memcmp(tree.data, streamed.data, tree.len) == 0;
        ts_buf_free(&tree);
        ts_buf_free(&streamed);
        if (!same) fail("J8", "the streamed JSON form differs from the journal's JSON form", doc, err.message);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint64_t crash = size > 0 ? data[0] % 24 : 0, fault = size > 1 ? data[1] % 24 : 0;
    bool correct = the_hooks() == NULL;
    ts_arena arena;
    ts_arena_init(&arena);
    ts_json doc;
    ts_scenario scenario;
    ts_error err;
    ts_error_clear(&err);
    if (!ts_gen_scenario(&arena, size > 2 ? data + 2 : data, size > 2 ? size - 2 : 0, &doc))
        ts_oracle_fail("out of memory", NULL, 0);
    if (!ts_scenario_from_json(&doc, &arena, &scenario, &err))
        fail("(harness)", "the generator made an invalid scenario", &doc, err.message);

    ts_json expected, plain;
    ts_journal journal;
    if (!drive(&arena, &scenario, 0, 0, &expected, &plain, &journal, &err))
        fail("(error)", "the engine failed", &doc, err.message);
    ts_findings findings;
    ts_findings_init(&findings);
    ts_check_journal(&scenario, &plain, &findings);
    if (ts_oracle_has_required(&findings)) {
        for (size_t i = 0; i < findings.count; i++)
            fprintf(stderr, "==turnstile== [%s] %s\n", findings.items[i].rule, findings.items[i].message);
        fail(findings.items[0].rule, "a journal checker rejects the engine's journal", &doc, NULL);
    }
    ts_findings_free(&findings);
    if (correct) {
        check_streamed_form(&journal, &plain, &doc);
        if (!ts_journal_check_loaded(&journal, &err))
            fail("J5", "the journal would not load again (ts_journal_check_loaded)", &doc, err.message);
    }
    ts_journal_free(&journal);

    ts_buf text;
    ts_buf_init(&text);
    ts_json reread;
    ts_journal parsed;
    ts_journal_init(&parsed);
    ts_json again;
    ts_buf text_again;
    ts_buf_init(&text_again);
    if (!ts_codec_write(&text, &plain, TS_WRITE_COMPACT) || !ts_codec_parse(&arena, text.data, text.len, &reread, &err) ||
        !ts_journal_from_json(&reread, &arena, &parsed, &err) || !ts_journal_to_json(&parsed, &arena, &again, &err) ||
        !ts_codec_write(&text_again, &again, TS_WRITE_COMPACT) || text.len != text_again.len ||
        memcmp(text.data, text_again.data, text.len) != 0)
        fail("J8", "the journal does not survive its JSON form byte for byte", &doc, err.message);
    ts_journal_free(&parsed);
    ts_buf_free(&text);
    ts_buf_free(&text_again);

    /* Without a clock, timestamps (and so LLM task ids) come from the wall clock: two runs
     * differ by design, and only the checkers judge them. */
    if ((crash || fault) && scenario.has_clock) {
        ts_json got;
        if (!drive(&arena, &scenario, crash, fault, &got, NULL, &journal, &err))
            fail("J13", "the engine failed after a crash or an I/O error", &doc, err.message);
        ts_journal_free(&journal);
        if (!ts_json_equal(&expected, &got) || !ts_oracle_identical(&expected, &got)) {
            char detail[120];
            snprintf(detail, sizeof detail, "crash before commit %llu, I/O error at write %llu",
                     (unsigned long long)crash, (unsigned long long)fault);
            fail("J13", "J13: the resumed run's journal differs from the uninterrupted run's", &doc, detail);
        }
    }
    ts_arena_free(&arena);
    return 0;
}
