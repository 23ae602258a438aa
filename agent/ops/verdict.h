/* What an op's checks found (verify, probe, a move, a fleet, a campaign). */
#ifndef NFSAGENT_OPS_VERDICT_H
#define NFSAGENT_OPS_VERDICT_H

/* What a command's checks found; main.c turns it into the exit code. */
typedef enum na_verdict {
	NA_VERDICT_CLEAN,     /* nothing found (exit 0) */
	NA_VERDICT_FINDING,   /* the problem a check looks for (exit 3, also beside an error) */
	NA_VERDICT_UNCHECKED, /* a check could not read what it needs, or its runs cannot
	                       * tell (regress): neither clean nor a finding (exit 8) */
	NA_VERDICT_PROBLEM,   /* a check met problems its output lists (exit 1) */
} na_verdict;

#endif
