/* The migrate workflow: one VM's home and every disk to a datastore by
 * Storage vMotion, verified; on the NFS 4.1 extent-size bug, the chosen
 * workaround once. */
#ifndef NFSAGENT_OPS_MIGRATE_H
#define NFSAGENT_OPS_MIGRATE_H

#include "ops/campaign_leftovers.h"
#include "ops/session.h"
#include "ops/verdict.h"
#include "ops/diagnose.h"
#include "ops/extents.h"

typedef struct na_migrate_args {
	const char *vm, *datastore, *policy, *db;
	const char *vm_moref;  /* when set, the VM (names may repeat across folders) */
	bool allow_power_off;
	bool bug_seen;  /* the plain move hit the extent-size bug already: straight to the workaround */
	const char *campaign, *target;  /* recorded with a failure's verdict */
	/* Per disk of the VM's layout, the datastore (moref) it goes to (a NULL
	 * entry: datastore's); NULL: every disk to datastore.  A campaign puts
	 * a disk that started elsewhere back there. */
	const char *const *disk_datastores;
} na_migrate_args;

typedef struct na_migrate_result {
	bool moved, already_there;
	const char *workaround;  /* the policy applied, if any */
	na_diagnosis diag;       /* a failed move's (verdict NULL: none) */
	na_checks checks;        /* every extent after the move */
	vs_vm *now;              /* the VM read again at the end (NULL: could not be) */
	na_leftovers leftovers;  /* what failed moves left on the target */
} na_migrate_result;

/* Moves a->vm to a->datastore (nothing when it is there already), then
 * verifies it; a failed move is diagnosed and its verdict recorded (in
 * s->store, else a->db).  Progress lines and warnings go to the session;
 * out says what happened, whatever rc is. */
int na_op_migrate(na_session *s, const na_migrate_args *a, na_migrate_result *out, vs_error *err);
/* A failed move's diagnosis: its evidence said on the session, its verdict
 * recorded (in s->store, else a->db).  task_err becomes the verdict, the one
 * line the caller tells (the fault and ESXi's details are in the evidence). */
void na_migrate_diagnose(na_session *s, const na_migrate_args *a, const vs_vm *vm,
                         const char *log_dir, const vs_datastore *target,
                         const na_attempt *attempt, vs_error *task_err, na_diagnosis *d);
/* Clean when moved and verified; a finding when the extent-size bug
 * stopped it (whatever rc is) or an extent is short after the move. */
na_verdict na_migrate_verdict(const na_migrate_result *r, int rc);
void na_migrate_result_free(na_migrate_result *r);
/* The migrate op with its lines on the session, then the verification
 * and where the VM is; its status, verdict and err, said by nobody here
 * (err's message and fault are emptied, its status kept, when the
 * diagnosis has said why).  record (may be NULL) gets the JSON of it all,
 * for a caller that prints JSON; left (may be NULL) what failed moves left
 * on the target, for the caller to list. */
vs_status na_migrate_shown(na_session *s, const na_migrate_args *a, json_t **record,
                           na_verdict *verdict, na_leftovers *left, vs_error *err);


#endif
