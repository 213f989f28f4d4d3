/*
 * mkfixtures DIR: writes the synthetic trace files of the golden tests
 * (tests/golden/data/gen) with the real writer (core/tracefile.h), as
 * 'xputrace record' would write them, but with nothing taken from this
 * machine: host name, kernel, clock offset, start time, page size, device
 * map, timestamps and every value come from this file, and the "random"
 * latencies from a fixed-seed generator of its own. Run twice, or on
 * another machine, it writes the same bytes: tests/e2e/test_golden.sh
 * checks that the committed files are what it writes.
 *
 *   ioctl.xpt        ioctls of 4 processes on amdgpu nodes, a node of the
 *                    DRM major that the map does not name, and /dev/null
 *   sched_old.xpt    gpu_scheduler jobs with the 6.16- events
 *   sched_new.xpt    the same kind of stream with the 6.17+ events
 *   vblank.xpt       2 CRTCs, a missed vblank, late deliveries
 *   mem.xpt          amdgpu, i915 and xe events, one the file has no layout for
 *   all.xpt          ioctl + sched (6.17+) + vblank + mem, a record of a type
 *                    this build does not know
 *   filtered.xpt     ioctl + sched recorded with a pid filter
 *   empty.xpt        ioctl + sched, no records
 *   unfinished.xpt   ioctl, no trailer (the recorder was killed between blocks)
 *   all_packed.xpt   all.xpt's records in format 2 (packed): every view reads the same
 *   all_cut.xpt      the first half of all.xpt's bytes
 *   all_flip.xpt     all.xpt with the byte in its middle inverted
 *   npu.xpt          vpu:job records of the size written before amdxdna, and
 *                    amdxdna jobs joined with the scheduler's events
 *   tg_2ms.xpt ...   TimeGraph's periodic "frame" task and a "greedy" one whose
 *   tg_8ms.xpt       jobs take 2, 4, 8 ms, on one ring (simulate, analyze)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/ioctl.h>

#include "caps/mem/mem_stats.h"
#include "caps/sched/sched_stats.h"
#include "core/tracefile.h"
#include "caps/vblank/vblank_stats.h"
#include "caps/vblank/vblank.h"
#include "caps/ioctl/ioctl.h"
#include "caps/npu/npu.h"
#include "rawtp_util.h"
#include "sched_formats.h"
#include "mem_formats.h"
#include "kinds.h"

#define US 1000ULL
#define MS 1000000ULL
#define S 1000000000ULL
#define T0 (1000 * S)			/* monotonic start of every recording */
#define WALL_T0 1767225600000000000LL	/* 2026-01-01T00:00:00Z at T0 */

static const char *outdir;

static void die(const char *what, int err)
{
	fprintf(stderr, "mkfixtures: %s: %s\n", what, strerror(err));
	exit(1);
}

/* ---- a generator of our own, so the values do not depend on libc ---- */

static uint64_t rng_state;

static void rng_seed(uint64_t s) { rng_state = s; }

static uint64_t rng(void)
{
	/* xorshift64* */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 2685821657736338717ULL;
}

/* Roughly log-uniform in [lo, hi). */
static uint64_t rng_log(uint64_t lo, uint64_t hi)
{
	uint64_t v = lo;
	int steps = 0;

	while (v * 2 < hi) {
		v *= 2;
		steps++;
	}
	v = lo << (rng() % (uint64_t)(steps + 1));
	return v + rng() % v;
}

/* ---- the records of one file, ordered as the ring buffer delivers them ---- */

union rec {
	struct xp_rec_hdr h;
	struct xp_ioctl_rec io;
	struct xp_rawtp_rec rt;
	struct xp_npu_rec npu;
};

struct slot {
	union rec r;
	uint64_t key;	/* when it reached the ring buffer */
	int seq;	/* insertion order, to break ties */
};

#define MAX_RECS 2048
static struct slot slots[MAX_RECS];
static int nslots;

static union rec *new_rec(uint64_t key)
{
	struct slot *s;

	if (nslots == MAX_RECS)
		die("too many records", ENOSPC);
	s = &slots[nslots];
	memset(s, 0, sizeof(*s));
	s->key = key;
	s->seq = nslots++;
	return &s->r;
}

static int slot_cmp(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;

	if (x->key != y->key)
		return x->key < y->key ? -1 : 1;
	return x->seq - y->seq;
}

/* ---- layouts: what the recording kernel's tracefs said ---- */

static struct xp_rawtp_layout sched_old_l, sched_new_l, vbl_l, vblp_l, mem_l;

/* drivers/gpu/drm/drm_trace.h as the kernel lays it out */
static const char fmt_vbl_event[] =
	"name: drm_vblank_event\nID: 1523\nformat:\n" FMT_COMMON
	"\tfield:int crtc;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int seq;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:ktime_t time;\toffset:16;\tsize:8;\tsigned:1;\n"
	"\tfield:bool high_prec;\toffset:24;\tsize:1;\tsigned:0;\n\n"
	"print fmt: \"crtc=%d, seq=%u, time=%lld, high-prec=%s\", REC->crtc, REC->seq, "
	"REC->time, REC->high_prec ? \"true\" : \"false\"\n";
static const char fmt_vbl_queued[] =
	"name: drm_vblank_event_queued\nID: 1522\nformat:\n" FMT_COMMON
	"\tfield:struct drm_file * file;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:int crtc;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int seq;\toffset:20;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"file=%p, crtc=%d, seq=%u\", REC->file, REC->crtc, REC->seq\n";
static const char fmt_vbl_delivered[] =
	"name: drm_vblank_event_delivered\nID: 1521\nformat:\n" FMT_COMMON
	"\tfield:struct drm_file * file;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:int crtc;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int seq;\toffset:20;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"file=%p, crtc=%d, seq=%u\", REC->file, REC->crtc, REC->seq\n";

static void parse(struct xp_rawtp_layout *l, int ev, const char *text)
{
	if (xp_rawtp_layout_parse(l, ev, text))
		die("a format text does not parse", EINVAL);
}

static void layouts(void)
{
	xp_rawtp_layout_init(&sched_old_l, xp_sched_events, XP_TP_SCHED_MAX);
	parse(&sched_old_l, XP_TP_DRM_SCHED_JOB, fmt_61_job);
	parse(&sched_old_l, XP_TP_DRM_RUN_JOB, fmt_61_run);
	parse(&sched_old_l, XP_TP_DRM_SCHED_PROCESS_JOB, fmt_61_process);
	parse(&sched_old_l, XP_TP_DRM_SCHED_JOB_WAIT_DEP, fmt_61_wait_dep);

	xp_rawtp_layout_init(&sched_new_l, xp_sched_events, XP_TP_SCHED_MAX);
	parse(&sched_new_l, XP_TP_DRM_SCHED_JOB_QUEUE, fmt_617_queue);
	parse(&sched_new_l, XP_TP_DRM_SCHED_JOB_RUN, fmt_617_run);
	parse(&sched_new_l, XP_TP_DRM_SCHED_JOB_DONE, fmt_617_done);
	parse(&sched_new_l, XP_TP_DRM_SCHED_JOB_ADD_DEP, fmt_617_add_dep);
	parse(&sched_new_l, XP_TP_DRM_SCHED_JOB_UNSCHEDULABLE, fmt_617_unsched);

	xp_rawtp_layout_init(&vbl_l, xp_vbl_events, XP_VBL_NEV);
	parse(&vbl_l, XP_VBL_EVENT, fmt_vbl_event);
	parse(&vbl_l, XP_VBL_QUEUED, fmt_vbl_queued);
	parse(&vbl_l, XP_VBL_DELIVERED, fmt_vbl_delivered);
	/* with the probes' records: who asked, and each vblank's device */
	vblp_l = vbl_l;
	parse(&vblp_l, XP_VBL_SUBMIT, xp_vbl_probe_format(XP_VBL_SUBMIT));
	parse(&vblp_l, XP_VBL_CRTC, xp_vbl_probe_format(XP_VBL_CRTC));

	xp_rawtp_layout_init(&mem_l, xp_mem_events, XP_MEM_NEV);
	parse(&mem_l, XP_MEM_AMD_BO_CREATE, fmt_bo_create);
	parse(&mem_l, XP_MEM_AMD_BO_MOVE, fmt_bo_move);
	parse(&mem_l, XP_MEM_AMD_CS_IOCTL, fmt_cs_61);
	parse(&mem_l, XP_MEM_AMD_RUN_JOB, fmt_run_73);
	parse(&mem_l, XP_MEM_AMD_IV, fmt_iv);
	parse(&mem_l, XP_MEM_I915_CREATE, fmt_i915_create);
	parse(&mem_l, XP_MEM_I915_DESTROY, fmt_i915_destroy);
	parse(&mem_l, XP_MEM_I915_BIND, fmt_i915_bind);
	parse(&mem_l, XP_MEM_I915_UNBIND, fmt_i915_unbind);
	parse(&mem_l, XP_MEM_I915_FAULT, fmt_i915_fault);
	parse(&mem_l, XP_MEM_I915_RQ_ADD, fmt_rq_add);
	parse(&mem_l, XP_MEM_I915_RQ_RETIRE, fmt_rq_retire);
	parse(&mem_l, XP_MEM_I915_RQ_WAIT_BEGIN, fmt_rq_wait_begin);
	parse(&mem_l, XP_MEM_I915_RQ_WAIT_END, fmt_rq_wait_end);
	parse(&mem_l, XP_MEM_XE_QUEUE_CREATE, fmt_xe_queue);
	parse(&mem_l, XP_MEM_XE_BO_MOVE, fmt_xe_bo_move);
	parse(&mem_l, XP_MEM_XE_BO_CREATE, fmt_xe_bo_create);
}

static struct xp_rawtp_rec *rawtp(const struct xp_rawtp_layout *l, uint16_t type, int ev,
				  uint64_t ts, uint32_t pid, uint32_t tid, const char *comm,
				  uint32_t cpu)
{
	struct xp_rawtp_rec *r = &new_rec(ts)->rt;

	rec_init(l, r, type, ev, ts, pid, comm);
	r->hdr.tid = tid;
	r->hdr.cpu = cpu;
	return r;
}

static void put(const struct xp_rawtp_layout *l, struct xp_rawtp_rec *r, const char *name,
		uint64_t v)
{
	if (rec_put(l, r, name, v))
		die(name, ENOENT);
}

/* ---- ioctl ---- */

#define CARD0 XP_KDEV(226, 0)
#define RENDER128 XP_KDEV(226, 128)
#define RENDER129 XP_KDEV(226, 129)	/* of the DRM major, not in the node map */
#define DEVNULL XP_KDEV(1, 3)

#define RW (_IOC_READ | _IOC_WRITE)
#define DRM(dir, nr, size) _IOC(dir, 'd', nr, size)

static void ioctl_rec(uint64_t ts, uint32_t pid, uint32_t tid, const char *comm, uint32_t dev,
		      int fd, uint32_t cmd, uint64_t lat, int ret)
{
	struct xp_ioctl_rec *r = &new_rec(ts + lat)->io;

	r->hdr.type = XP_REC_IOCTL;
	r->hdr.size = sizeof(*r);
	r->hdr.cpu = tid % 8;
	r->hdr.ts_ns = ts;
	r->hdr.pid = pid;
	r->hdr.tid = tid;
	r->lat_ns = lat;
	r->arg = 0x7ffc12340000ULL + (uint64_t)(tid % 16) * 0x100;
	r->cgroup_id = 4242 + pid % 3;
	r->cmd = cmd;
	r->dev = dev;
	r->fd = fd;
	r->ret = ret;
	strncpy(r->comm, comm, XP_COMM_LEN - 1);
}

static void devices(struct xp_devices *d, bool null_too)
{
	struct xp_devnode *n;

	d->majors[0].major = 226;
	snprintf(d->majors[0].name, sizeof(d->majors[0].name), "drm");
	d->majors[0].kind = XP_DEV_DRM;
	d->nmajors = 1;
	n = &d->nodes[d->nnodes++];
	n->dev = CARD0;
	n->kind = XP_DEV_DRM;
	snprintf(n->path, sizeof(n->path), "/dev/dri/card0");
	snprintf(n->driver, sizeof(n->driver), "amdgpu");
	n = &d->nodes[d->nnodes++];
	n->dev = RENDER128;
	n->kind = XP_DEV_DRM;
	snprintf(n->path, sizeof(n->path), "/dev/dri/renderD128");
	snprintf(n->driver, sizeof(n->driver), "amdgpu");
	if (null_too) {	/* --device /dev/null */
		n = &d->nodes[d->nnodes++];
		n->dev = DEVNULL;
		n->kind = XP_DEV_OTHER;
		snprintf(n->path, sizeof(n->path), "/dev/null");
		d->extra[d->nextra++] = DEVNULL;
	}
}

/*
 * A Vulkan client (2 threads) on renderD128, a compositor on card0, a
 * client on a render node the map does not name, and a program poking
 * /dev/null. only_pid: what a recording filtered by pid keeps.
 */
static void ioctl_stream(uint32_t only_pid)
{
	static const struct {
		uint32_t cmd;
		int err[3];	/* errnos it fails with, in turn */
		int every;	/* one call in `every` fails; 0: never */
		uint64_t lo, hi;
	} vk[] = {
		{ DRM(RW, 0x44, 24), { EINTR, EAGAIN, EINVAL }, 9, 4 * US, 400 * US },	/* AMDGPU_CS */
		{ DRM(RW, 0x49, 32), { ETIME, EINTR, 0 }, 7, 2 * US, 8 * MS },		/* AMDGPU_WAIT_CS */
		{ DRM(_IOC_WRITE, 0x45, 32), { 0 }, 0, 300, 30 * US },			/* AMDGPU_INFO */
		{ DRM(RW, 0x40, 32), { ENOMEM, 0 }, 11, 10 * US, 2 * MS },		/* AMDGPU_GEM_CREATE */
		{ DRM(RW, 0x48, 40), { 0 }, 0, 2 * US, 90 * US },			/* AMDGPU_GEM_VA */
		{ DRM(_IOC_WRITE, 0x09, 8), { ENOENT, 0 }, 13, 500, 9 * US },		/* GEM_CLOSE */
		{ DRM(RW, 0xc3, 40), { ETIME, 0 }, 5, 1 * US, 3 * MS },			/* SYNCOBJ_WAIT */
		{ DRM(RW, 0x5e, 16), { EINVAL, 0 }, 1, 400, 2 * US },			/* no amdgpu name */
	};
	uint64_t ts;
	int fails[8] = { 0 }, calls[8] = { 0 };

	rng_seed(0x10c7110c7ULL);
	/* vkcube: setup on its main thread, then frames alternating threads */
	if (!only_pid || only_pid == 4100) {
		ts = T0 + 2 * MS;
		ioctl_rec(ts, 4100, 4100, "vkcube", RENDER128, 5, DRM(RW, 0x00, 64), 3 * US, 0);
		ioctl_rec(ts += 50 * US, 4100, 4100, "vkcube", RENDER128, 5, DRM(RW, 0x0c, 16), 900, 0);
		ioctl_rec(ts += 20 * US, 4100, 4100, "vkcube", RENDER128, 5, DRM(RW, 0x0c, 16), 700,
			  -EINVAL);
		ioctl_rec(ts += 20 * US, 4100, 4100, "vkcube", RENDER128, 5, DRM(RW, 0x42, 16), 40 * US, 0);
		for (int f = 0; f < 30; f++) {
			uint32_t tid = f % 3 ? 4101 : 4100;

			ts = T0 + 10 * MS + (uint64_t)f * 16 * MS;
			for (int k = 0; k < 8; k++) {
				int ret = 0;

				if (k == 7 && f % 10)
					continue;	/* the unnamed one now and then */
				if (k == 3 && f % 4)
					continue;
				calls[k]++;
				if (vk[k].every && calls[k] % vk[k].every == 0) {
					int e = vk[k].err[fails[k] % 3];

					if (!e)
						e = vk[k].err[0];
					ret = -e;
					fails[k]++;
				}
				uint64_t lat = rng_log(vk[k].lo, vk[k].hi);

				ioctl_rec(ts, 4100, tid, "vkcube", RENDER128, 5 + (k == 6), vk[k].cmd, lat,
					  ret);
				ts += lat + 5 * US + rng() % (20 * US);
			}
		}
	}
	if (only_pid && only_pid != 4200)
		goto others;
	/* the compositor: atomic commits and page flips on card0 */
	for (int f = 0; f < 40; f++) {
		ts = T0 + 5 * MS + (uint64_t)f * 12 * MS + rng() % MS;
		ioctl_rec(ts, 4200, 4200, "Xorg", CARD0, 11, DRM(RW, 0xbc, 56), rng_log(20 * US, 6 * MS),
			  f % 13 == 12 ? -EBUSY : 0);
		if (f % 3 == 0)
			ioctl_rec(ts + 7 * MS, 4200, 4200, "Xorg", CARD0, 11, DRM(RW, 0xb0, 24),
				  rng_log(3 * US, 60 * US), f % 9 == 0 ? -EBUSY : 0);
		if (f % 8 == 0)	/* DRM_IOCTL_MODE_GETRESOURCES */
			ioctl_rec(ts + 9 * MS, 4200, 4203, "Xorg:disp", CARD0, 11, DRM(RW, 0xa0, 64),
				  rng_log(10 * US, 200 * US), 0);
	}
others:
	if (only_pid)
		return;
	/* a client on renderD129: named by the major only, no driver known */
	for (int i = 0; i < 12; i++)
		ioctl_rec(T0 + 30 * MS + (uint64_t)i * 37 * MS, 4400, 4400, "gnome-shell", RENDER129, 21,
			  i % 2 ? DRM(RW, 0x0c, 16) : DRM(RW, 0x44, 24), rng_log(1 * US, 50 * US),
			  i % 5 == 4 ? -EACCES : 0);
	/* /dev/null: terminal ioctls and a foreign one, all refused */
	for (int i = 0; i < 9; i++)
		ioctl_rec(T0 + 100 * MS + (uint64_t)i * 45 * MS, 4300, 4300 + (i % 2), "xpt-null", DEVNULL,
			  3, i % 3 ? 0x5401 /* TCGETS */ : _IOC(RW, 'x', 0x01, 8), rng_log(200, 3 * US),
			  -ENOTTY);
	/* a bare number, no _IOC encoding meant */
	ioctl_rec(T0 + 400 * MS, 4300, 4300, "xpt-null", DEVNULL, 3, 0x00000042, 350, -ENOTTY);
}

/* ---- sched ---- */

struct job {
	const char *ring;
	uint64_t ctx, seqno;		/* 6.17+: the finished fence */
	uint64_t fence, id, entity;	/* 6.16-: fence address, per-ring job id, entity */
	uint32_t pid, tid;
	const char *comm;
	uint64_t client;
	uint64_t queue, run, done;	/* 0: the event is not in the file */
	const struct job *dep;		/* a traced job it waits for */
	uint64_t dep_ctx, dep_seqno;	/* or a fence of no traced job */
	bool unsched;			/* 6.17+: the scheduler found it blocked */
};

static const char *worker_comm(const char *ring)
{
	static char buf[XP_COMM_LEN];

	snprintf(buf, sizeof(buf), "%s", ring);
	return buf;
}

static void sched_job_old(const struct job *j)
{
	const struct xp_rawtp_layout *l = &sched_old_l;
	struct xp_rawtp_rec *r;

	if (j->queue) {
		r = rawtp(l, XP_REC_SCHED, XP_TP_DRM_SCHED_JOB, j->queue, j->pid, j->tid, j->comm,
			  j->tid % 8);
		rec_str(r, 0, j->ring);
		put(l, r, "entity", j->entity);
		put(l, r, "fence", j->fence);
		put(l, r, "id", j->id);
		put(l, r, "job_count", 1 + j->id % 3);
		put(l, r, "hw_job_count", (uint64_t)(j->id % 2));
	}
	if (j->run && (j->dep || j->dep_ctx)) {
		/* the scheduler takes the dependency before the run */
		r = rawtp(l, XP_REC_SCHED, XP_TP_DRM_SCHED_JOB_WAIT_DEP, j->queue + 30 * US, 310, 310,
			  worker_comm(j->ring), 2);
		rec_str(r, 0, j->ring);
		put(l, r, "id", j->id);
		put(l, r, "fence", j->dep ? j->dep->fence : 0xffff9a0012345000ULL);
		put(l, r, "ctx", j->dep ? j->dep->ctx : j->dep_ctx);
		put(l, r, "seqno", j->dep ? j->dep->seqno : j->dep_seqno);
	}
	if (j->run) {
		r = rawtp(l, XP_REC_SCHED, XP_TP_DRM_RUN_JOB, j->run, 310 + (j->ring[0] == 'c'),
			  310 + (j->ring[0] == 'c'), worker_comm(j->ring), 2);
		rec_str(r, 0, j->ring);
		put(l, r, "entity", j->entity);
		put(l, r, "fence", j->fence);
		put(l, r, "id", j->id);
		put(l, r, "job_count", j->id % 3);
		put(l, r, "hw_job_count", 1 + j->id % 2);
	}
	if (j->done) {
		r = rawtp(l, XP_REC_SCHED, XP_TP_DRM_SCHED_PROCESS_JOB, j->done, 0, 0, "swapper/3", 3);
		put(l, r, "fence", j->fence);
	}
}

static void sched_job_new(const struct job *j)
{
	const struct xp_rawtp_layout *l = &sched_new_l;
	struct xp_rawtp_rec *r;

	if (j->queue) {
		r = rawtp(l, XP_REC_SCHED, XP_TP_DRM_SCHED_JOB_QUEUE, j->queue, j->pid, j->tid, j->comm,
			  j->tid % 8);
		rec_str(r, 0, j->ring);
		put(l, r, "fence_context", j->ctx);
		put(l, r, "fence_seqno", j->seqno);
		put(l, r, "client_id", j->client);
		put(l, r, "job_count", 1 + j->seqno % 3);
		put(l, r, "hw_job_count", (uint64_t)(j->seqno % 2));
		if (j->dep || j->dep_ctx) {
			/* drm_sched_job_add_dep from the submitter, right after the queue */
			r = rawtp(l, XP_REC_SCHED, XP_TP_DRM_SCHED_JOB_ADD_DEP, j->queue + 2 * US, j->pid,
				  j->tid, j->comm, j->tid % 8);
			put(l, r, "fence_context", j->ctx);
			put(l, r, "fence_seqno", j->seqno);
			put(l, r, "ctx", j->dep ? j->dep->ctx : j->dep_ctx);
			put(l, r, "seqno", j->dep ? j->dep->seqno : j->dep_seqno);
		}
		if (j->unsched) {
			r = rawtp(l, XP_REC_SCHED, XP_TP_DRM_SCHED_JOB_UNSCHEDULABLE, j->queue + 40 * US,
				  310, 310, worker_comm(j->ring), 2);
			put(l, r, "fence_context", j->ctx);
			put(l, r, "fence_seqno", j->seqno);
			put(l, r, "ctx", j->dep ? j->dep->ctx : j->dep_ctx);
			put(l, r, "seqno", j->dep ? j->dep->seqno : j->dep_seqno);
		}
	}
	if (j->run) {
		r = rawtp(l, XP_REC_SCHED, XP_TP_DRM_SCHED_JOB_RUN, j->run, 310 + (j->ring[0] == 'c'),
			  310 + (j->ring[0] == 'c'), worker_comm(j->ring), 2);
		rec_str(r, 0, j->ring);
		put(l, r, "fence_context", j->ctx);
		put(l, r, "fence_seqno", j->seqno);
		put(l, r, "client_id", j->client);
		put(l, r, "job_count", j->seqno % 3);
		put(l, r, "hw_job_count", 1 + j->seqno % 2);
	}
	if (j->done) {
		r = rawtp(l, XP_REC_SCHED, XP_TP_DRM_SCHED_JOB_DONE, j->done, 0, 0, "swapper/3", 3);
		put(l, r, "fence_context", j->ctx);
		put(l, r, "fence_seqno", j->seqno);
	}
}

/*
 * Three rings (gfx, comp_1.0.0, sdma0), three processes; a job on gfx now
 * and then waits for one on comp_1.0.0, one for a fence of no traced job;
 * one job is never completed, one completes without a run event, one done
 * is of a job queued before the recording. gen: 1 (6.16-) or 2 (6.17+).
 * only_pid: what a recording filtered by pid keeps of the queue events.
 */
#define NJOBS 96
static struct job jobs[NJOBS + 3];

static void sched_stream(int gen, uint32_t only_pid)
{
	static const char *const rings[] = { "gfx", "comp_1.0.0", "sdma0" };
	static const struct { uint32_t pid; const char *comm; uint64_t client; } procs[] = {
		{ 4100, "vkcube", 11 }, { 4200, "Xorg", 3 }, { 4500, "clpeak", 17 },
	};
	uint64_t seq[3] = { 100, 200, 300 }, busy[3] = { 0, 0, 0 };
	int n = 0;

	rng_seed(gen == 1 ? 0x5c4ed01dULL : 0x5c4ed17ULL);
	memset(jobs, 0, sizeof(jobs));
	for (int i = 0; i < NJOBS; i++) {
		struct job *j = &jobs[n++];
		int ri = i % 7 < 4 ? 0 : i % 7 < 6 ? 1 : 2, pi = ri == 1 ? 2 : i % 3 == 2 ? 1 : 0;
		uint64_t qd, ex;

		j->ring = rings[ri];
		j->ctx = 0x40 + (uint64_t)ri;
		j->seqno = ++seq[ri];
		j->id = j->seqno;
		j->fence = 0xffff8f3100000000ULL + (uint64_t)ri * 0x10000 + (j->seqno % 24) * 0x100;
		j->entity = 0xffff8f3200000000ULL + (uint64_t)pi * 0x1000 + (uint64_t)ri * 0x40;
		j->pid = procs[pi].pid;
		j->tid = j->pid + (pi == 0 && i % 2);
		j->comm = procs[pi].comm;
		j->client = procs[pi].client;
		j->queue = T0 + 3 * MS + (uint64_t)i * 5 * MS + rng() % (2 * MS);
		qd = rng_log(5 * US, 3 * MS);
		ex = ri == 2 ? rng_log(20 * US, 400 * US) : rng_log(100 * US, 9 * MS);
		j->run = j->queue + qd;
		if (j->run < busy[ri])
			j->run = busy[ri] + 3 * US;	/* one at a time per ring, in order */
		j->done = j->run + ex;
		busy[ri] = j->done;
		if (ri == 0 && i % 9 == 4) {
			/* the latest comp job queued before this one */
			for (int k = n - 2; k >= 0; k--)
				if (jobs[k].ring == rings[1]) {
					j->dep = &jobs[k];
					break;
				}
			j->unsched = i % 18 == 4;
			if (j->dep && j->run < j->dep->done + 10 * US)
				j->run = j->dep->done + 10 * US, j->done = j->run + ex, busy[ri] = j->done;
		}
		if (i == 40) {
			j->dep_ctx = 0x9;	/* a fence of no traced job (a buffer's fence) */
			j->dep_seqno = 77;
		}
		if (i == 57)
			j->run = 0;	/* done without a run event */
	}
	/* never completed: queued near the end, run, no done */
	jobs[n] = (struct job){ .ring = rings[0], .ctx = 0x40, .seqno = ++seq[0], .id = seq[0],
				.fence = 0xffff8f31000fff00ULL, .entity = 0xffff8f3200000000ULL,
				.pid = 4100, .tid = 4100, .comm = "vkcube", .client = 11,
				.queue = T0 + 490 * MS, .run = T0 + 491 * MS };
	n++;
	/* queued before the recording began: only its done is in the file */
	jobs[n] = (struct job){ .ring = rings[2], .ctx = 0x42, .seqno = 300,
				.fence = 0xffff8f3100020000ULL + 0xbeef00, .done = T0 + 1 * MS };
	n++;
	for (int i = 0; i < n; i++) {
		struct job j = jobs[i];

		/* a pid filter: the kernel drops the others' queue (and add_dep) events */
		if (only_pid && j.pid != only_pid)
			j.queue = 0;
		if (gen == 1)
			sched_job_old(&j);
		else
			sched_job_new(&j);
	}
}

/*
 * TimeGraph's experiment (Kato et al., USENIX ATC 2011), as recorded on one
 * ring: a periodic "frame" task (a job of about 2 ms every 16 ms) and a
 * "greedy" task that keeps two jobs of about g ms queued (it queues the
 * next 20 us after one of its jobs completes), under drm_sched's FIFO: a
 * job queued while the ring is busy runs 50 us after the one before it
 * completes (the interrupt and the scheduler's reaction), one queued on an
 * idle ring 4 us after its queue. Returns when the last job completes.
 */
#define TG_FRAMES 25
#define TG_GREEDY 256

static uint64_t timegraph_stream(uint64_t g)
{
	static struct job fr[TG_FRAMES], gr[TG_GREEDY];
	uint64_t free_at = 0, last = T0 + 390 * MS;
	int fi = 0, gi = 0, ng = 2;

	rng_seed(0x71e6a0f0ULL + g);
	memset(fr, 0, sizeof(fr));
	memset(gr, 0, sizeof(gr));
	for (int k = 0; k < TG_FRAMES; k++)
		fr[k] = (struct job){ .ring = "gfx", .ctx = 0x60, .seqno = 1 + (uint64_t)k, .pid = 5100,
				      .tid = 5100, .comm = "frame", .client = 21,
				      .queue = T0 + 1 * MS + (uint64_t)k * 16 * MS };
	for (int k = 0; k < TG_GREEDY; k++)
		gr[k] = (struct job){ .ring = "gfx", .ctx = 0x61, .seqno = 1 + (uint64_t)k, .pid = 5200,
				      .tid = 5201, .comm = "greedy", .client = 22 };
	gr[0].queue = T0 + 500 * US;
	gr[1].queue = T0 + 510 * US;
	while (fi < TG_FRAMES || gi < ng) {
		/* the ring takes the job queued first */
		bool frame = gi >= ng || (fi < TG_FRAMES && fr[fi].queue <= gr[gi].queue);
		struct job *j = frame ? &fr[fi++] : &gr[gi++];
		uint64_t cost = frame ? 1800 * US + rng() % (400 * US) : g * 9 / 10 + rng() % (g / 5);

		j->run = j->queue >= free_at ? j->queue + 4 * US : free_at + 50 * US;
		j->done = j->run + cost;
		free_at = j->done;
		if (!frame && ng < TG_GREEDY && j->done + 20 * US < last)
			gr[ng++].queue = j->done + 20 * US;
	}
	for (int k = 0; k < TG_FRAMES; k++)
		sched_job_new(&fr[k]);
	for (int k = 0; k < ng; k++)
		sched_job_new(&gr[k]);
	return free_at;
}

/* ---- vblank ---- */

/*
 * CRTC 0 at 60 Hz, CRTC 1 at 144 Hz for half a second; CRTC 0 misses
 * seq 1010; a compositor queues page-flip events (delivered, some late),
 * a second client queues one on CRTC 1 that is never delivered.
 */
static void vblank_stream(void)
{
	const struct xp_rawtp_layout *l = &vbl_l;
	struct xp_rawtp_rec *r;

	rng_seed(0xb1a2cULL);
	for (uint32_t k = 0; k < 30; k++) {
		uint32_t seq = 1000 + k;
		uint64_t vt = T0 + 4 * MS + (uint64_t)k * 16666667ULL;
		uint64_t late = k % 7 == 3 ? 2 * MS + rng() % (3 * MS) : 15 * US + rng() % (60 * US);

		if (k % 2 == 0) {	/* queued for the next vblank, half a frame before */
			r = rawtp(l, XP_REC_VBLANK, XP_VBL_QUEUED, vt - 8 * MS, 4200, 4200, "Xorg", 1);
			put(l, r, "file", 0xffff8f40aa00ULL);
			put(l, r, "crtc", 0);
			put(l, r, "seq", seq);
		}
		if (seq == 1010)
			continue;	/* missed: no event for this one */
		r = rawtp(l, XP_REC_VBLANK, XP_VBL_EVENT, vt + 8 * US, 0, 0, "swapper/0", 0);
		put(l, r, "crtc", 0);
		put(l, r, "seq", seq);
		put(l, r, "time", vt);
		put(l, r, "high_prec", 1);
		if (k % 2 == 0) {
			r = rawtp(l, XP_REC_VBLANK, XP_VBL_DELIVERED, vt + late, 0, 0, "swapper/0", 0);
			put(l, r, "file", 0xffff8f40aa00ULL);
			put(l, r, "crtc", 0);
			put(l, r, "seq", seq);
		}
	}
	for (uint32_t k = 0; k < 72; k++) {
		uint32_t seq = 50000 + k;
		uint64_t vt = T0 + 1 * MS + (uint64_t)k * 6944444ULL;

		r = rawtp(l, XP_REC_VBLANK, XP_VBL_EVENT, vt + 5 * US, 0, 0, "swapper/1", 1);
		put(l, r, "crtc", 1);
		put(l, r, "seq", seq);
		put(l, r, "time", vt);
		put(l, r, "high_prec", k != 10);
		if (k % 6 == 0) {
			r = rawtp(l, XP_REC_VBLANK, XP_VBL_QUEUED, vt - 2 * MS, 4100, 4101, "vkcube", 5);
			put(l, r, "file", 0xffff8f40bb00ULL);
			put(l, r, "crtc", 1);
			put(l, r, "seq", seq);
			if (k != 66) {
				r = rawtp(l, XP_REC_VBLANK, XP_VBL_DELIVERED,
					  vt + (k == 30 ? 4 * MS : 30 * US), 0, 0, "swapper/1", 1);
				put(l, r, "file", 0xffff8f40bb00ULL);
				put(l, r, "crtc", 1);
				put(l, r, "seq", seq);
			}
		}
	}
}

/*
 * Frames, recorded with the probes: card0's pipe 0 at 60 Hz with a legacy
 * page-flipping client (flips 5 and 10 complete a vblank late), card1's
 * pipe 0 at 144 Hz with an atomic compositor presenting on 3 of every 4
 * vblanks. The same pipe index on two devices: two CRTCs.
 */
static void flip_vblank(const struct xp_rawtp_layout *l, int dev, int pipe, uint32_t seq,
			uint64_t vt, uint32_t cpu, const uint64_t *files, int nfiles)
{
	struct xp_rawtp_rec *r = rawtp(l, XP_REC_VBLANK, XP_VBL_CRTC, vt + 4 * US, 0, 0, "swapper/0", cpu);

	put(l, r, "minor", (uint64_t)dev);
	put(l, r, "pipe", (uint64_t)pipe);
	for (int i = 0; i < nfiles; i++) {
		r = rawtp(l, XP_REC_VBLANK, XP_VBL_DELIVERED, vt + 20 * US + (uint64_t)i * US, 0, 0,
			  "swapper/0", cpu);
		put(l, r, "file", files[i]);
		put(l, r, "crtc", (uint64_t)pipe);
		put(l, r, "seq", seq);
	}
	r = rawtp(l, XP_REC_VBLANK, XP_VBL_EVENT, vt + 30 * US, 0, 0, "swapper/0", cpu);
	put(l, r, "crtc", (uint64_t)pipe);
	put(l, r, "seq", seq);
	put(l, r, "time", vt);
	put(l, r, "high_prec", 1);
}

static void flip_submit(const struct xp_rawtp_layout *l, uint64_t entry, uint64_t file, int dev,
			uint32_t crtc_id, uint32_t nr, uint32_t pid, uint32_t tid, const char *comm)
{
	struct xp_rawtp_rec *r = rawtp(l, XP_REC_VBLANK, XP_VBL_SUBMIT, entry + 6 * US, pid, tid, comm, 2);

	put(l, r, "file", file);
	put(l, r, "submit_ns", entry);
	put(l, r, "type", XP_DRM_EVENT_FLIP_COMPLETE);
	put(l, r, "crtc_id", crtc_id);
	put(l, r, "minor", (uint64_t)dev);
	put(l, r, "ioctl_nr", nr);
	put(l, r, "user_data", 0);
}

static void flip_stream(void)
{
	const struct xp_rawtp_layout *l = &vblp_l;
	const uint64_t F = 0xffff8f40cc00ULL, K = 0xffff8f40dd00ULL;
	uint32_t seq = 300;
	int left = 0, frame = 0;

	/* card0: 30 vblanks; a flip asked 3 ms after each completion */
	for (int k = 0; k < 30; k++, seq++) {
		uint64_t vt = T0 + 2 * MS + (uint64_t)k * 16666667ULL;

		flip_vblank(l, 0, 0, seq, vt, 0, &F, left == 1 && k > 0 ? 1 : 0);
		if (left > 0 && --left > 0)
			continue;
		if (frame == 12)
			continue;
		flip_submit(l, vt + 3 * MS, F, 0, 35, 0xb0, 5100, 5102, "flipper");
		frame++;
		left = frame == 5 || frame == 10 ? 2 : 1;
	}
	/* card1: 48 vblanks at 144 Hz; kwin asks on 3 of every 4 */
	seq = 9000;
	for (int k = 0; k < 48; k++, seq++) {
		uint64_t vt = T0 + 1 * MS + (uint64_t)k * 6944444ULL;

		flip_vblank(l, 1, 0, seq, vt, 1, &K, k > 0 && (k - 1) % 4 != 3 ? 1 : 0);
		if (k % 4 != 3 && k < 47)
			flip_submit(l, vt + 1 * MS, K, 1, 71, 0xbc, 5200, 5200, "kwin_wayland");
	}
}

/* ---- mem ---- */

static struct xp_rawtp_rec *mem(int ev, uint64_t ts, uint32_t pid, const char *comm)
{
	return rawtp(&mem_l, XP_REC_MEM, ev, ts, pid, pid, comm, pid % 4);
}
#define MPUT(r, n, v) put(&mem_l, r, n, v)

static void mem_stream(void)
{
	static const uint32_t pages[] = { 256, 16, 8, 64, 1024, 4 }, type[] = { 2, 1, 1, 2, 2, 1 },
			      pref[] = { 4, 6, 2, 4, 4, 2 }, placed_vis[] = { 1, 0, 0, 1, 0, 0 };
	struct xp_rawtp_rec *r;
	uint64_t ts = T0 + MS;

	rng_seed(0x3e3e3eULL);
	/* amdgpu: BOs of a game, moves by a worker, submissions and their runs, interrupts */
	for (int i = 0; i < 6; i++) {
		r = mem(XP_MEM_AMD_BO_CREATE, ts += 2 * MS, 4600, "game");
		MPUT(r, "bo", 0xffff9e0000100000ULL + (uint64_t)i * 0x400);
		MPUT(r, "pages", pages[i]);
		MPUT(r, "type", type[i]);
		MPUT(r, "prefer", pref[i]);
		MPUT(r, "allow", 6);
		MPUT(r, "visible", placed_vis[i]);
	}
	for (int i = 0; i < 5; i++) {
		r = mem(XP_MEM_AMD_BO_MOVE, ts += MS, 88, "kworker/2:1");
		MPUT(r, "bo", 0xffff9e0000100000ULL + (uint64_t)i * 0x400);
		MPUT(r, "bo_size", i < 3 ? 1 << 20 : 65536);
		MPUT(r, "new_placement", i < 3 ? XP_TTM_PL_TT : i == 3 ? XP_TTM_PL_VRAM : XP_TTM_PL_SYSTEM);
		MPUT(r, "old_placement", i < 3 ? XP_TTM_PL_VRAM : XP_TTM_PL_TT);
	}
	for (int i = 0; i < 12; i++) {
		uint64_t sub = T0 + 40 * MS + (uint64_t)i * 8 * MS;
		const char *ring = i % 4 == 3 ? "comp_1.0.0" : "gfx_0.0.0";

		r = mem(XP_MEM_AMD_CS_IOCTL, sub, 4600, "game");
		MPUT(r, "sched_job_id", 900 + (uint64_t)i);
		MPUT(r, "context", i % 4 == 3 ? 12 : 7);
		MPUT(r, "seqno", 40 + (uint64_t)i);
		MPUT(r, "num_ibs", 1 + i % 2);
		rec_str(r, 0, ring);
		if (i == 11)
			continue;	/* still pending at the end */
		r = rawtp(&mem_l, XP_REC_MEM, XP_MEM_AMD_RUN_JOB, sub + rng_log(10 * US, 2 * MS), 0, 0,
			  ring, 2);
		MPUT(r, "context", i % 4 == 3 ? 12 : 7);
		MPUT(r, "seqno", 40 + (uint64_t)i);
		MPUT(r, "num_ibs", 1 + i % 2);
		rec_str(r, 0, ring);
	}
	for (int i = 0; i < 7; i++) {
		r = mem(XP_MEM_AMD_IV, T0 + 50 * MS + (uint64_t)i * 11 * MS, 0, "swapper/0");
		MPUT(r, "client_id", i < 5 ? 0 : 10);
		MPUT(r, "src_id", i < 4 ? 181 : 146);
		MPUT(r, "ring_id", 0);
		MPUT(r, "pasid", i < 4 ? 0 : 32770);
	}
	/* i915: objects of Xorg and glxgears, destroyed by a worker, binds, faults */
	static const uint64_t osize[] = { 4096, 8192, 65536, 1 << 20, 2 << 20 };
	for (int i = 0; i < 5; i++) {
		r = mem(XP_MEM_I915_CREATE, T0 + 150 * MS + (uint64_t)i * MS, i < 3 ? 4200 : 4700,
			i < 3 ? "Xorg" : "glxgears");
		MPUT(r, "obj", 0xffff9f0000a00000ULL + 0x100 * (uint64_t)i);
		MPUT(r, "size", osize[i]);
	}
	static const uint64_t gone[] = { 0xffff9f0000a00100ULL, 0xffff9f0000a00300ULL,
					 0xffff9f00000dead0ULL };
	for (int i = 0; i < 3; i++) {
		r = mem(XP_MEM_I915_DESTROY, T0 + 300 * MS + (uint64_t)i * MS, 99, "kworker/u8:3");
		MPUT(r, "obj", gone[i]);
	}
	static const int binds[] = { XP_MEM_I915_BIND, XP_MEM_I915_UNBIND, XP_MEM_I915_BIND,
				     XP_MEM_I915_BIND };
	for (int i = 0; i < 4; i++) {
		r = mem(binds[i], T0 + 160 * MS + (uint64_t)i * MS, 4700, "glxgears");
		MPUT(r, "obj", 0xffff9f0000a00400ULL);
		MPUT(r, "vm", 0xffff9f0000050000ULL);
		MPUT(r, "offset", 0x100000 * (uint64_t)i);
		MPUT(r, "size", 2 << 20);
	}
	for (int i = 0; i < 3; i++) {
		r = mem(XP_MEM_I915_FAULT, T0 + 170 * MS + (uint64_t)i * MS, 4700, "glxgears");
		MPUT(r, "obj", 0xffff9f0000a00400ULL);
		MPUT(r, "index", (uint64_t)i);
		MPUT(r, "gtt", i < 2);
		MPUT(r, "write", i == 0);
	}
	/* i915 requests: render and copy, retired by a worker, waits by two processes */
	for (int i = 0; i < 6; i++) {
		uint64_t add = T0 + 200 * MS + (uint64_t)i * 3 * MS;
		uint64_t cls = i % 3 == 2 ? 1 : 0;

		r = mem(XP_MEM_I915_RQ_ADD, add, 4700, "glxgears");
		MPUT(r, "ctx", cls ? 8 : 7);
		MPUT(r, "class", cls);
		MPUT(r, "seqno", 10 + (uint64_t)i);
		if (i == 5)
			continue;	/* in flight at the end */
		r = mem(XP_MEM_I915_RQ_RETIRE, add + rng_log(50 * US, 4 * MS), 99, "kworker/u8:3");
		MPUT(r, "ctx", cls ? 8 : 7);
		MPUT(r, "class", cls);
		MPUT(r, "seqno", 10 + (uint64_t)i);
		if (i == 1 || i == 3) {
			r = mem(XP_MEM_I915_RQ_WAIT_BEGIN, add + 10 * US, i == 1 ? 4700 : 4200,
				i == 1 ? "glxgears" : "Xorg");
			MPUT(r, "ctx", 7);
			MPUT(r, "class", 0);
			MPUT(r, "seqno", 10 + (uint64_t)i);
			r = mem(XP_MEM_I915_RQ_WAIT_END, add + 40 * US + (uint64_t)i * 100 * US,
				i == 1 ? 4700 : 4200, i == 1 ? "glxgears" : "Xorg");
			MPUT(r, "ctx", 7);
			MPUT(r, "class", 0);
			MPUT(r, "seqno", 10 + (uint64_t)i);
		}
	}
	/* a retire of a request from before the recording */
	r = mem(XP_MEM_I915_RQ_RETIRE, T0 + 2 * MS, 99, "kworker/u8:3");
	MPUT(r, "ctx", 7);
	MPUT(r, "seqno", 3);
	/* xe: queues of classes, BOs, moves (one a first placement) */
	static const uint64_t cls[] = { 0, 0, 3, 5, 9 };
	for (int i = 0; i < 5; i++) {
		r = mem(XP_MEM_XE_QUEUE_CREATE, T0 + 250 * MS + (uint64_t)i * MS, 4800, "vkmark");
		MPUT(r, "class", cls[i]);
		MPUT(r, "width", 1);
		rec_str(r, 0, "0000:03:00.0");
	}
	for (int i = 0; i < 3; i++) {
		r = mem(XP_MEM_XE_BO_CREATE, T0 + 260 * MS + (uint64_t)i * MS, 4800, "vkmark");
		MPUT(r, "size", (uint64_t)(1 + i) << 20);
		MPUT(r, "flags", 0x3);
		rec_str(r, 0, "0000:03:00.0");
	}
	static const struct { const char *from, *to; uint64_t size, fresh; } mv[] = {
		{ "vram0", "system", 4096, 0 }, { "vram0", "system", 8192, 0 },
		{ "system", "tt", 65536, 1 }, { "system", "vram0", 1 << 20, 0 },
	};
	for (int i = 0; i < 4; i++) {
		r = mem(XP_MEM_XE_BO_MOVE, T0 + 270 * MS + (uint64_t)i * MS, 77, "kworker/3:2");
		MPUT(r, "bo", 0xffff9d00000b0000ULL + (uint64_t)i * 0x40);
		MPUT(r, "size", mv[i].size);
		MPUT(r, "move_lacks_source", mv[i].fresh);
		rec_str(r, 0, mv[i].to);
		rec_str(r, 1, mv[i].from);
	}
	/* an event of the table the recording kernel had no layout for: undecodable */
	r = mem(XP_MEM_AMD_IV, T0 + 320 * MS, 0, "swapper/2");
	r->ev = XP_MEM_XE_VMA_FAULT;
}

/* ---- writing ---- */

static struct xp_npu_rec *npu(uint8_t kind, uint64_t ts, uint32_t pid, const char *comm, const char *name)
{
	struct xp_npu_rec *r = &new_rec(ts)->npu;

	r->h.type = XP_REC_NPU;
	r->h.size = sizeof(*r);
	r->h.ts_ns = ts;
	r->h.pid = r->h.tid = pid;
	r->kind = kind;
	r->dev = kind == XP_NPU_XDNA || kind == XP_NPU_SDONE;
	snprintf(r->comm, sizeof(r->comm), "%s", comm);
	snprintf(r->name, sizeof(r->name), "%s", name);
	return r;
}

/* amdxdna job `seq` of hw context hwctx.500.1: queued, run, on the device for `dev_ns` */
static void xdna_job(uint64_t t, uint64_t seq, uint64_t dev_ns)
{
	static const char *const ev[] = { "job run", "sent to device", "signaling fence", "job free" };
	const uint64_t at[] = { 400 * US, 430 * US, 430 * US + dev_ns, 500 * US + dev_ns };
	struct xp_npu_rec *r = npu(XP_NPU_SQUEUE, t, 500, "npuapp", "");

	snprintf(r->type, sizeof(r->type), "amdxdna_js");
	r->fctx = 9, r->fseq = seq + 1;
	for (int i = 0; i < 4; i++) {
		r = npu(XP_NPU_XDNA, t + at[i], 77, "kworker/u4:1", ev[i]);
		snprintf(r->type, sizeof(r->type), "hwctx.500.1");
		r->fctx = 9, r->fseq = seq + 1, r->seq = seq;
		if (i == 2) {
			r = npu(XP_NPU_SDONE, t + at[i] + 20 * US, 78, "kworker/0:1H", "");
			r->fctx = 9, r->fseq = seq + 1;
		}
	}
}

static void npu_stream(void)
{
	/* the size of a record before amdxdna: it ends at fctx */
	struct xp_npu_rec *r = npu(XP_NPU_JOB, T0 + 10 * MS, 600, "vpuapp", "submit");

	r->h.size = XP_NPU_REC_V1_SIZE;
	r->a = 1, r->c = 1;
	r = npu(XP_NPU_JOB, T0 + 16 * MS, 0, "irq/40-intel_vpu", "done");
	r->h.size = XP_NPU_REC_V1_SIZE;
	r->a = 1, r->c = 1;
	for (uint64_t i = 0; i < 4; i++)
		xdna_job(T0 + 20 * MS + i * 3 * MS, i, 1 * MS + i * 100 * US);
}

static void meta_base(struct xp_trace_meta *m, const char *kernel, const char *hook)
{
	memset(m, 0, sizeof(*m));
	/* fixed, not XP_VERSION: the files must not change with the version */
	snprintf(m->tool, sizeof(m->tool), "xputrace 0.1.0");
	snprintf(m->kernel, sizeof(m->kernel), "%s", kernel);
	snprintf(m->hostname, sizeof(m->hostname), "golden-host");
	snprintf(m->clock, sizeof(m->clock), "CLOCK_MONOTONIC");
	m->wall_offset_ns = WALL_T0 - (int64_t)T0;
	m->start_ns = T0;
	m->page_size = 4096;
	snprintf(m->hook, sizeof(m->hook), "%s", hook);
}

static void meta_cap(struct xp_trace_meta *m, const char *cap, uint16_t rectype,
		     const struct xp_rawtp_layout *l)
{
	xp_trace_meta_add_cap(m, cap);
	if (l && xp_trace_meta_add_layout(m, rectype, l))
		die("layouts", ENOMEM);
}

struct ending {
	uint64_t end;			/* the trailer's time */
	uint64_t drops[XP_DROP_ALL];
	bool no_trailer;		/* the recorder was killed between blocks */
};

/* Writes the records collected so far in delivery order, a STATS block each 250 ms. */
static void write_as(const char *name, const struct xp_trace_meta *m, const struct ending *e,
		     const struct xp_trace_wopts *o)
{
	char path[4096];
	struct xp_trace_writer *w;
	struct xp_trace_stats st;
	uint64_t tick = T0 + 250 * MS;
	int fd, err;

	snprintf(path, sizeof(path), "%s/%s", outdir, name);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) < 0)
		die(path, errno);
	if ((err = xp_trace_writer_open_opts(&w, fd, m, o)))
		die(path, -err);
	qsort(slots, (size_t)nslots, sizeof(slots[0]), slot_cmp);
	memset(&st, 0, sizeof(st));
	for (int i = 0; i < nslots; i++) {
		while (slots[i].key >= tick) {
			st.ts_ns = tick;
			/* the drops so far: a share of the final ones */
			for (int k = 0; k < XP_DROP_ALL; k++)
				st.drops[k] = e->drops[k] * (tick - T0) / (e->end - T0);
			if ((err = xp_trace_writer_stats(w, &st)))
				die(path, -err);
			tick += 250 * MS;
		}
		if ((err = xp_trace_writer_add(w, &slots[i].r.h)))
			die(path, -err);
	}
	st.ts_ns = e->end;
	memcpy(st.drops, e->drops, sizeof(st.drops));
	err = e->no_trailer ? xp_trace_writer_stats(w, &st) : xp_trace_writer_finish(w, &st);
	if (err)
		die(path, -err);
	xp_trace_writer_free(w);
	if (close(fd))
		die(path, errno);
}

/* Format 1.1 (records as they are), as every file here was before format 2. */
static const struct xp_trace_wopts v1 = { .block_size = 65536, .raw = true };

static void write_file(const char *name, struct xp_trace_meta *m, const struct ending *e)
{
	write_as(name, m, e, strstr(name, "_packed") ? &(struct xp_trace_wopts){ .block_size = 65536 } : &v1);
	xp_trace_meta_free(m);
	nslots = 0;
}

static uint8_t *slurp(const char *name, size_t *len)
{
	char path[4096];
	uint8_t *buf;
	long n;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", outdir, name);
	if (!(f = fopen(path, "rb")) || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 0)
		die(path, errno);
	rewind(f);
	if (!(buf = malloc((size_t)n + 1)) || fread(buf, 1, (size_t)n, f) != (size_t)n)
		die(path, EIO);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static void spill(const char *name, const uint8_t *buf, size_t len)
{
	char path[4096];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", outdir, name);
	if (!(f = fopen(path, "wb")) || fwrite(buf, 1, len, f) != len || fclose(f))
		die(path, errno);
}

int main(int argc, char **argv)
{
	static struct xp_trace_meta m;
	size_t len;
	uint8_t *buf;

	use_record_kinds();
	if (argc != 2) {
		fprintf(stderr, "usage: mkfixtures DIR\n");
		return 2;
	}
	outdir = argv[1];
	layouts();

	meta_base(&m, "6.17.13+deb13-amd64", "tp_btf");
	devices(&m.devs, true);
	meta_cap(&m, "ioctl", XP_REC_IOCTL, NULL);
	ioctl_stream(0);
	write_file("ioctl.xpt", &m, &(struct ending){ .end = T0 + 520 * MS });

	meta_base(&m, "6.1.0-31-amd64", "tracepoint+raw_tp");
	meta_cap(&m, "sched", XP_REC_SCHED, &sched_old_l);
	sched_stream(1, 0);
	write_file("sched_old.xpt", &m, &(struct ending){ .end = T0 + 500 * MS, .drops = { 1 } });

	meta_base(&m, "6.17.13+deb13-amd64", "tracepoint+raw_tp");
	meta_cap(&m, "sched", XP_REC_SCHED, &sched_new_l);
	sched_stream(2, 0);
	write_file("sched_new.xpt", &m, &(struct ending){ .end = T0 + 500 * MS, .drops = { 0, 0, 2 } });

	meta_base(&m, "6.17.13+deb13-amd64", "tracepoint");
	meta_cap(&m, "vblank", XP_REC_VBLANK, &vbl_l);
	vblank_stream();
	write_file("vblank.xpt", &m, &(struct ending){ .end = T0 + 510 * MS });

	meta_base(&m, "7.3.4+deb13-amd64", "raw_tp+kprobe");
	meta_cap(&m, "vblank", XP_REC_VBLANK, &vblp_l);
	flip_stream();
	write_file("flip.xpt", &m, &(struct ending){ .end = T0 + 520 * MS });

	meta_base(&m, "6.12.48+deb13-amd64", "tracepoint");
	meta_cap(&m, "mem", XP_REC_MEM, &mem_l);
	mem_stream();
	write_file("mem.xpt", &m, &(struct ending){ .end = T0 + 400 * MS, .drops = { 0, 1 } });

	/* every capability, in the table's order as record opens them */
	meta_base(&m, "6.17.13+deb13-amd64", "tp_btf");
	devices(&m.devs, true);
	meta_cap(&m, "ioctl", XP_REC_IOCTL, NULL);
	meta_cap(&m, "sched", XP_REC_SCHED, &sched_new_l);
	meta_cap(&m, "vblank", XP_REC_VBLANK, &vbl_l);
	meta_cap(&m, "mem", XP_REC_MEM, &mem_l);
	ioctl_stream(0);
	sched_stream(2, 0);
	vblank_stream();
	mem_stream();
	{	/* a record of a type this build does not know: skipped, counted */
		union rec *r = new_rec(T0 + 333 * MS);

		r->h.type = XP_REC_TYPE_MAX + 3;
		r->h.size = 40;
		r->h.ts_ns = T0 + 333 * MS;
		r->h.pid = r->h.tid = 1;
	}
	write_as("all.xpt", &m, &(struct ending){ .end = T0 + 530 * MS, .drops = { 3, 0, 1 } }, &v1);
	/* the same records packed (format 2): they must read the same */
	write_file("all_packed.xpt", &m, &(struct ending){ .end = T0 + 530 * MS, .drops = { 3, 0, 1 } });

	/* record -p 4100: the kernel kept that process's ioctls and queue events */
	meta_base(&m, "6.17.13+deb13-amd64", "tp_btf");
	devices(&m.devs, false);
	m.filter_pid = 4100;
	meta_cap(&m, "ioctl", XP_REC_IOCTL, NULL);
	meta_cap(&m, "sched", XP_REC_SCHED, &sched_new_l);
	ioctl_stream(4100);
	sched_stream(2, 4100);
	write_file("filtered.xpt", &m, &(struct ending){ .end = T0 + 500 * MS });

	meta_base(&m, "6.17.13+deb13-amd64", "tp_btf");
	devices(&m.devs, false);
	snprintf(m.filter_comm, sizeof(m.filter_comm), "idle");
	meta_cap(&m, "ioctl", XP_REC_IOCTL, NULL);
	meta_cap(&m, "sched", XP_REC_SCHED, &sched_new_l);
	write_file("empty.xpt", &m, &(struct ending){ .end = T0 + 2 * S });

	meta_base(&m, "6.17.13+deb13-amd64", "raw_tp");
	devices(&m.devs, true);
	meta_cap(&m, "ioctl", XP_REC_IOCTL, NULL);
	ioctl_stream(0);
	write_file("unfinished.xpt", &m,
		   &(struct ending){ .end = T0 + 480 * MS, .drops = { 5 }, .no_trailer = true });

	meta_base(&m, "7.3.4+deb13-amd64", "kprobe.multi");
	meta_cap(&m, "npu", XP_REC_NPU, NULL);
	npu_stream();
	write_file("npu.xpt", &m, &(struct ending){ .end = T0 + 100 * MS });

	/* TimeGraph's two tasks with greedy jobs of 2, 4 and 8 ms (docs/simulate.md) */
	for (uint64_t g = 2; g <= 8; g *= 2) {
		char name[32];
		uint64_t end;

		meta_base(&m, "6.17.13+deb13-amd64", "tracepoint+raw_tp");
		meta_cap(&m, "sched", XP_REC_SCHED, &sched_new_l);
		end = timegraph_stream(g * MS);
		snprintf(name, sizeof(name), "tg_%llums.xpt", (unsigned long long)g);
		write_file(name, &m, &(struct ending){ .end = end + 1 * MS });
	}

	/* damaged copies of all.xpt */
	buf = slurp("all.xpt", &len);
	spill("all_cut.xpt", buf, len / 2);
	buf[len / 2] ^= 0xff;
	spill("all_flip.xpt", buf, len);
	free(buf);
	return 0;
}
