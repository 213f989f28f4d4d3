/* Packed records of trace file format 2 (pack.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/pack.h"

/* Records are in the recording host's byte order, little-endian on every
 * architecture xputrace builds for; fields are loaded as such. */
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "packed trace records assume a little-endian host"
#endif

#define HDR ((uint16_t)sizeof(struct xp_rec_hdr))
#define HASH_SLOTS 2048		/* twice XP_PACK_INTERN_MAX: probes stay short */

/* The values of one interned field seen in this block. */
struct intern {
	uint16_t size;		/* bytes per value */
	uint32_t n;		/* values so far in this block */
	uint8_t *vals;		/* n values of `size` bytes (allocated on first use) */
	uint32_t *hash;		/* writer: block generation << 16 | index + 1 */
	uint64_t prev;		/* DELTA: the previous value */
	uint32_t last;		/* writer: the index + 1 of the value last written (a value repeats) */
};

struct plan {
	uint16_t type, n;
	uint32_t end;		/* where its last segment ends: a record this long takes them all */
	struct xp_pack_seg seg[XP_PACK_MAX_SEGS];
};

struct xp_pack {
	struct plan plans[XP_PACK_MAX_PLANS];
	unsigned int nplans;
	uint8_t by_type[256];	/* plan index + 1 for the small types */
	struct intern slot[XP_PACK_MAX_SLOTS];	/* 0: the header's pid */
	unsigned int nslots;
	uint64_t prev_ts;
	uint32_t gen;		/* the block's generation, tags the hash entries */
};

struct xp_pack *xp_pack_new(void)
{
	struct xp_pack *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->slot[0].size = 4;
	p->nslots = 1;
	p->gen = 1;
	return p;
}

void xp_pack_free(struct xp_pack *p)
{
	if (!p)
		return;
	for (unsigned int i = 0; i < p->nslots; i++) {
		free(p->slot[i].vals);
		free(p->slot[i].hash);
	}
	free(p);
}

void xp_pack_reset(struct xp_pack *p)
{
	p->prev_ts = 0;
	if (!(++p->gen & 0xffff)) {	/* the tags wrap: forget every old entry */
		for (unsigned int i = 0; i < p->nslots; i++)
			if (p->slot[i].hash)
				memset(p->slot[i].hash, 0, HASH_SLOTS * sizeof(uint32_t));
		p->gen++;
	}
	for (unsigned int i = 0; i < p->nslots; i++) {
		p->slot[i].n = 0;
		p->slot[i].prev = 0;
		p->slot[i].last = 0;
	}
}

static bool num_size(unsigned int s) { return s == 1 || s == 2 || s == 4 || s == 8; }

static bool seg_ok(unsigned int code, unsigned int size)
{
	switch (code) {
	case XP_PACK_RAW: return size > 0;
	case XP_PACK_INTERN: return size > 0 && size < 256;
	case XP_PACK_UINT: case XP_PACK_SINT: case XP_PACK_DELTA: case XP_PACK_TS: case XP_PACK_PID:
		return num_size(size);
	default: return false;
	}
}

static const struct plan *plan_of(const struct xp_pack *p, unsigned int type)
{
	if (type < 256)
		return p->by_type[type] ? &p->plans[p->by_type[type] - 1] : NULL;
	for (unsigned int i = 0; i < p->nplans; i++)
		if (p->plans[i].type == type)
			return &p->plans[i];
	return NULL;
}

int xp_pack_plan_add(struct xp_pack *p, uint16_t type, const struct xp_pack_seg *segs, unsigned int n,
		     const char **why)
{
	struct plan *pl;
	unsigned int end = HDR, slots = 0;

	*why = NULL;
	if (p->nplans >= XP_PACK_MAX_PLANS || n > XP_PACK_MAX_SEGS)
		*why = "too many packing plans or segments";
	else if (plan_of(p, type))
		*why = "two packing plans for one record type";
	for (unsigned int i = 0; !*why && i < n; i++) {
		if (segs[i].off != end || !seg_ok(segs[i].code, segs[i].size) ||
		    end + segs[i].size > XP_PACK_MAX_REC)
			*why = "a packing plan's segments do not follow each other";
		end += segs[i].size;
		slots += segs[i].code == XP_PACK_INTERN || segs[i].code == XP_PACK_DELTA;
	}
	if (!*why && p->nslots + slots > XP_PACK_MAX_SLOTS)
		*why = "too many interned fields";
	if (*why)
		return -EBADMSG;
	pl = &p->plans[p->nplans++];
	pl->type = type;
	pl->n = (uint16_t)n;
	pl->end = end;
	for (unsigned int i = 0; i < n; i++) {
		pl->seg[i] = segs[i];
		pl->seg[i].slot = 0;
		if (segs[i].code == XP_PACK_INTERN || segs[i].code == XP_PACK_DELTA) {
			pl->seg[i].slot = (uint8_t)p->nslots;
			p->slot[p->nslots++].size = segs[i].size;
		}
	}
	if (type < 256)
		p->by_type[type] = (uint8_t)p->nplans;
	return 0;
}

int xp_pack_plan_kind(struct xp_pack *p, const struct xp_rec_kind *k)
{
	struct xp_rec_pack f[XP_PACK_MAX_SEGS];
	struct xp_pack_seg segs[XP_PACK_MAX_SEGS];
	unsigned int n = 0, end = HDR, slots = p->nslots;
	const char *why;

	if (!k->pack || !k->npack)
		return 0;
	if (k->npack > XP_PACK_MAX_SEGS)
		return -E2BIG;
	memcpy(f, k->pack, k->npack * sizeof(*f));
	for (size_t i = 1; i < k->npack; i++)	/* by offset: few, insertion sort */
		for (size_t j = i; j > 0 && f[j - 1].off > f[j].off; j--) {
			struct xp_rec_pack t = f[j];

			f[j] = f[j - 1];
			f[j - 1] = t;
		}
	for (size_t i = 0; i < k->npack; i++) {
		uint8_t code = f[i].code;

		if (f[i].off < end || !seg_ok(code, f[i].size) || f[i].off + f[i].size > XP_PACK_MAX_REC)
			return -EINVAL;
		if (n + 2 > XP_PACK_MAX_SEGS)
			return -E2BIG;
		if (f[i].off > end)	/* padding between fields: bytes */
			segs[n++] = (struct xp_pack_seg){ (uint16_t)end, (uint16_t)(f[i].off - end), XP_PACK_RAW, 0 };
		if ((code == XP_PACK_INTERN || code == XP_PACK_DELTA) && slots >= XP_PACK_MAX_SLOTS)
			code = XP_PACK_RAW;	/* out of tables: still exact, only larger */
		slots += code == XP_PACK_INTERN || code == XP_PACK_DELTA;
		segs[n++] = (struct xp_pack_seg){ f[i].off, f[i].size, code, 0 };
		end = f[i].off + f[i].size;
	}
	return xp_pack_plan_add(p, k->type, segs, n, &why) ? -E2BIG : 0;
}

unsigned int xp_pack_nplans(const struct xp_pack *p)
{
	return p->nplans;
}

uint16_t xp_pack_plan_at(const struct xp_pack *p, unsigned int i, const struct xp_pack_seg **segs,
			 unsigned int *n)
{
	*segs = p->plans[i].seg;
	*n = p->plans[i].n;
	return p->plans[i].type;
}

/* ---- packing ------------------------------------------------------------- */

static inline uint64_t load(const uint8_t *b, unsigned int size)
{
	uint64_t v = 0;

	memcpy(&v, b, size);
	return v;
}

static inline int64_t sext(uint64_t v, unsigned int size)
{
	unsigned int sh = 64 - 8 * size;

	return (int64_t)(v << sh) >> sh;
}

/* Copies an interned value; the usual sizes as constants, so the copy is a move or two. */
static inline void copy_val(uint8_t *dst, const uint8_t *src, unsigned int size)
{
	switch (size) {
	case 1: *dst = *src; break;
	case 2: memcpy(dst, src, 2); break;
	case 4: memcpy(dst, src, 4); break;
	case 8: memcpy(dst, src, 8); break;
	case 16: memcpy(dst, src, 16); break;
	case 32: memcpy(dst, src, 32); break;
	default: memcpy(dst, src, size); break;
	}
}

static inline bool same_val(const uint8_t *a, const uint8_t *b, unsigned int size)
{
	switch (size) {
	case 4: return !memcmp(a, b, 4);
	case 8: return !memcmp(a, b, 8);
	case 16: return !memcmp(a, b, 16);
	case 32: return !memcmp(a, b, 32);
	default: return !memcmp(a, b, size);
	}
}

static uint32_t hash(const uint8_t *v, unsigned int n)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ n, w;

	for (; n >= 8; v += 8, n -= 8) {
		memcpy(&w, v, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
	}
	if (n) {
		w = 0;
		memcpy(&w, v, n);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
	}
	h ^= h >> 29;
	return (uint32_t)h;
}

static bool intern_alloc(struct intern *t, bool writer)
{
	if (!t->vals && !(t->vals = malloc((size_t)t->size * XP_PACK_INTERN_MAX)))
		return false;
	if (writer && !t->hash && !(t->hash = calloc(HASH_SLOTS, sizeof(uint32_t))))
		return false;
	return true;
}

static inline size_t put_intern(const struct xp_pack *p, struct intern *t, const uint8_t *v, uint8_t *out)
{
	uint32_t tag = (p->gen & 0xffff) << 16, h;

	/* the value of the record before, most often */
	if (t->last && same_val(t->vals + (size_t)(t->last - 1) * t->size, v, t->size))
		return xp_varint_put(out, t->last);
	h = hash(v, t->size) & (HASH_SLOTS - 1);
	if (!t->hash && !intern_alloc(t, true)) {	/* no memory: a literal, not kept */
		out[0] = 0;
		memcpy(out + 1, v, t->size);
		return 1u + t->size;
	}
	for (;; h = (h + 1) & (HASH_SLOTS - 1)) {
		uint32_t e = t->hash[h];

		if ((e & 0xffff0000u) != tag || !(e & 0xffff))
			break;
		if (same_val(t->vals + (size_t)((e & 0xffff) - 1) * t->size, v, t->size))
			return xp_varint_put(out, t->last = e & 0xffff);
	}
	out[0] = 0;
	memcpy(out + 1, v, t->size);
	if (t->n < XP_PACK_INTERN_MAX) {
		memcpy(t->vals + (size_t)t->n * t->size, v, t->size);
		t->hash[h] = tag | ++t->n;
		t->last = t->n;
	}
	return 1u + t->size;
}

/* Bytes as zero runs and literal runs; a literal goes on over fewer than 3 zeros. */
static size_t put_bytes(uint8_t *out, const uint8_t *b, size_t n)
{
	size_t o = 0, i = 0;

	while (i < n) {
		size_t z = i, e;

		while (z < n && !b[z])
			z++;
		o += xp_varint_put(out + o, z - i);
		if ((i = z) == n)
			break;
		for (e = i; e < n;) {
			size_t k = e;

			while (k < n && !b[k] && k - e < 3)
				k++;
			if (k == e)
				e++;
			else if (k - e >= 3 || k == n)
				break;
			else
				e = k;
		}
		o += xp_varint_put(out + o, e - i);
		memcpy(out + o, b + i, e - i);
		o += e - i;
		i = e;
	}
	return o;
}

static size_t put_seg(struct xp_pack *p, const struct xp_pack_seg *s, const uint8_t *r, uint8_t *out)
{
	const struct xp_rec_hdr *h = (const void *)r;
	const uint8_t *f = r + s->off;
	struct intern *t = &p->slot[s->slot];
	uint64_t v;

	switch (s->code) {
	case XP_PACK_UINT:
		return xp_varint_put(out, load(f, s->size));
	case XP_PACK_SINT:
		return xp_varint_put(out, xp_zigzag(sext(load(f, s->size), s->size)));
	case XP_PACK_DELTA:
		v = load(f, s->size) - t->prev;
		t->prev += v;
		return xp_varint_put(out, xp_zigzag((int64_t)v));
	case XP_PACK_TS:
		return xp_varint_put(out, xp_zigzag((int64_t)(load(f, s->size) - h->ts_ns)));
	case XP_PACK_PID:
		return xp_varint_put(out, xp_zigzag((int64_t)(load(f, s->size) - h->pid)));
	case XP_PACK_INTERN:
		return put_intern(p, t, f, out);
	default:
		return put_bytes(out, f, s->size);
	}
}

size_t xp_pack_rec(struct xp_pack *p, const struct xp_rec_hdr *h, uint8_t *out)
{
	const uint8_t *r = (const void *)h;
	const struct plan *pl = plan_of(p, h->type);
	size_t o = 0, pos = HDR;

	o += xp_varint_put(out + o, h->type);
	o += xp_varint_put(out + o, h->size);
	o += xp_varint_put(out + o, h->cpu);
	o += xp_varint_put(out + o, xp_zigzag((int64_t)(h->ts_ns - p->prev_ts)));
	p->prev_ts = h->ts_ns;
	o += put_intern(p, &p->slot[0], (const uint8_t *)&h->pid, out + o);
	o += xp_varint_put(out + o, xp_zigzag((int32_t)(h->tid - h->pid)));
	for (unsigned int i = 0; pl && i < pl->n; i++) {
		const struct xp_pack_seg *s = &pl->seg[i];

		if (s->off + s->size > h->size)
			break;
		o += put_seg(p, s, r, out + o);
		pos = s->off + s->size;
	}
	return o + put_bytes(out + o, r + pos, h->size - pos);
}

/* ---- unpacking ----------------------------------------------------------- */
/*
 * The cursor is passed by value and returned (NULL: damaged), so that it
 * stays in a register: stores into the record are byte stores, which may
 * alias anything in memory, a cursor there included.
 */

static const uint8_t *get_bytes(const uint8_t *q, const uint8_t *end, uint8_t *b, size_t n)
{
	size_t i = 0;
	uint64_t v;

	while (i < n) {
		if (!xp_varint_get(&q, end, &v) || v > n - i)
			return NULL;
		memset(b + i, 0, v);
		if ((i += v) == n)
			break;
		if (!xp_varint_get(&q, end, &v) || !v || v > n - i || v > (size_t)(end - q))
			return NULL;
		memcpy(b + i, q, v);
		q += v;
		i += v;
	}
	return q;
}

/* An interned value's first time in the block: its bytes, kept. */
static const uint8_t *get_literal(struct intern *t, const uint8_t *q, const uint8_t *end, uint8_t *dst)
{
	if ((size_t)(end - q) < t->size)
		return NULL;
	memcpy(dst, q, t->size);
	if (t->n < XP_PACK_INTERN_MAX && intern_alloc(t, false))
		memcpy(t->vals + (size_t)t->n++ * t->size, dst, t->size);
	return q + t->size;
}

static inline __attribute__((always_inline)) const uint8_t *get_intern(struct intern *t, const uint8_t *q, const uint8_t *end, uint8_t *dst)
{
	uint64_t v;
	uint32_t n = t->n;
	unsigned int size = t->size;

	if (!xp_varint_get(&q, end, &v))
		return NULL;
	if (!v)
		return get_literal(t, q, end, dst);
	if (v > n)
		return NULL;
	copy_val(dst, t->vals + (size_t)(v - 1) * size, size);
	return q;
}

static inline __attribute__((always_inline)) const uint8_t *get_seg(struct xp_pack *p, struct xp_pack_seg s, const uint8_t *q,
				     const uint8_t *end, uint8_t *r, uint64_t ts, uint32_t pid,
				     const char **why)
{
	struct intern *t = &p->slot[s.slot];
	uint8_t *f = r + s.off;
	uint64_t v;

	if (s.code == XP_PACK_INTERN) {
		if (!(q = get_intern(t, q, end, f)))
			*why = "an interned value is damaged";
		return q;
	}
	if (s.code == XP_PACK_RAW) {
		if (!(q = get_bytes(q, end, f, s.size)))
			*why = "a field's bytes are damaged";
		return q;
	}
	if (!xp_varint_get(&q, end, &v)) {
		*why = "a number runs past the block";
		return NULL;
	}
	switch (s.code) {
	case XP_PACK_UINT:
		if (s.size < 8 && v >> (8 * s.size)) {
			*why = "a number is too large for its field";
			return NULL;
		}
		break;
	case XP_PACK_SINT: v = (uint64_t)xp_unzigzag(v); break;
	case XP_PACK_DELTA: v = t->prev + (uint64_t)xp_unzigzag(v); break;
	case XP_PACK_TS: v = ts + (uint64_t)xp_unzigzag(v); break;
	default: v = pid + (uint64_t)xp_unzigzag(v); break;	/* XP_PACK_PID */
	}
	switch (s.size) {	/* constant sizes: a store, not a call */
	case 1: *f = (uint8_t)v; break;
	case 2: memcpy(f, &v, 2); break;
	case 4: memcpy(f, &v, 4); break;
	default: memcpy(f, &v, 8); break;
	}
	if (s.code == XP_PACK_DELTA)
		t->prev = load(f, s.size);
	return q;
}

/* The header into h; the cursor after it, or NULL. */
static inline const uint8_t *get_hdr(struct xp_pack *p, const uint8_t *q, const uint8_t *end,
				     struct xp_rec_hdr *h, const char **why)
{
	uint64_t type, size, cpu, dts, dtid;

	*why = "a record's header runs past the block";
	if (!xp_varint_get(&q, end, &type) || !xp_varint_get(&q, end, &size) ||
	    !xp_varint_get(&q, end, &cpu) || !xp_varint_get(&q, end, &dts))
		return NULL;
	*why = "a record's header is out of range";
	if (type > 0xffff || size < HDR || size > XP_PACK_MAX_REC || cpu > 0xffffffffu)
		return NULL;
	h->type = (uint16_t)type;
	h->size = (uint16_t)size;
	h->cpu = (uint32_t)cpu;
	h->ts_ns = p->prev_ts += (uint64_t)xp_unzigzag(dts);
	*why = "a record's pid is damaged";
	if (!(q = get_intern(&p->slot[0], q, end, (uint8_t *)&h->pid)) || !xp_varint_get(&q, end, &dtid))
		return NULL;
	h->tid = h->pid + (uint32_t)xp_unzigzag(dtid);
	return q;
}

int xp_unpack_rec(struct xp_pack *p, const uint8_t **in, const uint8_t *end, void *rec, const char **why)
{
	struct xp_rec_hdr *h = rec;
	uint8_t *r = rec;
	const struct plan *pl;
	const uint8_t *q = get_hdr(p, *in, end, h, why);
	size_t pos = HDR, size;
	uint64_t ts;
	uint32_t pid;

	if (!q)
		return -EBADMSG;
	size = h->size;
	ts = h->ts_ns;
	pid = h->pid;
	*why = NULL;
	pl = plan_of(p, h->type);
	if (pl && size >= pl->end) {	/* the usual record: every segment, no checks */
		for (unsigned int i = 0; q && i < pl->n; i++)
			q = get_seg(p, pl->seg[i], q, end, r, ts, pid, why);
		pos = pl->end;
	} else {
		for (unsigned int i = 0; q && pl && i < pl->n; i++) {
			if (pl->seg[i].off + pl->seg[i].size > size)
				break;
			q = get_seg(p, pl->seg[i], q, end, r, ts, pid, why);
			pos = pl->seg[i].off + pl->seg[i].size;
		}
	}
	if (q && pos < size && !(q = get_bytes(q, end, r + pos, size - pos)))
		*why = "a record's bytes are damaged";
	if (!q)
		return -EBADMSG;
	*in = q;
	return 0;
}
