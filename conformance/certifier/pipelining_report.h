/* pipelining_report.h — what the reports say of pipelined world calls (PROTOCOL.md: a testee that
 * writes its next world call before it reads the reply to the last). The certifier sees it per
 * case (world.h) and then settles its kills; each resume case's history says so ("pipelining").
 *
 * Owns: gathering that from the histories of a certification, and one line of text and one JSON
 * member saying which cases pipelined, the --kill-settle the testee needs, and how many kills were
 * not settled first (their U7 findings may be the kill's timing, not the engine's). Presentation
 * only; nothing is judged here.
 */
#ifndef TURNSTILE_CONFORMANCE_CERTIFIER_PIPELINING_REPORT_H
#define TURNSTILE_CONFORMANCE_CERTIFIER_PIPELINING_REPORT_H

#include <stdio.h>

#include "conformance/certifier/run.h"
#include "core/json/json_writer.h"

/* Prints "pipelining: ..." (one line, ending in a newline) when some resume case of c pipelined;
 * nothing otherwise. */
void ts_pipelining_report_text(FILE *out, const ts_certification *c);

/* Writes the member "pipelining":{"cases":[ID,...],"killSettleMs":N,"settledKillRuns":N,
 * "unsettledKillRuns":N} into the object w is writing when some resume case of c pipelined;
 * nothing otherwise. Errors are w's (json_writer.h). */
void ts_pipelining_report_json(ts_json_writer *w, const ts_certification *c);

#endif
