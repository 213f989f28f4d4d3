/* `api`'s join and counts: calls and the ioctls their threads issued inside them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "caps/api/api_stats.h"
#include "core/tracefile.h"

static const struct xp_rec_field api_fields[] = {
	XP_REC_HDR_FIELDS(struct xp_api_rec),
	XP_REC_F(struct xp_api_rec, end_ns, XP_FIELD_UINT),
	XP_REC_F(struct xp_api_rec, ret, XP_FIELD_INT),
	XP_REC_F(struct xp_api_rec, arg, XP_FIELD_UINT),
	XP_REC_F(struct xp_api_rec, what, XP_FIELD_UINT),
	XP_REC_F(struct xp_api_rec, cmd, XP_FIELD_UINT),
	XP_REC_F(struct xp_api_rec, dev, XP_FIELD_UINT),
	XP_REC_F(struct xp_api_rec, fd, XP_FIELD_INT),
	XP_REC_F(struct xp_api_rec, depth, XP_FIELD_UINT),
	XP_REC_F(struct xp_api_rec, rule, XP_FIELD_UINT),
	XP_REC_F(struct xp_api_rec, comm, XP_FIELD_CHARS),
	XP_REC_F(struct xp_api_rec, name, XP_FIELD_CHARS),
	XP_REC_F(struct xp_api_rec, lib, XP_FIELD_CHARS),
};

static const struct xp_rec_pack api_pack[] = {
	XP_REC_P(struct xp_api_rec, end_ns, XP_PACK_TS),
	XP_REC_P(struct xp_api_rec, ret, XP_PACK_SINT),
	XP_REC_P(struct xp_api_rec, arg, XP_PACK_INTERN),
	XP_REC_P(struct xp_api_rec, what, XP_PACK_UINT),
	XP_REC_P(struct xp_api_rec, cmd, XP_PACK_INTERN),
	XP_REC_P(struct xp_api_rec, dev, XP_PACK_INTERN),
	XP_REC_P(struct xp_api_rec, fd, XP_PACK_SINT),
	XP_REC_P(struct xp_api_rec, depth, XP_PACK_UINT),
	XP_REC_P(struct xp_api_rec, rule, XP_PACK_UINT),
	XP_REC_P(struct xp_api_rec, comm, XP_PACK_INTERN),
	XP_REC_P(struct xp_api_rec, name, XP_PACK_INTERN),
	XP_REC_P(struct xp_api_rec, lib, XP_PACK_INTERN),
};

const struct xp_rec_kind xp_api_rec_kind = {
	.type = XP_REC_API, .min_size = sizeof(struct xp_api_rec), .name = "api",
	.fields = api_fields, .nfields = sizeof(api_fields) / sizeof(api_fields[0]),
	.pack = api_pack, .npack = sizeof(api_pack) / sizeof(api_pack[0]),
};

int xp_api_init(struct xp_api_state *s)
{
	memset(s, 0, sizeof(*s));
	s->rows = calloc(XP_API_MAX_ROWS, sizeof(*s->rows));
	s->threads = calloc(XP_API_MAX_THREADS, sizeof(*s->threads));
	if (!s->rows || !s->threads) {
		xp_api_free(s);
		return -ENOMEM;
	}
	return 0;
}

void xp_api_free(struct xp_api_state *s)
{
	free(s->rows);
	free(s->threads);
	free(s->job);
	free(s->wait);
	memset(s, 0, sizeof(*s));
}

void xp_api_reset(struct xp_api_state *s)
{
	memset(s->rows, 0, (size_t)s->nrows * sizeof(*s->rows));
	s->nrows = 0;
	s->calls = s->ioctls = s->rows_full = s->ioctls_lost = s->calls_folded = 0;
	s->jobs_queued = s->jobs_outside = s->jobs_let_go = s->jobs_lost = 0;
	s->calls_unfollowed = s->calls_open_at_end = 0;
}

bool xp_api_is_error(uint32_t rule, int64_t ret)
{
	if (rule == XP_API_RET_VALUE)
		return false;
	return rule == XP_API_RET_NEGATIVE ? ret < 0 : ret != 0;
}

/* A thread's waiting ioctls; a free place (no ioctl waiting) for a new one when `make`. */
static struct xp_api_thread *thread_of(struct xp_api_state *s, uint32_t tid, bool make)
{
	struct xp_api_thread *free_one = NULL;

	for (int i = 0; i < s->nthreads; i++) {
		if (s->threads[i].tid == tid)
			return &s->threads[i];
		if (!free_one && !s->threads[i].n)
			free_one = &s->threads[i];
	}
	if (!make)
		return NULL;
	if (!free_one && s->nthreads < XP_API_MAX_THREADS)
		free_one = &s->threads[s->nthreads++];
	if (free_one) {
		free_one->tid = tid;
		free_one->n = 0;
	}
	return free_one;
}

static struct xp_api_row *find_row(struct xp_api_state *s, uint32_t pid, const struct xp_api_rec *r)
{
	for (int i = s->nrows - 1; i >= 0; i--) {
		struct xp_api_row *w = &s->rows[i];

		if (w->pid == pid && !strncmp(w->name, r->name, XP_API_NAME) &&
		    !strncmp(w->lib, r->lib, XP_API_LIB))
			return w;
	}
	return NULL;
}

struct xp_api_row *xp_api_row_of(struct xp_api_state *s, const struct xp_api_rec *r)
{
	uint32_t pid = r->hdr.pid;
	struct xp_api_row *w = find_row(s, pid, r);

	if (w)
		return w;
	/* the last XP_API_MAX_FN rows are kept for the (other) rows */
	if (s->nrows >= XP_API_MAX_ROWS - XP_API_MAX_FN) {
		pid = XP_API_PID_OTHER;
		if ((w = find_row(s, pid, r)))
			return w;
	}
	if (s->nrows >= XP_API_MAX_ROWS)
		return NULL;
	w = &s->rows[s->nrows++];
	w->pid = pid;
	w->rule = r->rule;
	memcpy(w->comm, r->comm, sizeof(w->comm));
	if (pid == XP_API_PID_OTHER)
		snprintf(w->comm, sizeof(w->comm), "(other)");
	memcpy(w->name, r->name, sizeof(w->name));
	memcpy(w->lib, r->lib, sizeof(w->lib));
	w->comm[XP_COMM_LEN - 1] = w->name[XP_API_NAME - 1] = w->lib[XP_API_LIB - 1] = 0;
	return w;
}

static void count_cmd(struct xp_api_row *w, const struct xp_api_ioctl *io)
{
	for (int i = 0; i < w->ncmd; i++)
		if (w->cmd[i].cmd == io->cmd && w->cmd[i].dev == io->dev) {
			w->cmd[i].n++;
			return;
		}
	if (w->ncmd < XP_API_ROW_CMDS)
		w->cmd[w->ncmd++] = (struct xp_api_cmdcount){ io->dev, io->cmd, 1 };
	else
		w->other_cmds++;
}

static void count_err(struct xp_api_row *w, int64_t ret, uint64_t n)
{
	w->errors += n;
	for (int i = 0; i < w->nerr; i++)
		if (w->err_code[i] == ret) {
			w->err_n[i] += n;
			return;
		}
	if (w->nerr < XP_API_ROW_ERRS) {
		w->err_code[w->nerr] = ret;
		w->err_n[w->nerr++] = n;
	} else {
		w->other_errs += n;
	}
}

static int add_call(struct xp_api_state *s, const struct xp_api_rec *r, struct xp_api_joined *j)
{
	struct xp_api_thread *t = thread_of(s, r->hdr.tid, false);
	struct xp_api_row *w = xp_api_row_of(s, r);
	uint32_t keep = 0;

	j->call = r;
	j->error = xp_api_is_error(r->rule, r->ret);
	j->n = j->nkept = 0;
	j->jobs_on = s->jobs_on;
	j->jobs = j->jobs_open = 0;
	j->rings_many = false;
	j->ring[0] = '\0';
	j->done_ts = 0;
	for (uint32_t i = 0; t && i < t->n; i++) {
		const struct xp_api_ioctl *io = &t->ioc[i];
		bool inside = io->ts >= r->hdr.ts_ns && io->end <= r->end_ns;

		if (inside) {
			if (j->nkept < XP_API_JOIN_MAX)
				j->ioc[j->nkept++] = *io;
			j->n++;
			if (w)
				count_cmd(w, io);
		}
		/* the outermost call's return ends what came before it; nested ones keep it for it */
		if (r->depth || io->ts > r->end_ns)
			t->ioc[keep++] = *io;
	}
	if (t)
		t->n = keep;
	if (s->jobs_on)
		xp_api_join_jobs(s, r, w, j);
	s->calls++;
	if (!w) {
		s->rows_full++;
		return 1;
	}
	s->calls_folded += w->pid == XP_API_PID_OTHER;
	w->calls++;
	if (j->error)
		count_err(w, r->ret, 1);
	xp_hist_add(&w->lat, r->end_ns > r->hdr.ts_ns ? r->end_ns - r->hdr.ts_ns : 0);
	w->ioctls += j->n;
	if (!j->n)
		w->no_ioctl++;
	if (j->n > w->max_ioctls)
		w->max_ioctls = j->n;
	return 1;
}

int xp_api_add(struct xp_api_state *s, const struct xp_api_rec *r, struct xp_api_joined *j)
{
	struct xp_api_thread *t;

	if (r->hdr.size < sizeof(*r))
		return -EINVAL;
	if (r->what == XP_API_CALL)
		return add_call(s, r, j);
	if (r->what != XP_API_IOCTL)
		return -EINVAL;
	s->ioctls++;
	t = thread_of(s, r->hdr.tid, true);
	if (!t || t->n >= XP_API_PENDING) {
		s->ioctls_lost++;
		return 0;
	}
	t->ioc[t->n++] = (struct xp_api_ioctl){ .ts = r->hdr.ts_ns, .end = r->end_ns, .ret = r->ret,
						 .cmd = r->cmd, .dev = r->dev };
	return 0;
}

/* The row of function `fn` in process `pid` (`comm`), as a record of it would find it. */
static struct xp_api_row *counted_row(struct xp_api_state *s, uint32_t pid, const char *comm,
				      const struct xp_api_fn *fn)
{
	struct xp_api_rec r = { .hdr = { .pid = pid }, .rule = fn->rule };

	memcpy(r.comm, comm, strnlen(comm, sizeof(r.comm) - 1));	/* a string, or the kernel's array */
	memcpy(r.name, fn->name, sizeof(r.name));
	memcpy(r.lib, fn->lib, sizeof(r.lib));
	r.comm[XP_COMM_LEN - 1] = r.name[XP_API_NAME - 1] = r.lib[XP_API_LIB - 1] = 0;
	return xp_api_row_of(s, &r);
}

void xp_api_add_counted(struct xp_api_state *s, uint32_t pid, const struct xp_api_fn *fn,
			const struct xp_api_agg *v)
{
	struct xp_api_row *w;
	uint64_t calls = 0;

	for (uint32_t i = 0; i < XP_HIST_BUCKETS; i++)
		calls += v->hist[i];
	if (!calls)
		return;
	s->calls += calls;
	if (!(w = counted_row(s, pid, v->comm, fn))) {
		s->rows_full += calls;
		return;
	}
	if (w->pid == XP_API_PID_OTHER)
		s->calls_folded += calls;
	w->calls += calls;
	w->lat.count += calls;
	w->lat.sum += v->sum_ns;
	if (v->max_ns > w->lat.max)
		w->lat.max = v->max_ns;
	xp_hist_add_buckets(&w->lat, v->hist, XP_HIST_BUCKETS);
	w->no_ioctl += calls;
	if (s->jobs_on)
		w->no_job += calls;
	if (v->err1 && v->err1_calls)
		count_err(w, v->err1, v->err1_calls);
}

void xp_api_add_counted_err(struct xp_api_state *s, uint32_t pid, const struct xp_api_fn *fn, int64_t ret,
			    uint64_t n)
{
	/* the calls were counted with the entry's (xp_api_add_counted): its row is there */
	struct xp_api_row *w = counted_row(s, pid, "", fn);

	if (w)
		count_err(w, ret, n);
}

static int by_calls(const void *a, const void *b)
{
	const struct xp_api_row *x = a, *y = b;

	if (x->calls != y->calls)
		return x->calls > y->calls ? -1 : 1;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return strcmp(x->name, y->name);
}

void xp_api_sort(struct xp_api_state *s)
{
	qsort(s->rows, (size_t)s->nrows, sizeof(*s->rows), by_calls);
}
