/*
 * A stand-in libcupti for the cuda tests, where no GPU or CUDA is: the
 * CUPTI functions libxputrace-cuda.so calls, with activity records that
 * the test program (cuda_app.c) makes through xpstub_*: kernels, copies
 * and memsets with the times, ids, names and bytes it chooses, and dropped
 * records. A launch calls the subscriber's callback on the launching
 * thread, as CUDA's driver does; buffers are completed on a thread of
 * their own, as CUPTI's worker does.
 *
 * Its clock: CLOCK_MONOTONIC where the library registers a timestamp
 * callback (then it is the callback), else CLOCK_MONOTONIC + 10^12 ns, a
 * clock of its own the library must convert. XPSTUB_NO_TSCB=1 refuses the
 * callback.
 */
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cuda/cupti_min.h"

#define EXPORT __attribute__((visibility("default")))
#define SLOT 256		/* one record per slot of the buffer */
#define OWN_CLOCK_OFFSET 1000000000000ull

struct pending {
	union {
		struct xcu_activity a;
		struct xcu_kernel k;
		struct xcu_memcpy c;
		struct xcu_memset s;
		unsigned char bytes[SLOT];
	} u;
	char *name;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct pending *pend;
static size_t npend, cap;
static size_t dropped;
static uint32_t next_corr = 1;
static xcu_buffer_request_fn req_fn;
static xcu_buffer_complete_fn done_fn;
static xcu_callback_fn cb_fn;
static void *cb_user;
static xcu_timestamp_fn ts_fn;
static unsigned char enabled[64];
static unsigned char cb_on[3][1024];

static uint64_t mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

EXPORT uint64_t xpstub_now(void)
{
	return ts_fn ? ts_fn() : mono() + OWN_CLOCK_OFFSET;
}

EXPORT xcu_result cuptiActivityEnable(uint32_t kind)
{
	if (kind >= sizeof(enabled))
		return 21;
	enabled[kind] = 1;
	return XCU_SUCCESS;
}

EXPORT xcu_result cuptiActivityDisable(uint32_t kind)
{
	if (kind >= sizeof(enabled))
		return 21;
	enabled[kind] = 0;
	return XCU_SUCCESS;
}

/* 1 while the library collects kernels and has the driver's launch callback on */
EXPORT int xpstub_collecting(void)
{
	return enabled[XCU_KIND_CONCURRENT_KERNEL] && cb_on[XCU_DOMAIN_DRIVER_API][XCU_CBID_cuLaunchKernel];
}

EXPORT xcu_result cuptiActivityRegisterCallbacks(xcu_buffer_request_fn req, xcu_buffer_complete_fn done)
{
	req_fn = req;
	done_fn = done;
	return XCU_SUCCESS;
}

EXPORT xcu_result cuptiActivityGetNextRecord(uint8_t *buffer, size_t valid, struct xcu_activity **rec)
{
	size_t off = *rec ? (size_t)((uint8_t *)*rec - buffer) + SLOT : 0;

	if (off + SLOT > valid)
		return 12;	/* CUPTI_ERROR_MAX_LIMIT_REACHED */
	*rec = (struct xcu_activity *)(buffer + off);
	return XCU_SUCCESS;
}

EXPORT xcu_result cuptiActivityGetNumDroppedRecords(xcu_context ctx, uint32_t stream_id, size_t *n)
{
	(void)ctx, (void)stream_id;
	pthread_mutex_lock(&lock);
	*n = dropped;
	dropped = 0;
	pthread_mutex_unlock(&lock);
	return XCU_SUCCESS;
}

EXPORT xcu_result cuptiGetTimestamp(uint64_t *ts)
{
	*ts = xpstub_now();
	return XCU_SUCCESS;
}

EXPORT xcu_result cuptiActivityRegisterTimestampCallback(xcu_timestamp_fn fn)
{
	const char *no = getenv("XPSTUB_NO_TSCB");

	if (no && *no == '1')
		return XCU_ERROR_NOT_SUPPORTED;
	ts_fn = fn;
	return XCU_SUCCESS;
}

EXPORT xcu_result cuptiSubscribe(xcu_subscriber *sub, xcu_callback_fn fn, void *userdata)
{
	cb_fn = fn;
	cb_user = userdata;
	*sub = (xcu_subscriber)&cb_fn;
	return XCU_SUCCESS;
}

EXPORT xcu_result cuptiEnableCallback(uint32_t on, xcu_subscriber sub, uint32_t domain, uint32_t cbid)
{
	(void)sub;
	if (domain > 2 || cbid >= 1024)
		return 1;
	cb_on[domain][cbid] = (unsigned char)!!on;
	return XCU_SUCCESS;
}

/* Completes every pending record: buffers filled and handed back on a thread of their own. */
static void *complete(void *arg)
{
	struct pending *v;
	size_t n, i = 0;

	(void)arg;
	pthread_setname_np(pthread_self(), "cupti-stub");	/* records come from a thread of another name */
	pthread_mutex_lock(&lock);	/* taken out: the callback asks for the drops under the lock */
	v = pend;
	n = npend;
	pend = NULL;
	npend = cap = 0;
	pthread_mutex_unlock(&lock);
	do {
		uint8_t *buf = NULL;
		size_t size = 0, maxn = 0, used = 0;

		req_fn(&buf, &size, &maxn);
		if (!buf)
			break;
		for (; i < n && used + SLOT <= size; i++, used += SLOT)
			memcpy(buf + used, &v[i].u, SLOT);
		done_fn(NULL, 0, buf, size, used);
	} while (i < n);
	for (size_t j = 0; j < n; j++)
		free(v[j].name);
	free(v);
	return NULL;
}

EXPORT xcu_result cuptiActivityFlushAll(uint32_t flag)
{
	pthread_t t;

	(void)flag;
	if (!done_fn || pthread_create(&t, NULL, complete, NULL))
		return 1;
	pthread_join(t, NULL);
	return XCU_SUCCESS;
}

static struct pending *add(uint32_t kind, const char *name)
{
	struct pending *p;

	if (!enabled[kind])
		return NULL;
	if (npend == cap) {
		size_t n = cap ? 2 * cap : 256;
		struct pending *v = realloc(pend, n * sizeof(*v));

		if (!v)
			abort();
		pend = v;
		cap = n;
	}
	p = &pend[npend++];
	memset(p, 0, sizeof(*p));
	p->u.a.kind = kind;
	p->name = name ? strdup(name) : NULL;
	return p;
}

/*
 * A launch call: the callback at its entry and exit; its correlation id.
 * The runtime's launch enters the driver's inside it, as CUDA's does, with
 * an id of its own; the kernel carries the runtime call's.
 */
static uint32_t api_call(uint32_t domain, uint32_t cbid, const char *fn, const char *symbol)
{
	uint32_t corr = __atomic_fetch_add(&next_corr, 1, __ATOMIC_RELAXED);
	uint64_t data = 0;
	struct xcu_callback_data d = {
		.function_name = fn, .symbol_name = symbol, .context_uid = 1, .correlation_data = &data,
		.correlation_id = corr,
	};
	bool on = cb_fn && cb_on[domain][cbid];

	if (on)
		cb_fn(cb_user, domain, cbid, &d);
	if (domain == XCU_DOMAIN_RUNTIME_API)
		api_call(XCU_DOMAIN_DRIVER_API, XCU_CBID_cuLaunchKernel, "cuLaunchKernel", symbol);
	if (on) {
		d.callback_site = 1;
		cb_fn(cb_user, domain, cbid, &d);
	}
	return corr;
}

/*
 * A kernel launched now on (ctx, stream), run over [start, end) of
 * xpstub_now's clock: by cuLaunchKernel, or with `runtime` by
 * cudaLaunchKernel.
 */
static uint32_t kernel(bool runtime, uint32_t dev, uint32_t ctx, uint32_t stream, const char *name,
		       const uint32_t grid[3], const uint32_t block[3], uint64_t start, uint64_t end)
{
	uint32_t corr = runtime ? api_call(XCU_DOMAIN_RUNTIME_API, XCU_CBID_cudaLaunchKernel_v7000,
					   "cudaLaunchKernel", name)
				: api_call(XCU_DOMAIN_DRIVER_API, XCU_CBID_cuLaunchKernel, "cuLaunchKernel", name);
	struct pending *p;

	pthread_mutex_lock(&lock);
	if ((p = add(XCU_KIND_CONCURRENT_KERNEL, name))) {
		p->u.k.start = start;
		p->u.k.end = end;
		p->u.k.device_id = dev;
		p->u.k.context_id = ctx;
		p->u.k.stream_id = stream;
		p->u.k.grid_x = (int32_t)grid[0], p->u.k.grid_y = (int32_t)grid[1], p->u.k.grid_z = (int32_t)grid[2];
		p->u.k.block_x = (int32_t)block[0], p->u.k.block_y = (int32_t)block[1];
		p->u.k.block_z = (int32_t)block[2];
		p->u.k.correlation_id = corr;
		p->u.k.name = p->name;
	}
	pthread_mutex_unlock(&lock);
	return corr;
}

EXPORT uint32_t xpstub_kernel(uint32_t dev, uint32_t ctx, uint32_t stream, const char *name, const uint32_t grid[3],
			      const uint32_t block[3], uint64_t start, uint64_t end)
{
	return kernel(false, dev, ctx, stream, name, grid, block, start, end);
}

EXPORT uint32_t xpstub_kernel_rt(uint32_t dev, uint32_t ctx, uint32_t stream, const char *name,
				 const uint32_t grid[3], const uint32_t block[3], uint64_t start, uint64_t end)
{
	return kernel(true, dev, ctx, stream, name, grid, block, start, end);
}

/* A copy (kind: CUPTI's copy kind) or, with kind 0xff, a memset, of `bytes` over [start, end). */
EXPORT uint32_t xpstub_copy(uint32_t dev, uint32_t ctx, uint32_t stream, uint32_t kind, uint64_t bytes,
			    uint64_t start, uint64_t end)
{
	uint32_t corr = __atomic_fetch_add(&next_corr, 1, __ATOMIC_RELAXED);
	struct pending *p;

	pthread_mutex_lock(&lock);
	if (kind == 0xff && (p = add(XCU_KIND_MEMSET, NULL))) {
		p->u.s.bytes = bytes, p->u.s.start = start, p->u.s.end = end;
		p->u.s.device_id = dev, p->u.s.context_id = ctx, p->u.s.stream_id = stream;
		p->u.s.correlation_id = corr;
	} else if (kind != 0xff && (p = add(XCU_KIND_MEMCPY, NULL))) {
		p->u.c.copy_kind = (uint8_t)kind;
		p->u.c.bytes = bytes, p->u.c.start = start, p->u.c.end = end;
		p->u.c.device_id = dev, p->u.c.context_id = ctx, p->u.c.stream_id = stream;
		p->u.c.correlation_id = corr;
	}
	pthread_mutex_unlock(&lock);
	return corr;
}

/* Records CUPTI could not keep: said at the next buffer's completion. */
EXPORT void xpstub_drop(size_t n)
{
	pthread_mutex_lock(&lock);
	dropped += n;
	pthread_mutex_unlock(&lock);
}
