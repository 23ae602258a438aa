/* What pushing to a central database costs against recording (issue 25):
 * N results recorded through the store into SQLite (na_store_add, one
 * transaction each, as bench records them), then the same N pushed to a
 * central PostgreSQL database (na_store_push, one transaction each), both
 * timed in this one run.  Prints the two times and their ratio; nothing
 * passes or fails.  Usage: push_cost DB URL [N] */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "store/store.h"

static double now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int fail(const vs_error *err)
{
	fprintf(stderr, "push_cost: %s: %s\n", err->context, err->message);
	return 1;
}

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: push_cost DB URL [N]\n");
		return 2;
	}
	long n = argc > 3 ? strtol(argv[3], NULL, 10) : 10000;
	static const na_label labels[] = {{"recordsize", "16K"}, {"slog", "yes"}};
	na_store *s = NULL;
	na_central *c = NULL;
	vs_error err = {0};
	if (na_store_open(argv[1], &s, &err) != VS_OK)
		return fail(&err);
	double t0 = now();
	for (long i = 0; i < n; i++) {
		/* a result as bench records one, its fio JSON left out: a push
		 * sends what the store holds, whatever its size */
		na_result r = {
			.started_at = "2026-12-05T10:00:00Z", .finished_at = "2026-12-05T10:01:00Z",
			.status = "ok", .repetition = (int)(i % 5) + 1, .vcenter = "vc.lab.example",
			.host = "esx01", .esxi_version = "8.0.3", .esxi_build = "24022510",
			.datastore = "tank-16k", .datastore_type = "NFS", .servers = "10.0.0.5",
			.export_path = "/mnt/tank/vm16k", .vm = "fiotest", .profile = "randwrite-4k-qd1",
			.fio_version = "fio-3.33",
			.write = {true, 37400 + i, 153e6, 3400, 2900, 4100, 5900, 7200, 31000, 2244000, 60000},
			.labels = labels, .n_labels = 2,
		};
		if (na_store_add(s, &r, &err) != VS_OK)
			return fail(&err);
	}
	double recorded = now() - t0;
	na_push_counts counts = {0};
	t0 = now();
	if (na_central_open(argv[2], &c, &err) != VS_OK || na_store_push(s, c, &counts, &err) != VS_OK)
		return fail(&err);
	double pushed = now() - t0;
	printf("%ld results: recorded in SQLite in %.2f s (%.2f ms each), pushed in %.2f s "
	       "(%.2f ms each, %zu sent): a push costs %.1fx a local record\n",
	       n, recorded, 1e3 * recorded / (double)n, pushed, 1e3 * pushed / (double)n, counts.sent,
	       pushed / recorded);
	na_central_close(&c);
	na_store_close(&s);
	return 0;
}
