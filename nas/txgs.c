/* The pool's txg history, /proc/spl/kstat/zfs/POOL/txgs, as OpenZFS 2.1 to
 * 2.3 print it (module/zfs/spa_stats.c: spa_txg_history_show_header and
 * spa_txg_history_show, a procfs list, so no kstat header): the titles
 * "txg birth state ndirty nread nwritten reads writes otime qtime wtime
 * stime", each padded, then one line a txg, oldest first, its times in ns
 * of gethrtime(): birth the moment it opened, then how long it stayed
 * open, quiescing, waiting for its sync and syncing; state C once
 * committed.  The history keeps the last zfs_txg_history txgs (100 by
 * default), and none when that is 0. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "nfsagent/nas.h"

enum { TXG_FIELDS = 12 };

static const char *const titles[TXG_FIELDS] = {"txg",    "birth", "state", "ndirty",
                                               "nread",  "nwritten", "reads", "writes",
                                               "otime",  "qtime", "wtime", "stime"};

void nas_txgs_free(nas_txgs *t)
{
	free(t->v);
	*t = (nas_txgs){0};
}

/* One txg's line; false when it is not one. */
static bool txg_line(nas_span line, nas_txg *t)
{
	nas_span f[TXG_FIELDS + 1];
	uint64_t v[TXG_FIELDS];
	if (nas_fields(line, ' ', f, TXG_FIELDS + 1) != TXG_FIELDS || f[2].n != 1)
		return false;
	for (size_t i = 0; i < TXG_FIELDS; i++)
		if (i != 2 && !nas_span_u64(f[i], &v[i]))
			return false;
	*t = (nas_txg){.txg = v[0], .ndirty = v[3], .stime = v[11]};
	if (f[2].s[0] != 'C')
		return true;
	/* its times add up within 2^64 ns (584 years) or they are not times */
	uint64_t end = v[1];
	for (size_t i = 8; i < TXG_FIELDS; i++) {
		if (end > UINT64_MAX - v[i])
			return false;
		end += v[i];
	}
	t->synced = end;
	return true;
}

int nas_parse_txgs(const char *text, size_t len, nas_txgs *out, vs_error *err)
{
	*out = (nas_txgs){0};
	int rc = nas_text_check(text, len, "the txgs", err);
	nas_lines lines = nas_lines_of(text, len);
	nas_span line, f[TXG_FIELDS + 1];
	if (rc == VS_OK && nas_next_line(&lines, &line)) {
		bool ok = nas_fields(line, ' ', f, TXG_FIELDS + 1) == TXG_FIELDS;
		for (size_t i = 0; ok && i < TXG_FIELDS; i++)
			ok = nas_span_is(f[i], titles[i]);
		if (!ok)
			rc = vs_fail(err, VS_ERR_PROTOCOL, "the txgs' titles are not OpenZFS's: '%.*s'",
			             (int)(line.n > 80 ? 80 : line.n), line.s);
	}
	while (rc == VS_OK && nas_next_line(&lines, &line)) {
		nas_txg t;
		if (line.n == 0)
			continue;
		if (!txg_line(line, &t)) {
			rc = vs_fail(err, VS_ERR_PROTOCOL, "line %zu of the txgs is not a txg's: '%.*s'",
			             lines.number, (int)(line.n > 80 ? 80 : line.n), line.s);
			break;
		}
		nas_txg *v = realloc(out->v, (out->n + 1) * sizeof(*v));
		if (!v) {
			rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
			break;
		}
		out->v = v;
		out->v[out->n++] = t;
	}
	if (rc == VS_OK)
		out->found = true;
	else
		nas_txgs_free(out);
	return rc;
}

/* The txgs not known, and why. */
static void unknown(nas_window *w, const char *why)
{
	w->txgs = false;
	w->txg_count = 0;
	w->txg_sync_mean_ns = w->txg_sync_max_ns = w->txg_dirty_mean = -1;
	snprintf(w->txgs_why, sizeof(w->txgs_why), "%s", why);
}

void nas_txgs_select(nas_window *w, double from, double to)
{
	const nas_readings *r = &w->readings;
	const nas_reading *first = r->n > 1 ? &r->v[0] : NULL, *last = first ? &r->v[r->n - 1] : NULL;
	if (!first || !first->txgs.found || !last->txgs.found) {
		unknown(w, r->txgs_why[0] ? r->txgs_why : "the pool's txgs were not read before and after the run");
		return;
	}
	if (!first->txgs.n || !last->txgs.n || !last->c.snaptime) {
		unknown(w, "the pool keeps no txg history (zfs_txg_history is 0)");
		return;
	}
	/* The history must still hold the newest txg of the first reading:
	 * else txgs of the run fell out of its ring. */
	uint64_t then = 0, oldest = UINT64_MAX;
	for (size_t i = 0; i < first->txgs.n; i++)
		then = first->txgs.v[i].txg > then ? first->txgs.v[i].txg : then;
	for (size_t i = 0; i < last->txgs.n; i++)
		oldest = last->txgs.v[i].txg < oldest ? last->txgs.v[i].txg : oldest;
	if (oldest > then) {
		char why[200];
		snprintf(why, sizeof(why), "the pool's txg history kept %zu txgs, fewer than the run "
		         "committed (raise zfs_txg_history)", last->txgs.n);
		unknown(w, why);
		return;
	}
	double sum = 0, max = 0, dirty = 0;
	uint64_t n = 0;
	for (size_t i = 0; i < last->txgs.n; i++) {
		const nas_txg *t = &last->txgs.v[i];
		/* gethrtime() to the NAS's clock: the reading's date came right
		 * after its kstats' snaptime */
		double at = last->at - ((double)last->c.snaptime - (double)t->synced) / 1e9;
		if (!t->synced || at <= from || at > to)
			continue;
		n++;
		sum += (double)t->stime;
		max = (double)t->stime > max ? (double)t->stime : max;
		dirty += (double)t->ndirty;
	}
	w->txgs = true;
	w->txg_count = n;
	w->txg_sync_mean_ns = n ? sum / (double)n : -1;
	w->txg_sync_max_ns = n ? max : -1;
	w->txg_dirty_mean = n ? dirty / (double)n : -1;
	w->txgs_why[0] = '\0';
}
