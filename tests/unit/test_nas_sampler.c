/* One run's window on the NAS: totals of a zpool iostat timeline, counter
 * deltas, amplification, the cache-served rule, and the sampler itself
 * around a stand-in for ssh that answers with the golden outputs. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "golden.h"
#include "nas_test_clock.h"

#include "nfsagent/nas.h"

static void load_layout(nas_layout *l)
{
	size_t len;
	char *text = golden("zfs/zpool_list_mirrors.txt", &len);
	vs_error err = {0};
	assert_int_equal(nas_parse_zpool_list(text, len, l, &err), VS_OK);
	free(text);
}

static void test_totals(void **state)
{
	(void)state;
	nas_layout l;
	load_layout(&l);
	size_t len;
	char *text = golden("zfs/zpool_iostat_mirrors.txt", &len);
	nas_samples s;
	vs_error err = {0};
	assert_int_equal(nas_parse_iostat(text, len, &l, &s, &err), VS_OK);
	free(text);
	nas_io total[NAS_CLASS_N], pool;
	nas_samples_total(&s, 2, total, &pool);
	/* Three intervals of 2 s: 2 x (3512729600 + 3514729600 + 3516729600). */
	assert_int_equal(total[NAS_CLASS_DATA].write_bytes, 21088377600ULL);
	assert_int_equal(total[NAS_CLASS_LOG].write_bytes, 6ULL * 1087897600);
	assert_int_equal(total[NAS_CLASS_LOG].write_ops, 6 * 16600);
	assert_int_equal(total[NAS_CLASS_CACHE].write_bytes, 6 * 393216);
	assert_int_equal(pool.write_bytes, total[NAS_CLASS_DATA].write_bytes +
	                                       total[NAS_CLASS_SPECIAL].write_bytes +
	                                       total[NAS_CLASS_LOG].write_bytes);
	assert_int_equal(total[NAS_CLASS_DATA].write_wait_ns, 1830000);
	nas_samples_free(&s);
	nas_layout_free(&l);
}

static nas_counters counters(uint64_t step)
{
	nas_counters c = {0};
	c.objset.found = c.arc.found = c.zil.found = true;
	strcpy(c.objset.dataset, "tank/vmware64k");
	c.objset.writes = 1000 + 10 * step;
	c.objset.nwritten = 1000000 + 1000 * step;
	c.objset.reads = 50 + step;
	c.objset.nread = 4096 * (50 + step);
	c.arc.demand_data_hits = 900 + 90 * step;
	c.arc.demand_data_misses = 100 + 10 * step;
	c.arc.size = 8000 + step;
	c.arc.c_max = 9000;
	c.zil.commit_count = 70 + 7 * step;
	c.zil.slog_bytes = 5000 + 500 * step;
	return c;
}

static void test_counter_deltas(void **state)
{
	(void)state;
	nas_counters a = counters(0), b = counters(3);
	nas_window w = {0};
	vs_error err = {0};
	assert_int_equal(nas_counters_delta(&a, &b, &w, &err), VS_OK);
	assert_true(w.counters);
	assert_int_equal(w.dataset_writes, 30);
	assert_int_equal(w.dataset_written, 3000);
	assert_int_equal(w.dataset_reads, 3);
	assert_int_equal(w.dataset_read, 3 * 4096);
	assert_int_equal(w.arc_hits, 270);
	assert_int_equal(w.arc_misses, 30);
	assert_true(w.arc_hit_ratio > 0.8999 && w.arc_hit_ratio < 0.9001);
	assert_int_equal(w.arc_size, 8003);  /* a gauge: the value after */
	assert_int_equal(w.zil_commits, 21);
	assert_int_equal(w.zil_slog_bytes, 1500);

	nas_window idle = {0};
	assert_int_equal(nas_counters_delta(&a, &a, &idle, &err), VS_OK);
	assert_true(idle.arc_hit_ratio < 0);  /* no demand reads: no ratio */

	assert_int_equal(nas_counters_delta(&b, &a, &w, &err), VS_ERR_PROTOCOL);
	assert_string_equal(err.message, "a counter went back during the run (pool reimported?)");
	strcpy(b.objset.dataset, "tank/other");
	assert_int_equal(nas_counters_delta(&a, &b, &w, &err), VS_ERR_PROTOCOL);
	assert_string_equal(err.message,
	                    "the objset kstat was tank/vmware64k before the run, tank/other after");
	b = counters(1);
	b.zil.found = false;
	assert_int_equal(nas_counters_delta(&a, &b, &w, &err), VS_ERR_PROTOCOL);
}

static void test_amplification_and_cache(void **state)
{
	(void)state;
	/* The seeds' 64K run: 138 MB/s from the guest, about 3.5 GB/s on the
	 * mirrors, 0.9 GB/s on the log (per second of the window). */
	nas_window w = {.counters = true, .dataset_written = 150000000, .arc_size = 256ULL << 30,
	                .arc_hit_ratio = 0.97};
	w.total[NAS_CLASS_DATA].write_bytes = 3500000000;
	w.total[NAS_CLASS_LOG].write_bytes = 900000000;
	nas_amplification a;
	nas_amplification_of(&w, 138000000, &a);
	assert_true(a.known);
	assert_true(a.total > 31.88 && a.total < 31.89);  /* 4.4 GB / 138 MB: "32x" */
	assert_true(a.guest_to_dataset > 1.086 && a.guest_to_dataset < 1.087);
	assert_true(a.dataset_to_data > 23.33 && a.dataset_to_data < 23.34);
	assert_true(a.log_share > 6.52 && a.log_share < 6.53);
	nas_amplification_of(&w, 0, &a);
	assert_false(a.known);
	w.incomplete = true;
	nas_amplification_of(&w, 138000000, &a);
	assert_false(a.known);  /* partial figures give no ratio */
	w.incomplete = false;

	/* An 8 GB file in 256 GB of ARC, 97% hits: the reads were RAM. */
	assert_true(nas_cache_served(&w, 8ULL << 30, 0.9));
	assert_false(nas_cache_served(&w, 300ULL << 30, 0.9));  /* does not fit */
	w.arc_hit_ratio = 0.5;
	assert_false(nas_cache_served(&w, 8ULL << 30, 0.9));
	w.arc_hit_ratio = -1;
	assert_false(nas_cache_served(&w, 8ULL << 30, 0.9));  /* no demand reads seen */
}

/* A stand-in for ssh: the jobs' words run as the NAS's shell would run
 * them, with `zpool` answered by IOSTAT_SCRIPT and their kstat files'
 * `cat` by CAT_SCRIPT (shell words; `command cat` is the real one). */
static void fake_nas_in(nas_target *t, const char *shell, const char *iostat_script,
                        const char *cat_script)
{
	char line[2048];
	snprintf(line, sizeof(line), "%s -c 'd=%s/zfs; shift; zpool() { %s; }; cat() { %s; }; eval \"$*\"' sh",
	         shell, TEST_DATA_DIR, iostat_script, cat_script);
	vs_error err = {0};
	assert_int_equal(nas_target_command(t, line, &err), VS_OK);
}

static void fake_nas(nas_target *t, const char *iostat_script, const char *cat_script)
{
	fake_nas_in(t, "sh", iostat_script, cat_script);
}

/* The goldens, for a reading of the pool and objset its line named (else
 * the reading fails). */
static const char cat_goldens[] = "case $1 in */tank/txgs) command cat $d/txgs ;; *) "
                                  "test \"$3\" = /proc/spl/kstat/zfs/tank/objset-0x36 || return 9; "
                                  "command cat $d/arcstats $d/zil $d/objset-0x36 ;; esac";

/* A sampler opened and started for a window of 6 s, iostat every 2 s. */
static nas_sampler *started(const nas_target *t, const nas_layout *l)
{
	nas_sampler *s;
	vs_error err = {0};
	assert_int_equal(nas_sampler_open(t, &s, &err), VS_OK);
	assert_int_equal(nas_sampler_start(s, l, 0x36, 2, 6, &err), VS_OK);
	return s;
}

/* One run sampled by the readings' loop as SHELL runs it. */
static void sampled_in(const char *shell)
{
	nas_layout l;
	load_layout(&l);
	nas_target t;
	/* iostat prints three intervals and would go on for 30 s more; its
	 * words go to a file. */
	char args[64], iostat[256];
	snprintf(args, sizeof(args), "/tmp/nfsagent-unit-iostat-%ld", (long)getpid());
	snprintf(iostat, sizeof(iostat),
	         "echo \"$*\" > %s; command cat $d/zpool_iostat_mirrors.txt; exec sleep 30", args);
	fake_nas_in(&t, shell, iostat, cat_goldens);
	nas_sampler *s;
	vs_error err = {0};
	assert_int_equal(nas_sampler_open(&t, &s, &err), VS_OK);
	/* parked: nothing is read before the run starts it */
	struct timespec nap = {0, 300 * 1000 * 1000};
	nanosleep(&nap, NULL);
	double begun = nas_unix_now();
	assert_int_equal(nas_sampler_start(s, &l, 0x36, 10, 30, &err), VS_OK);
	assert_true(nas_sampler_ready(s));  /* the first reading came, of tank's objset 0x36 */
	nanosleep(&nap, NULL);
	double asked = nas_unix_now();
	nas_window w;
	nas_sampler_stop(&s, &w);
	assert_null(s);
	/* The last reading cuts the loop's 10 s sleep short: not waited for
	 * (else the loop's next reading, due at 10 s, would be among them). */
	assert_false(w.incomplete);
	assert_int_equal(w.timeline.n, 3);
	/* the golden's rates over its intervals of 10 s */
	assert_int_equal(w.total[NAS_CLASS_DATA].write_bytes, 105441888000ULL);
	assert_true(w.counters);
	assert_int_equal(w.dataset_written, 0);  /* the same golden before and after */
	assert_int_equal(w.arc_c_max, 67444088832);
	assert_int_equal(w.readings.n, 2);  /* at once and at the end (the next was due at 10 s) */
	/* the txgs read with both: none of the golden's ended in that span */
	assert_true(w.readings.v[0].txgs.found && w.readings.v[1].txgs.found);
	assert_true(w.txgs);
	assert_int_equal(w.txg_count, 0);
	assert_true(w.txg_sync_mean_ns == -1);
	/* The last reading is the answer: taken after it was asked for.  The
	 * stand-in's `date` is this machine's: the clocks agree, to about half
	 * a round trip. */
	assert_true(w.readings.v[0].at >= begun);
	/* iostat got its line's numbers: every 10 s, the 30 s window's 3 and 2 more */
	FILE *f = fopen(args, "r");
	char got[128] = "";
	assert_non_null(f);
	assert_non_null(fgets(got, sizeof(got), f));
	fclose(f);
	unlink(args);
	assert_string_equal(got, "iostat -T u -Hpvy -l tank 10 5\n");
	assert_true(w.readings.v[1].at >= asked);
	assert_true(w.clock_err >= 0 && w.clock_err < 0.5);
	assert_true(w.clock_offset > -w.clock_err - 0.01 && w.clock_offset < w.clock_err + 0.01);
	assert_true(w.readings.v[1].at > w.readings.v[0].at);
	nas_window_free(&w);
	nas_target_free(&t);
	nas_layout_free(&l);
}

/* A run that ends while the first reading is still being taken (each
 * reading takes 0.4 s here): the line lands before "begun"; the loop does
 * not start its 2 s sleep but takes the last reading at once. */
static void stopped_early_in(const char *shell)
{
	nas_layout l;
	load_layout(&l);
	nas_target t;
	char slow[256];
	snprintf(slow, sizeof(slow), "test \"$1\" = /proc/spl/kstat/zfs/tank/txgs || sleep 0.4; %s",
	         cat_goldens);
	fake_nas_in(&t, shell, "exec sleep 30", slow);
	nas_sampler *s = started(&t, &l);
	double asked = nas_unix_now();
	nas_window w;
	nas_sampler_stop(&s, &w);
	/* two readings of 0.4 s, not the loop's 2 s sleep and a reading after it */
	assert_int_equal(w.readings.n, 2);
	assert_true(w.readings.v[1].at >= asked);
	assert_true(w.clock_err >= 0);
	nas_window_free(&w);
	nas_target_free(&t);
	nas_layout_free(&l);
}

/* The loop's line as dash, bash and zsh run it: the NAS account's login
 * shell runs it there.  A shell missing fails the test (scripts/deps.sh
 * installs zsh), never skips it. */
static void test_sampler_around_a_run(void **state)
{
	(void)state;
	const char *const shells[] = {"sh", "bash", "zsh"};
	for (size_t i = 0; i < 3; i++) {
		char path[32];
		snprintf(path, sizeof(path), "/usr/bin/%s", shells[i]);
		if (access(path, X_OK) != 0)
			fail_msg("%s not found: scripts/deps.sh installs it", path);
		sampled_in(shells[i]);
		stopped_early_in(shells[i]);
	}
}

/* A parked job runs only on a line whose first two words are all digits
 * (the NAS's shell checks each: the words use them unquoted): anything
 * else ends it, 2, before it runs.  The pool, last, is used quoted only;
 * nas_iostat_start sends none that is not a pool's name. */
static void test_parked_words_check_their_numbers(void **state)
{
	(void)state;
	const char *const lines[] = {"2 5 36 tank", "5", "2 5x 36 tank", " 2\t5 36  tank ", "-1 5 36 tank"};
	const int status[] = {0, 2, 2, 0, 2};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		nas_target t;
		fake_nas(&t, "echo \"ran $*\"", cat_goldens);
		nas_job *j;
		vs_error err = {0};
		assert_int_equal(nas_iostat_job(&t, &j, &err), VS_OK);
		assert_int_equal(nas_job_say(j, lines[i], &err), VS_OK);
		nas_output o;
		nas_job_finish(&j, 5000, &o, &err);
		assert_int_equal(o.status, status[i]);
		assert_string_equal(o.out, status[i] ? "" : "ran iostat -T u -Hpvy -l tank 2 5\n");
		nas_output_free(&o);
		nas_target_free(&t);
	}
	nas_target t;
	fake_nas(&t, "echo \"ran $*\"", cat_goldens);
	nas_job *j;
	vs_error err = {0};
	assert_int_equal(nas_iostat_job(&t, &j, &err), VS_OK);
	assert_int_equal(nas_iostat_start(j, "-tank", 2, 5, &err), VS_ERR_USAGE);
	assert_string_equal(err.message, "'-tank' is not a ZFS pool name");
	assert_int_equal(nas_iostat_start(j, "tank", 2, 5, &err), VS_OK);
	nas_output o;
	nas_job_finish(&j, 5000, &o, &err);
	assert_int_equal(o.status, 0);
	assert_string_equal(o.out, "ran iostat -T u -Hpvy -l tank 2 5\n");  /* the first line it got */
	nas_output_free(&o);
	/* The longest pool name nas_name_ok allows fits the line with the
	 * largest numbers (an objset id of 16 hex digits fits as well: the
	 * line's room holds 10 + 10 + 16 + 3 + 239). */
	char pool[241], want[320];
	memset(pool, 'p', sizeof(pool) - 1);
	pool[sizeof(pool) - 1] = '\0';
	assert_false(nas_name_ok(pool, true));
	pool[sizeof(pool) - 2] = '\0';
	assert_true(nas_name_ok(pool, true));
	assert_int_equal(nas_iostat_job(&t, &j, &err), VS_OK);
	assert_int_equal(nas_iostat_start(j, pool, INT_MAX, INT_MAX, &err), VS_OK);
	nas_job_finish(&j, 5000, &o, &err);
	snprintf(want, sizeof(want), "ran iostat -T u -Hpvy -l %s %d %d\n", pool, INT_MAX, INT_MAX);
	assert_string_equal(o.out, want);
	nas_output_free(&o);
	/* a longer line is refused, not cut */
	char line[NAS_LINE_MAX + 2];
	memset(line, '1', sizeof(line) - 1);
	line[sizeof(line) - 1] = '\0';
	assert_int_equal(nas_iostat_job(&t, &j, &err), VS_OK);
	assert_int_equal(nas_job_say(j, line, &err), VS_ERR_USAGE);
	assert_string_equal(err.message, "a line for 'zpool iostat' is longer than 320 bytes");
	nas_job_finish(&j, 5000, &o, &err);
	nas_output_free(&o);
	nas_target_free(&t);
}

/* A readings' session whose ssh fails at its line, saying why on stderr:
 * the first one only (once) or every one; the sessions it took, and the
 * window. */
static int dying_readings(const char *why, bool once, nas_window *w, bool *ready)
{
	nas_layout l;
	load_layout(&l);
	char flag[64], log[64], script[64];
	snprintf(flag, sizeof(flag), "/tmp/nfsagent-unit-dead-%ld", (long)getpid());
	snprintf(log, sizeof(log), "/tmp/nfsagent-unit-dead-%ld.log", (long)getpid());
	snprintf(script, sizeof(script), "/tmp/nfsagent-unit-dead-%ld.sh", (long)getpid());
	unlink(flag);
	unlink(log);
	char touch[100] = "";  /* the flag that spares the next sessions: once only */
	if (once)
		snprintf(touch, sizeof(touch), ": > %s;", flag);
	/* a script, not sh -c: the NAS's name in the messages stays short */
	FILE *sf = fopen(script, "w");
	assert_non_null(sf);
	fprintf(sf, "#!/bin/sh\nd=%s/zfs; shift; case \"$*\" in *\"zpool iostat\"*) ;;"
	        " *) echo >> %s; test -e %s || { %s read x; echo \"%s\" >&2; exit 255; } ;; esac\n"
	        "zpool() { command cat $d/zpool_iostat_mirrors.txt; exec sleep 30; }; cat() { %s; }\n"
	        "eval \"$*\"\n", TEST_DATA_DIR, log, flag, touch, why, cat_goldens);
	fclose(sf);
	assert_int_equal(chmod(script, 0700), 0);
	nas_target t;
	vs_error err = {0};
	assert_int_equal(nas_target_command(&t, script, &err), VS_OK);
	nas_sampler *s = started(&t, &l);
	*ready = nas_sampler_ready(s);
	nas_sampler_stop(&s, w);
	FILE *f = fopen(log, "r");
	int sessions = 0;
	for (int c; f && (c = fgetc(f)) != EOF;)
		sessions += c == '\n';
	if (f)
		fclose(f);
	unlink(flag);
	unlink(log);
	unlink(script);
	nas_target_free(&t);
	nas_layout_free(&l);
	return sessions;
}

/* A pair parked on a connection cut unseen (a NAS rebooted while it
 * waited): ssh fails at its line; ready opens the pair anew, once, and the
 * run is sampled whole.  Cut every time: two tries, the reason said.  A
 * connection refused now (the NAS down): not tried again. */
static void test_sampler_reopens_a_cut_pair(void **state)
{
	(void)state;
	nas_window w;
	bool ready;
	const char cut[] = "Connection to 10.0.0.5 closed by remote host.";
	assert_int_equal(dying_readings(cut, true, &w, &ready), 2);
	assert_true(ready);
	assert_false(w.incomplete);
	assert_int_equal(w.timeline.n, 3);
	assert_int_equal(w.readings.n, 2);
	nas_window_free(&w);

	assert_int_equal(dying_readings(cut, false, &w, &ready), 2);  /* once again, not more */
	assert_false(ready);
	assert_true(w.incomplete && w.lost);
	assert_non_null(strstr(w.why, "is unreachable: Connection to 10.0.0.5 closed by remote host."));
	nas_window_free(&w);

	assert_int_equal(dying_readings("ssh: connect to host 10.0.0.5 port 22: Connection refused",
	                                false, &w, &ready), 1);
	assert_false(ready);
	assert_non_null(strstr(w.why, "is unreachable: ssh: connect to host 10.0.0.5 port 22: "
	                              "Connection refused"));
	nas_window_free(&w);
}

/* A session that gives the jobs no stdin (ssh -n): they end at once,
 * parked, before their first line, and the run says why. */
static void test_sampler_without_stdin(void **state)
{
	(void)state;
	nas_layout l;
	load_layout(&l);
	nas_target t;
	char line[2048];
	snprintf(line, sizeof(line),
	         "sh -c 'd=%s/zfs; shift; zpool() { exec sleep 30; }; cat() { %s; }; eval \"$*\" < /dev/null' sh",
	         TEST_DATA_DIR, cat_goldens);
	vs_error err = {0};
	assert_int_equal(nas_target_command(&t, line, &err), VS_OK);
	nas_sampler *s = started(&t, &l);
	assert_false(nas_sampler_ready(s));
	nas_window w;
	nas_sampler_stop(&s, &w);
	assert_true(w.incomplete && w.lost);
	assert_string_equal(w.why, "the NAS's readings ended before the run did: their session gave them "
	                           "no input (--nas-command must pass stdin through, as ssh without -n "
	                           "does; the NAS account's login shell must be a POSIX shell)");
	assert_int_equal(w.clock_err, -1);
	assert_int_equal(w.readings.n, 0);
	nas_window_free(&w);
	nas_target_free(&t);
	nas_layout_free(&l);
}

static void test_sampler_that_dies(void **state)
{
	(void)state;
	nas_layout l;
	load_layout(&l);
	nas_target t;
	fake_nas(&t, "echo \"cannot open tank: no such pool\" >&2; exit 1", cat_goldens);
	nas_sampler *s = started(&t, &l);
	vs_error err = {0};
	struct timespec nap = {0, 300 * 1000 * 1000};
	nanosleep(&nap, NULL);
	nas_window w;
	nas_sampler_stop(&s, &w);
	assert_true(w.incomplete);
	assert_non_null(strstr(w.why, "running 'zpool iostat -T u -Hpvy -l tank 2 5' on "));
	assert_non_null(strstr(w.why, "zpool exited 1: cannot open tank: no such pool"));
	assert_int_equal(w.timeline.n, 0);
	assert_true(w.counters);  /* what could be read is kept */
	assert_int_equal(w.readings.n, 2);
	nas_window_free(&w);
	nas_target_free(&t);

	/* Counters unreadable: the run goes on, its NAS side incomplete, with
	 * the reason; not one reading came, so the NAS was not sampled. */
	fake_nas(&t, "exit 0", "echo \"cat: /proc/spl/kstat/zfs/arcstats: No such file\" >&2; return 1");
	s = started(&t, &l);
	nas_sampler_stop(&s, &w);
	assert_true(w.incomplete && w.lost);
	/* named by what the loop repeats, failed as cat failed */
	assert_ptr_equal(strstr(w.why, "running 'cat /proc/spl/kstat/zfs/arcstats /proc/spl/kstat/zfs/zil "
	                               "/proc/spl/kstat/zfs/tank/objset-0x36 && date +%s.%N, every 2 s' on "),
	                 w.why);
	const char *tail = " failed: cat exited 1: cat: /proc/spl/kstat/zfs/arcstats: No such file";
	assert_string_equal(w.why + strlen(w.why) - strlen(tail), tail);
	assert_int_equal(w.clock_err, -1);
	nas_window_free(&w);
	/* Bad arguments: not started, its stop says so (and reads nothing). */
	assert_int_equal(nas_sampler_open(&t, &s, &err), VS_OK);
	assert_int_equal(nas_sampler_start(s, &l, 0x36, 0, 6, &err), VS_ERR_USAGE);
	nas_layout bad = l;
	bad.pool = "-tank";
	assert_int_equal(nas_sampler_start(s, &bad, 0x36, 2, 6, &err), VS_ERR_USAGE);
	assert_string_equal(err.message, "'-tank' is not a ZFS pool name");
	assert_false(nas_sampler_ready(s));  /* at once: no reading will come */
	nas_sampler_stop(&s, &w);
	assert_null(s);
	assert_true(w.incomplete);
	assert_string_equal(w.why, "the NAS's sampler was not started");
	assert_int_equal(w.interval_s, 0);
	assert_int_equal(w.readings.n, 0);
	nas_window_free(&w);
	nas_target_free(&t);

	/* A NAS that never answers (a session black-holed): the first reading
	 * is waited for the command's time, once; the stop waits no more.
	 * Counted on the test's clock: 30 s of it, then the stops of two
	 * sessions (at most 2 s each before their SIGKILL). */
	fake_nas(&t, "exec sleep 30", "sleep 30");
	t.timeout_s = 30;
	nas_test_clock clock;
	nas_test_clock_use(&clock, 100, &t);
	s = started(&t, &l);
	assert_false(nas_sampler_ready(s));
	assert_in_range(clock.now, 30000, 30000 + 100);
	int64_t t0 = clock.now;
	nas_sampler_stop(&s, &w);
	assert_in_range(clock.now - t0, 0, 2 * (2000 + 100));  /* not waited for again (30 s more) */
	assert_true(w.incomplete && w.lost);
	assert_string_equal(w.why, "the NAS gave no first reading in 30 s");
	nas_window_free(&w);
	nas_target_free(&t);
	nas_layout_free(&l);
}

/* The golden mirrors' layout, and its stamped timeline of 2 s intervals in w. */
static void stamped_window(nas_layout *l, nas_window *w)
{
	load_layout(l);
	size_t len;
	char *text = golden("zfs/zpool_iostat_stamped.txt", &len);
	*w = (nas_window){.interval_s = 2};
	vs_error err = {0};
	assert_int_equal(nas_parse_iostat(text, len, l, &w->timeline, &err), VS_OK);
	free(text);
}

/* fio's window cut out of a stamped timeline (-T u): intervals of 2 s
 * stamped ...02, ...04, ...06 cover (0.5, 2.5], (2.5, 4.5], (4.5, 6.5] past
 * ...00; a window from 1.5 to 5.5 takes half the first, the second whole,
 * half the third. */
static void test_window_selection(void **state)
{
	(void)state;
	nas_layout l;
	nas_window w;
	stamped_window(&l, &w);
	size_t len;
	char *text;
	vs_error err = {0};
	assert_int_equal(w.timeline.n, 3);
	assert_int_equal(w.timeline.v[0].at, 1764600002);
	assert_int_equal(w.timeline.v[2].at, 1764600006);
	const double t0 = 1764600000;
	assert_true(nas_window_select(&w, t0 + 1.5, t0 + 5.5));
	assert_true(w.fio_window);
	assert_true(w.seconds == 4);
	assert_int_equal(w.total[NAS_CLASS_DATA].write_bytes,
	                 3512729600ULL + 2 * 3514729600ULL + 3516729600ULL);
	assert_int_equal(w.total[NAS_CLASS_LOG].write_ops, 4 * 16600);
	assert_int_equal(w.total[NAS_CLASS_DATA].write_wait_ns, 1830000);
	assert_true(w.span == 4);
	/* A window longer than the timeline: every interval whole, and
	 * the 6 s measured scaled up to fio's 7. */
	assert_true(nas_window_select(&w, t0, t0 + 7));
	assert_true(w.seconds == 6);
	assert_true(w.span == 7);
	assert_int_equal(w.total[NAS_CLASS_DATA].write_bytes, 21088377600ULL / 6 * 7);
	/* A window between the intervals' ends, and one after them all. */
	assert_true(nas_window_select(&w, t0 + 3, t0 + 4));
	assert_int_equal(w.total[NAS_CLASS_DATA].write_bytes, 3514729600ULL);
	/* Less than a quarter measured: not scaled, only what was measured. */
	assert_true(nas_window_select(&w, t0 + 6, t0 + 11));
	assert_true(w.seconds == 0.5 && w.span == 5);
	assert_int_equal(w.total[NAS_CLASS_DATA].write_bytes, 3516729600ULL / 2);
	assert_true(nas_window_select(&w, t0 + 10, t0 + 20));
	assert_true(w.seconds == 0);
	assert_int_equal(w.total[NAS_CLASS_DATA].write_bytes, 0);
	nas_window_free(&w);

	/* Without stamps the totals stay the whole timeline's. */
	text = golden("zfs/zpool_iostat_mirrors.txt", &len);
	w = (nas_window){.interval_s = 2};
	assert_int_equal(nas_parse_iostat(text, len, &l, &w.timeline, &err), VS_OK);
	free(text);
	assert_int_equal(w.timeline.v[0].at, 0);
	nas_samples_total(&w.timeline, 2, w.total, &w.pool_total);
	assert_false(nas_window_select(&w, t0 + 1.5, t0 + 5.5));
	assert_false(w.fio_window);
	assert_int_equal(w.total[NAS_CLASS_DATA].write_bytes, 21088377600ULL);
	nas_window_free(&w);
	nas_layout_free(&l);
}

/* The counters' deltas follow fio's window as the pool's totals do:
 * readings every 2 s, interpolated at the window's edges. */
static void test_window_counters(void **state)
{
	(void)state;
	nas_layout l;
	nas_window w;
	stamped_window(&l, &w);
	size_t len;
	char *text;
	vs_error err = {0};
	const double t0 = 1764600000;
	/* The file's layout first (1e6 bytes by t0 + 0.5), then fio: 1000
	 * bytes a second from t0 + 0.5 on. */
	static const double at[] = {0.1, 0.5, 2.5, 4.5, 6.5};
	static const uint64_t written[] = {0, 1000000, 1002000, 1004000, 1006000};
	nas_reading r[5];
	for (int i = 0; i < 5; i++) {
		r[i] = (nas_reading){.at = t0 + at[i], .c = counters(0)};
		r[i].c.objset.nwritten = written[i];
		r[i].c.zil.slog_bytes = written[i] / 2;
	}
	w.readings = (nas_readings){.v = malloc(sizeof(r)), .n = 5};
	assert_non_null(w.readings.v);
	memcpy(w.readings.v, r, sizeof(r));
	/* The pool's txgs with the first and the last reading, the last's
	 * gethrtime() 2618493302100 ns at its date (t0 + 6.5). */
	text = golden("zfs/txgs", &len);
	assert_int_equal(nas_parse_txgs(text, len, &w.readings.v[0].txgs, &err), VS_OK);
	assert_int_equal(nas_parse_txgs(text, len, &w.readings.v[4].txgs, &err), VS_OK);
	free(text);
	w.readings.v[4].c.snaptime = 2618493302100ULL;
	assert_int_equal(nas_counters_delta(&r[0].c, &r[4].c, &w, &err), VS_OK);
	assert_int_equal(w.dataset_written, 1006000);  /* the sampler's span: layout too */
	assert_true(nas_window_select(&w, t0 + 1.5, t0 + 5.5));
	assert_true(w.counters);
	assert_int_equal(w.dataset_written, 4000);  /* fio's 4 s only */
	assert_int_equal(w.zil_slog_bytes, 2000);
	/* txgs 1840208-10 synced 3.85, 2.67 and 1.2 s before the last reading:
	 * in fio's window (t0 + 1.5 to t0 + 5.5); 1840207's, 5.63 s before, not */
	assert_true(w.txgs);
	assert_int_equal(w.txg_count, 3);
	double off = w.txg_sync_mean_ns - (1712339402.0 + 1187503391 + 1466010870) / 3;
	assert_true(off > -1 && off < 1);
	assert_true(w.txg_sync_max_ns == 1712339402);
	assert_true(w.txg_dirty_mean == 1342177280);
	/* A history whose ring lost txgs of the run (the first reading's newest
	 * is older than the last's oldest): not known rather than part. */
	for (size_t i = 0; i < w.readings.v[0].txgs.n; i++)
		w.readings.v[0].txgs.v[i].txg -= 20;
	assert_true(nas_window_select(&w, t0 + 1.5, t0 + 5.5));
	assert_false(w.txgs);
	assert_string_equal(w.txgs_why, "the pool's txg history kept 12 txgs, fewer than the run "
	                                "committed (raise zfs_txg_history)");
	nas_amplification a;
	nas_amplification_of(&w, 4000, &a);
	assert_true(a.known);
	assert_true(a.guest_to_dataset == 1);
	/* the split adds up: total = guest_to_dataset x dataset_to_data + log */
	double sum = a.guest_to_dataset * a.dataset_to_data + a.log_share;
	assert_true(sum > a.total * 0.999999 && sum < a.total * 1.000001);
	/* A window past the last reading by more than an interval: no deltas
	 * rather than the whole span's. */
	assert_true(nas_window_select(&w, t0 + 4, t0 + 9));
	assert_false(w.counters);
	/* ... nor the whole span's left to be shown or stored */
	assert_int_equal(w.dataset_written, 0);
	assert_int_equal(w.zil_slog_bytes, 0);
	assert_true(w.arc_hit_ratio == -1);
	nas_amplification_of(&w, 4000, &a);
	assert_false(a.known);
	nas_window_free(&w);

	/* Readings 6 s apart around an edge (the loop's missed): none either. */
	w = (nas_window){.interval_s = 2, .counters = true};
	text = golden("zfs/zpool_iostat_stamped.txt", &len);
	assert_int_equal(nas_parse_iostat(text, len, &l, &w.timeline, &err), VS_OK);
	free(text);
	w.readings = (nas_readings){.v = malloc(2 * sizeof(r[0])), .n = 2};
	assert_non_null(w.readings.v);
	w.readings.v[0] = r[0];
	w.readings.v[1] = r[4];
	assert_true(nas_window_select(&w, t0 + 1.5, t0 + 5.5));
	assert_false(w.counters);
	nas_window_free(&w);
	nas_layout_free(&l);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_totals),
		cmocka_unit_test(test_counter_deltas),
		cmocka_unit_test(test_amplification_and_cache),
		cmocka_unit_test(test_sampler_around_a_run),
		cmocka_unit_test(test_sampler_that_dies),
		cmocka_unit_test(test_parked_words_check_their_numbers),
		cmocka_unit_test(test_sampler_reopens_a_cut_pair),
		cmocka_unit_test(test_sampler_without_stdin),
		cmocka_unit_test(test_window_selection),
		cmocka_unit_test(test_window_counters),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
