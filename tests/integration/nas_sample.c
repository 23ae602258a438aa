/* Runs nas/'s sampler against the NAS behind EXPORT-PATH for SECONDS, as
 * bench does around fio, and prints what it got, one "key value" a line:
 * test_nas.sh checks that the lab NAS's zpool iostat and kstats, over a
 * real sshd, read whole. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nfsagent/nas.h"

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: nas_sample NAS-COMMAND EXPORT-PATH INTERVAL SECONDS\n");
		return 2;
	}
	nas_target t;
	nas_view v;
	nas_sampler *s = NULL;
	vs_error err = {0};
	int interval = atoi(argv[3]), seconds = atoi(argv[4]);
	if (nas_target_command(&t, argv[1], &err) != VS_OK || nas_read_view(&t, argv[2], &v, &err) != VS_OK ||
	    nas_sampler_open(&t, &s, &err) != VS_OK ||
	    nas_sampler_start(s, &v.layout, v.props.objsetid, interval, seconds, &err) != VS_OK) {
		char line[1600];
		vs_error_format(&err, line, sizeof(line));
		fprintf(stderr, "nas_sample: %s\n", line);
		nas_sampler_close(&s);
		return 1;
	}
	bool ready = nas_sampler_ready(s);
	struct timespec run = {seconds, 0};
	nanosleep(&run, NULL);
	nas_window w;
	nas_sampler_stop(&s, &w);
	printf("ready %d\nincomplete %d\nwhy %s\nintervals %zu\ncounters %d\n", ready, w.incomplete,
	       w.why, w.timeline.n, w.counters);
	printf("arc_c_max %" PRIu64 "\narc_size %" PRIu64 "\ndataset_written %" PRIu64 "\n", w.arc_c_max,
	       w.arc_size, w.dataset_written);
	printf("data_write_bytes %" PRIu64 "\nlog_write_bytes %" PRIu64 "\n",
	       w.total[NAS_CLASS_DATA].write_bytes, w.total[NAS_CLASS_LOG].write_bytes);
	nas_window_free(&w);
	nas_view_free(&v);
	nas_target_free(&t);
	return 0;
}
