# xputrace doctor in a real kernel with DRM: after loading the mock GPU (the
# real gpu-sched and drm modules), vkms and vgem, it must report the DRM
# event groups, kprobes and module BTF as available, and the DRM nodes with
# their drivers.
need_xputrace
load mockgpu; load vgem; load vkms
say "modules: $(lsmod | awk 'NR>1 {print $1}' | tr '\n' ' ')"
xputrace doctor --json >$S/doctor.json 2>$S/doctor.err
expect_eq "doctor --json exit status" 0 $?
j() { jget $S/doctor.json "$1"; }
# what the kernel itself says, to compare with
ngs=$(ls -d $T/events/gpu_scheduler/*/ | wc -l)
ndrm=$(ls -d $T/events/drm/*/ | wc -l)
nbtf=$(ls /sys/kernel/btf | grep -vc '^vmlinux$')
expect_eq "kernel.release" "$(uname -r)" "$(j kernel.release)"
expect_eq "event_groups.gpu_scheduler (tracefs has $ngs)" "$ngs" "$(j event_groups.gpu_scheduler)"
check "gpu_scheduler has the events of this generation" [ "$ngs" -ge 4 ]
expect_eq "event_groups.drm (vblank events)" 3 "$(j event_groups.drm)"
expect_eq "attach.kprobe.ok" true "$(j attach.kprobe.ok)"
expect_eq "attach.tp_btf.ok" true "$(j attach.tp_btf.ok)"
expect_eq "attach.tracepoint.ok" true "$(j attach.tracepoint.ok)"
expect_eq "btf.vmlinux" true "$(j btf.vmlinux)"
expect_eq "btf.modules (kernel has $nbtf)" "$nbtf" "$(j btf.modules)"
check "module BTF present for gpu_sched" test -e /sys/kernel/btf/gpu_sched
expect_eq "tracefs.available" true "$(j tracefs.available)"
expect_eq "capabilities.sched.available" true "$(j capabilities.sched.available)"
expect_eq "capabilities.vblank.available" true "$(j capabilities.vblank.available)"
expect_eq "capabilities.ioctl.available" true "$(j capabilities.ioctl.available)"
for m in drm gpu_sched vgem vkms; do
	check "modules lists $m" grep -q "\"$m\"" $S/doctor.json
done
group nodes
# nodes: every DRM node in /dev/dri, named by its real DRM driver
expect_eq "number of DRM nodes" "$(ls /dev/dri | wc -l)" "$(jget -n $S/doctor.json nodes)"
for n in /dev/dri/*; do
	drv=$(jget $S/doctor.json "nodes[path=$n].driver")
	check "node $n has a DRM driver name ($drv)" [ "$drv" = vgem -o "$drv" = vkms ]
done
group text
xputrace doctor >$S/doctor.txt 2>&1
expect_eq "doctor exit status" 0 $?
check "text names the gpu_scheduler group" grep -q '^  gpu_scheduler  *[0-9]' $S/doctor.txt
check "text says sched is available" grep -q '^  sched  *yes' $S/doctor.txt
check "text says kprobe attaches" grep -q '^  kprobe  *yes' $S/doctor.txt
cat $S/doctor.txt
cat $S/doctor.err
finish
