/* libFuzzer target for the campaign file parser (agent/campaign_ini.c).
 * Besides "does not crash" it checks what a campaign run relies on: a file
 * that loads has its name, VM, profiles and targets, each target its
 * datastore and labels whose keys are unique; a file that does not load is
 * refused as a usage error at FILE:LINE. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ops/campaign.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_labels(const na_labels *l)
{
	if (l->n > NA_MAX_LABELS)
		abort();
	for (size_t i = 0; i < l->n; i++) {
		if (!l->v[i].key[0] || strchr(l->v[i].key, '\n') || strchr(l->v[i].value, '\n'))
			abort();
		for (size_t k = 0; k < i; k++)
			if (!strcmp(l->v[i].key, l->v[k].key))
				abort();
	}
}

static void check(const na_campaign *c)
{
	if (!c->name || !c->vm || !c->n_profiles || !c->n_targets || c->n_targets > NA_MAX_TARGETS ||
	    c->repeat < 1 || c->runtime < 1 || c->ramp < 0 || !c->dir || c->dir[0] != '/' ||
	    c->labels.n)
		abort();
	for (size_t i = 0; i < c->n_targets; i++) {
		const na_target *t = &c->targets[i];
		if (!t->name || !t->datastore || t->line < 1)
			abort();
		check_labels(&t->labels);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The loader refuses a NUL byte before parsing: the parser sees text. */
	size_t len = strnlen((const char *)data, size);
	char *text = malloc(len + 1);
	if (!text)
		return 0;
	memcpy(text, data, len);
	text[len] = '\0';
	na_campaign c = {0};
	vs_error err = {0};
	int rc = na_campaign_parse("fuzz.ini", text, &c, &err);
	if (rc == VS_OK)
		check(&c);
	else if (rc != VS_ERR_USAGE || strncmp(err.message, "fuzz.ini:", 9) != 0)
		abort();
	na_campaign_free(&c);
	free(text);
	return 0;
}
