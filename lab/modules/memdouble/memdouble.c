// SPDX-License-Identifier: GPL-2.0
/*
 * memdouble: a TEST STAND-IN for amdgpu, i915 and xe hardware in the xputrace
 * lab. It drives no GPU and implements nothing of either driver. QEMU has no
 * AMD or Intel GPU, so the real amdgpu and i915 modules load and register
 * their trace events but never fire them. This module defines events with
 * the same names and byte-for-byte the same TP_STRUCT__entry layouts
 * (xpmem_amdgpu_trace.h, xpmem_i915_trace.h, xpmem_xe_trace.h) under its own
 * groups, xpmem_amdgpu, xpmem_i915 and xpmem_xe, and fires them on demand
 * with known counts and sizes, so that a tracer reading the real events'
 * layouts can be checked end to end (`xputrace mem --group amdgpu=xpmem_amdgpu
 * --group i915=xpmem_i915 --group xe=xpmem_xe`).
 *
 * debugfs memdouble/fire takes one command per write: NAME key=value ...
 *   bo_create n= pages= type= prefer= allow=  amdgpu_bo_create, writer's context
 *   bo_move   n= size= from= to=              amdgpu_bo_move, in a worker
 *   cs_ioctl  n= ring= ctx= seqno=            amdgpu_cs_ioctl, writer's context,
 *                                             seqno, seqno+1, ...
 *   run_job   n= ring= ctx= seqno=            amdgpu_sched_run_job, in a worker
 *   iv        n= client= src= pasid=          amdgpu_iv, in hard interrupt context
 *                                             (irq_work)
 *   create    n= size=                        i915_gem_object_create, writer's
 *                                             context; objects are kept in order
 *   destroy   n=                              i915_gem_object_destroy of the n
 *                                             oldest objects, in a worker
 *   bind      n= size=                        i915_vma_bind of the n oldest, worker
 *   unbind    n=                              i915_vma_unbind of the n oldest, worker
 *   fault     n= gtt= write=                  i915_gem_object_fault, writer's context
 *   evict     n= size=  / evict_node n= / evict_vm n= / shrink n= target=
 *                                             in a worker
 *   rq_add    n= ctx= seqno= class= instance= i915_request_add, writer's context,
 *                                             seqno, seqno+1, ...
 *   rq_retire n= ctx= seqno= class= instance= i915_request_retire, in a worker
 *   rq_wait   n= ctx= seqno= class= instance= us=
 *                                             i915_request_wait_begin, a sleep of
 *                                             us microseconds, wait_end: writer's
 *                                             context, one wait per seqno
 *   xe_queue  n= class=                       xe_exec_queue_create, writer's context
 *   xe_queue_destroy n=                       xe_exec_queue_destroy, in a worker
 *   xe_job    n= seqno=                       xe_sched_job_create, writer's context
 *   xe_job_run n= seqno=                      xe_sched_job_run, in a worker
 *   xe_bo     n= size=                        xe_bo_create, writer's context
 *   xe_move   n= size= from= to= new=         xe_bo_move, in a worker; from/to are
 *                                             xe placements (0 system, 1 gtt,
 *                                             2 vram0, 3 vram1, 4 stolen)
 *   xe_fault  n= asid=                        xe_vma_pagefault, in a worker
 * Unknown commands or keys fail the write with -EINVAL.
 */
#include <linux/module.h>
#include <linux/debugfs.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>
#include <linux/workqueue.h>
#include <linux/irq_work.h>
#include <linux/mutex.h>
#include <linux/list.h>
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/math64.h>

#define CREATE_TRACE_POINTS
#include "xpmem_amdgpu_trace.h"
#include "xpmem_i915_trace.h"
#include "xpmem_xe_trace.h"

struct cmd {
	char name[24];
	char ring[32];
	u64 n, pages, type, prefer, allow, size, from, to, ctx, seqno, client, src, pasid;
	u64 gtt, write, target, class, new, asid, instance, us;
};

struct obj {
	struct list_head link;
	u64 size;
};

static DEFINE_MUTEX(lock);
static LIST_HEAD(objs);
static struct dentry *dir;
static struct cmd cur;		/* the command the worker / irq_work runs (under lock) */
static struct work_struct work;
static struct irq_work iw;
static char vm_cookie;		/* stands in for an address space: only its address is traced */

#define VM ((struct i915_address_space *)&vm_cookie)
#define OBJ(o) ((struct drm_i915_gem_object *)(o))
#define BO(i) ((struct amdgpu_bo *)(0x1000UL * ((i) + 1)))
#define XE_DEV "0000:00:02.0"

/* xe_mem_type_to_name of the real driver, by placement */
static const char *xe_pl(u64 pl)
{
	static const char *const n[] = { "system", "gtt", "vram0", "vram1", "stolen" };

	return pl < ARRAY_SIZE(n) ? n[pl] : "system";
}

static void nth_oldest(u64 n, void (*fn)(struct obj *o))
{
	struct obj *o, *t;

	list_for_each_entry_safe(o, t, &objs, link) {
		if (!n--)
			break;
		fn(o);
	}
}

static u64 bind_size;
static void do_destroy(struct obj *o)
{
	trace_i915_gem_object_destroy(OBJ(o));
	list_del(&o->link);
	kfree(o);
}
static void do_bind(struct obj *o) { trace_i915_vma_bind(OBJ(o), VM, 0x100000, bind_size, 0); }
static void do_unbind(struct obj *o) { trace_i915_vma_unbind(OBJ(o), VM, 0x100000, o->size); }

/* events that the real drivers fire outside the causing process: a worker here */
static void worker(struct work_struct *w)
{
	struct cmd *c = &cur;
	u64 i;

	if (!strcmp(c->name, "bo_move")) {
		for (i = 0; i < c->n; i++)
			trace_amdgpu_bo_move(BO(i), c->size, (u32)c->to, (u32)c->from);
	} else if (!strcmp(c->name, "run_job")) {
		for (i = 0; i < c->n; i++)
			trace_amdgpu_sched_run_job(c->ring, c->ctx, c->seqno + i, NULL, c->ring, 1);
	} else if (!strcmp(c->name, "destroy")) {
		nth_oldest(c->n, do_destroy);
	} else if (!strcmp(c->name, "bind")) {
		bind_size = c->size;
		nth_oldest(c->n, do_bind);
	} else if (!strcmp(c->name, "unbind")) {
		nth_oldest(c->n, do_unbind);
	} else if (!strcmp(c->name, "evict")) {
		for (i = 0; i < c->n; i++)
			trace_i915_gem_evict(0, VM, c->size, 4096, 0);
	} else if (!strcmp(c->name, "evict_node")) {
		for (i = 0; i < c->n; i++)
			trace_i915_gem_evict_node(0, VM, 0x200000, 4096, 0);
	} else if (!strcmp(c->name, "evict_vm")) {
		for (i = 0; i < c->n; i++)
			trace_i915_gem_evict_vm(0, VM);
	} else if (!strcmp(c->name, "shrink")) {
		for (i = 0; i < c->n; i++)
			trace_i915_gem_shrink(0, (unsigned long)c->target, 0);
	} else if (!strcmp(c->name, "rq_retire")) {
		for (i = 0; i < c->n; i++)
			trace_i915_request_retire(0, c->ctx, (u16)c->class, (u16)c->instance,
						  (u32)(c->seqno + i));
	} else if (!strcmp(c->name, "xe_queue_destroy")) {
		for (i = 0; i < c->n; i++)
			trace_xe_exec_queue_destroy(XE_DEV, 0, (u16)i);
	} else if (!strcmp(c->name, "xe_job_run")) {
		for (i = 0; i < c->n; i++)
			trace_xe_sched_job_run(XE_DEV, (u32)(c->seqno + i), 1, NULL);
	} else if (!strcmp(c->name, "xe_move")) {
		for (i = 0; i < c->n; i++)
			trace_xe_bo_move((struct xe_bo *)BO(i), c->size, xe_pl(c->to), xe_pl(c->from),
					 XE_DEV, c->new != 0);
	} else if (!strcmp(c->name, "xe_fault")) {
		for (i = 0; i < c->n; i++)
			trace_xe_vma_pagefault(XE_DEV, NULL, NULL, (u32)c->asid, 0x100000 * i,
					       0x100000 * i + 0xfff);
	}
}

/* amdgpu_iv fires in the interrupt handler: a hard-irq irq_work here */
static void irq_fn(struct irq_work *w)
{
	u64 i;

	for (i = 0; i < cur.n; i++)
		trace_amdgpu_iv(0, (unsigned)cur.client, (unsigned)cur.src, (unsigned)cur.pasid);
}

static int parse(char *s, struct cmd *c)
{
	static const char *const keys[] = { "n", "pages", "type", "prefer", "allow", "size", "from",
					     "to", "ctx", "seqno", "client", "src", "pasid", "gtt",
					     "write", "target", "class", "new", "asid", "instance", "us" };
	u64 *vals[] = { &c->n, &c->pages, &c->type, &c->prefer, &c->allow, &c->size, &c->from,
			&c->to, &c->ctx, &c->seqno, &c->client, &c->src, &c->pasid, &c->gtt,
			&c->write, &c->target, &c->class, &c->new, &c->asid, &c->instance, &c->us };
	char *tok, *eq;
	int i;

	memset(c, 0, sizeof(*c));
	c->n = 1;
	strscpy(c->ring, "gfx_0.0.0", sizeof(c->ring));
	tok = strsep(&s, " \t\n");
	if (!tok || !*tok || strlen(tok) >= sizeof(c->name))
		return -EINVAL;
	strscpy(c->name, tok, sizeof(c->name));
	while ((tok = strsep(&s, " \t\n"))) {
		if (!*tok)
			continue;
		eq = strchr(tok, '=');
		if (!eq)
			return -EINVAL;
		*eq++ = '\0';
		if (!strcmp(tok, "ring")) {
			if (strscpy(c->ring, eq, sizeof(c->ring)) < 0)
				return -EINVAL;
			continue;
		}
		for (i = 0; i < ARRAY_SIZE(keys); i++)
			if (!strcmp(tok, keys[i]))
				break;
		if (i == ARRAY_SIZE(keys) || kstrtoull(eq, 0, vals[i]))
			return -EINVAL;
	}
	return c->n > 1000000 || c->us > 1000000 ? -EINVAL : 0;
}

static int fire(struct cmd *c)
{
	static const char *const deferred[] = { "bo_move", "run_job", "destroy", "bind", "unbind",
						"evict", "evict_node", "evict_vm", "shrink", "rq_retire",
						"xe_queue_destroy", "xe_job_run", "xe_move", "xe_fault" };
	struct obj *o;
	u64 i;
	int k;

	if (!strcmp(c->name, "bo_create")) {
		for (i = 0; i < c->n; i++)
			trace_amdgpu_bo_create(BO(i), (u32)c->pages, (u32)c->type, (u32)c->prefer,
					       (u32)c->allow, 0);
		return 0;
	}
	if (!strcmp(c->name, "cs_ioctl")) {
		for (i = 0; i < c->n; i++)
			trace_amdgpu_cs_ioctl(c->ring, c->ctx, c->seqno + i, NULL, c->ring, 1);
		return 0;
	}
	if (!strcmp(c->name, "create")) {
		for (i = 0; i < c->n; i++) {
			o = kzalloc(sizeof(*o), GFP_KERNEL);
			if (!o)
				return -ENOMEM;
			o->size = c->size;
			list_add_tail(&o->link, &objs);
			trace_i915_gem_object_create(OBJ(o), c->size);
		}
		return 0;
	}
	if (!strcmp(c->name, "fault")) {
		o = list_first_entry_or_null(&objs, struct obj, link);
		for (i = 0; i < c->n; i++)
			trace_i915_gem_object_fault(OBJ(o), i, c->gtt != 0, c->write != 0);
		return 0;
	}
	if (!strcmp(c->name, "rq_add")) {
		for (i = 0; i < c->n; i++)
			trace_i915_request_add(0, c->ctx, (u16)c->class, (u16)c->instance,
					       (u32)(c->seqno + i));
		return 0;
	}
	if (!strcmp(c->name, "rq_wait")) {
		for (i = 0; i < c->n; i++) {
			u64 end;

			trace_i915_request_wait_begin(0, c->ctx, (u16)c->class, (u16)c->instance,
						      (u32)(c->seqno + i), 0);
			/*
			 * Until the tracer's clock has moved on by us: a sleep of
			 * jiffies (fsleep of 20 ms is msleep) can end early by
			 * it when an emulated CPU, stalled by its host, catches
			 * up the ticks it missed (the lab under load: 3 waits
			 * of 20 ms took 58.5 ms in all).
			 */
			end = ktime_get_ns() + (u64)c->us * NSEC_PER_USEC;
			for (u64 now = ktime_get_ns(); now < end; now = ktime_get_ns())
				fsleep((unsigned long)div_u64(end - now, NSEC_PER_USEC) + 1);
			trace_i915_request_wait_end(0, c->ctx, (u16)c->class, (u16)c->instance,
						    (u32)(c->seqno + i));
		}
		return 0;
	}
	if (!strcmp(c->name, "xe_queue")) {
		for (i = 0; i < c->n; i++)
			trace_xe_exec_queue_create(XE_DEV, (u32)c->class, (u16)i);
		return 0;
	}
	if (!strcmp(c->name, "xe_job")) {
		for (i = 0; i < c->n; i++)
			trace_xe_sched_job_create(XE_DEV, (u32)(c->seqno + i), 1, NULL);
		return 0;
	}
	if (!strcmp(c->name, "xe_bo")) {
		for (i = 0; i < c->n; i++)
			trace_xe_bo_create(XE_DEV, c->size, NULL);
		return 0;
	}
	if (!strcmp(c->name, "iv")) {
		cur = *c;
		irq_work_queue(&iw);
		irq_work_sync(&iw);
		return 0;
	}
	for (k = 0; k < ARRAY_SIZE(deferred); k++)
		if (!strcmp(c->name, deferred[k])) {
			cur = *c;
			queue_work(system_unbound_wq, &work);
			flush_work(&work);
			return 0;
		}
	return -EINVAL;
}

static ssize_t fire_write(struct file *f, const char __user *ubuf, size_t len, loff_t *pos)
{
	char buf[256];
	struct cmd c;
	int err;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = '\0';
	err = parse(buf, &c);
	if (err)
		return err;
	mutex_lock(&lock);
	err = fire(&c);
	mutex_unlock(&lock);
	return err ? err : len;
}

static const struct file_operations fire_fops = {
	.owner = THIS_MODULE,
	.write = fire_write,
};

static int __init memdouble_init(void)
{
	INIT_WORK(&work, worker);
	init_irq_work(&iw, irq_fn);
	dir = debugfs_create_dir("memdouble", NULL);
	debugfs_create_file("fire", 0200, dir, NULL, &fire_fops);
	return 0;
}

static void __exit memdouble_exit(void)
{
	struct obj *o, *t;

	debugfs_remove_recursive(dir);
	flush_work(&work);
	irq_work_sync(&iw);
	list_for_each_entry_safe(o, t, &objs, link) {
		list_del(&o->link);
		kfree(o);
	}
}

module_init(memdouble_init);
module_exit(memdouble_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("xputrace lab: amdgpu/i915/xe trace events fired on demand (test stand-in, no hardware)");
