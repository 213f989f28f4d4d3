/*
 * One DRM or accel file descriptor's usage stats, as the kernel writes them
 * into /proc/PID/fdinfo/FD (Documentation/gpu/drm-usage-stats.rst): the
 * client's id, device and driver, each engine's busy time (ns, or cycles
 * with the engine's total cycles or its maximum frequency) and each memory
 * region's sizes. No libbpf, no I/O.
 */
#ifndef XP_CAPS_FDINFO_PARSE_H
#define XP_CAPS_FDINFO_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define XP_FDI_MAX_ENGINES 16
#define XP_FDI_MAX_REGIONS 8
#define XP_FDI_NAME 32

/* The sizes a region reports: drm-<kind>-<region> */
enum xp_fdi_kind { XP_FDI_TOTAL, XP_FDI_SHARED, XP_FDI_RESIDENT, XP_FDI_PURGEABLE, XP_FDI_ACTIVE, XP_FDI_NKINDS };
extern const char *const xp_fdi_kind_names[XP_FDI_NKINDS];

/* What an engine's keys gave (bits of xp_fdi_engine.have) */
enum {
	XP_FDI_NS = 1 << 0,		/* drm-engine-<e>: busy ns */
	XP_FDI_CYCLES = 1 << 1,		/* drm-cycles-<e> */
	XP_FDI_TOTAL_CYCLES = 1 << 2,	/* drm-total-cycles-<e>: the engine's clock, every client's */
	XP_FDI_MAXFREQ = 1 << 3,	/* drm-maxfreq-<e>, in Hz */
};

struct xp_fdi_engine {
	char name[XP_FDI_NAME];
	uint64_t ns, cycles, total_cycles, maxfreq_hz;
	uint32_t capacity;	/* drm-engine-capacity-<e>; 1 where not given */
	uint8_t have;
};

struct xp_fdi_region {
	char name[XP_FDI_NAME];
	uint64_t bytes[XP_FDI_NKINDS];
	uint8_t have;		/* 1 << kind for each size given */
};

struct xp_fdinfo {
	char driver[XP_FDI_NAME];	/* drm-driver */
	char pdev[XP_FDI_NAME];		/* drm-pdev, "" where not given (not a PCI device) */
	char name[64];			/* drm-client-name, "" where not set */
	uint64_t client_id;		/* drm-client-id */
	bool have_id;
	int neng, nreg;
	struct xp_fdi_engine eng[XP_FDI_MAX_ENGINES];
	struct xp_fdi_region reg[XP_FDI_MAX_REGIONS];
	uint32_t unknown;	/* drm-* keys it does not know, or values it could not read */
	uint32_t over;		/* engines or regions past the limits above, left out */
};

/*
 * Parses fdinfo text (`len` bytes, need not be terminated). Keys other than
 * drm-* (pos, flags, amd-*, ...) are skipped; drm-* keys it does not know
 * or whose value it cannot read are counted in `unknown`. The older
 * drm-memory-<region> is the resident size where drm-resident-<region> is
 * not given. Returns whether the text carries usage stats (a drm-client-id).
 */
bool xp_fdinfo_parse(const char *text, size_t len, struct xp_fdinfo *out);

/* The engine's (region's) index by name, -1 when it has none. */
int xp_fdi_engine_find(const struct xp_fdinfo *fi, const char *name);
int xp_fdi_region_find(const struct xp_fdinfo *fi, const char *name);

#endif
