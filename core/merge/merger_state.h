/* merger_state.h — what a ts_merger holds between updates. Internal to core/merge: merger.c folds
 * updates into it, merger_finish.c orders and writes the response from it.
 *
 * Owns: nothing of its own; the layout is compact because a merge of a million one-update
 * messages holds a million of these: names a message shares with others (role, author, agent)
 * are indices into one table of names, a createdAt lives beside the message only when it has
 * one, and the response group is a 32-bit index.
 */
#ifndef TURNSTILE_CORE_MERGE_MERGER_STATE_H
#define TURNSTILE_CORE_MERGE_MERGER_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/json/digest.h"
#include "core/json/strmap.h"
#include "core/merge/contents.h"
#include "core/merge/merger.h"

/* Additional properties (X2) and kept unknown keys (X1) of one message: last value wins per
 * key, first position kept. Allocated only for messages that have some. */
typedef struct message_members {
    ts_json_builder additional_properties;
    ts_json_builder extras;
    bool any_additional_properties;
} message_members;

/* A message's own createdAt (K1), allocated only for a message that has one. */
typedef struct message_stamp {
    ts_str text;
    ts_instant instant;
} message_stamp;

typedef struct message_state {
    size_t first_arrival;     /* index of the update that opened it */
    ts_str message_id;
    ts_contents contents;     /* arrival order, usage removed, runs coalesced */
    message_members *members;
    message_stamp *created;   /* NULL until an update gives one */
    uint32_t group;
    uint32_t role, author_name, agent_id; /* name table index + 1; 0: none */
    bool indexed;             /* in message_by_key (see index_message) */
} message_state;

typedef struct group_state {
    ts_str response_id;  /* absent for the primary group */
    size_t last_message; /* + 1: the message its latest update went to (M3); 0: none yet */
} group_state;

struct ts_merger {
    ts_arena *arena;
    bool copy;                  /* updates do not outlive ts_merger_add: keep copies */
    bool failed;
    ts_merge_order_fn order;
    void *order_context;
    size_t count;               /* updates added */

    ts_str primary;             /* I1: given, or the first responseId (absent until seen) */
    size_t primary_group;       /* SIZE_MAX until an update joins it */
    ts_sha256 derived;          /* I1.3: SHA-256 of the updates while none has a responseId */
    bool hashing;               /* `derived` holds a state (started at the first such update) */

    group_state *groups;
    size_t group_count, group_cap;
    message_state *messages;
    size_t message_count, message_cap;
    ts_strmap group_by_id;      /* tag 0: responseId -> group (the primary id is not in it) */
    ts_strmap message_by_key;   /* tag = group + 1: messageId -> latest message with that id
                                 * that is not its group's last (index_message) */
    ts_strmap member_index;     /* tag = 2 * message + (0 extras, 1 additional): key -> member */
    struct {                    /* cache: the last groups looked up by responseId, latest first */
        ts_str id;
        size_t group;
    } recent[4];

    ts_str *names;              /* roles, authors and agents kept; a value equal to one of the
                                 * last few kept of its kind is not kept again */
    size_t name_count, name_cap;
    uint32_t recent_names[3][4]; /* per kind (role, author, agent): name ids, latest first */
    size_t *visible, *ordered;  /* at the end: the messages written (M6), and their order */
    size_t visible_count;
    ts_arena scratch;           /* one message's JSON at a time (ts_merger_finish_to_file) */

    ts_response out;            /* metadata folded so far (R1..R6) */
    bool has_created;
    ts_instant earliest;
    ts_str first_agent, primary_agent;
};

/* The name a message_state field holds (absent for 0). */
static inline ts_str ts_merger_name(const ts_merger *m, uint32_t id) {
    ts_str none = {NULL, 0};
    return id ? m->names[id - 1] : none;
}

/* Sets err to "out of memory", marks the merger failed; returns false. */
bool ts_merger_out_of_memory(ts_merger *m, ts_error *err);

/* I1.3: the derived id hashes every update written compactly, as long as none has a responseId. */
bool ts_merger_hash_update(ts_sha256 *sha, const ts_update *update);

#endif
