/*
 * Compiled where CUDA's headers are installed (the Makefile's CUDA_INC):
 * every enum value, offset and size that cupti_min.h declares, against
 * CUDA's own. Nothing is linked from it; a mismatch fails the build.
 */
#include <cupti.h>
#include <stddef.h>
#include "cuda/cupti_min.h"

#define SAME(a, b) _Static_assert((a) == (b), #a " != " #b)
/* a field of ours at the offset and with the size of CUDA's */
#define FIELD(ours, theirs, of, tf)                                                   \
	SAME(offsetof(struct ours, of), offsetof(theirs, tf));                         \
	SAME(sizeof(((struct ours *)0)->of), sizeof(((theirs *)0)->tf))

SAME(XCU_SUCCESS, CUPTI_SUCCESS);
SAME(XCU_ERROR_NOT_SUPPORTED, CUPTI_ERROR_NOT_SUPPORTED);
SAME(XCU_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMCPY);
SAME(XCU_KIND_MEMSET, CUPTI_ACTIVITY_KIND_MEMSET);
SAME(XCU_KIND_KERNEL, CUPTI_ACTIVITY_KIND_KERNEL);
SAME(XCU_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
SAME(XCU_FLUSH_FORCED, CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
SAME(XCU_DOMAIN_DRIVER_API, CUPTI_CB_DOMAIN_DRIVER_API);
SAME(XCU_DOMAIN_RUNTIME_API, CUPTI_CB_DOMAIN_RUNTIME_API);
SAME(XCU_API_ENTER, CUPTI_API_ENTER);
SAME(sizeof(xcu_result), sizeof(CUptiResult));
SAME(sizeof(uint32_t), sizeof(CUpti_ActivityKind));

SAME(XCU_CBID_cuLaunch, CUPTI_DRIVER_TRACE_CBID_cuLaunch);
SAME(XCU_CBID_cuLaunchGrid, CUPTI_DRIVER_TRACE_CBID_cuLaunchGrid);
SAME(XCU_CBID_cuLaunchGridAsync, CUPTI_DRIVER_TRACE_CBID_cuLaunchGridAsync);
SAME(XCU_CBID_cuLaunchKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel);
SAME(XCU_CBID_cuLaunchKernel_ptsz, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz);
SAME(XCU_CBID_cuLaunchCooperativeKernel, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel);
SAME(XCU_CBID_cuLaunchCooperativeKernel_ptsz, CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz);
SAME(XCU_CBID_cuLaunchKernelEx, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx);
SAME(XCU_CBID_cuLaunchKernelEx_ptsz, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz);
SAME(XCU_CBID_cudaLaunchKernel_v7000, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000);
SAME(XCU_CBID_cudaLaunchKernel_ptsz_v7000, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000);
SAME(XCU_CBID_cudaLaunchCooperativeKernel_v9000, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000);
SAME(XCU_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
     CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000);
SAME(XCU_CBID_cudaLaunchKernelExC_v11060, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060);
SAME(XCU_CBID_cudaLaunchKernelExC_ptsz_v11060, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060);
SAME(XCU_CBID___cudaLaunchKernel_v13000, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000);
SAME(XCU_CBID___cudaLaunchKernel_ptsz_v13000, CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000);

FIELD(xcu_activity, CUpti_Activity, kind, kind);

FIELD(xcu_kernel, CUpti_ActivityKernel10, kind, kind);
FIELD(xcu_kernel, CUpti_ActivityKernel10, start, start);
FIELD(xcu_kernel, CUpti_ActivityKernel10, end, end);
FIELD(xcu_kernel, CUpti_ActivityKernel10, device_id, deviceId);
FIELD(xcu_kernel, CUpti_ActivityKernel10, context_id, contextId);
FIELD(xcu_kernel, CUpti_ActivityKernel10, stream_id, streamId);
FIELD(xcu_kernel, CUpti_ActivityKernel10, grid_x, gridX);
FIELD(xcu_kernel, CUpti_ActivityKernel10, grid_y, gridY);
FIELD(xcu_kernel, CUpti_ActivityKernel10, grid_z, gridZ);
FIELD(xcu_kernel, CUpti_ActivityKernel10, block_x, blockX);
FIELD(xcu_kernel, CUpti_ActivityKernel10, block_y, blockY);
FIELD(xcu_kernel, CUpti_ActivityKernel10, block_z, blockZ);
FIELD(xcu_kernel, CUpti_ActivityKernel10, correlation_id, correlationId);
FIELD(xcu_kernel, CUpti_ActivityKernel10, grid_id, gridId);
FIELD(xcu_kernel, CUpti_ActivityKernel10, name, name);

FIELD(xcu_memcpy, CUpti_ActivityMemcpy6, kind, kind);
FIELD(xcu_memcpy, CUpti_ActivityMemcpy6, copy_kind, copyKind);
FIELD(xcu_memcpy, CUpti_ActivityMemcpy6, bytes, bytes);
FIELD(xcu_memcpy, CUpti_ActivityMemcpy6, start, start);
FIELD(xcu_memcpy, CUpti_ActivityMemcpy6, end, end);
FIELD(xcu_memcpy, CUpti_ActivityMemcpy6, device_id, deviceId);
FIELD(xcu_memcpy, CUpti_ActivityMemcpy6, context_id, contextId);
FIELD(xcu_memcpy, CUpti_ActivityMemcpy6, stream_id, streamId);
FIELD(xcu_memcpy, CUpti_ActivityMemcpy6, correlation_id, correlationId);
FIELD(xcu_memcpy, CUpti_ActivityMemcpy6, runtime_correlation_id, runtimeCorrelationId);
SAME(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, 1);
SAME(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, 2);
SAME(CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, 8);
SAME(CUPTI_ACTIVITY_MEMCPY_KIND_HTOH, 9);
SAME(CUPTI_ACTIVITY_MEMCPY_KIND_PTOP, 10);

FIELD(xcu_memset, CUpti_ActivityMemset4, kind, kind);
FIELD(xcu_memset, CUpti_ActivityMemset4, value, value);
FIELD(xcu_memset, CUpti_ActivityMemset4, bytes, bytes);
FIELD(xcu_memset, CUpti_ActivityMemset4, start, start);
FIELD(xcu_memset, CUpti_ActivityMemset4, end, end);
FIELD(xcu_memset, CUpti_ActivityMemset4, device_id, deviceId);
FIELD(xcu_memset, CUpti_ActivityMemset4, context_id, contextId);
FIELD(xcu_memset, CUpti_ActivityMemset4, stream_id, streamId);
FIELD(xcu_memset, CUpti_ActivityMemset4, correlation_id, correlationId);

FIELD(xcu_callback_data, CUpti_CallbackData, callback_site, callbackSite);
FIELD(xcu_callback_data, CUpti_CallbackData, function_name, functionName);
FIELD(xcu_callback_data, CUpti_CallbackData, symbol_name, symbolName);
FIELD(xcu_callback_data, CUpti_CallbackData, context, context);
FIELD(xcu_callback_data, CUpti_CallbackData, context_uid, contextUid);
FIELD(xcu_callback_data, CUpti_CallbackData, correlation_id, correlationId);
SAME(sizeof(struct xcu_callback_data), sizeof(CUpti_CallbackData));

/* the functions' arguments: the same after CUptiResult (an enum, int-sized) */
#define ARGS(f, ...) SAME(__builtin_types_compatible_p(__typeof__(&f), CUptiResult (*)(__VA_ARGS__)), 1)
ARGS(cuptiActivityEnable, CUpti_ActivityKind);
ARGS(cuptiActivityDisable, CUpti_ActivityKind);
ARGS(cuptiActivityGetNumDroppedRecords, CUcontext, uint32_t, size_t *);
ARGS(cuptiActivityGetNextRecord, uint8_t *, size_t, CUpti_Activity **);
ARGS(cuptiActivityFlushAll, uint32_t);
ARGS(cuptiGetTimestamp, uint64_t *);
ARGS(cuptiActivityRegisterTimestampCallback, CUpti_TimestampCallbackFunc);
ARGS(cuptiActivityRegisterCallbacks, CUpti_BuffersCallbackRequestFunc, CUpti_BuffersCallbackCompleteFunc);
ARGS(cuptiSubscribe, CUpti_SubscriberHandle *, CUpti_CallbackFunc, void *);
ARGS(cuptiEnableCallback, uint32_t, CUpti_SubscriberHandle, CUpti_CallbackDomain, CUpti_CallbackId);
SAME(sizeof(CUpti_CallbackDomain), sizeof(uint32_t));
SAME(sizeof(CUpti_SubscriberHandle), sizeof(xcu_subscriber));
