/* Metric families and series, and the Prometheus / OpenMetrics text writers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sinks/metrics.h"

void xp_metrics_init(struct xp_metrics *m, size_t max_series)
{
	memset(m, 0, sizeof(*m));
	m->max_series = max_series;
}

void xp_metrics_free(struct xp_metrics *m)
{
	/* folded-key entries are small stubs of their own: told from the series
	 * by their fam, so freed while the series the other slots hold still are */
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i] && m->slots[i]->fam < 0)
			free(m->slots[i]);
	for (int f = 0; f < m->nfams; f++) {
		struct xp_series *s = m->fams[f].first, *n;

		for (; s; s = n) {
			n = s->next;
			free(s->buckets);
			free(s->labels);
			free(s);
		}
	}
	free(m->slots);
	free(m->fams);
	memset(m, 0, sizeof(*m));
}

int xp_metrics_family(struct xp_metrics *m, const char *name, const char *help, const char *unit,
		      enum xp_metric_type type, double scale, bool bounded)
{
	/* one family of a name, whoever declares it first: rows share it (GPU busy time) */
	for (int i = 0; i < m->nfams; i++)
		if (!strcmp(m->fams[i].name, name))
			return m->fams[i].type == type ? i : -EEXIST;
	if (m->nfams == m->capfams) {
		int nc = m->capfams ? m->capfams * 2 : 16;
		struct xp_metric_fam *nf = realloc(m->fams, (size_t)nc * sizeof(*nf));

		if (!nf)
			return -ENOMEM;
		m->fams = nf;
		m->capfams = nc;
	}
	m->fams[m->nfams] = (struct xp_metric_fam){
		.name = name, .help = help, .unit = unit, .type = type,
		.scale = scale ? scale : 1.0, .bounded = bounded,
	};
	return m->nfams++;
}

int xp_metrics_histogram(struct xp_metrics *m, const char *name, const char *help, const char *unit,
			 const uint64_t *le, int nle, double scale, bool bounded)
{
	int f = xp_metrics_family(m, name, help, unit, XP_METRIC_HISTOGRAM, scale, bounded);

	if (f >= 0) {
		m->fams[f].le = le;
		m->fams[f].nle = nle;
	}
	return f;
}

void xp_series_observe(const struct xp_metrics *m, struct xp_series *s, uint64_t v)
{
	const struct xp_metric_fam *f = &m->fams[s->fam];
	int b = 0;

	while (b < f->nle && v > f->le[b])
		b++;
	s->buckets[b]++;
	s->value += v;
}

static uint64_t key_hash(int fam, const struct xp_metric_key *k)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ (uint64_t)(unsigned)fam;

	for (int i = 0; i < 4; i++) {
		h ^= k->k[i];
		h *= 0xff51afd7ed558ccdull;
		h ^= h >> 33;
	}
	return h;
}

/*
 * A slot holds a series of family `fam`, or a folded key's stub: fam is
 * then -1 - fam and `next` points at the family's `other` series.
 */
static int slot_fam(const struct xp_series *s)
{
	return s->fam < 0 ? -1 - s->fam : s->fam;
}

static struct xp_series **find_slot(struct xp_series **slots, size_t cap, int fam,
				    const struct xp_metric_key *k)
{
	size_t i = key_hash(fam, k) & (cap - 1);

	while (slots[i] && !(slot_fam(slots[i]) == fam && !memcmp(&slots[i]->key, k, sizeof(*k))))
		i = (i + 1) & (cap - 1);
	return &slots[i];
}

static int grow(struct xp_metrics *m)
{
	size_t nc = m->cap ? m->cap * 2 : 256;
	struct xp_series **ns = calloc(nc, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (size_t i = 0; i < m->cap; i++)
		if (m->slots[i])
			*find_slot(ns, nc, slot_fam(m->slots[i]), &m->slots[i]->key) = m->slots[i];
	free(m->slots);
	m->slots = ns;
	m->cap = nc;
	return 0;
}

static struct xp_series *new_series(struct xp_metric_fam *f, int fam, const struct xp_metric_key *k,
				    const char *labels)
{
	struct xp_series *s = calloc(1, sizeof(*s));

	if (!s || !(s->labels = strdup(labels)) ||
	    (f->type == XP_METRIC_HISTOGRAM && !(s->buckets = calloc((size_t)f->nle + 1, sizeof(uint64_t))))) {
		if (s)
			free(s->labels);
		free(s);
		return NULL;
	}
	s->key = *k;
	s->fam = fam;
	if (f->last)
		f->last->next = s;
	else
		f->first = s;
	f->last = s;
	return s;
}

/* Folded keys remembered, so each is counted once: at most this many per kept series. */
#define FOLDED_KEYS_PER_SERIES 16

struct xp_series *xp_metrics_series(struct xp_metrics *m, int fam, const struct xp_metric_key *key,
				    void (*labels)(void *ctx, char *buf, size_t len), void *ctx)
{
	struct xp_metric_fam *f = &m->fams[fam];
	struct xp_series **slot, *s;
	char buf[1024];
	bool fold;

	if (m->cap) {
		slot = find_slot(m->slots, m->cap, fam, key);
		if (*slot)
			return (*slot)->fam < 0 ? (*slot)->next : *slot;
	}
	if ((m->n + 1) * 2 > m->cap && grow(m))
		return NULL;
	slot = find_slot(m->slots, m->cap, fam, key);
	fold = f->bounded && m->max_series && m->nbounded >= m->max_series;
	if (!fold) {
		buf[0] = '\0';
		labels(ctx, buf, sizeof(buf));
		if (!(s = new_series(f, fam, key, buf)))
			return NULL;
		m->nbounded += f->bounded;
		*slot = s;
		m->n++;
		return s;
	}
	if (!f->other) {
		/* its own key: all ones, which no feeder's ids make */
		struct xp_metric_key ok = { { ~0ull, ~0ull, ~0ull, ~0ull } };

		if (!(f->other = new_series(f, fam, &ok, "other=\"true\"")))
			return NULL;
	}
	m->folded++;
	/* remembered, so that its next event is not counted as another folded series */
	if (m->nfolded_keys < m->max_series * FOLDED_KEYS_PER_SERIES &&
	    (s = calloc(1, sizeof(*s)))) {
		s->key = *key;
		s->fam = -1 - fam;
		s->next = f->other;
		*slot = s;
		m->n++;
		m->nfolded_keys++;
	}
	return f->other;
}

/* The length of a valid UTF-8 sequence at p (at most n bytes), or 0. */
static size_t utf8_len(const unsigned char *p, size_t n)
{
	size_t len;
	uint32_t cp;

	if (p[0] < 0x80)
		return 1;
	if ((p[0] & 0xe0) == 0xc0)
		len = 2, cp = p[0] & 0x1f;
	else if ((p[0] & 0xf0) == 0xe0)
		len = 3, cp = p[0] & 0x0f;
	else if ((p[0] & 0xf8) == 0xf0)
		len = 4, cp = p[0] & 0x07;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (p[i] & 0x3f);
	}
	/* overlong forms, surrogates and past U+10FFFF are not UTF-8 */
	if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return 0;
	return len;
}

char *xp_labels_add(char *buf, size_t len, const char *name, const char *value)
{
	size_t start = strlen(buf), k = start;
	const unsigned char *v = (const unsigned char *)value;
	size_t vn = strlen(value);

#define PUT(c)                                  \
	do {                                    \
		if (k + 1 >= len)               \
			goto full;              \
		buf[k++] = (char)(c);           \
	} while (0)
	if (start)
		PUT(',');
	for (const char *p = name; *p; p++)
		PUT(*p);
	PUT('=');
	PUT('"');
	for (size_t i = 0; i < vn;) {
		size_t n = utf8_len(v + i, vn - i);

		if (v[i] == '\\' || v[i] == '"') {
			PUT('\\');
			PUT(v[i]);
		} else if (v[i] == '\n') {
			PUT('\\');
			PUT('n');
		} else if (!n || v[i] < 0x20 || v[i] == 0x7f) {
			PUT('?');
			n = n ? n : 1;
		} else {
			for (size_t j = 0; j < n; j++)
				PUT(v[i + j]);
		}
		i += n ? n : 1;
	}
	/* room for the closing quote and the terminator */
	if (k + 2 > len)
		goto full;
	buf[k++] = '"';
	buf[k] = '\0';
	return buf;
full:
	buf[start] = '\0';
	return buf;
#undef PUT
}

const char *xp_labels_get(const char *labels, const char *name, char *buf, size_t len)
{
	size_t nl = strlen(name);
	const char *p = labels;

	while (*p) {
		const char *eq = strchr(p, '=');
		bool match;
		size_t k = 0;

		if (!eq || eq[1] != '"')
			return NULL;
		match = (size_t)(eq - p) == nl && !memcmp(p, name, nl);
		for (p = eq + 2; *p && *p != '"'; p++) {
			char c = *p;

			if (c == '\\' && p[1])
				c = *++p == 'n' ? '\n' : *p;
			if (match && k + 1 < len)
				buf[k++] = c;
		}
		if (match) {
			buf[k] = '\0';
			return buf;
		}
		if (*p == '"')
			p++;
		if (*p == ',')
			p++;
	}
	return NULL;
}

/* HELP text: backslash and newline escaped, as both formats want. */
static void put_help(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

static void put_value(FILE *f, const struct xp_metric_fam *fam, uint64_t v)
{
	if (fam->scale == 1.0)
		fprintf(f, "%llu", (unsigned long long)v);
	else
		fprintf(f, "%.9g", (double)v * fam->scale);
}

/* NAME{LABELS[,EXTRA]} VALUE: one sample line */
static void put_sample(FILE *f, const char *name, const char *suffix, const char *labels, const char *extra)
{
	fprintf(f, "%s%s", name, suffix);
	if (labels[0] || extra)
		fprintf(f, "{%s%s%s}", labels, labels[0] && extra ? "," : "", extra ? extra : "");
	fputc(' ', f);
}

/* A histogram's series: cumulative _bucket lines up to +Inf, _sum, _count. */
static void put_histogram(FILE *f, const struct xp_metric_fam *fam, const struct xp_series *s)
{
	uint64_t n = 0;
	char le[48];

	for (int b = 0; b <= fam->nle; b++) {
		n += s->buckets[b];
		if (b < fam->nle)
			snprintf(le, sizeof(le), "le=\"%.9g\"", (double)fam->le[b] * fam->scale);
		else
			snprintf(le, sizeof(le), "le=\"+Inf\"");
		put_sample(f, fam->name, "_bucket", s->labels, le);
		fprintf(f, "%llu\n", (unsigned long long)n);
	}
	put_sample(f, fam->name, "_sum", s->labels, NULL);
	put_value(f, fam, s->value);
	fputc('\n', f);
	put_sample(f, fam->name, "_count", s->labels, NULL);
	fprintf(f, "%llu\n", (unsigned long long)n);
}

void xp_metrics_write(FILE *f, const struct xp_metrics *m, bool om)
{
	static const char *const types[] = { "counter", "gauge", "histogram" };

	for (int i = 0; i < m->nfams; i++) {
		const struct xp_metric_fam *fam = &m->fams[i];
		bool counter = fam->type == XP_METRIC_COUNTER;
		/* Prometheus 0.0.4 names a counter by its samples (_total); OpenMetrics by its family */
		const char *suffix = counter ? "_total" : "";
		const char *type = types[fam->type];

		if (om) {
			fprintf(f, "# TYPE %s %s\n", fam->name, type);
			if (fam->unit)
				fprintf(f, "# UNIT %s %s\n", fam->name, fam->unit);
			fprintf(f, "# HELP %s ", fam->name);
		} else {
			fprintf(f, "# HELP %s%s ", fam->name, suffix);
		}
		put_help(f, fam->help);
		fputc('\n', f);
		if (!om)
			fprintf(f, "# TYPE %s%s %s\n", fam->name, suffix, type);
		for (const struct xp_series *s = fam->first; s; s = s->next) {
			if (fam->type == XP_METRIC_HISTOGRAM) {
				put_histogram(f, fam, s);
				continue;
			}
			put_sample(f, fam->name, suffix, s->labels, NULL);
			put_value(f, fam, s->value);
			fputc('\n', f);
		}
	}
	if (om)
		fputs("# EOF\n", f);
}

/* The q of one media range ("type/sub;version=1.0.0;q=0.5"): 1 when not given. */
static double media_q(const char *p, size_t n)
{
	for (size_t i = 0; i + 2 < n; i++)
		if (p[i] == ';') {
			size_t j = i + 1;

			while (j < n && (p[j] == ' ' || p[j] == '\t'))
				j++;
			if (j + 1 < n && (p[j] == 'q' || p[j] == 'Q') && p[j + 1] == '=')
				return strtod(p + j + 2, NULL);
		}
	return 1.0;
}

static double max_d(double a, double b)
{
	return a > b ? a : b;
}

bool xp_metrics_wants_openmetrics(const char *accept)
{
	static const char om[] = "application/openmetrics-text";
	double om_q = 0, other_q = 0;
	const char *p = accept;

	if (!accept)
		return false;
	while (*p) {
		size_t n = strcspn(p, ","), t;
		const char *s = p;

		while (n && (*s == ' ' || *s == '\t'))
			s++, n--;
		t = strcspn(s, ";,");
		if (t > n)
			t = n;
		while (t && (s[t - 1] == ' ' || s[t - 1] == '\t'))
			t--;
		if (t == sizeof(om) - 1 && !strncasecmp(s, om, t))
			om_q = max_d(om_q, media_q(s, n));
		else
			other_q = max_d(other_q, media_q(s, n));
		p = s + n;
		if (*p == ',')
			p++;
	}
	return om_q > 0 && om_q >= other_q;
}

uint64_t xp_metrics_pid_cgroup(const struct xp_metrics_in *in, uint32_t pid, uint64_t known)
{
	return in->pids ? xp_pid_cgroup(in->pids, pid, known) : known;
}

int xp_metrics_declare(struct xp_metrics *m, const struct xp_metric_def *d, int n, void *state)
{
	for (int i = 0; i < n; i++) {
		double scale = d[i].unit && !strcmp(d[i].unit, "seconds") ? 1e-9 : 1;
		int *at = (int *)((char *)state + d[i].at);

		if (d[i].type == XP_METRIC_HISTOGRAM)
			*at = xp_metrics_histogram(m, d[i].name, d[i].help, d[i].unit, d[i].le, d[i].nle, scale, true);
		else
			*at = xp_metrics_family(m, d[i].name, d[i].help, d[i].unit, d[i].type, scale, true);
		if (*at < 0)
			return -ENOMEM;
	}
	return 0;
}

static const char *const source_order[XP_SOURCE_RANKS] = { "drm_sched", "cupti", "fdinfo" };

const char *xp_source_of_rank(int rank)
{
	return rank >= 0 && rank < XP_SOURCE_RANKS ? source_order[rank] : "";
}

int xp_source_rank(const char *labels)
{
	char src[16];

	if (!xp_labels_get(labels, "source", src, sizeof(src)))
		return 0;
	for (int i = 0; i < XP_SOURCE_RANKS; i++)
		if (!strcmp(src, source_order[i]))
			return i;
	return XP_SOURCE_RANKS - 1;
}

void xp_rec_labels(void *ctx, char *buf, size_t len)
{
	const struct xp_rec_labels *c = ctx;

	if (c->task)
		xp_metrics_task_labels(c->in, c->cgroup_id, c->pid, c->comm, buf, len);
	for (int i = 0; i < 3 && c->name[i]; i++)
		xp_labels_add(buf, len, c->name[i], c->value[i]);
}

void xp_metrics_task_labels(const struct xp_metrics_in *in, uint64_t cgroup_id, uint32_t pid,
			    const char *comm, char *buf, size_t len)
{
	char v[24];

	in->cgroup_labels(in->ctx, cgroup_id, buf, len);
	if (!in->per_process)
		return;
	snprintf(v, sizeof(v), "%u", pid);
	xp_labels_add(buf, len, "pid", v);
	snprintf(v, sizeof(v), "%.16s", comm);
	xp_labels_add(buf, len, "comm", v);
}
