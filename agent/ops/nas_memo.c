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

/* A thread that never takes Ctrl-C's or SIGTERM's handler: the main
 * thread's waits are what the stop must interrupt. */
static bool start_thread(pthread_t *t, void *(*run)(void *), void *arg)
{
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &block, &old);
	bool started = pthread_create(t, NULL, run, arg) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return started;
}

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
	pthread_condattr_t attr;
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);  /* a clock step never stalls the wait */
	pthread_mutex_init(&a->lock, NULL);
	pthread_cond_init(&a->done, &attr);
	pthread_condattr_destroy(&attr);
	for (size_t i = 0; i < n; i++)
		memos[i].ahead = a;
	if (!start_thread(&a->thread, read_all, a)) {
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
		clock_gettime(CLOCK_MONOTONIC, &at);
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
	/* the read-ahead's first: it writes held until waited for */
	if (m->ahead || !m->held || !m->view.dataset.name || !m->view.layout.pool)
		return;
	if (m->recheck)  /* a round's that never benchmarked: stale by now */
		na_recheck_drop(&m->recheck);
	na_recheck *k = calloc(1, sizeof(*k));
	if (!k)
		return;
	k->nas = nas;
	k->names.dataset.name = strdup(m->view.dataset.name);
	k->names.layout.pool = strdup(m->view.layout.pool);
	if (k->names.dataset.name && k->names.layout.pool && start_thread(&k->thread, recheck_run, k)) {
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

void na_recheck_drop(na_recheck **k)
{
	nas_props p;
	nas_activity a;
	vs_error ignored;
	if (*k)
		na_recheck_join(k, &p, &a, &ignored);
}

void na_nas_memo_free(na_nas_memo *m)
{
	na_recheck_drop(&m->recheck);
	na_nas_memo_wait(m);
	if (m->held)
		nas_view_free(&m->view);
	*m = (na_nas_memo){0};
}
