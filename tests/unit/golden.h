/* Golden inputs of the unit tests (tests/data).  Include after <cmocka.h>. */
#ifndef NFSAGENT_TESTS_GOLDEN_H
#define NFSAGENT_TESTS_GOLDEN_H

#include <stdio.h>
#include <stdlib.h>

/* Reads tests/data/NAME into a buffer of exactly its size, without a
 * terminating NUL, so that valgrind and ASan catch any read past len. */
static inline char *golden(const char *name, size_t *len)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", TEST_DATA_DIR, name);
	FILE *f = fopen(path, "rb");
	if (!f)
		fail_msg("cannot open %s", path);
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	fseek(f, 0, SEEK_SET);
	assert_true(size >= 0);
	char *buf = malloc(size ? (size_t)size : 1);
	assert_non_null(buf);
	assert_int_equal(fread(buf, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	*len = (size_t)size;
	return buf;
}

#endif
