/*
 * Naming ioctl commands: the DRM core, the DRM/accel drivers we know, the
 * NVIDIA escapes (nvidia.ko and nvidia-uvm.ko) and amdkfd.
 *
 * The tables are plain data: a command number (or a DRM driver's own index,
 * which the kernel adds to DRM_COMMAND_BASE) and the name the upstream header
 * gives it. Only numbers and names are taken from those headers. Lookups are
 * direct indexing or short linear scans and never allocate, so they are cheap
 * enough for the summary, which names each distinct (device, command) once.
 *
 * A DRM command is named by its number alone, as the kernel dispatches it
 * (drm_ioctl() indexes its tables with _IOC_NR and tolerates size changes);
 * direction and size are only used to tell apart the few names that share
 * one number (see i915_variants).
 */
#include "caps/ioctl/ioctl_names.h"

#include <linux/ioctl.h>
#include <stdio.h>
#include <string.h>

#define DRM_TYPE		'd'	/* DRM_IOCTL_BASE */
#define DRM_COMMAND_BASE	0x40	/* driver range [0x40, 0xa0) */
#define DRM_COMMAND_END		0xa0
#define DRM_DRIVER_SLOTS	(DRM_COMMAND_END - DRM_COMMAND_BASE)

#define NV_TYPE			'F'	/* NV_IOCTL_MAGIC */
#define KFD_TYPE		'K'	/* AMDKFD_IOCTL_BASE */

/*
 * DRM core: include/uapi/drm/drm.h (the mode-setting commands live there
 * too, with their argument types in drm_mode.h). Linux mainline as read in
 * early 2026; newest entry DRM_IOCTL_GEM_CHANGE_HANDLE (0xd2).
 */
static const char *const drm_core_ioctls[0x100] = {
	[0x00] = "DRM_IOCTL_VERSION",
	[0x01] = "DRM_IOCTL_GET_UNIQUE",
	[0x02] = "DRM_IOCTL_GET_MAGIC",
	[0x03] = "DRM_IOCTL_IRQ_BUSID",
	[0x04] = "DRM_IOCTL_GET_MAP",
	[0x05] = "DRM_IOCTL_GET_CLIENT",
	[0x06] = "DRM_IOCTL_GET_STATS",
	[0x07] = "DRM_IOCTL_SET_VERSION",
	[0x08] = "DRM_IOCTL_MODESET_CTL",
	[0x09] = "DRM_IOCTL_GEM_CLOSE",
	[0x0a] = "DRM_IOCTL_GEM_FLINK",
	[0x0b] = "DRM_IOCTL_GEM_OPEN",
	[0x0c] = "DRM_IOCTL_GET_CAP",
	[0x0d] = "DRM_IOCTL_SET_CLIENT_CAP",
	[0x10] = "DRM_IOCTL_SET_UNIQUE",
	[0x11] = "DRM_IOCTL_AUTH_MAGIC",
	[0x12] = "DRM_IOCTL_BLOCK",
	[0x13] = "DRM_IOCTL_UNBLOCK",
	[0x14] = "DRM_IOCTL_CONTROL",
	[0x15] = "DRM_IOCTL_ADD_MAP",
	[0x16] = "DRM_IOCTL_ADD_BUFS",
	[0x17] = "DRM_IOCTL_MARK_BUFS",
	[0x18] = "DRM_IOCTL_INFO_BUFS",
	[0x19] = "DRM_IOCTL_MAP_BUFS",
	[0x1a] = "DRM_IOCTL_FREE_BUFS",
	[0x1b] = "DRM_IOCTL_RM_MAP",
	[0x1c] = "DRM_IOCTL_SET_SAREA_CTX",
	[0x1d] = "DRM_IOCTL_GET_SAREA_CTX",
	[0x1e] = "DRM_IOCTL_SET_MASTER",
	[0x1f] = "DRM_IOCTL_DROP_MASTER",
	[0x20] = "DRM_IOCTL_ADD_CTX",
	[0x21] = "DRM_IOCTL_RM_CTX",
	[0x22] = "DRM_IOCTL_MOD_CTX",
	[0x23] = "DRM_IOCTL_GET_CTX",
	[0x24] = "DRM_IOCTL_SWITCH_CTX",
	[0x25] = "DRM_IOCTL_NEW_CTX",
	[0x26] = "DRM_IOCTL_RES_CTX",
	[0x27] = "DRM_IOCTL_ADD_DRAW",
	[0x28] = "DRM_IOCTL_RM_DRAW",
	[0x29] = "DRM_IOCTL_DMA",
	[0x2a] = "DRM_IOCTL_LOCK",
	[0x2b] = "DRM_IOCTL_UNLOCK",
	[0x2c] = "DRM_IOCTL_FINISH",
	[0x2d] = "DRM_IOCTL_PRIME_HANDLE_TO_FD",
	[0x2e] = "DRM_IOCTL_PRIME_FD_TO_HANDLE",
	[0x30] = "DRM_IOCTL_AGP_ACQUIRE",
	[0x31] = "DRM_IOCTL_AGP_RELEASE",
	[0x32] = "DRM_IOCTL_AGP_ENABLE",
	[0x33] = "DRM_IOCTL_AGP_INFO",
	[0x34] = "DRM_IOCTL_AGP_ALLOC",
	[0x35] = "DRM_IOCTL_AGP_FREE",
	[0x36] = "DRM_IOCTL_AGP_BIND",
	[0x37] = "DRM_IOCTL_AGP_UNBIND",
	[0x38] = "DRM_IOCTL_SG_ALLOC",
	[0x39] = "DRM_IOCTL_SG_FREE",
	[0x3a] = "DRM_IOCTL_WAIT_VBLANK",
	[0x3b] = "DRM_IOCTL_CRTC_GET_SEQUENCE",
	[0x3c] = "DRM_IOCTL_CRTC_QUEUE_SEQUENCE",
	[0x3f] = "DRM_IOCTL_UPDATE_DRAW",
	[0xa0] = "DRM_IOCTL_MODE_GETRESOURCES",
	[0xa1] = "DRM_IOCTL_MODE_GETCRTC",
	[0xa2] = "DRM_IOCTL_MODE_SETCRTC",
	[0xa3] = "DRM_IOCTL_MODE_CURSOR",
	[0xa4] = "DRM_IOCTL_MODE_GETGAMMA",
	[0xa5] = "DRM_IOCTL_MODE_SETGAMMA",
	[0xa6] = "DRM_IOCTL_MODE_GETENCODER",
	[0xa7] = "DRM_IOCTL_MODE_GETCONNECTOR",
	[0xa8] = "DRM_IOCTL_MODE_ATTACHMODE",
	[0xa9] = "DRM_IOCTL_MODE_DETACHMODE",
	[0xaa] = "DRM_IOCTL_MODE_GETPROPERTY",
	[0xab] = "DRM_IOCTL_MODE_SETPROPERTY",
	[0xac] = "DRM_IOCTL_MODE_GETPROPBLOB",
	[0xad] = "DRM_IOCTL_MODE_GETFB",
	[0xae] = "DRM_IOCTL_MODE_ADDFB",
	[0xaf] = "DRM_IOCTL_MODE_RMFB",
	[0xb0] = "DRM_IOCTL_MODE_PAGE_FLIP",
	[0xb1] = "DRM_IOCTL_MODE_DIRTYFB",
	[0xb2] = "DRM_IOCTL_MODE_CREATE_DUMB",
	[0xb3] = "DRM_IOCTL_MODE_MAP_DUMB",
	[0xb4] = "DRM_IOCTL_MODE_DESTROY_DUMB",
	[0xb5] = "DRM_IOCTL_MODE_GETPLANERESOURCES",
	[0xb6] = "DRM_IOCTL_MODE_GETPLANE",
	[0xb7] = "DRM_IOCTL_MODE_SETPLANE",
	[0xb8] = "DRM_IOCTL_MODE_ADDFB2",
	[0xb9] = "DRM_IOCTL_MODE_OBJ_GETPROPERTIES",
	[0xba] = "DRM_IOCTL_MODE_OBJ_SETPROPERTY",
	[0xbb] = "DRM_IOCTL_MODE_CURSOR2",
	[0xbc] = "DRM_IOCTL_MODE_ATOMIC",
	[0xbd] = "DRM_IOCTL_MODE_CREATEPROPBLOB",
	[0xbe] = "DRM_IOCTL_MODE_DESTROYPROPBLOB",
	[0xbf] = "DRM_IOCTL_SYNCOBJ_CREATE",
	[0xc0] = "DRM_IOCTL_SYNCOBJ_DESTROY",
	[0xc1] = "DRM_IOCTL_SYNCOBJ_HANDLE_TO_FD",
	[0xc2] = "DRM_IOCTL_SYNCOBJ_FD_TO_HANDLE",
	[0xc3] = "DRM_IOCTL_SYNCOBJ_WAIT",
	[0xc4] = "DRM_IOCTL_SYNCOBJ_RESET",
	[0xc5] = "DRM_IOCTL_SYNCOBJ_SIGNAL",
	[0xc6] = "DRM_IOCTL_MODE_CREATE_LEASE",
	[0xc7] = "DRM_IOCTL_MODE_LIST_LESSEES",
	[0xc8] = "DRM_IOCTL_MODE_GET_LEASE",
	[0xc9] = "DRM_IOCTL_MODE_REVOKE_LEASE",
	[0xca] = "DRM_IOCTL_SYNCOBJ_TIMELINE_WAIT",
	[0xcb] = "DRM_IOCTL_SYNCOBJ_QUERY",
	[0xcc] = "DRM_IOCTL_SYNCOBJ_TRANSFER",
	[0xcd] = "DRM_IOCTL_SYNCOBJ_TIMELINE_SIGNAL",
	[0xce] = "DRM_IOCTL_MODE_GETFB2",
	[0xcf] = "DRM_IOCTL_SYNCOBJ_EVENTFD",
	[0xd0] = "DRM_IOCTL_MODE_CLOSEFB",
	[0xd1] = "DRM_IOCTL_SET_CLIENT_NAME",
	[0xd2] = "DRM_IOCTL_GEM_CHANGE_HANDLE",
};

/*
 * Driver tables are indexed by the driver's own DRM_<DRV>_* number, i.e. the
 * command's _IOC_NR minus DRM_COMMAND_BASE.
 */

/* amdgpu: include/uapi/drm/amdgpu_drm.h, mainline early 2026 (newest: GEM_LIST_HANDLES). */
static const char *const amdgpu_ioctls[DRM_DRIVER_SLOTS] = {
	[0x00] = "DRM_IOCTL_AMDGPU_GEM_CREATE",
	[0x01] = "DRM_IOCTL_AMDGPU_GEM_MMAP",
	[0x02] = "DRM_IOCTL_AMDGPU_CTX",
	[0x03] = "DRM_IOCTL_AMDGPU_BO_LIST",
	[0x04] = "DRM_IOCTL_AMDGPU_CS",
	[0x05] = "DRM_IOCTL_AMDGPU_INFO",
	[0x06] = "DRM_IOCTL_AMDGPU_GEM_METADATA",
	[0x07] = "DRM_IOCTL_AMDGPU_GEM_WAIT_IDLE",
	[0x08] = "DRM_IOCTL_AMDGPU_GEM_VA",
	[0x09] = "DRM_IOCTL_AMDGPU_WAIT_CS",
	[0x10] = "DRM_IOCTL_AMDGPU_GEM_OP",
	[0x11] = "DRM_IOCTL_AMDGPU_GEM_USERPTR",
	[0x12] = "DRM_IOCTL_AMDGPU_WAIT_FENCES",
	[0x13] = "DRM_IOCTL_AMDGPU_VM",
	[0x14] = "DRM_IOCTL_AMDGPU_FENCE_TO_HANDLE",
	[0x15] = "DRM_IOCTL_AMDGPU_SCHED",
	[0x16] = "DRM_IOCTL_AMDGPU_USERQ",
	[0x17] = "DRM_IOCTL_AMDGPU_USERQ_SIGNAL",
	[0x18] = "DRM_IOCTL_AMDGPU_USERQ_WAIT",
	[0x19] = "DRM_IOCTL_AMDGPU_GEM_LIST_HANDLES",
};

/*
 * i915: include/uapi/drm/i915_drm.h, mainline early 2026 (newest:
 * GEM_CREATE_EXT). Where two names share a number the table holds the older
 * one and i915_variants the other, picked by direction and size.
 */
static const char *const i915_ioctls[DRM_DRIVER_SLOTS] = {
	[0x00] = "DRM_IOCTL_I915_INIT",
	[0x01] = "DRM_IOCTL_I915_FLUSH",
	[0x02] = "DRM_IOCTL_I915_FLIP",
	[0x03] = "DRM_IOCTL_I915_BATCHBUFFER",
	[0x04] = "DRM_IOCTL_I915_IRQ_EMIT",
	[0x05] = "DRM_IOCTL_I915_IRQ_WAIT",
	[0x06] = "DRM_IOCTL_I915_GETPARAM",
	[0x07] = "DRM_IOCTL_I915_SETPARAM",
	[0x08] = "DRM_IOCTL_I915_ALLOC",
	[0x09] = "DRM_IOCTL_I915_FREE",
	[0x0a] = "DRM_IOCTL_I915_INIT_HEAP",
	[0x0b] = "DRM_IOCTL_I915_CMDBUFFER",
	[0x0c] = "DRM_IOCTL_I915_DESTROY_HEAP",
	[0x0d] = "DRM_IOCTL_I915_SET_VBLANK_PIPE",
	[0x0e] = "DRM_IOCTL_I915_GET_VBLANK_PIPE",
	[0x0f] = "DRM_IOCTL_I915_VBLANK_SWAP",
	[0x11] = "DRM_IOCTL_I915_HWS_ADDR",
	[0x13] = "DRM_IOCTL_I915_GEM_INIT",
	[0x14] = "DRM_IOCTL_I915_GEM_EXECBUFFER",
	[0x15] = "DRM_IOCTL_I915_GEM_PIN",
	[0x16] = "DRM_IOCTL_I915_GEM_UNPIN",
	[0x17] = "DRM_IOCTL_I915_GEM_BUSY",
	[0x18] = "DRM_IOCTL_I915_GEM_THROTTLE",
	[0x19] = "DRM_IOCTL_I915_GEM_ENTERVT",
	[0x1a] = "DRM_IOCTL_I915_GEM_LEAVEVT",
	[0x1b] = "DRM_IOCTL_I915_GEM_CREATE",
	[0x1c] = "DRM_IOCTL_I915_GEM_PREAD",
	[0x1d] = "DRM_IOCTL_I915_GEM_PWRITE",
	[0x1e] = "DRM_IOCTL_I915_GEM_MMAP",
	[0x1f] = "DRM_IOCTL_I915_GEM_SET_DOMAIN",
	[0x20] = "DRM_IOCTL_I915_GEM_SW_FINISH",
	[0x21] = "DRM_IOCTL_I915_GEM_SET_TILING",
	[0x22] = "DRM_IOCTL_I915_GEM_GET_TILING",
	[0x23] = "DRM_IOCTL_I915_GEM_GET_APERTURE",
	[0x24] = "DRM_IOCTL_I915_GEM_MMAP_GTT",
	[0x25] = "DRM_IOCTL_I915_GET_PIPE_FROM_CRTC_ID",
	[0x26] = "DRM_IOCTL_I915_GEM_MADVISE",
	[0x27] = "DRM_IOCTL_I915_OVERLAY_PUT_IMAGE",
	[0x28] = "DRM_IOCTL_I915_OVERLAY_ATTRS",
	[0x29] = "DRM_IOCTL_I915_GEM_EXECBUFFER2",
	[0x2a] = "DRM_IOCTL_I915_GET_SPRITE_COLORKEY",
	[0x2b] = "DRM_IOCTL_I915_SET_SPRITE_COLORKEY",
	[0x2c] = "DRM_IOCTL_I915_GEM_WAIT",
	[0x2d] = "DRM_IOCTL_I915_GEM_CONTEXT_CREATE",
	[0x2e] = "DRM_IOCTL_I915_GEM_CONTEXT_DESTROY",
	[0x2f] = "DRM_IOCTL_I915_GEM_SET_CACHING",
	[0x30] = "DRM_IOCTL_I915_GEM_GET_CACHING",
	[0x31] = "DRM_IOCTL_I915_REG_READ",
	[0x32] = "DRM_IOCTL_I915_GET_RESET_STATS",
	[0x33] = "DRM_IOCTL_I915_GEM_USERPTR",
	[0x34] = "DRM_IOCTL_I915_GEM_CONTEXT_GETPARAM",
	[0x35] = "DRM_IOCTL_I915_GEM_CONTEXT_SETPARAM",
	[0x36] = "DRM_IOCTL_I915_PERF_OPEN",
	[0x37] = "DRM_IOCTL_I915_PERF_ADD_CONFIG",
	[0x38] = "DRM_IOCTL_I915_PERF_REMOVE_CONFIG",
	[0x39] = "DRM_IOCTL_I915_QUERY",
	[0x3a] = "DRM_IOCTL_I915_GEM_VM_CREATE",
	[0x3b] = "DRM_IOCTL_I915_GEM_VM_DESTROY",
	[0x3c] = "DRM_IOCTL_I915_GEM_CREATE_EXT",
};

/* An _IOC direction; DIR_ANY in a variant matches all, DIR_BAD is no _IO* macro's. */
enum ioc_dir { DIR_ANY = 0, DIR_NONE, DIR_W, DIR_R, DIR_RW, DIR_BAD };

struct drm_variant {
	uint8_t idx;		/* DRM_<DRV>_* index */
	uint8_t dir;		/* enum ioc_dir */
	uint16_t size;		/* argument size on x86-64/arm64; 0 matches any */
	const char *name;
};

static const struct drm_variant i915_variants[] = {
	/* DRM_IOW vs DRM_IOWR, both struct drm_i915_gem_execbuffer2 (64 bytes) */
	{ 0x29, DIR_RW, 0, "DRM_IOCTL_I915_GEM_EXECBUFFER2_WR" },
	/* struct drm_i915_gem_mmap_offset (32) vs drm_i915_gem_mmap_gtt (16) */
	{ 0x24, DIR_RW, 32, "DRM_IOCTL_I915_GEM_MMAP_OFFSET" },
	/* struct drm_i915_gem_context_create_ext (16) vs _context_create (8) */
	{ 0x2d, DIR_RW, 16, "DRM_IOCTL_I915_GEM_CONTEXT_CREATE_EXT" },
};

/* xe: include/uapi/drm/xe_drm.h, mainline/drm-xe-next early 2026 (newest: EXEC_QUEUE_SET_PROPERTY). */
static const char *const xe_ioctls[DRM_DRIVER_SLOTS] = {
	[0x00] = "DRM_IOCTL_XE_DEVICE_QUERY",
	[0x01] = "DRM_IOCTL_XE_GEM_CREATE",
	[0x02] = "DRM_IOCTL_XE_GEM_MMAP_OFFSET",
	[0x03] = "DRM_IOCTL_XE_VM_CREATE",
	[0x04] = "DRM_IOCTL_XE_VM_DESTROY",
	[0x05] = "DRM_IOCTL_XE_VM_BIND",
	[0x06] = "DRM_IOCTL_XE_EXEC_QUEUE_CREATE",
	[0x07] = "DRM_IOCTL_XE_EXEC_QUEUE_DESTROY",
	[0x08] = "DRM_IOCTL_XE_EXEC_QUEUE_GET_PROPERTY",
	[0x09] = "DRM_IOCTL_XE_EXEC",
	[0x0a] = "DRM_IOCTL_XE_WAIT_USER_FENCE",
	[0x0b] = "DRM_IOCTL_XE_OBSERVATION",
	[0x0c] = "DRM_IOCTL_XE_MADVISE",
	[0x0d] = "DRM_IOCTL_XE_VM_QUERY_MEM_RANGE_ATTRS",
	[0x0e] = "DRM_IOCTL_XE_EXEC_QUEUE_SET_PROPERTY",
};

/*
 * nouveau: include/uapi/drm/nouveau_drm.h, mainline early 2026 (newest:
 * GET_ZCULL_INFO). The GEM commands start at index 0x40 (nr 0x80).
 */
static const char *const nouveau_ioctls[DRM_DRIVER_SLOTS] = {
	[0x00] = "DRM_IOCTL_NOUVEAU_GETPARAM",
	[0x01] = "DRM_IOCTL_NOUVEAU_SETPARAM",
	[0x02] = "DRM_IOCTL_NOUVEAU_CHANNEL_ALLOC",
	[0x03] = "DRM_IOCTL_NOUVEAU_CHANNEL_FREE",
	[0x04] = "DRM_IOCTL_NOUVEAU_GROBJ_ALLOC",
	[0x05] = "DRM_IOCTL_NOUVEAU_NOTIFIEROBJ_ALLOC",
	[0x06] = "DRM_IOCTL_NOUVEAU_GPUOBJ_FREE",
	[0x07] = "DRM_IOCTL_NOUVEAU_NVIF",
	[0x08] = "DRM_IOCTL_NOUVEAU_SVM_INIT",
	[0x09] = "DRM_IOCTL_NOUVEAU_SVM_BIND",
	[0x10] = "DRM_IOCTL_NOUVEAU_VM_INIT",
	[0x11] = "DRM_IOCTL_NOUVEAU_VM_BIND",
	[0x12] = "DRM_IOCTL_NOUVEAU_EXEC",
	[0x13] = "DRM_IOCTL_NOUVEAU_GET_ZCULL_INFO",
	[0x40] = "DRM_IOCTL_NOUVEAU_GEM_NEW",
	[0x41] = "DRM_IOCTL_NOUVEAU_GEM_PUSHBUF",
	[0x42] = "DRM_IOCTL_NOUVEAU_GEM_CPU_PREP",
	[0x43] = "DRM_IOCTL_NOUVEAU_GEM_CPU_FINI",
	[0x44] = "DRM_IOCTL_NOUVEAU_GEM_INFO",
};

/* msm: include/uapi/drm/msm_drm.h, mainline early 2026 (newest: VM_BIND); 0x09 is a placeholder there. */
static const char *const msm_ioctls[DRM_DRIVER_SLOTS] = {
	[0x00] = "DRM_IOCTL_MSM_GET_PARAM",
	[0x01] = "DRM_IOCTL_MSM_SET_PARAM",
	[0x02] = "DRM_IOCTL_MSM_GEM_NEW",
	[0x03] = "DRM_IOCTL_MSM_GEM_INFO",
	[0x04] = "DRM_IOCTL_MSM_GEM_CPU_PREP",
	[0x05] = "DRM_IOCTL_MSM_GEM_CPU_FINI",
	[0x06] = "DRM_IOCTL_MSM_GEM_SUBMIT",
	[0x07] = "DRM_IOCTL_MSM_WAIT_FENCE",
	[0x08] = "DRM_IOCTL_MSM_GEM_MADVISE",
	[0x0a] = "DRM_IOCTL_MSM_SUBMITQUEUE_NEW",
	[0x0b] = "DRM_IOCTL_MSM_SUBMITQUEUE_CLOSE",
	[0x0c] = "DRM_IOCTL_MSM_SUBMITQUEUE_QUERY",
	[0x0d] = "DRM_IOCTL_MSM_VM_BIND",
};

/* panfrost: include/uapi/drm/panfrost_drm.h, mainline early 2026 (newest: QUERY_BO_INFO). */
static const char *const panfrost_ioctls[DRM_DRIVER_SLOTS] = {
	[0x00] = "DRM_IOCTL_PANFROST_SUBMIT",
	[0x01] = "DRM_IOCTL_PANFROST_WAIT_BO",
	[0x02] = "DRM_IOCTL_PANFROST_CREATE_BO",
	[0x03] = "DRM_IOCTL_PANFROST_MMAP_BO",
	[0x04] = "DRM_IOCTL_PANFROST_GET_PARAM",
	[0x05] = "DRM_IOCTL_PANFROST_GET_BO_OFFSET",
	[0x06] = "DRM_IOCTL_PANFROST_PERFCNT_ENABLE",
	[0x07] = "DRM_IOCTL_PANFROST_PERFCNT_DUMP",
	[0x08] = "DRM_IOCTL_PANFROST_MADVISE",
	[0x09] = "DRM_IOCTL_PANFROST_SET_LABEL_BO",
	[0x0a] = "DRM_IOCTL_PANFROST_JM_CTX_CREATE",
	[0x0b] = "DRM_IOCTL_PANFROST_JM_CTX_DESTROY",
	[0x0c] = "DRM_IOCTL_PANFROST_SYNC_BO",
	[0x0d] = "DRM_IOCTL_PANFROST_QUERY_BO_INFO",
};

/* v3d: include/uapi/drm/v3d_drm.h, mainline early 2026 (newest: PERFMON_SET_GLOBAL). */
static const char *const v3d_ioctls[DRM_DRIVER_SLOTS] = {
	[0x00] = "DRM_IOCTL_V3D_SUBMIT_CL",
	[0x01] = "DRM_IOCTL_V3D_WAIT_BO",
	[0x02] = "DRM_IOCTL_V3D_CREATE_BO",
	[0x03] = "DRM_IOCTL_V3D_MMAP_BO",
	[0x04] = "DRM_IOCTL_V3D_GET_PARAM",
	[0x05] = "DRM_IOCTL_V3D_GET_BO_OFFSET",
	[0x06] = "DRM_IOCTL_V3D_SUBMIT_TFU",
	[0x07] = "DRM_IOCTL_V3D_SUBMIT_CSD",
	[0x08] = "DRM_IOCTL_V3D_PERFMON_CREATE",
	[0x09] = "DRM_IOCTL_V3D_PERFMON_DESTROY",
	[0x0a] = "DRM_IOCTL_V3D_PERFMON_GET_VALUES",
	[0x0b] = "DRM_IOCTL_V3D_SUBMIT_CPU",
	[0x0c] = "DRM_IOCTL_V3D_PERFMON_GET_COUNTER",
	[0x0d] = "DRM_IOCTL_V3D_PERFMON_SET_GLOBAL",
};

/* ivpu (Intel NPU): include/uapi/drm/ivpu_accel.h, mainline early 2026 (newest: BO_CREATE_FROM_USERPTR). */
static const char *const ivpu_ioctls[DRM_DRIVER_SLOTS] = {
	[0x00] = "DRM_IOCTL_IVPU_GET_PARAM",
	[0x01] = "DRM_IOCTL_IVPU_SET_PARAM",
	[0x02] = "DRM_IOCTL_IVPU_BO_CREATE",
	[0x03] = "DRM_IOCTL_IVPU_BO_INFO",
	[0x05] = "DRM_IOCTL_IVPU_SUBMIT",
	[0x06] = "DRM_IOCTL_IVPU_BO_WAIT",
	[0x07] = "DRM_IOCTL_IVPU_METRIC_STREAMER_START",
	[0x08] = "DRM_IOCTL_IVPU_METRIC_STREAMER_STOP",
	[0x09] = "DRM_IOCTL_IVPU_METRIC_STREAMER_GET_DATA",
	[0x0a] = "DRM_IOCTL_IVPU_METRIC_STREAMER_GET_INFO",
	[0x0b] = "DRM_IOCTL_IVPU_CMDQ_CREATE",
	[0x0c] = "DRM_IOCTL_IVPU_CMDQ_DESTROY",
	[0x0d] = "DRM_IOCTL_IVPU_CMDQ_SUBMIT",
	[0x0e] = "DRM_IOCTL_IVPU_BO_CREATE_FROM_USERPTR",
};

/* vgem: include/uapi/drm/vgem_drm.h (unchanged since it gained fences). */
static const char *const vgem_ioctls[DRM_DRIVER_SLOTS] = {
	[0x01] = "DRM_IOCTL_VGEM_FENCE_ATTACH",
	[0x02] = "DRM_IOCTL_VGEM_FENCE_SIGNAL",
};

#define MAX_ALIASES 6

struct drm_driver_names {
	const char *aliases[MAX_ALIASES];	/* sysfs driver names (or DRM driver names) */
	const char *const *ioctls;		/* DRM_DRIVER_SLOTS entries */
	const struct drm_variant *variants;
	size_t nvariants;
};

static const struct drm_driver_names drm_drivers[] = {
	{ { "amdgpu" }, amdgpu_ioctls, NULL, 0 },
	{ { "i915" }, i915_ioctls, i915_variants,
	  sizeof(i915_variants) / sizeof(i915_variants[0]) },
	{ { "xe" }, xe_ioctls, NULL, 0 },
	{ { "nouveau" }, nouveau_ioctls, NULL, 0 },
	/* the DRM device hangs off the display (mdp4/mdp5/dpu) or, headless, the GPU */
	{ { "msm", "msm_drm", "msm_dpu", "msm_mdp", "mdp4", "adreno" }, msm_ioctls, NULL, 0 },
	{ { "panfrost" }, panfrost_ioctls, NULL, 0 },
	{ { "v3d" }, v3d_ioctls, NULL, 0 },
	{ { "intel_vpu", "ivpu" }, ivpu_ioctls, NULL, 0 },
	{ { "vgem" }, vgem_ioctls, NULL, 0 },
};

/*
 * NVIDIA nvidia.ko escapes, type 'F', named by _IOC_NR. From NVIDIA's
 * open-gpu-kernel-modules 595.45.04: the RM escapes in
 * src/nvidia/arch/nvalloc/unix/include/nv_escape.h, the OS escapes
 * (NV_IOCTL_BASE 200 and up) in kernel-open/common/inc/nv-ioctl-numbers.h
 * and nv-ioctl-numa.h.
 */
static const char *const nv_escapes[0x100] = {
	[0x27] = "NV_ESC_RM_ALLOC_MEMORY",
	[0x28] = "NV_ESC_RM_ALLOC_OBJECT",
	[0x29] = "NV_ESC_RM_FREE",
	[0x2a] = "NV_ESC_RM_CONTROL",
	[0x2b] = "NV_ESC_RM_ALLOC",
	[0x34] = "NV_ESC_RM_DUP_OBJECT",
	[0x35] = "NV_ESC_RM_SHARE",
	[0x39] = "NV_ESC_RM_I2C_ACCESS",
	[0x41] = "NV_ESC_RM_IDLE_CHANNELS",
	[0x4a] = "NV_ESC_RM_VID_HEAP_CONTROL",
	[0x4d] = "NV_ESC_RM_ACCESS_REGISTRY",
	[0x4e] = "NV_ESC_RM_MAP_MEMORY",
	[0x4f] = "NV_ESC_RM_UNMAP_MEMORY",
	[0x52] = "NV_ESC_RM_GET_EVENT_DATA",
	[0x54] = "NV_ESC_RM_ALLOC_CONTEXT_DMA2",
	[0x56] = "NV_ESC_RM_ADD_VBLANK_CALLBACK",
	[0x57] = "NV_ESC_RM_MAP_MEMORY_DMA",
	[0x58] = "NV_ESC_RM_UNMAP_MEMORY_DMA",
	[0x59] = "NV_ESC_RM_BIND_CONTEXT_DMA",
	[0x5c] = "NV_ESC_RM_EXPORT_OBJECT_TO_FD",
	[0x5d] = "NV_ESC_RM_IMPORT_OBJECT_FROM_FD",
	[0x5e] = "NV_ESC_RM_UPDATE_DEVICE_MAPPING_INFO",
	[0x5f] = "NV_ESC_RM_LOCKLESS_DIAGNOSTIC",
	[200 + 0] = "NV_ESC_CARD_INFO",
	[200 + 1] = "NV_ESC_REGISTER_FD",
	[200 + 6] = "NV_ESC_ALLOC_OS_EVENT",
	[200 + 7] = "NV_ESC_FREE_OS_EVENT",
	[200 + 9] = "NV_ESC_STATUS_CODE",
	[200 + 10] = "NV_ESC_CHECK_VERSION_STR",
	[200 + 11] = "NV_ESC_IOCTL_XFER_CMD",
	[200 + 12] = "NV_ESC_ATTACH_GPUS_TO_FD",
	[200 + 13] = "NV_ESC_QUERY_DEVICE_INTR",
	[200 + 14] = "NV_ESC_SYS_PARAMS",
	[200 + 15] = "NV_ESC_NUMA_INFO",
	[200 + 16] = "NV_ESC_SET_NUMA_STATUS",
	[200 + 17] = "NV_ESC_EXPORT_TO_DMABUF_FD",
	[200 + 18] = "NV_ESC_WAIT_OPEN_COMPLETE",
};

/*
 * nvidia-uvm.ko commands: plain numbers, not _IOC encodings (UVM_IOCTL_BASE(i)
 * is i on Linux). From open-gpu-kernel-modules 595.45.04,
 * kernel-open/nvidia-uvm/uvm_ioctl.h and uvm_linux_ioctl.h. The UVM_TEST_*
 * commands (uvm_test_ioctl.h, 200 and up) are left out.
 */
struct uvm_name {
	uint32_t cmd;
	const char *name;
};

static const struct uvm_name uvm_ioctls[] = {
	{ 1, "UVM_RESERVE_VA" },
	{ 2, "UVM_RELEASE_VA" },
	{ 3, "UVM_REGION_COMMIT" },
	{ 4, "UVM_REGION_DECOMMIT" },
	{ 5, "UVM_REGION_SET_STREAM" },
	{ 6, "UVM_SET_STREAM_RUNNING" },
	{ 7, "UVM_SET_STREAM_STOPPED" },
	{ 10, "UVM_ADD_SESSION" },
	{ 12, "UVM_ENABLE_COUNTERS" },
	{ 13, "UVM_MAP_COUNTER" },
	{ 14, "UVM_CREATE_EVENT_QUEUE" },
	{ 15, "UVM_REMOVE_EVENT_QUEUE" },
	{ 16, "UVM_MAP_EVENT_QUEUE" },
	{ 17, "UVM_EVENT_CTRL" },
	{ 20, "UVM_GET_GPU_UUID_TABLE" },
	{ 21, "UVM_REGION_SET_BACKING" },
	{ 22, "UVM_REGION_UNSET_BACKING" },
	{ 23, "UVM_CREATE_RANGE_GROUP" },
	{ 24, "UVM_DESTROY_RANGE_GROUP" },
	{ 25, "UVM_REGISTER_GPU_VASPACE" },
	{ 26, "UVM_UNREGISTER_GPU_VASPACE" },
	{ 27, "UVM_REGISTER_CHANNEL" },
	{ 28, "UVM_UNREGISTER_CHANNEL" },
	{ 29, "UVM_ENABLE_PEER_ACCESS" },
	{ 30, "UVM_DISABLE_PEER_ACCESS" },
	{ 31, "UVM_SET_RANGE_GROUP" },
	{ 33, "UVM_MAP_EXTERNAL_ALLOCATION" },
	{ 34, "UVM_FREE" },
	{ 35, "UVM_MEM_MAP" },
	{ 37, "UVM_REGISTER_GPU" },
	{ 38, "UVM_UNREGISTER_GPU" },
	{ 39, "UVM_PAGEABLE_MEM_ACCESS" },
	{ 40, "UVM_PREVENT_MIGRATION_RANGE_GROUPS" },
	{ 41, "UVM_ALLOW_MIGRATION_RANGE_GROUPS" },
	{ 42, "UVM_SET_PREFERRED_LOCATION" },
	{ 43, "UVM_UNSET_PREFERRED_LOCATION" },
	{ 44, "UVM_ENABLE_READ_DUPLICATION" },
	{ 45, "UVM_DISABLE_READ_DUPLICATION" },
	{ 46, "UVM_SET_ACCESSED_BY" },
	{ 47, "UVM_UNSET_ACCESSED_BY" },
	{ 51, "UVM_MIGRATE" },
	{ 53, "UVM_MIGRATE_RANGE_GROUP" },
	{ 56, "UVM_TOOLS_INIT_EVENT_TRACKER" },
	{ 57, "UVM_TOOLS_SET_NOTIFICATION_THRESHOLD" },
	{ 58, "UVM_TOOLS_EVENT_QUEUE_ENABLE_EVENTS" },
	{ 59, "UVM_TOOLS_EVENT_QUEUE_DISABLE_EVENTS" },
	{ 60, "UVM_TOOLS_ENABLE_COUNTERS" },
	{ 61, "UVM_TOOLS_DISABLE_COUNTERS" },
	{ 62, "UVM_TOOLS_READ_PROCESS_MEMORY" },
	{ 63, "UVM_TOOLS_WRITE_PROCESS_MEMORY" },
	{ 64, "UVM_TOOLS_GET_PROCESSOR_UUID_TABLE" },
	{ 65, "UVM_MAP_DYNAMIC_PARALLELISM_REGION" },
	{ 66, "UVM_UNMAP_EXTERNAL" },
	{ 67, "UVM_TOOLS_FLUSH_EVENTS" },
	{ 68, "UVM_ALLOC_SEMAPHORE_POOL" },
	{ 69, "UVM_CLEAN_UP_ZOMBIE_RESOURCES" },
	{ 70, "UVM_PAGEABLE_MEM_ACCESS_ON_GPU" },
	{ 71, "UVM_POPULATE_PAGEABLE" },
	{ 72, "UVM_VALIDATE_VA_RANGE" },
	{ 73, "UVM_CREATE_EXTERNAL_RANGE" },
	{ 74, "UVM_MAP_EXTERNAL_SPARSE" },
	{ 75, "UVM_MM_INITIALIZE" },
	{ 76, "UVM_TOOLS_INIT_EVENT_TRACKER_V2" },
	{ 77, "UVM_TOOLS_GET_PROCESSOR_UUID_TABLE_V2" },
	{ 78, "UVM_ALLOC_DEVICE_P2P" },
	{ 79, "UVM_CLEAR_ALL_ACCESS_COUNTERS" },
	{ 80, "UVM_DISCARD" },
	{ 2047, "UVM_IS_8_SUPPORTED" },
	{ 0x30000001, "UVM_INITIALIZE" },
	{ 0x30000002, "UVM_DEINITIALIZE" },
};

/*
 * amdkfd (/dev/kfd), type 'K', named by _IOC_NR: include/uapi/linux/kfd_ioctl.h,
 * mainline early 2026 (KFD ioctl 1.19, newest: CREATE_PROCESS).
 */
static const char *const kfd_ioctls[0x28] = {
	[0x01] = "AMDKFD_IOC_GET_VERSION",
	[0x02] = "AMDKFD_IOC_CREATE_QUEUE",
	[0x03] = "AMDKFD_IOC_DESTROY_QUEUE",
	[0x04] = "AMDKFD_IOC_SET_MEMORY_POLICY",
	[0x05] = "AMDKFD_IOC_GET_CLOCK_COUNTERS",
	[0x06] = "AMDKFD_IOC_GET_PROCESS_APERTURES",
	[0x07] = "AMDKFD_IOC_UPDATE_QUEUE",
	[0x08] = "AMDKFD_IOC_CREATE_EVENT",
	[0x09] = "AMDKFD_IOC_DESTROY_EVENT",
	[0x0a] = "AMDKFD_IOC_SET_EVENT",
	[0x0b] = "AMDKFD_IOC_RESET_EVENT",
	[0x0c] = "AMDKFD_IOC_WAIT_EVENTS",
	[0x0d] = "AMDKFD_IOC_DBG_REGISTER_DEPRECATED",
	[0x0e] = "AMDKFD_IOC_DBG_UNREGISTER_DEPRECATED",
	[0x0f] = "AMDKFD_IOC_DBG_ADDRESS_WATCH_DEPRECATED",
	[0x10] = "AMDKFD_IOC_DBG_WAVE_CONTROL_DEPRECATED",
	[0x11] = "AMDKFD_IOC_SET_SCRATCH_BACKING_VA",
	[0x12] = "AMDKFD_IOC_GET_TILE_CONFIG",
	[0x13] = "AMDKFD_IOC_SET_TRAP_HANDLER",
	[0x14] = "AMDKFD_IOC_GET_PROCESS_APERTURES_NEW",
	[0x15] = "AMDKFD_IOC_ACQUIRE_VM",
	[0x16] = "AMDKFD_IOC_ALLOC_MEMORY_OF_GPU",
	[0x17] = "AMDKFD_IOC_FREE_MEMORY_OF_GPU",
	[0x18] = "AMDKFD_IOC_MAP_MEMORY_TO_GPU",
	[0x19] = "AMDKFD_IOC_UNMAP_MEMORY_FROM_GPU",
	[0x1a] = "AMDKFD_IOC_SET_CU_MASK",
	[0x1b] = "AMDKFD_IOC_GET_QUEUE_WAVE_STATE",
	[0x1c] = "AMDKFD_IOC_GET_DMABUF_INFO",
	[0x1d] = "AMDKFD_IOC_IMPORT_DMABUF",
	[0x1e] = "AMDKFD_IOC_ALLOC_QUEUE_GWS",
	[0x1f] = "AMDKFD_IOC_SMI_EVENTS",
	[0x20] = "AMDKFD_IOC_SVM",
	[0x21] = "AMDKFD_IOC_SET_XNACK_MODE",
	[0x22] = "AMDKFD_IOC_CRIU_OP",
	[0x23] = "AMDKFD_IOC_AVAILABLE_MEMORY",
	[0x24] = "AMDKFD_IOC_EXPORT_DMABUF",
	[0x25] = "AMDKFD_IOC_RUNTIME_ENABLE",
	[0x26] = "AMDKFD_IOC_DBG_TRAP",
	[0x27] = "AMDKFD_IOC_CREATE_PROCESS",
};

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))

static enum ioc_dir cmd_dir(uint32_t cmd)
{
	switch (_IOC_DIR(cmd)) {
	case _IOC_NONE:
		return DIR_NONE;
	case _IOC_WRITE:
		return DIR_W;
	case _IOC_READ:
		return DIR_R;
	case _IOC_READ | _IOC_WRITE:
		return DIR_RW;
	default:
		return DIR_BAD;
	}
}

static const struct drm_driver_names *find_drm_driver(const char *driver)
{
	if (!driver)
		return NULL;
	for (size_t i = 0; i < ARRAY_LEN(drm_drivers); i++)
		for (size_t a = 0; a < MAX_ALIASES && drm_drivers[i].aliases[a]; a++)
			if (strcmp(driver, drm_drivers[i].aliases[a]) == 0)
				return &drm_drivers[i];
	return NULL;
}

static const char *lookup_drm(const char *driver, uint32_t cmd)
{
	unsigned int nr = _IOC_NR(cmd);
	const struct drm_driver_names *drv;
	unsigned int idx;
	enum ioc_dir dir;

	if (_IOC_TYPE(cmd) != DRM_TYPE)
		return NULL;
	if (nr < DRM_COMMAND_BASE || nr >= DRM_COMMAND_END)
		return drm_core_ioctls[nr];

	drv = find_drm_driver(driver);
	if (!drv)
		return NULL;
	idx = nr - DRM_COMMAND_BASE;
	dir = cmd_dir(cmd);
	for (size_t i = 0; i < drv->nvariants; i++) {
		const struct drm_variant *v = &drv->variants[i];

		if (v->idx != idx)
			continue;
		if (v->dir != DIR_ANY && v->dir != dir)
			continue;
		if (v->size && v->size != _IOC_SIZE(cmd))
			continue;
		return v->name;
	}
	return drv->ioctls[idx];
}

static const char *lookup_uvm(uint32_t cmd)
{
	for (size_t i = 0; i < ARRAY_LEN(uvm_ioctls); i++)
		if (uvm_ioctls[i].cmd == cmd)
			return uvm_ioctls[i].name;
	return NULL;
}

const char *xp_ioctl_lookup(enum xp_dev_kind kind, const char *driver, uint32_t cmd)
{
	switch (kind) {
	case XP_DEV_DRM:
		return lookup_drm(driver, cmd);
	case XP_DEV_NVIDIA:
		return _IOC_TYPE(cmd) == NV_TYPE ? nv_escapes[_IOC_NR(cmd)] : NULL;
	case XP_DEV_NVIDIA_UVM:
		return lookup_uvm(cmd);
	case XP_DEV_KFD:
		if (_IOC_TYPE(cmd) == KFD_TYPE && _IOC_NR(cmd) < ARRAY_LEN(kfd_ioctls))
			return kfd_ioctls[_IOC_NR(cmd)];
		return NULL;
	case XP_DEV_OTHER:
	default:
		return NULL;
	}
}

/*
 * Shows cmd the way the _IO* macros would have built it, or as a plain hex
 * number when it cannot be one: no type byte, a direction the macros never
 * produce, or a size on a no-data _IO command.
 */
static void decode(uint32_t cmd, char *buf, size_t len)
{
	unsigned int type = _IOC_TYPE(cmd), nr = _IOC_NR(cmd), size = _IOC_SIZE(cmd);
	enum ioc_dir dir = cmd_dir(cmd);
	static const char *const macro[] = {
		[DIR_NONE] = "_IO", [DIR_W] = "_IOW", [DIR_R] = "_IOR", [DIR_RW] = "_IOWR",
	};
	char tbuf[8];

	if (type == 0 || dir == DIR_BAD || (dir == DIR_NONE && size != 0)) {
		snprintf(buf, len, "0x%08x", cmd);
		return;
	}
	if (type > 0x20 && type < 0x7f && type != '\'' && type != '\\')
		snprintf(tbuf, sizeof(tbuf), "'%c'", (char)type);
	else
		snprintf(tbuf, sizeof(tbuf), "0x%02x", type);

	if (dir == DIR_NONE)
		snprintf(buf, len, "%s(%s,0x%02x)", macro[dir], tbuf, nr);
	else
		snprintf(buf, len, "%s(%s,0x%02x,%u)", macro[dir], tbuf, nr, size);
}

const char *xp_ioctl_name(enum xp_dev_kind kind, const char *driver, uint32_t cmd,
			  char *buf, size_t len)
{
	const char *name;

	if (!buf || len == 0)
		return buf;
	name = xp_ioctl_lookup(kind, driver, cmd);
	if (name)
		snprintf(buf, len, "%s", name);
	else
		decode(cmd, buf, len);
	return buf;
}
