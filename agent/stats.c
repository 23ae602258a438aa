#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stats.h"

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

na_spread na_spread_of(const double *values, size_t n)
{
	na_spread s = {0, -1, -1, -1};
	double *v = malloc((n ? n : 1) * sizeof(double));
	if (!v)
		return s;
	for (size_t i = 0; i < n; i++)
		if (values[i] >= 0)
			v[s.n++] = values[i];
	if (s.n) {
		qsort(v, s.n, sizeof(double), by_value);
		s.min = v[0];
		s.max = v[s.n - 1];
		s.median = s.n % 2 ? v[s.n / 2] : (v[s.n / 2 - 1] + v[s.n / 2]) / 2;
	}
	free(v);
	return s;
}

/* ---- noise ----
 * Two runs of one fio test on one datastore differed by 46% (17,700 against
 * 12,100 IOPS), so one run each proves nothing, and with few runs a proper
 * test has no power.  The rule is deliberately simple enough to check by
 * hand: with fewer than NA_NOISE_MIN_RUNS runs in either group nothing is
 * claimed; otherwise a change is beyond noise only when
 *   1. the groups' ranges do not overlap: every run of one group beat every
 *      run of the other.  That is a Mann-Whitney U of 0, the most extreme
 *      ordering there is; for 3 against 3 its exact two-sided p is
 *      2 / C(6, 3) = 0.1, so about one call in ten can still be chance, and
 *      more runs make it stronger (4 against 4: p = 0.029), and
 *   2. the change is larger than the larger relative spread
 *      ((max - min) / median) of the two groups, so that two tight but
 *      barely separated groups do not make a 1% "win".
 * Everything else is within noise. */

const char na_noise_method[] =
	"Noise: with fewer than 3 runs in either group a change is \"too few runs to tell\" "
	"and no winner is claimed. Otherwise it is \"beyond noise\" only when the groups' "
	"ranges (min-max) do not overlap - for 3 runs against 3 that is a Mann-Whitney U "
	"test at its extreme, p = 0.1 two-sided, so about 1 such call in 10 can still be "
	"chance - and the change is larger than either group's relative spread "
	"((max-min)/median); else \"within noise\". More runs make the call stronger.";

void na_print_wrapped(FILE *out, const char *text, size_t width)
{
	size_t col = 0;
	while (*text) {
		size_t word = strcspn(text, " ");
		if (col && col + 1 + word > width) {
			fputc('\n', out);
			col = 0;
		} else if (col) {
			fputc(' ', out);
			col++;
		}
		fwrite(text, 1, word, out);
		col += word;
		text += word + (text[word] == ' ');
	}
	fputc('\n', out);
}

double na_change_pct(const na_spread *a, const na_spread *b)
{
	if (!a->n || !b->n || !(a->median > 0))
		return NAN;
	return (b->median - a->median) / a->median * 100;
}

double na_rel_spread(const na_spread *s)
{
	if (!s->n || !(s->median > 0))
		return INFINITY;
	return (s->max - s->min) / s->median;
}

bool na_ranges_overlap(const na_spread *a, const na_spread *b)
{
	return a->min <= b->max && b->min <= a->max;
}

na_noise na_noise_of(const na_spread *a, const na_spread *b)
{
	if (a->n < NA_NOISE_MIN_RUNS || b->n < NA_NOISE_MIN_RUNS)
		return NA_NOISE_TOO_FEW;
	double change = na_change_pct(a, b);
	/* No baseline to measure a change against: claim nothing. */
	if (isnan(change) || na_ranges_overlap(a, b))
		return NA_NOISE_WITHIN;
	double spread = na_rel_spread(a) > na_rel_spread(b) ? na_rel_spread(a) : na_rel_spread(b);
	double size = change < 0 ? -change : change;
	return size / 100 > spread ? NA_NOISE_BEYOND : NA_NOISE_WITHIN;
}

const char *na_noise_name(na_noise v)
{
	switch (v) {
	case NA_NOISE_TOO_FEW: return "too few runs to tell";
	case NA_NOISE_BEYOND: return "beyond noise";
	default: return "within noise";
	}
}

double na_mann_whitney_extreme_p(size_t n1, size_t n2)
{
	/* C(n1 + n2, n1) built up as a product; exact in a double for any
	 * realistic number of repetitions. */
	double c = 1;
	for (size_t i = 1; i <= n1; i++)
		c = c * (double)(n2 + i) / (double)i;
	return n1 && n2 && c > 2 ? 2 / c : 1;
}

/* ---- text ---- */

const char *na_number_text(double v, char *buf, size_t size)
{
	if (v < 100) {
		snprintf(buf, size, v < 10 ? "%.2f" : "%.1f", v);
		return buf;
	}
	return na_thousands(v, buf, size);
}

const char *na_thousands(double v, char *buf, size_t size)
{
	char digits[64];
	int len = snprintf(digits, sizeof(digits), "%.0f", v);
	len = len < (int)sizeof(digits) ? len : (int)sizeof(digits) - 1;
	size_t at = 0;
	/* 17700 -> 17,700: a comma before every third digit from the right */
	for (int i = 0; i < len && at + 2 < size; i++) {
		if (i && (len - i) % 3 == 0)
			buf[at++] = ',';
		buf[at++] = digits[i];
	}
	buf[at] = '\0';
	return buf;
}

const char *na_spread_text(const na_spread *s, double scale, const char *unit, char *buf,
                           size_t size)
{
	char med[48], lo[48], hi[48];
	na_number_text(s->median * scale, med, sizeof(med));
	if (s->n < 2)
		snprintf(buf, size, "%s%s (n=%zu)", med, unit, s->n);
	else
		snprintf(buf, size, "%s%s (%s-%s, n=%zu)", med, unit,
		         na_number_text(s->min * scale, lo, sizeof(lo)),
		         na_number_text(s->max * scale, hi, sizeof(hi)), s->n);
	return buf;
}

const char *na_change_text(double pct, bool lower_is_better, char *buf, size_t size)
{
	if (isnan(pct))
		snprintf(buf, size, "n/a");
	else if (pct < 0.05 && pct > -0.05)
		snprintf(buf, size, "+0.0%%");
	else
		snprintf(buf, size, "%+.1f%% %s", pct, (pct > 0) != lower_is_better ? "better" : "worse");
	return buf;
}
