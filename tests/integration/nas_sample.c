/* Runs nas/'s sampler against a NAS for SECONDS, as bench will around fio,
 * and prints what it got, one "key value" a line: test_nas.sh checks that
 * the lab NAS's zpool iostat and kstats, over a real sshd, read whole. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nfsagent/nas.h"

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: nas_sample NAS-COMMAND DATASET INTERVAL SECONDS\n");
		return 2;
	}
	nas_target t;
	nas_props p;
	nas_layout l;
	nas_sampler *s;
	vs_error err = {0};
	char pool[256];
	snprintf(pool, sizeof(pool), "%.*s", (int)strcspn(argv[2], "/"), argv[2]);
	int interval = atoi(argv[3]), seconds = atoi(argv[4]);
	if (nas_target_command(&t, argv[1], &err) != VS_OK || nas_read_props(&t, argv[2], &p, &err) != VS_OK ||
	    nas_read_layout(&t, pool, &l, &err) != VS_OK ||
	    nas_sampler_open(&t, &l, p.objsetid, &s, &err) != VS_OK ||
	    nas_sampler_start(s, interval, seconds, &err) != VS_OK) {
		char line[1600];
		vs_error_format(&err, line, sizeof(line));
		fprintf(stderr, "nas_sample: %s\n", line);
		return 1;
	}
	struct timespec run = {seconds, 0};
	nanosleep(&run, NULL);
	nas_window w;
	nas_sampler_stop(&s, &w);
	printf("incomplete %d\nwhy %s\nintervals %zu\ncounters %d\n", w.incomplete, w.why, w.timeline.n,
	       w.counters);
	printf("arc_c_max %" PRIu64 "\narc_size %" PRIu64 "\ndataset_written %" PRIu64 "\n", w.arc_c_max,
	       w.arc_size, w.dataset_written);
	printf("data_write_bytes %" PRIu64 "\nlog_write_bytes %" PRIu64 "\n",
	       w.total[NAS_CLASS_DATA].write_bytes, w.total[NAS_CLASS_LOG].write_bytes);
	nas_window_free(&w);
	nas_layout_free(&l);
	nas_target_free(&t);
	return 0;
}
