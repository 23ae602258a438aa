/* A group's figures from its members' fio results: a group run hands it
 * each member cut to the group's common window (ops/bench_window.c), not
 * their whole runs.  Pure. */
#ifndef NFSAGENT_GROUP_H
#define NFSAGENT_GROUP_H

#include "fio.h"

/* One VM of the spread: its name (the caller's string) and its IOPS, all
 * directions together. */
typedef struct na_group_vm {
	const char *name;
	double iops;
} na_group_vm;

typedef struct na_group_figures {
	size_t n;                /* members */
	/* read, write and mixed_dir: IOPS and bytes/s summed, percentiles from
	 * the members' merged json+ bins (-1 when a member had none), never an
	 * average of their percentiles.  Clear with na_group_figures_clear. */
	na_fio_result merged;
	double iops;             /* the group's IOPS, all directions together */
	na_group_vm slowest, median, fastest;   /* by IOPS; median: the lower middle of an even n */
	/* The slowest VM's IOPS against the fair share (group IOPS / n): 1 when
	 * all did alike, 0.5 when the slowest did half of its share. */
	double slowest_share;
} na_group_figures;

/* The figures of n members (n >= 1): fio[i] is names[i]'s result. */
int na_group_figures_of(const na_fio_result *const *fio, const char *const *names, size_t n,
                        na_group_figures *out, vs_error *err);
void na_group_figures_clear(na_group_figures *g);

#endif
