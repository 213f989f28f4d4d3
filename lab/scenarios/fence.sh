# xputrace fence against real dma_fences: vgem's (VGEM_FENCE_ATTACH /
# VGEM_FENCE_SIGNAL from vgemfence, several threads, known counts and delays,
# some left unsignaled) and the mock GPU's jobs on the real drm_sched (each
# job a scheduled and a finished fence on its ring's timeline and a hardware
# fence on mock-hw), waited for by mocksubmit's `sync` and `wait=H` in the
# caller's thread. Counts are exact; times are compared with the clients' own
# clocks (vgemfence: attach return -> signal return; mocksubmit -t: the
# waiting write) and the mock GPU's (run_job -> signal), never with the
# delays asked for: under emulation timers and sleeps run late.
need_xputrace
[ -d $T/events/dma_fence ] || skip_test "this kernel has no dma_fence events"
load vgem || finish
load mockgpu || finish
VGEM=$(card_of vgem)
[ -n "$VGEM" ] || { bad "vgem made no /dev/dri/card*"; finish; }
J=/sys/kernel/debug/mockgpu/jobs
TH=4 N=50 LEAVE=3 DELAY=5000

# near_median A B: medians A (xputrace's p50) and B (the client's or the
# module's clock) within 10 % (the probes' and ioctls' own time) plus 1/16
# (the p50 is interpolated in buckets 1/8 of an octave wide)
near_median() { awk -v a=${1:-0} -v b=${2:-0} 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d <= (0.10 + 0.0625) * b) }'; }
# FILE EXPECTED SEEN: a count of events that fire in interrupts (signals): the
# kernel skips a tracepoint program that would run in an interrupt taken while
# another runs on that CPU (one vCPU); from Linux 6.7 it counts these as drops,
# before it counts none, and the summary must say so (kernel_skips_counted)
lost_le_drops() {
	local lost=$(($2 - $3)) d=$(jget $1 drops.total)
	[ $lost -ge 0 ] || return 1
	[ $lost -le "$d" ] && return 0
	grep -q '"kernel_skips_counted":false' $1 && say "$lost lost uncounted, as the summary says this kernel does"
}
# wait until FILE has a line starting with WORD (vgemfence holds its fences after it)
wait_line() { local i=0; while ! grep -q "^$2 " $1 2>/dev/null; do i=$((i + 1)); [ $i -gt 1200 ] && return 1; sleep 0.05; done; }

group vgem
start_xp $S/v.json fence --json || finish
P1=$XPID
start_xp $S/vs.txt fence --stream && P2=$XPID
start_xp $S/rec.out record -o $S/v.xpt fence && P3=$XPID
# TH threads x N fences signaled DELAY us after their attach, LEAVE more each
# left unsignaled while the tracers stop (vgem signals them when the file closes)
vgemfence $VGEM threads=$TH fences=$N delay_us=$DELAY leave=$LEAVE hold_ms=60000 >$S/vf.txt &
PV=$!
wait_line $S/vf.txt total || bad "vgemfence did not finish"
cat $S/vf.txt
kill -INT $P1 $P2 $P3
for p in $P1 $P2 $P3; do wait $p || bad "xputrace (pid $p) exit status $?"; done
kill -USR1 $PV	# the tracers have stopped: vgemfence may close (vgem then signals the left fences)
wait $PV; expect_eq "vgemfence status" 0 $?
v() { jget $S/v.json "$1"; }
ALL=$((TH * (N + LEAVE)))
expect_eq "drops" 0 "$(v drops.total)"
expect_eq "events present" 7 "$(v events_present)"
expect_eq "vgem fences created" $ALL "$(v timelines[driver=vgem].created)"
expect_eq "vgem fences signaled" $((TH * N)) "$(v timelines[driver=vgem].signaled)"
expect_eq "vgem fences never signaled while tracing" $((TH * LEAVE)) "$(v timelines[driver=vgem].unsignaled)"
expect_eq "vgem signals without their init" 0 "$(v timelines[driver=vgem].signaled_init_unseen)"
expect_eq "vgemfence's fences created (task context)" $ALL "$(v processes[pid=$PV].created)"
# attach -> signal: the client's median over TH*N fences against the median of
# init -> signaled (the summary's p50). A median, as guest-lib's
# median_vs_module: a host stall between a fence's event and the client's
# clock read lengthens that fence alone, and on a loaded host the mean of 200
# moved by 21 %. The ioctls' own entry and exit are tens of us under
# emulation, against 5 ms delays.
cnt=$(v timelines[driver=vgem].life_ns.count) mine=$(v timelines[driver=vgem].life_ns.p50)
theirs=$(awk '$1 == "total" { for (i = 2; i < NF; i++) if ($i == "median_ns") print $(i + 1) }' $S/vf.txt)
check "vgem init -> signaled median ${mine} ns within 10% + 1/16 of vgemfence's ${theirs} ns ($cnt fences)" \
	near_median "$mine" "$theirs"
# per thread: each thread's inits in the stream (pid/tid/comm), as vgemfence counted them
for tid in $(awk '$1 == "thread" { print $2 }' $S/vf.txt); do
	expect_eq "stream: thread $tid's fences" $((N + LEAVE)) \
		"$(grep -c " $PV/$tid/vgemfence .* dma_fence_init .*vgem " $S/vs.txt)"
done
expect_eq "stream: vgem signals with their life" $((TH * N)) "$(grep ' dma_fence_signaled .*vgem .* life=' $S/vs.txt | wc -l)"
# record/report says what the live run said; export draws each signaled fence
xputrace report $S/v.xpt fence --json >$S/r.json 2>$S/r.err
expect_eq "report exit status" 0 $?
for k in timelines[driver=vgem].created timelines[driver=vgem].signaled timelines[driver=vgem].unsignaled \
	processes[pid=$PV].created; do
	expect_eq "report = live: $k" "$(v $k)" "$(jget $S/r.json $k)"
done
xputrace report $S/v.xpt fence | head -8
xputrace export --perfetto $S/v.xpt --format json -o $S/v.pf.json 2>/dev/null
expect_eq "export exit status" 0 $?
expect_eq "perfetto: one slice per signaled vgem fence" "$(jget $S/r.json timelines[driver=vgem].signaled)" \
	"$(grep -o '"cat":"fence","name":"fence [0-9:]*"[^}]*"driver":"vgem"' $S/v.pf.json | wc -l)"
check "perfetto: the vgem timeline's track" grep -q '"args":{"name":"vgem unbound"}' $S/v.pf.json

group mockgpu
echo >$J
start_xp $S/m.json fence --json || finish
P1=$XPID
start_xp $S/mc.json fence --json -c vgemfence && P2=$XPID
# A: 20 jobs of 5 ms on ring 0, each waited for by `sync`; B: 10 jobs of 3 ms on
# ring 1, each waited for by `wait=H`; vgemfence beside them for the filter
mocksubmit -s -q -t -n 20 'ring=0 dur_us=5000' >$S/a.txt &
PA=$!
mocksubmit -q -t -n 10 'ring=1 dur_us=3000' 'wait=@1' >$S/b.txt &
PB=$!
vgemfence $VGEM threads=2 fences=10 delay_us=2000 >$S/vf2.txt &
PV=$!
wait $PA; ra=$?
wait $PB; rb=$?
wait $PV; rv=$?
sleep 0.2
kill -INT $P1 $P2
for p in $P1 $P2; do wait $p || bad "xputrace (pid $p) exit status $?"; done
expect_eq "clients' status" "0 0 0" "$ra $rb $rv"
cat $S/a.txt $S/b.txt
m() { jget $S/m.json "$1"; }
say "drops: $(m drops.total) (signals from the timer interrupt the kernel skipped, 6.7+)"
# each job: drm_sched's scheduled and finished fences on its ring, one hardware fence
expect_eq "mock-ring0 fences (2 per job)" 40 "$(m timelines[timeline=mock-ring0].created)"
s0=$(m timelines[timeline=mock-ring0].signaled) sh=$(m timelines[driver=mockgpu].signaled)
check "mock-ring0 signaled $s0 of 40, the rest drops" lost_le_drops $S/m.json 40 "$s0"
expect_eq "mock-ring1 fences (2 per job)" 20 "$(m timelines[timeline=mock-ring1].created)"
expect_eq "mock-hw fences (1 per job)" 30 "$(m timelines[driver=mockgpu].created)"
check "mock-hw signaled $sh of 30, the rest drops" lost_le_drops $S/m.json 30 "$sh"
expect_eq "mock-hw never signaled: those whose signal was dropped" $((30 - sh)) "$(m timelines[driver=mockgpu].unsignaled)"
expect_eq "submitter A's fences (scheduled + finished, in its write)" 40 "$(m processes[pid=$PA].created)"
expect_eq "submitter A's waits" 20 "$(m processes[pid=$PA].waits)"
expect_eq "submitter B's waits" 10 "$(m processes[pid=$PB].waits)"
expect_eq "B's waits in its own thread" 10 "$(m "processes[pid=$PB].threads[tid=$PB].waits")"
expect_eq "waits without their start" 0 "$(m waits.without_start)"
expect_eq "waits on mock-ring0 (finished fences)" 20 "$(m timelines[timeline=mock-ring0].waits)"
expect_eq "waits on mock-ring1" 10 "$(m timelines[timeline=mock-ring1].waits)"
# device time: the hardware fence's init -> signaled against the module's
# run_job -> signal for the same 30 jobs, on medians (a stall lengthens one
# job). The fence is made a few us after run_job's clock read, against 3-5 ms
# jobs.
cnt=$(m timelines[driver=mockgpu].life_ns.count) mine=$(m timelines[driver=mockgpu].life_ns.p50)
theirs=$(awk '!/^#/ && NF > 12 { print $13 }' $J | median)
expect_eq "jobs in the module's log" 30 "$(grep -vc '^#' $J)"
check "mock-hw init -> signaled median ${mine} ns within 10% + 1/16 of the module's run -> signal ${theirs} ns ($cnt jobs)" \
	near_median "$mine" "$theirs"
# waits: wait_start -> wait_end per process against the client's timed writes.
# The kernel's wait lies inside the write the client timed, so its mean is at
# most the client's (exact; 1 % + 50 us for the clocks' reads). The rest of the
# write (entry, and the return after the wake-up, which on one vCPU waits
# behind the three tracers' drains) grows with the host's load: idle the wait
# is 93-96 % of the write, under a CPU hog on every host core 37-67 % was
# seen (the 37 % in the suite's run with a hog beside other guests); below
# 25 % the waits would be mismeasured, not slowed.
inside() { awk -v a=$1 -v b=$2 'BEGIN { exit !(b > 0 && a <= 1.01 * b + 50000 && a >= 0.25 * b) }'; }
for p in A B; do
	eval pid=\$P$p
	f=$S/$(echo $p | tr AB ab).txt
	sum=$(m "processes[pid=$pid].wait_ns.sum") cnt=$(m "processes[pid=$pid].wait_ns.count")
	mine=$((sum / (cnt > 0 ? cnt : 1)))
	theirs=$(awk '$1 == "waits" && $2 > 0 { printf "%d", $4 / $2 }' $f)
	check "submitter $p: wait mean ${mine} ns inside its own clock's ${theirs} ns (ratio $(awk -v a=$mine -v b=$theirs 'BEGIN { printf "%.2f", b ? a / b : 0 }'), $cnt waits)" \
		inside "$mine" "$theirs"
done
say "-c vgemfence: only its fences' creation and no one's waits but its own"
c() { jget $S/mc.json "$1"; }
expect_eq "-c: vgem created" 20 "$(c timelines[driver=vgem].created)"
expect_eq "-c: vgem signaled" 20 "$(c timelines[driver=vgem].signaled)"
expect_eq "-c: mock-ring0 created (another process's)" 0 "$(c timelines[timeline=mock-ring0].created)"
expect_eq "-c: mock-hw created (a scheduler worker's)" 0 "$(c timelines[driver=mockgpu].created)"
check "-c: mock-hw signals counted apart, the rest drops" lost_le_drops $S/mc.json 30 "$(c timelines[driver=mockgpu].signaled_init_unseen)"
expect_eq "-c: waits" 0 "$(c waits.count)"
expect_eq "-c: process filter said" true "$(c process_filter)"
expect_eq "-c: vgemfence's fences" 20 "$(c processes[pid=$PV].created)"
expect_eq "-c: no submitter" "" "$(c processes[pid=$PA].pid)"
finish
