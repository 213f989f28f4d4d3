/* `latency`'s output (latency_report.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "caps/latency/latency_report.h"
#include "sinks/perfetto.h"
#include "sinks/text.h"

/*
 * Starts whose end the kernel skipped stay in the in-flight table, but the
 * end did come: they are counted as left unpaired, not as still open.
 */
static uint64_t unpaired(const struct xp_lat_state *s)
{
	uint64_t e = s->skipped[1];

	return s->skip_known[1] && e < s->open ? e : s->skip_known[1] ? s->open : 0;
}

static void skip_text(FILE *f, const struct xp_lat_state *s, int side)
{
	if (s->skip_known[side])
		fprintf(f, "%" PRIu64, s->skipped[side]);
	else
		fprintf(f, "not counted by this kernel");
}

static void counters_text(FILE *f, const struct xp_lat_state *s)
{
	if (s->have_kernel) {
		fprintf(f, "starts %" PRIu64 ", ends without a start %" PRIu64 ", starts not kept "
			   "(in-flight table full %" PRIu64 ", nested over %d deep %" PRIu64 "), aged out %"
			   PRIu64 ", still open %" PRIu64 "\n",
			s->kstat[XP_LAT_ST_STARTS], s->kstat[XP_LAT_ST_ORPHAN_ENDS],
			s->kstat[XP_LAT_ST_INFLIGHT_FULL], XP_LAT_MAX_DEPTH, s->kstat[XP_LAT_ST_TOO_DEEP],
			s->aged, s->open - unpaired(s));
		fprintf(f, "skipped by the kernel (another BPF program ran on the CPU): starts ");
		skip_text(f, s, 0);
		fprintf(f, ", ends ");
		skip_text(f, s, 1);
		fprintf(f, " (starts left without their end %" PRIu64 "); done from the event's arguments "
			   "instead: starts %" PRIu64 ", ends %" PRIu64 "; ends inside their own start %"
			   PRIu64 "\n", unpaired(s), s->kstat[XP_LAT_ST_FROM_RECOVERED],
			s->kstat[XP_LAT_ST_TO_RECOVERED], s->kstat[XP_LAT_ST_END_RACED]);
	}
	if (s->nested)
		fprintf(f, "nested pairs (inside another of the same key): %" PRIu64 "\n", s->nested);
	if (s->bad)
		fprintf(f, "note: %" PRIu64 " pairs ended before they started (left out)\n", s->bad);
}

void xp_lat_report_text(FILE *f, const struct xp_lat_report *r)
{
	struct xp_lat_state *s = r->st;
	char key[160], a[16], b[16], c[16], d[16], e[16], g[16], h[16];

	if (r->ri->interval)
		fprintf(f, "--- interval %" PRIu64 " ---\n", r->ri->interval);
	fprintf(f, "%s: %.1f s, %" PRIu64 " pair%s", r->ri->command, r->ri->duration_s, s->pairs,
		s->pairs == 1 ? "" : "s");
	if (s->have_layout)
		fprintf(f, " by %s", s->names);
	fprintf(f, ", %zu key%s, ", s->nrows, s->nrows == 1 ? "" : "s");
	xp_print_drops(f, r->ri);
	if (r->from && r->to)
		fprintf(f, "from %s to %s\n", r->from, r->to);
	counters_text(f, s);
	if (!s->nrows) {
		fprintf(f, "no pairs\n");
		return;
	}
	xp_lat_sort(s);
	fprintf(f, "\n%-32s %-16s %8s %9s %9s %9s %9s %9s %9s %9s\n", "KEY", "COMM", "COUNT", "MEAN",
		"STDDEV", "MIN", "P50", "P90", "P99", "MAX");
	for (size_t i = 0; i < s->nrows; i++) {
		struct xp_lat_summary m;

		xp_lat_summarize(&s->rows[i], &m);
		fprintf(f, "%-32s %-16s %8" PRIu64 " %9s %9s %9s %9s %9s %9s %9s\n",
			xp_lat_key_str(s, &s->rows[i], key, sizeof(key)), s->rows[i].comm, m.count,
			xp_fmt_ns((uint64_t)(m.mean + 0.5), a, sizeof(a)),
			m.count > 1 ? xp_fmt_ns((uint64_t)(m.stddev + 0.5), b, sizeof(b)) : "-",
			xp_fmt_ns(m.min, c, sizeof(c)), xp_fmt_ns(m.p50, d, sizeof(d)),
			xp_fmt_ns(m.p90, e, sizeof(e)), xp_fmt_ns(m.p99, g, sizeof(g)),
			xp_fmt_ns(m.max, h, sizeof(h)));
	}
	if (!r->hist)
		return;
	for (size_t i = 0; i < s->nrows; i++) {
		fprintf(f, "\n%s (%s):\n", xp_lat_key_str(s, &s->rows[i], key, sizeof(key)), s->rows[i].comm);
		xp_print_log2_hist(f, &s->rows[i].h, 2);
	}
}

static void key_json(struct xp_json *j, const struct xp_lat_state *s, const struct xp_lat_row *row)
{
	char name[XP_LAT_NAMES], t[XP_LAT_SLOT + 1];

	xp_json_begin_obj(j);
	for (int i = 0; i < XP_LAT_MAX_KEYS; i++) {
		if (s->kind[i] == XP_LAT_KIND_NONE)
			continue;
		xp_json_key(j, xp_lat_key_name(s, i, name, sizeof(name)));
		if (s->kind[i] == XP_LAT_KIND_STR)
			xp_json_str(j, xp_lat_key_text(row, i, t, sizeof(t)));
		else if (s->kind[i] == XP_LAT_KIND_INT)
			xp_json_i64(j, (int64_t)xp_lat_key_num(row, i));
		else
			xp_json_u64(j, xp_lat_key_num(row, i));
	}
	xp_json_end_obj(j);
}

void xp_lat_report_json(FILE *f, const struct xp_lat_report *r)
{
	struct xp_lat_state *s = r->st;
	struct xp_json j;
	char name[XP_LAT_NAMES], label[160];

	xp_json_begin_run(&j, f, r->ri);
	if (r->from && r->to) {
		xp_json_kstr(&j, "from", r->from);
		xp_json_kstr(&j, "to", r->to);
	}
	xp_json_key(&j, "key");
	xp_json_begin_arr(&j);
	for (int i = 0; s->have_layout && i < XP_LAT_MAX_KEYS; i++)
		if (s->kind[i] != XP_LAT_KIND_NONE)
			xp_json_str(&j, xp_lat_key_name(s, i, name, sizeof(name)));
	xp_json_end_arr(&j);
	xp_json_ku64(&j, "pairs", s->pairs);
	xp_json_ku64(&j, "nested", s->nested);
	xp_json_ku64(&j, "ended_before_start", s->bad);
	if (s->have_kernel) {
		xp_json_ku64(&j, "starts", s->kstat[XP_LAT_ST_STARTS]);
		xp_json_ku64(&j, "ends", s->kstat[XP_LAT_ST_ENDS]);
		xp_json_ku64(&j, "ends_without_start", s->kstat[XP_LAT_ST_ORPHAN_ENDS]);
		xp_json_ku64(&j, "inflight_full", s->kstat[XP_LAT_ST_INFLIGHT_FULL]);
		xp_json_ku64(&j, "too_deep", s->kstat[XP_LAT_ST_TOO_DEEP]);
		xp_json_ku64(&j, "aged_out", s->aged);
		xp_json_ku64(&j, "still_open", s->open - unpaired(s));
		/* null: this kernel does not let them be counted */
		xp_json_key(&j, "starts_skipped");
		if (s->skip_known[0])
			xp_json_u64(&j, s->skipped[0]);
		else
			xp_json_null(&j);
		xp_json_key(&j, "ends_skipped");
		if (s->skip_known[1])
			xp_json_u64(&j, s->skipped[1]);
		else
			xp_json_null(&j);
		xp_json_ku64(&j, "unpaired_end_skipped", unpaired(s));
		xp_json_ku64(&j, "starts_from_args", s->kstat[XP_LAT_ST_FROM_RECOVERED]);
		xp_json_ku64(&j, "ends_from_args", s->kstat[XP_LAT_ST_TO_RECOVERED]);
		xp_json_ku64(&j, "ends_inside_start", s->kstat[XP_LAT_ST_END_RACED]);
	}
	xp_lat_sort(s);
	xp_json_key(&j, "keys");
	xp_json_begin_arr(&j);
	for (size_t i = 0; i < s->nrows; i++) {
		struct xp_lat_summary m;

		xp_lat_summarize(&s->rows[i], &m);
		xp_json_begin_obj(&j);
		xp_json_key(&j, "key");
		if (s->rows[i].other)
			xp_json_null(&j);
		else
			key_json(&j, s, &s->rows[i]);
		/* the key as the text summary writes it: one member to select a row by */
		xp_json_kstr(&j, "label", xp_lat_key_str(s, &s->rows[i], label, sizeof(label)));
		xp_json_kstr(&j, "comm", s->rows[i].comm);
		xp_json_ku64(&j, "count", m.count);
		/* to the picosecond, not in %g's six digits */
		xp_json_key(&j, "mean_ns");
		xp_json_fixed(&j, (uint64_t)(m.mean * 1000 + 0.5), 3);
		xp_json_key(&j, "stddev_ns");
		xp_json_fixed(&j, (uint64_t)(m.stddev * 1000 + 0.5), 3);
		xp_json_ku64(&j, "min_ns", m.min);
		xp_json_ku64(&j, "p50_ns", m.p50);
		xp_json_ku64(&j, "p90_ns", m.p90);
		xp_json_ku64(&j, "p99_ns", m.p99);
		xp_json_ku64(&j, "max_ns", m.max);
		xp_json_khist(&j, "hist", &s->rows[i].h);
		xp_json_end_obj(&j);
	}
	xp_json_end_arr(&j);
	xp_json_end_obj(&j);
	xp_json_finish(&j);
}

void xp_lat_stream_header(FILE *f)
{
	fprintf(f, "%-12s %-32s %-16s %8s %10s\n", "TIME(s)", "KEY", "COMM", "TID", "LATENCY");
}

void xp_lat_stream_text(FILE *f, const struct xp_lat_state *s, const struct xp_lat_rec *rec, uint64_t t0)
{
	struct xp_lat_row row = { .key = rec->key };
	char t[32], key[160], a[16];

	*xp_put_rel_s(t, rec->hdr.ts_ns, t0) = '\0';
	fprintf(f, "%12s %-32s %-16.16s %8u %10s\n", t, xp_lat_key_str(s, &row, key, sizeof(key)),
		rec->comm, rec->hdr.tid,
		xp_fmt_ns(rec->end_ns >= rec->hdr.ts_ns ? rec->end_ns - rec->hdr.ts_ns : 0, a, sizeof(a)));
}

void xp_lat_stream_json(struct xp_json *j, const struct xp_lat_state *s, const struct xp_lat_rec *rec,
			uint64_t t0)
{
	struct xp_lat_row row = { .key = rec->key };
	char comm[XP_COMM_LEN + 1];

	snprintf(comm, sizeof(comm), "%.*s", XP_COMM_LEN, rec->comm);
	xp_json_begin_obj(j);
	xp_json_ki64(j, "t_ns", xp_rel_ns(rec->hdr.ts_ns, t0));
	xp_json_key(j, "key");
	key_json(j, s, &row);
	xp_json_ku64(j, "pid", rec->hdr.pid);
	xp_json_ku64(j, "tid", rec->hdr.tid);
	xp_json_kstr(j, "comm", comm);
	xp_json_ku64(j, "latency_ns", rec->end_ns >= rec->hdr.ts_ns ? rec->end_ns - rec->hdr.ts_ns : 0);
	xp_json_ku64(j, "depth", rec->depth);
	xp_json_end_obj(j);
	xp_json_finish(j);
}

void xp_perfetto_latency(struct xp_perfetto *p, const struct xp_lat_state *s, const struct xp_lat_rec *rec)
{
	struct xp_lat_row row = { .key = rec->key };
	char comm[XP_COMM_LEN + 1], key[160];

	if (rec->end_ns < rec->hdr.ts_ns)
		return;
	snprintf(comm, sizeof(comm), "%.*s", XP_COMM_LEN, rec->comm);
	xp_perfetto_name(p, rec->hdr.pid, rec->hdr.tid, comm);
	xp_perfetto_slice_begin(p, rec->hdr.pid, rec->hdr.tid, "latency",
				xp_lat_key_str(s, &row, key, sizeof(key)), rec->hdr.ts_ns,
				rec->end_ns - rec->hdr.ts_ns);
	xp_json_ku64(&p->j, "depth", rec->depth);
	xp_json_ku64(&p->j, "end_tid", rec->end_tid);
	xp_perfetto_slice_end(p);
}
