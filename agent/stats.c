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
