/* Inside `top`'s terminal screen (top_tui.c): its state, and what draws it (top_tui_draw.c). */
#ifndef XP_SINKS_TOP_TUI_DRAW_H
#define XP_SINKS_TOP_TUI_DRAW_H

#include "sinks/top_tui.h"

/* History strips shown, at most. */
#define XP_TOP_STRIPS 4

struct xp_top_strip {
	char label[32];		/* a ring's labels, "GPU busy" or "events" */
	bool pct;		/* percent (of 100), else a rate scaled to its own peak */
	double v[XP_TOP_HISTORY];	/* oldest first */
	int n;
};

struct xp_top_tui {
	void *screen;			/* curses' SCREEN */
	struct xp_top_frame cur;	/* the last refresh's rows, unsorted */
	char head[256];
	char sort[64];			/* a column's name, pid, comm, cgroup; "": the first column */
	bool reverse, help;
	enum xp_top_view view;
	struct xp_top_strip strip[XP_TOP_STRIPS];
	int nstrip;
};

/* The sort key's index: a column's, or ncol + 0, 1, 2 for PID, COMM, CGROUP. */
int xp_top_tui_sort_index(const struct xp_top_tui *t);
/* A ring's, CRTC's or timeline's row: no process, no cgroup. */
bool xp_top_row_is_device(const struct xp_top_row *rw);
/* A refresh's samples (t->cur; `events` per second) into the history strips (top_history.c). */
void xp_top_tui_history(struct xp_top_tui *t, double events);
/* The whole screen, from t. */
void xp_top_tui_draw(struct xp_top_tui *t);

#endif
