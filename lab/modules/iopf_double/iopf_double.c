// SPDX-License-Identifier: GPL-2.0
/*
 * iopf_double: a TEST DOUBLE of IO page-fault handling for the xputrace lab.
 * No IOMMU here: it defines the smmu:io_fault_entry / io_fault_exit trace
 * events and fires them on demand with known PASIDs, counts and delays.
 *
 *   debugfs iopf_double/fire, one command per write, run in the writer's
 *   context: "pasid=P count=N delay_us=D [dev=NAME]" handles N faults of
 *   PASID P, each taking D microseconds (default dev "iopf0"):
 *     iopf_double_handle(dev, pasid, delay_us)
 *       iopf_double_start(dev, pasid)  -> smmu:io_fault_entry
 *       (sleeps or spins D us)
 *       iopf_double_done(dev, pasid)   -> smmu:io_fault_exit
 *   debugfs iopf_double/counts: "DEV PASID COUNT" per pair fired so far.
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

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
		return -EINVAL;
	}
	if (pasid < 0 || !n || n > 100000 || delay_us > 1000000)
		return -EINVAL;
	for (i = 0; i < n; i++)
		iopf_double_handle(dev, pasid, delay_us);
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

static const struct file_operations fire_fops = {
	.owner = THIS_MODULE,
	.write = fire_write,
};

static int __init iopf_double_init(void)
{
	dir = debugfs_create_dir("iopf_double", NULL);
	debugfs_create_file("fire", 0200, dir, NULL, &fire_fops);
	debugfs_create_file("counts", 0444, dir, NULL, &counts_fops);
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
