/* What a campaign's runs leave in its VM's guest: the programs and folders
 * of a killed run, found by the pids the journal holds, ended and removed
 * before anything new runs there. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/campaign_run.h"
#include "ops/bench.h"
#include "ops/extents.h"
#include "interrupts.h"

vs_guest_auth na_run_guest_auth(const na_run *r)
{
	return (vs_guest_auth){r->c->guest_user ? r->c->guest_user : getenv("NFSAGENT_GUEST_USER"),
	                       r->password};
}

na_bench na_run_bench_in(na_run *r, na_session *s, const vs_vm *vm)
{
	/* A group's members each look at their own fio. */
	bool one = !r->n_vms;
	na_bench b = {.s = s, .vm = vm, .host = na_host_by_moref(&r->inv, vm->host),
	              .auth = na_run_guest_auth(r),
	              .job = {r->c->size, r->c->runtime, r->c->ramp, r->c->dir},
	              .fio_checked = one && r->fio_checked, .fio_libaio = one && r->fio_libaio,
	              .took = r->took, .guest = one ? r->guest : (na_bench_guest){0},
	              .stop = &na_stop_requested};
	b.guest.keep = one;
	return b;
}

/* The one VM keeps its folders and job texts from round to round (the
 * guest and its disk move with it): two folders made and removed, and a
 * text uploaded, per campaign rather than per round. */
void na_run_bench_done(na_run *r, na_bench *b)
{
	na_bench_end(b);
	if (!r->n_vms)
		r->guest = b->guest;
}

/* Removed at the rounds' end when no cleanup follows (a Ctrl-C, cleanup =
 * no; else its sweep of the run's mark removes them); in a VM left off (a
 * failed power-on) the next cleanup's sweep removes them once it is on. */
void na_run_guest_end(na_run *r)
{
	const vs_vm *vm = na_run_vm(r);
	if (vm && vm->power_state && strcmp(vm->power_state, "poweredOn") == 0) {
		na_session s = na_run_session(r);
		na_bench b = na_run_bench(r, &s);
		na_bench_end_kept(&b);
	} else {
		na_bench_guest_free(&r->guest);
	}
	r->guest = (na_bench_guest){0};
}

/* A power cycle (a cold move) may have emptied the guest's /tmp: the
 * next round makes the folders and uploads the texts again, and what may
 * remain of them is removed at the end all the same. */
void na_run_guest_forget(na_run *r)
{
	bool stale = r->guest.made || r->guest.stale;
	na_bench_guest_free(&r->guest);
	r->guest.stale = stale;
}

/* A benchmark in the campaign's VM, with its guest login and job settings. */
na_bench na_run_bench(na_run *r, na_session *s)
{
	return na_run_bench_in(r, s, na_run_vm(r));
}

/* The guest can benchmark (credentials, fio and its libaio), checked once
 * before the first move: a VM without fio is said before anything moves,
 * not after a Storage vMotion for every target. */
int na_run_check_guest(na_run *r)
{
	vs_error err = {0};
	na_session s = na_run_session(r);
	for (size_t i = 0; i < na_run_vm_count(r); i++) {
		const vs_vm *vm = na_run_vm_at(r, i);
		if (!vm)
			return na_run_failf(r, VS_ERR_TASK, "the VM %s disappeared", na_run_vm_name_at(r, i));
		na_bench b = na_run_bench_in(r, &s, vm);
		if (na_bench_begin(&b, &err) != VS_OK) {
			na_run_bench_done(r, &b);  /* what it made goes when the rounds end */
			return na_run_fail(r, &err);
		}
		r->fio_checked = b.fio_checked;
		r->fio_libaio = b.fio_libaio;
		na_run_bench_done(r, &b);
	}
	return VS_OK;
}

/* "Ended fio of an earlier run (nfsagent 4242) in fiotest: guest pids 7, 9."
 * (or what else of that run was still running there). */
static void say_ended(const na_run *r, const char *vm, const char *mark, const vs_guest_programs *ended)
{
	if (ended->n == 0)
		return;
	char names[256] = "", pids[256] = "";
	size_t nn = 0, np = 0;
	for (size_t i = 0; i < ended->n; i++) {
		const char *name = ended->v[i].name;
		bool named = false;
		for (size_t j = 0; j < i && !named; j++)
			named = strcmp(ended->v[j].name, name) == 0;
		if (!named && nn < sizeof(names))
			nn += (size_t)snprintf(names + nn, sizeof(names) - nn, "%s%s", nn ? ", " : "", name);
		if (np < sizeof(pids))
			np += (size_t)snprintf(pids + np, sizeof(pids) - np, "%s%lld", np ? ", " : "",
			                       (long long)ended->v[i].pid);
	}
	na_say(r->say, "Ended %s of an earlier run (nfsagent %.*s) in %s: guest pid%s %s.", names,
	       (int)strspn(mark, "0123456789"), mark, vm, ended->n > 1 ? "s" : "", pids);
}

/* Why what the run of mark left in the guest could not be removed. */
static void warn_left(const na_run *r, const char *mark, const char *name, const vs_vm *vm,
                      const vs_error *err)
{
	char why[1200];
	if (!r->password)
		snprintf(why, sizeof(why), "%s", r->c->guest_password_file
		                                     ? "the guest password file could not be read"
		                                     : "no guest password to remove it with");
	else if (!vm)
		snprintf(why, sizeof(why), "the VM is not in the inventory");
	else
		vs_error_format(err, why, sizeof(why));
	na_say_warning(r->say, "what benchmark process %.*s left in %s may remain in the guest: %s",
	        (int)strspn(mark, "0123456789"), mark, name, why);
}

/* What the run of mark left in each of the campaign's VMs (a group's: in
 * all of them), ended and removed; not VS_OK when something remains. */
static int sweep_mark(const na_run *r, const vs_guest_auth *auth, const char *mark)
{
	int rc = VS_OK;
	for (size_t i = 0; i < na_run_vm_count(r); i++) {
		vs_error err = {0};
		/* NULL: gone from the inventory (a cleanup goes on) */
		vs_vm *vm = na_run_vm_at(r, i);
		const char *name = na_run_vm_name_at(r, i);
		vs_guest_programs ended = {0};
		int swept = r->password && vm ? na_bench_sweep(r->cl, vm, auth, r->c->dir, mark, &ended, &err)
		                              : VS_ERR_USAGE;
		say_ended(r, name, mark, &ended);
		vs_guest_programs_free(&ended);
		if (swept != VS_OK)
			warn_left(r, mark, name, vm, &err);
		if (rc == VS_OK)
			rc = swept;
	}
	return rc;
}

/* Every process of a run that benchmarks is journaled first ("bench-pids",
 * each by its mark, na_bench_mark), so that what a killed one left in the
 * guest (its fio still running, fio's folder and files, its staging
 * folder) is ended and removed by the next: before it benchmarks (self: it
 * joins the list), and at cleanup or abort.  This process's own mark is
 * swept too: before it benchmarks nothing of it runs there, and at cleanup
 * its fio is over unless stopping it failed.  A folder that cannot be
 * removed now (the guest is off, no password) keeps its mark for the next
 * time, and r->guest_leftovers counts it. */
int na_run_sweep_guest(na_run *r, bool self)
{
	char *marks = NULL, *save = NULL, *left = NULL;
	const char *me = na_bench_mark();
	na_run_done(r, "bench-pids", &marks);
	vs_guest_auth auth = na_run_guest_auth(r);
	bool ok = true, me_left = false;
	r->guest_leftovers = 0;
	for (char *m = marks ? strtok_r(marks, ", ", &save) : NULL; m; m = strtok_r(NULL, ", ", &save)) {
		if (!na_bench_mark_valid(m))
			continue;  /* nfsagent wrote it: never */
		if (sweep_mark(r, &auth, m) == VS_OK)
			continue;
		r->guest_leftovers++;
		me_left |= strcmp(m, me) == 0;
		ok &= na_list_add(&left, m);
	}
	if (self && !me_left)
		ok &= na_list_add(&left, me);
	free(marks);
	int rc = ok ? na_run_mark(r, "bench-pids", left ? left : "")
	            : na_run_fail(r, &(vs_error){.status = VS_ERR_NOMEM, .message = "out of memory"});
	free(left);
	return rc;
}

const nas_target *na_run_nas_target(const na_target *t, nas_target *nas)
{
	/* The parser checked the key: a refusal here is out of memory, and no
	 * NAS side. */
	vs_error err = {0};
	bool made = (t->nas && nas_target_host(nas, t->nas, &err) == VS_OK) ||
	            (!t->nas && t->nas_command && nas_target_command(nas, t->nas_command, &err) == VS_OK);
	nas->timeout_s = NA_BENCH_NAS_TIMEOUT_S;
	return made ? nas : NULL;
}

size_t na_run_labels(const na_run *r, const na_target *t, na_label *out)
{
	size_t n = 0;
	for (size_t i = 0; i < r->c->labels.n; i++)
		out[n++] = r->c->labels.v[i];
	for (size_t i = 0; i < t->labels.n; i++)
		out[n++] = t->labels.v[i];
	return n;
}
