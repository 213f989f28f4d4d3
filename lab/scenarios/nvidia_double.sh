# The nvidia test double (lab/modules/nvidia_double, loaded as "nvidia"):
# kprobes on the function names NVIDIA tools attach to fire on real kernel
# paths (syscalls, page faults, hardirq, kthread) exactly as often as the
# module counted; xputrace ioctl names NVIDIA escapes on /dev/nvidia*.
load nvidia || finish
mknod /dev/nvidiactl c 195 255; mknod /dev/nvidia0 c 195 0
K=$T/kprobe_events
FUNCS="nvidia_open nvidia_close nvidia_unlocked_ioctl nvidia_ioctl nvidia_mmap nvidia_fault nvidia_isr nvidia_isr_msix nvidia_isr_kthread_bh nvidia_p2p_get_pages nvidia_p2p_put_pages nvidia_suspend nvidia_resume"
group kprobes
for f in $FUNCS; do
	echo "p:nvk/$f nvidia:$f" >>$K || bad "kprobe on nvidia:$f"
done
trace_on nvk
nvclient alloc=2 control=3 pages=4 >$S/nv.txt; rc=$?
echo "irq 5" >/sys/kernel/debug/nvidia_double/trigger
echo "p2p 2" >/sys/kernel/debug/nvidia_double/trigger
echo suspend >/sys/kernel/debug/nvidia_double/trigger
# let the last interrupts' bottom halves run
i=0; while [ $i -lt 50 ]; do
	[ "$(awk '$1=="nvidia_isr_kthread_bh" {print $2}' /sys/kernel/debug/nvidia_double/counts)" = 10 ] && break
	sleep 0.1; i=$((i + 1))
done
trace_off
expect_eq "nvclient status" 0 $rc
cat $S/nv.txt
C=/sys/kernel/debug/nvidia_double/counts
cat $C
# expected calls: 2 opens, 7 ioctls (2 alloc + 2 free + 3 control) + card info,
# 4 faults, 5 interrupts from ioctls + 5 triggered, 2 p2p, 1 suspend/resume
for e in "nvidia_open 2" "nvidia_close 2" "nvidia_unlocked_ioctl 8" "nvidia_ioctl 8" \
	"nvidia_mmap 1" "nvidia_fault 4" "nvidia_isr_msix 10" "nvidia_isr 10" \
	"nvidia_isr_kthread_bh 10" "nvidia_p2p_get_pages 2" "nvidia_p2p_put_pages 2" \
	"nvidia_suspend 1" "nvidia_resume 1"; do
	set -- $e
	expect_eq "$1: module's count" $2 "$(awk -v f=$1 '$1==f {print $2}' $C)"
	h=$(trace_count $1) m=$(kprobe_missed $1)
	[ "${m:-0}" -eq 0 ] || say "$1: $m hit(s) missed by the kernel (kprobe in a kprobe handler)"
	expect_eq "$1: kprobe hits + misses" $2 $((h + ${m:-0}))
done
expect_eq "open from the client's context" 2 "$(grep ' nvidia_open: ' $S/trace.txt | grep -c 'nvclient-')"
expect_eq "faults from the client's context" 4 "$(grep ' nvidia_fault: ' $S/trace.txt | grep -c 'nvclient-')"
# the ISR runs in hardirq context (an 'h' in the trace flags), the bottom half in the nv_queue kthread
expect_eq "every nvidia_isr hit in hardirq" "$(trace_count nvidia_isr)" "$(grep ' nvidia_isr: ' $S/trace.txt | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) { print $(i+1); break } }' | grep -c '^..[hH]')"
expect_eq "every bottom half in the kthread" "$(trace_count nvidia_isr_kthread_bh)" "$(grep ' nvidia_isr_kthread_bh: ' $S/trace.txt | grep -c 'nv_queue')"
grep -m4 -e ' nvidia_isr: ' -e 'nvidia_isr_kthread_bh: ' -e ' nvidia_open: ' $S/trace.txt
echo >$K

group ioctl
if ! command -v xputrace >/dev/null; then
	echo "SKIP: no xputrace binary"
else
	xputrace ioctl --json -d 300 >$S/xp.out 2>$S/xp.err &
	XP=$!
	i=0; while ! grep -q Tracing $S/xp.err && [ $i -lt 900 ]; do sleep 0.1; i=$((i + 1)); done
	nvclient alloc=2 control=3 pages=1 >/dev/null & P=$!; wait $P
	kill -INT $XP; wait $XP
	J=$S/xp.out
	cat $J; echo
	expect_eq "processes" 1 "$(jget -n $J processes)"
	expect_eq "pid" $P "$(jget $J processes[0].pid)"
	for e in "NV_ESC_RM_ALLOC 2" "NV_ESC_RM_FREE 2" "NV_ESC_RM_CONTROL 3" "NV_ESC_CARD_INFO 1"; do
		set -- $e
		expect_eq "$1 calls" $2 "$(jget $J "processes[0].ioctls[name=$1].calls")"
	done
	expect_eq "device of NV_ESC_CARD_INFO" /dev/nvidia0 "$(jget $J "processes[0].ioctls[name=NV_ESC_CARD_INFO].device")"
	expect_eq "device of NV_ESC_RM_ALLOC" /dev/nvidiactl "$(jget $J "processes[0].ioctls[name=NV_ESC_RM_ALLOC].device")"
fi
finish
