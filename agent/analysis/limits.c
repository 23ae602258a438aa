/* What limited a run (limits.h; the thresholds in docs/limits.md). */
#include "analysis/limits.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "analysis/nas_line.h"
#include "analysis/netbound.h"

const char *na_limit_name(na_limit_layer l)
{
	static const char *const names[] = {"undetermined", "cache", "network", "log device",
	                                    "pool disks", "path"};
	return names[l];
}

static void verdict(na_limit *out, na_limit_layer l, double share, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void verdict(na_limit *out, na_limit_layer l, double share, const char *fmt, ...)
{
	out->layer = l;
	out->share = share;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(out->evidence, sizeof(out->evidence), fmt, ap);
	va_end(ap);
}

static double ratio(double x, double ceiling)
{
	return ceiling > 0 && x >= 0 ? x / ceiling : -1;
}

/* The direction that moved the most bytes: what the verdict is about. */
static double guest_bps(const na_limit_in *in)
{
	double r = in->reads ? in->read_bps : 0, w = in->writes ? in->write_bps : 0;
	return r > w ? r : w;
}

/* Through the link: the guest's, or a group's VMs on the link's host. */
static double link_bps(const na_limit_in *in)
{
	return in->link_vms > 0 ? in->link_bps : guest_bps(in);
}

static double link_share(const na_limit_in *in)
{
	return in->link_mbit > 0 ? link_bps(in) / ((double)in->link_mbit * 1e6 / 8) : -1;
}

/* Who moved the bytes through the link: "the guest", "its 2 VMs on esx01". */
static const char *movers(const na_limit_in *in, char *buf, size_t size)
{
	if (in->link_vms <= 0)
		return "the guest";
	snprintf(buf, size, "its %d VM%s on %s", in->link_vms, in->link_vms == 1 ? "" : "s",
	         in->host ? in->host : "the host");
	return buf;
}

/* Who ran: "the guest", or a group's "3 VMs together". */
static const char *runners(const na_limit_in *in, char *buf, size_t size)
{
	if (in->vms <= 0)
		return "the guest";
	snprintf(buf, size, "its %d VM%s together", in->vms, in->vms == 1 ? "" : "s");
	return buf;
}

/* Network, then cache: what needs no NAS side.  A cache-served read at
 * its link's speed was held by the link. */
static bool without_nas(const na_limit_in *in, na_limit *out)
{
	double l = link_share(in);
	char who[160];
	if (l >= NA_LIMIT_AT_CEILING) {
		verdict(out, NA_LIMIT_NETWORK, l, "%.0f MB/s from %s, %.0f%% of %s's %lld Mb/s link (%s)",
		        link_bps(in) / 1e6, movers(in, who, sizeof(who)), l * 100,
		        in->host ? in->host : "the host", (long long)in->link_mbit, in->nic ? in->nic : "uplink");
		return true;
	}
	if (!in->reads)
		return false;
	if (in->nas && in->fits_arc && in->arc_hit_ratio >= NA_ARC_SERVED) {
		verdict(out, NA_LIMIT_CACHE, in->arc_hit_ratio,
		        "the ARC served %.0f%% of the demand reads, the file fitting in it",
		        in->arc_hit_ratio * 100);
		return true;
	}
	if (in->under_floor >= NA_CACHE_SHARE) {
		verdict(out, NA_LIMIT_CACHE, in->under_floor,
		        "%.0f%% of the reads took under %.0f us, faster than an NFS round trip",
		        in->under_floor * 100, NA_CACHE_FLOOR_US);
		return true;
	}
	return false;
}

/* The log device's share of its ceiling, or of the guest's write latency
 * (*wait true then); -1 when neither is known. */
static double log_share(const na_limit_in *in, bool *wait)
{
	*wait = false;
	if (!in->writes)
		return -1;
	double s = in->local ? ratio(in->log_write_bps, in->local->log_write_bps) : -1;
	if (s >= NA_LIMIT_AT_CEILING)
		return s;
	double w = ratio(in->log_wait_us, in->write_lat_us);
	/* over 1 the log waited longer than the guest's whole write: not the
	 * same window, no evidence; and the pool on its own, through the same
	 * log, far faster than the guest: the log's wait is not what held it */
	bool faster = in->local && in->local->profile &&
	              ratio(guest_bps(in), in->local->bps) < NA_LIMIT_PATH_SHARE;
	if (w >= NA_LIMIT_LOG_WAIT_SHARE && w <= 1.05 && !faster) {
		*wait = true;
		return w;
	}
	return s;
}

static double pool_share(const na_limit_in *in)
{
	if (!in->local)
		return -1;
	double w = in->writes ? ratio(in->data_write_bps, in->local->data_write_bps) : -1;
	double r = in->reads ? ratio(in->data_read_bps, in->local->data_read_bps) : -1;
	return w > r ? w : r;
}

/* The log device or the pool's disks at their ceilings; both is a
 * conflict, neither leaves it open. */
static bool at_the_pool(const na_limit_in *in, na_limit *out)
{
	bool wait;
	double lg = log_share(in, &wait), pl = pool_share(in);
	if (lg >= NA_LIMIT_AT_CEILING && pl >= NA_LIMIT_AT_CEILING) {
		verdict(out, NA_LIMIT_UNDETERMINED, -1, "conflicting: the log device at %.0f%% and the data "
		        "vdevs at %.0f%% of their NAS-local ceilings", lg * 100, pl * 100);
		return true;
	}
	if (wait && pl < NA_LIMIT_AT_CEILING) {
		verdict(out, NA_LIMIT_LOG, lg, "the log device's write wait (%.0f us) is %.0f%% of the "
		        "guest's write latency (%.0f us)", in->log_wait_us, lg * 100, in->write_lat_us);
		return true;
	}
	if (lg >= NA_LIMIT_AT_CEILING) {
		verdict(out, NA_LIMIT_LOG, lg, "the log device wrote %.0f MB/s, %.0f%% of its NAS-local "
		        "sequential sync-write ceiling (%.0f MB/s)", in->log_write_bps / 1e6, lg * 100,
		        in->local->log_write_bps / 1e6);
		return true;
	}
	if (pl >= NA_LIMIT_AT_CEILING) {
		char amp[64] = "";
		if (in->amplification > 0)
			snprintf(amp, sizeof(amp), ", %.1fx the guest's writes", in->amplification);
		verdict(out, NA_LIMIT_POOL, pl, "the data vdevs moved %.0f%% of their NAS-local ceiling%s",
		        pl * 100, amp);
		return true;
	}
	return false;
}

/* The guest well under the pool's own figure while each layer had room. */
static void the_path(const na_limit_in *in, na_limit *out)
{
	const na_limit_local *l = in->local;
	double g = ratio(guest_bps(in), l->bps), ln = link_share(in), pl = pool_share(in);
	bool wait;
	double lg = log_share(in, &wait);
	char who[64];
	if (in->link_mbit <= 0) {
		verdict(out, NA_LIMIT_UNDETERMINED, -1, "the host's link speed is not recorded: the "
		        "network cannot be ruled out (guest at %.0f%% of the NAS-local figure)", g * 100);
		return;
	}
	/* room unknown is not room: each judged direction's data vdevs need a ceiling */
	bool unknown_w = in->writes && l->data_write_bps <= 0;
	if (unknown_w || (in->reads && l->data_read_bps <= 0)) {
		verdict(out, NA_LIMIT_UNDETERMINED, -1, "no NAS-local baseline measured the data vdevs' "
		        "%s over its fio's window: their ceiling is not known (%s at %.0f%% of the "
		        "pool's own %.0f MB/s)", unknown_w ? "writes" : "reads",
		        runners(in, who, sizeof(who)), g * 100, l->bps / 1e6);
		return;
	}
	if (g >= 0 && g < NA_LIMIT_PATH_SHARE && ln < NA_LIMIT_ROOM && lg < NA_LIMIT_ROOM &&
	    pl < NA_LIMIT_ROOM) {
		verdict(out, NA_LIMIT_PATH, g, "%s reached %.0f%% of the pool's own %.0f MB/s "
		        "(%.0f IOPS) while the link (%.0f%%), the log (%.0f%%) and the data vdevs "
		        "(%.0f%%) had room; ESXi's NFS client: %s",
		        runners(in, who, sizeof(who)), g * 100, l->bps / 1e6, l->iops, ln * 100,
		        lg > 0 ? lg * 100 : 0, pl > 0 ? pl * 100 : 0,
		        in->nfs_client ? in->nfs_client : "its settings not recorded");
		return;
	}
	/* a single run's log could have been held by its wait; a group's has none */
	verdict(out, NA_LIMIT_UNDETERMINED, -1, "no layer at its ceiling: %s at %.0f%% of the "
	        "NAS-local figure, the link at %.0f%%, the log at %.0f%%, the data vdevs at %.0f%%%s",
	        runners(in, who, sizeof(who)), g * 100, ln * 100, lg > 0 ? lg * 100 : 0, pl > 0 ? pl * 100 : 0,
	        in->pool_totals_only && in->writes ? " (a group's pool row has no log write wait)" : "");
}

void na_limit_of(const na_limit_in *in, na_limit *out)
{
	memset(out, 0, sizeof(*out));
	out->share = -1;
	out->local_share = in->local && in->local->profile ? ratio(guest_bps(in), in->local->bps) : -1;
	if (!in->reads && !in->writes) {
		verdict(out, NA_LIMIT_UNDETERMINED, -1, "no I/O measured");
		return;
	}
	if (without_nas(in, out))
		return;
	if (!in->nas) {
		verdict(out, NA_LIMIT_UNDETERMINED, -1, "%s (%s): the pool, its log and the path cannot "
		        "be told apart",
		        in->nas_incomplete ? "the NAS's figures are incomplete" : "no NAS side",
		        in->nas_why ? in->nas_why : "bench --nas");
		return;
	}
	if (at_the_pool(in, out))
		return;
	/* an ARC we cannot see may have served the reads: no path verdict */
	if (in->reads && in->pool_totals_only) {
		verdict(out, NA_LIMIT_UNDETERMINED, -1, "a group's pool row has no ARC hit ratio: the "
		        "cache cannot be ruled out for its reads");
		return;
	}
	if (!in->local || !in->local->profile) {
		verdict(out, NA_LIMIT_UNDETERMINED, -1, "no NAS-local baseline of %s (bench "
		        "--nas-baseline): the pool's own ceiling is not known",
		        in->local ? "this profile" : "the dataset");
		return;
	}
	the_path(in, out);
}

/* A stored window's length: the seconds the totals are over. */
static double window_s(const na_result *r, const na_nas_run *n)
{
	if (n && n->window_s > 0)
		return n->window_s;
	int64_t ms = r->read.runtime_ms > r->write.runtime_ms ? r->read.runtime_ms : r->write.runtime_ms;
	return (double)ms / 1000;
}

void na_limit_in_of_row(const na_result *r, const na_nas_run *n, uint64_t working_set,
                        double under_floor, na_limit_in *in)
{
	memset(in, 0, sizeof(*in));
	in->reads = r->read.present;
	in->writes = r->write.present;
	in->read_bps = r->read.bw_bytes, in->write_bps = r->write.bw_bytes;
	in->read_iops = r->read.iops, in->write_iops = r->write.iops;
	in->write_lat_us = r->write.present ? r->write.lat_mean_us : -1;
	in->under_floor = under_floor;
	na_limit_member link = na_limit_member_of(r);  /* its host's link, read as a member's */
	in->host = link.host, in->nic = link.nic, in->nfs_client = link.nfs_client;
	in->link_mbit = link.link_mbit;
	in->arc_hit_ratio = in->log_wait_us = in->amplification = -1;
	in->nas_incomplete = n && n->pool_known && n->incomplete;
	in->nas = n && n->pool_known && !n->incomplete;
	in->nas_why = n ? n->why : NULL;
	if (!in->nas)
		return;
	double s = window_s(r, n);
	in->log_write_bps = s > 0 ? (double)n->log_write_bytes / s : -1;
	in->data_write_bps = s > 0 ? (double)(n->data_write_bytes + n->special_write_bytes) / s : -1;
	in->data_read_bps = s > 0 ? (double)(n->data_read_bytes + n->special_read_bytes) / s : -1;
	in->log_wait_us = n->log_write_wait_ms >= 0 ? n->log_write_wait_ms * 1000 : -1;
	in->amplification = n->amplification;
	if (n->counters_known) {
		in->arc_hit_ratio = n->arc_hit_ratio;
		in->fits_arc = working_set > 0 && n->arc_size > 0 &&
		               working_set <= (uint64_t)n->arc_size;
	}
}

static void keep_max(double *at, double v)
{
	if (v > *at)
		*at = v;
}

void na_limit_local_add(na_limit_local *l, const na_result *r, const na_nas_run *n, bool same)
{
	if (same && (r->read.present || r->write.present)) {
		bool rd = r->read.present && (!r->write.present || r->read.bw_bytes > r->write.bw_bytes);
		l->profile = true;
		l->bps = rd ? r->read.bw_bytes : r->write.bw_bytes;
		l->iops = rd ? r->read.iops : r->write.iops;
	}
	na_limit_in in;
	na_limit_in_of_row(r, n, 0, -1, &in);
	if (!in.nas)
		return;
	keep_max(&l->log_write_bps, in.log_write_bps);
	keep_max(&l->data_write_bps, in.data_write_bps);
	keep_max(&l->data_read_bps, in.data_read_bps);
}
