/* `latency`'s per-key statistics (latency_stats.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps/latency/latency_stats.h"
#include "core/tracefile.h"

static const struct xp_rec_pack lat_pack[] = {
	XP_REC_P(struct xp_lat_rec, end_ns, XP_PACK_TS),
	XP_REC_P(struct xp_lat_rec, end_tid, XP_PACK_PID),
	XP_REC_P(struct xp_lat_rec, depth, XP_PACK_UINT),
	XP_REC_P(struct xp_lat_rec, key, XP_PACK_INTERN),
	XP_REC_P(struct xp_lat_rec, names, XP_PACK_INTERN),
	XP_REC_P(struct xp_lat_rec, comm, XP_PACK_INTERN),
};

const struct xp_rec_kind xp_lat_rec_kind = {
	.type = XP_REC_LATENCY, .min_size = sizeof(struct xp_lat_rec), .name = "latency",
	.pack = lat_pack, .npack = sizeof(lat_pack) / sizeof(lat_pack[0]),
};

void xp_lat_init(struct xp_lat_state *s, size_t max_keys)
{
	memset(s, 0, sizeof(*s));
	s->max_keys = max_keys ? max_keys : XP_LAT_DEFAULT_MAX_KEYS;
}

void xp_lat_free(struct xp_lat_state *s)
{
	for (size_t i = 0; i < s->nrows; i++)
		free(s->rows[i].vals);
	free(s->rows);
	free(s->index);
	memset(s, 0, sizeof(*s));
}

static uint64_t key_hash(const struct xp_lat_key *k)
{
	const uint8_t *p = (const uint8_t *)k;
	uint64_t h = 1469598103934665603ull;

	for (size_t i = 0; i < sizeof(*k); i++)
		h = (h ^ p[i]) * 1099511628211ull;
	return h;
}

static int reindex(struct xp_lat_state *s, size_t cap)
{
	int *ix = malloc(cap * sizeof(*ix));

	if (!ix)
		return -ENOMEM;
	for (size_t i = 0; i < cap; i++)
		ix[i] = -1;
	for (size_t r = 0; r < s->nrows; r++) {
		size_t i;

		if (s->rows[r].other)
			continue;
		for (i = key_hash(&s->rows[r].key) & (cap - 1); ix[i] >= 0; i = (i + 1) & (cap - 1))
			;
		ix[i] = (int)r;
	}
	free(s->index);
	s->index = ix;
	s->index_cap = cap;
	return 0;
}

static struct xp_lat_row *new_row(struct xp_lat_state *s)
{
	struct xp_lat_row *r;

	if (s->nrows == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 16;
		struct xp_lat_row *n = realloc(s->rows, cap * sizeof(*n));

		if (!n)
			return NULL;
		s->rows = n;
		s->cap = cap;
	}
	r = &s->rows[s->nrows++];
	memset(r, 0, sizeof(*r));
	return r;
}

static struct xp_lat_row *find(struct xp_lat_state *s, const struct xp_lat_key *k)
{
	struct xp_lat_row *r;
	size_t i;

	if (s->index_cap < 2 * (s->nrows + 1) && reindex(s, s->index_cap ? s->index_cap * 2 : 64))
		return NULL;
	for (i = key_hash(k) & (s->index_cap - 1); s->index[i] >= 0; i = (i + 1) & (s->index_cap - 1))
		if (!memcmp(&s->rows[s->index[i]].key, k, sizeof(*k)))
			return &s->rows[s->index[i]];
	if (s->nrows >= s->max_keys) {
		for (size_t j = 0; j < s->nrows; j++)
			if (s->rows[j].other)
				return &s->rows[j];
		if (!(r = new_row(s)))
			return NULL;
		r->other = true;
		snprintf(r->comm, sizeof(r->comm), "(other)");
		return r;
	}
	if (!(r = new_row(s)))
		return NULL;
	r->key = *k;
	s->index[i] = (int)(r - s->rows);
	return r;
}

int xp_lat_add(struct xp_lat_state *s, const struct xp_lat_rec *rec)
{
	struct xp_lat_row *r;
	uint64_t v;
	double d;

	if (rec->end_ns < rec->hdr.ts_ns) {
		s->bad++;
		return 0;
	}
	v = rec->end_ns - rec->hdr.ts_ns;
	if (!s->have_layout) {
		s->have_layout = true;
		memcpy(s->names, rec->names, XP_LAT_NAMES);
		s->names[XP_LAT_NAMES] = '\0';
		memcpy(s->kind, rec->kind, sizeof(s->kind));
	}
	if (!(r = find(s, &rec->key)))
		return -ENOMEM;
	if (!r->other)
		memcpy(r->comm, rec->comm, XP_COMM_LEN);
	r->comm[XP_COMM_LEN - 1] = '\0';
	s->pairs++;
	if (rec->depth)
		s->nested++;
	if (!r->count || v < r->min)
		r->min = v;
	if (v > r->max)
		r->max = v;
	r->count++;
	d = (double)v - r->mean;
	r->mean += d / (double)r->count;
	r->m2 += d * ((double)v - r->mean);
	xp_hist_add(&r->h, v);
	if (r->nvals < XP_LAT_KEEP_VALUES) {
		if (r->nvals == r->cap) {
			size_t cap = r->cap ? r->cap * 2 : 64;
			uint64_t *n = realloc(r->vals, cap * sizeof(*n));

			if (!n)
				return -ENOMEM;
			r->vals = n;
			r->cap = cap;
		}
		r->vals[r->nvals++] = v;
	}
	return 0;
}

void xp_lat_reset(struct xp_lat_state *s)
{
	/* rows go: an interval shows only the keys seen in it */
	for (size_t i = 0; i < s->nrows; i++)
		free(s->rows[i].vals);
	s->nrows = 0;
	if (s->index)
		for (size_t i = 0; i < s->index_cap; i++)
			s->index[i] = -1;
	s->pairs = s->bad = s->nested = s->aged = s->open = 0;
	memset(s->kstat, 0, sizeof(s->kstat));
	memset(s->skipped, 0, sizeof(s->skipped));
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

uint64_t xp_lat_percentile(const uint64_t *sorted, size_t n, double p)
{
	double x;
	size_t rank;

	if (!n)
		return 0;
	x = p / 100.0 * (double)n;
	rank = (size_t)x;
	if ((double)rank < x)	/* rounded up */
		rank++;
	return sorted[rank < 1 ? 0 : rank > n ? n - 1 : rank - 1];
}

/* Square root by Newton's method: the core links without libm. */
static double root(double v)
{
	double x = v > 1 ? v : 1;

	if (v <= 0)
		return 0;
	for (int i = 0; i < 200; i++) {
		double n = 0.5 * (x + v / x);

		if (n >= x)
			break;
		x = n;
	}
	return x;
}

void xp_lat_summarize(struct xp_lat_row *r, struct xp_lat_summary *o)
{
	memset(o, 0, sizeof(*o));
	o->count = r->count;
	if (!r->count)
		return;
	o->min = r->min;
	o->max = r->max;
	o->mean = r->mean;
	o->stddev = r->count > 1 ? root(r->m2 / (double)(r->count - 1)) : 0;
	if (r->nvals == r->count) {
		if (r->nvals > 1)
			qsort(r->vals, r->nvals, sizeof(r->vals[0]), cmp_u64);
		o->p50 = xp_lat_percentile(r->vals, r->nvals, 50);
		o->p90 = xp_lat_percentile(r->vals, r->nvals, 90);
		o->p99 = xp_lat_percentile(r->vals, r->nvals, 99);
	} else {
		o->p50 = xp_hist_percentile(&r->h, 50);
		o->p90 = xp_hist_percentile(&r->h, 90);
		o->p99 = xp_hist_percentile(&r->h, 99);
	}
}

uint64_t xp_lat_key_num(const struct xp_lat_row *r, int i)
{
	uint64_t v;

	memcpy(&v, r->key.k[i], sizeof(v));
	return v;
}

const char *xp_lat_key_text(const struct xp_lat_row *r, int i, char *buf, size_t len)
{
	size_t n = strnlen((const char *)r->key.k[i], XP_LAT_SLOT);

	snprintf(buf, len, "%.*s", (int)n, (const char *)r->key.k[i]);
	return buf;
}

static int cmp_rows(const void *a, const void *b, void *ctx)
{
	const struct xp_lat_state *s = ctx;
	const struct xp_lat_row *x = a, *y = b;

	if (x->other != y->other)
		return x->other ? 1 : -1;
	for (int i = 0; i < XP_LAT_MAX_KEYS; i++) {
		int c;

		switch (s->kind[i]) {
		case XP_LAT_KIND_STR:
			c = strncmp((const char *)x->key.k[i], (const char *)y->key.k[i], XP_LAT_SLOT);
			break;
		case XP_LAT_KIND_INT: {
			int64_t p = (int64_t)xp_lat_key_num(x, i), q = (int64_t)xp_lat_key_num(y, i);

			c = p < q ? -1 : p > q;
			break;
		}
		case XP_LAT_KIND_NONE:
			c = 0;
			break;
		default: {
			uint64_t p = xp_lat_key_num(x, i), q = xp_lat_key_num(y, i);

			c = p < q ? -1 : p > q;
		}
		}
		if (c)
			return c;
	}
	return 0;
}

void xp_lat_sort(struct xp_lat_state *s)
{
	/* no rows: rows may be NULL, which qsort_r must not be given even for 0 */
	if (s->nrows > 1)
		qsort_r(s->rows, s->nrows, sizeof(s->rows[0]), cmp_rows, s);
	reindex(s, s->index_cap ? s->index_cap : 64);
}

const char *xp_lat_key_name(const struct xp_lat_state *s, int i, char *buf, size_t len)
{
	const char *p = s->names;

	for (int k = 0; k < i && p; k++)
		if ((p = strchr(p, ',')))
			p++;
	if (!p || !*p) {
		snprintf(buf, len, "key%d", i + 1);
		return buf;
	}
	snprintf(buf, len, "%.*s", (int)strcspn(p, ","), p);
	return buf;
}

const char *xp_lat_key_str(const struct xp_lat_state *s, const struct xp_lat_row *r, char *buf,
			   size_t len)
{
	size_t k = 0;

	buf[0] = '\0';
	if (r->other) {
		snprintf(buf, len, "(other keys)");
		return buf;
	}
	for (int i = 0; i < XP_LAT_MAX_KEYS && k < len; i++) {
		char name[XP_LAT_NAMES], t[XP_LAT_SLOT + 1];

		if (s->kind[i] == XP_LAT_KIND_NONE)
			continue;
		xp_lat_key_name(s, i, name, sizeof(name));
		if (s->kind[i] == XP_LAT_KIND_STR)
			k += (size_t)snprintf(buf + k, len - k, "%s%s=%s", k ? " " : "", name,
					      xp_lat_key_text(r, i, t, sizeof(t)));
		else if (s->kind[i] == XP_LAT_KIND_INT)
			k += (size_t)snprintf(buf + k, len - k, "%s%s=%" PRId64, k ? " " : "", name,
					      (int64_t)xp_lat_key_num(r, i));
		else if (s->kind[i] == XP_LAT_KIND_HEX)
			k += (size_t)snprintf(buf + k, len - k, "%s%s=0x%" PRIx64, k ? " " : "", name,
					      xp_lat_key_num(r, i));
		else
			k += (size_t)snprintf(buf + k, len - k, "%s%s=%" PRIu64, k ? " " : "", name,
					      xp_lat_key_num(r, i));
	}
	return buf;
}
