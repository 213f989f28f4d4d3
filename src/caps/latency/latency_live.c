/* `latency`'s kernel side: probes checked, keys resolved, programs loaded and attached. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <dirent.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>

#include "caps/latency/latency_keys.h"
#include "caps/latency/latency_live.h"
#include "live/features.h"
#include "live/probe_attach.h"
#include "live/skel.h"
#include "latency.skel.h"

XP_SKEL_OPS(latency);

/* What user space keeps beside the skeleton (k->priv). */
struct lat_k {
	struct latency_bpf *skel;	/* k->skel */
	struct xp_lat_slot *table;	/* "inflight", mapped */
	size_t table_len;
	uint32_t nslots;
	/* per side: a raw tracepoint counts its hits (classic tracepoints only) */
	struct bpf_program *counter[2];
	/* per side: the kernel's own count of skipped runs is the measure */
	struct bpf_program *prog[2];
	bool trampoline[2];
};

static void lat_k_free(void *p)
{
	struct lat_k *lk = p;

	if (lk->table)
		munmap(lk->table, lk->table_len);
	free(lk);
}

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

/* The arguments of a tracepoint's typedef btf_trace_EVENT in `b`, or -1. */
static int nargs_in(const struct btf *b, const char *name)
{
	const struct btf_type *t;
	int id = b ? btf__find_by_name_kind(b, name, BTF_KIND_TYPEDEF) : -1;

	if (id <= 0 || !(t = btf__type_by_id(b, id)) || !(t = btf__type_by_id(b, t->type)) ||
	    !btf_is_ptr(t) || !(t = btf__type_by_id(b, t->type)) || !btf_is_func_proto(t) ||
	    btf_vlen(t) < 1)
		return -1;
	return btf_vlen(t) - 1;	/* less the probe's data pointer */
}

/*
 * How many arguments a tracepoint passes its raw programs, from the
 * kernel's or its module's BTF; 0 when not found.
 */
static uint32_t event_nargs(const char *event)
{
	char name[160];
	struct btf *vm = btf__load_vmlinux_btf();
	DIR *d;
	struct dirent *e;
	int n;

	snprintf(name, sizeof(name), "btf_trace_%s", event);
	if ((n = nargs_in(vm, name)) < 0 && vm && (d = opendir("/sys/kernel/btf"))) {
		while (n < 0 && (e = readdir(d))) {
			char path[300];
			struct btf *m;

			if (e->d_name[0] == '.' || !strcmp(e->d_name, "vmlinux"))
				continue;
			snprintf(path, sizeof(path), "/sys/kernel/btf/%s", e->d_name);
			if ((m = btf__parse_split(path, vm))) {
				n = nargs_in(m, name);
				btf__free(m);
			}
		}
		closedir(d);
	}
	btf__free(vm);
	return n > 0 ? (uint32_t)n : 0;
}

/* The hook names, for "Tracing ..." and the summaries. */
static char hook_buf[64];

/* What xp_lat_live_open resolved, for the steps of the skeleton. */
struct lat_open {
	const struct xp_lat_live_cfg *c;
	const struct xp_probe *p[2];
	struct xp_lat_side_cfg side[2];
	uint8_t kind[2][XP_LAT_MAX_KEYS];
	char names[XP_LAT_NAMES];
	struct lat_k *lk;
};

/* The probes' sides and keys checked and resolved; the key's names joined. */
static int resolve(struct lat_open *o, char *why, size_t len)
{
	const struct xp_lat_live_cfg *c = o->c;
	struct xp_tp_format *fmt = calloc(2, sizeof(*fmt));	/* large */
	int err = 0;

	if (!fmt)
		return -ENOMEM;
	for (int i = 0; i < 2 && !err; i++) {
		bool tp = o->p[i]->kind == XP_PROBE_TRACEPOINT;

		err = xp_probe_check(o->p[i], tp ? &fmt[i] : NULL, why, len);
		if (!err)
			err = xp_lat_key_resolve(&c->key, o->p[i], tp ? &fmt[i] : NULL, &o->side[i], o->kind[i],
						 why, len);
	}
	if (!err)
		err = xp_lat_key_agree(&c->key, o->kind[0], o->kind[1], why, len);
	free(fmt);
	for (int i = 0; !err && i < c->key.n; i++)
		snprintf(o->names + strlen(o->names), sizeof(o->names) - strlen(o->names), "%s%s",
			 i ? "," : "", c->key.name[i]);
	return err;
}

/* The programs of the two sides' kinds, and the raw tracepoints that count classic ones' hits. */
static void choose_progs(struct latency_bpf *skel, struct lat_k *lk, const struct xp_probe *const p[2])
{
	struct bpf_program *all[] = { skel->progs.lat_from_tp, skel->progs.lat_to_tp,
				      skel->progs.lat_from_kp, skel->progs.lat_to_kp,
				      skel->progs.lat_from_fentry, skel->progs.lat_to_fentry,
				      skel->progs.lat_from_fexit, skel->progs.lat_to_fexit };

	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		bpf_program__set_autoload(all[i], all[i] == prog_for(skel, p[0], true) ||
						      all[i] == prog_for(skel, p[1], false));
	for (int i = 0; i < 2; i++) {
		lk->prog[i] = prog_for(skel, p[i], i == 0);
		lk->trampoline[i] = trampoline(p[i]);
		if (p[i]->kind == XP_PROBE_TRACEPOINT)
			lk->counter[i] = i ? skel->progs.lat_to_hit : skel->progs.lat_from_hit;
	}
	bpf_program__set_autoload(skel->progs.lat_from_hit, lk->counter[0] != NULL);
	bpf_program__set_autoload(skel->progs.lat_to_hit, lk->counter[1] != NULL);
	for (int i = 0; i < 2; i++)
		if (lk->counter[i])
			skel->rodata->event_nargs[i] = event_nargs(p[i]->name);
}

static int configure(struct xp_kside *k, void *ctx, char *why, size_t len)
{
	struct lat_open *o = ctx;
	struct latency_bpf *skel = k->skel;
	const struct xp_probe *const *p = o->p;
	struct lat_k *lk = o->lk;
	uint32_t nslots = 32;
	int err = 0;

	lk->skel = skel;
	memcpy((void *)&skel->rodata->from_cfg, &o->side[0], sizeof(o->side[0]));
	memcpy((void *)&skel->rodata->to_cfg, &o->side[1], sizeof(o->side[1]));
	memcpy((void *)skel->rodata->key_kind, o->kind[0], sizeof(o->kind[0]));
	memcpy((void *)skel->rodata->key_names, o->names, sizeof(o->names));
	choose_progs(skel, lk, p);
	for (int i = 0; i < 2 && !err; i++)
		if (trampoline(p[i]) && (err = bpf_program__set_attach_target(prog_for(skel, p[i], i == 0), 0,
									    p[i]->name)))
			snprintf(why, len, "%s:%s: %s", xp_probe_kind_name(p[i]->kind), p[i]->name,
				 err == -ESRCH ? "no such function in the kernel's BTF" : strerror(-err));
	/* a power of two, so a key's place is its hash's low bits */
	while (nslots < (o->c->max_inflight ? o->c->max_inflight : 10240) && nslots < (1u << 22))
		nslots <<= 1;
	lk->nslots = nslots;
	bpf_map__set_max_entries(skel->maps.inflight, nslots);
	skel->rodata->inflight_mask = nslots - 1;
	return err;
}

static void load_why(void *ctx, int err, char *why, size_t len)
{
	const struct lat_open *o = ctx;

	if (trampoline(o->p[0]) || trampoline(o->p[1]))
		snprintf(why, len, "loading the fentry/fexit programs: %s (no such function in the "
				   "kernel's BTF, or trampolines unsupported here; kprobe:FUNC and "
				   "kretprobe:FUNC may work)", strerror(-err));
	else
		snprintf(why, len, "loading the BPF programs: %s", strerror(-err));
}

static int attach(struct xp_kside *k, void *ctx, char *why, size_t len)
{
	struct lat_open *o = ctx;
	struct latency_bpf *skel = k->skel;
	const struct xp_probe *const *p = o->p;
	struct lat_k *lk = o->lk;
	int err = 0;

	lk->table_len = (size_t)lk->nslots * sizeof(struct xp_lat_slot);
	lk->table = mmap(NULL, lk->table_len, PROT_READ | PROT_WRITE, MAP_SHARED,
			 bpf_map__fd(skel->maps.inflight), 0);
	if (lk->table == MAP_FAILED) {
		err = -errno;
		lk->table = NULL;
		snprintf(why, len, "mapping the in-flight table: %s", strerror(-err));
	}
	/* the end first: a pair that starts while attaching is not cut in two */
	for (int i = 1; !err && i >= 0; i--)
		if (!(k->links[i] = xp_probe_attach(prog_for(skel, p[i], i == 0), p[i], why, len)))
			err = -errno ? -errno : -EINVAL;
	/*
	 * The hit counters after the classic programs, so that on each hit the
	 * classic program runs first (a tracepoint calls its probes in the order
	 * they came). A kernel that cannot attach them by name (a module's event
	 * on an old kernel) leaves skips to its own count.
	 */
	for (int i = 0; !err && i < 2; i++) {
		if (lk->counter[i] &&
		    !(k->links[2 + i] = bpf_program__attach_raw_tracepoint(lk->counter[i], p[i]->name)))
			lk->counter[i] = NULL;
		if (lk->counter[i])
			__atomic_store_n(&skel->bss->lat_raw_on[i], 1, __ATOMIC_SEQ_CST);
	}
	if (!err)
		__atomic_store_n(&skel->bss->lat_armed, 1, __ATOMIC_SEQ_CST);
	return err;
}

int xp_lat_live_open(struct xp_kside **out, const struct xp_lat_live_cfg *c,
		     const struct xp_filters *f, const struct xp_live_share *share, char *why,
		     size_t len)
{
	struct lat_open o = { .c = c, .p = { &c->from, &c->to } };
	struct xp_skel_steps s = { .hook = hook_buf, .f = f, .share = share, .priv_free = lat_k_free,
				   .configure = configure, .load_why = load_why, .attach = attach,
				   .ctx = &o };
	int err = resolve(&o, why, len);

	if (err)
		return err;
	if (!(o.lk = calloc(1, sizeof(*o.lk))))
		return -ENOMEM;
	s.priv = o.lk;
	snprintf(hook_buf, sizeof(hook_buf), "%s", xp_probe_kind_name(c->from.kind));
	if (c->to.kind != c->from.kind)
		snprintf(hook_buf + strlen(hook_buf), sizeof(hook_buf) - strlen(hook_buf), "+%s",
			 xp_probe_kind_name(c->to.kind));
	return xp_skel_open(out, &latency_skel_ops, &s, why, len);
}

static uint64_t prog_misses(struct bpf_program *p)
{
	struct bpf_prog_info info;
	uint32_t len = sizeof(info);
	int fd = p ? bpf_program__fd(p) : -1;

	memset(&info, 0, sizeof(info));
	if (fd < 0 || bpf_obj_get_info_by_fd(fd, &info, &len))
		return 0;
	return info.recursion_misses;
}

int xp_lat_live_counters(struct xp_kside *k, uint64_t out[XP_LAT_LIVE_N], bool known[2])
{
	struct lat_k *lk = k->priv;
	__u64 *c = lk->skel->bss->lat_counts;

	/* hits before runs: a hit's run is counted first, so this never shows a skip too many */
	out[XP_LAT_ST_FROM_HITS] = __atomic_load_n(&c[XP_LAT_ST_FROM_HITS], __ATOMIC_SEQ_CST);
	out[XP_LAT_ST_TO_HITS] = __atomic_load_n(&c[XP_LAT_ST_TO_HITS], __ATOMIC_SEQ_CST);
	for (int i = 0; i < XP_LAT_ST_MAX; i++)
		if (i != XP_LAT_ST_FROM_HITS && i != XP_LAT_ST_TO_HITS)
			out[i] = __atomic_load_n(&c[i], __ATOMIC_SEQ_CST);
	for (int side = 0; side < 2; side++) {
		uint64_t hits = out[side ? XP_LAT_ST_TO_HITS : XP_LAT_ST_FROM_HITS];
		uint64_t runs = out[side ? XP_LAT_ST_TO_RUNS : XP_LAT_ST_FROM_RUNS] +
				out[side ? XP_LAT_ST_TO_RECOVERED : XP_LAT_ST_FROM_RECOVERED];
		uint64_t *skipped = &out[side ? XP_LAT_LIVE_SKIPPED_ENDS : XP_LAT_LIVE_SKIPPED_STARTS];

		if (lk->counter[side]) {
			/* a hit counter skipped itself (nested in itself, 6.3+) still saw a hit;
			 * a hit done from its arguments is not lost */
			hits += prog_misses(lk->counter[side]);
			*skipped = hits > runs ? hits - runs : 0;
			known[side] = true;
		} else {
			*skipped = prog_misses(lk->prog[side]);
			known[side] = lk->trampoline[side] || xp_kernel_counts_skips() || *skipped;
		}
	}
	return 0;
}

int xp_lat_live_age(struct xp_kside *k, uint64_t max_age_ns, uint64_t *aged, uint64_t *open)
{
	struct lat_k *lk = k->priv;
	struct timespec ts;
	uint64_t now;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	for (uint32_t i = 0; max_age_ns && lk->table && i < lk->nslots; i++) {
		struct xp_lat_slot *s = &lk->table[i];
		uint64_t st = XP_LAT_SLOT_OPEN, t;

		if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != XP_LAT_SLOT_OPEN)
			continue;
		t = s->ts;
		if (t >= now || now - t <= max_age_ns)
			continue;
		/* taken as an end takes it: an end that comes now finds it gone */
		if (!__atomic_compare_exchange_n(&s->state, &st, XP_LAT_SLOT_TAKEN, false,
						 __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			continue;
		if (s->ts == t) {
			__atomic_fetch_sub(&lk->skel->bss->lat_open, 1, __ATOMIC_SEQ_CST);
			__atomic_store_n(&s->state, XP_LAT_SLOT_FREE, __ATOMIC_SEQ_CST);
			(*aged)++;
		} else {
			/* reused by a newer start between the two reads: keep it */
			__atomic_store_n(&s->state, XP_LAT_SLOT_OPEN, __ATOMIC_SEQ_CST);
		}
	}
	*open = __atomic_load_n(&lk->skel->bss->lat_open, __ATOMIC_SEQ_CST);
	return 0;
}
