#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "caps/nvidia/nvidia_stats.h"
#include "core/tracefile.h"

/* An Xid record's device name and message follow as bytes. */
static const struct xp_rec_pack nv_pack[] = {
	XP_REC_P(struct xp_nv_rec, fn, XP_PACK_UINT),
	XP_REC_P(struct xp_nv_rec, timed, XP_PACK_UINT),
	XP_REC_P(struct xp_nv_rec, pad, XP_PACK_UINT),
	XP_REC_P(struct xp_nv_rec, minor, XP_PACK_INTERN),
	XP_REC_P(struct xp_nv_rec, arg32, XP_PACK_INTERN),
	XP_REC_P(struct xp_nv_rec, pad2, XP_PACK_UINT),
	XP_REC_P(struct xp_nv_rec, arg64, XP_PACK_INTERN),
	XP_REC_P(struct xp_nv_rec, dur_ns, XP_PACK_UINT),
	XP_REC_P(struct xp_nv_rec, ret, XP_PACK_SINT),
	XP_REC_P(struct xp_nv_rec, comm, XP_PACK_INTERN),
};

const struct xp_rec_kind xp_nv_rec_kind = {
	.type = XP_REC_NVIDIA, .min_size = sizeof(struct xp_nv_rec), .name = "nvidia",
	.pack = nv_pack, .npack = sizeof(nv_pack) / sizeof(nv_pack[0]),
};

void xp_nv_init(struct xp_nv_state *s)
{
	memset(s, 0, sizeof(*s));
}

void xp_nv_reset(struct xp_nv_state *s)
{
	struct xp_nv_state *keep = malloc(sizeof(*keep));

	if (!keep) {	/* counts to zero in place; nothing else to keep by */
		memset(s->calls, 0, sizeof(s->calls));
		s->nprocs = s->nescs = s->nirqs = s->nxids = 0;
		return;
	}
	memcpy(keep, s, sizeof(*s));
	xp_nv_init(s);
	memcpy(s->holds, keep->holds, sizeof(s->holds));
	s->nholds = keep->nholds;
	memcpy(s->gpus, keep->gpus, sizeof(s->gpus));
	s->ngpus = keep->ngpus;
	s->t0 = keep->t0;
	memcpy(s->probed, keep->probed, sizeof(s->probed));
	s->probed_known = keep->probed_known;
	s->xid_known = keep->xid_known;
	s->no_kprobes = keep->no_kprobes;
	s->xid_probed = keep->xid_probed;
	s->sample = keep->sample;
	memcpy(s->xid_why, keep->xid_why, sizeof(s->xid_why));
	memcpy(s->hook_why, keep->hook_why, sizeof(s->hook_why));
	memcpy(s->hook_note, keep->hook_note, sizeof(s->hook_note));
	free(keep);
}

void xp_nv_add_gpu(struct xp_nv_state *s, const char *pci, uint32_t minor)
{
	if (s->ngpus == XP_NV_MAX_GPUS)
		return;
	snprintf(s->gpus[s->ngpus].pci, sizeof(s->gpus[0].pci), "%s", pci);
	s->gpus[s->ngpus++].minor = minor;
}

static void add_xid(struct xp_nv_state *s, const struct xp_nv_xid_rec *r)
{
	struct xp_nv_xid *x;

	if (s->nxids == XP_NV_MAX_XIDS) {
		s->xids_past++;
		return;
	}
	x = &s->xids[s->nxids++];
	memset(x, 0, sizeof(*x));
	x->ts = r->r.h.ts_ns;
	x->code = r->r.arg32;
	memcpy(x->dev, r->dev, sizeof(x->dev));
	x->dev[sizeof(x->dev) - 1] = '\0';
	memcpy(x->msg, r->msg, sizeof(x->msg));
	x->msg[sizeof(x->msg) - 1] = '\0';
	x->minor = -1;
	for (int i = 0; i < s->ngpus; i++)
		if (!strcmp(s->gpus[i].pci, x->dev))
			x->minor = (int32_t)s->gpus[i].minor;
	/* that GPU's device file; every GPU's when the PCI name is not known */
	for (int i = 0; i < s->nholds; i++) {
		const struct xp_nv_hold *h = &s->holds[i];

		if (x->minor >= 0 ? h->minor != (uint32_t)x->minor : h->minor >= 255)
			continue;
		if (x->nholders == XP_NV_XID_MAX_PROCS)
			x->more++;
		else
			x->holders[x->nholders++] = *h;
	}
}

/* An ioctl on the control file or on the Xid's GPU that spans the Xid's time. */
static void match_inflight(struct xp_nv_state *s, const struct xp_nv_rec *r)
{
	for (int i = 0; i < s->nxids; i++) {
		struct xp_nv_xid *x = &s->xids[i];
		struct xp_nv_inflight *f;

		if (x->ts < r->h.ts_ns || x->ts >= r->h.ts_ns + r->dur_ns)
			continue;
		if (r->minor != 255 && x->minor >= 0 && r->minor != (uint32_t)x->minor)
			continue;
		if (x->ninflight == XP_NV_XID_MAX_PROCS) {
			x->more++;
			continue;
		}
		f = &x->inflight[x->ninflight++];
		f->pid = r->h.pid;
		f->tid = r->h.tid;
		f->cmd = r->arg32;
		f->minor = r->minor;
		memcpy(f->comm, r->comm, XP_COMM_LEN);
		f->comm[XP_COMM_LEN - 1] = '\0';
		f->start_ns = r->h.ts_ns;
		f->dur_ns = r->dur_ns;
	}
}

const char *xp_nv_minor_name(uint32_t minor, char *buf, size_t len)
{
	if (minor == 255)
		snprintf(buf, len, "/dev/nvidiactl");
	else if (minor == XP_NV_NO_MINOR)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "/dev/nvidia%u", minor);
	return buf;
}

static struct xp_nv_proc *proc_of(struct xp_nv_state *s, uint32_t pid, const char *comm)
{
	for (int i = 0; i < s->nprocs; i++)
		if (s->procs[i].pid == pid)
			return &s->procs[i];
	if (s->nprocs == XP_NV_MAX_PROCS) {
		s->overflow++;
		return NULL;
	}
	struct xp_nv_proc *p = &s->procs[s->nprocs++];

	memset(p, 0, sizeof(*p));
	p->pid = pid;
	memcpy(p->comm, comm, XP_COMM_LEN);
	p->comm[XP_COMM_LEN - 1] = '\0';
	return p;
}

static struct xp_nv_esc *esc_of(struct xp_nv_state *s, uint32_t cmd)
{
	for (int i = 0; i < s->nescs; i++)
		if (s->escs[i].cmd == cmd)
			return &s->escs[i];
	if (s->nescs == XP_NV_MAX_ESC) {
		s->overflow++;
		return NULL;
	}
	memset(&s->escs[s->nescs], 0, sizeof(s->escs[0]));
	s->escs[s->nescs].cmd = cmd;
	return &s->escs[s->nescs++];
}

static struct xp_nv_irq *irq_of(struct xp_nv_state *s, uint32_t irq)
{
	for (int i = 0; i < s->nirqs; i++)
		if (s->irqs[i].irq == irq)
			return &s->irqs[i];
	if (s->nirqs == XP_NV_MAX_IRQS) {
		s->overflow++;
		return NULL;
	}
	memset(&s->irqs[s->nirqs], 0, sizeof(s->irqs[0]));
	s->irqs[s->nirqs].irq = irq;
	return &s->irqs[s->nirqs++];
}

static void hold(struct xp_nv_state *s, uint64_t file, uint32_t pid, const char *comm, uint32_t minor,
		 bool before)
{
	struct xp_nv_hold *h;

	if (s->nholds == XP_NV_MAX_HOLDS) {
		s->overflow++;
		return;
	}
	h = &s->holds[s->nholds++];
	h->file = file;
	h->pid = pid;
	h->minor = minor;
	h->before = before;
	memcpy(h->comm, comm, XP_COMM_LEN);
	h->comm[XP_COMM_LEN - 1] = '\0';
}

static void unhold(struct xp_nv_state *s, uint64_t file, uint32_t pid, uint32_t minor)
{
	int i;

	/* the file seen opened; else one found open at the start, same process and device */
	for (i = 0; i < s->nholds; i++)
		if (s->holds[i].file == file)
			break;
	if (i == s->nholds)
		for (i = 0; i < s->nholds; i++)
			if (!s->holds[i].file && s->holds[i].pid == pid && s->holds[i].minor == minor)
				break;
	if (i == s->nholds) {
		s->closes_unknown++;
		return;
	}
	s->holds[i] = s->holds[--s->nholds];
}

void xp_nv_set_seen(struct xp_nv_state *s, uint32_t cmd, uint64_t seen)
{
	struct xp_nv_esc *e = esc_of(s, cmd);

	if (e) {
		s->ioctl_seen += seen - e->seen;
		e->seen = seen;
	}
}

void xp_nv_add_holder(struct xp_nv_state *s, uint32_t pid, const char *comm, uint32_t minor)
{
	char c[XP_COMM_LEN] = "";

	snprintf(c, sizeof(c), "%s", comm);
	hold(s, 0, pid, c, minor, true);
}

bool xp_nv_rec_ok(const struct xp_rec_hdr *h)
{
	const struct xp_nv_rec *r = (const void *)h;

	if (h->size < sizeof(*r))
		return false;
	if (r->fn == XP_NV_XID || r->fn == XP_NV_GPU)
		return h->size >= sizeof(struct xp_nv_xid_rec);
	return r->fn < XP_NV_NFN || r->fn == XP_NV_HOLDER;
}

void xp_nv_snapshot_rec(struct xp_nv_rec *r, uint8_t fn, uint64_t ts, uint32_t pid, const char *comm,
			uint32_t minor, uint64_t file)
{
	memset(r, 0, sizeof(*r));
	r->h.type = XP_REC_NVIDIA;
	r->h.size = sizeof(*r);
	r->h.ts_ns = ts;
	r->h.pid = pid;
	r->h.tid = pid;
	r->fn = fn;
	r->minor = minor;
	r->arg64 = file;
	snprintf(r->comm, sizeof(r->comm), "%s", comm);
}

void xp_nv_gpu_rec(struct xp_nv_xid_rec *x, uint64_t ts, const char *pci, uint32_t minor)
{
	memset(x, 0, sizeof(*x));
	xp_nv_snapshot_rec(&x->r, XP_NV_GPU, ts, 0, "", minor, 0);
	x->r.h.size = sizeof(*x);
	snprintf(x->dev, sizeof(x->dev), "%s", pci);
}

void xp_nv_add(struct xp_nv_state *s, const struct xp_nv_rec *r)
{
	struct xp_nv_proc *p = NULL;
	struct xp_nv_esc *e;
	struct xp_nv_irq *q;

	if (r->fn == XP_NV_XID && r->h.size >= sizeof(struct xp_nv_xid_rec)) {
		add_xid(s, (const struct xp_nv_xid_rec *)r);
		return;
	}
	if (r->fn == XP_NV_GPU && r->h.size >= sizeof(struct xp_nv_xid_rec)) {
		const struct xp_nv_xid_rec *x = (const void *)r;
		char pci[XP_NV_XID_DEV];

		memcpy(pci, x->dev, sizeof(pci));
		pci[sizeof(pci) - 1] = '\0';
		for (int i = 0; i < s->ngpus; i++)
			if (!strcmp(s->gpus[i].pci, pci))
				return;
		xp_nv_add_gpu(s, pci, r->minor);
		return;
	}
	if (r->fn == XP_NV_HOLDER) {
		hold(s, r->arg64, r->h.pid, r->comm, r->minor, true);
		return;
	}
	if (r->fn >= XP_NV_NFN)
		return;
	s->calls[r->fn]++;
	switch (r->fn) {
	case XP_NV_OPEN:
	case XP_NV_CLOSE:
	case XP_NV_IOCTL:
	case XP_NV_MMAP:
	case XP_NV_FAULT:
		p = proc_of(s, r->h.pid, r->comm);
		break;
	default:
		break;
	}
	switch (r->fn) {
	case XP_NV_OPEN:
		if (p)
			p->opens++;
		hold(s, r->arg64, r->h.pid, r->comm, r->minor, false);
		break;
	case XP_NV_CLOSE:
		if (p)
			p->closes++;
		unhold(s, r->arg64, r->h.pid, r->minor);
		break;
	case XP_NV_IOCTL:
		if (p) {
			p->ioctls++;
			p->ioctl_errors += r->ret < 0;
		}
		match_inflight(s, r);
		if ((e = esc_of(s, r->arg32))) {
			e->errors += r->ret < 0;
			xp_hist_add(&e->lat, r->dur_ns);
		}
		break;
	case XP_NV_MMAP:
		if (p) {
			p->mmaps++;
			p->mmap_bytes += r->arg64;
		}
		break;
	case XP_NV_FAULT:
		if (p)
			p->faults++;
		break;
	case XP_NV_ISR:
	case XP_NV_ISR_MSIX:
	case XP_NV_ISR_BH:
	case XP_NV_ISR_MSIX_BH:
		if ((q = irq_of(s, r->arg32)))
			xp_hist_add(&q->lat[r->fn - XP_NV_ISR], r->dur_ns);
		break;
	case XP_NV_P2P_GET:
		s->p2p_bytes += r->arg64;
		break;
	case XP_NV_SUSPEND:
		xp_hist_add(&s->suspend, r->dur_ns);
		break;
	case XP_NV_RESUME:
		xp_hist_add(&s->resume, r->dur_ns);
		break;
	default:
		break;
	}
}
