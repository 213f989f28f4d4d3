# lab-cpus: 1 2
# lab-cpus-old: 1
# (two vCPUs on the newest kernel, where current users are; the older one
# once, to keep the suite within its time)
# Several processes issuing DRM ioctls on one real DRM node at the same time,
# a 32-bit one among them: xputrace ioctl must count every call of each, with
# no run skipped by the kernel (on 7.x the syscall tracepoints' programs are
# preemptible and lose calls under this load; the kprobe hook must not).
# Then, for the record, what each other hook counts under the same load.
need_xputrace
load vkms
VKMS=
for c in /dev/dri/card*; do
	drmioctl "$c" version=1 expect=vkms >/dev/null 2>&1 && VKMS=$c
done
check "found the vkms node" [ -n "$VKMS" ]
[ -n "$VKMS" ] || finish
NPROC=4 CALLS=3000 CALLS32=1000
HAVE32=0
[ -x /lab/bin/drmioctl32 ] && drmioctl32 "$VKMS" version=1 >/dev/null 2>&1 && HAVE32=1

J=$S/xp.json
start() { # HOOK ("" for the tool's choice): the tracer in the background, once it traces
	start_xp $J ioctl --json -d 600 ${1:+--hook $1}; r=$?
	XP=$XPID
	return $r
}
load_run() { # the clients, all at once; their pids in $PIDS, P32
	PIDS=""
	for i in $(seq $NPROC); do
		drmioctl "$VKMS" version=$CALLS >$S/p$i.txt &
		PIDS="$PIDS $!"
	done
	P32=
	if [ $HAVE32 = 1 ]; then drmioctl32 "$VKMS" version=$CALLS32 >$S/p32.txt & P32=$!; fi
	for p in $PIDS $P32; do wait $p; done
}
counted() { jget $J "processes[pid=$1].ioctls[name=DRM_IOCTL_VERSION].calls"; }
total=$((NPROC * CALLS + HAVE32 * CALLS32))
untimed() { jget $J "processes[pid=$1].ioctls[name=DRM_IOCTL_VERSION].untimed"; }
say_loss() { # HOOK: one line for the benchmark's record (bench/ioctl_overhead.sh); sets N, U
	local c p
	N=0 U=0
	for p in $PIDS $P32; do c=$(counted $p); N=$((N + ${c:-0})); c=$(untimed $p); U=$((U + ${c:-0})); done
	say "loss: $(uname -r), $(nproc) vCPU: $1 counted $N of $total calls ($U untimed), kernel skipped $(jget $J drops.kernel_missed) runs"
}

group concurrency
start "" || finish
load_run
kill -INT $XP; wait $XP
expect_eq "xputrace exit status" 0 $?
expect_eq "hook chosen where kprobes exist" kprobe "$(jget $J hook)"
for p in $PIDS; do expect_eq "pid $p: DRM_IOCTL_VERSION calls" $CALLS "$(counted $p)"; done
if [ $HAVE32 = 1 ]; then
	expect_eq "32-bit pid $P32: DRM_IOCTL_VERSION calls" $CALLS32 "$(counted $P32)"
	expect_eq "32-bit pid $P32: comm" drmioctl32 "$(jget $J "processes[pid=$P32].comm")"
else
	say "no 32-bit drmioctl in this guest: compat calls not checked here"
fi
expect_eq "runs skipped by the kernel" 0 "$(jget $J drops.kernel_missed)"
expect_eq "drops" 0 "$(jget $J drops.total)"
say_loss "$(jget $J hook)"
cat $J.err

group blocked
# 16 processes blocked in DRM_IOCTL_WAIT_VBLANK at once, while a client keeps
# vkms's CRTC lit: more calls in flight than the kernel's default number of
# return-probe instances (max(10, 2 x CPUs)); every return must be seen.
NB=16 WAITS=10
vblank "$VKMS" waits=$((WAITS * 8)) >$S/lit.txt 2>&1 & LIT=$!
sleep 1
start ""
BP=""
for i in $(seq $NB); do drmioctl "$VKMS" waitvbl=$WAITS >$S/b$i.txt 2>&1 & BP="$BP $!"; done
for p in $BP; do wait $p; done
kill -INT $XP; wait $XP
wait $LIT
for p in $BP; do
	expect_eq "pid $p: WAIT_VBLANK calls" $WAITS "$(jget $J "processes[pid=$p].ioctls[name=DRM_IOCTL_WAIT_VBLANK].calls")"
done
expect_eq "WAIT_VBLANK errors (the calls blocked, not failed)" 0 \
	"$(for p in $BP; do jget $J "processes[pid=$p].ioctls[name=DRM_IOCTL_WAIT_VBLANK].errors"; done | sort -u | tr '\n' ' ' | sed 's/ $//')"
expect_eq "runs skipped or returns missed by the kernel" 0 "$(jget $J drops.kernel_missed)"

group cleanup
# The return probes made through tracefs go away with the tracer, and those of
# a tracer killed with SIGKILL go away when the next one starts.
expect_eq "xputrace events left after a clean exit" 0 "$(grep -c xputrace/ $T/kprobe_events)"
start ""
expect_eq "return probes while tracing (native and compat)" 2 "$(grep -c '^r.*xputrace/' $T/kprobe_events)"
kill -KILL $XP; wait $XP
expect_eq "return probes left by a killed tracer" 2 "$(grep -c xputrace/ $T/kprobe_events)"
start ""
kill -INT $XP; wait $XP
expect_eq "xputrace events after the next tracer" 0 "$(grep -c xputrace/ $T/kprobe_events)"

group other_hooks
# The fallback hooks: on 7.x the kernel skips their programs under this load
# (their syscall tracepoints run them preemptible; a task switched out in one
# holds it for its CPU). A call whose start was skipped is counted at its
# return, untimed; one whose return was skipped is lost. Asserted: no call is
# lost unsaid (each needs a skipped run), and none is counted twice.
for h in tracepoint tp_btf raw_tp; do
	start $h || continue
	load_run
	kill -INT $XP; wait $XP
	say_loss $h
	check "hook $h reported" [ "$(jget $J hook)" = $h ]
	seen=$total
	[ $h = tracepoint ] && seen=$((total - HAVE32 * CALLS32))	# not the 32-bit calls
	check "hook $h: calls counted ($N) at most those made ($seen)" [ $N -le $seen ]
	check "hook $h: calls not counted ($((seen - N))) at most the runs dropped ($(jget $J drops.total))" \
		[ $((seen - N)) -le "$(jget $J drops.total)" ]
	check "hook $h: untimed calls ($U) at most the runs the kernel skipped" \
		[ $U -le "$(jget $J drops.kernel_missed)" ]
	# the classic events miss the 32-bit client's calls, and say so by its pid
	if [ $h = tracepoint ] && [ $HAVE32 = 1 ]; then
		check "tracepoint: the 32-bit client named as unseen" \
			grep -q "^ioctl: 1 32-bit program started while tracing (first: $P32 drmioctl32)" $J.err
	fi
done

group cost
# Not asserted: ns per ioctl on /dev/null and per getppid() with each hook
# attached, against none, in this guest (emulated: compare the ratios).
if command -v ioctl_loop >/dev/null; then
	base_io=$(ioctl_loop 20000 5) base_pp=$(ioctl_loop 20000 5 getppid)
	say "cost: $(uname -r), $(nproc) vCPU: none ioctl $base_io ns, getppid $base_pp ns"
	for h in kprobe tracepoint tp_btf; do
		command -v floor >/dev/null || break
		rm -f $S/f.err; floor $h >$S/f.out 2>$S/f.err & F=$!
		i=0; while ! grep -q Attached $S/f.err && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
		io=$(ioctl_loop 20000 5) pp=$(ioctl_loop 20000 5 getppid)
		kill -INT $F; wait $F
		say "cost: $(uname -r), $(nproc) vCPU: floor-$h ioctl $io ns (+$(awk -v a=$io -v b=$base_io 'BEGIN{printf "%.0f", a-b}')), getppid $pp ns (+$(awk -v a=$pp -v b=$base_pp 'BEGIN{printf "%.0f", a-b}'))"
	done
	for h in kprobe tracepoint tp_btf raw_tp; do
		start_xp $S/c.out ioctl --device /dev/null -d 600 --hook $h || continue
		io=$(ioctl_loop 20000 5) pp=$(ioctl_loop 20000 5 getppid)
		stop_xp
		check "cost run with $h" grep -q "calls" $S/c.out
		say "cost: $(uname -r), $(nproc) vCPU: $h ioctl $io ns (+$(awk -v a=$io -v b=$base_io 'BEGIN{printf "%.0f", a-b}')), getppid $pp ns (+$(awk -v a=$pp -v b=$base_pp 'BEGIN{printf "%.0f", a-b}'))"
	done
fi
finish
