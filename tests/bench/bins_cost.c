/* The latency bins' cost (issue 24): "make FILE N JSON" records N ok
 * results of fio output JSON (repetitions 1 and 2 alternating) in a file
 * held at schema 13, before result_bins; "upgrade FILE" opens it as
 * nfsagent does, running step 14 (which fills result_bins), and prints the
 * time that took.  bins_cost.sh drives it; nothing passes or fails. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
	fprintf(stderr, "bins_cost: %s: %s\n", err->context, err->message);
	return 1;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *text = f ? calloc(1, 1 << 20) : NULL;
	if (text && fread(text, 1, (1 << 20) - 1, f) == 0)
		text[0] = '\0';
	if (f)
		fclose(f);
	return text;
}

/* N results of the output json, its figures as bench records them. */
static int make(const char *path, long n, const char *json)
{
	vs_error err = {0};
	na_fio_result f;
	na_store *s = NULL;
	if (na_fio_parse(json, strlen(json), &f, &err) != VS_OK ||
	    na_store_open_version(path, 13, &s, &err) != VS_OK)
		return fail(&err);
	const na_fio_dir *w = &f.write;
	for (long i = 0; i < n; i++) {
		na_result r = {.started_at = "2026-12-05T10:00:00Z", .status = "ok", .profile = "p",
		               .datastore_type = "NFS41", .repetition = 1 + (int)(i % 2), .fio_json = json,
		               .write = {w->present, w->iops * (1 + 0.01 * (double)(i % 7)), w->bw_bytes,
		                         w->lat_mean_us, w->p50_us, w->p95_us, w->p99_us, w->p999_us,
		                         w->max_us, w->total_ios, w->runtime_ms}};
		if (na_store_add(s, &r, &err) != VS_OK)
			return fail(&err);
	}
	na_store_close(&s);
	na_fio_result_clear(&f);
	return 0;
}

int main(int argc, char **argv)
{
	vs_error err = {0};
	na_store *s = NULL;
	if (argc == 5 && !strcmp(argv[1], "make")) {
		char *json = slurp(argv[4]);
		int rc = json ? make(argv[2], strtol(argv[3], NULL, 10), json) : 1;
		free(json);
		return rc;
	}
	if (argc != 3 || strcmp(argv[1], "upgrade") != 0) {
		fprintf(stderr, "usage: bins_cost make FILE N JSON | bins_cost upgrade FILE\n");
		return 2;
	}
	double t0 = now();
	if (na_store_open(argv[2], &s, &err) != VS_OK)
		return fail(&err);
	printf("upgrade to schema %d: %.2f s\n", na_store_schema_version(), now() - t0);
	na_store_close(&s);
	return 0;
}
