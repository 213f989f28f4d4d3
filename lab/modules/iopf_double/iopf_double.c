// SPDX-License-Identifier: GPL-2.0
/*
 * iopf_double: a TEST DOUBLE of IO page-fault handling for the xputrace lab.
 * No IOMMU here: it defines the smmu:io_fault_entry / io_fault_exit trace
 * events and fires them on demand with known PASIDs, counts and delays.
 *
 *   debugfs iopf_double/fire, one command per write, run in the writer's
 *   context: "pasid=P count=N delay_us=D [dev=NAME] [end=task|hardirq|
 *   softirq|work]" handles N faults of PASID P, each taking D microseconds
 *   (default dev "iopf0"):
 *     iopf_double_handle(dev, pasid, delay_us)
 *       iopf_double_start(dev, pasid)  -> smmu:io_fault_entry
 *       (sleeps or spins D us)
 *       iopf_double_done(dev, pasid)   -> smmu:io_fault_exit
 *   With end= other than task (the default) the exit fires elsewhere, D us
 *   after the entry, as a real fault's completion would: from an hrtimer in
 *   hardirq context, from a soft hrtimer (softirq), or from a work item
 *   queued by an hrtimer; the writer waits for it before the next fault.
 *   debugfs iopf_double/counts: "DEV PASID COUNT" per pair fired so far;
 *   debugfs iopf_double/contexts: exits fired per context ("task N", ...).
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/completion.h>
#include <linux/delay.h>
#include <linux/hrtimer.h>
#include <linux/workqueue.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/version.h>

#define CREATE_TRACE_POINTS
#include "iopf_double_trace.h"

#define MAX_ROWS 64

struct row {
	char dev[32];
	int pasid;
	unsigned long count;
};

static struct row rows[MAX_ROWS];
static int nrows;
static DEFINE_MUTEX(lock);
static struct dentry *dir;

enum end_ctx { END_TASK, END_HARDIRQ, END_SOFTIRQ, END_WORK, END_MAX };
static const char *const end_names[END_MAX] = { "task", "hardirq", "softirq", "work" };
static atomic_long_t ends_in[END_MAX];

/* One fault whose exit fires away from the writer. */
struct fault {
	struct hrtimer timer;
	struct work_struct work;
	struct completion done;
	enum end_ctx ctx;
	const char *dev;
	int pasid;
};

/* The probed functions: global and noinline so each keeps its own symbol. */
noinline void iopf_double_start(const char *dev, int pasid);
noinline void iopf_double_done(const char *dev, int pasid);
noinline int iopf_double_handle(const char *dev, int pasid, unsigned int delay_us);

noinline void iopf_double_start(const char *dev, int pasid)
{
	trace_io_fault_entry(dev, pasid);
}

noinline void iopf_double_done(const char *dev, int pasid)
{
	trace_io_fault_exit(dev, pasid);
}

noinline int iopf_double_handle(const char *dev, int pasid, unsigned int delay_us)
{
	iopf_double_start(dev, pasid);
	if (delay_us >= 20)
		usleep_range(delay_us, delay_us + 5);
	else if (delay_us)
		udelay(delay_us);
	iopf_double_done(dev, pasid);
	return 0;
}

static void fault_exit(struct fault *f)
{
	iopf_double_done(f->dev, f->pasid);
	atomic_long_inc(&ends_in[f->ctx]);
	complete(&f->done);
}

static void fault_work(struct work_struct *w)
{
	fault_exit(container_of(w, struct fault, work));
}

static enum hrtimer_restart fault_timer(struct hrtimer *t)
{
	struct fault *f = container_of(t, struct fault, timer);

	if (f->ctx == END_WORK)
		queue_work(system_wq, &f->work);
	else
		fault_exit(f);
	return HRTIMER_NORESTART;
}

/* A fault whose exit comes from an interrupt, a softirq or a worker. */
static int handle_away(const char *dev, int pasid, unsigned int delay_us, enum end_ctx ctx)
{
	enum hrtimer_mode mode = ctx == END_SOFTIRQ ? HRTIMER_MODE_REL_SOFT : HRTIMER_MODE_REL_HARD;
	struct fault *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (!f)
		return -ENOMEM;
	f->ctx = ctx;
	f->dev = dev;
	f->pasid = pasid;
	init_completion(&f->done);
	INIT_WORK(&f->work, fault_work);
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 13, 0)
	hrtimer_setup(&f->timer, fault_timer, CLOCK_MONOTONIC, mode);
#else
	hrtimer_init(&f->timer, CLOCK_MONOTONIC, mode);
	f->timer.function = fault_timer;
#endif
	iopf_double_start(dev, pasid);
	hrtimer_start(&f->timer, ns_to_ktime((u64)delay_us * 1000), mode);
	wait_for_completion(&f->done);
	hrtimer_cancel(&f->timer);
	flush_work(&f->work);
	kfree(f);
	return 0;
}

static void count(const char *dev, int pasid, unsigned long n)
{
	int i;

	mutex_lock(&lock);
	for (i = 0; i < nrows; i++)
		if (rows[i].pasid == pasid && !strcmp(rows[i].dev, dev))
			break;
	if (i == nrows && nrows < MAX_ROWS) {
		strscpy(rows[i].dev, dev, sizeof(rows[i].dev));
		rows[i].pasid = pasid;
		nrows++;
	}
	if (i < nrows)
		rows[i].count += n;
	mutex_unlock(&lock);
}

static ssize_t fire_write(struct file *f, const char __user *ubuf, size_t len, loff_t *off)
{
	char buf[128], dev[32] = "iopf0", *p, *tok;
	int pasid = -1;
	unsigned int n = 0, delay_us = 0, i;
	enum end_ctx ctx = END_TASK;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	p = strim(buf);
	while ((tok = strsep(&p, " \t")) != NULL) {
		if (!*tok)
			continue;
		if (sscanf(tok, "pasid=%d", &pasid) == 1 || sscanf(tok, "count=%u", &n) == 1 ||
		    sscanf(tok, "delay_us=%u", &delay_us) == 1)
			continue;
		if (!strncmp(tok, "dev=", 4) && tok[4]) {
			strscpy(dev, tok + 4, sizeof(dev));
			continue;
		}
		if (!strncmp(tok, "end=", 4)) {
			for (ctx = 0; ctx < END_MAX; ctx++)
				if (!strcmp(tok + 4, end_names[ctx]))
					break;
			if (ctx < END_MAX)
				continue;
		}
		return -EINVAL;
	}
	if (pasid < 0 || !n || n > 100000 || delay_us > 1000000)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		if (ctx == END_TASK) {
			iopf_double_handle(dev, pasid, delay_us);
			atomic_long_inc(&ends_in[END_TASK]);
		} else if (handle_away(dev, pasid, delay_us, ctx)) {
			count(dev, pasid, i);
			return -ENOMEM;
		}
	}
	count(dev, pasid, n);
	return len;
}

static int counts_show(struct seq_file *m, void *v)
{
	int i;

	mutex_lock(&lock);
	for (i = 0; i < nrows; i++)
		seq_printf(m, "%s %d %lu\n", rows[i].dev, rows[i].pasid, rows[i].count);
	mutex_unlock(&lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(counts);

static int contexts_show(struct seq_file *m, void *v)
{
	int i;

	for (i = 0; i < END_MAX; i++)
		seq_printf(m, "%s %ld\n", end_names[i], atomic_long_read(&ends_in[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(contexts);

static const struct file_operations fire_fops = {
	.owner = THIS_MODULE,
	.write = fire_write,
};

static int __init iopf_double_init(void)
{
	dir = debugfs_create_dir("iopf_double", NULL);
	debugfs_create_file("fire", 0200, dir, NULL, &fire_fops);
	debugfs_create_file("counts", 0444, dir, NULL, &counts_fops);
	debugfs_create_file("contexts", 0444, dir, NULL, &contexts_fops);
	return 0;
}

static void __exit iopf_double_exit(void)
{
	debugfs_remove_recursive(dir);
}

module_init(iopf_double_init);
module_exit(iopf_double_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xputrace lab: a test double of IO page-fault handling (smmu fault events)");
