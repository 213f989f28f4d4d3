/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test events for the xputrace lab, group xpmem_xe. Each event's name and
 * TP_STRUCT__entry are xe's own (drivers/gpu/drm/xe/xe_trace.h and
 * xe_trace_bo.h of Linux 7.3), so the format files list identical field
 * lines; the arguments are plain values instead of xe's objects, which this
 * test module does not have. Kernels without xe (6.1) build the same events
 * so that the decoding can be driven there too; only 7.3 has real ones to
 * compare with.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM xpmem_xe

/* xe's engine classes (xe_hw_engine_types.h); the field's type name is part of the format */
#ifndef XPMEM_XE_ENGINE_CLASS
#define XPMEM_XE_ENGINE_CLASS
enum xe_engine_class {
	XE_ENGINE_CLASS_RENDER = 0,
	XE_ENGINE_CLASS_VIDEO_DECODE = 1,
	XE_ENGINE_CLASS_VIDEO_ENHANCE = 2,
	XE_ENGINE_CLASS_COPY = 3,
	XE_ENGINE_CLASS_OTHER = 4,
	XE_ENGINE_CLASS_COMPUTE = 5,
	XE_ENGINE_CLASS_MAX = 6,
};
#endif

#if !defined(_XPMEM_XE_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _XPMEM_XE_TRACE_H

#include <linux/tracepoint.h>
#include <linux/version.h>

struct dma_fence;
struct xe_bo;
struct xe_vm;
struct xe_vma;

#ifndef XPMEM_ASSIGN_STR
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define XPMEM_ASSIGN_STR(f, v) __assign_str(f)
#else
#define XPMEM_ASSIGN_STR(f, v) __assign_str(f, v)
#endif
#endif

DECLARE_EVENT_CLASS(xpmem_xe_exec_queue,
	    TP_PROTO(const char *dev, u32 class, u16 guc_id),
	    TP_ARGS(dev, class, guc_id),
	    TP_STRUCT__entry(
			     __string(dev, dev)
			     __field(enum xe_engine_class, class)
			     __field(u32, logical_mask)
			     __field(u8, gt_id)
			     __field(u16, width)
			     __field(u16, guc_id)
			     __field(u32, guc_state)
			     __field(u32, flags)
			     ),
	    TP_fast_assign(
			   XPMEM_ASSIGN_STR(dev, dev);
			   __entry->class = class;
			   __entry->logical_mask = 1;
			   __entry->gt_id = 0;
			   __entry->width = 1;
			   __entry->guc_id = guc_id;
			   __entry->guc_state = 0;
			   __entry->flags = 0;
			   ),
	    TP_printk("dev=%s, %d:0x%x, gt=%d, width=%d, guc_id=%d",
		      __get_str(dev), __entry->class, __entry->logical_mask,
		      __entry->gt_id, __entry->width, __entry->guc_id)
);

DEFINE_EVENT(xpmem_xe_exec_queue, xe_exec_queue_create,
	     TP_PROTO(const char *dev, u32 class, u16 guc_id),
	     TP_ARGS(dev, class, guc_id));
DEFINE_EVENT(xpmem_xe_exec_queue, xe_exec_queue_destroy,
	     TP_PROTO(const char *dev, u32 class, u16 guc_id),
	     TP_ARGS(dev, class, guc_id));

DECLARE_EVENT_CLASS(xpmem_xe_sched_job,
	    TP_PROTO(const char *dev, u32 seqno, u16 guc_id, struct dma_fence *fence),
	    TP_ARGS(dev, seqno, guc_id, fence),
	    TP_STRUCT__entry(
			     __string(dev, dev)
			     __field(u32, seqno)
			     __field(u32, lrc_seqno)
			     __field(u8, gt_id)
			     __field(u16, guc_id)
			     __field(u32, guc_state)
			     __field(u32, flags)
			     __field(int, error)
			     __field(struct dma_fence *, fence)
			     __field(u64, batch_addr)
			     ),
	    TP_fast_assign(
			   XPMEM_ASSIGN_STR(dev, dev);
			   __entry->seqno = seqno;
			   __entry->lrc_seqno = seqno;
			   __entry->gt_id = 0;
			   __entry->guc_id = guc_id;
			   __entry->guc_state = 0;
			   __entry->flags = 0;
			   __entry->error = 0;
			   __entry->fence = fence;
			   __entry->batch_addr = 0x100000;
			   ),
	    TP_printk("dev=%s, fence=%p, seqno=%u, guc_id=%d",
		      __get_str(dev), __entry->fence, __entry->seqno, __entry->guc_id)
);

DEFINE_EVENT(xpmem_xe_sched_job, xe_sched_job_create,
	     TP_PROTO(const char *dev, u32 seqno, u16 guc_id, struct dma_fence *fence),
	     TP_ARGS(dev, seqno, guc_id, fence));
DEFINE_EVENT(xpmem_xe_sched_job, xe_sched_job_run,
	     TP_PROTO(const char *dev, u32 seqno, u16 guc_id, struct dma_fence *fence),
	     TP_ARGS(dev, seqno, guc_id, fence));

TRACE_EVENT(xe_bo_create,
	    TP_PROTO(const char *dev, size_t size, struct xe_vm *vm),
	    TP_ARGS(dev, size, vm),
	    TP_STRUCT__entry(
			     __string(dev, dev)
			     __field(size_t, size)
			     __field(u32, flags)
			     __field(struct xe_vm *, vm)
			     ),
	    TP_fast_assign(
			   XPMEM_ASSIGN_STR(dev, dev);
			   __entry->size = size;
			   __entry->flags = 0;
			   __entry->vm = vm;
			   ),
	    TP_printk("dev=%s, size=%zu, vm=%p", __get_str(dev), __entry->size, __entry->vm)
);

TRACE_EVENT(xe_bo_move,
	    TP_PROTO(struct xe_bo *bo, size_t size, const char *new_placement_name,
		     const char *old_placement_name, const char *device_id, bool move_lacks_source),
	    TP_ARGS(bo, size, new_placement_name, old_placement_name, device_id, move_lacks_source),
	    TP_STRUCT__entry(
			     __field(struct xe_bo *, bo)
			     __field(size_t, size)
			     __string(new_placement_name, new_placement_name)
			     __string(old_placement_name, old_placement_name)
			     __string(device_id, device_id)
			     __field(bool, move_lacks_source)
			     ),
	    TP_fast_assign(
			   __entry->bo = bo;
			   __entry->size = size;
			   XPMEM_ASSIGN_STR(new_placement_name, new_placement_name);
			   XPMEM_ASSIGN_STR(old_placement_name, old_placement_name);
			   XPMEM_ASSIGN_STR(device_id, device_id);
			   __entry->move_lacks_source = move_lacks_source;
			   ),
	    TP_printk("move_lacks_source:%s, object %p [size %zu] from %s to %s device_id:%s",
		      __entry->move_lacks_source ? "yes" : "no", __entry->bo, __entry->size,
		      __get_str(old_placement_name), __get_str(new_placement_name),
		      __get_str(device_id))
);

TRACE_EVENT(xe_vma_pagefault,
	    TP_PROTO(const char *dev, struct xe_vma *vma, struct xe_vm *vm, u32 asid, u64 start,
		     u64 end),
	    TP_ARGS(dev, vma, vm, asid, start, end),
	    TP_STRUCT__entry(
			     __string(dev, dev)
			     __field(struct xe_vma *, vma)
			     __field(struct xe_vm *, vm)
			     __field(u32, asid)
			     __field(u64, start)
			     __field(u64, end)
			     __field(u64, ptr)
			     ),
	    TP_fast_assign(
			   XPMEM_ASSIGN_STR(dev, dev);
			   __entry->vma = vma;
			   __entry->vm = vm;
			   __entry->asid = asid;
			   __entry->start = start;
			   __entry->end = end;
			   __entry->ptr = 0;
			   ),
	    TP_printk("dev=%s, vma=%p, vm=%p, asid=0x%05x, start=0x%012llx, end=0x%012llx",
		      __get_str(dev), __entry->vma, __entry->vm, __entry->asid,
		      __entry->start, __entry->end)
);

#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE xpmem_xe_trace
#include <trace/define_trace.h>
