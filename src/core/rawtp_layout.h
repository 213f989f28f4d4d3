/*
 * The user side of raw-tracepoint capabilities (src/shared/rawtp_rec.h): a
 * capability's table of events, their layouts parsed from tracefs at start-up
 * (events the kernel lacks are skipped, never an error), the per-event copy
 * settings the kernel side needs, and decoding a record's fields by name.
 * No libbpf: live capture and the unit tests share it.
 */
#ifndef XP_CORE_RAWTP_LAYOUT_H
#define XP_CORE_RAWTP_LAYOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "core/tpformat.h"
#include "core/record_kind.h"
#include "shared/rawtp_rec.h"

/*
 * How raw-tracepoint records pack in trace files (core/pack.h): the copied
 * strings and the comm repeat, the raw bytes past raw_len are zeros. Every
 * capability of struct xp_rawtp_rec records names it in its kind.
 */
extern const struct xp_rec_pack xp_rawtp_pack[];
#define XP_RAWTP_NPACK 7
#define XP_RAWTP_PACK .pack = xp_rawtp_pack, .npack = XP_RAWTP_NPACK

struct xp_rawtp_event {
	const char *group;		/* tracefs event group: "drm", "amdgpu" */
	const char *name;		/* event name in that group */
	const char *str[XP_RAWTP_NSTR];	/* __data_loc fields to copy, NULL: none */
	bool proc_ctx;			/* fires in the context of the process that caused it */
};

struct xp_rawtp_layout {
	const struct xp_rawtp_event *ev;
	int n;
	int npresent;
	char group[XP_RAWTP_MAX_EV][XP_TP_NAME_LEN];	/* the group read (see set_group) */
	bool present[XP_RAWTP_MAX_EV];
	struct xp_tp_format fmt[XP_RAWTP_MAX_EV];
};

/* An empty layout for a table of n (<= XP_RAWTP_MAX_EV) events. */
int xp_rawtp_layout_init(struct xp_rawtp_layout *l, const struct xp_rawtp_event *ev, int n);
/*
 * Reads the events of `group` from group `actual` instead: a test module
 * firing events of the same layout under its own name. Returns how many
 * events of the table are in `group`.
 */
int xp_rawtp_set_group(struct xp_rawtp_layout *l, const char *group, const char *actual);
/*
 * Parses TRACEFS/events/GROUP/NAME/format of every event; an event the
 * kernel lacks stays absent. Returns how many are present, or -errno (and
 * `why`) when a format exists but cannot be read or parsed.
 */
int xp_rawtp_layout_load(struct xp_rawtp_layout *l, const char *tracefs, char *why, size_t whylen);
/* Sets event `i`'s layout from a format file's text (trace files, tests). */
int xp_rawtp_layout_parse(struct xp_rawtp_layout *l, int i, const char *text);
/* The kernel side's per-event settings (raw bytes to copy, string offsets). */
void xp_rawtp_cfg_fill(const struct xp_rawtp_layout *l, struct xp_rawtp_cfg cfg[XP_RAWTP_MAX_EV]);

/* Field `name` of a record: -ENOENT when the layout has no such field, -EBADMSG when cut off. */
int xp_rawtp_u64(const struct xp_rawtp_layout *l, const struct xp_rawtp_rec *r, const char *name,
		 uint64_t *v);
/* String i of a record, NUL-terminated into buf. */
const char *xp_rawtp_rec_str(const struct xp_rawtp_rec *r, int i, char *buf, size_t len);
/* The cgroup v2 id of the process that caused the event (XP_RAWTP_CGROUP_AT); 0: not known. */
uint64_t xp_rawtp_cgroup(const struct xp_rawtp_rec *r);

#endif
