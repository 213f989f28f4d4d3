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
# the interrupts' 27 calls here; the delays on medians of 11 calls, one
# tracer alone: group timing
# the imposed delays on medians of 11 calls each, with the hook xputrace picks
nv_timing "" $S/tm.json

group xid_only
# without kprobes (forced here) only the Xid tracepoint: holders read from /proc at the Xid
nvclient alloc=0 control=0 pages=0 hold=3600 >/dev/null & Y=$!
i=0; while [ "$(ls -l /proc/$Y/fd 2>/dev/null | grep -c nvidia)" != 2 ] && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
# serve beside it, by itself: the Xid tracepoint alone, for its Xid metrics
ip link set lo up 2>/dev/null || ifconfig lo 127.0.0.1 up
start_xp $S/sv.out serve --listen 127.0.0.1:9466 || finish
PS=$XPID
export XPUTRACE_NVIDIA_HOOK=tracepoint
start_xp $S/xo.json nvidia --json || finish
unset XPUTRACE_NVIDIA_HOOK
echo "xid 31 MMU Fault" >/sys/kernel/debug/nvidia_double/trigger
sleep 0.6	# a record reaches serve within its 0.5 s tick
stop_xp; rx=$?
wget -q -O $S/sv.txt http://127.0.0.1:9466/metrics; rw=$?
kill -INT $PS; wait $PS; rs=$?
cat $S/sv.out.err
grep '^xputrace_nvidia' $S/sv.txt
expect_eq "serve and wget status" "0 0" "$rs $rw"
check "serve picked nvidia, on its Xid tracepoint alone" grep -q '^Tracing .*nvidia (tracepoint)' $S/sv.out.err
expect_eq "serve: the Xid by GPU and code" 1 \
	"$(awk 'index($0, "xputrace_nvidia_xids_total{device=\"0000:01:00.0\",code=\"31\"} ") == 1 { print $2 }' $S/sv.txt)"
kill $Y; wait $Y 2>/dev/null
cat $S/xo.json.err; cat $S/xo.json; echo
expect_eq "exit status" 0 $rx
expect_eq "it said what it traces" 1 "$(grep -c '^Tracing nvidia Xids (tracepoint; no kprobes' $S/xo.json.err)"
expect_eq "kprobes, hook" "false tracepoint" "$(jget $S/xo.json kprobes) $(jget $S/xo.json hook)"
expect_eq "the Xid" "1 31 MMU Fault 0000:01:00.0" "$(jget -n $S/xo.json xids) $(jget $S/xo.json xids[0].code) $(jget $S/xo.json xids[0].msg) $(jget $S/xo.json xids[0].dev)"
expect_eq "its holder, read from /proc" "1 $Y" "$(jget -n $S/xo.json xids[0].holders) $(jget $S/xo.json xids[0].holders[0].pid)"
expect_eq "no calls seen" "0 0" "$(jget -n $S/xo.json processes) $(jget $S/xo.json functions[name=nvidia_open].calls)"
finish
