/* Reading a campaign file with libinih.  Every key is checked against a
 * table; the first problem is reported as FILE:LINE, before anything in
 * vCenter is touched.  The file is read whole first (a regular file of at
 * most 1 MiB), and libinih reads its lines from that text: lines of any
 * length, each counted once. */
#include <ctype.h>
#include <stdarg.h>
#include <ini.h>
#include <stdlib.h>
#include <string.h>

#include "ops/campaign_ini.h"
#include "nfsagent/nas.h"
#include "ops/fleet.h"
#include "ops/mount.h"
#include "profiles.h"

enum { MAX_FILE = 1 << 20 };

static void fail_line(parse *p, int line, const char *fmt, va_list ap)
{
	if (p->error[0])
		return;
	p->error_line = line;
	vsnprintf(p->error, sizeof(p->error), fmt, ap);
}

void na_ini_fail_at(parse *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fail_line(p, p->line, fmt, ap);
	va_end(ap);
}

/* For what a section heading starts: the error is at the heading. */
static void fail_heading(parse *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail_heading(parse *p, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fail_line(p, p->heading_line, fmt, ap);
	va_end(ap);
}

/* ---- values ---- */

static bool set_str(char **field, const char *value)
{
	free(*field);
	return (*field = strdup(value)) != NULL;
}

/* A number key in [min, max]; the error names the bounds (returns true
 * then: the error is said). */
static bool set_long(parse *p, const char *name, long *field, const char *value, long min, long max)
{
	if (!na_parse_long(value, min, max, field))
		na_ini_fail_at(p, "%s wants a whole number from %ld to %ld, not '%s'", name, min, max, value);
	return true;
}

/* A size as fio reads it; the error shows the forms (true then: it is said). */
static bool set_size(parse *p, const char *name, char **field, const char *value)
{
	if (na_parse_size(value) < 0) {
		na_ini_fail_at(p, "%s wants a size as fio reads it, a whole number with K, M, G, T or P "
		                  "(8G, 512M), not '%s'", name, value);
		return true;
	}
	return set_str(field, value);
}

/* A name vCenter sees (a VM, datastore, server, path, host, user) or that
 * names runs: no control character (an XML syntax error to vCenter, a
 * command to a terminal), valid UTF-8. */
static bool set_name(parse *p, const char *name, char **field, const char *value)
{
	long bad = na_bad_text_at(value);
	if (bad >= 0) {
		na_ini_fail_at(p, "%s has a control character or is not UTF-8 (byte 0x%02x): names have none",
		               name, (unsigned char)value[bad]);
		return true;
	}
	return set_str(field, value);
}

static bool set_bool(bool *field, const char *value)
{
	if (!strcmp(value, "yes") || !strcmp(value, "true") || !strcmp(value, "1"))
		*field = true;
	else if (!strcmp(value, "no") || !strcmp(value, "false") || !strcmp(value, "0"))
		*field = false;
	else
		return false;
	return true;
}

/* baseline = nas or none */
static bool set_baseline(int *field, const char *value)
{
	if (strcmp(value, "nas") != 0 && strcmp(value, "none") != 0)
		return false;
	*field = !strcmp(value, "nas");
	return true;
}

static bool set_probe(na_target *t, const char *value)
{
	bool probe;
	if (!set_bool(&probe, value))
		return false;
	t->probe = probe;
	return true;
}

static const char *trimmed(char *s, char *end)
{
	while (*s == ' ' || *s == '\t')
		s++;
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		*--end = '\0';
	return s;
}

/* Why kv cannot be added to l, as a vs_error; VS_OK when it can. */
static int label_check(const na_labels *l, const char *kv, bool has_eq, const char *key,
                       const char *value, vs_error *err)
{
	long bad_key = na_bad_text_at(key), bad_value = na_bad_text_at(value);
	if ((!has_eq || !*key) && na_bad_text_at(kv) < 0)
		return vs_fail(err, VS_ERR_USAGE, "'%s' is not a label: give KEY=VALUE, such as "
		               "recordsize=16K", kv);
	if (!has_eq || !*key)
		return vs_fail(err, VS_ERR_USAGE, "a label is KEY=VALUE, such as recordsize=16K");
	if (bad_key >= 0)
		return vs_fail(err, VS_ERR_USAGE, "a label key has a control character or is not UTF-8 "
		               "(byte 0x%02x)", (unsigned char)key[bad_key]);
	if (bad_value >= 0)
		return vs_fail(err, VS_ERR_USAGE, "label %s: its value has a control character or is not "
		               "UTF-8 (byte 0x%02x)", key, (unsigned char)value[bad_value]);
	if (na_store_is_field(key))
		return vs_fail(err, VS_ERR_USAGE, "label key %s is a result field, which --where would "
		               "select instead: name the label otherwise", key);
	if (na_labels_find(l, key))
		return vs_fail(err, VS_ERR_USAGE, "label %s is given twice: give each key once", key);
	if (l->n == NA_MAX_LABELS)
		return vs_fail(err, VS_ERR_USAGE, "more than %d labels", NA_MAX_LABELS);
	return VS_OK;
}

int na_labels_add(na_labels *l, const char *kv, vs_error *err)
{
	char *text = strdup(kv);
	if (!text)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	char *eq = strchr(text, '=');
	const char *key = text, *value = "";
	if (eq) {
		*eq = '\0';
		key = trimmed(text, eq);
		value = trimmed(eq + 1, eq + 1 + strlen(eq + 1));
	}
	int rc = label_check(l, kv, eq != NULL, key, value, err);
	if (rc != VS_OK) {
		free(text);
		return rc;
	}
	/* key and value live in text, which l keeps. */
	l->text[l->n] = text;
	l->v[l->n++] = (na_label){key, value};
	return VS_OK;
}

const na_label *na_labels_find(const na_labels *l, const char *key)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].key, key))
			return &l->v[i];
	return NULL;
}

/* "recordsize=16K, slog=yes" */
static bool set_labels(parse *p, na_labels *l, const char *value)
{
	char *copy = strdup(value), *save = NULL;
	bool ok = copy != NULL;
	vs_error err = {0};
	for (char *kv = strtok_r(copy, ",", &save); ok && kv; kv = strtok_r(NULL, ",", &save))
		if (!(ok = na_labels_add(l, kv, &err) == VS_OK))
			na_ini_fail_at(p, "%s", err.message);
	free(copy);
	return ok;
}

static bool set_profiles(na_campaign *c, const char *value)
{
	char *copy = strdup(value), *save = NULL;
	bool ok = copy != NULL;
	for (char *p = strtok_r(copy, ", ", &save); ok && p; p = strtok_r(NULL, ", ", &save))
		ok = c->n_profiles < NA_MAX_CAMPAIGN_PROFILES && na_profile_find(p) &&
		     (c->profiles[c->n_profiles++] = strdup(p)) != NULL;
	free(copy);
	return ok && c->n_profiles > 0;
}

/* vms = a, b, fleet-*: each name or glob once, at most 64 of them (a group's
 * bound); what they match is known only at preflight.  Split at each comma
 * by hand: strtok_r would pass over the empty entry of "a,,b" (a name
 * left out by mistake), which is refused instead. */
static bool set_vms(parse *p, const char *value)
{
	na_campaign *c = p->c;
	char *copy = strdup(value), *next = NULL;
	c->vms_line = p->line;
	if (!copy)
		na_ini_fail_at(p, "out of memory");
	for (char *v = copy; v && !p->error[0]; v = next) {
		if ((next = strchr(v, ',')))
			*next++ = '\0';
		const char *name = trimmed(v, v + strlen(v));
		if (!*name) {
			if (next || v != copy)  /* an empty value is said below */
				na_ini_fail_at(p, "vms wants VM names or globs separated by commas: one is empty");
			break;
		}
		for (size_t i = 0; i < c->n_vms && !p->error[0]; i++)
			if (!strcmp(c->vms[i], name))
				na_ini_fail_at(p, "vms names %s twice", name);
		if (p->error[0])
			break;
		if (c->n_vms == NA_MAX_CAMPAIGN_VMS)
			na_ini_fail_at(p, "vms names more than %d VMs: a group runs at most %d",
			               NA_MAX_CAMPAIGN_VMS, NA_MAX_CAMPAIGN_VMS);
		else
			set_name(p, "vms", &c->vms[c->n_vms++], name);
	}
	if (copy && !c->n_vms && !p->error[0])
		na_ini_fail_at(p, "vms wants VM names or globs separated by commas");
	free(copy);
	return true;
}

static bool one_of(const char *v, const char *const *allowed)
{
	for (; *allowed; allowed++)
		if (!strcmp(v, *allowed))
			return true;
	return false;
}

/* ---- sections ---- */

static bool set_dir(parse *p, const char *value)
{
	vs_error err = {0};
	if (na_job_dir_check(value, &err) != VS_OK) {
		na_ini_fail_at(p, "dir %s", err.message);
		return false;
	}
	return set_str(&p->c->dir, value);
}

/* nas = [USER@]HOST or nas_command = CMD, as bench's --nas and
 * --nas-command take them (checked the same way); one per section. */
static bool set_nas(parse *p, const char *name, char **field, const char *other,
                    const char *value)
{
	nas_target t = {0};
	vs_error err = {0};
	bool host = !strcmp(name, "nas");
	if (other) {
		na_ini_fail_at(p, "give one of nas and nas_command");
		return true;
	}
	if ((host ? nas_target_host(&t, value, &err) : nas_target_command(&t, value, &err)) != VS_OK)
		na_ini_fail_at(p, "%s: %s", name, err.message);
	nas_target_free(&t);
	return p->error[0] || set_str(field, value);
}

/* A central database's URL, refused here like --central's (a password in it above all). */
static bool set_central(parse *p, char **field, const char *value)
{
	vs_error err = {0};
	if (na_central_check_url(value, &err) != VS_OK)
		na_ini_fail_at(p, "central: %s", err.message);
	return p->error[0] || set_str(field, value);
}

static bool campaign_key(parse *p, const char *name, const char *value)
{
	na_campaign *c = p->c;
	if (!strcmp(name, "name") && strlen(value) > NA_MAX_NAME) {
		na_ini_fail_at(p, "name is at most 64 characters: it names the run and its journal");
		return true;
	}
	if (!strcmp(name, "name")) return set_name(p, name, &c->name, value);
	if (!strcmp(name, "vm")) return set_name(p, name, &c->vm, value);
	if (!strcmp(name, "vms")) return set_vms(p, value);
	if (!strcmp(name, "parallel")) return set_long(p, name, &c->parallel, value, 1, NA_FLEET_MAX_PARALLEL);
	if (!strcmp(name, "per_host")) return set_long(p, name, &c->per_host, value, 1, NA_FLEET_MAX_PARALLEL);
	if (!strcmp(name, "per_datastore")) return set_long(p, name, &c->per_datastore, value, 1, NA_FLEET_MAX_PARALLEL);
	if (!strcmp(name, "guest_user")) return set_name(p, name, &c->guest_user, value);
	if (!strcmp(name, "guest_password_file")) return set_str(&c->guest_password_file, value);
	if (!strcmp(name, "profiles")) return set_profiles(c, value);
	if (!strcmp(name, "repeat")) return set_long(p, name, &c->repeat, value, 1, NA_MAX_REPEAT);
	if (!strcmp(name, "runtime")) return set_long(p, name, &c->runtime, value, 1, NA_MAX_RUNTIME_S);
	if (!strcmp(name, "ramp")) return set_long(p, name, &c->ramp, value, 0, NA_MAX_RUNTIME_S);
	if (!strcmp(name, "size")) return set_size(p, name, &c->size, value);
	if (!strcmp(name, "dir")) return set_dir(p, value);
	if (!strcmp(name, "cleanup")) return set_bool(&c->cleanup, value);
	if (!strcmp(name, "allow_power_off")) return set_bool(&c->allow_power_off, value);
	if (!strcmp(name, "busy_wait")) return set_long(p, name, &c->busy_wait, value, 1, 3600);
	if (!strcmp(name, "probe_disks")) return set_long(p, name, &c->probe_disks, value, 1, NA_MAX_PROBE_DISKS);
	if (!strcmp(name, "probe_size")) return set_size(p, name, &c->probe_size, value);
	if (!strcmp(name, "labels")) return set_labels(p, &p->campaign_labels, value);
	if (!strcmp(name, "nas")) return set_nas(p, name, &c->nas, c->nas_command, value);
	if (!strcmp(name, "nas_command")) return set_nas(p, name, &c->nas_command, c->nas, value);
	if (!strcmp(name, "central")) return set_central(p, &c->central, value);
	if (!strcmp(name, "baseline")) {
		c->baseline_line = p->line;
		return set_baseline(&c->baseline, value);
	}
	na_ini_fail_at(p, "unknown key '%s' in [campaign]", name);
	return false;
}

static bool connection_key(parse *p, const char *name, const char *value)
{
	na_campaign *c = p->c;
	if (!strcmp(name, "url")) return set_str(&c->url, value);
	if (!strcmp(name, "username")) return set_name(p, name, &c->username, value);
	if (!strcmp(name, "thumbprint")) return set_str(&c->thumbprint, value);
	if (!strcmp(name, "cacert")) return set_str(&c->cacert, value);
	if (!strcmp(name, "insecure")) return set_bool(&c->insecure, value);
	na_ini_fail_at(p, "unknown key '%s' in [connection]", name);
	return false;
}

static bool target_key(parse *p, na_target *t, const char *name, const char *value)
{
	static const char *const nfs[] = {"3", "4.1", NULL};
	static const char *const policies[] = {"fail", "nfs3", "snapshot", "cold", NULL};
	if (!strcmp(name, "datastore")) return set_name(p, name, &t->datastore, value);
	if (!strcmp(name, "server")) return set_name(p, name, &t->servers, value);
	if (!strcmp(name, "path")) return value[0] == '/' && set_name(p, name, &t->path, value);
	if (!strcmp(name, "nfs")) return one_of(value, nfs) && set_str(&t->nfs, value);
	if (!strcmp(name, "hosts")) return set_name(p, name, &t->hosts, value);
	if (!strcmp(name, "on_extent_bug")) return one_of(value, policies) && set_str(&t->on_extent_bug, value);
	if (!strcmp(name, "probe")) return set_probe(t, value);
	if (!strcmp(name, "connections")) return set_long(p, name, &t->connections, value, 1, NA_MAX_CONNECTIONS);
	if (!strcmp(name, "labels")) return set_labels(p, &t->labels, value);
	if (!strcmp(name, "nas")) return set_nas(p, name, &t->nas, t->nas_command, value);
	if (!strcmp(name, "nas_command")) return set_nas(p, name, &t->nas_command, t->nas, value);
	if (!strcmp(name, "create")) return set_bool(&t->create, value);
	if (!strcmp(name, "keep")) return set_bool(&t->keep, value);
	if (!strcmp(name, "baseline")) return set_baseline(&t->baseline, value);
	vs_error err = {0};
	int rc = na_target_dataset_key(t, name, value, &err);
	if (rc == VS_ERR_NOT_FOUND)
		na_ini_fail_at(p, "unknown key '%s' in [target %s]", name, t->name);
	else if (rc != VS_OK)
		na_ini_fail_at(p, "%s", err.message);
	return true;
}

/* The target a "[target NAME]" section is, created when first seen. */
static na_target *target_of(parse *p, const char *section)
{
	const char *name = section + strlen("target");
	while (*name == ' ')
		name++;
	na_campaign *c = p->c;
	for (size_t i = 0; i < c->n_targets; i++)
		if (!strcmp(c->targets[i].name, name))
			return &c->targets[i];
	/* libinih cuts a section's name at 49 bytes: a longer one cannot be told
	 * from another with the same start. */
	bool too_long = strlen(section) >= 49 || strlen(name) > NA_MAX_TARGET_NAME;
	/* ':' parts the journal's steps (group:TARGET:REP:PROFILE), ',' a
	 * selector's conditions (--where target=a,campaign=b) */
	bool separator = strpbrk(name, ":,") != NULL;
	if (!*name || c->n_targets == NA_MAX_TARGETS || too_long || separator) {
		fail_heading(p, "%s", !*name     ? "a [target] needs a name: [target NAME]"
		                      : too_long  ? "a target's name is at most 40 characters"
		                      : separator ? "a target's name has no ':' nor ','"
		                                  : "too many targets (at most 16)");
		return NULL;
	}
	na_target *t = &c->targets[c->n_targets++];
	*t = (na_target){.name = strdup(name), .line = p->heading_line, .probe = -1,
	                  .baseline = -1};
	return t;
}

static const seen *seen_before(const parse *p, const char *section, const char *name)
{
	for (size_t i = 0; i < p->n_seen; i++)
		if (!strcmp(p->seen[i].section, section) &&
		    (name ? p->seen[i].name && !strcmp(p->seen[i].name, name) : !p->seen[i].name))
			return &p->seen[i];
	return NULL;
}

static bool remember(parse *p, const char *section, const char *name, int line)
{
	seen *more = realloc(p->seen, (p->n_seen + 1) * sizeof(*more));
	if (!more)
		return false;
	p->seen = more;
	seen *s = &p->seen[p->n_seen];
	*s = (seen){strdup(section), name ? strdup(name) : NULL, line};
	if (!s->section || (name && !s->name)) {
		free(s->section);
		free(s->name);
		return false;
	}
	p->n_seen++;
	return true;
}

/* A section met a second time, or a key set twice in one: lists would add
 * up and values be replaced without a word, so both are errors.  (Multi-line
 * values are off: an indented line is a line like any other.) */
static bool first_time(parse *p, const char *section, const char *name)
{
	const seen *s;
	if (p->heading_line != p->block_line) {
		if ((s = seen_before(p, section, NULL))) {
			fail_heading(p, "duplicate [%s] (the first is at line %d): give each section once",
			             section, s->line);
			return false;
		}
		p->block_line = p->heading_line;
		if (!remember(p, section, NULL, p->heading_line))
			return false;
	}
	if ((s = seen_before(p, section, name))) {
		na_ini_fail_at(p, "%s is set again in [%s] (first at line %d): give each key once", name, section,
		               s->line);
		return false;
	}
	return remember(p, section, name, p->line);
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
	parse *p = user;
	if (p->error[0])
		return 0;
	if (strstr(name, "password") && strcmp(name, "guest_password_file") != 0) {
		na_ini_fail_at(p, "no passwords in campaign files: use NFSAGENT_PASSWORD and "
		                  "NFSAGENT_GUEST_PASSWORD, or password files");
		return 0;
	}
	bool ok;
	if (!first_time(p, section, name)) {
		if (!p->error[0])
			na_ini_fail_at(p, "out of memory");
		return 0;
	}
	if (!strcmp(section, "campaign")) {
		p->seen_campaign = true;
		ok = campaign_key(p, name, value);
	} else if (!strcmp(section, "connection")) {
		ok = connection_key(p, name, value);
	} else if (!strncmp(section, "target", 6) && (section[6] == ' ' || section[6] == '\0')) {
		na_target *t = target_of(p, section);
		ok = t && target_key(p, t, name, value);
	} else {
		fail_heading(p, "unknown section [%s]: use [campaign], [connection] or [target NAME]",
		             section);
		return 0;
	}
	if (!ok)
		na_ini_fail_at(p, "bad value '%s' for %s", value, name);
	return ok && !p->error[0];
}

/* Hands libinih the text a line (or, for a line longer than its buffer,
 * a part of one) at a time, as fgets would, and counts each line once. */
static char *read_line(char *str, int num, void *stream)
{
	parse *p = stream;
	if (p->pos >= p->len || num < 2)
		return NULL;
	if (p->line_start) {
		p->line++;
		/* As libinih sees a heading: after a UTF-8 BOM on line 1, and blanks. */
		size_t at = p->pos;
		if (p->line == 1 && !strncmp(p->text, "\xEF\xBB\xBF", 3))
			at += 3;
		while (at < p->len && isspace((unsigned char)p->text[at]))
			at++;
		if (at < p->len && p->text[at] == '[')
			p->heading_line = p->line;
		p->line_start = false;
	}
	size_t n = 0;
	while (n + 1 < (size_t)num && p->pos < p->len) {
		char ch = p->text[p->pos++];
		str[n++] = ch;
		if (ch == '\n') {
			p->line_start = true;
			break;
		}
	}
	str[n] = '\0';
	return str;
}

static void set_defaults(na_campaign *c)
{
	*c = (na_campaign){.repeat = 3, .runtime = 60, .ramp = 0, .probe_disks = 4, .cleanup = true,
	                   .parallel = NA_FLEET_PARALLEL, .per_host = NA_FLEET_PER_HOST,
	                   .per_datastore = NA_FLEET_PER_DATASTORE};
	c->size = strdup("8G");
	c->dir = strdup("/var/tmp");
	c->probe_size = strdup("1G");
}

int na_campaign_parse(const char *file, const char *text, na_campaign *c, vs_error *err)
{
	set_defaults(c);
	c->file = strdup(file);
	parse p = {.c = c, .text = text, .len = strlen(text), .line_start = true};
	/* Debian's libinih takes these at run time: a line buffer that grows
	 * (up to the whole file) instead of 200 bytes that split a long line
	 * into two; an indented line is a line like any other. */
	ini_use_stack = false;
	ini_allow_realloc = true;
	ini_max_line = MAX_FILE + 3;
	ini_allow_multiline = false;
	int rc = ini_parse_stream(read_line, &p, on_key, &p);
	if (rc > 0 && !p.error[0]) {
		p.error_line = rc;
		snprintf(p.error, sizeof(p.error), "not a key = value line or [section]");
	} else if (rc < 0 && !p.error[0]) {
		snprintf(p.error, sizeof(p.error), "out of memory");
	}
	if (!p.error[0])
		na_ini_check(&p);
	for (size_t i = 0; i < p.n_seen; i++) {
		free(p.seen[i].section);
		free(p.seen[i].name);
	}
	free(p.seen);
	na_labels_free(&p.campaign_labels);
	if (p.error[0])
		return vs_fail(err, VS_ERR_USAGE, "%s:%d: %s", file, p.error_line, p.error);
	return VS_OK;
}

int na_campaign_load(const char *path, na_campaign *c, vs_error *err)
{
	char *text = NULL;
	int rc = na_read_text_file(path, "campaign file", MAX_FILE, &text, err);
	if (rc == VS_OK)
		rc = na_campaign_parse(path, text, c, err);
	else
		set_defaults(c);
	free(text);
	return rc;
}

void na_labels_free(na_labels *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->text[i]);
	l->n = 0;
}

void na_campaign_free(na_campaign *c)
{
	char *strings[] = {c->file, c->name, c->vm, c->guest_user, c->guest_password_file, c->size,
	                   c->dir, c->probe_size, c->url, c->username, c->thumbprint, c->cacert,
	                   c->nas, c->nas_command, c->central};
	for (size_t i = 0; i < sizeof(strings) / sizeof(*strings); i++)
		free(strings[i]);
	for (size_t i = 0; i < c->n_profiles; i++)
		free(c->profiles[i]);
	for (size_t i = 0; i < c->n_vms; i++)
		free(c->vms[i]);
	for (size_t i = 0; i < c->n_targets; i++) {
		na_target *t = &c->targets[i];
		char *ts[] = {t->name, t->datastore, t->servers, t->path, t->nfs, t->hosts, t->on_extent_bug,
		              t->nas, t->nas_command, t->dataset};
		for (size_t k = 0; k < sizeof(ts) / sizeof(*ts); k++)
			free(ts[k]);
		na_labels_free(&t->labels);
	}
	na_labels_free(&c->labels);
	*c = (na_campaign){0};
}
