#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

#include "live/tracefs.h"

#define TRACEFS_MAGIC_NR 0x74726163

static const char *found;

static bool is_tracefs(const char *path)
{
	struct statfs st;

	return statfs(path, &st) == 0 && (unsigned long)st.f_type == TRACEFS_MAGIC_NR;
}

const char *xp_tracefs(char *why, size_t len, bool *mounted_now)
{
	static const char *const candidates[] = { "/sys/kernel/tracing",
						  "/sys/kernel/debug/tracing" };

	if (mounted_now)
		*mounted_now = false;
	if (found)
		return found;
	for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++)
		if (is_tracefs(candidates[i]))
			return found = candidates[i];
	if (geteuid() != 0) {
		snprintf(why, len, "tracefs is not mounted and mounting it needs root");
		return NULL;
	}
	if (mount("nodev", candidates[0], "tracefs", 0, NULL)) {
		snprintf(why, len, "tracefs is not mounted and mounting it on %s failed: %s",
			 candidates[0], strerror(errno));
		return NULL;
	}
	if (mounted_now)
		*mounted_now = true;
	return found = candidates[0];
}

int xp_tracefs_group_events(const char *group)
{
	char why[128], path[PATH_MAX];
	const char *root = xp_tracefs(why, sizeof(why), NULL);
	struct dirent *e;
	int n = 0;
	DIR *d;

	if (!root)
		return -1;
	snprintf(path, sizeof(path), "%s/events/%s", root, group);
	d = opendir(path);
	if (!d)
		return 0;
	while ((e = readdir(d)))
		if (e->d_type == DT_DIR && e->d_name[0] != '.')
			n++;
	closedir(d);
	return n;
}

bool xp_tracefs_event_exists(const char *group, const char *event)
{
	char why[128], path[PATH_MAX];
	const char *root = xp_tracefs(why, sizeof(why), NULL);

	if (!root)
		return false;
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", root, group, event);
	return access(path, R_OK) == 0;
}
