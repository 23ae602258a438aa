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

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "nfsagent/error.h"

#ifdef __cplusplus
extern "C" {
#endif

/* An xsd:dateTime or ISO 8601 time ("2024-05-01T10:00:00.123Z", an offset
 * "+02:00" or none, taken as UTC) in ms since the epoch; -1 if it is not one.
 * *end, if given, gets where the time ends. */
int64_t vs_time_parse(const char *text, const char **end);

enum { VS_MAX_CALL_TIMEOUT_S = 86400 };

typedef struct vs_options {
	const char *url;          /* "https://vc/sdk", "vc.example.com" or "host:port" */
	const char *username;
	const char *password;
	const char *cacert;       /* PEM file of trusted CAs; NULL = system store */
	const char *thumbprint;   /* pinned "SHA256:AA:BB:..." (or bare hex); NULL = none */
	bool insecure;            /* accept any certificate (explicit choice only) */
	long connect_timeout_s;   /* 0 = 15 s */
	long call_timeout_s;      /* budget of one call, retries included; 0 = 60 s, at most
	                           * VS_MAX_CALL_TIMEOUT_S */
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
	char *option_manager;    /* configManager.advancedOption moref (vs_host_nfs_options) */
} vs_host;

/* The link a host reaches an NFS server through (vs_hosts_link_to). */
typedef struct vs_host_link {
	int64_t speed_mb;  /* its fastest uplink's negotiated Mb/s: one flow's most; 0 unknown */
	char vmk[16];      /* the vmkernel port: on the server's subnet, else the default route's */
	char ip[46];       /* its address, as the NFS server sees this host ("" unknown) */
	char pnic[32];     /* that uplink */
	bool by_subnet;
} vs_host_link;

typedef struct vs_ds_mount {
	char *host;         /* HostSystem moref */
	char *access_mode;  /* "readWrite" | "readOnly" */
	bool mounted;
	bool accessible;
	int tcp_connections;  /* mountInfo.numTcpConnections (API 8.0.1): nConnect; 0 unknown */
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
	char *security;      /* NFS 4.1: info.nas.securityType ("AUTH_SYS", ...); NULL otherwise */
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
	char *guest_os;      /* guest.guestFullName, as VMware Tools reports it */
	size_t n_datastores;
	char **datastores;   /* morefs */
	/* Filled by vs_find_vm only (NULL elsewhere): names for the morefs above. */
	char *host_name;
	char **datastore_names;  /* n_datastores entries */
} vs_vm;

/* Free what the struct holds and zero it (for structs in arrays). */
void vs_host_clear(vs_host *h);
void vs_datastore_clear(vs_datastore *d);
void vs_vm_clear(vs_vm *v);
void vs_vm_free(vs_vm **v);
/* A deep copy (malloc'd; vs_vm_free it), NULL when out of memory. */
vs_vm *vs_vm_dup(const vs_vm *v);

/* What a walk reads of each VM. */
typedef enum vs_vm_detail {
	VS_VM_NAME,     /* name only: cheap, for lookups */
	VS_VM_SUMMARY,  /* what `ls vms` shows */
} vs_vm_detail;

/* Callbacks of one inventory walk; a NULL callback skips that kind.  An
 * object is freed after its callback unless the callback takes it (copies
 * the struct and zeroes *h).  A callback returns 0 to go on or a vs_status
 * (with err filled) to stop the walk. */
typedef struct vs_walk {
	int (*host)(vs_host *h, void *ud, vs_error *err);
	int (*datastore)(vs_datastore *d, void *ud, vs_error *err);
	int (*vm)(vs_vm *v, void *ud, vs_error *err);
	/* clusters by moref and name (a host's parent is its cluster) */
	int (*cluster)(const char *moref, const char *name, void *ud, vs_error *err);
	vs_vm_detail vm_detail;
	/* set: VMs are this one alone, read in the same call as the
	 * datastores (with vm and datastore; no hosts, no clusters) */
	const char *one_vm;
	void *ud;
} vs_walk;

/* Walks hosts, datastores and VMs of the whole inventory in one retrieval,
 * streaming and paging so memory does not grow with the inventory.  Each
 * object is delivered exactly once, even across a re-login. */
int vs_walk_inventory(vs_client *c, const vs_walk *walk, vs_error *err);

/* Reads one VM's summary by moref. */
int vs_vm_lookup(vs_client *c, const char *moref, vs_vm **out, vs_error *err);
/* The VMs with files on a datastore now (its vm property, one retrieval). */
int vs_datastore_vms(vs_client *c, const char *datastore, vs_vm **vms, size_t *n, vs_error *err);
void vs_vms_free(vs_vm *vms, size_t n);
/* Finds one VM by name with the names of its host and datastores, in two
 * retrievals (VS_ERR_NOT_FOUND if none or several VMs have that name). */
int vs_find_vm(vs_client *c, const char *name, vs_vm **out, vs_error *err);

/* ---- Tasks ----------------------------------------------------------- */

/* Called with info.progress (0-100) each time it changes. */
typedef void (*vs_progress_fn)(int percent, void *ud);

/* Many tasks waited on together: a PropertyCollector of the set's own with
 * a filter per task, and one WaitForUpdatesEx for all of them (no polling
 * per task).  A re-login while waiting makes collector and filters again. */
typedef struct vs_task_set vs_task_set;
typedef enum vs_task_phase {
	VS_TASK_UNSEEN,   /* no state reported yet */
	VS_TASK_QUEUED,   /* vCenter queued it (its limits) */
	VS_TASK_RUNNING,
	VS_TASK_SUCCESS,
	VS_TASK_ERROR,
} vs_task_phase;
int vs_task_set_new(vs_client *c, vs_task_set **out, vs_error *err);
/* Watches task (a Task moref) from now on; adding it twice changes nothing. */
int vs_task_set_add(vs_task_set *s, const char *task, vs_error *err);
/* Waits until one of the tasks changes, or wait_s (within the call's
 * timeout) passes: then each task's phase is as vCenter last said. */
int vs_task_set_wait(vs_task_set *s, long wait_s, vs_error *err);
/* The task's phase and progress (-1 until reported). */
vs_task_phase vs_task_set_phase(const vs_task_set *s, const char *task, int *progress);
/* When vCenter says the task was queued (asked for), began running (left
 * its queue) and ended: its clock, ms since the epoch; 0 not yet or not said. */
typedef struct vs_task_times {
	int64_t queued_ms, started_ms, ended_ms;
} vs_task_times;
vs_task_times vs_task_set_times(const vs_task_set *s, const char *task);
/* Stops watching an ended task: VS_OK for success, VS_ERR_TASK with the
 * task's fault in err for an error. */
int vs_task_set_take(vs_task_set *s, const char *task, vs_error *err);
void vs_task_set_free(vs_task_set **s);

int vs_vm_power_on(vs_client *c, const char *vm, vs_progress_fn progress, void *ud, vs_error *err);
int vs_vm_power_off(vs_client *c, const char *vm, vs_progress_fn progress, void *ud, vs_error *err);

/* ---- NFS datastores ---------------------------------------------------- */

typedef struct vs_nas_spec {
	const char *name;          /* datastore name (localPath) */
	const char *const *servers;/* NULL-terminated; NFS 3 takes exactly one */
	const char *path;          /* export path, e.g. "/mnt/tank/vmware16k" */
	const char *type;          /* "NFS" (v3) or "NFS41" */
	bool read_only;
	const char *security;      /* NFS 4.1: "AUTH_SYS", "SEC_KRB5", "SEC_KRB5I"; NULL = default */
	int connections;           /* nConnect, TCP connections to the server (API 8.0.1); 0 = ESXi's one */
} vs_nas_spec;

/* HostDatastoreSystem.CreateNasDatastore on one host; *datastore gets the moref. */
int vs_nas_mount(vs_client *c, const vs_host *host, const vs_nas_spec *spec, char **datastore,
                 vs_error *err);
/* HostDatastoreSystem.RemoveDatastore: unmounts the datastore from one host. */
int vs_datastore_unmount(vs_client *c, const vs_host *host, const char *datastore, vs_error *err);
/* Whether vSphere HA of a cluster (moref) heartbeats on a datastore (moref):
 * ClusterComputeResource.RetrieveDasAdvancedRuntimeInfo. */
int vs_cluster_heartbeats_on(vs_client *c, const char *cluster, const char *datastore, bool *used,
                             vs_error *err);
/* Reads, in one call, how to reach the hosts (morefs) that file reads
 * through them will need and that were not reached before; best effort:
 * a host it could not read is read when it is reached. */
void vs_hosts_prepare(vs_client *c, const char *const *hosts, size_t n);
/* Reads how each host reaches its server (an IPv4 address, or a name:
 * then through the default route) from its config.network into out[i];
 * speed_mb 0 when vSphere does not say (no such port, a link down).  One
 * call for all n (a host may be named more than once). */
int vs_hosts_link_to(vs_client *c, const char *const *hosts, const char *const *servers, size_t n,
                     vs_host_link *out, vs_error *err);

/* One advanced option of an ESXi host (OptionValue). */
typedef struct vs_option {
	char *key;    /* "NFS.MaxQueueDepth" */
	char *value;  /* as the host wrote it ("64"); NULL when it sent none */
} vs_option;

/* The host's NFS client settings: its advanced options (its OptionManager,
 * configManager.advancedOption, QueryOptions) under NFS., NFS41. and
 * SunRPC., sorted by key.  A key the host or its version lacks is simply
 * not listed; a subtree it has no option under (the InvalidName fault)
 * adds none.  Read once per client and host (four calls at most): *out is
 * the client's, valid until vs_disconnect. */
int vs_host_nfs_options(vs_client *c, const vs_host *host, const vs_option **out, size_t *n,
                        vs_error *err);

/* ---- Datastore files --------------------------------------------------- */

typedef struct vs_file {
	char *path;        /* relative to the folder searched */
	int64_t size;      /* bytes; -1 if the server did not say */
	bool is_folder;
} vs_file;

/* Files in "[ds] folder" matching pattern (e.g. "*"), with sizes (SearchDatastore_Task). */
int vs_datastore_list(vs_client *c, const char *browser, const char *folder_dspath,
                      const char *pattern, vs_file **files, size_t *n, vs_error *err);
/* vs_datastore_list without waiting: *task, to wait for in a vs_task_set;
 * once it has ended, vs_datastore_list_take takes it from the set with its
 * files. */
int vs_datastore_list_start(vs_client *c, const char *browser, const char *folder_dspath,
                            const char *pattern, char **task, vs_error *err);
int vs_datastore_list_take(vs_task_set *s, const char *task, const char *folder_dspath,
                           vs_file **files, size_t *n, vs_error *err);
void vs_files_free(vs_file **files, size_t n);
/* Downloads "[ds] path" over /folder; at most max_bytes (VS_ERR_HTTP past that). */
int vs_datastore_download(vs_client *c, const char *dspath, size_t max_bytes, char **data,
                          size_t *len, vs_error *err);
/* Downloads the last max_bytes of "[ds] path" (a log's newest lines). */
int vs_datastore_download_tail(vs_client *c, const char *dspath, size_t max_bytes, char **data,
                               size_t *len, vs_error *err);
/* The length of "[ds] path" as ESXi host `host` (moref) sees it: through
 * vCenter with a generic service ticket, on ESXi itself directly; host NULL:
 * as whichever host serves /folder.  HEAD, else a one-byte read.  A file the
 * host cannot read (locked by a running VM: HTTP 500) fails with VS_ERR_HTTP
 * saying so; a missing one with VS_ERR_NOT_FOUND. */
int vs_datastore_file_length(vs_client *c, const char *host, const char *dspath,
                             int64_t *length, vs_error *err);
/* FileManager.MakeDirectory / DeleteDatastoreFile_Task (recursive for folders):
 * a folder that is there already, or a file already gone, is success. */
int vs_datastore_mkdir(vs_client *c, const char *dspath, vs_error *err);
int vs_datastore_delete(vs_client *c, const char *dspath, vs_error *err);
/* VirtualDiskManager.CreateVirtualDisk_Task (thin) and DeleteVirtualDisk_Task
 * (a disk already gone is success). */
int vs_vdisk_create(vs_client *c, const char *dspath, int64_t capacity_kb, vs_error *err);
int vs_vdisk_delete(vs_client *c, const char *dspath, vs_error *err);

/* ---- VM disks, files and moves -------------------------------------------- */

typedef struct vs_disk {
	int key;             /* VirtualDisk.key: the diskId of a relocation */
	char *label;         /* deviceInfo.label, e.g. "Hard disk 1" */
	char *file;          /* backing.fileName "[ds] dir/x.vmdk" (the current link) */
	char *datastore;     /* backing.datastore moref */
	int64_t capacity;    /* bytes */
	size_t n_chain;      /* descriptors of the backing chain: current link first, base last */
	char **chain;
} vs_disk;

typedef struct vs_vm_file {
	int key;
	char *name;          /* "[ds] dir/file" */
	char *type;          /* "diskDescriptor", "diskExtent", "log", "config", ... */
	int64_t size;        /* bytes, -1 if not reported */
} vs_vm_file;

typedef struct vs_vm_layout {
	size_t n_disks;
	vs_disk *disks;
	size_t n_files;
	vs_vm_file *files;
	char *log_directory; /* config.files.logDirectory "[ds] dir" */
	size_t n_snapshots;  /* root snapshots, 0 if none */
	char *host;          /* runtime.host: where it runs as its disks were read */
	/* vs_vm_layout_read_moving: the relocation queued or running as the
	 * disks were read (NULL: none), which vs_vm_relocate_disks waits for */
	bool relocation_read;
	char *relocation;
} vs_vm_layout;

int vs_vm_layout_read(vs_client *c, const char *vm, vs_vm_layout **out, vs_error *err);
/* The layout and, in the same read, a relocation of the VM still queued
 * or running (a killed nfsagent's), for vs_vm_relocate_disks to wait for. */
int vs_vm_layout_read_moving(vs_client *c, const char *vm, vs_vm_layout **out, vs_error *err);
/* vs_vm_layout_read and vs_guest_check in one read: *ready is what
 * vs_guest_check would return, its error in *ready_err. */
int vs_vm_layout_read_ready(vs_client *c, const char *vm, vs_vm_layout **out, int *ready,
                            vs_error *ready_err, vs_error *err);
void vs_vm_layout_free(vs_vm_layout **l);

/* RelocateVM_Task of the VM's home to datastore and each disk of layout to
 * disk_datastores[i] (NULL or a NULL entry: datastore, the home's).  A
 * relocation of the VM still running (a killed nfsagent's) is waited for
 * first, and when it took the VM there, none is started. */
int vs_vm_relocate_disks(vs_client *c, const char *vm, const char *datastore,
                         const vs_vm_layout *layout, const char *const *disk_datastores,
                         vs_progress_fn progress, void *ud, vs_error *err);
/* Starts the relocation of vs_vm_relocate_disks without waiting, for a caller
 * that waits for its task itself (vs_task_set).  Right before the call, one
 * read of where the VM is and of its recent tasks: a VM on datastore
 * already is never moved again, and a relocation of it queued or running
 * (an earlier run's) is the one to wait for.  *stop (may be NULL) is looked
 * at last, right before the call. */
typedef enum vs_relocate_outcome {
	VS_RELOCATE_STARTED,  /* *task is the relocation started now (NULL: its answer was lost,
	                       * and it had taken the VM there already) */
	VS_RELOCATE_RUNNING,  /* *task is one queued or running already; none started */
	VS_RELOCATE_THERE,    /* the VM was on datastore already; nothing started, *task NULL */
	VS_RELOCATE_STOPPED,  /* *stop was set: nothing started; *task NULL */
} vs_relocate_outcome;
int vs_vm_relocate_start(vs_client *c, const char *vm, const char *datastore,
                         const vs_vm_layout *layout, volatile sig_atomic_t *stop, char **task,
                         vs_relocate_outcome *how, vs_error *err);
/* Waits until no relocation of the VM runs (its recentTask); *waited: one did. */
int vs_vm_wait_relocation(vs_client *c, const char *vm, bool *waited, vs_error *err);
/* CreateSnapshot_Task (no memory, no quiesce); *snapshot gets the moref. */
int vs_vm_snapshot_create(vs_client *c, const char *vm, const char *name, char **snapshot,
                          vs_error *err);
/* RemoveSnapshot_Task with consolidation. */
int vs_vm_snapshot_remove(vs_client *c, const char *snapshot, vs_error *err);

/* ---- Guest operations (VMware Tools) -------------------------------------- */

typedef struct vs_guest_auth {
	const char *username;
	const char *password;
} vs_guest_auth;

/* Whether guest operations can run now: powered on, Tools running and
 * guestOperationsReady; else VS_ERR_USAGE saying which is missing. */
int vs_guest_check(vs_client *c, const char *vm, vs_error *err);
/* Writes data to a file in the guest (InitiateFileTransferToGuest + PUT). */
int vs_guest_upload(vs_client *c, const char *vm, const vs_guest_auth *auth, const char *path,
                    const char *data, size_t len, vs_error *err);
/* Reads a file from the guest, at most max_bytes. */
int vs_guest_download(vs_client *c, const char *vm, const vs_guest_auth *auth, const char *path,
                      size_t max_bytes, char **data, size_t *len, vs_error *err);
/* StartProgramInGuest: program is an absolute path; *pid receives the process id.
 * workdir, when given, must appear in the program's command line as the guest
 * lists it (its arguments name it): after an answer that leaves the start
 * unknown, the one new process naming it is taken as started (the guest's
 * processes are listed before the start to tell which are new).  unique,
 * when given, is a string in the command line that no earlier process had:
 * the process naming it is the one started, and no listing is needed. */
int vs_guest_start(vs_client *c, const char *vm, const vs_guest_auth *auth, const char *program,
                   const char *arguments, const char *workdir, const char *unique, int64_t *pid,
                   vs_error *err);

/* A process of the guest: its pid and its name without the folder. */
typedef struct vs_guest_program {
	int64_t pid;
	char name[64];
	char start[40];  /* its startTime as the guest gave it: a reused pid's differs */
} vs_guest_program;
typedef struct vs_guest_programs {
	vs_guest_program *v;
	size_t n;
} vs_guest_programs;
void vs_guest_programs_free(vs_guest_programs *p);
/* Ends the processes of auth's user still running in the guest whose
 * command line holds mark (a killed nfsagent's fio and its job processes,
 * by its folder): Tools signals each (SIGTERM, then SIGKILL) that is still
 * the process listed (its pid not reused), and this waits up to timeout_s
 * for each to end; the guest is listed again until none is left (one
 * being started may fork after a list), and what still runs after 3
 * rounds is an error (VS_ERR_TASK).  *ended lists those that ended (free it with
 * vs_guest_programs_free, also on error); on error, err names the first
 * that would not end (the others were still signalled). */
int vs_guest_stop_named(vs_client *c, const char *vm, const vs_guest_auth *auth, const char *mark,
                        long timeout_s, vs_guest_programs *ended, vs_error *err);

typedef struct vs_guest_process {
	bool ended;
	int exit_code;       /* -1 when the guest did not report one */
	int end_looks;       /* ListProcessesInGuest calls at or after its expected end */
} vs_guest_process;

/* Waits for pid to end, polling ListProcessesInGuest: for a program of
 * unknown length (expected_s 0) at once and after 0.25 s (a short program
 * has ended); for one expected to take expected_s, at its end (a job of
 * over 30 s also after a second, a failing start, and every 5 minutes),
 * then every 0.25 s past it and ever less often after, at most 10 s apart
 * (exit codes are kept only ~5 minutes after the end).  Gives up after
 * timeout_s or when *stop becomes non-zero, terminating the process; then
 * returns VS_ERR_TASK ("timed out" / "interrupted"). */
/* Called about once a second while a wait goes on, with the seconds since
 * it began: the caller's progress. */
typedef void (*vs_tick_fn)(long elapsed_s, void *ud);
int vs_guest_wait(vs_client *c, const char *vm, const vs_guest_auth *auth, int64_t pid,
                  long timeout_s, double expected_s, volatile sig_atomic_t *stop, vs_tick_fn tick,
                  void *ud, vs_guest_process *out, vs_error *err);
int vs_guest_terminate(vs_client *c, const char *vm, const vs_guest_auth *auth, int64_t pid,
                       vs_error *err);
/* DeleteFileInGuest, or DeleteDirectoryInGuest (recursive) when directory. */
int vs_guest_delete(vs_client *c, const char *vm, const vs_guest_auth *auth, const char *path,
                    bool directory, vs_error *err);
int vs_guest_mkdir(vs_client *c, const char *vm, const vs_guest_auth *auth, const char *path,
                   vs_error *err);

/* ---- Performance counters ------------------------------------------------------ */

typedef struct vs_perf_sample {
	char *entity;        /* the host (moref) it was asked of */
	char *instance;      /* datastore instance the counter is for */
	int counter;         /* counter id */
	char *timestamp;     /* sample time, ISO-8601 */
	int64_t value;
} vs_perf_sample;

/* Counter ids for "group.name.rollup" names (e.g. "datastore.totalWriteLatency.average"),
 * read from PerformanceManager.perfCounter; -1 for names the server lacks. */
int vs_perf_counter_ids(vs_client *c, const char *const *names, size_t n, int *ids, vs_error *err);
/* One QueryPerf on n_hosts hosts (morefs), realtime (20 s) interval, the
 * newest max_samples samples of each counter for every instance, oldest
 * first within a series. */
int vs_perf_query(vs_client *c, const char *const *hosts, size_t n_hosts, const int *ids,
                  size_t n_ids, int max_samples, vs_perf_sample **samples, size_t *n, vs_error *err);
void vs_perf_samples_free(vs_perf_sample **samples, size_t n);

/* ---- Datastore paths ------------------------------------------------- */

/* Splits "[ds] dir/file.vmdk" into "ds" and "dir/file.vmdk" (malloc'd). */
int vs_dspath_split(const char *dspath, char **ds, char **path, vs_error *err);
/* Joins "ds" and "dir/file" into "[ds] dir/file" (malloc'd). */
char *vs_dspath_join(const char *ds, const char *path);
/* Undoes vSphere's %-escaping of inventory names ("%2f" -> "/", "%25" -> "%"). */
char *vs_unescape_name(const char *name);

/* ---- VMDK descriptors ------------------------------------------------ */

/* One extent line: ACCESS SECTORS TYPE ["FILE" [OFFSET]].  access and type
 * are upper-cased ("rw" reads as "RW"). */
typedef struct vs_vmdk_extent {
	char *access;      /* "RW", "RDONLY", "NOACCESS" */
	int64_t sectors;   /* size in 512-byte sectors as declared */
	char *type;        /* "FLAT", "VMFS", "VMFSSPARSE", "SESPARSE", "SPARSE", "ZERO", "VMFSRDM", ... */
	char *file;        /* file name as written (relative to the descriptor's folder); NULL for ZERO */
	int64_t offset;    /* optional offset field, in sectors; 0 if absent */
} vs_vmdk_extent;

/* A parsed descriptor.  String fields are NULL when absent or empty. */
typedef struct vs_vmdk {
	char *create_type;   /* createType, e.g. "monolithicFlat", "vmfs", "vmfsSparse", "seSparse", "twoGbMaxExtentFlat" */
	char *cid, *parent_cid;      /* as strings; parent "ffffffff" means none */
	char *parent_hint;           /* parentFileNameHint, NULL if none */
	size_t n_extents;            /* at least 1 */
	vs_vmdk_extent *extents;
	int64_t capacity_sectors;    /* sum of extent sectors */
	char *adapter_type;          /* ddb.adapterType, NULL if absent */
} vs_vmdk;

/* Parses a descriptor (text, len bytes; need not be NUL-terminated).  Fails
 * with VS_ERR_PROTOCOL (the message names the line) on binary data, more
 * than 64 KiB, no extent line, or an extent line that is malformed or whose
 * byte counts would overflow int64_t.  Unknown lines and keys are ignored. */
int vs_vmdk_parse(const char *text, size_t len, vs_vmdk **out, vs_error *err);
void vs_vmdk_free(vs_vmdk **d);
/* Bytes an extent's file must hold at least: sectors * 512 for FLAT/VMFS
 * extents (offset added), -1 when the size is not fixed by the descriptor
 * (sparse and delta formats grow; ZERO has no file; RDMs map a LUN). */
int64_t vs_vmdk_extent_min_bytes(const vs_vmdk_extent *e);

#ifdef __cplusplus
}
#endif
#endif
