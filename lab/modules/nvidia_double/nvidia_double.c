// SPDX-License-Identifier: GPL-2.0
/*
 * nvidia_double: a TEST DOUBLE of NVIDIA's proprietary nvidia.ko for the
 * xputrace lab. It drives no hardware and implements none of NVIDIA's
 * driver. It only has functions with the names and argument shapes that
 * tracing tools attach kprobes to in the real module (nvidia_open,
 * nvidia_close, nvidia_unlocked_ioctl, nvidia_ioctl, nvidia_mmap,
 * nvidia_fault, nvidia_isr, nvidia_isr_msix, nvidia_isr_kthread_bh,
 * nvidia_p2p_get_pages, nvidia_p2p_put_pages, nvidia_suspend,
 * nvidia_resume), called in the order the real driver calls them:
 *
 * - a character device on NVIDIA's major 195 (create /dev/nvidiactl as
 *   195:255 and /dev/nvidia0 as 195:0): open, ioctl with NVIDIA's escape
 *   numbers (_IOC_NR = NV_ESC_*), mmap with page faults, close all go
 *   through the real VFS and syscall paths;
 * - an ioctl NV_ESC_RM_ALLOC / NV_ESC_RM_CONTROL raises one "interrupt":
 *   an hrtimer calls nvidia_isr_msix -> nvidia_isr in hardirq context, and
 *   nvidia_isr_kthread_bh runs in a kthread worker, as the real bottom half;
 * - debugfs nvidia_double/trigger: "irq N", "p2p N", "suspend", and
 *   "xid CODE MESSAGE", which fires the tracepoint nvidia:nvidia_dev_xid
 *   (the real driver's record layout, nv_double_trace.h) for the GPU
 *   NV_PCI_NAME, as the real driver does when it reports an Xid; and
 *   "xid-in-ioctl CODE MESSAGE", which fires it in the middle of the next
 *   NV_ESC_RM_CONTROL (after its delay), with that ioctl in flight;
 * - /proc/driver/nvidia/gpus/NV_PCI_NAME/information with "Device Minor: 0",
 *   the file the real driver has, which ties the PCI name to /dev/nvidia0;
 * - debugfs nvidia_double/outer: the same calls timed by their callers, from
 *   call to return (suspend, resume and the interrupt paths);
 * - debugfs nvidia_double/counts: per function, the calls and the time spent
 *   in them by the module's own clock ("name calls ns"), for tests to compare
 *   with what a tracer counted and timed;
 * - known delays (busy waits) for latency tests: NV_ESC_RM_CONTROL 2 ms,
 *   nvidia_isr 2 ms, nvidia_isr_kthread_bh 2 ms, nvidia_suspend 5 ms,
 *   nvidia_resume 3 ms.
 * The kernel paths (syscalls, VFS, page faults, hardirq, kthread, kprobes)
 * are real; everything behind them is a stand-in.
 */
#include <linux/module.h>
#include <linux/version.h>
#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/interrupt.h>
#include <linux/hrtimer.h>
#include <linux/kthread.h>
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>
#include <linux/slab.h>
#include <linux/delay.h>
#include <linux/proc_fs.h>

#define CREATE_TRACE_POINTS
#include "nv_double_trace.h"

#define NV_PCI_NAME "0000:01:00.0"

#define NV_MAJOR 195
#define NV_IOCTL_MAGIC 'F'
#define NV_ESC_RM_FREE 0x29
#define NV_ESC_RM_CONTROL 0x2A
#define NV_ESC_RM_ALLOC 0x2B
#define NV_ESC_CARD_INFO 200
#define NV_ESC_REGISTER_FD 201
#define NV_ESC_ALLOC_OS_EVENT 206
#define NV_ESC_CHECK_VERSION_STR 210
#define NV_FAKE_IRQ 42
#define NV_PAGES 16

enum { C_OPEN, C_CLOSE, C_UNLOCKED_IOCTL, C_IOCTL, C_MMAP, C_FAULT, C_ISR, C_ISR_MSIX,
       C_ISR_BH, C_P2P_GET, C_P2P_PUT, C_SUSPEND, C_RESUME, C_N };
static const char *const cname[C_N] = {
	"nvidia_open", "nvidia_close", "nvidia_unlocked_ioctl", "nvidia_ioctl", "nvidia_mmap",
	"nvidia_fault", "nvidia_isr", "nvidia_isr_msix", "nvidia_isr_kthread_bh",
	"nvidia_p2p_get_pages", "nvidia_p2p_put_pages", "nvidia_suspend", "nvidia_resume",
};
static atomic64_t counts[C_N], spent_ns[C_N];
/* NV_ESC_RM_CONTROL, the escape with a delay: its calls and time, by the module's clock */
static atomic64_t control_calls, control_ns;
/* an Xid to fire in the next NV_ESC_RM_CONTROL */
static atomic_t xid_armed;
static u32 xid_armed_code;
static char xid_armed_msg[64];
#define COUNT(c) atomic64_inc(&counts[c])
/*
 * Time spent in a function since t0, by the module's clock: the sum, and
 * each of the first EACH_MAX calls for medians (debugfs each: "name ns" in
 * order; NV_ESC_RM_CONTROL as index C_N).
 */
#define EACH_MAX 1024
struct per_call {
	u64 ns[C_N + 1][EACH_MAX];
	atomic64_t n[C_N + 1];
};
static struct per_call each;
/*
 * The same calls timed by their caller (debugfs outer, "name ns"): what the
 * function took from call to return, which takes in what ran after the
 * module's own clock read and before the return (on a loaded host, the
 * interrupts a stalled vCPU handles when it runs again). A tracer's entry ->
 * return lies between the two. Not for NV_ESC_RM_CONTROL (its caller is the
 * VFS: lab/guest/nvclient times each of its ioctls instead).
 */
static struct per_call outer;
static void per_call_add(struct per_call *p, int c, u64 ns)
{
	s64 i = atomic64_inc_return(&p->n[c]) - 1;

	if (i < EACH_MAX)
		WRITE_ONCE(p->ns[c][i], ns);
}
#define each_add(c, ns) per_call_add(&each, c, ns)
#define outer_add(c, t0) per_call_add(&outer, c, ktime_get_ns() - (t0))
static void spent(int c, u64 t0)
{
	u64 ns = ktime_get_ns() - t0;

	atomic64_add(ns, &spent_ns[c]);
	each_add(c, ns);
}
#define SPENT(c, t0) spent(c, t0)
#define DELAY_RM_CONTROL_US 2000
#define DELAY_ISR_US 2000
#define DELAY_BH_US 2000
#define DELAY_SUSPEND_US 5000
#define DELAY_RESUME_US 3000

/* Stand-in for nv_linux_state_t: what the ISR and bottom half get. */
typedef struct nv_linux_state_s {
	u32 minor;
	atomic_t pending;	/* interrupts raised and not yet handled */
	struct hrtimer irq_timer;
	struct kthread_worker *bh_worker;
	struct kthread_work bh_work;
} nv_linux_state_t;

struct nvidia_p2p_page_table;
typedef enum { NV_PM_ACTION_HIBERNATE, NV_PM_ACTION_STANDBY, NV_PM_ACTION_RESUME } nv_pm_action_t;

/* The probed entry points: global and noinline so each has its own symbol. */
irqreturn_t nvidia_isr(int irq, void *arg);
irqreturn_t nvidia_isr_msix(int irq, void *arg);
irqreturn_t nvidia_isr_kthread_bh(int irq, void *data);
int nvidia_open(struct inode *inode, struct file *file);
int nvidia_close(struct inode *inode, struct file *file);
int nvidia_ioctl(struct inode *inode, struct file *file, unsigned int cmd, unsigned long i_arg);
long nvidia_unlocked_ioctl(struct file *file, unsigned int cmd, unsigned long i_arg);
vm_fault_t nvidia_fault(struct vm_fault *vmf);
int nvidia_mmap(struct file *file, struct vm_area_struct *vma);
int nvidia_p2p_get_pages(u64 p2p_token, u32 va_space, u64 virtual_address, u64 length,
			 struct nvidia_p2p_page_table **page_table,
			 void (*free_callback)(void *data), void *data);
int nvidia_p2p_put_pages(u64 p2p_token, u32 va_space, u64 virtual_address,
			 struct nvidia_p2p_page_table *page_table);
int nvidia_suspend(struct device *dev, nv_pm_action_t pm_action, bool is_procfs_suspend);
int nvidia_resume(struct device *dev, nv_pm_action_t pm_action);

static nv_linux_state_t nvl_dev;
static struct page *pages[NV_PAGES];
static struct dentry *dbg;

/* ---- interrupt path ---- */
noinline irqreturn_t nvidia_isr(int irq, void *arg)
{
	nv_linux_state_t *nvl = arg;
	u64 t0 = ktime_get_ns();
	irqreturn_t ret;

	COUNT(C_ISR);
	udelay(DELAY_ISR_US);
	ret = atomic_read(&nvl->pending) ? IRQ_WAKE_THREAD : IRQ_NONE;
	SPENT(C_ISR, t0);
	return ret;
}
EXPORT_SYMBOL_GPL(nvidia_isr);

noinline irqreturn_t nvidia_isr_msix(int irq, void *arg)
{
	irqreturn_t ret;
	u64 t0 = ktime_get_ns();

	COUNT(C_ISR_MSIX);
	{
		u64 o = ktime_get_ns();

		ret = nvidia_isr(irq, arg);
		outer_add(C_ISR, o);
	}
	SPENT(C_ISR_MSIX, t0);
	return ret;
}
EXPORT_SYMBOL_GPL(nvidia_isr_msix);

noinline irqreturn_t nvidia_isr_kthread_bh(int irq, void *data)
{
	nv_linux_state_t *nvl = data;
	u64 t0 = ktime_get_ns();

	COUNT(C_ISR_BH);
	udelay(DELAY_BH_US);
	atomic_dec_if_positive(&nvl->pending);
	SPENT(C_ISR_BH, t0);
	return IRQ_HANDLED;
}
EXPORT_SYMBOL_GPL(nvidia_isr_kthread_bh);

static void nv_bh_work(struct kthread_work *w)
{
	nv_linux_state_t *nvl = container_of(w, nv_linux_state_t, bh_work);

	/*
	 * Not preempted between the module's clock and the return, so that a
	 * tracer's return probe and the module time the same interval.
	 */
	while (atomic_read(&nvl->pending) > 0) {
		u64 o;

		preempt_disable();
		o = ktime_get_ns();
		nvidia_isr_kthread_bh(NV_FAKE_IRQ, nvl);
		outer_add(C_ISR_BH, o);
		preempt_enable();
	}
}

static enum hrtimer_restart nv_irq_fire(struct hrtimer *t)
{
	nv_linux_state_t *nvl = container_of(t, nv_linux_state_t, irq_timer);
	u64 o = ktime_get_ns();
	irqreturn_t r = nvidia_isr_msix(NV_FAKE_IRQ, nvl);

	outer_add(C_ISR_MSIX, o);
	if (r == IRQ_WAKE_THREAD)
		kthread_queue_work(nvl->bh_worker, &nvl->bh_work);
	return HRTIMER_NORESTART;
}

/*
 * Raise @n interrupts, each 1 ms after the call (or the previous one): late
 * enough that one raised by an ioctl fires after that ioctl's return (and
 * a tracer's return probe on it), inside whatever the caller does next.
 */
static void nv_raise_irqs(nv_linux_state_t *nvl, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		atomic_inc(&nvl->pending);
		/* one timer: wait until the previous interrupt was delivered */
		while (hrtimer_active(&nvl->irq_timer))
			usleep_range(50, 100);
		hrtimer_start(&nvl->irq_timer, ns_to_ktime(NSEC_PER_MSEC), HRTIMER_MODE_REL);
	}
}

/* ---- file operations ---- */
noinline int nvidia_open(struct inode *inode, struct file *file)
{
	COUNT(C_OPEN);
	file->private_data = &nvl_dev;
	return 0;
}

noinline int nvidia_close(struct inode *inode, struct file *file)
{
	COUNT(C_CLOSE);
	return 0;
}

noinline int nvidia_ioctl(struct inode *inode, struct file *file, unsigned int cmd, unsigned long i_arg)
{
	nv_linux_state_t *nvl = file->private_data;
	unsigned int nr = _IOC_NR(cmd);

	COUNT(C_IOCTL);
	if (_IOC_TYPE(cmd) != NV_IOCTL_MAGIC)
		return -ENOTTY;
	switch (nr) {
	case NV_ESC_RM_CONTROL:
		udelay(DELAY_RM_CONTROL_US);
		if (atomic_xchg(&xid_armed, 0))
			trace_nvidia_dev_xid(NV_PCI_NAME, xid_armed_code, xid_armed_msg);
		fallthrough;
	case NV_ESC_RM_ALLOC:
		nv_raise_irqs(nvl, 1);	/* work done on the "GPU" interrupts once */
		return 0;
	case NV_ESC_RM_FREE:
	case NV_ESC_CARD_INFO:
	case NV_ESC_REGISTER_FD:
	case NV_ESC_ALLOC_OS_EVENT:
	case NV_ESC_CHECK_VERSION_STR:
		return 0;
	default:
		return -EINVAL;
	}
}

noinline long nvidia_unlocked_ioctl(struct file *file, unsigned int cmd, unsigned long i_arg)
{
	u64 t0 = ktime_get_ns();
	long ret;

	COUNT(C_UNLOCKED_IOCTL);
	ret = nvidia_ioctl(file_inode(file), file, cmd, i_arg);
	SPENT(C_UNLOCKED_IOCTL, t0);
	if (_IOC_TYPE(cmd) == NV_IOCTL_MAGIC && _IOC_NR(cmd) == NV_ESC_RM_CONTROL) {
		u64 ns = ktime_get_ns() - t0;

		atomic64_inc(&control_calls);
		atomic64_add(ns, &control_ns);
		each_add(C_N, ns);
	}
	return ret;
}

noinline vm_fault_t nvidia_fault(struct vm_fault *vmf)
{
	COUNT(C_FAULT);
	return vmf_insert_pfn(vmf->vma, vmf->address, page_to_pfn(pages[vmf->pgoff % NV_PAGES]));
}

static const struct vm_operations_struct nv_vm_ops = {
	.fault = nvidia_fault,
};

noinline int nvidia_mmap(struct file *file, struct vm_area_struct *vma)
{
	COUNT(C_MMAP);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
	vm_flags_set(vma, VM_PFNMAP | VM_IO | VM_DONTEXPAND | VM_DONTDUMP);
#else
	vma->vm_flags |= VM_PFNMAP | VM_IO | VM_DONTEXPAND | VM_DONTDUMP;
#endif
	vma->vm_ops = &nv_vm_ops;
	return 0;
}

static const struct file_operations nv_fops = {
	.owner = THIS_MODULE,
	.open = nvidia_open,
	.release = nvidia_close,
	.unlocked_ioctl = nvidia_unlocked_ioctl,
	.mmap = nvidia_mmap,
};

/* ---- P2P and power management entry points ---- */
struct nvidia_p2p_page_table { u32 version, page_size, entries; };

noinline int nvidia_p2p_get_pages(u64 p2p_token, u32 va_space, u64 virtual_address, u64 length,
				  struct nvidia_p2p_page_table **page_table,
				  void (*free_callback)(void *data), void *data)
{
	struct nvidia_p2p_page_table *pt = kzalloc(sizeof(*pt), GFP_KERNEL);

	COUNT(C_P2P_GET);
	if (!pt)
		return -ENOMEM;
	pt->page_size = 65536;
	pt->entries = DIV_ROUND_UP(length, 65536);
	*page_table = pt;
	return 0;
}
EXPORT_SYMBOL_GPL(nvidia_p2p_get_pages);

noinline int nvidia_p2p_put_pages(u64 p2p_token, u32 va_space, u64 virtual_address,
				  struct nvidia_p2p_page_table *page_table)
{
	COUNT(C_P2P_PUT);
	kfree(page_table);
	return 0;
}
EXPORT_SYMBOL_GPL(nvidia_p2p_put_pages);

noinline int nvidia_suspend(struct device *dev, nv_pm_action_t pm_action, bool is_procfs_suspend)
{
	u64 t0 = ktime_get_ns();

	COUNT(C_SUSPEND);
	mdelay(DELAY_SUSPEND_US / 1000);
	SPENT(C_SUSPEND, t0);
	return 0;
}

noinline int nvidia_resume(struct device *dev, nv_pm_action_t pm_action)
{
	u64 t0 = ktime_get_ns();

	COUNT(C_RESUME);
	mdelay(DELAY_RESUME_US / 1000);
	SPENT(C_RESUME, t0);
	return 0;
}

/* ---- debugfs ---- */
static ssize_t trigger_write(struct file *f, const char __user *ubuf, size_t len, loff_t *ppos)
{
	char buf[64];
	unsigned int n = 1;
	size_t l = min(len, sizeof(buf) - 1);

	if (copy_from_user(buf, ubuf, l))
		return -EFAULT;
	buf[l] = 0;
	if (sscanf(buf, "irq %u", &n) == 1 || !strncmp(buf, "irq", 3)) {
		nv_raise_irqs(&nvl_dev, n);
	} else if (sscanf(buf, "p2p %u", &n) == 1 || !strncmp(buf, "p2p", 3)) {
		while (n--) {
			struct nvidia_p2p_page_table *pt;

			if (!nvidia_p2p_get_pages(0, 0, 0x100000, 1 << 20, &pt, NULL, NULL))
				nvidia_p2p_put_pages(0, 0, 0x100000, pt);
		}
	} else if (!strncmp(buf, "xid-in-ioctl ", 13)) {
		xid_armed_msg[0] = '\0';
		if (sscanf(buf, "xid-in-ioctl %u %63[^\n]", &xid_armed_code, xid_armed_msg) < 1)
			return -EINVAL;
		atomic_set(&xid_armed, 1);
	} else if (!strncmp(buf, "xid ", 4)) {
		char msg[64] = "";

		if (sscanf(buf, "xid %u %63[^\n]", &n, msg) < 1)
			return -EINVAL;
		trace_nvidia_dev_xid(NV_PCI_NAME, n, msg);
	} else if (!strncmp(buf, "suspend", 7)) {
		u64 o = ktime_get_ns();

		nvidia_suspend(NULL, NV_PM_ACTION_STANDBY, false);
		outer_add(C_SUSPEND, o);
		o = ktime_get_ns();
		nvidia_resume(NULL, NV_PM_ACTION_RESUME);
		outer_add(C_RESUME, o);
	} else {
		return -EINVAL;
	}
	return len;
}

static const struct file_operations trigger_fops = {
	.owner = THIS_MODULE,
	.write = trigger_write,
};

static int info_show(struct seq_file *m, void *v)
{
	seq_puts(m, "Model: \t\t xputrace lab test double\nBus Location: \t " NV_PCI_NAME
		    "\nDevice Minor: \t 0\n");
	return 0;
}
static struct proc_dir_entry *proc_nv;

static int counts_show(struct seq_file *m, void *v)
{
	int i;

	for (i = 0; i < C_N; i++)
		seq_printf(m, "%s %lld %lld\n", cname[i], atomic64_read(&counts[i]),
			   atomic64_read(&spent_ns[i]));
	seq_printf(m, "NV_ESC_RM_CONTROL %lld %lld\n", atomic64_read(&control_calls),
		   atomic64_read(&control_ns));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(counts);

/* debugfs each and outer: a struct per_call's calls, "name ns" in order */
static int per_call_show(struct seq_file *m, void *v)
{
	const struct per_call *p = m->private;
	int i;
	s64 k, n;

	for (i = 0; i <= C_N; i++) {
		n = min_t(s64, atomic64_read(&p->n[i]), EACH_MAX);
		for (k = 0; k < n; k++)
			seq_printf(m, "%s %llu\n", i < C_N ? cname[i] : "NV_ESC_RM_CONTROL",
				   READ_ONCE(p->ns[i][k]));
	}
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(per_call);

static int __init nv_init(void)
{
	int i, ret;

	for (i = 0; i < NV_PAGES; i++) {
		pages[i] = alloc_page(GFP_KERNEL | __GFP_ZERO);
		if (!pages[i]) {
			ret = -ENOMEM;
			goto err_pages;
		}
	}
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
	hrtimer_setup(&nvl_dev.irq_timer, nv_irq_fire, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
#else
	hrtimer_init(&nvl_dev.irq_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL);
	nvl_dev.irq_timer.function = nv_irq_fire;
#endif
	nvl_dev.bh_worker = kthread_create_worker(0, "nv_queue");
	if (IS_ERR(nvl_dev.bh_worker)) {
		ret = PTR_ERR(nvl_dev.bh_worker);
		goto err_pages;
	}
	kthread_init_work(&nvl_dev.bh_work, nv_bh_work);
	ret = register_chrdev(NV_MAJOR, "nvidia-frontend", &nv_fops);
	if (ret < 0)
		goto err_worker;
	dbg = debugfs_create_dir("nvidia_double", NULL);
	debugfs_create_file("trigger", 0200, dbg, NULL, &trigger_fops);
	debugfs_create_file("counts", 0444, dbg, NULL, &counts_fops);
	debugfs_create_file("each", 0444, dbg, &each, &per_call_fops);
	debugfs_create_file("outer", 0444, dbg, &outer, &per_call_fops);
	proc_nv = proc_mkdir("driver/nvidia", NULL);
	if (proc_nv) {
		struct proc_dir_entry *gpus = proc_mkdir("gpus", proc_nv);
		struct proc_dir_entry *gpu = gpus ? proc_mkdir(NV_PCI_NAME, gpus) : NULL;

		if (gpu)
			proc_create_single("information", 0444, gpu, info_show);
	}
	pr_info("nvidia: TEST DOUBLE of nvidia.ko for the xputrace lab (no hardware, no NVIDIA code)\n");
	return 0;

err_worker:
	kthread_destroy_worker(nvl_dev.bh_worker);
err_pages:
	while (i--)
		__free_page(pages[i]);
	return ret;
}

static void __exit nv_exit(void)
{
	int i;

	debugfs_remove_recursive(dbg);
	proc_remove(proc_nv);
	unregister_chrdev(NV_MAJOR, "nvidia-frontend");
	hrtimer_cancel(&nvl_dev.irq_timer);
	kthread_destroy_worker(nvl_dev.bh_worker);
	for (i = 0; i < NV_PAGES; i++)
		__free_page(pages[i]);
}

module_init(nv_init);
module_exit(nv_exit);
MODULE_DESCRIPTION("xputrace lab: test double of nvidia.ko (function names only; no hardware, no NVIDIA code)");
MODULE_LICENSE("GPL");
