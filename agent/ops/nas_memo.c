/* A campaign's NAS views, read ahead of its rounds (ops/nas_memo.h). */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ops/nas_memo.h"

struct na_read_ahead {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t done;
	const nas_target *const *nas;
	const char *const *path;
	na_nas_memo *memos;
	volatile sig_atomic_t *stop;
	size_t n, read;  /* memos[0..read) are in (or given up: a stop) */
};

static void *read_all(void *arg)
{
	na_read_ahead *a = arg;
	for (size_t i = 0; i < a->n; i++) {
		nas_view v = {0};
		vs_error err = {0};
		/* one that cannot be read is read by its bench, which says why */
		bool ok = !*a->stop && a->nas[i] && a->path[i] &&
		          nas_read_view(a->nas[i], a->path[i], &v, &err) == VS_OK;
		pthread_mutex_lock(&a->lock);
		if (ok) {  /* its ahead is the waiter's alone */
			a->memos[i].view = v;
			a->memos[i].held = true;
		}
		a->read = i + 1;
		pthread_cond_broadcast(&a->done);
		pthread_mutex_unlock(&a->lock);
	}
	return NULL;
}

void na_read_ahead_start(const nas_target *const *nas, const char *const *path,
                         na_nas_memo *memos, size_t n, volatile sig_atomic_t *stop,
                         na_read_ahead **out)
{
	*out = NULL;
	na_read_ahead *a = calloc(1, sizeof(*a));
	if (!a)
		return;
	*a = (na_read_ahead){.nas = nas, .path = path, .memos = memos, .stop = stop, .n = n};
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->done, NULL);
	for (size_t i = 0; i < n; i++)
		memos[i].ahead = a;
	if (pthread_create(&a->thread, NULL, read_all, a) != 0) {
		for (size_t i = 0; i < n; i++)
			memos[i].ahead = NULL;
		pthread_mutex_destroy(&a->lock);
		pthread_cond_destroy(&a->done);
		free(a);
		return;
	}
	*out = a;
}

void na_nas_memo_wait(na_nas_memo *m)
{
	na_read_ahead *a = m->ahead;
	if (!a)
		return;
	size_t i = (size_t)(m - a->memos);
	pthread_mutex_lock(&a->lock);
	/* a second at a time: Ctrl-C does not wait for a NAS that is slow */
	while (a->read <= i && !*a->stop) {
		struct timespec at;
		clock_gettime(CLOCK_REALTIME, &at);
		at.tv_sec += 1;
		pthread_cond_timedwait(&a->done, &a->lock, &at);
	}
	bool in = a->read > i;
	pthread_mutex_unlock(&a->lock);
	if (in)
		m->ahead = NULL;
}

void na_read_ahead_end(na_read_ahead **a)
{
	if (!*a)
		return;
	pthread_join((*a)->thread, NULL);
	for (size_t i = 0; i < (*a)->n; i++)
		(*a)->memos[i].ahead = NULL;
	pthread_mutex_destroy(&(*a)->lock);
	pthread_cond_destroy(&(*a)->done);
	free(*a);
	*a = NULL;
}

/* The names it reads (copies: the view moves between the memo and a
 * bench meanwhile), and what it read. */
struct na_recheck {
	pthread_t thread;
	const nas_target *nas;
	nas_view names;
	nas_props props;
	nas_activity activity;
	vs_error err;
	int rc;
};

static void *recheck_run(void *arg)
{
	na_recheck *k = arg;
	k->rc = nas_reread_settings(k->nas, &k->names, &k->props, &k->activity, &k->err);
	return NULL;
}

void na_nas_memo_recheck(na_nas_memo *m, const nas_target *nas)
{
	if (!m->held || m->ahead || m->recheck || !m->view.dataset.name || !m->view.layout.pool)
		return;
	na_recheck *k = calloc(1, sizeof(*k));
	if (!k)
		return;
	k->nas = nas;
	k->names.dataset.name = strdup(m->view.dataset.name);
	k->names.layout.pool = strdup(m->view.layout.pool);
	if (k->names.dataset.name && k->names.layout.pool &&
	    pthread_create(&k->thread, NULL, recheck_run, k) == 0) {
		m->recheck = k;
		return;
	}
	nas_view_free(&k->names);
	free(k);
}

int na_recheck_join(na_recheck **k, nas_props *props, nas_activity *activity, vs_error *err)
{
	pthread_join((*k)->thread, NULL);
	int rc = (*k)->rc;
	*props = (*k)->props;
	*activity = (*k)->activity;
	*err = (*k)->err;
	nas_view_free(&(*k)->names);
	free(*k);
	*k = NULL;
	return rc;
}

void na_nas_memo_free(na_nas_memo *m)
{
	if (m->recheck) {
		nas_props p;
		nas_activity a;
		vs_error ignored;
		na_recheck_join(&m->recheck, &p, &a, &ignored);
	}
	na_nas_memo_wait(m);
	if (m->held)
		nas_view_free(&m->view);
	*m = (na_nas_memo){0};
}
