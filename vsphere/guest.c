/* Guest operations through VMware Tools: files in and out, programs
 * started, watched and stopped.  No network path to the guest is needed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

static const struct {
	const char *fault, *message;
} guest_faults[] = {
	{"InvalidGuestLogin", "the guest user name or password is wrong"},
	{"GuestPermissionDenied", "the guest user may not do this"},
	{"GuestOperationsUnavailable", "VMware Tools in the guest is not running or not ready"},
	{"InvalidPowerState", "the VM is not powered on"},
	{"GuestProcessNotFound", "no such process in the guest"},
	{"FileNotFound", "no such file in the guest"},
};

/* Says what a guest fault means, keeping the fault type. */
static int guest_error(int rc, vs_error *err)
{
	for (size_t i = 0; rc == VS_ERR_FAULT && i < sizeof(guest_faults) / sizeof(*guest_faults); i++)
		if (strcmp(err->fault, guest_faults[i].fault) == 0)
			snprintf(err->message, sizeof(err->message), "%s", guest_faults[i].message);
	return rc;
}

static int read_managers(const char *type, const char *moref, const xmlNode *object, void *ud,
                         vs_error *err)
{
	(void)type, (void)moref, (void)err;
	vs_client *c = ud;
	c->guest_files = vs_prop_text(object, "fileManager");
	c->guest_processes = vs_prop_text(object, "processManager");
	return VS_OK;
}

static int managers(vs_client *c, vs_error *err)
{
	static const char *const paths[] = {"fileManager", "processManager", NULL};
	if (c->guest_files && c->guest_processes)
		return VS_OK;
	if (!c->sc.guest_operations_manager)
		return vs_fail(err, VS_ERR_USAGE, "this server has no guest operations manager");
	int rc = vs_props_one(c, "GuestOperationsManager", c->sc.guest_operations_manager, paths,
	                      read_managers, c, err);
	if (rc == VS_OK && (!c->guest_files || !c->guest_processes))
		rc = vs_fail(err, VS_ERR_PROTOCOL, "the guest operations manager has no file or process manager");
	return rc;
}

/* <vm/><auth xsi:type="NamePasswordAuthentication">...</auth> */
static void vm_and_auth(vs_buf *b, const char *vm, const vs_guest_auth *auth)
{
	vs_buf_moref(b, "vm", "VirtualMachine", vm);
	vs_buf_add(b, "<auth xsi:type=\"NamePasswordAuthentication\"><interactiveSession>false"
	              "</interactiveSession>");
	vs_buf_elem(b, "username", auth->username);
	vs_buf_elem(b, "password", auth->password);
	vs_buf_add(b, "</auth>");
}

/* Calls a guest method on the file or process manager; with settle, made
 * safe to retry (vs_call_settled), settle's ud then says what it found. */
static int guest_call_settled(vs_client *c, bool files, const char *method, const char *vm,
                              const vs_guest_auth *auth, const char *extra, vs_occurs occurs,
                              unsigned flags, const vs_settle *settle, vs_reply *reply,
                              vs_error *err)
{
	int rc = managers(c, err);
	if (rc != VS_OK)
		return rc;
	vs_buf p = {0};
	vm_and_auth(&p, vm, auth);
	vs_buf_add(&p, extra ? extra : "");
	const char *type = files ? "GuestFileManager" : "GuestProcessManager";
	const char *mgr = files ? c->guest_files : c->guest_processes;
	bool settled = false;
	if (p.failed)
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	else if (settle)
		rc = vs_call_settled(c, method, type, mgr, p.data, occurs, settle, reply, &settled, err);
	else
		rc = vs_call(c, method, type, mgr, p.data, occurs, flags, NULL, reply, err);
	vs_buf_free(&p);
	return guest_error(rc, err);
}

static int guest_call(vs_client *c, bool files, const char *method, const char *vm,
                      const vs_guest_auth *auth, const char *extra, vs_occurs occurs,
                      unsigned flags, vs_reply *reply, vs_error *err)
{
	return guest_call_settled(c, files, method, vm, auth, extra, occurs, flags, NULL, reply, err);
}

const char *const vs_guest_readiness_paths[] = {"name", "runtime.powerState",
                                               "guest.toolsRunningStatus",
                                               "guest.guestOperationsReady", NULL};

int vs_guest_readiness(const char *moref, const xmlNode *object, vs_error *err)
{
	/* The admin knows the VM by its name, not by its moref ("vm-61"). */
	char *name = vs_prop_text(object, "name");
	const char *vm = name ? name : moref;
	char *power = vs_prop_text(object, "runtime.powerState");
	char *tools = vs_prop_text(object, "guest.toolsRunningStatus");
	bool ready = vs_xml_path_bool(vs_prop(object, "guest.guestOperationsReady"), "", false);
	int rc = VS_OK;
	if (!power || strcmp(power, "poweredOn") != 0)
		rc = vs_fail(err, VS_ERR_USAGE, "%s is %s, not powered on", vm, power ? power : "in an unknown power state");
	else if (!tools || strcmp(tools, "guestToolsRunning") != 0)
		rc = vs_fail(err, VS_ERR_USAGE, "VMware Tools is not running in %s (%s)", vm,
		             tools ? tools : "status unknown");
	else if (!ready)
		rc = vs_fail(err, VS_ERR_USAGE, "guest operations are not ready in %s yet", vm);
	free(name);
	free(power);
	free(tools);
	return rc;
}

static int read_readiness(const char *type, const char *moref, const xmlNode *object, void *ud,
                          vs_error *err)
{
	(void)type;
	*(bool *)ud = true;
	return vs_guest_readiness(moref, object, err);
}

int vs_guest_check(vs_client *c, const char *vm, vs_error *err)
{
	bool seen = false;
	int rc = vs_props_one(c, "VirtualMachine", vm, vs_guest_readiness_paths, read_readiness, &seen,
	                      err);
	if (rc == VS_OK && !seen)
		rc = vs_fail(err, VS_ERR_NOT_FOUND, "VM %s no longer exists", vm);
	return rc;
}

static int read_vm_host(const char *type, const char *moref, const xmlNode *object, void *ud,
                        vs_error *err)
{
	(void)type, (void)moref, (void)err;
	*(char **)ud = vs_prop_text(object, "runtime.host");
	return VS_OK;
}

/* Through vCenter, transfer URLs name the VM's ESXi host as vCenter knows
 * it; that name may not resolve here, and its certificate is not vCenter's:
 * learn both from vCenter, once. */
static int learn_host(vs_client *c, const char *vm, const char *name, vs_error *err)
{
	static const char *const vm_paths[] = {"runtime.host", NULL};
	char *host = NULL, *reached = NULL;
	int rc = vs_props_one(c, "VirtualMachine", vm, vm_paths, read_vm_host, &host, err);
	if (rc == VS_OK && !host)
		rc = vs_fail(err, VS_ERR_PROTOCOL, "%s runs on no host, yet its transfer URL names %s", vm, name);
	if (rc == VS_OK)
		rc = vs_host_reach(c, host, &reached, err);
	/* A vMotion between the transfer's start and now: this is not that host. */
	if (rc == VS_OK && strcmp(reached, name) != 0)
		rc = vs_fail(err, VS_ERR_PROTOCOL, "%s moved from host %s to %s while a guest transfer "
		             "started; try again", vm, name, reached);
	free(host);
	free(reached);
	return rc;
}

/* Where the transfer URL vCenter gave for the guest's path goes (malloc'd
 * in *out). */
static int transfer_url(vs_client *c, const char *vm, const char *url, const char *path,
                        char **out, vs_error *err)
{
	if (!url)
		return vs_fail(err, VS_ERR_PROTOCOL, "the guest gave no transfer URL for %s", path);
	char *unknown = NULL;
	int rc = vs_transport_transfer_url(c->transport, url, out, &unknown, err);
	if (rc == VS_OK && unknown) {
		char *still = NULL;
		rc = learn_host(c, vm, unknown, err);
		if (rc == VS_OK)
			rc = vs_transport_transfer_url(c->transport, url, out, &still, err);
		if (rc == VS_OK && still)
			rc = vs_fail(err, VS_ERR_PROTOCOL, "cannot reach %s", still);
		free(still);
	}
	free(unknown);
	return rc;
}

int vs_guest_upload(vs_client *c, const char *vm, const vs_guest_auth *auth, const char *path,
                    const char *data, size_t len, vs_error *err)
{
	vs_buf extra = {0};
	vs_buf_elem(&extra, "guestFilePath", path);
	vs_buf_addf(&extra, "<fileAttributes xsi:type=\"GuestPosixFileAttributes\"/><fileSize>%zu"
	                    "</fileSize><overwrite>true</overwrite>", len);
	vs_reply r = {0};
	int rc = guest_call(c, true, "InitiateFileTransferToGuest", vm, auth, extra.data, VS_RET_ONE,
	                    VS_CALL_REPEATABLE, &r, err);
	vs_buf_free(&extra);
	char *url = rc == VS_OK ? vs_xml_text(vs_reply_ret(&r)) : NULL;
	char *full = NULL;
	long status = 0;
	if (rc == VS_OK)
		rc = transfer_url(c, vm, url, path, &full, err);
	if (rc == VS_OK)
		rc = vs_transport_put(c->transport, full, data, len, c->opts.call_timeout_s * 1000L,
		                      &status, err);
	if (rc == VS_OK && status != 200 && status != 201)
		rc = vs_fail(err, VS_ERR_HTTP, "HTTP %ld writing %s in the guest", status, path);
	vs_reply_free(&r);
	free(url);
	free(full);
	if (rc != VS_OK)
		vs_error_context(err, "copying %s into the guest", path);
	return rc;
}

int vs_guest_download(vs_client *c, const char *vm, const vs_guest_auth *auth, const char *path,
                      size_t max_bytes, char **data, size_t *len, vs_error *err)
{
	*data = NULL;
	*len = 0;
	vs_buf extra = {0}, body = {0};
	vs_buf_elem(&extra, "guestFilePath", path);
	vs_reply r = {0};
	int rc = guest_call(c, true, "InitiateFileTransferFromGuest", vm, auth, extra.data,
	                    VS_RET_ONE, VS_CALL_SAFE, &r, err);
	vs_buf_free(&extra);
	char *url = rc == VS_OK ? vs_xml_path_text(vs_reply_ret(&r), "url") : NULL;
	char *full = NULL;
	vs_fetched got;
	if (rc == VS_OK)
		rc = transfer_url(c, vm, url, path, &full, err);
	if (rc == VS_OK)
		rc = vs_transport_fetch(c->transport, &(vs_fetch){.url = full, .max_bytes = max_bytes,
		                        .timeout_ms = c->opts.call_timeout_s * 1000L}, &body, &got, err);
	if (rc == VS_OK && got.status != 200)
		rc = vs_fail(err, VS_ERR_HTTP, "HTTP %ld reading %s from the guest", got.status, path);
	if (rc == VS_OK) {
		*len = body.len;
		*data = body.data ? body.data : strdup("");
		body.data = NULL;
	}
	vs_buf_free(&body);
	vs_reply_free(&r);
	free(url);
	free(full);
	if (rc != VS_OK)
		vs_error_context(err, "copying %s out of the guest", path);
	return rc;
}

/* ---- starting a program, checked against the guest ------------------------ */

/* The processes of auth's user in the guest now whose command line holds
 * mark (NULL: any), of them pid only when pid >= 0; only those still
 * running when running. */
static int own_processes(vs_client *c, const char *vm, const vs_guest_auth *auth,
                         const char *mark, int64_t pid, bool running, vs_guest_programs *out,
                         vs_error *err)
{
	vs_reply r = {0};
	char pids[64];
	snprintf(pids, sizeof(pids), "<pids>%lld</pids>", (long long)pid);
	*out = (vs_guest_programs){0};
	int rc = guest_call(c, false, "ListProcessesInGuest", vm, auth, pid >= 0 ? pids : NULL,
	                    VS_RET_LIST, VS_CALL_SAFE, &r, err);
	size_t n = 0;
	for (xmlNode *p = rc == VS_OK ? vs_reply_ret(&r) : NULL; p; p = vs_xml_next(p))
		n++;
	if (rc == VS_OK && !(out->v = calloc(n + 1, sizeof(*out->v))))
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	for (xmlNode *p = rc == VS_OK ? vs_reply_ret(&r) : NULL; p; p = vs_xml_next(p)) {
		char *owner = vs_xml_path_text(p, "owner"), *line = vs_xml_path_text(p, "cmdLine");
		if (owner && auth->username && strcmp(owner, auth->username) == 0 &&
		    (!mark || (line && strstr(line, mark))) && (!running || !vs_xml_child(p, "endTime"))) {
			vs_guest_program *g = &out->v[out->n++];
			g->pid = vs_xml_path_int(p, "pid", -1);
			char *name = vs_xml_path_text(p, "name");
			const char *base = name && strrchr(name, '/') ? strrchr(name, '/') + 1 : name;
			snprintf(g->name, sizeof(g->name), "%s", base && *base ? base : "?");
			free(name);
			char *start = vs_xml_path_text(p, "startTime");
			snprintf(g->start, sizeof(g->start), "%s", start ? start : "");
			free(start);
		}
		free(owner);
		free(line);
	}
	vs_reply_free(&r);
	return rc;
}

typedef struct started_program {
	const char *vm;
	const vs_guest_auth *auth;
	const char *mark;  /* in the program's command line: its working directory */
	vs_guest_programs before;  /* the user's processes before the first go */
	int64_t pid;     /* the one new process found, or -1 */
} started_program;

/* Started: exactly one process of the user whose command line names the
 * working directory (callers give one to each program they start, and name
 * it in its arguments) is new since before.  Two or more: which is ours
 * cannot be told, and starting it again could run it twice, so that is an
 * error. */
static int program_started(vs_client *c, void *ud, bool *done, vs_error *err)
{
	started_program *s = ud;
	vs_guest_programs now = {0};
	int rc = own_processes(c, s->vm, s->auth, s->mark, -1, false, &now, err);
	size_t fresh = 0;
	for (size_t i = 0; rc == VS_OK && i < now.n; i++) {
		bool known = false;
		for (size_t j = 0; j < s->before.n && !known; j++)
			known = s->before.v[j].pid == now.v[i].pid;
		if (!known && fresh++ == 0)
			s->pid = now.v[i].pid;
	}
	vs_guest_programs_free(&now);
	if (rc == VS_OK && fresh > 1)
		rc = vs_fail(err, VS_ERR_PROTOCOL, "%zu new processes in the guest: which one is ours is unknown",
		             fresh);
	*done = rc == VS_OK && fresh == 1;
	if (!*done)
		s->pid = -1;
	return rc;
}

int vs_guest_start(vs_client *c, const char *vm, const vs_guest_auth *auth, const char *program,
                   const char *arguments, const char *workdir, const char *unique, int64_t *pid,
                   vs_error *err)
{
	vs_buf extra = {0};
	vs_buf_add(&extra, "<spec xsi:type=\"GuestProgramSpec\">");
	vs_buf_elem(&extra, "programPath", program);
	vs_buf_elem(&extra, "arguments", arguments);
	if (workdir)
		vs_buf_elem(&extra, "workingDirectory", workdir);
	vs_buf_add(&extra, "<envVariables>LANG=C</envVariables></spec>");
	vs_reply r = {0};
	/* "DIR/": a folder named like the start of another's does not match. */
	char mark[1024];
	snprintf(mark, sizeof(mark), "%s/", workdir ? workdir : "");
	started_program s = {vm, auth, unique ? unique : workdir ? mark : NULL, {0}, -1};
	/* A mark no earlier process has needs no listing before the start. */
	int rc = extra.failed ? vs_fail(err, VS_ERR_NOMEM, "out of memory")
	         : unique     ? VS_OK
	                      : own_processes(c, vm, auth, s.mark, -1, false, &s.before, err);
	if (rc == VS_OK)
		rc = guest_call_settled(c, false, "StartProgramInGuest", vm, auth, extra.data, VS_RET_ONE,
		                        0, &(vs_settle){program_started, &s}, &r, err);
	vs_buf_free(&extra);
	vs_guest_programs_free(&s.before);
	if (rc == VS_OK)
		*pid = s.pid >= 0 ? s.pid : vs_xml_path_int(vs_reply_ret(&r), "", -1);
	vs_reply_free(&r);
	if (rc == VS_OK && *pid < 0)
		rc = vs_fail(err, VS_ERR_PROTOCOL, "the guest returned no process id");
	if (rc != VS_OK)
		vs_error_context(err, "starting %s in the guest", program);
	return rc;
}

static int process_status(vs_client *c, const char *vm, const vs_guest_auth *auth, int64_t pid,
                          vs_guest_process *out, vs_error *err)
{
	char extra[64];
	snprintf(extra, sizeof(extra), "<pids>%lld</pids>", (long long)pid);
	vs_reply r = {0};
	int rc = guest_call(c, false, "ListProcessesInGuest", vm, auth, extra, VS_RET_LIST,
	                    VS_CALL_SAFE, &r, err);
	xmlNode *info = rc == VS_OK ? vs_reply_ret(&r) : NULL;
	if (rc == VS_OK && !info)
		rc = vs_fail(err, VS_ERR_NOT_FOUND, "process %lld is gone from the guest", (long long)pid);
	if (rc == VS_OK) {
		out->ended = vs_xml_child(info, "endTime") != NULL;
		/* Missing means "not reported", not 0. */
		out->exit_code = (int)vs_xml_path_int(info, "exitCode", -1);
	}
	vs_reply_free(&r);
	return rc;
}

static void sleep_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
	nanosleep(&ts, NULL);
}

double vs_guest_next_poll(double elapsed, double expected_s)
{
	double left = expected_s - elapsed;
	/* A long job's failing start is seen after a second; a short one's at
	 * its end, which comes soon.  Between, every poll is a vCenter call of
	 * no news: one each LONG_GAP_S sees a fio that died mid-run, well
	 * within the 5 minutes vSphere keeps an ended process's exit code. */
	if (left > 0 && elapsed < 1 && expected_s > LONG_JOB_S)
		return 1 - elapsed;
	if (left > 0)
		return fmin(left, LONG_GAP_S);
	/* past it, every 0.25 s at first: a job's end seen late is wall time
	 * of every run (a few ms more of fio's could cost a whole look) */
	return fmin(10, fmax(0.25, -left / 2));
}

static double monotonic_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int vs_guest_wait(vs_client *c, const char *vm, const vs_guest_auth *auth, int64_t pid,
                  long timeout_s, double expected_s, volatile sig_atomic_t *stop, vs_tick_fn tick,
                  void *ud, vs_guest_process *out, vs_error *err)
{
	/* Time gone is the clock's, the calls' own time (and their retries) too.
	 * A job of known length is first looked at at its expected end (a long
	 * one also after a second): not at once. */
	double started = monotonic_s(), next = expected_s > 0 ? vs_guest_next_poll(0, expected_s) : 0;
	long ticked = 0;
	*out = (vs_guest_process){false, -1, 0};
	for (;;) {
		/* Wake in small steps so that Ctrl-C is honoured within a second;
		 * the caller's progress ticks each second, between the polls. */
		double gone;
		while ((gone = monotonic_s() - started) < next && !(stop && *stop)) {
			sleep_s(fmin(0.25, next - gone));
			long now = (long)(monotonic_s() - started);
			if (tick && now > ticked)
				tick(ticked = now, ud);
		}
		int rc = process_status(c, vm, auth, pid, out, err);
		out->end_looks += expected_s > 0 && gone >= expected_s - 1e-3;
		if (rc != VS_OK || out->ended)
			return rc;
		bool stopped = stop && *stop;
		gone = monotonic_s() - started;
		if (stopped || gone >= (double)timeout_s) {
			vs_error ignored = {0};
			vs_guest_terminate(c, vm, auth, pid, &ignored);
			return vs_fail(err, VS_ERR_TASK, "%s: process %lld in the guest was stopped",
			               stopped ? "interrupted" : "timed out", (long long)pid);
		}
		next = gone + vs_guest_next_poll(gone, expected_s);
	}
}

int vs_guest_terminate(vs_client *c, const char *vm, const vs_guest_auth *auth, int64_t pid,
                       vs_error *err)
{
	char extra[64];
	snprintf(extra, sizeof(extra), "<pid>%lld</pid>", (long long)pid);
	return guest_call(c, false, "TerminateProcessInGuest", vm, auth, extra, VS_RET_NONE,
	                  VS_CALL_REPEATABLE, NULL, err);
}

int vs_guest_delete(vs_client *c, const char *vm, const vs_guest_auth *auth, const char *path,
                    bool directory, vs_error *err)
{
	vs_buf extra = {0};
	vs_buf_elem(&extra, directory ? "directoryPath" : "filePath", path);
	if (directory)
		vs_buf_add(&extra, "<recursive>true</recursive>");
	int rc = guest_call(c, true, directory ? "DeleteDirectoryInGuest" : "DeleteFileInGuest", vm,
	                    auth, extra.data, VS_RET_NONE, VS_CALL_REPEATABLE, NULL, err);
	vs_buf_free(&extra);
	return rc;
}

int vs_guest_mkdir(vs_client *c, const char *vm, const vs_guest_auth *auth, const char *path,
                   vs_error *err)
{
	vs_buf extra = {0};
	vs_buf_elem(&extra, "directoryPath", path);
	vs_buf_add(&extra, "<createParentDirectories>true</createParentDirectories>");
	int rc = guest_call(c, true, "MakeDirectoryInGuest", vm, auth, extra.data, VS_RET_NONE,
	                    VS_CALL_REPEATABLE, NULL, err);
	vs_buf_free(&extra);
	if (rc == VS_ERR_FAULT && strcmp(err->fault, "FileAlreadyExists") == 0)
		return VS_OK;
	return rc;
}

void vs_guest_programs_free(vs_guest_programs *p)
{
	free(p->v);
	*p = (vs_guest_programs){0};
}

/* Whether process p, listed a while ago, is still that one and running:
 * its pid may have gone to another program since (the guest reuses pids),
 * which must not be signalled. */
static int still_running(vs_client *c, const char *vm, const vs_guest_auth *auth, const char *mark,
                         const vs_guest_program *p, bool *running, vs_error *err)
{
	vs_guest_programs now = {0};
	int rc = own_processes(c, vm, auth, mark, p->pid, true, &now, err);
	*running = rc == VS_OK && now.n == 1 && strcmp(now.v[0].start, p->start) == 0;
	vs_guest_programs_free(&now);
	return rc;
}

/* Signals process p and waits for its end: VS_OK once it is gone. */
static int stop_one(vs_client *c, const char *vm, const vs_guest_auth *auth, const char *mark,
                    const vs_guest_program *p, long timeout_s, vs_error *err)
{
	bool running = false;
	vs_guest_process gone;
	int rc = still_running(c, vm, auth, mark, p, &running, err);
	if (rc == VS_OK && running)
		rc = vs_guest_terminate(c, vm, auth, p->pid, err);
	if (rc == VS_OK && running)
		rc = vs_guest_wait(c, vm, auth, p->pid, timeout_s, 0, NULL, NULL, NULL, &gone, err);
	/* Gone from the list, or not found to signal: it ended (fio's job
	 * processes end with the fio signalled before them). */
	if (rc == VS_ERR_NOT_FOUND ||
	    (rc == VS_ERR_FAULT && strcmp(err->fault, "GuestProcessNotFound") == 0))
		rc = VS_OK;
	if (rc != VS_OK)
		vs_error_context(err, "ending %s (pid %lld) in the guest", p->name, (long long)p->pid);
	return rc;
}

/* A process being started can fork after the list was read (fio's main
 * forks its job processes once its files are laid out, and a job whose
 * fio dies before starting it waits for it forever): the guest is listed
 * again until nothing of mark runs; what still runs after STOP_ROUNDS
 * rounds of ending it is an error. */
#define STOP_ROUNDS 3

/* Appends what of listed ended to *ended; the first failure's status. */
static int stop_listed(vs_client *c, const char *vm, const vs_guest_auth *auth, const char *mark,
                       const vs_guest_programs *listed, long timeout_s, vs_guest_programs *ended,
                       vs_error *err)
{
	vs_guest_program *grown = realloc(ended->v, (ended->n + listed->n + 1) * sizeof(*grown));
	if (!grown)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	ended->v = grown;
	/* Each in turn, also after one that would not end. */
	int first = VS_OK;
	for (size_t i = 0; i < listed->n; i++) {
		vs_error one = {0};
		if (stop_one(c, vm, auth, mark, &listed->v[i], timeout_s, &one) == VS_OK)
			ended->v[ended->n++] = listed->v[i];
		else if (first == VS_OK)
			first = (*err = one).status;
	}
	return first;
}

int vs_guest_stop_named(vs_client *c, const char *vm, const vs_guest_auth *auth, const char *mark,
                        long timeout_s, vs_guest_programs *ended, vs_error *err)
{
	*ended = (vs_guest_programs){0};
	int rc = VS_OK;
	for (int round = 0; rc == VS_OK; round++) {
		vs_guest_programs listed = {0};
		rc = own_processes(c, vm, auth, mark, -1, true, &listed, err);
		size_t n = listed.n;
		if (rc == VS_OK && n && round == STOP_ROUNDS)
			rc = vs_fail(err, VS_ERR_TASK, "%zu processes of %s still run in the guest after %d rounds of "
			             "ending them (%s, pid %lld)", n, mark, STOP_ROUNDS, listed.v[0].name,
			             (long long)listed.v[0].pid);
		else if (rc == VS_OK && n)
			rc = stop_listed(c, vm, auth, mark, &listed, timeout_s, ended, err);
		vs_guest_programs_free(&listed);
		if (n == 0)
			break;
	}
	return rc;
}
