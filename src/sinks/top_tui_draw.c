/*
 * What `top` draws on its terminal screen: the head line, a strip per
 * device of the last minute, the table fitted to the window's width (the
 * widest text column cut first, never wrapped) and a status or help line.
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinks/top_tui_draw.h"

static const char *const fields[3] = { "pid", "comm", "cgroup" };
/* the text columns' heads, per view */
static const char *const heads[XP_TOP_NVIEWS][3] = {
	{ "PID", "COMM", "CGROUP" }, { "PROCS", "COMMS", "CGROUP" }, { "-", "DEVICE", "-" },
};
static const char *const view_names[XP_TOP_NVIEWS] = { "processes", "cgroups", "devices" };

int xp_top_tui_sort_index(const struct xp_top_tui *t)
{
	const struct xp_top_frame *fr = &t->cur;
	int c;

	if (!t->sort[0])
		return fr->ncol ? 0 : fr->ncol;
	if ((c = xp_top_col_named(fr, t->sort)) >= 0)
		return c;
	for (int i = 0; i < 3; i++)
		if (!strcmp(fields[i], t->sort))
			return fr->ncol + i;
	return fr->ncol;	/* a column not seen yet: by pid, as the plain text does */
}

/* The cgroups view: one row per cgroup, its processes counted and their rates added. */
static void add_to_cgroup(struct xp_top_frame *out, const struct xp_top_row *rw, int ncol)
{
	char cg[256], comm[64], n[16], comms[96], ocg[256];
	struct xp_top_row *g = NULL;

	xp_top_field(rw->key, 2, cg, sizeof(cg));
	xp_top_field(rw->key, 1, comm, sizeof(comm));
	for (int i = 0; i < out->nrows && !g; i++)
		if (!strcmp(xp_top_field(out->rows[i].key, 2, ocg, sizeof(ocg)), cg))
			g = &out->rows[i];
	if (!g) {
		g = &out->rows[out->nrows++];
		memset(g, 0, sizeof(*g));
		snprintf(g->key, sizeof(g->key), "1\x1f%s\x1f%s", comm, cg);
	} else {
		xp_top_field(g->key, 0, n, sizeof(n));
		xp_top_field(g->key, 1, comms, sizeof(comms));
		if (!strstr(comms, comm) && strlen(comms) + strlen(comm) + 2 < sizeof(comms))
			snprintf(comms + strlen(comms), sizeof(comms) - strlen(comms), ",%s", comm);
		snprintf(g->key, sizeof(g->key), "%d\x1f%s\x1f%s", atoi(n) + 1, comms, cg);
	}
	for (int c = 0; c < ncol; c++)
		g->v[c] += rw->v[c];
}

/* The rows of t's view, sorted as t says, into *out (its rows to free). */
static int view_make(const struct xp_top_tui *t, struct xp_top_frame *out)
{
	const struct xp_top_frame *fr = &t->cur;
	int si = xp_top_tui_sort_index(t);

	*out = *fr;
	out->nrows = 0;
	out->rows = calloc(fr->nrows ? (size_t)fr->nrows : 1, sizeof(*out->rows));
	if (!out->rows)
		return -1;
	for (int i = 0; i < fr->nrows; i++) {
		const struct xp_top_row *rw = &fr->rows[i];

		if ((t->view == XP_TOP_DEVICES) != xp_top_row_is_device(rw))
			continue;
		if (t->view == XP_TOP_CGROUPS)
			add_to_cgroup(out, rw, fr->ncol);
		else
			out->rows[out->nrows++] = *rw;
	}
	xp_top_frame_sort(out, si < fr->ncol ? si : -1, si < fr->ncol ? 0 : si - fr->ncol, t->reverse);
	return 0;
}

/* Column widths that fit `width`: numbers as wide as their heads, then the text columns cut. */
struct layout {
	int pid, comm, cg, num[XP_TOP_MAX_COLS], ncol;	/* ncol: the number columns that fit */
};

static void layout(const struct xp_top_frame *v, const char *const *hd, int width, struct layout *l)
{
	int comm = (int)strlen(hd[1]), cg = (int)strlen(hd[2]), left;
	char buf[256];

	l->pid = 7;
	for (int i = 0; i < v->nrows; i++) {
		int a = (int)strlen(xp_top_field(v->rows[i].key, 1, buf, sizeof(buf)));
		int b = (int)strlen(xp_top_field(v->rows[i].key, 2, buf, sizeof(buf)));

		comm = a > comm ? a : comm;
		cg = b > cg ? b : cg;
	}
	comm = comm > 16 ? 16 : comm;
	/* the pid, a space, the numbers each after a space, two spaces, the cgroup */
	left = width - l->pid - 1 - 2;
	l->ncol = 0;
	for (int c = 0; c < v->ncol; c++) {
		int w = (int)strlen(v->head[c]) > 7 ? (int)strlen(v->head[c]) : 7;

		if (left - (w + 1) < 4 + 4)
			break;
		l->num[l->ncol++] = w;
		left -= w + 1;
	}
	/* the widest text column gives way first, neither below 4 */
	while (comm + cg > left && (comm > 4 || cg > 4)) {
		if (cg >= comm && cg > 4)
			cg--;
		else
			comm--;
	}
	l->comm = comm;
	l->cg = cg < left - comm ? cg : left - comm;
	if (l->cg < 0)
		l->cg = 0;
}

/* s cut to w: a path keeps its end ("...", as the plain text does), a name its start. */
static void cut(char *dst, size_t len, const char *s, int w, bool tail)
{
	int n = (int)strlen(s);

	if (n <= w || w < 4)
		snprintf(dst, len, "%.*s", w > 0 ? w : 0, s);
	else if (tail)
		snprintf(dst, len, "...%s", s + n - (w - 3));
	else
		snprintf(dst, len, "%.*s~", w - 1, s);
}

/* A line of the table: the three text fields and the numbers (NULL: the heads). */
static void table_line(char *buf, size_t len, const struct layout *l, const char *const txt[3],
		       const struct xp_top_frame *v, const double *vals)
{
	char comm[64], cg[256];
	size_t k;

	cut(comm, sizeof(comm), txt[1], l->comm, false);
	cut(cg, sizeof(cg), txt[2], l->cg, true);
	k = (size_t)snprintf(buf, len, "%-*.*s %-*s", l->pid, l->pid, txt[0], l->comm, comm);
	for (int c = 0; c < l->ncol && k < len; c++)
		k += vals ? (size_t)snprintf(buf + k, len - k, " %*.1f", l->num[c], vals[c])
			  : (size_t)snprintf(buf + k, len - k, " %*s", l->num[c], v->head[c]);
	if (k < len)
		snprintf(buf + k, len - k, "  %s", cg);
}

/* One line at y, cut to the window's width, the rest of the line cleared. */
static void put_line(int y, const char *s, int attr)
{
	move(y, 0);
	clrtoeol();
	attron(attr);
	addnstr(s, COLS);
	attroff(attr);
}

static int draw_table(struct xp_top_tui *t, int y, int rows)
{
	const char *const *hd = heads[t->view];
	struct xp_top_frame v;
	struct layout l;
	char line[1024], f[3][256];
	int shown = 0;

	if (view_make(t, &v))
		return 0;
	layout(&v, hd, COLS, &l);
	table_line(line, sizeof(line), &l, hd, &v, NULL);
	put_line(y++, line, A_REVERSE);
	for (int i = 0; i < v.nrows && shown < rows; i++, shown++) {
		const char *txt[3];

		for (int j = 0; j < 3; j++)
			txt[j] = xp_top_field(v.rows[i].key, j, f[j], sizeof(f[j]));
		table_line(line, sizeof(line), &l, txt, &v, v.rows[i].v);
		put_line(y++, line, A_NORMAL);
	}
	xp_top_frame_free(&v);
	return shown;
}

/* A strip: its label, the last minute as a line of marks (the newest right), the latest value. */
static void draw_strip(int y, const struct xp_top_strip *s)
{
	static const char marks[] = " .:-=+*#%@";
	char line[256], now[32];
	double peak = 0;
	int w, k, first;

	for (int i = 0; i < s->n; i++)
		peak = s->v[i] > peak ? s->v[i] : peak;
	if (s->pct)
		peak = 100;
	snprintf(now, sizeof(now), s->pct ? "%5.1f%%" : "%.0f/s", s->n ? s->v[s->n - 1] : 0);
	k = snprintf(line, sizeof(line), "%-12.12s [", s->label);
	w = COLS - k - 2 - (int)strlen(now);
	w = w > XP_TOP_HISTORY ? XP_TOP_HISTORY : w < 0 ? 0 : w;
	first = s->n - w;
	for (int i = 0; i < w; i++) {
		double x = first + i >= 0 ? s->v[first + i] : 0;
		int m = peak > 0 ? (int)(x / peak * 9 + 0.5) : 0;

		line[k++] = first + i < 0 ? ' ' : marks[m < 0 ? 0 : m > 9 ? 9 : m];
	}
	snprintf(line + k, sizeof(line) - (size_t)k, "] %s", now);
	put_line(y, line, A_NORMAL);
}

void xp_top_tui_draw(struct xp_top_tui *t)
{
	char line[256];
	int y = 0, si = xp_top_tui_sort_index(t), rows;
	const char *key = si < t->cur.ncol ? t->cur.head[si] : heads[t->view][si - t->cur.ncol];

	erase();
	put_line(y++, t->head, A_BOLD);
	for (int i = 0; i < t->nstrip && y < LINES - 3; i++)
		draw_strip(y++, &t->strip[i]);
	rows = LINES - y - 2;
	draw_table(t, y, rows > 0 ? rows : 0);
	if (t->help)
		snprintf(line, sizeof(line), "q quit  s/> next sort  < previous  r reverse  "
			 "v processes/cgroups/devices  h this help");
	else
		snprintf(line, sizeof(line), "%s by %s%s  (h: help, q: quit)", view_names[t->view], key,
			 t->reverse ? ", least first" : "");
	if (LINES > 1)
		put_line(LINES - 1, line, A_REVERSE);
	refresh();
}
