/* The fleet workflow: many VMs to one datastore by Storage vMotion, several
 * at once within vCenter's limits, each verified as it lands. */
#ifndef NFSAGENT_OPS_FLEET_H
#define NFSAGENT_OPS_FLEET_H

#include "ops/migrate.h"

enum { NA_FLEET_MAX_PARALLEL = 32, NA_FLEET_PARALLEL = 4, NA_FLEET_PER_HOST = 2,
       NA_FLEET_PER_DATASTORE = 8 };

typedef enum na_fleet_state {
	NA_FLEET_WAITING,  /* not started yet */
	NA_FLEET_STARTED,  /* asked of vCenter, no state from it yet */
	NA_FLEET_QUEUED,   /* vCenter queued it (its own limits) */
	NA_FLEET_MOVING,
	NA_FLEET_DONE,     /* on the target (moved or there already); see verdict */
	NA_FLEET_FAILED,
	NA_FLEET_NOT_TRIED,
} na_fleet_state;

typedef struct na_fleet_vm {
	char *name, *moref, *host;  /* host: the moref it runs on */
	char **from;                /* the datastores it has files on (morefs) */
	char *home;                 /* the datastore of its .vmx (moref), where it goes back to */
	size_t n_from;
	int64_t bytes;              /* its files, as vCenter counts them; -1 unknown */
	na_fleet_state state;
	bool already_there;         /* nothing to move */
	bool adopted;               /* a relocation found running (a killed run's) was waited for */
	int progress;               /* percent, -1 unknown */
	/* Since the fleet began, as we saw them: vCenter took the task, began
	 * moving (after its queue; 0 until seen), the move ended. */
	double started_s, moving_s, ended_s;
	/* The move's own time and the time vCenter queued it, by vCenter's
	 * clock (its task's times); -1 when it did not say them. */
	double own_s, queued_s;
	vs_error err;               /* a failure's */
	na_verdict verdict;         /* of the verification, or of a failure's diagnosis */
	na_diagnosis diag;
	na_checks checks;
	/* while in flight */
	char *task;
	vs_vm *landed;  /* on the target after its move; its checks come next */
	vs_vm_layout *layout;
	na_attempt attempt;
} na_fleet_vm;

typedef struct na_fleet_result {
	na_fleet_vm *vms;
	size_t n;
	const char *stopped;   /* why VMs were left not tried, or NULL */
	const char *remounted; /* the extent-size workaround applied to the target, or NULL */
	na_leftovers leftovers;
	double elapsed_s;
	bool interrupted;
} na_fleet_result;

typedef struct na_fleet_args {
	const na_migrate_args *one;  /* datastore, policy, db as for one VM */
	int parallel, per_host, per_datastore;
	bool keep_going;
	/* Called after each change (a state, a progress step); may be NULL. */
	void (*changed)(void *ud, const na_fleet_result *now);
	void *ud;
} na_fleet_args;

/* Reads every VM's host, datastores and size; marks those on the target
 * already.  Nothing moves. */
int na_fleet_plan(na_session *s, const na_fleet_args *a, const vs_vm *const *vms, size_t n,
                  na_fleet_result *out, vs_error *err);
/* Moves the planned VMs: up to a->parallel at once, at most per_host from
 * one source host and per_datastore through one datastore; each verified as
 * it lands.  A failure stops new starts unless keep_going; Ctrl-C stops new
 * starts and waits for the moves in flight.  The extent-size bug stops new
 * starts, and after the moves in flight have ended its workaround is
 * applied (the target remounted as NFS 3 once; or each VM's snapshot or
 * cold move), and the VMs it stopped are moved.  out says what became of
 * each VM, whatever rc is; err is a failure that stopped the fleet itself. */
int na_op_fleet(na_session *s, const na_fleet_args *a, na_fleet_result *out, vs_error *err);
/* Clean when every VM is on the target and verified. */
na_verdict na_fleet_verdict(const na_fleet_result *r);
void na_fleet_result_free(na_fleet_result *r);

#endif
