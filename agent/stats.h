/* Small statistics over repetitions (pure). */
#ifndef NFSAGENT_STATS_H
#define NFSAGENT_STATS_H

#include <stddef.h>

typedef struct na_spread {
	size_t n;
	double median, min, max;
} na_spread;

/* Median, min and max of the values that are >= 0 (negative = unknown). */
na_spread na_spread_of(const double *values, size_t n);

#endif
