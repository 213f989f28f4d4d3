# Real vblank events from vkms: a mode set, vblank event requests and page
# flips drive the kernel's drm_vblank_event, _queued and _delivered
# tracepoints (tracefs only: this checks the lab, for the vblank capability).
load vkms || finish
trace_on drm
vblank /dev/dri/card0 waits=20 flips=30 >$S/vb.txt; rc=$?
trace_off
expect_eq "vblank status" 0 $rc
cat $S/vb.txt
expect_eq "drm_vblank_event_queued (one per event request)" 20 "$(trace_count drm_vblank_event_queued)"
# events of our file (the mode set's own commit delivers with file=0)
F=$(grep -m1 ' drm_vblank_event_queued: ' $S/trace.txt | sed -n 's/.*file=\([0-9a-f]*\),.*/\1/p')
expect_eq "drm_vblank_event_delivered to our file (requests + flips)" 50 "$(grep ' drm_vblank_event_delivered: ' $S/trace.txt | grep -c "file=$F,")"
n=$(trace_count drm_vblank_event)
check "drm_vblank_event fired for every waited frame ($n >= 50)" [ "$n" -ge 50 ]
# vkms runs at 60 Hz: the vblank timestamps advance by 16.67 ms (under
# emulation a late timer skips a vblank now and then: the median is checked)
grep ' drm_vblank_event: ' $S/trace.txt | sed -n 's/.*time=\([0-9]*\).*/\1/p' >$S/vbt.txt
per=$(($(awk 'NR > 1 { print $1 - p } { p = $1 }' $S/vbt.txt | median 0) / 1000))
check "median vblank period ${per} us is 16667 us +-1%" [ "${per:-0}" -ge 16500 -a "${per:-0}" -le 16834 ]
grep -e ' drm_vblank_event_delivered: ' -e ' drm_vblank_event_queued: ' $S/trace.txt | head -12
awk 'NR > 1 { print $1 - p } { p = $1 }' $S/vbt.txt | sort -n | uniq -c | sort -rn | head -5
grep -m2 ' drm_vblank_event: ' $S/trace.txt
grep -m1 ' drm_vblank_event_queued: ' $S/trace.txt
grep -m1 ' drm_vblank_event_delivered: ' $S/trace.txt
finish
