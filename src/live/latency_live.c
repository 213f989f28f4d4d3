/* `latency`'s kernel side: probes checked, keys resolved, programs loaded and attached. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "core/lat_keys.h"
#include "live/latency_live.h"
#include "live/probe_attach.h"
#include "latency.skel.h"

static void skel_destroy(void *skel) { latency_bpf__destroy(skel); }

static struct bpf_program *prog_for(struct latency_bpf *s, const struct xp_probe *p, bool from)
{
	switch (p->kind) {
	case XP_PROBE_TRACEPOINT: return from ? s->progs.lat_from_tp : s->progs.lat_to_tp;
	case XP_PROBE_FENTRY: return from ? s->progs.lat_from_fentry : s->progs.lat_to_fentry;
	case XP_PROBE_FEXIT: return from ? s->progs.lat_from_fexit : s->progs.lat_to_fexit;
	default: return from ? s->progs.lat_from_kp : s->progs.lat_to_kp;
	}
}

static bool trampoline(const struct xp_probe *p)
{
	return p->kind == XP_PROBE_FENTRY || p->kind == XP_PROBE_FEXIT;
}

/* The hook names, for "Tracing ..." and the summaries. */
static char hook_buf[64];

int xp_lat_live_open(struct xp_kside **out, const struct xp_lat_live_cfg *c,
		     const struct xp_filters *f, const struct xp_live_share *share, char *why,
		     size_t len)
{
	struct xp_tp_format *fmt = calloc(2, sizeof(*fmt));	/* large */
	struct xp_lat_side_cfg side[2];
	uint8_t kind[2][XP_LAT_MAX_KEYS];
	const struct xp_probe *p[2] = { &c->from, &c->to };
	struct latency_bpf *skel = NULL;
	struct xp_kside *k = NULL;
	char names[XP_LAT_NAMES] = "";
	int err = 0;

	if (!fmt)
		return -ENOMEM;
	for (int i = 0; i < 2 && !err; i++) {
		bool tp = p[i]->kind == XP_PROBE_TRACEPOINT;

		err = xp_probe_check(p[i], tp ? &fmt[i] : NULL, why, len);
		if (!err)
			err = xp_lat_key_resolve(&c->key, p[i], tp ? &fmt[i] : NULL, &side[i], kind[i], why, len);
	}
	if (!err)
		err = xp_lat_key_agree(&c->key, kind[0], kind[1], why, len);
	free(fmt);
	if (err)
		return err;
	for (int i = 0; i < c->key.n; i++)
		snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", i ? "," : "",
			 c->key.name[i]);

	if (!(skel = latency_bpf__open())) {
		err = -errno;
		snprintf(why, len, "opening the BPF object: %s", strerror(-err));
		return err;
	}
	if (!(k = xp_kside_new(skel, skel_destroy))) {
		latency_bpf__destroy(skel);
		return -ENOMEM;
	}
	k->obj = skel->obj;
	k->events = skel->maps.events;
	k->drops = skel->maps.drops;
	snprintf(hook_buf, sizeof(hook_buf), "%s", xp_probe_kind_name(c->from.kind));
	if (c->to.kind != c->from.kind)
		snprintf(hook_buf + strlen(hook_buf), sizeof(hook_buf) - strlen(hook_buf), "+%s",
			 xp_probe_kind_name(c->to.kind));
	k->hook = hook_buf;
	XP_APPLY_FILTERS(skel, f);
	memcpy((void *)&skel->rodata->from_cfg, &side[0], sizeof(side[0]));
	memcpy((void *)&skel->rodata->to_cfg, &side[1], sizeof(side[1]));
	memcpy((void *)skel->rodata->key_kind, kind[0], sizeof(kind[0]));
	memcpy((void *)skel->rodata->key_names, names, sizeof(names));
	{
		struct bpf_program *all[] = { skel->progs.lat_from_tp, skel->progs.lat_to_tp,
					      skel->progs.lat_from_kp, skel->progs.lat_to_kp,
					      skel->progs.lat_from_fentry, skel->progs.lat_to_fentry,
					      skel->progs.lat_from_fexit, skel->progs.lat_to_fexit };

		for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
			bpf_program__set_autoload(all[i], all[i] == prog_for(skel, p[0], true) ||
							      all[i] == prog_for(skel, p[1], false));
	}
	for (int i = 0; i < 2 && !err; i++)
		if (trampoline(p[i]) && (err = bpf_program__set_attach_target(prog_for(skel, p[i], i == 0), 0,
									    p[i]->name)))
			snprintf(why, len, "%s:%s: %s", xp_probe_kind_name(p[i]->kind), p[i]->name,
				 err == -ESRCH ? "no such function in the kernel's BTF" : strerror(-err));
	if (c->max_inflight) {
		bpf_map__set_max_entries(skel->maps.inflight, c->max_inflight);
		bpf_map__set_max_entries(skel->maps.depth, c->max_inflight);
	}
	if (!err)
		err = xp_live_share_maps(share, k->events, k->drops, why, len);
	if (!err && (err = latency_bpf__load(skel))) {
		if (trampoline(p[0]) || trampoline(p[1]))
			snprintf(why, len, "loading the fentry/fexit programs: %s (no such function in the "
					   "kernel's BTF, or trampolines unsupported here; kprobe:FUNC and "
					   "kretprobe:FUNC may work)", strerror(-err));
		else
			snprintf(why, len, "loading the BPF programs: %s", strerror(-err));
	}
	/* the end first: a pair that starts while attaching is not cut in two */
	for (int i = 1; !err && i >= 0; i--)
		if (!(k->links[i] = xp_probe_attach(prog_for(skel, p[i], i == 0), p[i], why, len)))
			err = -errno ? -errno : -EINVAL;
	if (err) {
		xp_kside_close(k);
		return err;
	}
	*out = k;
	return 0;
}

int xp_lat_live_counters(struct xp_kside *k, uint64_t out[XP_LAT_ST_MAX])
{
	struct latency_bpf *skel = k->skel;
	int fd = bpf_map__fd(skel->maps.lat_stats), ncpu = libbpf_num_possible_cpus();
	uint64_t *v;

	if (ncpu < 1)
		return ncpu ? ncpu : -EINVAL;
	if (!(v = calloc((size_t)ncpu, sizeof(*v))))
		return -ENOMEM;
	for (uint32_t i = 0; i < XP_LAT_ST_MAX; i++) {
		out[i] = 0;
		if (bpf_map_lookup_elem(fd, &i, v))
			continue;
		for (int c = 0; c < ncpu; c++)
			out[i] += v[c];
	}
	free(v);
	return 0;
}

struct ifkey {
	struct xp_lat_key key;
	uint32_t depth, pad;
};
struct ifval {
	uint64_t ts, pid_tgid;
	char comm[XP_COMM_LEN];
};

int xp_lat_live_age(struct xp_kside *k, uint64_t max_age_ns, uint64_t *aged, uint64_t *open)
{
	struct latency_bpf *skel = k->skel;
	int fd = bpf_map__fd(skel->maps.inflight);
	size_t n = 0, cap = bpf_map__max_entries(skel->maps.inflight);
	struct ifkey key, *old, *prev = NULL;
	struct ifval v;
	struct timespec ts;
	uint64_t now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	*open = 0;
	if (!(old = calloc(cap ? cap : 1, sizeof(*old))))
		return -ENOMEM;
	/* walk first, delete after: deleting while walking a hash map restarts the walk */
	while (!bpf_map_get_next_key(fd, prev, &key)) {
		prev = &old[n < cap ? n : cap - 1];
		if (!bpf_map_lookup_elem(fd, &key, &v) && max_age_ns && v.ts < now &&
		    now - v.ts > max_age_ns && n < cap) {
			old[n++] = key;
		} else {
			(*open)++;
			/* the walk goes on from this key: keep it where prev points */
			if (n < cap)
				old[n] = key;
		}
		if (n >= cap)
			break;
	}
	for (size_t i = 0; i < n; i++)
		if (!bpf_map_delete_elem(fd, &old[i]))
			(*aged)++;
	free(old);
	return 0;
}
