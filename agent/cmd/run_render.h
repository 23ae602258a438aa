/* What nfsagent run shows of a campaign: its plan before it starts, and
 * after it ran the summary, read back from the results database, and
 * where the time went (run_render.c, run_summary.c). */
#ifndef NFSAGENT_RUN_RENDER_H
#define NFSAGENT_RUN_RENDER_H

#include "ops/campaign.h"

/* The plan (a na_campaign_args planned callback; ud unused). */
void na_campaign_print_plan(void *ud, const na_campaign_plan *p);
/* Per target: results ok/failed, the protocol they really ran over, and
 * whether the extent-size bug stopped a move there (from the findings). */
int na_campaign_print_summary(na_store *store, const na_campaign *c, const char *run_id,
                              vs_error *err);
/* What limited each target's profile, a line each (run_limits.c). */
void na_campaign_print_limits(na_store *store, const na_campaign *c, const char *run_id);
/* "Where the time went (...)": two lines. */
void na_campaign_print_time(const na_campaign_result *r);

#endif
