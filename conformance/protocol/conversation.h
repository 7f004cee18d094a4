/* conversation.h — a conversation of the `resume` op (PROTOCOL.md) as items: what the
 * certifier's world and the judge both read it as, so that neither depends on the other.
 *
 * Owns: flattening a conversation in Microsoft.Extensions.AI ChatMessage wire JSON (a model
 * call's view, a read's messages) into items: one user item per user message with text, one
 * assistant item per assistant message (its text and its functionCall contents), one result item
 * per functionResult content; system and developer messages and other contents are ignored.
 * The world counts a view's assistant items to answer the model with llm[k], and looks for an
 * interrupted action's effect in a read; the judge matches items against the expectation.
 */
#ifndef TURNSTILE_CONFORMANCE_PROTOCOL_CONVERSATION_H
#define TURNSTILE_CONFORMANCE_PROTOCOL_CONVERSATION_H

#include <stdbool.h>
#include <stddef.h>

#include "core/json/arena.h"
#include "core/json/json.h"

typedef enum ts_item_kind { TS_ITEM_USER, TS_ITEM_ASSISTANT, TS_ITEM_RESULT } ts_item_kind;

typedef struct ts_item_call {
    ts_str call_id, name;
    ts_json arguments;      /* an object (or null when absent) */
    bool may_wait;          /* expected: asked after a call still pending when the case ends, so an
                             * engine that runs an answer's calls one at a time never reaches it */
} ts_item_call;

typedef struct ts_item {
    ts_item_kind kind;
    ts_str text;                  /* user, assistant: the text contents, concatenated */
    const ts_item_call *calls;    /* assistant */
    size_t call_count;
    ts_str call_id;               /* result */
    ts_json value;                /* result: the value (expected: the scripted one) */
    bool value_free;              /* expected result: a failed or unknown tool, any value matches */
    bool optional;                /* expected result: of a may_wait call; absent at the end is fine */
    /* observed items only: the message they came from */
    size_t message;               /* its index in the conversation */
    ts_str message_id, created_at; /* absent when the message has none */
} ts_item;

/* Flattens a conversation (a JSON array of ChatMessage objects) into items, in arena. false
 * with why (naming the field, e.g. "messages[2].contents: must be an array") when it is not
 * one. Arguments given as a JSON string are parsed. */
bool ts_resume_items(const ts_json *messages, ts_arena *arena, ts_item **out, size_t *count, char *why,
                     size_t why_size);

/* How many assistant items there are. */
size_t ts_count_assistants(const ts_item *items, size_t count);

#endif
