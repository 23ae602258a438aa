/* Replays files through LLVMFuzzerTestOneInput without libFuzzer, so that
 * gcc builds (and valgrind) exercise the fuzz target on the golden corpus. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The whole file in a buffer of exactly its size (no NUL after it). */
static uint8_t *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	uint8_t *buf = NULL;
	long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
	if (size >= 0 && fseek(f, 0, SEEK_SET) == 0 && (buf = malloc(size ? (size_t)size : 1)) &&
	    fread(buf, 1, (size_t)size, f) != (size_t)size) {
		free(buf);
		buf = NULL;
	}
	fclose(f);
	*len = size > 0 ? (size_t)size : 0;
	return buf;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s FILE...\n", argv[0]);
		return 2;
	}
	for (int i = 1; i < argc; i++) {
		size_t len;
		uint8_t *data = slurp(argv[i], &len);
		if (!data) {
			perror(argv[i]);
			return 1;
		}
		LLVMFuzzerTestOneInput(data, len);
		free(data);
	}
	printf("%d inputs run\n", argc - 1);
	return 0;
}
