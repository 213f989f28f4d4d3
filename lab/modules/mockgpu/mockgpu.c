// SPDX-License-Identifier: GPL-2.0
/*
 * mockgpu: a mock GPU for the xputrace lab.
 *
 * THIS MODULE STANDS IN FOR GPU HARDWARE. There is no device behind it: a
 * "ring" executes a job by waiting for an hrtimer. Everything around that is
 * the real kernel: the jobs go through the real DRM GPU scheduler
 * (drm_sched_init, entities, drm_sched_job_init/arm/push, dependencies on
 * other jobs' fences), so the real gpu_scheduler tracepoints fire with real
 * pids, comms, fences and timings, exactly as a hardware driver makes them.
 *
 * Interface
 *   /dev/mockgpu (misc device), one drm_sched entity per ring per open file.
 *   write: one command per line, from the caller's context (so the
 *   submitting pid/comm in the trace are the caller's):
 *     submit ring=R dur_us=D [dep=H[,H...]] [count=N]
 *         queue N jobs (default 1) on ring R, each executing D us once its
 *         dependencies (earlier jobs' handles) are done
 *     wait=H        block until job H is done (10 s timeout, -ETIMEDOUT)
 *     sync          block until every job this file submitted is done
 *     prio=P        the file's drm_sched priority, low, normal (default) or
 *                   high; only before its first job (-EBUSY after)
 *   read: the handles of the jobs the last write submitted, "H H ...\n".
 *   ioctl MOCK_IOCTL_SUBMIT (struct mock_submit_args): what the write
 *     command "submit ring=R dur_us=D count=N" does, from the caller's
 *     context, as a GPU driver's submit ioctl; returns the last job's
 *     handle in `handle`, and read gives all of them as after a write.
 *     alloc=KB      allocate a KB KiB buffer (zeroed: resident) for this file,
 *         freed when it is closed (at most MOCK_MAX_BOS of them)
 *   /proc/PID/fdinfo/FD: the file's usage as a DRM driver writes it
 *   (drm-usage-stats): drm-driver, drm-client-id, drm-engine-<ring> (the
 *   time the ring executed this file's jobs: from the ring starting each
 *   to its fence's signal, the same jobs drm_sched runs), drm-total- and
 *   drm-resident-system (its buffers).
 *   render_node=1: the same mock GPU is also a DRM driver with a render
 *   node, /dev/dri/renderD<N>, whose files are what /dev/mockgpu's are
 *   (mockgpu_drm.c); without it, nothing DRM is registered.
 *   /sys/kernel/debug/mockgpu/jobs: one line per finished job with the
 *   module's own clock (run_job -> fence signal and ring execution time),
 *   for tests to compare with what a tracer measured. Writing to it clears.
 *   /sys/kernel/debug/mockgpu/stats: totals per ring and the lateness
 *   compensation in use.
 *
 * Timing under emulation: an hrtimer fires late by tens of microseconds
 * (more under QEMU TCG), so each completion timer is armed early by the
 * running median of the lateness measured on previous jobs.
 *
 * Builds for Linux 6.1 (Debian 12) and for 6.17+ (drm_sched_job_init takes
 * credits and a DRM client id; num_rqs in the init args; hrtimer_setup).
 *
 * MOCK_XDNA: the same source built as amdxdna.ko (xdna_mock.c defines
 * MOCK_XDNA and includes this file), a test double of AMD's NPU driver
 * amdxdna, which is built on the same drm_sched. It is not AMD's driver and
 * has no NPU behind it. Compared with mockgpu it:
 *   - names every ring's drm_gpu_scheduler "amdxdna_js" (the real driver's
 *     scheduler name), its misc device /dev/xdnamock, its debugfs directory
 *     /sys/kernel/debug/xdnamock and its platform device "xdnamock", so it
 *     can be loaded beside mockgpu;
 *   - gives each open file a hardware-context name as the real driver does,
 *     "hwctx.<tgid of the opener>.<client id>", and numbers the file's jobs
 *     from 0 in submission order (seq, assigned after drm_sched_job_arm);
 *   - fires the real driver's amdxdna:xdna_job event (same field layout,
 *     xdna_mock_trace.h) where the real driver fires it in Linux 7.3
 *     (drivers/accel/amdxdna/aie2_ctx.c): "job run" at the start of run_job,
 *     "sent to device" at its end (just before the job is handed to the
 *     ring, so that it always precedes the job's "signaling fence"),
 *     "signaling fence" just before the hardware fence is signalled, "job
 *     free" in free_job; with the hwctx name, seq and op 0 (DEFAULT_IO);
 *   - completes a job in a worker, which the timer (the "interrupt")
 *     queues, as the real driver does in its mailbox's receive worker;
 *   - appends two columns to debugfs jobs: the hwctx name and seq.
 * Without MOCK_XDNA, mockgpu.ko is exactly what it was.
 */
#include <linux/module.h>
#include <linux/version.h>
#include <linux/platform_device.h>
#include <linux/miscdevice.h>
#include <linux/fs.h>
#include <linux/uaccess.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>
#include <linux/kref.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/sort.h>
#include <linux/dma-fence.h>
#include <linux/sched.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/workqueue.h>
#include <drm/gpu_scheduler.h>

#ifdef MOCK_XDNA
#define MOCK_NAME "xdnamock"	/* misc device, debugfs directory, platform device */
#define MOCK_PFX "amdxdna (xputrace lab double): "
#define MOCK_FENCE_DRIVER "amdxdna"
#define MOCK_SCHED_NAME(ring) "amdxdna_js"	/* the real driver's, for every ring */
#define MOCK_HWCTX_LEN 40	/* "hwctx." + tgid + "." + client id */
#define CREATE_TRACE_POINTS
#include "xdna_mock_trace.h"
/* op: the real driver's DEFAULT_IO (0), as for an ordinary command */
#define MOCK_TRACE_JOB(job, what) \
	trace_xdna_job(&(job)->base, (job)->hwctx, what, (job)->seq, 0)
#define MOCK_JOBS_EXTRA_HDR " hwctx seq"
#define MOCK_JOBS_EXTRA_FMT " %s %llu"
#define MOCK_JOBS_EXTRA_ARGS(r) , (r)->hwctx, (r)->seq
#else
#define MOCK_NAME "mockgpu"
#define MOCK_PFX "mockgpu: "
#define MOCK_FENCE_DRIVER "mockgpu"
#define MOCK_SCHED_NAME(ring) ((ring)->name)
#define MOCK_TRACE_JOB(job, what) do { } while (0)
#define MOCK_JOBS_EXTRA_HDR ""
#define MOCK_JOBS_EXTRA_FMT ""
#define MOCK_JOBS_EXTRA_ARGS(r)
#endif

#define MOCK_MAX_RINGS 8
#define MOCK_FENCE_SLOTS 4096	/* jobs a dependency may refer back to */
#define MOCK_LOG_SLOTS 8192	/* finished-job records kept for debugfs */
#define MOCK_LATE_SAMPLES 31
#define MOCK_MAX_DEPS 8
#define MOCK_MAX_BATCH 256
#define MOCK_MAX_BOS 64

static unsigned int nrings = 2;
module_param(nrings, uint, 0444);
MODULE_PARM_DESC(nrings, "number of rings (drm_gpu_scheduler instances), 1..8");
static unsigned int hw_depth = 4;
module_param(hw_depth, uint, 0444);
MODULE_PARM_DESC(hw_depth, "jobs a ring accepts from the scheduler at once (credit limit)");
static bool compensate = true;
module_param(compensate, bool, 0644);
MODULE_PARM_DESC(compensate, "arm completion timers early by the median measured lateness");

struct mock_ring {
	struct drm_gpu_scheduler sched;
	char name[16];
	unsigned int idx;
	u64 fence_ctx;
	atomic64_t fence_seq;
	spinlock_t fence_lock;	/* for the hardware fences */
	spinlock_t busy_lock;	/* the ring executes its jobs one after the other: */
	bool busy;		/* a job's timer is armed */
	struct list_head pending;	/* jobs handed over by run_job, waiting for the ring */
	atomic64_t jobs_done, exec_ns_total;
};

/* A file's usage for its fdinfo: its jobs hold it too, as one may finish after close. */
struct mock_usage {
	struct kref ref;
	atomic64_t busy_ns[MOCK_MAX_RINGS];
};

static void mock_usage_free(struct kref *ref)
{
	kfree(container_of(ref, struct mock_usage, ref));
}

struct mock_job {
	struct drm_sched_job base;
	struct mock_usage *usage;
	struct mock_ring *ring;
	struct dma_fence *hw;
	struct hrtimer timer;
	struct list_head node;
	u64 handle, client_id;
	u32 dur_us;
	pid_t pid;
	char comm[TASK_COMM_LEN];
	u64 push_ns, run_ns, start_ns, expiry_ns, armed_ns;
	u64 fin_ctx, fin_seqno;
#ifdef MOCK_XDNA
	char hwctx[MOCK_HWCTX_LEN];	/* a copy: the file may be closed before free_job */
	u64 seq;
	struct work_struct done_work;	/* the completion, in a worker as the real driver's */
	u64 irq_ns;			/* when the timer (the interrupt) fired */
#endif
};

struct mock_file {
	struct drm_sched_entity entity[MOCK_MAX_RINGS];
	u64 client_id;
	struct dma_fence *last[MOCK_MAX_RINGS];	/* last finished fence per ring */
	struct mutex lock;
	u64 batch[MOCK_MAX_BATCH];
	unsigned int nbatch;
	struct mock_usage *usage;
	void *bo[MOCK_MAX_BOS];		/* alloc=KB: its buffers */
	unsigned int nbo;
	u64 bo_bytes;
#ifdef MOCK_XDNA
	char hwctx[MOCK_HWCTX_LEN];	/* the hardware context's name */
	u64 seq;			/* the next job's sequence number */
#endif
};

struct mock_rec {
	u64 handle, client_id, fin_ctx, fin_seqno;
	u64 push_ns, run_ns, start_ns, signal_ns;
	u32 ring, dur_us;
	s64 late_ns;
	pid_t pid;
	char comm[TASK_COMM_LEN];
#ifdef MOCK_XDNA
	char hwctx[MOCK_HWCTX_LEN];
	u64 seq;
#endif
};

static struct platform_device *mock_pdev;
static struct mock_ring rings[MOCK_MAX_RINGS];
static atomic64_t next_handle = ATOMIC64_INIT(0);
static atomic64_t next_client = ATOMIC64_INIT(0);
static atomic_t live_jobs = ATOMIC_INIT(0);	/* allocated and not yet freed by the scheduler */

static DEFINE_SPINLOCK(slot_lock);
static struct { u64 handle; struct dma_fence *fence; } slots[MOCK_FENCE_SLOTS];

static DEFINE_SPINLOCK(log_lock);
static struct mock_rec *joblog;
static u64 log_count;	/* records ever written; the last MOCK_LOG_SLOTS are kept */

static DEFINE_SPINLOCK(late_lock);
static s64 late[MOCK_LATE_SAMPLES];
static unsigned int late_n, late_pos;
static s64 late_median;
static struct dentry *dbg_dir;

/* ---- hardware fences: signalled by the ring's "execution" timer ---- */
static const char *mock_fence_driver(struct dma_fence *f) { return MOCK_FENCE_DRIVER; }
static const char *mock_fence_timeline(struct dma_fence *f)
{
	return "mock-hw";
}
static const struct dma_fence_ops mock_fence_ops = {
	.get_driver_name = mock_fence_driver,
	.get_timeline_name = mock_fence_timeline,
};

static int cmp_s64(const void *a, const void *b)
{
	s64 x = *(const s64 *)a, y = *(const s64 *)b;
	return x < y ? -1 : x > y;
}

/* Record one lateness sample and recompute the median (hardirq context). */
static void late_add(s64 ns)
{
	s64 tmp[MOCK_LATE_SAMPLES];
	unsigned long flags;
	unsigned int n;

	spin_lock_irqsave(&late_lock, flags);
	late[late_pos] = ns;
	late_pos = (late_pos + 1) % MOCK_LATE_SAMPLES;
	if (late_n < MOCK_LATE_SAMPLES)
		late_n++;
	n = late_n;
	memcpy(tmp, late, n * sizeof(s64));
	sort(tmp, n, sizeof(s64), cmp_s64, NULL);
	late_median = tmp[n / 2];
	spin_unlock_irqrestore(&late_lock, flags);
}

/* The ring begins executing @job at @start: arm its completion timer. */
static void mock_job_start(struct mock_job *job, ktime_t start)
{
	ktime_t expiry = ktime_add_us(start, job->dur_us), arm;
	unsigned long flags;
	s64 early = 0;

	if (compensate) {
		spin_lock_irqsave(&late_lock, flags);
		early = late_median;
		spin_unlock_irqrestore(&late_lock, flags);
		early = clamp_t(s64, early, 0, (s64)job->dur_us * NSEC_PER_USEC / 2);
	}
	arm = ktime_sub_ns(expiry, early);
	job->start_ns = ktime_to_ns(start);
	job->expiry_ns = ktime_to_ns(expiry);
	job->armed_ns = ktime_to_ns(arm);
	hrtimer_start(&job->timer, arm, HRTIMER_MODE_ABS);
}

/* The ring finished @job at @now (its timer's time): signal, log, start the next. */
static void mock_job_complete(struct mock_job *job, u64 now)
{
	struct mock_job *next;
	struct mock_ring *ring = job->ring;
	u64 signal_ns;
	struct mock_rec *r;
	unsigned long flags;

	/*
	 * Signal first, as a ring signals its fences in order: the next job's
	 * timer is armed only after this fence is signalled, so its completion
	 * can never overtake this one's, even when its timer fires on another
	 * CPU. The job stays valid until we return (free_job cancels the timer,
	 * which waits for this callback, and in the amdxdna double flushes
	 * the worker that calls this).
	 */
	signal_ns = ktime_get_ns();
	MOCK_TRACE_JOB(job, "signaling fence");
	dma_fence_signal(job->hw);

	late_add((s64)(now - job->armed_ns));
	atomic64_inc(&ring->jobs_done);
	atomic64_add(signal_ns - job->start_ns, &ring->exec_ns_total);
	atomic64_add(signal_ns - job->start_ns, &job->usage->busy_ns[ring->idx]);

	spin_lock_irqsave(&log_lock, flags);
	r = &joblog[log_count % MOCK_LOG_SLOTS];
	log_count++;
	r->handle = job->handle;
	r->client_id = job->client_id;
	r->fin_ctx = job->fin_ctx;
	r->fin_seqno = job->fin_seqno;
	r->push_ns = job->push_ns;
	r->run_ns = job->run_ns;
	r->start_ns = job->start_ns;
	r->signal_ns = signal_ns;
	r->ring = ring->idx;
	r->dur_us = job->dur_us;
	r->late_ns = (s64)(now - job->expiry_ns);
	r->pid = job->pid;
	memcpy(r->comm, job->comm, TASK_COMM_LEN);
#ifdef MOCK_XDNA
	memcpy(r->hwctx, job->hwctx, MOCK_HWCTX_LEN);
	r->seq = job->seq;
#endif
	spin_unlock_irqrestore(&log_lock, flags);

	/* The ring moves on to its next job, as hardware would. */
	spin_lock_irqsave(&ring->busy_lock, flags);
	next = list_first_entry_or_null(&ring->pending, struct mock_job, node);
	if (next)
		list_del(&next->node);
	else
		ring->busy = false;
	spin_unlock_irqrestore(&ring->busy_lock, flags);
	if (next)
		mock_job_start(next, ns_to_ktime(now));
}

#ifdef MOCK_XDNA
/*
 * The real driver handles a completion in its mailbox's receive worker, not
 * in the interrupt: the timer (the interrupt) hands the job to a worker.
 */
static void mock_job_work(struct work_struct *w)
{
	struct mock_job *job = container_of(w, struct mock_job, done_work);

	mock_job_complete(job, job->irq_ns);
}

static enum hrtimer_restart mock_job_timer(struct hrtimer *t)
{
	struct mock_job *job = container_of(t, struct mock_job, timer);

	job->irq_ns = ktime_get_ns();
	queue_work(system_highpri_wq, &job->done_work);
	return HRTIMER_NORESTART;
}
#else
static enum hrtimer_restart mock_job_timer(struct hrtimer *t)
{
	mock_job_complete(container_of(t, struct mock_job, timer), ktime_get_ns());
	return HRTIMER_NORESTART;
}
#endif

/* ---- drm_sched backend ---- */
static struct dma_fence *mock_run_job(struct drm_sched_job *sj)
{
	struct mock_job *job = container_of(sj, struct mock_job, base);
	struct mock_ring *ring = job->ring;
	struct dma_fence *f;
	unsigned long flags;
	ktime_t now = ktime_get();
	bool idle;

	MOCK_TRACE_JOB(job, "job run");
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f) {
		MOCK_TRACE_JOB(job, "sent to device");	/* as the real driver on failure */
		return ERR_PTR(-ENOMEM);
	}
	dma_fence_init(f, &mock_fence_ops, &ring->fence_lock, ring->fence_ctx,
		       atomic64_inc_return(&ring->fence_seq));
	job->hw = f;

	job->run_ns = ktime_to_ns(now);
	/*
	 * The real driver's last event in run_job. Fired before the job is
	 * handed to the ring: once it is, its completion timer may run (on
	 * this CPU's interrupt or another CPU's) before we get here again,
	 * and "signaling fence" must not come before "sent to device".
	 */
	MOCK_TRACE_JOB(job, "sent to device");
	/* One job at a time on a ring: start now if idle, else queue. */
	spin_lock_irqsave(&ring->busy_lock, flags);
	if (ring->busy) {
		list_add_tail(&job->node, &ring->pending);
		idle = false;
	} else {
		ring->busy = true;
		idle = true;
	}
	spin_unlock_irqrestore(&ring->busy_lock, flags);
	if (idle)
		mock_job_start(job, now);
	return dma_fence_get(f);
}

static enum drm_gpu_sched_stat mock_timedout_job(struct drm_sched_job *sj)
{
	pr_warn(MOCK_PFX "job timed out on %s\n", sj->sched->name);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
	return DRM_GPU_SCHED_STAT_RESET;
#else
	return DRM_GPU_SCHED_STAT_NOMINAL;
#endif
}

static void mock_free_job(struct drm_sched_job *sj)
{
	struct mock_job *job = container_of(sj, struct mock_job, base);

	MOCK_TRACE_JOB(job, "job free");	/* before drm_sched_job_cleanup, as the real driver */
	hrtimer_cancel(&job->timer);	/* the callback may still be returning */
#ifdef MOCK_XDNA
	flush_work(&job->done_work);	/* the worker may still be logging it */
#endif
	drm_sched_job_cleanup(sj);
	if (job->hw)
		dma_fence_put(job->hw);
	kref_put(&job->usage->ref, mock_usage_free);
	kfree(job);
	atomic_dec(&live_jobs);
}

static const struct drm_sched_backend_ops mock_sched_ops = {
	.run_job = mock_run_job,
	.timedout_job = mock_timedout_job,
	.free_job = mock_free_job,
};

/* ---- fences that later jobs may depend on, by handle ---- */
static void slot_put(u64 handle, struct dma_fence *f)
{
	struct dma_fence *old;
	unsigned int i = handle % MOCK_FENCE_SLOTS;

	spin_lock(&slot_lock);
	old = slots[i].fence;
	slots[i].handle = handle;
	slots[i].fence = dma_fence_get(f);
	spin_unlock(&slot_lock);
	if (old)
		dma_fence_put(old);
}

/* A new reference to job @handle's finished fence, NULL if long gone. */
static struct dma_fence *slot_get(u64 handle)
{
	struct dma_fence *f = NULL;
	unsigned int i = handle % MOCK_FENCE_SLOTS;

	spin_lock(&slot_lock);
	if (slots[i].fence && slots[i].handle == handle)
		f = dma_fence_get(slots[i].fence);
	spin_unlock(&slot_lock);
	return f;
}

static int mock_submit(struct mock_file *mf, unsigned int r, u32 dur_us,
		       const u64 *deps, unsigned int ndeps, u64 *handle_out)
{
	struct mock_job *job;
	struct dma_fence *fin;
	unsigned int i;
	int ret;

	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job)
		return -ENOMEM;
	atomic_inc(&live_jobs);
	job->ring = &rings[r];
	job->dur_us = dur_us;
	job->client_id = mf->client_id;
	job->pid = task_pid_nr(current);
	get_task_comm(job->comm, current);
#ifdef MOCK_XDNA
	strscpy(job->hwctx, mf->hwctx, MOCK_HWCTX_LEN);
	INIT_WORK(&job->done_work, mock_job_work);
#endif
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
	hrtimer_setup(&job->timer, mock_job_timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
#else
	hrtimer_init(&job->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS);
	job->timer.function = mock_job_timer;
#endif

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
	ret = drm_sched_job_init(&job->base, &mf->entity[r], 1, mf, mf->client_id);
#elif LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
	ret = drm_sched_job_init(&job->base, &mf->entity[r], 1, mf);
#else
	ret = drm_sched_job_init(&job->base, &mf->entity[r], mf);
#endif
	if (ret) {
		kfree(job);
		atomic_dec(&live_jobs);
		return ret;
	}
	for (i = 0; i < ndeps; i++) {
		struct dma_fence *dep = slot_get(deps[i]);

		if (!dep)
			continue;	/* unknown or long finished: nothing to wait for */
		ret = drm_sched_job_add_dependency(&job->base, dep); /* takes our ref */
		if (ret) {
			drm_sched_job_cleanup(&job->base);
			kfree(job);
			atomic_dec(&live_jobs);
			return ret;
		}
	}

	drm_sched_job_arm(&job->base);
	fin = &job->base.s_fence->finished;
	job->fin_ctx = fin->context;
	job->fin_seqno = fin->seqno;
#ifdef MOCK_XDNA
	job->seq = mf->seq++;	/* after arm, as the real driver; under mf->lock */
#endif
	job->handle = atomic64_inc_return(&next_handle);
	*handle_out = job->handle;
	slot_put(job->handle, fin);
	if (mf->last[r])
		dma_fence_put(mf->last[r]);
	mf->last[r] = dma_fence_get(fin);
	job->usage = mf->usage;
	kref_get(&mf->usage->ref);
	job->push_ns = ktime_get_ns();
	drm_sched_entity_push_job(&job->base);	/* queue tracepoint, our context */
	return 0;
}

static int wait_fence(struct dma_fence *f)
{
	long t = dma_fence_wait_timeout(f, true, 10 * HZ);

	if (t < 0)
		return t;
	return t == 0 ? -ETIMEDOUT : 0;
}

/* Parse and run one command line. */
/*
 * prio=low|normal|high: the file's entities are made again with that
 * drm_sched priority (the run queue follows it only from init on), so only
 * before the file's first job.
 */
static int mock_set_prio(struct mock_file *mf, const char *val)
{
	enum drm_sched_priority p;
	unsigned int i;
	int ret;

	if (!strcmp(val, "high"))
		p = DRM_SCHED_PRIORITY_HIGH;
	else if (!strcmp(val, "normal"))
		p = DRM_SCHED_PRIORITY_NORMAL;
	else if (!strcmp(val, "low"))
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 7, 0)
		p = DRM_SCHED_PRIORITY_LOW;
#else
		p = DRM_SCHED_PRIORITY_MIN;
#endif
	else
		return -EINVAL;
	for (i = 0; i < nrings; i++)
		if (mf->last[i])
			return -EBUSY;
	for (i = 0; i < nrings; i++) {
		struct drm_gpu_scheduler *s = &rings[i].sched;

		drm_sched_entity_destroy(&mf->entity[i]);
		ret = drm_sched_entity_init(&mf->entity[i], p, &s, 1, NULL);
		if (ret)
			return ret;
	}
	return 0;
}

static int mock_command(struct mock_file *mf, char *line)
{
	unsigned int r = 0, count = 1, ndeps = 0, i;
	u32 dur_us = 100;
	u64 deps[MOCK_MAX_DEPS];
	bool submit = false;
	char *tok;
	int ret;

	line = strim(line);
	if (!*line || *line == '#')
		return 0;
	if (!strcmp(line, "sync")) {
		for (i = 0; i < nrings; i++) {
			if (mf->last[i]) {
				ret = wait_fence(mf->last[i]);
				if (ret)
					return ret;
			}
		}
		return 0;
	}
	while ((tok = strsep(&line, " \t")) != NULL) {
		char *val;
		u64 h;

		if (!*tok)
			continue;
		if (!strcmp(tok, "submit")) {
			submit = true;
			continue;
		}
		val = strchr(tok, '=');
		if (!val)
			return -EINVAL;
		*val++ = 0;
		if (!strcmp(tok, "ring")) {
			if (kstrtouint(val, 0, &r) || r >= nrings)
				return -EINVAL;
			submit = true;
		} else if (!strcmp(tok, "dur_us")) {
			if (kstrtou32(val, 0, &dur_us) || dur_us > 10000000)
				return -EINVAL;
			submit = true;
		} else if (!strcmp(tok, "count")) {
			if (kstrtouint(val, 0, &count) || !count || count > MOCK_MAX_BATCH)
				return -EINVAL;
		} else if (!strcmp(tok, "dep")) {
			char *d;

			while ((d = strsep(&val, ",")) != NULL) {
				if (ndeps == MOCK_MAX_DEPS || kstrtou64(d, 0, &h))
					return -EINVAL;
				deps[ndeps++] = h;
			}
		} else if (!strcmp(tok, "prio")) {
			ret = mock_set_prio(mf, val);
			if (ret)
				return ret;
		} else if (!strcmp(tok, "alloc")) {
			u32 kb;

			if (kstrtou32(val, 0, &kb) || !kb || kb > 1024 * 1024 || mf->nbo == MOCK_MAX_BOS)
				return -EINVAL;
			mf->bo[mf->nbo] = vzalloc((size_t)kb * 1024);
			if (!mf->bo[mf->nbo])
				return -ENOMEM;
			mf->nbo++;
			mf->bo_bytes += (u64)kb * 1024;
		} else if (!strcmp(tok, "wait")) {
			struct dma_fence *f;

			if (kstrtou64(val, 0, &h))
				return -EINVAL;
			f = slot_get(h);
			if (!f)
				return 0;
			ret = wait_fence(f);
			dma_fence_put(f);
			if (ret)
				return ret;
		} else {
			return -EINVAL;
		}
	}
	if (!submit)
		return 0;
	for (i = 0; i < count; i++) {
		u64 h;

		ret = mock_submit(mf, r, dur_us, deps, ndeps, &h);
		if (ret)
			return ret;
		if (mf->nbatch < MOCK_MAX_BATCH)
			mf->batch[mf->nbatch++] = h;
	}
	return 0;
}

/* The submit ioctl's argument; lab/guest/mockapi.c has the same definition. */
struct mock_submit_args {
	__u32 ring, dur_us, count, pad;	/* pad: 0 */
	__u64 handle;			/* out: the last job's handle */
};
#define MOCK_IOCTL_SUBMIT _IOWR('M', 0x01, struct mock_submit_args)

/* The submit ioctl's work, on the misc device and the render node alike. */
static int mock_submit_ioctl(struct mock_file *mf, struct mock_submit_args *a)
{
	unsigned int i;
	int ret = 0;

	if (a->ring >= nrings || !a->count || a->count > MOCK_MAX_BATCH || a->dur_us > 10000000 || a->pad)
		return -EINVAL;
	mutex_lock(&mf->lock);
	mf->nbatch = 0;
	for (i = 0; i < a->count && !ret; i++) {
		ret = mock_submit(mf, a->ring, a->dur_us, NULL, 0, &a->handle);
		if (!ret)
			mf->batch[mf->nbatch++] = a->handle;
	}
	mutex_unlock(&mf->lock);
	return ret;
}

static long mock_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct mock_submit_args a;
	int ret;

	if (cmd != MOCK_IOCTL_SUBMIT)
		return -ENOTTY;
	if (copy_from_user(&a, (void __user *)arg, sizeof(a)))
		return -EFAULT;
	ret = mock_submit_ioctl(file->private_data, &a);
	if (ret)
		return ret;
	return copy_to_user((void __user *)arg, &a, sizeof(a)) ? -EFAULT : 0;
}

static ssize_t mock_file_write(struct mock_file *mf, const char __user *ubuf, size_t len)
{
	char *buf, *p, *line;
	int ret = 0;

	if (len > 4096)
		return -E2BIG;
	buf = memdup_user_nul(ubuf, len);
	if (IS_ERR(buf))
		return PTR_ERR(buf);
	mutex_lock(&mf->lock);
	mf->nbatch = 0;
	p = buf;
	while (!ret && (line = strsep(&p, "\n;")) != NULL)
		ret = mock_command(mf, line);
	mutex_unlock(&mf->lock);
	kfree(buf);
	return ret ? ret : len;
}

static ssize_t mock_write(struct file *file, const char __user *ubuf, size_t len, loff_t *ppos)
{
	return mock_file_write(file->private_data, ubuf, len);
}

static ssize_t mock_file_read(struct mock_file *mf, char __user *ubuf, size_t len)
{
	char *buf;
	size_t n = 0;
	unsigned int i;
	ssize_t ret;
	loff_t pos = 0;	/* every read returns the whole list */

	buf = kmalloc(MOCK_MAX_BATCH * 22 + 2, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	mutex_lock(&mf->lock);
	for (i = 0; i < mf->nbatch; i++)
		n += scnprintf(buf + n, MOCK_MAX_BATCH * 22 + 2 - n, "%s%llu", i ? " " : "", mf->batch[i]);
	mutex_unlock(&mf->lock);
	buf[n++] = '\n';
	ret = simple_read_from_buffer(ubuf, len, &pos, buf, n);
	kfree(buf);
	return ret;
}

static ssize_t mock_read(struct file *file, char __user *ubuf, size_t len, loff_t *ppos)
{
	return mock_file_read(file->private_data, ubuf, len);
}

/* An open file's state: its entities (one per ring), its client id, its usage. */
static struct mock_file *mock_file_new(u64 client_id)
{
	struct mock_file *mf;
	unsigned int i;
	int ret;

	mf = kzalloc(sizeof(*mf), GFP_KERNEL);
	if (!mf)
		return ERR_PTR(-ENOMEM);
	mf->usage = kzalloc(sizeof(*mf->usage), GFP_KERNEL);
	if (!mf->usage) {
		kfree(mf);
		return ERR_PTR(-ENOMEM);
	}
	kref_init(&mf->usage->ref);
	mutex_init(&mf->lock);
	mf->client_id = client_id;
#ifdef MOCK_XDNA
	/* the real driver: "hwctx.%d.%d", the DRM file's pid (the tgid), its context id */
	snprintf(mf->hwctx, MOCK_HWCTX_LEN, "hwctx.%d.%llu", task_tgid_nr(current), mf->client_id);
#endif
	for (i = 0; i < nrings; i++) {
		struct drm_gpu_scheduler *s = &rings[i].sched;

		ret = drm_sched_entity_init(&mf->entity[i], DRM_SCHED_PRIORITY_NORMAL, &s, 1, NULL);
		if (ret) {
			while (i--)
				drm_sched_entity_destroy(&mf->entity[i]);
			kref_put(&mf->usage->ref, mock_usage_free);
			kfree(mf);
			return ERR_PTR(ret);
		}
	}
	return mf;
}

static int mock_open(struct inode *inode, struct file *file)
{
	struct mock_file *mf = mock_file_new(atomic64_inc_return(&next_client));

	if (IS_ERR(mf))
		return PTR_ERR(mf);
	file->private_data = mf;
	return nonseekable_open(inode, file);
}

static void mock_file_free(struct mock_file *mf)
{
	unsigned int i;

	/* Like a driver on close: let queued jobs finish, then tear down. */
	for (i = 0; i < nrings; i++) {
		drm_sched_entity_destroy(&mf->entity[i]);
		if (mf->last[i])
			dma_fence_put(mf->last[i]);
	}
	for (i = 0; i < mf->nbo; i++)
		vfree(mf->bo[i]);
	kref_put(&mf->usage->ref, mock_usage_free);
	kfree(mf);
}

static int mock_release(struct inode *inode, struct file *file)
{
	mock_file_free(file->private_data);
	return 0;
}

/*
 * The file's usage in drm-usage-stats keys: each ring's execution time of
 * its jobs and its buffers, into @buf (about 60 bytes a line).
 */
static void mock_usage_text(struct mock_file *mf, char *buf, size_t len)
{
	size_t n = 0;
	unsigned int i;
	u64 bytes;

	mutex_lock(&mf->lock);
	bytes = mf->bo_bytes;
	mutex_unlock(&mf->lock);
	buf[0] = 0;
	for (i = 0; i < nrings; i++)
		n += scnprintf(buf + n, len - n, "drm-engine-%s:\t%lld ns\n", rings[i].name,
			       (long long)atomic64_read(&mf->usage->busy_ns[i]));
	n += scnprintf(buf + n, len - n, "drm-total-system:\t%llu KiB\n", bytes >> 10);
	scnprintf(buf + n, len - n, "drm-resident-system:\t%llu KiB\n", bytes >> 10);
}
#define MOCK_USAGE_LEN (64 * (MOCK_MAX_RINGS + 2))

/* drm-usage-stats, as a DRM driver's show_fdinfo writes them. */
static void mock_fdinfo(struct seq_file *m, struct mock_file *mf)
{
	char buf[MOCK_USAGE_LEN];

	mock_usage_text(mf, buf, sizeof(buf));
	seq_printf(m, "drm-driver:\t%s\n", MOCK_FENCE_DRIVER);
	seq_printf(m, "drm-client-id:\t%llu\n", mf->client_id);
	seq_puts(m, buf);
}

static void mock_show_fdinfo(struct seq_file *m, struct file *file)
{
	mock_fdinfo(m, file->private_data);
}

static const struct file_operations mock_fops = {
	.owner = THIS_MODULE,
	.open = mock_open,
	.release = mock_release,
	.read = mock_read,
	.write = mock_write,
	.unlocked_ioctl = mock_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.show_fdinfo = mock_show_fdinfo,
};

static struct miscdevice mock_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = MOCK_NAME,
	.fops = &mock_fops,
	.mode = 0666,
};

#ifdef MOCK_XDNA
static int mock_drm_init(void) { return 0; }
static void mock_drm_fini(void) { }
#else
#include "mockgpu_drm.c"	/* the same mock GPU as a DRM driver with a render node */
#endif

/* ---- debugfs: the module's own measurements ---- */
static int jobs_show(struct seq_file *m, void *v)
{
	u64 n, first, i;
	struct mock_rec *copy;
	unsigned long flags;

	copy = kvmalloc_array(MOCK_LOG_SLOTS, sizeof(*copy), GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	spin_lock_irqsave(&log_lock, flags);
	n = log_count;
	memcpy(copy, joblog, MOCK_LOG_SLOTS * sizeof(*copy));
	spin_unlock_irqrestore(&log_lock, flags);
	first = n > MOCK_LOG_SLOTS ? n - MOCK_LOG_SLOTS : 0;
	seq_puts(m, "# handle ring client pid comm dur_us fence_ctx fence_seqno push_ns run_ns start_ns signal_ns run_to_signal_ns exec_ns late_ns" MOCK_JOBS_EXTRA_HDR "\n");
	for (i = first; i < n; i++) {
		struct mock_rec *r = &copy[i % MOCK_LOG_SLOTS];

		seq_printf(m, "%llu %u %llu %d %s %u %llu %llu %llu %llu %llu %llu %llu %llu %lld" MOCK_JOBS_EXTRA_FMT "\n",
			   r->handle, r->ring, r->client_id, r->pid, r->comm, r->dur_us,
			   r->fin_ctx, r->fin_seqno, r->push_ns, r->run_ns, r->start_ns,
			   r->signal_ns, r->signal_ns - r->run_ns, r->signal_ns - r->start_ns,
			   r->late_ns MOCK_JOBS_EXTRA_ARGS(r));
	}
	kvfree(copy);
	return 0;
}

static int jobs_open(struct inode *inode, struct file *file)
{
	return single_open_size(file, jobs_show, NULL, 1 << 20);
}

static ssize_t jobs_clear(struct file *file, const char __user *ubuf, size_t len, loff_t *ppos)
{
	unsigned long flags;

	spin_lock_irqsave(&log_lock, flags);
	log_count = 0;
	spin_unlock_irqrestore(&log_lock, flags);
	return len;
}

static const struct file_operations jobs_fops = {
	.owner = THIS_MODULE,
	.open = jobs_open,
	.read = seq_read,
	.write = jobs_clear,
	.llseek = seq_lseek,
	.release = single_release,
};

static int stats_show(struct seq_file *m, void *v)
{
	unsigned int i;

	seq_printf(m, "rings %u\nhw_depth %u\ncompensate %d\nlate_median_ns %lld\nsubmitted %lld\n",
		   nrings, hw_depth, compensate, late_median, atomic64_read(&next_handle));
	for (i = 0; i < nrings; i++)
		seq_printf(m, "%s jobs_done %lld exec_ns %lld fence_ctx %llu\n", rings[i].name,
			   atomic64_read(&rings[i].jobs_done), atomic64_read(&rings[i].exec_ns_total),
			   rings[i].fence_ctx);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(stats);

static void rings_fini(unsigned int n)
{
	while (n--)
		drm_sched_fini(&rings[n].sched);
}

static int __init mock_init(void)
{
	unsigned int i;
	int ret;

	if (!nrings || nrings > MOCK_MAX_RINGS || !hw_depth)
		return -EINVAL;
	joblog = kvcalloc(MOCK_LOG_SLOTS, sizeof(*joblog), GFP_KERNEL);
	if (!joblog)
		return -ENOMEM;
	/* drm_sched names its device in the new tracepoints: give it one. */
	mock_pdev = platform_device_register_simple(MOCK_NAME, -1, NULL, 0);
	if (IS_ERR(mock_pdev)) {
		ret = PTR_ERR(mock_pdev);
		goto err_log;
	}
	for (i = 0; i < nrings; i++) {
		struct mock_ring *ring = &rings[i];
		struct drm_sched_init_args args = {
			.ops = &mock_sched_ops,
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 17, 0)
			.num_rqs = DRM_SCHED_PRIORITY_COUNT,
#endif
			.credit_limit = hw_depth,
			.hang_limit = 0,
			.timeout = msecs_to_jiffies(20000),
			.name = MOCK_SCHED_NAME(ring),
			.dev = &mock_pdev->dev,
		};

		ring->idx = i;
		snprintf(ring->name, sizeof(ring->name), "mock-ring%u", i);
		spin_lock_init(&ring->fence_lock);
		spin_lock_init(&ring->busy_lock);
		INIT_LIST_HEAD(&ring->pending);
		ring->fence_ctx = dma_fence_context_alloc(1);
		ret = drm_sched_init(&ring->sched, &args);
		if (ret) {
			rings_fini(i);
			goto err_pdev;
		}
	}
	ret = misc_register(&mock_misc);
	if (ret)
		goto err_rings;
	ret = mock_drm_init();
	if (ret) {
		misc_deregister(&mock_misc);
		goto err_rings;
	}
	dbg_dir = debugfs_create_dir(MOCK_NAME, NULL);
	debugfs_create_file("jobs", 0644, dbg_dir, NULL, &jobs_fops);
	debugfs_create_file("stats", 0444, dbg_dir, NULL, &stats_fops);
#ifdef MOCK_XDNA
	pr_info(MOCK_PFX "%u rings on the real drm_sched as \"amdxdna_js\", /dev/" MOCK_NAME
		", event amdxdna:xdna_job (a test double of AMD's NPU driver, no hardware)\n", nrings);
#else
	pr_info("mockgpu: %u rings on the real drm_sched (a test stand-in, no hardware)\n", nrings);
#endif
	return 0;

err_rings:
	rings_fini(nrings);
err_pdev:
	platform_device_unregister(mock_pdev);
err_log:
	kvfree(joblog);
	return ret;
}

/*
 * Unloading with jobs still on a ring (their submitter was killed, say):
 * like a driver tearing down, let the rings finish what they hold, and
 * only if that takes too long, complete the hardware fences with an error.
 * Either way no timer of ours may fire, and the scheduler must have freed
 * every job, before the module text goes away.
 */
static void rings_drain(void)
{
	unsigned long deadline = jiffies + 30 * HZ;
	unsigned int i;

	while (atomic_read(&live_jobs) && time_before(jiffies, deadline))
		msleep(10);
	if (!atomic_read(&live_jobs))
		return;
	pr_warn(MOCK_PFX "%d jobs still live at unload: cancelling them\n", atomic_read(&live_jobs));
	for (i = 0; i < nrings; i++) {
		struct mock_ring *ring = &rings[i];
		struct mock_job *job, *tmp;
		unsigned long flags;
		LIST_HEAD(cancel);

		spin_lock_irqsave(&ring->busy_lock, flags);
		list_splice_init(&ring->pending, &cancel);
		spin_unlock_irqrestore(&ring->busy_lock, flags);
		list_for_each_entry_safe(job, tmp, &cancel, node) {
			list_del(&job->node);
			dma_fence_set_error(job->hw, -ECANCELED);
			MOCK_TRACE_JOB(job, "signaling fence");
			dma_fence_signal(job->hw);
		}
	}
	deadline = jiffies + 10 * HZ;
	while (atomic_read(&live_jobs) && time_before(jiffies, deadline))
		msleep(10);
}

static void __exit mock_exit(void)
{
	unsigned int i;

	debugfs_remove_recursive(dbg_dir);
	mock_drm_fini();
	misc_deregister(&mock_misc);
	rings_drain();
	for (i = 0; i < MOCK_FENCE_SLOTS; i++)
		if (slots[i].fence)
			dma_fence_put(slots[i].fence);
	rings_fini(nrings);
	platform_device_unregister(mock_pdev);
	/* fences freed by RCU callbacks still point at our fence ops */
	rcu_barrier();
	kvfree(joblog);
}

module_init(mock_init);
module_exit(mock_exit);
#ifdef MOCK_XDNA
MODULE_DESCRIPTION("xputrace lab: test double of AMD's NPU driver amdxdna (mock GPU on the real DRM scheduler, no hardware; not AMD's driver)");
#else
MODULE_DESCRIPTION("xputrace lab: mock GPU on the real DRM scheduler (test stand-in, no hardware)");
#endif
MODULE_LICENSE("GPL");
