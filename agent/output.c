/* Messages, aligned text tables, JSON output, progress. */
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cmd/cmd.h"
#include "analysis/stats.h"
#include "output.h"

/* ---- messages: one line on stderr (a fault's details indented below it) ---- */

/* A C0 control, DEL, or a byte of a C1 control's UTF-8 (U+0080-U+009F,
 * 0xc2 0x80-0x9f: U+009B is CSI to a terminal). */
static bool control_at(const unsigned char *c, const unsigned char *start)
{
	return *c < 0x20 || *c == 0x7f || (c[0] == 0xc2 && c[1] >= 0x80 && c[1] <= 0x9f) ||
	       (c > start && c[-1] == 0xc2 && c[0] >= 0x80 && c[0] <= 0x9f);
}

long na_bad_text_at(const char *text)
{
	const unsigned char *s = (const unsigned char *)text;
	for (size_t i = 0; s[i];) {
		unsigned char c = s[i];
		size_t n = c < 0x80 ? 1 : c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3
		           : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
		if (!n || c < 0x20 || c == 0x7f)
			return (long)i;
		for (size_t k = 1; k < n; k++)
			if ((s[i + k] & 0xc0) != 0x80)
				return (long)i;
		if ((c == 0xe0 && s[i + 1] < 0xa0) || (c == 0xed && s[i + 1] > 0x9f) ||
		    (c == 0xf0 && s[i + 1] < 0x90) || (c == 0xf4 && s[i + 1] > 0x8f))
			return (long)i;
		/* C1 controls (U+0080-U+009F) are control characters too. */
		if (c == 0xc2 && s[i + 1] < 0xa0)
			return (long)i;
		i += n;
	}
	return -1;
}

char *na_escaped(const char *s)
{
	const unsigned char *start = (const unsigned char *)s;
	size_t n = 0;
	for (const unsigned char *c = start; *c; c++)
		n += control_at(c, start) ? 4 : 1;
	char *out = malloc(n + 1), *o = out;
	for (const unsigned char *c = start; out && *c; c++)
		if (control_at(c, start))
			o += sprintf(o, "\\x%02x", *c);
		else
			*o++ = (char)*c;
	if (out)
		*o = '\0';
	return out;
}

/* Names in messages come from vCenter, the NAS or the user: their control
 * characters are shown, never sent to the terminal. */
static void vmessage(const char *prefix, const char *fmt, va_list ap)
{
	va_list again;
	va_copy(again, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	char *text = n >= 0 ? malloc((size_t)n + 1) : NULL;
	if (text)
		vsnprintf(text, (size_t)n + 1, fmt, again);
	va_end(again);
	char *shown = text ? na_escaped(text) : NULL;
	fprintf(stderr, "nfsagent: %s%s\n", prefix, shown ? shown : "out of memory");
	free(shown);
	free(text);
}

void na_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage("", fmt, ap);
	va_end(ap);
}

void na_warn(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmessage("warning: ", fmt, ap);
	va_end(ap);
}

vs_status na_usage_error(na_outcome *out, const char *fmt, ...)
{
	out->err = (vs_error){.status = VS_ERR_USAGE};
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(out->err.message, sizeof(out->err.message), fmt, ap);
	va_end(ap);
	out->usage = true;
	return VS_ERR_USAGE;
}

bool na_parse_long(const char *s, long min, long max, long *out)
{
	/* strtol would also take leading blanks and '+', and clamps with ERANGE */
	const char *digits = s + (*s == '-');
	if (*digits < '0' || *digits > '9')
		return false;
	char *end;
	errno = 0;
	long v = strtol(s, &end, 10);
	if (*end || errno == ERANGE || v < min || v > max)
		return false;
	*out = v;
	return true;
}

void na_print_detail(void *ud, const char *line)
{
	(void)ud;
	char *shown = na_escaped(line);
	fprintf(stderr, "  %s\n", shown ? shown : "");
	free(shown);
}

void na_error_details(const vs_error *err, void (*each)(void *ud, const char *line), void *ud)
{
	for (const char *d = err->details; *d;) {
		size_t n = strcspn(d, "\n");
		char *detail = strndup(d, n);
		if (detail)
			each(ud, detail);
		free(detail);
		d += n + (d[n] == '\n');
	}
}

static void print_error(bool warning, const vs_error *err)
{
	char line[1600];
	vs_error_format(err, line, sizeof(line));
	if (warning)
		na_warn("%s", line);
	else
		na_error("%s", line);
	/* The headline stays one line; why follows, one indented line each
	 * (vs_error_detail keeps a detail to one line). */
	na_error_details(err, na_print_detail, NULL);
}

void na_print_error(const vs_error *err)
{
	print_error(false, err);
}

void na_print_warning_error(const vs_error *err)
{
	print_error(true, err);
}

/* ---- tables ---- */

struct na_table {
	size_t ncols;
	char **headers;
	char ***rows;           /* a note: its text in cell 0, the other cells NULL */
	size_t nrows, cap;
	const size_t *droppable;  /* na_table_fit's columns, first to leave out first */
	size_t n_droppable;
};

na_table *na_table_new(size_t ncols, const char *const *headers)
{
	na_table *t = calloc(1, sizeof(*t));
	if (!t || !(t->headers = calloc(ncols, sizeof(char *)))) {
		free(t);
		return NULL;
	}
	t->ncols = ncols;
	for (size_t i = 0; i < ncols; i++)
		t->headers[i] = strdup(headers[i]);
	return t;
}

/* Room for one more row. */
static bool grow(na_table *t)
{
	if (t->nrows == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		char ***rows = realloc(t->rows, cap * sizeof(*rows));
		if (!rows)
			return false;
		t->rows = rows;
		t->cap = cap;
	}
	return true;
}

void na_table_add(na_table *t, const char *const *cells)
{
	char **row = grow(t) ? calloc(t->ncols, sizeof(char *)) : NULL;
	if (!row)
		return;
	for (size_t i = 0; i < t->ncols; i++)
		row[i] = na_escaped(cells[i] ? cells[i] : "");  /* a name's control characters shown */
	t->rows[t->nrows++] = row;
}

void na_table_note(na_table *t, const char *text)
{
	char **row = grow(t) ? calloc(t->ncols, sizeof(char *)) : NULL;
	if (row && !(row[0] = na_escaped(text))) {
		free(row);
		row = NULL;
	}
	if (row)
		t->rows[t->nrows++] = row;
}

/* Display width of UTF-8 text: one column per code point. */
static size_t width(const char *s)
{
	size_t w = 0;
	for (; *s; s++)
		w += ((unsigned char)*s & 0xC0) != 0x80;
	return w;
}

static void print_row(char *const *cells, const size_t *widths, size_t ncols, FILE *out)
{
	size_t last = ncols;
	while (last > 0 && !widths[last - 1])
		last--;
	for (size_t i = 0; i < last; i++) {
		if (!widths[i])
			continue;  /* left out to fit */
		fputs(cells[i], out);
		if (i + 1 < last)
			fprintf(out, "%*s", (int)(widths[i] - width(cells[i]) + 2), "");
	}
	fputc('\n', out);
}

void na_table_fit(na_table *t, const size_t *droppable, size_t n)
{
	t->droppable = droppable;
	t->n_droppable = n;
}

/* Leaves out the droppable columns (width 0), first to last, while the
 * table passes NA_TEXT_WIDTH; the line under the table names them. */
static void fit(const na_table *t, size_t *widths, char *left_out, size_t size)
{
	size_t total = 0;
	for (size_t i = 0; i < t->ncols; i++)
		total += widths[i] + 2;
	size_t n = 0;
	for (size_t k = 0; k < t->n_droppable && total - 2 > NA_TEXT_WIDTH; k++) {
		size_t c = t->droppable[k];
		total -= widths[c] + 2;
		widths[c] = 0;
		n += (size_t)snprintf(left_out + n, n < size ? size - n : 0, "%s%s", n ? ", " : "",
		                      t->headers[c]);
	}
}

void na_table_print(const na_table *t, FILE *out)
{
	size_t *widths = calloc(t->ncols, sizeof(size_t));
	char left_out[256] = "";
	if (!widths)
		return;
	for (size_t i = 0; i < t->ncols; i++) {
		widths[i] = width(t->headers[i]);
		for (size_t r = 0; r < t->nrows; r++)
			if (t->rows[r][t->ncols - 1] && width(t->rows[r][i]) > widths[i])
				widths[i] = width(t->rows[r][i]);
	}
	fit(t, widths, left_out, sizeof(left_out));
	print_row(t->headers, widths, t->ncols, out);
	for (size_t r = 0; r < t->nrows; r++)
		if (t->rows[r][t->ncols - 1])
			print_row(t->rows[r], widths, t->ncols, out);
		else  /* a note: under its row, wrapped */
			na_print_wrapped(out, t->rows[r][0], NA_TEXT_WIDTH, 2, 4);
	if (*left_out)
		fprintf(out, "(%s left out to fit %d columns: --wide shows them)\n", left_out, NA_TEXT_WIDTH);
	free(widths);
}

static void free_cells(char **cells, size_t n)
{
	for (size_t i = 0; cells && i < n; i++)
		free(cells[i]);
	free(cells);
}

void na_table_free(na_table **tp)
{
	na_table *t = *tp;
	if (!t)
		return;
	for (size_t r = 0; r < t->nrows; r++)
		free_cells(t->rows[r], t->ncols);
	free(t->rows);
	free_cells(t->headers, t->ncols);
	free(t);
	*tp = NULL;
}

void na_json_print(json_t *json)
{
	json_dumpf(json, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
	fputc('\n', stdout);
	json_decref(json);
}

char *na_shell_quote(const char *s)
{
	static const char plain[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	                            "/._-+=,:@%";
	if (*s && strspn(s, plain) == strlen(s))
		return strdup(s);
	size_t quotes = 0;
	for (const char *p = s; *p; p++)
		quotes += *p == '\'';
	char *out = malloc(strlen(s) + 3 * quotes + 3), *o = out;
	if (!out)
		return NULL;
	*o++ = '\'';
	for (const char *p = s; *p; p++) {
		if (*p == '\'') {  /* close, an escaped quote, open again */
			memcpy(o, "'\\''", 4);
			o += 4;
		} else {
			*o++ = *p;
		}
	}
	*o++ = '\'';
	*o = '\0';
	return out;
}

double na_run_clock(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

const char *na_size(int64_t bytes, char *buf, size_t size)
{
	static const char *const units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
	if (bytes < 0) {
		snprintf(buf, size, "-");
		return buf;
	}
	double v = (double)bytes;
	size_t u = 0;
	while (v >= 1024 && u + 1 < sizeof(units) / sizeof(units[0])) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, u ? "%.1f %s" : "%.0f %s", v, units[u]);
	return buf;
}

const char *na_nfs_label(const char *type)
{
	if (!type)
		return "-";
	return strcmp(type, "NFS41") == 0 ? "NFS 4.1" : strcmp(type, "NFS") == 0 ? "NFS 3" : type;
}

/* ---- progress: a bar on a terminal, plain lines in a pipe or a log ---- */

void na_progress_init(na_progress *p, const char *what)
{
	fflush(stdout);  /* what was said before the progress comes first */
	*p = (na_progress){.what = what, .last = -1, .tty = isatty(STDERR_FILENO)};
}

void na_progress_cb(int percent, void *ud)
{
	na_progress *p = ud;
	if (percent == p->last)
		return;
	p->last = percent;
	if (!p->tty) {
		fprintf(stderr, "%s: %d%%\n", p->what, percent);
		return;
	}
	int filled = percent / 5;
	fprintf(stderr, "\r%s [%.*s%*s] %3d%%", p->what, filled, "####################", 20 - filled, "",
	        percent);
	fflush(stderr);
}

void na_progress_done(na_progress *p)
{
	if (p->tty && p->last >= 0)
		fputc('\n', stderr);
	p->last = -1;
}

enum { WAIT_QUIET_S = 2, WAIT_LINE_S = 10 };

void na_wait_init(na_wait *w, const char *what, long expected_s)
{
	fflush(stdout);
	*w = (na_wait){.what = what, .expected_s = expected_s, .tty = isatty(STDERR_FILENO)};
}

void na_wait_tick(long elapsed_s, void *ud)
{
	na_wait *w = ud;
	long left = w->expected_s - elapsed_s;
	if (w->tty && elapsed_s >= WAIT_QUIET_S) {
		int filled = w->expected_s > 0 && left > 0 ? (int)(20 * elapsed_s / w->expected_s) : 20;
		fprintf(stderr, "\r%s [%.*s%*s] %ld:%02ld, %s%ld:%02ld left ", w->what, filled,
		        "####################", 20 - filled, "", elapsed_s / 60, elapsed_s % 60,
		        left > 0 ? "about " : "over, ", (left > 0 ? left : 0) / 60, (left > 0 ? left : 0) % 60);
		fflush(stderr);
		w->shown = true;
	} else if (!w->tty && elapsed_s >= w->last_line_s + WAIT_LINE_S) {
		w->last_line_s = elapsed_s - elapsed_s % WAIT_LINE_S;
		if (left > 0)
			fprintf(stderr, "%s: %ld s, about %ld s left\n", w->what, w->last_line_s, left);
		else
			fprintf(stderr, "%s: %ld s, past the %ld s expected\n", w->what, w->last_line_s,
			        w->expected_s);
	}
}

void na_wait_done(na_wait *w)
{
	if (w->shown)
		fputc('\n', stderr);
	w->shown = false;
}
