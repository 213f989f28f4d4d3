/* The ioctl capability's kernel side: load, fill the device maps, attach, drain. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "core/ioctl_stats.h"
#include "live/kside.h"
#include "ioctl.skel.h"

static int fill_device_maps(struct ioctl_bpf *skel, const struct xp_devices *d)
{
	uint8_t on = 1;

	for (int i = 0; i < d->nmajors; i++) {
		uint32_t m = d->majors[i].major;

		if (m < 4096 && bpf_map_update_elem(bpf_map__fd(skel->maps.majors), &m, &on, BPF_ANY))
			return -errno;
	}
	for (int i = 0; i < d->nextra; i++)
		if (bpf_map_update_elem(bpf_map__fd(skel->maps.devs), &d->extra[i], &on, BPF_ANY))
			return -errno;
	return 0;
}

static int keep_other_row(struct ioctl_bpf *skel);

static void skel_detach(void *skel) { ioctl_bpf__detach(skel); }
static void skel_destroy(void *skel) { ioctl_bpf__destroy(skel); }

int xp_ioctl_live_open(struct xp_kside **out, const struct xp_filters *f,
		       const struct xp_devices *d, bool aggregate, const struct xp_live_share *share)
{
	static const char *const hooks[] = { "tp_btf", "raw_tp" };
	const char *force = getenv("XPUTRACE_IOCTL_HOOK");	/* tests take the raw_tp path */
	struct ioctl_bpf *skel = NULL;
	struct xp_kside *k;
	char why[128];
	int err = -ENOENT, h;

	/* tp_btf where the kernel has it, raw_tp otherwise: same programs, other hook */
	for (h = force && !strcmp(force, "raw_tp"); h < 2; h++) {
		skel = ioctl_bpf__open();
		if (!skel) {
			err = -errno;
			break;
		}
		bpf_program__set_autoload(skel->progs.ioctl_enter_btf, h == 0);
		bpf_program__set_autoload(skel->progs.ioctl_exit_btf, h == 0);
		bpf_program__set_autoload(skel->progs.ioctl_enter_raw, h == 1);
		bpf_program__set_autoload(skel->progs.ioctl_exit_raw, h == 1);
		bpf_map__set_autocreate(skel->maps.task_start, h == 0);
		XP_APPLY_FILTERS(skel, f);
		skel->rodata->aggregate = aggregate;
		skel->rodata->have_devs = d->nextra > 0;
		err = xp_live_share_maps(share, skel->maps.events, skel->maps.drops, why, sizeof(why));
		if (!err)
			err = ioctl_bpf__load(skel);
		if (!err)
			break;
		ioctl_bpf__destroy(skel);
		skel = NULL;
		if (err == -EPERM)
			break;	/* no privilege: the other hook will not help */
	}
	if (err)
		return err;
	if (!(k = xp_kside_new(skel, skel_destroy))) {
		ioctl_bpf__destroy(skel);
		return -ENOMEM;
	}
	k->skel_detach = skel_detach;
	k->obj = skel->obj;
	k->events = skel->maps.events;
	k->drops = skel->maps.drops;
	k->hook = hooks[h];
	err = fill_device_maps(skel, d);
	if (!err && aggregate)
		err = keep_other_row(skel);
	if (!err)
		err = ioctl_bpf__attach(skel);
	if (err) {
		xp_kside_close(k);
		return err;
	}
	*out = k;
	return 0;
}

/* The row the kernel adds calls to when its map is full (ioctl.bpf.c). */
static int keep_other_row(struct ioctl_bpf *skel)
{
	struct xp_ioctl_key k = { .pid = XP_IOCTL_PID_OTHER };
	struct xp_ioctl_val *v = calloc(1, sizeof(*v));
	int err = 0;

	if (!v)
		return -ENOMEM;
	snprintf(v->comm, sizeof(v->comm), "(other)");
	if (bpf_map_update_elem(bpf_map__fd(skel->maps.stats), &k, v, BPF_NOEXIST) && errno != EEXIST)
		err = -errno;
	free(v);
	return err;
}

/* lookup-and-delete, or lookup then delete where the kernel lacks it (before 5.14) */
static int take(int fd, const void *key, void *val)
{
	if (!bpf_map_lookup_and_delete_elem(fd, key, val))
		return 0;
	if (bpf_map_lookup_elem(fd, key, val) || bpf_map_delete_elem(fd, key))
		return -errno;
	return 0;
}

int xp_ioctl_live_drain(struct xp_kside *ks, struct xp_ioctl_table *t)
{
	struct ioctl_bpf *skel = ks->skel;
	int sfd = bpf_map__fd(skel->maps.stats), efd = bpf_map__fd(skel->maps.errs);
	struct xp_ioctl_val *v = malloc(sizeof(*v));
	struct xp_ioctl_err_key ek;
	struct xp_ioctl_key k;
	uint64_t n;
	int err = 0;

	if (!v)
		return -ENOMEM;
	/*
	 * Take each entry with lookup-and-delete, so a call counted meanwhile
	 * lands in a fresh entry for the next drain instead of being lost. The
	 * key is gone afterwards, so iteration restarts from the first key.
	 */
	while (!err && !bpf_map_get_next_key(sfd, NULL, &k))
		if (!(err = take(sfd, &k, v)) && v->calls)
			err = xp_ioctl_table_add_val(t, &k, v);
	while (!err && !bpf_map_get_next_key(efd, NULL, &ek))
		if (!(err = take(efd, &ek, &n)))
			err = xp_ioctl_table_add_errno(t, &ek.k, ek.err, n);
	free(v);
	return err ? err : keep_other_row(skel);
}
