#include <stdlib.h>
#include <string.h>

#include "sinks/perfetto_int.h"
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
	p->last = NULL;
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

/* The entry of (pid, tid), made if new; NULL when out of memory. */
static struct xp_perfetto_thread *entry(struct xp_perfetto *p, uint32_t pid, uint32_t tid,
					const char *name)
{
	struct xp_perfetto_thread *t = p->last;

	/* an event's thread is mostly the last one's: no hash then */
	if (!t || t->pid != pid || t->tid != tid) {
		if ((p->n + 1) * 2 > p->cap && !grow(p)) {
			p->oom = true;
			return NULL;
		}
		t = p->last = &p->threads[slot_of(p, pid, tid)];
		if (!t->tid) {
			t->pid = pid;
			t->tid = tid;
			snprintf(t->name, sizeof(t->name), "%s", name);
			p->n++;
			if (p->pb) {
				t->uuid = ++p->next_uuid;
				xp_perfetto_proto_describe(p, t);
			}
			return t;
		}
	}
	/* a track first met unnamed in an event takes the name given next */
	if (p->pb && !t->name[0] && name[0]) {
		snprintf(t->name, sizeof(t->name), "%s", name);
		xp_perfetto_proto_describe(p, t);
	}
	return t;
}

void xp_perfetto_name(struct xp_perfetto *p, uint32_t pid, uint32_t tid, const char *name)
{
	if (!tid)
		tid = pid;	/* slot marker: tid 0 is the idle task, shown as its pid */
	if (!tid)
		return;
	entry(p, pid, tid, name);
}

uint64_t xp_perfetto_uuid(struct xp_perfetto *p, uint32_t pid, uint32_t tid)
{
	struct xp_perfetto_thread *t;

	if (!tid)
		tid = pid ? pid : UINT32_MAX;	/* the idle task: its own key */
	t = entry(p, pid, tid, "");
	return t ? t->uuid : 0;
}

void xp_perfetto_begin(struct xp_perfetto *p, FILE *f, uint64_t t0_ns)
{
	memset(p, 0, sizeof(*p));
	p->t0 = t0_ns;
	p->f = f;
	xp_json_init(&p->j, f, false);
	xp_json_begin_obj(&p->j);
	xp_json_key(&p->j, "traceEvents");
	xp_json_begin_arr(&p->j);
}

int xp_perfetto_begin_proto(struct xp_perfetto *p, FILE *f, uint64_t t0_ns)
{
	memset(p, 0, sizeof(*p));
	p->t0 = t0_ns;
	p->f = f;
	xp_json_init(&p->j, NULL, false);	/* args are not written in this format */
	return xp_perfetto_proto_new(p);
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
		if (p->pb) {
			p->group_uuid[g] = ++p->next_uuid;
			xp_perfetto_proto_group(p, g);
		}
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
	if (p->pb) {
		p->events++;
		xp_perfetto_proto_slice(p, pid, tid, cat, name, start - p->t0, start - p->t0 + dur_ns, false);
		return;
	}
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
	if (p->pb)
		return;
	xp_json_end_obj(&p->j);	/* args */
	xp_json_end_obj(&p->j);
}

void xp_perfetto_flow(struct xp_perfetto *p, uint64_t id, bool start, uint32_t pid, uint32_t tid,
		      uint64_t ts_ns)
{
	xp_perfetto_flow_named(p, "submit", id, start, pid, tid, ts_ns);
}

void xp_perfetto_flow_named(struct xp_perfetto *p, const char *name, uint64_t id, bool start,
			    uint32_t pid, uint32_t tid, uint64_t ts_ns)
{
	if (p->pb) {
		xp_perfetto_proto_flow(p, id, start, pid, tid, xp_pf_rel(p, ts_ns));
		return;
	}
	event_head(p, start ? "s" : "f", pid, tid, ts_ns);
	xp_json_kstr(&p->j, "cat", "flow");
	xp_json_kstr(&p->j, "name", name);
	xp_json_ku64(&p->j, "id", id);
	if (!start)
		xp_json_kstr(&p->j, "bp", "e");	/* bind to the slice enclosing ts */
	xp_json_end_obj(&p->j);
}

void xp_perfetto_instant_begin(struct xp_perfetto *p, uint32_t pid, uint32_t tid, const char *cat,
			       const char *name, uint64_t ts_ns)
{
	if (p->pb) {
		p->events++;
		xp_perfetto_proto_slice(p, pid, tid, cat, name, xp_pf_rel(p, ts_ns), xp_pf_rel(p, ts_ns), true);
		return;
	}
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
	if (p->pb) {
		p->events++;
		xp_perfetto_proto_async(p, begin, pid, tid, cat, name, id, xp_pf_rel(p, ts_ns));
		return;
	}
	event_head(p, begin ? "b" : "e", pid, tid, ts_ns);
	xp_json_kstr(&p->j, "cat", cat);
	xp_json_kstr(&p->j, "name", name);
	xp_json_ku64(&p->j, "id", id);
	xp_json_end_obj(&p->j);
}

int xp_perfetto_lane(struct xp_perfetto *p, const char *group, const char *name, int max_named,
		     uint64_t start, uint64_t end, uint32_t *pid, uint32_t *tid, const char **shown)
{
	char track[XP_PERFETTO_LANE_NAME + 16];
	struct xp_perfetto_laned *r;
	int i, lane;

	if (max_named > XP_PERFETTO_LANED_MAX)
		max_named = XP_PERFETTO_LANED_MAX;
	for (i = 0; i < p->nlaned; i++)
		if (!strcmp(p->laned[i].name, name))
			break;
	if (i == p->nlaned && p->nlaned < max_named)
		snprintf(p->laned[p->nlaned++].name, sizeof(p->laned[0].name), "%s", name);
	else if (i == p->nlaned)	/* more tracks than the caller keeps apart */
		snprintf(p->laned[i].name, sizeof(p->laned[0].name), "(other)");
	r = &p->laned[i];
	*shown = r->name;
	/* a lane whose last slice ended before this one starts: slices on a track nest */
	for (lane = 0; lane < XP_PERFETTO_LANES - 1; lane++)
		if (r->lane_end[lane] <= start)
			break;
	if (r->lane_end[lane] > start)
		return -1;
	r->lane_end[lane] = end;
	if (lane)
		snprintf(track, sizeof(track), "%s (%d)", r->name, lane + 1);
	else
		snprintf(track, sizeof(track), "%s", r->name);
	xp_perfetto_track(p, group, (uint32_t)(i * XP_PERFETTO_LANES + lane), track, pid, tid);
	return lane;
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

/* The threads and tracks by pid and tid; NULL when out of memory. */
static struct xp_perfetto_thread *sorted_threads(const struct xp_perfetto *p, size_t *n)
{
	struct xp_perfetto_thread *v = calloc(p->n ? p->n : 1, sizeof(*v));

	*n = 0;
	for (size_t i = 0; v && i < p->cap; i++)
		if (p->threads[i].tid)
			v[(*n)++] = p->threads[i];
	if (v)
		qsort(v, *n, sizeof(*v), by_pid_tid);
	return v;
}

/* A process is named by its main thread, else its first thread seen; a group by its name. */
static const char *process_name(const struct xp_perfetto *p, const struct xp_perfetto_thread *v,
				size_t i, size_t n)
{
	const char *pname = v[i].name;
	uint32_t g = v[i].pid - XP_PERFETTO_TRACK_PID0;

	if (v[i].pid >= XP_PERFETTO_TRACK_PID0 && g < (uint32_t)p->ngroups)
		pname = p->groups[g];
	for (size_t k = i; k < n && v[k].pid == v[i].pid; k++)
		if (v[k].tid == v[k].pid)
			pname = v[k].name;
	return pname;
}

static void end_proto(struct xp_perfetto *p)
{
	size_t n;
	struct xp_perfetto_thread *v = sorted_threads(p, &n);

	for (size_t i = 0; v && i < n; i++)
		if (v[i].pid < XP_PERFETTO_TRACK_PID0 && (i == 0 || v[i].pid != v[i - 1].pid))
			xp_perfetto_proto_process(p, v[i].pid, process_name(p, v, i, n));
	free(v);
	xp_perfetto_proto_finish(p);
}

void xp_perfetto_end(struct xp_perfetto *p, const struct xp_trace_meta *m)
{
	size_t n;
	struct xp_perfetto_thread *v;

	if (p->pb) {
		end_proto(p);
		goto out;
	}
	v = sorted_threads(p, &n);
	for (size_t i = 0; v && i < n; i++) {
		if (i == 0 || v[i].pid != v[i - 1].pid)
			meta_event(p, "process_name", v[i].pid, 0, process_name(p, v, i, n));
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
out:
	free(p->threads);
	p->threads = NULL;
	p->last = NULL;
	p->cap = p->n = 0;
}
