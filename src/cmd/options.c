#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmds.h"
#include "cmd/options.h"
#include "core/parse.h"
#include "shared/record.h"

int xp_live_opt(struct xp_live_opts *o, const char *verb, int c, char **argv)
{
	uint64_t v;

	switch (c) {
	case 'd':
		if (xp_parse_seconds(optarg, &o->duration_s))
			return xp_fail(2, "%s: --duration wants a positive number of seconds, not '%s'", verb, optarg);
		return 0;
	case 'i':
		if (xp_parse_seconds(optarg, &o->interval_s))
			return xp_fail(2, "%s: --interval wants a positive number of seconds, not '%s'", verb, optarg);
		return 0;
	case XP_OPT_STREAM: o->stream = true; return 0;
	case 'j': o->json = true; return 0;
	case 'v': o->verbose = true; return 0;
	case XP_OPT_DEVICE:
		if (o->ndevices >= (int)(sizeof(o->devices) / sizeof(o->devices[0])))
			return xp_fail(2, "%s: too many --device options", verb);
		o->devices[o->ndevices++] = optarg;
		return 0;
	case 'p':
		if (xp_parse_u64(optarg, 1, 0x7fffffff, &v))
			return xp_fail(2, "%s: --pid wants a process id, not '%s'", verb, optarg);
		o->f.pid = (uint32_t)v;
		return 0;
	case 'c':
		if (strlen(optarg) >= XP_COMM_LEN)
			return xp_fail(2, "%s: --comm '%s' is longer than a task name (15 characters)", verb, optarg);
		o->f.comm = optarg;
		return 0;
	case 'G': o->cgroup = optarg; return 0;
	case ':': return xp_fail(2, "%s: %s needs a value", verb, argv[optind - 1]);
	case '?':
		return xp_fail(2, "%s: unknown option '%s'; see 'xputrace %s --help'", verb, argv[optind - 1], verb);
	default: return 1;
	}
}

int xp_live_targets(struct xp_live_opts *o, const char *verb, struct xp_devices *d)
{
	int err = xp_devices_scan(d, "");

	if (err)
		return xp_fail(1, "%s: reading /proc/devices: %s", verb, strerror(-err));
	for (int i = 0; i < o->ndevices; i++) {
		err = xp_devices_add_path(d, "", o->devices[i]);
		if (err)
			return xp_fail(2, "%s: --device %s: %s", verb, o->devices[i],
				       err == -ENOTTY ? "not a character device" : strerror(-err));
	}
	if (o->cgroup && (err = xp_cgroup_id(o->cgroup, &o->f.cgroup_id)))
		return xp_fail(2, "%s: --cgroup %s: %s", verb, o->cgroup,
			       err == -ENOTDIR ? "not a cgroup directory" : strerror(-err));
	return 0;
}

void xp_warn_no_devices(const char *verb, const struct xp_devices *d)
{
	if (!d->nmajors && !d->nextra)
		fprintf(stderr, "xputrace: %s: no GPU/NPU device majors on this machine (drm, accel, nvidia*, kfd); "
				"nothing to trace unless --device names a node\n", verb);
}
