/* The generic kernel side: links, sharing a ring buffer, the raw-tracepoint
 * steps, and the tracepoint capabilities' generic program family. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include "live/kernel_side.h"
#include "live/session.h"
#include "live/skel.h"
#include "live/tracefs.h"
#include "tp.skel.h"

struct xp_kside *xp_kside_new(void *skel, void (*destroy)(void *skel))
{
	struct xp_kside *k = calloc(1, sizeof(*k));

	if (k) {
		k->skel = skel;
		k->skel_destroy = destroy;
	}
	return k;
}

/*
 * Detaching a program from a classic tracepoint or a kprobe (a perf event)
 * waits for the kernel's grace period, one program after the other (the
 * kernel holds one mutex across each wait: threads would not overlap them):
 * serve's nine links take 0.5 s on an idle 2-core machine, seconds on a
 * loaded one. A wait of a second or more is said, so a slow stop is not
 * taken for a hang.
 */
int xp_kside_detach(struct xp_kside *k)
{
	int links = 0;

	if (!k)
		return 0;
	k->detached = true;
	for (int i = 0; i < XP_KSIDE_LINKS; i++) {
		if (!k->links[i])
			continue;
		bpf_link__destroy(k->links[i]);
		k->links[i] = NULL;
		links++;
	}
	if (k->on_detach)
		k->on_detach(k);
	return links;
}

void xp_kside_say_detach(const char *verb, uint64_t since_ns, int links)
{
	uint64_t took = xp_now_ns() - since_ns;

	if (verb && took >= 1000000000ull)
		fprintf(stderr, "%s: the kernel took %.1f s to detach %d programs (a grace period for each "
			"one on a tracepoint or kprobe, one after the other)\n", verb, took / 1e9, links);
}

void xp_kside_detach_all(const char *verb, struct xp_kside *const *ks, int n)
{
	uint64_t t0 = xp_now_ns();
	int links = 0;

	for (int j = 0; j < n; j++)
		links += xp_kside_detach(ks[j]);
	xp_kside_say_detach(verb, t0, links);
}

/* A BPF object's or perf event's file: what the child keeps. */
static bool kernel_side_fd(int fd)
{
	char path[40], target[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if ((n = readlink(path, target, sizeof(target) - 1)) < 0)
		return false;
	target[n] = 0;
	return !strncmp(target, "anon_inode:bpf", 14) || !strcmp(target, "anon_inode:[perf_event]");
}

void xp_kside_release_later(void)
{
	pid_t parent = getpid(), pid;
	int null;

	fflush(NULL);
	if ((pid = fork()) != 0)
		return;	/* this process, or no child: the detach is as slow as before */
	setsid();
	if ((null = open("/dev/null", O_RDWR)) >= 0)
		for (int fd = 0; fd < 3; fd++)
			dup2(null, fd);
	for (int fd = 3; fd < 4096; fd++)
		if (!kernel_side_fd(fd))
			close(fd);
	/* at most 30 s: the parent is gone, or stuck for good */
	for (int i = 0; i < 3000 && getppid() == parent; i++)
		usleep(10000);
	_exit(0);
}

void xp_map_calls_begin(struct xp_map_calls *c)
{
	struct sched_param sp = { .sched_priority = 1 };

	c->raised = false;
	if ((c->policy = sched_getscheduler(0)) < 0 || sched_getparam(0, &sp) < 0)
		return;
	c->prio = sp.sched_priority;
	if (c->policy == SCHED_FIFO || c->policy == SCHED_RR)
		return;	/* already real-time: as the user set it */
	sp.sched_priority = 1;
	c->raised = !sched_setscheduler(0, SCHED_FIFO, &sp);
}

void xp_map_calls_end(struct xp_map_calls *c)
{
	struct sched_param sp = { .sched_priority = c->prio };

	if (c->raised)
		(void)sched_setscheduler(0, c->policy, &sp);
	c->raised = false;
}

int xp_map_take(int fd, const void *key, void *val)
{
	if (!bpf_map_lookup_and_delete_elem(fd, key, val))
		return 0;
	if (bpf_map_lookup_elem(fd, key, val) || bpf_map_delete_elem(fd, key))
		return -errno;
	return 0;
}

void xp_kside_close(struct xp_kside *k)
{
	if (!k)
		return;
	xp_kside_detach(k);
	if (k->priv_free)
		k->priv_free(k->priv);
	if (k->skel && k->skel_destroy)
		k->skel_destroy(k->skel);
	free(k);
}

int xp_live_share_maps(const struct xp_live_share *s, struct bpf_map *events,
		       struct bpf_map *drops, char *why, size_t whylen)
{
	int err;

	if (!s || !s->events || !s->drops)
		return 0;
	err = bpf_map__reuse_fd(events, bpf_map__fd(s->events));
	if (!err)
		err = bpf_map__reuse_fd(drops, bpf_map__fd(s->drops));
	if (err)
		snprintf(why, whylen, "sharing the ring buffer: %s", strerror(-err));
	return err;
}

static struct bpf_program *prog(struct bpf_object *obj, const char *prefix, int i)
{
	char name[64];

	snprintf(name, sizeof(name), "xp_%s_%d", prefix, i);
	return bpf_object__find_program_by_name(obj, name);
}

int xp_rawtp_live_prepare(struct bpf_object *obj, const char *prefix,
			  const struct xp_rawtp_layout *l, struct xp_rawtp_cfg *cfg, bool filter,
			  char *why, size_t whylen)
{
	struct xp_rawtp_cfg tmp[XP_RAWTP_MAX_EV];
	struct bpf_program *p;

	xp_rawtp_cfg_fill(l, tmp);
	/* only events in the causing process's context can be filtered by process */
	for (int i = 0; filter && i < l->n; i++)
		tmp[i].filter = l->ev[i].proc_ctx;
	/* and only they say which cgroup caused them */
	for (int i = 0; i < l->n; i++)
		tmp[i].cgroup = l->ev[i].proc_ctx && tmp[i].raw_size <= XP_RAWTP_CGROUP_AT;
	memcpy(cfg, tmp, sizeof(tmp));
	for (int i = 0; i < XP_RAWTP_MAX_EV; i++) {
		p = prog(obj, prefix, i);
		if (!p && i < l->n) {
			snprintf(why, whylen, "BPF program xp_%s_%d (%s) is missing", prefix, i,
				 l->ev[i].name);
			return -ENOENT;
		}
		if (p)
			bpf_program__set_autoload(p, i < l->n && l->present[i]);
	}
	return 0;
}

int xp_rawtp_live_attach(struct xp_kside *k, const char *prefix, const struct xp_rawtp_layout *l,
			 char *why, size_t whylen)
{
	/*
	 * Last event first: the tables list a capability's events from start to
	 * end (queue, run, done; queued, delivered; create, destroy), so the end
	 * of anything seen starting is already watched. The other order loses
	 * the completions of jobs that start and end while attaching.
	 */
	for (int i = l->n - 1; i >= 0; i--) {
		int err;

		if (!l->present[i])
			continue;
		if ((err = xp_startup_stopped(why, whylen)))
			return err;
		k->links[i] = bpf_program__attach_tracepoint(prog(k->obj, prefix, i), l->group[i],
							     l->ev[i].name);
		if (!k->links[i]) {
			err = -errno;

			snprintf(why, whylen, "attaching to %s/%s: %s", l->group[i], l->ev[i].name,
				 strerror(-err));
			return err;
		}
	}
	return 0;
}

int xp_rawtp_live_layouts(struct xp_rawtp_layout *l, char *why, size_t whylen)
{
	bool mounted;
	const char *tfs = xp_tracefs(why, whylen, &mounted);
	int n;

	if (!tfs)
		return -ENODEV;
	n = xp_rawtp_layout_load(l, tfs, why, whylen);
	return n ? n : -ENOENT;
}

XP_SKEL_OPS(tp);

struct tp_ctx {
	struct xp_rawtp_layout *l;
	uint16_t rectype;
};

static int tp_configure(struct xp_kside *k, void *ctx, char *why, size_t whylen)
{
	struct tp_bpf *skel = k->skel;
	struct tp_ctx *c = ctx;

	skel->rodata->xp_tp_rectype = c->rectype;
	return xp_rawtp_live_prepare(k->obj, "tp", c->l, (struct xp_rawtp_cfg *)skel->rodata->xp_rawtp_cfg,
				     true, why, whylen);
}

static int tp_attach(struct xp_kside *k, void *ctx, char *why, size_t whylen)
{
	return xp_rawtp_live_attach(k, "tp", ((struct tp_ctx *)ctx)->l, why, whylen);
}

int xp_tp_open(struct xp_kside **out, struct xp_rawtp_layout *l, uint16_t rectype,
	       const struct xp_filters *f, const struct xp_live_share *share, char *why,
	       size_t whylen)
{
	struct tp_ctx c = { l, rectype };
	struct xp_skel_steps s = { .hook = "tracepoint", .f = f, .share = share,
				   .configure = tp_configure, .attach = tp_attach, .ctx = &c };
	int err = xp_rawtp_live_layouts(l, why, whylen);

	if (err < 0)
		return err;
	return xp_skel_open(out, &tp_skel_ops, &s, why, whylen);
}
