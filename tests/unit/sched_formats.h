/*
 * The gpu_scheduler format files as tracefs prints them, with the offsets
 * measured in the lab (Debian 6.1 and 6.17.13; 7.2 is the same as 6.17).
 * Shared by test_tpformat.c and test_sched.c.
 */
#ifndef XP_TESTS_SCHED_FORMATS_H
#define XP_TESTS_SCHED_FORMATS_H

#define COMMON_FIELDS                                                                      \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"              \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"              \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"      \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"

static const char fmt_61_job[] =
	"name: drm_sched_job\nID: 1402\nformat:\n" COMMON_FIELDS
	"\tfield:struct drm_sched_entity * entity;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:struct dma_fence * fence;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:__data_loc char[] name;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:uint64_t id;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 job_count;\toffset:40;\tsize:4;\tsigned:0;\n"
	"\tfield:int hw_job_count;\toffset:44;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"entity=%p, id=%llu, fence=%p, ring=%s, job count:%u, hw job count:%d\", "
	"REC->entity, REC->id, REC->fence, __get_str(name), REC->job_count, REC->hw_job_count\n";

static const char fmt_61_run[] =
	"name: drm_run_job\nID: 1401\nformat:\n" COMMON_FIELDS
	"\tfield:struct drm_sched_entity * entity;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:struct dma_fence * fence;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:__data_loc char[] name;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:uint64_t id;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:u32 job_count;\toffset:40;\tsize:4;\tsigned:0;\n"
	"\tfield:int hw_job_count;\toffset:44;\tsize:4;\tsigned:1;\n\n"
	"print fmt: \"entity=%p, id=%llu, fence=%p, ring=%s, job count:%u, hw job count:%d\", "
	"REC->entity, REC->id, REC->fence, __get_str(name), REC->job_count, REC->hw_job_count\n";

static const char fmt_61_process[] =
	"name: drm_sched_process_job\nID: 1400\nformat:\n" COMMON_FIELDS
	"\tfield:struct dma_fence * fence;\toffset:8;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"fence=%p signaled\", REC->fence\n";

static const char fmt_61_wait_dep[] =
	"name: drm_sched_job_wait_dep\nID: 1399\nformat:\n" COMMON_FIELDS
	"\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:uint64_t id;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:struct dma_fence * fence;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:uint64_t ctx;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned seqno;\toffset:40;\tsize:4;\tsigned:0;\n\n"
	"print fmt: \"job ring=%s, id=%llu, depends fence=%p, context=%llu, seq=%u\", "
	"__get_str(name), REC->id, REC->fence, REC->ctx, REC->seqno\n";

#define FMT_617_JOB(NAME, ID)                                                              \
	"name: " NAME "\nID: " ID "\nformat:\n" COMMON_FIELDS                               \
	"\tfield:__data_loc char[] name;\toffset:8;\tsize:4;\tsigned:0;\n"                  \
	"\tfield:u32 job_count;\toffset:12;\tsize:4;\tsigned:0;\n"                          \
	"\tfield:int hw_job_count;\toffset:16;\tsize:4;\tsigned:1;\n"                       \
	"\tfield:__data_loc char[] dev;\toffset:20;\tsize:4;\tsigned:0;\n"                  \
	"\tfield:u64 fence_context;\toffset:24;\tsize:8;\tsigned:0;\n"                      \
	"\tfield:u64 fence_seqno;\toffset:32;\tsize:8;\tsigned:0;\n"                        \
	"\tfield:u64 client_id;\toffset:40;\tsize:8;\tsigned:0;\n\n"                        \
	"print fmt: \"dev=%s, fence=%llu:%llu, ring=%s, job count:%u, hw job count:%d, "    \
	"client_id:%llu\", __get_str(dev), REC->fence_context, REC->fence_seqno, "          \
	"__get_str(name), REC->job_count, REC->hw_job_count, REC->client_id\n"

static const char fmt_617_queue[] = FMT_617_JOB("drm_sched_job_queue", "1630");
static const char fmt_617_run[] = FMT_617_JOB("drm_sched_job_run", "1629");

static const char fmt_617_done[] =
	"name: drm_sched_job_done\nID: 1628\nformat:\n" COMMON_FIELDS
	"\tfield:u64 fence_context;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 fence_seqno;\toffset:16;\tsize:8;\tsigned:0;\n\n"
	"print fmt: \"fence=%llu:%llu signaled\", REC->fence_context, REC->fence_seqno\n";

#define FMT_617_DEP(NAME, ID)                                                              \
	"name: " NAME "\nID: " ID "\nformat:\n" COMMON_FIELDS                               \
	"\tfield:u64 fence_context;\toffset:8;\tsize:8;\tsigned:0;\n"                       \
	"\tfield:u64 fence_seqno;\toffset:16;\tsize:8;\tsigned:0;\n"                        \
	"\tfield:u64 ctx;\toffset:24;\tsize:8;\tsigned:0;\n"                                \
	"\tfield:u64 seqno;\toffset:32;\tsize:8;\tsigned:0;\n\n"                            \
	"print fmt: \"fence=%llu:%llu depends on fence=%llu:%llu\", REC->fence_context, "   \
	"REC->fence_seqno, REC->ctx, REC->seqno\n"

static const char fmt_617_add_dep[] = FMT_617_DEP("drm_sched_job_add_dep", "1627");
static const char fmt_617_unsched[] = FMT_617_DEP("drm_sched_job_unschedulable", "1626");

#endif
