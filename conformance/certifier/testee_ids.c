/* testee_ids.c — which request a testee's line answers, the ids sent, and the lines that answer
 * a request a second time; see testee_child.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/certifier/testee.h"
#include "conformance/certifier/testee_child.h"
#include "core/json/codec.h"

/* ---- ids: which request a line answers ---- */

/* The "id" string of a JSON object line into out (""), without parsing it when it starts
 * {"id":"…" as most testees write it. False when the line has no string id that fits. */
bool ts_testee_line_id(const char *line, size_t len, char out[ID_MAX]) {
    out[0] = '\0';
    size_t i = 0;
#define SKIP_SPACE() while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '\n')) i++
    SKIP_SPACE();
    if (i < len && line[i] == '{') {
        i++;
        SKIP_SPACE();
        if (len - i > 4 && memcmp(line + i, "\"id\"", 4) == 0) {
            i += 4;
            SKIP_SPACE();
            if (i < len && line[i] == ':') {
                i++;
                SKIP_SPACE();
                if (i < len && line[i] == '"') {
                    size_t start = ++i;
                    while (i < len && line[i] != '"' && line[i] != '\\' && line[i] != '\0') i++;
                    if (i < len && line[i] == '"') {
                        if (i - start >= ID_MAX) return false;
                        memcpy(out, line + start, i - start);
                        out[i - start] = '\0';
                        return true;
                    }
                }
            }
        }
    }
#undef SKIP_SPACE
    ts_arena arena; /* any other shape: the codec decides */
    ts_arena_init(&arena);
    ts_json value;
    ts_error err;
    bool found = false;
    if (ts_codec_parse(&arena, line, len, &value, &err)) {
        ts_str id = ts_json_string(ts_json_get(&value, "id"));
        if (id.ptr && id.len < ID_MAX && !memchr(id.ptr, '\0', id.len)) {
            memcpy(out, id.ptr, id.len);
            out[id.len] = '\0';
            found = true;
        }
    }
    ts_arena_free(&arena);
    return found;
}

bool ts_testee_was_sent(const ts_child_testee *t, const char *id) {
    for (size_t i = 0; i < t->sent_count; i++)
        if (strcmp(t->sent[i], id) == 0) return true;
    return false;
}

void ts_testee_remember_sent(ts_child_testee *t, const char *id) {
    if (!id[0] || ts_testee_was_sent(t, id)) return;
    if (t->sent_count == t->sent_cap) {
        size_t cap = t->sent_cap ? t->sent_cap * 2 : 64;
        char **grown = realloc(t->sent, cap * sizeof *grown);
        if (!grown) return;
        t->sent = grown;
        t->sent_cap = cap;
    }
    if ((t->sent[t->sent_count] = strdup(id))) t->sent_count++;
}

/* A line that is not the answer to the request in flight: counted for the request whose id
 * it carries, or (no id of an earlier request) for the request answered last. */
void ts_testee_count_extra_line(ts_child_testee *t, const char *line, size_t len) {
    bool blank = true;
    for (size_t i = 0; i < len && blank; i++) blank = line[i] == ' ' || line[i] == '\t' || line[i] == '\r';
    if (blank) return;
    char id[ID_MAX];
    const char *owner = ts_testee_line_id(line, len, id) && ts_testee_was_sent(t, id) ? id : t->last_answered;
    if (!owner[0]) return;
    for (size_t i = 0; i < t->extra_len; i++) {
        if (strcmp(t->extras[i].id, owner) == 0) {
            t->extras[i].count++;
            return;
        }
    }
    extra_count *grown = realloc(t->extras, (t->extra_len + 1) * sizeof *grown);
    if (!grown) return;
    t->extras = grown;
    if ((t->extras[t->extra_len].id = strdup(owner))) t->extras[t->extra_len++].count = 1;
}

bool child_testee_extra_at(const ts_testee *base, size_t i, const char **id, int *count) {
    const ts_child_testee *t = const_child_of(base);
    if (i >= t->extra_len) return false;
    *id = t->extras[i].id;
    *count = t->extras[i].count;
    return true;
}

int child_testee_extra_answers(const ts_testee *base, const char *id) {
    const ts_child_testee *t = const_child_of(base);
    for (size_t i = 0; i < t->extra_len; i++)
        if (strcmp(t->extras[i].id, id) == 0) return t->extras[i].count;
    return 0;
}

