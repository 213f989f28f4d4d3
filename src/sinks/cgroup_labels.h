/*
 * The metrics sink's labels of a cgroup: what its path names (core/cgroups.h
 * reads the path), rendered as Prometheus labels with xp_labels_add.
 */
#ifndef XP_SINKS_CGROUP_LABELS_H
#define XP_SINKS_CGROUP_LABELS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/cgroups.h"

/*
 * The labels of a cgroup path, appended to buf (sinks/metrics.h's
 * xp_labels_add): cgroup, and container_id, pod_uid, systemd_unit where
 * the path names them; namespace, pod and container where the kubelet's
 * logs under `logs` name them (NULL: not looked for). False where the path
 * names a container or pod whose names were looked for and not found (the
 * kubelet may not have logged it yet).
 */
bool xp_cgroup_labels(const char *path, const char *logs, char *buf, size_t len);

/*
 * The labels of an id (xp_cgroup_labels of its path, "(unknown)" where it has
 * none), kept by the cache with its path (xp_cgroup_cache_text), so that a
 * new series of a known cgroup reads no directory: names not found are
 * looked for again once XP_CGROUP_NAMES_RETRY_NS has passed (now_ns:
 * CLOCK_MONOTONIC). NULL for id 0 or when out of memory; valid until the
 * next call.
 */
const char *xp_cgroup_cache_labels(struct xp_cgroup_cache *c, uint64_t id, const char *logs,
				   uint64_t now_ns);

#endif
