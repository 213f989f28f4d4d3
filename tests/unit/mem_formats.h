/*
 * The amdgpu, i915 and xe format files as tracefs prints them (Debian 6.1
 * and 7.3), for the mem tests: test_mem.c, test_mem_report.c, test_replay.c.
 * Needs FMT_COMMON (rawtp_util.h).
 */
#ifndef XP_TESTS_MEM_FORMATS_H
#define XP_TESTS_MEM_FORMATS_H

/* Debian 6.1 (drivers/gpu/drm/amd/amdgpu/amdgpu_trace.h) */
static const char fmt_bo_create[] =
	"name: amdgpu_bo_create\nID: 1\nformat:\n" FMT_COMMON
	"\tfield:struct amdgpu_bo * bo;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 pages;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 type;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 prefer;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 allow;\toffset:28;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 visible;\toffset:32;\tsize:4;\tsigned:0;\n\nprint fmt: \"\"\n";
static const char fmt_bo_move[] =
	"name: amdgpu_bo_move\nID: 2\nformat:\n" FMT_COMMON
	"\tfield:struct amdgpu_bo * bo;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 bo_size;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 new_placement;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 old_placement;\toffset:28;\tsize:4;\tsigned:0;\n\nprint fmt: \"\"\n";
/* 6.1: sched_job_id first and u32 context/seqno; 7.3 dropped the id and widened them */
static const char fmt_cs_61[] =
	"name: amdgpu_cs_ioctl\nID: 3\nformat:\n" FMT_COMMON
	"\tfield:uint64_t sched_job_id;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:__data_loc char[] timeline;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int context;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int seqno;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:struct dma_fence * fence;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:__data_loc char[] ring;\toffset:40;\tsize:4;\tsigned:1;\n"
	"\tfield:u32 num_ibs;\toffset:44;\tsize:4;\tsigned:0;\n\nprint fmt: \"\"\n";
static const char fmt_run_73[] =
	"name: amdgpu_sched_run_job\nID: 4\nformat:\n" FMT_COMMON
	"\tfield:__data_loc char[] timeline;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:u64 context;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 seqno;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:__data_loc char[] ring;\toffset:32;\tsize:4;\tsigned:1;\n"
	"\tfield:u32 num_ibs;\toffset:36;\tsize:4;\tsigned:0;\n\nprint fmt: \"\"\n";
static const char fmt_iv[] =
	"name: amdgpu_iv\nID: 5\nformat:\n" FMT_COMMON
	"\tfield:unsigned ih;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned client_id;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned src_id;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned ring_id;\toffset:20;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned vmid;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned vmid_src;\toffset:28;\tsize:4;\tsigned:0;\n"
	"\tfield:uint64_t timestamp;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned timestamp_src;\toffset:40;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned pasid;\toffset:44;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned src_data[4];\toffset:48;\tsize:16;\tsigned:0;\n\nprint fmt: \"\"\n";
static const char fmt_i915_create[] =
	"name: i915_gem_object_create\nID: 6\nformat:\n" FMT_COMMON
	"\tfield:struct drm_i915_gem_object * obj;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 size;\toffset:16;\tsize:8;\tsigned:0;\n\nprint fmt: \"\"\n";
static const char fmt_i915_destroy[] =
	"name: i915_gem_object_destroy\nID: 7\nformat:\n" FMT_COMMON
	"\tfield:struct drm_i915_gem_object * obj;\toffset:8;\tsize:8;\tsigned:0;\n\nprint fmt: \"\"\n";
static const char fmt_i915_bind[] =
	"name: i915_vma_bind\nID: 8\nformat:\n" FMT_COMMON
	"\tfield:struct drm_i915_gem_object * obj;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:struct i915_address_space * vm;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 offset;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 size;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned flags;\toffset:40;\tsize:4;\tsigned:0;\n\nprint fmt: \"\"\n";
static const char fmt_i915_unbind[] =
	"name: i915_vma_unbind\nID: 9\nformat:\n" FMT_COMMON
	"\tfield:struct drm_i915_gem_object * obj;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:struct i915_address_space * vm;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 offset;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 size;\toffset:32;\tsize:8;\tsigned:0;\n\nprint fmt: \"\"\n";
static const char fmt_i915_fault[] =
	"name: i915_gem_object_fault\nID: 10\nformat:\n" FMT_COMMON
	"\tfield:struct drm_i915_gem_object * obj;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 index;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:bool gtt;\toffset:24;\tsize:1;\tsigned:0;\n"
	"\tfield:bool write;\toffset:25;\tsize:1;\tsigned:0;\n\nprint fmt: \"\"\n";
/* i915_request class (add, retire, wait_end) and wait_begin, the same in 6.1 and 7.3 */
#define FMT_RQ_HEAD FMT_COMMON \
	"\tfield:u32 dev;\toffset:8;\tsize:4;\tsigned:0;\n" \
	"\tfield:u64 ctx;\toffset:16;\tsize:8;\tsigned:0;\n" \
	"\tfield:u16 class;\toffset:24;\tsize:2;\tsigned:0;\n" \
	"\tfield:u16 instance;\toffset:26;\tsize:2;\tsigned:0;\n" \
	"\tfield:u32 seqno;\toffset:28;\tsize:4;\tsigned:0;\n"
#define FMT_RQ(name, id) "name: " name "\nID: " id "\nformat:\n" FMT_RQ_HEAD \
	"\tfield:u32 tail;\toffset:32;\tsize:4;\tsigned:0;\n\nprint fmt: \"\"\n"
static const char fmt_rq_add[] = FMT_RQ("i915_request_add", "14");
static const char fmt_rq_retire[] = FMT_RQ("i915_request_retire", "15");
static const char fmt_rq_wait_end[] = FMT_RQ("i915_request_wait_end", "17");
static const char fmt_rq_wait_begin[] =
	"name: i915_request_wait_begin\nID: 16\nformat:\n" FMT_RQ_HEAD
	"\tfield:unsigned int flags;\toffset:32;\tsize:4;\tsigned:0;\n\nprint fmt: \"\"\n";

/* Debian 7.3 (drivers/gpu/drm/xe/xe_trace.h, xe_trace_bo.h) */
static const char fmt_xe_queue[] =
	"name: xe_exec_queue_create\nID: 11\nformat:\n" FMT_COMMON
	"\tfield:__data_loc char[] dev;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:enum xe_engine_class class;\toffset:12;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 logical_mask;\toffset:16;\tsize:4;\tsigned:0;\n"
	"\tfield:u8 gt_id;\toffset:20;\tsize:1;\tsigned:0;\n"
	"\tfield:u16 width;\toffset:22;\tsize:2;\tsigned:0;\n"
	"\tfield:u16 guc_id;\toffset:24;\tsize:2;\tsigned:0;\n"
	"\tfield:u32 guc_state;\toffset:28;\tsize:4;\tsigned:0;\n"
	"\tfield:u32 flags;\toffset:32;\tsize:4;\tsigned:0;\n\nprint fmt: \"\"\n";
static const char fmt_xe_bo_move[] =
	"name: xe_bo_move\nID: 12\nformat:\n" FMT_COMMON
	"\tfield:struct xe_bo * bo;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:size_t size;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:__data_loc char[] new_placement_name;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc char[] old_placement_name;\toffset:28;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc char[] device_id;\toffset:32;\tsize:4;\tsigned:0;\n"
	"\tfield:bool move_lacks_source;\toffset:36;\tsize:1;\tsigned:0;\n\nprint fmt: \"\"\n";
static const char fmt_xe_bo_create[] =
	"name: xe_bo_create\nID: 13\nformat:\n" FMT_COMMON
	"\tfield:__data_loc char[] dev;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:size_t size;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 flags;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:struct xe_vm * vm;\toffset:32;\tsize:8;\tsigned:0;\n\nprint fmt: \"\"\n";

#endif
