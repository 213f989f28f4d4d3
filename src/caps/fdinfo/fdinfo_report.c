/* fdinfo summary: devices, clients' engines, clients' memory; text and JSON. */
#include <inttypes.h>
#include <string.h>

#include "caps/fdinfo/fdinfo_report.h"
#include "sinks/text.h"

#define MAX_DEVS 64

static struct xp_fdi_dev *dev_of(struct xp_fdi_dev *d, int *n, int max, const struct xp_fdi_client *c)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(d[i].pdev, c->pdev) && !strcmp(d[i].driver, c->driver))
			return &d[i];
	if (*n >= max)
		return NULL;
	memset(&d[*n], 0, sizeof(d[0]));
	d[*n].pdev = c->pdev;
	d[*n].driver = c->driver;
	return &d[(*n)++];
}

static void dev_add(struct xp_fdi_dev *d, const struct xp_fdi_client *c)
{
	d->clients++;
	for (int e = 0; e < c->neng; e++) {
		int k;

		if (c->eng[e].src == XP_FDI_SRC_NONE)
			continue;
		for (k = 0; k < d->neng && strcmp(d->eng[k].name, c->eng[e].name); k++)
			;
		if (k == d->neng) {
			if (d->neng == XP_FDI_MAX_ENGINES)
				continue;
			d->eng[d->neng++].name = c->eng[e].name;
		}
		d->eng[k].busy_ns += c->eng[e].busy_ns;
		if (c->eng[e].capacity > d->eng[k].capacity)
			d->eng[k].capacity = c->eng[e].capacity;
	}
	for (int g = 0; g < c->nreg && !c->closed; g++) {
		int k;

		for (k = 0; k < d->nreg && strcmp(d->reg[k].name, c->reg[g].name); k++)
			;
		if (k == d->nreg) {
			if (d->nreg == XP_FDI_MAX_REGIONS)
				continue;
			memcpy(d->reg[d->nreg++].name, c->reg[g].name, XP_FDI_NAME);
		}
		for (int kind = 0; kind < XP_FDI_NKINDS; kind++)
			d->reg[k].bytes[kind] += c->reg[g].bytes[kind];
		d->reg[k].have |= c->reg[g].have;
	}
}

int xp_fdi_devices(const struct xp_fdi_stats *s, struct xp_fdi_dev *d, int max)
{
	int n = 0;

	for (int i = 0; i < s->n; i++) {
		struct xp_fdi_dev *dv = dev_of(d, &n, max, &s->c[i]);

		if (dv)
			dev_add(dv, &s->c[i]);
	}
	return n;
}

static uint64_t elapsed_ns(const struct xp_fdi_report *r)
{
	return (uint64_t)(r->ri->duration_s * 1e9);
}

static const char *pdev_name(const char *pdev)
{
	return pdev[0] ? pdev : "-";
}

static void text_head(FILE *f, const struct xp_fdi_report *r, int ndev)
{
	const struct xp_fdi_stats *s = r->st;
	int closed = 0;
	uint64_t procs = 0;

	/* the processes shown: each client's (lowest) pid, once */
	for (int i = 0; i < s->n; i++) {
		bool seen = false;

		closed += s->c[i].closed;
		for (int k = 0; k < i && !seen; k++)
			seen = s->c[k].pid == s->c[i].pid;
		procs += !seen;
	}
	fprintf(f, "fdinfo: %" PRIu64 " sample%s over %.2f s: ", s->samples, s->samples == 1 ? "" : "s",
		r->ri->duration_s);
	if (!s->n)
		fprintf(f, "no process%s has a DRM or accel device open%s\n", s->unreadable ? " it could read" : "",
			r->filtered ? " (of those filtered)" : "");
	else
		fprintf(f, "%d DRM client%s (%d gone) in %" PRIu64 " process%s, %d device%s\n", s->n,
			s->n == 1 ? "" : "s", closed, procs, procs == 1 ? "" : "es", ndev, ndev == 1 ? "" : "s");
	if (s->unreadable)
		fprintf(f, "note: %" PRIu64 " process%s' descriptors could not be read (permission denied, e.g. pid %"
			   PRIu64 "): run as root to see every process\n", s->unreadable,
			s->unreadable == 1 ? "" : "es", s->unreadable_pid);
	if (s->nostats)
		fprintf(f, "note: %" PRIu64 " DRM descriptor%s without usage stats (the driver writes none)\n",
			s->nostats, s->nostats == 1 ? "" : "s");
	if (s->unknown_keys)
		fprintf(f, "note: %" PRIu64 " drm-* key%s not understood, skipped\n", s->unknown_keys,
			s->unknown_keys == 1 ? "" : "s");
	if (s->over || s->lost_clients)
		fprintf(f, "note: %" PRIu64 " engines or regions and %" PRIu64 " clients past the limits, left out\n",
			s->over, s->lost_clients);
}

static void text_devices(FILE *f, const struct xp_fdi_report *r, const struct xp_fdi_dev *d, int n)
{
	char b[16];

	fprintf(f, "\n%-14s %-10s %7s  %-14s %9s %7s %4s\n", "DEVICE", "DRIVER", "CLIENTS", "ENGINE", "BUSY_S",
		"BUSY%", "CAP");
	for (int i = 0; i < n; i++) {
		fprintf(f, "%-14s %-10s %7d", pdev_name(d[i].pdev), d[i].driver, d[i].clients);
		if (!d[i].neng)
			fprintf(f, "  %-14s %9s %7s %4s\n", "-", "-", "-", "-");
		for (int e = 0; e < d[i].neng; e++)
			fprintf(f, "%*s%-14s %9.3f %7.1f %4u\n", e ? 35 : 2, "", d[i].eng[e].name,
				(double)d[i].eng[e].busy_ns / 1e9,
				xp_fdi_pct(d[i].eng[e].busy_ns, elapsed_ns(r), d[i].eng[e].capacity), d[i].eng[e].capacity);
		for (int g = 0; g < d[i].nreg; g++) {
			fprintf(f, "  memory %-10s", d[i].reg[g].name);
			for (int k = 0, n = 0; k < XP_FDI_NKINDS; k++)
				if (d[i].reg[g].have & (1u << k))
					fprintf(f, "%s %s %s", n++ ? "," : "", xp_fdi_kind_names[k],
						xp_fmt_bytes(d[i].reg[g].bytes[k], b, sizeof(b)));
			fputc('\n', f);
		}
	}
}

static void text_pid(FILE *f, const struct xp_fdi_client *c)
{
	char p[24];

	snprintf(p, sizeof(p), "%u%s", c->pid, c->closed ? "*" : c->nproc > 1 ? "+" : "");
	fprintf(f, "%-9s %-16s %6" PRIu64 "  %-14s", p, c->comm, c->id, pdev_name(c->pdev));
}

static void text_clients(FILE *f, const struct xp_fdi_report *r)
{
	const struct xp_fdi_stats *s = r->st;
	bool gone = false, shared = false;

	fprintf(f, "\n%-9s %-16s %6s  %-14s %-14s %9s %7s  %s\n", "PID", "COMM", "CLIENT", "DEVICE", "ENGINE",
		"BUSY_S", "BUSY%", "CGROUP");
	for (int i = 0; i < s->n; i++) {
		const struct xp_fdi_client *c = &s->c[i];
		int rows = 0;

		gone |= c->closed;
		shared |= c->nproc > 1;
		for (int e = 0; e < c->neng; e++) {
			if (c->eng[e].src == XP_FDI_SRC_NONE)
				continue;
			text_pid(f, c);
			fprintf(f, " %-14s %9.3f %7.1f  %s\n", c->eng[e].name, (double)c->eng[e].busy_ns / 1e9,
				xp_fdi_pct(c->eng[e].busy_ns, elapsed_ns(r), c->eng[e].capacity), c->cgroup);
			rows++;
		}
		if (!rows) {
			text_pid(f, c);
			fprintf(f, " %-14s %9s %7s  %s\n", "-", "-", "-", c->cgroup);
		}
	}
	if (gone)
		fprintf(f, "* gone at the last sample (closed, or its process exited): what it used is kept\n");
	if (shared)
		fprintf(f, "+ shared with other processes (the lowest pid shown), counted once\n");
}

static void text_memory(FILE *f, const struct xp_fdi_stats *s)
{
	char b[XP_FDI_NKINDS][16];
	bool head = false;

	for (int i = 0; i < s->n; i++) {
		const struct xp_fdi_client *c = &s->c[i];

		for (int g = 0; g < c->nreg; g++) {
			if (!head)
				fprintf(f, "\n%-9s %-16s %6s  %-10s %10s %10s %10s %10s %10s\n", "PID", "COMM", "CLIENT",
					"REGION", "TOTAL", "SHARED", "RESIDENT", "PURGEABLE", "ACTIVE");
			head = true;
			fprintf(f, "%-9u %-16s %6" PRIu64 "  %-10s", c->pid, c->comm, c->id, c->reg[g].name);
			for (int k = 0; k < XP_FDI_NKINDS; k++)
				fprintf(f, " %10s", c->reg[g].have & (1u << k) ? xp_fmt_bytes(c->reg[g].bytes[k], b[k], 16)
									  : "-");
			fputc('\n', f);
		}
	}
}

void xp_fdi_report_text(FILE *f, const struct xp_fdi_report *r)
{
	struct xp_fdi_dev d[MAX_DEVS];
	int n = xp_fdi_devices(r->st, d, MAX_DEVS);

	xp_print_drops(f, r->ri);
	text_head(f, r, n);
	if (!r->st->n)
		return;
	text_devices(f, r, d, n);
	text_clients(f, r);
	text_memory(f, r->st);
}

static void json_regions(struct xp_json *j, const struct xp_fdi_region *reg, int n)
{
	xp_json_key(j, "memory");
	xp_json_begin_arr(j);
	for (int g = 0; g < n; g++) {
		xp_json_begin_obj(j);
		xp_json_kstr(j, "region", reg[g].name);
		for (int k = 0; k < XP_FDI_NKINDS; k++)
			if (reg[g].have & (1u << k))
				xp_json_ku64(j, xp_fdi_kind_names[k], reg[g].bytes[k]);
		xp_json_end_obj(j);
	}
	xp_json_end_arr(j);
}

static void json_engine(struct xp_json *j, const char *name, uint64_t ns, uint64_t elapsed, uint32_t cap)
{
	xp_json_kstr(j, "engine", name);
	xp_json_kdouble(j, "busy_s", (double)ns / 1e9);
	xp_json_kdouble(j, "busy_pct", xp_fdi_pct(ns, elapsed, cap));
	xp_json_ku64(j, "capacity", cap);
}

static void json_devices(struct xp_json *j, const struct xp_fdi_report *r, const struct xp_fdi_dev *d, int n)
{
	xp_json_key(j, "devices");
	xp_json_begin_arr(j);
	for (int i = 0; i < n; i++) {
		xp_json_begin_obj(j);
		xp_json_kstr(j, "pdev", d[i].pdev);
		xp_json_kstr(j, "driver", d[i].driver);
		xp_json_ku64(j, "clients", (uint64_t)d[i].clients);
		xp_json_key(j, "engines");
		xp_json_begin_arr(j);
		for (int e = 0; e < d[i].neng; e++) {
			xp_json_begin_obj(j);
			json_engine(j, d[i].eng[e].name, d[i].eng[e].busy_ns, elapsed_ns(r), d[i].eng[e].capacity);
			xp_json_end_obj(j);
		}
		xp_json_end_arr(j);
		json_regions(j, d[i].reg, d[i].nreg);
		xp_json_end_obj(j);
	}
	xp_json_end_arr(j);
}

static void json_client(struct xp_json *j, const struct xp_fdi_report *r, const struct xp_fdi_client *c)
{
	xp_json_begin_obj(j);
	xp_json_ku64(j, "client_id", c->id);
	xp_json_kstr(j, "pdev", c->pdev);
	xp_json_kstr(j, "driver", c->driver);
	xp_json_kstr(j, "name", c->name);
	xp_json_ku64(j, "pid", c->pid);
	xp_json_kstr(j, "comm", c->comm);
	xp_json_ku64(j, "processes", c->nproc);
	xp_json_kstr(j, "cgroup", c->cgroup);
	xp_json_kbool(j, "gone", c->closed);
	xp_json_key(j, "engines");
	xp_json_begin_arr(j);
	for (int e = 0; e < c->neng; e++) {
		if (c->eng[e].src == XP_FDI_SRC_NONE)
			continue;
		xp_json_begin_obj(j);
		json_engine(j, c->eng[e].name, c->eng[e].busy_ns, elapsed_ns(r), c->eng[e].capacity);
		xp_json_kstr(j, "from", xp_fdi_src_name(c->eng[e].src));
		xp_json_end_obj(j);
	}
	xp_json_end_arr(j);
	json_regions(j, c->reg, c->nreg);
	xp_json_end_obj(j);
}

void xp_fdi_report_json(FILE *f, const struct xp_fdi_report *r)
{
	const struct xp_fdi_stats *s = r->st;
	struct xp_fdi_dev d[MAX_DEVS];
	int n = xp_fdi_devices(s, d, MAX_DEVS);
	struct xp_json j;

	xp_json_begin_run(&j, f, r->ri);
	xp_json_ku64(&j, "samples", s->samples);
	xp_json_ku64(&j, "processes", s->procs);
	xp_json_ku64(&j, "unreadable_processes", s->unreadable);
	xp_json_ku64(&j, "descriptors_without_stats", s->nostats);
	xp_json_ku64(&j, "unknown_keys", s->unknown_keys);
	xp_json_ku64(&j, "left_out", s->over + s->lost_clients);
	json_devices(&j, r, d, n);
	xp_json_key(&j, "clients");
	xp_json_begin_arr(&j);
	for (int i = 0; i < s->n; i++)
		json_client(&j, r, &s->c[i]);
	xp_json_end_arr(&j);
	xp_json_end_obj(&j);
	xp_json_finish(&j);
}
