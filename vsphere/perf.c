/* Host-side datastore counters, so that ESXi's view of a benchmark sits
 * next to the guest's.  Counter ids are looked up by name in the
 * PerformanceManager's perfCounter list (they differ between servers). */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* All "group.name.rollup" -> id pairs of the server, read once per client:
 * the list has hundreds of entries on vCenter and never changes while we
 * are connected. */
struct vs_perf_names {
	char **names;
	int *ids;
	size_t n;
};

void vs_perf_names_free(struct vs_perf_names **pp)
{
	struct vs_perf_names *p = *pp;
	if (!p)
		return;
	vs_strv_free(p->names, p->n);
	free(p->ids);
	free(p);
	*pp = NULL;
}

static int read_counters(const char *type, const char *moref, const xmlNode *object, void *ud,
                         vs_error *err)
{
	(void)type, (void)moref;
	struct vs_perf_names *p = ud;
	const xmlNode *list = vs_prop(object, "perfCounter");
	size_t cap = 0;
	for (xmlNode *info = list ? list->children : NULL; info; info = info->next)
		cap += info->type == XML_ELEMENT_NODE;
	p->names = calloc(cap + 1, sizeof(char *));
	p->ids = calloc(cap + 1, sizeof(int));
	if (!p->names || !p->ids)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	for (xmlNode *info = list ? list->children : NULL; info; info = info->next) {
		if (info->type != XML_ELEMENT_NODE)
			continue;
		char *group = vs_xml_path_text(info, "groupInfo/key");
		char *name = vs_xml_path_text(info, "nameInfo/key");
		char *rollup = vs_xml_path_text(info, "rollupType");
		vs_buf full = {0};
		vs_buf_addf(&full, "%s.%s.%s", group ? group : "", name ? name : "", rollup ? rollup : "");
		free(group);
		free(name);
		free(rollup);
		if (full.failed)
			return vs_fail(err, VS_ERR_NOMEM, "out of memory");
		p->ids[p->n] = (int)vs_xml_path_int(info, "key", -1);
		p->names[p->n++] = full.data;
	}
	return VS_OK;
}

int vs_perf_counter_ids(vs_client *c, const char *const *names, size_t n, int *ids, vs_error *err)
{
	static const char *const paths[] = {"perfCounter", NULL};
	int rc = VS_OK;
	if (!c->perf_names) {
		if (!(c->perf_names = calloc(1, sizeof(*c->perf_names))))
			return vs_fail(err, VS_ERR_NOMEM, "out of memory");
		rc = vs_props_one(c, "PerformanceManager", c->sc.perf_manager, paths, read_counters,
		                  c->perf_names, err);
		if (rc != VS_OK) {
			vs_perf_names_free(&c->perf_names);
			vs_error_context(err, "reading the performance counters of %s", vs_client_host(c));
			return rc;
		}
	}
	for (size_t i = 0; i < n; i++) {
		ids[i] = -1;
		for (size_t k = 0; k < c->perf_names->n; k++)
			if (strcmp(c->perf_names->names[k], names[i]) == 0)
				ids[i] = c->perf_names->ids[k];
	}
	return VS_OK;
}

void vs_perf_samples_free(vs_perf_sample **samples, size_t n)
{
	for (size_t i = 0; *samples && i < n; i++) {
		free((*samples)[i].entity);
		free((*samples)[i].instance);
		free((*samples)[i].timestamp);
	}
	free(*samples);
	*samples = NULL;
}

static int add_sample(vs_perf_sample **v, size_t *n, const char *entity, const char *instance,
                      int counter, const char *timestamp, int64_t value)
{
	vs_perf_sample *grown = realloc(*v, (*n + 1) * sizeof(**v));
	if (!grown)
		return VS_ERR_NOMEM;
	*v = grown;
	vs_perf_sample *s = &grown[(*n)++];
	*s = (vs_perf_sample){strdup(entity ? entity : ""), strdup(instance ? instance : ""), counter,
	                      strdup(timestamp ? timestamp : ""), value};
	return s->entity && s->instance && s->timestamp ? VS_OK : VS_ERR_NOMEM;
}

/* One PerfMetricIntSeries: its values line up with the entity's sampleInfo. */
static int read_series(const xmlNode *series, const char *entity, char **times, size_t n_times,
                       vs_perf_sample **v, size_t *n)
{
	int counter = (int)vs_xml_path_int(series, "id/counterId", -1);
	char *instance = vs_xml_path_text(series, "id/instance");
	size_t i = 0;
	int rc = VS_OK;
	for (xmlNode *val = vs_xml_child(series, "value"); val && rc == VS_OK; val = vs_xml_next(val), i++)
		rc = add_sample(v, n, entity, instance, counter, i < n_times ? times[i] : NULL,
		                vs_xml_path_int(val, "", 0));
	free(instance);
	return rc;
}

static int read_metrics(const xmlNode *metric, vs_perf_sample **v, size_t *n)
{
	size_t n_times = 0;
	for (xmlNode *s = vs_xml_child(metric, "sampleInfo"); s; s = vs_xml_next(s))
		n_times++;
	char **times = calloc(n_times + 1, sizeof(char *));
	if (!times)
		return VS_ERR_NOMEM;
	size_t i = 0;
	for (xmlNode *s = vs_xml_child(metric, "sampleInfo"); s; s = vs_xml_next(s))
		times[i++] = vs_xml_path_text(s, "timestamp");
	char *entity = vs_xml_path_text(metric, "entity");
	int rc = VS_OK;
	for (xmlNode *series = vs_xml_child(metric, "value"); series && rc == VS_OK;
	     series = vs_xml_next(series))
		rc = read_series(series, entity, times, n_times, v, n);
	free(entity);
	vs_strv_free(times, n_times);
	return rc;
}

int vs_perf_query(vs_client *c, const char *const *hosts, size_t n_hosts, const int *ids,
                  size_t n_ids, int max_samples, vs_perf_sample **samples, size_t *n, vs_error *err)
{
	*samples = NULL;
	*n = 0;
	vs_buf p = {0};
	for (size_t h = 0; h < n_hosts; h++) {
		vs_buf_add(&p, "<querySpec>");
		vs_buf_moref(&p, "entity", "HostSystem", hosts[h]);
		/* The simulator returns nothing without maxSample; vCenter honours it too. */
		vs_buf_addf(&p, "<maxSample>%d</maxSample>", max_samples);
		for (size_t i = 0; i < n_ids; i++)
			if (ids[i] >= 0)
				vs_buf_addf(&p, "<metricId><counterId>%d</counterId><instance>*</instance></metricId>",
				            ids[i]);
		vs_buf_add(&p, "<intervalId>20</intervalId></querySpec>");
	}
	vs_reply r = {0};
	int rc = p.failed ? vs_fail(err, VS_ERR_NOMEM, "out of memory")
	                  : vs_call(c, "QueryPerf", "PerformanceManager", c->sc.perf_manager, p.data,
	                            VS_RET_LIST, VS_CALL_SAFE, NULL, &r, err);
	vs_buf_free(&p);
	for (xmlNode *m = rc == VS_OK ? vs_reply_ret(&r) : NULL; m && rc == VS_OK; m = vs_xml_next(m))
		if (read_metrics(m, samples, n) != VS_OK)
			rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	vs_reply_free(&r);
	if (rc != VS_OK) {
		vs_perf_samples_free(samples, *n);
		*n = 0;
		vs_error_context(err, "querying the performance counters of %s%s", n_hosts ? hosts[0] : "",
		                 n_hosts > 1 ? " and other hosts" : "");
	}
	return rc;
}
