/* Running fixed commands on the NAS (one, or several at once) through the
 * system's ssh client, so that the user's config, keys, agent, jump hosts
 * and known_hosts apply and nfsagent holds no secret.  No shell runs here:
 * the words go to posix_spawnp as they are.  ssh itself joins the remote
 * words into one line for the NAS's shell, which is why callers pass only
 * fixed tokens and names nas_name_ok accepted. */
/* mkostemp: a temporary file close-on-exec from its opening */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "nfsagent/nas.h"

extern char **environ;

enum { ERRTEXT_MAX = 2048 };

/* ---- words ------------------------------------------------------------ */

typedef struct word_list {
	char **v;
	size_t n, cap;
} word_list;

static bool words_push(word_list *w, char *s)
{
	if (!s)
		return false;
	if (w->n + 2 > w->cap) {
		size_t cap = w->cap ? w->cap * 2 : 8;
		char **v = realloc(w->v, cap * sizeof(*v));
		if (!v) {
			free(s);
			return false;
		}
		w->v = v;
		w->cap = cap;
	}
	w->v[w->n++] = s;
	w->v[w->n] = NULL;
	return true;
}

void nas_words_free(char ***words, size_t n)
{
	if (!*words)
		return;
	for (size_t i = 0; i < n; i++)
		free((*words)[i]);
	free(*words);
	*words = NULL;
}

/* One word from *p on (blanks skipped before it) into buf; *p moves past
 * it.  Returns 1 for a word, 0 at the end, -1 on an unclosed quote. */
static int next_word(const char **p, char *buf)
{
	const char *s = *p;
	while (*s == ' ' || *s == '\t' || *s == '\n')
		s++;
	if (!*s)
		return 0;
	size_t n = 0;
	while (*s && *s != ' ' && *s != '\t' && *s != '\n') {
		if (*s == '\'') {
			const char *end = strchr(s + 1, '\'');
			if (!end)
				return -1;
			memcpy(buf + n, s + 1, (size_t)(end - s - 1));
			n += (size_t)(end - s - 1);
			s = end + 1;
		} else if (*s == '"') {
			for (s++; *s && *s != '"'; s++) {
				if (*s == '\\' && s[1] && strchr("\"\\$`", s[1]))
					s++;
				buf[n++] = *s;
			}
			if (!*s)
				return -1;
			s++;
		} else if (*s == '\\' && s[1]) {
			buf[n++] = s[1];
			s += 2;
		} else {
			buf[n++] = *s++;
		}
	}
	buf[n] = '\0';
	*p = s;
	return 1;
}

int nas_split_words(const char *line, char ***words, size_t *n, vs_error *err)
{
	word_list w = {0};
	*words = NULL;
	*n = 0;
	/* A word is never longer than the line. */
	char *buf = malloc(strlen(line) + 1);
	if (!buf)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	int rc = VS_OK, got;
	while (rc == VS_OK && (got = next_word(&line, buf)) != 0) {
		if (got < 0)
			rc = vs_fail(err, VS_ERR_USAGE, "a quote is not closed");
		else if (!words_push(&w, strdup(buf)))
			rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	}
	free(buf);
	if (rc == VS_OK && w.n == 0)
		rc = vs_fail(err, VS_ERR_USAGE, "no command given");
	if (rc != VS_OK) {
		nas_words_free(&w.v, w.n);
		return rc;
	}
	*words = w.v;
	*n = w.n;
	return VS_OK;
}

/* ---- targets ---------------------------------------------------------- */

static int target_init(nas_target *t, const char *display, vs_error *err)
{
	*t = (nas_target){.timeout_s = NAS_TIMEOUT_DEFAULT_S, .max_output = NAS_MAX_OUTPUT_DEFAULT};
	t->display = strdup(display);
	return t->display ? VS_OK : vs_fail(err, VS_ERR_NOMEM, "out of memory");
}

int nas_target_host(nas_target *t, const char *host, vs_error *err)
{
	if (!host[0] || host[0] == '-' || strpbrk(host, " \t\n\r'\"\\;&|$`<>()"))
		return vs_fail(err, VS_ERR_USAGE, "'%s' is not a host name ([user@]host)", host);
	int rc = target_init(t, host, err);
	/* ServerAliveInterval: a session parked through a long run stays
	 * known to the firewalls between (an idle one may be dropped), and a
	 * NAS gone is found within a minute. */
	static const char *const words[] = {"ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10",
	                                    "-o", "ServerAliveInterval=15"};
	word_list w = {0};
	for (size_t i = 0; rc == VS_OK && i < sizeof(words) / sizeof(words[0]); i++)
		if (!words_push(&w, strdup(words[i])))
			rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	if (rc == VS_OK && !words_push(&w, strdup(host)))
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	t->argv = w.v;
	t->argc = w.n;
	if (rc != VS_OK)
		nas_target_free(t);
	return rc;
}

int nas_target_command(nas_target *t, const char *command, vs_error *err)
{
	char **words;
	size_t n;
	int rc = nas_split_words(command, &words, &n, err);
	if (rc != VS_OK)
		return rc;
	rc = target_init(t, command, err);
	const char *prog = strrchr(words[0], '/') ? strrchr(words[0], '/') + 1 : words[0];
	word_list w = {0};
	for (size_t i = 0; rc == VS_OK && i < n; i++) {
		if (!words_push(&w, strdup(words[i])))
			rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
		/* ssh takes the first value of an option: ours goes first, so
		 * that no config of the user's can bring a prompt back. */
		if (rc == VS_OK && i == 0 && strcmp(prog, "ssh") == 0 &&
		    (!words_push(&w, strdup("-o")) || !words_push(&w, strdup("BatchMode=yes"))))
			rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	}
	nas_words_free(&words, n);
	t->argv = w.v;
	t->argc = w.n;
	if (rc != VS_OK)
		nas_target_free(t);
	return rc;
}

void nas_target_free(nas_target *t)
{
	nas_words_free(&t->argv, t->argc);
	free(t->display);
	*t = (nas_target){0};
}

/* ---- running ---------------------------------------------------------- */

void nas_output_free(nas_output *o)
{
	free(o->out);
	free(o->errtext);
	*o = (nas_output){.status = -1};
}

/* ---- the clock -------------------------------------------------------- */

static int64_t real_now_ms(void *ctx)
{
	(void)ctx;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void real_nap_ms(void *ctx, int ms)
{
	(void)ctx;
	struct timespec nap = {ms / 1000, (long)(ms % 1000) * 1000 * 1000};
	nanosleep(&nap, NULL);
}

const nas_clock nas_real_clock = {real_now_ms, real_nap_ms, NULL};

static const nas_clock *clock_of(const nas_target *t)
{
	return t->clock ? t->clock : &nas_real_clock;
}

static int64_t now_ms(const nas_clock *c)
{
	return c->now_ms(c->ctx);
}

static void nap_ms(const nas_clock *c, int ms)
{
	c->nap_ms(c->ctx, ms);
}

/* "zpool list -Hpv tank" for messages. */
static void join_words(const char *const *words, char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; words[i] && len + 1 < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? " " : "", words[i]);
}

/* Starts target + "--" + remote with stdin from in_r (/dev/null when -1)
 * and stdout and stderr on out_w and err_w.  Our own fds are close-on-exec
 * (tmpfile_cloexec, SOCK_CLOEXEC): the child gets only these three. */
static int spawn_to(const nas_target *t, const char *const *remote, int in_r, int out_w, int err_w,
                    pid_t *pid, vs_error *err)
{
	size_t n_remote = 0;
	while (remote[n_remote])
		n_remote++;
	char **argv = calloc(t->argc + n_remote + 2, sizeof(*argv));
	if (!argv)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	memcpy(argv, t->argv, t->argc * sizeof(*argv));
	argv[t->argc] = "--";
	memcpy(argv + t->argc + 1, remote, n_remote * sizeof(*argv));
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	if (in_r >= 0)
		posix_spawn_file_actions_adddup2(&fa, in_r, 0);
	else
		posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	posix_spawn_file_actions_adddup2(&fa, out_w, 1);
	posix_spawn_file_actions_adddup2(&fa, err_w, 2);
	int e = posix_spawnp(pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	int rc = e ? vs_fail(err, VS_ERR_FAULT, "cannot run %s: %s", argv[0], strerror(e)) : VS_OK;
	free(argv);
	return rc;
}

/* An unlinked temporary file, close-on-exec from its opening: another
 * thread's ssh (a campaign reads the NAS beside its runs) never inherits
 * it, as it could between a tmpfile() and an fcntl(). */
static FILE *tmpfile_cloexec(void)
{
	const char *dir = getenv("TMPDIR");
	char path[4096];
	int n = snprintf(path, sizeof(path), "%s/nfsagent-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = n > 0 && (size_t)n < sizeof(path) ? mkostemp(path, O_CLOEXEC) : -1;
	if (fd < 0) {  /* as tmpfile() would: /tmp whatever TMPDIR says */
		snprintf(path, sizeof(path), "/tmp/nfsagent-XXXXXX");
		fd = mkostemp(path, O_CLOEXEC);
	}
	if (fd < 0)
		return NULL;
	unlink(path);
	FILE *f = fdopen(fd, "w+");
	if (!f) {
		int e = errno;
		close(fd);
		errno = e;
	}
	return f;
}

/* Appends what fd has to buf (up to max; past it *over is set and the rest
 * is read and dropped).  Returns false at end of file. */
static bool drain(int fd, char **buf, size_t *len, size_t max, bool *over)
{
	char chunk[16384];
	ssize_t got = read(fd, chunk, sizeof(chunk));
	if (got < 0)
		return errno == EINTR || errno == EAGAIN;
	if (got == 0)
		return false;
	size_t keep = *len + (size_t)got > max ? max - *len : (size_t)got;
	if (keep < (size_t)got)
		*over = true;
	if (keep) {
		char *b = realloc(*buf, *len + keep + 1);
		if (!b) {
			*over = true;
			return true;
		}
		memcpy(b + *len, chunk, keep);
		*len += keep;
		b[*len] = '\0';
		*buf = b;
	}
	return true;
}

typedef enum run_end { RUN_EXITED, RUN_TIMEOUT, RUN_TOO_LONG } run_end;

/* ---- background jobs ---------------------------------------------------- */

/* A command that runs beside the benchmark (zpool iostat for the run's
 * window).  Its output goes to unlinked temporary files, not pipes: nobody
 * reads it until the end, and a full pipe would stall the sampler and skew
 * its intervals.  A fed job's stdin is a socket we hold, so that lines can
 * be sent to it (a socket, not a pipe: a write to a job that is gone fails
 * with EPIPE instead of raising SIGPIPE here). */
struct nas_job {
	pid_t pid;
	FILE *out, *errs;
	int in;       /* our end of its stdin; -1 when not fed */
	off_t said;   /* its stdout's size when we last sent it a line (0: none sent) */
	off_t seen;   /* how far nas_job_await has looked since then */
	bool reaped;  /* it ended, seen by nas_job_await: status holds how */
	int status;
	size_t max_output;
	const nas_clock *clock;  /* the target's */
	char what[400], where[256];
};

static void job_free(nas_job *j)
{
	if (j->out)
		fclose(j->out);
	if (j->errs)
		fclose(j->errs);
	if (j->in >= 0)
		close(j->in);
	free(j);
}

int nas_job_start(const nas_target *t, const char *const *remote, const char *what, bool fed,
                  nas_job **out, vs_error *err)
{
	nas_job *j = calloc(1, sizeof(*j));
	*out = NULL;
	if (!j)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	j->in = -1;
	if (what)
		snprintf(j->what, sizeof(j->what), "%s", what);
	else
		join_words(remote, j->what, sizeof(j->what));
	snprintf(j->where, sizeof(j->where), "%s", t->display);
	j->max_output = t->max_output;
	j->clock = clock_of(t);
	j->out = tmpfile_cloexec();
	j->errs = tmpfile_cloexec();
	int in[2] = {-1, -1};
	int rc = j->out && j->errs ? VS_OK : vs_fail(err, VS_ERR_FAULT, "tmpfile: %s", strerror(errno));
	if (rc == VS_OK && fed && socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, in) != 0)
		rc = vs_fail(err, VS_ERR_FAULT, "socketpair: %s", strerror(errno));
	if (rc == VS_OK) {
		rc = spawn_to(t, remote, in[1], fileno(j->out), fileno(j->errs), &j->pid, err);
	}
	if (in[1] >= 0)
		close(in[1]);
	j->in = in[0];
	if (rc != VS_OK) {
		vs_error_context(err, "starting '%s' on %s", j->what, t->display);
		job_free(j);
		return rc;
	}
	*out = j;
	return VS_OK;
}

void nas_job_name(nas_job *j, const char *what)
{
	snprintf(j->what, sizeof(j->what), "%s", what);
}

int nas_job_say(nas_job *j, const char *line, vs_error *err)
{
	char buf[NAS_LINE_MAX + 2];
	int n = snprintf(buf, sizeof(buf), "%s\n", line);
	if (j->in < 0)
		return vs_fail(err, VS_ERR_USAGE, "'%s' takes no input", j->what);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return vs_fail(err, VS_ERR_USAGE, "a line for '%s' is longer than %d bytes", j->what,
		               NAS_LINE_MAX);
	/* what it prints from here on answers this line */
	struct stat st;
	j->said = j->seen = fstat(fileno(j->out), &st) == 0 ? st.st_size : 0;
	if (send(j->in, buf, (size_t)n, MSG_NOSIGNAL) != n)
		return vs_fail(err, VS_ERR_CONNECT, "'%s' on %s takes no more input: %s", j->what, j->where,
		               strerror(errno));
	return VS_OK;
}

/* Whether the job's stdout holds "LINE\n" at a line's start at or past
 * j->said (pread: the job writes through the same file offset, which must
 * not move); j->seen advances past what was looked at. */
static bool printed_line(nas_job *j, const char *line)
{
	char chunk[8192];
	size_t want = strlen(line);
	for (;;) {
		/* a line may begin in what the last look left: look back a line's
		 * length, and one byte more for the newline before it */
		off_t back = j->seen - (off_t)want - 1, at = back > j->said - 1 ? back : j->said - 1;
		at = at < 0 ? 0 : at;
		ssize_t got = pread(fileno(j->out), chunk, sizeof(chunk) - 1, at);
		if (got <= 0)
			return false;
		chunk[got] = '\0';
		for (char *p = chunk; (p = strstr(p, line)) != NULL; p++) {
			off_t start = at + (p - chunk);
			bool line_start = start == 0 || (p > chunk && p[-1] == '\n');
			if (start >= j->said && line_start && p[want] == '\n')
				return true;
		}
		j->seen = at + got;
		if ((size_t)got < sizeof(chunk) - 1)
			return false;
	}
}

bool nas_job_running(nas_job *j)
{
	if (!j->reaped && waitpid(j->pid, &j->status, WNOHANG) == j->pid)
		j->reaped = true;
	return !j->reaped;
}

int nas_job_exit(nas_job *j)
{
	return nas_job_running(j) || !WIFEXITED(j->status) ? -1 : WEXITSTATUS(j->status);
}

bool nas_job_await(nas_job *j, const char *line, int wait_ms)
{
	int64_t deadline = now_ms(j->clock) + wait_ms;
	for (;;) {
		if (printed_line(j, line))
			return true;
		/* ended: what it printed is all there is (one last look) */
		if (!nas_job_running(j))
			return printed_line(j, line);
		if (now_ms(j->clock) >= deadline)
			return false;
		nap_ms(j->clock, 2);
	}
}

/* Waits for pid until deadline (ms on c); true when it ended. */
static bool wait_until(const nas_clock *c, pid_t pid, int64_t deadline, int *status)
{
	for (;;) {
		pid_t got = waitpid(pid, status, WNOHANG);
		if (got == pid || (got < 0 && errno != EINTR))
			return true;
		if (now_ms(c) >= deadline)
			return false;
		/* short: a stopped ssh ends within milliseconds, and the run waits */
		nap_ms(c, 5);
	}
}

/* The whole of f (up to max bytes; *over past it), NUL-terminated. */
static char *slurp(FILE *f, size_t max, size_t *len, bool *over)
{
	char *buf = NULL;
	*len = 0;
	*over = false;
	int fd = fileno(f);
	if (lseek(fd, 0, SEEK_SET) != 0)
		return calloc(1, 1);
	while (drain(fd, &buf, len, max, over) && !*over) {
	}
	return buf ? buf : calloc(1, 1);
}

/* Waits up to wait_ms for j to end, else stops it (SIGTERM, SIGKILL 2 s
 * later); what it printed into o.  RUN_TOO_LONG when that passed the
 * target's max_output, RUN_TIMEOUT when it was stopped. */
static run_end job_end(nas_job *j, int wait_ms, nas_output *o)
{
	int status = j->status;
	*o = (nas_output){.status = -1};
	bool ended = j->reaped || wait_until(j->clock, j->pid, now_ms(j->clock) + wait_ms, &status);
	if (!ended) {
		/* ssh ends the remote command with its session. */
		kill(j->pid, SIGTERM);
		if (!wait_until(j->clock, j->pid, now_ms(j->clock) + 2000, &status)) {
			kill(j->pid, SIGKILL);
			while (waitpid(j->pid, &status, 0) < 0 && errno == EINTR) {
			}
		}
	}
	o->stopped = !ended;
	o->status = ended && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	size_t err_len;
	bool over, err_over;
	o->out = slurp(j->out, j->max_output, &o->len, &over);
	o->errtext = slurp(j->errs, ERRTEXT_MAX, &err_len, &err_over);
	return over ? RUN_TOO_LONG : ended ? RUN_EXITED : RUN_TIMEOUT;
}

/* The verdict on j, which ended so: one reason, named by what it ran and
 * where (the NAS's name: the target's whole, or the job's copy).  A job
 * stopped at its time (RUN_TIMEOUT) failed when it had timeout_s to answer
 * (nas_run_all; tries: how many times it was asked), not when we stopped
 * it (nas_job_finish: 0). */
static int verdict(const nas_job *j, const char *where, run_end end, const nas_output *o,
                   int timeout_s, int tries, vs_error *err)
{
	int rc = VS_OK;
	if (!o->out || !o->errtext)
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	else if (end == RUN_TIMEOUT && timeout_s > 0)
		rc = vs_fail(err, VS_ERR_CONNECT, "no answer from %s in %d s%s", where, timeout_s,
		             tries > 1 ? " (asked twice)" : "");
	else if (end == RUN_TOO_LONG)
		rc = vs_fail(err, VS_ERR_PROTOCOL, "%s printed more than %zu bytes", j->what, j->max_output);
	else if (end == RUN_EXITED && o->status != 0)
		rc = nas_explain(where, j->what, o->status, o->errtext, err);
	if (rc != VS_OK)
		vs_error_context(err, "running '%s' on %s", j->what, where);
	return rc;
}

int nas_job_finish(nas_job **job, int wait_ms, nas_output *o, vs_error *err)
{
	nas_job *j = *job;
	int rc = verdict(j, j->where, job_end(j, wait_ms, o), o, 0, 1, err);
	job_free(j);
	*job = NULL;
	return rc;
}

/* ---- several at once ---------------------------------------------------- */

/* Waits until deadline for jobs[] (NULL: one that did not start) to end,
 * killing at once any that printed past the target's limit: a pool's
 * history of years is not copied whole to be refused. */
static void watch(const nas_clock *c, nas_job *const *jobs, size_t n, int64_t deadline)
{
	for (;;) {
		bool running = false;
		for (size_t i = 0; i < n; i++) {
			struct stat st;
			if (!jobs[i] || !nas_job_running(jobs[i]))
				continue;
			if (fstat(fileno(jobs[i]->out), &st) == 0 && (size_t)st.st_size > jobs[i]->max_output)
				kill(jobs[i]->pid, SIGKILL);  /* job_end finds it over the limit */
			else
				running = true;
		}
		if (!running || now_ms(c) >= deadline)
			return;
		nap_ms(c, 5);
	}
}

/* A fed job's whole input, then its end: the socket's buffer holds far
 * more than the few KiB of JSON a call sends.  One that takes less ends
 * with what it read: its verdict says why. */
static void feed(nas_job *j, const char *input)
{
	size_t len = strlen(input);
	while (len > 0) {
		ssize_t n = send(j->in, input, len, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		input += n;
		len -= (size_t)n;
	}
	shutdown(j->in, SHUT_WR);
}

/* One round: the calls that again[] marks (all when NULL) run at once,
 * each marked timed out when it gave no answer in the target's time. */
static void run_round(const nas_target *t, nas_call *calls, size_t n, const bool *again,
                      bool *timed_out)
{
	const nas_clock *c = clock_of(t);
	nas_job **jobs = calloc(n ? n : 1, sizeof(*jobs));
	for (size_t i = 0; i < n; i++) {
		if (again && !again[i])
			continue;
		calls[i].tries++;
		calls[i].out = (nas_output){.status = -1};
		calls[i].err = (vs_error){0};
		calls[i].rc = jobs ? nas_job_start(t, calls[i].remote, NULL, calls[i].input != NULL,
		                                   &jobs[i], &calls[i].err)
		                   : vs_fail(&calls[i].err, VS_ERR_NOMEM, "out of memory");
		if (calls[i].rc == VS_OK && calls[i].input)
			feed(jobs[i], calls[i].input);
	}
	/* They began together: each has the target's time from then. */
	int64_t deadline = now_ms(c) + (int64_t)t->timeout_s * 1000;
	if (jobs)
		watch(c, jobs, n, deadline);
	for (size_t i = 0; i < n; i++) {
		nas_call *call = &calls[i];
		if (again && !again[i])
			continue;
		timed_out[i] = false;  /* (again may be timed_out: read first) */
		if (call->rc == VS_OK) {
			int64_t left = deadline - now_ms(c);
			run_end end = job_end(jobs[i], left > 0 ? (int)left : 0, &call->out);
			timed_out[i] = end == RUN_TIMEOUT;
			call->rc = verdict(jobs[i], t->display, end, &call->out, t->timeout_s, call->tries,
			                   &call->err);
			job_free(jobs[i]);
		} else {  /* it could not start: named as a run of it */
			char what[256];
			join_words(call->remote, what, sizeof(what));
			vs_error_context(&call->err, "running '%s' on %s", what, t->display);
		}
	}
	free(jobs);
}

/* Background jobs, not pipes and poll: their output waits in files until
 * each ends (a ControlPersist master ssh leaves behind, holding stderr,
 * holds nobody: each job's end is its ssh's exit).  A busy NAS may answer
 * late: the calls that got no answer in time are asked once more. */
int nas_run_all(const nas_target *t, nas_call *calls, size_t n)
{
	bool *timed_out = calloc(n ? n : 1, sizeof(*timed_out));
	for (size_t i = 0; i < n; i++)
		calls[i].tries = 0;
	if (!timed_out) {
		for (size_t i = 0; i < n; i++) {
			calls[i].out = (nas_output){.status = -1};
			calls[i].rc = vs_fail(&calls[i].err, VS_ERR_NOMEM, "out of memory");
		}
		return n ? VS_ERR_NOMEM : VS_OK;
	}
	run_round(t, calls, n, NULL, timed_out);
	bool any = false;
	for (size_t i = 0; i < n; i++)
		if (timed_out[i] && calls[i].once)
			timed_out[i] = false;  /* a change may have been made: read, not redone */
		else if (timed_out[i]) {
			nas_output_free(&calls[i].out);
			any = true;
		}
	if (any)
		run_round(t, calls, n, timed_out, timed_out);
	free(timed_out);
	int first = VS_OK;
	for (size_t i = 0; i < n && first == VS_OK; i++)
		first = calls[i].rc;
	return first;
}

/* ---- why it failed ----------------------------------------------------- */

/* The first line of stderr that says something: ssh's notices about
 * adding a host key are not the reason. */
static void first_line(const char *text, char *buf, size_t size)
{
	buf[0] = '\0';
	for (const char *p = text ? text : ""; *p;) {
		size_t n = strcspn(p, "\r\n");
		if (n && strncmp(p, "Warning: Permanently added", 26) != 0) {
			snprintf(buf, size, "%.*s", (int)n, p);
			return;
		}
		p += n;
		p += strspn(p, "\r\n");
	}
}

static bool has(const char *text, const char *what)
{
	return text && strstr(text, what);
}

int nas_explain(const char *where, const char *what, int status, const char *errtext,
                vs_error *err)
{
	char line[512], prog[64];
	first_line(errtext, line, sizeof(line));
	snprintf(prog, sizeof(prog), "%.*s", (int)strcspn(what, " "), what);
	/* ssh exits 255 for its own failures; the same words from the remote
	 * command ("cat: x: Permission denied") are that command's. */
	if (status == 255 && has(errtext, "REMOTE HOST IDENTIFICATION HAS CHANGED"))
		return vs_fail(err, VS_ERR_HOSTKEY,
		               "the host key of %s was refused: it is not the one known_hosts holds", where);
	if (status == 255 && has(errtext, "Host key verification failed"))
		return vs_fail(err, VS_ERR_HOSTKEY,
		               "the host key of %s was refused: it is not in known_hosts (connect once "
		               "with ssh to check and accept it)", where);
	if (status == 255 && has(errtext, "Permission denied"))
		return vs_fail(err, VS_ERR_AUTH,
		               "%s refused the key (no password is ever asked): %s", where, line);
	if (status == 255)
		return vs_fail(err, VS_ERR_CONNECT, "%s is unreachable: %s", where,
		               line[0] ? line : "ssh failed");
	if (status == 127 || has(errtext, "command not found") || has(errtext, ": not found"))
		return vs_fail(err, VS_ERR_FAULT, "%s is missing on %s (Linux OpenZFS is needed)", prog,
		               where);
	if (status < 0)
		return vs_fail(err, VS_ERR_FAULT, "ssh to %s was killed", where);
	return vs_fail(err, VS_ERR_FAULT, "%s exited %d%s%s", prog, status, line[0] ? ": " : "", line);
}
