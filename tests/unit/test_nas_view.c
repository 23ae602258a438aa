/* The NAS's view of one export (nas_read_view, query.c): two rounds of
 * commands run at once, and failures in the order the commands would meet
 * them one by one.  A stand-in for ssh, `sh -c SCRIPT sh`, receives the
 * words ssh would and answers each command with the golden outputs of
 * tests/data/zfs, after a nap, writing its words to a log. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "nas_test_clock.h"
#include "nfsagent/nas.h"

/* The stand-in's answers, by the first two words; a test puts its own
 * branch in the place of one. */
#define ANSWER_UNAME "\"uname -s\") echo Linux;;"
#define ANSWER_LIST "\"zfs list\") cat $d/zfs_list_truenas.txt;;"
#define ANSWER_GET "\"zfs get\") cat $d/zfs_get_vmware64k.txt;;"
#define ANSWER_LAYOUT "\"zpool list\") cat $d/zpool_list_mirrors.txt;;"
#define ANSWER_HISTORY "\"env TZ=UTC\") cat $d/zpool_history_il.txt;;"
#define ANSWER_STATUS "\"zpool status\") cat $d/zpool_status_resilver.txt;;"
#define ANSWERS ANSWER_UNAME ANSWER_LIST ANSWER_GET ANSWER_LAYOUT ANSWER_HISTORY ANSWER_STATUS

static char log_path[64], times_path[64];

/* Every command logs its words, naps NAP seconds, then answers by the case
 * branches in answers; its nap's start and end go to times_path ("PID
 * start|end SECONDS"). */
static void stand_in(nas_target *t, const char *nap, const char *answers)
{
	char line[2048];
	snprintf(line, sizeof(line),
	         "sh -c 'd=%s/zfs; shift; echo \"$*\" >> %s; echo \"$$ start $(date +%%s.%%N)\" >> %s; "
	         "sleep %s; echo \"$$ end $(date +%%s.%%N)\" >> %s; case \"$1 $2\" in %s esac' sh",
	         TEST_DATA_DIR, log_path, times_path, nap, times_path, answers);
	vs_error err = {0};
	assert_int_equal(nas_target_command(t, line, &err), VS_OK);
	unlink(log_path);
	unlink(times_path);
}

/* The commands' naps from times_path: start and end, by command. */
typedef struct nap {
	long pid;
	double start, end;
} nap;

static size_t naps_read(nap *v, size_t max)
{
	FILE *f = fopen(times_path, "r");
	size_t n = 0;
	long pid;
	char what[8];
	double at;
	while (f && fscanf(f, "%ld %7s %lf", &pid, what, &at) == 3) {
		size_t i = 0;
		while (i < n && v[i].pid != pid)
			i++;
		if (i == n && n < max)
			v[n++] = (nap){pid, -1, -1};
		if (i < n)
			*(strcmp(what, "start") == 0 ? &v[i].start : &v[i].end) = at;
	}
	if (f)
		fclose(f);
	return n;
}

/* The commands the stand-in was asked for, sorted, one a line (malloc'd). */
static char *commands_asked(void)
{
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "sort %s", log_path);
	FILE *f = popen(cmd, "r");
	char *text = calloc(1, 4096);
	if (f && text)
		text[fread(text, 1, 4095, f)] = '\0';
	if (f)
		pclose(f);
	return text;
}

/* The commands the stand-in was asked for. */
static int commands_run(void)
{
	FILE *f = fopen(log_path, "r");
	int n = 0;
	for (int c; f && (c = fgetc(f)) != EOF;)
		n += c == '\n';
	if (f)
		fclose(f);
	return n;
}

static int setup(void **state)
{
	(void)state;
	snprintf(log_path, sizeof(log_path), "/tmp/nfsagent-test-view-%ld.log", (long)getpid());
	snprintf(times_path, sizeof(times_path), "/tmp/nfsagent-test-view-%ld.times", (long)getpid());
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	unlink(log_path);
	unlink(times_path);
	return 0;
}

/* Commands of 1 s each, in two rounds: the commands' own times say which
 * ran at once (not the wall time, which a busy machine stretches).  The
 * first round is what started before any command ended; every command of
 * a round ran beside the others of it, and the second round started after
 * the first had ended. */
static void test_two_rounds_at_once(void **state)
{
	(void)state;
	nas_target t;
	stand_in(&t, "1", ANSWERS);
	nas_view v;
	vs_error err = {0};
	assert_int_equal(nas_read_view(&t, "/mnt/tank/vmware/sub", &v, &err), VS_OK);
	nap naps[16];
	size_t n = naps_read(naps, 16);
	assert_int_equal(n, 6);
	double first_end = naps[0].end, first_round_end = 0, second_start = 1e18, second_end = 1e18;
	for (size_t i = 0; i < n; i++)
		first_end = naps[i].end < first_end ? naps[i].end : first_end;
	size_t first = 0;
	for (size_t i = 0; i < n; i++) {
		assert_true(naps[i].start > 0 && naps[i].end > naps[i].start);
		bool in_first = naps[i].start < first_end;
		first += in_first;
		if (in_first && naps[i].end > first_round_end)
			first_round_end = naps[i].end;
		if (!in_first && naps[i].start < second_start)
			second_start = naps[i].start;
		if (!in_first && naps[i].end < second_end)
			second_end = naps[i].end;
	}
	assert_in_range(first, 2, n - 1);        /* a round of several, and a second */
	assert_true(second_start >= first_round_end);  /* the second waited for the first */
	for (size_t i = 0; i < n; i++)             /* no two of the second in series */
		if (naps[i].start >= first_end)
			assert_true(naps[i].start < second_end);
	/* each with its whole words: the dataset's, the pool's */
	char *asked = commands_asked();
	assert_string_equal(asked, "env TZ=UTC zpool history -il tank\n"
	                           "uname -s\n"
	                           "zfs get -Hp -o property,value recordsize,sync,compression,atime,logbias,"
	                           "primarycache,special_small_blocks,objsetid tank/vmware\n"
	                           "zfs list -Hp -o name,mountpoint\n"
	                           "zpool list -Hpv tank\n"
	                           "zpool status tank\n");
	free(asked);
	assert_string_equal(v.dataset.name, "tank/vmware");
	assert_string_equal(v.dataset.mountpoint, "/mnt/tank/vmware");
	assert_int_equal(v.props.recordsize, 65536);
	assert_int_equal(v.props.objsetid, 54);
	assert_string_equal(v.layout.pool, "tank");
	assert_int_equal(nas_layout_count(&v.layout, NAS_CLASS_DATA), 2);
	/* 2026-11-20.09:12:44 UTC: zfs set recordsize=64K tank/vmware */
	assert_true(v.history_read);
	assert_int_equal(v.recordsize_set, 1795165964);
	assert_string_equal(v.activity.words, "resilver 43%");
	nas_view_free(&v);
	nas_target_free(&t);
}

/* A failure nas_read_view must give. */
typedef struct failure {
	const char *answers;     /* the stand-in's case branches */
	const char *path;
	int timeout_s;           /* the target's, when not 0 */
	size_t max_output;       /* the same */
	int status;
	/* The message and the context: [0], then the NAS's name and [1] when
	 * [1] is not NULL; [0] NULL: not checked. */
	const char *message[2], *context[2];
	int commands;            /* that the stand-in was asked for; 0: not counted */
} failure;

/* text is want's, cut as its room of size cuts it (the stand-in's name is
 * long). */
static void assert_named(const char *text, size_t size, const char *const want[2],
                         const nas_target *t)
{
	char buf[1400];
	if (!want[0])
		return;
	snprintf(buf, size < sizeof(buf) ? size : sizeof(buf), "%s%s%s", want[0],
	         want[1] ? t->display : "", want[1] ? want[1] : "");
	assert_string_equal(text, buf);
}

static void assert_fails(const failure *f)
{
	nas_target t;
	nas_test_clock clock;
	stand_in(&t, "0", f->answers);
	/* the budgets run on the test's clock, which counts the naps the
	 * runner takes (more than the wall's while it waits) */
	nas_test_clock_use(&clock, 0, &t);
	if (f->timeout_s)
		t.timeout_s = f->timeout_s;
	if (f->max_output)
		t.max_output = f->max_output;
	nas_view v;
	vs_error err = {0};
	assert_int_equal(nas_read_view(&t, f->path, &v, &err), f->status);
	assert_named(err.message, sizeof(err.message), f->message, &t);
	assert_named(err.context, sizeof(err.context), f->context, &t);
	if (f->commands)
		assert_int_equal(commands_run(), f->commands);
	nas_target_free(&t);
}

/* The first round: uname's failure wins over zfs list's, and a failed
 * round is the last (the second never runs). */
static void test_first_round_errors(void **state)
{
	(void)state;
	static const failure failures[] = {
		{"\"uname -s\") echo FreeBSD;; *) echo \"zfs: broken\" >&2; exit 1;;", "/mnt/tank/vmware",
		 0, 0, VS_ERR_FAULT,
		 {"", " runs FreeBSD (TrueNAS CORE): not supported yet, only Linux OpenZFS"},
		 {"checking the NAS", NULL}, 2},
		{"\"uname -s\") echo Darwin;;" ANSWER_LIST, "/mnt/tank/vmware", 0, 0, VS_ERR_FAULT,
		 {"", " runs 'Darwin': not supported, only Linux OpenZFS"}, {"checking the NAS", NULL}, 2},
		/* not reached: ssh's own failure, the same for both commands */
		{"*) echo \"root@nas: Permission denied (publickey).\" >&2; exit 255;;", "/mnt/tank/vmware",
		 0, 0, VS_ERR_AUTH,
		 {"", " refused the key (no password is ever asked): root@nas: Permission denied "
		      "(publickey)."}, {"reaching the NAS", NULL}, 2},
		/* uname past its time, asked twice: nas_run's words, and the NAS
		 * not reached (uname twice, zfs list once) */
		{"\"uname -s\") exec sleep 30;;" ANSWER_LIST, "/mnt/tank/vmware", 5, 0, VS_ERR_CONNECT,
		 {"no answer from ", " in 5 s (asked twice)"}, {"reaching the NAS", NULL}, 3},
		{ANSWER_UNAME "*) echo \"cannot list\" >&2; exit 1;;", "/mnt/tank/vmware", 0, 0,
		 VS_ERR_FAULT, {"zfs exited 1: cannot list", NULL},
		 {"running 'zfs list -Hp -o name,mountpoint' on ", ""}, 2},
		/* uname's answer fits in 64 bytes, zfs list's does not */
		{ANSWERS, "/mnt/tank/vmware", 0, 64, VS_ERR_PROTOCOL,
		 {"zfs list -Hp -o name,mountpoint printed more than 64 bytes", NULL},
		 {"running 'zfs list -Hp -o name,mountpoint' on ", ""}, 2},
		{ANSWERS, "/pool/nowhere", 0, 0, VS_ERR_NOT_FOUND,
		 {"no dataset of ", " is mounted at /pool/nowhere or above it"},
		 {"finding the dataset behind /pool/nowhere", NULL}, 2},
	};
	for (size_t i = 0; i < sizeof(failures) / sizeof(failures[0]); i++)
		assert_fails(&failures[i]);
}

/* The second round: zfs get's failure wins over zpool list's; the history
 * or the status failing fails nothing. */
static void test_second_round_errors(void **state)
{
	(void)state;
	static const failure failures[] = {
		{ANSWER_UNAME ANSWER_LIST "\"zfs get\") echo junk;; \"zpool list\") exit 127;;"
		 ANSWER_HISTORY, "/mnt/tank/vmware", 0, 0, VS_ERR_PROTOCOL, {NULL, NULL},
		 {"reading zfs get of ", ""}, 6},
		{ANSWER_UNAME ANSWER_LIST ANSWER_GET "\"zpool list\") exit 127;;" ANSWER_HISTORY,
		 "/mnt/tank/vmware", 0, 0, VS_ERR_FAULT,
		 {"zpool is missing on ", " (Linux OpenZFS is needed)"},
		 {"running 'zpool list -Hpv tank' on ", ""}, 6},
	};
	for (size_t i = 0; i < sizeof(failures) / sizeof(failures[0]); i++)
		assert_fails(&failures[i]);

	nas_target t;
	stand_in(&t, "0", ANSWER_UNAME ANSWER_LIST ANSWER_GET ANSWER_LAYOUT
	         "\"env TZ=UTC\") echo \"cannot open\" >&2; exit 1;; \"zpool status\") exit 1;;");
	nas_view v;
	vs_error err = {0};
	assert_int_equal(nas_read_view(&t, "/mnt/tank/vmware", &v, &err), VS_OK);
	assert_false(v.history_read);
	assert_int_equal(v.recordsize_set, 0);
	assert_int_equal(v.props.recordsize, 65536);
	assert_string_equal(v.activity.words, "");
	assert_int_equal(commands_run(), 6);
	nas_view_free(&v);
	nas_target_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_two_rounds_at_once),
		cmocka_unit_test(test_first_round_errors),
		cmocka_unit_test(test_second_round_errors),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
