/* tracefs: where it is, mounting it when we may, and which events exist. */
#ifndef XP_LIVE_TRACEFS_H
#define XP_LIVE_TRACEFS_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Finds tracefs, mounting it on /sys/kernel/tracing when it is not mounted and
 * we are root. Returns its path, or NULL with a one-line reason in `why`.
 * `*mounted_now` says whether this call mounted it.
 */
const char *xp_tracefs(char *why, size_t len, bool *mounted_now);

/* Number of events in a group (0 when the group does not exist), or -1 without tracefs. */
int xp_tracefs_group_events(const char *group);
bool xp_tracefs_event_exists(const char *group, const char *event);

#endif
