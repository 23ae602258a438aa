/* Text that commands and the campaign both show (render.c). */
#ifndef NFSAGENT_RENDER_H
#define NFSAGENT_RENDER_H

#include "ops/migrate.h"
#include "ops/probe.h"
#include "ops/verify.h"

/* A probe's verdict and each canary's check, as text (run shows it too). */
void na_probe_print(const na_probe_result *r);
/* The verdict line and each extent's check, as text. */
void na_verify_print(const char *vm, const na_checks *checks);
/* The migrate op with its lines on stdout, then the verification
 * and where the VM is; its status, verdict and err, printed by nobody here
 * (err's message and fault are emptied, its status kept, when the
 * diagnosis has said why).  record (may be NULL) gets the JSON of it all
 * instead, for a caller that prints JSON; left (may be NULL) what failed
 * moves left on the target, for the caller to list. */
vs_status na_migrate_shown(na_session *s, const na_migrate_args *a, bool json, json_t **record,
                           na_verdict *verdict, na_leftovers *left, vs_error *err);

#endif
