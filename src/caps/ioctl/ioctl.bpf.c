// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * `xputrace ioctl`: ioctls on GPU/NPU device nodes, picked in the kernel by
 * the device number of the file behind the fd.
 *
 * Hooks, tried in this order by user space (one set is loaded):
 * - kprobes on the ioctl syscall functions (__x64_sys_ioctl and the compat
 *   __ia32_compat_sys_ioctl) with a kretprobe on each: they run for ioctl()
 *   only, so other syscalls pay nothing, and their handlers run with
 *   preemption off, so no run is skipped when several tasks call at once
 *   (on 7.x kernels programs on the syscall tracepoints run preemptible,
 *   and the kernel skips a run that would nest on the same CPU: with the
 *   hooks below, a call whose start was skipped is counted at its return,
 *   untimed; one whose return was skipped is lost, counted as a missed run).
 * - the classic syscalls:sys_enter_ioctl/sys_exit_ioctl events: other
 *   syscalls pay a bitmap test only, but 32-bit calls are not among them
 *   (user space passes this hook over while a 32-bit program runs, and a
 *   program on exec counts those that start).
 * - the raw sys_enter/sys_exit tracepoints, as tp_btf where the kernel allows
 *   it and as raw_tp otherwise: they run for every syscall, so the first test
 *   is the syscall number.
 * x86-64 native ioctl (nr 16) and the 32-bit compat one (i386 nr 54, from a
 * task in 32-bit mode: the user CS is __USER32_CS; arguments in bx, cx, dx),
 * which every 32-bit game under Wine/Proton makes. Native nr 54 is
 * setsockopt, hence the CS test.
 */
#include "caps/ioctl/ioctl_dev.bpf.h"

#define NR_ioctl 16
#define NR_ia32_ioctl 54
#define USER32_CS 0x23	/* arch/x86/include/asm/segment.h: GDT entry 4, RPL 3 */

/*
 * The generation new counts go to: user space moves it on before each drain
 * and takes out only the entries of generations no program adds to anymore,
 * so no increment lands in an entry already copied out and deleted.
 */
volatile __u32 drain_gen;

/* Modes, set before load. */
const volatile __u8 aggregate = 1;	/* 1: count in maps below; 0: one record per call */

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, XP_IOCTL_KERNEL_ROWS);
	__type(key, struct xp_ioctl_key);
	__type(value, struct xp_ioctl_val);
} stats SEC(".maps");

/*
 * The (other) rows: where a call goes when stats is full (more new processes
 * between two drains than it holds), one per generation modulo
 * XP_IOCTL_OTHER_GENS. An array entry always exists, so a full table folds
 * the calls of the processes it has no room for instead of losing them;
 * user space takes a slot out and zeroes it once its generation is ripe.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, XP_IOCTL_OTHER_GENS);
	__type(key, __u32);
	__type(value, struct xp_ioctl_val);
} other SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct xp_ioctl_err_key);
	__type(value, __u64);
} errs SEC(".maps");

/*
 * The same, for tp_btf and kprobes: task-local storage needs no hash lookup,
 * no lock and no delete (ts 0 marks it free), and goes away with the task.
 * Each of the two maps is created only for the programs that use it.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct ioctl_start);
} task_start SEC(".maps");

static __u64 zero_u64;
/* Zero but for err1: the value a new entry of the counts map starts from. */
static struct xp_ioctl_val new_val;

/*
 * How a program reads and where it keeps a call's start. tp_btf programs read
 * their arguments and the current task by plain loads (the verifier turns them
 * into fault-safe loads), which cost far less than bpf_probe_read_kernel
 * calls, and keep the start in task-local storage. kprobe programs get the
 * user registers as a plain number (helper reads), but the current task as a
 * typed pointer, and task storage too; so do the classic events' programs,
 * whose arguments come in their context. raw_tp programs use helpers and a hash
 * map (older kernels give them neither). The mode is a constant at every
 * call, so each program keeps only its own branches.
 */
enum { M_BTF, M_KP, M_RAW };
#define TASK_BTF(mode) ((mode) != M_RAW)

/* A call's start: traced, not filtered out, on a traced device; kept for its return. */
static __always_inline int start_call(int fd, __u32 cmd, __u64 arg, int mode)
{
	struct ioctl_start s = { .cmd = cmd, .arg = arg };
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	__u32 tid, dev;

	if (xp_filtered(pid_tgid >> 32))
		return 0;
	dev = fd_to_traced_chrdev(fd, TASK_BTF(mode));
	if (!dev)
		return 0;
	s.fd = fd;
	s.dev = dev;
	if (TASK_BTF(mode)) {
		struct ioctl_start *t = bpf_task_storage_get(&task_start, bpf_get_current_task_btf(), 0,
						       BPF_LOCAL_STORAGE_GET_F_CREATE);

		if (!t) {
			xp_drop(XP_DROP_MAP_FULL);
			return 0;
		}
		*t = s;
		t->ts = bpf_ktime_get_ns();
		return 0;
	}
	tid = (__u32)pid_tgid;
	s.ts = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&inflight, &tid, &s, BPF_ANY))
		xp_drop(XP_DROP_MAP_FULL);
	return 0;
}

/* From the user registers of a syscall: ioctl's arguments, native or compat. */
static __always_inline int on_enter(struct pt_regs *regs, long id, int mode)
{
	bool btf = mode != M_RAW;
	__u64 copy[21];	/* x86-64 struct pt_regs: 21 registers, a user ABI */

	if (mode == M_KP) {
		/* one read of the registers instead of one per argument */
		if (bpf_probe_read_kernel(copy, sizeof(copy), regs))
			return 0;
		regs = (struct pt_regs *)copy;
	}
	if (id == NR_ioctl)
		return start_call((int)XP_READ(btf, regs, di), (__u32)XP_READ(btf, regs, si),
				  XP_READ(btf, regs, dx), mode);
	if (id == NR_ia32_ioctl && XP_READ(btf, regs, cs) == USER32_CS)
		return start_call((int)XP_READ(btf, regs, bx), (__u32)XP_READ(btf, regs, cx),
				  (__u32)XP_READ(btf, regs, dx), mode);
	return 0;
}

/* lat: the call's time; XP_IOCTL_UNTIMED where its start was not seen (finish_untimed). */
static __always_inline void count(const struct ioctl_start *s, __u32 tgid, __u64 lat, long ret)
{
	struct xp_ioctl_key key = { .pid = tgid, .dev = s->dev, .cmd = s->cmd, .gen = drain_gen };
	struct xp_ioctl_val *v;
	__u64 b;

	v = bpf_map_lookup_elem(&stats, &key);
	if (!v) {
		/*
		 * The new entry's err1: this call's errno. Programs on other CPUs
		 * may store theirs meanwhile; any of them will do, as an entry's
		 * err1 never changes once made.
		 */
		new_val.err1 = ret < 0 ? (__u32)-ret : 0;
		/* failing with EEXIST means another CPU created it first */
		bpf_map_update_elem(&stats, &key, &new_val, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&stats, &key);
		if (v) {
			bpf_get_current_comm(v->comm, sizeof(v->comm));
		} else {
			/*
			 * Full: more new processes between two drains (one a
			 * second) than it holds. The call goes to the (other) row
			 * of its generation, so totals stay exact.
			 */
			__u32 slot = key.gen % XP_IOCTL_OTHER_GENS;

			key.pid = XP_IOCTL_PID_OTHER;
			key.dev = key.cmd = 0;	/* same generation: its errnos too */
			v = bpf_map_lookup_elem(&other, &slot);
			if (!v) {
				xp_drop(XP_DROP_MAP_FULL);
				return;
			}
		}
	}
	__sync_fetch_and_add(&v->calls, 1);
	if (lat == XP_IOCTL_UNTIMED) {
		__sync_fetch_and_add(&v->untimed, 1);
	} else {
		__sync_fetch_and_add(&v->sum_ns, lat);
		if (lat > v->max_ns)
			v->max_ns = lat; /* a lost race only loses a near-equal maximum */
		b = xp_hist_bucket(lat);
		barrier_var(b); /* keep the bound check on the register that indexes */
		if (b < XP_HIST_BUCKETS)
			__sync_fetch_and_add(&v->hist[b], 1);
	}
	if (ret < 0) {
		struct xp_ioctl_err_key ek = { .k = key, .err = (__u32)-ret };
		__u64 *n;

		__sync_fetch_and_add(&v->errors, 1);
		if (v->err1 == ek.err) {
			__sync_fetch_and_add(&v->err1_calls, 1);
			return;
		}
		n = bpf_map_lookup_elem(&errs, &ek);
		if (!n) {
			bpf_map_update_elem(&errs, &ek, &zero_u64, BPF_NOEXIST);
			n = bpf_map_lookup_elem(&errs, &ek);
		}
		if (n)
			__sync_fetch_and_add(n, 1);
		else
			xp_drop(XP_DROP_MAP_FULL);
	}
}

static __always_inline void emit(const struct ioctl_start *s, __u64 pid_tgid, __u64 lat, long ret)
{
	struct xp_ioctl_rec *r = xp_reserve(sizeof(*r));

	if (!r)
		return;
	xp_fill_hdr(&r->hdr, XP_REC_IOCTL, sizeof(*r), s->ts, pid_tgid);
	r->lat_ns = lat;
	r->arg = s->arg;
	r->cgroup_id = bpf_get_current_cgroup_id();
	r->cmd = s->cmd;
	r->dev = s->dev;
	r->fd = s->fd;
	r->ret = (__s32)ret;
	bpf_get_current_comm(r->comm, sizeof(r->comm));
	xp_submit(r);
}

/* The arguments of the task's ioctl from its user registers (compat: the 32-bit call's). */
static __always_inline void args_of(struct ioctl_start *s, struct pt_regs *regs, bool btf, bool compat)
{
	s->fd = (int)(compat ? XP_READ(btf, regs, bx) : XP_READ(btf, regs, di));
	s->cmd = (__u32)(compat ? XP_READ(btf, regs, cx) : XP_READ(btf, regs, si));
	s->arg = compat ? (__u32)XP_READ(btf, regs, dx) : XP_READ(btf, regs, dx);
}

/*
 * The return of a call whose start no program of ours saw: on 7.x kernels the
 * programs on the syscall tracepoints run preemptible, and while a task is
 * switched out in the middle of one, the kernel skips that program for every
 * other task on its CPU (the recursion guard; counted as a missed run). The
 * task's user registers still hold the call's arguments (`compat`: the
 * 32-bit ones): the call is counted here, untimed, as its start is not known.
 * So is a call made before tracing began and returning after it. (A skipped
 * return cannot be made up for: that call is lost, its missed run counted.)
 */
static __always_inline int finish_untimed(struct pt_regs *regs, bool btf, long ret, bool compat,
					  int mode)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct ioctl_start s = {};

	if (xp_filtered(pid_tgid >> 32))
		return 0;
	args_of(&s, regs, btf, compat);
	s.dev = fd_to_traced_chrdev(s.fd, TASK_BTF(mode));
	if (!s.dev)
		return 0;
	s.ts = bpf_ktime_get_ns();	/* its return: the only time known */
	if (aggregate)
		count(&s, pid_tgid >> 32, XP_IOCTL_UNTIMED, ret);
	else
		emit(&s, pid_tgid, XP_IOCTL_UNTIMED, ret);
	return 0;
}

/*
 * The end of a call on the current thread: count or emit it, free its start.
 * `regs` (the user registers; btf: loads, else helper reads) where a call
 * whose start was not seen is still counted (the syscall tracepoints' hooks);
 * NULL for the kretprobe, whose kprobe is never skipped.
 */
static __always_inline int finish(long ret, int mode, struct pt_regs *regs, bool btf_regs, bool compat)
{
	bool btf = TASK_BTF(mode);
	__u64 pid_tgid = bpf_get_current_pid_tgid(), lat;
	__u32 tid = (__u32)pid_tgid;
	struct ioctl_start *s;

	if (btf)
		s = bpf_task_storage_get(&task_start, bpf_get_current_task_btf(), 0, 0);
	else
		s = bpf_map_lookup_elem(&inflight, &tid);
	if (s && s->ts && regs) {
		/*
		 * A start left by an earlier call whose return the kernel skipped
		 * (its program preempted, as above) is not this call's: told by
		 * the arguments, it is dropped and this call counted untimed.
		 */
		struct ioctl_start now = {};

		args_of(&now, regs, btf_regs, compat);
		if (now.fd != s->fd || now.cmd != s->cmd || now.arg != s->arg) {
			if (btf)
				s->ts = 0;
			else
				bpf_map_delete_elem(&inflight, &tid);
			return finish_untimed(regs, btf_regs, ret, compat, mode);
		}
	}
	if (!s || !s->ts)
		return regs ? finish_untimed(regs, btf_regs, ret, compat, mode) : 0;
	lat = bpf_ktime_get_ns() - s->ts;
	if (aggregate)
		count(s, pid_tgid >> 32, lat, ret);
	else
		emit(s, pid_tgid, lat, ret);
	if (btf)
		s->ts = 0;
	else
		bpf_map_delete_elem(&inflight, &tid);
	return 0;
}

static __always_inline int on_exit(struct pt_regs *regs, long ret, int mode)
{
	bool btf = mode == M_BTF;
	unsigned long nr = XP_READ(btf, regs, orig_ax);

	if (nr != NR_ioctl && (nr != NR_ia32_ioctl || XP_READ(btf, regs, cs) != USER32_CS))
		return 0;
	return finish(ret, mode, regs, btf, nr != NR_ioctl);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(ioctl_enter_btf, struct pt_regs *regs, long id)
{
	return on_enter(regs, id, M_BTF);
}

SEC("tp_btf/sys_exit")
int BPF_PROG(ioctl_exit_btf, struct pt_regs *regs, long ret)
{
	return on_exit(regs, ret, M_BTF);
}

/* The classic syscall events (layouts in ioctl_dev.bpf.h). */
SEC("tracepoint/syscalls/sys_enter_ioctl")
int ioctl_enter_tp(struct tp_enter_ioctl *ctx)
{
	return start_call((int)ctx->fd, (__u32)ctx->cmd, ctx->arg, M_KP);
}

SEC("tracepoint/syscalls/sys_exit_ioctl")
int ioctl_exit_tp(struct tp_exit *ctx)
{
	/* native calls only: the task's user registers hold their arguments */
	return finish(ctx->ret, M_KP, (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf()),
		      true, false);
}

/*
 * With the classic events, 32-bit programs go unseen; so that it is said, not
 * silent, a program on sched_process_exec counts the 32-bit images that start
 * while tracing (the filters apply) and keeps the first one's pid and name.
 * At that event the new image's user registers are set: CS tells.
 */
__u64 exec32_count;
__u32 exec32_pid;
char exec32_comm[XP_COMM_LEN];

/*
 * xputrace's own probe of whether 32-bit programs run here (live/compat32.c:
 * another xputrace starting, `top` beside `serve`) is no caller: it is
 * exec'd from a memfd named "xputrace-ia32" (the file "memfd:xputrace-ia32"),
 * and exits at once.
 */
static const char probe32[] = "memfd:xputrace-ia32";

static __always_inline bool is_probe32(struct task_struct *t)
{
	char name[sizeof(probe32)];
	const unsigned char *p = BPF_CORE_READ(t, mm, exe_file, f_path.dentry, d_name.name);

	if (bpf_probe_read_kernel_str(name, sizeof(name), p) != sizeof(name))
		return false;
#pragma unroll
	for (int i = 0; i < (int)sizeof(name); i++)
		if (name[i] != probe32[i])
			return false;
	return true;
}

SEC("tracepoint/sched/sched_process_exec")
int ioctl_exec32(void *ctx)
{
	struct task_struct *t = bpf_get_current_task_btf();
	struct pt_regs *regs = (struct pt_regs *)bpf_task_pt_regs(t);
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (!regs || regs->cs != USER32_CS || xp_filtered(tgid) || is_probe32(t))
		return 0;
	if (__sync_fetch_and_add(&exec32_count, 1) == 0) {
		bpf_get_current_comm(exec32_comm, sizeof(exec32_comm));
		exec32_pid = tgid;
	}
	return 0;
}

SEC("raw_tp/sys_enter")
int BPF_PROG(ioctl_enter_raw, struct pt_regs *regs, long id)
{
	return on_enter(regs, id, M_RAW);
}

SEC("raw_tp/sys_exit")
int BPF_PROG(ioctl_exit_raw, struct pt_regs *regs, long ret)
{
	return on_exit(regs, ret, M_RAW);
}

/*
 * The syscall functions take the task's saved user registers: native
 * arguments in di, si, dx; compat ones in bx, cx, dx (on_enter tells them
 * apart by the syscall number it is given); the pointer to them is the first
 * argument (di) of the probed function. Not attached by the skeleton:
 * user space attaches them, the return probes through tracefs (see
 * src/live/kprobe.c).
 */
SEC("kprobe")
int ioctl_enter_kp(struct pt_regs *ctx)
{
	return on_enter((struct pt_regs *)ctx->di, NR_ioctl, M_KP);
}

SEC("kprobe")
int ioctl_enter_kp32(struct pt_regs *ctx)
{
	return on_enter((struct pt_regs *)ctx->di, NR_ia32_ioctl, M_KP);
}

SEC("kretprobe")
int ioctl_exit_kp(struct pt_regs *ctx)
{
	return finish((long)ctx->ax, M_KP, NULL, false, false);
}
