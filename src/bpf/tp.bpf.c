// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * The generic kernel side of tracepoint capabilities: one classic tracepoint
 * program per slot, each copying its event's raw record (bpf/rawtp.bpf.h).
 * No event names or field offsets here: user space autoloads the slots its
 * capability's event table needs, attaches slot i to event i by name, sets
 * the record type and the per-event copy settings before load. A capability
 * built on tracepoints needs no .bpf.c of its own unless it aggregates in
 * the kernel or needs another hook (sched's raw_tp completion).
 */
#include "bpf/rawtp.bpf.h"

/* the capability's record type (enum xp_rec_type), set before load */
const volatile __u16 xp_tp_rectype = 0;

#define XP_TP_SLOT(i) \
	SEC("tracepoint") int xp_tp_##i(void *ctx) { return xp_rawtp_emit(ctx, xp_tp_rectype, i); }

XP_TP_SLOT(0)  XP_TP_SLOT(1)  XP_TP_SLOT(2)  XP_TP_SLOT(3)
XP_TP_SLOT(4)  XP_TP_SLOT(5)  XP_TP_SLOT(6)  XP_TP_SLOT(7)
XP_TP_SLOT(8)  XP_TP_SLOT(9)  XP_TP_SLOT(10) XP_TP_SLOT(11)
XP_TP_SLOT(12) XP_TP_SLOT(13) XP_TP_SLOT(14) XP_TP_SLOT(15)
XP_TP_SLOT(16) XP_TP_SLOT(17) XP_TP_SLOT(18) XP_TP_SLOT(19)
XP_TP_SLOT(20) XP_TP_SLOT(21) XP_TP_SLOT(22) XP_TP_SLOT(23)
XP_TP_SLOT(24) XP_TP_SLOT(25) XP_TP_SLOT(26) XP_TP_SLOT(27)
XP_TP_SLOT(28) XP_TP_SLOT(29) XP_TP_SLOT(30) XP_TP_SLOT(31)
