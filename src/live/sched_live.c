/* The sched capability's kernel side: find the events, parse their layouts, load, attach. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "live/capture.h"
#include "live/tracefs.h"
#include "sched.skel.h"

struct xp_sched_live {
	struct sched_bpf *skel;
	struct bpf_link *links[XP_TP_SCHED_MAX];
	int nevents, gen;
};

int xp_sched_live_open(struct xp_sched_live **out, struct xp_sched_layout *layout, char *why,
		       size_t whylen)
{
	struct xp_sched_live *l = calloc(1, sizeof(*l));
	bool mounted;
	const char *tfs;
	int err = 0;

	if (!l)
		return -ENOMEM;
	memset(layout, 0, sizeof(*layout));
	tfs = xp_tracefs(why, whylen, &mounted);
	if (!tfs) {
		free(l);
		return -ENODEV;
	}
	/* which events exist decides the generation, never the kernel version */
	for (int tp = 0; tp < XP_TP_SCHED_MAX; tp++) {
		err = xp_tp_format_load(tfs, "gpu_scheduler", xp_sched_tp_name(tp), &layout->fmt[tp]);
		if (err == -ENOENT)
			continue;
		if (err) {
			snprintf(why, whylen, "reading the format of gpu_scheduler/%s: %s",
				 xp_sched_tp_name(tp), strerror(-err));
			free(l);
			return err;
		}
		layout->present[tp] = true;
		l->nevents++;
		if (xp_sched_tp_gen(tp) > l->gen)
			l->gen = xp_sched_tp_gen(tp);
	}
	if (!l->nevents) {
		free(l);
		return -ENOENT;
	}
	l->skel = sched_bpf__open();
	if (!l->skel) {
		err = -errno;
		snprintf(why, whylen, "opening the BPF object: %s", strerror(-err));
		free(l);
		return err;
	}
	for (int tp = 0; tp < XP_TP_SCHED_MAX; tp++) {
		char pname[64];
		struct bpf_program *p;
		const struct xp_tp_field *s = xp_tp_first_string(&layout->fmt[tp]);

		snprintf(pname, sizeof(pname), "xp_sched_%s", xp_sched_tp_name(tp));
		p = bpf_object__find_program_by_name(l->skel->obj, pname);
		if (!p) {
			err = -ENOENT;
			snprintf(why, whylen, "BPF program %s is missing", pname);
			goto fail;
		}
		bpf_program__set_autoload(p, layout->present[tp]);
		if (!layout->present[tp])
			continue;
		l->skel->rodata->raw_size[tp] = layout->fmt[tp].size < XP_SCHED_RAW
						       ? layout->fmt[tp].size : XP_SCHED_RAW;
		/* the ring name, unless a __rel_loc or a string past the copied bytes */
		l->skel->rodata->str_off[tp] = s && !s->rel_loc && s->offset + 4 <= XP_SCHED_RAW
						       ? (int16_t)s->offset : -1;
	}
	err = sched_bpf__load(l->skel);
	if (err) {
		snprintf(why, whylen, "loading the BPF programs: %s", strerror(-err));
		goto fail;
	}
	for (int tp = 0; tp < XP_TP_SCHED_MAX; tp++) {
		char pname[64];

		if (!layout->present[tp])
			continue;
		snprintf(pname, sizeof(pname), "xp_sched_%s", xp_sched_tp_name(tp));
		l->links[tp] = bpf_program__attach_tracepoint(
			bpf_object__find_program_by_name(l->skel->obj, pname), "gpu_scheduler",
			xp_sched_tp_name(tp));
		if (!l->links[tp]) {
			err = -errno;
			snprintf(why, whylen, "attaching to gpu_scheduler/%s: %s", xp_sched_tp_name(tp),
				 strerror(-err));
			goto fail;
		}
	}
	*out = l;
	return 0;
fail:
	xp_sched_live_close(l);
	return err;
}

const char *xp_sched_live_generation(const struct xp_sched_live *l)
{
	return l->gen == 2 ? "6.17+ events" : "6.16- events";
}

int xp_sched_live_nevents(const struct xp_sched_live *l) { return l->nevents; }
struct bpf_map *xp_sched_live_events(const struct xp_sched_live *l) { return l->skel->maps.events; }
struct bpf_map *xp_sched_live_drops(const struct xp_sched_live *l) { return l->skel->maps.drops; }
struct bpf_object *xp_sched_live_object(const struct xp_sched_live *l) { return l->skel->obj; }

void xp_sched_live_close(struct xp_sched_live *l)
{
	if (!l)
		return;
	for (int tp = 0; tp < XP_TP_SCHED_MAX; tp++)
		bpf_link__destroy(l->links[tp]);
	sched_bpf__destroy(l->skel);
	free(l);
}
