#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "caps/ioctl/ioctl_stats.h"
#include "core/tracefile.h"

/* Its records: fixed fields, stored in trace files and checked on reading. */
static const struct xp_rec_field ioctl_fields[] = {
	XP_REC_HDR_FIELDS(struct xp_ioctl_rec),
	XP_REC_F(struct xp_ioctl_rec, lat_ns, XP_FIELD_UINT),
	XP_REC_F(struct xp_ioctl_rec, arg, XP_FIELD_UINT),
	XP_REC_F(struct xp_ioctl_rec, cgroup_id, XP_FIELD_UINT),
	XP_REC_F(struct xp_ioctl_rec, cmd, XP_FIELD_UINT),
	XP_REC_F(struct xp_ioctl_rec, dev, XP_FIELD_UINT),
	XP_REC_F(struct xp_ioctl_rec, fd, XP_FIELD_INT),
	XP_REC_F(struct xp_ioctl_rec, ret, XP_FIELD_INT),
	XP_REC_F(struct xp_ioctl_rec, comm, XP_FIELD_CHARS),
};

/* A process calls few commands on few files with few argument pointers: interned. */
static const struct xp_rec_pack ioctl_pack[] = {
	XP_REC_P(struct xp_ioctl_rec, lat_ns, XP_PACK_UINT),
	XP_REC_P(struct xp_ioctl_rec, arg, XP_PACK_INTERN),
	XP_REC_P(struct xp_ioctl_rec, cgroup_id, XP_PACK_INTERN),
	XP_REC_P(struct xp_ioctl_rec, cmd, XP_PACK_INTERN),
	XP_REC_P(struct xp_ioctl_rec, dev, XP_PACK_INTERN),
	XP_REC_P(struct xp_ioctl_rec, fd, XP_PACK_SINT),
	XP_REC_P(struct xp_ioctl_rec, ret, XP_PACK_SINT),
	XP_REC_P(struct xp_ioctl_rec, comm, XP_PACK_INTERN),
};

const struct xp_rec_kind xp_ioctl_rec_kind = {
	.type = XP_REC_IOCTL, .min_size = sizeof(struct xp_ioctl_rec), .name = "ioctl",
	.fields = ioctl_fields, .nfields = sizeof(ioctl_fields) / sizeof(ioctl_fields[0]),
	.pack = ioctl_pack, .npack = sizeof(ioctl_pack) / sizeof(ioctl_pack[0]),
};

void xp_ioctl_table_init(struct xp_ioctl_table *t)
{
	memset(t, 0, sizeof(*t));
	t->max_keys = XP_IOCTL_DEFAULT_MAX_KEYS;
}

void xp_ioctl_table_reset(struct xp_ioctl_table *t)
{
	for (size_t i = 0; i < t->cap; i++) {
		free(t->slots[i]);
		t->slots[i] = NULL;
	}
	t->n = 0;
	t->n_other = 0;
	t->folded_calls = 0;
	t->kernel_folded = 0;
}

void xp_ioctl_table_free(struct xp_ioctl_table *t)
{
	size_t max_keys = t->max_keys;

	xp_ioctl_table_reset(t);
	free(t->slots);
	memset(t, 0, sizeof(*t));
	t->max_keys = max_keys;
}

static size_t key_hash(const struct xp_ioctl_key *k)
{
	uint64_t h = ((uint64_t)k->pid << 32 | k->dev) * 0x9e3779b97f4a7c15ULL;

	h ^= (uint64_t)k->cmd * 0xc2b2ae3d27d4eb4fULL;
	return (size_t)(h ^ (h >> 29));
}

static int key_eq(const struct xp_ioctl_key *a, const struct xp_ioctl_key *b)
{
	return a->pid == b->pid && a->dev == b->dev && a->cmd == b->cmd;
}

static int grow(struct xp_ioctl_table *t)
{
	size_t ncap = t->cap ? t->cap * 2 : 64;
	struct xp_ioctl_entry **ns = calloc(ncap, sizeof(*ns));

	if (!ns)
		return -ENOMEM;
	for (size_t i = 0; i < t->cap; i++) {
		struct xp_ioctl_entry *e = t->slots[i];

		if (!e)
			continue;
		size_t j = key_hash(&e->key) & (ncap - 1);

		while (ns[j])
			j = (j + 1) & (ncap - 1);
		ns[j] = e;
	}
	free(t->slots);
	t->slots = ns;
	t->cap = ncap;
	return 0;
}

/*
 * The row of key k; past max_keys, the (other) row of its device and
 * command; past max_keys (other) rows too (a program issuing endless
 * distinct commands), the one (other) row of device 0, command 0 that the
 * kernel side also folds into. So a table holds at most 2 * max_keys + 1
 * rows whatever it is fed.
 */
static struct xp_ioctl_entry *row(struct xp_ioctl_table *t, const struct xp_ioctl_key *k, bool *folded)
{
	struct xp_ioctl_key other = { .pid = XP_IOCTL_PID_OTHER, .dev = k->dev, .cmd = k->cmd };
	static const struct xp_ioctl_key last = { .pid = XP_IOCTL_PID_OTHER };
	struct xp_ioctl_entry *e;
	size_t i;

	if ((t->n + 1) * 2 > t->cap && grow(t))
		return NULL;
	i = key_hash(k) & (t->cap - 1);
	while (t->slots[i]) {
		if (key_eq(&t->slots[i]->key, k))
			return t->slots[i];
		i = (i + 1) & (t->cap - 1);
	}
	if (t->max_keys && t->n >= t->max_keys && k->pid != XP_IOCTL_PID_OTHER) {
		*folded = true;
		e = row(t, &other, folded);
		if (e && !e->comm[0])
			snprintf(e->comm, sizeof(e->comm), "(other)");
		return e;
	}
	if (t->max_keys && k->pid == XP_IOCTL_PID_OTHER && (k->dev || k->cmd) && t->n_other >= t->max_keys) {
		*folded = true;
		e = row(t, &last, folded);
		if (e && !e->comm[0])
			snprintf(e->comm, sizeof(e->comm), "(other)");
		return e;
	}
	e = calloc(1, sizeof(*e));

	if (!e)
		return NULL;
	e->key.pid = k->pid;
	e->key.dev = k->dev;
	e->key.cmd = k->cmd;
	t->slots[i] = e;
	t->n++;
	t->n_other += k->pid == XP_IOCTL_PID_OTHER;
	return e;
}

struct xp_ioctl_entry *xp_ioctl_table_get(struct xp_ioctl_table *t, const struct xp_ioctl_key *k)
{
	bool folded = false;

	return row(t, k, &folded);
}

/*
 * The first XP_IOCTL_MAX_ERRNOS - 1 distinct errnos get a slot each; the
 * last slot (err 0, "other") collects the rest, so no named count is lost.
 */
static void add_errno(struct xp_ioctl_entry *e, uint32_t err, uint64_t count)
{
	int i;

	for (i = 0; i < e->nerrnos; i++)
		if (e->errnos[i].err == err && (err || i == XP_IOCTL_MAX_ERRNOS - 1))
			break;
	if (i == e->nerrnos) {
		if (i >= XP_IOCTL_MAX_ERRNOS - 1) {
			i = XP_IOCTL_MAX_ERRNOS - 1;
			err = 0;
		}
		if (i == e->nerrnos) {
			e->nerrnos++;
			e->errnos[i].err = err;
			e->errnos[i].count = 0;
		}
	}
	e->errnos[i].count += count;
}

int xp_ioctl_table_add_rec(struct xp_ioctl_table *t, const struct xp_ioctl_rec *r)
{
	struct xp_ioctl_key k = { .pid = r->hdr.pid, .dev = r->dev, .cmd = r->cmd };
	bool folded = false;
	struct xp_ioctl_entry *e = row(t, &k, &folded);

	if (!e)
		return -ENOMEM;
	t->folded_calls += folded;
	if (!e->comm[0])
		memcpy(e->comm, r->comm, sizeof(e->comm));
	e->comm[XP_COMM_LEN - 1] = '\0';
	e->calls++;
	if (r->lat_ns == XP_IOCTL_UNTIMED)
		e->untimed++;
	else
		xp_hist_add(&e->lat, r->lat_ns);
	if (r->ret < 0) {
		e->errors++;
		add_errno(e, 0u - (uint32_t)r->ret, 1);	/* INT_MIN too */
	}
	return 0;
}

int xp_ioctl_table_add_val(struct xp_ioctl_table *t, const struct xp_ioctl_key *k,
			   const struct xp_ioctl_val *v)
{
	bool folded = k->pid == XP_IOCTL_PID_OTHER;	/* the kernel folded these already */
	struct xp_ioctl_entry *e = row(t, k, &folded);

	if (!e)
		return -ENOMEM;
	if (folded)
		t->folded_calls += v->calls;
	if (k->pid == XP_IOCTL_PID_OTHER)
		t->kernel_folded += v->calls;
	if (!e->comm[0])
		memcpy(e->comm, v->comm, sizeof(e->comm));
	e->comm[XP_COMM_LEN - 1] = '\0';
	e->calls += v->calls;
	e->errors += v->errors;
	e->untimed += v->untimed;
	e->lat.count += v->calls - (v->untimed < v->calls ? v->untimed : v->calls);
	e->lat.sum += v->sum_ns;
	if (v->max_ns > e->lat.max)
		e->lat.max = v->max_ns;
	xp_hist_add_buckets(&e->lat, v->hist, XP_HIST_BUCKETS);
	if (v->err1 && v->err1_calls)
		add_errno(e, v->err1, v->err1_calls);
	return 0;
}

int xp_ioctl_table_add_errno(struct xp_ioctl_table *t, const struct xp_ioctl_key *k,
			     uint32_t err, uint64_t count)
{
	struct xp_ioctl_entry *e = xp_ioctl_table_get(t, k);

	if (!e)
		return -ENOMEM;
	add_errno(e, err, count);
	return 0;
}

static int cmp_entry(const void *pa, const void *pb)
{
	const struct xp_ioctl_entry *a = *(struct xp_ioctl_entry *const *)pa;
	const struct xp_ioctl_entry *b = *(struct xp_ioctl_entry *const *)pb;

	if (a->key.pid != b->key.pid)
		return a->key.pid < b->key.pid ? -1 : 1;
	if (a->calls != b->calls)
		return a->calls > b->calls ? -1 : 1;
	if (a->key.dev != b->key.dev)
		return a->key.dev < b->key.dev ? -1 : 1;
	if (a->key.cmd != b->key.cmd)
		return a->key.cmd < b->key.cmd ? -1 : 1;
	return 0;
}

struct xp_ioctl_entry **xp_ioctl_table_sorted(const struct xp_ioctl_table *t)
{
	struct xp_ioctl_entry **v = calloc(t->n ? t->n : 1, sizeof(*v));
	size_t k = 0;

	if (!v)
		return NULL;
	for (size_t i = 0; i < t->cap; i++)
		if (t->slots[i])
			v[k++] = t->slots[i];
	qsort(v, k, sizeof(*v), cmp_entry);
	return v;
}
