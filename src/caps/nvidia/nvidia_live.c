/* The nvidia capability's kernel side (src/caps/nvidia/nvidia.bpf.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>

#include "caps/nvidia/nvidia_facts.h"
#include "live/features.h"
#include "live/kprobe_multi.h"
#include "live/kprobe.h"
#include "caps/nvidia/nvidia_live.h"
#include "caps/nvidia/nvidia_probes.h"
#include "live/skel.h"
#include "live/tracefs.h"
#include "core/tpformat.h"
#include "nvidia.skel.h"

XP_SKEL_OPS(nvidia);

int xp_nv_module_funcs(const char *kallsyms, const char *module, bool found[XP_NV_NFN])
{
	char line[512], name[256], mod[128], want[140];
	char type;
	int n = 0, fn;
	FILE *f = fopen(kallsyms, "re");

	memset(found, 0, sizeof(bool) * XP_NV_NFN);
	if (!f)
		return -errno;
	snprintf(want, sizeof(want), "[%s]", module);
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%*s %c %255s %127s", &type, name, mod) != 3)
			continue;
		if ((type != 't' && type != 'T') || strcmp(mod, want))
			continue;
		if ((fn = xp_nv_fn_by_name(name)) >= 0 && !found[fn]) {
			found[fn] = true;
			n++;
		}
	}
	fclose(f);
	return n;
}

struct progs {
	struct bpf_program *entry, *ret;
};

enum nv_hook { NV_FENTRY, NV_KMULTI, NV_KPROBE, NV_NHOOKS };
/* as XPUTRACE_NVIDIA_HOOK names them, and as the summary and file say them */
static const char *const hook_env[NV_NHOOKS] = { "fentry", "kprobe.multi", "kprobe" };
static const char *const hook_name[NV_NHOOKS] = { "fentry/fexit", "kprobe.multi", "kprobe" };

/* The programs of hook h (fentry/fexit, or kprobes for the others), from the one probe list. */
static void progs_of(struct nvidia_bpf *s, enum nv_hook h, struct progs p[XP_NV_NFN])
{
	bool fe = h == NV_FENTRY;

	memset(p, 0, sizeof(struct progs) * XP_NV_NFN);
#define ENTRY(name, fn, ...) p[fn].entry = fe ? s->progs.nv_##name##_fe : s->progs.nv_##name;
#define RETURN(name, fn, ...) p[fn].ret = fe ? s->progs.nv_##name##_fx : s->progs.nv_##name##_ret;
	XP_NV_ENTRIES(ENTRY)
	XP_NV_RETURNS(RETURN)
#undef ENTRY
#undef RETURN
}

/* Return probes: as many calls in flight at once as there can be GPU client threads. */
#define NV_MAXACTIVE 1024

/*
 * kprobe.multi links: their misses are in their link info (bpf_link_info
 * kprobe_multi.missed, Linux 6.7 and later; 0 before), read while they live
 * and kept when they go. One nvidia kernel side per process.
 */
static struct bpf_link *multi[2];	/* entries, returns */
static const struct bpf_program *multi_ret;
static uint64_t multi_missed_gone, ret_missed_gone;

static uint64_t prog_missed(const struct bpf_program *p)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (!p || bpf_program__fd(p) < 0 || bpf_obj_get_info_by_fd(bpf_program__fd(p), &info, &len))
		return 0;
	return info.recursion_misses;
}

/*
 * What to add to the misses counted from every program's skipped runs: the
 * links' own, less the return program's skipped runs. A kprobe.multi run is
 * skipped while another kprobe-type program runs on that CPU (an interrupt
 * inside it), and a function that begins inside such a run ends inside it:
 * its return is skipped with its entry, one call lost, counted once (by the
 * entry program).
 */
static uint64_t multi_missed(void)
{
	return multi_missed_gone + xp_kmulti_link_missed(multi[0]) + xp_kmulti_link_missed(multi[1]) -
	       (ret_missed_gone + prog_missed(multi_ret));
}

static void skel_detach(struct xp_kside *k)
{
	(void)k;
	for (int i = 0; i < 2; i++) {
		multi_missed_gone += xp_kmulti_link_missed(multi[i]);
		bpf_link__destroy(multi[i]);
		multi[i] = NULL;
	}
}

static void skel_destroy_multi(void *skel)
{
	/* the return program's skipped runs go with it, from the count of the others' too */
	ret_missed_gone += prog_missed(multi_ret);
	multi_ret = NULL;
	nvidia_bpf__destroy(skel);
}

/* The Xid tracepoint: its fields found by name in its format file; io->xid says whether. */
static void xid_setup(struct nvidia_bpf *skel, struct xp_nv_open_info *io)
{
	struct xp_tp_format *fmt = NULL;
	const struct xp_tp_field *fdev, *fcode, *fmsg;
	const char *root;
	char why[160];

	io->xid = false;
	snprintf(io->xid_why, sizeof(io->xid_why), "the module has no nvidia:%s tracepoint (NVIDIA added it in %s)",
		 XP_NV_XID_EVENT, XP_NV_XID_SINCE);
	if ((root = xp_tracefs(why, sizeof(why), NULL)) && xp_tracefs_event_exists(XP_NV_XID_GROUP, XP_NV_XID_EVENT) &&
	    (fmt = calloc(1, sizeof(*fmt))) &&
	    !xp_tp_format_load(root, XP_NV_XID_GROUP, XP_NV_XID_EVENT, fmt)) {
		fdev = xp_tp_field(fmt, "dev");
		fcode = xp_tp_field(fmt, "error_code");
		fmsg = xp_tp_field(fmt, "msg");
		if (fdev && fdev->data_loc && !fdev->rel_loc && fcode && fcode->size == 4 && fmsg &&
		    fmsg->data_loc && !fmsg->rel_loc) {
			io->xid = true;
			skel->rodata->xid_dev_off = fdev->offset;
			skel->rodata->xid_code_off = fcode->offset;
			skel->rodata->xid_msg_off = fmsg->offset;
		} else {
			snprintf(io->xid_why, sizeof(io->xid_why), "nvidia:%s has other fields than %s",
				 XP_NV_XID_EVENT, XP_NV_XID_FIELDS);
		}
	}
	free(fmt);
}

/* The arguments of a function, from its C signature. */
static int nargs(const char *proto)
{
	const char *p = strchr(proto, '(');
	int n = 1, depth = 0;

	if (!p || !strncmp(p, "(void)", 6) || p[1] == ')')
		return 0;
	for (p++; *p && depth >= 0; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')')
			depth--;
		else if (*p == ',' && !depth)
			n++;
	}
	return n;
}

/*
 * fentry: an untimed function with more arguments than a trampoline takes on
 * every kernel (6 on x86-64 before Linux 6.5) has its kprobe loaded beside,
 * taken where the trampoline is refused.
 */
static bool kprobe_beside(enum nv_hook h, int fn)
{
	return h == NV_FENTRY && !((XP_NV_TIMED_MASK >> fn) & 1) && nargs(xp_nv_funcs[fn].proto) > 6;
}

/* Attaches the found functions' programs by hook h (after load). */
static int attach_fns(struct xp_kside *k, struct nvidia_bpf *skel, enum nv_hook h, const struct progs *p,
		      const bool *found, int *li, struct xp_nv_open_info *io, char *why, size_t whylen)
{
	struct progs kp[XP_NV_NFN];

	const char *syms[XP_NV_NFN];
	__u64 cookies[XP_NV_NFN];
	int err = 0;

	if (h == NV_KMULTI) {
		/* the returns first: every call whose entry is seen has its return seen */
		for (int ret = 1; ret >= 0; ret--) {
			LIBBPF_OPTS(bpf_kprobe_multi_opts, mo, .syms = syms, .cookies = cookies, .retprobe = ret);
			size_t n = 0;

			for (int i = 0; i < XP_NV_NFN; i++)
				if (found[i] && (!ret || ((XP_NV_TIMED_MASK >> i) & 1))) {
					syms[n] = xp_nv_funcs[i].name;
					cookies[n++] = (__u64)i;
				}
			mo.cnt = n;
			if (!n)
				continue;
			multi[ret] = bpf_program__attach_kprobe_multi_opts(ret ? skel->progs.nv_multi_ret
									       : skel->progs.nv_multi, NULL, &mo);
			if (!multi[ret]) {
				err = -errno;
				snprintf(why, whylen, "attaching %s on %zu functions: %s",
					 ret ? "kretprobe.multi" : "kprobe.multi", n, strerror(-err));
				return err;
			}
		}
		return 0;
	}
	for (int pass = 0; pass < 2; pass++)	/* the returns first, as above */
		for (int i = 0; i < XP_NV_NFN; i++) {
			struct bpf_program *prog = pass ? p[i].entry : p[i].ret;

			if (!found[i] || !prog)
				continue;
			if (h == NV_FENTRY) {
				k->links[*li] = bpf_program__attach_trace(prog);
				err = k->links[*li] ? 0 : -errno;
				if (err && kprobe_beside(h, i)) {
					size_t n = strlen(io->hook_note);

					progs_of(skel, NV_KPROBE, kp);
					/* 524: the kernel's ENOTSUPP, which strerror does not know */
					snprintf(io->hook_note + n, sizeof(io->hook_note) - n, "%s%s by kprobe (fentry: %s)",
						 n ? ", " : "", xp_nv_funcs[i].name,
						 err == -524 ? "the trampoline refused its arguments" : strerror(-err));
					err = xp_kprobe_attach(kp[i].entry, xp_nv_funcs[i].name, &k->links[*li], why, whylen);
				} else if (err) {
					snprintf(why, whylen, "attaching %s to %s: %s", pass ? "fentry" : "fexit",
						 xp_nv_funcs[i].name, strerror(-err));
				}
			} else if (!pass) {
				err = xp_kretprobe_attach(prog, xp_nv_funcs[i].name, NV_MAXACTIVE, &k->links[*li],
							  why, whylen);
			} else if (p[i].ret) {
				/*
				 * A kprobe hit while another runs on that CPU is missed by every
				 * probe on that address at once. A timed function's record is
				 * written at its return, so its return probe's missed count is
				 * the calls lost; the entry is made through the perf PMU, whose
				 * misses are those same calls. Other functions' entries are made
				 * through tracefs, where their misses are read back as drops.
				 */
				k->links[*li] = bpf_program__attach_kprobe(prog, false, xp_nv_funcs[i].name);
				err = k->links[*li] ? 0 : -errno;
				if (err)
					snprintf(why, whylen, "attaching a kprobe to %s: %s", xp_nv_funcs[i].name,
						 strerror(-err));
			} else {
				err = xp_kprobe_attach(prog, xp_nv_funcs[i].name, &k->links[*li], why, whylen);
			}
			if (err)
				return err;
			(*li)++;
		}
	return 0;
}

/* One try: hook h (NV_NHOOKS: the Xid tracepoint alone) on the functions found. */
struct try {
	enum nv_hook h;
	struct xp_nv_open_info *io;
	const bool *found;
	struct progs p[XP_NV_NFN];
};

/* Only the programs of this hook and of the functions the module has. */
static void choose_progs(struct nvidia_bpf *skel, struct try *t)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, skel->obj)
		bpf_program__set_autoload(prog, false);
	bpf_program__set_autoload(skel->progs.nv_xid, t->io->xid);
	if (t->h == NV_KMULTI) {
		bool any_timed = false;

		for (int i = 0; i < XP_NV_NFN; i++)
			any_timed |= t->found[i] && ((XP_NV_TIMED_MASK >> i) & 1);
		bpf_program__set_autoload(skel->progs.nv_multi, true);
		bpf_program__set_autoload(skel->progs.nv_multi_ret, any_timed);
	} else if (t->h < NV_NHOOKS) {
		progs_of(skel, t->h, t->p);
	}
}

static int configure(struct xp_kside *k, void *ctx, char *why, size_t whylen)
{
	struct try *t = ctx;
	struct nvidia_bpf *skel = k->skel;
	struct bpf_program *prog;
	int err;

	k->on_detach = skel_detach;
	skel->rodata->sample_n = t->io->sample > 1 ? t->io->sample : 1;
	xid_setup(skel, t->io);
	if (t->h == NV_NHOOKS && !t->io->xid) {
		snprintf(why, whylen, "%s", t->io->xid_why);
		return -EOPNOTSUPP;
	}
	choose_progs(skel, t);
	for (int i = 0; t->h < NV_NHOOKS && t->h != NV_KMULTI && i < XP_NV_NFN; i++)
		for (int r = 0; r < 2; r++) {
			prog = r ? t->p[i].ret : t->p[i].entry;
			if (!t->found[i] || !prog)
				continue;
			bpf_program__set_autoload(prog, true);
			if (kprobe_beside(t->h, i)) {
				struct progs kp[XP_NV_NFN];

				progs_of(skel, NV_KPROBE, kp);
				bpf_program__set_autoload(kp[i].entry, true);
			}
			if (t->h == NV_FENTRY && (err = bpf_program__set_attach_target(prog, 0, xp_nv_funcs[i].name))) {
				snprintf(why, whylen, "%s: %s", xp_nv_funcs[i].name, strerror(-err));
				return err;
			}
		}
	return 0;
}

static int attach(struct xp_kside *k, void *ctx, char *why, size_t whylen)
{
	struct try *t = ctx;
	struct nvidia_bpf *skel = k->skel;
	int err, li = 0;

	if (t->h < NV_NHOOKS && (err = attach_fns(k, skel, t->h, t->p, t->found, &li, t->io, why, whylen)))
		return err;
	if (t->io->xid) {
		k->links[li] = bpf_program__attach_tracepoint(skel->progs.nv_xid, XP_NV_XID_GROUP,
							      XP_NV_XID_EVENT);
		if (!k->links[li]) {
			err = -errno;
			snprintf(why, whylen, "attaching to the tracepoint nvidia:%s: %s", XP_NV_XID_EVENT,
				 strerror(-err));
			return err;
		}
		li++;
	}
	if (t->h == NV_KMULTI) {
		multi_ret = skel->progs.nv_multi_ret;
		k->skel_destroy = skel_destroy_multi;
		xp_kprobes_missed_also(multi_missed);
	}
	return 0;
}

/*
 * One try: the skeleton opened, loaded and attached with hook h (NV_NHOOKS:
 * the Xid tracepoint alone). 0, or -errno with `why`.
 */
static int open_hook(struct xp_kside **out, enum nv_hook h, const struct xp_filters *f,
		     const struct xp_live_share *share, struct xp_nv_open_info *io, const bool *found,
		     char *why, size_t whylen)
{
	struct try t = { .h = h, .io = io, .found = found };
	struct xp_skel_steps s = { .hook = h < NV_NHOOKS ? hook_name[h] : "tracepoint", .f = f,
				   .share = share, .configure = configure, .attach = attach, .ctx = &t };

	why[0] = '\0';
	io->hook_note[0] = '\0';
	return xp_skel_open(out, &nvidia_skel_ops, &s, why, whylen);
}

/* Which hooks can be tried here (`force`: only that one), and why not the others; whether any can. */
static bool plan(const struct xp_feature *at, const char *force, bool usable[NV_NHOOKS],
		 char no[NV_NHOOKS][200])
{
	static const enum xp_attach at_of[NV_NHOOKS] = { XP_AT_FENTRY, XP_AT_KPROBE_MULTI, XP_AT_KPROBE };
	bool any = false;

	for (int h = 0; h < NV_NHOOKS; h++) {
		usable[h] = at[at_of[h]].ok;
		snprintf(no[h], 200, "%s", at[at_of[h]].why);
		if (force && strcmp(force, hook_env[h])) {
			usable[h] = false;
			snprintf(no[h], 200, "not tried (XPUTRACE_NVIDIA_HOOK=%s)", force);
		}
	}
	if (usable[NV_FENTRY] && access("/sys/kernel/btf/nvidia", F_OK)) {
		usable[NV_FENTRY] = false;
		snprintf(no[NV_FENTRY], 200, "the nvidia module has no BTF (/sys/kernel/btf/nvidia)");
	}
	if (usable[NV_KMULTI] && !force && !xp_kernel_counts_skips()) {
		struct utsname u;

		usable[NV_KMULTI] = false;
		snprintf(no[NV_KMULTI], 200, "this kernel (%s) does not count the calls it misses "
			 "(Linux 6.7 and later do)", uname(&u) ? "?" : u.release);
	}
	for (int h = 0; h < NV_NHOOKS; h++)
		any |= usable[h];
	return any;
}

static void add_why(char *buf, size_t len, const char *hook, const char *why)
{
	size_t n = strlen(buf);
	int w;

	if (n + 1 >= len)
		return;
	/* cut to what is left: the first hooks' reasons matter most */
	w = snprintf(buf + n, len - n, "%s%s: %.*s", n ? "; " : "", hook, (int)(len - n - 1), why);
	(void)w;
}

int xp_nv_live_open(struct xp_kside **out, const struct xp_filters *f,
		    const struct xp_live_share *share, struct xp_nv_open_info *io, char *why, size_t whylen)
{
	const char *force = getenv("XPUTRACE_NVIDIA_HOOK");	/* tests pick one */
	struct xp_feature at[XP_AT_MAX];
	char no[NV_NHOOKS][200], one[256];
	bool usable[NV_NHOOKS], any = false, xid_only;
	int err = -ENOENT, n;

	memset(io->found, 0, sizeof(io->found));
	io->hook_why[0] = '\0';
	if (force && !*force)
		force = NULL;
	if (force && strcmp(force, "tracepoint") && strcmp(force, hook_env[NV_FENTRY]) &&
	    strcmp(force, hook_env[NV_KMULTI]) && strcmp(force, hook_env[NV_KPROBE])) {
		snprintf(why, whylen, "XPUTRACE_NVIDIA_HOOK=%s: not a hook (fentry, kprobe.multi, kprobe, "
				      "tracepoint)", force);
		return -EINVAL;
	}
	xp_probe_attach_types_of(at, 1u << XP_AT_TRACEPOINT | 1u << XP_AT_FENTRY | 1u << XP_AT_KPROBE_MULTI |
				     1u << XP_AT_KPROBE);
	if (!at[XP_AT_KPROBE].ok && !at[XP_AT_TRACEPOINT].ok && !at[XP_AT_FENTRY].ok) {
		snprintf(why, whylen, "loading a BPF program: %s", at[XP_AT_KPROBE].why);
		return -EPERM;
	}
	any = plan(at, force, usable, no);
	if (force && strcmp(force, "tracepoint") && !any) {
		for (int h = 0; h < NV_NHOOKS; h++)
			if (!strcmp(force, hook_env[h]))
				snprintf(why, whylen, "XPUTRACE_NVIDIA_HOOK=%s: %s", force, no[h]);
		return -EOPNOTSUPP;
	}
	/* without a hook on functions, the Xid tracepoint alone where the module has it */
	xid_only = (force && !strcmp(force, "tracepoint")) || !any || io->xid_only;
	if (xid_only && !(at[XP_AT_TRACEPOINT].ok && xp_module_loaded("nvidia") &&
			  xp_tracefs_event_exists(XP_NV_XID_GROUP, XP_NV_XID_EVENT))) {
		if (io->xid_only) {
			snprintf(why, whylen, "the nvidia module has no Xid tracepoint here (%s:%s, driver 575 "
					      "and later)", XP_NV_XID_GROUP, XP_NV_XID_EVENT);
			return -EOPNOTSUPP;
		}
		snprintf(why, whylen, "kprobes are not available on this kernel (%s); ioctls to "
				      "/dev/nvidia* are still traced by 'xputrace ioctl'", at[XP_AT_KPROBE].why);
		return -EOPNOTSUPP;
	}
	if (!xp_module_loaded("nvidia")) {
		snprintf(why, whylen, "the nvidia module is not loaded; ioctls to /dev/nvidia* are "
				      "traced by 'xputrace ioctl'");
		return -ENOENT;
	}
	if (xid_only) {
		bool none[XP_NV_NFN] = { false };

		for (int h = 0; h < NV_NHOOKS && !io->xid_only; h++)
			add_why(io->hook_why, sizeof(io->hook_why), hook_env[h], no[h]);
		if ((err = open_hook(out, NV_NHOOKS, f, share, io, none, one, sizeof(one))))
			snprintf(why, whylen, io->xid_only ? "the Xid tracepoint: %s" :
				 "kprobes are not available on this kernel and %s; ioctls to "
				 "/dev/nvidia* are still traced by 'xputrace ioctl'", one);
		return err;
	}
	n = xp_nv_module_funcs("/proc/kallsyms", "nvidia", io->found);
	if (n <= 0) {
		snprintf(why, whylen, "none of the probed functions is in the loaded nvidia module "
				      "(/proc/kallsyms: %s)", n < 0 ? strerror(-n) : "no match");
		return -ENOENT;
	}
	/* cheapest first; why each was passed over is said with the one used */
	for (int h = 0; h < NV_NHOOKS; h++) {
		if (!usable[h]) {
			add_why(io->hook_why, sizeof(io->hook_why), hook_env[h], no[h]);
			continue;
		}
		err = open_hook(out, (enum nv_hook)h, f, share, io, io->found, one, sizeof(one));
		if (!err)
			return 0;
		add_why(io->hook_why, sizeof(io->hook_why), hook_env[h], one);
		if (err == -EPERM || err == -EACCES)
			break;
	}
	memset(io->found, 0, sizeof(io->found));
	snprintf(why, whylen, "no hook attached to nvidia.ko: %s", io->hook_why);
	return err;
}

const char *xp_nv_hook_plan(const struct xp_feature *at, char *why, size_t len)
{
	char no[NV_NHOOKS][200];
	bool usable[NV_NHOOKS];
	const char *first = NULL;

	why[0] = '\0';
	plan(at, NULL, usable, no);
	for (int h = 0; h < NV_NHOOKS && !first; h++) {
		if (usable[h])
			first = hook_name[h];
		else
			add_why(why, len, hook_env[h], no[h]);
	}
	return first;
}
