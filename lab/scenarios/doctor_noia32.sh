# A kernel booted with ia32_emulation=0 (the switch exists from 6.7; some
# distributions turn it off by default) runs no 32-bit programs: doctor must
# say so, and ioctl must neither scan for 32-bit programs nor pass over the
# classic syscall events for them. On the old kernel the parameter is unknown
# and 32-bit programs still run: SKIP with that reason.
# lab-append: ia32_emulation=0
need_xputrace
load vgem
[ -x /lab/bin/drmioctl32 ] || skip_test "no 32-bit guest program (gcc-multilib missing on the host)"
if drmioctl32 /dev/dri/card0 version=1 >$S/run32.out 2>&1; then
	skip_test "$(uname -r) runs 32-bit programs with ia32_emulation=0 (the switch came in 6.7)"
fi
group doctor
# busybox sh runs a file the kernel refused (ENOEXEC) as a script: the
# program's own output is missing either way
check "the kernel refuses the 32-bit program: $(head -c 60 $S/run32.out | tr -cd '[:print:]')" \
	sh -c "! grep -q '^issued' $S/run32.out"
xputrace doctor --json >$S/doctor.json 2>$S/doctor.err
expect_eq "doctor --json exit status" 0 $?
expect_eq "runs_32bit.ok" false "$(jget $S/doctor.json runs_32bit.ok)"
xputrace doctor >$S/doctor.txt 2>&1
check "doctor names the refusal" grep -q '^32-bit progs   the kernel refuses to run 32-bit programs' $S/doctor.txt
check "ioctl's line does not speak of 32-bit programs running" sh -c "! grep '^  ioctl ' $S/doctor.txt | grep -q 'while a 32-bit program runs'"
group ioctl
# the classic events, asked for by name: no 32-bit note, and calls counted
start_xp $S/tp.json ioctl --hook tracepoint --json || finish
drmioctl /dev/dri/card0 version=50 >$S/drm.out & D=$!
wait $D
stop_xp
expect_eq "ioctl --hook tracepoint exit status" 0 $?
check "Tracing line has no 32-bit note" grep -q '^Tracing GPU ioctls (tracepoint)' $S/tp.json.err
say "$(head -1 $S/tp.json.err)"
expect_eq "DRM_IOCTL_VERSION calls of pid $D" 50 "$(jget $S/tp.json "processes[pid=$D].ioctls[name=DRM_IOCTL_VERSION].calls")"
finish
