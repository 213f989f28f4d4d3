/*
 * Capabilities planned but not in this build: rows with a doctor check only,
 * so `doctor` says what this machine would offer them. Each becomes a real
 * row (its own file, with open/init/feed/report) when it is built.
 */
#include <stdio.h>

#include "caps/cap.h"
#include "live/features.h"

static bool npu_available(const struct xp_doctor_env *d, char *why, size_t len)
{
	bool km = d->at[XP_AT_KPROBE_MULTI].ok, ok = km && d->module_loaded("intel_vpu");

	snprintf(why, len, "%s", ok ? "kprobe.multi on intel_vpu"
				 : !km ? "kprobe.multi unavailable" : "the intel_vpu module is not loaded");
	return ok;
}

static bool uprobes_available(const struct xp_doctor_env *d, char *why, size_t len)
{
	bool ok = d->at[XP_AT_UPROBE].ok;

	snprintf(why, len, "%s", ok ? "uprobes on user runtimes (libcuda, Level Zero, libdrm)"
				 : d->at[XP_AT_UPROBE].why);
	return ok;
}

const struct xp_cap xp_cap_npu = {
	.name = "npu",
	.summary = "Intel and AMD NPU drivers: every ivpu_* call, IPC, jobs",
	.available = npu_available,
};

const struct xp_cap xp_cap_uprobes = {
	.name = "uprobes",
	.summary = "user runtimes (libcuda, Level Zero, libdrm) joined with the kernel",
	.available = uprobes_available,
};
