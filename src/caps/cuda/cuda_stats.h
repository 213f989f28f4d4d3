/*
 * `cuda`'s analysis, without libbpf: CUPTI's activity as libxputrace-cuda.so
 * hands it over (cuda.h), per kernel name, process and device (launches,
 * GPU time, launch -> start), and per process and device: GPU busy time as
 * the union of its kernels' intervals (kernels running at once on several
 * streams count once), copies and memsets by direction.
 *
 * A launch call's record (its correlation id, on the calling thread) comes
 * through the ring buffer as it happens; its kernel's comes when CUPTI
 * hands over a buffer, later. A kernel joins the launch of its process
 * with its correlation id: launch -> start is how long it waited for the
 * GPU. Launches are held in a table of XP_CUDA_MARKS; one pushed out
 * before its kernel came is counted.
 *
 * CUPTI completes buffers per context and stream, so kernels do not come
 * in time order: a process's busy intervals are kept merged and in order,
 * and those ended more than XP_CUDA_HORIZON_NS before the latest end seen
 * are folded into its total. A kernel that comes later still counts from
 * the folded edge on only (said in the summary as late).
 */
#ifndef XP_CAPS_CUDA_STATS_H
#define XP_CAPS_CUDA_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include "caps/cuda/cuda.h"
#include "core/hist.h"
#include "core/record_kind.h"

extern const struct xp_rec_kind xp_cuda_rec_kind;

#define XP_CUDA_MAX_KROWS 4096
#define XP_CUDA_MAX_PROWS 1024
#define XP_CUDA_MARKS (1u << 16)
#define XP_CUDA_HORIZON_NS 2000000000ull
#define XP_CUDA_MAX_IV 8192	/* open intervals per process, past which the oldest half is folded */

/* Copy directions counted apart; the rest under OTHER. */
enum { XP_CUDA_DIR_HTOD, XP_CUDA_DIR_DTOH, XP_CUDA_DIR_DTOD, XP_CUDA_DIR_OTHER, XP_CUDA_DIR_MEMSET,
       XP_CUDA_NDIR };
extern const char *const xp_cuda_dir_names[XP_CUDA_NDIR];

/* One kernel name in one process on one device. */
struct xp_cuda_krow {
	uint32_t pid, device;
	char comm[XP_COMM_LEN];
	char name[XP_CUDA_NAME];
	uint64_t kernels;
	struct xp_hist gpu;	/* end - start; its sum is the GPU time */
	struct xp_hist delay;	/* launch call -> start, of those joined */
};

struct xp_cuda_iv {
	uint64_t s, e;
};

struct xp_cuda_xfer {
	uint64_t n, bytes, ns;
};

/* One process on one device. */
struct xp_cuda_prow {
	uint32_t pid, device;
	uint64_t cgroup_id;
	char comm[XP_COMM_LEN];
	uint64_t kernels;
	uint64_t busy;		/* the union's length, folded and open: never goes down */
	uint64_t folded;	/* busy ns folded out of iv */
	uint64_t folded_to;	/* the edge: nothing before it is counted again */
	uint64_t busy_base;	/* busy at the interval's start */
	struct xp_cuda_iv *iv;	/* merged, in order */
	uint32_t niv, cap;
	uint64_t late;		/* kernels that began before the folded edge */
	struct xp_cuda_xfer x[XP_CUDA_NDIR];
};

/* A launch call waiting for its kernel. */
struct xp_cuda_mark {
	uint32_t pid, corr;
	uint64_t ts;
};

/* What one record completed, for the stream and Perfetto writers. */
struct xp_cuda_done {
	bool joined;		/* a kernel whose launch call was seen */
	uint64_t launch_ts;
	uint32_t launch_tid;
};

struct xp_cuda_state {
	struct xp_cuda_krow *krows;
	int nkrows;
	struct xp_cuda_prow *prows;
	int nprows;
	struct xp_cuda_mark *marks;	/* XP_CUDA_MARKS, by hash of (pid, corr) */
	uint32_t *mark_tid;
	/* this interval */
	uint64_t kernels, joined, launches, copies, memsets, cupti_dropped;
	uint64_t marks_pushed;		/* launches pushed out of the table before their kernel */
	uint64_t rows_full;		/* records past the tables' rows: counted nowhere else */
};

int xp_cuda_init(struct xp_cuda_state *s);
void xp_cuda_free(struct xp_cuda_state *s);
/* A new interval: counters to zero; launches waiting and busy intervals stay. */
void xp_cuda_reset(struct xp_cuda_state *s);
/* One record: 0, or -EINVAL when it is not one of ours. */
int xp_cuda_add(struct xp_cuda_state *s, const struct xp_cuda_rec *r, struct xp_cuda_done *d);
/* A process's GPU busy ns on a device since tracing began (folded and open). */
uint64_t xp_cuda_busy(const struct xp_cuda_prow *p);
/*
 * [s, e) into a process's busy union (p->busy grows by what it adds). 0, or
 * -ENOMEM (the intervals as they were).
 */
int xp_cuda_busy_add(struct xp_cuda_prow *p, uint64_t s, uint64_t e);
/* Sorts the rows for the summary: kernels by GPU time, processes by busy time. */
void xp_cuda_sort(struct xp_cuda_state *s);
/* CUPTI's copy kind as a direction (XP_CUDA_DIR_*). */
int xp_cuda_dir(uint32_t what, uint32_t kind);

#endif
