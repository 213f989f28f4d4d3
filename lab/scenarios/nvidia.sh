# xputrace nvidia on the nvidia test double (lab/modules/nvidia_double,
# loaded as "nvidia"): the calls counted per function equal the module's own
# counts, per process they equal what nvclient did, the holders include the
# files opened before tracing began, the latencies are within tolerance of the
# module's own clock (which imposes known delays), and record/report say
# what the live run said. Each hook forced alone: nvidia_hooks.sh.
need_xputrace
C=/sys/kernel/debug/nvidia_double/counts
PS=$(getconf PAGESIZE 2>/dev/null || echo 4096)

group no_module
xputrace nvidia -d 1 >$S/nomod.out 2>$S/nomod.err; rc=$?
expect_eq "exit status without the module" 1 $rc
expect_eq "one line saying so" 1 "$(grep -c 'nvidia module is not loaded' $S/nomod.err)"

load nvidia || finish
mknod /dev/nvidiactl c 195 255; mknod /dev/nvidia0 c 195 0

group live
nvclient alloc=0 control=0 pages=0 hold=3600 >/dev/null & A=$!
i=0; while [ "$(cnt $C nvidia_unlocked_ioctl)" != 1 ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
cp $C $S/before.txt
# kprobes here, as when this group was written: three tracers on one emulated vCPU with
# fentry/fexit time each other's programs (one trampoline runs every tracer's in turn);
# each hook alone, and which one is picked, are checked in nvidia_hooks.sh
export XPUTRACE_NVIDIA_HOOK=kprobe
start_xp $S/live.json nvidia --json || finish
L=$XPID
start_xp $S/rec.out record -o /tmp/nv.xpt nvidia || finish
R=$XPID
start_xp $S/live.txt nvidia --no-hist --on-xid /tmp/fr.xpt --keep 0.5 || finish
T2=$XPID
unset XPUTRACE_NVIDIA_HOOK
nvclient alloc=2 control=3 pages=4 >$S/b.txt & B=$!; wait $B; rb=$?
nvclient alloc=1 control=0 pages=0 hold=3600 >/dev/null & H=$!
i=0; while [ "$(cnt $C nvidia_unlocked_ioctl)" != 12 ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
# 20 interrupts (27 with the clients' 7) and three suspend/resume cycles: one
# host stall inside one call moves each checked mean at most 8 ms / calls
echo "irq 20" >/sys/kernel/debug/nvidia_double/trigger
echo "p2p 2" >/sys/kernel/debug/nvidia_double/trigger
for k in 1 2 3; do echo suspend >/sys/kernel/debug/nvidia_double/trigger; done
# a second apart from what came before: the flight recorder keeps 0.5 s
sleep 1
# an Xid with no ioctl in flight, then one fired inside an NV_ESC_RM_CONTROL of client X
echo "xid 79 GPU has fallen off the bus." >/sys/kernel/debug/nvidia_double/trigger
echo "xid-in-ioctl 13 Graphics Engine Exception" >/sys/kernel/debug/nvidia_double/trigger
nvclient alloc=0 control=1 pages=0 >/dev/null & X=$!; wait $X
i=0; while [ "$(cnt $C nvidia_isr_kthread_bh)" != 27 ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
sleep 0.5
kill -INT $L $R $T2; wait $L; rl=$?; wait $R; rr=$?; wait $T2
cp $C $S/after.txt
kill $A $H; wait $A $H 2>/dev/null
cat $S/after.txt
expect_eq "nvclient status" 0 $rb
expect_eq "live/record exit status" "0 0" "$rl $rr"
J=$S/live.json
cat $J; echo
cat $S/live.txt
cat $S/live.txt.err
l() { jget $J "$1"; }
# a kprobe hit while another of the tool's programs runs on that CPU (an
# interrupt during a call's probe) is skipped by the kernel and counted as a
# drop: every call is either seen or counted lost
lost=0
for f in nvidia_open nvidia_close nvidia_unlocked_ioctl nvidia_mmap nvidia_fault nvidia_isr \
	nvidia_isr_msix nvidia_isr_kthread_bh nvidia_p2p_get_pages nvidia_p2p_put_pages \
	nvidia_suspend nvidia_resume; do
	want=$(($(cnt $S/after.txt $f) - $(cnt $S/before.txt $f)))
	got=$(l "functions[name=$f].calls")
	if [ "$got" = "$want" ]; then ok "$f: calls = the module's count = $want"
	elif [ "$got" -lt "$want" ]; then say "$f: $got of the module's $want calls seen"; lost=$((lost + want - got))
	else bad "$f: $got calls, more than the module's $want"; fi
	expect_eq "$f: probed" true "$(l "functions[name=$f].probed")"
done
expect_eq "calls not seen = drops counted" $lost "$(l drops.total)"
expect_eq "the double lacks nvidia_isr_msix_kthread_bh: not probed" false \
	"$(l functions[name=nvidia_isr_msix_kthread_bh].probed)"
expect_eq "processes" 3 "$(jget -n $J processes)"
for e in "opens 2" "closes 2" "ioctls 8" "ioctl_errors 0" "mmaps 1" "mmap_bytes $((4 * PS))" "faults 4"; do
	set -- $e
	expect_eq "client $B: $1" $2 "$(l "processes[pid=$B].$1")"
done
for e in "opens 2" "closes 0" "ioctls 3" "mmaps 0"; do
	set -- $e
	expect_eq "client $H: $1" $2 "$(l "processes[pid=$H].$1")"
done
expect_eq "holders: two files each of the two clients still open" 4 "$(jget -n $J holders)"
expect_eq "holder $A opened before tracing began" "true $A" "$(l "holders[pid=$A].before_start") $(l "holders[pid=$A].pid")"
expect_eq "holder $H opened while traced" "false $H" "$(l "holders[pid=$H].before_start") $(l "holders[pid=$H].pid")"
for e in "NV_ESC_RM_ALLOC 3" "NV_ESC_RM_FREE 3" "NV_ESC_RM_CONTROL 4" "NV_ESC_CARD_INFO 3"; do
	set -- $e
	expect_eq "$1 calls" $2 "$(l "ioctls[name=$1].calls")"
done
# the Xids: PCI name, code, message; the GPU's holders; the ioctl in flight
expect_eq "xids" 2 "$(jget -n $J xids)"
expect_eq "Xid 79" "0000:01:00.0 79 GPU has fallen off the bus. /dev/nvidia0" \
	"$(l xids[code=79].dev) $(l xids[code=79].code) $(l xids[code=79].msg) $(l xids[code=79].device)"
expect_eq "Xid 79: holders of /dev/nvidia0" 2 "$(jget -n $J xids[code=79].holders)"
expect_eq "Xid 79: holder $A (before tracing) and $H" "$A $H" \
	"$(l "xids[code=79].holders[pid=$A].pid") $(l "xids[code=79].holders[pid=$H].pid")"
expect_eq "Xid 79: no ioctl in flight" 0 "$(jget -n $J xids[code=79].in_flight)"
expect_eq "Xid 13: the ioctl in flight" "1 $X NV_ESC_RM_CONTROL /dev/nvidiactl" \
	"$(jget -n $J xids[code=13].in_flight) $(l xids[code=13].in_flight[0].pid) $(l xids[code=13].in_flight[0].name) $(l xids[code=13].in_flight[0].device)"
expect_eq "Xid 13: in flight for the 2 ms delay, then more" 1 \
	"$(awk -v s=$(l xids[code=13].in_flight[0].since_ns) -v d=$(l xids[code=13].in_flight[0].duration_ns) 'BEGIN { print (s >= 2000000 && d > s) }')"
expect_eq "p2p bytes" $((2 << 20)) "$(l p2p.get_bytes)"
# latencies against the module's clock and the delays it imposes
d() { echo $(($(ns $S/after.txt $1) - $(ns $S/before.txt $1))) $(($(cnt $S/after.txt $1) - $(cnt $S/before.txt $1))); }
within_module "NV_ESC_RM_CONTROL (2 ms imposed)" $(l "ioctls[name=NV_ESC_RM_CONTROL].latency_ns.sum") \
	$(l "ioctls[name=NV_ESC_RM_CONTROL].latency_ns.count") $(d NV_ESC_RM_CONTROL) 2000000
within_module "nvidia_isr (2 ms imposed)" $(l "irqs[irq=42].isr.sum") $(l "irqs[irq=42].isr.count") \
	$(d nvidia_isr) 2000000
within_module "nvidia_isr_msix" $(l "irqs[irq=42].isr_msix.sum") $(l "irqs[irq=42].isr_msix.count") \
	$(d nvidia_isr_msix) 2000000
within_module "nvidia_isr_kthread_bh (2 ms imposed)" $(l "irqs[irq=42].bottom_half.sum") \
	$(l "irqs[irq=42].bottom_half.count") $(d nvidia_isr_kthread_bh) 2000000
within_module "nvidia_suspend (5 ms imposed)" $(l suspend_ns.sum) $(l suspend_ns.count) $(d nvidia_suspend) 5000000
within_module "nvidia_resume (3 ms imposed)" $(l resume_ns.sum) $(l resume_ns.count) $(d nvidia_resume) 3000000

group record_report
xputrace report /tmp/nv.xpt nvidia --json >$S/rep.json 2>$S/rep.err
expect_eq "report exit status" 0 $?
xputrace report /tmp/nv.xpt nvidia
# each tracer misses its own interrupts (counted): report is checked against the module
lost=0
for f in nvidia_isr nvidia_isr_msix nvidia_isr_kthread_bh nvidia_suspend; do
	want=$(($(cnt $S/after.txt $f) - $(cnt $S/before.txt $f)))
	lost=$((lost + want - $(jget $S/rep.json "functions[name=$f].calls")))
done
expect_eq "report: interrupt and power calls not seen = drops counted" $lost "$(jget $S/rep.json drops.total)"
for k in functions[name=nvidia_open].calls functions[name=nvidia_unlocked_ioctl].calls \
	"processes[pid=$B].faults" "processes[pid=$B].mmap_bytes" \
	"ioctls[name=NV_ESC_RM_CONTROL].calls" "irqs[irq=42].bottom_half.count" p2p.put_pages \
	xids[code=13].msg xids[code=13].in_flight[0].pid; do
	expect_eq "report = live: $k" "$(l "$k")" "$(jget $S/rep.json "$k")"
done
# the files open before recording began are in the file: the holders and the Xid joins read back
expect_eq "report: holders, as live" "$(jget -n $J holders)" "$(jget -n $S/rep.json holders)"
expect_eq "report: holder $A opened before recording began" "true $A" \
	"$(jget $S/rep.json "holders[pid=$A].before_start") $(jget $S/rep.json "holders[pid=$A].pid")"
expect_eq "report: Xid 79 on /dev/nvidia0, its holders $A and $H, as live" "/dev/nvidia0 2 $A $H" \
	"$(jget $S/rep.json xids[code=79].device) $(jget -n $S/rep.json xids[code=79].holders) $(jget $S/rep.json "xids[code=79].holders[pid=$A].pid") $(jget $S/rep.json "xids[code=79].holders[pid=$H].pid")"

group flight_recorder
# --on-xid kept the last 0.5 s before the first Xid and the second after it
expect_eq "the tracer said it wrote the file" 1 "$(grep -c 'an Xid came: the last 0.5 s .* written to /tmp/fr.xpt' $S/live.txt.err)"
xputrace report /tmp/fr.xpt nvidia --json >$S/fr.json 2>$S/fr.err
expect_eq "report of the flight file: exit status" 0 $?
xputrace report /tmp/fr.xpt nvidia --no-hist
F=$S/fr.json
expect_eq "both Xids in it" "2 79 13" "$(jget -n $F xids) $(jget $F xids[0].code) $(jget $F xids[1].code)"
expect_eq "the ioctl in flight at Xid 13" "$X NV_ESC_RM_CONTROL" "$(jget $F xids[code=13].in_flight[0].pid) $(jget $F xids[code=13].in_flight[0].name)"
expect_eq "client $X's calls after the Xids, in it" "2 2" "$(jget $F "processes[pid=$X].opens") $(jget $F "processes[pid=$X].ioctls")"
expect_eq "client $B's calls, over a second before: let go" "" "$(jget $F "processes[pid=$B].pid" 2>/dev/null)"
expect_eq "the suspend just before the Xids: let go" 0 "$(jget $F functions[name=nvidia_suspend].calls)"
# what was held when its first record was written: $A (before tracing) and $H (opened while traced, before the window)
expect_eq "the files held at its start: $A's and $H's, as of before it" "true true" \
	"$(jget $F "holders[pid=$A].before_start") $(jget $F "holders[pid=$H].before_start")"
expect_eq "Xid 79 on /dev/nvidia0: its holders $A and $H, as live" "/dev/nvidia0 2 $A $H" \
	"$(jget $F xids[code=79].device) $(jget -n $F xids[code=79].holders) $(jget $F "xids[code=79].holders[pid=$A].pid") $(jget $F "xids[code=79].holders[pid=$H].pid")"
xputrace export --perfetto /tmp/fr.xpt --format json -o $S/fr.trace.json
expect_eq "export of the flight file: exit status and the Xid instants" "0 2" "$? $(grep -o '"name":"Xid [0-9]*"' $S/fr.trace.json | wc -l)"

group export
xputrace export --perfetto /tmp/nv.xpt --format json -o $S/nv.trace.json
expect_eq "export exit status" 0 $?
# the JSON writer puts no spaces between tokens
expect_eq "the Xid fired in the ioctl: an instant" 1 "$(grep -o '"name":"Xid 13"' $S/nv.trace.json | wc -l)"
expect_eq "NV_ESC_RM_CONTROL slices, as report counted" "$(jget $S/rep.json ioctls[name=NV_ESC_RM_CONTROL].calls)" "$(grep -o '"name":"NV_ESC_RM_CONTROL"' $S/nv.trace.json | wc -l)"
expect_eq "the files held before recording began: an instant each" 2 "$(grep -o '"name":"holds /dev/nvidia[a-z0-9]* (opened before the trace)"' $S/nv.trace.json | wc -l)"
expect_eq "bottom halves, as report counted" "$(jget $S/rep.json irqs[irq=42].bottom_half.count)" "$(grep -o '"name":"nvidia_isr_kthread_bh"' $S/nv.trace.json | wc -l)"
group sample
# --sample 10 beside --sample 1, on one client's known calls: every call timed by the one; the
# first and every 10th of each escape timed by the other, and every call counted in the kernel
start_xp $S/s1.json nvidia --json --no-hist --sample 1 || finish
S1=$XPID
start_xp $S/s10.json nvidia --json --no-hist --sample 10 || finish
S10=$XPID
start_xp $S/s10.txt nvidia --no-hist --sample 10 || finish
S10T=$XPID
nvclient alloc=25 control=0 pages=0 >/dev/null & Q=$!; wait $Q
sleep 0.3
kill -INT $S1 $S10 $S10T; wait $S1; r1=$?; wait $S10; r10=$?; wait $S10T
echo "# xputrace nvidia --no-hist --sample 10"
cat $S/s10.txt.err $S/s10.txt
expect_eq "exit status" "0 0" "$r1 $r10"
for e in "NV_ESC_RM_ALLOC 25" "NV_ESC_RM_FREE 25" "NV_ESC_CARD_INFO 1"; do
	set -- $e
	expect_eq "--sample 1: $1 timed, every call" $2 "$(jget $S/s1.json "ioctls[name=$1].calls")"
	expect_eq "--sample 10: $1 timed (the 1st, 11th, 21st), seen" "$((($2 + 9) / 10)) $2" \
		"$(jget $S/s10.json "ioctls[name=$1].calls") $(jget $S/s10.json "ioctls[name=$1].seen")"
done
expect_eq "--sample 1: no rate, no seen count" "" "$(jget $S/s1.json ioctl_sample 2>/dev/null)"
expect_eq "--sample 10: the rate and all seen" "10 51" "$(jget $S/s10.json ioctl_sample) $(jget $S/s10.json ioctl_seen)"
expect_eq "--sample 10: client $Q's ioctls are the timed ones" 7 "$(jget $S/s10.json "processes[pid=$Q].ioctls")"
expect_eq "--sample 10: the text says the rate and what was seen" 1 \
	"$(grep -c '^note: --sample 10: 1 in 10 ioctls of each escape timed .*51 ioctls seen' $S/s10.txt)"
expect_eq "--sample 10: text: NV_ESC_RM_ALLOC seen 25, timed 3" 1 "$(grep -c '^NV_ESC_RM_ALLOC *25 *3 ' $S/s10.txt)"

group xid_only
# without kprobes (forced here) only the Xid tracepoint: holders read from /proc at the Xid
nvclient alloc=0 control=0 pages=0 hold=3600 >/dev/null & Y=$!
i=0; while [ "$(ls -l /proc/$Y/fd 2>/dev/null | grep -c nvidia)" != 2 ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
export XPUTRACE_NVIDIA_HOOK=tracepoint
start_xp $S/xo.json nvidia --json || finish
unset XPUTRACE_NVIDIA_HOOK
echo "xid 31 MMU Fault" >/sys/kernel/debug/nvidia_double/trigger
sleep 0.3
stop_xp; rx=$?
kill $Y; wait $Y 2>/dev/null
cat $S/xo.json.err; cat $S/xo.json; echo
expect_eq "exit status" 0 $rx
expect_eq "it said what it traces" 1 "$(grep -c '^Tracing nvidia Xids (tracepoint; no kprobes' $S/xo.json.err)"
expect_eq "kprobes, hook" "false tracepoint" "$(jget $S/xo.json kprobes) $(jget $S/xo.json hook)"
expect_eq "the Xid" "1 31 MMU Fault 0000:01:00.0" "$(jget -n $S/xo.json xids) $(jget $S/xo.json xids[0].code) $(jget $S/xo.json xids[0].msg) $(jget $S/xo.json xids[0].dev)"
expect_eq "its holder, read from /proc" "1 $Y" "$(jget -n $S/xo.json xids[0].holders) $(jget $S/xo.json xids[0].holders[0].pid)"
expect_eq "no calls seen" "0 0" "$(jget -n $S/xo.json processes) $(jget $S/xo.json functions[name=nvidia_open].calls)"
finish
