/* The central database's URL (store.h), checked before anything is made:
 * what libpq refuses only when it connects would otherwise read as "cannot
 * reach" (exit 4) and leave results waiting for a URL that never works. */
#include <stdio.h>
#include <string.h>

#include <libpq-fe.h>

#include "store/store_internal.h"

/* The options whose values libpq 13+ knows by name, and checks only when
 * it connects (PQconninfoParse takes any value). */
static const struct {
	const char *keyword;
	const char *values[7];
} known[] = {
	{"sslmode", {"disable", "allow", "prefer", "require", "verify-ca", "verify-full"}},
	{"gssencmode", {"disable", "prefer", "require"}},
	{"channel_binding", {"disable", "prefer", "require"}},
	{"target_session_attrs", {"any", "read-write", "read-only", "primary", "standby", "prefer-standby"}},
};

/* An option of known with a value not in its list: the refusal names the
 * option and what it takes, never the value (it is the URL's). */
static int check_value(const PQconninfoOption *o, vs_error *err)
{
	for (size_t i = 0; o->val && i < sizeof(known) / sizeof(*known); i++) {
		if (strcmp(o->keyword, known[i].keyword) != 0)
			continue;
		char list[128] = "";
		for (const char *const *v = known[i].values; *v; v++) {
			if (!strcmp(o->val, *v))
				return VS_OK;
			size_t at = strlen(list);
			snprintf(list + at, sizeof(list) - at, "%s%s", at ? ", " : "", *v);
		}
		return vs_fail(err, VS_ERR_USAGE, "the central database's URL gives %s a value libpq "
		               "does not know: give one of %s", o->keyword, list);
	}
	return VS_OK;
}

int na_central_check_url(const char *url, vs_error *err)
{
	/* not echoed: a URL of another kind may hold a password */
	if (!na_is_central_url(url))
		return vs_fail(err, VS_ERR_USAGE, "the central database's URL must start with "
		               "postgresql:// or postgres:// (a libpq URI)");
	/* libpq's own parse: what it would use is what is checked (a key
	 * percent-encoded, a '?' inside the user's part).  Its complaint is not
	 * echoed either: it may quote the URL. */
	char *why = NULL;
	PQconninfoOption *options = PQconninfoParse(url, &why);
	PQfreemem(why);
	if (!options)
		return vs_fail(err, VS_ERR_USAGE, "the central database's URL is not a libpq URI libpq "
		               "can read");
	bool password = false;
	int rc = VS_OK;
	for (const PQconninfoOption *o = options; o->keyword; o++) {
		password |= strcmp(o->keyword, "password") == 0 && o->val;
		if (rc == VS_OK)
			rc = check_value(o, err);
	}
	PQconninfoFree(options);
	if (password)
		return vs_fail(err, VS_ERR_USAGE, "do not put the password in the central database's URL: "
		               "use PGPASSWORD, ~/.pgpass (PGPASSFILE) or a service file (PGSERVICE)");
	return rc;
}

bool na_is_central_url(const char *path)
{
	return path && (strncmp(path, "postgresql://", strlen("postgresql://")) == 0 ||
	                strncmp(path, "postgres://", strlen("postgres://")) == 0);
}
