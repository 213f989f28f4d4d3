/* `ioctl` analysis: per process, device and command, from records or kernel maps. */
#ifndef XP_CAPS_IOCTL_STATS_H
#define XP_CAPS_IOCTL_STATS_H

#include <stddef.h>
#include <stdint.h>
#include "core/hist.h"
#include "caps/ioctl/ioctl.h"
#include "core/record_kind.h"

#define XP_IOCTL_MAX_ERRNOS 8

struct xp_ioctl_entry {
	struct xp_ioctl_key key;
	char comm[XP_COMM_LEN];
	uint64_t calls;
	uint64_t errors;
	uint64_t untimed;	/* calls whose start went unseen: in calls, not in lat */
	struct xp_hist lat;
	/* failures by errno; err 0 collects errnos beyond the first few */
	struct {
		uint32_t err;
		uint64_t count;
	} errnos[XP_IOCTL_MAX_ERRNOS];
	int nerrnos;
};

/*
 * Rows past max_keys are added up in "(other)" rows, one per device and
 * command (pid XP_IOCTL_PID_OTHER): totals stay exact, only the per-process
 * detail of the late comers is folded. Past max_keys such rows, calls go to
 * the one (other) row of device 0, command 0: at most 2 * max_keys + 1 rows,
 * so memory is bounded even when the commands themselves never repeat.
 */
#define XP_IOCTL_DEFAULT_MAX_KEYS 4096

struct xp_ioctl_table {
	struct xp_ioctl_entry **slots;	/* open addressing on the key */
	size_t cap;
	size_t n;
	size_t max_keys;		/* rows of real processes kept, and of (other) rows; 0: no limit */
	size_t n_other;			/* (other) rows among the n */
	uint64_t folded_calls;		/* calls counted in (other) rows */
	uint64_t kernel_folded;		/* of those, calls the kernel's full map folded */
};

/* An empty table keeping XP_IOCTL_DEFAULT_MAX_KEYS process rows. */
void xp_ioctl_table_init(struct xp_ioctl_table *t);
void xp_ioctl_table_free(struct xp_ioctl_table *t);
/* Forgets every entry (for --interval). */
void xp_ioctl_table_reset(struct xp_ioctl_table *t);

/* The entry for a key, created when missing; NULL only when out of memory. */
struct xp_ioctl_entry *xp_ioctl_table_get(struct xp_ioctl_table *t, const struct xp_ioctl_key *k);

/* One completed call, as stream and record modes deliver it. */
int xp_ioctl_table_add_rec(struct xp_ioctl_table *t, const struct xp_ioctl_rec *r);
/* A kernel map value (summary mode); errors by errno come separately. */
int xp_ioctl_table_add_val(struct xp_ioctl_table *t, const struct xp_ioctl_key *k,
			   const struct xp_ioctl_val *v);
int xp_ioctl_table_add_errno(struct xp_ioctl_table *t, const struct xp_ioctl_key *k,
			     uint32_t err, uint64_t count);

/* Entries sorted by pid, then calls (most first), then command. Caller frees the array. */
struct xp_ioctl_entry **xp_ioctl_table_sorted(const struct xp_ioctl_table *t);

/* Its record kind (struct xp_ioctl_rec: one completed ioctl), for its row. */
extern const struct xp_rec_kind xp_ioctl_rec_kind;

#endif
