/* Tests for latency's core: probe specs, key lists and fields, per-key statistics. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "caps/latency/latency_keys.h"
#include "caps/latency/latency_stats.h"
#include "core/probespec.h"
#include "caps/latency/latency_report.h"
#include "unit.h"

/* An smmu fault event as tracefs shows one: a __string and an int. */
static const char fmt_fault[] =
	"name: io_fault_entry\n"
	"ID: 1500\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:__data_loc char[] dev;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:int pasid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:char name[16];\toffset:16;\tsize:16;\tsigned:0;\n"
	"\tfield:u8 buf[24];\toffset:32;\tsize:24;\tsigned:0;\n"
	"\n"
	"print fmt: \"dev=%s pasid=%d\", __get_str(dev), REC->pasid\n";

static void t_probe_parse(void)
{
	struct xp_probe p;
	char err[256], buf[512];

	CHECK(xp_probe_parse("tracepoint:smmu:io_fault_entry", &p, err, sizeof(err)) == 0);
	CHECK(p.kind == XP_PROBE_TRACEPOINT);
	CHECK_STR(p.group, "smmu");
	CHECK_STR(p.name, "io_fault_entry");
	CHECK(xp_probe_parse("t:syscalls:sys_enter_read", &p, err, sizeof(err)) == 0 && p.kind == XP_PROBE_TRACEPOINT);
	CHECK(xp_probe_parse("kretprobe:do_sys_openat2", &p, err, sizeof(err)) == 0);
	CHECK(p.kind == XP_PROBE_KRETPROBE && xp_probe_is_return(p.kind) && xp_probe_has_args(p.kind));
	CHECK_STR(p.name, "do_sys_openat2");
	CHECK(xp_probe_parse("k:vfs_read.isra.0", &p, err, sizeof(err)) == 0 && p.kind == XP_PROBE_KPROBE);
	CHECK(xp_probe_parse("uprobe:/usr/lib/x86_64-linux-gnu/libc.so.6:malloc", &p, err, sizeof(err)) == 0);
	CHECK(p.kind == XP_PROBE_UPROBE && !xp_probe_is_return(p.kind));
	CHECK_STR(p.path, "/usr/lib/x86_64-linux-gnu/libc.so.6");
	CHECK_STR(p.name, "malloc");
	CHECK(xp_probe_parse("ur:libc.so.6:free", &p, err, sizeof(err)) == 0 && p.kind == XP_PROBE_URETPROBE);
	CHECK_STR(xp_probe_str(&p, buf, sizeof(buf)), "uretprobe:libc.so.6:free");
	CHECK(xp_probe_parse("fexit:vfs_read", &p, err, sizeof(err)) == 0 && p.kind == XP_PROBE_FEXIT);

	CHECK(xp_probe_parse("tracepoint", &p, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "want KIND:") != NULL);
	CHECK(xp_probe_parse("bogus:x", &p, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "unknown kind 'bogus'") != NULL);
	CHECK(xp_probe_parse("tracepoint:sched", &p, err, sizeof(err)) == -EINVAL);
	CHECK(xp_probe_parse("tracepoint:sched:", &p, err, sizeof(err)) == -EINVAL);
	CHECK(xp_probe_parse("tracepoint:a/b:c", &p, err, sizeof(err)) == -EINVAL);
	CHECK(xp_probe_parse("kprobe:", &p, err, sizeof(err)) == -EINVAL);
	CHECK(xp_probe_parse("kprobe:a b", &p, err, sizeof(err)) == -EINVAL);
	CHECK(xp_probe_parse("uprobe:malloc", &p, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "want uprobe:LIBRARY:SYMBOL") != NULL);
	CHECK(xp_probe_parse("uprobe::malloc", &p, err, sizeof(err)) == -EINVAL);
	CHECK(xp_probe_parse("uprobe:libc.so.6:", &p, err, sizeof(err)) == -EINVAL);
}

static void t_keyspec(void)
{
	struct xp_keyspec k;
	char err[256];

	CHECK(xp_keyspec_parse("dev,pasid", &k, err, sizeof(err)) == 0);
	CHECK_U64(k.n, 2);
	CHECK_STR(k.name[0], "dev");
	CHECK_STR(k.name[1], "pasid");
	CHECK(xp_keyspec_parse("tid", &k, err, sizeof(err)) == 0 && k.n == 1);
	CHECK(xp_keyspec_parse("a,b,c", &k, err, sizeof(err)) == -EINVAL && strstr(err, "at most 2"));
	CHECK(xp_keyspec_parse("", &k, err, sizeof(err)) == -EINVAL);
	CHECK(xp_keyspec_parse("a,", &k, err, sizeof(err)) == -EINVAL);
	CHECK(xp_keyspec_parse("1x", &k, err, sizeof(err)) == -EINVAL);
	CHECK(xp_keyspec_parse("x,x", &k, err, sizeof(err)) == -EINVAL && strstr(err, "twice"));
	CHECK_U64(xp_key_arg("arg0"), 0);
	CHECK_U64(xp_key_arg("arg5"), 5);
	CHECK(xp_key_arg("arg6") == -1 && xp_key_arg("arg") == -1 && xp_key_arg("arg10") == -1);
}

static void t_presets(void)
{
	struct xp_lat_preset p;
	char err[256];

	CHECK(xp_lat_preset_get("syscall:clock_nanosleep", &p, err, sizeof(err)) == 0);
	CHECK_STR(p.from[0], "tracepoint:syscalls:sys_enter_clock_nanosleep");
	CHECK_STR(p.to[0], "tracepoint:syscalls:sys_exit_clock_nanosleep");
	CHECK_STR(p.key[0], "tid");
	CHECK(!p.from[1][0]);
	CHECK(xp_lat_preset_get("iopf", &p, err, sizeof(err)) == 0);
	CHECK_STR(p.from[0], "tracepoint:smmu:io_fault_entry");
	CHECK_STR(p.key[0], "dev,pasid");
	CHECK_STR(p.from[1], "kprobe:iommu_report_device_fault");
	CHECK(xp_lat_preset_get("syscall:", &p, err, sizeof(err)) == -EINVAL);
	CHECK(xp_lat_preset_get("syscall:../x", &p, err, sizeof(err)) == -EINVAL);
	CHECK(xp_lat_preset_get("nope", &p, err, sizeof(err)) == -EINVAL);
}

static void t_key_resolve(void)
{
	struct xp_tp_format f;
	struct xp_probe tp, kp, krp;
	struct xp_keyspec k;
	struct xp_lat_side_cfg c;
	uint8_t kind[XP_LAT_MAX_KEYS], kind2[XP_LAT_MAX_KEYS];
	char err[512];

	CHECK(xp_tp_format_parse(fmt_fault, &f) == 0);
	xp_probe_parse("tracepoint:smmu:io_fault_entry", &tp, err, sizeof(err));
	xp_probe_parse("kprobe:iommu_report_device_fault", &kp, err, sizeof(err));
	xp_probe_parse("kretprobe:iommu_report_device_fault", &krp, err, sizeof(err));

	xp_keyspec_parse("dev,pasid", &k, err, sizeof(err));
	CHECK(xp_lat_key_resolve(&k, &tp, &f, &c, kind, err, sizeof(err)) == 0);
	CHECK(c.f[0].src == XP_LAT_SRC_STRLOC && c.f[0].off == 8);
	CHECK(c.f[1].src == XP_LAT_SRC_NUM && c.f[1].off == 12 && c.f[1].size == 4 && c.f[1].is_signed);
	CHECK(kind[0] == XP_LAT_KIND_STR && kind[1] == XP_LAT_KIND_INT);

	xp_keyspec_parse("name,tid", &k, err, sizeof(err));
	CHECK(xp_lat_key_resolve(&k, &tp, &f, &c, kind, err, sizeof(err)) == 0);
	CHECK(c.f[0].src == XP_LAT_SRC_CHARS && c.f[0].size == 16 && kind[0] == XP_LAT_KIND_STR);
	CHECK(c.f[1].src == XP_LAT_SRC_TID && kind[1] == XP_LAT_KIND_UINT);

	xp_keyspec_parse("nope", &k, err, sizeof(err));
	CHECK(xp_lat_key_resolve(&k, &tp, &f, &c, kind, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "no field 'nope' (fields: dev, pasid, name, buf)") != NULL);
	xp_keyspec_parse("buf", &k, err, sizeof(err));
	CHECK(xp_lat_key_resolve(&k, &tp, &f, &c, kind, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "neither a number nor a string") != NULL);
	xp_keyspec_parse("arg0", &k, err, sizeof(err));
	CHECK(xp_lat_key_resolve(&k, &tp, &f, &c, kind, err, sizeof(err)) == -EINVAL);

	/* function probes: arguments at the entry only */
	CHECK(xp_lat_key_resolve(&k, &kp, NULL, &c, kind, err, sizeof(err)) == 0);
	CHECK(c.f[0].src == XP_LAT_SRC_ARG && c.f[0].arg == 0 && kind[0] == XP_LAT_KIND_HEX);
	CHECK(xp_lat_key_resolve(&k, &krp, NULL, &c, kind, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "arguments are gone") != NULL);
	{
		struct xp_probe fx;

		/* fexit's trampoline keeps the arguments */
		xp_probe_parse("fexit:iommu_report_device_fault", &fx, err, sizeof(err));
		CHECK(xp_lat_key_resolve(&k, &fx, NULL, &c, kind, err, sizeof(err)) == 0);
		CHECK(c.f[0].src == XP_LAT_SRC_ARG && c.f[0].arg == 0);
	}
	xp_keyspec_parse("dev", &k, err, sizeof(err));
	CHECK(xp_lat_key_resolve(&k, &kp, NULL, &c, kind, err, sizeof(err)) == -EINVAL);
	CHECK(strstr(err, "no field 'dev'") != NULL);

	/* both sides: a string cannot pair with a number */
	xp_keyspec_parse("dev", &k, err, sizeof(err));
	CHECK(xp_lat_key_resolve(&k, &tp, &f, &c, kind, err, sizeof(err)) == 0);
	xp_keyspec_parse("arg1", &k, err, sizeof(err));
	CHECK(xp_lat_key_resolve(&k, &kp, NULL, &c, kind2, err, sizeof(err)) == 0);
	CHECK(xp_lat_key_agree(&k, kind, kind2, err, sizeof(err)) == -EINVAL);
	CHECK(xp_lat_key_agree(&k, kind2, kind2, err, sizeof(err)) == 0);
}

static void t_percentile(void)
{
	uint64_t v[10];

	for (int i = 0; i < 10; i++)
		v[i] = (uint64_t)(i + 1) * 10;	/* 10 .. 100 */
	CHECK_U64(xp_lat_percentile(v, 10, 50), 50);
	CHECK_U64(xp_lat_percentile(v, 10, 90), 90);
	CHECK_U64(xp_lat_percentile(v, 10, 99), 100);
	CHECK_U64(xp_lat_percentile(v, 10, 100), 100);
	CHECK_U64(xp_lat_percentile(v, 10, 1), 10);
	CHECK_U64(xp_lat_percentile(v, 10, 51), 60);
	CHECK_U64(xp_lat_percentile(v, 1, 50), 10);
	CHECK_U64(xp_lat_percentile(v, 0, 50), 0);
}

static struct xp_lat_rec mkrec(uint64_t tid, const char *dev, uint64_t start, uint64_t lat)
{
	struct xp_lat_rec r;

	memset(&r, 0, sizeof(r));
	r.hdr.type = XP_REC_LATENCY;
	r.hdr.size = sizeof(r);
	r.hdr.ts_ns = start;
	r.hdr.tid = (uint32_t)tid;
	r.end_ns = start + lat;
	if (dev) {
		snprintf((char *)r.key.k[0], XP_LAT_SLOT, "%s", dev);
		memcpy(r.key.k[1], &tid, sizeof(tid));
		r.kind[0] = XP_LAT_KIND_STR;
		r.kind[1] = XP_LAT_KIND_INT;
		snprintf(r.names, sizeof(r.names), "dev,pasid");
	} else {
		memcpy(r.key.k[0], &tid, sizeof(tid));
		r.kind[0] = XP_LAT_KIND_UINT;
		snprintf(r.names, sizeof(r.names), "tid");
	}
	snprintf(r.comm, sizeof(r.comm), "t%llu", (unsigned long long)tid);
	return r;
}

static void t_stats(void)
{
	static const uint64_t sample[] = { 2, 4, 4, 4, 5, 5, 7, 9 };	/* mean 5, sample stddev sqrt(32/7) */
	struct xp_lat_state s;
	struct xp_lat_summary m;
	struct xp_lat_rec r;
	char buf[128];
	uint64_t sum = 0;

	xp_lat_init(&s, 0);
	for (size_t i = 0; i < 8; i++) {
		r = mkrec(7, NULL, 1000 * i, sample[i] * 1000);
		CHECK(xp_lat_add(&s, &r) == 0);
	}
	for (int i = 0; i < 100; i++) {
		r = mkrec(3, NULL, 5000, (uint64_t)(i + 1) * 1000);
		CHECK(xp_lat_add(&s, &r) == 0);
	}
	r = mkrec(3, NULL, 5000, 0);
	r.end_ns = 4000;	/* ends before it starts */
	CHECK(xp_lat_add(&s, &r) == 0);
	CHECK_U64(s.pairs, 108);
	CHECK_U64(s.bad, 1);
	CHECK_U64(s.nrows, 2);
	xp_lat_sort(&s);
	CHECK_STR(xp_lat_key_str(&s, &s.rows[0], buf, sizeof(buf)), "tid=3");
	CHECK_STR(xp_lat_key_str(&s, &s.rows[1], buf, sizeof(buf)), "tid=7");
	xp_lat_summarize(&s.rows[1], &m);
	CHECK_U64(m.count, 8);
	CHECK_U64(m.min, 2000);
	CHECK_U64(m.max, 9000);
	CHECK_U64(m.p50, 4000);
	CHECK_U64(m.p90, 9000);
	CHECK(m.mean > 4999.999 && m.mean < 5000.001);
	CHECK(m.stddev > 2138.08 && m.stddev < 2138.10);	/* sqrt(32/7) * 1000 = 2138.0899 */
	xp_lat_summarize(&s.rows[0], &m);
	CHECK_U64(m.count, 100);
	CHECK_U64(m.p50, 50000);
	CHECK_U64(m.p90, 90000);
	CHECK_U64(m.p99, 99000);
	CHECK(m.stddev > 29011.4 && m.stddev < 29011.5);	/* sqrt(841.666..) * 1000 */
	/* the histogram holds every pair */
	{
		uint64_t slots[XP_LOG2_SLOTS];

		xp_hist_log2(&s.rows[0].h, slots);
		for (int i = 0; i < XP_LOG2_SLOTS; i++)
			sum += slots[i];
		CHECK_U64(sum, 100);
	}
	xp_lat_reset(&s);
	CHECK_U64(s.nrows, 0);
	CHECK_U64(s.pairs, 0);
	r = mkrec(7, NULL, 0, 10);
	CHECK(xp_lat_add(&s, &r) == 0);
	CHECK_U64(s.nrows, 1);
	CHECK_U64(s.rows[0].count, 1);
	xp_lat_free(&s);
}

static void t_string_keys_and_other(void)
{
	struct xp_lat_state s;
	struct xp_lat_rec r;
	char buf[128];

	xp_lat_init(&s, 2);
	r = mkrec(3, "0000:00:02.0", 0, 100);
	xp_lat_add(&s, &r);
	r = mkrec(1, "0000:00:02.0", 0, 200);
	xp_lat_add(&s, &r);
	r = mkrec(1, "0000:00:02.0", 0, 300);
	xp_lat_add(&s, &r);
	r = mkrec(9, "0000:00:03.0", 0, 400);	/* a third key: past max_keys */
	xp_lat_add(&s, &r);
	r = mkrec(10, "0000:00:03.0", 0, 500);
	xp_lat_add(&s, &r);
	CHECK_U64(s.nrows, 3);
	xp_lat_sort(&s);
	CHECK_STR(xp_lat_key_str(&s, &s.rows[0], buf, sizeof(buf)), "dev=0000:00:02.0 pasid=1");
	CHECK_U64(s.rows[0].count, 2);
	CHECK_STR(xp_lat_key_str(&s, &s.rows[1], buf, sizeof(buf)), "dev=0000:00:02.0 pasid=3");
	CHECK(s.rows[2].other);
	CHECK_U64(s.rows[2].count, 2);
	CHECK_STR(xp_lat_key_name(&s, 1, buf, sizeof(buf)), "pasid");
	xp_lat_free(&s);
}

/* The summary of the kernel's counters, text and JSON, into a string. */
static char *report(struct xp_lat_state *s, bool json)
{
	struct xp_run_info ri = { .command = "latency", .source = "live", .mode = "summary" };
	struct xp_lat_report r = { .st = s, .ri = &ri };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(json ? xp_lat_report_json : xp_lat_report_text)(f, &r);
	fclose(f);
	return buf;
}

/*
 * Starts whose end the kernel skipped are left without their end, not
 * still open; skips a kernel cannot count are null in JSON and said so in
 * text, and then every open start is still open.
 */
static void t_skip_accounting(void)
{
	struct xp_lat_state s;
	char *t;

	xp_lat_init(&s, 0);
	s.have_kernel = true;
	s.kstat[XP_LAT_ST_STARTS] = 10;
	s.kstat[XP_LAT_ST_ENDS] = 7;
	s.kstat[XP_LAT_ST_TO_RECOVERED] = 2;
	s.open = 3;
	s.skipped[0] = 0;
	s.skipped[1] = 2;
	s.skip_known[0] = s.skip_known[1] = true;
	t = report(&s, true);
	CHECK(strstr(t, "\"still_open\":1,") != NULL);
	CHECK(strstr(t, "\"starts_skipped\":0,\"ends_skipped\":2,\"unpaired_end_skipped\":2,") != NULL);
	CHECK(strstr(t, "\"ends\":7,") != NULL);
	CHECK(strstr(t, "\"ends_from_args\":2,") != NULL);
	CHECK(strstr(t, "\"ended_before_start\":0,") != NULL);
	free(t);
	t = report(&s, false);
	CHECK(strstr(t, "still open 1\n") != NULL);
	CHECK(strstr(t, "starts 0, ends 2 (starts left without their end 2); done from the event's "
			"arguments instead: starts 0, ends 2;") != NULL);
	free(t);
	/* more skipped ends than open starts: none still open, never below zero */
	s.skipped[1] = 5;
	t = report(&s, true);
	CHECK(strstr(t, "\"still_open\":0,") != NULL && strstr(t, "\"unpaired_end_skipped\":3,") != NULL);
	free(t);
	s.skip_known[1] = false;
	t = report(&s, true);
	CHECK(strstr(t, "\"still_open\":3,") != NULL);
	CHECK(strstr(t, "\"ends_skipped\":null,\"unpaired_end_skipped\":0,") != NULL);
	free(t);
	t = report(&s, false);
	CHECK(strstr(t, "ends not counted by this kernel") != NULL);
	free(t);
	xp_lat_free(&s);
}

/* No pairs at all (a JSON summary of an idle run): sorting and summing an
 * empty state touches no array; under UBSan (make check-asan) a NULL given
 * to qsort_r, even with no element, is an error. */
static void t_empty(void)
{
	struct xp_lat_state s;

	xp_lat_init(&s, 0);
	xp_lat_sort(&s);
	CHECK_U64(s.nrows, 0);
	CHECK_U64(s.pairs, 0);
	xp_lat_reset(&s);
	xp_lat_sort(&s);
	CHECK_U64(s.nrows, 0);
	xp_lat_free(&s);
}

int main(void)
{
	RUN(t_probe_parse);
	RUN(t_keyspec);
	RUN(t_presets);
	RUN(t_key_resolve);
	RUN(t_percentile);
	RUN(t_stats);
	RUN(t_string_keys_and_other);
	RUN(t_skip_accounting);
	RUN(t_empty);
	UNIT_EXIT();
}
