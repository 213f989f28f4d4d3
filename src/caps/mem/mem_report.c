/* mem summary: the parts every driver shares (header, notes, processes) and
 * --stream; each driver's section is in mem_report_<driver>.c. */
#include "caps/mem/mem_report_int.h"
#include "sinks/perfetto.h"

static int group_events(const struct xp_rawtp_layout *l, const char *group, int *present,
			const char **actual)
{
	int n = 0;

	*present = 0;
	*actual = group;
	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->ev[i].group, group)) {
			n++;
			*present += l->present[i];
			*actual = l->group[i];
		}
	return n;
}

void xp_mem_report_text(FILE *f, const struct xp_tp_report *r)
{
	static const char *const groups[] = { "amdgpu", "i915", "xe" };
	const struct xp_mem_state *s = r->st;
	const struct xp_rawtp_layout *l = r->layout;
	bool on[3];

	if (r->ri->interval)
		fprintf(f, "--- interval %" PRIu64 " ---\n", r->ri->interval);
	fprintf(f, "%s: %.1f s, %d of %d events (", r->ri->command, r->ri->duration_s, l->npresent, l->n);
	for (int g = 0; g < 3; g++) {
		const char *actual;
		int present, n = group_events(l, groups[g], &present, &actual);

		on[g] = present > 0;
		fprintf(f, "%s%s %d/%d", g ? ", " : "", groups[g], present, n);
		if (strcmp(actual, groups[g]))
			fprintf(f, " read from group %s", actual);
	}
	fprintf(f, "), %" PRIu64 " events, ", s->events);
	xp_print_drops(f, r->ri);
	for (int g = 0; g < 3; g++) {
		const char *actual;
		int present;

		group_events(l, groups[g], &present, &actual);
		if (!present) {
			fprintf(f, "note: no %s events on this kernel (the %s module is not loaded)\n", actual,
				groups[g]);
			continue;
		}
		xp_print_skipped_events(f, l, groups[g]);
	}
	xp_print_notes(f, r->filtered ? "the per-process events only; the per-device ones are counted for "
					"every process" : NULL,
		       s->overflow, "processes/rings/objects", r->undecodable);
	if (on[0])
		xp_mem_text_amdgpu(f, r);
	if (on[1])
		xp_mem_text_i915(f, r);
	if (on[2])
		xp_mem_text_xe(f, r);
	if (!s->nprocs)
		return;
	fprintf(f, "\nper process (events in process context only):\n");
	fprintf(f, "  %-24s %7s %10s %7s %7s %7s %10s %7s %10s %6s %7s %6s %10s %6s %10s %6s %6s\n",
		"PROCESS", "AMD_BOS", "AMD_BYTES", "V->GTT", "SUBMITS", "I915OBJ", "I915BYTES", "LIVE",
		"LIVEBYTES", "FAULTS", "I915_RQ", "WAITS", "WAIT_TIME", "XE_BOS", "XE_BYTES", "XE_EQ", "XE_JOB");
	for (int i = 0; i < s->nprocs; i++) {
		const struct xp_mem_proc *p = &s->procs[i];
		char who[48];

		char wt[24];

		snprintf(who, sizeof(who), "%u/%s", p->pid, p->comm);
		fprintf(f, "  %-24.24s %7" PRIu64 " %10" PRIu64 " %7" PRIu64 " %7" PRIu64 " %7" PRIu64
			   " %10" PRIu64 " %7" PRIu64 " %10" PRIu64 " %6" PRIu64 " %7" PRIu64 " %6" PRIu64
			   " %10s %6" PRIu64 " %10" PRIu64 " %6" PRIu64 " %6" PRIu64 "\n",
			who, p->amd_bos, p->amd_bo_bytes, p->amd_vram_in_gtt, p->amd_submits, p->i915_creates,
			p->i915_create_bytes, p->i915_live_objs, p->i915_live_bytes, p->i915_faults,
			p->i915_requests, p->i915_waits, p->i915_waits ? xp_fmt_ns(p->i915_wait_ns, wt, sizeof(wt)) : "-",
			p->xe_bos, p->xe_bo_bytes, p->xe_queues, p->xe_jobs);
	}
}

void xp_mem_report_json(FILE *f, const struct xp_tp_report *r)
{
	static const char *const groups[] = { "amdgpu", "i915", "xe" };
	static void (*const sec[])(struct xp_json *, const struct xp_tp_report *) = {
		xp_mem_json_amdgpu, xp_mem_json_i915, xp_mem_json_xe,
	};
	const struct xp_mem_state *s = r->st;
	const struct xp_rawtp_layout *l = r->layout;
	struct xp_json j;

	xp_json_begin_run(&j, f, r->ri);
	xp_json_ku64(&j, "page_size", s->page_size);
	xp_json_ku64(&j, "events_seen", s->events);
	xp_json_ku64(&j, "overflow", s->overflow);
	xp_json_ku64(&j, "undecodable", r->undecodable);
	xp_json_kbool(&j, "process_filter", r->filtered);
	xp_json_key(&j, "events");
	xp_json_begin_obj(&j);
	for (int i = 0; i < l->n; i++) {
		xp_json_key(&j, l->ev[i].name);
		xp_json_begin_obj(&j);
		xp_json_kstr(&j, "group", l->group[i]);
		xp_json_kbool(&j, "present", l->present[i]);
		xp_json_kbool(&j, "per_process", l->ev[i].proc_ctx);
		xp_json_end_obj(&j);
	}
	xp_json_end_obj(&j);
	for (int g = 0; g < 3; g++) {
		const char *actual;
		int present, n = group_events(l, groups[g], &present, &actual);

		xp_json_key(&j, groups[g]);
		xp_json_begin_obj(&j);
		xp_json_kstr(&j, "group", actual);
		xp_json_ku64(&j, "events", (uint64_t)n);
		xp_json_ku64(&j, "events_present", (uint64_t)present);
		if (present)
			sec[g](&j, r);
		xp_json_end_obj(&j);
	}
	xp_json_key(&j, "processes");
	xp_json_begin_arr(&j);
	for (int i = 0; i < s->nprocs; i++) {
		const struct xp_mem_proc *p = &s->procs[i];

		xp_json_begin_obj(&j);
		xp_json_ku64(&j, "pid", p->pid);
		xp_json_kstr(&j, "comm", p->comm);
		xp_json_ku64(&j, "amdgpu_bos", p->amd_bos);
		xp_json_ku64(&j, "amdgpu_bo_bytes", p->amd_bo_bytes);
		xp_json_ku64(&j, "amdgpu_vram_in_gtt", p->amd_vram_in_gtt);
		xp_json_ku64(&j, "amdgpu_submits", p->amd_submits);
		xp_json_ku64(&j, "i915_created", p->i915_creates);
		xp_json_ku64(&j, "i915_created_bytes", p->i915_create_bytes);
		xp_json_ku64(&j, "i915_live", p->i915_live_objs);
		xp_json_ku64(&j, "i915_live_bytes", p->i915_live_bytes);
		xp_json_ku64(&j, "i915_faults", p->i915_faults);
		xp_json_ku64(&j, "i915_requests", p->i915_requests);
		xp_json_ku64(&j, "i915_waits", p->i915_waits);
		xp_json_ku64(&j, "i915_wait_ns", p->i915_wait_ns);
		xp_json_ku64(&j, "xe_bos", p->xe_bos);
		xp_json_ku64(&j, "xe_bo_bytes", p->xe_bo_bytes);
		xp_json_ku64(&j, "xe_exec_queues", p->xe_queues);
		xp_json_ku64(&j, "xe_jobs", p->xe_jobs);
		xp_json_end_obj(&j);
	}
	xp_json_end_arr(&j);
	xp_json_end_obj(&j);
	xp_json_finish(&j);
}

void xp_mem_stream_header(FILE *f)
{
	fprintf(f, "%-12s %-24s %-26s %s\n", "TIME(s)", "PROCESS", "EVENT", "FIELDS");
}

/* Fields worth showing: the event's own, not the common header or pointers' padding. */
static bool shown(const struct xp_tp_field *fl)
{
	return !fl->common;
}

void xp_mem_stream_text(FILE *f, const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r,
			uint64_t t0)
{
	const struct xp_tp_format *fmt;
	char who[48], str[XP_RAWTP_STR], t[32];

	if (r->ev >= l->n)
		return;
	fmt = &l->fmt[r->ev];
	if (l->ev[r->ev].proc_ctx)
		snprintf(who, sizeof(who), "%u/%.16s", r->hdr.pid, r->comm);
	else
		snprintf(who, sizeof(who), "-");	/* not in the causing process's context */
	*xp_put_rel_s(t, r->hdr.ts_ns, t0) = '\0';	/* before t0: negative, never wrapped */
	fprintf(f, "%12s %-24.24s %-26s", t, who,
		l->ev[r->ev].name);
	for (int i = 0; i < fmt->nfields; i++) {
		const struct xp_tp_field *fl = &fmt->fields[i];
		uint64_t v;

		if (!shown(fl))
			continue;
		if (fl->data_loc) {
			for (int k = 0; k < XP_RAWTP_NSTR; k++)
				if (l->ev[r->ev].str[k] && !strcmp(l->ev[r->ev].str[k], fl->name))
					fprintf(f, " %s=%s", fl->name, xp_rawtp_rec_str(r, k, str, sizeof(str)));
			continue;
		}
		if (xp_tp_read_u64(fl, r->raw, r->raw_len, &v))
			continue;
		if (strchr(fl->type, '*'))
			fprintf(f, " %s=0x%" PRIx64, fl->name, v);
		else if (fl->is_signed)
			fprintf(f, " %s=%" PRId64, fl->name, (int64_t)v);
		else
			fprintf(f, " %s=%" PRIu64, fl->name, v);
	}
	fputc('\n', f);
}

void xp_mem_json_fields(struct xp_json *j, const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r)
{
	const struct xp_tp_format *fmt = &l->fmt[r->ev];
	char str[XP_RAWTP_STR];

	xp_json_begin_obj(j);
	for (int i = 0; i < fmt->nfields; i++) {
		const struct xp_tp_field *fl = &fmt->fields[i];
		uint64_t v;

		if (!shown(fl))
			continue;
		if (fl->data_loc) {
			for (int k = 0; k < XP_RAWTP_NSTR; k++)
				if (l->ev[r->ev].str[k] && !strcmp(l->ev[r->ev].str[k], fl->name))
					xp_json_kstr(j, fl->name, xp_rawtp_rec_str(r, k, str, sizeof(str)));
			continue;
		}
		if (xp_tp_read_u64(fl, r->raw, r->raw_len, &v))
			continue;
		if (fl->is_signed)
			xp_json_ki64(j, fl->name, (int64_t)v);
		else
			xp_json_ku64(j, fl->name, v);
	}
	xp_json_end_obj(j);
}

void xp_mem_stream_json(struct xp_json *j, const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r,
			uint64_t t0)
{
	if (r->ev >= l->n)
		return;
	xp_json_begin_obj(j);
	xp_json_ki64(j, "t_ns", xp_rel_ns(r->hdr.ts_ns, t0));
	xp_json_kstr(j, "event", l->ev[r->ev].name);
	xp_json_kstr(j, "group", l->group[r->ev]);
	if (l->ev[r->ev].proc_ctx) {
		char comm[XP_COMM_LEN + 1];

		memcpy(comm, r->comm, XP_COMM_LEN);
		comm[XP_COMM_LEN] = '\0';
		xp_json_ku64(j, "pid", r->hdr.pid);
		xp_json_kstr(j, "comm", comm);
	} else {
		xp_json_key(j, "pid");
		xp_json_null(j);
	}
	xp_json_key(j, "fields");
	xp_mem_json_fields(j, l, r);
	xp_json_end_obj(j);
	xp_json_finish(j);
}

/* Its Perfetto events (src/sinks/perfetto.h). */
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
