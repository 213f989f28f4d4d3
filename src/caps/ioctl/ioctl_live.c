/* The ioctl capability's kernel side: load, fill the device maps, attach, drain. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "caps/ioctl/ioctl_stats.h"
#include "live/features.h"
#include "live/kprobe.h"
#include "caps/ioctl/ioctl_live.h"
#include "live/kernel_side.h"
#include "live/skel.h"
#include "live/procs.h"
#include "live/session.h"
#include "live/tracefs.h"
#include "ioctl.skel.h"

int xp_ioctl_fill_device_maps(struct bpf_map *majors, struct bpf_map *devs, const struct xp_devices *d,
			      int in_list)
{
	uint8_t on = 1;

	for (int i = 0; i < d->nmajors; i++) {
		uint32_t m = d->majors[i].major;

		if (m < 4096 && bpf_map_update_elem(bpf_map__fd(majors), &m, &on, BPF_ANY))
			return -errno;
	}
	for (int i = 0; d->nextra > in_list && i < d->nextra; i++)
		if (bpf_map_update_elem(bpf_map__fd(devs), &d->extra[i], &on, BPF_ANY))
			return -errno;
	return 0;
}

XP_SKEL_OPS(ioctl);

static void skel_detach(struct xp_kside *k) { ioctl_bpf__detach(k->skel); }
static void skel_destroy(void *skel)
{
	ioctl_bpf__destroy(skel);
	xp_kretprobes_remove();	/* its links are gone by now */
}

enum { HOOK_KPROBE, HOOK_TRACEPOINT, HOOK_TP_BTF, HOOK_RAW_TP, HOOK_MAX };
static const char *const hook_names[HOOK_MAX] = { "kprobe", "tracepoint", "tp_btf", "raw_tp" };

/* The syscall functions: native, then compat (absent without IA32_EMULATION). */
static const char *const sys_fn[2] = { "__x64_sys_ioctl", "__ia32_compat_sys_ioctl" };

static int attach_kprobes(struct xp_kside *k, struct ioctl_bpf *skel, char *why, size_t whylen)
{
	struct bpf_program *enter[2] = { skel->progs.ioctl_enter_kp, skel->progs.ioctl_enter_kp32 };
	int err;

	for (int i = 0; i < 2; i++) {
		k->links[2 * i] = bpf_program__attach_kprobe(enter[i], false, sys_fn[i]);
		if (!k->links[2 * i]) {
			err = -errno;
			if (i == 1 && err == -ENOENT)
				break;	/* no 32-bit syscalls in this kernel */
			snprintf(why, whylen, "no kprobe on %s: %s", sys_fn[i], strerror(-err));
			return err;
		}
		err = xp_kretprobe_attach(skel->progs.ioctl_exit_kp, sys_fn[i], XP_KRETPROBE_MAXACTIVE,
					  &k->links[2 * i + 1], why, whylen);
		if (err)
			return err;
	}
	return 0;
}

/* One hook's try. */
struct try {
	int h;
	const struct xp_devices *d;
	bool aggregate;
};

/* Only the programs and maps of hook h; the devices to count. */
static int configure(struct xp_kside *k, void *ctx, char *why, size_t whylen)
{
	const struct try *t = ctx;
	struct ioctl_bpf *skel = k->skel;
	const struct xp_devices *d = t->d;
	int h = t->h;

	/* libbpf finds a classic event's id in tracefs, which may not be mounted yet */
	if (h == HOOK_TRACEPOINT && !xp_tracefs(why, whylen, NULL))
		return -ENOENT;
	bpf_program__set_autoload(skel->progs.ioctl_enter_kp, h == HOOK_KPROBE);
	bpf_program__set_autoload(skel->progs.ioctl_enter_kp32, h == HOOK_KPROBE);
	bpf_program__set_autoload(skel->progs.ioctl_exit_kp, h == HOOK_KPROBE);
	bpf_program__set_autoload(skel->progs.ioctl_enter_tp, h == HOOK_TRACEPOINT);
	bpf_program__set_autoload(skel->progs.ioctl_exit_tp, h == HOOK_TRACEPOINT);
	/* no 32-bit program can start where the kernel runs none */
	bpf_program__set_autoload(skel->progs.ioctl_exec32,
				  h == HOOK_TRACEPOINT && xp_runs_32bit(NULL, 0));
	bpf_program__set_autoload(skel->progs.ioctl_enter_btf, h == HOOK_TP_BTF);
	bpf_program__set_autoload(skel->progs.ioctl_exit_btf, h == HOOK_TP_BTF);
	bpf_program__set_autoload(skel->progs.ioctl_enter_raw, h == HOOK_RAW_TP);
	bpf_program__set_autoload(skel->progs.ioctl_exit_raw, h == HOOK_RAW_TP);
	bpf_map__set_autocreate(skel->maps.task_start, h != HOOK_RAW_TP);
	bpf_map__set_autocreate(skel->maps.inflight, h == HOOK_RAW_TP);
	skel->rodata->aggregate = t->aggregate;
	if (d->nextra <= XP_IOCTL_DEV_LIST) {
		for (int i = 0; i < d->nextra; i++)
			skel->rodata->dev_list[i] = d->extra[i];
		skel->rodata->ndev_list = d->nextra;
	} else {
		skel->rodata->have_devs = 1;
	}
	skel->rodata->cast_ok = h != HOOK_RAW_TP && xp_kernel_has_kfunc("bpf_rdonly_cast");
	why[0] = 0;
	return 0;
}

static void load_why(void *ctx, int err, char *why, size_t whylen)
{
	(void)ctx;
	snprintf(why, whylen, "the kernel refuses to load them: %s", strerror(-err));
}

static int attach(struct xp_kside *k, void *ctx, char *why, size_t whylen)
{
	const struct try *t = ctx;
	struct ioctl_bpf *skel = k->skel;
	int err;

	k->skel_destroy = skel_destroy;
	k->on_detach = skel_detach;
	err = xp_ioctl_fill_device_maps(skel->maps.majors, skel->maps.devs, t->d, XP_IOCTL_DEV_LIST);
	if (!err)
		err = ioctl_bpf__attach(skel);
	if (err)
		snprintf(why, whylen, "%s", strerror(-err));
	if (!err && t->h == HOOK_KPROBE)
		err = attach_kprobes(k, skel, why, whylen);
	return err;
}

/* Loads and attaches the programs of one hook; the kernel side in *out. */
static int open_hook(struct xp_kside **out, int h, const struct xp_filters *f,
		     const struct xp_devices *d, bool aggregate, const struct xp_live_share *share,
		     char *why, size_t whylen)
{
	struct try t = { h, d, aggregate };
	struct xp_skel_steps s = { .hook = hook_names[h], .f = f, .share = share, .configure = configure,
				   .load_why = load_why, .attach = attach, .ctx = &t };

	return xp_skel_open(out, &ioctl_skel_ops, &s, why, whylen);
}

/* A 32-bit program (its executable a 32-bit ELF file): 1, with "PID COMM" in the note. */
struct who32 {
	char *note;
	size_t len;
};

static int is32(void *ctx, unsigned long pid, const char *comm)
{
	const struct who32 *w = ctx;
	unsigned char head[5];
	char path[64];
	bool yes;
	int fd;

	snprintf(path, sizeof(path), "/proc/%lu/exe", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;	/* a kernel thread, or gone */
	yes = read(fd, head, sizeof(head)) == sizeof(head) && !memcmp(head, "\177ELF", 4) &&
	      head[4] == 1;	/* EI_CLASS: ELFCLASS32 */
	close(fd);
	if (yes)
		snprintf(w->note, w->len, "%lu %s", pid, comm);
	return yes;
}

/*
 * A running 32-bit program the filters keep, which the classic syscall events
 * would not see: "PID COMM" in `note`. Processes whose executable cannot be
 * read are not counted.
 */
static bool running32(const struct xp_filters *f, char *note, size_t len)
{
	struct who32 w = { note, len };

	if (!xp_runs_32bit(NULL, 0))
		return false;	/* none can run here: nothing to scan for */
	return xp_procs_each(f, is32, &w) == 1;
}

int xp_ioctl_live_open(struct xp_kside **out, const char *hook, const struct xp_filters *f,
		       const struct xp_devices *d, bool aggregate, const struct xp_live_share *share,
		       char *why, size_t whylen, char *note, size_t notelen)
{
	char one[160], who[48];
	size_t n = 0;
	int err = -ENOENT;

	/*
	 * kprobes where the kernel has them: ioctl() only, never skipped; else
	 * the classic syscall events, for ioctl() only too, but blind to 32-bit
	 * calls, so not while a 32-bit program runs; else the sys_enter/sys_exit
	 * pair that every syscall passes, tp_btf before raw_tp (same programs).
	 */
	note[0] = 0;
	for (int h = 0; h < HOOK_MAX; h++) {
		if (hook && strcmp(hook, hook_names[h]))
			continue;
		if (xp_startup_stopped(why, whylen))
			return -EINTR;	/* a signal during start-up: no more tries (skel.h) */
		if (h == HOOK_TRACEPOINT && running32(f, who, sizeof(who))) {
			if (!hook) {
				snprintf(note, notelen, "32-bit program running: %s", who);
				continue;
			}
			/* asked for: it runs, and says whose calls it will not see */
			snprintf(note, notelen, "blind to the running 32-bit program %s", who);
		}
		err = open_hook(out, h, f, d, aggregate, share, one, sizeof(one));
		if (!err)
			return 0;
		/* why each hook failed, for the one line said when none attaches */
		if (n < whylen)
			n += (size_t)snprintf(why + n, whylen - n, "%s%s: %s", n ? "; " : "ioctl hooks: ",
					      hook_names[h], one);
		if (err == -EPERM && h != HOOK_KPROBE)
			break;	/* without the privilege no other hook will do */
	}
	if (err == -EPERM || err == -EACCES)
		why[0] = 0;	/* the runner says which privilege is missing */
	return err;
}

bool xp_ioctl_hook_known(const char *hook)
{
	for (int h = 0; h < HOOK_MAX; h++)
		if (!strcmp(hook, hook_names[h]))
			return true;
	return false;
}

uint64_t xp_ioctl_live_exec32(const struct xp_kside *k, uint32_t *pid, char comm[XP_COMM_LEN])
{
	const struct ioctl_bpf *skel = k->skel;

	if (strcmp(k->hook, hook_names[HOOK_TRACEPOINT]))
		return 0;
	*pid = skel->bss->exec32_pid;
	memcpy(comm, skel->bss->exec32_comm, XP_COMM_LEN);
	comm[XP_COMM_LEN - 1] = 0;
	return skel->bss->exec32_count;
}

/*
 * The kernel's (other) rows of the ripe generations (ioctl.bpf.c: slot gen
 * modulo XP_IOCTL_OTHER_GENS), taken out and zeroed; `v` a buffer.
 */
static int take_other(struct ioctl_bpf *skel, struct xp_ioctl_table *t, struct xp_ioctl_val *v,
		      uint32_t cur, enum xp_drain how)
{
	static const struct xp_ioctl_val zero;
	struct xp_ioctl_key k = { .pid = XP_IOCTL_PID_OTHER };
	int fd = bpf_map__fd(skel->maps.other), err = 0;

	for (uint32_t s = 0; s < XP_IOCTL_OTHER_GENS && !err; s++) {
		/* the newest generation that counts into slot s */
		uint32_t gen = cur - (cur - s) % XP_IOCTL_OTHER_GENS;

		if (!xp_drain_ripe(gen, cur, how))
			continue;
		if (bpf_map_lookup_elem(fd, &s, v))
			return -errno;
		if (!v->calls)
			continue;
		if (bpf_map_update_elem(fd, &s, &zero, BPF_ANY))
			return -errno;
		snprintf(v->comm, sizeof(v->comm), "(other)");
		err = xp_ioctl_table_add_val(t, &k, v);
	}
	return err;
}

int xp_ioctl_live_drain(struct xp_kside *ks, struct xp_ioctl_table *t, enum xp_drain how)
{
	struct ioctl_bpf *skel = ks->skel;
	int sfd = bpf_map__fd(skel->maps.stats), efd = bpf_map__fd(skel->maps.errs);
	struct xp_ioctl_val *v = malloc(sizeof(*v));
	struct xp_ioctl_err_key ek, enext;
	struct xp_ioctl_key k, next;
	struct xp_map_calls mc;
	uint32_t cur;
	uint64_t n;
	int err = 0, more;

	if (!v)
		return -ENOMEM;
	cur = ++skel->bss->drain_gen;
	xp_map_calls_begin(&mc);
	if (how == XP_DRAIN_REPORT)
		usleep(20000);	/* a program that read the old generation finishes its update */
	/*
	 * Take each ripe entry with lookup-and-delete; the walk goes on from the
	 * next key, found before the entry goes (from the first key if that fails).
	 */
	for (more = !bpf_map_get_next_key(sfd, NULL, &k); more && !err; k = next) {
		more = !bpf_map_get_next_key(sfd, &k, &next);
		if (!xp_drain_ripe(k.gen, cur, how))
			continue;
		if (!(err = xp_map_take(sfd, &k, v)) && v->calls) {
			k.gen = 0;
			err = xp_ioctl_table_add_val(t, &k, v);
		}
	}
	for (more = !bpf_map_get_next_key(efd, NULL, &ek); more && !err; ek = enext) {
		more = !bpf_map_get_next_key(efd, &ek, &enext);
		if (!xp_drain_ripe(ek.k.gen, cur, how))
			continue;
		if (!(err = xp_map_take(efd, &ek, &n))) {
			ek.k.gen = 0;
			err = xp_ioctl_table_add_errno(t, &ek.k, ek.err, n);
		}
	}
	if (!err)
		err = take_other(skel, t, v, cur, how);
	xp_map_calls_end(&mc);
	free(v);
	return err;
}
