/* The flight recorder: `record --last SECONDS --trigger COND -o DIR` (flight.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cmd/flight.h"
#include "core/flight_ring.h"
#include "core/msg.h"
#include "core/parse.h"
#include "live/session.h"

#define GRACE_NS 250000000ull	/* records of the window still queued when it ends */

/* The file of the trigger being written. */
struct fl_file {
	bool open;
	int fd;
	char tmp[4096], path[4096];
	struct xp_trace_writer *w;
	uint64_t from_ns, to_ns;	/* the window, of the records' clock */
	uint64_t origin_ns;		/* the file's start: its window's, or tracing's if later */
	int ntrig;			/* triggers sharing it */
};

struct xp_flight {
	struct xp_flight_cfg c;
	const char *dir;
	struct xp_flight_io io;
	struct xp_fring ring;
	struct fl_file p;
	uint64_t last_file_ns;		/* the trigger time of the last file begun */
	uint64_t prev_to_ns;		/* the end of the last file written */
	char prev_path[4096];
	uint64_t met, files, joined, held_off, over_max, failed;
	bool made_dir;
};

static volatile sig_atomic_t usr1_got;
static volatile uint64_t usr1_ns;

static void on_usr1(int sig)
{
	struct timespec ts;

	(void)sig;
	if (usr1_got)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	usr1_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	usr1_got = 1;
}

void xp_flight_cfg_init(struct xp_flight_cfg *c)
{
	memset(c, 0, sizeof(*c));
	c->after_s = 1.0;
	c->holdoff_s = 1.0;
	c->ring_bytes = 64ull << 20;
	c->max_triggers = 100;
}

int xp_flight_opt(struct xp_flight_cfg *c, int i, const char *arg)
{
	static const char *const names[XP_FLIGHT_OPTS] = {
		"last", "after", "trigger", "ring-size", "max-triggers", "holdoff" };
	char why[256];
	uint64_t v;
	double s = 0;
	int err = 0;

	if (i == 0 || i == 1 || i == 5) {
		/* --after 0 and --holdoff 0 are meaningful: nothing after, no holdoff */
		if (i != 0 && !strcmp(arg, "0"))
			s = 0;
		else
			err = xp_parse_seconds(arg, &s);
		if (err || s > 86400)
			return xp_fail(2, "record: --%s wants seconds (0 < s <= 86400), not '%s'", names[i], arg);
		*(i == 0 ? &c->last_s : i == 1 ? &c->after_s : &c->holdoff_s) = s;
	} else if (i == 2) {
		if (c->ntrig == XP_FLIGHT_MAX_TRIG)
			return xp_fail(2, "record: at most %d --trigger", XP_FLIGHT_MAX_TRIG);
		if (xp_trigger_parse(&c->trig[c->ntrig], arg, why, sizeof(why)))
			return xp_fail(2, "record: %s", why);
		c->ntrig++;
	} else if (i == 3) {
		if (xp_parse_u64(arg, 1, 1u << 20, &v))
			return xp_fail(2, "record: --ring-size wants MiB (1 to 1048576), not '%s'", arg);
		c->ring_bytes = v << 20;
	} else {
		if (xp_parse_u64(arg, 1, 1000000, &v))
			return xp_fail(2, "record: --max-triggers wants a number (1 to 1000000), not '%s'", arg);
		c->max_triggers = v;
	}
	return 0;
}

/* Whether `word` is one of the space-separated words of `list`. */
static bool has_word(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; p && *p; p += strcspn(p, " "), p += strspn(p, " "))
		if (!strncmp(p, word, n) && (p[n] == ' ' || !p[n]))
			return true;
	return false;
}

int xp_flight_check(struct xp_flight_cfg *c, const struct xp_cap_inst *ci, const bool *want, int nci)
{
	for (int k = 0; k < c->ntrig; k++) {
		const struct xp_trigger *t = &c->trig[k];
		const char *w = xp_trigger_word(t->kind);
		int i;

		c->row[k] = -1;
		if (t->kind == XP_TRIG_SIGUSR1)
			continue;
		for (i = 0; i < nci && strcmp(ci[i].cap->name, t->cap); i++)
			;
		if (i == nci)
			return xp_fail(2, "record: --trigger '%s': no capability '%s'", t->spec, t->cap);
		if (!ci[i].cap->trigger_match || !has_word(ci[i].cap->triggers, w))
			return xp_fail(2, "record: --trigger '%s': %s has no '%s' condition%s%s", t->spec, t->cap, w,
				       ci[i].cap->triggers ? "; it has: " : "",
				       ci[i].cap->triggers ? ci[i].cap->triggers : "");
		if (!want[i])
			return xp_fail(2, "record: --trigger '%s': %s is not recorded; name it", t->spec, t->cap);
		c->row[k] = i;
		if (ci[i].cap->trigger_feed) {
			int j;

			for (j = 0; j < c->nfeed && c->feed[j] != i; j++)
				;
			if (j == c->nfeed)
				c->feed[c->nfeed++] = i;
		}
	}
	return 0;
}

/* DIR as it should be: a directory (made when missing, said), not a symbolic link. 0 or a status. */
static int make_dir(const char *dir, bool *made)
{
	struct stat st;

	if (!lstat(dir, &st)) {
		if (S_ISLNK(st.st_mode))
			return xp_fail(2, "record: %s is a symbolic link; give the directory it names", dir);
		if (!S_ISDIR(st.st_mode))
			return xp_fail(2, "record: %s is not a directory (with --last, -o names one)", dir);
		return 0;
	}
	if (errno != ENOENT || mkdir(dir, 0755))
		return xp_fail(1, "record: cannot make the directory %s: %s", dir, strerror(errno));
	fprintf(stderr, "xputrace: record: created the directory %s\n", dir);
	*made = true;
	return 0;
}

struct xp_flight *xp_flight_open(const struct xp_flight_cfg *c, const char *dir,
				 const struct xp_flight_io *io, int *status)
{
	struct sigaction sa;
	struct xp_flight *f;

	if (!(f = calloc(1, sizeof(*f)))) {
		*status = xp_fail(1, "record: out of memory");
		return NULL;
	}
	f->c = *c;
	f->dir = dir;
	f->io = *io;
	xp_fring_init(&f->ring, c->ring_bytes, (uint64_t)(c->last_s * 1e9));
	for (int k = 0; k < c->ntrig; k++)
		if (c->trig[k].kind == XP_TRIG_SIGUSR1) {
			memset(&sa, 0, sizeof(sa));
			sa.sa_handler = on_usr1;
			sa.sa_flags = SA_RESTART;
			sigemptyset(&sa.sa_mask);
			sigaction(SIGUSR1, &sa, NULL);
		}
	/* after the handler: a SIGUSR1 once DIR is said to be made is a trigger */
	if ((*status = make_dir(dir, &f->made_dir))) {
		xp_flight_free(f);
		return NULL;
	}
	return f;
}

static int write_rec(void *ctx, const struct xp_rec_hdr *h)
{
	return xp_trace_writer_add(ctx, h);
}

/* "20261127-114512.345": the wall-clock time of ts, UTC. */
static void time_name(const struct xp_flight *f, uint64_t ts, char *buf, size_t len)
{
	int64_t wall = (int64_t)ts + f->io.meta->wall_offset_ns;
	time_t s = (time_t)(wall / 1000000000);
	struct tm tm;
	char b[24];

	gmtime_r(&s, &tm);
	strftime(b, sizeof(b), "%Y%m%d-%H%M%S", &tm);
	snprintf(buf, len, "%.20s.%03d", b, (int)(wall % 1000000000 / 1000000) % 1000);
}

static double secs(uint64_t ns) { return (double)ns / 1e9; }

/* A new file for the trigger at ts: what the ring holds of its window, then what comes. */
static int begin_file(struct xp_flight *f, const struct xp_trigger *t, uint64_t ts)
{
	struct fl_file *p = &f->p;
	uint64_t last = (uint64_t)(f->c.last_s * 1e9), oldest = 0;
	struct xp_trace_meta m = *f->io.meta;
	char when[40];
	mode_t um;
	int err;

	time_name(f, ts, when, sizeof(when));
	p->from_ns = ts > last ? ts - last : 0;
	p->to_ns = ts + (uint64_t)(f->c.after_s * 1e9);
	p->ntrig = 1;
	snprintf(p->path, sizeof(p->path), "%s/%s-%s.xpt", f->dir, when, t->label);
	snprintf(p->tmp, sizeof(p->tmp), "%s/.%s-%s.xpt.XXXXXX", f->dir, when, t->label);
	if ((p->fd = mkostemp(p->tmp, O_CLOEXEC)) < 0)
		return -errno;
	um = umask(0);
	umask(um);
	fchmod(p->fd, 0644 & ~um);
	p->open = true;
	/* the file's origin is its window's start, or tracing's, or the oldest
	 * record the ring kept of it when the bound in bytes let go of more */
	oldest = xp_fring_oldest(&f->ring);
	if (m.start_ns < p->from_ns)
		m.start_ns = p->from_ns;
	if (f->ring.cut_blocks && m.start_ns < oldest)
		m.start_ns = oldest;
	if (m.tracing_ns < m.start_ns)
		m.tracing_ns = m.start_ns;
	p->origin_ns = m.tracing_ns;
	if ((err = xp_trace_writer_open_opts(&p->w, p->fd, &m, &f->io.wopts)) ||
	    (err = xp_fring_walk(&f->ring, p->from_ns, p->to_ns, write_rec, p->w)))
		return err;
	f->files++;
	f->last_file_ns = ts;
	fprintf(stderr, "xputrace: record: trigger %s at %s UTC: writing %s (%.3g s before, %.3g s after)\n",
		t->spec, when, p->path, f->c.last_s, f->c.after_s);
	if (f->ring.cut_blocks && oldest > p->from_ns && oldest >= m.tracing_ns)
		fprintf(stderr, "xputrace: record: the ring held only the last %.3f s of it (--ring-size %llu MiB)\n",
			secs(ts - oldest), (unsigned long long)(f->c.ring_bytes >> 20));
	if (f->prev_to_ns && p->from_ns <= f->prev_to_ns)
		fprintf(stderr, "xputrace: record: its window overlaps that of %s, already written: "
				"the file is apart\n", f->prev_path);
	return 0;
}

/* The trigger t met at ts: a new file, or the one being written, or held back (counted, the first said). */
static int fire(struct xp_flight *f, struct xp_trigger *t, uint64_t ts)
{
	uint64_t after = (uint64_t)(f->c.after_s * 1e9), hold = (uint64_t)(f->c.holdoff_s * 1e9);
	int err;

	t->met++;
	f->met++;
	if (f->p.open && ts <= f->p.to_ns) {
		/* overlapping: it shares the file, whose window grows to its own end */
		if (ts + after > f->p.to_ns)
			f->p.to_ns = ts + after;
		if (!f->joined++ || t->kind == XP_TRIG_SIGUSR1)
			fprintf(stderr, "xputrace: record: trigger %s shares %s (its window overlaps)\n",
				t->spec, f->p.path);
		f->p.ntrig++;
		return 0;
	}
	if (f->files >= f->c.max_triggers) {
		if (!f->over_max++)
			fprintf(stderr, "xputrace: record: trigger %s: --max-triggers %llu reached, "
					"no more files (each further one counted)\n",
				t->spec, (unsigned long long)f->c.max_triggers);
		return 0;
	}
	if (f->files && ts < f->last_file_ns + hold) {
		if (!f->held_off++)
			fprintf(stderr, "xputrace: record: trigger %s within --holdoff %.3g s of the last file: "
					"held off (each further one counted)\n", t->spec, f->c.holdoff_s);
		return 0;
	}
	if ((err = begin_file(f, t, ts))) {
		f->failed++;
		fprintf(stderr, "xputrace: record: trigger %s: cannot write %s: %s\n", t->spec, f->p.path,
			strerror(-err));
		xp_trace_writer_free(f->p.w);
		if (f->p.open) {
			close(f->p.fd);
			unlink(f->p.tmp);
		}
		memset(&f->p, 0, sizeof(f->p));
	}
	return 0;
}

/* Into place without replacing anything: PATH, else PATH with -2, -3, ... before .xpt. */
static int link_new(struct fl_file *p)
{
	char alt[sizeof(p->path)];
	int n = (int)strlen(p->path) - 4;

	if (!link(p->tmp, p->path))
		return 0;
	for (int i = 2; errno == EEXIST && i < 1000; i++) {
		if (snprintf(alt, sizeof(alt), "%.*s-%d.xpt", n, p->path, i) >= (int)sizeof(alt))
			return -ENAMETOOLONG;
		if (!link(p->tmp, alt)) {
			memcpy(p->path, alt, sizeof(alt));
			return 0;
		}
	}
	return -errno;
}

/* The file being written ends at `end` (its window's end, or the end of tracing). */
static int end_file(struct xp_flight *f, uint64_t end)
{
	struct fl_file *p = &f->p;
	struct xp_trace_stats st;
	int err;

	f->io.stats(f->io.ctx, &st);
	st.ts_ns = end < p->to_ns ? end : p->to_ns;
	if (st.ts_ns < p->origin_ns)
		st.ts_ns = p->origin_ns;
	if (!(err = xp_trace_writer_finish(p->w, &st)) && fsync(p->fd))
		err = -errno;
	if (!err)
		err = link_new(p);
	unlink(p->tmp);
	close(p->fd);
	if (err) {
		f->failed++;
		fprintf(stderr, "xputrace: record: writing %s: %s\n", p->path, strerror(-err));
	} else {
		fprintf(stderr, "xputrace: record: wrote %s: %llu records, %.3f s%s (%d trigger%s)\n", p->path,
			(unsigned long long)xp_trace_writer_records(p->w), secs(st.ts_ns - p->origin_ns),
			end < p->to_ns ? ", cut short: tracing ended" : "", p->ntrig, p->ntrig == 1 ? "" : "s");
		f->prev_to_ns = p->to_ns;
		snprintf(f->prev_path, sizeof(f->prev_path), "%s", p->path);
	}
	xp_trace_writer_free(p->w);
	memset(p, 0, sizeof(*p));
	return 0;
}

int xp_flight_add(struct xp_flight *f, const struct xp_rec_hdr *h)
{
	int err;

	if ((err = xp_fring_add(&f->ring, h, xp_now_ns())) && err != -EINVAL)
		return err;
	if (f->p.open && h->ts_ns >= f->p.from_ns && h->ts_ns <= f->p.to_ns &&
	    (err = xp_trace_writer_add(f->p.w, h)))
		return err;
	for (int j = 0; j < f->c.nfeed; j++) {
		struct xp_cap_inst *ci = &f->io.ci[f->c.feed[j]];

		if (ci->cap->rec->type == h->type && (err = ci->cap->trigger_feed(ci, h)))
			return err;
	}
	for (int k = 0; k < f->c.ntrig; k++) {
		const struct xp_cap_inst *ci = f->c.row[k] >= 0 ? &f->io.ci[f->c.row[k]] : NULL;
		uint64_t when = h->ts_ns;

		if (ci && ci->cap->rec->type == h->type && ci->cap->trigger_match(ci, &f->c.trig[k], h, &when) &&
		    (err = fire(f, &f->c.trig[k], when)))
			return err;
	}
	return 0;
}

int xp_flight_poll(struct xp_flight *f)
{
	uint64_t now = xp_now_ns();
	int err;

	if (usr1_got) {
		/* one during start-up is taken when tracing began: its --after counts from there */
		uint64_t ts = usr1_ns > f->io.meta->tracing_ns ? usr1_ns : f->io.meta->tracing_ns;

		for (int k = 0; k < f->c.ntrig; k++)
			if (f->c.trig[k].kind == XP_TRIG_SIGUSR1 && (err = fire(f, &f->c.trig[k], ts)))
				return err;
		usr1_got = 0;
	}
	if (f->p.open && now > f->p.to_ns + GRACE_NS)
		end_file(f, now);
	xp_fring_age(&f->ring, now);
	return 0;
}

int xp_flight_end(struct xp_flight *f, uint64_t stopped_ns)
{
	int err = xp_flight_poll(f);

	if (f->p.open)
		end_file(f, stopped_ns);
	fprintf(stderr, "Flight recorder: %llu trigger%s met, %llu file%s in %s", (unsigned long long)f->met,
		f->met == 1 ? "" : "s", (unsigned long long)(f->files - f->failed), f->files - f->failed == 1 ? "" : "s",
		f->dir);
	if (f->joined)
		fprintf(stderr, ", %llu shared a file", (unsigned long long)f->joined);
	if (f->held_off)
		fprintf(stderr, ", %llu held off (--holdoff)", (unsigned long long)f->held_off);
	if (f->over_max)
		fprintf(stderr, ", %llu past --max-triggers", (unsigned long long)f->over_max);
	if (f->failed)
		fprintf(stderr, ", %llu failed", (unsigned long long)f->failed);
	fprintf(stderr, "; ring: peak %.1f MiB of %llu MiB, %llu blocks (%llu records) older than --last let go, "
			"%llu blocks (%llu records) dropped by --ring-size\n",
		(double)f->ring.peak_bytes / (1 << 20), (unsigned long long)(f->c.ring_bytes >> 20),
		(unsigned long long)f->ring.aged_blocks, (unsigned long long)f->ring.aged_records,
		(unsigned long long)f->ring.cut_blocks, (unsigned long long)f->ring.cut_records);
	return err;
}

void xp_flight_failed(struct xp_flight *f)
{
	if (f && f->made_dir && !f->files && !rmdir(f->dir))
		fprintf(stderr, "xputrace: record: removed the directory %s again\n", f->dir);
}

void xp_flight_free(struct xp_flight *f)
{
	if (!f)
		return;
	if (f->p.open) {
		close(f->p.fd);
		unlink(f->p.tmp);
		xp_trace_writer_free(f->p.w);
	}
	xp_fring_free(&f->ring);
	free(f);
}
