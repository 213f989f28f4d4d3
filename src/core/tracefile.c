/* Trace files: the writer `record` uses and the reader `report` and
 * `export` use. The format is described in tracefile.h. */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/uio.h>
#include <sys/utsname.h>

#include "core/decode.h"
#include "core/tracefile.h"
#include "shared/ioctl.h"

/* ---- little-endian fields --------------------------------------------- */

static void put16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)v; p[1] = (uint8_t)(v >> 8); }
static void put32(uint8_t *p, uint32_t v) { put16(p, (uint16_t)v); put16(p + 2, (uint16_t)(v >> 16)); }
static void put64(uint8_t *p, uint64_t v) { put32(p, (uint32_t)v); put32(p + 4, (uint32_t)(v >> 32)); }
static uint16_t get16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t get32(const uint8_t *p) { return get16(p) | (uint32_t)get16(p + 2) << 16; }
static uint64_t get64(const uint8_t *p) { return get32(p) | (uint64_t)get32(p + 4) << 32; }

/*
 * Fuzzing builds do not check CRCs, or the fuzzer would never get past
 * them to the parsers behind (the libFuzzer convention for this flag).
 */
#ifdef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION
#define CRC_MISMATCH(a, b) ((void)(a), (void)(b), false)
#else
#define CRC_MISMATCH(a, b) ((a) != (b))
#endif

static size_t pad8(size_t n) { return (n + 7) & ~(size_t)7; }

uint32_t xp_crc32(uint32_t crc, const void *buf, size_t len)
{
	static uint32_t table[256];
	const uint8_t *p = buf;

	if (!table[1]) {
		for (uint32_t i = 0; i < 256; i++) {
			uint32_t c = i;

			for (int k = 0; k < 8; k++)
				c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
			table[i] = c;
		}
	}
	crc = ~crc;
	while (len--)
		crc = table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

static const char *block_name(uint32_t kind)
{
	switch (kind) {
	case XP_TF_META: return "metadata";
	case XP_TF_LAYOUT: return "layout";
	case XP_TF_EVENTS: return "events";
	case XP_TF_STATS: return "stats";
	case XP_TF_TRAILER: return "trailer";
	default: return "unknown";
	}
}

/* ---- record layouts --------------------------------------------------- */

struct field {
	const char *name;
	uint16_t off, size;
	uint8_t kind;
};

#define F(T, member, kind) { #member, offsetof(T, member), sizeof(((T *)0)->member), kind }
#define HDR_FIELDS(T)                                                                      \
	{ "type", offsetof(T, hdr.type), 2, XP_FIELD_UINT },                               \
	{ "size", offsetof(T, hdr.size), 2, XP_FIELD_UINT },                               \
	{ "cpu", offsetof(T, hdr.cpu), 4, XP_FIELD_UINT },                                 \
	{ "ts_ns", offsetof(T, hdr.ts_ns), 8, XP_FIELD_UINT },                             \
	{ "pid", offsetof(T, hdr.pid), 4, XP_FIELD_UINT },                                 \
	{ "tid", offsetof(T, hdr.tid), 4, XP_FIELD_UINT }

static const struct field ioctl_fields[] = {
	HDR_FIELDS(struct xp_ioctl_rec),
	F(struct xp_ioctl_rec, lat_ns, XP_FIELD_UINT),
	F(struct xp_ioctl_rec, arg, XP_FIELD_UINT),
	F(struct xp_ioctl_rec, cgroup_id, XP_FIELD_UINT),
	F(struct xp_ioctl_rec, cmd, XP_FIELD_UINT),
	F(struct xp_ioctl_rec, dev, XP_FIELD_UINT),
	F(struct xp_ioctl_rec, fd, XP_FIELD_INT),
	F(struct xp_ioctl_rec, ret, XP_FIELD_INT),
	F(struct xp_ioctl_rec, comm, XP_FIELD_CHARS),
};

static const struct layout {
	uint16_t type, size;
	const char *name;
	const struct field *fields;
	size_t nfields;
} layouts[] = {
	{ XP_REC_IOCTL, sizeof(struct xp_ioctl_rec), "ioctl", ioctl_fields,
	  sizeof(ioctl_fields) / sizeof(ioctl_fields[0]) },
};
#define NLAYOUTS (sizeof(layouts) / sizeof(layouts[0]))

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

static void tlv_str(struct bytes *b, uint32_t *count, uint16_t tag, const char *s)
{
	size_t n = strnlen(s, 255);

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
	if (m->page_size)
		tlv_u32(b, &n, XP_TAG_PAGE_SIZE, m->page_size);
	for (int i = 0; i < m->ncaps && i < XP_TF_MAX_CAPS; i++)
		tlv_str(b, &n, XP_TAG_CAPABILITY, m->caps[i]);
	if (m->hook[0])
		tlv_str(b, &n, XP_TAG_HOOK, m->hook);
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
	uint32_t n = NLAYOUTS;

	for (int i = 0; i < m->ntpf && i < XP_TF_MAX_TPF; i++)
		n += encode_tpf(b, &m->tpf[i]);

	for (size_t i = 0; i < NLAYOUTS; i++) {
		const struct layout *l = &layouts[i];
		size_t nl = strlen(l->name);

		add_u16(b, l->type);
		add_u16(b, l->size);
		add_u16(b, (uint16_t)l->nfields);
		add_u16(b, (uint16_t)nl);
		add_fixed(b, l->name, nl);
		for (size_t k = 0; k < l->nfields; k++) {
			const struct field *f = &l->fields[k];
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

int xp_trace_meta_add_layout(struct xp_trace_meta *m, uint16_t rectype,
			     const struct xp_rawtp_layout *l)
{
	for (int i = 0; i < l->n; i++) {
		struct xp_trace_tpf *t;

		if (!l->present[i])
			continue;
		if (m->ntpf >= XP_TF_MAX_TPF)
			return -E2BIG;
		t = realloc(m->tpf, (size_t)(m->ntpf + 1) * sizeof(*t));
		if (!t)
			return -ENOMEM;
		m->tpf = t;
		t = &m->tpf[m->ntpf++];
		memset(t, 0, sizeof(*t));
		t->rectype = rectype;
		snprintf(t->group, sizeof(t->group), "%s", l->group[i]);
		t->fmt = l->fmt[i];
		/* matched by name when read back: the table's name, whatever the parser saw */
		snprintf(t->fmt.name, sizeof(t->fmt.name), "%s", l->ev[i].name);
	}
	return 0;
}

int xp_trace_meta_layout(const struct xp_trace_meta *m, uint16_t rectype, struct xp_rawtp_layout *l)
{
	l->npresent = 0;
	for (int i = 0; i < l->n; i++) {
		l->present[i] = false;
		for (int k = 0; k < m->ntpf; k++) {
			const struct xp_trace_tpf *t = &m->tpf[k];

			if (t->rectype != rectype || strcmp(t->fmt.name, l->ev[i].name))
				continue;
			l->fmt[i] = t->fmt;
			snprintf(l->group[i], sizeof(l->group[i]), "%s", t->group);
			l->present[i] = true;
			l->npresent++;
			break;
		}
	}
	return l->npresent;
}

void xp_trace_meta_free_layouts(struct xp_trace_meta *m)
{
	free(m->tpf);
	m->tpf = NULL;
	m->ntpf = 0;
}

void xp_trace_meta_host(struct xp_trace_meta *m, const char *tool_version)
{
	struct timespec m1, rt, m2;
	struct utsname u;

	snprintf(m->tool, sizeof(m->tool), "xputrace %s", tool_version);
	if (!uname(&u)) {
		snprintf(m->kernel, sizeof(m->kernel), "%s", u.release);
		snprintf(m->hostname, sizeof(m->hostname), "%s", u.nodename);
	}
	snprintf(m->clock, sizeof(m->clock), "CLOCK_MONOTONIC");
	m->page_size = (uint32_t)sysconf(_SC_PAGESIZE);
	/* the wall clock read between two monotonic reads, offset to their middle */
	clock_gettime(CLOCK_MONOTONIC, &m1);
	clock_gettime(CLOCK_REALTIME, &rt);
	clock_gettime(CLOCK_MONOTONIC, &m2);
	{
		int64_t a = (int64_t)m1.tv_sec * 1000000000 + m1.tv_nsec;
		int64_t b = (int64_t)m2.tv_sec * 1000000000 + m2.tv_nsec;
		int64_t r = (int64_t)rt.tv_sec * 1000000000 + rt.tv_nsec;

		m->wall_offset_ns = r - (a + (b - a) / 2);
		m->start_ns = (uint64_t)b;
	}
}

/* ---- writer ----------------------------------------------------------- */

struct xp_trace_writer {
	int fd;
	uint8_t *buf;
	size_t cap, len;
	uint32_t count;		/* records in buf */
	uint64_t records, bytes, blocks;
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

static int flush_events(struct xp_trace_writer *w)
{
	int err;

	if (!w->count)
		return 0;
	err = write_block(w, XP_TF_EVENTS, w->buf, w->len, w->count);
	w->len = 0;
	w->count = 0;
	return err;
}

int xp_trace_writer_open(struct xp_trace_writer **out, int fd, const struct xp_trace_meta *m,
			 size_t block_size)
{
	struct xp_trace_writer *w = calloc(1, sizeof(*w));
	struct bytes meta = { 0 }, lay = { 0 };
	uint8_t fh[XP_TF_FILE_HDR];
	struct iovec iov = { fh, sizeof(fh) };
	uint32_t nmeta, nlay;
	int err;

	if (!block_size)
		block_size = XP_TF_DEFAULT_BLOCK;
	/* room for the largest record hdr.size can describe */
	if (block_size < 65536)
		block_size = 65536;
	if (block_size > XP_TF_MAX_BLOCK)
		block_size = XP_TF_MAX_BLOCK;
	if (!w || !(w->buf = malloc(block_size))) {
		free(w);
		return -ENOMEM;
	}
	w->fd = fd;
	w->cap = block_size;
	memcpy(fh, XP_TF_MAGIC, 8);
	put16(fh + 8, XP_TF_VERSION_MAJOR);
	put16(fh + 10, XP_TF_VERSION_MINOR);
	put32(fh + 12, XP_TF_FILE_HDR);
	nmeta = encode_meta(&meta, m);
	nlay = encode_layouts(&lay, m);
	err = meta.oom || lay.oom ? -ENOMEM : write_all(fd, &iov, 1);
	if (!err) {
		w->bytes = sizeof(fh);
		err = write_block(w, XP_TF_META, meta.p, meta.len, nmeta);
	}
	if (!err)
		err = write_block(w, XP_TF_LAYOUT, lay.p, lay.len, nlay);
	free(meta.p);
	free(lay.p);
	if (err) {
		xp_trace_writer_free(w);
		return err;
	}
	*out = w;
	return 0;
}

int xp_trace_writer_add(struct xp_trace_writer *w, const struct xp_rec_hdr *h)
{
	size_t n = pad8(h->size);
	int err;

	if (h->size < sizeof(*h))
		return -EINVAL;
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
	free(w->buf);
	free(w);
}

uint64_t xp_trace_writer_records(const struct xp_trace_writer *w) { return w->records; }
uint64_t xp_trace_writer_bytes(const struct xp_trace_writer *w) { return w->bytes; }
uint64_t xp_trace_writer_blocks(const struct xp_trace_writer *w) { return w->blocks; }

/* ---- reader ----------------------------------------------------------- */

static int fail(struct xp_trace_reader *r, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static int fail(struct xp_trace_reader *r, int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(r->error, sizeof(r->error), fmt, ap);
	va_end(ap);
	return err;
}

/* Reads up to n bytes; returns how many (fewer only at the end of the file). */
static size_t read_some(struct xp_trace_reader *r, void *p, size_t n)
{
	size_t got = fread(p, 1, n, r->f);

	r->offset += got;
	return got;
}

/*
 * The next block into r->buf. Returns 1 with a whole, checked block; 0 at the
 * end of the file (r->truncated when it ends inside a block); <0 on error.
 */
static int next_block(struct xp_trace_reader *r, uint32_t *kind, uint32_t *len, uint32_t *count)
{
	uint8_t h[XP_TF_BLOCK_HDR];
	uint64_t at = r->offset;
	size_t got, want;

	got = read_some(r, h, sizeof(h));
	if (ferror(r->f))
		return fail(r, -EIO, "read error at offset %llu", (unsigned long long)r->offset);
	if (got == 0)
		return 0;
	if (got < sizeof(h)) {
		r->truncated = true;
		return 0;
	}
	if (CRC_MISMATCH(xp_crc32(0, h, 16), get32(h + 16)) || get32(h + 20))
		return fail(r, -EBADMSG, "corrupt trace file: the block header at offset %llu fails its check",
			    (unsigned long long)at);
	*kind = get32(h);
	*len = get32(h + 4);
	*count = get32(h + 8);
	if (*len > XP_TF_MAX_BLOCK)
		return fail(r, -EBADMSG, "corrupt trace file: block at offset %llu claims %u bytes (at most %u)",
			    (unsigned long long)at, *len, XP_TF_MAX_BLOCK);
	want = pad8(*len);
	if (want > r->cap) {
		uint8_t *p = realloc(r->buf, want);

		if (!p)
			return fail(r, -ENOMEM, "out of memory reading a %u-byte block", *len);
		r->buf = p;
		r->cap = want;
	}
	got = read_some(r, r->buf, want);
	if (ferror(r->f))
		return fail(r, -EIO, "read error at offset %llu", (unsigned long long)r->offset);
	if (got < want) {
		r->truncated = true;
		return 0;
	}
	for (size_t i = *len; i < want; i++)
		if (r->buf[i])
			return fail(r, -EBADMSG, "corrupt trace file: %s block at offset %llu has non-zero padding",
				    block_name(*kind), (unsigned long long)at);
	if (CRC_MISMATCH(xp_crc32(0, r->buf, *len), get32(h + 12)))
		return fail(r, -EBADMSG, "corrupt trace file: %s block at offset %llu fails its CRC check",
			    block_name(*kind), (unsigned long long)at);
	return 1;
}

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

static int parse_meta(struct xp_trace_reader *r, const uint8_t *p, uint32_t len, uint32_t count)
{
	struct xp_trace_meta *m = &r->meta;
	struct xp_devices *d = &m->devs;
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
		switch (tag) {
		case XP_TAG_TOOL: copy_str(m->tool, sizeof(m->tool), v, vl); break;
		case XP_TAG_KERNEL: copy_str(m->kernel, sizeof(m->kernel), v, vl); break;
		case XP_TAG_HOSTNAME: copy_str(m->hostname, sizeof(m->hostname), v, vl); break;
		case XP_TAG_CLOCK: copy_str(m->clock, sizeof(m->clock), v, vl); break;
		case XP_TAG_HOOK: copy_str(m->hook, sizeof(m->hook), v, vl); break;
		case XP_TAG_FILTER_COMM: copy_str(m->filter_comm, sizeof(m->filter_comm), v, vl); break;
		case XP_TAG_CAPABILITY:
			if (m->ncaps < XP_TF_MAX_CAPS)
				copy_str(m->caps[m->ncaps++], sizeof(m->caps[0]), v, vl);
			break;
		case XP_TAG_WALL_OFFSET:
			if (!(bad = vl != 8))
				m->wall_offset_ns = (int64_t)get64(v);
			break;
		case XP_TAG_START:
			if (!(bad = vl != 8))
				m->start_ns = get64(v);
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
		default:
			break;	/* a newer writer's entry */
		}
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
 * Checks the file's layout of each record type this build knows against
 * its own, and keeps the tracefs event layouts the file carries.
 */
static int check_layout(struct xp_trace_reader *r, const uint8_t *p, uint32_t len, uint32_t count)
{
	uint32_t pos = 0, n = 0;

	while (pos < len) {
		uint16_t type, size, nf, nl;
		const struct layout *mine = NULL;
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
			for (size_t i = 0; i < NLAYOUTS; i++)
				if (layouts[i].type == type)
					mine = &layouts[i];
		}
		pos += nl;
		if (mine && size < mine->size)
			return fail(r, -EPROTO, "trace file has %s records of %u bytes; this xputrace reads %u",
				    mine->name, size, mine->size);
		for (uint16_t k = 0; k < nf; k++) {
			uint16_t off, fsz;
			uint8_t fl, kind;

			if (len - pos < 6)
				return fail(r, -EBADMSG, "corrupt trace file: layout %u is cut short", n);
			off = get16(p + pos);
			fsz = get16(p + pos + 2);
			kind = p[pos + 4];
			fl = p[pos + 5];
			pos += 6;
			if (fl > len - pos)
				return fail(r, -EBADMSG, "corrupt trace file: layout %u overruns its block", n);
			if (tpf && (err = tpf_field(r, tpf, off, fsz, kind, p + pos, fl, n)))
				return err;
			for (size_t i = 0; mine && i < mine->nfields && i < 64; i++) {
				const struct field *f = &mine->fields[i];

				if (strlen(f->name) != fl || memcmp(f->name, p + pos, fl))
					continue;
				if (f->off != off || f->size != fsz)
					return fail(r, -EPROTO,
						    "trace file has %s.%s at offset %u (%u bytes); this xputrace expects %u (%u bytes)",
						    mine->name, f->name, off, fsz, f->off, f->size);
				seen[i] = true;
			}
			pos += fl;
		}
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

int xp_trace_reader_open(struct xp_trace_reader *r, FILE *f)
{
	uint8_t fh[XP_TF_FILE_HDR];
	uint32_t kind, len, count, hsize;
	int err;

	memset(r, 0, sizeof(*r));
	r->f = f;
	if (read_some(r, fh, sizeof(fh)) < sizeof(fh) || memcmp(fh, XP_TF_MAGIC, 8)) {
		if (ferror(f))
			return fail(r, -EIO, "read error");
		return fail(r, -EPROTO, "not an xputrace trace file");
	}
	r->version_major = get16(fh + 8);
	r->version_minor = get16(fh + 10);
	hsize = get32(fh + 12);
	if (r->version_major != XP_TF_VERSION_MAJOR)
		return fail(r, -EPROTO, "trace file format %u.%u; this xputrace reads format %u.x",
			    r->version_major, r->version_minor, XP_TF_VERSION_MAJOR);
	if (hsize < XP_TF_FILE_HDR || hsize > 4096)
		return fail(r, -EBADMSG, "corrupt trace file: header size %u", hsize);
	for (uint32_t i = XP_TF_FILE_HDR; i < hsize; i++)
		if (fgetc(f) == EOF)
			return fail(r, -EBADMSG, "trace file ends inside its header");
		else
			r->offset++;
	for (int want = XP_TF_META; want <= XP_TF_LAYOUT; want++) {
		err = next_block(r, &kind, &len, &count);
		if (err < 0)
			return err;
		if (err == 0)
			return fail(r, -EBADMSG, "trace file ends before its %s block", block_name(want));
		if (kind != (uint32_t)want)
			return fail(r, -EBADMSG, "corrupt trace file: %s block where the %s block belongs",
				    block_name(kind), block_name(want));
		err = want == XP_TF_META ? parse_meta(r, r->buf, len, count)
					 : check_layout(r, r->buf, len, count);
		if (err)
			return err;
	}
	return 0;
}

static int parse_stats(struct xp_trace_reader *r, const uint8_t *p, uint32_t len, uint32_t count,
		       uint64_t at)
{
	if (count > 64 || len != 16 + 8 * count)
		return fail(r, -EBADMSG, "corrupt trace file: stats block at offset %llu has %u bytes for %u counters",
			    (unsigned long long)at, len, count);
	r->stats.ts_ns = get64(p);
	r->stats.records = get64(p + 8);
	/* a whole block taken out passes every CRC: the running count does not */
	if (r->stats.records != r->records + r->skipped)
		return fail(r, -EBADMSG, "corrupt trace file: blocks are missing before offset %llu (%llu records written, %llu found)",
			    (unsigned long long)at, (unsigned long long)r->stats.records,
			    (unsigned long long)(r->records + r->skipped));
	for (uint32_t i = 0; i < XP_DROP_ALL; i++)
		r->stats.drops[i] = i < count ? get64(p + 16 + 8 * i) : 0;
	return 0;
}

static int parse_events(struct xp_trace_reader *r, uint32_t len, uint32_t count, uint64_t at,
			xp_trace_record_fn fn, void *ctx)
{
	uint32_t pos = 0, n = 0;

	while (pos < len) {
		const struct xp_rec_hdr *h;
		uint16_t size;
		int err;

		if (len - pos < sizeof(*h))
			return fail(r, -EBADMSG, "corrupt trace file: record %u of the block at offset %llu is cut short",
				    n, (unsigned long long)at);
		size = get16(r->buf + pos + offsetof(struct xp_rec_hdr, size));
		if (size < sizeof(*h) || size > len - pos)
			return fail(r, -EBADMSG, "corrupt trace file: record %u of the block at offset %llu has size %u",
				    n, (unsigned long long)at, size);
		/* pos is a multiple of 8 in a malloc'd buffer: the record is aligned */
		h = xp_decode(r->buf + pos, size, &err);
		if (h) {
			r->records++;
			if (h->ts_ns > r->last_ts_ns)
				r->last_ts_ns = h->ts_ns;
			if (fn && (err = fn(ctx, h)) < 0)
				return err;
		} else if (err == -ENOENT) {
			r->skipped++;
		} else {
			return fail(r, -EBADMSG, "corrupt trace file: record %u of the block at offset %llu is malformed (type %u, %u bytes)",
				    n, (unsigned long long)at, get16(r->buf + pos), size);
		}
		n++;
		if (pad8(size) >= len - pos)
			break;
		pos += (uint32_t)pad8(size);
	}
	if (n != count)
		return fail(r, -EBADMSG, "corrupt trace file: block at offset %llu holds %u records, its header says %u",
			    (unsigned long long)at, n, count);
	return 0;
}

int xp_trace_reader_run(struct xp_trace_reader *r, xp_trace_record_fn fn, void *ctx)
{
	uint32_t kind, len, count;
	int err;

	for (;;) {
		uint64_t at = r->offset;

		err = next_block(r, &kind, &len, &count);
		if (err < 0)
			return err;
		if (err == 0)
			break;
		err = 0;
		if (r->complete)
			return fail(r, -EBADMSG, "corrupt trace file: a %s block at offset %llu follows the trailer",
				    block_name(kind), (unsigned long long)at);
		switch (kind) {
		case XP_TF_EVENTS:
			err = parse_events(r, len, count, at, fn, ctx);
			break;
		case XP_TF_STATS:
		case XP_TF_TRAILER:
			err = parse_stats(r, r->buf, len, count, at);
			r->complete = kind == XP_TF_TRAILER;
			break;
		case XP_TF_META:
		case XP_TF_LAYOUT:
			err = fail(r, -EBADMSG, "corrupt trace file: a second %s block at offset %llu",
				   block_name(kind), (unsigned long long)at);
			break;
		default:
			break;	/* a newer writer's block: checked, then skipped */
		}
		if (err)
			return err;
	}
	if (!r->complete) {
		/* the recorder was killed: keep what was whole */
		r->truncated = true;
		snprintf(r->error, sizeof(r->error),
			 "trace file is cut short (no trailer): read %llu records up to offset %llu; drops counted until then: %llu",
			 (unsigned long long)r->records, (unsigned long long)r->offset,
			 (unsigned long long)(r->stats.drops[XP_DROP_RINGBUF] + r->stats.drops[XP_DROP_MAP_FULL] +
					      r->stats.drops[XP_DROP_KERNEL_MISSED]));
	}
	return 0;
}

void xp_trace_reader_close(struct xp_trace_reader *r)
{
	xp_trace_meta_free_layouts(&r->meta);
	free(r->buf);
	r->buf = NULL;
	r->cap = 0;
}

double xp_trace_duration(const struct xp_trace_reader *r)
{
	uint64_t end = r->stats.ts_ns;

	if (!r->complete && r->last_ts_ns > end)
		end = r->last_ts_ns;
	if (end <= r->meta.start_ns)
		return 0;
	return (double)(end - r->meta.start_ns) / 1e9;
}
