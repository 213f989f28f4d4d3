// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * Vendor memory and submission events (groups "amdgpu", "i915", "xe"), copied
 * raw: no field offsets here, user space decodes them with the layouts of the
 * running kernel's format files. Program index = enum xp_mem_tp
 * (src/core/mem_stats.h). The process filters apply only to the events that
 * fire in the causing process's context (xp_rawtp_cfg[].filter, set by user
 * space from the event table); the others belong to no process.
 */
#include "bpf/rawtp.bpf.h"

XP_RAWTP_PROG(mem, XP_REC_MEM, 0)	/* amdgpu_bo_create */
XP_RAWTP_PROG(mem, XP_REC_MEM, 1)	/* amdgpu_bo_move */
XP_RAWTP_PROG(mem, XP_REC_MEM, 2)	/* amdgpu_cs_ioctl */
XP_RAWTP_PROG(mem, XP_REC_MEM, 3)	/* amdgpu_sched_run_job */
XP_RAWTP_PROG(mem, XP_REC_MEM, 4)	/* amdgpu_iv */
XP_RAWTP_PROG(mem, XP_REC_MEM, 5)	/* i915_gem_object_create */
XP_RAWTP_PROG(mem, XP_REC_MEM, 6)	/* i915_gem_object_destroy */
XP_RAWTP_PROG(mem, XP_REC_MEM, 7)	/* i915_vma_bind */
XP_RAWTP_PROG(mem, XP_REC_MEM, 8)	/* i915_vma_unbind */
XP_RAWTP_PROG(mem, XP_REC_MEM, 9)	/* i915_gem_evict */
XP_RAWTP_PROG(mem, XP_REC_MEM, 10)	/* i915_gem_evict_node */
XP_RAWTP_PROG(mem, XP_REC_MEM, 11)	/* i915_gem_evict_vm */
XP_RAWTP_PROG(mem, XP_REC_MEM, 12)	/* i915_gem_shrink */
XP_RAWTP_PROG(mem, XP_REC_MEM, 13)	/* i915_gem_object_fault */
XP_RAWTP_PROG(mem, XP_REC_MEM, 14)	/* xe_exec_queue_create */
XP_RAWTP_PROG(mem, XP_REC_MEM, 15)	/* xe_exec_queue_destroy */
XP_RAWTP_PROG(mem, XP_REC_MEM, 16)	/* xe_sched_job_create */
XP_RAWTP_PROG(mem, XP_REC_MEM, 17)	/* xe_sched_job_run */
XP_RAWTP_PROG(mem, XP_REC_MEM, 18)	/* xe_bo_move */
XP_RAWTP_PROG(mem, XP_REC_MEM, 19)	/* xe_vma_pagefault */
XP_RAWTP_PROG(mem, XP_REC_MEM, 20)	/* xe_bo_create */
XP_RAWTP_PROG(mem, XP_REC_MEM, 21)	/* i915_request_add */
XP_RAWTP_PROG(mem, XP_REC_MEM, 22)	/* i915_request_retire */
XP_RAWTP_PROG(mem, XP_REC_MEM, 23)	/* i915_request_wait_begin */
XP_RAWTP_PROG(mem, XP_REC_MEM, 24)	/* i915_request_wait_end */
