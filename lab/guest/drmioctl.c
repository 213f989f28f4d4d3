/*
 * drmioctl: issue a known number of real DRM ioctls on a DRM node, so a lab
 * scenario can check that a tracer counts and names them exactly.
 *
 *   drmioctl DEVICE [version=N] [dumb=N] [getres=N] [getcap=N] [expect=DRIVER]
 *            [repeat=N] [interval_ms=MS] [waitvbl=N]
 *
 * version: DRM_IOCTL_VERSION; dumb: DRM_IOCTL_MODE_CREATE_DUMB followed by
 * DRM_IOCTL_GEM_CLOSE of the new handle; getres: DRM_IOCTL_MODE_GETRESOURCES;
 * getcap: DRM_IOCTL_GET_CAP(DRM_CAP_DUMB_BUFFER) (getres and getcap fail on
 * vgem, which has no modesetting: errors are counted); waitvbl: DRM_IOCTL_WAIT_VBLANK
 * for the next vblank of CRTC 0, blocking in the ioctl until it comes (fails at
 * once unless some process keeps that CRTC lit). Raw ioctls, no libdrm, so
 * each request is exactly one system call. Prints one line per ioctl name:
 *   issued NAME CALLS ERRORS
 * and exits 1 if the driver name differs from expect= or a call that must
 * succeed fails. repeat= does the whole set N times (0: forever) on one
 * open file, sleeping interval_ms between sets.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <drm.h>
#include <drm_mode.h>

struct tally { const char *name; int calls, errors; };
static struct tally t_version = {.name = "DRM_IOCTL_VERSION"}, t_create = {.name = "DRM_IOCTL_MODE_CREATE_DUMB"},
		    t_close = {.name = "DRM_IOCTL_GEM_CLOSE"}, t_getres = {.name = "DRM_IOCTL_MODE_GETRESOURCES"},
		    t_getcap = {.name = "DRM_IOCTL_GET_CAP"}, t_waitvbl = {.name = "DRM_IOCTL_WAIT_VBLANK"};

static int call(int fd, unsigned long req, void *arg, struct tally *t)
{
	int r = ioctl(fd, req, arg);
	t->calls++;
	if (r < 0)
		t->errors++;
	return r;
}

int main(int argc, char **argv)
{
	long version = 0, dumb = 0, getres = 0, getcap = 0, waitvbl = 0;
	const char *expect = NULL;
	long repeat = 1, interval_ms = 0, r;
	int fd, i, rc = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: drmioctl DEVICE [version=N] [dumb=N] [getres=N] [getcap=N] [expect=DRIVER]\n");
		return 2;
	}
	for (i = 2; i < argc; i++) {
		char *v = strchr(argv[i], '=');
		if (!v) return 2;
		*v++ = 0;
		if (!strcmp(argv[i], "version")) version = atol(v);
		else if (!strcmp(argv[i], "dumb")) dumb = atol(v);
		else if (!strcmp(argv[i], "getres")) getres = atol(v);
		else if (!strcmp(argv[i], "getcap")) getcap = atol(v);
		else if (!strcmp(argv[i], "waitvbl")) waitvbl = atol(v);
		else if (!strcmp(argv[i], "expect")) expect = v;
		else if (!strcmp(argv[i], "repeat")) repeat = atol(v);
		else if (!strcmp(argv[i], "interval_ms")) interval_ms = atol(v);
		else return 2;
	}
	fd = open(argv[1], O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		perror(argv[1]);
		return 1;
	}
	for (r = 0; repeat == 0 || r < repeat; r++) {
	if (r && interval_ms)
		usleep(interval_ms * 1000);
	for (i = 0; i < version; i++) {
		char name[64] = "";
		struct drm_version ver = { .name = name, .name_len = sizeof(name) - 1 };
		if (call(fd, DRM_IOCTL_VERSION, &ver, &t_version) < 0) {
			perror("DRM_IOCTL_VERSION");
			rc = 1;
		} else if (i == 0 && r == 0 && expect && strcmp(name, expect)) {
			fprintf(stderr, "%s is driver '%s', not '%s'\n", argv[1], name, expect);
			rc = 1;
		}
	}
	for (i = 0; i < dumb; i++) {
		struct drm_mode_create_dumb cd = { .width = 64, .height = 64, .bpp = 32 };
		if (call(fd, DRM_IOCTL_MODE_CREATE_DUMB, &cd, &t_create) < 0) {
			perror("DRM_IOCTL_MODE_CREATE_DUMB");
			rc = 1;
			continue;
		}
		struct drm_gem_close gc = { .handle = cd.handle };
		if (call(fd, DRM_IOCTL_GEM_CLOSE, &gc, &t_close) < 0) {
			perror("DRM_IOCTL_GEM_CLOSE");
			rc = 1;
		}
	}
	for (i = 0; i < getres; i++) {
		struct drm_mode_card_res res;
		memset(&res, 0, sizeof(res));
		call(fd, DRM_IOCTL_MODE_GETRESOURCES, &res, &t_getres); /* fails on render-only drivers */
	}
	for (i = 0; i < getcap; i++) {
		struct drm_get_cap cap = { .capability = DRM_CAP_DUMB_BUFFER };
		call(fd, DRM_IOCTL_GET_CAP, &cap, &t_getcap); /* EOPNOTSUPP on vgem */
	}
	for (i = 0; i < waitvbl; i++) {
		union drm_wait_vblank vbl;
		memset(&vbl, 0, sizeof(vbl));
		vbl.request.type = _DRM_VBLANK_RELATIVE;
		vbl.request.sequence = 1;
		if (call(fd, DRM_IOCTL_WAIT_VBLANK, &vbl, &t_waitvbl) < 0) {
			perror("DRM_IOCTL_WAIT_VBLANK");
			rc = 1;
		}
	}
	}
	close(fd);
	struct tally *all[] = {&t_version, &t_create, &t_close, &t_getres, &t_getcap, &t_waitvbl};
	for (i = 0; i < 6; i++)
		if (all[i]->calls)
			printf("issued %s %d %d\n", all[i]->name, all[i]->calls, all[i]->errors);
	return rc;
}
