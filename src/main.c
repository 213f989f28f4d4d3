/* xputrace: observe the kernel drivers of GPUs and NPUs. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd/cmds.h"

#ifndef XP_VERSION
#define XP_VERSION "0.1.0"
#endif

struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
};

static const struct cmd cmds[] = {
	{ "doctor", cmd_doctor, "what this machine can trace, and why not" },
	{ "ioctl", cmd_ioctl, "ioctls on GPU/NPU device nodes: named, counted, timed" },
	{ "sched", cmd_sched, "DRM GPU scheduler jobs: queue delay, run time, per ring and process" },
	{ "vblank", cmd_vblank, "frame timing per CRTC: refresh rate, missed vblanks, late events" },
	{ "mem", cmd_mem, "amdgpu/i915/xe buffers: placement, moves, submits, leaks" },
	{ "record", cmd_record, "write what a capability traces into a trace file" },
	{ "report", cmd_report, "the summaries of a live run, from a trace file" },
	{ "export", cmd_export, "a trace file as Perfetto / Chrome trace-event JSON" },
};

int xp_fail(int status, const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("xputrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return status;
}

int xp_finish_stdout(int status)
{
	if (fflush(stdout) || ferror(stdout)) {
		int e = errno;

		fprintf(stderr, "xputrace: writing the output failed: %s\n", strerror(e));
		return status ? status : 1;
	}
	return status;
}

static void usage(FILE *f)
{
	fprintf(f, "Usage: xputrace COMMAND [OPTIONS]\n\nCommands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f, "\n'xputrace COMMAND --help' describes a command. Commands may be abbreviated.\n");
}

int main(int argc, char **argv)
{
	const struct cmd *match = NULL;
	size_t n;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return xp_finish_stdout(0);
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("xputrace %s\n", XP_VERSION);
		return xp_finish_stdout(0);
	}
	n = strlen(argv[1]);
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (strncmp(cmds[i].name, argv[1], n))
			continue;
		if (strlen(cmds[i].name) == n) {
			match = &cmds[i];
			break;
		}
		if (match)
			return xp_fail(2, "'%s' is ambiguous; see 'xputrace --help'", argv[1]);
		match = &cmds[i];
	}
	if (!match)
		return xp_fail(2, "unknown command '%s'; see 'xputrace --help'", argv[1]);
	return match->fn(argc - 1, argv + 1);
}
