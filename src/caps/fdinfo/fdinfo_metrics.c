/* fdinfo's metrics for `xputrace serve`. */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "caps/fdinfo/fdinfo_metrics.h"

struct label_ctx {
	const struct xp_fdinfo_metrics *x;
	const struct xp_fdi_client *c;
	uint64_t cg;
	const char *engine, *region, *kind;
};

static void labels(void *p, char *buf, size_t len)
{
	const struct label_ctx *l = p;

	xp_metrics_task_labels(&l->x->in, l->cg, l->c->pid, l->c->comm, buf, len);
	xp_labels_add(buf, len, "device", l->c->pdev[0] ? l->c->pdev : l->c->driver);
	xp_labels_add(buf, len, "driver", l->c->driver);
	if (l->engine) {
		xp_labels_add(buf, len, "engine", l->engine);
		xp_labels_add(buf, len, "source", "fdinfo");
	} else {
		xp_labels_add(buf, len, "region", l->region);
		xp_labels_add(buf, len, "kind", l->kind);
	}
}

static uint64_t name_key(const char *a, const char *b, const char *c)
{
	uint64_t h = 1469598103934665603ull;
	const char *s[3] = { a, b, c };

	for (int i = 0; i < 3; i++) {
		for (const char *p = s[i]; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ull;
		h = (h ^ 0x1f) * 1099511628211ull;
	}
	return h;
}

int xp_fdinfo_metrics_init(struct xp_fdinfo_metrics *x, const struct xp_metrics_in *in, const struct xp_filters *f)
{
	struct xp_metrics *m = in->m;
	int err;

	x->in = *in;
	if ((err = xp_fdinfo_state_new(f, &x->s)))
		return err;
	/* the family sched declares too: one family, its series told apart by `source` */
	x->busy = xp_metrics_family(m, "xputrace_gpu_busy_seconds", XP_GPU_BUSY_HELP,
				    "seconds", XP_METRIC_COUNTER, 1e-9, true);
	x->mem = xp_metrics_family(m, "xputrace_gpu_memory_bytes", "GPU memory of the DRM clients a cgroup's "
				   "processes hold, per device, region and kind (total, shared, resident, "
				   "purgeable, active), from the drivers' fdinfo", "bytes", XP_METRIC_GAUGE, 1, true);
	return x->busy < 0 || x->mem < 0 ? -ENOMEM : 0;
}

static int put_client(struct xp_fdinfo_metrics *x, const struct xp_fdi_client *c)
{
	struct xp_metrics *m = x->in.m;
	uint64_t cg = c->cgroup_id ? c->cgroup_id : xp_metrics_pid_cgroup(&x->in, c->pid, 0);
	uint64_t pid = x->in.per_process ? c->pid : 0;
	struct label_ctx l = { x, c, cg, NULL, NULL, NULL };

	for (int e = 0; e < c->neng; e++) {
		struct xp_metric_key k = { { cg, pid, name_key(c->pdev, c->driver, c->eng[e].name), 1 } };
		struct xp_series *s;

		if (!c->eng[e].delta_ns)
			continue;
		l.engine = c->eng[e].name;
		if (!(s = xp_metrics_series(m, x->busy, &k, labels, &l)))
			return -ENOMEM;
		s->value += c->eng[e].delta_ns;
	}
	l.engine = NULL;
	for (int g = 0; g < c->nreg && !c->closed; g++)
		for (int kind = 0; kind < XP_FDI_NKINDS; kind++) {
			struct xp_metric_key k = { { cg, pid, name_key(c->pdev, c->driver, c->reg[g].name),
						     (uint64_t)kind } };
			struct xp_series *s;

			if (!(c->reg[g].have & (1u << kind)))
				continue;
			l.region = c->reg[g].name;
			l.kind = xp_fdi_kind_names[kind];
			if (!(s = xp_metrics_series(m, x->mem, &k, labels, &l)))
				return -ENOMEM;
			s->value += c->reg[g].bytes[kind];
		}
	return 0;
}

int xp_fdinfo_metrics_put(struct xp_fdinfo_metrics *x)
{
	const struct xp_fdi_stats *st = &x->s->st;
	int err;

	/* gauges: what the clients open now hold, nothing of those gone */
	for (struct xp_series *s = x->in.m->fams[x->mem].first; s; s = s->next)
		s->value = 0;
	if (x->in.m->fams[x->mem].other)
		x->in.m->fams[x->mem].other->value = 0;
	for (int i = 0; i < st->n; i++)
		if ((err = put_client(x, &st->c[i])))
			return err;
	/* gone clients are counted: the accounting forgets them */
	xp_fdi_reset(&x->s->st);
	return 0;
}

int xp_fdinfo_metrics_sample(struct xp_fdinfo_metrics *x, uint64_t (*clock_ns)(void))
{
	uint64_t gen = x->s->st.gen;
	int err = xp_fdinfo_tick(x->s, true, clock_ns);

	return err || gen == x->s->st.gen ? err : xp_fdinfo_metrics_put(x);
}

void xp_fdinfo_metrics_free(struct xp_fdinfo_metrics *x)
{
	xp_fdinfo_state_free(x->s);
	x->s = NULL;
}
