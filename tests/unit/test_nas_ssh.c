/* Reaching the NAS: the word splitter of --nas-command, the argv handed to
 * ssh, and the runner (output, exit status, time and size limits, one
 * clear reason for a failure).  A stand-in for ssh, `sh -c SCRIPT sh`,
 * receives exactly the words ssh would and answers as ssh does. */
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

static void assert_words(const char *line, const char *const *want, size_t n_want)
{
	char **words;
	size_t n;
	vs_error err = {0};
	assert_int_equal(nas_split_words(line, &words, &n, &err), VS_OK);
	assert_int_equal(n, n_want);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(words[i], want[i]);
	assert_null(words[n]);
	nas_words_free(&words, n);
}

static void test_split_words(void **state)
{
	(void)state;
	assert_words("ssh -J jump root@nas", (const char *[]){"ssh", "-J", "jump", "root@nas"}, 4);
	assert_words("  ssh\t-F '/tmp/my dir/cfg'  nas ",
	             (const char *[]){"ssh", "-F", "/tmp/my dir/cfg", "nas"}, 4);
	assert_words("a\"b c\"d 'x\"y' \"q\\\"\\$\\n\" e\\ f",
	             (const char *[]){"ab cd", "x\"y", "q\"$\\n", "e f"}, 4);
	/* Nothing is expanded: no shell runs. */
	assert_words("ssh $HOME `id` $(id) ~ *", (const char *[]){"ssh", "$HOME", "`id`", "$(id)", "~", "*"},
	             6);
	char **words;
	size_t n;
	vs_error err = {0};
	assert_int_equal(nas_split_words("ssh 'nas", &words, &n, &err), VS_ERR_USAGE);
	assert_string_equal(err.message, "a quote is not closed");
	assert_null(words);
	assert_int_equal(nas_split_words("ssh \"nas", &words, &n, &err), VS_ERR_USAGE);
	assert_int_equal(nas_split_words("  ", &words, &n, &err), VS_ERR_USAGE);
	assert_string_equal(err.message, "no command given");
}

static void assert_argv(const nas_target *t, const char *const *want, size_t n_want)
{
	assert_int_equal(t->argc, n_want);
	for (size_t i = 0; i < n_want; i++)
		assert_string_equal(t->argv[i], want[i]);
}

static void test_targets(void **state)
{
	(void)state;
	nas_target t;
	vs_error err = {0};
	assert_int_equal(nas_target_host(&t, "root@truenas.example", &err), VS_OK);
	assert_argv(&t, (const char *[]){"ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10", "-o",
	                                 "ServerAliveInterval=15", "root@truenas.example"}, 8);
	assert_string_equal(t.display, "root@truenas.example");
	assert_int_equal(t.timeout_s, NAS_TIMEOUT_DEFAULT_S);
	nas_target_free(&t);
	/* A host that ssh would read as an option, or that is two words. */
	assert_int_equal(nas_target_host(&t, "-oProxyCommand=id", &err), VS_ERR_USAGE);
	assert_string_equal(err.message, "'-oProxyCommand=id' is not a host name ([user@]host)");
	assert_int_equal(nas_target_host(&t, "nas;id", &err), VS_ERR_USAGE);
	assert_int_equal(nas_target_host(&t, "", &err), VS_ERR_USAGE);

	/* BatchMode goes first: ssh keeps an option's first value. */
	assert_int_equal(nas_target_command(&t, "/usr/bin/ssh -J jump -o BatchMode=no root@nas", &err),
	                 VS_OK);
	assert_argv(&t, (const char *[]){"/usr/bin/ssh", "-o", "BatchMode=yes", "-J", "jump", "-o",
	                                 "BatchMode=no", "root@nas"}, 8);
	assert_string_equal(t.display, "/usr/bin/ssh -J jump -o BatchMode=no root@nas");
	nas_target_free(&t);
	assert_int_equal(nas_target_command(&t, "my-wrapper nas", &err), VS_OK);
	assert_argv(&t, (const char *[]){"my-wrapper", "nas"}, 2);
	nas_target_free(&t);
	assert_int_equal(nas_target_command(&t, "ssh 'nas", &err), VS_ERR_USAGE);
}

/* A stand-in for ssh: sh -c SCRIPT sh, then "--" and the remote words. */
/* One command, as nas_run_all runs each. */
static int nas_run(const nas_target *t, const char *const *remote, nas_output *o, vs_error *err)
{
	nas_call c = {.remote = remote};
	int rc = nas_run_all(t, &c, 1);
	*o = c.out;
	*err = c.err;
	return rc;
}

static void fake(nas_target *t, const char *script)
{
	char line[1024];
	snprintf(line, sizeof(line), "sh -c '%s' sh", script);
	vs_error err = {0};
	assert_int_equal(nas_target_command(t, line, &err), VS_OK);
}

static void test_run_passes_words_verbatim(void **state)
{
	(void)state;
	nas_target t;
	fake(&t, "printf \"%s|\" \"$@\"; echo noise >&2");
	static const char *const cmd[] = {"zfs", "get", "-Hp", "a,b", "tank/vm", NULL};
	nas_output o;
	vs_error err = {0};
	assert_int_equal(nas_run(&t, cmd, &o, &err), VS_OK);
	assert_string_equal(o.out, "--|zfs|get|-Hp|a,b|tank/vm|");
	assert_int_equal(o.len, strlen(o.out));
	assert_string_equal(o.errtext, "noise\n");
	assert_int_equal(o.status, 0);
	nas_output_free(&o);
	nas_target_free(&t);
}

/* Runs a fake that fails, its waits on clock; returns its status and
 * keeps the message. */
static int fail_on(const char *script, nas_test_clock *clock, int step, vs_error *err)
{
	nas_target t;
	fake(&t, script);
	t.timeout_s = 2;
	nas_test_clock_use(clock, step, &t);
	static const char *const cmd[] = {"zpool", "list", "-Hpv", "tank", NULL};
	nas_output o;
	*err = (vs_error){0};
	int rc = nas_run(&t, cmd, &o, err);
	nas_output_free(&o);
	nas_target_free(&t);
	return rc;
}

static int fail_with(const char *script, vs_error *err)
{
	nas_test_clock clock;
	return fail_on(script, &clock, 0, err);
}

static void test_run_failures_have_one_reason(void **state)
{
	(void)state;
	vs_error err;
	char line[1600];
	assert_int_equal(fail_with("echo \"root@nas: Permission denied (publickey).\" >&2; exit 255",
	                           &err), VS_ERR_AUTH);
	assert_string_equal(err.message, "sh -c 'echo \"root@nas: Permission denied (publickey).\" >&2; "
	                                 "exit 255' sh refused the key (no password is ever asked): "
	                                 "root@nas: Permission denied (publickey).");
	assert_string_equal(err.context, "running 'zpool list -Hpv tank' on sh -c 'echo \"root@nas: "
	                                 "Permission denied (publickey).\" >&2; exit 255' sh");
	assert_int_equal(fail_with("echo \"Warning: Permanently added x\" >&2; echo \"ssh: connect to "
	                           "host nas port 22: Connection refused\" >&2; exit 255", &err),
	                 VS_ERR_CONNECT);
	assert_non_null(strstr(err.message, " is unreachable: ssh: connect to host nas port 22: "
	                                    "Connection refused"));
	assert_int_equal(fail_with("echo \"Host key verification failed.\" >&2; exit 255", &err),
	                 VS_ERR_HOSTKEY);
	assert_non_null(strstr(err.message, "was refused: it is not in known_hosts (connect once"));
	assert_int_equal(fail_with("echo \"@@@@@@@\" >&2; echo \"@    WARNING: REMOTE HOST IDENTIFICATION "
	                           "HAS CHANGED!     @\" >&2; echo \"Host key verification failed.\" >&2; "
	                           "exit 255", &err), VS_ERR_HOSTKEY);
	assert_non_null(strstr(err.message, "was refused: it is not the one known_hosts holds"));
	assert_int_equal(fail_with("echo \"bash: line 1: zpool: command not found\" >&2; exit 127",
	                           &err), VS_ERR_FAULT);
	assert_non_null(strstr(err.message, "zpool is missing on "));
	assert_int_equal(fail_with("echo \"cannot open tank: no such pool\" >&2; exit 1", &err),
	                 VS_ERR_FAULT);
	assert_string_equal(err.message, "zpool exited 1: cannot open tank: no such pool");
	/* ssh's words from the remote command are the command's failure, not ssh's. */
	assert_int_equal(fail_with("echo \"cat: /proc/x: Permission denied\" >&2; exit 1", &err),
	                 VS_ERR_FAULT);
	assert_string_equal(err.message, "zpool exited 1: cat: /proc/x: Permission denied");
	vs_error_format(&err, line, sizeof(line));
	assert_null(strchr(line, '\n'));
}

static void test_run_limits(void **state)
{
	(void)state;
	vs_error err;
	nas_test_clock clock;
	/* A child that never ends is killed at the budget, not waited for;
	 * asked once more (a busy NAS), it is killed at the budget again:
	 * twice 2 s of the test's clock, and its stops (SIGTERM, at most 2 s
	 * each before SIGKILL), not the child's 30 s. */
	assert_int_equal(fail_on("exec sleep 30", &clock, 100, &err), VS_ERR_CONNECT);
	assert_in_range(clock.now, 2 * 2000, 2 * (2000 + 2000 + 100));
	assert_non_null(strstr(err.message, " in 2 s (asked twice)"));

	nas_target t;
	fake(&t, "head -c 100000 /dev/zero");
	t.max_output = 4096;
	static const char *const cmd[] = {"cat", "x", NULL};
	nas_output o;
	assert_int_equal(nas_run(&t, cmd, &o, &err), VS_ERR_PROTOCOL);
	assert_string_equal(err.message, "cat x printed more than 4096 bytes");
	assert_int_equal(o.len, 4096);
	nas_output_free(&o);
	nas_target_free(&t);

	/* A process left behind that holds stderr (ssh's ControlPersist master)
	 * does not hold us: ssh's exit does. */
	fake(&t, "echo answer; sleep 30 >&2 & exit 0");
	nas_test_clock_use(&clock, 0, &t);
	assert_int_equal(nas_run(&t, cmd, &o, &err), VS_OK);
	assert_string_equal(o.out, "answer\n");
	assert_true(clock.now < t.timeout_s * 1000);  /* answered, not waited for to its budget */
	nas_output_free(&o);
	nas_target_free(&t);

	assert_int_equal(nas_target_command(&t, "/nonexistent/ssh nas", &err), VS_OK);
	assert_int_equal(nas_run(&t, cmd, &o, &err), VS_ERR_FAULT);
	nas_output_free(&o);
	nas_target_free(&t);
}

/* A fed job: lines sent reach its stdin, the line awaited is seen as it
 * comes; one that ended without it is not waited for, and a line sent to
 * it then is an error, never a SIGPIPE that would kill nfsagent. */
static void test_fed_job(void **state)
{
	(void)state;
	nas_target t;
	nas_test_clock clock;
	fake(&t, "read x; echo \"got $x\"; echo done; exec sleep 30");
	nas_test_clock_use(&clock, 0, &t);
	nas_job *j;
	vs_error err = {0};
	const char *const cmd[] = {"loop", NULL};
	assert_int_equal(nas_job_start(&t, cmd, NULL, true, &j, &err), VS_OK);
	assert_false(nas_job_await(j, "done", 100));  /* nothing sent yet */
	assert_int_equal(nas_job_say(j, "end", &err), VS_OK);
	assert_true(nas_job_await(j, "done", 5000));
	nas_output o;
	assert_int_equal(nas_job_finish(&j, 0, &o, &err), VS_OK);
	assert_true(o.stopped);
	assert_string_equal(o.out, "got end\ndone\n");
	nas_output_free(&o);
	nas_target_free(&t);

	/* The answer to a line is what comes after it: a "done" printed
	 * before the line was sent is not the answer.  The stand-in marks a
	 * file just before its second "done": the await saw that one. */
	char mark[64], script[160];
	snprintf(mark, sizeof(mark), "/tmp/nfsagent-unit-answer-%ld", (long)getpid());
	unlink(mark);
	snprintf(script, sizeof(script), "echo done; read x; sleep 0.3; : > %s; echo done; exec sleep 30",
	         mark);
	fake(&t, script);
	nas_test_clock_use(&clock, 0, &t);
	assert_int_equal(nas_job_start(&t, cmd, NULL, true, &j, &err), VS_OK);
	assert_true(nas_job_await(j, "done", 60000));  /* the first, nothing sent yet */
	assert_int_equal(nas_job_say(j, "go", &err), VS_OK);
	assert_true(nas_job_await(j, "done", 60000));
	assert_int_equal(access(mark, F_OK), 0);
	unlink(mark);
	assert_int_equal(nas_job_finish(&j, 0, &o, &err), VS_OK);
	assert_string_equal(o.out, "done\ndone\n");
	nas_output_free(&o);
	nas_target_free(&t);

	fake(&t, "echo partial; echo donenot; exit 3");
	nas_test_clock_use(&clock, 0, &t);
	assert_int_equal(nas_job_start(&t, cmd, NULL, true, &j, &err), VS_OK);
	/* ended without it: not waited for to the end of its time */
	assert_false(nas_job_await(j, "done", 60000));
	assert_true(clock.now < 60000);
	assert_int_equal(nas_job_say(j, "end", &err), VS_ERR_CONNECT);
	assert_int_equal(nas_job_finish(&j, 0, &o, &err), VS_ERR_FAULT);
	assert_false(o.stopped);
	assert_int_equal(o.status, 3);
	nas_output_free(&o);
	nas_target_free(&t);
}

/* Several commands at once: each gets what nas_run would give it alone,
 * one past its time stopped with nas_run's words (after it was asked
 * twice), one that printed too much refused so; the first failure in
 * their order is the answer, and the whole takes the slowest one's time,
 * not the sum.  At once: each stand-in logs its name, then waits (on the
 * wall, for at most the budget's naps) until all five have logged theirs;
 * one after another, the first would never see the others. */
static void test_run_all(void **state)
{
	(void)state;
	nas_target t;
	nas_test_clock clock;
	char log[64], script[512];
	snprintf(log, sizeof(log), "/tmp/nfsagent-unit-runall-%ld", (long)getpid());
	unlink(log);
	snprintf(script, sizeof(script),
	         "shift; echo $1 >> %s; until [ $(wc -l < %s) -ge 5 ]; do sleep 0.01; done; "
	         "case $1 in ok) echo fine;; slow) exec sleep 30;;"
	         " loud) head -c 5000 /dev/zero;; bad) echo \"no such pool\" >&2; exit 1;; esac",
	         log, log);
	fake(&t, script);
	t.timeout_s = 10;
	t.max_output = 4096;
	nas_test_clock_use(&clock, 0, &t);
	static const char *const ok[] = {"ok", "1", NULL}, *const slow[] = {"slow", NULL},
	                         *const loud[] = {"loud", NULL}, *const bad[] = {"bad", NULL};
	nas_call calls[] = {{.remote = ok}, {.remote = slow}, {.remote = loud}, {.remote = ok},
	                    {.remote = bad}};
	assert_int_equal(nas_run_all(&t, calls, 5), VS_ERR_CONNECT);  /* slow's, the first failure */
	/* the slow one's two budgets and its two stops (at most 2 s each), all
	 * of the others beside its first: less than three budgets */
	assert_in_range(clock.now, 2 * 10000, 3 * 10000 - 1);
	FILE *f = fopen(log, "r");
	char logged[128] = "";
	assert_non_null(f);
	assert_int_equal(fread(logged, 1, sizeof(logged) - 1, f) > 0, 1);
	fclose(f);
	unlink(log);
	assert_int_equal(strlen(logged), strlen("ok\nslow\nloud\nok\nbad\nslow\n"));
	assert_string_equal(logged + strlen(logged) - 5, "slow\n");  /* asked again, last */
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(calls[i].tries, i == 1 ? 2 : 1);
	char context[1100];
	assert_int_equal(calls[0].rc, VS_OK);
	assert_string_equal(calls[0].out.out, "fine\n");
	assert_int_equal(calls[1].rc, VS_ERR_CONNECT);
	snprintf(context, sizeof(context), "no answer from %s in 10 s (asked twice)", t.display);
	assert_string_equal(calls[1].err.message, context);
	snprintf(context, sizeof(calls[0].err.context), "running 'slow' on %s", t.display);
	assert_string_equal(calls[1].err.context, context);
	assert_int_equal(calls[2].rc, VS_ERR_PROTOCOL);
	assert_string_equal(calls[2].err.message, "loud printed more than 4096 bytes");
	assert_int_equal(calls[3].rc, VS_OK);
	assert_int_equal(calls[4].rc, VS_ERR_FAULT);
	assert_string_equal(calls[4].err.message, "bad exited 1: no such pool");
	snprintf(context, sizeof(calls[0].err.context), "running 'bad' on %s", t.display);
	assert_string_equal(calls[4].err.context, context);
	for (size_t i = 0; i < 5; i++)
		nas_output_free(&calls[i].out);

	/* One that prints past the limit and goes on is stopped at once, not
	 * copied on until the timeout (a pool's history of years). */
	nas_target_free(&t);
	fake(&t, "head -c 5000 /dev/zero; exec sleep 30");
	t.timeout_s = 60;
	t.max_output = 4096;
	nas_test_clock_use(&clock, 0, &t);
	assert_int_equal(nas_run_all(&t, calls, 1), VS_ERR_PROTOCOL);
	assert_true(clock.now < 60000);  /* the stop's SIGKILL, not the budget */
	assert_int_equal(calls[0].tries, 1);
	assert_string_equal(calls[0].err.message, "ok 1 printed more than 4096 bytes");
	nas_output_free(&calls[0].out);

	/* A command that cannot start is that call's failure, named as a run. */
	nas_target_free(&t);
	vs_error err = {0};
	assert_int_equal(nas_target_command(&t, "/nonexistent/ssh nas", &err), VS_OK);
	assert_int_equal(nas_run_all(&t, calls, 1), VS_ERR_FAULT);
	assert_string_equal(calls[0].err.message, "cannot run /nonexistent/ssh: No such file or directory");
	assert_string_equal(calls[0].err.context, "running 'ok 1' on /nonexistent/ssh nas");
	nas_output_free(&calls[0].out);
	nas_target_free(&t);
}

/* A path nfsagent passes as one word of a remote shell line (a NAS-local
 * job's file): nothing a shell, a glob or fio's options read. */
static void test_path_ok(void **state)
{
	(void)state;
	const char *good[] = {"/mnt/tank/vmware", "/mnt/tank/vm-16k.x_1", "/a/b"};
	const char *bad[] = {NULL, "", "/", "mnt/tank", "/mnt/tank/", "/mnt//tank", "/mnt/./tank",
	                     "/mnt/../etc", "/mnt/..", "/mnt/.", "/mnt/tank vm", "/mnt/$(reboot)",
	                     "/mnt/`id`", "/mnt/a;b", "/mnt/a*", "/mnt/a:b", "/mnt/'a'", "/-rf",
	                     "/mnt/a\nb", "/mnt/tank\n"};
	for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		assert_true(nas_path_ok(good[i]));
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(nas_path_ok(bad[i]));
	char longest[NAS_PATH_MAX + 2];
	memset(longest, 'a', sizeof(longest) - 1);
	longest[0] = '/';
	longest[NAS_PATH_MAX + 1] = '\0';
	assert_false(nas_path_ok(longest));
	longest[NAS_PATH_MAX] = '\0';
	assert_true(nas_path_ok(longest));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_split_words),
		cmocka_unit_test(test_targets),
		cmocka_unit_test(test_run_passes_words_verbatim),
		cmocka_unit_test(test_run_failures_have_one_reason),
		cmocka_unit_test(test_run_limits),
		cmocka_unit_test(test_fed_job),
		cmocka_unit_test(test_run_all),
		cmocka_unit_test(test_path_ok),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
