# xputrace mem against the real amdgpu, i915 (and, where the kernel has it,
# xe) modules, and end to end against the memdouble test module.
# QEMU has no AMD or Intel GPU: the real modules load and register their
# events but never fire them. So:
#  attach:  `xputrace mem -d 1` attaches cleanly to every event the real
#           modules registered, and says which events this kernel lacks;
#  formats: memdouble's events (groups xpmem_amdgpu, xpmem_i915, xpmem_xe)
#           have field lines identical to the real modules' format files
#           (xe: on kernels that have it);
#  decode:  xputrace reads memdouble's groups as amdgpu, i915 and xe while the
#           module fires known counts and sizes: every count and byte total
#           exact, per-process attribution for the writer's events only, the
#           process filter applied to process-context events only, and one
#           --stream line per event.
need_xputrace
XP_START_TRIES=600	# attaching to the three drivers' events takes longer
REL=$(uname -r)
AMD_EV="amdgpu_bo_create amdgpu_bo_move amdgpu_cs_ioctl amdgpu_sched_run_job amdgpu_iv"
I915_EV="i915_gem_object_create i915_gem_object_destroy i915_vma_bind i915_vma_unbind i915_gem_evict i915_gem_evict_node i915_gem_evict_vm i915_gem_shrink i915_gem_object_fault i915_request_add i915_request_retire i915_request_wait_begin i915_request_wait_end"
XE_EV="xe_exec_queue_create xe_exec_queue_destroy xe_sched_job_create xe_sched_job_run xe_bo_move xe_vma_pagefault xe_bo_create"


group attach
drivers="amdgpu i915"
[ -f "/lib/modules/$REL/modules.dep" ] && grep -q '/xe\.ko' /lib/modules/$REL/modules.dep && drivers="$drivers xe"
for m in $drivers; do load $m; done
for m in $drivers; do
	check "$m registered its event group" test -d $T/events/$m
done
xputrace mem -d 1 --json >$S/attach.json 2>$S/attach.err; rc=$?
cat $S/attach.err
expect_eq "mem -d 1 exit status" 0 $rc
expect_eq "drops" 0 "$(jget $S/attach.json drops.total)"
for m in amdgpu i915 xe; do
	case $m in amdgpu) evs=$AMD_EV ;; i915) evs=$I915_EV ;; xe) evs=$XE_EV ;; esac
	n=0
	for e in $evs; do
		want=false; [ -d $T/events/$m/$e ] && want=true && n=$((n + 1))
		expect_eq "$m/$e present as in tracefs" $want "$(jget $S/attach.json events.$e.present)"
	done
	expect_eq "$m events attached" $n "$(jget $S/attach.json $m.events_present)"
	case " $drivers " in
	*" $m "*) check "$m: at least one event attached" test "$n" -gt 0 ;;
	*) say "$m: not in this kernel ($REL), its events are skipped" ;;
	esac
done
xputrace mem -d 1 >$S/attach.txt 2>&1; rc=$?
expect_eq "mem -d 1 (text) exit status" 0 $rc
grep '^note:\|^mem:' $S/attach.txt
for m in $drivers; do
	check "text names the $m sections' attribution" grep -q "^$m .*\[.*per" $S/attach.txt
done
# record attaches the same events and the file reports them as mem did
xputrace record -o $S/mem.xpt -d 1 mem 2>$S/rec.err; rc=$?
expect_eq "record mem exit status" 0 $rc
xputrace report $S/mem.xpt mem --json >$S/rep.json 2>$S/rep.err
expect_eq "report of the mem recording: exit status" 0 $?
for m in amdgpu i915 xe; do
	expect_eq "report: $m events present as mem attached them" \
		"$(jget $S/attach.json $m.events_present)" "$(jget $S/rep.json $m.events_present)"
done

group formats
load memdouble || finish
for pair in amdgpu:xpmem_amdgpu:"$AMD_EV" i915:xpmem_i915:"$I915_EV" xe:xpmem_xe:"$XE_EV"; do
	real=${pair%%:*}; rest=${pair#*:}; mine=${rest%%:*}; evs=${rest#*:}
	for e in $evs; do
		if [ ! -f $T/events/$real/$e/format ]; then
			say "$real/$e: not in this kernel, nothing to compare"
			continue
		fi
		grep 'field:' $T/events/$real/$e/format >$S/real.fmt
		grep 'field:' $T/events/$mine/$e/format >$S/mine.fmt 2>/dev/null
		if cmp -s $S/real.fmt $S/mine.fmt; then
			ok "$mine/$e field lines identical to $real/$e ($(wc -l <$S/real.fmt) lines)"
		else
			bad "$mine/$e field lines differ from $real/$e"
			diff $S/real.fmt $S/mine.fmt
		fi
	done
done

group decode
F=/sys/kernel/debug/memdouble/fire
G="--group amdgpu=xpmem_amdgpu --group i915=xpmem_i915 --group xe=xpmem_xe"
start_xp $S/all.json mem $G --json && P1=$XPID
start_xp $S/pid1.json mem $G --json -p 1 && P2=$XPID
start_xp $S/stream.txt mem $G --stream && P3=$XPID
# serve beside them: its buffer metrics per cgroup (the writer's: the root)
grep -q ' cgroup2 ' /proc/mounts || mount -t cgroup2 none /sys/fs/cgroup
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
start_xp $S/serve.out serve mem $G --listen 127.0.0.1:9465 && P4=$XPID
fire() { echo "$*" >$F || bad "memdouble: $*"; }
# amdgpu: 6 BOs (2 asked for VRAM and got GTT), 5 moves, 5 submits on gfx and
# 4 of them run, 1 run on sdma0 never submitted while tracing, 10 interrupts
fire bo_create n=3 pages=256 type=2 prefer=4 allow=6
fire bo_create n=2 pages=512 type=1 prefer=4 allow=6
fire bo_create n=1 pages=16 type=1 prefer=2 allow=2
fire bo_move n=4 size=1048576 from=2 to=1
fire bo_move n=1 size=65536 from=1 to=2
fire cs_ioctl n=5 ring=gfx_0.0.0 ctx=77 seqno=10
fire run_job n=4 ring=gfx_0.0.0 ctx=77 seqno=10
fire run_job n=1 ring=sdma0 ctx=9 seqno=1
fire iv n=7 client=1 src=2 pasid=32769
fire iv n=3 client=10 src=146 pasid=0
# i915: 8 objects, 5 binds of which 2 after an unbind, 5 destroyed (the 64 KiB
# ones) leaving 3 (2.0625 MiB), 6 faults, evictions and shrinks
fire create n=6 size=65536
fire create n=2 size=1048576
fire bind n=3 size=65536
fire unbind n=2
fire bind n=2 size=65536
fire fault n=4 gtt=1 write=1
fire fault n=2 gtt=0 write=0
fire destroy n=5
fire evict n=2 size=131072
fire evict_node n=1
fire evict_vm n=1
fire shrink n=3 target=128
# i915 requests: 4 on rcs0 (ctx 5) and 2 on bcs0 (ctx 6) added; all retired by
# a worker at least 200 ms later except rcs0's last, plus one retire of a
# request added before tracing; 3 waits of 20 ms each in the writer
fire rq_add n=4 ctx=5 seqno=1 class=0 instance=0
fire rq_add n=2 ctx=6 seqno=1 class=1 instance=0
sleep 0.2
fire rq_retire n=3 ctx=5 seqno=1 class=0 instance=0
fire rq_retire n=2 ctx=6 seqno=1 class=1 instance=0
fire rq_retire n=1 ctx=5 seqno=100 class=0 instance=0
fire rq_wait n=3 ctx=5 seqno=1 class=0 instance=0 us=20000
# xe: 3 exec queues (2 render, 1 copy) and 1 destroyed, 5 jobs created and 4
# run, 3 BOs of 2 MiB, 2 moves vram0 -> system of 1 MiB and 1 first placement
# in gtt of 64 KiB, 4 VMA page faults
fire xe_queue n=2 class=0
fire xe_queue n=1 class=3
fire xe_queue_destroy n=1
fire xe_job n=5 seqno=1
fire xe_job_run n=4 seqno=1
fire xe_bo n=3 size=2097152
fire xe_move n=2 size=1048576 from=2 to=0
fire xe_move n=1 size=65536 from=0 to=1 new=1
fire xe_fault n=4 asid=5
sleep 0.6	# a record reaches serve within its 0.5 s tick
wget -q -O $S/m.txt http://127.0.0.1:9465/metrics || bad "wget /metrics: status $?"
for p in $P1 $P2 $P3 $P4; do kill -INT $p; done
for p in $P1 $P2 $P3 $P4; do wait $p || bad "xputrace (pid $p) exit status $?"; done
J=$S/all.json
cat $J; echo
for kv in \
	events_seen=105 drops.total=0 undecodable=0 \
	amdgpu.group=xpmem_amdgpu amdgpu.events_present=5 i915.group=xpmem_i915 i915.events_present=13 \
	xe.group=xpmem_xe xe.events_present=7 \
	amdgpu.bo_create.per_process=true amdgpu.bo_create.count=6 amdgpu.bo_create.bytes=7405568 \
	amdgpu.bo_create.bytes_vram_preferred=7340032 amdgpu.bo_create.bytes_gtt_preferred=65536 \
	amdgpu.bo_create.bytes_cpu_only=0 amdgpu.bo_create.vram_in_gtt=2 \
	amdgpu.bo_create.vram_in_gtt_bytes=4194304 \
	amdgpu.bo_move.per_process=false amdgpu.bo_move.count=5 amdgpu.bo_move.bytes=4259840 \
	'amdgpu.bo_move.by_placement[from=vram].count=4' 'amdgpu.bo_move.by_placement[from=vram].to=gtt' \
	'amdgpu.bo_move.by_placement[from=vram].bytes=4194304' 'amdgpu.bo_move.by_placement[from=gtt].bytes=65536' \
	amdgpu.submit.per_process=false 'amdgpu.submit.rings[0].ring=gfx_0.0.0' 'amdgpu.submit.rings[0].submits=5' \
	'amdgpu.submit.rings[0].run=4' 'amdgpu.submit.rings[0].unmatched=0' 'amdgpu.submit.rings[0].submit_to_run_ns.count=4' \
	'amdgpu.submit.rings[ring=sdma0].submits=0' 'amdgpu.submit.rings[ring=sdma0].run=1' 'amdgpu.submit.rings[ring=sdma0].unmatched=1' \
	amdgpu.iv.per_process=false amdgpu.iv.count=10 'amdgpu.iv.sources[pasid=32769].count=7' \
	'amdgpu.iv.sources[pasid=32769].src_id=2' 'amdgpu.iv.sources[src_id=146].count=3' \
	i915.objects.per_process=true i915.objects.created=8 i915.objects.created_bytes=2490368 \
	i915.objects.destroyed=5 i915.objects.destroyed_bytes=327680 i915.objects.destroyed_untracked=0 \
	i915.objects.leak_candidates=3 i915.objects.leak_candidate_bytes=2162688 \
	i915.vma.per_process=false i915.vma.binds=5 i915.vma.bind_bytes=327680 i915.vma.unbinds=2 i915.vma.rebinds=2 \
	i915.pressure.evict=2 i915.pressure.evict_bytes=262144 i915.pressure.evict_node=1 \
	i915.pressure.evict_vm=1 i915.pressure.shrink=3 i915.pressure.shrink_target_pages=384 \
	i915.faults.gtt_write=4 i915.faults.gtt_read=0 i915.faults.cpu_read=2 i915.faults.cpu_write=0 \
	i915.requests.per_process=false i915.requests.added=6 i915.requests.retired=6 \
	i915.requests.retired_add_unseen=1 i915.requests.in_flight=1 \
	'i915.requests.engines[engine=rcs0].added=4' 'i915.requests.engines[engine=rcs0].retired=4' \
	'i915.requests.engines[engine=rcs0].add_unseen=1' 'i915.requests.engines[engine=rcs0].in_flight=1' \
	'i915.requests.engines[engine=rcs0].add_to_retire_ns.count=3' 'i915.requests.engines[engine=bcs0].class=1' \
	'i915.requests.engines[engine=bcs0].added=2' 'i915.requests.engines[engine=bcs0].in_flight=0' \
	'i915.requests.engines[engine=bcs0].add_to_retire_ns.count=2' \
	i915.requests.waits=3 i915.requests.waits_without_start=0 i915.requests.wait_ns.count=3 \
	xe.submit.exec_queues_created=3 xe.submit.exec_queues_by_class.render=2 \
	xe.submit.exec_queues_by_class.copy=1 xe.submit.exec_queues_destroyed=1 \
	xe.submit.jobs_created=5 xe.submit.jobs_run=4 \
	xe.memory.bos_created=3 xe.memory.bo_bytes=6291456 xe.memory.moves=3 xe.memory.move_bytes=2162688 \
	xe.memory.moves_without_source=1 xe.memory.moves_without_source_bytes=65536 \
	'xe.memory.by_placement[from=vram0].to=system' 'xe.memory.by_placement[from=vram0].count=2' \
	'xe.memory.by_placement[from=vram0].bytes=2097152' 'xe.memory.by_placement[to=gtt].from=system' \
	'xe.memory.by_placement[to=gtt].bytes=65536' xe.memory.vma_pagefaults=4 \
	"processes[pid=$$].amdgpu_bos=6" "processes[pid=$$].amdgpu_bo_bytes=7405568" \
	"processes[pid=$$].amdgpu_vram_in_gtt=2" "processes[pid=$$].amdgpu_submits=5" \
	"processes[pid=$$].i915_created=8" "processes[pid=$$].i915_created_bytes=2490368" \
	"processes[pid=$$].i915_live=3" "processes[pid=$$].i915_live_bytes=2162688" \
	"processes[pid=$$].i915_faults=6" "processes[pid=$$].i915_requests=6" "processes[pid=$$].i915_waits=3" \
	"processes[pid=$$].xe_exec_queues=3" "processes[pid=$$].xe_jobs=5" \
	"processes[pid=$$].xe_bos=3" "processes[pid=$$].xe_bo_bytes=6291456"; do
	expect_eq "${kv%=*}" "${kv##*=}" "$(jget $J "${kv%=*}")"
done
expect_eq "processes (only the writer: workers and interrupts name none)" 1 "$(jget -n $J processes)"
# times the test itself imposed: retires at least 200 ms after their adds,
# waits at least 20 ms each (and, under emulation, well under a second)
l0=$(jget $J 'i915.requests.engines[engine=rcs0].add_to_retire_ns.sum')
l1=$(jget $J 'i915.requests.engines[engine=bcs0].add_to_retire_ns.sum')
life=$(( ${l0:-0} + ${l1:-0} ))
check "i915 add -> retire: 5 requests, ${life} ns in all, >= 5 x 200 ms" [ "$life" -ge 1000000000 ]
w=$(jget $J i915.requests.wait_ns.sum) pw=$(jget $J "processes[pid=$$].i915_wait_ns")
check "i915 waits: ${w} ns in all, 3 x 20 ms at least, under 3 x 500 ms" [ "${w:-0}" -ge 60000000 -a "${w:-0}" -lt 1500000000 ]
expect_eq "i915 wait time of the writer is all of it" "$w" "$pw"


J=$S/pid1.json
say "-p 1: process-context events filtered, per-device ones kept"
for kv in amdgpu.bo_create.count=0 amdgpu.bo_move.count=5 amdgpu.iv.count=10 \
	'amdgpu.submit.rings[0].run=4' i915.objects.created=0 i915.faults.gtt_write=0 \
	i915.vma.binds=5 i915.pressure.shrink=3 i915.requests.added=0 i915.requests.retired=6 \
	i915.requests.waits=0 xe.submit.exec_queues_created=0 xe.submit.jobs_run=4 \
	xe.memory.bos_created=0 xe.memory.moves=3 xe.memory.vma_pagefaults=4 process_filter=true; do
	expect_eq "-p 1: ${kv%=*}" "${kv##*=}" "$(jget $J "${kv%=*}")"
done
expect_eq "-p 1: processes" 0 "$(jget -n $J processes)"

say "--stream: one line per event"
for e in "amdgpu_bo_create 6" "amdgpu_bo_move 5" "amdgpu_cs_ioctl 5" "amdgpu_sched_run_job 5" \
	"amdgpu_iv 10" "i915_gem_object_create 8" "i915_gem_object_destroy 5" "i915_vma_bind 5" \
	"i915_vma_unbind 2" "i915_gem_object_fault 6" "i915_gem_evict 2" "i915_gem_shrink 3" \
	"i915_request_add 6" "i915_request_retire 6" "i915_request_wait_begin 3" "i915_request_wait_end 3" \
	"xe_exec_queue_create 3" "xe_sched_job_create 5" "xe_sched_job_run 4" "xe_bo_create 3" \
	"xe_bo_move 3" "xe_vma_pagefault 4"; do
	set -- $e
	expect_eq "stream lines $1" $2 "$(grep -Ec "^ *[0-9]+\.[0-9]{6} .* $1 " $S/stream.txt)"
done
expect_eq "stream: bo_create lines name the writer" 6 "$(grep -E '^ *[0-9]+\.[0-9]{6} ' $S/stream.txt | grep ' amdgpu_bo_create ' | grep -c " $$/")"
expect_eq "stream: cs_ioctl ring string" 5 "$(grep -E '^ *[0-9]+\.[0-9]{6} ' $S/stream.txt | grep ' amdgpu_cs_ioctl ' | grep -c 'ring=gfx_0.0.0')"
grep -m3 -e amdgpu_cs_ioctl -e amdgpu_iv $S/stream.txt
group serve
# the same events through serve: buffers and bytes created by the writer's
# cgroup per driver, bytes moved per driver (xe's first placement copies nothing)
grep '^xputrace_gpu_buffer' $S/m.txt
m() { awk -v k="$1" 'index($0, k) == 1 { print $2 }' $S/m.txt; }
for kv in 'buffers_created_total{cgroup="/",driver="amdgpu"}=6' 'buffer_created_bytes_total{cgroup="/",driver="amdgpu"}=7405568' \
	'buffers_created_total{cgroup="/",driver="i915"}=8' 'buffer_created_bytes_total{cgroup="/",driver="i915"}=2490368' \
	'buffers_created_total{cgroup="/",driver="xe"}=3' 'buffer_created_bytes_total{cgroup="/",driver="xe"}=6291456' \
	'buffer_moved_bytes_total{driver="amdgpu"}=4259840' 'buffer_moved_bytes_total{driver="xe"}=2097152'; do
	expect_eq "serve: xputrace_gpu_${kv%=*}" "${kv##*=}" "$(m "xputrace_gpu_${kv%=*} ")"
done
expect_eq "serve: drops" 0 "$(m 'xputrace_drops_total{cause="ringbuf"}')"
rmmod memdouble || bad "rmmod memdouble"
finish
