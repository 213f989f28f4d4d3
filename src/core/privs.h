/*
 * What privileges this process holds for tracing, from its effective
 * capability set: without libbpf, so the decision is unit tested on
 * synthetic sets and on a child that dropped its capabilities.
 */
#ifndef XP_CORE_PRIVS_H
#define XP_CORE_PRIVS_H

#include <stdint.h>

/* Bits of the capability set (include/uapi/linux/capability.h). */
#define XP_CAP_SYS_ADMIN 21
#define XP_CAP_PERFMON 38
#define XP_CAP_BPF 39

/* The effective set (CapEff of /proc/self/status); 0 when it cannot be read. */
uint64_t xp_caps_effective(void);
/*
 * The capabilities tracing needs that `eff` lacks: "" (CAP_SYS_ADMIN, or
 * CAP_BPF with CAP_PERFMON), "CAP_BPF", "CAP_PERFMON" or "CAP_BPF and
 * CAP_PERFMON". A static string.
 */
const char *xp_caps_missing(uint64_t eff);

#endif
