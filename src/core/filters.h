/* The process filters every tracing verb takes (-p, -c, -G). */
#ifndef XP_CORE_FILTERS_H
#define XP_CORE_FILTERS_H

#include <stdint.h>

struct xp_filters {
	uint32_t pid;		/* 0: all */
	const char *comm;	/* NULL: all */
	uint64_t cgroup_id;	/* 0: all */
};

#endif
