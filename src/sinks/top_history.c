/*
 * `top`'s history strips (top_tui_draw.c draws them): per ring its busy
 * share over the last XP_TOP_HISTORY refreshes, else the processes' GPU
 * busy time, else the events per second. No curses: the unit tests run it.
 */
#include <string.h>

#include "sinks/top_tui_draw.h"

/* A ring's, CRTC's or timeline's row: no process, no cgroup. */
bool xp_top_row_is_device(const struct xp_top_row *rw)
{
	char pid[8], cg[8];

	return !strcmp(xp_top_field(rw->key, 0, pid, sizeof(pid)), "-") &&
	       !strcmp(xp_top_field(rw->key, 2, cg, sizeof(cg)), "-");
}

/* The strip of `label`, made where there is room for it; NULL: none. */
static struct xp_top_strip *strip_for(struct xp_top_tui *t, const char *label, bool pct)
{
	struct xp_top_strip *s;

	for (int i = 0; i < t->nstrip; i++)
		if (!strcmp(t->strip[i].label, label))
			return &t->strip[i];
	if (t->nstrip == XP_TOP_STRIPS)
		return NULL;
	s = &t->strip[t->nstrip++];
	memset(s, 0, sizeof(*s));
	snprintf(s->label, sizeof(s->label), "%s", label);
	s->pct = pct;
	return s;
}

/*
 * Per ring (a device's), its busy share where rings' busy time is counted;
 * else the processes' GPU busy time together; else, where no GPU time is
 * counted, the events per second.
 */
void xp_top_tui_history(struct xp_top_tui *t, double events)
{
	const struct xp_top_frame *fr = &t->cur;
	double got[XP_TOP_STRIPS] = { 0 };
	/* the families' names less "xputrace_"; with --sources, busy time's first (best) source */
	int ring = xp_top_col_named(fr, "gpu_ring_busy_seconds"), busy = xp_top_col_named(fr, "gpu_busy_seconds");
	struct xp_top_strip *s;
	char label[64];

	for (int i = 0; i < fr->nrows; i++) {
		const struct xp_top_row *rw = &fr->rows[i];

		if (ring >= 0 && xp_top_row_is_device(rw) && rw->v[ring] > 0)
			s = strip_for(t, xp_top_field(rw->key, 1, label, sizeof(label)), true);
		else if (ring < 0 && busy >= 0 && !xp_top_row_is_device(rw))
			s = strip_for(t, "GPU busy", true);
		else
			continue;
		if (s)
			got[s - t->strip] += rw->v[ring >= 0 ? ring : busy];
	}
	if (ring < 0 && busy < 0)
		strip_for(t, "events", false);
	for (int i = 0; i < t->nstrip; i++) {
		s = &t->strip[i];
		if (s->n == XP_TOP_HISTORY)
			memmove(s->v, s->v + 1, sizeof(s->v) - sizeof(s->v[0]));
		else
			s->n++;
		s->v[s->n - 1] = s->pct ? got[i] : events;
	}
}
