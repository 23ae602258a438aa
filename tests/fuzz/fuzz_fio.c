/* libFuzzer target for fio's JSON output parser.  Besides "does not crash" it
 * checks what the benchmark tables rely on: a direction with no I/O carries
 * nothing, bins are sorted and counts non-negative, percentiles rise with p,
 * a failed job is named, and merging a direction with itself doubles every
 * bin without moving a percentile (the scale-free property of the method). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fio.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_pcts(const na_fio_dir *d)
{
	const double p[] = {d->p50_us, d->p95_us, d->p99_us, d->p999_us};
	for (size_t i = 0; i < 4; i++) {
		if (p[i] < 0 && p[i] != -1)
			abort();
		if (d->n_bins && i && p[i] >= 0 && p[i - 1] >= 0 && p[i] < p[i - 1])
			abort();
	}
}

static void check_merge(const na_fio_dir *d)
{
	na_fio_dir twice = {.p50_us = -1, .p95_us = -1, .p99_us = -1, .p999_us = -1};
	vs_error err = {0};
	if (na_fio_dir_merge(&twice, d, &err) == VS_OK && na_fio_dir_merge(&twice, d, &err) == VS_OK) {
		if (twice.total_ios != 2 * d->total_ios || twice.n_bins != d->n_bins)
			abort();
		for (size_t i = 0; i < d->n_bins; i++)
			if (twice.bin_ns[i] != d->bin_ns[i] || twice.bin_count[i] != 2 * d->bin_count[i])
				abort();
		if (d->n_bins && (twice.p50_us != d->p50_us || twice.p999_us != d->p999_us))
			abort();
	} else if (!err.message[0]) {
		abort();
	}
	free(twice.bin_ns);
	free(twice.bin_count);
}

static void check_dir(const na_fio_dir *d)
{
	if (!d->present) {
		if (d->total_ios || d->n_bins || d->bin_ns || d->bin_count)
			abort();
		return;
	}
	if (d->total_ios <= 0 || (d->n_bins && (!d->bin_ns || !d->bin_count)))
		abort();
	for (size_t i = 0; i < d->n_bins; i++)
		if (d->bin_count[i] < 0 || (i && d->bin_ns[i] <= d->bin_ns[i - 1]))
			abort();
	check_pcts(d);
	check_merge(d);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	na_fio_result r;
	vs_error err = {0};
	int rc = na_fio_parse((const char *)data, size, &r, &err);
	if (rc != VS_OK && (!err.message[0] || (rc != VS_ERR_PROTOCOL && rc != VS_ERR_NOMEM)))
		abort();
	if (rc == VS_OK && (r.n_jobs == 0 || r.error))
		abort();
	if (r.error && (rc != VS_ERR_PROTOCOL || !r.error_job || !strstr(err.message, "failed")))
		abort();
	if (rc == VS_OK || r.error) {
		check_dir(&r.read);
		check_dir(&r.write);
		check_dir(&r.mixed_dir);
	}
	na_fio_result_clear(&r);
	if (r.fio_version || r.error_job || r.read.bin_ns || r.n_jobs)
		abort();
	return 0;
}
