/*
 * One BPF kprobe program on many kernel functions at once: the functions of
 * a loaded module whose names match a pattern (from tracefs
 * available_filter_functions), attached with kprobe.multi and a cookie per
 * function, or with one kprobe per function where the kernel has no
 * kprobe.multi. The functions the kernel refuses are found one by one and
 * kept with the reason; what the kernel missed is read back from the links.
 */
#ifndef XP_LIVE_KPROBE_MULTI_H
#define XP_LIVE_KPROBE_MULTI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <bpf/libbpf.h>

#define XP_KMULTI_NAME 128

struct xp_kmulti_fn {
	char name[XP_KMULTI_NAME];
	int err;		/* 0: attached (or not tried yet); -errno: refused (by the kernel, or
				   -ENAMETOOLONG: a name longer than this holds, never tried) */
};

struct xp_kmulti {
	struct xp_kmulti_fn *fn;	/* sorted by name, each once */
	int n;
	int nrefused;
	bool multi;			/* kprobe.multi; false: one kprobe per function */
	struct bpf_link **links;
	int nlinks, cap;
	uint64_t missed_gone;		/* missed on links since destroyed */
	bool listed;
	struct xp_kmulti *next;		/* the sets alive, for what they missed */
};

/*
 * The functions of `module` in `filter_file` (tracefs's
 * available_filter_functions) whose names match the fnmatch `pattern`.
 * Returns how many (0: none, the module not loaded or it has no such
 * function), or -errno with `why`.
 */
int xp_kmulti_resolve(struct xp_kmulti *m, const char *filter_file, const char *module,
		      const char *pattern, char *why, size_t whylen);
/* The index of a resolved function, -1 when it is not one. */
int xp_kmulti_find(const struct xp_kmulti *m, const char *name);

/*
 * Before the object is loaded: makes `prog` (SEC("kprobe.multi") or
 * SEC("kretprobe.multi")) a kprobe.multi program where the kernel takes one,
 * else a plain kprobe program. Every program of one set must be prepared
 * the same way: the first call decides, for the set.
 */
void xp_kmulti_prepare(struct xp_kmulti *m, struct bpf_program *prog, bool kernel_has_multi);

/*
 * Attaches `prog` (an entry or, with `ret`, a return program) to the
 * functions listed in `idx` (all of them when NULL), each with
 * cookies[its index]. A kprobe.multi link fails whole when the kernel
 * refuses one function: the refused ones are then found (their `err` set,
 * `nrefused` counted) and the rest attached in one link; later attaches
 * skip them. 0, or -errno with `why` when an entry attach took nothing (a
 * return attach that took nothing is not an error: its functions are
 * listed as refused).
 */
int xp_kmulti_attach(struct xp_kmulti *m, struct bpf_program *prog, bool ret, const int *idx,
		     int nidx, const uint64_t *cookies, char *why, size_t whylen);

/* Calls the kernel missed on one kprobe.multi link (0 for another link, or before Linux 6.7). */
uint64_t xp_kmulti_link_missed(const struct bpf_link *l);
/* Calls the kernel missed on this set's links (kprobe.multi links, Linux 6.7 and later). */
uint64_t xp_kmulti_missed(const struct xp_kmulti *m);
/* The same over every set alive in this process. */
uint64_t xp_kmulti_missed_all(void);

/* Destroys the links (what they missed is kept); the functions stay listed. */
void xp_kmulti_detach(struct xp_kmulti *m);
/* Detaches and frees. */
void xp_kmulti_free(struct xp_kmulti *m);

#endif
