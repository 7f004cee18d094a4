/* taskkey_cmd.c — `turnstile taskkey`: the idempotency key and task id of a task. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "conformance/cli/cli.h"
#include "core/json/canon.h"
#include "core/resume/taskid.h"

static const char taskkey_usage[] =
    "usage: turnstile taskkey [--max-input-bytes N] EXEC_ID KIND JSON\n"
    "\n"
    "Prints the idempotency key and the task id that the resume engine gives the task KIND with\n"
    "input JSON in the execution EXEC_ID, byte-compatible with the seed runtime:\n"
    "\n"
    "  key: task:HEX   HEX = first 16 bytes of SHA-256(EXEC_ID's 16 raw bytes, ':', KIND, ':',\n"
    "                  the RFC 8785 canonical form of JSON), lowercase\n"
    "  id: UUID        UUIDv5(NAMESPACE_OID, the key's text)\n"
    "\n"
    "EXEC_ID is a UUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx, either case). JSON is the input's\n"
    "text in any spelling (it is canonicalised first, see turnstile canon --help), or '-' to\n"
    "read it from stdin.\n"
    "\n"
    TS_CLI_MAX_INPUT_HELP
    "\n"
    "exit status: 0 printed; 2 a bad EXEC_ID, input that is not I-JSON (the error names line\n"
    "and column) or bad usage; 1 internal failure.\n";

int ts_cli_taskkey(int argc, char **argv) {
    const char *args[3];
    int count = 0;
    size_t max_input = TS_CLI_MAX_INPUT_DEFAULT;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(taskkey_usage, stdout);
            return TS_EXIT_OK;
        }
    }
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--max-input-bytes") == 0 && count == 0) {
            if (++i == argc) {
                fprintf(stderr, "turnstile taskkey: --max-input-bytes needs a value\n");
                return TS_EXIT_USAGE;
            }
            if (!ts_cli_parse_max_input("taskkey", argv[i], &max_input)) return TS_EXIT_USAGE;
        } else if (count == 3) {
            count = 4;
            break;
        } else {
            args[count++] = argv[i];
        }
    }
    if (count != 3) {
        fprintf(stderr, "turnstile taskkey: needs EXEC_ID KIND JSON (see turnstile taskkey --help)\n");
        return TS_EXIT_USAGE;
    }
    const char *exec_id = args[0], *kind = args[1], *json_arg = args[2];
    unsigned char exec_bytes[TS_UUID_LEN];
    if (!ts_uuid_parse(exec_id, exec_bytes)) {
        fprintf(stderr, "turnstile taskkey: EXEC_ID '%s' is not a UUID (xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx)\n",
                exec_id);
        return TS_EXIT_USAGE;
    }
    bool from_stdin = strcmp(json_arg, "-") == 0;
    char *data = NULL;
    size_t len = 0;
    if (from_stdin) {
        if (ts_cli_read_input(NULL, max_input, &data, &len) != 0) return TS_EXIT_USAGE;
    } else {
        len = strlen(json_arg);
        if (max_input && len > max_input) {
            fprintf(stderr, "turnstile taskkey: JSON: longer than %zu bytes, the input limit (--max-input-bytes)\n", max_input);
            return TS_EXIT_USAGE;
        }
        data = malloc(len + 1);
        if (!data) return TS_EXIT_FAILURE;
        memcpy(data, json_arg, len + 1);
    }

    int status = TS_EXIT_OK;
    ts_buf canonical;
    ts_buf_init(&canonical);
    ts_error err;
    ts_error_clear(&err);
    char key[TS_TASK_KEY_TEXT_LEN + 1], id[TS_UUID_TEXT_LEN + 1];
    bool ok = ts_canon_text(&canonical, data, len, &err) &&
              ts_task_key(exec_id, ts_str_from(kind), (ts_str){canonical.data ? canonical.data : "", canonical.len},
                          key, &err) &&
              ts_task_id(key, id, &err);
    if (!ok) {
        char message[600];
        ts_error_format(&err, from_stdin ? "stdin" : "JSON", message, sizeof message);
        fprintf(stderr, "turnstile taskkey: %s\n", message);
        /* the input's errors have a position; out of memory and libcrypto failures have none */
        status = err.line > 0 ? TS_EXIT_USAGE : TS_EXIT_FAILURE;
    } else if (printf("key: %s\nid: %s\n", key, id) < 0 || fflush(stdout) != 0) {
        fprintf(stderr, "turnstile taskkey: cannot write the result\n");
        status = TS_EXIT_FAILURE;
    }
    free(data);
    ts_buf_free(&canonical);
    return status;
}
