/* Aligned text tables and JSON output. */
#include <stdlib.h>
#include <string.h>

#include "agent.h"

struct na_table {
	size_t ncols;
	char **headers;
	char ***rows;
	size_t nrows, cap;
	size_t sort_col;
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

void na_table_add(na_table *t, const char *const *cells)
{
	if (t->nrows == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 64;
		char ***rows = realloc(t->rows, cap * sizeof(*rows));
		if (!rows)
			return;
		t->rows = rows;
		t->cap = cap;
	}
	char **row = calloc(t->ncols, sizeof(char *));
	if (!row)
		return;
	for (size_t i = 0; i < t->ncols; i++)
		row[i] = strdup(cells[i] ? cells[i] : "");
	t->rows[t->nrows++] = row;
}

static const na_table *sorting;

static int compare_rows(const void *a, const void *b)
{
	char *const *ra = *(char **const *)a, *const *rb = *(char **const *)b;
	return strcmp(ra[sorting->sort_col], rb[sorting->sort_col]);
}

void na_table_sort(na_table *t, size_t col)
{
	t->sort_col = col;
	sorting = t;
	qsort(t->rows, t->nrows, sizeof(*t->rows), compare_rows);
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
	for (size_t i = 0; i < ncols; i++) {
		fputs(cells[i], out);
		if (i + 1 < ncols)
			fprintf(out, "%*s", (int)(widths[i] - width(cells[i]) + 2), "");
	}
	fputc('\n', out);
}

void na_table_print(const na_table *t, FILE *out)
{
	size_t *widths = calloc(t->ncols, sizeof(size_t));
	if (!widths)
		return;
	for (size_t i = 0; i < t->ncols; i++) {
		widths[i] = width(t->headers[i]);
		for (size_t r = 0; r < t->nrows; r++)
			if (width(t->rows[r][i]) > widths[i])
				widths[i] = width(t->rows[r][i]);
	}
	print_row(t->headers, widths, t->ncols, out);
	for (size_t r = 0; r < t->nrows; r++)
		print_row(t->rows[r], widths, t->ncols, out);
	free(widths);
}

static void free_cells(char **cells, size_t n)
{
	for (size_t i = 0; i < n; i++)
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
