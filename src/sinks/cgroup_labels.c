/* The metrics sink's labels of a cgroup, from what core/cgroups.c reads. */
#include <stdbool.h>
#include <stddef.h>

#include "core/cgroups.h"
#include "sinks/cgroup_labels.h"
#include "sinks/metrics.h"

bool xp_cgroup_labels(const char *path, const char *logs, char *buf, size_t len)
{
	struct xp_cgroup_info ci;
	struct xp_k8s_names k;
	bool names;

	xp_cgroup_parse(path, &ci);
	xp_labels_add(buf, len, "cgroup", path);
	if (ci.container_id[0])
		xp_labels_add(buf, len, "container_id", ci.container_id);
	if (ci.pod_uid[0])
		xp_labels_add(buf, len, "pod_uid", ci.pod_uid);
	if (ci.unit[0])
		xp_labels_add(buf, len, "systemd_unit", ci.unit);
	/* a path that names a container or a pod: its names, where the kubelet logs them */
	if (!ci.container_id[0] && !ci.pod_uid[0])
		return true;
	names = xp_k8s_names(logs, &ci, &k);
	if (names) {
		xp_labels_add(buf, len, "namespace", k.ns);
		xp_labels_add(buf, len, "pod", k.pod);
		if (k.container[0])
			xp_labels_add(buf, len, "container", k.container);
	}
	/* a container known by its pod only may be logged later */
	return !logs || (names && (k.container[0] || !ci.container_id[0]));
}

static bool render_labels(const char *path, void *logs, char *buf, size_t len)
{
	return xp_cgroup_labels(path, logs, buf, len);
}

const char *xp_cgroup_cache_labels(struct xp_cgroup_cache *c, uint64_t id, const char *logs,
				   uint64_t now_ns)
{
	return xp_cgroup_cache_text(c, id, now_ns, render_labels, (void *)logs);
}
