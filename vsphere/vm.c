/* Virtual machines: reading their summary, power operations. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

const char *const vs_vm_summary_paths[] = {
	"name", "runtime.powerState", "runtime.host", "guest.toolsRunningStatus",
	"config.files.vmPathName", "datastore", NULL,
};

int vs_vm_read(const char *moref, const xmlNode *object, vs_vm *v)
{
	v->moref = strdup(moref);
	v->name = vs_read_name(object);
	v->power_state = vs_prop_text(object, "runtime.powerState");
	v->host = vs_prop_text(object, "runtime.host");
	v->tools_status = vs_prop_text(object, "guest.toolsRunningStatus");
	v->vmx_path = vs_prop_text(object, "config.files.vmPathName");
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
	vs_strv_free(v->datastores, v->n_datastores);
	free(v->host_name);
	vs_strv_free(v->datastore_names, v->datastore_names ? v->n_datastores : 0);
	*v = (vs_vm){0};
}

void vs_vm_free(vs_vm **v)
{
	if (!*v)
		return;
	vs_vm_clear(*v);
	free(*v);
	*v = NULL;
}

int vs_vm_power_on(vs_client *c, const char *vm, vs_progress_fn progress, void *ud, vs_error *err)
{
	int rc = vs_task_run(c, "PowerOnVM_Task", "VirtualMachine", vm, NULL, progress, ud, NULL, err);
	if (rc != VS_OK)
		vs_error_context(err, "powering on %s", vm);
	return rc;
}

int vs_vm_power_off(vs_client *c, const char *vm, vs_progress_fn progress, void *ud, vs_error *err)
{
	int rc = vs_task_run(c, "PowerOffVM_Task", "VirtualMachine", vm, NULL, progress, ud, NULL, err);
	if (rc != VS_OK)
		vs_error_context(err, "powering off %s", vm);
	return rc;
}
