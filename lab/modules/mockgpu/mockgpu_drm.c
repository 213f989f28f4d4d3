// SPDX-License-Identifier: GPL-2.0
/*
 * mockgpu's DRM driver: the same mock GPU behind a real DRM render node,
 * with module parameter render_node=1 (off by default, so that the guests
 * of other scenarios keep the DRM nodes they had). Included by mockgpu.c
 * (not for MOCK_XDNA): it uses that file's per-file state and rings.
 *
 * The kernel's DRM core makes /dev/dri/renderD<N> (major 226) and its
 * /sys/class/drm entry, whose parent device is the platform device
 * "mockgpu"; DRM_IOCTL_VERSION names the driver "mockgpu". Opening the
 * render node makes the same per-file state as opening /dev/mockgpu (one
 * drm_sched entity per ring, a client id, its usage); closing it waits for
 * its jobs as the misc device does. A render-node file takes:
 *   - the submit ioctl as a driver ioctl, DRM_IOCTL_MOCK_SUBMIT =
 *     DRM_IOWR(DRM_COMMAND_BASE + 0, struct mock_submit_args), allowed on
 *     render nodes;
 *   - write()/read(): the misc device's command interface, unchanged.
 * Its fdinfo has the drm-usage-stats keys: from 6.5 on the DRM core writes
 * drm-driver and drm-client-id (its own client id, which the file's jobs
 * also carry to drm_sched_job_init, as real drivers do) and the driver
 * adds drm-engine-<ring> and drm-total-/drm-resident-system through
 * drm_driver.show_fdinfo; before 6.5 (no drm_show_fdinfo) the driver's own
 * file_operations.show_fdinfo writes every key, as the drivers of that time
 * did. No drm-pdev: the parent is not a PCI device.
 */
#include <drm/drm_drv.h>
#include <drm/drm_file.h>
#include <drm/drm_ioctl.h>
#include <drm/drm_print.h>

static bool render_node;
module_param(render_node, bool, 0444);
MODULE_PARM_DESC(render_node, "also register a DRM driver with a render node for the same mock GPU");

#define DRM_MOCK_SUBMIT 0x00
#define DRM_IOCTL_MOCK_SUBMIT DRM_IOWR(DRM_COMMAND_BASE + DRM_MOCK_SUBMIT, struct mock_submit_args)

static struct drm_device *mock_drm;

static int mock_drm_open(struct drm_device *dev, struct drm_file *file)
{
	struct mock_file *mf;

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
	mf = mock_file_new(file->client_id);	/* set before the driver's open */
#else
	mf = mock_file_new(atomic64_inc_return(&next_client));
#endif
	if (IS_ERR(mf))
		return PTR_ERR(mf);
	file->driver_priv = mf;
	return 0;
}

static void mock_drm_postclose(struct drm_device *dev, struct drm_file *file)
{
	mock_file_free(file->driver_priv);
}

static int mock_drm_submit(struct drm_device *dev, void *data, struct drm_file *file)
{
	return mock_submit_ioctl(file->driver_priv, data);	/* the core copies data back */
}

static const struct drm_ioctl_desc mock_drm_ioctls[] = {
	DRM_IOCTL_DEF_DRV(MOCK_SUBMIT, mock_drm_submit, DRM_RENDER_ALLOW),
};

static struct mock_file *mock_drm_mf(struct file *f)
{
	struct drm_file *file = f->private_data;

	return file->driver_priv;
}

static ssize_t mock_drm_write(struct file *f, const char __user *ubuf, size_t len, loff_t *ppos)
{
	return mock_file_write(mock_drm_mf(f), ubuf, len);
}

static ssize_t mock_drm_read(struct file *f, char __user *ubuf, size_t len, loff_t *ppos)
{
	return mock_file_read(mock_drm_mf(f), ubuf, len);
}

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
/* after the core's drm-driver and drm-client-id */
static void mock_drm_show_fdinfo(struct drm_printer *p, struct drm_file *file)
{
	char buf[MOCK_USAGE_LEN];

	mock_usage_text(file->driver_priv, buf, sizeof(buf));
	drm_printf(p, "%s", buf);
}
#define MOCK_DRM_FOPS_FDINFO drm_show_fdinfo
#else
static void mock_drm_fops_fdinfo(struct seq_file *m, struct file *f)
{
	mock_fdinfo(m, mock_drm_mf(f));
}
#define MOCK_DRM_FOPS_FDINFO mock_drm_fops_fdinfo
#endif

static const struct file_operations mock_drm_fops = {
	.owner = THIS_MODULE,
	.open = drm_open,
	.release = drm_release,
	.unlocked_ioctl = drm_ioctl,
	.compat_ioctl = drm_compat_ioctl,
	.read = mock_drm_read,
	.write = mock_drm_write,
	.llseek = noop_llseek,
	.show_fdinfo = MOCK_DRM_FOPS_FDINFO,
#ifdef FOP_UNSIGNED_OFFSET
	.fop_flags = FOP_UNSIGNED_OFFSET,	/* drm_open refuses a DRM file without it (6.12+) */
#endif
};

static const struct drm_driver mock_drm_driver = {
	.driver_features = DRIVER_RENDER,
	.open = mock_drm_open,
	.postclose = mock_drm_postclose,
	.ioctls = mock_drm_ioctls,
	.num_ioctls = ARRAY_SIZE(mock_drm_ioctls),
	.fops = &mock_drm_fops,
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 5, 0)
	.show_fdinfo = mock_drm_show_fdinfo,
#endif
	.name = MOCK_FENCE_DRIVER,
	.desc = "xputrace lab mock GPU (test stand-in, no hardware)",
#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 14, 0)
	.date = "20261127",
#endif
	.major = 1,
};

static int mock_drm_init(void)
{
	int ret;

	if (!render_node)
		return 0;
	mock_drm = drm_dev_alloc(&mock_drm_driver, &mock_pdev->dev);
	if (IS_ERR(mock_drm)) {
		ret = PTR_ERR(mock_drm);
		mock_drm = NULL;
		return ret;
	}
	ret = drm_dev_register(mock_drm, 0);
	if (ret) {
		drm_dev_put(mock_drm);
		mock_drm = NULL;
		return ret;
	}
	pr_info(MOCK_PFX "DRM driver with render node D%d\n", mock_drm->render->index);
	return 0;
}

static void mock_drm_fini(void)
{
	if (!mock_drm)
		return;
	drm_dev_unregister(mock_drm);
	drm_dev_put(mock_drm);
}
