/* The trace file reader's blocks before the records: metadata, layouts and
 * packing plans (tracefile_read.c reads the blocks). The format is described
 * in tracefile.h. */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/pack.h"
#include "core/record_kind.h"
#include "core/tracefile.h"
#include "core/tracefile_int.h"

#define fail xp_tf_fail

static void copy_str(char *dst, size_t dstlen, const uint8_t *src, size_t n)
{
	if (n >= dstlen)
		n = dstlen - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

static enum xp_dev_kind kind_of(uint32_t k)
{
	return k <= XP_DEV_KFD ? (enum xp_dev_kind)k : XP_DEV_OTHER;
}

/* An entry of the recording machine's device table (majors, nodes, extra
 * devices) into d; false when its length does not fit its tag. */
static bool meta_dev_entry(struct xp_devices *d, uint16_t tag, const uint8_t *v, uint16_t vl)
{
	bool bad = false;

	switch (tag) {
	case XP_TAG_EXTRA_DEV:
		if (!(bad = vl != 4) && d->nextra < 64)
			d->extra[d->nextra++] = get32(v);
		break;
	case XP_TAG_MAJOR:
		if (!(bad = vl != 8 + 32) && d->nmajors < XP_MAX_MAJORS) {
			struct xp_major *mj = &d->majors[d->nmajors++];

			mj->major = get32(v);
			mj->kind = kind_of(get32(v + 4));
			copy_str(mj->name, sizeof(mj->name), v + 8, 32);
		}
		break;
	case XP_TAG_NODE:
		if (!(bad = vl != 8 + 64 + 32) && d->nnodes < XP_MAX_DEVNODES) {
			struct xp_devnode *nd = &d->nodes[d->nnodes++];

			nd->dev = get32(v);
			nd->kind = kind_of(get32(v + 4));
			copy_str(nd->path, sizeof(nd->path), v + 8, 64);
			copy_str(nd->driver, sizeof(nd->driver), v + 72, 32);
		}
		break;
	}
	return !bad;
}

/* One metadata entry into m; false when its length does not fit its tag. */
static bool meta_entry(struct xp_trace_meta *m, uint16_t tag, const uint8_t *v, uint16_t vl)
{
	bool bad = false;

	switch (tag) {
	case XP_TAG_TOOL: copy_str(m->tool, sizeof(m->tool), v, vl); break;
	case XP_TAG_KERNEL: copy_str(m->kernel, sizeof(m->kernel), v, vl); break;
	case XP_TAG_HOSTNAME: copy_str(m->hostname, sizeof(m->hostname), v, vl); break;
	case XP_TAG_CLOCK: copy_str(m->clock, sizeof(m->clock), v, vl); break;
	case XP_TAG_HOOK: copy_str(m->hook, sizeof(m->hook), v, vl); break;
	case XP_TAG_FILTER_COMM: copy_str(m->filter_comm, sizeof(m->filter_comm), v, vl); break;
	case XP_TAG_CAPABILITY:
	{
		char name[16];

		copy_str(name, sizeof(name), v, vl);
		if (xp_trace_meta_add_cap(m, name))
			bad = true;
		break;
	}
	case XP_TAG_CAP_OPTION:
	{
		const uint8_t *n1 = memchr(v, 0, vl), *n2 = n1 ? memchr(n1 + 1, 0, vl - (size_t)(n1 + 1 - v)) : NULL;
		char cap[16], name[32], value[200];

		if ((bad = !n2))
			break;
		copy_str(cap, sizeof(cap), v, (uint16_t)(n1 - v));
		copy_str(name, sizeof(name), n1 + 1, (uint16_t)(n2 - n1 - 1));
		copy_str(value, sizeof(value), n2 + 1, (uint16_t)(vl - (n2 + 1 - v)));
		bad = xp_trace_meta_add_capopt(m, cap, name, value) == -ENOMEM;
		break;
	}
	case XP_TAG_WALL_OFFSET:
		if (!(bad = vl != 8))
			m->wall_offset_ns = (int64_t)get64(v);
		break;
	case XP_TAG_START:
		if (!(bad = vl != 8))
			m->start_ns = get64(v);
		break;
	case XP_TAG_TRACING:
		if (!(bad = vl != 8))
			m->tracing_ns = get64(v);
		break;
	case XP_TAG_FILTER_CGROUP:
		if (!(bad = vl != 8))
			m->filter_cgroup = get64(v);
		break;
	case XP_TAG_FILTER_PID:
		if (!(bad = vl != 4))
			m->filter_pid = get32(v);
		break;
	case XP_TAG_PAGE_SIZE:
		if (!(bad = vl != 4))
			m->page_size = get32(v);
		break;
	case XP_TAG_EXTRA_DEV:
	case XP_TAG_MAJOR:
	case XP_TAG_NODE:
		return meta_dev_entry(&m->devs, tag, v, vl);
	default:
		break;	/* a newer writer's entry */
	}
	return !bad;
}

int xp_tf_parse_meta(struct xp_trace_reader *r, const uint8_t *p, uint32_t len, uint32_t count)
{
	struct xp_trace_meta *m = &r->meta;
	uint32_t pos = 0, n = 0;

	while (pos < len) {
		uint16_t tag, vl;
		const uint8_t *v;
		bool bad = false;

		if (len - pos < 4)
			return fail(r, -EBADMSG, "corrupt trace file: metadata entry %u is cut short", n);
		tag = get16(p + pos);
		vl = get16(p + pos + 2);
		v = p + pos + 4;
		if (vl > len - pos - 4)
			return fail(r, -EBADMSG, "corrupt trace file: metadata entry %u overruns its block", n);
		bad = !meta_entry(m, tag, v, vl);
		if (bad)
			return fail(r, -EBADMSG, "corrupt trace file: metadata entry %u (tag %u) has length %u",
				    n, tag, vl);
		pos += 4u + vl;
		n++;
	}
	if (n != count)
		return fail(r, -EBADMSG, "corrupt trace file: metadata has %u entries, its header says %u",
			    n, count);
	return 0;
}

/* A tracefs event layout entry ("GROUP/EVENT"): a new slot in r->meta.tpf. */
static struct xp_trace_tpf *tpf_new(struct xp_trace_reader *r, uint16_t type, uint16_t size,
				    uint16_t nf, const uint8_t *name, uint16_t nl, uint32_t n, int *err)
{
	struct xp_trace_meta *m = &r->meta;
	const uint8_t *slash = memchr(name, '/', nl);
	size_t gl = (size_t)(slash - name), el = nl - gl - 1;
	struct xp_trace_tpf *t;

	*err = 0;
	if (m->ntpf >= XP_TF_MAX_TPF)
		*err = fail(r, -EBADMSG, "corrupt trace file: more than %d tracefs layouts", XP_TF_MAX_TPF);
	else if (nf > XP_TP_MAX_FIELDS)
		*err = fail(r, -EBADMSG, "corrupt trace file: layout %u has %u fields (at most %d)", n, nf,
			    XP_TP_MAX_FIELDS);
	else if (!gl || !el || gl >= XP_TP_NAME_LEN || el >= XP_TP_NAME_LEN)
		*err = fail(r, -EBADMSG, "corrupt trace file: layout %u has a bad event name", n);
	if (*err)
		return NULL;
	t = realloc(m->tpf, (size_t)(m->ntpf + 1) * sizeof(*t));
	if (!t) {
		*err = fail(r, -ENOMEM, "out of memory reading the layouts");
		return NULL;
	}
	m->tpf = t;
	t = &m->tpf[m->ntpf++];
	memset(t, 0, sizeof(*t));
	t->rectype = type;
	t->fmt.size = size;
	memcpy(t->group, name, gl);
	memcpy(t->fmt.name, slash + 1, el);
	return t;
}

static int tpf_field(struct xp_trace_reader *r, struct xp_trace_tpf *t, uint16_t off, uint16_t size,
		     uint8_t kind, const uint8_t *name, uint8_t fl, uint32_t n)
{
	struct xp_tp_field *x = &t->fmt.fields[t->fmt.nfields];

	if (kind < XP_FIELD_UINT || kind > XP_FIELD_REL_LOC || kind == XP_FIELD_CHARS ||
	    !fl || fl >= XP_TP_NAME_LEN)
		return fail(r, -EBADMSG, "corrupt trace file: layout %u has a bad field", n);
	memcpy(x->name, name, fl);
	x->offset = off;
	x->size = size;
	x->is_signed = kind == XP_FIELD_INT;
	x->data_loc = kind >= XP_FIELD_DATA_LOC;
	x->rel_loc = kind == XP_FIELD_REL_LOC;
	x->common = fl >= 7 && !memcmp(name, "common_", 7);
	snprintf(x->type, sizeof(x->type), "%s",
		 x->data_loc ? "__data_loc" : x->is_signed ? "int" : "unsigned");
	t->fmt.nfields++;
	return 0;
}

/*
 * One field of layout n, at *pos: kept in tpf (a tracefs event layout) or
 * checked against mine (a record type this build knows), marking seen[].
 */
static int layout_field(struct xp_trace_reader *r, const uint8_t *p, uint32_t len, uint32_t *pos,
			uint32_t n, struct xp_trace_tpf *tpf, const struct xp_rec_kind *mine, bool *seen)
{
	uint16_t off, fsz;
	uint8_t fl, kind;
	int err;

	if (len - *pos < 6)
		return fail(r, -EBADMSG, "corrupt trace file: layout %u is cut short", n);
	off = get16(p + *pos);
	fsz = get16(p + *pos + 2);
	kind = p[*pos + 4];
	fl = p[*pos + 5];
	*pos += 6;
	if (fl > len - *pos)
		return fail(r, -EBADMSG, "corrupt trace file: layout %u overruns its block", n);
	if (tpf && (err = tpf_field(r, tpf, off, fsz, kind, p + *pos, fl, n)))
		return err;
	for (size_t i = 0; mine && i < mine->nfields && i < 64; i++) {
		const struct xp_rec_field *f = &mine->fields[i];

		if (strlen(f->name) != fl || memcmp(f->name, p + *pos, fl))
			continue;
		if (f->off != off || f->size != fsz)
			return fail(r, -EPROTO,
				    "trace file has %s.%s at offset %u (%u bytes); this xputrace expects %u (%u bytes)",
				    mine->name, f->name, off, fsz, f->off, f->size);
		seen[i] = true;
	}
	*pos += fl;
	return 0;
}

/*
 * Checks the file's layout of each record type this build knows against
 * its own, and keeps the tracefs event layouts the file carries.
 */
int xp_tf_check_layout(struct xp_trace_reader *r, const uint8_t *p, uint32_t len, uint32_t count)
{
	uint32_t pos = 0, n = 0;

	while (pos < len) {
		uint16_t type, size, nf, nl;
		const struct xp_rec_kind *mine = NULL;
		struct xp_trace_tpf *tpf = NULL;
		bool seen[64] = { false };
		int err;

		if (len - pos < 8)
			return fail(r, -EBADMSG, "corrupt trace file: layout %u is cut short", n);
		type = get16(p + pos);
		size = get16(p + pos + 2);
		nf = get16(p + pos + 4);
		nl = get16(p + pos + 6);
		pos += 8;
		if (nl > len - pos)
			return fail(r, -EBADMSG, "corrupt trace file: layout %u overruns its block", n);
		if (memchr(p + pos, '/', nl)) {
			if (!(tpf = tpf_new(r, type, size, nf, p + pos, nl, n, &err)))
				return err;
		} else {
			mine = xp_rec_kind_of(type);
			if (mine && !mine->fields)
				mine = NULL;
		}
		pos += nl;
		if (mine && size < mine->min_size)
			return fail(r, -EPROTO, "trace file has %s records of %u bytes; this xputrace reads %u",
				    mine->name, size, mine->min_size);
		for (uint16_t k = 0; k < nf; k++)
			if ((err = layout_field(r, p, len, &pos, n, tpf, mine, seen)))
				return err;
		for (size_t i = 0; mine && i < mine->nfields && i < 64; i++)
			if (!seen[i])
				return fail(r, -EPROTO, "trace file's %s records lack the field %s",
					    mine->name, mine->fields[i].name);
		n++;
	}
	if (n != count)
		return fail(r, -EBADMSG, "corrupt trace file: %u layouts, its header says %u", n, count);
	return 0;
}

/* The PACKING block's plans, into a new r->pack. */
int xp_tf_parse_plans(struct xp_trace_reader *r, const uint8_t *p, uint32_t len, uint32_t count)
{
	struct xp_pack_seg segs[XP_PACK_MAX_SEGS];
	uint32_t pos = 0, n = 0;
	const char *why;

	if (!(r->pack = xp_pack_new()) || !(r->rec = malloc(XP_PACK_MAX_REC + 1)))
		return fail(r, -ENOMEM, "out of memory reading the packing plans");
	for (; pos < len; n++) {
		uint16_t type, nseg;

		if (len - pos < 4)
			return fail(r, -EBADMSG, "corrupt trace file: packing plan %u is cut short", n);
		type = get16(p + pos);
		nseg = get16(p + pos + 2);
		pos += 4;
		if (nseg > XP_PACK_MAX_SEGS || (len - pos) / 6 < nseg)
			return fail(r, -EBADMSG, "corrupt trace file: packing plan %u has %u segments", n, nseg);
		for (unsigned int k = 0; k < nseg; k++, pos += 6) {
			segs[k] = (struct xp_pack_seg){ get16(p + pos), get16(p + pos + 2), p[pos + 4], 0 };
			if (p[pos + 5])
				return fail(r, -EBADMSG, "corrupt trace file: packing plan %u has a bad segment", n);
		}
		if (xp_pack_plan_add(r->pack, type, segs, nseg, &why))
			return fail(r, -EBADMSG, "corrupt trace file: packing plan %u: %s", n, why);
	}
	if (n != count)
		return fail(r, -EBADMSG, "corrupt trace file: %u packing plans, its header says %u", n, count);
	return 0;
}
