/* The fdinfo capability: every DRM client's engine time and memory, from the kernel's own accounting. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "caps/cap.h"
#include "caps/fdinfo/fdinfo_metrics.h"
#include "caps/fdinfo/fdinfo_report.h"
#include "caps/fdinfo/fdinfo_scan.h"
#include "live/session.h"

static bool fi_available(const struct xp_doctor_env *d, char *why, size_t len)
{
	bool ok = !access("/proc/self/fdinfo", R_OK);

	(void)d;
	snprintf(why, len, "%s", ok ? "reads /proc/PID/fdinfo of DRM and accel files (no BPF)"
				    : "/proc/self/fdinfo cannot be read");
	return ok;
}

/* A sampler: nothing in the kernel to open; the root must be there. */
static int fi_open(struct xp_cap_inst *ci, const struct xp_open_args *a, char *why, size_t len)
{
	const char *root = xp_fdi_proc_root();

	(void)ci;
	(void)a;
	if (access(root, R_OK | X_OK)) {
		int err = -errno;

		snprintf(why, len, "cannot read %s: %s", root, strerror(-err));
		return err;
	}
	return 0;
}

static void fi_describe(const struct xp_cap_inst *ci, char *buf, size_t len)
{
	(void)ci;
	snprintf(buf, len, "DRM and accel clients (%s/PID/fdinfo, sampled every second)", xp_fdi_proc_root());
}

static int fi_init(struct xp_cap_inst *ci)
{
	return xp_fdinfo_state_new(&ci->env->filt, (struct xp_fdinfo_state **)&ci->st);
}

static void fi_free(struct xp_cap_inst *ci)
{
	xp_fdinfo_state_free(ci->st);
}

/* No records: a sampler is fed by drain. */
static int fi_feed(struct xp_cap_inst *ci, const struct xp_rec_hdr *h)
{
	(void)h;
	ci->undecodable++;
	return 0;
}

/* A sample: every second (less often where a sample costs more than a tenth of that), and before each summary. */
static int fi_drain(struct xp_cap_inst *ci, bool tick)
{
	struct xp_fdinfo_state *s = ci->st;

	return xp_fdinfo_tick(s, tick, xp_now_ns);
}

static void fi_report(struct xp_cap_inst *ci, FILE *f, const struct xp_cap_report *r)
{
	const struct xp_filters *fl = &ci->env->filt;
	struct xp_fdinfo_state *s = ci->st;
	struct xp_fdi_report rep = {
		.st = &s->st, .ri = r->ri, .filtered = fl->pid || fl->comm || fl->cgroup_id,
	};

	(r->json ? xp_fdi_report_json : xp_fdi_report_text)(f, &rep);
}

static void fi_reset(struct xp_cap_inst *ci, uint64_t now)
{
	struct xp_fdinfo_state *s = ci->st;

	(void)now;
	xp_fdi_reset(&s->st);
}

static int fi_metrics_init(struct xp_cap_inst *ci, const struct xp_metrics_in *mi)
{
	return xp_fdinfo_metrics_init(ci->mst, mi, &ci->env->filt);
}

static int fi_metrics_sample(struct xp_cap_inst *ci)
{
	return xp_fdinfo_metrics_sample(ci->mst, xp_now_ns);
}

static void fi_metrics_free(struct xp_cap_inst *ci)
{
	xp_fdinfo_metrics_free(ci->mst);
}

const struct xp_cap xp_cap_fdinfo = {
	.name = "fdinfo",
	.summary = "every DRM/accel client's engine time and memory, from the drivers' fdinfo",
	.about =
"Samples the DRM and accel file descriptors of every process every second:\n"
"the usage stats the driver writes into /proc/PID/fdinfo/FD (amdgpu, i915,\n"
"xe, msm, panfrost, panthor, v3d, etnaviv, intel_vpu, amdxdna, ...). No BPF.\n"
"  per device:  its driver, clients, each engine's busy seconds and % (of the\n"
"               time and the engine's capacity), memory per region;\n"
"  per client:  its process (the lowest pid where several share the file),\n"
"               cgroup, busy time per engine, memory per region (total,\n"
"               shared, resident, purgeable, active).\n"
"Busy time is the driver's ns, or its cycles over the engine's total cycles\n"
"or over its maximum frequency. A client is one open DRM file however many\n"
"descriptors and processes share it, counted once; one that is closed, or\n"
"whose process exits, keeps what it used. Processes whose descriptors cannot\n"
"be read (another user's, without root) are counted and said. -p/-c/-G\n"
"choose the processes read.\n",
	.examples =
"  xputrace fdinfo -d 10              10 s of every DRM client's GPU time and memory\n"
"  xputrace fdinfo -i 1 -j            a JSON summary per second\n"
"  xputrace fdinfo -c glxgears -d 5   one application's clients\n",
	.flags = XP_CAP_SAMPLER | XP_CAP_SAYS_UNDECODABLE,
	.available = fi_available, .open = fi_open, .describe = fi_describe,
	.init = fi_init, .free = fi_free, .feed = fi_feed, .drain = fi_drain,
	.report = fi_report, .reset = fi_reset,
	.metrics_size = sizeof(struct xp_fdinfo_metrics),
	.metrics_init = fi_metrics_init, .metrics_sample = fi_metrics_sample, .metrics_free = fi_metrics_free,
};
