/* nfsagent's vSphere Web Services (SOAP) client: the public API.
 *
 * One vs_client is one logged-in session.  Every function that can fail
 * returns VS_OK (0) or a negative vs_status and fills the caller's vs_error
 * with the vSphere fault type, the server's message and what we were doing.
 * Objects returned through pointers are owned by the caller and released
 * with the matching vs_*_free(), which takes a pointer to the pointer and
 * sets it to NULL.
 */
#ifndef NFSAGENT_VSPHERE_H
#define NFSAGENT_VSPHERE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum vs_status {
	VS_OK = 0,
	VS_ERR_USAGE = -1,      /* the caller passed something invalid */
	VS_ERR_NOMEM = -2,
	VS_ERR_CONNECT = -3,    /* unreachable, connection reset, timed out */
	VS_ERR_TLS = -4,        /* the server's certificate was refused */
	VS_ERR_AUTH = -5,       /* the server refused our credentials */
	VS_ERR_PROTOCOL = -6,   /* the reply was not the SOAP we expected */
	VS_ERR_FAULT = -7,      /* the server answered with a SOAP fault */
	VS_ERR_TASK = -8,       /* a task ended in error */
	VS_ERR_NOT_FOUND = -9,  /* a name matched nothing (or several things) */
	VS_ERR_HTTP = -10,      /* an HTTP transfer got an unexpected status */
	VS_ERR_SESSION_RENEWED = -11, /* re-logged in: session-bound objects are gone */
} vs_status;

typedef struct vs_error {
	vs_status status;
	char fault[96];      /* vSphere fault type, e.g. "InvalidLogin"; "" if none */
	char message[1024];  /* the server's or the transport's message */
	char context[256];   /* what failed, e.g. "login to vc.example.com" */
} vs_error;

/* Sets status and message (printf-style), clears the fault type, keeps the
 * context; returns status. */
int vs_fail(vs_error *err, vs_status status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Formats "CONTEXT failed: FAULT: MESSAGE" (parts left out when empty). */
void vs_error_format(const vs_error *err, char *out, size_t size);
const char *vs_status_name(vs_status status);

typedef struct vs_options {
	const char *url;          /* "https://vc/sdk", "vc.example.com" or "host:port" */
	const char *username;
	const char *password;
	const char *cacert;       /* PEM file of trusted CAs; NULL = system store */
	const char *thumbprint;   /* pinned "SHA256:AA:BB:..." (or bare hex); NULL = none */
	bool insecure;            /* accept any certificate (explicit choice only) */
	long connect_timeout_s;   /* 0 = 15 s */
	long call_timeout_s;      /* budget of one call, retries included; 0 = 60 s */
	int max_retries;          /* transient failures of safe calls; -1 = none, 0 = 4 */
	int page_size;            /* RetrievePropertiesEx maxObjects; 0 = let the server page */
	FILE *trace;              /* requests and replies, secrets redacted; NULL = off */
} vs_options;

typedef struct vs_client vs_client;

/* Connects, negotiates the API version and logs in. */
int vs_connect(const vs_options *opts, vs_client **out, vs_error *err);
/* Logs out (best effort) and frees the client. */
void vs_disconnect(vs_client **client);

typedef struct vs_about {
	char *name;          /* "VMware vCenter Server" */
	char *full_name;
	char *version;       /* "8.0.3" */
	char *build;
	char *api_type;      /* "VirtualCenter" or "HostAgent" */
	char *api_version;   /* about.apiVersion */
	char *instance_uuid; /* may be NULL */
} vs_about;

const vs_about *vs_client_about(const vs_client *c);
/* The API version the client declares in SOAPAction. */
const char *vs_client_api_version(const vs_client *c);
/* SHA-256 thumbprint of the server certificate seen, "SHA256:AA:..", or "". */
const char *vs_client_thumbprint(const vs_client *c);
/* Host part of the URL, for messages. */
const char *vs_client_host(const vs_client *c);

/* ---- Inventory ------------------------------------------------------- */

typedef struct vs_host {
	char *moref;
	char *name;
	char *version;           /* config.product.version, e.g. "8.0.3" */
	char *build;             /* config.product.build */
	char *connection_state;  /* runtime.connectionState */
	bool maintenance;        /* runtime.inMaintenanceMode */
	char *datastore_system;  /* configManager.datastoreSystem moref */
	char *parent;            /* compute resource moref */
} vs_host;

typedef struct vs_ds_mount {
	char *host;         /* HostSystem moref */
	char *access_mode;  /* "readWrite" | "readOnly" */
	bool mounted;
	bool accessible;
} vs_ds_mount;

typedef struct vs_datastore {
	char *moref;
	char *name;
	char *type;          /* summary.type: "NFS", "NFS41", "VMFS", ... */
	char *url;           /* summary.url */
	int64_t capacity;    /* bytes; -1 if unknown */
	int64_t free_space;  /* bytes; -1 if unknown */
	bool accessible;
	char *remote_host;   /* NFS: server(s), comma separated; NULL otherwise */
	char *remote_path;   /* NFS: export path */
	char *browser;       /* HostDatastoreBrowser moref */
	size_t n_mounts;
	vs_ds_mount *mounts;
} vs_datastore;

typedef struct vs_vm {
	char *moref;
	char *name;
	char *power_state;   /* "poweredOn" | "poweredOff" | "suspended" */
	char *host;          /* runtime.host moref */
	char *tools_status;  /* guest.toolsRunningStatus */
	char *vmx_path;      /* config.files.vmPathName, "[ds] dir/vm.vmx" */
	size_t n_datastores;
	char **datastores;   /* morefs */
	/* Filled by vs_find_vm only (NULL elsewhere): names for the morefs above. */
	char *host_name;
	char **datastore_names;  /* n_datastores entries */
} vs_vm;

void vs_host_free(vs_host **h);
void vs_datastore_free(vs_datastore **d);
void vs_vm_free(vs_vm **v);

/* What a walk reads of each VM. */
typedef enum vs_vm_detail {
	VS_VM_NAME,     /* name only: cheap, for lookups */
	VS_VM_SUMMARY,  /* what `ls vms` shows */
} vs_vm_detail;

/* Callbacks of one inventory walk; a NULL callback skips that kind.  The
 * objects are valid during the callback only.  A callback returns 0 to go on
 * or a vs_status (with err filled) to stop the walk. */
typedef struct vs_walk {
	int (*host)(const vs_host *h, void *ud, vs_error *err);
	int (*datastore)(const vs_datastore *d, void *ud, vs_error *err);
	int (*vm)(const vs_vm *v, void *ud, vs_error *err);
	vs_vm_detail vm_detail;
	void *ud;
} vs_walk;

/* Walks hosts, datastores and VMs of the whole inventory in one retrieval,
 * streaming and paging so memory does not grow with the inventory.  Each
 * object is delivered exactly once, even across a re-login. */
int vs_walk_inventory(vs_client *c, const vs_walk *walk, vs_error *err);

/* Reads one VM's summary by moref. */
int vs_vm_lookup(vs_client *c, const char *moref, vs_vm **out, vs_error *err);
/* Finds one VM by name with the names of its host and datastores, in two
 * retrievals (VS_ERR_NOT_FOUND if none or several VMs have that name). */
int vs_find_vm(vs_client *c, const char *name, vs_vm **out, vs_error *err);

/* ---- Tasks ----------------------------------------------------------- */

/* Called with info.progress (0-100) each time it changes. */
typedef void (*vs_progress_fn)(int percent, void *ud);

int vs_vm_power_on(vs_client *c, const char *vm, vs_progress_fn progress, void *ud, vs_error *err);
int vs_vm_power_off(vs_client *c, const char *vm, vs_progress_fn progress, void *ud, vs_error *err);

/* ---- Datastore paths ------------------------------------------------- */

/* Splits "[ds] dir/file.vmdk" into "ds" and "dir/file.vmdk" (malloc'd). */
int vs_dspath_split(const char *dspath, char **ds, char **path, vs_error *err);
/* Joins "ds" and "dir/file" into "[ds] dir/file" (malloc'd). */
char *vs_dspath_join(const char *ds, const char *path);
/* Undoes vSphere's %-escaping of inventory names ("%2f" -> "/", "%25" -> "%"). */
char *vs_unescape_name(const char *name);

#ifdef __cplusplus
}
#endif
#endif
