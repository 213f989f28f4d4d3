#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "core/devices.h"

#define XP_CGROUP2_MAGIC 0x63677270UL	/* CGROUP2_SUPER_MAGIC, include/uapi/linux/magic.h */
#define XP_CGROUP1_MAGIC 0x27e0ebUL	/* CGROUP_SUPER_MAGIC: a v1 hierarchy */
#include "shared/record.h"

enum xp_dev_kind xp_major_kind(const char *name, int *traced)
{
	*traced = 1;
	if (!strcmp(name, "drm") || !strcmp(name, "accel"))
		return XP_DEV_DRM;
	if (!strncmp(name, "nvidia-uvm", 10))
		return XP_DEV_NVIDIA_UVM;
	if (!strncmp(name, "nvidia", 6))
		return XP_DEV_NVIDIA;
	if (!strcmp(name, "kfd"))
		return XP_DEV_KFD;
	*traced = 0;
	return XP_DEV_OTHER;
}

int xp_devices_parse_majors(struct xp_devices *d, FILE *f)
{
	char line[256], name[32];
	int in_char = 0;
	unsigned int major;

	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "Character devices:", 18)) {
			in_char = 1;
			continue;
		}
		if (!strncmp(line, "Block devices:", 14))
			in_char = 0;
		if (!in_char || sscanf(line, "%u %31s", &major, name) != 2)
			continue;
		int traced;
		enum xp_dev_kind kind = xp_major_kind(name, &traced);

		if (!traced || d->nmajors >= XP_MAX_MAJORS)
			continue;
		d->majors[d->nmajors].major = major;
		snprintf(d->majors[d->nmajors].name, sizeof(d->majors[0].name), "%s", name);
		d->majors[d->nmajors].kind = kind;
		d->nmajors++;
	}
	return 0;
}

void xp_devices_driver(const char *root, uint32_t major, uint32_t minor, char *buf, size_t len)
{
	char path[PATH_MAX], target[PATH_MAX];
	ssize_t n;

	buf[0] = '\0';
	snprintf(path, sizeof(path), "%s/sys/dev/char/%u:%u/device/driver", root, major, minor);
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return;
	target[n] = '\0';
	const char *base = strrchr(target, '/');
	snprintf(buf, len, "%s", base ? base + 1 : target);
}

static const struct xp_major *find_major(const struct xp_devices *d, uint32_t major)
{
	for (int i = 0; i < d->nmajors; i++)
		if (d->majors[i].major == major)
			return &d->majors[i];
	return NULL;
}

/* Default driver names for nodes whose sysfs entry names none. */
static const char *kind_driver(enum xp_dev_kind kind)
{
	switch (kind) {
	case XP_DEV_NVIDIA: return "nvidia";
	case XP_DEV_NVIDIA_UVM: return "nvidia-uvm";
	case XP_DEV_KFD: return "amdkfd";
	default: return "";
	}
}

/* struct drm_version and DRM_IOCTL_VERSION, from the DRM uapi (drm.h) */
struct xp_drm_version {
	int version_major, version_minor, version_patchlevel;
	size_t name_len;
	char *name;
	size_t date_len;
	char *date;
	size_t desc_len;
	char *desc;
};
#define XP_DRM_IOCTL_VERSION _IOWR('d', 0x00, struct xp_drm_version)

/*
 * The driver name a DRM node reports itself, as libdrm's drmGetVersion asks
 * it. sysfs is no substitute: virtual devices (vkms, vgem) are bound to no
 * driver or to "faux_driver", and platform GPUs to a platform driver whose
 * name may differ from the DRM driver's (msm). Any node answers, render
 * nodes included.
 */
static void drm_version_name(const char *node, char *buf, size_t len)
{
	struct xp_drm_version v;
	int fd = open(node, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

	if (fd < 0)
		return;
	memset(&v, 0, sizeof(v));
	v.name = buf;
	v.name_len = len - 1;
	if (ioctl(fd, XP_DRM_IOCTL_VERSION, &v) == 0)
		buf[v.name_len < len ? v.name_len : len - 1] = '\0';
	else
		buf[0] = '\0';
	close(fd);
}

static int add_node(struct xp_devices *d, const char *root, const char *path,
		    enum xp_dev_kind kind)
{
	char full[PATH_MAX];
	struct stat st;
	uint32_t kdev;

	snprintf(full, sizeof(full), "%s%s", root, path);
	if (stat(full, &st))
		return -errno;
	if (!S_ISCHR(st.st_mode))
		return -ENOTTY;
	kdev = XP_KDEV(major(st.st_rdev), minor(st.st_rdev));
	if (xp_devices_find(d, kdev))
		return 0;
	if (d->nnodes >= XP_MAX_DEVNODES)
		return -ENOSPC;
	struct xp_devnode *n = &d->nodes[d->nnodes++];
	const struct xp_major *m = find_major(d, major(st.st_rdev));

	n->dev = kdev;
	n->kind = m ? m->kind : kind;
	snprintf(n->path, sizeof(n->path), "%s", path);
	/* a DRM node's own name for its driver is what the ioctl tables go by */
	if (n->kind == XP_DEV_DRM)
		drm_version_name(full, n->driver, sizeof(n->driver));
	if (!n->driver[0])
		xp_devices_driver(root, major(st.st_rdev), minor(st.st_rdev), n->driver, sizeof(n->driver));
	if (!n->driver[0])
		snprintf(n->driver, sizeof(n->driver), "%s", kind_driver(n->kind));
	return 0;
}

static void scan_dir(struct xp_devices *d, const char *root, const char *dir, const char *prefix)
{
	char full[PATH_MAX], path[PATH_MAX];
	struct dirent *e;
	DIR *dh;

	snprintf(full, sizeof(full), "%s%s", root, dir);
	dh = opendir(full);
	if (!dh)
		return;
	while ((e = readdir(dh))) {
		if (e->d_name[0] == '.' || (prefix && strncmp(e->d_name, prefix, strlen(prefix))))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		add_node(d, root, path, XP_DEV_OTHER);
	}
	closedir(dh);
}

int xp_devices_scan(struct xp_devices *d, const char *root)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/proc/devices", root);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	xp_devices_parse_majors(d, f);
	fclose(f);
	scan_dir(d, root, "/dev/dri", NULL);
	scan_dir(d, root, "/dev/accel", NULL);
	scan_dir(d, root, "/dev", "nvidia");
	scan_dir(d, root, "/dev", "kfd");
	return 0;
}

int xp_devices_add_path(struct xp_devices *d, const char *root, const char *path)
{
	char full[PATH_MAX];
	struct stat st;
	int err;

	snprintf(full, sizeof(full), "%s%s", root, path);
	if (stat(full, &st))
		return -errno;
	if (!S_ISCHR(st.st_mode))
		return -ENOTTY;
	if (d->nextra >= (int)(sizeof(d->extra) / sizeof(d->extra[0])))
		return -ENOSPC;
	err = add_node(d, root, path, XP_DEV_OTHER);
	if (err)
		return err;
	d->extra[d->nextra++] = XP_KDEV(major(st.st_rdev), minor(st.st_rdev));
	return 0;
}

const struct xp_devnode *xp_devices_find(const struct xp_devices *d, uint32_t dev)
{
	for (int i = 0; i < d->nnodes; i++)
		if (d->nodes[i].dev == dev)
			return &d->nodes[i];
	return NULL;
}

void xp_devices_describe(const struct xp_devices *d, uint32_t dev, struct xp_devdesc *out)
{
	const struct xp_devnode *n = xp_devices_find(d, dev);
	const struct xp_major *m;

	if (n) {
		out->kind = n->kind;
		out->driver = n->driver;
		snprintf(out->name, sizeof(out->name), "%s", n->path);
		return;
	}
	m = find_major(d, XP_KDEV_MAJOR(dev));
	out->kind = m ? m->kind : XP_DEV_OTHER;
	out->driver = m ? kind_driver(m->kind) : "";
	snprintf(out->name, sizeof(out->name), "char %u:%u", XP_KDEV_MAJOR(dev), XP_KDEV_MINOR(dev));
}

int xp_display_devices(const char *root, char *names, size_t len)
{
	char path[PATH_MAX], seen[16][16];
	struct dirent *e;
	int n = 0;
	DIR *d;

	if (len)
		names[0] = '\0';
	snprintf(path, sizeof(path), "%s/sys/class/drm", root);
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d)) && n < 16) {
		unsigned int card;
		int end = 0, known = 0;

		/* a connector: "card<N>-<name>" */
		if (sscanf(e->d_name, "card%u%n", &card, &end) != 1 || e->d_name[end] != '-')
			continue;
		for (int i = 0; i < n; i++)
			known |= strncmp(seen[i], e->d_name, (size_t)end) == 0 && seen[i][end] == '\0';
		if (known || end >= (int)sizeof(seen[0]))
			continue;
		memcpy(seen[n], e->d_name, (size_t)end);
		seen[n][end] = '\0';
		n++;
	}
	closedir(d);
	for (int i = 0; i < n; i++) {
		size_t used = strlen(names);

		if (used + 1 < len)
			snprintf(names + used, len - used, "%s%s", i ? ", " : "", seen[i]);
	}
	return n;
}

int xp_cgroup_id(const char *path, uint64_t *id)
{
	char why[160];

	return xp_cgroup2_id(path, id, why, sizeof(why));
}

int xp_cgroup2_id(const char *path, uint64_t *id, char *why, size_t len)
{
	struct statfs fs;
	struct stat st;
	int err;

	if (!path || !*path) {
		/* "" would stat as ENOENT: say what was wrong with the argument itself */
		snprintf(why, len, "an empty path names no cgroup; give a cgroup v2 directory");
		return -EINVAL;
	}
	if (stat(path, &st) || statfs(path, &fs)) {
		err = -errno;
		snprintf(why, len, "%s", strerror(-err));
		return err;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, len, "not a directory (a cgroup is a directory of the cgroup2 file system)");
		return -ENOTDIR;
	}
	if ((unsigned long)fs.f_type == XP_CGROUP1_MAGIC) {
		/* its inode numbers are not the ids bpf_get_current_cgroup_id returns */
		snprintf(why, len, "not a cgroup v2 directory but a cgroup v1 one, whose ids cannot be matched "
				   "(use the unified hierarchy, e.g. under /sys/fs/cgroup or /sys/fs/cgroup/unified)");
		return -EMEDIUMTYPE;
	}
	if ((unsigned long)fs.f_type != XP_CGROUP2_MAGIC) {
		snprintf(why, len, "not a cgroup v2 directory (the cgroup2 file system, e.g. under /sys/fs/cgroup)");
		return -EMEDIUMTYPE;
	}
	/* on cgroup2 the directory's inode number is its kernfs id, the cgroup id */
	*id = st.st_ino;
	return 0;
}
