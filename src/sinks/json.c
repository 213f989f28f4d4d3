#include <math.h>
#include "sinks/json.h"

void xp_json_init(struct xp_json *j, FILE *f, bool pretty)
{
	j->f = f;
	j->depth = 0;
	j->pretty = pretty;
	j->need_comma[0] = false;
	j->after_key = false;
}

static void newline(struct xp_json *j)
{
	if (!j->pretty)
		return;
	fputc('\n', j->f);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/* Separator and indentation before a value or a key. */
static void before_item(struct xp_json *j)
{
	if (j->after_key) {
		j->after_key = false;
		return;
	}
	if (j->need_comma[j->depth])
		fputc(',', j->f);
	if (j->depth > 0)
		newline(j);
	j->need_comma[j->depth] = true;
}

static void open_scope(struct xp_json *j, char c)
{
	if (!j->f)
		return;
	before_item(j);
	fputc(c, j->f);
	if (j->depth < XP_JSON_MAX_DEPTH - 1)
		j->depth++;
	j->need_comma[j->depth] = false;
}

static void close_scope(struct xp_json *j, char c)
{
	bool had_items = j->need_comma[j->depth];

	if (!j->f)
		return;
	if (j->depth > 0)
		j->depth--;
	if (had_items)
		newline(j);
	fputc(c, j->f);
}

void xp_json_begin_obj(struct xp_json *j) { open_scope(j, '{'); }
void xp_json_end_obj(struct xp_json *j) { close_scope(j, '}'); }
void xp_json_begin_arr(struct xp_json *j) { open_scope(j, '['); }
void xp_json_end_arr(struct xp_json *j) { close_scope(j, ']'); }

/* Length of the valid UTF-8 sequence at p, or 0 when it is not one. */
static int utf8_len(const unsigned char *p)
{
	int n = p[0] >= 0xf0 && p[0] <= 0xf4 ? 4 : p[0] >= 0xe0 ? 3 : p[0] >= 0xc2 && p[0] <= 0xdf ? 2 : 0;

	if (p[0] >= 0xf5)
		n = 0;
	for (int i = 1; i < n; i++)
		if ((p[i] & 0xc0) != 0x80)
			return 0;
	/* overlong forms, surrogates and values above U+10FFFF */
	if ((n == 3 && p[0] == 0xe0 && p[1] < 0xa0) || (n == 3 && p[0] == 0xed && p[1] >= 0xa0) ||
	    (n == 4 && p[0] == 0xf0 && p[1] < 0x90) || (n == 4 && p[0] == 0xf4 && p[1] >= 0x90))
		return 0;
	return n;
}

/*
 * Strings from the kernel (task names cut at 15 bytes, device paths) may hold
 * broken UTF-8; such bytes become U+FFFD so the document stays valid JSON.
 */
static void write_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"': fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (*p < 0x20 || *p == 0x7f) {
				fprintf(f, "\\u%04x", *p);
			} else if (*p < 0x80) {
				fputc(*p, f);
			} else {
				int n = utf8_len(p);

				if (n) {
					fwrite(p, 1, (size_t)n, f);
					p += n - 1;
				} else {
					fputs("\\ufffd", f);
				}
			}
		}
	}
	fputc('"', f);
}

void xp_json_key(struct xp_json *j, const char *key)
{
	if (!j->f)
		return;
	before_item(j);
	write_string(j->f, key);
	fputs(j->pretty ? ": " : ":", j->f);
	j->after_key = true;
}

void xp_json_str(struct xp_json *j, const char *s)
{
	if (!j->f)
		return;
	before_item(j);
	if (s)
		write_string(j->f, s);
	else
		fputs("null", j->f);
}

void xp_json_u64(struct xp_json *j, uint64_t v)
{
	if (!j->f)
		return;
	before_item(j);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

void xp_json_i64(struct xp_json *j, int64_t v)
{
	if (!j->f)
		return;
	before_item(j);
	fprintf(j->f, "%lld", (long long)v);
}

void xp_json_double(struct xp_json *j, double v)
{
	if (!j->f)
		return;
	before_item(j);
	if (isfinite(v))
		fprintf(j->f, "%.6g", v);
	else
		fputs("null", j->f);
}

void xp_json_fixed(struct xp_json *j, uint64_t units, unsigned int digits)
{
	uint64_t scale = 1;

	if (digits > 9)
		digits = 9;
	for (unsigned int i = 0; i < digits; i++)
		scale *= 10;
	if (!j->f)
		return;
	before_item(j);
	if (digits)
		fprintf(j->f, "%llu.%0*llu", (unsigned long long)(units / scale), (int)digits,
			(unsigned long long)(units % scale));
	else
		fprintf(j->f, "%llu", (unsigned long long)units);
}

void xp_json_bool(struct xp_json *j, bool v)
{
	if (!j->f)
		return;
	before_item(j);
	fputs(v ? "true" : "false", j->f);
}

void xp_json_null(struct xp_json *j)
{
	if (!j->f)
		return;
	before_item(j);
	fputs("null", j->f);
}

void xp_json_finish(struct xp_json *j)
{
	if (!j->f)
		return;
	fputc('\n', j->f);
	/* the writer may go on with another document (one JSON object per line) */
	j->depth = 0;
	j->need_comma[0] = false;
	j->after_key = false;
}

void xp_json_kstr(struct xp_json *j, const char *k, const char *s) { xp_json_key(j, k); xp_json_str(j, s); }
void xp_json_ku64(struct xp_json *j, const char *k, uint64_t v) { xp_json_key(j, k); xp_json_u64(j, v); }
void xp_json_ki64(struct xp_json *j, const char *k, int64_t v) { xp_json_key(j, k); xp_json_i64(j, v); }
void xp_json_kdouble(struct xp_json *j, const char *k, double v) { xp_json_key(j, k); xp_json_double(j, v); }
void xp_json_kbool(struct xp_json *j, const char *k, bool v) { xp_json_key(j, k); xp_json_bool(j, v); }
