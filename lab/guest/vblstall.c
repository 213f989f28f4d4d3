/*
 * vblstall: light up the first connected output of a KMS device and wait
 * for vblank events one at a time, optionally stalling on purpose, so that
 * a tracer's refresh rate and missed-frame counts can be checked against
 * what this program itself saw. Raw ioctls only (no libdrm functions).
 *
 *   vblstall DEVICE frames=N [stall_at=K stall_ms=MS]
 *
 * Each frame: DRM_IOCTL_WAIT_VBLANK for an event at the next vblank
 * (relative 1), then read the event back. After the K-th event it sleeps
 * MS before asking again, so the events it gets skip vblanks. It runs as a
 * real-time task where it may, so that "keeping up" does not depend on what
 * else the guest's one CPU is doing (the tracer among it). Prints:
 *   mode WxH clock KHZ htotal H vtotal V refresh_mhz R crtc_index I
 *   events N requests N
 *   seq FIRST LAST
 *   missed M            (sequence numbers skipped between its events)
 *   pid P
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
#include <unistd.h>
#include <drm.h>
#include <drm_mode.h>

static int fd;

static int xioctl(unsigned long req, void *arg)
{
	int r;

	do
		r = ioctl(fd, req, arg);
	while (r == -1 && (errno == EINTR || errno == EAGAIN));
	return r;
}

static void die(const char *what)
{
	fprintf(stderr, "vblstall: %s: %s\n", what, strerror(errno));
	exit(1);
}

static unsigned long arg(int argc, char **argv, const char *key, unsigned long dflt)
{
	size_t n = strlen(key);

	for (int i = 2; i < argc; i++)
		if (!strncmp(argv[i], key, n) && argv[i][n] == '=')
			return strtoul(argv[i] + n + 1, NULL, 10);
	return dflt;
}

int main(int argc, char **argv)
{
	struct drm_mode_card_res res = { 0 };
	struct drm_mode_get_connector conn = { 0 };
	struct drm_mode_get_encoder enc = { 0 };
	struct drm_mode_create_dumb dumb = { 0 };
	struct drm_mode_fb_cmd fb = { 0 };
	struct drm_mode_crtc crtc = { 0 };
	struct drm_mode_modeinfo *modes;
	uint32_t *crtcs, *conns, *encs, connid = 0;
	unsigned long frames, stall_at, stall_ms, missed = 0, events = 0;
	unsigned int first = 0, prev = 0, crtc_index = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: vblstall DEVICE frames=N [stall_at=K stall_ms=MS] [follower=1 [crtc=N]]\n");
		return 2;
	}
	struct sched_param sp = { .sched_priority = 10 };
	if (sched_setscheduler(0, SCHED_FIFO, &sp))
		fprintf(stderr, "vblstall: not a real-time task: %s\n", strerror(errno));
	frames = arg(argc, argv, "frames", 60);
	stall_at = arg(argc, argv, "stall_at", 0);
	stall_ms = arg(argc, argv, "stall_ms", 0);
	fd = open(argv[1], O_RDWR | O_CLOEXEC);
	if (fd < 0)
		die(argv[1]);
	/*
	 * follower=1: another client of a display a master has lit; it only
	 * waits for vblanks on CRTC index crtc=N (default 0), as a second
	 * program on the same card does.
	 */
	if (arg(argc, argv, "follower", 0)) {
		crtc_index = (unsigned int)arg(argc, argv, "crtc", 0);
		printf("follower crtc_index %u\n", crtc_index);
		goto wait;
	}
	if (xioctl(DRM_IOCTL_SET_MASTER, NULL))
		die("SET_MASTER");
	if (xioctl(DRM_IOCTL_MODE_GETRESOURCES, &res))
		die("GETRESOURCES");
	crtcs = calloc(res.count_crtcs + 1, 4);
	conns = calloc(res.count_connectors + 1, 4);
	encs = calloc(res.count_encoders + 1, 4);
	res.crtc_id_ptr = (uintptr_t)crtcs;
	res.connector_id_ptr = (uintptr_t)conns;
	res.encoder_id_ptr = (uintptr_t)encs;
	res.fb_id_ptr = 0;
	res.count_fbs = 0;
	if (xioctl(DRM_IOCTL_MODE_GETRESOURCES, &res))
		die("GETRESOURCES");
	for (uint32_t i = 0; i < res.count_connectors && !connid; i++) {
		memset(&conn, 0, sizeof(conn));
		conn.connector_id = conns[i];
		if (xioctl(DRM_IOCTL_MODE_GETCONNECTOR, &conn))
			die("GETCONNECTOR");
		if (conn.connection == 1 && conn.count_modes)
			connid = conns[i];
	}
	if (!connid) {
		fprintf(stderr, "vblstall: no connected output\n");
		return 1;
	}
	modes = calloc(conn.count_modes, sizeof(*modes));
	encs = realloc(encs, (conn.count_encoders + 1) * 4);
	{
		uint32_t nmodes = conn.count_modes, nenc = conn.count_encoders;

		memset(&conn, 0, sizeof(conn));
		conn.connector_id = connid;
		conn.count_modes = nmodes;
		conn.modes_ptr = (uintptr_t)modes;
		conn.count_encoders = nenc;
		conn.encoders_ptr = (uintptr_t)encs;
		if (xioctl(DRM_IOCTL_MODE_GETCONNECTOR, &conn))
			die("GETCONNECTOR");
	}
	enc.encoder_id = conn.encoder_id ? conn.encoder_id : encs[0];
	if (xioctl(DRM_IOCTL_MODE_GETENCODER, &enc))
		die("GETENCODER");
	/* the CRTC: the encoder's, else the first it can drive; its index is the vblank pipe */
	for (uint32_t i = 0; i < res.count_crtcs; i++)
		if (enc.crtc_id ? crtcs[i] == enc.crtc_id : (enc.possible_crtcs & (1u << i))) {
			crtc_index = i;
			break;
		}
	dumb.width = modes[0].hdisplay;
	dumb.height = modes[0].vdisplay;
	dumb.bpp = 32;
	if (xioctl(DRM_IOCTL_MODE_CREATE_DUMB, &dumb))
		die("CREATE_DUMB");
	fb.width = dumb.width;
	fb.height = dumb.height;
	fb.pitch = dumb.pitch;
	fb.bpp = 32;
	fb.depth = 24;
	fb.handle = dumb.handle;
	if (xioctl(DRM_IOCTL_MODE_ADDFB, &fb))
		die("ADDFB");
	crtc.crtc_id = crtcs[crtc_index];
	crtc.fb_id = fb.fb_id;
	crtc.set_connectors_ptr = (uintptr_t)&connid;
	crtc.count_connectors = 1;
	crtc.mode = modes[0];
	crtc.mode_valid = 1;
	if (xioctl(DRM_IOCTL_MODE_SETCRTC, &crtc))
		die("SETCRTC");
	printf("mode %ux%u clock %u htotal %u vtotal %u refresh_mhz %llu crtc_index %u\n",
	       modes[0].hdisplay, modes[0].vdisplay, modes[0].clock, modes[0].htotal, modes[0].vtotal,
	       (unsigned long long)modes[0].clock * 1000000ULL / ((unsigned long long)modes[0].htotal * modes[0].vtotal),
	       crtc_index);
wait:
	for (unsigned long f = 0; f < frames; f++) {
		union drm_wait_vblank vbl = { 0 };
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char buf[1024];
		ssize_t n;

		vbl.request.type = _DRM_VBLANK_RELATIVE | _DRM_VBLANK_EVENT |
				   ((crtc_index << _DRM_VBLANK_HIGH_CRTC_SHIFT) & _DRM_VBLANK_HIGH_CRTC_MASK);
		if (crtc_index == 1)
			vbl.request.type |= _DRM_VBLANK_SECONDARY;
		vbl.request.sequence = 1;
		vbl.request.signal = f;
		if (xioctl(DRM_IOCTL_WAIT_VBLANK, &vbl))
			die("WAIT_VBLANK");
		if (poll(&p, 1, 2000) != 1) {
			fprintf(stderr, "vblstall: no vblank event within 2 s\n");
			return 1;
		}
		n = read(fd, buf, sizeof(buf));
		for (ssize_t off = 0; off + (ssize_t)sizeof(struct drm_event) <= n;) {
			struct drm_event *e = (struct drm_event *)(buf + off);

			if (e->type == DRM_EVENT_VBLANK) {
				struct drm_event_vblank *v = (struct drm_event_vblank *)e;

				if (events && v->sequence > prev + 1)
					missed += v->sequence - prev - 1;
				if (!events)
					first = v->sequence;
				prev = v->sequence;
				events++;
			}
			off += e->length ? e->length : n;
		}
		if (stall_at && events == stall_at)
			usleep(stall_ms * 1000);
	}
	printf("events %lu requests %lu\nseq %u %u\nmissed %lu\npid %d\n", events, frames, first, prev,
	       missed, (int)getpid());
	return 0;
}
