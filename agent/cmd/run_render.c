/* What nfsagent run shows of a campaign before it starts, and where its
 * time went (run_render.h). */
#include <stdio.h>
#include <string.h>

#include "cmd/run_render.h"
#include "analysis/stats.h"

typedef struct plan_target {
	const na_campaign_plan *p;
	size_t i;
} plan_target;

/* What the campaign does with a target (a plan_target), in words. */
static void write_target(FILE *out, const void *plan_target_)
{
	const plan_target *pt = plan_target_;
	const na_target *t = &pt->p->c->targets[pt->i];
	fprintf(out, "target %s: ", t->name);
	if (t->servers) {
		fprintf(out, "%s:%s as NFS %s named %s on ", t->servers, t->path, t->nfs, t->datastore);
		if (t->hosts && !strcmp(t->hosts, "all"))
			fprintf(out, "all hosts");
		else
			fprintf(out, "%s", pt->p->target_hosts[pt->i] ? pt->p->target_hosts[pt->i] : "");
	} else
		fprintf(out, "datastore %s", t->datastore);
	fprintf(out, "%s; on the extent-size bug: %s", t->probe > 0 ? "; probe first" : "", na_target_policy(t));
	if (t->baseline > 0)
		fprintf(out, "; after its last repetition, each profile once on the NAS itself (baseline)");
	for (size_t k = 0; k < t->labels.n; k++)
		fprintf(out, "%s%s=%s", k ? "," : "; labels ", t->labels.v[k].key, t->labels.v[k].value);
}

/* The VMs of a group campaign (a na_campaign_plan), in words. */
static void write_vms(FILE *out, const void *plan)
{
	const na_campaign_plan *p = plan;
	fprintf(out, "%zu VMs, on %s: ", p->n_vms, p->home);
	for (size_t i = 0; i < p->n_vms; i++)
		fprintf(out, "%s%s", i ? ", " : "", p->vm_names[i]);
}

void na_campaign_print_plan(void *ud, const na_campaign_plan *p)
{
	(void)ud;
	const na_campaign *c = p->c;
	printf("Campaign %s (%s), run %s\n", c->name, c->file, p->run_id);
	if (p->n_vms) {
		na_print_wrapped_by(stdout, write_vms, p, 2, 4);
		printf("  each repetition of a profile is one group run in all of them; moves: %ld at "
		       "once, %ld per host, %ld per datastore\n", c->parallel, c->per_host, c->per_datastore);
	} else {
		printf("  VM %s, now on %s (host %s)\n", p->vm, p->home, p->vm_host);
	}
	for (size_t i = 0; i < c->n_targets; i++)
		na_print_wrapped_by(stdout, write_target, &(plan_target){p, i}, 2, 4);
	printf("  profiles:");
	for (size_t i = 0; i < c->n_profiles; i++)
		printf(" %s", c->profiles[i]);
	printf(" x %ld repetitions, targets interleaved; size %s, runtime %ld s\n", c->repeat, c->size,
	       c->runtime);
	bool made = false;
	for (size_t i = 0; i < c->n_targets; i++)
		made = made || (c->targets[i].create && !c->targets[i].keep);
	printf("  then: %s%s\n", c->cleanup ? "move the VM home and unmount what the campaign mounted"
	                                    : "leave everything as it is (cleanup = no)",
	       c->cleanup && made ? ", and remove the datasets it made" : "");
	fflush(stdout);
}

void na_campaign_print_time(const na_campaign_result *r)
{
	double other = r->total_s - r->move_s - r->bench_s - r->nas_s - r->probe_s - r->mount_s;
	char nas[64] = "";
	if (r->nas_s > 0)  /* each round with a NAS reads its settings before its runs */
		snprintf(nas, sizeof(nas), ", reading the NAS %.1f s", r->nas_s);
	/* two lines: one did not fit a terminal's 120 columns */
	printf("Where the time went (%.1f s): Storage vMotion %.1f s, benchmarks %.1f s%s, probes %.1f s,\n"
	       "  mounts and unmounts %.1f s, nfsagent and everything else %.1f s (%.1f%%)\n",
	       r->total_s, r->move_s, r->bench_s, nas, r->probe_s, r->mount_s, other,
	       r->total_s > 0 ? 100 * other / r->total_s : 0);
}
