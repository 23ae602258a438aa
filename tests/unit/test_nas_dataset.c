/* The pure part of making a dataset (nas/dataset_words.c): values refused
 * or normalised before anything runs, the words and the JSON the NAS gets,
 * its answers parsed, and the busy retry on a fake clock. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "nfsagent/nas_dataset.h"

static void settings_are_checked_and_normalised(void **state)
{
	(void)state;
	nas_settings s = {0};
	vs_error err = {0};
	static const char *const good[][3] = {
		{"recordsize", "16K", "16384"}, {"recordsize", "16k", "16384"},
		{"recordsize", "64KB", "65536"}, {"recordsize", "1M", "1048576"},
		{"recordsize", "512", "512"}, {"sync", "ALWAYS", "always"},
		{"compression", "zstd-19", "zstd-19"}, {"compression", "ZSTD-FAST-500", "zstd-fast-500"},
		{"compression", "gzip-9", "gzip-9"}, {"compression", "off", "off"},
		{"atime", "On", "on"}, {"logbias", "throughput", "throughput"},
		{"special_small_blocks", "0", "0"}, {"special_small_blocks", "32K", "32768"},
	};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(nas_settings_put(&s, good[i][0], good[i][1], &err), VS_OK);
	}
	assert_string_equal(s.v[NAS_SET_RECORDSIZE], "512");
	assert_string_equal(s.v[NAS_SET_SYNC], "always");
	assert_string_equal(s.v[NAS_SET_COMPRESSION], "off");
	assert_string_equal(s.v[NAS_SET_ATIME], "on");
	assert_string_equal(s.v[NAS_SET_SPECIAL_SMALL], "32768");
	static const char *const bad[][2] = {
		{"recordsize", "3K"}, {"recordsize", "2M"}, {"recordsize", "0"}, {"recordsize", "256"},
		{"recordsize", "16X"}, {"recordsize", "-16K"}, {"recordsize", "16K;x"}, {"recordsize", ""},
		{"recordsize", "99999999999999999999K"}, {"sync", "sometimes"}, {"sync", "x;y"},
		{"compression", "lz5"}, {"compression", "zstd-20"}, {"compression", "zstd-fast-11"},
		{"compression", "gzip-0"}, {"compression", "gzip-01"}, {"atime", "yes"},
		{"logbias", "fast"}, {"special_small_blocks", "3000"}, {"mountpoint", "/x"},
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err = (vs_error){0};
		assert_int_equal(nas_settings_put(&s, bad[i][0], bad[i][1], &err), VS_ERR_USAGE);
		assert_int_equal(err.status, VS_ERR_USAGE);
	}
	assert_string_equal(s.v[NAS_SET_RECORDSIZE], "512");  /* a refusal changes nothing */
	char word[16];
	nas_size_word(16384, word, sizeof(word));
	assert_string_equal(word, "16K");
	nas_size_word(1 << 20, word, sizeof(word));
	assert_string_equal(word, "1M");
	nas_size_word(512, word, sizeof(word));
	assert_string_equal(word, "512");
}

static void run_ids_and_networks(void **state)
{
	(void)state;
	assert_true(nas_run_id_ok("manual-0b7f3c1e-59aa-4e47-9d0b-2f4a2a8e7c11"));
	assert_true(nas_run_id_ok("campaign.42_x"));
	assert_false(nas_run_id_ok(""));
	assert_false(nas_run_id_ok("a b"));
	assert_false(nas_run_id_ok("a$b"));
	assert_false(nas_run_id_ok("a:b"));
	char long_id[70];
	memset(long_id, 'a', 65);
	long_id[65] = '\0';
	assert_false(nas_run_id_ok(long_id));

	nas_networks n;
	vs_error err = {0};
	assert_int_equal(nas_networks_parse("10.0.0.0/24,10.0.1.5", &n, &err), VS_OK);
	assert_int_equal(n.n, 2);
	assert_string_equal(n.v[0], "10.0.0.0/24");
	assert_string_equal(n.v[1], "10.0.1.5/32");
	char value[256];
	nas_sharenfs_value(&n, value, sizeof(value));
	assert_string_equal(value, "rw=@10.0.0.0/24:@10.0.1.5/32,no_root_squash");
	static const char *const bad[] = {"", "300.1.1.1", "10.0.0.0/33", "10.0.0.0/", "10.0.0/24",
	                                  "10.0.0.0/24;x", "a.b.c.d", "10.0.0.0/24,", "::1/128",
	                                  "10.0.0.0 /24", "10.0.0.0/24/1"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(nas_networks_parse(bad[i], &n, &err), VS_ERR_USAGE);
}

static void truenas_versions(void **state)
{
	(void)state;
	nas_system s;
	vs_error err = {0};
	assert_int_equal(nas_parse_truenas_version("TrueNAS-SCALE-22.12.3\n", &s, &err), VS_OK);
	assert_true(s.backend == NAS_BACKEND_TRUENAS && s.share_path && !s.core);
	assert_string_equal(s.version, "TrueNAS-SCALE-22.12.3");
	assert_int_equal(nas_parse_truenas_version("\"TrueNAS-SCALE-22.02.4\"", &s, &err), VS_OK);
	assert_true(!s.share_path && !s.core);
	assert_int_equal(nas_parse_truenas_version("TrueNAS-13.0-U6.1\n", &s, &err), VS_OK);
	assert_true(!s.share_path && s.core);
	assert_int_equal(nas_parse_truenas_version("TrueNAS-25.04.0\n", &s, &err), VS_OK);
	assert_true(s.share_path && !s.core);
	assert_int_equal(nas_parse_truenas_version("FreeNAS-11.3\n", &s, &err), VS_ERR_PROTOCOL);
	assert_int_equal(nas_parse_truenas_version("", &s, &err), VS_ERR_PROTOCOL);
}

static void what_the_nas_gets(void **state)
{
	(void)state;
	nas_settings s = {0};
	vs_error err = {0};
	assert_int_equal(nas_settings_put(&s, "recordsize", "16K", &err), VS_OK);
	assert_int_equal(nas_settings_put(&s, "sync", "always", &err), VS_OK);
	assert_int_equal(nas_settings_put(&s, "compression", "zstd-3", &err), VS_OK);
	assert_int_equal(nas_settings_put(&s, "logbias", "throughput", &err), VS_OK);
	assert_int_equal(nas_settings_put(&s, "special_small_blocks", "16K", &err), VS_OK);
	char *j = nas_truenas_dataset_json("tank/vm16k", &s, "run-1");
	assert_string_equal(j, "{\"compression\":\"ZSTD-3\",\"name\":\"tank/vm16k\",\"recordsize\":"
	                       "\"16K\",\"special_small_block_size\":16384,\"sync\":\"ALWAYS\","
	                       "\"type\":\"FILESYSTEM\",\"user_properties\":[{\"key\":"
	                       "\"nfsagent:run\",\"value\":\"run-1\"}]}");
	free(j);
	nas_networks n;
	assert_int_equal(nas_networks_parse("10.0.0.0/24", &n, &err), VS_OK);
	nas_system scale = {NAS_BACKEND_TRUENAS, "TrueNAS-SCALE-24.04.2", true, false},
	           core = {NAS_BACKEND_TRUENAS, "TrueNAS-13.0-U6.1", false, true};
	j = nas_truenas_share_json(&scale, "/mnt/tank/vm16k", &n, "run-1");
	assert_string_equal(j, "{\"comment\":\"nfsagent run run-1\",\"maproot_group\":\"root\","
	                       "\"maproot_user\":\"root\",\"networks\":[\"10.0.0.0/24\"],\"path\":"
	                       "\"/mnt/tank/vm16k\"}");
	free(j);
	j = nas_truenas_share_json(&core, "/mnt/tank/vm16k", &n, "run-1");
	assert_string_equal(j, "{\"comment\":\"nfsagent run run-1\",\"maproot_group\":\"wheel\","
	                       "\"maproot_user\":\"root\",\"networks\":[\"10.0.0.0/24\"],\"paths\":"
	                       "[\"/mnt/tank/vm16k\"]}");
	free(j);
	char buf[NAS_SET_N + 1][100];
	const char *words[NAS_CREATE_WORDS];
	nas_zfs_create_words("tank/vm16k", &s, "run-1", buf, words);
	const char *const want[] = {"zfs", "create", "-o", "recordsize=16384", "-o", "sync=always", "-o",
	                            "compression=zstd-3", "-o", "logbias=throughput", "-o",
	                            "special_small_blocks=16384", "-o", "nfsagent:run=run-1",
	                            "tank/vm16k", NULL};
	for (size_t i = 0; want[i]; i++)
		assert_string_equal(words[i], want[i]);
	assert_null(words[15]);
}

#define GET_ROWS                                                                  \
	"mountpoint\t/mnt/tank/vm16k\tdefault\n"                                  \
	"available\t3985729650688\t-\n"                                            \
	"sharenfs\toff\tdefault\n"                                                 \
	"recordsize\t16384\tlocal\n"                                               \
	"sync\tstandard\tdefault\n"                                                \
	"compression\tlz4\tinherited from tank\n"                                  \
	"atime\toff\tinherited from tank\n"                                        \
	"logbias\tlatency\tdefault\n"                                              \
	"special_small_blocks\t0\tdefault\n"

static void zfs_get_answers(void **state)
{
	(void)state;
	nas_dataset_state s;
	vs_error err = {0};
	const char *marked = GET_ROWS "nfsagent:run\trun-1\tlocal\n";
	assert_int_equal(nas_parse_dataset_get(marked, strlen(marked), &s, &err), VS_OK);
	assert_true(s.exists);
	assert_string_equal(s.mark, "run-1");
	assert_string_equal(s.mountpoint, "/mnt/tank/vm16k");
	assert_string_equal(s.sharenfs, "off");
	assert_int_equal(s.available, 3985729650688LL);
	assert_string_equal(s.values.v[NAS_SET_RECORDSIZE], "16384");
	assert_string_equal(s.source[NAS_SET_COMPRESSION], "inherited from tank");
	const char *unmarked = GET_ROWS "nfsagent:run\t-\t-\n";
	assert_int_equal(nas_parse_dataset_get(unmarked, strlen(unmarked), &s, &err), VS_OK);
	assert_string_equal(s.mark, "");
	/* an admin's child of a kept dataset of nfsagent's inherits the mark
	 * and the share: neither makes it nfsagent's nor shared by it */
	const char *inherited = "mountpoint\t/mnt/tank/vm16k/x\tinherited from tank/vm16k\n"
	                        "available\t1\t-\n"
	                        "sharenfs\trw=@10.0.0.0/24\tinherited from tank/vm16k\n"
	                        "recordsize\t16384\tinherited from tank/vm16k\n"
	                        "sync\tstandard\tdefault\ncompression\tlz4\tdefault\n"
	                        "atime\toff\tdefault\nlogbias\tlatency\tdefault\n"
	                        "special_small_blocks\t0\tdefault\n"
	                        "nfsagent:run\tmanual-1234\tinherited from tank/vm16k\n";
	assert_int_equal(nas_parse_dataset_get(inherited, strlen(inherited), &s, &err), VS_OK);
	assert_string_equal(s.mark, "");
	assert_string_equal(s.sharenfs, "off");
	/* a property missing, a line not of three fields, a NUL */
	assert_int_equal(nas_parse_dataset_get(GET_ROWS, strlen(GET_ROWS), &s, &err), VS_ERR_PROTOCOL);
	assert_non_null(strstr(err.message, "nfsagent:run"));
	const char *odd = GET_ROWS "nfsagent:run\trun-1\n";
	assert_int_equal(nas_parse_dataset_get(odd, strlen(odd), &s, &err), VS_ERR_PROTOCOL);
	assert_int_equal(nas_parse_dataset_get("a\0b", 3, &s, &err), VS_ERR_PROTOCOL);
}

static void truenas_share_answers(void **state)
{
	(void)state;
	const char *q = "[{\"id\": 3, \"path\": \"/mnt/tank/other\"}, {\"id\": 7, \"path\": "
	                "\"/mnt/tank/vm16k\"}, {\"id\": 9, \"paths\": [\"/mnt/tank/a\", "
	                "\"/mnt/tank/vm16k\"]}]";
	int64_t ids[4];
	size_t n;
	vs_error err = {0};
	assert_int_equal(nas_parse_shares(q, strlen(q), "/mnt/tank/vm16k", ids, 4, &n, &err), VS_OK);
	assert_int_equal(n, 2);
	assert_int_equal(ids[0], 7);
	assert_int_equal(ids[1], 9);
	assert_int_equal(nas_parse_shares("[]", 2, "/mnt/x", ids, 4, &n, &err), VS_OK);
	assert_int_equal(n, 0);
	assert_int_equal(nas_parse_shares("{}", 2, "/mnt/x", ids, 4, &n, &err), VS_ERR_PROTOCOL);
}

/* ---- the busy retry on a fake clock ---------------------------------- */

typedef struct fake {
	int64_t t;  /* ms */
	int slept[16];
	int n_slept;
	int busy_left;  /* busy so many tries, then done; -1 forever; -2 another failure */
} fake;

static int64_t fake_now(void *ud)
{
	return ((fake *)ud)->t;
}

static void fake_sleep(void *ud, int ms)
{
	fake *f = ud;
	f->slept[f->n_slept++] = ms;
	f->t += ms;
}

static int fake_try(void *ud, bool *busy, vs_error *err)
{
	fake *f = ud;
	f->t += 250;  /* each try takes a quarter second */
	if (f->busy_left == 0)
		return VS_OK;
	if (f->busy_left == -2)
		return vs_fail(err, VS_ERR_FAULT, "cannot destroy: permission denied");
	if (f->busy_left > 0)
		f->busy_left--;
	*busy = true;
	return vs_fail(err, VS_ERR_FAULT, "cannot destroy 'tank/x': dataset is busy");
}

static void busy_is_retried_with_backoff(void **state)
{
	(void)state;
	vs_error err = {0};
	int tries;
	fake f = {.busy_left = 2};
	nas_clock c = {fake_now, fake_sleep, &f};
	assert_int_equal(nas_retry_busy(fake_try, &f, &c, 60, &tries, &err), VS_OK);
	assert_int_equal(tries, 3);
	assert_int_equal(f.n_slept, 2);
	assert_true(f.slept[0] == 1000 && f.slept[1] == 2000);

	/* forever: 1, 2, 4, 8, then what is left of 20 s, never past it */
	f = (fake){.busy_left = -1};
	c.ctx = &f;
	assert_int_equal(nas_retry_busy(fake_try, &f, &c, 20, &tries, &err), VS_ERR_FAULT);
	assert_non_null(strstr(err.message, "busy"));
	assert_int_equal(tries, 6);
	assert_int_equal(f.n_slept, 5);
	assert_true(f.slept[0] == 1000 && f.slept[1] == 2000 && f.slept[2] == 4000 && f.slept[3] == 8000);
	assert_int_equal(f.slept[4], 3750);  /* 20 s - 15 slept - 5 tries of 0.25 */
	assert_true(f.t - 20000 < 300);

	/* the backoff stops growing at 15 s */
	f = (fake){.busy_left = -1};
	assert_int_equal(nas_retry_busy(fake_try, &f, &c, 100, &tries, &err), VS_ERR_FAULT);
	assert_true(f.slept[4] == 15000 && f.slept[5] == 15000);

	/* another failure is not retried */
	f = (fake){.busy_left = -2};
	assert_int_equal(nas_retry_busy(fake_try, &f, &c, 60, &tries, &err), VS_ERR_FAULT);
	assert_int_equal(tries, 1);
	assert_int_equal(f.n_slept, 0);

	/* no budget: one try */
	f = (fake){.busy_left = -1};
	assert_int_equal(nas_retry_busy(fake_try, &f, &c, 0, &tries, &err), VS_ERR_FAULT);
	assert_int_equal(tries, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(settings_are_checked_and_normalised),
		cmocka_unit_test(run_ids_and_networks),
		cmocka_unit_test(truenas_versions),
		cmocka_unit_test(what_the_nas_gets),
		cmocka_unit_test(zfs_get_answers),
		cmocka_unit_test(truenas_share_answers),
		cmocka_unit_test(busy_is_retried_with_backoff),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
