/* A clock for the NAS side's waits (nas_clock) that a test drives instead
 * of the wall's: each nap the code asks for moves it on by step ms (by the
 * nap asked when step is 0) and yields a millisecond of the wall's to the
 * children, so a wait's length is counted in the naps the code chose to
 * take, never in how busy the machine is.  A test compares what it reads
 * on it (elapsed) with the budgets it gave. */
#ifndef NFSAGENT_NAS_TEST_CLOCK_H
#define NFSAGENT_NAS_TEST_CLOCK_H

#include <stdint.h>
#include <time.h>

#include "nfsagent/nas.h"

typedef struct nas_test_clock {
	nas_clock clock;
	int64_t now;  /* ms since it was set */
	int step;
	long naps;
} nas_test_clock;

static int64_t nas_test_now(void *ctx)
{
	return ((nas_test_clock *)ctx)->now;
}

static void nas_test_nap(void *ctx, int ms)
{
	nas_test_clock *c = ctx;
	c->now += c->step ? c->step : ms;
	c->naps++;
	struct timespec wall = {0, 1000 * 1000};
	nanosleep(&wall, NULL);
}

/* Sets c (step ms a nap, 0: as asked) and gives it to t. */
static inline void nas_test_clock_use(nas_test_clock *c, int step, nas_target *t)
{
	*c = (nas_test_clock){{nas_test_now, nas_test_nap, c}, 0, step, 0};
	t->clock = &c->clock;
}

#endif
