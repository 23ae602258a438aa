/* The verify workflow: every descriptor of every disk of a VM, each extent
 * against the size its descriptor declares, as the VM's host reads it. */
#ifndef NFSAGENT_OPS_VERIFY_H
#define NFSAGENT_OPS_VERIFY_H

#include "ops/session.h"
#include "ops/verdict.h"
#include "ops/extents.h"

/* Checks through the host vm runs on now (a move may have changed it); a
 * short extent is read again after recheck_s and through the other hosts. */
int na_op_verify(na_session *s, const vs_vm *vm, int recheck_s, na_checks *checks, vs_error *err);
/* Clean when all hold, a finding when one is short, a problem when a
 * descriptor could not be read, unchecked when nothing could be. */
na_verdict na_verify_verdict(const na_checks *checks);

#endif
