/* The nvidia capability's analysis: calls into nvidia.ko per process, per
 * escape, per interrupt line, and who holds the device files. */
#ifndef XP_CAPS_NVIDIA_STATS_H
#define XP_CAPS_NVIDIA_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include "core/hist.h"
#include "caps/nvidia/nvidia.h"
#include "core/record_kind.h"

#define XP_NV_MAX_PROCS 256
#define XP_NV_MAX_ESC 128
#define XP_NV_MAX_IRQS 32
#define XP_NV_MAX_HOLDS 1024

struct xp_nv_proc {
	uint32_t pid;
	char comm[XP_COMM_LEN];
	uint64_t opens, closes, ioctls, ioctl_errors, mmaps, mmap_bytes, faults;
};

struct xp_nv_esc {
	uint32_t cmd;
	uint64_t errors;
	uint64_t seen;		/* sampling: every call, counted in the kernel */
	struct xp_hist lat;
};

/* One interrupt line: the ISR, the MSI-X ISR and the two bottom halves. */
enum { XP_NV_IRQ_ISR, XP_NV_IRQ_MSIX, XP_NV_IRQ_BH, XP_NV_IRQ_MSIX_BH, XP_NV_IRQ_N };
struct xp_nv_irq {
	uint32_t irq;
	struct xp_hist lat[XP_NV_IRQ_N];
};

/* An open device file: from an open seen, or found open at the start. */
struct xp_nv_hold {
	uint64_t file;		/* the struct file; 0: open before tracing began */
	uint32_t pid;
	uint32_t minor;
	char comm[XP_COMM_LEN];
	bool before;		/* open before tracing (or the file) began */
};

#define XP_NV_MAX_XIDS 64
#define XP_NV_XID_MAX_PROCS 16
#define XP_NV_MAX_GPUS 16

/* An ioctl that was in flight when an Xid was reported. */
struct xp_nv_inflight {
	uint32_t pid, tid, cmd, minor;
	char comm[XP_COMM_LEN];
	uint64_t start_ns, dur_ns;
};

/* An Xid and what it hit: the processes holding that GPU, the ioctls in flight. */
struct xp_nv_xid {
	uint64_t ts;
	uint32_t code;
	int32_t minor;		/* the GPU's /dev/nvidiaN, -1 when the PCI name is not known */
	char dev[XP_NV_XID_DEV];
	char msg[XP_NV_XID_MSG];
	struct xp_nv_hold holders[XP_NV_XID_MAX_PROCS];
	int nholders;
	struct xp_nv_inflight inflight[XP_NV_XID_MAX_PROCS];
	int ninflight;
	uint64_t more;		/* holders or ioctls past the arrays */
};

struct xp_nv_state {
	uint64_t calls[XP_NV_NFN];	/* every call seen, per function */
	struct xp_nv_proc procs[XP_NV_MAX_PROCS];
	int nprocs;
	struct xp_nv_esc escs[XP_NV_MAX_ESC];
	int nescs;
	struct xp_nv_irq irqs[XP_NV_MAX_IRQS];
	int nirqs;
	uint64_t p2p_bytes;
	struct xp_hist suspend, resume;
	struct xp_nv_hold holds[XP_NV_MAX_HOLDS];	/* kept across intervals */
	int nholds;
	uint64_t overflow;	/* records past the tables above */
	uint64_t closes_unknown;	/* closes of files neither seen opened nor found at start */
	struct xp_nv_xid xids[XP_NV_MAX_XIDS];
	int nxids;
	uint64_t xids_past;	/* Xids past the array: counted only */
	struct { char pci[XP_NV_XID_DEV]; uint32_t minor; } gpus[XP_NV_MAX_GPUS];	/* kept */
	int ngpus;
	uint64_t t0;		/* the time shown as 0 */
	bool probed_known;	/* live: `probed` says which functions were attached */
	bool no_kprobes;	/* live: this kernel has none: only Xids are traced */
	bool xid_known;		/* live: whether the Xid tracepoint was attached */
	bool xid_probed;
	char xid_why[160];
	char hook_why[400];	/* live: why the hooks cheaper than the one used were not */
	char hook_note[200];	/* live: functions that hook could not take, and what took them */
	bool probed[XP_NV_NFN];
	uint32_t sample;	/* live --sample N: 1 in N ioctls per escape timed; 0, 1: all */
	uint64_t ioctl_seen;	/* sampling: every ioctl call, counted in the kernel */
};

void xp_nv_init(struct xp_nv_state *s);
/* Whether a record of XP_REC_NVIDIA is one this build reads (a known fn, the size it needs). */
bool xp_nv_rec_ok(const struct xp_rec_hdr *h);
/* A record of what was so before tracing began (caps/nvidia/nvidia.h): XP_NV_HOLDER. */
void xp_nv_snapshot_rec(struct xp_nv_rec *r, uint8_t fn, uint64_t ts, uint32_t pid, const char *comm,
			uint32_t minor, uint64_t file);
/* XP_NV_GPU: a GPU's PCI name and device minor. */
void xp_nv_gpu_rec(struct xp_nv_xid_rec *x, uint64_t ts, const char *pci, uint32_t minor);
/* One record (its size checked by the caller). */
void xp_nv_add(struct xp_nv_state *s, const struct xp_nv_rec *r);
/* A device file found open at the start (pid, minor). */
void xp_nv_add_holder(struct xp_nv_state *s, uint32_t pid, const char *comm, uint32_t minor);
/* A GPU's PCI name and device minor (the driver's /proc/driver/nvidia/gpus/NAME/information). */
void xp_nv_add_gpu(struct xp_nv_state *s, const char *pci, uint32_t minor);
/* Sampling: the calls of escape `cmd` the kernel counted this interval. */
void xp_nv_set_seen(struct xp_nv_state *s, uint32_t cmd, uint64_t seen);
/* A new interval: counts and Xids to zero; the holders and GPUs kept. */
void xp_nv_reset(struct xp_nv_state *s);
/* The device node of a minor: "/dev/nvidia0", "/dev/nvidiactl". */
const char *xp_nv_minor_name(uint32_t minor, char *buf, size_t len);

/* Its record kind (struct xp_nv_rec: one call into nvidia.ko), for its row. */
extern const struct xp_rec_kind xp_nv_rec_kind;

#endif
