/* Reading a campaign file with libinih.  Every key is checked against a
 * table; the first problem is reported as FILE:LINE, before anything in
 * vCenter is touched. */
#include <errno.h>
#include <stdarg.h>
#include <ini.h>
#include <stdlib.h>
#include <string.h>

#include "campaign.h"
#include "profiles.h"

typedef struct parse {
	na_campaign *c;
	FILE *f;
	int line;            /* of the line being handled */
	int error_line;
	char error[512];
	bool seen_campaign;
	char section[256];   /* the section of the previous key */
} parse;

static void fail_at(parse *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void fail_at(parse *p, const char *fmt, ...)
{
	if (p->error[0])
		return;
	p->error_line = p->line;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->error, sizeof(p->error), fmt, ap);
	va_end(ap);
}

/* ---- values ---- */

static bool set_str(char **field, const char *value)
{
	free(*field);
	return (*field = strdup(value)) != NULL;
}

static bool set_long(long *field, const char *value, long min)
{
	char *end;
	long v = strtol(value, &end, 10);
	if (end == value || *end || v < min)
		return false;
	*field = v;
	return true;
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

/* "recordsize=16K, slog=yes" */
static bool set_labels(na_labels *l, const char *value)
{
	char *copy = strdup(value), *save = NULL;
	bool ok = copy != NULL;
	for (char *kv = strtok_r(copy, ",", &save); ok && kv; kv = strtok_r(NULL, ",", &save)) {
		while (*kv == ' ')
			kv++;
		char *eq = strchr(kv, '=');
		ok = eq && eq != kv && l->n < NA_MAX_LABELS;
		if (!ok)
			break;
		char *text = strdup(kv);
		ok = text != NULL;
		if (!ok)
			break;
		text[eq - kv] = '\0';
		char *k_end = text + (eq - kv);
		while (k_end > text && k_end[-1] == ' ')
			*--k_end = '\0';
		char *v = text + (eq - kv) + 1;
		while (*v == ' ')
			v++;
		l->text[l->n] = text;
		l->v[l->n++] = (na_label){text, v};
	}
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

static bool one_of(const char *v, const char *const *allowed)
{
	for (; *allowed; allowed++)
		if (!strcmp(v, *allowed))
			return true;
	return false;
}

/* ---- sections ---- */

static bool campaign_key(parse *p, const char *name, const char *value)
{
	na_campaign *c = p->c;
	if (!strcmp(name, "name")) return set_str(&c->name, value);
	if (!strcmp(name, "vm")) return set_str(&c->vm, value);
	if (!strcmp(name, "guest_user")) return set_str(&c->guest_user, value);
	if (!strcmp(name, "guest_password_file")) return set_str(&c->guest_password_file, value);
	if (!strcmp(name, "profiles")) return set_profiles(c, value);
	if (!strcmp(name, "repeat")) return set_long(&c->repeat, value, 1);
	if (!strcmp(name, "runtime")) return set_long(&c->runtime, value, 1);
	if (!strcmp(name, "ramp")) return set_long(&c->ramp, value, 0);
	if (!strcmp(name, "size")) return na_parse_size(value) > 0 && set_str(&c->size, value);
	if (!strcmp(name, "dir")) return value[0] == '/' && set_str(&c->dir, value);
	if (!strcmp(name, "cleanup")) return set_bool(&c->cleanup, value);
	if (!strcmp(name, "allow_power_off")) return set_bool(&c->allow_power_off, value);
	if (!strcmp(name, "probe_disks")) return set_long(&c->probe_disks, value, 1);
	if (!strcmp(name, "probe_size")) return na_parse_size(value) > 0 && set_str(&c->probe_size, value);
	if (!strcmp(name, "labels")) return set_labels(&c->labels, value);
	fail_at(p, "unknown key '%s' in [campaign]", name);
	return false;
}

static bool connection_key(parse *p, const char *name, const char *value)
{
	na_campaign *c = p->c;
	if (!strcmp(name, "url")) return set_str(&c->url, value);
	if (!strcmp(name, "username")) return set_str(&c->username, value);
	if (!strcmp(name, "thumbprint")) return set_str(&c->thumbprint, value);
	if (!strcmp(name, "cacert")) return set_str(&c->cacert, value);
	if (!strcmp(name, "insecure")) return set_bool(&c->insecure, value);
	fail_at(p, "unknown key '%s' in [connection]", name);
	return false;
}

static bool target_key(parse *p, na_target *t, const char *name, const char *value)
{
	static const char *const nfs[] = {"3", "4.1", NULL};
	static const char *const policies[] = {"fail", "nfs3", "snapshot", "cold", NULL};
	if (!strcmp(name, "datastore")) return set_str(&t->datastore, value);
	if (!strcmp(name, "server")) return set_str(&t->servers, value);
	if (!strcmp(name, "path")) return value[0] == '/' && set_str(&t->path, value);
	if (!strcmp(name, "nfs")) return one_of(value, nfs) && set_str(&t->nfs, value);
	if (!strcmp(name, "hosts")) return set_str(&t->hosts, value);
	if (!strcmp(name, "on_extent_bug")) return one_of(value, policies) && set_str(&t->on_extent_bug, value);
	if (!strcmp(name, "probe")) return set_bool(&t->probe, value);
	if (!strcmp(name, "labels")) return set_labels(&t->labels, value);
	fail_at(p, "unknown key '%s' in [target %s]", name, t->name);
	return false;
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
	if (!*name || c->n_targets == NA_MAX_TARGETS) {
		fail_at(p, "%s", *name ? "too many targets (at most 16)" : "a [target] needs a name: [target NAME]");
		return NULL;
	}
	na_target *t = &c->targets[c->n_targets++];
	*t = (na_target){.name = strdup(name), .line = p->line, .probe = true};
	return t;
}

static int on_key(void *user, const char *section, const char *name, const char *value)
{
	parse *p = user;
	if (p->error[0])
		return 0;
	if (strstr(name, "password") && strcmp(name, "guest_password_file") != 0) {
		fail_at(p, "no passwords in campaign files: use NFSAGENT_PASSWORD and "
		           "NFSAGENT_GUEST_PASSWORD, or password files");
		return 0;
	}
	bool ok;
	if (!strcmp(section, "campaign")) {
		p->seen_campaign = true;
		ok = campaign_key(p, name, value);
	} else if (!strcmp(section, "connection")) {
		ok = connection_key(p, name, value);
	} else if (!strncmp(section, "target", 6) && (section[6] == ' ' || section[6] == '\0')) {
		size_t before = p->c->n_targets;
		na_target *t = target_of(p, section);
		/* A section heading seen again after another one is a second target
		 * of that name, not a continuation. */
		if (t && before == p->c->n_targets && strcmp(p->section, section) != 0)
			fail_at(p, "duplicate [%s] (the first is at line %d)", section, t->line);
		ok = t && target_key(p, t, name, value);
	} else {
		fail_at(p, "unknown section [%s]: use [campaign], [connection] or [target NAME]", section);
		return 0;
	}
	if (!ok)
		fail_at(p, "bad value '%s' for %s", value, name);
	snprintf(p->section, sizeof(p->section), "%s", section);
	return ok && !p->error[0];
}

/* Counts lines as libinih reads them, so errors can say where. */
static char *read_line(char *str, int num, void *stream)
{
	parse *p = stream;
	char *s = fgets(str, num, p->f);
	if (s)
		p->line++;
	return s;
}

/* ---- whole-file checks ---- */

bool na_target_alternates(const na_target *a, const na_target *b)
{
	return a != b && a->servers && b->servers && a->path && b->path && a->nfs && b->nfs &&
	       !strcmp(a->servers, b->servers) && !strcmp(a->path, b->path) && strcmp(a->nfs, b->nfs) != 0;
}

static int check_target(parse *p, const na_target *t, size_t index)
{
	const na_campaign *c = p->c;
	p->line = t->line;
	if (!t->datastore)
		fail_at(p, "[target %s] needs datastore = NAME", t->name);
	else if (t->servers && (!t->path || !t->nfs))
		fail_at(p, "[target %s] mounts an export: it needs path and nfs too", t->name);
	else if (!t->servers && (t->path || t->nfs))
		fail_at(p, "[target %s] names an export: give server too", t->name);
	else if (t->on_extent_bug && !strcmp(t->on_extent_bug, "cold") && !c->allow_power_off)
		fail_at(p, "[target %s] on_extent_bug = cold needs allow_power_off = yes in [campaign]",
		        t->name);
	for (size_t i = 0; i < index && !p->error[0]; i++)
		if (!strcmp(c->targets[i].datastore, t->datastore) && !na_target_alternates(&c->targets[i], t))
			fail_at(p, "targets %s and %s use the same datastore", c->targets[i].name, t->name);
	return p->error[0] ? -1 : 0;
}

static void check_campaign(parse *p)
{
	na_campaign *c = p->c;
	p->line = 1;
	if (!p->seen_campaign)
		fail_at(p, "no [campaign] section");
	else if (!c->name || !c->vm)
		fail_at(p, "[campaign] needs name and vm");
	else if (!c->n_profiles)
		fail_at(p, "[campaign] needs profiles = P1, P2 (see nfsagent profiles)");
	else if (c->n_targets < 1)
		fail_at(p, "no [target NAME] section");
	for (size_t i = 0; i < c->n_targets && !p->error[0]; i++)
		check_target(p, &c->targets[i], i);
}

static void set_defaults(na_campaign *c)
{
	*c = (na_campaign){.repeat = 3, .runtime = 60, .ramp = 0, .probe_disks = 4, .cleanup = true};
	c->size = strdup("8G");
	c->dir = strdup("/var/tmp");
	c->probe_size = strdup("1G");
}

int na_campaign_load(const char *path, na_campaign *c, vs_error *err)
{
	set_defaults(c);
	c->file = strdup(path);
	parse p = {.c = c};
	if (!(p.f = fopen(path, "r")))
		return vs_fail(err, VS_ERR_USAGE, "%s: %s", path, strerror(errno));
	int rc = ini_parse_stream(read_line, &p, on_key, &p);
	fclose(p.f);
	if (rc > 0 && !p.error[0]) {
		p.error_line = rc;
		snprintf(p.error, sizeof(p.error), "not a key = value line or [section]");
	}
	if (!p.error[0])
		check_campaign(&p);
	if (p.error[0])
		return vs_fail(err, VS_ERR_USAGE, "%s:%d: %s", path, p.error_line, p.error);
	return VS_OK;
}

static void free_labels(na_labels *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->text[i]);
	l->n = 0;
}

void na_campaign_free(na_campaign *c)
{
	char *strings[] = {c->file, c->name, c->vm, c->guest_user, c->guest_password_file, c->size,
	                   c->dir, c->probe_size, c->url, c->username, c->thumbprint, c->cacert};
	for (size_t i = 0; i < sizeof(strings) / sizeof(*strings); i++)
		free(strings[i]);
	for (size_t i = 0; i < c->n_profiles; i++)
		free(c->profiles[i]);
	for (size_t i = 0; i < c->n_targets; i++) {
		na_target *t = &c->targets[i];
		char *ts[] = {t->name, t->datastore, t->servers, t->path, t->nfs, t->hosts, t->on_extent_bug};
		for (size_t k = 0; k < sizeof(ts) / sizeof(*ts); k++)
			free(ts[k]);
		free_labels(&t->labels);
	}
	free_labels(&c->labels);
	*c = (na_campaign){0};
}
