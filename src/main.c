/* xputrace: observe the kernel drivers of GPUs and NPUs. */
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "caps/cap.h"
#include "cmd/cmds.h"
#include "cmd/runner.h"
#include "live/session.h"

/* The verbs that are not capabilities; every runnable capability is a verb too. */
static const struct verb {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
	bool traces;	/* polls the kernel until a signal or -d ends it */
} verbs[] = {
	{ "doctor", cmd_doctor, "what this machine can trace, and why not", false },
	{ "record", cmd_record, "write what capabilities trace into a trace file", true },
	{ "report", cmd_report, "the summaries of a live run, from a trace file", false },
	{ "export", cmd_export, "a trace file as Perfetto / Chrome trace-event JSON", false },
	{ "serve", cmd_serve, "metrics over HTTP for Prometheus, per cgroup and container", true },
	{ "top", cmd_top, "the same numbers per process, refreshed on the terminal", true },
	{ "analyze", cmd_analyze, "GPU shares, fairness, who blocked whom, from a trace file", false },
	{ "simulate", cmd_simulate, "a recorded GPU workload under another scheduling policy", false },
};
#define NVERBS (sizeof(verbs) / sizeof(verbs[0]))

static void usage(FILE *f)
{
	fprintf(f, "Usage: xputrace COMMAND [OPTIONS]\n\nCommands:\n");
	fprintf(f, "  %-8s %s\n", verbs[0].name, verbs[0].summary);
	for (size_t i = 0; i < xp_ncaps; i++)
		if (xp_cap_runs(xp_caps[i]))
			fprintf(f, "  %-8s %s\n", xp_caps[i]->name, xp_caps[i]->summary);
	for (size_t i = 1; i < NVERBS; i++)
		fprintf(f, "  %-8s %s\n", verbs[i].name, verbs[i].summary);
	fprintf(f, "\n'xputrace COMMAND --help' describes a command. Commands may be abbreviated.\n");
}

int main(int argc, char **argv)
{
	const struct verb *verb = NULL;
	const struct xp_cap *cap = NULL;
	int matches = 0;
	size_t n;

	/* a reader that goes away is a failed write (EPIPE), for every verb alike */
	signal(SIGPIPE, SIG_IGN);
	/* the record types the rows claim: a clash is a build error, caught by every test */
	if (xp_caps_use_records()) {
		fprintf(stderr, "xputrace: two capabilities claim one record type (src/caps/table.c)\n");
		return 1;
	}
	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return xp_finish_stdout(0);
	}
	if (!strcmp(argv[1], "--gen")) {	/* internal: the build writes completion and man page */
		struct xp_gen_verb gv[NVERBS];

		for (size_t i = 0; i < NVERBS; i++)
			gv[i] = (struct xp_gen_verb){ verbs[i].name, verbs[i].summary };
		return xp_cmd_gen(argc - 1, argv + 1, gv, NVERBS);
	}
	if (!strcmp(argv[1], "-V") || !strcmp(argv[1], "--version")) {
		printf("xputrace %s\n", XP_VERSION);
		return xp_finish_stdout(0);
	}
	/* an exact name, else the one command it abbreviates */
	n = strlen(argv[1]);
	for (size_t i = 0; i < NVERBS + xp_ncaps; i++) {
		const char *name = i < NVERBS ? verbs[i].name : xp_caps[i - NVERBS]->name;

		if ((i >= NVERBS && !xp_cap_runs(xp_caps[i - NVERBS])) || strncmp(name, argv[1], n))
			continue;
		if (strlen(name) == n || !matches++) {
			verb = i < NVERBS ? &verbs[i] : NULL;
			cap = i < NVERBS ? NULL : xp_caps[i - NVERBS];
		}
		if (strlen(name) == n) {
			matches = 1;
			break;
		}
	}
	if (matches > 1)
		return xp_fail(2, "'%s' is ambiguous; see 'xputrace --help'", argv[1]);
	if (!matches)
		return xp_fail(2, "unknown command '%s'; see 'xputrace --help'", argv[1]);
	/*
	 * Tracing verbs catch SIGINT/SIGTERM from the first moment, so an early
	 * one still ends with a (possibly empty) summary; the others die of it.
	 */
	if (!verb || verb->traces)
		xp_signals_install();
	return verb ? verb->fn(argc - 1, argv + 1) : xp_cmd_live(cap, argc - 1, argv + 1);
}
