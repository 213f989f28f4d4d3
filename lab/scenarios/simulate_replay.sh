# xputrace simulate against reality: a recording of the mock GPU on the real
# drm_sched, with queueing (two processes keep one ring over-full), replayed
# under the policy the kernel's scheduler ran (gpu_sched's sched_policy: rr
# or fifo) with the queue depth and reaction time the recording shows, must
# give the recorded response times (done - queued): medians within 10 %
# (the replay reuses the recording's reactions in order, so under the
# kernel's own policy it gives the recorded times exactly, a CPU hog's
# stalls included; a mean reaction came out 13 % short under one).
need_xputrace
load mockgpu || finish
F=/tmp/replay.xpt
pol=$(cat /sys/module/gpu_sched/parameters/sched_policy 2>/dev/null)
# drm_sched_policy: 0 round robin among entities, 1 FIFO by submission time
# (include/drm/gpu_scheduler.h); a kernel without the parameter (6.1) has
# round robin
case "$pol" in 0 | "") want=rr ;; 1) want=fifo ;; *) want= ;; esac
say "gpu_sched sched_policy: ${pol:-(none)}, replayed as: ${want:-unknown}"
[ -n "$want" ] || { skip_test "gpu_sched policy $pol is neither round robin nor FIFO"; }

start_xp /tmp/rec.out record -o $F sched || finish
# each process: 12 passes, 5 ms apart, of 3 jobs of 2 ms on ring 0: twice
# the ring's capacity, so jobs wait behind the other process's
mocksubmit -q -n 12 -i 5 'ring=0 dur_us=2000 count=3' & PA=$!
mocksubmit -q -n 12 -i 5 'ring=0 dur_us=2000 count=3' & PB=$!
wait $PA; ra=$?
wait $PB; rb=$?
mocksubmit -s -q 'ring=0 dur_us=100'	# the last jobs done before the recording ends
sleep 0.2
stop_xp; rr=$?
expect_eq "submitters' and recorder's status" "0 0 0" "$ra $rb $rr"
xputrace simulate $F --policy $want --json >/tmp/sim.json 2>/tmp/sim.err
expect_eq "simulate exit status" 0 $?
cat /tmp/sim.err
s() { jget /tmp/sim.json "$1"; }
say "ring depth $(s rings[0].depth), reaction time $(s overhead_ns) ns, jobs $(s jobs), left out $(s left_out)"
rec=$(s results[policy=recorded].all.p50_ns) sim=$(s results[policy=$want].all.p50_ns)
say "response time p50: recorded $rec ns, $want $sim ns; p99: recorded $(s results[policy=recorded].all.p99_ns), $want $(s results[policy=$want].all.p99_ns)"
check "jobs replayed: the 73 submitted" [ "$(s jobs)" -eq 73 ]
check "they waited: the recorded median response ($rec ns) is over twice a job's 2 ms" [ "$rec" -gt 4000000 ]
within() { awk -v a=$1 -v b=$2 -v p=$3 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(b > 0 && d * 100 <= p * b) }'; }
check "$want replay: median response $sim ns within 10 % of the recorded $rec ns" within "$sim" "$rec" 10
for P in $PA $PB; do
	t="results[policy=recorded].tasks[name=mocksubmit/$P].p50_ns"
	check "process $P: $want median response within 10 % of the recorded" \
		within "$(s results[policy=$want].tasks[name=mocksubmit/$P].p50_ns)" "$(s $t)" 10
done
finish
