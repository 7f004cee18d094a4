/* gen_lookalike.c — the generator's look-alike shape (TS_GEN_LOOKALIKE, see gen.h).
 *
 * Response groups of 1-7 messages drawn from one short pattern of roles and texts: prefixes
 * of one another, one text changed, or a fresh "ok" alternation. Mostly no messageId and no
 * createdAt; else one id for a whole group (role changes split it, M4) or one instant for all
 * of a group's updates. A message repeating the previous one's role is opened by an empty
 * update of another role first (a message of its own, which M6 leaves out; some groups also
 * carry "additionalProperties": {} and "authorName": null, which are nothing). Groups are sent
 * one after another or interleaved; a group without responseId joins the primary one (M1).
 * Tagged (TS_GEN_LOOKALIKE_TAGGED): every update with content carries instead
 * "additionalProperties": {"group": "gI"}, revealing the generator's group I (gen.h).
 */
#include <stdio.h>
#include <string.h>

#include "core/testing/bytes.h"
#include "core/testing/gen.h"
#include "core/testing/gen_emit.h"

typedef struct lookalike_state {
    ts_bytes in;
    ts_emitter *out;
    bool tagged;
} lookalike_state;

enum { LOOKALIKE_GROUPS = 6, LOOKALIKE_LENGTH = 7 };

typedef struct lookalike_message {
    int role;            /* 0 user, 1 assistant, 2 tool */
    int text;            /* index into lookalike_texts */
} lookalike_message;

static const char *const lookalike_roles[] = {"user", "assistant", "tool"};
static const char *const lookalike_texts[] = {"ok", "a", "b", "ok "};

typedef struct lookalike_group {
    lookalike_message messages[LOOKALIKE_LENGTH];
    int length;
    char response_id[8];  /* "" : dangling (joins the primary group) */
    char agent_id[8];     /* "" : none */
    char message_id[8];   /* "" : none; else the same id on every message of the group */
    bool timestamped;     /* every update carries the same instant */
    bool empty_extras;    /* every update carries "additionalProperties": {} and "authorName": null */
    char tag[8];          /* tagged: the value that reveals the group */
    int next_message;     /* emission state */
    int next_update;      /* within the message: 0 separator (when needed), 1.. its parts */
} lookalike_group;

/* The updates of message k of group g, one at a time: an empty update of another role first
 * when k repeats the previous message's role (so that it opens a message of its own; M6 leaves
 * the empty one out), then the text in one or two parts. Returns false when the group is done. */
static bool lookalike_update(lookalike_state *s, lookalike_group *g, bool split) {
    while (g->next_message < g->length) {
        const lookalike_message *m = &g->messages[g->next_message];
        bool repeats = g->next_message > 0 && g->messages[g->next_message - 1].role == m->role;
        const char *text = lookalike_texts[m->text];
        int parts = split && strlen(text) > 1 ? 2 : 1;
        int step = g->next_update++;
        if (step == 0 && !repeats) step = g->next_update++;
        if (step > parts) {
            g->next_message++;
            g->next_update = 0;
            continue;
        }
        ts_emit_begin(s->out, true);
        if (g->response_id[0]) {
            ts_emit_key(s->out, "responseId");
            ts_emit_string(s->out, ts_str_from(g->response_id));
        }
        if (g->message_id[0]) {
            ts_emit_key(s->out, "messageId");
            ts_emit_string(s->out, ts_str_from(g->message_id));
        }
        if (g->timestamped) {
            ts_emit_key(s->out, "createdAt");
            ts_emit_string(s->out, ts_str_from("2026-05-13T10:00:00+00:00"));
        }
        ts_emit_key(s->out, "role");
        ts_emit_string(s->out, ts_str_from(lookalike_roles[step == 0 ? (m->role + 1) % 2 : m->role]));
        if (g->agent_id[0]) {
            ts_emit_key(s->out, "agentId");
            ts_emit_string(s->out, ts_str_from(g->agent_id));
        }
        if (s->tagged && step > 0) { /* the group revealed; never on an empty update (M6 leaves those out) */
            ts_emit_key(s->out, "additionalProperties");
            ts_emit_begin(s->out, true);
            ts_emit_key(s->out, "group");
            ts_emit_string(s->out, ts_str_from(g->tag));
            ts_emit_end(s->out);
        } else if (g->empty_extras) { /* both are nothing: {} as no additionalProperties (M6), null as absent */
            ts_emit_key(s->out, "additionalProperties");
            ts_emit_begin(s->out, true);
            ts_emit_end(s->out);
        }
        if (g->empty_extras) {
            ts_emit_key(s->out, "authorName");
            ts_emit_literal(s->out, TS_JSON_NULL);
        }
        ts_emit_key(s->out, "contents");
        ts_emit_begin(s->out, false);
        if (step > 0) {
            size_t len = strlen(text), cut = parts == 1 ? len : len / 2;
            ts_emit_begin(s->out, true);
            ts_emit_key(s->out, "$type");
            ts_emit_string(s->out, ts_str_from("text"));
            ts_emit_key(s->out, "text");
            ts_emit_string(s->out, step == 1 ? (ts_str){text, cut} : (ts_str){text + cut, len - cut});
            ts_emit_end(s->out);
        }
        ts_emit_end(s->out);
        ts_emit_end(s->out);
        return true;
    }
    return false;
}

size_t ts_gen_lookalike(const uint8_t *data, size_t size, bool tagged, ts_emitter *out) {
    lookalike_state s;
    memset(&s, 0, sizeof s);
    ts_bytes_init(&s.in, data, size);
    s.out = out;
    s.tagged = tagged;
    lookalike_group groups[LOOKALIKE_GROUPS];
    memset(groups, 0, sizeof groups);
    lookalike_message pattern[LOOKALIKE_LENGTH]; /* the groups' common pattern */
    int start_role = (int)ts_bytes_below(&s.in, 2), text = (int)ts_bytes_below(&s.in, 2);
    for (int k = 0; k < LOOKALIKE_LENGTH; k++) {
        pattern[k].role = ts_bytes_chance(&s.in, 85) ? (start_role + k) % 2 : (int)ts_bytes_below(&s.in, 3);
        pattern[k].text = ts_bytes_chance(&s.in, 85) ? text : (int)ts_bytes_below(&s.in, 4);
    }
    int count = 1 + (int)ts_bytes_below(&s.in, LOOKALIKE_GROUPS);
    bool shared_agent = ts_bytes_chance(&s.in, 30), split = ts_bytes_chance(&s.in, 30);
    for (int i = 0; i < count; i++) {
        lookalike_group *g = &groups[i];
        g->length = 1 + (int)ts_bytes_below(&s.in, LOOKALIKE_LENGTH);
        uint32_t form = ts_bytes_below(&s.in, 10);
        for (int k = 0; k < g->length; k++) {
            g->messages[k] = pattern[k];
            if (form >= 8) g->messages[k] = (lookalike_message){(start_role + k) % 2, 0}; /* a fresh "ok" alternation */
        }
        if (form >= 6 && form < 8) { /* near-identical: one text changed */
            int k = (int)ts_bytes_below(&s.in, (uint32_t)g->length);
            g->messages[k].text = (g->messages[k].text + 1 + (int)ts_bytes_below(&s.in, 3)) % 4;
        }
        snprintf(g->tag, sizeof g->tag, "g%d", i);
        if (!ts_bytes_chance(&s.in, 12)) snprintf(g->response_id, sizeof g->response_id, "r%d", i);
        if (ts_bytes_chance(&s.in, 40)) snprintf(g->agent_id, sizeof g->agent_id, "ag%d", shared_agent ? 0 : i);
        if (ts_bytes_chance(&s.in, 12)) snprintf(g->message_id, sizeof g->message_id, "m");
        g->timestamped = ts_bytes_chance(&s.in, 12);
        g->empty_extras = ts_bytes_chance(&s.in, 15);
    }
    bool interleave = ts_bytes_chance(&s.in, 50);
    size_t emitted = 0;
    int current = 0;
    while (emitted < TS_GEN_MAX_UPDATES) {
        int open = 0;
        for (int i = 0; i < count; i++) open += groups[i].next_message < groups[i].length;
        if (open == 0) break;
        if (interleave) current = (int)ts_bytes_below(&s.in, (uint32_t)count);
        while (groups[current].next_message >= groups[current].length) current = (current + 1) % count;
        if (lookalike_update(&s, &groups[current], split)) emitted++;
    }
    if (emitted == 0) { /* every stream has an update */
        ts_emit_begin(s.out, true);
        ts_emit_key(s.out, "contents");
        ts_emit_begin(s.out, false);
        ts_emit_end(s.out);
        ts_emit_end(s.out);
        emitted = 1;
    }
    return emitted;
}
