/* `zpool history -il POOL` (run with TZ=UTC): when a property of a dataset
 * last changed.  OpenZFS prints one record a line, "YYYY-MM-DD.HH:MM:SS"
 * and then the command ("zfs set recordsize=16K tank/vm"), or with -i the
 * record the kernel wrote ("[txg:42] set tank/vm (54) recordsize=16384"),
 * and with -l " [user 0 (root) on host:linux]"; -i's ioctl records are
 * followed by indented input/output lines, which say nothing here. */
#include <string.h>

#include "internal.h"
#include "nfsagent/nas.h"

/* Days from 1970-01-01 to y-m-d (proleptic Gregorian). */
static int64_t days_from_civil(int64_t y, int64_t m, int64_t d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400, yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	return era * 146097 + yoe * 365 + yoe / 4 - yoe / 100 + doy - 719468;
}

/* "2024-03-02.10:15:22" as Unix seconds; false for anything else. */
static bool record_time(nas_span s, int64_t *at)
{
	static const char shape[] = "dddd-dd-dd.dd:dd:dd";
	if (s.n != sizeof(shape) - 1)
		return false;
	int64_t v[6] = {0};
	for (size_t i = 0, k = 0; i < s.n; i++) {
		if (shape[i] != 'd' && s.s[i] != shape[i])
			return false;
		if (shape[i] == 'd' && (s.s[i] < '0' || s.s[i] > '9'))
			return false;
		if (shape[i] == 'd')
			v[k] = v[k] * 10 + (s.s[i] - '0');
		else
			k++;
	}
	if (v[1] < 1 || v[1] > 12 || v[2] < 1 || v[2] > 31 || v[3] > 23 || v[4] > 59 || v[5] > 60)
		return false;
	*at = days_from_civil(v[0], v[1], v[2]) * 86400 + v[3] * 3600 + v[4] * 60 + v[5];
	return true;
}

/* Whether name is dataset or one of its ancestors (a property set on a
 * parent reaches the dataset when it inherits it). */
static bool covers(nas_span name, const char *dataset)
{
	size_t len = strlen(dataset);
	return name.n && name.n <= len && strncmp(name.s, dataset, name.n) == 0 &&
	       (name.n == len || dataset[name.n] == '/');
}

/* "prop=..." */
static bool assigns(nas_span word, const char *prop)
{
	size_t len = strlen(prop);
	return word.n > len && strncmp(word.s, prop, len) == 0 && word.s[len] == '=';
}

enum { MAX_WORDS = 64 };

/* Whether the record after the time changes prop of dataset. */
static bool changes(nas_span rest, const char *dataset, const char *prop)
{
	nas_span w[MAX_WORDS];
	size_t n = nas_fields(rest, ' ', w, MAX_WORDS);
	/* -i: "[txg:N] set|inherit DATASET (ID) prop=VALUE" */
	if (n >= 5 && w[0].n > 5 && strncmp(w[0].s, "[txg:", 5) == 0 &&
	    (nas_span_is(w[1], "set") || nas_span_is(w[1], "inherit")))
		return covers(w[2], dataset) && assigns(w[4], prop);
	/* the command: "zfs set [prop=value ...] DATASET ...", "zfs inherit [-rS] prop DATASET ..." */
	bool set = n >= 4 && nas_span_is(w[0], "zfs") && nas_span_is(w[1], "set");
	bool inherit = n >= 4 && nas_span_is(w[0], "zfs") && nas_span_is(w[1], "inherit");
	bool named = false, target = false;
	for (size_t i = 2; (set || inherit) && i < n && w[i].s[0] != '['; i++) {
		named |= set ? assigns(w[i], prop) : nas_span_is(w[i], prop);
		target |= covers(w[i], dataset);
	}
	return named && target;
}

int nas_parse_history(const char *text, size_t len, const char *dataset, const char *prop,
                      int64_t *last, vs_error *err)
{
	*last = 0;
	int rc = nas_text_check(text, len, "zpool history", err);
	if (rc != VS_OK)
		return rc;
	nas_lines lines = nas_lines_of(text, len);
	nas_span line;
	bool header = false;
	while (nas_next_line(&lines, &line)) {
		nas_span f[2];
		int64_t at;
		if (!header && line.n > 13 && strncmp(line.s, "History for '", 13) == 0) {
			header = true;
			continue;
		}
		if (nas_fields(line, ' ', f, 2) == 2 && record_time(f[0], &at) &&
		    changes(f[1], dataset, prop) && at > *last)
			*last = at;
	}
	if (header)
		return VS_OK;
	*last = 0;  /* records without their header are no history */
	return vs_fail(err, VS_ERR_PROTOCOL, "zpool history printed no 'History for' line");
}
