/* Parsing the flight recorder's trigger conditions (flight_trigger.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/flight_trigger.h"

static const char *const words[] = {
	[XP_TRIG_SIGUSR1] = "sigusr1", [XP_TRIG_ERROR] = "error", [XP_TRIG_OVER] = "over",
	[XP_TRIG_QUEUE] = "queue", [XP_TRIG_RUN] = "run", [XP_TRIG_MISSED] = "missed", [XP_TRIG_XID] = "xid",
};

const char *xp_trigger_word(enum xp_trig_kind k)
{
	return words[k];
}

int xp_parse_time_ns(const char *s, uint64_t *ns)
{
	static const struct { const char *u; double f; } units[] = {
		{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "", 1e9 },
	};
	char *end;
	double v;

	if (!*s || *s == '-' || *s == '+')
		return -EINVAL;
	v = strtod(s, &end);
	if (end == s || !(v > 0))
		return -EINVAL;
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(end, units[i].u) && v * units[i].f < 1e18) {
			*ns = (uint64_t)(v * units[i].f + 0.5);
			return *ns ? 0 : -EINVAL;
		}
	return -EINVAL;
}

/* "EFAULT" or "14": a positive errno, or 0 when it is neither. */
static int parse_errno(const char *s)
{
	char *end;
	long v = strtol(s, &end, 10);

	if (*s >= '0' && *s <= '9')
		return !*end && v > 0 && v < 4096 ? (int)v : 0;
	for (int e = 1; e < 4096; e++) {
		const char *n = strerrorname_np(e);

		if (n && !strcmp(n, s))
			return e;
	}
	return 0;
}

static int bad(char *why, size_t len, const char *spec, const char *what)
{
	snprintf(why, len, "--trigger '%s': %s", spec, what);
	return -EINVAL;
}

int xp_trigger_parse(struct xp_trigger *t, const char *spec, char *why, size_t len)
{
	char buf[128], *cond, *name, *val;

	memset(t, 0, sizeof(*t));
	if (strlen(spec) >= sizeof(buf))
		return bad(why, len, "...", "too long");
	snprintf(t->spec, sizeof(t->spec), "%s", spec);
	if (!strcmp(spec, "sigusr1")) {
		t->kind = XP_TRIG_SIGUSR1;
		snprintf(t->label, sizeof(t->label), "sigusr1");
		return 0;
	}
	snprintf(buf, sizeof(buf), "%s", spec);
	if (!(cond = strchr(buf, ':')) || cond == buf || cond - buf >= (long)sizeof(t->cap))
		return bad(why, len, spec, "wants sigusr1 or CAP:CONDITION[=VALUE][:NAME]");
	*cond++ = '\0';
	memcpy(t->cap, buf, strlen(buf) + 1);	/* shorter than cap: checked */
	if ((name = strchr(cond, ':'))) {
		*name++ = '\0';
		if (!*name || strlen(name) >= sizeof(t->name))
			return bad(why, len, spec, "the name after the condition is empty or too long");
		snprintf(t->name, sizeof(t->name), "%s", name);
	}
	if ((val = strchr(cond, '=')))
		*val++ = '\0';
	for (t->kind = XP_TRIG_ERROR; t->kind <= XP_TRIG_XID && strcmp(cond, words[t->kind]); t->kind++)
		;
	if (t->kind > XP_TRIG_XID)
		return bad(why, len, spec, "the condition is error, over, queue, run, missed or xid");
	if (t->kind == XP_TRIG_ERROR && val && !(t->err = parse_errno(val)))
		return bad(why, len, spec, "wants an errno after error= (EFAULT, 14)");
	if ((t->kind == XP_TRIG_OVER || t->kind == XP_TRIG_QUEUE || t->kind == XP_TRIG_RUN) &&
	    (!val || xp_parse_time_ns(val, &t->over_ns))) {
		snprintf(why, len, "--trigger '%s': wants a time after %s= (5ms, 200us, 1s)", spec, cond);
		return -EINVAL;
	}
	if (t->kind == XP_TRIG_MISSED && val)
		return bad(why, len, spec, "missed takes no value");
	if (t->kind == XP_TRIG_XID) {
		char *end;
		long v = val ? strtol(val, &end, 10) : -1;

		if (val && (!*val || *end || v < 0 || v > 65535))
			return bad(why, len, spec, "wants an Xid code after xid= (79)");
		t->err = (int)v;
	}
	snprintf(t->label, sizeof(t->label), "%s-%s", t->cap, cond);
	return 0;
}
