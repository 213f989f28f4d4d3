/* Attaching a BPF program to a probe as the user wrote it (core/probespec.h). */
#ifndef XP_LIVE_PROBE_ATTACH_H
#define XP_LIVE_PROBE_ATTACH_H

#include <stddef.h>
#include <bpf/libbpf.h>
#include "core/probespec.h"
#include "core/tpformat.h"

/*
 * Before load: does the probe exist here? For a tracepoint, its format is
 * read into fmt (may be NULL). 0, or -ENOENT (missing: `why` says what).
 * Functions are checked when attaching (fentry/fexit: when loading).
 */
int xp_probe_check(const struct xp_probe *p, struct xp_tp_format *fmt, char *why, size_t len);
/* The link, or NULL with errno set and a one-line reason in `why`. */
struct bpf_link *xp_probe_attach(struct bpf_program *prog, const struct xp_probe *p, char *why,
				 size_t len);

#endif
