/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The amdxdna test double's tracepoint: group "amdxdna", event xdna_job,
 * with the prototype and field layout of AMD's NPU driver in Linux 7.3
 * (include/trace/events/amdxdna.h): two inline strings (__string: the
 * hardware context's name, then what happened), the scheduler job's
 * finished-fence context and seqno, the job's sequence number in its
 * hardware context, and the command's opcode. The definition is the real
 * one token for token (so the format file, print fmt included, is the
 * same); only xdna_job is defined here (the real header also has
 * amdxdna_debug_point and the mailbox events). One-argument __assign_str:
 * Linux 6.10 and later, which every kernel with CONFIG_DRM_ACCEL_AMDXDNA is.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM amdxdna

#if !defined(_XDNA_MOCK_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _XDNA_MOCK_TRACE_H

#include <drm/gpu_scheduler.h>
#include <linux/tracepoint.h>

TRACE_EVENT(xdna_job,
	TP_PROTO(struct drm_sched_job *sched_job, const char *name, const char *str,
		 u64 seq, u32 op),
	TP_ARGS(sched_job, name, str, seq, op),
	TP_STRUCT__entry(__string(name, name)
			 __string(str, str)
			 __field(u64, fence_context)
			 __field(u64, fence_seqno)
			 __field(u64, seq)
			 __field(u32, op)),
	TP_fast_assign(__assign_str(name);
		       __assign_str(str);
		       __entry->fence_context = sched_job->s_fence->finished.context;
		       __entry->fence_seqno = sched_job->s_fence->finished.seqno;
		       __entry->seq = seq;
		       __entry->op = op;),
	TP_printk("fence=(context:%llu, seqno:%llu), %s seq#:%llu %s, op=%u",
		  __entry->fence_context, __entry->fence_seqno, __get_str(name),
		  __entry->seq, __get_str(str), __entry->op)
);

#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE xdna_mock_trace
#include <trace/define_trace.h>
