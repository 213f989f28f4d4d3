// SPDX-License-Identifier: GPL-2.0
/*
 * ivpu_double: a TEST DOUBLE of the Intel NPU driver (intel_vpu / ivpu)
 * for the xputrace lab. There is no NPU and none of Intel's driver here:
 * only functions with the names and argument shapes of the real driver's
 * functions that the seed tutorials attach kprobes to (ivpu_bo_create_ioctl,
 * ivpu_gem_create_object, ivpu_bo_pin, ivpu_mmu_context_map_page,
 * ivpu_submit_ioctl, ivpu_ipc_irq_handler, ivpu_ipc_receive,
 * ivpu_hw_ip_ipc_rx_count_get, ...), called in the order the real driver
 * calls them:
 *
 *   debugfs intel_vpu_double/trigger, one command per write, run in the
 *   writer's context (real pid/comm):
 *     open | boot | bo_create N KB | submit N | get_param N | close
 *   submit raises a firmware "IPC interrupt" from an hrtimer (hardirq):
 *   ivpu_ipc_irq_handler -> ivpu_hw_ip_ipc_rx_count_get, then the reply is
 *   taken by ivpu_ipc_receive in a worker, as the real IPC thread does.
 *   debugfs intel_vpu_double/counts: calls per function.
 * It also fires the driver's tracepoints (vpu:job, vpu:jsm, vpu:pm, with the
 * real field layout: ivpu_double_trace.h) and imposes known delays, timed by
 * its own clock in debugfs intel_vpu_double/lat ("what count sum_ns"; and
 * lat_each, "what ns" for each of the first 256 of every kind, for medians):
 *   bo_create   ivpu_bo_create_ioctl busy-waits BO_CREATE_MS (bo_create_call: timed
 *               by its caller, the probes' cost included)
 *   job, jsm    a job "runs" JOB_US: vpu:job submit -> done and the JSM
 *               request -> response pair around it
 *   suspend     the trigger "suspend MS": vpu:pm suspend, MS ms later resume
 * The kernel paths (kprobes, hardirq, workqueues, tracepoints) are real.
 */
#include <linux/module.h>
#include <linux/version.h>
#include <linux/interrupt.h>
#include <linux/hrtimer.h>
#include <linux/workqueue.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <linux/slab.h>
#include <linux/delay.h>
#include <linux/mm.h>
#include <linux/kprobes.h>
#include <linux/ktime.h>
#include <linux/spinlock.h>

enum vpu_ipc_msg_status { VPU_DOUBLE_MSG_FREE, VPU_DOUBLE_MSG_ALLOCATED };

#define CREATE_TRACE_POINTS
#include "ivpu_double_trace.h"

#define BO_CREATE_MS 10
#define JOB_US 5000
#define BOOT_REPLY_US 200

/* Opaque stand-ins for the driver's structures. */
struct drm_device;
struct drm_file;
struct drm_gem_object { size_t size; };
struct ivpu_mmu_context { u32 id; u32 mapped; };
struct ivpu_device { struct ivpu_mmu_context gctx; atomic_t ipc_pending; struct hrtimer irq_timer;
		     struct work_struct ipc_work; };
struct ivpu_bo { struct drm_gem_object base; struct ivpu_mmu_context *ctx; u64 vpu_addr; };
struct ivpu_file_priv { struct ivpu_mmu_context ctx; };
struct ivpu_ipc_consumer { u32 channel; };
struct ivpu_ipc_hdr { u32 data_addr, data_size, channel, src_node, dst_node, status; };
struct vpu_jsm_msg { u32 type, status, request_id, result; };
struct vpu_boot_params { u32 magic; };

struct drm_ivpu_bo_create;

/* The probed functions: global and noinline so each keeps its own symbol. */
void ivpu_mmu_context_init(struct ivpu_device *vdev, struct ivpu_mmu_context *ctx, u32 context_id);
int ivpu_mmu_context_map_page(struct ivpu_device *vdev, struct ivpu_mmu_context *ctx,
			      u64 vpu_addr, dma_addr_t dma_addr, u64 prot);
void ivpu_pgtable_free_page(struct ivpu_device *vdev, u64 *cpu_addr, dma_addr_t dma_addr);
int ivpu_rpm_get(struct ivpu_device *vdev);
void ivpu_rpm_put(struct ivpu_device *vdev);
struct drm_gem_object *ivpu_gem_create_object(struct drm_device *dev, size_t size);
int ivpu_bo_pin(struct ivpu_bo *bo);
int ivpu_bo_create_ioctl(struct drm_device *dev, void *data, struct drm_file *file);
u32 ivpu_hw_ip_ipc_rx_count_get(struct ivpu_device *vdev);
void ivpu_ipc_irq_handler(struct ivpu_device *vdev);
int ivpu_ipc_receive(struct ivpu_device *vdev, struct ivpu_ipc_consumer *cons,
		     struct ivpu_ipc_hdr *ipc_buf, struct vpu_jsm_msg *jsm_msg, unsigned long timeout_ms);
int ivpu_submit_ioctl(struct drm_device *dev, void *data, struct drm_file *file);
int ivpu_get_param_ioctl(struct drm_device *dev, void *data, struct drm_file *file);
void ivpu_fw_boot_params_setup(struct ivpu_device *vdev, struct vpu_boot_params *boot_params);
int ivpu_hw_boot_fw(struct ivpu_device *vdev);
int ivpu_boot(struct ivpu_device *vdev);
int ivpu_open(struct drm_device *dev, struct drm_file *file);
void ivpu_ms_cleanup(struct ivpu_file_priv *file_priv);
void ivpu_file_priv_put(struct ivpu_file_priv **link);
void ivpu_postclose(struct drm_device *dev, struct drm_file *file);

enum { C_BO_CREATE, C_GEM_CREATE, C_BO_PIN, C_MAP_PAGE, C_SUBMIT, C_GET_PARAM, C_IPC_IRQ,
       C_RX_COUNT, C_IPC_RECEIVE, C_MMU_CTX_INIT, C_PGTABLE_FREE, C_OPEN, C_POSTCLOSE,
       C_FILE_PRIV_PUT, C_MS_CLEANUP, C_BOOT, C_FW_BOOT_PARAMS, C_HW_BOOT_FW, C_RPM_GET,
       C_RPM_PUT, C_N };
static const char *const cname[C_N] = {
	"ivpu_bo_create_ioctl", "ivpu_gem_create_object", "ivpu_bo_pin",
	"ivpu_mmu_context_map_page", "ivpu_submit_ioctl", "ivpu_get_param_ioctl",
	"ivpu_ipc_irq_handler", "ivpu_hw_ip_ipc_rx_count_get", "ivpu_ipc_receive",
	"ivpu_mmu_context_init", "ivpu_pgtable_free_page", "ivpu_open", "ivpu_postclose",
	"ivpu_file_priv_put", "ivpu_ms_cleanup", "ivpu_boot", "ivpu_fw_boot_params_setup",
	"ivpu_hw_boot_fw", "ivpu_rpm_get", "ivpu_rpm_put",
};
static atomic64_t counts[C_N];
#define COUNT(c) atomic64_inc(&counts[c])

/* Delays by the module's own clock: count and sum. */
enum { L_BO_CREATE, L_BO_CREATE_CALL, L_JOB, L_JSM, L_SUSPEND, L_N };
static const char *const lname[L_N] = { "bo_create", "bo_create_call", "job", "jsm", "suspend" };
static atomic64_t lat_n[L_N], lat_ns[L_N];
/* and each of the first LAT_EACH of them, for medians (debugfs lat_each: "what ns" in order) */
#define LAT_EACH 256
static u64 lat_each[L_N][LAT_EACH];
static void lat_add(int l, u64 ns)
{
	s64 i = atomic64_inc_return(&lat_n[l]) - 1;

	if (i < LAT_EACH)
		WRITE_ONCE(lat_each[l][i], ns);
	atomic64_add(ns, &lat_ns[l]);
}

/* The messages the firmware will answer, in order: a job's or the boot's. */
struct fw_msg { u32 job_id, request_id; u64 t_job, t_req; };
static struct fw_msg fw_q[64];
static unsigned int fw_head, fw_tail;
static DEFINE_SPINLOCK(fw_lock);
static u32 next_job_id, next_request_id;

static struct ivpu_device vdev_;
static struct ivpu_file_priv *fpriv;	/* one client at a time is enough here */
static DEFINE_MUTEX(lock);
static struct dentry *dbg;

/* ---- MMU ---- */
noinline void ivpu_mmu_context_init(struct ivpu_device *vdev, struct ivpu_mmu_context *ctx, u32 context_id)
{
	COUNT(C_MMU_CTX_INIT);
	ctx->id = context_id;
	ctx->mapped = 0;
}

noinline int ivpu_mmu_context_map_page(struct ivpu_device *vdev, struct ivpu_mmu_context *ctx,
				       u64 vpu_addr, dma_addr_t dma_addr, u64 prot)
{
	COUNT(C_MAP_PAGE);
	ctx->mapped++;
	return 0;
}

noinline void ivpu_pgtable_free_page(struct ivpu_device *vdev, u64 *cpu_addr, dma_addr_t dma_addr)
{
	COUNT(C_PGTABLE_FREE);
}

/* ---- power management ---- */
noinline int ivpu_rpm_get(struct ivpu_device *vdev)
{
	COUNT(C_RPM_GET);
	return 0;
}

noinline void ivpu_rpm_put(struct ivpu_device *vdev)
{
	COUNT(C_RPM_PUT);
}

/* ---- buffers ---- */
noinline struct drm_gem_object *ivpu_gem_create_object(struct drm_device *dev, size_t size)
{
	struct ivpu_bo *bo;

	COUNT(C_GEM_CREATE);
	bo = kzalloc(sizeof(*bo), GFP_KERNEL);
	if (!bo)
		return ERR_PTR(-ENOMEM);
	bo->base.size = size;
	return &bo->base;
}

noinline int ivpu_bo_pin(struct ivpu_bo *bo)
{
	u64 off;
	int ret = 0;

	COUNT(C_BO_PIN);
	for (off = 0; off < bo->base.size && !ret; off += PAGE_SIZE)
		ret = ivpu_mmu_context_map_page(&vdev_, bo->ctx, bo->vpu_addr + off, 0x80000000ULL + off, 0x3);
	return ret;
}

struct drm_ivpu_bo_create { u64 size; u32 flags, handle; u64 vpu_addr; };

noinline int ivpu_bo_create_ioctl(struct drm_device *dev, void *data, struct drm_file *file)
{
	struct drm_ivpu_bo_create *args = data;
	struct drm_gem_object *obj;
	struct ivpu_bo *bo;
	int ret;

	u64 t0 = ktime_get_ns();

	COUNT(C_BO_CREATE);
	obj = ivpu_gem_create_object(dev, PAGE_ALIGN(args->size));
	if (IS_ERR(obj))
		return PTR_ERR(obj);
	mdelay(BO_CREATE_MS);
	bo = container_of(obj, struct ivpu_bo, base);
	bo->ctx = &fpriv->ctx;
	bo->vpu_addr = 0x100000000ULL;
	ret = ivpu_bo_pin(bo);
	args->vpu_addr = bo->vpu_addr;
	kfree(bo);	/* the double keeps nothing: only the call sequence matters */
	lat_add(L_BO_CREATE, ktime_get_ns() - t0);
	return ret;
}

/* ---- IPC with the "firmware" ---- */
noinline u32 ivpu_hw_ip_ipc_rx_count_get(struct ivpu_device *vdev)
{
	COUNT(C_RX_COUNT);
	return atomic_read(&vdev->ipc_pending);
}

noinline void ivpu_ipc_irq_handler(struct ivpu_device *vdev)
{
	COUNT(C_IPC_IRQ);
	if (ivpu_hw_ip_ipc_rx_count_get(vdev))
		schedule_work(&vdev->ipc_work);
}

noinline int ivpu_ipc_receive(struct ivpu_device *vdev, struct ivpu_ipc_consumer *cons,
			      struct ivpu_ipc_hdr *ipc_buf, struct vpu_jsm_msg *jsm_msg,
			      unsigned long timeout_ms)
{
	COUNT(C_IPC_RECEIVE);
	return atomic_dec_if_positive(&vdev->ipc_pending) >= 0 ? 0 : -ETIMEDOUT;
}

static void ipc_work_fn(struct work_struct *w)
{
	struct ivpu_device *vdev = container_of(w, struct ivpu_device, ipc_work);
	struct ivpu_ipc_consumer cons = { .channel = 1 };
	struct ivpu_ipc_hdr hdr;
	struct vpu_jsm_msg msg;

	while (atomic_read(&vdev->ipc_pending) > 0) {
		struct fw_msg m = { 0 };
		bool have = false;
		u64 now;

		if (ivpu_ipc_receive(vdev, &cons, &hdr, &msg, 0))
			break;
		spin_lock_bh(&fw_lock);
		if (fw_tail != fw_head) {
			m = fw_q[fw_tail % ARRAY_SIZE(fw_q)];
			fw_tail++;
			have = true;
		}
		spin_unlock_bh(&fw_lock);
		if (!have)
			continue;
		now = ktime_get_ns();
		if (!m.job_id) {
			trace_jsm("[rx]", "READY", VPU_DOUBLE_MSG_FREE, m.request_id, 0);
			continue;
		}
		trace_jsm("[rx]", "JOB_DONE", VPU_DOUBLE_MSG_FREE, m.request_id, 0);
		lat_add(L_JSM, now - m.t_req);
		now = ktime_get_ns();
		trace_job("done", 1, 0, m.job_id);
		lat_add(L_JOB, now - m.t_job);
	}
}

static enum hrtimer_restart ipc_irq_fire(struct hrtimer *t)
{
	struct ivpu_device *vdev = container_of(t, struct ivpu_device, irq_timer);

	atomic_inc(&vdev->ipc_pending);	/* the message is there when its interrupt comes */
	ivpu_ipc_irq_handler(vdev);
	return HRTIMER_NORESTART;
}

/* The firmware answers one message: an IPC interrupt after `us`. */
static void fw_reply(struct ivpu_device *vdev, u32 job_id, u32 request_id, u64 t_job, u64 t_req, u32 us)
{
	while (hrtimer_active(&vdev->irq_timer))
		usleep_range(50, 100);
	spin_lock_bh(&fw_lock);
	fw_q[fw_head % ARRAY_SIZE(fw_q)] = (struct fw_msg){ job_id, request_id, t_job, t_req };
	fw_head++;
	spin_unlock_bh(&fw_lock);
	hrtimer_start(&vdev->irq_timer, ns_to_ktime((u64)us * NSEC_PER_USEC), HRTIMER_MODE_REL);
}

noinline int ivpu_submit_ioctl(struct drm_device *dev, void *data, struct drm_file *file)
{
	u32 job_id = ++next_job_id, req = ++next_request_id;
	u64 t_job, t_req;

	COUNT(C_SUBMIT);
	ivpu_rpm_get(&vdev_);
	while (hrtimer_active(&vdev_.irq_timer))	/* one job on the engine at a time */
		usleep_range(50, 100);
	t_job = ktime_get_ns();
	trace_job("submit", 1, 0, job_id);
	t_req = ktime_get_ns();
	trace_jsm("[tx]", "SUBMIT_JOB", VPU_DOUBLE_MSG_ALLOCATED, req, 0);
	fw_reply(&vdev_, job_id, req, t_job, t_req, JOB_US);
	ivpu_rpm_put(&vdev_);
	return 0;
}

noinline int ivpu_get_param_ioctl(struct drm_device *dev, void *data, struct drm_file *file)
{
	COUNT(C_GET_PARAM);
	return 0;
}

/* ---- boot, open, close ---- */
noinline void ivpu_fw_boot_params_setup(struct ivpu_device *vdev, struct vpu_boot_params *boot_params)
{
	COUNT(C_FW_BOOT_PARAMS);
	boot_params->magic = 0x10000;
}

noinline int ivpu_hw_boot_fw(struct ivpu_device *vdev)
{
	COUNT(C_HW_BOOT_FW);
	fw_reply(vdev, 0, 0, 0, 0, BOOT_REPLY_US);	/* the firmware's "ready" message */
	return 0;
}

noinline int ivpu_boot(struct ivpu_device *vdev)
{
	struct vpu_boot_params bp;

	COUNT(C_BOOT);
	ivpu_fw_boot_params_setup(vdev, &bp);
	return ivpu_hw_boot_fw(vdev);
}

noinline int ivpu_open(struct drm_device *dev, struct drm_file *file)
{
	COUNT(C_OPEN);
	if (fpriv)
		return -EBUSY;
	fpriv = kzalloc(sizeof(*fpriv), GFP_KERNEL);
	if (!fpriv)
		return -ENOMEM;
	ivpu_mmu_context_init(&vdev_, &fpriv->ctx, 1);
	return 0;
}

noinline void ivpu_ms_cleanup(struct ivpu_file_priv *file_priv)
{
	COUNT(C_MS_CLEANUP);
}

noinline void ivpu_file_priv_put(struct ivpu_file_priv **link)
{
	u32 i;

	COUNT(C_FILE_PRIV_PUT);
	/* tear down the page tables: one page-table page per 512 mapped pages */
	for (i = 0; i < DIV_ROUND_UP((*link)->ctx.mapped, 512); i++)
		ivpu_pgtable_free_page(&vdev_, NULL, 0);
	kfree(*link);
	*link = NULL;
}

noinline void ivpu_postclose(struct drm_device *dev, struct drm_file *file)
{
	COUNT(C_POSTCLOSE);
	ivpu_ms_cleanup(fpriv);
	ivpu_file_priv_put(&fpriv);
}

/*
 * Never called: listed by ftrace like every other function here, but on the
 * kprobe blacklist, so the kernel refuses a plain kprobe on it (what a
 * tracer must report as refused, with the kernel's reason).
 */
noinline void ivpu_hw_diag_nokprobe(struct ivpu_device *vdev);
noinline void ivpu_hw_diag_nokprobe(struct ivpu_device *vdev)
{
	barrier();
}
NOKPROBE_SYMBOL(ivpu_hw_diag_nokprobe);

/* ---- debugfs ---- */
static ssize_t trigger_write(struct file *f, const char __user *ubuf, size_t len, loff_t *ppos)
{
	char buf[64];
	unsigned int n = 1, kb = 64, i;
	size_t l = min(len, sizeof(buf) - 1);
	int ret = 0;

	if (copy_from_user(buf, ubuf, l))
		return -EFAULT;
	buf[l] = 0;
	mutex_lock(&lock);
	if (!strncmp(buf, "open", 4)) {
		ret = ivpu_open(NULL, NULL);
	} else if (!strncmp(buf, "boot", 4)) {
		ret = ivpu_boot(&vdev_);
	} else if (!strncmp(buf, "suspend", 7)) {
		unsigned int ms = 20;
		u64 t0;

		sscanf(buf, "suspend %u", &ms);
		t0 = ktime_get_ns();
		trace_pm("suspend");
		msleep(ms);
		trace_pm("resume");
		lat_add(L_SUSPEND, ktime_get_ns() - t0);
	} else if (!strncmp(buf, "close", 5)) {
		if (fpriv)
			ivpu_postclose(NULL, NULL);
		else
			ret = -ENOENT;
	} else if (!fpriv) {
		ret = -ENOENT;	/* the other commands need an open client */
	} else if (!strncmp(buf, "bo_create", 9)) {
		sscanf(buf, "bo_create %u %u", &n, &kb);
		for (i = 0; i < n && !ret; i++) {
			struct drm_ivpu_bo_create args = { .size = (u64)kb * 1024 };
			u64 t0 = ktime_get_ns();

			/* timed by the caller too: with the probes' own cost */
			ret = ivpu_bo_create_ioctl(NULL, &args, NULL);
			lat_add(L_BO_CREATE_CALL, ktime_get_ns() - t0);
		}
	} else if (!strncmp(buf, "submit", 6)) {
		sscanf(buf, "submit %u", &n);
		for (i = 0; i < n; i++)
			ivpu_submit_ioctl(NULL, NULL, NULL);
	} else if (!strncmp(buf, "get_param", 9)) {
		sscanf(buf, "get_param %u", &n);
		for (i = 0; i < n; i++)
			ivpu_get_param_ioctl(NULL, NULL, NULL);
	} else {
		ret = -EINVAL;
	}
	mutex_unlock(&lock);
	return ret ? ret : len;
}

static const struct file_operations trigger_fops = {
	.owner = THIS_MODULE,
	.write = trigger_write,
};

static int counts_show(struct seq_file *m, void *v)
{
	int i;

	for (i = 0; i < C_N; i++)
		seq_printf(m, "%s %lld\n", cname[i], atomic64_read(&counts[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(counts);

static int lat_show(struct seq_file *m, void *v)
{
	int i;

	for (i = 0; i < L_N; i++)
		seq_printf(m, "%s %lld %lld\n", lname[i], atomic64_read(&lat_n[i]), atomic64_read(&lat_ns[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(lat);

static int lat_each_show(struct seq_file *m, void *v)
{
	int i;
	s64 k, n;

	for (i = 0; i < L_N; i++) {
		n = min_t(s64, atomic64_read(&lat_n[i]), LAT_EACH);
		for (k = 0; k < n; k++)
			seq_printf(m, "%s %llu\n", lname[i], READ_ONCE(lat_each[i][k]));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(lat_each);

static int __init ivpu_double_init(void)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
	hrtimer_setup(&vdev_.irq_timer, ipc_irq_fire, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
#else
	hrtimer_init(&vdev_.irq_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	vdev_.irq_timer.function = ipc_irq_fire;
#endif
	INIT_WORK(&vdev_.ipc_work, ipc_work_fn);
	dbg = debugfs_create_dir("intel_vpu_double", NULL);
	debugfs_create_file("trigger", 0200, dbg, NULL, &trigger_fops);
	debugfs_create_file("counts", 0444, dbg, NULL, &counts_fops);
	debugfs_create_file("lat", 0444, dbg, NULL, &lat_fops);
	debugfs_create_file("lat_each", 0444, dbg, NULL, &lat_each_fops);
	pr_info("intel_vpu: TEST DOUBLE of the ivpu driver for the xputrace lab (no NPU, no Intel code)\n");
	return 0;
}

static void __exit ivpu_double_exit(void)
{
	debugfs_remove_recursive(dbg);
	hrtimer_cancel(&vdev_.irq_timer);
	cancel_work_sync(&vdev_.ipc_work);
	if (fpriv)
		ivpu_postclose(NULL, NULL);
}

module_init(ivpu_double_init);
module_exit(ivpu_double_exit);
MODULE_DESCRIPTION("xputrace lab: test double of intel_vpu (function names only; no NPU, no Intel code)");
MODULE_LICENSE("GPL");
