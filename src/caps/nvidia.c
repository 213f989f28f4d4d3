/* The nvidia capability: calls into the loaded nvidia.ko through kprobes. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "caps/cap.h"
#include "core/nvidia_facts.h"
#include "core/nvidia_stats.h"
#include "live/features.h"
#include "live/kside.h"
#include "live/nvidia_live.h"
#include "sinks/nvidia_report.h"

#define NV_MAJOR 195	/* /dev/nvidia0.., /dev/nvidiactl */

/* Not options the user sets: what the open found, for the summary. */
struct nv_opts {
	bool found_known;
	bool found[XP_NV_NFN];
	bool xid;
	char xid_why[160];
};

static bool nv_available(const struct xp_doctor_env *d, char *why, size_t len)
{
	bool kp = d->at[XP_AT_KPROBE].ok, ok = kp && d->module_loaded("nvidia");

	snprintf(why, len, "%s", ok ? "kprobes on nvidia.ko"
				 : !kp ? "kprobes unavailable; ioctls to /dev/nvidia* are still traced by 'ioctl'"
				       : "the nvidia module is not loaded");
	return ok;
}

static int nv_open_k(struct xp_cap_inst *ci, const struct xp_open_args *a, char *why, size_t len)
{
	struct nv_opts *o = ci->opts;
	int err = xp_nv_live_open(&ci->k, a->f, a->share, o->found, &o->xid, o->xid_why,
				  sizeof(o->xid_why), why, len);

	o->found_known = !err;
	return err;
}

static void nv_describe(const struct xp_cap_inst *ci, char *buf, size_t len)
{
	const struct nv_opts *o = ci->opts;
	int n = 0;

	for (int i = 0; i < XP_NV_NFN; i++)
		n += o->found[i];
	snprintf(buf, len, "nvidia.ko (%d of %d functions, %s%s)", n, XP_NV_NFN, ci->k->hook,
		 o->xid ? ", Xid tracepoint" : "; no Xid tracepoint");
}

static bool comm_of(unsigned long pid, char *comm, size_t len)
{
	char path[64];
	FILE *f;
	bool ok;

	snprintf(path, sizeof(path), "/proc/%lu/comm", pid);
	if (!(f = fopen(path, "re")))
		return false;
	ok = fgets(comm, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		comm[strcspn(comm, "\n")] = '\0';
	return ok;
}

/* The device files open before tracing began: every process's fds on major 195. */
static void scan_holders(struct xp_nv_state *s, const struct xp_filters *filt)
{
	DIR *proc = opendir("/proc"), *fds;
	struct dirent *e, *fe;
	char path[300], comm[32];
	struct stat st;

	if (!proc)
		return;
	while ((e = readdir(proc))) {
		char *end;
		unsigned long pid = strtoul(e->d_name, &end, 10);

		if (*end || !pid || pid == (unsigned long)getpid())
			continue;
		if (filt->pid && pid != filt->pid)
			continue;
		if (!comm_of(pid, comm, sizeof(comm)) || (filt->comm && strcmp(comm, filt->comm)))
			continue;
		snprintf(path, sizeof(path), "/proc/%lu/fd", pid);
		if (!(fds = opendir(path)))
			continue;
		while ((fe = readdir(fds))) {
			if (fe->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "/proc/%lu/fd/%s", pid, fe->d_name);
			if (!stat(path, &st) && S_ISCHR(st.st_mode) && major(st.st_rdev) == NV_MAJOR)
				xp_nv_add_holder(s, (uint32_t)pid, comm, minor(st.st_rdev));
		}
		closedir(fds);
	}
	closedir(proc);
}

/* The GPUs' PCI names and device minors, from the driver's procfs files. */
static void scan_gpus(struct xp_nv_state *s)
{
	DIR *d = opendir("/proc/driver/nvidia/gpus");
	struct dirent *e;
	char path[400], line[256];
	unsigned int minor;

	if (!d)
		return;
	while ((e = readdir(d))) {
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/driver/nvidia/gpus/%s/information", e->d_name);
		if (!(f = fopen(path, "re")))
			continue;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "Device Minor: %u", &minor) == 1)
				xp_nv_add_gpu(s, e->d_name, minor);
		fclose(f);
	}
	closedir(d);
}

static int nv_init(struct xp_cap_inst *ci)
{
	const struct nv_opts *o = ci->opts;
	struct xp_nv_state *s = malloc(sizeof(*s));

	if (!s)
		return -ENOMEM;
	xp_nv_init(s);
	s->probed_known = o->found_known;
	memcpy(s->probed, o->found, sizeof(s->probed));
	s->xid_known = o->found_known;
	s->xid_probed = o->xid;
	snprintf(s->xid_why, sizeof(s->xid_why), "%s", o->xid_why);
	s->t0 = ci->env->t0;
	if (ci->env->live && ci->env->out != XP_OUT_PERFETTO) {
		scan_holders(s, &ci->env->filt);
		scan_gpus(s);
	}
	ci->st = s;
	return 0;
}

static void nv_free_st(struct xp_cap_inst *ci)
{
	free(ci->st);
}

static int nv_feed(struct xp_cap_inst *ci, const struct xp_rec_hdr *h)
{
	const struct xp_nv_rec *r = (const void *)h;
	const struct xp_cap_env *e = ci->env;

	if (h->size < sizeof(*r) || (r->fn >= XP_NV_NFN && r->fn != XP_NV_XID) ||
	    (r->fn == XP_NV_XID && h->size < sizeof(struct xp_nv_xid_rec)))
		return ci->undecodable++, 0;
	if (e->out == XP_OUT_PERFETTO) {
		xp_perfetto_nvidia(e->pf, r);
		return 0;
	}
	if (e->out == XP_OUT_STREAM)
		(void)(e->json ? xp_nv_stream_json(e->stream_json, r, e->t0) : xp_nv_stream_text(e->f, r, e->t0));
	xp_nv_add(ci->st, r);
	return 0;
}

static void nv_report(struct xp_cap_inst *ci, FILE *f, const struct xp_cap_report *r)
{
	if (r->json)
		xp_nv_report_json(f, ci->st, r->ri);
	else
		xp_nv_report_text(f, ci->st, r->ri, r->hist);
}

static void nv_reset(struct xp_cap_inst *ci, uint64_t now)
{
	(void)now;
	xp_nv_reset(ci->st);
}

const struct xp_cap xp_cap_nvidia = {
	.name = "nvidia",
	.summary = "the NVIDIA driver from the inside: kprobes on nvidia.ko, Xid errors",
	.about =
"Kprobes on the functions of the loaded nvidia.ko (NVIDIA's open and\n"
"proprietary kernel modules share their names; the ones this build probes and\n"
"their signatures are listed in docs/nvidia.md). The functions are looked up\n"
"in the loaded module: one it lacks is a note, not a failure. Per process:\n"
"opens, closes, ioctls, mmaps and bytes mapped, page faults; the processes\n"
"holding each device file now, also those that opened it before tracing\n"
"began. Per escape (NV_ESC_*): calls, errors, latency. Per interrupt line:\n"
"ISR, MSI-X ISR and bottom-half calls with latency histograms. P2P page\n"
"requests and DMA mappings; suspend and resume durations. Xid errors (the\n"
"nvidia:nvidia_dev_xid tracepoint, NVIDIA 575 and later) with the GPU's PCI\n"
"name, code and message, the processes that held that GPU and the ioctls in\n"
"flight at that moment. Needs kprobes; where the kernel has none,\n"
"'xputrace ioctl' still sees /dev/nvidia*.\n"
"Untested on real NVIDIA hardware: checked against a test double of the\n"
"module with the same function names and argument shapes.\n",
	.examples =
"  xputrace nvidia -d 10               calls into nvidia.ko for 10 s\n"
"  xputrace nvidia --stream -p 1234    one process's calls as they happen\n"
"  xputrace nvidia -j --no-hist        a JSON summary\n",
	.rectype = XP_REC_NVIDIA,
	.opts_size = sizeof(struct nv_opts),
	.available = nv_available, .open = nv_open_k, .describe = nv_describe,
	.init = nv_init, .free = nv_free_st, .feed = nv_feed, .stream_header = xp_nv_stream_header,
	.report = nv_report, .reset = nv_reset,
};
