/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test double's tracepoints: group "vpu", events job, jsm and pm, with
 * the field layout of Intel's driver (Linux 6.8 and later): each string is
 * a pointer to a constant string, not inline text. The layout is compared
 * with the real module's format files in lab/scenarios/npu.sh.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM vpu

#if !defined(_IVPU_DOUBLE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _IVPU_DOUBLE_TRACE_H

#include <linux/tracepoint.h>

TRACE_EVENT(pm,
	TP_PROTO(const char *event),
	TP_ARGS(event),
	TP_STRUCT__entry(__field(const char *, event)),
	TP_fast_assign(__entry->event = event;),
	TP_printk("%s", __entry->event)
);

TRACE_EVENT(job,
	TP_PROTO(const char *event, u32 ctx_id, u32 engine_id, u32 job_id),
	TP_ARGS(event, ctx_id, engine_id, job_id),
	TP_STRUCT__entry(__field(const char *, event)
			 __field(u32, ctx_id)
			 __field(u32, engine_id)
			 __field(u32, job_id)),
	TP_fast_assign(__entry->event = event;
		       __entry->ctx_id = ctx_id;
		       __entry->engine_id = engine_id;
		       __entry->job_id = job_id;),
	TP_printk("%s ctx %u engine %u job %u", __entry->event, __entry->ctx_id,
		  __entry->engine_id, __entry->job_id)
);

TRACE_EVENT(jsm,
	TP_PROTO(const char *event, const char *type, enum vpu_ipc_msg_status status,
		 u32 request_id, u32 result),
	TP_ARGS(event, type, status, request_id, result),
	TP_STRUCT__entry(__field(const char *, event)
			 __field(const char *, type)
			 __field(enum vpu_ipc_msg_status, status)
			 __field(u32, request_id)
			 __field(u32, result)),
	TP_fast_assign(__entry->event = event;
		       __entry->type = type;
		       __entry->status = status;
		       __entry->request_id = request_id;
		       __entry->result = result;),
	TP_printk("%s %s status %d request %u result %u", __entry->event, __entry->type,
		  __entry->status, __entry->request_id, __entry->result)
);

#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE ivpu_double_trace
#include <trace/define_trace.h>
