/*
 * Capabilities planned but not in this build: rows with a doctor check only,
 * so `doctor` says what this machine would offer them. Each becomes a real
 * row (its own file, with open/init/feed/report) when it is built.
 */
#include <stdio.h>

#include "caps/cap.h"
#include "live/features.h"

static bool uprobes_available(const struct xp_doctor_env *d, char *why, size_t len)
{
	bool ok = d->at[XP_AT_UPROBE].ok;

	snprintf(why, len, "%s", ok ? "uprobes on user runtimes (libcuda, Level Zero, libdrm)"
				 : d->at[XP_AT_UPROBE].why);
	return ok;
}

const struct xp_cap xp_cap_uprobes = {
	.name = "uprobes",
	.summary = "user runtimes (libcuda, Level Zero, libdrm) joined with the kernel",
	.available = uprobes_available,
};
