/* A group run's pools in words: the text of a line, for a command to print
 * and for the campaign to say through its session. */
#ifndef NFSAGENT_OPS_GROUP_LINES_H
#define NFSAGENT_OPS_GROUP_LINES_H

#include "ops/bench.h"

/* What a pool did over a group's common window, for the line after its
 * name: its data vdevs' and its log's writes for the VMs' own and the
 * amplification, or why its figures are not the window's (cut to size). */
void na_group_pool_words(const na_bench_group_pool *q, char *buf, size_t size);
/* "PREFIX NAS tank: <its words>", cut to size (121: 120 columns). */
void na_group_pool_line(const char *prefix, const na_bench_group_pool *q, char *line, size_t size);

#endif
