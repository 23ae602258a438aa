/* One run of a campaign, shared by campaign.c (its steps) and
 * campaign_home.c (where the VM started, and back there).  Private to the
 * campaign's files. */
#ifndef NFSAGENT_CAMPAIGN_RUN_H
#define NFSAGENT_CAMPAIGN_RUN_H

#include "campaign.h"
#include "campaign_leftovers.h"

typedef struct na_run {
	na_campaign *c;
	const na_run_options *o;
	vs_client *cl;
	na_store *store;
	na_inventory inv;
	char id[160];            /* the run's name in the journal and on every result */
	char *vm_moref, *home;   /* the VM, and the datastore it started on */
	char *password;
	double t_move, t_bench, t_probe, t_start;
	bool broken[NA_MAX_TARGETS];  /* the extent-size bug stopped moves there */
	bool nfs3[NA_MAX_TARGETS];    /* the bug showed there and its policy is nfs3: NFS 3 from now on */
	int journal_failed;      /* the exit code of a journal that could not be read, or 0 */
	na_leftovers leftovers;  /* copies failed moves left on the targets */
	size_t guest_leftovers;  /* killed benchmarks whose guest folders could not be removed */
} na_run;

double na_run_clock(void);  /* monotonic seconds */
/* Whether step is journaled (and what was noted, malloc'd); a journal that
 * cannot be read stops the run at its next safe point and reads as done. */
bool na_run_done(na_run *r, const char *step, char **detail);
/* Journals step; an exit code. */
int na_run_mark(na_run *r, const char *step, const char *detail);
vs_vm *na_run_vm(const na_run *r);
vs_datastore *na_run_datastore(const na_run *r, const char *name);
/* Reloads the inventory; an exit code. */
int na_run_reload(na_run *r);
/* Moves the VM to ds (target ti, or NA_MAX_TARGETS for home) through
 * migrate; an exit code, 3 when the extent-size bug stopped the move. */
int na_run_move(na_run *r, size_t ti, const char *ds, const char *policy);

/* Journals where the VM started on the first run; reads it back on a resume. */
int na_run_remember_start(na_run *r);
/* The VM, each of its disks, and its power state back as they started. */
int na_run_go_home(na_run *r);
/* Prints where the VM and each disk are now (read again), against where
 * they started; NA_EXIT_FAIL when any is not back. */
int na_run_check_home(na_run *r);

#endif
