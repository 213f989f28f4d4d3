/* The drm-usage-stats keys of one fdinfo text (drm-usage-stats.rst). */
#include <string.h>

#include "caps/fdinfo/fdinfo_parse.h"

const char *const xp_fdi_kind_names[XP_FDI_NKINDS] = { "total", "shared", "resident", "purgeable", "active" };

/* A key and its value, one line of the text, not terminated. */
struct kv {
	const char *k, *v;
	size_t klen, vlen;
};

static bool prefixed(const struct kv *l, const char *p, const char **rest, size_t *rlen)
{
	size_t n = strlen(p);

	if (l->klen <= n || memcmp(l->k, p, n))
		return false;
	*rest = l->k + n;
	*rlen = l->klen - n;
	return true;
}

/* A decimal number at the start of the value, then its unit word ("" when none). */
static bool number(const struct kv *l, uint64_t *out, const char **unit, size_t *ulen)
{
	size_t i = 0;
	uint64_t v = 0;

	if (!l->vlen || l->v[0] < '0' || l->v[0] > '9')
		return false;
	for (; i < l->vlen && l->v[i] >= '0' && l->v[i] <= '9'; i++) {
		if (v > (UINT64_MAX - 9) / 10)
			return false;
		v = v * 10 + (uint64_t)(l->v[i] - '0');
	}
	while (i < l->vlen && (l->v[i] == ' ' || l->v[i] == '\t'))
		i++;
	*unit = l->v + i;
	*ulen = l->vlen - i;
	while (*ulen && ((*unit)[*ulen - 1] == ' ' || (*unit)[*ulen - 1] == '\t'))
		(*ulen)--;
	*out = v;
	return true;
}

static bool unit_is(const char *u, size_t n, const char *w)
{
	return n == strlen(w) && !memcmp(u, w, n);
}

/* Multiplies by a unit's factor; false for a unit not in the table or an overflow. */
static bool scaled(uint64_t v, const char *u, size_t n, const char *const *units, const uint64_t *mul,
		   uint64_t *out)
{
	for (int i = 0; units[i]; i++)
		if (unit_is(u, n, units[i])) {
			if (mul[i] && v > UINT64_MAX / mul[i])
				return false;
			*out = v * mul[i];
			return true;
		}
	return false;
}

static bool bytes_value(const struct kv *l, uint64_t *out)
{
	static const char *const units[] = { "", "B", "KiB", "MiB", "GiB", NULL };
	static const uint64_t mul[] = { 1, 1, 1ull << 10, 1ull << 20, 1ull << 30 };
	const char *u;
	size_t n;
	uint64_t v;

	return number(l, &v, &u, &n) && scaled(v, u, n, units, mul, out);
}

static bool hz_value(const struct kv *l, uint64_t *out)
{
	static const char *const units[] = { "", "Hz", "KHz", "kHz", "MHz", "GHz", NULL };
	static const uint64_t mul[] = { 1, 1, 1000, 1000, 1000000, 1000000000 };
	const char *u;
	size_t n;
	uint64_t v;

	return number(l, &v, &u, &n) && scaled(v, u, n, units, mul, out);
}

/* A value with no unit, or the one unit it may have ("ns"). */
static bool plain_value(const struct kv *l, const char *unit, uint64_t *out)
{
	const char *u;
	size_t n;

	return number(l, out, &u, &n) && (!n || (unit && unit_is(u, n, unit)));
}

static void copy_name(char *dst, size_t cap, const char *s, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

static bool same_name(const char *name, const char *s, size_t n)
{
	return strlen(name) == n && !memcmp(name, s, n);
}

static struct xp_fdi_engine *engine(struct xp_fdinfo *fi, const char *s, size_t n)
{
	for (int i = 0; i < fi->neng; i++)
		if (same_name(fi->eng[i].name, s, n))
			return &fi->eng[i];
	if (n >= XP_FDI_NAME || fi->neng >= XP_FDI_MAX_ENGINES) {
		fi->over++;
		return NULL;
	}
	copy_name(fi->eng[fi->neng].name, XP_FDI_NAME, s, n);
	fi->eng[fi->neng].capacity = 1;
	return &fi->eng[fi->neng++];
}

static struct xp_fdi_region *region(struct xp_fdinfo *fi, const char *s, size_t n)
{
	for (int i = 0; i < fi->nreg; i++)
		if (same_name(fi->reg[i].name, s, n))
			return &fi->reg[i];
	if (n >= XP_FDI_NAME || fi->nreg >= XP_FDI_MAX_REGIONS) {
		fi->over++;
		return NULL;
	}
	copy_name(fi->reg[fi->nreg].name, XP_FDI_NAME, s, n);
	return &fi->reg[fi->nreg++];
}

/* drm-engine-capacity-, -engine-, -cycles-, -total-cycles-, -maxfreq-: true when the key is one. */
static bool engine_key(struct xp_fdinfo *fi, const struct kv *l, bool *bad)
{
	static const struct { const char *p; uint8_t bit; } keys[] = {
		{ "drm-engine-capacity-", 0 }, { "drm-engine-", XP_FDI_NS },
		{ "drm-total-cycles-", XP_FDI_TOTAL_CYCLES }, { "drm-cycles-", XP_FDI_CYCLES },
		{ "drm-maxfreq-", XP_FDI_MAXFREQ }, { "drm-curfreq-", 0xff },
	};
	struct xp_fdi_engine *e;
	const char *rest;
	size_t rlen;
	uint64_t v;
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (prefixed(l, keys[i].p, &rest, &rlen))
			break;
	if (i == sizeof(keys) / sizeof(keys[0]))
		return false;
	if (keys[i].bit == 0xff)	/* the current frequency: not needed */
		return true;
	if (!(keys[i].bit == XP_FDI_MAXFREQ ? hz_value(l, &v)
					    : plain_value(l, keys[i].bit == XP_FDI_NS ? "ns" : NULL, &v)) ||
	    (!keys[i].bit && (v == 0 || v > 0xffff))) {
		*bad = true;
		return true;
	}
	if (!(e = engine(fi, rest, rlen)))
		return true;
	switch (keys[i].bit) {
	case 0: e->capacity = (uint32_t)v; return true;
	case XP_FDI_NS: e->ns = v; break;
	case XP_FDI_CYCLES: e->cycles = v; break;
	case XP_FDI_TOTAL_CYCLES: e->total_cycles = v; break;
	case XP_FDI_MAXFREQ: e->maxfreq_hz = v; break;
	}
	e->have |= keys[i].bit;
	return true;
}

/* drm-<kind>-<region>, and the older drm-memory-<region> (resident): true when the key is one. */
static bool memory_key(struct xp_fdinfo *fi, const struct kv *l, bool *bad)
{
	static const char *const pre[XP_FDI_NKINDS] = {
		"drm-total-", "drm-shared-", "drm-resident-", "drm-purgeable-", "drm-active-",
	};
	struct xp_fdi_region *r;
	const char *rest;
	size_t rlen;
	uint64_t v;
	int kind;
	bool old = prefixed(l, "drm-memory-", &rest, &rlen);

	for (kind = old ? XP_FDI_RESIDENT : 0; !old && kind < XP_FDI_NKINDS; kind++)
		if (prefixed(l, pre[kind], &rest, &rlen))
			break;
	if (kind == XP_FDI_NKINDS)
		return false;
	if (!bytes_value(l, &v)) {
		*bad = true;
		return true;
	}
	if (!(r = region(fi, rest, rlen)))
		return true;
	/* drm-resident- wins over the older key, whichever comes first */
	if (old && (r->have & (1u << XP_FDI_RESIDENT)) && !(r->have & 0x80))
		return true;
	if (!old && kind == XP_FDI_RESIDENT)
		r->have &= (uint8_t)~0x80;
	else if (old)
		r->have |= 0x80;
	r->bytes[kind] = v;
	r->have |= (uint8_t)(1u << kind);
	return true;
}

static void text_value(char *dst, size_t cap, const struct kv *l)
{
	copy_name(dst, cap, l->v, l->vlen);
}

static void one_line(struct xp_fdinfo *fi, const struct kv *l)
{
	bool bad = false;

	if (l->klen < 4 || memcmp(l->k, "drm-", 4))
		return;
	if (same_name("drm-driver", l->k, l->klen))
		text_value(fi->driver, sizeof(fi->driver), l);
	else if (same_name("drm-pdev", l->k, l->klen))
		text_value(fi->pdev, sizeof(fi->pdev), l);
	else if (same_name("drm-client-name", l->k, l->klen))
		text_value(fi->name, sizeof(fi->name), l);
	else if (same_name("drm-client-id", l->k, l->klen))
		fi->have_id = plain_value(l, NULL, &fi->client_id) || (bad = true, false);
	else if (!engine_key(fi, l, &bad) && !memory_key(fi, l, &bad))
		bad = true;
	if (bad)
		fi->unknown++;
}

bool xp_fdinfo_parse(const char *text, size_t len, struct xp_fdinfo *out)
{
	size_t i = 0;

	memset(out, 0, sizeof(*out));
	while (i < len) {
		size_t end = i, colon;
		struct kv l;

		while (end < len && text[end] != '\n' && text[end] != '\0')
			end++;
		for (colon = i; colon < end && text[colon] != ':'; colon++)
			;
		if (colon < end) {
			l.k = text + i;
			l.klen = colon - i;
			l.v = text + colon + 1;
			l.vlen = end - colon - 1;
			while (l.vlen && (*l.v == ' ' || *l.v == '\t'))
				l.v++, l.vlen--;
			while (l.vlen && (l.v[l.vlen - 1] == ' ' || l.v[l.vlen - 1] == '\t' || l.v[l.vlen - 1] == '\r'))
				l.vlen--;
			one_line(out, &l);
		}
		i = end + 1;
	}
	for (int r = 0; r < out->nreg; r++)
		out->reg[r].have &= 0x7f;
	return out->have_id;
}

int xp_fdi_engine_find(const struct xp_fdinfo *fi, const char *name)
{
	for (int i = 0; i < fi->neng; i++)
		if (!strcmp(fi->eng[i].name, name))
			return i;
	return -1;
}

int xp_fdi_region_find(const struct xp_fdinfo *fi, const char *name)
{
	for (int i = 0; i < fi->nreg; i++)
		if (!strcmp(fi->reg[i].name, name))
			return i;
	return -1;
}
