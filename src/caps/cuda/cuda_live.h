/* `cuda`'s kernel side (cuda.bpf.c beside it), for its row. */
#ifndef XP_CAPS_CUDA_LIVE_H
#define XP_CAPS_CUDA_LIVE_H

#include <stdbool.h>
#include <stddef.h>
#include "caps/api/api_funcs.h"
#include "core/filters.h"
#include "live/kernel_side.h"

#define XP_CUDA_SONAME "libxputrace-cuda.so"

/*
 * Loads the programs and attaches them to the USDT probes of every file of
 * libxputrace-cuda.so that `plan` found (its one library). A file without
 * the probes is a note in `plan`. -ENOENT when no file was attached (unless
 * `none_ok`: loaded, for files attached later); other errors with a
 * one-line reason in `why`.
 */
int xp_cuda_live_open(struct xp_kside **out, struct xp_api_plan *plan, bool none_ok, const struct xp_filters *f,
		      const struct xp_live_share *share, char *why, size_t len);
/* One more file, found while tracing: 1 attached, 0 not (a note in `plan` says why), or -errno. */
int xp_cuda_live_attach(struct xp_kside *k, struct xp_api_plan *plan, const char *path);
/* Files whose probes are attached. */
int xp_cuda_live_files(const struct xp_kside *k);

#endif
