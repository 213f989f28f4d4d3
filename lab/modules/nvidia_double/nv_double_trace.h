/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The test double's Xid tracepoint: group "nvidia", event "nvidia_dev_xid",
 * with the record layout of the real driver's (575 and later): the GPU's PCI
 * name as a string, the Xid code, the message as a string.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM nvidia

#if !defined(NV_DOUBLE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define NV_DOUBLE_TRACE_H

#include <linux/tracepoint.h>
#include <linux/version.h>

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define NV_ASSIGN_STR(f, s) __assign_str(f)
#else
#define NV_ASSIGN_STR(f, s) __assign_str(f, s)
#endif

TRACE_EVENT(nvidia_dev_xid,
	TP_PROTO(const char *dev, u32 error_code, const char *msg),
	TP_ARGS(dev, error_code, msg),
	TP_STRUCT__entry(
		__string(dev, dev)
		__field(u32, error_code)
		__string(msg, msg)
	),
	TP_fast_assign(
		NV_ASSIGN_STR(dev, dev);
		__entry->error_code = error_code;
		NV_ASSIGN_STR(msg, msg);
	),
	TP_printk("Xid (%s): %u, %s", __get_str(dev), __entry->error_code, __get_str(msg))
);

#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE nv_double_trace
#include <trace/define_trace.h>
