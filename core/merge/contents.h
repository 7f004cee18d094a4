/* contents.h — one message's contents as the merger folds them in (SPEC C2). Internal to
 * core/merge: only merger.c includes it.
 *
 * Owns: the message's content array (in the merger's arena) and, while a run of text or
 * reasoning deltas is being coalesced, the run's text (a heap buffer released when the run
 * closes when updates are copied, else in the arena). Runs are coalesced as contents arrive, so a message of a million deltas holds one
 * growing text, not a million contents: memory follows the answer, not the stream.
 */
#ifndef TURNSTILE_CORE_MERGE_CONTENTS_H
#define TURNSTILE_CORE_MERGE_CONTENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/json/arena.h"
#include "core/json/json.h"

typedef struct ts_run_text ts_run_text;

/* With copies kept, a text content that holds nothing but "$type" and "text" is kept compact:
 * as the string of its text (a TS_JSON_STRING item, which no content can be), expanded again
 * by ts_contents_expand. A message of one such delta then costs its text and one item. */
typedef struct ts_contents {
    ts_json *items;      /* in arrival order, runs coalesced (the open run is the last item); the
                          * capacity is count rounded up to a power of two */
    ts_run_text *run;    /* the run's text once it has two deltas or more (heap), else NULL */
    uint32_t count;      /* more than 2^32 - 2 contents in one message are out of memory */
    bool run_open;       /* the last item opened a C2 run that is still open */
    bool run_absorbs;    /* it still takes deltas (a reasoning delta with protectedData ends it) */
    bool run_reasoning;  /* a reasoning run (else text) */
} ts_contents;

/* Appends one content (a validated content object, not a usage content). With `copy` the
 * content's memory may go away after the call: what is kept is copied into the arena. Returns
 * false when memory runs out. */
bool ts_contents_add(ts_arena *arena, bool copy, ts_contents *contents, const ts_json *content);

/* Closes the open run (if any): its deltas become one content. False when memory runs out. */
bool ts_contents_close(ts_arena *arena, ts_contents *contents);

/* The contents as JSON objects: *out is contents->items itself when none is compact, else an
 * array in `arena` with the compact ones expanded (as {"$type":"text","text":...}, which the
 * codec writes as it would have written the original). A valid pointer even when there are
 * none. False when memory runs out. */
bool ts_contents_expand(ts_arena *arena, const ts_contents *contents, ts_json **out);

/* Releases the heap memory of an open run (after a failure; ts_contents_close also does). */
void ts_contents_release(ts_contents *contents);

#endif
