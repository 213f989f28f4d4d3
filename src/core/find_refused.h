/*
 * Finding which items of a set an all-or-nothing operation refuses (one
 * kprobe.multi link over many functions fails whole when the kernel refuses
 * one of them): halves the set until each refused item is alone. No libbpf.
 */
#ifndef XP_CORE_FIND_REFUSED_H
#define XP_CORE_FIND_REFUSED_H

/*
 * `try` gets a subset of `idx` and says 0 (taken) or -errno (refused).
 * err[i] is set to the -errno of each refused item i (the values of `idx`
 * index `err`); the others are left alone. Returns the number refused.
 * Costs about 2 x refused x log2(n) tries, and one when none is refused.
 */
int xp_find_refused(const int *idx, int n, int (*try)(void *ctx, const int *idx, int n), void *ctx,
		    int *err);

#endif
