/* Unit tests' look into a results file behind the store, and its
 * removal. */
#ifndef NFSAGENT_TEST_RAW_SQL_H
#define NFSAGENT_TEST_RAW_SQL_H

#include <sqlite3.h>
#include <stdio.h>
#include <unistd.h>

/* The first column of the first row of sql, as an int (the file opened
 * read-only). */
static inline int raw_int(const char *path, const char *sql)
{
	sqlite3 *db = NULL;
	sqlite3_stmt *st = NULL;
	assert_int_equal(sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_prepare_v2(db, sql, -1, &st, NULL), SQLITE_OK);
	assert_int_equal(sqlite3_step(st), SQLITE_ROW);
	int v = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(db);
	return v;
}

/* Removes the results file path (with SQLite's -wal and -shm beside it)
 * and then its folder dir; rmdir's result. */
static inline int remove_db(const char *dir, const char *path)
{
	for (const char *const *side = (const char *const[]){"", "-wal", "-shm", NULL}; *side; side++) {
		char file[4096];
		snprintf(file, sizeof(file), "%s%s", path, *side);
		remove(file);
	}
	return rmdir(dir);
}

#endif
