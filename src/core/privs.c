#include <stdbool.h>
#include <stdio.h>

#include "core/privs.h"

uint64_t xp_caps_effective(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[128];
	unsigned long long v = 0;

	/* /proc rather than capget: no libcap, and no version dance with the syscall */
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &v) == 1)
			break;
	if (f)
		fclose(f);
	return v;
}

const char *xp_caps_missing(uint64_t eff)
{
	bool bpf = eff >> XP_CAP_BPF & 1, perfmon = eff >> XP_CAP_PERFMON & 1;

	/* CAP_SYS_ADMIN covers both (and is all that kernels before 5.8 knew) */
	if (eff >> XP_CAP_SYS_ADMIN & 1 || (bpf && perfmon))
		return "";
	return !bpf && !perfmon ? "CAP_BPF and CAP_PERFMON" : !bpf ? "CAP_BPF" : "CAP_PERFMON";
}
