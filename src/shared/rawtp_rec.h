/* SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause */
/*
 * A generic record for capabilities built on classic tracepoints whose field
 * layouts are not hard-coded: the first bytes of one raw tracepoint record,
 * exactly as the kernel laid it out, plus up to two of its __data_loc strings.
 * User space parsed the events' tracefs format files at start-up; it tells the
 * kernel side per event how many bytes to copy and where the chosen strings'
 * __data_loc words are (struct xp_rawtp_cfg in rodata), and decodes the bytes
 * with the same layouts (src/core/rawtp_layout.h). The record type in the header says
 * which capability's event table `ev` indexes.
 * Fixed-width types only: shared by kernel and user side.
 */
#ifndef XP_SHARED_RAWTP_REC_H
#define XP_SHARED_RAWTP_REC_H

#include <linux/types.h>
#include "shared/record.h"

#define XP_RAWTP_MAX_EV 32	/* events one capability attaches */
#define XP_RAWTP_RAW 128	/* bytes of the raw record copied (fixed fields) */
#define XP_RAWTP_NSTR 2		/* strings copied per event */
#define XP_RAWTP_STR 32		/* bytes per string, NUL included */

/* Per event, in the kernel side's rodata (array xp_rawtp_cfg), set before load. */
struct xp_rawtp_cfg {
	__u16 raw_size;			/* bytes to copy from the record's start */
	__s16 str_off[XP_RAWTP_NSTR];	/* offset of a __data_loc word; -1: none */
	__u8 filter;			/* apply the process filters (process context only) */
	__u8 cgroup;			/* write the task's cgroup id at XP_RAWTP_CGROUP_AT */
};

/*
 * An event in the context of the process that caused it, whose copy leaves
 * the last 8 bytes of raw free, carries there the cgroup v2 id of that
 * process at the event (bpf_get_current_cgroup_id): read by user space
 * later, /proc/PID/cgroup may be gone with a short-lived process. 0: not
 * written (older files, other events).
 */
#define XP_RAWTP_CGROUP_AT (XP_RAWTP_RAW - 8)

struct xp_rawtp_rec {
	struct xp_rec_hdr hdr;		/* pid/tid/comm: the task the event fired in */
	__u16 ev;			/* index into the capability's event table */
	__u16 raw_len;			/* valid bytes in raw */
	__u16 str_len[XP_RAWTP_NSTR];	/* bytes in str[i], NUL excluded */
	char comm[XP_COMM_LEN];
	__u8 raw[XP_RAWTP_RAW];
	char str[XP_RAWTP_NSTR][XP_RAWTP_STR];
};

#endif
