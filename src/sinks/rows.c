/* The one writer of rows: text lines, JSON objects, stream lines (sinks/rows.h). */
#include <inttypes.h>
#include <string.h>

#include "sinks/run_info.h"
#include "sinks/rows.h"
#include "sinks/text.h"

/* An integer field of 1, 2, 4 or 8 bytes, sign-extended where `sign`. */
static uint64_t field(const unsigned char *p, size_t size, bool sign)
{
	union {
		uint8_t u8;
		uint16_t u16;
		uint32_t u32;
		uint64_t u64;
		int8_t i8;
		int16_t i16;
		int32_t i32;
	} x = { .u64 = 0 };

	memcpy(&x, p, size < sizeof(x) ? size : sizeof(x));
	switch (size) {
	case 1: return sign ? (uint64_t)(int64_t)x.i8 : x.u8;
	case 2: return sign ? (uint64_t)(int64_t)x.i16 : x.u16;
	case 4: return sign ? (uint64_t)(int64_t)x.i32 : x.u32;
	default: return x.u64;
	}
}

void xp_rows_value(const struct xp_col *c, const void *row, const void *ctx, struct xp_val *v)
{
	const unsigned char *p = (const unsigned char *)(c->flags & XP_COL_IN_CTX ? ctx : row) + c->off;

	memset(v, 0, sizeof(*v));
	if (c->get) {
		c->get(row, ctx, v);
		return;
	}
	switch (c->type) {
	case XP_COL_SINT: v->i = (int64_t)field(p, c->size, true); break;
	case XP_COL_STR: v->s = (const char *)p; break;
	case XP_COL_HIST: v->h = (const struct xp_hist *)p; break;
	case XP_COL_DOUBLE: memcpy(&v->d, p, sizeof(v->d)); break;
	case XP_COL_BOOL: memcpy(&v->b, p, sizeof(v->b)); break;
	default: v->u = field(p, c->size, false); break;
	}
}

/* A histogram's text: "-" where it is empty. */
static const char *hist_cell(int stat, const struct xp_hist *h, char *buf, size_t len)
{
	char a[16], b[16], c[16];

	if (!h->count && stat != XP_HIST_P50_P99 && stat != XP_HIST_P50_P99_MAX)
		return "-";
	switch (stat) {
	case XP_HIST_MEAN: return xp_fmt_ns(h->sum / h->count, buf, len);
	case XP_HIST_SUM: return xp_fmt_ns(h->sum, buf, len);
	case XP_HIST_MAX: return xp_fmt_ns(h->max, buf, len);
	case XP_HIST_P99: return xp_fmt_ns(xp_hist_percentile(h, 99), buf, len);
	case XP_HIST_P50_P99:
		snprintf(buf, len, "%s/%s", xp_fmt_pct(h, 50, a, sizeof(a)), xp_fmt_pct(h, 99, b, sizeof(b)));
		return buf;
	case XP_HIST_P50_P99_MAX:
		snprintf(buf, len, "%s/%s/%s", xp_fmt_pct(h, 50, a, sizeof(a)), xp_fmt_pct(h, 99, b, sizeof(b)),
			 h->count ? xp_fmt_ns(h->max, c, sizeof(c)) : "-");
		return buf;
	case XP_HIST_MEAN_P99:
		snprintf(buf, len, "%s / %s", xp_fmt_ns(h->sum / h->count, a, sizeof(a)),
			 xp_fmt_pct(h, 99, b, sizeof(b)));
		return buf;
	default: return xp_fmt_pcts(h, buf, len);
	}
}

/* The text of a value: in buf, or a string it points at. */
static const char *cell(const struct xp_col *c, const struct xp_val *v, char *buf, size_t len)
{
	if (v->none)
		return "-";
	switch (c->type) {
	case XP_COL_INT: snprintf(buf, len, "%" PRIu64, v->u); return buf;
	case XP_COL_SINT: snprintf(buf, len, "%" PRId64, v->i); return buf;
	case XP_COL_STR: return v->s ? v->s : "";
	case XP_COL_NS: return xp_fmt_ns(v->u, buf, len);
	case XP_COL_HIST: return hist_cell(c->stat, v->h, buf, len);
	case XP_COL_MILLI:
		snprintf(buf, len, "%" PRIu64 ".%03" PRIu64, v->u / 1000, v->u % 1000);
		return buf;
	case XP_COL_DOUBLE: snprintf(buf, len, "%.2f", v->d); return buf;
	case XP_COL_BOOL: return v->b ? "yes" : "no";
	}
	return "?";
}

static void put_cell(FILE *f, const struct xp_rows *t, int i, int *shown, const char *s)
{
	const struct xp_col *c = &t->cols[i];
	int w = c->width < 0 ? -c->width : c->width;

	if ((*shown)++)
		fprintf(f, " %*s", c->gap, "");
	else if (t->indent)
		fputs(t->indent, f);
	if (!w)
		fputs(s, f);
	else if (c->flags & XP_COL_CUT)
		fprintf(f, c->width < 0 ? "%-*.*s" : "%*.*s", w, w, s);
	else
		fprintf(f, c->width < 0 ? "%-*s" : "%*s", w, s);
}

static void heads(FILE *f, const struct xp_rows *t, const void *ctx, int *shown)
{
	for (int i = 0; i < t->n; i++) {
		const char *h = t->head_of ? t->head_of(i, ctx) : NULL;

		if (t->cols[i].head)
			put_cell(f, t, i, shown, h ? h : t->cols[i].head);
	}
	if (t->more)
		heads(f, t->more, ctx, shown);
}

void xp_rows_head(FILE *f, const struct xp_rows *t, const void *ctx)
{
	int shown = 0;

	heads(f, t, ctx, &shown);
	fputc('\n', f);
}

static void cells(FILE *f, const struct xp_rows *t, const void *row, const void *ctx, int *shown)
{
	for (int i = 0; i < t->n; i++) {
		struct xp_val v;
		char buf[64];

		if (!t->cols[i].head)
			continue;
		xp_rows_value(&t->cols[i], row, ctx, &v);
		put_cell(f, t, i, shown, cell(&t->cols[i], &v, buf, sizeof(buf)));
	}
	if (t->more)
		cells(f, t->more, (const unsigned char *)row + t->more_off, ctx, shown);
}

void xp_rows_text(FILE *f, const struct xp_rows *t, const void *row, const void *ctx)
{
	int shown = 0;

	cells(f, t, row, ctx, &shown);
	fputc('\n', f);
}

static void json_value(struct xp_json *j, const struct xp_col *c, const struct xp_val *v)
{
	if (v->none) {
		if (!(c->flags & XP_COL_OMIT)) {
			xp_json_key(j, c->key);
			xp_json_null(j);
		}
		return;
	}
	switch (c->type) {
	case XP_COL_INT:
	case XP_COL_NS: xp_json_ku64(j, c->key, v->u); break;
	case XP_COL_SINT: xp_json_ki64(j, c->key, v->i); break;
	case XP_COL_STR: xp_json_kstr(j, c->key, v->s ? v->s : ""); break;
	case XP_COL_HIST: xp_json_khist(j, c->key, v->h); break;
	case XP_COL_MILLI:
		xp_json_key(j, c->key);
		xp_json_fixed(j, v->u, 3);
		break;
	case XP_COL_DOUBLE: xp_json_kdouble(j, c->key, v->d); break;
	case XP_COL_BOOL: xp_json_kbool(j, c->key, v->b); break;
	}
}

void xp_rows_json(struct xp_json *j, const struct xp_rows *t, const void *row, const void *ctx)
{
	for (int i = 0; i < t->n; i++) {
		struct xp_val v;

		if (!t->cols[i].key)
			continue;
		xp_rows_value(&t->cols[i], row, ctx, &v);
		json_value(j, &t->cols[i], &v);
	}
	if (t->more)
		xp_rows_json(j, t->more, (const unsigned char *)row + t->more_off, ctx);
}

void xp_rows_json_obj(struct xp_json *j, const struct xp_rows *t, const void *row, const void *ctx)
{
	xp_json_begin_obj(j);
	xp_rows_json(j, t, row, ctx);
	xp_json_end_obj(j);
}

void xp_rows_json_arr(struct xp_json *j, const char *key, const struct xp_rows *t, const void *rows,
		      int n, size_t size, const void *ctx, bool (*keep)(const void *row))
{
	xp_json_key(j, key);
	xp_json_begin_arr(j);
	for (int i = 0; i < n; i++) {
		const void *row = (const unsigned char *)rows + (size_t)i * size;

		if (!keep || keep(row))
			xp_rows_json_obj(j, t, row, ctx);
	}
	xp_json_end_arr(j);
}

void xp_rows_stream(FILE *f, struct xp_json *j, const struct xp_rows *t, const void *row,
		    const void *ctx)
{
	if (j) {
		xp_rows_json_obj(j, t, row, ctx);
		xp_json_finish(j);
	} else {
		xp_rows_text(f, t, row, ctx);
	}
}
