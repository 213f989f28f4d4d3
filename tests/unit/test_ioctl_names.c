/*
 * Tests for src/caps/ioctl/ioctl_names.c.
 *
 * Expected command numbers are written out in full, computed from each
 * header's definition (direction, 'd' + DRM_COMMAND_BASE + index, and the
 * argument's size on x86-64), so that a wrong index or a wrong table in the
 * implementation shows up here. The comment next to each number gives the
 * definition it was computed from.
 */
#include "caps/ioctl/ioctl_names.h"

#include "unit.h"

static char buf[128];

/* Name of cmd on a DRM node bound to driver. */
static const char *drm(const char *driver, uint32_t cmd)
{
	return xp_ioctl_name(XP_DEV_DRM, driver, cmd, buf, sizeof(buf));
}

static const char *const all_drivers[] = {
	"amdgpu", "i915", "xe", "nouveau", "msm", "panfrost", "v3d",
	"intel_vpu", "ivpu", "vgem", "some_other_driver", NULL,
};
#define N_DRIVERS (sizeof(all_drivers) / sizeof(all_drivers[0]))

static void test_drm_core_on_every_driver(void)
{
	for (size_t i = 0; i < N_DRIVERS; i++) {
		const char *d = all_drivers[i];

		/* DRM_IOWR(0x00, struct drm_version: 64) */
		CHECK_STR(drm(d, 0xc0406400u), "DRM_IOCTL_VERSION");
		/* DRM_IOW(0x09, struct drm_gem_close: 8) */
		CHECK_STR(drm(d, 0x40086409u), "DRM_IOCTL_GEM_CLOSE");
		/* DRM_IOWR(0x2d, struct drm_prime_handle: 12) */
		CHECK_STR(drm(d, 0xc00c642du), "DRM_IOCTL_PRIME_HANDLE_TO_FD");
		/* DRM_IO(0x1e) */
		CHECK_STR(drm(d, 0x0000641eu), "DRM_IOCTL_SET_MASTER");
		/* DRM_IOWR(0x3a, union drm_wait_vblank: 24) */
		CHECK_STR(drm(d, 0xc018643au), "DRM_IOCTL_WAIT_VBLANK");
		/* DRM_IOWR(0xA0, struct drm_mode_card_res: 64) */
		CHECK_STR(drm(d, 0xc04064a0u), "DRM_IOCTL_MODE_GETRESOURCES");
		/* DRM_IOWR(0xA1, struct drm_mode_crtc: 104) */
		CHECK_STR(drm(d, 0xc06864a1u), "DRM_IOCTL_MODE_GETCRTC");
		/* DRM_IOWR(0xB2, struct drm_mode_create_dumb: 32) */
		CHECK_STR(drm(d, 0xc02064b2u), "DRM_IOCTL_MODE_CREATE_DUMB");
		/* DRM_IOWR(0xBF, struct drm_syncobj_create: 8) */
		CHECK_STR(drm(d, 0xc00864bfu), "DRM_IOCTL_SYNCOBJ_CREATE");
		/* DRM_IOWR(0xCA, struct drm_syncobj_timeline_wait: 48) */
		CHECK_STR(drm(d, 0xc03064cau), "DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT");
		/* DRM_IOWR(0xCF, struct drm_syncobj_eventfd: 24) */
		CHECK_STR(drm(d, 0xc01864cfu), "DRM_IOCTL_SYNCOBJ_EVENTFD");
		/* DRM_IOWR(0xD2, struct drm_gem_change_handle: 8) */
		CHECK_STR(drm(d, 0xc00864d2u), "DRM_IOCTL_GEM_CHANGE_HANDLE");
		CHECK_STR(xp_ioctl_lookup(XP_DEV_DRM, d, 0xc0406400u), "DRM_IOCTL_VERSION");
	}
	/* core numbers without a name are decoded, not guessed */
	CHECK(xp_ioctl_lookup(XP_DEV_DRM, "amdgpu", 0x0000640eu) == NULL);
	CHECK_STR(drm("amdgpu", 0x0000640eu), "_IO('d',0x0e)");
	CHECK(xp_ioctl_lookup(XP_DEV_DRM, "i915", 0xc00864f0u) == NULL);
}

static void test_amdgpu(void)
{
	/* DRM_IOWR(0x40 + 0x04, union drm_amdgpu_cs: 24) */
	CHECK_STR(drm("amdgpu", 0xc0186444u), "DRM_IOCTL_AMDGPU_CS");
	/* DRM_IOW(0x40 + 0x05, struct drm_amdgpu_info: 32) */
	CHECK_STR(drm("amdgpu", 0x40206445u), "DRM_IOCTL_AMDGPU_INFO");
	/* DRM_IOWR(0x40 + 0x00, union drm_amdgpu_gem_create: 32) */
	CHECK_STR(drm("amdgpu", 0xc0206440u), "DRM_IOCTL_AMDGPU_GEM_CREATE");
	/* DRM_IOWR(0x40 + 0x02, union drm_amdgpu_ctx: 16) */
	CHECK_STR(drm("amdgpu", 0xc0106442u), "DRM_IOCTL_AMDGPU_CTX");
	/* DRM_IOWR(0x40 + 0x09, union drm_amdgpu_wait_cs: 32) */
	CHECK_STR(drm("amdgpu", 0xc0206449u), "DRM_IOCTL_AMDGPU_WAIT_CS");
	/* DRM_IOWR(0x40 + 0x16, union drm_amdgpu_userq: 72) */
	CHECK_STR(drm("amdgpu", 0xc0486456u), "DRM_IOCTL_AMDGPU_USERQ");
	/* indices 0x0a..0x0f are a hole in amdgpu_drm.h */
	CHECK(xp_ioctl_lookup(XP_DEV_DRM, "amdgpu", 0xc010644au) == NULL);
}

static void test_i915(void)
{
	/* DRM_IOW(0x40 + 0x29, struct drm_i915_gem_execbuffer2: 64) */
	CHECK_STR(drm("i915", 0x40406469u), "DRM_IOCTL_I915_GEM_EXECBUFFER2");
	/* DRM_IOWR(0x40 + DRM_I915_GEM_EXECBUFFER2_WR (= 0x29), same struct) */
	CHECK_STR(drm("i915", 0xc0406469u), "DRM_IOCTL_I915_GEM_EXECBUFFER2_WR");
	/* DRM_IOWR(0x40 + 0x1b, struct drm_i915_gem_create: 16) */
	CHECK_STR(drm("i915", 0xc010645bu), "DRM_IOCTL_I915_GEM_CREATE");
	/* DRM_IOWR(0x40 + 0x24, struct drm_i915_gem_mmap_gtt: 16) */
	CHECK_STR(drm("i915", 0xc0106464u), "DRM_IOCTL_I915_GEM_MMAP_GTT");
	/* DRM_IOWR(0x40 + DRM_I915_GEM_MMAP_GTT, struct drm_i915_gem_mmap_offset: 32) */
	CHECK_STR(drm("i915", 0xc0206464u), "DRM_IOCTL_I915_GEM_MMAP_OFFSET");
	/* DRM_IOWR(0x40 + 0x2d, struct drm_i915_gem_context_create: 8) */
	CHECK_STR(drm("i915", 0xc008646du), "DRM_IOCTL_I915_GEM_CONTEXT_CREATE");
	/* DRM_IOWR(0x40 + 0x2d, struct drm_i915_gem_context_create_ext: 16) */
	CHECK_STR(drm("i915", 0xc010646du), "DRM_IOCTL_I915_GEM_CONTEXT_CREATE_EXT");
	/* DRM_IOWR(0x40 + 0x39, struct drm_i915_query: 16) */
	CHECK_STR(drm("i915", 0xc0106479u), "DRM_IOCTL_I915_QUERY");
	/* DRM_IOWR(0x40 + 0x06, drm_i915_getparam_t: 16) */
	CHECK_STR(drm("i915", 0xc0106446u), "DRM_IOCTL_I915_GETPARAM");
}

static void test_xe(void)
{
	/* DRM_IOW(0x40 + 0x09, struct drm_xe_exec: 56) */
	CHECK_STR(drm("xe", 0x40386449u), "DRM_IOCTL_XE_EXEC");
	/* DRM_IOWR(0x40 + 0x0a, struct drm_xe_wait_user_fence: 72) */
	CHECK_STR(drm("xe", 0xc048644au), "DRM_IOCTL_XE_WAIT_USER_FENCE");
	/* DRM_IOW(0x40 + 0x0b, struct drm_xe_observation_param: 32) */
	CHECK_STR(drm("xe", 0x4020644bu), "DRM_IOCTL_XE_OBSERVATION");
	/* DRM_IOWR(0x40 + 0x00, struct drm_xe_device_query: 40) */
	CHECK_STR(drm("xe", 0xc0286440u), "DRM_IOCTL_XE_DEVICE_QUERY");
	/* DRM_IOWR(0x40 + 0x0d, ...) */
	CHECK_STR(xp_ioctl_lookup(XP_DEV_DRM, "xe", 0xc038644du),
		  "DRM_IOCTL_XE_VM_QUERY_MEM_RANGE_ATTRS");
}

static void test_nouveau(void)
{
	/* DRM_IOWR(0x40 + 0x41, struct drm_nouveau_gem_pushbuf: 64) */
	CHECK_STR(drm("nouveau", 0xc0406481u), "DRM_IOCTL_NOUVEAU_GEM_PUSHBUF");
	/* DRM_IOWR(0x40 + 0x40, struct drm_nouveau_gem_new: 48) */
	CHECK_STR(drm("nouveau", 0xc0306480u), "DRM_IOCTL_NOUVEAU_GEM_NEW");
	/* DRM_IOWR(0x40 + 0x00, struct drm_nouveau_getparam: 16) */
	CHECK_STR(drm("nouveau", 0xc0106440u), "DRM_IOCTL_NOUVEAU_GETPARAM");
	/* DRM_IOWR(0x40 + 0x12, struct drm_nouveau_exec: 40) */
	CHECK_STR(drm("nouveau", 0xc0286452u), "DRM_IOCTL_NOUVEAU_EXEC");
	/* DRM_IOWR(0x40 + 0x11, struct drm_nouveau_vm_bind: 40) */
	CHECK_STR(drm("nouveau", 0xc0286451u), "DRM_IOCTL_NOUVEAU_VM_BIND");
}

static void test_msm(void)
{
	/* DRM_IOWR(0x40 + 0x06, struct drm_msm_gem_submit: 72) */
	CHECK_STR(drm("msm", 0xc0486446u), "DRM_IOCTL_MSM_GEM_SUBMIT");
	/* DRM_IOWR(0x40 + 0x00, struct drm_msm_param: 24) */
	CHECK_STR(drm("msm", 0xc0186440u), "DRM_IOCTL_MSM_GET_PARAM");
	/* DRM_IOWR(0x40 + 0x02, struct drm_msm_gem_new: 16) */
	CHECK_STR(drm("msm", 0xc0106442u), "DRM_IOCTL_MSM_GEM_NEW");
	/* DRM_IOW(0x40 + 0x07, struct drm_msm_wait_fence: 32) */
	CHECK_STR(drm("msm", 0x40206447u), "DRM_IOCTL_MSM_WAIT_FENCE");
	/* DRM_IOW(0x40 + 0x0b, __u32) */
	CHECK_STR(drm("msm", 0x4004644bu), "DRM_IOCTL_MSM_SUBMITQUEUE_CLOSE");
	/* the same device seen through its display or GPU platform driver */
	CHECK_STR(drm("msm_dpu", 0xc0486446u), "DRM_IOCTL_MSM_GEM_SUBMIT");
	CHECK_STR(drm("adreno", 0xc0486446u), "DRM_IOCTL_MSM_GEM_SUBMIT");
}

static void test_panfrost(void)
{
	/* DRM_IOW(0x40 + 0x00, struct drm_panfrost_submit: 40) */
	CHECK_STR(drm("panfrost", 0x40286440u), "DRM_IOCTL_PANFROST_SUBMIT");
	/* DRM_IOW(0x40 + 0x01, struct drm_panfrost_wait_bo: 16) */
	CHECK_STR(drm("panfrost", 0x40106441u), "DRM_IOCTL_PANFROST_WAIT_BO");
	/* DRM_IOWR(0x40 + 0x02, struct drm_panfrost_create_bo: 24) */
	CHECK_STR(drm("panfrost", 0xc0186442u), "DRM_IOCTL_PANFROST_CREATE_BO");
	/* DRM_IOWR(0x40 + 0x04, struct drm_panfrost_get_param: 16) */
	CHECK_STR(drm("panfrost", 0xc0106444u), "DRM_IOCTL_PANFROST_GET_PARAM");
	/* DRM_IOWR(0x40 + 0x08, struct drm_panfrost_madvise: 12) */
	CHECK_STR(drm("panfrost", 0xc00c6448u), "DRM_IOCTL_PANFROST_MADVISE");
}

static void test_v3d(void)
{
	/* DRM_IOWR(0x40 + 0x00, struct drm_v3d_submit_cl: 72) */
	CHECK_STR(drm("v3d", 0xc0486440u), "DRM_IOCTL_V3D_SUBMIT_CL");
	/* DRM_IOWR(0x40 + 0x01, struct drm_v3d_wait_bo: 16) */
	CHECK_STR(drm("v3d", 0xc0106441u), "DRM_IOCTL_V3D_WAIT_BO");
	/* DRM_IOWR(0x40 + 0x02, struct drm_v3d_create_bo: 16) */
	CHECK_STR(drm("v3d", 0xc0106442u), "DRM_IOCTL_V3D_CREATE_BO");
	/* DRM_IOWR(0x40 + 0x05, struct drm_v3d_get_bo_offset: 8) */
	CHECK_STR(drm("v3d", 0xc0086445u), "DRM_IOCTL_V3D_GET_BO_OFFSET");
}

static void test_ivpu(void)
{
	for (int i = 0; i < 2; i++) {
		const char *d = i ? "ivpu" : "intel_vpu";

		/* DRM_IOWR(0x40 + 0x00, struct drm_ivpu_param: 16) */
		CHECK_STR(drm(d, 0xc0106440u), "DRM_IOCTL_IVPU_GET_PARAM");
		/* DRM_IOW(0x40 + 0x01, struct drm_ivpu_param: 16) */
		CHECK_STR(drm(d, 0x40106441u), "DRM_IOCTL_IVPU_SET_PARAM");
		/* DRM_IOWR(0x40 + 0x02, struct drm_ivpu_bo_create: 24) */
		CHECK_STR(drm(d, 0xc0186442u), "DRM_IOCTL_IVPU_BO_CREATE");
		/* DRM_IOW(0x40 + 0x05, struct drm_ivpu_submit: 32) */
		CHECK_STR(drm(d, 0x40206445u), "DRM_IOCTL_IVPU_SUBMIT");
		/* DRM_IOW(0x40 + 0x0d, struct drm_ivpu_cmdq_submit: 24) */
		CHECK_STR(drm(d, 0x4018644du), "DRM_IOCTL_IVPU_CMDQ_SUBMIT");
	}
	/* index 0x04 is unused in ivpu_accel.h */
	CHECK(xp_ioctl_lookup(XP_DEV_DRM, "intel_vpu", 0xc0106444u) == NULL);
}

static void test_vgem(void)
{
	/* DRM_IOWR(0x40 + 0x1, struct drm_vgem_fence_attach: 16) */
	CHECK_STR(drm("vgem", 0xc0106441u), "DRM_IOCTL_VGEM_FENCE_ATTACH");
	/* DRM_IOW(0x40 + 0x2, struct drm_vgem_fence_signal: 8) */
	CHECK_STR(drm("vgem", 0x40086442u), "DRM_IOCTL_VGEM_FENCE_SIGNAL");
	CHECK(xp_ioctl_lookup(XP_DEV_DRM, "vgem", 0xc0106440u) == NULL);
}

static void test_driver_ioctl_on_wrong_driver(void)
{
	const uint32_t amdgpu_cs = 0xc0186444u, xe_exec = 0x40386449u;

	/* i915 index 0x04 is its own IRQ_EMIT, not AMDGPU_CS */
	CHECK_STR(drm("i915", amdgpu_cs), "DRM_IOCTL_I915_IRQ_EMIT");
	CHECK_STR(drm("xe", amdgpu_cs), "DRM_IOCTL_XE_VM_DESTROY");
	CHECK_STR(drm("i915", xe_exec), "DRM_IOCTL_I915_FREE");
	CHECK_STR(drm("amdgpu", xe_exec), "DRM_IOCTL_AMDGPU_WAIT_CS");
	/* drivers without that index, and unknown drivers, get it decoded */
	CHECK(xp_ioctl_lookup(XP_DEV_DRM, "vgem", amdgpu_cs) == NULL);
	CHECK_STR(drm("vgem", amdgpu_cs), "_IOWR('d',0x44,24)");
	CHECK_STR(drm(NULL, amdgpu_cs), "_IOWR('d',0x44,24)");
	CHECK_STR(drm("radeon", amdgpu_cs), "_IOWR('d',0x44,24)");
	CHECK_STR(drm("amdgpu_not", amdgpu_cs), "_IOWR('d',0x44,24)");
	/* the i915 variants belong to i915 only */
	CHECK_STR(drm("xe", 0xc0406469u), "_IOWR('d',0x69,64)");
	/* a DRM command on a node that is not DRM is not named */
	CHECK(xp_ioctl_lookup(XP_DEV_OTHER, "amdgpu", amdgpu_cs) == NULL);
	CHECK(xp_ioctl_lookup(XP_DEV_KFD, "amdgpu", 0xc0406400u) == NULL);
	CHECK(xp_ioctl_lookup(XP_DEV_NVIDIA, NULL, 0xc0406400u) == NULL);
	CHECK_STR(xp_ioctl_name(XP_DEV_OTHER, "amdgpu", 0xc0406400u, buf, sizeof(buf)),
		  "_IOWR('d',0x00,64)");
	/* a type other than 'd' on a DRM node is not named either */
	CHECK(xp_ioctl_lookup(XP_DEV_DRM, "amdgpu", 0xc0184644u) == NULL);
}

static const char *nv(uint32_t cmd)
{
	return xp_ioctl_name(XP_DEV_NVIDIA, NULL, cmd, buf, sizeof(buf));
}

static void test_nvidia_escapes(void)
{
	/* RM escapes: _IOWR('F', NV_ESC_RM_*, params) as libnvidia issues them */
	CHECK_STR(nv(0xc0304627u), "NV_ESC_RM_ALLOC_MEMORY");	/* 0x27, 48 */
	CHECK_STR(nv(0xc0104629u), "NV_ESC_RM_FREE");		/* 0x29, NVOS00: 16 */
	CHECK_STR(nv(0xc020462au), "NV_ESC_RM_CONTROL");	/* 0x2a, NVOS54: 32 */
	CHECK_STR(nv(0xc030462bu), "NV_ESC_RM_ALLOC");		/* 0x2b, NVOS64: 48 */
	CHECK_STR(nv(0xc0384657u), "NV_ESC_RM_MAP_MEMORY_DMA");	/* 0x57 */
	CHECK_STR(nv(0xc00c465fu), "NV_ESC_RM_LOCKLESS_DIAGNOSTIC"); /* 0x5f */
	/* OS escapes: NV_IOCTL_BASE (200) + n */
	CHECK_STR(nv(0xc90046c8u), "NV_ESC_CARD_INFO");		/* 200 + 0 */
	CHECK_STR(nv(0xc00446c9u), "NV_ESC_REGISTER_FD");	/* 200 + 1 */
	CHECK_STR(nv(0xc00c46ceu), "NV_ESC_ALLOC_OS_EVENT");	/* 200 + 6 */
	CHECK_STR(nv(0xc04846d2u), "NV_ESC_CHECK_VERSION_STR"); /* 200 + 10 */
	CHECK_STR(nv(0xc01046d3u), "NV_ESC_IOCTL_XFER_CMD");	/* 200 + 11 */
	CHECK_STR(nv(0xc00446d7u), "NV_ESC_NUMA_INFO");		/* 200 + 15 */
	CHECK_STR(nv(0xc00846dau), "NV_ESC_WAIT_OPEN_COMPLETE"); /* 200 + 18 */
	/* the direction and size do not matter, only type 'F' and the number */
	CHECK_STR(nv(0x0000462bu), "NV_ESC_RM_ALLOC");
	/* unassigned escapes and other types are decoded */
	CHECK(xp_ioctl_lookup(XP_DEV_NVIDIA, NULL, 0xc0104630u) == NULL);
	CHECK_STR(nv(0xc0104630u), "_IOWR('F',0x30,16)");
	CHECK_STR(nv(0xc00446cau), "_IOWR('F',0xca,4)");	/* 200 + 2 */
	CHECK(xp_ioctl_lookup(XP_DEV_NVIDIA, NULL, 0xc030642bu) == NULL);
	/* NVIDIA escapes are not named on other nodes */
	CHECK(xp_ioctl_lookup(XP_DEV_DRM, "nouveau", 0xc030462bu) == NULL);
	CHECK(xp_ioctl_lookup(XP_DEV_NVIDIA_UVM, NULL, 0xc030462bu) == NULL);
}

static const char *uvm(uint32_t cmd)
{
	return xp_ioctl_name(XP_DEV_NVIDIA_UVM, NULL, cmd, buf, sizeof(buf));
}

static void test_nvidia_uvm(void)
{
	CHECK_STR(uvm(0x30000001u), "UVM_INITIALIZE");
	CHECK_STR(uvm(0x30000002u), "UVM_DEINITIALIZE");
	CHECK_STR(uvm(1), "UVM_RESERVE_VA");
	CHECK_STR(uvm(25), "UVM_REGISTER_GPU_VASPACE");
	CHECK_STR(uvm(33), "UVM_MAP_EXTERNAL_ALLOCATION");
	CHECK_STR(uvm(37), "UVM_REGISTER_GPU");
	CHECK_STR(uvm(51), "UVM_MIGRATE");
	CHECK_STR(uvm(56), "UVM_TOOLS_INIT_EVENT_TRACKER");
	CHECK_STR(uvm(71), "UVM_POPULATE_PAGEABLE");
	CHECK_STR(uvm(75), "UVM_MM_INITIALIZE");
	CHECK_STR(uvm(80), "UVM_DISCARD");
	CHECK_STR(uvm(2047), "UVM_IS_8_SUPPORTED");
	/* holes and unknown numbers: plain hex, they are not _IOC encodings */
	CHECK(xp_ioctl_lookup(XP_DEV_NVIDIA_UVM, NULL, 8) == NULL);
	CHECK_STR(uvm(8), "0x00000008");
	CHECK_STR(uvm(0x30000003u), "0x30000003");
	/* UVM numbers mean nothing on other nodes */
	CHECK(xp_ioctl_lookup(XP_DEV_OTHER, NULL, 0x30000001u) == NULL);
	CHECK_STR(xp_ioctl_name(XP_DEV_OTHER, NULL, 0x30000001u, buf, sizeof(buf)), "0x30000001");
	CHECK_STR(xp_ioctl_name(XP_DEV_NVIDIA, NULL, 33, buf, sizeof(buf)), "0x00000021");
	CHECK_STR(xp_ioctl_name(XP_DEV_DRM, "amdgpu", 1, buf, sizeof(buf)), "0x00000001");
}

static const char *kfd(uint32_t cmd)
{
	return xp_ioctl_name(XP_DEV_KFD, NULL, cmd, buf, sizeof(buf));
}

static void test_kfd(void)
{
	/* AMDKFD_IOR(0x01, struct kfd_ioctl_get_version_args: 8) */
	CHECK_STR(kfd(0x80084b01u), "AMDKFD_IOC_GET_VERSION");
	/* AMDKFD_IOWR(0x16, struct kfd_ioctl_alloc_memory_of_gpu_args: 40) */
	CHECK_STR(kfd(0xc0284b16u), "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU");
	/* AMDKFD_IOWR(0x18, struct kfd_ioctl_map_memory_to_gpu_args: 24) */
	CHECK_STR(kfd(0xc0184b18u), "AMDKFD_IOC_MAP_MEMORY_TO_GPU");
	/* AMDKFD_IOWR(0x20, struct kfd_ioctl_svm_args: 24) */
	CHECK_STR(kfd(0xc0184b20u), "AMDKFD_IOC_SVM");
	/* AMDKFD_IOWR(0x26, struct kfd_ioctl_dbg_trap_args) */
	CHECK_STR(xp_ioctl_lookup(XP_DEV_KFD, NULL, 0xc0284b26u), "AMDKFD_IOC_DBG_TRAP");
	/* AMDKFD_IO(0x27) */
	CHECK_STR(kfd(0x00004b27u), "AMDKFD_IOC_CREATE_PROCESS");
	/* past AMDKFD_COMMAND_END, and number 0 */
	CHECK(xp_ioctl_lookup(XP_DEV_KFD, NULL, 0xc0084b28u) == NULL);
	CHECK_STR(kfd(0xc0084b28u), "_IOWR('K',0x28,8)");
	CHECK_STR(kfd(0x00004b00u), "_IO('K',0x00)");
	CHECK(xp_ioctl_lookup(XP_DEV_KFD, NULL, 0xc0184bffu) == NULL);
	/* 'K' on a DRM node is no KFD command */
	CHECK(xp_ioctl_lookup(XP_DEV_DRM, "amdgpu", 0x80084b01u) == NULL);
}

static const char *other(uint32_t cmd)
{
	return xp_ioctl_name(XP_DEV_OTHER, NULL, cmd, buf, sizeof(buf));
}

static void test_decoded_forms(void)
{
	CHECK_STR(drm(NULL, 0xc020644au), "_IOWR('d',0x4a,32)");
	CHECK_STR(other(0x80087801u), "_IOR('x',0x01,8)");
	CHECK_STR(other(0x40087801u), "_IOW('x',0x01,8)");
	CHECK_STR(other(0x00007801u), "_IO('x',0x01)");
	CHECK_STR(other(0xc3ff78ffu), "_IOWR('x',0xff,1023)");
	/* types that are not printable (or would need escaping) in hex */
	CHECK_STR(other(0x80048001u), "_IOR(0x80,0x01,4)");
	CHECK_STR(other(0x80041f01u), "_IOR(0x1f,0x01,4)");
	CHECK_STR(other(0x40042701u), "_IOW(0x27,0x01,4)");
	CHECK_STR(other(0x40045c01u), "_IOW(0x5c,0x01,4)");
	/* not _IOC encodings: no type, or a size on a no-data command */
	CHECK_STR(other(0x00000000u), "0x00000000");
	CHECK_STR(other(0x00000001u), "0x00000001");
	CHECK_STR(other(0x80040001u), "0x80040001");
	CHECK_STR(other(0x00047801u), "0x00047801");
	CHECK_STR(other(0xdeadbeefu), "_IOWR(0xbe,0xef,7853)");
	CHECK(xp_ioctl_lookup(XP_DEV_OTHER, NULL, 0x80087801u) == NULL);
	CHECK(xp_ioctl_lookup(XP_DEV_OTHER, "amdgpu", 0x00000000u) == NULL);
}

static void test_buffer_handling(void)
{
	char small[8];
	char *ret;

	/* names and decoded forms are cut to the buffer, always terminated */
	memset(small, 'X', sizeof(small));
	ret = (char *)xp_ioctl_name(XP_DEV_DRM, "amdgpu", 0xc0186444u, small, sizeof(small));
	CHECK(ret == small);
	CHECK_STR(small, "DRM_IOC");
	memset(small, 'X', sizeof(small));
	xp_ioctl_name(XP_DEV_OTHER, NULL, 0x80087801u, small, sizeof(small));
	CHECK_STR(small, "_IOR('x");
	memset(small, 'X', sizeof(small));
	xp_ioctl_name(XP_DEV_OTHER, NULL, 1, small, 1);
	CHECK(small[0] == '\0' && small[1] == 'X');
	/* no room at all: nothing is written, buf comes back */
	memset(small, 'X', sizeof(small));
	CHECK(xp_ioctl_name(XP_DEV_OTHER, NULL, 1, small, 0) == small);
	CHECK(small[0] == 'X');
	CHECK(xp_ioctl_name(XP_DEV_OTHER, NULL, 1, NULL, 0) == NULL);
	/* lookup hands out the same table string each time */
	CHECK(xp_ioctl_lookup(XP_DEV_DRM, "xe", 0x40386449u) ==
	      xp_ioctl_lookup(XP_DEV_DRM, "xe", 0x40386449u));
}

int main(void)
{
	RUN(test_drm_core_on_every_driver);
	RUN(test_amdgpu);
	RUN(test_i915);
	RUN(test_xe);
	RUN(test_nouveau);
	RUN(test_msm);
	RUN(test_panfrost);
	RUN(test_v3d);
	RUN(test_ivpu);
	RUN(test_vgem);
	RUN(test_driver_ioctl_on_wrong_driver);
	RUN(test_nvidia_escapes);
	RUN(test_nvidia_uvm);
	RUN(test_kfd);
	RUN(test_decoded_forms);
	RUN(test_buffer_handling);
	UNIT_EXIT();
}
