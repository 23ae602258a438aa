/* Tables fit a terminal's 120 columns: the droppable columns are left
 * out, first to last, only while the table would pass it, and a line
 * under the table names them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "output.h"

/* The table printed with a middle cell of width wide_cell, the columns
 * A and B droppable (B first). */
static char *printed(size_t wide_cell)
{
	static const char *const headers[] = {"NAME", "A", "B", "LAST"};
	static const size_t droppable[] = {2, 1};
	char name[200];
	memset(name, 'n', wide_cell);
	name[wide_cell] = '\0';
	na_table *t = na_table_new(4, headers);
	const char *row[] = {name, "aaaaaaaaaa", "bbbbbbbbbb", "µs"};
	na_table_add(t, row);
	na_table_fit(t, droppable, 2);
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);
	na_table_print(t, out);
	fclose(out);
	na_table_free(&t);
	return text;
}

static void fits_as_it_is(void **state)
{
	(void)state;
	char *text = printed(90);  /* 90 + 2 + 10 + 2 + 10 + 2 + 4 = 120 */
	assert_non_null(strstr(text, "aaaaaaaaaa  bbbbbbbbbb  µs\n"));
	assert_null(strstr(text, "left out"));
	free(text);
}

static void leaves_out_first_b(void **state)
{
	(void)state;
	char *text = printed(91);
	assert_non_null(strstr(text, "NAME"));
	assert_non_null(strstr(text, "  A           LAST\n"));
	assert_non_null(strstr(text, "aaaaaaaaaa  µs\n"));
	assert_null(strstr(text, "bbb"));
	assert_non_null(strstr(text, "(B left out to fit 120 columns: --wide shows them)\n"));
	free(text);
}

static void then_a(void **state)
{
	(void)state;
	char *text = printed(110);
	assert_non_null(strstr(text, "  LAST\n"));
	assert_null(strstr(text, "aaa"));
	assert_non_null(strstr(text, "(B, A left out to fit 120 columns: --wide shows them)\n"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fits_as_it_is),
		cmocka_unit_test(leaves_out_first_b),
		cmocka_unit_test(then_a),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
