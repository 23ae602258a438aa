/* What every workflow (agent/ops/) works with: the client, an inventory it
 * keeps current, the results database, and where its progress lines go.
 * An op prints nothing itself: it hands each line to the sink, and returns
 * a status, a result struct and a vs_error for its caller to render. */
#ifndef NFSAGENT_OPS_SESSION_H
#define NFSAGENT_OPS_SESSION_H

#include "output.h"
#include "store/store.h"
#include "ops/inventory.h"

/* One line of progress ("DC0_H0: unmounted bench-v3"), without its newline. */
typedef void (*na_output_fn)(void *ud, const char *line);

typedef struct na_session {
	vs_client *client;
	/* The caller's, current when the op starts.  An op that changes the
	 * world marks it stale, and the next op reads the datastores again
	 * (na_inventory_refresh) before it looks: pointers into its datastores
	 * and VMs do not survive an op that changed something; hosts and
	 * clusters do. */
	na_inventory *inv;
	bool stale;
	bool power_cycled;      /* an op powered a VM off and on (a cold move): its guest's /tmp may be new */
	na_store *store;      /* may be NULL */
	na_output_fn output;   /* NULL: silent */
	na_output_fn warning;  /* what went wrong beside the op's result; NULL: silent */
	na_progress *progress; /* where a long step shows its percent (stderr); NULL: not shown */
	/* A warning's detail lines (a fault's reason, its cause), each under the
	 * warning; NULL: dropped. */
	na_output_fn detail;
	void *output_ud;
} na_session;

/* Formats a line and hands it to the session's sink, if any. */
void na_say(const na_session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The same for a warning, without its "warning: ". */
void na_say_warning(const na_session *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An error said as a warning: its headline, then each of its details
 * (na_print_warning_error's lines, through the sinks). */
void na_say_warning_error(const na_session *s, const vs_error *err);
/* After a power-on, VMware Tools take a while (a real guest: tens of
 * seconds): waits up to NA_TOOLS_BOOT_S for the VM's guest operations,
 * saying so once; err is the last check's when they never came (or Ctrl-C). */
enum { NA_TOOLS_BOOT_S = 300 };
int na_wait_for_tools(const na_session *s, const char *vm, const char *name, vs_error *err);
/* Reads the datastores again when an op changed them since. */
int na_session_fresh(na_session *s, vs_error *err);
/* The sink commands hand an op to show its lines on stdout (escaped: a
 * name cannot drive the terminal), each as it comes. */
void na_print_line(void *ud, const char *line);
/* The sink for warnings: stderr, as na_warn. */
void na_print_warning(void *ud, const char *line);


#endif
