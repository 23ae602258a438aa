/* What a pool is doing besides serving I/O, from `zpool status POOL` as
 * OpenZFS 2.1 to 2.3 print it (cmd/zpool/zpool_main.c):
 *   "  scan: resilver in progress since DATE"        print_scan_scrub_resilver_status
 *   "  scan: resilver (draid1:4d:6c:1s-0) in progress since DATE"  print_rebuild_status_impl
 *   "  scan: scrub in progress since DATE"           (a paused scrub: "scrub paused since")
 *   "remove: Evacuation of DEV in progress since DATE"               print_removal_status
 *   "expand: expansion of raidz1-0 in progress since DATE"   print_raidz_expand_status (2.3)
 * each followed by lines indented with a tab, one of which ends its
 * figures with "NN.NN% done".  Only what is in progress moves the pool's
 * figures: a finished, canceled or paused one is not said. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "nfsagent/nas.h"

/* The line's key ("scan", "remove", "expand") and what follows it. */
static bool keyed(nas_span line, const char *key, nas_span *rest)
{
	size_t i = 0, k = strlen(key);
	while (i < line.n && (line.s[i] == ' ' || line.s[i] == '\t'))
		i++;
	if (line.n - i < k + 1 || memcmp(line.s + i, key, k) != 0 || line.s[i + k] != ':')
		return false;
	i += k + 1;
	while (i < line.n && line.s[i] == ' ')
		i++;
	*rest = (nas_span){line.s + i, line.n - i};
	return true;
}

static bool contains(nas_span s, const char *word)
{
	size_t k = strlen(word);
	for (size_t i = 0; i + k <= s.n; i++)
		if (memcmp(s.s + i, word, k) == 0)
			return true;
	return false;
}

static bool starts(nas_span s, const char *word)
{
	return s.n >= strlen(word) && memcmp(s.s, word, strlen(word)) == 0;
}

/* The activity a keyed line says is in progress, or NULL. */
static const char *in_progress(nas_span line)
{
	nas_span rest;
	if (keyed(line, "scan", &rest) && contains(rest, " in progress since "))
		return starts(rest, "resilver") ? "resilver"
		       : starts(rest, "scrub")  ? "scrub"
		       : starts(rest, "error scrub") ? "error scrub"
		                                     : "scan";
	if (keyed(line, "remove", &rest) && contains(rest, " in progress since "))
		return "removal";
	if (keyed(line, "expand", &rest) && contains(rest, " in progress since "))
		return "expansion";
	return NULL;
}

/* "NN.NN% done" in line: the whole percent, or -1. */
static int percent_done(nas_span line)
{
	for (size_t i = 0; i + 6 <= line.n; i++) {
		if (memcmp(line.s + i, "% done", 6) != 0)
			continue;
		size_t b = i;
		while (b > 0 && ((line.s[b - 1] >= '0' && line.s[b - 1] <= '9') || line.s[b - 1] == '.'))
			b--;
		uint64_t whole;
		size_t dot = b;
		while (dot < i && line.s[dot] != '.')
			dot++;
		return nas_span_u64((nas_span){line.s + b, dot - b}, &whole) && whole <= 100 ? (int)whole
		                                                                              : -1;
	}
	return -1;
}

static void say(nas_activity *out, const char *what, int pct)
{
	size_t n = strlen(out->words);
	if (pct >= 0)
		snprintf(out->words + n, sizeof(out->words) - n, "%s%s %d%%", n ? ", " : "", what, pct);
	else
		snprintf(out->words + n, sizeof(out->words) - n, "%s%s", n ? ", " : "", what);
}

void nas_parse_zpool_status(const char *text, size_t len, nas_activity *out)
{
	*out = (nas_activity){0};
	if (memchr(text, '\0', len))
		return;
	nas_lines lines = nas_lines_of(text, len);
	nas_span line;
	const char *pending = NULL;  /* in progress, its percent not seen yet */
	while (nas_next_line(&lines, &line)) {
		const char *what = in_progress(line);
		int pct = pending ? percent_done(line) : -1;
		if (pending && (what || pct >= 0 || (line.n && line.s[0] != '\t'))) {
			say(out, pending, pct);
			pending = NULL;
		}
		if (what)
			pending = what;
	}
	if (pending)
		say(out, pending, -1);
}
