/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test events for the xputrace lab: group smmu, events io_fault_entry and
 * io_fault_exit, with the layout of the SMMU IO page-fault events the
 * latency tutorial traces (a __string dev and an int pasid).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM smmu

#if !defined(_IOPF_DOUBLE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _IOPF_DOUBLE_TRACE_H

#include <linux/tracepoint.h>
#include <linux/version.h>

#ifndef IOPF_ASSIGN_STR
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define IOPF_ASSIGN_STR(f, v) __assign_str(f)
#else
#define IOPF_ASSIGN_STR(f, v) __assign_str(f, v)
#endif
#endif

DECLARE_EVENT_CLASS(iopf_double_fault,
	    TP_PROTO(const char *dev, int pasid),
	    TP_ARGS(dev, pasid),
	    TP_STRUCT__entry(
			     __string(dev, dev)
			     __field(int, pasid)
			     ),
	    TP_fast_assign(
			   IOPF_ASSIGN_STR(dev, dev);
			   __entry->pasid = pasid;
			   ),
	    TP_printk("dev=%s pasid=%d", __get_str(dev), __entry->pasid)
);

DEFINE_EVENT(iopf_double_fault, io_fault_entry,
	     TP_PROTO(const char *dev, int pasid),
	     TP_ARGS(dev, pasid));

DEFINE_EVENT(iopf_double_fault, io_fault_exit,
	     TP_PROTO(const char *dev, int pasid),
	     TP_ARGS(dev, pasid));

#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE iopf_double_trace
#include <trace/define_trace.h>
