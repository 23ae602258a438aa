#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stats.h"

static int by_value(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

/* Sorts v (n > 0) and returns its median. */
static double median_sorted(double *v, size_t n)
{
	qsort(v, n, sizeof(double), by_value);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
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
		s.median = median_sorted(v, s.n);
		s.min = v[0];
		s.max = v[s.n - 1];
	}
	free(v);
	return s;
}

/* ---- distributions ---- */

/* The continued fraction of the regularized incomplete beta function
 * (modified Lentz); converges fast for x < (a + 1) / (a + b + 2). */
static double beta_fraction(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1);
	d = 1 / (fabs(d) < tiny ? tiny : d);
	double h = d;
	for (int m = 1; m <= 400; m++) {
		double m2 = 2.0 * m;
		double num[2] = {m * (b - m) * x / ((a - 1 + m2) * (a + m2)),
		                 -(a + m) * (a + b + m) * x / ((a + m2) * (a + 1 + m2))};
		double step = 1;
		for (int k = 0; k < 2; k++) {
			d = 1 + num[k] * d;
			c = 1 + num[k] / c;
			d = 1 / (fabs(d) < tiny ? tiny : d);
			c = fabs(c) < tiny ? tiny : c;
			step = d * c;
			h *= step;
		}
		if (fabs(step - 1) < 1e-15)
			break;
	}
	return h;
}

/* I_x(a, b). */
static double beta_regularized(double a, double b, double x)
{
	if (x <= 0)
		return 0;
	if (x >= 1)
		return 1;
	double front = exp(lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x));
	if (x < (a + 1) / (a + b + 2))
		return front * beta_fraction(a, b, x) / a;
	return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

/* P(|T| > t) for t >= 0, computed directly so that small p keep their digits. */
static double t_two_tail(double t, double df)
{
	return beta_regularized(df / 2, 0.5, df / (df + t * t));
}

double na_t_cdf(double t, double df)
{
	double half = t_two_tail(fabs(t), df) / 2;
	return t > 0 ? 1 - half : half;
}

static double t_pdf(double t, double df)
{
	return exp(lgamma((df + 1) / 2) - lgamma(df / 2) - (df + 1) / 2 * log1p(t * t / df)) /
	       sqrt(df * 3.14159265358979323846);
}

double na_t_quantile(double p, double df)
{
	if (!(p > 0 && p < 1) || !(df > 0))
		return NAN;
	if (p < 0.5)
		return -na_t_quantile(1 - p, df);
	/* Start: the normal quantile (Abramowitz-Stegun 26.2.23) with the first
	 * Cornish-Fisher terms; then Newton.  The CDF is concave for t > 0, so
	 * from below Newton never overshoots, and one step from above lands below. */
	double q = sqrt(-2 * log(1 - p));
	double z = q - (2.515517 + 0.802853 * q + 0.010328 * q * q) /
	                   (1 + 1.432788 * q + 0.189269 * q * q + 0.001308 * q * q * q);
	double t = z + (z * z * z + z) / (4 * df) +
	           (5 * pow(z, 5) + 16 * z * z * z + 3 * z) / (96 * df * df);
	for (int i = 0; i < 100; i++) {
		double step = (na_t_cdf(t, df) - p) / t_pdf(t, df);
		t -= step;
		if (fabs(step) <= 1e-12 * fabs(t))
			break;
	}
	return t;
}

/* ---- groups ---- */

na_group na_group_of(const double *values, size_t n)
{
	na_group g = {.spread = na_spread_of(values, n), .mean = NAN, .sd = NAN};
	double sum = 0, sq = 0;
	for (size_t i = 0; i < n; i++)
		if (values[i] > 0) {
			g.n++;
			sum += log(values[i]);
		}
	if (!g.n)
		return g;
	g.mean = sum / (double)g.n;
	for (size_t i = 0; i < n; i++)
		if (values[i] > 0)
			sq += (log(values[i]) - g.mean) * (log(values[i]) - g.mean);
	if (g.n > 1)
		g.sd = sqrt(sq / (double)(g.n - 1));
	/* Runs that all measured one value: no spread at all, not the rounding
	 * left by summing their logs (na_effect_of's same reads it). */
	if (g.spread.min > 0 && g.spread.min == g.spread.max) {
		g.mean = log(g.spread.min);
		g.sd = g.n > 1 ? 0 : NAN;
	}
	return g;
}

double na_geomean(const double *values, size_t n)
{
	na_group g = na_group_of(values, n);
	return g.n ? exp(g.mean) : NAN;
}

double na_group_spread_pct(const na_group *g)
{
	return isnan(g->sd) ? NAN : (exp(g->sd) - 1) * 100;
}

/* The logs of the values > 0; NULL without memory. */
static double *logs_of(const double *v, size_t n, size_t *out_n)
{
	double *l = malloc((n ? n : 1) * sizeof(double));
	*out_n = 0;
	for (size_t i = 0; l && i < n; i++)
		if (v[i] > 0)
			l[(*out_n)++] = log(v[i]);
	return l;
}

/* ---- rank test ---- */

/* The exact null distribution of U for m and n runs: the coefficients of
 * the Gaussian binomial [m + n choose m]_q, built as the product of
 * (1 - q^(n+i)) / (1 - q^i) for i = 1..m (each partial product is a
 * polynomial).  c has room for m * n + m + 1 (the products' degree);
 * counts 0..m*n are the result. */
static void u_counts(size_t m, size_t n, double *c)
{
	for (size_t k = 0; k <= m * n + m; k++)
		c[k] = k == 0;
	for (size_t i = 1, deg = 0; i <= m; i++) {
		for (size_t k = deg + n + i; k >= n + i; k--)   /* times (1 - q^(n+i)) */
			c[k] -= c[k - n - i];
		for (size_t k = i; k <= deg + n; k++)           /* over (1 - q^i): exact */
			c[k] += c[k - i];
		for (size_t k = deg + n + 1; k <= deg + n + i; k++)
			c[k] = 0;
		deg += n;
	}
}

double na_mann_whitney_p(const double *a, size_t na, const double *b, size_t nb)
{
	if (na < NA_RANK_MIN_RUNS || nb < NA_RANK_MIN_RUNS || na > 100 || nb > 100)
		return NAN;
	double u = 0;  /* pairs where b is larger, ties half */
	for (size_t i = 0; i < na; i++)
		for (size_t j = 0; j < nb; j++)
			u += b[j] > a[i] ? 1 : b[j] == a[i] ? 0.5 : 0;
	double *c = malloc((na * nb + na + 1) * sizeof(double));
	if (!c)
		return NAN;
	u_counts(na, nb, c);
	double total = 0, low = 0, high = 0;
	for (size_t k = 0; k <= na * nb; k++) {
		total += c[k];
		low += (double)k <= floor(u) ? c[k] : 0;
		high += (double)k >= ceil(u) ? c[k] : 0;
	}
	free(c);
	double p = 2 * (low < high ? low : high) / total;
	return p < 1 ? p : 1;
}

double na_hodges_lehmann(const double *a, size_t na, const double *b, size_t nb)
{
	size_t la_n, lb_n;
	double *la = logs_of(a, na, &la_n), *lb = logs_of(b, nb, &lb_n);
	double *d = la && lb && la_n && lb_n ? malloc(la_n * lb_n * sizeof(double)) : NULL;
	double r = NAN;
	if (d) {
		for (size_t i = 0; i < la_n; i++)
			for (size_t j = 0; j < lb_n; j++)
				d[i * lb_n + j] = lb[j] - la[i];
		r = exp(median_sorted(d, la_n * lb_n));
	}
	free(d);
	free(la);
	free(lb);
	return r;
}

/* ---- effects ---- */

/* The band's edges in logs: a rise must clear ln(1 + band), a drop
 * ln(1 - band) (minus infinity from 100%: no drop clears it). */
static double band_up(double band)
{
	return log1p(band);
}

static double band_down(double band)
{
	return band < 1 ? log1p(-band) : -INFINITY;
}

/* The shift in logs seen with 80% power at two-sided level alpha. */
static double mde_log(double sd, size_t na, size_t nb, double alpha)
{
	if (na < 2 || nb < 2 || na + nb < 3 || isnan(sd))
		return NAN;
	double df = (double)(na + nb - 2);
	return (na_t_quantile(1 - alpha / 2, df) + na_t_quantile(NA_POWER, df)) * sd *
	       sqrt(1.0 / (double)na + 1.0 / (double)nb);
}

double na_mde(double sd, size_t na, size_t nb, double alpha, double band)
{
	return exp(mde_log(sd, na, nb, alpha) + band_up(band)) - 1;
}

double na_mde_drop(double sd, size_t na, size_t nb, double alpha, double band)
{
	return band < 1 ? 1 - exp(band_down(band) - mde_log(sd, na, nb, alpha)) : NAN;
}

size_t na_runs_needed(double sd, double change, double alpha, double band)
{
	/* The rise is the harder direction: a size seen as a rise is seen as a drop. */
	for (size_t n = NA_NOISE_MIN_RUNS; !isnan(sd) && n <= 10000; n += n < 100 ? 1 : n / 20)
		if (na_mde(sd, n, n, alpha, band) <= change)
			return n;
	return 0;
}

/* Values of exactly 0: runs that stalled. */
static size_t stalls_of(const double *v, size_t n)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		k += v[i] == 0;
	return k;
}

void na_effect_level(na_effect *e, double alpha)
{
	e->alpha = alpha;
	if (isnan(e->sd))
		return;
	double df = (double)(e->na + e->nb - 2), d = log(e->ratio);
	double se = e->sd * sqrt(1.0 / (double)e->na + 1.0 / (double)e->nb);
	double tq = na_t_quantile(1 - alpha / 2, df);
	e->lo = exp(d - tq * se);
	e->hi = exp(d + tq * se);
	e->mde = na_mde(e->sd, e->na, e->nb, alpha, e->band);
	e->mde_drop = na_mde_drop(e->sd, e->na, e->nb, alpha, e->band);
	/* The verdict is read off the printed interval itself. */
	bool clears = d - tq * se > band_up(e->band) || d + tq * se < band_down(e->band);
	e->verdict = !e->judged ? NA_NOISE_SHOWN : clears ? NA_NOISE_BEYOND : NA_NOISE_WITHIN;
}

na_effect na_effect_of(const double *a, size_t na, const double *b, size_t nb, double band,
                       bool judged)
{
	na_group ga = na_group_of(a, na), gb = na_group_of(b, nb);
	na_effect e = {.verdict = NA_NOISE_TOO_FEW, .judged = judged, .na = ga.n, .nb = gb.n,
	               .stalled_a = stalls_of(a, na), .stalled_b = stalls_of(b, nb),
	               .ratio = NAN, .lo = NAN, .hi = NAN, .p = NAN, .p_band = NAN, .p_holm = NAN,
	               .sd = NAN, .alpha = NA_ALPHA, .family = 1, .weight = 1, .band = band, .mde = NAN,
	               .mde_drop = NAN, .mw_p = NAN, .hl_ratio = NAN};
	e.center_a = ga.n ? exp(ga.mean) : NAN;
	e.center_b = gb.n ? exp(gb.mean) : NAN;
	if (ga.n && gb.n)
		e.ratio = exp(gb.mean - ga.mean);
	if (ga.n < NA_NOISE_MIN_RUNS || gb.n < NA_NOISE_MIN_RUNS)
		return e;
	double df = (double)(ga.n + gb.n - 2), d = gb.mean - ga.mean;
	e.sd = sqrt(((double)(ga.n - 1) * ga.sd * ga.sd + (double)(gb.n - 1) * gb.sd * gb.sd) / df);
	double se = e.sd * sqrt(1.0 / (double)ga.n + 1.0 / (double)gb.n);
	double beyond = d > 0 ? d - band_up(band) : band_down(band) - d;
	/* Identical runs: no spread, so any difference at all is certain. */
	e.p = se > 0 ? t_two_tail(fabs(d) / se, df) : d != 0 ? 0 : 1;
	e.p_band = !(beyond > 0) ? 1 : se > 0 ? t_two_tail(beyond / se, df) : 0;
	e.p_holm = e.p_band;
	e.same = e.sd == 0;  /* exact: na_group_of's sd for one value */
	na_effect_level(&e, NA_ALPHA);
	if (judged && ga.n >= NA_RANK_MIN_RUNS && gb.n >= NA_RANK_MIN_RUNS) {
		size_t la_n, lb_n;
		double *la = logs_of(a, na, &la_n), *lb = logs_of(b, nb, &lb_n);
		if (la && lb)
			e.mw_p = na_mann_whitney_p(la, la_n, lb, lb_n);
		free(la);
		free(lb);
		e.hl_ratio = na_hodges_lehmann(a, na, b, nb);
		/* Both at the plain 5%: the question is whether one run carries the call. */
		e.fragile = !isnan(e.mw_p) && (e.p < NA_ALPHA) != (e.mw_p < NA_ALPHA);
	}
	return e;
}

/* Whether a line takes part in its family's correction. */
static bool in_family(const na_effect *e)
{
	return e->judged && e->verdict != NA_NOISE_TOO_FEW;
}

/* Whether line i comes before line j in Holm's order: by p / weight, ties
 * by position. */
static bool before(na_effect *const *lines, size_t i, size_t j)
{
	double x = lines[i]->p_band * lines[j]->weight, y = lines[j]->p_band * lines[i]->weight;
	return x < y || (x == y && i < j);
}

/* The family's line after prev in Holm's order (SIZE_MAX: the first);
 * SIZE_MAX after the last. */
static size_t next_step(na_effect *const *lines, size_t n, size_t prev)
{
	size_t best = SIZE_MAX;
	for (size_t i = 0; i < n; i++)
		if (in_family(lines[i]) && (prev == SIZE_MAX || before(lines, prev, i)) &&
		    (best == SIZE_MAX || before(lines, i, best)))
			best = i;
	return best;
}

void na_verdicts(na_effect *const *lines, size_t n)
{
	size_t m = 0;
	double left = 0, running = 0, stop = -1;  /* stop: the weight left when calls stopped */
	for (size_t i = 0; i < n; i++)
		if (in_family(lines[i])) {
			m++;
			left += lines[i]->weight;
		}
	for (size_t i = next_step(lines, n, SIZE_MAX); i != SIZE_MAX; i = next_step(lines, n, i)) {
		na_effect *e = lines[i];
		double adj = e->p_band * left / e->weight;
		running = adj > running ? adj : running;
		e->p_holm = running < 1 ? running : 1;
		if (stop < 0 && !(running < NA_ALPHA))
			stop = left;
		/* A line not called is judged at the step where the calls stopped:
		 * its p / weight is no smaller than that step's line's. */
		e->family = m;
		na_effect_level(e, NA_ALPHA * e->weight / (stop < 0 ? left : stop));
		left -= e->weight;
	}
}

double na_effect_pct(const na_effect *e)
{
	return isnan(e->ratio) ? NAN : (e->ratio - 1) * 100;
}

/* ---- time order ---- */

/* Whether every time of x is earlier than every time of y. */
static bool all_before(const char *const *x, size_t nx, const char *const *y, size_t ny)
{
	for (size_t i = 0; i < nx; i++)
		for (size_t j = 0; j < ny; j++)
			if (strcmp(x[i], y[j]) >= 0)
				return false;
	return true;
}

int na_time_order(const char *const *a, size_t na, const char *const *b, size_t nb)
{
	for (size_t i = 0; i < na + nb; i++)
		if (!(i < na ? a[i] : b[i - na]))
			return 0;
	if (!na || !nb)
		return 0;
	return all_before(a, na, b, nb) ? -1 : all_before(b, nb, a, na) ? 1 : 0;
}

const char *na_noise_name(na_noise v)
{
	switch (v) {
	case NA_NOISE_TOO_FEW: return "too few runs to tell";
	case NA_NOISE_BEYOND: return "beyond noise";
	case NA_NOISE_SHOWN: return "follows IOPS";
	default: return "within noise";
	}
}

const char na_noise_method[] =
	"Each side shows its runs' geometric mean (lowest-highest): the change is the ratio of "
	"the two geometric means. A change is \"beyond noise\" when its confidence interval, from "
	"a t test on the runs' logarithms, leaves out no change. Each profile's IOPS and p99 lines are judged together "
	"as one question (Holm's correction, IOPS weighing most), each interval printed at the "
	"level its line was judged at (95% alone, more in a family), so that a profile whose groups "
	"truly perform alike shows a change less than 1 time in 20; MB/s, average latency and a "
	"mixed job's write IOPS follow from IOPS and get no verdict of their own. \"Within noise\" "
	"does not mean nothing changed, only that these runs could not see a change smaller than "
	"the size given; with fewer than 3 runs a side it is \"too few runs to tell\".";

void na_print_wrapped(FILE *out, const char *text, size_t width, size_t first, size_t rest)
{
	size_t col = (size_t)fprintf(out, "%*s", (int)first, "");
	bool fresh = true;  /* nothing on this line yet */
	while (*text) {
		size_t word = strcspn(text, " ");
		if (!fresh && col + 1 + word > width) {
			col = (size_t)fprintf(out, "\n%*s", (int)rest, "") - 1;
		} else if (!fresh) {
			fputc(' ', out);
			col++;
		}
		fwrite(text, 1, word, out);
		col += word;
		fresh = false;
		text += word + (text[word] == ' ');
	}
	fputc('\n', out);
}

void na_print_wrapped_by(FILE *out, void (*write)(FILE *, const void *), const void *what,
                         size_t first, size_t rest)
{
	char *line = NULL;
	size_t size = 0;
	FILE *text = open_memstream(&line, &size);
	if (!text)
		return;
	write(text, what);
	fclose(text);
	size_t n = strlen(line);
	while (n && line[n - 1] == '\n')
		line[--n] = '\0';
	na_print_wrapped(out, line + strspn(line, " "), NA_TEXT_WIDTH, first, rest);
	free(line);
}

static void write_warning(FILE *out, const void *text)
{
	fprintf(out, "warning: %s", (const char *)text);
}

void na_warn_wrapped(const char *text)
{
	na_print_wrapped_by(stdout, write_warning, text, 0, 2);
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

static const char *spread_text(const na_spread *s, double center, double scale, const char *unit,
                               bool with_n, char *buf, size_t size)
{
	char med[48], lo[48], hi[48], n[32] = "";
	na_number_text((isnan(center) ? s->median : center) * scale, med, sizeof(med));
	if (with_n)
		snprintf(n, sizeof(n), "%sn=%zu", s->n < 2 ? "" : ", ", s->n);
	if (s->n < 2)
		snprintf(buf, size, "%s%s%s%s%s", med, unit, with_n ? " (" : "", n, with_n ? ")" : "");
	else
		snprintf(buf, size, "%s%s (%s-%s%s)", med, unit,
		         na_number_text(s->min * scale, lo, sizeof(lo)),
		         na_number_text(s->max * scale, hi, sizeof(hi)), n);
	return buf;
}

const char *na_spread_text(const na_spread *s, double center, double scale, const char *unit,
                           char *buf, size_t size)
{
	return spread_text(s, center, scale, unit, true, buf, size);
}

const char *na_spread_bare_text(const na_spread *s, double center, double scale, const char *unit,
                                char *buf, size_t size)
{
	return spread_text(s, center, scale, unit, false, buf, size);
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

const char *na_level_text(double alpha, char *buf, size_t size)
{
	snprintf(buf, size, "%.4g", (1 - alpha) * 100);
	return buf;
}

const char *na_effect_text(const na_effect *e, bool lower_is_better, char *buf, size_t size)
{
	char change[48], level[16];
	na_change_text(na_effect_pct(e), lower_is_better, change, sizeof(change));
	if (isnan(e->lo) || e->same)
		snprintf(buf, size, "%s", change);
	else
		snprintf(buf, size, "%s (%s%% CI %+.1f%% to %+.1f%%)", change,
		         na_level_text(e->alpha, level, sizeof(level)), (e->lo - 1) * 100,
		         (e->hi - 1) * 100);
	return buf;
}

/* "; 1 run of B at 0 left out of the test": a stall is never dropped silently. */
static void stalls_text(const na_effect *e, char *buf, size_t size)
{
	size_t n[2] = {e->stalled_a, e->stalled_b};
	int at = 0;
	buf[0] = '\0';
	for (int g = 0; g < 2; g++)
		if (n[g] && at >= 0 && (size_t)at < size)
			at += snprintf(buf + at, size - (size_t)at, "; %zu run%s of %c at 0 left out of the test",
			               n[g], n[g] == 1 ? "" : "s", g ? 'B' : 'A');
}

const char *na_verdict_text(const na_effect *e, char *buf, size_t size)
{
	const char *name = na_noise_name(e->verdict);
	const char *fragile = e->fragile ? "; depends on one run" : "";
	char stalls[128];
	stalls_text(e, stalls, sizeof(stalls));
	/* No spread: "within noise" and what it could see (+0%) would be
	 * read as a measured noise; say what the runs did instead. */
	if (e->same && e->ratio == 1 && !stalls[0]) {
		snprintf(buf, size, "the same in every run");
		return buf;
	}
	if (e->same) {
		snprintf(buf, size, "%s: each side the same in every run%s", name, stalls);
		return buf;
	}
	if (e->verdict != NA_NOISE_WITHIN || isnan(e->mde)) {
		snprintf(buf, size, "%s%s%s", name, fragile, stalls);
		return buf;
	}
	char runs[48], drop[48] = "";
	if (e->na == e->nb)
		snprintf(runs, sizeof(runs), "%zu runs a side", e->na);
	else
		snprintf(runs, sizeof(runs), "%zu and %zu runs", e->na, e->nb);
	if (!isnan(e->mde_drop))
		snprintf(drop, sizeof(drop), " or drops of about -%.0f%%", e->mde_drop * 100);
	snprintf(buf, size, "%s: could only see rises of about +%.0f%%%s with %s%s%s", name,
	         e->mde * 100, drop, runs, fragile, stalls);
	return buf;
}

bool na_percent_parse(const char *text, double *pct)
{
	char *end = NULL;
	*pct = strtod(text, &end);
	/* Plain decimals only: strtod also reads " 5", "+5", "0x10" and "1e3". */
	bool plain = strspn(text, "0123456789.") == (size_t)(end - text) && end != text;
	bool number = plain && (!*end || (end[0] == '%' && !end[1]));
	/* !(x >= 0) also refuses NaN; isinf refuses "inf". */
	return number && *pct >= 0 && !isinf(*pct);
}
