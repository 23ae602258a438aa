/* The one place every SOAP call goes through: envelope, HTTP, parsing of
 * 200 and 500 replies alike, faults, the returnval occurrence check, and the
 * re-login and retry policy.
 *
 * Replies are parsed while they arrive (libxml2 push parser).  Elements the
 * caller asked to stream (ObjectContent of a property retrieval) are handed
 * over as soon as they are complete and then freed, so a 10,000-VM reply
 * never sits in memory whole. */
#include <libxml/parser.h>
#include <libxml/SAX2.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "internal.h"

enum { MAX_ERROR_BODY = 2048 };

void vs_soap_envelope(vs_buf *b, const char *method, const char *this_type, const char *this_id,
                      const char *params)
{
	vs_buf_add(b, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	              "<soapenv:Envelope xmlns:soapenv=\"" VS_NS_SOAPENV "\""
	              " xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\""
	              " xmlns:xsi=\"" VS_NS_XSI "\"><soapenv:Body>");
	vs_buf_addf(b, "<%s xmlns=\"" VS_NS_VIM25 "\">", method);
	vs_buf_moref(b, "_this", this_type, this_id);
	vs_buf_add(b, params ? params : "");
	vs_buf_addf(b, "</%s></soapenv:Body></soapenv:Envelope>", method);
}

/* ---- faults ------------------------------------------------------------ */

/* "name=value" of a fault's simple fields, for faults that come without a
 * message (the simulator sends none; vCenter often does). */
static void fault_fields(const xmlNode *fault, vs_error *err)
{
	size_t len = strlen(err->message);
	for (xmlNode *n = fault ? fault->children : NULL; n; n = n->next) {
		if (n->type != XML_ELEMENT_NODE || vs_xml_is(n, "faultCause") ||
		    vs_xml_is(n, "faultMessage") || vs_xml_child(n, "fault"))
			continue;
		char *v = vs_xml_text(n);
		if (v && *v && len + 4 < sizeof(err->message))
			len += (size_t)snprintf(err->message + len, sizeof(err->message) - len, "%s%s=%s",
			                        len ? " " : "", (const char *)n->name, v);
		free(v);
	}
}

static void fault_messages(const xmlNode *fault, vs_error *err)
{
	size_t len = strlen(err->message);
	for (xmlNode *m = vs_xml_child(fault, "faultMessage"); m; m = vs_xml_next(m)) {
		char *text = vs_xml_path_text(m, "message");
		if (text && *text && len + 3 < sizeof(err->message))
			len += (size_t)snprintf(err->message + len, sizeof(err->message) - len, "%s%s",
			                        len ? "; " : "", text);
		free(text);
	}
}

static void set_fault_type(const xmlNode *fault, vs_error *err)
{
	char *type = vs_xml_xsi_type(fault);
	if (!type && fault) {
		/* SOAP detail elements are named <TypeFault>; strip the suffix. */
		type = strdup((const char *)fault->name);
		size_t n = type ? strlen(type) : 0;
		if (n > 5 && strcmp(type + n - 5, "Fault") == 0)
			type[n - 5] = '\0';
	}
	snprintf(err->fault, sizeof(err->fault), "%s", type ? type : "");
	free(type);
}

/* "TYPE: MESSAGE" of a fault's own text: the LocalizedMethodFault's
 * localizedMessage, else its faultMessage texts, else its fields.  Returns
 * the MethodFault element. */
static const xmlNode *fault_head(const xmlNode *node, vs_error *err)
{
	/* A LocalizedMethodFault wraps the MethodFault in <fault>. */
	const xmlNode *fault = vs_xml_child(node, "fault");
	char *localized = NULL;
	if (fault)
		localized = vs_xml_path_text(node, "localizedMessage");
	else
		fault = node;
	err->message[0] = '\0';
	set_fault_type(fault, err);
	/* The simulator puts a Go type name ("*types.FileNotFound") here. */
	if (localized && *localized && localized[0] != '*')
		snprintf(err->message, sizeof(err->message), "%s", localized);
	free(localized);
	if (!err->message[0])
		fault_messages(fault, err);
	if (!err->message[0])
		fault_fields(fault, err);
	return fault;
}

enum { MAX_CAUSES = 8 };

/* faultMessage[] and the faultCause chain as lines of err->details, in
 * order: often the only place that says why (a PlatformConfigFault's
 * faultstring is "An error occurred during host configuration.").  A text
 * the headline says already is not repeated. */
static void fault_details(const xmlNode *fault, vs_error *err, int depth)
{
	for (xmlNode *m = vs_xml_child(fault, "faultMessage"); m; m = vs_xml_next(m)) {
		char *key = vs_xml_path_text(m, "key");
		char *text = vs_xml_path_text(m, "message");
		bool has_key = key && *key, has_text = text && *text;
		if (has_text && !strstr(err->message, text))
			vs_error_detail(err, "reason: %s%s%s%s", text, has_key ? " (" : "",
			                has_key ? key : "", has_key ? ")" : "");
		else if (!has_text && has_key)
			vs_error_detail(err, "reason: %s", key);
		free(key);
		free(text);
	}
	const xmlNode *cause = vs_xml_child(fault, "faultCause");
	if (!cause || depth >= MAX_CAUSES)
		return;
	vs_error inner = {0};
	const xmlNode *inner_fault = fault_head(cause, &inner);
	vs_error_detail(err, "cause: %s%s%s", inner.fault[0] ? inner.fault : "fault",
	                inner.message[0] ? ": " : "", inner.message);
	fault_details(inner_fault, err, depth + 1);
}

void vs_fault_from_node(const xmlNode *node, vs_error *err)
{
	const xmlNode *fault = fault_head(node, err);
	err->details[0] = '\0';
	err->task_started_ms = 0;
	fault_details(fault, err, 0);
}

static int soap_fault(const xmlNode *fault_el, vs_error *err)
{
	err->status = VS_ERR_FAULT;
	err->details[0] = '\0';
	err->task_started_ms = 0;
	xmlNode *detail = vs_xml_child(fault_el, "detail");
	xmlNode *first = NULL;
	for (xmlNode *n = detail ? detail->children : NULL; n && !first; n = n->next)
		if (n->type == XML_ELEMENT_NODE)
			first = n;
	char *faultstring = vs_xml_path_text(fault_el, "faultstring");
	const xmlNode *fault = NULL;
	if (first) {
		fault = fault_head(first, err);
	} else {
		err->fault[0] = '\0';
		err->message[0] = '\0';
	}
	/* vCenter's faultstring is the human message; prefer it. */
	if (faultstring && *faultstring)
		snprintf(err->message, sizeof(err->message), "%s", faultstring);
	free(faultstring);
	if (!err->fault[0] && !err->message[0])
		snprintf(err->message, sizeof(err->message), "SOAP fault without detail");
	/* After the headline is final: details repeat none of it. */
	if (fault)
		fault_details(fault, err, 0);
	return VS_ERR_FAULT;
}

/* ---- parsing ------------------------------------------------------------- */

typedef struct soap_parser {
	xmlParserCtxtPtr ctxt;
	const vs_stream *stream;
	vs_error *err;
	int stream_rc;      /* first error a stream callback returned */
	bool started;
	vs_buf other;       /* start of a body that is not a SOAP reply, for messages */
	vs_buf *trace;      /* whole body, only when tracing */
	vs_xml_errors quiet;
} soap_parser;

static void on_end_element(void *ctx, const xmlChar *localname, const xmlChar *prefix,
                           const xmlChar *uri)
{
	xmlParserCtxtPtr ctxt = ctx;
	soap_parser *p = ctxt->_private;
	xmlSAX2EndElementNs(ctx, localname, prefix, uri);
	xmlNode *parent = ctxt->node;
	xmlNode *done = parent ? parent->last : NULL;
	if (!p->stream || !done || !vs_xml_is(done, p->stream->element) ||
	    !vs_xml_is(parent, "returnval"))
		return;
	if (p->stream_rc == VS_OK) {
		p->stream_rc = p->stream->on_element(done, p->stream->ud, p->err);
		if (p->stream_rc != VS_OK)
			xmlStopParser(ctxt);
	}
	xmlUnlinkNode(done);
	xmlFreeNode(done);
	/* SAX2 extends the parent's last text node in place, using lengths it
	 * remembers for the text node it made last; after the removal those
	 * belong to nothing.  Drop the trailing text and make it start afresh. */
	while (parent->last && parent->last->type == XML_TEXT_NODE) {
		xmlNode *text = parent->last;
		xmlUnlinkNode(text);
		xmlFreeNode(text);
	}
	ctxt->nodelen = 0;
	ctxt->nodemem = 0;
}

static int parser_init(soap_parser *p, const vs_stream *stream, vs_error *err)
{
	*p = (soap_parser){.stream = stream, .err = err};
	xmlSAXHandler sax;
	memset(&sax, 0, sizeof(sax));
	xmlSAXVersion(&sax, 2);
	sax.endElementNs = on_end_element;
	p->ctxt = xmlCreatePushParserCtxt(&sax, NULL, NULL, 0, "reply.xml");
	if (!p->ctxt)
		return vs_fail(err, VS_ERR_NOMEM, "cannot create XML parser");
	p->ctxt->_private = p;
	vs_xml_quiet(&p->quiet);  /* until parser_free: chunks are parsed as they arrive */
	xmlCtxtUseOptions(p->ctxt, XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
	return VS_OK;
}

static bool parser_feed(const char *data, size_t len, long status, void *ud)
{
	soap_parser *p = ud;
	if (p->trace)
		vs_buf_addn(p->trace, data, len);
	if (status != 200 && status != 500) {
		if (p->other.len < MAX_ERROR_BODY)
			vs_buf_addn(&p->other, data, len < MAX_ERROR_BODY ? len : MAX_ERROR_BODY);
		return true;
	}
	p->started = true;
	xmlParseChunk(p->ctxt, data, (int)len, 0);
	return p->stream_rc == VS_OK;
}

static void parser_free(soap_parser *p)
{
	if (p->ctxt) {
		xmlFreeDoc(p->ctxt->myDoc);
		xmlFreeParserCtxt(p->ctxt);
		vs_xml_restore(&p->quiet);
	}
	vs_buf_free(&p->other);
	p->ctxt = NULL;
}

static int check_occurs(const xmlNode *response, const char *method, vs_occurs occurs,
                        vs_error *err)
{
	size_t n = 0;
	for (xmlNode *r = vs_xml_child(response, "returnval"); r; r = vs_xml_next(r))
		n++;
	bool ok = occurs == VS_RET_LIST || (occurs == VS_RET_NONE && n == 0) ||
	          (occurs == VS_RET_ONE && n == 1) || (occurs == VS_RET_OPTIONAL && n <= 1);
	if (ok)
		return VS_OK;
	return vs_fail(err, VS_ERR_PROTOCOL, "%s answered with %zu returnval elements", method, n);
}

static int http_error(const soap_parser *p, long status, vs_error *err)
{
	const char *body = p->other.data ? p->other.data : "";
	size_t n = strcspn(body, "\r\n");
	if (n > 200)
		n = 200;
	if (status == 401)
		return vs_fail(err, VS_ERR_AUTH, "HTTP 401 Unauthorized");
	return vs_fail(err, VS_ERR_HTTP, "HTTP %ld%s%.*s", status, n ? ": " : "", (int)n, body);
}

/* Turns a finished parse into a reply or an error. */
static int parser_finish(soap_parser *p, long status, const char *method, vs_occurs occurs,
                         vs_reply *reply, vs_error *err)
{
	if (status != 200 && status != 500)
		return http_error(p, status, err);
	if (p->stream_rc != VS_OK)
		return p->stream_rc;
	xmlParseChunk(p->ctxt, NULL, 0, 1);
	xmlDoc *doc = p->ctxt->myDoc;
	if (!p->started || !p->ctxt->wellFormed || !doc)
		return vs_fail(err, VS_ERR_PROTOCOL, "the reply to %s is not well-formed XML (HTTP %ld)",
		               method, status);
	xmlNode *body = vs_xml_child(xmlDocGetRootElement(doc), "Body");
	if (!vs_xml_is(xmlDocGetRootElement(doc), "Envelope") || !body)
		return vs_fail(err, VS_ERR_PROTOCOL, "the reply to %s is not a SOAP envelope", method);
	xmlNode *fault = vs_xml_child(body, "Fault");
	if (fault)
		return soap_fault(fault, err);
	char name[128];
	snprintf(name, sizeof(name), "%sResponse", method);
	xmlNode *response = vs_xml_child(body, name);
	if (!response)
		return vs_fail(err, VS_ERR_PROTOCOL, "the reply to %s has no %s element", method, name);
	int rc = check_occurs(response, method, occurs, err);
	if (rc == VS_OK && reply) {
		reply->doc = doc;
		reply->response = response;
		p->ctxt->myDoc = NULL;  /* now the caller's */
	}
	return rc;
}

int vs_soap_parse(const char *body, size_t len, long http_status, const char *method,
                  vs_occurs occurs, const vs_stream *stream, vs_reply *reply, vs_error *err)
{
	soap_parser p;
	int rc = parser_init(&p, stream, err);
	if (rc != VS_OK)
		return rc;
	parser_feed(body, len, http_status, &p);
	rc = parser_finish(&p, http_status, method, occurs, reply, err);
	parser_free(&p);
	return rc;
}

xmlNode *vs_reply_ret(const vs_reply *r)
{
	return vs_xml_child(r->response, "returnval");
}

void vs_reply_free(vs_reply *r)
{
	xmlFreeDoc(r->doc);
	*r = (vs_reply){0};
}

/* ---- tracing --------------------------------------------------------------- */

/* Replaces b's text from start to end with at most "***"; returns where
 * the text after it now begins. */
static char *mask(vs_buf *b, char *start, const char *end)
{
	size_t keep = end - start < 3 ? (size_t)(end - start) : 3;
	memset(start, '*', keep);
	memmove(start + keep, end, b->len - (size_t)(end - b->data) + 1);
	b->len -= (size_t)(end - start) - keep;
	return start + keep;
}

static void redact_element(vs_buf *b, const char *name)
{
	char open[64], close[64];
	snprintf(open, sizeof(open), "<%s>", name);
	snprintf(close, sizeof(close), "</%s>", name);
	for (char *p = b->data; p && (p = strstr(p, open));) {
		char *start = p + strlen(open);
		char *end = strstr(start, close);
		if (!end)
			break;
		p = mask(b, start, end);
	}
}

/* The value of every "name=" in a URL's query (it ends at '&', which XML
 * writes as "&amp;", or at the element's end). */
static void redact_query_param(vs_buf *b, const char *name)
{
	for (char *p = b->data; p && (p = strstr(p, name));) {
		char *start = p + strlen(name);
		p = mask(b, start, start + strcspn(start, "&<\"' \r\n"));
	}
}

void vs_redact(vs_buf *b, const char *method)
{
	if (!b->data)
		return;
	redact_element(b, "password");
	if (strcmp(method, "Login") == 0 || strcmp(method, "CloneSession") == 0)
		redact_element(b, "key");  /* UserSession.key can stand for the session cookie */
	if (strcmp(method, "AcquireGenericServiceTicket") == 0)
		redact_element(b, "id");  /* the ticket opens a file to whoever holds it */
	/* The transfer URL is a bearer URL: for 30 minutes it reads or writes
	 * that guest file for whoever holds it, no login needed. */
	if (strncmp(method, "InitiateFileTransfer", strlen("InitiateFileTransfer")) == 0)
		redact_query_param(b, "token=");
}

static void trace_write(FILE *f, const char *dir, const char *method, vs_buf *body, long status)
{
	if (!f)
		return;
	vs_redact(body, method);
	if (status)
		fprintf(f, "%s %s HTTP %ld\n%s\n\n", dir, method, status, body->data ? body->data : "");
	else
		fprintf(f, "%s %s\n%s\n\n", dir, method, body->data ? body->data : "");
	fflush(f);
}

/* ---- calls ----------------------------------------------------------------- */

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static int call_once(vs_client *c, const char *method, const char *request, vs_occurs occurs,
                     const vs_stream *stream, vs_reply *reply, long timeout_ms, bool *retryable,
                     bool *unprocessed, vs_error *err)
{
	vs_buf trace = {0};
	*unprocessed = false;
	soap_parser p;
	int rc = parser_init(&p, stream, err);
	if (rc != VS_OK)
		return rc;
	p.trace = c->opts.trace ? &trace : NULL;
	char action[96];
	snprintf(action, sizeof(action), "urn:vim25%s%s", c->api_version ? "/" : "",
	         c->api_version ? c->api_version : "");
	vs_http_sink sink = {parser_feed, &p};
	long status = 0;
	rc = vs_transport_post(c->transport, action, request, timeout_ms, &sink, &status, retryable, err);
	trace_write(c->opts.trace, "<--", method, &trace, status);
	if (rc == VS_OK || rc == VS_ERR_PROTOCOL)
		rc = parser_finish(&p, status, method, occurs, reply, err);
	if (rc == VS_ERR_HTTP && (status == 502 || status == 503 || status == 504))
		*retryable = true;
	/* vCenter's and hostd's front proxy answers 503 when it could not hand
	 * the request on; but it also may after the service got it, so only a
	 * call that is harmless to repeat goes again. */
	*unprocessed = rc == VS_ERR_HTTP && status == 503;
	if (rc == VS_ERR_HTTP)
		err->http_status = status;
	parser_free(&p);
	vs_buf_free(&trace);
	return rc;
}

static bool not_authenticated(int rc, const vs_error *err)
{
	return (rc == VS_ERR_FAULT && strcmp(err->fault, "NotAuthenticated") == 0) ||
	       rc == VS_ERR_AUTH;
}

int vs_call(vs_client *c, const char *method, const char *this_type, const char *this_id,
            const char *params, vs_occurs occurs, unsigned flags, const vs_stream *stream,
            vs_reply *reply, vs_error *err)
{
	vs_buf request = {0};
	vs_soap_envelope(&request, method, this_type, this_id, params);
	if (request.failed) {
		vs_buf_free(&request);
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	}
	if (c->opts.trace) {
		vs_buf copy = {0};
		vs_buf_add(&copy, request.data);
		trace_write(c->opts.trace, "-->", method, &copy, 0);
		vs_buf_free(&copy);
	}
	long deadline = now_ms() + c->opts.call_timeout_s * 1000L;
	long backoff = 250;
	int attempts = 0;
	bool relogged = false;
	int rc;
	for (;;) {
		bool retryable = false, unprocessed = false;
		rc = call_once(c, method, request.data, occurs, stream, reply, deadline - now_ms(),
		               &retryable, &unprocessed, err);
		if (rc == VS_OK)
			break;
		if (not_authenticated(rc, err) && c->logged_in && !(flags & VS_CALL_NO_RELOGIN) &&
		    !relogged) {
			relogged = true;
			vs_error login_err = {0};
			int lrc = vs_session_relogin(c, &login_err);
			if (lrc != VS_OK) {
				*err = login_err;
				rc = lrc;
				break;
			}
			if (flags & VS_CALL_SESSION_BOUND) {
				rc = vs_fail(err, VS_ERR_SESSION_RENEWED, "session expired and was renewed");
				break;
			}
			/* NotAuthenticated is raised before a method runs, so repeating
			 * the call cannot do anything twice. */
			continue;
		}
		/* A service that says it is unavailable may be so for a while: ask
		 * again until the call's time is up, not a fixed number of times. */
		bool again = (flags & VS_CALL_SAFE) ? retryable
		                                    : unprocessed && (flags & VS_CALL_REPEATABLE);
		if (!again || (!unprocessed && attempts >= c->opts.max_retries) ||
		    now_ms() + backoff >= deadline)
			break;
		sleep_ms(backoff);
		backoff = backoff * 2 > 4000 ? 4000 : backoff * 2;
		attempts++;
	}
	vs_buf_free(&request);
	return rc;
}

/* The front proxy's 502/503/504: the service may or may not have got the
 * request. */
static bool outcome_unknown(const vs_error *err)
{
	return err->status == VS_ERR_HTTP && err->http_status >= 502 && err->http_status <= 504;
}

int vs_call_settled(vs_client *c, const char *method, const char *this_type, const char *this_id,
                    const char *params, vs_occurs occurs, const vs_settle *settle,
                    vs_reply *reply, bool *settled, vs_error *err)
{
	long deadline = now_ms() + c->opts.call_timeout_s * 1000L;
	long backoff = 1000;  /* a 504 often means "still working": give it time to show */
	*settled = false;
	for (;;) {
		int rc = vs_call(c, method, this_type, this_id, params, occurs, 0, NULL, reply, err);
		if (rc == VS_OK || !outcome_unknown(err) || now_ms() + backoff >= deadline)
			return rc;
		/* A change the service did start gets a moment to show. */
		sleep_ms(backoff);
		backoff = backoff * 2 > 4000 ? 4000 : backoff * 2;
		bool done = false;
		vs_error check = {0};
		if (settle->done(c, settle->ud, &done, &check) != VS_OK)
			return rc;  /* the world could not be read: the call's own error stands */
		if (done) {
			*settled = true;
			return VS_OK;
		}
	}
}
