/* The NAS line: one run as the pool saw it, in words (nas_line.h). */
#include <stdio.h>
#include <string.h>

#include "analysis/nas_line.h"
#include "output.h"

uint64_t na_guest_written(const na_fio_dir *write)
{
	return write && write->present ? (uint64_t)(write->bw_bytes * (double)write->runtime_ms / 1000)
	                               : 0;
}


double na_share_under(const na_fio_dir *d, double floor_us)
{
	int64_t total = 0, under = 0;
	for (size_t i = 0; i < d->n_bins; i++) {
		total += d->bin_count[i];
		if ((double)d->bin_ns[i] < floor_us * 1000)
			under += d->bin_count[i];
	}
	return total ? (double)under / (double)total : -1;
}

const char *na_cache_flag(const na_fio_dir *read, char *buf, size_t size)
{
	double under = read->present ? na_share_under(read, NA_CACHE_FLOOR_US) : -1;
	if (under >= NA_CACHE_SHARE)
		snprintf(buf, size, "  [cache-served: %.0f%% under %.0f us]", under * 100, NA_CACHE_FLOOR_US);
	else if (size)
		buf[0] = '\0';
	return buf;
}

/* Decimal rates, as disks and networks are sold: "3.5 GB/s", "138 MB/s". */
static const char *rate(double bps, char *buf, size_t size)
{
	if (bps >= 1e9)
		snprintf(buf, size, "%.1f GB/s", bps / 1e9);
	else if (bps >= 1e6)
		snprintf(buf, size, "%.0f MB/s", bps / 1e6);
	else if (bps >= 1e3)
		snprintf(buf, size, "%.0f kB/s", bps / 1e3);
	else
		snprintf(buf, size, "%.0f B/s", bps);
	return buf;
}

/* A ratio as the NAS line says it: "9.0x", "33x" (buf: 16 bytes). */
static const char *times(double x, char *buf)
{
	snprintf(buf, 16, "%.*fx", x < 10 ? 1 : 0, x);
	return buf;
}

/* What the NAS line says of the pool: what its data vdevs are ("mirrors",
 * "disks", "raidz2 vdevs", "mixed: mirror, raidz1, disk") and which of
 * the classes it shows apart it has. */
typedef struct pool_words {
	char data[96];
	bool special, log;
} pool_words;

/* From the data vdevs' words ("2 mirror", "mixed: mirror, disk", with
 * " (1 removed)" dropped): a lone type in the plural. */
static void data_word(const char *words, pool_words *p)
{
	size_t n = strcspn(words, "(");
	while (n > 0 && words[n - 1] == ' ')
		n--;
	char type[64] = "";
	if (strncmp(words, "mixed: ", 7) == 0)
		snprintf(p->data, sizeof(p->data), "%.*s", (int)n, words);
	else if (sscanf(words, "%*s %63s", type) == 1 && (!strcmp(type, "mirror") || !strcmp(type, "disk")))
		snprintf(p->data, sizeof(p->data), "%ss", type);
	else
		snprintf(p->data, sizeof(p->data), "%s vdevs", type[0] ? type : "data");
}

static void pool_words_of_layout(const nas_layout *l, pool_words *p)
{
	char words[96];
	nas_layout_data_words(l, words, sizeof(words));
	data_word(words, p);
	p->special = nas_layout_count(l, NAS_CLASS_SPECIAL) > 0;
	p->log = nas_layout_count(l, NAS_CLASS_LOG) > 0;
}

/* From a stored layout ("2 raidz2 + special mirror + 2 log + cache"): the
 * words before the first " + ", then a class per " + ", its count first
 * when more than one. */
static void pool_words_of_row(const char *layout, pool_words *p)
{
	const char *plus = strstr(layout, " + ");
	char words[96];
	snprintf(words, sizeof(words), "%.*s", (int)(plus ? (size_t)(plus - layout) : strlen(layout)),
	         layout);
	data_word(words, p);
	for (; plus; plus = strstr(plus + 3, " + ")) {
		const char *c = plus + 3 + strspn(plus + 3, "0123456789 ");
		p->special |= strncmp(c, "special", 7) == 0;
		p->log |= strncmp(c, "log", 3) == 0;
	}
}

/* A time as the NAS line says it: "0.095 ms", "812 ms", "1.2 s" (buf: 24 bytes). */
static const char *duration(double ns, char *buf)
{
	if (ns >= 1e9)
		snprintf(buf, 24, "%.1f s", ns / 1e9);
	else if (ns >= 10e6)
		snprintf(buf, 24, "%.0f ms", ns / 1e6);
	else
		snprintf(buf, 24, "%.3f ms", ns / 1e6);
	return buf;
}

/* What a VM datastore's admin watches beside the rates: the log device's
 * write wait (sync writes wait for it) and the ZIL's commits and where its
 * bytes went, of a run that wrote (a read run's are others' writes), and
 * the txgs that synced in the window (long syncs: the pool does not absorb
 * the dirty data).  Each only when measured. */
static void zfs_words(const nas_window *w, const pool_words *pw, bool wrote, double secs,
                      char *buf, size_t size)
{
	const nas_io *log = &w->total[NAS_CLASS_LOG];
	char a[24], b[24], c[24];
	size_t n = strlen(buf);
	if (wrote && pw->log && log->write_ops && log->write_wait_ns && n < size) {
		n += (size_t)snprintf(buf + n, size - n, "; log write wait %s",
		                      duration((double)log->write_wait_ns, a));
		if (log->sync_write_wait_ns && n < size)
			n += (size_t)snprintf(buf + n, size - n, " (sync queue %s)",
			                      duration((double)log->sync_write_wait_ns, b));
	}
	if (wrote && w->counters && w->zil_commits && secs > 0 && n < size)
		n += (size_t)snprintf(buf + n, size - n, "; ZIL %.0f commits/s, %s to the SLOG, %s to the pool",
		                      (double)w->zil_commits / secs, rate((double)w->zil_slog_bytes / secs, a, sizeof(a)),
		                      rate((double)w->zil_normal_bytes / secs, b, sizeof(b)));
	if (w->txgs && w->txg_count && n < size)
		snprintf(buf + n, size - n, "; %llu txg%s synced in %s mean (%s max), %s dirty on average",
		         (unsigned long long)w->txg_count, w->txg_count == 1 ? "" : "s",
		         duration(w->txg_sync_mean_ns, a),
		         duration(w->txg_sync_max_ns, b), na_size((int64_t)w->txg_dirty_mean, c, sizeof(c)));
	else if (w->txgs && n < size)
		snprintf(buf + n, size - n, "; no txg synced in the window");
}

/* The seconds the window's totals are over: fio's window once placed
 * (none when no interval measured it), else the whole timeline. */
static double window_seconds(const nas_window *w)
{
	return w->fio_window ? (w->seconds > 0 ? w->span : 0)
	                     : (double)w->timeline.n * (w->interval_s > 0 ? w->interval_s : 1);
}

static void nas_line_body(const nas_window *w, const pool_words *pw, const na_fio_dir *read,
                          const na_fio_dir *write, uint64_t working_set, char *buf, size_t size)
{
	double secs = window_seconds(w);
	if (w->incomplete || secs <= 0) {
		snprintf(buf, size, "figures incomplete: %s",
		         w->incomplete       ? w->why
		         : w->fio_window ? "no zpool iostat interval in fio's window"
		                         : "no whole zpool iostat interval in the run");
		return;
	}
	const nas_io *t = w->total;
	double data_w = (double)(t[NAS_CLASS_DATA].write_bytes + t[NAS_CLASS_DEDUP].write_bytes);
	double data_r = (double)(t[NAS_CLASS_DATA].read_bytes + t[NAS_CLASS_DEDUP].read_bytes +
	                         t[NAS_CLASS_SPECIAL].read_bytes);
	char a[24], s[24], lg[24], g[24], r[24];
	const char *word = pw->data;
	int n;
	if (write && write->present) {
		n = snprintf(buf, size, "pool wrote %s (%s)", rate(data_w / secs, a, sizeof(a)), word);
		if (pw->special && n >= 0 && (size_t)n < size)
			n += snprintf(buf + n, size - (size_t)n, " + %s (special)",
			              rate((double)t[NAS_CLASS_SPECIAL].write_bytes / secs, s, sizeof(s)));
		if (pw->log && n >= 0 && (size_t)n < size)
			n += snprintf(buf + n, size - (size_t)n, " + %s (log)",
			              rate((double)t[NAS_CLASS_LOG].write_bytes / secs, lg, sizeof(lg)));
		nas_amplification a_of;
		nas_amplification_of(w, na_guest_written(write), &a_of);
		char x[4][16];
		if (n >= 0 && (size_t)n < size && a_of.known)
			n += snprintf(buf + n, size - (size_t)n,
			              " for %s from the guest: %s (dataset %s, data vdevs %s, log %s)",
			              rate(write->bw_bytes, g, sizeof(g)), times(a_of.total, x[0]),
			              times(a_of.guest_to_dataset, x[1]), times(a_of.dataset_to_data, x[2]),
			              times(a_of.log_share, x[3]));
		else if (n >= 0 && (size_t)n < size)
			n += snprintf(buf + n, size - (size_t)n, " for %s from the guest",
			              rate(write->bw_bytes, g, sizeof(g)));
		if ((!read || !read->present) && data_r > 0 && n >= 0 && (size_t)n < size)
			snprintf(buf + n, size - (size_t)n, "; pool read %s (read-modify-write)",
			         rate(data_r / secs, r, sizeof(r)));
		zfs_words(w, pw, true, secs, buf, size);
		return;
	}
	n = snprintf(buf, size, "pool read %s (%s) for %s from the guest", rate(data_r / secs, a, sizeof(a)),
	             word, rate(read && read->present ? read->bw_bytes : 0, g, sizeof(g)));
	if (w->arc_hit_ratio >= 0 && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, ", ARC demand hits %.0f%%", w->arc_hit_ratio * 100);
	zfs_words(w, pw, false, secs, buf, size);
	n = (int)strlen(buf);
	char ws[32], arc[32];
	if (nas_cache_served(w, working_set, NA_ARC_SERVED) && n >= 0 && (size_t)n < size)
		snprintf(buf + n, size - (size_t)n, " [cache-served: %s fits in the ARC's %s]",
		         na_size((int64_t)working_set, ws, sizeof(ws)),
		         na_size((int64_t)w->arc_size, arc, sizeof(arc)));
}

/* nas_line_body and what follows it. */
static void nas_line(const nas_window *w, const pool_words *pw, const na_fio_dir *read,
                     const na_fio_dir *write, uint64_t working_set, char *buf, size_t size)
{
	nas_line_body(w, pw, read, write, working_set, buf, size);
	size_t n = strlen(buf);
	/* Totals taken up from part of fio's window: said, with how much. */
	if (!w->incomplete && w->fio_window && w->seconds > 0 && w->seconds < 0.95 * w->span &&
	    n < size)
		n += (size_t)snprintf(buf + n, size - n, " [pool measured %.1f s of fio's %.1f s]",
		                      w->seconds, w->span);
	/* The counters dropped by the window's cut: no ARC share, no split. */
	if (!w->incomplete && w->fio_window && !w->counters && n < size)
		snprintf(buf + n, size - n, " [no kstats around fio's window: %s]",
		         w->counters_why[0] ? w->counters_why : "not read");
}

void na_nas_line(const nas_window *w, const nas_layout *l, const na_fio_dir *read,
                       const na_fio_dir *write, uint64_t working_set, char *buf, size_t size)
{
	pool_words pw = {0};
	pool_words_of_layout(l, &pw);
	nas_line(w, &pw, read, write, working_set, buf, size);
}

static na_fio_dir fio_dir_of(const na_dir_stats *d)
{
	return (na_fio_dir){.present = d->present, .bw_bytes = d->bw_bytes, .runtime_ms = d->runtime_ms};
}

void na_nas_row_line(const na_result *r, const na_nas_run *n, uint64_t working_set,
                           char *buf, size_t size)
{
	/* The stored totals are over fio's window: the seconds the pool
	 * measured of it as stored (schema 8), else its longest direction's
	 * runtime, taken as wholly measured. */
	int64_t ms = r->read.runtime_ms > r->write.runtime_ms ? r->read.runtime_ms : r->write.runtime_ms;
	bool stored = n->measured_s >= 0 && n->window_s > 0;
	nas_window w = {.fio_window = true, .seconds = stored ? n->measured_s : (double)ms / 1000,
	                .span = stored ? n->window_s : (double)ms / 1000,
	                .counters = n->counters_known, .incomplete = n->incomplete,
	                .dataset_written = (uint64_t)n->dataset_written,
	                .arc_hit_ratio = n->counters_known ? n->arc_hit_ratio : -1,
	                .arc_size = (uint64_t)n->arc_size, .zil_commits = (uint64_t)n->zil_commits,
	                .zil_slog_bytes = (uint64_t)n->zil_slog_bytes,
	                .zil_normal_bytes = (uint64_t)n->zil_normal_bytes, .txgs = n->txgs_known,
	                .txg_count = (uint64_t)n->txg_count, .txg_sync_mean_ns = n->txg_sync_mean_ms * 1e6,
	                .txg_sync_max_ns = n->txg_sync_max_ms * 1e6,
	                .txg_dirty_mean = n->txg_dirty_mean_bytes};
	snprintf(w.why, sizeof(w.why), "%s", n->why ? n->why : "");
	if (!n->pool_known)
		w.seconds = 0;
	nas_io *t = w.total;
#define CLASS_OF(c, k) t[k].read_bytes = (uint64_t)n->c##_read_bytes, \
	                   t[k].write_bytes = (uint64_t)n->c##_write_bytes
	CLASS_OF(data, NAS_CLASS_DATA);
	CLASS_OF(special, NAS_CLASS_SPECIAL);
	CLASS_OF(dedup, NAS_CLASS_DEDUP);
	CLASS_OF(log, NAS_CLASS_LOG);
#undef CLASS_OF
	/* the log's waits as stored (NULL: none, as a '-' is 0) */
	t[NAS_CLASS_LOG].write_ops = (uint64_t)n->log_write_ops;
	t[NAS_CLASS_LOG].write_wait_ns = n->log_write_wait_ms > 0 ? (uint64_t)(n->log_write_wait_ms * 1e6) : 0;
	t[NAS_CLASS_LOG].sync_write_wait_ns =
		n->log_sync_write_wait_ms > 0 ? (uint64_t)(n->log_sync_write_wait_ms * 1e6) : 0;
	pool_words pw = {0};
	pool_words_of_row(n->pool_layout ? n->pool_layout : "", &pw);
	na_fio_dir rd = fio_dir_of(&r->read), wr = fio_dir_of(&r->write);
	nas_line(&w, &pw, &rd, &wr, working_set, buf, size);
	/* A pool not healthy: its figures are not the healthy pool's. */
	size_t used = strlen(buf);
	if (n->pool_health && strcmp(n->pool_health, "ONLINE") != 0 && used < size)
		snprintf(buf + used, size - used, " [pool %s]", n->pool_health);
}
