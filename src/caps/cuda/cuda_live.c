/* `cuda`'s kernel side: the programs on libxputrace-cuda.so's USDT probes, in every file of it found. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/libbpf.h>

#include "caps/cuda/cuda_live.h"
#include "live/skel.h"
#include "cuda.skel.h"

#define MAX_LINKS (5 * XP_API_LIB_FILES)

struct cuda_k {
	struct bpf_link *links[MAX_LINKS];
	int nlinks, nfiles;
};

static void destroy_links(struct xp_kside *k)
{
	struct cuda_k *ck = k->priv;

	for (int i = 0; ck && i < ck->nlinks; i++)
		bpf_link__destroy(ck->links[i]);
	if (ck)
		ck->nlinks = 0;
}

static void ck_free(void *p)
{
	struct cuda_k *ck = p;

	for (int i = 0; ck && i < ck->nlinks; i++)
		bpf_link__destroy(ck->links[i]);
	free(ck);
}

XP_SKEL_OPS(cuda);

static int configure(struct xp_kside *k, void *ctx, char *why, size_t len)
{
	(void)ctx, (void)why, (void)len;
	k->on_detach = destroy_links;
	return 0;
}

/* The five probes of one file: all, or none (a note says why). */
static int attach_file(struct xp_kside *k, struct xp_api_plan *plan, const char *path)
{
	struct cuda_bpf *skel = k->skel;
	struct cuda_k *ck = k->priv;
	struct {
		struct bpf_program *prog;
		const char *name;
	} probes[] = {
		{ skel->progs.cuda_drops, "drops" }, { skel->progs.cuda_kernel, "kernel" },
		{ skel->progs.cuda_memcpy, "memcpy" }, { skel->progs.cuda_memset, "memset" },
		{ skel->progs.cuda_launches, "launches" },
	};
	int first = ck->nlinks;

	for (size_t i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		struct bpf_link *l = bpf_program__attach_usdt(probes[i].prog, -1, path, "xputrace_cuda",
							      probes[i].name, NULL);

		if (!l || ck->nlinks >= MAX_LINKS) {
			int err = l ? -E2BIG : -errno;

			bpf_link__destroy(l);
			while (ck->nlinks > first)
				bpf_link__destroy(ck->links[--ck->nlinks]);
			xp_api_plan_note(plan, "%s: probe xputrace_cuda:%s not attached: %s", path, probes[i].name,
					 strerror(-err));
			return err == -EINTR ? err : 0;
		}
		ck->links[ck->nlinks++] = l;
	}
	ck->nfiles++;
	return 0;
}

struct attach_ctx {
	struct xp_api_plan *plan;
	bool none_ok;
};

static int attach(struct xp_kside *k, void *ctx, char *why, size_t len)
{
	struct attach_ctx *a = ctx;
	struct xp_api_plan *plan = a->plan;
	struct cuda_k *ck = k->priv;
	int err;

	for (int fi = 0; fi < plan->lib[0].nfiles; fi++)
		if ((err = attach_file(k, plan, plan->lib[0].file[fi]))) {
			snprintf(why, len, "attaching USDT probes: %s", strerror(-err));
			return err;
		}
	if (!ck->nfiles && !a->none_ok) {
		snprintf(why, len, "no %s attached", XP_CUDA_SONAME);
		return -ENOENT;
	}
	return 0;
}

int xp_cuda_live_open(struct xp_kside **out, struct xp_api_plan *plan, bool none_ok, const struct xp_filters *f,
		      const struct xp_live_share *share, char *why, size_t len)
{
	struct cuda_k *ck = calloc(1, sizeof(*ck));
	struct attach_ctx a = { plan, none_ok };
	struct xp_skel_steps steps = {
		.hook = "usdt", .f = f, .share = share, .priv = ck, .priv_free = ck_free,
		.configure = configure, .attach = attach, .ctx = &a,
	};

	if (!ck)
		return -ENOMEM;
	return xp_skel_open(out, &cuda_skel_ops, &steps, why, len);
}

int xp_cuda_live_files(const struct xp_kside *k)
{
	return ((const struct cuda_k *)k->priv)->nfiles;
}

int xp_cuda_live_attach(struct xp_kside *k, struct xp_api_plan *plan, const char *path)
{
	struct cuda_k *ck = k->priv;
	int had = ck->nfiles, err = attach_file(k, plan, path);

	return err ? err : ck->nfiles > had;
}
