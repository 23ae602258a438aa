/* Small readers over libxml2 trees.  Replies are matched by local name so
 * that the prefixes a server picks do not matter. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

static void ignore_xml_error(void *ctx, const char *msg, ...)
{
	(void)ctx, (void)msg;
}

void vs_xml_quiet(vs_xml_errors *saved)
{
	saved->func = xmlGenericError;
	saved->ctx = xmlGenericErrorContext;
	xmlSetGenericErrorFunc(NULL, ignore_xml_error);
}

void vs_xml_restore(const vs_xml_errors *saved)
{
	xmlSetGenericErrorFunc(saved->ctx, saved->func);
}

bool vs_xml_is(const xmlNode *node, const char *name)
{
	return node && node->type == XML_ELEMENT_NODE && strcmp((const char *)node->name, name) == 0;
}

xmlNode *vs_xml_child(const xmlNode *parent, const char *name)
{
	if (!parent)
		return NULL;
	for (xmlNode *n = parent->children; n; n = n->next)
		if (vs_xml_is(n, name))
			return n;
	return NULL;
}

xmlNode *vs_xml_next(const xmlNode *node)
{
	for (xmlNode *n = node->next; n; n = n->next)
		if (vs_xml_is(n, (const char *)node->name))
			return n;
	return NULL;
}

xmlNode *vs_xml_path(const xmlNode *node, const char *path)
{
	char name[128];
	const xmlNode *cur = node;
	while (cur && *path) {
		size_t n = strcspn(path, "/");
		if (n >= sizeof(name))
			return NULL;
		memcpy(name, path, n);
		name[n] = '\0';
		cur = vs_xml_child(cur, name);
		path += n + (path[n] == '/');
	}
	return (xmlNode *)cur;
}

char *vs_xml_text(const xmlNode *node)
{
	if (!node)
		return NULL;
	xmlChar *x = xmlNodeGetContent(node);
	char *s = strdup(x ? (const char *)x : "");
	xmlFree(x);
	return s;
}

char *vs_xml_path_text(const xmlNode *node, const char *path)
{
	return vs_xml_text(vs_xml_path(node, path));
}

bool vs_xml_path_bool(const xmlNode *node, const char *path, bool fallback)
{
	char *s = vs_xml_path_text(node, path);
	bool v = s ? strcmp(s, "true") == 0 || strcmp(s, "1") == 0 : fallback;
	free(s);
	return v;
}

int64_t vs_xml_path_int(const xmlNode *node, const char *path, int64_t fallback)
{
	char *s = vs_xml_path_text(node, path);
	if (!s)
		return fallback;
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	bool ok = end != s && *end == '\0' && errno != ERANGE;  /* a clamped value is no value */
	free(s);
	return ok ? (int64_t)v : fallback;
}

char *vs_xml_xsi_type(const xmlNode *node)
{
	if (!node)
		return NULL;
	xmlChar *t = xmlGetNsProp(node, (const xmlChar *)"type", (const xmlChar *)VS_NS_XSI);
	if (!t)
		return NULL;
	const char *colon = strchr((const char *)t, ':');
	char *s = strdup(colon ? colon + 1 : (const char *)t);
	xmlFree(t);
	return s;
}
