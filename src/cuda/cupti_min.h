/*
 * The part of CUPTI (CUDA's profiling interface) that libxputrace-cuda.so
 * uses, declared here so that it builds without CUDA's headers. Only facts
 * are taken from them: enum values, the layout of the leading fields of the
 * activity records, the functions' signatures. Each record struct stops
 * after the last field read; cupti_check.c compares every offset and size
 * below with CUDA's own types where its headers are installed.
 *
 * The records are CUDA 13's (CUPTI_API_VERSION 130001):
 * CUpti_ActivityKernel10, CUpti_ActivityMemcpy6, CUpti_ActivityMemset4.
 * Earlier versions of each record share these leading fields at the same
 * offsets, so a library from an older CUDA gives the same fields.
 */
#ifndef XP_CUDA_CUPTI_MIN_H
#define XP_CUDA_CUPTI_MIN_H

#include <stddef.h>
#include <stdint.h>

typedef int xcu_result;			/* CUptiResult */
#define XCU_SUCCESS 0
#define XCU_ERROR_NOT_SUPPORTED 27

/* CUpti_ActivityKind */
#define XCU_KIND_MEMCPY 1
#define XCU_KIND_MEMSET 2
#define XCU_KIND_KERNEL 3
#define XCU_KIND_CONCURRENT_KERNEL 10

/* CUpti_ActivityFlag */
#define XCU_FLUSH_FORCED 1

/* CUpti_CallbackDomain, CUpti_ApiCallbackSite */
#define XCU_DOMAIN_DRIVER_API 1
#define XCU_DOMAIN_RUNTIME_API 2
#define XCU_API_ENTER 0

/* CUPTI_DRIVER_TRACE_CBID_*: the launches */
#define XCU_CBID_cuLaunch 115
#define XCU_CBID_cuLaunchGrid 116
#define XCU_CBID_cuLaunchGridAsync 117
#define XCU_CBID_cuLaunchKernel 307
#define XCU_CBID_cuLaunchKernel_ptsz 442
#define XCU_CBID_cuLaunchCooperativeKernel 477
#define XCU_CBID_cuLaunchCooperativeKernel_ptsz 478
#define XCU_CBID_cuLaunchKernelEx 652
#define XCU_CBID_cuLaunchKernelEx_ptsz 653
/* CUPTI_RUNTIME_TRACE_CBID_*: the launches */
#define XCU_CBID_cudaLaunchKernel_v7000 211
#define XCU_CBID_cudaLaunchKernel_ptsz_v7000 214
#define XCU_CBID_cudaLaunchCooperativeKernel_v9000 269
#define XCU_CBID_cudaLaunchCooperativeKernel_ptsz_v9000 270
#define XCU_CBID_cudaLaunchKernelExC_v11060 430
#define XCU_CBID_cudaLaunchKernelExC_ptsz_v11060 431
#define XCU_CBID___cudaLaunchKernel_v13000 505
#define XCU_CBID___cudaLaunchKernel_ptsz_v13000 506

/* Records are packed and 8-byte aligned (PACKED_ALIGNMENT, cupti_common.h). */
#define XCU_PACKED __attribute__((__packed__)) __attribute__((aligned(8)))

/* CUpti_Activity: what every record starts with. */
struct XCU_PACKED xcu_activity {
	uint32_t kind;
};

/* The leading fields of CUpti_ActivityKernel10, up to the name. */
struct XCU_PACKED xcu_kernel {
	uint32_t kind;
	uint8_t cache_config;
	uint8_t shared_memory_config;
	uint16_t registers_per_thread;
	uint32_t partitioned_requested;	/* enums: 4 bytes */
	uint32_t partitioned_executed;
	uint64_t start;
	uint64_t end;
	uint64_t completed;
	uint32_t device_id;
	uint32_t context_id;
	uint32_t stream_id;
	int32_t grid_x, grid_y, grid_z;
	int32_t block_x, block_y, block_z;
	int32_t static_shared_memory;
	int32_t dynamic_shared_memory;
	uint32_t local_memory_per_thread;
	uint32_t local_memory_total;
	uint32_t correlation_id;
	int64_t grid_id;
	const char *name;
};

/* The leading fields of CUpti_ActivityMemcpy6, up to the correlation ids. */
struct XCU_PACKED xcu_memcpy {
	uint32_t kind;
	uint8_t copy_kind;		/* CUpti_ActivityMemcpyKind: HTOD 1, DTOH 2, ..., PTOP 10 */
	uint8_t src_kind;
	uint8_t dst_kind;
	uint8_t flags;
	uint64_t bytes;
	uint64_t start;
	uint64_t end;
	uint32_t device_id;
	uint32_t context_id;
	uint32_t stream_id;
	uint32_t correlation_id;
	uint32_t runtime_correlation_id;
};

/* The leading fields of CUpti_ActivityMemset4, up to the correlation id. */
struct XCU_PACKED xcu_memset {
	uint32_t kind;
	uint32_t value;
	uint64_t bytes;
	uint64_t start;
	uint64_t end;
	uint32_t device_id;
	uint32_t context_id;
	uint32_t stream_id;
	uint32_t correlation_id;
};

/* CUpti_CallbackData, whole (the callback's argument for the API domains). */
struct xcu_callback_data {
	uint32_t callback_site;		/* CUpti_ApiCallbackSite */
	const char *function_name;
	const void *function_params;
	void *function_return_value;
	const char *symbol_name;
	void *context;			/* CUcontext */
	uint32_t context_uid;
	uint64_t *correlation_data;
	uint32_t correlation_id;
};

typedef void *xcu_subscriber;		/* CUpti_SubscriberHandle */
typedef void *xcu_context;		/* CUcontext */

typedef void (*xcu_buffer_request_fn)(uint8_t **buffer, size_t *size, size_t *max_records);
typedef void (*xcu_buffer_complete_fn)(xcu_context ctx, uint32_t stream_id, uint8_t *buffer, size_t size,
				       size_t valid_size);
typedef void (*xcu_callback_fn)(void *userdata, uint32_t domain, uint32_t cbid, const void *cbdata);
typedef uint64_t (*xcu_timestamp_fn)(void);

/* The functions used, as libcupti.so exports them (the names are CUPTI's). */
struct xcu_api {
	xcu_result (*cuptiActivityEnable)(uint32_t kind);
	xcu_result (*cuptiActivityDisable)(uint32_t kind);
	xcu_result (*cuptiActivityRegisterCallbacks)(xcu_buffer_request_fn req, xcu_buffer_complete_fn done);
	xcu_result (*cuptiActivityGetNextRecord)(uint8_t *buffer, size_t valid_size, struct xcu_activity **rec);
	xcu_result (*cuptiActivityGetNumDroppedRecords)(xcu_context ctx, uint32_t stream_id, size_t *dropped);
	xcu_result (*cuptiActivityFlushAll)(uint32_t flag);
	xcu_result (*cuptiGetTimestamp)(uint64_t *ts);
	xcu_result (*cuptiSubscribe)(xcu_subscriber *sub, xcu_callback_fn fn, void *userdata);
	xcu_result (*cuptiEnableCallback)(uint32_t enable, xcu_subscriber sub, uint32_t domain, uint32_t cbid);
	/* optional (CUDA 12.? on): CUPTI takes its times from our clock */
	xcu_result (*cuptiActivityRegisterTimestampCallback)(xcu_timestamp_fn fn);
};

#endif
