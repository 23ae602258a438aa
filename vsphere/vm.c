/* Virtual machines: reading their summary, power operations. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const char *const vs_vm_summary_paths[] = {
	"name", "runtime.powerState", "runtime.host", "guest.toolsRunningStatus",
	"config.files.vmPathName", "datastore", "guest.guestFullName", NULL,
};

int vs_vm_read(const char *moref, const xmlNode *object, vs_vm *v)
{
	v->moref = strdup(moref);
	v->name = vs_read_name(object);
	/* A VM whose name this session may not read goes by its moref. */
	if (!v->name && !vs_prop(object, "name") && v->moref)
		v->name = strdup(moref);
	v->power_state = vs_prop_text(object, "runtime.powerState");
	v->host = vs_prop_text(object, "runtime.host");
	v->tools_status = vs_prop_text(object, "guest.toolsRunningStatus");
	v->vmx_path = vs_prop_text(object, "config.files.vmPathName");
	v->guest_os = vs_prop_text(object, "guest.guestFullName");
	xmlNode *ds = vs_prop(object, "datastore");
	if (ds && !(v->datastores = vs_moref_list(ds, &v->n_datastores)))
		return VS_ERR_NOMEM;
	return v->moref && v->name ? VS_OK : VS_ERR_NOMEM;
}

void vs_vm_clear(vs_vm *v)
{
	free(v->moref);
	free(v->name);
	free(v->power_state);
	free(v->host);
	free(v->tools_status);
	free(v->vmx_path);
	free(v->guest_os);
	vs_strv_free(v->datastores, v->n_datastores);
	free(v->host_name);
	vs_strv_free(v->datastore_names, v->datastore_names ? v->n_datastores : 0);
	*v = (vs_vm){0};
}

/* A copy of strings[0..n) (NULL stays NULL); false when out of memory. */
static bool strv_dup(char *const *from, size_t n, char ***to)
{
	*to = NULL;
	if (!from)
		return true;
	if (!(*to = calloc(n + 1, sizeof(char *))))
		return false;
	for (size_t i = 0; i < n; i++)
		if (from[i] && !((*to)[i] = strdup(from[i])))
			return false;
	return true;
}

/* A copy of one string, NULL staying NULL; *ok false when out of memory. */
static char *dup_or_null(const char *s, bool *ok)
{
	char *d = s ? strdup(s) : NULL;
	*ok &= !s || d;
	return d;
}

vs_vm *vs_vm_dup(const vs_vm *v)
{
	vs_vm *d = calloc(1, sizeof(*d));
	bool ok = d != NULL;
	if (!d)
		return NULL;
	d->moref = dup_or_null(v->moref, &ok);
	d->name = dup_or_null(v->name, &ok);
	d->power_state = dup_or_null(v->power_state, &ok);
	d->host = dup_or_null(v->host, &ok);
	d->tools_status = dup_or_null(v->tools_status, &ok);
	d->vmx_path = dup_or_null(v->vmx_path, &ok);
	d->guest_os = dup_or_null(v->guest_os, &ok);
	d->host_name = dup_or_null(v->host_name, &ok);
	d->n_datastores = v->n_datastores;
	ok &= strv_dup(v->datastores, v->n_datastores, &d->datastores);
	ok &= strv_dup(v->datastore_names, v->n_datastores, &d->datastore_names);
	if (!ok)
		vs_vm_free(&d);
	return d;
}

void vs_vm_free(vs_vm **v)
{
	if (!*v)
		return;
	vs_vm_clear(*v);
	free(*v);
	*v = NULL;
}

/* Runs a VM's *_Task, made safe to retry by settle (vs_call_settled): a
 * change found in place needs no task to wait for. */
static int vm_task(vs_client *c, const char *method, const char *vm, const char *params,
                   const vs_settle *settle, vs_progress_fn progress, void *ud, vs_error *err)
{
	vs_reply r = {0};
	bool settled = false;
	int rc = vs_call_settled(c, method, "VirtualMachine", vm, params, VS_RET_ONE, settle, &r,
	                         &settled, err);
	char *task = rc == VS_OK && !settled ? vs_xml_text(vs_reply_ret(&r)) : NULL;
	vs_reply_free(&r);
	if (rc == VS_OK && !settled && !task)
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	if (task)
		rc = vs_task_wait(c, task, progress, ud, NULL, err);
	free(task);
	return rc;
}

typedef struct power_want {
	const char *vm, *state;
} power_want;

static int powered_now(vs_client *c, void *ud, bool *done, vs_error *err)
{
	power_want *w = ud;
	char *state = NULL;
	int rc = vs_props_text(c, "VirtualMachine", w->vm, "runtime.powerState", &state, err);
	*done = rc == VS_OK && state && strcmp(state, w->state) == 0;
	free(state);
	return rc;
}

int vs_vm_power_on(vs_client *c, const char *vm, vs_progress_fn progress, void *ud, vs_error *err)
{
	power_want w = {vm, "poweredOn"};
	int rc = vm_task(c, "PowerOnVM_Task", vm, NULL, &(vs_settle){powered_now, &w}, progress, ud, err);
	if (rc != VS_OK)
		vs_error_context(err, "powering on %s", vm);
	return rc;
}

int vs_vm_power_off(vs_client *c, const char *vm, vs_progress_fn progress, void *ud, vs_error *err)
{
	power_want w = {vm, "poweredOff"};
	int rc = vm_task(c, "PowerOffVM_Task", vm, NULL, &(vs_settle){powered_now, &w}, progress, ud, err);
	if (rc != VS_OK)
		vs_error_context(err, "powering off %s", vm);
	return rc;
}

/* ---- disks and files ---------------------------------------------------------- */

/* A relocation's info.descriptionId (vCenter's name for RelocateVM_Task). */
#define RELOCATE_ID "VirtualMachine.relocate"

static const char *const layout_paths[] = {
	"config.hardware.device", "layoutEx.file", "config.files.logDirectory",
	"snapshot.rootSnapshotList", "runtime.host", NULL,
};

/* A snapshot makes the disk's backing a delta whose `parent` is the link
 * below: walking the parents gives every descriptor of the chain. */
static int read_disk(const xmlNode *dev, vs_disk *d)
{
	const xmlNode *backing = vs_xml_child(dev, "backing");
	d->key = (int)vs_xml_path_int(dev, "key", -1);
	d->label = vs_xml_path_text(dev, "deviceInfo/label");
	d->file = vs_xml_path_text(backing, "fileName");
	d->datastore = vs_xml_path_text(backing, "datastore");
	d->capacity = vs_xml_path_int(dev, "capacityInBytes", -1);
	if (d->capacity < 0)
		d->capacity = vs_xml_path_int(dev, "capacityInKB", -1) * 1024;
	size_t n = 0;
	for (const xmlNode *b = backing; b; b = vs_xml_child(b, "parent"))
		n++;
	d->chain = calloc(n + 1, sizeof(char *));
	if (!d->chain || !d->file)
		return VS_ERR_NOMEM;
	for (const xmlNode *b = backing; b; b = vs_xml_child(b, "parent"))
		if (!(d->chain[d->n_chain++] = vs_xml_path_text(b, "fileName")))
			return VS_ERR_PROTOCOL;
	return VS_OK;
}

static int read_disks(const xmlNode *devices, vs_vm_layout *l)
{
	size_t n = 0;
	for (xmlNode *d = devices ? devices->children : NULL; d; d = d->next) {
		char *type = vs_xml_xsi_type(d);
		n += type && strcmp(type, "VirtualDisk") == 0;
		free(type);
	}
	if (!(l->disks = calloc(n + 1, sizeof(vs_disk))))
		return VS_ERR_NOMEM;
	int rc = VS_OK;
	for (xmlNode *d = devices ? devices->children : NULL; d && rc == VS_OK; d = d->next) {
		char *type = vs_xml_xsi_type(d);
		if (type && strcmp(type, "VirtualDisk") == 0)
			rc = read_disk(d, &l->disks[l->n_disks++]);
		free(type);
	}
	return rc;
}

static int read_files(const xmlNode *files, vs_vm_layout *l)
{
	size_t n = 0;
	for (xmlNode *f = files ? files->children : NULL; f; f = f->next)
		n += f->type == XML_ELEMENT_NODE;
	if (!(l->files = calloc(n + 1, sizeof(vs_vm_file))))
		return VS_ERR_NOMEM;
	for (xmlNode *f = files ? files->children : NULL; f; f = f->next) {
		if (f->type != XML_ELEMENT_NODE)
			continue;
		vs_vm_file *out = &l->files[l->n_files++];
		out->key = (int)vs_xml_path_int(f, "key", -1);
		out->name = vs_xml_path_text(f, "name");
		out->type = vs_xml_path_text(f, "type");
		out->size = vs_xml_path_int(f, "size", -1);
	}
	return VS_OK;
}

static int read_layout(const char *type, const char *moref, const xmlNode *object, void *ud,
                       vs_error *err)
{
	(void)type, (void)moref;
	vs_vm_layout *l = ud;
	int rc = read_disks(vs_prop(object, "config.hardware.device"), l);
	if (rc == VS_OK)
		rc = read_files(vs_prop(object, "layoutEx.file"), l);
	l->log_directory = vs_prop_text(object, "config.files.logDirectory");
	l->host = vs_prop_text(object, "runtime.host");
	const xmlNode *snaps = vs_prop(object, "snapshot.rootSnapshotList");
	for (xmlNode *s = snaps ? snaps->children : NULL; s; s = s->next)
		l->n_snapshots += s->type == XML_ELEMENT_NODE;
	return rc == VS_OK ? VS_OK : vs_fail(err, rc, "cannot read the VM's disks");
}

void vs_vm_layout_free(vs_vm_layout **lp)
{
	vs_vm_layout *l = *lp;
	if (!l)
		return;
	for (size_t i = 0; l->disks && i < l->n_disks; i++) {
		free(l->disks[i].label);
		free(l->disks[i].file);
		free(l->disks[i].datastore);
		vs_strv_free(l->disks[i].chain, l->disks[i].n_chain);
	}
	for (size_t i = 0; l->files && i < l->n_files; i++) {
		free(l->files[i].name);
		free(l->files[i].type);
	}
	free(l->disks);
	free(l->files);
	free(l->log_directory);
	free(l->host);
	free(l->relocation);
	free(l);
	*lp = NULL;
}

typedef struct layout_ready {
	vs_vm_layout *layout;
	int *ready;  /* NULL: not asked */
	vs_error *ready_err;
} layout_ready;

static int read_layout_ready(const char *type, const char *moref, const xmlNode *object, void *ud,
                             vs_error *err)
{
	layout_ready *l = ud;
	vs_vm_layout *out = l->layout;
	if (strcmp(type, "Task") == 0) {  /* one of the VM's recentTask */
		bool ours = !out->relocation && vs_task_is_running(object, RELOCATE_ID);
		return ours && !(out->relocation = strdup(moref)) ? vs_fail(err, VS_ERR_NOMEM, "out of memory")
		                                                 : VS_OK;
	}
	if (l->ready)
		*l->ready = vs_guest_readiness(moref, object, l->ready_err);
	return read_layout(type, moref, object, l->layout, err);
}

static int layout_read(vs_client *c, const char *vm, vs_vm_layout **out, int *ready,
                       vs_error *ready_err, bool moving, vs_error *err)
{
	const char *paths[16];
	size_t n = 0;
	for (const char *const *p = layout_paths; *p; p++)
		paths[n++] = *p;
	for (const char *const *p = vs_guest_readiness_paths; ready && *p; p++)
		paths[n++] = *p;
	paths[n] = NULL;
	if (ready)
		*ready = vs_fail(ready_err, VS_ERR_NOT_FOUND, "VM %s no longer exists", vm);
	*out = calloc(1, sizeof(vs_vm_layout));
	layout_ready l = {*out, ready, ready_err};
	const vs_propspec own = {"VirtualMachine", paths}, tasks = {"Task", vs_task_running_paths};
	int rc = !*out   ? vs_fail(err, VS_ERR_NOMEM, "out of memory")
	         : moving ? vs_props_with_related(c, "VirtualMachine", vm, "recentTask", &own, &tasks,
	                                          read_layout_ready, &l, err)
	                  : vs_props_one(c, "VirtualMachine", vm, paths, read_layout_ready, &l, err);
	if (rc != VS_OK) {
		vs_vm_layout_free(out);
		vs_error_context(err, "reading the disks of %s", vm);
	}
	if (rc == VS_OK)
		(*out)->relocation_read = moving;
	return rc;
}

int vs_vm_layout_read_ready(vs_client *c, const char *vm, vs_vm_layout **out, int *ready,
                            vs_error *ready_err, vs_error *err)
{
	return layout_read(c, vm, out, ready, ready_err, false, err);
}

int vs_vm_layout_read_moving(vs_client *c, const char *vm, vs_vm_layout **out, vs_error *err)
{
	return layout_read(c, vm, out, NULL, NULL, true, err);
}

int vs_vm_layout_read(vs_client *c, const char *vm, vs_vm_layout **out, vs_error *err)
{
	return layout_read(c, vm, out, NULL, NULL, false, err);
}

/* ---- moves and snapshots -------------------------------------------------------- */


int vs_vm_wait_relocation(vs_client *c, const char *vm, bool *waited, vs_error *err)
{
	return vs_task_wait_running(c, "VirtualMachine", vm, RELOCATE_ID, NULL, NULL, waited, err);
}

typedef struct relocation {
	const char *vm, *datastore;
	const vs_vm_layout *layout;
	const char *const *disk_datastores;
	vs_progress_fn progress;  /* a running relocation's, while it is waited for */
	void *ud;
} relocation;

/* Whether the VM's home is on want->datastore and each disk where it was sent. */
static int placed(vs_client *c, const relocation *want, bool *done, vs_error *err)
{
	vs_vm_layout *now = NULL;
	char *vmx = NULL, *name = NULL, *ds = NULL, *path = NULL;
	int rc = vs_vm_layout_read(c, want->vm, &now, err);
	if (rc == VS_OK)
		rc = vs_props_text(c, "VirtualMachine", want->vm, "config.files.vmPathName", &vmx, err);
	char *raw = NULL;  /* Datastore.name escapes '%', '/' and '\'; a path does not */
	if (rc == VS_OK)
		rc = vs_props_text(c, "Datastore", want->datastore, "name", &raw, err);
	if (rc == VS_OK && raw && !(name = vs_unescape_name(raw)))
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	free(raw);
	*done = rc == VS_OK && vmx && name && vs_dspath_split(vmx, &ds, &path, err) == VS_OK &&
	        strcmp(ds, name) == 0 && now->n_disks == want->layout->n_disks;
	for (size_t i = 0; *done && i < now->n_disks; i++) {
		const char *to = want->disk_datastores && want->disk_datastores[i] ? want->disk_datastores[i]
		                                                                   : want->datastore;
		*done = now->disks[i].key == want->layout->disks[i].key && now->disks[i].datastore &&
		        strcmp(now->disks[i].datastore, to) == 0;
	}
	vs_vm_layout_free(&now);
	free(vmx);
	free(name);
	free(ds);
	free(path);
	return rc;
}

/* Whether the VM is where it was sent, once a relocation of the VM that is
 * still running (a 503'd call that did start, or a killed nfsagent's) has
 * ended. */
static int relocated_now(vs_client *c, void *ud, bool *done, vs_error *err)
{
	relocation *want = ud;
	bool waited = false;
	*done = false;
	int rc = vs_task_wait_running(c, "VirtualMachine", want->vm, RELOCATE_ID, want->progress,
	                              want->ud, &waited, err);
	return rc == VS_OK ? placed(c, want, done, err) : rc;
}

/* RelocateVM_Task's parameters: the home to datastore, every disk named
 * (so that no disk goes where it was not sent). */
static void relocate_spec(vs_buf *p, const char *datastore, const vs_vm_layout *layout,
                          const char *const *disk_datastores)
{
	vs_buf_add(p, "<spec>");
	vs_buf_moref(p, "datastore", "Datastore", datastore);
	for (size_t i = 0; i < layout->n_disks; i++) {
		const char *to = disk_datastores && disk_datastores[i] ? disk_datastores[i] : datastore;
		vs_buf_addf(p, "<disk><diskId>%d</diskId>", layout->disks[i].key);
		vs_buf_moref(p, "datastore", "Datastore", to);
		vs_buf_add(p, "</disk>");
	}
	vs_buf_add(p, "</spec><priority>defaultPriority</priority>");
}

/* A relocation still running, waited for: the one the layout's read saw,
 * or one looked for now when the layout's read did not look. */
static int wait_running(vs_client *c, const relocation *want, bool *waited, vs_error *err)
{
	const vs_vm_layout *l = want->layout;
	if (!l->relocation_read)
		return vs_task_wait_running(c, "VirtualMachine", want->vm, RELOCATE_ID, want->progress,
		                            want->ud, waited, err);
	*waited = l->relocation != NULL;
	return l->relocation ? vs_task_wait_other(c, l->relocation, want->progress, want->ud, err) : VS_OK;
}

int vs_vm_relocate_disks(vs_client *c, const char *vm, const char *datastore,
                         const vs_vm_layout *layout, const char *const *disk_datastores,
                         vs_progress_fn progress, void *ud, vs_error *err)
{
	vs_buf p = {0};
	relocate_spec(&p, datastore, layout, disk_datastores);
	relocation want = {vm, datastore, layout, disk_datastores, progress, ud};
	/* A relocation still running (a killed nfsagent's) is waited for, and
	 * is all it takes when it was going where this one is. */
	bool there = false;
	bool waited = false;
	int rc = p.failed ? vs_fail(err, VS_ERR_NOMEM, "out of memory") : wait_running(c, &want, &waited, err);
	if (rc == VS_OK && waited)
		rc = relocated_now(c, &want, &there, err);
	if (rc == VS_OK && !there)
		rc = vm_task(c, "RelocateVM_Task", vm, p.data, &(vs_settle){relocated_now, &want},
		             progress, ud, err);
	vs_buf_free(&p);
	return rc;
}

int vs_vm_snapshot_create(vs_client *c, const char *vm, const char *name, char **snapshot,
                          vs_error *err)
{
	*snapshot = NULL;
	vs_buf p = {0};
	vs_buf_elem(&p, "name", name);
	vs_buf_add(&p, "<description>nfsagent</description><memory>false</memory><quiesce>false</quiesce>");
	xmlDoc *result = NULL;
	int rc = p.failed ? vs_fail(err, VS_ERR_NOMEM, "out of memory")
	                  : vs_task_run(c, "CreateSnapshot_Task", "VirtualMachine", vm, p.data, 0, NULL,
	                                NULL, &result, err);
	vs_buf_free(&p);
	if (rc == VS_OK && !(*snapshot = result ? vs_xml_text(xmlDocGetRootElement(result)) : NULL))
		rc = vs_fail(err, VS_ERR_PROTOCOL, "the snapshot task returned no snapshot");
	xmlFreeDoc(result);
	if (rc != VS_OK)
		vs_error_context(err, "taking a snapshot of %s", vm);
	return rc;
}

int vs_vm_snapshot_remove(vs_client *c, const char *snapshot, vs_error *err)
{
	int rc = vs_task_run(c, "RemoveSnapshot_Task", "VirtualMachineSnapshot", snapshot,
	                     "<removeChildren>false</removeChildren><consolidate>true</consolidate>",
	                     0, NULL, NULL, NULL, err);
	if (rc != VS_OK)
		vs_error_context(err, "removing snapshot %s", snapshot);
	return rc;
}

/* A relocation's start, for a caller that waits for its task itself. */
typedef struct start {
	relocation want;
	char *task;  /* a relocation found queued or running */
	bool there;  /* the VM's files are all on want.datastore */
	bool ended;  /* a relocation of it that succeeded is among its recent tasks */
} start;

/* Whether a relocation call whose answer was lost did start (its task is
 * queued or running) or is done already (the VM is where it was sent). */
static int started_now(vs_client *c, void *ud, bool *done, vs_error *err)
{
	start *st = ud;
	int rc = vs_task_find_running(c, "VirtualMachine", st->want.vm, RELOCATE_ID, &st->task, err);
	if (rc == VS_OK && st->task)
		*done = true;
	else if (rc == VS_OK)
		rc = placed(c, &st->want, done, err);
	return rc;
}

/* One object of the read before a start: the VM (its datastores) or one of
 * its recent tasks (a relocation still queued or running). */
static int read_before_start(const char *type, const char *moref, const xmlNode *object, void *ud,
                             vs_error *err)
{
	start *st = ud;
	if (strcmp(type, "Task") == 0) {
		static const char *const succeeded[] = {"success", NULL};
		st->ended |= vs_task_is(object, RELOCATE_ID, succeeded);
		bool running = !st->task && vs_task_is_running(object, RELOCATE_ID);
		return running && !(st->task = strdup(moref)) ? vs_fail(err, VS_ERR_NOMEM, "out of memory")
		                                              : VS_OK;
	}
	size_t n = 0;
	const xmlNode *ds = vs_prop(object, "datastore");
	char **list = ds ? vs_moref_list(ds, &n) : NULL;
	if (ds && !list)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	st->there = n == 1 && strcmp(list[0], st->want.datastore) == 0;
	vs_strv_free(list, n);
	return VS_OK;
}

/* Where the VM is and which relocation of it runs, in one read, right
 * before a start: an earlier run's move may have ended since the caller
 * planned (a rerun after a kill), and a VM is never moved twice.  The
 * collector reads the VM before its tasks: a relocation that succeeded
 * in between shows as ended with the VM where it was, so the VM is read
 * again then (its home and every disk, as a lost answer's is). */
static int look_before_start(vs_client *c, start *st, vs_error *err)
{
	static const char *const own_paths[] = {"datastore", NULL};
	const vs_propspec own = {"VirtualMachine", own_paths}, tasks = {"Task", vs_task_running_paths};
	int rc = vs_props_with_related(c, "VirtualMachine", st->want.vm, "recentTask", &own, &tasks,
	                               read_before_start, st, err);
	if (rc == VS_OK && !st->task && !st->there && st->ended)
		rc = placed(c, &st->want, &st->there, err);
	return rc;
}

int vs_vm_relocate_start(vs_client *c, const char *vm, const char *datastore,
                         const vs_vm_layout *layout, volatile sig_atomic_t *stop, char **task,
                         vs_relocate_outcome *how, vs_error *err)
{
	*task = NULL;
	start st = {.want = {vm, datastore, layout, NULL, NULL, NULL}};
	int rc = look_before_start(c, &st, err);
	*how = st.task ? VS_RELOCATE_RUNNING : st.there ? VS_RELOCATE_THERE : VS_RELOCATE_STARTED;
	if (rc != VS_OK || st.task || st.there) {
		*task = rc == VS_OK ? st.task : NULL;
		if (rc != VS_OK)
			free(st.task);
		return rc;
	}
	/* The last moment a stop is heard: after this call, the move is vCenter's. */
	if (stop && *stop) {
		*how = VS_RELOCATE_STOPPED;
		return VS_OK;
	}
	vs_buf p = {0};
	relocate_spec(&p, datastore, layout, NULL);
	vs_reply r = {0};
	bool settled = false;
	rc = p.failed ? vs_fail(err, VS_ERR_NOMEM, "out of memory")
	              : vs_call_settled(c, "RelocateVM_Task", "VirtualMachine", vm, p.data, VS_RET_ONE,
	                                &(vs_settle){started_now, &st}, &r, &settled, err);
	if (rc == VS_OK && !settled && !(*task = vs_xml_text(vs_reply_ret(&r))))
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	else if (rc == VS_OK && settled)
		*task = st.task;  /* NULL: the lost answer's relocation had taken it there */
	else
		free(st.task);
	vs_reply_free(&r);
	vs_buf_free(&p);
	return rc;
}
