/*
 * fdinfo: the parser on each driver's keys, garbage, the accounting across
 * samples (ns, cycles over total cycles or maximum frequency, capacity,
 * shared files, gone clients), a sample of a fixture /proc tree (shared
 * descriptors, an exit between samples, a process it may not read), the
 * summary and the metrics.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "unit.h"
#include "fdinfo_drivers.h"
#include "metrics_util.h"
#include "caps/fdinfo/fdinfo_metrics.h"
#include "caps/fdinfo/fdinfo_parse.h"
#include "caps/fdinfo/fdinfo_report.h"
#include "caps/fdinfo/fdinfo_scan.h"

static struct xp_fdinfo FI;

static bool parse(const char *t)
{
	return xp_fdinfo_parse(t, strlen(t), &FI);
}

static const struct xp_fdi_engine *eng(const char *n)
{
	static const struct xp_fdi_engine none;
	int i = xp_fdi_engine_find(&FI, n);

	CHECK(i >= 0);
	return i >= 0 ? &FI.eng[i] : &none;
}

static const struct xp_fdi_region *reg(const char *n)
{
	static const struct xp_fdi_region none;
	int i = xp_fdi_region_find(&FI, n);

	CHECK(i >= 0);
	return i >= 0 ? &FI.reg[i] : &none;
}

#define MIB (1ull << 20)
#define KIB (1ull << 10)

static void test_amdgpu(void)
{
	CHECK(parse(fdi_amdgpu));
	CHECK_STR(FI.driver, "amdgpu");
	CHECK_STR(FI.pdev, "0000:03:00.0");
	CHECK_U64(FI.client_id, 17);
	CHECK_U64(FI.neng, 2);
	CHECK_U64(eng("gfx")->ns, 1234567890);
	CHECK_U64(eng("gfx")->have, XP_FDI_NS);
	CHECK_U64(eng("compute")->ns, 5000000);
	CHECK_U64(eng("compute")->capacity, 1);
	CHECK_U64(FI.nreg, 3);
	CHECK_U64(reg("vram")->bytes[XP_FDI_TOTAL], 262148 * KIB);
	CHECK_U64(reg("vram")->bytes[XP_FDI_RESIDENT], 256 * MIB);
	CHECK_U64(reg("gtt")->bytes[XP_FDI_RESIDENT], 8 * MIB);
	CHECK_U64(reg("cpu")->have, 0xf);	/* no active */
	CHECK_U64(FI.unknown, 0);
	/* 6.1: drm-memory-<region> is resident */
	CHECK(parse(fdi_amdgpu_61));
	CHECK_U64(FI.client_id, 5);
	CHECK_U64(reg("vram")->bytes[XP_FDI_RESIDENT], 131072 * KIB);
	CHECK_U64(reg("vram")->have, 1u << XP_FDI_RESIDENT);
	CHECK_U64(reg("gtt")->bytes[XP_FDI_RESIDENT], 4096 * KIB);
	CHECK_U64(eng("gfx")->ns, 100);
	CHECK_U64(FI.unknown, 0);
}

static void test_i915(void)
{
	CHECK(parse(fdi_i915));
	CHECK_STR(FI.driver, "i915");
	CHECK_U64(FI.client_id, 42);
	CHECK_U64(FI.neng, 4);
	CHECK_U64(eng("render")->ns, 9288864723ull);
	CHECK_U64(eng("copy")->ns, 2035071108ull);
	CHECK_U64(eng("video")->capacity, 2);
	CHECK_U64(eng("video-enhance")->capacity, 1);
	CHECK_U64(reg("system0")->bytes[XP_FDI_PURGEABLE], 1024 * KIB);
	CHECK_U64(reg("system0")->have, 0x1f);
	CHECK_U64(reg("stolen-system0")->have, 0x1f);
	CHECK_U64(FI.unknown, 0);
}

static void test_xe(void)
{
	CHECK(parse(fdi_xe));
	CHECK_U64(FI.neng, 5);
	CHECK_U64(eng("rcs")->cycles, 28257900);
	CHECK_U64(eng("rcs")->total_cycles, 7655183225ull);
	CHECK_U64(eng("rcs")->have, XP_FDI_CYCLES | XP_FDI_TOTAL_CYCLES);
	CHECK_U64(eng("vcs")->capacity, 2);
	CHECK_U64(eng("ccs")->capacity, 4);
	CHECK_U64(reg("system")->bytes[XP_FDI_TOTAL], 20 * MIB);
	CHECK(xp_fdi_region_find(&FI, "cycles-rcs") < 0);	/* drm-total-cycles- is no region */
	CHECK_U64(FI.nreg, 2);
	CHECK_U64(FI.unknown, 0);
}

static void test_arm_and_others(void)
{
	CHECK(parse(fdi_msm));
	CHECK_STR(FI.pdev, "");
	CHECK_U64(eng("gpu")->maxfreq_hz, 800000000);
	CHECK_U64(eng("gpu")->have, XP_FDI_NS | XP_FDI_CYCLES | XP_FDI_MAXFREQ);
	CHECK_U64(reg("memory")->bytes[XP_FDI_RESIDENT], 1024 * KIB);
	CHECK(parse(fdi_panfrost));
	CHECK_U64(FI.neng, 2);
	CHECK_U64(eng("vertex-tiler")->ns, 500000);
	CHECK_U64(reg("memory")->bytes[XP_FDI_ACTIVE], 2 * MIB);
	CHECK_U64(FI.unknown, 0);
	CHECK(parse(fdi_panthor));
	CHECK_U64(eng("panthor")->have, XP_FDI_CYCLES | XP_FDI_MAXFREQ);
	CHECK_U64(eng("panthor")->cycles, 3000000);
	CHECK_U64(FI.nreg, 1);	/* panthor-*-memory are not drm- keys */
	CHECK(parse(fdi_v3d));
	CHECK_U64(FI.neng, 5);
	CHECK_U64(eng("cache_clean")->have, XP_FDI_NS);
	CHECK_U64(eng("render")->ns, 2000);
	CHECK(parse(fdi_etnaviv));
	CHECK_U64(FI.neng, 0);
	CHECK_U64(reg("memory")->bytes[XP_FDI_TOTAL], 4 * MIB);
	CHECK(parse(fdi_ivpu));
	CHECK_STR(FI.driver, "intel_vpu");
	CHECK_U64(eng("compute")->ns, 50000);
	CHECK(parse(fdi_amdxdna));
	CHECK_U64(eng("npu-amdxdna")->ns, 777);
	CHECK_U64(reg("memory")->bytes[XP_FDI_RESIDENT], 8 * MIB);
	CHECK_U64(FI.unknown, 0);
}

static void test_missing_and_unknown(void)
{
	/* no client id: no usage stats (a driver without show_fdinfo, the core's lines only) */
	CHECK(!parse(FDI_VFS "drm-driver:\tvkms\n"));
	CHECK(!parse(""));
	CHECK(!parse(FDI_VFS));
	/* keys it does not know, units it does not know: counted, the rest read */
	CHECK(parse("drm-client-id: 3\ndrm-frobs-gfx: 12\ndrm-total-vram: 12 parsecs\n"
		    "drm-engine-gfx: 10 us\ndrm-engine-copy: 7 ns\ndrm-engine-capacity-copy: 0\n"
		    "drm-maxfreq-gfx: 2 MHz\ndrm-resident-vram: 1 GiB\n"));
	CHECK_U64(FI.unknown, 4);
	CHECK_U64(eng("copy")->ns, 7);
	CHECK_U64(eng("copy")->capacity, 1);
	CHECK_U64(eng("gfx")->maxfreq_hz, 2000000);
	CHECK_U64(eng("gfx")->have, XP_FDI_MAXFREQ);
	CHECK_U64(reg("vram")->bytes[XP_FDI_RESIDENT], 1ull << 30);
	CHECK_U64(reg("vram")->have, 1u << XP_FDI_RESIDENT);
	/* resident wins over the older key in either order; an overflow is refused */
	CHECK(parse("drm-client-id: 1\ndrm-resident-vram: 2 KiB\ndrm-memory-vram: 9 KiB\n"
		    "drm-memory-gtt: 9 KiB\ndrm-resident-gtt: 3 KiB\ndrm-total-x: 99999999999999999999\n"
		    "drm-total-y: 18014398509481984 GiB\n"));
	CHECK_U64(reg("vram")->bytes[XP_FDI_RESIDENT], 2 * KIB);
	CHECK_U64(reg("gtt")->bytes[XP_FDI_RESIDENT], 3 * KIB);
	CHECK_U64(FI.unknown, 2);
	/* engines past the limit are counted, not kept */
	{
		char t[4096];
		size_t k = (size_t)snprintf(t, sizeof(t), "drm-client-id: 1\n");

		for (int i = 0; i < XP_FDI_MAX_ENGINES + 3; i++)
			k += (size_t)snprintf(t + k, sizeof(t) - k, "drm-engine-e%d: %d ns\n", i, i);
		CHECK(parse(t));
		CHECK_U64(FI.neng, XP_FDI_MAX_ENGINES);
		CHECK_U64(FI.over, 3);
	}
}

/* Garbage never crashes it, and what it keeps stays within its limits. */
static void test_garbage(void)
{
	static const char *const bits[] = {
		"drm-", "engine-", "cycles-", "total-", "capacity-", "memory-", "client-id", ":", "\t", " ",
		"\n", "ns", "KiB", "MiB", "99999999999999999999", "0", "7", "-", "\0", "\xff", "resident-",
		"maxfreq-", "Hz", "pdev", "driver", "x",
	};
	char buf[512];
	unsigned seed = 12345;

	for (int n = 0; n < 20000; n++) {
		size_t k = 0;

		while (k < sizeof(buf) - 32) {
			seed = seed * 1103515245u + 12345u;
			if ((seed >> 16) % 7 == 0) {
				buf[k++] = (char)(seed >> 8);
				continue;
			}
			const char *b = bits[(seed >> 16) % (sizeof(bits) / sizeof(bits[0]))];
			size_t l = *b ? strlen(b) : 1;

			memcpy(buf + k, b, l);
			k += l;
			if ((seed >> 24) % 11 == 0)
				break;
		}
		xp_fdinfo_parse(buf, k, &FI);
		CHECK(FI.neng <= XP_FDI_MAX_ENGINES && FI.nreg <= XP_FDI_MAX_REGIONS);
		CHECK(memchr(FI.driver, 0, sizeof(FI.driver)) != NULL);
	}
}

int main(void)
{
	RUN(test_amdgpu);
	RUN(test_i915);
	RUN(test_xe);
	RUN(test_arm_and_others);
	RUN(test_missing_and_unknown);
	RUN(test_garbage);
	UNIT_EXIT();
}
