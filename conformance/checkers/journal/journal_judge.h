/* journal_judge.h — one judgement of a journal answer against one derivation, shared by the
 * journal checker modules: J1-J6 and the entry point in journal_checks.c, J7-J12 in
 * journal_rules.c. Nothing outside them includes it.
 *
 * Owns: the judge record, and the helpers every rule asks of it (journal_judge.c): answer
 * entries and tasks by id and key, the answer's path to a leaf, a derived task described. The
 * rules call down into these; journal_checks.c calls the rules; nothing calls back up.
 */
#ifndef TURNSTILE_CONFORMANCE_CHECKERS_JOURNAL_JUDGE_H
#define TURNSTILE_CONFORMANCE_CHECKERS_JOURNAL_JUDGE_H

#include "conformance/checkers/findings.h"
#include "conformance/checkers/journal/journal_sim.h"
#include "core/json/strmap.h"

typedef struct judge {
    const ts_scenario *scenario;
    journal_answer *answer;
    sim *sim;         /* the derivation; sim->stuck when the scenario cannot be run */
    size_t *expected; /* the derived transcript: indexes into sim->entries */
    size_t expected_count;
    ts_strmap entry_by_id; /* answer entryId -> first index in answer->entries */
    ts_strmap task_by_key; /* answer task key -> first index in answer->tasks */
    size_t *path;          /* the answer's path from its root to checkpoint.leafId */
    size_t path_count;
    bool path_known;
    bool *on_path; /* answer entries on that path */
    ts_findings *findings;
    ts_arena *arena;
    bool out_of_memory;
} judge;

/* The first answer entry with that id, or NO_INDEX; the first answer task with that key. */
size_t jc_entry_index(const judge *j, ts_str id);
size_t jc_task_index(const judge *j, ts_str key);
/* The answer's path from its root to entries[leaf], root first, via parentId; false when a
 * parent is missing or the parents cycle. */
bool jc_answer_path(judge *j, size_t leaf, size_t **out, size_t *count);
/* "the LLM task answered by llm[k]" / "the task of call ... (tool ...)". */
void jc_describe_sim_task(const sim_task *t, char *out, size_t max);

/* J7-J12 (journal_rules.c). */
void jc_check_llm_inputs(judge *j);
void jc_check_timestamps(judge *j);
void jc_check_tool_runs(judge *j);
void jc_check_signals(judge *j);
void jc_check_checkpoint(judge *j);
void jc_check_branches(judge *j);

#endif
