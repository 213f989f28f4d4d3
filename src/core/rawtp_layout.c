#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/rawtp_layout.h"

int xp_rawtp_layout_init(struct xp_rawtp_layout *l, const struct xp_rawtp_event *ev, int n)
{
	memset(l, 0, sizeof(*l));
	if (n < 0 || n > XP_RAWTP_MAX_EV)
		return -EINVAL;
	l->ev = ev;
	l->n = n;
	for (int i = 0; i < n; i++)
		snprintf(l->group[i], sizeof(l->group[i]), "%s", ev[i].group);
	return 0;
}

int xp_rawtp_set_group(struct xp_rawtp_layout *l, const char *group, const char *actual)
{
	int k = 0;

	for (int i = 0; i < l->n; i++)
		if (!strcmp(l->ev[i].group, group)) {
			snprintf(l->group[i], sizeof(l->group[i]), "%s", actual);
			k++;
		}
	return k;
}

static void count(struct xp_rawtp_layout *l)
{
	l->npresent = 0;
	for (int i = 0; i < l->n; i++)
		l->npresent += l->present[i];
}

int xp_rawtp_layout_load(struct xp_rawtp_layout *l, const char *tracefs, char *why, size_t whylen)
{
	for (int i = 0; i < l->n; i++) {
		int err = xp_tp_format_load(tracefs, l->group[i], l->ev[i].name, &l->fmt[i]);

		l->present[i] = false;
		if (err == -ENOENT)
			continue;
		if (err) {
			snprintf(why, whylen, "reading the format of %s/%s: %s", l->group[i],
				 l->ev[i].name, strerror(-err));
			return err;
		}
		l->present[i] = true;
	}
	count(l);
	return l->npresent;
}

int xp_rawtp_layout_parse(struct xp_rawtp_layout *l, int i, const char *text)
{
	int err;

	if (i < 0 || i >= l->n)
		return -EINVAL;
	err = xp_tp_format_parse(text, &l->fmt[i]);
	l->present[i] = !err;
	count(l);
	return err;
}

void xp_rawtp_cfg_fill(const struct xp_rawtp_layout *l, struct xp_rawtp_cfg cfg[XP_RAWTP_MAX_EV])
{
	for (int i = 0; i < XP_RAWTP_MAX_EV; i++) {
		struct xp_rawtp_cfg *c = &cfg[i];

		memset(c, 0, sizeof(*c));
		c->str_off[0] = c->str_off[1] = -1;
		if (i >= l->n || !l->present[i])
			continue;
		c->raw_size = l->fmt[i].size < XP_RAWTP_RAW ? l->fmt[i].size : XP_RAWTP_RAW;
		for (int s = 0; s < XP_RAWTP_NSTR; s++) {
			const struct xp_tp_field *f;

			if (!l->ev[i].str[s] || !(f = xp_tp_field(&l->fmt[i], l->ev[i].str[s])))
				continue;
			/* a __rel_loc, or a word past the copied bytes, is not read */
			if (f->data_loc && !f->rel_loc && f->offset + 4 <= XP_RAWTP_RAW)
				c->str_off[s] = (int16_t)f->offset;
		}
	}
}

int xp_rawtp_u64(const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r, const char *name,
		 uint64_t *v)
{
	const struct xp_tp_field *f;
	size_t len = r->raw_len < XP_RAWTP_RAW ? r->raw_len : XP_RAWTP_RAW;

	*v = 0;
	if (r->ev >= l->n || !l->present[r->ev])
		return -ENOENT;
	f = xp_tp_field(&l->fmt[r->ev], name);
	if (!f)
		return -ENOENT;
	return xp_tp_read_u64(f, r->raw, len, v) ? -EBADMSG : 0;
}

const char *xp_rawtp_rec_str(const struct xp_rawtp_rec *r, int i, char *buf, size_t len)
{
	size_t n = r->str_len[i] < XP_RAWTP_STR ? r->str_len[i] : XP_RAWTP_STR - 1;

	if (!len)
		return buf;
	if (n >= len)
		n = len - 1;
	memcpy(buf, r->str[i], n);
	buf[n] = '\0';
	return buf;
}

const struct xp_rec_pack xp_rawtp_pack[XP_RAWTP_NPACK] = {
	XP_REC_P(struct xp_rawtp_rec, ev, XP_PACK_UINT),
	XP_REC_P(struct xp_rawtp_rec, raw_len, XP_PACK_UINT),
	XP_REC_P(struct xp_rawtp_rec, str_len, XP_PACK_INTERN),
	XP_REC_P(struct xp_rawtp_rec, comm, XP_PACK_INTERN),
	XP_REC_P(struct xp_rawtp_rec, raw, XP_PACK_RAW),
	XP_REC_P(struct xp_rawtp_rec, str[0], XP_PACK_INTERN),
	XP_REC_P(struct xp_rawtp_rec, str[1], XP_PACK_INTERN),
};

uint64_t xp_rawtp_cgroup(const struct xp_rawtp_rec *r)
{
	uint64_t cg;

	if (r->raw_len > XP_RAWTP_CGROUP_AT)
		return 0;
	memcpy(&cg, &r->raw[XP_RAWTP_CGROUP_AT], sizeof(cg));
	return cg;
}
