/* Waiting for tasks without sleep-polling: a filter on the task's info in a
 * private property collector, and WaitForUpdatesEx, which answers when
 * something changed.  The filter is destroyed on every path.  A re-login
 * while waiting recreates collector and filter; the task itself lives on. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"

/* What a waiter reads of a task, by filter or by a plain read. */
static const char *const task_paths[] = {"info.state",     "info.progress",  "info.error",
                                         "info.result",    "info.queueTime", "info.startTime",
                                         "info.completeTime", NULL};

typedef struct task_state {
	char *state;      /* queued | running | success | error */
	int progress;     /* -1 until reported */
	xmlDoc *error;    /* copy of info.error */
	xmlDoc *result;   /* copy of info.result */
	vs_task_times times; /* info.queueTime, startTime, completeTime; 0 until reported */
} task_state;

/* Digits at *p, exactly n of them; -1 if not. */
static int digits(const char **p, int n)
{
	int v = 0;
	for (int i = 0; i < n; i++, (*p)++) {
		if (!isdigit((unsigned char)**p))
			return -1;
		v = v * 10 + (**p - '0');
	}
	return v;
}

/* Days from 1970-01-01 to y-m-d, proleptic Gregorian (H. Hinnant's
 * days_from_civil): no timegm() in C17, and mktime() is local time. */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

int64_t vs_time_parse(const char *text, const char **end)
{
	const char *p = text;
	int y = digits(&p, 4), mo = *p == '-' ? (p++, digits(&p, 2)) : -1;
	int d = *p == '-' ? (p++, digits(&p, 2)) : -1;
	int h = *p == 'T' ? (p++, digits(&p, 2)) : -1;
	int mi = *p == ':' ? (p++, digits(&p, 2)) : -1;
	int s = *p == ':' ? (p++, digits(&p, 2)) : -1;
	if (y < 0 || mo < 1 || mo > 12 || d < 1 || d > 31 || h < 0 || h > 23 || mi < 0 || mi > 59 ||
	    s < 0 || s > 60)
		return -1;
	int64_t ms = 0;
	if (*p == '.' || *p == ',') {
		p++;
		int scale = 100, n = 0;
		for (; isdigit((unsigned char)*p); p++, n++, scale /= 10)
			ms += (*p - '0') * scale;  /* past milliseconds, scale is 0 */
		if (!n)
			return -1;
	}
	int64_t offset_min = 0;
	if (*p == 'Z') {
		p++;
	} else if (*p == '+' || *p == '-') {
		int sign = *p++ == '-' ? -1 : 1;
		int oh = digits(&p, 2), om = *p == ':' ? (p++, digits(&p, 2)) : digits(&p, 2);
		if (oh < 0 || om < 0)
			return -1;
		offset_min = sign * (oh * 60 + om);
	}
	if (end)
		*end = p;
	int64_t secs = days_from_civil(y, mo, d) * 86400 + h * 3600 + mi * 60 + s - offset_min * 60;
	return secs * 1000 + ms;
}

static xmlDoc *copy_node(const xmlNode *val)
{
	xmlDoc *doc = xmlNewDoc((const xmlChar *)"1.0");
	xmlNode *copy = doc ? xmlDocCopyNode((xmlNode *)val, doc, 1) : NULL;
	if (!copy) {
		xmlFreeDoc(doc);
		return NULL;
	}
	xmlDocSetRootElement(doc, copy);
	return doc;
}

/* A private collector: its WaitForUpdatesEx answers for its own filters only. */
static int ensure_collector(vs_client *c, char **collector, vs_error *err)
{
	if (*collector)
		return VS_OK;
	vs_reply r = {0};
	int rc = vs_call(c, "CreatePropertyCollector", "PropertyCollector", c->sc.property_collector,
	                 NULL, VS_RET_ONE, VS_CALL_SAFE, NULL, &r, err);
	if (rc == VS_OK && !(*collector = vs_xml_text(vs_reply_ret(&r))))
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	vs_reply_free(&r);
	return rc;
}

static int create_filter(vs_client *c, char **collector, const char *task, char **filter,
                         vs_error *err)
{
	int rc = ensure_collector(c, collector, err);
	if (rc != VS_OK)
		return rc;
	vs_buf params = {0};
	vs_buf_add(&params, "<spec><propSet><type>Task</type>");
	for (const char *const *p = task_paths; *p; p++)
		vs_buf_elem(&params, "pathSet", *p);
	vs_buf_add(&params, "</propSet><objectSet>");
	vs_buf_moref(&params, "obj", "Task", task);
	vs_buf_add(&params, "</objectSet></spec><partialUpdates>false</partialUpdates>");
	vs_reply r = {0};
	rc = params.failed ? vs_fail(err, VS_ERR_NOMEM, "out of memory")
	                   : vs_call(c, "CreateFilter", "PropertyCollector", *collector,
	                             params.data, VS_RET_ONE, VS_CALL_SAFE | VS_CALL_SESSION_BOUND,
	                             NULL, &r, err);
	vs_buf_free(&params);
	if (rc == VS_OK && !(*filter = vs_xml_text(vs_reply_ret(&r))))
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	vs_reply_free(&r);
	return rc;
}

/* Where t keeps the time a change of name says, or NULL. */
static int64_t *time_field(task_state *t, const char *name)
{
	return strcmp(name, "info.queueTime") == 0   ? &t->times.queued_ms
	       : strcmp(name, "info.startTime") == 0 ? &t->times.started_ms
	       : strcmp(name, "info.completeTime") == 0 ? &t->times.ended_ms
	                                                : NULL;
}

static void apply_change(const xmlNode *change, task_state *t)
{
	char *name = vs_xml_path_text(change, "name");
	xmlNode *val = vs_xml_child(change, "val");
	if (!name)
		return;
	if (strcmp(name, "info.state") == 0 && val) {
		free(t->state);
		t->state = vs_xml_text(val);
	} else if (strcmp(name, "info.progress") == 0) {
		t->progress = (int)vs_xml_path_int(val, "", t->progress);
	} else if (strcmp(name, "info.error") == 0 && val) {
		xmlFreeDoc(t->error);
		t->error = copy_node(val);
	} else if (time_field(t, name) && val) {
		char *text = vs_xml_text(val);
		int64_t ms = text ? vs_time_parse(text, NULL) : -1;
		*time_field(t, name) = ms > 0 ? ms : 0;
		free(text);
	} else if (strcmp(name, "info.result") == 0 && val) {
		xmlFreeDoc(t->result);
		t->result = copy_node(val);
	}
	free(name);
}

/* Hands each changed object of an update set to apply(obj, change, ud). */
typedef void (*change_fn)(const char *obj, const xmlNode *change, void *ud);

/* One WaitForUpdatesEx of up to wait_s on collector; updates *version. */
static int wait_once(vs_client *c, const char *collector, long wait_s, char **version,
                     change_fn apply, void *ud, vs_error *err)
{
	vs_buf params = {0};
	if (*version)
		vs_buf_elem(&params, "version", *version);
	vs_buf_addf(&params, "<options><maxWaitSeconds>%ld</maxWaitSeconds></options>", wait_s);
	vs_reply r = {0};
	int rc = params.failed ? vs_fail(err, VS_ERR_NOMEM, "out of memory")
	                       : vs_call(c, "WaitForUpdatesEx", "PropertyCollector", collector,
	                                 params.data, VS_RET_OPTIONAL,
	                                 VS_CALL_SAFE | VS_CALL_SESSION_BOUND, NULL, &r, err);
	vs_buf_free(&params);
	xmlNode *set = rc == VS_OK ? vs_reply_ret(&r) : NULL;
	if (set) {
		free(*version);
		*version = vs_xml_path_text(set, "version");
	}
	for (xmlNode *f = vs_xml_child(set, "filterSet"); f; f = vs_xml_next(f))
		for (xmlNode *o = vs_xml_child(f, "objectSet"); o; o = vs_xml_next(o)) {
			char *obj = vs_xml_path_text(o, "obj");
			for (xmlNode *ch = vs_xml_child(o, "changeSet"); obj && ch; ch = vs_xml_next(ch))
				apply(obj, ch, ud);
			free(obj);
		}
	vs_reply_free(&r);
	return rc;
}

/* The longest wait of one call: within the call's timeout. */
static long max_wait_s(const vs_client *c)
{
	long wait_s = c->opts.call_timeout_s / 2;
	return wait_s > 30 ? 30 : wait_s < 1 ? 1 : wait_s;
}

static void apply_one(const char *obj, const xmlNode *change, void *ud)
{
	(void)obj;  /* the filter watches one task */
	apply_change(change, ud);
}

static void destroy_filter(vs_client *c, char **filter)
{
	if (!*filter)
		return;
	vs_error ignored = {0};
	vs_call(c, "DestroyPropertyFilter", "PropertyFilter", *filter, NULL, VS_RET_NONE,
	        VS_CALL_SAFE | VS_CALL_SESSION_BOUND, NULL, NULL, &ignored);
	free(*filter);
	*filter = NULL;
}

static bool finished(const task_state *t)
{
	return t->state && (strcmp(t->state, "success") == 0 || strcmp(t->state, "error") == 0);
}

static int task_outcome(task_state *t, xmlDoc **result, vs_error *err)
{
	if (strcmp(t->state, "error") == 0) {
		xmlNode *e = t->error ? xmlDocGetRootElement(t->error) : NULL;
		if (e)
			vs_fault_from_node(e, err);
		else
			snprintf(err->message, sizeof(err->message), "the task failed without an error");
		err->status = VS_ERR_TASK;
		/* What the task made happen is what was logged after it began. */
		err->task_started_ms = t->times.started_ms;
		return VS_ERR_TASK;
	}
	if (result) {
		*result = t->result;
		t->result = NULL;
	}
	return VS_OK;
}

static int read_info(const char *type, const char *moref, const xmlNode *object, void *ud,
                     vs_error *err)
{
	(void)type, (void)moref, (void)err;
	for (xmlNode *p = vs_xml_child(object, "propSet"); p; p = vs_xml_next(p))
		apply_change(p, ud);  /* a DynamicProperty has name and val, as a change */
	return VS_OK;
}

/* One read of the task's info first: a task that ended by the time its
 * call returned (on NFS, making or deleting a small disk, a search) costs
 * this one call instead of a filter's three; one still queued or running
 * costs the read more than before. */
static int read_task(vs_client *c, const char *task, task_state *t, vs_error *err)
{
	return vs_props_one(c, "Task", task, task_paths, read_info, t, err);
}

int vs_task_wait(vs_client *c, const char *task, vs_progress_fn progress, void *ud,
                 xmlDoc **result, vs_error *err)
{
	task_state t = {.progress = -1};
	char *filter = NULL, *version = NULL;
	int last = -1;
	if (result)
		*result = NULL;
	int rc = read_task(c, task, &t, err);
	if (progress && rc == VS_OK && t.progress >= 0)
		progress(last = t.progress, ud);
	for (int renewals = 0; rc == VS_OK && !finished(&t);) {
		if (!filter)
			rc = create_filter(c, &c->task_collector, task, &filter, err);
		if (rc == VS_OK)
			rc = wait_once(c, c->task_collector, max_wait_s(c), &version, apply_one, &t, err);
		if (rc == VS_ERR_SESSION_RENEWED && renewals++ < 3) {
			free(filter);  /* died with the old session */
			filter = NULL;
			free(version);
			version = NULL;
			rc = VS_OK;
			continue;
		}
		if (progress && t.progress >= 0 && t.progress != last)
			progress(last = t.progress, ud);
	}
	destroy_filter(c, &filter);
	if (rc == VS_OK) {
		if (progress && last != 100 && strcmp(t.state, "success") == 0)
			progress(100, ud);
		rc = task_outcome(&t, result, err);
	}
	free(version);
	free(t.state);
	xmlFreeDoc(t.error);
	xmlFreeDoc(t.result);
	return rc;
}

const char *const vs_task_running_paths[] = {"info.state", "info.descriptionId", NULL};

bool vs_task_is(const xmlNode *object, const char *description_id, const char *const *states)
{
	char *state = vs_prop_text(object, "info.state"), *id = vs_prop_text(object, "info.descriptionId");
	bool is = false;
	for (const char *const *s = states; state && id && !is && *s; s++)
		is = strcmp(state, *s) == 0 && strcmp(id, description_id) == 0;
	free(state);
	free(id);
	return is;
}

bool vs_task_is_running(const xmlNode *object, const char *description_id)
{
	static const char *const busy[] = {"running", "queued", NULL};
	return vs_task_is(object, description_id, busy);
}

typedef struct running_search {
	const char *description_id;
	char *task;
} running_search;

static int match_running(const char *type, const char *moref, const xmlNode *object, void *ud,
                         vs_error *err)
{
	(void)type;
	running_search *s = ud;
	if (vs_task_is_running(object, s->description_id) && !s->task && !(s->task = strdup(moref)))
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	return VS_OK;
}

int vs_task_find_running(vs_client *c, const char *entity_type, const char *entity,
                         const char *description_id, char **task, vs_error *err)
{
	running_search s = {description_id, NULL};
	int rc = vs_props_related(c, entity_type, entity, "recentTask",
	                          &(vs_propspec){"Task", vs_task_running_paths}, match_running, &s, err);
	*task = rc == VS_OK ? s.task : NULL;
	if (rc != VS_OK)
		free(s.task);
	return rc;
}

int vs_task_wait_other(vs_client *c, const char *task, vs_progress_fn progress, void *ud,
                       vs_error *err)
{
	/* Its outcome is not ours: the caller looks at the world afterwards. */
	vs_error ignored = {0};
	int rc = vs_task_wait(c, task, progress, ud, NULL, &ignored);
	if (rc != VS_ERR_TASK && rc != VS_OK)
		*err = ignored;
	return rc == VS_ERR_TASK ? VS_OK : rc;
}

int vs_task_wait_running(vs_client *c, const char *entity_type, const char *entity,
                         const char *description_id, vs_progress_fn progress, void *ud,
                         bool *waited, vs_error *err)
{
	char *task = NULL;
	int rc = vs_task_find_running(c, entity_type, entity, description_id, &task, err);
	*waited = task != NULL;
	if (rc == VS_OK && task)
		rc = vs_task_wait_other(c, task, progress, ud, err);
	free(task);
	return rc;
}

int vs_task_run(vs_client *c, const char *method, const char *this_type, const char *this_id,
                const char *params, unsigned flags, vs_progress_fn progress, void *ud,
                xmlDoc **result, vs_error *err)
{
	vs_reply r = {0};
	int rc = vs_call(c, method, this_type, this_id, params, VS_RET_ONE, flags, NULL, &r, err);
	char *task = rc == VS_OK ? vs_xml_text(vs_reply_ret(&r)) : NULL;
	vs_reply_free(&r);
	if (rc == VS_OK && !task)
		rc = vs_fail(err, VS_ERR_NOMEM, "out of memory");
	if (rc == VS_OK)
		rc = vs_task_wait(c, task, progress, ud, result, err);
	free(task);
	return rc;
}

/* ---- many tasks at once ------------------------------------------------- */

typedef struct set_entry {
	char *task, *filter;
	task_state st;
} set_entry;

/* A collector of its own with a filter per task: one WaitForUpdatesEx
 * answers for all of them, with each change once, whatever their number. */
struct vs_task_set {
	vs_client *c;
	unsigned login;  /* the session the collector and filters were made in */
	char *collector, *version;
	set_entry *e;
	size_t n, cap;
};

int vs_task_set_new(vs_client *c, vs_task_set **out, vs_error *err)
{
	if (!(*out = calloc(1, sizeof(**out))))
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	(*out)->c = c;
	return VS_OK;
}

static void entry_clear(set_entry *e)
{
	free(e->task);
	free(e->filter);
	free(e->st.state);
	xmlFreeDoc(e->st.error);
	xmlFreeDoc(e->st.result);
}

static set_entry *entry_of(const vs_task_set *s, const char *task)
{
	for (size_t i = 0; i < s->n; i++)
		if (strcmp(s->e[i].task, task) == 0)
			return &s->e[i];
	return NULL;
}

/* After a re-login the collector and its filters are gone with the old
 * session; the tasks live on: everything is made again, and the first wait
 * without a version reports each task's whole state.  A re-login while
 * making them makes them again (a few times at most). */
static int renew(vs_task_set *s, vs_error *err)
{
	int rc = VS_ERR_SESSION_RENEWED;
	for (int tries = 0; tries < 3 && (rc == VS_ERR_SESSION_RENEWED ||
	                                  (rc == VS_OK && s->login != s->c->logins)); tries++) {
		free(s->collector);
		s->collector = NULL;
		free(s->version);
		s->version = NULL;
		for (size_t i = 0; i < s->n; i++) {
			free(s->e[i].filter);
			s->e[i].filter = NULL;
		}
		s->login = s->c->logins;
		rc = VS_OK;
		for (size_t i = 0; rc == VS_OK && i < s->n; i++)
			rc = create_filter(s->c, &s->collector, s->e[i].task, &s->e[i].filter, err);
	}
	return rc;
}

/* Whether the collector is of the session now: a re-login by any call since
 * (ours or another's) took it and its filters. */
static int same_session(vs_task_set *s, vs_error *err)
{
	return s->collector && s->login != s->c->logins ? renew(s, err) : VS_OK;
}

int vs_task_set_add(vs_task_set *s, const char *task, vs_error *err)
{
	if (entry_of(s, task))
		return VS_OK;
	int rc = same_session(s, err);
	if (rc != VS_OK)
		return rc;
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 8;
		set_entry *grown = realloc(s->e, cap * sizeof(*grown));
		if (!grown)
			return vs_fail(err, VS_ERR_NOMEM, "out of memory");
		s->e = grown;
		s->cap = cap;
	}
	set_entry *e = &s->e[s->n];
	*e = (set_entry){.task = strdup(task), .st = {.progress = -1}};
	if (!e->task)
		return vs_fail(err, VS_ERR_NOMEM, "out of memory");
	s->n++;
	if (!s->collector)
		return renew(s, err);
	rc = create_filter(s->c, &s->collector, task, &e->filter, err);
	return rc == VS_ERR_SESSION_RENEWED ? renew(s, err) : rc;
}

static void apply_set(const char *obj, const xmlNode *change, void *ud)
{
	set_entry *e = entry_of(ud, obj);
	if (e)
		apply_change(change, &e->st);
}

int vs_task_set_wait(vs_task_set *s, long wait_s, vs_error *err)
{
	long most = max_wait_s(s->c);
	wait_s = wait_s < 1 ? 1 : wait_s > most ? most : wait_s;
	int rc = VS_OK;
	for (int renewals = 0; renewals <= 3; renewals++) {
		rc = same_session(s, err);
		if (rc == VS_OK && s->collector)
			rc = wait_once(s->c, s->collector, wait_s, &s->version, apply_set, s, err);
		if (rc != VS_ERR_SESSION_RENEWED)
			return rc;  /* renewed: the next turn makes the collector again */
	}
	return rc;
}

vs_task_phase vs_task_set_phase(const vs_task_set *s, const char *task, int *progress)
{
	const set_entry *e = entry_of(s, task);
	const char *st = e && e->st.state ? e->st.state : "";
	if (progress)
		*progress = e ? e->st.progress : -1;
	return strcmp(st, "success") == 0 ? VS_TASK_SUCCESS
	       : strcmp(st, "error") == 0 ? VS_TASK_ERROR
	       : strcmp(st, "running") == 0 ? VS_TASK_RUNNING
	       : strcmp(st, "queued") == 0  ? VS_TASK_QUEUED
	                                    : VS_TASK_UNSEEN;
}

vs_task_times vs_task_set_times(const vs_task_set *s, const char *task)
{
	const set_entry *e = entry_of(s, task);
	return e ? e->st.times : (vs_task_times){0};
}

int vs_task_set_take(vs_task_set *s, const char *task, vs_error *err)
{
	return vs_task_set_take_result(s, task, NULL, err);
}

int vs_task_set_take_result(vs_task_set *s, const char *task, xmlDoc **result, vs_error *err)
{
	if (result)
		*result = NULL;
	set_entry *e = entry_of(s, task);
	if (!e)
		return vs_fail(err, VS_ERR_NOT_FOUND, "task %s is not waited for", task);
	int rc = finished(&e->st) ? task_outcome(&e->st, result, err)
	                          : vs_fail(err, VS_ERR_PROTOCOL, "task %s has not ended", task);
	destroy_filter(s->c, &e->filter);
	entry_clear(e);
	*e = s->e[--s->n];
	return rc;
}

void vs_task_set_free(vs_task_set **s)
{
	if (!*s)
		return;
	/* The filters go one by one first: govmomi's simulator fails to
	 * destroy a collector that still has two. */
	for (size_t i = 0; i < (*s)->n; i++) {
		destroy_filter((*s)->c, &(*s)->e[i].filter);
		entry_clear(&(*s)->e[i]);
	}
	if ((*s)->collector) {
		vs_error ignored = {0};
		vs_call((*s)->c, "DestroyPropertyCollector", "PropertyCollector", (*s)->collector, NULL,
		        VS_RET_NONE, VS_CALL_SAFE | VS_CALL_SESSION_BOUND, NULL, NULL, &ignored);
	}
	free((*s)->collector);
	free((*s)->version);
	free((*s)->e);
	free(*s);
	*s = NULL;
}
