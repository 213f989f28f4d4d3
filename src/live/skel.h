/*
 * A skeleton's open -> configure -> load -> attach, once for every kernel
 * side (src/caps/NAME/NAME_live.c, the generic tracepoint family in
 * kernel_side.c): the steps every one takes in the same order, with the
 * capability's own work as callbacks between them.
 *
 *   open       NAME_bpf__open(); a new struct xp_kside owning it (k->obj,
 *              k->events, k->drops set); "opening the BPF object: ..."
 *   configure  the filter globals (common.bpf.h) where steps->f, then the
 *              capability's own: programs to load, rodata, map sizes
 *   share      the first skeleton's ring buffer and drops map (record)
 *   load       NAME_bpf__load(); "loading the BPF programs: ..." unless
 *              steps->load_why says it otherwise
 *   attach     the capability's own, into k->links or by the skeleton
 *
 * On failure everything is undone (the kernel side closed, priv freed) and
 * -errno returned with `why`; on success *out owns the skeleton and priv.
 */
#ifndef XP_LIVE_SKEL_H
#define XP_LIVE_SKEL_H

#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include "live/kernel_side.h"

/* A skeleton's generated functions behind void *: XP_SKEL_OPS(name) writes them. */
struct xp_skel_ops {
	void *(*open)(void);
	int (*load)(void *skel);
	void (*destroy)(void *skel);
	/* k->obj, k->events, k->drops from the skeleton */
	void (*bind)(void *skel, struct xp_kside *k);
	/* the filter globals every kernel-side program has (XP_APPLY_FILTERS) */
	void (*filters)(void *skel, const struct xp_filters *f);
};

/* `static const struct xp_skel_ops name_skel_ops` for the skeleton name.skel.h (struct name_bpf). */
#define XP_SKEL_OPS(name)                                                                          \
	static void *name##_skel_open(void) { return name##_bpf__open(); }                        \
	static int name##_skel_load(void *s) { return name##_bpf__load(s); }                      \
	static void name##_skel_destroy(void *s) { name##_bpf__destroy(s); }                      \
	static void name##_skel_bind(void *s, struct xp_kside *k)                                 \
	{                                                                                          \
		struct name##_bpf *skel = s;                                                       \
		k->obj = skel->obj;                                                                \
		k->events = skel->maps.events;                                                     \
		k->drops = skel->maps.drops;                                                       \
	}                                                                                          \
	static void name##_skel_filters(void *s, const struct xp_filters *f)                      \
	{                                                                                          \
		struct name##_bpf *skel = s;                                                       \
		XP_APPLY_FILTERS(skel, f);                                                         \
	}                                                                                          \
	static const struct xp_skel_ops name##_skel_ops = {                                        \
		name##_skel_open, name##_skel_load, name##_skel_destroy, name##_skel_bind,         \
		name##_skel_filters,                                                               \
	}

struct xp_skel_steps {
	const char *hook;			/* k->hook ("tracepoint", "kprobe", ...) */
	const struct xp_filters *f;		/* NULL: the filter globals left as compiled */
	const struct xp_live_share *share;	/* NULL: its own ring buffer */
	/* the capability's state beside the skeleton, k->priv: owned from the call on */
	void *priv;
	void (*priv_free)(void *priv);
	/* between open and load, with k->skel the skeleton; 0 or -errno with why */
	int (*configure)(struct xp_kside *k, void *ctx, char *why, size_t whylen);
	/* what a refused load says (NULL: "loading the BPF programs: ERROR") */
	void (*load_why)(void *ctx, int err, char *why, size_t whylen);
	/* after load; 0 or -errno with why */
	int (*attach)(struct xp_kside *k, void *ctx, char *why, size_t whylen);
	void *ctx;				/* the callbacks' */
};

int xp_skel_open(struct xp_kside **out, const struct xp_skel_ops *ops,
		 const struct xp_skel_steps *s, char *why, size_t whylen);

/*
 * A SIGINT/SIGTERM/SIGHUP during start-up stops it where it is: 0 while
 * none came, else -EINTR with `why` saying so. xp_skel_open asks before
 * each step, and the shared attach loops (xp_rawtp_live_attach,
 * xp_probe_attach, kmulti, kprobe) before each program they attach, so a
 * capability opened through them stops within one step of the signal; the
 * runner then detaches what was attached and prints the empty summary.
 */
int xp_startup_stopped(char *why, size_t whylen);

#endif
