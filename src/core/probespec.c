/* Probe specifications and key lists (probespec.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/probespec.h"

static const struct {
	const char *name, *abbrev;
	enum xp_probe_kind kind;
} kinds[] = {
	{ "tracepoint", "t", XP_PROBE_TRACEPOINT },
	{ "kprobe", "k", XP_PROBE_KPROBE },
	{ "kretprobe", "kr", XP_PROBE_KRETPROBE },
	{ "fentry", "f", XP_PROBE_FENTRY },
	{ "fexit", "fr", XP_PROBE_FEXIT },
	{ "uprobe", "u", XP_PROBE_UPROBE },
	{ "uretprobe", "ur", XP_PROBE_URETPROBE },
};
#define NKINDS (sizeof(kinds) / sizeof(kinds[0]))

const char *xp_probe_kind_name(enum xp_probe_kind k)
{
	for (size_t i = 0; i < NKINDS; i++)
		if (kinds[i].kind == k)
			return kinds[i].name;
	return "?";
}

bool xp_probe_is_return(enum xp_probe_kind k)
{
	return k == XP_PROBE_KRETPROBE || k == XP_PROBE_FEXIT || k == XP_PROBE_URETPROBE;
}

bool xp_probe_args_at_return(enum xp_probe_kind k)
{
	return k == XP_PROBE_FEXIT;	/* the trampoline saved them */
}

bool xp_probe_has_args(enum xp_probe_kind k)
{
	return k != XP_PROBE_TRACEPOINT;
}

/* Names of events, functions and symbols: no spaces, slashes or colons. */
static bool ident_ok(const char *s, size_t n, bool symbol)
{
	if (!n)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = s[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')
			continue;
		/* C++ and versioned symbols, GCC clones (foo.isra.0) */
		if (symbol && (c == '.' || c == '@' || c == '$'))
			continue;
		return false;
	}
	return true;
}

static int copy(char *dst, size_t cap, const char *s, size_t n)
{
	if (n >= cap)
		return -1;
	memcpy(dst, s, n);
	dst[n] = '\0';
	return 0;
}

int xp_probe_parse(const char *spec, struct xp_probe *p, char *err, size_t len)
{
	const char *colon = strchr(spec, ':'), *rest, *sep;
	size_t i;

	memset(p, 0, sizeof(*p));
	if (!colon) {
		snprintf(err, len, "probe '%s': want KIND:..., e.g. tracepoint:GROUP:EVENT, kprobe:FUNC, "
				   "uprobe:LIB:SYMBOL", spec);
		return -EINVAL;
	}
	for (i = 0; i < NKINDS; i++)
		if ((strlen(kinds[i].name) == (size_t)(colon - spec) &&
		     !strncmp(spec, kinds[i].name, (size_t)(colon - spec))) ||
		    (strlen(kinds[i].abbrev) == (size_t)(colon - spec) &&
		     !strncmp(spec, kinds[i].abbrev, (size_t)(colon - spec))))
			break;
	if (i == NKINDS) {
		snprintf(err, len, "probe '%s': unknown kind '%.*s' (tracepoint, kprobe, kretprobe, fentry, "
				   "fexit, uprobe, uretprobe)", spec, (int)(colon - spec), spec);
		return -EINVAL;
	}
	p->kind = kinds[i].kind;
	rest = colon + 1;
	switch (p->kind) {
	case XP_PROBE_TRACEPOINT:
		sep = strchr(rest, ':');
		if (!sep || !ident_ok(rest, (size_t)(sep - rest), false) ||
		    !ident_ok(sep + 1, strlen(sep + 1), false) ||
		    copy(p->group, sizeof(p->group), rest, (size_t)(sep - rest)) ||
		    copy(p->name, sizeof(p->name), sep + 1, strlen(sep + 1))) {
			snprintf(err, len, "probe '%s': want tracepoint:GROUP:EVENT", spec);
			return -EINVAL;
		}
		return 0;
	case XP_PROBE_KPROBE:
	case XP_PROBE_KRETPROBE:
	case XP_PROBE_FENTRY:
	case XP_PROBE_FEXIT:
		if (!ident_ok(rest, strlen(rest), true) || copy(p->name, sizeof(p->name), rest, strlen(rest))) {
			snprintf(err, len, "probe '%s': want %s:FUNCTION", spec, kinds[i].name);
			return -EINVAL;
		}
		return 0;
	case XP_PROBE_UPROBE:
	case XP_PROBE_URETPROBE:
		sep = strrchr(rest, ':');
		if (!sep || sep == rest || !ident_ok(sep + 1, strlen(sep + 1), true) ||
		    copy(p->path, sizeof(p->path), rest, (size_t)(sep - rest)) ||
		    copy(p->name, sizeof(p->name), sep + 1, strlen(sep + 1))) {
			snprintf(err, len, "probe '%s': want %s:LIBRARY:SYMBOL", spec, kinds[i].name);
			return -EINVAL;
		}
		return 0;
	}
	return -EINVAL;
}

const char *xp_probe_str(const struct xp_probe *p, char *buf, size_t len)
{
	if (p->kind == XP_PROBE_TRACEPOINT)
		snprintf(buf, len, "tracepoint:%s:%s", p->group, p->name);
	else if (p->kind == XP_PROBE_UPROBE || p->kind == XP_PROBE_URETPROBE)
		snprintf(buf, len, "%s:%s:%s", xp_probe_kind_name(p->kind), p->path, p->name);
	else
		snprintf(buf, len, "%s:%s", xp_probe_kind_name(p->kind), p->name);
	return buf;
}

int xp_key_arg(const char *name)
{
	if (!strncmp(name, "arg", 3) && name[3] >= '0' && name[3] <= '5' && !name[4])
		return name[3] - '0';
	return -1;
}

int xp_keyspec_parse(const char *s, struct xp_keyspec *k, char *err, size_t len)
{
	const char *p = s;

	memset(k, 0, sizeof(*k));
	for (;;) {
		const char *comma = strchr(p, ',');
		size_t n = comma ? (size_t)(comma - p) : strlen(p);

		if (!ident_ok(p, n, false) || (*p >= '0' && *p <= '9')) {
			snprintf(err, len, "--key '%s': want FIELD[,FIELD] (field names, tid, pid or arg0..arg5)", s);
			return -EINVAL;
		}
		if (k->n == XP_KEY_MAX) {
			snprintf(err, len, "--key '%s': at most %d fields", s, XP_KEY_MAX);
			return -EINVAL;
		}
		if (n >= XP_KEY_NAME_LEN) {
			snprintf(err, len, "--key '%s': a field name is longer than %d characters", s,
				 XP_KEY_NAME_LEN - 1);
			return -EINVAL;
		}
		memcpy(k->name[k->n], p, n);
		k->name[k->n++][n] = '\0';
		if (!comma)
			break;
		p = comma + 1;
	}
	if (k->n == 2 && !strcmp(k->name[0], k->name[1])) {
		snprintf(err, len, "--key '%s': the same field twice", s);
		return -EINVAL;
	}
	return 0;
}

int xp_lat_preset_get(const char *name, struct xp_lat_preset *p, char *err, size_t len)
{
	memset(p, 0, sizeof(*p));
	if (!strncmp(name, "syscall:", 8)) {
		const char *sc = name + 8;

		if (!ident_ok(sc, strlen(sc), false) || strlen(sc) > 64) {
			snprintf(err, len, "--preset '%s': want syscall:NAME, e.g. syscall:clock_nanosleep", name);
			return -EINVAL;
		}
		snprintf(p->from[0], sizeof(p->from[0]), "tracepoint:syscalls:sys_enter_%s", sc);
		snprintf(p->to[0], sizeof(p->to[0]), "tracepoint:syscalls:sys_exit_%s", sc);
		snprintf(p->key[0], sizeof(p->key[0]), "tid");
		return 0;
	}
	if (!strcmp(name, "iopf")) {
		/* the SMMU fault events where a kernel has them */
		snprintf(p->from[0], sizeof(p->from[0]), "tracepoint:smmu:io_fault_entry");
		snprintf(p->to[0], sizeof(p->to[0]), "tracepoint:smmu:io_fault_exit");
		snprintf(p->key[0], sizeof(p->key[0]), "dev,pasid");
		/* else mainline's report of a device's IO page fault to the IOMMU core */
		snprintf(p->from[1], sizeof(p->from[1]), "kprobe:iommu_report_device_fault");
		snprintf(p->to[1], sizeof(p->to[1]), "kretprobe:iommu_report_device_fault");
		snprintf(p->key[1], sizeof(p->key[1]), "tid");
		return 0;
	}
	snprintf(err, len, "--preset '%s': unknown (syscall:NAME, iopf)", name);
	return -EINVAL;
}
