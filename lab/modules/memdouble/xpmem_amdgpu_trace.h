/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test events for the xputrace lab, group xpmem_amdgpu. Each event's name and
 * TP_STRUCT__entry are amdgpu's own (drivers/gpu/drm/amd/amdgpu/amdgpu_trace.h
 * of the same kernel version), so the format files list identical field
 * lines; the arguments are plain values instead of amdgpu's objects, which
 * this test module does not have. Layout facts: amdgpu_cs_ioctl and
 * amdgpu_sched_run_job dropped sched_job_id and widened context/seqno to u64
 * in 6.17; __assign_str takes one argument from 6.10.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM xpmem_amdgpu

#if !defined(_XPMEM_AMDGPU_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _XPMEM_AMDGPU_TRACE_H

#include <linux/tracepoint.h>
#include <linux/version.h>

struct amdgpu_bo;
struct dma_fence;

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define XPMEM_ASSIGN_STR(f, v) __assign_str(f)
#else
#define XPMEM_ASSIGN_STR(f, v) __assign_str(f, v)
#endif

TRACE_EVENT(amdgpu_bo_create,
	    TP_PROTO(struct amdgpu_bo *bo, u32 pages, u32 type, u32 prefer, u32 allow, u32 flags),
	    TP_ARGS(bo, pages, type, prefer, allow, flags),
	    TP_STRUCT__entry(
			     __field(struct amdgpu_bo *, bo)
			     __field(u32, pages)
			     __field(u32, type)
			     __field(u32, prefer)
			     __field(u32, allow)
			     __field(u32, visible)
			     ),
	    TP_fast_assign(
			   __entry->bo = bo;
			   __entry->pages = pages;
			   __entry->type = type;
			   __entry->prefer = prefer;
			   __entry->allow = allow;
			   __entry->visible = flags;
			   ),
	    TP_printk("bo=%p, pages=%u, type=%d, preferred=%d, allowed=%d, visible=%d",
		      __entry->bo, __entry->pages, __entry->type,
		      __entry->prefer, __entry->allow, __entry->visible)
);

/* amdgpu_cs_ioctl has a fence field, amdgpu_sched_run_job none */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
TRACE_EVENT(amdgpu_cs_ioctl,
	    TP_PROTO(const char *timeline, u64 context, u64 seqno, struct dma_fence *fence,
		     const char *ring, u32 num_ibs),
	    TP_ARGS(timeline, context, seqno, fence, ring, num_ibs),
	    TP_STRUCT__entry(
			     __string(timeline, timeline)
			     __field(u64, context)
			     __field(u64, seqno)
			     __field(struct dma_fence *, fence)
			     __string(ring, ring)
			     __field(u32, num_ibs)
			     ),
	    TP_fast_assign(
			   XPMEM_ASSIGN_STR(timeline, timeline);
			   __entry->context = context;
			   __entry->seqno = seqno;
			   __entry->fence = fence;
			   XPMEM_ASSIGN_STR(ring, ring);
			   __entry->num_ibs = num_ibs;
			   ),
	    TP_printk("timeline=%s, fence=%llu:%llu, ring_name=%s, num_ibs=%u",
		      __get_str(timeline), __entry->context,
		      __entry->seqno, __get_str(ring), __entry->num_ibs)
);

TRACE_EVENT(amdgpu_sched_run_job,
	    TP_PROTO(const char *timeline, u64 context, u64 seqno, struct dma_fence *fence,
		     const char *ring, u32 num_ibs),
	    TP_ARGS(timeline, context, seqno, fence, ring, num_ibs),
	    TP_STRUCT__entry(
			     __string(timeline, timeline)
			     __field(u64, context)
			     __field(u64, seqno)
			     __string(ring, ring)
			     __field(u32, num_ibs)
			     ),
	    TP_fast_assign(
			   XPMEM_ASSIGN_STR(timeline, timeline);
			   __entry->context = context;
			   __entry->seqno = seqno;
			   XPMEM_ASSIGN_STR(ring, ring);
			   __entry->num_ibs = num_ibs;
			   ),
	    TP_printk("timeline=%s, fence=%llu:%llu, ring_name=%s, num_ibs=%u",
		      __get_str(timeline), __entry->context,
		      __entry->seqno, __get_str(ring), __entry->num_ibs)
);
#else
TRACE_EVENT(amdgpu_cs_ioctl,
	    TP_PROTO(const char *timeline, u64 context, u64 seqno, struct dma_fence *fence,
		     const char *ring, u32 num_ibs),
	    TP_ARGS(timeline, context, seqno, fence, ring, num_ibs),
	    TP_STRUCT__entry(
			     __field(uint64_t, sched_job_id)
			     __string(timeline, timeline)
			     __field(unsigned int, context)
			     __field(unsigned int, seqno)
			     __field(struct dma_fence *, fence)
			     __string(ring, ring)
			     __field(u32, num_ibs)
			     ),
	    TP_fast_assign(
			   __entry->sched_job_id = seqno;
			   XPMEM_ASSIGN_STR(timeline, timeline);
			   __entry->context = context;
			   __entry->seqno = seqno;
			   __entry->fence = fence;
			   XPMEM_ASSIGN_STR(ring, ring);
			   __entry->num_ibs = num_ibs;
			   ),
	    TP_printk("sched_job=%llu, timeline=%s, context=%u, seqno=%u, ring_name=%s, num_ibs=%u",
		      __entry->sched_job_id, __get_str(timeline), __entry->context,
		      __entry->seqno, __get_str(ring), __entry->num_ibs)
);

TRACE_EVENT(amdgpu_sched_run_job,
	    TP_PROTO(const char *timeline, u64 context, u64 seqno, struct dma_fence *fence,
		     const char *ring, u32 num_ibs),
	    TP_ARGS(timeline, context, seqno, fence, ring, num_ibs),
	    TP_STRUCT__entry(
			     __field(uint64_t, sched_job_id)
			     __string(timeline, timeline)
			     __field(unsigned int, context)
			     __field(unsigned int, seqno)
			     __string(ring, ring)
			     __field(u32, num_ibs)
			     ),
	    TP_fast_assign(
			   __entry->sched_job_id = seqno;
			   XPMEM_ASSIGN_STR(timeline, timeline);
			   __entry->context = context;
			   __entry->seqno = seqno;
			   XPMEM_ASSIGN_STR(ring, ring);
			   __entry->num_ibs = num_ibs;
			   ),
	    TP_printk("sched_job=%llu, timeline=%s, context=%u, seqno=%u, ring_name=%s, num_ibs=%u",
		      __entry->sched_job_id, __get_str(timeline), __entry->context,
		      __entry->seqno, __get_str(ring), __entry->num_ibs)
);
#endif

TRACE_EVENT(amdgpu_iv,
	    TP_PROTO(unsigned ih, unsigned client_id, unsigned src_id, unsigned pasid),
	    TP_ARGS(ih, client_id, src_id, pasid),
	    TP_STRUCT__entry(
			     __field(unsigned, ih)
			     __field(unsigned, client_id)
			     __field(unsigned, src_id)
			     __field(unsigned, ring_id)
			     __field(unsigned, vmid)
			     __field(unsigned, vmid_src)
			     __field(uint64_t, timestamp)
			     __field(unsigned, timestamp_src)
			     __field(unsigned, pasid)
			     __array(unsigned, src_data, 4)
			    ),
	    TP_fast_assign(
			   __entry->ih = ih;
			   __entry->client_id = client_id;
			   __entry->src_id = src_id;
			   __entry->ring_id = 0;
			   __entry->vmid = 0;
			   __entry->vmid_src = 0;
			   __entry->timestamp = 0;
			   __entry->timestamp_src = 0;
			   __entry->pasid = pasid;
			   __entry->src_data[0] = 0;
			   __entry->src_data[1] = 0;
			   __entry->src_data[2] = 0;
			   __entry->src_data[3] = 0;
			   ),
	    TP_printk("ih:%u client_id:%u src_id:%u ring:%u vmid:%u "
		      "timestamp: %llu pasid:%u src_data: %08x %08x %08x %08x",
		      __entry->ih, __entry->client_id, __entry->src_id,
		      __entry->ring_id, __entry->vmid,
		      __entry->timestamp, __entry->pasid,
		      __entry->src_data[0], __entry->src_data[1],
		      __entry->src_data[2], __entry->src_data[3])
);

TRACE_EVENT(amdgpu_bo_move,
	    TP_PROTO(struct amdgpu_bo *bo, u64 size, uint32_t new_placement, uint32_t old_placement),
	    TP_ARGS(bo, size, new_placement, old_placement),
	    TP_STRUCT__entry(
			__field(struct amdgpu_bo *, bo)
			__field(u64, bo_size)
			__field(u32, new_placement)
			__field(u32, old_placement)
			),
	    TP_fast_assign(
			__entry->bo      = bo;
			__entry->bo_size = size;
			__entry->new_placement = new_placement;
			__entry->old_placement = old_placement;
			),
	    TP_printk("bo=%p, from=%d, to=%d, size=%Ld",
			__entry->bo, __entry->old_placement,
			__entry->new_placement, __entry->bo_size)
);

#endif

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE xpmem_amdgpu_trace
#include <trace/define_trace.h>
