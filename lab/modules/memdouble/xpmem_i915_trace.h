/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test events for the xputrace lab, group xpmem_i915. Each event's name and
 * TP_STRUCT__entry are i915's own (drivers/gpu/drm/i915/i915_trace.h, the
 * same in 6.1 and 7.x), so the format files list identical field lines; the
 * arguments are plain values instead of i915's objects.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM xpmem_i915

#if !defined(_XPMEM_I915_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _XPMEM_I915_TRACE_H

#include <linux/tracepoint.h>

struct drm_i915_gem_object;
struct i915_address_space;

TRACE_EVENT(i915_gem_object_create,
	    TP_PROTO(struct drm_i915_gem_object *obj, u64 size),
	    TP_ARGS(obj, size),
	    TP_STRUCT__entry(
			     __field(struct drm_i915_gem_object *, obj)
			     __field(u64, size)
			     ),
	    TP_fast_assign(
			   __entry->obj = obj;
			   __entry->size = size;
			   ),
	    TP_printk("obj=%p, size=0x%llx", __entry->obj, __entry->size)
);

TRACE_EVENT(i915_gem_shrink,
	    TP_PROTO(int dev, unsigned long target, unsigned flags),
	    TP_ARGS(dev, target, flags),
	    TP_STRUCT__entry(
			     __field(int, dev)
			     __field(unsigned long, target)
			     __field(unsigned, flags)
			     ),
	    TP_fast_assign(
			   __entry->dev = dev;
			   __entry->target = target;
			   __entry->flags = flags;
			   ),
	    TP_printk("dev=%d, target=%lu, flags=%x",
		      __entry->dev, __entry->target, __entry->flags)
);

TRACE_EVENT(i915_vma_bind,
	    TP_PROTO(struct drm_i915_gem_object *obj, struct i915_address_space *vm, u64 offset,
		     u64 size, unsigned flags),
	    TP_ARGS(obj, vm, offset, size, flags),
	    TP_STRUCT__entry(
			     __field(struct drm_i915_gem_object *, obj)
			     __field(struct i915_address_space *, vm)
			     __field(u64, offset)
			     __field(u64, size)
			     __field(unsigned, flags)
			     ),
	    TP_fast_assign(
			   __entry->obj = obj;
			   __entry->vm = vm;
			   __entry->offset = offset;
			   __entry->size = size;
			   __entry->flags = flags;
			   ),
	    TP_printk("obj=%p, offset=0x%016llx size=0x%llx vm=%p",
		      __entry->obj, __entry->offset, __entry->size, __entry->vm)
);

TRACE_EVENT(i915_vma_unbind,
	    TP_PROTO(struct drm_i915_gem_object *obj, struct i915_address_space *vm, u64 offset,
		     u64 size),
	    TP_ARGS(obj, vm, offset, size),
	    TP_STRUCT__entry(
			     __field(struct drm_i915_gem_object *, obj)
			     __field(struct i915_address_space *, vm)
			     __field(u64, offset)
			     __field(u64, size)
			     ),
	    TP_fast_assign(
			   __entry->obj = obj;
			   __entry->vm = vm;
			   __entry->offset = offset;
			   __entry->size = size;
			   ),
	    TP_printk("obj=%p, offset=0x%016llx size=0x%llx vm=%p",
		      __entry->obj, __entry->offset, __entry->size, __entry->vm)
);

TRACE_EVENT(i915_gem_object_fault,
	    TP_PROTO(struct drm_i915_gem_object *obj, u64 index, bool gtt, bool write),
	    TP_ARGS(obj, index, gtt, write),
	    TP_STRUCT__entry(
			     __field(struct drm_i915_gem_object *, obj)
			     __field(u64, index)
			     __field(bool, gtt)
			     __field(bool, write)
			     ),
	    TP_fast_assign(
			   __entry->obj = obj;
			   __entry->index = index;
			   __entry->gtt = gtt;
			   __entry->write = write;
			   ),
	    TP_printk("obj=%p, %s index=%llu %s",
		      __entry->obj,
		      __entry->gtt ? "GTT" : "CPU",
		      __entry->index,
		      __entry->write ? ", writable" : "")
);

TRACE_EVENT(i915_gem_object_destroy,
	    TP_PROTO(struct drm_i915_gem_object *obj),
	    TP_ARGS(obj),
	    TP_STRUCT__entry(
			     __field(struct drm_i915_gem_object *, obj)
			     ),
	    TP_fast_assign(
			   __entry->obj = obj;
			   ),
	    TP_printk("obj=%p", __entry->obj)
);

TRACE_EVENT(i915_gem_evict,
	    TP_PROTO(u32 dev, struct i915_address_space *vm, u64 size, u64 align, unsigned int flags),
	    TP_ARGS(dev, vm, size, align, flags),
	    TP_STRUCT__entry(
			     __field(u32, dev)
			     __field(struct i915_address_space *, vm)
			     __field(u64, size)
			     __field(u64, align)
			     __field(unsigned int, flags)
			    ),
	    TP_fast_assign(
			   __entry->dev = dev;
			   __entry->vm = vm;
			   __entry->size = size;
			   __entry->align = align;
			   __entry->flags = flags;
			  ),
	    TP_printk("dev=%d, vm=%p, size=0x%llx, align=0x%llx",
		      __entry->dev, __entry->vm, __entry->size, __entry->align)
);

TRACE_EVENT(i915_gem_evict_node,
	    TP_PROTO(u32 dev, struct i915_address_space *vm, u64 start, u64 size, unsigned int flags),
	    TP_ARGS(dev, vm, start, size, flags),
	    TP_STRUCT__entry(
			     __field(u32, dev)
			     __field(struct i915_address_space *, vm)
			     __field(u64, start)
			     __field(u64, size)
			     __field(unsigned long, color)
			     __field(unsigned int, flags)
			    ),
	    TP_fast_assign(
			   __entry->dev = dev;
			   __entry->vm = vm;
			   __entry->start = start;
			   __entry->size = size;
			   __entry->color = 0;
			   __entry->flags = flags;
			  ),
	    TP_printk("dev=%d, vm=%p, start=0x%llx size=0x%llx, color=0x%lx, flags=%x",
		      __entry->dev, __entry->vm,
		      __entry->start, __entry->size,
		      __entry->color, __entry->flags)
);

TRACE_EVENT(i915_gem_evict_vm,
	    TP_PROTO(u32 dev, struct i915_address_space *vm),
	    TP_ARGS(dev, vm),
	    TP_STRUCT__entry(
			     __field(u32, dev)
			     __field(struct i915_address_space *, vm)
			    ),
	    TP_fast_assign(
			   __entry->dev = dev;
			   __entry->vm = vm;
			  ),
	    TP_printk("dev=%d, vm=%p", __entry->dev, __entry->vm)
);

/* requests: i915 passes the request; here its fields, as i915 reads them */
DECLARE_EVENT_CLASS(i915_request,
	    TP_PROTO(u32 dev, u64 ctx, u16 class, u16 instance, u32 seqno),
	    TP_ARGS(dev, ctx, class, instance, seqno),
	    TP_STRUCT__entry(
			     __field(u32, dev)
			     __field(u64, ctx)
			     __field(u16, class)
			     __field(u16, instance)
			     __field(u32, seqno)
			     __field(u32, tail)
			     ),
	    TP_fast_assign(
			   __entry->dev = dev;
			   __entry->class = class;
			   __entry->instance = instance;
			   __entry->ctx = ctx;
			   __entry->seqno = seqno;
			   __entry->tail = 0;
			   ),
	    TP_printk("dev=%u, engine=%u:%u, ctx=%llu, seqno=%u, tail=%u",
		      __entry->dev, __entry->class, __entry->instance,
		      __entry->ctx, __entry->seqno, __entry->tail)
);

DEFINE_EVENT(i915_request, i915_request_add,
	     TP_PROTO(u32 dev, u64 ctx, u16 class, u16 instance, u32 seqno),
	     TP_ARGS(dev, ctx, class, instance, seqno)
);

DEFINE_EVENT(i915_request, i915_request_retire,
	     TP_PROTO(u32 dev, u64 ctx, u16 class, u16 instance, u32 seqno),
	     TP_ARGS(dev, ctx, class, instance, seqno)
);

TRACE_EVENT(i915_request_wait_begin,
	    TP_PROTO(u32 dev, u64 ctx, u16 class, u16 instance, u32 seqno, unsigned int flags),
	    TP_ARGS(dev, ctx, class, instance, seqno, flags),
	    TP_STRUCT__entry(
			     __field(u32, dev)
			     __field(u64, ctx)
			     __field(u16, class)
			     __field(u16, instance)
			     __field(u32, seqno)
			     __field(unsigned int, flags)
			     ),
	    TP_fast_assign(
			   __entry->dev = dev;
			   __entry->class = class;
			   __entry->instance = instance;
			   __entry->ctx = ctx;
			   __entry->seqno = seqno;
			   __entry->flags = flags;
			   ),
	    TP_printk("dev=%u, engine=%u:%u, ctx=%llu, seqno=%u, flags=0x%x",
		      __entry->dev, __entry->class, __entry->instance,
		      __entry->ctx, __entry->seqno, __entry->flags)
);

DEFINE_EVENT(i915_request, i915_request_wait_end,
	     TP_PROTO(u32 dev, u64 ctx, u16 class, u16 instance, u32 seqno),
	     TP_ARGS(dev, ctx, class, instance, seqno)
);

#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE xpmem_i915_trace
#include <trace/define_trace.h>
