/* Text an op's caller shows, line by line: a probe's verdict and its
 * canaries, the extents a verify checked.  Each line goes to emit (a
 * command prints it; the campaign hands it to its session's sink), so that
 * the text is made once, below the commands. */
#ifndef NFSAGENT_OPS_LINES_H
#define NFSAGENT_OPS_LINES_H

#include "ops/probe.h"
#include "ops/session.h"

/* text wrapped to NA_TEXT_WIDTH (its first line after indent blanks, the
 * others after cont), each line to emit. */
void na_wrapped_lines(const char *text, size_t indent, size_t cont, na_output_fn emit, void *ud);
/* The verdict (escaped: it names hosts and the datastore), then each
 * canary's check, within NA_TEXT_WIDTH columns. */
void na_probe_lines(const na_probe_result *r, na_output_fn emit, void *ud);
/* The verdict line ("VM: 3 extents checked: ..."), then each extent's check. */
void na_verify_lines(const char *vm, const na_checks *checks, na_output_fn emit, void *ud);

#endif
