/* gen_turn.c — the generator's agent-turn shape (TS_GEN_AGENT_TURN, see gen.h): one streamed turn
 * of a multi-agent system, built from the moves by which a turn branches while it streams, each as
 * a real framework emits it:
 *   - handoff: the agent speaking says so, calls transfer_to_<agent> and gets its result; the next
 *     agent goes on under its own responseId (an SDK that opens a response per agent) or the same
 *     one (one run, several agents: only agentId and authorName change);
 *   - fan-out: the agent calls two or three sub-agents as tools; their answers stream interleaved,
 *     update by update, each under its own responseId, agentId and messageId; the results come
 *     back in any order and the caller goes on;
 *   - regenerate: the agent starts an answer, abandons it, and answers the step again under a new
 *     messageId in the same response (a retry after a guardrail, a model re-asked), or under the
 *     same messageId (the retry's text then joins the abandoned one's, as M4 merges it);
 *   - a plain answer, in one to three text deltas.
 * Every update carries its messageId, role and agentId; createdAt comes from one clock that
 * advances with every update (so interleaved agents alternate in time), on most updates.
 */
#include <stdio.h>
#include <string.h>

#include "core/testing/bytes.h"
#include "core/testing/gen.h"
#include "core/testing/gen_emit.h"

enum { TURN_AGENTS = 4, TURN_MOVES = 8, TURN_FANOUT = 3 };

typedef struct turn_state {
    ts_bytes in;
    ts_emitter *out;
    int agent;         /* the agent speaking */
    int response[TURN_AGENTS]; /* its current responseId: r<n> */
    int responses, messages, calls, seconds;
    size_t updates;
} turn_state;

static void put_string(turn_state *s, const char *name, const char *value) {
    ts_emit_key(s->out, name);
    ts_emit_string(s->out, ts_str_from(value));
}

/* An update's envelope: responseId, messageId, createdAt (most), role, authorName, agentId; the
 * caller writes its contents and closes it with end_update. */
static void begin_update(turn_state *s, int agent, int message, const char *role) {
    char buf[40];
    ts_emit_begin(s->out, true);
    snprintf(buf, sizeof buf, "r%d", s->response[agent]);
    put_string(s, "responseId", buf);
    snprintf(buf, sizeof buf, "m%d", message);
    put_string(s, "messageId", buf);
    s->seconds++;
    if (!ts_bytes_chance(&s->in, 15)) {
        snprintf(buf, sizeof buf, "2026-05-13T10:%02d:%02d.000Z", (s->seconds / 60) % 60, s->seconds % 60);
        put_string(s, "createdAt", buf);
    }
    put_string(s, "role", role);
    snprintf(buf, sizeof buf, "Agent%d", agent);
    put_string(s, "authorName", buf);
    snprintf(buf, sizeof buf, "agent%d", agent);
    put_string(s, "agentId", buf);
    ts_emit_key(s->out, "contents");
    ts_emit_begin(s->out, false);
    s->updates++;
}

static void end_update(turn_state *s) {
    ts_emit_end(s->out); /* contents */
    ts_emit_end(s->out); /* the update */
}

static void text_update(turn_state *s, int agent, int message, const char *text) {
    begin_update(s, agent, message, "assistant");
    ts_emit_begin(s->out, true);
    put_string(s, "$type", "text");
    put_string(s, "text", text);
    ts_emit_end(s->out);
    end_update(s);
}

static void call_update(turn_state *s, int agent, int message, int call, const char *name) {
    char id[16];
    snprintf(id, sizeof id, "h%d", call);
    begin_update(s, agent, message, "assistant");
    ts_emit_begin(s->out, true);
    put_string(s, "$type", "functionCall");
    put_string(s, "callId", id);
    put_string(s, "name", name);
    ts_emit_key(s->out, "arguments");
    ts_emit_begin(s->out, true);
    ts_emit_end(s->out);
    ts_emit_end(s->out);
    end_update(s);
}

static void result_update(turn_state *s, int agent, int call, const char *result) {
    char id[16];
    snprintf(id, sizeof id, "h%d", call);
    begin_update(s, agent, s->messages++, "tool");
    ts_emit_begin(s->out, true);
    put_string(s, "$type", "functionResult");
    put_string(s, "callId", id);
    put_string(s, "result", result);
    ts_emit_end(s->out);
    end_update(s);
}

/* One answer of `agent` in one to three deltas, under a new messageId. */
static void answer(turn_state *s, int agent) {
    static const char *const deltas[] = {"Sure", ", here", " it is.", "Done", "\xc3\xa9t\xc3\xa9", ""};
    int message = s->messages++, n = 1 + (int)ts_bytes_below(&s->in, 3);
    for (int i = 0; i < n; i++) text_update(s, agent, message, deltas[ts_bytes_below(&s->in, 6)]);
}

static void handoff(turn_state *s) {
    int next = (s->agent + 1 + (int)ts_bytes_below(&s->in, TURN_AGENTS - 1)) % TURN_AGENTS, message = s->messages++;
    char name[32];
    snprintf(name, sizeof name, "transfer_to_agent%d", next);
    text_update(s, s->agent, message, "Handing you over.");
    int call = s->calls++;
    call_update(s, s->agent, message, call, name);
    result_update(s, s->agent, call, "{\"assistant\":\"transferred\"}");
    if (ts_bytes_chance(&s->in, 50)) s->response[next] = s->responses++; /* a response of its own */
    else s->response[next] = s->response[s->agent];                        /* one run, several agents */
    s->agent = next;
    answer(s, next);
}

static void fan_out(turn_state *s) {
    int n = 2 + (int)ts_bytes_below(&s->in, TURN_FANOUT - 1), caller = s->agent, message = s->messages++;
    int subs[TURN_FANOUT], calls[TURN_FANOUT], sub_messages[TURN_FANOUT], left[TURN_FANOUT];
    for (int i = 0; i < n; i++) {
        char name[32];
        subs[i] = (caller + 1 + i) % TURN_AGENTS;
        snprintf(name, sizeof name, "ask_agent%d", subs[i]);
        calls[i] = s->calls++;
        call_update(s, caller, message, calls[i], name);
        s->response[subs[i]] = s->responses++;
        sub_messages[i] = s->messages++;
        left[i] = 1 + (int)ts_bytes_below(&s->in, 3);
    }
    for (int remaining = n; remaining > 0;) { /* the sub-agents' deltas, interleaved */
        int i = (int)ts_bytes_below(&s->in, (uint32_t)n);
        while (!left[i]) i = (i + 1) % n;
        text_update(s, subs[i], sub_messages[i], left[i] == 1 ? " (sub-answer end)" : "sub-answer ");
        remaining -= --left[i] == 0;
    }
    int first = (int)ts_bytes_below(&s->in, (uint32_t)n); /* the results, starting anywhere */
    for (int k = 0; k < n; k++) result_update(s, caller, calls[(first + k) % n], "sub-agent answered");
    answer(s, caller);
}

static void regenerate(turn_state *s) {
    int abandoned = s->messages++;
    text_update(s, s->agent, abandoned, "Let me th");
    if (ts_bytes_chance(&s->in, 50)) text_update(s, s->agent, abandoned, "ink about");
    if (ts_bytes_chance(&s->in, 30)) { /* the retry reuses the abandoned attempt's messageId */
        text_update(s, s->agent, abandoned, " Retried answer.");
        return;
    }
    answer(s, s->agent);
}

size_t ts_gen_agent_turn(const uint8_t *data, size_t size, ts_emitter *out) {
    turn_state s;
    memset(&s, 0, sizeof s);
    ts_bytes_init(&s.in, data, size);
    s.out = out;
    s.response[0] = s.responses++;
    int moves = 1 + (int)ts_bytes_below(&s.in, TURN_MOVES);
    /* A move takes at most 1 + 3 + 3*3 + 3 + 3 updates (a fan-out of three): stop before the cap. */
    for (int m = 0; m < moves && s.updates + 19 <= TS_GEN_MAX_UPDATES; m++) {
        switch (ts_bytes_below(&s.in, 4)) {
        case 0: handoff(&s); break;
        case 1: fan_out(&s); break;
        case 2: regenerate(&s); break;
        default: answer(&s, s.agent);
        }
    }
    return s.updates;
}
