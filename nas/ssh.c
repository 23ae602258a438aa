/* Running one fixed command on the NAS through the system's ssh client, so
 * that the user's config, keys, agent, jump hosts and known_hosts apply and
 * nfsagent holds no secret.  No shell runs here: the words go to
 * posix_spawnp as they are.  ssh itself joins the remote words into one
 * line for the NAS's shell, which is why callers pass only fixed tokens and
 * names nas_name_ok accepted. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
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
	static const char *const words[] = {"ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10"};
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

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* "zpool list -Hpv tank" for messages. */
static void join_words(const char *const *words, char *buf, size_t size)
{
	size_t len = 0;
	buf[0] = '\0';
	for (size_t i = 0; words[i] && len + 1 < size; i++)
		len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? " " : "", words[i]);
}

typedef struct child {
	pid_t pid;
	int out_fd, err_fd;
} child;

static int spawn(const nas_target *t, const char *const *remote, child *c, vs_error *err)
{
	size_t n_remote = 0;
	while (remote[n_remote])
		n_remote++;
	char **argv = calloc(t->argc + n_remote + 2, sizeof(*argv));
	int out[2] = {-1, -1}, errp[2] = {-1, -1};
	if (!argv)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	memcpy(argv, t->argv, t->argc * sizeof(*argv));
	argv[t->argc] = "--";
	memcpy(argv + t->argc + 1, remote, n_remote * sizeof(*argv));
	int rc = VS_OK;
	if (pipe(out) != 0 || pipe(errp) != 0)
		rc = vs_fail(err, VS_ERR_FAULT, "pipe: %s", strerror(errno));
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	if (rc == VS_OK) {
		posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
		posix_spawn_file_actions_adddup2(&fa, out[1], 1);
		posix_spawn_file_actions_adddup2(&fa, errp[1], 2);
		posix_spawn_file_actions_addclose(&fa, out[0]);
		posix_spawn_file_actions_addclose(&fa, errp[0]);
		int e = posix_spawnp(&c->pid, argv[0], &fa, NULL, argv, environ);
		if (e != 0)
			rc = vs_fail(err, VS_ERR_FAULT, "cannot run %s: %s", argv[0], strerror(e));
	}
	posix_spawn_file_actions_destroy(&fa);
	free(argv);
	if (out[1] >= 0)
		close(out[1]);
	if (errp[1] >= 0)
		close(errp[1]);
	c->out_fd = out[0];
	c->err_fd = errp[0];
	if (rc != VS_OK) {
		if (out[0] >= 0)
			close(out[0]);
		if (errp[0] >= 0)
			close(errp[0]);
		c->out_fd = c->err_fd = -1;
	}
	return rc;
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

static run_end collect(const nas_target *t, child *c, nas_output *o)
{
	int64_t deadline = now_ms() + (int64_t)t->timeout_s * 1000;
	size_t err_len = 0;
	bool over = false, err_over = false;
	struct pollfd fds[2] = {{c->out_fd, POLLIN, 0}, {c->err_fd, POLLIN, 0}};
	run_end end = RUN_EXITED;
	while (fds[0].fd >= 0 || fds[1].fd >= 0) {
		int64_t left = deadline - now_ms();
		if (left <= 0) {
			end = RUN_TIMEOUT;
			break;
		}
		int ready = poll(fds, 2, (int)left);
		if (ready < 0 && errno != EINTR)
			break;
		for (int i = 0; ready > 0 && i < 2; i++) {
			if (fds[i].fd < 0 || !fds[i].revents)
				continue;
			bool more = i == 0 ? drain(fds[i].fd, &o->out, &o->len, t->max_output, &over)
			                   : drain(fds[i].fd, &o->errtext, &err_len, ERRTEXT_MAX, &err_over);
			if (!more) {
				close(fds[i].fd);
				fds[i].fd = -1;
			}
		}
		if (over) {
			end = RUN_TOO_LONG;
			break;
		}
	}
	for (int i = 0; i < 2; i++)
		if (fds[i].fd >= 0)
			close(fds[i].fd);
	if (end != RUN_EXITED)
		kill(c->pid, SIGKILL);
	int status;
	while (waitpid(c->pid, &status, 0) < 0 && errno == EINTR) {
	}
	o->status = end == RUN_EXITED && WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	return end;
}

int nas_run(const nas_target *t, const char *const *remote, nas_output *o, vs_error *err)
{
	char what[256];
	join_words(remote, what, sizeof(what));
	*o = (nas_output){.status = -1};
	child c;
	int rc = spawn(t, remote, &c, err);
	run_end end = rc == VS_OK ? collect(t, &c, o) : RUN_EXITED;
	if (rc == VS_OK && (!o->out || !o->errtext)) {
		/* Callers may read both as strings whatever came back. */
		if (!o->out)
			o->out = calloc(1, 1);
		if (!o->errtext)
			o->errtext = calloc(1, 1);
		if (!o->out || !o->errtext)
			rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	}
	if (rc == VS_OK && end == RUN_TIMEOUT)
		rc = vs_fail(err, VS_ERR_CONNECT, "no answer from %s in %d s", t->display, t->timeout_s);
	else if (rc == VS_OK && end == RUN_TOO_LONG)
		rc = vs_fail(err, VS_ERR_PROTOCOL, "%s printed more than %zu bytes", what, t->max_output);
	else if (rc == VS_OK && o->status != 0)
		rc = nas_explain(t->display, what, o->status, o->errtext, err);
	if (rc != VS_OK)
		vs_error_context(err, "running '%s' on %s", what, t->display);
	return rc;
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
	if (has(errtext, "REMOTE HOST IDENTIFICATION HAS CHANGED"))
		return vs_fail(err, VS_ERR_TLS,
		               "the host key of %s was refused: it is not the one known_hosts holds", where);
	if (has(errtext, "Host key verification failed"))
		return vs_fail(err, VS_ERR_TLS,
		               "the host key of %s was refused: it is not in known_hosts (connect once "
		               "with ssh to check and accept it)", where);
	if (has(errtext, "Permission denied"))
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

int nas_check_system(const nas_target *t, vs_error *err)
{
	static const char *const uname[] = {"uname", "-s", NULL};
	nas_output o;
	int rc = nas_run(t, uname, &o, err);
	/* The first contact: when it fails, the NAS was not reached at all. */
	if (rc != VS_OK)
		vs_error_context(err, "reaching the NAS");
	else {
		o.out[strcspn(o.out, "\r\n")] = '\0';
		if (strcmp(o.out, "FreeBSD") == 0)
			rc = vs_fail(err, VS_ERR_FAULT,
			             "%s runs FreeBSD (TrueNAS CORE): not supported yet, only Linux OpenZFS",
			             t->display);
		else if (strcmp(o.out, "Linux") != 0)
			rc = vs_fail(err, VS_ERR_FAULT, "%s runs '%.64s': not supported, only Linux OpenZFS",
			             t->display, o.out);
		if (rc != VS_OK)
			vs_error_context(err, "checking the NAS");
	}
	nas_output_free(&o);
	return rc;
}
