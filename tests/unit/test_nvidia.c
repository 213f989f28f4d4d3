/* The nvidia capability's facts and analysis: the probed names and argument
 * positions against NVIDIA's signatures and the lab's test double, and the
 * per-process, per-escape, per-interrupt and holder bookkeeping on synthetic
 * records. */
#include <stdlib.h>
#include "unit.h"
#include <unistd.h>
#include "caps/nvidia/nvidia_facts.h"
#include "caps/nvidia/nvidia_flight.h"
#include "caps/nvidia/nvidia_metrics.h"
#include "metrics_util.h"
#include "caps/nvidia/nvidia_stats.h"
#include "caps/nvidia/nvidia_report.h"
#include "kinds.h"

/*
 * What the kernel side (src/caps/nvidia/nvidia.bpf.c) reads, and from which
 * argument: each must be that argument in the driver's signature.
 */
static const struct { int fn, arg; const char *is; } reads[] = {
	{ XP_NV_OPEN, 0, "struct inode *" },
	{ XP_NV_CLOSE, 0, "struct inode *" },
	{ XP_NV_CLOSE, 1, "struct file *" },
	{ XP_NV_IOCTL, 0, "struct file *" },
	{ XP_NV_IOCTL, 1, "unsigned int cmd" },
	{ XP_NV_MMAP, 0, "struct file *" },
	{ XP_NV_MMAP, 1, "struct vm_area_struct *" },
	{ XP_NV_FAULT, 0, "struct vm_fault *" },
	{ XP_NV_ISR, 0, "int irq" },
	{ XP_NV_ISR_MSIX, 0, "int irq" },
	{ XP_NV_ISR_BH, 0, "int irq" },
	{ XP_NV_ISR_MSIX_BH, 0, "int irq" },
	{ XP_NV_P2P_GET, 3, "uint64_t length" },
};

/* The n-th argument of a prototype "ret name(a, b, ...)" into buf. */
static const char *proto_arg(const char *proto, int n, char *buf, size_t len)
{
	const char *p = strchr(proto, '('), *e;
	int depth = 0;

	if (!p)
		return NULL;
	for (p++; n > 0 && *p; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')')
			depth--;
		else if (*p == ',' && !depth)
			n--;
	}
	while (*p == ' ')
		p++;
	for (e = p, depth = 0; *e && !(depth == 0 && (*e == ',' || *e == ')')); e++)
		depth += *e == '(' ? 1 : *e == ')' ? -1 : 0;
	snprintf(buf, len, "%.*s", (int)(e - p), p);
	return buf;
}

static int proto_nargs(const char *proto)
{
	char buf[160];
	int n = 0;

	while (proto_arg(proto, n, buf, sizeof(buf)) && buf[0])
		n++;
	return n;
}

static void test_facts(void)
{
	char buf[160];

	for (int i = 0; i < XP_NV_NFN; i++) {
		const struct xp_nv_func *f = &xp_nv_funcs[i];

		CHECK(f->name && !strncmp(f->name, "nvidia_", 7));
		CHECK(f->proto && strstr(f->proto, f->name) != NULL);
		CHECK_U64(xp_nv_fn_by_name(f->name), i);
		if (f->arg >= 0)
			CHECK(f->arg < proto_nargs(f->proto));
	}
	CHECK_U64(proto_nargs(xp_nv_funcs[XP_NV_P2P_GET].proto), 7);
	CHECK_U64(proto_nargs(xp_nv_funcs[XP_NV_SUSPEND].proto), 3);
	for (size_t i = 0; i < sizeof(reads) / sizeof(reads[0]); i++) {
		const char *a = proto_arg(xp_nv_funcs[reads[i].fn].proto, reads[i].arg, buf, sizeof(buf));

		if (!a || strncmp(a, reads[i].is, strlen(reads[i].is))) {
			unit_failed_checks++;
			fprintf(stderr, "%s: argument %d is '%s', the kernel side reads '%s'\n",
				xp_nv_funcs[reads[i].fn].name, reads[i].arg, a ? a : "?", reads[i].is);
		}
	}
	CHECK_U64(xp_nv_fn_by_name("nvidia_ioctl"), (uint64_t)-1);
	/* the Xid tracepoint's layout in nv-tracepoint.h (575+) */
	CHECK_STR(XP_NV_XID_GROUP ":" XP_NV_XID_EVENT, "nvidia:nvidia_dev_xid");
	CHECK_STR(XP_NV_XID_FIELDS, "__data_loc char[] dev; u32 error_code; __data_loc char[] msg");
}

/* The lab's test double declares every probed function it has with the driver's argument count. */
static void test_double_matches(void)
{
	FILE *f = fopen("lab/modules/nvidia_double/nvidia_double.c", "r");
	static char src[1 << 16];
	size_t n;
	int have = 0;

	CHECK(f != NULL);
	if (!f)
		return;
	n = fread(src, 1, sizeof(src) - 1, f);
	fclose(f);
	src[n] = '\0';
	for (int i = 0; i < XP_NV_NFN; i++) {
		char pat[80], decl[400];
		const char *p;

		snprintf(pat, sizeof(pat), " %s(", xp_nv_funcs[i].name);
		if (!(p = strstr(src, pat)))
			continue;	/* the double lacks it: the tool must take that as a note */
		have++;
		snprintf(decl, sizeof(decl), "x%.*s", (int)(strchr(p, ';') ? strchr(p, ';') - p : 0), p);
		if (proto_nargs(decl) != proto_nargs(xp_nv_funcs[i].proto)) {
			unit_failed_checks++;
			fprintf(stderr, "the double's %s has %d arguments, the driver's %d\n",
				xp_nv_funcs[i].name, proto_nargs(decl), proto_nargs(xp_nv_funcs[i].proto));
		}
	}
	CHECK(have >= XP_NV_NFN - 2);
}

static struct xp_nv_rec rec(int fn, uint32_t pid, const char *comm, uint32_t minor, uint32_t a32,
			    uint64_t a64, uint64_t dur, int64_t ret)
{
	struct xp_nv_rec r;

	memset(&r, 0, sizeof(r));
	r.h.type = XP_REC_NVIDIA;
	r.h.size = sizeof(r);
	r.h.pid = pid;
	r.h.tid = pid;
	r.fn = (uint8_t)fn;
	r.timed = (XP_NV_TIMED_MASK >> fn) & 1;
	r.minor = minor;
	r.arg32 = a32;
	r.arg64 = a64;
	r.dur_ns = dur;
	r.ret = ret;
	snprintf(r.comm, sizeof(r.comm), "%s", comm);
	return r;
}

static void add(struct xp_nv_state *s, struct xp_nv_rec r) { xp_nv_add(s, &r); }

#define RM_CONTROL 0xc020462au	/* _IOWR('F', 0x2a, 32 bytes) */
#define RM_FREE 0xc0204629u

static void test_stats(void)
{
	struct xp_nv_state *s = malloc(sizeof(*s));

	xp_nv_init(s);
	xp_nv_add_holder(s, 50, "old", 0);	/* found open at the start */
	add(s, rec(XP_NV_OPEN, 100, "cuda", 255, 0, 0xa000, 0, 0));
	add(s, rec(XP_NV_OPEN, 100, "cuda", 0, 0, 0xb000, 0, 0));
	CHECK_U64(s->nholds, 3);
	for (int i = 0; i < 3; i++)
		add(s, rec(XP_NV_IOCTL, 100, "cuda", 255, RM_CONTROL, 0, 2000000 + i * 1000, 0));
	add(s, rec(XP_NV_IOCTL, 100, "cuda", 255, RM_FREE, 0, 500, -22));
	add(s, rec(XP_NV_MMAP, 100, "cuda", 0, 0, 3 * 4096, 0, 0));
	add(s, rec(XP_NV_FAULT, 100, "cuda", 0, 0, 0, 0, 0));
	add(s, rec(XP_NV_FAULT, 100, "cuda", 0, 0, 0, 0, 0));
	add(s, rec(XP_NV_ISR_MSIX, 0, "swapper", XP_NV_NO_MINOR, 42, 0, 210000, 1));
	add(s, rec(XP_NV_ISR, 0, "swapper", XP_NV_NO_MINOR, 42, 0, 200000, 2));
	add(s, rec(XP_NV_ISR_BH, 7, "nv_queue", XP_NV_NO_MINOR, 42, 0, 500000, 1));
	add(s, rec(XP_NV_ISR, 0, "swapper", XP_NV_NO_MINOR, 43, 0, 100, 0));
	add(s, rec(XP_NV_P2P_GET, 9, "peer", XP_NV_NO_MINOR, 0, 1 << 20, 0, 0));
	add(s, rec(XP_NV_P2P_PUT, 9, "peer", XP_NV_NO_MINOR, 0, 0, 0, 0));
	add(s, rec(XP_NV_SUSPEND, 1, "systemd-sleep", XP_NV_NO_MINOR, 0, 0, 5000000, 0));
	add(s, rec(XP_NV_RESUME, 1, "systemd-sleep", XP_NV_NO_MINOR, 0, 0, 3000000, 0));
	/* closes: one seen opened, one found at the start, one of neither */
	add(s, rec(XP_NV_CLOSE, 100, "cuda", 255, 0, 0xa000, 0, 0));
	add(s, rec(XP_NV_CLOSE, 50, "old", 0, 0, 0xc000, 0, 0));
	add(s, rec(XP_NV_CLOSE, 60, "other", 0, 0, 0xd000, 0, 0));
	CHECK_U64(s->nholds, 1);
	CHECK_U64(s->holds[0].pid, 100);
	CHECK_U64(s->holds[0].minor, 0);
	CHECK_U64(s->closes_unknown, 1);

	CHECK_U64(s->calls[XP_NV_OPEN], 2);
	CHECK_U64(s->calls[XP_NV_IOCTL], 4);
	CHECK_U64(s->calls[XP_NV_ISR], 2);
	CHECK_U64(s->nprocs, 3);	/* cuda, old, other: p2p's caller is no GPU client */
	CHECK_U64(s->procs[0].pid, 100);
	CHECK_U64(s->procs[0].opens, 2);
	CHECK_U64(s->procs[0].closes, 1);
	CHECK_U64(s->procs[0].ioctls, 4);
	CHECK_U64(s->procs[0].ioctl_errors, 1);
	CHECK_U64(s->procs[0].mmap_bytes, 3 * 4096);
	CHECK_U64(s->procs[0].faults, 2);
	CHECK_U64(s->nescs, 2);
	CHECK_U64(s->escs[0].lat.count, 3);
	CHECK_U64(s->escs[0].lat.sum, 6003000);
	CHECK_U64(s->escs[1].errors, 1);
	CHECK_U64(s->nirqs, 2);
	CHECK_U64(s->irqs[0].irq, 42);
	CHECK_U64(s->irqs[0].lat[XP_NV_IRQ_MSIX].sum, 210000);
	CHECK_U64(s->irqs[0].lat[XP_NV_IRQ_BH].count, 1);
	CHECK_U64(s->p2p_bytes, 1 << 20);
	CHECK_U64(s->suspend.sum, 5000000);
	CHECK_U64(s->resume.count, 1);

	xp_nv_reset(s);
	CHECK_U64(s->calls[XP_NV_IOCTL], 0);
	CHECK_U64(s->nprocs, 0);
	CHECK_U64(s->nholds, 1);	/* the holders outlive an interval */
	free(s);
}

static void test_report(void)
{
	struct xp_nv_state *s = malloc(sizeof(*s));
	struct xp_run_info ri = { .command = "nvidia", .source = "live", .mode = "stream" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	xp_nv_init(s);
	s->probed_known = true;
	for (int i = 0; i < XP_NV_NFN; i++)
		s->probed[i] = i != XP_NV_ISR_MSIX_BH;
	xp_nv_add_holder(s, 50, "old", 0);
	add(s, rec(XP_NV_IOCTL, 100, "cuda", 255, RM_CONTROL, 0, 2000000, 0));
	f = open_memstream(&buf, &len);
	xp_nv_report_json(f, s, &ri);
	fclose(f);
	CHECK(strstr(buf, "{\"name\":\"nvidia_isr_msix_kthread_bh\",\"probed\":false,\"calls\":0}") != NULL);
	CHECK(strstr(buf, "\"name\":\"NV_ESC_RM_CONTROL\"") != NULL);
	CHECK(strstr(buf, "{\"device\":\"/dev/nvidia0\",\"pid\":50,\"comm\":\"old\",\"before_start\":true}") != NULL);
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	xp_nv_report_text(f, s, &ri, false);
	fclose(f);
	CHECK(strstr(buf, "13 of 14 nvidia.ko functions probed") != NULL);
	CHECK(strstr(buf, "note: not in the loaded module: nvidia_isr_msix_kthread_bh") != NULL);
	CHECK(strstr(buf, "(opened before tracing began)") != NULL);
	free(buf);
	free(s);
}

/* --sample: the kernel's counts beside the timed calls, said in the report, nothing scaled. */
static void test_sample(void)
{
	struct xp_nv_state *s = malloc(sizeof(*s));
	struct xp_run_info ri = { .command = "nvidia", .source = "live", .mode = "summary" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	xp_nv_init(s);
	s->sample = 10;
	for (int i = 0; i < 3; i++)
		add(s, rec(XP_NV_IOCTL, 100, "cuda", 255, RM_CONTROL, 0, 1000, 0));
	xp_nv_set_seen(s, RM_CONTROL, 25);
	xp_nv_set_seen(s, RM_FREE, 4);	/* seen; its one timed call not read yet */
	xp_nv_set_seen(s, RM_CONTROL, 26);	/* a later read replaces, not adds */
	CHECK_U64(s->ioctl_seen, 30);
	CHECK_U64(s->nescs, 2);
	CHECK_U64(s->escs[0].seen, 26);
	CHECK_U64(s->escs[0].lat.count, 3);
	CHECK_U64(s->escs[1].lat.count, 0);
	f = open_memstream(&buf, &len);
	xp_nv_report_json(f, s, &ri);
	fclose(f);
	CHECK(strstr(buf, "\"ioctl_sample\":10,\"ioctl_seen\":30,") != NULL);
	CHECK(strstr(buf, "{\"name\":\"nvidia_unlocked_ioctl\",\"calls\":3,\"seen\":30}") != NULL);
	CHECK(strstr(buf, "\"name\":\"NV_ESC_RM_CONTROL\",\"cmd\":3223340586,\"calls\":3,\"seen\":26,") != NULL);
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	xp_nv_report_text(f, s, &ri, false);
	fclose(f);
	CHECK(strstr(buf, "note: --sample 10: 1 in 10 ioctls of each escape timed") != NULL);
	CHECK(strstr(buf, "30 ioctls seen") != NULL);
	CHECK(strstr(buf, "nvidia_unlocked_ioctl               3  (1 in 10 of 30 seen)") != NULL);
	CHECK(strstr(buf, "SEEN    TIMED") != NULL);
	free(buf);
	xp_nv_reset(s);
	CHECK_U64(s->sample, 10);	/* the rate outlives an interval, the counts do not */
	CHECK_U64(s->ioctl_seen, 0);
	free(s);
}

static struct xp_nv_xid_rec xid(uint64_t ts, const char *dev, uint32_t code, const char *msg)
{
	struct xp_nv_xid_rec x;

	memset(&x, 0, sizeof(x));
	x.r = rec(0, 0, "irq", XP_NV_NO_MINOR, code, 0, 0, 0);
	x.r.fn = XP_NV_XID;
	x.r.timed = 0;
	x.r.h.size = sizeof(x);
	x.r.h.ts_ns = ts;
	snprintf(x.dev, sizeof(x.dev), "%s", dev);
	snprintf(x.msg, sizeof(x.msg), "%s", msg);
	return x;
}

static void ioctl_at(struct xp_nv_state *s, uint32_t pid, uint32_t minor, uint64_t start, uint64_t dur)
{
	struct xp_nv_rec r = rec(XP_NV_IOCTL, pid, "cuda", minor, RM_CONTROL, 0, dur, 0);

	r.h.ts_ns = start;
	xp_nv_add(s, &r);
}

/* An Xid names the processes holding its GPU and the ioctls that span its time. */
static void test_xid_join(void)
{
	struct xp_nv_state *s = malloc(sizeof(*s));
	struct xp_nv_xid_rec x;
	struct xp_run_info ri = { .command = "nvidia", .source = "live", .mode = "summary" };
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	xp_nv_init(s);
	xp_nv_add_gpu(s, "0000:01:00.0", 0);
	xp_nv_add_gpu(s, "0000:02:00.0", 1);
	add(s, rec(XP_NV_OPEN, 100, "train", 0, 0, 0xa, 0, 0));
	add(s, rec(XP_NV_OPEN, 100, "train", 255, 0, 0xb, 0, 0));
	add(s, rec(XP_NV_OPEN, 200, "other", 1, 0, 0xc, 0, 0));
	x = xid(1000, "0000:01:00.0", 79, "GPU has fallen off the bus.");
	xp_nv_add(s, &x.r);
	CHECK_U64(s->nxids, 1);
	CHECK_U64(s->xids[0].minor, 0);
	CHECK_U64(s->xids[0].nholders, 1);	/* the holder of /dev/nvidia0, not of nvidia1 or ctl */
	CHECK_U64(s->xids[0].holders[0].pid, 100);
	ioctl_at(s, 100, 255, 900, 200);	/* 900..1100 on nvidiactl: in flight */
	ioctl_at(s, 100, 0, 500, 400);		/* ended at 900: before */
	ioctl_at(s, 200, 1, 950, 100);		/* in flight, on the other GPU */
	ioctl_at(s, 100, 0, 1000, 5);		/* began at the Xid: in flight */
	CHECK_U64(s->xids[0].ninflight, 2);
	CHECK_U64(s->xids[0].inflight[0].start_ns, 900);
	CHECK_U64(s->xids[0].inflight[1].start_ns, 1000);
	/* an unknown PCI name: every GPU's holders */
	x = xid(2000, "0000:09:00.0", 13, "Graphics Engine Exception");
	xp_nv_add(s, &x.r);
	CHECK_U64(s->xids[1].minor, (uint64_t)-1);
	CHECK_U64(s->xids[1].nholders, 2);
	f = open_memstream(&buf, &len);
	xp_nv_report_json(f, s, &ri);
	fclose(f);
	CHECK(strstr(buf, "\"dev\":\"0000:01:00.0\",\"code\":79,\"msg\":\"GPU has fallen off the bus.\","
			  "\"device\":\"/dev/nvidia0\"") != NULL);
	CHECK(strstr(buf, "\"in_flight\":[{\"pid\":100,\"tid\":100,\"comm\":\"cuda\",\"name\":\"NV_ESC_RM_CONTROL\","
			  "\"device\":\"/dev/nvidiactl\",\"since_ns\":100,\"duration_ns\":200}") != NULL);
	free(buf);
	xp_nv_reset(s);
	CHECK_U64(s->nxids, 0);
	CHECK_U64(s->ngpus, 2);
	free(s);
}

static int count_rec(void *ctx, const struct xp_rec_hdr *h)
{
	uint64_t *n = ctx;

	n[0]++;
	n[1] = h->ts_ns;
	return 0;
}

/* The flight recorder keeps what is newer than the newest record's time -
 * keep, and writes it as a trace file that reads back. */
static void test_flight(void)
{
	struct xp_nv_flight fl;
	struct xp_trace_meta m;
	struct xp_trace_stats st = { .drops = { [XP_DROP_RINGBUF] = 3 } };
	struct xp_trace_reader rd;
	struct xp_nv_xid_rec x;
	uint64_t n[2] = { 0, 0 };
	FILE *f = tmpfile();

	CHECK(xp_nv_flight_init(&fl, 500000000ull) == 0);
	for (int i = 0; i < 100; i++) {	/* one every 10 ms: 0 .. 990 ms */
		struct xp_nv_rec r = rec(XP_NV_FAULT, 7, "c", 0, 0, 0, 0, 0);

		r.h.ts_ns = 1000000000ull + i * 10000000ull;
		xp_nv_flight_add(&fl, &r.h);
	}
	CHECK_U64(fl.records, 51);	/* 490 .. 990 ms */
	CHECK_U64(xp_nv_flight_oldest(&fl), 1490000000ull);
	x = xid(1995000000ull, "0000:01:00.0", 79, "GPU has fallen off the bus.");
	xp_nv_flight_add(&fl, &x.r.h);	/* 1.995 s: keeps 1.495 .. */
	CHECK_U64(fl.records, 51);
	CHECK_U64(xp_nv_flight_oldest(&fl), 1500000000ull);
	for (int i = 0; i < 20000; i++) {	/* 20000 records in one instant: grows, keeps all */
		struct xp_nv_rec r = rec(XP_NV_FAULT, 7, "c", 0, 0, 0, 0, 0);

		r.h.ts_ns = 1995000000ull;
		xp_nv_flight_add(&fl, &r.h);
	}
	CHECK_U64(fl.records, 20051);
	CHECK_U64(fl.evicted_full, 0);
	memset(&m, 0, sizeof(m));
	xp_trace_meta_host(&m, "test");
	m.start_ns = xp_nv_flight_oldest(&fl);
	xp_trace_meta_add_cap(&m, "nvidia");
	CHECK(f != NULL);
	if (!f)
		return;
	CHECK(xp_nv_flight_write(&fl, fileno(f), &m, &st, NULL, 0) == 0);
	CHECK_U64(st.records, 20051);
	rewind(f);
	CHECK(xp_trace_reader_open(&rd, f) == 0);
	CHECK(xp_trace_reader_run(&rd, count_rec, n) == 0);
	CHECK(rd.complete);
	CHECK_U64(n[0], 20051);
	CHECK_U64(n[1], 1995000000ull);
	CHECK_U64(rd.stats.drops[XP_DROP_RINGBUF], 3);
	xp_trace_reader_close(&rd);
	xp_trace_meta_free(&rd.meta);
	xp_trace_meta_free(&m);
	xp_nv_flight_free(&fl);
}

static int feed_state(void *ctx, const struct xp_rec_hdr *h)
{
	if (h->type == XP_REC_NVIDIA && xp_nv_rec_ok(h))
		xp_nv_add(ctx, (const struct xp_nv_rec *)h);
	return 0;
}

/*
 * What was so before the records began (GPUs, files held) goes into a file
 * as records and reads back: the holders are "before start", an Xid read
 * from the file is tied to its GPU and its holders as it was live.
 */
static void test_snapshot_file(void)
{
	struct xp_nv_state *s = malloc(sizeof(*s));
	struct xp_trace_writer *w;
	struct xp_trace_meta m;
	struct xp_trace_stats st = { 0 };
	struct xp_trace_reader rd;
	struct xp_nv_xid_rec g, x;
	struct xp_nv_rec h1, h2, bad;
	FILE *f = tmpfile();

	CHECK(f != NULL);
	if (!f)
		return;
	memset(&m, 0, sizeof(m));
	xp_trace_meta_host(&m, "test");
	xp_trace_meta_add_cap(&m, "nvidia");
	xp_nv_gpu_rec(&g, 10, "0000:01:00.0", 0);
	xp_nv_snapshot_rec(&h1, XP_NV_HOLDER, 10, 50, "old", 0, 0);
	xp_nv_snapshot_rec(&h2, XP_NV_HOLDER, 10, 51, "ctl-only", 255, 0);
	x = xid(1000, "0000:01:00.0", 79, "GPU has fallen off the bus.");
	CHECK(xp_nv_rec_ok(&g.r.h) && xp_nv_rec_ok(&h1.h) && xp_nv_rec_ok(&x.r.h));
	bad = h1;
	bad.fn = 0x83;
	CHECK(!xp_nv_rec_ok(&bad.h));
	bad = h1;	/* a GPU record needs the longer layout */
	bad.fn = XP_NV_GPU;
	CHECK(!xp_nv_rec_ok(&bad.h));
	CHECK(xp_trace_writer_open(&w, fileno(f), &m, 0) == 0);
	CHECK(xp_trace_writer_add(w, &g.r.h) == 0);
	CHECK(xp_trace_writer_add(w, &h1.h) == 0);
	CHECK(xp_trace_writer_add(w, &h2.h) == 0);
	CHECK(xp_trace_writer_add(w, &x.r.h) == 0);
	CHECK(xp_trace_writer_finish(w, &st) == 0);
	xp_trace_writer_free(w);
	rewind(f);
	xp_nv_init(s);
	CHECK(xp_trace_reader_open(&rd, f) == 0);
	CHECK(xp_trace_reader_run(&rd, feed_state, s) == 0);
	CHECK_U64(rd.records, 4);
	xp_trace_reader_close(&rd);
	xp_trace_meta_free(&rd.meta);
	xp_trace_meta_free(&m);
	fclose(f);
	CHECK_U64(s->ngpus, 1);
	CHECK_U64(s->nholds, 2);
	CHECK(s->holds[0].before && s->holds[1].before);
	CHECK_U64(s->calls[XP_NV_OPEN], 0);	/* no call counted for them */
	CHECK_U64(s->nprocs, 0);
	CHECK_U64(s->nxids, 1);
	CHECK_U64(s->xids[0].minor, 0);		/* the PCI name known from the file */
	CHECK_U64(s->xids[0].nholders, 1);	/* /dev/nvidia0's holder, not nvidiactl's */
	CHECK_U64(s->xids[0].holders[0].pid, 50);
	/* a close of a file held before the start matches it */
	add(s, rec(XP_NV_CLOSE, 50, "old", 0, 0, 0xc000, 0, 0));
	CHECK_U64(s->nholds, 1);
	CHECK_U64(s->closes_unknown, 0);
	free(s);
}

/* The flight file's holders: those of its first record's time. */
static void test_flight_holders(void)
{
	struct xp_nv_state *s = malloc(sizeof(*s));
	struct xp_nv_hold out[8];
	struct xp_nv_flight fl;
	struct xp_nv_rec r;
	int n;

	xp_nv_init(s);
	CHECK(xp_nv_flight_init(&fl, 1000000000ull) == 0);
	xp_nv_add_holder(s, 50, "old", 0);			/* before tracing, held all along */
	add(s, rec(XP_NV_OPEN, 60, "early", 0, 0, 0xa, 0, 0));	/* before the window, closed in it */
	add(s, rec(XP_NV_OPEN, 61, "early2", 0, 0, 0xb, 0, 0));	/* before the window, held */
	r = rec(XP_NV_OPEN, 70, "late", 0, 0, 0xc, 0, 0);	/* in the window, held */
	r.h.ts_ns = 100;
	xp_nv_add(s, &r);
	xp_nv_flight_add(&fl, &r.h);
	r = rec(XP_NV_CLOSE, 60, "early", 0, 0, 0xa, 0, 0);
	r.h.ts_ns = 200;
	xp_nv_add(s, &r);
	xp_nv_flight_add(&fl, &r.h);
	r = rec(XP_NV_OPEN, 80, "brief", 0, 0, 0xd, 0, 0);	/* opened and closed in it */
	r.h.ts_ns = 300;
	xp_nv_add(s, &r);
	xp_nv_flight_add(&fl, &r.h);
	r = rec(XP_NV_CLOSE, 80, "brief", 0, 0, 0xd, 0, 0);
	r.h.ts_ns = 400;
	xp_nv_add(s, &r);
	xp_nv_flight_add(&fl, &r.h);
	CHECK_U64(s->nholds, 3);	/* old, early2, late */
	n = xp_nv_flight_holders(&fl, s->holds, s->nholds, out, 8);
	CHECK_U64(n, 3);		/* old, early2, early: not late, not brief */
	for (int i = 0; i < n; i++) {
		CHECK(out[i].pid == 50 || out[i].pid == 61 || out[i].pid == 60);
		CHECK(out[i].before);
	}
	CHECK(xp_nv_flight_holders(&fl, s->holds, s->nholds, out, 2) <= 2);	/* bounded */
	xp_nv_flight_free(&fl);
	free(s);
}

/* serve's nvidia metrics: Xids by GPU and code; other records passed over, damaged ones said */
static void test_metrics(void)
{
	struct xp_metrics m;
	struct xp_metrics_in in = { .m = &m };
	struct xp_nv_metrics nm;
	struct xp_nv_xid_rec x;
	struct xp_nv_rec r = rec(XP_NV_IOCTL, 7, "cuda", 0, RM_CONTROL, 0, 1000, 0);
	char *out;

	xp_metrics_init(&m, 0);
	CHECK(xp_nv_metrics_init(&nm, &in) == 0);
	for (int i = 0; i < 3; i++) {
		x = xid(100 + i, i < 2 ? "0000:01:00.0" : "0000:41:00.0", i < 2 ? 79 : 13, "GPU has fallen off the bus.");
		CHECK(xp_nv_metrics_feed(&nm, &x.r.h) == 0);
	}
	x = xid(200, "0000:01:00.0", 13, "Graphics Engine Exception");
	CHECK(xp_nv_metrics_feed(&nm, &x.r.h) == 0);
	CHECK(xp_nv_metrics_feed(&nm, &r.h) == 0);	/* an ioctl: no metric of serve's */
	x.r.h.size = sizeof(struct xp_nv_rec);		/* an Xid cut short */
	CHECK(xp_nv_metrics_feed(&nm, &x.r.h) == 1);
	out = served(&m);
	CHECK(strstr(out, "xputrace_nvidia_xids_total{device=\"0000:01:00.0\",code=\"79\"} 2\n") != NULL);
	CHECK(strstr(out, "xputrace_nvidia_xids_total{device=\"0000:01:00.0\",code=\"13\"} 1\n") != NULL);
	CHECK(strstr(out, "xputrace_nvidia_xids_total{device=\"0000:41:00.0\",code=\"13\"} 1\n") != NULL);
	CHECK(m.nbounded == 3);
	free(out);
	xp_metrics_free(&m);
}

int main(void)
{
	use_record_kinds();
	RUN(test_snapshot_file);
	RUN(test_flight_holders);
	RUN(test_flight);
	RUN(test_xid_join);
	RUN(test_facts);
	RUN(test_double_matches);
	RUN(test_stats);
	RUN(test_report);
	RUN(test_sample);
	RUN(test_metrics);
	UNIT_EXIT();
}
