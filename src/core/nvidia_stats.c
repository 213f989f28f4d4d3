#include <stdio.h>
#include <string.h>
#include "core/nvidia_stats.h"

void xp_nv_init(struct xp_nv_state *s)
{
	memset(s, 0, sizeof(*s));
}

void xp_nv_reset(struct xp_nv_state *s)
{
	struct xp_nv_hold holds[XP_NV_MAX_HOLDS];
	bool probed[XP_NV_NFN], known = s->probed_known;
	int n = s->nholds;

	memcpy(holds, s->holds, sizeof(holds));
	memcpy(probed, s->probed, sizeof(probed));
	xp_nv_init(s);
	memcpy(s->holds, holds, sizeof(holds));
	memcpy(s->probed, probed, sizeof(probed));
	s->nholds = n;
	s->probed_known = known;
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

static void hold(struct xp_nv_state *s, uint64_t file, uint32_t pid, const char *comm, uint32_t minor)
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

void xp_nv_add_holder(struct xp_nv_state *s, uint32_t pid, const char *comm, uint32_t minor)
{
	char c[XP_COMM_LEN] = "";

	snprintf(c, sizeof(c), "%s", comm);
	hold(s, 0, pid, c, minor);
}

void xp_nv_add(struct xp_nv_state *s, const struct xp_nv_rec *r)
{
	struct xp_nv_proc *p = NULL;
	struct xp_nv_esc *e;
	struct xp_nv_irq *q;

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
		hold(s, r->arg64, r->h.pid, r->comm, r->minor);
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
