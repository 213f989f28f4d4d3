/*
 * fdinfo texts as each driver writes them (the keys, units and order of its
 * show_fdinfo and of drm_show_fdinfo / drm_print_memory_stats, whose sizes
 * are bytes, KiB or MiB, the largest unit that divides them), for the
 * parser's tests. The numbers are made up; the keys are the drivers'.
 */
#ifndef XP_TESTS_FDINFO_DRIVERS_H
#define XP_TESTS_FDINFO_DRIVERS_H

/* what the VFS writes before the driver's keys */
#define FDI_VFS "pos:\t0\nflags:\t02100002\nmnt_id:\t24\nino:\t1077\n"

/* amdgpu on 7.x: drm_print_memory_stats per placement, amd- extras, busy ns per IP */
static const char fdi_amdgpu[] = FDI_VFS
	"drm-driver:\tamdgpu\ndrm-client-id:\t17\ndrm-pdev:\t0000:03:00.0\npasid:\t32770\n"
	"drm-total-cpu:\t0\ndrm-shared-cpu:\t0\ndrm-resident-cpu:\t0\ndrm-purgeable-cpu:\t0\n"
	"drm-total-gtt:\t8 MiB\ndrm-shared-gtt:\t0\ndrm-resident-gtt:\t8 MiB\ndrm-purgeable-gtt:\t0\n"
	"drm-total-vram:\t262148 KiB\ndrm-shared-vram:\t0\ndrm-resident-vram:\t256 MiB\ndrm-purgeable-vram:\t0\n"
	"amd-evicted-vram:\t0 KiB\namd-requested-vram:\t262148 KiB\namd-requested-gtt:\t8192 KiB\n"
	"drm-engine-gfx:\t1234567890 ns\ndrm-engine-compute:\t5000000 ns\n";

/* amdgpu on 6.1: the older drm-memory-<region> in KiB, its own pdev and client id */
static const char fdi_amdgpu_61[] = FDI_VFS
	"drm-driver:\tamdgpu\ndrm-pdev:\t0000:03:00.0\ndrm-client-id:\t5\npasid:\t32769\n"
	"drm-memory-vram:\t131072 KiB\ndrm-memory-gtt: \t4096 KiB\ndrm-memory-cpu: \t0 KiB\n"
	"amd-memory-visible-vram:\t131072 KiB\namd-evicted-vram:\t0 KiB\namd-evicted-visible-vram:\t0 KiB\n"
	"amd-requested-vram:\t131072 KiB\namd-requested-visible-vram:\t0 KiB\namd-requested-gtt:\t4096 KiB\n"
	"drm-engine-gfx:\t100 ns\n";

/* i915: busy ns per engine class, capacity where a class has several, regions with active */
static const char fdi_i915[] = FDI_VFS
	"drm-driver:\ti915\ndrm-client-id:\t42\ndrm-pdev:\t0000:00:02.0\n"
	"drm-total-system0:\t12 MiB\ndrm-shared-system0:\t0\ndrm-active-system0:\t0\n"
	"drm-resident-system0:\t12 MiB\ndrm-purgeable-system0:\t1024 KiB\n"
	"drm-total-stolen-system0:\t0\ndrm-shared-stolen-system0:\t0\ndrm-active-stolen-system0:\t0\n"
	"drm-resident-stolen-system0:\t0\ndrm-purgeable-stolen-system0:\t0\n"
	"drm-engine-render:\t9288864723 ns\ndrm-engine-copy:\t2035071108 ns\ndrm-engine-video:\t0 ns\n"
	"drm-engine-capacity-video:\t2\ndrm-engine-video-enhance:\t0 ns\n";

/* xe: cycles over the GPU timestamp's total, per class, capacity */
static const char fdi_xe[] = FDI_VFS
	"drm-driver:\txe\ndrm-client-id:\t9\ndrm-pdev:\t0000:00:02.0\n"
	"drm-total-system:\t20 MiB\ndrm-shared-system:\t0\ndrm-active-system:\t0\ndrm-resident-system:\t20 MiB\n"
	"drm-purgeable-system:\t0\ndrm-total-stolen:\t0\ndrm-shared-stolen:\t0\ndrm-active-stolen:\t0\n"
	"drm-resident-stolen:\t0\ndrm-purgeable-stolen:\t0\n"
	"drm-cycles-rcs:\t28257900\ndrm-total-cycles-rcs:\t7655183225\n"
	"drm-cycles-bcs:\t0\ndrm-total-cycles-bcs:\t7655183225\n"
	"drm-cycles-vcs:\t0\ndrm-total-cycles-vcs:\t7655183225\ndrm-engine-capacity-vcs:\t2\n"
	"drm-cycles-vecs:\t0\ndrm-total-cycles-vecs:\t7655183225\ndrm-engine-capacity-vecs:\t2\n"
	"drm-cycles-ccs:\t0\ndrm-total-cycles-ccs:\t7655183225\ndrm-engine-capacity-ccs:\t4\n";

/* msm: one engine "gpu" in ns, its cycles and maximum frequency; memory as "memory" */
static const char fdi_msm[] = FDI_VFS
	"drm-driver:\tmsm\ndrm-client-id:\t3\n"
	"drm-engine-gpu:\t12345678 ns\ndrm-cycles-gpu:\t1234567\ndrm-maxfreq-gpu:\t800000000 Hz\n"
	"drm-total-memory:\t1024 KiB\ndrm-shared-memory:\t0\ndrm-active-memory:\t0\n"
	"drm-resident-memory:\t1024 KiB\ndrm-purgeable-memory:\t0\n";

/* panfrost: two slots, ns and cycles, maximum and current frequency */
static const char fdi_panfrost[] = FDI_VFS
	"drm-driver:\tpanfrost\ndrm-client-id:\t7\n"
	"drm-engine-fragment:\t1000000 ns\ndrm-cycles-fragment:\t800000\n"
	"drm-maxfreq-fragment:\t800000000 Hz\ndrm-curfreq-fragment:\t400000000 Hz\n"
	"drm-engine-vertex-tiler:\t500000 ns\ndrm-cycles-vertex-tiler:\t400000\n"
	"drm-maxfreq-vertex-tiler:\t800000000 Hz\ndrm-curfreq-vertex-tiler:\t400000000 Hz\n"
	"drm-total-memory:\t16 MiB\ndrm-shared-memory:\t0\ndrm-active-memory:\t2 MiB\n"
	"drm-resident-memory:\t16 MiB\ndrm-purgeable-memory:\t0\n";

/* panthor with cycle profiling only: cycles over the maximum frequency, its own memory keys */
static const char fdi_panthor[] = FDI_VFS
	"drm-driver:\tpanthor\ndrm-client-id:\t11\n"
	"drm-cycles-panthor:\t3000000\ndrm-maxfreq-panthor:\t1000000000 Hz\ndrm-curfreq-panthor:\t500000000 Hz\n"
	"panthor-resident-memory:\t2048 KiB\npanthor-active-memory:\t0 KiB\n"
	"drm-total-memory:\t2 MiB\ndrm-shared-memory:\t0\ndrm-active-memory:\t0\n"
	"drm-resident-memory:\t2 MiB\ndrm-purgeable-memory:\t0\n";

/* v3d: five queues in ns, its job counts (v3d- keys) */
static const char fdi_v3d[] = FDI_VFS
	"drm-driver:\tv3d\ndrm-client-id:\t4\n"
	"drm-engine-bin:\t1000 ns\nv3d-jobs-bin:\t3 jobs\ndrm-engine-render:\t2000 ns\nv3d-jobs-render:\t3 jobs\n"
	"drm-engine-tfu:\t0 ns\nv3d-jobs-tfu:\t0 jobs\ndrm-engine-csd:\t0 ns\nv3d-jobs-csd:\t0 jobs\n"
	"drm-engine-cache_clean:\t0 ns\nv3d-jobs-cache_clean:\t0 jobs\n"
	"drm-total-memory:\t4 MiB\ndrm-shared-memory:\t0\ndrm-active-memory:\t0\n"
	"drm-resident-memory:\t4 MiB\ndrm-purgeable-memory:\t0\n";

/* etnaviv: memory only, no busy keys */
static const char fdi_etnaviv[] = FDI_VFS
	"drm-driver:\tetnaviv\ndrm-client-id:\t2\n"
	"drm-total-memory:\t4 MiB\ndrm-shared-memory:\t0\ndrm-active-memory:\t0\n"
	"drm-resident-memory:\t4 MiB\ndrm-purgeable-memory:\t0\n";

/* intel_vpu (accel): one engine, memory */
static const char fdi_ivpu[] = FDI_VFS
	"drm-driver:\tintel_vpu\ndrm-client-id:\t1\ndrm-pdev:\t0000:00:0b.0\n"
	"drm-engine-compute:\t50000 ns\n"
	"drm-total-memory:\t32 MiB\ndrm-shared-memory:\t0\ndrm-active-memory:\t0\n"
	"drm-resident-memory:\t32 MiB\ndrm-purgeable-memory:\t0\n";

/* amdxdna (accel): memory, one NPU engine */
static const char fdi_amdxdna[] = FDI_VFS
	"drm-driver:\tamdxdna_accel_driver\ndrm-client-id:\t6\ndrm-pdev:\t0000:c5:00.1\n"
	"drm-total-memory:\t8 MiB\ndrm-shared-memory:\t0\ndrm-active-memory:\t0\n"
	"drm-resident-memory:\t8 MiB\ndrm-purgeable-memory:\t0\n"
	"drm-engine-npu-amdxdna:\t777 ns\n";

#endif
