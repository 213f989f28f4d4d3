/*
 * Frame timing from the drm vblank events: decoding the raw records with the
 * layouts parsed from tracefs, and the per-CRTC and per-client analysis.
 * No libbpf: live capture and the unit tests share it.
 *
 * The events and where they fire (drivers/gpu/drm/drm_vblank.c):
 *  - drm_vblank_event(crtc, seq, time, high_prec): each vblank the kernel
 *    handles, from the vblank interrupt (or a driver's timer); `time` is the
 *    vblank's own timestamp (CLOCK_MONOTONIC). No device, no process.
 *  - drm_vblank_event_queued(file, crtc, seq): a DRM_IOCTL_WAIT_VBLANK event
 *    request for vblank `seq`, in the requesting process's context.
 *  - drm_vblank_event_delivered(file, crtc, seq): an event sent to `file`
 *    (wait-vblank, page flip or CRTC sequence event) on vblank `seq`, from
 *    the vblank handler (interrupt) or, when `seq` had already passed, from
 *    the requester's ioctl. Page-flip and atomic events are never queued
 *    through the traced path, so they arrive without a queued event.
 *
 * What is measured:
 *  - per CRTC: vblanks, refresh rate (sum of timestamp deltas over sum of
 *    sequence deltas), the vblank interval's spread (stddev, p99, max), and
 *    missed vblanks: sequence numbers skipped between two drm_vblank_events
 *    less than XP_VBL_IDLE_NS apart (a longer silence is the interrupt being
 *    switched off while nobody waits, counted as an idle gap, not a miss);
 *  - per client (DRM file and CRTC, attributed to the process that queued
 *    requests on that file): requests, deliveries, the queued -> delivered
 *    latency, missed frames (sequence numbers skipped between two deliveries
 *    to the same file and CRTC), and late deliveries: delivered more than
 *    late_ns after the timestamp of the vblank that was requested (or, for an
 *    event without a request, the vblank it was delivered on).
 * A request pairs with a delivery by (file, crtc, seq), or failing that with
 * the oldest request of that file and CRTC for an earlier vblank.
 *
 * A frame (page flip, atomic commit, CRTC sequence: a submit record) pairs
 * with a completion by the vblank sequence number the completion carries:
 * only frames of that file and CRTC recorded before the completion can
 * complete on it, and of those the newest (its target, missed or not, from
 * the sequence numbers): the kernel takes one frame per CRTC at a time (another is refused
 * with EBUSY, or waits, until the first completes), so older ones still
 * waiting lost their completion (a skipped or dropped event) and are counted
 * apart, never paired with a later vblank. A completion with no request or
 * submit is one asked before tracing began while its client has had no
 * paired one yet, else one whose submit was not seen; neither takes a
 * neighbour's frame, so pairing stays right from the next frame on.
 */
#ifndef XP_CAPS_VBLANK_STATS_H
#define XP_CAPS_VBLANK_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include "core/hist.h"
#include "core/rawtp_layout.h"
#include "caps/vblank/vblank.h"
#include "core/record_kind.h"

enum xp_vbl_tp {
	XP_VBL_EVENT = 0, XP_VBL_QUEUED, XP_VBL_DELIVERED,
	XP_VBL_SUBMIT,		/* the kernel side's own: an event a file asked for */
	XP_VBL_CRTC,		/* the kernel side's own: the device of the next vblank on this CPU */
	XP_VBL_PIPE,		/* the kernel side's own: a CRTC object id's pipe */
	XP_VBL_NEV
};
#define XP_VBL_NDRM 3		/* the first events of the table are the drm group's */

/*
 * The capability's event table: the drm group's three, then the two records
 * the kernel side writes from its probes (src/caps/vblank/vblank.h), group
 * "xputrace", whose layouts are xp_vbl_probe_format() instead of a tracefs
 * format file (none exists: they are set when the probes attach).
 */
extern const struct xp_rawtp_event xp_vbl_events[XP_VBL_NEV];
/* The format-file text of XP_VBL_SUBMIT, _CRTC or _PIPE; NULL for the others. */
const char *xp_vbl_probe_format(int ev);
/*
 * The raw tracepoint programs' settings for the drm events of `l`
 * (src/caps/vblank/vblank.h): argument i to the i-th field of the format. -EINVAL
 * when a present event has a field that cannot be an argument (a string, a
 * size other than 1, 2, 4, 8, more fields than arguments).
 */
int xp_vbl_raw_cfg_fill(const struct xp_rawtp_layout *l, struct xp_vbl_raw_cfg cfg[XP_VBL_NDRM]);

#define XP_VBL_IDLE_NS 1000000000ULL	/* a silence this long is the interrupt off, not misses */

struct xp_vbl_event {
	enum xp_vbl_tp kind;
	uint64_t ts;			/* when the event fired */
	uint32_t pid, tid;
	char comm[XP_COMM_LEN];
	int32_t crtc;
	uint32_t seq;
	uint64_t vtime;			/* XP_VBL_EVENT: the vblank's timestamp */
	bool high_prec;
	uint64_t file;			/* QUEUED, DELIVERED, SUBMIT: the struct drm_file */
	uint32_t cpu;
	/* SUBMIT (crtc: -1, the pipe is not known yet) */
	int32_t dev;			/* SUBMIT, CRTC: the device's primary minor, -1 unknown */
	uint64_t submit_ns;		/* the ioctl's entry, else ts */
	uint32_t type;			/* XP_DRM_EVENT_* */
	uint32_t crtc_id;		/* SUBMIT, PIPE: the CRTC's object id, 0 unknown */
	uint32_t ioctl_nr;
	uint64_t user_data;
};

/* What a client asked for (the DRM ioctl behind its events). */
enum xp_vbl_kind {
	XP_VBL_K_WAIT = 1 << 0,		/* WAIT_VBLANK with an event */
	XP_VBL_K_FLIP = 1 << 1,		/* legacy PAGE_FLIP */
	XP_VBL_K_ATOMIC = 1 << 2,	/* ATOMIC with PAGE_FLIP_EVENT */
	XP_VBL_K_SEQ = 1 << 3,		/* CRTC_QUEUE_SEQUENCE */
};
/* "flip", "atomic", "flip+atomic", ... */
const char *xp_vbl_kind_name(unsigned int kinds, char *buf, size_t len);

/* -ENOENT: no layout for the record's event; -EBADMSG: fields missing. */
int xp_vbl_decode(const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r,
		  struct xp_vbl_event *ev);

#define XP_VBL_RECENT 64		/* vblank timestamps kept per CRTC */

struct xp_vbl_crtc {
	int32_t dev;			/* primary minor (cardN); -1: not known (no probes) */
	int32_t crtc;
	/* drm_vblank_event */
	uint64_t vblanks, missed, idle_gaps, backwards;
	uint32_t first_seq, last_seq_seen;	/* of this interval's vblanks */
	uint64_t span_ns, span_seq;	/* sums over consecutive pairs, idle gaps excluded */
	uint64_t n1;			/* intervals between consecutive sequence numbers */
	double sum1, sumsq1;
	struct xp_hist interval;	/* their lengths */
	bool have_last;
	uint32_t last_seq;
	uint64_t last_vtime;
	uint32_t rseq[XP_VBL_RECENT];	/* recent (seq, time) for lateness */
	uint64_t rtime[XP_VBL_RECENT];
	unsigned int rhead, rcount;
	/* deliveries on this CRTC, all clients */
	uint64_t queued, delivered, late, late_frames, unqueued, missed_frames;
	struct xp_hist latency, lateness;
};

struct xp_vbl_client {
	uint64_t file;
	int32_t dev;			/* -1: not known */
	int32_t crtc;			/* -1: flips asked whose CRTC never completed one */
	uint32_t pid;			/* 0: never seen asking */
	uint32_t tid;			/* the thread of its last request */
	unsigned int kinds;		/* enum xp_vbl_kind it asked for */
	/* file 0: an atomic commit's event with no file to send it to (the
	 * kernel's own, e.g. a legacy mode set): never a process */
	char comm[XP_COMM_LEN];
	uint64_t queued, delivered, unqueued, missed_frames, late, late_frames;
	bool have_last;
	uint32_t last_seq;
	uint64_t last_ts;
	struct xp_hist latency, lateness, frame;	/* frame: between deliveries */
	/* frames: page flips, atomic commits, CRTC sequences (their submit records) */
	uint64_t asked, completed, missed_target, target_unknown;
	/* completions of no frame asked while traced: before its first paired
	 * one, asked before tracing began; after, their submit was not seen */
	uint64_t before, unsubmitted;
	uint64_t unseen;		/* asked, a later frame completed first: its completion not seen */
	bool paired;			/* a completion paired with its request or submit: kept */
	struct xp_hist scanout;		/* submit -> the vblank it completed on */
	struct xp_hist interval;	/* between the vblanks of consecutive frames */
	uint64_t first_vt, last_vt, presented;	/* this interval's frames with a vblank time */
	bool have_last_vt;
	uint64_t prev_vt;		/* the last frame's vblank, kept across intervals */
};

/* A delivery, for --stream. */
struct xp_vbl_delivery {
	uint64_t ts, file;
	int32_t crtc;
	uint32_t seq, req_seq;
	uint32_t pid;			/* the receiving process, 0 when unknown */
	char comm[XP_COMM_LEN];
	bool queued;			/* paired with a request */
	uint64_t latency_ns;		/* queued -> delivered (when queued) */
	bool has_lateness;
	uint64_t lateness_ns;		/* requested vblank's timestamp -> delivered */
	bool late;
	uint32_t missed_before;		/* frames skipped since this client's last delivery */
	/* a frame (flip, atomic commit, CRTC sequence): its submit record */
	bool frame;
	int32_t dev;
	uint32_t tid;
	unsigned int kind;		/* enum xp_vbl_kind */
	uint64_t submit_ns;
	uint64_t vblank_ns;		/* the vblank it completed on (has_lateness) */
	bool has_target;
	uint32_t missed_target;		/* vblanks after the first one following the submit */
	bool before;			/* no request or submit seen: asked before tracing began */
};

#define XP_VBL_MAX_CRTCS 32
#define XP_VBL_MAX_CLIENTS 256
#define XP_VBL_MAX_PENDING 1024
#define XP_VBL_MAX_PARKED 256
#define XP_VBL_MAX_FILES 256
#define XP_VBL_MAX_FLIPS 1024
#define XP_VBL_MAX_IDS 64
#define XP_VBL_MAX_CPUS 512

/* A DRM file seen asking for events: its device and last asking thread. */
struct xp_vbl_file {
	uint64_t file;
	int32_t dev;
	uint32_t pid, tid;
	char comm[XP_COMM_LEN];
};

/* A frame asked for and not completed yet. */
struct xp_vbl_flip {
	uint64_t file, ts, submit_ns;
	int32_t dev;
	uint32_t crtc_id, pid, tid;
	unsigned int kind;
	bool counted;			/* its client's `asked` has it */
	char comm[XP_COMM_LEN];
};

/* A CRTC object id's pipe on a device, learned from completions. */
struct xp_vbl_crtc_id {
	int32_t dev;
	uint32_t id;
	int32_t pipe;
};

struct xp_vbl_pending {
	uint64_t file, ts;
	int32_t crtc;
	uint32_t seq, pid;
	char comm[XP_COMM_LEN];
};

struct xp_vbl_state {
	uint64_t late_ns;
	struct xp_vbl_crtc crtcs[XP_VBL_MAX_CRTCS];
	int ncrtcs;
	struct xp_vbl_client clients[XP_VBL_MAX_CLIENTS];
	int nclients;
	struct xp_vbl_pending pending[XP_VBL_MAX_PENDING];
	int npending;
	struct xp_vbl_delivery parked[XP_VBL_MAX_PARKED];	/* waiting for their vblank's time */
	int nparked;
	struct xp_vbl_file files[XP_VBL_MAX_FILES];
	int nfiles;
	struct xp_vbl_flip flips[XP_VBL_MAX_FLIPS];
	int nflips;
	struct xp_vbl_crtc_id ids[XP_VBL_MAX_IDS];
	int nids;
	int32_t cpu_dev[XP_VBL_MAX_CPUS];	/* from the last crtc record on each CPU */
	int32_t cpu_pipe[XP_VBL_MAX_CPUS];	/* -1: none pending */
	bool attributed;		/* submit records seen: the probes ran */
	bool devices;			/* crtc records seen */
	uint64_t devices_guessed;	/* vblanks without their crtc record, by sequence */
	uint64_t submits;		/* this interval */
	/* this interval: completions with no request or submit seen, before a
	 * client's first paired one (asked before tracing began) and after it
	 * (its submit not seen); frames whose completion was not seen */
	uint64_t before_frames, unmatched_frames, unseen_frames;
	uint64_t asked_after_end;	/* at the end: frames asked after their CRTC's last traced vblank */
	/* totals */
	uint64_t events, overflow, unknown_lateness;
	bool proc_filter;		/* the kernel kept only some processes' requests */
	uint64_t filtered;		/* deliveries to files none of them queued on */
	uint64_t first_ts, last_ts;
	void (*on_delivery)(void *ctx, const struct xp_vbl_delivery *d);
	void *cb_ctx;
	/* each frame settled (stream and Perfetto): d->frame set */
	void (*on_frame)(void *ctx, const struct xp_vbl_delivery *d);
};

/* late_ns: 0 for 1 ms. The state is large: allocate it. */
void xp_vbl_init(struct xp_vbl_state *s, uint64_t late_ns);
void xp_vbl_add(struct xp_vbl_state *s, const struct xp_vbl_event *ev);
/* The device an event is on, as xp_vbl_add will see it (call before): -1 unknown. */
int32_t xp_vbl_dev_of(const struct xp_vbl_state *s, const struct xp_vbl_event *ev);
/* At the end: deliveries still waiting for their vblank's time are settled
 * without it; frames not completed are counted asked, except those asked
 * after the last vblank traced on their CRTC (they could not complete while
 * traced: asked_after_end). */
void xp_vbl_finish(struct xp_vbl_state *s);
/* A new interval: counts and histograms to zero; pairing state kept. */
void xp_vbl_reset(struct xp_vbl_state *s);

/* Measured over the run: 0 when fewer than two vblanks. */
uint64_t xp_vbl_period_ns(const struct xp_vbl_crtc *c);
/* A client's present rate over this interval in mHz: 0 below two frames. */
uint64_t xp_vbl_present_mhz(const struct xp_vbl_client *c);
/* Refresh rate in mHz (exact integer arithmetic, rounded). */
uint64_t xp_vbl_refresh_mhz(const struct xp_vbl_crtc *c);
double xp_vbl_interval_stddev_ns(const struct xp_vbl_crtc *c);

/* Its record kind (raw drm vblank and probe records (struct xp_rawtp_rec)), for its row. */
extern const struct xp_rec_kind xp_vbl_rec_kind;

#endif
