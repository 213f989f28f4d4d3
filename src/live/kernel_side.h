/*
 * A capability's kernel side, one type for all of them: the BPF object, its
 * ring buffer and drop counters, the links that attach it, and how to
 * destroy its skeleton. Capabilities open it their own way (their folder in src/caps)
 * and everything after that (polling, drops, detach, close) is generic.
 */
#ifndef XP_LIVE_KERNEL_SIDE_H
#define XP_LIVE_KERNEL_SIDE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <bpf/libbpf.h>
#include "core/filters.h"
#include "core/rawtp_layout.h"

#define XP_KSIDE_LINKS (XP_RAWTP_MAX_EV + 1)

struct xp_kside {
	struct bpf_object *obj;		/* its programs' skipped runs count as drops */
	struct bpf_map *events, *drops;	/* its own, or the shared ones it writes into */
	const char *hook;		/* "tp_btf", "tracepoint", "tracepoint+raw_tp", ... */
	struct bpf_link *links[XP_KSIDE_LINKS];	/* attached one by one */
	void *skel;
	void (*skel_destroy)(void *skel);
	void *priv;			/* the capability's own state beside the skeleton */
	void (*priv_free)(void *priv);	/* freed before the skeleton is destroyed */
	/* links the capability keeps itself (the skeleton's, kmulti): their detach */
	void (*on_detach)(struct xp_kside *k);
	bool detached;			/* no program runs anymore: its maps are final */
};

/*
 * Several capabilities into one ring buffer (record): a skeleton opened with
 * a share writes into the first one's `events` and `drops` maps instead of
 * its own (bpf_map__reuse_fd between open and load; the map definitions are
 * the same, src/bpf/common.bpf.h), so one reader sees every record in
 * reservation order and one drops map counts every loss.
 */
struct xp_live_share {
	struct bpf_map *events, *drops;	/* of a skeleton already loaded */
};
int xp_live_share_maps(const struct xp_live_share *s, struct bpf_map *events,
		       struct bpf_map *drops, char *why, size_t whylen);

/* Sets the filter globals every kernel-side program has (src/bpf/common.bpf.h). */
#define XP_APPLY_FILTERS(skel, f)                                                        \
	do {                                                                             \
		(skel)->rodata->self_tgid = (uint32_t)getpid();                          \
		(skel)->rodata->filter_tgid = (f)->pid;                                  \
		(skel)->rodata->filter_cgid = (f)->cgroup_id;                            \
		if ((f)->comm) {                                                         \
			(skel)->rodata->filter_comm_on = 1;                              \
			strncpy((char *)(skel)->rodata->filter_comm, (f)->comm,          \
				sizeof((skel)->rodata->filter_comm) - 1);                \
		}                                                                        \
	} while (0)

/*
 * A bpf() call on a map raises the CPU's bpf_prog_active while it runs, and
 * leaves the task preemptible (migrate_disable only): on a preemptible
 * kernel (Debian's 7.x: PREEMPT_LAZY) a switch to another task there makes
 * every kprobe or tracepoint program that fires on that CPU meanwhile skip
 * its run. The lab's 7.3 guest on one vCPU lost 222-1069 of 13,000 ioctls so
 * while the summary drained its maps. Between begin and end the calling
 * thread runs as SCHED_FIFO (priority 1): no ordinary task takes its CPU in
 * the middle of a map call. Without the privilege it runs as before.
 */
struct xp_map_calls { int policy; int prio; bool raised; };
void xp_map_calls_begin(struct xp_map_calls *c);
void xp_map_calls_end(struct xp_map_calls *c);

/*
 * Counts the programs keep in generations (a drain_gen they read, moved on
 * first by the drain): which a drain takes. A tick leaves the last one a
 * second more (a program preempted in the middle of its update may still
 * write to it); a report waits a moment instead; once detached, all.
 */
enum xp_drain { XP_DRAIN_TICK, XP_DRAIN_REPORT, XP_DRAIN_ALL };
static inline bool xp_drain_ripe(uint32_t gen, uint32_t cur, enum xp_drain how)
{
	return how == XP_DRAIN_ALL || cur - gen >= (how == XP_DRAIN_TICK ? 2u : 1u);
}
/* A map entry read and deleted: at once, or in two calls where the kernel lacks it (before 5.14). */
int xp_map_take(int fd, const void *key, void *val);

/* A new, empty kernel side owning `skel` (opened by xp_skel_open, live/skel.h). NULL when out of memory. */
struct xp_kside *xp_kside_new(void *skel, void (*destroy)(void *skel));
/* Stops the programs writing (links gone; NULL: none); the maps stay readable. Returns the links destroyed. */
int xp_kside_detach(struct xp_kside *k);
/* Says, as `verb`'s, a detach of `links` begun at since_ns (xp_now_ns) that took a second or more. */
void xp_kside_say_detach(const char *verb, uint64_t since_ns, int links);
/* xp_kside_detach of n kernel sides (NULLs skipped), the time said as above. */
void xp_kside_detach_all(const char *verb, struct xp_kside *const *ks, int n);
/*
 * The kernel's slow part of detaching left to a child, which keeps a
 * reference to each BPF and perf file, waits for this process to end, and
 * ends, so that the kernel releases them then: this process's own detach
 * (a disable and a close each) is then quick. For an exit the user waits
 * on and nothing is counted after (`top`'s `q`).
 */
void xp_kside_release_later(void);
void xp_kside_close(struct xp_kside *k);

/*
 * Tracepoint capabilities without a kernel side of their own (the generic
 * program family, src/bpf/tp.bpf.c): parses the formats of the events of
 * `l` (initialized with the capability's table, groups possibly redirected)
 * from tracefs, loads one program per present event writing `rectype`
 * records, attaches them. The filters apply to the events whose table entry
 * says proc_ctx. -ENOENT: none of the events exists.
 */
int xp_tp_open(struct xp_kside **out, struct xp_rawtp_layout *l, uint16_t rectype,
	       const struct xp_filters *f, const struct xp_live_share *share, char *why,
	       size_t whylen);

/*
 * The steps of any raw-tracepoint skeleton (programs named xp_<prefix>_<i>):
 * between open and load, autoload the present events' programs and fill the
 * per-event settings `cfg` (the skeleton's xp_rawtp_cfg), with the filters
 * on for process-context events when `filter`; after load, attach every
 * present event, last first.
 */
int xp_rawtp_live_prepare(struct bpf_object *obj, const char *prefix,
			  const struct xp_rawtp_layout *l, struct xp_rawtp_cfg *cfg, bool filter,
			  char *why, size_t whylen);
int xp_rawtp_live_attach(struct xp_kside *k, const char *prefix, const struct xp_rawtp_layout *l,
			 char *why, size_t whylen);
/* The layouts of `l`'s events from tracefs: the number present, -ENOENT for none. */
int xp_rawtp_live_layouts(struct xp_rawtp_layout *l, char *why, size_t whylen);

#endif
