/* The common options of the tracing verbs, their help, and the targets they name. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/cmds.h"
#include "cmd/runner.h"
#include "core/msg.h"
#include "core/parse.h"

static const struct {
	unsigned int bit;
	struct xp_cap_opt o;
} common_opts[] = {
	{ XP_O_DURATION, { "duration", 'd', "SECONDS", "stop after SECONDS (default: until Ctrl-C)", false, NULL } },
	{ XP_O_INTERVAL, { "interval", 'i', "SECONDS", "print and reset the summary every SECONDS", false, NULL } },
	{ XP_O_STREAM, { "stream", 0, NULL, "print each event as it is settled", false, NULL } },
	{ XP_O_JSON, { "json", 'j', NULL, "JSON: the summary as one document (with --stream,\n"
					  "one object per event, then the summary)", false, NULL } },
	{ XP_O_DEVICE, { "device", 0, "PATH", "also trace this character device node (repeatable)", false, NULL } },
	{ XP_O_PID, { "pid", 'p', "PID", "only this process", false, NULL } },
	{ XP_O_COMM, { "comm", 'c', "NAME", "only threads with this name", false, NULL } },
	{ XP_O_CGROUP, { "cgroup", 'G', "PATH", "only tasks in this cgroup v2 directory", false, NULL } },
	{ XP_O_NOHIST, { "no-hist", 0, NULL, "no histograms in the text summary", false, NULL } },
	{ XP_O_VERBOSE, { "verbose", 'v', NULL, "show libbpf's messages", false, NULL } },
};
#define NCOMMON (int)(sizeof(common_opts) / sizeof(common_opts[0]))

enum { VAL_COMMON = 1000, VAL_SET = 2000, SET_STRIDE = 100 };
/* getopt's table: the common options, every set's, --help and the end */
#define XP_MAX_LONGS 128

static void help_line(FILE *f, const struct xp_cap_opt *o)
{
	char left[48];
	const char *h = o->help, *nl;

	snprintf(left, sizeof(left), "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
	if (o->short_name)
		fprintf(f, "  -%c, %-21s", o->short_name, left);
	else
		fprintf(f, "      %-21s", left);
	if (strlen(left) >= 21)	/* no room for a space: the text on the next line */
		fprintf(f, "\n%27s", "");
	while ((nl = strchr(h, '\n'))) {
		fprintf(f, "%.*s\n%27s", (int)(nl - h), h, "");
		h = nl + 1;
	}
	fprintf(f, "%s\n", h);
}

static const struct xp_cap_opt json_alone = {
	"json", 'j', NULL, "the summaries as JSON, one document per capability", false, NULL
};

void xp_opts_help(FILE *f, unsigned int common, const struct xp_cap_opt *opts)
{
	for (int i = 0; i < NCOMMON; i++) {
		if (!(common & common_opts[i].bit))
			continue;
		/* without --stream, JSON is only the summary */
		help_line(f, common_opts[i].bit == XP_O_JSON && !(common & XP_O_STREAM) ? &json_alone
											 : &common_opts[i].o);
	}
	for (int i = 0; opts && opts[i].name; i++)
		help_line(f, &opts[i]);
	fprintf(f, "  -h, --help               this text\n");
}

/* A row without a stream writer takes no --stream: refused as an unknown option, not an empty stream. */
unsigned int xp_cap_common(const struct xp_cap *cap)
{
	/* a sampler has no events to stream, no histograms, no libbpf */
	if (cap->flags & XP_CAP_SAMPLER)
		return XP_O_TRACE & ~(XP_O_STREAM | XP_O_NOHIST | XP_O_VERBOSE);
	return (XP_O_TRACE & ~(cap->stream_header ? 0u : (unsigned int)XP_O_STREAM)) |
	       (cap->flags & XP_CAP_DEVICES ? XP_O_DEVICE : 0);
}

int xp_common_opts(unsigned int common, const struct xp_cap_opt **out, int max)
{
	int n = 0;

	for (int i = 0; i < NCOMMON && n < max; i++)
		if (common & common_opts[i].bit)
			out[n++] = common_opts[i].bit == XP_O_JSON && !(common & XP_O_STREAM) ? &json_alone
											: &common_opts[i].o;
	return n;
}

/*
 * Options are taken by their whole names only: getopt_long would take any
 * unique prefix, and a prefix unique today names another option once one
 * is added (--format for --format1). For a long option as typed ("--name",
 * "--name=value") that is none of `longs`: the one it is a prefix of, or
 * NULL (none, or several).
 */
static const char *abbreviates(const char *w, const struct option *longs)
{
	const char *full = NULL;
	size_t n;

	if (strncmp(w, "--", 2) || !w[2])
		return NULL;
	w += 2;
	n = strcspn(w, "=");
	for (; longs->name; longs++) {
		if (strncmp(longs->name, w, n))
			continue;
		if (!longs->name[n] || full)
			return NULL;	/* the option itself, or ambiguous */
		full = longs->name;
	}
	return full;
}

/* "--name" is one of `longs` */
static bool is_long(const char *word, const struct option *longs)
{
	for (; longs->name; longs++)
		if (!strncmp(word, "--", 2) && !strcmp(word + 2, longs->name))
			return true;
	return false;
}

/* The option as the user wrote it, for errors: "-x" inside a bundle, else the word up to any '='. */
static void opt_word(char **argv, char *buf, size_t len)
{
	const char *w = argv[optind - 1];

	if (optopt > 0 && optopt < 256 && strncmp(w, "--", 2))
		snprintf(buf, len, "-%c", optopt);
	else
		snprintf(buf, len, "%.*s", (int)(strncmp(w, "--", 2) ? strlen(w) : strcspn(w, "=")), w);
}

static int common_opt(struct xp_live_opts *o, const char *verb, unsigned int bit, const char *arg)
{
	uint64_t v;

	switch (bit) {
	case XP_O_DURATION:
		if (xp_parse_seconds(arg, &o->duration_s))
			return xp_fail(2, "%s: --duration wants a positive number of seconds, not '%s'", verb, arg);
		return 0;
	case XP_O_INTERVAL:
		/* shorter than this, printing is all the tool would do */
		if (xp_parse_seconds(arg, &o->interval_s) || o->interval_s < 0.01)
			return xp_fail(2, "%s: --interval wants seconds from 0.01 up, not '%s'", verb, arg);
		return 0;
	case XP_O_STREAM: o->stream = true; return 0;
	case XP_O_JSON: o->json = true; return 0;
	case XP_O_VERBOSE: o->verbose = true; return 0;
	case XP_O_NOHIST: o->hist = false; return 0;
	case XP_O_DEVICE:
		if (o->ndevices >= (int)(sizeof(o->devices) / sizeof(o->devices[0])))
			return xp_fail(2, "%s: too many --device options", verb);
		o->devices[o->ndevices++] = arg;
		return 0;
	case XP_O_PID:
		if (xp_parse_u64(arg, 1, 0x7fffffff, &v))
			return xp_fail(2, "%s: --pid wants a process id, not '%s'", verb, arg);
		o->f.pid = (uint32_t)v;
		return 0;
	case XP_O_COMM:
		if (!*arg)
			return xp_fail(2, "%s: --comm wants a task name, not ''", verb);
		if (strlen(arg) >= XP_COMM_LEN)
			return xp_fail(2, "%s: --comm '%s' is longer than a task name (15 characters)", verb, arg);
		o->f.comm = arg;
		return 0;
	case XP_O_CGROUP:
		if (!*arg)
			return xp_fail(2, "%s: --cgroup wants a cgroup v2 directory, not ''", verb);
		o->cgroup = arg;
		return 0;
	}
	return xp_fail(2, "%s: internal error: option %u", verb, bit);
}

int xp_opts_parse(const char *verb, int argc, char **argv, unsigned int common,
		  struct xp_live_opts *lo, const struct xp_optset *sets, int nsets,
		  void (*help)(const void *ctx), const void *help_ctx)
{
	struct option longs[XP_MAX_LONGS];
	char shorts[128] = ":", word[64];
	int n = 0, ns = 1, c;

	lo->hist = true;
#define ADD(o, val)                                                                       \
	do {                                                                              \
		longs[n++] = (struct option){ (o)->name, (o)->arg ? required_argument : no_argument, \
					      NULL, (o)->short_name ? (o)->short_name : (val) }; \
		if ((o)->short_name) {                                                    \
			shorts[ns++] = (char)(o)->short_name;                             \
			if ((o)->arg)                                                     \
				shorts[ns++] = ':';                                       \
		}                                                                         \
	} while (0)
	for (int i = 0; i < NCOMMON; i++)
		if (common & common_opts[i].bit)
			ADD(&common_opts[i].o, VAL_COMMON + i);
	for (int s = 0; s < nsets; s++)
		for (int i = 0; sets[s].opts && sets[s].opts[i].name; i++)
			if (n < XP_MAX_LONGS - 2 && ns < (int)sizeof(shorts) - 4)
				ADD(&sets[s].opts[i], VAL_SET + s * SET_STRIDE + i);
#undef ADD
	longs[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	longs[n] = (struct option){ 0 };
	shorts[ns++] = 'h';
	shorts[ns] = '\0';

	opterr = 0;
	optind = 0;	/* a fresh scan of this argv */
	while ((c = getopt_long(argc, argv, shorts, longs, NULL)) != -1) {
		int set = -1, idx = -1, err;
		/* the word that named the option: before its value when that is a word of its own */
		const char *w = argv[optind - (optarg && optarg == argv[optind - 1] ? 2 : 1)];
		const char *full = abbreviates(w, longs);

		if (full)
			return xp_fail(2, "%s: unknown option '%.*s' (options are not abbreviated: --%s?); see "
					  "'xputrace %s --help'", verb, (int)strcspn(w, "="), w, full, verb);
		if (c == ':' || c == '?') {
			opt_word(argv, word, sizeof(word));
			if (c == ':')
				return xp_fail(2, "%s: %s needs a value", verb, word);
			if (strchr(w, '=') && is_long(word, longs))	/* "--no-hist=1" */
				return xp_fail(2, "%s: %s takes no value", verb, word);
			return xp_fail(2, "%s: unknown option '%s'; see 'xputrace %s --help'", verb, word, verb);
		}
		if (c == 'h') {
			help(help_ctx);
			return -1;
		}
		if (c >= VAL_SET) {
			set = (c - VAL_SET) / SET_STRIDE;
			idx = (c - VAL_SET) % SET_STRIDE;
		} else if (c >= VAL_COMMON) {
			idx = c - VAL_COMMON;
		} else {
			/* a short option: the common one or a set's with that letter */
			for (int i = 0; idx < 0 && i < NCOMMON; i++)
				if ((common & common_opts[i].bit) && common_opts[i].o.short_name == c)
					idx = i;
			for (int s = 0; idx < 0 && s < nsets; s++)
				for (int i = 0; idx < 0 && sets[s].opts && sets[s].opts[i].name; i++)
					if (sets[s].opts[i].short_name == c) {
						set = s;
						idx = i;
					}
		}
		if (idx < 0)
			return xp_fail(2, "%s: unknown option '-%c'", verb, c);
		if (set < 0)
			err = common_opt(lo, verb, common_opts[idx].bit, optarg);
		else
			err = sets[set].fn(sets[set].ctx, idx, optarg);
		if (err)
			return err;
	}
	return 0;
}

int xp_live_targets(struct xp_live_opts *o, const char *verb, struct xp_devices *d)
{
	int err = xp_devices_scan(d, "");

	if (err)
		return xp_fail(1, "%s: reading /proc/devices: %s", verb, strerror(-err));
	for (int i = 0; i < o->ndevices; i++) {
		err = xp_devices_add_path(d, "", o->devices[i]);
		if (err)
			return xp_fail(2, "%s: --device %s: %s", verb, o->devices[i],
				       err == -ENOTTY ? "not a character device" : strerror(-err));
	}
	if (o->cgroup && (err = xp_cgroup_id(o->cgroup, &o->f.cgroup_id)))
		return xp_fail(2, "%s: --cgroup %s: %s", verb, o->cgroup,
			       err == -ENOTDIR ? "not a directory"
			       : err == -EMEDIUMTYPE ? "not a cgroup v2 directory (the cgroup2 file system, "
						       "e.g. under /sys/fs/cgroup)"
						     : strerror(-err));
	return 0;
}

void xp_warn_no_devices(const char *verb, const struct xp_devices *d)
{
	if (!d->nmajors && !d->nextra)
		/* a note, not an error: tracing goes on, for what else the verb traces */
		fprintf(stderr, "note: %s: no GPU/NPU device majors on this machine (drm, accel, nvidia*, kfd): "
				"no device's ioctls are seen unless --device names a node\n", verb);
}
