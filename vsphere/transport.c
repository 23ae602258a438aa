/* HTTPS with libcurl: one handle per client, the TLS policy (system or given
 * CAs, a pinned SHA-256 thumbprint, or insecure by explicit choice), cookies
 * and timeouts.  Retries are decided by the caller (soap.c), which knows
 * whether a call is safe to repeat. */
#include <ctype.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

#define THUMBPRINT_LEN (7 + 32 * 3)  /* "SHA256:" + "AA:" x 32 - 1 + NUL */

struct vs_transport {
	CURL *curl;
	struct curl_slist *soap_headers;
	char *base;              /* "https://host:port" */
	char *sdk_url;           /* base + path, e.g. "https://host/sdk" */
	char *host;
	bool insecure;
	unsigned char pin[32];
	bool pinned;
	char seen_thumbprint[THUMBPRINT_LEN + 1];  /* of the last certificate presented */
	bool pin_mismatch;
	char curl_error[CURL_ERROR_SIZE];
};

static void format_thumbprint(const unsigned char *md, char *out)
{
	static const char hex[] = "0123456789ABCDEF";
	char *p = out + sprintf(out, "SHA256:");
	for (int i = 0; i < 32; i++) {
		if (i)
			*p++ = ':';
		*p++ = hex[md[i] >> 4];
		*p++ = hex[md[i] & 15];
	}
	*p = '\0';
}

/* Accepts "SHA256:AA:BB:...", "AA:BB:..." or 64 bare hex digits. */
static int parse_thumbprint(const char *s, unsigned char *out, vs_error *err)
{
	const char *hex = s;
	if (strncasecmp(hex, "SHA", 3) == 0 && strchr(hex, ':'))
		hex = strchr(hex, ':') + 1;  /* "SHA256:" or a mistaken "SHA1:" */
	int n = 0;
	bool bad = false;
	for (const char *p = hex; *p;) {
		if (*p == ':' || *p == ' ') {
			p++;
		} else if (isxdigit((unsigned char)p[0]) && isxdigit((unsigned char)p[1])) {
			char pair[3] = {p[0], p[1], '\0'};
			if (n < 32)
				out[n] = (unsigned char)strtoul(pair, NULL, 16);
			n++;
			p += 2;
		} else {
			bad = true;
			break;
		}
	}
	if (!bad && n == 32)
		return VS_OK;
	if (!bad && n == 20)
		return vs_fail(err, VS_ERR_USAGE,
		               "thumbprint %s looks like SHA-1; give the SHA-256 thumbprint", s);
	return vs_fail(err, VS_ERR_USAGE,
	               "thumbprint %s is not a SHA-256 fingerprint (64 hex digits)", s);
}

/* Replaces OpenSSL's chain verification so that we always learn the
 * server's thumbprint (for `about` and for error messages) and, when a pin is
 * set, accept exactly that certificate and nothing else. */
static int verify_cert(X509_STORE_CTX *store, void *arg)
{
	vs_transport *t = arg;
	X509 *cert = X509_STORE_CTX_get0_cert(store);
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0;
	if (!cert || !X509_digest(cert, EVP_sha256(), md, &len) || len != 32)
		return 0;
	format_thumbprint(md, t->seen_thumbprint);
	if (t->pinned) {
		t->pin_mismatch = memcmp(md, t->pin, 32) != 0;
		return !t->pin_mismatch;
	}
	if (t->insecure)
		return 1;
	return X509_verify_cert(store);
}

static CURLcode setup_ssl_ctx(CURL *curl, void *sslctx, void *arg)
{
	(void)curl;
	vs_transport *t = arg;
	SSL_CTX_set_cert_verify_callback(sslctx, verify_cert, t);
	/* With a pin, curl's own verification is off, so make OpenSSL fail the
	 * handshake itself when verify_cert says no. */
	if (t->pinned)
		SSL_CTX_set_verify(sslctx, SSL_VERIFY_PEER, NULL);
	return CURLE_OK;
}

static int split_url(vs_transport *t, const char *url, vs_error *err)
{
	vs_buf full = {0};
	if (!strstr(url, "://"))
		vs_buf_add(&full, "https://");
	vs_buf_add(&full, url);
	if (full.failed)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	CURLU *u = curl_url();
	char *host = NULL, *port = NULL, *path = NULL, *scheme = NULL;
	int rc = VS_OK;
	if (!u || curl_url_set(u, CURLUPART_URL, full.data, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_HOST, &host, 0) != CURLUE_OK ||
	    curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK) {
		rc = vs_fail(err, VS_ERR_USAGE, "'%s' is not a valid server URL", url);
		goto out;
	}
	curl_url_get(u, CURLUPART_PORT, &port, 0);
	curl_url_get(u, CURLUPART_PATH, &path, 0);
	vs_buf base = {0}, sdk = {0};
	vs_buf_addf(&base, "%s://%s", scheme, host);
	if (port)
		vs_buf_addf(&base, ":%s", port);
	vs_buf_add(&sdk, base.data ? base.data : "");
	vs_buf_add(&sdk, path && strcmp(path, "/") != 0 ? path : "/sdk");
	t->base = base.data;
	t->sdk_url = sdk.data;
	t->host = strdup(host);
	if (base.failed || sdk.failed || !t->host)
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
out:
	curl_free(host);
	curl_free(port);
	curl_free(path);
	curl_free(scheme);
	curl_url_cleanup(u);
	vs_buf_free(&full);
	return rc;
}

int vs_transport_new(const vs_options *opts, vs_transport **out, vs_error *err)
{
	vs_transport *t = calloc(1, sizeof(*t));
	if (!t)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	int rc = split_url(t, opts->url, err);
	if (rc == VS_OK && opts->thumbprint && *opts->thumbprint) {
		rc = parse_thumbprint(opts->thumbprint, t->pin, err);
		t->pinned = rc == VS_OK;
	}
	if (rc == VS_OK && !(t->curl = curl_easy_init()))
		rc = vs_fail(err, VS_ERR_NOMEM, "cannot initialise libcurl");
	if (rc != VS_OK) {
		vs_transport_free(&t);
		return rc;
	}
	t->insecure = opts->insecure;
	CURL *h = t->curl;
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, t->curl_error);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, opts->connect_timeout_s > 0 ? opts->connect_timeout_s : 15L);
	curl_easy_setopt(h, CURLOPT_COOKIEFILE, "");  /* cookie engine: vmware_soap_session goes back verbatim */
	curl_easy_setopt(h, CURLOPT_USERAGENT, "nfsagent/" "0.1");
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "https,http");
	curl_easy_setopt(h, CURLOPT_SSL_CTX_FUNCTION, setup_ssl_ctx);
	curl_easy_setopt(h, CURLOPT_SSL_CTX_DATA, t);
	if (opts->cacert && *opts->cacert)
		curl_easy_setopt(h, CURLOPT_CAINFO, opts->cacert);
	if (t->pinned || t->insecure) {
		curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
		curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
	}
	t->soap_headers = curl_slist_append(NULL, "Content-Type: text/xml; charset=\"utf-8\"");
	t->soap_headers = curl_slist_append(t->soap_headers, "Expect:");
	*out = t;
	return VS_OK;
}

void vs_transport_free(vs_transport **tp)
{
	vs_transport *t = *tp;
	if (!t)
		return;
	if (t->curl)
		curl_easy_cleanup(t->curl);
	curl_slist_free_all(t->soap_headers);
	free(t->base);
	free(t->sdk_url);
	free(t->host);
	free(t);
	*tp = NULL;
}

const char *vs_transport_thumbprint(const vs_transport *t)
{
	return t->seen_thumbprint;
}

const char *vs_transport_host(const vs_transport *t)
{
	return t->host;
}

typedef struct sink_state {
	const vs_http_sink *sink;
	CURL *curl;
} sink_state;

static size_t on_body(char *data, size_t size, size_t n, void *arg)
{
	sink_state *s = arg;
	long status = 0;
	curl_easy_getinfo(s->curl, CURLINFO_RESPONSE_CODE, &status);
	return s->sink->write(data, size * n, status, s->sink->ud) ? size * n : 0;
}

static int curl_failure(vs_transport *t, CURLcode cc, vs_error *err)
{
	const char *detail = t->curl_error[0] ? t->curl_error : curl_easy_strerror(cc);
	switch (cc) {
	case CURLE_PEER_FAILED_VERIFICATION:
	case CURLE_SSL_CONNECT_ERROR:
	case CURLE_SSL_CACERT_BADFILE:
	case CURLE_SSL_CERTPROBLEM:
		if (t->pinned && t->pin_mismatch)
			return vs_fail(err, VS_ERR_TLS,
			               "server certificate thumbprint %s does not match the pinned thumbprint",
			               t->seen_thumbprint);
		if (cc == CURLE_SSL_CACERT_BADFILE)
			return vs_fail(err, VS_ERR_TLS, "%s", detail);
		if (t->seen_thumbprint[0])
			return vs_fail(err, VS_ERR_TLS,
			               "certificate of %s is not trusted (%s); its thumbprint is %s: "
			               "pin it with --thumbprint, or give its CA with --cacert",
			               t->host, detail, t->seen_thumbprint);
		return vs_fail(err, VS_ERR_TLS, "%s", detail);
	case CURLE_OPERATION_TIMEDOUT:
		return vs_fail(err, VS_ERR_CONNECT, "timed out talking to %s", t->host);
	default:
		return vs_fail(err, VS_ERR_CONNECT, "%s", detail);
	}
}

/* Connection resets and timeouts may pass; a refused connection or an
 * unknown host is the user's problem and is reported at once. */
static bool transient(CURLcode cc)
{
	switch (cc) {
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
	case CURLE_PARTIAL_FILE:
	case CURLE_OPERATION_TIMEDOUT:
		return true;
	default:
		return false;
	}
}

static void reset_request(vs_transport *t, long timeout_ms)
{
	t->curl_error[0] = '\0';
	t->pin_mismatch = false;
	curl_easy_setopt(t->curl, CURLOPT_TIMEOUT_MS, timeout_ms > 0 ? timeout_ms : 1L);
}

int vs_transport_post(vs_transport *t, const char *soap_action, const char *body,
                      long timeout_ms, const vs_http_sink *sink, long *status, bool *retryable,
                      vs_error *err)
{
	*retryable = false;
	vs_buf action = {0};
	vs_buf_addf(&action, "SOAPAction: %s", soap_action);
	struct curl_slist *headers = NULL;
	for (struct curl_slist *h = t->soap_headers; h; h = h->next)
		headers = curl_slist_append(headers, h->data);
	headers = curl_slist_append(headers, action.data ? action.data : "SOAPAction: urn:vim25");
	vs_buf_free(&action);

	sink_state st = {sink, t->curl};
	reset_request(t, timeout_ms);
	CURL *h = t->curl;
	curl_easy_setopt(h, CURLOPT_URL, t->sdk_url);
	curl_easy_setopt(h, CURLOPT_HTTPGET, 0L);
	curl_easy_setopt(h, CURLOPT_UPLOAD, 0L);
	curl_easy_setopt(h, CURLOPT_POST, 1L);
	curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
	curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &st);
	CURLcode cc = curl_easy_perform(h);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, NULL);
	curl_slist_free_all(headers);
	*status = 0;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
	if (cc == CURLE_WRITE_ERROR)
		return VS_ERR_PROTOCOL;  /* the sink stopped the transfer and filled err */
	if (cc != CURLE_OK) {
		*retryable = transient(cc);
		return curl_failure(t, cc, err);
	}
	return VS_OK;
}

typedef struct capped {
	vs_buf *buf;
	size_t max;
	bool overflow;
} capped;

static bool to_buf(const char *data, size_t len, long status, void *ud)
{
	(void)status;
	capped *c = ud;
	if (c->buf->len + len > c->max) {
		c->overflow = true;
		return false;
	}
	vs_buf_addn(c->buf, data, len);
	return !c->buf->failed;
}

int vs_transport_get(vs_transport *t, const char *url, const char *range, size_t max_bytes,
                     long timeout_ms, vs_buf *body, long *status, vs_error *err)
{
	vs_buf full = {0};
	if (url[0] == '/')
		vs_buf_add(&full, t->base);
	vs_buf_add(&full, url);
	if (full.failed)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	capped cap = {body, max_bytes, false};
	vs_http_sink sink = {to_buf, &cap};
	sink_state st = {&sink, t->curl};
	reset_request(t, timeout_ms);
	CURL *h = t->curl;
	curl_easy_setopt(h, CURLOPT_URL, full.data);
	curl_easy_setopt(h, CURLOPT_POST, 0L);
	curl_easy_setopt(h, CURLOPT_UPLOAD, 0L);
	curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
	curl_easy_setopt(h, CURLOPT_RANGE, range);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &st);
	CURLcode cc = curl_easy_perform(h);
	curl_easy_setopt(h, CURLOPT_RANGE, NULL);
	vs_buf_free(&full);
	*status = 0;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
	if (cap.overflow)
		return vs_fail(err, VS_ERR_HTTP, "%s is larger than %zu bytes", url, max_bytes);
	if (cc != CURLE_OK)
		return curl_failure(t, cc, err);
	return VS_OK;
}

typedef struct upload {
	const char *data;
	size_t len, off;
} upload;

static size_t on_read(char *buf, size_t size, size_t n, void *arg)
{
	upload *u = arg;
	size_t take = size * n < u->len - u->off ? size * n : u->len - u->off;
	memcpy(buf, u->data + u->off, take);
	u->off += take;
	return take;
}

static bool discard(const char *data, size_t len, long status, void *ud)
{
	(void)data, (void)len, (void)status, (void)ud;
	return true;
}

int vs_transport_put(vs_transport *t, const char *url, const char *data, size_t len,
                     long timeout_ms, long *status, vs_error *err)
{
	upload u = {data, len, 0};
	vs_http_sink sink = {discard, NULL};
	sink_state st = {&sink, t->curl};
	struct curl_slist *headers = curl_slist_append(NULL, "Content-Type: application/octet-stream");
	headers = curl_slist_append(headers, "Expect:");
	reset_request(t, timeout_ms);
	CURL *h = t->curl;
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_POST, 0L);
	curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(h, CURLOPT_READFUNCTION, on_read);
	curl_easy_setopt(h, CURLOPT_READDATA, &u);
	/* Guest file transfers insist on Content-Length: no chunked upload. */
	curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, (curl_off_t)len);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &st);
	CURLcode cc = curl_easy_perform(h);
	curl_easy_setopt(h, CURLOPT_UPLOAD, 0L);
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, NULL);
	curl_slist_free_all(headers);
	*status = 0;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
	return cc == CURLE_OK ? VS_OK : curl_failure(t, cc, err);
}

/* Guest transfer URLs name the host "*" when it is the server we called:
 * put our scheme, host and port there. */
char *vs_transport_resolve_star(const vs_transport *t, const char *url)
{
	const char *star = strstr(url, "://*");
	if (!star)
		return strdup(url);
	const char *rest = star + 4;
	if (*rest == ':')  /* "*:443": the port we used is in base already */
		rest += strcspn(rest, "/?");
	size_t len = strlen(t->base) + strlen(rest) + 1;
	char *out = malloc(len);
	if (out)
		snprintf(out, len, "%s%s", t->base, rest);
	return out;
}
