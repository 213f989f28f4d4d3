#include <stdlib.h>
#include <string.h>

#include "sinks/ioctl_report.h"
#include "sinks/mem_report.h"
#include "sinks/perfetto.h"
#include "sinks/text.h"

static size_t slot_of(const struct xp_perfetto *p, uint32_t pid, uint32_t tid)
{
	size_t i = ((uint64_t)pid * 0x9e3779b1u ^ tid * 0x85ebca6bu) & (p->cap - 1);

	while (p->threads[i].tid && (p->threads[i].pid != pid || p->threads[i].tid != tid))
		i = (i + 1) & (p->cap - 1);
	return i;
}

static bool grow(struct xp_perfetto *p)
{
	struct xp_perfetto_thread *old = p->threads;
	size_t oldcap = p->cap;

	p->cap = oldcap ? oldcap * 2 : 256;
	p->threads = calloc(p->cap, sizeof(*p->threads));
	if (!p->threads) {
		p->threads = old;
		p->cap = oldcap;
		return false;
	}
	for (size_t i = 0; i < oldcap; i++)
		if (old[i].tid)
			p->threads[slot_of(p, old[i].pid, old[i].tid)] = old[i];
	free(old);
	return true;
}

void xp_perfetto_name(struct xp_perfetto *p, uint32_t pid, uint32_t tid, const char *name)
{
	size_t i;

	if (!tid)
		tid = pid;	/* slot marker: tid 0 is the idle task, shown as its pid */
	if (!tid)
		return;
	if ((p->n + 1) * 2 > p->cap && !grow(p)) {
		p->oom = true;
		return;
	}
	i = slot_of(p, pid, tid);
	if (p->threads[i].tid)
		return;
	p->threads[i].pid = pid;
	p->threads[i].tid = tid;
	snprintf(p->threads[i].name, sizeof(p->threads[i].name), "%s", name);
	p->n++;
}

void xp_perfetto_begin(struct xp_perfetto *p, FILE *f, uint64_t t0_ns)
{
	memset(p, 0, sizeof(*p));
	p->t0 = t0_ns;
	xp_json_init(&p->j, f, false);
	xp_json_begin_obj(&p->j);
	xp_json_key(&p->j, "traceEvents");
	xp_json_begin_arr(&p->j);
}

static void ts_key(struct xp_perfetto *p, const char *key, uint64_t ts_ns)
{
	xp_json_key(&p->j, key);
	xp_json_fixed(&p->j, ts_ns > p->t0 ? ts_ns - p->t0 : 0, 3);
}

static void event_head(struct xp_perfetto *p, const char *ph, uint32_t pid, uint32_t tid,
		       uint64_t ts_ns)
{
	xp_json_begin_obj(&p->j);
	xp_json_kstr(&p->j, "ph", ph);
	xp_json_ku64(&p->j, "pid", pid);
	xp_json_ku64(&p->j, "tid", tid);
	ts_key(p, "ts", ts_ns);
	p->events++;
}

void xp_perfetto_track(struct xp_perfetto *p, const char *group, uint32_t id, const char *name,
		       uint32_t *pid, uint32_t *tid)
{
	int g;

	for (g = 0; g < p->ngroups; g++)
		if (!strcmp(p->groups[g], group))
			break;
	if (g == p->ngroups && g < (int)(sizeof(p->groups) / sizeof(p->groups[0]))) {
		snprintf(p->groups[g], sizeof(p->groups[g]), "%s", group);
		p->ngroups++;
	}
	*pid = XP_PERFETTO_TRACK_PID0 + (uint32_t)g;
	*tid = id + 1;	/* tid 0 would mark an empty slot */
	xp_perfetto_name(p, *pid, *tid, name);
}

void xp_perfetto_slice_begin(struct xp_perfetto *p, uint32_t pid, uint32_t tid, const char *cat,
			     const char *name, uint64_t ts_ns, uint64_t dur_ns)
{
	uint64_t start = ts_ns > p->t0 ? ts_ns : p->t0;

	/* a slice begun before t0 is cut at t0, its end kept */
	if (ts_ns + dur_ns < start)
		dur_ns = 0;
	else
		dur_ns = ts_ns + dur_ns - start;
	event_head(p, "X", pid, tid, start);
	xp_json_key(&p->j, "dur");
	xp_json_fixed(&p->j, dur_ns, 3);
	xp_json_kstr(&p->j, "cat", cat);
	xp_json_kstr(&p->j, "name", name);
	xp_json_key(&p->j, "args");
	xp_json_begin_obj(&p->j);
}

void xp_perfetto_slice_end(struct xp_perfetto *p)
{
	xp_json_end_obj(&p->j);	/* args */
	xp_json_end_obj(&p->j);
}

void xp_perfetto_flow(struct xp_perfetto *p, uint64_t id, bool start, uint32_t pid, uint32_t tid,
		      uint64_t ts_ns)
{
	event_head(p, start ? "s" : "f", pid, tid, ts_ns);
	xp_json_kstr(&p->j, "cat", "flow");
	xp_json_kstr(&p->j, "name", "submit");
	xp_json_ku64(&p->j, "id", id);
	if (!start)
		xp_json_kstr(&p->j, "bp", "e");	/* bind to the slice enclosing ts */
	xp_json_end_obj(&p->j);
}

void xp_perfetto_instant_begin(struct xp_perfetto *p, uint32_t pid, uint32_t tid, const char *cat,
			       const char *name, uint64_t ts_ns)
{
	event_head(p, "i", pid, tid, ts_ns);
	xp_json_kstr(&p->j, "s", "t");
	xp_json_kstr(&p->j, "cat", cat);
	xp_json_kstr(&p->j, "name", name);
	xp_json_key(&p->j, "args");
	xp_json_begin_obj(&p->j);
}

void xp_perfetto_async(struct xp_perfetto *p, bool begin, uint32_t pid, uint32_t tid,
		       const char *cat, const char *name, uint64_t id, uint64_t ts_ns)
{
	event_head(p, begin ? "b" : "e", pid, tid, ts_ns);
	xp_json_kstr(&p->j, "cat", cat);
	xp_json_kstr(&p->j, "name", name);
	xp_json_ku64(&p->j, "id", id);
	xp_json_end_obj(&p->j);
}

static struct xp_perfetto_ring *ring_of(struct xp_perfetto *p, const char *name, int *idx)
{
	int i;

	for (i = 0; i < p->nrings; i++)
		if (!strcmp(p->rings[i].name, name))
			break;
	if (i == p->nrings && p->nrings < XP_SCHED_MAX_RINGS)
		snprintf(p->rings[p->nrings++].name, sizeof(p->rings[0].name), "%s", name);
	else if (i == p->nrings)	/* more rings than the analysis keeps apart */
		snprintf(p->rings[i].name, sizeof(p->rings[0].name), "(other)");
	*idx = i;
	return &p->rings[i];
}

void xp_perfetto_sched_job(struct xp_perfetto *p, const struct xp_sched_job_info *j)
{
	char name[64], track[XP_SCHED_STR + 16];
	uint32_t pid, tid;
	uint64_t start = j->has_run ? j->run_ts : j->done_ts, id;
	struct xp_perfetto_ring *r;
	int ri, lane;

	r = ring_of(p, j->ring && j->ring[0] ? j->ring : "(unknown ring)", &ri);
	/* a lane whose last job ended before this one ran: slices on a track nest */
	for (lane = 0; lane < XP_PERFETTO_LANES - 1; lane++)
		if (r->lane_end[lane] <= start)
			break;
	if (r->lane_end[lane] > start)
		return;	/* more overlap than lanes: a slice would break the track's nesting */
	r->lane_end[lane] = j->done_ts;
	if (lane)
		snprintf(track, sizeof(track), "%s (%d)", r->name, lane + 1);
	else
		snprintf(track, sizeof(track), "%s", r->name);
	xp_perfetto_track(p, "GPU rings", (uint32_t)(ri * XP_PERFETTO_LANES + lane), track, &pid, &tid);
	id = ++p->next_id;
	snprintf(name, sizeof(name), "%s", j->comm[0] ? j->comm : "job");
	xp_perfetto_slice_begin(p, pid, tid, "gpu_job", name, start, j->done_ts - start);
	xp_json_kstr(&p->j, "ring", r->name);
	if (j->has_queue) {
		xp_json_ku64(&p->j, "pid", j->pid);
		xp_json_kstr(&p->j, "comm", j->comm);
	}
	if (j->gen == 2) {
		xp_json_ku64(&p->j, "fence_context", j->k1);
		xp_json_ku64(&p->j, "fence_seqno", j->k2);
	} else {
		xp_json_ku64(&p->j, "job_id", j->k2);
	}
	if (j->has_client)
		xp_json_ku64(&p->j, "client_id", j->client_id);
	if (j->has_queue && j->has_run && j->run_ts >= j->q_ts)
		xp_json_ku64(&p->j, "queue_delay_ns", j->run_ts - j->q_ts);
	if (j->deps)
		xp_json_ku64(&p->j, "deps", j->deps);
	if (j->inferred)
		xp_json_kbool(&p->j, "done_inferred", true);
	xp_perfetto_slice_end(p);
	if (!j->has_queue || j->q_ts > start)
		return;
	/* a job whose done was lost (inferred) has no known run: no queued span */
	if (j->has_run) {
		xp_perfetto_async(p, true, pid, tid, "gpu_queue", "queued", id, j->q_ts);
		xp_perfetto_async(p, false, pid, tid, "gpu_queue", "queued", id, j->run_ts);
	}
	/* the submitter: a zero-length slice for the arrow to start from */
	xp_perfetto_name(p, j->pid, j->tid, j->comm);
	xp_perfetto_slice_begin(p, j->pid, j->tid, "gpu_submit", "submit", j->q_ts, 0);
	xp_json_kstr(&p->j, "ring", r->name);
	xp_perfetto_slice_end(p);
	xp_perfetto_flow(p, id, true, j->pid, j->tid, j->q_ts);
	xp_perfetto_flow(p, id, false, pid, tid, start);
}

/* A CRTC's track: "CRTC 0", or "card0 CRTC 0" where the device is known. */
static void crtc_track(struct xp_perfetto *p, int32_t dev, int32_t crtc, uint32_t *pid, uint32_t *tid)
{
	uint32_t id = crtc >= 0 && crtc < 0xff ? (uint32_t)crtc : 0xff;
	char track[48];

	if (dev >= 0) {
		snprintf(track, sizeof(track), "card%d CRTC %d", dev, crtc);
		xp_perfetto_track(p, "Displays", 0x10000u + ((uint32_t)dev & 0xfff) * 256 + id, track, pid, tid);
	} else {
		snprintf(track, sizeof(track), "CRTC %d", crtc);
		xp_perfetto_track(p, "Displays", crtc >= 0 && crtc < 0xffff ? (uint32_t)crtc : 0xffff,
				  track, pid, tid);
	}
}

void xp_perfetto_vblank(struct xp_perfetto *p, const struct xp_vbl_event *ev)
{
	static const char *const what[] = { "vblank", "requested", "delivered" };
	uint32_t pid, tid;

	if (ev->kind > XP_VBL_DELIVERED)	/* the probes' records: drawn as frames */
		return;
	crtc_track(p, ev->dev, ev->crtc, &pid, &tid);
	/* a vblank at its own timestamp; requests and deliveries when they happened */
	xp_perfetto_instant_begin(p, pid, tid, "vblank", what[ev->kind],
				  ev->kind == XP_VBL_EVENT && ev->vtime ? ev->vtime : ev->ts);
	xp_json_ku64(&p->j, "seq", ev->seq);
	if (ev->kind != XP_VBL_EVENT) {
		xp_json_ku64(&p->j, "pid", ev->pid);
		xp_json_kstr(&p->j, "comm", ev->comm);
	}
	xp_perfetto_slice_end(p);
}

void xp_perfetto_mem(struct xp_perfetto *p, const struct xp_rawtp_layout *l,
		     const struct xp_rawtp_rec *r)
{
	char comm[XP_COMM_LEN + 1];
	uint32_t pid = r->hdr.pid, tid = r->hdr.tid;
	int drv;

	if (r->ev >= l->n)
		return;
	if (l->ev[r->ev].proc_ctx) {
		memcpy(comm, r->comm, XP_COMM_LEN);
		comm[XP_COMM_LEN] = '\0';
		xp_perfetto_name(p, pid, pid, comm);
		xp_perfetto_name(p, pid, tid, comm);
	} else {
		/* interrupts, workers, reclaim: the driver's track, not the CPU's task */
		drv = !strcmp(l->ev[r->ev].group, "amdgpu") ? 0 : !strcmp(l->ev[r->ev].group, "i915") ? 1 : 2;
		xp_perfetto_track(p, "GPU memory", (uint32_t)drv, l->ev[r->ev].group, &pid, &tid);
	}
	xp_perfetto_instant_begin(p, pid, tid, "mem", l->ev[r->ev].name, r->hdr.ts_ns);
	xp_json_key(&p->j, "fields");
	xp_mem_json_fields(&p->j, l, r);
	xp_perfetto_slice_end(p);
}

void xp_perfetto_ioctl(struct xp_perfetto *p, const struct xp_ioctl_rec *r,
		       const struct xp_devices *d)
{
	char name[96], cmdhex[16], comm[XP_COMM_LEN], res[32];
	struct xp_devdesc dd;

	memcpy(comm, r->comm, sizeof(comm));
	comm[XP_COMM_LEN - 1] = '\0';
	xp_perfetto_name(p, r->hdr.pid, r->hdr.tid, comm);
	xp_devices_describe(d, r->dev, &dd);
	xp_ioctl_name(dd.kind, dd.driver, r->cmd, name, sizeof(name));
	snprintf(cmdhex, sizeof(cmdhex), "0x%08x", r->cmd);
	xp_perfetto_slice_begin(p, r->hdr.pid, r->hdr.tid, "ioctl", name, r->hdr.ts_ns, r->lat_ns);
	xp_json_kstr(&p->j, "device", dd.name);
	xp_json_kstr(&p->j, "cmd", cmdhex);
	xp_json_ki64(&p->j, "fd", r->fd);
	if (r->ret < 0)
		xp_json_kstr(&p->j, "error", xp_errno_name(0u - (uint32_t)r->ret, res, sizeof(res)));
	else
		xp_json_ki64(&p->j, "ret", r->ret);
	xp_perfetto_slice_end(p);
}

static void meta_event(struct xp_perfetto *p, const char *what, uint32_t pid, uint32_t tid,
		       const char *name)
{
	xp_json_begin_obj(&p->j);
	xp_json_kstr(&p->j, "ph", "M");
	xp_json_kstr(&p->j, "name", what);
	xp_json_ku64(&p->j, "pid", pid);
	xp_json_ku64(&p->j, "tid", tid);
	xp_json_ku64(&p->j, "ts", 0);
	xp_json_key(&p->j, "args");
	xp_json_begin_obj(&p->j);
	xp_json_kstr(&p->j, "name", name);
	xp_json_end_obj(&p->j);
	xp_json_end_obj(&p->j);
	p->events++;
}

static int by_pid_tid(const void *a, const void *b)
{
	const struct xp_perfetto_thread *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

void xp_perfetto_end(struct xp_perfetto *p, const struct xp_trace_meta *m)
{
	struct xp_perfetto_thread *v = calloc(p->n ? p->n : 1, sizeof(*v));
	size_t n = 0;

	for (size_t i = 0; v && i < p->cap; i++)
		if (p->threads[i].tid)
			v[n++] = p->threads[i];
	if (v)
		qsort(v, n, sizeof(*v), by_pid_tid);
	for (size_t i = 0; i < n; i++) {
		/* the process is named by its main thread, else its first thread seen */
		if (i == 0 || v[i].pid != v[i - 1].pid) {
			const char *pname = v[i].name;
			uint32_t g = v[i].pid - XP_PERFETTO_TRACK_PID0;

			if (v[i].pid >= XP_PERFETTO_TRACK_PID0 && g < (uint32_t)p->ngroups)
				pname = p->groups[g];
			for (size_t k = i; k < n && v[k].pid == v[i].pid; k++)
				if (v[k].tid == v[k].pid)
					pname = v[k].name;
			meta_event(p, "process_name", v[i].pid, 0, pname);
		}
		meta_event(p, "thread_name", v[i].pid, v[i].tid, v[i].name);
	}
	free(v);
	xp_json_end_arr(&p->j);
	xp_json_kstr(&p->j, "displayTimeUnit", "ns");
	if (m) {
		xp_json_key(&p->j, "otherData");
		xp_json_begin_obj(&p->j);
		xp_json_kstr(&p->j, "tool", m->tool);
		xp_json_kstr(&p->j, "hostname", m->hostname);
		xp_json_kstr(&p->j, "kernel", m->kernel);
		xp_json_kstr(&p->j, "clock", m->clock);
		/* ts 0 is this wall-clock time (ns since the epoch) */
		xp_json_ku64(&p->j, "t0_wall_ns", p->t0 + (uint64_t)m->wall_offset_ns);
		xp_json_end_obj(&p->j);
	}
	xp_json_end_obj(&p->j);
	xp_json_finish(&p->j);
	free(p->threads);
	p->threads = NULL;
	p->cap = p->n = 0;
}

void xp_perfetto_vblank_frame(struct xp_perfetto *p, const struct xp_vbl_delivery *d)
{
	char kind[32], comm[XP_COMM_LEN];
	uint32_t cpid, ctid, tid = d->tid ? d->tid : d->pid;
	uint64_t id = ++p->next_id, end = d->ts > d->submit_ns ? d->ts : d->submit_ns;

	if (!d->frame || !d->pid)
		return;
	memcpy(comm, d->comm, sizeof(comm));
	comm[XP_COMM_LEN - 1] = '\0';
	xp_perfetto_name(p, d->pid, tid, comm);
	xp_vbl_kind_name(d->kind, kind, sizeof(kind));
	/* the frame on the asking thread: submit -> scanout -> delivered */
	xp_perfetto_slice_begin(p, d->pid, tid, "frame", "frame", d->submit_ns, end - d->submit_ns);
	xp_json_kstr(&p->j, "kind", kind);
	if (d->dev >= 0)
		xp_json_ki64(&p->j, "device", d->dev);
	xp_json_ki64(&p->j, "crtc", d->crtc);
	xp_json_ku64(&p->j, "seq", d->seq);
	if (d->has_lateness && d->vblank_ns >= d->submit_ns)
		xp_json_ku64(&p->j, "scanout_ns", d->vblank_ns - d->submit_ns);
	if (d->has_target)
		xp_json_ku64(&p->j, "missed_vblanks", d->missed_target);
	xp_perfetto_slice_end(p);
	if (!d->has_lateness || d->vblank_ns < d->submit_ns || d->vblank_ns > end)
		return;
	xp_perfetto_slice_begin(p, d->pid, tid, "frame", d->missed_target ? "to scanout (missed)" : "to scanout",
				d->submit_ns, d->vblank_ns - d->submit_ns);
	xp_perfetto_slice_end(p);
	xp_perfetto_slice_begin(p, d->pid, tid, "frame", "to delivery", d->vblank_ns, end - d->vblank_ns);
	xp_perfetto_slice_end(p);
	/* the vblank it went out on, on the CRTC's track, with the arrow to it */
	crtc_track(p, d->dev, d->crtc, &cpid, &ctid);
	xp_perfetto_slice_begin(p, cpid, ctid, "frame", "scanout", d->vblank_ns, 0);
	xp_json_ku64(&p->j, "pid", d->pid);
	xp_json_kstr(&p->j, "comm", comm);
	xp_json_ku64(&p->j, "seq", d->seq);
	xp_perfetto_slice_end(p);
	xp_perfetto_flow(p, id, true, d->pid, tid, d->submit_ns);
	xp_perfetto_flow(p, id, false, cpid, ctid, d->vblank_ns);
}
