# The Intel NPU test double (lab/modules/ivpu_double, loaded as intel_vpu):
# module-qualified kprobes and a kretprobe on the seed's ivpu_* functions
# fire exactly as often as the module counted, in the caller's context for
# the ioctls and in hardirq context for the IPC interrupt.
load intel_vpu || finish
K=$T/kprobe_events
D=/sys/kernel/debug/intel_vpu_double
C=$D/counts
FUNCS=$(awk '{print $1}' $C)
group kprobes
for f in $FUNCS; do
	echo "p:ivk/$f intel_vpu:$f" >>$K || bad "kprobe on intel_vpu:$f"
done
echo 'r:ivk/bo_create_ret intel_vpu:ivpu_bo_create_ioctl ret=$retval' >>$K || bad "kretprobe"
trace_on ivk
# a client: open, firmware boot, 3 buffers of 64 KiB, 4 submissions, 2 queries, close
cp /lab/bin/writeto $S/npuapp
$S/npuapp $D/trigger open boot 'bo_create 3 64' 'submit 4' 'get_param 2' close
rc=$?
i=0; while [ $i -lt 50 ]; do
	[ "$(awk '$1=="ivpu_ipc_receive" {print $2}' $C)" = 5 ] && break
	sleep 0.1; i=$((i + 1))
done
trace_off
expect_eq "client status" 0 $rc
cat $C
for e in "ivpu_open 1" "ivpu_mmu_context_init 1" "ivpu_boot 1" "ivpu_fw_boot_params_setup 1" \
	"ivpu_hw_boot_fw 1" "ivpu_bo_create_ioctl 3" "ivpu_gem_create_object 3" "ivpu_bo_pin 3" \
	"ivpu_mmu_context_map_page 48" "ivpu_submit_ioctl 4" "ivpu_rpm_get 4" "ivpu_rpm_put 4" \
	"ivpu_ipc_irq_handler 5" "ivpu_hw_ip_ipc_rx_count_get 5" "ivpu_ipc_receive 5" \
	"ivpu_get_param_ioctl 2" "ivpu_postclose 1" "ivpu_ms_cleanup 1" "ivpu_file_priv_put 1" \
	"ivpu_pgtable_free_page 1"; do
	set -- $e
	expect_eq "$1: module's count" $2 "$(awk -v f=$1 '$1==f {print $2}' $C)"
	h=$(trace_count $1) m=$(kprobe_missed $1)
	[ "${m:-0}" -eq 0 ] || say "$1: $m hit(s) missed by the kernel (kprobe in a kprobe handler)"
	expect_eq "$1: kprobe hits + misses" $2 $((h + ${m:-0}))
done
expect_eq "kretprobe on ivpu_bo_create_ioctl" 3 "$(grep -c ' bo_create_ret: .*ret=0x0' $S/trace.txt)"
expect_eq "ioctls from the client (comm npuapp)" 9 "$(grep -E ' ivpu_(bo_create|submit|get_param)_ioctl: ' $S/trace.txt | grep -c 'npuapp-')"
expect_eq "every IPC interrupt hit in hardirq" "$(trace_count ivpu_ipc_irq_handler)" "$(grep ' ivpu_ipc_irq_handler: ' $S/trace.txt | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^\[[0-9]+\]$/) { print $(i+1); break } }' | grep -c '^..[hH]')"
grep -m3 -e 'bo_create_ret' -e 'ivpu_ipc_irq_handler:' $S/trace.txt
echo >$K
finish
