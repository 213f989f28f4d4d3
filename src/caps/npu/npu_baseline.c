/* npu: the baseline (--baseline): a small JSON reader for the ratios of an earlier summary, and what moved since */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/hash_table.h"
#include "caps/npu/npu_stats.h"
#include "core/tracefile.h"

/* ---- the baseline: a small JSON reader for the numbers of an npu summary ---- */

struct jr {
	const char *p;
	char path[160];
	int depth;
	struct xp_npu_ratios *r;
	bool is_npu, has_ratios;
};

static void ws(struct jr *j)
{
	while (*j->p && isspace((unsigned char)*j->p))
		j->p++;
}

/* A string into buf (escapes kept as the letter after the backslash; enough for keys). */
static int jstr(struct jr *j, char *buf, size_t len)
{
	size_t n = 0;

	if (*j->p != '"')
		return -EINVAL;
	j->p++;
	while (*j->p && *j->p != '"') {
		char c = *j->p++;

		if ((unsigned char)c < 0x20)
			return -EINVAL;
		if (c == '\\') {
			if (!*j->p)
				return -EINVAL;
			c = *j->p++;
			if (c == 'u') {
				for (int i = 0; i < 4; i++, j->p++)
					if (!isxdigit((unsigned char)*j->p))
						return -EINVAL;
				c = '?';
			}
		}
		if (n + 1 < len)
			buf[n++] = c;
	}
	if (*j->p != '"')
		return -EINVAL;
	j->p++;
	if (len)
		buf[n] = '\0';
	return 0;
}

static void number_at(struct jr *j, double v)
{
	const char *q = j->path;

	if (strncmp(q, "ratios.", 7))
		return;
	q += 7;
	j->has_ratios = true;
	if (!strcmp(q, "mmu_pages_per_buffer")) {
		j->r->pages_per_buffer = v;
		j->r->has_pages_per_buffer = true;
	} else if (!strcmp(q, "ipc_messages_per_job")) {
		j->r->ipc_per_job = v;
		j->r->has_ipc_per_job = true;
	} else if (!strncmp(q, "calls_per_s.", 12)) {
		for (int c = 0; c < XP_NPU_NCAT; c++)
			if (!strcmp(q + 12, xp_npu_cat_key(c)))
				j->r->per_s[c] = v;
	}
}

static int jvalue(struct jr *j);

static int jcontainer(struct jr *j, bool obj)
{
	size_t base = strlen(j->path);
	int err, idx = 0;

	if (++j->depth > 64)
		return -EINVAL;
	j->p++;
	ws(j);
	if (*j->p == (obj ? '}' : ']')) {
		j->p++;
		j->depth--;
		return 0;
	}
	for (;;) {
		ws(j);
		if (obj) {
			char key[64];

			if ((err = jstr(j, key, sizeof(key))))
				return err;
			ws(j);
			if (*j->p++ != ':')
				return -EINVAL;
			snprintf(j->path + base, sizeof(j->path) - base, "%s%s", base ? "." : "", key);
		} else {
			snprintf(j->path + base, sizeof(j->path) - base, "%s%d", base ? "." : "", idx++);
		}
		ws(j);
		if ((err = jvalue(j)))
			return err;
		j->path[base] = '\0';
		ws(j);
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p++ != (obj ? '}' : ']'))
			return -EINVAL;
		j->depth--;
		return 0;
	}
}

static int jvalue(struct jr *j)
{
	char buf[64];
	int err;

	ws(j);
	switch (*j->p) {
	case '{': return jcontainer(j, true);
	case '[': return jcontainer(j, false);
	case '"':
		if ((err = jstr(j, buf, sizeof(buf))))
			return err;
		if (!strcmp(j->path, "command") && !strcmp(buf, "npu"))
			j->is_npu = true;
		return 0;
	}
	if (!strncmp(j->p, "true", 4) || !strncmp(j->p, "null", 4)) {
		j->p += 4;
		return 0;
	}
	if (!strncmp(j->p, "false", 5)) {
		j->p += 5;
		return 0;
	}
	if (*j->p == '-' || isdigit((unsigned char)*j->p)) {
		char *end;
		double v = strtod(j->p, &end);

		if (end == j->p || !isfinite(v))
			return -EINVAL;
		j->p = end;
		number_at(j, v);
		return 0;
	}
	return -EINVAL;
}

int xp_npu_baseline_parse(const char *text, struct xp_npu_ratios *r, char *why, size_t whylen)
{
	struct jr j = { .p = text, .r = r };

	memset(r, 0, sizeof(*r));
	ws(&j);
	if (*j.p != '{' || jvalue(&j)) {
		snprintf(why, whylen, "not a JSON document (at byte %zu)", (size_t)(j.p - text));
		return -EINVAL;
	}
	if (!j.is_npu || !j.has_ratios) {
		snprintf(why, whylen, "not the JSON summary of 'xputrace npu' (no \"ratios\")");
		return -EINVAL;
	}
	return 0;
}

static bool moved(double base, double now, double thr)
{
	if (base == 0)
		return now != 0;
	return fabs(now - base) / base > thr;
}

int xp_npu_compare(const struct xp_npu_ratios *base, const struct xp_npu_ratios *now,
		   double threshold, struct xp_npu_moved *out, int max)
{
	int n = 0;

#define MOVED(cond, label, b, v)                                                         \
	do {                                                                             \
		if ((cond) && moved((b), (v), threshold) && n < max) {                   \
			snprintf(out[n].what, sizeof(out[n].what), "%s", (label));       \
			out[n].base = (b);                                               \
			out[n].now = (v);                                                \
			n++;                                                             \
		}                                                                        \
	} while (0)
	MOVED(base->has_pages_per_buffer && now->has_pages_per_buffer, "MMU pages mapped per buffer",
	      base->pages_per_buffer, now->pages_per_buffer);
	MOVED(base->has_ipc_per_job && now->has_ipc_per_job, "IPC messages per job", base->ipc_per_job,
	      now->ipc_per_job);
	for (int c = 0; c < XP_NPU_NCAT; c++) {
		char label[48];

		snprintf(label, sizeof(label), "%s calls per second", xp_npu_cat_name(c));
		MOVED(true, label, base->per_s[c], now->per_s[c]);
	}
#undef MOVED
	return n;
}
