/*
 * Tests for src/core/tracefile.c: files written by the writer read back the
 * same; files cut at every byte read up to their last whole block; files
 * with any byte flipped are refused with one line; foreign files are
 * refused; and the inputs the fuzzer once crashed on (fuzz/regress/) read
 * without harm.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "caps/ioctl/ioctl_stats.h"
#include "core/tracefile.h"
#include "caps/ioctl/ioctl.h"
#include "caps/ioctl/ioctl_report.h"
#include "sinks/perfetto.h"

#include "unit.h"
#include "kinds.h"

#define T0 1000000000ULL

static uint64_t meta_tracing_ns;	/* when the files made say tracing began; 0: no tag */
/* how the files are written: every test runs as format 1.1, 2 and 2 with zstd */
static struct xp_trace_wopts wo;

static void meta_fill(struct xp_trace_meta *m)
{
	memset(m, 0, sizeof(*m));
	snprintf(m->tool, sizeof(m->tool), "xputrace test");
	snprintf(m->kernel, sizeof(m->kernel), "6.18.0-test");
	snprintf(m->hostname, sizeof(m->hostname), "node7");
	snprintf(m->clock, sizeof(m->clock), "CLOCK_MONOTONIC");
	m->wall_offset_ns = 1700000000LL * 1000000000LL;
	m->start_ns = T0;
	m->tracing_ns = meta_tracing_ns;
	m->page_size = 16384;	/* not this machine's: the reader must take the file's */
	xp_trace_meta_add_cap(m, "ioctl");
	snprintf(m->hook, sizeof(m->hook), "tp_btf");
	m->filter_pid = 42;
	snprintf(m->filter_comm, sizeof(m->filter_comm), "python3");
	m->devs.majors[0] = (struct xp_major){ .major = 226, .name = "drm", .kind = XP_DEV_DRM };
	m->devs.nmajors = 1;
	m->devs.nodes[0] = (struct xp_devnode){ .dev = XP_KDEV(226, 128), .path = "/dev/dri/renderD128",
						.driver = "amdgpu", .kind = XP_DEV_DRM };
	m->devs.nnodes = 1;
	m->devs.extra[0] = XP_KDEV(1, 3);
	m->devs.nextra = 1;
}

static struct xp_ioctl_rec rec(int i)
{
	struct xp_ioctl_rec r;

	memset(&r, 0, sizeof(r));
	r.hdr.type = XP_REC_IOCTL;
	r.hdr.size = sizeof(r);
	r.hdr.cpu = (uint32_t)(i % 2);
	r.hdr.ts_ns = T0 + 1000ULL * (uint64_t)i;
	r.hdr.pid = 100 + (uint32_t)(i % 3);
	r.hdr.tid = r.hdr.pid;
	/* now and then a call whose start went unseen: the largest value the field holds */
	r.lat_ns = i % 97 == 7 ? XP_IOCTL_UNTIMED : 500 + (uint64_t)i;
	r.cmd = 0xc0406400u;	/* DRM_IOCTL_VERSION */
	r.dev = XP_KDEV(226, 128);
	r.fd = 3;
	r.ret = i % 5 ? 0 : -22;
	snprintf(r.comm, sizeof(r.comm), "proc%d", i % 3);
	return r;
}

/* Writes a file of n ioctl records (and one record of an unknown type) to a
 * temporary file; returns its bytes in *buf. */
static size_t make_file(int n, size_t block, uint8_t **buf, bool trailer)
{
	struct xp_trace_writer *w = NULL;
	struct xp_trace_meta *m = calloc(1, sizeof(*m));
	struct xp_trace_stats st = { .ts_ns = T0 + 5000000, .drops = { 3, 1 } };
	FILE *f = tmpfile();
	long size;

	meta_fill(m);
	wo.block_size = block;
	CHECK(f && xp_trace_writer_open_opts(&w, fileno(f), m, &wo) == 0);
	for (int i = 0; w && i < n; i++) {
		struct xp_ioctl_rec r = rec(i);

		CHECK(xp_trace_writer_add(w, &r.hdr) == 0);
		if (i == n / 2) {
			/* a record type from a newer build: readers skip it */
			uint64_t other[4] = { 0 };
			struct xp_rec_hdr *h = (void *)other;

			h->type = 77;
			h->size = 29;
			CHECK(xp_trace_writer_add(w, h) == 0);
			st.drops[0] = 2;
			CHECK(xp_trace_writer_stats(w, &st) == 0);
			st.drops[0] = 3;
		}
	}
	if (w && trailer)
		CHECK(xp_trace_writer_finish(w, &st) == 0);
	xp_trace_writer_free(w);
	size = ftell(f);
	*buf = malloc((size_t)size);
	rewind(f);
	CHECK(fread(*buf, 1, (size_t)size, f) == (size_t)size);
	fclose(f);
	xp_trace_meta_free(m);
	free(m);
	return (size_t)size;
}

struct collect {
	int n;
	uint64_t last_ts;
	bool ordered, same;
};

static int collect_rec(void *ctx, const struct xp_rec_hdr *h)
{
	struct collect *c = ctx;
	struct xp_ioctl_rec want = rec(c->n);

	if (h->type == XP_REC_IOCTL && memcmp(h, &want, sizeof(want)))
		c->same = false;
	if (h->ts_ns < c->last_ts)
		c->ordered = false;
	c->last_ts = h->ts_ns;
	c->n++;
	return 0;
}

/* Reads a file from memory: 0 or the first error; fills *c. */
static int read_mem(const uint8_t *buf, size_t len, struct xp_trace_reader *r, struct collect *c)
{
	FILE *f = fmemopen((void *)buf, len ? len : 1, "r");
	int err;

	*c = (struct collect){ .ordered = true, .same = true };
	xp_trace_meta_free(&r->meta);	/* what the close of r's last read kept for a summary */
	if (!len) {	/* fmemopen refuses size 0 */
		fclose(f);
		f = fopen("/dev/null", "r");
	}
	err = xp_trace_reader_open(r, f);
	if (!err)
		err = xp_trace_reader_run(r, collect_rec, c);
	xp_trace_reader_close(r);
	fclose(f);
	return err;
}

static struct xp_trace_reader rd;	/* big (the device map): not on the stack */

static void test_round_trip(void)
{
	uint8_t *buf;
	size_t len = make_file(10, 0, &buf, true);
	struct collect c;

	CHECK(read_mem(buf, len, &rd, &c) == 0);
	CHECK_U64(c.n, 10);
	CHECK(c.same && c.ordered);
	CHECK_U64(rd.records, 10);
	CHECK_U64(rd.skipped, 1);
	CHECK(rd.complete && !rd.truncated);
	CHECK_U64(rd.stats.records, 11);
	CHECK_U64(rd.stats.drops[XP_DROP_RINGBUF], 3);
	CHECK_U64(rd.stats.drops[XP_DROP_MAP_FULL], 1);
	CHECK_STR(rd.meta.kernel, "6.18.0-test");
	CHECK_STR(rd.meta.hostname, "node7");
	CHECK_STR(rd.meta.clock, "CLOCK_MONOTONIC");
	CHECK_STR(rd.meta.hook, "tp_btf");
	CHECK_STR(rd.meta.filter_comm, "python3");
	CHECK_U64(rd.meta.filter_pid, 42);
	CHECK_U64(rd.meta.page_size, 16384);
	CHECK_U64(rd.meta.wall_offset_ns, 1700000000LL * 1000000000LL);
	CHECK_U64(rd.meta.ncaps, 1);
	CHECK_STR(rd.meta.caps[0], "ioctl");
	CHECK_U64(rd.meta.devs.nmajors, 1);
	CHECK_U64(rd.meta.devs.majors[0].major, 226);
	CHECK_U64(rd.meta.devs.nnodes, 1);
	CHECK_STR(rd.meta.devs.nodes[0].path, "/dev/dri/renderD128");
	CHECK_STR(rd.meta.devs.nodes[0].driver, "amdgpu");
	CHECK_U64(rd.meta.devs.nextra, 1);
	CHECK(xp_trace_duration(&rd) > 0.0049 && xp_trace_duration(&rd) < 0.0051);
	free(buf);
}

/* The time tracing began (after the programs loaded) is what the duration
 * counts from; a file without it (older writers) counts from its start. */
static void test_tracing_time(void)
{
	struct xp_trace_reader rd = { 0 };
	struct collect c = { .ordered = true, .same = true };
	uint8_t *buf;
	size_t len;

	meta_tracing_ns = T0 + 1000000;	/* 1 ms of loading before tracing began */
	len = make_file(10, 0, &buf, true);
	meta_tracing_ns = 0;
	CHECK(read_mem(buf, len, &rd, &c) == 0);
	CHECK_U64(rd.meta.start_ns, T0);
	CHECK_U64(rd.meta.tracing_ns, T0 + 1000000);
	CHECK_U64(xp_trace_began(&rd), T0 + 1000000);
	CHECK(xp_trace_duration(&rd) > 0.0039 && xp_trace_duration(&rd) < 0.0041);	/* the trailer at +5 ms */
	free(buf);
	len = make_file(10, 0, &buf, true);
	CHECK(read_mem(buf, len, &rd, &c) == 0);
	CHECK_U64(rd.meta.tracing_ns, 0);
	CHECK_U64(xp_trace_began(&rd), T0);
	CHECK(xp_trace_duration(&rd) > 0.0049 && xp_trace_duration(&rd) < 0.0051);
	free(buf);
	xp_trace_meta_free(&rd.meta);
}

/* Many blocks: the writer's memory is one block, whatever the file's size. */
static void test_many_blocks(void)
{
	uint8_t *buf;
	size_t len = make_file(5000, 65536, &buf, true);
	struct collect c;

	if (wo.raw)
		CHECK(len > 5000 * sizeof(struct xp_ioctl_rec));
	else	/* 16 bytes an ioctl, or less compressed */
		CHECK(len < 5000 * 24);
	CHECK(read_mem(buf, len, &rd, &c) == 0);
	CHECK(rd.event_blocks > 1);
	CHECK_U64(rd.zstd_blocks, wo.zstd_level ? rd.event_blocks : 0);
	CHECK_U64(c.n, 5000);
	CHECK(c.same && c.ordered && rd.complete);
	free(buf);
	xp_trace_meta_free(&rd.meta);	/* the next test opens rd itself */
}

static int add_to_table(void *ctx, const struct xp_rec_hdr *h)
{
	return xp_ioctl_table_add_rec(ctx, (const struct xp_ioctl_rec *)h);
}

/* The analysis gives the same table from a file as from the records. */
static void test_analysis_from_file(void)
{
	struct xp_ioctl_table direct, fromfile;
	uint8_t *buf;
	size_t len = make_file(300, 65536, &buf, true);
	FILE *f = fmemopen(buf, len, "r");

	xp_ioctl_table_init(&direct);
	xp_ioctl_table_init(&fromfile);
	for (int i = 0; i < 300; i++) {
		struct xp_ioctl_rec r = rec(i);

		xp_ioctl_table_add_rec(&direct, &r);
	}
	CHECK(xp_trace_reader_open(&rd, f) == 0);
	CHECK(xp_trace_reader_run(&rd, add_to_table, &fromfile) == 0);
	CHECK_U64(fromfile.n, direct.n);
	for (size_t i = 0; i < direct.cap; i++) {
		const struct xp_ioctl_entry *e = direct.slots[i], *g;

		if (!e)
			continue;
		g = xp_ioctl_table_get(&fromfile, &e->key);
		CHECK(g && g->calls == e->calls && g->errors == e->errors && g->lat.max == e->lat.max &&
		      g->untimed == e->untimed && g->lat.count == e->lat.count);
	}
	xp_trace_reader_close(&rd);
	xp_trace_meta_free(&rd.meta);
	fclose(f);
	xp_ioctl_table_free(&direct);
	xp_ioctl_table_free(&fromfile);
	free(buf);
}

static bool one_line(const char *s)
{
	return s[0] && !strchr(s, '\n');
}

/* Cut at every byte: an error before the metadata is whole, else the records
 * of every whole block and a warning; never more records than written. */
static void test_truncated_everywhere(void)
{
	uint8_t *buf;
	size_t len = make_file(1200, 65536, &buf, true);
	int prev = 0, errors = 0, partial = 0;

	for (size_t cut = 0; cut < len; cut++) {
		struct collect c;
		int err = read_mem(buf, cut, &rd, &c);

		if (err) {
			errors++;
			CHECK(err == -EPROTO || err == -EBADMSG);
			CHECK(one_line(rd.error));
			CHECK_U64(c.n, 0);
			continue;
		}
		partial++;
		CHECK(rd.truncated && !rd.complete && one_line(rd.error));
		CHECK(c.n >= prev && c.n <= 1200 && c.same);
		prev = c.n;
	}
	CHECK(errors > 0 && partial > 0);
	CHECK_U64(prev, 1200);	/* cut inside the trailer: every record is there */
	/* the stats block in the middle tells the drops up to then */
	{
		struct collect c;
		size_t cut = len - XP_TF_BLOCK_HDR - 40 - 1;

		CHECK(read_mem(buf, cut, &rd, &c) == 0);
		CHECK_U64(rd.stats.drops[XP_DROP_RINGBUF], 2);
	}
	free(buf);
}

/* A flipped byte anywhere is refused (the minor version excepted: it is
 * allowed to grow), with one line and without a crash. */
static void test_corrupt_every_byte(void)
{
	uint8_t *buf;
	size_t len = make_file(40, 0, &buf, true);
	int refused = 0;

	for (size_t at = 0; at < len; at++) {
		struct collect c;
		int err;

		buf[at] ^= 0x5a;
		err = read_mem(buf, len, &rd, &c);
		buf[at] ^= 0x5a;
		if (at == 10 || at == 11) {
			CHECK(err == 0);
			continue;
		}
		if (err == 0)
			fprintf(stderr, "flip at %zu was not noticed\n", at);
		CHECK(err == -EPROTO || err == -EBADMSG);
		CHECK(one_line(rd.error));
		refused++;
	}
	CHECK_U64(refused, len - 2);
	free(buf);
}

static void test_foreign_files(void)
{
	static const char text[] = "#!/bin/sh\necho this is not a trace\n";
	uint8_t *buf;
	size_t len = make_file(1, 0, &buf, true);
	struct collect c;

	CHECK(read_mem((const uint8_t *)text, sizeof(text), &rd, &c) == -EPROTO);
	CHECK_STR(rd.error, "not an xputrace trace file");
	CHECK(read_mem((const uint8_t *)"", 0, &rd, &c) == -EPROTO);
	CHECK(read_mem((const uint8_t *)"XPUTRA", 6, &rd, &c) == -EPROTO);
	/* a newer major version */
	buf[8] = 3;
	CHECK(read_mem(buf, len, &rd, &c) == -EPROTO);
	CHECK(strstr(rd.error, "format 3.") != NULL);
	free(buf);
}

/* Rewrites a block's payload CRCs after the test changed its payload. */
static void reseal(uint8_t *blk)
{
	uint32_t len = (uint32_t)(blk[4] | blk[5] << 8 | blk[6] << 16 | (uint32_t)blk[7] << 24);
	uint32_t crc = xp_crc32(0, blk + XP_TF_BLOCK_HDR, len);

	memcpy(blk + 12, &crc, 4);
	crc = xp_crc32(0, blk, 16);
	memcpy(blk + 16, &crc, 4);
}

static uint8_t *find_block(uint8_t *buf, size_t len, uint32_t kind)
{
	size_t at = XP_TF_FILE_HDR;

	while (at + XP_TF_BLOCK_HDR <= len) {
		uint32_t k, l;

		memcpy(&k, buf + at, 4);
		memcpy(&l, buf + at + 4, 4);
		if (k == kind)
			return buf + at;
		at += XP_TF_BLOCK_HDR + ((l + 7) & ~7u);
	}
	return NULL;
}

/* A file whose ioctl records have another layout is refused, by name. */
static void test_layout_mismatch(void)
{
	uint8_t *buf, *lay, *name;
	size_t len = make_file(3, 0, &buf, true);
	struct collect c;

	lay = find_block(buf, len, XP_TF_LAYOUT);
	CHECK(lay != NULL);
	name = lay ? memmem(lay, 600, "lat_ns", 6) : NULL;
	CHECK(name != NULL);
	if (!name)
		return;
	name[-6] += 8;	/* the field's offset */
	reseal(lay);
	CHECK(read_mem(buf, len, &rd, &c) == -EPROTO);
	CHECK(strstr(rd.error, "lat_ns") != NULL);
	free(buf);
}

/* Unknown block kinds are skipped; blocks after the trailer are refused. */
static void test_unknown_block_and_after_trailer(void)
{
	uint8_t *buf, *big, *trailer;
	size_t len = make_file(5, 0, &buf, true), tlen;
	struct collect c;

	trailer = find_block(buf, len, XP_TF_TRAILER);
	CHECK(trailer != NULL);
	if (!trailer)
		return;
	tlen = len - (size_t)(trailer - buf);
	/* file + a copy of the trailer turned into kind 99 placed before the trailer */
	big = malloc(len + tlen);
	memcpy(big, buf, len - tlen);
	memcpy(big + len - tlen, trailer, tlen);
	big[len - tlen] = 99;
	reseal(big + len - tlen);
	memcpy(big + len, trailer, tlen);
	if (read_mem(big, len + tlen, &rd, &c))
		fprintf(stderr, "%s\n", rd.error);
	CHECK(rd.error[0] == 0);
	CHECK(rd.complete);
	CHECK_U64(c.n, 5);
	/* and the same bytes after the trailer */
	memcpy(big, buf, len);
	memcpy(big + len, trailer, tlen);
	CHECK(read_mem(big, len + tlen, &rd, &c) == -EBADMSG);
	CHECK(strstr(rd.error, "follows the trailer") != NULL);
	free(big);
	free(buf);
}

/* The Perfetto sink pairs the flows it is given and keeps slices on threads. */
static void test_perfetto_flow_pairs(void)
{
	char *out = NULL;
	size_t outlen = 0;
	FILE *f = open_memstream(&out, &outlen);
	struct xp_perfetto p;
	struct xp_ioctl_rec r = rec(1);
	struct xp_devices d = { 0 };

	xp_perfetto_begin(&p, f, T0);
	xp_perfetto_ioctl(&p, &r, &d);
	xp_perfetto_flow(&p, 7, true, r.hdr.pid, r.hdr.tid, r.hdr.ts_ns);
	xp_perfetto_flow(&p, 7, false, 9000, 9000, r.hdr.ts_ns + 10);
	xp_perfetto_end(&p, NULL);
	fclose(f);
	CHECK(strstr(out, "\"ph\":\"X\"") != NULL);
	CHECK(strstr(out, "\"name\":\"DRM_IOCTL_VERSION\"") == NULL);	/* no DRM node known */
	CHECK(strstr(out, "\"ph\":\"s\"") != NULL && strstr(out, "\"ph\":\"f\"") != NULL);
	CHECK(strstr(out, "\"ts\":1.000") != NULL);	/* µs after T0, exact */
	CHECK(strstr(out, "\"dur\":0.501") != NULL);
	CHECK(strstr(out, "\"thread_name\"") != NULL && strstr(out, "\"process_name\"") != NULL);
	free(out);
}

/* Fixes the CRCs of every whole block (the fuzzing build does not check them). */
static void reseal_all(uint8_t *buf, size_t len)
{
	size_t at = XP_TF_FILE_HDR;

	while (at + XP_TF_BLOCK_HDR <= len) {
		uint32_t l;

		memcpy(&l, buf + at + 4, 4);
		if (l > XP_TF_MAX_BLOCK || at + XP_TF_BLOCK_HDR + l > len)
			break;
		reseal(buf + at);
		at += XP_TF_BLOCK_HDR + ((l + 7) & ~7u);
	}
}

/*
 * Packed records damaged under a right CRC (as the fuzzing build reads them):
 * every byte of a PACKED block changed in turn reads or fails in one line.
 */
static void test_packed_resealed(void)
{
	uint8_t *buf, *blk;
	size_t len = make_file(30, 0, &buf, true);
	uint32_t l;

	blk = find_block(buf, len, XP_TF_PACKED);
	if (wo.raw || !blk) {
		CHECK(wo.raw || blk);
		free(buf);
		return;
	}
	memcpy(&l, blk + 4, 4);
	for (uint32_t at = 0; at < l; at++)
		for (int x = 1; x < 256; x <<= 2) {
			struct collect c;
			int err;

			blk[XP_TF_BLOCK_HDR + at] ^= (uint8_t)x;
			reseal(blk);
			err = read_mem(buf, len, &rd, &c);
			blk[XP_TF_BLOCK_HDR + at] ^= (uint8_t)x;
			CHECK(err == 0 || ((err == -EBADMSG || err == -EPROTO) && one_line(rd.error)));
		}
	reseal(blk);
	free(buf);
}

/* A whole events block taken out is noticed at the next stats block. */
static void test_missing_block(void)
{
	uint8_t *buf, *ev;
	size_t len = make_file(3000, 65536, &buf, true), blen;
	uint32_t l;
	struct collect c;

	ev = find_block(buf, len, wo.raw ? XP_TF_EVENTS : XP_TF_PACKED);
	CHECK(ev != NULL);
	if (!ev)
		return;
	memcpy(&l, ev + 4, 4);
	blen = XP_TF_BLOCK_HDR + ((l + 7) & ~7u);
	memmove(ev, ev + blen, len - (size_t)(ev - buf) - blen);
	CHECK(read_mem(buf, len - blen, &rd, &c) == -EBADMSG);
	CHECK(strstr(rd.error, "blocks are missing") != NULL);
	free(buf);
}

/* A full disk is an error the recorder sees, not a silent loss. */
static void test_write_errors(void)
{
	struct xp_trace_meta *m = calloc(1, sizeof(*m));
	struct xp_trace_writer *w = NULL;
	int fd = open("/dev/full", O_WRONLY);

	meta_fill(m);
	if (fd >= 0) {
		CHECK(xp_trace_writer_open(&w, fd, m, 0) == -ENOSPC);
		close(fd);
	}
	xp_trace_meta_free(m);
	free(m);
}

/* Inputs that once crashed the reader or the sinks behind it under the
 * fuzzer (fuzz/run.sh replays them under ASan and UBSan too). */
static void test_fuzz_regressions(void)
{
	DIR *dir = opendir("fuzz/regress");
	struct dirent *e;
	int n = 0;

	if (!dir) {
		fprintf(stderr, "fuzz/regress not found (run from the repository root)\n");
		CHECK(dir != NULL);
		return;
	}
	while ((e = readdir(dir))) {
		char path[512];
		uint8_t *buf;
		FILE *f;
		long len;
		struct collect c;
		int err;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "fuzz/regress/%s", e->d_name);
		if (!(f = fopen(path, "rb")))
			continue;
		fseek(f, 0, SEEK_END);
		len = ftell(f);
		rewind(f);
		buf = malloc((size_t)len + 1);
		CHECK(fread(buf, 1, (size_t)len, f) == (size_t)len);
		fclose(f);
		err = read_mem(buf, (size_t)len, &rd, &c);
		CHECK(err == 0 || one_line(rd.error));
		/* as the fuzzing build saw it: with every CRC made right */
		reseal_all(buf, (size_t)len);
		err = read_mem(buf, (size_t)len, &rd, &c);
		CHECK(err == 0 || one_line(rd.error));
		free(buf);
		n++;
	}
	closedir(dir);
	CHECK(n > 0);
}

static void run_all(void)
{
	RUN(test_round_trip);
	RUN(test_tracing_time);
	RUN(test_many_blocks);
	RUN(test_analysis_from_file);
	RUN(test_truncated_everywhere);
	RUN(test_corrupt_every_byte);
	RUN(test_foreign_files);
	RUN(test_layout_mismatch);
	RUN(test_unknown_block_and_after_trailer);
	RUN(test_perfetto_flow_pairs);
	RUN(test_missing_block);
	RUN(test_packed_resealed);
	RUN(test_write_errors);
	RUN(test_fuzz_regressions);
}

int main(void)
{
	use_record_kinds();
	fprintf(stderr, "-- format 2, packed\n");
	run_all();
	fprintf(stderr, "-- format 1.1, records as they are\n");
	wo = (struct xp_trace_wopts){ .raw = true };
	run_all();
	if (xp_trace_zstd()) {
		fprintf(stderr, "-- format 2, packed, zstd\n");
		wo = (struct xp_trace_wopts){ .zstd_level = 3 };
		run_all();
	}
	xp_trace_meta_free(&rd.meta);
	UNIT_EXIT();
}
