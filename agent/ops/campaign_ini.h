/* The campaign file's reader (campaign_ini.c) and its whole-file checks
 * (campaign_ini_check.c); private to the two. */
#ifndef NFSAGENT_OPS_CAMPAIGN_INI_H
#define NFSAGENT_OPS_CAMPAIGN_INI_H

#include "ops/campaign.h"

/* A section or a key met so far, to refuse the same one met again. */
typedef struct seen {
	char *section, *name;  /* name NULL: the section itself */
	int line;
} seen;

typedef struct parse {
	na_campaign *c;
	const char *text;
	size_t len, pos;     /* what the reader hands libinih next */
	bool line_start;     /* pos begins a line */
	int line;            /* of the line being handled */
	int heading_line;    /* of the last [section] heading */
	int block_line;      /* the heading of the previous key's section */
	int error_line;
	char error[512];
	na_labels campaign_labels;  /* folded into each target's at the end */
	seen *seen;
	size_t n_seen;
	bool seen_campaign;
} parse;

/* The first problem, at the line being handled (p->line): "FILE:LINE: ..." in the end. */
void na_ini_fail_at(parse *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* After the last line: what is wrong with the file as a whole, then the
 * [campaign]'s labels, NAS and baseline folded into each target's. */
void na_ini_check(parse *p);

#endif
