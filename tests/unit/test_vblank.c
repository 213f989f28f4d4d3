/* The vblank analysis on synthetic drm event streams: exact refresh rates,
 * gaps, latencies and attribution; decoding driven by the format files. */
#include <errno.h>
#include <stdlib.h>
#include "unit.h"
#include "rawtp_util.h"
#include "caps/vblank/vblank_stats.h"
#include "caps/vblank/vblank_report.h"
#include "caps/vblank/vblank_metrics.h"
#include "metrics_util.h"
#include "caps/vblank/vblank.h"
#include <stddef.h>
#include <string.h>

/* Debian 6.1 and 7.3 (drivers/gpu/drm/drm_trace.h, unchanged since 4.x) */
static const char fmt_event[] =
	"name: drm_vblank_event\nID: 1500\nformat:\n" FMT_COMMON
	"\tfield:int crtc;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int seq;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:ktime_t time;\toffset:16;\tsize:8;\tsigned:1;\n"
	"\tfield:bool high_prec;\toffset:24;\tsize:1;\tsigned:0;\n\n"
	"print fmt: \"crtc=%d, seq=%u, time=%lld, high-prec=%s\", REC->crtc, REC->seq, REC->time, "
	"REC->high_prec ? \"true\" : \"false\"\n";
static const char fmt_queued[] =
	"name: drm_vblank_event_queued\nID: 1499\nformat:\n" FMT_COMMON
	"\tfield:struct drm_file * file;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:int crtc;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int seq;\toffset:20;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"file=%p, crtc=%d, seq=%u\", REC->file, REC->crtc, REC->seq\n";
static const char fmt_delivered[] =
	"name: drm_vblank_event_delivered\nID: 1498\nformat:\n" FMT_COMMON
	"\tfield:struct drm_file * file;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:int crtc;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int seq;\toffset:20;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"file=%p, crtc=%d, seq=%u\", REC->file, REC->crtc, REC->seq\n";
/* a kernel that reordered the fields: decoding must follow the file */
static const char fmt_event_moved[] =
	"name: drm_vblank_event\nID: 1500\nformat:\n" FMT_COMMON
	"\tfield:ktime_t time;\toffset:8;\tsize:8;\tsigned:1;\n"
	"\tfield:u64 seq;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:int crtc;\toffset:24;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"\"\n";

#define P60 16666667ULL	/* ns */
#define T0 1000000000000ULL

static struct xp_rawtp_layout L;
static struct xp_vbl_state *S;
static int ndeliv;
static struct xp_vbl_delivery last;
static FILE *stream_f;	/* where deliveries go as `--stream` prints them, when set */

static void on_delivery(void *ctx, const struct xp_vbl_delivery *d)
{
	(void)ctx;
	ndeliv++;
	last = *d;
	if (stream_f)
		xp_vbl_stream_text(stream_f, d, T0);
}

static void setup(uint64_t late_ns)
{
	xp_rawtp_layout_init(&L, xp_vbl_events, XP_VBL_NEV);
	CHECK(!xp_rawtp_layout_parse(&L, XP_VBL_EVENT, fmt_event));
	CHECK(!xp_rawtp_layout_parse(&L, XP_VBL_QUEUED, fmt_queued));
	CHECK(!xp_rawtp_layout_parse(&L, XP_VBL_DELIVERED, fmt_delivered));
	if (!S)
		S = malloc(sizeof(*S));
	xp_vbl_init(S, late_ns);
	S->on_delivery = on_delivery;
	ndeliv = 0;
}

static struct xp_vblank_metrics *VM;	/* set: records go to serve's metrics instead */

static void feed(const struct xp_rawtp_rec *r)
{
	struct xp_vbl_event ev;

	if (VM) {
		CHECK(xp_vblank_metrics_feed(VM, &L, r) == 0);
		return;
	}
	CHECK(!xp_vbl_decode(&L, r, &ev));
	xp_vbl_add(S, &ev);
}

/* drm_vblank_event fires at ts = vtime + irq (its handler runs after the vblank) */
static void vblank(int crtc, uint32_t seq, uint64_t vtime)
{
	struct xp_rawtp_rec r;

	rec_init(&L, &r, XP_REC_VBLANK, XP_VBL_EVENT, vtime + 20000, 0, "swapper/0");
	rec_put(&L, &r, "crtc", (uint64_t)crtc);
	rec_put(&L, &r, "seq", seq);
	rec_put(&L, &r, "time", vtime);
	rec_put(&L, &r, "high_prec", 1);
	feed(&r);
}

static void client(int ev, uint64_t ts, uint64_t file, int crtc, uint32_t seq, uint32_t pid,
		   const char *comm)
{
	struct xp_rawtp_rec r;

	rec_init(&L, &r, XP_REC_VBLANK, ev, ts, pid, comm);
	rec_put(&L, &r, "file", file);
	rec_put(&L, &r, "crtc", (uint64_t)crtc);
	rec_put(&L, &r, "seq", seq);
	feed(&r);
}


static void test_refresh_exact(void)
{
	setup(0);
	for (uint32_t i = 0; i <= 60; i++)
		vblank(0, 100 + i, T0 + i * P60);
	CHECK_U64(S->ncrtcs, 1);
	CHECK_U64(S->crtcs[0].vblanks, 61);
	CHECK_U64(xp_vbl_period_ns(&S->crtcs[0]), P60);
	/* 1e12 / 16666667 = 59999.9988 mHz, rounded */
	CHECK_U64(xp_vbl_refresh_mhz(&S->crtcs[0]), 60000);
	CHECK_U64(S->crtcs[0].missed, 0);
	CHECK_U64(S->crtcs[0].interval.count, 60);
	CHECK(xp_vbl_interval_stddev_ns(&S->crtcs[0]) < 1.0);
	/* 75 Hz on a second CRTC: 13333333 ns */
	for (uint32_t i = 0; i <= 75; i++)
		vblank(1, i, T0 + i * 13333333ULL);
	CHECK_U64(xp_vbl_refresh_mhz(&S->crtcs[1]), 75000);
	CHECK_U64(S->crtcs[1].vblanks, 76);
}

static void test_gaps_and_idle(void)
{
	struct xp_vbl_crtc *c;

	setup(0);
	vblank(0, 10, T0);
	vblank(0, 11, T0 + P60);
	vblank(0, 14, T0 + 4 * P60);	/* 12 and 13 never handled */
	vblank(0, 15, T0 + 5 * P60);
	/* 2 s of silence, the counter moved on by 120: the interrupt was off */
	vblank(0, 135, T0 + 5 * P60 + 120 * P60);
	vblank(0, 137, T0 + 5 * P60 + 122 * P60);	/* 136 missed */
	c = &S->crtcs[0];
	CHECK_U64(c->vblanks, 6);
	CHECK_U64(c->missed, 3);
	CHECK_U64(c->idle_gaps, 1);
	CHECK_U64(c->interval.count, 2);	/* the pairs one sequence apart */
	CHECK_U64(xp_vbl_period_ns(c), P60);
	CHECK_U64(xp_vbl_refresh_mhz(c), 60000);
	vblank(0, 137, T0 + 5 * P60 + 122 * P60);	/* repeated: not a gap */
	CHECK_U64(c->backwards, 1);
	CHECK_U64(c->missed, 3);
}

static void test_jitter(void)
{
	struct xp_vbl_crtc *c;
	uint64_t t = T0;

	setup(0);
	vblank(0, 0, t);
	for (uint32_t i = 1; i <= 100; i++) {
		t += (i % 2) ? 16000000 : 17000000;
		vblank(0, i, t);
	}
	c = &S->crtcs[0];
	/* half 16 ms, half 17 ms: mean 16.5 ms, stddev exactly 0.5 ms */
	CHECK_U64(xp_vbl_period_ns(c), 16500000);
	CHECK_U64((uint64_t)(xp_vbl_interval_stddev_ns(c) + 0.5), 500000);
	CHECK_U64(c->interval.max, 17000000);
	CHECK(xp_hist_percentile(&c->interval, 99) >= 16000000);
}

static void test_latency_and_missed_frames(void)
{
	const uint64_t F = 0xffff888012345600ULL;
	struct xp_vbl_client *cl;
	struct xp_vbl_crtc *c;

	setup(0);
	vblank(0, 100, T0);
	/* a client that keeps up: asks for the next vblank 3 ms after each one;
	 * the delivery comes from the handler 50 us after the vblank, before
	 * that vblank's own drm_vblank_event */
	for (uint32_t s = 101; s <= 110; s++) {
		uint64_t vt = T0 + (s - 100) * P60;

		client(XP_VBL_QUEUED, vt - P60 + 3000000, F, 0, s, 4242, "glxgears");
		client(XP_VBL_DELIVERED, vt + 50000, F, 0, s, 0, "swapper/1");
		vblank(0, s, vt);
	}
	c = &S->crtcs[0];
	cl = &S->clients[0];
	CHECK_U64(S->nclients, 1);
	CHECK_U64(cl->pid, 4242);
	CHECK_STR(cl->comm, "glxgears");
	CHECK_U64(cl->queued, 10);
	CHECK_U64(cl->delivered, 10);
	CHECK_U64(cl->missed_frames, 0);
	CHECK_U64(cl->late, 0);
	CHECK_U64(ndeliv, 10);
	CHECK_U64(cl->latency.count, 10);
	/* P60 - 3 ms + 50 us */
	CHECK_U64(cl->latency.max, P60 - 3000000 + 50000);
	CHECK_U64(cl->lateness.max, 50000);
	CHECK_U64(cl->frame.count, 9);
	CHECK_U64(cl->frame.max, P60);
	CHECK_U64(last.pid, 4242);
	CHECK(last.has_lateness && last.lateness_ns == 50000 && !last.late);
	/* it stalls: the next request is for vblank 116, five frames skipped */
	for (uint32_t s = 111; s <= 115; s++)
		vblank(0, s, T0 + (s - 100) * P60);
	client(XP_VBL_QUEUED, T0 + 15 * P60 + 1000, F, 0, 116, 4242, "glxgears");
	client(XP_VBL_DELIVERED, T0 + 16 * P60 + 50000, F, 0, 116, 0, "swapper/1");
	vblank(0, 116, T0 + 16 * P60);
	CHECK_U64(cl->missed_frames, 5);
	CHECK_U64(last.missed_before, 5);
	CHECK_U64(c->missed_frames, 5);
	CHECK_U64(c->missed, 0);	/* the display missed nothing */
	/* a delivery 2.5 ms after its vblank is late (limit 1 ms) */
	client(XP_VBL_QUEUED, T0 + 16 * P60 + 100000, F, 0, 117, 4242, "glxgears");
	client(XP_VBL_DELIVERED, T0 + 17 * P60 + 2500000, F, 0, 117, 0, "kworker/0:1");
	vblank(0, 117, T0 + 17 * P60);
	CHECK_U64(cl->late, 1);
	CHECK_U64(c->late, 1);
	CHECK(last.late && last.lateness_ns == 2500000);
	/* requested 119, delivered on 120: a frame late, whatever the time */
	client(XP_VBL_QUEUED, T0 + 18 * P60, F, 0, 119, 4242, "glxgears");
	vblank(0, 118, T0 + 18 * P60);
	vblank(0, 119, T0 + 19 * P60);
	client(XP_VBL_DELIVERED, T0 + 20 * P60 + 30000, F, 0, 120, 0, "swapper/0");
	vblank(0, 120, T0 + 20 * P60);
	CHECK_U64(cl->late, 2);
	CHECK_U64(cl->late_frames, 1);
	CHECK_U64(last.req_seq, 119);
	CHECK_U64(last.lateness_ns, P60 + 30000);
	CHECK_U64(S->npending, 0);
	CHECK_U64(S->nparked, 0);
}

static void test_unrequested_and_attribution(void)
{
	const uint64_t A = 0x1000, B = 0x2000;

	setup(2000000);
	vblank(0, 1, T0);
	/* a page flip: delivered without any queued request, file never seen */
	client(XP_VBL_DELIVERED, T0 + P60 + 40000, A, 0, 2, 0, "swapper/0");
	vblank(0, 2, T0 + P60);
	CHECK_U64(S->clients[0].pid, 0);
	CHECK_U64(S->clients[0].unqueued, 1);
	CHECK_U64(S->crtcs[0].unqueued, 1);
	CHECK(!last.queued && last.has_lateness && last.lateness_ns == 40000);
	/* file B queued on CRTC 0 once; its later flip on CRTC 1 names it too */
	client(XP_VBL_QUEUED, T0 + P60 + 100, B, 0, 3, 777, "kwin_wayland");
	client(XP_VBL_DELIVERED, T0 + 2 * P60 + 100, B, 0, 3, 0, "swapper/0");
	vblank(0, 3, T0 + 2 * P60);
	vblank(1, 50, T0 + 2 * P60);
	client(XP_VBL_DELIVERED, T0 + 3 * P60 + 1500000, B, 1, 51, 0, "swapper/0");
	vblank(1, 51, T0 + 3 * P60);
	CHECK_U64(last.pid, 777);
	CHECK_U64(last.lateness_ns, 1500000);
	CHECK(!last.late);	/* the limit is 2 ms here */
	/* two requests for the same vblank from one file pair in order */
	vblank(0, 4, T0 + 3 * P60);
	client(XP_VBL_QUEUED, T0 + 3 * P60 + 10, B, 0, 5, 777, "kwin_wayland");
	client(XP_VBL_QUEUED, T0 + 3 * P60 + 20, B, 0, 5, 777, "kwin_wayland");
	client(XP_VBL_DELIVERED, T0 + 4 * P60 + 10, B, 0, 5, 0, "swapper/0");
	client(XP_VBL_DELIVERED, T0 + 4 * P60 + 20, B, 0, 5, 0, "swapper/0");
	CHECK_U64(S->nparked, 2);	/* waiting for vblank 5's timestamp */
	vblank(0, 5, T0 + 4 * P60);
	CHECK_U64(S->nparked, 0);
	CHECK_U64(S->clients[1].latency.count, 3);
	CHECK_U64(S->clients[1].latency.max, P60);
	CHECK_U64(S->clients[1].latency.sum, 3 * P60);
	CHECK_U64(S->npending, 0);
	/* a delivery whose vblank never comes is settled at the end, its
	 * vblank's time extrapolated from vblank 5 by the period */
	client(XP_VBL_DELIVERED, T0 + 8 * P60 + 10, A, 0, 9, 0, "swapper/0");
	{
		int before = ndeliv;

		xp_vbl_finish(S);
		CHECK_U64(ndeliv, before + 1);
	}
	CHECK(last.has_lateness);
	CHECK_U64(last.lateness_ns, 10);
	CHECK(!last.late);
	/* file A asked for no vblank: the gap between its events (2, then 9)
	 * is no miss (a page flip's misses come from its submit, see test_frames) */
	CHECK_U64(S->clients[0].missed_frames, 0);
}

/* the probes' records: their layouts are the capability's own format text */
static void setup_probes(void)
{
	CHECK(!xp_rawtp_layout_parse(&L, XP_VBL_SUBMIT, xp_vbl_probe_format(XP_VBL_SUBMIT)));
	CHECK(!xp_rawtp_layout_parse(&L, XP_VBL_CRTC, xp_vbl_probe_format(XP_VBL_CRTC)));
	CHECK(!xp_rawtp_layout_parse(&L, XP_VBL_PIPE, xp_vbl_probe_format(XP_VBL_PIPE)));
}

/* the kernel arms a frame's event on a CRTC: its object id is that pipe */
static void pipe_of(int dev, uint32_t crtc_id, int pipe, uint64_t ts)
{
	struct xp_rawtp_rec r;

	rec_init(&L, &r, XP_REC_VBLANK, XP_VBL_PIPE, ts, 0, "kworker/u2:1");
	rec_put(&L, &r, "minor", (uint64_t)(uint32_t)dev);
	rec_put(&L, &r, "crtc_id", crtc_id);
	rec_put(&L, &r, "pipe", (uint64_t)pipe);
	feed(&r);
}

/* drm_handle_vblank on `cpu`, then its deliveries, then its drm_vblank_event */
static void vblank_on(int dev, int crtc, uint32_t seq, uint64_t vtime, uint32_t cpu)
{
	struct xp_rawtp_rec r;

	rec_init(&L, &r, XP_REC_VBLANK, XP_VBL_CRTC, vtime + 5000, 0, "swapper/0");
	r.hdr.cpu = cpu;
	rec_put(&L, &r, "minor", (uint64_t)(uint32_t)dev);
	rec_put(&L, &r, "pipe", (uint64_t)crtc);
	feed(&r);
	(void)seq;
}

static void vblank_end(int crtc, uint32_t seq, uint64_t vtime, uint32_t cpu)
{
	struct xp_rawtp_rec r;

	rec_init(&L, &r, XP_REC_VBLANK, XP_VBL_EVENT, vtime + 20000, 0, "swapper/0");
	r.hdr.cpu = cpu;
	rec_put(&L, &r, "crtc", (uint64_t)crtc);
	rec_put(&L, &r, "seq", seq);
	rec_put(&L, &r, "time", vtime);
	feed(&r);
}

static void delivered_on(uint64_t ts, uint64_t file, int crtc, uint32_t seq, uint32_t cpu)
{
	struct xp_rawtp_rec r;

	rec_init(&L, &r, XP_REC_VBLANK, XP_VBL_DELIVERED, ts, 0, "swapper/0");
	r.hdr.cpu = cpu;
	rec_put(&L, &r, "file", file);
	rec_put(&L, &r, "crtc", (uint64_t)crtc);
	rec_put(&L, &r, "seq", seq);
	feed(&r);
}

/* a DRM file asks for an event from inside its ioctl (entered at `entry`) */
static void submit(uint64_t entry, uint64_t file, int dev, uint32_t type, uint32_t crtc_id,
		   uint32_t nr, uint32_t pid, uint32_t tid, const char *comm)
{
	struct xp_rawtp_rec r;

	rec_init(&L, &r, XP_REC_VBLANK, XP_VBL_SUBMIT, entry + 3000, pid, comm);
	r.hdr.tid = tid;
	r.hdr.cpu = 1;
	rec_put(&L, &r, "file", file);
	rec_put(&L, &r, "submit_ns", entry);
	rec_put(&L, &r, "type", type);
	rec_put(&L, &r, "crtc_id", crtc_id);
	rec_put(&L, &r, "minor", (uint64_t)(uint32_t)dev);
	rec_put(&L, &r, "ioctl_nr", nr);
	feed(&r);
}

static int nframes;
static struct xp_vbl_delivery lastframe;

static void on_frame(void *ctx, const struct xp_vbl_delivery *d)
{
	(void)ctx;
	nframes++;
	lastframe = *d;
}

#define MS 1000000ULL

/*
 * A legacy page-flipping client on card0's pipe 0: 20 frames, each asked
 * 2 ms after the vblank of the previous one; every 5th completes a vblank
 * late. card1 has a pipe 0 too, with vblanks of its own: never added up.
 */
static void test_frames(void)
{
	const uint64_t F = 0xf11e;
	uint32_t seq = 100, seq1 = 7000;
	uint64_t vt = T0, scan = 0, first_vt = 0, last_vt = 0;

	setup(0);
	setup_probes();
	S->on_frame = on_frame;
	nframes = 0;
	vblank_on(0, 0, seq, vt, 0);
	vblank_end(0, seq, vt, 0);
	for (int i = 0; i < 20; i++) {
		int wait = i % 5 == 4 ? 2 : 1;	/* vblanks until it completes */

		submit(vt + 2 * MS, F, 0, XP_DRM_EVENT_FLIP_COMPLETE, 33, 0xb0, 500, 501, "flipper");
		scan += wait * P60 - 2 * MS;
		for (int w = 1; w <= wait; w++) {
			vt += P60;
			seq++;
			/* card1's vblank, same pipe index, on another CPU */
			vblank_on(1, 0, seq1, vt + 3 * MS, 2);
			vblank_end(0, seq1++, vt + 3 * MS, 2);
			/* one vblank's probe skipped: its device from its sequence */
			if (i != 7)
				vblank_on(0, 0, seq, vt, 0);
			if (w == wait)
				delivered_on(vt + 30000, F, 0, seq, 0);
			vblank_end(0, seq, vt, 0);
		}
		if (!first_vt)
			first_vt = vt;
		last_vt = vt;
		CHECK_U64(lastframe.missed_target, (uint64_t)(wait - 1));
	}
	xp_vbl_finish(S);
	CHECK_U64(nframes, 20);
	CHECK_U64(S->ncrtcs, 2);
	CHECK(S->crtcs[0].dev == 0 && S->crtcs[1].dev == 1);
	CHECK_U64(S->crtcs[0].vblanks, 25);	/* 1 + 16 + 2 x 4 */
	CHECK_U64(S->crtcs[1].vblanks, 24);
	CHECK_U64(S->crtcs[0].missed, 0);	/* its own sequence has no gap */
	CHECK_U64(S->devices_guessed, 1);
	CHECK_U64(S->crtcs[0].missed_frames, 0);
	CHECK_U64(S->nclients, 1);
	{
		const struct xp_vbl_client *c = &S->clients[0];
		uint64_t span = last_vt - first_vt;

		CHECK_U64(c->pid, 500);
		CHECK_U64(c->tid, 501);
		CHECK(!strcmp(c->comm, "flipper"));
		CHECK_U64(c->dev, 0);
		CHECK_U64(c->kinds, XP_VBL_K_FLIP);
		CHECK_U64(c->asked, 20);
		CHECK_U64(c->completed, 20);
		CHECK_U64(c->delivered, 20);
		CHECK_U64(c->missed_target, 4);
		CHECK_U64(c->missed_frames, 0);
		CHECK_U64(c->scanout.count, 20);
		CHECK_U64(c->scanout.sum, scan);
		CHECK_U64(c->scanout.max, 2 * P60 - 2 * MS);
		CHECK_U64(c->lateness.count, 20);
		CHECK_U64(c->lateness.sum, 20 * 30000);
		CHECK_U64(c->interval.count, 19);
		CHECK_U64(c->interval.sum, 23 * P60);
		CHECK_U64(span, 23 * P60);
		CHECK_U64(xp_vbl_present_mhz(c), (19 * 1000000000000ULL + span / 2) / span);
	}
	/* the frame record carries what Perfetto draws */
	CHECK(lastframe.frame && lastframe.pid == 500 && lastframe.tid == 501);
	CHECK_U64(lastframe.vblank_ns, vt);
	CHECK_U64(lastframe.submit_ns, vt - 2 * P60 + 2 * MS - 0);
	S->on_frame = NULL;
}

/*
 * An atomic client asking on 3 of every 4 vblanks (it sits one out), and a
 * CRTC-sequence request, both on one file; a flip asked and never completed
 * is counted asked at the end; a wait-vblank client on the same CRTC keeps
 * its own figures.
 */
static void test_frames_atomic(void)
{
	const uint64_t A = 0xa70, W = 0xa71;
	uint32_t seq = 10;
	uint64_t vt = T0;
	int asked = 0;

	setup(0);
	setup_probes();
	vblank_on(0, 1, seq, vt, 0);
	vblank_end(1, seq, vt, 0);
	for (int k = 1; k <= 40; k++) {
		bool ask = k % 4 != 0;

		if (ask) {
			submit(vt + 1 * MS, A, 0, XP_DRM_EVENT_FLIP_COMPLETE, 51, 0xbc, 600, 602, "atomic");
			asked++;
		}
		/* a wait-vblank client every vblank */
		submit(vt + 4 * MS, W, 0, XP_DRM_EVENT_VBLANK, 51, 0x3a, 700, 700, "waiter");
		client(XP_VBL_QUEUED, vt + 4 * MS + 2000, W, 1, seq + 1, 700, "waiter");
		vt += P60;
		seq++;
		vblank_on(0, 1, seq, vt, 0);
		delivered_on(vt + 10000, W, 1, seq, 0);
		if (ask)
			delivered_on(vt + 20000, A, 1, seq, 0);
		vblank_end(1, seq, vt, 0);
	}
	/* asked, never completed (its vblank came); then one asked after the last vblank traced */
	submit(vt + 1 * MS, A, 0, XP_DRM_EVENT_FLIP_COMPLETE, 51, 0xbc, 600, 602, "atomic");
	vt += P60;
	vblank_on(0, 1, ++seq, vt, 0);
	vblank_end(1, seq, vt, 0);
	submit(vt + 1 * MS, A, 0, XP_DRM_EVENT_FLIP_COMPLETE, 51, 0xbc, 600, 602, "atomic");
	xp_vbl_finish(S);
	CHECK_U64(S->asked_after_end, 1);
	CHECK_U64(S->ncrtcs, 1);
	CHECK_U64(S->crtcs[0].dev, 0);
	CHECK_U64(S->crtcs[0].crtc, 1);
	CHECK_U64(S->crtcs[0].missed, 0);
	CHECK_U64(S->crtcs[0].missed_frames, 0);
	CHECK_U64(S->nclients, 2);
	for (int i = 0; i < S->nclients; i++) {
		const struct xp_vbl_client *c = &S->clients[i];

		if (c->file == A) {
			CHECK_U64(c->pid, 600);
			CHECK_U64(c->tid, 602);
			CHECK_U64(c->kinds, XP_VBL_K_ATOMIC);
			CHECK_U64(c->asked, (uint64_t)asked + 1);
			CHECK_U64(c->completed, (uint64_t)asked);
			CHECK_U64(c->missed_target, 0);	/* each went out on the first vblank after it */
			CHECK_U64(c->scanout.sum, (uint64_t)asked * (P60 - 1 * MS));
			/* intervals: 1 frame twice, then 2 frames (the one sat out), per 4 vblanks */
			CHECK_U64(c->interval.count, (uint64_t)asked - 1);
			CHECK_U64(c->interval.max, 2 * P60);
			CHECK_U64(c->missed_frames, 0);
		} else {
			CHECK_U64(c->file, W);
			CHECK_U64(c->pid, 700);
			CHECK_U64(c->queued, 40);
			CHECK_U64(c->delivered, 40);
			CHECK_U64(c->asked, 0);
			CHECK_U64(c->latency.count, 40);
			CHECK_U64(c->missed_frames, 0);
		}
	}
	CHECK_U64(S->unmatched_frames, 0);
}

/*
 * A compositor driving two CRTCs of one device through one DRM file, a
 * commit for each, pipe 0's first (object ids 40 = pipe 0, 41 = pipe 1): pipe 1's
 * vblank comes 5 ms before pipe 0's, so its completion is delivered first,
 * while the frame asked first is pipe 0's. The pipe records pair them
 * right; a guess from the order would not.
 */
static void test_frames_two_crtcs(void)
{
	const uint64_t F = 0xc0;
	uint64_t vt = T0;

	setup(0);
	setup_probes();
	vblank_on(0, 0, 10, vt, 0);
	vblank_end(0, 10, vt, 0);
	vblank_on(0, 1, 20, vt - 5 * MS, 0);
	vblank_end(1, 20, vt - 5 * MS, 0);
	for (int k = 1; k <= 10; k++) {
		uint64_t ask = vt + 2 * MS;

		submit(ask, F, 0, XP_DRM_EVENT_FLIP_COMPLETE, 40, 0xbc, 800, 801, "compositor");
		submit(ask + 1 * MS, F, 0, XP_DRM_EVENT_FLIP_COMPLETE, 41, 0xbc, 800, 801, "compositor");
		pipe_of(0, 40, 0, ask + 50000);
		pipe_of(0, 41, 1, ask + 1 * MS + 60000);
		vt += P60;
		vblank_on(0, 1, 20 + k, vt - 5 * MS, 0);
		delivered_on(vt - 5 * MS + 10000, F, 1, 20 + k, 0);
		vblank_end(1, 20 + k, vt - 5 * MS, 0);
		vblank_on(0, 0, 10 + k, vt, 0);
		delivered_on(vt + 10000, F, 0, 10 + k, 0);
		vblank_end(0, 10 + k, vt, 0);
	}
	xp_vbl_finish(S);
	CHECK_U64(S->ncrtcs, 2);
	CHECK_U64(S->nclients, 2);
	for (int i = 0; i < S->nclients; i++) {
		const struct xp_vbl_client *c = &S->clients[i];
		/* pipe 1's vblank is 5 ms earlier: 8.67 ms after its ask, pipe 0's 14.67 ms */
		uint64_t scan = c->crtc == 1 ? P60 - 8 * MS : P60 - 2 * MS;

		CHECK_U64(c->pid, 800);
		CHECK_U64(c->asked, 10);
		CHECK_U64(c->completed, 10);
		CHECK_U64(c->missed_target, 0);
		CHECK_U64(c->scanout.sum, 10 * scan);
	}
}


/*
 * A client flipping one frame at a time on card0's pipe 0 (object id 33),
 * each asked 2 ms after the vblank of the previous one. Frames listed in
 * `no_submit` have their submit record missing (asked before tracing, or a
 * skipped probe), those in `no_done` their completion; frames in `late`
 * complete one vblank after their target, those in `late2` two.
 */
struct flip_run {
	int frames;
	uint64_t no_submit, no_done, late, late2;	/* bit i: frame i */
	int stale;				/* submits seen at the start whose completions were not */
};

static void run_flips(const struct flip_run *r, uint64_t F, uint64_t *scan)
{
	uint32_t seq = 300;
	uint64_t vt = T0;

	setup(0);
	setup_probes();
	S->on_frame = on_frame;
	nframes = 0;
	*scan = 0;
	vblank_on(0, 0, seq, vt, 0);
	vblank_end(0, seq, vt, 0);
	vt += P60;
	vblank_on(0, 0, ++seq, vt, 0);
	vblank_end(0, seq, vt, 0);
	/* the probes ran before the completions were traced (the attach order of old builds) */
	for (int i = 0; i < r->stale; i++) {
		submit(vt + 2 * MS, F, 0, XP_DRM_EVENT_FLIP_COMPLETE, 33, 0xb0, 900, 901, "compositor");
		vt += P60;
		vblank_on(0, 0, ++seq, vt, 0);
		vblank_end(0, seq, vt, 0);
	}
	for (int i = 0; i < r->frames; i++) {
		int wait = r->late2 >> i & 1 ? 3 : r->late >> i & 1 ? 2 : 1;

		if (!(r->no_submit >> i & 1))
			submit(vt + 2 * MS, F, 0, XP_DRM_EVENT_FLIP_COMPLETE, 33, 0xb0, 900, 901, "compositor");
		if (i == 0)
			pipe_of(0, 33, 0, vt + 2 * MS + 50000);
		for (int w = 1; w <= wait; w++) {
			vt += P60;
			vblank_on(0, 0, ++seq, vt, 0);
			if (w == wait && !(r->no_done >> i & 1))
				delivered_on(vt + 30000, F, 0, seq, 0);
			vblank_end(0, seq, vt, 0);
		}
		if (!(r->no_submit >> i & 1) && !(r->no_done >> i & 1))
			*scan += wait * P60 - 2 * MS;
	}
	xp_vbl_finish(S);
	S->on_frame = NULL;
}

static const struct xp_vbl_client *the_client(uint64_t F)
{
	for (int i = 0; i < S->nclients; i++)
		if (S->clients[i].file == F)
			return &S->clients[i];
	CHECK(!"no client");
	return &S->clients[0];
}

/* already flipping when tracing began: the first completion's submit came before */
static void test_frames_queued_before_tracing(void)
{
	const struct flip_run r = { .frames = 30, .no_submit = 1 };
	const uint64_t F = 0xbef0;
	const struct xp_vbl_client *c;
	uint64_t scan;

	run_flips(&r, F, &scan);
	c = the_client(F);
	CHECK_U64(c->before, 1);
	CHECK_U64(c->asked, 29);
	CHECK_U64(c->completed, 29);
	CHECK_U64(c->missed_target, 0);
	CHECK_U64(c->unsubmitted, 0);
	CHECK_U64(c->unseen, 0);
	CHECK_U64(c->scanout.count, 29);
	CHECK_U64(c->scanout.sum, scan);
	CHECK_U64(c->scanout.max, P60 - 2 * MS);	/* under one frame */
	CHECK_U64(S->before_frames, 1);
	CHECK_U64(S->unmatched_frames, 0);
	CHECK_U64(S->unseen_frames, 0);
	CHECK_U64(c->pid, 900);
}

/*
 * Submits seen whose completions were not (probes attached first): they
 * must not shift the pairing of every later frame, nor make them missed.
 */
static void test_frames_stale_submits(void)
{
	const struct flip_run r = { .frames = 30, .stale = 8, .late = 1u << 10 };
	const uint64_t F = 0x57a1e;
	const struct xp_vbl_client *c;
	uint64_t scan;

	run_flips(&r, F, &scan);
	c = the_client(F);
	CHECK_U64(c->asked, 38);
	CHECK_U64(c->completed, 30);
	CHECK_U64(c->unseen, 8);
	CHECK_U64(c->missed_target, 1);
	CHECK_U64(c->scanout.sum, scan);
	CHECK_U64(c->scanout.max, 2 * P60 - 2 * MS);
	CHECK_U64(c->before, 0);
	CHECK_U64(S->unseen_frames, 8);
}

/*
 * A completion skipped mid-run (its frame counted unseen, the next pairs
 * right), a submit skipped (its completion counted, paired with no other),
 * and a late frame around them: the misses are exactly the late one.
 */
static void test_frames_skipped_events(void)
{
	const struct flip_run r = { .frames = 40, .no_done = 1u << 7 | 1u << 20, .no_submit = 1u << 12,
				    .late = 1u << 8 | 1u << 12 | 1u << 30 };
	const uint64_t F = 0x5c1b;
	const struct xp_vbl_client *c;
	uint64_t scan;

	run_flips(&r, F, &scan);
	c = the_client(F);
	CHECK_U64(c->asked, 39);
	CHECK_U64(c->completed, 37);
	CHECK_U64(c->unseen, 2);
	CHECK_U64(c->unsubmitted, 1);
	CHECK_U64(c->before, 0);
	CHECK_U64(c->missed_target, 2);	/* 8 and 30: 12 was not seen asked */
	CHECK_U64(c->scanout.count, 37);
	CHECK_U64(c->scanout.sum, scan);
	CHECK_U64(S->unmatched_frames, 1);
	CHECK_U64(S->unseen_frames, 2);
	CHECK_U64(nframes, 37);		/* the completion without a submit is no frame */
}

/*
 * Frames that complete two vblanks after their target (the lab's flipper
 * with late_by=2, or a late frame held up by a host stall): each is one
 * frame missed, as the client's own log counts it ("missed 1"), and its
 * stream line says by how many vblanks: missed=2. A check that counts the
 * stream's missed frames must take every missed=N with N > 0.
 */
static void test_frames_missed_by_two(void)
{
	const struct flip_run r = { .frames = 10, .late = 1u << 2, .late2 = 1u << 4 | 1u << 9 };
	const uint64_t F = 0x1a72;
	const struct xp_vbl_client *c;
	char *buf = NULL, *p = NULL;
	size_t len = 0;
	uint64_t scan;
	int lines = 0, missed = 0, by2 = 0;

	CHECK((stream_f = open_memstream(&buf, &len)) != NULL);
	run_flips(&r, F, &scan);
	fclose(stream_f);
	stream_f = NULL;
	c = the_client(F);
	CHECK_U64(c->asked, 10);
	CHECK_U64(c->completed, 10);
	CHECK_U64(c->missed_target, 3);	/* frames, not vblanks */
	CHECK_U64(c->scanout.sum, scan);
	CHECK_U64(c->scanout.max, 3 * P60 - 2 * MS);
	for (char *line = strtok_r(buf, "\n", &p); line; line = strtok_r(NULL, "\n", &p)) {
		const char *m = strstr(line, " missed=");
		unsigned long n;

		if (!strstr(line, "/compositor") || !strstr(line, " flip ") || !m)
			continue;
		lines++;
		n = strtoul(m + 8, NULL, 10);
		missed += n > 0;
		by2 += n == 2;
	}
	CHECK_U64(lines, 10);
	CHECK_U64(missed, 3);
	CHECK_U64(by2, 2);
	free(buf);
}

/*
 * The frame asked after a completion was recorded is never that
 * completion's, even when the completion's vblank time is not known yet,
 * and a frame asked before a vblank but after its completion was recorded
 * waits for the next.
 */
static void test_frames_order_by_sequence(void)
{
	const uint64_t F = 0x0de;
	const struct xp_vbl_client *c;
	uint32_t seq = 50;
	uint64_t vt = T0;

	setup(0);
	setup_probes();
	vblank_on(0, 0, seq, vt, 0);
	vblank_end(0, seq, vt, 0);
	/* a completion on vblank 51 of a frame asked before tracing */
	vt += P60;
	vblank_on(0, 0, ++seq, vt, 0);
	delivered_on(vt + 30000, F, 0, seq, 0);
	/* the client asks its next frame at once, before vblank 51's event is recorded */
	submit(vt + 100000, F, 0, XP_DRM_EVENT_FLIP_COMPLETE, 33, 0xb0, 900, 901, "compositor");
	vblank_end(0, seq, vt, 0);
	vt += P60;
	vblank_on(0, 0, ++seq, vt, 0);
	delivered_on(vt + 30000, F, 0, seq, 0);
	vblank_end(0, seq, vt, 0);
	xp_vbl_finish(S);
	c = the_client(F);
	CHECK_U64(c->before, 1);
	CHECK_U64(c->asked, 1);
	CHECK_U64(c->completed, 1);
	CHECK_U64(c->missed_target, 0);
	CHECK_U64(c->scanout.sum, P60 - 100000);
}


/* Tracing stops after a completion and before its vblank's event: the
 * frame's target comes from the last vblank before its submit. */
static void test_frames_target_at_end(void)
{
	const uint64_t F = 0xe0d;
	const struct xp_vbl_client *c;
	uint32_t seq = 70;
	uint64_t vt = T0;

	setup(0);
	setup_probes();
	for (int i = 0; i < 3; i++) {
		vblank_on(0, 0, seq, vt, 0);
		vblank_end(0, seq, vt, 0);
		vt += P60;
		seq++;
	}
	/* asked 2 ms after vblank 72; completes on 74 (one late): 74's event not traced */
	submit(vt - P60 + 2 * MS, F, 0, XP_DRM_EVENT_FLIP_COMPLETE, 33, 0xb0, 900, 901, "compositor");
	pipe_of(0, 33, 0, vt - P60 + 2 * MS + 50000);
	vblank_on(0, 0, seq, vt, 0);
	vblank_end(0, seq, vt, 0);
	vt += P60;
	delivered_on(vt + 30000, F, 0, ++seq, 0);
	xp_vbl_finish(S);
	c = the_client(F);
	CHECK_U64(c->completed, 1);
	CHECK_U64(c->target_unknown, 0);
	CHECK_U64(c->missed_target, 1);
	CHECK_U64(c->scanout.sum, 2 * P60 - 2 * MS);
}


/* The kernel skipped a vblank's interrupt (its sequence jumps by two): a
 * frame asked before the skipped vblank and completed on the next one
 * missed its target, by the sequence numbers. */
static void test_frames_skipped_vblank(void)
{
	const uint64_t F = 0x5b;
	const struct xp_vbl_client *c;
	uint32_t seq = 90;
	uint64_t vt = T0;

	setup(0);
	setup_probes();
	for (int i = 0; i < 3; i++) {
		vblank_on(0, 0, seq, vt, 0);
		vblank_end(0, seq, vt, 0);
		vt += P60;
		seq++;
	}
	vt -= P60;
	seq--;
	submit(vt + 2 * MS, F, 0, XP_DRM_EVENT_FLIP_COMPLETE, 33, 0xb0, 900, 901, "compositor");
	pipe_of(0, 33, 0, vt + 2 * MS + 50000);
	vt += 2 * P60;
	seq += 2;
	vblank_on(0, 0, seq, vt, 0);
	delivered_on(vt + 30000, F, 0, seq, 0);
	vblank_end(0, seq, vt, 0);
	xp_vbl_finish(S);
	c = the_client(F);
	CHECK_U64(S->crtcs[0].missed, 1);
	CHECK_U64(c->completed, 1);
	CHECK_U64(c->target_unknown, 0);
	CHECK_U64(c->missed_target, 1);
}


/* A vblank's interrupt comes 5 ms after its timestamp (a late timer) and a
 * frame asked in between goes out on it: paired, on time, scanout 0. */
static void test_frames_late_interrupt(void)
{
	const uint64_t F = 0x1a7e;
	const struct xp_vbl_client *c;
	uint32_t seq = 40;
	uint64_t vt = T0;

	setup(0);
	setup_probes();
	for (int i = 0; i < 3; i++) {
		vblank_on(0, 0, seq, vt, 0);
		vblank_end(0, seq, vt, 0);
		vt += P60;
		seq++;
	}
	/* vblank 43's time is vt; asked at vt + 2 ms; its interrupt at vt + 5 ms */
	submit(vt + 2 * MS, F, 0, XP_DRM_EVENT_FLIP_COMPLETE, 33, 0xb0, 900, 901, "compositor");
	pipe_of(0, 33, 0, vt + 2 * MS + 50000);
	vblank_on(0, 0, seq, vt + 5 * MS, 0);
	delivered_on(vt + 5 * MS + 30000, F, 0, seq, 0);
	vblank_end(0, seq, vt, 0);
	xp_vbl_finish(S);
	c = the_client(F);
	CHECK_U64(c->completed, 1);
	CHECK_U64(c->before, 0);
	CHECK_U64(c->target_unknown, 0);
	CHECK_U64(c->missed_target, 0);
	CHECK_U64(c->scanout.count, 1);
	CHECK_U64(c->scanout.sum, 0);
}

/* the probes' formats describe the structs the kernel side writes */
static void test_probe_formats(void)
{
	struct xp_tp_format f;
	const struct xp_tp_field *fl;

	CHECK(!xp_tp_format_parse(xp_vbl_probe_format(XP_VBL_SUBMIT), &f));
	CHECK(f.size == sizeof(struct xp_vbl_submit_raw));
	CHECK((fl = xp_tp_field(&f, "minor")) && fl->offset == offsetof(struct xp_vbl_submit_raw, minor) &&
	      fl->is_signed);
	CHECK((fl = xp_tp_field(&f, "user_data")) && fl->offset == offsetof(struct xp_vbl_submit_raw, user_data));
	CHECK(!xp_tp_format_parse(xp_vbl_probe_format(XP_VBL_CRTC), &f));
	CHECK(f.size == sizeof(struct xp_vbl_crtc_raw));
	CHECK(!xp_tp_format_parse(xp_vbl_probe_format(XP_VBL_PIPE), &f));
	CHECK(f.size == sizeof(struct xp_vbl_pipe_raw));
	CHECK((fl = xp_tp_field(&f, "pipe")) && fl->offset == offsetof(struct xp_vbl_pipe_raw, pipe));
	CHECK(xp_vbl_probe_format(XP_VBL_EVENT) == NULL);
}

/* the raw tracepoints put argument i where the format has field i */
static void test_raw_cfg(void)
{
	struct xp_vbl_raw_cfg c[XP_VBL_NDRM];

	setup(0);
	CHECK(!xp_vbl_raw_cfg_fill(&L, c));
	CHECK_U64(c[XP_VBL_EVENT].nargs, 4);
	CHECK(c[XP_VBL_EVENT].off[0] == 8 && c[XP_VBL_EVENT].size[0] == 4);	/* crtc */
	CHECK(c[XP_VBL_EVENT].off[2] == 16 && c[XP_VBL_EVENT].size[2] == 8);	/* time */
	CHECK(c[XP_VBL_EVENT].off[3] == 24 && c[XP_VBL_EVENT].size[3] == 1);	/* high_prec */
	CHECK_U64(c[XP_VBL_EVENT].raw_size, 25);
	CHECK(!c[XP_VBL_EVENT].filter);
	CHECK_U64(c[XP_VBL_QUEUED].nargs, 3);
	CHECK(c[XP_VBL_QUEUED].off[0] == 8 && c[XP_VBL_QUEUED].size[0] == 8);	/* file */
	CHECK(c[XP_VBL_QUEUED].off[2] == 20 && c[XP_VBL_QUEUED].size[2] == 4);	/* seq */
	CHECK(c[XP_VBL_QUEUED].filter);		/* in the requesting process */
	CHECK(!c[XP_VBL_DELIVERED].filter);
	CHECK(c[XP_VBL_DELIVERED].off[3] == -1);
	/* an event with a string cannot be built from its arguments */
	CHECK(!xp_rawtp_layout_parse(&L, XP_VBL_DELIVERED,
		"name: drm_vblank_event_delivered\nID: 1\nformat:\n" FMT_COMMON
		"\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:0;\n\nprint fmt: \"\"\n"));
	CHECK(xp_vbl_raw_cfg_fill(&L, c) == -EINVAL);
}

static void test_layout_driven(void)
{
	struct xp_rawtp_rec r;
	struct xp_vbl_event ev;

	setup(0);
	CHECK(!xp_rawtp_layout_parse(&L, XP_VBL_EVENT, fmt_event_moved));
	rec_init(&L, &r, XP_REC_VBLANK, XP_VBL_EVENT, 5, 0, "x");
	CHECK(!rec_put(&L, &r, "crtc", 3));
	CHECK(!rec_put(&L, &r, "seq", 0x1234567));
	CHECK(!rec_put(&L, &r, "time", 987654321));
	CHECK(!xp_vbl_decode(&L, &r, &ev));
	CHECK_U64(ev.crtc, 3);
	CHECK_U64(ev.seq, 0x1234567);
	CHECK_U64(ev.vtime, 987654321);
	CHECK(!ev.high_prec);	/* absent field: false, not an error */
	/* a record cut short before its fields is refused */
	r.raw_len = 12;
	CHECK(xp_vbl_decode(&L, &r, &ev) == -EBADMSG);
	/* an event without a layout is refused */
	L.present[XP_VBL_QUEUED] = false;
	rec_init(&L, &r, XP_REC_VBLANK, XP_VBL_QUEUED, 5, 0, "x");
	CHECK(xp_vbl_decode(&L, &r, &ev) == -ENOENT);
}

static void test_cfg_and_report(void)
{
	struct xp_rawtp_cfg cfg[XP_RAWTP_MAX_EV];
	struct xp_run_info ri = { .command = "vblank", .source = "test", .mode = "summary", .duration_s = 1 };
	struct xp_tp_report rep;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	setup(0);
	xp_rawtp_cfg_fill(&L, cfg);
	CHECK_U64(cfg[XP_VBL_EVENT].raw_size, 25);
	CHECK_U64(cfg[XP_VBL_QUEUED].raw_size, 24);
	CHECK(cfg[XP_VBL_EVENT].str_off[0] == -1 && cfg[XP_VBL_EVENT].str_off[1] == -1);
	CHECK_U64(cfg[XP_VBL_NEV].raw_size, 0);
	for (uint32_t i = 0; i <= 60; i++)
		vblank(0, i, T0 + i * P60);
	rep = (struct xp_tp_report){ .st = S, .layout = &L, .ri = &ri, .hist = false };
	f = open_memstream(&buf, &len);
	xp_vbl_report_json(f, &rep);
	fclose(f);
	CHECK(strstr(buf, "\"refresh_hz\":60.000") != NULL);
	CHECK(strstr(buf, "\"period_ns\":16666667") != NULL);
	CHECK(strstr(buf, "\"missed\":0") != NULL);
	free(buf);
}

static void stub_cgroup(void *ctx, uint64_t id, char *buf, size_t len)
{
	(void)ctx, (void)id;
	xp_labels_add(buf, len, "cgroup", "/test");
}

/*
 * serve's vblank metrics: test_frames' flipper (20 frames, every 5th a
 * vblank late) on card0, vblanks of card0 and card1 by device and pipe
 */
static void test_metrics(void)
{
	const uint64_t F = 0xf11e;
	struct xp_metrics m;
	struct xp_metrics_in in = { .m = &m, .cgroup_labels = stub_cgroup };
	uint32_t seq = 100, seq1 = 7000;
	uint64_t vt = T0, scan = 0;
	char *out, want[200];
	int before = unit_failed_checks;

	setup(0);
	setup_probes();
	xp_metrics_init(&m, 0);
	VM = calloc(1, sizeof(*VM));
	CHECK(VM && xp_vblank_metrics_init(VM, &in) == 0);
	vblank_on(0, 0, seq, vt, 0);
	vblank_end(0, seq, vt, 0);
	for (int i = 0; i < 20; i++) {
		int wait = i % 5 == 4 ? 2 : 1;

		submit(vt + 2 * MS, F, 0, XP_DRM_EVENT_FLIP_COMPLETE, 33, 0xb0, 500, 501, "flipper");
		scan += wait * P60 - 2 * MS;
		for (int w = 1; w <= wait; w++) {
			vt += P60;
			seq++;
			vblank_on(1, 0, seq1, vt + 3 * MS, 2);
			vblank_end(0, seq1++, vt + 3 * MS, 2);
			if (i != 7)
				vblank_on(0, 0, seq, vt, 0);
			if (w == wait)
				delivered_on(vt + 30000, F, 0, seq, 0);
			vblank_end(0, seq, vt, 0);
		}
	}
	out = served(&m);
	CHECK(strstr(out, "xputrace_frames_total{cgroup=\"/test\",device=\"card0\",kind=\"flip\"} 20\n") != NULL);
	CHECK(strstr(out, "xputrace_frames_missed_total{cgroup=\"/test\",device=\"card0\",kind=\"flip\"} 4\n") != NULL);
	CHECK(strstr(out, "xputrace_frame_scanout_seconds_count{cgroup=\"/test\",device=\"card0\",kind=\"flip\"} 20\n") != NULL);
	snprintf(want, sizeof(want), "xputrace_frame_scanout_seconds_sum{cgroup=\"/test\",device=\"card0\",kind=\"flip\"} %.9g\n",
		 scan * 1e-9);
	CHECK(strstr(out, want) != NULL);
	/* 16 frames of one vblank, 4 of two: the buckets by 16.67 ms and 33.33 ms */
	CHECK(strstr(out, "xputrace_frame_scanout_seconds_bucket{cgroup=\"/test\",device=\"card0\",kind=\"flip\",le=\"0.016666667\"} 16\n") != NULL);
	CHECK(strstr(out, "xputrace_frame_scanout_seconds_bucket{cgroup=\"/test\",device=\"card0\",kind=\"flip\",le=\"0.033333333\"} 20\n") != NULL);
	/* 1 + 16 + 2 x 4 on card0 (one by its sequence: its probe was skipped), 24 on card1 */
	CHECK(strstr(out, "xputrace_vblanks_total{device=\"card0\",crtc=\"0\"} 25\n") != NULL);
	CHECK(strstr(out, "xputrace_vblanks_total{device=\"card1\",crtc=\"0\"} 24\n") != NULL);
	if (unit_failed_checks != before)
		fputs(out, stderr);	/* what was served, to compare */
	free(out);
	free(VM);
	VM = NULL;
	xp_metrics_free(&m);
}

int main(void)
{
	RUN(test_refresh_exact);
	RUN(test_gaps_and_idle);
	RUN(test_jitter);
	RUN(test_latency_and_missed_frames);
	RUN(test_unrequested_and_attribution);
	RUN(test_frames);
	RUN(test_frames_atomic);
	RUN(test_frames_two_crtcs);
	RUN(test_frames_queued_before_tracing);
	RUN(test_frames_stale_submits);
	RUN(test_frames_skipped_events);
	RUN(test_frames_missed_by_two);
	RUN(test_frames_order_by_sequence);
	RUN(test_frames_target_at_end);
	RUN(test_frames_skipped_vblank);
	RUN(test_frames_late_interrupt);
	RUN(test_probe_formats);
	RUN(test_raw_cfg);
	RUN(test_layout_driven);
	RUN(test_cfg_and_report);
	RUN(test_metrics);
	free(S);
	UNIT_EXIT();
}
