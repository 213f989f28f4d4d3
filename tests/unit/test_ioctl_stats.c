/*
 * Tests for src/caps/ioctl/ioctl_stats.c (the per process/device/command table),
 * and for the ioctl summary it feeds: src/caps/ioctl/ioctl_report.c and the text
 * helpers of src/sinks/text.c.
 *
 * The key property: summary mode (the kernel aggregates into struct
 * xp_ioctl_val and an errno map, user space adds those with add_val and
 * add_errno) and stream mode (user space adds every record with add_rec)
 * must give the same table for the same calls.
 */
#include <errno.h>
#include <stdlib.h>
#include <sys/wait.h>

#include "caps/ioctl/ioctl_stats.h"
#include "caps/ioctl/ioctl_report.h"
#include "sinks/text.h"

#include "unit.h"

#define DEV_CARD XP_KDEV(226, 0)
#define DEV_RENDER XP_KDEV(226, 128)
#define DEV_NV XP_KDEV(195, 255)
#define CMD_VERSION 0xc0406400u	   /* DRM_IOCTL_VERSION */
#define CMD_GEM_CLOSE 0x40086409u  /* DRM_IOCTL_GEM_CLOSE */
#define CMD_RM_CONTROL 0xc020462au /* NV_ESC_RM_CONTROL */

static struct xp_ioctl_rec mkrec(uint32_t pid, uint32_t dev, uint32_t cmd, uint64_t lat,
				 int32_t ret, const char *comm)
{
	struct xp_ioctl_rec r;

	memset(&r, 0, sizeof(r));
	r.hdr.type = XP_REC_IOCTL;
	r.hdr.size = sizeof(r);
	r.hdr.pid = pid;
	r.hdr.tid = pid + 1;
	r.hdr.ts_ns = 1000000 + lat;
	r.lat_ns = lat;
	r.cmd = cmd;
	r.dev = dev;
	r.fd = 3;
	r.ret = ret;
	memcpy(r.comm, comm, strnlen(comm, sizeof(r.comm)));
	return r;
}

static void add(struct xp_ioctl_table *t, uint32_t pid, uint32_t dev, uint32_t cmd, uint64_t lat,
		int32_t ret, const char *comm)
{
	struct xp_ioctl_rec r = mkrec(pid, dev, cmd, lat, ret, comm);

	CHECK(xp_ioctl_table_add_rec(t, &r) == 0);
}

/* The entry for a key, looked up without creating one. */
static struct xp_ioctl_entry *find(const struct xp_ioctl_table *t, uint32_t pid, uint32_t dev,
				   uint32_t cmd)
{
	for (size_t i = 0; i < t->cap; i++) {
		struct xp_ioctl_entry *e = t->slots[i];

		if (e && e->key.pid == pid && e->key.dev == dev && e->key.cmd == cmd)
			return e;
	}
	return NULL;
}

static uint64_t errno_count(const struct xp_ioctl_entry *e, uint32_t err)
{
	for (int i = 0; i < e->nerrnos; i++)
		if (e->errnos[i].err == err)
			return e->errnos[i].count;
	return 0;
}

static uint64_t errno_total(const struct xp_ioctl_entry *e)
{
	uint64_t n = 0;

	for (int i = 0; i < e->nerrnos; i++)
		n += e->errnos[i].count;
	return n;
}

static void test_add_rec_counts(void)
{
	struct xp_ioctl_table t;
	struct xp_ioctl_entry *e;

	xp_ioctl_table_init(&t);
	CHECK_U64(t.n, 0);
	for (int i = 0; i < 5; i++)
		add(&t, 100, DEV_CARD, CMD_VERSION, 1000 * (i + 1),
		    i < 2 ? -ENOTTY : i == 2 ? -EINVAL : 0, "glxgears");
	for (int i = 0; i < 3; i++)
		add(&t, 100, DEV_RENDER, CMD_VERSION, 50, 0, "glxgears");
	add(&t, 100, DEV_CARD, CMD_GEM_CLOSE, 7, 0, "glxgears");
	for (int i = 0; i < 4; i++)
		add(&t, 200, DEV_CARD, CMD_VERSION, 9, -EAGAIN, "Xorg");
	/* a positive return value is no error */
	add(&t, 200, DEV_NV, CMD_RM_CONTROL, 12, 42, "Xorg");
	CHECK_U64(t.n, 5);

	e = find(&t, 100, DEV_CARD, CMD_VERSION);
	CHECK(e != NULL);
	if (e) {
		CHECK_U64(e->calls, 5);
		CHECK_U64(e->errors, 3);
		CHECK_U64(e->nerrnos, 2);
		CHECK_U64(errno_count(e, ENOTTY), 2);
		CHECK_U64(errno_count(e, EINVAL), 1);
		CHECK_U64(e->lat.count, 5);
		CHECK_U64(e->lat.sum, 15000);
		CHECK_U64(e->lat.max, 5000);
		CHECK_STR(e->comm, "glxgears");
		CHECK_U64(e->key.pid, 100);
		CHECK_U64(e->key.dev, DEV_CARD);
		CHECK_U64(e->key.cmd, CMD_VERSION);
	}
	e = find(&t, 100, DEV_RENDER, CMD_VERSION);
	CHECK(e != NULL);
	if (e) {
		CHECK_U64(e->calls, 3);
		CHECK_U64(e->errors, 0);
		CHECK_U64(e->nerrnos, 0);
		CHECK_U64(e->lat.sum, 150);
	}
	e = find(&t, 100, DEV_CARD, CMD_GEM_CLOSE);
	CHECK(e != NULL);
	if (e) {
		CHECK_U64(e->calls, 1);
		CHECK_U64(e->lat.max, 7);
	}
	e = find(&t, 200, DEV_CARD, CMD_VERSION);
	CHECK(e != NULL);
	if (e) {
		CHECK_U64(e->calls, 4);
		CHECK_U64(e->errors, 4);
		CHECK_U64(e->nerrnos, 1);
		CHECK_U64(errno_count(e, EAGAIN), 4);
		CHECK_STR(e->comm, "Xorg");
	}
	e = find(&t, 200, DEV_NV, CMD_RM_CONTROL);
	CHECK(e != NULL);
	if (e) {
		CHECK_U64(e->calls, 1);
		CHECK_U64(e->errors, 0);
		CHECK_U64(e->nerrnos, 0);
	}
	/* get finds existing entries without adding */
	struct xp_ioctl_key k = { .pid = 200, .dev = DEV_CARD, .cmd = CMD_VERSION };

	CHECK(xp_ioctl_table_get(&t, &k) == find(&t, 200, DEV_CARD, CMD_VERSION));
	CHECK_U64(t.n, 5);
	/* keys differing in one field only are different entries */
	CHECK(find(&t, 200, DEV_RENDER, CMD_VERSION) == NULL);
	CHECK(find(&t, 300, DEV_CARD, CMD_VERSION) == NULL);
	xp_ioctl_table_free(&t);
	CHECK_U64(t.n, 0);
	CHECK(t.slots == NULL);
}

static void test_errno_overflow(void)
{
	struct xp_ioctl_table t;
	struct xp_ioctl_entry *e;

	xp_ioctl_table_init(&t);
	/* errnos 1..11, errno k failing k times, then EPERM (1) again */
	for (int err = 1; err <= 11; err++)
		for (int i = 0; i < err; i++)
			add(&t, 1, DEV_CARD, CMD_VERSION, 10, -err, "x");
	add(&t, 1, DEV_CARD, CMD_VERSION, 10, -1, "x");
	add(&t, 1, DEV_CARD, CMD_VERSION, 10, 0, "x");
	e = find(&t, 1, DEV_CARD, CMD_VERSION);
	CHECK(e != NULL);
	if (!e) {
		xp_ioctl_table_free(&t);
		return;
	}
	/* 66 + 1 failures, 1 success */
	CHECK_U64(e->calls, 68);
	CHECK_U64(e->errors, 67);
	CHECK_U64(e->nerrnos, XP_IOCTL_MAX_ERRNOS);
	/* the first seven keep their own slot, the repeated EPERM included */
	CHECK_U64(errno_count(e, 1), 2);
	for (uint32_t err = 2; err <= 7; err++)
		CHECK_U64(errno_count(e, err), err);
	/* the rest is "other" (err 0); nothing is lost */
	CHECK_U64(errno_count(e, 0), 8 + 9 + 10 + 11);
	CHECK_U64(errno_count(e, 9), 0);
	CHECK_U64(errno_total(e), e->errors);

	/* the same through the kernel path's add_errno, with counts */
	struct xp_ioctl_key k = { .pid = 2, .dev = DEV_CARD, .cmd = CMD_VERSION };

	for (uint32_t err = 1; err <= 12; err++)
		CHECK(xp_ioctl_table_add_errno(&t, &k, err, 100 + err) == 0);
	CHECK(xp_ioctl_table_add_errno(&t, &k, 3, 1000) == 0);
	e = find(&t, 2, DEV_CARD, CMD_VERSION);
	CHECK(e != NULL);
	if (e) {
		uint64_t want = 0;

		for (uint32_t err = 1; err <= 12; err++)
			want += 100 + err;
		CHECK_U64(e->nerrnos, XP_IOCTL_MAX_ERRNOS);
		CHECK_U64(errno_count(e, 3), 1103);
		CHECK_U64(errno_total(e), want + 1000);
		CHECK_U64(errno_count(e, 0), 108 + 109 + 110 + 111 + 112);
	}
	xp_ioctl_table_free(&t);
}

/* One process's calls on one key, as both modes see them. */
struct call {
	uint64_t lat;
	int32_t ret;
};

/*
 * As ioctl.bpf.c counts: the errno of the entry's first call, if it failed,
 * in the value itself; the other failures go to the errno map, here
 * `mapped` (positive errno -> count, indexed by errno).
 */
static void kernel_aggregate(struct xp_ioctl_val *v, const struct call *c, size_t n,
			     const char *comm, uint64_t *mapped)
{
	memset(v, 0, sizeof(*v));
	memcpy(v->comm, comm, strnlen(comm, sizeof(v->comm)));
	v->err1 = n && c[0].ret < 0 ? (uint32_t)-c[0].ret : 0;
	for (size_t i = 0; i < n; i++) {
		v->calls++;
		v->sum_ns += c[i].lat;
		if (c[i].lat > v->max_ns)
			v->max_ns = c[i].lat;
		v->hist[xp_hist_bucket(c[i].lat)]++;
		if (c[i].ret < 0) {
			v->errors++;
			if ((uint32_t)-c[i].ret == v->err1)
				v->err1_calls++;
			else
				mapped[-c[i].ret]++;
		}
	}
}

static void test_kernel_path_equals_stream_path(void)
{
	static struct call calls[400];
	static struct xp_ioctl_val v;
	static const uint32_t errs[] = { ENOTTY, EINVAL, EFAULT, ENOMEM, EINTR };
	static const double ps[] = { 1, 10, 50, 90, 99, 99.9, 100 };
	struct xp_ioctl_table ts, tk;
	struct xp_ioctl_key k = { .pid = 4242, .dev = DEV_RENDER, .cmd = CMD_VERSION };
	uint64_t errcount[sizeof(errs) / sizeof(errs[0])] = { 0 };
	static uint64_t mapped[256];
	size_t n = sizeof(calls) / sizeof(calls[0]);

	/* latencies from 0 ns to past the overflow bucket, some failures */
	for (size_t i = 0; i < n; i++) {
		uint64_t lat = (uint64_t)(i * i * i) * 37 + i;

		if (i == 5)
			lat = 0;
		if (i == 6)
			lat = 200000000000ULL; /* 200 s: overflow bucket */
		calls[i].lat = lat;
		calls[i].ret = 0;
		if (i % 7 == 3) {
			size_t ei = (i / 7) % 5;

			calls[i].ret = -(int32_t)errs[ei];
			errcount[ei]++;
		}
	}

	/* stream mode: every record */
	xp_ioctl_table_init(&ts);
	for (size_t i = 0; i < n; i++)
		add(&ts, k.pid, k.dev, k.cmd, calls[i].lat, calls[i].ret, "vkcube");

	/*
	 * summary mode: the kernel's map values, drained in two parts; the
	 * second part's first call fails, so its errno is counted in the value
	 */
	xp_ioctl_table_init(&tk);
	kernel_aggregate(&v, calls, 150, "vkcube", mapped);
	CHECK_U64(v.err1, 0);
	CHECK(xp_ioctl_table_add_val(&tk, &k, &v) == 0);
	kernel_aggregate(&v, calls + 150, n - 150, "vkcube", mapped);
	CHECK(v.err1 != 0 && v.err1_calls > 1);
	CHECK(xp_ioctl_table_add_val(&tk, &k, &v) == 0);
	/* the errno map comes in its own order */
	for (size_t ei = sizeof(errs) / sizeof(errs[0]); ei-- > 0;)
		if (mapped[errs[ei]])
			CHECK(xp_ioctl_table_add_errno(&tk, &k, errs[ei], mapped[errs[ei]]) == 0);

	struct xp_ioctl_entry *es = find(&ts, k.pid, k.dev, k.cmd);
	struct xp_ioctl_entry *ek = find(&tk, k.pid, k.dev, k.cmd);

	CHECK(es != NULL && ek != NULL);
	if (!es || !ek)
		goto out;
	CHECK_U64(ts.n, 1);
	CHECK_U64(tk.n, 1);
	CHECK_U64(es->calls, n);
	CHECK_U64(ek->calls, es->calls);
	CHECK_U64(ek->errors, es->errors);
	CHECK_U64(es->errors, 57); /* i = 3, 10, ..., 395 */
	CHECK_U64(ek->lat.count, es->lat.count);
	CHECK_U64(ek->lat.sum, es->lat.sum);
	CHECK_U64(es->lat.max, 200000000000ULL);
	CHECK_U64(ek->lat.max, es->lat.max);
	for (uint32_t b = 0; b < XP_HIST_BUCKETS; b++)
		CHECK_U64(ek->lat.buckets[b], es->lat.buckets[b]);
	for (size_t i = 0; i < sizeof(ps) / sizeof(ps[0]); i++)
		CHECK_U64(xp_hist_percentile(&ek->lat, ps[i]), xp_hist_percentile(&es->lat, ps[i]));
	CHECK_U64(ek->nerrnos, es->nerrnos);
	CHECK_U64(es->nerrnos, 5);
	for (size_t ei = 0; ei < sizeof(errs) / sizeof(errs[0]); ei++) {
		CHECK_U64(errno_count(es, errs[ei]), errcount[ei]);
		CHECK_U64(errno_count(ek, errs[ei]), errcount[ei]);
	}
	CHECK_STR(ek->comm, "vkcube");
	CHECK_STR(es->comm, ek->comm);
out:
	xp_ioctl_table_free(&ts);
	xp_ioctl_table_free(&tk);
}

static void test_kernel_path_small_exact(void)
{
	/* 10 calls of 5 ns and one of 100000 ns, computed by hand */
	static struct xp_ioctl_val v;
	struct xp_ioctl_table t;
	struct xp_ioctl_key k = { .pid = 9, .dev = DEV_NV, .cmd = CMD_RM_CONTROL };
	struct xp_ioctl_entry *e;

	memset(&v, 0, sizeof(v));
	v.calls = 11;
	v.errors = 2;
	v.sum_ns = 10 * 5 + 100000;
	v.max_ns = 100000;
	memcpy(v.comm, "cuda-app", 8);
	v.hist[5] = 10;
	v.hist[xp_hist_bucket(100000)] = 1;
	xp_ioctl_table_init(&t);
	CHECK(xp_ioctl_table_add_val(&t, &k, &v) == 0);
	CHECK(xp_ioctl_table_add_errno(&t, &k, ENOMEM, 2) == 0);
	e = find(&t, 9, DEV_NV, CMD_RM_CONTROL);
	CHECK(e != NULL);
	if (e) {
		CHECK_U64(e->calls, 11);
		CHECK_U64(e->errors, 2);
		CHECK_U64(e->lat.count, 11);
		CHECK_U64(e->lat.sum, 100050);
		CHECK_U64(e->lat.max, 100000);
		CHECK_U64(xp_hist_percentile(&e->lat, 50), 5);
		CHECK_U64(xp_hist_percentile(&e->lat, 90), 5);
		/* rank 11 of 11: the 100 us call, within its 12.5% bucket */
		CHECK(xp_hist_percentile(&e->lat, 99) >= 87500);
		CHECK(xp_hist_percentile(&e->lat, 99) <= 100000);
		CHECK_U64(errno_count(e, ENOMEM), 2);
		CHECK_STR(e->comm, "cuda-app");
	}
	xp_ioctl_table_free(&t);
}

static void test_sorted_order(void)
{
	struct xp_ioctl_table t;
	struct xp_ioctl_entry **v;
	/* pid, dev, cmd, calls: given in a scrambled order */
	static const uint32_t spec[][4] = {
		{ 300, DEV_CARD, CMD_VERSION, 1 },
		{ 100, DEV_CARD, CMD_VERSION, 2 },
		{ 100, DEV_RENDER, CMD_GEM_CLOSE, 7 },
		{ 200, DEV_CARD, CMD_VERSION, 5 },
		{ 100, DEV_CARD, CMD_GEM_CLOSE, 7 },
		{ 100, DEV_CARD, CMD_RM_CONTROL, 9 },
		{ 5, DEV_NV, CMD_RM_CONTROL, 1 },
		{ 100, DEV_CARD, 0x00000001u, 7 },
	};
	/* expected order, as indexes into spec */
	static const int want[] = { 6, 5, 7, 4, 2, 1, 3, 0 };
	const size_t n = sizeof(spec) / sizeof(spec[0]);

	xp_ioctl_table_init(&t);
	for (size_t i = 0; i < n; i++)
		for (uint32_t c = 0; c < spec[i][3]; c++)
			add(&t, spec[i][0], spec[i][1], spec[i][2], 10, 0, "p");
	CHECK_U64(t.n, n);
	v = xp_ioctl_table_sorted(&t);
	CHECK(v != NULL);
	for (size_t i = 0; v && i < n; i++) {
		const uint32_t *s = spec[want[i]];

		CHECK_U64(v[i]->key.pid, s[0]);
		CHECK_U64(v[i]->key.dev, s[1]);
		CHECK_U64(v[i]->key.cmd, s[2]);
		CHECK_U64(v[i]->calls, s[3]);
	}
	free(v);
	xp_ioctl_table_free(&t);

	/* an empty table sorts to an empty (but allocated) array */
	xp_ioctl_table_init(&t);
	v = xp_ioctl_table_sorted(&t);
	CHECK(v != NULL);
	free(v);
}

static void test_reset(void)
{
	struct xp_ioctl_table t;
	struct xp_ioctl_entry **v;

	xp_ioctl_table_init(&t);
	for (uint32_t i = 0; i < 100; i++)
		add(&t, i, DEV_CARD, CMD_VERSION, 10, -EIO, "a");
	CHECK_U64(t.n, 100);
	xp_ioctl_table_reset(&t);
	CHECK_U64(t.n, 0);
	CHECK(find(&t, 5, DEV_CARD, CMD_VERSION) == NULL);
	v = xp_ioctl_table_sorted(&t);
	CHECK(v != NULL);
	free(v);
	/* the next interval starts from zero */
	add(&t, 5, DEV_CARD, CMD_VERSION, 30, 0, "b");
	CHECK_U64(t.n, 1);
	struct xp_ioctl_entry *e = find(&t, 5, DEV_CARD, CMD_VERSION);

	CHECK(e != NULL);
	if (e) {
		CHECK_U64(e->calls, 1);
		CHECK_U64(e->errors, 0);
		CHECK_U64(e->nerrnos, 0);
		CHECK_U64(e->lat.count, 1);
		CHECK_U64(e->lat.sum, 30);
		CHECK_U64(e->lat.max, 30);
		CHECK_STR(e->comm, "b");
	}
	/* reset of a table that never held anything */
	struct xp_ioctl_table z;

	xp_ioctl_table_init(&z);
	xp_ioctl_table_reset(&z);
	CHECK_U64(z.n, 0);
	xp_ioctl_table_free(&z);
	xp_ioctl_table_free(&t);
}

static void test_growth(void)
{
	enum { N = 5000 };
	static struct xp_ioctl_entry *ptr[N];
	struct xp_ioctl_table t;
	struct xp_ioctl_entry **v;
	int ok = 1;

	xp_ioctl_table_init(&t);
	for (uint32_t i = 0; i < N; i++) {
		/* keys that share fields a lot: few pids, two devs */
		struct xp_ioctl_key k = { .pid = 1000 + i % 13, .dev = i % 2 ? DEV_CARD : DEV_RENDER,
					  .cmd = 0xc0106400u + i };

		ptr[i] = xp_ioctl_table_get(&t, &k);
		if (!ptr[i]) {
			ok = 0;
			break;
		}
		ptr[i]->calls = i + 1;
	}
	CHECK(ok);
	CHECK_U64(t.n, N);
	CHECK(t.cap >= 2 * t.n);
	for (uint32_t i = 0; ok && i < N; i++) {
		struct xp_ioctl_key k = { .pid = 1000 + i % 13, .dev = i % 2 ? DEV_CARD : DEV_RENDER,
					  .cmd = 0xc0106400u + i };
		struct xp_ioctl_entry *e = xp_ioctl_table_get(&t, &k);

		if (e != ptr[i] || !e || e->calls != i + 1 || e->key.cmd != k.cmd) {
			unit_failed_checks++;
			fprintf(stderr, "%s:%d: key %u lost after growth\n", __FILE__, __LINE__, i);
			break;
		}
	}
	CHECK_U64(t.n, N);
	/* the sorted view holds every entry once */
	v = xp_ioctl_table_sorted(&t);
	CHECK(v != NULL);
	if (v) {
		uint64_t sum = 0;

		for (size_t i = 0; i < N; i++) {
			sum += v[i]->calls;
			if (i) {
				CHECK(v[i]->key.pid >= v[i - 1]->key.pid);
				if (v[i]->key.pid == v[i - 1]->key.pid)
					CHECK(v[i]->calls <= v[i - 1]->calls);
			}
		}
		CHECK_U64(sum, (uint64_t)N * (N + 1) / 2);
	}
	free(v);
	xp_ioctl_table_free(&t);
}

static void test_comm(void)
{
	struct xp_ioctl_table t;
	struct xp_ioctl_rec r = mkrec(1, DEV_CARD, CMD_VERSION, 1, 0, "");
	static struct xp_ioctl_val v;
	struct xp_ioctl_entry *e;

	xp_ioctl_table_init(&t);
	/* 16 bytes, no terminating NUL (the kernel never sends that, but a
	 * trace file could) */
	memcpy(r.comm, "ABCDEFGHIJKLMNOP", XP_COMM_LEN);
	CHECK(xp_ioctl_table_add_rec(&t, &r) == 0);
	e = find(&t, 1, DEV_CARD, CMD_VERSION);
	CHECK(e != NULL);
	if (e) {
		CHECK_U64(strnlen(e->comm, sizeof(e->comm)), 15);
		CHECK_STR(e->comm, "ABCDEFGHIJKLMNO");
	}
	/* the same from a kernel map value */
	struct xp_ioctl_key k = { .pid = 2, .dev = DEV_CARD, .cmd = CMD_VERSION };

	memset(&v, 0, sizeof(v));
	memcpy(v.comm, "0123456789abcdef", XP_COMM_LEN);
	v.calls = 1;
	v.hist[1] = 1;
	CHECK(xp_ioctl_table_add_val(&t, &k, &v) == 0);
	e = find(&t, 2, DEV_CARD, CMD_VERSION);
	CHECK(e != NULL);
	if (e)
		CHECK_STR(e->comm, "0123456789abcde");
	/* a full 15-character name is kept whole */
	r = mkrec(3, DEV_CARD, CMD_VERSION, 1, 0, "kworker/u16:2-ev");
	CHECK(xp_ioctl_table_add_rec(&t, &r) == 0);
	e = find(&t, 3, DEV_CARD, CMD_VERSION);
	if (e)
		CHECK_STR(e->comm, "kworker/u16:2-e");
	xp_ioctl_table_free(&t);
}

/* ---- the report ---- */

static char *memout;
static size_t memlen;

static FILE *mem_open(void)
{
	free(memout);
	memout = NULL;
	memlen = 0;
	return open_memstream(&memout, &memlen);
}

static int have_python(void)
{
	static int have = -1;

	if (have < 0) {
		have = system("command -v python3 >/dev/null 2>&1") == 0;
		if (!have)
			printf("SKIP JSON validation by python3: python3 not found\n");
	}
	return have;
}

/* Feeds doc to python3 running script (which reads stdin); 1 if it exits 0. */
static int python_run(const char *doc, const char *script, int quiet)
{
	char cmd[4096];
	FILE *p;
	int st;

	snprintf(cmd, sizeof(cmd), "python3 -c '%s' %s", script, quiet ? ">/dev/null 2>&1" : "1>&2");
	p = popen(cmd, "w");
	if (!p)
		return 0;
	fputs(doc, p);
	st = pclose(p);
	return st != -1 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static int python_ok(const char *doc, const char *script)
{
	return python_run(doc, script, 0);
}

#define PY_VALID "import json,sys; json.load(sys.stdin)"

static void make_devices(struct xp_devices *d)
{
	static const char proc[] = "Character devices:\n"
				   "  1 mem\n"
				   "195 nvidia-frontend\n"
				   "226 drm\n"
				   "\n"
				   "Block devices:\n"
				   "  8 sd\n";
	FILE *f = fmemopen((void *)proc, sizeof(proc) - 1, "r");

	memset(d, 0, sizeof(*d));
	CHECK(f != NULL);
	if (f) {
		CHECK(xp_devices_parse_majors(d, f) == 0);
		fclose(f);
	}
}

static void make_table(struct xp_ioctl_table *t)
{
	xp_ioctl_table_init(t);
	for (int i = 0; i < 4; i++)
		add(t, 4242, DEV_RENDER, CMD_VERSION, 100, i < 3 ? -ENOTTY : 0, "vkcube");
	add(t, 4242, DEV_RENDER, CMD_GEM_CLOSE, 1000, 0, "vkcube");
	add(t, 4242, DEV_RENDER, CMD_GEM_CLOSE, 3000, 0, "vkcube");
	add(t, 7, DEV_NV, CMD_RM_CONTROL, 20000, -EINVAL, "nvidia-smi");
	add(t, 7, DEV_NV, CMD_RM_CONTROL, 30000, -EFAULT, "nvidia-smi");
}

static void test_report_json(void)
{
	struct xp_ioctl_table t;
	static struct xp_devices d;
	struct xp_run_info ri = { .command = "ioctl", .source = "live", .mode = "summary",
				  .hook = "tp_btf", .duration_s = 2.5, .drops = { 5, 0 } };
	FILE *f;

	make_devices(&d);
	make_table(&t);
	f = mem_open();
	xp_ioctl_report_json(f, &t, &d, &ri);
	fclose(f);
	CHECK(memlen > 0 && memout[memlen - 1] == '\n');
	CHECK(strstr(memout, "{\"tool\":\"xputrace\",\"command\":\"ioctl\",\"source\":\"live\","
			     "\"mode\":\"summary\",\"hook\":\"tp_btf\",\"duration_s\":2.5,") == memout);
	CHECK(strstr(memout, "\"drops\":{\"total\":5,\"ringbuf\":5,\"map_full\":0,\"kernel_missed\":0}") != NULL);
	CHECK(strstr(memout, "\"pid\":4242,\"comm\":\"vkcube\",\"ioctls\":[") != NULL);
	CHECK(strstr(memout, "{\"device\":\"char 226:128\",\"driver\":\"\",\"cmd\":\"0xc0406400\","
			     "\"name\":\"DRM_IOCTL_VERSION\",\"calls\":4,\"errors\":3,"
			     "\"errnos\":{\"ENOTTY\":3},\"latency_ns\":{\"count\":4,\"sum\":400,")
	      != NULL);
	CHECK(strstr(memout, "\"errnos\":{\"EINVAL\":1,\"EFAULT\":1}") != NULL);
	CHECK(strstr(memout, "\"errnos\":{}") != NULL);
	if (have_python()) {
		CHECK(python_ok(memout, PY_VALID));
		CHECK(python_ok(memout,
				"import json,sys\n"
				"d = json.load(sys.stdin)\n"
				"assert d[\"tool\"] == \"xputrace\" and d[\"command\"] == \"ioctl\"\n"
				"assert d[\"duration_s\"] == 2.5 and d[\"hook\"] == \"tp_btf\"\n"
				"assert d[\"drops\"] == {\"total\": 5, \"ringbuf\": 5, \"map_full\": 0, \"kernel_missed\": 0}\n"
				"p = d[\"processes\"]\n"
				"assert [x[\"pid\"] for x in p] == [7, 4242], p\n"
				"assert [x[\"comm\"] for x in p] == [\"nvidia-smi\", \"vkcube\"]\n"
				"nv = p[0][\"ioctls\"]\n"
				"assert len(nv) == 1\n"
				"assert nv[0][\"name\"] == \"NV_ESC_RM_CONTROL\"\n"
				"assert nv[0][\"driver\"] == \"nvidia\"\n"
				"assert nv[0][\"device\"] == \"char 195:255\"\n"
				"assert nv[0][\"errnos\"] == {\"EINVAL\": 1, \"EFAULT\": 1}\n"
				"assert nv[0][\"latency_ns\"][\"max\"] == 30000\n"
				"io = p[1][\"ioctls\"]\n"
				"assert [x[\"name\"] for x in io] == [\"DRM_IOCTL_VERSION\", \"DRM_IOCTL_GEM_CLOSE\"]\n"
				"v = io[0]\n"
				"assert (v[\"calls\"], v[\"errors\"]) == (4, 3)\n"
				"assert v[\"errnos\"] == {\"ENOTTY\": 3}\n"
				"l = v[\"latency_ns\"]\n"
				"assert (l[\"count\"], l[\"sum\"], l[\"max\"]) == (4, 400, 100)\n"
				"assert l[\"log2\"] == [{\"lo\": 64, \"count\": 4}]\n"
				"assert 96 <= l[\"p50\"] <= 100 and 96 <= l[\"p99\"] <= 100\n"
				"g = io[1]\n"
				"assert (g[\"calls\"], g[\"errors\"], g[\"errnos\"]) == (2, 0, {})\n"
				"assert g[\"cmd\"] == \"0x40086409\"\n"
				"assert g[\"latency_ns\"][\"log2\"] == [{\"lo\": 512, \"count\": 1}, {\"lo\": 2048, \"count\": 1}]\n"));
		/* the validator can fail */
		CHECK(!python_run("{\"a\":1,}", PY_VALID, 1));
	}

	/* nothing traced: an empty process list, still a document */
	struct xp_ioctl_table empty;
	struct xp_run_info ri2 = { .command = "ioctl", .source = "trace.xpt", .mode = "stream",
				   .duration_s = 1, .interval = 3, .drops = { 1, 2 } };

	xp_ioctl_table_init(&empty);
	f = mem_open();
	xp_ioctl_report_json(f, &empty, &d, &ri2);
	fclose(f);
	CHECK_STR(memout, "{\"tool\":\"xputrace\",\"command\":\"ioctl\",\"source\":\"trace.xpt\","
			  "\"mode\":\"stream\",\"duration_s\":1,\"interval\":3,"
			  "\"drops\":{\"total\":3,\"ringbuf\":1,\"map_full\":2,\"kernel_missed\":0},\"processes\":[]}\n");
	if (have_python())
		CHECK(python_ok(memout, PY_VALID));
	xp_ioctl_table_free(&empty);
	xp_ioctl_table_free(&t);
}

static void test_report_text(void)
{
	struct xp_ioctl_table t;
	static struct xp_devices d;
	struct xp_run_info ri = { .command = "ioctl", .source = "live", .mode = "summary",
				  .duration_s = 2.5, .drops = { 5, 0 } };
	FILE *f;
	char *line;

	make_devices(&d);
	make_table(&t);
	f = mem_open();
	xp_ioctl_report_text(f, &t, &d, &ri, false);
	fclose(f);
	CHECK(strncmp(memout,
		      "ioctl: 2.5 s, 2 processes, 8 calls, 5 errors, drops: 5 (ring buffer full 5)\n",
		      strlen("ioctl: 2.5 s, 2 processes, 8 calls, 5 errors, drops: 5 (ring buffer full 5)\n"))
	      == 0);
	CHECK(strstr(memout, "PID") && strstr(memout, "IOCTL") && strstr(memout, "P99"));
	/* the rows: pid 7 first, then 4242 with its busiest command first */
	line = strstr(memout, "\n7 ");
	CHECK(line != NULL);
	if (line) {
		CHECK(strstr(line, "nvidia-smi") != NULL);
		CHECK(strstr(line, "char 195:255") != NULL);
		CHECK(strstr(line, "NV_ESC_RM_CONTROL") != NULL);
	}
	CHECK(strstr(memout, " errors: EINVAL 1 EFAULT 1\n") != NULL);
	CHECK(strstr(memout, " errors: ENOTTY 3\n") != NULL);
	char *a = strstr(memout, "\n7 "), *b = strstr(memout, "DRM_IOCTL_VERSION"),
	     *c = strstr(memout, "DRM_IOCTL_GEM_CLOSE");

	CHECK(a && b && c && a < b && b < c);
	line = strstr(memout, "\n4242 ");
	CHECK(line != NULL);
	if (line) {
		char row[256];
		size_t len = strcspn(line + 1, "\n");

		snprintf(row, sizeof(row), "%.*s", (int)len, line + 1);
		CHECK(strstr(row, "vkcube") != NULL);
		CHECK(strstr(row, "char 226:128") != NULL);
		CHECK(strstr(row, "DRM_IOCTL_VERSION") != NULL);
		/* calls, errors, p50, p99, max */
		CHECK(strstr(row, " 4       3 ") != NULL);
		CHECK(strstr(row, "100ns") != NULL);
	}
	CHECK(strstr(memout, "latency:") == NULL);

	/* with histograms */
	f = mem_open();
	xp_ioctl_report_text(f, &t, &d, &ri, true);
	fclose(f);
	CHECK(strstr(memout, "\n4242 vkcube DRM_IOCTL_VERSION latency:\n") != NULL);
	CHECK(strstr(memout, "\n7 nvidia-smi NV_ESC_RM_CONTROL latency:\n") != NULL);
	CHECK(strstr(memout, "  [64ns, 128ns)               4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n")
	      != NULL);

	/* singular forms, no drops, and an interval header */
	struct xp_ioctl_table one;
	struct xp_run_info ri1 = { .command = "ioctl", .duration_s = 1, .interval = 2 };

	xp_ioctl_table_init(&one);
	add(&one, 1, DEV_CARD, CMD_VERSION, 10, -EIO, "a");
	f = mem_open();
	xp_ioctl_report_text(f, &one, &d, &ri1, false);
	fclose(f);
	CHECK(strncmp(memout, "--- interval 2 ---\nioctl: 1.0 s, 1 process, 1 call, 1 error, drops: 0\n",
		      strlen("--- interval 2 ---\nioctl: 1.0 s, 1 process, 1 call, 1 error, drops: 0\n"))
	      == 0);
	xp_ioctl_table_free(&one);

	/* an empty table */
	struct xp_ioctl_table empty;
	struct xp_run_info ri0 = { .command = "ioctl", .duration_s = 3, .drops = { 10, 2 } };

	xp_ioctl_table_init(&empty);
	f = mem_open();
	xp_ioctl_report_text(f, &empty, &d, &ri0, true);
	fclose(f);
	CHECK_STR(memout, "ioctl: 3.0 s, 0 processes, 0 calls, 0 errors, "
			  "drops: 12 (ring buffer full 10, map full 2)\n"
			  "no ioctls on traced devices\n");
	xp_ioctl_table_free(&empty);
	xp_ioctl_table_free(&t);
}

static void test_text_helpers(void)
{
	char buf[32];
	FILE *f;

	CHECK_STR(xp_fmt_ns(0, buf, sizeof(buf)), "0ns");
	CHECK_STR(xp_fmt_ns(812, buf, sizeof(buf)), "812ns");
	CHECK_STR(xp_fmt_ns(999, buf, sizeof(buf)), "999ns");
	CHECK_STR(xp_fmt_ns(1000, buf, sizeof(buf)), "1.0us");
	CHECK_STR(xp_fmt_ns(12345, buf, sizeof(buf)), "12.3us");
	CHECK_STR(xp_fmt_ns(4560000, buf, sizeof(buf)), "4.56ms");
	/* what rounds up to 1000 of a unit is shown in the next one */
	CHECK_STR(xp_fmt_ns(999949, buf, sizeof(buf)), "999.9us");
	CHECK_STR(xp_fmt_ns(999999, buf, sizeof(buf)), "1.00ms");
	CHECK_STR(xp_fmt_ns(999999999, buf, sizeof(buf)), "1.00s");
	CHECK_STR(xp_fmt_ns(1200000000, buf, sizeof(buf)), "1.20s");
	CHECK_STR(xp_fmt_ns(200000000000ULL, buf, sizeof(buf)), "200.00s");

	CHECK_STR(xp_errno_name(ENOTTY, buf, sizeof(buf)), "ENOTTY");
	CHECK_STR(xp_errno_name(EINVAL, buf, sizeof(buf)), "EINVAL");
	CHECK_STR(xp_errno_name(ENOMEM, buf, sizeof(buf)), "ENOMEM");
	CHECK_STR(xp_errno_name(0, buf, sizeof(buf)), "other");
	CHECK_STR(xp_errno_name(4000, buf, sizeof(buf)), "E4000");

	CHECK_STR(xp_drop_reason_name(XP_DROP_RINGBUF), "ring buffer full");
	CHECK_STR(xp_drop_reason_name(XP_DROP_MAP_FULL), "map full");
	CHECK_STR(xp_drop_reason_name(99), "other");

	struct xp_run_info dri = { 0 };

	dri.drops[XP_DROP_RINGBUF] = 0;
	dri.drops[XP_DROP_MAP_FULL] = 0;
	f = mem_open();
	xp_print_drops(f, &dri);
	fclose(f);
	CHECK_STR(memout, "drops: 0\n");
	dri.drops[XP_DROP_RINGBUF] = 5;
	f = mem_open();
	xp_print_drops(f, &dri);
	fclose(f);
	CHECK_STR(memout, "drops: 5 (ring buffer full 5)\n");
	dri.drops[XP_DROP_RINGBUF] = 0;
	dri.drops[XP_DROP_MAP_FULL] = 3;
	f = mem_open();
	xp_print_drops(f, &dri);
	fclose(f);
	CHECK_STR(memout, "drops: 3 (map full 3)\n");
	dri.drops[XP_DROP_RINGBUF] = 10;
	dri.drops[XP_DROP_MAP_FULL] = 2;
	f = mem_open();
	xp_print_drops(f, &dri);
	fclose(f);
	CHECK_STR(memout, "drops: 12 (ring buffer full 10, map full 2)\n");
	/* runs the kernel skipped count as drops too */
	dri.drops[XP_DROP_KERNEL_MISSED] = 7;
	f = mem_open();
	xp_print_drops(f, &dri);
	fclose(f);
	CHECK_STR(memout, "drops: 19 (ring buffer full 10, map full 2, skipped by the kernel 7)\n");
	/* a kernel that skips runs without counting them: said, whatever the count */
	dri.skips_uncounted = true;
	f = mem_open();
	xp_print_drops(f, &dri);
	fclose(f);
	CHECK(strstr(memout, "drops: 19 (ring buffer full 10, map full 2, skipped by the kernel 7) (and those "
			     "this kernel skips uncounted") == memout);
	memset(&dri, 0, sizeof(dri));
	dri.skips_uncounted = true;
	f = mem_open();
	xp_print_drops(f, &dri);
	fclose(f);
	CHECK(strstr(memout, "drops: 0 (and those this kernel skips uncounted: kprobe") == memout);

	/* the log2 histogram: every slot from the first to the last non-empty */
	struct xp_hist h = { 0 };

	for (int i = 0; i < 4; i++)
		xp_hist_add(&h, 100);
	xp_hist_add(&h, 3000);
	f = mem_open();
	xp_print_log2_hist(f, &h, 2);
	fclose(f);
	CHECK_STR(memout,
		  "  [64ns, 128ns)               4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
		  "  [128ns, 256ns)              0 |                                        |\n"
		  "  [256ns, 512ns)              0 |                                        |\n"
		  "  [512ns, 1.02us)             0 |                                        |\n"
		  "  [1.02us, 2.05us)            0 |                                        |\n"
		  "  [2.05us, 4.1us)             1 |@@@@@@@@@@                              |\n");
	struct xp_hist o = { 0 };

	xp_hist_add(&o, 0);
	xp_hist_add(&o, 1ULL << 40);
	f = mem_open();
	xp_print_log2_hist(f, &o, 0);
	fclose(f);
	CHECK(strncmp(memout, "[0ns, 2ns)                  1 |", strlen("[0ns, 2ns)                  1 |")) == 0);
	CHECK(strstr(memout, "\n[137s, ...)                 1 |") != NULL);
	struct xp_hist none = { 0 };

	f = mem_open();
	xp_print_log2_hist(f, &none, 2);
	fclose(f);
	CHECK_STR(memout, "");
}

/* 20,000 short-lived processes into a table of 1,000 rows: totals exact, memory bounded. */
static void test_max_keys_folds_into_other(void)
{
	struct xp_ioctl_table t;
	struct xp_ioctl_rec r = { .hdr = { .type = XP_REC_IOCTL, .size = sizeof(r) }, .lat_ns = 1000, .dev = 0xe200000 };
	struct xp_ioctl_entry **v;
	uint64_t calls = 0, errors = 0, other = 0;

	xp_ioctl_table_init(&t);
	CHECK_U64(t.max_keys, XP_IOCTL_DEFAULT_MAX_KEYS);
	t.max_keys = 1000;
	for (uint32_t pid = 100; pid < 20100; pid++) {
		r.hdr.pid = r.hdr.tid = pid;
		snprintf(r.comm, sizeof(r.comm), "p%u", pid);
		r.cmd = 0xc0406400 + (pid % 3);
		r.ret = pid % 7 ? 0 : -22;
		CHECK(!xp_ioctl_table_add_rec(&t, &r));
		CHECK(!xp_ioctl_table_add_rec(&t, &r));
	}
	CHECK(t.n <= 1000 + 3);			/* the rows kept, and one (other) row per command */
	v = xp_ioctl_table_sorted(&t);
	for (size_t i = 0; v && i < t.n; i++) {
		calls += v[i]->calls;
		errors += v[i]->errors;
		if (v[i]->key.pid == XP_IOCTL_PID_OTHER) {
			other += v[i]->calls;
			CHECK_STR(v[i]->comm, "(other)");
		}
	}
	CHECK_U64(calls, 40000);		/* every call counted, none lost */
	CHECK_U64(errors, 2 * ((20100 - 1 - 98) / 7));
	CHECK_U64(other, 2 * (20000 - 1000));
	CHECK_U64(t.folded_calls, other);
	CHECK(v && v[t.n - 1]->key.pid == XP_IOCTL_PID_OTHER);	/* sorted last */
	free(v);
	/* the kernel's folded row comes in as such */
	xp_ioctl_table_reset(&t);
	{
		struct xp_ioctl_key k = { .pid = XP_IOCTL_PID_OTHER };
		struct xp_ioctl_val *val = calloc(1, sizeof(*val));

		val->calls = 5;
		CHECK(!xp_ioctl_table_add_val(&t, &k, val));
		CHECK_U64(t.folded_calls, 5);
		free(val);
	}
	xp_ioctl_table_free(&t);
}

/*
 * A hostile or fuzzing workload: every process issues a command never seen
 * before, so one (other) row per device and command would grow without end.
 * 20,000 of them into 1,000 rows: at most 2 * 1,000 + 1 rows, totals exact.
 */
static void test_distinct_commands_stay_bounded(void)
{
	struct xp_ioctl_table t;
	struct xp_ioctl_rec r = { .hdr = { .type = XP_REC_IOCTL, .size = sizeof(r) }, .lat_ns = 1000, .dev = 0xe200000 };
	struct xp_ioctl_key last = { .pid = XP_IOCTL_PID_OTHER };
	struct xp_ioctl_entry *e;
	uint64_t calls = 0, errors = 0;

	xp_ioctl_table_init(&t);
	t.max_keys = 1000;
	for (uint32_t pid = 100; pid < 20100; pid++) {
		r.hdr.pid = r.hdr.tid = pid;
		snprintf(r.comm, sizeof(r.comm), "f%u", pid);
		r.cmd = 0x80000000u + pid;	/* never the same twice */
		r.ret = pid % 5 ? 0 : -25;
		CHECK(!xp_ioctl_table_add_rec(&t, &r));
	}
	CHECK(t.n <= 2 * 1000 + 1);
	CHECK(t.cap <= 8192);			/* the slot array is bounded with the rows */
	for (size_t i = 0; i < t.cap; i++)
		if (t.slots[i]) {
			calls += t.slots[i]->calls;
			errors += t.slots[i]->errors;
		}
	CHECK_U64(calls, 20000);
	CHECK_U64(errors, 20000 / 5);
	CHECK_U64(t.folded_calls, 20000 - 1000);
	e = xp_ioctl_table_get(&t, &last);	/* the catch-all row holds the rest */
	CHECK(e != NULL && e->calls == 20000 - 1000 - 1000);
	CHECK(e != NULL && !strcmp(e->comm, "(other)"));
	xp_ioctl_table_free(&t);
}

/*
 * Calls whose start no program saw (the kernel skipped the entry run): counted
 * at their return, in calls and errors but not in the times, the same on the
 * kernel's path (xp_ioctl_val.untimed) and the records' (lat_ns UNTIMED); the
 * text says how many, the JSON row has them as "untimed".
 */
static void test_untimed(void)
{
	static struct xp_ioctl_val v;
	static struct xp_devices d;
	struct xp_run_info ri = { .command = "ioctl", .source = "live", .mode = "summary",
				  .hook = "tracepoint", .duration_s = 1 };
	struct xp_ioctl_table t, tr;
	struct xp_ioctl_key k = { .pid = 9, .dev = DEV_CARD, .cmd = CMD_VERSION };
	struct xp_ioctl_entry *e, *er;
	FILE *f;

	memset(&v, 0, sizeof(v));
	v.calls = 5;		/* 3 timed: 100, 100, 200 ns; 2 untimed, one failed */
	v.untimed = 2;
	v.errors = 1;
	v.sum_ns = 400;
	v.max_ns = 200;
	v.hist[xp_hist_bucket(100)] = 2;
	v.hist[xp_hist_bucket(200)] += 1;
	v.err1 = ENOTTY;
	v.err1_calls = 1;
	memcpy(v.comm, "vkcube", 6);
	xp_ioctl_table_init(&t);
	CHECK(xp_ioctl_table_add_val(&t, &k, &v) == 0);
	xp_ioctl_table_init(&tr);
	add(&tr, 9, DEV_CARD, CMD_VERSION, 100, 0, "vkcube");
	add(&tr, 9, DEV_CARD, CMD_VERSION, XP_IOCTL_UNTIMED, -ENOTTY, "vkcube");
	add(&tr, 9, DEV_CARD, CMD_VERSION, 100, 0, "vkcube");
	add(&tr, 9, DEV_CARD, CMD_VERSION, XP_IOCTL_UNTIMED, 0, "vkcube");
	add(&tr, 9, DEV_CARD, CMD_VERSION, 200, 0, "vkcube");
	e = find(&t, 9, DEV_CARD, CMD_VERSION);
	er = find(&tr, 9, DEV_CARD, CMD_VERSION);
	CHECK(e != NULL && er != NULL);
	if (e && er) {
		for (int i = 0; i < 2; i++) {
			const struct xp_ioctl_entry *x = i ? er : e;

			CHECK_U64(x->calls, 5);
			CHECK_U64(x->untimed, 2);
			CHECK_U64(x->errors, 1);
			CHECK_U64(errno_count(x, ENOTTY), 1);
			CHECK_U64(x->lat.count, 3);
			CHECK_U64(x->lat.sum, 400);
			CHECK_U64(x->lat.max, 200);
			CHECK(xp_hist_percentile(&x->lat, 50) < 150);	/* the 100 ns bucket: untimed calls add no zeros */
		}
	}
	make_devices(&d);
	f = mem_open();
	xp_ioctl_report_text(f, &t, &d, &ri, false);
	fclose(f);
	CHECK(strstr(memout, "ioctl: 1.0 s, 1 process, 5 calls, 1 error, ") == memout);
	CHECK(strstr(memout, "\nnote: 2 calls counted at their return only (start unseen: begun before "
			     "tracing, or a run the kernel skipped): in CALLS, not in the times\n") != NULL);
	f = mem_open();
	xp_ioctl_report_json(f, &tr, &d, &ri);
	fclose(f);
	CHECK(strstr(memout, "\"calls\":5,\"errors\":1,\"untimed\":2,\"errnos\":{\"ENOTTY\":1},"
			     "\"latency_ns\":{\"count\":3,\"sum\":400,") != NULL);
	xp_ioctl_table_free(&t);
	xp_ioctl_table_free(&tr);
}

/* A row whose calls are all untimed has no times: '-', not 0ns (JSON: a latency count of 0). */
static void test_all_untimed(void)
{
	static struct xp_devices d;
	struct xp_run_info ri = { .command = "ioctl", .source = "live", .mode = "summary",
				  .hook = "tracepoint", .duration_s = 1 };
	struct xp_ioctl_table t;
	FILE *f;

	xp_ioctl_table_init(&t);
	add(&t, 9, DEV_CARD, CMD_VERSION, XP_IOCTL_UNTIMED, 0, "vkcube");
	add(&t, 9, DEV_CARD, CMD_VERSION, XP_IOCTL_UNTIMED, -ENOTTY, "vkcube");
	add(&t, 9, DEV_CARD, CMD_GEM_CLOSE, 300, 0, "vkcube");
	make_devices(&d);
	f = mem_open();
	xp_ioctl_report_text(f, &t, &d, &ri, true);
	fclose(f);
	CHECK(strstr(memout, " DRM_IOCTL_VERSION ") != NULL);
	CHECK(strstr(memout, "       2       1         -         -         -\n") != NULL);
	CHECK(strstr(memout, "       1       0     300ns     300ns     300ns\n") != NULL);
	/* no histogram of no times */
	CHECK(strstr(memout, "DRM_IOCTL_VERSION latency:") == NULL);
	CHECK(strstr(memout, "DRM_IOCTL_GEM_CLOSE latency:") != NULL);
	xp_ioctl_table_free(&t);
}

int main(void)
{
	RUN(test_max_keys_folds_into_other);
	RUN(test_distinct_commands_stay_bounded);
	RUN(test_add_rec_counts);
	RUN(test_errno_overflow);
	RUN(test_kernel_path_equals_stream_path);
	RUN(test_kernel_path_small_exact);
	RUN(test_sorted_order);
	RUN(test_reset);
	RUN(test_growth);
	RUN(test_comm);
	RUN(test_report_json);
	RUN(test_report_text);
	RUN(test_text_helpers);
	RUN(test_untimed);
	RUN(test_all_untimed);
	free(memout);
	UNIT_EXIT();
}
