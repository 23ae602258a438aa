/* The verify workflow (ops/verify.h). */
#include <stdlib.h>
#include <string.h>

#include "ops/verify.h"

int na_op_verify(na_session *s, const vs_vm *vm, int recheck_s, na_checks *checks, vs_error *err)
{
	vs_client *c = s->client;
	vs_vm_layout *layout = NULL;
	/* The host it runs on now (a move may have taken it elsewhere), read
	 * with its disks. */
	int rc = vs_vm_layout_read(c, vm->moref, &layout, err);
	const char *host = rc == VS_OK ? layout->host : NULL;
	if (rc == VS_OK && !host)
		rc = vs_fail(err, VS_ERR_NOT_FOUND, "%s runs on no host", vm->name);
	for (size_t d = 0; rc == VS_OK && d < layout->n_disks; d++)
		for (size_t l = 0; rc == VS_OK && l < layout->disks[d].n_chain; l++)
			rc = na_check_descriptor(c, layout->disks[d].chain[l], layout, checks, err);
	na_viewpoint at = {s->inv, host, recheck_s};
	if (rc == VS_OK)
		rc = na_checks_measure(c, &at, checks, err);
	if (rc == VS_OK)
		rc = na_checks_confirm(c, &at, checks, err);
	if (rc != VS_OK)
		vs_error_context(err, "verifying the disks of %s", vm->name);
	vs_vm_layout_free(&layout);
	return rc;
}

na_verdict na_verify_verdict(const na_checks *checks)
{
	na_tally t = na_checks_tally(checks);
	return t.short_     ? NA_VERDICT_FINDING
	       : t.problems ? NA_VERDICT_PROBLEM
	       : t.unknown  ? NA_VERDICT_UNCHECKED
	                    : NA_VERDICT_CLEAN;
}
