/*
 * vblank: light up the first connected output of a KMS device (vkms in the
 * lab) and drive real vblank and page-flip events through it.
 *
 *   vblank DEVICE [waits=N] [flips=N]
 *
 * Sets a mode with a dumb framebuffer, then: waits=N drmWaitVBlank
 * requests for an event at the next vblank, one at a time, each event read
 * back (drm_vblank_event_queued, then _delivered); flips=N page flips with
 * DRM_MODE_PAGE_FLIP_EVENT, each event read back (_delivered). Every vblank
 * while they run fires drm_vblank_event. Prints what it did:
 *   mode WxH@HZ crtc ID index I / waits N / flips N / seq FIRST LAST
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

static unsigned int flips_done, vbl_done, first_seq, last_seq;

static void on_vblank(int fd, unsigned int seq, unsigned int s, unsigned int us, void *data)
{
	(void)fd; (void)s; (void)us; (void)data;
	if (!vbl_done++)
		first_seq = seq;
	last_seq = seq;
}

static int wait_events(int fd, drmEventContext *ev, unsigned int *done, unsigned int want)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	while (*done < want) {
		if (poll(&p, 1, 2000) <= 0) {
			fprintf(stderr, "event timeout\n");
			return -1;
		}
		drmHandleEvent(fd, ev);
	}
	return 0;
}

static void on_flip(int fd, unsigned int seq, unsigned int s, unsigned int us, void *data)
{
	(void)fd; (void)s; (void)us; (void)data;
	flips_done++;
	last_seq = seq;
}

int main(int argc, char **argv)
{
	long waits = 10, flips = 10, i;
	int fd, crtc_index = -1;

	if (argc < 2) {
		fprintf(stderr, "usage: vblank DEVICE [waits=N] [flips=N]\n");
		return 2;
	}
	for (i = 2; i < argc; i++) {
		if (!strncmp(argv[i], "waits=", 6)) waits = atol(argv[i] + 6);
		else if (!strncmp(argv[i], "flips=", 6)) flips = atol(argv[i] + 6);
		else return 2;
	}
	fd = open(argv[1], O_RDWR | O_CLOEXEC);
	if (fd < 0) { perror(argv[1]); return 1; }
	drmModeRes *res = drmModeGetResources(fd);
	if (!res) { perror("drmModeGetResources"); return 1; }
	drmModeConnector *conn = NULL;
	for (i = 0; i < res->count_connectors; i++) {
		conn = drmModeGetConnector(fd, res->connectors[i]);
		if (conn && conn->connection == DRM_MODE_CONNECTED && conn->count_modes > 0)
			break;
		drmModeFreeConnector(conn);
		conn = NULL;
	}
	if (!conn) { fprintf(stderr, "no connected output\n"); return 1; }
	drmModeModeInfo mode = conn->modes[0];
	drmModeEncoder *enc = drmModeGetEncoder(fd, conn->encoder_id ? conn->encoder_id : conn->encoders[0]);
	uint32_t crtc_id = 0;
	for (i = 0; i < res->count_crtcs; i++) {
		if (enc && (enc->possible_crtcs & (1u << i))) {
			crtc_id = res->crtcs[i];
			crtc_index = (int)i;
			break;
		}
	}
	if (!crtc_id) { fprintf(stderr, "no crtc\n"); return 1; }

	uint32_t fb[2], handle[2], pitch[2];
	for (i = 0; i < 2; i++) {
		uint64_t size;
		if (drmModeCreateDumbBuffer(fd, mode.hdisplay, mode.vdisplay, 32, 0, &handle[i], &pitch[i], &size) ||
		    drmModeAddFB(fd, mode.hdisplay, mode.vdisplay, 24, 32, pitch[i], handle[i], &fb[i])) {
			perror("dumb framebuffer");
			return 1;
		}
	}
	if (drmModeSetCrtc(fd, crtc_id, fb[0], 0, 0, &conn->connector_id, 1, &mode)) {
		perror("drmModeSetCrtc");
		return 1;
	}
	printf("mode %dx%d@%d crtc %u index %d\n", mode.hdisplay, mode.vdisplay, mode.vrefresh, crtc_id, crtc_index);
	fflush(stdout);	/* a demo waits for it before starting other clients */

	drmEventContext ev = { .version = 2, .vblank_handler = on_vblank, .page_flip_handler = on_flip };
	for (i = 0; i < waits; i++) {
		drmVBlank vb;
		memset(&vb, 0, sizeof(vb));
		vb.request.type = DRM_VBLANK_RELATIVE | DRM_VBLANK_EVENT |
				  (crtc_index > 1 ? (crtc_index << DRM_VBLANK_HIGH_CRTC_SHIFT) :
				   crtc_index == 1 ? DRM_VBLANK_SECONDARY : 0);
		vb.request.sequence = 1;
		if (drmWaitVBlank(fd, &vb)) { perror("drmWaitVBlank"); return 1; }
		if (wait_events(fd, &ev, &vbl_done, (unsigned)i + 1))
			return 1;
	}
	printf("waits %u\n", vbl_done);
	for (i = 0; i < flips; i++) {
		if (drmModePageFlip(fd, crtc_id, fb[(i + 1) % 2], DRM_MODE_PAGE_FLIP_EVENT, NULL)) {
			perror("drmModePageFlip");
			return 1;
		}
		if (wait_events(fd, &ev, &flips_done, (unsigned)i + 1))
			return 1;
	}
	printf("flips %u\nseq %u %u\n", flips_done, first_seq, last_seq);
	return 0;
}
