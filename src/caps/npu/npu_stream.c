/* npu: one record at a time: stream lines (text, JSON) and Perfetto events */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "caps/npu/npu_report.h"
#include "sinks/perfetto.h"
#include "sinks/text.h"

static const char *kind_name(uint8_t k)
{
	switch (k) {
	case XP_NPU_CALL: return "call";
	case XP_NPU_RET: return "return";
	case XP_NPU_JOB: return "job";
	case XP_NPU_JSM: return "jsm";
	case XP_NPU_PM: return "pm";
	case XP_NPU_XDNA: return "xdna";
	case XP_NPU_SQUEUE: return "queue";
	case XP_NPU_SDONE: return "done";
	default: return "?";
	}
}

void xp_npu_stream_header(FILE *f)
{
	fprintf(f, "%12s %-24s %-7s %-40s %s\n", "TIME(s)", "PROCESS", "KIND", "FUNCTION/EVENT", "DETAIL");
}

int xp_npu_stream_text(FILE *f, const struct xp_npu_rec *r, uint64_t t0)
{
	char t[32], who[48], d[160], dur[16], comm[XP_COMM_LEN + 1], name[XP_NPU_NAME + 1],
		type[XP_NPU_STR + 1];

	memcpy(comm, r->comm, XP_COMM_LEN);
	comm[XP_COMM_LEN] = '\0';
	memcpy(name, r->name, XP_NPU_NAME);
	name[XP_NPU_NAME] = '\0';
	memcpy(type, r->type, XP_NPU_STR);
	type[XP_NPU_STR] = '\0';
	*xp_put_rel_s(t, r->h.ts_ns, t0) = '\0';
	if (r->dev)
		snprintf(who, sizeof(who), "(device) %s", comm);
	else
		snprintf(who, sizeof(who), "%s[%u]", comm, r->h.pid);
	switch (r->kind) {
	case XP_NPU_CALL: snprintf(d, sizeof(d), "%s", xp_npu_cat_name(xp_npu_category(name))); break;
	case XP_NPU_RET: snprintf(d, sizeof(d), "took %s", xp_fmt_ns(r->dur_ns, dur, sizeof(dur))); break;
	case XP_NPU_JOB: snprintf(d, sizeof(d), "ctx %u engine %u job %u", r->a, r->b, r->c); break;
	case XP_NPU_JSM:
		snprintf(d, sizeof(d), "type %s status %u request %u result %u", type, r->a, r->b, r->c);
		break;
	case XP_NPU_XDNA:
		snprintf(d, sizeof(d), "%s seq %" PRIu64 " fence %" PRIu64 ":%" PRIu64 " op %u", type, (uint64_t)r->seq,
			 (uint64_t)r->fctx, (uint64_t)r->fseq, r->a);
		break;
	case XP_NPU_SQUEUE:
	case XP_NPU_SDONE:
		snprintf(d, sizeof(d), "fence %" PRIu64 ":%" PRIu64, (uint64_t)r->fctx, (uint64_t)r->fseq);
		break;
	default: d[0] = '\0';
	}
	if (r->kind == XP_NPU_SQUEUE)
		snprintf(name, sizeof(name), "%s", type);	/* the scheduler */
	else if (r->kind == XP_NPU_SDONE)
		snprintf(name, sizeof(name), "drm_sched_job_done");
	return fprintf(f, "%12s %-24.24s %-7s %-40.40s %s\n", t, who, kind_name(r->kind), name, d) < 0 ? -1 : 0;
}

int xp_npu_stream_json(struct xp_json *j, const struct xp_npu_rec *r, uint64_t t0)
{
	char comm[XP_COMM_LEN + 1], name[XP_NPU_NAME + 1], type[XP_NPU_STR + 1];

	memcpy(comm, r->comm, XP_COMM_LEN);
	comm[XP_COMM_LEN] = '\0';
	memcpy(name, r->name, XP_NPU_NAME);
	name[XP_NPU_NAME] = '\0';
	memcpy(type, r->type, XP_NPU_STR);
	type[XP_NPU_STR] = '\0';
	xp_json_begin_obj(j);
	xp_json_ki64(j, "t_ns", xp_rel_ns(r->h.ts_ns, t0));
	xp_json_kstr(j, "kind", kind_name(r->kind));
	xp_json_ku64(j, "pid", r->h.pid);
	xp_json_ku64(j, "tid", r->h.tid);
	xp_json_kstr(j, "comm", comm);
	xp_json_kbool(j, "per_device", r->dev);
	switch (r->kind) {
	case XP_NPU_CALL:
		xp_json_kstr(j, "function", name);
		xp_json_kstr(j, "category", xp_npu_cat_key(xp_npu_category(name)));
		break;
	case XP_NPU_RET:
		xp_json_kstr(j, "function", name);
		xp_json_ku64(j, "dur_ns", r->dur_ns);
		break;
	case XP_NPU_JOB:
		xp_json_kstr(j, "event", name);
		xp_json_ku64(j, "ctx", r->a);
		xp_json_ku64(j, "engine", r->b);
		xp_json_ku64(j, "job", r->c);
		break;
	case XP_NPU_JSM:
		xp_json_kstr(j, "event", name);
		xp_json_kstr(j, "type", type);
		xp_json_ku64(j, "status", r->a);
		xp_json_ku64(j, "request_id", r->b);
		xp_json_ku64(j, "result", r->c);
		break;
	case XP_NPU_XDNA:
		xp_json_kstr(j, "event", name);
		xp_json_kstr(j, "hwctx", type);
		xp_json_ku64(j, "seq", r->seq);
		xp_json_ku64(j, "op", r->a);
		xp_json_ku64(j, "fence_context", r->fctx);
		xp_json_ku64(j, "fence_seqno", r->fseq);
		break;
	case XP_NPU_SQUEUE:
		xp_json_kstr(j, "scheduler", type);
		/* fall through */
	case XP_NPU_SDONE:
		xp_json_ku64(j, "fence_context", r->fctx);
		xp_json_ku64(j, "fence_seqno", r->fseq);
		break;
	default:
		xp_json_kstr(j, "event", name);
	}
	xp_json_end_obj(j);
	return 0;
}

#define PF_GROUP "NPU (intel_vpu)"
#define PF_GROUP_XDNA "NPU (amdxdna)"
enum { PF_DEVICE = 1, PF_IPC, PF_POWER, PF_JOBS = 0x1000, PF_XDNA = 0x100000 };

void xp_perfetto_npu(struct xp_perfetto *p, const struct xp_npu_rec *r)
{
	char comm[XP_COMM_LEN + 1], name[XP_NPU_NAME + 1], type[XP_NPU_STR + 1], track[48];
	uint32_t pid = r->h.pid, tid = r->h.tid;

	memcpy(comm, r->comm, XP_COMM_LEN);
	comm[XP_COMM_LEN] = '\0';
	memcpy(name, r->name, XP_NPU_NAME);
	name[XP_NPU_NAME] = '\0';
	memcpy(type, r->type, XP_NPU_STR);
	type[XP_NPU_STR] = '\0';
	switch (r->kind) {
	case XP_NPU_RET:
		if (r->dev)
			xp_perfetto_track(p, PF_GROUP, PF_DEVICE, "interrupts and workers", &pid, &tid);
		else
			xp_perfetto_name(p, pid, tid, comm);
		xp_perfetto_slice_begin(p, pid, tid, "npu_call", name, r->h.ts_ns, r->dur_ns);
		xp_json_kstr(&p->j, "category", xp_npu_cat_key(xp_npu_category(name)));
		xp_perfetto_slice_end(p);
		return;
	case XP_NPU_JOB: {
		bool submit = strstr(name, "submit") != NULL;
		bool done = strstr(name, "done") || strstr(name, "signal") || strstr(name, "complete");

		snprintf(track, sizeof(track), "jobs: ctx %u engine %u", r->a, r->b);
		xp_perfetto_track(p, PF_GROUP, PF_JOBS + ((r->a & 0xfff) << 4) + (r->b & 0xf), track, &pid, &tid);
		if (submit || done)
			xp_perfetto_async(p, submit, pid, tid, "npu_job", "job",
					  ((uint64_t)r->a << 40) ^ ((uint64_t)r->b << 32) ^ r->c, r->h.ts_ns);
		return;
	}
	case XP_NPU_JSM:
		xp_perfetto_track(p, PF_GROUP, PF_IPC, "IPC (JSM messages)", &pid, &tid);
		xp_perfetto_instant_begin(p, pid, tid, "npu_jsm", type[0] ? type : name, r->h.ts_ns);
		xp_json_kstr(&p->j, "event", name);
		xp_json_ku64(&p->j, "status", r->a);
		xp_json_ku64(&p->j, "request_id", r->b);
		xp_json_ku64(&p->j, "result", r->c);
		xp_perfetto_slice_end(p);
		return;
	case XP_NPU_XDNA: {
		bool sent = !strcmp(name, "sent to device"), sig = strstr(name, "signal") != NULL;
		uint32_t h = 0;

		if (!sent && !sig)
			return;
		for (const char *c = type; *c; c++)
			h = h * 31 + (unsigned char)*c;
		snprintf(track, sizeof(track), "amdxdna %s", type);
		xp_perfetto_track(p, PF_GROUP_XDNA, PF_XDNA + (h & 0xffff), track, &pid, &tid);
		xp_perfetto_async(p, sent, pid, tid, "npu_job", "on device", (r->fctx << 32) ^ r->fseq, r->h.ts_ns);
		return;
	}
	case XP_NPU_PM:
		xp_perfetto_track(p, PF_GROUP, PF_POWER, "power", &pid, &tid);
		xp_perfetto_instant_begin(p, pid, tid, "npu_pm", name, r->h.ts_ns);
		xp_perfetto_slice_end(p);
		return;
	default:
		return;	/* calls: counted, not drawn */
	}
}
