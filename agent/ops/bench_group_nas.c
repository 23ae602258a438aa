/* The NAS side of a group run: one sampler per pool for all its members,
 * the pool's figures over the group's common window, and its
 * amplification against the members' summed guest bytes.  See
 * docs/groups.md ("The NAS during a group"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ops/bench_group_nas.h"

size_t na_group_pools(const char *const *nas, const char *const *pool, size_t n, size_t *pool_of,
                      size_t *leader)
{
	size_t pools = 0;
	for (size_t i = 0; i < n; i++) {
		pool_of[i] = NA_NO_POOL;
		if (!pool[i] || !nas[i])
			continue;
		for (size_t k = 0; k < pools && pool_of[i] == NA_NO_POOL; k++)
			if (!strcmp(nas[leader[k]], nas[i]) && !strcmp(pool[leader[k]], pool[i]))
				pool_of[i] = k;
		if (pool_of[i] == NA_NO_POOL) {
			leader[pools] = i;
			pool_of[i] = pools++;
		}
	}
	return pools;
}

/* An earlier member on the same datastore through the same NAS target
 * (its view is this one's), else i. */
static size_t shared_view(na_bench *const *m, size_t i)
{
	for (size_t j = 0; j < i; j++)
		if (m[j]->nas == m[i]->nas && m[j]->ds == m[i]->ds)
			return j;
	return i;
}

/* Members without a NAS given beside members with one: said once. */
static void say_without(na_bench *const *m, size_t n, const na_group_nas *g)
{
	char names[512] = "";
	size_t without = 0, used = 0;
	for (size_t i = 0; i < n; i++)
		if (!m[i]->nas && used < sizeof(names))
			used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s",
			                         without++ ? ", " : "", m[i]->vm->name);
	if (without && g->n)
		na_say_warning(m[0]->s, "no NAS is given for the datastore of %s: %s without a NAS side",
		               names, without == 1 ? "its runs are" : "their runs are");
}

void na_group_nas_begin(na_bench *const *m, size_t n, na_group_nas *g)
{
	const char *nas[NA_GROUP_MAX_VMS] = {0}, *pool[NA_GROUP_MAX_VMS] = {0};
	*g = (na_group_nas){0};
	for (size_t i = 0; i < n; i++) {
		g->view_of[i] = shared_view(m, i);
		const na_bench *v = m[g->view_of[i]];
		if (m[i]->nas && g->view_of[i] == i)
			na_bench_nas_begin(m[i]);
		nas[i] = v->nas_ready ? v->nas->display : NULL;
		m[i]->nas_of = n > 1 && v->nas_ready ? v : NULL;
		pool[i] = v->nas_ready ? v->nas_view.layout.pool : NULL;
	}
	g->n = na_group_pools(nas, pool, n, g->pool_of, g->leader);
	say_without(m, n, g);
	/* Only a pool's leader samples it: another member's parked session goes. */
	for (size_t i = 0; i < n; i++) {
		size_t k = g->pool_of[i];
		if (k == NA_NO_POOL || g->leader[k] != i) {
			nas_sampler_close(&m[i]->nas_next);
			m[i]->nas_runs = 0;
		}
	}
}

void na_group_nas_end(na_bench *const *m, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (m[i]->nas)
			na_bench_nas_end(m[i]);
}

/* Appends word to list (", " between) unless it is there already. */
static void add_word(char *list, size_t size, const char *word)
{
	size_t used = strlen(list), len = strlen(word);
	for (const char *at = strstr(list, word); at; at = strstr(at + 1, word))
		if ((at == list || at[-1] == ' ') && (at[len] == ',' || !at[len]))
			return;
	snprintf(list + used, size - used, "%s%s", used ? ", " : "", word);
}

static void pool_init(const na_group_nas *g, na_bench *const *m, size_t n, size_t k,
                      na_bench_group_pool *p)
{
	const na_bench *lead = m[g->leader[k]];
	*p = (na_bench_group_pool){.leader = g->leader[k], .amplification = -1};
	snprintf(p->nas, sizeof(p->nas), "%s", lead->nas->display);
	snprintf(p->pool, sizeof(p->pool), "%s", lead->nas_view.layout.pool);
	for (size_t i = 0; i < n; i++)
		if (g->pool_of[i] == k) {
			p->members++;
			add_word(p->datasets, sizeof(p->datasets), m[g->view_of[i]]->nas_view.dataset.name);
			add_word(p->vms, sizeof(p->vms), m[i]->vm->name);
		}
}

int na_group_nas_start(const na_group_nas *g, na_bench *const *m, size_t n, const char *job,
                       na_bench_group_run *r, nas_sampler **s, vs_error *err)
{
	if (!g->n)
		return VS_OK;
	if (n == 1) {  /* a lone VM's pool is its result's NAS side, placed on fio's own window */
		r->m[0].o.nas = true;
		s[0] = na_bench_sampling_start(m[0], job, &r->m[0].o.nas_window);
	} else if (!(r->pools = calloc(g->n, sizeof(*r->pools)))) {
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	}
	for (size_t k = 0; n > 1 && k < g->n; k++) {
		pool_init(g, m, n, k, &r->pools[k]);
		s[k] = na_bench_sampling_start(m[g->leader[k]], job, &r->pools[k].w);
	}
	r->n_pools = n > 1 ? g->n : 0;
	/* every pool's first reading before any fio starts (a small file
	 * without a ramp opens fio's window at once) */
	for (size_t k = 0; k < g->n; k++)
		if (s[k])
			nas_sampler_ready(s[k]);
	return VS_OK;
}

void na_group_nas_stop(na_bench *const *m, size_t n, na_bench_group_run *r, nas_sampler **s)
{
	if (n == 1 && s[0])
		na_bench_sampling_stop(m[0], &s[0], &r->m[0].o.nas_window);
	for (size_t k = 0; k < r->n_pools; k++)
		if (s[k])
			na_bench_sampling_stop(m[r->pools[k].leader], &s[k], &r->pools[k].w);
}

static void incomplete(nas_window *w, const char *why)
{
	if (!w->incomplete)
		snprintf(w->why, sizeof(w->why), "%s", why);
	w->incomplete = true;
}

/* The bytes the pool wrote in its window: data, special, dedup and log. */
static uint64_t pool_written(const nas_window *w)
{
	const nas_io *t = w->total;
	return t[NAS_CLASS_DATA].write_bytes + t[NAS_CLASS_SPECIAL].write_bytes +
	       t[NAS_CLASS_DEDUP].write_bytes + t[NAS_CLASS_LOG].write_bytes;
}

/* The pool's complete members: their guests' clocks read as one (their
 * middle, known to the widest one's error and half their spread: the
 * common window is on all of them at once; err < 0 when one was not read)
 * and the bytes they wrote in the window summed into the pool's. */
static size_t complete_members(const na_group_nas *g, na_bench *const *m, size_t n, size_t k,
                           const na_bench_started *st, na_bench_group_run *r, double *offset,
                           double *err)
{
	double lo = INFINITY, hi = -INFINITY, e = 0;
	size_t complete = 0;
	for (size_t i = 0; i < n; i++) {
		na_bench_outcome *o = &r->m[i].o;
		if (g->pool_of[i] != k || r->m[i].why)
			continue;
		complete++;
		na_bench_guest_clock(m[i], st[i].asked, o);
		e = o->guest_clock_err < 0 || e < 0 ? -1 : fmax(e, o->guest_clock_err);
		lo = fmin(lo, o->guest_clock_offset);
		hi = fmax(hi, o->guest_clock_offset);
		r->pools[k].guest_written += na_guest_written(&r->m[i].window.write);
	}
	r->pools[k].measured = complete;
	*offset = (lo + hi) / 2;
	*err = e < 0 ? -1 : e + (hi - lo) / 2;
	return complete;
}

/* A member on pool k whose fio started but who is not in the group's
 * figures: its writes are in the pool's bytes and not in the guests'. */
static const char *uncounted_writer(const na_group_nas *g, na_bench *const *m, size_t n,
                                    const na_bench_started *st, const na_bench_group_run *r,
                                    size_t k)
{
	for (size_t i = 0; i < n; i++)
		if (g->pool_of[i] == k && r->m[i].why && st[i].pid >= 0)
			return m[i]->vm->name;
	return NULL;
}

static void cut_pool(const na_group_nas *g, na_bench *const *m, size_t n,
                     const na_bench_started *st, na_bench_group_run *r, size_t k)
{
	na_bench_group_pool *p = &r->pools[k];
	if (p->w.incomplete)
		return;  /* not sampled: the guests' clocks are not needed */
	double offset = 0, err = -1;
	size_t complete = complete_members(g, m, n, k, st, r, &offset, &err);
	const char *uncounted = uncounted_writer(g, m, n, st, r, k);
	if (uncounted) {
		char why[sizeof(p->w.why)];
		snprintf(why, sizeof(why), "%s wrote to the pool but is not in the group's figures",
		         uncounted);
		incomplete(&p->w, why);
		return;
	}
	if (!complete || !r->fig.n) {
		incomplete(&p->w, "no member on the pool ran the whole job: no common window");
		return;
	}
	na_nas_clock c;
	na_bench_nas_place(&p->w, offset, err, r->window_to_ms, r->window_to_ms - r->window_from_ms,
	                   &c);
	if (!p->w.incomplete && p->guest_written)
		p->amplification = (double)pool_written(&p->w) / (double)p->guest_written;
}

void na_group_nas_cut(const na_group_nas *g, na_bench *const *m, size_t n,
                      const na_bench_started *st, na_bench_group_run *r)
{
	for (size_t k = 0; k < r->n_pools; k++)
		cut_pool(g, m, n, st, r, k);
}

void na_group_nas_rows(const na_bench_group_run *r, na_group_nas_row *rows)
{
	for (size_t k = 0; k < r->n_pools; k++) {
		const na_bench_group_pool *p = &r->pools[k];
		const nas_window *w = &p->w;
		const nas_io *t = w->total;
		bool placed = w->fio_window && !w->incomplete;
		rows[k] = (na_group_nas_row){
			.nas = p->nas, .pool = p->pool, .datasets = p->datasets, .vms = p->vms,
			.members = (int)p->members, .interval_s = w->interval_s > 0 ? w->interval_s : -1,
			.pool_known = w->timeline.n > 0, .measured_s = placed ? w->seconds : -1,
			.window_s = placed ? w->span : -1,
			.data_write_bytes = (int64_t)(t[NAS_CLASS_DATA].write_bytes + t[NAS_CLASS_DEDUP].write_bytes),
			.special_write_bytes = (int64_t)t[NAS_CLASS_SPECIAL].write_bytes,
			.log_write_bytes = (int64_t)t[NAS_CLASS_LOG].write_bytes,
			.data_read_bytes = (int64_t)(t[NAS_CLASS_DATA].read_bytes + t[NAS_CLASS_DEDUP].read_bytes +
			                             t[NAS_CLASS_SPECIAL].read_bytes),
			.guest_write_bytes = (int64_t)p->guest_written, .amplification = p->amplification,
			.why = w->incomplete ? w->why : NULL};
	}
}
