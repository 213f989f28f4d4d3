#include <stdlib.h>
#include <string.h>

#include "caps/ioctl/ioctl_report.h"
#include "sinks/text.h"
#include "sinks/perfetto.h"
#include "caps/ioctl/ioctl_names.h"

const char *xp_ioctl_entry_name(const struct xp_devices *d, uint32_t dev, uint32_t cmd,
				char *buf, size_t len)
{
	struct xp_devdesc dd;

	xp_devices_describe(d, dev, &dd);
	return xp_ioctl_name(dd.kind, dd.driver, cmd, buf, len);
}

void xp_ioctl_report_text(FILE *f, const struct xp_ioctl_table *t, const struct xp_devices *d,
			  const struct xp_run_info *ri, bool hist)
{
	struct xp_ioctl_entry **v = xp_ioctl_table_sorted(t);
	uint64_t calls = 0, errors = 0, untimed = 0;
	size_t nproc = 0;
	char b1[16], b2[16], b3[16], name[96], en[32];

	if (!v)
		return;
	for (size_t i = 0; i < t->n; i++) {
		calls += v[i]->calls;
		errors += v[i]->errors;
		untimed += v[i]->untimed;
		if ((i == 0 || v[i]->key.pid != v[i - 1]->key.pid) && v[i]->key.pid != XP_IOCTL_PID_OTHER)
			nproc++;
	}
	if (ri->interval)
		fprintf(f, "--- interval %llu ---\n", (unsigned long long)ri->interval);
	fprintf(f, "%s: %.1f s, %zu process%s, %llu call%s, %llu error%s, ", ri->command,
		ri->duration_s, nproc, nproc == 1 ? "" : "es", (unsigned long long)calls,
		calls == 1 ? "" : "s", (unsigned long long)errors, errors == 1 ? "" : "s");
	xp_print_drops(f, ri);
	if (untimed)
		fprintf(f, "note: %llu call%s counted at %s return only (start unseen: begun before tracing, "
			   "or a run the kernel skipped): in CALLS, not in the times\n", (unsigned long long)untimed,
			untimed == 1 ? "" : "s", untimed == 1 ? "its" : "their");
	if (t->folded_calls > t->kernel_folded)
		fprintf(f, "note: more than %zu process rows: %llu calls of the later ones are added up in the "
			   "(other) rows (--max-keys)\n", t->max_keys,
			(unsigned long long)(t->folded_calls - t->kernel_folded));
	if (t->kernel_folded)
		fprintf(f, "note: more than %d new rows in the kernel's table between two drains: %llu calls "
			   "of processes it had no room for are added up in the (other) row\n", XP_IOCTL_KERNEL_ROWS,
			(unsigned long long)t->kernel_folded);
	if (!t->n) {
		fprintf(f, "no ioctls on traced devices\n");
		free(v);
		return;
	}
	fprintf(f, "\n%-8s %-16s %-20s %-36s %8s %7s %9s %9s %9s\n", "PID", "COMM", "DEVICE",
		"IOCTL", "CALLS", "ERRORS", "P50", "P99", "MAX");
	for (size_t i = 0; i < t->n; i++) {
		const struct xp_ioctl_entry *e = v[i];
		struct xp_devdesc dd;

		xp_devices_describe(d, e->key.dev, &dd);
		xp_ioctl_name(dd.kind, dd.driver, e->key.cmd, name, sizeof(name));
		char pid[16];

		snprintf(pid, sizeof(pid), e->key.pid == XP_IOCTL_PID_OTHER ? "-" : "%u", e->key.pid);
		fprintf(f, "%-8s %-16s %-20s %-36s %8llu %7llu %9s %9s %9s\n", pid, e->comm,
			dd.name, name, (unsigned long long)e->calls, (unsigned long long)e->errors,
			/* calls all untimed: no time to show, not a time of 0 */
			e->lat.count ? xp_fmt_ns(xp_hist_percentile(&e->lat, 50), b1, sizeof(b1)) : "-",
			e->lat.count ? xp_fmt_ns(xp_hist_percentile(&e->lat, 99), b2, sizeof(b2)) : "-",
			e->lat.count ? xp_fmt_ns(e->lat.max, b3, sizeof(b3)) : "-");
		if (e->nerrnos) {
			fprintf(f, "%-8s errors:", "");
			for (int k = 0; k < e->nerrnos; k++)
				fprintf(f, " %s %llu", xp_errno_name(e->errnos[k].err, en, sizeof(en)),
					(unsigned long long)e->errnos[k].count);
			fputc('\n', f);
		}
	}
	if (hist) {
		for (size_t i = 0; i < t->n; i++) {
			const struct xp_ioctl_entry *e = v[i];

			if (!e->lat.count)	/* untimed calls only */
				continue;
			xp_ioctl_entry_name(d, e->key.dev, e->key.cmd, name, sizeof(name));
			if (e->key.pid == XP_IOCTL_PID_OTHER)
				fprintf(f, "\n%s %s latency:\n", e->comm, name);
			else
				fprintf(f, "\n%u %s %s latency:\n", e->key.pid, e->comm, name);
			xp_print_log2_hist(f, &e->lat, 2);
		}
	}
	free(v);
}

void xp_ioctl_report_json(FILE *f, const struct xp_ioctl_table *t, const struct xp_devices *d,
			  const struct xp_run_info *ri)
{
	struct xp_ioctl_entry **v = xp_ioctl_table_sorted(t);
	struct xp_json j;
	char name[96], en[32], cmdhex[16];

	if (!v)
		return;
	xp_json_begin_run(&j, f, ri);
	if (t->folded_calls) {
		xp_json_ku64(&j, "max_keys", t->max_keys);
		xp_json_ku64(&j, "folded_calls", t->folded_calls);
		if (t->kernel_folded)
			xp_json_ku64(&j, "kernel_folded_calls", t->kernel_folded);
	}
	xp_json_key(&j, "processes");
	xp_json_begin_arr(&j);
	for (size_t i = 0; i < t->n; i++) {
		const struct xp_ioctl_entry *e = v[i];
		struct xp_devdesc dd;

		if (i == 0 || e->key.pid != v[i - 1]->key.pid) {
			if (i)
				xp_json_end_arr(&j), xp_json_end_obj(&j);
			xp_json_begin_obj(&j);
			if (e->key.pid == XP_IOCTL_PID_OTHER) {
				xp_json_key(&j, "pid");	/* the (other) rows: many processes */
				xp_json_null(&j);
			} else {
				xp_json_ku64(&j, "pid", e->key.pid);
			}
			xp_json_kstr(&j, "comm", e->comm);
			xp_json_key(&j, "ioctls");
			xp_json_begin_arr(&j);
		}
		xp_devices_describe(d, e->key.dev, &dd);
		xp_ioctl_name(dd.kind, dd.driver, e->key.cmd, name, sizeof(name));
		snprintf(cmdhex, sizeof(cmdhex), "0x%08x", e->key.cmd);
		xp_json_begin_obj(&j);
		xp_json_kstr(&j, "device", dd.name);
		xp_json_kstr(&j, "driver", dd.driver);
		xp_json_kstr(&j, "cmd", cmdhex);
		xp_json_kstr(&j, "name", name);
		xp_json_ku64(&j, "calls", e->calls);
		xp_json_ku64(&j, "errors", e->errors);
		if (e->untimed)	/* counted at their return: in calls, not in latency_ns */
			xp_json_ku64(&j, "untimed", e->untimed);
		xp_json_key(&j, "errnos");
		xp_json_begin_obj(&j);
		for (int k = 0; k < e->nerrnos; k++)
			xp_json_ku64(&j, xp_errno_name(e->errnos[k].err, en, sizeof(en)),
				     e->errnos[k].count);
		xp_json_end_obj(&j);
		xp_json_khist(&j, "latency_ns", &e->lat);
		xp_json_end_obj(&j);
	}
	if (t->n)
		xp_json_end_arr(&j), xp_json_end_obj(&j);
	xp_json_end_arr(&j);
	xp_json_end_obj(&j);
	xp_json_finish(&j);
	free(v);
}

void xp_ioctl_stream_header(FILE *f)
{
	fprintf(f, "%-12s %-8s %-8s %-16s %-20s %-36s %10s %s\n", "TIME(s)", "PID", "TID", "COMM",
		"DEVICE", "IOCTL", "LATENCY", "RESULT");
}

/* Appends s left-aligned in `width` columns, then a space. */
static char *put_col(char *p, const char *s, size_t max, int width)
{
	size_t n = strnlen(s, max);

	memcpy(p, s, n);
	for (; (int)n < width; n++)
		p[n] = ' ';
	p[n] = ' ';
	return p + n + 1;
}

/*
 * The device and ioctl columns of a stream line, cached per (device, command):
 * naming is the costly part of a line and the same few pairs repeat.
 */
#define NAME_CACHE 256
static struct name_slot {
	const struct xp_devices *d;
	uint32_t dev, cmd;
	char cols[176];	/* device (64) and name (96) columns */
	uint8_t len;
} name_cache[NAME_CACHE];

static const struct name_slot *stream_names(const struct xp_devices *d, uint32_t dev, uint32_t cmd)
{
	struct name_slot *s = &name_cache[(dev * 31u + cmd * 2654435761u) % NAME_CACHE];
	char name[96], *p;
	struct xp_devdesc dd;

	if (s->d == d && s->dev == dev && s->cmd == cmd && s->len)
		return s;
	xp_devices_describe(d, dev, &dd);
	xp_ioctl_name(dd.kind, dd.driver, cmd, name, sizeof(name));
	p = put_col(s->cols, dd.name, sizeof(dd.name), 20);
	p = put_col(p, name, sizeof(name), 36);
	s->len = (uint8_t)(p - s->cols);
	s->d = d;
	s->dev = dev;
	s->cmd = cmd;
	return s;
}

/* A right-aligned column of `width`, then a space. */
static char *put_rcol(char *p, const char *s, int width)
{
	int n = (int)strlen(s);

	for (; n < width; width--)
		*p++ = ' ';
	memcpy(p, s, (size_t)n);
	p[n] = ' ';
	return p + n + 1;
}

static char *put_ucol(char *p, uint64_t v, int width)
{
	char tmp[24];

	*xp_put_u64(tmp, v) = '\0';
	return put_col(p, tmp, sizeof(tmp), width);
}

/* Built by hand rather than with printf: this runs for every traced call. */
void xp_ioctl_stream_text(FILE *f, const struct xp_ioctl_rec *r, const struct xp_devices *d,
			  uint64_t t0)
{
	const struct name_slot *names = stream_names(d, r->dev, r->cmd);
	char line[320], tmp[32], *p = line;

	/* a call that began before tracing did has a negative time, never a wrapped one */
	*xp_put_rel_s(tmp, r->hdr.ts_ns, t0) = '\0';
	p = put_col(p, tmp, sizeof(tmp), 12);
	p = put_ucol(p, r->hdr.pid, 8);
	p = put_ucol(p, r->hdr.tid, 8);
	p = put_col(p, r->comm, XP_COMM_LEN, 16);
	memcpy(p, names->cols, names->len);
	p += names->len;
	p = put_rcol(p, r->lat_ns == XP_IOCTL_UNTIMED ? "-" : xp_fmt_ns(r->lat_ns, tmp, sizeof(tmp)), 10);
	if (r->ret < 0) {
		xp_errno_name(0u - (uint32_t)r->ret, tmp, sizeof(tmp));
		p = put_col(p, tmp, sizeof(tmp), 0);
	} else {
		p = put_ucol(p, (uint64_t)r->ret, 0);
	}
	p[-1] = '\n';
	fwrite(line, 1, (size_t)(p - line), f);
}

void xp_ioctl_stream_json(struct xp_json *j, const struct xp_ioctl_rec *r,
			  const struct xp_devices *d, uint64_t t0)
{
	char name[96], cmdhex[16], comm[XP_COMM_LEN];
	struct xp_devdesc dd;

	xp_devices_describe(d, r->dev, &dd);
	xp_ioctl_name(dd.kind, dd.driver, r->cmd, name, sizeof(name));
	snprintf(cmdhex, sizeof(cmdhex), "0x%08x", r->cmd);
	memcpy(comm, r->comm, sizeof(comm));
	comm[XP_COMM_LEN - 1] = '\0';
	xp_json_begin_obj(j);
	xp_json_kstr(j, "event", "ioctl");
	xp_json_ki64(j, "ts_ns", xp_rel_ns(r->hdr.ts_ns, t0));	/* negative: began before tracing */
	xp_json_ku64(j, "pid", r->hdr.pid);
	xp_json_ku64(j, "tid", r->hdr.tid);
	xp_json_kstr(j, "comm", comm);
	xp_json_kstr(j, "device", dd.name);
	xp_json_kstr(j, "cmd", cmdhex);
	xp_json_kstr(j, "name", name);
	xp_json_ki64(j, "fd", r->fd);
	xp_json_ki64(j, "ret", r->ret);
	if (r->lat_ns == XP_IOCTL_UNTIMED) {	/* its start unseen: ts_ns is its return */
		xp_json_key(j, "latency_ns");
		xp_json_null(j);
	} else {
		xp_json_ku64(j, "latency_ns", r->lat_ns);
	}
	xp_json_end_obj(j);
	xp_json_finish(j);
}

/*
 * The device and name of (dev, cmd) of the devices table d, remembered for
 * the next calls alike: an export meets the same few commands a million
 * times, and naming one formats strings.
 */
struct named_cmd {
	const struct xp_devices *d;
	uint32_t dev, cmd;
	struct xp_devdesc dd;
	char name[96];
};

static const struct named_cmd *name_cmd(const struct xp_devices *d, uint32_t dev, uint32_t cmd)
{
	static struct named_cmd cache[16];	/* export runs on one thread */
	struct named_cmd *c = &cache[(dev * 31u + cmd * 0x9e3779b1u) >> 28];

	if (c->d != d || c->dev != dev || c->cmd != cmd || !c->name[0]) {
		c->d = d;
		c->dev = dev;
		c->cmd = cmd;
		xp_devices_describe(d, dev, &c->dd);
		xp_ioctl_name(c->dd.kind, c->dd.driver, cmd, c->name, sizeof(c->name));
	}
	return c;
}

/* Its Perfetto events (src/sinks/perfetto.h). */
void xp_perfetto_ioctl(struct xp_perfetto *p, const struct xp_ioctl_rec *r,
		       const struct xp_devices *d)
{
	char cmdhex[16], comm[XP_COMM_LEN], res[32];
	const struct named_cmd *nc = name_cmd(d, r->dev, r->cmd);

	memcpy(comm, r->comm, sizeof(comm));
	comm[XP_COMM_LEN - 1] = '\0';
	xp_perfetto_name(p, r->hdr.pid, r->hdr.tid, comm);
	/* a call whose start went unseen: an empty slice at its return */
	xp_perfetto_slice_begin(p, r->hdr.pid, r->hdr.tid, "ioctl", nc->name, r->hdr.ts_ns,
				r->lat_ns == XP_IOCTL_UNTIMED ? 0 : r->lat_ns);
	if (!xp_perfetto_args(p)) {	/* the protobuf format keeps no args: no need to format them */
		xp_perfetto_slice_end(p);
		return;
	}
	snprintf(cmdhex, sizeof(cmdhex), "0x%08x", r->cmd);
	xp_json_kstr(&p->j, "device", nc->dd.name);
	xp_json_kstr(&p->j, "cmd", cmdhex);
	xp_json_ki64(&p->j, "fd", r->fd);
	if (r->ret < 0)
		xp_json_kstr(&p->j, "error", xp_errno_name(0u - (uint32_t)r->ret, res, sizeof(res)));
	else
		xp_json_ki64(&p->j, "ret", r->ret);
	xp_perfetto_slice_end(p);
}
