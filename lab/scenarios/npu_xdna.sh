# xputrace npu on AMD's NPU driver, amdxdna (7.2 and later). Its jobs come
# from its amdxdna:xdna_job tracepoint, joined by scheduler fence with the
# gpu_scheduler's queue and done events; no kprobes needed. With Debian's
# real amdxdna.ko (it loads without an NPU): the verb runs, names the
# driver, and has no job to show. With the test double (lab/modules/mockgpu
# built as amdxdna: the real drm_sched, an xdna_job event of the real
# layout at the real driver's four points), two processes submit at once:
# the jobs per hardware context and their submitter are exact, the times
# within 10 % of the double's own clock. On 6.1 (no accel drivers) the verb
# says in one line that no NPU driver is loaded.
# lab-modules: amdxdna
need_xputrace
KREL=$(uname -r)
REAL=$(find /lib/modules/$KREL/kernel -name 'amdxdna.ko' 2>/dev/null | head -1)
DOUBLE=/lib/modules/$KREL/extra/amdxdna.ko
D=/sys/kernel/debug/xdnamock
fields() { grep 'field:' $T/events/amdxdna/xdna_job/format | grep -v 'common_'; }

if [ -z "$REAL" ]; then
	group no_driver
	xputrace npu -d 1 >$S/o.txt 2>$S/e.txt; rc=$?
	cat $S/e.txt
	expect_eq "no NPU driver: exit 1, one line that says so" "1 1 1" \
		"$rc $(wc -l <$S/e.txt) $(grep -c 'no NPU driver is loaded: neither intel_vpu (Intel NPU) nor amdxdna (AMD NPU)' $S/e.txt)"
	say "this kernel has no amdxdna"
	finish
fi

group real_module
for d in $(modinfo "$REAL" | sed -n 's/^depends: *//p' | tr ',' ' '); do modprobe $d || bad "modprobe $d"; done
if insmod "$REAL"; then
	fields >$S/real.fmt
	cat $S/real.fmt
	xputrace doctor >$S/doctor.txt 2>&1
	expect_eq "doctor: npu runs, on amdxdna's tracepoint joined with gpu_scheduler's" 1 \
		"$(grep -c "^  npu .*yes .*amdxdna: its xdna_job tracepoint joined with gpu_scheduler's" $S/doctor.txt)"
	xputrace npu -j -d 1 >$S/real.json 2>$S/real.err
	expect_eq "npu on the real amdxdna: exit status" 0 $?
	cat $S/real.err
	expect_eq "it says what it traces" 1 "$(grep -c '^Tracing .*amdxdna jobs (xdna_job joined with gpu_scheduler' $S/real.err)"
	expect_eq "drivers: amdxdna traced and joined, intel_vpu not" "true true false" \
		"$(jget $S/real.json drivers.amdxdna) $(jget $S/real.json drivers.amdxdna_joined) $(jget $S/real.json drivers.intel_vpu)"
	expect_eq "no NPU here: no hardware context" 0 "$(jget -n $S/real.json amdxdna.contexts)"
	rmmod amdxdna || bad "rmmod the real amdxdna"
else
	bad "insmod $REAL"
fi

[ -f "$DOUBLE" ] || { bad "no test double at $DOUBLE"; finish; }
group double
insmod $DOUBLE || { bad "insmod $DOUBLE"; finish; }
fields >$S/double.fmt
if [ -f $S/real.fmt ]; then
	if cmp -s $S/real.fmt $S/double.fmt; then ok "amdxdna:xdna_job: the double's fields are the real module's"
	else bad "amdxdna:xdna_job: fields differ from the real module's: $(diff $S/real.fmt $S/double.fmt | tr '\n' ' ')"; fi
fi
echo >$D/jobs
start_xp $S/d.json npu -j || finish
P=$XPID
cp /lab/bin/mocksubmit $S/xdnaapp
MOCKGPU_DEV=/dev/xdnamock $S/xdnaapp -s -q 'ring=0 dur_us=2000 count=20' 'ring=1 dur_us=6000 count=5' &
A=$!
MOCKGPU_DEV=/dev/xdnamock $S/xdnaapp -s -q 'ring=0 dur_us=3000 count=12' &
B=$!
wait $A; ra=$?
wait $B; rb=$?
sleep 1	# the scheduler frees finished jobs from its worker, a little later
stop_xp; rx=$?
expect_eq "submitters' status" "0 0" "$ra $rb"
expect_eq "tracer's exit status" 0 $rx
cat $S/d.json.err
J=$S/d.json
l() { jget $J "$1"; }
expect_eq "drops" 0 "$(l drops.total)"
awk '!/^#/ && NF >= 16' $D/jobs >$S/jobs.txt
expect_eq "the double finished every job" 37 "$(wc -l <$S/jobs.txt)"
expect_eq "hardware contexts: one per submitter" 2 "$(jget -n $J amdxdna.contexts)"
for pid in $A $B; do
	ctx=$(awk -v p=$pid '$4 == p { print $16; exit }' $S/jobs.txt)
	n=$(awk -v p=$pid '$4 == p' $S/jobs.txt | wc -l)
	c="amdxdna.contexts[pid=$pid]"	# (the name has dots, which a jget path cannot hold)
	say "$ctx: $n jobs by the double's log"
	expect_eq "$ctx: its submitter" "$ctx xdnaapp" "$(l $c.hwctx) $(l $c.comm)"
	for k in queued run sent signaled done freed; do
		expect_eq "$ctx: $k = the double's jobs" $n "$(l $c.$k)"
	done
	expect_eq "$ctx: other events" 0 "$(l $c.other_events)"
	# queued -> signaled: the double's push -> signal; in the driver and on
	# the device together: its run_job -> signal
	within_module "$ctx: queued -> signaled" "$(l $c.queued_to_signaled_ns.sum)" \
		"$(l $c.queued_to_signaled_ns.count)" \
		"$(awk -v p=$pid '$4 == p { s += $12 - $9 } END { print s }' $S/jobs.txt)" $n 0
	within_module "$ctx: run -> signaled" "$(($(l $c.in_driver_ns.sum) + $(l $c.on_device_ns.sum)))" \
		"$(l $c.on_device_ns.count)" "$(awk -v p=$pid '$4 == p { s += $13 } END { print s }' $S/jobs.txt)" $n 0
	check "$ctx: waited in the scheduler (jobs queued behind others)" [ "$(l $c.in_scheduler_ns.sum)" -gt 0 ]
done

group filter
# -c: only the jobs that process queued, every event of them
cp /lab/bin/mocksubmit $S/xdnaother
start_xp $S/f.json npu -j -c xdnaapp || finish
MOCKGPU_DEV=/dev/xdnamock $S/xdnaother -s -q 'ring=0 dur_us=1000 count=7' &
O=$!
MOCKGPU_DEV=/dev/xdnamock $S/xdnaapp -s -q 'ring=0 dur_us=1000 count=5' &
A=$!
wait $O; wait $A
sleep 1
stop_xp
expect_eq "filter: exit status" 0 $?
expect_eq "filter: one hardware context, the named process's" "1 xdnaapp $A" \
	"$(jget -n $S/f.json amdxdna.contexts) $(jget $S/f.json amdxdna.contexts[0].comm) $(jget $S/f.json amdxdna.contexts[0].pid)"
expect_eq "filter: its five jobs, at every stage" "5 5 5 5 5" \
	"$(jget $S/f.json amdxdna.contexts[0].queued) $(jget $S/f.json amdxdna.contexts[0].run) $(jget $S/f.json amdxdna.contexts[0].signaled) $(jget $S/f.json amdxdna.contexts[0].done) $(jget $S/f.json amdxdna.contexts[0].freed)"

group stream
# --stream: one line per event, the four driver events and the scheduler's two per job
start_xp $S/s.txt npu --stream || finish
MOCKGPU_DEV=/dev/xdnamock $S/xdnaapp -s -q 'ring=0 dur_us=1000 count=3'
sleep 1
stop_xp
expect_eq "stream: exit status" 0 $?
cat $S/s.txt
for e in "job run" "sent to device" "signaling fence" "job free"; do
	expect_eq "stream: '$e' lines" 3 "$(grep -c " xdna .*$e " $S/s.txt)"
done
expect_eq "stream: queue lines from the submitter" 3 "$(grep -c 'xdnaapp\[[0-9]*\] *queue  *amdxdna_js' $S/s.txt)"
expect_eq "stream: done lines" 3 "$(grep -c ' done  *drm_sched_job_done' $S/s.txt)"
group record_report
# a file reports what the live run saw; the export draws each job on the device
start_xp $S/rec.out record -o /tmp/x.xpt npu || finish
MOCKGPU_DEV=/dev/xdnamock $S/xdnaapp -s -q 'ring=0 dur_us=1000 count=4' 'ring=1 dur_us=2000 count=2'
sleep 1
stop_xp
expect_eq "record: exit status" 0 $?
xputrace report /tmp/x.xpt npu --json >$S/rep.json 2>$S/rep.err
expect_eq "report: exit status" 0 $?
cat $S/rep.err
R=$S/rep.json
expect_eq "report: one hardware context" 1 "$(jget -n $R amdxdna.contexts)"
expect_eq "report: its jobs at every stage, joined with their submitter" "6 6 6 6 6 xdnaapp" \
	"$(jget $R amdxdna.contexts[0].queued) $(jget $R amdxdna.contexts[0].run) $(jget $R amdxdna.contexts[0].signaled) $(jget $R amdxdna.contexts[0].done) $(jget $R amdxdna.contexts[0].freed) $(jget $R amdxdna.contexts[0].comm)"
expect_eq "report: six times on the device" 6 "$(jget $R amdxdna.contexts[0].on_device_ns.count)"
xputrace export --perfetto /tmp/x.xpt --format json -o $S/x.pf.json 2>$S/pf.err
expect_eq "export: exit status" 0 $?
expect_eq "Perfetto: six 'on device' spans, begun and ended" "12 6 6" \
	"$(grep -o '"name":"on device"' $S/x.pf.json | wc -l) $(grep -o '"ph":"b"' $S/x.pf.json | wc -l) $(grep -o '"ph":"e"' $S/x.pf.json | wc -l)"
rmmod amdxdna || bad "rmmod the double"
finish
