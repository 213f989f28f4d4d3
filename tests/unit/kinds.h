/*
 * The record kinds of the capabilities this build has, in the table's order
 * (src/caps/table.c), for tests that decode, write or read records without
 * the table: the program hands them over with xp_caps_use_records.
 */
#ifndef XP_TESTS_KINDS_H
#define XP_TESTS_KINDS_H

#include "caps/fence/fence_stats.h"
#include "caps/ioctl/ioctl_stats.h"
#include "caps/latency/latency_stats.h"
#include "caps/mem/mem_stats.h"
#include "caps/npu/npu_stats.h"
#include "caps/nvidia/nvidia_stats.h"
#include "caps/sched/sched_stats.h"
#include "caps/vblank/vblank_stats.h"
#include "core/record_kind.h"

static inline void use_record_kinds(void)
{
	static const struct xp_rec_kind *const kinds[] = {
		&xp_ioctl_rec_kind, &xp_sched_rec_kind, &xp_vbl_rec_kind, &xp_mem_rec_kind,
		&xp_nv_rec_kind, &xp_npu_rec_kind, &xp_lat_rec_kind, &xp_fence_rec_kind,
	};

	xp_rec_kinds_use(kinds, sizeof(kinds) / sizeof(kinds[0]));
}

#endif
