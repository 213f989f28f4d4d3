#include <inttypes.h>
#include <string.h>
#include "core/rawtp_layout.h"
#include "sinks/run_info.h"
#include "sinks/text.h"

/* snprintf(buf, len, "%s", s) without printf's cost */
static const char *copy_out(char *buf, size_t len, const char *s)
{
	size_t n = strlen(s);

	if (!len)
		return buf;
	if (n >= len)
		n = len - 1;
	memcpy(buf, s, n);
	buf[n] = '\0';
	return buf;
}

char *xp_put_u64(char *p, uint64_t v)
{
	char tmp[20];
	int n = 0;

	do {
		tmp[n++] = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	while (n)
		*p++ = tmp[--n];
	return p;
}

int64_t xp_rel_ns(uint64_t ts, uint64_t t0)
{
	uint64_t d;

	if (ts >= t0) {
		d = ts - t0;
		return d > (uint64_t)INT64_MAX ? INT64_MAX : (int64_t)d;
	}
	d = t0 - ts;
	return d > (uint64_t)INT64_MAX ? INT64_MIN : -(int64_t)d;
}

char *xp_put_rel_s(char *p, uint64_t ts, uint64_t t0)
{
	/* the magnitude in unsigned arithmetic: exact over the whole range */
	uint64_t us = (ts >= t0 ? ts - t0 : t0 - ts) / 1000;

	if (ts < t0)
		*p++ = '-';
	p = xp_put_u64(p, us / 1000000);
	*p++ = '.';
	for (uint64_t frac = us % 1000000, div = 100000; div; div /= 10)
		*p++ = (char)('0' + (frac / div) % 10);
	return p;
}

/* v / 10^digits with `digits` decimals, from an integer already rounded */
static char *put_fixed(char *p, uint64_t v, int digits)
{
	uint64_t scale = 1;

	for (int i = 0; i < digits; i++)
		scale *= 10;
	p = xp_put_u64(p, v / scale);
	*p++ = '.';
	for (uint64_t frac = v % scale, d = scale / 10; d; d /= 10)
		*p++ = (char)('0' + (frac / d) % 10);
	return p;
}

/* Integer arithmetic (this runs once per streamed event); halves round up. */
const char *xp_fmt_ns(uint64_t ns, char *buf, size_t len)
{
	char tmp[32], *p = tmp;

	/* a value that rounds up to 1000 of a unit is shown in the next unit */
	if (ns < 1000)
		p = xp_put_u64(p, ns), *p++ = 'n', *p++ = 's';
	else if (ns < 999950)
		p = put_fixed(p, (ns + 50) / 100, 1), *p++ = 'u', *p++ = 's';
	else if (ns < 999995000)
		p = put_fixed(p, (ns + 5000) / 10000, 2), *p++ = 'm', *p++ = 's';
	else
		p = put_fixed(p, (ns + 5000000) / 10000000, 2), *p++ = 's';
	*p = '\0';
	return copy_out(buf, len, tmp);
}

const char *xp_fmt_pct(const struct xp_hist *h, double p, char *buf, size_t len)
{
	return h->count ? xp_fmt_ns(xp_hist_percentile(h, p), buf, len) : "-";
}

const char *xp_fmt_pcts(const struct xp_hist *h, char *buf, size_t len)
{
	char a[16], b[16], c[16];

	if (!h->count)
		return "-";
	snprintf(buf, len, "%s/%s/%s", xp_fmt_pct(h, 50, a, sizeof(a)), xp_fmt_pct(h, 90, b, sizeof(b)),
		 xp_fmt_pct(h, 99, c, sizeof(c)));
	return buf;
}

const char *xp_fmt_mean(uint64_t sum, uint64_t n, char *buf, size_t len)
{
	return n ? xp_fmt_ns(sum / n, buf, len) : "-";
}

const char *xp_errno_name(uint32_t err, char *buf, size_t len)
{
	const char *n = err ? strerrorname_np((int)err) : NULL;

	if (n)
		copy_out(buf, len, n);
	else if (err)
		snprintf(buf, len, "E%u", err);
	else
		snprintf(buf, len, "other");
	return buf;
}

/* A power of two in three significant digits: "512ns", "1.02us", "4.19ms" */
static const char *range_unit(uint64_t v, char *buf, size_t len)
{
	if (v < 1000)
		snprintf(buf, len, "%lluns", (unsigned long long)v);
	else if (v < 1000000)
		snprintf(buf, len, "%.3gus", v / 1e3);
	else if (v < 1000000000)
		snprintf(buf, len, "%.3gms", v / 1e6);
	else
		snprintf(buf, len, "%.3gs", v / 1e9);
	return buf;
}

void xp_print_log2_hist(FILE *f, const struct xp_hist *h, int indent)
{
	uint64_t slots[XP_LOG2_SLOTS], peak = 0;
	int first = -1, last = -1;
	const int width = 40;

	xp_hist_log2(h, slots);
	for (int k = 0; k < XP_LOG2_SLOTS; k++) {
		if (!slots[k])
			continue;
		if (first < 0)
			first = k;
		last = k;
		if (slots[k] > peak)
			peak = slots[k];
	}
	for (int k = first; k >= 0 && k <= last; k++) {
		char lo[16], hi[16], range[40];
		uint64_t lov = k ? 1ULL << k : 0, hiv = 1ULL << (k + 1);
		int bar = peak ? (int)((slots[k] * width + peak - 1) / peak) : 0;

		if (k == XP_LOG2_SLOTS - 1)
			snprintf(range, sizeof(range), "[%s, ...)", range_unit(lov, lo, sizeof(lo)));
		else
			snprintf(range, sizeof(range), "[%s, %s)", range_unit(lov, lo, sizeof(lo)),
				 range_unit(hiv, hi, sizeof(hi)));
		fprintf(f, "%*s%-20s %8llu |%-*.*s|\n", indent, "", range,
			(unsigned long long)slots[k], width, bar,
			"@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@");
	}
}

const char *xp_drop_reason_name(int reason)
{
	switch (reason) {
	case XP_DROP_RINGBUF: return "ring buffer full";
	case XP_DROP_MAP_FULL: return "map full";
	case XP_DROP_KERNEL_MISSED: return "skipped by the kernel";
	default: return "other";
	}
}

void xp_print_drops(FILE *f, const struct xp_run_info *ri)
{
	const uint64_t *drops = ri->drops;
	uint64_t total = 0;
	int first = 1;

	for (int i = 0; i < XP_DROP_ALL; i++)
		total += drops[i];
	fprintf(f, "drops: %llu", (unsigned long long)total);
	if (total) {
		fputs(" (", f);
		for (int i = 0; i < XP_DROP_ALL; i++) {
			if (!drops[i])
				continue;
			fprintf(f, "%s%s %llu", first ? "" : ", ", xp_drop_reason_name(i),
				(unsigned long long)drops[i]);
			first = 0;
		}
		fputs(")", f);
	}
	if (ri->skips_uncounted)
		fputs(" (and those this kernel skips uncounted: kprobe, uprobe and tracepoint programs "
		      "firing in an interrupt over another; Linux 6.7 and later count them)", f);
	fputc('\n', f);
}

void xp_print_lat_cols(FILE *f, const struct xp_hist *h)
{
	char a[16], b[16], c[16], d[16];

	fprintf(f, " %8" PRIu64 " %10s %10s %10s %10s\n", h->count,
		xp_fmt_ns(h->count ? h->sum / h->count : 0, a, sizeof(a)),
		xp_fmt_ns(xp_hist_percentile(h, 50), b, sizeof(b)),
		xp_fmt_ns(xp_hist_percentile(h, 99), c, sizeof(c)), xp_fmt_ns(h->max, d, sizeof(d)));
}

const char *xp_fmt_bytes(uint64_t b, char *buf, size_t len)
{
	static const char *const u[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)b;
	int k = 0;

	while (v >= 1024 && k < 4) {
		v /= 1024;
		k++;
	}
	if (!k)
		snprintf(buf, len, "%llu B", (unsigned long long)b);
	else
		snprintf(buf, len, "%.1f %s", v, u[k]);
	return buf;
}

void xp_print_skipped_events(FILE *f, const struct xp_rawtp_layout *l, const char *group)
{
	for (int i = 0; i < l->n; i++)
		if (!l->present[i] && (!group || !strcmp(l->ev[i].group, group)))
			fprintf(f, "note: this kernel has no %s/%s event: skipped\n", l->group[i], l->ev[i].name);
}

void xp_print_undecodable(FILE *f, uint64_t n)
{
	if (n)
		fprintf(f, "note: %" PRIu64 " record%s could not be decoded\n", n, n == 1 ? "" : "s");
}

void xp_print_notes(FILE *f, const char *filters, uint64_t overflow, const char *tables, uint64_t undecodable)
{
	if (filters)
		fprintf(f, "note: the process filters apply to %s\n", filters);
	if (overflow)
		fprintf(f, "note: %" PRIu64 " events past the tracked %s\n", overflow, tables);
	xp_print_undecodable(f, undecodable);
}
