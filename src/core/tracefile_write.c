/* The trace file writer (`record`). The format is described in tracefile.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/uio.h>
#include <sys/utsname.h>

#include "core/decode.h"
#include "core/tracefile.h"
#include "core/tracefile_int.h"
#include "core/record_kind.h"
#include "core/zstd.h"

/* ---- a growing byte buffer (metadata and layout blocks only) ---------- */

struct bytes {
	uint8_t *p;
	size_t len, cap;
	bool oom;
};

static uint8_t *bytes_add(struct bytes *b, size_t n)
{
	if (b->oom)
		return NULL;
	if (b->len + n > b->cap) {
		size_t cap = b->cap ? b->cap : 1024;
		uint8_t *p;

		while (cap < b->len + n)
			cap *= 2;
		if (!(p = realloc(b->p, cap))) {
			b->oom = true;
			return NULL;
		}
		b->p = p;
		b->cap = cap;
	}
	b->len += n;
	return b->p + b->len - n;
}

static void add_u8(struct bytes *b, uint8_t v) { uint8_t *p = bytes_add(b, 1); if (p) *p = v; }
static void add_u16(struct bytes *b, uint16_t v) { uint8_t *p = bytes_add(b, 2); if (p) put16(p, v); }
static void add_u32(struct bytes *b, uint32_t v) { uint8_t *p = bytes_add(b, 4); if (p) put32(p, v); }
static void add_u64(struct bytes *b, uint64_t v) { uint8_t *p = bytes_add(b, 8); if (p) put64(p, v); }
static void add_fixed(struct bytes *b, const char *s, size_t n)
{
	uint8_t *p = bytes_add(b, n);

	if (p) {
		memset(p, 0, n);
		memcpy(p, s, strnlen(s, n));
	}
}

/* A text entry of a char array (its size bounds the text: ASan builds check reads). */
#define tlv_str(b, count, tag, s) tlv_strn(b, count, tag, s, sizeof(s) < 255 ? sizeof(s) : 255)
static void tlv_strn(struct bytes *b, uint32_t *count, uint16_t tag, const char *s, size_t max)
{
	size_t n = strnlen(s, max);

	add_u16(b, tag);
	add_u16(b, (uint16_t)n);
	add_fixed(b, s, n);
	(*count)++;
}

static void tlv_u64(struct bytes *b, uint32_t *count, uint16_t tag, uint64_t v)
{
	add_u16(b, tag);
	add_u16(b, 8);
	add_u64(b, v);
	(*count)++;
}

static void tlv_u32(struct bytes *b, uint32_t *count, uint16_t tag, uint32_t v)
{
	add_u16(b, tag);
	add_u16(b, 4);
	add_u32(b, v);
	(*count)++;
}

static uint32_t encode_meta(struct bytes *b, const struct xp_trace_meta *m)
{
	const struct xp_devices *d = &m->devs;
	uint32_t n = 0;

	tlv_str(b, &n, XP_TAG_TOOL, m->tool);
	tlv_str(b, &n, XP_TAG_KERNEL, m->kernel);
	tlv_str(b, &n, XP_TAG_HOSTNAME, m->hostname);
	tlv_str(b, &n, XP_TAG_CLOCK, m->clock);
	tlv_u64(b, &n, XP_TAG_WALL_OFFSET, (uint64_t)m->wall_offset_ns);
	tlv_u64(b, &n, XP_TAG_START, m->start_ns);
	if (m->tracing_ns)
		tlv_u64(b, &n, XP_TAG_TRACING, m->tracing_ns);
	if (m->page_size)
		tlv_u32(b, &n, XP_TAG_PAGE_SIZE, m->page_size);
	for (int i = 0; i < m->ncaps; i++)
		tlv_str(b, &n, XP_TAG_CAPABILITY, m->caps[i]);
	if (m->hook[0])
		tlv_str(b, &n, XP_TAG_HOOK, m->hook);
	for (int i = 0; i < m->ncapopts; i++) {
		const struct xp_trace_capopt *o = &m->capopts[i];
		size_t lc = strlen(o->cap), ln = strlen(o->name), lv = strlen(o->value);

		add_u16(b, XP_TAG_CAP_OPTION);
		add_u16(b, (uint16_t)(lc + 1 + ln + 1 + lv));
		add_fixed(b, o->cap, lc + 1);
		add_fixed(b, o->name, ln + 1);
		add_fixed(b, o->value, lv);
		n++;
	}
	if (m->filter_pid)
		tlv_u32(b, &n, XP_TAG_FILTER_PID, m->filter_pid);
	if (m->filter_comm[0])
		tlv_str(b, &n, XP_TAG_FILTER_COMM, m->filter_comm);
	if (m->filter_cgroup)
		tlv_u64(b, &n, XP_TAG_FILTER_CGROUP, m->filter_cgroup);
	for (int i = 0; i < d->nmajors && i < XP_MAX_MAJORS; i++) {
		add_u16(b, XP_TAG_MAJOR);
		add_u16(b, 8 + 32);
		add_u32(b, d->majors[i].major);
		add_u32(b, d->majors[i].kind);
		add_fixed(b, d->majors[i].name, 32);
		n++;
	}
	for (int i = 0; i < d->nnodes && i < XP_MAX_DEVNODES; i++) {
		add_u16(b, XP_TAG_NODE);
		add_u16(b, 8 + 64 + 32);
		add_u32(b, d->nodes[i].dev);
		add_u32(b, d->nodes[i].kind);
		add_fixed(b, d->nodes[i].path, 64);
		add_fixed(b, d->nodes[i].driver, 32);
		n++;
	}
	for (int i = 0; i < d->nextra && i < 64; i++)
		tlv_u32(b, &n, XP_TAG_EXTRA_DEV, d->extra[i]);
	return n;
}

static uint32_t encode_tpf(struct bytes *b, const struct xp_trace_tpf *t)
{
	const struct xp_tp_format *f = &t->fmt;
	char name[2 * XP_TP_NAME_LEN + 2];
	size_t nl = (size_t)snprintf(name, sizeof(name), "%s/%s", t->group, f->name);
	int nf = f->nfields < XP_TP_MAX_FIELDS ? f->nfields : XP_TP_MAX_FIELDS;

	add_u16(b, t->rectype);
	add_u16(b, f->size);
	add_u16(b, (uint16_t)nf);
	add_u16(b, (uint16_t)nl);
	add_fixed(b, name, nl);
	for (int k = 0; k < nf; k++) {
		const struct xp_tp_field *x = &f->fields[k];
		size_t fl = strnlen(x->name, XP_TP_NAME_LEN - 1);

		add_u16(b, x->offset);
		add_u16(b, x->size);
		add_u8(b, x->rel_loc ? XP_FIELD_REL_LOC : x->data_loc ? XP_FIELD_DATA_LOC
			  : x->is_signed ? XP_FIELD_INT : XP_FIELD_UINT);
		add_u8(b, (uint8_t)fl);
		add_fixed(b, x->name, fl);
	}
	return 1;
}

static uint32_t encode_layouts(struct bytes *b, const struct xp_trace_meta *m)
{
	uint32_t n = 0;

	for (int i = 0; i < m->ntpf && i < XP_TF_MAX_TPF; i++)
		n += encode_tpf(b, &m->tpf[i]);

	/* the fixed layouts of the kinds in use (core/record_kind.h) */
	for (size_t i = 0; i < xp_rec_kinds_count(); i++) {
		const struct xp_rec_kind *l = xp_rec_kind_at(i);
		size_t nl;

		if (!l->fields)
			continue;
		n++;
		nl = strlen(l->name);
		add_u16(b, l->type);
		add_u16(b, l->min_size);
		add_u16(b, (uint16_t)l->nfields);
		add_u16(b, (uint16_t)nl);
		add_fixed(b, l->name, nl);
		for (size_t k = 0; k < l->nfields; k++) {
			const struct xp_rec_field *f = &l->fields[k];
			size_t fl = strlen(f->name);

			add_u16(b, f->off);
			add_u16(b, f->size);
			add_u8(b, f->kind);
			add_u8(b, (uint8_t)fl);
			add_fixed(b, f->name, fl);
		}
	}
	return n;
}
/* ---- writer ----------------------------------------------------------- */

struct xp_trace_writer {
	int fd;
	uint8_t *buf;
	size_t cap, len;	/* packed: a block is flushed once len reaches cap */
	size_t alloc;		/* buf's bytes: cap, plus room for one more packed record */
	uint32_t count;		/* records in buf */
	uint64_t records, bytes, blocks;
	struct xp_pack *pack;	/* format 2; NULL: format 1.1, records as they are */
	struct xp_zstd *z;	/* compressing */
};

static int write_all(int fd, struct iovec *iov, int n)
{
	while (n > 0) {
		ssize_t w = writev(fd, iov, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		while (n > 0 && (size_t)w >= iov->iov_len) {
			w -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n > 0) {
			iov->iov_base = (char *)iov->iov_base + w;
			iov->iov_len -= (size_t)w;
		}
	}
	return 0;
}

static int write_block(struct xp_trace_writer *w, uint32_t kind, const void *payload, size_t len,
		       uint32_t count)
{
	static const uint8_t zeros[8];
	uint8_t hdr[XP_TF_BLOCK_HDR];
	struct iovec iov[3] = {
		{ hdr, sizeof(hdr) },
		{ (void *)payload, len },
		{ (void *)zeros, pad8(len) - len },
	};
	int err;

	put32(hdr, kind);
	put32(hdr + 4, (uint32_t)len);
	put32(hdr + 8, count);
	put32(hdr + 12, xp_crc32(0, payload, len));
	put32(hdr + 16, xp_crc32(0, hdr, 16));
	put32(hdr + 20, 0);
	/* one writev per block: a killed recorder leaves whole blocks and at most one cut */
	if ((err = write_all(w->fd, iov, 3)))
		return err;
	w->bytes += sizeof(hdr) + pad8(len);
	w->blocks++;
	return 0;
}

/* The PACKED block's payload: its 8-byte head, the records, compressed if that is smaller. */
static int flush_packed(struct xp_trace_writer *w)
{
	const uint8_t *payload = w->buf;
	size_t len = w->len, zlen;

	put32(w->buf, XP_TF_PLAIN);
	put32(w->buf + 4, (uint32_t)(w->len - 8));
	if (w->z && (zlen = xp_zstd_pack(w->z, w->buf + 8, w->len - 8)) && zlen + 8 < w->len) {
		payload = xp_zstd_out(w->z);
		len = zlen + 8;
	}
	return write_block(w, XP_TF_PACKED, payload, len, w->count);
}

static int flush_events(struct xp_trace_writer *w)
{
	int err;

	if (!w->count)
		return 0;
	if (w->pack)
		err = flush_packed(w);
	else
		err = write_block(w, XP_TF_EVENTS, w->buf, w->len, w->count);
	w->len = w->pack ? 8 : 0;
	w->count = 0;
	if (w->pack)
		xp_pack_reset(w->pack);
	return err;
}

/* The PACKING block: the plans of the kinds in use. */
static uint32_t encode_plans(struct bytes *b, const struct xp_pack *p)
{
	unsigned int np = xp_pack_nplans(p);

	for (unsigned int i = 0; i < np; i++) {
		const struct xp_pack_seg *segs;
		unsigned int n;

		add_u16(b, xp_pack_plan_at(p, i, &segs, &n));
		add_u16(b, (uint16_t)n);
		for (unsigned int k = 0; k < n; k++) {
			add_u16(b, segs[k].off);
			add_u16(b, segs[k].size);
			add_u8(b, segs[k].code);
			add_u8(b, 0);
		}
	}
	return np;
}

static int writer_pack(struct xp_trace_writer *w, const struct xp_trace_wopts *o)
{
	int err;

	if (!(w->pack = xp_pack_new()))
		return -ENOMEM;
	for (size_t i = 0; i < xp_rec_kinds_count(); i++)
		if ((err = xp_pack_plan_kind(w->pack, xp_rec_kind_at(i))))
			return err;
	xp_pack_reset(w->pack);
	w->len = 8;
	if (o->zstd_level > 0 && !(w->z = xp_zstd_new(o->zstd_level, w->alloc)))
		return xp_trace_zstd() ? -ENOMEM : -ENOTSUP;
	return 0;
}

/* The file header and the blocks before the records. */
static int write_head(struct xp_trace_writer *w, const struct xp_trace_meta *m)
{
	struct bytes meta = { 0 }, lay = { 0 }, plans = { 0 };
	uint8_t fh[XP_TF_FILE_HDR];
	struct iovec iov = { fh, sizeof(fh) };
	uint32_t nmeta, nlay, nplans = 0;
	int err;

	memcpy(fh, XP_TF_MAGIC, 8);
	put16(fh + 8, w->pack ? XP_TF_VERSION_MAJOR : XP_TF_RAW_MAJOR);
	put16(fh + 10, w->pack ? XP_TF_VERSION_MINOR : XP_TF_RAW_MINOR);
	put32(fh + 12, XP_TF_FILE_HDR);
	nmeta = encode_meta(&meta, m);
	nlay = encode_layouts(&lay, m);
	if (w->pack)
		nplans = encode_plans(&plans, w->pack);
	err = meta.oom || lay.oom || plans.oom ? -ENOMEM : write_all(w->fd, &iov, 1);
	if (!err) {
		w->bytes = sizeof(fh);
		err = write_block(w, XP_TF_META, meta.p, meta.len, nmeta);
	}
	if (!err)
		err = write_block(w, XP_TF_LAYOUT, lay.p, lay.len, nlay);
	if (!err && w->pack)
		err = write_block(w, XP_TF_PACKING, plans.p, plans.len, nplans);
	free(meta.p);
	free(lay.p);
	free(plans.p);
	return err;
}

int xp_trace_writer_open_opts(struct xp_trace_writer **out, int fd, const struct xp_trace_meta *m,
			      const struct xp_trace_wopts *o)
{
	struct xp_trace_writer *w = calloc(1, sizeof(*w));
	size_t block_size = o->block_size ? o->block_size : XP_TF_DEFAULT_BLOCK;
	int err = 0;

	/* room for the largest record hdr.size can describe */
	if (block_size < 65536)
		block_size = 65536;
	if (block_size > (o->raw ? XP_TF_MAX_BLOCK : XP_TF_MAX_BLOCK / 2))
		block_size = o->raw ? XP_TF_MAX_BLOCK : XP_TF_MAX_BLOCK / 2;
	if (!w)
		return -ENOMEM;
	w->fd = fd;
	w->cap = block_size;
	/* packed: one more record of the largest size fits past cap */
	w->alloc = o->raw ? block_size : block_size + 8 + xp_pack_bound(XP_PACK_MAX_REC);
	if (!(w->buf = malloc(w->alloc)))
		err = -ENOMEM;
	if (!err && !o->raw)
		err = writer_pack(w, o);
	if (!err)
		err = write_head(w, m);
	if (err) {
		xp_trace_writer_free(w);
		return err;
	}
	*out = w;
	return 0;
}

int xp_trace_writer_open(struct xp_trace_writer **out, int fd, const struct xp_trace_meta *m,
			 size_t block_size)
{
	struct xp_trace_wopts o = { .block_size = block_size };

	return xp_trace_writer_open_opts(out, fd, m, &o);
}

int xp_trace_writer_add(struct xp_trace_writer *w, const struct xp_rec_hdr *h)
{
	size_t n = pad8(h->size);
	int err;

	if (h->size < sizeof(*h))
		return -EINVAL;
	if (w->pack) {
		w->len += xp_pack_rec(w->pack, h, w->buf + w->len);
		w->count++;
		w->records++;
		/* a block ends once it is full: the next record always fits its slack */
		return w->len >= w->cap ? flush_events(w) : 0;
	}
	if (w->len + n > w->cap && (err = flush_events(w)))
		return err;
	memcpy(w->buf + w->len, h, h->size);
	memset(w->buf + w->len + h->size, 0, n - h->size);
	w->len += n;
	w->count++;
	w->records++;
	return 0;
}

static int write_stats(struct xp_trace_writer *w, uint32_t kind, const struct xp_trace_stats *s)
{
	uint8_t p[16 + 8 * XP_DROP_ALL];
	int err;

	if ((err = flush_events(w)))
		return err;
	put64(p, s->ts_ns);
	put64(p + 8, w->records);
	for (int i = 0; i < XP_DROP_ALL; i++)
		put64(p + 16 + 8 * i, s->drops[i]);
	return write_block(w, kind, p, sizeof(p), XP_DROP_ALL);
}

int xp_trace_writer_stats(struct xp_trace_writer *w, const struct xp_trace_stats *s)
{
	return write_stats(w, XP_TF_STATS, s);
}

int xp_trace_writer_finish(struct xp_trace_writer *w, const struct xp_trace_stats *s)
{
	return write_stats(w, XP_TF_TRAILER, s);
}

void xp_trace_writer_free(struct xp_trace_writer *w)
{
	if (!w)
		return;
	xp_pack_free(w->pack);
	xp_zstd_free(w->z);
	free(w->buf);
	free(w);
}

uint64_t xp_trace_writer_records(const struct xp_trace_writer *w) { return w->records; }
uint64_t xp_trace_writer_bytes(const struct xp_trace_writer *w) { return w->bytes; }
uint64_t xp_trace_writer_blocks(const struct xp_trace_writer *w) { return w->blocks; }
