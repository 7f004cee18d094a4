/* resume_match.h — one observed conversation (what the model was shown, or what a `read`
 * returned) against the expected conversation X of its case (conformance/SPEC.md §6.4).
 *
 * Owns: rules U1 (message ids unique), U2 (the conversation is the scenario's), U3 (each user
 * message exactly once) and U5 (no orphan tool call; no model call while calls are pending)
 * on a single observation, and naming each observed item by the X item it stands for, so
 * that observations can be compared over time (U4, resume_checks.h).
 */
#ifndef TURNSTILE_CONFORMANCE_CHECKERS_RESUME_MATCH_H
#define TURNSTILE_CONFORMANCE_CHECKERS_RESUME_MATCH_H

#include <stdbool.h>
#include <stddef.h>

#include "conformance/checkers/findings.h"
#include "conformance/checkers/resume/resume_expect.h"

typedef enum ts_match_mode {
    TS_MATCH_VIEW,      /* a model call: X up to the assistant item the model is asked for */
    TS_MATCH_PREFIX,    /* a read in the middle of a run: a prefix of X, its last block partial */
    TS_MATCH_FINAL,     /* the read at the end of a run: all of X */
} ts_match_mode;

/* Which X item an observed item stands for: kind, and for assistants their index, for users
 * their ordinal among X's user items, for results the block and the call's position in the
 * assistant item before it. TS_ITEM_KEY_NONE when it stands for none. */
typedef struct ts_item_key {
    enum { TS_ITEM_KEY_NONE, TS_ITEM_KEY_ASSISTANT, TS_ITEM_KEY_USER, TS_ITEM_KEY_RESULT } kind;
    size_t index;   /* assistant index, user ordinal, or result block */
    size_t call;    /* result: the call's position in the calls of assistants[index - 1] */
} ts_item_key;

/* Judges `items` (ts_resume_items of one observation) against x (one epoch of X) in mode. `where` names the
 * observation in findings ("model call at point 4"). Fills keys[i] for each item (keys has
 * count slots; may be NULL). Appends findings; returns false only when memory ran out. */
bool ts_match_conversation(const ts_epoch *x, const ts_item *items, size_t count, ts_match_mode mode,
                           const char *where, ts_item_key *keys, ts_arena *arena, ts_findings *findings);



/* The user items of X before `assistant` (that many assistant items), counting the block
 * after the last one when assistant == x->assistant_count. */
size_t ts_expected_users_before(const ts_epoch *x, size_t assistant);

#endif
