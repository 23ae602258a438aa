/* A group's figures: sums, merged bins, and how evenly its VMs fared. */
#include <stdlib.h>

#include "analysis/group.h"

static double vm_iops(const na_fio_result *f)
{
	const na_fio_dir *d[] = {&f->read, &f->write, &f->mixed_dir};
	double sum = 0;
	for (size_t i = 0; i < 3; i++)
		sum += d[i]->present ? d[i]->iops : 0;
	return sum;
}

static int by_iops(const void *a, const void *b)
{
	const na_group_vm *x = a, *y = b;
	return (x->iops > y->iops) - (x->iops < y->iops);
}

/* Slowest, median and fastest by IOPS; a tie keeps the members' order. */
static int spread(const na_fio_result *const *fio, const char *const *names, size_t n,
                  na_group_figures *out, vs_error *err)
{
	na_group_vm *v = calloc(n, sizeof(*v));
	if (!v)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	for (size_t i = 0; i < n; i++)
		v[i] = (na_group_vm){names[i], vm_iops(fio[i])};
	/* qsort is not stable: equal IOPS are left in order by a stable pass. */
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && by_iops(&v[j - 1], &v[j]) > 0; j--) {
			na_group_vm t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	out->slowest = v[0];
	out->median = v[(n - 1) / 2];
	out->fastest = v[n - 1];
	free(v);
	double fair = out->iops / (double)n;
	out->slowest_share = fair > 0 ? out->slowest.iops / fair : 0;
	return VS_OK;
}

int na_group_figures_of(const na_fio_result *const *fio, const char *const *names, size_t n,
                        na_group_figures *out, vs_error *err)
{
	*out = (na_group_figures){.n = n};
	if (!n)
		return vs_fail(err, VS_ERR_USAGE, "a group has no member");
	int rc = VS_OK;
	for (size_t i = 0; rc == VS_OK && i < n; i++) {
		out->merged.mixed |= fio[i]->mixed;
		if ((rc = na_fio_dir_merge(&out->merged.read, &fio[i]->read, err)) == VS_OK &&
		    (rc = na_fio_dir_merge(&out->merged.write, &fio[i]->write, err)) == VS_OK)
			rc = na_fio_dir_merge(&out->merged.mixed_dir, &fio[i]->mixed_dir, err);
		out->iops += vm_iops(fio[i]);
	}
	if (rc == VS_OK)
		rc = spread(fio, names, n, out, err);
	if (rc != VS_OK)
		na_group_figures_clear(out);
	return rc;
}

void na_group_figures_clear(na_group_figures *g)
{
	na_fio_result_clear(&g->merged);
	*g = (na_group_figures){0};
}
