/* The pool in words: its layout ("2 raidz2 + special mirror + log mirror +
 * cache") and its health as a result's provenance ("DEGRADED (resilver
 * 43%)"), from the layout (zpool_parse.c) and `zpool status`'s activity. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "nfsagent/nas.h"

/* Appends to buf (size bytes) at *n, as far as it fits. */
static void put(char *buf, size_t size, size_t *n, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t size, size_t *n, const char *fmt, ...)
{
	if (*n >= size)
		return;
	va_list ap;
	va_start(ap, fmt);
	int k = vsnprintf(buf + *n, size - *n, fmt, ap);
	va_end(ap);
	*n = k < 0 ? size : *n + (size_t)k;
}

/* A class's live vdevs by type, in the order zpool lists them. */
enum { MAX_KINDS = 8 };
typedef struct kinds {
	const char *type[MAX_KINDS];
	size_t count[MAX_KINDS];
	size_t n, total, removed;
} kinds;

static void kinds_of(const nas_layout *l, nas_class c, kinds *k)
{
	*k = (kinds){0};
	for (size_t i = 0; i < l->n; i++) {
		const nas_vdev *v = &l->v[i];
		if (v->cls != c || strcmp(v->type, "dspare") == 0)
			continue;
		if (strcmp(v->type, "indirect") == 0) {
			k->removed++;
			continue;
		}
		size_t j = 0;
		while (j < k->n && strcmp(k->type[j], v->type) != 0)
			j++;
		if (j == k->n && k->n == MAX_KINDS)
			j--;  /* more kinds than anyone mixes: the last one stands for the rest */
		else if (j == k->n)
			k->type[k->n++] = v->type;
		k->count[j]++;
		k->total++;
	}
}

/* "mirror, 2 raidz1, disk": each type, with its count when more than one. */
static void kinds_words(const kinds *k, char *buf, size_t size, size_t *n)
{
	for (size_t j = 0; j < k->n; j++) {
		put(buf, size, n, "%s", j ? ", " : "");
		if (k->count[j] > 1)
			put(buf, size, n, "%zu ", k->count[j]);
		put(buf, size, n, "%s", k->type[j]);
	}
}

static void data_words(const nas_layout *l, char *buf, size_t size, size_t *n)
{
	kinds k;
	kinds_of(l, NAS_CLASS_DATA, &k);
	if (k.n == 0)
		put(buf, size, n, "no data vdev");
	else if (k.n == 1)
		put(buf, size, n, "%zu %s", k.total, k.type[0]);
	else {
		put(buf, size, n, "mixed: ");
		kinds_words(&k, buf, size, n);
	}
	if (k.removed)
		put(buf, size, n, " (%zu removed)", k.removed);
}

void nas_layout_data_words(const nas_layout *l, char *buf, size_t size)
{
	size_t n = 0;
	if (size)
		buf[0] = '\0';
	data_words(l, buf, size, &n);
}

void nas_layout_summary(const nas_layout *l, char *buf, size_t size)
{
	static const nas_class classes[] = {NAS_CLASS_DEDUP, NAS_CLASS_SPECIAL, NAS_CLASS_LOG,
	                                    NAS_CLASS_CACHE, NAS_CLASS_SPARE};
	static const char *const words[] = {"dedup", "special", "log", "cache", "spare"};
	size_t n = 0;
	if (size)
		buf[0] = '\0';
	data_words(l, buf, size, &n);
	for (size_t i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		kinds k;
		kinds_of(l, classes[i], &k);
		if (k.total == 0)
			continue;
		put(buf, size, &n, " + ");
		if (k.total > 1)
			put(buf, size, &n, "%zu ", k.total);
		put(buf, size, &n, "%s", words[i]);
		if (k.n > 1) {
			put(buf, size, &n, ": ");
			kinds_words(&k, buf, size, &n);
		} else if (strcmp(k.type[0], "disk") != 0) {
			put(buf, size, &n, " %s", k.type[0]);
		}
	}
}

void nas_health_words(const char *state, const nas_activity *a, char *buf, size_t size,
                      bool *healthy)
{
	bool busy = a && a->words[0];
	snprintf(buf, size, busy ? "%s (%s)" : "%s", state, busy ? a->words : "");
	*healthy = strcmp(state, "ONLINE") == 0 && !busy;
}
