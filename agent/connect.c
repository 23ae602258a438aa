/* Connection settings from flags, NFSAGENT_* and GOVC_* environment, and the
 * password from the environment, a file or a prompt: never from argv. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include "connect.h"
#include "cmd/cmd.h"
#include "output.h"

enum { MAX_PAGE_SIZE = 100000 };

static void set(char **field, const char *value)
{
	free(*field);
	*field = value ? strdup(value) : NULL;
}

/* A whole number in [min, max]: an int field would wrap a larger one. */
static int parse_bounded(const char *flag, const char *what, const char *arg, long min, long max,
                         long *v, na_outcome *out)
{
	if (na_parse_long(arg, min, max, v))
		return 1;
	na_usage_error(out, "%s wants %s from %ld to %ld, not '%s'", flag, what, min, max, arg);
	return -1;
}

int na_conn_option(na_conn *conn, int opt, const char *arg, na_outcome *out)
{
	long v = 0;
	int rc;
	switch (opt) {
	case NA_OPT_URL: set(&conn->url, arg); return 1;
	case NA_OPT_USERNAME: set(&conn->username, arg); return 1;
	case NA_OPT_PASSWORD_FILE: conn->password_file = arg; return 1;
	case NA_OPT_THUMBPRINT: set(&conn->thumbprint, arg); return 1;
	case NA_OPT_CACERT: set(&conn->cacert, arg); return 1;
	case NA_OPT_INSECURE: conn->insecure = true; return 1;
	case NA_OPT_TRACE: conn->trace_path = arg; return 1;
	case NA_OPT_JSON: conn->json = true; return 1;
	case NA_OPT_TIMEOUT:
		/* a day: more is a typo, and seconds * 1000 must fit a long */
		rc = parse_bounded("--timeout", "seconds", arg, 1, VS_MAX_CALL_TIMEOUT_S, &v, out);
		conn->timeout_s = v;
		return rc;
	case NA_OPT_PAGE_SIZE:
		rc = parse_bounded("--page-size", "a number of objects", arg, 1, MAX_PAGE_SIZE, &v, out);
		conn->page_size = (int)v;
		return rc;
	default:
		return 0;
	}
}

/* getopt takes "--password SECRET" for an abbreviation of --password-file
 * (and "--guest-password" of --guest-password-file), and would then report
 * the secret as a file it cannot read.  True after refusing such a flag,
 * without repeating its value. */
static bool password_flag(const char *token, const struct option *o, na_outcome *out)
{
	static const char suffix[] = "password-file";
	size_t name = strlen(o->name), typed = strcspn(token + 2, "=");
	if (name < strlen(suffix) || strcmp(o->name + name - strlen(suffix), suffix) != 0 ||
	    typed > name - strlen("-file"))
		return false;
	char env[64];
	int n = snprintf(env, sizeof(env), "NFSAGENT_%.*s", (int)(name - strlen("-file")), o->name);
	for (int i = 0; i < n && i < (int)sizeof(env); i++)
		env[i] = env[i] == '-' ? '_' : (char)toupper((unsigned char)env[i]);
	na_usage_error(out, "there is no --%.*s flag (a command line is visible to other users): "
	               "use --%s FILE or set %s", (int)(name - strlen("-file")), o->name, o->name, env);
	return true;
}

/* A flag naming something in vSphere (or a user) takes no control
 * character: vCenter would answer with an XML syntax error, a terminal
 * would run it.  Said before anything is sent. */
static bool bad_name(const struct option *o, const char *arg, na_outcome *out)
{
	static const char *const names[] = {"vm", "datastore", "from-datastore", "host", "name",
	                                    "server", "path", "guest-user", "username", NULL};
	size_t i = 0;
	while (names[i] && strcmp(names[i], o->name) != 0)
		i++;
	long bad = names[i] && arg ? na_bad_text_at(arg) : -1;
	if (bad >= 0)
		na_usage_error(out, "--%s has a control character or is not UTF-8 (byte 0x%02x): names "
		               "have none", o->name, (unsigned char)arg[bad]);
	return bad >= 0;
}

int na_parse_options(na_conn *conn, int argc, char **argv, const struct option *longopts,
                     const char *usage,
                     int (*other)(int opt, const char *arg, void *ud, na_outcome *out), void *ud,
                     na_outcome *out)
{
	int opt, longindex = -1;
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":", longopts, &longindex)) != -1) {
		/* "--flag VALUE" leaves optind past the value, "--flag=VALUE" not */
		const char *token = optarg && optarg == argv[optind - 1] ? argv[optind - 2] : argv[optind - 1];
		bool matched = opt != '?' && opt != ':' && longindex >= 0;
		if (matched && (password_flag(token, &longopts[longindex], out) ||
		                bad_name(&longopts[longindex], optarg, out)))
			return -1;
		longindex = -1;
		if (opt == NA_OPT_HELP) {
			fputs(usage, stdout);
			return 0;
		}
		if (opt == '?' || opt == ':') {
			na_usage_error(out, opt == '?' ? "unknown option '%s'" : "option '%s' needs a value",
			               argv[optind - 1]);
			return -1;
		}
		int rc = na_conn_option(conn, opt, optarg, out);
		if (rc == 0)
			rc = other ? other(opt, optarg, ud, out) : 0;
		if (rc < 0)
			return -1;
		if (rc == 0) {
			na_usage_error(out, "unexpected option '%s'", argv[optind - 1]);
			return -1;
		}
	}
	return 1;
}

int na_parse_local_options(int argc, char **argv, const struct option *longopts,
                           const char *usage,
                           int (*other)(int opt, const char *arg, void *ud, na_outcome *out),
                           void *ud, bool *json, na_outcome *out)
{
	na_conn conn = {0};
	int go = na_parse_options(&conn, argc, argv, longopts, usage, other, ud, out);
	if (json)
		*json = conn.json;
	na_conn_close(&conn, NULL);
	if (go > 0 && optind < argc) {
		na_usage_error(out, "unexpected argument '%s'", argv[optind]);
		return -1;
	}
	return go;
}

vs_status na_command(const na_command_spec *spec, void *args, int argc, char **argv,
                     na_outcome *out)
{
	na_conn conn = {0};
	vs_client *c = NULL;
	int go = na_parse_options(&conn, argc, argv, spec->longopts, spec->usage, spec->option, args, out);
	vs_status rc = go >= 0 ? VS_OK : out->err.status != VS_OK ? out->err.status : VS_ERR_USAGE;
	if (go > 0 && spec->check)
		rc = spec->check(args, argc - optind, argv + optind, out);
	else if (go > 0 && optind < argc)
		rc = na_usage_error(out, "unexpected argument '%s'", argv[optind]);
	if (go > 0 && rc == VS_OK)
		rc = na_conn_open(&conn, &c, &out->err);
	if (go > 0 && rc == VS_OK)
		rc = spec->run(c, args, conn.json, out);
	na_conn_close(&conn, &c);
	return rc;
}

int na_host_choice_option(na_host_choice *choice, int opt, const char *arg)
{
	switch (opt) {
	case NA_OPT_HOST: choice->host = arg; return 1;
	case NA_OPT_CLUSTER: choice->cluster = arg; return 1;
	case NA_OPT_ALL_HOSTS: choice->all = true; return 1;
	default: return 0;
	}
}

vs_status na_host_choice_check(const na_host_choice *choice, na_outcome *out)
{
	if (!!choice->host + !!choice->cluster + choice->all != 1)
		return na_usage_error(out, "say where: one of --host, --cluster or --all-hosts");
	return VS_OK;
}

static const char *env2(const char *ours, const char *govc)
{
	const char *v = getenv(ours);
	if (v && *v)
		return v;
	v = govc ? getenv(govc) : NULL;
	return v && *v ? v : NULL;
}

static bool env_true(const char *v)
{
	return v && (strcmp(v, "1") == 0 || strcasecmp(v, "true") == 0 || strcasecmp(v, "yes") == 0);
}

/* Takes "user:password@" out of a URL (GOVC_URL allows it).  The host
 * follows the last '@': a user such as administrator@vsphere.local is often
 * typed without escaping its '@', and a password may hold a '/' (pa/ss),
 * so the path cannot be told before the '@' is found.  An '@' is the end of
 * credentials only when the user before it (up to a ':') has no '/': one
 * in a path or query (/sdk?x=a@b) is not. */
static int split_userinfo(na_conn *conn, bool from_argv, vs_error *err)
{
	char *scheme_end = strstr(conn->url, "://");
	char *host = scheme_end ? scheme_end + 3 : conn->url;
	char *at = strrchr(host, '@');
	size_t user_len = at ? strcspn(host, ":@") : 0;
	if (!at || memchr(host, '/', user_len))
		return VS_OK;
	*at = '\0';
	char *colon = strchr(host, ':');
	if (colon) {
		if (from_argv)
			return vs_fail(err, VS_ERR_USAGE,
			               "do not put the password in --url: use NFSAGENT_PASSWORD or --password-file");
		*colon = '\0';
		if (!conn->password)
			conn->password = strdup(colon + 1);
	}
	if (!conn->username)
		conn->username = strdup(host);
	memmove(host, at + 1, strlen(at + 1) + 1);
	return VS_OK;
}

char *na_read_secret(const char *path, vs_error *err)
{
	FILE *f = fopen(path, "r");
	if (!f) {
		vs_fail(err, VS_ERR_USAGE, "cannot read password file %s: %s", path, strerror(errno));
		return NULL;
	}
	struct stat st;
	if (fstat(fileno(f), &st) == 0 && (st.st_mode & 077))
		na_warn("password file %s is readable by others; chmod 600 it", path);
	char *line = NULL;
	size_t cap = 0;
	ssize_t n = getline(&line, &cap, f);
	fclose(f);
	if (n < 0) {
		free(line);
		vs_fail(err, VS_ERR_USAGE, "password file %s is empty", path);
		return NULL;
	}
	line[strcspn(line, "\r\n")] = '\0';
	return line;
}

static char *prompt_password(const char *user, const char *url)
{
	int fd = open("/dev/tty", O_RDWR | O_NOCTTY);
	if (fd < 0)
		return NULL;
	struct termios old, quiet;
	bool echo_off = tcgetattr(fd, &old) == 0;
	if (echo_off) {
		quiet = old;
		quiet.c_lflag &= ~(tcflag_t)ECHO;
		tcsetattr(fd, TCSAFLUSH, &quiet);
	}
	dprintf(fd, "Password for %s at %s: ", user, url);
	char buf[512];
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	if (echo_off)
		tcsetattr(fd, TCSAFLUSH, &old);
	dprintf(fd, "\n");
	close(fd);
	if (n <= 0)
		return NULL;
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	char *p = strdup(buf);
	memset(buf, 0, sizeof(buf));
	return p;
}

static vs_status fill_from_env(na_conn *conn, vs_error *err)
{
	bool url_from_argv = conn->url != NULL;
	if (!conn->url)
		set(&conn->url, env2("NFSAGENT_URL", "GOVC_URL"));
	if (!conn->url)
		return vs_fail(err, VS_ERR_USAGE, "no server: give --url or set NFSAGENT_URL");
	if (!conn->username)
		set(&conn->username, env2("NFSAGENT_USERNAME", "GOVC_USERNAME"));
	if (conn->password_file && !(conn->password = na_read_secret(conn->password_file, err)))
		return VS_ERR_USAGE;
	if (!conn->password)
		set(&conn->password, env2("NFSAGENT_PASSWORD", "GOVC_PASSWORD"));
	if (split_userinfo(conn, url_from_argv, err) != VS_OK)
		return VS_ERR_USAGE;
	if (!conn->thumbprint)
		set(&conn->thumbprint, env2("NFSAGENT_THUMBPRINT", NULL));
	if (!conn->cacert)
		set(&conn->cacert, env2("NFSAGENT_CACERT", "GOVC_TLS_CA_CERTS"));
	if (!conn->insecure)
		conn->insecure = env_true(env2("NFSAGENT_INSECURE", "GOVC_INSECURE"));
	if (!conn->username)
		return vs_fail(err, VS_ERR_USAGE, "no user name: give --username or set NFSAGENT_USERNAME");
	if (!conn->password && !(conn->password = prompt_password(conn->username, conn->url)))
		return vs_fail(err, VS_ERR_USAGE, "no password: set NFSAGENT_PASSWORD or use --password-file");
	return VS_OK;
}

/* The trace holds the inventory and guest file contents: it is made 0600
 * even when it exists (open's mode applies only to a new file), and a
 * symbolic link is refused rather than followed, so that nobody can point
 * the trace at another file of the user's.  It is truncated only once it is
 * known to be a regular file. */
static vs_status open_trace(na_conn *conn, vs_error *err)
{
	if (!conn->trace_path)
		return VS_OK;
	int fd = open(conn->trace_path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0 && errno == ELOOP)
		return vs_fail(err, VS_ERR_USAGE, "trace file %s is a symbolic link: give the file's own path",
		               conn->trace_path);
	struct stat st;
	bool ok = fd >= 0 && fstat(fd, &st) == 0;
	if (ok && !S_ISREG(st.st_mode)) {
		close(fd);
		return vs_fail(err, VS_ERR_USAGE, "trace file %s is not a regular file", conn->trace_path);
	}
	if (!ok || fchmod(fd, 0600) != 0 || ftruncate(fd, 0) != 0 || !(conn->trace = fdopen(fd, "w"))) {
		vs_fail(err, VS_ERR_USAGE, "cannot write trace file %s: %s", conn->trace_path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return VS_ERR_USAGE;
	}
	return VS_OK;
}

vs_status na_conn_open(na_conn *conn, vs_client **client, vs_error *err)
{
	*client = NULL;
	vs_status rc = fill_from_env(conn, err);
	if (rc == VS_OK)
		rc = open_trace(conn, err);
	if (rc != VS_OK)
		return rc;
	if (conn->insecure && !conn->thumbprint)
		na_warn("certificate verification is off (--insecure): the server is not authenticated");
	vs_options opts = {
		.url = conn->url,
		.username = conn->username,
		.password = conn->password,
		.cacert = conn->cacert,
		.thumbprint = conn->thumbprint,
		.insecure = conn->insecure && !conn->thumbprint,
		.call_timeout_s = conn->timeout_s,
		.page_size = conn->page_size,
		.trace = conn->trace,
	};
	rc = vs_connect(&opts, client, err);
	memset(conn->password, 0, strlen(conn->password));
	return rc;
}

void na_conn_close(na_conn *conn, vs_client **client)
{
	if (client)
		vs_disconnect(client);
	if (conn->trace)
		fclose(conn->trace);
	free(conn->url);
	free(conn->username);
	free(conn->password);
	free(conn->thumbprint);
	free(conn->cacert);
	*conn = (na_conn){0};
}
