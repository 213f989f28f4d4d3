/* Naming ioctl commands: DRM core, the DRM/accel drivers, NVIDIA escapes. */
#ifndef XP_CAPS_IOCTL_NAMES_H
#define XP_CAPS_IOCTL_NAMES_H

#include <stddef.h>
#include <stdint.h>
#include "core/devices.h"


/*
 * Writes the name of `cmd` into buf and returns buf. `driver` is the kernel
 * driver bound to a DRM/accel node as sysfs names it ("amdgpu", "i915", "xe",
 * "nouveau", "msm", "panfrost", "v3d", "intel_vpu", "vgem", ...) or NULL.
 * A command without a name is shown decoded, e.g. "_IOWR('d',0x4a,32)",
 * "_IO('x',0x01)", or as "0x%08x" when it is no _IOC encoding at all.
 */
const char *xp_ioctl_name(enum xp_dev_kind kind, const char *driver, uint32_t cmd,
			  char *buf, size_t len);

/* The same, but NULL where no table names the command (nothing decoded). */
const char *xp_ioctl_lookup(enum xp_dev_kind kind, const char *driver, uint32_t cmd);

#endif
