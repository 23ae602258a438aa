/* libFuzzer target for fio's interval logs (agent/fio_logs.c) and the
 * group's window cut from them (agent/group_window.c).  Besides "does not
 * crash" it checks what the window relies on: a parsed log is non-empty,
 * its directions are 0 to 2 and its times never go back within one; a
 * refusal says why; and a histogram log that parses cuts into figures whose
 * bins rise and whose percentiles rise with p. */
#include <stdint.h>
#include <stdlib.h>

#include "analysis/group_window.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_rate_log(const char *text, size_t len)
{
	na_fio_log log;
	vs_error err = {0};
	int64_t last[NA_FIO_DIRS] = {0, 0, 0};
	if (na_fio_log_parse(text, len, &log, &err) != VS_OK) {
		if (!err.message[0])
			abort();
	} else {
		if (!log.n || log.n > NA_FIO_LOG_MAX_SAMPLES)
			abort();
		for (size_t i = 0; i < log.n; i++) {
			const na_fio_sample *s = &log.s[i];
			if (s->dir < 0 || s->dir >= NA_FIO_DIRS || s->t_ms < last[s->dir] || s->t_ms > NA_FIO_LOG_MAX_MS)
				abort();
			last[s->dir] = s->t_ms;
		}
	}
	na_fio_log_clear(&log);
	if (log.s || log.n)
		abort();
}

static void check_dir(const na_fio_dir *d)
{
	const double p[] = {d->p50_us, d->p95_us, d->p99_us, d->p999_us};
	if (!d->present && (d->total_ios || d->n_bins))
		abort();
	for (size_t i = 0; i < d->n_bins; i++)
		if (d->bin_count[i] <= 0 || (i && d->bin_ns[i] <= d->bin_ns[i - 1]))
			abort();
	for (size_t i = 1; i < 4; i++)
		if (d->n_bins && p[i] < p[i - 1])
			abort();
}

/* One member whose bandwidth log is the histogram's line totals. */
static void check_window(const na_fio_hist_log *h)
{
	na_fio_log rates = {malloc(h->n * sizeof(na_fio_sample)), h->n};
	if (!rates.s)
		return;
	for (size_t i = 0; i < h->n; i++) {
		int64_t sum = 0;
		for (size_t b = 0; b < h->n_bins; b++)
			sum += h->counts[i * h->n_bins + b];
		rates.s[i] = (na_fio_sample){h->t_ms[i], sum, h->dir[i]};
	}
	na_gw_member m = {.start_ms = h->t_ms[0] - 1000, .interval_ms = 1000, .bw = &rates, .hist = h};
	na_gw_result r;
	vs_error err = {0};
	if (na_gw_compute(&m, 1, &r, &err) != VS_OK && !err.message[0])
		abort();
	for (size_t d = 0; d < NA_FIO_DIRS && r.n; d++)
		check_dir(&r.member[0][d]);
	na_gw_result_clear(&r);
	free(rates.s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	check_rate_log(text, size);
	na_fio_hist_log h;
	vs_error err = {0};
	if (na_fio_hist_parse(text, size, &h, &err) == VS_OK) {
		if (!h.n || h.n_bins != (size_t)(NA_FIO_PLAT_NR >> h.coarseness))
			abort();
		check_window(&h);
	} else if (!err.message[0]) {
		abort();
	}
	na_fio_hist_clear(&h);
	return 0;
}
