/* A live tracing session: the ring buffer reader, the clock, the signals and
 * the drop counters that every live command shares. */
#ifndef XP_LIVE_SESSION_H
#define XP_LIVE_SESSION_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <bpf/libbpf.h>
#include "shared/record.h"

extern volatile sig_atomic_t xp_stop;

/*
 * SIGINT/SIGTERM/SIGHUP end the session (its summary is still written); a
 * second one exits at once (status 130); SIGPIPE is ignored. SIGHUP stays
 * ignored where it was (nohup).
 */
void xp_signals_install(void);
/* The partial file a second signal leaves behind, named in its message; NULL: none. */
void xp_signals_leftover(const char *path);

/*
 * What a second signal calls before it exits at once (an async-signal-safe
 * function: a terminal given back as it was); NULL: nothing.
 */
void xp_signals_at_exit(void (*fn)(void));

/* libbpf's own messages: shown with -v only. */
void xp_libbpf_quiet(bool verbose);

struct xp_session {
	/* set by the command */
	double duration_s;	/* 0: until a signal */
	double interval_s;	/* 0: no periodic output */
	int poll_ms;		/* reader wakes at least this often */
	int (*on_record)(void *ctx, const struct xp_rec_hdr *h);
	int (*on_interval)(void *ctx, uint64_t n);
	double tick_s;		/* 0: none; else on_tick this often (kernel maps drained) */
	int (*on_tick)(void *ctx);
	/*
	 * Called after every wait for the ring (at least every poll_ms) and,
	 * while records keep coming, at least every 100 ms between them: the
	 * command flushes its output and sees whether its reader is still
	 * there. A negative return ends the run with that error.
	 */
	int (*on_idle)(void *ctx);
	void *ctx;
	/* state */
	struct ring_buffer *rb;
	struct bpf_map *events_map;
	uint64_t seen;			/* records read, for the stop test's pace */
	uint64_t interval_due_ns;	/* -i: when the next interval is due, 0 none */
	uint64_t next_tick_ns;
	uint64_t last_idle_ns;
	int drops_fd;
	const volatile uint64_t *drops_mem;	/* the drops map, mmap'ed: read without a syscall */
	uint64_t t_start_ns;
	uint64_t t_interval_ns;
	uint64_t t_stop_ns;		/* when tracing was told to stop: the summary's end (0: running) */
	uint64_t records, bad_records;	/* bad: malformed or unclaimed */
	uint64_t unclaimed;		/* of a type no capability claims (core/record_kind.h) */
	uint64_t unread;		/* left in the ring when the drain's time ran out */
	uint64_t deadline_ns;		/* -d: the end, 0 none */
	struct bpf_object *obj;		/* set by the command: its programs' misses count as drops */
	struct bpf_object **more_obj;	/* others writing into the same ring buffer (record): */
	int nmore_obj;			/* the command's array, any number */
	uint64_t shown_drops[XP_DROP_ALL];	/* already reported by earlier intervals */
	int cb_err;
	bool draining;			/* in xp_session_drain: the budget is the stop test */
	bool stop_before_drain;		/* a signal had ended the run before the drain */
	bool drain_cut_by_signal;	/* unread because a signal ended the drain, not its budget */
};

int xp_session_open(struct xp_session *s, struct bpf_map *events, struct bpf_map *drops);
/*
 * Reads until the duration ends or a signal arrives. It returns within a
 * poll period even while records keep arriving: the caller then detaches
 * the programs (nothing new can come) and calls xp_session_drain.
 */
int xp_session_run(struct xp_session *s);
/*
 * Reads what is left in the ring after the programs are detached, for at
 * most budget_ns; what is still there then is counted in s->unread (and said
 * on stderr by the caller), not processed: a second ring_buffer over the same
 * map walks the remaining records with a callback that only counts them (the
 * ring is finite and nothing new arrives once detached, so this is bounded).
 * A first signal during the drain (a -d run) ends it the same way and sets
 * s->drain_cut_by_signal; one after the signal that ended the run exits the
 * process at once (status 130). Call it once, after xp_session_run.
 */
int xp_session_drain(struct xp_session *s, uint64_t budget_ns);
/*
 * A run ends within half a second of its -d or signal: the poll period,
 * then detaching and draining together within XP_STOP_NS of the moment
 * the reading stopped (detaching alone can take tens of milliseconds a
 * program, the kernel waiting for its grace periods), then the summary.
 * Under a flood, the records still queued then are counted as unread, not
 * processed. xp_drain_budget gives what is left of it for the drain.
 */
#define XP_STOP_NS 300000000ull
uint64_t xp_drain_budget(uint64_t stopped_ns);
/*
 * Drops since the start, or with `interval` since the last interval (which
 * this call then closes), including the runs the kernel skipped.
 */
/* Whether programs of this session may skip runs that this kernel does not
 * count (kprobe, uprobe, classic tracepoint programs before Linux 6.7). */
bool xp_session_skips_uncounted(const struct xp_session *s);
int xp_session_drops_for(struct xp_session *s, uint64_t out[XP_DROP_ALL], bool interval);
/* Drops counted by our programs since load, summed over CPUs. */
int xp_session_drops(const struct xp_session *s, uint64_t out[XP_DROP_REASON_MAX]);
/* Seconds since xp_session_open (or since the last interval, with `since_interval`). */
double xp_session_elapsed(const struct xp_session *s, bool since_interval);
void xp_session_close(struct xp_session *s);

uint64_t xp_now_ns(void);	/* CLOCK_MONOTONIC, the clock of bpf_ktime_get_ns */

/*
 * Whether the reader of `fd`, a pipe or a socket, has gone away (| head
 * that is done): a write could only fail with EPIPE. False for files and
 * terminals, and while a reader is there.
 */
bool xp_reader_gone(int fd);

/* Advice for a failed load, attach or tracefs read: what is missing, said plainly. */
const char *xp_bpf_error_hint(int err);
/* The capabilities tracing needs that this process lacks ("" when none). */
const char *xp_priv_missing(void);

#endif
