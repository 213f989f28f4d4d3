/* GPU/NPU device nodes: which majors and nodes to trace, and what each is. */
#ifndef XP_CORE_DEVICES_H
#define XP_CORE_DEVICES_H

#include <stdint.h>
#include <stdio.h>

/* What kind of device node a command was issued on: decides which tables apply. */
enum xp_dev_kind {
	XP_DEV_OTHER = 0,	/* anything else (e.g. a node added with --device) */
	XP_DEV_DRM,		/* /dev/dri/card*, renderD*; /dev/accel/accel* (DRM accel) */
	XP_DEV_NVIDIA,		/* /dev/nvidia0.., /dev/nvidiactl */
	XP_DEV_NVIDIA_UVM,	/* /dev/nvidia-uvm, /dev/nvidia-uvm-tools */
	XP_DEV_KFD,		/* /dev/kfd (amdkfd) */
};

#define XP_MAX_DEVNODES 256
#define XP_MAX_MAJORS 32

struct xp_major {
	uint32_t major;
	char name[32];		/* as /proc/devices lists it */
	enum xp_dev_kind kind;
};

struct xp_devnode {
	uint32_t dev;		/* kernel dev_t */
	char path[64];
	char driver[32];	/* bound driver, "" when unknown */
	enum xp_dev_kind kind;
};

struct xp_devices {
	struct xp_major majors[XP_MAX_MAJORS];	/* traced as a whole */
	int nmajors;
	struct xp_devnode nodes[XP_MAX_DEVNODES];
	int nnodes;
	uint32_t extra[64];	/* single nodes added with --device */
	int nextra;
};

/* The device kind a /proc/devices name stands for; XP_DEV_OTHER if not a GPU/NPU one. */
enum xp_dev_kind xp_major_kind(const char *name, int *traced);

/* Reads the "Character devices:" part of /proc/devices; keeps GPU/NPU majors. */
int xp_devices_parse_majors(struct xp_devices *d, FILE *proc_devices);

/*
 * Finds everything on this machine: majors from ROOT/proc/devices, nodes
 * under ROOT/dev/{dri,accel}, ROOT/dev/nvidia*, ROOT/dev/kfd, drivers from
 * ROOT/sys/dev/char. ROOT is "" for the real machine. Returns 0 or -errno.
 */
int xp_devices_scan(struct xp_devices *d, const char *root);

/* Adds one node (--device PATH); -ENOTTY when it is no character device. */
int xp_devices_add_path(struct xp_devices *d, const char *root, const char *path);

/*
 * DRM devices that drive displays: those with connectors in
 * ROOT/sys/class/drm ("card0-HDMI-A-1" belongs to card0). Writes their names,
 * comma-separated, to names and returns how many there are.
 */
int xp_display_devices(const char *root, char *names, size_t len);

/* The node for a kernel dev_t, or NULL. */
const struct xp_devnode *xp_devices_find(const struct xp_devices *d, uint32_t dev);

/* Driver name sysfs shows for a char device ("" if none). */
void xp_devices_driver(const char *root, uint32_t major, uint32_t minor, char *buf, size_t len);

/* What the tool knows of a dev_t: kind, driver and a printable name. */
struct xp_devdesc {
	enum xp_dev_kind kind;
	const char *driver;	/* "" when unknown */
	char name[64];		/* the node's path, or "char MAJ:MIN" */
};
void xp_devices_describe(const struct xp_devices *d, uint32_t dev, struct xp_devdesc *out);

/*
 * Resolves --cgroup PATH to its cgroup v2 id (the directory's inode number,
 * which bpf_get_current_cgroup_id returns). -ENOTDIR: not a directory;
 * -EMEDIUMTYPE: a directory outside a cgroup2 file system (a cgroup v1
 * hierarchy's ids mean nothing to the kernel side); -errno otherwise.
 */
int xp_cgroup_id(const char *path, uint64_t *id);
/*
 * The same with the reason said: 0 and the id, or -errno and one line in
 * `why` (without the path: the caller prefixes "--cgroup PATH: "). Refused:
 * NULL or "" (-EINVAL), a missing path (-ENOENT), a non-directory
 * (-ENOTDIR), a cgroup v1 hierarchy or any other file system (-EMEDIUMTYPE).
 */
int xp_cgroup2_id(const char *path, uint64_t *id, char *why, size_t len);

#endif
