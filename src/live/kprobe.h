/*
 * Return probes created through tracefs, where the number of calls that can
 * be in flight at once (maxactive) can be chosen. A kretprobe made through
 * the perf kprobe PMU gets the kernel's default, max(10, 2 x CPUs): more
 * threads than that blocked in the probed function at once (GPU clients
 * waiting in ioctls) and the kernel misses their returns. What it missed
 * anyway is read back from tracefs (kprobe_profile) and counted as drops.
 */
#ifndef XP_LIVE_KPROBE_H
#define XP_LIVE_KPROBE_H
#include <stddef.h>
#include <stdint.h>
#include <bpf/libbpf.h>

/* The kernel's upper bound for maxactive (KRETPROBE_MAXACTIVE_MAX). */
#define XP_KRETPROBE_MAXACTIVE 4096

/*
 * Creates an event "xputrace/<func>_rN_<pid>" returning from `func` and
 * attaches `prog` (a kprobe program) to it. The event is removed by
 * xp_kretprobes_remove (also at exit); events left by tracers that died are
 * removed on the way. 0 or -errno with `why`.
 */
int xp_kretprobe_attach(struct bpf_program *prog, const char *func, int maxactive,
			struct bpf_link **link, char *why, size_t whylen);
/*
 * The same for a function's entry ("xputrace/<func>_eN_<pid>"), so that the
 * hits the kernel missed (a kprobe hit while another runs on that CPU, e.g.
 * an interrupt during a probe handler) are counted with the returns'.
 */
int xp_kprobe_attach(struct bpf_program *prog, const char *func, struct bpf_link **link,
		     char *why, size_t whylen);
/* Returns the kernel missed on this process's events (entries and returns) so far. */
uint64_t xp_kretprobes_missed(void);
/*
 * Adds what `fn` returns to xp_kretprobes_missed: the misses of probes made
 * otherwise (kprobe.multi links, whose own count is in their link info),
 * less those their programs' skipped runs count twice. The sum with every
 * program's skipped runs is what was lost; taken alone it may wrap below 0.
 */
void xp_kprobes_missed_also(uint64_t (*fn)(void));
/* Removes this process's events (their links must be gone). */
void xp_kretprobes_remove(void);
#endif
