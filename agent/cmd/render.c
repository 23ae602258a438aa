/* Text that commands show: a probe's verdict, the extents a verify
 * checked (their lines made by ops/lines.c, which the campaign says too). */
#include <stdlib.h>
#include <string.h>

#include "cmd/render.h"
#include "ops/lines.h"

/* A line as it is (made escaped and wrapped), on stdout. */
static void print_raw(void *ud, const char *line)
{
	(void)ud;
	printf("%s\n", line);
}

void na_probe_print(const na_probe_result *r)
{
	na_probe_lines(r, print_raw, NULL);
	fflush(stdout);
}

void na_verify_print(const char *vm, const na_checks *checks)
{
	na_verify_lines(vm, checks, print_raw, NULL);
}

void na_leftovers_print(const na_leftovers *l)
{
	na_leftovers_say(&(na_session){.output = na_print_line}, l);
}
