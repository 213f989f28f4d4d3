#include "core/rawtp_layout.h"
#include "sinks/run_info.h"

uint64_t xp_run_total_drops(const struct xp_run_info *ri)
{
	uint64_t n = 0;

	for (int i = 0; i < XP_DROP_ALL; i++)
		n += ri->drops[i];
	return n;
}

void xp_json_begin_run(struct xp_json *j, FILE *f, const struct xp_run_info *ri)
{
	xp_json_init(j, f, false);
	xp_json_begin_obj(j);
	xp_json_run_info(j, ri);
}

void xp_json_run_info(struct xp_json *j, const struct xp_run_info *ri)
{
	xp_json_kstr(j, "tool", "xputrace");
	xp_json_kstr(j, "command", ri->command);
	xp_json_kstr(j, "source", ri->source);
	xp_json_kstr(j, "mode", ri->mode);
	if (ri->hook)
		xp_json_kstr(j, "hook", ri->hook);
	xp_json_kdouble(j, "duration_s", ri->duration_s);
	if (ri->interval)
		xp_json_ku64(j, "interval", ri->interval);
	xp_json_key(j, "drops");
	xp_json_begin_obj(j);
	xp_json_ku64(j, "total", xp_run_total_drops(ri));
	xp_json_ku64(j, "ringbuf", ri->drops[XP_DROP_RINGBUF]);
	xp_json_ku64(j, "map_full", ri->drops[XP_DROP_MAP_FULL]);
	xp_json_ku64(j, "kernel_missed", ri->drops[XP_DROP_KERNEL_MISSED]);
	/* only where this kernel skips some program runs without counting them */
	if (ri->skips_uncounted)
		xp_json_kbool(j, "kernel_skips_counted", false);
	xp_json_end_obj(j);
}

void xp_json_khist(struct xp_json *j, const char *key, const struct xp_hist *h)
{
	uint64_t slots[XP_LOG2_SLOTS];

	xp_json_key(j, key);
	xp_json_begin_obj(j);
	xp_json_ku64(j, "count", h->count);
	xp_json_ku64(j, "sum", h->sum);
	xp_json_ku64(j, "p50", xp_hist_percentile(h, 50));
	xp_json_ku64(j, "p90", xp_hist_percentile(h, 90));
	xp_json_ku64(j, "p99", xp_hist_percentile(h, 99));
	xp_json_ku64(j, "max", h->max);
	xp_json_key(j, "log2");
	xp_hist_log2(h, slots);
	xp_json_begin_arr(j);
	for (int k = 0; k < XP_LOG2_SLOTS; k++) {
		if (!slots[k])
			continue;
		xp_json_begin_obj(j);
		xp_json_ku64(j, "lo", k ? 1ULL << k : 0);
		xp_json_ku64(j, "count", slots[k]);
		xp_json_end_obj(j);
	}
	xp_json_end_arr(j);
	xp_json_end_obj(j);
}

void xp_json_kevents(struct xp_json *j, const char *key, const struct xp_rawtp_layout *l, int n)
{
	xp_json_key(j, key);
	xp_json_begin_obj(j);
	for (int i = 0; i < n && i < l->n; i++)
		xp_json_kbool(j, l->ev[i].name, l->present[i]);
	xp_json_end_obj(j);
}
