/* output_file.h — a file the certifier writes whole or not at all (reports, the rewritten
 * expected-failures list).
 *
 * Owns: one output's temporary file. Opening creates a temporary file in the destination's
 * directory (so an unwritable path fails before any testee runs) and truncates nothing;
 * committing flushes it, syncs it and renames it over the destination, so the destination holds
 * either what it held before or the whole new text, also when the certifier is killed, crashes,
 * or its testee cannot start. Until committed, the temporary file is removed at any end of the
 * process (supervise.h), and by ts_output_discard. "-" is standard output, written as it is. A
 * destination that exists and is not a regular file (/dev/null, a FIFO) is written directly; a
 * symbolic link is followed to the file it names, which is replaced.
 */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_OUTPUT_FILE_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_OUTPUT_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

typedef struct ts_output_file {
    FILE *stream;     /* write here; NULL when not open */
    char *path;       /* the destination (heap; resolved through links) */
    char *temp;       /* the temporary file (heap), or NULL when written directly */
} ts_output_file;

/* Opens path for writing as above. false with a reason in why (and o empty) when its directory
 * is not writable or it cannot be opened. */
bool ts_output_open(ts_output_file *o, const char *path, char *why, size_t why_size);

/* Flushes and closes the stream, and moves the temporary file into place. false with a reason
 * in why when a write, the sync or the rename failed (the destination is then as it was). o is
 * empty afterwards. Accepts an empty o (true). */
bool ts_output_commit(ts_output_file *o, char *why, size_t why_size);

/* Closes the stream and removes the temporary file: the destination stays as it was. Accepts an
 * empty o. */
void ts_output_discard(ts_output_file *o);

#endif
