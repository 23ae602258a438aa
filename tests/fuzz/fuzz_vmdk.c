/* libFuzzer target for the VMDK descriptor parser.  Besides "does not crash"
 * it checks what a caller relies on: on success the sizes add up and every
 * byte count is representable; on failure nothing is returned and the error
 * says why. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "nfsagent/vsphere.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(const vs_vmdk *d)
{
	int64_t sum = 0;
	if (d->n_extents == 0 || !d->extents)
		abort();
	for (size_t i = 0; i < d->n_extents; i++) {
		const vs_vmdk_extent *e = &d->extents[i];
		if (!e->access || !e->type || e->sectors < 0 || e->offset < 0)
			abort();
		if (e->file && !e->file[0])
			abort();
		int64_t min = vs_vmdk_extent_min_bytes(e);
		if (min < -1 || (min >= 0 && min != (e->sectors + e->offset) * 512))
			abort();
		sum += e->sectors;
	}
	if (sum != d->capacity_sectors)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	vs_vmdk *d = NULL;
	vs_error err = {0};
	int rc = vs_vmdk_parse((const char *)data, size, &d, &err);
	if (rc == VS_OK)
		check(d);
	else if (d || !err.message[0] || (rc != VS_ERR_PROTOCOL && rc != VS_ERR_NOMEM))
		abort();
	vs_vmdk_free(&d);
	if (d)
		abort();
	return 0;
}
