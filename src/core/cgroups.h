/*
 * Cgroup v2 ids as the kernel side records them (bpf_get_current_cgroup_id),
 * turned into paths and what the paths say: the container, the Kubernetes
 * pod, the systemd unit. No libbpf.
 */
#ifndef XP_CORE_CGROUPS_H
#define XP_CORE_CGROUPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* What a cgroup path names; "" for what it does not. */
struct xp_cgroup_info {
	char container_id[65];	/* docker, containerd (cri-containerd, nerdctl), cri-o, podman */
	char pod_uid[37];	/* kubepods: the pod's UID, with dashes */
	char unit[128];		/* the deepest .service or .scope */
};

/* Reads `path` ("/kubepods.slice/.../cri-containerd-<id>.scope") into `out`. */
void xp_cgroup_parse(const char *path, struct xp_cgroup_info *out);

/*
 * Kubernetes names of a cgroup's container or pod, from the files the
 * kubelet keeps for a node's log collectors under `logs` (/var/log): a link
 * containers/<pod>_<namespace>_<container>-<container id>.log for each
 * container, a directory pods/<namespace>_<pod>_<pod UID> for each pod.
 * Fills what it finds (by the container id, else by the pod UID) and
 * returns whether it found the pod.
 */
struct xp_k8s_names {
	char ns[64];		/* a DNS label: at most 63 */
	char pod[254];		/* a DNS subdomain: at most 253 */
	char container[64];	/* "" where only the pod is known */
};
bool xp_k8s_names(const char *logs, const struct xp_cgroup_info *ci, struct xp_k8s_names *out);

/*
 * Ids to paths, cached: an id not yet known walks the cgroup2 tree (a
 * directory's inode number is its cgroup id) and keeps every directory
 * found, so a walk happens only when a cgroup made since the last one is
 * seen. An id still not found (its cgroup gone already) is remembered as
 * unknown. Bounded: past XP_CGROUP_CACHE_MAX entries the cache starts over.
 */
/* Where the cgroup2 file system is mounted (/proc/self/mounts), allocated; NULL: nowhere. */
char *xp_cgroup2_mount(void);

#define XP_CGROUP_CACHE_MAX 65536
struct xp_cgroup_cache;
/* root: the cgroup2 mount (NULL: found in /proc/self/mounts). NULL when out of memory. */
struct xp_cgroup_cache *xp_cgroup_cache_new(const char *root);
/* The path below the root ("/" for the root itself), or NULL when unknown. */
const char *xp_cgroup_cache_path(struct xp_cgroup_cache *c, uint64_t id);
/* Walks done so far (tests see the cache at work). */
uint64_t xp_cgroup_cache_walks(const struct xp_cgroup_cache *c);
/*
 * A text made of an id's path ("(unknown)" where it has none) by
 * render(path, ctx, buf, len), rendered once and kept with the path, so
 * that what the caller makes of a known cgroup (the metrics sink's labels:
 * sinks/cgroup_labels.h) reads no directory again. A render that returns
 * false (names not found yet) is tried again once XP_CGROUP_NAMES_RETRY_NS
 * has passed (now_ns: CLOCK_MONOTONIC). NULL for id 0 or when out of
 * memory; valid until the next call.
 */
#define XP_CGROUP_NAMES_RETRY_NS (10ull * 1000000000ull)
typedef bool (*xp_cgroup_render_fn)(const char *path, void *ctx, char *buf, size_t len);
const char *xp_cgroup_cache_text(struct xp_cgroup_cache *c, uint64_t id, uint64_t now_ns,
				 xp_cgroup_render_fn render, void *ctx);
void xp_cgroup_cache_free(struct xp_cgroup_cache *c);

/*
 * Processes to their cgroup v2 ids, for metrics of events whose records carry
 * no cgroup id (or only some do): the id the kernel side recorded when an event
 * of that process carried one, else the last one seen, else read from
 * /proc/PID/cgroup. A small table by pid, overwritten on collisions: a
 * process that ended before its first event was read has no id (0).
 */
#define XP_PID_CGROUPS 1024
struct xp_pid_cgroups {
	char *root;	/* the cgroup2 mount, NULL: none */
	struct { uint32_t pid; uint64_t id; } slot[XP_PID_CGROUPS];
};
void xp_pid_cgroups_init(struct xp_pid_cgroups *c);
void xp_pid_cgroups_free(struct xp_pid_cgroups *c);
/* pid's cgroup id: `known` (non-zero) when the event carried it, which is kept. */
uint64_t xp_pid_cgroup(struct xp_pid_cgroups *c, uint32_t pid, uint64_t known);

#endif
