/* xputrace doctor: what this machine can trace, and why not. */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "caps/cap.h"
#include "cmd/cmds.h"
#include "cmd/runner.h"
#include "core/devices.h"
#include "live/features.h"
#include "live/session.h"
#include "live/tracefs.h"
#include "sinks/json.h"

/* Event groups of interest: the GPU/NPU drivers' own and the generic ones we build on. */
static const char *const groups[] = {
	"gpu_scheduler", "drm", "amdgpu", "amdgpu_dm", "i915", "xe", "nouveau", "msm",
	"panfrost", "v3d", "nvidia", "vpu", "dma_fence", "iommu", "syscalls", "raw_syscalls",
	"irq", "sched",
};
#define NGROUPS (sizeof(groups) / sizeof(groups[0]))

/* Kernel modules of GPU/NPU drivers and their infrastructure. */
static const char *const modules[] = {
	"drm", "gpu_sched", "amdgpu", "i915", "xe", "nouveau", "radeon", "msm", "panfrost",
	"v3d", "etnaviv", "lima", "vkms", "vgem", "nvidia", "nvidia_uvm", "nvidia_drm",
	"nvidia_modeset", "intel_vpu", "amdxdna",
};
#define NMODULES (sizeof(modules) / sizeof(modules[0]))

struct capability {
	const char *name;
	bool built;		/* false: planned, not in this build yet */
	bool ok;
	char why[200];
};

struct doctor {
	struct utsname uts;
	bool root;
	const char *missing;	/* capabilities tracing needs that we lack, "" none */
	char lockdown[64];
	bool btf_vmlinux;
	int btf_modules;
	const char *tracefs;
	bool tracefs_mounted_now;
	char tracefs_why[160];
	struct xp_feature at[XP_AT_MAX];
	bool runs32;		/* 32-bit programs can run here */
	char runs32_why[128];
	struct xp_devices devs;
	bool module_loaded[NMODULES];
	int group_events[NGROUPS];	/* -1: unknown (no tracefs) */
	struct capability caps[16];
	int ncaps;
};

static int group_n(const struct doctor *d, const char *g)
{
	for (size_t i = 0; i < NGROUPS; i++)
		if (!strcmp(groups[i], g))
			return d->group_events[i];
	return 0;
}

static bool module_on(const struct doctor *d, const char *m)
{
	for (size_t i = 0; i < NMODULES; i++)
		if (!strcmp(modules[i], m))
			return d->module_loaded[i];
	return false;
}

static void read_lockdown(char *buf, size_t len)
{
	FILE *f = fopen("/sys/kernel/security/lockdown", "r");
	char line[128], *a, *b;

	snprintf(buf, len, "unknown");
	if (!f)
		return;
	if (fgets(line, sizeof(line), f) && (a = strchr(line, '[')) && (b = strchr(a, ']'))) {
		*b = '\0';
		snprintf(buf, len, "%s", a + 1);
	}
	fclose(f);
}

static int count_module_btf(void)
{
	DIR *dh = opendir("/sys/kernel/btf");
	struct dirent *e;
	int n = 0;

	if (!dh)
		return 0;
	while ((e = readdir(dh)))
		if (e->d_name[0] != '.' && strcmp(e->d_name, "vmlinux"))
			n++;
	closedir(dh);
	return n;
}

/* What the capabilities' checks may ask about what examine() found. */
static struct doctor *doc;

static bool doc_module(const char *m) { return module_on(doc, m); }
static int doc_group(const char *g) { return group_n(doc, g); }

static void judge(struct doctor *d)
{
	struct xp_doctor_env env = {
		.at = d->at, .module_loaded = doc_module, .group_events = doc_group,
		.event_exists = xp_tracefs_event_exists, .runs32 = d->runs32,
	};

	doc = d;
	for (size_t i = 0; i < xp_ncaps && d->ncaps < (int)(sizeof(d->caps) / sizeof(d->caps[0])); i++) {
		struct capability *c = &d->caps[d->ncaps++];

		c->name = xp_caps[i]->name;
		c->built = xp_cap_runs(xp_caps[i]);
		c->ok = xp_caps[i]->available(&env, c->why, sizeof(c->why));
	}
}

static void examine(struct doctor *d)
{
	uname(&d->uts);
	d->root = geteuid() == 0;
	d->missing = xp_priv_missing();
	read_lockdown(d->lockdown, sizeof(d->lockdown));
	d->btf_vmlinux = access("/sys/kernel/btf/vmlinux", R_OK) == 0;
	d->btf_modules = count_module_btf();
	d->tracefs = xp_tracefs(d->tracefs_why, sizeof(d->tracefs_why), &d->tracefs_mounted_now);
	xp_probe_attach_types(d->at);
	d->runs32 = xp_runs_32bit(d->runs32_why, sizeof(d->runs32_why));
	xp_devices_scan(&d->devs, "");
	for (size_t i = 0; i < NMODULES; i++) {
		char path[128];

		snprintf(path, sizeof(path), "/sys/module/%s", modules[i]);
		d->module_loaded[i] = access(path, F_OK) == 0;
	}
	for (size_t i = 0; i < NGROUPS; i++)
		d->group_events[i] = xp_tracefs_group_events(groups[i]);
	judge(d);
}

static void print_text(const struct doctor *d)
{
	int n = 0;

	printf("Kernel         %s %s\n", d->uts.release, d->uts.machine);
	if (d->root)
		printf("Privileges     root\n");
	else if (!*d->missing)
		printf("Privileges     CAP_BPF and CAP_PERFMON, not root: ioctl can trace; sched, vblank and mem "
		       "read tracefs, which is root's\n");
	else
		printf("Privileges     not root, without %s: tracing needs root (or CAP_BPF with CAP_PERFMON)\n",
		       d->missing);
	printf("Lockdown       %s\n", d->lockdown);
	printf("BTF            vmlinux %s; %d module%s with BTF\n", d->btf_vmlinux ? "yes" : "no (CO-RE cannot work)",
	       d->btf_modules, d->btf_modules == 1 ? "" : "s");
	printf("32-bit progs   %s\n", d->runs32 ? "can run (their ioctls are compat calls)" : d->runs32_why);
	if (d->tracefs)
		printf("tracefs        %s%s\n", d->tracefs, d->tracefs_mounted_now ? " (mounted by xputrace just now)" : "");
	else
		printf("tracefs        unavailable: %s\n", d->tracefs_why);

	printf("\nAttach types (each one tried)\n");
	for (int i = 0; i < XP_AT_MAX; i++)
		printf("  %-14s %-4s %s\n", d->at[i].name, d->at[i].ok ? "yes" : "no", d->at[i].ok ? "" : d->at[i].why);

	printf("\nGPU/NPU drivers\n  majors:      ");
	for (int i = 0; i < d->devs.nmajors; i++)
		printf("%s%s (%u)", i ? ", " : "", d->devs.majors[i].name, d->devs.majors[i].major);
	printf("%s\n  modules:     ", d->devs.nmajors ? "" : "none (no drm, accel, nvidia* or kfd in /proc/devices)");
	for (size_t i = 0; i < NMODULES; i++)
		if (d->module_loaded[i])
			printf("%s%s", n++ ? ", " : "", modules[i]);
	printf("%s\n  nodes:       ", n ? "" : "none loaded");
	for (int i = 0; i < d->devs.nnodes; i++)
		printf("%s%s%s%s%s", i ? ", " : "", d->devs.nodes[i].path, d->devs.nodes[i].driver[0] ? " (" : "",
		       d->devs.nodes[i].driver, d->devs.nodes[i].driver[0] ? ")" : "");
	printf("%s\n", d->devs.nnodes ? "" : "none");

	printf("\nEvent groups\n");
	for (size_t i = 0; i < NGROUPS; i++) {
		if (d->group_events[i] < 0)
			printf("  %-14s unknown (no tracefs)\n", groups[i]);
		else if (d->group_events[i] == 0)
			printf("  %-14s missing\n", groups[i]);
		else
			printf("  %-14s %d events\n", groups[i], d->group_events[i]);
	}

	printf("\nCapabilities on this machine\n");
	for (int i = 0; i < d->ncaps; i++)
		printf("  %-14s %-4s %s%s\n", d->caps[i].name, d->caps[i].ok ? "yes" : "no", d->caps[i].why,
		       d->caps[i].built ? "" : " [not in this build yet]");
}

static void print_json(const struct doctor *d)
{
	struct xp_json j;

	xp_json_init(&j, stdout, true);
	xp_json_begin_obj(&j);
	xp_json_kstr(&j, "tool", "xputrace");
	xp_json_kstr(&j, "command", "doctor");
	xp_json_key(&j, "kernel");
	xp_json_begin_obj(&j);
	xp_json_kstr(&j, "release", d->uts.release);
	xp_json_kstr(&j, "machine", d->uts.machine);
	xp_json_end_obj(&j);
	xp_json_kbool(&j, "root", d->root);
	xp_json_kstr(&j, "missing_capabilities", d->missing);
	xp_json_kstr(&j, "lockdown", d->lockdown);
	xp_json_key(&j, "btf");
	xp_json_begin_obj(&j);
	xp_json_kbool(&j, "vmlinux", d->btf_vmlinux);
	xp_json_ki64(&j, "modules", d->btf_modules);
	xp_json_end_obj(&j);
	xp_json_key(&j, "runs_32bit");
	xp_json_begin_obj(&j);
	xp_json_kbool(&j, "ok", d->runs32);
	if (!d->runs32)
		xp_json_kstr(&j, "reason", d->runs32_why);
	xp_json_end_obj(&j);
	xp_json_key(&j, "tracefs");
	xp_json_begin_obj(&j);
	xp_json_kbool(&j, "available", d->tracefs != NULL);
	if (d->tracefs) {
		xp_json_kstr(&j, "path", d->tracefs);
		xp_json_kbool(&j, "mounted_now", d->tracefs_mounted_now);
	} else {
		xp_json_kstr(&j, "reason", d->tracefs_why);
	}
	xp_json_end_obj(&j);
	xp_json_key(&j, "attach");
	xp_json_begin_obj(&j);
	for (int i = 0; i < XP_AT_MAX; i++) {
		xp_json_key(&j, d->at[i].name);
		xp_json_begin_obj(&j);
		xp_json_kbool(&j, "ok", d->at[i].ok);
		if (!d->at[i].ok)
			xp_json_kstr(&j, "reason", d->at[i].why);
		xp_json_end_obj(&j);
	}
	xp_json_end_obj(&j);
	xp_json_key(&j, "majors");
	xp_json_begin_arr(&j);
	for (int i = 0; i < d->devs.nmajors; i++) {
		xp_json_begin_obj(&j);
		xp_json_kstr(&j, "name", d->devs.majors[i].name);
		xp_json_ku64(&j, "major", d->devs.majors[i].major);
		xp_json_end_obj(&j);
	}
	xp_json_end_arr(&j);
	xp_json_key(&j, "modules");
	xp_json_begin_arr(&j);
	for (size_t i = 0; i < NMODULES; i++)
		if (d->module_loaded[i])
			xp_json_str(&j, modules[i]);
	xp_json_end_arr(&j);
	xp_json_key(&j, "nodes");
	xp_json_begin_arr(&j);
	for (int i = 0; i < d->devs.nnodes; i++) {
		xp_json_begin_obj(&j);
		xp_json_kstr(&j, "path", d->devs.nodes[i].path);
		xp_json_kstr(&j, "driver", d->devs.nodes[i].driver);
		xp_json_end_obj(&j);
	}
	xp_json_end_arr(&j);
	xp_json_key(&j, "event_groups");
	xp_json_begin_obj(&j);
	for (size_t i = 0; i < NGROUPS; i++) {
		xp_json_key(&j, groups[i]);
		if (d->group_events[i] < 0)
			xp_json_null(&j);
		else
			xp_json_i64(&j, d->group_events[i]);
	}
	xp_json_end_obj(&j);
	xp_json_key(&j, "capabilities");
	xp_json_begin_obj(&j);
	for (int i = 0; i < d->ncaps; i++) {
		xp_json_key(&j, d->caps[i].name);
		xp_json_begin_obj(&j);
		xp_json_kbool(&j, "available", d->caps[i].ok);
		xp_json_kstr(&j, "reason", d->caps[i].why);
		xp_json_kbool(&j, "in_this_build", d->caps[i].built);
		xp_json_end_obj(&j);
	}
	xp_json_end_obj(&j);
	xp_json_end_obj(&j);
	xp_json_finish(&j);
}

/* doctor takes only common options */
const struct xp_verb_opts xp_doctor_opts = { XP_O_JSON | XP_O_VERBOSE, NULL };

static void doctor_help(const void *ctx)
{
	(void)ctx;
	printf("Usage: xputrace doctor [--json] [-v]\n\n"
	       "Says what this machine can trace and why not: kernel, BTF, tracefs (mounted\n"
	       "when missing and run as root), the attach types that really load and attach,\n"
	       "GPU/NPU drivers and device nodes, event groups, and each capability.\n");
}

int cmd_doctor(int argc, char **argv)
{
	static struct doctor d;
	struct xp_live_opts lo = { 0 };
	bool json, verbose;
	int status;

	status = xp_opts_parse("doctor", argc, argv, xp_doctor_opts.common, &lo, NULL, 0, doctor_help, NULL);
	if (status)
		return status < 0 ? xp_finish_stdout(0) : status;
	json = lo.json;
	verbose = lo.verbose;
	if (optind < argc)
		return xp_fail(2, "doctor: unexpected argument '%s'", argv[optind]);
	xp_libbpf_quiet(verbose);
	examine(&d);
	if (json)
		print_json(&d);
	else
		print_text(&d);
	return xp_finish_stdout(0);
}

/* A row's check for classic tracepoints of one event group (caps/cap.h). */
bool xp_cap_tp_group_available(const struct xp_doctor_env *d, const char *group, const char *missing,
			       char *why, size_t len)
{
	bool tp = d->at[XP_AT_TRACEPOINT].ok, ok = tp && d->group_events(group) > 0;

	if (ok)
		snprintf(why, len, "%s events present", group);
	else
		snprintf(why, len, "%s", !tp ? "classic tracepoints do not attach here" : missing);
	return ok;
}
