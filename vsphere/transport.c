/* HTTPS with libcurl: one handle per client, the TLS policy (system or given
 * CAs, a pinned SHA-256 thumbprint, or insecure by explicit choice), cookies
 * and timeouts.  Retries are decided by the caller (soap.c), which knows
 * whether a call is safe to repeat.
 *
 * Guest file transfers through vCenter go straight to the VM's ESXi host.
 * Such a host is "known" once the caller has learnt from vCenter where to
 * reach it and which certificate it has (its thumbprint, SHA-1 on the
 * vCenters we know): requests to it connect to that address (the URL keeps
 * the host's name, for SNI and for a CA's name check) and trust exactly
 * that certificate. */
#include <errno.h>
#include <ctype.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

#define THUMBPRINT_LEN (7 + 32 * 3)  /* "SHA256:" + "AA:" x 32 - 1 + NUL */

typedef struct known_host {
	char *name;              /* as vCenter names it in transfer URLs (as curl parses it) */
	char *address;           /* where to connect instead, or NULL: the name */
	unsigned char digest[32];
	int digest_len;          /* 20 (SHA-1) or 32 (SHA-256); 0: no thumbprint, the CA policy */
} known_host;

struct vs_transport {
	CURL *curl;
	struct curl_slist *soap_headers;
	char *base;              /* "https://host:port" */
	char *sdk_url;           /* base + path, e.g. "https://host/sdk" */
	char *host;
	char *port;              /* with the scheme's default filled in */
	bool insecure;
	unsigned char pin[32];
	bool pinned;
	char seen_thumbprint[THUMBPRINT_LEN + 1];  /* of the last certificate presented */
	bool pin_mismatch;
	char curl_error[CURL_ERROR_SIZE];
	known_host **known;      /* entries never move: the request under way points at one */
	size_t n_known;
	/* the request under way */
	const known_host *peer;  /* NULL: the server we log in to */
	char *req_host;
	char peer_seen[THUMBPRINT_LEN + 1];  /* what the peer presented, hashed like its pin */
	struct curl_slist *connect_to;
};

/* "AA:BB:..." after prefix. */
static void format_thumbprint(const char *prefix, const unsigned char *md, int n, char *out)
{
	static const char hex[] = "0123456789ABCDEF";
	char *p = out + sprintf(out, "%s", prefix);
	for (int i = 0; i < n; i++) {
		if (i)
			*p++ = ':';
		*p++ = hex[md[i] >> 4];
		*p++ = hex[md[i] & 15];
	}
	*p = '\0';
}

/* Reads "SHA256:AA:BB:...", "AA:BB:..." or bare hex digits into out (at
 * most max bytes); returns the number of bytes, or -1 if it is not hex. */
static int parse_hex_digest(const char *s, unsigned char *out, int max)
{
	const char *hex = s;
	if (strncasecmp(hex, "SHA", 3) == 0 && strchr(hex, ':'))
		hex = strchr(hex, ':') + 1;  /* "SHA256:" or a mistaken "SHA1:" */
	int n = 0;
	for (const char *p = hex; *p;) {
		if (*p == ':' || *p == ' ') {
			p++;
		} else if (isxdigit((unsigned char)p[0]) && isxdigit((unsigned char)p[1])) {
			char pair[3] = {p[0], p[1], '\0'};
			if (n < max)
				out[n] = (unsigned char)strtoul(pair, NULL, 16);
			n++;
			p += 2;
		} else {
			return -1;
		}
	}
	return n;
}

/* The user's pin must be SHA-256. */
static int parse_thumbprint(const char *s, unsigned char *out, vs_error *err)
{
	int n = parse_hex_digest(s, out, 32);
	if (n == 32)
		return VS_OK;
	if (n == 20)
		return vs_fail(err, VS_ERR_USAGE,
		               "thumbprint %s looks like SHA-1; give the SHA-256 thumbprint", s);
	return vs_fail(err, VS_ERR_USAGE,
	               "thumbprint %s is not a SHA-256 fingerprint (64 hex digits)", s);
}

/* A known host: its certificate against the thumbprint vCenter reported
 * for it, or by the CA policy when vCenter reported none. */
static int verify_peer(vs_transport *t, X509_STORE_CTX *store, X509 *cert)
{
	const known_host *k = t->peer;
	bool sha1 = k->digest_len == 20;
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0;
	if (!X509_digest(cert, sha1 ? EVP_sha1() : EVP_sha256(), md, &len))
		return 0;
	format_thumbprint(sha1 ? "SHA1:" : "SHA256:", md, (int)len, t->peer_seen);
	if (!k->digest_len)
		return t->insecure || X509_verify_cert(store);
	t->pin_mismatch = (int)len != k->digest_len || memcmp(md, k->digest, len) != 0;
	return !t->pin_mismatch;
}

/* Replaces OpenSSL's chain verification so that we always learn the
 * server's thumbprint (for `about` and for error messages) and, when a pin is
 * set, accept exactly that certificate and nothing else. */
static int verify_cert(X509_STORE_CTX *store, void *arg)
{
	vs_transport *t = arg;
	X509 *cert = X509_STORE_CTX_get0_cert(store);
	if (cert && t->peer)
		return verify_peer(t, store, cert);
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int len = 0;
	if (!cert || !X509_digest(cert, EVP_sha256(), md, &len) || len != 32)
		return 0;
	format_thumbprint("SHA256:", md, 32, t->seen_thumbprint);
	if (t->pinned) {
		t->pin_mismatch = memcmp(md, t->pin, 32) != 0;
		return !t->pin_mismatch;
	}
	if (t->insecure)
		return 1;
	return X509_verify_cert(store);
}

/* Whether this request trusts exactly one certificate. */
static bool request_pinned(const vs_transport *t)
{
	return t->peer ? t->peer->digest_len > 0 : t->pinned;
}

static CURLcode setup_ssl_ctx(CURL *curl, void *sslctx, void *arg)
{
	(void)curl;
	vs_transport *t = arg;
	SSL_CTX_set_cert_verify_callback(sslctx, verify_cert, t);
	/* With a pin, curl's own verification is off, so make OpenSSL fail the
	 * handshake itself when verify_cert says no. */
	if (request_pinned(t))
		SSL_CTX_set_verify(sslctx, SSL_VERIFY_PEER, NULL);
	return CURLE_OK;
}

/* An absolute URL's host, its origin "scheme://host[:port]", its path, and
 * its port with the scheme's default filled in ("https://vc" is port 443). */
typedef struct url_parts {
	char *host, *origin, *path, *port;
} url_parts;

static void url_parts_free(url_parts *p)
{
	free(p->host);
	free(p->origin);
	free(p->path);
	free(p->port);
	*p = (url_parts){0};
}

static bool parse_url(const char *url, url_parts *out)
{
	*out = (url_parts){0};
	CURLU *u = curl_url();
	char *host = NULL, *port = NULL, *path = NULL, *scheme = NULL, *any_port = NULL;
	bool ok = u && curl_url_set(u, CURLUPART_URL, url, 0) == CURLUE_OK &&
	          curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK &&
	          curl_url_get(u, CURLUPART_SCHEME, &scheme, 0) == CURLUE_OK;
	if (ok) {
		curl_url_get(u, CURLUPART_PORT, &port, 0);
		curl_url_get(u, CURLUPART_PORT, &any_port, CURLU_DEFAULT_PORT);
		curl_url_get(u, CURLUPART_PATH, &path, 0);
		vs_buf origin = {0};
		vs_buf_addf(&origin, "%s://%s", scheme, host);
		if (port)
			vs_buf_addf(&origin, ":%s", port);
		*out = (url_parts){strdup(host), origin.data, strdup(path ? path : "/"),
		                   strdup(any_port ? any_port : "")};
		ok = out->host && out->origin && out->path && out->port;
		if (!ok)
			url_parts_free(out);
	}
	curl_free(host);
	curl_free(port);
	curl_free(any_port);
	curl_free(path);
	curl_free(scheme);
	curl_url_cleanup(u);
	return ok;
}

static int split_url(vs_transport *t, const char *url, vs_error *err)
{
	vs_buf full = {0};
	if (!strstr(url, "://"))
		vs_buf_add(&full, "https://");
	vs_buf_add(&full, url);
	url_parts p;
	bool ok = !full.failed && parse_url(full.data, &p);
	vs_buf_free(&full);
	if (!ok)
		return vs_fail(err, VS_ERR_USAGE, "'%s' is not a valid server URL", url);
	vs_buf sdk = {0};
	vs_buf_add(&sdk, p.origin);
	vs_buf_add(&sdk, strcmp(p.path, "/") != 0 ? p.path : "/sdk");
	t->base = p.origin;
	t->host = p.host;
	t->port = p.port;
	t->sdk_url = sdk.data;
	free(p.path);
	return sdk.failed ? vs_fail(err, VS_ERR_NOMEM, "out of memory") : VS_OK;
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
	for (size_t i = 0; i < t->n_known; i++) {
		free(t->known[i]->name);
		free(t->known[i]->address);
		free(t->known[i]);
	}
	free(t->known);
	curl_slist_free_all(t->connect_to);
	free(t->req_host);
	free(t->base);
	free(t->sdk_url);
	free(t->host);
	free(t->port);
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
		if (t->peer && t->pin_mismatch)
			return vs_fail(err, VS_ERR_TLS,
			               "certificate of ESXi host %s (at %s) has thumbprint %s, not the one "
			               "vCenter reports for that host", t->peer->name,
			               t->peer->address ? t->peer->address : t->peer->name, t->peer_seen);
		if (t->peer && cc != CURLE_SSL_CACERT_BADFILE)
			return vs_fail(err, VS_ERR_TLS,
			               "certificate of ESXi host %s is not trusted (%s) and vCenter reports no "
			               "thumbprint for it: give its CA with --cacert", t->peer->name, detail);
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
			               t->req_host ? t->req_host : t->host, detail, t->seen_thumbprint);
		return vs_fail(err, VS_ERR_TLS, "%s", detail);
	case CURLE_OPERATION_TIMEDOUT:
		return vs_fail(err, VS_ERR_CONNECT, "timed out talking to %s",
		               t->req_host ? t->req_host : t->host);
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

/* Whether a URL goes to the server we log in to ("https://vc" and
 * "https://vc:443" do). */
static bool same_server(const vs_transport *t, const url_parts *p)
{
	return strcmp(p->host, t->host) == 0 && strcmp(p->port, t->port) == 0;
}

static const known_host *find_known(const vs_transport *t, const char *name)
{
	for (size_t i = 0; name && i < t->n_known; i++)
		if (strcmp(t->known[i]->name, name) == 0)
			return t->known[i];
	return NULL;
}

/* The known host a URL goes to; NULL for the server we log in to (and for
 * hosts nobody told us about: the user's policy applies to those). */
static const known_host *peer_for(const vs_transport *t, const url_parts *p)
{
	return same_server(t, p) ? NULL : find_known(t, p->host);
}

/* curl's CONNECT_TO entry "HOST:PORT:ADDRESS:PORT" (IPv6 in brackets). */
static struct curl_slist *connect_to(const url_parts *p, const char *address)
{
	vs_buf entry = {0};
	bool v6 = strchr(address, ':') != NULL;
	vs_buf_addf(&entry, "%s:%s:%s%s%s:%s", p->host, p->port, v6 ? "[" : "", address,
	            v6 ? "]" : "", p->port);
	struct curl_slist *list = entry.failed ? NULL : curl_slist_append(NULL, entry.data);
	vs_buf_free(&entry);
	return list;
}

/* Chooses how this request's peer is reached and trusted: a known ESXi host
 * at its address, by the thumbprint vCenter reported; anything else by the
 * user's policy. */
static void reset_request(vs_transport *t, const char *url, long timeout_ms)
{
	t->curl_error[0] = '\0';
	t->pin_mismatch = false;
	url_parts p;
	bool parsed = parse_url(url, &p);
	t->peer = parsed ? peer_for(t, &p) : NULL;
	curl_slist_free_all(t->connect_to);
	t->connect_to = t->peer && t->peer->address ? connect_to(&p, t->peer->address) : NULL;
	curl_easy_setopt(t->curl, CURLOPT_CONNECT_TO, t->connect_to);
	free(t->req_host);
	t->req_host = parsed ? p.host : NULL;
	if (parsed) {
		p.host = NULL;  /* kept as req_host */
		url_parts_free(&p);
	}
	bool own_check = request_pinned(t) || t->insecure;
	curl_easy_setopt(t->curl, CURLOPT_SSL_VERIFYPEER, own_check ? 0L : 1L);
	curl_easy_setopt(t->curl, CURLOPT_SSL_VERIFYHOST, own_check ? 0L : 2L);
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
	reset_request(t, t->sdk_url, timeout_ms);
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

/* Keeps at most max bytes of a body: past that the transfer stops
 * (overflow), or with keep_tail the oldest bytes make room. */
typedef struct capped {
	vs_buf *buf;
	size_t max;
	bool keep_tail;
	bool overflow;
} capped;

static bool to_buf(const char *data, size_t len, long status, void *ud)
{
	(void)status;
	capped *c = ud;
	if (c->keep_tail && len >= c->max) {
		c->buf->len = 0;
		data += len - c->max;
		len = c->max;
	} else if (c->keep_tail && c->buf->len + len > c->max) {
		size_t drop = c->buf->len + len - c->max;
		memmove(c->buf->data, c->buf->data + drop, c->buf->len - drop);
		c->buf->len -= drop;
	} else if (c->buf->len + len > c->max) {
		c->overflow = true;
		return false;
	}
	vs_buf_addn(c->buf, data, len);
	return !c->buf->failed;
}

/* "bytes 0-0/1234" -> 1234; -1 when absent or unknown ("*"). */
static int64_t content_range_total(CURL *h)
{
	struct curl_header *hdr = NULL;
	if (curl_easy_header(h, "Content-Range", 0, CURLH_HEADER, -1, &hdr) != CURLHE_OK)
		return -1;
	const char *slash = strrchr(hdr->value, '/');
	char *end = NULL;
	errno = 0;
	long long total = slash ? strtoll(slash + 1, &end, 10) : -1;
	return slash && end != slash + 1 && errno != ERANGE && total >= 0 ? (int64_t)total : -1;
}

int vs_transport_fetch(vs_transport *t, const vs_fetch *req, vs_buf *body, vs_fetched *got,
                       vs_error *err)
{
	*got = (vs_fetched){0, -1, -1};
	vs_buf full = {0};
	if (req->url[0] == '/')
		vs_buf_add(&full, t->base);
	vs_buf_add(&full, req->url);
	if (full.failed)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	capped cap = {body, req->max_bytes, req->keep_tail, false};
	vs_http_sink sink = {to_buf, &cap};
	sink_state st = {&sink, t->curl};
	reset_request(t, full.data, req->timeout_ms);
	CURL *h = t->curl;
	curl_easy_setopt(h, CURLOPT_URL, full.data);
	curl_easy_setopt(h, CURLOPT_POST, 0L);
	curl_easy_setopt(h, CURLOPT_UPLOAD, 0L);
	curl_easy_setopt(h, CURLOPT_HTTPGET, 1L);
	curl_easy_setopt(h, CURLOPT_NOBODY, req->head ? 1L : 0L);
	curl_easy_setopt(h, CURLOPT_RANGE, req->range);
	curl_easy_setopt(h, CURLOPT_COOKIE, req->cookie);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &st);
	CURLcode cc = curl_easy_perform(h);
	curl_off_t length = -1;
	curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &got->status);
	curl_easy_getinfo(h, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length);
	got->length = length;
	got->total = cc == CURLE_OK ? content_range_total(h) : -1;
	curl_easy_setopt(h, CURLOPT_RANGE, NULL);
	curl_easy_setopt(h, CURLOPT_COOKIE, NULL);
	curl_easy_setopt(h, CURLOPT_NOBODY, 0L);
	vs_buf_free(&full);
	/* The query of a guest transfer URL is its bearer token: never say it. */
	if (cap.overflow)
		return vs_fail(err, VS_ERR_HTTP, "%.*s is larger than %zu bytes",
		               (int)strcspn(req->url, "?"), req->url, req->max_bytes);
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
	reset_request(t, url, timeout_ms);
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

/* A guest transfer URL whose host is "*" gets our scheme, host and port. */
static char *resolve_star(const vs_transport *t, const char *url)
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

int vs_transport_transfer_url(const vs_transport *t, const char *url, char **out,
                              char **unknown_host, vs_error *err)
{
	*out = *unknown_host = NULL;
	char *full = resolve_star(t, url);
	url_parts p;
	if (!full || !parse_url(full, &p)) {
		free(full);
		return vs_fail(err, VS_ERR_PROTOCOL, "'%.*s' is not a transfer URL",
		               (int)strcspn(url, "?"), url);  /* the query is a bearer token */
	}
	if (same_server(t, &p) || find_known(t, p.host))
		*out = full, full = NULL;
	else
		*unknown_host = strdup(p.host);
	int rc = *out || *unknown_host ? VS_OK : vs_fail(err, VS_ERR_NOMEM, "out of memory");
	free(full);
	url_parts_free(&p);
	return rc;
}

int vs_transport_add_host(vs_transport *t, const char *name, const char *address,
                          const char *thumbprint, vs_error *err)
{
	known_host *k = calloc(1, sizeof(*k));
	if (!k)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	int n = thumbprint && *thumbprint ? parse_hex_digest(thumbprint, k->digest, 32) : 0;
	if (n != 0 && n != 20 && n != 32) {
		free(k);
		return vs_fail(err, VS_ERR_PROTOCOL,
		               "vCenter reports '%s' as the thumbprint of ESXi host %s: neither SHA-1 nor "
		               "SHA-256", thumbprint, name);
	}
	k->digest_len = n;
	k->name = strdup(name);
	k->address = address && strcmp(address, name) != 0 ? strdup(address) : NULL;
	known_host **grown = realloc(t->known, (t->n_known + 1) * sizeof(*grown));
	if (grown)
		t->known = grown;
	if (!grown || !k->name || (address && strcmp(address, name) != 0 && !k->address)) {
		free(k->name);
		free(k->address);
		free(k);
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	}
	t->known[t->n_known++] = k;
	return VS_OK;
}

bool vs_transport_knows(const vs_transport *t, const char *name)
{
	return find_known(t, name) != NULL;
}

vs_route vs_transport_route(const vs_transport *t, const char *url)
{
	vs_route r = {.server = true};
	url_parts p;
	if (!parse_url(url, &p))
		return r;
	const known_host *k = peer_for(t, &p);
	if (k)
		r = (vs_route){false, k->address, k->digest_len};
	url_parts_free(&p);
	return r;
}
