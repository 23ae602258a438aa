/* nfsagent ls hosts|datastores|vms: one streamed inventory walk.  Rows keep
 * morefs, which are resolved to names once the walk has seen every host and
 * datastore (the server sends objects in any order). */
#include <stdlib.h>
#include <string.h>

#include "cmd/cmd.h"
#include "output.h"

static const char usage[] =
	"Usage: nfsagent ls hosts|datastores|vms [OPTIONS]\n"
	"Lists hosts (ESXi version and build), datastores (type, NFS server and export,\n"
	"capacity, free space, hosts that mount it) or VMs (power state, host,\n"
	"datastores, VMware Tools).\n"
	"Examples:\n"
	"  nfsagent ls datastores\n"
	"  nfsagent ls vms --json\n\n"
	NA_CONNECT_HELP
	"  --page-size N         objects per page of the property collector\n"
	"                        (default: server's)\n";

typedef enum col_kind { COL_TEXT, COL_BYTES, COL_HOST, COL_HOSTS, COL_DATASTORES } col_kind;

typedef struct column {
	const char *header;  /* NULL: JSON only */
	const char *key;
	col_kind kind;
} column;

enum { MAX_COLS = 9 };

typedef struct rows {
	size_t ncols, n, cap;
	char **cells;  /* n * ncols strings */
} rows;

typedef struct listing {
	const column *cols;
	size_t ncols;
	rows out;
	rows host_names;  /* moref, name: sorted by moref before use */
	rows ds_names;
} listing;

/* ---- rows ---------------------------------------------------------------- */

static int rows_add(rows *r, const char *const *cells, vs_error *err)
{
	if (r->n == r->cap) {
		size_t cap = r->cap ? r->cap * 2 : 64;
		char **c = realloc(r->cells, cap * r->ncols * sizeof(char *));
		if (!c)
			return vs_fail(err, VS_ERR_NOMEM, "out of memory");
		r->cells = c;
		r->cap = cap;
	}
	/* One allocation a row: 2,000 VMs are 2,000 blocks, not 12,000. */
	size_t len = 0;
	for (size_t i = 0; i < r->ncols; i++)
		len += strlen(cells[i] ? cells[i] : "") + 1;
	char *block = malloc(len), **row = r->cells + r->n * r->ncols;
	if (!block)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < r->ncols; i++) {
		row[i] = block;
		block = stpcpy(block, cells[i] ? cells[i] : "") + 1;
	}
	r->n++;
	return VS_OK;
}

static void rows_free(rows *r)
{
	for (size_t i = 0; i < r->n; i++)
		free(r->cells[i * r->ncols]);
	free(r->cells);
	r->cells = NULL;
	r->n = r->cap = 0;
}

static int compare_first(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static void rows_sort(rows *r)
{
	/* Rows are contiguous runs of ncols pointers: sort them as records. */
	if (r->n > 1)
		qsort(r->cells, r->n, r->ncols * sizeof(char *), compare_first);
}

static const char *lookup(const rows *names, const char *moref)
{
	size_t lo = 0, hi = names->n;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int cmp = strcmp(names->cells[mid * 2], moref);
		if (cmp == 0)
			return names->cells[mid * 2 + 1];
		if (cmp < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return moref;
}

/* "a\nb\nc" of morefs -> their names, as a JSON array or a short text. */
static json_t *names_json(const rows *names, const char *list)
{
	json_t *a = json_array();
	char *copy = strdup(list), *save = NULL;
	for (char *m = strtok_r(copy, "\n", &save); m; m = strtok_r(NULL, "\n", &save))
		json_array_append_new(a, json_string(lookup(names, m)));
	free(copy);
	return a;
}

/* At most `max` names, then "+N more": a table cell stays readable. */
static char *names_text(const rows *names, const char *list, size_t max)
{
	json_t *a = names_json(names, list);
	size_t n = json_array_size(a), len = 0;
	for (size_t i = 0; i < n && i < max; i++)
		len += strlen(json_string_value(json_array_get(a, i))) + 1;
	char *out = calloc(1, len + 32);
	for (size_t i = 0; out && i < n && i < max; i++) {
		if (i)
			strcat(out, ",");
		strcat(out, json_string_value(json_array_get(a, i)));
	}
	if (out && n > max)
		sprintf(out + strlen(out), ",+%zu more", n - max);
	if (out && n == 0)
		strcpy(out, "-");
	json_decref(a);
	return out;
}

/* ---- walk callbacks ------------------------------------------------------ */

static char *join_morefs(char **v, size_t n)
{
	size_t len = 1;
	for (size_t i = 0; i < n; i++)
		len += strlen(v[i]) + 1;
	char *s = calloc(1, len);
	for (size_t i = 0; s && i < n; i++) {
		if (i)
			strcat(s, "\n");
		strcat(s, v[i]);
	}
	return s;
}

static int on_host(vs_host *h, void *ud, vs_error *err)
{
	listing *l = ud;
	const char *pair[] = {h->moref, h->name};
	int rc = rows_add(&l->host_names, pair, err);
	if (rc != VS_OK || l->ncols != 5)
		return rc;
	const char *state = h->maintenance ? "maintenance" : h->connection_state;
	const char *cells[] = {h->name, h->version, h->build, state, h->moref};
	return rows_add(&l->out, cells, err);
}

static int on_datastore(vs_datastore *d, void *ud, vs_error *err)
{
	listing *l = ud;
	const char *pair[] = {d->moref, d->name};
	int rc = rows_add(&l->ds_names, pair, err);
	if (rc != VS_OK || l->ncols != 9)
		return rc;
	char cap[32], free_space[32];
	snprintf(cap, sizeof(cap), "%lld", (long long)d->capacity);
	snprintf(free_space, sizeof(free_space), "%lld", (long long)d->free_space);
	char **hosts = calloc(d->n_mounts + 1, sizeof(char *));
	for (size_t i = 0; hosts && i < d->n_mounts; i++)
		hosts[i] = d->mounts[i].host;
	char *mounts = hosts ? join_morefs(hosts, d->n_mounts) : NULL;
	free(hosts);
	const char *cells[] = {d->name, d->type, d->remote_host, d->remote_path, cap, free_space,
	                       mounts, d->accessible ? "yes" : "no", d->moref};
	rc = mounts ? rows_add(&l->out, cells, err) : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	free(mounts);
	return rc;
}

static int on_vm(vs_vm *v, void *ud, vs_error *err)
{
	listing *l = ud;
	char *ds = join_morefs(v->datastores, v->n_datastores);
	const char *cells[] = {v->name, v->power_state, v->host, ds, v->tools_status, v->moref};
	int rc = ds ? rows_add(&l->out, cells, err) : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	free(ds);
	return rc;
}

/* ---- output ---------------------------------------------------------------- */

static const column host_cols[] = {
	{"NAME", "name", COL_TEXT}, {"VERSION", "version", COL_TEXT}, {"BUILD", "build", COL_TEXT},
	{"STATE", "state", COL_TEXT}, {NULL, "moref", COL_TEXT},
};
static const column ds_cols[] = {
	{"NAME", "name", COL_TEXT}, {"TYPE", "type", COL_TEXT}, {"SERVER", "server", COL_TEXT},
	{"EXPORT", "export", COL_TEXT}, {"CAPACITY", "capacity", COL_BYTES},
	{"FREE", "free", COL_BYTES}, {"HOSTS", "hosts", COL_HOSTS},
	{"ACCESSIBLE", "accessible", COL_TEXT}, {NULL, "moref", COL_TEXT},
};
static const column vm_cols[] = {
	{"NAME", "name", COL_TEXT}, {"POWER", "power_state", COL_TEXT}, {"HOST", "host", COL_HOST},
	{"DATASTORES", "datastores", COL_DATASTORES}, {"TOOLS", "tools", COL_TEXT},
	{NULL, "moref", COL_TEXT},
};

static json_t *cell_json(const listing *l, const column *col, const char *v)
{
	switch (col->kind) {
	case COL_BYTES: return strtoll(v, NULL, 10) >= 0 ? json_integer(strtoll(v, NULL, 10)) : json_null();
	case COL_HOST: return json_string(lookup(&l->host_names, v));
	case COL_HOSTS: return names_json(&l->host_names, v);
	case COL_DATASTORES: return names_json(&l->ds_names, v);
	default: return *v ? json_string(v) : json_null();
	}
}

static char *cell_text(const listing *l, const column *col, const char *v)
{
	char buf[32];
	switch (col->kind) {
	case COL_BYTES: return strdup(na_size(strtoll(v, NULL, 10), buf, sizeof(buf)));
	case COL_HOST: return strdup(lookup(&l->host_names, v));
	case COL_HOSTS: return names_text(&l->host_names, v, 3);
	case COL_DATASTORES: return names_text(&l->ds_names, v, 4);
	default: return strdup(*v ? v : "-");
	}
}

static void print_json(const listing *l)
{
	fputs("[", stdout);
	for (size_t r = 0; r < l->out.n; r++) {
		json_t *o = json_object();
		for (size_t i = 0; i < l->ncols; i++)
			json_object_set_new(o, l->cols[i].key,
			                    cell_json(l, &l->cols[i], l->out.cells[r * l->ncols + i]));
		char *s = json_dumps(o, JSON_PRESERVE_ORDER | JSON_COMPACT);
		printf("%s\n  %s", r ? "," : "", s ? s : "null");
		free(s);
		json_decref(o);
	}
	fputs(l->out.n ? "\n]\n" : "]\n", stdout);
}

static void print_table(const listing *l)
{
	const char *headers[MAX_COLS];
	size_t n = 0;
	for (size_t i = 0; i < l->ncols; i++)
		if (l->cols[i].header)
			headers[n++] = l->cols[i].header;
	na_table *t = na_table_new(n, headers);
	for (size_t r = 0; t && r < l->out.n; r++) {
		char *cells[MAX_COLS] = {0};
		size_t k = 0;
		for (size_t i = 0; i < l->ncols; i++)
			if (l->cols[i].header)
				cells[k++] = cell_text(l, &l->cols[i], l->out.cells[r * l->ncols + i]);
		na_table_add(t, (const char *const *)cells);
		for (size_t i = 0; i < k; i++)
			free(cells[i]);
	}
	if (t)
		na_table_print(t, stdout);
	na_table_free(&t);
}

static vs_status list(vs_client *c, void *args, bool json, na_outcome *out)
{
	const char *what = *(const char **)args;
	listing l = {.host_names = {.ncols = 2}, .ds_names = {.ncols = 2}};
	vs_walk walk = {.host = on_host, .vm_detail = VS_VM_SUMMARY, .ud = &l};
	if (strcmp(what, "hosts") == 0) {
		l.cols = host_cols, l.ncols = sizeof(host_cols) / sizeof(*host_cols);
	} else if (strcmp(what, "datastores") == 0) {
		l.cols = ds_cols, l.ncols = sizeof(ds_cols) / sizeof(*ds_cols);
		walk.datastore = on_datastore;
	} else {
		l.cols = vm_cols, l.ncols = sizeof(vm_cols) / sizeof(*vm_cols);
		walk.datastore = on_datastore;
		walk.vm = on_vm;
	}
	l.out.ncols = l.ncols;
	vs_status rc = vs_walk_inventory(c, &walk, &out->err);
	if (rc == VS_OK) {
		rows_sort(&l.out);
		rows_sort(&l.host_names);
		rows_sort(&l.ds_names);
		if (json)
			print_json(&l);
		else
			print_table(&l);
	}
	rows_free(&l.out);
	rows_free(&l.host_names);
	rows_free(&l.ds_names);
	return rc;
}

static vs_status check(void *args, int argc, char **argv, na_outcome *out)
{
	if (argc < 1)
		return na_usage_error(out, "what to list? hosts, datastores or vms");
	if (strcmp(argv[0], "hosts") != 0 && strcmp(argv[0], "datastores") != 0 &&
	    strcmp(argv[0], "vms") != 0)
		return na_usage_error(out, "cannot list '%s': choose hosts, datastores or vms", argv[0]);
	if (argc > 1)
		return na_usage_error(out, "unexpected argument '%s'", argv[1]);
	*(const char **)args = argv[0];
	return VS_OK;
}

vs_status cmd_ls(int argc, char **argv, na_outcome *out)
{
	static const struct option longopts[] = {NA_CONNECT_LONGOPTS, {0}};
	static const na_command_spec spec = {usage, longopts, NULL, check, list};
	const char *what = NULL;
	return na_command(&spec, &what, argc, argv, out);
}
