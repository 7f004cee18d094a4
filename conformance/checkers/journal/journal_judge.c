/* journal_judge.c — what every journal rule asks of one judgement: answer entries and tasks by
 * id and key, the answer's path to a leaf, a derived task described; see journal_judge.h. */
#include "conformance/checkers/journal/journal_judge.h"

size_t jc_entry_index(const judge *j, ts_str id) {
    size_t at;
    return id.ptr && ts_strmap_get(&j->entry_by_id, 0, id, &at) ? at : NO_INDEX;
}

size_t jc_task_index(const judge *j, ts_str key) {
    size_t at;
    return ts_strmap_get(&j->task_by_key, 0, key, &at) ? at : NO_INDEX;
}

bool jc_answer_path(judge *j, size_t leaf, size_t **out, size_t *count) {
    size_t n = 0;
    for (size_t at = leaf; at != NO_INDEX; at = jc_entry_index(j, j->answer->entries[at].parent_id)) {
        if (++n > j->answer->entry_count) return false;
        if (j->answer->entries[at].parent_id.ptr && jc_entry_index(j, j->answer->entries[at].parent_id) == NO_INDEX)
            return false;
    }
    size_t *path = ts_arena_calloc(j->arena, n + 1, sizeof *path);
    if (!path) {
        j->out_of_memory = true;
        return false;
    }
    size_t i = n;
    for (size_t at = leaf; at != NO_INDEX; at = jc_entry_index(j, j->answer->entries[at].parent_id)) path[--i] = at;
    *out = path;
    *count = n;
    return true;
}

void jc_describe_sim_task(const sim_task *t, char *out, size_t max) {
    if (t->llm_answer != NO_INDEX)
        jc_format(out, max, "the LLM task answered by llm[%zu]", t->llm_answer);
    else
        jc_format(out, max, "the task of call \"%.*s\" (tool \"%.*s\")", (int)t->call_id.len, t->call_id.ptr,
                    (int)t->kind.len, t->kind.ptr);
}
