#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include "live/features.h"
#include <time.h>
#include <unistd.h>
#include <bpf/bpf.h>

#include "core/decode.h"
#include "core/privs.h"
#include "live/kprobe_multi.h"
#include "live/kprobe.h"
#include "live/session.h"

volatile sig_atomic_t xp_stop;

/* what a second signal leaves behind, said by the handler: built beforehand */
static char leftover_msg[4200];
static volatile sig_atomic_t leftover_len;

void xp_signals_leftover(const char *path)
{
	int n;

	leftover_len = 0;
	if (!path || !*path)
		return;
	n = snprintf(leftover_msg, sizeof(leftover_msg),
		     "xputrace: second signal: exiting without a summary; the recording so far is left in "
		     "%s (readable up to its last block)\n", path);
	if (n > 0 && n < (int)sizeof(leftover_msg))
		leftover_len = n;
}

static void (*volatile at_exit_fn)(void);

void xp_signals_at_exit(void (*fn)(void))
{
	at_exit_fn = fn;
}

static void on_signal(int sig)
{
	static const char msg[] = "xputrace: second signal: exiting without a summary\n";

	(void)sig;
	if (xp_stop) {
		/* the user insists: async-signal-safe calls only */
		if (at_exit_fn)
			at_exit_fn();
		if (leftover_len) {
			if (write(STDERR_FILENO, leftover_msg, (size_t)leftover_len) < 0)
				_exit(130);
		} else if (write(STDERR_FILENO, msg, sizeof(msg) - 1) < 0) {
			_exit(130);
		}
		_exit(130);
	}
	xp_stop = 1;
}

void xp_signals_install(void)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;	/* no SA_RESTART: the poll must return */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* a closed terminal ends the run as SIGTERM does, unless nohup said to ignore it */
	if (!sigaction(SIGHUP, NULL, &old) && old.sa_handler != SIG_IGN)
		sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static bool libbpf_verbose;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	if (!libbpf_verbose)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

void xp_libbpf_quiet(bool verbose)
{
	libbpf_verbose = verbose;
	libbpf_set_print(libbpf_print);
}

uint64_t xp_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

bool xp_reader_gone(int fd)
{
	struct pollfd p = { .fd = fd, .events = 0 };
	struct stat st;

	if (fstat(fd, &st) || !(S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)))
		return false;
	/* a pipe's writer polls POLLERR once no reader is left; a socket's POLLHUP */
	return poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP));
}

static int call_idle(struct xp_session *s, uint64_t now)
{
	int err;

	s->last_idle_ns = now;
	if (s->on_idle && (err = s->on_idle(s->ctx)) < 0 && !s->cb_err)
		s->cb_err = err;
	return s->cb_err;
}

/* Returned by the record callback to leave ring_buffer__consume: time to stop. */
#define STOP_CONSUMING (-EINTR)

/* Whether to leave ring_buffer__consume now: a signal, -d, or an interval due. */
static bool time_to_stop(const struct xp_session *s)
{
	uint64_t now;

	/*
	 * While draining, only a signal that arrived during the drain cuts it
	 * short: the one that ended the run is not a reason to skip the drain.
	 * (A signal after that one exits in on_signal, never reaching here.)
	 */
	if (xp_stop && !(s->draining && s->stop_before_drain))
		return true;
	if (!s->deadline_ns && !s->interval_due_ns)
		return false;
	now = xp_now_ns();
	return (s->deadline_ns && now >= s->deadline_ns) || (s->interval_due_ns && now >= s->interval_due_ns);
}

static int on_ring_record(void *ctx, void *data, size_t size)
{
	struct xp_session *s = ctx;
	const struct xp_rec_hdr *h;
	int err;

	h = xp_decode(data, size, &err);
	if (!h) {
		s->bad_records++;
		if (err == -ENOENT)	/* well formed, but of a type no capability claims */
			s->unclaimed++;
	} else {
		s->records++;
		err = s->on_record ? s->on_record(s->ctx, h) : 0;
		if (err < 0) {
			s->cb_err = err;
			return err;
		}
	}
	/*
	 * Under a sustained flood the ring never empties and consume never
	 * returns by itself: every 256 records (a clock read costs ~20 ns),
	 * see whether it is time to stop. Only after processing: libbpf counts
	 * a record as consumed even when its callback says stop.
	 */
	if (!(++s->seen & 255)) {
		if (time_to_stop(s))
			return STOP_CONSUMING;
		/* a stream's lines reach its reader while a flood goes on */
		if (s->on_idle && !s->draining && xp_now_ns() - s->last_idle_ns >= 100000000ull &&
		    call_idle(s, xp_now_ns()) < 0)
			return s->cb_err;
	}
	return 0;
}

int xp_session_open(struct xp_session *s, struct bpf_map *events, struct bpf_map *drops)
{
	s->events_map = events;
	s->rb = ring_buffer__new(bpf_map__fd(events), on_ring_record, s, NULL);
	if (!s->rb)
		return -errno;
	s->drops_fd = bpf_map__fd(drops);
	s->drops_mem = NULL;
	if (bpf_map__map_flags(drops) & BPF_F_MMAPABLE) {
		void *m = mmap(NULL, (size_t)sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED, s->drops_fd, 0);

		if (m != MAP_FAILED)
			s->drops_mem = m;
	}
	s->t_start_ns = s->t_interval_ns = xp_now_ns();
	if (!s->poll_ms)
		s->poll_ms = 50;
	return 0;
}

double xp_session_elapsed(const struct xp_session *s, bool since_interval)
{
	/* the traced time: taking the probes away and reading what is left come after it */
	uint64_t end = s->t_stop_ns ? s->t_stop_ns : xp_now_ns();

	return (double)(end - (since_interval ? s->t_interval_ns : s->t_start_ns)) / 1e9;
}

/* Fewer records than this in one read: wait XP_GATHER_MS before the next poll. */
#define XP_SHORT_READ 64
#define XP_GATHER_MS 2

/*
 * A wait of `ms` (a signal ends it early): 0 or -EINTR. poll, not
 * nanosleep: the reader already waits in poll's kernel path, while
 * hrtimer_nanosleep is what users time (`latency --from
 * fentry:hrtimer_nanosleep`), and an end there in the tracer itself would
 * close a traced thread's start (ends are taken from any thread, for the
 * interrupts that run in them).
 */
static int nap_ms(int64_t ms)
{
	return poll(NULL, 0, (int)ms) < 0 ? -errno : 0;
}

int xp_session_run(struct xp_session *s)
{
	uint64_t interval_ns = s->interval_s > 0 ? (uint64_t)(s->interval_s * 1e9) : 0;
	uint64_t n_interval = 0, read0;
	int err = 0;

	s->deadline_ns = s->duration_s > 0 ? s->t_start_ns + (uint64_t)(s->duration_s * 1e9) : 0;
	while (!xp_stop && !s->cb_err) {
		uint64_t now = xp_now_ns();
		int64_t wait_ms = s->poll_ms;

		if (s->deadline_ns && now >= s->deadline_ns)
			break;
		if (s->deadline_ns && (int64_t)((s->deadline_ns - now) / 1000000) < wait_ms)
			wait_ms = (int64_t)((s->deadline_ns - now) / 1000000) + 1;
		s->interval_due_ns = interval_ns ? s->t_interval_ns + interval_ns : 0;
		if (interval_ns && now >= s->interval_due_ns) {
			/* read first so the interval holds everything up to now */
			s->interval_due_ns = 0;
			err = s->rb ? ring_buffer__consume(s->rb) : 0;
			if (err < 0 && err != STOP_CONSUMING)
				break;
			err = s->on_interval ? s->on_interval(s->ctx, ++n_interval) : 0;
			if (err < 0)
				break;
			s->t_interval_ns = now;
			continue;
		}
		if (s->tick_s > 0 && s->on_tick && now >= s->next_tick_ns) {
			s->next_tick_ns = now + (uint64_t)(s->tick_s * 1e9);
			if (s->next_tick_ns != now && (err = s->on_tick(s->ctx)) < 0)
				break;
		}
		/* a sampler's run has no ring buffer: it waits */
		err = s->rb ? ring_buffer__poll(s->rb, (int)wait_ms) : nap_ms(wait_ms);
		if (err < 0 && err != -EINTR)
			break;
		/* records submitted without a wake-up are only seen by consuming */
		read0 = s->records + s->bad_records;
		err = s->rb ? ring_buffer__consume(s->rb) : 0;
		if (err < 0 && err != STOP_CONSUMING)
			break;
		err = 0;
		/*
		 * A short read: the ring answers a poll at once while it holds a
		 * record, so a steady trickle would be read a few records at a
		 * time, thousands of times a second, each read bouncing the ring's
		 * pages away from the CPUs of the traced calls. Let it gather
		 * (a signal ends the nap).
		 */
		if (s->rb && s->records + s->bad_records - read0 < XP_SHORT_READ && !xp_stop)
			nap_ms(XP_GATHER_MS);
		/*
		 * At most once a poll interval: the ring wakes the reader whenever
		 * it holds a record, so a stream's flush after every short read
		 * (a write, then more records queued meanwhile) would turn the
		 * reader into a loop of tiny reads, each costing the traced calls.
		 */
		now = xp_now_ns();
		if (now - s->last_idle_ns >= (uint64_t)s->poll_ms * 1000000ull && call_idle(s, now) < 0)
			break;
	}
	if (s->cb_err)
		return s->cb_err;
	return err < 0 && err != STOP_CONSUMING && err != -EINTR ? err : 0;
}

static int count_unread(void *ctx, void *data, size_t size)
{
	(void)data;
	(void)size;
	((struct xp_session *)ctx)->unread++;
	return 0;
}

int xp_session_drain(struct xp_session *s, uint64_t budget_ns)
{
	struct ring_buffer *counter;
	int err;

	/*
	 * The programs are detached: the ring only empties now. xp_stop stays
	 * as it is, so that a second SIGINT during the drain still finds it set
	 * and exits at once (clearing it would make that signal a first one).
	 */
	s->deadline_ns = xp_now_ns() + budget_ns;
	s->interval_due_ns = 0;
	s->stop_before_drain = xp_stop != 0;
	s->draining = true;
	do {
		err = ring_buffer__consume(s->rb);
	} while (err > 0 && !s->cb_err);
	if (err == STOP_CONSUMING) {
		/* the budget, or a signal that came during the drain (a -d run's first) */
		s->drain_cut_by_signal = xp_stop && !s->stop_before_drain;
		/* out of time: count what is left without processing it */
		counter = ring_buffer__new(bpf_map__fd(s->events_map), count_unread, s, NULL);
		if (counter) {
			ring_buffer__consume(counter);
			ring_buffer__free(counter);
		}
		err = 0;
	}
	s->draining = false;
	if (s->cb_err)
		return s->cb_err;
	return err < 0 ? err : 0;
}

uint64_t xp_drain_budget(uint64_t stopped_ns)
{
	uint64_t spent = xp_now_ns() - stopped_ns;

	/* at least a little: what is queued at a quiet stop takes no time to read */
	return spent + 20000000ull < XP_STOP_NS ? XP_STOP_NS - spent : 20000000ull;
}

int xp_session_drops(const struct xp_session *s, uint64_t out[XP_DROP_REASON_MAX])
{
	for (uint32_t r = 0; r < XP_DROP_REASON_MAX; r++) {
		out[r] = 0;
		if (s->drops_mem)
			out[r] = s->drops_mem[r];
		else if (s->drops_fd >= 0)	/* not mapped: a lookup, as a last resort */
			(void)bpf_map_lookup_elem(s->drops_fd, &r, &out[r]);
	}
	return 0;
}

static uint64_t obj_missed(const struct bpf_object *obj)
{
	struct bpf_program *p;
	uint64_t n = 0;

	if (!obj)
		return 0;
	bpf_object__for_each_program(p, obj) {
		struct bpf_prog_info info;
		uint32_t len = sizeof(info);
		int fd = bpf_program__fd(p);

		memset(&info, 0, sizeof(info));
		if (fd >= 0 && !bpf_obj_get_info_by_fd(fd, &info, &len))
			n += info.recursion_misses;
	}
	return n;
}

/*
 * Whether a loaded program is of a kind whose skipped runs this kernel does
 * not count: kprobe (and kprobe.multi, uprobe) and classic tracepoint
 * programs skip a run while another runs on the CPU, and count it in
 * recursion_misses only from Linux 6.7 (raw_tp, tp_btf and trampolines
 * always do).
 */
static bool obj_skips_uncounted(const struct bpf_object *obj)
{
	struct bpf_program *p;

	if (!obj)
		return false;
	bpf_object__for_each_program(p, obj) {
		enum bpf_prog_type t = bpf_program__type(p);

		if (bpf_program__fd(p) >= 0 && (t == BPF_PROG_TYPE_KPROBE || t == BPF_PROG_TYPE_TRACEPOINT))
			return true;
	}
	return false;
}

bool xp_session_skips_uncounted(const struct xp_session *s)
{
	if (xp_kernel_counts_skips())
		return false;
	if (obj_skips_uncounted(s->obj))
		return true;
	for (int i = 0; i < s->nmore_obj; i++)
		if (obj_skips_uncounted(s->more_obj[i]))
			return true;
	return false;
}

static uint64_t kernel_missed(const struct xp_session *s)
{
	uint64_t n = obj_missed(s->obj) + xp_kretprobes_missed() + xp_kmulti_missed_all();

	for (int i = 0; i < s->nmore_obj; i++)
		n += obj_missed(s->more_obj[i]);
	return n;
}

int xp_session_drops_for(struct xp_session *s, uint64_t out[XP_DROP_ALL], bool interval)
{
	uint64_t now[XP_DROP_ALL];
	int err = xp_session_drops(s, now);

	if (err)
		return err;
	now[XP_DROP_KERNEL_MISSED] = kernel_missed(s);
	for (int i = 0; i < XP_DROP_ALL; i++) {
		out[i] = now[i] - (interval ? s->shown_drops[i] : 0);
		if (interval)
			s->shown_drops[i] = now[i];
	}
	return 0;
}

void xp_session_close(struct xp_session *s)
{
	ring_buffer__free(s->rb);
	s->rb = NULL;
}

const char *xp_priv_missing(void)
{
	return xp_caps_missing(xp_caps_effective());
}

const char *xp_bpf_error_hint(int err)
{
	static char buf[160];
	const char *missing;

	if (err == -EPERM || err == -EACCES) {
		missing = xp_priv_missing();
		if (*missing) {
			snprintf(buf, sizeof(buf), "tracing needs root (or CAP_BPF with CAP_PERFMON); this process "
						   "lacks %s", missing);
			return buf;
		}
		if (err == -EACCES && geteuid())
			return "tracefs is root's: reading the events' formats needs root";
		if (err == -EACCES)
			return "the kernel's verifier rejected the program (run with -v for its log)";
		return "refused with every privilege held (kernel lockdown or a security module)";
	}
	if (err == -ENOENT || err == -ESRCH)
		return "the kernel lacks the hook this needs";
	if (err == -EINVAL)
		return "the kernel rejected the program (run with -v for the verifier log)";
	return strerror(-err);
}
