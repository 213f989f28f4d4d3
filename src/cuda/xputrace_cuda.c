/*
 * libxputrace-cuda.so: CUDA's GPU activity for xputrace, with no change to
 * the application. CUDA loads it when CUDA_INJECTION64_PATH names it and
 * calls InitializeInjection; it hands CUPTI's concurrent-kernel, memcpy
 * and memset activity records to a tracer through USDT probes (provider
 * xputrace_cuda, src/shared/cuda_probes.h). Each probe has a semaphore,
 * which the kernel raises while a tracer is attached: a thread of the
 * library looks at them ten times a second and enables each kind of
 * activity, and the launch callbacks, only while a tracer wants it, so an
 * untraced process pays for no collection after its first seconds (its
 * grace: what it did then waits for a tracer that is still finding it,
 * as serve finds a new process by its environment). While traced, it asks
 * CUPTI for the records completed each second: a tracer sees a kernel about
 * a second after it ends, not when a buffer fills or the process exits.
 * Launch calls are noted in memory on their thread and handed over in
 * batches before the records of each buffer: a tracer adds no probe to
 * the launch path.
 *
 * CUPTI's times are moved onto CLOCK_MONOTONIC (the clock of the kernel's
 * own events): by CUPTI itself where it takes a timestamp callback, else by
 * the offset between the two clocks measured at start.
 *
 * Built without CUDA's headers (cupti_min.h); libcupti is opened at run
 * time: XPUTRACE_CUPTI names it, else the loader's libcupti.so[.13/.12].
 */
#define _SDT_HAS_SEMAPHORES 1
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/sdt.h>
#include <sys/syscall.h>

#include "shared/cuda_probes.h"
#include "cuda/cupti_min.h"

#define XP_EXPORT __attribute__((visibility("default")))
#define BUF_SIZE (4u << 20)

/* The probes' semaphores: the kernel counts attached tracers here (.probes). */
#define SEMAPHORE(name) unsigned short xputrace_cuda_##name##_semaphore __attribute__((section(".probes")))
SEMAPHORE(kernel);
SEMAPHORE(memcpy);
SEMAPHORE(memset);
SEMAPHORE(launches);
SEMAPHORE(drops);

#define ATTACHED(name) (*(volatile unsigned short *)&xputrace_cuda_##name##_semaphore)

/* the watcher's period, and how many of them between two flushes while traced */
#define WATCH_MS 100
#define FLUSH_EVERY 10
/* how long a new process collects before a tracer must have attached (XPUTRACE_CUDA_GRACE_MS) */
#define GRACE_MS 3000

static struct xcu_api api;
static int64_t clock_offset;		/* CLOCK_MONOTONIC - CUPTI's clock, without the callback */
static unsigned long long dropped_unsaid;	/* dropped while no tracer took the count */

/*
 * Launch calls noted, in batches: the full ones queue for CUPTI's thread
 * to hand over, off the launch path; past MAX_QUEUED (4 MiB of calls, a
 * program whose kernels CUPTI does not deliver) the calling thread hands
 * one over itself. A runtime launch's depth on this thread.
 */
struct batch {
	struct batch *next;
	struct xp_cuda_launches b;
};
#define MAX_QUEUED 1024
static pthread_mutex_t marks_lock = PTHREAD_MUTEX_INITIALIZER;
static struct batch *filling, *queued, **queued_tail = &queued;
static unsigned int nqueued;
static __thread unsigned int in_runtime_launch;
static __thread unsigned int launch_gen;	/* the callbacks' generation in_runtime_launch counts */
static __thread uint32_t thread_id;

/*
 * The watcher: what is enabled now, as the tracers attached want it.
 * callbacks_gen changes each time the callbacks are turned on, so that a
 * thread's depth counted before (its exit maybe never seen) is not kept.
 */
static pthread_mutex_t watch_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t watch_cond = PTHREAD_COND_INITIALIZER;
static pthread_t watcher;
static int watching, watch_stop;
static uint64_t grace_end_ns;
static xcu_subscriber subscriber;
static int subscribed, callbacks_on, kinds_on[3];
static unsigned int callbacks_gen;
/* one buffer's marks and records at a time (CUPTI's thread and a flush may both complete one) */
static pthread_mutex_t deliver_lock = PTHREAD_MUTEX_INITIALIZER;

static void say(const char *fmt, const char *arg)
{
	if (!getenv("XPUTRACE_CUDA_QUIET")) {
		fputs("libxputrace-cuda: ", stderr);
		fprintf(stderr, fmt, arg);
		fputc('\n', stderr);
	}
}

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint64_t mono(uint64_t t)
{
	return t ? (uint64_t)((int64_t)t + clock_offset) : 0;
}

static void buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
	*buffer = aligned_alloc(8, BUF_SIZE);
	*size = *buffer ? BUF_SIZE : 0;
	*max_records = 0;
}

static void fire_kernel(const struct xcu_kernel *k)
{
	struct xp_cuda_ev e = {
		.start_ns = mono(k->start), .end_ns = mono(k->end), .name = (uintptr_t)k->name,
		.what = XP_CUDA_KERNEL, .corr = k->correlation_id, .device = k->device_id,
		.context = k->context_id, .stream = k->stream_id,
		.grid = { (__u32)k->grid_x, (__u32)k->grid_y, (__u32)k->grid_z },
		.block = { (__u32)k->block_x, (__u32)k->block_y, (__u32)k->block_z },
	};

	STAP_PROBE1(xputrace_cuda, kernel, &e);
}

static void fire_memcpy(const struct xcu_memcpy *m)
{
	struct xp_cuda_ev e = {
		.start_ns = mono(m->start), .end_ns = mono(m->end), .bytes = m->bytes, .what = XP_CUDA_MEMCPY,
		.corr = m->correlation_id, .device = m->device_id, .context = m->context_id,
		.stream = m->stream_id, .kind = m->copy_kind,
	};

	STAP_PROBE1(xputrace_cuda, memcpy, &e);
}

static void fire_memset(const struct xcu_memset *m)
{
	struct xp_cuda_ev e = {
		.start_ns = mono(m->start), .end_ns = mono(m->end), .bytes = m->bytes, .what = XP_CUDA_MEMSET,
		.corr = m->correlation_id, .device = m->device_id, .context = m->context_id,
		.stream = m->stream_id,
	};

	STAP_PROBE1(xputrace_cuda, memset, &e);
}

static void one_record(const struct xcu_activity *r)
{
	switch (r->kind) {
	case XCU_KIND_KERNEL:
	case XCU_KIND_CONCURRENT_KERNEL:
		if (ATTACHED(kernel))
			fire_kernel((const struct xcu_kernel *)r);
		break;
	case XCU_KIND_MEMCPY:
		if (ATTACHED(memcpy))
			fire_memcpy((const struct xcu_memcpy *)r);
		break;
	case XCU_KIND_MEMSET:
		if (ATTACHED(memset))
			fire_memset((const struct xcu_memset *)r);
		break;
	}
}

/* A batch of launch calls, to the tracer, and freed. */
static void hand_over(struct batch *b)
{
	if (b->b.n && ATTACHED(launches))
		STAP_PROBE1(xputrace_cuda, launches, &b->b);
	free(b);
}

/* Every launch call noted so far, in the order noted. */
static void flush_marks(void)
{
	struct batch *q, *f, *next;

	pthread_mutex_lock(&marks_lock);
	q = queued;
	f = filling;
	queued = filling = NULL;
	queued_tail = &queued;
	nqueued = 0;
	pthread_mutex_unlock(&marks_lock);
	for (; q; q = next) {
		next = q->next;
		hand_over(q);
	}
	if (f)
		hand_over(f);
}

static void buffer_completed(xcu_context ctx, uint32_t stream_id, uint8_t *buffer, size_t size, size_t valid)
{
	struct xcu_activity *r = NULL;
	size_t dropped = 0;

	(void)size;
	pthread_mutex_lock(&deliver_lock);
	/* a kernel's launch call before the kernel: every call of this buffer's kernels was noted */
	flush_marks();
	while (valid && api.cuptiActivityGetNextRecord(buffer, valid, &r) == XCU_SUCCESS)
		one_record(r);
	pthread_mutex_unlock(&deliver_lock);
	if (api.cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped) == XCU_SUCCESS && dropped) {
		if (ATTACHED(drops)) {
			struct xp_cuda_ev e = { .bytes = dropped, .what = XP_CUDA_DROPS, .stream = stream_id };

			STAP_PROBE1(xputrace_cuda, drops, &e);
		} else {
			__atomic_add_fetch(&dropped_unsaid, dropped, __ATOMIC_RELAXED);
		}
	}
	free(buffer);
}

/*
 * A launch call entered: its time and correlation id, noted for the next
 * batch. A runtime launch enters the driver's launch inside it, with an
 * id of its own; its kernel carries the runtime call's, the one noted.
 */
static void api_callback(void *userdata, uint32_t domain, uint32_t cbid, const void *cbdata)
{
	const struct xcu_callback_data *d = cbdata;

	(void)userdata;
	if (launch_gen != __atomic_load_n(&callbacks_gen, __ATOMIC_RELAXED)) {
		launch_gen = __atomic_load_n(&callbacks_gen, __ATOMIC_RELAXED);
		in_runtime_launch = 0;
	}
	if (domain == XCU_DOMAIN_RUNTIME_API) {
		if (d->callback_site != XCU_API_ENTER) {
			in_runtime_launch -= !!in_runtime_launch;
			return;
		}
		in_runtime_launch++;
	} else if (d->callback_site != XCU_API_ENTER || in_runtime_launch) {
		return;
	}
	if (!thread_id)
		thread_id = (uint32_t)syscall(SYS_gettid);
	struct xp_cuda_launch m = {
		.ts_ns = monotonic_ns(), .name = (uintptr_t)d->function_name, .corr = d->correlation_id,
		.tid = thread_id, .context = d->context_uid, .kind = domain << 16 | cbid,
	};

	pthread_mutex_lock(&marks_lock);
	if (!filling && (filling = malloc(sizeof(*filling))))
		filling->b.n = 0;
	if (filling) {
		filling->b.m[filling->b.n++] = m;
		if (filling->b.n == XP_CUDA_LAUNCH_BATCH) {
			struct batch *full = filling;

			filling = NULL;
			if (nqueued < MAX_QUEUED) {
				full->next = NULL;
				*queued_tail = full;
				queued_tail = &full->next;
				nqueued++;
			} else {
				hand_over(full);
			}
		}
	}
	pthread_mutex_unlock(&marks_lock);
}

static const uint32_t driver_launches[] = {
	XCU_CBID_cuLaunch, XCU_CBID_cuLaunchGrid, XCU_CBID_cuLaunchGridAsync, XCU_CBID_cuLaunchKernel,
	XCU_CBID_cuLaunchKernel_ptsz, XCU_CBID_cuLaunchCooperativeKernel,
	XCU_CBID_cuLaunchCooperativeKernel_ptsz, XCU_CBID_cuLaunchKernelEx, XCU_CBID_cuLaunchKernelEx_ptsz,
};
static const uint32_t runtime_launches[] = {
	XCU_CBID_cudaLaunchKernel_v7000, XCU_CBID_cudaLaunchKernel_ptsz_v7000,
	XCU_CBID_cudaLaunchCooperativeKernel_v9000, XCU_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
	XCU_CBID_cudaLaunchKernelExC_v11060, XCU_CBID_cudaLaunchKernelExC_ptsz_v11060,
	XCU_CBID___cudaLaunchKernel_v13000, XCU_CBID___cudaLaunchKernel_ptsz_v13000,
};

/* The launch callbacks on or off (subscribed once, at start). */
static void set_launch_callbacks(int on)
{
	if (!subscribed || on == callbacks_on)
		return;
	if (on)
		__atomic_add_fetch(&callbacks_gen, 1, __ATOMIC_RELAXED);
	for (size_t i = 0; i < sizeof(driver_launches) / sizeof(driver_launches[0]); i++)
		api.cuptiEnableCallback((uint32_t)on, subscriber, XCU_DOMAIN_DRIVER_API, driver_launches[i]);
	for (size_t i = 0; i < sizeof(runtime_launches) / sizeof(runtime_launches[0]); i++)
		api.cuptiEnableCallback((uint32_t)on, subscriber, XCU_DOMAIN_RUNTIME_API, runtime_launches[i]);
	callbacks_on = on;
}

/* One kind of activity on or off; said once if CUPTI refuses it. */
static void set_kind(int i, int on)
{
	static const uint32_t kinds[3] = { XCU_KIND_CONCURRENT_KERNEL, XCU_KIND_MEMCPY, XCU_KIND_MEMSET };
	static const char *const names[3] = { "concurrent-kernel", "memcpy", "memset" };
	static int refused[3];

	if (on == kinds_on[i])
		return;
	if ((on ? api.cuptiActivityEnable : api.cuptiActivityDisable)(kinds[i]) != XCU_SUCCESS) {
		if (on && !refused[i]++)
			say("the %s activity could not be enabled", names[i]);
		return;
	}
	kinds_on[i] = on;
}

/*
 * CUPTI's collection as the tracers attached now want it, or all of it in
 * the grace; with `flush`, the completed records of a traced process
 * handed over (in the grace, with no tracer yet, CUPTI keeps them). When
 * the last tracer has gone, what CUPTI still holds is emptied (dropped,
 * unformatted) before the kinds are turned off.
 */
static void follow_tracers(int flush)
{
	int grace = grace_end_ns && monotonic_ns() < grace_end_ns;
	int want[3] = { grace || ATTACHED(kernel), grace || ATTACHED(memcpy), grace || ATTACHED(memset) };
	int any = want[0] || want[1] || want[2], had = kinds_on[0] || kinds_on[1] || kinds_on[2];
	int traced = ATTACHED(kernel) || ATTACHED(memcpy) || ATTACHED(memset);

	if (!grace)
		grace_end_ns = 0;
	set_launch_callbacks(grace || ATTACHED(launches));
	for (int i = 0; i < 3; i++)
		if (want[i])
			set_kind(i, 1);
	if ((flush && traced) || (had && !any))
		api.cuptiActivityFlushAll(0);
	for (int i = 0; i < 3; i++)
		if (!want[i])
			set_kind(i, 0);
}

static void *watch(void *arg)
{
	struct timespec t;
	unsigned int n = 0;

	(void)arg;
	pthread_mutex_lock(&watch_lock);
	while (!watch_stop) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		t.tv_nsec += WATCH_MS * 1000000L;
		if (t.tv_nsec >= 1000000000L)
			t.tv_sec++, t.tv_nsec -= 1000000000L;
		if (pthread_cond_timedwait(&watch_cond, &watch_lock, &t) == 0 && watch_stop)
			break;
		pthread_mutex_unlock(&watch_lock);
		follow_tracers(++n % FLUSH_EVERY == 0);
		pthread_mutex_lock(&watch_lock);
	}
	pthread_mutex_unlock(&watch_lock);
	return NULL;
}

static void start_watching(void)
{
	const char *g = getenv("XPUTRACE_CUDA_GRACE_MS");
	pthread_condattr_t ca;

	grace_end_ns = monotonic_ns() + (uint64_t)(g && *g ? strtoul(g, NULL, 10) : GRACE_MS) * 1000000ull;
	if (api.cuptiSubscribe(&subscriber, api_callback, NULL) == XCU_SUCCESS)
		subscribed = 1;
	else
		say("%s", "cuptiSubscribe failed (another subscriber?): launches are not marked");
	follow_tracers(0);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&watch_cond, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&watcher, NULL, watch, NULL)) {
		say("%s", "no thread to follow tracers: collecting all along");
		for (int i = 0; i < 3; i++)
			set_kind(i, 1);
		set_launch_callbacks(1);
		return;
	}
	watching = 1;
}

/* A forked child: its one thread is not its parent's, nor are the parent's marks its own. */
static void in_child(void)
{
	watching = 0;	/* the watcher is the parent's */
	thread_id = 0;
	filling = queued = NULL;
	queued_tail = &queued;
	nqueued = 0;
	pthread_mutex_init(&marks_lock, NULL);
	pthread_mutex_init(&deliver_lock, NULL);
	pthread_mutex_init(&watch_lock, NULL);
}

static void at_exit(void)
{
	if (watching) {
		pthread_mutex_lock(&watch_lock);
		watch_stop = 1;
		pthread_cond_signal(&watch_cond);
		pthread_mutex_unlock(&watch_lock);
		pthread_join(watcher, NULL);
		watching = 0;
	}
	api.cuptiActivityFlushAll(XCU_FLUSH_FORCED);
	flush_marks();
	if (dropped_unsaid) {
		char n[32];

		snprintf(n, sizeof(n), "%llu", dropped_unsaid);
		say("CUPTI dropped %s activity records", n);
	}
}

static int load_cupti(void)
{
	static const char *const names[] = { "libcupti.so", "libcupti.so.13", "libcupti.so.12" };
	const char *env = getenv("XPUTRACE_CUPTI");
	void *h = NULL;

	if (env && *env)
		h = dlopen(env, RTLD_NOW | RTLD_GLOBAL);
	for (size_t i = 0; !h && !(env && *env) && i < sizeof(names) / sizeof(names[0]); i++)
		h = dlopen(names[i], RTLD_NOW | RTLD_GLOBAL);
	if (!h) {
		say("cannot open libcupti (set XPUTRACE_CUPTI to its path): %s", dlerror());
		return -1;
	}
#define SYM(f) (*(void **)&api.f = dlsym(h, #f))
	if (!SYM(cuptiActivityEnable) || !SYM(cuptiActivityDisable) || !SYM(cuptiActivityRegisterCallbacks) ||
	    !SYM(cuptiActivityGetNextRecord) || !SYM(cuptiActivityGetNumDroppedRecords) ||
	    !SYM(cuptiActivityFlushAll) || !SYM(cuptiGetTimestamp) || !SYM(cuptiSubscribe) ||
	    !SYM(cuptiEnableCallback)) {
		say("libcupti lacks a function: %s", dlerror());
		return -1;
	}
	SYM(cuptiActivityRegisterTimestampCallback);
#undef SYM
	return 0;
}

/* CUPTI's clock onto CLOCK_MONOTONIC: its own callback, else the offset (the closer of 3 reads). */
static void set_clock(void)
{
	uint64_t best = UINT64_MAX, c;

	if (api.cuptiActivityRegisterTimestampCallback &&
	    api.cuptiActivityRegisterTimestampCallback(monotonic_ns) == XCU_SUCCESS)
		return;
	for (int i = 0; i < 3; i++) {
		uint64_t a = monotonic_ns(), b;

		if (api.cuptiGetTimestamp(&c) != XCU_SUCCESS)
			return;
		b = monotonic_ns();
		if (b - a < best) {
			best = b - a;
			clock_offset = (int64_t)(a + (b - a) / 2) - (int64_t)c;
		}
	}
}

/* Called by CUDA once, with CUDA_INJECTION64_PATH naming this library; 1 on success. */
XP_EXPORT int InitializeInjection(void)
{
	static int done;

	if (__atomic_exchange_n(&done, 1, __ATOMIC_ACQ_REL))
		return 1;
	if (load_cupti())
		return 0;
	set_clock();
	if (api.cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) != XCU_SUCCESS) {
		say("%s", "cuptiActivityRegisterCallbacks failed: no GPU activity");
		return 0;
	}
	start_watching();
	pthread_atfork(NULL, NULL, in_child);
	atexit(at_exit);
	return 1;
}
