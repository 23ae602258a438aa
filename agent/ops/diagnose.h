/* Why a Storage vMotion failed: the extent-size bug's signatures in the
 * task's fault, in vmware.log and in the files left on the target. */
#ifndef NFSAGENT_OPS_DIAGNOSE_H
#define NFSAGENT_OPS_DIAGNOSE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nfsagent/vsphere.h"
#include "ops/inventory.h"

typedef struct na_diagnosis {
	bool extent_bug;       /* the descriptor/extent size mismatch showed */
	bool log_signature;    /* ...in vmware.log */
	bool target_mismatch;  /* ...in the files left on the target */
	bool fault_signature;  /* ...in the task's fault (faultMessage, faultCause) */
	const char *extent_case;  /* of the target's short extent (na_extent_case), or NULL */
	char *verdict;         /* one line */
	char **evidence;
	size_t n_evidence;
} na_diagnosis;

/* The target folder a move's attempt uses: vCenter names it after the VM's
 * folder ("fiotest"), or "fiotest_1", "fiotest_2"... when that name is taken
 * (a failed attempt's leftovers).  Taken before the move: which names were
 * there. */
typedef struct na_attempt {
	char *folder;       /* the VM's folder, "fiotest"; NULL if unknown */
	char **before;      /* names of it on the target before the move */
	size_t n_before;
} na_attempt;
void na_attempt_begin(vs_client *c, const na_inventory *inv, const vs_vm *vm,
                      const vs_datastore *target, na_attempt *a);
/* The same from a listing of the target's root taken before the move
 * (root NULL: none was; the try's folder is then not told). */
void na_attempt_from(const vs_vm *vm, const vs_file *root, size_t n_root, na_attempt *a);
void na_attempt_free(na_attempt *a);
/* Whether name is folder or folder_N (vCenter's names for it). */
bool na_attempt_name(const char *folder, const char *name);
/* The folder the attempt used: the one of its names in after[] that was not
 * in before[] (the first, in after's order); folder itself when none is
 * new (the attempt made none, or wrote into the folder it found); NULL
 * when before is (not known). */
const char *na_attempt_folder(const char *folder, char *const *before, size_t n_before,
                              char *const *after, size_t n_after);
/* Where the lines of a vmware.log text written at or after since_ms begin
 * (a line starts with its time, "2024-05-01T10:00:00.123Z In(05) vmx - ..";
 * a line without one goes with the line before).  0 when since_ms is 0
 * (unknown); len when no line is that new. */
size_t na_log_since(const char *text, size_t len, int64_t since_ms);
/* The fault's own texts (faultMessage, faultCause: task_err->details) as
 * evidence, and whether one of them (or the message) shows a signature of
 * the bug: they may name it where vCenter's message does not. */
void na_diagnose_fault(const vs_error *task_err, na_diagnosis *d);
void na_diagnose_move(vs_client *c, const na_inventory *inv, const vs_vm *vm, const char *log_dir,
                      const vs_datastore *target, const na_attempt *attempt,
                      const vs_error *task_err, na_diagnosis *d);
void na_diagnosis_verdict(const na_inventory *inv, const char *host_moref, const vs_datastore *ds,
                          const vs_error *task_err, na_diagnosis *d);
void na_diagnosis_free(na_diagnosis *d);
json_t *na_diagnosis_json(const na_diagnosis *d);

#endif
