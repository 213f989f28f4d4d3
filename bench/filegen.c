/*
 * The trace file benchmark's generator (bench/file.sh): rewrites a trace
 * file in another format, its records repeated COPIES times (each copy later
 * by the span of the records plus a millisecond), so that report, export and
 * the writer can be timed on files of any size with the same records.
 *   filegen IN OUT v1|packed|zstd [COPIES]
 * Prints "records bytes seconds" (seconds: the writing alone, CPU time).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/tracefile.h"
#include "kinds.h"

struct recs {
	uint8_t *buf;
	size_t len, cap;
	uint64_t n, lo, hi;
};

static int keep(void *ctx, const struct xp_rec_hdr *h)
{
	struct recs *r = ctx;
	size_t need = (h->size + 7u) & ~7u;

	if (r->len + need > r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 1 << 20;
		uint8_t *p;

		while (cap < r->len + need)
			cap *= 2;
		if (!(p = realloc(r->buf, cap)))
			return -ENOMEM;
		r->buf = p;
		r->cap = cap;
	}
	memset(r->buf + r->len, 0, need);
	memcpy(r->buf + r->len, h, h->size);
	r->len += need;
	if (!r->n || h->ts_ns < r->lo)
		r->lo = h->ts_ns;
	if (h->ts_ns > r->hi)
		r->hi = h->ts_ns;
	r->n++;
	return 0;
}

static double cpu_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static int write_copies(struct xp_trace_writer *w, struct recs *r, long copies)
{
	uint64_t shift = r->hi - r->lo + 1000000;
	int err;

	for (long c = 0; c < copies; c++)
		for (size_t at = 0; at < r->len;) {
			struct xp_rec_hdr *h = (void *)(r->buf + at);

			at += (h->size + 7u) & ~7u;
			h->ts_ns += c ? shift : 0;
			if ((err = xp_trace_writer_add(w, h)))
				return err;
		}
	return 0;
}

int main(int argc, char **argv)
{
	struct xp_trace_reader rd;
	struct xp_trace_writer *w;
	struct xp_trace_wopts o = { 0 };
	struct recs r = { 0 };
	struct xp_trace_stats st;
	long copies = argc > 4 ? atol(argv[4]) : 1;
	FILE *in;
	int fd, err;
	double t0;

	if (argc < 4 || copies < 1) {
		fprintf(stderr, "usage: filegen IN OUT v1|packed|zstd [COPIES]\n");
		return 2;
	}
	o.raw = !strcmp(argv[3], "v1");
	o.zstd_level = !strcmp(argv[3], "zstd") ? 3 : 0;
	use_record_kinds();
	if (!(in = fopen(argv[1], "r")) || xp_trace_reader_open(&rd, in) ||
	    xp_trace_reader_run(&rd, keep, &r) < 0) {
		fprintf(stderr, "filegen: %s: %s\n", argv[1], in ? rd.error : strerror(errno));
		return 1;
	}
	if ((fd = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0) {
		perror(argv[2]);
		return 1;
	}
	t0 = cpu_s();
	err = xp_trace_writer_open_opts(&w, fd, &rd.meta, &o);
	if (!err)
		err = write_copies(w, &r, copies);
	st = rd.stats;
	st.ts_ns += (uint64_t)(copies - 1) * (r.hi - r.lo + 1000000);
	if (!err)
		err = xp_trace_writer_finish(w, &st);
	if (err) {
		fprintf(stderr, "filegen: %s: %s\n", argv[2], strerror(-err));
		return 1;
	}
	printf("%llu %llu %.4f\n", (unsigned long long)xp_trace_writer_records(w),
	       (unsigned long long)xp_trace_writer_bytes(w), cpu_s() - t0);
	xp_trace_writer_free(w);
	xp_trace_reader_close(&rd);
	xp_trace_meta_free(&rd.meta);
	fclose(in);
	free(r.buf);
	return close(fd) ? 1 : 0;
}
