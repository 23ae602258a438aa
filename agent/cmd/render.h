/* Text that commands show (render.c). */
#ifndef NFSAGENT_RENDER_H
#define NFSAGENT_RENDER_H

#include "ops/campaign_leftovers.h"
#include "ops/probe.h"
#include "ops/verify.h"

/* A probe's verdict and each canary's check, as text. */
void na_probe_print(const na_probe_result *r);
/* The verdict line and each extent's check, as text. */
void na_verify_print(const char *vm, const na_checks *checks);
/* What failed moves left on the targets, when there is any, on stdout. */
void na_leftovers_print(const na_leftovers *l);

#endif
