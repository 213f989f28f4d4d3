# xputrace ioctl counts and names real DRM ioctls on real DRM nodes (vgem,
# vkms) exactly: drmioctl issues a known number of each and reports what it
# issued; the tracer's JSON summary must agree per process and per name.
need_xputrace
load vgem; load vkms
card_of() { # DRM driver name -> its /dev/dri/cardN (asked with DRM_IOCTL_VERSION)
	for c in /dev/dri/card*; do
		drmioctl "$c" version=1 expect="$1" >/dev/null 2>&1 && { echo "$c"; return; }
	done
}
VGEM=$(card_of vgem); VKMS=$(card_of vkms)
say "vgem is $VGEM, vkms is $VKMS"
check "found the vgem node" [ -n "$VGEM" ]
check "found the vkms node" [ -n "$VKMS" ]
[ -n "$VGEM" ] && [ -n "$VKMS" ] || finish

uptime_cs() { awk '{ printf "%d\n", $1 * 100 }' /proc/uptime; }
# Start the tracer in the background and wait until it says it is tracing.
start_tracer() {
	rm -f $S/xp.err	# the last tracer's "Tracing" must not be read as this one's
	xputrace ioctl "$@" >$S/xp.out 2>$S/xp.err &
	XP=$!
	i=0
	while ! grep -q 'Tracing' $S/xp.err && [ $i -lt 900 ]; do
		kill -0 $XP 2>/dev/null || break
		sleep 0.1; i=$((i + 1))
	done
	T0=$(uptime_cs)
	grep -q 'Tracing' $S/xp.err || { bad "xputrace ioctl $* did not start: $(cat $S/xp.err)"; return 1; }
}
# T0..T1 lies inside the traced interval: T0 after the tracer said it traces, T1 before SIGINT
stop_tracer() { T1=$(uptime_cs); kill -INT $XP; wait $XP; XRC=$?; }
J=$S/xp.out
# compare one process's entries with what drmioctl said it issued
check_issued() { # pid device issued-file
	local pid=$1 dev=$2 f=$3 name calls errors
	expect_eq "pid $pid: number of distinct ioctls" "$(grep -c '^issued' $f)" "$(jget -n $J "processes[pid=$pid].ioctls")"
	expect_eq "pid $pid: comm" drmioctl "$(jget $J "processes[pid=$pid].comm")"
	while read -r _ name calls errors; do
		e="processes[pid=$pid].ioctls[name=$name]"
		expect_eq "pid $pid $name calls" "$calls" "$(jget $J "$e.calls")"
		expect_eq "pid $pid $name errors" "$errors" "$(jget $J "$e.errors")"
		expect_eq "pid $pid $name device" "$dev" "$(jget $J "$e.device")"
		expect_eq "pid $pid $name latency samples" "$calls" "$(jget $J "$e.latency_ns.count")"
	done <<EOT
$(grep '^issued' $f)
EOT
}

group summary
start_tracer --json -d 300 || finish
drmioctl $VGEM version=5 dumb=3 getcap=2 getres=1 >$S/a.txt & A=$!; wait $A; ra=$?
drmioctl $VKMS version=2 dumb=4 getres=3 >$S/b.txt & B=$!; wait $B; rb=$?
stop_tracer
expect_eq "drmioctl on vgem" 0 $ra
expect_eq "drmioctl on vkms" 0 $rb
expect_eq "xputrace exit status after SIGINT" 0 $XRC
cat $S/a.txt $S/b.txt
expect_eq "processes in the summary (only the two drmioctl)" 2 "$(jget -n $J processes)"
check_issued $A $VGEM $S/a.txt
check_issued $B $VKMS $S/b.txt
expect_eq "vgem GET_CAP errno" 2 "$(jget $J "processes[pid=$A].ioctls[name=DRM_IOCTL_GET_CAP].errnos.EOPNOTSUPP")"
expect_eq "vgem GETRESOURCES errno" 1 "$(jget $J "processes[pid=$A].ioctls[name=DRM_IOCTL_MODE_GETRESOURCES].errnos.EOPNOTSUPP")"
expect_eq "drops" 0 "$(jget $J drops.total)"
dur=$(jget $J duration_s)
# the summary's duration covers at least the time we saw it trace (1/100 s clock: 1 tick slack)
check "duration_s $dur covers the traced interval $(( (T1 - T0) ))0 ms" awk -v d="$dur" -v t=$((T1 - T0)) 'BEGIN { exit !(d * 100 + 1 >= t) }'
cat $J; echo; cat $S/xp.err
cp $J $S/summary.json

group filters
# --comm keeps only threads of that name: a copy of drmioctl under another
# name issues ioctls that must not appear
cp /lab/bin/drmioctl $S/othertool
start_tracer --json --comm drmioctl -d 300 || finish
$S/othertool $VKMS version=7 >/dev/null
drmioctl $VKMS version=3 getres=2 >$S/c.txt & C=$!; wait $C
stop_tracer
expect_eq "--comm: processes" 1 "$(jget -n $J processes)"
expect_eq "--comm: the process kept" $C "$(jget $J processes[0].pid)"
check_issued $C $VKMS $S/c.txt

group driver_names
# the driver field names the DRM driver behind the node, as DRM_IOCTL_VERSION does
expect_eq "driver of $VGEM" vgem "$(jget $S/summary.json "processes[pid=$A].ioctls[0].driver")"
expect_eq "driver of $VKMS" vkms "$(jget $S/summary.json "processes[pid=$B].ioctls[0].driver")"
finish
