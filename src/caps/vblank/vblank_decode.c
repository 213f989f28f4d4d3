/* vblank: the record kind, the events and their layouts, decoding a record into an event */
#include <errno.h>
#include <string.h>
#include <stdio.h>
#include "caps/vblank/vblank_stats.h"
#include "core/tracefile.h"
#include "caps/vblank/vblank.h"
#include "caps/vblank/vblank_int.h"

const struct xp_rec_kind xp_vbl_rec_kind = {
	.type = XP_REC_VBLANK, .min_size = sizeof(struct xp_rawtp_rec), .name = "vblank",
	XP_RAWTP_PACK,
};

const struct xp_rawtp_event xp_vbl_events[XP_VBL_NEV] = {
	[XP_VBL_EVENT] = { .group = "drm", .name = "drm_vblank_event" },
	[XP_VBL_QUEUED] = { .group = "drm", .name = "drm_vblank_event_queued", .proc_ctx = true },
	[XP_VBL_DELIVERED] = { .group = "drm", .name = "drm_vblank_event_delivered" },
	[XP_VBL_SUBMIT] = { .group = "xputrace", .name = "vblank_submit", .proc_ctx = true },
	[XP_VBL_CRTC] = { .group = "xputrace", .name = "vblank_crtc" },
	[XP_VBL_PIPE] = { .group = "xputrace", .name = "vblank_pipe" },
};

/* The layouts of struct xp_vbl_submit_raw and xp_vbl_crtc_raw, in format-file syntax. */
#define FIELD(t, n, s, sz, sg) "\tfield:" t " " #n ";\toffset:%zu;\tsize:" #sz ";\tsigned:" #sg ";\n"
static char submit_fmt[1024], crtc_fmt[512], pipe_fmt[512];

const char *xp_vbl_probe_format(int ev)
{
	if (ev == XP_VBL_SUBMIT) {
		if (!submit_fmt[0])
			snprintf(submit_fmt, sizeof(submit_fmt),
				 "name: vblank_submit\nID: 0\nformat:\n"
				 FIELD("u64", file, s, 8, 0) FIELD("u64", submit_ns, s, 8, 0)
				 FIELD("u32", type, s, 4, 0) FIELD("u32", crtc_id, s, 4, 0)
				 FIELD("s32", minor, s, 4, 1) FIELD("u32", ioctl_nr, s, 4, 0)
				 FIELD("u64", user_data, s, 8, 0) "\nprint fmt: \"\"\n",
				 offsetof(struct xp_vbl_submit_raw, file),
				 offsetof(struct xp_vbl_submit_raw, submit_ns),
				 offsetof(struct xp_vbl_submit_raw, type),
				 offsetof(struct xp_vbl_submit_raw, crtc_id),
				 offsetof(struct xp_vbl_submit_raw, minor),
				 offsetof(struct xp_vbl_submit_raw, ioctl_nr),
				 offsetof(struct xp_vbl_submit_raw, user_data));
		return submit_fmt;
	}
	if (ev == XP_VBL_CRTC) {
		if (!crtc_fmt[0])
			snprintf(crtc_fmt, sizeof(crtc_fmt),
				 "name: vblank_crtc\nID: 0\nformat:\n"
				 FIELD("s32", minor, s, 4, 1) FIELD("u32", pipe, s, 4, 0)
				 "\nprint fmt: \"\"\n",
				 offsetof(struct xp_vbl_crtc_raw, minor),
				 offsetof(struct xp_vbl_crtc_raw, pipe));
		return crtc_fmt;
	}
	if (ev == XP_VBL_PIPE) {
		if (!pipe_fmt[0])
			snprintf(pipe_fmt, sizeof(pipe_fmt),
				 "name: vblank_pipe\nID: 0\nformat:\n"
				 FIELD("s32", minor, s, 4, 1) FIELD("u32", crtc_id, s, 4, 0)
				 FIELD("u32", pipe, s, 4, 0) FIELD("u32", pad, s, 4, 0)
				 "\nprint fmt: \"\"\n",
				 offsetof(struct xp_vbl_pipe_raw, minor),
				 offsetof(struct xp_vbl_pipe_raw, crtc_id),
				 offsetof(struct xp_vbl_pipe_raw, pipe),
				 offsetof(struct xp_vbl_pipe_raw, pad));
		return pipe_fmt;
	}
	return NULL;
}

int xp_vbl_raw_cfg_fill(const struct xp_rawtp_layout *l, struct xp_vbl_raw_cfg cfg[XP_VBL_NDRM])
{
	memset(cfg, 0, sizeof(*cfg) * XP_VBL_NDRM);
	for (int e = 0; e < XP_VBL_NDRM && e < l->n; e++) {
		const struct xp_tp_format *f = &l->fmt[e];
		struct xp_vbl_raw_cfg *c = &cfg[e];

		for (int i = 0; i < XP_VBL_RAW_ARGS; i++)
			c->off[i] = -1;
		if (!l->present[e])
			continue;
		c->raw_size = f->size < XP_RAWTP_RAW ? f->size : XP_RAWTP_RAW;
		c->filter = l->ev[e].proc_ctx;
		for (int i = 0; i < f->nfields; i++) {
			const struct xp_tp_field *fl = &f->fields[i];

			if (fl->common)
				continue;
			if (fl->data_loc || c->nargs == XP_VBL_RAW_ARGS || fl->offset + fl->size > XP_RAWTP_RAW ||
			    (fl->size != 1 && fl->size != 2 && fl->size != 4 && fl->size != 8))
				return -EINVAL;
			c->off[c->nargs] = (int16_t)fl->offset;
			c->size[c->nargs++] = (uint8_t)fl->size;
		}
	}
	return 0;
}

const char *xp_vbl_kind_name(unsigned int kinds, char *buf, size_t len)
{
	static const char *const names[] = { "wait", "flip", "atomic", "seq" };
	size_t k = 0;

	buf[0] = '\0';
	for (int i = 0; i < 4 && k < len; i++)
		if (kinds & (1u << i))
			k += (size_t)snprintf(buf + k, len - k, "%s%s", k ? "+" : "", names[i]);
	if (!k)
		snprintf(buf, len, "-");
	return buf;
}

/* The kind of frame an ioctl asks for, from the event type and the ioctl number. */
unsigned int vbl_kind_of(uint32_t type, uint32_t nr)
{
	if (type == XP_DRM_EVENT_VBLANK)
		return XP_VBL_K_WAIT;
	if (type == XP_DRM_EVENT_CRTC_SEQUENCE)
		return XP_VBL_K_SEQ;
	/* a flip-complete event: ATOMIC (0xbc), else the legacy PAGE_FLIP (0xb0, 0xb1 target) */
	return nr == 0xbc ? XP_VBL_K_ATOMIC : XP_VBL_K_FLIP;
}

int xp_vbl_decode(const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r,
		  struct xp_vbl_event *ev)
{
	uint64_t crtc, seq, v = 0;
	int err;

	if (r->ev >= XP_VBL_NEV || r->ev >= l->n || !l->present[r->ev])
		return -ENOENT;
	memset(ev, 0, sizeof(*ev));
	ev->kind = (enum xp_vbl_tp)r->ev;
	ev->ts = r->hdr.ts_ns;
	ev->pid = r->hdr.pid;
	ev->tid = r->hdr.tid;
	memcpy(ev->comm, r->comm, XP_COMM_LEN);
	ev->comm[XP_COMM_LEN - 1] = '\0';
	ev->cpu = r->hdr.cpu;
	ev->dev = -1;
	if (ev->kind == XP_VBL_SUBMIT) {
		uint64_t t, id, nr, minor, sub;

		if (xp_rawtp_u64(l, r, "file", &ev->file) || xp_rawtp_u64(l, r, "type", &t) ||
		    xp_rawtp_u64(l, r, "crtc_id", &id) || xp_rawtp_u64(l, r, "minor", &minor) ||
		    xp_rawtp_u64(l, r, "ioctl_nr", &nr) || xp_rawtp_u64(l, r, "submit_ns", &sub))
			return -EBADMSG;
		(void)xp_rawtp_u64(l, r, "user_data", &ev->user_data);
		ev->type = (uint32_t)t;
		ev->crtc_id = (uint32_t)id;
		ev->ioctl_nr = (uint32_t)nr;
		ev->dev = (int32_t)(uint32_t)minor;
		ev->submit_ns = sub && sub <= ev->ts ? sub : ev->ts;
		ev->crtc = -1;
		return 0;
	}
	if (ev->kind == XP_VBL_PIPE) {
		uint64_t minor, id, pipe;

		if (xp_rawtp_u64(l, r, "minor", &minor) || xp_rawtp_u64(l, r, "crtc_id", &id) ||
		    xp_rawtp_u64(l, r, "pipe", &pipe))
			return -EBADMSG;
		ev->dev = (int32_t)(uint32_t)minor;
		ev->crtc_id = (uint32_t)id;
		ev->crtc = (int32_t)pipe;
		return 0;
	}
	if (ev->kind == XP_VBL_CRTC) {
		uint64_t minor, pipe;

		if (xp_rawtp_u64(l, r, "minor", &minor) || xp_rawtp_u64(l, r, "pipe", &pipe))
			return -EBADMSG;
		ev->dev = (int32_t)(uint32_t)minor;
		ev->crtc = (int32_t)pipe;
		return 0;
	}
	if ((err = xp_rawtp_u64(l, r, "crtc", &crtc)) || (err = xp_rawtp_u64(l, r, "seq", &seq)))
		return -EBADMSG;
	ev->crtc = (int32_t)crtc;
	ev->seq = (uint32_t)seq;
	if (ev->kind == XP_VBL_EVENT) {
		if (xp_rawtp_u64(l, r, "time", &ev->vtime))
			return -EBADMSG;
		if (!xp_rawtp_u64(l, r, "high_prec", &v))
			ev->high_prec = v != 0;
	} else if (xp_rawtp_u64(l, r, "file", &ev->file)) {
		return -EBADMSG;
	}
	return 0;
}
