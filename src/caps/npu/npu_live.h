/* The npu capability's kernel side: every ivpu_* function of intel_vpu, and its tracepoints. */
#ifndef XP_CAPS_NPU_LIVE_H
#define XP_CAPS_NPU_LIVE_H

#include <stdbool.h>
#include "live/kprobe_multi.h"
#include "live/kernel_side.h"
#include "caps/npu/npu.h"

#define XP_NPU_MODULE "intel_vpu"
#define XP_NPU_PATTERN "ivpu_*"
#define XP_NPU_TP_GROUP "vpu"
#define XP_XDNA_MODULE "amdxdna"
#define XP_XDNA_TP_GROUP "amdxdna"

/* What was opened, for the summary: ci->k->priv of a live npu instance. */
struct xp_npu_live {
	void *skel;			/* struct npu_bpf, k->skel */
	bool intel;			/* intel_vpu traced (its functions; km below) */
	char intel_why[160];		/* why not, when it is loaded */
	bool xdna;			/* amdxdna's xdna_job event traced */
	bool xdna_sched;		/* ... joined with gpu_scheduler's queue and done events */
	char xdna_why[160];		/* why not (or why without gpu_scheduler), when loaded */
	struct xp_kmulti km;		/* the functions, attached and refused */
	int lat_fn[XP_NPU_MAX_LAT];	/* the timed functions' indexes */
	int nlat;
	bool tp_job, tp_jsm, tp_pm;	/* the driver's tracepoints attached */
	char tp_why[160];		/* why not, when none */
	struct xp_npu_key *forget;	/* the drain's entries of processes gone */
};

/*
 * Opens the kernel side for each NPU driver loaded: intel_vpu (its
 * functions need kprobes; its tracepoints where it has them) and amdxdna
 * (its job event, tracepoints only). `lat` names the functions to time
 * (NULL-ended; ivpu_bo_create_ioctl is timed anyway where the module has
 * it); `per_call` writes a record per call instead of counting in the
 * kernel; `jobs_only` opens intel_vpu's vpu:job tracepoint alone (serve's
 * NPU jobs), and nothing else of either driver. -ENOENT: neither driver
 * loaded (or nothing of it traceable; jobs_only: no vpu:job); -EOPNOTSUPP:
 * intel_vpu alone, on a kernel without kprobes; else `why` says what failed.
 */
int xp_npu_live_open(struct xp_kside **out, const struct xp_filters *f,
		     const struct xp_live_share *share, bool per_call, bool jobs_only, const char *const *lat,
		     char *why, size_t whylen);

/*
 * The kernel's cumulative count for each (process, function): calls `fn`
 * once each. `gone`: the process had ended before its count was read, so
 * that count is final and its entry leaves the map (processes coming and
 * going never fill it).
 */
int xp_npu_live_counts(struct xp_kside *k,
		       void (*fn)(void *ctx, const struct xp_npu_key *key, const struct xp_npu_val *v,
				  bool gone),
		       void *ctx);

#endif
