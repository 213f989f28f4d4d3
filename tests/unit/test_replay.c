/*
 * Raw-tracepoint capabilities (sched, vblank, mem) through a trace file: their
 * records and the tracefs layouts they were copied with go in and come back
 * the same, and the summaries 'report' prints from the file equal those of
 * the direct analysis of the same records with the recording's layouts.
 */
#include <errno.h>
#include <stdlib.h>

#include "caps/mem/mem_stats.h"
#include "caps/sched/sched_stats.h"
#include "core/tracefile.h"
#include "caps/vblank/vblank_stats.h"
#include "caps/mem/mem_report.h"
#include "caps/sched/sched_report.h"
#include "caps/vblank/vblank_report.h"
#include "rawtp_util.h"
#include "sched_formats.h"
#include "mem_formats.h"
#include "unit.h"
#include "kinds.h"

#define T0 5000000000ULL
#define US 1000ULL
#define MS 1000000ULL

/* vblank formats (drivers/gpu/drm/drm_trace.h); `time` moved first, as a
 * kernel could: the file's layout, not this build's, must decode it */
static const char fmt_vbl_event[] =
	"name: drm_vblank_event\nID: 1500\nformat:\n" FMT_COMMON
	"\tfield:ktime_t time;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield:int crtc;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int seq;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\tfield:bool high_prec;\toffset:24;\tsize:1;\tsigned:0;\n\nprint fmt: \"\"\n";
static const char fmt_vbl_queued[] =
	"name: drm_vblank_event_queued\nID: 1499\nformat:\n" FMT_COMMON
	"\tfield:struct drm_file * file;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:int crtc;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int seq;\toffset:20;\tsize:4;\tsigned:0;\n\nprint fmt: \"\"\n";
static const char fmt_vbl_delivered[] =
	"name: drm_vblank_event_delivered\nID: 1498\nformat:\n" FMT_COMMON
	"\tfield:struct drm_file * file;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:int crtc;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int seq;\toffset:20;\tsize:4;\tsigned:0;\n\nprint fmt: \"\"\n";

static struct xp_rawtp_layout SL, VL;	/* the recording machine's layouts */
static struct xp_rawtp_rec recs[4096];
static int nrecs;

static void layouts(void)
{
	const char *txt[XP_TP_SCHED_MAX] = {
		fmt_61_job, fmt_61_run, fmt_61_process, fmt_61_wait_dep, fmt_617_queue,
		fmt_617_run, fmt_617_done, fmt_617_add_dep, fmt_617_unsched,
	};

	xp_rawtp_layout_init(&SL, xp_sched_events, XP_TP_SCHED_MAX);
	/* a 6.17+ kernel: only the new events */
	for (int i = XP_TP_DRM_SCHED_JOB_QUEUE; i < XP_TP_SCHED_MAX; i++)
		CHECK(xp_rawtp_layout_parse(&SL, i, txt[i]) == 0);
	/* a test module's group, as `--group` would set it */
	xp_rawtp_set_group(&SL, "gpu_scheduler", "mockgpu_sched");
	xp_rawtp_layout_init(&VL, xp_vbl_events, XP_VBL_NEV);
	CHECK(!xp_rawtp_layout_parse(&VL, XP_VBL_EVENT, fmt_vbl_event));
	CHECK(!xp_rawtp_layout_parse(&VL, XP_VBL_QUEUED, fmt_vbl_queued));
	CHECK(!xp_rawtp_layout_parse(&VL, XP_VBL_DELIVERED, fmt_vbl_delivered));
}

static struct xp_rawtp_rec *add(const struct xp_rawtp_layout *l, uint16_t type, int ev, uint64_t ts,
				uint32_t pid, const char *comm)
{
	struct xp_rawtp_rec *r = &recs[nrecs++];

	rec_init(l, r, type, ev, ts, pid, comm);
	return r;
}

/* One job: queue, its dependency (dep_ctx:dep_seq, when dep_ctx), run, done;
 * add_dep right after queue, from the submitter, as drm_sched_entity_push_job
 * fires them. */
static void sched_job(int tp_q, uint64_t ts, uint32_t pid, const char *comm, const char *ring,
		      uint64_t ctx, uint64_t seq, uint64_t qdelay, uint64_t exec, uint64_t dep_ctx,
		      uint64_t dep_seq)
{
	struct xp_rawtp_rec *r;

	for (int k = 0; k < 2; k++) {
		r = add(&SL, XP_REC_SCHED, tp_q + k, ts + (k ? qdelay : 0), k ? 900 : pid,
			k ? "mockgpu-ring" : comm);
		rec_str(r, 0, ring);
		rec_put(&SL, r, "fence_context", ctx);
		rec_put(&SL, r, "fence_seqno", seq);
		rec_put(&SL, r, "client_id", pid / 10);
		rec_put(&SL, r, "job_count", 2);
		rec_put(&SL, r, "hw_job_count", 1);
		if (k == 0 && dep_ctx) {
			r = add(&SL, XP_REC_SCHED, XP_TP_DRM_SCHED_JOB_ADD_DEP, ts + US, pid, comm);
			rec_put(&SL, r, "fence_context", ctx);
			rec_put(&SL, r, "fence_seqno", seq);
			rec_put(&SL, r, "ctx", dep_ctx);
			rec_put(&SL, r, "seqno", dep_seq);
		}
	}
	r = add(&SL, XP_REC_SCHED, XP_TP_DRM_SCHED_JOB_DONE, ts + qdelay + exec, 0, "swapper/1");
	rec_put(&SL, r, "fence_context", ctx);
	rec_put(&SL, r, "fence_seqno", seq);
}

/* Two processes on two rings, a dependency; 60 Hz vblanks with one missed
 * and a client's queued/delivered pairs. Records in time order. */
static void make_stream(void)
{
	struct xp_rawtp_rec *r;

	nrecs = 0;
	for (int i = 0; i < 40; i++) {
		uint64_t ts = T0 + (uint64_t)i * 2 * MS;

		sched_job(XP_TP_DRM_SCHED_JOB_QUEUE, ts, i % 2 ? 101 : 202, i % 2 ? "app" : "game",
			  i % 3 ? "gfx" : "comp", i % 3 ? 7 : 8, (uint64_t)i + 1,
			  (uint64_t)(50 + i) * US, (uint64_t)(300 + 10 * i) * US, i == 5 ? 8 : 0, 4);
	}
	/* one job never completes: incomplete at the end */
	r = add(&SL, XP_REC_SCHED, XP_TP_DRM_SCHED_JOB_QUEUE, T0 + 90 * MS, 101, "app");
	rec_str(r, 0, "gfx");
	rec_put(&SL, r, "fence_context", 7);
	rec_put(&SL, r, "fence_seqno", 100);
	for (uint32_t seq = 1; seq <= 12; seq++) {
		uint64_t vt = T0 + seq * 16666667ULL;

		if (seq == 7)
			continue;	/* a missed vblank */
		r = add(&VL, XP_REC_VBLANK, XP_VBL_EVENT, vt + 20 * US, 0, "swapper/0");
		rec_put(&VL, r, "crtc", 0);
		rec_put(&VL, r, "seq", seq);
		rec_put(&VL, r, "time", vt);
		rec_put(&VL, r, "high_prec", 1);
		if (seq % 2) {
			r = add(&VL, XP_REC_VBLANK, XP_VBL_QUEUED, vt + 100 * US, 303, "compositor");
			rec_put(&VL, r, "file", 0xf11e);
			rec_put(&VL, r, "crtc", 0);
			rec_put(&VL, r, "seq", seq + 1);
		}
		if (seq % 2 == 0) {
			r = add(&VL, XP_REC_VBLANK, XP_VBL_DELIVERED, vt + 40 * US, 0, "swapper/0");
			rec_put(&VL, r, "file", 0xf11e);
			rec_put(&VL, r, "crtc", 0);
			rec_put(&VL, r, "seq", seq);
		}
	}
}

static struct xp_trace_meta *meta_new(void)
{
	struct xp_trace_meta *m = calloc(1, sizeof(*m));

	snprintf(m->tool, sizeof(m->tool), "xputrace test");
	snprintf(m->kernel, sizeof(m->kernel), "6.17.13+deb13-amd64");
	snprintf(m->clock, sizeof(m->clock), "CLOCK_MONOTONIC");
	snprintf(m->hook, sizeof(m->hook), "tracepoint");
	m->start_ns = T0;
	xp_trace_meta_add_cap(m, "sched");
	xp_trace_meta_add_cap(m, "vblank");
	CHECK(xp_trace_meta_add_layout(m, XP_REC_SCHED, &SL) == 0);
	CHECK(xp_trace_meta_add_layout(m, XP_REC_VBLANK, &VL) == 0);
	return m;
}

/* The file's bytes (trailer at T0 + 250 ms). */
static uint8_t *write_file(size_t *len)
{
	struct xp_trace_meta *m = meta_new();
	struct xp_trace_stats st = { .ts_ns = T0 + 250 * MS, .drops = { 1, 0 } };
	struct xp_trace_writer *w = NULL;
	FILE *f = tmpfile();
	uint8_t *buf;
	long size;

	CHECK(f && xp_trace_writer_open(&w, fileno(f), m, 65536) == 0);
	for (int i = 0; w && i < nrecs; i++)
		CHECK(xp_trace_writer_add(w, &recs[i].hdr) == 0);
	CHECK(w && xp_trace_writer_finish(w, &st) == 0);
	xp_trace_writer_free(w);
	xp_trace_meta_free(m);
	free(m);
	size = ftell(f);
	buf = malloc((size_t)size);
	rewind(f);
	CHECK(fread(buf, 1, (size_t)size, f) == (size_t)size);
	fclose(f);
	*len = (size_t)size;
	return buf;
}

/* ---- the analyses, as the live commands and report run them ---- */

struct analysis {
	const struct xp_rawtp_layout *sl, *vl;
	struct xp_sched_state sched;
	struct xp_vbl_state *vbl;
	uint64_t undecodable, seen;
};

static void analysis_init(struct analysis *a, const struct xp_rawtp_layout *sl,
			  const struct xp_rawtp_layout *vl)
{
	memset(a, 0, sizeof(*a));
	a->sl = sl;
	a->vl = vl;
	CHECK(xp_sched_init(&a->sched, 0, 0) == 0);
	a->sched.last_expire = T0;
	a->vbl = calloc(1, sizeof(*a->vbl));
	xp_vbl_init(a->vbl, MS);
}

static int analysis_add(void *ctx, const struct xp_rec_hdr *h)
{
	struct analysis *a = ctx;
	struct xp_vbl_event ev;

	a->seen++;
	if (h->type == XP_REC_SCHED && xp_sched_feed(&a->sched, a->sl, (const void *)h))
		a->undecodable++;
	if (h->type == XP_REC_VBLANK) {
		if (xp_vbl_decode(a->vl, (const void *)h, &ev))
			a->undecodable++;
		else
			xp_vbl_add(a->vbl, &ev);
	}
	return 0;
}

/* Both summaries, text and JSON, into one string. */
static char *analysis_report(struct analysis *a, double duration_s)
{
	struct xp_run_info ri = { .command = "sched", .source = "f.xpt", .mode = "summary",
				  .hook = "tracepoint", .duration_s = duration_s, .drops = { 1 } };
	struct xp_sched_report sr = { .st = &a->sched, .layout = a->sl, .ri = &ri, .hist = true,
				      .now = T0 + (uint64_t)(duration_s * 1e9 + 0.5) };
	struct xp_tp_report vr = { .st = a->vbl, .layout = a->vl, .ri = &ri, .hist = true };
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	xp_sched_finish(&a->sched, sr.now);
	xp_sched_report_text(f, &sr);
	xp_sched_report_json(f, &sr);
	ri.command = "vblank";
	xp_vbl_finish(a->vbl);
	xp_vbl_report_text(f, &vr);
	xp_vbl_report_json(f, &vr);
	fclose(f);
	xp_sched_free(&a->sched);
	free(a->vbl);
	return out;
}

static struct xp_trace_reader rd;

struct cmp {
	int i;
	bool same;
};

static int cmp_rec(void *ctx, const struct xp_rec_hdr *h)
{
	struct cmp *c = ctx;

	if (c->i >= nrecs || h->size != sizeof(recs[0]) || memcmp(h, &recs[c->i], sizeof(recs[0])))
		c->same = false;
	c->i++;
	return 0;
}

static uint32_t le32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }

/* The LAYOUT block's header (the file's second block). */
static uint8_t *layout_block(uint8_t *buf)
{
	uint8_t *meta = buf + XP_TF_FILE_HDR;

	return meta + XP_TF_BLOCK_HDR + ((le32(meta + 4) + 7) & ~7u);
}

/* Rewrites a block's CRCs after its payload changed. */
static void reseal(uint8_t *blk)
{
	uint32_t crc = xp_crc32(0, blk + XP_TF_BLOCK_HDR, le32(blk + 4));

	memcpy(blk + 12, &crc, 4);
	crc = xp_crc32(0, blk, 16);
	memcpy(blk + 16, &crc, 4);
}

static void test_round_trip(void)
{
	size_t len;
	uint8_t *buf;
	FILE *f;
	struct xp_rawtp_layout l;
	int i = 0;

	make_stream();
	buf = write_file(&len);
	f = fmemopen(buf, len, "r");
	CHECK(xp_trace_reader_open(&rd, f) == 0);
	CHECK_U64(rd.version_major, XP_TF_VERSION_MAJOR);
	CHECK_U64(rd.version_minor, XP_TF_VERSION_MINOR);
	CHECK_U64(rd.meta.ntpf, 5 + 3);
	/* the sched layouts, by name, with the group they were read from */
	xp_rawtp_layout_init(&l, xp_sched_events, XP_TP_SCHED_MAX);
	CHECK_U64(xp_trace_meta_layout(&rd.meta, XP_REC_SCHED, &l), 5);
	for (int e = 0; e < XP_TP_SCHED_MAX; e++) {
		const struct xp_tp_format *a = &l.fmt[e], *b = &SL.fmt[e];

		CHECK(l.present[e] == SL.present[e]);
		if (!l.present[e])
			continue;
		CHECK_STR(l.group[e], "mockgpu_sched");
		CHECK_STR(a->name, b->name);
		CHECK_U64(a->size, b->size);
		CHECK_U64(a->nfields, b->nfields);
		for (int k = 0; k < a->nfields && k < b->nfields; k++) {
			const struct xp_tp_field *x = &a->fields[k], *y = &b->fields[k];

			CHECK_STR(x->name, y->name);
			CHECK(x->offset == y->offset && x->size == y->size);
			CHECK(x->data_loc == y->data_loc && x->rel_loc == y->rel_loc &&
			      x->common == y->common);
			CHECK(x->data_loc || x->is_signed == y->is_signed);
		}
	}
	/* a table event the file lacks stays absent; another type's do not mix in */
	CHECK(!l.present[XP_TP_DRM_SCHED_JOB]);
	xp_rawtp_layout_init(&l, xp_vbl_events, XP_VBL_NEV);
	CHECK_U64(xp_trace_meta_layout(&rd.meta, XP_REC_SCHED, &l), 0);
	CHECK_U64(xp_trace_meta_layout(&rd.meta, XP_REC_VBLANK, &l), 3);
	{
		const struct xp_tp_field *t = xp_tp_field(&l.fmt[XP_VBL_EVENT], "time");

		CHECK(t && t->offset == 8 && t->is_signed);
	}
	/* the records, byte for byte */
	{
		struct cmp c = { 0, true };

		CHECK(xp_trace_reader_run(&rd, cmp_rec, &c) == 0);
		CHECK(c.same);
		CHECK_U64(c.i, nrecs);
		i = c.i;
	}
	CHECK(rd.complete);
	CHECK_U64(rd.records, i);
	xp_trace_reader_close(&rd);
	CHECK(rd.meta.tpf == NULL);
	xp_trace_meta_free(&rd.meta);
	fclose(f);
	free(buf);
}

/* report's path (layouts from the file) == the direct analysis (the recording's layouts). */
static void test_report_equals_direct(void)
{
	struct analysis *direct = calloc(1, sizeof(*direct)), *file = calloc(1, sizeof(*file));
	struct xp_rawtp_layout *sl = calloc(1, sizeof(*sl)), *vl = calloc(1, sizeof(*vl));
	char *want, *got;
	size_t len;
	uint8_t *buf;
	FILE *f;

	make_stream();
	analysis_init(direct, &SL, &VL);
	for (int i = 0; i < nrecs; i++)
		analysis_add(direct, &recs[i].hdr);
	CHECK_U64(direct->undecodable, 0);
	CHECK_U64(direct->sched.rings[0].c.done + direct->sched.rings[1].c.done, 40);
	/* job 7:6 (gfx, app with client 10) had one dependency: on its ring and process */
	CHECK_STR(direct->sched.rings[1].name, "gfx");
	CHECK_U64(direct->sched.rings[1].c.deps, 1);
	CHECK_U64(direct->sched.rings[0].c.deps, 0);
	for (int i = 0; i < direct->sched.nprocs; i++)
		CHECK_U64(direct->sched.procs[i].c.deps,
			  direct->sched.procs[i].pid == 101 && direct->sched.procs[i].client_id == 10);
	CHECK_U64(xp_sched_open_jobs(&direct->sched), 1);	/* only the one never completed */
	want = analysis_report(direct, 0.25);

	buf = write_file(&len);
	f = fmemopen(buf, len, "r");
	CHECK(xp_trace_reader_open(&rd, f) == 0);
	xp_rawtp_layout_init(sl, xp_sched_events, XP_TP_SCHED_MAX);
	xp_rawtp_layout_init(vl, xp_vbl_events, XP_VBL_NEV);
	CHECK_U64(xp_trace_meta_layout(&rd.meta, XP_REC_SCHED, sl), 5);
	CHECK_U64(xp_trace_meta_layout(&rd.meta, XP_REC_VBLANK, vl), 3);
	analysis_init(file, sl, vl);
	CHECK(xp_trace_reader_run(&rd, analysis_add, file) == 0);
	CHECK_U64(file->seen, nrecs);
	CHECK_U64(file->undecodable, 0);
	/* the recorded duration stands in for the live run's wall time */
	CHECK(xp_trace_duration(&rd) > 0.2499 && xp_trace_duration(&rd) < 0.2501);
	got = analysis_report(file, xp_trace_duration(&rd));
	CHECK(want && got && strlen(want) > 500);
	CHECK_STR(got, want);
	CHECK(strstr(got, "\"incomplete\":1") != NULL);
	xp_trace_reader_close(&rd);
	xp_trace_meta_free(&rd.meta);
	fclose(f);
	free(buf);
	free(want);
	free(got);
	free(direct);
	free(file);
	free(sl);
	free(vl);
}

/* ---- mem: amdgpu and i915 records, the file's layouts ---- */

/* amdgpu_bo_move with its placements first, as a kernel could lay it out:
 * the file's layout, not this build's, must decode it; the others as
 * Debian 6.1 has them (mem_formats.h) */
static const char fmt_mem_bo_move[] =
	"name: amdgpu_bo_move\nID: 1602\nformat:\n" FMT_COMMON
	"\tfield:u32 new_placement;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 old_placement;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:struct amdgpu_bo * bo;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 bo_size;\toffset:24;\tsize:8;\tsigned:0;\n\nprint fmt: \"\"\n";

static struct xp_rawtp_layout ML;	/* the recording machine's mem layouts */

static void mem_layouts(void)
{
	xp_rawtp_layout_init(&ML, xp_mem_events, XP_MEM_NEV);
	CHECK(!xp_rawtp_layout_parse(&ML, XP_MEM_AMD_BO_CREATE, fmt_bo_create));
	CHECK(!xp_rawtp_layout_parse(&ML, XP_MEM_AMD_BO_MOVE, fmt_mem_bo_move));
	CHECK(!xp_rawtp_layout_parse(&ML, XP_MEM_I915_CREATE, fmt_i915_create));
	CHECK(!xp_rawtp_layout_parse(&ML, XP_MEM_I915_DESTROY, fmt_i915_destroy));
}

/* 4 amdgpu BOs (344 pages, one VRAM request placed in GTT), 3 moves
 * (2 x 1 MiB VRAM -> GTT, 64 KiB GTT -> VRAM); 3 i915 objects created by
 * Xorg, one destroyed by a worker. */
static void make_mem_stream(void)
{
	static const uint32_t pages[] = { 256, 16, 8, 64 }, type[] = { 2, 1, 1, 2 },
			      pref[] = { 4, 6, 2, 4 };
	static const uint64_t osize[] = { 4096, 8192, 65536 };
	struct xp_rawtp_rec *r;
	uint64_t ts = T0;

	nrecs = 0;
	for (int i = 0; i < 4; i++) {
		r = add(&ML, XP_REC_MEM, XP_MEM_AMD_BO_CREATE, ts += MS, 500, "game");
		rec_put(&ML, r, "bo", 0xffff0000 + (uint64_t)i);
		rec_put(&ML, r, "pages", pages[i]);
		rec_put(&ML, r, "type", type[i]);
		rec_put(&ML, r, "prefer", pref[i]);
		rec_put(&ML, r, "allow", 6);
	}
	for (int i = 0; i < 3; i++) {
		r = add(&ML, XP_REC_MEM, XP_MEM_AMD_BO_MOVE, ts += MS, 77, "kworker/1:0");
		rec_put(&ML, r, "bo", 0xffff0000 + (uint64_t)i);
		rec_put(&ML, r, "bo_size", i < 2 ? 1 << 20 : 65536);
		rec_put(&ML, r, "new_placement", i < 2 ? XP_TTM_PL_TT : XP_TTM_PL_VRAM);
		rec_put(&ML, r, "old_placement", i < 2 ? XP_TTM_PL_VRAM : XP_TTM_PL_TT);
	}
	for (int i = 0; i < 3; i++) {
		r = add(&ML, XP_REC_MEM, XP_MEM_I915_CREATE, ts += MS, 600, "Xorg");
		rec_put(&ML, r, "obj", 0xa000 + 0x100 * (uint64_t)i);
		rec_put(&ML, r, "size", osize[i]);
	}
	r = add(&ML, XP_REC_MEM, XP_MEM_I915_DESTROY, ts += MS, 3, "kworker/u4:2");
	rec_put(&ML, r, "obj", 0xa100);
}

/* A file as 'record -o F mem' writes it: the capability, mem's layouts, the records. */
static uint8_t *write_mem_file(size_t *len)
{
	struct xp_trace_meta *m = calloc(1, sizeof(*m));
	struct xp_trace_stats st = { .ts_ns = T0 + 250 * MS, .drops = { 2, 0 } };
	struct xp_trace_writer *w = NULL;
	FILE *f = tmpfile();
	uint8_t *buf;
	long size;

	snprintf(m->tool, sizeof(m->tool), "xputrace test");
	snprintf(m->kernel, sizeof(m->kernel), "6.17.13+deb13-amd64");
	snprintf(m->clock, sizeof(m->clock), "CLOCK_MONOTONIC");
	snprintf(m->hook, sizeof(m->hook), "tracepoint");
	m->start_ns = T0;
	xp_trace_meta_add_cap(m, "mem");
	CHECK(xp_trace_meta_add_layout(m, XP_REC_MEM, &ML) == 0);
	CHECK(f && xp_trace_writer_open(&w, fileno(f), m, 65536) == 0);
	for (int i = 0; w && i < nrecs; i++)
		CHECK(xp_trace_writer_add(w, &recs[i].hdr) == 0);
	CHECK(w && xp_trace_writer_finish(w, &st) == 0);
	xp_trace_writer_free(w);
	xp_trace_meta_free(m);
	free(m);
	size = ftell(f);
	buf = malloc((size_t)size);
	rewind(f);
	CHECK(fread(buf, 1, (size_t)size, f) == (size_t)size);
	fclose(f);
	*len = (size_t)size;
	return buf;
}

struct mem_analysis {
	const struct xp_rawtp_layout *l;
	struct xp_mem_state *st;
	uint64_t undecodable, seen;
};

/* What 'mem' and 'report F mem' do with each record. */
static int mem_analysis_add(void *ctx, const struct xp_rec_hdr *h)
{
	struct mem_analysis *a = ctx;

	a->seen++;
	if (h->type != XP_REC_MEM)
		return 0;
	if (h->size < sizeof(struct xp_rawtp_rec) || xp_mem_add(a->st, a->l, (const void *)h))
		a->undecodable++;
	return 0;
}

static void mem_analysis_check(const struct xp_mem_state *s)
{
	uint64_t bytes;

	CHECK_U64(s->events, 11);
	CHECK_U64(s->amd_bos, 4);
	CHECK_U64(s->amd_bo_bytes, 344 * 4096);
	CHECK_U64(s->amd_vram_in_gtt, 1);
	CHECK_U64(s->amd_vram_in_gtt_bytes, 16 * 4096);
	CHECK_U64(s->amd_moves, 3);
	CHECK_U64(s->amd_move_bytes, 2 * (1 << 20) + 65536);
	CHECK_U64(s->amd_move_n[XP_TTM_PL_VRAM][XP_TTM_PL_TT], 2);
	CHECK_U64(s->amd_move_b[XP_TTM_PL_VRAM][XP_TTM_PL_TT], 2 * (1 << 20));
	CHECK_U64(s->amd_move_n[XP_TTM_PL_TT][XP_TTM_PL_VRAM], 1);
	CHECK_U64(s->amd_move_b[XP_TTM_PL_TT][XP_TTM_PL_VRAM], 65536);
	CHECK_U64(s->i915_creates, 3);
	CHECK_U64(s->i915_create_bytes, 4096 + 8192 + 65536);
	CHECK_U64(s->i915_destroys, 1);
	CHECK_U64(s->i915_destroy_bytes, 8192);
	CHECK_U64(xp_mem_live_objects(s, &bytes), 2);
	CHECK_U64(bytes, 4096 + 65536);
}

static char *mem_analysis_report(struct mem_analysis *a, double duration_s)
{
	struct xp_run_info ri = { .command = "mem", .source = "f.xpt", .mode = "summary",
				  .hook = "tracepoint", .duration_s = duration_s, .drops = { 2 } };
	struct xp_tp_report rep = { .st = a->st, .layout = a->l, .ri = &ri, .hist = true,
				     .undecodable = a->undecodable };
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	xp_mem_report_text(f, &rep);
	xp_mem_report_json(f, &rep);
	fclose(f);
	return out;
}

/* 'report F mem' (the file's layouts) == the direct analysis (the recording's). */
static void test_mem_report_equals_direct(void)
{
	struct mem_analysis direct = { .l = &ML }, file = { 0 };
	struct xp_rawtp_layout *ml = calloc(1, sizeof(*ml));
	char *want, *got;
	size_t len;
	uint8_t *buf;
	FILE *f;

	mem_layouts();
	make_mem_stream();
	direct.st = malloc(sizeof(*direct.st));
	CHECK(xp_mem_init(direct.st, 4096) == 0);
	for (int i = 0; i < nrecs; i++)
		mem_analysis_add(&direct, &recs[i].hdr);
	CHECK_U64(direct.undecodable, 0);
	mem_analysis_check(direct.st);
	want = mem_analysis_report(&direct, 0.25);

	buf = write_mem_file(&len);
	f = fmemopen(buf, len, "r");
	CHECK(xp_trace_reader_open(&rd, f) == 0);
	CHECK_U64(rd.meta.ncaps, 1);
	CHECK_STR(rd.meta.caps[0], "mem");
	CHECK_U64(rd.meta.ntpf, 4);
	xp_rawtp_layout_init(ml, xp_mem_events, XP_MEM_NEV);
	CHECK_U64(xp_trace_meta_layout(&rd.meta, XP_REC_MEM, ml), 4);
	{
		const struct xp_tp_field *t = xp_tp_field(&ml->fmt[XP_MEM_AMD_BO_MOVE], "bo_size");

		CHECK(t && t->offset == 24 && t->size == 8);
	}
	CHECK(!ml->present[XP_MEM_AMD_CS_IOCTL]);
	file.l = ml;
	file.st = malloc(sizeof(*file.st));
	CHECK(xp_mem_init(file.st, 4096) == 0);
	CHECK(xp_trace_reader_run(&rd, mem_analysis_add, &file) == 0);
	CHECK(rd.complete);
	CHECK_U64(file.seen, nrecs);
	CHECK_U64(file.undecodable, 0);
	mem_analysis_check(file.st);
	CHECK_U64(rd.stats.drops[0], 2);
	CHECK(xp_trace_duration(&rd) > 0.2499 && xp_trace_duration(&rd) < 0.2501);
	got = mem_analysis_report(&file, xp_trace_duration(&rd));
	CHECK(want && got && strlen(want) > 300);
	CHECK_STR(got, want);
	CHECK(strstr(got, "\"command\":\"mem\"") != NULL);
	xp_trace_reader_close(&rd);
	xp_trace_meta_free(&rd.meta);
	fclose(f);
	free(buf);
	free(want);
	free(got);
	xp_mem_free(direct.st);
	xp_mem_free(file.st);
	free(direct.st);
	free(file.st);
	free(ml);
}

/* XP_REPLAY_MEM_OUT=PATH: the mem file, for tests/e2e/test_replay.sh. */
static void write_mem_out(void)
{
	const char *path = getenv("XP_REPLAY_MEM_OUT");
	size_t len;
	uint8_t *buf;
	FILE *f;

	if (!path)
		return;
	mem_layouts();
	make_mem_stream();
	buf = write_mem_file(&len);
	f = fopen(path, "wb");
	CHECK(f && fwrite(buf, 1, len, f) == len);
	if (f)
		fclose(f);
	free(buf);
}

/* Layout entries that do not add up are refused by the parser (CRCs made
 * to match) with one line, never read past or stored half. */
static void test_bad_layout_entries(void)
{
	static const struct { int off; uint8_t v; const char *what; } bad[] = {
		{ -4, 33, "fields" },		/* nfields: more than a format holds */
		{ 14, 9, "bad field" },		/* the first field's kind */
		{ 15, 0, "bad field" },		/* the first field's name length */
		{ 15, 200, "bad field" },	/* ... longer than a name can be */
		{ -2, 1, "bad event name" },	/* name length 1: "m", no '/' left: a record layout */
	};
	size_t len;
	uint8_t *buf, *blk;
	int entry = -1;

	make_stream();
	buf = write_file(&len);
	blk = layout_block(buf);
	CHECK_U64(le32(blk), XP_TF_LAYOUT);
	for (size_t at = 0; at + 14 < le32(blk + 4); at++)
		if (!memcmp(blk + XP_TF_BLOCK_HDR + at, "mockgpu_sched/", 14)) {
			entry = (int)at;
			break;
		}
	CHECK(entry > 0);
	for (size_t i = 0; entry > 0 && i < sizeof(bad) / sizeof(bad[0]); i++) {
		uint8_t *p = blk + XP_TF_BLOCK_HDR + entry + bad[i].off;
		uint8_t save = *p;
		int err;
		FILE *f;

		/* offsets from the name's start: fields begin after "mockgpu_sched/drm_sched_job_queue" */
		if (bad[i].off >= 14)
			p = blk + XP_TF_BLOCK_HDR + entry + 33 + (bad[i].off - 14) + 4;
		save = *p;
		*p = bad[i].v;
		reseal(blk);
		f = fmemopen(buf, len, "r");
		err = xp_trace_reader_open(&rd, f);
		if (bad[i].off == -2) {
			/* a 1-byte name without '/' is a record layout of an unknown type: fine, skipped
			 * only if the rest still parses; either way no crash and no half entry */
			CHECK(err == 0 || err == -EBADMSG);
		} else {
			CHECK(err == -EBADMSG);
			if (!strstr(rd.error, bad[i].what))
				fprintf(stderr, "case %zu: %s\n", i, rd.error);
			CHECK(strstr(rd.error, bad[i].what) != NULL);
		}
		CHECK(strchr(rd.error, '\n') == NULL);
		xp_trace_reader_close(&rd);
		CHECK(rd.meta.tpf == NULL && rd.meta.ntpf == 0);
		xp_trace_meta_free(&rd.meta);
		fclose(f);
		*p = save;
		reseal(blk);
	}
	free(buf);
}

/* XP_REPLAY_OUT=PATH: also leave the file there, for the end-to-end test of
 * report and export (tests/e2e/test_replay.sh) and as a fuzzing seed. */
static void write_out(void)
{
	const char *path = getenv("XP_REPLAY_OUT");
	size_t len;
	uint8_t *buf;
	FILE *f;

	if (!path)
		return;
	make_stream();
	buf = write_file(&len);
	f = fopen(path, "wb");
	CHECK(f && fwrite(buf, 1, len, f) == len);
	if (f)
		fclose(f);
	free(buf);
}

int main(void)
{
	use_record_kinds();
	layouts();
	write_out();
	write_mem_out();
	RUN(test_round_trip);
	RUN(test_report_equals_direct);
	RUN(test_mem_report_equals_direct);
	RUN(test_bad_layout_entries);
	UNIT_EXIT();
}
