/*
 * flipper: a page-flipping display client that misses frames in a known
 * pattern, and measures itself, so that a tracer's per-process frame counts
 * and scanout latency can be checked against it.
 *
 *   flipper DEVICE api=legacy|atomic|seq frames=N [late_every=K [late_by=L] [vgem=VGEM_DEVICE]]
 *           [skip_every=M] [log=1]
 *
 * It lights the first connected output of DEVICE (a KMS driver: vkms) with
 * a mode set, then flips between two framebuffers N times, one flip at a
 * time: drmModePageFlip (api=legacy) or an atomic commit of the primary
 * plane's FB_ID with DRM_MODE_PAGE_FLIP_EVENT | DRM_MODE_ATOMIC_NONBLOCK
 * (api=atomic); or, flipping nothing, asks for a CRTC-sequence event
 * (drmCrtcQueueSequence, api=seq) for the next vblank. Each is asked 2 ms
 * after the vblank of the previous one.
 *  - late_every=K: every K-th flip's buffer carries an unsignalled write
 *    fence (the buffers are vgem objects imported into DEVICE, the fence
 *    vgem's), signalled 1.5 frames after the flip was asked: the kernel
 *    cannot scan it out before, so it completes one vblank after its target.
 *    With api=seq, every K-th asks for the vblank after next instead.
 *  - late_by=L: such a flip's fence is signalled L + 0.5 frames after it
 *    was asked (api=seq: asks L vblanks past the next), so it completes L
 *    vblanks after its target (default 1). Its log still says "missed 1".
 *  - skip_every=M: after every M-th flip it sits one vblank out (asks 2 ms
 *    after the next vblank), so it presents on M of every M+1 vblanks.
 * Its own measurement, from the events' vblank timestamps and sequence
 * numbers (CLOCK_MONOTONIC, as the kernel's):
 *   pid P tid T crtc_index I crtc_id C refresh_mhz R
 *   asked N completed N missed M scanout_sum_ns S scanout_mean_ns A
 * where a flip missed its target when it completed on a later vblank than
 * the first one after it was asked. The first flip's reference is a vblank
 * waited for (DRM_IOCTL_WAIT_VBLANK) just before it, so it is judged too: a
 * tracer that sees it knows its target as well.
 *  - log=1: also one line per frame as it completes, so that a tracer
 *    started or stopped while it flips can be checked on the frames it saw:
 *      frame I seq Q missed 0|1|? scanout_ns S
 *    "?" when a vblank passed while it was in the ioctl that asked for the
 *    frame (preempted, or a host stall): whether the frame was asked before
 *    that vblank is then not the client's to say.
 * and at its start, once the mode is set: "flipping pid P" (flushed: a test
 * waits for it, and may end it with a signal).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

/* vgem's fence ioctls (include/uapi/drm/vgem_drm.h) */
struct vgem_fence_attach { uint32_t handle, flags, out_fence, pad; };
struct vgem_fence_signal { uint32_t fence, flags; };
#define VGEM_FENCE_WRITE 0x1
#define VGEM_IOCTL_FENCE_ATTACH DRM_IOWR(DRM_COMMAND_BASE + 0x1, struct vgem_fence_attach)
#define VGEM_IOCTL_FENCE_SIGNAL DRM_IOW(DRM_COMMAND_BASE + 0x2, struct vgem_fence_signal)

static int fd, vfd = -1;

static void die(const char *what)
{
	fprintf(stderr, "flipper: %s: %s\n", what, strerror(errno));
	exit(1);
}

static const char *sarg(int argc, char **argv, const char *key, const char *dflt)
{
	size_t n = strlen(key);

	for (int i = 2; i < argc; i++)
		if (!strncmp(argv[i], key, n) && argv[i][n] == '=')
			return argv[i] + n + 1;
	return dflt;
}

static unsigned long arg(int argc, char **argv, const char *key, unsigned long dflt)
{
	const char *v = sarg(argc, argv, key, NULL);

	return v ? strtoul(v, NULL, 10) : dflt;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { .tv_sec = (time_t)(t / 1000000000ULL), .tv_nsec = (long)(t % 1000000000ULL) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}

struct buf {
	uint32_t fb, vgem_handle;
};

static struct buf make_buf(uint32_t w, uint32_t h)
{
	struct drm_mode_create_dumb d = { .width = w, .height = h, .bpp = 32 };
	struct buf b = { 0 };
	uint32_t handle;
	int dmafd;

	if (vfd < 0) {
		if (drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &d))
			die("CREATE_DUMB");
		handle = d.handle;
	} else {
		/* a vgem buffer shared with the display: vgem's fences are on it */
		if (drmIoctl(vfd, DRM_IOCTL_MODE_CREATE_DUMB, &d))
			die("vgem CREATE_DUMB");
		b.vgem_handle = d.handle;
		if (drmPrimeHandleToFD(vfd, d.handle, DRM_CLOEXEC | DRM_RDWR, &dmafd))
			die("vgem export");
		if (drmPrimeFDToHandle(fd, dmafd, &handle))
			die("import into the display device");
		close(dmafd);
	}
	if (drmModeAddFB(fd, w, h, 24, 32, d.pitch, handle, &b.fb))
		die("ADDFB");
	return b;
}

static uint32_t prop_id(uint32_t obj, uint32_t type, const char *name)
{
	drmModeObjectProperties *p = drmModeObjectGetProperties(fd, obj, type);
	uint32_t id = 0;

	for (uint32_t i = 0; p && i < p->count_props && !id; i++) {
		drmModePropertyRes *r = drmModeGetProperty(fd, p->props[i]);

		if (r && !strcmp(r->name, name))
			id = r->prop_id;
		drmModeFreeProperty(r);
	}
	drmModeFreeObjectProperties(p);
	return id;
}

static uint64_t prop_value(uint32_t obj, uint32_t type, const char *name)
{
	drmModeObjectProperties *p = drmModeObjectGetProperties(fd, obj, type);
	uint64_t v = ~0ULL;

	for (uint32_t i = 0; p && i < p->count_props; i++) {
		drmModePropertyRes *r = drmModeGetProperty(fd, p->props[i]);

		if (r && !strcmp(r->name, name))
			v = p->prop_values[i];
		drmModeFreeProperty(r);
	}
	drmModeFreeObjectProperties(p);
	return v;
}

static int got;
static unsigned int ev_seq;
static uint64_t ev_vt;

static void on_seq(int f, uint64_t seq, uint64_t ns, uint64_t data)
{
	(void)f;
	(void)data;
	got = 1;
	ev_seq = (unsigned int)seq;
	ev_vt = ns;
}

static void on_flip(int f, unsigned int seq, unsigned int sec, unsigned int usec, void *data)
{
	(void)f;
	(void)data;
	got = 1;
	ev_seq = seq;
	ev_vt = (uint64_t)sec * 1000000000ULL + (uint64_t)usec * 1000ULL;
}

int main(int argc, char **argv)
{
	drmEventContext evctx = { .version = 4, .page_flip_handler = on_flip, .sequence_handler = on_seq };
	const char *api, *vgem;
	unsigned long frames, late_every, late_by, skip_every, missed = 0, completed = 0, log;
	uint32_t crtc_id = 0, conn_id = 0, plane_id = 0, fb_prop = 0, crtc_index = 0;
	drmModeRes *res;
	drmModeConnector *conn = NULL;
	drmModeModeInfo mode;
	struct buf bufs[2];
	uint64_t period, scan_sum = 0, ref_vt = 0;
	unsigned int ref_seq = 0;
	int atomic, seqapi;

	if (argc < 2) {
		fprintf(stderr, "usage: flipper DEVICE api=legacy|atomic|seq frames=N [late_every=K [late_by=L] vgem=DEV] [skip_every=M] [log=1]\n");
		return 2;
	}
	api = sarg(argc, argv, "api", "legacy");
	atomic = !strcmp(api, "atomic");
	seqapi = !strcmp(api, "seq");
	frames = arg(argc, argv, "frames", 60);
	late_every = arg(argc, argv, "late_every", 0);
	late_by = arg(argc, argv, "late_by", 1);
	skip_every = arg(argc, argv, "skip_every", 0);
	log = arg(argc, argv, "log", 0);
	vgem = sarg(argc, argv, "vgem", NULL);
	if (late_every && !vgem && !seqapi) {
		fprintf(stderr, "flipper: late_every needs vgem=DEVICE (the fences are vgem's)\n");
		return 2;
	}
	struct sched_param sp = { .sched_priority = 10 };
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		fprintf(stderr, "flipper: not a real-time task: %s\n", strerror(errno));
	if ((fd = open(argv[1], O_RDWR | O_CLOEXEC)) < 0)
		die(argv[1]);
	if (vgem && (vfd = open(vgem, O_RDWR | O_CLOEXEC)) < 0)
		die(vgem);
	if (atomic && (drmSetClientCap(fd, DRM_CLIENT_CAP_UNIVERSAL_PLANES, 1) ||
		       drmSetClientCap(fd, DRM_CLIENT_CAP_ATOMIC, 1)))
		die("atomic client caps");
	if (!(res = drmModeGetResources(fd)))
		die("GETRESOURCES");
	for (int i = 0; i < res->count_connectors && !conn_id; i++) {
		conn = drmModeGetConnector(fd, res->connectors[i]);
		if (conn && conn->connection == DRM_MODE_CONNECTED && conn->count_modes)
			conn_id = conn->connector_id;
		else
			drmModeFreeConnector(conn);
	}
	if (!conn_id) {
		fprintf(stderr, "flipper: no connected output\n");
		return 1;
	}
	mode = conn->modes[0];
	{
		drmModeEncoder *enc = drmModeGetEncoder(fd, conn->encoder_id ? conn->encoder_id : conn->encoders[0]);

		for (int i = 0; enc && i < res->count_crtcs; i++)
			if (enc->crtc_id ? res->crtcs[i] == enc->crtc_id : (enc->possible_crtcs & (1u << i))) {
				crtc_index = (uint32_t)i;
				break;
			}
		crtc_id = res->crtcs[crtc_index];
		drmModeFreeEncoder(enc);
	}
	period = (uint64_t)mode.htotal * mode.vtotal * 1000000ULL / mode.clock;	/* clock in kHz */
	bufs[0] = make_buf(mode.hdisplay, mode.vdisplay);
	bufs[1] = make_buf(mode.hdisplay, mode.vdisplay);
	if (drmModeSetCrtc(fd, crtc_id, bufs[0].fb, 0, 0, &conn_id, 1, &mode))
		die("SETCRTC");
	if (atomic) {
		drmModePlaneRes *pr = drmModeGetPlaneResources(fd);

		for (uint32_t i = 0; pr && i < pr->count_planes && !plane_id; i++) {
			drmModePlane *p = drmModeGetPlane(fd, pr->planes[i]);

			if (p && (p->possible_crtcs & (1u << crtc_index)) &&
			    prop_value(p->plane_id, DRM_MODE_OBJECT_PLANE, "type") == DRM_PLANE_TYPE_PRIMARY)
				plane_id = p->plane_id;
			drmModeFreePlane(p);
		}
		if (!plane_id || !(fb_prop = prop_id(plane_id, DRM_MODE_OBJECT_PLANE, "FB_ID"))) {
			fprintf(stderr, "flipper: no primary plane with FB_ID for the CRTC\n");
			return 1;
		}
	}
	if (log) {
		printf("flipping pid %d\n", getpid());
		fflush(stdout);
	}
	{
		/* the first flip's reference: the vblank just before it */
		drmVBlank vb = { .request = {
			.type = DRM_VBLANK_RELATIVE |
				(((unsigned int)crtc_index << DRM_VBLANK_HIGH_CRTC_SHIFT) & DRM_VBLANK_HIGH_CRTC_MASK),
			.sequence = 1 } };

		if (!drmWaitVBlank(fd, &vb)) {
			ref_seq = vb.reply.sequence;
			ref_vt = (uint64_t)vb.reply.tval_sec * 1000000000ULL + (uint64_t)vb.reply.tval_usec * 1000ULL;
		}
	}
	for (unsigned long i = 0; i < frames; i++) {
		const struct buf *b = &bufs[(i + 1) % 2];
		struct vgem_fence_attach fa = { .handle = b->vgem_handle, .flags = VGEM_FENCE_WRITE };
		int late = late_every && i % late_every == late_every - 1;
		uint64_t t, t1;
		int r;

		if (late && !seqapi && drmIoctl(vfd, VGEM_IOCTL_FENCE_ATTACH, &fa))
			die("vgem FENCE_ATTACH");
		t = now_ns();
		if (seqapi) {
			uint64_t queued;

			r = drmCrtcQueueSequence(fd, crtc_id, DRM_CRTC_SEQUENCE_RELATIVE, late ? 1 + late_by : 1, &queued, i);
		} else if (atomic) {
			drmModeAtomicReq *req = drmModeAtomicAlloc();

			drmModeAtomicAddProperty(req, plane_id, fb_prop, b->fb);
			r = drmModeAtomicCommit(fd, req, DRM_MODE_PAGE_FLIP_EVENT | DRM_MODE_ATOMIC_NONBLOCK, NULL);
			drmModeAtomicFree(req);
		} else {
			r = drmModePageFlip(fd, crtc_id, b->fb, DRM_MODE_PAGE_FLIP_EVENT, NULL);
		}
		t1 = now_ns();
		if (r)
			die(seqapi ? "CRTC_QUEUE_SEQUENCE" : atomic ? "atomic commit" : "PAGE_FLIP");
		if (late && !seqapi) {
			struct vgem_fence_signal fs = { .fence = fa.out_fence };

			sleep_until(t + period * late_by + period / 2);
			if (drmIoctl(vfd, VGEM_IOCTL_FENCE_SIGNAL, &fs))
				die("vgem FENCE_SIGNAL");
		}
		for (got = 0; !got;) {
			struct pollfd p = { .fd = fd, .events = POLLIN };

			if (poll(&p, 1, 5000) <= 0) {
				fprintf(stderr, "flipper: no flip event in 5 s\n");
				return 1;
			}
			drmHandleEvent(fd, &evctx);
		}
		completed++;
		scan_sum += ev_vt > t ? ev_vt - t : 0;
		/* its target: the first vblank after it was asked */
		{
			int m = 0;

			if (ref_vt && t > ref_vt) {
				unsigned int target = ref_seq + (unsigned int)((t - ref_vt) / period) + 1;

				m = (int)(ev_seq - target) > 0;
				missed += (unsigned long)m;
			}
			if (log) {
				int amb = ref_vt && t > ref_vt && (t - ref_vt) / period != (t1 - ref_vt) / period;
				char ms[4];

				snprintf(ms, sizeof(ms), amb ? "?" : "%d", m);
				printf("frame %lu seq %u missed %s scanout_ns %llu\n", i, ev_seq, ms,
				       (unsigned long long)(ev_vt > t ? ev_vt - t : 0));
				fflush(stdout);
			}
		}
		ref_seq = ev_seq;
		ref_vt = ev_vt;
		/* the next one 2 ms after this vblank, or after the next one to sit it out */
		sleep_until(ev_vt + 2000000ULL +
			    (skip_every && i % skip_every == skip_every - 1 ? period : 0));
	}
	printf("pid %d tid %ld crtc_index %u crtc_id %u refresh_mhz %llu\n", getpid(), (long)syscall(SYS_gettid),
	       crtc_index, crtc_id, (unsigned long long)(1000000000000ULL / period));
	printf("asked %lu completed %lu missed %lu scanout_sum_ns %llu scanout_mean_ns %llu\n", frames,
	       completed, missed, (unsigned long long)scan_sum,
	       (unsigned long long)(completed ? scan_sum / completed : 0));
	return 0;
}
