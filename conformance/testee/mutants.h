/* mutants.h — deliberately broken variants of the reference, one per historic bug of the seeds.
 *
 * Owns: the bugs, each reproduced at a seam of the reference rather than by a switch inside it:
 * an ordering function swapped into ts_merge_options, a transformation of the input updates or
 * of the merged response, a host that skips assigning ids, the resume engine's hooks
 * (engine.h: ts_engine_hooks; engine_mutants.c), or a store's options. The certifier must
 * catch each one under the right rule and no unrelated one (conformance/certifier tests).
 */
#ifndef TURNSTILE_CONFORMANCE_TESTEE_MUTANTS_H
#define TURNSTILE_CONFORMANCE_TESTEE_MUTANTS_H

#include <stdbool.h>
#include <stddef.h>

#include "core/resume/engine.h"
#include "core/merge/merger.h"

/* The crash-consistency bugs (issue 22): each is invisible to kills at protocol points and
 * shows only under the file-system nemesis — a kill between two file operations, after an
 * answer, or a power loss. Each keeps the reference's claim of power-loss durability. */
typedef enum ts_durability_bug {
    TS_DURABLE = 0,
    TS_DURABILITY_ACK_BEFORE_WRITE,        /* a message queued behind a pending tool is answered
                                            * "waiting", then written to the store */
    TS_DURABILITY_NEVER_FSYNC,             /* SQLite with synchronous OFF */
    TS_DURABILITY_INDEX_BEFORE_RECORD,     /* file store: the index line before its record */
    TS_DURABILITY_UNCHECKED_TORN_RECORD,   /* file store: record and index synced together, no CRC read */
    TS_DURABILITY_RENAME_WITHOUT_DIR_SYNC, /* file store: its files named without a directory fsync */
} ts_durability_bug;

/* The branch bugs (issue 27): an edit or a fork carried out wrongly by the adapter that maps it
 * onto the engine. Each is caught by the universal branch rules (SPEC §6.4, U12-U15). */
typedef enum ts_branch_bug {
    TS_BRANCH_AS_REFERENCE = 0,
    TS_BRANCH_KEEPS_SUFFIX,   /* the new message is appended after the old conversation (a plain
                               * message, no cut): the abandoned suffix leaks into the branch */
} ts_branch_bug;

typedef struct ts_mutant {
    const char *name;
    const char *bug;                 /* the historic bug it reproduces */
    const char *rules;               /* rules allowed to fail, comma-separated; the first must (and for
                                      * the resume engine's, the second: its universal rule) */
    ts_merge_order_fn order;         /* NULL: the reference order */
    bool drop_dangling_metadata;     /* finishReason, usage, agentId of dangling updates lost */
    bool overwrite_created_at;       /* every message gets the response's createdAt or "now" */
    bool no_host_response_id;        /* the host passes the agent's missing ids on */
    const ts_engine_hooks *engine;   /* the journal and resume ops' bug; NULL for the others */
    ts_durability_bug durability;    /* the resume op's store's bug; TS_DURABLE for the others */
    ts_branch_bug branch;            /* the resume op's edits' and forks' bug; TS_BRANCH_AS_REFERENCE for the others */
} ts_mutant;

/* The resume engine's historic bugs, as hooks (engine_mutants.c). Each also rebuilds the engine
 * at every event of a drive: these bugs show when a suspended execution is resumed. */
extern const ts_engine_hooks ts_engine_counter_ids;          /* seed 003 bug 1 */
extern const ts_engine_hooks ts_engine_timestamps_on_load;   /* seed 003 bug 2 */
extern const ts_engine_hooks ts_engine_restart_loop;         /* seed 003 bug 3 */
extern const ts_engine_hooks ts_engine_both_layers_persist;  /* seed 002 */
extern const ts_engine_hooks ts_engine_unescaped_keys;       /* seed 003's canonical JSON */
extern const ts_engine_hooks ts_engine_signal_outside_commit;

/* Every mutant, in the order `turnstile testee --list-mutants` prints them. */
extern const ts_mutant ts_mutants[];
extern const size_t ts_mutant_count;

/* The mutant with that name, or NULL. */
const ts_mutant *ts_mutant_find(const char *name);

#endif
