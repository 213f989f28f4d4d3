/* fdinfo's summary: per device and driver, per client and its process, text and JSON. */
#ifndef XP_CAPS_FDINFO_REPORT_H
#define XP_CAPS_FDINFO_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "caps/fdinfo/fdinfo_stats.h"
#include "sinks/run_info.h"

struct xp_fdi_report {
	const struct xp_fdi_stats *st;
	const struct xp_run_info *ri;
	bool filtered;		/* -p/-c/-G: other processes were not read */
};

void xp_fdi_report_text(FILE *f, const struct xp_fdi_report *r);
void xp_fdi_report_json(FILE *f, const struct xp_fdi_report *r);

/* A device of the summary: its clients' engines and (open clients') memory summed. */
struct xp_fdi_dev {
	const char *pdev, *driver;
	int clients;
	int neng, nreg;
	struct { const char *name; uint64_t busy_ns; uint32_t capacity; } eng[XP_FDI_MAX_ENGINES];
	struct xp_fdi_region reg[XP_FDI_MAX_REGIONS];
};
/* The devices of the clients in `s`, at most `max`; their number. */
int xp_fdi_devices(const struct xp_fdi_stats *s, struct xp_fdi_dev *d, int max);

#endif
