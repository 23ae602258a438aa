/* fio's JSON output: golden files written by the real fio 3.33 (Debian), in a
 * temp dir on ext4, libaio + direct I/O unless noted.  C below stands for
 *   --filename=/tmp/fiogen/data.bin --size=16M --bs=4k --ioengine=libaio
 *   --direct=1 --iodepth=8 --runtime=2 --time_based=1
 * randwrite_2jobs_grouped.jsonplus  fio --name=randwrite C --rw=randwrite --numjobs=2
 *                                   --group_reporting=1 --output-format=json+
 * randread_1job.json                fio --name=randread C --rw=randread --output-format=json
 * randwrite_3jobs.jsonplus          fio --name=randwrite C --rw=randwrite --numjobs=3
 *                                   --output-format=json+   (no group_reporting)
 * randrw70.jsonplus                 fio --name=randrw70 C --rw=randrw --rwmixread=70
 *                                   --output-format=json+
 * randrw_mixed.jsonplus             the same with --unified_rw_reporting=mixed
 * status_interval.json              fio --name=status C --rw=randwrite --runtime=3
 *                                   --status-interval=1 --output-format=json: four objects
 * noise_before.json                 fio --name=noisy C --ioengine=psync --rw=randread
 *                                   --runtime=1 --output-format=json 2>&1: fio's "note:
 *                                   both iodepth >= 1 and synchronous..." comes first
 * job_error.json                    a job file, 2>&1: [global] bs=4k ioengine=psync
 *                                   runtime=1 time_based=1 size=1M; [good]
 *                                   rw=randwrite on /tmp; [bad] rw=write on
 *                                   /proc/nfsagent_fio_test: error 2 (ENOENT), and fio's
 *                                   "fio: pid=0, err=2/file:filesetup.c:174..." line first
 * boundary_25ios.jsonplus           fio --name=edge25 --filename=/tmp/fiogen/data.bin --size=16M
 *                                   --bs=4k --ioengine=psync --direct=1 --rw=randread
 *                                   --number_ios=25 --percentile_list=60:99.9
 *                                   --output-format=json+
 * boundary_1000ios.jsonplus         the same with --number_ios=1000 (--name=edge1000)
 * truncated.json                    the first half (3305 bytes) of randread_1job.json
 * empty.json                        nothing
 * Expected numbers come from jq (or python for merged histograms) on the same
 * files; each says how. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "golden.h"
#include <jansson.h>

#include "profiles.h"
#include "fio.h"

static char *load(const char *name, size_t *len)
{
	char path[256];
	snprintf(path, sizeof(path), "fio/%s", name);
	return golden(path, len);
}

static int parse_file(const char *name, na_fio_result *r, vs_error *err)
{
	size_t len;
	char *text = load(name, &len);
	*err = (vs_error){0};
	int rc = na_fio_parse(text, len, r, err);
	free(text);
	return rc;
}

static void parse_ok(const char *name, na_fio_result *r)
{
	vs_error err;
	if (parse_file(name, r, &err) != VS_OK)
		fail_msg("%s: %s", name, err.message);
}

/* The same file as jansson sees it, for fio's own numbers. */
static json_t *load_json(const char *name)
{
	size_t len;
	char *text = load(name, &len);
	char *brace = memchr(text, '{', len);
	assert_non_null(brace);
	json_error_t je;
	json_t *root = json_loadb(brace, len - (size_t)(brace - text), JSON_DISABLE_EOF_CHECK, &je);
	free(text);
	if (!root)
		fail_msg("%s: %s", name, je.text);
	return root;
}

/* root.jobs[i].DIR */
static const json_t *job_dir(const json_t *root, size_t i, const char *dir)
{
	return json_object_get(json_array_get(json_object_get(root, "jobs"), i), dir);
}

#define assert_close(actual, expected, tol) \
	do { \
		double a_ = (actual), e_ = (expected); \
		if (!(a_ - e_ <= (tol) && e_ - a_ <= (tol))) \
			fail_msg("%s = %.9f, expected %.9f", #actual, a_, e_); \
	} while (0)

static void assert_pcts(const na_fio_dir *d, double p50, double p95, double p99, double p999)
{
	assert_true(d->p50_us == p50);
	assert_true(d->p95_us == p95);
	assert_true(d->p99_us == p99);
	assert_true(d->p999_us == p999);
}

/* Every percentile fio printed in clat_ns.percentile (17 by default) must
 * come out of d's bins exactly: same bucket, same value. */
static void assert_bins_match(const na_fio_dir *d, const json_t *dir, size_t expected)
{
	const json_t *pct = json_object_get(json_object_get(dir, "clat_ns"), "percentile");
	const char *key;
	json_t *val;
	size_t n = 0;
	assert_true(d->n_bins > 0);
	json_object_foreach((json_t *)pct, key, val) {
		double p = strtod(key, NULL);
		double ours = na_fio_bins_percentile(d->bin_ns, d->bin_count, d->n_bins, p);
		double fio = (double)json_integer_value(val) / 1000.0;
		if (ours != fio)
			fail_msg("p%s: %.3f us from the bins, fio printed %.3f", key, ours, fio);
		n++;
	}
	assert_int_equal(n, expected);
}

static void assert_bins_match_fio(const na_fio_dir *d, const json_t *dir)
{
	assert_bins_match(d, dir, 17);
}

static int64_t bins_total(const na_fio_dir *d)
{
	int64_t sum = 0;
	for (size_t i = 0; i < d->n_bins; i++)
		sum += d->bin_count[i];
	return sum;
}

static int64_t bin_at(const na_fio_dir *d, int64_t ns)
{
	for (size_t i = 0; i < d->n_bins; i++)
		if (d->bin_ns[i] == ns)
			return d->bin_count[i];
	return 0;
}

static void test_grouped_jsonplus(void **state)
{
	(void)state;
	na_fio_result r;
	parse_ok("randwrite_2jobs_grouped.jsonplus", &r);
	assert_string_equal(r.fio_version, "fio-3.33");
	assert_int_equal(r.n_jobs, 1);  /* group_reporting folds numjobs=2 into one entry */
	assert_false(r.mixed);
	assert_false(r.read.present);
	assert_false(r.mixed_dir.present);
	assert_true(r.write.present);
	/* jq '.jobs[0].write | .iops, .bw_bytes, .total_ios, .runtime, .clat_ns.mean, .clat_ns.max' */
	assert_close(r.write.iops, 90716.141929, 1e-6);
	assert_close(r.write.bw_bytes, 371573317, 0);
	assert_int_equal(r.write.total_ios, 181523);
	assert_int_equal(r.write.runtime_ms, 2001);
	assert_close(r.write.lat_mean_us, 168.191130116, 1e-9);
	assert_close(r.write.max_us, 6057.319, 1e-9);
	/* jq '.jobs[0].write.clat_ns.bins | length, add' */
	assert_int_equal(r.write.n_bins, 529);
	assert_int_equal(bins_total(&r.write), 181523);
	/* jq '.jobs[0].write.clat_ns.percentile' 50/95/99/99.9, in ns */
	assert_pcts(&r.write, 138.240, 257.024, 864.256, 4079.616);
	json_t *root = load_json("randwrite_2jobs_grouped.jsonplus");
	assert_bins_match_fio(&r.write, job_dir(root, 0, "write"));
	json_decref(root);
	na_fio_result_clear(&r);
}

static void test_plain_json_uses_fio_percentiles(void **state)
{
	(void)state;
	na_fio_result r;
	parse_ok("randread_1job.json", &r);
	assert_int_equal(r.n_jobs, 1);
	assert_false(r.write.present);
	assert_true(r.read.present);
	/* jq '.jobs[0].read | .iops, .bw_bytes, .total_ios, .clat_ns.mean, .clat_ns.max' */
	assert_close(r.read.iops, 58748.125937, 1e-6);
	assert_close(r.read.bw_bytes, 240632323, 0);
	assert_int_equal(r.read.total_ios, 117555);
	assert_close(r.read.lat_mean_us, 130.153062218, 1e-9);
	assert_close(r.read.max_us, 4733.195, 1e-9);
	assert_int_equal(r.read.n_bins, 0);  /* plain json has no bins */
	/* jq '.jobs[0].read.clat_ns.percentile' */
	assert_pcts(&r.read, 120.320, 160.768, 205.824, 2637.824);
	na_fio_result_clear(&r);
}

/* Plain json, two jobs: fio's percentiles cannot be combined.  The input is
 * randread_1job.json with its job entry duplicated in memory (a hand edit). */
static void test_plain_json_several_jobs_unknown(void **state)
{
	(void)state;
	json_t *root = load_json("randread_1job.json");
	json_t *jobs = json_object_get(root, "jobs");
	json_array_append_new(jobs, json_deep_copy(json_array_get(jobs, 0)));
	char *text = json_dumps(root, 0);
	na_fio_result r;
	vs_error err = {0};
	assert_int_equal(na_fio_parse(text, strlen(text), &r, &err), VS_OK);
	assert_int_equal(r.n_jobs, 2);
	assert_close(r.read.iops, 2 * 58748.125937, 1e-6);
	assert_int_equal(r.read.total_ios, 2 * 117555);
	assert_close(r.read.lat_mean_us, 130.153062218, 1e-9);
	assert_pcts(&r.read, -1, -1, -1, -1);
	na_fio_result_clear(&r);
	free(text);
	json_decref(root);
}

/* Parses job i of root alone, so that its own bins can be checked. */
static void parse_job_alone(const json_t *root, size_t i, na_fio_result *r)
{
	json_t *one = json_pack("{s:[O]}", "jobs", json_array_get(json_object_get(root, "jobs"), i));
	char *text = json_dumps(one, 0);
	vs_error err = {0};
	assert_int_equal(na_fio_parse(text, strlen(text), r, &err), VS_OK);
	free(text);
	json_decref(one);
}

static void test_three_jobs_merged(void **state)
{
	(void)state;
	na_fio_result r;
	parse_ok("randwrite_3jobs.jsonplus", &r);
	assert_int_equal(r.n_jobs, 3);  /* three entries, all named "randwrite" */
	/* jq '[.jobs[].write.iops] | add' and the same for bw_bytes, total_ios */
	assert_close(r.write.iops, 125129.435283, 1e-6);
	assert_close(r.write.bw_bytes, 512530165, 0);
	assert_int_equal(r.write.total_ios, 250384);
	/* jq '([.jobs[].write | .clat_ns.mean * .total_ios] | add) / 250384 / 1000' */
	assert_close(r.write.lat_mean_us, 184.269338284, 1e-8);
	/* jq '[.jobs[].write.clat_ns.max] | max' */
	assert_close(r.write.max_us, 5128.886, 1e-9);
	/* Hand calculation (jq and python with exact fractions agree): the three
	 * jobs' bins summed by value give 468 buckets, 250384 I/Os; the first
	 * bucket whose running sum reaches p% of that.  Averaging the jobs' own
	 * p99s (366592, 366592, 395264 ns) would have said 376.149 us. */
	assert_int_equal(r.write.n_bins, 468);
	assert_int_equal(bins_total(&r.write), 250384);
	assert_pcts(&r.write, 175.104, 276.480, 374.784, 905.216);
	/* Each job's bins give back fio's own percentiles for that job. */
	json_t *root = load_json("randwrite_3jobs.jsonplus");
	for (size_t i = 0; i < 3; i++) {
		na_fio_result one;
		parse_job_alone(root, i, &one);
		assert_bins_match_fio(&one.write, job_dir(root, i, "write"));
		na_fio_result_clear(&one);
	}
	json_decref(root);
	na_fio_result_clear(&r);
}

static void test_randrw_both_directions(void **state)
{
	(void)state;
	na_fio_result r;
	parse_ok("randrw70.jsonplus", &r);
	assert_true(r.read.present);
	assert_true(r.write.present);
	assert_false(r.mixed);
	/* jq '.jobs[0].read, .jobs[0].write | .iops, .bw_bytes, .total_ios, .clat_ns.mean' */
	assert_close(r.read.iops, 43691.654173, 1e-6);
	assert_close(r.read.bw_bytes, 178961015, 0);
	assert_int_equal(r.read.total_ios, 87427);
	assert_close(r.read.lat_mean_us, 116.866766205, 1e-9);
	assert_close(r.write.iops, 18673.663168, 1e-6);
	assert_close(r.write.bw_bytes, 76487324, 0);
	assert_int_equal(r.write.total_ios, 37366);
	assert_close(r.write.lat_mean_us, 133.75177335, 1e-9);
	assert_pcts(&r.read, 109.056, 160.768, 203.776, 1028.096);
	assert_pcts(&r.write, 126.464, 185.344, 246.784, 1187.840);
	json_t *root = load_json("randrw70.jsonplus");
	json_t *job = json_array_get(json_object_get(root, "jobs"), 0);
	assert_bins_match_fio(&r.read, json_object_get(job, "read"));
	assert_bins_match_fio(&r.write, json_object_get(job, "write"));
	json_decref(root);
	na_fio_result_clear(&r);
}

static void test_unified_mixed(void **state)
{
	(void)state;
	na_fio_result r;
	parse_ok("randrw_mixed.jsonplus", &r);
	assert_true(r.mixed);
	assert_false(r.read.present);
	assert_false(r.write.present);
	assert_true(r.mixed_dir.present);
	/* jq '.jobs[0].mixed | .iops, .bw_bytes, .total_ios, .clat_ns.mean, .clat_ns.bins|length' */
	assert_close(r.mixed_dir.iops, 54196.901549, 1e-6);
	assert_close(r.mixed_dir.bw_bytes, 221990508, 0);
	assert_int_equal(r.mixed_dir.total_ios, 108448);
	assert_close(r.mixed_dir.lat_mean_us, 140.268419242, 1e-9);
	assert_int_equal(r.mixed_dir.n_bins, 316);
	assert_pcts(&r.mixed_dir, 132.096, 197.632, 284.672, 1155.072);
	json_t *root = load_json("randrw_mixed.jsonplus");
	assert_bins_match_fio(&r.mixed_dir, job_dir(root, 0, "mixed"));
	json_decref(root);
	na_fio_result_clear(&r);
}

static void test_status_interval_takes_last(void **state)
{
	(void)state;
	na_fio_result r;
	parse_ok("status_interval.json", &r);
	/* jq -s 'map(.jobs[0].write.total_ios)' → [63896,168470,264572,275809];
	 * jq -s '.[-1].jobs[0].write | .iops, .bw_bytes, .runtime, .clat_ns.mean' */
	assert_int_equal(r.n_jobs, 1);
	assert_int_equal(r.write.total_ios, 275809);
	assert_int_equal(r.write.runtime_ms, 3001);
	assert_close(r.write.iops, 91905.698101, 1e-6);
	assert_close(r.write.bw_bytes, 376445739, 0);
	assert_close(r.write.lat_mean_us, 79.641696587, 1e-9);
	na_fio_result_clear(&r);
}

static void test_noise_before_json(void **state)
{
	(void)state;
	na_fio_result r;
	parse_ok("noise_before.json", &r);  /* fio's "note: ..." line comes first */
	/* jq '.jobs[0].read | .iops, .total_ios, .clat_ns.percentile["99.000000"]' (after the note) */
	assert_close(r.read.iops, 14886.113886, 1e-6);
	assert_int_equal(r.read.total_ios, 14901);
	assert_close(r.read.p99_us, 132.096, 0);
	na_fio_result_clear(&r);

	/* A hand-written io_u error line in front of randread_1job.json. */
	static const char noise[] = "fio: io_u error on file /tmp/x: Input/output error: "
	                            "write offset=8192, buflen=4096\n";
	size_t len;
	char *json = load("randread_1job.json", &len);
	char *text = malloc(sizeof(noise) - 1 + len);
	assert_non_null(text);
	memcpy(text, noise, sizeof(noise) - 1);
	memcpy(text + sizeof(noise) - 1, json, len);
	vs_error err = {0};
	assert_int_equal(na_fio_parse(text, sizeof(noise) - 1 + len, &r, &err), VS_OK);
	assert_int_equal(r.read.total_ios, 117555);
	na_fio_result_clear(&r);
	free(text);
	free(json);
}

static void test_job_error(void **state)
{
	(void)state;
	na_fio_result r;
	vs_error err;
	assert_int_equal(parse_file("job_error.json", &r, &err), VS_ERR_PROTOCOL);
	assert_non_null(strstr(err.message, "\"bad\""));
	assert_non_null(strstr(err.message, "(2 of 2)"));
	assert_non_null(strstr(err.message, "error 2"));
	/* Still filled, so the failure can be recorded with what did run. */
	assert_int_equal(r.error, 2);
	assert_string_equal(r.error_job, "bad");
	assert_int_equal(r.n_jobs, 2);
	/* jq '.jobs[0].write | .total_ios, .iops' (job "good"; "bad" did no I/O) */
	assert_true(r.write.present);
	assert_int_equal(r.write.total_ios, 281837);
	assert_close(r.write.iops, 281555.444555, 1e-6);
	na_fio_result_clear(&r);
}

static void assert_protocol(const char *text, size_t len, const char *words)
{
	na_fio_result r;
	vs_error err = {0};
	assert_int_equal(na_fio_parse(text, len, &r, &err), VS_ERR_PROTOCOL);
	if (!strstr(err.message, words))
		fail_msg("\"%s\" lacks \"%s\"", err.message, words);
	assert_int_equal(r.n_jobs, 0);
	assert_null(r.fio_version);
	na_fio_result_clear(&r);
}

static void test_truncated_and_empty(void **state)
{
	(void)state;
	size_t len;
	char *text = load("truncated.json", &len);
	assert_protocol(text, len, "truncated");
	free(text);
	text = load("empty.json", &len);
	assert_int_equal(len, 0);
	assert_protocol(text, len, "no JSON object");
	free(text);
	assert_protocol(NULL, 0, "no JSON object");
}

static void test_malformed(void **state)
{
	(void)state;
	static const char *const no_jobs[] = {
		"{\"fio version\" : \"fio-3.33\"}",
		"{\"fio version\" : \"fio-3.33\", \"jobs\" : []}",
		"{\"jobs\" : {}}",
	};
	for (size_t i = 0; i < 3; i++)
		assert_protocol(no_jobs[i], strlen(no_jobs[i]), "no \"jobs\"");
	static const struct {
		const char *text, *words;
	} bad[] = {
		{"fio: engine libaio not loadable\n", "no JSON object"},
		{"{oops}", "not valid JSON"},
		{"{\"jobs\" : [1]}", "job 1 is not"},
		{"{\"jobs\":[{\"write\":{\"total_ios\":1,\"clat_ns\":{\"bins\":{\"x\":1}}}}]}",
		 "latency bin \"x\""},
		{"{\"jobs\":[{\"read\":{\"total_ios\":1,\"clat_ns\":{\"bins\":{\"5\":-1}}}}]}",
		 "latency bin \"5\""},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_protocol(bad[i].text, strlen(bad[i].text), bad[i].words);

	/* A complete report followed by a cut one: the run did not finish. */
	size_t len, cut;
	char *full = load("randread_1job.json", &len);
	char *half = load("truncated.json", &cut);
	char *text = malloc(len + cut);
	assert_non_null(text);
	memcpy(text, full, len);
	memcpy(text + len, half, cut);
	assert_protocol(text, len + cut, "interim");
	free(text);
	free(half);
	free(full);
}

/* Hand-written: keys naming the same bucket are one bucket; with clat off
 * (disable_clat, N = 0) lat_ns stands in; a direction without I/O is absent. */
static void test_inline_edge_cases(void **state)
{
	(void)state;
	static const char text[] =
		"{\"jobs\":[{\"jobname\":\"j\",\"error\":0,"
		"\"read\":{\"total_ios\":3,\"iops\":3,\"bw\":12,"
		"\"clat_ns\":{\"N\":3,\"mean\":1500,\"bins\":{\"1000\":1,\"01000\":2}}},"
		"\"write\":{\"total_ios\":4,\"clat_ns\":{\"N\":0,\"mean\":0},"
		"\"lat_ns\":{\"N\":4,\"mean\":2500,\"max\":9000}},"
		"\"trim\":{\"total_ios\":0}}]}";
	na_fio_result r;
	vs_error err = {0};
	assert_int_equal(na_fio_parse(text, sizeof(text) - 1, &r, &err), VS_OK);
	assert_null(r.fio_version);
	assert_int_equal(r.read.n_bins, 1);
	assert_int_equal(r.read.bin_count[0], 3);
	assert_pcts(&r.read, 1.0, 1.0, 1.0, 1.0);
	assert_close(r.read.bw_bytes, 12 * 1024, 0);  /* no bw_bytes: bw KiB/s */
	assert_close(r.write.lat_mean_us, 2.5, 0);
	assert_close(r.write.max_us, 9.0, 0);
	assert_false(r.mixed_dir.present);
	na_fio_result_clear(&r);
}

static void test_merge_two_runs(void **state)
{
	(void)state;
	na_fio_result a, b;
	parse_ok("randwrite_2jobs_grouped.jsonplus", &a);
	parse_ok("randwrite_3jobs.jsonplus", &b);
	na_fio_dir m = {.p50_us = -1, .p95_us = -1, .p99_us = -1, .p999_us = -1};
	vs_error err = {0};
	assert_int_equal(na_fio_dir_merge(&m, &a.write, &err), VS_OK);
	assert_int_equal(na_fio_dir_merge(&m, &b.write, &err), VS_OK);
	/* Every bucket of the merge holds the two runs' counts added. */
	for (size_t i = 0; i < m.n_bins; i++)
		assert_int_equal(m.bin_count[i], bin_at(&a.write, m.bin_ns[i]) + bin_at(&b.write, m.bin_ns[i]));
	for (size_t i = 1; i < m.n_bins; i++)
		assert_true(m.bin_ns[i] > m.bin_ns[i - 1]);
	/* python over both files: 529 and 468 buckets, 398 shared → 599;
	 * bucket 209920 ns: 381 + 4465; 6062080 ns only in the first run: 7 */
	assert_int_equal(m.n_bins, 599);
	assert_int_equal(bins_total(&m), 431907);
	assert_int_equal(bin_at(&m, 209920), 4846);
	assert_int_equal(bin_at(&m, 6062080), 7);
	assert_int_equal(m.total_ios, 181523 + 250384);
	assert_close(m.iops, 90716.141929 + 125129.435283, 1e-6);
	assert_close(m.lat_mean_us, 177.511947037, 1e-8);  /* IO-weighted over the 4 jobs */
	assert_close(m.max_us, 6057.319, 1e-9);
	assert_pcts(&m, 156.672, 272.384, 436.224, 3457.024);  /* same python walk */
	free(m.bin_ns);
	free(m.bin_count);
	na_fio_result_clear(&a);
	na_fio_result_clear(&b);
}

/* One side without bins: the merged tail is unknown, not a guess. */
static void test_merge_without_bins(void **state)
{
	(void)state;
	int64_t ns[] = {1000}, count[] = {2};
	na_fio_dir a = {.present = true, .iops = 10, .lat_mean_us = 10, .total_ios = 2,
	                .p50_us = 1, .p95_us = 1, .p99_us = 1, .p999_us = 1, .n_bins = 1};
	na_fio_dir b = {.present = true, .iops = 30, .lat_mean_us = 40, .total_ios = 6,
	                .p50_us = 50, .p95_us = 60, .p99_us = 70, .p999_us = 80};
	na_fio_dir m = {.p50_us = -1, .p95_us = -1, .p99_us = -1, .p999_us = -1};
	vs_error err = {0};
	a.bin_ns = ns;
	a.bin_count = count;
	assert_int_equal(na_fio_dir_merge(&m, &a, &err), VS_OK);
	assert_int_equal(m.n_bins, 1);
	assert_true(m.bin_ns != ns);  /* a deep copy */
	assert_true(m.p99_us == 1.0);
	assert_int_equal(na_fio_dir_merge(&m, &b, &err), VS_OK);
	assert_int_equal(m.n_bins, 0);
	assert_null(m.bin_ns);
	assert_pcts(&m, -1, -1, -1, -1);
	assert_close(m.lat_mean_us, (10.0 * 2 + 40.0 * 6) / 8, 1e-12);
	assert_close(m.iops, 40, 0);
	assert_int_equal(m.total_ios, 8);
}

/* Where p% of the total lands exactly on a cumulative count, fio's rounding
 * decides.  25 reads: 13 up to 66048 ns, 15 up to 69120, 16 up to 70144; fio
 * printed p60 = 69120 (p * (25 * 0.01L) is exactly 15), where the formula as
 * written in stat.c would give 70144.  1000 reads: the 999th is in 142336,
 * the 1000th in 199680; fio printed p99.9 = 199680 (99.9 as a double is above
 * 99.9).  Bucket walks by python over the bins. */
static void test_percentile_boundaries(void **state)
{
	(void)state;
	na_fio_result r;
	parse_ok("boundary_25ios.jsonplus", &r);
	assert_int_equal(r.read.total_ios, 25);
	assert_true(na_fio_bins_percentile(r.read.bin_ns, r.read.bin_count, r.read.n_bins, 60) == 69.120);
	json_t *root = load_json("boundary_25ios.jsonplus");
	assert_bins_match(&r.read, job_dir(root, 0, "read"), 2);
	json_decref(root);
	na_fio_result_clear(&r);

	parse_ok("boundary_1000ios.jsonplus", &r);
	assert_int_equal(r.read.total_ios, 1000);
	assert_true(r.read.p999_us == 199.680);
	root = load_json("boundary_1000ios.jsonplus");
	assert_bins_match(&r.read, job_dir(root, 0, "read"), 2);
	json_decref(root);
	na_fio_result_clear(&r);
}

static void test_bins_percentile(void **state)
{
	(void)state;
	const int64_t ns[] = {1000, 2000, 3000, 4000};
	const int64_t count[] = {1, 1, 1, 1};
	assert_true(na_fio_bins_percentile(ns, count, 4, 25) == 1.0);    /* reaches 1 of 4 */
	assert_true(na_fio_bins_percentile(ns, count, 4, 25.01) == 2.0);
	assert_true(na_fio_bins_percentile(ns, count, 4, 50) == 2.0);
	assert_true(na_fio_bins_percentile(ns, count, 4, 99.9) == 4.0);
	assert_true(na_fio_bins_percentile(ns, count, 4, 100) == 4.0);
	assert_true(na_fio_bins_percentile(ns, count, 4, 0) == -1);
	assert_true(na_fio_bins_percentile(ns, count, 4, 100.5) == -1);
	assert_true(na_fio_bins_percentile(ns, count, 0, 50) == -1);
	const int64_t zero[] = {0, 0, 0, 0};
	assert_true(na_fio_bins_percentile(ns, zero, 4, 50) == -1);
}

/* Sizes as fio 3.33 reads them (checked with fio's null engine: io_bytes
 * of --size=X): K/M/G/T/P in either case times 1024, also with 'i' or 'B';
 * only "iB" is a power of 1000.  What fio cuts short without a word (1.5M
 * is 1 byte to it, 0x10k 16, " 16M" 16, 16Mx 16M) is refused. */
static void test_sizes_as_fio_reads_them(void **state)
{
	(void)state;
	static const struct {
		const char *text;
		int64_t bytes;
	} cases[] = {
		{"8192", 8192}, {"8192b", 8192}, {"8192B", 8192}, {"010k", 10240},
		{"2k", 2048}, {"2K", 2048}, {"2kB", 2048}, {"2KB", 2048}, {"2Ki", 2048}, {"2KiB", 2000},
		{"2m", 2097152}, {"2Mi", 2097152}, {"2mb", 2097152}, {"2MiB", 2000000}, {"2mIB", 2000000},
		{"8G", 8589934592LL}, {"8GiB", 8000000000LL}, {"1t", 1099511627776LL},
		{"1P", 1125899906842624LL}, {"8191P", 8191LL << 50},
		{"1.5M", -1}, {"1e3", -1}, {"0x10M", -1}, {" 16M", -1}, {"16M ", -1}, {"16 M", -1},
		{"16Mx", -1}, {"16E", -1}, {"16bb", -1}, {"16i", -1}, {"16ib", -1}, {"-1", -1},
		{"+1", -1}, {"0", -1}, {"0k", -1}, {"", -1}, {"k", -1}, {"8192P", -1},
		{"99999999999999999999", -1}, {"9223372036854775807", INT64_MAX},
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int64_t got = na_parse_size(cases[i].text);
		if (got != cases[i].bytes)
			fail_msg("'%s' is %lld, not %lld", cases[i].text, (long long)got,
			         (long long)cases[i].bytes);
	}
}

/* What "fio --version; echo fio-exit $?; fio --enghelp" wrote in the guest. */
static void test_guest_fio(void **state)
{
	(void)state;
	vs_error err = {0};
	bool libaio = true;
	assert_int_equal(na_fio_guest_check("vm1", "fio-3.33\nfio-exit 0\nAvailable IO engines:\n\tcpuio\n"
	                                    "\tlibaio\n\tpsync\n", &libaio, &err), VS_OK);
	assert_true(libaio);
	assert_int_equal(na_fio_guest_check("vm1", "fio-3.1-12-gabc\nfio-exit 0\nAvailable IO engines:\n"
	                                    "\tlibaio-extra\n\tpsync\n", &libaio, &err), VS_OK);
	assert_false(libaio);
	assert_int_equal(na_fio_guest_check("vm1", "sh: 1: fio: not found\nfio-exit 127\n"
	                                    "sh: 1: fio: not found\n", &libaio, &err), VS_ERR_USAGE);
	assert_string_equal(err.message, "vm1 has no fio: install it in the guest (apt-get install fio, "
	                                 "dnf install fio), then run again");
	assert_int_equal(na_fio_guest_check("vm1", "fio-2.16\nfio-exit 0\n", &libaio, &err), VS_ERR_USAGE);
	assert_string_equal(err.message, "vm1 has fio-2.16; nfsagent needs fio 3.0 or newer (its latencies "
	                                 "in ns): update it in the guest (apt-get install fio, dnf install fio)");
	assert_int_equal(na_fio_guest_check("vm1", "fio-99999999999999999999\nfio-exit 0\n", &libaio, &err),
	                 VS_OK);
	assert_int_equal(na_fio_guest_check("vm1", "", &libaio, &err), VS_ERR_USAGE);
	assert_string_equal(err.message, "vm1: fio --version says no version (exit -1): reinstall fio in "
	                                 "the guest (apt-get install fio, dnf install fio)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sizes_as_fio_reads_them),
		cmocka_unit_test(test_guest_fio),
		cmocka_unit_test(test_grouped_jsonplus),
		cmocka_unit_test(test_plain_json_uses_fio_percentiles),
		cmocka_unit_test(test_plain_json_several_jobs_unknown),
		cmocka_unit_test(test_three_jobs_merged),
		cmocka_unit_test(test_randrw_both_directions),
		cmocka_unit_test(test_unified_mixed),
		cmocka_unit_test(test_status_interval_takes_last),
		cmocka_unit_test(test_noise_before_json),
		cmocka_unit_test(test_job_error),
		cmocka_unit_test(test_truncated_and_empty),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_inline_edge_cases),
		cmocka_unit_test(test_merge_two_runs),
		cmocka_unit_test(test_merge_without_bins),
		cmocka_unit_test(test_percentile_boundaries),
		cmocka_unit_test(test_bins_percentile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
