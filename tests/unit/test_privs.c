/*
 * Privilege diagnosis (src/core/privs.h): which capabilities tracing lacks,
 * on synthetic sets, then in a child that really drops its capabilities
 * (capset), as a capability-based or unprivileged run would have them.
 */
#include <linux/capability.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/privs.h"
#include "unit.h"

#define BIT(n) (1ull << (n))

static void test_missing_from_sets(void)
{
	CHECK_STR(xp_caps_missing(0), "CAP_BPF and CAP_PERFMON");
	CHECK_STR(xp_caps_missing(BIT(XP_CAP_BPF)), "CAP_PERFMON");
	CHECK_STR(xp_caps_missing(BIT(XP_CAP_PERFMON)), "CAP_BPF");
	CHECK_STR(xp_caps_missing(BIT(XP_CAP_BPF) | BIT(XP_CAP_PERFMON)), "");
	CHECK_STR(xp_caps_missing(BIT(XP_CAP_SYS_ADMIN)), "");
	CHECK_STR(xp_caps_missing(0x1ffffffffffull), "");	/* root's full set */
	/* CAP_NET_ADMIN (12) and CAP_SYS_PTRACE (19) are no substitute */
	CHECK_STR(xp_caps_missing(BIT(12) | BIT(19)), "CAP_BPF and CAP_PERFMON");
}

/* Sets the effective and permitted sets to `keep` (bits under 64). */
static int set_caps(uint64_t keep)
{
	struct __user_cap_header_struct h = { .version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct d[2];

	memset(d, 0, sizeof(d));
	d[0].effective = d[0].permitted = (uint32_t)keep;
	d[1].effective = d[1].permitted = (uint32_t)(keep >> 32);
	return (int)syscall(SYS_capset, &h, d);
}

/* In a child: drop to `keep`, then report whether xp_caps_missing says `want`. */
static int child_says(uint64_t keep, const char *want)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		if (set_caps(keep))
			_exit(2);
		_exit(strcmp(xp_caps_missing(xp_caps_effective()), want) ? 1 : 0);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static void test_real_capabilities(void)
{
	uint64_t eff = xp_caps_effective();

	if (!(eff & BIT(XP_CAP_BPF)) || !(eff & BIT(XP_CAP_PERFMON))) {
		printf("SKIP test_real_capabilities: this process lacks CAP_BPF or CAP_PERFMON to drop\n");
		return;
	}
	/* what `setpriv --inh-caps=+bpf,+perfmon ...` leaves a user: enough */
	CHECK(child_says(BIT(XP_CAP_BPF) | BIT(XP_CAP_PERFMON), "") == 0);
	CHECK(child_says(BIT(XP_CAP_BPF), "CAP_PERFMON") == 0);
	/* what an unprivileged user has */
	CHECK(child_says(0, "CAP_BPF and CAP_PERFMON") == 0);
}

int main(void)
{
	RUN(test_missing_from_sets);
	RUN(test_real_capabilities);
	UNIT_EXIT();
}
