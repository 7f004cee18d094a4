/* store_file.h — a second durable store: the journal in two plain files, written with system
 * calls and no database, so that every window a crash can fall into between two writes is this
 * store's own — the reference's subject for the certifier's file-system nemesis, beside SQLite.
 *
 * Owns: two files in one directory and the owner lock on them (an exclusive flock(2) on the
 * index, held while the store is open).
 *   journal.dat  records appended one after another; a record is the whole journal's JSON
 *                (ts_journal_write_json, compact) after a write call
 *   journal.idx  a header line, then one line per record: its offset, length and CRC-32 in
 *                journal.dat, in fixed width ("%016x %08x %08x\n")
 * A write call is decided as the memory store decides it (this store wraps one), then made
 * durable: the record is appended to journal.dat and fdatasync'ed, then its index line is
 * appended to journal.idx and fdatasync'ed. The index line is the commit point: a crash before
 * it leaves the previous journal, after it the new one. Opening reads the last complete index
 * line and the record it names, and checks the record's length and CRC: a damaged journal is
 * refused, with what is wrong (a torn last index line is not damage: it is cut off). A new
 * store makes journal.dat, writes journal.idx.tmp and fdatasyncs it, renames it to journal.idx,
 * and fsyncs the directory, so both names are durable before the first write call returns.
 *
 * The options below are seams for the reference's mutants (conformance/testee/mutants.h): each
 * reproduces a crash-consistency bug of a class real stores have, which only a fault between
 * two file-system operations or a power loss can show.
 */
#ifndef TURNSTILE_CORE_STORE_FILE_H
#define TURNSTILE_CORE_STORE_FILE_H

#include <stdbool.h>

#include "core/json/error.h"
#include "core/resume/store.h"

typedef struct ts_file_store_options {
    bool index_before_record;     /* the index line is written and synced before its record: a crash
                                   * between the two leaves an index naming bytes that are not there */
    bool unchecked_group_sync;    /* record and index line are both written, then both synced, and
                                   * opening checks no CRC: a power loss that keeps the index line but
                                   * not all of the record leaves a torn record that is read as one */
    bool no_directory_sync;       /* a new store's files are named without an fsync of the directory:
                                   * a power loss can take the whole journal back to nothing */
    bool no_sync;                 /* never fsync: a store that survives a killed process only */
} ts_file_store_options;

/* Opens (or makes) the store in directory dir (which must exist); options NULL: the correct
 * store. NULL with err set when the files cannot be made or read, the journal is damaged, or
 * another process holds the store. Release it with ts_store_close. */
ts_store *ts_file_store_open(const char *dir, const ts_file_store_options *options, ts_error *err);

#endif
