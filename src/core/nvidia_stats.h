/* The nvidia capability's analysis: calls into nvidia.ko per process, per
 * escape, per interrupt line, and who holds the device files. */
#ifndef XP_CORE_NVIDIA_STATS_H
#define XP_CORE_NVIDIA_STATS_H

#include <stdbool.h>
#include <stdint.h>
#include "core/hist.h"
#include "shared/nvidia.h"

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
	bool probed_known;	/* live: `probed` says which functions were attached */
	bool probed[XP_NV_NFN];
};

void xp_nv_init(struct xp_nv_state *s);
/* One record (its size checked by the caller). */
void xp_nv_add(struct xp_nv_state *s, const struct xp_nv_rec *r);
/* A device file found open at the start (pid, minor). */
void xp_nv_add_holder(struct xp_nv_state *s, uint32_t pid, const char *comm, uint32_t minor);
/* A new interval: counts to zero, the holders kept. */
void xp_nv_reset(struct xp_nv_state *s);
/* The device node of a minor: "/dev/nvidia0", "/dev/nvidiactl". */
const char *xp_nv_minor_name(uint32_t minor, char *buf, size_t len);

#endif
