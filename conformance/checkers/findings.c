/* findings.c — rule catalogue and findings list; see findings.h. */
#include "conformance/checkers/findings.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/json/buf.h"
#include "core/json/codec.h"

const ts_rule_info ts_rules[] = {
    {"W3", TS_LEVEL_REQUIRED, "a valid stream is merged, not rejected"},
    {"W7", TS_LEVEL_REQUIRED, "the response has the AgentResponse shape"},
    {"I1", TS_LEVEL_REQUIRED, "one responseId, drawn from the turn"},
    {"M", TS_LEVEL_REQUIRED, "updates form the right messages (M1-M6)"},
    {"C1", TS_LEVEL_REQUIRED, "every content kept exactly once, none invented"},
    {"C2", TS_LEVEL_REQUIRED, "text and reasoning deltas coalesced exactly as specified"},
    {"I3", TS_LEVEL_REQUIRED, "each responseId's messages contiguous"},
    {"O1", TS_LEVEL_REQUIRED, "timestamped messages in chronological order"},
    {"O2", TS_LEVEL_REQUIRED, "equal timestamps in arrival order"},
    {"I2", TS_LEVEL_REQUIRED, "untimestamped messages keep arrival order"},
    {"O3", TS_LEVEL_REQUIRED, "untimestamped messages stay where they arrived (earliest placement)"},
    {"K1", TS_LEVEL_REQUIRED, "each message keeps its own createdAt"},
    {"R1", TS_LEVEL_REQUIRED, "finishReason: the last one given"},
    {"R2", TS_LEVEL_REQUIRED, "usage: the sum of every usage content"},
    {"R3", TS_LEVEL_REQUIRED, "agentId never lost"},
    {"R4", TS_LEVEL_REQUIRED, "response createdAt from the updates, never the clock"},
    {"R6", TS_LEVEL_REQUIRED, "continuationToken, conversationId, modelId kept"},
    {"X1", TS_LEVEL_REQUIRED, "unknown update fields kept on their message"},
    {"X2", TS_LEVEL_REQUIRED, "additionalProperties merged per key"},
    {"D1", TS_LEVEL_REQUIRED, "the same request gives the same answer"},
    {"H1", TS_LEVEL_REQUIRED, "host: one non-empty responseId on every emitted update"},
    {"H2", TS_LEVEL_RECOMMENDED, "host: the agent's own consistent responseId kept"},
    {"H3", TS_LEVEL_REQUIRED, "host: conflicting ids normalised or rejected"},
    {"H4", TS_LEVEL_REQUIRED, "host: emissions passed on in order, unaltered but for responseId"},
    {"H5", TS_LEVEL_REQUIRED, "host: the response is a conformant merge of the emitted stream"},
    {"J1", TS_LEVEL_REQUIRED, "journal: entry ids are distinct random UUIDv4s"},
    {"J2", TS_LEVEL_REQUIRED, "journal: a tree, and a transcript that is the path to the leaf (and the journal shape)"},
    {"J3", TS_LEVEL_REQUIRED, "journal: the transcript is the scenario's"},
    {"J4", TS_LEVEL_REQUIRED, "journal: exactly the entries the loop creates (one owner of persistence)"},
    {"J5", TS_LEVEL_REQUIRED, "journal: tasks named by their canonical content"},
    {"J6", TS_LEVEL_REQUIRED, "journal: a task runs once, with the scripted result"},
    {"J7", TS_LEVEL_REQUIRED, "journal: an LLM task's input is the stored transcript before its entry"},
    {"J8", TS_LEVEL_REQUIRED, "journal: timestamps minted once, from the scenario clock"},
    {"J9", TS_LEVEL_REQUIRED, "journal: resume continues pending tool calls, never restarts"},
    {"J10", TS_LEVEL_REQUIRED, "journal: each signal becomes exactly one user entry, in order"},
    {"J11", TS_LEVEL_REQUIRED, "journal: the checkpoint says where to continue"},
    {"J12", TS_LEVEL_RECOMMENDED, "journal: branches keep the abandoned history"},
    {"J13", TS_LEVEL_REQUIRED, "journal: crash equivalence (judged through restart events by J3-J11)"},
    {"U1", TS_LEVEL_REQUIRED, "resume: no two messages share a messageId"},
    {"U2", TS_LEVEL_REQUIRED, "resume: the conversation is the scenario's (N simple turns give 2N messages)"},
    {"U3", TS_LEVEL_REQUIRED, "resume: each user message appears exactly once, also across kills"},
    {"U4", TS_LEVEL_REQUIRED, "resume: an observed messageId or createdAt never changes"},
    {"U5", TS_LEVEL_REQUIRED, "resume: no orphan tool call, no model call while calls are pending"},
    {"U6", TS_LEVEL_REQUIRED, "resume: every tool call runs, and once, in a run without a kill"},
    {"U7", TS_LEVEL_RECOMMENDED, "resume: tools run exactly once across kills (else at-least-once)"},
    {"U8", TS_LEVEL_REQUIRED, "resume: idle only when the turn is over, waiting only while a call is pending"},
    {"U9", TS_LEVEL_REQUIRED, "resume: crash equivalence after a kill at any point"},
    {"U10", TS_LEVEL_RECOMMENDED, "resume: the model is not asked twice for one step without a kill"},
    {"U11", TS_LEVEL_RECOMMENDED, "resume: power-loss durability: every acknowledged action survives every crash state"},
    {"U12", TS_LEVEL_REQUIRED, "resume: an edit or fork gives the prefix, the new message and its continuation, nothing abandoned"},
    {"U13", TS_LEVEL_REQUIRED, "resume: ids unique across branches; an abandoned branch, read again, is unchanged"},
    {"U14", TS_LEVEL_REQUIRED, "resume: a branch re-runs no tool call made before it"},
    {"U15", TS_LEVEL_REQUIRED, "resume: a call pending when its branch was abandoned is never completed into the new one"},
};
const size_t ts_rule_count = sizeof ts_rules / sizeof ts_rules[0];

const ts_rule_info *ts_rule_find(const char *id) {
    for (size_t i = 0; i < ts_rule_count; i++)
        if (strcmp(ts_rules[i].id, id) == 0) return &ts_rules[i];
    return NULL;
}

void ts_findings_init(ts_findings *f) { memset(f, 0, sizeof *f); }

void ts_findings_clear(ts_findings *f) {
    for (size_t i = 0; i < f->count; i++) free(f->items[i].message);
    f->count = 0;
    f->suppressed = 0;
    f->out_of_memory = false;
}

void ts_findings_free(ts_findings *f) {
    if (!f) return;
    ts_findings_clear(f);
    free(f->items);
    ts_findings_init(f);
}

static void add(ts_findings *f, const char *rule, const char *named, const char *fmt, va_list ap) {
    const ts_rule_info *info = ts_rule_find(rule), *named_info = ts_rule_find(named);
    const char *id = info ? info->id : "W7";
    size_t same = 0;
    for (size_t i = 0; i < f->count; i++) same += strcmp(f->items[i].rule, id) == 0;
    if (same >= TS_FINDINGS_PER_RULE) {
        f->suppressed++;
        return;
    }
    if (f->count == f->cap) {
        size_t cap = f->cap ? f->cap * 2 : 8;
        ts_finding *grown = realloc(f->items, cap * sizeof *grown);
        if (!grown) {
            f->out_of_memory = true;
            return;
        }
        f->items = grown;
        f->cap = cap;
    }
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, ap);
    char *copy = malloc(strlen(buf) + 1);
    if (!copy) {
        f->out_of_memory = true;
        return;
    }
    strcpy(copy, buf);
    f->items[f->count].rule = id;
    f->items[f->count].named = named_info ? named_info->id : id;
    f->items[f->count].message = copy;
    f->count++;
}

void ts_findings_add(ts_findings *f, const char *rule, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    add(f, rule, rule, fmt, ap);
    va_end(ap);
}

void ts_findings_add_named(ts_findings *f, const char *rule, const char *named, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    add(f, rule, named, fmt, ap);
    va_end(ap);
}

bool ts_findings_has(const ts_findings *f, const char *rule) {
    for (size_t i = 0; i < f->count; i++)
        if (strcmp(f->items[i].rule, rule) == 0) return true;
    return false;
}

bool ts_rule_fails(const char *rule) {
    const ts_rule_info *info = ts_rule_find(rule);
    return !info || info->level == TS_LEVEL_REQUIRED;
}

size_t ts_findings_failing(const ts_findings *f) {
    size_t n = 0;
    for (size_t i = 0; i < f->count; i++) n += ts_rule_fails(f->items[i].rule);
    return n;
}

bool ts_findings_fail(const ts_findings *f) {
    for (size_t i = 0; i < f->count; i++)
        if (ts_rule_fails(f->items[i].rule)) return true;
    return false;
}

const char *ts_rules_first_required(const char *const *rules, size_t count, const char *otherwise) {
    for (size_t i = 0; i < count; i++) {
        const ts_rule_info *info = ts_rule_find(rules[i]);
        if (info && info->level == TS_LEVEL_REQUIRED) return info->id;
    }
    return otherwise;
}

void ts_check_excerpt_str_or(ts_str s, const char *absent, char *out, size_t max) {
    if (!s.ptr) {
        snprintf(out, max, "%s", absent);
        return;
    }
    ts_json v = ts_json_make_string(s);
    ts_check_excerpt(&v, out, max);
}

void ts_check_excerpt_str(ts_str s, char *out, size_t max) { ts_check_excerpt_str_or(s, "(absent)", out, max); }

void ts_check_excerpt(const ts_json *value, char *out, size_t max) {
    ts_buf buf;
    ts_buf_init(&buf);
    if (!value) {
        snprintf(out, max, "(absent)");
    } else if (!ts_codec_write(&buf, value, TS_WRITE_COMPACT) || !buf.data) {
        snprintf(out, max, "(unprintable)");
    } else if (buf.len < max) {
        memcpy(out, buf.data, buf.len + 1);
    } else {
        size_t cut = max > 4 ? max - 4 : 0;
        while (cut > 0 && ((unsigned char)buf.data[cut] & 0xC0) == 0x80) cut--; /* a character boundary */
        snprintf(out, max, "%.*s...", (int)cut, buf.data);
    }
    ts_buf_free(&buf);
}
