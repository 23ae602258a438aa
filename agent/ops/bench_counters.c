/* The host's datastore counters for a run's minutes, recorded beside it:
 * asked of vCenter once per run (a group's, once for all its hosts). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ops/bench_internal.h"

const char *const na_bench_counter_names[6] = {
	"datastore.numberReadAveraged.average", "datastore.numberWriteAveraged.average",
	"datastore.totalReadLatency.average",   "datastore.totalWriteLatency.average",
	"datastore.read.average",               "datastore.write.average",
};

/* The datastore's perf instance: its uuid (last part of summary.url) on ESXi,
 * the moref in the simulator. */
static bool our_instance(const vs_datastore *d, const char *instance)
{
	if (strcmp(instance, d->moref) == 0)
		return true;
	const char *url = d->url ? d->url : "";
	size_t n = strlen(url);
	while (n && url[n - 1] == '/')
		n--;
	const char *last = url + n;
	while (last > url && last[-1] != '/')
		last--;
	return n && strlen(instance) == (size_t)(url + n - last) &&
	       strncmp(last, instance, (size_t)(url + n - last)) == 0;
}

/* Whether no run on host (moref) went without counters before, in this
 * process: what keeps one run's counters away (a statistics level, a
 * permission) keeps every later one's on that host too, and a campaign said
 * it 18 times.  Another host's cause is named.  Each result still records
 * none. */
static bool first_without_counters(const char *host)
{
	static char said[16][32];
	static size_t n;
	for (size_t i = 0; i < n; i++)
		if (strcmp(said[i], host) == 0)
			return false;
	if (n < sizeof(said) / sizeof(*said))
		snprintf(said[n++], sizeof(said[0]), "%s", host);
	return true;
}

void na_perf_memo_clear(na_perf_memo *m)
{
	vs_perf_samples_free(&m->v, m->n);
	m->n = 0;
}

/* Realtime samples of b's host, `samples` or more a series: its group's
 * answer, asked for every member's host by the first member that needs it
 * (one 20 s sample more than it needs: the others started within a moment
 * of it, perhaps across a sample's edge); else (no group, or its answer
 * too short or failed) asked of b's host alone, into own. */
static const na_perf_memo *host_samples(na_bench *b, int samples, na_perf_memo *own)
{
	na_perf_memo *m = b->perf_memo;
	/* A failed answer for several hosts may be one host's fault: each asks its own. */
	if (m && m->samples && samples <= m->samples && (m->rc == VS_OK || m->n_hosts == 1))
		return m;
	if (!m || m->samples) {
		m = own;
		m->hosts[0] = b->host->moref;
		m->n_hosts = 1;
	} else {
		samples++;
	}
	m->samples = samples;
	m->rc = vs_perf_query(b->s->client, m->hosts, m->n_hosts, b->counter_ids, 6, samples, &m->v,
	                      &m->n, &m->err);
	return m;
}

/* Which of counter_names sample v is of b's host and datastore; 6: none. */
static size_t our_counter(const na_bench *b, const vs_perf_sample *v)
{
	size_t k = 0;
	while (k < 6 && b->counter_ids[k] != v->counter)
		k++;
	return strcmp(v->entity, b->host->moref) == 0 && our_instance(b->ds, v->instance) ? k : 6;
}

char *na_bench_host_counters(na_bench *b, time_t started)
{
	int samples = (int)((time(NULL) - started) / 20) + 1;
	na_perf_memo own = {0};
	const na_perf_memo *a = host_samples(b, samples, &own);
	json_t *out = json_array();
	bool asked = a->rc == VS_OK;
	/* A series' newest `samples`: an answer shared with a group may hold one older. */
	size_t have[7] = {0}, seen[7] = {0};
	for (size_t i = 0; i < a->n; i++)
		have[our_counter(b, &a->v[i])]++;
	for (size_t i = 0; i < a->n; i++) {
		size_t k = our_counter(b, &a->v[i]);
		if (k < 6 && ++seen[k] + (size_t)samples > have[k])
			json_array_append_new(out, json_pack("{s:s, s:s, s:I}", "counter", na_bench_counter_names[k],
			                                     "time", a->v[i].timestamp,
			                                     "value", (json_int_t)a->v[i].value));
	}
	/* Not measured is NULL, never an empty list that reads as "no I/O". */
	bool say = (!asked || !json_array_size(out)) && first_without_counters(b->host->moref);
	if (say && !asked)
		na_say_warning(b->s, "no host counters from %s (said once): %s", b->host->name,
		               a->err.message);
	else if (say)
		na_say_warning(b->s, "no host counters from %s for %s in the run (vCenter's statistics "
		               "level?); said once", b->host->name, b->ds->name);
	char *s = json_array_size(out) ? json_dumps(out, JSON_COMPACT) : NULL;
	json_decref(out);
	na_perf_memo_clear(&own);
	return s;
}
