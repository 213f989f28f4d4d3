/* `xputrace top`'s table, from the metrics store. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sinks/top.h"

#define PREFIX "xputrace_"
#define BUSY "xputrace_gpu_busy_seconds"

/* A column: a family's series, those of one source (rank), or two sources' difference. */
enum { ANY_SOURCE = -1, DIFFERENCE = -2 };
struct col {
	int fam;
	int rank;		/* a source's rank (xp_source_rank), ANY_SOURCE or DIFFERENCE */
};

struct cell {
	char key[360];		/* pid \x1f comm \x1f cgroup: sorts a process's cells together */
	int col;
	int rank;		/* its source's (xp_source_rank): a row shows its best source's cells only */
	double v;
};


static const char *short_name(const char *name)
{
	return strncmp(name, PREFIX, sizeof(PREFIX) - 1) ? name : name + sizeof(PREFIX) - 1;
}

/*
 * The families that are columns: bounded counters and histograms (their
 * sums), at most XP_TOP_MAX_COLS; with `seen`, only those with a series yet
 * (a machine that flips no frames gets no frame columns).
 */
static int columns(const struct xp_metrics *m, int cols[XP_TOP_MAX_COLS], bool seen)
{
	int n = 0;

	for (int i = 0; i < m->nfams && n < XP_TOP_MAX_COLS; i++)
		if (m->fams[i].bounded && m->fams[i].type != XP_METRIC_GAUGE && (!seen || m->fams[i].first))
			cols[n++] = i;
	return n;
}

bool xp_top_sort_known(const struct xp_metrics *m, const char *sort)
{
	int cols[XP_TOP_MAX_COLS], n = columns(m, cols, false);

	if (!strcmp(sort, "pid") || !strcmp(sort, "comm") || !strcmp(sort, "cgroup"))
		return true;
	for (int c = 0; c < n; c++)
		if (!strcmp(short_name(m->fams[cols[c]].name), sort))
			return true;
	return false;
}

static int by_key(const void *a, const void *b)
{
	return strcmp(((const struct cell *)a)->key, ((const struct cell *)b)->key);
}

const char *xp_top_field(const char *key, int i, char *buf, size_t len)
{
	const char *p = key, *e;

	while (i-- && (p = strchr(p, '\x1f')))
		p++;
	if (!p)
		p = "";
	e = strchr(p, '\x1f');
	snprintf(buf, len, "%.*s", (int)(e ? e - p : (long)strlen(p)), p);
	return buf;
}

/*
 * A series of no process (a ring's, a CRTC's, a timeline's): its label
 * values, "mock-ring0" or "card0 0", name its row in the COMM column.
 */
static void label_values(const char *labels, char *buf, size_t len)
{
	size_t k = 0;

	for (const char *p = labels; *p && k + 1 < len;) {
		const char *eq = strchr(p, '=');

		if (!eq || eq[1] != '"')
			break;
		if (k && k + 1 < len)
			buf[k++] = ' ';
		for (p = eq + 2; *p && *p != '"'; p++) {
			if (*p == '\\' && p[1])
				p++;
			if (k + 1 < len)
				buf[k++] = *p;
		}
		if (*p == '"')
			p++;
		if (*p == ',')
			p++;
	}
	buf[k] = '\0';
}

static int sort_col = -1, sort_field, sort_dir = 1;	/* qsort has no context: set per call */

static int by_sort(const void *a, const void *b)
{
	const struct xp_top_row *x = a, *y = b;
	char fx[256], fy[256];
	int d = 0;

	if (sort_col >= 0) {
		if (x->v[sort_col] != y->v[sort_col])
			d = x->v[sort_col] < y->v[sort_col] ? 1 : -1;
	} else if (sort_field == 0) {
		long px = atol(xp_top_field(x->key, 0, fx, sizeof(fx))), py = atol(xp_top_field(y->key, 0, fy, sizeof(fy)));

		if (px != py)
			d = px < py ? -1 : 1;
	} else {
		d = strcmp(xp_top_field(x->key, sort_field, fx, sizeof(fx)), xp_top_field(y->key, sort_field, fy, sizeof(fy)));
	}
	return sort_dir * (d ? d : strcmp(x->key, y->key));
}

int xp_top_col_named(const struct xp_top_frame *fr, const char *sort)
{
	size_t n = strlen(sort);

	for (int c = 0; c < fr->ncol; c++)
		if (!strcmp(fr->name[c], sort))
			return c;
	for (int c = 0; c < fr->ncol; c++)
		if (!strncmp(fr->name[c], sort, n) && fr->name[c][n] == ':')
			return c;
	return -1;
}

void xp_top_frame_sort(struct xp_top_frame *fr, int col, int field, bool reverse)
{
	sort_col = col < fr->ncol ? col : -1;
	sort_field = field;
	sort_dir = reverse ? -1 : 1;
	qsort(fr->rows, (size_t)fr->nrows, sizeof(*fr->rows), by_sort);
}

/* The row of a series: its process's key (pid, comm, cgroup), or its labels' for a ring's or device's. */
static void row_key(const struct xp_series *s, char *key, size_t len)
{
	char pid[32], comm[64], cg[256];

	if (xp_labels_get(s->labels, "other", pid, sizeof(pid))) {
		snprintf(key, len, "-\x1f(other)\x1f(past --max-series)");
		return;
	}
	if (!xp_labels_get(s->labels, "pid", pid, sizeof(pid))) {
		/* a ring's or a device's row, not a process's */
		label_values(s->labels, comm, sizeof(comm));
		snprintf(key, len, "-\x1f%s\x1f-", comm);
		return;
	}
	if (!xp_labels_get(s->labels, "comm", comm, sizeof(comm)))
		snprintf(comm, sizeof(comm), "-");
	if (!xp_labels_get(s->labels, "cgroup", cg, sizeof(cg)))
		snprintf(cg, sizeof(cg), "-");
	snprintf(key, len, "%s\x1f%s\x1f%s", pid, comm, cg);
}

/*
 * Every series' change since the last refresh, keyed by its process, into
 * *cells, each with its source's rank: a family several sources feed (GPU
 * busy time: drm_sched, cupti, fdinfo) shows a process's cells of its best
 * source only (xp_source_rank), so one process's time is never added twice.
 */
static int collect(struct xp_metrics *m, const struct col *cols, int ncol, double dt, struct cell **out,
		   size_t *n)
{
	size_t ncell = 0, cap = 0;
	struct cell *cells = NULL;

	for (int c = 0; c < ncol; c++) {
		const struct xp_metric_fam *fam = &m->fams[cols[c].fam];

		for (struct xp_series *s = fam->first; s && cols[c].rank != DIFFERENCE; s = s->next) {
			uint64_t d = s->value - s->shown;

			if (cols[c].rank >= 0 && xp_source_rank(s->labels) != cols[c].rank)
				continue;	/* another source's column */
			s->shown = s->value;
			if (!d)
				continue;
			if (ncell == cap) {
				size_t nc = cap ? cap * 2 : 256;
				struct cell *nx = realloc(cells, nc * sizeof(*nx));

				if (!nx) {
					free(cells);
					return -ENOMEM;
				}
				cells = nx;
				cap = nc;
			}
			row_key(s, cells[ncell].key, sizeof(cells[ncell].key));
			cells[ncell].col = c;
			cells[ncell].rank = xp_source_rank(s->labels);
			/* seconds: a share of one CPU's time, in percent */
			cells[ncell].v = (double)d * fam->scale / dt * (fam->unit && !strcmp(fam->unit, "seconds") ? 100 : 1);
			ncell++;
		}
	}
	*out = cells;
	*n = ncell;
	return 0;
}

/* The table: a head, then at most o->max_rows rows; the rows shown. */
static int print_rows(FILE *f, const struct xp_top_frame *fr, const struct xp_top_opts *o)
{
	char pid[32], comm[64], cg[256];
	int shown = 0;
	/* a column is as wide as its head, at least 14 */
	int w[XP_TOP_MAX_COLS], used = 8 + 1 + 16 + 2;

	fprintf(f, "%-8s %-16s", "PID", "COMM");
	for (int c = 0; c < fr->ncol; c++) {
		w[c] = strlen(fr->head[c]) > 14 ? (int)strlen(fr->head[c]) : 14;
		used += w[c] + 1;
		fprintf(f, " %*s", w[c], fr->head[c]);
	}
	fprintf(f, "  CGROUP\n");
	for (int i = 0; i < fr->nrows && (!o->max_rows || shown < o->max_rows); i++, shown++) {
		const struct xp_top_row *rw = &fr->rows[i];
		int room = o->width ? o->width - used : 0;

		fprintf(f, "%-8s %-16s", xp_top_field(rw->key, 0, pid, sizeof(pid)), xp_top_field(rw->key, 1, comm, sizeof(comm)));
		for (int c = 0; c < fr->ncol; c++)
			fprintf(f, " %*.1f", w[c], rw->v[c]);
		xp_top_field(rw->key, 2, cg, sizeof(cg));
		if (o->width && room > 4 && (int)strlen(cg) > room)	/* the end of a path says most */
			fprintf(f, "  ...%s\n", cg + strlen(cg) - (size_t)(room - 3));
		else
			fprintf(f, "  %s\n", cg);
	}
	return shown;
}

/* The cells, sorted by key, into a row each key; a row's column takes its best source's cells only. */
static int merge(const struct cell *cells, size_t ncell, struct xp_top_frame *fr)
{
	signed char (*rank)[XP_TOP_MAX_COLS] = malloc((ncell ? ncell : 1) * sizeof(*rank));
	int n = 0;

	fr->rows = calloc(ncell ? ncell : 1, sizeof(*fr->rows));
	if (!fr->rows || !rank) {
		xp_top_frame_free(fr);
		free(rank);
		return -ENOMEM;
	}
	for (size_t i = 0; i < ncell; i++) {
		int c = cells[i].col;

		if (!n || strcmp(fr->rows[n - 1].key, cells[i].key)) {
			memcpy(fr->rows[n++].key, cells[i].key, sizeof(cells[i].key));
			memset(rank[n - 1], -1, sizeof(rank[0]));	/* -1: no source yet */
		}
		if (rank[n - 1][c] < 0 || cells[i].rank < rank[n - 1][c]) {	/* a better source: its own only */
			rank[n - 1][c] = (signed char)cells[i].rank;
			fr->rows[n - 1].v[c] = 0;
		}
		if (cells[i].rank == rank[n - 1][c])
			fr->rows[n - 1].v[c] += cells[i].v;
	}
	fr->nrows = n;
	free(rank);
	return 0;
}

/*
 * The columns of the families (columns()): with `sources`, GPU busy time's
 * as one per source that has a series, then, where two have, a difference.
 */
static int layout(const struct xp_metrics *m, bool sources, struct col out[XP_TOP_MAX_COLS])
{
	int fams[XP_TOP_MAX_COLS], nf = columns(m, fams, true), n = 0;

	for (int i = 0; i < nf && n < XP_TOP_MAX_COLS; i++) {
		bool has[XP_SOURCE_RANKS] = { false };
		int first = n;

		if (sources && !strcmp(m->fams[fams[i]].name, BUSY)) {
			for (const struct xp_series *s = m->fams[fams[i]].first; s; s = s->next)
				has[xp_source_rank(s->labels)] = true;
			for (int r = 0; r < XP_SOURCE_RANKS && n < XP_TOP_MAX_COLS; r++)
				if (has[r])
					out[n++] = (struct col){ fams[i], r };
			if (n - first >= 2 && n < XP_TOP_MAX_COLS)
				out[n++] = (struct col){ fams[i], DIFFERENCE };
			if (n > first)
				continue;
		}
		out[n++] = (struct col){ fams[i], ANY_SOURCE };
	}
	return n;
}

/* A column's name (what --sort and the keys name) and head. */
static void name_col(const struct xp_metrics *m, const struct col *cols, int c, struct xp_top_frame *fr)
{
	const struct xp_metric_fam *fam = &m->fams[cols[c].fam];
	bool secs = fam->unit && !strcmp(fam->unit, "seconds");

	if (cols[c].rank == DIFFERENCE)	/* the two columns before it */
		snprintf(fr->name[c], sizeof(fr->name[c]), "%s:%s-%s", short_name(fam->name),
			 xp_source_of_rank(cols[c - 1].rank), xp_source_of_rank(cols[c - 2].rank));
	else if (cols[c].rank >= 0)
		snprintf(fr->name[c], sizeof(fr->name[c]), "%s:%s", short_name(fam->name),
			 xp_source_of_rank(cols[c].rank));
	else
		snprintf(fr->name[c], sizeof(fr->name[c]), "%s", short_name(fam->name));
	snprintf(fr->head[c], sizeof(fr->head[c]), "%s%s", fr->name[c], secs ? "%" : "/s");
}

int xp_top_frame_make(struct xp_metrics *m, double dt, bool sources, struct xp_top_frame *fr)
{
	struct col cols[XP_TOP_MAX_COLS];
	size_t ncell = 0;
	struct cell *cells = NULL;
	int err;

	memset(fr, 0, sizeof(*fr));
	fr->ncol = layout(m, sources, cols);
	for (int c = 0; c < fr->ncol; c++)
		name_col(m, cols, c, fr);
	if (dt <= 0)
		dt = 1;
	if (collect(m, cols, fr->ncol, dt, &cells, &ncell))
		return -ENOMEM;
	if (ncell)	/* cells is NULL then, which qsort must not be given */
		qsort(cells, ncell, sizeof(*cells), by_key);
	err = merge(cells, ncell, fr);
	free(cells);
	/* the second source's rate less the first's: where they count the same work, what they disagree by */
	for (int c = 2; !err && c < fr->ncol; c++)
		if (cols[c].rank == DIFFERENCE)
			for (int i = 0; i < fr->nrows; i++)
				fr->rows[i].v[c] = fr->rows[i].v[c - 1] - fr->rows[i].v[c - 2];
	return err;
}

void xp_top_frame_free(struct xp_top_frame *fr)
{
	free(fr->rows);
	fr->rows = NULL;
	fr->nrows = 0;
}

int xp_top_write(FILE *f, struct xp_metrics *m, double dt, const struct xp_top_opts *o)
{
	struct xp_top_frame fr;
	int col = -1, field = 0, shown;

	if (xp_top_frame_make(m, dt, o->sources, &fr)) {
		xp_top_frame_free(&fr);
		return -ENOMEM;
	}
	if (!o->sort)
		col = fr.ncol ? 0 : -1;
	if (o->sort) {
		col = xp_top_col_named(&fr, o->sort);
		field = !strcmp(o->sort, "comm") ? 1 : !strcmp(o->sort, "cgroup") ? 2 : 0;
	}
	xp_top_frame_sort(&fr, col, field, false);
	shown = print_rows(f, &fr, o);
	xp_top_frame_free(&fr);
	return shown;
}
